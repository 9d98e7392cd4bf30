/*
 * planner/match.c - t MATCH_RECOGNIZE (...) as a Match operator
 * (ops/match.c), with Flink's rules for what a query may say.
 *
 * DEFINE conditions and MEASURES are bound over a row of "slots" the
 * operator fills per (partial) match. The first slots are the plain column
 * references: for each pattern variable V and input column c, V.c (the last
 * row mapped to V: the candidate row itself in V's condition), named c with
 * qualifier V and hidden from unqualified names; then each c unqualified
 * (the last row of the match: in a condition, the candidate row). Then one
 * slot per navigation or aggregate call - FIRST(V.c, n), LAST(V.c, n),
 * PREV(V.c, n), COUNT/SUM/AVG/MIN/MAX over V's rows, MATCH_ROWTIME() - bound
 * through pc->mr_e.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ops/match.h"
#include "planner/query_internal.h"
#include "runtime/checkpoint.h"

typedef struct mr_plan {
    plan_ctx *pc;
    const rel *in;
    rel sr;            /* the slots as a rel, for binding */
    weir_schema *ss;   /* its schema */
    const weir_sql_match *mr;
    const char **vars; /* pattern variables, in order of first appearance */
    uint32_t n_vars;
    weir_mr_slot *slots;
    uint32_t n_slots, cap_slots;
    const weir_sql_expr **call_e; /* per call slot: its call */
    uint32_t *call_col;
    uint32_t n_calls;
    /* collecting the uses of one expression */
    bool *used;
    bool in_define;
    bool proctime; /* ordered by a processing-time attribute */
    /* arguments of calls that are expressions (SUM(A.price * A.tax)): each a column computed before the match */
    struct mr_xarg *xargs;
    uint32_t n_xargs;
    weir_expr **xexprs;
} mr_plan;

typedef struct mr_xarg {
    const weir_sql_expr *arg;
    int32_t var; /* the one variable it reads, or -1: every row */
    uint32_t col; /* its column in the match's input */
} mr_xarg;

static const char *call_name(const weir_sql_expr *e)
{
    const weir_sql_name *n = &e->u.call.name;
    return n->n_parts == 1 ? n->parts[0].name : NULL;
}

static int32_t var_index(const mr_plan *m, const char *name)
{
    for (uint32_t i = 0; i < m->n_vars; i++)
        if (!strcasecmp(m->vars[i], name))
            return (int32_t)i;
    return -1;
}

static int add_slot(mr_plan *m, const char *name, weir_type type, const weir_mr_slot *s, uint32_t *col)
{
    if (m->n_slots == m->cap_slots) {
        uint32_t cap = m->cap_slots ? 2 * m->cap_slots : 32;
        weir_mr_slot *ns = plan_alloc(m->pc, cap * sizeof *ns);
        if (!ns)
            return WEIR_ENOMEM;
        if (m->n_slots)
            memcpy(ns, m->slots, m->n_slots * sizeof *ns);
        m->slots = ns;
        m->cap_slots = cap;
    }
    m->slots[m->n_slots] = *s;
    *col = m->n_slots++;
    return weir_schema_add(m->ss, name, type) < 0 ? WEIR_ENOMEM : 0;
}

/* The variable and column of a call's argument V.c or c (-1: every row); V.* / * for COUNT. */
static int nav_arg(mr_plan *m, const weir_sql_expr *call, const weir_sql_expr *a, bool star_ok, int32_t *var,
                   int32_t *col)
{
    plan_ctx *pc = m->pc;
    const char *fn = call_name(call);
    *var = -1;
    *col = -1;
    if (a->kind == WEIR_SQL_EXPR_STAR && star_ok) {
        if (a->u.star.qualifier.n_parts > 1)
            return plan_error(pc, a->loc, WEIR_EINVAL, "%s(x.y.*): expected %s(*) or %s(V.*)", fn, fn, fn);
        if (a->u.star.qualifier.n_parts == 1 &&
            (*var = var_index(m, a->u.star.qualifier.parts[0].name)) < 0)
            return plan_error(pc, a->loc, WEIR_EINVAL, "'%s' is no pattern variable", a->u.star.qualifier.parts[0].name);
        return 0;
    }
    for (uint32_t i = 0; i < m->n_xargs; i++)
        if (m->xargs[i].arg == a) {
            *var = m->xargs[i].var;
            *col = (int32_t)m->xargs[i].col;
            return 0;
        }
    if (a->kind != WEIR_SQL_EXPR_COLUMN || a->u.column.n_parts > 2)
        return plan_error(pc, a->loc, WEIR_EUNSUPPORTED,
                          "%s in MATCH_RECOGNIZE takes a column of a pattern variable (V.col), a column, or an "
                          "expression over one of them",
                          fn);
    const weir_sql_name *n = &a->u.column;
    if (n->n_parts == 2 && (*var = var_index(m, n->parts[0].name)) < 0)
        return plan_error(pc, a->loc, WEIR_EINVAL, "'%s' is no pattern variable of the PATTERN", n->parts[0].name);
    weir_sql_name cn = *n;
    cn.parts = &n->parts[n->n_parts - 1];
    cn.n_parts = 1;
    rel in = *m->in;
    in.quals = NULL;
    char **q = plan_alloc(pc, (in.schema->n_fields + 1) * sizeof *q);
    if (!q)
        return WEIR_ENOMEM;
    in.quals = q;
    in.hidden = NULL;
    in.n_hidden = 0;
    uint32_t idx;
    int rc = plan_resolve_column(pc, &in, &cn, &idx);
    if (rc)
        return rc;
    *col = (int32_t)idx;
    return 0;
}

