/*
 * ops/window_assign.c - the rows of a window table function (TUMBLE, HOP,
 * CUMULATE) as a stream: one output row per window of each input row, the
 * input columns followed by window_start, window_end and window_time.
 * The planner adds it where a window TVF is used as a table (a window join
 * input); a TVF that is aggregated never goes through it (the window
 * operator assigns windows itself).
 */
#include <string.h>

#include "ops/ops.h"
#include "ops/rowcodec.h"
#include "time/tz.h"

typedef struct wassign_op {
    const weir_window_assign_config *cfg;
    weir__tz *tz; /* cfg->time_zone loaded, or NULL for UTC */
    weir_batch *out;
    weir_window *wins;
    uint32_t wins_cap;
} wassign_op;

static int wassign_create(void *arg, const weir_op_info *info, void **out_op)
{
    const weir_window_assign_config *c = arg;
    wassign_op *w = weir_calloc(1, sizeof *w);
    *out_op = w;
    if (!w)
        return WEIR_ENOMEM;
    w->cfg = c;
    w->out = weir_batch_create(c->out_schema,
                               info->batch_size ? info->batch_size : 1024);
    w->wins_cap = 16;
    w->wins = weir_malloc(w->wins_cap * sizeof *w->wins);
    if (c->time_zone) {
        weir_error err = {0};
        int rc = weir__tz_load(c->time_zone, &w->tz, &err);
        if (rc)
            return rc;
    }
    return w->out && w->wins ? 0 : WEIR_ENOMEM;
}

static int wassign_open(void *op, weir_op_ctx *ctx)
{
    wassign_op *w = op;
    const weir_op_info *info = weir_op_info_of(ctx);
    if (info->n_inputs != 1 ||
        info->input_schemas[0]->n_fields + 3 != w->cfg->out_schema->n_fields)
        return weir_op_fail(ctx, WEIR_EINVAL,
                            "window assignment: the output must be the input's "
                            "columns and 3 more");
    return 0;
}

static void wassign_close(void *op)
{
    wassign_op *w = op;
    if (!w)
        return;
    weir_batch_destroy(w->out);
    weir__tz_free(w->tz);
    weir_free(w->wins);
    weir_free(w);
}

static int flush(wassign_op *w, weir_op_ctx *ctx) { return weir_op_emit_reset(ctx, w->out); }

static int wassign_process(void *op, weir_op_ctx *ctx, int input,
                           const weir_batch *in)
{
    wassign_op *w = op;
    (void)input;
    uint32_t n_in = w->cfg->out_schema->n_fields - 3;
    for (uint32_t r = 0; r < in->n_rows; r++) {
        weir_ts t = in->ts[r];
        if (w->tz && t != WEIR_TS_MIN && t != WEIR_TS_MAX)
            t += weir__tz_offset(w->tz, t);
        int n = weir_window_assign(&w->cfg->assigner, t, w->wins,
                                   w->wins_cap);
        if (n < 0)
            return weir_op_fail(ctx, n,
                                "window assignment needs a tumbling, hopping "
                                "or cumulating window");
        if ((uint32_t)n > w->wins_cap) {
            weir_window *nw = weir_realloc(w->wins, (size_t)n * sizeof *nw);
            if (!nw)
                return WEIR_ENOMEM;
            w->wins = nw;
            w->wins_cap = (uint32_t)n;
            n = weir_window_assign(&w->cfg->assigner, t, w->wins,
                                   w->wins_cap);
        }
        for (int i = 0; i < n; i++) {
            if (weir_batch_full(w->out)) {
                int rc = flush(w, ctx);
                if (rc)
                    return rc;
            }
            int o = weir_batch_append_row(w->out);
            if (o < 0)
                return o;
            int rc =
                weir__row_copy_cols(w->out, (uint32_t)o, 0, in, r, 0, n_in);
            if (rc)
                return rc;
            w->out->kind[o] = in->kind[r];
            weir_ts wt = w->wins[i].end - 1;
            if (w->tz && w->cfg->window_time_ts)
                wt = weir__tz_to_utc(w->tz, wt);
            w->out->ts[o] = w->cfg->window_time_ts ? wt : in->ts[r];
            WEIR_COL_I64(w->out, n_in)[o] = w->wins[i].start;
            WEIR_COL_I64(w->out, n_in + 1)[o] = w->wins[i].end;
            WEIR_COL_I64(w->out, n_in + 2)[o] = w->wins[i].end - 1;
        }
    }
    return flush(w, ctx);
}

static const weir_operator_class wassign_class = {
    .name = "WindowAssign",
    .open = wassign_open,
    .process = wassign_process,
    .close = wassign_close,
};

int weir_window_assign_spec(const weir_window_assign_config *cfg,
                            weir_operator_spec *out)
{
    if (!cfg || !out || !cfg->out_schema || cfg->out_schema->n_fields < 3 ||
        (cfg->assigner.kind != WEIR_WINDOW_TUMBLING &&
         cfg->assigner.kind != WEIR_WINDOW_HOPPING &&
         cfg->assigner.kind != WEIR_WINDOW_CUMULATING))
        return WEIR_EINVAL;
    weir_window_assign_config *c = weir_malloc(sizeof *c);
    if (!c)
        return WEIR_ENOMEM;
    *c = *cfg;
    *out = (weir_operator_spec){"WindowAssign", &wassign_class, wassign_create,
                                c, weir_free};
    return 0;
}
