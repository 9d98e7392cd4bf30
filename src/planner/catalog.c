/*
 * planner/catalog.c - CREATE TABLE and CREATE VIEW: schemas, computed
 * columns, watermarks and connector options.
 *
 * Types map onto weir's physical types: TINYINT/SMALLINT/INT -> INT,
 * FLOAT/DOUBLE -> DOUBLE, CHAR/VARCHAR/STRING -> STRING, BINARY/VARBINARY/
 * BYTES -> BYTES, TIMESTAMP(p) -> TIMESTAMP(3) (weir's time is in
 * milliseconds; finer digits are truncated), DECIMAL(p, s) with p <= 18.
 * A watermark must be `col` or `col - INTERVAL ...` (bounded
 * out-of-orderness); anything else is refused with a message.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "planner/planner.h"

static bool name_is(const weir_sql_name *n, const char *s)
{
    return n->n_parts >= 1 && strcasecmp(n->parts[n->n_parts - 1].name, s) == 0;
}

int plan_qualify(plan_ctx *pc, const weir_sql_name *n, cat_path *out)
{
    const weir_sql_ident *p = n->parts;
    switch (n->n_parts) {
    case 1: *out = (cat_path){pc->cur_catalog, pc->cur_database, p[0].name}; return 0;
    case 2: *out = (cat_path){pc->cur_catalog, p[0].name, p[1].name}; return 0;
    case 3: *out = (cat_path){p[0].name, p[1].name, p[2].name}; return 0;
    default:
        return plan_error(pc, n->loc, WEIR_EINVAL,
                          "'%s...': a table or view name has at most three parts (catalog.database.name)",
                          p[0].name);
    }
}

static bool in_path(const char *catalog, const char *database, const char *name, const cat_path *p)
{
    return catalog && !strcasecmp(catalog, p->catalog) && !strcasecmp(database, p->database) &&
           !strcasecmp(name, p->name);
}

cat_table *plan_table_at(plan_ctx *pc, const cat_path *path, bool temporary)
{
    for (size_t i = 0; i < pc->n_tables; i++) {
        cat_table *t = &pc->tables[i];
        if (t->ddl->temporary == temporary && in_path(t->catalog, t->database, t->name, path))
            return t;
    }
    return NULL;
}

cat_view *plan_view_at(plan_ctx *pc, const cat_path *path, bool temporary)
{
    for (size_t i = 0; i < pc->n_views; i++) {
        cat_view *v = &pc->views[i];
        if (v->temporary == temporary && in_path(v->catalog, v->database, v->name, path))
            return v;
    }
    return NULL;
}

/* The innermost WITH query of a bare name, or NULL. */
static cat_view *with_query(plan_ctx *pc, const weir_sql_name *n)
{
    if (n->n_parts != 1)
        return NULL;
    for (size_t i = pc->n_views; i-- > 0;)
        if (!pc->views[i].catalog && !pc->views[i].hidden && !strcasecmp(pc->views[i].name, n->parts[0].name))
            return &pc->views[i];
    return NULL;
}

/* What n refers to: at most one of *t and *v is set. */
static void resolve(plan_ctx *pc, const weir_sql_name *n, cat_table **t, cat_view **v)
{
    *t = NULL;
    *v = with_query(pc, n);
    cat_path path = {0};
    if (*v || n->n_parts > 3 || !pc->cur_catalog)
        return;
    weir_sql_ident *p = n->parts;
    path = n->n_parts == 1   ? (cat_path){pc->cur_catalog, pc->cur_database, p[0].name}
           : n->n_parts == 2 ? (cat_path){pc->cur_catalog, p[0].name, p[1].name}
                             : (cat_path){p[0].name, p[1].name, p[2].name};
    /* a temporary object shadows a permanent one of the same path */
    for (int temporary = 1; temporary >= 0 && !*t && !*v; temporary--) {
        *t = plan_table_at(pc, &path, temporary);
        if (!*t)
            *v = plan_view_at(pc, &path, temporary);
    }
}

