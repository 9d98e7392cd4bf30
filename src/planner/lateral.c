/*
 * planner/lateral.c - correlated LATERAL derived tables, decorrelated into
 * joins as Flink's planner (Calcite's decorrelation) runs them.
 *
 *   FROM t, LATERAL (SELECT items FROM u WHERE c) AS l       an inner join
 *   FROM t LEFT JOIN LATERAL (SELECT ...) AS l ON TRUE       a LEFT join
 *
 * A derived table that reads none of the FROM items before it is an
 * ordinary subquery (plan_join). One that reads them (t.k in its WHERE or
 * SELECT list) runs as one of:
 *
 * - Rows (no aggregate, GROUP BY, HAVING, DISTINCT): the join of t with u on all of
 *   c (names resolve in u first, as inside the subquery), each joined row
 *   giving t's columns and the items computed over it. A LEFT join pads
 *   t's rows that meet no u row: every item is NULL there (a marker column
 *   of u's rows tells a padded row from a joined one, so that `1 AS one`
 *   or COALESCE(u.x, 0) is NULL too, as the derived table has no row).
 * - Aggregates without GROUP BY (one row per row of t): the aggregates
 *   grouped by the correlation key and LEFT-joined to t as a correlated
 *   scalar subquery's are (subquery.c), so that a row of t without u rows
 *   sees the aggregates of no rows (COUNT 0, the others NULL) rather than
 *   no row. Inner and LEFT are the same join there. HAVING is one more
 *   item over the same aggregates, a filter of the result (a LEFT join
 *   makes each item NULL where it fails instead); DISTINCT of one row is
 *   that row. The items may read t's columns around the aggregates (each
 *   joined row carries them) and in an aggregate's arguments
 *   (SUM(u.x * t.f): computed per distinct value of t.f, subquery.c).
 * - GROUP BY, or DISTINCT without aggregates, correlated by equalities:
 *   grouped by the correlation's inner side too and joined on it
 *   (subquery.c), a LEFT join padding a row of t without groups.
 *
 * The result: t's columns (its qualifiers) then the items, qualified by the
 * derived table's alias (named by its column aliases when given). An inner
 * JOIN LATERAL's ON is a filter of that result.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "planner/query_internal.h"

static int find_subquery(const weir_sql_expr *e, void *ud)
{
    (void)ud;
    if (e->kind == WEIR_SQL_EXPR_SUBQUERY || e->kind == WEIR_SQL_EXPR_EXISTS || e->kind == WEIR_SQL_EXPR_IN_QUERY)
        return 1;
    return weir__sql_expr_each_child(e, find_subquery, NULL);
}

/* Whether e (over scope: left's columns, then the derived table's FROM's) reads the left input. */
static bool reads_left(const rel *scope, uint32_t nl, const weir_sql_expr *e)
{
    return e && e->kind != WEIR_SQL_EXPR_STAR && (plan_side_mask(scope, nl, e) & PLAN_SIDE_LEFT);
}

static bool is_true(const weir_sql_expr *e)
{
    return e && e->kind == WEIR_SQL_EXPR_LITERAL && e->u.lit.kind == WEIR_SQL_LIT_BOOLEAN && e->u.lit.boolean;
}

/* The derived table's SELECT items, bound over the joined rows j (left's nl columns, then from's, from's
 * last column the marker when marker): `*` and `u.*` expand to from's columns. */
typedef struct lat_out {
    weir_expr **exprs;
    const char **names;
    uint32_t n, cap;
} lat_out;

static int out_add(plan_ctx *pc, lat_out *o, weir_expr *x, const char *name)
{
    if (o->n == o->cap) {
        uint32_t cap = o->cap ? 2 * o->cap : 16;
        weir_expr **e = plan_alloc(pc, cap * sizeof *e);
        const char **nm = plan_alloc(pc, cap * sizeof *nm);
        if (!e || !nm)
            return WEIR_ENOMEM;
        if (o->n) {
            memcpy(e, o->exprs, o->n * sizeof *e);
            memcpy(nm, o->names, o->n * sizeof *nm);
        }
        o->exprs = e;
        o->names = nm;
        o->cap = cap;
    }
    o->exprs[o->n] = x;
    o->names[o->n++] = name;
    return 0;
}

