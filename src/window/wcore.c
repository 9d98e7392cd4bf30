/*
 * window/wcore.c - the window engine: per-key windows, slices and sessions,
 * triggers, firing, lateness and emission. The operator (window_op.c) feeds
 * it batches, watermarks and processing-time timers.
 *
 * Map of this file:
 *   1. pools (nodes, entries), the key table, the changed list
 *   2. the event-time wheel (which keys to visit when the watermark moves)
 *   3. emission (result rows, late rows) and pending accumulator updates
 *   4. triggers: on_record, fire_node
 *   5. routing a record: sliced tumbling / hopping / cumulating, per-window,
 *      sessions, global
 *   6. firing when the watermark advances: per kind
 *   7. the public entry points (create, process, advance, timers)
 *
 * Invariants:
 * - After advance(W) returns, every window with end <= W has had its
 *   on-time firing for every key (the wheel visits each key whose next
 *   firing or cleanup time is <= W). So "unfired" is exactly "end > W".
 * - A slice exists only while some unfired window contains it.
 * - Rows reach accumulators through the pending list, which is flushed
 *   before anything reads an accumulator or frees a node.
 * - Nothing on the per-record path allocates except when a new key, slice
 *   or window appears (pooled, amortised).
 */
#include <assert.h>

#include "util/hindex.h"
#include "window/wcore_impl.h"

/*
 * Entries carry weir_key_hash (XXH3-64) of their key, the hash keyed state
 * and timers use; inlining the same function saves a call per record.
 */
/* gcc 12 at -O3 misreads xxhash's inlined 16-byte reads as out of bounds. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#define XXH_INLINE_ALL
#include <xxhash.h>
#pragma GCC diagnostic pop

#define DUE_NONE INT64_MAX
#define NCHUNK 256


/* ------------------------------------------------------------------ */
/* 1. pools, key table, changed list                                    */
/* ------------------------------------------------------------------ */

int weir__wpush_ptr(void ***chunks, uint32_t *n, uint32_t *cap, void *p)
{
    if (*n == *cap) {
        uint32_t nc = *cap ? *cap * 2 : 16;
        void **v = weir_realloc(*chunks, nc * sizeof *v);
        if (!v)
            return WEIR_ENOMEM;
        *chunks = v;
        *cap = nc;
    }
    (*chunks)[(*n)++] = p;
    return 0;
}

/*
 * Nodes come from the free list, else from the newest pool block front to
 * back, as key entries do (entry_alloc): the blocks double up to
 * NBLOCK_MAX_BYTES, so a state of many sessions or windows sits in few
 * large blocks on huge pages, and a block is not threaded onto the free
 * list when it arrives (each node's memory is first written when taken).
 */
#define NBLOCK_MAX_BYTES ((size_t)8 << 20)

static wnode *node_take(wcore *c)
{
    wnode *n = c->nfree;
    if (n) {
        c->nfree = n->next;
        return n;
    }
    if (c->nbump == c->nend) {
        uint32_t k = c->nblock ? c->nblock * 2 : NCHUNK;
        if ((size_t)k * c->node_size > NBLOCK_MAX_BYTES && c->nblock)
            k = c->nblock;
        char *block = weir__bigmem_alloc((size_t)k * c->node_size, 64);
        if (!block)
            return NULL;
        if (weir__wpush_ptr(&c->nchunks, &c->n_nchunks, &c->cap_nchunks, block)) {
            weir__bigmem_free(block);
            return NULL;
        }
        c->nblock = k;
        c->nbump = block;
        c->nend = block + (size_t)k * c->node_size;
    }
    n = (wnode *)c->nbump;
    c->nbump += c->node_size;
    return n;
}

wnode *weir__wnode_alloc(wcore *c, int type, weir_ts start, weir_ts end)
{
    wnode *n = node_take(c);
    if (!n)
        return NULL;
    memset(n, 0, sizeof *n);
    n->type = (uint8_t)type;
    n->start = start;
    n->end = end;
    n->max_ts = WEIR_TS_MIN;
    n->due = DUE_NONE;
    weir__acc_init(&c->as, ACC(n));
    if (c->nblk > 1)
        weir__acc_init(&c->as, AUX(c, n));
    c->n_nodes++;
    return n;
}

void weir__wnode_free(wcore *c, wnode *n)
{
    if (!n)
        return;
    while (n->retract) {
        wnode *r = n->retract;
        n->retract = r->next;
        weir__wnode_free(c, r);
    }
    weir__acc_fini(&c->as, ACC(n));
    if (c->nblk > 1)
        weir__acc_fini(&c->as, AUX(c, n));
    n->next = c->nfree;
    c->nfree = n;
    c->n_nodes--;
}

/* Doubly linked main list of an entry. */
static void list_unlink(wentry *e, wnode *n)
{
    if (n->prev)
        n->prev->next = n->next;
    else
        e->head = n->next;
    if (n->next)
        n->next->prev = n->prev;
    else
        e->tail = n->prev;
    n->next = n->prev = NULL;
}

/* Inserts n after `after` (NULL: at the head). */
static void list_insert_after(wentry *e, wnode *after, wnode *n)
{
    n->prev = after;
    n->next = after ? after->next : e->head;
    if (n->next)
        n->next->prev = n;
    else
        e->tail = n;
    if (after)
        after->next = n;
    else
        e->head = n;
}

void weir__list_append(wentry *e, wnode *n) { list_insert_after(e, e->tail, n); }

/* Singly linked lists sorted by end (mats). */
static void slist_insert_by_end(wnode **head, wnode *n)
{
    wnode **pp = head;
    while (*pp && (*pp)->end <= n->end)
        pp = &(*pp)->next;
    n->next = *pp;
    n->prev = NULL;
    *pp = n;
}

/*
 * Key entries come from the free list, else from the newest pool block,
 * handed out front to back: a block is not cleared or threaded when it is
 * allocated, so each entry's memory is written once, when it is taken. The
 * blocks double (up to EBLOCK_MAX entries), so a state of many keys sits in
 * few large blocks, on huge pages (util/bigmem.h).
 */
#define EBLOCK_MAX 65536u /* entries: 8 MiB */

static wentry *entry_alloc(wcore *c)
{
    wentry *e = c->efree;
    if (e) {
        c->efree = e->free_next;
    } else {
        if (c->ebump == c->eend) {
            uint32_t n = c->eblock ? c->eblock * 2 : NCHUNK;
            if (n > EBLOCK_MAX)
                n = EBLOCK_MAX;
            /* at a 64-byte boundary, so an entry's first half is one cache line */
            wentry *block = weir__bigmem_alloc((size_t)n * sizeof *block, 64);
            if (!block)
                return NULL;
            if (weir__wpush_ptr(&c->echunks, &c->n_echunks, &c->cap_echunks, block)) {
                weir__bigmem_free(block);
                return NULL;
            }
            c->eblock = n;
            c->ebump = block;
            c->eend = block + n;
        }
        e = c->ebump++;
        e->flags = 0; /* never listed in the changed vector */
    }
    /* Keep E_IN_CHG: a recycled entry may still be listed in the changed vector. */
    uint8_t keep = e->flags & E_IN_CHG;
    memset(e, 0, sizeof *e);
    e->flags = keep;
    e->run_idx = UINT32_MAX;
    e->floor = WEIR_TS_MIN;
    e->wake = WEIR_TS_MAX;
    return e;
}

static void entry_release(wcore *c, wentry *e)
{
    if (e->key && e->key != e->key_inline) {
        weir_free(e->key);
        c->n_key_heap--;
    }
    e->key = NULL;
    e->flags &= E_IN_CHG;
    e->wake = WEIR_TS_MAX;
    e->free_next = c->efree;
    c->efree = e;
}

static int table_grow(wcore *c)
{
    uint32_t ncap = c->tab_cap ? c->tab_cap * 2 : 1024;
    wslot *nt = weir__bigmem_calloc((size_t)ncap * sizeof *nt, 64);
    if (!nt)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < c->tab_cap; i++) {
        if (!c->tab[i].e)
            continue;
        uint32_t j = weir__hash_slot(c->tab[i].hash) & (ncap - 1);
        while (nt[j].e)
            j = (j + 1) & (ncap - 1);
        nt[j] = c->tab[i];
    }
    weir__bigmem_free(c->tab);
    c->tab = nt;
    c->tab_cap = ncap;
    return 0;
}


/* Short keys (a BIGINT is 9 bytes) compare without a call. */
static inline bool key_eq(const uint8_t *a, const uint8_t *b, size_t len)
{
    while (len >= 8) {
        uint64_t x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        if (x != y)
            return false;
        a += 8, b += 8, len -= 8;
    }
    while (len--)
        if (*a++ != *b++)
            return false;
    return true;
}

/* weir__wentry_get's lookup for a 9-byte key, inlined into the record path: the entry, or NULL. */
static inline wentry *entry_find9(const wcore *c, const uint8_t *key, uint64_t hash)
{
    const uint32_t mask = c->tab_cap - 1;
    uint64_t k;
    memcpy(&k, key, 8);
    for (uint32_t i = weir__hash_slot(hash) & mask;; i = (i + 1) & mask) {
        wentry *p = c->tab[i].e;
        if (!p)
            return NULL;
        if (c->tab[i].hash != hash || p->key_len != 9)
            continue;
        uint64_t x;
        memcpy(&x, p->key, 8);
        if (x == k && p->key[8] == key[8])
            return p;
    }
}

