/*
 * planner/wtop1.c - a rewrite pass: "the rows of a window aggregation equal
 * to their window's maximum", written as a join, planned as a window Top-1
 * with ties.
 *
 * Nexmark q5 asks for the auctions with the most bids of each window as
 *
 *   SELECT ... FROM
 *     (SELECT auction, count(*) AS num, window_start AS s, window_end AS e
 *        FROM TABLE(HOP(...)) GROUP BY auction, window_start, window_end) A
 *   JOIN
 *     (SELECT max(C.num) AS maxn, C.s, C.e
 *        FROM (SELECT count(*) AS num, window_start AS s, window_end AS e
 *                FROM TABLE(HOP(...)) GROUP BY auction, window_start, window_end) C
 *      GROUP BY C.s, C.e) M
 *   ON A.s = M.s AND A.e = M.e AND A.num >= M.maxn
 *
 * Planned as written, a window join stores every (auction, window) row of
 * A until the window ends, to keep those whose count reaches the maximum.
 * When M's inner query C is A's query with fewer items (the same FROM,
 * WHERE, GROUP BY and HAVING, text for text) - or both read the same view -
 * M holds per window the maximum of exactly the values A's column holds,
 * so the join keeps the rows of A equal to their window's maximum: a
 * window Top-N with RANK() OVER (PARTITION BY s, e ORDER BY num DESC) <= 1,
 * which keeps only the rows tied at the top while the window is open. A
 * window join's rows and the window Top-N's both come out once, when the
 * watermark reaches the window end, at time end - 1, append-only.
 *
 * The rewrite applies only when it is exact: an INNER JOIN with ON (no
 * WHERE conjunct offered to it), the compared column an integer NOT NULL
 * (so >= against the maximum is = and no NULL orders anywhere), M's items
 * MAX of that column and the two window bounds it groups by, the ON
 * conjuncts exactly the two bound equalities and num >= maxn (or =, either
 * way round), and A's rel a window aggregation's append-only output with
 * those bounds. Anything else plans the join as written.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "ops/ops.h"
#include "planner/planner.h"
#include "weir/buf.h"

/* The query a FROM item reads: a subquery, or NULL. */
static const weir_sql_query *subquery_of(const weir_sql_table_ref *t)
{
    if (t->kind != WEIR_SQL_FROM_SUBQUERY || t->u.subquery.lateral || t->n_column_aliases)
        return NULL;
    const weir_sql_query *q = t->u.subquery.query;
    if (q->kind != WEIR_SQL_QUERY_SELECT || q->n_with || q->n_order_by || q->limit || q->offset)
        return NULL;
    return q;
}

/* The view name a FROM item reads (a table ref without hints or time travel), or NULL. */
static const char *view_name_of(plan_ctx *pc, const weir_sql_table_ref *t)
{
    if (t->kind != WEIR_SQL_FROM_TABLE || t->n_column_aliases || t->u.table.n_hints || t->u.table.system_time ||
        !plan_find_view(pc, &t->u.table.name) || plan_find_table(pc, &t->u.table.name))
        return NULL;
    return t->u.table.name.parts[t->u.table.name.n_parts - 1].name;
}

static int format_expr(const weir_sql_expr *e, weir_buf *b)
{
    weir_buf_clear(b);
    int rc = weir__sql_format_expr(e, b);
    return rc ? rc : weir_buf_put_u8(b, 0);
}

/* Whether q1 and q2 compute the same rows but for their items: the texts of their queries with the items replaced by
 * one and the same. */
static int same_but_items(const weir_sql_query *q1, const weir_sql_query *q2, bool *same)
{
    *same = false;
    const weir_sql_select *s1 = q1->u.select, *s2 = q2->u.select;
    if (!s1->n_items || !s2->n_items)
        return 0;
    weir_sql_select c1 = *s1, c2 = *s2;
    c1.n_items = c2.n_items = 1;
    c1.items = c2.items = s1->items; /* one item, the same in both */
    weir_sql_query x1 = *q1, x2 = *q2;
    x1.u.select = &c1;
    x2.u.select = &c2;
    weir_buf a, b;
    weir_buf_init(&a);
    weir_buf_init(&b);
    int rc = weir__sql_format_query(&x1, &a);
    if (!rc)
        rc = weir__sql_format_query(&x2, &b);
    if (!rc)
        *same = a.len == b.len && !memcmp(a.data, b.data, a.len);
    weir_buf_fini(&a);
    weir_buf_fini(&b);
    return rc;
}

