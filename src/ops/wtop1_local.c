/*
 * ops/wtop1_local.c - the local half of a window Top-1 with ties: of each
 * batch, only the rows whose value (an INT or BIGINT column) equals the
 * largest (or, ordered ascending, the smallest) value among the batch's
 * rows of the same window (window_start, window_end) go on; the others
 * are dropped at once.
 *
 * Exact in front of a window Top-N of rank 1 (RANK() or ROW_NUMBER() <= 1,
 * ORDER BY the column, PARTITION BY the window's bounds) whose input rows
 * come before the watermark passes their window (a window aggregation's,
 * so none is late): a row below another row of its
 * window can never rank first, and ties keep their order. It holds no state
 * (a batch decides alone), so checkpoints and rescaling need nothing, and
 * it runs chained after the operator it filters, before the exchange: a
 * firing window aggregation sends on the few rows tied at its top instead
 * of every group of the window. Rows other than +I, and rows whose value is
 * NULL, go on unchanged (the ranking decides about them); so do all rows of
 * a batch that spans too many windows to be worth a lookup per row.
 */
#include <string.h>

#include "ops/ops.h"

enum { MAX_WINDOWS = 64 };

typedef struct wtop1_window {
    int64_t ws, we;
    int64_t best; /* the largest (keep_max) or smallest value of the batch's rows of the window */
    bool unset;
} wtop1_window;

typedef struct wtop1_conf {
    weir_window_top1_local_config cfg;
} wtop1_conf;

typedef struct wtop1_op {
    const wtop1_conf *conf;
    weir_batch *out;
    uint32_t *rows; /* the rows that go on, batch_size of them */
    wtop1_window win[MAX_WINDOWS];
    uint64_t *n_dropped;
} wtop1_op;

static int64_t int_at(const weir_column *c, uint32_t row)
{
    return c->type.id == WEIR_TYPE_INT ? ((const int32_t *)c->data)[row] : ((const int64_t *)c->data)[row];
}

static int wtop1_create(void *arg, const weir_op_info *info, void **out_op)
{
    wtop1_op *o = weir_calloc(1, sizeof *o);
    *out_op = o;
    if (!o)
        return WEIR_ENOMEM;
    o->conf = arg;
    o->out = weir_batch_create(info->output_schema, info->batch_size);
    o->rows = weir_malloc((size_t)info->batch_size * sizeof *o->rows);
    return o->out && o->rows ? 0 : WEIR_ENOMEM;
}

static int wtop1_open(void *op, weir_op_ctx *ctx)
{
    wtop1_op *o = op;
    const weir_window_top1_local_config *c = &o->conf->cfg;
    const weir_schema *in = weir_op_info_of(ctx)->input_schemas[0];
    uint32_t cols[3] = {c->ws_col, c->we_col, c->value_col};
    for (int i = 0; i < 3; i++)
        if (cols[i] >= in->n_fields)
            return weir_op_fail(ctx, WEIR_EINVAL, "window Top-1 (local): no column %u", cols[i]);
    weir_type_id v = in->fields[c->value_col].type.id;
    if (v != WEIR_TYPE_INT && v != WEIR_TYPE_BIGINT)
        return weir_op_fail(ctx, WEIR_EINVAL, "window Top-1 (local): column %u is not an integer", c->value_col);
    for (int i = 0; i < 2; i++)
        if (weir_type_width(in->fields[cols[i]].type.id) != 8)
            return weir_op_fail(ctx, WEIR_EINVAL, "window Top-1 (local): column %u is not a window bound",
                                cols[i]);
    o->n_dropped = weir_op_counter(ctx, "rows_dropped");
    return 0;
}

/* The batch's window of row r, added when new; NULL when the batch has too many. */
static wtop1_window *window_of(wtop1_window *win, uint32_t *n, uint32_t *last, int64_t ws, int64_t we)
{
    if (*n && win[*last].ws == ws && win[*last].we == we)
        return &win[*last];
    for (uint32_t i = 0; i < *n; i++)
        if (win[i].ws == ws && win[i].we == we) {
            *last = i;
            return &win[i];
        }
    if (*n == MAX_WINDOWS)
        return NULL;
    win[*n] = (wtop1_window){ws, we, 0, true};
    *last = (*n)++;
    return &win[*last];
}

static bool counted(const weir_batch *in, uint32_t r, const weir_window_top1_local_config *c)
{
    return in->kind[r] == WEIR_ROW_INSERT && !weir_batch_is_null(in, c->value_col, r) &&
           !weir_batch_is_null(in, c->ws_col, r) && !weir_batch_is_null(in, c->we_col, r);
}

static int wtop1_process(void *op, weir_op_ctx *ctx, int input, const weir_batch *in)
{
    (void)input;
    wtop1_op *o = op;
    const weir_window_top1_local_config *c = &o->conf->cfg;
    const int64_t *ws = in->cols[c->ws_col].data, *we = in->cols[c->we_col].data;
    const weir_column *val = &in->cols[c->value_col];
    uint32_t n_win = 0, last = 0;
    if (in->n_rows > o->out->capacity)
        return weir_op_emit(ctx, in);
    /* pass 1: each window's largest value in this batch */
    for (uint32_t r = 0; r < in->n_rows; r++) {
        if (!counted(in, r, c))
            continue;
        wtop1_window *w = window_of(o->win, &n_win, &last, ws[r], we[r]);
        if (!w)
            return weir_op_emit(ctx, in); /* too many windows in one batch: all rows go on */
        int64_t v = int_at(val, r);
        if (w->unset || (c->keep_max ? v > w->best : v < w->best))
            w->best = v;
        w->unset = false;
    }
    /* pass 2: the rows at their window's top, and the rows the ranking decides about */
    uint32_t n = 0;
    for (uint32_t r = 0; r < in->n_rows; r++)
        if (!counted(in, r, c) || int_at(val, r) == window_of(o->win, &n_win, &last, ws[r], we[r])->best)
            o->rows[n++] = r;
    if (n == in->n_rows)
        return weir_op_emit(ctx, in);
    weir_op_counter_add(o->n_dropped, in->n_rows - n);
    if (!n)
        return 0;
    int rc = weir_batch_gather(o->out, in, o->rows, n);
    return rc ? rc : weir_op_emit_reset(ctx, o->out);
}

static void wtop1_close(void *op)
{
    wtop1_op *o = op;
    if (!o)
        return;
    weir_batch_destroy(o->out);
    weir_free(o->rows);
    weir_free(o);
}

static const weir_operator_class wtop1_class = {
    .name = "WindowTop1Local",
    .open = wtop1_open,
    .process = wtop1_process,
    .close = wtop1_close,
};

static void wtop1_free_arg(void *arg) { weir_free(arg); }

int weir_window_top1_local_spec(const weir_window_top1_local_config *cfg, weir_operator_spec *out)
{
    wtop1_conf *c = weir_calloc(1, sizeof *c);
    if (!c)
        return WEIR_ENOMEM;
    c->cfg = *cfg;
    *out = (weir_operator_spec){"WindowTop1Local", &wtop1_class, wtop1_create, c, wtop1_free_arg};
    return 0;
}
