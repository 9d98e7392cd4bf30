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
 * weir accepts only the shape that cannot give more). Correlated, one row
 * per value of its correlation key.
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

/* ---- building syntax for the decorrelated subquery */

static weir_sql_expr *ast_node(plan_ctx *pc, weir_sql_expr_kind kind, weir_sql_loc loc)
{
    weir_sql_expr *e = plan_alloc(pc, sizeof *e);
    if (e) {
        memset(e, 0, sizeof *e);
        e->kind = kind;
        e->loc = loc;
        e->height = 1;
    }
    return e;
}

/* A column reference to name (in the plan arena, or static). */
static weir_sql_expr *ast_column(plan_ctx *pc, const char *name, weir_sql_loc loc)
{
    weir_sql_expr *c = ast_node(pc, WEIR_SQL_EXPR_COLUMN, loc);
    weir_sql_ident *id = plan_alloc(pc, sizeof *id);
    if (!c || !id)
        return NULL;
    memset(id, 0, sizeof *id);
    id->name = name;
    id->len = (uint32_t)strlen(name);
    id->loc = loc;
    c->u.column = (weir_sql_name){id, 1, loc};
    return c;
}

/* l op r (l AND r, l = r); l may be NULL: then r. */
static weir_sql_expr *ast_binary(plan_ctx *pc, weir_sql_binop op, const weir_sql_expr *l, const weir_sql_expr *r)
{
    if (!l)
        return (weir_sql_expr *)r;
    weir_sql_expr *b = ast_node(pc, WEIR_SQL_EXPR_BINARY, l->loc);
    if (!b)
        return NULL;
    b->end = r->end;
    b->height = (l->height > r->height ? l->height : r->height) + 1;
    b->u.binary.op = op;
    b->u.binary.op_loc = r->loc;
    b->u.binary.left = (weir_sql_expr *)l;
    b->u.binary.right = (weir_sql_expr *)r;
    return b;
}

static char *scalar_name(plan_ctx *pc, uint32_t id, char kind, uint32_t i)
{
    char nm[48];
    if (kind)
        snprintf(nm, sizeof nm, "$scalar%u%c%u", id, kind, i);
    else
        snprintf(nm, sizeof nm, "$scalar%u", id);
    return plan_strdup(pc, nm);
}

/* ---- correlation */

/*
 * A scalar subquery's WHERE over its own FROM (planned: from) inside the
 * query whose rows are `in`: the conjuncts that name only its own columns
 * (local, kept in its WHERE) and the equalities outer = inner that
 * correlate it, each between an expression over in's columns alone and one
 * over its own (names resolve in the subquery first, as SQL scopes nest).
 */
typedef struct correlation {
    const weir_sql_expr **local;
    uint32_t n_local;
    const weir_sql_expr *outer[WEIR_KEY_MAX_COLS], *inner[WEIR_KEY_MAX_COLS];
    uint32_t n_keys;
} correlation;

static int correlate(plan_ctx *pc, const rel *in, const rel *from, const weir_sql_expr *where, correlation *co)
{
    memset(co, 0, sizeof *co);
    if (!where)
        return 0;
    rel scope;
    int rc = plan_pair_rel(pc, in, from, false, false, true, &scope);
    if (rc)
        return rc;
    uint32_t cap = plan_count_and(where), n = 0, nl = in->n_physical;
    const weir_sql_expr **conj = plan_alloc(pc, cap * sizeof *conj);
    co->local = plan_alloc(pc, cap * sizeof *co->local);
    if (!conj || !co->local)
        return WEIR_ENOMEM;
    plan_split_and(where, conj, &n, cap);
    for (uint32_t i = 0; i < n; i++) {
        const weir_sql_expr *c = conj[i];
        if (!(plan_side_mask(&scope, nl, c) & PLAN_SIDE_LEFT)) {
            co->local[co->n_local++] = c; /* its own (a name found nowhere fails when it is planned) */
            continue;
        }
        int ml = -1, mr = -1;
        if (c->kind == WEIR_SQL_EXPR_BINARY && c->u.binary.op == WEIR_SQL_OP_EQ) {
            ml = plan_side_mask(&scope, nl, c->u.binary.left);
            mr = plan_side_mask(&scope, nl, c->u.binary.right);
        }
        bool outer_left = ml == PLAN_SIDE_LEFT && mr == PLAN_SIDE_RIGHT;
        if (!outer_left && !(ml == PLAN_SIDE_RIGHT && mr == PLAN_SIDE_LEFT))
            return plan_error(pc, c->loc, WEIR_EUNSUPPORTED,
                              "a correlated scalar subquery may name the outer query's columns only in equalities "
                              "between an outer and an inner expression (t.k = o.k), ANDed in its WHERE");
        if (co->n_keys == WEIR_KEY_MAX_COLS)
            return plan_error(pc, c->loc, WEIR_EUNSUPPORTED, "more than %d correlation equalities in one subquery",
                              WEIR_KEY_MAX_COLS);
        co->outer[co->n_keys] = outer_left ? c->u.binary.left : c->u.binary.right;
        co->inner[co->n_keys] = outer_left ? c->u.binary.right : c->u.binary.left;
        co->n_keys++;
    }
    return 0;
}

