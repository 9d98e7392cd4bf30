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

int weir__snapshot_encode(weir__backend *be, uint32_t kg, weir_buf *out)
{
    size_t start = out->len;
    int rc;
    if ((rc = weir_buf_put_u32(out, SNAP_MAGIC)) ||
        (rc = weir_buf_put_u8(out, SNAP_VERSION)) ||
        (rc = weir_buf_put_u32(out, kg)) ||
        (rc = weir_buf_put_u32(out, be->max_parallelism)) ||
        (rc = weir_buf_put_u64(out, 0)))
        goto fail;
    size_t body = out->len;
    if ((rc = weir_buf_put_u32(out, 0)))
        goto fail;
    uint32_t n_states = 0;
    int64_t now = 0;
    bool now_read = false;
    for (uint32_t i = 0; i < be->n_states; i++) {
        weir_state *st = be->states[i];
        size_t st_start = out->len;
        if ((rc = weir_buf_put_str(out, st->desc.name)) ||
            (rc = weir_buf_put_u8(out, (uint8_t)st->desc.kind)))
            goto fail;
        size_t count_at = out->len;
        if ((rc = weir_buf_put_u32(out, 0)))
            goto fail;
        weir__snap_writer w = {.out = out};
        if (!st->bound) {
            w.stamps = true; /* TTL unknown until registered: keep stamps as
                                they are */
        } else if (weir__state_has_ttl(st)) {
            if (!now_read) {
                now = weir__now(be);
                now_read = true;
            }
            w.filter = w.stamps = true;
            w.ttl_ms = st->ttl_ms;
            w.now = now;
        }
        if ((rc = be->ops->snapshot_state(st, kg, &w)))
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
    rc = be->ops->drop_kg(be, kg);
    if (!rc)
        rc = parse_body(be, kg, body, true, weir__now(be));
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