wentry *weir__wentry_get(wcore *c, const uint8_t *key, size_t len, uint64_t hash, bool create)
{
    uint32_t mask = c->tab_cap - 1;
    uint32_t i = weir__hash_slot(hash) & mask;
    /* the slots hold the hashes: only an entry whose hash matches is read */
    for (wentry *p; (p = c->tab[i].e); i = (i + 1) & mask)
        if (c->tab[i].hash == hash && p->key_len == len && key_eq(p->key, key, len))
            return p;
    if (!create)
        return NULL;
    if ((c->n_live + 1) * 2 > c->tab_cap) {
        if (table_grow(c))
            return NULL;
        mask = c->tab_cap - 1;
        i = weir__hash_slot(hash) & mask;
        while (c->tab[i].e)
            i = (i + 1) & mask;
    }
    wentry *e = entry_alloc(c);
    if (!e)
        return NULL;
    if (len <= sizeof e->key_inline) {
        e->key = e->key_inline;
    } else if (!(e->key = weir_malloc(len))) {
        entry_release(c, e);
        return NULL;
    } else {
        c->n_key_heap++;
    }
    memcpy(e->key, key, len);
    e->key_len = (uint32_t)len;
    e->hash = hash;
    e->flags |= E_LIVE | E_IDLE;
    c->tab[i].hash = hash;
    c->tab[i].e = e;
    c->n_live++;
    c->n_idle++;
    return e;
}

void weir__wentry_changed(wcore *c, wentry *e)
{
    if (e->flags & E_CHANGED)
        return;
    e->flags |= E_CHANGED;
    if (e->flags & E_IN_CHG)
        return;
    if (c->chg_n == c->chg_cap) {
        uint32_t nc = c->chg_cap ? c->chg_cap * 2 : 1024;
        wentry **v = weir_realloc(c->chg, nc * sizeof *v);
        if (!v) {
            c->chg_lost = true; /* the entry stays marked; drain_changes rescans the table */
            return;
        }
        c->chg = v;
        c->chg_cap = nc;
    }
    c->chg[c->chg_n++] = e;
    e->flags |= E_IN_CHG;
}

/*
 * Drops key entries that hold nothing and have nothing in keyed state, so
 * a stream of ever-new keys (sessions) does not grow the table. Sweeps run
 * only when idle entries clearly outnumber busy ones, and an entry must be
 * found idle by two sweeps in a row to go (second chance), so keys that
 * merely pause between windows are not dropped and re-created. Entries are
 * pooled, so stale wheel references stay harmless (their wake time no
 * longer matches).
 */
static int maybe_sweep(wcore *c)
{
    uint32_t busy = c->n_live - c->n_idle;
    if (c->n_idle < 16384 || c->n_idle < 2 * busy)
        return 0;
    if (c->mode == MODE_SLICED)
        weir__sliced_compact(c);
    wslot *old = c->tab;
    uint32_t cap = c->tab_cap;
    wslot *nt = weir__bigmem_calloc((size_t)cap * sizeof *nt, 64);
    if (!nt)
        return 0; /* sweeping is an optimisation; try again later */
    uint32_t live = 0, idle = 0;
    for (uint32_t i = 0; i < cap; i++) {
        wentry *e = old[i].e;
        if (!e)
            continue;
        if ((e->flags & E_IDLE) && !(e->flags & E_IN_STATE)) {
            if (e->flags & E_STALE) {
                entry_release(c, e);
                continue;
            }
            e->flags |= E_STALE;
        }
        uint32_t j = weir__hash_slot(e->hash) & (cap - 1);
        while (nt[j].e)
            j = (j + 1) & (cap - 1);
        nt[j] = old[i];
        live++;
        if (e->flags & E_IDLE)
            idle++;
    }
    weir__bigmem_free(old);
    c->tab = nt;
    c->n_live = live;
    c->n_idle = idle;
    return 0;
}

/* ------------------------------------------------------------------ */
/* 2. the event-time wheel                                              */
/* ------------------------------------------------------------------ */

static void heap_swap(wbucket **h, uint32_t a, uint32_t b)
{
    wbucket *t = h[a];
    h[a] = h[b];
    h[b] = t;
}

static int heap_push(wcore *c, wbucket *b)
{
    if (c->n_heap == c->cap_heap) {
        uint32_t nc = c->cap_heap ? c->cap_heap * 2 : 64;
        wbucket **v = weir_realloc(c->heap, nc * sizeof *v);
        if (!v)
            return WEIR_ENOMEM;
        c->heap = v;
        c->cap_heap = nc;
    }
    uint32_t i = c->n_heap++;
    c->heap[i] = b;
    while (i > 0) {
        uint32_t p = (i - 1) / 2;
        if (c->heap[p]->t <= c->heap[i]->t)
            break;
        heap_swap(c->heap, p, i);
        i = p;
    }
    return 0;
}

static wbucket *heap_pop(wcore *c)
{
    wbucket *top = c->heap[0];
    c->heap[0] = c->heap[--c->n_heap];
    uint32_t i = 0;
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < c->n_heap && c->heap[l]->t < c->heap[m]->t)
            m = l;
        if (r < c->n_heap && c->heap[r]->t < c->heap[m]->t)
            m = r;
        if (m == i)
            break;
        heap_swap(c->heap, i, m);
        i = m;
    }
    return top;
}

static uint32_t bslot(weir_ts t) { return (uint32_t)(((uint64_t)t * 0x9E3779B97F4A7C15ull) >> 58); }

static int request_proc(wcore *c, wentry *e, int64_t t)
{
    if (!c->io.proc_timer || t == DUE_NONE)
        return 0;
    return c->io.proc_timer(c->io.ud, e->key, e->key_len, e->hash, t);
}

/* Makes sure e is visited when the watermark reaches t (or earlier). */
static int wheel_add(wcore *c, wentry *e, weir_ts t)
{
    /* WEIR_TS_MAX needs no bucket: the final watermark visits every key. */
    if (t >= e->wake || t == WEIR_TS_MAX)
        return 0;
    uint32_t s = bslot(t);
    wbucket *b = c->bcache[s];
    if (!b || b->t != t) {
        if (c->bfree) {
            b = c->bfree;
            c->bfree = b->free_next;
        } else if (!(b = weir_calloc(1, sizeof *b))) {
            return WEIR_ENOMEM;
        }
        b->t = t;
        b->n = 0;
        if (heap_push(c, b)) {
            b->free_next = c->bfree;
            c->bfree = b;
            return WEIR_ENOMEM;
        }
        c->bcache[s] = b;
    }
    if (b->n == b->cap) {
        uint32_t nc = b->cap ? b->cap * 2 : 16;
        wentry **v = weir_realloc(b->v, nc * sizeof *v);
        if (!v)
            return WEIR_ENOMEM;
        b->v = v;
        b->cap = nc;
    }
    b->v[b->n++] = e;
    e->wake = t;
    if (c->proc_domain)
        return request_proc(c, e, t);
    return 0;
}

/* wheel_add for the per-record path: its first test inlined (the key's wake-up time seldom moves earlier) */
static inline int wheel_note(wcore *c, wentry *e, weir_ts t)
{
    if (t >= e->wake || t == WEIR_TS_MAX)
        return 0;
    return wheel_add(c, e, t);
}

/* ------------------------------------------------------------------ */
/* 3. emission and pending accumulator updates                          */
/* ------------------------------------------------------------------ */

static int flush_out(wcore *c)
{
    int rc = 0;
    if (c->out->n_rows) {
        rc = c->io.emit ? c->io.emit(c->io.ud, c->out) : 0;
        weir_batch_reset(c->out);
    }
    return rc;
}

static int flush_late(wcore *c)
{
    int rc = 0;
    if (c->late && c->late->n_rows) {
        rc = c->io.emit_late ? c->io.emit_late(c->io.ud, c->late) : 0;
        weir_batch_reset(c->late);
    }
    return rc;
}

int weir__wcore_flush(weir__wcore *c)
{
    int rc = flush_out(c);
    int rc2 = flush_late(c);
    return rc ? rc : rc2;
}

/* Writes the key columns of e into row r of out, decoding weir_key_encode's format. */
static int put_key(wcore *c, const uint8_t *p, weir_batch *out, uint32_t r)
{
    for (uint32_t k = 0; k < c->key.n; k++) {
        const keycol *kc = &c->kcols[k];
        if (!*p++) {
            weir_batch_set_null(out, k, r);
            continue;
        }
        if (kc->is_string) {
            uint32_t len;
            memcpy(&len, p, 4);
            int rc = weir_batch_set_str(out, k, r, (const char *)p + 4, len);
            if (rc)
                return rc;
            p += 4 + len;
        } else {
            char *dst = (char *)out->cols[k].data + (size_t)r * kc->width;
            switch (kc->width) {
            case 8: memcpy(dst, p, 8); break;
            case 4: memcpy(dst, p, 4); break;
            default: memcpy(dst, p, kc->width); break;
            }
            p += kc->width;
        }
        if (!out->cols[k].all_valid)
            out->cols[k].valid[r >> 3] |= (uint8_t)(1u << (r & 7));
    }
    return 0;
}

