/*
 * planner/rank.c - Top-N and deduplication: ROW_NUMBER() OVER (PARTITION
 * BY ... ORDER BY ...) in a subquery, bounded by the outer WHERE, as Flink
 * writes them:
 *
 *   SELECT * FROM (
 *     SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) AS rn
 *     FROM bid)
 *   WHERE rn <= 10;
 *
 * The rank conditions (rn <= N, rn < N, rn = N, rn >= M, rn > M, rn
 * BETWEEN M AND N, either way round) become the operator's range; the other
 * conjuncts stay a filter. The rank number is an output column only when the
 * outer query reads it (SELECT * or a reference); otherwise the changelog
 * has no updates for rank shifts, as in Flink. Top-1 by a time attribute
 * without the rank number is a deduplication (keep the first row for ASC,
 * the last for DESC).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "ops/ops.h"
#include "ops/top1_hint.h"
#include "planner/planner.h"
#include "planner/query_internal.h"
#include "runtime/checkpoint.h"

static const char *last_name(const weir_sql_name *n) { return n->parts[n->n_parts - 1].name; }

static bool is_rank_ref(const weir_sql_expr *e, const char *alias)
{
    return e->kind == WEIR_SQL_EXPR_COLUMN && e->u.column.n_parts == 1 &&
           !strcasecmp(last_name(&e->u.column), alias);
}

static bool int_lit(const weir_sql_expr *e, int64_t *v)
{
    if (e->kind != WEIR_SQL_EXPR_LITERAL || e->u.lit.kind != WEIR_SQL_LIT_INTEGER || e->u.lit.overflow)
        return false;
    *v = e->u.lit.i64;
    return true;
}

/* Whether e mentions the rank column anywhere (a reference other than in a consumed bound). */
static bool mentions(const weir_sql_expr *e, const char *alias)
{
    if (!e)
        return false;
    switch (e->kind) {
    case WEIR_SQL_EXPR_COLUMN: return is_rank_ref(e, alias);
    case WEIR_SQL_EXPR_UNARY: return mentions(e->u.unary.operand, alias);
    case WEIR_SQL_EXPR_BINARY: return mentions(e->u.binary.left, alias) || mentions(e->u.binary.right, alias);
    case WEIR_SQL_EXPR_IS: return mentions(e->u.is.operand, alias) || mentions(e->u.is.other, alias);
    case WEIR_SQL_EXPR_BETWEEN:
        return mentions(e->u.between.operand, alias) || mentions(e->u.between.low, alias) ||
               mentions(e->u.between.high, alias);
    case WEIR_SQL_EXPR_IN_LIST:
        if (mentions(e->u.in_list.operand, alias))
            return true;
        for (uint32_t i = 0; i < e->u.in_list.n_items; i++)
            if (mentions(e->u.in_list.items[i], alias))
                return true;
        return false;
    case WEIR_SQL_EXPR_LIKE: return mentions(e->u.like.operand, alias) || mentions(e->u.like.pattern, alias);
    case WEIR_SQL_EXPR_CAST: return mentions(e->u.cast.operand, alias);
    case WEIR_SQL_EXPR_EXTRACT: return mentions(e->u.extract.operand, alias);
    case WEIR_SQL_EXPR_ARRAY:
    case WEIR_SQL_EXPR_MAP:
        for (uint32_t i = 0; i < e->u.list.n_items; i++)
            if (mentions(e->u.list.items[i], alias))
                return true;
        return false;
    case WEIR_SQL_EXPR_ITEM: return mentions(e->u.item.operand, alias) || mentions(e->u.item.index, alias);
    case WEIR_SQL_EXPR_CALL:
        for (uint32_t i = 0; i < e->u.call.n_args; i++)
            if (mentions(e->u.call.args[i], alias))
                return true;
        return false;
    case WEIR_SQL_EXPR_CASE:
        if (mentions(e->u.case_.operand, alias) || mentions(e->u.case_.else_, alias))
            return true;
        for (uint32_t i = 0; i < e->u.case_.n_whens; i++)
            if (mentions(e->u.case_.whens[i].when, alias) || mentions(e->u.case_.whens[i].then, alias))
                return true;
        return false;
    default: return false;
    }
}

/* Narrows [*lo, *hi] by conjunct e when it bounds the rank column by a literal; false if it is something else. */
static bool rank_bound(const weir_sql_expr *e, const char *alias, int64_t *lo, int64_t *hi)
{
    int64_t v, w;
    if (e->kind == WEIR_SQL_EXPR_BETWEEN && !e->u.between.negated && !e->u.between.symmetric &&
        is_rank_ref(e->u.between.operand, alias) && int_lit(e->u.between.low, &v) && int_lit(e->u.between.high, &w)) {
        *lo = v > *lo ? v : *lo;
        *hi = w < *hi ? w : *hi;
        return true;
    }
    if (e->kind != WEIR_SQL_EXPR_BINARY)
        return false;
    weir_sql_binop op = e->u.binary.op;
    const weir_sql_expr *l = e->u.binary.left, *r = e->u.binary.right;
    if (is_rank_ref(r, alias) && int_lit(l, &v)) {
        /* N >= rn is rn <= N */
        static const weir_sql_binop flip[] = {[WEIR_SQL_OP_LT] = WEIR_SQL_OP_GT, [WEIR_SQL_OP_LE] = WEIR_SQL_OP_GE,
                                                  [WEIR_SQL_OP_GT] = WEIR_SQL_OP_LT, [WEIR_SQL_OP_GE] = WEIR_SQL_OP_LE,
                                                  [WEIR_SQL_OP_EQ] = WEIR_SQL_OP_EQ};
        if (op != WEIR_SQL_OP_LT && op != WEIR_SQL_OP_LE && op != WEIR_SQL_OP_GT && op != WEIR_SQL_OP_GE &&
            op != WEIR_SQL_OP_EQ)
            return false;
        op = flip[op];
    } else if (!is_rank_ref(l, alias) || !int_lit(r, &v)) {
        return false;
    }
    switch (op) {
    case WEIR_SQL_OP_LE: *hi = v < *hi ? v : *hi; return true;
    case WEIR_SQL_OP_LT: *hi = v - 1 < *hi ? v - 1 : *hi; return true;
    case WEIR_SQL_OP_GE: *lo = v > *lo ? v : *lo; return true;
    case WEIR_SQL_OP_GT: *lo = v + 1 > *lo ? v + 1 : *lo; return true;
    case WEIR_SQL_OP_EQ:
        *lo = v > *lo ? v : *lo;
        *hi = v < *hi ? v : *hi;
        return true;
    default: return false;
    }
}

