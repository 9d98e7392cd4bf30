/*
 * ops/local_agg.c - the local phase of a two-phase aggregation (Flink's
 * LocalWindowAggregate / LocalGroupAggregate): chained in front of the
 * keyed exchange, it folds each input batch's rows per key (and per slice
 * of event time) into partial accumulators, so a key that carries half of
 * all rows costs its subtask one row per batch instead of half the input.
 * ops/local_agg.h has the contract; agg/agg_merge.c the global phase.
 *
 * Per batch: the rows' group keys (the encoded key columns, then the
 * slice's representative time) go into a hash index of the batch's groups
 * in order of first appearance; each aggregate then folds its rows into
 * its group's accumulator through the function's batch path, and one row
 * per group is written: its key columns copied from its first row, then
 * each accumulator in the form agg/merge.h gives it - its words in BIGINT
 * columns (COUNT, SUM, AVG, MIN/MAX of 64-bit values), or serialised into
 * one BYTES column (MIN/MAX of strings). Nothing survives the batch.
 *
 * One fixed-width key column of at most 8 bytes (BIGINT, INT, DATE,
 * TIMESTAMP, ...) skips the encoding: the group key is the value's bytes
 * widened to 64 bits, a NULL flag and the slice's time, hashed by
 * multiplication, so a batch costs no key arena, XXH3 or memcmp. The
 * groups are the same: the encoding of such a key is that flag and those
 * bytes.
 */
#include <string.h>

#include "agg/merge.h"
#include "ops/local_agg.h"
#include "util/hindex.h"

typedef struct la_conf {
    weir_local_agg_config cfg;
    weir_agg *aggs;
    int32_t *filters;
} la_conf;

typedef struct la_group {
    uint64_t hash;
    int64_t time;       /* the event time of the group's output row */
    size_t key_off;     /* its group key in the key arena; untyped keys only */
    uint32_t key_len;   /* untyped: its length; typed: 1 for a NULL key, else 0 */
    uint32_t first_row; /* its first input row: the key columns' values */
    uint64_t key;       /* typed: the key's bytes, widened */
} la_group;

typedef struct la_op {
    const la_conf *conf;
    weir_batch *out;
    size_t *acc_off, acc_total;
    la_group *groups;
    uint32_t n_groups, cap_rows; /* cap_rows: the rows the per-row arrays hold */
    uint32_t *slots, n_slots;
    uint32_t *group_of;          /* per input row */
    uint32_t *rows;
    void **accp;
    uint8_t *keys;
    size_t keys_len, keys_cap;
    unsigned char *accs;         /* n_groups * acc_total */
    size_t accs_cap;
    weir_buf ser;
    uint64_t *n_partial;         /* "partial_rows": rows sent on */
    uint32_t *agg_col;           /* per aggregate: its first output column */
    uint32_t *agg_words;         /* per aggregate: the words sent as columns (weir__agg_partial_cols), 0: serialised */
    uint32_t key_width;          /* > 0: one fixed-width key of this many bytes (typed groups) */
} la_op;

static size_t align8(size_t n) { return (n + 7) & ~(size_t)7; }

static int la_create(void *arg, const weir_op_info *info, void **out_op)
{
    la_op *o = weir_calloc(1, sizeof *o);
    *out_op = o;
    if (!o)
        return WEIR_ENOMEM;
    o->conf = arg;
    weir_buf_init(&o->ser);
    const weir_local_agg_config *c = &o->conf->cfg;
    o->out = weir_batch_create(c->out_schema, info->batch_size);
    o->acc_off = weir_calloc(c->n_aggs + 1, sizeof *o->acc_off);
    o->agg_col = weir_calloc(c->n_aggs + 1, sizeof *o->agg_col);
    o->agg_words = weir_calloc(c->n_aggs + 1, sizeof *o->agg_words);
    if (!o->out || !o->acc_off || !o->agg_col || !o->agg_words)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < c->n_aggs; i++) {
        o->acc_off[i] = o->acc_total;
        o->acc_total += align8(weir_agg_acc_size(&o->conf->aggs[i]));
    }
    return 0;
}

