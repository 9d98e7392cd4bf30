/*
 * planner/ddl.c - the statements that change the catalog after CREATE:
 * DROP TABLE / VIEW, ALTER TABLE / VIEW, CREATE TABLE ... LIKE, CREATE
 * TABLE ... AS query and [CREATE OR] REPLACE TABLE ... AS query; and the
 * ones that show it: SHOW TABLES / VIEWS / CREATE TABLE / CREATE VIEW,
 * DESCRIBE. (Catalogs and databases themselves: database.c.)
 *
 * A table's definition is its CREATE TABLE syntax tree (cat_table.ddl).
 * ALTER TABLE and LIKE write a new tree - the old one with the change
 * applied, in the plan context's memory - and the table is made again from
 * it by plan_create_table, so an altered table is checked exactly as if it
 * had been created that way (a watermark on a missing column, a computed
 * column over a dropped one). The statements run in script order, as in
 * Flink's SQL client: a statement sees the catalog the ones before it left.
 *
 * SHOW and DESCRIBE write their table of rows, in the SQL client's layout,
 * to the statement output (with EXPLAIN's), which `weir run` prints once,
 * before the job runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "planner/planner.h"
#include "weir/buf.h"

static const char *last_part(const weir_sql_name *n) { return n->parts[n->n_parts - 1].name; }

static void remove_table(plan_ctx *pc, cat_table *t)
{
    size_t i = (size_t)(t - pc->tables);
    memmove(&pc->tables[i], &pc->tables[i + 1], (pc->n_tables - i - 1) * sizeof *t);
    pc->n_tables--;
}

static void remove_view(plan_ctx *pc, cat_view *v)
{
    size_t i = (size_t)(v - pc->views);
    memmove(&pc->views[i], &pc->views[i + 1], (pc->n_views - i - 1) * sizeof *v);
    pc->n_views--;
}

/* "table 'x' does not exist" with what is missing; what: "table" or "view". */
static int missing(plan_ctx *pc, const weir_sql_name *n, const char *what)
{
    return plan_missing(pc, n, what, false);
}

static bool ident_is(const weir_sql_ident *id, const char *s) { return strcasecmp(id->name, s) == 0; }

/* ------------------------------------------------------------------ DROP */

/*
 * DROP [TEMPORARY] TABLE / VIEW, as Flink's catalog manager: the temporary
 * statement drops the temporary object of the path, the other one the
 * permanent object, and only while no temporary object of its kind
 * shadows it.
 */
static bool is_at(plan_ctx *pc, const cat_path *path, bool table, bool temporary)
{
    return table ? plan_table_at(pc, path, temporary) != NULL : plan_view_at(pc, path, temporary) != NULL;
}

static int drop_object(plan_ctx *pc, const weir_sql_drop *d, bool table)
{
    const char *name = last_part(&d->name);
    const char *kind = table ? "table" : "view", *other = table ? "view" : "table";
    cat_path path = {0};
    int rc = plan_qualify(pc, &d->name, &path);
    if (rc)
        return rc;
    cat_table *t = table ? plan_table_at(pc, &path, d->temporary) : NULL;
    cat_view *v = table ? NULL : plan_view_at(pc, &path, d->temporary);
    if (t || v) {
        if (!d->temporary && is_at(pc, &path, table, true))
            return plan_error(pc, d->name.loc, WEIR_EPLAN,
                              "temporary %s '%s' shadows it: DROP TEMPORARY %s drops that one first", kind, name,
                              table ? "TABLE" : "VIEW");
        if (t)
            remove_table(pc, t);
        else
            remove_view(pc, v);
        return 0;
    }
    if (!d->temporary && is_at(pc, &path, table, true))
        return plan_error(pc, d->name.loc, WEIR_EPLAN, "'%s' is a temporary %s: DROP TEMPORARY %s drops it", name,
                          kind, table ? "TABLE" : "VIEW");
    if (d->if_exists)
        return 0;
    if (is_at(pc, &path, !table, d->temporary))
        return plan_error(pc, d->name.loc, WEIR_EPLAN, "'%s' is a %s%s: DROP %s%s drops it", name,
                          d->temporary ? "temporary " : "", other, d->temporary ? "TEMPORARY " : "",
                          table ? "VIEW" : "TABLE");
    if (d->temporary && is_at(pc, &path, table, false))
        return plan_error(pc, d->name.loc, WEIR_EPLAN, "%s '%s' is not temporary: DROP %s drops it", kind, name,
                          table ? "TABLE" : "VIEW");
    return missing(pc, &d->name, d->temporary ? (table ? "temporary table" : "temporary view") : kind);
}

int plan_drop(plan_ctx *pc, const weir_sql_drop *d, weir_sql_loc loc)
{
    (void)loc;
    if (d->object == WEIR_SQL_OBJECT_TABLE || d->object == WEIR_SQL_OBJECT_VIEW)
        return drop_object(pc, d, d->object == WEIR_SQL_OBJECT_TABLE);
    return plan_drop_space(pc, d);
}

/* ------------------------------------------------ copies of a definition */

/* A table-level copy of a primary key (a column-level one points into the
 * old column array). */
static weir_sql_primary_key *copy_pk(plan_ctx *pc, const weir_sql_primary_key *pk)
{
    if (!pk)
        return NULL;
    weir_sql_primary_key *n = plan_alloc(pc, sizeof *n);
    weir_sql_ident *cols = plan_alloc(pc, (pk->n_columns + 1) * sizeof *cols);
    if (!n || !cols)
        return NULL;
    *n = *pk;
    memcpy(cols, pk->columns, pk->n_columns * sizeof *cols);
    n->columns = cols;
    n->column_level = false;
    return n;
}

/* A copy of the definition whose arrays may be changed: columns (with room
 * for `extra` more), options (room for `extra_opts`), partition keys (room
 * for `extra_parts`). */
static int copy_ddl(plan_ctx *pc, const weir_sql_create_table *ct, uint32_t extra, uint32_t extra_opts,
                    uint32_t extra_parts, weir_sql_create_table **out)
{
    weir_sql_create_table *n = plan_alloc(pc, sizeof *n);
    if (!n)
        return WEIR_ENOMEM;
    *n = *ct;
    n->columns = plan_alloc(pc, (ct->n_columns + extra + 1) * sizeof *n->columns);
    n->options = plan_alloc(pc, (ct->n_options + extra_opts + 1) * sizeof *n->options);
    n->partitioned_by = plan_alloc(pc, (ct->n_partitioned_by + extra_parts + 1) * sizeof *n->partitioned_by);
    if (!n->columns || !n->options || !n->partitioned_by || (ct->primary_key && !(n->primary_key = copy_pk(pc, ct->primary_key))))
        return WEIR_ENOMEM;
    if (ct->n_columns)
        memcpy(n->columns, ct->columns, ct->n_columns * sizeof *n->columns);
    if (ct->n_options)
        memcpy(n->options, ct->options, ct->n_options * sizeof *n->options);
    if (ct->n_partitioned_by)
        memcpy(n->partitioned_by, ct->partitioned_by, ct->n_partitioned_by * sizeof *n->partitioned_by);
    n->if_not_exists = false;
    n->like = NULL;
    n->as_query = NULL;
    n->or_replace = n->replace = false;
    n->has_column_list = true;
    *out = n;
    return 0;
}

static int find_column(const weir_sql_create_table *ct, const char *name)
{
    for (uint32_t i = 0; i < ct->n_columns; i++)
        if (ident_is(&ct->columns[i].name, name))
            return (int)i;
    return -1;
}