/* Splits an AND tree into its conjuncts (at most cap; *n set). */
static void conjuncts(const weir_sql_expr *e, const weir_sql_expr **out, uint32_t cap, uint32_t *n)
{
    if (e->kind == WEIR_SQL_EXPR_BINARY && e->u.binary.op == WEIR_SQL_OP_AND) {
        conjuncts(e->u.binary.left, out, cap, n);
        conjuncts(e->u.binary.right, out, cap, n);
    } else if (*n < cap) {
        out[(*n)++] = e;
    } else {
        (*n)++;
    }
}

/* The ROW_NUMBER()/RANK()/DENSE_RANK() item of a select, or -1, and which function it is. */
static int find_rank_item(plan_ctx *pc, const weir_sql_select *s, int32_t *item, int *fn_kind)
{
    *item = -1;
    for (uint32_t i = 0; i < s->n_items; i++) {
        const weir_sql_expr *e = s->items[i].expr;
        if (e->kind != WEIR_SQL_EXPR_CALL || !e->u.call.over)
            continue;
        const char *fn = last_name(&e->u.call.name);
        int kind = !strcasecmp(fn, "ROW_NUMBER") ? WEIR_RANK_ROW_NUMBER
                   : !strcasecmp(fn, "RANK")     ? WEIR_RANK_RANK
                   : !strcasecmp(fn, "DENSE_RANK") ? WEIR_RANK_DENSE_RANK
                                                   : -1;
        if (kind < 0)
            continue;
        if (*item >= 0)
            return plan_error(pc, e->loc, WEIR_EUNSUPPORTED, "one ROW_NUMBER(), RANK() or DENSE_RANK() per query");
        *item = (int32_t)i;
        *fn_kind = kind;
    }
    return 0;
}

/* Whether the inner query's result has a column of that name: a `*`, an
 * alias, or a plain column item of that name. A PARTITION BY or ORDER BY
 * column it lacks is a column of its FROM, carried as a hidden item. */
static bool inner_exposes(const weir_sql_select *in, int32_t skip, const char *name)
{
    for (uint32_t i = 0; i < in->n_items; i++) {
        const weir_sql_select_item *it = &in->items[i];
        if ((int32_t)i == skip)
            continue;
        if (it->expr->kind == WEIR_SQL_EXPR_STAR)
            return true;
        if (it->alias) {
            if (!strcasecmp(it->alias->name, name))
                return true;
        } else if (it->expr->kind == WEIR_SQL_EXPR_COLUMN &&
                   !strcasecmp(it->expr->u.column.parts[it->expr->u.column.n_parts - 1].name, name)) {
            return true;
        }
    }
    return false;
}

/*
 * "ranks: 1..3 ROW_NUMBER numbered" in Top-N s's fingerprint. An
 * append-only Top-N keeps its best rows only (a wider range would lack
 * the rows it dropped), and every Top-N has emitted what it keeps under
 * its range, function and numbering, which a changed one would go on from
 * as if it had emitted its own.
 */
static int describe_ranks(plan_ctx *pc, weir_stream s, const weir_rank_config *c)
{
    static const char *const fn[] = {"ROW_NUMBER", "RANK", "DENSE_RANK"};
    char v[96];
    snprintf(v, sizeof v, "%" PRIu64 "..%" PRIu64 " %s%s", c->rank_start, c->rank_end, fn[c->rank_fn],
             c->with_rank ? " numbered" : "");
    return weir_job_describe_state(pc->job, s, WEIR__RANKS_FIELD, v);
}

