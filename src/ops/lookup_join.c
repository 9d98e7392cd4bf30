/*
 * ops/lookup_join.c - a processing-time lookup join against a bounded
 * table (Flink's lookup join, `JOIN t FOR SYSTEM_TIME AS OF s.proc_time`):
 * every input row is joined with the rows of the table whose key equals its
 * key at the time it is processed.
 *
 * The table is a bounded source (a file, say). Each subtask reads all of it
 * when it opens - every split, as one subtask of one - keeping the rows that
 * pass the table's filter (conditions of the ON clause on the table alone)
 * in a hash table by key. Once the table is cache_ttl_ms old (the job's
 * processing time, checked when a batch arrives) it is read again before
 * the batch is joined, as Flink's filesystem lookup source does after
 * 'lookup.join.cache.ttl': rows joined until then saw the old contents,
 * rows after it the new ones. Keys compare as
 * SQL values: INT and BIGINT key columns are compared as BIGINT, other
 * types need equal types (the planner casts the stream side); a NULL key
 * matches nothing.
 *
 * A table queried by key (conf->lookup set: a jdbc table) is not read at
 * all when the subtask opens: for each input batch, the distinct keys the
 * cache lacks (or holds stale: expire-after-write/-access on the job's
 * processing-time clock) are fetched in one lookup and their rows go into
 * the same hash table, which is then the cache; without a cache it is
 * emptied before every batch.
 *
 * Output: the first n_out columns of the input row, then the table's
 * columns; INNER drops rows without a match, LEFT pads them with NULLs. A
 * residual condition over the output row decides matches. Append-only
 * input gives append-only output; the operator keeps no keyed state (the
 * table is read again at a restore).
 */
#include <stdio.h>
#include <string.h>

#include "ops/ops.h"
#include "ops/rowcodec.h"
#include "util/dec128.h"
#include "util/hindex.h"
#include "weir/expr.h"
#include "weir/key.h"

typedef struct lj_entry {
    uint64_t hash;
    uint32_t koff, klen; /* key bytes in keys */
    uint32_t first, last; /* first and last row (index into rows) with this key */
    uint32_t next;       /* chain in the hash table, UINT32_MAX at the end */
    /* keyed lookups: when the rows were fetched and last used; the batch
     * that fetches them */
    int64_t written_ms, accessed_ms;
    uint64_t gen;
} lj_entry;

typedef struct lj_op {
    const weir_lookup_join_config *conf;
    uint32_t n_right;
    /* the table: rows in encoded form, grouped by key */
    weir_buf rows;        /* encoded rows, back to back */
    uint32_t *row_off;    /* per row: offset in rows; row_len */
    uint32_t *row_len;
    uint32_t *row_next;   /* next row of the same key, UINT32_MAX at the end */
    uint32_t n_rows, cap_rows;
    weir_buf keys;
    lj_entry *ents;
    uint32_t n_ents, cap_ents;
    uint32_t *slots; /* open hash: entry index + 1, 0 empty */
    uint32_t n_slots;
    weir_batch *out;
    weir_expr_env *env;
    weir_buf kb;  /* a key */
    weir_buf row; /* a table row being encoded (reused while loading) */
    int64_t loaded_ms; /* processing time of the last load */
    uint64_t *n_table_rows, *n_loads;
    /* keyed lookups */
    void *inst;
    weir_batch *keys_b;  /* the keys one batch fetches */
    weir_batch *fetched; /* what the table returned for them */
    uint8_t *sel;
    uint64_t gen;
    uint64_t *n_lookups, *n_cache_hits;
} lj_op;

/* ---- keys: SQL values, INT and BIGINT alike (DATE and TIME are 32-bit too) ---- */