cat_table *plan_find_table(plan_ctx *pc, const weir_sql_name *n)
{
    cat_table *t;
    cat_view *v;
    resolve(pc, n, &t, &v);
    return t;
}

cat_view *plan_find_view(plan_ctx *pc, const weir_sql_name *n)
{
    cat_table *t;
    cat_view *v;
    resolve(pc, n, &t, &v);
    return v;
}

void plan_view_enter(plan_ctx *pc, const cat_view *v, plan_home *saved)
{
    size_t from = 0;
    if (!v->catalog && v >= pc->views && v < pc->views + pc->n_views)
        from = (size_t)(v - pc->views);
    *saved = (plan_home){pc->cur_catalog, pc->cur_database, from, pc->n_views};
    for (size_t i = from; i < pc->n_views; i++)
        pc->views[i].hidden++;
    if (!pc->n_homes++) {
        pc->stmt_catalog = pc->cur_catalog;
        pc->stmt_database = pc->cur_database;
    }
    if (v->catalog) {
        pc->cur_catalog = v->home_catalog;
        pc->cur_database = v->home_database;
    }
}

void plan_view_leave(plan_ctx *pc, const plan_home *saved)
{
    pc->cur_catalog = saved->catalog;
    pc->cur_database = saved->database;
    for (size_t i = saved->hide_from; i < saved->hide_to && i < pc->n_views; i++)
        pc->views[i].hidden--;
    pc->n_homes--;
}

int plan_late_table(plan_ctx *pc, weir_sql_loc loc, bool quiet, cat_table **t)
{
    static const char key[] = "weir.late-records.table";
    *t = NULL;
    const char *tn = plan_config(pc, key);
    if (!tn)
        return 0;
    /* t, db.t or catalog.db.t, qualified here with the statement's current catalog and database (so
     * that no WITH query of the statement is found either) */
    size_t dots = 0;
    for (const char *p = tn; *p; p++)
        dots += *p == '.';
    const char *cat = pc->n_homes ? pc->stmt_catalog : pc->cur_catalog;
    const char *db = pc->n_homes ? pc->stmt_database : pc->cur_database;
    if (dots > 2 || !cat)
        return quiet ? 0
                     : plan_error(pc, plan_config_at(pc, key, loc), WEIR_EINVAL,
                                  dots > 2 ? "%s '%s': a table name has at most three parts"
                                           : "%s '%s': there is no current catalog",
                                  key, tn);
    weir_sql_ident id[3] = {{.name = cat}, {.name = db}};
    const char *p = tn;
    for (size_t i = 2 - dots; i < 3; i++) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        char *part = plan_alloc(pc, len + 1);
        if (!part)
            return WEIR_ENOMEM;
        memcpy(part, p, len);
        part[len] = 0;
        id[i].name = part;
        p += len + 1;
    }
    for (size_t i = 0; i < 3; i++) {
        id[i].len = (uint32_t)strlen(id[i].name);
        id[i].loc = loc;
    }
    *t = plan_find_table(pc, &(weir_sql_name){.parts = id, .n_parts = 3, .loc = loc});
    if (!*t && !quiet)
        return plan_error(pc, plan_config_at(pc, key, loc), WEIR_ENOTFOUND, "%s names unknown table '%s'", key,
                          tn);
    return 0;
}

const char *plan_closest_name(const char *name, const char *const *cands, size_t n)
{
    const char *best = NULL;
    int best_d = 3;
    size_t nl = strlen(name);
    for (size_t i = 0; i < n; i++) {
        int d = weir__sql_edit_distance(name, nl, cands[i], strlen(cands[i]), best_d);
        if (d < best_d) {
            best_d = d;
            best = cands[i];
        }
    }
    return best;
}