int plan_rank(plan_ctx *pc, const weir_sql_select *sel, rel *out, const weir_sql_expr **where, bool *handled)
{
    *handled = false;
    const weir_sql_table_ref *fr = sel->from;
    if (!fr || fr->kind != WEIR_SQL_FROM_SUBQUERY || fr->u.subquery.query->kind != WEIR_SQL_QUERY_SELECT)
        return 0;
    const weir_sql_query *iq = fr->u.subquery.query;
    const weir_sql_select *in = iq->u.select;
    int32_t ri;
    int fn_kind = WEIR_RANK_ROW_NUMBER;
    int rc = find_rank_item(pc, in, &ri, &fn_kind);
    if (rc || ri < 0)
        return rc;
    *handled = true;
    const weir_sql_select_item *item = &in->items[ri];
    const weir_sql_expr *call = item->expr;
    const weir_sql_window *w = call->u.call.over;
    if (!item->alias)
        return plan_error(pc, call->loc, WEIR_EPLAN, "give ROW_NUMBER() a name (AS rn) and bound it in the outer WHERE");
    const char *alias = item->alias->name;
    /* LIMIT without ORDER BY (plan_sort_limit's $rownum) keeps the first rows to arrive */
    if (w->ref || (w->n_order_by == 0 && strcmp(alias, "$rownum") != 0))
        return plan_error(pc, w->loc, WEIR_EUNSUPPORTED, "ROW_NUMBER() needs OVER (PARTITION BY ... ORDER BY ...) written out");
    /* beside a GROUP BY the ranking is over the groups (after HAVING), as SQL evaluates OVER after
     * grouping: the aggregating query, with any ORDER BY aggregate as a hidden item, is the input */
    if (in->distinct)
        return plan_error(pc, call->loc, WEIR_EUNSUPPORTED,
                          "ROW_NUMBER() in a SELECT DISTINCT is not supported (DISTINCT applies after the ranking): "
                          "rank the distinct rows in an outer query");
    if (w->n_order_by > WEIR_KEY_MAX_COLS || w->n_partition_by > WEIR_KEY_MAX_COLS)
        return plan_error(pc, w->loc, WEIR_EUNSUPPORTED, "at most %d PARTITION BY and ORDER BY columns", WEIR_KEY_MAX_COLS);
    /* the rank range, from the outer WHERE */
    const weir_sql_expr *cj[64];
    uint32_t n_cj = 0, n_rest = 0;
    if (sel->where)
        conjuncts(sel->where, cj, 64, &n_cj);
    if (n_cj > 64)
        return plan_error(pc, sel->where->loc, WEIR_EUNSUPPORTED, "too many AND conditions around a ROW_NUMBER()");
    int64_t lo = 1, hi = INT64_MAX;
    const weir_sql_expr *rest[64];
    for (uint32_t i = 0; i < n_cj; i++)
        if (!rank_bound(cj[i], alias, &lo, &hi))
            rest[n_rest++] = cj[i];
    if (hi == INT64_MAX)
        return plan_error(pc, call->loc, WEIR_EUNSUPPORTED,
                          "ROW_NUMBER() needs an upper bound on '%s' in the outer WHERE (for example WHERE %s <= 10): "
                          "an unbounded ranking is not supported on a stream",
                          alias, alias);
    if (lo < 1)
        lo = 1;
    if (hi < lo || hi > 100000)
        return plan_error(pc, sel->where->loc, WEIR_EPLAN,
                          hi < lo ? "the conditions on '%s' leave no rank" : "'%s' is bounded above 100000: too many rows per partition",
                          alias);
    /* the input: the inner query without the ROW_NUMBER() item; a PARTITION BY or ORDER BY
     * expression that is not a plain column of its result (B.price, a + 1) becomes a hidden
     * item at the end, dropped again after the ranking */
    uint32_t n_hidden = 0, n_keys = w->n_partition_by + w->n_order_by;
    weir_sql_select inner = *in;
    inner.items = plan_alloc(pc, (in->n_items + n_keys) * sizeof *inner.items);
    int32_t *hidden_of = plan_alloc(pc, (n_keys + 1) * sizeof *hidden_of);
    if (!inner.items || !hidden_of)
        return WEIR_ENOMEM;
    inner.n_items = 0;
    for (uint32_t i = 0; i < in->n_items; i++)
        if ((int32_t)i != ri)
            inner.items[inner.n_items++] = in->items[i];
    if (!inner.n_items)
        return plan_error(pc, call->loc, WEIR_EPLAN, "a ROW_NUMBER() query needs other columns");
    uint32_t n_visible_items = inner.n_items;
    for (uint32_t i = 0; i < n_keys; i++) {
        const weir_sql_expr *e = i < w->n_partition_by ? w->partition_by[i] : w->order_by[i - w->n_partition_by].expr;
        hidden_of[i] = -1;
        if (e->kind == WEIR_SQL_EXPR_COLUMN && e->u.column.n_parts == 1 &&
            inner_exposes(in, ri, e->u.column.parts[0].name))
            continue;
        char nm[32];
        snprintf(nm, sizeof nm, "$rank_key%u", i);
        weir_sql_ident *id = plan_alloc(pc, sizeof *id);
        if (!id || !(id->name = plan_strdup(pc, nm)))
            return WEIR_ENOMEM;
        id->len = (uint32_t)strlen(nm);
        id->quoted = false;
        id->loc = e->loc;
        inner.items[inner.n_items++] = (weir_sql_select_item){(weir_sql_expr *)e, id};
        hidden_of[i] = (int32_t)n_hidden++;
    }
    (void)n_visible_items;
    weir_sql_query q = *iq;
    q.u.select = &inner;
    rel r;
    /* PARTITION BY window_start, window_end of a window table function: a window Top-N, whose input
     * is the window assignment itself (no aggregation needed) */
    bool names_bounds = false, names_end = false;
    for (uint32_t i = 0; i < w->n_partition_by; i++) {
        const weir_sql_expr *e = w->partition_by[i];
        if (e->kind != WEIR_SQL_EXPR_COLUMN)
            continue;
        const char *nm = e->u.column.parts[e->u.column.n_parts - 1].name;
        names_bounds |= !strcasecmp(nm, "window_start");
        names_end |= !strcasecmp(nm, "window_end");
    }
    pc->window_assign_ok = names_bounds && names_end;
    rc = plan_query(pc, &q, &r);
    pc->window_assign_ok = false;
    if (rc)
        return rc;
    uint32_t n_visible = r.n_physical - n_hidden; /* the hidden items are the last columns */
    /* PARTITION BY and ORDER BY name columns of the input; an updating input (an aggregation,
     * a join, a Top-N) gets the retractable Top-N */
    weir_rank_config rc_ = {.rank_start = (uint64_t)lo, .rank_end = (uint64_t)hi, .retract = r.updating};
    rc_.partition.n = w->n_partition_by;
    for (uint32_t i = 0; i < w->n_partition_by; i++) {
        uint32_t idx;
        if (hidden_of[i] >= 0)
            idx = n_visible + (uint32_t)hidden_of[i];
        else if ((rc = plan_resolve_column(pc, &r, &w->partition_by[i]->u.column, &idx)))
            return rc;
        rc_.partition.cols[i] = idx;
    }
    rc_.n_order = w->n_order_by;
    bool by_time = w->n_order_by == 1;
    for (uint32_t i = 0; i < w->n_order_by; i++) {
        const weir_sql_order_item *o = &w->order_by[i];
        uint32_t idx;
        int32_t h = hidden_of[w->n_partition_by + i];
        if (h >= 0)
            idx = n_visible + (uint32_t)h;
        else if ((rc = plan_resolve_column(pc, &r, &o->expr->u.column, &idx)))
            return rc;
        rc_.order_cols[i] = idx;
        rc_.order_desc[i] = o->dir == WEIR_SQL_ORDER_DESC;
        /* NULL is the smallest value unless NULLS FIRST/LAST says otherwise */
        rc_.nulls_last[i] = o->nulls == WEIR_SQL_NULLS_DEFAULT ? rc_.order_desc[i] : o->nulls == WEIR_SQL_NULLS_LAST;
        by_time &= (int)idx == r.rowtime || (r.has_proctime && idx == r.proctime);
    }
    /* the rank number is a column when the outer query reads it */
    bool with_rank = false;
    for (uint32_t i = 0; i < sel->n_items; i++)
        with_rank |= sel->items[i].expr->kind == WEIR_SQL_EXPR_STAR || mentions(sel->items[i].expr, alias);
    for (uint32_t i = 0; i < n_rest; i++)
        with_rank |= mentions(rest[i], alias);
    with_rank |= sel->n_group_by > 0 || sel->having; /* GROUP BY rn ...: keep it simple, keep the column */
    rc_.with_rank = with_rank;
    rc_.dedup = by_time && lo == 1 && hi == 1 && !with_rank && !rc_.retract;
    /* window Top-N: the partition holds both bounds of the input's windows */
    rc_.window_end_col = -1;
    if (r.wprops.present) {
        bool ws = false, we = false;
        for (uint32_t i = 0; i < rc_.partition.n; i++) {
            ws |= rc_.partition.cols[i] == r.wprops.ws;
            we |= rc_.partition.cols[i] == r.wprops.we;
        }
        if (ws && we) {
            rc_.window_end_col = (int32_t)r.wprops.we;
            rc_.time_zone = r.wprops.local_tz ? pc->time_zone : NULL;
        }
    }
    bool windowed = rc_.window_end_col >= 0;
    if (windowed && rc_.retract)
        return plan_error(pc, call->loc, WEIR_EUNSUPPORTED, "a window Top-N takes an append-only input");
    if (fn_kind != WEIR_RANK_ROW_NUMBER) {
        /* RANK/DENSE_RANK: every row of a tie gets one rank; in a window Top-N the ranks come out once */
        if (!windowed)
            return plan_error(pc, call->loc, WEIR_EUNSUPPORTED,
                              "%s() is supported in a window Top-N only (PARTITION BY window_start, window_end); a "
                              "continuous Top-N takes ROW_NUMBER() (Flink supports neither RANK() nor DENSE_RANK() "
                              "on a stream)",
                              fn_kind == WEIR_RANK_RANK ? "RANK" : "DENSE_RANK");
        rc_.dedup = false;
        rc_.rank_fn = fn_kind == WEIR_RANK_RANK ? WEIR_RANK_RANK : WEIR_RANK_DENSE_RANK;
    }
    rc_.ties_newer_first = rc_.dedup && rc_.order_desc[0];
    /* deduplication by a processing-time attribute goes by arrival, as Flink's (which reads the clock at
     * the operator): the first row to arrive stays (ASC), or the last replaces it (DESC). Keeping the
     * first is append-only: no row ever replaces it. */
    bool by_arrival = rc_.dedup && !windowed && r.has_proctime && rc_.order_cols[0] == r.proctime;
    if (by_arrival)
        rc_.n_order = 0; /* every row ties: ties_newer_first alone decides */
    bool append_only = windowed || (by_arrival && !rc_.ties_newer_first);
    int64_t ttl = 0;
    const char *v = plan_config(pc, "table.exec.state.ttl");
    if (v && weir_option_parse_duration(v, &ttl))
        return plan_error(pc, plan_config_at(pc, "table.exec.state.ttl", sel->loc), WEIR_EINVAL, "table.exec.state.ttl: invalid duration '%s'", v);
    rc_.state_ttl_ms = ttl;
    weir_schema *os = plan_new_schema(pc);
    if (!os)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < r.n_physical; i++)
        if (weir_schema_add(os, r.schema->fields[i].name, r.schema->fields[i].type) < 0)
            return WEIR_ENOMEM;
    if (with_rank && weir_schema_add(os, alias, weir_type_make(WEIR_TYPE_BIGINT, false)) < 0)
        return WEIR_ENOMEM;
    rc_.out_schema = os;
    int skip_join = -1, skip_side = 0;
    if ((rc = plan_top1_skip(pc, &r, &rc_, sel->loc, &skip_join, &skip_side)))
        return rc;
    weir_operator_spec spec;
    rc = weir_rank_spec(&rc_, &spec);
    weir__top1_link_unref(rc_.top1_link);
    if (rc)
        return rc;
    weir_stream ranked = r.s; /* a window Top-1 over a window aggregation reads its rows pre-filtered */
    if (windowed && (rc = plan_window_top1_prefilter(pc, &r, &rc_, call->loc, &ranked))) {
        spec.free_arg(spec.arg);
        return rc;
    }
    weir_stream keyed = rc_.partition.n ? weir_stream_key_by(ranked, rc_.partition.cols, rc_.partition.n)
                                        : weir_stream_partition(ranked, WEIR_PART_GLOBAL);
    memset(out, 0, sizeof *out);
    if ((rc = weir_job_operator(pc->job, &keyed, 1, &spec, os, rc_.partition.n ? 0 : 1, &out->s))) {
        spec.free_arg(spec.arg);
        return plan_error(pc, call->loc, rc, "cannot add the ranking: %s", weir_job_error(pc->job));
    }
    /* Restore compatibility: the kept rows are sorted by this order. */
    weir_buf ob;
    weir_buf_init(&ob);
    for (uint32_t i = 0; i < rc_.n_order && !rc; i++)
        rc = weir_buf_printf(&ob, "%s$%u %s%s", i ? ", " : "", rc_.order_cols[i], rc_.order_desc[i] ? "DESC" : "ASC",
                             rc_.nulls_last[i] ? " NULLS LAST" : "");
    if (!rc)
        rc = weir_buf_put_u8(&ob, 0);
    if (!rc)
        rc = weir_job_describe_state(pc->job, out->s, "order", rc_.n_order ? (const char *)ob.data : "none");
    weir_buf_fini(&ob);
    /* the append-only Top-N keeps its best rows only, and what each keeps has been emitted under its numbering */
    if (!rc)
        rc = describe_ranks(pc, out->s, &rc_);
    if (!rc && windowed)
        rc = plan_describe_windows(pc, out->s, &r.wprops.assigner);
    /* the retractable Top-N keeps every row, the append-only one its best rows: neither reads the other's state */
    if (!rc && rc_.retract)
        rc = weir_job_describe_state(pc->job, out->s, "strategy", "retract");
    /* a window Top-N of local windows keeps timers at the instants of local window ends */
    if (!rc && rc_.time_zone)
        rc = weir_job_describe_state(pc->job, out->s, "time-zone", rc_.time_zone);
    if (!rc)
        rc = weir__describe_row_format(pc->job, out->s);
    if (!rc)
        rc = weir__describe_rank_rows(pc->job, out->s);
    if (rc)
        return rc;
    weir_buf_printf(&pc->explain, "  %s%s[%d]: partition=%u order=%u rows %lld..%lld%s (%s)%s%s",
                    windowed ? "Window" : "", rc_.dedup ? "Deduplicate" : "Rank", out->s.node, rc_.partition.n,
                    rc_.n_order, (long long)lo, (long long)hi, with_rank ? " with rank number" : "",
                    append_only ? "append-only" : rc_.retract ? "changelog, retract strategy" : "changelog",
                    rc_.time_zone ? " time-zone=" : "", rc_.time_zone ? rc_.time_zone : "");
    /* the join skips its rows of that side that this Top-1 would drop (when chained to it) */
    if (skip_join >= 0)
        weir_buf_printf(&pc->explain, " skips for Join[%d] (%s rows below the kept one)", skip_join,
                        skip_side ? "right" : "left");
    weir_buf_printf(&pc->explain, "\n");
    out->schema = os;
    out->n_physical = os->n_fields;
    /* its upsert keys (a window Top-N's rows are final: it has no updates to order) */
    if (!windowed)
        plan_ukey_rank(&r, &rc_.partition, fn_kind == WEIR_RANK_ROW_NUMBER, lo == 1 && hi == 1,
                       with_rank ? (int32_t)os->n_fields - 1 : -1, lo == 1, out);
    /*
     * The time attributes stay, as in Flink: a window Top-N emits each row at
     * its window's time (window_time); a Top-N or deduplication passes each
     * row's own time on, so its rowtime column stays one (its output is a
     * changelog, which a window refuses by that name).
     */
    out->rowtime = windowed ? r.wprops.wt : r.rowtime < (int)n_visible ? r.rowtime : -1;
    os->rowtime = out->rowtime;
    if (!windowed && r.has_proctime && r.proctime < n_visible) {
        out->has_proctime = true;
        out->proctime = r.proctime;
    }
    out->updating = !append_only;
    if (windowed)
        out->wprops = r.wprops; /* the same columns, in the same places */
    out->loc = fr->loc;
    if (n_hidden) {
        /* drop the hidden key columns: the visible ones, then the rank number */
        uint32_t n = n_visible + (with_rank ? 1 : 0);
        weir_expr **ex = plan_alloc(pc, (n + 1) * sizeof *ex);
        const char **nm = plan_alloc(pc, (n + 1) * sizeof *nm);
        if (!ex || !nm)
            return WEIR_ENOMEM;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t c = i < n_visible ? i : os->n_fields - 1;
            weir_error err = {0};
            if (weir_expr_column(pc->arena, c, os->fields[c].type, &ex[i], &err))
                return WEIR_ENOMEM;
            nm[i] = os->fields[c].name;
        }
        rel dropped;
        if ((rc = plan_calc(pc, out, NULL, ex, nm, n, &dropped, "Calc")))
            return rc;
        dropped.updating = !append_only;
        dropped.loc = fr->loc;
        *out = dropped;
    }
    out->quals = plan_alloc(pc, (out->schema->n_fields + 1) * sizeof *out->quals);
    if (!out->quals)
        return WEIR_ENOMEM;
    char *qual = fr->alias ? plan_strdup(pc, fr->alias->name) : NULL;
    for (uint32_t i = 0; i < out->schema->n_fields; i++)
        out->quals[i] = qual;
    /* the other conjuncts: the outer WHERE that remains */
    const weir_sql_expr *rw = NULL;
    for (uint32_t i = 0; i < n_rest; i++) {
        if (!rw) {
            rw = rest[i];
            continue;
        }
        weir_sql_expr *a = plan_alloc(pc, sizeof *a);
        if (!a)
            return WEIR_ENOMEM;
        memset(a, 0, sizeof *a);
        a->kind = WEIR_SQL_EXPR_BINARY;
        a->loc = rest[i]->loc;
        a->u.binary.op_loc = rest[i]->loc;
        a->u.binary.op = WEIR_SQL_OP_AND;
        a->u.binary.left = (weir_sql_expr *)rw;
        a->u.binary.right = (weir_sql_expr *)rest[i];
        rw = a;
    }
    *where = rw;
    return 0;
}