/* A rel for name resolution only: columns named names[i] of types types[i], qualified by qual. */
static int name_rel(plan_ctx *pc, const char *const *names, const weir_type *types, const char *const *quals,
                    uint32_t n, rel *out)
{
    memset(out, 0, sizeof *out);
    weir_schema *s = plan_new_schema(pc);
    out->quals = plan_alloc(pc, (n + 1) * sizeof *out->quals);
    if (!s || !out->quals)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < n; i++) {
        if (weir_schema_add(s, names[i], types[i]) < 0)
            return WEIR_ENOMEM;
        out->quals[i] = quals[i] ? plan_strdup(pc, quals[i]) : NULL;
    }
    out->schema = s;
    out->n_physical = n;
    out->rowtime = -1;
    return 0;
}

/* Column of r that the plain column reference e names, or -1 (not a column reference, unknown, ambiguous). */
static int column_of(const rel *r, const weir_sql_expr *e)
{
    if (e->kind != WEIR_SQL_EXPR_COLUMN)
        return -1;
    int c = plan_find_column(NULL, r, &e->u.column);
    return c >= 0 ? c : -1;
}

static bool is_integer(weir_type t)
{
    return t.id == WEIR_TYPE_INT || t.id == WEIR_TYPE_BIGINT; /* TINYINT and SMALLINT are INT */
}

/*
 * Whether every row of r comes before the watermark passes its window_end:
 * a window aggregation's output without allowed lateness (rows emitted as
 * the window fires), through projections. Then no row is late for a
 * window Top-N, and a batch's rows of one window rank together.
 */
static bool on_time(const rel *r)
{
    /* windows of local wall time (table.local-time-zone) end by another rule: not taken (yet) */
    return r->wprops.present && !r->wprops.local_tz && r->above_wm && r->above_node == r->s.node &&
           r->above_col == r->wprops.we;
}

/*
 * The shape match. left: A's planned rel. On success *ok and, per column of
 * M, the column of A it equals (m_src), the column of A that MAX reads
 * (*num_col), M's MAX item (*max_item) and the names of M's columns.
 */
typedef struct top1_match {
    uint32_t n_m;       /* M's columns */
    uint32_t *m_src;    /* per M column: the column of A holding its value */
    const char **m_name;
    uint32_t num_col;   /* A's compared column */
    uint32_t max_item;  /* M's MAX(num) column */
    const char *m_qual; /* M's alias, or NULL */
} top1_match;

