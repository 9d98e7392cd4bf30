/*
 * state/snapshot.c - the canonical, backend-independent snapshot of one key
 * group (format in docs/state.md).
 *
 *   header: u32 magic "WSKG", u8 version, u32 kg, u32 max_parallelism,
 *           u64 body_len
 *   body:   u32 n_states, then per state: str name, u8 kind, u32 n_entries,
 *           entries (by kind, see below)
 *   trailer: u32 crc32c of header and body
 *
 * Invariants: a restore checks the checksum and parses the whole body before
 * it changes anything, so corrupt bytes leave the backend as it was and
 * return WEIR_ECORRUPT; every key of a snapshot hashes to its key group;
 * expired TTL entries are never written.
 */
#include <string.h>

#include "state/backend_impl.h"
#include "weir/key.h"

#define SNAP_MAGIC 0x474B5357u /* "WSKG" little-endian */
#define SNAP_VERSION 1
#define HEADER_LEN (4 + 1 + 4 + 4 + 8)

struct weir__snap_writer {
    weir_buf *out;
    bool filter; /* drop expired items (bound state with TTL) */
    bool stamps; /* write stamps; false writes WEIR__NO_STAMP (state without
                    TTL) */
    int64_t ttl_ms, now;
    uint32_t n_entries;
    size_t group_start;    /* where the open group's entry begins (to drop it if
                              empty) */
    size_t group_count_at; /* where its item count goes */
    uint32_t group_items;
    bool group_open;
};

static void patch_u32(weir_buf *b, size_t at, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b->data[at + (size_t)i] = (uint8_t)(v >> (8 * i));
}

static void patch_u64(weir_buf *b, size_t at, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        b->data[at + (size_t)i] = (uint8_t)(v >> (8 * i));
}

static bool skip(const weir__snap_writer *w, int64_t stamp)
{
    return w->filter && weir__ttl_expired(stamp, w->now, w->ttl_ms);
}

int weir__snap_value(weir__snap_writer *w, const void *key, size_t klen,
                     const void *ns, size_t nslen, int64_t stamp, const void *v,
                     size_t vlen)
{
    if (skip(w, stamp))
        return 0;
    int rc;
    if ((rc = weir_buf_put_bytes(w->out, key, klen)) ||
        (rc = weir_buf_put_bytes(w->out, ns, nslen)) ||
        (rc = weir_buf_put_i64(w->out, w->stamps ? stamp : WEIR__NO_STAMP)) ||
        (rc = weir_buf_put_bytes(w->out, v, vlen)))
        return rc;
    w->n_entries++;
    return 0;
}

int weir__snap_group_begin(weir__snap_writer *w, const void *key, size_t klen,
                           const void *ns, size_t nslen)
{
    int rc;
    w->group_start = w->out->len;
    if ((rc = weir_buf_put_bytes(w->out, key, klen)) ||
        (rc = weir_buf_put_bytes(w->out, ns, nslen)))
        return rc;
    w->group_count_at = w->out->len;
    if ((rc = weir_buf_put_u32(w->out, 0)))
        return rc;
    w->group_items = 0;
    w->group_open = true;
    return 0;
}

int weir__snap_item(weir__snap_writer *w, int64_t stamp, const void *k,
                    size_t klen, const void *v, size_t vlen)
{
    if (skip(w, stamp))
        return 0;
    int rc;
    if (k && (rc = weir_buf_put_bytes(w->out, k, klen)))
        return rc;
    if ((rc = weir_buf_put_i64(w->out, w->stamps ? stamp : WEIR__NO_STAMP)) ||
        (rc = weir_buf_put_bytes(w->out, v, vlen)))
        return rc;
    w->group_items++;
    return 0;
}

int weir__snap_group_end(weir__snap_writer *w)
{
    w->group_open = false;
    if (w->group_items == 0) {
        w->out->len = w->group_start; /* everything in it expired */
        return 0;
    }
    patch_u32(w->out, w->group_count_at, w->group_items);
    w->n_entries++;
    return 0;
}

/*
 * What encode needs to know of a state: the live backend's weir_state for a
 * synchronous snapshot, a copy taken at weir__backend_snapshot_begin for an
 * asynchronous one (the operator may register states meanwhile).
 */
typedef struct sinfo {
    const char *name;
    weir_state_kind kind;
    bool bound;
    int64_t ttl_ms;
    uint32_t id;
} sinfo;

typedef int (*state_fn)(void *ud, uint32_t i, uint32_t kg,
                        weir__snap_writer *w);

/*
 * Writes key group kg of n states. now is read through now_fn only when a
 * bound TTL state needs it (a snapshot without TTL never reads the clock).
 */