/* Does expression e name column `name` (unqualified or qualified)? */
static int names_column(const weir_sql_expr *e, void *ud)
{
    const char *name = ud;
    if (e->kind == WEIR_SQL_EXPR_COLUMN && !strcasecmp(last_part(&e->u.column), name))
        return 1;
    return weir__sql_expr_each_child(e, names_column, ud);
}

/* Refuses to drop or rename column c while something of the table uses it,
 * as Flink does. verb: "dropped" or "renamed". */
static int check_unused(plan_ctx *pc, const weir_sql_create_table *ct, const weir_sql_ident *c, const char *verb,
                        bool pk_too)
{
    for (uint32_t i = 0; i < ct->n_columns; i++)
        if (ct->columns[i].kind == WEIR_SQL_COLUMN_COMPUTED && names_column(ct->columns[i].expr, (void *)c->name))
            return plan_error(pc, c->loc, WEIR_EPLAN,
                              "column '%s' cannot be %s: computed column '%s' is defined over it", c->name, verb,
                              ct->columns[i].name.name);
    if (ct->watermark && (!strcasecmp(last_part(&ct->watermark->column), c->name) ||
                          names_column(ct->watermark->expr, (void *)c->name)))
        return plan_error(pc, c->loc, WEIR_EPLAN, "column '%s' cannot be %s: the watermark is defined on it",
                          c->name, verb);
    for (uint32_t i = 0; pk_too && ct->primary_key && i < ct->primary_key->n_columns; i++)
        if (ident_is(&ct->primary_key->columns[i], c->name))
            return plan_error(pc, c->loc, WEIR_EPLAN, "column '%s' cannot be %s: it is in the primary key", c->name,
                              verb);
    for (uint32_t i = 0; i < ct->n_partitioned_by; i++)
        if (ident_is(&ct->partitioned_by[i], c->name))
            return plan_error(pc, c->loc, WEIR_EPLAN, "column '%s' cannot be %s: it is a partition column", c->name,
                              verb);
    return 0;
}

/* --------------------------------------------------------- ALTER TABLE */

/* Moves column `from` to index `to` (shifting the ones between). */
static void move_column(weir_sql_create_table *ct, uint32_t from, uint32_t to)
{
    weir_sql_column c = ct->columns[from];
    if (from < to)
        memmove(&ct->columns[from], &ct->columns[from + 1], (to - from) * sizeof c);
    else if (from > to)
        memmove(&ct->columns[to + 1], &ct->columns[to], (from - to) * sizeof c);
    ct->columns[to] = c;
}

/* Places column at index `at` FIRST or AFTER another, as pos asks. */
static int place_column(plan_ctx *pc, weir_sql_create_table *ct, uint32_t at, const weir_sql_column_position *pos)
{
    if (pos->first) {
        move_column(ct, at, 0);
        return 0;
    }
    if (!pos->after)
        return 0;
    int ref = find_column(ct, pos->after->name);
    if (ref < 0 || (uint32_t)ref == at)
        return plan_error(pc, pos->after->loc, WEIR_ENOTFOUND, "AFTER %s: '%s' is not %s column of the table",
                          pos->after->name, pos->after->name, ref < 0 ? "a" : "another");
    move_column(ct, at, (uint32_t)ref < at ? (uint32_t)ref + 1 : (uint32_t)ref);
    return 0;
}

static int alter_components(plan_ctx *pc, const weir_sql_alter *a, weir_sql_create_table *nd, const char *table)
{
    const weir_sql_create_table *s = a->schema;
    bool add = a->action == WEIR_SQL_ALTER_ADD;
    for (uint32_t i = 0; i < s->n_columns; i++) {
        const weir_sql_column *c = &s->columns[i];
        int at = find_column(nd, c->name.name);
        if (add && at >= 0)
            return plan_error(pc, c->name.loc, WEIR_EEXIST, "column '%s' already exists in table '%s'", c->name.name,
                              table);
        if (!add && at < 0)
            return plan_error(pc, c->name.loc, WEIR_ENOTFOUND, "column '%s' does not exist in table '%s'",
                              c->name.name, table);
        if (add)
            at = (int)nd->n_columns++;
        nd->columns[at] = *c;
        int rc = place_column(pc, nd, (uint32_t)at, &a->positions[i]);
        if (rc)
            return rc;
    }
    if (s->watermark) {
        if (add && nd->watermark)
            return plan_error(pc, s->watermark->loc, WEIR_EEXIST,
                              "table '%s' already has a watermark (on '%s'): ALTER TABLE ... MODIFY WATERMARK "
                              "changes it",
                              table, last_part(&nd->watermark->column));
        if (!add && !nd->watermark)
            return plan_error(pc, s->watermark->loc, WEIR_ENOTFOUND,
                              "table '%s' has no watermark to modify: ALTER TABLE ... ADD WATERMARK adds one", table);
        nd->watermark = s->watermark;
    }
    if (s->primary_key) {
        if (add && nd->primary_key)
            return plan_error(pc, s->primary_key->loc, WEIR_EEXIST,
                              "table '%s' already has a primary key: ALTER TABLE ... MODIFY PRIMARY KEY changes it",
                              table);
        if (!add && !nd->primary_key)
            return plan_error(pc, s->primary_key->loc, WEIR_ENOTFOUND,
                              "table '%s' has no primary key to modify: ALTER TABLE ... ADD PRIMARY KEY adds one",
                              table);
        if (!(nd->primary_key = copy_pk(pc, s->primary_key)))
            return WEIR_ENOMEM;
    }
    return 0;
}

static int alter_drop_columns(plan_ctx *pc, const weir_sql_alter *a, weir_sql_create_table *nd, const char *table)
{
    for (uint32_t i = 0; i < a->n_drop_columns; i++) {
        const weir_sql_ident *c = &a->drop_columns[i];
        for (uint32_t j = 0; j < i; j++)
            if (ident_is(&a->drop_columns[j], c->name))
                return plan_error(pc, c->loc, WEIR_EINVAL, "column '%s' is listed twice", c->name);
        int at = find_column(nd, c->name);
        if (at < 0)
            return plan_error(pc, c->loc, WEIR_ENOTFOUND, "column '%s' does not exist in table '%s'", c->name, table);
        memmove(&nd->columns[at], &nd->columns[at + 1], (nd->n_columns - (uint32_t)at - 1) * sizeof *nd->columns);
        nd->n_columns--;
    }
    /* what remains must not use a dropped column */
    for (uint32_t i = 0; i < a->n_drop_columns; i++) {
        int rc = check_unused(pc, nd, &a->drop_columns[i], "dropped", true);
        if (rc)
            return rc;
    }
    if (nd->n_columns == 0)
        return plan_error(pc, a->drop_columns[0].loc, WEIR_EINVAL, "table '%s' must keep at least one column", table);
    return 0;
}

static int alter_rename_column(plan_ctx *pc, const weir_sql_alter *a, weir_sql_create_table *nd, const char *table)
{
    int at = find_column(nd, a->column.name);
    if (at < 0)
        return plan_error(pc, a->column.loc, WEIR_ENOTFOUND, "column '%s' does not exist in table '%s'",
                          a->column.name, table);
    if (find_column(nd, a->new_column.name) >= 0 && !ident_is(&a->column, a->new_column.name))
        return plan_error(pc, a->new_column.loc, WEIR_EEXIST, "column '%s' already exists in table '%s'",
                          a->new_column.name, table);
    int rc = check_unused(pc, nd, &a->column, "renamed", false);
    if (rc)
        return rc;
    /* a METADATA column without FROM 'key' reads the metadata of its name:
     * it keeps reading what it read */
    if (nd->columns[at].kind == WEIR_SQL_COLUMN_METADATA && !nd->columns[at].metadata_key)
        nd->columns[at].metadata_key = nd->columns[at].name.name;
    nd->columns[at].name = a->new_column;
    for (uint32_t i = 0; nd->primary_key && i < nd->primary_key->n_columns; i++)
        if (ident_is(&nd->primary_key->columns[i], a->column.name))
            nd->primary_key->columns[i] = a->new_column;
    return 0;
}