/* A synthetic AST node for the rewrite below (zeroed, at loc). */
static weir_sql_expr *new_expr(plan_ctx *pc, weir_sql_expr_kind kind, weir_sql_loc loc)
{
    weir_sql_expr *e = plan_alloc(pc, sizeof *e);
    if (e) {
        memset(e, 0, sizeof *e);
        e->kind = kind;
        e->loc = loc;
    }
    return e;
}

static weir_sql_ident *new_ident(plan_ctx *pc, const char *name, weir_sql_loc loc)
{
    weir_sql_ident *id = plan_alloc(pc, sizeof *id);
    if (!id || !(id->name = plan_strdup(pc, name)))
        return NULL;
    id->len = (uint32_t)strlen(name);
    id->quoted = false;
    id->loc = loc;
    return id;
}

static weir_sql_expr *new_int(plan_ctx *pc, int64_t v, weir_sql_loc loc)
{
    weir_sql_expr *e = new_expr(pc, WEIR_SQL_EXPR_LITERAL, loc);
    if (e) {
        e->u.lit.kind = WEIR_SQL_LIT_INTEGER;
        e->u.lit.i64 = v;
        e->u.lit.text = "0";
        e->u.lit.len = 1;
    }
    return e;
}

/*
 * The query without ORDER BY / LIMIT / OFFSET into *bare, and its ORDER BY
 * items into ob (n_order_by of them), as columns of bare's result: t.c is
 * c, and an item that a plain SELECT does not show (a column of its FROM, or
 * an expression) becomes a hidden item $order_key<i> at the end of its
 * list, which drop_hidden removes after the sort (*n_hidden of them).
 */
