/*
 * planner/bind.c - binding syntax-tree expressions to typed expressions
 * over a rel's columns.
 *
 * Names resolve case-insensitively; a qualified name (t.col) matches the
 * column's qualifier (its table alias); db.t.col and cat.db.t.col the
 * catalog table or view a FROM item reads under its own name. Unknown names get a "did you mean"
 * suggestion. Inside an aggregation (agg_scope in phase BIND) an expression
 * that equals a GROUP BY expression becomes a reference to the grouped
 * column, an aggregate call becomes a reference to its result column, and
 * any other column is an error that says it must be grouped or aggregated.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "planner/query_internal.h"

static const char *last_part(const weir_sql_name *n) { return n->parts[n->n_parts - 1].name; }

void plan_item_name(const weir_sql_select_item *it, uint32_t i, char *buf, size_t cap)
{
    if (it->alias)
        snprintf(buf, cap, "%s", it->alias->name);
    else if (it->expr->kind == WEIR_SQL_EXPR_COLUMN)
        snprintf(buf, cap, "%s", last_part(&it->expr->u.column));
    else
        snprintf(buf, cap, "EXPR$%u", i);
}

bool plan_is_proctime_call(const weir_sql_expr *e)
{
    return e->kind == WEIR_SQL_EXPR_CALL && !e->u.call.over && e->u.call.n_args == 0 && !e->u.call.star &&
           !strcasecmp(last_part(&e->u.call.name), "PROCTIME");
}

bool plan_column_qualified(const plan_ctx *pc, const rel *r, uint32_t col, const weir_sql_name *n, uint32_t n_quals)
{
    const char *q = r->quals ? r->quals[col] : NULL;
    if (!q || n_quals == 0 || n_quals > 3 || strcasecmp(q, n->parts[n_quals - 1].name) != 0)
        return false;
    if (n_quals == 1 || !pc)
        return true;
    /* db.t / cat.db.t: the FROM item must read that catalog object under its own name (an alias
     * hides the path, as in Flink) */
    for (const plan_qual_path *p = pc->qual_paths; p; p = p->next) {
        if (p->qual != q)
            continue;
        const char *cat = n_quals == 3 ? n->parts[0].name : pc->cur_catalog;
        return cat && !strcasecmp(cat, p->path.catalog) &&
               !strcasecmp(n->parts[n_quals - 2].name, p->path.database);
    }
    return false;
}

/* The column of r in [from, to) that n names (of scope's columns only; -1: of any): its index, -1 when none
 * is, -2 when several are. */
static int find_column_in(const plan_ctx *pc, const rel *r, const weir_sql_name *n, uint32_t from, uint32_t to,
                          int scope)
{
    const char *col = last_part(n);
    uint32_t n_quals = n->n_parts - 1;
    int found = -1;
    for (uint32_t i = from; i < to; i++) {
        if (strcasecmp(r->schema->fields[i].name, col) != 0)
            continue;
        if (scope >= 0 && plan_col_scope(r, i) != (uint32_t)scope)
            continue;
        if (n_quals && !plan_column_qualified(pc, r, i, n, n_quals))
            continue;
        if (!n_quals && plan_col_hidden(r, i))
            continue; /* a NATURAL / USING input's copy of a common column */
        if (found >= 0)
            return -2;
        found = (int)i;
    }
    return found;
}

int plan_find_column(const plan_ctx *pc, const rel *r, const weir_sql_name *n)
{
    uint32_t nf = r->schema->n_fields, far = 0;
    uint32_t ord = n->parts[n->n_parts - 1].ordinal;
    if (ord && ord <= nf && !strcasecmp(r->schema->fields[ord - 1].name, last_part(n)))
        return (int)ord - 1;
    if (!r->scope && (!r->outer_cols || r->outer_cols >= nf))
        return find_column_in(pc, r, n, 0, nf, -1);
    for (uint32_t c = 0; c < nf; c++)
        if (plan_col_scope(r, c) > far)
            far = plan_col_scope(r, c);
    /* A subquery's condition: its own columns first, then those of each query around it, outward. */
    for (uint32_t s = 0; s <= far; s++) {
        int found = find_column_in(pc, r, n, 0, nf, (int)s);
        if (found != -1)
            return found;
    }
    return -1;
}