/* The aggregate calls of a scalar subquery's item, each once (by its SQL text). */
typedef struct agg_walk {
    plan_ctx *pc;
    agg_call *calls;
    uint32_t n, cap;
} agg_walk;

static int collect_aggs(const weir_sql_expr *e, void *ud)
{
    agg_walk *w = ud;
    if (e->kind == WEIR_SQL_EXPR_SUBQUERY || e->kind == WEIR_SQL_EXPR_EXISTS || e->kind == WEIR_SQL_EXPR_IN_QUERY)
        return 0;
    const weir_sql_name *n = &e->u.call.name;
    if (e->kind != WEIR_SQL_EXPR_CALL || e->u.call.over || !plan_is_agg_name(n->parts[n->n_parts - 1].name))
        return weir__sql_expr_each_child(e, collect_aggs, ud);
    weir_buf b;
    weir_buf_init(&b);
    if (weir__sql_format_expr(e, &b) || weir_buf_put_u8(&b, 0)) {
        weir_buf_fini(&b);
        return WEIR_ENOMEM;
    }
    for (uint32_t i = 0; i < w->n; i++)
        if (!strcmp(w->calls[i].text, (char *)b.data)) {
            weir_buf_fini(&b);
            return 0;
        }
    if (w->n == w->cap) {
        uint32_t cap = w->cap ? 2 * w->cap : 4;
        agg_call *v = plan_alloc(w->pc, cap * sizeof *v);
        if (!v) {
            weir_buf_fini(&b);
            return WEIR_ENOMEM;
        }
        if (w->n)
            memcpy(v, w->calls, w->n * sizeof *v);
        w->calls = v;
        w->cap = cap;
    }
    agg_call *c = &w->calls[w->n++];
    memset(c, 0, sizeof *c);
    c->call = e;
    c->text = plan_strdup(w->pc, (char *)b.data);
    snprintf(c->fn, sizeof c->fn, "%s", n->parts[n->n_parts - 1].name);
    for (char *p = c->fn; *p; p++)
        if (*p >= 'a' && *p <= 'z')
            *p = (char)(*p - 'a' + 'A');
    weir_buf_fini(&b);
    return c->text ? 0 : WEIR_ENOMEM;
}

/*
 * The decorrelated form of a correlated scalar subquery (SELECT f(aggs)
 * FROM t WHERE t.k = o.k AND local), as Flink's decorrelation plans it:
 * the aggregates grouped by the inner side of the correlation,
 *   SELECT t.k AS $scalarNk0, ..., agg AS $scalarNa0, ... FROM t WHERE local GROUP BY t.k, ...
 * whose rows the outer query LEFT-joins on o.k = $scalarNk0 (ON written
 * into *on); f is evaluated over the joined row (as->calls: each
 * aggregate's name). as is set for plan_bind_scalar.
 */
