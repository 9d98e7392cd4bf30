/*
 * planner/over.c - OVER aggregation in a SELECT list:
 *
 *   SELECT k, ts, SUM(v) OVER (PARTITION BY k ORDER BY ts
 *                              ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)
 *   FROM t
 *
 * As in Flink: every OVER aggregate of one SELECT shares one window (named
 * in a WINDOW clause or written out); ORDER BY is the input's event-time
 * attribute or a processing-time attribute (rows by arrival), ascending; the frame ends at CURRENT ROW and starts UNBOUNDED
 * PRECEDING, n PRECEDING (ROWS) or INTERVAL '...' PRECEDING (RANGE); the
 * default frame is RANGE UNBOUNDED PRECEDING. The input must be
 * append-only, and so is the result.
 *
 * Plan: a pre-projection (the input's columns, then each aggregate's
 * argument), the OverAggregate operator (ops/over_agg.c) keyed by the
 * PARTITION BY columns (or on one subtask without PARTITION BY), and the
 * SELECT list bound over its output, where each OVER call is a column.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "ops/ops.h"
#include "runtime/checkpoint.h"
#include "planner/query_internal.h"

typedef struct over_walk {
    plan_ctx *pc;
    agg_scope *as;
    const weir_sql_select *sel;
    const weir_sql_window *win; /* the shared window, resolved */
    char *win_text;
    int rc;
} over_walk;

/* Visits every call of e (pre-order); fn returns 0 to descend into its arguments, 1 not to, < 0 to stop. */
typedef int (*call_fn)(const weir_sql_expr *call, void *ud);

static int walk_calls(const weir_sql_expr *e, call_fn fn, void *ud);