static int offset_arg(mr_plan *m, const weir_sql_expr *call, uint32_t *off)
{
    *off = 0;
    if (call->u.call.n_args < 2)
        return 0;
    const weir_sql_expr *a = call->u.call.args[1];
    if (a->kind != WEIR_SQL_EXPR_LITERAL || a->u.lit.kind != WEIR_SQL_LIT_INTEGER || a->u.lit.overflow ||
        a->u.lit.i64 < 0 || a->u.lit.i64 > 100000)
        return plan_error(m->pc, a->loc, WEIR_EINVAL, "%s's offset must be a non-negative integer literal",
                          call_name(call));
    *off = (uint32_t)a->u.lit.i64;
    return 0;
}

/* A slot for call e (a navigation or aggregate call), or refuses it; *is_slot false for any other call. */
static int call_slot(mr_plan *m, const weir_sql_expr *e, bool *is_slot)
{
    plan_ctx *pc = m->pc;
    const char *fn = call_name(e);
    *is_slot = false;
    if (!fn || e->u.call.over)
        return 0;
    weir_mr_slot s = {0};
    weir_type type;
    bool nav = !strcasecmp(fn, "FIRST") || !strcasecmp(fn, "LAST") || !strcasecmp(fn, "PREV");
    static const char *const aggs[] = {"COUNT", "SUM", "AVG", "MIN", "MAX"};
    int agg = -1;
    for (int i = 0; i < 5; i++)
        if (!strcasecmp(fn, aggs[i]))
            agg = i;
    if (!strcasecmp(fn, "NEXT"))
        return plan_error(pc, e->loc, WEIR_EUNSUPPORTED, "NEXT in MATCH_RECOGNIZE is not supported (Flink neither)");
    if (!strcasecmp(fn, "CLASSIFIER") || !strcasecmp(fn, "MATCH_NUMBER") || !strcasecmp(fn, "RUNNING") ||
        !strcasecmp(fn, "FINAL"))
        return plan_error(pc, e->loc, WEIR_EUNSUPPORTED, "%s in MATCH_RECOGNIZE is not supported (Flink neither)",
                          fn);
    if (!strcasecmp(fn, "MATCH_PROCTIME")) {
        /* a measure of its own: the job clock's time, a processing-time attribute of the result */
        bool measure = false;
        for (uint32_t i = 0; i < m->mr->n_measures; i++)
            measure |= m->mr->measures[i].expr == e;
        if (e->u.call.n_args)
            return plan_error(pc, e->loc, WEIR_EINVAL, "MATCH_PROCTIME() takes no arguments");
        if (m->in_define || !measure)
            return plan_error(pc, e->loc, WEIR_EUNSUPPORTED,
                              "MATCH_PROCTIME() is taken as a measure of its own (MATCH_PROCTIME() AS pt), not in "
                              "DEFINE or inside an expression");
        return 0;
    }
    if (!strcasecmp(fn, "MATCH_ROWTIME")) {
        if (e->u.call.n_args)
            return plan_error(pc, e->loc, WEIR_EINVAL, "MATCH_ROWTIME() takes no arguments");
        if (m->proctime)
            return plan_error(pc, e->loc, WEIR_EINVAL,
                              "MATCH_ROWTIME() needs MATCH_RECOGNIZE ordered by an event-time attribute, not a "
                              "processing-time one");
        if (m->in_define)
            return plan_error(pc, e->loc, WEIR_EINVAL, "MATCH_ROWTIME() is allowed in MEASURES only");
        s.kind = WEIR_MR_SLOT_ROWTIME;
        type = m->in->schema->fields[m->in->rowtime].type;
        type.nullable = false;
    } else if (nav) {
        if (e->u.call.n_args < 1 || e->u.call.n_args > 2 || e->u.call.distinct || e->u.call.star)
            return plan_error(pc, e->loc, WEIR_EINVAL, "%s(V.col [, n]) takes a column and an optional offset", fn);
        s.kind = !strcasecmp(fn, "FIRST") ? WEIR_MR_SLOT_FIRST : !strcasecmp(fn, "LAST") ? WEIR_MR_SLOT_LAST
                                                                                       : WEIR_MR_SLOT_PREV;
        int rc = nav_arg(m, e, e->u.call.args[0], false, &s.var, &s.col);
        if (rc || (rc = offset_arg(m, e, &s.offset)))
            return rc;
        if (s.kind == WEIR_MR_SLOT_PREV && e->u.call.n_args == 1)
            s.offset = 1;
        type = m->in->schema->fields[s.col].type;
        type.nullable = true;
    } else if (agg >= 0) {
        if (e->u.call.distinct)
            return plan_error(pc, e->loc, WEIR_EUNSUPPORTED,
                              "DISTINCT aggregates in MATCH_RECOGNIZE are not supported (Flink neither)");
        if (e->u.call.filter)
            return plan_error(pc, e->loc, WEIR_EUNSUPPORTED, "FILTER on an aggregate in MATCH_RECOGNIZE is not supported");
        s.kind = WEIR_MR_SLOT_AGG;
        s.agg = (weir_mr_agg)agg;
        if (e->u.call.star) {
            if (s.agg != WEIR_MR_COUNT)
                return plan_error(pc, e->loc, WEIR_EINVAL, "%s(*) is not an aggregate", fn);
            s.var = -1, s.col = -1;
        } else {
            if (e->u.call.n_args != 1)
                return plan_error(pc, e->loc, WEIR_EINVAL, "%s takes one argument", fn);
            int rc = nav_arg(m, e, e->u.call.args[0], s.agg == WEIR_MR_COUNT, &s.var, &s.col);
            if (rc)
                return rc;
        }
        if (s.agg == WEIR_MR_COUNT) {
            type = weir_type_make(WEIR_TYPE_BIGINT, false);
        } else {
            type = m->in->schema->fields[s.col].type;
            weir_type_id t = type.id;
            /* a DECIMAL of up to 18 digits is its 64-bit unscaled value, as BIGINT is */
            bool dec = t == WEIR_TYPE_DECIMAL && !weir_type_is_wide(type);
            bool num = t == WEIR_TYPE_INT || t == WEIR_TYPE_BIGINT || t == WEIR_TYPE_DOUBLE || dec;
            bool ord = t == WEIR_TYPE_TIMESTAMP || t == WEIR_TYPE_TIMESTAMP_LTZ || t == WEIR_TYPE_DATE ||
                       t == WEIR_TYPE_TIME;
            if (!num && !(ord && (s.agg == WEIR_MR_MIN || s.agg == WEIR_MR_MAX))) {
                char tn[64];
                return plan_error(pc, e->loc, WEIR_EUNSUPPORTED,
                                  "%s over a %s column in MATCH_RECOGNIZE is not supported yet (INT, BIGINT, DOUBLE "
                                  "and DECIMAL of up to 18 digits are; MIN and MAX also take DATE, TIME and "
                                  "timestamps)",
                                  fn, weir_expr_type_name(type, WEIR_INTERVAL_NONE, tn, sizeof tn));
            }
            /* as the aggregation's: SUM DECIMAL(38, s), AVG DECIMAL(38, max(6, s)) */
            if (dec && s.agg == WEIR_MR_SUM)
                type = weir_type_decimal(38, type.scale, true);
            else if (dec && s.agg == WEIR_MR_AVG)
                type = weir_type_decimal(38, type.scale > 6 ? type.scale : 6, true);
            type.nullable = true;
        }
    } else {
        if (plan_is_agg_name(fn))
            return plan_error(pc, e->loc, WEIR_EUNSUPPORTED,
                              "%s in MATCH_RECOGNIZE is not supported yet (COUNT, SUM, AVG, MIN and MAX are)", fn);
        return 0;
    }
    for (uint32_t i = 0; i < m->n_calls; i++)
        if (m->call_e[i] == e) {
            *is_slot = true;
            return 0;
        }
    char nm[32];
    snprintf(nm, sizeof nm, "$mr%u", m->n_slots);
    uint32_t col;
    int rc = add_slot(m, nm, type, &s, &col);
    if (rc)
        return rc;
    const weir_sql_expr **ne = plan_alloc(pc, (m->n_calls + 1) * sizeof *ne);
    uint32_t *nc = plan_alloc(pc, (m->n_calls + 1) * sizeof *nc);
    if (!ne || !nc)
        return WEIR_ENOMEM;
    if (m->n_calls) {
        memcpy(ne, m->call_e, m->n_calls * sizeof *ne);
        memcpy(nc, m->call_col, m->n_calls * sizeof *nc);
    }
    ne[m->n_calls] = e;
    nc[m->n_calls] = col;
    m->call_e = ne;
    m->call_col = nc;
    m->n_calls++;
    *is_slot = true;
    return 0;
}

