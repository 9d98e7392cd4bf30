/*
 * planner/database.c - catalogs and databases: CREATE CATALOG, CREATE
 * DATABASE, their DROP and ALTER, USE [CATALOG], and SHOW CATALOGS /
 * DATABASES / CURRENT CATALOG / CURRENT DATABASE / CREATE CATALOG.
 *
 * A script starts in the built-in catalog default_catalog, database
 * default_database, as Flink's SQL client does. CREATE CATALOG makes an
 * in-memory catalog (Flink's 'generic_in_memory' type, the only one weir
 * has) holding one database, its 'default-database' ("default" unless the
 * option names another). Everything lives in the plan context, for the
 * statements of one script, in order: a statement sees what the ones before
 * it created, changed and dropped.
 *
 * Invariants: every table and view is in a database that exists (a
 * temporary one too: dropping a database drops its temporary objects with
 * it, where Flink keeps them apart from the catalog); the current catalog
 * exists, and the current catalog and database cannot be dropped.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "planner/planner.h"

#define GENERIC_IN_MEMORY "generic_in_memory"

cat_catalog *plan_find_catalog(plan_ctx *pc, const char *name)
{
    for (size_t i = 0; i < pc->n_catalogs; i++)
        if (!strcasecmp(pc->catalogs[i].name, name))
            return &pc->catalogs[i];
    return NULL;
}

cat_database *plan_find_database(cat_catalog *c, const char *name)
{
    for (size_t i = 0; c && i < c->n_dbs; i++)
        if (!strcasecmp(c->dbs[i].name, name))
            return &c->dbs[i];
    return NULL;
}

/* Appends one element of size sz to the plan-owned array *arr of *n (the old copy stays until the job is freed). */
static void *grow(plan_ctx *pc, void **arr, size_t *n, size_t sz)
{
    char *a = plan_alloc(pc, (*n + 1) * sz);
    if (!a)
        return NULL;
    if (*n)
        memcpy(a, *arr, *n * sz);
    memset(a + *n * sz, 0, sz);
    *arr = a;
    return a + (*n)++ * sz;
}

static int add_database(plan_ctx *pc, cat_catalog *c, const char *name, cat_database **out)
{
    cat_database *d = grow(pc, (void **)&c->dbs, &c->n_dbs, sizeof *d);
    if (!d || !(d->name = plan_strdup(pc, name)))
        return WEIR_ENOMEM;
    *out = d;
    return 0;
}

static int add_catalog(plan_ctx *pc, const char *name, const char *default_db, cat_catalog **out)
{
    cat_catalog *c = grow(pc, (void **)&pc->catalogs, &pc->n_catalogs, sizeof *c);
    cat_database *d = NULL;
    if (!c || !(c->name = plan_strdup(pc, name)))
        return WEIR_ENOMEM;
    int rc = add_database(pc, c, default_db, &d);
    if (rc)
        return rc;
    c->default_db = d->name;
    *out = c;
    return 0;
}

int plan_catalogs_init(plan_ctx *pc)
{
    cat_catalog *c = NULL;
    int rc = add_catalog(pc, PLAN_DEFAULT_CATALOG, PLAN_DEFAULT_DATABASE, &c);
    if (rc)
        return rc;
    pc->cur_catalog = c->name;
    pc->cur_database = c->default_db;
    return 0;
}

/* "; did you mean 'x'?" for the closest of names, or "". */
static const char *did_you_mean(plan_ctx *pc, const char *name, const char *const *names, size_t n)
{
    const char *best = plan_closest_name(name, names, n);
    if (!best)
        return "";
    size_t len = strlen(best) + 20;
    char *s = plan_alloc(pc, len);
    if (!s)
        return "";
    snprintf(s, len, "; did you mean '%s'?", best);
    return s;
}

