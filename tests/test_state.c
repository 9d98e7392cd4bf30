/*
 * tests/test_state.c - keyed state on the in-memory backend: the shared
 * cases of test_state_cases.h, plus what only the memory backend promises
 * (allocation failures, memory bounded under TTL churn, read pointers that
 * survive cleanup until the next write).
 */
#include "test_state_cases.h"

STATE_CASES(memory, "memory")

/* Runs a mixed workload; returns the first error (or 0). */
static int workload(weir__backend *be, weir_state **sts, int n_keys)
{
    char k[32], v[64];
    int rc = 0;
    for (int i = 0; i < n_keys && !rc; i++) {
        snprintf(k, sizeof k, "key%d", i);
        if ((rc = setk(be, k)))
            break;
        snprintf(v, sizeof v, "value-%d-with-some-length", i);
        if ((rc = weir_value_put(sts[0], NS("ns"), NS(v))))
            break;
        for (int j = 0; j < 40 && !rc; j++)
            rc = weir_list_add(sts[1], NS("w"), NS(v));
        for (int j = 0; j < 20 && !rc; j++) {
            snprintf(v, sizeof v, "mk%d", j);
            rc = weir_map_put(sts[2], NS("w"), NS(v), NS(v));
        }
        int64_t x = i;
        if (!rc)
            rc = weir_state_add(sts[3], NS("w"), &x, 8);
        if (!rc && i % 3 == 0)
            rc = weir_state_clear(sts[0], NS("ns"));
    }
    if (!rc) {
        weir_buf b;
        weir_buf_init(&b);
        for (uint32_t kg = 0; kg < 128 && !rc; kg++) {
            weir_buf_clear(&b);
            rc = weir__backend_snapshot_kg(be, kg, &b);
            if (!rc) {
                weir_cursor c;
                weir_cursor_init(&c, b.data, b.len);
                rc = weir__backend_restore_kg(be, kg, &c);
            }
        }
        weir_buf_fini(&b);
    }
    return rc;
}

Test(memory, allocation_failures)
{
    /*
     * Fail the nth allocation for every n until a run succeeds: each failure
     * must come back as WEIR_ENOMEM, leave a usable backend, and leak nothing
     * (checked by the ASan build).
     */
    int failures = 0;
    for (uint64_t n = 1; n < 100000; n++) {
        weir_alloc_fail_after(n);
        weir__backend_config cfg = {
            .kind = "memory", .max_parallelism = 128, .kg_lo = 0, .kg_hi = 128};
        weir__backend *be = NULL;
        int rc = weir__backend_create(&cfg, &be);
        weir_state *sts[4] = {0};
        const char *names[] = {"value", "list", "map", "sum"};
        weir_state_kind kinds[] = {WEIR_STATE_VALUE, WEIR_STATE_LIST,
                                   WEIR_STATE_MAP, WEIR_STATE_REDUCING};
        for (int i = 0; i < 4 && !rc; i++) {
            weir_state_desc d = {
                .name = names[i], .kind = kinds[i], .reduce = sum_reduce};
            rc = weir__backend_register(be, &d, &sts[i]);
        }
        if (!rc)
            rc = workload(be, sts, 30);
        weir_alloc_fail_after(0);
        if (rc == 0) {
            weir__backend_destroy(be);
            cr_assert_gt(failures, 50);
            return;
        }
        cr_assert_eq(rc, WEIR_ENOMEM, "n=%llu: %s", (unsigned long long)n,
                     weir_strerror(rc));
        failures++;
        if (be) {
            /* Still usable after the failure. */
            char buf[64];
            cr_assert_eq(setk(be, "after"), 0);
            weir_state_desc d = {.name = "late", .kind = WEIR_STATE_VALUE};
            weir_state *st = NULL;
            cr_assert_eq(weir__backend_register(be, &d, &st), 0);
            put_s(st, "", "ok");
            cr_assert_str_eq(get_s(st, "", buf, sizeof buf), "ok");
        }
        weir__backend_destroy(be);
    }
    cr_assert_fail("the workload never succeeded");
}

Test(memory, ttl_incremental_cleanup_bounds_memory)
{
    /*
     * Keys that are written once and never read again must not hold memory
     * after they expire: each access examines a few entries, and their
     * records are reused by new keys.
     */
    weir_manual_clock *mc = weir_manual_clock_create(0);
    weir__backend *be = mkbe("memory", 0, 128, weir_manual_clock_get(mc));
    weir_state *v =
        reg(be, "v", WEIR_STATE_VALUE, 10, WEIR_TTL_ON_CREATE_AND_WRITE);
    weir_state *l =
        reg(be, "l", WEIR_STATE_LIST, 10, WEIR_TTL_ON_CREATE_AND_WRITE);
    weir_state *m =
        reg(be, "m", WEIR_STATE_MAP, 10, WEIR_TTL_ON_CREATE_AND_WRITE);
    char k[32];
    uint64_t peak_first = 0;
    for (int round = 0; round < 8; round++) {
        for (int i = 0; i < 5000; i++) {
            snprintf(k, sizeof k, "r%d-key%d", round, i);
            cr_assert_eq(setk(be, k), 0);
            put_s(v, "", "some value bytes");
            cr_assert_eq(weir_list_add(l, NS(""), "element", 7), 0);
            cr_assert_eq(weir_map_put(m, NS(""), "mk", 2, "mv", 2), 0);
        }
        uint64_t size = weir__backend_size_bytes(be);
        if (round == 0)
            peak_first = size;
        /* Tables keep their size; records are recycled: growth stays far below
         * 8x. */
        cr_assert_lt(size, peak_first * 2, "round %d: %llu vs %llu", round,
                     (unsigned long long)size, (unsigned long long)peak_first);
        weir_manual_clock_advance(mc, 100);
    }
    /* Without TTL the same workload grows with the keys (the test measures
     * something). */
    weir__backend *plain = mkbe("memory", 0, 128, weir_manual_clock_get(mc));
    weir_state *pv = reg(plain, "v", WEIR_STATE_VALUE, 0, 0);
    for (int i = 0; i < 40000; i++) {
        snprintf(k, sizeof k, "key%d", i);
        cr_assert_eq(setk(plain, k), 0);
        put_s(pv, "", "some value bytes");
    }
    cr_assert_gt(weir__backend_size_bytes(plain),
                 weir__backend_size_bytes(be) / 2);
    weir__backend_destroy(plain);
    weir__backend_destroy(be);
    weir_manual_clock_destroy(mc);
}

