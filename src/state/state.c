/*
 * state/state.c - the generic keyed-state layer: backend creation, state
 * registration, the current key, and the public API of weir/state.h
 * (everything but weir_op_get_state, which the runtime implements on top of
 * weir__backend_register).
 *
 * Invariants: every public entry checks its arguments and the state kind
 * before it reaches a backend; a backend op is only called with a current
 * key that belongs to an owned key group; reducing and aggregating states
 * are read-modify-write updates of one stored value, so a backend needs only
 * the update primitive to support them.
 */
#include <string.h>

#include "state/backend_impl.h"
#include "weir/key.h"

/* ---- backend lifecycle ---- */

int weir__backend_init(weir__backend *be, const weir__backend_ops *ops,
                       const weir__backend_config *cfg)
{
    be->ops = ops;
    be->max_parallelism = cfg->max_parallelism;
    be->kg_lo = cfg->kg_lo;
    be->kg_hi = cfg->kg_hi;
    be->clock = cfg->clock.now_ms ? cfg->clock : weir_clock_system();
    weir_buf_init(&be->scratch);
    return 0;
}

void weir__backend_fini(weir__backend *be)
{
    /* The backend freed its state structs; only the generic parts remain. */
    weir_free(be->states);
    weir_free(be->key_buf);
    weir_buf_fini(&be->scratch);
    be->states = NULL;
    be->key = be->key_buf = NULL;
}

int weir__backend_create(const weir__backend_config *cfg, weir__backend **out)
{
    if (!cfg || !out)
        return WEIR_EINVAL;
    *out = NULL;
    /* Key groups are stored as u16 by disk backends and in snapshots. */
    if (cfg->max_parallelism == 0 || cfg->max_parallelism > 32768)
        return WEIR_EINVAL;
    if (cfg->kg_lo > cfg->kg_hi || cfg->kg_hi > cfg->max_parallelism)
        return WEIR_EINVAL;
    if (!cfg->kind || strcmp(cfg->kind, "memory") == 0 ||
        strcmp(cfg->kind, "heap") == 0 || strcmp(cfg->kind, "hashmap") == 0)
        return weir__memory_backend_create(cfg, out);
    if (strcmp(cfg->kind, "rocksdb") == 0) {
#ifdef WEIR_HAVE_ROCKSDB
        return weir__rocksdb_backend_create(cfg, out);
#else
        return WEIR_EUNSUPPORTED;
#endif
    }
    return WEIR_EINVAL;
}

void weir__backend_destroy(weir__backend *be)
{
    if (be)
        be->ops->destroy(be);
}

int weir__backend_write_batch(weir__backend *be, bool on)
{
    if (!be)
        return WEIR_EINVAL;
    return be->ops->write_batch ? be->ops->write_batch(be, on) : 0;
}

void weir__state_prefetch(weir_state *st, uint64_t key_hash, int stage)
{
    if (st && st->be->ops->prefetch)
        st->be->ops->prefetch(&st, 1, stage == 0 ? &key_hash : NULL, stage == 0 ? NULL : &key_hash);
}

void weir__states_prefetch(weir_state *const *st, uint32_t n, const uint64_t *slot_hash, const uint64_t *rec_hash)
{
    if (n && st[0]->be->ops->prefetch)
        st[0]->be->ops->prefetch(st, n, slot_hash, rec_hash);
}

uint64_t weir__backend_size_bytes(const weir__backend *be)
{
    return be ? be->ops->size_bytes(be) : 0;
}

/* ---- registration ---- */

weir_state *weir__backend_find_state(weir__backend *be, const char *name)
{
    for (uint32_t i = 0; i < be->n_states; i++)
        if (strcmp(be->states[i]->desc.name, name) == 0)
            return be->states[i];
    return NULL;
}

int weir__backend_add_state(weir__backend *be, const char *name,
                            weir_state_kind kind, weir_state **out)
{
    if (be->n_states == be->cap_states) {
        uint32_t cap = be->cap_states ? be->cap_states * 2 : 8;
        weir_state **s = weir_realloc(be->states, cap * sizeof *s);
        if (!s)
            return WEIR_ENOMEM;
        be->states = s;
        be->cap_states = cap;
    }
    char *nm = weir_strdup(name);
    if (!nm)
        return WEIR_ENOMEM;
    weir_state *st = NULL;
    int rc = be->ops->state_create(be, &st);
    if (rc) {
        weir_free(nm);
        return rc;
    }
    st->be = be;
    st->id = be->n_states;
    st->bound = false;
    st->ttl_ms = 0;
    st->desc.name = nm;
    st->desc.kind = kind;
    be->states[be->n_states++] = st;
    *out = st;
    return 0;
}