int plan_field_path_column(const plan_ctx *pc, const rel *r, const weir_sql_expr *e)
{
    if (e->kind != WEIR_SQL_EXPR_COLUMN || e->u.column.n_parts < 2 || plan_find_column(pc, r, &e->u.column) != -1)
        return -1;
    for (uint32_t k = e->u.column.n_parts - 1; k >= 1; k--) {
        weir_sql_name pre = e->u.column;
        pre.n_parts = k;
        int c = plan_find_column(pc, r, &pre);
        if (c != -1)
            return c;
    }
    return -1;
}

bool plan_is_field_path(const plan_ctx *pc, const rel *r, const weir_sql_expr *e)
{
    return plan_field_path_column(pc, r, e) != -1;
}

int plan_resolve_column(plan_ctx *pc, const rel *r, const weir_sql_name *n, uint32_t *idx)
{
    const char *col = last_part(n);
    uint32_t n_quals = n->n_parts - 1;
    int found = plan_find_column(pc, r, n);
    if (found == -2)
        return plan_error(pc, n->loc, WEIR_EINVAL, "column reference '%s' is ambiguous%s", col,
                          n_quals ? "" : ": qualify it with its table name or alias");
    if (found >= 0) {
        *idx = (uint32_t)found;
        return 0;
    }
    /* Suggest the closest column name. */
    const char *best = NULL;
    int best_d = 3;
    for (uint32_t i = 0; i < r->schema->n_fields; i++) {
        const char *c = r->schema->fields[i].name;
        int d = weir__sql_edit_distance(col, strlen(col), c, strlen(c), best_d);
        if (d < best_d) {
            best_d = d;
            best = c;
        }
    }
    if (n_quals) {
        bool any = false;
        for (uint32_t i = 0; i < r->schema->n_fields; i++)
            any |= plan_column_qualified(pc, r, i, n, n_quals);
        if (!any) {
            char qual[512];
            size_t k = 0;
            for (uint32_t p = 0; p < n_quals && k < sizeof qual; p++)
                k += (size_t)snprintf(qual + k, sizeof qual - k, "%s%s", p ? "." : "", n->parts[p].name);
            return plan_error(pc, n->loc, WEIR_ENOTFOUND, "unknown table or alias '%s' in '%s.%s'", qual, qual,
                              col);
        }
    }
    if (best)
        return plan_error(pc, n->loc, WEIR_ENOTFOUND, "unknown column '%s'; did you mean '%s'?", col, best);
    return plan_error(pc, n->loc, WEIR_ENOTFOUND, "unknown column '%s'", col);
}

int plan_const_interval_ms(plan_ctx *pc, const weir_sql_expr *e, int64_t *ms)
{
    if (e->kind == WEIR_SQL_EXPR_LITERAL && e->u.lit.kind == WEIR_SQL_LIT_INTERVAL) {
        const weir_sql_interval *iv = &e->u.lit.interval;
        if (iv->year_month)
            return plan_error(pc, e->loc, WEIR_EUNSUPPORTED,
                              "a YEAR/MONTH interval has no fixed length; use DAY, HOUR, MINUTE or SECOND");
        *ms = iv->ms;
        return 0;
    }
    if (e->kind == WEIR_SQL_EXPR_UNARY && e->u.unary.op == WEIR_SQL_OP_NEG) {
        int rc = plan_const_interval_ms(pc, e->u.unary.operand, ms);
        *ms = -*ms;
        return rc;
    }
    return plan_error(pc, e->loc, WEIR_EINVAL, "expected an INTERVAL literal such as INTERVAL '10' SECOND");
}

static int wrap(plan_ctx *pc, const weir_sql_expr *at, int rc, weir_error *e)
{
    if (!rc)
        return 0;
    if (rc == WEIR_ENOMEM)
        return rc;
    return plan_error(pc, at->loc, e->code ? e->code : rc, "%s", e->message);
}

static int call_named(plan_ctx *pc, const weir_sql_expr *at, const char *name, weir_expr **args, uint32_t n,
                      weir_expr **out)
{
    weir_error e = {0};
    return wrap(pc, at, weir_expr_call(pc->arena, name, args, n, out, &e), &e);
}

