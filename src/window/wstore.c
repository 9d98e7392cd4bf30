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

/* Writes one slice record of a key (weir__sliced_visit_key's callback). */
static int put_record(void *ud, wentry *e, uint32_t order, int type, weir_ts start, weir_ts end, void *acc)
{
    wcore *c = ud;
    (void)e;
    (void)order;
    int rc = put_header(&c->sbuf, type, 0, start, end, 0, 0, 0);
    rc = rc ? rc : weir__acc_serialize(&c->as, acc, &c->sbuf);
    return rc ? rc : weir_buf_put_varint(&c->sbuf, 0);
}

/* The key's bytes into c->sbuf. */
static int serialize_entry(wcore *c, wentry *e)
{
    weir_buf *b = &c->sbuf;
    weir_buf_clear(b);
    int rc = weir_buf_put_u8(b, WSTORE_VERSION);
    rc = rc ? rc : weir_buf_put_i64(b, c->wm);
    if (c->mode == MODE_SLICED) {
        /* its records: one index probe per live slice (slices in list order, then the period table) */
        rc = rc ? rc : weir_buf_put_varint(b, e->nrec);
        rc = rc ? rc : weir__sliced_visit_key(c, e, put_record, c);
    } else {
        rc = rc ? rc : put_list(c, e->head, b);
    }
    rc = rc ? rc : put_list(c, e->mats, b);
    return rc;
}

static int drain_one(wcore *c, wentry *e, weir__wcore_entry_fn fn, void *ud)
{
    if (!(e->flags & E_CHANGED))
        return 0;
    e->flags &= (uint8_t)~E_CHANGED;
    if (!(e->flags & E_LIVE))
        return 0;
    int rc;
    if (weir__entry_empty(c, e)) {
        if (!(e->flags & E_IN_STATE))
            return 0;
        rc = fn(ud, e->key, e->key_len, e->hash, NULL, 0, true);
        if (!rc) {
            e->flags &= (uint8_t)~E_IN_STATE;
            c->st.drain_cleared++;
        }
    } else if (!(rc = serialize_entry(c, e))) {
        rc = fn(ud, e->key, e->key_len, e->hash, c->sbuf.data, c->sbuf.len, false);
        if (!rc) {
            e->flags |= E_IN_STATE;
            c->st.drain_written++;
        }
    }
    if (rc) {
        /* still to be written: the next drain finds it by its scan */
        e->flags |= E_CHANGED;
        c->chg_lost = true;
    }
    return rc;
}

/*
 * Only the keys marked changed are visited: the cost of a drain is that of
 * the changed keys (their records found by probing each live slice), not of
 * the state. Unchanged keys keep their bytes in keyed state.
 */
int weir__wcore_drain_changes(weir__wcore *c, weir__wcore_entry_fn fn, void *ud)
{
    int rc = 0;
    if (c->mode == MODE_SLICED)
        weir__sliced_mark_moved(c);
    for (uint32_t i = 0; i < c->chg_n; i++) {
        wentry *e = c->chg[i];
        e->flags &= (uint8_t)~E_IN_CHG;
        if (!rc)
            rc = drain_one(c, e, fn, ud);
        else if (e->flags & E_CHANGED)
            c->chg_lost = true; /* not visited: found by the next drain's scan */
    }
    c->chg_n = 0;
    if (rc || !c->chg_lost)
        return rc;
    /* Entries whose listing failed for lack of memory are still marked. */
    c->chg_lost = false;
    for (uint32_t i = 0; i < c->tab_cap && !rc; i++)
        if (c->tab[i].e && (c->tab[i].e->flags & E_CHANGED))
            rc = drain_one(c, c->tab[i].e, fn, ud);
    if (rc)
        c->chg_lost = true;
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
    if (!weir__entry_empty(c, e))
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
    if (floor > c->floor_max)
        c->floor_max = floor;
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