static bool kind_valid(weir_state_kind k)
{
    return k >= WEIR_STATE_VALUE && k <= WEIR_STATE_AGGREGATING;
}

int weir__backend_register(weir__backend *be, const weir_state_desc *desc,
                           weir_state **out)
{
    if (!be || !desc || !out || !desc->name || !desc->name[0] ||
        !kind_valid(desc->kind) || desc->ttl_ms < 0)
        return WEIR_EINVAL;
    if (desc->ttl_update != WEIR_TTL_ON_CREATE_AND_WRITE &&
        desc->ttl_update != WEIR_TTL_ON_READ_AND_WRITE)
        return WEIR_EINVAL;
    if (desc->kind == WEIR_STATE_REDUCING && !desc->reduce)
        return WEIR_EINVAL;
    if (desc->kind == WEIR_STATE_AGGREGATING && !desc->agg_add)
        return WEIR_EINVAL;
    weir_state *st = weir__backend_find_state(be, desc->name);
    if (st) {
        if (st->desc.kind != desc->kind)
            return WEIR_EINVAL;
        if (st->bound) {
            *out = st;
            return 0;
        }
    } else {
        int rc = weir__backend_add_state(be, desc->name, desc->kind, &st);
        if (rc)
            return rc;
    }
    /* Bind: the operator's callbacks and TTL now apply (also to restored
     * entries). */
    const char *name = st->desc.name;
    st->desc = *desc;
    st->desc.name = name;
    st->ttl_ms = desc->ttl_ms;
    st->bound = true;
    int rc = be->ops->state_bound ? be->ops->state_bound(be, st) : 0;
    if (rc)
        return rc;
    *out = st;
    return 0;
}

/* ---- the current key ---- */

/* Makes key (len bytes, valid until the next change) the current key. */
static int use_key(weir__backend *be, const uint8_t *key, size_t len, uint64_t hash, uint32_t kg)
{
    be->key = key;
    be->key_len = len;
    be->key_hash = hash;
    be->kg = kg;
    be->has_key = true;
    if (be->ops->key_changed) {
        int rc = be->ops->key_changed(be);
        if (rc) {
            be->has_key = false;
            return rc;
        }
    }
    return 0;
}

int weir__backend_set_key(weir__backend *be, const void *key, size_t len,
                          uint64_t hash)
{
    if (!be || (!key && len))
        return WEIR_EINVAL;
    uint32_t kg = weir_key_group(hash, be->max_parallelism);
    if (kg < be->kg_lo || kg >= be->kg_hi)
        return WEIR_EINVAL; /* the key belongs to another subtask */
    return weir__backend_set_key_raw(be, key, len, hash);
}

int weir__backend_use_key(weir__backend *be, const void *key, size_t len,
                          uint64_t hash, uint32_t kg)
{
    if (!be || (!key && len))
        return WEIR_EINVAL;
    if (kg < be->kg_lo || kg >= be->kg_hi)
        return WEIR_EINVAL; /* the key belongs to another subtask */
    return use_key(be, key, len, hash, kg);
}

int weir__backend_set_key_raw(weir__backend *be, const void *key, size_t len,
                              uint64_t hash)
{
    if (len > be->key_cap) {
        size_t cap = len < 64 ? 64 : len;
        uint8_t *k = weir_realloc(be->key_buf, cap);
        if (!k)
            return WEIR_ENOMEM;
        be->key_buf = k;
        be->key_cap = cap;
    }
    if (len && key != be->key_buf)
        memmove(be->key_buf, key, len);
    return use_key(be, be->key_buf, len, hash, weir_key_group(hash, be->max_parallelism));
}

const uint8_t *weir__backend_key(const weir__backend *be, size_t *len,
                                 uint32_t *kg)
{
    if (!be || !be->has_key)
        return NULL;
    if (len)
        *len = be->key_len;
    if (kg)
        *kg = be->kg;
    return be->key ? be->key : (const uint8_t *)"";
}

/* ---- snapshots ---- */

int weir__backend_snapshot_kg(weir__backend *be, uint32_t kg, weir_buf *out)
{
    if (!be || !out || kg < be->kg_lo || kg >= be->kg_hi)
        return WEIR_EINVAL;
    return weir__snapshot_encode(be, kg, out);
}

