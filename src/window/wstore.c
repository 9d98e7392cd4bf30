/*
 * window/wstore.c - the live windows of one key as canonical bytes, for
 * keyed state (checkpoints, savepoints, rescaling).
 *
 * Format (version 2), all integers little-endian:
 *   u8 version, i64 floor (the watermark when written: windows ending at or
 *   before it were handled), then two node lists, each a varint count
 *   followed by nodes:
 *     main: the key's windows, sessions or global window; in sliced mode
 *           its accumulator in each live slice (NODE_SLICE [start, end)) and
 *           in the cumulating period table (NODE_CUM [period start, last
 *           fired end));
 *     mats: sliced mode, fired windows within allowed lateness.
 *   node: u8 type, u8 flags, i64 start, end, max_ts, due, u64 count,
 *   accumulator, [aux accumulator if F_PREV], varint retractions, each
 *   i64 start, i64 end, accumulator.
 */
#include <stdlib.h>

#include "window/wcore_impl.h"

#define WSTORE_VERSION 2
#define PERSIST_FLAGS (F_DIRTY | F_PREV | F_PROCREQ)

static int put_header(weir_buf *b, int type, int flags, weir_ts start, weir_ts end, weir_ts max_ts, int64_t due,
                      uint64_t count)
{
    int rc = weir_buf_put_u8(b, (uint8_t)type);
    rc = rc ? rc : weir_buf_put_u8(b, (uint8_t)flags);
    rc = rc ? rc : weir_buf_put_i64(b, start);
    rc = rc ? rc : weir_buf_put_i64(b, end);
    rc = rc ? rc : weir_buf_put_i64(b, max_ts);
    rc = rc ? rc : weir_buf_put_i64(b, due);
    rc = rc ? rc : weir_buf_put_u64(b, count);
    return rc;
}

static int put_node(wcore *c, const wnode *n, weir_buf *b)
{
    int rc = put_header(b, n->type, n->flags & PERSIST_FLAGS, n->start, n->end, n->max_ts, n->due, n->count);
    rc = rc ? rc : weir__acc_serialize(&c->as, ACC(n), b);
    if (!rc && (n->flags & F_PREV))
        rc = weir__acc_serialize(&c->as, AUX(c, n), b);
    uint64_t nr = 0;
    for (const wnode *r = n->retract; r; r = r->next)
        nr++;
    rc = rc ? rc : weir_buf_put_varint(b, nr);
    for (const wnode *r = n->retract; r && !rc; r = r->next) {
        rc = weir_buf_put_i64(b, r->start);
        rc = rc ? rc : weir_buf_put_i64(b, r->end);
        rc = rc ? rc : weir__acc_serialize(&c->as, ACC(r), b);
    }
    return rc;
}

static int put_list(wcore *c, const wnode *head, weir_buf *b)
{
    uint64_t n = 0;
    for (const wnode *x = head; x; x = x->next)
        n++;
    int rc = weir_buf_put_varint(b, n);
    for (const wnode *x = head; x && !rc; x = x->next)
        rc = put_node(c, x, b);
    return rc;
}

/* A record of the slice store, gathered for writing. */
typedef struct grec {
    wentry *e;
    uint32_t order;
    int type;
    weir_ts start, end;
    void *acc;
} grec;

typedef struct gather {
    grec *v;
    size_t n, cap;
    wcore *c;
} gather;

static int gather_fn(void *ud, wentry *e, uint32_t order, int type, weir_ts start, weir_ts end, void *acc)
{
    gather *g = ud;
    if (g->n == g->cap) {
        size_t nc = g->cap ? g->cap * 2 : 1024;
        grec *v = weir_realloc(g->v, nc * sizeof *v);
        if (!v)
            return WEIR_ENOMEM;
        g->v = v;
        g->cap = nc;
    }
    g->v[g->n++] = (grec){e, order, type, start, end, acc};
    /* slice contents change without marking their keys: every key with records is rewritten */
    weir__wentry_changed(g->c, e);
    return 0;
}