static bool is_nav_or_agg(const char *fn)
{
    static const char *const names[] = {"FIRST", "LAST", "PREV", "COUNT", "SUM", "AVG", "MIN", "MAX", NULL};
    for (int i = 0; fn && names[i]; i++)
        if (!strcasecmp(fn, names[i]))
            return true;
    return false;
}

/* What an expression argument reads: the variable its columns name (-2: none yet, -1: unqualified columns). */
typedef struct xarg_scan {
    mr_plan *m;
    const weir_sql_expr *call;
    int32_t var;
} xarg_scan;

static int scan_xarg(const weir_sql_expr *e, void *ud)
{
    xarg_scan *x = ud;
    plan_ctx *pc = x->m->pc;
    const char *fn = call_name(x->call);
    if (e->kind == WEIR_SQL_EXPR_CALL && !e->u.call.over && is_nav_or_agg(call_name(e)))
        return plan_error(pc, e->loc, WEIR_EUNSUPPORTED,
                          "%s in the argument of %s in MATCH_RECOGNIZE is not supported (calls cannot be nested there)",
                          call_name(e), fn);
    if (e->kind == WEIR_SQL_EXPR_SUBQUERY || e->kind == WEIR_SQL_EXPR_EXISTS || e->kind == WEIR_SQL_EXPR_IN_QUERY)
        return plan_error(pc, e->loc, WEIR_EUNSUPPORTED, "a subquery in MATCH_RECOGNIZE is not supported");
    if (e->kind == WEIR_SQL_EXPR_COLUMN) {
        const weir_sql_name *n = &e->u.column;
        int32_t v = n->n_parts >= 2 ? var_index(x->m, n->parts[0].name) : -1;
        if (n->n_parts >= 2 && v < 0)
            return plan_error(pc, e->loc, WEIR_EINVAL, "'%s' is no pattern variable of the PATTERN", n->parts[0].name);
        if (x->var != -2 && x->var != v)
            return plan_error(pc, e->loc, WEIR_EUNSUPPORTED,
                              "the argument of %s in MATCH_RECOGNIZE must read the columns of one pattern variable "
                              "(SUM(A.price * A.tax)) or only unqualified columns, as in Flink",
                              fn);
        x->var = v;
        return 0;
    }
    return weir__sql_expr_each_child(e, scan_xarg, x);
}

