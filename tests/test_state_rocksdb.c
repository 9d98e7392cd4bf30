/*
 * tests/test_state_rocksdb.c - keyed state on the RocksDB backend: the
 * shared cases of test_state_cases.h, snapshots across backends (memory <->
 * RocksDB), state many times larger than the block cache and write buffer,
 * TTL cleanup by compaction, and native (hard-linked) checkpoints.
 */
#include "test_state_cases.h"

#ifdef WEIR_HAVE_ROCKSDB

#include <dirent.h>
#include <sys/stat.h>

#include "state/rocksdb_backend.h"

STATE_CASES(rocksdb, "rocksdb")

Test(rocksdb, restore_memory_snapshot)
{
    roundtrip_into("memory", "rocksdb");
}
Test(rocksdb, restore_into_memory)
{
    roundtrip_into("rocksdb", "memory");
}

Test(rocksdb, rescale_across_backends)
{
    /* Memory with parallelism 1 -> RocksDB with parallelism 2 -> memory with
     * parallelism 1. */
    weir__backend *a = mkbe("memory", 0, 128, no_clock());
    weir_state *sa[4];
    reg_all_kinds(a, sa);
    fill_all_kinds(a, sa, 300);
    weir__backend *r0 = mkbe("rocksdb", 0, 64, no_clock());
    weir__backend *r1 = mkbe("rocksdb", 64, 128, no_clock());
    move_kgs(a, 0, 128, r0, 0, 64);
    move_kgs(a, 0, 128, r1, 64, 128);
    weir__backend *m = mkbe("memory", 0, 128, no_clock());
    move_kgs(r0, 0, 64, m, 0, 128);
    move_kgs(r1, 64, 128, m, 0, 128);
    weir_state *sm[4];
    reg_all_kinds(m, sm);
    char *da = dump(sa, 4), *dm = dump(sm, 4);
    cr_assert_str_eq(da, dm);
    weir_free(da);
    weir_free(dm);
    weir__backend_destroy(a);
    weir__backend_destroy(r0);
    weir__backend_destroy(r1);
    weir__backend_destroy(m);
}

/* 120 printable characters that do not compress, derived from i. */
static void random_value(char *out, int i)
{
    uint64_t s = (uint64_t)i * 0x9E3779B97F4A7C15ULL + 1;
    for (int j = 0; j < 120; j++)
        out[j] = (char)('!' + (int)(rnd_next(&s) % 90));
    out[120] = '\0';
}

Test(rocksdb, state_larger_than_cache_and_write_buffer)
{
    /* 32 KiB of block cache and 64 KiB of write buffer against ~700 KiB of
     * state. */
    be_opts o = {
        .lo = 0, .hi = 128, .cache_bytes = 32 << 10, .wbuf_bytes = 64 << 10};
    weir__backend *be = mkbe_opts("rocksdb", &o);
    weir_state *v = reg(be, "v", WEIR_STATE_VALUE, 0, 0);
    weir_state *l = reg(be, "l", WEIR_STATE_LIST, 0, 0);
    weir_state *sum = reg_sum(be, "sum", 0);
    enum { N = 4000 };
    char k[32], val[160];
    for (int i = 0; i < N; i++) {
        snprintf(k, sizeof k, "key%d", i);
        cr_assert_eq(setk(be, k), 0);
        random_value(val, i);
        put_s(v, "", val);
        cr_assert_eq(weir_list_add(l, NS(""), val, 20), 0);
        add64(sum, "", i);
    }
    for (int i = 0; i < N; i += 2) {
        snprintf(k, sizeof k, "key%d", i);
        cr_assert_eq(setk(be, k), 0);
        random_value(val, i);
        cr_assert_eq(weir_list_add(l, NS(""), val, 20), 0);
        add64(sum, "", 1);
    }
    uint64_t size = weir__backend_size_bytes(be);
    cr_assert_gt(size, 16 * (32 << 10),
                 "state %llu bytes is not much larger than the cache",
                 (unsigned long long)size);
    char buf[200];
    for (int i = N - 1; i >= 0; i--) {
        snprintf(k, sizeof k, "key%d", i);
        cr_assert_eq(setk(be, k), 0);
        random_value(val, i);
        cr_assert_str_eq(get_s(v, "", buf, sizeof buf), val);
        cr_assert_eq(sum_of(sum, ""), i + (i % 2 == 0));
        char *s = list_s(l, "");
        cr_assert_eq(strlen(s), i % 2 == 0 ? 41u : 20u);
        weir_free(s);
    }
    weir__backend_destroy(be);
}

Test(rocksdb, ttl_compaction_drops_expired)
{
    weir_manual_clock *mc = weir_manual_clock_create(0);
    weir__backend *be = mkbe("rocksdb", 0, 128, weir_manual_clock_get(mc));
    weir_state *v =
        reg(be, "v", WEIR_STATE_VALUE, 10, WEIR_TTL_ON_CREATE_AND_WRITE);
    weir_state *l =
        reg(be, "l", WEIR_STATE_LIST, 10, WEIR_TTL_ON_CREATE_AND_WRITE);
    weir_state *m =
        reg(be, "m", WEIR_STATE_MAP, 10, WEIR_TTL_ON_CREATE_AND_WRITE);
    weir_state *keep = reg(be, "keep", WEIR_STATE_VALUE, 0, 0);
    char k[32];
    for (int i = 0; i < 2000; i++) {
        snprintf(k, sizeof k, "key%d", i);
        cr_assert_eq(setk(be, k), 0);
        put_s(v, "", "x");
        cr_assert_eq(weir_list_add(l, NS(""), "e", 1), 0);
        cr_assert_eq(weir_map_put(m, NS(""), "a", 1, "1", 1), 0);
        put_s(keep, "", "y");
    }
    uint64_t before = 0, after = 0, n;
    for (uint32_t kg = 0; kg < 128; kg++) {
        cr_assert_eq(weir__rocksdb_count_kg(be, kg, &n), 0);
        before += n;
    }
    cr_assert_eq(before, 8000);
    /*
     * Nothing is read again: only compaction can remove them. The first pass
     * drops expired values and map entries and empties the lists (their
     * appends are merge operands, merged without the expired elements); the
     * next compaction of those files drops the emptied lists.
     */
    weir_manual_clock_set(mc, 100);
    cr_assert_eq(weir__rocksdb_compact(be), 0);
    for (uint32_t kg = 0; kg < 128; kg++) {
        cr_assert_eq(weir__rocksdb_count_kg(be, kg, &n), 0);
        after += n;
    }
    cr_assert_leq(after, 4000, "left %llu records", (unsigned long long)after);
    cr_assert_eq(weir__rocksdb_compact(be), 0);
    after = 0;
    for (uint32_t kg = 0; kg < 128; kg++) {
        cr_assert_eq(weir__rocksdb_count_kg(be, kg, &n), 0);
        after += n;
    }
    cr_assert_eq(after, 2000, "left %llu records", (unsigned long long)after);
    cr_assert_eq(setk(be, "key7"), 0);
    char buf[8];
    cr_assert_str_eq(get_s(keep, "", buf, sizeof buf), "y");
    weir__backend_destroy(be);
    weir_manual_clock_destroy(mc);
}

