/*
 * planner/subquery.c - IN and EXISTS subqueries in WHERE, planned as semi
 * and anti joins (as Flink's planner does).
 *
 * A WHERE conjunct `x IN (SELECT y ...)`, `EXISTS (SELECT ...)`, their
 * NOT forms and `x NOT IN (SELECT y ...)` becomes a join of the query's
 * input (left) with the subquery's (right) that outputs left rows only:
 * SEMI (IN, EXISTS) keeps a left row while it has a matching right row,
 * ANTI (NOT IN, NOT EXISTS) while it has none. What matches:
 *
 * - A subquery that is a plain SELECT ... FROM ... [WHERE ...] (no
 *   aggregation, DISTINCT aside, no ORDER BY / LIMIT / WITH) may be
 *   correlated: its WHERE conjuncts that read the enclosing query's
 *   columns become the join's conditions (with x = y for IN), and the
 *   others filter the subquery's rows below the join. Names resolve in
 *   the subquery first, then in the enclosing query.
 * - Any other subquery is planned whole and must be uncorrelated; IN
 *   matches on its one column, EXISTS on nothing (every row of it matches
 *   every row).
 *
 * NOT IN and NULL: x NOT IN (subquery) is TRUE only when x <> y is TRUE
 * for every y, so a NULL x (with a non-empty subquery) or any NULL y makes
 * it UNKNOWN, and WHERE drops the row. When x or y can be NULL the anti
 * join's condition is therefore x = y OR x IS NULL OR y IS NULL (Flink's
 * rewrite), with no key of its own.
 *
 * Conditions elsewhere (under OR, in the SELECT list, in HAVING or ON)
 * are refused where they stand (bind.c), as Flink refuses most of them.
 */
#include <stdio.h>
#include <string.h>

#include "ops/ops.h"
#include "planner/query_internal.h"

/* The subquery of a WHERE conjunct, or NULL: sets the join kind and the IN
 * operand. */
static const weir_sql_query *subquery_of(const weir_sql_expr *e,
                                         weir_join_type *type,
                                         const weir_sql_expr **operand,
                                         bool *not_in)
{
    bool neg = false;
    while (e->kind == WEIR_SQL_EXPR_UNARY && e->u.unary.op == WEIR_SQL_OP_NOT) {
        neg = !neg;
        e = e->u.unary.operand;
    }
    *operand = NULL;
    *not_in = false;
    if (e->kind == WEIR_SQL_EXPR_EXISTS) {
        *type = neg ? WEIR_JOIN_ANTI : WEIR_JOIN_SEMI;
        return e->u.subquery.query;
    }
    if (e->kind == WEIR_SQL_EXPR_IN_QUERY) {
        neg ^= e->u.in_query.negated;
        *type = neg ? WEIR_JOIN_ANTI : WEIR_JOIN_SEMI;
        *operand = e->u.in_query.operand;
        *not_in = neg;
        return e->u.in_query.query;
    }
    return NULL;
}

/* A subquery whose WHERE can hold correlated conditions: SELECT ... FROM ...
 * [WHERE ...], nothing aggregated. */
static bool plain_select(const weir_sql_query *q)
{
    if (q->kind != WEIR_SQL_QUERY_SELECT || q->n_with || q->n_order_by ||
        q->limit || q->offset)
        return false;
    const weir_sql_select *sel = q->u.select;
    if (!sel->from || sel->n_group_by || sel->having || sel->n_windows ||
        plan_select_has_over(sel))
        return false;
    for (uint32_t i = 0; i < sel->n_items; i++)
        if (sel->items[i].expr->kind != WEIR_SQL_EXPR_STAR &&
            plan_has_agg(sel->items[i].expr))
            return false;
    return true;
}

/* A column reference to the one column of rel r (an uncorrelated IN subquery
 * planned whole). */
static int column_ref(plan_ctx *pc, const rel *r, weir_sql_loc loc,
                      const weir_sql_expr **out)
{
    weir_sql_expr *c = plan_alloc(pc, sizeof *c);
    weir_sql_ident *id = plan_alloc(pc, sizeof *id);
    if (!c || !id)
        return WEIR_ENOMEM;
    memset(c, 0, sizeof *c);
    memset(id, 0, sizeof *id);
    id->name = r->schema->fields[0].name;
    id->len = (uint32_t)strlen(id->name);
    id->loc = loc;
    c->kind = WEIR_SQL_EXPR_COLUMN;
    c->loc = loc;
    c->height = 1;
    c->u.column = (weir_sql_name){id, 1, loc};
    *out = c;
    return 0;
}