static int alter_set_options(plan_ctx *pc, const weir_sql_alter *a, weir_sql_create_table *nd)
{
    for (uint32_t i = 0; i < a->n_options; i++) {
        const weir_sql_option *o = &a->options[i];
        uint32_t j = 0;
        while (j < nd->n_options && strcmp(nd->options[j].key, o->key))
            j++;
        if (j == nd->n_options)
            nd->n_options++;
        nd->options[j] = *o;
    }
    (void)pc;
    return 0;
}

static int alter_reset_options(plan_ctx *pc, const weir_sql_alter *a, weir_sql_create_table *nd)
{
    for (uint32_t i = 0; i < a->n_keys; i++) {
        if (!strcmp(a->keys[i], "connector"))
            return plan_error(pc, a->key_locs[i], WEIR_EINVAL,
                              "ALTER TABLE ... RESET cannot remove 'connector' (SET changes it)");
        for (uint32_t j = 0; j < nd->n_options; j++)
            if (!strcmp(nd->options[j].key, a->keys[i])) {
                memmove(&nd->options[j], &nd->options[j + 1], (nd->n_options - j - 1) * sizeof *nd->options);
                nd->n_options--;
                break;
            }
    }
    return 0;
}

/*
 * RENAME TO new_name of the object at *path: the new name stays in the
 * object's catalog and database (a qualified one must name them), and no
 * object of the same temporariness may have it; *path becomes the new one.
 */
static int rename_path(plan_ctx *pc, cat_path *path, bool temporary, const weir_sql_name *new_name)
{
    cat_path np = {0};
    int rc = plan_qualify(pc, new_name, &np);
    if (rc)
        return rc;
    if (new_name->n_parts > 1 &&
        (strcasecmp(np.catalog, path->catalog) || strcasecmp(np.database, path->database)))
        return plan_error(pc, new_name->loc, WEIR_EPLAN,
                          "RENAME TO cannot move '%s' from '%s.%s' to another database ('%s.%s')", path->name,
                          path->catalog, path->database, np.catalog, np.database);
    np.catalog = path->catalog;
    np.database = path->database;
    if (plan_exists_at(pc, &np, temporary))
        return plan_exists_error(pc, new_name->loc, &np, temporary);
    *path = np;
    return 0;
}

static int alter_table(plan_ctx *pc, const weir_sql_alter *a, weir_sql_loc loc)
{
    cat_table *t = plan_find_table(pc, &a->name);
    const char *name = last_part(&a->name);
    if (!t) {
        if (plan_find_view(pc, &a->name))
            return plan_error(pc, a->name.loc, WEIR_EPLAN, "'%s' is a view: ALTER VIEW changes it", name);
        return a->if_exists ? 0 : missing(pc, &a->name, "table");
    }
    name = t->name;
    uint32_t extra = a->schema ? a->schema->n_columns : 0;
    weir_sql_create_table *nd;
    int rc = copy_ddl(pc, t->ddl, extra, a->n_options, 0, &nd);
    if (rc)
        return rc;
    cat_path path = {t->catalog, t->database, t->name};
    switch (a->action) {
    case WEIR_SQL_ALTER_RENAME:
        if ((rc = rename_path(pc, &path, t->ddl->temporary, &a->new_name)))
            return rc;
        nd->name = a->new_name;
        break;
    case WEIR_SQL_ALTER_RENAME_COLUMN: rc = alter_rename_column(pc, a, nd, name); break;
    case WEIR_SQL_ALTER_SET: rc = alter_set_options(pc, a, nd); break;
    case WEIR_SQL_ALTER_RESET: rc = alter_reset_options(pc, a, nd); break;
    case WEIR_SQL_ALTER_ADD:
    case WEIR_SQL_ALTER_MODIFY: rc = alter_components(pc, a, nd, name); break;
    case WEIR_SQL_ALTER_DROP_COLUMNS: rc = alter_drop_columns(pc, a, nd, name); break;
    case WEIR_SQL_ALTER_DROP_PRIMARY_KEY:
        if (!nd->primary_key)
            return plan_error(pc, loc, WEIR_ENOTFOUND, "table '%s' has no primary key", name);
        if (a->constraint && (!nd->primary_key->constraint_name ||
                              !ident_is(nd->primary_key->constraint_name, a->constraint->name)))
            return plan_error(pc, a->constraint->loc, WEIR_ENOTFOUND, "table '%s' has no constraint '%s'", name,
                              a->constraint->name);
        nd->primary_key = NULL;
        break;
    case WEIR_SQL_ALTER_DROP_WATERMARK:
        if (!nd->watermark)
            return plan_error(pc, loc, WEIR_ENOTFOUND, "table '%s' has no watermark", name);
        nd->watermark = NULL;
        break;
    case WEIR_SQL_ALTER_AS: return plan_error(pc, loc, WEIR_EPLAN, "ALTER TABLE ... AS is not a statement");
    }
    if (rc)
        return rc;
    remove_table(pc, t);
    return plan_create_table_at(pc, nd, &path, loc);
}

static int alter_view(plan_ctx *pc, const weir_sql_alter *a)
{
    cat_view *v = plan_find_view(pc, &a->name);
    const char *name = last_part(&a->name);
    if (!v) {
        if (plan_find_table(pc, &a->name))
            return plan_error(pc, a->name.loc, WEIR_EPLAN, "'%s' is a table: ALTER TABLE changes it", name);
        return missing(pc, &a->name, "view");
    }
    if (a->action == WEIR_SQL_ALTER_RENAME) {
        cat_path path = {v->catalog, v->database, v->name};
        int rc = rename_path(pc, &path, v->temporary, &a->new_name);
        if (rc)
            return rc;
        char *nn = plan_strdup(pc, path.name);
        if (!nn)
            return WEIR_ENOMEM;
        v->name = nn;
        return 0;
    }
    /* ALTER VIEW v AS query: the new query and its own column names, its
     * names resolved from here; planned here (with v already changed, so
     * that a cycle through v is found here) */
    cat_view old = *v;
    v->query = a->query;
    v->columns = NULL;
    v->n_columns = 0;
    v->home_catalog = pc->cur_catalog;
    v->home_database = pc->cur_database;
    int rc = plan_check_view(pc, v);
    cat_view *again = plan_find_view(pc, &a->name);
    if (rc && again) {
        *again = old;
    } else if (again) {
        again->res_names = pc->rec_names;
        again->res_paths = pc->rec_paths;
        again->res_cols = pc->rec_cols;
        again->n_res = pc->n_rec;
        again->schema = pc->rec_schema;
    }
    return rc;
}

int plan_alter(plan_ctx *pc, const weir_sql_alter *a, weir_sql_loc loc)
{
    if (a->object == WEIR_SQL_OBJECT_DATABASE || a->object == WEIR_SQL_OBJECT_CATALOG)
        return plan_alter_space(pc, a);
    return a->object == WEIR_SQL_OBJECT_VIEW ? alter_view(pc, a) : alter_table(pc, a, loc);
}