static int inode_of(const char *dir, const char *name, ino_t *ino)
{
    char p[600];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    struct stat sb;
    if (stat(p, &sb) != 0)
        return -1;
    *ino = sb.st_ino;
    return 0;
}

Test(rocksdb, native_checkpoint_restore_and_rescale)
{
    weir__backend *a = mkbe("rocksdb", 0, 128, no_clock());
    weir_state *sa[4];
    reg_all_kinds(a, sa);
    fill_all_kinds(a, sa, 300);
    char *at_ckpt = dump(sa, 4);
    char ck1[300], ck2[300];
    snprintf(ck1, sizeof ck1, "%s/ck1", tmp_dir());
    cr_assert_eq(weir__rocksdb_checkpoint(a, ck1), 0, "%s",
                 weir__rocksdb_last_error(a));
    /* Changes after the checkpoint are not in it. */
    cr_assert_eq(setk(a, "key1"), 0);
    put_s(sa[0], "", "changed");
    snprintf(ck2, sizeof ck2, "%s/ck2", tmp_dir());
    cr_assert_eq(weir__rocksdb_checkpoint(a, ck2), 0);
    /* Incremental: the second checkpoint shares the SST files of the first. */
    DIR *d = opendir(ck1);
    cr_assert_not_null(d);
    int shared = 0, ssts = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 4 || strcmp(e->d_name + n - 4, ".sst") != 0)
            continue;
        ssts++;
        ino_t i1, i2;
        if (inode_of(ck1, e->d_name, &i1) == 0 &&
            inode_of(ck2, e->d_name, &i2) == 0 && i1 == i2)
            shared++;
    }
    closedir(d);
    cr_assert_gt(ssts, 0);
    cr_assert_eq(shared, ssts);

    /* The whole checkpoint into one backend: states come back by name. */
    weir__backend_config cfg = {
        .kind = "rocksdb", .max_parallelism = 128, .kg_lo = 0, .kg_hi = 128};
    char dir[300];
    snprintf(dir, sizeof dir, "%s/db", tmp_dir());
    cfg.dir = dir;
    weir__backend *b = NULL;
    cr_assert_eq(weir__rocksdb_open_checkpoint(&cfg, ck1, &b), 0);
    weir_state *sb[4];
    reg_all_kinds(b, sb);
    char *db = dump(sb, 4);
    cr_assert_str_eq(at_ckpt, db);
    weir_free(db);

    /* Rescaled: a backend of key groups [0, 64) keeps only those. */
    cfg.kg_hi = 64;
    snprintf(dir, sizeof dir, "%s/db", tmp_dir());
    weir__backend *h = NULL;
    cr_assert_eq(weir__rocksdb_open_checkpoint(&cfg, ck2, &h), 0);
    weir_state *sh[4];
    reg_all_kinds(h, sh);
    uint64_t n;
    cr_assert_eq(weir__rocksdb_count_kg(h, 100, &n), 0);
    cr_assert_eq(n, 0);
    char k[32], buf[64];
    int seen = 0;
    for (int i = 0; i < 300; i++) {
        snprintf(k, sizeof k, "key%d", i);
        if (kg_of(k) >= 64)
            continue;
        cr_assert_eq(setk(h, k), 0);
        const char *got = get_s(sh[0], "", buf, sizeof buf);
        cr_assert_not_null(got);
        if (i == 1)
            cr_assert_str_eq(got, "changed");
        seen++;
    }
    cr_assert_gt(seen, 50);
    /* A different max parallelism cannot use it; a memory backend has no native
     * checkpoint. */
    cfg.max_parallelism = 256;
    cfg.kg_hi = 256;
    snprintf(dir, sizeof dir, "%s/db", tmp_dir());
    weir__backend *bad = NULL;
    cr_assert_eq(weir__rocksdb_open_checkpoint(&cfg, ck2, &bad), WEIR_EINVAL);
    cr_assert_null(bad);
    weir__backend *mem = mkbe("memory", 0, 128, no_clock());
    cr_assert_eq(weir__rocksdb_checkpoint(mem, "/tmp/never"),
                 WEIR_EUNSUPPORTED);
    weir_free(at_ckpt);
    weir__backend_destroy(mem);
    weir__backend_destroy(a);
    weir__backend_destroy(b);
    weir__backend_destroy(h);
}

/* ---- restores: the bulk path (sorted SST files, ingested) ---- */

/* Five states, one of every kind, as reg_all_kinds plus an aggregating one. */
static void reg_five(weir__backend *be, weir_state **sts)
{
    reg_all_kinds(be, sts);
    sts[4] = reg_avg(be, "avg");
}

static void fill_five(weir__backend *be, weir_state **sts, int n)
{
    fill_all_kinds(be, sts, n);
    char k[32];
    for (int i = 0; i < n; i++) {
        snprintf(k, sizeof k, "key%d", i);
        if (setk(be, k) != 0)
            continue;
        int64_t x = i, y = 2 * i;
        cr_assert_eq(weir_state_add(sts[4], NS("w"), &x, 8), 0);
        cr_assert_eq(weir_state_add(sts[4], NS("w"), &y, 8), 0);
    }
}

static weir__rocksdb_stats rstats(weir__backend *be)
{
    weir__rocksdb_stats s;
    cr_assert_eq(weir__rocksdb_get_stats(be, &s), 0);
    return s;
}

/* Every key group of the memory backend `a`, restored into a fresh memory
 * backend and a fresh RocksDB one, reads back the same. */
/*
 * A native checkpoint of states without TTL opened into states with TTL:
 * as a canonical restore (ttl_starts_at_restore), each entry lives a TTL
 * from the restore. Its values carry no stamp (written without TTL), and
 * they must not live for ever, nor outlive the TTL in a compaction.
 */