int plan_unknown_catalog(plan_ctx *pc, const weir_sql_ident *id)
{
    const char **names = plan_alloc(pc, (pc->n_catalogs + 1) * sizeof *names);
    if (!names)
        return WEIR_ENOMEM;
    for (size_t i = 0; i < pc->n_catalogs; i++)
        names[i] = pc->catalogs[i].name;
    return plan_error(pc, id->loc, WEIR_ENOTFOUND, "catalog '%s' does not exist%s", id->name,
                      did_you_mean(pc, id->name, names, pc->n_catalogs));
}

int plan_unknown_database(plan_ctx *pc, cat_catalog *c, const weir_sql_ident *id)
{
    const char *name = id->name;
    const char **names = plan_alloc(pc, (c->n_dbs + 1) * sizeof *names);
    if (!names)
        return WEIR_ENOMEM;
    for (size_t i = 0; i < c->n_dbs; i++)
        names[i] = c->dbs[i].name;
    return plan_error(pc, id->loc, WEIR_ENOTFOUND, "database '%s' does not exist in catalog '%s'%s", name, c->name,
                      did_you_mean(pc, name, names, c->n_dbs));
}

/* The catalog of a one-part name. */
static int find_catalog(plan_ctx *pc, const weir_sql_name *n, cat_catalog **out)
{
    if (n->n_parts != 1)
        return plan_error(pc, n->loc, WEIR_EINVAL, "a catalog name has one part ('%s.%s' has %u)", n->parts[0].name,
                          n->parts[1].name, n->n_parts);
    *out = plan_find_catalog(pc, n->parts[0].name);
    return 0;
}

/* The catalog (checked to exist) and database (NULL when missing) of db or c.db. */
static int find_database(plan_ctx *pc, const weir_sql_name *n, cat_catalog **c, cat_database **d)
{
    if (n->n_parts > 2)
        return plan_error(pc, n->loc, WEIR_EINVAL,
                          "a database name has at most two parts (catalog.database; '%s.%s.%s...' has %u)",
                          n->parts[0].name, n->parts[1].name, n->parts[2].name, n->n_parts);
    if (n->n_parts == 2) {
        if (!(*c = plan_find_catalog(pc, n->parts[0].name)))
            return plan_unknown_catalog(pc, &n->parts[0]);
    } else {
        *c = plan_find_catalog(pc, pc->cur_catalog);
    }
    *d = plan_find_database(*c, n->parts[n->n_parts - 1].name);
    return 0;
}

int plan_check_function_name(plan_ctx *pc, const weir_sql_name *n)
{
    if (n->n_parts <= 1)
        return 0;
    if (n->n_parts > 3)
        return plan_error(pc, n->loc, WEIR_EINVAL, "'%s...': a function name has at most three parts "
                          "(catalog.database.function)", n->parts[0].name);
    weir_sql_name space = *n;
    space.n_parts--;
    cat_catalog *c = NULL;
    cat_database *d = NULL;
    if (space.n_parts == 1 && !plan_find_catalog(pc, pc->cur_catalog))
        return plan_error(pc, n->loc, WEIR_ENOTFOUND, "catalog '%s' does not exist", pc->cur_catalog);
    int rc = find_database(pc, &space, &c, &d);
    return rc ? rc : d ? 0 : plan_unknown_database(pc, c, &space.parts[space.n_parts - 1]);
}

int plan_show_from(plan_ctx *pc, const weir_sql_name *from, weir_sql_loc at, cat_path *out)
{
    if (!from->n_parts) {
        cat_catalog *c = plan_find_catalog(pc, pc->cur_catalog);
        cat_database *d = plan_find_database(c, pc->cur_database);
        if (!d)
            return plan_error(pc, at, WEIR_ENOTFOUND,
                              "the current database '%s' of catalog '%s' does not exist (USE another)",
                              pc->cur_database, c->name);
        *out = (cat_path){c->name, d->name, NULL};
        return 0;
    }
    cat_catalog *c = NULL;
    cat_database *d = NULL;
    int rc = find_database(pc, from, &c, &d);
    if (rc)
        return rc;
    if (!d)
        return plan_unknown_database(pc, c, &from->parts[from->n_parts - 1]);
    *out = (cat_path){c->name, d->name, NULL};
    return 0;
}