/* ------------------------------------------------- CREATE TABLE ... LIKE */

/*
 * Flink's merging of a LIKE clause: every feature INCLUDING, options
 * OVERWRITING, unless the clause says otherwise; ALL sets every feature
 * the clause does not name (in any order), and a feature may be named once. OVERWRITING is not allowed for ALL,
 * CONSTRAINTS and PARTITIONS (there is nothing to merge key by key).
 */
enum { F_CONSTRAINTS, F_GENERATED, F_METADATA, F_OPTIONS, F_PARTITIONS, F_WATERMARKS, F_N };

static const char *const like_feature_names[] = {"ALL",     "CONSTRAINTS", "GENERATED", "METADATA",
                                                 "OPTIONS", "PARTITIONS",  "WATERMARKS"};

static int like_strategies(plan_ctx *pc, const weir_sql_table_like *like, weir_sql_like_strategy st[F_N])
{
    for (int f = 0; f < F_N; f++)
        st[f] = f == F_OPTIONS ? WEIR_SQL_LIKE_OVERWRITING : WEIR_SQL_LIKE_INCLUDING;
    /* ALL first, wherever it is written: it is the strategy of the features
     * no option names */
    for (uint32_t i = 0; i < like->n_options; i++)
        if (like->options[i].feature == WEIR_SQL_LIKE_ALL)
            for (int f = 0; f < F_N; f++)
                st[f] = like->options[i].strategy;
    for (uint32_t i = 0; i < like->n_options; i++) {
        const weir_sql_like_option *o = &like->options[i];
        for (uint32_t j = 0; j < i; j++)
            if (like->options[j].feature == o->feature)
                return plan_error(pc, like->loc, WEIR_EINVAL, "LIKE: %s is named twice (each feature once)",
                                  like_feature_names[o->feature]);
        if (o->strategy == WEIR_SQL_LIKE_OVERWRITING &&
            (o->feature == WEIR_SQL_LIKE_ALL || o->feature == WEIR_SQL_LIKE_CONSTRAINTS ||
             o->feature == WEIR_SQL_LIKE_PARTITIONS))
            return plan_error(pc, like->loc, WEIR_EINVAL, "LIKE: OVERWRITING %s is not allowed (INCLUDING or EXCLUDING)",
                              like_feature_names[o->feature]);
        if (o->feature != WEIR_SQL_LIKE_ALL)
            st[o->feature - 1] = o->strategy;
    }
    return 0;
}

static int column_feature(const weir_sql_column *c)
{
    return c->kind == WEIR_SQL_COLUMN_COMPUTED ? F_GENERATED : c->kind == WEIR_SQL_COLUMN_METADATA ? F_METADATA : -1;
}

int plan_create_table_like(plan_ctx *pc, const weir_sql_create_table *ct, weir_sql_loc loc)
{
    const weir_sql_table_like *like = ct->like;
    cat_table *src = plan_find_table(pc, &like->source);
    if (!src) {
        if (plan_find_view(pc, &like->source))
            return plan_error(pc, like->source.loc, WEIR_EPLAN,
                              "LIKE %s: '%s' is a view; the source of LIKE must be a table", last_part(&like->source),
                              last_part(&like->source));
        return missing(pc, &like->source, "table");
    }
    weir_sql_like_strategy st[F_N];
    int rc = like_strategies(pc, like, st);
    if (rc)
        return rc;
    const weir_sql_create_table *s = src->ddl;
    weir_sql_create_table *nd;
    if ((rc = copy_ddl(pc, ct, s->n_columns, s->n_options, s->n_partitioned_by, &nd)))
        return rc;
    /* the source's columns first (physical ones always), then the new ones */
    nd->n_columns = 0;
    for (uint32_t i = 0; i < s->n_columns; i++) {
        int f = column_feature(&s->columns[i]);
        if (f >= 0 && st[f] == WEIR_SQL_LIKE_EXCLUDING)
            continue;
        nd->columns[nd->n_columns++] = s->columns[i];
    }
    for (uint32_t i = 0; i < ct->n_columns; i++) {
        const weir_sql_column *c = &ct->columns[i];
        int at = find_column(nd, c->name.name);
        if (at < 0) {
            nd->columns[nd->n_columns++] = *c;
            continue;
        }
        int f = column_feature(&nd->columns[at]), g = column_feature(c);
        if (f < 0 || g < 0 || st[f] != WEIR_SQL_LIKE_OVERWRITING)
            return plan_error(pc, c->name.loc, WEIR_EEXIST,
                              "LIKE %s: column '%s' is already a column of '%s'%s", src->name, c->name.name,
                              src->name,
                              f == F_GENERATED   ? " (EXCLUDING GENERATED or OVERWRITING GENERATED replaces it)"
                              : f == F_METADATA ? " (EXCLUDING METADATA or OVERWRITING METADATA replaces it)"
                                                : "");
        nd->columns[at] = *c;
    }
    if (s->watermark && st[F_WATERMARKS] != WEIR_SQL_LIKE_EXCLUDING) {
        if (ct->watermark && st[F_WATERMARKS] == WEIR_SQL_LIKE_INCLUDING)
            return plan_error(pc, ct->watermark->loc, WEIR_EEXIST,
                              "LIKE %s: '%s' already has a watermark (EXCLUDING WATERMARKS or OVERWRITING "
                              "WATERMARKS replaces it)",
                              src->name, src->name);
        if (!ct->watermark)
            nd->watermark = s->watermark;
    }
    if (s->primary_key && st[F_CONSTRAINTS] == WEIR_SQL_LIKE_INCLUDING) {
        if (ct->primary_key)
            return plan_error(pc, ct->primary_key->loc, WEIR_EEXIST,
                              "LIKE %s: '%s' already has a primary key (EXCLUDING CONSTRAINTS leaves it out)",
                              src->name, src->name);
        if (!(nd->primary_key = copy_pk(pc, s->primary_key)))
            return WEIR_ENOMEM;
    }
    if (s->n_partitioned_by && st[F_PARTITIONS] == WEIR_SQL_LIKE_INCLUDING) {
        if (ct->n_partitioned_by)
            return plan_error(pc, ct->partitioned_by[0].loc, WEIR_EEXIST,
                              "LIKE %s: '%s' is already partitioned (EXCLUDING PARTITIONS leaves its partitions out)",
                              src->name, src->name);
        memcpy(nd->partitioned_by, s->partitioned_by, s->n_partitioned_by * sizeof *nd->partitioned_by);
        nd->n_partitioned_by = s->n_partitioned_by;
    }
    if (st[F_OPTIONS] != WEIR_SQL_LIKE_EXCLUDING) {
        /* the source's options, then the new ones over them */
        nd->n_options = 0;
        for (uint32_t i = 0; i < s->n_options; i++)
            nd->options[nd->n_options++] = s->options[i];
        for (uint32_t i = 0; i < ct->n_options; i++) {
            const weir_sql_option *o = &ct->options[i];
            uint32_t j = 0;
            while (j < s->n_options && strcmp(nd->options[j].key, o->key))
                j++;
            if (j < s->n_options && st[F_OPTIONS] == WEIR_SQL_LIKE_INCLUDING)
                return plan_error(pc, o->loc, WEIR_EEXIST,
                                  "LIKE %s: '%s' already has option '%s' (EXCLUDING OPTIONS or OVERWRITING OPTIONS "
                                  "replaces it)",
                                  src->name, src->name, o->key);
            if (j == s->n_options)
                j = nd->n_options++;
            nd->options[j] = *o;
        }
    }
    return plan_create_table(pc, nd, loc);
}

