/*
 * planner/scope.c - the column names of a FROM item, told from its SQL and
 * the catalog without planning it.
 *
 * Names nest as SQL scopes do: an unqualified name resolves in the FROM of
 * its own query first, then in the enclosing query's. Where a query is
 * planned before its enclosing one is decided (a LATERAL derived table over
 * a join, a subquery two levels down), the planner needs to know whether a
 * bare name is the inner FROM's without planning that FROM (planning adds
 * operators to the job): these are its names.
 *
 * A table: its columns (physical, metadata, computed); a view or WITH
 * query: its column list, else its query's; a subquery: its column
 * aliases, else its query's items (the alias, a column's own name,
 * EXPR$i); a join: both sides'. A set operation has its left query's
 * names. What cannot be told so (a table function, UNNEST,
 * MATCH_RECOGNIZE, VALUES, a query with WITH) makes the set unknown: the
 * caller then reads only qualified names.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "planner/query_internal.h"

enum { MAX_VIEW_DEPTH = 16 };

static int add(plan_ctx *pc, plan_colnames *o, const char *name)
{
    if (o->n == o->cap) {
        uint32_t cap = o->cap ? 2 * o->cap : 16;
        const char **v = plan_alloc(pc, cap * sizeof *v);
        if (!v)
            return WEIR_ENOMEM;
        if (o->n)
            memcpy(v, o->v, o->n * sizeof *v);
        o->v = v;
        o->cap = cap;
    }
    o->v[o->n++] = name;
    return 0;
}

static int aliases(plan_ctx *pc, const weir_sql_ident *a, uint32_t n, plan_colnames *o)
{
    int rc = 0;
    for (uint32_t i = 0; !rc && i < n; i++)
        rc = add(pc, o, a[i].name);
    return rc;
}

static int from_names(plan_ctx *pc, const weir_sql_table_ref *t, plan_colnames *o, int depth);

static int query_names(plan_ctx *pc, const weir_sql_query *q, plan_colnames *o, int depth)
{
    while (q->kind == WEIR_SQL_QUERY_SETOP)
        q = q->u.setop.left;
    if (q->kind != WEIR_SQL_QUERY_SELECT || q->n_with) {
        o->unknown = true;
        return 0;
    }
    const weir_sql_select *sel = q->u.select;
    int rc = 0;
    for (uint32_t i = 0; !rc && i < sel->n_items && !o->unknown; i++) {
        const weir_sql_select_item *it = &sel->items[i];
        if (it->expr->kind == WEIR_SQL_EXPR_STAR) {
            /* t.* as the whole FROM's: more names than it has only makes fewer names outer ones */
            if (!sel->from)
                o->unknown = true;
            else
                rc = from_names(pc, sel->from, o, depth);
            continue;
        }
        char nm[64];
        plan_item_name(it, i, nm, sizeof nm);
        const char *s = plan_strdup(pc, nm);
        rc = s ? add(pc, o, s) : WEIR_ENOMEM;
    }
    return rc;
}

static int from_names(plan_ctx *pc, const weir_sql_table_ref *t, plan_colnames *o, int depth)
{
    if (o->unknown)
        return 0;
    if (depth > MAX_VIEW_DEPTH) {
        o->unknown = true;
        return 0;
    }
    if (t->kind != WEIR_SQL_FROM_JOIN && t->n_column_aliases)
        return aliases(pc, t->column_aliases, t->n_column_aliases, o);
    switch (t->kind) {
    case WEIR_SQL_FROM_JOIN: {
        int rc = from_names(pc, t->u.join.left, o, depth);
        return rc ? rc : from_names(pc, t->u.join.right, o, depth);
    }
    case WEIR_SQL_FROM_SUBQUERY:
        return query_names(pc, t->u.subquery.query, o, depth);
    case WEIR_SQL_FROM_TABLE: {
        cat_view *v = plan_find_view(pc, &t->u.table.name);
        if (v) {
            if (v->n_columns)
                return aliases(pc, v->columns, v->n_columns, o);
            plan_home saved;
            plan_view_enter(pc, v, &saved);
            int rc = query_names(pc, v->query, o, depth + 1);
            plan_view_leave(pc, &saved);
            return rc;
        }
        const cat_table *tb = plan_find_table(pc, &t->u.table.name);
        if (!tb) {
            o->unknown = true;
            return 0;
        }
        int rc = 0;
        for (uint32_t i = 0; !rc && i < tb->full->n_fields; i++)
            rc = add(pc, o, tb->full->fields[i].name);
        return rc;
    }
    default:
        o->unknown = true;
        return 0;
    }
}

int plan_from_colnames(plan_ctx *pc, const weir_sql_table_ref *t, plan_colnames *o)
{
    return from_names(pc, t, o, 0);
}

bool plan_colnames_has(const plan_colnames *o, const char *name)
{
    for (uint32_t i = 0; i < o->n; i++)
        if (!strcasecmp(o->v[i], name))
            return true;
    return false;
}

bool plan_outer_name(const plan_ctx *pc, const rel *outer, const weir_sql_expr *e)
{
    if (e->kind != WEIR_SQL_EXPR_COLUMN || e->u.column.n_parts != 1)
        return false;
    return plan_find_column(pc, outer, &e->u.column) != -1;
}