/* An exact number (INT, BIGINT, DECIMAL) as CAST(x AS DOUBLE) makes it, so as '=' beside a DOUBLE compares it. */
static double exact_as_double(const weir_column *c, uint32_t row)
{
    if (weir_type_is_wide(c->type)) {
        weir_i128 v;
        memcpy(&v, (const char *)c->data + (size_t)row * sizeof v, sizeof v);
        return weir__dec_to_double(v, c->type.scale);
    }
    switch (c->type.id) {
    case WEIR_TYPE_INT: return ((const int32_t *)c->data)[row];
    case WEIR_TYPE_DECIMAL: return weir__dec_to_double(((const int64_t *)c->data)[row], c->type.scale);
    default: return (double)((const int64_t *)c->data)[row];
    }
}

/* The key of row `row`; as_double (a table row's, or NULL) marks exact columns keyed as their DOUBLE. */
static int key_of(const weir_batch *b, const uint32_t *cols, const bool *as_double, uint32_t n, uint32_t row,
                  weir_buf *out)
{
    weir_buf_clear(out);
    for (uint32_t i = 0; i < n; i++) {
        const weir_column *c = &b->cols[cols[i]];
        if (weir_batch_is_null(b, cols[i], row))
            return 1; /* a NULL key matches nothing */
        int rc;
        if (as_double && as_double[i]) {
            double d = exact_as_double(c, row);
            if ((rc = weir_buf_put(out, &d, sizeof d)))
                return rc;
            continue;
        }
        switch (c->type.id) {
        case WEIR_TYPE_INT:
        case WEIR_TYPE_DATE:
        case WEIR_TYPE_TIME: rc = weir_buf_put_i64(out, ((const int32_t *)c->data)[row]); break;
        case WEIR_TYPE_BOOLEAN: rc = weir_buf_put_u8(out, ((const uint8_t *)c->data)[row] != 0); break;
        case WEIR_TYPE_STRING:
        case WEIR_TYPE_BYTES: {
            uint32_t len;
            const char *s = weir_batch_str(b, cols[i], row, &len);
            rc = weir_buf_put_bytes(out, s, len);
            break;
        }
        case WEIR_TYPE_DOUBLE: {
            double d = ((const double *)c->data)[row];
            if (d == 0)
                d = 0; /* -0.0 equals 0.0 */
            rc = weir_buf_put(out, &d, sizeof d);
            break;
        }
        default: {
            size_t w = weir_type_size(c->type);
            if (w == 8) /* BIGINT, timestamps, DECIMAL of up to 18 digits: as an INT's */
                rc = weir_buf_put_i64(out, ((const int64_t *)c->data)[row]);
            else /* both sides of one type (the planner casts the stream's): its bytes */
                rc = weir_buf_put(out, (const char *)c->data + (size_t)row * w, w);
            break;
        }
        }
        if (rc)
            return rc;
    }
    return 0;
}

/* The entry of key bytes k, or UINT32_MAX. */
static uint32_t find(const lj_op *o, const uint8_t *k, size_t len, uint64_t h)
{
    if (!o->n_slots)
        return UINT32_MAX;
    for (uint32_t i = weir__hash_slot(h) & (o->n_slots - 1); o->slots[i]; i = (i + 1) & (o->n_slots - 1)) {
        const lj_entry *e = &o->ents[o->slots[i] - 1];
        if (e->hash == h && e->klen == len && !memcmp(o->keys.data + e->koff, k, len))
            return o->slots[i] - 1;
    }
    return UINT32_MAX;
}