/* Plans the subquery conjunct e (subquery q) as a semi or anti join of *in. */
static int plan_one(plan_ctx *pc, rel *in, const weir_sql_expr *e,
                    const weir_sql_query *q, weir_join_type type,
                    const weir_sql_expr *operand, bool not_in)
{
    rel right;
    join_conds *conds = NULL;
    const weir_sql_expr *item = NULL;
    int rc;
    if (plain_select(q)) {
        const weir_sql_select *sel = q->u.select;
        if (operand) {
            if (sel->n_items != 1 ||
                sel->items[0].expr->kind == WEIR_SQL_EXPR_STAR)
                return plan_error(
                    pc, q->loc, WEIR_EPLAN,
                    "the subquery of IN must select exactly one column");
            item = sel->items[0].expr;
        }
        /* Its WHERE conjuncts: an inner join in its FROM takes those of its own
         * tables; the rest are the semi join's. */
        if (sel->where && plan_join_takes_where(sel->from)) {
            if ((rc = plan_join_conds_make(pc, sel->where, &conds)) ||
                (rc = plan_join(pc, sel->from, conds, &right)))
                return rc;
        } else {
            const weir_sql_expr *w = sel->where;
            /* its own IN / EXISTS conditions (uncorrelated with this query)
             * first: semi joins of its input */
            if ((rc = plan_from(pc, sel->from, &right)) ||
                (w && (rc = plan_where_subqueries(pc, &right, w, &w))))
                return rc;
            if (w && (rc = plan_join_conds_make(pc, w, &conds)))
                return rc;
        }
    } else {
        if ((rc = plan_query(pc, q, &right)))
            return rc;
        if (operand) {
            if (right.n_physical != 1)
                return plan_error(
                    pc, q->loc, WEIR_EPLAN,
                    "the subquery of IN must select exactly one column, not %u",
                    right.n_physical);
            if ((rc = column_ref(pc, &right, q->loc, &item)))
                return rc;
        }
    }
    rel out;
    if ((rc = plan_semi_join(pc, type == WEIR_JOIN_ANTI, in, &right, conds,
                             operand, item, not_in, e->loc, &out)))
        return rc;
    *in = out;
    return 0;
}

int plan_where_subqueries(plan_ctx *pc, rel *in, const weir_sql_expr *where,
                          const weir_sql_expr **rest)
{
    uint32_t cap = plan_count_and(where), n = 0;
    const weir_sql_expr **conj = plan_alloc(pc, cap * sizeof *conj);
    if (!conj)
        return WEIR_ENOMEM;
    plan_split_and(where, conj, &n, cap);
    bool any = false;
    for (uint32_t i = 0; i < n && !any; i++) {
        weir_join_type t;
        const weir_sql_expr *op;
        bool ni;
        any = subquery_of(conj[i], &t, &op, &ni) != NULL;
    }
    if (!any)
        return 0; /* *rest stays where */
    /* A window table function's rows get their windows first (a window semi or
     * anti join's input). */
    int rc;
    if (in->win.present &&
        (rc = plan_window_assign(pc, in, "a semi or anti join (IN or EXISTS)")))
        return rc;
    const weir_sql_expr *acc = NULL;
    for (uint32_t i = 0; i < n; i++) {
        weir_join_type t;
        const weir_sql_expr *op;
        bool ni;
        const weir_sql_query *q = subquery_of(conj[i], &t, &op, &ni);
        if (q) {
            if ((rc = plan_one(pc, in, conj[i], q, t, op, ni)))
                return rc;
            continue;
        }
        if (!acc) {
            acc = conj[i];
            continue;
        }
        weir_sql_expr *and = plan_alloc(pc, sizeof *and);
        if (!and)
            return WEIR_ENOMEM;
        memset(and, 0, sizeof *and);
        and->kind = WEIR_SQL_EXPR_BINARY;
        and->loc = acc->loc;
        and->end = conj[i]->end;
        and->height =
            (acc->height > conj[i]->height ? acc->height : conj[i]->height) + 1;
        and->u.binary.op = WEIR_SQL_OP_AND;
        and->u.binary.op_loc = conj[i]->loc;
        and->u.binary.left = (weir_sql_expr *)acc;
        and->u.binary.right = (weir_sql_expr *)conj[i];
        acc = and;
    }
    *rest = acc;
    return 0;
}

/* ------------------------------------------------------------ scalar
 * subqueries */