/* ----------------------------------------------------------- options */

/* Copies options into a plan-owned array. */
static int copy_options(plan_ctx *pc, const weir_sql_option *o, uint32_t n, weir_option **out, size_t *n_out)
{
    weir_option *a = plan_alloc(pc, (n + 1) * sizeof *a);
    if (!a)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < n; i++)
        a[i] = (weir_option){o[i].key, o[i].value};
    *out = a;
    *n_out = n;
    return 0;
}

/* Sets key to value in a plan-owned option array (replacing the key's value, or adding it). */
static int set_option(plan_ctx *pc, weir_option **opts, size_t *n, const char *key, const char *value)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp((*opts)[i].key, key)) {
            (*opts)[i].value = value;
            return 0;
        }
    weir_option *o = grow(pc, (void **)opts, n, sizeof *o);
    if (!o)
        return WEIR_ENOMEM;
    *o = (weir_option){key, value};
    return 0;
}

static const char *option_value(const weir_option *o, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(o[i].key, key))
            return o[i].value;
    return NULL;
}

/* A catalog option weir honours: 'type' (generic_in_memory), 'default-database'. */
static int check_catalog_option(plan_ctx *pc, const weir_sql_option *o)
{
    if (!strcmp(o->key, "type")) {
        if (strcmp(o->value, GENERIC_IN_MEMORY))
            return plan_error(pc, o->value_loc, WEIR_EUNSUPPORTED,
                              "catalog type '%s' is not supported by weir: its catalogs are in memory, 'type' = "
                              "'" GENERIC_IN_MEMORY "'",
                              o->value);
        return 0;
    }
    if (!strcmp(o->key, "default-database")) {
        if (!o->value[0])
            return plan_error(pc, o->value_loc, WEIR_EINVAL, "'default-database' must name a database");
        return 0;
    }
    if (!strcmp(o->key, "property-version"))
        return 0;
    return plan_error(pc, o->loc, WEIR_EUNSUPPORTED,
                      "unsupported option '%s' for a catalog of type '" GENERIC_IN_MEMORY
                      "' (it takes 'type' and 'default-database')",
                      o->key);
}

/* ------------------------------------------------------------ CREATE */

static int create_catalog(plan_ctx *pc, const weir_sql_stmt *st)
{
    const weir_sql_create_space *cs = &st->u.create_catalog;
    cat_catalog *c = NULL;
    int rc = find_catalog(pc, &cs->name, &c);
    if (rc)
        return rc;
    const char *name = cs->name.parts[0].name;
    const weir_sql_option *type = NULL;
    for (uint32_t i = 0; i < cs->n_options; i++) {
        for (uint32_t j = 0; j < i; j++)
            if (!strcmp(cs->options[j].key, cs->options[i].key))
                return plan_error(pc, cs->options[i].loc, WEIR_EINVAL, "option '%s' is given twice",
                                  cs->options[i].key);
        if ((rc = check_catalog_option(pc, &cs->options[i])))
            return rc;
        if (!strcmp(cs->options[i].key, "type"))
            type = &cs->options[i];
    }
    if (!type)
        return plan_error(pc, cs->name.loc, WEIR_EINVAL,
                          "catalog '%s' needs its type: WITH ('type' = '" GENERIC_IN_MEMORY "')", name);
    if (c) {
        if (cs->if_not_exists)
            return 0;
        return plan_error(pc, cs->name.loc, WEIR_EEXIST, "catalog '%s' already exists", name);
    }
    weir_option *opts;
    size_t n_opts;
    if ((rc = copy_options(pc, cs->options, cs->n_options, &opts, &n_opts)))
        return rc;
    const char *db = option_value(opts, n_opts, "default-database");
    if ((rc = add_catalog(pc, name, db ? db : "default", &c)))
        return rc;
    c->opts = opts;
    c->n_opts = n_opts;
    c->comment = cs->comment;
    return 0;
}

