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

cat_table *plan_find_table(plan_ctx *pc, const weir_sql_name *n)
{
    for (size_t i = 0; i < pc->n_tables; i++)
        if (name_is(n, pc->tables[i].name))
            return &pc->tables[i];
    return NULL;
}

cat_view *plan_find_view(plan_ctx *pc, const weir_sql_name *n)
{
    for (size_t i = 0; i < pc->n_views; i++)
        if (name_is(n, pc->views[i].name))
            return &pc->views[i];
    return NULL;
}

const char *plan_suggest_table(plan_ctx *pc, const char *name)
{
    const char *best = NULL;
    int best_d = 3;
    size_t nl = strlen(name);
    for (size_t i = 0; i < pc->n_tables + pc->n_views; i++) {
        const char *c = i < pc->n_tables ? pc->tables[i].name : pc->views[i - pc->n_tables].name;
        int d = weir__sql_edit_distance(name, nl, c, strlen(c), best_d);
        if (d < best_d) {
            best_d = d;
            best = c;
        }
    }
    return best;
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
                              "%s(%d): the precision of a timestamp must be from 0 to 9 (fractional digits of a "
                              "second; weir keeps milliseconds)",
                              ltz ? "TIMESTAMP_LTZ" : "TIMESTAMP", t->precision);
        *out = weir_type_make(ltz ? WEIR_TYPE_TIMESTAMP_LTZ : WEIR_TYPE_TIMESTAMP, nullable);
        return 0;
    }
    case WEIR_SQL_TYPE_DATE: *out = weir_type_make(WEIR_TYPE_DATE, nullable); return 0;
    case WEIR_SQL_TYPE_TIME:
        if (t->precision > 9)
            return plan_error(pc, t->loc, WEIR_EINVAL,
                              "TIME(%d): the precision of a time must be from 0 to 9 (fractional digits of a "
                              "second; weir keeps milliseconds)",
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
    const char *name = ct->name.parts[ct->name.n_parts - 1].name;
    if (ct->as_query)
        return plan_ctas(pc, ct, loc); /* ddl.c */
    if (plan_find_table(pc, &ct->name) || plan_find_view(pc, &ct->name)) {
        if (ct->if_not_exists)
            return 0;
        return plan_error(pc, ct->name.loc, WEIR_EEXIST, "table or view '%s' already exists", name);
    }
    if (ct->like)
        return plan_create_table_like(pc, ct, loc);
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
    t->physical = plan_new_schema(pc);
    t->full = plan_new_schema(pc);
    if (!t->name || !t->physical || !t->full)
        return WEIR_ENOMEM;
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
    const char *name = cv->name.parts[cv->name.n_parts - 1].name;
    if (plan_find_table(pc, &cv->name) || plan_find_view(pc, &cv->name)) {
        if (cv->if_not_exists)
            return 0;
        return plan_error(pc, cv->name.loc, WEIR_EEXIST, "table or view '%s' already exists", name);
    }
    cat_view *nv = weir_realloc(pc->views, (pc->n_views + 1) * sizeof *nv);
    if (!nv)
        return WEIR_ENOMEM;
    pc->views = nv;
    pc->views[pc->n_views] = (cat_view){plan_strdup(pc, name), cv->query, cv->columns, cv->n_columns, cv->temporary};
    if (!pc->views[pc->n_views].name)
        return WEIR_ENOMEM;
    pc->n_views++;
    return 0;
}