Test(rocksdb, native_checkpoint_without_ttl_restored_with_ttl)
{
    weir_manual_clock *mc = weir_manual_clock_create(0);
    weir_clock clk = weir_manual_clock_get(mc);
    weir__backend *a = mkbe("rocksdb", 0, 128, clk);
    weir_state *sa[3], *sb[3], *sb2[3], *sr[3];
    reg_vlm(a, 0, sa);
    put_plain_entries(a, sa);
    char ck[300], ck2[300], dir[300];
    snprintf(ck, sizeof ck, "%s/ck", tmp_dir());
    cr_assert_eq(weir__rocksdb_checkpoint(a, ck), 0, "%s",
                 weir__rocksdb_last_error(a));
    weir_manual_clock_set(mc, 10000);
    weir__backend_config cfg = {.kind = "rocksdb",
                                .max_parallelism = 128,
                                .kg_lo = 0,
                                .kg_hi = 128,
                                .clock = clk};
    snprintf(dir, sizeof dir, "%s/db", tmp_dir());
    cfg.dir = dir;
    weir__backend *b = NULL;
    cr_assert_eq(weir__rocksdb_open_checkpoint(&cfg, ck, &b), 0);
    reg_vlm(b, 100, sb);
    cr_assert_eq(setk(b, "key1"), 0);
    /* A native checkpoint of it restored later counts from the first
     * restore still, not from its own. */
    weir_manual_clock_set(mc, 10050);
    snprintf(ck2, sizeof ck2, "%s/ck2", tmp_dir());
    cr_assert_eq(weir__rocksdb_checkpoint(b, ck2), 0, "%s",
                 weir__rocksdb_last_error(b));
    weir_manual_clock_set(mc, 10060);
    snprintf(dir, sizeof dir, "%s/db", tmp_dir());
    weir__backend *b2 = NULL;
    cr_assert_eq(weir__rocksdb_open_checkpoint(&cfg, ck2, &b2), 0);
    reg_vlm(b2, 100, sb2);
    cr_assert_eq(setk(b2, "key1"), 0);
    weir_manual_clock_set(mc, 10099);
    expect_plain_entries(sb2, true);
    expect_plain_entries(sb, true);
    /* Its canonical snapshot holds them with the restore's stamp. */
    uint32_t kg = kg_of("key1");
    weir_buf snap;
    weir_buf_init(&snap);
    cr_assert_eq(weir__backend_snapshot_kg(b, kg, &snap), 0);
    weir_manual_clock_set(mc, 10100);
    expect_plain_entries(sb2, false);
    expect_plain_entries(sb, false);
    weir__backend *r = restored_vlm("memory", clk, &snap, kg, 100, sr);
    expect_plain_entries(sr, false);
    /* Compactions drop them (values and map entries, then the emptied
     * list). */
    cr_assert_eq(weir__rocksdb_compact(b), 0);
    cr_assert_eq(weir__rocksdb_compact(b), 0);
    uint64_t n;
    cr_assert_eq(weir__rocksdb_count_kg(b, kg, &n), 0);
    cr_assert_eq(n, 0, "%llu records outlived their TTL",
                 (unsigned long long)n);
    weir_buf_fini(&snap);
    weir__backend_destroy(a);
    weir__backend_destroy(b);
    weir__backend_destroy(b2);
    weir__backend_destroy(r);
    weir_manual_clock_destroy(mc);
}

/* The database of a native restore of ck owning key groups [lo, hi), its
 * time the clock's now. */
static weir__backend *opened_range(weir_clock clk, const char *ck,
                                   const char *name, uint32_t lo, uint32_t hi)
{
    weir__backend_config cfg = {.kind = "rocksdb",
                                .max_parallelism = 128,
                                .kg_lo = lo,
                                .kg_hi = hi,
                                .clock = clk};
    char dir[300];
    snprintf(dir, sizeof dir, "%s/%s", tmp_dir(), name);
    cfg.dir = dir;
    weir__backend *be = NULL;
    cr_assert_eq(weir__rocksdb_open_checkpoint(&cfg, ck, &be), 0);
    return be;
}

/* The database of a native restore of ck, every key group. */
static weir__backend *opened(weir_clock clk, const char *ck, const char *name)
{
    return opened_range(clk, ck, name, 0, 128);
}

/* opened, its value, list and map states registered with ttl_ms, key1
 * current. */
static weir__backend *opened_vlm(weir_clock clk, const char *ck,
                                 const char *name, int64_t ttl_ms,
                                 weir_state *s[3])
{
    weir__backend *be = opened(clk, ck, name);
    reg_vlm(be, ttl_ms, s);
    cr_assert_eq(setk(be, "key1"), 0);
    return be;
}

static void checkpoint(weir__backend *be, char *ck, size_t cap,
                       const char *name)
{
    snprintf(ck, cap, "%s/%s", tmp_dir(), name);
    cr_assert_eq(weir__rocksdb_checkpoint(be, ck), 0, "%s",
                 weir__rocksdb_last_error(be));
}

/* A native checkpoint at 0 of the plain entries, written without TTL,
 * restored natively with TTL 100 at 10000 into b. */
static weir__backend *restored_at_10000(weir_manual_clock *mc,
                                        weir__backend **a, weir_state *sb[3])
{
    weir_clock clk = weir_manual_clock_get(mc);
    weir_state *sa[3];
    *a = mkbe("rocksdb", 0, 128, clk);
    reg_vlm(*a, 0, sa);
    put_plain_entries(*a, sa);
    char ck[300];
    checkpoint(*a, ck, sizeof ck, "ck");
    weir_manual_clock_set(mc, 10000);
    return opened_vlm(clk, ck, "db", 100, sb);
}

/* The asynchronous snapshot of kg (savepoints, canonical checkpoints),
 * which must equal the synchronous one. */
static void async_snapshot(weir__backend *be, uint32_t kg, weir_buf *out)
{
    weir_buf sync;
    weir_buf_init(&sync);
    cr_assert_eq(weir__backend_snapshot_kg(be, kg, &sync), 0);
    weir__backend_snap *s = NULL;
    cr_assert_eq(weir__backend_snapshot_begin(be, &s), 0);
    cr_assert_eq(weir__backend_snap_kg(s, kg, out), 0);
    weir__backend_snap_release(s);
    cr_assert(sync.len == out->len &&
                  memcmp(sync.data, out->data, sync.len) == 0,
              "the asynchronous snapshot differs from the synchronous one");
    weir_buf_fini(&sync);
}