static int match_shape(plan_ctx *pc, const weir_sql_table_ref *ref, const rel *left, top1_match *m, bool *ok)
{
    *ok = false;
    const weir_sql_table_ref *lt = ref->u.join.left, *rt = ref->u.join.right;
    const weir_sql_query *rq = subquery_of(rt);
    if (!rq)
        return 0;
    const weir_sql_select *ms = rq->u.select;
    if (ms->distinct || ms->n_hints || ms->where || ms->having || ms->n_windows || !ms->from ||
        ms->n_group_by != 2 || !ms->n_items)
        return 0;
    uint32_t nl = left->n_physical;
    if (nl != left->schema->n_fields)
        return 0;
    /* C, the query M aggregates: as a rel of names (for M's items), each column mapped to a column of A */
    const weir_sql_table_ref *ct = ms->from;
    const char *lview = view_name_of(pc, lt), *cview = view_name_of(pc, ct);
    const weir_sql_query *q1 = subquery_of(lt), *q2 = subquery_of(ct);
    uint32_t nc;
    const char **c_names;
    uint32_t *c_src;
    if (lview && cview && !strcmp(lview, cview)) {
        nc = nl;
        c_names = plan_alloc(pc, (nc + 1) * sizeof *c_names);
        c_src = plan_alloc(pc, (nc + 1) * sizeof *c_src);
        if (!c_names || !c_src)
            return WEIR_ENOMEM;
        for (uint32_t i = 0; i < nc; i++) {
            c_names[i] = left->schema->fields[i].name;
            c_src[i] = i;
        }
    } else if (q1 && q2) {
        bool same;
        int rc = same_but_items(q1, q2, &same);
        if (rc || !same)
            return rc;
        const weir_sql_select *s1 = q1->u.select, *s2 = q2->u.select;
        if (s1->n_items != nl || !s1->n_group_by)
            return 0;
        nc = s2->n_items;
        c_names = plan_alloc(pc, (nc + 1) * sizeof *c_names);
        c_src = plan_alloc(pc, (nc + 1) * sizeof *c_src);
        if (!c_names || !c_src)
            return WEIR_ENOMEM;
        weir_buf a, b;
        weir_buf_init(&a);
        weir_buf_init(&b);
        int found = 1;
        for (uint32_t i = 0; i < nc && found && !rc; i++) {
            char nm[256];
            plan_item_name(&s2->items[i], i, nm, sizeof nm);
            c_names[i] = plan_strdup(pc, nm);
            found = 0;
            if (s2->items[i].expr->kind == WEIR_SQL_EXPR_STAR || (rc = format_expr(s2->items[i].expr, &a)))
                break;
            for (uint32_t k = 0; k < nl && !found && !rc; k++) {
                if (s1->items[k].expr->kind == WEIR_SQL_EXPR_STAR || (rc = format_expr(s1->items[k].expr, &b)))
                    break;
                if (a.len == b.len && !memcmp(a.data, b.data, a.len)) {
                    c_src[i] = k;
                    found = 1;
                }
            }
        }
        for (uint32_t k = 0; k < nl; k++)
            found &= s1->items[k].expr->kind != WEIR_SQL_EXPR_STAR;
        weir_buf_fini(&a);
        weir_buf_fini(&b);
        if (rc || !found)
            return rc;
    } else {
        return 0;
    }
    const char *c_qual = ct->alias ? ct->alias->name : cview;
    const char **quals = plan_alloc(pc, (nc + 1) * sizeof *quals);
    weir_type *types = plan_alloc(pc, (nc + 1) * sizeof *types);
    if (!quals || !types)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < nc; i++) {
        quals[i] = c_qual;
        types[i] = left->schema->fields[c_src[i]].type;
    }
    rel cr;
    int rc = name_rel(pc, c_names, types, quals, nc, &cr);
    if (rc)
        return rc;
    /* M groups by the window bounds of A */
    const rel_wprops *w = &left->wprops;
    if (!w->present || left->updating || w->local_tz || !on_time(left))
        return 0;
    bool has_ws = false, has_we = false;
    for (uint32_t g = 0; g < 2; g++) {
        int c = column_of(&cr, ms->group_by[g]);
        if (c < 0)
            return 0;
        has_ws |= c_src[c] == w->ws;
        has_we |= c_src[c] == w->we;
    }
    if (!has_ws || !has_we)
        return 0;
    /* M's items: one MAX(num) of an integer NOT NULL column, and window bounds */
    m->n_m = ms->n_items;
    m->m_src = plan_alloc(pc, (m->n_m + 1) * sizeof *m->m_src);
    m->m_name = plan_alloc(pc, (m->n_m + 1) * sizeof *m->m_name);
    if (!m->m_src || !m->m_name)
        return WEIR_ENOMEM;
    int n_max = 0;
    for (uint32_t i = 0; i < m->n_m; i++) {
        const weir_sql_expr *e = ms->items[i].expr;
        char nm[256];
        plan_item_name(&ms->items[i], i, nm, sizeof nm);
        m->m_name[i] = plan_strdup(pc, nm);
        int c;
        if (e->kind == WEIR_SQL_EXPR_CALL) {
            const weir_sql_name *fn = &e->u.call.name;
            if (fn->n_parts != 1 || strcasecmp(fn->parts[0].name, "MAX") || e->u.call.n_args != 1 ||
                e->u.call.star || e->u.call.filter || e->u.call.over || e->u.call.syntax != WEIR_SQL_CALL_PLAIN ||
                (c = column_of(&cr, e->u.call.args[0])) < 0)
                return 0;
            weir_type t = left->schema->fields[c_src[c]].type;
            if (!is_integer(t) || t.nullable)
                return 0;
            m->num_col = c_src[c];
            m->max_item = i;
            n_max++;
        } else if ((c = column_of(&cr, e)) < 0 || (c_src[c] != w->ws && c_src[c] != w->we)) {
            return 0;
        }
        m->m_src[i] = c < 0 ? 0 : c_src[c];
    }
    if (n_max != 1)
        return 0;
    /* ON: the two bound equalities and num >= maxn, nothing else */
    m->m_qual = rt->alias ? rt->alias->name : NULL;
    const char **jn = plan_alloc(pc, (nl + m->n_m + 1) * sizeof *jn);
    const char **jq = plan_alloc(pc, (nl + m->n_m + 1) * sizeof *jq);
    weir_type *jt = plan_alloc(pc, (nl + m->n_m + 1) * sizeof *jt);
    if (!jn || !jq || !jt)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < nl + m->n_m; i++) {
        bool l = i < nl;
        jn[i] = l ? left->schema->fields[i].name : m->m_name[i - nl];
        jq[i] = l ? (left->quals ? left->quals[i] : NULL) : m->m_qual;
        jt[i] = left->schema->fields[l ? i : m->m_src[i - nl]].type;
    }
    rel jr;
    if ((rc = name_rel(pc, jn, jt, jq, nl + m->n_m, &jr)))
        return rc;
    const weir_sql_expr *on = ref->u.join.on;
    if (!on || plan_count_and(on) != 3)
        return 0;
    const weir_sql_expr *conj[3];
    uint32_t n_conj = 0;
    plan_split_and(on, conj, &n_conj, 3);
    bool eq_ws = false, eq_we = false, ge = false;
    for (uint32_t i = 0; i < n_conj; i++) {
        const weir_sql_expr *e = conj[i];
        if (e->kind != WEIR_SQL_EXPR_BINARY)
            return 0;
        int a = column_of(&jr, e->u.binary.left), b = column_of(&jr, e->u.binary.right);
        weir_sql_binop op = e->u.binary.op;
        if (a < 0 || b < 0)
            return 0;
        if ((uint32_t)a >= nl) { /* M's column first: mirror the comparison */
            int t = a;
            a = b;
            b = t;
            op = op == WEIR_SQL_OP_LE ? WEIR_SQL_OP_GE : op == WEIR_SQL_OP_GE ? WEIR_SQL_OP_LE : op;
        }
        if ((uint32_t)a >= nl || (uint32_t)b < nl)
            return 0;
        uint32_t mi = (uint32_t)b - nl;
        if (mi == m->max_item) {
            if ((uint32_t)a != m->num_col || (op != WEIR_SQL_OP_GE && op != WEIR_SQL_OP_EQ))
                return 0;
            ge = true;
        } else if (op == WEIR_SQL_OP_EQ && (uint32_t)a == m->m_src[mi] && (uint32_t)a == w->ws) {
            eq_ws = true;
        } else if (op == WEIR_SQL_OP_EQ && (uint32_t)a == m->m_src[mi] && (uint32_t)a == w->we) {
            eq_we = true;
        } else {
            return 0;
        }
    }
    *ok = eq_ws && eq_we && ge;
    return 0;
}