/* Adds row r of batch b (table columns) under its key. */
static int add_row(lj_op *o, const weir_batch *b, uint32_t r)
{
    const weir_lookup_join_config *c = o->conf;
    int rc = key_of(b, c->right_keys, c->right_as_double, c->n_keys, r, &o->kb);
    if (rc)
        return rc > 0 ? 0 : rc; /* a NULL key is never found */
    if (o->n_rows == o->cap_rows) {
        uint32_t cap = o->cap_rows ? o->cap_rows * 2 : 1024;
        uint32_t *a = weir_realloc(o->row_off, cap * sizeof *a), *l, *nx;
        if (!a)
            return WEIR_ENOMEM;
        o->row_off = a;
        if (!(l = weir_realloc(o->row_len, cap * sizeof *l)))
            return WEIR_ENOMEM;
        o->row_len = l;
        if (!(nx = weir_realloc(o->row_next, cap * sizeof *nx)))
            return WEIR_ENOMEM;
        o->row_next = nx;
        o->cap_rows = cap;
    }
    size_t at = o->rows.len;
    rc = weir__row_encode(b, r, o->n_right, &o->row);
    if (!rc)
        rc = weir_buf_put(&o->rows, o->row.data, o->row.len);
    size_t len = o->row.len;
    if (rc)
        return rc;
    if (o->rows.len > UINT32_MAX)
        return WEIR_ENOMEM;
    uint32_t id = o->n_rows++;
    o->row_off[id] = (uint32_t)at;
    o->row_len[id] = (uint32_t)len;
    uint64_t h = weir_key_hash(o->kb.data, o->kb.len);
    uint32_t e = find(o, o->kb.data, o->kb.len, h);
    if (e != UINT32_MAX && o->ents[e].first == UINT32_MAX) {
        /* a key being fetched again: its first row */
        o->ents[e].first = o->ents[e].last = id;
        o->row_next[id] = UINT32_MAX;
        return 0;
    }
    if (e != UINT32_MAX) {
        /* append at the end of the key's rows: the table's order is kept */
        o->row_next[o->ents[e].last] = id;
        o->row_next[id] = UINT32_MAX;
        o->ents[e].last = id;
        return 0;
    }
    if (o->n_ents == o->cap_ents) {
        uint32_t cap = o->cap_ents ? o->cap_ents * 2 : 1024;
        lj_entry *ne = weir_realloc(o->ents, cap * sizeof *ne);
        if (!ne)
            return WEIR_ENOMEM;
        o->ents = ne;
        o->cap_ents = cap;
    }
    if ((o->n_ents + 1) * 2 > o->n_slots &&
        (rc = weir__hindex_grow(&o->slots, &o->n_slots, o->ents, sizeof *o->ents, o->n_ents)))
        return rc;
    size_t koff = o->keys.len;
    if ((rc = weir_buf_put(&o->keys, o->kb.data, o->kb.len)))
        return rc;
    o->ents[o->n_ents] = (lj_entry){h, (uint32_t)koff, (uint32_t)o->kb.len, id, id, 0, 0, 0, 0};
    o->row_next[id] = UINT32_MAX;
    uint32_t i = weir__hash_slot(h) & (o->n_slots - 1);
    while (o->slots[i])
        i = (i + 1) & (o->n_slots - 1);
    o->slots[i] = ++o->n_ents;
    return 0;
}

/* Reads the whole table (every split, as the only subtask) into the hash table, replacing what it held. */
static int load_table(lj_op *o, weir_op_ctx *ctx)
{
    weir_buf_clear(&o->rows);
    weir_buf_clear(&o->keys);
    o->n_rows = o->n_ents = 0;
    if (o->n_slots)
        memset(o->slots, 0, o->n_slots * sizeof *o->slots);
    o->loaded_ms = weir_op_now_ms(ctx);
    const weir_lookup_join_config *c = o->conf;
    const weir_source_class *cls = c->table.cls;
    weir_source_info info = {.subtask = 0, .parallelism = 1, .batch_size = 1024, .schema = c->table.schema};
    weir_error err = {0};
    void *src = NULL;
    int rc = cls->create(c->table.arg, &info, &src, &err);
    weir_batch *b = weir_batch_create(c->table.schema, 1024);
    uint8_t *sel = weir_malloc(1024);
    if (!rc && (!b || !sel))
        rc = WEIR_ENOMEM;
    bool done = false;
    while (!rc && !done) {
        const char **ids;
        uint32_t n = 0;
        if ((rc = cls->discover(src, &ids, &n, &done, &err)))
            break;
        for (uint32_t i = 0; i < n && !rc; i++) {
            void *rd = NULL;
            if ((rc = cls->open_split(src, ids[i], NULL, 0, &rd, &err)))
                break;
            for (;;) {
                weir_batch_reset(b);
                int got = cls->read(rd, b, 1024, &err);
                if (got == WEIR_EOF)
                    break;
                if (got < 0) {
                    rc = got;
                    break;
                }
                if (got == 0) {
                    rc = weir_error_set(&err, WEIR_EUNSUPPORTED, "the lookup table is not bounded (a split has no "
                                                                 "data now but has not ended)");
                    break;
                }
                if (c->table_filter && (rc = weir_expr_filter(c->table_filter, b, o->env, sel, &err)))
                    break;
                for (uint32_t r = 0; r < b->n_rows && !rc; r++)
                    if (!c->table_filter || sel[r])
                        rc = add_row(o, b, r);
            }
            cls->close_split(rd);
        }
    }
    if (src)
        cls->destroy(src);
    weir_batch_destroy(b);
    weir_free(sel);
    if (rc)
        return weir_op_fail(ctx, rc, "lookup table '%s': %s", c->table_name,
                            err.message[0] ? err.message : weir_strerror(rc));
    weir_op_counter_set(o->n_table_rows, o->n_rows);
    weir_op_counter_add(o->n_loads, 1);
    return 0;
}