/* Values a native restore brought into a state with TTL keep the restore's
 * time in an asynchronous snapshot: restored, they expire with it; once
 * expired, no compaction dropping them yet, they are left out. */
Test(rocksdb, async_snapshot_keeps_native_restore_time)
{
    weir_manual_clock *mc = weir_manual_clock_create(0);
    weir_clock clk = weir_manual_clock_get(mc);
    weir__backend *a;
    weir_state *sb[3], *sr[3], *sx[3];
    weir__backend *b = restored_at_10000(mc, &a, sb);
    uint32_t kg = kg_of("key1");
    weir_buf snap, late;
    weir_buf_init(&snap);
    weir_buf_init(&late);
    weir_manual_clock_set(mc, 10050);
    async_snapshot(b, kg, &snap);
    weir_manual_clock_set(mc, 10150);
    async_snapshot(b, kg, &late);
    weir_manual_clock_set(mc, 10060);
    weir__backend *r = restored_vlm("rocksdb", clk, &snap, kg, 100, sr);
    weir_manual_clock_set(mc, 10099);
    expect_plain_entries(sr, true);
    weir_manual_clock_set(mc, 10100);
    expect_plain_entries(sb, false);
    expect_plain_entries(sr, false);
    /* Stamped 10000, they were in snap; never in late. */
    weir_manual_clock_set(mc, 10060);
    weir__backend *x = restored_vlm("rocksdb", clk, &late, kg, 100, sx);
    expect_plain_entries(sx, false);
    weir_buf_fini(&snap);
    weir_buf_fini(&late);
    weir__backend_destroy(a);
    weir__backend_destroy(b);
    weir__backend_destroy(r);
    weir__backend_destroy(x);
    weir_manual_clock_destroy(mc);
}

/* A rescale reads the parts of a native checkpoint it does not open
 * natively through a backend no operator binds: the restore time the
 * checkpoint names travels into the rescaled restore. */
Test(rocksdb, rescaled_native_part_keeps_restore_time)
{
    weir_manual_clock *mc = weir_manual_clock_create(0);
    weir_clock clk = weir_manual_clock_get(mc);
    weir__backend *a;
    weir_state *sb[3], *sr[3];
    weir__backend *b = restored_at_10000(mc, &a, sb);
    weir_manual_clock_set(mc, 10050);
    char ck2[300];
    checkpoint(b, ck2, sizeof ck2, "ck2");
    weir_manual_clock_set(mc, 10060);
    weir__backend *part = opened(no_clock(), ck2, "part");
    uint32_t kg = kg_of("key1");
    weir_buf snap;
    weir_buf_init(&snap);
    cr_assert_eq(weir__backend_snapshot_kg(part, kg, &snap), 0);
    weir__backend *r = restored_vlm("rocksdb", clk, &snap, kg, 100, sr);
    weir_manual_clock_set(mc, 10100);
    expect_plain_entries(sb, false);
    expect_plain_entries(sr, false);
    weir_buf_fini(&snap);
    weir__backend_destroy(a);
    weir__backend_destroy(b);
    weir__backend_destroy(part);
    weir__backend_destroy(r);
    weir_manual_clock_destroy(mc);
}

/* Entries stamped under a TTL, checkpointed natively by a run without TTL,
 * count from the restore with TTL, natively as canonically (a run without
 * TTL leaves stamps stale). */
Test(rocksdb, native_stamps_of_a_run_without_ttl_count_from_restore)
{
    weir_manual_clock *mc = weir_manual_clock_create(0);
    weir_clock clk = weir_manual_clock_get(mc);
    weir__backend *a = mkbe("rocksdb", 0, 128, clk);
    weir_state *sa[3], *sb[3], *sc[3], *sr[3];
    reg_vlm(a, 100, sa);
    put_plain_entries(a, sa);
    char ck[300], ck2[300];
    checkpoint(a, ck, sizeof ck, "ck");
    weir_manual_clock_set(mc, 50);
    weir__backend *b = opened_vlm(clk, ck, "db", 0, sb);
    expect_plain_entries(sb, true);
    uint32_t kg = kg_of("key1");
    weir_buf snap;
    weir_buf_init(&snap);
    cr_assert_eq(weir__backend_snapshot_kg(b, kg, &snap), 0);
    checkpoint(b, ck2, sizeof ck2, "ck2");
    weir_manual_clock_set(mc, 5000);
    weir__backend *c = opened_vlm(clk, ck2, "db2", 100, sc);
    weir__backend *r = restored_vlm("rocksdb", clk, &snap, kg, 100, sr);
    weir_manual_clock_set(mc, 5050);
    expect_plain_entries(sr, true);
    expect_plain_entries(sc, true);
    /* Written since, they count from their writes. */
    weir_manual_clock_set(mc, 5060);
    put_plain_entries(c, sc);
    weir_manual_clock_set(mc, 5100);
    expect_plain_entries(sc, true);
    weir_manual_clock_set(mc, 5160);
    expect_plain_entries(sc, false);
    weir_buf_fini(&snap);
    weir__backend_destroy(a);
    weir__backend_destroy(b);
    weir__backend_destroy(c);
    weir__backend_destroy(r);
    weir_manual_clock_destroy(mc);
}

/* key1's entries written at 0 with TTL first_ttl (stamped under a TTL, or
 * unstamped without), made stale by a run without TTL, restored natively
 * with TTL 100 at 10000 into be[2] (they count from 10000) and checkpointed
 * natively into ck at ck_at; snap, a canonical snapshot of their key group
 * at ck_at. */
static void stale_restored_at_10000(weir_manual_clock *mc, int64_t first_ttl,
                                    int64_t ck_at, weir__backend *be[3],
                                    char *ck, size_t cap, weir_buf *snap)
{
    weir_clock clk = weir_manual_clock_get(mc);
    weir_state *sa[3], *sb[3], *sc[3];
    char ck1[300], ck2[300];
    be[0] = mkbe("rocksdb", 0, 128, clk);
    reg_vlm(be[0], first_ttl, sa);
    put_plain_entries(be[0], sa);
    checkpoint(be[0], ck1, sizeof ck1, "ck1");
    weir_manual_clock_set(mc, 50);
    be[1] = opened_vlm(clk, ck1, "db1", 0, sb);
    checkpoint(be[1], ck2, sizeof ck2, "ck2");
    weir_manual_clock_set(mc, 10000);
    be[2] = opened_vlm(clk, ck2, "db2", 100, sc);
    weir_manual_clock_set(mc, ck_at);
    checkpoint(be[2], ck, cap, "ck3");
    cr_assert_eq(weir__backend_snapshot_kg(be[2], kg_of("key1"), snap), 0);
}