/* The local pre-filter over s (A's stream, or a window Top-N's input); *out: its output. */
static int add_prefilter(plan_ctx *pc, weir_stream s, const weir_schema *schema, uint32_t ws, uint32_t we,
                         uint32_t col, bool desc, weir_sql_loc loc, weir_stream *out)
{
    weir_window_top1_local_config lc = {.ws_col = ws, .we_col = we, .value_col = col, .keep_max = desc};
    weir_operator_spec ls;
    int rc = weir_window_top1_local_spec(&lc, &ls);
    if (rc)
        return rc;
    if ((rc = weir_job_operator(pc->job, &s, 1, &ls, schema, plan_forward_parallelism(pc, s), out))) {
        ls.free_arg(ls.arg);
        return plan_error(pc, loc, rc, "cannot add the window Top-1: %s", weir_job_error(pc->job));
    }
    weir_buf_printf(&pc->explain, "  WindowTop1Local[%d]: the rows at their window's %s in each batch\n", out->node,
                    desc ? "top" : "bottom");
    return 0;
}

int plan_window_top1_prefilter(plan_ctx *pc, const rel *r, const weir_rank_config *rk, weir_sql_loc loc,
                               weir_stream *s)
{
    *s = r->s;
    if (rk->window_end_col < 0 || rk->retract || rk->rank_start != 1 || rk->rank_end != 1 || rk->n_order != 1 ||
        rk->partition.n != 2 || !on_time(r) || rk->order_cols[0] >= r->n_physical)
        return 0;
    const rel_wprops *w = &r->wprops;
    bool bounds = (rk->partition.cols[0] == w->ws && rk->partition.cols[1] == w->we) ||
                  (rk->partition.cols[0] == w->we && rk->partition.cols[1] == w->ws);
    if (!bounds || !is_integer(r->schema->fields[rk->order_cols[0]].type))
        return 0;
    return add_prefilter(pc, r->s, r->schema, w->ws, w->we, rk->order_cols[0], rk->order_desc[0], loc, s);
}

