/*
 * planner/aggscope.c - resolving expressions inside an aggregation:
 * grouping keys, aggregate calls and window properties.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "planner/query_internal.h"

static const char *const AGG_NAMES[] = {"COUNT", "SUM", "SUM0", "AVG", "MIN", "MAX", "FIRST_VALUE",
                                        "LAST_VALUE", "APPROX_COUNT_DISTINCT", "APPROX_PERCENTILE", "VAR_POP",
                                        "VAR_SAMP", "VARIANCE", "STDDEV_POP", "STDDEV_SAMP", "STDDEV", "LISTAGG", "COLLECT", "SINGLE_VALUE",
                                        "ARRAY_AGG", "PERCENTILE", NULL};

const char *const *plan_agg_names(void) { return AGG_NAMES; }

bool plan_is_agg_name(const char *name)
{
    for (int i = 0; AGG_NAMES[i]; i++)
        if (!strcasecmp(name, AGG_NAMES[i]))
            return true;
    return false;
}

bool plan_is_window_prop(const char *name)
{
    static const char *const props[] = {"TUMBLE_START", "TUMBLE_END", "TUMBLE_ROWTIME", "HOP_START", "HOP_END",
                                        "HOP_ROWTIME", "SESSION_START", "SESSION_END", "SESSION_ROWTIME",
                                        "CUMULATE_START", "CUMULATE_END", "CUMULATE_ROWTIME", "TUMBLE_PROCTIME",
                                        "HOP_PROCTIME", "SESSION_PROCTIME", NULL};
    for (int i = 0; props[i]; i++)
        if (!strcasecmp(name, props[i]))
            return true;
    return false;
}

static int column_ref(plan_ctx *pc, agg_scope *as, const weir_sql_expr *at, uint32_t col, weir_expr **out)
{
    weir_error err = {0};
    int rc = weir_expr_column(pc->arena, col, as->out->schema->fields[col].type, out, &err);
    if (rc && rc != WEIR_ENOMEM)
        return plan_error(pc, at->loc, rc, "%s", err.message);
    return rc;
}

/* Whether e and g are the same grouping expression: the same input column, or the same SQL text. */
static int same_expr(plan_ctx *pc, agg_scope *as, const weir_sql_expr *e, const weir_sql_expr *g, const char *g_text,
                     bool *same)
{
    *same = false;
    bool ep = plan_is_field_path(pc, as->in, e), gp = plan_is_field_path(pc, as->in, g);
    if (e->kind == WEIR_SQL_EXPR_COLUMN && g->kind == WEIR_SQL_EXPR_COLUMN && !ep && !gp) {
        int a = plan_find_column(pc, as->in, &e->u.column), b = plan_find_column(pc, as->in, &g->u.column);
        *same = a >= 0 && a == b;
        return 0;
    }
    if ((e->kind == WEIR_SQL_EXPR_COLUMN && !ep) || (g->kind == WEIR_SQL_EXPR_COLUMN && !gp) ||
        e->kind == WEIR_SQL_EXPR_LITERAL)
        return 0;
    weir_buf b;
    weir_buf_init(&b);
    if (weir__sql_format_expr(e, &b) || weir_buf_put_u8(&b, 0)) {
        weir_buf_fini(&b);
        return WEIR_ENOMEM;
    }
    *same = !strcasecmp(g_text, (char *)b.data);
    weir_buf_fini(&b);
    return 0;
}

/* The index in gs_expr of grouping expression e, or -1. */
static int gs_find(plan_ctx *pc, agg_scope *as, const weir_sql_expr *e, int *at)
{
    *at = -1;
    for (uint32_t i = 0; i < as->n_gs; i++) {
        bool same;
        int rc = same_expr(pc, as, e, as->gs_expr[i], as->gs_text[i], &same);
        if (rc)
            return rc;
        if (same) {
            *at = (int)i;
            return 0;
        }
    }
    return 0;
}