static int la_open(void *op, weir_op_ctx *ctx)
{
    la_op *o = op;
    const weir_local_agg_config *c = &o->conf->cfg;
    const weir_schema *in = weir_op_info_of(ctx)->input_schemas[0];
    uint32_t n_out = c->keys.n;
    for (uint32_t i = 0; i < c->n_aggs; i++) {
        uint32_t w = weir__agg_partial_cols(&o->conf->aggs[i], NULL);
        o->agg_col[i] = n_out;
        o->agg_words[i] = w;
        n_out += w ? w : 1;
    }
    if (c->out_schema->n_fields != n_out)
        return weir_op_fail(ctx, WEIR_EINVAL, "local aggregation: the output has %u columns, expected %u",
                            c->out_schema->n_fields, n_out);
    for (uint32_t k = 0; k < c->keys.n; k++)
        if (c->keys.cols[k] >= in->n_fields ||
            in->fields[c->keys.cols[k]].type.id != c->out_schema->fields[k].type.id)
            return weir_op_fail(ctx, WEIR_EINVAL, "local aggregation: key column %u does not match the output",
                                c->keys.cols[k]);
    for (uint32_t i = 0; i < c->n_aggs; i++) {
        const weir_agg *a = &o->conf->aggs[i];
        int32_t f = o->conf->filters[i];
        if (!weir__agg_two_phase_ok(a))
            return weir_op_fail(ctx, WEIR_EINVAL, "local aggregation: %s cannot run in two phases", a->cls->name);
        if ((a->input_col >= 0 && (uint32_t)a->input_col >= in->n_fields) ||
            (f >= 0 && ((uint32_t)f >= in->n_fields || in->fields[f].type.id != WEIR_TYPE_BOOLEAN)))
            return weir_op_fail(ctx, WEIR_EINVAL, "local aggregation: aggregate %u reads a column the input lacks", i);
        uint32_t w = o->agg_words[i];
        for (uint32_t k = 0; k < (w ? w : 1); k++) {
            weir_type_id want = w ? WEIR_TYPE_BIGINT : WEIR_TYPE_BYTES;
            if (c->out_schema->fields[o->agg_col[i] + k].type.id != want)
                return weir_op_fail(ctx, WEIR_EINVAL, "local aggregation: output column %u is not %s",
                                    o->agg_col[i] + k, w ? "BIGINT" : "BYTES");
        }
    }
    o->n_partial = weir_op_counter(ctx, "partial_rows");
    if (c->keys.n == 1 && !weir_type_is_varlen(in->fields[c->keys.cols[0]].type.id)) {
        size_t w = weir_type_size(in->fields[c->keys.cols[0]].type);
        o->key_width = w >= 1 && w <= sizeof(uint64_t) ? (uint32_t)w : 0;
    }
    return 0;
}

/* Room for a batch of n rows: per-row arrays, an index at most half full. */
static int la_reserve(la_op *o, uint32_t n)
{
    if (n > o->cap_rows) {
        weir_free(o->groups);
        weir_free(o->group_of);
        weir_free(o->rows);
        weir_free(o->accp);
        o->groups = weir_malloc((size_t)n * sizeof *o->groups);
        o->group_of = weir_malloc((size_t)n * sizeof *o->group_of);
        o->rows = weir_malloc((size_t)n * sizeof *o->rows);
        o->accp = weir_malloc((size_t)n * sizeof *o->accp);
        o->cap_rows = o->groups && o->group_of && o->rows && o->accp ? n : 0;
        if (!o->cap_rows)
            return WEIR_ENOMEM;
    }
    uint32_t want = 256;
    while (want < 2 * (uint64_t)n)
        want *= 2;
    if (want > o->n_slots) {
        weir_free(o->slots);
        o->slots = weir_malloc((size_t)want * sizeof *o->slots);
        o->n_slots = o->slots ? want : 0;
        if (!o->slots)
            return WEIR_ENOMEM;
    }
    memset(o->slots, 0, (size_t)o->n_slots * sizeof *o->slots);
    size_t need = (size_t)n * o->acc_total;
    if (need > o->accs_cap) {
        weir_free(o->accs);
        o->accs = weir_malloc(need ? need : 8);
        o->accs_cap = o->accs ? need : 0;
        if (!o->accs)
            return WEIR_ENOMEM;
    }
    return 0;
}