/* Restored at 5000, its clock behind the restore the stale entries count
 * from (10000: another host's clock, a manual one), a native checkpoint
 * expires what it writes a TTL after the write, as a canonical one does;
 * the restored entries still count from 10000, also through a native
 * checkpoint of it. */
static void restore_behind_restore_time(int64_t first_ttl)
{
    weir_manual_clock *mc = weir_manual_clock_create(0);
    weir_clock clk = weir_manual_clock_get(mc);
    weir__backend *old[3];
    weir_state *sn[3], *sm[3], *se[3];
    char ck[300], ck4[300];
    weir_buf snap;
    weir_buf_init(&snap);
    stale_restored_at_10000(mc, first_ttl, 10050, old, ck, sizeof ck, &snap);
    weir_manual_clock_set(mc, 5000);
    weir__backend *n = opened_vlm(clk, ck, "db3", 100, sn);
    weir__backend *m =
        restored_vlm("memory", clk, &snap, kg_of("key1"), 100, sm);
    expect_plain_entries(sn, true);
    expect_plain_entries(sm, true);
    weir_manual_clock_set(mc, 5010);
    put_entries_of(n, sn, "key2");
    put_entries_of(m, sm, "key2");
    weir_manual_clock_set(mc, 5050);
    checkpoint(n, ck4, sizeof ck4, "ck4");
    weir__backend *e = opened_vlm(clk, ck4, "db4", 100, se);
    weir__backend *all[3] = {n, m, e};
    weir_state **sts[3] = {sn, sm, se};
    /* Each time for all three, the clock never going back: a background
     * compaction of n or e drops what has expired when it runs. */
    static const struct {
        int64_t at;
        const char *key;
        bool live;
    } step[] = {{5109, "key2", true},
                {5110, "key2", false},
                {5110, "key1", true},
                {10099, "key1", true},
                {10100, "key1", false}};
    for (size_t k = 0; k < sizeof step / sizeof *step; k++) {
        weir_manual_clock_set(mc, step[k].at);
        for (int i = 0; i < 3; i++) {
            cr_assert_eq(setk(all[i], step[k].key), 0);
            expect_plain_entries(sts[i], step[k].live);
        }
    }
    weir_buf_fini(&snap);
    for (int i = 0; i < 3; i++) {
        weir__backend_destroy(old[i]);
        weir__backend_destroy(all[i]);
    }
    weir_manual_clock_destroy(mc);
}

Test(rocksdb, native_restore_behind_its_restore_time_counts_writes_from_them)
{
    restore_behind_restore_time(100);
}

/* So do entries written without TTL, which carry no stamp. */
Test(rocksdb, native_restore_behind_its_restore_time_unstamped)
{
    restore_behind_restore_time(0);
}

/* Checkpointed natively once their TTL passed (no compaction dropped them
 * yet), stale entries stay expired when restored with the clock behind,
 * as a canonical snapshot leaves them out: the floor goes from a native
 * checkpoint once its TTL passed, stamps count as they are. */
Test(rocksdb, native_checkpoint_drops_a_floor_past_its_ttl)
{
    weir_manual_clock *mc = weir_manual_clock_create(0);
    weir_clock clk = weir_manual_clock_get(mc);
    weir__backend *old[3];
    weir_state *sn[3], *sm[3];
    char ck[300];
    weir_buf snap;
    weir_buf_init(&snap);
    stale_restored_at_10000(mc, 100, 10100, old, ck, sizeof ck, &snap);
    weir_manual_clock_set(mc, 5000);
    weir__backend *n = opened_vlm(clk, ck, "db3", 100, sn);
    weir__backend *m =
        restored_vlm("memory", clk, &snap, kg_of("key1"), 100, sm);
    expect_plain_entries(sm, false);
    expect_plain_entries(sn, false);
    weir_buf_fini(&snap);
    for (int i = 0; i < 3; i++)
        weir__backend_destroy(old[i]);
    weir__backend_destroy(n);
    weir__backend_destroy(m);
    weir_manual_clock_destroy(mc);
}

/*
 * A rescale merges parts whose floors differ (each part's restore with TTL
 * came at its own time): an entry the part restored earlier wrote before
 * the other part's restore, read canonically into the database opened
 * natively from that other part, expires a TTL after its write, as after a
 * canonical restore, not a TTL after the other part's floor.
 */
Test(rocksdb, rescale_merges_parts_with_different_floors)
{
    weir_manual_clock *mc = weir_manual_clock_create(0);
    weir_clock clk = weir_manual_clock_get(mc);
    weir_state *s[3], *t0[3], *t1[3], *sn[3], *sm[3];
    char c0[300], c1[300], c0b[300], c1b[300];
    weir__backend *p0 = mkbe("rocksdb", 0, 64, clk);
    reg_vlm(p0, 0, s);
    checkpoint(p0, c0, sizeof c0, "c0");
    weir__backend *p1 = mkbe("rocksdb", 64, 128, clk);
    reg_vlm(p1, 0, s);
    checkpoint(p1, c1, sizeof c1, "c1");
    weir_manual_clock_set(mc, 10000);
    weir__backend *q1 = opened_range(clk, c1, "q1", 64, 128);
    reg_vlm(q1, 5000, t1);
    weir_manual_clock_set(mc, 12000);
    weir__backend *q0 = opened_range(clk, c0, "q0", 0, 64);
    reg_vlm(q0, 5000, t0);
    char key[32];
    int i = 0;
    do
        snprintf(key, sizeof key, "k%d", i++);
    while (kg_of(key) < 64);
    uint32_t kg = kg_of(key);
    weir_manual_clock_set(mc, 11000);
    put_entries_of(q1, t1, key);
    weir_manual_clock_set(mc, 12050);
    checkpoint(q0, c0b, sizeof c0b, "c0b");
    checkpoint(q1, c1b, sizeof c1b, "c1b");
    weir_buf snap, part;
    weir_buf_init(&snap);
    weir_buf_init(&part);
    cr_assert_eq(weir__backend_snapshot_kg(q1, kg, &snap), 0);
    /* Scaled down to one subtask: q0's part opened natively, q1's read
     * canonically through a backend no operator binds. */
    weir_manual_clock_set(mc, 13000);
    weir__backend *n = opened_range(clk, c0b, "n", 0, 128);
    weir__backend *other = opened_range(no_clock(), c1b, "other", 64, 128);
    cr_assert_eq(weir__backend_snapshot_kg(other, kg, &part), 0);
    weir_cursor c;
    weir_cursor_init(&c, part.data, part.len);
    cr_assert_eq(weir__backend_restore_kg(n, kg, &c), 0);
    reg_vlm(n, 5000, sn);
    cr_assert_eq(setk(n, key), 0);
    weir__backend *m = restored_vlm("memory", clk, &snap, kg, 5000, sm);
    cr_assert_eq(setk(m, key), 0);
    weir_manual_clock_set(mc, 15999);
    expect_plain_entries(sm, true);
    expect_plain_entries(sn, true);
    weir_manual_clock_set(mc, 16000);
    expect_plain_entries(sm, false);
    expect_plain_entries(sn, false);
    weir_buf_fini(&snap);
    weir_buf_fini(&part);
    weir__backend *all[] = {p0, p1, q0, q1, n, other, m};
    for (size_t j = 0; j < sizeof all / sizeof *all; j++)
        weir__backend_destroy(all[j]);
    weir_manual_clock_destroy(mc);
}