int weir__backend_restore_kg(weir__backend *be, uint32_t kg, weir_cursor *in)
{
    if (!be || !in || kg < be->kg_lo || kg >= be->kg_hi)
        return WEIR_EINVAL;
    return weir__snapshot_decode(be, kg, in);
}

/* ---- the public API ---- */

/* Common checks: a state, a current key, a namespace pointer when ns_len > 0.
 */
static inline int check(const weir_state *st, const void *ns, size_t ns_len)
{
    if (!st || (!ns && ns_len))
        return WEIR_EINVAL;
    if (!st->be->has_key)
        return WEIR_ESTATE;
    return 0;
}

static inline bool value_like(weir_state_kind k)
{
    return k == WEIR_STATE_VALUE || k == WEIR_STATE_REDUCING ||
           k == WEIR_STATE_AGGREGATING;
}

int weir_value_get(weir_state *st, const void *ns, size_t ns_len,
                   const void **val, size_t *len)
{
    int rc = check(st, ns, ns_len);
    if (rc)
        return rc;
    if (!val || !len || !value_like(st->desc.kind))
        return WEIR_EINVAL;
    return st->be->ops->get(st, ns, ns_len, val, len);
}

int weir_value_put(weir_state *st, const void *ns, size_t ns_len,
                   const void *val, size_t len)
{
    int rc = check(st, ns, ns_len);
    if (rc)
        return rc;
    if ((!val && len) || !value_like(st->desc.kind) || len > UINT32_MAX)
        return WEIR_EINVAL;
    return st->be->ops->put(st, ns, ns_len, val, len);
}

int weir__state_stamp(weir_state *st, const void *ns, size_t ns_len,
                      const void *k, size_t klen, int64_t *stamp)
{
    int rc = check(st, ns, ns_len);
    if (rc)
        return rc;
    if (!stamp || (!k && klen) ||
        (k ? st->desc.kind != WEIR_STATE_MAP : !value_like(st->desc.kind)))
        return WEIR_EINVAL;
    return st->be->ops->stamp(st, ns, ns_len, k, klen, stamp);
}

/* A stamp as a put stores it: none in a state without TTL. */
static int64_t put_stamp(const weir_state *st, int64_t stamp)
{
    return weir__state_has_ttl(st) ? stamp : WEIR__NO_STAMP;
}

int weir__value_put_stamped(weir_state *st, const void *ns, size_t ns_len,
                            int64_t stamp, const void *val, size_t len)
{
    int rc = check(st, ns, ns_len);
    if (rc)
        return rc;
    if ((!val && len) || !value_like(st->desc.kind) || len > UINT32_MAX)
        return WEIR_EINVAL;
    return st->be->ops->load_value(st, ns, ns_len, put_stamp(st, stamp), val,
                                   len);
}

int weir__map_put_stamped(weir_state *st, const void *ns, size_t ns_len,
                          const void *k, size_t klen, int64_t stamp,
                          const void *v, size_t vlen)
{
    int rc = check(st, ns, ns_len);
    if (rc)
        return rc;
    if ((!k && klen) || (!v && vlen) || st->desc.kind != WEIR_STATE_MAP ||
        klen > UINT32_MAX || vlen > UINT32_MAX)
        return WEIR_EINVAL;
    return st->be->ops->load_map(st, ns, ns_len, k, klen, put_stamp(st, stamp),
                                 v, vlen);
}

int weir__value_get_key(weir_state *st, const void *key, size_t klen,
                        uint64_t key_hash, const void **val, size_t *len)
{
    if (!st || (!key && klen) || !val || !len || !value_like(st->desc.kind))
        return WEIR_EINVAL;
    if (!st->be->ops->get_key)
        return 1;
    return st->be->ops->get_key(st, key, klen, key_hash, val, len);
}

int weir__value_edit_key(weir_state *st, const void *key, size_t klen,
                         uint64_t key_hash, size_t len, size_t keep_max,
                         weir_value_edit_fn fn, void *ud)
{
    if (!st || (!key && klen) || !fn || !value_like(st->desc.kind) ||
        len > UINT32_MAX)
        return WEIR_EINVAL;
    if (!st->be->ops->value_edit_key)
        return 1;
    return st->be->ops->value_edit_key(st, key, klen, key_hash, len, keep_max,
                                       fn, ud);
}