static int decorrelated(plan_ctx *pc, const weir_sql_expr *e, uint32_t id, const correlation *co,
                        weir_sql_query **out_q, const weir_sql_expr **on, agg_scope *as)
{
    const weir_sql_query *q = e->u.subquery.query;
    const weir_sql_select *sel = q->u.select;
    if (sel->having || sel->distinct)
        return plan_error(pc, e->loc, WEIR_EUNSUPPORTED,
                          "a correlated scalar subquery with %s is not supported: aggregate without it",
                          sel->having ? "HAVING" : "DISTINCT");
    agg_walk w = {pc, NULL, 0, 0};
    int rc = collect_aggs(sel->items[0].expr, &w);
    if (rc)
        return rc;
    if (!w.n)
        return plan_error(pc, e->loc, WEIR_EUNSUPPORTED,
                          "a correlated scalar subquery must compute its value from aggregates, such as "
                          "(SELECT MAX(x) FROM t WHERE t.k = o.k)");
    weir_sql_select *s2 = plan_alloc(pc, sizeof *s2);
    weir_sql_query *q2 = plan_alloc(pc, sizeof *q2);
    uint32_t n = co->n_keys + w.n;
    weir_sql_select_item *items = plan_alloc(pc, n * sizeof *items);
    weir_sql_ident *alias = plan_alloc(pc, n * sizeof *alias);
    weir_sql_expr **group = plan_alloc(pc, co->n_keys * sizeof *group);
    if (!s2 || !q2 || !items || !alias || !group)
        return WEIR_ENOMEM;
    *s2 = *sel;
    *q2 = *q;
    q2->u.select = s2;
    q2->n_order_by = 0; /* one row per key: an ORDER BY orders nothing */
    memset(alias, 0, n * sizeof *alias);
    const weir_sql_expr *where = NULL, *cond = NULL;
    for (uint32_t i = 0; i < co->n_local; i++)
        if (!(where = ast_binary(pc, WEIR_SQL_OP_AND, where, co->local[i])))
            return WEIR_ENOMEM;
    for (uint32_t i = 0; i < n; i++) {
        bool key = i < co->n_keys;
        alias[i].name = scalar_name(pc, id, key ? 'k' : 'a', key ? i : i - co->n_keys);
        if (!alias[i].name)
            return WEIR_ENOMEM;
        alias[i].len = (uint32_t)strlen(alias[i].name);
        alias[i].loc = e->loc;
        items[i].expr = key ? (weir_sql_expr *)co->inner[i] : (weir_sql_expr *)w.calls[i - co->n_keys].call;
        items[i].alias = &alias[i];
        if (key) {
            group[i] = (weir_sql_expr *)co->inner[i];
            weir_sql_expr *k = ast_column(pc, alias[i].name, e->loc);
            if (!k || !(k = ast_binary(pc, WEIR_SQL_OP_EQ, co->outer[i], k)) ||
                !(cond = ast_binary(pc, WEIR_SQL_OP_AND, cond, k)))
                return WEIR_ENOMEM;
        }
    }
    s2->items = items;
    s2->n_items = n;
    s2->where = (weir_sql_expr *)where;
    s2->group_by = group;
    s2->n_group_by = co->n_keys;
    memset(as, 0, sizeof *as);
    as->phase = AGG_BIND;
    as->calls = w.calls;
    as->n_calls = w.n;
    as->outer_joined = true;
    *out_q = q2;
    *on = cond;
    return 0;
}