/* from's columns a `*` or `q.*` item names, as columns nl + c of j. */
static int star_items(plan_ctx *pc, const weir_sql_expr *star, const rel *from, const rel *j, uint32_t nl,
                      lat_out *o)
{
    const weir_sql_name *q = &star->u.star.qualifier;
    const char *qual = q->n_parts ? q->parts[q->n_parts - 1].name : NULL;
    uint32_t before = o->n;
    for (uint32_t c = 0; c < from->n_physical; c++) {
        const char *nm = from->schema->fields[c].name;
        if (plan_col_hidden(from, c) || plan_is_scalar_column(nm))
            continue;
        if (qual && !plan_column_qualified(pc, from, c, q, q->n_parts))
            continue;
        weir_expr *x;
        weir_error err = {0};
        int rc = weir_expr_column(pc->arena, nl + c, j->schema->fields[nl + c].type, &x, &err);
        if (rc || (rc = out_add(pc, o, x, nm)))
            return rc;
    }
    if (qual && o->n == before)
        return plan_error(pc, star->loc, WEIR_EPLAN, "unknown table or alias '%s' in %s.*", qual, qual);
    return 0;
}

/* x, or NULL where the joined row is a padded one (its marker column m is NULL). */
static int unless_padded(plan_ctx *pc, const rel *j, uint32_t m, weir_expr **x, weir_sql_loc loc)
{
    weir_expr *col, *nn;
    weir_error err = {0};
    int rc = weir_expr_column(pc->arena, m, j->schema->fields[m].type, &col, &err);
    if (!rc)
        rc = weir_expr_call(pc->arena, "IS NOT NULL", &col, 1, &nn, &err);
    if (!rc)
        rc = weir_expr_case(pc->arena, &nn, x, 1, NULL, x, &err);
    return rc && rc != WEIR_ENOMEM ? plan_error(pc, loc, rc, "%s", err.message) : rc;
}

/* from with a last column that is TRUE in each of its rows (NULL in a row the LEFT join padded). */
static int with_marker(plan_ctx *pc, const rel *from, rel *out)
{
    uint32_t n = from->n_physical;
    weir_expr **exprs = plan_alloc(pc, (n + 1) * sizeof *exprs);
    const char **names = plan_alloc(pc, (n + 1) * sizeof *names);
    char **quals = plan_alloc(pc, (n + 2) * sizeof *quals);
    if (!exprs || !names || !quals)
        return WEIR_ENOMEM;
    for (uint32_t c = 0; c < n; c++) {
        weir_error err = {0};
        if (weir_expr_column(pc->arena, c, from->schema->fields[c].type, &exprs[c], &err))
            return WEIR_ENOMEM;
        names[c] = from->schema->fields[c].name;
        quals[c] = from->quals ? from->quals[c] : NULL;
    }
    weir_expr *t = NULL;
    weir_error err = {0};
    weir_expr *one = weir_expr_lit_bigint(pc->arena, 1);
    if (!one || weir_expr_call(pc->arena, "IS NOT NULL", &one, 1, &t, &err))
        return WEIR_ENOMEM;
    exprs[n] = t;
    names[n] = "$scalarlat";
    quals[n] = NULL;
    rel o;
    rel in = *from;
    int rc = plan_calc(pc, &in, NULL, exprs, names, n + 1, &o, "Calc");
    if (rc)
        return rc;
    o.quals = quals;
    o.hidden = from->hidden;
    o.n_hidden = from->n_hidden;
    *out = o;
    return 0;
}

/*
 * A derived table's FROM that is a join or a subquery is planned whole unless its expressions name the
 * items before it, told here from the SQL alone (planning it to tell would plan a join twice): a FROM
 * of tables and subqueries joined with ON, USING or NATURAL (no comma or CROSS join, whose conditions
 * a WHERE holds), and a qualifier (c.k) that names an item before it and none of the FROM's.
 */
