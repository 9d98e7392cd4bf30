/*
 * planner/calc.c - the calc operator: a WHERE predicate and a projection,
 * evaluated a batch at a time by the expression engine. Row times and row
 * kinds pass through unchanged, so a calc never disturbs event time or a
 * changelog. One expression environment per subtask holds the scratch
 * memory, so steady-state evaluation allocates nothing. The filter and
 * the projection form one weir_expr_calc: a subexpression they repeat
 * (q21's LOWER(channel) in four WHENs and the IN of its WHERE) is computed
 * once per batch.
 * A projection of input columns alone (a rename, a reorder, columns
 * dropped or repeated: what a join's or an INSERT's SELECT list often
 * is) evaluates nothing: its output is a view of the input batch, each
 * column the input column it names, sharing its values, validity and
 * string heap. The view lives until the emit returns, as the input does,
 * and nothing downstream writes into a batch it is handed. (Evaluated,
 * each row's strings were copied into a new heap, once per such calc:
 * 7 % of Nexmark q20's instructions went to its two.)
 */
#include <string.h>

#include "planner/planner.h"

typedef struct calc_conf {
    weir_expr_calc *prog;     /* the filter (or none) and the projections (or none: "keep the input columns") */
    bool filter, project;
    uint32_t n;
    int32_t ts_col;           /* >= 0: the rows' event time is this output column (a time attribute changed) */
    const weir_schema *out;
    weir_clock clock;
    uint32_t *src;            /* a projection of input columns alone, no filter: output column k is input column
                                 src[k]; NULL: otherwise */
} calc_conf;

typedef struct calc {
    const calc_conf *conf;
    weir_expr_env *env;
    uint8_t *sel;
    weir_batch *filtered; /* input rows that passed the filter */
    weir_batch *out;
    /* the view of the input (conf->src, view_fits): its columns; its row times when ts_col changes them */
    bool viewed;
    weir_batch view;
    weir_column *vcols;
    weir_ts *vts;
    uint32_t vts_cap;
} calc;

/* Whether an input column of type in holds the values of an output column of type out as they are (the type an
 * evaluation of the column reference would store them in; otherwise the projection is evaluated). */
static bool same_layout(weir_type in, weir_type out)
{
    return in.id == out.id && weir_type_size(in) == weir_type_size(out) &&
           (in.id != WEIR_TYPE_DECIMAL || in.scale == out.scale);
}

/* Whether the projection's output can be a view of the input: each column's type stored as the input's. */
static bool view_fits(const calc_conf *c, const weir_schema *in)
{
    if (!c->src || !in)
        return false;
    for (uint32_t k = 0; k < c->n; k++)
        if (c->src[k] >= in->n_fields || !same_layout(in->fields[c->src[k]].type, c->out->fields[k].type))
            return false;
    return true;
}

static int calc_create(void *arg, const weir_op_info *info, void **out_op)
{
    const calc_conf *c = arg;
    calc *k = weir_calloc(1, sizeof *k);
    *out_op = k;
    if (!k)
        return WEIR_ENOMEM;
    k->conf = c;
    k->env = weir_expr_env_create();
    if (!k->env)
        return WEIR_ENOMEM;
    if (c->clock.now_ms)
        weir_expr_env_set_clock(k->env, &c->clock);
    if (c->filter && !c->project) {
        k->sel = weir_malloc(info->batch_size ? info->batch_size : 1);
        k->filtered = weir_batch_create(info->input_schemas[0], info->batch_size);
        if (!k->sel || !k->filtered)
            return WEIR_ENOMEM;
    }
    if (c->project && view_fits(c, info->input_schemas[0])) {
        k->viewed = true;
        k->vcols = weir_calloc(c->n ? c->n : 1, sizeof *k->vcols);
        return k->vcols ? 0 : WEIR_ENOMEM;
    }
    if (c->project) {
        k->out = weir_batch_create(c->out, info->batch_size);
        if (!k->out)
            return WEIR_ENOMEM;
    }
    return 0;
}

/* The rows' event times where column ts_col (a TIMESTAMP / TIMESTAMP_LTZ time attribute: epoch milliseconds)
 * holds one; an inner join's is never NULL. */
static void take_times(const weir_batch *b, int32_t ts_col, weir_ts *ts)
{
    const int64_t *v = b->cols[ts_col].data;
    for (uint32_t r = 0; r < b->n_rows; r++)
        if (!weir_batch_is_null(b, (uint32_t)ts_col, r))
            ts[r] = v[r];
}