Test(memory, read_pointers_survive_cleanup_until_next_write)
{
    /*
     * weir/state.h: a read pointer is valid until the next write. Reads that
     * find expired entries (and the cleanup steps they run) unlink records;
     * the memory must stay readable until a write. Under ASan a premature
     * free is reported, since free slab blocks are poisoned.
     */
    weir_manual_clock *mc = weir_manual_clock_create(0);
    weir__backend *be = mkbe("memory", 0, 128, weir_manual_clock_get(mc));
    weir_state *v =
        reg(be, "v", WEIR_STATE_VALUE, 10, WEIR_TTL_ON_CREATE_AND_WRITE);
    cr_assert_eq(setk(be, "the-key"), 0);
    char ns[16], val[64];
    for (int i = 0; i < 64; i++) {
        snprintf(ns, sizeof ns, "ns%d", i);
        snprintf(val, sizeof val, "payload-%d-payload-payload", i);
        put_s(v, ns, val);
    }
    const void *p[8];
    size_t len[8];
    for (int i = 0; i < 8; i++) {
        snprintf(ns, sizeof ns, "ns%d", i);
        cr_assert_eq(weir_value_get(v, NS(ns), &p[i], &len[i]), 0);
    }
    uint64_t before = weir__backend_size_bytes(be);
    weir_manual_clock_advance(mc, 100);
    const void *q;
    size_t qlen;
    for (int i = 8; i < 64; i++) {
        snprintf(ns, sizeof ns, "ns%d", i);
        cr_assert_eq(weir_value_get(v, NS(ns), &q, &qlen), WEIR_ENOTFOUND);
    }
    for (int i = 0; i < 8; i++) {
        snprintf(val, sizeof val, "payload-%d-payload-payload", i);
        cr_assert_eq(len[i], strlen(val));
        cr_assert_eq(memcmp(p[i], val, len[i]), 0);
    }
    /* The first write releases what the reads unlinked; the entries are gone.
     */
    put_s(v, "fresh", "x");
    for (int i = 0; i < 8; i++) {
        snprintf(ns, sizeof ns, "ns%d", i);
        cr_assert_eq(weir_value_get(v, NS(ns), &q, &qlen), WEIR_ENOTFOUND);
    }
    cr_assert_leq(weir__backend_size_bytes(be), before);
    weir__backend_destroy(be);
    weir_manual_clock_destroy(mc);
}

/* Element i of list `which` in large_lists_grow_keeping_their_elements;
 * from element `repeat_from` on, list 0 holds copies of its element 0. */
/* Snapshots every key group of be and restores it in place (the state must come back as it was). */
static void snapshot_restore_all(weir__backend *be)
{
    weir_buf b;
    weir_buf_init(&b);
    for (uint32_t kg = 0; kg < 128; kg++) {
        weir_buf_clear(&b);
        cr_assert_eq(weir__backend_snapshot_kg(be, kg, &b), 0);
        weir_cursor c;
        weir_cursor_init(&c, b.data, b.len);
        cr_assert_eq(weir__backend_restore_kg(be, kg, &c), 0);
    }
    weir_buf_fini(&b);
}

static size_t big_elem(int which, int i, char *out)
{
    size_t len = 1 + (size_t)((i * 37 + which * 11) % 300);
    for (size_t b = 0; b < len; b++)
        out[b] = (char)('a' + (i + which + (int)b) % 26);
    return len;
}

typedef struct big_check {
    int which, n, bad, repeat_from;
    const void *first; /* big_first: element 0 */
    size_t first_len;
} big_check;

static int big_visit(void *ud, const void *v, size_t len)
{
    big_check *c = ud;
    char want[300];
    size_t wl = big_elem(c->which, c->repeat_from && c->n >= c->repeat_from ? 0 : c->n, want);
    if (len != wl || memcmp(v, want, wl))
        c->bad++;
    c->n++;
    return 0;
}

static int big_first(void *ud, const void *v, size_t len)
{
    big_check *c = ud;
    c->first = v;
    c->first_len = len;
    return 1; /* stop */
}

Test(memory, large_lists_grow_keeping_their_elements)
{
    /*
     * A list past the slab's largest block grows in place where the
     * allocator can (a window join's per-window list holds every row of the
     * window). Two lists grow in turn, a snapshot is restored halfway, and an
     * element read out of a large list is appended to it again (its bytes
     * point into the record being grown, so it must not move first): every
     * element must come back, in order, with its bytes.
     */
    weir_manual_clock *mc = weir_manual_clock_create(0);
    weir__backend *be = mkbe("memory", 0, 128, weir_manual_clock_get(mc));
    weir_state *l = reg(be, "l", WEIR_STATE_LIST, 0, 0);
    const char *keys[2] = {"window-a", "window-b"};
    char e[300];
    int n[2] = {0, 0};
    for (int i = 0; i < 6000; i++) {
        for (int w = 0; w < 2; w++) {
            cr_assert_eq(setk(be, keys[w]), 0);
            size_t len = big_elem(w, n[w], e);
            cr_assert_eq(weir_list_add(l, NS(""), e, len), 0);
            n[w]++;
        }
        if (i == 3000) {
            snapshot_restore_all(be);
        }
    }
    /* Append list a's own first element to it from a read pointer, past at
     * least one growth of the list. */
    cr_assert_eq(setk(be, keys[0]), 0);
    for (int k = 0; k < 4000; k++) {
        big_check f = {0};
        cr_assert_eq(weir_list_get(l, NS(""), big_first, &f), 0);
        cr_assert_eq(weir_list_add(l, NS(""), f.first, f.first_len), 0);
    }
    for (int w = 0; w < 2; w++) {
        cr_assert_eq(setk(be, keys[w]), 0);
        big_check c = {.which = w, .repeat_from = w == 0 ? n[0] : 0};
        cr_assert_eq(weir_list_get(l, NS(""), big_visit, &c), 0);
        cr_assert_eq(c.n, n[w] + (w == 0 ? 4000 : 0), "list %d: %d elements", w, c.n);
        cr_assert_eq(c.bad, 0, "list %d: %d elements differ", w, c.bad);
    }
    weir__backend_destroy(be);
    weir_manual_clock_destroy(mc);
}

/* The lengths of lengths_visit's elements: each side of a varint header's byte counts. */
static const size_t elem_lens[] = {0, 1, 127, 128, 16383, 16384, 70000, 5};

typedef struct lengths_check {
    int n, bad;
} lengths_check;

static int lengths_visit(void *ud, const void *v, size_t len)
{
    lengths_check *c = ud;
    const uint8_t *b = v;
    bool ok = c->n < (int)(sizeof elem_lens / sizeof *elem_lens) && len == elem_lens[c->n];
    for (size_t i = 0; ok && i < len; i++)
        ok = b[i] == (uint8_t)(c->n * 31 + i);
    c->bad += !ok;
    c->n++;
    return 0;
}