static int order_keys(plan_ctx *pc, const weir_sql_query *q, weir_sql_query *bare, weir_sql_order_item *ob,
                      uint32_t *n_hidden)
{
    *bare = *q;
    bare->order_by = NULL;
    bare->n_order_by = 0;
    bare->limit = bare->offset = NULL;
    *n_hidden = 0;
    const weir_sql_select *in = q->kind == WEIR_SQL_QUERY_SELECT ? q->u.select : NULL;
    bool plain = in && !in->distinct && !in->n_group_by && !in->having;
    weir_sql_select *copy = NULL;
    for (uint32_t i = 0; i < q->n_order_by; i++) {
        ob[i] = q->order_by[i];
        const weir_sql_expr *e = ob[i].expr;
        if (e->kind == WEIR_SQL_EXPR_LITERAL)
            return plan_error(pc, e->loc, WEIR_EUNSUPPORTED,
                              "ORDER BY a position or a constant is not supported on a stream: name the column");
        bool col = e->kind == WEIR_SQL_EXPR_COLUMN;
        const char *name = col ? e->u.column.parts[e->u.column.n_parts - 1].name : NULL;
        if (!plain || (col && inner_exposes(in, -1, name))) {
            if (col && e->u.column.n_parts > 1) {
                /* t.c: the column c of the query's result */
                weir_sql_expr *c = new_expr(pc, WEIR_SQL_EXPR_COLUMN, e->loc);
                if (!c)
                    return WEIR_ENOMEM;
                c->end = e->end;
                c->u.column = e->u.column;
                c->u.column.parts += e->u.column.n_parts - 1;
                c->u.column.n_parts = 1;
                ob[i].expr = c;
            }
            continue;
        }
        if (!copy) {
            copy = plan_alloc(pc, sizeof *copy);
            weir_sql_select_item *items = plan_alloc(pc, (in->n_items + q->n_order_by) * sizeof *items);
            if (!copy || !items)
                return WEIR_ENOMEM;
            *copy = *in;
            memcpy(items, in->items, in->n_items * sizeof *items);
            copy->items = items;
            bare->u.select = copy;
        }
        char nm[32];
        snprintf(nm, sizeof nm, "$order_key%u", i);
        weir_sql_ident *id = new_ident(pc, nm, e->loc);
        weir_sql_expr *ref = new_expr(pc, WEIR_SQL_EXPR_COLUMN, e->loc);
        if (!id || !ref)
            return WEIR_ENOMEM;
        copy->items[copy->n_items++] = (weir_sql_select_item){(weir_sql_expr *)e, id};
        ref->u.column = (weir_sql_name){id, 1, e->loc};
        ob[i].expr = ref;
        (*n_hidden)++;
    }
    return 0;
}