/*
 * Walk 0: the arguments of navigation and aggregate calls that are
 * expressions over one variable's columns, as Flink allows
 * (SUM(A.price * A.tax)): each is bound over the input (its columns
 * qualified by that variable) into m->xexprs, to become a column the
 * match's input computes; nav_arg then reads it as that variable's column.
 */
static int find_xargs(const weir_sql_expr *e, void *ud)
{
    mr_plan *m = ud;
    if (e->kind != WEIR_SQL_EXPR_CALL || e->u.call.over || !is_nav_or_agg(call_name(e)) || !e->u.call.n_args)
        return weir__sql_expr_each_child(e, find_xargs, m);
    const weir_sql_expr *a = e->u.call.args[0];
    if (a->kind == WEIR_SQL_EXPR_COLUMN || a->kind == WEIR_SQL_EXPR_STAR || a->kind == WEIR_SQL_EXPR_LITERAL)
        return 0;
    xarg_scan x = {m, e, -2};
    int rc = scan_xarg(a, &x);
    if (rc)
        return rc;
    if (x.var == -2)
        return 0; /* reads no column: left to the call's own check */
    rel in = *m->in;
    char **q = plan_alloc(m->pc, (in.schema->n_fields + 1) * sizeof *q);
    if (!q)
        return WEIR_ENOMEM;
    for (uint32_t c = 0; c < in.schema->n_fields; c++)
        q[c] = x.var >= 0 ? (char *)m->vars[x.var] : NULL;
    in.quals = q;
    in.hidden = NULL;
    in.n_hidden = 0;
    weir_expr *ex;
    if ((rc = plan_bind_expr(m->pc, &in, NULL, a, &ex)))
        return rc;
    mr_xarg *nx = plan_alloc(m->pc, (m->n_xargs + 1) * sizeof *nx);
    weir_expr **ne = plan_alloc(m->pc, (m->n_xargs + 1) * sizeof *ne);
    if (!nx || !ne)
        return WEIR_ENOMEM;
    if (m->n_xargs) {
        memcpy(nx, m->xargs, m->n_xargs * sizeof *nx);
        memcpy(ne, m->xexprs, m->n_xargs * sizeof *ne);
    }
    nx[m->n_xargs] = (mr_xarg){a, x.var, m->in->n_physical + m->n_xargs};
    ne[m->n_xargs] = ex;
    m->xargs = nx;
    m->xexprs = ne;
    m->n_xargs++;
    return 0;
}

/* The input with the columns of m->xexprs computed after its own (a Calc), when there are any. */
static int add_xarg_columns(mr_plan *m, rel *in)
{
    if (!m->n_xargs)
        return 0;
    uint32_t n = in->n_physical + m->n_xargs;
    weir_expr **exprs = plan_alloc(m->pc, n * sizeof *exprs);
    const char **names = plan_alloc(m->pc, n * sizeof *names);
    if (!exprs || !names)
        return WEIR_ENOMEM;
    for (uint32_t c = 0; c < in->n_physical; c++) {
        weir_error err = {0};
        if (weir_expr_column(m->pc->arena, c, in->schema->fields[c].type, &exprs[c], &err))
            return WEIR_ENOMEM;
        names[c] = in->schema->fields[c].name;
    }
    for (uint32_t i = 0; i < m->n_xargs; i++) {
        char nm[32];
        snprintf(nm, sizeof nm, "$mrarg%u", i);
        exprs[in->n_physical + i] = m->xexprs[i];
        if (!(names[in->n_physical + i] = plan_strdup(m->pc, nm)))
            return WEIR_ENOMEM;
    }
    rel out;
    int rc = plan_calc(m->pc, in, NULL, exprs, names, n, &out, "Calc");
    if (rc)
        return rc;
    *in = out;
    return 0;
}

/* Walk 1: a slot for each navigation / aggregate call. */
static int make_slots(const weir_sql_expr *e, void *ud)
{
    mr_plan *m = ud;
    if (e->kind == WEIR_SQL_EXPR_SUBQUERY || e->kind == WEIR_SQL_EXPR_EXISTS || e->kind == WEIR_SQL_EXPR_IN_QUERY)
        return plan_error(m->pc, e->loc, WEIR_EUNSUPPORTED, "a subquery in MATCH_RECOGNIZE is not supported");
    if (e->kind == WEIR_SQL_EXPR_CALL) {
        bool is_slot;
        int rc = call_slot(m, e, &is_slot);
        if (rc || is_slot)
            return rc;
    }
    return weir__sql_expr_each_child(e, make_slots, m);
}

/* Walk 2: the slots one expression reads. */
static int mark_uses(const weir_sql_expr *e, void *ud)
{
    mr_plan *m = ud;
    if (e->kind == WEIR_SQL_EXPR_CALL)
        for (uint32_t i = 0; i < m->n_calls; i++)
            if (m->call_e[i] == e) {
                m->used[m->call_col[i]] = true;
                return 0;
            }
    if (e->kind == WEIR_SQL_EXPR_COLUMN) {
        int c = plan_find_column(m->pc, &m->sr, &e->u.column);
        if (c < 0)
            c = plan_field_path_column(m->pc, &m->sr, e);
        if (c >= 0)
            m->used[c] = true;
        return 0;
    }
    return weir__sql_expr_each_child(e, mark_uses, m);
}

static int uses_of(mr_plan *m, const weir_sql_expr *const *es, uint32_t n, weir_mr_uses *out)
{
    memset(m->used, 0, m->n_slots * sizeof *m->used);
    for (uint32_t i = 0; i < n; i++) {
        int rc = mark_uses(es[i], m);
        if (rc)
            return rc;
    }
    uint32_t k = 0;
    uint32_t *v = plan_alloc(m->pc, (m->n_slots + 1) * sizeof *v);
    if (!v)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < m->n_slots; i++)
        if (m->used[i])
            v[k++] = i;
    *out = (weir_mr_uses){v, k};
    return 0;
}