/* -------------------------------------------- CREATE TABLE ... AS query */

/* The SQL type of a column whose weir type is t (a CTAS table's columns). */
static weir_sql_type *sql_type_of(plan_ctx *pc, weir_type t)
{
    weir_sql_type *s = plan_alloc(pc, sizeof *s);
    if (!s)
        return NULL;
    memset(s, 0, sizeof *s);
    s->precision = -1;
    s->scale = -1;
    s->not_null = !t.nullable;
    switch (t.id) {
    case WEIR_TYPE_BOOLEAN: s->kind = WEIR_SQL_TYPE_BOOLEAN; break;
    case WEIR_TYPE_INT: s->kind = WEIR_SQL_TYPE_INT; break;
    case WEIR_TYPE_BIGINT:
        s->kind = weir_type_interval(t) ? WEIR_SQL_TYPE_INTERVAL : WEIR_SQL_TYPE_BIGINT;
        s->precision = weir_type_interval(t) ? weir_type_interval(t) : -1;
        break;
    case WEIR_TYPE_DOUBLE: s->kind = WEIR_SQL_TYPE_DOUBLE; break;
    case WEIR_TYPE_DECIMAL:
        s->kind = WEIR_SQL_TYPE_DECIMAL;
        s->precision = t.precision;
        s->scale = t.scale;
        break;
    case WEIR_TYPE_NULL:
    case WEIR_TYPE_STRING: s->kind = WEIR_SQL_TYPE_STRING; break;
    case WEIR_TYPE_BYTES: s->kind = WEIR_SQL_TYPE_BYTES; break;
    case WEIR_TYPE_TIMESTAMP: s->kind = WEIR_SQL_TYPE_TIMESTAMP; s->precision = 3; break;
    case WEIR_TYPE_TIMESTAMP_LTZ: s->kind = WEIR_SQL_TYPE_TIMESTAMP_LTZ; s->precision = 3; break;
    case WEIR_TYPE_DATE: s->kind = WEIR_SQL_TYPE_DATE; break;
    case WEIR_TYPE_TIME: s->kind = WEIR_SQL_TYPE_TIME; s->precision = t.precision; break;
    case WEIR_TYPE_ARRAY:
    case WEIR_TYPE_MULTISET:
    case WEIR_TYPE_MAP:
    case WEIR_TYPE_ROW: {
        const weir_nested_type *nt = weir_type_nested(t);
        s->kind = t.id == WEIR_TYPE_ARRAY      ? WEIR_SQL_TYPE_ARRAY
                  : t.id == WEIR_TYPE_MULTISET ? WEIR_SQL_TYPE_MULTISET
                  : t.id == WEIR_TYPE_MAP      ? WEIR_SQL_TYPE_MAP
                                               : WEIR_SQL_TYPE_ROW;
        if (t.id == WEIR_TYPE_ROW) {
            s->fields = plan_alloc(pc, (nt->n + 1) * sizeof *s->fields);
            if (!s->fields)
                return NULL;
            memset(s->fields, 0, (nt->n + 1) * sizeof *s->fields);
            for (uint32_t i = 0; i < nt->n; i++) {
                s->fields[i].name.name = nt->names[i];
                s->fields[i].name.len = (uint32_t)strlen(nt->names[i]);
                if (!(s->fields[i].type = sql_type_of(pc, nt->elems[i])))
                    return NULL;
            }
            s->n_fields = nt->n;
            break;
        }
        if (!(s->elem = sql_type_of(pc, nt->elems[0])))
            return NULL;
        if (t.id == WEIR_TYPE_MAP && !(s->value = sql_type_of(pc, nt->elems[1])))
            return NULL;
        break;
    }
    }
    return s;
}

int plan_ctas(plan_ctx *pc, const weir_sql_create_table *ct, weir_sql_loc loc)
{
    const char *name = last_part(&ct->name);
    const char *what = ct->replace ? "REPLACE TABLE ... AS" : ct->or_replace ? "CREATE OR REPLACE TABLE ... AS"
                                                                             : "CREATE TABLE ... AS";
    if (ct->has_column_list)
        return plan_error(pc, loc, WEIR_EUNSUPPORTED,
                          "%s with a column list (columns, WATERMARK or PRIMARY KEY) is not supported by weir: "
                          "the table's columns are the query's",
                          what);
    if (ct->temporary)
        return plan_error(pc, loc, WEIR_EUNSUPPORTED, "CREATE TEMPORARY TABLE ... AS is not supported (Flink neither)");
    if (ct->n_partitioned_by)
        return plan_error(pc, ct->partitioned_by[0].loc, WEIR_EUNSUPPORTED,
                          "%s with PARTITIONED BY is not supported by weir", what);
    if (ct->like)
        return plan_error(pc, ct->like->loc, WEIR_EUNSUPPORTED, "%s with LIKE is not supported by weir", what);
    cat_path path = {0};
    int rc = plan_check_space(pc, &ct->name, &path);
    if (rc)
        return rc;
    cat_table *old = plan_table_at(pc, &path, false);
    if (!old && plan_view_at(pc, &path, false))
        return plan_error(pc, ct->name.loc, WEIR_EEXIST, "'%s' is a view, not a table", name);
    if (ct->replace && !old)
        return plan_error(pc, ct->name.loc, WEIR_ENOTFOUND,
                          "table '%s' does not exist: REPLACE TABLE replaces a table (CREATE OR REPLACE TABLE "
                          "creates it)",
                          name);
    if (old && !ct->replace && !ct->or_replace && !ct->if_not_exists)
        return plan_exists_error(pc, ct->name.loc, &path, false);
    if ((rc = plan_ensure_job(pc)))
        return rc;
    weir_buf_printf(&pc->explain, "INSERT INTO %s:\n", name);
    rel r;
    if ((rc = plan_query(pc, ct->as_query, &r)))
        return rc;
    if (old && ct->if_not_exists && !ct->or_replace && !ct->replace)
        return plan_sink_table(pc, old, &r, ct->name.loc); /* the table stays; the query goes into it */
    weir_sql_create_table *nd;
    if ((rc = copy_ddl(pc, ct, r.n_physical, 0, 0, &nd)))
        return rc;
    for (uint32_t i = 0; i < r.n_physical; i++) {
        const weir_field *f = &r.schema->fields[i];
        for (uint32_t j = 0; j < i; j++)
            if (!strcasecmp(r.schema->fields[j].name, f->name))
                return plan_error(pc, ct->as_query->loc, WEIR_EEXIST,
                                  "%s: the query has two columns named '%s' (give one an alias)", what, f->name);
        weir_sql_column *c = &nd->columns[i];
        memset(c, 0, sizeof *c);
        c->kind = WEIR_SQL_COLUMN_PHYSICAL;
        c->name.name = f->name;
        c->name.len = (uint32_t)strlen(f->name);
        c->name.loc = ct->name.loc;
        c->loc = ct->name.loc;
        if (!(c->type = sql_type_of(pc, f->type)))
            return WEIR_ENOMEM;
    }
    nd->n_columns = r.n_physical;
    if (old)
        remove_table(pc, old);
    if ((rc = plan_create_table_at(pc, nd, &path, loc)))
        return rc;
    return plan_sink_table(pc, &pc->tables[pc->n_tables - 1], &r, ct->name.loc);
}

/* -------------------------------------------------- SHOW and DESCRIBE */

/*
 * A table of rows as the SQL client prints it: a ruled header, each value
 * right-aligned, and "N rows in set" (or "Empty set").
 */