/* The closest table or view name of the database at path (and of the WITH queries when bare). */
static const char *suggest_object(plan_ctx *pc, const cat_path *path, bool bare)
{
    const char **cands = plan_alloc(pc, (pc->n_tables + pc->n_views + 1) * sizeof *cands);
    size_t n = 0;
    if (!cands)
        return NULL;
    for (size_t i = 0; i < pc->n_tables; i++) {
        const cat_table *t = &pc->tables[i];
        if (!strcasecmp(t->catalog, path->catalog) && !strcasecmp(t->database, path->database))
            cands[n++] = t->name;
    }
    for (size_t i = 0; i < pc->n_views; i++) {
        const cat_view *v = &pc->views[i];
        if (v->catalog ? !strcasecmp(v->catalog, path->catalog) && !strcasecmp(v->database, path->database) : bare)
            cands[n++] = v->name;
    }
    return plan_closest_name(path->name, cands, n);
}

int plan_missing(plan_ctx *pc, const weir_sql_name *n, const char *what, bool unknown_form)
{
    cat_path path = {0};
    int rc = plan_qualify(pc, n, &path);
    if (rc)
        return rc;
    cat_catalog *c = plan_find_catalog(pc, path.catalog);
    if (!c && n->n_parts == 3)
        return plan_unknown_catalog(pc, &n->parts[0]);
    if (!c) /* the current catalog: a view's home, dropped since (USE CATALOG never leaves one missing) */
        return plan_error(pc, n->parts[n->n_parts - 1].loc, WEIR_ENOTFOUND,
                          "%s '%s': catalog '%s', where the view reading it was created, does not exist", what,
                          path.name, path.catalog);
    if (!plan_find_database(c, path.database)) {
        /* a bare name: the current database (which USE CATALOG may have left missing) */
        weir_sql_ident db = n->n_parts >= 2 ? n->parts[n->n_parts - 2]
                                            : (weir_sql_ident){.name = path.database, .loc = n->parts[0].loc};
        return plan_unknown_database(pc, c, &db);
    }
    const char *s = suggest_object(pc, &path, n->n_parts == 1);
    weir_sql_loc at = n->parts[n->n_parts - 1].loc;
    /* where it was looked for, unless that is the current database */
    char where[256] = "";
    if (strcasecmp(path.catalog, pc->cur_catalog) || strcasecmp(path.database, pc->cur_database))
        snprintf(where, sizeof where, " in '%s.%s'", c->name, plan_find_database(c, path.database)->name);
    if (unknown_form)
        return plan_error(pc, at, WEIR_ENOTFOUND, "unknown %s '%s'%s%s%s%s", what, path.name, where,
                          s ? "; did you mean '" : "", s ? s : "", s ? "'?" : "");
    return plan_error(pc, at, WEIR_ENOTFOUND, "%s '%s' does not exist%s%s%s%s", what, path.name, where,
                      s ? "; did you mean '" : "", s ? s : "", s ? "'?" : "");
}