int plan_window_top1_join(plan_ctx *pc, const weir_sql_table_ref *ref, bool where_empty, const rel *left, rel *out,
                          bool *done)
{
    *done = false;
    if (ref->kind != WEIR_SQL_FROM_JOIN || ref->u.join.kind != WEIR_SQL_JOIN_INNER || ref->u.join.natural ||
        ref->u.join.n_using || !where_empty)
        return 0;
    top1_match m;
    memset(&m, 0, sizeof m);
    bool ok;
    int rc = match_shape(pc, ref, left, &m, &ok);
    if (rc || !ok)
        return rc;
    /*
     * Each batch of A first drops its rows below the top of their window
     * (chained to A, before the exchange), then RANK() OVER (PARTITION BY
     * ws, we ORDER BY num DESC) <= 1 ranks what is left.
     */
    const rel_wprops *w = &left->wprops;
    uint32_t nl = left->n_physical;
    weir_stream pre;
    if ((rc = add_prefilter(pc, left->s, left->schema, w->ws, w->we, m.num_col, true, ref->u.join.op_loc, &pre)))
        return rc;
    weir_rank_config rk = {.n_order = 1,
                           .rank_start = 1,
                           .rank_end = 1,
                           .out_schema = left->schema,
                           .window_end_col = (int32_t)w->we,
                           .rank_fn = WEIR_RANK_RANK};
    rk.partition.n = 2;
    rk.partition.cols[0] = w->ws;
    rk.partition.cols[1] = w->we;
    rk.order_cols[0] = m.num_col;
    rk.order_desc[0] = true;
    rk.nulls_last[0] = true;
    weir_operator_spec spec;
    if ((rc = weir_rank_spec(&rk, &spec)))
        return rc;
    weir_stream keyed = weir_stream_key_by(pre, rk.partition.cols, rk.partition.n);
    rel top;
    memset(&top, 0, sizeof top);
    if ((rc = weir_job_operator(pc->job, &keyed, 1, &spec, left->schema, 0, &top.s))) {
        spec.free_arg(spec.arg);
        return plan_error(pc, ref->u.join.op_loc, rc, "cannot add the window Top-1: %s", weir_job_error(pc->job));
    }
    /* Restore compatibility: the kept rows are sorted by this order (as a window Top-N's). */
    char ob[64];
    snprintf(ob, sizeof ob, "$%u DESC NULLS LAST", m.num_col);
    if ((rc = weir_job_describe_state(pc->job, top.s, "order", ob)) || (rc = weir__describe_row_format(pc->job, top.s)) ||
        (rc = weir__describe_rank_rows(pc->job, top.s)))
        return rc;
    weir_buf_printf(&pc->explain,
                    "  WindowRank[%d]: partition=2 order=1 rank 1..1 with ties (append-only; the join with each "
                    "window's MAX(%s))\n",
                    top.s.node, left->schema->fields[m.num_col].name);
    top.schema = left->schema;
    top.quals = left->quals;
    top.n_physical = nl;
    top.rowtime = left->rowtime;
    top.wprops = *w;
    top.loc = ref->loc;
    /* the joined row: A's columns, then M's (each equal to a column of A) */
    uint32_t n = nl + m.n_m;
    weir_expr **ex = plan_alloc(pc, (n + 1) * sizeof *ex);
    const char **nm = plan_alloc(pc, (n + 1) * sizeof *nm);
    char **quals = plan_alloc(pc, (n + 1) * sizeof *quals);
    if (!ex || !nm || !quals)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t c = i < nl ? i : m.m_src[i - nl];
        weir_type t = left->schema->fields[c].type;
        if (i == nl + m.max_item)
            t.nullable = true; /* MAX's type, as the join would have it */
        weir_error err = {0};
        if (weir_expr_column(pc->arena, c, left->schema->fields[c].type, &ex[i], &err))
            return WEIR_ENOMEM;
        if (t.nullable != left->schema->fields[c].type.nullable &&
            (rc = weir_expr_cast(pc->arena, ex[i], t, false, &ex[i], &err)))
            return rc == WEIR_ENOMEM ? rc : plan_error(pc, ref->loc, rc, "%s", err.message);
        nm[i] = i < nl ? left->schema->fields[i].name : m.m_name[i - nl];
        quals[i] = i < nl ? (left->quals ? left->quals[i] : NULL) : m.m_qual ? plan_strdup(pc, m.m_qual) : NULL;
    }
    rel j;
    if ((rc = plan_calc(pc, &top, NULL, ex, nm, n, &j, "Calc")))
        return rc;
    j.quals = quals;
    j.updating = false;
    j.above_wm = false;
    j.wprops = *w; /* A's columns come first, unmoved */
    j.rowtime = w->wt;
    j.schema->rowtime = j.rowtime;
    j.loc = ref->loc;
    *out = j;
    *done = true;
    return 0;
}