static const char *binop_name(weir_sql_binop op)
{
    switch (op) {
    case WEIR_SQL_OP_OR: return "OR";
    case WEIR_SQL_OP_AND: return "AND";
    case WEIR_SQL_OP_EQ: return "=";
    case WEIR_SQL_OP_NE: return "<>";
    case WEIR_SQL_OP_LT: return "<";
    case WEIR_SQL_OP_LE: return "<=";
    case WEIR_SQL_OP_GT: return ">";
    case WEIR_SQL_OP_GE: return ">=";
    case WEIR_SQL_OP_ADD: return "+";
    case WEIR_SQL_OP_SUB: return "-";
    case WEIR_SQL_OP_MUL: return "*";
    case WEIR_SQL_OP_DIV: return "/";
    case WEIR_SQL_OP_MOD: return "%";
    case WEIR_SQL_OP_CONCAT: return "||";
    }
    return "?";
}

static int bind_literal(plan_ctx *pc, const weir_sql_expr *e, weir_expr **out)
{
    const weir_sql_literal *l = &e->u.lit;
    weir_error err = {0};
    switch (l->kind) {
    case WEIR_SQL_LIT_NULL: *out = weir_expr_lit_null(pc->arena, weir_type_make(WEIR_TYPE_NULL, true)); break;
    case WEIR_SQL_LIT_BOOLEAN: *out = weir_expr_lit_bool(pc->arena, l->boolean); break;
    case WEIR_SQL_LIT_INTEGER:
    case WEIR_SQL_LIT_DECIMAL:
    case WEIR_SQL_LIT_DOUBLE: {
        char *buf = plan_alloc(pc, (size_t)l->len + 1); /* the whole text: a long one is not cut */
        if (!buf)
            return WEIR_ENOMEM;
        memcpy(buf, l->text, l->len);
        buf[l->len] = '\0';
        return wrap(pc, e, weir_expr_lit_numeric(pc->arena, buf, out, &err), &err);
    }
    case WEIR_SQL_LIT_STRING: *out = weir_expr_lit_string(pc->arena, l->text, l->len); break;
    case WEIR_SQL_LIT_BINARY: {
        size_t n = l->len / 2;
        uint8_t *b = plan_alloc(pc, n + 1);
        if (!b)
            return WEIR_ENOMEM;
        for (size_t i = 0; i < n; i++) {
            unsigned v;
            sscanf(l->text + 2 * i, "%2x", &v);
            b[i] = (uint8_t)v;
        }
        *out = weir_expr_lit_bytes(pc->arena, b, n);
        break;
    }
    case WEIR_SQL_LIT_TIMESTAMP: *out = weir_expr_lit_timestamp(pc->arena, l->i64, false); break;
    case WEIR_SQL_LIT_INTERVAL:
        *out = l->interval.year_month
                   ? weir_expr_lit_interval(pc->arena, l->interval.months, WEIR_INTERVAL_YEAR_MONTH)
                   : weir_expr_lit_interval(pc->arena, l->interval.ms, WEIR_INTERVAL_DAY_TIME);
        break;
    case WEIR_SQL_LIT_DATE: *out = weir_expr_lit_date(pc->arena, (int32_t)l->i64); break;
    case WEIR_SQL_LIT_TIME: {
        /* TIME '12:34:56.7' is a TIME(1): the precision is the fraction's digits */
        const char *dot = memchr(l->text, '.', l->len);
        uint8_t digits = 0;
        for (const char *c = dot ? dot + 1 : NULL; c && c < l->text + l->len && *c >= '0' && *c <= '9'; c++)
            digits++;
        *out = weir_expr_lit_time(pc->arena, (int32_t)l->i64, digits);
        break;
    }
    default:
        return plan_error(pc, e->loc, WEIR_EUNSUPPORTED, "this literal is not supported");
    }
    return *out ? 0 : WEIR_ENOMEM;
}