/* The SST files of native checkpoint ck. */
static int ssts_of(const char *ck)
{
    DIR *d = opendir(ck);
    cr_assert_not_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        n += len >= 4 && strcmp(e->d_name + len - 4, ".sst") == 0;
    }
    closedir(d);
    return n;
}

/* A native checkpoint writes the names and restore times of states only
 * when they changed: one with nothing written since the last adds no file,
 * for states with and without TTL, fresh or natively restored. */
Test(rocksdb, native_checkpoint_unchanged_adds_no_file)
{
    weir_manual_clock *mc = weir_manual_clock_create(0);
    weir__backend *a;
    weir_state *sb[3];
    weir__backend *b = restored_at_10000(mc, &a, sb);
    reg(a, "t", WEIR_STATE_VALUE, 100, WEIR_TTL_ON_CREATE_AND_WRITE);
    char ck[4][300];
    checkpoint(a, ck[0], sizeof ck[0], "ck0");
    checkpoint(a, ck[1], sizeof ck[1], "ck1");
    cr_assert_eq(ssts_of(ck[1]), ssts_of(ck[0]));
    weir_manual_clock_set(mc, 10050);
    checkpoint(b, ck[2], sizeof ck[2], "ck2");
    checkpoint(b, ck[3], sizeof ck[3], "ck3");
    cr_assert_eq(ssts_of(ck[3]), ssts_of(ck[2]));
    /* What they did not write again is still in them: restored, entries
     * count from the first restore with TTL. */
    weir_clock clk = weir_manual_clock_get(mc);
    weir_state *sc[3], *sd[3];
    /* (the clock never goes back while c is open: a background compaction
     * drops what has expired when it runs) */
    weir_manual_clock_set(mc, 10060);
    weir__backend *c = opened_vlm(clk, ck[3], "db3", 100, sc);
    weir_manual_clock_set(mc, 10099);
    expect_plain_entries(sc, true);
    weir_manual_clock_set(mc, 10100);
    expect_plain_entries(sc, false);
    weir_manual_clock_set(mc, 20000);
    weir__backend *d = opened_vlm(clk, ck[1], "db1", 100, sd);
    weir_manual_clock_set(mc, 20099);
    expect_plain_entries(sd, true);
    weir_manual_clock_set(mc, 20100);
    expect_plain_entries(sd, false);
    weir__backend_destroy(a);
    weir__backend_destroy(b);
    weir__backend_destroy(c);
    weir__backend_destroy(d);
    weir_manual_clock_destroy(mc);
}

/* Past id 4096 too, values of a state without TTL restored natively into
 * one with TTL expire. */
Test(rocksdb, native_restore_ttl_of_state_4096)
{
    weir_manual_clock *mc = weir_manual_clock_create(0);
    weir_clock clk = weir_manual_clock_get(mc);
    weir__backend *a = mkbe("rocksdb", 0, 128, clk);
    char name[32];
    weir_state *st = NULL;
    for (int i = 0; i <= 4096; i++) {
        snprintf(name, sizeof name, "s%d", i);
        st = reg(a, name, WEIR_STATE_VALUE, 0, WEIR_TTL_ON_CREATE_AND_WRITE);
    }
    cr_assert_eq(setk(a, "key1"), 0);
    put_s(st, "", "plain");
    char ck[300];
    checkpoint(a, ck, sizeof ck, "ck");
    weir_manual_clock_set(mc, 10000);
    weir__backend *b = opened(clk, ck, "db");
    for (int i = 0; i <= 4096; i++) {
        snprintf(name, sizeof name, "s%d", i);
        st = reg(b, name, WEIR_STATE_VALUE, 100, WEIR_TTL_ON_CREATE_AND_WRITE);
    }
    cr_assert_eq(setk(b, "key1"), 0);
    char buf[16];
    cr_assert_str_eq(get_s(st, "", buf, sizeof buf), "plain");
    weir_manual_clock_set(mc, 10100);
    const char *got = get_s(st, "", buf, sizeof buf);
    cr_assert_null(got, "state 4096's value outlived its TTL: %s", got);
    weir__backend_destroy(a);
    weir__backend_destroy(b);
    weir_manual_clock_destroy(mc);
}

Test(rocksdb, bulk_restore_equals_memory_restore)
{
    weir__backend *a = mkbe("memory", 0, 128, no_clock());
    weir_state *sa[5];
    reg_five(a, sa);
    fill_five(a, sa, 3000);
    weir__backend *m = mkbe("memory", 0, 128, no_clock());
    weir__backend *r = mkbe("rocksdb", 0, 128, no_clock());
    /* Some states registered before the restore, some after. */
    weir_state *sm[5], *sr[5];
    sr[1] = reg(r, "list", WEIR_STATE_LIST, 0, 0);
    move_kgs(a, 0, 128, m, 0, 128);
    move_kgs(a, 0, 128, r, 0, 128);
    /* Nothing went through the memtable: every key group was staged, in one
     * file (they came in ascending order), not ingested yet. */
    weir__rocksdb_stats st = rstats(r);
    cr_assert_eq(st.bulk_kgs, 128);
    cr_assert_eq(st.ingested_files, 0);
    uint64_t records = 0, n;
    reg_five(m, sm);
    reg_five(r, sr);
    char *dm = dump(sm, 5), *dr = dump(sr, 5);
    st = rstats(r);
    cr_assert_eq(st.ingested_files, 1);
    cr_assert_eq(st.ingested_entries, st.bulk_entries);
    for (uint32_t kg = 0; kg < 128; kg++) {
        cr_assert_eq(weir__rocksdb_count_kg(r, kg, &n), 0);
        records += n;
    }
    /* value (3000 + 1500 odd), list 3000, map 1 + 2 + 3 per key cycle, sum
     * 3000, avg 3000: one record per list, not one per element. */
    cr_assert_eq(records, st.bulk_entries);
    cr_assert_eq(records, 4500 + 3000 + 6000 + 3000 + 3000);
    cr_assert_gt(strlen(dm), 10000);
    cr_assert_str_eq(dm, dr);
    /* The restored states work as usual: reads, writes, merges. */
    cr_assert_eq(setk(r, "key7"), 0);
    cr_assert_eq(weir_list_add(sr[1], NS("w"), "more", 4), 0);
    char *s = list_s(sr[1], "w");
    cr_assert_str_eq(s, "el7.0,el7.1,el7.2,el7.3,more");
    weir_free(s);
    add64(sr[3], "w", 5);
    cr_assert_eq(sum_of(sr[3], "w"), 7 + 1 + 5);
    weir_free(dm);
    weir_free(dr);
    weir__backend_destroy(a);
    weir__backend_destroy(m);
    weir__backend_destroy(r);
}