static inline void set_valid(weir_batch *b, uint32_t col, uint32_t row)
{
    weir_column *c = &b->cols[col];
    if (!c->all_valid)
        c->valid[row >> 3] |= (uint8_t)(1u << (row & 7));
}

static int emit_row(wcore *c, const uint8_t *key, weir_ts start, weir_ts end, weir_ts row_ts,
                    const void *blk, weir_row_kind kind, bool global)
{
    weir_batch *o = c->out;
    if (weir_batch_full(o)) {
        int rc = flush_out(c);
        if (rc)
            return rc;
    }
    uint32_t r = o->n_rows++;
    int rc = put_key(c, key, o, r);
    if (rc) {
        o->n_rows--;
        return rc;
    }
    if (global) {
        weir_batch_set_null(o, c->col_ws, r);
        weir_batch_set_null(o, c->col_we, r);
        if (c->col_wt >= 0)
            weir_batch_set_null(o, (uint32_t)c->col_wt, r);
    } else {
        WEIR_COL_I64(o, c->col_ws)[r] = start;
        set_valid(o, c->col_ws, r);
        WEIR_COL_I64(o, c->col_we)[r] = end;
        set_valid(o, c->col_we, r);
        if (c->col_wt >= 0) {
            WEIR_COL_I64(o, (uint32_t)c->col_wt)[r] = end - 1;
            set_valid(o, (uint32_t)c->col_wt, r);
        }
    }
    rc = weir__acc_result(&c->as, blk, o, c->col_agg0, r);
    if (rc) {
        o->n_rows--;
        return rc;
    }
    o->ts[r] = row_ts;
    o->kind[r] = (uint8_t)kind;
    c->st.fired++;
    return 0;
}

static weir_ts node_row_ts(const wnode *n)
{
    return n->type == NODE_GLOBAL ? n->max_ts : n->end - 1;
}

int weir__emit_late_row(wcore *c, const weir_batch *b, uint32_t row, weir_ts ts)
{
    c->st.late++;
    if (c->io.late_counter)
        weir_op_counter_add(c->io.late_counter, 1);
    if (!c->io.emit_late || !c->late)
        return 0;
    weir_batch *l = c->late;
    if (weir_batch_full(l)) {
        int rc = flush_late(c);
        if (rc)
            return rc;
    }
    uint32_t r = l->n_rows++;
    for (uint32_t k = 0; k < c->n_in_cols; k++) {
        if (weir_batch_is_null(b, k, row)) {
            weir_batch_set_null(l, k, r);
            continue;
        }
        weir_type_id id = b->cols[k].type.id;
        if (weir_type_is_varlen(id)) {
            uint32_t len;
            const char *s = weir_batch_str(b, k, row, &len);
            int rc = weir_batch_set_str(l, k, r, s, len);
            if (rc) {
                l->n_rows--;
                return rc;
            }
        } else {
            size_t w = weir_type_size(b->cols[k].type);
            memcpy((char *)l->cols[k].data + (size_t)r * w, (const char *)b->cols[k].data + (size_t)row * w, w);
        }
        weir_batch_set_valid(l, k, r);
    }
    WEIR_COL_I64(l, c->n_in_cols)[r] = c->wm;
    weir_batch_set_valid(l, c->n_in_cols, r);
    WEIR_COL_I64(l, c->n_in_cols + 1)[r] = weir__ts_sub(c->wm, ts);
    weir_batch_set_valid(l, c->n_in_cols + 1, r);
    l->ts[r] = ts;
    l->kind[r] = b->kind[row];
    return 0;
}

int weir__pend_flush(wcore *c)
{
    if (!c->pend_n)
        return 0;
    c->st.slice_updates += c->pend_n;
    int rc = weir__acc_add_many(&c->as, c->pend_blk, c->pend_row, c->pend_signed ? c->pend_sign : NULL,
                                c->pend_n, c->pend_b);
    c->pend_n = 0;
    c->pend_signed = false;
    return rc;
}

/* ------------------------------------------------------------------ */
/* 4. triggers                                                          */
/* ------------------------------------------------------------------ */

static weir_ts cleanup_time(const wcore *c, const wnode *n) { return weir__ts_add(n->end, c->L); }

static int add_retraction(wcore *c, wnode *dst, const wnode *src)
{
    wnode *r = weir__wnode_alloc(c, NODE_RETRACT, src->start, src->end);
    if (!r)
        return WEIR_ENOMEM;
    int rc = weir__acc_copy(&c->as, ACC(r), AUX(c, src));
    r->next = dst->retract;
    dst->retract = r;
    return rc;
}

/*
 * Fires a window that owns its accumulator (not a slice combination).
 * Emits nothing when nothing arrived since the last firing.
 */
static int fire_node(wcore *c, wentry *e, wnode *n)
{
    if (!(n->flags & F_DIRTY) && !n->retract)
        return 0;
    n->flags &= (uint8_t)~F_DIRTY;
    n->count = 0;
    n->due = DUE_NONE;
    weir__wentry_changed(c, e);
    bool global = n->type == NODE_GLOBAL;
    int rc;
    while (n->retract) {
        wnode *r = n->retract;
        rc = emit_row(c, e->key, r->start, r->end, r->end - 1, ACC(r), WEIR_ROW_DELETE, false);
        if (rc)
            return rc;
        n->retract = r->next;
        r->next = NULL;
        weir__wnode_free(c, r);
    }
    if (weir__acc_empty(ACC(n))) {
        /* Retracted input emptied the window: its earlier result goes away. */
        if (n->flags & F_PREV) {
            rc = emit_row(c, e->key, n->start, n->end, node_row_ts(n), AUX(c, n), WEIR_ROW_DELETE, global);
            n->flags &= (uint8_t)~F_PREV;
            return rc;
        }
        return 0;
    }
    if (c->accm == WEIR_ACC_RETRACTING) {
        if (n->flags & F_PREV) {
            rc = emit_row(c, e->key, n->start, n->end, node_row_ts(n), AUX(c, n), WEIR_ROW_UPDATE_BEFORE, global);
            if (!rc)
                rc = emit_row(c, e->key, n->start, n->end, node_row_ts(n), ACC(n), WEIR_ROW_UPDATE_AFTER, global);
        } else {
            rc = emit_row(c, e->key, n->start, n->end, node_row_ts(n), ACC(n), WEIR_ROW_INSERT, global);
        }
        if (!rc)
            rc = weir__acc_copy(&c->as, AUX(c, n), ACC(n));
        n->flags |= F_PREV;
        return rc;
    }
    rc = emit_row(c, e->key, n->start, n->end, node_row_ts(n), ACC(n), WEIR_ROW_INSERT, global);
    if (c->purge)
        weir__acc_reset(&c->as, ACC(n));
    return rc;
}

/* A record went into window node n (late: n->end <= W). May fire. */
static int on_record(wcore *c, wentry *e, wnode *n, bool late)
{
    n->flags |= F_DIRTY;
    n->count++;
    bool fire = false;
    int rc = 0;
    switch (c->base) {
    case WEIR_TRIGGER_COUNT:
        fire = n->count >= c->trig_count;
        break;
    case WEIR_TRIGGER_PROCESSING_TIME:
        if (c->now >= n->end) {
            fire = true;
        } else if (!(n->flags & F_PROCREQ)) {
            n->flags |= F_PROCREQ;
            rc = request_proc(c, e, n->end);
        }
        break;
    default:
        if (!late) {
            if (c->early_count && n->count >= c->early_count)
                fire = true;
            else if (c->early_ms > 0 && n->due == DUE_NONE) {
                n->due = c->now + c->early_ms;
                rc = request_proc(c, e, n->due);
            }
        } else if (c->base == WEIR_TRIGGER_EVENT_TIME) {
            if (c->late_ms <= 0)
                fire = true;
            else if (n->due == DUE_NONE) {
                n->due = c->now + c->late_ms;
                rc = request_proc(c, e, n->due);
            }
        }
        break;
    }
    if (rc)
        return rc;
    if (fire) {
        if ((rc = weir__pend_flush(c)))
            return rc;
        return fire_node(c, e, n);
    }
    return 0;
}

/*
 * on_record for the per-record path: an on-time record under the event-time
 * trigger without early firings only marks the window (inlined).
 */
static inline int on_record_fast(wcore *c, wentry *e, wnode *n, bool late)
{
    if (!late && c->base == WEIR_TRIGGER_EVENT_TIME && !c->early_count && c->early_ms <= 0) {
        n->flags |= F_DIRTY;
        n->count++;
        return 0;
    }
    return on_record(c, e, n, late);
}

/*
 * Sliced mode: the on-time result of window [start, end) combined from
 * slices into blk. With allowed lateness the window then lives on as a
 * `mat` node that late records update.
 */
int weir__emit_sliced(wcore *c, wentry *e, const uint8_t *key, weir_ts start, weir_ts end, const void *blk)
{
    if (weir__acc_empty(blk))
        return 0;
    int rc = emit_row(c, key ? key : e->key, start, end, end - 1, blk, WEIR_ROW_INSERT, false);
    if (rc || c->L <= 0)
        return rc;
    wnode *m = weir__wnode_alloc(c, NODE_WIN, start, end);
    if (!m)
        return WEIR_ENOMEM;
    if (!c->purge)
        rc = weir__acc_copy(&c->as, ACC(m), blk);
    if (!rc && c->accm == WEIR_ACC_RETRACTING) {
        rc = weir__acc_copy(&c->as, AUX(c, m), blk);
        m->flags |= F_PREV;
    }
    slist_insert_by_end(&e->mats, m);
    weir__entry_busy(c, e);
    weir__wentry_changed(c, e);
    int rc2 = wheel_add(c, e, cleanup_time(c, m));
    return rc ? rc : rc2;
}