/* ARRAY<T>, MAP<K, V>, ROW<name T, ...>: their parts first, then the interned type. */
static int plan_nested_type_from_sql(plan_ctx *pc, const weir_sql_type *t, weir_type *out)
{
    weir_type parts[64];
    const char *names[64];
    uint32_t n = t->kind == WEIR_SQL_TYPE_ARRAY || t->kind == WEIR_SQL_TYPE_MULTISET ? 1
                 : t->kind == WEIR_SQL_TYPE_MAP                                       ? 2
                                                                                      : t->n_fields;
    if (n > 64)
        return plan_error(pc, t->loc, WEIR_EUNSUPPORTED, "a ROW type of more than 64 fields is not supported");
    int rc;
    for (uint32_t i = 0; i < n; i++) {
        const weir_sql_type *pt = t->kind == WEIR_SQL_TYPE_ROW ? t->fields[i].type : i ? t->value : t->elem;
        if ((rc = plan_type_from_sql(pc, pt, &parts[i])))
            return rc;
        if (weir_type_interval(parts[i]))
            return plan_error(pc, pt->loc, WEIR_EUNSUPPORTED,
                              "an INTERVAL inside an ARRAY, MAP, MULTISET or ROW type is not supported");
        if (t->kind == WEIR_SQL_TYPE_ROW) {
            names[i] = t->fields[i].name.name;
            for (uint32_t j = 0; j < i; j++)
                if (!strcasecmp(names[j], names[i]))
                    return plan_error(pc, t->fields[i].name.loc, WEIR_EINVAL, "ROW field '%s' is declared twice",
                                      names[i]);
        }
    }
    bool nullable = !t->not_null;
    if (t->kind == WEIR_SQL_TYPE_ARRAY)
        rc = weir_type_array(parts[0], nullable, out);
    else if (t->kind == WEIR_SQL_TYPE_MAP)
        rc = weir_type_map(parts[0], parts[1], nullable, out);
    else if (t->kind == WEIR_SQL_TYPE_MULTISET)
        rc = weir_type_multiset(parts[0], nullable, out);
    else
        rc = weir_type_row(parts, names, n, nullable, out);
    if (rc == WEIR_ENOMEM)
        return rc;
    if (rc)
        return plan_error(pc, t->loc, WEIR_EUNSUPPORTED, "too many distinct ARRAY, MAP and ROW types in one process");
    return 0;
}

int plan_type_from_sql(plan_ctx *pc, const weir_sql_type *t, weir_type *out)
{
    bool nullable = !t->not_null;
    switch (t->kind) {
    case WEIR_SQL_TYPE_BOOLEAN: *out = weir_type_make(WEIR_TYPE_BOOLEAN, nullable); return 0;
    case WEIR_SQL_TYPE_TINYINT:
    case WEIR_SQL_TYPE_SMALLINT:
    case WEIR_SQL_TYPE_INT: *out = weir_type_make(WEIR_TYPE_INT, nullable); return 0;
    case WEIR_SQL_TYPE_BIGINT: *out = weir_type_make(WEIR_TYPE_BIGINT, nullable); return 0;
    case WEIR_SQL_TYPE_FLOAT:
    case WEIR_SQL_TYPE_DOUBLE: *out = weir_type_make(WEIR_TYPE_DOUBLE, nullable); return 0;
    case WEIR_SQL_TYPE_DECIMAL: {
        int p = t->precision < 0 ? 10 : t->precision, s = t->scale < 0 ? 0 : t->scale;
        if (p < 1)
            return plan_error(pc, t->loc, WEIR_EINVAL, "DECIMAL(%d, %d): the precision must be at least 1", p, s);
        if (s > p)
            return plan_error(pc, t->loc, WEIR_EINVAL,
                              "DECIMAL(%d, %d): the scale (%d) exceeds the precision (%d); the scale counts the "
                              "digits after the point, out of the precision's digits in all",
                              p, s, s, p);
        if (p > 38)
            return plan_error(pc, t->loc, WEIR_EUNSUPPORTED,
                              "DECIMAL(%d, %d) is not supported: DECIMAL has a precision of at most 38", p, s);
        *out = weir_type_decimal((uint8_t)p, (uint8_t)s, nullable);
        return 0;
    }
    case WEIR_SQL_TYPE_CHAR:
    case WEIR_SQL_TYPE_VARCHAR:
    case WEIR_SQL_TYPE_STRING: *out = weir_type_make(WEIR_TYPE_STRING, nullable); return 0;
    case WEIR_SQL_TYPE_BINARY:
    case WEIR_SQL_TYPE_VARBINARY:
    case WEIR_SQL_TYPE_BYTES: *out = weir_type_make(WEIR_TYPE_BYTES, nullable); return 0;
    case WEIR_SQL_TYPE_TIMESTAMP:
    case WEIR_SQL_TYPE_TIMESTAMP_LTZ: {
        bool ltz = t->kind == WEIR_SQL_TYPE_TIMESTAMP_LTZ;
        if (t->precision > 9)
            return plan_error(pc, t->loc, WEIR_EINVAL,
                              "%s(%d): %s precision must be between 0 and 9 (both inclusive), as in Flink "
                              "(fractional digits of a second; weir keeps milliseconds)",
                              ltz ? "TIMESTAMP_LTZ" : "TIMESTAMP", t->precision,
                              ltz ? "Timestamp with local time zone" : "Timestamp");
        *out = weir_type_make(ltz ? WEIR_TYPE_TIMESTAMP_LTZ : WEIR_TYPE_TIMESTAMP, nullable);
        return 0;
    }
    case WEIR_SQL_TYPE_DATE: *out = weir_type_make(WEIR_TYPE_DATE, nullable); return 0;
    case WEIR_SQL_TYPE_TIME:
        if (t->precision > 9)
            return plan_error(pc, t->loc, WEIR_EINVAL,
                              "TIME(%d): Time precision must be between 0 and 9 (both inclusive), as in Flink "
                              "(fractional digits of a second; weir keeps milliseconds)",
                              t->precision);
        *out = weir_type_make(WEIR_TYPE_TIME, nullable);
        /* Flink's TIME defaults to TIME(0); digits below a millisecond are not kept */
        out->precision = t->precision < 0 ? 0 : t->precision > 3 ? 3 : (uint8_t)t->precision;
        return 0;
    case WEIR_SQL_TYPE_ARRAY:
    case WEIR_SQL_TYPE_MAP:
    case WEIR_SQL_TYPE_MULTISET:
    case WEIR_SQL_TYPE_ROW:
        return plan_nested_type_from_sql(pc, t, out);
    case WEIR_SQL_TYPE_INTERVAL:
        /* a BIGINT with the kind in its precision (weir/schema.h) */
        *out = weir_type_make(WEIR_TYPE_BIGINT, nullable);
        out->precision = (uint8_t)t->precision;
        return 0;
    default:
        return plan_error(pc, t->loc, WEIR_EUNSUPPORTED, "type %s is not supported by weir yet",
                          weir__sql_type_kind_name(t->kind));
    }
}