static int create_database(plan_ctx *pc, const weir_sql_stmt *st)
{
    const weir_sql_create_space *cs = &st->u.create_catalog;
    cat_catalog *c = NULL;
    cat_database *d = NULL;
    int rc = find_database(pc, &cs->name, &c, &d);
    if (rc)
        return rc;
    const char *name = cs->name.parts[cs->name.n_parts - 1].name;
    if (d) {
        if (cs->if_not_exists)
            return 0;
        return plan_error(pc, cs->name.loc, WEIR_EEXIST, "database '%s' already exists in catalog '%s'", name,
                          c->name);
    }
    if ((rc = add_database(pc, c, name, &d)))
        return rc;
    d->comment = cs->comment;
    return copy_options(pc, cs->options, cs->n_options, &d->props, &d->n_props);
}

int plan_create_space(plan_ctx *pc, const weir_sql_stmt *st)
{
    return st->kind == WEIR_SQL_STMT_CREATE_CATALOG ? create_catalog(pc, st) : create_database(pc, st);
}

/* -------------------------------------------------------------- DROP */

/* Whether an object of catalog c (and database d, unless NULL) is in it. */
static bool in_space(const char *oc, const char *od, const cat_catalog *c, const cat_database *d)
{
    return oc && !strcmp(oc, c->name) && (!d || !strcmp(od, d->name));
}

/* Counts (drop false) or drops the tables and views of catalog c (database d, unless NULL). */
static size_t objects_in(plan_ctx *pc, const cat_catalog *c, const cat_database *d, bool drop)
{
    size_t n = 0, k = 0;
    for (size_t i = 0; i < pc->n_tables; i++) {
        bool in = in_space(pc->tables[i].catalog, pc->tables[i].database, c, d);
        n += in;
        if (!in || !drop)
            pc->tables[k++] = pc->tables[i];
    }
    pc->n_tables = k;
    k = 0;
    for (size_t i = 0; i < pc->n_views; i++) {
        bool in = in_space(pc->views[i].catalog, pc->views[i].database, c, d);
        n += in;
        if (!in || !drop)
            pc->views[k++] = pc->views[i];
    }
    pc->n_views = k;
    return n;
}

static int drop_catalog(plan_ctx *pc, const weir_sql_drop *dr)
{
    cat_catalog *c = NULL;
    int rc = find_catalog(pc, &dr->name, &c);
    if (rc)
        return rc;
    if (!c)
        return dr->if_exists ? 0 : plan_unknown_catalog(pc, &dr->name.parts[0]);
    if (!strcasecmp(c->name, pc->cur_catalog))
        return plan_error(pc, dr->name.loc, WEIR_EPLAN,
                          "catalog '%s' is the current catalog and cannot be dropped (USE CATALOG another first)",
                          c->name);
    objects_in(pc, c, NULL, true);
    size_t i = (size_t)(c - pc->catalogs);
    memmove(&pc->catalogs[i], &pc->catalogs[i + 1], (pc->n_catalogs - i - 1) * sizeof *c);
    pc->n_catalogs--;
    return 0;
}