enum { MAX_SCALAR = 64 };

typedef struct scalar_walk {
    const weir_sql_expr *found[MAX_SCALAR];
    uint32_t n;
} scalar_walk;

static int collect_scalar(const weir_sql_expr *e, void *ud)
{
    scalar_walk *w = ud;
    if (e->kind == WEIR_SQL_EXPR_SUBQUERY) {
        if (w->n == MAX_SCALAR)
            return WEIR_EUNSUPPORTED;
        w->found[w->n++] = e;
        return 0;
    }
    return weir__sql_expr_each_child(e, collect_scalar, ud);
}

bool plan_is_scalar_column(const char *name)
{
    return !strncmp(name, "$scalar", 7);
}

/*
 * One row, always: a SELECT of one aggregate expression without GROUP BY
 * (Flink checks at run time that a scalar subquery gives at most one row;
 * weir accepts only the shape that cannot give more).
 */
static bool one_row(const weir_sql_query *q)
{
    if (q->kind != WEIR_SQL_QUERY_SELECT || q->n_with || q->limit || q->offset)
        return false;
    const weir_sql_select *sel = q->u.select;
    return sel->from && !sel->n_group_by && sel->n_items == 1 &&
           sel->items[0].expr->kind != WEIR_SQL_EXPR_STAR &&
           plan_has_agg(sel->items[0].expr) && !plan_select_has_over(sel);
}

int plan_scalar_subqueries(plan_ctx *pc, rel *in, const weir_sql_select *sel,
                           const weir_sql_expr *where, bool aggregating)
{
    scalar_walk w = {.n = 0};
    int rc = where ? collect_scalar(where, &w) : 0;
    for (uint32_t i = 0; !rc && !aggregating && i < sel->n_items; i++)
        if (sel->items[i].expr->kind != WEIR_SQL_EXPR_STAR)
            rc = collect_scalar(sel->items[i].expr, &w);
    if (rc)
        return plan_error(pc, sel->loc, WEIR_EUNSUPPORTED,
                          "more than %d scalar subqueries in one SELECT",
                          MAX_SCALAR);
    if (!w.n)
        return 0;
    if (in->win.present &&
        (rc = plan_window_assign(pc, in, "a scalar subquery's join")))
        return rc;
    for (uint32_t i = 0; i < w.n; i++) {
        const weir_sql_expr *e = w.found[i];
        const weir_sql_query *q = e->u.subquery.query;
        if (!one_row(q))
            return plan_error(pc, e->loc, WEIR_EUNSUPPORTED,
                              "a scalar subquery must give one row: one "
                              "aggregate without GROUP BY, such as "
                              "(SELECT MAX(x) FROM t)");
        rel sq;
        if ((rc = plan_query(pc, q, &sq)))
            return rc;
        /* its one column, under a name no query can write */
        uint32_t id = pc->n_scalar;
        char nm[32];
        snprintf(nm, sizeof nm, "$scalar%u", id);
        weir_schema *s1 = plan_new_schema(pc);
        char **quals = plan_alloc(pc, sizeof *quals);
        if (!s1 || !quals)
            return WEIR_ENOMEM;
        weir_type t = sq.schema->fields[0].type;
        t.nullable = true;
        if (weir_schema_add(s1, nm, t) < 0)
            return WEIR_ENOMEM;
        s1->rowtime = -1;
        quals[0] = NULL;
        sq.schema = s1;
        sq.quals = quals;
        sq.n_physical = 1;
        sq.rowtime = -1;
        sq.has_proctime = false;
        sq.wprops.present = false;
        /* The outer rows, each with the subquery's value: NULL until it has a
         * row, then updated with it. */
        rel j;
        uint32_t col = in->n_physical;
        if ((rc = plan_scalar_join(pc, in, &sq, e->loc, &j)))
            return rc;
        const weir_sql_expr **ne = plan_alloc(pc, (id + 1) * sizeof *ne);
        uint32_t *nc = plan_alloc(pc, (id + 1) * sizeof *nc);
        if (!ne || !nc)
            return WEIR_ENOMEM;
        if (id) {
            memcpy(ne, pc->scalar_e, id * sizeof *ne);
            memcpy(nc, pc->scalar_col, id * sizeof *nc);
        }
        ne[id] = e;
        nc[id] = col;
        pc->scalar_e = ne;
        pc->scalar_col = nc;
        pc->n_scalar = id + 1;
        *in = j;
    }
    return 0;
}