/* Delay of `col` or `col - INTERVAL ...`. */
static int watermark_delay(plan_ctx *pc, const weir_sql_create_table *ct, const weir_sql_watermark *wm,
                           int64_t *delay)
{
    const weir_sql_expr *e = wm->expr;
    const char *col = wm->column.parts[wm->column.n_parts - 1].name;
    if (e->kind == WEIR_SQL_EXPR_CALL && name_is(&e->u.call.name, "SOURCE_WATERMARK")) {
        /* Flink's watermark of a connector that makes its own: none of weir's does */
        const char *connector = "(none)";
        for (uint32_t i = 0; i < ct->n_options; i++)
            if (!strcmp(ct->options[i].key, "connector"))
                connector = ct->options[i].value;
        return plan_error(pc, e->loc, WEIR_EUNSUPPORTED,
                          "SOURCE_WATERMARK() is not supported: connector '%s' makes no watermark of its own in "
                          "weir; write `WATERMARK FOR %s AS %s - INTERVAL '...' unit`",
                          connector, col, col);
    }
    if (e->kind == WEIR_SQL_EXPR_COLUMN && name_is(&e->u.column, col)) {
        *delay = 0;
        return 0;
    }
    if (e->kind == WEIR_SQL_EXPR_BINARY && e->u.binary.op == WEIR_SQL_OP_SUB &&
        e->u.binary.left->kind == WEIR_SQL_EXPR_COLUMN && name_is(&e->u.binary.left->u.column, col)) {
        int rc = plan_const_interval_ms(pc, e->u.binary.right, delay);
        if (rc)
            return rc;
        if (*delay < 0)
            return plan_error(pc, e->loc, WEIR_EUNSUPPORTED, "a watermark delay must not be negative");
        return 0;
    }
    return plan_error(pc, e->loc, WEIR_EUNSUPPORTED,
                      "unsupported watermark expression: weir supports `WATERMARK FOR %s AS %s` (ascending) and "
                      "`WATERMARK FOR %s AS %s - INTERVAL '...' unit` (bounded out-of-orderness)",
                      col, col, col, col);
}