static int drop_database(plan_ctx *pc, const weir_sql_drop *dr)
{
    cat_catalog *c = NULL;
    cat_database *d = NULL;
    int rc = find_database(pc, &dr->name, &c, &d);
    if (rc)
        return rc;
    if (!d)
        return dr->if_exists ? 0 : plan_unknown_database(pc, c, &dr->name.parts[dr->name.n_parts - 1]);
    if (!strcasecmp(c->name, pc->cur_catalog) && !strcasecmp(d->name, pc->cur_database))
        return plan_error(pc, dr->name.loc, WEIR_EPLAN,
                          "database '%s' is the current database and cannot be dropped (USE another first)",
                          d->name);
    size_t n = objects_in(pc, c, d, false);
    if (n && !dr->cascade)
        return plan_error(pc, dr->name.loc, WEIR_EPLAN,
                          "database '%s' in catalog '%s' is not empty (%zu table%s and view%s): DROP DATABASE ... "
                          "CASCADE drops it with them",
                          d->name, c->name, n, n == 1 ? "" : "s", n == 1 ? "" : "s");
    objects_in(pc, c, d, true);
    size_t i = (size_t)(d - c->dbs);
    memmove(&c->dbs[i], &c->dbs[i + 1], (c->n_dbs - i - 1) * sizeof *d);
    c->n_dbs--;
    return 0;
}

int plan_drop_space(plan_ctx *pc, const weir_sql_drop *d)
{
    return d->object == WEIR_SQL_OBJECT_CATALOG ? drop_catalog(pc, d) : drop_database(pc, d);
}

/* ------------------------------------------------------------- ALTER */

int plan_alter_space(plan_ctx *pc, const weir_sql_alter *a)
{
    int rc;
    if (a->object == WEIR_SQL_OBJECT_DATABASE) {
        cat_catalog *c = NULL;
        cat_database *d = NULL;
        if ((rc = find_database(pc, &a->name, &c, &d)))
            return rc;
        if (!d)
            return plan_unknown_database(pc, c, &a->name.parts[a->name.n_parts - 1]);
        for (uint32_t i = 0; i < a->n_options; i++)
            if ((rc = set_option(pc, &d->props, &d->n_props, a->options[i].key, a->options[i].value)))
                return rc;
        return 0;
    }
    cat_catalog *c = NULL;
    if ((rc = find_catalog(pc, &a->name, &c)))
        return rc;
    if (!c)
        return plan_unknown_catalog(pc, &a->name.parts[0]);
    if (a->action == WEIR_SQL_ALTER_SET) {
        for (uint32_t i = 0; i < a->n_options; i++) {
            const weir_sql_option *o = &a->options[i];
            if ((rc = check_catalog_option(pc, o)))
                return rc;
            if (!strcmp(o->key, "type"))
                return plan_error(pc, o->loc, WEIR_EINVAL, "ALTER CATALOG ... SET cannot change 'type'");
            if ((rc = set_option(pc, &c->opts, &c->n_opts, o->key, o->value)))
                return rc;
            if (!strcmp(o->key, "default-database"))
                c->default_db = o->value; /* for the next USE CATALOG */
        }
        return 0;
    }
    for (uint32_t i = 0; i < a->n_keys; i++) {
        if (!strcmp(a->keys[i], "type"))
            return plan_error(pc, a->key_locs[i], WEIR_EINVAL, "ALTER CATALOG ... RESET cannot remove 'type'");
        if (!strcmp(a->keys[i], "default-database"))
            c->default_db = "default";
        for (size_t j = 0; j < c->n_opts; j++)
            if (!strcmp(c->opts[j].key, a->keys[i])) {
                memmove(&c->opts[j], &c->opts[j + 1], (c->n_opts - j - 1) * sizeof *c->opts);
                c->n_opts--;
                break;
            }
    }
    return 0;
}

/* --------------------------------------------------------------- USE */

/* USE CATALOG c (its default database becomes current), USE db, USE c.db. */
int plan_use(plan_ctx *pc, const weir_sql_stmt *st)
{
    const weir_sql_name *n = &st->u.use.name;
    cat_catalog *c = NULL;
    int rc;
    if (st->u.use.catalog) {
        if ((rc = find_catalog(pc, n, &c)))
            return rc;
        if (!c)
            return plan_unknown_catalog(pc, &n->parts[0]);
        /* the database's own name when it exists ('default-database' may differ in case) */
        cat_database *dd = plan_find_database(c, c->default_db);
        pc->cur_catalog = c->name;
        pc->cur_database = dd ? dd->name : c->default_db;
        return 0;
    }
    cat_database *d = NULL;
    if ((rc = find_database(pc, n, &c, &d)))
        return rc;
    if (!d)
        return plan_unknown_database(pc, c, &n->parts[n->n_parts - 1]);
    pc->cur_catalog = c->name;
    pc->cur_database = d->name;
    return 0;
}