/* ---- probing ---- */

static int flush(lj_op *o, weir_op_ctx *ctx) { return weir_op_emit_reset(ctx, o->out); }

/* Appends the input row r joined with table row id (UINT32_MAX: padded); false when the residual drops it. */
static int put(lj_op *o, weir_op_ctx *ctx, const weir_batch *in, uint32_t r, uint32_t id, bool *kept)
{
    const weir_lookup_join_config *c = o->conf;
    int row = weir__out_row(ctx, o->out);
    if (row < 0)
        return row;
    int rc = weir__row_copy_cols(o->out, (uint32_t)row, 0, in, r, 0, c->n_out);
    if (rc)
        return rc;
    if (id != UINT32_MAX)
        rc = weir__row_decode(o->rows.data + o->row_off[id], o->row_len[id], o->out, (uint32_t)row, c->n_out,
                              o->n_right);
    else
        for (uint32_t k = 0; k < o->n_right; k++)
            weir_batch_set_null(o->out, c->n_out + k, (uint32_t)row);
    if (rc)
        return rc;
    o->out->kind[row] = in->kind[r];
    o->out->ts[row] = in->ts[r];
    *kept = true;
    if (id != UINT32_MAX && c->residual) {
        weir_value v;
        weir_error err = {0};
        if ((rc = weir_expr_eval_row(c->residual, o->out, (uint32_t)row, o->env, &v, &err)))
            return weir_op_fail(ctx, rc, "lookup join condition: %s", err.message);
        if (v.is_null || !v.v.b) {
            o->out->n_rows--;
            *kept = false;
        }
    }
    return 0;
}

/* ---- keyed lookups (a table queried by key through a cache) ---- */

static void cache_clear(lj_op *o)
{
    weir_buf_clear(&o->rows);
    weir_buf_clear(&o->keys);
    o->n_rows = o->n_ents = 0;
    if (o->n_slots)
        memset(o->slots, 0, o->n_slots * sizeof *o->slots);
}

/* Adds the entry of key o->kb (no rows yet); its index, or UINT32_MAX. */
static uint32_t add_empty(lj_op *o, uint64_t h)
{
    if (o->n_ents == o->cap_ents) {
        uint32_t cap = o->cap_ents ? o->cap_ents * 2 : 1024;
        lj_entry *ne = weir_realloc(o->ents, cap * sizeof *ne);
        if (!ne)
            return UINT32_MAX;
        o->ents = ne;
        o->cap_ents = cap;
    }
    if ((o->n_ents + 1) * 2 > o->n_slots &&
        weir__hindex_grow(&o->slots, &o->n_slots, o->ents, sizeof *o->ents, o->n_ents))
        return UINT32_MAX;
    size_t koff = o->keys.len;
    if (weir_buf_put(&o->keys, o->kb.data, o->kb.len))
        return UINT32_MAX;
    o->ents[o->n_ents] = (lj_entry){h, (uint32_t)koff, (uint32_t)o->kb.len, UINT32_MAX, UINT32_MAX, 0, 0, 0, 0};
    uint32_t i = weir__hash_slot(h) & (o->n_slots - 1);
    while (o->slots[i])
        i = (i + 1) & (o->n_slots - 1);
    o->slots[i] = ++o->n_ents;
    return o->n_ents - 1;
}