static int keys_reserve(la_op *o, size_t more)
{
    if (o->keys_len + more <= o->keys_cap)
        return 0;
    size_t cap = o->keys_cap ? o->keys_cap : 4096;
    while (cap < o->keys_len + more)
        cap *= 2;
    uint8_t *k = weir_realloc(o->keys, cap);
    if (!k)
        return WEIR_ENOMEM;
    o->keys = k;
    o->keys_cap = cap;
    return 0;
}

/*
 * The event time of row time ts's partial row: the last instant of its
 * slice, which every row of the slice shares; ts itself when that instant
 * is past WEIR_TS_MAX (the slice's rows then group by their own times).
 */
static int64_t slice_time(const weir_local_agg_config *c, int64_t ts)
{
    if (!c->slice_ms)
        return 0;
    int64_t x, t64;
    if (!__builtin_sub_overflow(ts, c->slice_offset_ms, &x)) {
        int64_t m = x % c->slice_ms;
        if (m < 0)
            m += c->slice_ms;
        return __builtin_add_overflow(ts, c->slice_ms - 1 - m, &t64) ? ts : t64;
    }
    __int128 d = ((__int128)ts - c->slice_offset_ms) % c->slice_ms;
    if (d < 0)
        d += c->slice_ms;
    __int128 t = (__int128)ts + (c->slice_ms - 1 - d);
    return t > INT64_MAX ? ts : (int64_t)t;
}

static void destroy_accs(la_op *o, uint32_t n_groups)
{
    for (uint32_t g = 0; g < n_groups; g++)
        for (uint32_t i = 0; i < o->conf->cfg.n_aggs; i++)
            weir_agg_destroy(&o->conf->aggs[i], o->accs + (size_t)g * o->acc_total + o->acc_off[i]);
}

/* Finds or adds the group of row r; *g its number. */
static int group_of_row(la_op *o, const weir_batch *in, uint32_t r, uint32_t *g)
{
    const weir_local_agg_config *c = &o->conf->cfg;
    int64_t t = slice_time(c, in->ts[r]);
    /* most keys fit in 64 bytes: encoded once */
    int rc = keys_reserve(o, 64 + sizeof t);
    if (rc)
        return rc;
    size_t len = weir_key_encode(in, &c->keys, r, o->keys + o->keys_len, 64);
    if (len > 64) {
        if ((rc = keys_reserve(o, len + sizeof t)))
            return rc;
        weir_key_encode(in, &c->keys, r, o->keys + o->keys_len, len);
    }
    uint8_t *k = o->keys + o->keys_len;
    if (c->slice_ms) {
        memcpy(k + len, &t, sizeof t);
        len += sizeof t;
    }
    uint64_t h = weir_key_hash(k, len);
    uint32_t mask = o->n_slots - 1;
    for (uint32_t i = weir__hash_slot(h) & mask;; i = (i + 1) & mask) {
        uint32_t s = o->slots[i];
        if (!s) {
            la_group *ng = &o->groups[o->n_groups];
            *ng = (la_group){h, c->slice_ms ? t : in->ts[r], o->keys_len, (uint32_t)len, r, 0};
            unsigned char *acc = o->accs + (size_t)o->n_groups * o->acc_total;
            for (uint32_t a = 0; a < c->n_aggs; a++)
                weir_agg_init(&o->conf->aggs[a], acc + o->acc_off[a]);
            o->keys_len += len;
            o->slots[i] = ++o->n_groups;
            *g = s = o->n_groups - 1;
            return 0;
        }
        const la_group *eg = &o->groups[s - 1];
        if (eg->hash == h && eg->key_len == len && !memcmp(o->keys + eg->key_off, k, len)) {
            *g = s - 1;
            return 0;
        }
    }
}

/* The group key hash of a typed key: one multiply spreads it over the high bits weir__hash_slot takes. */
static inline uint64_t typed_hash(uint64_t key, uint32_t null, int64_t t)
{
    uint64_t h = (key ^ ((uint64_t)t * 0xC2B2AE3D27D4EB4Full) ^ null) * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
}