typedef struct tableau {
    uint32_t n_cols;
    const char *const *header;
    const char **cells; /* n_rows * n_cols, row by row */
    uint32_t n_rows, cap_rows;
} tableau;

static int tableau_add(plan_ctx *pc, tableau *tb, const char *const *row)
{
    if (tb->n_rows == tb->cap_rows) {
        uint32_t cap = tb->cap_rows ? tb->cap_rows * 2 : 16;
        const char **c = plan_alloc(pc, (size_t)cap * tb->n_cols * sizeof *c);
        if (!c)
            return WEIR_ENOMEM;
        if (tb->n_rows)
            memcpy(c, tb->cells, (size_t)tb->n_rows * tb->n_cols * sizeof *c);
        tb->cells = c;
        tb->cap_rows = cap;
    }
    for (uint32_t i = 0; i < tb->n_cols; i++)
        tb->cells[(size_t)tb->n_rows * tb->n_cols + i] = row[i];
    tb->n_rows++;
    return 0;
}

static int tableau_rule(weir_buf *o, const size_t *w, uint32_t n)
{
    int rc = 0;
    for (uint32_t i = 0; !rc && i < n; i++) {
        rc = weir_buf_put(o, "+", 1);
        for (size_t k = 0; !rc && k < w[i] + 2; k++)
            rc = weir_buf_put(o, "-", 1);
    }
    return rc ? rc : weir_buf_put(o, "+\n", 2);
}

static int tableau_line(weir_buf *o, const size_t *w, const char *const *cells, uint32_t n)
{
    int rc = 0;
    for (uint32_t i = 0; !rc && i < n; i++)
        rc = weir_buf_printf(o, "| %*s ", (int)w[i], cells[i]);
    return rc ? rc : weir_buf_put(o, "|\n", 2);
}

/* Into the statement output (printed before the job runs, once). */
static int tableau_print(plan_ctx *pc, const tableau *tb)
{
    weir_buf *o = &pc->explain_out;
    if (!tb->n_rows)
        return weir_buf_printf(o, "Empty set\n");
    size_t w[16];
    for (uint32_t i = 0; i < tb->n_cols; i++) {
        w[i] = strlen(tb->header[i]);
        for (uint32_t r = 0; r < tb->n_rows; r++) {
            size_t l = strlen(tb->cells[(size_t)r * tb->n_cols + i]);
            if (l > w[i])
                w[i] = l;
        }
    }
    int rc = tableau_rule(o, w, tb->n_cols);
    if (!rc)
        rc = tableau_line(o, w, tb->header, tb->n_cols);
    if (!rc)
        rc = tableau_rule(o, w, tb->n_cols);
    for (uint32_t r = 0; !rc && r < tb->n_rows; r++)
        rc = tableau_line(o, w, &tb->cells[(size_t)r * tb->n_cols], tb->n_cols);
    if (!rc)
        rc = tableau_rule(o, w, tb->n_cols);
    return rc ? rc : weir_buf_printf(o, "%u row%s in set\n", tb->n_rows, tb->n_rows == 1 ? "" : "s");
}

/* A name filter: [NOT] LIKE / ILIKE 'pattern' of SHOW, or none. */
typedef struct name_filter {
    const char *like; /* NULL: every name */
    bool not_like, ilike;
} name_filter;

static bool chars_equal(char a, char b, bool icase)
{
    if (a == b)
        return true;
    return icase && ((a >= 'A' && a <= 'Z') || (a >= 'a' && a <= 'z')) && (a | 0x20) == (b | 0x20);
}

/* SQL LIKE: % any run, _ one character, \ escapes the next one. */
static bool like_match(const char *s, const char *p, bool icase)
{
    for (; *p; p++) {
        if (*p == '%') {
            while (p[1] == '%')
                p++;
            if (!p[1])
                return true;
            for (const char *t = s; *t; t++)
                if (like_match(t, p + 1, icase))
                    return true;
            return false;
        }
        if (!*s)
            return false;
        if (*p == '\\' && p[1])
            p++;
        else if (*p == '_') {
            s++;
            continue;
        }
        if (!chars_equal(*s, *p, icase))
            return false;
        s++;
    }
    return !*s;
}