static int bind_call(plan_ctx *pc, const rel *r, agg_scope *as, const weir_sql_expr *e, weir_expr **out)
{
    const char *name = last_part(&e->u.call.name);
    int qrc = plan_check_function_name(pc, &e->u.call.name);
    if (qrc)
        return qrc;
    if (e->u.call.over) {
        if (as && as->phase == AGG_OVER)
            return agg_scope_ref(pc, as, e, out);
        return plan_error(pc, e->loc, WEIR_EUNSUPPORTED,
                          "OVER aggregates are supported in the SELECT list of a query without GROUP BY");
    }
    if (!strcasecmp(name, "LAG") || !strcasecmp(name, "LEAD"))
        return plan_error(pc, e->loc, WEIR_EPLAN, "%s needs an OVER window: %s(x) OVER (PARTITION BY ... ORDER BY time)",
                          name, name);
    if (!strcasecmp(name, "GROUP_ID")) {
        if (e->u.call.n_args)
            return plan_error(pc, e->loc, WEIR_EPLAN, "GROUP_ID() takes no arguments");
        if (!as || as->phase != AGG_BIND)
            return plan_error(pc, e->loc, WEIR_EPLAN,
                              "GROUP_ID() is allowed only in the SELECT list or HAVING of a GROUP BY query");
        *out = weir_expr_lit_bigint(pc->arena, as->gs_group_id);
        return *out ? 0 : WEIR_ENOMEM;
    }
    if (!strcasecmp(name, "GROUPING") || !strcasecmp(name, "GROUPING_ID")) {
        if (as && as->phase == AGG_BIND)
            return agg_scope_grouping(pc, as, e, out);
        return plan_error(pc, e->loc, WEIR_EPLAN, "%s is allowed only in the SELECT list or HAVING of a GROUP BY query",
                          name);
    }
    if (plan_is_agg_name(name) || plan_is_window_prop(name)) {
        if (as && as->phase == AGG_BIND)
            return agg_scope_ref(pc, as, e, out);
        return plan_error(pc, e->loc, WEIR_EPLAN, "%s is not allowed here: %s", name,
                          plan_is_agg_name(name) ? "aggregate functions need GROUP BY or a SELECT list"
                                                 : "window properties need a GROUP BY with a group window");
    }
    if (e->u.call.nulls)
        return plan_error(pc, e->loc, WEIR_EUNSUPPORTED, "%s NULLS is taken only by ARRAY_AGG, not by %s",
                          e->u.call.nulls == 2 ? "IGNORE" : "RESPECT", name);
    /* Up to 64 arguments (ROW's fields, COUNT(DISTINCT a, b, ...)'s values); 4 more for the keyword forms. */
    uint32_t n = e->u.call.n_args;
    weir_expr *args_small[16 + 4], **args = args_small;
    if (n > 64)
        return plan_error(pc, e->loc, WEIR_EUNSUPPORTED, "too many arguments to %s (at most 64)", name);
    if (n > 16 && !(args = plan_alloc(pc, (n + 4) * sizeof *args)))
        return WEIR_ENOMEM;
    uint32_t k = 0;
    /* Keyword forms flattened as weir/expr.h describes. */
    switch (e->u.call.syntax) {
    case WEIR_SQL_CALL_TRIM: {
        static const char *modes[] = {"BOTH", "LEADING", "TRAILING"};
        args[k++] = weir_expr_lit_string(pc->arena, modes[e->u.call.trim], strlen(modes[e->u.call.trim]));
        if (n >= 2) {
            int rc = plan_bind_expr(pc, r, as, e->u.call.args[1], &args[k++]);
            if (rc)
                return rc;
        } else {
            args[k++] = weir_expr_lit_string(pc->arena, " ", 1);
        }
        int rc = plan_bind_expr(pc, r, as, e->u.call.args[0], &args[k++]);
        if (rc)
            return rc;
        return call_named(pc, e, "TRIM", args, k, out);
    }
    case WEIR_SQL_CALL_FLOOR_TO:
    case WEIR_SQL_CALL_CEIL_TO: {
        int rc = plan_bind_expr(pc, r, as, e->u.call.args[0], &args[k++]);
        if (rc)
            return rc;
        const char *u = weir__sql_unit_name(e->u.call.unit);
        args[k++] = weir_expr_lit_string(pc->arena, u, strlen(u));
        return call_named(pc, e, e->u.call.syntax == WEIR_SQL_CALL_FLOOR_TO ? "FLOOR" : "CEIL", args, k, out);
    }
    case WEIR_SQL_CALL_DATETIME_MINUS: {
        /* (a - b) unit: the qualifier's leading unit tells a year-month interval from a day-time one */
        const char *u = weir__sql_unit_name(e->u.call.unit);
        args[k++] = weir_expr_lit_string(pc->arena, u, strlen(u));
        break;
    }
    case WEIR_SQL_CALL_UNIT_FIRST: {
        /* TIMESTAMPADD(MINUTE, ...) / TIMESTAMPDIFF(DAY, ...): the parsed unit keyword is the first argument */
        const char *u = weir__sql_unit_name(e->u.call.unit);
        args[k++] = weir_expr_lit_string(pc->arena, u, strlen(u));
        break;
    }
    default:
        break;
    }
    for (uint32_t i = 0; i < n; i++) {
        int rc = plan_bind_expr(pc, r, as, e->u.call.args[i], &args[k++]);
        if (rc)
            return rc;
    }
    weir_error err = {0};
    int rc = weir_expr_call(pc->arena, name, args, k, out, &err);
    if (rc && rc != WEIR_ENOMEM)
        return plan_error(pc, e->u.call.name.loc, err.code ? err.code : rc, "%s", err.message);
    return rc;
}