int weir_value_edit(weir_state *st, const void *ns, size_t ns_len, size_t len, size_t keep_max, weir_value_edit_fn fn,
                    void *ud)
{
    int rc = check(st, ns, ns_len);
    if (rc)
        return rc;
    if (!fn || !value_like(st->desc.kind) || len > UINT32_MAX)
        return WEIR_EINVAL;
    if (st->be->ops->value_edit)
        return st->be->ops->value_edit(st, ns, ns_len, len, keep_max, fn, ud);
    /* A get and a put of a copy. */
    const void *old;
    size_t oldlen = 0;
    rc = st->be->ops->get(st, ns, ns_len, &old, &oldlen);
    if (rc && rc != WEIR_ENOTFOUND)
        return rc;
    size_t keep = rc ? 0 : oldlen < len ? oldlen : len;
    if (keep > keep_max)
        keep = keep_max;
    uint8_t *buf = weir_malloc(len ? len : 1);
    if (!buf)
        return WEIR_ENOMEM;
    if (keep)
        memcpy(buf, old, keep);
    rc = fn(ud, buf, len, keep);
    if (rc >= 0)
        rc = st->be->ops->put(st, ns, ns_len, buf, len);
    weir_free(buf);
    return rc;
}

bool weir_state_in_memory(const weir_state *st)
{
    return st && st->be && !strcmp(st->be->ops->kind, "memory");
}

int weir_state_clear(weir_state *st, const void *ns, size_t ns_len)
{
    int rc = check(st, ns, ns_len);
    if (rc)
        return rc;
    return st->be->ops->clear(st, ns, ns_len);
}

int weir_list_add(weir_state *st, const void *ns, size_t ns_len,
                  const void *val, size_t len)
{
    int rc = check(st, ns, ns_len);
    if (rc)
        return rc;
    if ((!val && len) || st->desc.kind != WEIR_STATE_LIST || len > UINT32_MAX)
        return WEIR_EINVAL;
    return st->be->ops->list_add(st, ns, ns_len, val, len);
}

int weir_list_get(weir_state *st, const void *ns, size_t ns_len,
                  weir_list_visit_fn fn, void *ud)
{
    int rc = check(st, ns, ns_len);
    if (rc)
        return rc;
    if (!fn || st->desc.kind != WEIR_STATE_LIST)
        return WEIR_EINVAL;
    return st->be->ops->list_get(st, ns, ns_len, fn, ud);
}

int weir_map_put(weir_state *st, const void *ns, size_t ns_len, const void *k,
                 size_t klen, const void *v, size_t vlen)
{
    int rc = check(st, ns, ns_len);
    if (rc)
        return rc;
    if ((!k && klen) || (!v && vlen) || st->desc.kind != WEIR_STATE_MAP ||
        klen > UINT32_MAX || vlen > UINT32_MAX)
        return WEIR_EINVAL;
    return st->be->ops->map_put(st, ns, ns_len, k, klen, v, vlen);
}

int weir_map_get(weir_state *st, const void *ns, size_t ns_len, const void *k,
                 size_t klen, const void **v, size_t *vlen)
{
    int rc = check(st, ns, ns_len);
    if (rc)
        return rc;
    if ((!k && klen) || !v || !vlen || st->desc.kind != WEIR_STATE_MAP)
        return WEIR_EINVAL;
    return st->be->ops->map_get(st, ns, ns_len, k, klen, v, vlen);
}

int weir_map_remove(weir_state *st, const void *ns, size_t ns_len,
                    const void *k, size_t klen)
{
    int rc = check(st, ns, ns_len);
    if (rc)
        return rc;
    if ((!k && klen) || st->desc.kind != WEIR_STATE_MAP)
        return WEIR_EINVAL;
    return st->be->ops->map_remove(st, ns, ns_len, k, klen);
}