static int check_pattern(plan_ctx *pc, const weir_sql_match *mr)
{
    uint32_t min_rows = 0;
    for (uint32_t i = 0; i < mr->n_terms; i++) {
        const weir_sql_mr_term *t = &mr->terms[i];
        if (t->reluctant && t->min == 0 && t->max == 1)
            return plan_error(pc, t->var.loc, WEIR_EUNSUPPORTED,
                              "a reluctant optional variable (%s?\?) is not supported (Flink neither)", t->var.name);
        min_rows += t->min;
    }
    const weir_sql_mr_term *last = &mr->terms[mr->n_terms - 1];
    if (last->min != last->max && !last->reluctant)
        return plan_error(pc, last->var.loc, WEIR_EUNSUPPORTED,
                          "a greedy quantifier on the last variable of a PATTERN (%s) is not supported (Flink "
                          "neither): finish the pattern with a variable without quantifier or a reluctant one",
                          last->var.name);
    if (!min_rows)
        return plan_error(pc, mr->pattern_loc, WEIR_EUNSUPPORTED, "a PATTERN that can match no row is not supported");
    return 0;
}

/*
 * "running values: LAST(1.$2, 0), SUM(1.$2, 0), ..." in Match node s's
 * fingerprint: what each partial match carries (slot kind, variable
 * index, -1 for every row of the match, input column, offset), so that a DEFINE or MEASURES that needs other
 * ones is refused by name rather than failing on the restored state.
 */
static int describe_slots(plan_ctx *pc, weir_stream s, const weir_match_config *c)
{
    static const char *const kind[] = {"LAST", "FIRST", "PREV", "AGG", "ROWTIME"};
    static const char *const agg[] = {"COUNT", "SUM", "AVG", "MIN", "MAX"};
    weir_buf b;
    weir_buf_init(&b);
    int rc = 0;
    for (uint32_t i = 0; i < c->n_slots && !rc; i++) {
        const weir_mr_slot *sl = &c->slots[i];
        const char *name = sl->kind == WEIR_MR_SLOT_AGG ? agg[sl->agg] : kind[sl->kind];
        char col[16] = "*"; /* COUNT(*) */
        if (sl->col >= 0)
            snprintf(col, sizeof col, "$%d", sl->col);
        rc = weir_buf_printf(&b, "%s%s(%d.%s, %u)", i ? ", " : "", name, sl->var, col, sl->offset);
    }
    if (!rc)
        rc = weir_buf_put_u8(&b, 0);
    if (!rc)
        rc = weir_job_describe_state(pc->job, s, WEIR__RUNNING_VALUES_FIELD, c->n_slots ? (const char *)b.data : "none");
    weir_buf_fini(&b);
    return rc;
}

static const char *skip_text(const weir_sql_match *mr, char *buf, size_t cap)
{
    switch (mr->skip) {
    case WEIR_SQL_MR_SKIP_PAST_LAST_ROW: return "PAST LAST ROW";
    case WEIR_SQL_MR_SKIP_TO_NEXT_ROW: return "TO NEXT ROW";
    case WEIR_SQL_MR_SKIP_TO_FIRST: snprintf(buf, cap, "TO FIRST %s", mr->skip_var->name); return buf;
    case WEIR_SQL_MR_SKIP_TO_LAST: snprintf(buf, cap, "TO LAST %s", mr->skip_var->name); return buf;
    }
    return "?";
}