/* Marks rows [r0, r0 + n) of col valid (nothing to do for an all-valid column). */
static void set_valid_range(weir_batch *b, uint32_t col, uint32_t r0, uint32_t n)
{
    weir_column *c = &b->cols[col];
    if (c->all_valid)
        return;
    for (uint32_t r = r0; r < r0 + n; r++)
        c->valid[r >> 3] |= (uint8_t)(1u << (r & 7));
}

int weir__emit_many(wcore *c, const uint8_t *const *keys, const void *const *blks, uint32_t n, weir_ts start,
                    weir_ts end)
{
    while (n) {
        weir_batch *o = c->out;
        if (weir_batch_full(o)) {
            int rc = flush_out(c);
            if (rc)
                return rc;
        }
        const uint32_t r0 = o->n_rows, m = n < o->capacity - r0 ? n : o->capacity - r0;
        if (c->key.n == 1) {
            const uint32_t w = c->kcols[0].width;
            char *dst = (char *)o->cols[0].data + (size_t)r0 * w;
            set_valid_range(o, 0, r0, m);
            for (uint32_t i = 0; i < m; i++) {
                if (!keys[i][0])
                    weir_batch_set_null(o, 0, r0 + i);
                else if (w == 8)
                    memcpy(dst + (size_t)i * 8, keys[i] + 1, 8);
                else
                    memcpy(dst + (size_t)i * w, keys[i] + 1, w);
            }
        } else {
            /* a NULL key column takes one byte: the offsets of later columns vary by row */
            for (uint32_t i = 0; i < m; i++) {
                int rc = put_key(c, keys[i], o, r0 + i);
                if (rc)
                    return rc;
            }
        }
        int64_t *ws = WEIR_COL_I64(o, c->col_ws) + r0, *we = WEIR_COL_I64(o, c->col_we) + r0;
        int64_t *wt = c->col_wt >= 0 ? WEIR_COL_I64(o, (uint32_t)c->col_wt) + r0 : NULL;
        for (uint32_t i = 0; i < m; i++) {
            ws[i] = start;
            we[i] = end;
            o->ts[r0 + i] = end - 1;
        }
        if (wt)
            for (uint32_t i = 0; i < m; i++)
                wt[i] = end - 1;
        memset(o->kind + r0, WEIR_ROW_INSERT, m);
        set_valid_range(o, c->col_ws, r0, m);
        set_valid_range(o, c->col_we, r0, m);
        if (wt)
            set_valid_range(o, (uint32_t)c->col_wt, r0, m);
        int rc = weir__acc_result_many(&c->as, blks, m, o, c->col_agg0, r0);
        if (rc)
            return rc;
        o->n_rows = r0 + m;
        c->st.fired += m;
        keys += m, blks += m, n -= m;
    }
    return 0;
}

/*
 * The fused emitter (c->emit_fused): one BIGINT-like key column of 8 bytes,
 * integer COUNT/SUM results into BIGINT (or DECIMAL) columns, no allowed
 * lateness. Emitting a firing is then one pass over the records writing
 * each output column directly, instead of gathering pointers and running a
 * loop per column over them; a record with a NULL key or a NULL sum takes
 * weir__emit_many's general path.
 */
bool weir__emit_fused_ok(const wcore *c)
{
    if (c->key.n != 1 || c->kcols[0].width != 8 || c->kcols[0].is_string || !c->as.all_int || c->as.n > 8)
        return false;
    for (uint32_t i = 0; i < c->as.n; i++) {
        const weir__accfield *f = &c->as.f[i];
        weir_type_id id = f->out_type.id;
        bool sum = f->kind == WEIR__ACC_SUM_I32 || f->kind == WEIR__ACC_SUM_I64;
        if (id != WEIR_TYPE_BIGINT && !(sum && id == WEIR_TYPE_DECIMAL))
            return false;
        if (f->off % 8)
            return false;
    }
    return true;
}

/* d[0..n) = v, four at a time (-O2 leaves such loops scalar) */
static inline void fill_i64(int64_t *restrict d, uint32_t n, int64_t v)
{
    const int64_t q[4] = {v, v, v, v};
    uint32_t i = 0;
    for (; i + 4 <= n; i += 4)
        memcpy(d + i, q, sizeof q);
    for (; i < n; i++)
        d[i] = v;
}

/*
 * The rows of weir__emit_fused from records *k.. into at most room rows;
 * stops after a record that needs the general path (*odd). Inlined with a
 * constant nf for the usual two aggregates, so the field loops unroll.
 */
static inline uint32_t fused_rows(const uint8_t *recs, uint32_t n, uint32_t *kp, size_t stride, size_t key_off,
                                  size_t acc_off, uint32_t nf, const uint32_t *woff, const uint32_t *chk, int64_t *kc,
                                  int64_t *const *dst, uint32_t room, const uint8_t **odd)
{
    /* local copies: the stores into the batch must not make the compiler reload them */
    uint32_t wo[8], ck[8];
    for (uint32_t i = 0; i < nf; i++)
        wo[i] = woff[i], ck[i] = chk[i];
    const uint32_t w0 = wo[0], w1 = nf > 1 ? wo[1] : 0, c0 = ck[0], c1 = nf > 1 ? ck[1] : 0;
    int64_t *d0 = dst[0], *d1 = nf > 1 ? dst[1] : NULL;
    uint32_t m = 0, k = *kp;
    for (const uint8_t *r = recs + (size_t)k * stride; k < n && m < room; k++, r += stride) {
        const int64_t *a = (const int64_t *)(r + acc_off);
        if (!WEIR__ACC_ROWS(a))
            continue;
        /* a NULL key, or a SUM over NULLs only (its non-NULL count is zero) */
        bool plain = r[key_off] != 0;
        if (nf == 2) {
            plain &= (a[c0] != 0) & (a[c1] != 0);
        } else {
            for (uint32_t i = 0; i < nf; i++)
                plain &= a[ck[i]] != 0;
        }
        if (!plain) {
            *odd = r;
            k++;
            break;
        }
        memcpy(&kc[m], r + key_off + 1, 8);
        if (nf == 2) {
            d0[m] = a[w0];
            d1[m] = a[w1];
        } else {
            for (uint32_t i = 0; i < nf; i++)
                dst[i][m] = a[wo[i]];
        }
        m++;
    }
    *kp = k;
    return m;
}