Test(memory, list_elements_of_any_length_keep_their_bytes)
{
    /*
     * A list of a state without TTL heads each element with its length
     * alone (a varint of 1 - 3 bytes here); one with TTL with a length and
     * a stamp. Elements of every header size come back in order with their
     * bytes, before and after a snapshot is restored, in both.
     */
    weir_manual_clock *mc = weir_manual_clock_create(0);
    weir__backend *be = mkbe("memory", 0, 128, weir_manual_clock_get(mc));
    weir_state *l[2] = {reg(be, "plain", WEIR_STATE_LIST, 0, 0), reg(be, "ttl", WEIR_STATE_LIST, 1000000, 0)};
    size_t n = sizeof elem_lens / sizeof *elem_lens;
    uint8_t *e = malloc(70000);
    cr_assert_not_null(e);
    cr_assert_eq(setk(be, "k"), 0);
    for (size_t i = 0; i < n; i++) {
        for (size_t b = 0; b < elem_lens[i]; b++)
            e[b] = (uint8_t)(i * 31 + b);
        for (int s = 0; s < 2; s++)
            cr_assert_eq(weir_list_add(l[s], NS(""), e, elem_lens[i]), 0);
    }
    for (int round = 0; round < 2; round++) {
        if (round == 1) {
            snapshot_restore_all(be);
            cr_assert_eq(setk(be, "k"), 0);
        }
        for (int s = 0; s < 2; s++) {
            lengths_check c = {0};
            cr_assert_eq(weir_list_get(l[s], NS(""), lengths_visit, &c), 0);
            cr_assert_eq(c.n, (int)n, "state %d, round %d: %d elements", s, round, c.n);
            cr_assert_eq(c.bad, 0, "state %d, round %d: %d elements differ", s, round, c.bad);
        }
    }
    free(e);
    weir__backend_destroy(be);
    weir_manual_clock_destroy(mc);
}

/* Counts the elements of a list that differ from want. */
typedef struct same_check {
    char want[300];
    size_t len;
    int n, bad;
} same_check;

static int same_visit(void *ud, const void *v, size_t len)
{
    same_check *c = ud;
    c->bad += len != c->len || memcmp(v, c->want, len) != 0;
    c->n++;
    return 0;
}

Test(memory, small_logs_move_whole_keeping_their_elements)
{
    /*
     * A log of up to about 1 KiB moves whole into a larger record as it
     * grows, then goes on in chunks. Each element after the first is the
     * log's first element appended from a read pointer (its bytes lie in
     * the record being replaced), through both regimes and a snapshot
     * restored halfway: every element comes back with the first one's bytes.
     */
    weir__backend *be = mkbe("memory", 0, 128, no_clock());
    weir_state *l = reg(be, "l", WEIR_STATE_LIST, 0, 0);
    char e[300];
    size_t len = big_elem(2, 2, e); /* 97 bytes: a record move every few elements */
    cr_assert_eq(setk(be, "small"), 0);
    cr_assert_eq(weir_list_add(l, NS(""), e, len), 0);
    for (int i = 1; i < 40; i++) {
        if (i == 7) {
            snapshot_restore_all(be);
            cr_assert_eq(setk(be, "small"), 0);
        }
        big_check f = {0};
        cr_assert_eq(weir_list_get(l, NS(""), big_first, &f), 0);
        cr_assert_eq(weir_list_add(l, NS(""), f.first, f.first_len), 0);
        same_check sc = {.len = len};
        memcpy(sc.want, e, len);
        cr_assert_eq(weir_list_get(l, NS(""), same_visit, &sc), 0);
        cr_assert_eq(sc.n, i + 1, "after %d appends: %d elements", i, sc.n);
        cr_assert_eq(sc.bad, 0, "after %d appends: %d elements differ", i, sc.bad);
    }
    weir__backend_destroy(be);
}

Test(memory, log_chunks_keep_their_elements_through_a_snapshot)
{
    /*
     * A log past its record's room goes on in a chain of chunks whose last
     * one's fill is kept in the record. Logs of 0 to 2 500 elements (up to
     * a few dozen chunks), an asynchronous snapshot opened, then more
     * appended to each (the key group's records and chunks are copied
     * first): the snapshot holds what was there at its start, the live
     * logs every element in order, and a restore of the snapshot gives
     * back the elements of its start.
     */
    weir__backend *be = mkbe("memory", 0, 128, no_clock());
    weir_state *l = reg(be, "l", WEIR_STATE_LIST, 0, 0);
    const int counts[] = {1, 2, 40, 300, 2500};
    enum { NK = sizeof counts / sizeof *counts, MORE = 700 };
    char k[16], e[300];
    for (int w = 0; w < NK; w++) {
        snprintf(k, sizeof k, "log%d", w);
        cr_assert_eq(setk(be, k), 0);
        for (int i = 0; i < counts[w]; i++)
            cr_assert_eq(weir_list_add(l, NS(""), e, big_elem(w, i, e)), 0);
    }
    weir_buf want, got;
    weir_buf_init(&want);
    weir_buf_init(&got);
    for (uint32_t kg = 0; kg < 128; kg++)
        cr_assert_eq(weir__backend_snapshot_kg(be, kg, &want), 0);
    weir__backend_snap *s;
    cr_assert_eq(weir__backend_snapshot_begin(be, &s), 0);
    for (int w = 0; w < NK; w++) {
        snprintf(k, sizeof k, "log%d", w);
        cr_assert_eq(setk(be, k), 0);
        for (int i = counts[w]; i < counts[w] + MORE; i++)
            cr_assert_eq(weir_list_add(l, NS(""), e, big_elem(w, i, e)), 0);
    }
    for (uint32_t kg = 0; kg < 128; kg++)
        cr_assert_eq(weir__backend_snap_kg(s, kg, &got), 0);
    weir__backend_snap_release(s);
    cr_assert_eq(got.len, want.len);
    cr_assert(memcmp(got.data, want.data, want.len) == 0);
    for (int round = 0; round < 2; round++) {
        if (round == 1) { /* the snapshot's bytes back into the backend */
            weir_cursor c;
            weir_cursor_init(&c, got.data, got.len);
            for (uint32_t kg = 0; kg < 128; kg++)
                cr_assert_eq(weir__backend_restore_kg(be, kg, &c), 0);
        }
        for (int w = 0; w < NK; w++) {
            snprintf(k, sizeof k, "log%d", w);
            cr_assert_eq(setk(be, k), 0);
            big_check c = {.which = w};
            cr_assert_eq(weir_list_get(l, NS(""), big_visit, &c), 0);
            int n = counts[w] + (round == 0 ? MORE : 0);
            cr_assert_eq(c.n, n, "log %d, round %d: %d elements", w, round, c.n);
            cr_assert_eq(c.bad, 0, "log %d, round %d: %d elements differ", w, round, c.bad);
        }
    }
    /* An element read out of a log that still fits its record, appended
     * to it until its elements move into a chunk (val points into the
     * record that is left). */
    cr_assert_eq(setk(be, "self"), 0);
    cr_assert_eq(weir_list_add(l, NS(""), e, big_elem(0, 7, e)), 0);
    for (int i = 0; i < 40; i++) {
        big_check f = {0};
        cr_assert_eq(weir_list_get(l, NS(""), big_first, &f), 0);
        cr_assert_eq(weir_list_add(l, NS(""), f.first, f.first_len), 0);
    }
    same_check c = {0};
    c.len = big_elem(0, 7, c.want);
    cr_assert_eq(weir_list_get(l, NS(""), same_visit, &c), 0);
    cr_assert_eq(c.n, 41);
    cr_assert_eq(c.bad, 0, "%d elements differ", c.bad);
    weir_buf_fini(&want);
    weir_buf_fini(&got);
    weir__backend_destroy(be);
}

#include "state/slab.h"