/*
 * col.field[.field...] or t.col.field: the longest leading part of the name
 * that is a column, then a ROW field access per remaining part. Returns 1
 * when no leading part is a column (the caller reports the name).
 */
static int bind_field_path(plan_ctx *pc, const rel *r, const weir_sql_expr *e, weir_expr **out)
{
    const weir_sql_name *n = &e->u.column;
    for (uint32_t k = n->n_parts - 1; k >= 1; k--) {
        weir_sql_name pre = *n;
        pre.n_parts = k;
        int found = plan_find_column(pc, r, &pre);
        if (found == -1)
            continue;
        uint32_t idx;
        int rc = plan_resolve_column(pc, r, &pre, &idx); /* reports an ambiguous name */
        if (rc)
            return rc;
        if (idx >= r->n_physical)
            return plan_error(pc, e->loc, WEIR_EUNSUPPORTED, "'%s' has no fields", r->schema->fields[idx].name);
        weir_error err = {0};
        if ((rc = wrap(pc, e, weir_expr_column(pc->arena, idx, r->schema->fields[idx].type, out, &err), &err)))
            return rc;
        for (uint32_t i = k; i < n->n_parts; i++) {
            weir_expr *args[2] = {*out, weir_expr_lit_string(pc->arena, n->parts[i].name, n->parts[i].len)};
            if (!args[1])
                return WEIR_ENOMEM;
            rc = weir_expr_call(pc->arena, "$FIELD", args, 2, out, &err);
            if (rc && rc != WEIR_ENOMEM)
                return plan_error(pc, n->parts[i].loc, err.code ? err.code : rc, "%s", err.message);
            if (rc)
                return rc;
        }
        return 0;
    }
    return 1;
}

static int bind_list(plan_ctx *pc, const rel *r, agg_scope *as, const weir_sql_expr *e, const char *fn,
                     weir_expr **out)
{
    uint32_t n = e->u.list.n_items;
    if (n == 0)
        return plan_error(pc, e->loc, WEIR_EUNSUPPORTED, "an empty %s[] has no element type; CAST it", fn);
    weir_expr **a = plan_alloc(pc, n * sizeof *a);
    if (!a)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < n; i++) {
        int rc = plan_bind_expr(pc, r, as, e->u.list.items[i], &a[i]);
        if (rc)
            return rc;
    }
    return call_named(pc, e, fn, a, n, out);
}

static int bind_expr(plan_ctx *pc, const rel *r, agg_scope *as, const weir_sql_expr *e, weir_expr **out);

/* One `once` syntax node bound in this expression, with where it was bound. */
struct plan_once {
    const weir_sql_expr *e;
    const rel *r;
    const agg_scope *as;
    int phase;
    weir_expr *bound;
};

/*
 * Binds e. A node written once but placed at several points (an operand of
 * an expanded row comparison, `once`) binds to one expression node for the
 * whole expression being bound, so the calc computes it once (shared.c):
 * RAND() in (RAND(), a) < (x, y) is one random number in each comparison.
 */
