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
 * - Any other subquery is planned whole; IN matches on its one column,
 *   EXISTS on nothing (every row of it matches every row). Correlated, one
 *   that groups or combines sets runs over the outer values it reads
 *   (push_domain), matched on them.
 *
 * NOT IN and NULL: x NOT IN (subquery) is TRUE only when x <> y is TRUE
 * for every y, so a NULL x (with a non-empty subquery) or any NULL y makes
 * it UNKNOWN, and WHERE drops the row. When x or y can be NULL the anti
 * join's condition is therefore x = y OR x IS NULL OR y IS NULL (Flink's
 * rewrite), with no key of its own.
 *
 * Tests elsewhere (under OR, in the SELECT list, GROUP BY or HAVING) are
 * values: counts of scalar subqueries joined to the rows (test_rewrite).
 * Scalar subqueries are joined to the rows that read them (join_scalars):
 * one of one aggregate row as written, any other through SINGLE_VALUE
 * (scalar_query), correlated ones decorrelated by their equalities. In ON
 * or OVER they are refused where they stand (bind.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/ops.h"
#include "planner/query_internal.h"

static int plan_subquery_values(plan_ctx *pc, rel *in, const weir_sql_expr *const *exprs, uint32_t n,
                                weir_sql_loc loc, const weir_sql_select *sel, bool skip_keys);
static int find_subquery(const weir_sql_expr *e, void *ud);

/* The subquery of a WHERE conjunct, or NULL: sets the join kind and the IN
 * operand. */
static bool one_row(const weir_sql_query *q);

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
    /* a subquery of one aggregate row: EXISTS is TRUE, IN compares with its value (plan_scalar_subqueries) */
    if ((e->kind == WEIR_SQL_EXPR_EXISTS && one_row(e->u.subquery.query)) ||
        (e->kind == WEIR_SQL_EXPR_IN_QUERY && !weir__sql_is_row_ctor(e->u.in_query.operand) &&
         one_row(e->u.in_query.query)))
        return NULL;
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

/* A column reference to column i of rel r (an uncorrelated IN subquery
 * planned whole). */
static int column_ref(plan_ctx *pc, const rel *r, uint32_t i, weir_sql_loc loc, const weir_sql_expr **out)
{
    weir_sql_expr *c = plan_alloc(pc, sizeof *c);
    weir_sql_ident *id = plan_alloc(pc, sizeof *id);
    if (!c || !id)
        return WEIR_ENOMEM;
    memset(c, 0, sizeof *c);
    memset(id, 0, sizeof *id);
    id->name = r->schema->fields[i].name;
    id->len = (uint32_t)strlen(id->name);
    id->loc = loc;
    c->kind = WEIR_SQL_EXPR_COLUMN;
    c->loc = loc;
    c->height = 1;
    c->u.column = (weir_sql_name){id, 1, loc};
    *out = c;
    return 0;
}

/* IN's subquery q selects got columns (0: *) where the operand has n. */
static int in_columns_error(plan_ctx *pc, const weir_sql_query *q, uint32_t n, uint32_t got)
{
    if (n == 1)
        return got ? plan_error(pc, q->loc, WEIR_EPLAN, "the subquery of IN must select exactly one column, not %u",
                                got)
                   : plan_error(pc, q->loc, WEIR_EPLAN, "the subquery of IN must select exactly one column");
    return got ? plan_error(pc, q->loc, WEIR_EPLAN,
                            "the subquery of IN must select %u columns, one for each field of the row, not %u", n,
                            got)
               : plan_error(pc, q->loc, WEIR_EPLAN,
                            "the subquery of IN must select %u columns, one for each field of the row", n);
}

/* ---- correlation across two levels */

enum { MAX_NESTED_NAMES = 64, MAX_NESTED_COLS = 64, MAX_NESTED_LEVELS = 16 };

/*
 * The columns of the outer query (rows in) that the subqueries inside a
 * subquery's WHERE name, two or more levels down: qualified by a name of
 * in's and by none of the FROM items of the levels between (o.t in
 * EXISTS (SELECT 1 FROM l WHERE l.v IN (SELECT r.v FROM r WHERE r.t = o.t))),
 * or a bare name that no FROM of those levels has and in has (t there, as
 * scopes nest; kept as in's qualified column, o.t, so that it is one value
 * with the same column named qualified).
 */
typedef struct nested_walk {
    plan_ctx *pc;
    const rel *in;
    const char *names[MAX_NESTED_NAMES];
    uint32_t n_names;
    uint32_t depth;
    /* walking the operand of an IN subquery one level down: a semi join of that level's rows compares it,
     * so the outer columns it reads are carried into that level as those of the levels below are */
    bool operand;
    /* the column names of each level's FROM, from the outermost subquery's (levels[0]) in */
    plan_colnames levels[MAX_NESTED_LEVELS];
    int rc;
    const weir_sql_expr *cols[MAX_NESTED_COLS];
    uint32_t n;
    bool full; /* more names or columns than fit */
} nested_walk;

static void from_quals(const weir_sql_table_ref *t, nested_walk *w)
{
    const char *q = t->alias ? t->alias->name : NULL;
    if (t->kind == WEIR_SQL_FROM_JOIN) {
        from_quals(t->u.join.left, w);
        from_quals(t->u.join.right, w);
        return;
    }
    if (!q && t->kind == WEIR_SQL_FROM_TABLE && t->u.table.name.n_parts)
        q = t->u.table.name.parts[t->u.table.name.n_parts - 1].name;
    if (!q)
        return;
    if (w->n_names == MAX_NESTED_NAMES)
        w->full = true;
    else
        w->names[w->n_names++] = q;
}

static int walk_nested(const weir_sql_expr *e, void *ud);

/* The bare column e as q.e (q: the qualifier of the outer column it names; NULL: e itself), so that it is
 * one outer value with the same column named qualified (outer_values keeps each once, by its text). */
static const weir_sql_expr *qualified(plan_ctx *pc, const weir_sql_expr *e, const char *q)
{
    if (!q)
        return e;
    weir_sql_expr *x = plan_alloc(pc, sizeof *x);
    weir_sql_ident *parts = plan_alloc(pc, 2 * sizeof *parts);
    if (!x || !parts)
        return NULL;
    *x = *e;
    parts[0] = e->u.column.parts[0];
    parts[0].name = q;
    parts[0].len = (uint32_t)strlen(q);
    parts[0].quoted = false;
    parts[1] = e->u.column.parts[0];
    x->u.column = (weir_sql_name){parts, 2, e->loc};
    return x;
}

static void nested_add(nested_walk *w, const weir_sql_expr *e)
{
    if (w->n == MAX_NESTED_COLS)
        w->full = true;
    else
        w->cols[w->n++] = e;
}

/* A bare name two levels down or more: in's column when no level's FROM has it. */
static int nested_bare(nested_walk *w, const weir_sql_expr *e)
{
    const char *name = e->u.column.parts[0].name;
    for (uint32_t i = 0; i < w->depth && i < MAX_NESTED_LEVELS; i++)
        if (w->levels[i].unknown || plan_colnames_has(&w->levels[i], name))
            return 0;
    int c = plan_find_column(w->pc, w->in, &e->u.column);
    if (c == -1)
        return 0;
    if (c == -2) { /* ambiguous in in's scope: binding it says so */
        nested_add(w, e);
        return 0;
    }
    const weir_sql_expr *x = qualified(w->pc, e, w->in->quals ? w->in->quals[c] : NULL);
    if (!x) {
        w->rc = WEIR_ENOMEM;
        return 1;
    }
    nested_add(w, x);
    return 0;
}

static void walk_nested_query(nested_walk *w, const weir_sql_query *q)
{
    if (q->kind == WEIR_SQL_QUERY_SETOP) {
        walk_nested_query(w, q->u.setop.left);
        walk_nested_query(w, q->u.setop.right);
        return;
    }
    if (q->kind != WEIR_SQL_QUERY_SELECT)
        return;
    const weir_sql_select *sel = q->u.select;
    uint32_t saved = w->n_names;
    if (sel->from)
        from_quals(sel->from, w);
    if (w->depth >= MAX_NESTED_LEVELS)
        w->full = true;
    else {
        w->levels[w->depth] = (plan_colnames){0};
        w->levels[w->depth].unknown = q->n_with > 0;
        if (sel->from && !w->rc)
            w->rc = plan_from_colnames(w->pc, sel->from, &w->levels[w->depth]);
    }
    w->depth++;
    if (sel->where)
        walk_nested(sel->where, w);
    if (sel->having)
        walk_nested(sel->having, w);
    for (uint32_t i = 0; i < sel->n_items; i++)
        if (sel->items[i].expr->kind != WEIR_SQL_EXPR_STAR)
            walk_nested(sel->items[i].expr, w);
    for (uint32_t i = 0; i < sel->n_group_by; i++)
        walk_nested(sel->group_by[i], w);
    w->depth--;
    w->n_names = saved;
}

static int walk_nested(const weir_sql_expr *e, void *ud)
{
    nested_walk *w = ud;
    if (e->kind == WEIR_SQL_EXPR_SUBQUERY || e->kind == WEIR_SQL_EXPR_EXISTS) {
        walk_nested_query(w, e->u.subquery.query);
        return 0;
    }
    if (e->kind == WEIR_SQL_EXPR_IN_QUERY) {
        bool saved = w->operand;
        w->operand = w->operand || w->depth == 1;
        walk_nested(e->u.in_query.operand, w);
        w->operand = saved;
        walk_nested_query(w, e->u.in_query.query);
        return 0;
    }
    if (e->kind != WEIR_SQL_EXPR_COLUMN)
        return weir__sql_expr_each_child(e, walk_nested, ud);
    const weir_sql_name *nm = &e->u.column;
    bool nested = w->depth >= 2 || w->operand;
    if (nested && nm->n_parts == 1)
        return nested_bare(w, e);
    if (!nested || nm->n_parts < 2 || !w->in->quals)
        return 0;
    const char *q = nm->parts[nm->n_parts - 2].name;
    for (uint32_t i = 0; i < w->n_names; i++)
        if (!strcasecmp(w->names[i], q))
            return 0;
    bool outer = false;
    for (uint32_t c = 0; c < w->in->n_physical && !outer; c++)
        outer = w->in->quals[c] && !strcasecmp(w->in->quals[c], q);
    if (!outer)
        return 0;
    nested_add(w, e);
    return 0;
}

/* The outer query's columns (rows in) that the subqueries of where name two levels down or more
 * (sel: the subquery whose WHERE it is): into w. */
static int nested_outer(plan_ctx *pc, const rel *in, const weir_sql_select *sel, const weir_sql_expr *where,
                        nested_walk *w)
{
    memset(w, 0, sizeof *w);
    w->pc = pc;
    w->in = in;
    if (!where || find_subquery(where, NULL) != 1)
        return 0;
    if (sel->from) {
        from_quals(sel->from, w);
        if ((w->rc = plan_from_colnames(pc, sel->from, &w->levels[0])))
            return w->rc;
    }
    w->depth = 1;
    walk_nested(where, w);
    if (w->rc)
        return w->rc;
    if (w->full)
        return plan_error(pc, where->loc, WEIR_EUNSUPPORTED,
                          "correlation across two subquery levels naming more than %d columns or FROM items is "
                          "not supported",
                          MAX_NESTED_COLS);
    return 0;
}

static int plan_one_outer(plan_ctx *pc, rel *in, const weir_sql_expr *e, const weir_sql_query *q,
                          weir_join_type type, const weir_sql_expr *const *ops, const weir_sql_expr **items,
                          uint32_t n, bool not_in, const nested_walk *nw);
static int filter_by(plan_ctx *pc, rel *j, const weir_sql_select *sel, const weir_sql_expr *cond);

/* The form of subquery q that weir does not decorrelate when it names an enclosing query, or NULL. */
static const char *undecorrelated_form(const weir_sql_query *q)
{
    if (!q)
        return NULL;
    if (q->kind == WEIR_SQL_QUERY_SETOP)
        return q->u.setop.op == WEIR_SQL_SETOP_UNION       ? "UNION"
               : q->u.setop.op == WEIR_SQL_SETOP_INTERSECT ? "INTERSECT"
                                                           : "EXCEPT";
    if (q->kind != WEIR_SQL_QUERY_SELECT)
        return NULL;
    if (q->u.select->n_group_by)
        return "GROUP BY";
    if (q->u.select->having)
        return "HAVING";
    if (q->n_order_by || q->limit || q->offset)
        return q->n_order_by ? "ORDER BY" : q->limit ? "LIMIT" : "OFFSET";
    return NULL;
}

int plan_two_levels(plan_ctx *pc, const rel *in, const weir_sql_query *sub, int rc)
{
    if (rc != WEIR_ENOTFOUND || !pc->err || strstr(pc->err->message, "correlation across two subquery levels"))
        return rc;
    const char *m = pc->err->message, *p = strstr(m, "unknown table or alias '");
    bool qual = p != NULL;
    if (qual)
        p += 24;
    else if ((p = strstr(m, "unknown column '")))
        p += 16;
    else
        return rc;
    char name[128];
    size_t n = strcspn(p, "'");
    if (n >= sizeof name)
        return rc;
    memcpy(name, p, n);
    name[n] = 0;
    for (uint32_t c = 0; c < in->n_physical; c++) {
        const char *q = in->quals ? in->quals[c] : NULL, *cn = in->schema->fields[c].name;
        if (qual ? !q || strcasecmp(q, name)
                 : plan_col_hidden(in, c) || plan_is_scalar_column(cn) || strcasecmp(cn, name))
            continue;
        size_t l = strlen(pc->err->message);
        const char *form = undecorrelated_form(sub);
        if (form)
            snprintf(pc->err->message + l, sizeof pc->err->message - l,
                     " (a column of an enclosing query: a subquery with %s may read the columns of the query "
                     "around it in its own clauses and the subqueries nested in them, not in a derived table of "
                     "its FROM, nor in a WITH query, VALUES or a table function)",
                     form);
        else if (qual)
            snprintf(pc->err->message + l, sizeof pc->err->message - l,
                     " (it names the query two subquery levels up: correlation across two subquery levels is "
                     "not supported in this form of subquery; it is in a SELECT ... FROM ... WHERE inside IN or "
                     "EXISTS, a scalar subquery or a LATERAL derived table of aggregates, and rows of an inner "
                     "JOIN LATERAL)");
        else
            snprintf(pc->err->message + l, sizeof pc->err->message - l,
                     " (a column of the query two subquery levels up: correlation across two subquery levels by "
                     "an unqualified name is not supported where its level or one between reads a WITH query, VALUES, a "
                     "table function, UNNEST or MATCH_RECOGNIZE, whose column names are not known before it is "
                     "planned; qualify it: %s%s%s)",
                     q ? q : "", q ? "." : "", cn);
        break;
    }
    return rc;
}

static int plan_one_in(plan_ctx *pc, rel *in, const weir_sql_expr *e, const weir_sql_query *q, weir_join_type type,
                       const weir_sql_expr *operand, bool not_in);
static int plan_domain_semi(plan_ctx *pc, rel *in, const weir_sql_expr *e, const weir_sql_query *q,
                            weir_join_type type, const weir_sql_expr *const *ops, const weir_sql_expr **items,
                            uint32_t n, bool not_in, bool *planned);

/* Plans the subquery conjunct e (subquery q) as a semi or anti join of *in. */
static int plan_one(plan_ctx *pc, rel *in, const weir_sql_expr *e, const weir_sql_query *q, weir_join_type type,
                    const weir_sql_expr *operand, bool not_in)
{
    rel outer = *in;
    return plan_two_levels(pc, &outer, q, plan_one_in(pc, in, e, q, type, operand, not_in));
}

static int plan_one_in(plan_ctx *pc, rel *in, const weir_sql_expr *e, const weir_sql_query *q, weir_join_type type,
                       const weir_sql_expr *operand, bool not_in)
{
    rel right;
    join_conds *conds = NULL;
    /* x, or the fields of a row (x1, x2, ...), and the subquery's columns they meet */
    const weir_sql_expr *const *ops = operand ? &operand : NULL;
    uint32_t n = operand ? 1 : 0;
    if (operand && weir__sql_is_row_ctor(operand)) {
        ops = (const weir_sql_expr *const *)operand->u.call.args;
        n = operand->u.call.n_args;
    }
    const weir_sql_expr **items = n ? plan_alloc(pc, n * sizeof *items) : NULL;
    if (n && !items)
        return WEIR_ENOMEM;
    int rc;
    /* SELECT * of the subquery: planned whole, its columns counted once expanded */
    bool star = false;
    for (uint32_t i = 0; n && plain_select(q) && i < q->u.select->n_items; i++)
        star |= q->u.select->items[i].expr->kind == WEIR_SQL_EXPR_STAR;
    if (plain_select(q) && !star) {
        const weir_sql_select *sel = q->u.select;
        if (n) {
            if (sel->n_items != n)
                return in_columns_error(pc, q, n, n == 1 ? 0 : sel->n_items);
            for (uint32_t i = 0; i < n; i++)
                items[i] = sel->items[i].expr;
        }
        /* Subqueries in its WHERE that name this query's columns: decorrelated through their values */
        nested_walk nw;
        if ((rc = nested_outer(pc, in, sel, sel->where, &nw)))
            return rc;
        if (nw.n)
            return plan_one_outer(pc, in, e, q, type, ops, items, n, not_in, &nw);
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
            /* and its scalar subqueries and tests used as values: joined to its rows */
            if (w && (rc = plan_subquery_values(pc, &right, &w, 1, sel->loc, sel, false)))
                return rc;
            if (w && (rc = plan_join_conds_make(pc, w, &conds)))
                return rc;
        }
    } else {
        /* one that groups or combines sets and reads this query's columns: over their values */
        bool planned;
        if ((rc = plan_domain_semi(pc, in, e, q, type, ops, items, n, not_in, &planned)) || planned)
            return rc;
        if ((rc = plan_query(pc, q, &right)))
            return rc;
        if (n && right.n_physical != n)
            return in_columns_error(pc, q, n, right.n_physical);
        for (uint32_t i = 0; i < n; i++)
            if ((rc = column_ref(pc, &right, i, q->loc, &items[i])))
                return rc;
    }
    rel out;
    if ((rc = plan_semi_join(pc, type == WEIR_JOIN_ANTI, in, &right, conds, ops, items, n, not_in, e->loc, &out)))
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
    plan_ctx *pc;
    const weir_sql_expr *found[MAX_SCALAR];
    uint32_t n;
    /* expressions not searched: an aggregating SELECT's GROUP BY expressions (their subqueries were
     * joined to its input rows), by SQL text */
    char **skip;
    uint32_t n_skip;
} scalar_walk;