int weir_map_update(weir_state *st, const void *ns, size_t ns_len, const void *k, size_t klen, size_t vlen,
                    weir_map_update_fn fn, void *ud)
{
    int rc = check(st, ns, ns_len);
    if (rc)
        return rc;
    if ((!k && klen) || !fn || st->desc.kind != WEIR_STATE_MAP || klen > UINT32_MAX || vlen > UINT32_MAX)
        return WEIR_EINVAL;
    if (st->be->ops->map_update)
        return st->be->ops->map_update(st, ns, ns_len, k, klen, vlen, fn, ud);
    /* A get and a put (or a remove) on a copy of the value. */
    uint8_t small[256];
    uint8_t *buf = vlen <= sizeof small ? small : weir_malloc(vlen);
    if (!buf)
        return WEIR_ENOMEM;
    const void *old;
    size_t oldlen;
    bool had = false;
    rc = st->be->ops->map_get(st, ns, ns_len, k, klen, &old, &oldlen);
    if (rc == 0) {
        had = true;
        if (oldlen != vlen)
            rc = WEIR_ECORRUPT;
        else if (vlen)
            memcpy(buf, old, vlen);
    } else if (rc == WEIR_ENOTFOUND) {
        memset(buf, 0, vlen);
        rc = 0;
    }
    if (rc == 0 && (rc = fn(ud, buf, vlen)) >= 0) {
        if (rc > 0)
            rc = st->be->ops->map_put(st, ns, ns_len, k, klen, buf, vlen);
        else
            rc = had ? st->be->ops->map_remove(st, ns, ns_len, k, klen) : 0;
    }
    if (buf != small)
        weir_free(buf);
    return rc;
}

int weir_map_rewrite(weir_state *st, const void *ns, size_t ns_len, const void *k, size_t klen,
                     weir_map_rewrite_fn fn, void *ud)
{
    int rc = check(st, ns, ns_len);
    if (rc)
        return rc;
    if ((!k && klen) || !fn || st->desc.kind != WEIR_STATE_MAP || klen > UINT32_MAX)
        return WEIR_EINVAL;
    if (st->be->ops->map_rewrite)
        return st->be->ops->map_rewrite(st, ns, ns_len, k, klen, fn, ud);
    /* A get and a put (or a remove): the new value may be the old one's bytes. */
    const void *old = NULL, *nv = NULL;
    size_t oldlen = 0, nvlen = 0;
    rc = st->be->ops->map_get(st, ns, ns_len, k, klen, &old, &oldlen);
    bool had = rc == 0;
    if (had && !old)
        old = ""; /* present, empty: not NULL, which says absent */
    if (rc == WEIR_ENOTFOUND) {
        old = NULL;
        oldlen = 0;
    } else if (rc) {
        return rc;
    }
    if ((rc = fn(ud, old, oldlen, &nv, &nvlen)) < 0)
        return rc;
    if (rc == 0)
        return had ? st->be->ops->map_remove(st, ns, ns_len, k, klen) : 0;
    if (nvlen > UINT32_MAX || (!nv && nvlen))
        return WEIR_EINVAL;
    return st->be->ops->map_put(st, ns, ns_len, k, klen, nv, nvlen);
}

int weir_map_iterate(weir_state *st, const void *ns, size_t ns_len,
                     weir_map_visit_fn fn, void *ud)
{
    int rc = check(st, ns, ns_len);
    if (rc)
        return rc;
    if (!fn || st->desc.kind != WEIR_STATE_MAP)
        return WEIR_EINVAL;
    return st->be->ops->map_iterate(st, ns, ns_len, fn, ud);
}

typedef struct add_ctx {
    const weir_state *st;
    const void *val;
    size_t len;
} add_ctx;

static int reduce_update(void *ud, const void *old, size_t oldlen,
                         weir_buf *out)
{
    add_ctx *a = ud;
    if (!old)
        return weir_buf_put(out, a->val,
                            a->len); /* the first value is stored as it is */
    const weir_state_desc *d = &a->st->desc;
    return weir__user_rc(d->reduce(d->ud, old, oldlen, a->val, a->len, out));
}

static int aggregate_update(void *ud, const void *old, size_t oldlen,
                            weir_buf *out)
{
    add_ctx *a = ud;
    /* An absent accumulator reaches agg_add as an empty buffer: it creates one.
     */
    if (old) {
        int rc = weir_buf_put(out, old, oldlen);
        if (rc)
            return rc;
    }
    const weir_state_desc *d = &a->st->desc;
    return weir__user_rc(d->agg_add(d->ud, out, a->val, a->len));
}

int weir_state_add(weir_state *st, const void *ns, size_t ns_len,
                   const void *val, size_t len)
{
    int rc = check(st, ns, ns_len);
    if (rc)
        return rc;
    if (!val && len)
        return WEIR_EINVAL;
    add_ctx a = {st, val, len};
    if (!st->bound)
        return WEIR_ESTATE; /* restored but never registered: no callbacks */
    if (st->desc.kind == WEIR_STATE_REDUCING)
        return st->be->ops->update(st, ns, ns_len, reduce_update, &a);
    if (st->desc.kind == WEIR_STATE_AGGREGATING)
        return st->be->ops->update(st, ns, ns_len, aggregate_update, &a);
    return WEIR_EINVAL;
}