static int cmp_grec(const void *pa, const void *pb)
{
    const grec *a = pa, *b = pb;
    if (a->e != b->e)
        return (uintptr_t)a->e < (uintptr_t)b->e ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

static int serialize_entry(wcore *c, const wentry *e, const grec *recs, size_t n_recs, weir_buf *b)
{
    weir_buf_clear(b);
    int rc = weir_buf_put_u8(b, WSTORE_VERSION);
    rc = rc ? rc : weir_buf_put_i64(b, c->wm);
    if (c->mode == MODE_SLICED) {
        rc = rc ? rc : weir_buf_put_varint(b, n_recs);
        for (size_t i = 0; i < n_recs && !rc; i++) {
            rc = put_header(b, recs[i].type, 0, recs[i].start, recs[i].end, 0, 0, 0);
            rc = rc ? rc : weir__acc_serialize(&c->as, recs[i].acc, b);
            rc = rc ? rc : weir_buf_put_varint(b, 0);
        }
    } else {
        rc = rc ? rc : put_list(c, e->head, b);
    }
    rc = rc ? rc : put_list(c, e->mats, b);
    return rc;
}

static int drain_one(wcore *c, wentry *e, const gather *g, weir__wcore_entry_fn fn, void *ud)
{
    if (!(e->flags & E_CHANGED))
        return 0;
    e->flags &= (uint8_t)~E_CHANGED;
    if (!(e->flags & E_LIVE))
        return 0;
    if (!e->head && !e->mats && !e->nrec) {
        if (!(e->flags & E_IN_STATE))
            return 0;
        e->flags &= (uint8_t)~E_IN_STATE;
        return fn(ud, e->key, e->key_len, e->hash, NULL, 0, true);
    }
    const grec *recs = NULL;
    size_t n = 0;
    if (g && g->n) {
        /* the entry's records: a range of the sorted gather */
        size_t lo = 0, hi = g->n;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if ((uintptr_t)g->v[mid].e < (uintptr_t)e)
                lo = mid + 1;
            else
                hi = mid;
        }
        recs = &g->v[lo];
        while (lo + n < g->n && g->v[lo + n].e == e)
            n++;
    }
    int rc = serialize_entry(c, e, recs, n, &c->sbuf);
    if (rc)
        return rc;
    e->flags |= E_IN_STATE;
    return fn(ud, e->key, e->key_len, e->hash, c->sbuf.data, c->sbuf.len, false);
}

int weir__wcore_drain_changes(weir__wcore *c, weir__wcore_entry_fn fn, void *ud)
{
    int rc = 0;
    gather g = {.c = c};
    if (c->mode == MODE_SLICED) {
        rc = weir__sliced_visit(c, gather_fn, &g);
        if (!rc && g.n)
            qsort(g.v, g.n, sizeof *g.v, cmp_grec);
    }
    for (uint32_t i = 0; i < c->chg_n; i++) {
        wentry *e = c->chg[i];
        e->flags &= (uint8_t)~E_IN_CHG;
        if (!rc)
            rc = drain_one(c, e, &g, fn, ud);
    }
    c->chg_n = 0;
    /* Entries whose listing failed for lack of memory are still marked. */
    for (uint32_t i = 0; i < c->tab_cap && !rc; i++)
        if (c->tab[i] && (c->tab[i]->flags & E_CHANGED))
            rc = drain_one(c, c->tab[i], &g, fn, ud);
    weir_free(g.v);
    return rc;
}

typedef struct hdr {
    uint8_t type, flags;
    int64_t start, end, max_ts, due;
    uint64_t count;
} hdr;

static int get_header(weir_cursor *in, hdr *h)
{
    int rc = weir_cursor_get_u8(in, &h->type);
    rc = rc ? rc : weir_cursor_get_u8(in, &h->flags);
    rc = rc ? rc : weir_cursor_get_i64(in, &h->start);
    rc = rc ? rc : weir_cursor_get_i64(in, &h->end);
    rc = rc ? rc : weir_cursor_get_i64(in, &h->max_ts);
    rc = rc ? rc : weir_cursor_get_i64(in, &h->due);
    rc = rc ? rc : weir_cursor_get_u64(in, &h->count);
    if (!rc && (h->type < NODE_SLICE || h->type > NODE_CUM || (h->flags & ~PERSIST_FLAGS)))
        rc = WEIR_ECORRUPT;
    return rc;
}