int plan_check_space(plan_ctx *pc, const weir_sql_name *n, cat_path *path)
{
    int rc = plan_qualify(pc, n, path);
    if (rc)
        return rc;
    cat_catalog *c = plan_find_catalog(pc, path->catalog);
    cat_database *d = c ? plan_find_database(c, path->database) : NULL;
    if (!d)
        return plan_missing(pc, n, "table", false); /* says which part is missing */
    path->catalog = c->name;
    path->database = d->name;
    return 0;
}

bool plan_exists_at(plan_ctx *pc, const cat_path *path, bool temporary)
{
    return plan_table_at(pc, path, temporary) || plan_view_at(pc, path, temporary);
}

/* "table or view 'x' already exists" with its database when that is not the current one. */
int plan_exists_error(plan_ctx *pc, weir_sql_loc loc, const cat_path *path, bool temporary)
{
    bool here = !strcasecmp(path->catalog, pc->cur_catalog) && !strcasecmp(path->database, pc->cur_database);
    return plan_error(pc, loc, WEIR_EEXIST, "%s '%s' already exists%s%s%s%s%s",
                      temporary ? "temporary table or view" : "table or view", path->name, here ? "" : " in '",
                      here ? "" : path->catalog, here ? "" : ".", here ? "" : path->database, here ? "" : "'");
}

/* A PRIMARY KEY names physical columns of the table, each once (as Flink). */
static int check_primary_key(plan_ctx *pc, const weir_sql_create_table *ct, const char *table)
{
    const weir_sql_primary_key *pk = ct->primary_key;
    for (uint32_t i = 0; pk && i < pk->n_columns; i++) {
        const weir_sql_ident *k = &pk->columns[i];
        for (uint32_t j = 0; j < i; j++)
            if (!strcasecmp(pk->columns[j].name, k->name))
                return plan_error(pc, k->loc, WEIR_EEXIST, "PRIMARY KEY names column '%s' twice", k->name);
        const weir_sql_column *c = NULL;
        for (uint32_t j = 0; j < ct->n_columns && !c; j++)
            if (!strcasecmp(ct->columns[j].name.name, k->name))
                c = &ct->columns[j];
        if (!c)
            return plan_error(pc, k->loc, WEIR_ENOTFOUND, "PRIMARY KEY column '%s' is not a column of table '%s'",
                              k->name, table);
        if (c->kind != WEIR_SQL_COLUMN_PHYSICAL)
            return plan_error(pc, k->loc, WEIR_EPLAN,
                              "PRIMARY KEY column '%s' of table '%s' is a %s column; a primary key is declared on "
                              "physical columns",
                              k->name, table, c->kind == WEIR_SQL_COLUMN_COMPUTED ? "computed" : "METADATA");
    }
    return 0;
}

int plan_create_table(plan_ctx *pc, const weir_sql_create_table *ct, weir_sql_loc loc)
{
    if (ct->as_query)
        return plan_ctas(pc, ct, loc); /* ddl.c */
    cat_path path = {0};
    int rc = plan_check_space(pc, &ct->name, &path);
    if (rc)
        return rc;
    if (plan_exists_at(pc, &path, ct->temporary)) {
        if (ct->if_not_exists)
            return 0;
        return plan_exists_error(pc, ct->name.loc, &path, ct->temporary);
    }
    if (ct->like)
        return plan_create_table_like(pc, ct, loc);
    return plan_create_table_at(pc, ct, &path, loc);
}