Test(slab, rounding_keeps_blocks_16_aligned_and_close_to_the_request)
{
    /*
     * Every size up to the largest class rounds up to a multiple of 16, and
     * records of a Top-10 list (about 1 - 2 KiB, one per partition) waste
     * less than 64 bytes up to 1 KiB and 128 up to 2 KiB: a state of such
     * records is mostly fresh memory, each byte of it a page zeroed once.
     */
    size_t prev = 0;
    for (size_t n = 1; n <= WEIR__SLAB_MAX; n++) {
        size_t r = weir__slab_round(n);
        cr_assert(r >= n && r % 16 == 0 && r >= prev, "size %zu rounds to %zu",
                  n, r);
        if (n > 640 && n <= 1024)
            cr_assert_lt(r - n, 64, "size %zu rounds to %zu", n, r);
        else if (n > 1024 && n <= 2048)
            cr_assert_lt(r - n, 128, "size %zu rounds to %zu", n, r);
        prev = r;
    }
}

Test(slab, big_pages_and_large_blocks_keep_their_bytes_and_free_at_fini)
{
    /*
     * Past 4 MiB the slab takes 8 MiB pages (huge pages where the kernel
     * gives them); large blocks are on the slab's own list, so fini frees
     * them without the caller walking its records (under ASan a block fini
     * missed is a leak). 40 000 blocks of 200 bytes (8 MB: small pages,
     * then big ones) and 64 large blocks, some grown, some freed: every
     * block keeps its bytes, none overlaps another.
     */
    weir__slab s;
    weir__slab_init(&s);
    enum { N = 40000, L = 64 };
    uint8_t **p = malloc(N * sizeof *p);
    uint8_t *big[L];
    size_t big_n[L];
    cr_assert_not_null(p);
    for (int i = 0; i < N; i++) {
        p[i] = weir__slab_alloc(&s, 200);
        cr_assert_not_null(p[i]);
        memset(p[i], i & 0xff, 200);
    }
    cr_assert_geq(s.bytes, (uint64_t)N * 200);
    for (int i = 0; i < L; i++) {
        big_n[i] = 5000 + (size_t)i * 100;
        big[i] = weir__slab_alloc(&s, big_n[i]);
        cr_assert_not_null(big[i]);
        memset(big[i], 0x80 | i, big_n[i]);
    }
    for (int i = 0; i < L; i += 3) { /* grow every third, keeping its bytes */
        size_t n = big_n[i] * 3;
        big[i] = weir__slab_grow(&s, big[i], weir__slab_round(big_n[i]), n);
        cr_assert_not_null(big[i]);
        memset(big[i] + big_n[i], 0x80 | i, n - big_n[i]);
        big_n[i] = n;
    }
    for (int i = 1; i < L; i += 3) { /* free every third (middle of the list too) */
        weir__slab_free(&s, big[i], weir__slab_round(big_n[i]));
        big[i] = NULL;
    }
    for (int i = 0; i < N; i += 2) /* free half the small blocks: reused below */
        weir__slab_free(&s, p[i], weir__slab_round(200));
    for (int i = 0; i < N; i += 2) {
        p[i] = weir__slab_alloc(&s, 200);
        memset(p[i], i & 0xff, 200);
    }
    for (int i = 0; i < N; i++)
        for (int b = 0; b < 200; b += 67)
            cr_assert_eq(p[i][b], i & 0xff, "block %d byte %d", i, b);
    for (int i = 0; i < L; i++)
        if (big[i])
            for (size_t b = 0; b < big_n[i]; b += 997)
                cr_assert_eq(big[i][b], 0x80 | i, "large block %d byte %zu", i, b);
    weir__slab_fini(&s); /* frees pages and the large blocks left */
    cr_assert_eq(s.bytes, 0);
    cr_assert_null(s.large);
    free(p);
}

Test(slab, large_blocks_carved_from_big_pages_are_reused_when_freed)
{
    /*
     * Once the slab takes 8 MiB pages, a large block up to 1 MiB (a hash
     * table's slots) is carved from them; a freed one is spare room that
     * later blocks, small or large, are carved from without a new page.
     * Blocks over 1 MiB still come from the allocator. Every block keeps
     * its bytes; none overlaps another.
     */
    weir__slab s;
    weir__slab_init(&s);
    enum { N = 60000, L = 24 };
    uint8_t **p = malloc(N * sizeof *p);
    size_t n_small = 0;
    uint8_t *big[L];
    size_t big_n[L];
    cr_assert_not_null(p);
    for (; n_small < 25000; n_small++) { /* 5 MB of 200-byte blocks: past the small pages */
        p[n_small] = weir__slab_alloc(&s, 200);
        cr_assert_not_null(p[n_small]);
        memset(p[n_small], (int)(n_small & 0xff), 200);
    }
    for (int i = 0; i < L; i++) { /* 8 KiB .. 1.5 MiB: carved, the last ones not */
        big_n[i] = (size_t)8192 << (i % 8);
        if (i % 8 == 7)
            big_n[i] = (size_t)3 << 19;
        big[i] = weir__slab_alloc(&s, big_n[i]);
        cr_assert_not_null(big[i]);
        memset(big[i], 0x80 | i, big_n[i]);
    }
    cr_assert_null(s.spare);
    for (int i = 0; i < L; i += 4) { /* grow every fourth: a carved one is copied */
        size_t n = big_n[i] * 2 + 100;
        big[i] = weir__slab_grow(&s, big[i], weir__slab_round(big_n[i]), n);
        cr_assert_not_null(big[i]);
        memset(big[i] + big_n[i], 0x80 | i, n - big_n[i]);
        big_n[i] = n;
    }
    cr_assert_not_null(s.spare, "a carved block that grew leaves spare room");
    /* the newest freed block is the spare room taken first */
    uintptr_t room = (uintptr_t)big[L - 3], room_end = room + weir__slab_round(big_n[L - 3]);
    for (int i = 1; i < L; i += 4) {
        weir__slab_free(&s, big[i], weir__slab_round(big_n[i]));
        big[i] = NULL;
    }
    /* small blocks until the page's room is used up, then from the spare room: no new page */
    uint64_t bytes = s.bytes;
    bool in_room = false;
    for (; n_small < N && !in_room; n_small++) {
        p[n_small] = weir__slab_alloc(&s, 200);
        cr_assert_not_null(p[n_small]);
        memset(p[n_small], (int)(n_small & 0xff), 200);
        in_room = (uintptr_t)p[n_small] >= room - 16 && (uintptr_t)p[n_small] < room_end;
    }
    cr_assert(in_room, "a freed large block served small ones");
    cr_assert_eq(s.bytes, bytes, "no new page while there was spare room");
    uint8_t *again = weir__slab_alloc(&s, 6000);
    cr_assert_not_null(again);
    memset(again, 0x7f, 6000);
    for (size_t i = 0; i < n_small; i++)
        for (int b = 0; b < 200; b += 67)
            cr_assert_eq(p[i][b], (uint8_t)(i & 0xff), "block %zu byte %d", i, b);
    for (int i = 0; i < L; i++)
        if (big[i])
            for (size_t b = 0; b < big_n[i]; b += 997)
                cr_assert_eq(big[i][b], 0x80 | i, "large block %d byte %zu", i, b);
    for (int b = 0; b < 6000; b += 97)
        cr_assert_eq(again[b], 0x7f);
    weir__slab_fini(&s);
    cr_assert_eq(s.bytes, 0);
    cr_assert_null(s.large);
    free(p);
}