int agg_scope_grouping(plan_ctx *pc, agg_scope *as, const weir_sql_expr *e, weir_expr **out)
{
    const char *name = e->u.call.name.parts[e->u.call.name.n_parts - 1].name;
    uint32_t n = e->u.call.n_args;
    if (n == 0 || n > 63)
        return plan_error(pc, e->loc, WEIR_EPLAN, "%s takes 1 to 63 grouping expressions", name);
    int64_t v = 0;
    for (uint32_t i = 0; i < n; i++) {
        const weir_sql_expr *a = e->u.call.args[i];
        int at, rc;
        if ((rc = gs_find(pc, as, a, &at)))
            return rc;
        bool grouped;
        if (at >= 0) {
            grouped = as->gs_in[at];
        } else {
            /* Not in a grouping set: it must be a plain key (always grouped). */
            weir_expr *tmp;
            weir_error save = *pc->err;
            rc = agg_scope_match_key(pc, as, a, &tmp);
            if (rc < 0)
                return rc;
            if (rc > 0) {
                *pc->err = save;
                return plan_error(pc, a->loc, WEIR_EPLAN, "the arguments of %s must be GROUP BY expressions", name);
            }
            grouped = true;
        }
        v = (v << 1) | (grouped ? 0 : 1);
    }
    *out = weir_expr_lit_bigint(pc->arena, v);
    return *out ? 0 : WEIR_ENOMEM;
}

int agg_scope_match_key(plan_ctx *pc, agg_scope *as, const weir_sql_expr *e, weir_expr **out)
{
    if (as->n_gs) {
        int at, rc;
        if ((rc = gs_find(pc, as, e, &at)))
            return rc;
        if (at >= 0 && !as->gs_in[at]) {
            /* Not grouped in this set: NULL, of the expression's type. */
            weir_expr *typed;
            if ((rc = plan_bind_expr(pc, as->in, NULL, e, &typed)))
                return rc;
            weir_type t = weir_expr_type(typed);
            t.nullable = true;
            *out = weir_expr_lit_null(pc->arena, t);
            return *out ? 0 : WEIR_ENOMEM;
        }
    }
    if (e->kind == WEIR_SQL_EXPR_COLUMN && !plan_is_field_path(pc, as->in, e)) {
        uint32_t idx;
        weir_error save = *pc->err;
        if (plan_resolve_column(pc, as->in, &e->u.column, &idx) != 0) {
            *pc->err = save;
            return 1; /* let the caller report it */
        }
        if (idx < as->n_outer && as->inner && plan_find_column(pc, as->inner, &e->u.column) == -1)
            return column_ref(pc, as, e, idx, out);
        if (as->windowed && (int32_t)idx == as->ws_in)
            return column_ref(pc, as, e, as->ws_out, out);
        if (as->windowed && (int32_t)idx == as->we_in)
            return column_ref(pc, as, e, as->we_out, out);
        if (as->windowed && (int32_t)idx == as->wt_in)
            return column_ref(pc, as, e, as->wt_out, out);
        for (uint32_t k = 0; k < as->n_keys; k++)
            if (as->key_in_col[k] == (int32_t)idx)
                return column_ref(pc, as, e, k, out);
        return 1;
    }
    if (e->kind == WEIR_SQL_EXPR_LITERAL)
        return 1;
    weir_buf b;
    weir_buf_init(&b);
    if (weir__sql_format_expr(e, &b) || weir_buf_put_u8(&b, 0)) {
        weir_buf_fini(&b);
        return WEIR_ENOMEM;
    }
    int rc = 1;
    for (uint32_t k = 0; k < as->n_keys; k++) {
        if (as->key_in_col[k] < 0 && !strcasecmp(as->key_text[k], (char *)b.data)) {
            rc = column_ref(pc, as, e, k, out);
            break;
        }
    }
    weir_buf_fini(&b);
    return rc;
}

int agg_scope_column(plan_ctx *pc, agg_scope *as, const weir_sql_expr *e, weir_expr **out)
{
    (void)out;
    uint32_t idx;
    int rc = plan_resolve_column(pc, as->in, &e->u.column, &idx);
    if (rc)
        return rc;
    return plan_error(pc, e->loc, WEIR_EPLAN,
                      "column '%s' must appear in the GROUP BY clause or be used in an aggregate function",
                      as->in->schema->fields[idx].name);
}

