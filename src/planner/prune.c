/*
 * planner/prune.c - projection pushdown into sources that can skip columns.
 *
 * A SELECT that reads a table directly (FROM t, or a window table function
 * over TABLE t; no '*') names every column it uses; the source then produces only those (and the rowtime), so a
 * generator does not copy strings no operator reads. The rel of the source
 * carries the narrower schema, and every expression above binds by name
 * against it, so nothing downstream changes.
 *
 * The analysis is by name and conservative: any column reference anywhere
 * in the SELECT (items, WHERE, GROUP BY, HAVING, aggregate arguments), and
 * every column of the late-records table (late rows carry them), keeps the
 * column of that name, whatever its qualifier. Anything the walk
 * does not understand (subqueries, OVER windows, '*', column aliases on the
 * table) turns pushdown off for that SELECT.
 *
 * Only sources whose values do not depend on the set of columns read get a
 * narrower schema: the nexmark generator draws every random value whether
 * the column is read or not (connector/nexmark/source.c), and matches
 * columns by name. File formats (CSV columns by position, JSON's
 * fail-on-missing-field) and datagen (values hashed per column index) do
 * not qualify. 'weir.source.projection-pushdown' = 'false' turns it off.
 *
 * A SELECT over joins (FROM a JOIN b ON ..., FROM a, b WHERE ...) gets the
 * same analysis, over its ON conditions and USING columns too: a join keeps
 * every row of an input it has not matched yet, so each input's columns
 * that nothing above the join reads would be stored for nothing (Nexmark
 * q4 reads 4 of an auction's 10 columns and 3 of a bid's 7). The tables of
 * the join tree that project by name produce only the columns named, and
 * every other input of a join of that tree (a subquery, a view, a table of
 * another connector, a nested join's result) gets a projection below the
 * join keeping those columns, its time attributes and window bounds. The
 * names apply to that tree's FROM items only (pc->proj_refs), never to the
 * queries nested in it, which have their own. Not understood, so not
 * narrowed: an unqualified '*', a qualified one that is not a table of the
 * tree, NATURAL joins, LATERAL, table functions and UNNEST in the tree.
 */
#include <string.h>
#include <strings.h>

#include "planner/planner.h"

static int add_name(plan_ctx *pc, const char *name)
{
    for (size_t i = 0; i < pc->n_proj; i++)
        if (!strcasecmp(pc->proj[i], name))
            return 0;
    const char **nv = weir_realloc(pc->proj, (pc->n_proj + 1) * sizeof *nv);
    if (!nv)
        return WEIR_ENOMEM;
    pc->proj = nv;
    pc->proj[pc->n_proj++] = name;
    return 0;
}

/* 1: every column visited; 0: cannot tell (something the walk does not
 * understand); < 0: error. */
static int walk(const plan_column_visitor *vis, const weir_sql_expr *e);

static int walk_list(const plan_column_visitor *vis, weir_sql_expr *const *v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        int rc = v[i] ? walk(vis, v[i]) : 1;
        if (rc <= 0)
            return rc;
    }
    return 1;
}