/* group_of_row for one fixed-width key (o->key_width bytes). */
static inline int typed_group_of_row(la_op *o, const weir_batch *in, uint32_t r, uint32_t *g)
{
    const weir_local_agg_config *c = &o->conf->cfg;
    uint32_t col = c->keys.cols[0];
    int64_t t = slice_time(c, in->ts[r]);
    uint32_t null = weir_batch_is_null(in, col, r);
    uint64_t key = 0;
    if (!null)
        memcpy(&key, (const char *)in->cols[col].data + (size_t)r * o->key_width, o->key_width);
    uint64_t h = typed_hash(key, null, t);
    uint32_t mask = o->n_slots - 1;
    for (uint32_t i = weir__hash_slot(h) & mask;; i = (i + 1) & mask) {
        uint32_t s = o->slots[i];
        if (!s) {
            la_group *ng = &o->groups[o->n_groups];
            *ng = (la_group){h, c->slice_ms ? t : in->ts[r], 0, null, r, key};
            unsigned char *acc = o->accs + (size_t)o->n_groups * o->acc_total;
            for (uint32_t a = 0; a < c->n_aggs; a++)
                weir_agg_init(&o->conf->aggs[a], acc + o->acc_off[a]);
            o->slots[i] = ++o->n_groups;
            *g = o->n_groups - 1;
            return 0;
        }
        const la_group *eg = &o->groups[s - 1];
        if (eg->hash == h && eg->key == key && eg->key_len == null && (!c->slice_ms || eg->time == t)) {
            *g = s - 1;
            return 0;
        }
    }
}

/* Copies the key value at (in, col, row) into (out, k, orow). */
static int copy_key(weir_batch *out, uint32_t k, uint32_t orow, const weir_batch *in, uint32_t col, uint32_t row)
{
    if (weir_batch_is_null(in, col, row)) {
        weir_batch_set_null(out, k, orow);
        return 0;
    }
    weir_batch_set_valid(out, k, orow);
    const weir_column *sc = &in->cols[col];
    if (weir_type_is_varlen(sc->type.id)) {
        uint32_t len;
        const char *s = weir_batch_str(in, col, row, &len);
        return weir_batch_set_str(out, k, orow, s, len);
    }
    size_t w = weir_type_size(sc->type);
    memcpy((char *)out->cols[k].data + (size_t)orow * w, (const char *)sc->data + (size_t)row * w, w);
    return 0;
}

/* The first n words of an accumulator into BIGINT NOT NULL columns col ... of row (agg/merge.h). */
static inline void put_words(weir_batch *out, uint32_t col, uint32_t row, const int64_t *w, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++) {
        WEIR_COL_I64(out, col + k)[row] = w[k];
        if (!out->cols[col + k].all_valid)
            weir_batch_set_valid(out, col + k, row);
    }
}

/* Writes the batch's groups, in order of first appearance, and releases their accumulators. */
static int emit_groups(la_op *o, weir_op_ctx *ctx, const weir_batch *in)
{
    const weir_local_agg_config *c = &o->conf->cfg;
    int rc = 0;
    for (uint32_t g = 0; g < o->n_groups && !rc; g++) {
        if (weir_batch_full(o->out) && (rc = weir_op_emit_reset(ctx, o->out)))
            break;
        int row = weir_batch_append_row(o->out);
        if (row < 0) {
            rc = row;
            break;
        }
        const la_group *gr = &o->groups[g];
        o->out->ts[row] = gr->time;
        for (uint32_t k = 0; k < c->keys.n && !rc; k++)
            rc = copy_key(o->out, k, (uint32_t)row, in, c->keys.cols[k], gr->first_row);
        const unsigned char *acc = o->accs + (size_t)g * o->acc_total;
        for (uint32_t i = 0; i < c->n_aggs && !rc; i++) {
            const weir_agg *a = &o->conf->aggs[i];
            if (o->agg_words[i]) {
                put_words(o->out, o->agg_col[i], (uint32_t)row, (const int64_t *)(acc + o->acc_off[i]),
                          o->agg_words[i]);
                continue;
            }
            o->ser.len = 0;
            if (!(rc = a->cls->serialize(a, acc + o->acc_off[i], &o->ser)))
                rc = weir_batch_set_str(o->out, o->agg_col[i], (uint32_t)row, (const char *)o->ser.data, o->ser.len);
        }
    }
    destroy_accs(o, o->n_groups);
    if (!rc)
        weir_op_counter_add(o->n_partial, o->n_groups);
    o->n_groups = 0;
    if (!rc && o->out->n_rows)
        rc = weir_op_emit_reset(ctx, o->out);
    return rc;
}