static bool filter_keeps(const name_filter *f, const char *name)
{
    return !f->like || like_match(name, f->like, f->ilike) != f->not_like;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

int plan_print_names(plan_ctx *pc, const char *header, const char **names, size_t n, const char *like,
                     bool not_like, bool ilike)
{
    name_filter f = {like, not_like, ilike};
    if (n > 1)
        qsort(names, n, sizeof *names, cmp_str);
    tableau tb = {.n_cols = 1, .header = &header};
    for (size_t i = 0; i < n; i++) {
        /* a temporary object and the permanent one it shadows (names match in any case, and sort
         * apart when they differ in it: `T` < `U` < `t`) */
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = !strcasecmp(names[i], names[j]);
        if (seen)
            continue;
        int rc = filter_keeps(&f, names[i]) ? tableau_add(pc, &tb, &names[i]) : 0;
        if (rc)
            return rc;
    }
    return tableau_print(pc, &tb);
}

/* SHOW TABLES (tables and views, as Flink lists them) or SHOW VIEWS of the current database or FROM one. */
static int show_names(plan_ctx *pc, const weir_sql_stmt *st, bool tables)
{
    cat_path in = {0};
    int rc = plan_show_from(pc, &st->u.show.from, st->loc, &in);
    if (rc)
        return rc;
    size_t n = 0;
    const char **names = plan_alloc(pc, (pc->n_tables + pc->n_views + 1) * sizeof *names);
    if (!names)
        return WEIR_ENOMEM;
    for (size_t i = 0; tables && i < pc->n_tables; i++)
        if (!strcasecmp(pc->tables[i].catalog, in.catalog) && !strcasecmp(pc->tables[i].database, in.database))
            names[n++] = pc->tables[i].name;
    for (size_t i = 0; i < pc->n_views; i++)
        if (pc->views[i].catalog && !strcasecmp(pc->views[i].catalog, in.catalog) &&
            !strcasecmp(pc->views[i].database, in.database))
            names[n++] = pc->views[i].name;
    return plan_print_names(pc, tables ? "table name" : "view name", names, n, st->u.show.like,
                            st->u.show.not_like, st->u.show.ilike);
}

/* *out: a copy of b's text in the plan context's memory; b is emptied. */
static int buf_take(plan_ctx *pc, weir_buf *b, const char **out)
{
    char *s = plan_alloc(pc, b->len + 1);
    if (!s)
        return WEIR_ENOMEM;
    if (b->len)
        memcpy(s, b->data, b->len);
    s[b->len] = 0;
    b->len = 0;
    *out = s;
    return 0;
}

static int describe_table(plan_ctx *pc, const cat_table *t, const name_filter *f)
{
    static const char *const header[] = {"name", "type", "null", "key", "extras", "watermark"};
    const weir_sql_create_table *ct = t->ddl;
    const weir_sql_primary_key *pk = ct->primary_key;
    tableau tb = {.n_cols = 6, .header = header};
    weir_buf b;
    weir_buf_init(&b);
    int rc = 0;
    const char *key = "";
    if (pk) {
        rc = weir_buf_printf(&b, "PRI(");
        for (uint32_t i = 0; !rc && i < pk->n_columns; i++)
            rc = weir_buf_printf(&b, "%s%s", i ? ", " : "", pk->columns[i].name);
        if (rc || (rc = weir_buf_printf(&b, ")")) || (rc = buf_take(pc, &b, &key)))
            goto done;
    }
    for (uint32_t i = 0; i < ct->n_columns; i++) {
        const weir_sql_column *c = &ct->columns[i];
        if (!filter_keeps(f, c->name.name))
            continue;
        int at = weir_schema_find(t->full, c->name.name);
        weir_type ty = t->full->fields[at].type;
        bool in_pk = false;
        for (uint32_t k = 0; pk && k < pk->n_columns; k++)
            in_pk |= ident_is(&pk->columns[k], c->name.name);
        const char *row[6] = {c->name.name, "", "", in_pk ? key : "", "", ""};
        /* the type as declared (its NOT NULL goes to the null column) */
        if (c->type) {
            weir_sql_type tc = *c->type;
            tc.not_null = false;
            rc = weir__sql_format_type(&tc, &b);
        } else {
            char tn[128];
            ty.nullable = true;
            rc = weir_buf_printf(&b, "%s", weir_type_format(ty, tn, sizeof tn));
        }
        bool proctime = t->has_proctime && (uint32_t)at == t->proctime;
        if (!rc && at == t->rowtime)
            rc = weir_buf_printf(&b, " *ROWTIME*");
        if (!rc && proctime)
            rc = weir_buf_printf(&b, " *PROCTIME*");
        if (rc || (rc = buf_take(pc, &b, &row[1])))
            goto done;
        bool nullable = c->type ? !c->type->not_null : t->full->fields[at].type.nullable;
        row[2] = nullable && !in_pk && !proctime ? "TRUE" : "FALSE";
        if (c->kind == WEIR_SQL_COLUMN_COMPUTED) {
            if ((rc = weir_buf_printf(&b, "AS ")) || (rc = weir__sql_format_expr(c->expr, &b)))
                goto done;
        } else if (c->kind == WEIR_SQL_COLUMN_METADATA) {
            rc = weir_buf_printf(&b, "METADATA");
            if (!rc && c->metadata_key)
                rc = weir_buf_printf(&b, " FROM '%s'", c->metadata_key);
            if (!rc && c->is_virtual)
                rc = weir_buf_printf(&b, " VIRTUAL");
            if (rc)
                goto done;
        }
        if ((rc = buf_take(pc, &b, &row[4])))
            goto done;
        if (ct->watermark && at == t->rowtime) {
            if ((rc = weir__sql_format_expr(ct->watermark->expr, &b)) || (rc = buf_take(pc, &b, &row[5])))
                goto done;
        }
        if ((rc = tableau_add(pc, &tb, row)))
            goto done;
    }
    rc = tableau_print(pc, &tb);
done:
    weir_buf_fini(&b);
    return rc;
}

typedef struct view_describe {
    const cat_view *v;
    const name_filter *f;
} view_describe;

/* A view's query planned (into the scratch job the caller made). Planning may move pc->views (each
 * WITH query is added to it): *v is copied first. */
static int plan_view_query(plan_ctx *pc, const cat_view *vp, rel *r)
{
    const cat_view v = *vp;
    int depth = pc->view_depth;
    int rc = plan_ensure_job(pc);
    plan_home home;
    const cat_view *outer = pc->expanding;
    pc->expanding = &v;
    plan_view_enter(pc, vp, &home);
    if (!rc)
        rc = plan_query(pc, v.query, r);
    plan_view_leave(pc, &home);
    pc->expanding = outer;
    pc->view_depth = depth;
    if (!rc && v.n_columns && v.n_columns != r->n_physical)
        return plan_error(pc, v.columns[0].loc, WEIR_EPLAN, "view '%s' names %u columns but its query has %u",
                          v.name, v.n_columns, r->n_physical);
    return rc;
}

/* The view's columns, as its query planned them here: names (its column list's, if any) and types. */
static int check_view_in_scratch(plan_ctx *pc, void *ud)
{
    const cat_view v = *(const cat_view *)ud; /* planning may move pc->views */
    rel r;
    int rc = plan_view_query(pc, ud, &r);
    if (rc)
        return rc;
    weir_schema *s = weir_schema_create();
    if (!s || plan_keep_schema(pc, s))
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < r.n_physical; i++)
        if (weir_schema_add(s, v.n_columns ? v.columns[i].name : r.schema->fields[i].name, r.schema->fields[i].type) < 0)
            return WEIR_ENOMEM;
    pc->rec_schema = s;
    return 0;
}

/* Plans view v's query into a scratch job: CREATE VIEW and ALTER VIEW AS
 * refuse a query that does not plan where it is written, as Flink validates
 * it there (a cycle through another view would otherwise fail at a later
 * use, inside that view). Leaves in pc->rec_* the catalog objects the
 * query's names resolved to. */
int plan_check_view(plan_ctx *pc, const cat_view *v)
{
    pc->recording = true;
    pc->source_failed = false;
    pc->rec_depth = pc->view_depth;
    pc->n_rec = pc->cap_rec = 0;
    pc->rec_names = NULL;
    pc->rec_paths = NULL;
    pc->rec_cols = NULL;
    pc->rec_schema = NULL;
    int rc = plan_in_scratch_job(pc, check_view_in_scratch, (void *)v);
    pc->recording = false;
    if (rc && pc->source_failed) {
        /* Flink checks a view's query against the tables' schemas; their connectors make sources
         * only where the view is read, so a table's bad options are an error there, not here */
        *pc->err = (weir_error){0};
        rc = 0;
    }
    return rc;
}

/* A view's columns: its query planned into a scratch job. */
static int describe_view_rows(plan_ctx *pc, void *ud)
{
    const cat_view v = *((const view_describe *)ud)->v; /* planning may move pc->views */
    const name_filter *f = ((const view_describe *)ud)->f;
    static const char *const header[] = {"name", "type", "null", "key", "extras", "watermark"};
    rel r;
    int rc = plan_view_query(pc, ((const view_describe *)ud)->v, &r);
    if (rc)
        return rc;
    tableau tb = {.n_cols = 6, .header = header};
    weir_buf b;
    weir_buf_init(&b);
    for (uint32_t i = 0; !rc && i < r.n_physical; i++) {
        weir_type ty = r.schema->fields[i].type;
        bool proctime = r.has_proctime && r.proctime == i;
        char tn[128];
        const char *row[6] = {v.n_columns ? v.columns[i].name : r.schema->fields[i].name, "",
                              ty.nullable && !proctime ? "TRUE" : "FALSE", "", "", ""};
        if (!filter_keeps(f, row[0]))
            continue;
        ty.nullable = true;
        rc = weir_buf_printf(&b, "%s%s", weir_type_format(ty, tn, sizeof tn),
                             r.rowtime == (int)i ? " *ROWTIME*" : proctime ? " *PROCTIME*" : "");
        if (!rc && !(rc = buf_take(pc, &b, &row[1])))
            rc = tableau_add(pc, &tb, row);
    }
    weir_buf_fini(&b);
    return rc ? rc : tableau_print(pc, &tb);
}

/* DESCRIBE, or SHOW COLUMNS (f: the columns whose names it keeps). */
static int describe(plan_ctx *pc, const weir_sql_name *n, const name_filter *f)
{
    cat_table *t = plan_find_table(pc, n);
    if (t)
        return describe_table(pc, t, f);
    cat_view *v = plan_find_view(pc, n);
    view_describe vd = {v, f};
    if (v)
        return plan_in_scratch_job(pc, describe_view_rows, &vd);
    return missing(pc, n, "table");
}

