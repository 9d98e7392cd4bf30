/*
 * planner/calc.c - the calc operator: a WHERE predicate and a projection,
 * evaluated a batch at a time by the expression engine. Row times and row
 * kinds pass through unchanged, so a calc never disturbs event time or a
 * changelog. One expression environment per subtask holds the scratch
 * memory, so steady-state evaluation allocates nothing. The filter and
 * the projection form one weir_expr_calc: a subexpression they repeat
 * (q21's LOWER(channel) in four WHENs and the IN of its WHERE) is computed
 * once per batch.
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
} calc_conf;

typedef struct calc {
    const calc_conf *conf;
    weir_expr_env *env;
    uint8_t *sel;
    weir_batch *filtered; /* input rows that passed the filter */
    weir_batch *out;
} calc;

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
    if (c->project) {
        k->out = weir_batch_create(c->out, info->batch_size);
        if (!k->out)
            return WEIR_ENOMEM;
    }
    return 0;
}

static int calc_process(void *op, weir_op_ctx *ctx, int input, const weir_batch *in)
{
    calc *k = op;
    const calc_conf *c = k->conf;
    weir_error err;
    weir_expr_env_set_watermark(k->env, weir_op_watermark(ctx));
    if (c->project) {
        if (weir_expr_calc_run(c->prog, in, k->env, k->out, &err))
            return weir_op_fail(ctx, err.code ? err.code : WEIR_EINVAL, "%s", err.message);
        if (c->filter && k->out->n_rows == 0)
            return 0;
        if (c->ts_col >= 0) {
            /* a TIMESTAMP / TIMESTAMP_LTZ time attribute: epoch milliseconds; an inner join's is never NULL */
            const int64_t *v = k->out->cols[c->ts_col].data;
            for (uint32_t r = 0; r < k->out->n_rows; r++)
                if (!weir_batch_is_null(k->out, (uint32_t)c->ts_col, r))
                    k->out->ts[r] = v[r];
        }
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
    weir_free(k);
}

static const weir_operator_class calc_class = {
    .name = "Calc",
    .process = calc_process,
    .close = calc_close,
};

static void calc_conf_free(void *arg) { weir_free(arg); }

int weir__calc_spec(weir_expr_arena *arena, weir_expr *filter, weir_expr *const *exprs, uint32_t n, int32_t ts_col,
                    const weir_schema *out_schema, weir_clock clock, weir_operator_spec *out)
{
    calc_conf *c = weir_calloc(1, sizeof *c);
    if (!c)
        return WEIR_ENOMEM;
    weir_error err;
    int rc = filter || exprs ? weir_expr_calc_create(arena, filter, exprs, exprs ? n : 0, &c->prog, &err) : 0;
    if (rc) {
        weir_free(c);
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