static int walk(const plan_column_visitor *vis, const weir_sql_expr *e)
{
    int rc;
    switch (e->kind) {
    case WEIR_SQL_EXPR_LITERAL: return 1;
    case WEIR_SQL_EXPR_COLUMN: return vis->column(vis->ud, e);
    case WEIR_SQL_EXPR_UNARY: return walk(vis, e->u.unary.operand);
    case WEIR_SQL_EXPR_BINARY:
        return (rc = walk(vis, e->u.binary.left)) <= 0 ? rc : walk(vis, e->u.binary.right);
    case WEIR_SQL_EXPR_IS:
        return (rc = walk(vis, e->u.is.operand)) <= 0 ? rc : e->u.is.other ? walk(vis, e->u.is.other) : 1;
    case WEIR_SQL_EXPR_BETWEEN:
        if ((rc = walk(vis, e->u.between.operand)) <= 0 || (rc = walk(vis, e->u.between.low)) <= 0)
            return rc;
        return walk(vis, e->u.between.high);
    case WEIR_SQL_EXPR_IN_LIST:
        return (rc = walk(vis, e->u.in_list.operand)) <= 0 ? rc : walk_list(vis, e->u.in_list.items, e->u.in_list.n_items);
    case WEIR_SQL_EXPR_LIKE:
        if ((rc = walk(vis, e->u.like.operand)) <= 0 || (rc = walk(vis, e->u.like.pattern)) <= 0)
            return rc;
        return e->u.like.escape ? walk(vis, e->u.like.escape) : 1;
    case WEIR_SQL_EXPR_CASE:
        if (e->u.case_.operand && (rc = walk(vis, e->u.case_.operand)) <= 0)
            return rc;
        for (uint32_t i = 0; i < e->u.case_.n_whens; i++)
            if ((rc = walk(vis, e->u.case_.whens[i].when)) <= 0 || (rc = walk(vis, e->u.case_.whens[i].then)) <= 0)
                return rc;
        return e->u.case_.else_ ? walk(vis, e->u.case_.else_) : 1;
    case WEIR_SQL_EXPR_CAST: return walk(vis, e->u.cast.operand);
    case WEIR_SQL_EXPR_EXTRACT: return walk(vis, e->u.extract.operand);
    case WEIR_SQL_EXPR_CALL:
        if (e->u.call.over)
            return 0;
        if (e->u.call.filter && (rc = walk(vis, e->u.call.filter)) <= 0)
            return rc;
        return walk_list(vis, e->u.call.args, e->u.call.n_args);
    case WEIR_SQL_EXPR_ARRAY:
    case WEIR_SQL_EXPR_MAP: return walk_list(vis, e->u.list.items, e->u.list.n_items);
    case WEIR_SQL_EXPR_ITEM:
        return (rc = walk(vis, e->u.item.operand)) <= 0 ? rc : walk(vis, e->u.item.index);
    case WEIR_SQL_EXPR_NAMED_ARG: return walk(vis, e->u.named_arg.value);
    default: return 0; /* '*', subqueries, table arguments, grouping sets */
    }
}

int plan_walk_columns(const plan_column_visitor *vis, const weir_sql_expr *e)
{
    return walk(vis, e);
}

/* Projection pushdown's visitor: every part of the name is kept (in col.field, a ROW field access, the column is
 * not the last part). */
static int keep_names(void *ud, const weir_sql_expr *e)
{
    plan_ctx *pc = ud;
    for (uint32_t i = 0; i < e->u.column.n_parts; i++) {
        int rc = add_name(pc, e->u.column.parts[i].name);
        if (rc)
            return rc;
    }
    return 1;
}

static int add_ref(plan_ctx *pc, const weir_sql_table_ref *r)
{
    const weir_sql_table_ref **nv = weir_realloc(pc->proj_refs, (pc->n_proj_refs + 1) * sizeof *nv);
    if (!nv)
        return WEIR_ENOMEM;
    pc->proj_refs = nv;
    pc->proj_refs[pc->n_proj_refs++] = r;
    return 0;
}

static bool has_ref(const plan_ctx *pc, const weir_sql_table_ref *r)
{
    for (size_t i = 0; r && i < pc->n_proj_refs; i++)
        if (pc->proj_refs[i] == r)
            return true;
    return false;
}

/* A table of the FROM tree whose source may produce fewer columns: a table (not a view), no column aliases. */
static const cat_table *plain_table(plan_ctx *pc, const weir_sql_table_ref *f)
{
    if (f->kind != WEIR_SQL_FROM_TABLE || f->u.table.system_time || f->n_column_aliases ||
        plan_find_view(pc, &f->u.table.name))
        return NULL;
    return plan_find_table(pc, &f->u.table.name);
}

