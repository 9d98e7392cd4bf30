/*
 * window/wstore.c - the live windows of one key as canonical bytes, for
 * keyed state (checkpoints, savepoints, rescaling).
 *
 * Format (version 1), all integers little-endian:
 *   u8 version, i64 floor (the watermark when written: windows ending at or
 *   before it were handled), then three node lists (main, mats, cum), each
 *   varint count followed by nodes:
 *   u8 type, u8 flags, i64 start, end, max_ts, due, u64 count, accumulator,
 *   [aux accumulator if F_PREV], varint retractions, each i64 start, i64
 *   end, accumulator.
 * Hopping's two-stacks aggregates are not written; they are rebuilt at the
 * next firing.
 */
#include "window/wcore_impl.h"

#define WSTORE_VERSION 1
#define PERSIST_FLAGS (F_DIRTY | F_PREV | F_PROCREQ)

static int put_node(wcore *c, const wnode *n, weir_buf *b)
{
    int rc = weir_buf_put_u8(b, n->type);
    rc = rc ? rc : weir_buf_put_u8(b, n->flags & PERSIST_FLAGS);
    rc = rc ? rc : weir_buf_put_i64(b, n->start);
    rc = rc ? rc : weir_buf_put_i64(b, n->end);
    rc = rc ? rc : weir_buf_put_i64(b, n->max_ts);
    rc = rc ? rc : weir_buf_put_i64(b, n->due);
    rc = rc ? rc : weir_buf_put_u64(b, n->count);
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

static int serialize_entry(wcore *c, const wentry *e, weir_buf *b)
{
    weir_buf_clear(b);
    int rc = weir_buf_put_u8(b, WSTORE_VERSION);
    rc = rc ? rc : weir_buf_put_i64(b, c->wm);
    rc = rc ? rc : put_list(c, e->head, b);
    rc = rc ? rc : put_list(c, e->mats, b);
    rc = rc ? rc : weir_buf_put_varint(b, e->cum ? 1 : 0);
    if (!rc && e->cum)
        rc = put_node(c, e->cum, b);
    return rc;
}

static int drain_one(wcore *c, wentry *e, weir__wcore_entry_fn fn, void *ud)
{
    if (!(e->flags & E_CHANGED))
        return 0;
    e->flags &= (uint8_t)~E_CHANGED;
    if (!(e->flags & E_LIVE))
        return 0;
    if (!e->head && !e->mats && !e->cum) {
        if (!(e->flags & E_IN_STATE))
            return 0;
        e->flags &= (uint8_t)~E_IN_STATE;
        return fn(ud, e->key, e->key_len, e->hash, NULL, 0, true);
    }
    int rc = serialize_entry(c, e, &c->sbuf);
    if (rc)
        return rc;
    e->flags |= E_IN_STATE;
    return fn(ud, e->key, e->key_len, e->hash, c->sbuf.data, c->sbuf.len, false);
}

int weir__wcore_drain_changes(weir__wcore *c, weir__wcore_entry_fn fn, void *ud)
{
    int rc = 0;
    for (uint32_t i = 0; i < c->chg_n; i++) {
        wentry *e = c->chg[i];
        e->flags &= (uint8_t)~E_IN_CHG;
        if (!rc)
            rc = drain_one(c, e, fn, ud);
    }
    c->chg_n = 0;
    /* Entries whose listing failed for lack of memory are still marked. */
    for (uint32_t i = 0; i < c->tab_cap && !rc; i++)
        if (c->tab[i] && (c->tab[i]->flags & E_CHANGED))
            rc = drain_one(c, c->tab[i], fn, ud);
    return rc;
}

static int get_node(wcore *c, weir_cursor *in, wnode **out)
{
    uint8_t type, flags;
    int64_t start, end, max_ts, due;
    uint64_t count;
    *out = NULL;
    int rc = weir_cursor_get_u8(in, &type);
    rc = rc ? rc : weir_cursor_get_u8(in, &flags);
    rc = rc ? rc : weir_cursor_get_i64(in, &start);
    rc = rc ? rc : weir_cursor_get_i64(in, &end);
    rc = rc ? rc : weir_cursor_get_i64(in, &max_ts);
    rc = rc ? rc : weir_cursor_get_i64(in, &due);
    rc = rc ? rc : weir_cursor_get_u64(in, &count);
    if (rc)
        return rc;
    if (type < NODE_SLICE || type > NODE_CUM || (flags & ~PERSIST_FLAGS))
        return WEIR_ECORRUPT;
    if ((flags & F_PREV) && c->nblk < 2)
        return WEIR_ECORRUPT;
    wnode *n = weir__wnode_alloc(c, type, start, end);
    if (!n)
        return WEIR_ENOMEM;
    n->flags = flags;
    n->max_ts = max_ts;
    n->due = due;
    n->count = count;
    weir__acc_fini(&c->as, ACC(n));
    rc = weir__acc_deserialize(&c->as, ACC(n), in);
    if (!rc && (flags & F_PREV)) {
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
    if (e->head || e->mats || e->cum)
        return WEIR_EEXIST;
    uint64_t n = 0;
    rc = weir_cursor_get_varint(&in, &n);
    for (uint64_t i = 0; i < n && !rc; i++) {
        wnode *x;
        if (!(rc = get_node(c, &in, &x)))
            weir__list_append(e, x);
    }
    rc = rc ? rc : weir_cursor_get_varint(&in, &n);
    wnode **tailp = &e->mats;
    for (uint64_t i = 0; i < n && !rc; i++) {
        wnode *x;
        if (!(rc = get_node(c, &in, &x))) {
            *tailp = x;
            tailp = &x->next;
        }
    }
    rc = rc ? rc : weir_cursor_get_varint(&in, &n);
    if (!rc && n > 1)
        rc = WEIR_ECORRUPT;
    if (!rc && n == 1)
        rc = get_node(c, &in, &e->cum);
    if (!rc && weir_cursor_left(&in))
        rc = WEIR_ECORRUPT;
    e->floor = floor;
    e->flags |= E_IN_STATE | E_STK_DIRTY;
    e->stk_end = WEIR_TS_MIN;
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