/* A node of a key's window lists (not a slice record). */
static int get_node(wcore *c, const hdr *h, weir_cursor *in, wnode **out)
{
    *out = NULL;
    if ((h->flags & F_PREV) && c->nblk < 2)
        return WEIR_ECORRUPT;
    wnode *n = weir__wnode_alloc(c, h->type, h->start, h->end);
    if (!n)
        return WEIR_ENOMEM;
    n->flags = h->flags;
    n->max_ts = h->max_ts;
    n->due = h->due;
    n->count = h->count;
    weir__acc_fini(&c->as, ACC(n));
    int rc = weir__acc_deserialize(&c->as, ACC(n), in);
    if (!rc && (h->flags & F_PREV)) {
        weir__acc_fini(&c->as, AUX(c, n));
        rc = weir__acc_deserialize(&c->as, AUX(c, n), in);
    }
    uint64_t nr = 0;
    rc = rc ? rc : weir_cursor_get_varint(in, &nr);
    for (uint64_t i = 0; i < nr && !rc; i++) {
        int64_t rs, re;
        rc = weir_cursor_get_i64(in, &rs);
        rc = rc ? rc : weir_cursor_get_i64(in, &re);
        if (rc)
            break;
        wnode *r = weir__wnode_alloc(c, NODE_RETRACT, rs, re);
        if (!r) {
            rc = WEIR_ENOMEM;
            break;
        }
        r->next = n->retract;
        n->retract = r;
        weir__acc_fini(&c->as, ACC(r));
        rc = weir__acc_deserialize(&c->as, ACC(r), in);
    }
    if (rc) {
        weir__wnode_free(c, n);
        return rc;
    }
    *out = n;
    return 0;
}

/* A slice record of the key: into the slice store. */
static int get_record(wcore *c, wentry *e, const hdr *h, weir_cursor *in)
{
    if (c->mode != MODE_SLICED || h->flags)
        return WEIR_ECORRUPT;
    void *acc = weir__sliced_load_acc(c, e, h->type, h->start, h->end);
    if (!acc)
        return h->type == NODE_CUM ? WEIR_EUNSUPPORTED : WEIR_ENOMEM;
    weir__acc_fini(&c->as, acc);
    int rc = weir__acc_deserialize(&c->as, acc, in);
    uint64_t nr = 0;
    rc = rc ? rc : weir_cursor_get_varint(in, &nr);
    return !rc && nr ? WEIR_ECORRUPT : rc;
}

int weir__wcore_load_entry(weir__wcore *c, const uint8_t *key, size_t len, uint64_t hash,
                           const void *val, size_t vlen, weir_ts wm)
{
    (void)wm;
    weir_cursor in;
    weir_cursor_init(&in, val, vlen);
    uint8_t ver;
    int64_t floor;
    int rc = weir_cursor_get_u8(&in, &ver);
    if (!rc && ver != WSTORE_VERSION)
        return WEIR_ECORRUPT;
    rc = rc ? rc : weir_cursor_get_i64(&in, &floor);
    if (rc)
        return rc;
    wentry *e = weir__wentry_get(c, key, len, hash, true);
    if (!e)
        return WEIR_ENOMEM;
    if (e->head || e->mats || e->nrec)
        return WEIR_EEXIST;
    uint64_t n = 0;
    rc = weir_cursor_get_varint(&in, &n);
    for (uint64_t i = 0; i < n && !rc; i++) {
        hdr h;
        if ((rc = get_header(&in, &h)))
            break;
        if (h.type == NODE_SLICE || h.type == NODE_CUM) {
            rc = get_record(c, e, &h, &in);
        } else {
            wnode *x;
            if (!(rc = get_node(c, &h, &in, &x)))
                weir__list_append(e, x);
        }
    }
    rc = rc ? rc : weir_cursor_get_varint(&in, &n);
    wnode **tailp = &e->mats;
    for (uint64_t i = 0; i < n && !rc; i++) {
        hdr h;
        wnode *x;
        if (!(rc = get_header(&in, &h)) && !(rc = get_node(c, &h, &in, &x))) {
            *tailp = x;
            tailp = &x->next;
        }
    }
    if (!rc && weir_cursor_left(&in))
        rc = WEIR_ECORRUPT;
    e->floor = floor;
    e->flags |= E_IN_STATE;
    /*
     * The restored watermark: late decisions after a restore match the run
     * that wrote the state. With several sources of state (rescaling) the
     * smallest is kept, so no window misses its firing.
     */
    if (!c->loaded || floor < c->wm) {
        c->wm = floor;
        c->wm_prev = floor;
        c->loaded = true;
    }
    int rc2 = weir__wentry_settle(c, e);
    return rc ? rc : rc2;
}