/* Emits the view of in's columns conf->src (see the top of the file). */
static int emit_view(calc *k, weir_op_ctx *ctx, const weir_batch *in)
{
    const calc_conf *c = k->conf;
    weir_batch *v = &k->view;
    *v = *in;
    v->schema = c->out;
    v->cols = k->vcols;
    v->key_hash = NULL;
    v->key_hash_of = NULL; /* its key, if any, is the input's columns */
    for (uint32_t i = 0; i < c->n; i++) {
        v->cols[i] = in->cols[c->src[i]];
        v->cols[i].type = c->out->fields[i].type;
    }
    if (c->ts_col >= 0) {
        if (in->n_rows > k->vts_cap) {
            weir_ts *ts = weir_realloc(k->vts, (size_t)in->n_rows * sizeof *ts);
            if (!ts)
                return WEIR_ENOMEM;
            k->vts = ts;
            k->vts_cap = in->n_rows;
        }
        memcpy(k->vts, in->ts, (size_t)in->n_rows * sizeof *k->vts);
        v->ts = k->vts;
        take_times(v, c->ts_col, v->ts);
    }
    return weir_op_emit(ctx, v);
}

static int calc_process(void *op, weir_op_ctx *ctx, int input, const weir_batch *in)
{
    calc *k = op;
    const calc_conf *c = k->conf;
    weir_error err;
    if (k->viewed)
        return emit_view(k, ctx, in);
    weir_expr_env_set_watermark(k->env, weir_op_watermark(ctx));
    if (c->project) {
        if (weir_expr_calc_run(c->prog, in, k->env, k->out, &err))
            return weir_op_fail(ctx, err.code ? err.code : WEIR_EINVAL, "%s", err.message);
        if (c->filter && k->out->n_rows == 0)
            return 0;
        if (c->ts_col >= 0)
            take_times(k->out, c->ts_col, k->out->ts);
        return weir_op_emit(ctx, k->out);
    }
    /* A filter alone: the input's rows it keeps, as they are. */
    const weir_batch *src = in;
    if (c->filter) {
        if (weir_expr_calc_filter(c->prog, in, k->env, k->sel, &err))
            return weir_op_fail(ctx, err.code ? err.code : WEIR_EINVAL, "%s", err.message);
        uint32_t n = 0;
        for (uint32_t r = 0; r < in->n_rows; r++)
            n += k->sel[r] != 0;
        if (n == 0)
            return 0;
        if (n < in->n_rows) {
            /* Gather the passing rows; a typical filter keeps few rows. */
            weir_batch_reset(k->filtered);
            uint32_t rows[1024];
            uint32_t m = 0;
            for (uint32_t r = 0; r < in->n_rows; r++) {
                if (!k->sel[r])
                    continue;
                rows[m++] = r;
                if (m == 1024) {
                    if (weir_batch_gather(k->filtered, in, rows, m))
                        return WEIR_ENOMEM;
                    m = 0;
                }
            }
            if (m && weir_batch_gather(k->filtered, in, rows, m))
                return WEIR_ENOMEM;
            src = k->filtered;
        }
    }
    return weir_op_emit(ctx, src);
}

static void calc_close(void *op)
{
    calc *k = op;
    if (!k)
        return;
    weir_expr_env_destroy(k->env);
    weir_free(k->sel);
    weir_batch_destroy(k->filtered);
    weir_batch_destroy(k->out);
    weir_free(k->vcols);
    weir_free(k->vts);
    weir_free(k);
}

static const weir_operator_class calc_class = {
    .name = "Calc",
    .process = calc_process,
    .close = calc_close,
};

static void calc_conf_free(void *arg)
{
    calc_conf *c = arg;
    if (c)
        weir_free(c->src);
    weir_free(c);
}

/* c->src when exprs[0, n) are input columns alone and there is no filter (it stays NULL otherwise). */
static int plain_columns(calc_conf *c, weir_expr *filter, weir_expr *const *exprs, uint32_t n)
{
    if (filter || !exprs)
        return 0;
    for (uint32_t k = 0; k < n; k++)
        if (weir_expr_column_index(exprs[k]) < 0)
            return 0;
    if (!(c->src = weir_malloc((n ? n : 1) * sizeof *c->src)))
        return WEIR_ENOMEM;
    for (uint32_t k = 0; k < n; k++)
        c->src[k] = (uint32_t)weir_expr_column_index(exprs[k]);
    return 0;
}

int weir__calc_spec(weir_expr_arena *arena, weir_expr *filter, weir_expr *const *exprs, uint32_t n, int32_t ts_col,
                    const weir_schema *out_schema, weir_clock clock, weir_operator_spec *out)
{
    calc_conf *c = weir_calloc(1, sizeof *c);
    if (!c)
        return WEIR_ENOMEM;
    weir_error err;
    int rc = plain_columns(c, filter, exprs, n);
    if (!rc && (filter || exprs))
        rc = weir_expr_calc_create(arena, filter, exprs, exprs ? n : 0, &c->prog, &err);
    if (rc) {
        calc_conf_free(c);
        return rc;
    }
    c->filter = filter != NULL;
    c->project = exprs != NULL;
    c->n = n;
    c->ts_col = exprs ? ts_col : -1;
    c->out = out_schema;
    c->clock = clock;
    *out = (weir_operator_spec){"Calc", &calc_class, calc_create, c, calc_conf_free};
    return 0;
}
