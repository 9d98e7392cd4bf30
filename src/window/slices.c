/*
 * window/slices.c - the slice store of tumbling, hopping and cumulating
 * windows with the event-time trigger (Flink's "slicing" windows).
 *
 * Time is cut into slices of sl ms (tumbling: the size; hopping: gcd(size,
 * slide); cumulating: the step). Each live slice holds a compact table of
 * records (key entry, accumulator block), in chunks that never move, with
 * an index by key. A record of the stream updates exactly one accumulator:
 * that of its key in its slice. When the watermark passes a window's end,
 * the window's result per key is its slices combined: tumbling emits the
 * slice as it is; hopping merges the slices of the window into a scratch
 * table, oldest first; cumulating folds each step's slice into a running
 * table for the period. Every firing reads whole slices front to back, so
 * its cost is memory bandwidth rather than one cache miss per key.
 *
 * Invariants:
 * - Slices are kept in a list ascending by end. A slice exists only while
 *   some window containing it has not fired (end > W), except the
 *   cumulating period table, which is not in the list.
 * - entry->nrec counts the records of an entry in all slices and the period
 *   table; entry->cs_slice / cs_rec cache its record in the slice it used
 *   last, and are cleared when that slice goes.
 * - Allowed lateness: a window that fired lives on per key as a `mat` node
 *   of the key (wcore.c), updated by late records and fired again; slices
 *   themselves never wait for lateness.
 */
#include "util/hindex.h"
#include "window/wcore_impl.h"

#define SREC_SHIFT 8
#define SREC_CHUNK (1u << SREC_SHIFT)

/*
 * a record: the key's entry, the slot bits of its hash (weir__hash_slot: the
 * high half, independent of the key group; so combining
 * slices never touches entries; index slots take no more bits), the number
 * of the key's record in the running sum c->run (RUN_NONE: not known), the
 * accumulator, then a copy of the key's bytes for short fixed-width keys (so
 * emitting a slice never touches entries either)
 */
#define SREC_E(r) (*(wentry **)(r))
#define SREC_H(r) (*(uint32_t *)((uint8_t *)(r) + 8))
#define SREC_RUN(r) (*(uint32_t *)((uint8_t *)(r) + 12))
#define SREC_ACC(r) ((void *)((uint8_t *)(r) + 16))
#define SREC_OF_ACC(acc) ((uint8_t *)(acc) - 16)
#define RUN_NONE UINT32_MAX

static inline uint8_t *srec_at(const wcore *c, const sslice *s, uint32_t i)
{
    return s->chunks[i >> SREC_SHIFT] + (size_t)(i & (SREC_CHUNK - 1)) * c->rec_size;
}

/* ---- slice tables ---- */

/* ---- the ordered index of live slices ---- */