int plan_scalar_subqueries(plan_ctx *pc, rel *in, const weir_sql_select *sel, const weir_sql_expr *where,
                           bool aggregating)
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
                              "(SELECT MAX(x) FROM t), or (SELECT MAX(x) "
                              "FROM t WHERE t.k = o.k) correlated");
        /*
         * Its FROM, planned once here: whether its WHERE names the outer
         * query's columns decides how it runs. The subquery is then planned
         * over that FROM (plan_from hands it out for the wrapper item).
         */
        const weir_sql_select *ssel = q->u.select;
        rel from;
        correlation co;
        if ((rc = plan_from(pc, ssel->from, &from)) || (rc = correlate(pc, in, &from, ssel->where, &co)))
            return rc;
        uint32_t id = pc->n_scalar;
        weir_sql_query *q2 = NULL;
        const weir_sql_expr *on = NULL;
        agg_scope *as = NULL;
        if (co.n_keys) {
            if (!(as = plan_alloc(pc, sizeof *as)))
                return WEIR_ENOMEM;
            if ((rc = decorrelated(pc, e, id, &co, &q2, &on, as)))
                return rc;
        } else {
            weir_sql_select *s2 = plan_alloc(pc, sizeof *s2);
            if (!(q2 = plan_alloc(pc, sizeof *q2)) || !s2)
                return WEIR_ENOMEM;
            *s2 = *ssel;
            *q2 = *q;
            q2->u.select = s2;
        }
        weir_sql_table_ref *wrap = plan_alloc(pc, sizeof *wrap);
        if (!wrap)
            return WEIR_ENOMEM;
        memset(wrap, 0, sizeof *wrap);
        wrap->kind = WEIR_SQL_FROM_SUBQUERY;
        wrap->loc = ssel->from->loc;
        wrap->height = ssel->from->height + 1;
        wrap->u.subquery.query = (weir_sql_query *)q;
        q2->u.select->from = wrap;
        const weir_sql_table_ref *saved_ref = pc->preplanned_ref;
        rel saved = pc->preplanned;
        pc->preplanned_ref = wrap;
        pc->preplanned = from;
        rel sq;
        rc = plan_query(pc, q2, &sq);
        pc->preplanned_ref = saved_ref;
        pc->preplanned = saved;
        if (rc)
            return rc;
        if (!as) {
            /* its one column, under a name no query can write */
            weir_schema *s1 = plan_new_schema(pc);
            char **quals = plan_alloc(pc, sizeof *quals);
            char *nm = scalar_name(pc, id, 0, 0);
            if (!s1 || !quals || !nm)
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
        }
        /* The outer rows, each with the subquery's value: NULL until it has a
         * row (for its key), then updated with it. */
        rel j;
        uint32_t col = in->n_physical;
        if ((rc = plan_scalar_join(pc, in, &sq, on, e->loc, &j)))
            return rc;
        const weir_sql_expr **ne = plan_alloc(pc, (id + 1) * sizeof *ne);
        uint32_t *nc = plan_alloc(pc, (id + 1) * sizeof *nc);
        agg_scope **na = plan_alloc(pc, (id + 1) * sizeof *na);
        if (!ne || !nc || !na)
            return WEIR_ENOMEM;
        if (id) {
            memcpy(ne, pc->scalar_e, id * sizeof *ne);
            memcpy(nc, pc->scalar_col, id * sizeof *nc);
            memcpy(na, pc->scalar_as, id * sizeof *na);
        }
        if (as)
            for (uint32_t c = 0; c < as->n_calls; c++)
                as->calls[c].out_col = col + co.n_keys + c;
        ne[id] = e;
        nc[id] = col;
        na[id] = as;
        pc->scalar_e = ne;
        pc->scalar_col = nc;
        pc->scalar_as = na;
        pc->n_scalar = id + 1;
        *in = j;
    }
    return 0;
}

int plan_bind_scalar(plan_ctx *pc, const rel *r, const weir_sql_expr *e, weir_expr **out)
{
    for (uint32_t i = pc->n_scalar; i-- > 0;) {
        if (pc->scalar_e[i] != e)
            continue;
        uint32_t c = pc->scalar_col[i];
        const agg_scope *sas = pc->scalar_as[i];
        weir_error err = {0};
        if (!sas) {
            char nm[32];
            snprintf(nm, sizeof nm, "$scalar%u", i);
            if (c >= r->schema->n_fields || strcmp(r->schema->fields[c].name, nm))
                return 1; /* joined to another query's rows */
            int rc = weir_expr_column(pc->arena, c, r->schema->fields[c].type, out, &err);
            return rc && rc != WEIR_ENOMEM ? plan_error(pc, e->loc, rc, "%s", err.message) : rc;
        }
        /* correlated: its item over the aggregates joined to r's rows */
        for (uint32_t k = 0; k < sas->n_calls; k++) {
            char nm[48];
            uint32_t oc = sas->calls[k].out_col;
            snprintf(nm, sizeof nm, "$scalar%ua%u", i, k);
            if (oc >= r->schema->n_fields || strcmp(r->schema->fields[oc].name, nm))
                return 1;
        }
        agg_scope as = *sas;
        as.in = r;
        as.out = r;
        return plan_bind_expr(pc, r, &as, e->u.subquery.query->u.select->items[0].expr, out);
    }
    return 1;
}