int weir_state_get_result(weir_state *st, const void *ns, size_t ns_len,
                          weir_buf *out)
{
    int rc = check(st, ns, ns_len);
    if (rc)
        return rc;
    if (!out || !value_like(st->desc.kind))
        return WEIR_EINVAL;
    const void *v;
    size_t len;
    rc = st->be->ops->get(st, ns, ns_len, &v, &len);
    if (rc)
        return rc;
    weir_buf_clear(out);
    if (st->desc.kind == WEIR_STATE_AGGREGATING && st->desc.agg_result)
        return weir__user_rc(st->desc.agg_result(st->desc.ud, v, len, out));
    return weir_buf_put(out, v, len);
}

/* Key groups and entries of state st (collect_keys lists its pairs). */
static int count_entries(weir_state *st, uint32_t *key_groups, uint64_t *entries)
{
    weir__backend *be = st->be;
    weir_buf pairs;
    weir_buf_init(&pairs);
    int rc = 0;
    *key_groups = 0;
    *entries = 0;
    for (uint32_t kg = be->kg_lo; kg < be->kg_hi && !rc; kg++) {
        weir_buf_clear(&pairs);
        if ((rc = be->ops->collect_keys(st, kg, &pairs)))
            break;
        weir_cursor c;
        weir_cursor_init(&c, pairs.data, pairs.len);
        uint64_t n = 0;
        const void *k, *ns;
        size_t klen, nslen;
        while (weir_cursor_left(&c) > 0 && !(rc = weir_cursor_get_bytes(&c, &k, &klen)) &&
               !(rc = weir_cursor_get_bytes(&c, &ns, &nslen)))
            n++;
        *key_groups += n > 0;
        *entries += n;
    }
    weir_buf_fini(&pairs);
    return rc;
}

int weir__backend_unclaimed(weir__backend *be, weir__unclaimed_fn fn, void *ud)
{
    if (!be || !fn)
        return WEIR_EINVAL;
    for (uint32_t i = 0; i < be->n_states; i++) {
        weir_state *st = be->states[i];
        if (st->bound)
            continue;
        uint32_t kgs;
        uint64_t entries;
        int rc = count_entries(st, &kgs, &entries);
        if (rc)
            return rc;
        if (entries)
            fn(ud, st->desc.name, kgs, entries);
    }
    return 0;
}

/* ---- visiting keys ---- */

int weir_state_keys(weir_state *st, weir_state_key_visit_fn fn, void *ud)
{
    if (!st || !fn)
        return WEIR_EINVAL;
    weir__backend *be = st->be;
    int rc = 0;
    weir_buf pairs, saved;
    weir_buf_init(&pairs);
    weir_buf_init(&saved);
    /* The visitor may write state (even clear what it visits), so visit copies.
     */
    bool had_key = be->has_key;
    uint64_t saved_hash = be->key_hash;
    if (had_key && (rc = weir_buf_put(&saved, be->key, be->key_len)))
        goto out;
    for (uint32_t kg = be->kg_lo; kg < be->kg_hi && rc == 0; kg++) {
        weir_buf_clear(&pairs);
        rc = be->ops->collect_keys(st, kg, &pairs);
        if (rc)
            break;
        weir_cursor c;
        weir_cursor_init(&c, pairs.data, pairs.len);
        while (weir_cursor_left(&c) > 0) {
            const void *k, *ns;
            size_t klen, nslen;
            if ((rc = weir_cursor_get_bytes(&c, &k, &klen)) ||
                (rc = weir_cursor_get_bytes(&c, &ns, &nslen)))
                break;
            if ((rc = weir__backend_set_key_raw(be, k, klen,
                                                weir_key_hash(k, klen))))
                break;
            int v = fn(ud, k, klen, ns, nslen);
            if (v) {
                rc = v < 0 ? v : 0;
                goto restore;
            }
        }
    }
restore:
    if (had_key) {
        int rc2 =
            weir__backend_set_key_raw(be, saved.data, saved.len, saved_hash);
        if (!rc)
            rc = rc2;
    } else {
        be->has_key = false;
    }
out:
    weir_buf_fini(&pairs);
    weir_buf_fini(&saved);
    return rc;
}