static int encode(uint32_t kg, uint32_t max_parallelism, uint32_t n,
                  const sinfo *(*info)(void *ud, uint32_t i),
                  int64_t (*now_fn)(void *ud), state_fn fn, void *ud,
                  weir_buf *out)
{
    size_t start = out->len;
    int rc;
    if ((rc = weir_buf_put_u32(out, SNAP_MAGIC)) ||
        (rc = weir_buf_put_u8(out, SNAP_VERSION)) ||
        (rc = weir_buf_put_u32(out, kg)) ||
        (rc = weir_buf_put_u32(out, max_parallelism)) ||
        (rc = weir_buf_put_u64(out, 0)))
        goto fail;
    size_t body = out->len;
    if ((rc = weir_buf_put_u32(out, 0)))
        goto fail;
    uint32_t n_states = 0;
    int64_t now = 0;
    bool now_read = false;
    for (uint32_t i = 0; i < n; i++) {
        const sinfo *st = info(ud, i);
        size_t st_start = out->len;
        if ((rc = weir_buf_put_str(out, st->name)) ||
            (rc = weir_buf_put_u8(out, (uint8_t)st->kind)))
            goto fail;
        size_t count_at = out->len;
        if ((rc = weir_buf_put_u32(out, 0)))
            goto fail;
        weir__snap_writer w = {.out = out};
        if (!st->bound) {
            w.stamps = true; /* TTL unknown until registered: keep stamps as
                                they are */
        } else if (st->ttl_ms > 0) {
            if (!now_read) {
                now = now_fn(ud);
                now_read = true;
            }
            w.filter = w.stamps = true;
            w.ttl_ms = st->ttl_ms;
            w.now = now;
        }
        if ((rc = fn(ud, i, kg, &w)))
            goto fail;
        if (w.n_entries == 0) {
            out->len = st_start;
            continue;
        }
        patch_u32(out, count_at, w.n_entries);
        n_states++;
    }
    patch_u32(out, body, n_states);
    patch_u64(out, body - 8, (uint64_t)(out->len - body));
    uint32_t crc = weir_crc32c(0, out->data + start, out->len - start);
    if ((rc = weir_buf_put_u32(out, crc)))
        goto fail;
    return 0;
fail:
    out->len = start;
    return rc;
}

/* ---- synchronous: the live backend ---- */

typedef struct live_ctx {
    weir__backend *be;
    sinfo cur;
} live_ctx;

static const sinfo *live_info(void *ud, uint32_t i)
{
    live_ctx *c = ud;
    weir_state *st = c->be->states[i];
    c->cur = (sinfo){st->desc.name, st->desc.kind, st->bound, st->ttl_ms,
                     st->id};
    return &c->cur;
}

static int64_t live_now(void *ud)
{
    return weir__now(((live_ctx *)ud)->be);
}

static int live_state(void *ud, uint32_t i, uint32_t kg, weir__snap_writer *w)
{
    live_ctx *c = ud;
    return c->be->ops->snapshot_state(c->be->states[i], kg, w);
}

int weir__snapshot_encode(weir__backend *be, uint32_t kg, weir_buf *out)
{
    live_ctx c = {.be = be};
    return encode(kg, be->max_parallelism, be->n_states, live_info, live_now,
                  live_state, &c, out);
}

/* ---- asynchronous: a view pinned by weir__backend_snapshot_begin ---- */

struct weir__backend_snap {
    const weir__backend_ops *ops;
    void *view; /* the backend's pinned view; NULL: eager (below) */
    uint32_t kg_lo, kg_hi, max_parallelism;
    uint32_t n_states;
    sinfo *states; /* names owned */
    int64_t now;   /* the clock at begin (TTL filtering) */
    /*
     * A backend without a pinned view is snapshotted eagerly at begin: the
     * canonical bytes of each key group, end offsets in kg_end.
     */
    weir_buf eager;
    size_t *kg_end;
};

static const sinfo *snap_info(void *ud, uint32_t i)
{
    return &((weir__backend_snap *)ud)->states[i];
}

static int64_t snap_now(void *ud)
{
    return ((weir__backend_snap *)ud)->now;
}

static int snap_state(void *ud, uint32_t i, uint32_t kg, weir__snap_writer *w)
{
    weir__backend_snap *s = ud;
    return s->ops->snap_state(s->view, s->states[i].id, s->states[i].kind, kg,
                              w);
}

void weir__backend_snap_release(weir__backend_snap *s)
{
    if (!s)
        return;
    if (s->view)
        s->ops->snap_release(s->view);
    for (uint32_t i = 0; i < s->n_states; i++)
        weir_free((void *)s->states[i].name);
    weir_free(s->states);
    weir_buf_fini(&s->eager);
    weir_free(s->kg_end);
    weir_free(s);
}