/*
 * An allocator that counts the blocks it holds and keeps the order of the
 * frees it is asked for, leaving out those of blocks taken once at_fini is
 * set (fini's own scratch, not the slab's).
 */
typedef struct free_log {
    int64_t live;
    bool at_fini;
    uintptr_t scratch[4];
    size_t n_scratch;
    uintptr_t *freed;
    size_t n_freed, cap;
} free_log;

static void *logging_realloc(void *ud, void *ptr, size_t size)
{
    free_log *l = ud;
    if (size == 0) {
        if (!ptr)
            return NULL;
        l->live--;
        bool scratch = false;
        for (size_t i = 0; i < l->n_scratch; i++)
            scratch |= l->scratch[i] == (uintptr_t)ptr;
        if (!scratch) {
            if (l->n_freed < l->cap)
                l->freed[l->n_freed] = (uintptr_t)ptr;
            l->n_freed++;
        }
        free(ptr);
        return NULL;
    }
    void *q = realloc(ptr, size);
    if (q && !ptr) {
        l->live++;
        if (l->at_fini && l->n_scratch < 4)
            l->scratch[l->n_scratch++] = (uintptr_t)q;
    }
    return q;
}

/* Fills s (through allocator l) with pages, small then big, and large blocks taken in turn, some freed early. */
static void slab_fill_mixed(weir__slab *s)
{
    void *early[40];
    int n_early = 0;
    for (int i = 0; i < 30000; i++) {
        cr_assert_not_null(weir__slab_alloc(s, 400));
        if (i % 100 == 0) {
            void *b = weir__slab_alloc(s, 6000 + (size_t)i % 5000);
            cr_assert_not_null(b);
            if (i % 700 == 0 && n_early < 40)
                early[n_early++] = b;
        }
    }
    for (int i = 0; i < n_early; i++)
        weir__slab_free(s, early[i], weir__slab_round(6000 + (size_t)(i * 700) % 5000));
}

Test(slab, fini_frees_every_block_once_lowest_address_first)
{
    /*
     * Freed newest first, each page met the allocator's free top of its
     * heap and went back to the system alone (a madvise each); lowest
     * first, neighbours join and go back together. fini frees every block
     * left exactly once, in address order; without memory for its sort,
     * still every block once.
     */
    for (int fail = 0; fail < 2; fail++) {
        free_log l = {0};
        l.cap = 4096;
        l.freed = malloc(l.cap * sizeof *l.freed);
        cr_assert_not_null(l.freed);
        weir_allocator a = {logging_realloc, &l};
        weir_set_allocator(&a);
        weir__slab s;
        weir__slab_init(&s);
        slab_fill_mixed(&s);
        int64_t held = l.live;
        cr_assert_gt(held, 100);
        l.at_fini = true;
        l.n_freed = 0; /* the large blocks freed early are not fini's */
        if (fail)
            weir_alloc_fail_after(1);
        weir__slab_fini(&s);
        weir_alloc_fail_after(0);
        weir_set_allocator(NULL);
        cr_assert_eq(l.live, 0, "fail %d: %lld blocks not freed", fail, (long long)l.live);
        cr_assert_eq((int64_t)l.n_freed, held, "fail %d: %zu freed, %lld held, %zu scratch", fail, l.n_freed, (long long)held, l.n_scratch);
        cr_assert_leq(l.n_freed, l.cap);
        for (size_t i = 1; i < l.n_freed && !fail; i++)
            cr_assert_lt(l.freed[i - 1], l.freed[i], "free %zu is below the one before", i);
        cr_assert_eq(s.bytes, 0);
        free(l.freed);
    }
}

Test(slab, every_size_rounds_to_the_smallest_class_that_holds_it)
{
    /* Sizes up to 256 bytes round up to a multiple of 16 (at least 32),
     * by arithmetic; larger ones to a class at most a fifth above them. */
    size_t prev = 0;
    for (size_t n = 1; n <= WEIR__SLAB_MAX; n++) {
        size_t r = weir__slab_round(n);
        cr_assert_geq(r, n, "size %zu", n);
        cr_assert_eq(r % 16, 0, "size %zu", n);
        cr_assert_eq(weir__slab_round(r), r, "size %zu: %zu is no class", n, r);
        cr_assert_geq(r, prev, "size %zu", n);
        if (n <= 256)
            cr_assert_eq(r, n <= 32 ? 32 : (n + 15) / 16 * 16, "size %zu", n);
        else
            cr_assert_leq(r - n, r / 5, "size %zu", n);
        prev = r;
    }
    weir__slab s;
    weir__slab_init(&s);
    for (size_t n = 1; n <= WEIR__SLAB_MAX; n += 7) {
        uint8_t *p = weir__slab_alloc(&s, n);
        cr_assert_not_null(p);
        memset(p, 0xab, weir__slab_round(n));
        weir__slab_free(&s, p, weir__slab_round(n));
    }
    weir__slab_fini(&s);
}

Test(memory, prefetch_hints_change_nothing)
{
    /* weir__state_prefetch is a hint: keys of this subtask and of others,
     * present or not, before and after writes; the state reads the same. */
    weir_manual_clock *mc = weir_manual_clock_create(0);
    weir__backend *be = mkbe("memory", 0, 64, weir_manual_clock_get(mc));
    weir_state *m = reg(be, "m", WEIR_STATE_MAP, 0, 0);
    weir_state *l = reg(be, "l", WEIR_STATE_LIST, 0, 0);
    weir_state *both[2] = {m, l};
    char k[32];
    for (int i = 0; i < 2000; i++) {
        snprintf(k, sizeof k, "key%d", i);
        uint64_t h = weir_key_hash(k, strlen(k));
        weir__state_prefetch(m, h, 0);
        weir__state_prefetch(m, h, 1);
        weir__states_prefetch(both, 2, &h, i % 2 ? &h : NULL);
        uint32_t kg = weir_key_group(h, 128);
        if (kg >= 64)
            continue; /* another subtask's key: only hinted */
        cr_assert_eq(setk(be, k), 0);
        cr_assert_eq(weir_map_put(m, NS(""), "e", 1, k, strlen(k)), 0);
        weir__state_prefetch(m, h, 0);
        weir__state_prefetch(m, h, 1);
        weir__states_prefetch(both, 2, i % 3 ? &h : NULL, &h);
    }
    int found = 0;
    for (int i = 0; i < 2000; i++) {
        snprintf(k, sizeof k, "key%d", i);
        if (weir_key_group(weir_key_hash(k, strlen(k)), 128) >= 64)
            continue;
        cr_assert_eq(setk(be, k), 0);
        const void *v;
        size_t vlen;
        cr_assert_eq(weir_map_get(m, NS(""), "e", 1, &v, &vlen), 0);
        cr_assert_eq(vlen, strlen(k));
        cr_assert_eq(memcmp(v, k, vlen), 0);
        found++;
    }
    cr_assert_gt(found, 500);
    weir__backend_destroy(be);
    weir_manual_clock_destroy(mc);
}