int plan_match(plan_ctx *pc, const weir_sql_table_ref *ref, rel *out)
{
    const weir_sql_match *mr = ref->u.match.mr;
    int rc;
    rel in;
    plan_projection_saved ps;
    plan_projection_save(pc, &ps);
    rc = plan_from(pc, ref->u.match.input, &in);
    plan_projection_restore(pc, &ps);
    if (rc)
        return rc;
    if (in.win.present)
        return plan_error(pc, ref->loc, WEIR_EUNSUPPORTED, "MATCH_RECOGNIZE over a window table function is not supported");
    if (in.updating)
        return plan_error(pc, ref->loc, WEIR_EUNSUPPORTED,
                          "MATCH_RECOGNIZE takes an append-only input (this one is an updating result)");

    /* ORDER BY: the event-time attribute ascending, then other columns */
    const weir_sql_order_item *o0 = &mr->order[0];
    weir_expr *oe;
    if ((rc = plan_bind_expr(pc, &in, NULL, o0->expr, &oe)))
        return rc;
    int32_t oc = weir_expr_column_index(oe);
    bool proctime = oc >= 0 && in.has_proctime && (uint32_t)oc == in.proctime;
    if (proctime) {
        /* the rows in the order they arrive, at the job clock's time (Flink's processing-time CEP) */
        if (o0->dir == WEIR_SQL_ORDER_DESC)
            return plan_error(pc, o0->expr->loc, WEIR_EUNSUPPORTED,
                              "MATCH_RECOGNIZE must order by the processing-time attribute ascending");
        if (mr->n_order > 1)
            return plan_error(pc, mr->order[1].expr->loc, WEIR_EUNSUPPORTED,
                              "MATCH_RECOGNIZE ordered by a processing-time attribute takes no other ORDER BY "
                              "column: its rows are matched in the order they arrive");
    } else if (oc < 0 || (rc = plan_use_time_attr(pc, &in, oc)) == 1 || oc != in.rowtime)
        return rc < 0 ? rc
                      : plan_error(pc, o0->expr->loc, WEIR_EUNSUPPORTED,
                                   "MATCH_RECOGNIZE must be ordered by the input's event-time attribute first "
                                   "(ascending), as Flink requires");
    if (rc)
        return rc;
    if (o0->dir == WEIR_SQL_ORDER_DESC)
        return plan_error(pc, o0->expr->loc, WEIR_EUNSUPPORTED,
                          "MATCH_RECOGNIZE must order by the event-time attribute ascending (Flink too)");
    weir_match_config c = {0};
    c.proctime = proctime;
    if (mr->n_order - 1 > WEIR_KEY_MAX_COLS || mr->n_partition > WEIR_KEY_MAX_COLS)
        return plan_error(pc, mr->order_loc, WEIR_EUNSUPPORTED, "at most %d ORDER BY / PARTITION BY columns",
                          WEIR_KEY_MAX_COLS);
    c.n_order = mr->n_order - 1;
    for (uint32_t i = 1; i < mr->n_order; i++) {
        const weir_sql_order_item *o = &mr->order[i];
        if ((rc = plan_bind_expr(pc, &in, NULL, o->expr, &oe)))
            return rc;
        if ((oc = weir_expr_column_index(oe)) < 0)
            return plan_error(pc, o->expr->loc, WEIR_EUNSUPPORTED, "MATCH_RECOGNIZE's ORDER BY takes columns");
        c.order_cols[i - 1] = (uint32_t)oc;
        c.order_desc[i - 1] = o->dir == WEIR_SQL_ORDER_DESC;
        c.nulls_last[i - 1] = o->nulls == WEIR_SQL_NULLS_DEFAULT ? c.order_desc[i - 1] : o->nulls == WEIR_SQL_NULLS_LAST;
    }
    c.partition.n = mr->n_partition;
    for (uint32_t i = 0; i < mr->n_partition; i++) {
        if ((rc = plan_bind_expr(pc, &in, NULL, mr->partition[i], &oe)))
            return rc;
        if ((oc = weir_expr_column_index(oe)) < 0)
            return plan_error(pc, mr->partition[i]->loc, WEIR_EUNSUPPORTED,
                              "MATCH_RECOGNIZE's PARTITION BY takes columns");
        c.partition.cols[i] = (uint32_t)oc;
    }
    if ((rc = check_pattern(pc, mr)))
        return rc;

    /* the pattern's variables and terms */
    mr_plan m = {.pc = pc, .in = &in, .mr = mr, .proctime = proctime};
    m.vars = plan_alloc(pc, (mr->n_terms + 1) * sizeof *m.vars);
    weir_mr_term *terms = plan_alloc(pc, mr->n_terms * sizeof *terms);
    if (!m.vars || !terms)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < mr->n_terms; i++) {
        const weir_sql_mr_term *t = &mr->terms[i];
        int32_t v = var_index(&m, t->var.name);
        if (v < 0) {
            v = (int32_t)m.n_vars;
            m.vars[m.n_vars++] = t->var.name;
        }
        terms[i] = (weir_mr_term){(uint32_t)v, t->min, t->max, t->reluctant};
    }
    c.terms = terms;
    c.n_terms = mr->n_terms;
    c.n_vars = m.n_vars;
    const weir_sql_expr **defs = plan_alloc(pc, m.n_vars * sizeof *defs);
    if (!defs)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < mr->n_defines; i++) {
        const weir_sql_mr_define *d = &mr->defines[i];
        int32_t v = var_index(&m, d->var.name);
        if (v < 0)
            return plan_error(pc, d->var.loc, WEIR_EINVAL, "DEFINE %s: '%s' is no variable of the PATTERN",
                              d->var.name, d->var.name);
        if (defs[v])
            return plan_error(pc, d->var.loc, WEIR_EINVAL, "variable %s is defined twice", d->var.name);
        defs[v] = d->cond;
    }
    if (mr->skip_var && (c.skip_var = var_index(&m, mr->skip_var->name)) < 0)
        return plan_error(pc, mr->skip_var->loc, WEIR_EINVAL, "AFTER MATCH SKIP TO %s: no variable of the PATTERN",
                          mr->skip_var->name);
    /* SKIP TO FIRST / LAST V that would not move past the match's first row
     * fails the job when a match does (resume_at in ops/match.c), as Flink
     * does; no case of it is refused here, as Flink refuses none. */
    c.skip = (weir_mr_skip)mr->skip;
    if (mr->skip_var) {
        char sb[160];
        snprintf(sb, sizeof sb, "TO %s %s", mr->skip == WEIR_SQL_MR_SKIP_TO_FIRST ? "FIRST" : "LAST",
                 mr->skip_var->name);
        if (!(c.skip_text = plan_strdup(pc, sb)))
            return WEIR_ENOMEM;
    }
    const char *mp = plan_config(pc, "weir.match.max-partial-matches");
    if (mp) {
        char *end;
        unsigned long long x = strtoull(mp, &end, 10);
        if (!*mp || *mp == '-' || *end || x == 0 || x > UINT32_MAX)
            return plan_error(pc, plan_config_at(pc, "weir.match.max-partial-matches", ref->loc), WEIR_EINVAL,
                              "weir.match.max-partial-matches: expected an integer from 1 to %u, got '%s'", UINT32_MAX,
                              mp);
        c.max_partial = (uint32_t)x;
    }
    if (mr->within) {
        if ((rc = plan_const_interval_ms(pc, mr->within, &c.within_ms)))
            return rc;
        if (c.within_ms <= 0)
            return plan_error(pc, mr->within->loc, WEIR_EINVAL, "WITHIN takes a positive interval");
    }

    /* expressions that calls take as arguments: computed before the match */
    for (uint32_t v = 0; v < m.n_vars; v++)
        if (defs[v] && (rc = find_xargs(defs[v], &m)))
            return rc;
    for (uint32_t i = 0; i < mr->n_measures; i++)
        if ((rc = find_xargs(mr->measures[i].expr, &m)))
            return rc;
    if ((rc = add_xarg_columns(&m, &in)))
        return rc;

    /* the slots: V.c for every variable and column, then c, then the calls */
    m.ss = plan_new_schema(pc);
    if (!m.ss)
        return WEIR_ENOMEM;
    uint32_t nc = in.n_physical, nplain = (m.n_vars + 1) * nc;
    char **quals = plan_alloc(pc, (nplain + 1) * sizeof *quals);
    bool *hidden = plan_alloc(pc, (nplain + 1) * sizeof *hidden);
    if (!quals || !hidden)
        return WEIR_ENOMEM;
    for (uint32_t v = 0; v <= m.n_vars; v++)
        for (uint32_t k = 0; k < nc; k++) {
            weir_type t = in.schema->fields[k].type;
            t.nullable = true;
            weir_mr_slot s = {.kind = WEIR_MR_SLOT_LAST, .var = v < m.n_vars ? (int32_t)v : -1, .col = (int32_t)k};
            uint32_t col;
            if ((rc = add_slot(&m, in.schema->fields[k].name, t, &s, &col)))
                return rc;
            quals[col] = v < m.n_vars ? (char *)m.vars[v] : NULL;
            hidden[col] = v < m.n_vars;
        }
    m.in_define = true;
    for (uint32_t v = 0; v < m.n_vars; v++)
        if (defs[v] && (rc = make_slots(defs[v], &m)))
            return rc;
    m.in_define = false;
    for (uint32_t i = 0; i < mr->n_measures; i++)
        if ((rc = make_slots(mr->measures[i].expr, &m)))
            return rc;
    char **allq = plan_alloc(pc, (m.n_slots + 1) * sizeof *allq);
    m.used = plan_alloc(pc, (m.n_slots + 1) * sizeof *m.used);
    if (!allq || !m.used)
        return WEIR_ENOMEM;
    memcpy(allq, quals, nplain * sizeof *allq);
    m.sr = (rel){.s = in.s, .schema = m.ss, .quals = allq, .rowtime = -1, .n_physical = m.ss->n_fields,
                 .hidden = hidden, .n_hidden = m.n_vars * nc, .loc = ref->loc};

    /* bind: the calls read their slots */
    const weir_sql_expr **save_e = pc->mr_e;
    uint32_t *save_col = pc->mr_col, save_n = pc->n_mr;
    pc->mr_e = m.call_e;
    pc->mr_col = m.call_col;
    pc->n_mr = m.n_calls;
    weir_expr **dexpr = plan_alloc(pc, m.n_vars * sizeof *dexpr);
    weir_mr_uses *duses = plan_alloc(pc, m.n_vars * sizeof *duses);
    weir_expr **mexpr = plan_alloc(pc, (mr->n_measures + 1) * sizeof *mexpr);
    const weir_sql_expr **mse = plan_alloc(pc, (mr->n_measures + 1) * sizeof *mse);
    weir_schema *ms = plan_new_schema(pc), *os = plan_new_schema(pc);
    rc = !dexpr || !duses || !mexpr || !mse || !ms || !os ? WEIR_ENOMEM : 0;
    for (uint32_t v = 0; v < m.n_vars && !rc; v++) {
        if (!defs[v])
            continue;
        if (!(rc = plan_bind_expr(pc, &m.sr, NULL, defs[v], &dexpr[v])) &&
            weir_expr_type(dexpr[v]).id != WEIR_TYPE_BOOLEAN && weir_expr_type(dexpr[v]).id != WEIR_TYPE_NULL)
            rc = plan_error(pc, defs[v]->loc, WEIR_EINVAL, "DEFINE %s: the condition must be a BOOLEAN", m.vars[v]);
        if (!rc)
            rc = uses_of(&m, &defs[v], 1, &duses[v]);
    }
    int out_proctime = -1;
    for (uint32_t i = 0; i < mr->n_measures && !rc; i++) {
        mse[i] = mr->measures[i].expr;
        const weir_sql_expr *be = mse[i];
        if (be->kind == WEIR_SQL_EXPR_CALL && call_name(be) && !strcasecmp(call_name(be), "MATCH_PROCTIME")) {
            /* PROCTIME() when the match is emitted */
            weir_sql_expr *pe = plan_alloc(pc, sizeof *pe);
            weir_sql_ident *id = plan_alloc(pc, sizeof *id);
            if (!pe || !id)
                return WEIR_ENOMEM;
            *pe = *be;
            *id = (weir_sql_ident){.name = "PROCTIME", .len = 8, .loc = be->loc};
            pe->u.call.name = (weir_sql_name){.parts = id, .n_parts = 1, .loc = be->loc};
            be = pe;
            out_proctime = (int)(c.partition.n + i);
        }
        rc = plan_bind_expr(pc, &m.sr, NULL, be, &mexpr[i]);
    }
    pc->mr_e = save_e;
    pc->mr_col = save_col;
    pc->n_mr = save_n;
    if (rc || (rc = uses_of(&m, mse, mr->n_measures, &c.measure_uses)))
        return rc;

    /* the output: the partition columns, then the measures */
    int out_rowtime = -1;
    for (uint32_t k = 0; k < c.partition.n; k++)
        if (weir_schema_add(os, in.schema->fields[c.partition.cols[k]].name,
                            in.schema->fields[c.partition.cols[k]].type) < 0)
            return WEIR_ENOMEM;
    for (uint32_t i = 0; i < mr->n_measures; i++) {
        const char *nm = mr->measures[i].alias->name;
        for (uint32_t k = 0; k < os->n_fields; k++)
            if (!strcasecmp(os->fields[k].name, nm))
                return plan_error(pc, mr->measures[i].alias->loc, WEIR_EINVAL,
                                  "MATCH_RECOGNIZE's output has two columns named '%s'", nm);
        weir_type t = weir_expr_type(mexpr[i]);
        if (t.id == WEIR_TYPE_NULL)
            return plan_error(pc, mse[i]->loc, WEIR_EINVAL, "measure %s: an untyped NULL; CAST it to a type", nm);
        if (mse[i]->kind == WEIR_SQL_EXPR_CALL && call_name(mse[i]) && !strcasecmp(call_name(mse[i]), "MATCH_ROWTIME"))
            out_rowtime = (int)os->n_fields;
        if (weir_schema_add(os, nm, t) < 0 || weir_schema_add(ms, nm, t) < 0)
            return WEIR_ENOMEM;
    }
    os->rowtime = out_rowtime;
    c.in_schema = in.schema;
    if (in.n_physical != in.schema->n_fields)
        return plan_error(pc, ref->loc, WEIR_EUNSUPPORTED, "MATCH_RECOGNIZE over this input is not supported");
    c.define = (const weir_expr *const *)dexpr;
    c.define_uses = duses;
    c.n_slots = m.n_slots;
    c.slots = m.slots;
    c.slot_schema = m.ss;
    c.n_measures = mr->n_measures;
    c.measures = (const weir_expr *const *)mexpr;
    c.measure_schema = ms;
    c.out_schema = os;
    weir_operator_spec spec;
    if ((rc = weir_match_spec(&c, &spec)))
        return plan_error(pc, ref->loc, rc, "cannot plan MATCH_RECOGNIZE: %s", weir_strerror(rc));
    weir_stream keyed = c.partition.n ? weir_stream_key_by(in.s, c.partition.cols, c.partition.n)
                                      : weir_stream_partition(in.s, WEIR_PART_GLOBAL);
    *out = in;
    if ((rc = weir_job_operator(pc->job, &keyed, 1, &spec, os, c.partition.n ? 0 : 1, &out->s))) {
        spec.free_arg(spec.arg);
        return plan_error(pc, ref->loc, rc, "cannot add MATCH_RECOGNIZE: %s", weir_job_error(pc->job));
    }
    char **oq = plan_alloc(pc, (os->n_fields + 1) * sizeof *oq);
    if (!oq)
        return WEIR_ENOMEM;
    out->schema = os;
    out->quals = oq;
    out->n_physical = os->n_fields;
    out->rowtime = out_rowtime;
    out->has_proctime = out_proctime >= 0;
    out->proctime = out_proctime >= 0 ? (uint32_t)out_proctime : 0;
    out->updating = false;
    out->win.present = false;
    out->wprops.present = false;
    out->above_wm = false;
    out->hidden = NULL;
    out->n_hidden = 0;
    out->outer_cols = 0;
    out->scope = NULL;
    out->loc = ref->loc;
    weir_buf pat;
    weir_buf_init(&pat);
    rc = weir_buf_put_u8(&pat, '(');
    for (uint32_t i = 0; i < mr->n_terms && !rc; i++) {
        const weir_sql_mr_term *t = &mr->terms[i];
        rc = weir_buf_printf(&pat, "%s%s", i ? " " : "", t->var.name);
        if (!rc && t->quantified) {
            if (t->max == WEIR_SQL_MR_UNBOUNDED)
                rc = weir_buf_printf(&pat, "{%u,}", t->min);
            else
                rc = weir_buf_printf(&pat, "{%u,%u}", t->min, t->max);
            if (!rc && t->reluctant)
                rc = weir_buf_printf(&pat, "?");
        }
    }
    char sk[160], wi[48] = "";
    if (c.within_ms)
        snprintf(wi, sizeof wi, " within=%lldms", (long long)c.within_ms);
    if (!rc)
        rc = weir_buf_printf(&pat, ") skip=%s%s", skip_text(mr, sk, sizeof sk), wi);
    if (!rc)
        rc = weir_buf_put_u8(&pat, 0);
    if (!rc)
        rc = weir_buf_printf(&pc->explain, "  Match[%d]: partition=%u pattern=%s measures=%u%s\n", out->s.node,
                             c.partition.n, (const char *)pat.data, c.n_measures, c.proctime ? " proctime" : "");
    if (!rc && c.proctime)
        rc = weir_job_describe_state(pc->job, out->s, WEIR__MATCH_ORDER_FIELD, "processing time");
    /* The partial matches it keeps are positions in this pattern, with these running values. */
    if (!rc)
        rc = weir_job_describe_state(pc->job, out->s, WEIR__PATTERN_FIELD, (const char *)pat.data);
    if (!rc)
        rc = describe_slots(pc, out->s, &c);
    /* ... and were merged from this term on (a restore must not need the ones dropped). */
    uint32_t mf = weir_match_merged_from(&c);
    char merged[32] = "none";
    if (mf < c.n_terms)
        snprintf(merged, sizeof merged, "from term %u", mf + 1);
    if (!rc)
        rc = weir_job_describe_state(pc->job, out->s, WEIR__MERGED_FIELD, merged);
    weir_buf_fini(&pat);
    return rc;
}