typedef struct from_names {
    const char *q[32];
    uint32_t n;
    bool ok;
} from_names;

static void collect_from(const weir_sql_table_ref *t, from_names *f)
{
    if (!f->ok)
        return;
    const char *q = t->alias ? t->alias->name : NULL;
    switch (t->kind) {
    case WEIR_SQL_FROM_TABLE:
        if (t->u.table.system_time)
            f->ok = false;
        if (!q && t->u.table.name.n_parts)
            q = t->u.table.name.parts[t->u.table.name.n_parts - 1].name;
        break;
    case WEIR_SQL_FROM_SUBQUERY:
        break;
    case WEIR_SQL_FROM_JOIN: {
        weir_sql_join_kind k = t->u.join.kind;
        if (k == WEIR_SQL_JOIN_COMMA || k == WEIR_SQL_JOIN_CROSS ||
            !(t->u.join.on || t->u.join.n_using || t->u.join.natural)) {
            f->ok = false;
            return;
        }
        collect_from(t->u.join.left, f);
        collect_from(t->u.join.right, f);
        return;
    }
    default:
        f->ok = false;
        return;
    }
    if (!q || f->n == sizeof f->q / sizeof f->q[0])
        f->ok = false;
    else
        f->q[f->n++] = q;
}

typedef struct outer_qual {
    const plan_ctx *pc;
    const from_names *f;
    const plan_colnames *cols; /* the FROM's column names */
    const rel *left;
    bool hit;
} outer_qual;

static int walk_outer_qual(const weir_sql_expr *e, void *ud)
{
    outer_qual *w = ud;
    if (e->kind == WEIR_SQL_EXPR_COLUMN && e->u.column.n_parts == 1) {
        /* a bare name: the FROM's column, else the items' before it */
        w->hit = !w->cols->unknown && !plan_colnames_has(w->cols, e->u.column.parts[0].name) &&
                 plan_outer_name(w->pc, w->left, e);
        return w->hit;
    }
    if (e->kind == WEIR_SQL_EXPR_COLUMN && e->u.column.n_parts >= 2) {
        const char *q = e->u.column.parts[0].name;
        bool mine = false, before = false;
        for (uint32_t i = 0; i < w->f->n && !mine; i++)
            mine = !strcasecmp(w->f->q[i], q);
        for (uint32_t c = 0; !mine && w->left->quals && c < w->left->n_physical && !before; c++)
            before = w->left->quals[c] && !strcasecmp(w->left->quals[c], q);
        if (before) {
            w->hit = true;
            return 1;
        }
        return 0;
    }
    return weir__sql_expr_each_child(e, walk_outer_qual, ud);
}

/* Whether sel, whose FROM is a join or a subquery, names the items before it (left): by a qualifier of
 * theirs, or by a bare name of their columns that none of its FROM's columns has. */
static int names_left(plan_ctx *pc, const weir_sql_select *sel, const rel *left, bool *hit)
{
    *hit = false;
    from_names f = {.ok = true};
    collect_from(sel->from, &f);
    if (!f.ok)
        return 0;
    plan_colnames cols = {0};
    int rc = plan_from_colnames(pc, sel->from, &cols);
    if (rc)
        return rc;
    outer_qual w = {pc, &f, &cols, left, false};
    const weir_sql_expr *more[2] = {sel->where, sel->having};
    for (uint32_t i = 0; i < 2 && !w.hit; i++)
        if (more[i])
            walk_outer_qual(more[i], &w);
    for (uint32_t i = 0; i < sel->n_items && !w.hit; i++)
        if (sel->items[i].expr->kind != WEIR_SQL_EXPR_STAR)
            walk_outer_qual(sel->items[i].expr, &w);
    for (uint32_t i = 0; i < sel->n_group_by && !w.hit; i++)
        walk_outer_qual(sel->group_by[i], &w);
    *hit = w.hit;
    return 0;
}