/* weir_map_update's fn: bytes e, e + 1, ... (e: the int at ud); the
 * entry was all zero (absent or expired). */
static int fill_24(void *ud, void *val, size_t vlen)
{
    int e = *(int *)ud;
    for (size_t i = 0; i < vlen; i++) {
        cr_assert_eq(((uint8_t *)val)[i], 0);
        ((uint8_t *)val)[i] = (uint8_t)(e + i);
    }
    return 1;
}

static int visit_none(void *ud, const uint8_t *key, size_t klen, const void *ns, size_t ns_len)
{
    (void)ud;
    (void)key;
    (void)klen;
    (void)ns;
    (void)ns_len;
    return 0;
}

Test(memory, a_borrowed_key_is_used_not_copied)
{
    /* weir__backend_use_key (the operator context's key): the backend reads
     * the caller's bytes and takes the key group it is given; a visit of
     * the keys sets keys of its own and then the borrowed key again, as its
     * own copy; a key group the backend does not own is refused. */
    weir__backend *be = mkbe("memory", 0, 64, no_clock());
    weir_state *v = reg(be, "v", WEIR_STATE_VALUE, 0, 0);
    char k[32], k2[32] = "";
    uint64_t h = 0;
    uint32_t kg = 0, other = 0;
    for (int i = 0; i < 100; i++) { /* two keys of this backend, one of another */
        snprintf(k, sizeof k, "key%d", i);
        h = weir_key_hash(k, strlen(k));
        kg = weir_key_group(h, 128);
        if (kg >= 64)
            other = kg;
        else if (!k2[0])
            memcpy(k2, k, sizeof k2);
        else if (other)
            break;
    }
    cr_assert(kg < 64 && other >= 64 && strcmp(k, k2) != 0);
    cr_assert_eq(weir__backend_use_key(be, "x", 1, 0, other), WEIR_EINVAL);
    cr_assert_eq(weir__backend_use_key(be, k, strlen(k), h, kg), 0);
    size_t len;
    uint32_t g;
    cr_assert_eq((const void *)weir__backend_key(be, &len, &g), (const void *)k);
    cr_assert(len == strlen(k) && g == kg);
    cr_assert_eq(weir_value_put(v, NS(""), "val", 3), 0);
    cr_assert_eq(setk(be, k2), 0);
    cr_assert_eq(weir_value_put(v, NS(""), "val2", 4), 0);
    cr_assert_eq(weir__backend_use_key(be, k, strlen(k), h, kg), 0);
    cr_assert_eq(weir_state_keys(v, visit_none, NULL), 0);
    const uint8_t *now = weir__backend_key(be, &len, &g);
    cr_assert((const void *)now != (const void *)k && len == strlen(k) && memcmp(now, k, len) == 0 && g == kg);
    char buf[16];
    cr_assert_str_eq(get_s(v, "", buf, sizeof buf), "val");
    weir__backend_destroy(be);
}

Test(memory, map_values_change_size_in_place_or_in_a_new_block)
{
    /*
     * A map entry's block size follows from its key and value lengths (it
     * keeps no capacity of its own): a new value of another length is
     * written in place when it needs a block of the same size, else into a
     * new block, and the old block goes back to the slab under the size it
     * was taken with. Entries of every length up to past the slab's largest
     * block, rewritten many times at random lengths (blocks freed and reused
     * by other entries), with a snapshot restored halfway and expired
     * entries rewritten by weir_map_update: every value must read back as
     * the model says.
     */
    enum { N = 64, ROUNDS = 4000, MAXV = 5000 };
    weir_manual_clock *mc = weir_manual_clock_create(0);
    weir__backend *be = mkbe("memory", 0, 128, weir_manual_clock_get(mc));
    weir_state *m = reg(be, "m", WEIR_STATE_MAP, 0, 0);
    weir_state *t = reg(be, "t", WEIR_STATE_MAP, 100, 0);
    static uint8_t val[MAXV];
    size_t len[2][N] = {{0}};
    uint8_t seed[2][N] = {{0}};
    uint64_t x = 0x9e3779b97f4a7c15u;
    cr_assert_eq(setk(be, "the-key"), 0);
    for (int round = 0; round < ROUNDS; round++) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        int w = (int)((x >> 33) % 2), e = (int)((x >> 40) % N);
        size_t l = (x >> 20) % 8 == 0 ? (x >> 8) % MAXV : (x >> 8) % 300;
        uint8_t sd = (uint8_t)(x >> 56);
        for (size_t i = 0; i < l; i++)
            val[i] = (uint8_t)(sd + i * 7);
        char k[24];
        snprintf(k, sizeof k, "entry-%d", e);
        cr_assert_eq(weir_map_put(w ? t : m, NS(""), k, strlen(k), val, l), 0);
        len[w][e] = l + 1; /* 0: never written */
        seed[w][e] = sd;
        if (round == ROUNDS / 2) {
            snapshot_restore_all(be);
            cr_assert_eq(setk(be, "the-key"), 0);
        }
    }
    for (int w = 0; w < 2; w++) {
        for (int e = 0; e < N; e++) {
            char k[24];
            snprintf(k, sizeof k, "entry-%d", e);
            const void *v;
            size_t vlen;
            int rc = weir_map_get(w ? t : m, NS(""), k, strlen(k), &v, &vlen);
            if (!len[w][e]) {
                cr_assert_eq(rc, WEIR_ENOTFOUND);
                continue;
            }
            cr_assert_eq(rc, 0, "state %d entry %d", w, e);
            cr_assert_eq(vlen, len[w][e] - 1, "state %d entry %d", w, e);
            for (size_t i = 0; i < vlen; i++)
                cr_assert_eq(((const uint8_t *)v)[i], (uint8_t)(seed[w][e] + i * 7),
                             "state %d entry %d byte %zu", w, e, i);
        }
    }
    /* The TTL map's entries expire; weir_map_update then writes each anew at
     * a fixed length, in the expired entry's block when it is the size. */
    weir_manual_clock_set(mc, 1000);
    for (int e = 0; e < N; e++) {
        char k[24];
        snprintf(k, sizeof k, "entry-%d", e);
        cr_assert_eq(weir_map_update(t, NS(""), k, strlen(k), 24, fill_24, &e), 0);
    }
    for (int e = 0; e < N; e++) {
        char k[24];
        snprintf(k, sizeof k, "entry-%d", e);
        const void *v;
        size_t vlen;
        cr_assert_eq(weir_map_get(t, NS(""), k, strlen(k), &v, &vlen), 0);
        cr_assert_eq(vlen, 24);
        for (size_t i = 0; i < 24; i++)
            cr_assert_eq(((const uint8_t *)v)[i], (uint8_t)(e + i));
    }
    weir__backend_destroy(be);
    weir_manual_clock_destroy(mc);
}

/* ---- records with lengths at the edges of the narrow header ---- */