/* Drops the last n_hidden columns of *r (the hidden ORDER BY items). */
static int drop_hidden(plan_ctx *pc, rel *r, uint32_t n_hidden, bool updating)
{
    if (!n_hidden)
        return 0;
    uint32_t n = r->n_physical - n_hidden;
    weir_expr **ex = plan_alloc(pc, (n + 1) * sizeof *ex);
    const char **nm = plan_alloc(pc, (n + 1) * sizeof *nm);
    if (!ex || !nm)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < n; i++) {
        weir_error err = {0};
        if (weir_expr_column(pc->arena, i, r->schema->fields[i].type, &ex[i], &err))
            return WEIR_ENOMEM;
        nm[i] = r->schema->fields[i].name;
    }
    rel dropped;
    weir_sql_loc loc = r->loc;
    int rc = plan_calc(pc, r, NULL, ex, nm, n, &dropped, "Calc");
    if (rc)
        return rc;
    dropped.updating = updating;
    dropped.loc = loc;
    *r = dropped;
    return 0;
}

/* ORDER BY item e as a column of r (t.c names c), or an error. */
static int order_column(plan_ctx *pc, const rel *r, const weir_sql_expr *e, uint32_t *idx)
{
    if (e->kind != WEIR_SQL_EXPR_COLUMN)
        return plan_error(pc, e->loc, WEIR_EUNSUPPORTED,
                          "ORDER BY on a stream takes columns of the query's result (no positions or expressions)");
    weir_sql_name n = e->u.column;
    n.parts += n.n_parts - 1;
    n.n_parts = 1;
    int rc = plan_resolve_column(pc, r, &n, idx);
    if (!rc && *idx >= r->n_physical)
        return plan_error(pc, e->loc, WEIR_EUNSUPPORTED, "ORDER BY a window column before the window is computed");
    return rc;
}