/* -------------------------------------------------------------- SHOW */

int plan_show_space(plan_ctx *pc, const weir_sql_stmt *st)
{
    const char *like = st->u.show.like;
    bool not_like = st->u.show.not_like, ilike = st->u.show.ilike;
    switch (st->u.show.what) {
    case WEIR_SQL_SHOW_CATALOGS: {
        const char **names = plan_alloc(pc, (pc->n_catalogs + 1) * sizeof *names);
        if (!names)
            return WEIR_ENOMEM;
        for (size_t i = 0; i < pc->n_catalogs; i++)
            names[i] = pc->catalogs[i].name;
        return plan_print_names(pc, "catalog name", names, pc->n_catalogs, like, not_like, ilike);
    }
    case WEIR_SQL_SHOW_DATABASES: {
        cat_catalog *c = plan_find_catalog(pc, pc->cur_catalog);
        if (st->u.show.from.n_parts) {
            int rc = find_catalog(pc, &st->u.show.from, &c);
            if (rc)
                return rc;
            if (!c)
                return plan_unknown_catalog(pc, &st->u.show.from.parts[0]);
        }
        const char **names = plan_alloc(pc, (c->n_dbs + 1) * sizeof *names);
        if (!names)
            return WEIR_ENOMEM;
        for (size_t i = 0; i < c->n_dbs; i++)
            names[i] = c->dbs[i].name;
        return plan_print_names(pc, "database name", names, c->n_dbs, like, not_like, ilike);
    }
    case WEIR_SQL_SHOW_CURRENT_CATALOG:
        return plan_print_names(pc, "current catalog name", &pc->cur_catalog, 1, NULL, false, false);
    case WEIR_SQL_SHOW_CURRENT_DATABASE:
        return plan_print_names(pc, "current database name", &pc->cur_database, 1, NULL, false, false);
    case WEIR_SQL_SHOW_CREATE_CATALOG: {
        cat_catalog *c = NULL;
        int rc = find_catalog(pc, &st->u.show.name, &c);
        if (rc)
            return rc;
        if (!c)
            return plan_unknown_catalog(pc, &st->u.show.name.parts[0]);
        if (!option_value(c->opts, c->n_opts, "type")) /* CREATE CATALOG needs it, ALTER keeps it */
            return plan_error(pc, st->u.show.name.loc, WEIR_EPLAN,
                              "catalog '%s' is weir's built-in catalog: no CREATE CATALOG made it", c->name);
        weir_sql_ident id = {.name = c->name, .len = (uint32_t)strlen(c->name)};
        weir_sql_option *o = plan_alloc(pc, (c->n_opts + 1) * sizeof *o);
        if (!o)
            return WEIR_ENOMEM;
        for (size_t i = 0; i < c->n_opts; i++)
            o[i] = (weir_sql_option){.key = c->opts[i].key,
                                     .key_len = (uint32_t)strlen(c->opts[i].key),
                                     .value = c->opts[i].value,
                                     .value_len = (uint32_t)strlen(c->opts[i].value)};
        weir_sql_stmt shown = {.kind = WEIR_SQL_STMT_CREATE_CATALOG};
        shown.u.create_catalog = (weir_sql_create_space){
            .name = {&id, 1, {0}}, .comment = c->comment, .options = o, .n_options = (uint32_t)c->n_opts};
        rc = weir_sql_format_stmt(&shown, &pc->explain_out);
        return rc ? rc : weir_buf_put(&pc->explain_out, "\n", 1);
    }
    default: return plan_error(pc, st->loc, WEIR_EPLAN, "not a SHOW of catalogs or databases");
    }
}