int weir__emit_fused(wcore *c, const uint8_t *recs, uint32_t n, size_t stride, size_t key_off, size_t acc_off,
                     weir_ts start, weir_ts end)
{
    const uint32_t nf = c->as.n;
    /* per field: its result word, and a word that must be non-zero (a SUM's non-NULL count; the rows for COUNT) */
    uint32_t woff[8], chk[8];
    for (uint32_t i = 0; i < nf; i++) {
        bool sum = c->as.f[i].kind != WEIR__ACC_COUNT_STAR && c->as.f[i].kind != WEIR__ACC_COUNT;
        woff[i] = c->as.f[i].off / 8;
        chk[i] = sum ? woff[i] + 1 : 0;
    }
    uint32_t k = 0;
    while (k < n) {
        weir_batch *o = c->out;
        if (weir_batch_full(o)) {
            int rc = flush_out(c);
            if (rc)
                return rc;
        }
        const uint32_t r0 = o->n_rows, room = o->capacity - r0;
        int64_t *kc = WEIR_COL_I64(o, 0) + r0;
        int64_t *dst[8];
        for (uint32_t i = 0; i < nf; i++)
            dst[i] = WEIR_COL_I64(o, c->col_agg0 + i) + r0;
        const uint8_t *odd = NULL; /* a record for the general path */
        const uint32_t m =
            nf == 2 ? fused_rows(recs, n, &k, stride, key_off, acc_off, 2, woff, chk, kc, dst, room, &odd)
                    : fused_rows(recs, n, &k, stride, key_off, acc_off, nf, woff, chk, kc, dst, room, &odd);
        /* the columns every row of a firing shares: one loop each, so they vectorize */
        fill_i64(WEIR_COL_I64(o, c->col_ws) + r0, m, start);
        fill_i64(WEIR_COL_I64(o, c->col_we) + r0, m, end);
        fill_i64(o->ts + r0, m, end - 1);
        if (c->col_wt >= 0) {
            fill_i64(WEIR_COL_I64(o, (uint32_t)c->col_wt) + r0, m, end - 1);
            set_valid_range(o, (uint32_t)c->col_wt, r0, m);
        }
        memset(o->kind + r0, WEIR_ROW_INSERT, m);
        set_valid_range(o, 0, r0, m);
        set_valid_range(o, c->col_ws, r0, m);
        set_valid_range(o, c->col_we, r0, m);
        for (uint32_t i = 0; i < nf; i++)
            set_valid_range(o, c->col_agg0 + i, r0, m);
        o->n_rows = r0 + m;
        c->st.fired += m;
        if (odd) {
            const uint8_t *key = odd + key_off;
            const void *blk = odd + acc_off;
            int rc = weir__emit_many(c, &key, &blk, 1, start, end);
            if (rc)
                return rc;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* 5. routing records                                                   */
/* ------------------------------------------------------------------ */

/* Finds or creates the fired-window node ending at end in e->mats. */
static wnode *mat_get(wcore *c, wentry *e, weir_ts start, weir_ts end)
{
    for (wnode *m = e->mats; m && m->end <= end; m = m->next)
        if (m->end == end)
            return m;
    wnode *m = weir__wnode_alloc(c, NODE_WIN, start, end);
    if (!m)
        return NULL;
    slist_insert_by_end(&e->mats, m);
    weir__entry_busy(c, e);
    return m;
}

/* A late-accepted record for the fired window [start, end) (sliced mode). */
int weir__route_mat(wcore *c, wentry *e, uint32_t row, weir_ts start, weir_ts end, int sign)
{
    wnode *m = mat_get(c, e, start, end);
    if (!m)
        return WEIR_ENOMEM;
    int rc = weir__pend_add(c, ACC(m), row, sign);
    if (!rc)
        rc = wheel_add(c, e, cleanup_time(c, m));
    if (!rc)
        rc = on_record(c, e, m, true);
    return rc;
}

/* Per-window mode: one node per (key, window), ordered by end. */
static wnode *win_get(wcore *c, wentry *e, weir_ts start, weir_ts end)
{
    wnode *n = e->tail;
    while (n && n->end > end)
        n = n->prev;
    if (n && n->end == end)
        return n;
    wnode *w = weir__wnode_alloc(c, NODE_WIN, start, end);
    if (!w)
        return NULL;
    list_insert_after(e, n, w);
    weir__entry_busy(c, e);
    return w;
}

static weir_ts node_wake(const wcore *c, const wnode *n)
{
    if (c->base == WEIR_TRIGGER_EVENT_TIME && n->end > c->wm)
        return n->end;
    return cleanup_time(c, n);
}

static int route_windows(wcore *c, wentry *e, const weir_batch *b, uint32_t row, weir_ts ts, int sign)
{
    /* The windows containing ts, oldest first. */
    weir_ts s0, step, last;
    if (c->kind == WEIR_WINDOW_CUMULATING) {
        s0 = weir_window_align(ts, c->off, c->size);
        step = c->slide;
        last = weir__ts_add(s0, c->size);
    } else {
        /* starts on the slide grid in (ts - size, ts] */
        s0 = weir__grid_after(weir__ts_sub(ts, c->size), c->off, c->slide);
        step = c->slide;
        last = weir__ts_add(weir_window_align(ts, c->off, c->slide), c->size);
    }
    bool accepted = false;
    int rc;
    const weir_ts W = c->wm;
    if (c->kind == WEIR_WINDOW_CUMULATING) {
        weir_ts first = weir__ts_add(weir_window_align(ts, c->off, step), step);
        for (weir_ts E = first;; E = weir__ts_add(E, step)) {
            if (weir__ts_add(E, c->L) > W) {
                wnode *n = win_get(c, e, s0, E);
                if (!n)
                    return WEIR_ENOMEM;
                accepted = true;
                if ((rc = weir__pend_add(c, ACC(n), row, sign)) || (rc = wheel_add(c, e, node_wake(c, n))) ||
                    (rc = on_record(c, e, n, E <= W)))
                    return rc;
            }
            if (E >= last)
                break;
        }
    } else {
        for (weir_ts s = s0;; s = weir__ts_add(s, step)) {
            weir_ts E = weir__ts_add(s, c->size);
            if (weir__ts_add(E, c->L) > W) {
                wnode *n = win_get(c, e, s, E);
                if (!n)
                    return WEIR_ENOMEM;
                accepted = true;
                if ((rc = weir__pend_add(c, ACC(n), row, sign)) || (rc = wheel_add(c, e, node_wake(c, n))) ||
                    (rc = on_record(c, e, n, E <= W)))
                    return rc;
            }
            if (E >= last)
                break;
        }
    }
    if (!accepted)
        return weir__emit_late_row(c, b, row, ts);
    weir__wentry_changed(c, e);
    return 0;
}

/* Session bounds change: an emitted result for the old bounds must be retracted. */
static inline int session_set_bounds(wcore *c, wentry *e, wnode *n, weir_ts start, weir_ts end)
{
    if (start == n->start && end == n->end)
        return 0;
    if (n->flags & F_PREV) {
        int rc = add_retraction(c, n, n);
        if (rc)
            return rc;
        n->flags &= (uint8_t)~F_PREV;
    }
    n->flags &= (uint8_t)~F_PROCREQ;
    n->end = end;
    if (start != n->start) {
        n->start = start;
        /* keep the list ordered by start */
        wnode *p = n->prev;
        if (p && p->start > start) {
            list_unlink(e, n);
            while (p && p->start > start)
                p = p->prev;
            list_insert_after(e, p, n);
        }
    }
    return 0;
}

/* Merges session src into dst and frees src. */
static int session_absorb(wcore *c, wentry *e, wnode *dst, wnode *src)
{
    int rc = 0;
    if (src->flags & F_PREV)
        rc = add_retraction(c, dst, src);
    while (!rc && src->retract) {
        wnode *r = src->retract;
        src->retract = r->next;
        r->next = dst->retract;
        dst->retract = r;
    }
    if (!rc)
        rc = weir__acc_merge(&c->as, ACC(dst), ACC(src));
    dst->count += src->count;
    dst->flags |= src->flags & F_DIRTY;
    if (src->due < dst->due)
        dst->due = src->due;
    if (src->max_ts > dst->max_ts)
        dst->max_ts = src->max_ts;
    list_unlink(e, src);
    weir__wnode_free(c, src);
    return rc;
}

static bool session_fits(const wcore *c, weir_ts start, weir_ts max_ts)
{
    return c->maxlen <= 0 || max_ts < weir__ts_add(start, c->maxlen);
}

static weir_ts session_end(const wcore *c, weir_ts start, weir_ts end)
{
    if (c->maxlen > 0) {
        weir_ts cap = weir__ts_add(start, c->maxlen);
        if (end > cap)
            return cap;
    }
    return end;
}

static int route_session(wcore *c, wentry *e, const weir_batch *b, uint32_t row, weir_ts ts, int sign)
{
    const weir_ts W = c->wm;
    wnode *t = e->tail;
    int rc;
    if (t && c->maxlen <= 0 && ts >= t->start && ts <= t->end) {
        /*
         * Most records fall into their key's newest session. Without a
         * maximum length a key's sessions never touch (two that touch are
         * merged when they come to), so every earlier one ends before t
         * starts, before ts: t is the only session the record touches, no
         * merge, and t's accumulator is not read (the pending rows stay
         * pending). As the general path below for that case.
         */
        weir_ts end = weir__ts_add(ts, c->gap);
        if (end > t->end && (rc = session_set_bounds(c, e, t, t->start, end)))
            return rc;
        if (ts > t->max_ts)
            t->max_ts = ts;
        weir__wentry_touch(c, e);
        if ((rc = weir__pend_add(c, ACC(t), row, sign)) || (rc = wheel_note(c, e, node_wake(c, t))))
            return rc;
        return on_record_fast(c, e, t, t->end <= W);
    }
    weir_ts ce = session_end(c, ts, weir__ts_add(ts, c->gap));
    wnode *first = NULL;
    int touching = 0;
    weir_ts ustart = ts, umax = ts, uend = weir__ts_add(ts, c->gap);
    for (wnode *n = e->head; n && n->start <= ce; n = n->next) {
        if (n->end < ts)
            continue;
        touching++;
        if (!first)
            first = n;
        if (n->start < ustart)
            ustart = n->start;
        if (n->max_ts > umax)
            umax = n->max_ts;
        if (n->end > uend)
            uend = n->end;
    }
    wnode *dst = NULL;
    if (touching) {
        if ((rc = weir__pend_flush(c)))
            return rc;
        if (session_fits(c, ustart, umax)) {
            dst = first;
            for (wnode *n = first->next; n && n->start <= ce;) {
                wnode *nx = n->next;
                if (n->end >= ts && (rc = session_absorb(c, e, dst, n)))
                    return rc;
                n = nx;
            }
            if ((rc = session_set_bounds(c, e, dst, ustart, session_end(c, ustart, uend))))
                return rc;
        } else {
            /* Capped: join the earliest touching session that can take the record alone. */
            for (wnode *n = first; n && n->start <= ce; n = n->next) {
                if (n->end < ts)
                    continue;
                weir_ts s = n->start < ts ? n->start : ts;
                weir_ts m = n->max_ts > ts ? n->max_ts : ts;
                if (session_fits(c, s, m)) {
                    dst = n;
                    weir_ts tg = weir__ts_add(ts, c->gap);
                    weir_ts end = n->end > tg ? n->end : tg;
                    if ((rc = session_set_bounds(c, e, dst, s, session_end(c, s, end))))
                        return rc;
                    break;
                }
            }
        }
    }
    if (!dst) {
        if (weir__ts_add(ce, c->L) <= W)
            return weir__emit_late_row(c, b, row, ts);
        dst = weir__wnode_alloc(c, NODE_SESSION, ts, ce);
        if (!dst)
            return WEIR_ENOMEM;
        wnode *p = e->tail;
        while (p && p->start > ts)
            p = p->prev;
        list_insert_after(e, p, dst);
        weir__entry_busy(c, e);
    }
    if (ts > dst->max_ts)
        dst->max_ts = ts;
    weir__wentry_changed(c, e);
    if ((rc = weir__pend_add(c, ACC(dst), row, sign)) || (rc = wheel_add(c, e, node_wake(c, dst))))
        return rc;
    return on_record(c, e, dst, dst->end <= W);
}

static int route_global(wcore *c, wentry *e, uint32_t row, weir_ts ts, int sign)
{
    wnode *n = e->head;
    if (!n) {
        if (!(n = weir__wnode_alloc(c, NODE_GLOBAL, WEIR_TS_MIN, WEIR_TS_MAX)))
            return WEIR_ENOMEM;
        weir__list_append(e, n);
        weir__entry_busy(c, e);
        int rc = wheel_add(c, e, WEIR_TS_MAX);
        if (rc)
            return rc;
    }
    if (ts > n->max_ts)
        n->max_ts = ts;
    weir__wentry_changed(c, e);
    int rc = weir__pend_add(c, ACC(n), row, sign);
    return rc ? rc : on_record(c, e, n, false);
}

/* ------------------------------------------------------------------ */
/* 6. firing when the watermark advances                                */
/* ------------------------------------------------------------------ */

/* Fired windows past their allowed lateness are released (late data still pending fires first). */
static int mats_cleanup(wcore *c, wentry *e, weir_ts W)
{
    int rc = 0;
    while (e->mats && cleanup_time(c, e->mats) <= W) {
        wnode *m = e->mats;
        if (m->flags & F_DIRTY)
            rc = fire_node(c, e, m);
        e->mats = m->next;
        weir__wnode_free(c, m);
        if (rc)
            return rc;
    }
    return 0;
}

static int list_fire(wcore *c, wentry *e, weir_ts after, weir_ts W)
{
    int rc = 0;
    for (wnode *n = e->head; n && !rc;) {
        wnode *nx = n->next;
        if (c->base == WEIR_TRIGGER_EVENT_TIME && n->end > after && n->end <= W)
            rc = fire_node(c, e, n);
        if (!rc && cleanup_time(c, n) <= W) {
            if (c->base == WEIR_TRIGGER_EVENT_TIME && (n->flags & F_DIRTY))
                rc = fire_node(c, e, n);
            list_unlink(e, n);
            weir__wnode_free(c, n);
        }
        if (!rc)
            rc = weir__wcore_tick(c);
        n = nx;
    }
    return rc;
}

static weir_ts next_wake(const wcore *c, const wentry *e)
{
    weir_ts t = WEIR_TS_MAX;
    if (c->mode == MODE_SLICED) {
        /* the slice store fires by itself; keys wait only for their fired windows' cleanup */
        for (const wnode *m = e->mats; m; m = m->next) {
            weir_ts x = cleanup_time(c, m);
            if (x < t)
                t = x;
        }
    } else {
        for (const wnode *n = e->head; n; n = n->next) {
            weir_ts x = node_wake(c, n);
            if (x < t)
                t = x;
        }
    }
    return t;
}

/* Registers e's next wake-up and keeps the idle count right. */
int weir__wentry_settle(wcore *c, wentry *e)
{
    if (weir__entry_empty(c, e)) {
        if (!(e->flags & E_IDLE)) {
            e->flags |= E_IDLE;
            c->n_idle++;
        }
        return 0;
    }
    weir__entry_busy(c, e);
    return wheel_add(c, e, next_wake(c, e));
}

static int visit(wcore *c, wentry *e)
{
    weir_ts after = c->wm_prev > e->floor ? c->wm_prev : e->floor;
    const weir_ts W = c->wm;
    int rc = 0;
    if (c->mode == MODE_SLICED) {
        rc = mats_cleanup(c, e, W);
    } else {
        rc = list_fire(c, e, after, W);
    }
    weir__wentry_changed(c, e);
    if (!rc)
        rc = weir__wentry_settle(c, e);
    return rc;
}

/* ------------------------------------------------------------------ */
/* 7. public entry points                                               */
/* ------------------------------------------------------------------ */

int weir__wcore_create(const weir_window_spec *spec, const weir_schema *in, const weir_schema *out,
                       const weir_schema *late, uint32_t batch_size, const weir__wcore_io *io,
                       weir__wcore **out_core, weir_error *err)
{
    *out_core = NULL;
    int rc = weir_window_spec_check(spec, in, err);
    if (rc)
        return rc;
    wcore *c = weir_calloc(1, sizeof *c);
    if (!c)
        return weir_error_set(err, WEIR_ENOMEM, "window: out of memory");
    const weir_window_assigner *a = &spec->assigner;
    c->kind = a->kind;
    c->size = a->size_ms;
    c->slide = a->kind == WEIR_WINDOW_TUMBLING ? a->size_ms : a->slide_ms;
    c->off = a->offset_ms;
    /* Window starts align to off + k*slide, so ends align to off + size + k*slide. */
    c->eoff = (int64_t)(((__int128)a->offset_ms + a->size_ms) % (c->slide ? c->slide : 1));
    c->gap = a->gap_ms;
    c->maxlen = a->max_length_ms;
    c->L = spec->allowed_lateness_ms;
    c->proc_domain = spec->time_domain == WEIR_TIME_PROCESSING;
    c->accm = spec->accumulation;
    c->purge = spec->accumulation == WEIR_ACC_DISCARDING || spec->trigger.purging;
    c->base = spec->trigger.kind;
    if (c->base == WEIR_TRIGGER_DEFAULT)
        c->base = a->kind == WEIR_WINDOW_GLOBAL ? WEIR_TRIGGER_NEVER : WEIR_TRIGGER_EVENT_TIME;
    c->trig_count = spec->trigger.count;
    c->early_ms = spec->trigger.early_interval_ms;
    c->early_count = spec->trigger.early_count;
    c->late_ms = spec->trigger.late_interval_ms;
    c->key = spec->key;
    c->n_in_cols = in->n_fields;
    c->in_schema = in;
    c->key_fixed = true;
    c->key_max = 0;
    for (uint32_t k = 0; k < c->key.n; k++) {
        weir_type_id id = in->fields[c->key.cols[k]].type.id;
        c->kcols[k].type = id;
        c->kcols[k].is_string = weir_type_is_varlen(id);
        c->kcols[k].width = (uint32_t)weir_type_size(in->fields[c->key.cols[k]].type);
        if (c->kcols[k].is_string)
            c->key_fixed = false;
        c->key_max += 1 + c->kcols[k].width;
    }
    switch (a->kind) {
    case WEIR_WINDOW_TUMBLING: c->sl = c->size; break;
    case WEIR_WINDOW_HOPPING: {
        int64_t x = c->size, y = c->slide;
        while (y) {
            int64_t t = x % y;
            x = y;
            y = t;
        }
        c->sl = x;
        break;
    }
    case WEIR_WINDOW_CUMULATING: c->sl = c->slide; break;
    default: c->sl = 1; break;
    }
    bool fixed = a->kind == WEIR_WINDOW_TUMBLING || a->kind == WEIR_WINDOW_HOPPING ||
                 a->kind == WEIR_WINDOW_CUMULATING;
    if (fixed)
        c->mode = c->base == WEIR_TRIGGER_EVENT_TIME && c->early_ms <= 0 && c->early_count == 0
                      ? MODE_SLICED
                      : MODE_WINDOWS;
    else
        c->mode = a->kind == WEIR_WINDOW_SESSION ? MODE_SESSION : MODE_GLOBAL;
    rc = weir__accset_init(&c->as, spec->aggs, spec->n_aggs, in, spec->no_fast_path, err);
    if (rc)
        goto fail;
    bool aux = c->accm == WEIR_ACC_RETRACTING;
    c->nblk = aux ? 2 : 1;
    c->node_size = sizeof(wnode) + (size_t)c->nblk * c->as.size;
    c->node_size = (c->node_size + 7) & ~(size_t)7;

    c->col_ws = c->key.n;
    c->col_we = c->key.n + 1;
    c->col_wt = spec->window_time ? (int32_t)(c->key.n + 2) : -1;
    c->col_agg0 = c->key.n + 2 + (spec->window_time ? 1 : 0);
    if (!batch_size)
        batch_size = 1024;
    c->out = weir_batch_create(out, batch_size);
    c->late = late ? weir_batch_create(late, batch_size) : NULL;
    c->pend_cap = 4096;
    c->pend_blk = weir_malloc(c->pend_cap * sizeof *c->pend_blk);
    c->pend_row = weir_malloc(c->pend_cap * sizeof *c->pend_row);
    c->pend_sign = weir_malloc(c->pend_cap);
    c->scratch = weir_malloc(c->as.size);
    c->kcap = 256;
    c->kbuf = weir_malloc(c->kcap);
    if (!c->out || (late && !c->late) || !c->pend_blk || !c->pend_row || !c->pend_sign || !c->scratch ||
        !c->kbuf || table_grow(c)) {
        rc = weir_error_set(err, WEIR_ENOMEM, "window: out of memory");
        goto fail;
    }
    weir__acc_init(&c->as, c->scratch);
    weir_buf_init(&c->sbuf);
    if (c->mode == MODE_SLICED && weir__sliced_init(c)) {
        rc = weir_error_set(err, WEIR_ENOMEM, "window: out of memory");
        goto fail;
    }
    if (io)
        c->io = *io;
    c->wm = WEIR_TS_MIN;
    c->wm_prev = WEIR_TS_MIN;
    c->floor_max = WEIR_TS_MIN;
    c->now = INT64_MIN;
    c->cs_start = 1;
    c->cs_end = 0; /* empty cache */
    c->ga_in = WEIR_TS_MIN;
    c->ga_out = WEIR_TS_MIN;
    c->cs_first = c->cs_last = WEIR_TS_MIN;
    c->armed = WEIR_TS_MIN;
    *out_core = c;
    return 0;
fail:
    weir__wcore_destroy(c);
    return rc;
}

void weir__wcore_destroy(weir__wcore *c)
{
    if (!c)
        return;
    /* Release every slice and node (generic accumulators may own heap memory). */
    weir__sliced_destroy(c);
    /* (a job that ran to its end has no node left and keys inline: no walk over every entry) */
    if (c->tab && (c->n_nodes || c->n_key_heap)) {
        for (uint32_t i = 0; i < c->tab_cap; i++) {
            wentry *e = c->tab[i].e;
            if (!e)
                continue;
            while (e->head) {
                wnode *n = e->head;
                list_unlink(e, n);
                weir__wnode_free(c, n);
            }
            while (e->mats) {
                wnode *m = e->mats;
                e->mats = m->next;
                weir__wnode_free(c, m);
            }
            if (e->key != e->key_inline)
                weir_free(e->key);
        }
    }
    weir__bigmem_free(c->tab);
    for (uint32_t i = 0; i < c->n_echunks; i++)
        weir__bigmem_free(c->echunks[i]);
    weir_free(c->echunks);
    for (uint32_t i = 0; i < c->n_nchunks; i++)
        weir__bigmem_free(c->nchunks[i]);
    weir_free(c->nchunks);
    for (uint32_t i = 0; i < c->n_heap; i++) {
        weir_free(c->heap[i]->v);
        weir_free(c->heap[i]);
    }
    weir_free(c->heap);
    while (c->bfree) {
        wbucket *b = c->bfree;
        c->bfree = b->free_next;
        weir_free(b->v);
        weir_free(b);
    }
    if (c->scratch) {
        weir__acc_fini(&c->as, c->scratch);
        weir_free(c->scratch);
    }
    weir__accset_fini(&c->as);
    weir_batch_destroy(c->out);
    weir_batch_destroy(c->late);
    weir_free(c->pend_blk);
    weir_free(c->pend_row);
    weir_free(c->pend_sign);
    weir_free(c->chg);
    weir_free(c->kbuf);
    weir_free(c->r_koff);
    weir_free(c->r_klen);
    weir_free(c->r_hash);
    weir_free(c->r_ent);
    weir_buf_fini(&c->sbuf);
    weir_free(c);
}

weir_ts weir__wcore_watermark(const weir__wcore *c) { return c->wm; }

const char *weir__wcore_fail_label(const weir__wcore *c)
{
    const char *l = NULL;
    for (uint32_t k = 0; k < c->as.n; k++) {
        const weir__accfield *f = &c->as.f[k];
        if (f->kind != WEIR__ACC_GENERIC || !f->agg.label)
            continue;
        if (l)
            return NULL;
        l = f->agg.label;
    }
    return l;
}

void weir__wcore_mark_all(weir__wcore *c)
{
    for (uint32_t i = 0; i < c->tab_cap; i++) {
        wentry *e = c->tab[i].e;
        if (e && (!weir__entry_empty(c, e) || (e->flags & E_IN_STATE)))
            weir__wentry_changed(c, e);
    }
}

void weir__wcore_restore_watermark(weir__wcore *c, weir_ts wm)
{
    c->wm = wm;
    c->wm_prev = wm;
    c->loaded = true;
}

weir_ts weir__wcore_loaded_floor_max(const weir__wcore *c) { return c->floor_max; }

/*
 * weir_key_encode's format (a NULL flag byte, then the value's bytes) for
 * keys of fixed-width columns, with constant-size copies; the bytes must be
 * identical, since the runtime routes rows by them.
 */
static inline size_t encode_fixed_key(const wcore *c, const weir_batch *b, uint32_t row, uint8_t *buf)
{
    size_t n = 0;
    for (uint32_t k = 0; k < c->key.n; k++) {
        uint32_t col = c->key.cols[k];
        if (weir_batch_is_null(b, col, row)) {
            buf[n++] = 0;
            continue;
        }
        buf[n++] = 1;
        const char *src = (const char *)b->cols[col].data;
        switch (c->kcols[k].width) {
        case 8: memcpy(buf + n, src + (size_t)row * 8, 8); break;
        case 4: memcpy(buf + n, src + (size_t)row * 4, 4); break;
        case 1: buf[n] = (uint8_t)src[row]; break;
        default: memcpy(buf + n, src + (size_t)row * c->kcols[k].width, c->kcols[k].width); break;
        }
        n += c->kcols[k].width;
    }
    return n;
}

static int grow_rows(wcore *c, uint32_t n)
{
    uint32_t *ko = weir_realloc(c->r_koff, n * sizeof *ko);
    if (ko)
        c->r_koff = ko;
    uint32_t *kl = weir_realloc(c->r_klen, n * sizeof *kl);
    if (kl)
        c->r_klen = kl;
    uint64_t *h = weir_realloc(c->r_hash, n * sizeof *h);
    if (h)
        c->r_hash = h;
    wentry **en = weir_realloc(c->r_ent, n * sizeof *en);
    if (en)
        c->r_ent = en;
    if (!ko || !kl || !h || !en)
        return WEIR_ENOMEM;
    c->rows_cap = n;
    return 0;
}

/* Moves the engine's time (the watermark, or processing time in the PROCESSING domain) to wm. */
static int advance_to(wcore *c, weir_ts wm)
{
    if (wm <= c->wm)
        return 0;
    int rc = weir__pend_flush(c);
    if (rc)
        return rc;
    c->wm_prev = c->wm;
    c->wm = wm;
    if (c->mode == MODE_SLICED && (rc = weir__sliced_fire(c, c->wm_prev, wm)))
        return rc;
    if (c->mode == MODE_SLICED && c->proc_domain && (rc = weir__sliced_arm(c)))
        return rc;
    while (c->n_heap && c->heap[0]->t <= wm) {
        wbucket *b = heap_pop(c);
        uint32_t s = bslot(b->t);
        if (c->bcache[s] == b)
            c->bcache[s] = NULL;
        for (uint32_t i = 0; i < b->n && !rc; i++) {
            /* keys are visited in registration order, scattered in memory: fetch ahead */
            if (i + 8 < b->n)
                __builtin_prefetch(b->v[i + 8]);
            if (i + 4 < b->n) {
                const wentry *p = b->v[i + 4];
                if (p->head) {
                    __builtin_prefetch(p->head);
                    __builtin_prefetch((const char *)p->head + 64);
                }
            }
            wentry *e = b->v[i];
            if (e->wake != b->t || !(e->flags & E_LIVE))
                continue;
            e->wake = WEIR_TS_MAX;
            rc = visit(c, e);
            if (!rc)
                rc = weir__wcore_tick(c);
        }
        b->n = 0;
        b->free_next = c->bfree;
        c->bfree = b;
        if (rc)
            return rc;
    }
    if (wm == WEIR_TS_MAX) {
        /* The final watermark: every key with windows fires and is cleaned up. */
        for (uint32_t i = 0; i < c->tab_cap && !rc; i++) {
            wentry *e = c->tab[i].e;
            if (e && !(e->flags & E_IDLE)) {
                e->wake = WEIR_TS_MAX;
                rc = visit(c, e);
                if (!rc)
                    rc = weir__wcore_tick(c);
            }
        }
        if (rc)
            return rc;
    }
    c->wm_prev = wm;
    return maybe_sweep(c);
}

int weir__wcore_advance(weir__wcore *c, weir_ts wm, int64_t now_ms)
{
    if (now_ms > c->now)
        c->now = now_ms;
    /* Processing-time windows ignore watermarks; their clock is the job's. */
    return advance_to(c, c->proc_domain ? c->now : wm);
}

/*
 * Stage 2 of weir__wcore_process outside the sliced mode: the entries of
 * rows [0, n) into c->r_ent, created in row order. Each step is a pass of
 * its own over the batch, so the cache misses of one step (the rows' table
 * slots, fetched by stage 1; then their entries; then the entries' newest
 * nodes) are all under way before the next step waits on the first: the
 * keys of a batch are scattered in memory, and a fixed prefetch distance in
 * rows covers few misses when most rows repeat a hot key.
 */
static int find_entries(wcore *c, uint32_t n)
{
    const uint32_t mask = c->tab_cap - 1;
    /* the entry whose hash matches the row's (a row with the previous row's hash takes its entry below) */
    for (uint32_t row = 0; row < n; row++) {
        const uint64_t h = c->r_hash[row];
        wentry *p = NULL;
        if (!row || h != c->r_hash[row - 1]) {
            for (uint32_t i = weir__hash_slot(h) & mask; c->tab[i].e; i = (i + 1) & mask) {
                if (c->tab[i].hash == h) {
                    p = c->tab[i].e;
                    __builtin_prefetch(p);
                    __builtin_prefetch((const char *)p + 64);
                    break;
                }
            }
        }
        c->r_ent[row] = p;
    }
    /* the keys compared (a hash collision, or a key not in the table, takes the full lookup) */
    for (uint32_t row = 0; row < n; row++) {
        const uint8_t *key = c->kbuf + c->r_koff[row];
        const uint32_t len = c->r_klen[row];
        wentry *e = c->r_ent[row];
        if (row && c->r_hash[row] == c->r_hash[row - 1] && c->r_klen[row - 1] == len &&
            key_eq(c->kbuf + c->r_koff[row - 1], key, len))
            e = c->r_ent[row - 1];
        else if (!e || e->key_len != len || !key_eq(e->key, key, len))
            e = weir__wentry_get(c, key, len, c->r_hash[row], true);
        if (!e)
            return WEIR_ENOMEM;
        c->r_ent[row] = e;
        const wnode *t = e->tail;
        if (t) {
            __builtin_prefetch(t);
            __builtin_prefetch((const char *)t + 64);
            __builtin_prefetch((const char *)t + c->node_size - 1);
        }
    }
    return 0;
}

int weir__wcore_process(weir__wcore *c, const weir_batch *b, weir_ts wm, int64_t now_ms)
{
    int rc;
    if (now_ms > c->now)
        c->now = now_ms;
    if ((rc = weir__wcore_advance(c, wm, now_ms)))
        return rc;
    c->pend_b = b;
    const uint32_t n = b->n_rows;
    if (n > c->rows_cap && (rc = grow_rows(c, n)))
        return rc;
    /* 1. keys and hashes of the batch; fetch their table slots */
    size_t koff = 0;
    if (c->key_fixed && c->kcap < (size_t)n * c->key_max) {
        uint8_t *nb = weir_realloc(c->kbuf, (size_t)n * c->key_max);
        if (!nb)
            return WEIR_ENOMEM;
        c->kbuf = nb;
        c->kcap = (size_t)n * c->key_max;
    }
    /* one BIGINT-wide key column without NULLs in this batch: 9 bytes a key, flag then value */
    const bool k9 = c->key_fixed && c->key.n == 1 && c->kcols[0].width == 8 && b->cols[c->key.cols[0]].all_valid;
    if (k9) {
        const uint8_t *src = b->cols[c->key.cols[0]].data;
        uint8_t *kb = c->kbuf;
        for (uint32_t row = 0; row < n; row++) {
            kb[(size_t)row * 9] = 1;
            memcpy(kb + (size_t)row * 9 + 1, src + (size_t)row * 8, 8);
            c->r_koff[row] = row * 9;
            c->r_klen[row] = 9;
        }
    }
    for (uint32_t row = 0; row < n && !k9; row++) {
        size_t klen = c->key_fixed ? encode_fixed_key(c, b, row, c->kbuf + koff)
                                   : weir_key_encode(b, &c->key, row, c->kbuf + koff, c->kcap - koff);
        while (koff + klen > c->kcap) {
            uint8_t *nb = weir_realloc(c->kbuf, c->kcap * 2);
            if (!nb)
                return WEIR_ENOMEM;
            c->kbuf = nb;
            c->kcap *= 2;
            klen = weir_key_encode(b, &c->key, row, c->kbuf + koff, c->kcap - koff);
        }
        c->r_koff[row] = (uint32_t)koff;
        c->r_klen[row] = (uint32_t)klen;
        koff += klen;
    }
    /* the keyed exchange before hashed these keys to route them: its hashes came along */
    const weir_keyspec *hk = b->key_hash_of;
    if (hk && hk->n == c->key.n && memcmp(hk->cols, c->key.cols, c->key.n * sizeof *hk->cols) == 0) {
        for (uint32_t row = 0; row < n; row++) {
            uint64_t h = c->r_hash[row] = b->key_hash[row];
            __builtin_prefetch(&c->tab[weir__hash_slot(h) & (c->tab_cap - 1)]);
        }
        /* the same encoding, so the same hash (the key groups and keyed state rely on it); checked on
         * one row a batch: hashing every row again here would undo what carrying the hashes saves */
        assert(n == 0 || c->r_hash[n - 1] == XXH3_64bits(c->kbuf + c->r_koff[n - 1], c->r_klen[n - 1]));
    } else {
        /* hashed in a loop of their own: reading a key right after writing it stalls on store forwarding */
        for (uint32_t row = 0; row < n; row++) {
            /* a constant length keeps only XXH3's 9-16 byte path */
            uint64_t h = k9 ? XXH3_64bits(c->kbuf + (size_t)row * 9, 9)
                            : XXH3_64bits(c->kbuf + c->r_koff[row], c->r_klen[row]);
            c->r_hash[row] = h;
            __builtin_prefetch(&c->tab[weir__hash_slot(h) & (c->tab_cap - 1)]);
        }
    }
    /* 2. their entries (created in row order); fetch what routing will touch */
    if (c->mode != MODE_SLICED) {
        if ((rc = find_entries(c, n)))
            return rc;
    }
    for (uint32_t row = 0; row < n && c->mode == MODE_SLICED; row++) {
        if (row + 6 < n) {
            /* the entry in the home slot of a row ahead is almost always its own */
            const wentry *p = c->tab[weir__hash_slot(c->r_hash[row + 6]) & (c->tab_cap - 1)].e;
            if (p) {
                __builtin_prefetch(p);
                __builtin_prefetch((const char *)p + sizeof *p - 1);
            }
        }
        wentry *e = k9 ? entry_find9(c, c->kbuf + (size_t)row * 9, c->r_hash[row]) : NULL;
        if (!e && !(e = weir__wentry_get(c, c->kbuf + c->r_koff[row], c->r_klen[row], c->r_hash[row], true)))
            return WEIR_ENOMEM;
        c->r_ent[row] = e;
    }
    /* 3. route every row, in order (the entries of stage 2 have left the nearest cache by now: fetch ahead) */
    if (c->mode == MODE_SLICED && (rc = weir__sliced_route_rows(c, b, now_ms)))
        return rc;
    for (uint32_t row = 0; row < n && c->mode != MODE_SLICED; row++) {
        if (row + 8 < n) {
            const wentry *p = c->r_ent[row + 8];
            __builtin_prefetch(p);
            __builtin_prefetch((const char *)p + 64);
        }
        uint8_t kind = b->kind[row];
        int sign = kind == WEIR_ROW_INSERT || kind == WEIR_ROW_UPDATE_AFTER ? 1 : -1;
        if (sign < 0 && !c->as.retractable)
            return WEIR_EUNSUPPORTED;
        weir_ts ts = c->proc_domain && !c->proc_row_ts ? now_ms : b->ts[row];
        wentry *e = c->r_ent[row];
        switch (c->mode) {
        case MODE_WINDOWS: rc = route_windows(c, e, b, row, ts, sign); break;
        case MODE_SESSION: rc = route_session(c, e, b, row, ts, sign); break;
        default: rc = route_global(c, e, row, ts, sign); break;
        }
        if (rc)
            return rc;
    }
    rc = weir__pend_flush(c);
    c->pend_b = NULL;
    if (!rc && c->mode == MODE_SLICED && c->proc_domain)
        rc = weir__sliced_arm(c);
    return rc;
}

void weir__wcore_set_proc_row_ts(weir__wcore *c) { c->proc_row_ts = true; }

int weir__wcore_proc_timer(weir__wcore *c, const uint8_t *key, size_t len, uint64_t hash, int64_t t,
                           int64_t now_ms)
{
    if (now_ms > c->now)
        c->now = now_ms;
    if (c->proc_domain)
        return advance_to(c, c->now > t ? c->now : t);
    wentry *e = weir__wentry_get(c, key, len, hash, false);
    if (!e)
        return 0;
    int rc = 0;
    wnode *lists[2] = {e->head, e->mats};
    for (int l = 0; l < 2 && !rc; l++) {
        for (wnode *n = lists[l]; n && !rc; n = n->next) {
            if (n->type == NODE_SLICE)
                break; /* slices hold no timers (their fields mean other things) */
            if (n->due <= t) {
                n->due = DUE_NONE;
                rc = fire_node(c, e, n);
            } else if (c->base == WEIR_TRIGGER_PROCESSING_TIME && (n->flags & F_PROCREQ) && n->end <= t) {
                n->flags &= (uint8_t)~F_PROCREQ;
                rc = fire_node(c, e, n);
            }
        }
    }
    return rc;
}

int weir__wcore_finish(weir__wcore *c, int64_t now_ms)
{
    if (now_ms > c->now)
        c->now = now_ms;
    int rc = advance_to(c, WEIR_TS_MAX);
    if (!rc)
        rc = weir__wcore_flush(c);
    return rc;
}

void weir__wcore_stats_get(const weir__wcore *c, weir__wcore_stats *out)
{
    *out = c->st;
    out->keys = c->n_live - c->n_idle;
    out->entries = c->n_live;
    out->nodes = c->n_nodes + c->n_recs;
}