/* The FROM items of a join tree: 1 when each is understood (its ON conditions visited), 0 when not, < 0: error. */
static int join_tree(plan_ctx *pc, const plan_column_visitor *v, const weir_sql_table_ref *f)
{
    int rc;
    switch (f->kind) {
    case WEIR_SQL_FROM_TABLE:
        if (f->u.table.system_time) /* a lookup or temporal join's table: read as it is */
            return walk(v, f->u.table.system_time);
        return plain_table(pc, f) && add_ref(pc, f) ? WEIR_ENOMEM : 1;
    case WEIR_SQL_FROM_SUBQUERY: return f->u.subquery.lateral ? 0 : 1;
    case WEIR_SQL_FROM_JOIN:
        if (f->u.join.natural || f->u.join.right->kind == WEIR_SQL_FROM_UNNEST)
            return 0;
        if ((rc = join_tree(pc, v, f->u.join.left)) <= 0 || (rc = join_tree(pc, v, f->u.join.right)) <= 0)
            return rc;
        if (f->u.join.on && (rc = walk(v, f->u.join.on)) <= 0)
            return rc;
        for (uint32_t i = 0; i < f->u.join.n_using; i++)
            if (add_name(pc, f->u.join.using_[i].name))
                return WEIR_ENOMEM;
        return add_ref(pc, f) ? WEIR_ENOMEM : 1;
    default: return 0; /* table functions, UNNEST */
    }
}

/* The FROM item of the tree that t.* names, or NULL. */
static const weir_sql_table_ref *named_item(const weir_sql_table_ref *f, const char *q)
{
    if (f->kind == WEIR_SQL_FROM_JOIN) {
        const weir_sql_table_ref *l = named_item(f->u.join.left, q);
        return l ? l : named_item(f->u.join.right, q);
    }
    if (f->alias)
        return strcasecmp(f->alias->name, q) ? NULL : f;
    if (f->kind == WEIR_SQL_FROM_TABLE && !strcasecmp(f->u.table.name.parts[f->u.table.name.n_parts - 1].name, q))
        return f;
    return NULL;
}

/* A select item of a SELECT over joins: t.* of a table of the tree keeps all of t's columns. */
static int join_item(plan_ctx *pc, const plan_column_visitor *v, const weir_sql_table_ref *from, const weir_sql_expr *e)
{
    if (e->kind != WEIR_SQL_EXPR_STAR)
        return walk(v, e);
    const weir_sql_name *q = &e->u.star.qualifier;
    if (!q->n_parts)
        return 0;
    const weir_sql_table_ref *f = named_item(from, q->parts[q->n_parts - 1].name);
    const cat_table *t = f ? plain_table(pc, f) : NULL;
    if (!t)
        return 0; /* a subquery's or a view's columns are not known before it is planned */
    for (uint32_t i = 0; i < t->full->n_fields; i++)
        if (add_name(pc, t->full->fields[i].name))
            return WEIR_ENOMEM;
    return 1;
}