int weir__backend_snapshot_begin(weir__backend *be, weir__backend_snap **out)
{
    if (!be || !out)
        return WEIR_EINVAL;
    *out = NULL;
    weir__backend_snap *s = weir_calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    s->ops = be->ops;
    s->kg_lo = be->kg_lo;
    s->kg_hi = be->kg_hi;
    s->max_parallelism = be->max_parallelism;
    weir_buf_init(&s->eager);
    int rc = 0;
    bool ttl = false;
    if (be->n_states &&
        !(s->states = weir_calloc(be->n_states, sizeof *s->states)))
        rc = WEIR_ENOMEM;
    for (uint32_t i = 0; i < be->n_states && !rc; i++) {
        weir_state *st = be->states[i];
        size_t n = strlen(st->desc.name) + 1;
        char *name = weir_malloc(n);
        if (!name) {
            rc = WEIR_ENOMEM;
            break;
        }
        memcpy(name, st->desc.name, n);
        s->states[i] = (sinfo){name, st->desc.kind, st->bound, st->ttl_ms,
                               st->id};
        s->n_states++;
        ttl = ttl || (st->bound && st->ttl_ms > 0);
    }
    if (!rc && ttl)
        s->now = weir__now(be);
    if (!rc && be->ops->snap_begin) {
        rc = be->ops->snap_begin(be, &s->view);
    } else if (!rc) {
        uint32_t n = be->kg_hi - be->kg_lo;
        if (n && !(s->kg_end = weir_calloc(n, sizeof *s->kg_end)))
            rc = WEIR_ENOMEM;
        for (uint32_t k = 0; k < n && !rc; k++) {
            rc = weir__snapshot_encode(be, be->kg_lo + k, &s->eager);
            s->kg_end[k] = s->eager.len;
        }
    }
    if (rc) {
        weir__backend_snap_release(s);
        return rc;
    }
    *out = s;
    return 0;
}

int weir__backend_snap_kg(weir__backend_snap *s, uint32_t kg, weir_buf *out)
{
    if (!s || !out || kg < s->kg_lo || kg >= s->kg_hi)
        return WEIR_EINVAL;
    if (!s->view) {
        uint32_t k = kg - s->kg_lo;
        size_t from = k ? s->kg_end[k - 1] : 0;
        return weir_buf_put(out, s->eager.data + from, s->kg_end[k] - from);
    }
    return encode(kg, s->max_parallelism, s->n_states, snap_info, snap_now,
                  snap_state, s, out);
}

/* ---- decoding ---- */

/*
 * Parses the body; with apply == false only validates (and checks the states
 * against those registered), with apply == true loads every entry.
 */
static int parse_body(weir__backend *be, uint32_t kg, weir_cursor c, bool apply,
                      int64_t now)
{
    uint32_t n_states;
    int rc;
    if ((rc = weir_cursor_get_u32(&c, &n_states)))
        return rc;
    for (uint32_t s = 0; s < n_states; s++) {
        char *name = NULL;
        uint8_t kind;
        uint32_t n_entries;
        if ((rc = weir_cursor_get_str(&c, &name)))
            return rc;
        if (!name || !name[0]) {
            weir_free(name);
            return WEIR_ECORRUPT;
        }
        if ((rc = weir_cursor_get_u8(&c, &kind)) ||
            (rc = weir_cursor_get_u32(&c, &n_entries))) {
            weir_free(name);
            return rc;
        }
        if (kind > WEIR_STATE_AGGREGATING) {
            weir_free(name);
            return WEIR_ECORRUPT;
        }
        weir_state *st = weir__backend_find_state(be, name);
        if (st && st->desc.kind != (weir_state_kind)kind) {
            weir_free(name);
            return WEIR_EINVAL; /* same name, different kind: incompatible state
                                 */
        }
        if (apply && !st) {
            rc = weir__backend_add_state(be, name, (weir_state_kind)kind, &st);
            if (rc) {
                weir_free(name);
                return rc;
            }
        }
        weir_free(name);
        for (uint32_t e = 0; e < n_entries; e++) {
            const void *key, *ns;
            size_t klen, nslen;
            if ((rc = weir_cursor_get_bytes(&c, &key, &klen)) ||
                (rc = weir_cursor_get_bytes(&c, &ns, &nslen)))
                return rc;
            uint64_t hash = weir_key_hash(key, klen);
            if (weir_key_group(hash, be->max_parallelism) != kg)
                return WEIR_ECORRUPT;
            if (apply && (rc = weir__backend_set_key_raw(be, key, klen, hash)))
                return rc;
            if (kind == WEIR_STATE_LIST || kind == WEIR_STATE_MAP) {
                uint32_t n;
                if ((rc = weir_cursor_get_u32(&c, &n)))
                    return rc;
                if (n == 0)
                    return WEIR_ECORRUPT;
                for (uint32_t i = 0; i < n; i++) {
                    const void *mk = NULL, *v;
                    size_t mklen = 0, vlen;
                    int64_t stamp;
                    if (kind == WEIR_STATE_MAP &&
                        (rc = weir_cursor_get_bytes(&c, &mk, &mklen)))
                        return rc;
                    if ((rc = weir_cursor_get_i64(&c, &stamp)) ||
                        (rc = weir_cursor_get_bytes(&c, &v, &vlen)))
                        return rc;
                    if (vlen > UINT32_MAX || mklen > UINT32_MAX)
                        return WEIR_ECORRUPT;
                    if (!apply)
                        continue;
                    if (stamp == WEIR__NO_STAMP)
                        stamp = now;
                    rc = kind == WEIR_STATE_LIST
                             ? be->ops->load_list(st, ns, nslen, stamp, v, vlen)
                             : be->ops->load_map(st, ns, nslen, mk, mklen,
                                                 stamp, v, vlen);
                    if (rc)
                        return rc;
                }
            } else {
                const void *v;
                size_t vlen;
                int64_t stamp;
                if ((rc = weir_cursor_get_i64(&c, &stamp)) ||
                    (rc = weir_cursor_get_bytes(&c, &v, &vlen)))
                    return rc;
                if (vlen > UINT32_MAX)
                    return WEIR_ECORRUPT;
                if (!apply)
                    continue;
                if (stamp == WEIR__NO_STAMP)
                    stamp = now;
                if ((rc = be->ops->load_value(st, ns, nslen, stamp, v, vlen)))
                    return rc;
            }
        }
    }
    return weir_cursor_left(&c) == 0 ? 0 : WEIR_ECORRUPT;
}