/* SQL text of e (plan arena), or NULL. */
static char *expr_text(plan_ctx *pc, const weir_sql_expr *e)
{
    weir_buf b;
    weir_buf_init(&b);
    char *t = NULL;
    if (!weir__sql_format_expr(e, &b) && !weir_buf_put_u8(&b, 0))
        t = plan_strdup(pc, (char *)b.data);
    weir_buf_fini(&b);
    return t;
}

static int test_rewrite(plan_ctx *pc, const weir_sql_expr *e, const weir_sql_expr **out);

/* The scalar subqueries of e, with those of its IN / EXISTS tests' rewrites (WEIR_EUNSUPPORTED: too many). */
static int collect_scalar(const weir_sql_expr *e, void *ud)
{
    scalar_walk *w = ud;
    if (w->n_skip && e->kind != WEIR_SQL_EXPR_COLUMN && e->kind != WEIR_SQL_EXPR_LITERAL) {
        char *t = expr_text(w->pc, e);
        if (!t)
            return WEIR_ENOMEM;
        for (uint32_t i = 0; i < w->n_skip; i++)
            if (!strcasecmp(t, w->skip[i]))
                return 0;
    }
    if (e->kind == WEIR_SQL_EXPR_SUBQUERY) {
        if (w->n == MAX_SCALAR)
            return WEIR_EUNSUPPORTED;
        for (uint32_t i = 0; i < w->n; i++)
            if (w->found[i] == e)
                return 0;
        w->found[w->n++] = e;
        return 0;
    }
    if (e->kind == WEIR_SQL_EXPR_IN_QUERY || e->kind == WEIR_SQL_EXPR_EXISTS) {
        const weir_sql_expr *r = NULL;
        int rc = test_rewrite(w->pc, e, &r);
        return rc ? rc : collect_scalar(r, ud);
    }
    return weir__sql_expr_each_child(e, collect_scalar, ud);
}

bool plan_is_scalar_column(const char *name)
{
    return !strncmp(name, "$scalar", 7);
}

/*
 * One row, always: a SELECT of one aggregate expression without GROUP BY,
 * HAVING (which can remove the row: EXISTS of it is not simply TRUE) or
 * window (other scalar subqueries go through SINGLE_VALUE: scalar_query).
 * Correlated, one row per value of its correlation key.
 */