static int la_process(void *op, weir_op_ctx *ctx, int input, const weir_batch *in)
{
    (void)input;
    la_op *o = op;
    const weir_local_agg_config *c = &o->conf->cfg;
    uint32_t n = in->n_rows;
    if (!n)
        return 0;
    int rc = la_reserve(o, n);
    if (rc)
        return rc;
    o->n_groups = 0;
    o->keys_len = 0;
    for (uint32_t r = 0; r < n && !rc; r++) {
        if (in->kind[r] != WEIR_ROW_INSERT) {
            rc = weir_op_fail(ctx, WEIR_EINVAL, "local aggregation: input row %u is %s, but only inserts are folded",
                              r, weir_row_kind_name((weir_row_kind)in->kind[r]));
            break;
        }
        rc = o->key_width ? typed_group_of_row(o, in, r, &o->group_of[r]) : group_of_row(o, in, r, &o->group_of[r]);
    }
    for (uint32_t i = 0; i < c->n_aggs && !rc; i++) {
        const weir_agg *a = &o->conf->aggs[i];
        int32_t f = o->conf->filters[i];
        uint32_t m = 0;
        for (uint32_t r = 0; r < n; r++) {
            if (f >= 0 && (weir_batch_is_null(in, (uint32_t)f, r) || !WEIR_COL_BOOL(in, f)[r]))
                continue;
            o->rows[m] = r;
            o->accp[m++] = o->accs + (size_t)o->group_of[r] * o->acc_total + o->acc_off[i];
        }
        rc = weir_agg_add_rows(a, o->accp, in, o->rows, m);
    }
    if (rc) {
        destroy_accs(o, o->n_groups);
        o->n_groups = 0;
        return rc;
    }
    return emit_groups(o, ctx, in);
}

static void la_close(void *op)
{
    la_op *o = op;
    if (!o)
        return;
    destroy_accs(o, o->n_groups);
    weir_batch_destroy(o->out);
    weir_free(o->acc_off);
    weir_free(o->agg_col);
    weir_free(o->agg_words);
    weir_free(o->groups);
    weir_free(o->group_of);
    weir_free(o->rows);
    weir_free(o->accp);
    weir_free(o->slots);
    weir_free(o->keys);
    weir_free(o->accs);
    weir_buf_fini(&o->ser);
    weir_free(o);
}

static const weir_operator_class la_class = {
    .name = "LocalAggregate",
    .open = la_open,
    .process = la_process,
    .close = la_close,
};

static void la_free_arg(void *arg)
{
    la_conf *c = arg;
    if (!c)
        return;
    weir_free(c->aggs);
    weir_free(c->filters);
    weir_free(c);
}

int weir_local_agg_spec(const weir_local_agg_config *cfg, weir_operator_spec *out)
{
    la_conf *c = weir_calloc(1, sizeof *c);
    if (!c)
        return WEIR_ENOMEM;
    c->cfg = *cfg;
    c->aggs = weir_calloc(cfg->n_aggs + 1, sizeof *c->aggs);
    c->filters = weir_calloc(cfg->n_aggs + 1, sizeof *c->filters);
    if (!c->aggs || !c->filters) {
        la_free_arg(c);
        return WEIR_ENOMEM;
    }
    for (uint32_t i = 0; i < cfg->n_aggs; i++) {
        c->aggs[i] = cfg->aggs[i];
        c->filters[i] = cfg->filter_cols ? cfg->filter_cols[i] : -1;
    }
    c->cfg.aggs = c->aggs;
    c->cfg.filter_cols = c->filters;
    *out = (weir_operator_spec){"LocalAggregate", &la_class, la_create, c, la_free_arg};
    return 0;
}