int plan_create_table_at(plan_ctx *pc, const weir_sql_create_table *ct, const cat_path *path, weir_sql_loc loc)
{
    (void)loc;
    const char *name = path->name;
    for (uint32_t i = 0; i < ct->n_partitioned_by; i++)
        for (uint32_t j = 0; j < i; j++)
            if (!strcasecmp(ct->partitioned_by[i].name, ct->partitioned_by[j].name))
                return plan_error(pc, ct->partitioned_by[i].loc, WEIR_EEXIST, "duplicate partition column '%s'",
                                  ct->partitioned_by[i].name);
    cat_table *nt = weir_realloc(pc->tables, (pc->n_tables + 1) * sizeof *nt);
    if (!nt)
        return WEIR_ENOMEM;
    pc->tables = nt;
    cat_table *t = &pc->tables[pc->n_tables];
    memset(t, 0, sizeof *t);
    t->rowtime = -1;
    t->ddl = ct;
    t->name = plan_strdup(pc, name);
    t->catalog = plan_strdup(pc, path->catalog);
    t->database = plan_strdup(pc, path->database);
    t->physical = plan_new_schema(pc);
    t->full = plan_new_schema(pc);
    if (!t->name || !t->catalog || !t->database || !t->physical || !t->full)
        return WEIR_ENOMEM;
    if (!strcmp(t->catalog, PLAN_DEFAULT_CATALOG) && !strcmp(t->database, PLAN_DEFAULT_DATABASE)) {
        t->label = t->name; /* the name restore and reuse have always known it by */
    } else {
        size_t n = strlen(t->catalog) + strlen(t->database) + strlen(t->name) + 3;
        if (!(t->label = plan_alloc(pc, n)))
            return WEIR_ENOMEM;
        snprintf(t->label, n, "%s.%s.%s", t->catalog, t->database, t->name);
    }
    /* physical columns first, in order; computed columns after them in `full` */
    for (uint32_t i = 0; i < ct->n_columns; i++) {
        const weir_sql_column *c = &ct->columns[i];
        if (c->kind != WEIR_SQL_COLUMN_PHYSICAL && c->kind != WEIR_SQL_COLUMN_METADATA)
            continue;
        if (weir_schema_find(t->full, c->name.name) >= 0)
            return plan_error(pc, c->name.loc, WEIR_EEXIST, "duplicate column '%s'", c->name.name);
        weir_type ty;
        int rc = plan_type_from_sql(pc, c->type, &ty);
        if (rc)
            return rc;
        if (weir_schema_add(t->physical, c->name.name, ty) < 0 || weir_schema_add(t->full, c->name.name, ty) < 0)
            return WEIR_ENOMEM;
        if (c->kind == WEIR_SQL_COLUMN_METADATA) {
            /* The source fills it; which keys exist is the connector's to say. */
            if (!t->meta && !(t->meta = plan_alloc(pc, (ct->n_columns + 1) * sizeof *t->meta)))
                return WEIR_ENOMEM;
            t->meta[t->n_meta++] =
                (weir_option){c->name.name, c->metadata_key ? c->metadata_key : c->name.name};
        }
    }
    rel phys = {.schema = t->physical, .rowtime = -1, .n_physical = t->physical->n_fields};
    phys.quals = plan_alloc(pc, (t->physical->n_fields + 1) * sizeof(char *));
    if (!phys.quals)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < ct->n_columns; i++) {
        const weir_sql_column *c = &ct->columns[i];
        if (c->kind != WEIR_SQL_COLUMN_COMPUTED)
            continue;
        if (weir_schema_find(t->full, c->name.name) >= 0)
            return plan_error(pc, c->name.loc, WEIR_EEXIST, "duplicate column '%s'", c->name.name);
        weir_expr *e;
        int rc = plan_bind_expr(pc, &phys, NULL, c->expr, &e);
        if (rc)
            return rc;
        int at = weir_schema_add(t->full, c->name.name, weir_expr_type(e));
        if (at < 0)
            return WEIR_ENOMEM;
        if (plan_is_proctime_call(c->expr) && !t->has_proctime) {
            t->has_proctime = true;
            t->proctime = (uint32_t)at;
        }
    }
    if (ct->watermark) {
        const weir_sql_watermark *wm = ct->watermark;
        const char *col = wm->column.parts[wm->column.n_parts - 1].name;
        int idx = weir_schema_find(t->full, col);
        if (idx < 0)
            return plan_error(pc, wm->column.loc, WEIR_ENOTFOUND, "watermark column '%s' is not a column of '%s'",
                              col, name);
        if (!weir_type_is_time(t->full->fields[idx].type.id))
            return plan_error(pc, wm->column.loc, WEIR_EINVAL,
                              "watermark column '%s' must be TIMESTAMP(3) or TIMESTAMP_LTZ(3), not %s", col,
                              weir_type_name(t->full->fields[idx].type.id));
        if (t->has_proctime && (uint32_t)idx == t->proctime)
            return plan_error(pc, wm->column.loc, WEIR_EINVAL,
                              "column '%s' is a processing-time attribute (PROCTIME()); a watermark needs an "
                              "event-time column",
                              col);
        int rc = watermark_delay(pc, ct, wm, &t->watermark_delay_ms);
        if (rc)
            return rc;
        t->rowtime = idx;
        t->full->rowtime = idx;
    }
    int rc = check_primary_key(pc, ct, name);
    if (rc)
        return rc;
    t->n_opts = ct->n_options;
    t->opts = plan_alloc(pc, (ct->n_options + 1) * sizeof *t->opts);
    t->opt_src = plan_alloc(pc, (ct->n_options + 1) * sizeof *t->opt_src);
    if (!t->opts || !t->opt_src)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < ct->n_options; i++) {
        t->opts[i] = (weir_option){ct->options[i].key, ct->options[i].value};
        t->opt_src[i] = &ct->options[i];
    }
    pc->n_tables++;
    return 0;
}