static int walk_list(weir_sql_expr *const *v, uint32_t n, call_fn fn, void *ud)
{
    for (uint32_t i = 0; i < n; i++) {
        int rc = v[i] ? walk_calls(v[i], fn, ud) : 0;
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int walk_calls(const weir_sql_expr *e, call_fn fn, void *ud)
{
    int rc = 0;
    switch (e->kind) {
    case WEIR_SQL_EXPR_CALL:
        if ((rc = fn(e, ud)) != 0)
            return rc < 0 ? rc : 0;
        return walk_list(e->u.call.args, e->u.call.n_args, fn, ud);
    case WEIR_SQL_EXPR_UNARY: return walk_calls(e->u.unary.operand, fn, ud);
    case WEIR_SQL_EXPR_BINARY:
        return (rc = walk_calls(e->u.binary.left, fn, ud)) < 0 ? rc : walk_calls(e->u.binary.right, fn, ud);
    case WEIR_SQL_EXPR_IS:
        if ((rc = walk_calls(e->u.is.operand, fn, ud)) < 0)
            return rc;
        return e->u.is.other ? walk_calls(e->u.is.other, fn, ud) : 0;
    case WEIR_SQL_EXPR_BETWEEN:
        if ((rc = walk_calls(e->u.between.operand, fn, ud)) < 0 || (rc = walk_calls(e->u.between.low, fn, ud)) < 0)
            return rc;
        return walk_calls(e->u.between.high, fn, ud);
    case WEIR_SQL_EXPR_IN_LIST:
        if ((rc = walk_calls(e->u.in_list.operand, fn, ud)) < 0)
            return rc;
        return walk_list(e->u.in_list.items, e->u.in_list.n_items, fn, ud);
    case WEIR_SQL_EXPR_LIKE:
        return (rc = walk_calls(e->u.like.operand, fn, ud)) < 0 ? rc : walk_calls(e->u.like.pattern, fn, ud);
    case WEIR_SQL_EXPR_CAST: return walk_calls(e->u.cast.operand, fn, ud);
    case WEIR_SQL_EXPR_EXTRACT: return walk_calls(e->u.extract.operand, fn, ud);
    case WEIR_SQL_EXPR_ARRAY:
    case WEIR_SQL_EXPR_MAP: return walk_list(e->u.list.items, e->u.list.n_items, fn, ud);
    case WEIR_SQL_EXPR_ITEM:
        return (rc = walk_calls(e->u.item.operand, fn, ud)) < 0 ? rc : walk_calls(e->u.item.index, fn, ud);
    case WEIR_SQL_EXPR_CASE:
        if (e->u.case_.operand && (rc = walk_calls(e->u.case_.operand, fn, ud)) < 0)
            return rc;
        for (uint32_t i = 0; i < e->u.case_.n_whens; i++)
            if ((rc = walk_calls(e->u.case_.whens[i].when, fn, ud)) < 0 ||
                (rc = walk_calls(e->u.case_.whens[i].then, fn, ud)) < 0)
                return rc;
        return e->u.case_.else_ ? walk_calls(e->u.case_.else_, fn, ud) : 0;
    default: return 0;
    }
}

static int find_over(const weir_sql_expr *call, void *ud)
{
    if (call->u.call.over) {
        *(bool *)ud = true;
        return 1;
    }
    return 0;
}

bool plan_select_has_over(const weir_sql_select *sel)
{
    bool found = false;
    for (uint32_t i = 0; i < sel->n_items && !found; i++)
        if (sel->items[i].expr->kind != WEIR_SQL_EXPR_STAR)
            walk_calls(sel->items[i].expr, find_over, &found);
    return found;
}

static int text_of(plan_ctx *pc, const weir_sql_expr *e, char **out)
{
    weir_buf b;
    weir_buf_init(&b);
    int rc = weir__sql_format_expr(e, &b);
    if (!rc)
        rc = weir_buf_put_u8(&b, 0);
    if (!rc && !(*out = plan_strdup(pc, (char *)b.data)))
        rc = WEIR_ENOMEM;
    weir_buf_fini(&b);
    return rc;
}

/*
 * The window of an OVER: written out, a window of the WINDOW clause (OVER
 * w), or one that extends a named window (OVER (w ROWS BETWEEN ...)). As in
 * SQL (and Calcite, Flink's parser), an extension takes the base window's
 * PARTITION BY and may add the ORDER BY and the frame the base lacks.
 */
static int resolve_window(over_walk *w, const weir_sql_window *win, uint32_t depth, const weir_sql_window **out)
{
    plan_ctx *pc = w->pc;
    if (!win->ref) {
        *out = win;
        return 0;
    }
    const char *name = win->ref->name;
    const weir_sql_window *named = NULL;
    for (uint32_t i = 0; i < w->sel->n_windows && !named; i++)
        if (!strcasecmp(w->sel->windows[i].name.name, name))
            named = w->sel->windows[i].window;
    if (!named)
        return plan_error(pc, win->ref->loc, WEIR_ENOTFOUND, "unknown window '%s'", name);
    if (depth > w->sel->n_windows)
        return plan_error(pc, win->ref->loc, WEIR_EPLAN, "window '%s' extends itself", name);
    const weir_sql_window *base;
    int rc = resolve_window(w, named, depth + 1, &base);
    if (rc)
        return rc;
    if (win->ref_only) {
        *out = base;
        return 0;
    }
    if (win->n_partition_by)
        return plan_error(pc, win->partition_by[0]->loc, WEIR_EPLAN,
                          "a window that extends window '%s' takes its PARTITION BY and cannot have its own", name);
    if (win->n_order_by && base->n_order_by)
        return plan_error(pc, win->order_by[0].expr->loc, WEIR_EPLAN,
                          "window '%s' has an ORDER BY already; a window that extends it cannot have another", name);
    if (win->frame && base->frame)
        return plan_error(pc, win->frame->loc, WEIR_EPLAN,
                          "window '%s' has a frame; a window that extends it cannot have another", name);
    weir_sql_window *m = plan_alloc(pc, sizeof *m);
    if (!m)
        return WEIR_ENOMEM;
    *m = *base;
    m->loc = win->loc;
    if (win->n_order_by) {
        m->order_by = win->order_by;
        m->n_order_by = win->n_order_by;
    }
    if (win->frame)
        m->frame = win->frame;
    *out = m;
    return 0;
}

/* A canonical text of a window, so that equal windows compare equal. */
static int window_text(plan_ctx *pc, const weir_sql_window *win, weir_buf *b)
{
    int rc = 0;
    for (uint32_t i = 0; !rc && i < win->n_partition_by; i++)
        if (!(rc = weir__sql_format_expr(win->partition_by[i], b)))
            rc = weir_buf_put_u8(b, ',');
    rc = rc ? rc : weir_buf_put_u8(b, '|');
    for (uint32_t i = 0; !rc && i < win->n_order_by; i++)
        if (!(rc = weir__sql_format_expr(win->order_by[i].expr, b)))
            rc = weir_buf_printf(b, " %d %d,", (int)win->order_by[i].dir, (int)win->order_by[i].nulls);
    const weir_sql_frame *f = win->frame;
    if (!rc && f) {
        rc = weir_buf_printf(b, "|%s %d ", f->rows ? "ROWS" : "RANGE", (int)f->start.kind);
        if (!rc && f->start.offset)
            rc = weir__sql_format_expr(f->start.offset, b);
        rc = rc ? rc : weir_buf_printf(b, " %d ", (int)f->end.kind);
        if (!rc && f->end.offset)
            rc = weir__sql_format_expr(f->end.offset, b);
    }
    (void)pc;
    return rc ? rc : weir_buf_put_u8(b, 0);
}

static const char *call_name(const weir_sql_expr *e) { return e->u.call.name.parts[e->u.call.name.n_parts - 1].name; }

static int nested_agg(const weir_sql_expr *call, void *ud)
{
    (void)ud;
    return call->u.call.over || plan_is_agg_name(call_name(call)) ? -1 : 0;
}

/* Records each OVER call once (by its canonical text) and checks that they share one window. */
static int collect_over(const weir_sql_expr *e, void *ud)
{
    over_walk *w = ud;
    if (!e->u.call.over)
        return 0;
    plan_ctx *pc = w->pc;
    agg_scope *as = w->as;
    const char *n = call_name(e);
    if (!strcasecmp(n, "ROW_NUMBER") || !strcasecmp(n, "RANK") || !strcasecmp(n, "DENSE_RANK"))
        return w->rc = plan_error(pc, e->loc, WEIR_EUNSUPPORTED,
                                  "%s() OVER is supported as Top-N: in a subquery whose outer WHERE bounds it "
                                  "(WHERE rn <= 10)",
                                  n);
    if (!strcasecmp(n, "LEAD"))
        return w->rc = plan_error(pc, e->loc, WEIR_EUNSUPPORTED,
                                  "LEAD is not supported in a streaming OVER window (it reads rows after the current "
                                  "one, which have not arrived; Flink refuses it too): use LAG");
    bool lag = !strcasecmp(n, "LAG");
    if (!lag && !plan_is_agg_name(n))
        return w->rc = plan_error(pc, e->loc, WEIR_EUNSUPPORTED, "%s is not an aggregate function; OVER takes one", n);
    if (lag && e->u.call.distinct)
        return w->rc = plan_error(pc, e->loc, WEIR_EUNSUPPORTED, "LAG(DISTINCT ...) is not supported");
    if (e->u.call.filter)
        return w->rc = plan_error(pc, e->u.call.filter->loc, WEIR_EUNSUPPORTED,
                                  "FILTER (WHERE ...) is not supported with OVER");
    for (uint32_t i = 0; i < e->u.call.n_args; i++)
        if (walk_calls(e->u.call.args[i], nested_agg, NULL) < 0)
            return w->rc = plan_error(pc, e->u.call.args[i]->loc, WEIR_EPLAN,
                                      "aggregate function calls cannot be nested");
    const weir_sql_window *win = NULL;
    if ((w->rc = resolve_window(w, e->u.call.over, 0, &win)))
        return w->rc;
    weir_buf b;
    weir_buf_init(&b);
    int rc = window_text(pc, win, &b);
    if (rc) {
        weir_buf_fini(&b);
        return w->rc = rc;
    }
    if (!w->win) {
        w->win = win;
        w->win_text = plan_strdup(pc, (char *)b.data);
        rc = w->win_text ? 0 : WEIR_ENOMEM;
    } else if (strcmp(w->win_text, (char *)b.data)) {
        rc = plan_error(pc, e->u.call.over->loc, WEIR_EUNSUPPORTED,
                        "every OVER aggregate of one SELECT must use the same window (PARTITION BY, ORDER BY and "
                        "frame); plan the others in another SELECT and join them");
    }
    weir_buf_fini(&b);
    if (rc)
        return w->rc = rc;
    char *text;
    if ((rc = text_of(pc, e, &text)))
        return w->rc = rc;
    for (uint32_t i = 0; i < as->n_calls; i++)
        if (!strcmp(as->calls[i].text, text))
            return 1;
    agg_call *nc = weir_realloc(as->calls, (as->n_calls + 1) * sizeof *nc);
    if (!nc)
        return w->rc = WEIR_ENOMEM;
    as->calls = nc;
    agg_call *c = &as->calls[as->n_calls++];
    memset(c, 0, sizeof *c);
    c->call = e;
    c->text = text;
    snprintf(c->fn, sizeof c->fn, "%s", n);
    for (char *p = c->fn; *p; p++)
        *p = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
    int drc;
    if (e->u.call.distinct && (drc = plan_agg_distinct_name(pc, e, c->fn, sizeof c->fn)))
        return w->rc = drc;
    c->pre_col = -1;
    c->filter_col = -1;
    if (lag && e->u.call.n_args == 3) {
        /* LAG's default goes where LAG_PRESENT is FALSE (plan_lag_ref). */
        size_t tl = strlen(text);
        char *pt = plan_alloc(pc, tl + sizeof LAG_PRESENT_SUFFIX);
        if (!pt)
            return w->rc = WEIR_ENOMEM;
        memcpy(pt, text, tl);
        memcpy(pt + tl, LAG_PRESENT_SUFFIX, sizeof LAG_PRESENT_SUFFIX);
        nc = weir_realloc(as->calls, (as->n_calls + 1) * sizeof *nc);
        if (!nc)
            return w->rc = WEIR_ENOMEM;
        as->calls = nc;
        c = &as->calls[as->n_calls++];
        memset(c, 0, sizeof *c);
        c->call = e;
        c->text = pt;
        snprintf(c->fn, sizeof c->fn, "LAG_PRESENT");
        c->pre_col = -1;
        c->filter_col = -1;
    }
    return 1;
}

/* The frame of the window: ROWS/RANGE, unbounded or how far back. */
static int frame_of(plan_ctx *pc, const weir_sql_window *win, weir_over_config *oc)
{
    const weir_sql_frame *f = win->frame;
    if (!f) { /* Flink's default: RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW */
        oc->unbounded = true;
        return 0;
    }
    oc->rows = f->rows;
    if (f->end.kind != WEIR_SQL_BOUND_CURRENT_ROW)
        return plan_error(pc, f->end.loc, WEIR_EUNSUPPORTED,
                          "an OVER frame must end at CURRENT ROW on a stream (a frame that ends later would wait "
                          "for rows that have not arrived)");
    switch (f->start.kind) {
    case WEIR_SQL_BOUND_UNBOUNDED_PRECEDING: oc->unbounded = true; return 0;
    case WEIR_SQL_BOUND_CURRENT_ROW: oc->preceding = 0; return 0;
    case WEIR_SQL_BOUND_PRECEDING: break;
    default:
        return plan_error(pc, f->start.loc, WEIR_EUNSUPPORTED,
                          "an OVER frame must start at UNBOUNDED PRECEDING, n PRECEDING or CURRENT ROW");
    }
    const weir_sql_expr *off = f->start.offset;
    if (f->rows) {
        if (off->kind != WEIR_SQL_EXPR_LITERAL || off->u.lit.kind != WEIR_SQL_LIT_INTEGER || off->u.lit.i64 < 0)
            return plan_error(pc, off->loc, WEIR_EINVAL, "ROWS n PRECEDING takes a non-negative integer literal");
        oc->preceding = off->u.lit.i64;
        return 0;
    }
    int rc = plan_const_interval_ms(pc, off, &oc->preceding);
    if (rc)
        return rc;
    if (oc->preceding < 0)
        return plan_error(pc, off->loc, WEIR_EINVAL, "RANGE ... PRECEDING takes a non-negative interval");
    return 0;
}

/*
 * "frame: ROWS 2 PRECEDING" (RANGE: in ms) in OVER node s's fingerprint:
 * a bounded frame keeps only the rows it still covers, which a wider one
 * restored from it would lack.
 */
static int describe_frame(plan_ctx *pc, weir_stream s, const weir_over_config *oc)
{
    char v[64];
    if (oc->unbounded)
        snprintf(v, sizeof v, "%s UNBOUNDED PRECEDING", oc->rows ? "ROWS" : "RANGE");
    else
        snprintf(v, sizeof v, "%s %" PRId64 "%s PRECEDING", oc->rows ? "ROWS" : "RANGE", oc->preceding,
                 oc->rows ? "" : " ms");
    return weir_job_describe_state(pc->job, s, WEIR__FRAME_FIELD, v);
}

int plan_over(plan_ctx *pc, const weir_sql_select *sel, rel *in, agg_scope *as, rel *out)
{
    int rc;
    memset(as, 0, sizeof *as);
    as->in = in;
    as->ws_in = as->we_in = as->wt_in = -1;
    over_walk w = {.pc = pc, .as = as, .sel = sel};
    for (uint32_t i = 0; i < sel->n_items; i++)
        if (sel->items[i].expr->kind != WEIR_SQL_EXPR_STAR &&
            ((rc = walk_calls(sel->items[i].expr, collect_over, &w)) < 0 || w.rc))
            return w.rc ? w.rc : rc;
    const weir_sql_window *win = w.win;
    if (in->updating)
        return plan_error(pc, win->loc, WEIR_EUNSUPPORTED,
                          "OVER aggregation needs an append-only input; this one is updating (a changelog)");
    if (win->n_order_by != 1)
        return plan_error(pc, win->loc, WEIR_EUNSUPPORTED,
                          "OVER needs ORDER BY one time attribute (ORDER BY the table's rowtime column)");
    const weir_sql_order_item *ob = &win->order_by[0];
    int oc_col = ob->expr->kind == WEIR_SQL_EXPR_COLUMN ? plan_find_column(pc, in, &ob->expr->u.column) : -1;
    weir_over_config oc = {0};
    oc.proctime = oc_col >= 0 && in->has_proctime && (uint32_t)oc_col == in->proctime;
    if (!oc.proctime && oc_col >= 0 && (rc = plan_use_time_attr(pc, in, oc_col)) < 0)
        return rc;
    if (!oc.proctime && (oc_col < 0 || oc_col != in->rowtime))
        return plan_error(pc, ob->expr->loc, WEIR_EPLAN,
                          "OVER windows must be ordered by a time attribute of the input: its event-time attribute%s%s%s"
                          " or a processing-time attribute (PROCTIME())",
                          in->rowtime >= 0 ? " ('" : "", in->rowtime >= 0 ? in->schema->fields[in->rowtime].name : "",
                          in->rowtime >= 0 ? "')" : " (declare a WATERMARK on the table)");
    if (ob->dir == WEIR_SQL_ORDER_DESC)
        return plan_error(pc, ob->expr->loc, WEIR_EUNSUPPORTED, "OVER windows must be ordered ascending by time");
    if ((rc = frame_of(pc, win, &oc)))
        return rc;

    /* pre-projection: the input's columns, then the partition keys and arguments that are not columns */
    uint32_t npre = in->n_physical + win->n_partition_by + as->n_calls;
    weir_expr **pre = plan_alloc(pc, (npre + 1) * sizeof *pre);
    const char **names = plan_alloc(pc, (npre + 1) * sizeof *names);
    if (!pre || !names)
        return WEIR_ENOMEM;
    uint32_t k = 0;
    for (uint32_t c = 0; c < in->n_physical; c++) {
        weir_error err = {0};
        if (weir_expr_column(pc->arena, c, in->schema->fields[c].type, &pre[k], &err))
            return WEIR_ENOMEM;
        names[k++] = in->schema->fields[c].name;
    }
    if (win->n_partition_by > WEIR_KEY_MAX_COLS)
        return plan_error(pc, win->loc, WEIR_EUNSUPPORTED, "at most %d PARTITION BY expressions", WEIR_KEY_MAX_COLS);
    oc.partition.n = win->n_partition_by;
    for (uint32_t i = 0; i < win->n_partition_by; i++) {
        weir_expr *e;
        if ((rc = plan_bind_expr(pc, in, NULL, win->partition_by[i], &e)))
            return rc;
        int32_t col = weir_expr_column_index(e);
        if (col >= 0) {
            oc.partition.cols[i] = (uint32_t)col;
            continue;
        }
        char nm[32];
        snprintf(nm, sizeof nm, "$part%u", i);
        pre[k] = e;
        names[k] = plan_strdup(pc, nm);
        oc.partition.cols[i] = k++;
    }
    for (uint32_t i = 0; i < as->n_calls; i++) {
        agg_call *c = &as->calls[i];
        const weir_sql_expr *call = c->call;
        bool has_arg;
        if ((rc = plan_agg_call_args(pc, c, &has_arg)))
            return rc;
        call = c->call; /* PERCENTILE with a frequency rewrites its arguments */
        if (!has_arg)
            continue;
        weir_expr *e;
        if ((rc = plan_bind_expr(pc, in, NULL, call->u.call.args[0], &e)))
            return rc;
        int32_t col = weir_expr_column_index(e);
        if (col >= 0) {
            c->pre_col = col;
            continue;
        }
        char nm[32];
        snprintf(nm, sizeof nm, "$arg%u", i);
        pre[k] = e;
        names[k] = plan_strdup(pc, nm);
        c->pre_col = (int32_t)k++;
    }
    rel pr;
    if (k == in->n_physical)
        pr = *in; /* nothing computed: no projection */
    else if ((rc = plan_calc(pc, in, NULL, pre, names, k, &pr, "Calc")))
        return rc;

    /* the aggregates, bound to pre-projection columns; bounded frames retract */
    weir_agg *aggs = plan_alloc(pc, (as->n_calls + 1) * sizeof *aggs);
    weir_schema *os = plan_new_schema(pc);
    if (!aggs || !os)
        return WEIR_ENOMEM;
    for (uint32_t c = 0; c < pr.n_physical; c++)
        if (weir_schema_add(os, pr.schema->fields[c].name, pr.schema->fields[c].type) < 0)
            return WEIR_ENOMEM;
    os->rowtime = oc.proctime && !oc.rows && !oc.unbounded ? -1 : pr.schema->rowtime;
    for (uint32_t i = 0; i < as->n_calls; i++) {
        agg_call *c = &as->calls[i];
        char fn[48];
        snprintf(fn, sizeof fn, "%s", c->fn);
        if (!oc.unbounded && (!strcmp(fn, "MIN") || !strcmp(fn, "MAX") || !strcmp(fn, "FIRST_VALUE") ||
                              !strcmp(fn, "LAST_VALUE")))
            snprintf(fn, sizeof fn, "%s_RETRACT", c->fn);
        weir_error err = {0};
        if ((rc = weir_agg_bind(fn, pr.schema, c->pre_col, c->param, &aggs[i], &err)))
            return plan_error(pc, c->call->loc, rc, "%s", err.message);
        aggs[i].sep = c->sep;
        aggs[i].label = c->label;
        aggs[i].params = c->params;
        aggs[i].n_params = c->n_params;
        if (!oc.unbounded && !weir_agg_can_retract(&aggs[i]))
            return plan_error(pc, c->call->loc, WEIR_EUNSUPPORTED,
                              "%s cannot take rows back, which a bounded OVER frame needs; use UNBOUNDED PRECEDING",
                              c->fn);
        char nm[32];
        snprintf(nm, sizeof nm, "$over%u", i);
        c->out_col = pr.n_physical + i;
        if (weir_schema_add(os, nm, aggs[i].result_type) < 0)
            return WEIR_ENOMEM;
    }
    oc.aggs = aggs;
    oc.n_aggs = as->n_calls;
    oc.out_schema = os;
    weir_operator_spec spec;
    if ((rc = weir_over_spec(&oc, &spec)))
        return plan_error(pc, win->loc, rc, "cannot plan the OVER aggregation: %s", weir_strerror(rc));
    weir_stream keyed = oc.partition.n ? weir_stream_key_by(pr.s, oc.partition.cols, oc.partition.n)
                                       : weir_stream_partition(pr.s, WEIR_PART_GLOBAL);
    *out = pr;
    if ((rc = weir_job_operator(pc->job, &keyed, 1, &spec, os, oc.partition.n ? 0 : 1, &out->s))) {
        spec.free_arg(spec.arg);
        return plan_error(pc, win->loc, rc, "cannot add the OVER aggregation: %s", weir_job_error(pc->job));
    }
    if ((rc = weir__job_describe_aggs(pc->job, out->s, aggs, as->n_calls)) || (rc = describe_frame(pc, out->s, &oc)))
        return rc;
    out->schema = os;
    out->n_physical = os->n_fields;
    /* processing-time RANGE rows come out after the clock passed them, behind the watermark: no event time */
    out->rowtime = oc.proctime && !oc.rows && !oc.unbounded ? -1 : pr.rowtime;
    out->updating = false;
    out->win.present = false;
    out->wprops.present = false;
    out->above_wm = false;
    char **quals = plan_alloc(pc, (os->n_fields + 1) * sizeof *quals);
    if (!quals)
        return WEIR_ENOMEM;
    for (uint32_t c = 0; c < os->n_fields; c++)
        quals[c] = c < in->n_physical && in->quals ? in->quals[c] : NULL;
    out->quals = quals;
    out->hidden = in->hidden;
    out->n_hidden = in->n_hidden < in->n_physical ? in->n_hidden : in->n_physical;
    char frame[64];
    if (oc.unbounded)
        snprintf(frame, sizeof frame, "%s UNBOUNDED PRECEDING", oc.rows ? "ROWS" : "RANGE");
    else
        snprintf(frame, sizeof frame, oc.rows ? "ROWS %lld PRECEDING" : "RANGE %lld ms PRECEDING",
                 (long long)oc.preceding);
    weir_buf_printf(&pc->explain, "  OverAggregate[%d]: partition=%u %s%s aggs=%u\n", out->s.node, oc.partition.n,
                    frame, oc.proctime ? " proctime" : "", as->n_calls);
    as->out = out;
    as->phase = AGG_OVER;
    return 0;
}