int plan_projection_begin(plan_ctx *pc, const weir_sql_select *sel)
{
    plan_projection_end(pc);
    const plan_column_visitor v = {keep_names, pc};
    const char *opt = plan_config(pc, "weir.source.projection-pushdown");
    bool on = true;
    if (opt && weir_option_parse_bool(opt, &on))
        return plan_error(pc, plan_config_at(pc, "weir.source.projection-pushdown", sel->loc), WEIR_EINVAL, "weir.source.projection-pushdown: expected true or false, not '%s'",
                          opt);
    const weir_sql_table_ref *f = sel->from;
    if (!on || !f || f->n_column_aliases || sel->n_windows)
        return 0;
    int rc = 1;
    if (f->kind == WEIR_SQL_FROM_FUNCTION && !f->u.function.lateral) {
        /* a window table function over a table: TABLE t, DESCRIPTOR(ts), sizes */
        const weir_sql_expr *call = f->u.function.call;
        bool table = false;
        for (uint32_t i = 0; i < call->u.call.n_args && rc > 0; i++) {
            const weir_sql_expr *a = call->u.call.args[i];
            if (a->kind == WEIR_SQL_EXPR_NAMED_ARG)
                a = a->u.named_arg.value;
            if (a->kind == WEIR_SQL_EXPR_TABLE_ARG) {
                const weir_sql_name *n = &a->u.table_arg.table;
                table = plan_find_table(pc, n) && !plan_find_view(pc, n) && !a->u.table_arg.n_order_by;
                rc = table ? walk_list(&v, a->u.table_arg.partition_by, a->u.table_arg.n_partition_by) : 0;
            } else if (a->kind == WEIR_SQL_EXPR_DESCRIPTOR) {
                for (uint32_t k = 0; k < a->u.descriptor.n_columns && rc > 0; k++)
                    rc = add_name(pc, a->u.descriptor.columns[k].name) ? WEIR_ENOMEM : 1;
            } else {
                rc = walk(&v, a);
            }
        }
        if (!table && rc > 0)
            rc = 0;
    } else if (f->kind == WEIR_SQL_FROM_JOIN) {
        rc = join_tree(pc, &v, f);
    } else if (f->kind != WEIR_SQL_FROM_TABLE || f->u.table.system_time || !plan_find_table(pc, &f->u.table.name) ||
               plan_find_view(pc, &f->u.table.name)) {
        return 0;
    }
    for (uint32_t i = 0; i < sel->n_items && rc > 0; i++)
        rc = f->kind == WEIR_SQL_FROM_JOIN ? join_item(pc, &v, f, sel->items[i].expr) : walk(&v, sel->items[i].expr);
    if (rc > 0 && sel->where)
        rc = walk(&v, sel->where);
    if (rc > 0)
        rc = walk_list(&v, sel->group_by, sel->n_group_by);
    if (rc > 0 && sel->having)
        rc = walk(&v, sel->having);
    /* A window aggregation's late rows carry the input columns the late-records table names. */
    if (rc > 0) {
        cat_table *lt = NULL;
        (void)plan_late_table(pc, sel->loc, true, &lt); /* quiet: the aggregation reports a wrong name */
        for (uint32_t i = 0; lt && i < lt->physical->n_fields && rc > 0; i++)
            rc = add_name(pc, lt->physical->fields[i].name) ? WEIR_ENOMEM : 1;
    }
    if (rc < 0)
        return rc;
    if (rc == 0) {
        plan_projection_end(pc);
        return 0;
    }
    pc->proj_on = true;
    return 0;
}

void plan_projection_end(plan_ctx *pc)
{
    weir_free(pc->proj);
    pc->proj = NULL;
    pc->n_proj = 0;
    pc->proj_on = false;
    weir_free(pc->proj_refs);
    pc->proj_refs = NULL;
    pc->n_proj_refs = 0;
}

void plan_projection_save(plan_ctx *pc, plan_projection_saved *s)
{
    *s = (plan_projection_saved){pc->proj, pc->n_proj, pc->proj_on, pc->proj_refs, pc->n_proj_refs};
    pc->proj = NULL;
    pc->n_proj = 0;
    pc->proj_on = false;
    pc->proj_refs = NULL;
    pc->n_proj_refs = 0;
}

void plan_projection_restore(plan_ctx *pc, const plan_projection_saved *s)
{
    plan_projection_end(pc);
    pc->proj = s->proj;
    pc->n_proj = s->n_proj;
    pc->proj_on = s->proj_on;
    pc->proj_refs = s->refs;
    pc->n_proj_refs = s->n_refs;
}

static bool projects_by_name(const cat_table *t)
{
    for (size_t i = 0; i < t->n_opts; i++)
        if (!strcasecmp(t->opts[i].key, "connector"))
            return !strcasecmp(t->opts[i].value, "nexmark");
    return false;
}

static bool name_used(const plan_ctx *pc, const char *name)
{
    for (size_t i = 0; i < pc->n_proj; i++)
        if (!strcasecmp(pc->proj[i], name))
            return true;
    return false;
}