static bool one_row(const weir_sql_query *q)
{
    if (q->kind != WEIR_SQL_QUERY_SELECT || q->n_with || q->limit || q->offset)
        return false;
    const weir_sql_select *sel = q->u.select;
    return sel->from && !sel->n_group_by && !sel->having && !sel->n_windows &&
           sel->n_items == 1 &&
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

static weir_sql_expr *ast_is_null(plan_ctx *pc, const weir_sql_expr *x);

/* x IS NOT DISTINCT FROM y */
static weir_sql_expr *ast_not_distinct(plan_ctx *pc, const weir_sql_expr *x, const weir_sql_expr *y)
{
    weir_sql_expr *e = ast_node(pc, WEIR_SQL_EXPR_IS, x->loc);
    if (e) {
        e->height = (x->height > y->height ? x->height : y->height) + 1;
        e->end = y->end;
        e->u.is.test = WEIR_SQL_IS_DISTINCT_FROM;
        e->u.is.negated = true;
        e->u.is.operand = (weir_sql_expr *)x;
        e->u.is.other = (weir_sql_expr *)y;
    }
    return e;
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
    /* every conjunct that names the outer query, as written */
    const weir_sql_expr **corr;
    uint32_t n_corr;
    /* some of them is not an equality outer = inner (t.x > o.y): decorrelated through the outer values
     * (outer_values); the keys are then those values, matched with IS NOT DISTINCT FROM */
    bool general;
    /* aggregate calls whose arguments read the outer query (SUM(t.x * o.f)): computed over the outer
     * values too (general) */
    const weir_sql_expr **vals;
    uint32_t n_vals;
    /* keys matched with IS NOT DISTINCT FROM however general is: the outer values of a derived table the
     * subquery reads (domain_derived) */
    bool not_distinct[WEIR_KEY_MAX_COLS];
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
    co->corr = plan_alloc(pc, cap * sizeof *co->corr);
    if (!conj || !co->local || !co->corr)
        return WEIR_ENOMEM;
    plan_split_and(where, conj, &n, cap);
    for (uint32_t i = 0; i < n; i++) {
        const weir_sql_expr *c = conj[i];
        if (!(plan_side_mask(&scope, nl, c) & PLAN_SIDE_LEFT)) {
            co->local[co->n_local++] = c; /* its own (a name found nowhere fails when it is planned) */
            continue;
        }
        co->corr[co->n_corr++] = c;
        int ml = -1, mr = -1;
        if (c->kind == WEIR_SQL_EXPR_BINARY && c->u.binary.op == WEIR_SQL_OP_EQ) {
            ml = plan_side_mask(&scope, nl, c->u.binary.left);
            mr = plan_side_mask(&scope, nl, c->u.binary.right);
        }
        bool outer_left = ml == PLAN_SIDE_LEFT && mr == PLAN_SIDE_RIGHT;
        if (!outer_left && !(ml == PLAN_SIDE_RIGHT && mr == PLAN_SIDE_LEFT)) {
            co->general = true; /* t.x > o.y, o.a = 1, f(o.a, t.b), ... */
            continue;
        }
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
 * The aggregate calls of sel's items (and HAVING) whose arguments read the
 * outer query's rows in (SUM(t.x * o.f)): each group of the subquery's
 * rows is then one per value of those outer columns too, as Calcite's
 * decorrelation computes it (over the outer values: co->general).
 */
static int outer_aggregates(plan_ctx *pc, const rel *in, const rel *from, const weir_sql_select *sel,
                            const weir_sql_expr *extra, correlation *co)
{
    agg_walk w = {pc, NULL, 0, 0};
    int rc = 0;
    for (uint32_t i = 0; !rc && i < sel->n_items; i++)
        if (sel->items[i].expr->kind != WEIR_SQL_EXPR_STAR)
            rc = collect_aggs(sel->items[i].expr, &w);
    if (!rc && extra)
        rc = collect_aggs(extra, &w);
    if (rc || !w.n)
        return rc;
    rel scope;
    if ((rc = plan_pair_rel(pc, in, from, false, false, true, &scope)))
        return rc;
    co->vals = plan_alloc(pc, w.n * sizeof *co->vals);
    if (!co->vals)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < w.n; i++)
        if (plan_side_mask(&scope, in->n_physical, w.calls[i].call) & PLAN_SIDE_LEFT)
            co->vals[co->n_vals++] = w.calls[i].call;
    co->general |= co->n_vals > 0;
    return 0;
}

/* The outer query's columns a correlated conjunct names, each once (by its SQL text). */
typedef struct outer_walk {
    plan_ctx *pc;
    const rel *scope;
    uint32_t nl;
    const weir_sql_expr *cols[WEIR_KEY_MAX_COLS];
    char *text[WEIR_KEY_MAX_COLS];
    uint32_t n;
} outer_walk;

static int collect_outer(const weir_sql_expr *e, void *ud)
{
    outer_walk *w = ud;
    if (e->kind == WEIR_SQL_EXPR_SUBQUERY || e->kind == WEIR_SQL_EXPR_EXISTS || e->kind == WEIR_SQL_EXPR_IN_QUERY)
        return 0;
    if (e->kind != WEIR_SQL_EXPR_COLUMN)
        return weir__sql_expr_each_child(e, collect_outer, ud);
    if (plan_side_mask(w->scope, w->nl, e) != PLAN_SIDE_LEFT)
        return 0;
    if (e->u.column.n_parts == 1) { /* a bare name of the outer query's: as its qualified column */
        int c = plan_find_column(w->pc, w->scope, &e->u.column);
        if (c >= 0 && (uint32_t)c < w->nl && !(e = qualified(w->pc, e, w->scope->quals ? w->scope->quals[c] : NULL)))
            return WEIR_ENOMEM;
    }
    char *t = expr_text(w->pc, e);
    if (!t)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < w->n; i++)
        if (!strcasecmp(w->text[i], t))
            return 0;
    if (w->n == WEIR_KEY_MAX_COLS)
        return plan_error(w->pc, e->loc, WEIR_EUNSUPPORTED,
                          "more than %d columns of the outer query in the correlated conditions of one subquery",
                          WEIR_KEY_MAX_COLS);
    w->cols[w->n] = e;
    w->text[w->n++] = t;
    return 0;
}

/* Plans q, whose FROM item wrap stands for the rows in, planned already. */
static int plan_query_over(plan_ctx *pc, const weir_sql_table_ref *wrap, const rel *in,
                           const weir_sql_query *q, rel *out)
{
    const weir_sql_table_ref *saved_ref = pc->preplanned_ref;
    rel saved = pc->preplanned;
    pc->preplanned_ref = wrap;
    pc->preplanned = *in;
    int rc = plan_query(pc, q, out);
    pc->preplanned_ref = saved_ref;
    pc->preplanned = saved;
    return rc;
}

/*
 * D = SELECT DISTINCT items FROM <in's rows, planned before> (q: the
 * subquery it is for, loc: where it is written): its first n_named columns
 * are the outer columns named[i], under their names and qualifiers, so
 * that the subquery's conditions read them as they read the outer rows.
 */
static int plan_outer_domain(plan_ctx *pc, const weir_sql_query *q, weir_sql_loc loc, const rel *in,
                             weir_sql_select_item *items, uint32_t ni, const weir_sql_expr *const *named,
                             uint32_t n_named, rel *d)
{
    weir_sql_select *ds = plan_alloc(pc, sizeof *ds);
    weir_sql_query *dq = plan_alloc(pc, sizeof *dq);
    weir_sql_table_ref *wrap = plan_alloc(pc, sizeof *wrap);
    if (!ds || !dq || !wrap)
        return WEIR_ENOMEM;
    /* plan_from hands in's rows out for wrap */
    memset(wrap, 0, sizeof *wrap);
    wrap->kind = WEIR_SQL_FROM_SUBQUERY;
    wrap->loc = loc;
    wrap->height = q->height + 1;
    wrap->u.subquery.query = (weir_sql_query *)q;
    memset(ds, 0, sizeof *ds);
    ds->loc = loc;
    ds->distinct = true;
    ds->items = items;
    ds->n_items = ni;
    ds->from = wrap;
    memset(dq, 0, sizeof *dq);
    dq->kind = WEIR_SQL_QUERY_SELECT;
    dq->loc = loc;
    dq->height = wrap->height + 2;
    dq->u.select = ds;
    int rc = plan_query_over(pc, wrap, in, dq, d);
    if (rc)
        return rc;
    uint32_t nf = d->schema->n_fields;
    char **quals = plan_alloc(pc, (nf + 1) * sizeof *quals);
    uint8_t *scope = plan_alloc(pc, (nf + 1) * sizeof *scope);
    if (!quals || !scope)
        return WEIR_ENOMEM;
    /* each named column keeps how far out its scope is from in's rows (a column carried into in from a
     * level further out stays further out than in's own) */
    for (uint32_t c = 0; c < nf; c++) {
        const weir_sql_name *nm = c < n_named ? &named[c]->u.column : NULL;
        quals[c] = nm && nm->n_parts > 1 ? (char *)nm->parts[nm->n_parts - 2].name : NULL;
        int ic = nm ? plan_find_column(pc, in, nm) : -1;
        scope[c] = (uint8_t)(ic >= 0 ? plan_col_scope(in, (uint32_t)ic) : 0);
    }
    d->quals = quals;
    d->hidden = NULL;
    d->n_hidden = 0;
    d->outer_cols = 0;
    d->scope = scope;
    d->n_scope = nf;
    return 0;
}

/*
 * A scalar subquery correlated by more than equalities (t.x > o.y), as
 * Calcite's decorrelation plans it: over the distinct values of the outer
 * query's columns that its conditions name (and of IN's x, for the IN
 * pairs of co past n_eq),
 *   D = SELECT DISTINCT o.y, ..., o.y AS $scalarNd0, ..., x AS $scalarNdJ FROM <in's rows>
 *   J = D JOIN t ON <its correlated conjuncts, as written> AND <its own> [AND y = $scalarNdJ]
 * (D's first columns keep the outer names and qualifiers, and J's names
 * resolve in t first: the conjuncts read as in the subquery). *from
 * becomes J, and co its keys: the subquery's aggregates over J grouped by
 * $scalarNdI (decorrelated), LEFT-joined to the outer rows on
 * o.y IS NOT DISTINCT FROM the group's value. Each distinct outer value
 * meets the inner rows its conditions accept, once however many outer rows
 * have it.
 */
static int outer_values(plan_ctx *pc, const weir_sql_expr *e, const weir_sql_query *q, uint32_t id, const rel *in,
                        rel *from, correlation *co, uint32_t n_eq)
{
    rel scope;
    int rc = plan_pair_rel(pc, in, from, false, false, true, &scope);
    if (rc)
        return rc;
    outer_walk w = {.pc = pc, .scope = &scope, .nl = in->n_physical};
    for (uint32_t i = 0; i < co->n_corr + co->n_vals; i++)
        if ((rc = collect_outer(i < co->n_corr ? co->corr[i] : co->vals[i - co->n_corr], &w)))
            return rc;
    uint32_t n_in = co->n_keys - n_eq, nk = w.n + n_in;
    if (nk > WEIR_KEY_MAX_COLS)
        return plan_error(pc, e->loc, WEIR_EUNSUPPORTED,
                          "more than %d columns of the outer query in the correlated conditions of one subquery",
                          WEIR_KEY_MAX_COLS);
    uint32_t ni = w.n + nk;
    const weir_sql_expr *in_x[WEIR_KEY_MAX_COLS], *in_y[WEIR_KEY_MAX_COLS]; /* IN's pairs (co's keys are rebuilt) */
    for (uint32_t i = 0; i < n_in; i++) {
        in_x[i] = co->outer[n_eq + i];
        in_y[i] = co->inner[n_eq + i];
    }
    weir_sql_select_item *items = plan_alloc(pc, ni * sizeof *items);
    weir_sql_ident *alias = plan_alloc(pc, ni * sizeof *alias);
    if (!items || !alias)
        return WEIR_ENOMEM;
    memset(alias, 0, ni * sizeof *alias);
    const weir_sql_expr *on = NULL;
    for (uint32_t i = 0; i < ni; i++) {
        const weir_sql_expr *x;
        if (i < w.n) {
            const weir_sql_name *nm = &w.cols[i]->u.column;
            x = w.cols[i];
            alias[i].name = nm->parts[nm->n_parts - 1].name;
        } else {
            uint32_t k = i - w.n;
            x = k < w.n ? w.cols[k] : in_x[k - w.n];
            if (!(alias[i].name = scalar_name(pc, id, 'd', k)))
                return WEIR_ENOMEM;
            const weir_sql_expr *c = ast_column(pc, alias[i].name, e->loc), *eq;
            if (!c)
                return WEIR_ENOMEM;
            if (k >= w.n && (!(eq = ast_binary(pc, WEIR_SQL_OP_EQ, in_y[k - w.n], c)) ||
                             !(on = ast_binary(pc, WEIR_SQL_OP_AND, on, eq))))
                return WEIR_ENOMEM;
            co->outer[k] = x;
            co->inner[k] = c;
        }
        alias[i].len = (uint32_t)strlen(alias[i].name);
        alias[i].loc = x->loc;
        items[i] = (weir_sql_select_item){(weir_sql_expr *)x, &alias[i]};
    }
    co->n_keys = nk;
    for (uint32_t i = 0; i < co->n_corr; i++)
        if (!(on = ast_binary(pc, WEIR_SQL_OP_AND, on, co->corr[i])))
            return WEIR_ENOMEM;
    /* its own conditions join D with t, but those with subqueries (IN, EXISTS, scalar), which stay in
     * its WHERE over J: there they read the outer values as their outer query's (two levels up) */
    uint32_t kept = 0;
    for (uint32_t i = 0; i < co->n_local; i++)
        if (find_subquery(co->local[i], NULL) == 1)
            co->local[kept++] = co->local[i];
        else if (!(on = ast_binary(pc, WEIR_SQL_OP_AND, on, co->local[i])))
            return WEIR_ENOMEM;
    co->n_local = kept;
    rel d;
    if ((rc = plan_outer_domain(pc, q, e->loc, in, items, ni, w.cols, w.n, &d)))
        return rc;
    rel j;
    if ((rc = plan_scoped_join(pc, &d, from, on, e->loc, &j)))
        return rc;
    *from = j;
    return 0;
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
static int decorrelated(plan_ctx *pc, const weir_sql_expr *e, const weir_sql_query *q, uint32_t id,
                        const correlation *co, weir_sql_query **out_q, const weir_sql_expr **on, agg_scope *as)
{
    const weir_sql_select *sel = q->u.select;
    if (sel->having || sel->distinct)
        return plan_error(pc, e->loc, WEIR_EUNSUPPORTED,
                          "a correlated scalar subquery with %s is not supported: aggregate without it",
                          sel->having ? "HAVING" : "DISTINCT");
    agg_walk w = {pc, NULL, 0, 0};
    int rc = 0;
    /* a scalar subquery's one item, or a LATERAL derived table's items (plan_lateral_aggregates) */
    for (uint32_t i = 0; !rc && i < sel->n_items; i++)
        rc = collect_aggs(sel->items[i].expr, &w);
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
    /* a NULL key matches no outer row: its group is never read (nor checked by SINGLE_VALUE), as the
     * IS NOT NULL filter Flink's decorrelation puts below the aggregation (outer values: a NULL one is an
     * outer row's, and meets the inner rows its conditions accept) */
    for (uint32_t i = 0; !co->general && i < co->n_keys; i++) {
        if (co->not_distinct[i])
            continue;
        weir_sql_expr *nn = ast_is_null(pc, co->inner[i]);
        if (!nn)
            return WEIR_ENOMEM;
        nn->u.is.negated = true;
        if (!(where = ast_binary(pc, WEIR_SQL_OP_AND, where, nn)))
            return WEIR_ENOMEM;
    }
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
            if (!k || !(k = co->general || co->not_distinct[i] ? ast_not_distinct(pc, co->outer[i], k)
                                        : ast_binary(pc, WEIR_SQL_OP_EQ, co->outer[i], k)) ||
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

static int scalar_register(plan_ctx *pc, const weir_sql_expr *e, uint32_t col, agg_scope *as);

bool plan_reads_two_levels(plan_ctx *pc, const rel *in, const weir_sql_select *sel)
{
    nested_walk w;
    weir_error save = *pc->err;
    bool r = nested_outer(pc, in, sel, sel->where, &w) == 0 && w.n > 0;
    *pc->err = save;
    return r;
}

/* Adds the n expressions v to the values the outer values of co carry (outer_values). */
static int vals_add(plan_ctx *pc, correlation *co, const weir_sql_expr *const *v, uint32_t n)
{
    if (!n)
        return 0;
    const weir_sql_expr **nv = plan_alloc(pc, (co->n_vals + n) * sizeof *nv);
    if (!nv)
        return WEIR_ENOMEM;
    if (co->n_vals)
        memcpy(nv, co->vals, co->n_vals * sizeof *nv);
    memcpy(nv + co->n_vals, v, n * sizeof *nv);
    co->vals = nv;
    co->n_vals += n;
    co->general = true;
    return 0;
}

/* A fresh id for the hidden columns of a decorrelated subquery that is no scalar one. */
static int reserve_id(plan_ctx *pc, const weir_sql_query *q, uint32_t *id)
{
    weir_sql_expr *m = ast_node(pc, WEIR_SQL_EXPR_SUBQUERY, q->loc);
    if (!m)
        return WEIR_ENOMEM;
    m->u.subquery.query = (weir_sql_query *)q;
    *id = pc->n_scalar;
    return scalar_register(pc, m, 0, NULL);
}

/*
 * A semi or anti join whose subquery (a plain SELECT) has subqueries in its
 * WHERE that name the outer query (nw), as Calcite decorrelates it: over
 * the distinct values of the outer columns that any level names (D),
 *   J = D JOIN <its FROM> ON <its conditions without subqueries>
 * then J's rows filtered by the conditions with subqueries (which read the
 * outer values as columns of J: one level of correlation), and the outer
 * rows semi- (anti-) joined with J on their values IS NOT DISTINCT FROM D's
 * (and x = y for IN).
 */
static int plan_one_outer(plan_ctx *pc, rel *in, const weir_sql_expr *e, const weir_sql_query *q,
                          weir_join_type type, const weir_sql_expr *const *ops, const weir_sql_expr **items,
                          uint32_t n, bool not_in, const nested_walk *nw)
{
    const weir_sql_select *sel = q->u.select;
    rel from;
    correlation co;
    uint32_t id;
    int rc;
    if ((rc = plan_from(pc, sel->from, &from)) || (rc = correlate(pc, in, &from, sel->where, &co)) ||
        (rc = vals_add(pc, &co, nw->cols, nw->n)) || (rc = reserve_id(pc, q, &id)))
        return rc;
    uint32_t nf = from.n_physical;
    if ((rc = outer_values(pc, e, q, id, in, &from, &co, co.n_keys)))
        return rc;
    uint32_t nd = from.n_physical - nf; /* D's columns, first */
    const weir_sql_expr *w = NULL;
    for (uint32_t i = 0; i < co.n_local; i++)
        if (!(w = ast_binary(pc, WEIR_SQL_OP_AND, w, co.local[i])))
            return WEIR_ENOMEM;
    /* the rest (semi / anti joins; scalar subqueries, tests under OR: values joined to J's rows, then a
     * filter) */
    if (w && (rc = filter_by(pc, &from, sel, w)))
        return rc;
    /* J without D's columns named as the outer query's (the semi join's conditions read those as the
     * outer rows'): its FROM's and the values' hidden copies */
    uint32_t nc = from.n_physical, k = 0;
    weir_expr **exprs = plan_alloc(pc, nc * sizeof *exprs);
    const char **names = plan_alloc(pc, nc * sizeof *names);
    char **quals = plan_alloc(pc, (nc + 1) * sizeof *quals);
    bool *hidden = plan_alloc(pc, (nc + 1) * sizeof *hidden);
    if (!exprs || !names || !quals || !hidden)
        return WEIR_ENOMEM;
    for (uint32_t c = 0; c < nc; c++) {
        const char *cn = from.schema->fields[c].name;
        if (c < nd && !plan_is_scalar_column(cn))
            continue;
        weir_error err = {0};
        if (weir_expr_column(pc->arena, c, from.schema->fields[c].type, &exprs[k], &err))
            return WEIR_ENOMEM;
        names[k] = cn;
        quals[k] = from.quals ? from.quals[c] : NULL;
        hidden[k++] = plan_col_hidden(&from, c);
    }
    rel right;
    from.outer_cols = 0;
    from.scope = NULL;
    if ((rc = plan_calc(pc, &from, NULL, exprs, names, k, &right, "Calc")))
        return rc;
    right.quals = quals;
    right.hidden = hidden;
    right.n_hidden = k;
    right.outer_cols = 0;
    right.scope = NULL;
    const weir_sql_expr *cond = NULL;
    for (uint32_t i = 0; i < co.n_keys; i++) {
        const weir_sql_expr *m = ast_not_distinct(pc, co.outer[i], co.inner[i]);
        if (!m || !(cond = ast_binary(pc, WEIR_SQL_OP_AND, cond, m)))
            return WEIR_ENOMEM;
    }
    join_conds *conds = NULL;
    if (cond && (rc = plan_join_conds_make(pc, cond, &conds)))
        return rc;
    rel out;
    if ((rc = plan_semi_join(pc, type == WEIR_JOIN_ANTI, in, &right, conds, ops, items, n, not_in, e->loc, &out)))
        return rc;
    *in = out;
    return 0;
}

/* ---- IN / EXISTS used as values */

static weir_sql_expr *ast_literal(plan_ctx *pc, weir_sql_lit_kind kind, bool b, const char *digits, weir_sql_loc loc)
{
    weir_sql_expr *e = ast_node(pc, WEIR_SQL_EXPR_LITERAL, loc);
    if (e) {
        e->u.lit.kind = kind;
        e->u.lit.boolean = b;
        if (digits) {
            e->u.lit.text = digits;
            e->u.lit.len = (uint32_t)strlen(digits);
            e->u.lit.i64 = strtoll(digits, NULL, 10);
        }
    }
    return e;
}

static weir_sql_expr *ast_unary(plan_ctx *pc, weir_sql_unop op, const weir_sql_expr *x)
{
    weir_sql_expr *e = ast_node(pc, WEIR_SQL_EXPR_UNARY, x->loc);
    if (e) {
        e->height = x->height + 1;
        e->u.unary.op = op;
        e->u.unary.operand = (weir_sql_expr *)x;
    }
    return e;
}

static weir_sql_expr *ast_is_null(plan_ctx *pc, const weir_sql_expr *x)
{
    weir_sql_expr *e = ast_node(pc, WEIR_SQL_EXPR_IS, x->loc);
    if (e) {
        e->height = x->height + 1;
        e->u.is.test = WEIR_SQL_IS_NULL;
        e->u.is.operand = (weir_sql_expr *)x;
    }
    return e;
}

/* name(args) (args in the plan arena); no args: name(*). */
static weir_sql_expr *ast_call(plan_ctx *pc, const char *name, weir_sql_expr **args, uint32_t n, weir_sql_loc loc)
{
    weir_sql_expr *c = ast_column(pc, name, loc);
    if (!c)
        return NULL;
    weir_sql_name fn = c->u.column;
    memset(&c->u, 0, sizeof c->u);
    c->kind = WEIR_SQL_EXPR_CALL;
    c->u.call.name = fn;
    c->u.call.args = args;
    c->u.call.n_args = n;
    c->u.call.star = !n;
    for (uint32_t i = 0; i < n; i++)
        if (args[i]->height >= c->height)
            c->height = args[i]->height + 1;
    return c;
}

/* COALESCE((SELECT COUNT(*) FROM from WHERE where AND extra), 0): where and extra may be NULL. */
static weir_sql_expr *ast_count(plan_ctx *pc, const weir_sql_table_ref *from, const weir_sql_expr *where,
                                const weir_sql_expr *extra, weir_sql_loc loc)
{
    weir_sql_expr *call = ast_call(pc, "COUNT", NULL, 0, loc), *sub = ast_node(pc, WEIR_SQL_EXPR_SUBQUERY, loc);
    weir_sql_select_item *item = plan_alloc(pc, sizeof *item);
    weir_sql_select *sel = plan_alloc(pc, sizeof *sel);
    weir_sql_query *q = plan_alloc(pc, sizeof *q);
    weir_sql_expr **args = plan_alloc(pc, 2 * sizeof *args);
    if (!call || !sub || !item || !sel || !q || !args)
        return NULL;
    *item = (weir_sql_select_item){call, NULL};
    memset(sel, 0, sizeof *sel);
    sel->loc = loc;
    sel->items = item;
    sel->n_items = 1;
    sel->from = (weir_sql_table_ref *)from;
    sel->where = extra ? ast_binary(pc, WEIR_SQL_OP_AND, where, extra) : (weir_sql_expr *)where;
    if (extra && !sel->where)
        return NULL;
    memset(q, 0, sizeof *q);
    q->kind = WEIR_SQL_QUERY_SELECT;
    q->loc = loc;
    q->height = from->height + 2;
    q->u.select = sel;
    sub->u.subquery.query = q;
    sub->height = q->height + 1;
    /* COALESCE(count, 0): an uncorrelated count is NULL until its aggregation has a row */
    args[0] = sub;
    if (!(args[1] = ast_literal(pc, WEIR_SQL_LIT_INTEGER, false, "0", loc)))
        return NULL;
    return ast_call(pc, "COALESCE", args, 2, loc);
}

/*
 * The rows a test's subquery q gives, as a FROM, a WHERE and (for IN) the
 * n values compared (y[0..n), one per field of IN's operand): those of a
 * plain SELECT ... FROM ... [WHERE ...] (correlated or not), else of q
 * planned whole as FROM (q) AS $inN($y) (a row's: $inN($y0, $y1, ...)).
 */
static int derived_table(plan_ctx *pc, const weir_sql_query *q, const char *alias, const char *const *cols,
                         uint32_t ncol, bool named, weir_sql_loc loc, const weir_sql_table_ref **from,
                         const weir_sql_expr **y);

static int test_rows(plan_ctx *pc, const weir_sql_expr *e, const weir_sql_query *q, uint32_t n,
                     const weir_sql_table_ref **from, const weir_sql_expr **where, const weir_sql_expr **y)
{
    const weir_sql_select *sel = q->kind == WEIR_SQL_QUERY_SELECT ? q->u.select : NULL;
    bool star = false;
    for (uint32_t i = 0; sel && i < sel->n_items; i++)
        star |= sel->items[i].expr->kind == WEIR_SQL_EXPR_STAR;
    if (n && sel && !star && sel->n_items != n)
        return in_columns_error(pc, q, n, n == 1 ? 0 : sel->n_items);
    if (plain_select(q) && !(star && n)) { /* SELECT * of IN's subquery: planned whole, as a derived table */
        *from = sel->from;
        *where = sel->where;
        for (uint32_t i = 0; i < n; i++)
            y[i] = sel->items[i].expr;
        return 0;
    }
    *where = NULL;
    char nm[32];
    snprintf(nm, sizeof nm, "$in%u", pc->n_test);
    const char **cols = plan_alloc(pc, (n + 1) * sizeof *cols);
    if (!cols)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < n; i++) {
        char c[16];
        snprintf(c, sizeof c, n == 1 ? "$y" : "$y%u", i);
        if (!(cols[i] = plan_strdup(pc, c)))
            return WEIR_ENOMEM;
    }
    return derived_table(pc, q, nm, cols, n, n > 0, e->loc, from, n ? y : NULL);
}

/*
 * FROM (q) AS alias(cols...) (no column aliases unless named): *from; with
 * y, y[i] is alias.cols[i], column i of q (at loc).
 */
static int derived_table(plan_ctx *pc, const weir_sql_query *q, const char *alias, const char *const *cols,
                         uint32_t ncol, bool named, weir_sql_loc loc, const weir_sql_table_ref **from,
                         const weir_sql_expr **y)
{
    weir_sql_table_ref *ref = plan_alloc(pc, sizeof *ref);
    weir_sql_ident *ids = plan_alloc(pc, (ncol + 1) * sizeof *ids);
    if (!ref || !ids)
        return WEIR_ENOMEM;
    memset(ref, 0, sizeof *ref);
    memset(ids, 0, (ncol + 1) * sizeof *ids);
    ids[0].name = plan_strdup(pc, alias);
    for (uint32_t i = 0; i < ncol; i++)
        ids[i + 1].name = cols[i];
    for (uint32_t i = 0; i <= ncol; i++) {
        if (!ids[i].name)
            return WEIR_ENOMEM;
        ids[i].len = (uint32_t)strlen(ids[i].name);
        ids[i].loc = q->loc;
    }
    ref->kind = WEIR_SQL_FROM_SUBQUERY;
    ref->loc = q->loc;
    ref->height = q->height + 1;
    ref->alias = &ids[0];
    if (named) {
        ref->column_aliases = &ids[1];
        ref->n_column_aliases = ncol;
    }
    ref->u.subquery.query = (weir_sql_query *)q;
    *from = ref;
    for (uint32_t i = 0; y && i < ncol; i++) {
        weir_sql_expr *c = ast_node(pc, WEIR_SQL_EXPR_COLUMN, loc);
        weir_sql_ident *parts = plan_alloc(pc, 2 * sizeof *parts);
        if (!c || !parts)
            return WEIR_ENOMEM;
        parts[0] = ids[0];
        parts[1] = ids[i + 1];
        c->u.column = (weir_sql_name){parts, 2, loc};
        y[i] = c;
    }
    return 0;
}

/*
 * The query scalar subquery e runs as. One that aggregates to one row runs
 * as written; any other may give several rows, and runs as Flink plans it:
 * its value through SINGLE_VALUE, whose second row fails the job,
 *   SELECT x FROM t WHERE ...   ->  SELECT SINGLE_VALUE(x) FROM t WHERE ...   (correlated or not)
 *   q (GROUP BY, UNION, ...)    ->  SELECT SINGLE_VALUE($v) FROM (q) AS $svN($v)
 */
static int scalar_query(plan_ctx *pc, const weir_sql_expr *e, const weir_sql_query **out)
{
    const weir_sql_query *q = e->u.subquery.query;
    *out = q;
    if (one_row(q))
        return 0;
    for (uint32_t i = 0; i < pc->n_sv; i++)
        if (pc->sv[i].e == e) {
            *out = pc->sv[i].q;
            return 0;
        }
    weir_sql_select *s2 = plan_alloc(pc, sizeof *s2);
    weir_sql_query *q2 = plan_alloc(pc, sizeof *q2);
    weir_sql_select_item *item = plan_alloc(pc, sizeof *item);
    weir_sql_expr **args = plan_alloc(pc, sizeof *args);
    if (!s2 || !q2 || !item || !args)
        return WEIR_ENOMEM;
    bool in_place = plain_select(q) && !q->u.select->distinct;
    if (in_place) {
        const weir_sql_select *sel = q->u.select;
        if (sel->n_items != 1 || sel->items[0].expr->kind == WEIR_SQL_EXPR_STAR)
            return plan_error(pc, q->loc, WEIR_EPLAN, "a scalar subquery must select exactly one column");
        *s2 = *sel;
        *q2 = *q;
        args[0] = sel->items[0].expr;
    } else {
        char nm[32];
        snprintf(nm, sizeof nm, "$sv%u", pc->n_sv);
        const weir_sql_table_ref *from;
        const weir_sql_expr *v;
        static const char *const col = "$v";
        int rc = derived_table(pc, q, nm, &col, 1, true, e->loc, &from, &v);
        if (rc)
            return rc;
        memset(s2, 0, sizeof *s2);
        memset(q2, 0, sizeof *q2);
        s2->loc = q->loc;
        s2->from = (weir_sql_table_ref *)from;
        q2->kind = WEIR_SQL_QUERY_SELECT;
        q2->loc = q->loc;
        q2->height = from->height + 2;
        args[0] = (weir_sql_expr *)v;
    }
    weir_sql_expr *call = ast_call(pc, "SINGLE_VALUE", args, 1, e->loc);
    if (!call)
        return WEIR_ENOMEM;
    *item = (weir_sql_select_item){call, NULL};
    s2->items = item;
    s2->n_items = 1;
    q2->u.select = s2;
    uint32_t n = pc->n_sv;
    struct plan_single_value *v = plan_alloc(pc, (n + 1) * sizeof *v);
    if (!v)
        return WEIR_ENOMEM;
    if (n)
        memcpy(v, pc->sv, n * sizeof *v);
    v[n] = (struct plan_single_value){e, call, q2};
    pc->sv = v;
    pc->n_sv = n + 1;
    *out = q2;
    return 0;
}

const char *plan_single_value_error(plan_ctx *pc, const weir_sql_expr *call)
{
    char m[200];
    bool sub = false;
    for (uint32_t i = 0; i < pc->n_sv && !sub; i++)
        sub = pc->sv[i].call == call;
    snprintf(m, sizeof m, "%s at line %u, column %u gave more than one row (it must give at most one)",
             sub ? "the scalar subquery" : "SINGLE_VALUE", call->loc.line, call->loc.col);
    return plan_strdup(pc, m);
}

/*
 * An IN / EXISTS test used as a value (under OR, in a SELECT list, in
 * HAVING), rewritten into scalar subqueries, as Flink rewrites such tests
 * into joins with marker columns, exact for NULLs:
 * (each count read as COALESCE(count, 0): an uncorrelated one has no row over no rows)
 *   EXISTS (q)         (SELECT COUNT(*) FROM <q's rows>) > 0
 *   x IN (q)           CASE WHEN (SELECT COUNT(*) FROM <q's rows> WHERE y = x) > 0 THEN TRUE
 *                           WHEN (SELECT COUNT(*) FROM <q's rows>) = 0 THEN FALSE
 *                           WHEN x IS NULL OR (SELECT COUNT(*) FROM <q's rows> WHERE y IS NULL) > 0 THEN NULL
 *                           ELSE FALSE END
 *   (x1, x2) IN (q)    the same with y1 = x1 AND y2 = x2, x1 IS NULL OR x2 IS NULL and
 *                      y1 IS NULL OR y2 IS NULL (Calcite's rewrite, which Flink runs: NULL
 *                      as soon as a field of x or of a row of q is NULL, without a match)
 *   NOT IN, NOT EXISTS the NOT of those
 * (x IN a set without x is NULL when x is NULL or the set has a NULL, and
 * FALSE over no rows). A correlated subquery's condition y = x is a
 * correlation equality: its counts are grouped by y and its correlation
 * keys. A subquery of one aggregate row (SELECT MAX(p) FROM t WHERE ...)
 * gives one row: EXISTS is TRUE, x IN (q) is x = (q).
 */
/* Records that scalar subquery sub (a count of IN's matches) correlates by outer = inner besides its WHERE. */
static int in_pair_add(plan_ctx *pc, const weir_sql_expr *sub, const weir_sql_expr *outer, const weir_sql_expr *inner)
{
    uint32_t n = pc->n_in_pairs;
    const weir_sql_expr **v = plan_alloc(pc, 3 * (n + 1) * sizeof *v);
    if (!v)
        return WEIR_ENOMEM;
    if (n)
        memcpy(v, pc->in_pairs, 3 * n * sizeof *v);
    v[3 * n] = sub;
    v[3 * n + 1] = outer;
    v[3 * n + 2] = inner;
    pc->in_pairs = v;
    pc->n_in_pairs = n + 1;
    return 0;
}

static int test_rewrite(plan_ctx *pc, const weir_sql_expr *e, const weir_sql_expr **out)
{
    for (uint32_t i = 0; i < pc->n_test; i++)
        if (pc->test_e[i] == e) {
            *out = pc->test_as[i];
            return 0;
        }
    bool in = e->kind == WEIR_SQL_EXPR_IN_QUERY;
    const weir_sql_query *q = in ? e->u.in_query.query : e->u.subquery.query;
    const weir_sql_expr *x = in ? e->u.in_query.operand : NULL, *r = NULL;
    /* IN's operand: x, or the fields of a row (x1, x2, ...) */
    bool row = in && weir__sql_is_row_ctor(x);
    const weir_sql_expr *const *xs = row ? (const weir_sql_expr *const *)x->u.call.args : &x;
    uint32_t nx = !in ? 0 : row ? x->u.call.n_args : 1;
    weir_sql_loc loc = e->loc;
    if (!row && one_row(q)) {
        if (!in) {
            r = ast_literal(pc, WEIR_SQL_LIT_BOOLEAN, true, NULL, loc);
        } else {
            weir_sql_expr *v = ast_node(pc, WEIR_SQL_EXPR_SUBQUERY, loc);
            if (v) {
                v->u.subquery.query = (weir_sql_query *)q;
                v->height = q->height + 1;
            }
            r = v ? ast_binary(pc, WEIR_SQL_OP_EQ, x, v) : NULL;
        }
    } else {
        const weir_sql_table_ref *from = NULL;
        const weir_sql_expr *where = NULL;
        const weir_sql_expr **y = nx ? plan_alloc(pc, nx * sizeof *y) : NULL;
        if (nx && !y)
            return WEIR_ENOMEM;
        int rc = test_rows(pc, e, q, nx, &from, &where, y);
        if (rc)
            return rc;
        weir_sql_expr *zero = ast_literal(pc, WEIR_SQL_LIT_INTEGER, false, "0", loc);
        weir_sql_expr *all = ast_count(pc, from, where, NULL, loc);
        if (!zero || !all)
            return WEIR_ENOMEM;
        if (!in) {
            r = ast_binary(pc, WEIR_SQL_OP_GT, all, zero);
        } else {
            /* y = x correlates: x is over the outer query's columns whatever its names (x IN (SELECT x ...));
             * a row's fields each, the match count's key */
            weir_sql_expr *match = ast_count(pc, from, where, NULL, loc);
            const weir_sql_expr *xn = NULL, *yn = NULL;
            for (uint32_t i = 0; match && i < nx; i++) {
                if ((rc = in_pair_add(pc, match->u.call.args[0], xs[i], y[i])))
                    return rc;
                weir_sql_expr *xi = ast_is_null(pc, xs[i]), *yi = ast_is_null(pc, y[i]);
                if (!xi || !yi || !(xn = ast_binary(pc, WEIR_SQL_OP_OR, xn, xi)) ||
                    !(yn = ast_binary(pc, WEIR_SQL_OP_OR, yn, yi)))
                    return WEIR_ENOMEM;
            }
            weir_sql_expr *nulls = yn ? ast_count(pc, from, where, yn, loc) : NULL;
            weir_sql_when *w = plan_alloc(pc, 3 * sizeof *w);
            weir_sql_expr *c = ast_node(pc, WEIR_SQL_EXPR_CASE, loc);
            if (!match || !nulls || !xn || !w || !c)
                return WEIR_ENOMEM;
            w[0].when = ast_binary(pc, WEIR_SQL_OP_GT, match, zero);
            w[0].then = ast_literal(pc, WEIR_SQL_LIT_BOOLEAN, true, NULL, loc);
            w[1].when = ast_binary(pc, WEIR_SQL_OP_EQ, all, zero);
            w[1].then = ast_literal(pc, WEIR_SQL_LIT_BOOLEAN, false, NULL, loc);
            w[2].when = ast_binary(pc, WEIR_SQL_OP_OR, xn, ast_binary(pc, WEIR_SQL_OP_GT, nulls, zero));
            w[2].then = ast_literal(pc, WEIR_SQL_LIT_NULL, false, NULL, loc);
            for (int i = 0; i < 3; i++)
                if (!w[i].when || !w[i].then)
                    return WEIR_ENOMEM;
            c->u.case_.whens = w;
            c->u.case_.n_whens = 3;
            c->u.case_.else_ = ast_literal(pc, WEIR_SQL_LIT_BOOLEAN, false, NULL, loc);
            c->height = 0;
            for (int i = 0; i < 3; i++)
                if (w[i].when->height >= c->height)
                    c->height = w[i].when->height + 1;
            r = c->u.case_.else_ ? c : NULL;
        }
    }
    if (r && (in ? e->u.in_query.negated : false))
        r = ast_unary(pc, WEIR_SQL_OP_NOT, r);
    if (!r)
        return WEIR_ENOMEM;
    uint32_t n = pc->n_test;
    const weir_sql_expr **te = plan_alloc(pc, (n + 1) * sizeof *te), **ta = plan_alloc(pc, (n + 1) * sizeof *ta);
    if (!te || !ta)
        return WEIR_ENOMEM;
    if (n) {
        memcpy(te, pc->test_e, n * sizeof *te);
        memcpy(ta, pc->test_as, n * sizeof *ta);
    }
    te[n] = e;
    ta[n] = r;
    pc->test_e = te;
    pc->test_as = ta;
    pc->n_test = n + 1;
    *out = r;
    return 0;
}

int plan_bind_test(plan_ctx *pc, const rel *r, agg_scope *as, const weir_sql_expr *e, weir_expr **out)
{
    for (uint32_t i = 0; i < pc->n_test; i++)
        if (pc->test_e[i] == e)
            return plan_bind_expr(pc, r, as, pc->test_as[i], out);
    return 1;
}

static int join_scalars(plan_ctx *pc, rel *in, const scalar_walk *w);
static int scalar_query(plan_ctx *pc, const weir_sql_expr *e, const weir_sql_query **out);

/* The scalar subqueries (and IN / EXISTS tests) of exprs, joined to *in; those of sel's GROUP BY
 * expressions are not searched when skip_keys. */
static int plan_subquery_values(plan_ctx *pc, rel *in, const weir_sql_expr *const *exprs, uint32_t n,
                                weir_sql_loc loc, const weir_sql_select *sel, bool skip_keys)
{
    scalar_walk w = {.pc = pc, .n = 0};
    int rc = 0;
    if (skip_keys && sel->n_group_by) {
        if (!(w.skip = plan_alloc(pc, sel->n_group_by * sizeof *w.skip)))
            return WEIR_ENOMEM;
        for (uint32_t i = 0; i < sel->n_group_by; i++)
            if (!(w.skip[w.n_skip++] = expr_text(pc, sel->group_by[i])))
                return WEIR_ENOMEM;
    }
    for (uint32_t i = 0; !rc && i < n; i++)
        if (exprs[i] && exprs[i]->kind != WEIR_SQL_EXPR_STAR)
            rc = collect_scalar(exprs[i], &w);
    if (rc == WEIR_EUNSUPPORTED && w.n == MAX_SCALAR)
        return plan_error(pc, loc, WEIR_EUNSUPPORTED, "more than %d scalar subqueries in one SELECT", MAX_SCALAR);
    if (rc || !w.n)
        return rc;
    return join_scalars(pc, in, &w);
}

int plan_scalar_subqueries(plan_ctx *pc, rel *in, const weir_sql_select *sel, const weir_sql_expr *where,
                           bool aggregating)
{
    const weir_sql_expr **v = plan_alloc(pc, (sel->n_items + sel->n_group_by + 1) * sizeof *v);
    if (!v)
        return WEIR_ENOMEM;
    uint32_t n = 0;
    v[n++] = where;
    for (uint32_t i = 0; !aggregating && i < sel->n_items; i++)
        v[n++] = sel->items[i].expr;
    /* GROUP BY expressions are computed over the input rows: their subqueries joined to them */
    for (uint32_t i = 0; aggregating && i < sel->n_group_by; i++)
        v[n++] = sel->group_by[i];
    return plan_subquery_values(pc, in, v, n, sel->loc, sel, false);
}

int plan_scalar_subqueries_agg(plan_ctx *pc, rel *agg, const weir_sql_select *sel, const rel *in,
                               const agg_scope *as)
{
    const weir_sql_expr **v = plan_alloc(pc, (sel->n_items + 1) * sizeof *v);
    char **quals = plan_alloc(pc, (agg->schema->n_fields + 1) * sizeof *quals);
    if (!v || !quals)
        return WEIR_ENOMEM;
    /* A correlated subquery names the outer query's columns among its group keys (the first columns),
     * qualified as in the aggregation's input (o.k). */
    for (uint32_t c = 0; c < agg->schema->n_fields; c++) {
        int32_t ic = as && as->in == in && c < as->n_keys ? as->key_in_col[c] : -1;
        quals[c] = ic >= 0 && in->quals ? in->quals[ic] : agg->quals ? agg->quals[c] : NULL;
    }
    agg->quals = quals;
    uint32_t n = 0;
    v[n++] = sel->having;
    for (uint32_t i = 0; i < sel->n_items; i++)
        v[n++] = sel->items[i].expr;
    pc->agg_values = true;
    pc->agg_values_as = as;
    int rc = plan_subquery_values(pc, agg, v, n, sel->loc, sel, true);
    pc->agg_values = false;
    pc->agg_values_as = NULL;
    return rc;
}

/*
 * IN's x over an aggregating query's groups that reads its aggregates
 * (COUNT(*) IN (SELECT ...), in its SELECT list or HAVING): computed over
 * the aggregation's rows as a column of *in ($scalarNxI, I its key's
 * index: a row's fields are several), which the count
 * of IN's matches is correlated with (*x becomes a reference to it).
 */
static int agg_operand(plan_ctx *pc, rel *in, uint32_t id, uint32_t i, const weir_sql_expr **x)
{
    uint32_t n = in->n_physical;
    weir_expr **exprs = plan_alloc(pc, (n + 1) * sizeof *exprs);
    const char **names = plan_alloc(pc, (n + 1) * sizeof *names);
    char **quals = plan_alloc(pc, (n + 2) * sizeof *quals);
    char *nm = scalar_name(pc, id, 'x', i);
    if (!exprs || !names || !quals || !nm)
        return WEIR_ENOMEM;
    for (uint32_t c = 0; c < n; c++) {
        weir_error err = {0};
        if (weir_expr_column(pc->arena, c, in->schema->fields[c].type, &exprs[c], &err))
            return WEIR_ENOMEM;
        names[c] = in->schema->fields[c].name;
        quals[c] = in->quals ? in->quals[c] : NULL;
    }
    quals[n] = NULL;
    int rc = plan_bind_expr(pc, in, (agg_scope *)pc->agg_values_as, *x, &exprs[n]);
    if (rc)
        return rc;
    names[n] = nm;
    rel o;
    if ((rc = plan_calc(pc, in, NULL, exprs, names, n + 1, &o, "Calc")))
        return rc;
    o.quals = quals;
    o.hidden = in->hidden;
    o.n_hidden = in->n_hidden;
    *in = o;
    const weir_sql_expr *c = ast_column(pc, nm, (*x)->loc);
    if (!c)
        return WEIR_ENOMEM;
    *x = c;
    return 0;
}

/*
 * Plans q2 (a rewrite of subquery q) over q's FROM, planned before (from):
 * q2's FROM becomes a wrapper item that plan_from hands from out for.
 */
static int plan_over_from(plan_ctx *pc, const weir_sql_query *q, weir_sql_query *q2, const rel *from, rel *out)
{
    const weir_sql_table_ref *qf = q->u.select->from;
    weir_sql_table_ref *wrap = plan_alloc(pc, sizeof *wrap);
    if (!wrap)
        return WEIR_ENOMEM;
    memset(wrap, 0, sizeof *wrap);
    wrap->kind = WEIR_SQL_FROM_SUBQUERY;
    wrap->loc = qf->loc;
    wrap->height = qf->height + 1;
    wrap->u.subquery.query = (weir_sql_query *)q;
    q2->u.select->from = wrap;
    return plan_query_over(pc, wrap, from, q2, out);
}

/* ---- correlated subqueries that group, filter groups or combine sets: over the outer values */

/*
 * The outer values a subquery q reads (a query with GROUP BY, HAVING,
 * UNION, INTERSECT or EXCEPT, or a derived table), as Calcite's
 * decorrelation plans it: the outer columns (rows in) that q names
 * anywhere, each once (cols), and their distinct values,
 *   D = SELECT DISTINCT o.k, ... FROM <in's rows>
 * pushed into q: each SELECT of it reads D joined to its FROM, and selects
 * (and groups by) D's columns first, as $scalarIdK; a set operation takes
 * them from each of its inputs. q's rows for one outer value are then its
 * rows with that value in D's columns, which the outer rows meet on
 * o.k IS NOT DISTINCT FROM $scalarIdK.
 */
typedef struct domain {
    const rel *in;
    const weir_sql_expr *cols[MAX_NESTED_COLS];
    uint32_t n;
    uint32_t id; /* the names of its columns in q's rows */
    rel d;
} domain;

/* The outer columns q names (dm->cols: none when it is not correlated), and D planned over them. */
static int outer_domain(plan_ctx *pc, const rel *in, const weir_sql_query *q, domain *dm)
{
    memset(dm, 0, sizeof *dm);
    dm->in = in;
    nested_walk w;
    memset(&w, 0, sizeof w);
    w.pc = pc;
    w.in = in;
    w.depth = 1; /* q's own columns are then two levels from a level of no FROM: those nested_walk collects */
    walk_nested_query(&w, q);
    if (w.rc)
        return w.rc;
    if (w.full)
        return plan_error(pc, q->loc, WEIR_EUNSUPPORTED,
                          "a correlated subquery naming more than %d columns or FROM items of the queries around "
                          "it is not supported",
                          MAX_NESTED_COLS);
    char *text[MAX_NESTED_COLS];
    for (uint32_t i = 0; i < w.n; i++) {
        char *t = expr_text(pc, w.cols[i]);
        if (!t)
            return WEIR_ENOMEM;
        bool seen = false;
        for (uint32_t k = 0; k < dm->n && !seen; k++)
            seen = !strcasecmp(text[k], t);
        if (seen)
            continue;
        text[dm->n] = t;
        dm->cols[dm->n++] = w.cols[i];
    }
    if (!dm->n)
        return 0;
    if (dm->n > WEIR_KEY_MAX_COLS)
        return plan_error(pc, q->loc, WEIR_EUNSUPPORTED,
                          "more than %d columns of the outer query in one correlated subquery", WEIR_KEY_MAX_COLS);
    int rc = reserve_id(pc, q, &dm->id);
    weir_sql_select_item *items = plan_alloc(pc, dm->n * sizeof *items);
    weir_sql_ident *alias = plan_alloc(pc, dm->n * sizeof *alias);
    if (rc || !items || !alias)
        return rc ? rc : WEIR_ENOMEM;
    memset(alias, 0, dm->n * sizeof *alias);
    for (uint32_t i = 0; i < dm->n; i++) {
        const weir_sql_name *nm = &dm->cols[i]->u.column;
        alias[i].name = nm->parts[nm->n_parts - 1].name;
        alias[i].len = (uint32_t)strlen(alias[i].name);
        alias[i].loc = dm->cols[i]->loc;
        items[i] = (weir_sql_select_item){(weir_sql_expr *)dm->cols[i], &alias[i]};
    }
    return plan_outer_domain(pc, q, q->loc, in, items, dm->n, dm->cols, dm->n, &dm->d);
}

/* The form of q that D cannot be pushed into, or NULL. */
static const char *domain_refused(const weir_sql_query *q)
{
    if (q->n_order_by || q->limit || q->offset)
        return q->n_order_by ? "ORDER BY" : q->limit ? "LIMIT" : "OFFSET";
    if (q->n_with)
        return "WITH";
    if (q->kind == WEIR_SQL_QUERY_SETOP)
        return NULL;
    if (q->kind != WEIR_SQL_QUERY_SELECT)
        return "VALUES";
    const weir_sql_select *sel = q->u.select;
    if (!sel->from)
        return "a SELECT without FROM";
    if (sel->n_windows || plan_select_has_over(sel))
        return "OVER";
    bool agg = sel->having != NULL;
    for (uint32_t i = 0; i < sel->n_items && !agg; i++)
        agg = sel->items[i].expr->kind != WEIR_SQL_EXPR_STAR && plan_has_agg(sel->items[i].expr);
    /* one row over no rows, which grouping by D's columns would not give */
    if (agg && !sel->n_group_by)
        return sel->having ? "HAVING without GROUP BY" : "aggregates without GROUP BY";
    return NULL;
}

/* q's rows for each of D's values (dm): D's columns first ($scalarIdK), then q's. */
static int push_domain(plan_ctx *pc, const domain *dm, const weir_sql_query *q, rel *out)
{
    const char *form = domain_refused(q);
    if (form)
        return plan_error(pc, q->loc, WEIR_EUNSUPPORTED,
                          "a subquery with %s that reads the columns of the query around it is not supported (a "
                          "correlated subquery may be a SELECT ... FROM with GROUP BY, HAVING, DISTINCT, or a "
                          "UNION, INTERSECT or EXCEPT of those)",
                          form);
    int rc;
    if (q->kind == WEIR_SQL_QUERY_SETOP) {
        rel l, r;
        if ((rc = push_domain(pc, dm, q->u.setop.left, &l)) || (rc = push_domain(pc, dm, q->u.setop.right, &r)))
            return rc;
        return plan_setop_rels(pc, q, &l, &r, out);
    }
    const weir_sql_select *sel = q->u.select;
    rel f;
    correlation co;
    if ((rc = plan_from(pc, sel->from, &f)) || (rc = correlate(pc, dm->in, &f, sel->where, &co)))
        return rc;
    /* its conditions join D with its FROM (o.k = t.k: on the key), but those with subqueries, which stay in
     * its WHERE over the join: there they read D's columns as their outer query's */
    const weir_sql_expr *on = NULL, *where = NULL;
    for (uint32_t i = 0; i < co.n_corr + co.n_local; i++) {
        const weir_sql_expr *c = i < co.n_corr ? co.corr[i] : co.local[i - co.n_corr];
        const weir_sql_expr **to = find_subquery(c, NULL) == 1 ? &where : &on;
        if (!(*to = ast_binary(pc, WEIR_SQL_OP_AND, *to, c)))
            return WEIR_ENOMEM;
    }
    if (!on && !(on = ast_literal(pc, WEIR_SQL_LIT_BOOLEAN, true, NULL, q->loc)))
        return WEIR_ENOMEM;
    rel j;
    if ((rc = plan_scoped_join(pc, &dm->d, &f, on, q->loc, &j)))
        return rc;
    /* SELECT D's columns, its items (* is its FROM's columns, not D's) [GROUP BY D's columns, its keys] */
    uint32_t ni = dm->n;
    for (uint32_t i = 0; i < sel->n_items; i++)
        ni += sel->items[i].expr->kind == WEIR_SQL_EXPR_STAR && !sel->items[i].expr->u.star.qualifier.n_parts
                  ? f.n_physical
                  : 1;
    weir_sql_select *s2 = plan_alloc(pc, sizeof *s2);
    weir_sql_query *q2 = plan_alloc(pc, sizeof *q2);
    weir_sql_select_item *items = plan_alloc(pc, ni * sizeof *items);
    weir_sql_ident *alias = plan_alloc(pc, dm->n * sizeof *alias);
    weir_sql_expr **group = plan_alloc(pc, (dm->n + sel->n_group_by) * sizeof *group);
    if (!s2 || !q2 || !items || !alias || !group)
        return WEIR_ENOMEM;
    memset(alias, 0, dm->n * sizeof *alias);
    uint32_t k = 0;
    for (; k < dm->n; k++) {
        if (!(alias[k].name = scalar_name(pc, dm->id, 'd', k)))
            return WEIR_ENOMEM;
        alias[k].len = (uint32_t)strlen(alias[k].name);
        alias[k].loc = q->loc;
        items[k] = (weir_sql_select_item){(weir_sql_expr *)dm->cols[k], &alias[k]};
        group[k] = (weir_sql_expr *)dm->cols[k];
    }
    for (uint32_t i = 0; i < sel->n_items; i++) {
        const weir_sql_expr *x = sel->items[i].expr;
        if (x->kind != WEIR_SQL_EXPR_STAR || x->u.star.qualifier.n_parts) {
            items[k++] = sel->items[i];
            continue;
        }
        for (uint32_t c = 0; c < f.n_physical; c++) {
            const char *cn = f.schema->fields[c].name;
            if (plan_col_hidden(&f, c) || plan_is_scalar_column(cn))
                continue;
            weir_sql_expr *col = ast_column(pc, cn, x->loc);
            const char *qual = f.quals ? f.quals[c] : NULL;
            if (!col || (qual && !(col = (weir_sql_expr *)qualified(pc, col, qual))))
                return WEIR_ENOMEM;
            items[k++] = (weir_sql_select_item){col, NULL};
        }
    }
    for (uint32_t i = 0; i < sel->n_group_by; i++)
        group[dm->n + i] = sel->group_by[i];
    *s2 = *sel;
    *q2 = *q;
    s2->items = items;
    s2->n_items = k;
    s2->where = (weir_sql_expr *)where;
    if (sel->n_group_by) {
        s2->group_by = group;
        s2->n_group_by = dm->n + sel->n_group_by;
    }
    q2->u.select = s2;
    return plan_over_from(pc, q, q2, &j, out);
}

/* The conditions that meet the outer rows with q's rows over D (dm): o.k IS NOT DISTINCT FROM $scalarIdK, ... */
static int domain_keys(plan_ctx *pc, const domain *dm, weir_sql_loc loc, const weir_sql_expr **cond)
{
    *cond = NULL;
    for (uint32_t k = 0; k < dm->n; k++) {
        const char *nm = scalar_name(pc, dm->id, 'd', k);
        const weir_sql_expr *c = nm ? ast_column(pc, nm, loc) : NULL, *m = c ? ast_not_distinct(pc, dm->cols[k], c) : NULL;
        if (!m || !(*cond = ast_binary(pc, WEIR_SQL_OP_AND, *cond, m)))
            return WEIR_ENOMEM;
    }
    return 0;
}

/*
 * IN / EXISTS in WHERE whose subquery q groups or combines sets and reads
 * the outer rows: the outer rows semi- (anti-) joined with q's rows over D
 * on the outer values (and x = y for IN). *planned: whether q reads them.
 */
static int plan_domain_semi(plan_ctx *pc, rel *in, const weir_sql_expr *e, const weir_sql_query *q,
                            weir_join_type type, const weir_sql_expr *const *ops, const weir_sql_expr **items,
                            uint32_t n, bool not_in, bool *planned)
{
    rel right;
    const weir_sql_expr *cond;
    join_conds *conds = NULL;
    domain dom, *dm = &dom;
    int rc;
    *planned = false;
    if ((rc = outer_domain(pc, in, q, dm)) || !dm->n)
        return rc;
    *planned = true;
    if ((rc = push_domain(pc, dm, q, &right)))
        return rc;
    if (n && right.n_physical - dm->n != n)
        return in_columns_error(pc, q, n, right.n_physical - dm->n);
    for (uint32_t i = 0; i < n; i++)
        if ((rc = column_ref(pc, &right, dm->n + i, q->loc, &items[i])))
            return rc;
    if ((rc = domain_keys(pc, dm, e->loc, &cond)) || (rc = plan_join_conds_make(pc, cond, &conds)))
        return rc;
    rel out;
    if ((rc = plan_semi_join(pc, type == WEIR_JOIN_ANTI, in, &right, conds, ops, items, n, not_in, e->loc, &out)))
        return rc;
    *in = out;
    return 0;
}

/*
 * A scalar subquery's FROM that is a derived table reading the outer rows
 * (dm): its rows over D, under its alias, D's columns first (named as
 * its columns are not: $scalarIdK).
 */
static int domain_derived(plan_ctx *pc, const domain *dm, const weir_sql_table_ref *ref, rel *out)
{
    int rc = push_domain(pc, dm, ref->u.subquery.query, out);
    if (rc)
        return rc;
    weir_sql_table_ref r2 = *ref;
    if (ref->n_column_aliases) {
        weir_sql_ident *ids = plan_alloc(pc, (dm->n + ref->n_column_aliases) * sizeof *ids);
        if (!ids)
            return WEIR_ENOMEM;
        memset(ids, 0, dm->n * sizeof *ids);
        for (uint32_t k = 0; k < dm->n; k++) {
            if (!(ids[k].name = scalar_name(pc, dm->id, 'd', k)))
                return WEIR_ENOMEM;
            ids[k].len = (uint32_t)strlen(ids[k].name);
            ids[k].loc = ref->loc;
        }
        memcpy(ids + dm->n, ref->column_aliases, ref->n_column_aliases * sizeof *ids);
        r2.column_aliases = ids;
        r2.n_column_aliases = dm->n + ref->n_column_aliases;
    }
    return plan_set_alias(pc, out, &r2);
}

/* Records scalar subquery e (next id) as joined at column col, its aggregates' scope as (NULL: one column). */
static int scalar_register(plan_ctx *pc, const weir_sql_expr *e, uint32_t col, agg_scope *as)
{
    uint32_t id = pc->n_scalar;
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
    ne[id] = e;
    nc[id] = col;
    na[id] = as;
    pc->scalar_e = ne;
    pc->scalar_col = nc;
    pc->scalar_as = na;
    pc->n_scalar = id + 1;
    return 0;
}

/* Joins the scalar subqueries w found to *in, each as hidden columns. */
static int join_scalars(plan_ctx *pc, rel *in, const scalar_walk *w)
{
    int rc;
    if (in->win.present &&
        (rc = plan_window_assign(pc, in, "a scalar subquery's join")))
        return rc;
    for (uint32_t i = 0; i < w->n; i++) {
        const weir_sql_expr *e = w->found[i];
        const weir_sql_query *q;
        if ((rc = scalar_query(pc, e, &q)))
            return rc;
        /*
         * Its FROM, planned once here: whether its WHERE names the outer
         * query's columns decides how it runs. The subquery is then planned
         * over that FROM (plan_from hands it out for the wrapper item).
         */
        const weir_sql_select *ssel = q->u.select;
        const weir_sql_table_ref *sf = ssel->from;
        rel from;
        correlation co;
        nested_walk nw;
        /* a derived table in its FROM that reads the outer rows (a query that groups or combines sets,
         * through SINGLE_VALUE or a test's counts): its rows over their values, keyed by them */
        domain dm = {.n = 0};
        if (sf && sf->kind == WEIR_SQL_FROM_SUBQUERY && !sf->u.subquery.lateral &&
            (rc = outer_domain(pc, in, sf->u.subquery.query, &dm)))
            return rc;
        if ((rc = dm.n ? domain_derived(pc, &dm, sf, &from) : plan_from(pc, sf, &from)) ||
            (rc = correlate(pc, in, &from, ssel->where, &co)) ||
            (rc = outer_aggregates(pc, in, &from, ssel, NULL, &co)) ||
            (rc = nested_outer(pc, in, ssel, ssel->where, &nw)) || (rc = vals_add(pc, &co, nw.cols, nw.n)))
            return rc;
        if (dm.n && co.general)
            return plan_error(pc, e->loc, WEIR_EUNSUPPORTED,
                              "a scalar subquery over a derived table that reads the columns of the query around it "
                              "is supported correlated in its own WHERE by equalities only (t.k = o.k)");
        for (uint32_t k = 0; k < dm.n; k++) {
            if (co.n_keys == WEIR_KEY_MAX_COLS)
                return plan_error(pc, e->loc, WEIR_EUNSUPPORTED,
                                  "more than %d columns of the outer query in one correlated subquery",
                                  WEIR_KEY_MAX_COLS);
            const char *nm = scalar_name(pc, dm.id, 'd', k);
            if (!nm || !(co.inner[co.n_keys] = ast_column(pc, nm, e->loc)))
                return WEIR_ENOMEM;
            co.outer[co.n_keys] = dm.cols[k];
            co.not_distinct[co.n_keys++] = true;
        }
        /* its id (the names of its hidden columns), taken before the subqueries inside it take theirs */
        uint32_t id = pc->n_scalar;
        if ((rc = scalar_register(pc, e, 0, NULL)))
            return rc;
        uint32_t n_eq = co.n_keys;
        for (uint32_t p = 0; p < pc->n_in_pairs; p++) {
            if (pc->in_pairs[3 * p] != e)
                continue;
            if (co.n_keys == WEIR_KEY_MAX_COLS)
                return plan_error(pc, e->loc, WEIR_EUNSUPPORTED, "more than %d correlation equalities in one subquery",
                                  WEIR_KEY_MAX_COLS - 1);
            co.outer[co.n_keys] = pc->in_pairs[3 * p + 1];
            co.inner[co.n_keys] = pc->in_pairs[3 * p + 2];
            if (pc->agg_values_as && plan_has_agg(co.outer[co.n_keys]) &&
                (rc = agg_operand(pc, in, id, co.n_keys, &co.outer[co.n_keys])))
                return rc;
            co.n_keys++;
        }
        if (co.general && (rc = outer_values(pc, e, q, id, in, &from, &co, n_eq)))
            return rc;
        weir_sql_query *q2 = NULL;
        const weir_sql_expr *on = NULL;
        agg_scope *as = NULL;
        if (co.n_keys) {
            if (!(as = plan_alloc(pc, sizeof *as)))
                return WEIR_ENOMEM;
            if ((rc = decorrelated(pc, e, q, id, &co, &q2, &on, as)))
                return rc;
        } else {
            weir_sql_select *s2 = plan_alloc(pc, sizeof *s2);
            if (!(q2 = plan_alloc(pc, sizeof *q2)) || !s2)
                return WEIR_ENOMEM;
            *s2 = *ssel;
            *q2 = *q;
            q2->u.select = s2;
        }
        rel sq;
        rc = plan_two_levels(pc, in, q, plan_over_from(pc, q, q2, &from, &sq));
        if (rc == WEIR_ENOTFOUND && pc->agg_values) {
            size_t l = strlen(pc->err->message);
            snprintf(pc->err->message + l, sizeof pc->err->message - l,
                     " (a subquery in the SELECT list or HAVING of an aggregating query can name only the outer "
                     "query's GROUP BY columns)");
        }
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
        if (as)
            for (uint32_t c = 0; c < as->n_calls; c++)
                as->calls[c].out_col = col + co.n_keys + c;
        pc->scalar_col[id] = col;
        pc->scalar_as[id] = as;
        *in = j;
    }
    return 0;
}

/* The column of r named nm (a scalar subquery's hidden one, wherever r carries it), or -1. */
static int32_t named_col(const rel *r, const char *nm)
{
    for (uint32_t c = 0; c < r->schema->n_fields; c++)
        if (!strcmp(r->schema->fields[c].name, nm))
            return (int32_t)c;
    return -1;
}

int plan_bind_scalar(plan_ctx *pc, const rel *r, const weir_sql_expr *e, weir_expr **out)
{
    for (uint32_t i = pc->n_scalar; i-- > 0;) {
        if (pc->scalar_e[i] != e)
            continue;
        const agg_scope *sas = pc->scalar_as[i];
        weir_error err = {0};
        if (!sas) {
            char nm[32];
            snprintf(nm, sizeof nm, "$scalar%u", i);
            int32_t c = named_col(r, nm);
            if (c < 0)
                return 1; /* joined to another query's rows */
            int rc = weir_expr_column(pc->arena, (uint32_t)c, r->schema->fields[c].type, out, &err);
            return rc && rc != WEIR_ENOMEM ? plan_error(pc, e->loc, rc, "%s", err.message) : rc;
        }
        /* correlated: its item over the aggregates joined to r's rows (a semi join's conditions see them
         * after the outer query's columns) */
        agg_call *calls = plan_alloc(pc, sas->n_calls * sizeof *calls);
        if (!calls)
            return WEIR_ENOMEM;
        for (uint32_t k = 0; k < sas->n_calls; k++) {
            char nm[48];
            snprintf(nm, sizeof nm, "$scalar%ua%u", i, k);
            int32_t oc = named_col(r, nm);
            if (oc < 0)
                return 1;
            calls[k] = sas->calls[k];
            calls[k].out_col = (uint32_t)oc;
        }
        agg_scope as = *sas;
        as.calls = calls;
        as.in = r;
        as.out = r;
        const weir_sql_query *q;
        int rc = scalar_query(pc, e, &q);
        return rc ? rc : plan_bind_expr(pc, r, &as, q->u.select->items[0].expr, out);
    }
    return 1;
}

/* ------------------------------------------------------------ ON */

static int find_subquery(const weir_sql_expr *e, void *ud)
{
    (void)ud;
    if (e->kind == WEIR_SQL_EXPR_SUBQUERY || e->kind == WEIR_SQL_EXPR_EXISTS || e->kind == WEIR_SQL_EXPR_IN_QUERY)
        return 1;
    return weir__sql_expr_each_child(e, find_subquery, NULL);
}

int plan_on_subqueries(plan_ctx *pc, const weir_sql_select *sel, weir_sql_select *copy, bool *moved)
{
    *moved = false;
    const weir_sql_table_ref *fr = sel->from;
    if (!fr || fr->kind != WEIR_SQL_FROM_JOIN || fr->u.join.kind != WEIR_SQL_JOIN_INNER || !fr->u.join.on ||
        find_subquery(fr->u.join.on, NULL) != 1)
        return 0;
    /*
     * An inner join's ON conjuncts are conditions on its pairs as WHERE's
     * are: those with subqueries move to the SELECT's WHERE (semi / anti
     * joins or joined values there), the others stay the join's.
     */
    uint32_t cap = plan_count_and(fr->u.join.on), n = 0;
    const weir_sql_expr **conj = plan_alloc(pc, cap * sizeof *conj);
    weir_sql_table_ref *j = plan_alloc(pc, sizeof *j);
    if (!conj || !j)
        return WEIR_ENOMEM;
    plan_split_and(fr->u.join.on, conj, &n, cap);
    const weir_sql_expr *on = NULL, *where = NULL;
    for (uint32_t i = 0; i < n; i++) {
        const weir_sql_expr **to = find_subquery(conj[i], NULL) == 1 ? &where : &on;
        if (!(*to = ast_binary(pc, WEIR_SQL_OP_AND, *to, conj[i])))
            return WEIR_ENOMEM;
    }
    if (!on && !(on = ast_literal(pc, WEIR_SQL_LIT_BOOLEAN, true, NULL, fr->u.join.on->loc)))
        return WEIR_ENOMEM;
    if (sel->where && !(where = ast_binary(pc, WEIR_SQL_OP_AND, sel->where, where)))
        return WEIR_ENOMEM;
    *j = *fr;
    j->u.join.on = (weir_sql_expr *)on;
    *copy = *sel;
    copy->from = j;
    copy->where = (weir_sql_expr *)where;
    *moved = true;
    return 0;
}

/* ------------------------------------------------------------ LATERAL */

/*
 * A LATERAL derived table of aggregates without GROUP BY (lateral.c): one
 * row per outer row, as a correlated scalar subquery of all its items is
 * decorrelated (join_scalars): its aggregates grouped by the correlation
 * key (or over the outer values its other conditions name), LEFT-joined to
 * the outer rows, each item computed over the joined row, where an outer
 * row without inner rows sees the aggregates of no rows.
 */
int plan_lateral_aggregates(plan_ctx *pc, rel *in, const weir_sql_query *q, const rel *from_planned, weir_expr **items)
{
    const weir_sql_select *sel = q->u.select;
    weir_sql_expr *e = ast_node(pc, WEIR_SQL_EXPR_SUBQUERY, q->loc);
    if (!e)
        return WEIR_ENOMEM;
    e->u.subquery.query = (weir_sql_query *)q;
    rel from = *from_planned;
    correlation co;
    nested_walk nw;
    uint32_t id = pc->n_scalar; /* taken before the subqueries inside it take theirs */
    int rc = correlate(pc, in, &from, sel->where, &co);
    if (rc || (rc = outer_aggregates(pc, in, &from, sel, NULL, &co)) ||
        (rc = nested_outer(pc, in, sel, sel->where, &nw)) || (rc = vals_add(pc, &co, nw.cols, nw.n)) ||
        (rc = scalar_register(pc, e, 0, NULL)) ||
        (co.general && (rc = outer_values(pc, e, q, id, in, &from, &co, co.n_keys))))
        return rc;
    weir_sql_query *q2 = NULL;
    const weir_sql_expr *on = NULL;
    agg_scope *as = plan_alloc(pc, sizeof *as);
    if (!as)
        return WEIR_ENOMEM;
    rel sq;
    if ((rc = decorrelated(pc, e, q, id, &co, &q2, &on, as)) || (rc = plan_over_from(pc, q, q2, &from, &sq)))
        return rc;
    rel j;
    uint32_t col = in->n_physical;
    if ((rc = plan_scalar_join(pc, in, &sq, on, e->loc, &j)))
        return rc;
    for (uint32_t c = 0; c < as->n_calls; c++)
        as->calls[c].out_col = col + co.n_keys + c;
    /* registered as a scalar subquery's (its hidden columns' names are taken) */
    pc->scalar_col[id] = col;
    pc->scalar_as[id] = as;
    agg_scope bas = *as;
    bas.in = &j;
    bas.out = &j;
    bas.n_outer = col; /* the rows' own columns, outside the aggregates (lateral.c refuses them inside) */
    bas.inner = from_planned;
    for (uint32_t i = 0; i < sel->n_items; i++)
        if ((rc = plan_bind_expr(pc, &j, &bas, sel->items[i].expr, &items[i])))
            return rc;
    *in = j;
    return 0;
}

const weir_sql_expr *plan_and(plan_ctx *pc, const weir_sql_expr *l, const weir_sql_expr *r)
{
    return ast_binary(pc, WEIR_SQL_OP_AND, l, r);
}

/* cond over the rows of *j: semi / anti joins, then the rest (its scalar subqueries joined) as a filter. */
static int filter_by(plan_ctx *pc, rel *j, const weir_sql_select *sel, const weir_sql_expr *cond)
{
    const weir_sql_expr *w = cond;
    int rc = plan_where_subqueries(pc, j, w, &w);
    if (rc || !w)
        return rc;
    weir_expr *f;
    rel fr;
    if ((rc = plan_subquery_values(pc, j, &w, 1, sel->loc, sel, false)) || (rc = plan_bind_expr(pc, j, NULL, w, &f)))
        return rc;
    weir_type t = weir_expr_type(f);
    if (t.id != WEIR_TYPE_BOOLEAN && t.id != WEIR_TYPE_NULL)
        return plan_error(pc, w->loc, WEIR_EPLAN, "WHERE must be BOOLEAN, not %s", weir_type_name(t.id));
    if ((rc = plan_calc(pc, j, f, NULL, NULL, 0, &fr, "Calc")))
        return rc;
    fr.quals = j->quals;
    fr.hidden = j->hidden;
    fr.n_hidden = j->n_hidden;
    fr.outer_cols = j->outer_cols;
    fr.scope = j->scope;
    fr.n_scope = j->n_scope;
    *j = fr;
    return 0;
}

int plan_lateral_filter(plan_ctx *pc, rel *j, const weir_sql_select *sel, const weir_sql_expr *cond)
{
    uint32_t oc = j->outer_cols, ns = j->n_scope;
    const uint8_t *sc = j->scope;
    int rc = filter_by(pc, j, sel, cond);
    j->outer_cols = oc; /* names still resolve in the derived table's FROM first */
    j->scope = sc;
    j->n_scope = ns;
    return rc;
}

/* ------------------------------------------------------------ an outer join's ON */

/* The sides of the pair rel p (n_left columns first) that e reads outside its subqueries (IN's operand
 * included): PLAN_SIDE_* bits. */
typedef struct free_walk {
    const rel *p;
    uint32_t nl;
    int mask;
} free_walk;

static int free_side(const weir_sql_expr *e, void *ud)
{
    free_walk *w = ud;
    if (e->kind == WEIR_SQL_EXPR_SUBQUERY || e->kind == WEIR_SQL_EXPR_EXISTS)
        return 0;
    if (e->kind == WEIR_SQL_EXPR_IN_QUERY)
        return free_side(e->u.in_query.operand, ud);
    if (e->kind == WEIR_SQL_EXPR_COLUMN) {
        w->mask |= plan_side_mask(w->p, w->nl, e);
        return 0;
    }
    return weir__sql_expr_each_child(e, free_side, ud);
}

int plan_outer_on_subqueries(plan_ctx *pc, const weir_sql_table_ref *ref, rel *left, rel *right, bool inner_right,
                             const weir_sql_table_ref **out)
{
    *out = ref;
    const weir_sql_expr *on = ref->u.join.on;
    if (!on || find_subquery(on, NULL) != 1)
        return 0;
    /*
     * A conjunct of a LEFT join's ON that reads the right side alone (and a
     * RIGHT join's that reads the left) decides which of that side's rows
     * match, as the same condition filtering that side before the join
     * would: a row it is not TRUE for meets no row, and the preserved rows
     * are padded alike. Those with subqueries filter that side (semi and
     * anti joins, joined values); a conjunct that reads the preserved side
     * stays in ON, where it is refused.
     */
    rel pair;
    int rc = plan_pair_rel(pc, left, right, false, false, false, &pair);
    if (rc)
        return rc;
    uint32_t cap = plan_count_and(on), n = 0;
    const weir_sql_expr **conj = plan_alloc(pc, cap * sizeof *conj);
    if (!conj)
        return WEIR_ENOMEM;
    plan_split_and(on, conj, &n, cap);
    const weir_sql_expr *keep = NULL, *push = NULL;
    int side = inner_right ? PLAN_SIDE_RIGHT : PLAN_SIDE_LEFT;
    for (uint32_t i = 0; i < n; i++) {
        free_walk w = {&pair, left->n_physical, 0};
        bool sub = find_subquery(conj[i], NULL) == 1;
        if (sub && (rc = free_side(conj[i], &w)))
            return rc;
        const weir_sql_expr **to = sub && !(w.mask & ~side) ? &push : &keep;
        if (!(*to = ast_binary(pc, WEIR_SQL_OP_AND, *to, conj[i])))
            return WEIR_ENOMEM;
    }
    if (!push)
        return 0;
    rel *r = inner_right ? right : left;
    const weir_sql_expr *w = push;
    if (!(rc = plan_where_subqueries(pc, r, w, &w)) && w)
        rc = plan_subquery_values(pc, r, &w, 1, push->loc, NULL, false);
    weir_expr *f = NULL;
    if (!rc && w)
        rc = plan_bind_expr(pc, r, NULL, w, &f);
    if (rc == WEIR_ENOTFOUND)
        return plan_error(pc, push->loc, WEIR_EUNSUPPORTED,
                          "a subquery in an outer join's ON that reads the side the join preserves (the %s input "
                          "of a %s join) is not supported; one that reads only the other side is",
                          inner_right ? "left" : "right", inner_right ? "LEFT" : "RIGHT");
    if (rc)
        return rc;
    if (f) {
        weir_type t = weir_expr_type(f);
        if (t.id != WEIR_TYPE_BOOLEAN && t.id != WEIR_TYPE_NULL)
            return plan_error(pc, w->loc, WEIR_EPLAN, "a condition must be BOOLEAN, not %s", weir_type_name(t.id));
        rel fr;
        if ((rc = plan_calc(pc, r, f, NULL, NULL, 0, &fr, "Calc")))
            return rc;
        fr.quals = r->quals;
        fr.hidden = r->hidden;
        fr.n_hidden = r->n_hidden;
        *r = fr;
    }
    weir_sql_table_ref *j = plan_alloc(pc, sizeof *j);
    if (!j)
        return WEIR_ENOMEM;
    *j = *ref;
    if (!keep && !(keep = ast_literal(pc, WEIR_SQL_LIT_BOOLEAN, true, NULL, on->loc)))
        return WEIR_ENOMEM;
    j->u.join.on = (weir_sql_expr *)keep;
    *out = j;
    return 0;
}

/*
 * A LATERAL derived table with GROUP BY, HAVING or DISTINCT (lateral.c),
 * correlated by equalities outer = inner, as Calcite decorrelates it: its
 * query grouped by the inner sides as well (each outer row sees the groups
 * of its own key),
 *   SELECT t.k AS $scalarNk0, ..., items FROM t WHERE local AND t.k IS NOT NULL GROUP BY t.k, ..., its keys
 * joined to the outer rows on o.k = $scalarNk0 (LEFT: a row without groups
 * is padded). items[i] is its i-th SELECT item, a column of the join.
 */
int plan_lateral_grouped(plan_ctx *pc, rel *in, const weir_sql_query *q, const rel *from_planned, bool left_join,
                         weir_expr **items)
{
    const weir_sql_select *sel = q->u.select;
    rel from = *from_planned;
    correlation co;
    int rc = correlate(pc, in, &from, sel->where, &co);
    if (rc)
        return rc;
    if (co.general || !co.n_keys)
        return plan_error(pc, co.general ? co.corr[0]->loc : q->loc, WEIR_EUNSUPPORTED,
                          "a LATERAL derived table with %s that reads the FROM items before it must be correlated "
                          "by equalities of its WHERE (inner = outer) only",
                          sel->n_group_by ? "GROUP BY" : sel->having ? "HAVING" : "DISTINCT");
    uint32_t id = pc->n_scalar, nk = co.n_keys, n = nk + sel->n_items;
    weir_sql_select *s2 = plan_alloc(pc, sizeof *s2);
    weir_sql_query *q2 = plan_alloc(pc, sizeof *q2);
    weir_sql_select_item *it = plan_alloc(pc, n * sizeof *it);
    weir_sql_ident *alias = plan_alloc(pc, nk * sizeof *alias);
    weir_sql_expr **group = plan_alloc(pc, (nk + sel->n_group_by) * sizeof *group);
    if (!s2 || !q2 || !it || !alias || !group)
        return WEIR_ENOMEM;
    *s2 = *sel;
    *q2 = *q;
    q2->u.select = s2;
    const weir_sql_expr *where = NULL, *on = NULL;
    for (uint32_t i = 0; i < co.n_local; i++)
        if (!(where = ast_binary(pc, WEIR_SQL_OP_AND, where, co.local[i])))
            return WEIR_ENOMEM;
    for (uint32_t i = 0; i < nk; i++) {
        weir_sql_expr *nn = ast_is_null(pc, co.inner[i]), *k, *eq;
        if (!nn || !(alias[i].name = scalar_name(pc, id, 'k', i)))
            return WEIR_ENOMEM;
        nn->u.is.negated = true;
        alias[i].len = (uint32_t)strlen(alias[i].name);
        alias[i].loc = q->loc;
        it[i] = (weir_sql_select_item){(weir_sql_expr *)co.inner[i], &alias[i]};
        group[i] = (weir_sql_expr *)co.inner[i];
        if (!(where = ast_binary(pc, WEIR_SQL_OP_AND, where, nn)) || !(k = ast_column(pc, alias[i].name, q->loc)) ||
            !(eq = ast_binary(pc, WEIR_SQL_OP_EQ, co.outer[i], k)) || !(on = ast_binary(pc, WEIR_SQL_OP_AND, on, eq)))
            return WEIR_ENOMEM;
    }
    for (uint32_t i = 0; i < sel->n_items; i++)
        it[nk + i] = sel->items[i];
    for (uint32_t i = 0; i < sel->n_group_by; i++)
        group[nk + i] = sel->group_by[i];
    s2->items = it;
    s2->n_items = n;
    s2->where = (weir_sql_expr *)where;
    /* DISTINCT without GROUP BY: distinct rows per key (the keys are items) */
    if (sel->n_group_by || sel->having) {
        s2->group_by = group;
        s2->n_group_by = nk + sel->n_group_by;
    }
    rel g;
    if ((rc = plan_over_from(pc, q, q2, &from, &g)))
        return rc;
    /* its columns unqualified: the keys' names are unique, the items are read by position */
    char **quals = plan_alloc(pc, (g.schema->n_fields + 1) * sizeof *quals);
    if (!quals)
        return WEIR_ENOMEM;
    g.quals = quals;
    g.hidden = NULL;
    g.n_hidden = 0;
    g.outer_cols = 0;
    g.scope = NULL;
    rel j;
    uint32_t nl = in->n_physical;
    if ((rc = plan_scoped_join_kind(pc, left_join, in, &g, on, q->loc, &j)))
        return rc;
    for (uint32_t i = 0; i < sel->n_items; i++) {
        uint32_t c = nl + nk + i;
        weir_error err = {0};
        if ((rc = weir_expr_column(pc->arena, c, j.schema->fields[c].type, &items[i], &err)))
            return rc;
    }
    /* registered as a scalar subquery's (its key names are taken) */
    weir_sql_expr *e = ast_node(pc, WEIR_SQL_EXPR_SUBQUERY, q->loc);
    if (!e)
        return WEIR_ENOMEM;
    e->u.subquery.query = (weir_sql_query *)q;
    if ((rc = scalar_register(pc, e, nl, NULL)))
        return rc;
    *in = j;
    return 0;
}