int plan_describe(plan_ctx *pc, const weir_sql_stmt *st)
{
    static const name_filter all = {0};
    return describe(pc, &st->u.describe.name, &all);
}

/* SHOW CREATE VIEW: a name of the view's query printed as the catalog
 * object it resolved to, catalog.database.name (a WITH query's as written). */
typedef struct view_names {
    const cat_view *v;
    weir_sql_ident parts[3];
    weir_sql_name name;
} view_names;

static const weir_sql_name *resolved_name(void *ud, const weir_sql_name *n)
{
    view_names *vn = ud;
    for (uint32_t i = 0; i < vn->v->n_res; i++) {
        if (vn->v->res_names[i] != n)
            continue;
        const cat_path *p = &vn->v->res_paths[i];
        const char *parts[3] = {p->catalog, p->database, p->name};
        for (int k = 0; k < 3; k++)
            vn->parts[k] = (weir_sql_ident){.name = parts[k], .len = (uint32_t)strlen(parts[k])};
        vn->name = (weir_sql_name){.parts = vn->parts, .n_parts = 3, .loc = n->loc};
        return &vn->name;
    }
    return NULL;
}

/* SHOW JOBS and STOP JOB need weir run's job control. */
static int job_control(plan_ctx *pc, const weir_sql_stmt *st, const char *what)
{
    if (pc->jobs)
        return 0;
    return plan_error(pc, st->loc, WEIR_EUNSUPPORTED,
                      "%s acts on the running jobs of this machine: weir run runs it, weir explain does not", what);
}

/* SHOW JOBS: the running jobs of this machine, as weir list knows them, in
 * the SQL client's columns (the start time in UTC). */
static int show_jobs(plan_ctx *pc, const weir_sql_stmt *st)
{
    int rc = job_control(pc, st, "SHOW JOBS");
    if (rc || pc->jobs->skip)
        return rc;
    weir_sql_running_job *v = NULL;
    size_t n = 0;
    weir_error err = {0};
    if ((rc = pc->jobs->list(pc->jobs->ud, &v, &n, &err)))
        return plan_error(pc, st->loc, rc, "SHOW JOBS: %s", err.message);
    static const char *const header[] = {"job id", "job name", "status", "start time"};
    tableau tb = {.n_cols = 4, .header = header};
    for (size_t i = 0; !rc && i < n; i++) {
        char when[40];
        time_t t = (time_t)(v[i].started_ms / 1000);
        struct tm tm;
        gmtime_r(&t, &tm);
        size_t k = strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
        snprintf(when + k, sizeof when - k, ".%03d", (int)(v[i].started_ms % 1000));
        const char *row[4] = {plan_strdup(pc, v[i].id), plan_strdup(pc, v[i].name),
                              plan_strdup(pc, v[i].status[0] ? v[i].status : "RUNNING"), plan_strdup(pc, when)};
        rc = !row[0] || !row[1] || !row[2] || !row[3] ? WEIR_ENOMEM : tableau_add(pc, &tb, row);
    }
    weir_free(v);
    return rc ? rc : tableau_print(pc, &tb);
}

int plan_stop_job(plan_ctx *pc, const weir_sql_stmt *st)
{
    int rc = job_control(pc, st, "STOP JOB");
    if (rc || pc->jobs->skip)
        return rc;
    bool sp = st->u.stop_job.savepoint, drain = st->u.stop_job.drain;
    if (sp && drain)
        return plan_error(pc, st->loc, WEIR_EUNSUPPORTED,
                          "STOP JOB ... WITH SAVEPOINT WITH DRAIN is not supported: weir does not take a savepoint "
                          "after draining; WITH DRAIN stops with every window fired (and a final checkpoint), WITH "
                          "SAVEPOINT keeps the windows' state in the savepoint");
    char path[1100] = "";
    weir_error err = {0};
    if ((rc = pc->jobs->stop(pc->jobs->ud, st->u.stop_job.job, sp, drain, path, sizeof path, &err)))
        return plan_error(pc, st->u.stop_job.job_loc, rc, "STOP JOB '%s': %s", st->u.stop_job.job, err.message);
    if (!sp)
        return 0; /* as weir's other statements without a result: nothing printed */
    static const char *const header[] = {"savepoint path"};
    tableau tb = {.n_cols = 1, .header = header};
    const char *row[1] = {plan_strdup(pc, path)};
    rc = row[0] ? tableau_add(pc, &tb, row) : WEIR_ENOMEM;
    return rc ? rc : tableau_print(pc, &tb);
}

int plan_show(plan_ctx *pc, const weir_sql_stmt *st)
{
    name_filter f = {st->u.show.like, st->u.show.not_like, st->u.show.ilike};
    switch (st->u.show.what) {
    case WEIR_SQL_SHOW_TABLES: return show_names(pc, st, true);
    case WEIR_SQL_SHOW_VIEWS: return show_names(pc, st, false);
    case WEIR_SQL_SHOW_COLUMNS: return describe(pc, &st->u.show.name, &f);
    case WEIR_SQL_SHOW_CREATE_TABLE:
    case WEIR_SQL_SHOW_CREATE_VIEW: {
        /* as Flink prints them: the object's catalog, database and name, every name in backquotes, one
         * column per line, in the SQL client's one-column table */
        const weir_sql_name *n = &st->u.show.name;
        bool table = st->u.show.what == WEIR_SQL_SHOW_CREATE_TABLE;
        weir_buf b;
        weir_buf_init(&b);
        int rc;
        if (table) {
            cat_table *t = plan_find_table(pc, n);
            if (!t)
                return plan_find_view(pc, n) ? plan_error(pc, n->loc, WEIR_EPLAN,
                                                          "'%s' is a view: SHOW CREATE VIEW shows it", last_part(n))
                                             : missing(pc, n, "table");
            const char *path[3] = {t->catalog, t->database, t->name};
            rc = weir__sql_format_show_create_table(t->ddl, path, &b);
        } else {
            cat_view *v = plan_find_view(pc, n);
            if (!v)
                return plan_find_table(pc, n) ? plan_error(pc, n->loc, WEIR_EPLAN,
                                                           "'%s' is a table: SHOW CREATE TABLE shows it",
                                                           last_part(n))
                                              : missing(pc, n, "view");
            /* the view and every table and view its query reads by their catalog, database and
             * name, as its query resolved them where it was written; its columns as created */
            const char *path[3] = {v->catalog, v->database, v->name};
            uint32_t nc = v->schema ? v->schema->n_fields : v->n_columns;
            const char **cols = plan_alloc(pc, (nc + 1) * sizeof *cols);
            if (!cols)
                return WEIR_ENOMEM;
            for (uint32_t i = 0; i < nc; i++)
                cols[i] = v->schema ? v->schema->fields[i].name : v->columns[i].name;
            view_names vn = {.v = v};
            rc = weir__sql_format_show_create_view(path, v->temporary, cols, nc, v->comment, v->query, resolved_name,
                                                   &vn, &b);
        }
        const char *text = NULL;
        if (!rc)
            rc = buf_take(pc, &b, &text);
        weir_buf_fini(&b);
        if (rc)
            return rc;
        static const char *const header[] = {"result"};
        tableau tb = {.n_cols = 1, .header = header};
        return (rc = tableau_add(pc, &tb, &text)) ? rc : tableau_print(pc, &tb);
    }
    case WEIR_SQL_SHOW_FUNCTIONS: return plan_show_functions(pc, st);
    case WEIR_SQL_SHOW_JOBS: return show_jobs(pc, st);
    default: return plan_show_space(pc, st); /* database.c */
    }
}