/* Restores into RocksDB, canonical snapshots out of RocksDB (whose state ids
 * differ from the new backend's), rescaled 1 -> 4 -> 2 -> 1 (memory). */
Test(rocksdb, bulk_restore_rescaled_1_4_2)
{
    weir__backend *a = mkbe("memory", 0, 128, no_clock());
    weir_state *sa[5];
    reg_five(a, sa);
    fill_five(a, sa, 2000);
    weir__backend *four[4], *two[2];
    for (int i = 0; i < 4; i++) {
        four[i] = mkbe("rocksdb", 32u * i, 32u * (i + 1), no_clock());
        /* Registered in another order than in `a`: other state ids. */
        weir_state *x;
        x = reg_avg(four[i], "avg");
        x = reg(four[i], "map", WEIR_STATE_MAP, 0, 0);
        (void)x;
        move_kgs(a, 0, 128, four[i], 32u * i, 32u * (i + 1));
    }
    for (int i = 0; i < 2; i++) {
        /* Each takes the key groups of two old subtasks. */
        two[i] = mkbe("rocksdb", 64u * i, 64u * (i + 1), no_clock());
        for (int j = 0; j < 4; j++)
            move_kgs(four[j], 32u * j, 32u * (j + 1), two[i], 64u * i,
                     64u * (i + 1));
        weir__rocksdb_stats st = rstats(two[i]);
        cr_assert_eq(st.bulk_kgs, 64);
    }
    weir__backend *m = mkbe("memory", 0, 128, no_clock());
    move_kgs(two[0], 0, 64, m, 0, 128);
    move_kgs(two[1], 64, 128, m, 0, 128);
    weir_state *sm[5];
    reg_five(m, sm);
    char *da = dump(sa, 5), *dm = dump(sm, 5);
    cr_assert_str_eq(da, dm);
    weir_free(da);
    weir_free(dm);
    weir__backend_destroy(a);
    weir__backend_destroy(m);
    for (int i = 0; i < 4; i++)
        weir__backend_destroy(four[i]);
    for (int i = 0; i < 2; i++)
        weir__backend_destroy(two[i]);
}

/*
 * Key groups out of order, restored twice, into a backend that holds data
 * there, and a write right after a restore (before the staged file is
 * ingested): the same as the memory backend's replace semantics.
 */
Test(rocksdb, bulk_restore_order_and_replace)
{
    weir__backend *a = mkbe("memory", 0, 128, no_clock());
    weir_state *sa[5];
    reg_five(a, sa);
    fill_five(a, sa, 1500);
    weir__backend *r = mkbe("rocksdb", 0, 128, no_clock());
    weir_state *sr[5];
    reg_five(r, sr);
    /* Data that the restore must replace, in every key group. */
    fill_five(r, sr, 1500);
    char k[32];
    for (int i = 0; i < 1500; i++) {
        snprintf(k, sizeof k, "key%d", i);
        cr_assert_eq(setk(r, k), 0);
        put_s(sr[0], "stale", "x");
        cr_assert_eq(weir_list_add(sr[1], NS("w"), "stale", 5), 0);
    }
    char *da = dump(sa, 5), *dr = dump(sr, 5);
    cr_assert_str_neq(da, dr);
    weir_free(dr);
    /* Key groups 15..0 twice in descending order, then 16..127 ascending. */
    int order[16 + 16 + 112], n_order = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int kg = 15; kg >= 0; kg--)
            order[n_order++] = kg;
    for (int kg = 16; kg < 128; kg++)
        order[n_order++] = kg;
    weir_buf b;
    weir_buf_init(&b);
    for (int i = 0; i < n_order; i++) {
        weir_buf_clear(&b);
        cr_assert_eq(weir__backend_snapshot_kg(a, (uint32_t)order[i], &b), 0);
        weir_cursor c;
        weir_cursor_init(&c, b.data, b.len);
        cr_assert_eq(weir__backend_restore_kg(r, (uint32_t)order[i], &c), 0);
    }
    weir_buf_fini(&b);
    weir__rocksdb_stats st = rstats(r);
    cr_assert_eq(st.bulk_kgs, 16 + 16 + 112);
    /* A file for every restore out of order; the rest still staged. */
    cr_assert_eq(st.ingested_files, 30, "%llu files",
                 (unsigned long long)st.ingested_files);
    dr = dump(sr, 5);
    cr_assert_str_eq(da, dr);
    weir_free(da);
    weir_free(dr);
    /* A write right after a restore wins over the restored value. */
    uint32_t kg = kg_of("key2");
    weir_buf_init(&b);
    cr_assert_eq(weir__backend_snapshot_kg(a, kg, &b), 0);
    weir_cursor c;
    weir_cursor_init(&c, b.data, b.len);
    cr_assert_eq(weir__backend_restore_kg(r, kg, &c), 0);
    weir_buf_fini(&b);
    cr_assert_eq(setk(r, "key2"), 0);
    put_s(sr[0], "", "newer");
    char buf[32];
    cr_assert_str_eq(get_s(sr[0], "", buf, sizeof buf), "newer");
    cr_assert_eq(weir_map_put(sr[2], NS("w"), "m0", 2, "nm", 2), 0);
    const void *v;
    size_t vlen;
    cr_assert_eq(weir_map_get(sr[2], NS("w"), "m0", 2, &v, &vlen), 0);
    cr_assert_eq(vlen, 2);
    cr_assert_eq(memcmp(v, "nm", 2), 0);
    weir__backend_destroy(a);
    weir__backend_destroy(r);
}