static bool fresh(const weir_lookup_source *l, const lj_entry *e, int64_t now)
{
    if (e->written_ms == INT64_MIN)
        return false; /* a missing key that is not to be remembered */
    if (l->expire_after_write_ms > 0 && now - e->written_ms >= l->expire_after_write_ms)
        return false;
    if (l->expire_after_access_ms > 0 && now - e->accessed_ms >= l->expire_after_access_ms)
        return false;
    return true;
}

/* Copies key column i of input row r into row kr of the keys batch, as the table's type. */
static int put_key_value(lj_op *o, const weir_batch *in, uint32_t col, uint32_t r, uint32_t kcol, uint32_t kr)
{
    weir_batch *k = o->keys_b;
    const weir_column *src = &in->cols[col];
    weir_type_id dt = k->cols[kcol].type.id;
    switch (dt) {
    case WEIR_TYPE_INT:
    case WEIR_TYPE_BIGINT: {
        int64_t v = src->type.id == WEIR_TYPE_INT ? ((const int32_t *)src->data)[r] : ((const int64_t *)src->data)[r];
        if (dt == WEIR_TYPE_INT)
            WEIR_COL_I32(k, kcol)[kr] = (int32_t)v;
        else
            WEIR_COL_I64(k, kcol)[kr] = v;
        return 0;
    }
    case WEIR_TYPE_DATE:
    case WEIR_TYPE_TIME: WEIR_COL_I32(k, kcol)[kr] = ((const int32_t *)src->data)[r]; return 0;
    case WEIR_TYPE_BOOLEAN: WEIR_COL_BOOL(k, kcol)[kr] = ((const uint8_t *)src->data)[r]; return 0;
    case WEIR_TYPE_DOUBLE: WEIR_COL_F64(k, kcol)[kr] = ((const double *)src->data)[r]; return 0;
    case WEIR_TYPE_STRING:
    case WEIR_TYPE_BYTES: {
        uint32_t len;
        const char *s = weir_batch_str(in, col, r, &len);
        return weir_batch_set_str(k, kcol, kr, s, len);
    }
    default: { /* the stream's key is of the table's type (the planner casts it): its bytes */
        size_t w = weir_type_size(src->type);
        memcpy((char *)k->cols[kcol].data + (size_t)kr * w, (const char *)src->data + (size_t)r * w, w);
        return 0;
    }
    }
}

/*
 * Makes sure every key of the batch has fresh rows in the cache: the keys it
 * lacks (or holds stale) are fetched in one lookup.
 */