int plan_create_view(plan_ctx *pc, const weir_sql_create_view *cv, weir_sql_loc loc)
{
    (void)loc;
    cat_path path = {0};
    int rc = plan_check_space(pc, &cv->name, &path);
    if (rc)
        return rc;
    /* Planned here, where it is written, as Flink validates a view's query at CREATE VIEW: an unknown
     * table or column, a type error or a wrong number of column names is an error at its place in
     * the view's text, before the view exists (so that its query cannot name the view itself). */
    cat_view check = {.name = (char *)path.name,
                      .query = cv->query,
                      .columns = cv->columns,
                      .n_columns = cv->n_columns,
                      .temporary = cv->temporary,
                      .comment = cv->comment,
                      .catalog = path.catalog,
                      .database = path.database,
                      .home_catalog = pc->cur_catalog,
                      .home_database = pc->cur_database};
    if ((rc = plan_check_view(pc, &check)))
        return rc;
    if (plan_exists_at(pc, &path, cv->temporary)) {
        if (cv->if_not_exists)
            return 0;
        return plan_exists_error(pc, cv->name.loc, &path, cv->temporary);
    }
    cat_view *nv = weir_realloc(pc->views, (pc->n_views + 1) * sizeof *nv);
    if (!nv)
        return WEIR_ENOMEM;
    pc->views = nv;
    /* the view checked above, with its own name and the names its query resolved */
    check.name = plan_strdup(pc, path.name);
    check.res_names = pc->rec_names;
    check.res_paths = pc->rec_paths;
    check.res_cols = pc->rec_cols;
    check.n_res = pc->n_rec;
    check.schema = pc->rec_schema;
    pc->views[pc->n_views] = check;
    if (!pc->views[pc->n_views].name)
        return WEIR_ENOMEM;
    pc->n_views++;
    return 0;
}