/*
 * LAG(x, n, default): CASE WHEN <the row n back exists> THEN <LAG> ELSE
 * default END, so a NULL x n rows back stays NULL, as in Flink. *out is
 * the LAG column on entry.
 */
static int lag_default(plan_ctx *pc, agg_scope *as, const weir_sql_expr *e, const char *text, weir_expr **out)
{
    size_t tl = strlen(text);
    for (uint32_t i = 0; i < as->n_calls; i++) {
        const char *t = as->calls[i].text;
        if (strncmp(t, text, tl) || strcmp(t + tl, LAG_PRESENT_SUFFIX))
            continue;
        weir_expr *present, *def, *res;
        int rc = column_ref(pc, as, e, as->calls[i].out_col, &present);
        if (!rc)
            rc = plan_bind_expr(pc, as->out, NULL, e->u.call.args[2], &def);
        if (rc)
            return rc;
        weir_error err = {0};
        if ((rc = weir_expr_case(pc->arena, &present, out, 1, def, &res, &err)))
            return rc == WEIR_ENOMEM ? rc : plan_error(pc, e->u.call.args[2]->loc, rc, "LAG's default: %s", err.message);
        *out = res;
        return 0;
    }
    return plan_error(pc, e->loc, WEIR_EPLAN, "internal error: LAG's default was not planned");
}

/* A COUNT read through a LEFT join (outer_joined): a key without rows reads NULL there, and counts 0. */
static int count_of_none(plan_ctx *pc, const weir_sql_expr *e, weir_expr **out)
{
    weir_expr *a[2] = {*out, weir_expr_lit_bigint(pc->arena, 0)};
    weir_error err = {0};
    if (!a[1])
        return WEIR_ENOMEM;
    int rc = weir_expr_call(pc->arena, "COALESCE", a, 2, out, &err);
    return rc && rc != WEIR_ENOMEM ? plan_error(pc, e->loc, rc, "%s", err.message) : rc;
}

int agg_scope_ref(plan_ctx *pc, agg_scope *as, const weir_sql_expr *e, weir_expr **out)
{
    const weir_sql_name *n = &e->u.call.name;
    const char *name = n->parts[n->n_parts - 1].name;
    if (plan_is_window_prop(name)) {
        if (!as->windowed)
            return plan_error(pc, e->loc, WEIR_EPLAN, "%s needs a GROUP BY with a group window (TUMBLE, HOP or SESSION)",
                              name);
        const char *us = strrchr(name, '_');
        if (!strcasecmp(us, "_START"))
            return column_ref(pc, as, e, as->ws_out, out);
        if (!strcasecmp(us, "_END"))
            return column_ref(pc, as, e, as->we_out, out);
        return column_ref(pc, as, e, as->wt_out, out);
    }
    weir_buf b;
    weir_buf_init(&b);
    if (weir__sql_format_expr(e, &b) || weir_buf_put_u8(&b, 0)) {
        weir_buf_fini(&b);
        return WEIR_ENOMEM;
    }
    int rc = plan_error(pc, e->loc, WEIR_EPLAN, "internal error: aggregate %s was not collected", name);
    for (uint32_t i = 0; i < as->n_calls; i++) {
        if (!strcmp(as->calls[i].text, (char *)b.data)) {
            weir_error_clear(pc->err);
            rc = column_ref(pc, as, e, as->calls[i].out_col, out);
            if (!rc && as->outer_joined && !strncmp(as->calls[i].fn, "COUNT", 5))
                rc = count_of_none(pc, e, out);
            if (!rc && as->phase == AGG_OVER && !strcmp(as->calls[i].fn, "LAG") && e->u.call.n_args == 3)
                rc = lag_default(pc, as, e, (const char *)b.data, out);
            break;
        }
    }
    weir_buf_fini(&b);
    return rc;
}