/* TTL'd entries: restored with their stamps, expired ones not resurrected,
 * the same as a restore into memory at every later moment. */
Test(rocksdb, bulk_restore_ttl)
{
    weir_manual_clock *mc = weir_manual_clock_create(0);
    weir_clock clk = weir_manual_clock_get(mc);
    weir__backend *a = mkbe("memory", 0, 128, clk);
    weir_state *sa[3];
    sa[0] = reg(a, "v", WEIR_STATE_VALUE, 100, WEIR_TTL_ON_CREATE_AND_WRITE);
    sa[1] = reg(a, "l", WEIR_STATE_LIST, 100, WEIR_TTL_ON_CREATE_AND_WRITE);
    sa[2] = reg(a, "m", WEIR_STATE_MAP, 100, WEIR_TTL_ON_CREATE_AND_WRITE);
    char k[32];
    /* Written at 0, 10, ..., 90: at 150 the first half has expired. */
    for (int t = 0; t < 10; t++) {
        weir_manual_clock_set(mc, 10 * t);
        for (int i = 0; i < 400; i++) {
            snprintf(k, sizeof k, "key%d", i);
            cr_assert_eq(setk(a, k), 0);
            if (i % 10 == t)
                put_s(sa[0], "", k);
            char e[16];
            snprintf(e, sizeof e, "e%d", t);
            if (i % 3 == t % 3)
                cr_assert_eq(weir_list_add(sa[1], NS(""), e, strlen(e)), 0);
            if (i % 2 == t % 2)
                cr_assert_eq(weir_map_put(sa[2], NS(""), e, strlen(e), k,
                                          strlen(k)),
                             0);
        }
    }
    weir_manual_clock_set(mc, 95); /* the snapshot: all live */
    weir__backend *m = mkbe("memory", 0, 128, clk);
    weir__backend *r = mkbe("rocksdb", 0, 128, clk);
    weir_state *sm[3], *sr[3];
    for (int i = 0; i < 2; i++) {
        weir__backend *be = i ? r : m;
        weir_state **s = i ? sr : sm;
        s[0] = reg(be, "v", WEIR_STATE_VALUE, 100, WEIR_TTL_ON_CREATE_AND_WRITE);
        s[1] = reg(be, "l", WEIR_STATE_LIST, 100, WEIR_TTL_ON_CREATE_AND_WRITE);
        s[2] = reg(be, "m", WEIR_STATE_MAP, 100, WEIR_TTL_ON_CREATE_AND_WRITE);
    }
    weir_buf snaps[128];
    for (uint32_t kg = 0; kg < 128; kg++) {
        weir_buf_init(&snaps[kg]);
        cr_assert_eq(weir__backend_snapshot_kg(a, kg, &snaps[kg]), 0);
    }
    /* Restored later: half of it expired meanwhile. */
    weir_manual_clock_set(mc, 150);
    for (uint32_t kg = 0; kg < 128; kg++)
        for (int i = 0; i < 2; i++) {
            weir_cursor c;
            weir_cursor_init(&c, snaps[kg].data, snaps[kg].len);
            cr_assert_eq(weir__backend_restore_kg(i ? r : m, kg, &c), 0);
        }
    for (uint32_t kg = 0; kg < 128; kg++)
        weir_buf_fini(&snaps[kg]);
    weir__rocksdb_stats st = rstats(r);
    cr_assert_eq(st.bulk_kgs, 128);
    /* Expired entries (stamps <= 50) were not even written: values of
     * t >= 6 (160), every list (each has an element of t >= 6), map
     * entries of t >= 6 (two per key). */
    cr_assert_eq(st.bulk_entries, 160 + 400 + 800);
    int64_t at[] = {150, 160, 175, 189, 190, 195, 250};
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        weir_manual_clock_set(mc, at[i]);
        char *dm = dump(sm, 3), *dr = dump(sr, 3);
        cr_assert_str_eq(dm, dr, "at %lld", (long long)at[i]);
        if (at[i] < 190)
            cr_assert_gt(strlen(dm), 1000);
        else
            cr_assert_str_eq(dm, "");
        weir_free(dm);
        weir_free(dr);
    }
    weir__backend_destroy(a);
    weir__backend_destroy(m);
    weir__backend_destroy(r);
    weir_manual_clock_destroy(mc);
}

Test(rocksdb, working_directory_is_scratch)
{
    char dir[300], ck[300], left[300];
    snprintf(dir, sizeof dir, "%s/db", tmp_dir());
    weir__backend_config cfg = {
        .kind = "rocksdb", .max_parallelism = 128, .kg_hi = 128, .dir = dir};
    weir__backend *a = NULL;
    cr_assert_eq(weir__backend_create(&cfg, &a), 0);
    weir_state *v = reg(a, "v", WEIR_STATE_VALUE, 0, 0);
    cr_assert_eq(setk(a, "k"), 0);
    put_s(v, "", "old");
    snprintf(ck, sizeof ck, "%s/ck", tmp_dir());
    cr_assert_eq(weir__rocksdb_checkpoint(a, ck), 0);
    weir__backend_destroy(a);
    struct stat sb;
    cr_assert_neq(stat(dir, &sb), 0, "destroy removes the database");
    /* A database left behind (say, by a crash) is not state: create starts
     * empty. */
    snprintf(left, sizeof left, "%s/left", tmp_dir());
    cr_assert_eq(mkdir(left, 0755), 0);
    DIR *d = opendir(ck);
    cr_assert_not_null(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char from[700], to[700];
        snprintf(from, sizeof from, "%s/%s", ck, e->d_name);
        snprintf(to, sizeof to, "%s/%s", left, e->d_name);
        cr_assert_eq(link(from, to), 0);
    }
    closedir(d);
    cfg.dir = left;
    cr_assert_eq(weir__backend_create(&cfg, &a), 0);
    v = reg(a, "v", WEIR_STATE_VALUE, 0, 0);
    cr_assert_eq(setk(a, "k"), 0);
    char buf[16];
    cr_assert_null(get_s(v, "", buf, sizeof buf));
    weir__backend_destroy(a);
    cfg.dir = NULL;
    cr_assert_eq(weir__backend_create(&cfg, &a), WEIR_EINVAL);
}

#else

Test(rocksdb, not_built)
{
    cr_skip_test("weir was built without RocksDB");
}

#endif