static int sort_operator(plan_ctx *pc, const weir_sql_query *q, const weir_sql_order_item *ob, uint32_t n_hidden,
                         bool proctime, rel *r, rel *out);

/*
 * ORDER BY a processing-time attribute, ascending (Flink's processing-time
 * sort): a row's processing time is when it arrives, so the rows are in
 * that order as they come. Alone, the query's rows pass as they are;
 * further ORDER BY columns order the rows of one millisecond of the clock
 * (the sort operator's processing-time mode).
 */
static int proctime_sort(plan_ctx *pc, const weir_sql_query *q, const weir_sql_order_item *ob, uint32_t n_hidden,
                         rel *r, rel *out)
{
    const weir_sql_order_item *first = &ob[0];
    if (first->dir == WEIR_SQL_ORDER_DESC)
        return plan_error(pc, first->expr->loc, WEIR_EUNSUPPORTED,
                          "ORDER BY a processing-time attribute DESC on a stream is not supported (time only grows: "
                          "ORDER BY it ascending, or add LIMIT for a Top-N)");
    if (r->updating)
        return plan_error(pc, first->expr->loc, WEIR_EUNSUPPORTED,
                          "ORDER BY a processing-time attribute takes an append-only input (this query's result is "
                          "updating)");
    if (q->n_order_by > 1)
        return sort_operator(pc, q, ob, n_hidden, true, r, out);
    weir_buf_printf(&pc->explain, "  ProcTimeSort: by $%u ASC (rows pass in arrival order)\n", r->proctime);
    *out = *r;
    out->loc = q->loc;
    return drop_hidden(pc, out, n_hidden, false);
}

/*
 * ORDER BY without LIMIT on a stream: Flink's temporal sort, which the
 * first ORDER BY item must allow - the query's event-time attribute,
 * ascending, over an append-only input; the other items order the rows of
 * one timestamp. One subtask sorts (ops/temporal_sort.c).
 */
static int plan_temporal_sort(plan_ctx *pc, const weir_sql_query *q, rel *out)
{
    weir_sql_query bare;
    uint32_t n_hidden;
    weir_sql_order_item *ob = plan_alloc(pc, q->n_order_by * sizeof *ob);
    if (!ob)
        return WEIR_ENOMEM;
    int rc = order_keys(pc, q, &bare, ob, &n_hidden);
    rel r;
    if (rc || (rc = plan_query(pc, &bare, &r)))
        return rc;
    const weir_sql_order_item *first = &ob[0];
    uint32_t idx;
    if ((rc = order_column(pc, &r, first->expr, &idx)))
        return rc;
    if (r.has_proctime && idx == r.proctime)
        return proctime_sort(pc, q, ob, n_hidden, &r, out);
    if ((int)idx != r.rowtime)
        return plan_error(pc, first->expr->loc, WEIR_EUNSUPPORTED,
                          "ORDER BY without LIMIT on a stream must start with the event-time attribute, ascending "
                          "(a sort on other columns never ends; add LIMIT for a Top-N)");
    if (first->dir == WEIR_SQL_ORDER_DESC)
        return plan_error(pc, first->expr->loc, WEIR_EUNSUPPORTED,
                          "ORDER BY the event-time attribute DESC on a stream is not supported (time only grows: "
                          "ORDER BY it ascending, or add LIMIT for a Top-N)");
    if (r.updating)
        return plan_error(pc, first->expr->loc, WEIR_EUNSUPPORTED,
                          "ORDER BY the event-time attribute takes an append-only input (this query's result is updating)");
    return sort_operator(pc, q, ob, n_hidden, false, &r, out);
}

/* The sort operator over r by ob[0] (the event-time attribute, or proctime: the processing-time one), then the
 * other ORDER BY items. */
static int sort_operator(plan_ctx *pc, const weir_sql_query *q, const weir_sql_order_item *ob, uint32_t n_hidden,
                         bool proctime, rel *rp, rel *out)
{
    rel r = *rp;
    int rc;
    if (q->n_order_by - 1 > WEIR_KEY_MAX_COLS)
        return plan_error(pc, q->order_by[1].expr->loc, WEIR_EUNSUPPORTED, "at most %d ORDER BY columns",
                          WEIR_KEY_MAX_COLS + 1);
    weir_temporal_sort_config c = {.proctime = proctime, .n_order = q->n_order_by - 1};
    for (uint32_t i = 1; i < q->n_order_by; i++) {
        const weir_sql_order_item *o = &ob[i];
        if ((rc = order_column(pc, &r, o->expr, &c.order_cols[i - 1])))
            return rc;
        c.order_desc[i - 1] = o->dir == WEIR_SQL_ORDER_DESC;
        c.nulls_last[i - 1] = o->nulls == WEIR_SQL_NULLS_DEFAULT ? c.order_desc[i - 1] : o->nulls == WEIR_SQL_NULLS_LAST;
    }
    weir_schema *os = plan_new_schema(pc);
    if (!os)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < r.n_physical; i++)
        if (weir_schema_add(os, r.schema->fields[i].name, r.schema->fields[i].type) < 0)
            return WEIR_ENOMEM;
    os->rowtime = r.rowtime;
    c.schema = os;
    weir_operator_spec spec;
    if ((rc = weir_temporal_sort_spec(&c, &spec)))
        return rc;
    weir_stream one = weir_stream_partition(r.s, WEIR_PART_GLOBAL);
    *out = r;
    if ((rc = weir_job_operator(pc->job, &one, 1, &spec, os, 1, &out->s))) {
        spec.free_arg(spec.arg);
        return plan_error(pc, q->loc, rc, "cannot add the sort: %s", weir_job_error(pc->job));
    }
    if (proctime)
        weir_buf_printf(&pc->explain,
                        "  ProcTimeSort[%d]: by $%u ASC then %u column(s) (the rows of one millisecond of the clock)\n",
                        out->s.node, r.proctime, c.n_order);
    else
        weir_buf_printf(&pc->explain, "  TemporalSort[%d]: by $%d ASC then %u column(s) (append-only)\n", out->s.node,
                        r.rowtime, c.n_order);
    out->schema = os;
    out->n_physical = os->n_fields;
    out->win.present = false;
    out->wprops.present = false;
    out->above_wm = false;
    out->loc = q->loc;
    return drop_hidden(pc, out, n_hidden, false);
}