bool weir__backend_kg_bytes_empty(const uint8_t *p, size_t len)
{
    if (len == 0)
        return true;
    /* the body starts with its u32 count of states */
    weir_cursor c;
    uint32_t n_states = 1;
    weir_cursor_init(&c, p, len);
    if (len < HEADER_LEN + 4)
        return false;
    c.p += HEADER_LEN;
    return weir_cursor_get_u32(&c, &n_states) == 0 && n_states == 0;
}

int weir__snapshot_decode(weir__backend *be, uint32_t kg, weir_cursor *in)
{
    const uint8_t *start = in->p;
    weir_cursor c = *in;
    uint32_t magic, snap_kg, maxp, crc;
    uint8_t version;
    uint64_t body_len;
    int rc;
    if ((rc = weir_cursor_get_u32(&c, &magic)) ||
        (rc = weir_cursor_get_u8(&c, &version)) ||
        (rc = weir_cursor_get_u32(&c, &snap_kg)) ||
        (rc = weir_cursor_get_u32(&c, &maxp)) ||
        (rc = weir_cursor_get_u64(&c, &body_len)))
        return rc;
    if (magic != SNAP_MAGIC || version != SNAP_VERSION)
        return WEIR_ECORRUPT;
    if (body_len > weir_cursor_left(&c) || weir_cursor_left(&c) - body_len < 4)
        return WEIR_ECORRUPT;
    weir_cursor body;
    weir_cursor_init(&body, c.p, (size_t)body_len);
    c.p += body_len;
    if ((rc = weir_cursor_get_u32(&c, &crc)))
        return rc;
    if (crc != weir_crc32c(0, start, HEADER_LEN + (size_t)body_len))
        return WEIR_ECORRUPT;
    /* Intact bytes that describe another key group or key space: a caller
     * error. */
    if (snap_kg != kg || maxp != be->max_parallelism)
        return WEIR_EINVAL;
    if ((rc = parse_body(be, kg, body, false, 0)))
        return rc;

    /* Valid: replace the key group's contents. Keep the caller's current key.
     */
    weir_buf saved;
    weir_buf_init(&saved);
    bool had_key = be->has_key;
    uint64_t saved_hash = be->key_hash;
    if (had_key && (rc = weir_buf_put(&saved, be->key, be->key_len)))
        return rc;
    if (be->ops->load_begin) {
        /* Bulk: the backend replaces the key group at load_end. */
        rc = be->ops->load_begin(be, kg);
        if (!rc) {
            rc = parse_body(be, kg, body, true, weir__now(be));
            int rc2 = be->ops->load_end(be, kg, rc == 0);
            if (!rc)
                rc = rc2;
        }
    } else {
        rc = be->ops->drop_kg(be, kg);
        if (!rc)
            rc = parse_body(be, kg, body, true, weir__now(be));
    }
    if (had_key) {
        int rc2 =
            weir__backend_set_key_raw(be, saved.data, saved.len, saved_hash);
        if (!rc)
            rc = rc2;
    } else {
        be->has_key = false;
    }
    weir_buf_fini(&saved);
    if (!rc)
        *in = c;
    return rc;
}
