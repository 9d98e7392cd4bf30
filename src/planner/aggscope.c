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
                                        "VAR_SAMP", "VARIANCE", "STDDEV_POP", "STDDEV_SAMP", "STDDEV", NULL};

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

int agg_scope_match_key(plan_ctx *pc, agg_scope *as, const weir_sql_expr *e, weir_expr **out)
{
    if (e->kind == WEIR_SQL_EXPR_COLUMN) {
        uint32_t idx;
        weir_error save = *pc->err;
        if (plan_resolve_column(pc, as->in, &e->u.column, &idx) != 0) {
            *pc->err = save;
            return 1; /* let the caller report it */
        }
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
            break;
        }
    }
    weir_buf_fini(&b);
    return rc;
}