int plan_projection_apply(plan_ctx *pc, const cat_table *t, const weir_sql_table_ref *ref, plan_source_cols *out)
{
    out->physical = t->physical;
    out->full = t->full;
    out->rowtime = t->rowtime;
    out->has_proctime = t->has_proctime;
    out->proctime = t->proctime;
    out->pruned = false;
    if (!pc->proj_on || !projects_by_name(t) || (pc->n_proj_refs && !has_ref(pc, ref)))
        return 0;
    const plan_column_visitor v = {keep_names, pc};
    uint32_t np = t->physical->n_fields, keep = 0;
    bool *kept = plan_alloc(pc, (np + 1) * sizeof *kept);
    if (!kept)
        return WEIR_ENOMEM;
    /* Computed columns read physical ones by name: keep what they read. */
    for (uint32_t i = 0; i < t->ddl->n_columns; i++) {
        const weir_sql_column *c = &t->ddl->columns[i];
        if (c->kind == WEIR_SQL_COLUMN_COMPUTED) {
            int rc = walk(&v, c->expr);
            if (rc < 0)
                return rc;
            if (rc == 0)
                return 0;
        }
    }
    for (uint32_t i = 0; i < np; i++) {
        kept[i] = (int)i == t->rowtime || name_used(pc, t->physical->fields[i].name);
        keep += kept[i];
    }
    if (keep == np)
        return 0;
    weir_schema *ps = plan_new_schema(pc), *fs = plan_new_schema(pc);
    if (!ps || !fs)
        return WEIR_ENOMEM;
    fs->rowtime = -1;
    out->rowtime = -1;
    for (uint32_t i = 0; i < t->full->n_fields; i++) {
        if (i < np && !kept[i])
            continue;
        const weir_field *f = &t->full->fields[i];
        int at = weir_schema_add(fs, f->name, f->type);
        if (at < 0 || (i < np && weir_schema_add(ps, f->name, f->type) < 0))
            return WEIR_ENOMEM;
        if ((int)i == t->rowtime)
            out->rowtime = fs->rowtime = at;
        if (t->has_proctime && i == t->proctime)
            out->proctime = (uint32_t)at;
    }
    out->physical = ps;
    out->full = fs;
    out->pruned = true;
    return 0;
}

int plan_projection_join_input(plan_ctx *pc, const weir_sql_table_ref *join, rel *r)
{
    if (!pc->proj_on || !has_ref(pc, join) || r->win.present || r->n_hidden)
        return 0;
    uint32_t n = r->n_physical, keep = 0;
    int alt = plan_alt_time_of(pc, r);
    uint32_t *cols = plan_alloc(pc, (n + 1) * sizeof *cols);
    if (!cols)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < n; i++) {
        bool time = (int)i == r->rowtime || (int)i == alt || (r->has_proctime && i == r->proctime);
        bool bound = r->wprops.present && (i == r->wprops.ws || i == r->wprops.we || (int)i == r->wprops.wt);
        if (time || bound || name_used(pc, r->schema->fields[i].name))
            cols[keep++] = i;
    }
    if (keep == n || n == 0)
        return 0;
    if (!keep)
        cols[keep++] = 0; /* nothing read (SELECT COUNT(*) over a cross product): one column carries the rows */
    return plan_keep_columns(pc, r, cols, keep);
}

int plan_keep_columns(plan_ctx *pc, rel *r, const uint32_t *cols, uint32_t keep)
{
    weir_expr **exprs = plan_alloc(pc, keep * sizeof *exprs);
    const char **names = plan_alloc(pc, keep * sizeof *names);
    if (!exprs || !names)
        return WEIR_ENOMEM;
    weir_error err = {0};
    for (uint32_t i = 0; i < keep; i++) {
        if (weir_expr_column(pc->arena, cols[i], r->schema->fields[cols[i]].type, &exprs[i], &err))
            return WEIR_ENOMEM;
        names[i] = r->schema->fields[cols[i]].name;
    }
    rel o;
    int rc = plan_calc(pc, r, NULL, exprs, names, keep, &o, "Calc");
    if (rc)
        return rc;
    for (uint32_t i = 0; i < keep; i++)
        o.quals[i] = r->quals ? r->quals[cols[i]] : NULL;
    o.loc = r->loc;
    *r = o;
    return 0;
}