static int lookup_batch(lj_op *o, weir_op_ctx *ctx, const weir_batch *in)
{
    const weir_lookup_join_config *c = o->conf;
    const weir_lookup_source *l = &c->lookup;
    int64_t now = weir_op_now_ms(ctx);
    /* No cache: every batch asks again. A full cache starts over (weir evicts all keys at once), and so
     * does one whose row buffer passed 64 MiB (rows of keys fetched again stay in it until then). */
    if (!l->cache || (l->cache_max_rows > 0 && o->n_ents >= (uint64_t)l->cache_max_rows) ||
        o->rows.len > ((size_t)64 << 20))
        cache_clear(o);
    o->gen++;
    weir_batch_reset(o->keys_b);
    for (uint32_t r = 0; r < in->n_rows; r++) {
        int rc = key_of(in, c->left_keys, NULL, c->n_keys, r, &o->kb);
        if (rc < 0)
            return rc;
        if (rc)
            continue;
        uint64_t h = weir_key_hash(o->kb.data, o->kb.len);
        uint32_t e = find(o, o->kb.data, o->kb.len, h);
        if (e != UINT32_MAX && (o->ents[e].gen == o->gen || fresh(l, &o->ents[e], now))) {
            if (o->ents[e].gen != o->gen)
                weir_op_counter_add(o->n_cache_hits, 1);
            continue;
        }
        if (e == UINT32_MAX && (e = add_empty(o, h)) == UINT32_MAX)
            return WEIR_ENOMEM;
        lj_entry *en = &o->ents[e];
        en->first = en->last = UINT32_MAX; /* the old rows are dropped */
        en->gen = o->gen;
        en->written_ms = en->accessed_ms = now;
        int kr = weir_batch_append_row(o->keys_b);
        if (kr < 0)
            return WEIR_ENOMEM;
        for (uint32_t i = 0; i < c->n_keys; i++)
            if ((rc = put_key_value(o, in, c->left_keys[i], r, i, (uint32_t)kr)))
                return rc;
    }
    if (o->keys_b->n_rows == 0)
        return 0;
    weir_error err = {0};
    int rc = 0;
    for (int64_t attempt = 0;; attempt++) {
        weir_batch_reset(o->fetched);
        weir_error_clear(&err);
        rc = l->lookup(o->inst, o->keys_b, o->fetched, &err);
        if (!rc || attempt >= l->max_retries)
            break;
    }
    weir_op_counter_add(o->n_lookups, 1);
    if (rc)
        return weir_op_fail(ctx, rc, "lookup table '%s': %s", c->table_name,
                            err.message[0] ? err.message : weir_strerror(rc));
    weir_batch *b = o->fetched;
    if (c->table_filter && (rc = weir_expr_filter(c->table_filter, b, o->env, o->sel, &err)))
        return weir_op_fail(ctx, rc, "lookup table '%s': %s", c->table_name, err.message);
    for (uint32_t r = 0; r < b->n_rows; r++) {
        if (c->table_filter && !o->sel[r])
            continue;
        if ((rc = add_row(o, b, r)))
            return rc;
    }
    if (!l->cache_missing_key)
        for (uint32_t e = 0; e < o->n_ents; e++)
            if (o->ents[e].gen == o->gen && o->ents[e].first == UINT32_MAX)
                o->ents[e].written_ms = INT64_MIN; /* asked again next time */
    weir_op_counter_set(o->n_table_rows, o->n_rows);
    return 0;
}

static int lj_process(void *op, weir_op_ctx *ctx, int input, const weir_batch *in)
{
    (void)input;
    lj_op *o = op;
    const weir_lookup_join_config *c = o->conf;
    if (c->lookup.lookup) {
        int rc = lookup_batch(o, ctx, in);
        if (rc)
            return rc;
    } else if (c->cache_ttl_ms > 0 && weir_op_now_ms(ctx) - o->loaded_ms >= c->cache_ttl_ms) {
        int rc = load_table(o, ctx);
        if (rc)
            return rc;
    }
    weir_expr_env_set_watermark(o->env, weir_op_watermark(ctx));
    for (uint32_t r = 0; r < in->n_rows; r++) {
        int rc = key_of(in, c->left_keys, NULL, c->n_keys, r, &o->kb);
        if (rc < 0)
            return rc;
        bool any = false;
        uint32_t e = rc ? UINT32_MAX : find(o, o->kb.data, o->kb.len, weir_key_hash(o->kb.data, o->kb.len));
        if (e != UINT32_MAX)
            o->ents[e].accessed_ms = weir_op_now_ms(ctx);
        for (uint32_t id = e == UINT32_MAX ? UINT32_MAX : o->ents[e].first; id != UINT32_MAX; id = o->row_next[id]) {
            bool kept;
            if ((rc = put(o, ctx, in, r, id, &kept)))
                return rc;
            any |= kept;
        }
        if (!any && c->left_outer) {
            bool kept;
            if ((rc = put(o, ctx, in, r, UINT32_MAX, &kept)))
                return rc;
        }
    }
    return flush(o, ctx);
}

/* ---- lifecycle ---- */