#define RL_N 6
#define RL_VMAX 9000
static const size_t rl_klens[RL_N] = {1, 9, 254, 255, 256, 700};
static const size_t rl_nslens[RL_N] = {0, 1, 254, 255, 256, 700};
static const size_t rl_vlens[] = {0, 5, 4070, 4100, RL_VMAX};
#define RL_NV (sizeof rl_vlens / sizeof rl_vlens[0])

/* Key (or namespace) of n bytes, all c: the shorter ones are prefixes of the
 * longer, so a length read one off finds another record's bytes. */
static void rl_fill(uint8_t *p, size_t n, uint8_t c)
{
    memset(p, c, n);
}

static void rl_setk(weir__backend *be, int ki)
{
    static uint8_t k[700];
    rl_fill(k, rl_klens[ki], 'k');
    cr_assert_eq(weir__backend_set_key(be, k, rl_klens[ki], weir_key_hash(k, rl_klens[ki])), 0);
}

/* The value written last at (key ki, namespace ni): its length and bytes. */
static size_t rl_value(int ki, int ni, uint8_t *out)
{
    size_t len = rl_vlens[(size_t)(ki + ni + 1) % RL_NV];
    for (size_t i = 0; i < len; i++)
        out[i] = (uint8_t)(ki * 31 + ni * 7 + i);
    return len;
}

static void rl_write(weir__backend *be, weir_state **sts)
{
    static uint8_t ns[700], v[RL_VMAX];
    for (int ki = 0; ki < RL_N; ki++) {
        rl_setk(be, ki);
        for (int ni = 0; ni < RL_N; ni++) {
            size_t nl = rl_nslens[ni];
            rl_fill(ns, nl, 'n');
            /* A first value of another length: the second one moves the
             * record (narrow to wide, or back) or is written in place. */
            size_t first = rl_vlens[(size_t)(ki + ni) % RL_NV];
            memset(v, 'x', first);
            cr_assert_eq(weir_value_put(sts[0], ns, nl, v, first), 0);
            size_t len = rl_value(ki, ni, v);
            cr_assert_eq(weir_value_put(sts[0], ns, nl, v, len), 0);
            /* Logs and TTL lists grow past the slab's largest block (a TTL
             * list's then grows where it lies). */
            for (int e = 0; e < 5; e++) {
                cr_assert_eq(weir_list_add(sts[1], ns, nl, v, len), 0);
                cr_assert_eq(weir_list_add(sts[2], ns, nl, v, len), 0);
            }
            cr_assert_eq(weir_map_put(sts[3], ns, nl, ns, nl, v, len), 0);
        }
    }
}

/* A list's elements, each expected equal to want. */
typedef struct rl_elems {
    const uint8_t *want;
    size_t len;
    int n;
} rl_elems;

static int rl_elem_visit(void *ud, const void *v, size_t len)
{
    rl_elems *el = ud;
    cr_assert_eq(len, el->len);
    cr_assert_eq(memcmp(v, el->want, len), 0);
    el->n++;
    return 0;
}

static void rl_check(weir__backend *be, weir_state **sts)
{
    static uint8_t ns[700], want[RL_VMAX];
    for (int ki = 0; ki < RL_N; ki++) {
        rl_setk(be, ki);
        for (int ni = 0; ni < RL_N; ni++) {
            size_t nl = rl_nslens[ni];
            rl_fill(ns, nl, 'n');
            size_t len = rl_value(ki, ni, want);
            const void *v;
            size_t vl;
            cr_assert_eq(weir_value_get(sts[0], ns, nl, &v, &vl), 0, "key %d ns %d", ki, ni);
            cr_assert_eq(vl, len, "key %d ns %d", ki, ni);
            cr_assert_eq(memcmp(v, want, len), 0, "key %d ns %d", ki, ni);
            cr_assert_eq(weir_map_get(sts[3], ns, nl, ns, nl, &v, &vl), 0, "key %d ns %d", ki, ni);
            cr_assert_eq(vl, len);
            cr_assert_eq(memcmp(v, want, len), 0);
            for (int l = 1; l <= 2; l++) {
                rl_elems el = {want, len, 0};
                cr_assert_eq(weir_list_get(sts[l], ns, nl, rl_elem_visit, &el), 0);
                cr_assert_eq(el.n, 5, "list %d key %d ns %d", l, ki, ni);
            }
        }
    }
}

/*
 * Keys and namespaces of up to 254 bytes and blocks of up to the slab's
 * largest are held in a record's narrow header, longer ones in its wide
 * lengths: each is found again, read whole, listed, copied by an open
 * snapshot, and restored equal, on both sides of each limit.
 */
Test(memory, record_lengths_narrow_and_wide)
{
    weir_manual_clock *mc = weir_manual_clock_create(0);
    weir__backend *be = mkbe("memory", 0, 128, weir_manual_clock_get(mc));
    weir_state *sts[4] = {reg(be, "v", WEIR_STATE_VALUE, 0, 0), reg(be, "log", WEIR_STATE_LIST, 0, 0),
                          reg(be, "ttl", WEIR_STATE_LIST, 1000000, 0), reg(be, "m", WEIR_STATE_MAP, 0, 0)};
    rl_write(be, sts);
    rl_check(be, sts);
    char *before = dump(sts, 4);
    size_t lines = 0;
    for (const char *p = before; *p; p++)
        lines += *p == '\n';
    cr_assert_eq(lines, 4 * RL_N * RL_N);

    /* An open snapshot: writing each key copies its records (rec_clone). */
    weir__backend_snap *snap;
    cr_assert_eq(weir__backend_snapshot_begin(be, &snap), 0);
    rl_write(be, sts);
    weir_buf b;
    weir_buf_init(&b);
    weir__backend *to = mkbe("memory", 0, 128, weir_manual_clock_get(mc));
    weir_state *tsts[4] = {reg(to, "v", WEIR_STATE_VALUE, 0, 0), reg(to, "log", WEIR_STATE_LIST, 0, 0),
                           reg(to, "ttl", WEIR_STATE_LIST, 1000000, 0), reg(to, "m", WEIR_STATE_MAP, 0, 0)};
    for (uint32_t kg = 0; kg < 128; kg++) {
        weir_buf_clear(&b);
        cr_assert_eq(weir__backend_snap_kg(snap, kg, &b), 0);
        weir_cursor c;
        weir_cursor_init(&c, b.data, b.len);
        cr_assert_eq(weir__backend_restore_kg(to, kg, &c), 0);
    }
    weir__backend_snap_release(snap);
    weir_buf_fini(&b);
    rl_check(to, tsts);
    char *restored = dump(tsts, 4);
    cr_assert_str_eq(restored, before);

    snapshot_restore_all(be);
    char *after = dump(sts, 4);
    cr_assert_gt(strlen(after), strlen(before)); /* the second write doubled the lists */
    weir_free(before);
    weir_free(restored);
    weir_free(after);
    weir__backend_destroy(to);
    weir__backend_destroy(be);
    weir_manual_clock_destroy(mc);
}

/* ---- table slots: tags that collide, tables past the tag's reach ---- */

/* The slot hash of a key with the empty namespace, as the memory backend
 * computes it (its 64-bit finalizer over weir_key_hash): the tests pick
 * keys by their home slot and tag (the hash's low bits). */