int plan_bind_expr(plan_ctx *pc, const rel *r, agg_scope *as, const weir_sql_expr *e, weir_expr **out)
{
    int phase = as ? (int)as->phase : -1;
    if (e->once)
        for (uint32_t i = 0; i < pc->n_once; i++)
            if (pc->once[i].e == e && pc->once[i].r == r && pc->once[i].as == as && pc->once[i].phase == phase) {
                *out = pc->once[i].bound;
                return 0;
            }
    pc->bind_depth++;
    int rc = bind_expr(pc, r, as, e, out);
    pc->bind_depth--;
    if (!rc && e->once) {
        if (pc->n_once == pc->cap_once) {
            uint32_t cap = pc->cap_once ? 2 * pc->cap_once : 8;
            struct plan_once *n = plan_alloc(pc, cap * sizeof *n);
            if (!n)
                return WEIR_ENOMEM;
            if (pc->n_once)
                memcpy(n, pc->once, pc->n_once * sizeof *n);
            pc->once = n;
            pc->cap_once = cap;
        }
        pc->once[pc->n_once++] = (struct plan_once){e, r, as, phase, *out};
    }
    if (pc->bind_depth == 0)
        pc->n_once = 0; /* the expression is bound: its nodes are not the next one's */
    return rc;
}