/*
 * Where the items, HAVING and GROUP BY of a grouped derived table read the items before it: nowhere but
 * in its WHERE. (The aggregate form reads them anywhere: around its aggregates each row's own values,
 * joined; in an aggregate's arguments the values its groups are computed for, subquery.c.)
 */
static int lateral_outer_refs(plan_ctx *pc, const weir_sql_select *sel, const rel *scope, uint32_t nl)
{
    uint32_t n = sel->n_items + sel->n_group_by + 1;
    for (uint32_t i = 0; i < n; i++) {
        const weir_sql_expr *e = i < sel->n_items                    ? sel->items[i].expr
                                 : i < sel->n_items + sel->n_group_by ? sel->group_by[i - sel->n_items]
                                                                      : sel->having;
        if (!e || e->kind == WEIR_SQL_EXPR_STAR)
            continue;
        if (reads_left(scope, nl, e)) {
            return plan_error(pc, e->loc, WEIR_EUNSUPPORTED,
                              "a LATERAL derived table with GROUP BY or DISTINCT reads the FROM items before it in "
                              "its WHERE only (correlated by equalities), not in its SELECT list, GROUP BY or "
                              "HAVING");
        }
    }
    return 0;
}

/* The refusal of a shape the decorrelation does not plan, or 0. */
static int lateral_shape(plan_ctx *pc, const weir_sql_table_ref *ref, const weir_sql_query *q, bool aggregating,
                         bool sub_ok)
{
    const weir_sql_select *sel = q->u.select;
    const char *what = NULL;
    weir_sql_loc loc = q->loc;
    weir_sql_join_kind k = ref->u.join.kind;
    if (k == WEIR_SQL_JOIN_RIGHT || k == WEIR_SQL_JOIN_FULL)
        return plan_error(pc, ref->u.join.op_loc, WEIR_EUNSUPPORTED,
                          "a LATERAL derived table that reads the FROM items before it cannot be the right side of "
                          "a %s join: use an inner or LEFT join",
                          k == WEIR_SQL_JOIN_RIGHT ? "RIGHT" : "FULL");
    if (ref->u.join.natural || ref->u.join.n_using)
        return plan_error(pc, ref->u.join.op_loc, WEIR_EUNSUPPORTED,
                          "a LATERAL derived table that reads the FROM items before it cannot be joined with %s",
                          ref->u.join.natural ? "NATURAL" : "USING");
    if (k == WEIR_SQL_JOIN_LEFT && !is_true(ref->u.join.on))
        return plan_error(pc, ref->u.join.on ? ref->u.join.on->loc : ref->u.join.op_loc, WEIR_EUNSUPPORTED,
                          "LEFT JOIN LATERAL (...) is supported with ON TRUE (its conditions belong in the "
                          "derived table's WHERE)");
    if (q->n_order_by || q->limit || q->offset)
        what = q->n_order_by ? "ORDER BY" : q->limit ? "LIMIT" : "OFFSET";
    else if (sel->n_windows || plan_select_has_over(sel))
        what = "OVER";
    if (what)
        return plan_error(pc, loc, WEIR_EUNSUPPORTED,
                          "%s in a LATERAL derived table that reads the FROM items before it is not supported",
                          what);
    if (!sub_ok && sel->where && find_subquery(sel->where, NULL) == 1)
        return plan_error(pc, sel->where->loc, WEIR_EUNSUPPORTED,
                          "a subquery in the WHERE of a LATERAL derived table that reads the FROM items before "
                          "it is supported in one of aggregates without GROUP BY, or of rows joined without LEFT "
                          "(not with GROUP BY or DISTINCT, nor in LEFT JOIN LATERAL of rows)");
    for (uint32_t i = 0; i < sel->n_items; i++)
        if (sel->items[i].expr->kind != WEIR_SQL_EXPR_STAR && find_subquery(sel->items[i].expr, NULL) == 1)
            return plan_error(pc, sel->items[i].expr->loc, WEIR_EUNSUPPORTED,
                              "a subquery in the SELECT list of a LATERAL derived table that reads the FROM items "
                              "before it is not supported");
    for (uint32_t i = 0; i < sel->n_items && aggregating; i++) {
        if (sel->items[i].expr->kind != WEIR_SQL_EXPR_STAR)
            continue;
        if (sel->distinct && !sel->n_group_by)
            return plan_error(pc, sel->items[i].expr->loc, WEIR_EUNSUPPORTED,
                              "SELECT DISTINCT * in a LATERAL derived table that reads the FROM items before it is "
                              "not supported: list its columns (SELECT DISTINCT a, b)");
        return plan_error(pc, sel->items[i].expr->loc, WEIR_EPLAN, "'*' in the SELECT list of a query with aggregates");
    }
    return 0;
}