static int lj_create(void *arg, const weir_op_info *info, void **out)
{
    const weir_lookup_join_config *c = arg;
    lj_op *o = weir_calloc(1, sizeof *o);
    if (!o)
        return WEIR_ENOMEM;
    *out = o;
    o->conf = c;
    o->n_right = c->table.schema->n_fields;
    weir_buf_init(&o->rows);
    weir_buf_init(&o->keys);
    weir_buf_init(&o->kb);
    weir_buf_init(&o->row);
    o->out = weir_batch_create(c->out_schema, info->batch_size);
    o->env = weir_expr_env_create();
    if (!o->out || !o->env)
        return WEIR_ENOMEM;
    if (c->lookup.lookup) {
        /* a key matches any number of rows: the fetched batch grows */
        o->keys_b = weir_batch_create(c->lookup.key_schema, info->batch_size);
        uint32_t cap = info->batch_size > 65536 ? info->batch_size : 65536;
        o->fetched = weir_batch_create(c->table.schema, cap);
        o->sel = weir_malloc(cap);
        if (!o->keys_b || !o->fetched || !o->sel)
            return WEIR_ENOMEM;
    }
    weir_expr_env_set_clock(o->env, &c->clock);
    return 0;
}

static int lj_open(void *op, weir_op_ctx *ctx)
{
    lj_op *o = op;
    o->n_table_rows = weir_op_counter(ctx, "lookup_table_rows");
    o->n_loads = weir_op_counter(ctx, "lookup_table_loads");
    const weir_lookup_source *l = &o->conf->lookup;
    if (!l->lookup)
        return load_table(o, ctx);
    o->n_lookups = weir_op_counter(ctx, "lookup_queries");
    o->n_cache_hits = weir_op_counter(ctx, "lookup_cache_hits");
    if (!o->n_lookups || !o->n_cache_hits || !o->n_table_rows)
        return WEIR_ENOMEM;
    weir_error err = {0};
    int rc = l->open(l->arg, &o->inst, &err);
    if (rc) {
        o->inst = NULL;
        return weir_op_fail(ctx, rc, "lookup table '%s': %s", o->conf->table_name,
                            err.message[0] ? err.message : weir_strerror(rc));
    }
    return 0;
}

static void lj_close(void *op)
{
    lj_op *o = op;
    if (!o)
        return;
    weir_buf_fini(&o->rows);
    weir_buf_fini(&o->keys);
    weir_buf_fini(&o->kb);
    weir_buf_fini(&o->row);
    weir_free(o->row_off);
    weir_free(o->row_len);
    weir_free(o->row_next);
    weir_free(o->ents);
    weir_free(o->slots);
    weir_batch_destroy(o->out);
    weir_expr_env_destroy(o->env);
    if (o->inst)
        o->conf->lookup.close(o->inst);
    weir_batch_destroy(o->keys_b);
    weir_batch_destroy(o->fetched);
    weir_free(o->sel);
    weir_free(o);
}

static const weir_operator_class lj_class = {
    .name = "LookupJoin",
    .open = lj_open,
    .process = lj_process,
    .close = lj_close,
};

typedef struct lj_arg {
    weir_lookup_join_config conf;
    char name[128];
} lj_arg;

static void lj_arg_free(void *p)
{
    lj_arg *a = p;
    if (!a)
        return;
    if (a->conf.table.free_arg)
        a->conf.table.free_arg(a->conf.table.arg);
    if (a->conf.lookup.free_arg)
        a->conf.lookup.free_arg(a->conf.lookup.arg);
    weir_free(a);
}

int weir_lookup_join_spec(const weir_lookup_join_config *cfg, weir_operator_spec *out)
{
    if ((!cfg->table.cls && !cfg->lookup.lookup) || !cfg->table.schema || !cfg->out_schema || cfg->n_keys == 0 ||
        cfg->n_keys > WEIR_KEY_MAX_COLS)
        return WEIR_EINVAL;
    lj_arg *a = weir_calloc(1, sizeof *a);
    if (!a)
        return WEIR_ENOMEM;
    a->conf = *cfg;
    snprintf(a->name, sizeof a->name, "%s", cfg->table_name ? cfg->table_name : "?");
    a->conf.table_name = a->name;
    *out = (weir_operator_spec){"LookupJoin", &lj_class, lj_create, a, lj_arg_free};
    return 0;
}