static int bind_expr(plan_ctx *pc, const rel *r, agg_scope *as, const weir_sql_expr *e, weir_expr **out)
{
    int rc;
    weir_error err = {0};
    for (uint32_t i = 0; i < pc->n_mr; i++) /* MATCH_RECOGNIZE's FIRST(A.x), AVG(A.x), ... (match.c) */
        if (pc->mr_e[i] == e)
            return wrap(pc, e, weir_expr_column(pc->arena, pc->mr_col[i], r->schema->fields[pc->mr_col[i]].type, out, &err),
                        &err);
    if (as && as->phase == AGG_BIND) {
        rc = agg_scope_match_key(pc, as, e, out);
        if (rc <= 0)
            return rc; /* matched (0) or failed */
    }
    switch (e->kind) {
    case WEIR_SQL_EXPR_LITERAL:
        return bind_literal(pc, e, out);
    case WEIR_SQL_EXPR_COLUMN: {
        if (as && as->phase == AGG_BIND)
            return agg_scope_column(pc, as, e, out);
        uint32_t idx;
        if (e->u.column.n_parts >= 2 && plan_find_column(pc, r, &e->u.column) == -1 &&
            (rc = bind_field_path(pc, r, e, out)) <= 0)
            return rc;
        if ((rc = plan_resolve_column(pc, r, &e->u.column, &idx)))
            return rc;
        if (idx >= r->n_physical)
            return plan_error(pc, e->loc, WEIR_EUNSUPPORTED,
                              "'%s' of a window table function can only be used in GROUP BY window_start, "
                              "window_end and in the SELECT list of that aggregation",
                              r->schema->fields[idx].name);
        return wrap(pc, e, weir_expr_column(pc->arena, idx, r->schema->fields[idx].type, out, &err), &err);
    }
    case WEIR_SQL_EXPR_STAR:
        return plan_error(pc, e->loc, WEIR_EINVAL, "'*' is only allowed as a SELECT item or in COUNT(*)");
    case WEIR_SQL_EXPR_UNARY: {
        weir_expr *a;
        const weir_sql_expr *x = e->u.unary.operand;
        if (e->u.unary.op == WEIR_SQL_OP_NEG && x->kind == WEIR_SQL_EXPR_LITERAL &&
            (x->u.lit.kind == WEIR_SQL_LIT_INTEGER || x->u.lit.kind == WEIR_SQL_LIT_DECIMAL ||
             x->u.lit.kind == WEIR_SQL_LIT_DOUBLE)) {
            /* A minus before a number is part of the literal, as Calcite's parser folds it: -2147483648 is
             * an INT (2147483648 is a BIGINT), -9223372036854775808 a BIGINT. */
            char *buf = plan_alloc(pc, (size_t)x->u.lit.len + 2);
            if (!buf)
                return WEIR_ENOMEM;
            buf[0] = '-';
            memcpy(buf + 1, x->u.lit.text, x->u.lit.len);
            buf[x->u.lit.len + 1] = '\0';
            return wrap(pc, e, weir_expr_lit_numeric(pc->arena, buf, out, &err), &err);
        }
        if ((rc = plan_bind_expr(pc, r, as, e->u.unary.operand, &a)))
            return rc;
        if (e->u.unary.op == WEIR_SQL_OP_PLUS) {
            *out = a;
            return 0;
        }
        return call_named(pc, e, e->u.unary.op == WEIR_SQL_OP_NOT ? "NOT" : "-", &a, 1, out);
    }
    case WEIR_SQL_EXPR_BINARY: {
        weir_expr *a[2];
        if ((rc = plan_bind_expr(pc, r, as, e->u.binary.left, &a[0])) ||
            (rc = plan_bind_expr(pc, r, as, e->u.binary.right, &a[1])))
            return rc;
        rc = weir_expr_call(pc->arena, binop_name(e->u.binary.op), a, 2, out, &err);
        if (rc && rc != WEIR_ENOMEM)
            return plan_error(pc, e->u.binary.op_loc, err.code ? err.code : rc, "%s", err.message);
        return rc;
    }
    case WEIR_SQL_EXPR_IS: {
        weir_expr *a[2];
        if ((rc = plan_bind_expr(pc, r, as, e->u.is.operand, &a[0])))
            return rc;
        static const char *pos[] = {"IS NULL", "IS TRUE", "IS FALSE", "IS NULL", "IS DISTINCT FROM"};
        static const char *neg[] = {"IS NOT NULL", "IS NOT TRUE", "IS NOT FALSE", "IS NOT NULL",
                                    "IS NOT DISTINCT FROM"};
        uint32_t n = 1;
        if (e->u.is.test == WEIR_SQL_IS_DISTINCT_FROM) {
            if ((rc = plan_bind_expr(pc, r, as, e->u.is.other, &a[1])))
                return rc;
            n = 2;
        }
        return call_named(pc, e, (e->u.is.negated ? neg : pos)[e->u.is.test], a, n, out);
    }
    case WEIR_SQL_EXPR_BETWEEN: {
        weir_expr *a[3];
        if ((rc = plan_bind_expr(pc, r, as, e->u.between.operand, &a[0])) ||
            (rc = plan_bind_expr(pc, r, as, e->u.between.low, &a[1])) ||
            (rc = plan_bind_expr(pc, r, as, e->u.between.high, &a[2])))
            return rc;
        const char *fn = e->u.between.negated ? "NOT BETWEEN" : "BETWEEN";
        if (!e->u.between.symmetric)
            return call_named(pc, e, fn, a, 3, out);
        /* SYMMETRIC: either order of the bounds */
        weir_expr *x, *y, *b[3] = {a[0], a[2], a[1]};
        if ((rc = call_named(pc, e, "BETWEEN", a, 3, &x)) || (rc = call_named(pc, e, "BETWEEN", b, 3, &y)))
            return rc;
        weir_expr *xy[2] = {x, y};
        if ((rc = call_named(pc, e, "OR", xy, 2, out)))
            return rc;
        return e->u.between.negated ? call_named(pc, e, "NOT", out, 1, out) : 0;
    }
    case WEIR_SQL_EXPR_IN_LIST: {
        uint32_t n = e->u.in_list.n_items + 1;
        weir_expr **a = plan_alloc(pc, n * sizeof *a);
        if (!a)
            return WEIR_ENOMEM;
        if ((rc = plan_bind_expr(pc, r, as, e->u.in_list.operand, &a[0])))
            return rc;
        for (uint32_t i = 1; i < n; i++)
            if ((rc = plan_bind_expr(pc, r, as, e->u.in_list.items[i - 1], &a[i])))
                return rc;
        return call_named(pc, e, e->u.in_list.negated ? "NOT IN" : "IN", a, n, out);
    }
    case WEIR_SQL_EXPR_LIKE: {
        weir_expr *a[3];
        uint32_t n = 2;
        if ((rc = plan_bind_expr(pc, r, as, e->u.like.operand, &a[0])) ||
            (rc = plan_bind_expr(pc, r, as, e->u.like.pattern, &a[1])))
            return rc;
        if (e->u.like.escape) {
            if ((rc = plan_bind_expr(pc, r, as, e->u.like.escape, &a[2])))
                return rc;
            n = 3;
        }
        const char *fn = e->u.like.similar ? (e->u.like.negated ? "NOT SIMILAR TO" : "SIMILAR TO")
                                           : (e->u.like.negated ? "NOT LIKE" : "LIKE");
        return call_named(pc, e, fn, a, n, out);
    }
    case WEIR_SQL_EXPR_CASE: {
        uint32_t n = e->u.case_.n_whens;
        weir_expr **conds = plan_alloc(pc, (n + 1) * sizeof *conds), **vals = plan_alloc(pc, (n + 1) * sizeof *vals);
        if (!conds || !vals)
            return WEIR_ENOMEM;
        weir_expr *operand = NULL, *els = NULL;
        if (e->u.case_.operand && (rc = plan_bind_expr(pc, r, as, e->u.case_.operand, &operand)))
            return rc;
        for (uint32_t i = 0; i < n; i++) {
            weir_expr *w;
            if ((rc = plan_bind_expr(pc, r, as, e->u.case_.whens[i].when, &w)) ||
                (rc = plan_bind_expr(pc, r, as, e->u.case_.whens[i].then, &vals[i])))
                return rc;
            if (operand) {
                weir_expr *eq[2] = {operand, w};
                if ((rc = call_named(pc, e->u.case_.whens[i].when, "=", eq, 2, &conds[i])))
                    return rc;
            } else {
                conds[i] = w;
            }
        }
        if (e->u.case_.else_ && (rc = plan_bind_expr(pc, r, as, e->u.case_.else_, &els)))
            return rc;
        return wrap(pc, e, weir_expr_case(pc->arena, conds, vals, n, els, out, &err), &err);
    }
    case WEIR_SQL_EXPR_CAST: {
        weir_expr *a;
        weir_type t;
        if ((rc = plan_bind_expr(pc, r, as, e->u.cast.operand, &a)) ||
            (rc = plan_type_from_sql(pc, e->u.cast.type, &t)))
            return rc;
        t.nullable = true;
        return wrap(pc, e,
                    weir_expr_cast_fraction(pc->arena, a, t, e->u.cast.type->precision, e->u.cast.try_, out, &err),
                    &err);
    }
    case WEIR_SQL_EXPR_EXTRACT: {
        weir_expr *a[2];
        const char *u = weir__sql_unit_name(e->u.extract.unit);
        a[0] = weir_expr_lit_string(pc->arena, u, strlen(u));
        if ((rc = plan_bind_expr(pc, r, as, e->u.extract.operand, &a[1])))
            return rc;
        return call_named(pc, e, "EXTRACT", a, 2, out);
    }
    case WEIR_SQL_EXPR_CALL:
        return bind_call(pc, r, as, e, out);
    case WEIR_SQL_EXPR_ARRAY:
        return bind_list(pc, r, as, e, "ARRAY", out);
    case WEIR_SQL_EXPR_MAP:
        return bind_list(pc, r, as, e, "MAP", out);
    case WEIR_SQL_EXPR_ITEM: {
        weir_expr *a[2];
        if ((rc = plan_bind_expr(pc, r, as, e->u.item.operand, &a[0])) ||
            (rc = plan_bind_expr(pc, r, as, e->u.item.index, &a[1])))
            return rc;
        return call_named(pc, e, e->u.item.field ? "$FIELD" : "ITEM", a, 2, out);
    }
    case WEIR_SQL_EXPR_IN_QUERY:
    case WEIR_SQL_EXPR_EXISTS:
        /* WHERE conjuncts are semi / anti joins; elsewhere, counts of scalar subqueries joined below (subquery.c) */
        if ((rc = plan_bind_test(pc, r, as, e, out)) <= 0)
            return rc;
        return plan_error(pc, e->loc, WEIR_EUNSUPPORTED,
                          "%s is supported in a query's WHERE, SELECT list, GROUP BY, HAVING and an inner join's "
                          "ON, not here (an outer join's ON, OVER, or nested in a semi or anti join's subquery "
                          "naming the outer query)",
                          e->kind == WEIR_SQL_EXPR_EXISTS
                              ? "EXISTS (SELECT ...)"
                              : e->u.in_query.negated ? "NOT IN (SELECT ...)" : "IN (SELECT ...)");
    case WEIR_SQL_EXPR_SUBQUERY:
        /* a scalar subquery joined below (subquery.c): its value over the joined columns */
        if ((rc = plan_bind_scalar(pc, r, e, out)) <= 0)
            return rc;
        return plan_error(pc, e->loc, WEIR_EUNSUPPORTED,
                          "a scalar subquery ((SELECT ...) used as a value) is supported in a query's WHERE, "
                          "SELECT list, GROUP BY, HAVING and an inner join's ON, not here (an outer join's ON, OVER, "
                          "or nested in a semi or anti join's subquery naming the outer query)");
    default:
        return plan_error(pc, e->loc, WEIR_EUNSUPPORTED, "%s expressions are not supported yet",
                          weir__sql_expr_kind_name(e->kind));
    }
}