/* How many live slices end at or before se. */
static uint32_t ord_upper(const wcore *c, weir_ts se)
{
    sslice *const *a = c->s_ord + c->s_ord_lo;
    uint32_t lo = 0, hi = c->s_ord_n;
    /* most lookups are for the newest slices */
    if (hi && a[hi - 1]->end <= se)
        return hi;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (a[mid]->end <= se)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Room for one more entry at the end (compacting or growing). */
static int ord_reserve(wcore *c)
{
    if (c->s_ord_lo + c->s_ord_n < c->s_ord_cap)
        return 0;
    if (c->s_ord_lo > c->s_ord_cap / 2) {
        memmove(c->s_ord, c->s_ord + c->s_ord_lo, c->s_ord_n * sizeof *c->s_ord);
        c->s_ord_lo = 0;
        return 0;
    }
    uint32_t cap = c->s_ord_cap ? c->s_ord_cap * 2 : 64;
    sslice **a = weir_malloc((size_t)cap * sizeof *a);
    if (!a)
        return WEIR_ENOMEM;
    if (c->s_ord_n)
        memcpy(a, c->s_ord + c->s_ord_lo, c->s_ord_n * sizeof *a);
    weir_free(c->s_ord);
    c->s_ord = a;
    c->s_ord_cap = cap;
    c->s_ord_lo = 0;
    return 0;
}

/* Inserts s as the at-th entry (room reserved). */
static void ord_insert(wcore *c, uint32_t at, sslice *s)
{
    sslice **a = c->s_ord + c->s_ord_lo;
    memmove(a + at + 1, a + at, (c->s_ord_n - at) * sizeof *a);
    a[at] = s;
    c->s_ord_n++;
}

static void ord_remove(wcore *c, const sslice *s)
{
    uint32_t at = ord_upper(c, s->end);
    if (at == 0 || c->s_ord[c->s_ord_lo + at - 1] != s)
        return; /* not indexed (cannot happen for a listed slice) */
    at--;
    if (at == 0) {
        /* fired slices leave from the front */
        c->s_ord_lo++;
    } else {
        sslice **a = c->s_ord + c->s_ord_lo;
        memmove(a + at, a + at + 1, (c->s_ord_n - at - 1) * sizeof *a);
    }
    if (--c->s_ord_n == 0)
        c->s_ord_lo = 0;
}

static sslice *slice_new(wcore *c, weir_ts start, weir_ts end)
{
    sslice *s = c->sfree;
    if (s) {
        c->sfree = s->next;
    } else if (!(s = weir_calloc(1, sizeof *s))) {
        return NULL;
    }
    s->start = start;
    s->end = end;
    s->first = s->last = end;
    s->n = 0;
    s->next = s->prev = NULL;
    s->in_list = false;
    s->scratch = false;
    s->in_run = false;
    if (s->idx_cap)
        memset(s->idx, 0, s->idx_cap * sizeof *s->idx);
    return s;
}

/* Rebuilds s's index at twice its size (at least 64 slots, at least min_cap). */
static int idx_grow_to(wcore *c, sslice *s, uint32_t min_cap)
{
    uint32_t ncap = s->idx_cap ? s->idx_cap * 2 : 64;
    while (ncap < min_cap && ncap < (1u << 31))
        ncap *= 2;
    uint32_t *ni = weir__bigmem_calloc((size_t)ncap * sizeof *ni, 64);
    if (!ni)
        return WEIR_ENOMEM;
    for (uint32_t k = 0; k < s->n; k++) {
        uint32_t i = (uint32_t)SREC_H(srec_at(c, s, k)) & (ncap - 1);
        while (ni[i])
            i = (i + 1) & (ncap - 1);
        ni[i] = k + 1;
    }
    weir__bigmem_free(s->idx);
    s->idx = ni;
    s->idx_cap = ncap;
    return 0;
}

static int idx_grow(wcore *c, sslice *s) { return idx_grow_to(c, s, 0); }

/*
 * One more chunk of records for s. Chunks are carved from blocks that
 * double (one chunk, two, four, ... up to RBLOCK_MAX bytes), so a slice of
 * many keys holds its records in a few large blocks (huge pages,
 * util/bigmem.h) rather than a 12 KiB allocation, and a page fault, every
 * 256 keys. A block is listed in s->blocks; chunks never move.
 */
#define RBLOCK_MAX ((size_t)8 << 20)

static int chunk_add(wcore *c, sslice *s)
{
    size_t csize = (size_t)SREC_CHUNK * c->rec_size;
    if (s->n_chunks == s->cap_chunks) {
        uint32_t nc = s->cap_chunks ? s->cap_chunks * 2 : 4;
        uint8_t **v = weir_realloc(s->chunks, nc * sizeof *v);
        if (!v)
            return WEIR_ENOMEM;
        s->chunks = v;
        s->cap_chunks = nc;
    }
    if (s->bnext + csize > s->bend) {
        size_t n = s->n_chunks ? s->n_chunks : 1; /* as many chunks again as the slice has */
        if (n * csize > RBLOCK_MAX)
            n = RBLOCK_MAX / csize ? RBLOCK_MAX / csize : 1;
        uint8_t *b = weir__bigmem_alloc(n * csize, 64);
        if (!b)
            return WEIR_ENOMEM;
        if (weir__wpush_ptr(&s->blocks, &s->n_blocks, &s->cap_blocks, b)) {
            weir__bigmem_free(b);
            return WEIR_ENOMEM;
        }
        s->bnext = b;
        s->bend = b + n * csize;
    }
    s->chunks[s->n_chunks++] = s->bnext;
    s->bnext += csize;
    return 0;
}

/*
 * The record number + 1 of entry e (hash h) in slice s, or 0 when it has
 * none; then *hole is the free index slot where its probe ended.
 */
static uint32_t srec_probe(const wcore *c, const sslice *s, const wentry *e, uint32_t h, uint32_t *hole)
{
    const uint32_t mask = s->idx_cap - 1;
    uint32_t i = h & mask, v;
    for (; (v = s->idx[i]); i = (i + 1) & mask)
        if (SREC_E(srec_at(c, s, v - 1)) == e)
            return v;
    *hole = i;
    return 0;
}

static uint32_t srec_find(const wcore *c, const sslice *s, const wentry *e, uint32_t h)
{
    uint32_t hole;
    return s->idx_cap ? srec_probe(c, s, e, h, &hole) : 0;
}

/*
 * The record of entry e in slice s, created (empty) if missing; its number
 * goes to c->srec_last. h: the slot bits of the entry's hash
 * (weir__hash_slot(e->hash)), kept in the record (SREC_H).
 */
static uint8_t *srec_get(wcore *c, sslice *s, wentry *e, uint32_t h)
{
    uint32_t i = 0;
    if (s->idx_cap) {
        uint32_t found = srec_probe(c, s, e, h, &i);
        if (found) {
            c->srec_last = found - 1;
            return srec_at(c, s, found - 1);
        }
    }
    /* at most a quarter full: most probes end at the first or second slot */
    if ((s->n + 1) * 4 > s->idx_cap) {
        if (idx_grow(c, s))
            return NULL;
        const uint32_t mask = s->idx_cap - 1;
        for (i = h & mask; s->idx[i]; i = (i + 1) & mask)
            ;
    }
    if (s->n >> SREC_SHIFT >= s->n_chunks && chunk_add(c, s))
        return NULL;
    uint8_t *r = srec_at(c, s, s->n);
    SREC_E(r) = e;
    SREC_H(r) = h;
    /* the key's running record, as far as its entry knows (checked before use) */
    SREC_RUN(r) = s->scratch ? RUN_NONE : e->run_idx;
    if (c->rec_key_off == c->rec_size - 16 && e->key == e->key_inline)
        memcpy(r + c->rec_key_off, e->key_inline, 16); /* a BIGINT key and what pads it: one copy */
    else if (c->rec_key_off)
        memcpy(r + c->rec_key_off, e->key, e->key_len);
    weir__acc_init(&c->as, SREC_ACC(r));
    c->srec_last = s->n;
    s->idx[i] = ++s->n;
    if (!s->scratch) {
        if (e->nrec++ == 0)
            weir__entry_busy(c, e);
        c->n_recs++;
    }
    return r;
}

/* Drops every record of s (their keys may become idle) and recycles s. */
static void slice_release(wcore *c, sslice *s)
{
    for (uint32_t k = 0; k < s->n; k++) {
        uint8_t *r = srec_at(c, s, k);
        wentry *e = SREC_E(r);
        if (!s->scratch && k + 8 < s->n)
            __builtin_prefetch(SREC_E(srec_at(c, s, k + 8)));
        weir__acc_fini(&c->as, SREC_ACC(r));
        if (s->scratch)
            continue;
        if (e->cs_slice == s)
            e->cs_slice = NULL;
        /* the record leaves the key's bytes in keyed state */
        weir__wentry_touch(c, e);
        if (--e->nrec == 0)
            weir__entry_maybe_idle(c, e);
    }
    if (!s->scratch)
        c->n_recs -= s->n;
    s->n = 0;
    if (s->in_list) {
        ord_remove(c, s);
        if (s->prev)
            s->prev->next = s->next;
        else
            c->s_head = s->next;
        if (s->next)
            s->next->prev = s->prev;
        else
            c->s_tail = s->prev;
    }
    if (c->s_last == s)
        c->s_last = NULL;
    s->in_list = false;
    s->prev = NULL;
    s->next = c->sfree;
    c->sfree = s;
}

static void slice_free_mem(sslice *s)
{
    for (uint32_t k = 0; k < s->n_blocks; k++)
        weir__bigmem_free(s->blocks[k]);
    weir_free(s->blocks);
    weir_free(s->chunks);
    weir__bigmem_free(s->idx);
    weir_free(s);
}

/* Hopping: ends of the first and last window that contain the slice ending at se. */
static void slice_bounds(const wcore *c, sslice *s)
{
    if (c->kind == WEIR_WINDOW_HOPPING) {
        s->first = c->sl == c->slide ? s->end : weir__grid_ceil(s->end, c->eoff, c->slide);
        s->last = weir__ts_add(weir_window_align(weir__ts_sub(s->end, c->sl), c->off, c->slide), c->size);
    } else if (c->kind == WEIR_WINDOW_CUMULATING) {
        s->first = s->end;
        s->last = weir__ts_add(weir_window_align(weir__ts_sub(s->end, c->sl), c->off, c->size), c->size);
    }
}

/* The live slice that ends at se, created if missing (slice_find: most records hit the one used last). */
static sslice *slice_find_slow(wcore *c, weir_ts se)
{
    uint32_t at = ord_upper(c, se);
    sslice *s = at ? c->s_ord[c->s_ord_lo + at - 1] : NULL;
    if (s && s->end == se) {
        c->s_last = s;
        return s;
    }
    if (ord_reserve(c))
        return NULL;
    sslice *ns = slice_new(c, weir__ts_sub(se, c->sl), se);
    if (!ns)
        return NULL;
    /* a slice usually holds about as many keys as the one before it: an index
     * of that size from the start is not rebuilt over and over as it fills */
    if (s && (uint64_t)(s->n + 1) * 4 > ns->idx_cap && s->n < (1u << 28) && idx_grow_to(c, ns, (s->n + 1) * 4)) {
        ns->next = c->sfree;
        c->sfree = ns;
        return NULL;
    }
    ord_insert(c, at, ns);
    slice_bounds(c, ns);
    /* a new (empty) slice of the window the running sum stands at is part of it */
    ns->in_run = c->run && c->run_end != WEIR_TS_MIN && se <= c->run_end && se > weir__ts_sub(c->run_end, c->size);
    ns->in_list = true;
    ns->prev = s;
    ns->next = s ? s->next : c->s_head;
    if (ns->next)
        ns->next->prev = ns;
    else
        c->s_tail = ns;
    if (s)
        s->next = ns;
    else
        c->s_head = ns;
    c->s_last = ns;
    return ns;
}

static inline sslice *slice_find(wcore *c, weir_ts se)
{
    sslice *s = c->s_last;
    return s && s->end == se ? s : slice_find_slow(c, se);
}

/* The accumulator of entry e in slice s (cached per entry: a key's next record usually hits it again). */
static inline void *slice_acc(wcore *c, sslice *s, wentry *e)
{
    if (e->cs_slice == s)
        return SREC_ACC(srec_at(c, s, e->cs_rec));
    uint8_t *r = srec_get(c, s, e, weir__hash_slot(e->hash));
    if (!r)
        return NULL;
    e->cs_slice = s;
    e->cs_rec = c->srec_last;
    return SREC_ACC(r);
}

/* ---- routing a record ---- */

/* Slice bounds of ts, with a one-slice cache: most records fall in the slice of the one before. */
static inline void slice_of(wcore *c, weir_ts ts)
{
    if (ts < c->cs_start || ts >= c->cs_end) {
        weir_ts s = weir_window_align(ts, c->off, c->sl);
        c->cs_start = s;
        c->cs_end = weir__ts_add(s, c->sl);
        if (c->kind == WEIR_WINDOW_HOPPING) {
            c->cs_first = c->sl == c->slide ? c->cs_end : weir__grid_ceil(c->cs_end, c->eoff, c->slide);
            c->cs_last = weir__ts_add(weir_window_align(weir__ts_sub(c->cs_end, c->sl), c->off, c->slide), c->size);
        } else if (c->kind == WEIR_WINDOW_CUMULATING) {
            c->cs_base = weir_window_align(ts, c->off, c->size);
            c->cs_first = c->cs_end;
            c->cs_last = weir__ts_add(c->cs_base, c->size);
        } else {
            c->cs_first = c->cs_last = c->cs_end;
        }
    }
}

static uint8_t *run_rec(wcore *c, uint8_t *r);

static inline int sliced_route(wcore *c, wentry *e, const weir_batch *b, uint32_t row, weir_ts ts, int sign)
{
    /* fetch the slice record of a row a little ahead (its index slot was fetched before) */
    slice_of(c, ts);
    const weir_ts W = c->wm, se = c->cs_end, e_first = c->cs_first, e_last = c->cs_last;
    if (weir__ts_add(e_last, c->L) <= W)
        return weir__emit_late_row(c, b, row, ts);
    int rc;
    if (e_last > W) {
        /* some window of the slice has not fired: the record goes into the slice */
        void *acc;
        sslice *cum = c->cum;
        if (c->kind == WEIR_WINDOW_CUMULATING && se <= W && !cum) {
            /*
             * The record's step has fired but nothing was folded yet (no
             * record in the period's earlier steps): the period's running
             * table starts here, so the record joins it on arrival, before
             * the steps still to come, as when the table exists
             * (FIRST_VALUE/LAST_VALUE order, docs/windows.md). Its end is
             * the last step end the watermark passed.
             */
            if (!(cum = c->cum = slice_new(c, c->cs_base, weir_window_align(W, c->off, c->slide))))
                return WEIR_ENOMEM;
        }
        if (c->kind == WEIR_WINDOW_CUMULATING && cum && cum->start == c->cs_base && se <= cum->end) {
            /* folded into the period's running table already: later windows all contain it */
            acc = slice_acc(c, cum, e);
        } else {
            sslice *s = slice_find(c, se);
            acc = s ? slice_acc(c, s, e) : NULL;
            if (acc && s->in_run) {
                /* the running sum includes this slice: it takes the record too */
                uint8_t *r = run_rec(c, SREC_OF_ACC(acc));
                if (!r)
                    return WEIR_ENOMEM;
                if ((rc = weir__pend_add(c, SREC_ACC(r), row, sign)))
                    return rc;
            }
        }
        if (!acc)
            return WEIR_ENOMEM;
        if ((rc = weir__pend_add(c, acc, row, sign)))
            return rc;
        /* the key's bytes in keyed state change: it is rewritten at the next drain */
        weir__wentry_touch(c, e);
    }
    if (e_first <= W) {
        /* late for the windows that fired: those still within allowed lateness get late updates */
        weir__wentry_changed(c, e);
        int64_t step = c->kind == WEIR_WINDOW_TUMBLING ? c->size : c->slide;
        for (weir_ts E = e_first; E <= W && E <= e_last; E = weir__ts_add(E, step)) {
            weir_ts start = c->kind == WEIR_WINDOW_CUMULATING ? c->cs_base : weir__ts_sub(E, c->size);
            if (weir__ts_add(E, c->L) > W && (rc = weir__route_mat(c, e, row, start, E, sign)))
                return rc;
            if (E == WEIR_TS_MAX)
                break;
        }
    }
    return 0;
}

int weir__sliced_route_rows(wcore *c, const weir_batch *b, int64_t now_ms)
{
    const uint32_t n = b->n_rows;
    for (uint32_t row = 0; row < n; row++) {
        /* the entries found in stage 2 have left the nearest cache by now: fetch ahead */
        if (row + 8 < n) {
            const wentry *p = c->r_ent[row + 8];
            __builtin_prefetch(p);
            if (c->n_nodes)
                __builtin_prefetch((const char *)p + 64);
        }
        /* most rows fall in the slice used last: the key's slot in its index */
        const sslice *sl = c->s_last;
        if (row + 4 < n && sl && sl->idx_cap)
            __builtin_prefetch(&sl->idx[(uint32_t)c->r_hash[row + 4] & (sl->idx_cap - 1)]);
        uint8_t kind = b->kind[row];
        int sign = kind == WEIR_ROW_INSERT || kind == WEIR_ROW_UPDATE_AFTER ? 1 : -1;
        if (sign < 0 && !c->as.retractable)
            return WEIR_EUNSUPPORTED;
        int rc = sliced_route(c, c->r_ent[row], b, row, c->proc_domain && !c->proc_row_ts ? now_ms : b->ts[row], sign);
        if (rc)
            return rc;
    }
    return 0;
}

/* ---- firing ---- */

static int emit_table(wcore *c, sslice *s, weir_ts start, weir_ts end)
{
    if (c->emit_fused) {
        /* a chunk's records lie every rec_size bytes */
        for (uint32_t k0 = 0; k0 < s->n; k0 += SREC_CHUNK) {
            uint32_t m = s->n - k0 < SREC_CHUNK ? s->n - k0 : SREC_CHUNK;
            int rc = weir__emit_fused(c, srec_at(c, s, k0), m, c->rec_size, c->rec_key_off, 16, start, end);
            if (rc)
                return rc;
        }
        return 0;
    }
    if (c->emit_many) {
        /* the non-empty records, a chunk at a time, written column by column */
        const uint8_t *keys[SREC_CHUNK];
        const void *blks[SREC_CHUNK];
        for (uint32_t k0 = 0; k0 < s->n; k0 += SREC_CHUNK) {
            uint32_t m = 0, k1 = s->n - k0 < SREC_CHUNK ? s->n : k0 + SREC_CHUNK;
            for (uint32_t k = k0; k < k1; k++) {
                uint8_t *r = srec_at(c, s, k);
                keys[m] = r + c->rec_key_off;
                blks[m] = SREC_ACC(r);
                m += !weir__acc_empty(SREC_ACC(r));
            }
            int rc = weir__emit_many(c, keys, blks, m, start, end);
            if (rc)
                return rc;
        }
        return 0;
    }
    for (uint32_t k = 0; k < s->n; k++) {
        uint8_t *r = srec_at(c, s, k);
        if (!c->rec_key_off && k + 4 < s->n)
            __builtin_prefetch(SREC_E(srec_at(c, s, k + 4)));
        int rc = weir__emit_sliced(c, SREC_E(r), c->rec_key_off ? r + c->rec_key_off : NULL, start, end,
                                   SREC_ACC(r));
        if (rc)
            return rc;
    }
    return 0;
}

/* Merges every record of src into table dst, by key. */
static int table_merge(wcore *c, sslice *dst, const sslice *src)
{
    for (uint32_t k = 0; k < src->n; k++) {
        uint8_t *r = srec_at(c, src, k);
        uint8_t *d = srec_get(c, dst, SREC_E(r), SREC_H(r));
        if (!d)
            return WEIR_ENOMEM;
        int rc = weir__acc_merge(&c->as, SREC_ACC(d), SREC_ACC(r));
        if (rc)
            return rc;
    }
    return 0;
}

static int tumbling_fire(wcore *c, weir_ts W)
{
    while (c->s_head && c->s_head->end <= W) {
        sslice *s = c->s_head;
        int rc = emit_table(c, s, s->start, s->end);
        slice_release(c, s);
        if (rc || (rc = weir__wcore_tick(c)))
            return rc;
    }
    return 0;
}

/*
 * The running sum (hopping with integer COUNT/SUM only): c->run holds per
 * key the sum of the slices marked in_run, which are the live slices of the
 * window ending at run_end. Moving to the next window adds the slices that
 * enter it and subtracts those that leave, so a firing costs the records of
 * the slices that change plus its output, not size/slide merges per key.
 * Integer words wrap, so subtracting is exact.
 *
 * Records of the running table never move (but in run_compact), so a slice
 * record remembers the number of its key's running record (SREC_RUN, a
 * hint: checked against the record's entry and hash before use), and
 * folding it costs no probe. A record whose words return to zero stays
 * where it is, so the key finds it again when it comes back (a firing
 * skips it); c->run_zeros counts such records (late rows that reach a
 * running record through the pending path are not counted: a miscount only
 * moves a compaction, which recounts), and once they are more than half
 * the table run_compact drops them. It
 * also runs before key entries are swept, since a zero record may name an
 * idle entry and entries are recycled.
 */
static inline bool words_zero(const wcore *c, const void *blk)
{
    const int64_t *w = blk;
    uint64_t any = 0;
    for (uint32_t i = 0; i < c->as.size / 8; i++)
        any |= (uint64_t)w[i];
    return any == 0;
}

/* The running record that slice record r names, when it is still its key's; else NULL. */
static inline uint8_t *run_link(const wcore *c, const uint8_t *r)
{
    const sslice *t = c->run;
    uint32_t v = SREC_RUN(r);
    if (v >= t->n)
        return NULL;
    uint8_t *d = srec_at(c, t, v);
    return SREC_E(d) == SREC_E(r) && SREC_H(d) == SREC_H(r) ? d : NULL;
}

/* The running record of slice record r's key, created (zero) if missing. */
static uint8_t *run_rec(wcore *c, uint8_t *r)
{
    sslice *t = c->run;
    uint8_t *d = run_link(c, r);
    if (d)
        return d;
    uint32_t v = srec_find(c, t, SREC_E(r), SREC_H(r));
    if (v) {
        d = srec_at(c, t, v - 1);
        SREC_RUN(r) = v - 1;
    } else {
        if (!(d = srec_get(c, t, SREC_E(r), SREC_H(r))))
            return NULL;
        SREC_RUN(r) = t->n - 1;
        c->run_zeros++;
    }
    /* the key's next slice records start out knowing it */
    SREC_E(r)->run_idx = SREC_RUN(r);
    return d;
}

/* Drops the running records whose words are all zero (see above). */
static void run_compact(wcore *c)
{
    sslice *t = c->run;
    if (!t)
        return;
    uint32_t m = 0;
    for (uint32_t k = 0; k < t->n; k++) {
        uint8_t *r = srec_at(c, t, k);
        if (words_zero(c, SREC_ACC(r)))
            continue;
        if (m != k)
            memcpy(srec_at(c, t, m), r, c->rec_size);
        m++;
    }
    t->n = m;
    memset(t->idx, 0, t->idx_cap * sizeof *t->idx);
    const uint32_t mask = t->idx_cap - 1;
    for (uint32_t k = 0; k < m; k++) {
        uint32_t i = SREC_H(srec_at(c, t, k)) & mask;
        while (t->idx[i])
            i = (i + 1) & mask;
        t->idx[i] = k + 1;
    }
    c->run_zeros = 0;
    c->st.run_compactions++;
}

void weir__sliced_compact(wcore *c) { run_compact(c); }

/*
 * Adds (add) or subtracts every record of slice x to or from the running
 * sum (words wrap: unsigned arithmetic), keeping c->run_zeros. The usual
 * four words (COUNT(*) and one SUM) are spelled out.
 */
static inline int fold_recs(wcore *c, sslice *x, const bool add, const uint32_t nw)
{
    const sslice *t = c->run;
    for (uint32_t k = 0; k < x->n; k++) {
        /* fetch the running record of a record 4 on */
        if (k + 4 < x->n) {
            uint32_t v4 = SREC_RUN(srec_at(c, x, k + 4));
            if (v4 < t->n)
                __builtin_prefetch(srec_at(c, t, v4));
        }
        uint8_t *r = srec_at(c, x, k);
        uint8_t *d = run_link(c, r);
        if (!d && !(d = run_rec(c, r)))
            return WEIR_ENOMEM;
        uint64_t *dw = SREC_ACC(d);
        const uint64_t *sw = SREC_ACC(r);
        uint64_t before, after;
        if (nw == 4) {
            before = dw[0] | dw[1] | dw[2] | dw[3];
            if (add)
                dw[0] += sw[0], dw[1] += sw[1], dw[2] += sw[2], dw[3] += sw[3];
            else
                dw[0] -= sw[0], dw[1] -= sw[1], dw[2] -= sw[2], dw[3] -= sw[3];
            after = dw[0] | dw[1] | dw[2] | dw[3];
        } else {
            before = after = 0;
            for (uint32_t w = 0; w < nw; w++) {
                before |= dw[w];
                after |= dw[w] = add ? dw[w] + sw[w] : dw[w] - sw[w];
            }
        }
        if (!after && before)
            c->run_zeros++;
        else if (!before && after && c->run_zeros)
            c->run_zeros--;
    }
    return 0;
}

static int run_fold(wcore *c, sslice *x, bool add)
{
    const uint32_t nw = c->as.size / 8;
    int rc;
    if (nw == 4)
        rc = add ? fold_recs(c, x, true, 4) : fold_recs(c, x, false, 4);
    else
        rc = add ? fold_recs(c, x, true, nw) : fold_recs(c, x, false, nw);
    if (!rc)
        x->in_run = add;
    return rc;
}

/* Brings the running sum to the window ending at E. */
static int run_to(wcore *c, weir_ts E)
{
    weir_ts lo = weir__ts_sub(E, c->size);
    for (sslice *x = c->s_head; x && x->end <= E; x = x->next) {
        int rc = 0;
        if (x->in_run && x->end <= lo)
            rc = run_fold(c, x, false);
        else if (!x->in_run && x->end > lo)
            rc = run_fold(c, x, true);
        if (rc)
            return rc;
    }
    c->run_end = E;
    return 0;
}

/* Forgets the running sum (it is rebuilt from the slices at the next firing). */
static void run_reset(wcore *c)
{
    if (!c->run || c->run_end == WEIR_TS_MIN)
        return;
    c->run->n = 0;
    c->run_zeros = 0;
    memset(c->run->idx, 0, c->run->idx_cap * sizeof *c->run->idx);
    for (sslice *x = c->s_head; x; x = x->next)
        x->in_run = false;
    c->run_end = WEIR_TS_MIN;
}

static int hopping_fire(wcore *c, weir_ts after, weir_ts W)
{
    int rc = 0;
    weir_ts ga = weir__grid_after_cached(c, after, c->eoff, c->slide);
    for (;;) {
        sslice *s = c->s_head;
        while (s && s->last <= after)
            s = s->next;
        if (!s)
            break;
        weir_ts E = s->first > ga ? s->first : ga;
        if (E > W || E == WEIR_TS_MAX)
            break;
        weir_ts lo = weir__ts_sub(E, c->size);
        if (c->run) {
            rc = run_to(c, E);
            if (!rc)
                rc = emit_table(c, c->run, lo, E);
        } else if (!s->next || s->next->end > E) {
            /* the window holds one slice: its records are the result */
            rc = emit_table(c, s, lo, E);
        } else {
            sslice *t = c->tmp;
            for (sslice *x = s; x && x->end <= E && !rc; x = x->next)
                rc = table_merge(c, t, x);
            if (!rc)
                rc = emit_table(c, t, lo, E);
            /* reset the scratch table for the next window */
            if (c->as.any_generic)
                for (uint32_t k = 0; k < t->n; k++)
                    weir__acc_fini(&c->as, SREC_ACC(srec_at(c, t, k)));
            t->n = 0;
            memset(t->idx, 0, t->idx_cap * sizeof *t->idx);
        }
        if (rc || (rc = weir__wcore_tick(c)))
            return rc;
        after = E;
        ga = weir__ts_add(E, c->slide);
    }
    while (c->s_head && c->s_head->last <= W) {
        if (c->s_head->in_run && (rc = run_fold(c, c->s_head, false)))
            return rc;
        slice_release(c, c->s_head);
    }
    /* a firing reads the running table whole: zero records may not outnumber the others */
    if (c->run && c->run_zeros > 1024 && c->run_zeros > c->run->n / 2)
        run_compact(c);
    return 0;
}

static int cumulating_fire(wcore *c, weir_ts after, weir_ts W)
{
    int rc = 0;
    for (;;) {
        weir_ts ga = weir__grid_after_cached(c, after, c->off, c->slide);
        weir_ts E = WEIR_TS_MAX;
        if (c->cum) {
            weir_ts x = weir__ts_add(c->cum->end, c->slide);
            if (ga > x)
                x = ga;
            if (x <= weir__ts_add(c->cum->start, c->size))
                E = x;
        }
        if (c->s_head) {
            weir_ts x = c->s_head->end > ga ? c->s_head->end : ga;
            if (x < E)
                E = x;
        }
        if (E > W || E == WEIR_TS_MAX)
            return 0;
        weir_ts base = weir_window_align(E - 1, c->off, c->size);
        if (c->cum && c->cum->start != base) {
            slice_release(c, c->cum);
            c->cum = NULL;
        }
        while (c->s_head && c->s_head->end <= E) {
            sslice *h = c->s_head;
            if (h->end > base) {
                if (!c->cum && !(c->cum = slice_new(c, base, E)))
                    return WEIR_ENOMEM;
                if ((rc = table_merge(c, c->cum, h)))
                    return rc;
            }
            slice_release(c, h);
        }
        if (c->cum) {
            c->cum->end = E;
            rc = emit_table(c, c->cum, base, E);
            if (E >= weir__ts_add(base, c->size)) {
                slice_release(c, c->cum);
                c->cum = NULL;
            }
            if (rc)
                return rc;
        }
        if ((rc = weir__wcore_tick(c)))
            return rc;
        after = E;
    }
}

int weir__sliced_fire(wcore *c, weir_ts after, weir_ts W)
{
    switch (c->kind) {
    case WEIR_WINDOW_TUMBLING: return tumbling_fire(c, W);
    case WEIR_WINDOW_HOPPING: return hopping_fire(c, after, W);
    default: return cumulating_fire(c, after, W);
    }
}

/*
 * Processing-time windows: the runtime's processing-time timers are per key,
 * so the slice store asks for one at its next firing time under the key of
 * one of the slice's records.
 */
int weir__sliced_arm(wcore *c)
{
    weir_ts t = WEIR_TS_MAX;
    sslice *s = c->s_head;
    if (c->kind == WEIR_WINDOW_HOPPING) {
        while (s && s->last <= c->wm)
            s = s->next;
        if (s) {
            weir_ts ga = weir__grid_after_cached(c, c->wm, c->eoff, c->slide);
            t = s->first > ga ? s->first : ga;
        }
    } else if (c->kind == WEIR_WINDOW_CUMULATING && c->cum && c->cum->n) {
        s = c->cum;
        t = weir__ts_add(c->cum->end, c->slide);
        if (c->s_head && c->s_head->end < t)
            s = c->s_head, t = s->end;
    } else if (s) {
        t = s->end;
    }
    if (!s || !s->n || t == WEIR_TS_MAX || t == c->armed)
        return 0;
    c->armed = t;
    wentry *e = SREC_E(srec_at(c, s, 0));
    return c->io.proc_timer ? c->io.proc_timer(c->io.ud, e->key, e->key_len, e->hash, t) : 0;
}

/* ---- lifetime, persistence, stats ---- */

int weir__sliced_init(wcore *c)
{
    c->rec_size = 16 + c->as.size;
    if (c->key_fixed && c->key_max <= 32) {
        c->rec_key_off = c->rec_size;
        c->rec_size += (c->key_max + 7) & ~(size_t)7;
    }
    /* with allowed lateness every result also becomes a `mat` node: emitted one by one */
    c->emit_many = c->rec_key_off && c->L <= 0;
    c->emit_fused = c->emit_many && weir__emit_fused_ok(c);
    c->run_end = WEIR_TS_MIN;
    c->cum_ds = c->cum_de = WEIR_TS_MIN;
    if (c->kind == WEIR_WINDOW_HOPPING) {
        sslice *t = slice_new(c, 0, 0);
        if (!t)
            return WEIR_ENOMEM;
        t->scratch = true;
        if (c->as.all_int)
            c->run = t;
        else
            c->tmp = t;
        if (idx_grow(c, t))
            return WEIR_ENOMEM;
    }
    return 0;
}

void weir__sliced_destroy(wcore *c)
{
    while (c->s_head)
        slice_release(c, c->s_head);
    if (c->cum)
        slice_release(c, c->cum);
    c->cum = NULL;
    if (c->tmp) {
        slice_release(c, c->tmp);
        c->tmp = NULL;
    }
    if (c->run) {
        slice_release(c, c->run);
        c->run = NULL;
    }
    while (c->sfree) {
        sslice *s = c->sfree;
        c->sfree = s->next;
        slice_free_mem(s);
    }
    weir_free(c->s_ord);
    c->s_ord = NULL;
    c->s_ord_lo = c->s_ord_n = c->s_ord_cap = 0;
}

void weir__sliced_mark_moved(wcore *c)
{
    sslice *t = c->cum;
    if (!t) {
        c->cum_ds = c->cum_de = WEIR_TS_MIN;
        return;
    }
    if (t->start == c->cum_ds && t->end == c->cum_de)
        return;
    for (uint32_t k = 0; k < t->n; k++) {
        if (k + 8 < t->n)
            __builtin_prefetch(SREC_E(srec_at(c, t, k + 8)));
        weir__wentry_touch(c, SREC_E(srec_at(c, t, k)));
    }
    c->cum_ds = t->start;
    c->cum_de = t->end;
}

int weir__sliced_visit_key(wcore *c, wentry *e, weir__sliced_rec_fn fn, void *ud)
{
    uint32_t left = e->nrec, order = 0;
    for (sslice *s = c->s_head; s && left; s = s->next, order++) {
        uint32_t v = srec_find(c, s, e, weir__hash_slot(e->hash));
        if (!v)
            continue;
        left--;
        int rc = fn(ud, e, order, NODE_SLICE, s->start, s->end, SREC_ACC(srec_at(c, s, v - 1)));
        if (rc)
            return rc;
    }
    if (left && c->cum) {
        uint32_t v = srec_find(c, c->cum, e, weir__hash_slot(e->hash));
        if (v) {
            left--;
            int rc = fn(ud, e, order, NODE_CUM, c->cum->start, c->cum->end, SREC_ACC(srec_at(c, c->cum, v - 1)));
            if (rc)
                return rc;
        }
    }
    return left ? WEIR_ESTATE : 0;
}

void *weir__sliced_load_acc(wcore *c, wentry *e, int type, weir_ts start, weir_ts end)
{
    sslice *s;
    if (type == NODE_CUM) {
        if (!c->cum && !(c->cum = slice_new(c, start, end)))
            return NULL;
        if (c->cum->start != start)
            return NULL; /* state of two different periods: see docs/windows.md */
        if (end > c->cum->end)
            c->cum->end = end;
        s = c->cum;
    } else {
        run_reset(c);
        s = slice_find(c, end);
    }
    if (!s)
        return NULL;
    uint8_t *r = srec_get(c, s, e, weir__hash_slot(e->hash));
    return r ? SREC_ACC(r) : NULL;
}