static int lateral_join(plan_ctx *pc, const weir_sql_table_ref *ref, rel *left, rel *out, bool *done,
                        const weir_sql_table_ref **from_ref, rel *from);

int plan_lateral_join(plan_ctx *pc, const weir_sql_table_ref *ref, rel *left, rel *out, bool *done,
                      const weir_sql_table_ref **from_ref, rel *from)
{
    rel before = *left;
    return plan_two_levels(pc, &before, ref->u.join.right->u.subquery.query,
                           lateral_join(pc, ref, left, out, done, from_ref, from));
}

static int lateral_join(plan_ctx *pc, const weir_sql_table_ref *ref, rel *left, rel *out, bool *done,
                        const weir_sql_table_ref **from_ref, rel *from)
{
    *done = false;
    *from_ref = NULL;
    const weir_sql_table_ref *rt = ref->u.join.right;
    const weir_sql_query *q = rt->u.subquery.query;
    /* Planned whole (it cannot name the items before it) unless it reads one table: the FROM planned here
     * to tell is the one plan_select plans again (a source, shared), where a join's or a Top-N's would not
     * be (planned there with the WHERE or the rank); a join or a subquery is told from its SQL. */
    if (q->kind != WEIR_SQL_QUERY_SELECT || q->n_with || !q->u.select->from)
        return 0;
    const weir_sql_select *sel = q->u.select;
    int rc = 0;
    bool named = true;
    if (sel->from->kind == WEIR_SQL_FROM_TABLE ? sel->from->u.table.system_time != NULL
                                               : (rc = names_left(pc, sel, left, &named)) || !named)
        return named ? 0 : rc;
    rel r, scope;
    if ((rc = plan_from(pc, sel->from, &r)) || (rc = plan_pair_rel(pc, left, &r, false, false, true, &scope)))
        return rc;
    uint32_t nl = left->n_physical;
    bool corr = false, aggregating = sel->n_group_by || sel->having;
    uint32_t cap = sel->where ? plan_count_and(sel->where) : 0, n = 0;
    const weir_sql_expr **conj = plan_alloc(pc, (cap + 1) * sizeof *conj);
    if (!conj)
        return WEIR_ENOMEM;
    if (sel->where)
        plan_split_and(sel->where, conj, &n, cap);
    for (uint32_t i = 0; i < n; i++)
        corr |= reads_left(&scope, nl, conj[i]);
    for (uint32_t i = 0; i < sel->n_items; i++) {
        corr |= reads_left(&scope, nl, sel->items[i].expr);
        aggregating |= sel->items[i].expr->kind != WEIR_SQL_EXPR_STAR && plan_has_agg(sel->items[i].expr);
    }
    for (uint32_t i = 0; i < sel->n_group_by; i++)
        corr |= reads_left(&scope, nl, sel->group_by[i]);
    corr |= reads_left(&scope, nl, sel->having);
    corr |= plan_reads_two_levels(pc, left, sel); /* from inside its WHERE's subqueries */
    if (!corr && sel->from->kind != WEIR_SQL_FROM_TABLE)
        return plan_error(pc, rt->loc, WEIR_EUNSUPPORTED,
                          "a LATERAL derived table over a join or a subquery names the FROM items before it by "
                          "a name none of them resolves");
    if (!corr) {
        *from_ref = sel->from;
        *from = r;
        return 0;
    }
    bool rows = !aggregating && !sel->distinct;
    if ((rc = lateral_shape(pc, ref, q, aggregating || sel->distinct,
                            (aggregating && !sel->n_group_by) || (rows && ref->u.join.kind != WEIR_SQL_JOIN_LEFT))))
        return rc;
    /* Aggregates without GROUP BY are one row per row before it, even over no inner rows: HAVING
     * filters that row (an inner join drops the row before it, a LEFT one pads it) and DISTINCT leaves
     * it as it is. HAVING is computed as one more item, over the same aggregates. */
    bool whole = aggregating && !sel->n_group_by;
    bool grouped = !whole && (sel->n_group_by || sel->having || sel->distinct);
    if (grouped && (rc = lateral_outer_refs(pc, sel, &scope, nl)))
        return rc;
    if (left->win.present && (rc = plan_window_assign(pc, left, "a LATERAL derived table")))
        return rc;
    bool left_join = ref->u.join.kind == WEIR_SQL_JOIN_LEFT;
    rel j;
    lat_out o = {0};
    nl = left->n_physical;
    for (uint32_t c = 0; c < nl; c++) {
        weir_expr *x;
        weir_error err = {0};
        if ((rc = weir_expr_column(pc->arena, c, left->schema->fields[c].type, &x, &err)) ||
            (rc = out_add(pc, &o, x, left->schema->fields[c].name)))
            return rc;
    }
    weir_expr *having = NULL;
    if (aggregating || grouped) {
        uint32_t ni = sel->n_items;
        const weir_sql_query *aq = q;
        if (whole && (sel->having || sel->distinct)) {
            weir_sql_select *s2 = plan_alloc(pc, sizeof *s2);
            weir_sql_query *q2 = plan_alloc(pc, sizeof *q2);
            weir_sql_select_item *it = plan_alloc(pc, (ni + 1) * sizeof *it);
            if (!s2 || !q2 || !it)
                return WEIR_ENOMEM;
            memcpy(it, sel->items, ni * sizeof *it);
            it[ni] = (weir_sql_select_item){sel->having, NULL};
            *s2 = *sel;
            s2->items = it;
            s2->n_items = ni + (sel->having != NULL);
            s2->having = NULL;
            s2->distinct = false;
            *q2 = *q;
            q2->u.select = s2;
            aq = q2;
        }
        weir_expr **items = plan_alloc(pc, (ni + 1) * sizeof *items);
        if (!items)
            return WEIR_ENOMEM;
        j = *left;
        if ((rc = grouped ? plan_lateral_grouped(pc, &j, q, &r, left_join, items)
                          : plan_lateral_aggregates(pc, &j, aq, &r, items)))
            return rc;
        if (aq != q && sel->having) {
            having = items[ni];
            weir_type t = weir_expr_type(having);
            if (t.id != WEIR_TYPE_BOOLEAN && t.id != WEIR_TYPE_NULL)
                return plan_error(pc, sel->having->loc, WEIR_EPLAN, "HAVING must be BOOLEAN, not %s",
                                  weir_type_name(t.id));
            /* a LEFT join pads the row before it that HAVING drops: each item NULL there */
            for (uint32_t i = 0; left_join && i < ni; i++) {
                weir_error err = {0};
                if ((rc = weir_expr_case(pc->arena, &having, &items[i], 1, NULL, &items[i], &err)))
                    return rc == WEIR_ENOMEM ? rc : plan_error(pc, sel->items[i].expr->loc, rc, "%s", err.message);
            }
            if (left_join)
                having = NULL;
        }
        for (uint32_t i = 0; i < sel->n_items; i++) {
            char nm[64];
            plan_item_name(&sel->items[i], i, nm, sizeof nm);
            const char *name = plan_strdup(pc, nm);
            if (!name)
                return WEIR_ENOMEM;
            if ((rc = out_add(pc, &o, items[i], name)))
                return rc;
        }
    } else {
        rel rr = r;
        if (left_join && (rc = with_marker(pc, &r, &rr)))
            return rc;
        /* its conditions with subqueries (an inner join's: lateral_shape) filter the joined rows, where
         * they read both the row before it and its own (two levels up, from inside them) */
        const weir_sql_expr *on = NULL, *sub = NULL;
        for (uint32_t i = 0; i < n; i++) {
            const weir_sql_expr **to = find_subquery(conj[i], NULL) == 1 ? &sub : &on;
            if (!(*to = plan_and(pc, *to, conj[i])))
                return WEIR_ENOMEM;
        }
        if ((rc = plan_scoped_join_kind(pc, left_join, left, &rr, on, rt->loc, &j)))
            return rc;
        if (sub && (rc = plan_lateral_filter(pc, &j, sel, sub)))
            return rc;
        for (uint32_t i = 0; i < sel->n_items; i++) {
            const weir_sql_expr *e = sel->items[i].expr;
            if (e->kind == WEIR_SQL_EXPR_STAR) {
                if ((rc = star_items(pc, e, &r, &j, nl, &o)))
                    return rc;
                continue;
            }
            weir_expr *x;
            if ((rc = plan_bind_expr(pc, &j, NULL, e, &x)))
                return rc;
            if (left_join && weir_expr_column_index(x) < (int32_t)nl &&
                (rc = unless_padded(pc, &j, nl + r.n_physical, &x, e->loc)))
                return rc;
            char nm[64];
            plan_item_name(&sel->items[i], i, nm, sizeof nm);
            const char *name = plan_strdup(pc, nm);
            if (!name)
                return WEIR_ENOMEM;
            if ((rc = out_add(pc, &o, x, name)))
                return rc;
        }
    }
    uint32_t nd = o.n - nl;
    if (rt->n_column_aliases) {
        if (rt->n_column_aliases != nd)
            return plan_error(pc, rt->loc, WEIR_EINVAL, "%u column aliases given for %u columns",
                              rt->n_column_aliases, nd);
        for (uint32_t i = 0; i < nd; i++)
            o.names[nl + i] = rt->column_aliases[i].name;
    }
    char **quals = plan_alloc(pc, (o.n + 1) * sizeof *quals);
    bool *hidden = plan_alloc(pc, (o.n + 1) * sizeof *hidden);
    if (!quals || !hidden)
        return WEIR_ENOMEM;
    for (uint32_t c = 0; c < o.n; c++) {
        quals[c] = c < nl ? (left->quals ? left->quals[c] : NULL) : rt->alias ? (char *)rt->alias->name : NULL;
        hidden[c] = c < nl && plan_col_hidden(left, c);
    }
    rel res;
    j.outer_cols = 0;
    j.scope = NULL;
    if ((rc = plan_calc(pc, &j, having, o.exprs, o.names, o.n, &res, "Calc")))
        return rc;
    res.quals = quals;
    res.hidden = hidden;
    res.n_hidden = o.n;
    res.outer_cols = 0;
    res.scope = NULL;
    /* an inner JOIN LATERAL's ON: a condition on its rows */
    const weir_sql_expr *on = ref->u.join.on;
    if (on && !is_true(on)) {
        weir_expr *f;
        if ((rc = plan_bind_expr(pc, &res, NULL, on, &f)))
            return rc;
        weir_type t = weir_expr_type(f);
        if (t.id != WEIR_TYPE_BOOLEAN && t.id != WEIR_TYPE_NULL)
            return plan_error(pc, on->loc, WEIR_EPLAN, "a condition must be BOOLEAN, not %s", weir_type_name(t.id));
        rel fr;
        if ((rc = plan_calc(pc, &res, f, NULL, NULL, 0, &fr, "Calc")))
            return rc;
        fr.quals = res.quals;
        fr.hidden = res.hidden;
        fr.n_hidden = res.n_hidden;
        res = fr;
    }
    *out = res;
    *done = true;
    return 0;
}