static uint64_t slot_hash_of(const char *k)
{
    uint64_t x = weir_key_hash(k, strlen(k));
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

#define TC_N 600 /* keys of one home, tags of 9 free bits: hundreds collide */

static void tc_key(char *k, size_t cap, int i, const uint32_t *ids)
{
    snprintf(k, cap, "t%u", ids[i]);
}

/* Key i holds its value (i and the round it was written in) or, if
 * removed, nothing; and the state lists each live key once (a slot whose
 * tag was lost would hide its record from the next write's probe, which
 * then stores the key twice). */
static void tc_check(weir__backend *be, weir_state *st, const uint32_t *ids, const bool *gone, int round)
{
    char *keys = dump(&st, 1);
    int lines = 0, live = 0;
    for (const char *p = keys; *p; p++)
        lines += *p == '\n';
    for (int i = 0; i < TC_N; i++)
        live += !gone[i];
    cr_assert_eq(lines, live);
    weir_free(keys);
    for (int i = 0; i < TC_N; i++) {
        char k[24];
        tc_key(k, sizeof k, i, ids);
        cr_assert_eq(setk(be, k), 0);
        const void *v;
        size_t len;
        int rc = weir_value_get(st, NS(""), &v, &len);
        if (gone[i]) {
            cr_assert_eq(rc, WEIR_ENOTFOUND, "key %d", i);
            continue;
        }
        cr_assert_eq(rc, 0, "key %d", i);
        int64_t want[2] = {i, round};
        cr_assert_eq(len, sizeof want);
        cr_assert_eq(memcmp(v, want, sizeof want), 0, "key %d", i);
    }
}

static void tc_put(weir__backend *be, weir_state *st, const uint32_t *ids, int i, int round)
{
    char k[24];
    tc_key(k, sizeof k, i, ids);
    cr_assert_eq(setk(be, k), 0);
    int64_t v[2] = {i, round};
    cr_assert_eq(weir_value_put(st, NS(""), v, sizeof v), 0);
}

/*
 * Hundreds of keys of one home slot (in tables of up to 1024 slots) in one
 * key group's table, many pairs with equal tags: the probe run is hundreds
 * of slots long, a tag match must still compare the key, deletions shift
 * back entries whose tags equal their neighbours', the table grows under an
 * open snapshot (whose copy keeps each slot's tag), and what the snapshot
 * holds restores equal to the state when it began.
 */
Test(memory, slots_with_colliding_tags_and_one_home)
{
    static uint32_t ids[TC_N];
    static bool gone[TC_N];
    int n = 0;
    for (uint32_t u = 0; n < TC_N; u++) {
        char k[24];
        snprintf(k, sizeof k, "t%u", u);
        if ((slot_hash_of(k) & 0x3ff) == 0x155)
            ids[n++] = u;
    }
    be_opts o = {.lo = 0, .hi = 1, .maxp = 1, .clock = no_clock()};
    weir__backend *be = mkbe_opts("memory", &o);
    weir_state *st = reg(be, "v", WEIR_STATE_VALUE, 0, 0);
    for (int i = 0; i < TC_N / 2; i++)
        tc_put(be, st, ids, i, 0);
    char *at_begin = dump(&st, 1);
    weir__backend_snap *snap;
    cr_assert_eq(weir__backend_snapshot_begin(be, &snap), 0);
    for (int i = 0; i < TC_N; i++)
        tc_put(be, st, ids, i, 1);
    tc_check(be, st, ids, gone, 1);
    for (int i = 0; i < TC_N; i += 3) {
        char k[24];
        tc_key(k, sizeof k, i, ids);
        cr_assert_eq(setk(be, k), 0);
        cr_assert_eq(weir_state_clear(st, NS("")), 0);
        gone[i] = true;
    }
    tc_check(be, st, ids, gone, 1);

    weir_buf b;
    weir_buf_init(&b);
    cr_assert_eq(weir__backend_snap_kg(snap, 0, &b), 0);
    weir__backend_snap_release(snap);
    weir__backend *to = mkbe_opts("memory", &o);
    weir_state *tst = reg(to, "v", WEIR_STATE_VALUE, 0, 0);
    weir_cursor c;
    weir_cursor_init(&c, b.data, b.len);
    cr_assert_eq(weir__backend_restore_kg(to, 0, &c), 0);
    char *restored = dump(&tst, 1);
    cr_assert_str_eq(restored, at_begin);

    /* Removed keys written again land in the shifted runs. */
    for (int i = 0; i < TC_N; i += 3) {
        tc_put(be, st, ids, i, 1);
        gone[i] = false;
    }
    tc_check(be, st, ids, gone, 1);
    weir_free(at_begin);
    weir_free(restored);
    weir_buf_fini(&b);
    weir__backend_destroy(to);
    weir__backend_destroy(be);
}

#define BT_N 400000 /* past 3/4 of 2^19 slots: the table doubles to 2^20 */

/*
 * A table of more slots than a tag reaches finds each entry's home from its
 * key when it grows and when a deletion shifts a run back: a key group's
 * records, and a map's entries.
 */
Test(memory, tables_larger_than_a_tag_reaches)
{
    be_opts o = {.lo = 0, .hi = 1, .maxp = 1, .clock = no_clock()};
    weir__backend *be = mkbe_opts("memory", &o);
    weir_state *v = reg(be, "v", WEIR_STATE_VALUE, 0, 0);
    weir_state *m = reg(be, "m", WEIR_STATE_MAP, 0, 0);
    char k[24];
    for (int i = 0; i < BT_N; i++) {
        snprintf(k, sizeof k, "b%d", i);
        cr_assert_eq(setk(be, k), 0);
        cr_assert_eq(weir_value_put(v, NS(""), &i, sizeof i), 0);
        cr_assert_eq(setk(be, "map"), 0);
        cr_assert_eq(weir_map_put(m, NS(""), k, strlen(k), &i, sizeof i), 0);
    }
    for (int i = 0; i < BT_N; i += 2) {
        snprintf(k, sizeof k, "b%d", i);
        cr_assert_eq(setk(be, k), 0);
        cr_assert_eq(weir_state_clear(v, NS("")), 0);
        cr_assert_eq(setk(be, "map"), 0);
        cr_assert_eq(weir_map_remove(m, NS(""), k, strlen(k)), 0);
    }
    for (int i = 0; i < BT_N; i++) {
        snprintf(k, sizeof k, "b%d", i);
        const void *p;
        size_t len;
        int want = i % 2 ? 0 : WEIR_ENOTFOUND;
        cr_assert_eq(setk(be, k), 0);
        cr_assert_eq(weir_value_get(v, NS(""), &p, &len), want, "key %d", i);
        if (!want)
            cr_assert_eq(memcmp(p, &i, sizeof i), 0);
        cr_assert_eq(setk(be, "map"), 0);
        cr_assert_eq(weir_map_get(m, NS(""), k, strlen(k), &p, &len), want, "entry %d", i);
        if (!want)
            cr_assert_eq(memcmp(p, &i, sizeof i), 0);
    }
    weir__backend_destroy(be);
}