/*
 * ORDER BY ... LIMIT n [OFFSET m] (or FETCH FIRST n ROWS ONLY) on a stream,
 * as Flink plans it: a Top-N without partition over the query without its
 * ORDER BY, ranks m + 1 .. m + n, without the rank number - an updating
 * result, read by one subtask. It is rewritten as
 *
 *   SELECT <q's columns> FROM (
 *     SELECT *, ROW_NUMBER() OVER (ORDER BY ...) AS $rownum FROM (q)) WHERE $rownum BETWEEN m + 1 AND m + n
 *
 * so ORDER BY names columns of q's result (as written, or by alias). LIMIT
 * without ORDER BY keeps the first n rows to arrive.
 */
int plan_sort_limit(plan_ctx *pc, const weir_sql_query *q, rel *out)
{
    static const char rn_name[] = "$rownum";
    int64_t limit = 0, offset = 0;
    if (!q->limit && !q->offset)
        return plan_temporal_sort(pc, q, out);
    if (!q->limit)
        return plan_error(pc, q->offset->loc, WEIR_EUNSUPPORTED, "OFFSET without LIMIT (FETCH) on a stream is not supported (Flink neither)");
    if (!int_lit(q->limit, &limit) || limit < 1)
        return plan_error(pc, q->limit->loc, WEIR_EPLAN, "LIMIT takes a positive integer literal on a stream");
    if (q->offset && (!int_lit(q->offset, &offset) || offset < 0))
        return plan_error(pc, q->offset->loc, WEIR_EPLAN, "OFFSET takes a non-negative integer literal");
    if (limit > 100000 || offset > 100000 - limit)
        return plan_error(pc, q->limit->loc, WEIR_EPLAN, "LIMIT and OFFSET reach past row 100000: too many rows to rank");
    weir_sql_loc loc = q->loc;
    /* the query without ORDER BY / LIMIT / OFFSET */
    weir_sql_query *bare = plan_alloc(pc, sizeof *bare);
    weir_sql_window *w = plan_alloc(pc, sizeof *w);
    weir_sql_order_item *ob = plan_alloc(pc, (q->n_order_by + 1) * sizeof *ob);
    weir_sql_select *in = plan_alloc(pc, sizeof *in);
    weir_sql_select_item *items = plan_alloc(pc, 2 * sizeof *items);
    weir_sql_table_ref *from = plan_alloc(pc, sizeof *from);
    weir_sql_query *inq = plan_alloc(pc, sizeof *inq);
    weir_sql_select *outer = plan_alloc(pc, sizeof *outer);
    weir_sql_table_ref *ofrom = plan_alloc(pc, sizeof *ofrom);
    weir_sql_expr *star = new_expr(pc, WEIR_SQL_EXPR_STAR, loc), *call = new_expr(pc, WEIR_SQL_EXPR_CALL, loc);
    weir_sql_expr *rn = new_expr(pc, WEIR_SQL_EXPR_COLUMN, loc), *between = new_expr(pc, WEIR_SQL_EXPR_BETWEEN, loc);
    weir_sql_ident *rn_id = new_ident(pc, rn_name, loc), *fn_id = new_ident(pc, "ROW_NUMBER", loc);
    weir_sql_expr *lo = new_int(pc, offset + 1, loc), *hi = new_int(pc, offset + limit, loc);
    if (!bare || !w || !ob || !in || !items || !from || !inq || !outer || !ofrom || !star || !call || !rn ||
        !between || !rn_id || !fn_id || !lo || !hi)
        return WEIR_ENOMEM;
    uint32_t n_hidden;
    int rc = order_keys(pc, q, bare, ob, &n_hidden);
    if (rc)
        return rc;
    memset(w, 0, sizeof *w);
    w->loc = q->n_order_by ? q->order_by[0].expr->loc : q->limit->loc;
    w->order_by = ob;
    w->n_order_by = q->n_order_by;
    call->u.call.name = (weir_sql_name){fn_id, 1, loc};
    call->u.call.over = w;
    items[0] = (weir_sql_select_item){star, NULL};
    items[1] = (weir_sql_select_item){call, rn_id};
    memset(from, 0, sizeof *from);
    from->kind = WEIR_SQL_FROM_SUBQUERY;
    from->loc = loc;
    from->u.subquery.query = bare;
    memset(in, 0, sizeof *in);
    in->loc = loc;
    in->items = items;
    in->n_items = 2;
    in->from = from;
    memset(inq, 0, sizeof *inq);
    inq->kind = WEIR_SQL_QUERY_SELECT;
    inq->loc = loc;
    inq->u.select = in;
    rn->u.column = (weir_sql_name){rn_id, 1, loc};
    between->u.between.operand = rn;
    between->u.between.low = lo;
    between->u.between.high = hi;
    memset(ofrom, 0, sizeof *ofrom);
    ofrom->kind = WEIR_SQL_FROM_SUBQUERY;
    ofrom->loc = loc;
    ofrom->u.subquery.query = inq;
    memset(outer, 0, sizeof *outer); /* no items: the rank number is not read */
    outer->loc = loc;
    outer->from = ofrom;
    outer->where = between;
    const weir_sql_expr *rest = NULL;
    bool handled = false;
    if ((rc = plan_rank(pc, outer, out, &rest, &handled)))
        return rc;
    return handled ? drop_hidden(pc, out, n_hidden, true) : WEIR_EINVAL;
}
