/*
 * connector/postgres/lookup.c - a 'connector' = 'jdbc' table as a lookup
 * join's dimension table, queried by key: one prepared statement per
 * operator subtask,
 *
 *   SELECT c1, c2, ... FROM t WHERE (k1, k2) IN
 *       (SELECT * FROM unnest($1::type1[], $2::type2[]))
 *
 * run once per input batch with the keys its cache lacks, as arrays (one
 * round trip for the batch, never one per row). The cache itself is the
 * lookup join operator's; this file reads its options ('lookup.cache',
 * 'lookup.partial-cache.*', the older 'lookup.cache.max-rows' and
 * 'lookup.cache.ttl', 'lookup.max-retries').
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "connector/postgres/cdc_internal.h"
#include "format/convert.h"
#include "time/timefmt.h"
#include "util/cnum.h"

typedef struct lk_arg {
    weir_option *opts; /* url, username, password: copied */
    size_t n_opts;
    char *select_sql;
    uint32_t n_keys;
    char **key_types; /* PostgreSQL array element type of each key */
    weir_schema *key_schema;
    const weir_schema *schema; /* borrowed */
    char *table;
} lk_arg;

typedef struct lk_inst {
    const lk_arg *a;
    PGconn *conn;
    bool prepared;
    weir_buf *params; /* one text array per key */
    const char **pv;
} lk_inst;

static void arg_free(void *p)
{
    lk_arg *a = p;
    if (!a)
        return;
    for (size_t i = 0; i < a->n_opts; i++) {
        weir_free((char *)a->opts[i].key);
        weir_free((char *)a->opts[i].value);
    }
    weir_free(a->opts);
    weir_free(a->select_sql);
    for (uint32_t i = 0; a->key_types && i < a->n_keys; i++)
        weir_free(a->key_types[i]);
    weir_free(a->key_types);
    weir_schema_destroy(a->key_schema);
    weir_free(a->table);
    weir_free(a);
}

static const char *pg_type(weir_type_id t)
{
    switch (t) {
    case WEIR_TYPE_BOOLEAN: return "boolean";
    case WEIR_TYPE_INT: return "integer";
    case WEIR_TYPE_BIGINT: return "bigint";
    case WEIR_TYPE_DOUBLE: return "float8";
    case WEIR_TYPE_DECIMAL: return "numeric";
    case WEIR_TYPE_STRING: return "text";
    case WEIR_TYPE_BYTES: return "bytea";
    case WEIR_TYPE_TIMESTAMP: return "timestamp";
    case WEIR_TYPE_TIMESTAMP_LTZ: return "timestamptz";
    case WEIR_TYPE_DATE: return "date";
    case WEIR_TYPE_TIME: return "time";
    default: return NULL;
    }
}

static int connect_inst(lk_inst *in, weir_error *err)
{
    const lk_arg *a = in->a;
    weir__optset o;
    int rc = weir__optset_init(&o, "jdbc", a->opts, a->n_opts, NULL, err);
    if (rc)
        return rc;
    rc = weir__pg_connect_options(&o, &in->conn);
    weir__optset_fini(&o);
    if (rc)
        return rc;
    /* the text forms weir__pg_text_to_col reads, whoever opened the session */
    PGresult *res = PQexec(in->conn, "SET TimeZone = 'UTC'; SET DateStyle = 'ISO'; "
                                     "SET extra_float_digits = 3");
    if (PQresultStatus(res) != PGRES_COMMAND_OK) {
        rc = weir_error_set(err, WEIR_EIO, "setting up the session for %s: %s",
                            a->table, PQresultErrorMessage(res));
        PQclear(res);
        return rc;
    }
    PQclear(res);
    res = PQprepare(in->conn, "weir_lookup", a->select_sql,
                              (int)a->n_keys, NULL);
    if (PQresultStatus(res) != PGRES_COMMAND_OK) {
        rc = weir_error_set(err, WEIR_EIO, "preparing the lookup of %s: %s",
                            a->table, PQresultErrorMessage(res));
        PQclear(res);
        return rc;
    }
    PQclear(res);
    in->prepared = true;
    return 0;
}

static int lk_open(void *arg, void **out, weir_error *err)
{
    lk_arg *a = arg;
    lk_inst *in = weir_calloc(1, sizeof *in);
    if (!in)
        return WEIR_ENOMEM;
    in->a = a;
    in->params = weir_calloc(a->n_keys, sizeof *in->params);
    in->pv = weir_calloc(a->n_keys, sizeof *in->pv);
    int rc = in->params && in->pv ? connect_inst(in, err) : WEIR_ENOMEM;
    if (rc) {
        if (in->conn)
            PQfinish(in->conn);
        weir_free(in->params);
        weir_free(in->pv);
        weir_free(in);
        return rc;
    }
    for (uint32_t i = 0; i < a->n_keys; i++)
        weir_buf_init(&in->params[i]);
    *out = in;
    return 0;
}

static void lk_close(void *p)
{
    lk_inst *in = p;
    if (!in)
        return;
    if (in->conn)
        PQfinish(in->conn);
    for (uint32_t i = 0; i < in->a->n_keys; i++)
        weir_buf_fini(&in->params[i]);
    weir_free(in->params);
    weir_free(in->pv);
    weir_free(in);
}

/* Appends one array element: a double-quoted string with " and \ escaped. */
static int put_elem(weir_buf *b, const char *s, size_t n)
{
    int rc = weir_buf_put_u8(b, '"');
    for (size_t i = 0; i < n && !rc; i++) {
        if (s[i] == '"' || s[i] == '\\')
            rc = weir_buf_put_u8(b, '\\');
        if (!rc)
            rc = weir_buf_put_u8(b, (uint8_t)s[i]);
    }
    return rc ? rc : weir_buf_put_u8(b, '"');
}

/* The text of key value (col, row) as PostgreSQL reads it. */
static int put_value(weir_buf *b, const weir_batch *k, uint32_t col,
                     uint32_t row)
{
    char t[64];
    size_t n;
    switch (k->cols[col].type.id) {
    case WEIR_TYPE_BOOLEAN:
        return put_elem(b, WEIR_COL_BOOL(k, col)[row] ? "t" : "f", 1);
    case WEIR_TYPE_INT:
        n = (size_t)snprintf(t, sizeof t, "%d", WEIR_COL_I32(k, col)[row]);
        return put_elem(b, t, n);
    case WEIR_TYPE_DOUBLE:
        n = (size_t)weir__format_g17_c(t, sizeof t, WEIR_COL_F64(k, col)[row]);
        return put_elem(b, t, n);
    case WEIR_TYPE_DECIMAL:
        n = weir__fmt_format_decimal_at(k->cols[col].data, row,
                                        k->cols[col].type, t);
        return put_elem(b, t, n);
    case WEIR_TYPE_STRING: {
        uint32_t len;
        const char *s = weir_batch_str(k, col, row, &len);
        return put_elem(b, s, len);
    }
    case WEIR_TYPE_BYTES: {
        uint32_t len;
        const uint8_t *s = (const uint8_t *)weir_batch_str(k, col, row, &len);
        int rc = weir_buf_put(b, "\"\\\\x", 4);
        for (uint32_t i = 0; i < len && !rc; i++)
            rc = weir_buf_printf(b, "%02x", s[i]);
        return rc ? rc : weir_buf_put_u8(b, '"');
    }
    case WEIR_TYPE_TIMESTAMP:
    case WEIR_TYPE_TIMESTAMP_LTZ:
        n = weir__format_ts(WEIR_COL_I64(k, col)[row], t, sizeof t);
        if (k->cols[col].type.id == WEIR_TYPE_TIMESTAMP_LTZ)
            n += (size_t)snprintf(t + n, sizeof t - n, "+00");
        return put_elem(b, t, n);
    case WEIR_TYPE_DATE:
    case WEIR_TYPE_TIME:
        n = weir_batch_format_value(k, col, row, t, sizeof t);
        return put_elem(b, t, n);
    default:
        n = (size_t)snprintf(t, sizeof t, "%lld",
                             (long long)WEIR_COL_I64(k, col)[row]);
        return put_elem(b, t, n);
    }
}

static int lk_lookup(void *p, const weir_batch *keys, weir_batch *out,
                     weir_error *err)
{
    lk_inst *in = p;
    const lk_arg *a = in->a;
    if (!in->prepared || PQstatus(in->conn) != CONNECTION_OK) {
        /* the connection broke: a new one (the operator retries) */
        if (in->conn)
            PQfinish(in->conn);
        in->conn = NULL;
        in->prepared = false;
        int rc = connect_inst(in, err);
        if (rc)
            return rc;
    }
    for (uint32_t i = 0; i < a->n_keys; i++) {
        weir_buf *b = &in->params[i];
        weir_buf_clear(b);
        int rc = weir_buf_put_u8(b, '{');
        for (uint32_t r = 0; r < keys->n_rows && !rc; r++) {
            if (r)
                rc = weir_buf_put_u8(b, ',');
            if (!rc)
                rc = put_value(b, keys, i, r);
        }
        if (!rc)
            rc = weir_buf_put(b, "}", 2); /* with the NUL */
        if (rc)
            return WEIR_ENOMEM;
        in->pv[i] = (const char *)b->data;
    }
    PGresult *res = PQexecPrepared(in->conn, "weir_lookup", (int)a->n_keys,
                                   in->pv, NULL, NULL, 0);
    if (PQresultStatus(res) != PGRES_TUPLES_OK) {
        int rc = weir_error_set(err, WEIR_EIO, "looking up keys in %s: %s",
                                a->table, PQresultErrorMessage(res));
        PQclear(res);
        if (PQstatus(in->conn) != CONNECTION_OK)
            in->prepared = false;
        return rc;
    }
    int n = PQntuples(res);
    int rc = 0;
    for (int r = 0; r < n && !rc; r++) {
        int row = weir_batch_append_row(out);
        if (row < 0) {
            rc = weir_error_set(err, WEIR_EUNSUPPORTED,
                                "looking up keys in %s: more than %u rows "
                                "for one batch of keys",
                                a->table, out->capacity);
            break;
        }
        for (uint32_t c = 0; c < a->schema->n_fields && !rc; c++) {
            if (PQgetisnull(res, r, (int)c)) {
                weir_batch_set_null(out, c, (uint32_t)row);
                continue;
            }
            const char *v = PQgetvalue(res, r, (int)c);
            size_t len = (size_t)PQgetlength(res, r, (int)c);
            if (weir__pg_text_to_col(out, c, (uint32_t)row, v, len)) {
                char d[96];
                weir__fmt_describe_text(v, len, d, sizeof d);
                rc = weir_error_set(err, WEIR_EPARSE,
                                    "table %s, column %s: cannot read %s as "
                                    "%s",
                                    a->table, a->schema->fields[c].name, d,
                                    weir_type_name(a->schema->fields[c].type.id));
            }
        }
    }
    PQclear(res);
    return rc;
}

/* "schema.table" or "table", each part quoted. */
static int put_table(weir_buf *b, const char *name)
{
    int rc = weir_buf_put_u8(b, '"');
    for (const char *p = name; *p && !rc; p++) {
        if (*p == '.')
            rc = weir_buf_put(b, "\".\"", 3);
        else if (*p == '"')
            rc = weir_buf_put(b, "\"\"", 2);
        else
            rc = weir_buf_put_u8(b, (uint8_t)*p);
    }
    return rc ? rc : weir_buf_put_u8(b, '"');
}

static int put_ident(weir_buf *b, const char *name)
{
    int rc = weir_buf_put_u8(b, '"');
    for (const char *p = name; *p && !rc; p++)
        rc = *p == '"' ? weir_buf_put(b, "\"\"", 2)
                       : weir_buf_put_u8(b, (uint8_t)*p);
    return rc ? rc : weir_buf_put_u8(b, '"');
}

int weir__pg_lookup_spec(const weir_option *opts, size_t n_opts,
                         const weir_schema *schema, const uint32_t *key_cols,
                         uint32_t n_keys, const weir_connector_env *env,
                         weir_lookup_source *out, weir_error *err)
{
    static const char *const known[] = {
        "url", "table-name", "username", "password", "driver",
        "lookup.cache", "lookup.partial-cache.max-rows",
        "lookup.partial-cache.expire-after-write",
        "lookup.partial-cache.expire-after-access",
        "lookup.partial-cache.cache-missing-key", "lookup.max-retries",
        "lookup.cache.max-rows", "lookup.cache.ttl",
        "lookup.cache.caching-missing-key", NULL};
    /* the table's options as a sink or scan source: not this side's */
    static const char *const other_side[] = {
        "sink.buffer-flush.max-rows", "sink.buffer-flush.interval",
        "sink.max-retries", "sink.parallelism", "sink.semantic",
        "scan.fetch-size", "scan.auto-commit", "connection.max-retry-timeout",
        NULL};
    weir__optset o;
    int rc = weir__optset_init(&o, "jdbc", opts, n_opts, env, err);
    if (rc)
        return rc;
    weir__opt_accept(&o, other_side);
    lk_arg *a = weir_calloc(1, sizeof *a);
    weir_buf sql;
    weir_buf_init(&sql);
    weir_lookup_source l = {0};
    if (!a) {
        rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
        goto fail;
    }
    a->schema = schema;
    a->n_keys = n_keys;
    const char *url = weir__opt_get(&o, "url");
    const char *table = weir__opt_get(&o, "table-name");
    if (!url) {
        rc = weir__opt_missing(&o, "url", "(jdbc:postgresql://host:port/database)");
        goto fail;
    }
    if (!table) {
        rc = weir__opt_missing(&o, "table-name", NULL);
        goto fail;
    }
    if (strncmp(url, "jdbc:postgresql://", 18) != 0) {
        rc = weir__opt_fail(&o, (size_t)weir__opt_index(&o, "url"),
                            WEIR_EUNSUPPORTED,
                            "option 'url': weir's jdbc connector speaks to "
                            "PostgreSQL only (jdbc:postgresql://...), not "
                            "'%s'",
                            url);
        goto fail;
    }
    /* the connection options, kept for each subtask's connection */
    static const char *const conn_keys[] = {"url", "username", "password"};
    a->opts = weir_calloc(3, sizeof *a->opts);
    if (!a->opts || !(a->table = weir_strdup(table))) {
        rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
        goto fail;
    }
    for (int i = 0; i < 3; i++) {
        const char *v = weir__opt_get(&o, conn_keys[i]);
        if (!v)
            continue;
        a->opts[a->n_opts].key = weir_strdup(conn_keys[i]);
        a->opts[a->n_opts].value = weir_strdup(v);
        if (!a->opts[a->n_opts].key || !a->opts[a->n_opts].value) {
            a->n_opts++;
            rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
            goto fail;
        }
        a->n_opts++;
    }
    weir__opt_get(&o, "driver");
    /* the cache */
    int64_t max_rows = 0, ttl = 0;
    if ((rc = weir__opt_i64(&o, "lookup.cache.max-rows", &max_rows)) ||
        (rc = weir__opt_duration(&o, "lookup.cache.ttl", &ttl)))
        goto fail;
    /* the older options turn the cache on when both are set, as in Flink */
    l.cache = max_rows > 0 && ttl > 0;
    l.cache_max_rows = max_rows;
    l.expire_after_write_ms = ttl;
    l.cache_missing_key = true;
    l.max_retries = 3;
    if ((rc = weir__opt_bool(&o, "lookup.cache.caching-missing-key",
                             &l.cache_missing_key)))
        goto fail;
    /* Flink's LookupCacheType, matched in any case; FULL is Flink's too */
    static const char *const modes[] = {"NONE", "PARTIAL", NULL};
    const char *mode = weir__opt_get(&o, "lookup.cache");
    if (mode && !strcasecmp(mode, "FULL")) {
        rc = weir__opt_fail(&o, (size_t)weir__opt_index(&o, "lookup.cache"), WEIR_EINVAL,
                            "option 'lookup.cache': expected 'NONE' or 'PARTIAL' (weir has no FULL cache for "
                            "jdbc; a table read whole is a 'filesystem' lookup table), found '%s'",
                            mode);
        goto fail;
    }
    int cache = -1;
    if ((rc = weir__opt_choice(&o, "lookup.cache", modes, WEIR__CHOICE_ANY_CASE, &cache)))
        goto fail;
    if (cache == 0)
        l.cache = false;
    else if (cache == 1)
        l.cache = true;
    if ((rc = weir__opt_i64(&o, "lookup.partial-cache.max-rows",
                            &l.cache_max_rows)) ||
        (rc = weir__opt_duration(&o, "lookup.partial-cache.expire-after-write",
                                 &l.expire_after_write_ms)) ||
        (rc = weir__opt_duration(&o, "lookup.partial-cache.expire-after-access",
                                 &l.expire_after_access_ms)) ||
        (rc = weir__opt_bool(&o, "lookup.partial-cache.cache-missing-key",
                             &l.cache_missing_key)) ||
        (rc = weir__opt_i64(&o, "lookup.max-retries", &l.max_retries)))
        goto fail;
    if (l.cache_max_rows < 0 || l.max_retries < 0) {
        rc = weir_error_set(err, WEIR_EINVAL,
                            "jdbc: 'lookup.partial-cache.max-rows' and "
                            "'lookup.max-retries' cannot be negative");
        goto fail;
    }
    if ((rc = weir__opt_finish(&o, known)))
        goto fail;
    /* the statement */
    a->key_schema = weir_schema_create();
    a->key_types = weir_calloc(n_keys ? n_keys : 1, sizeof *a->key_types);
    if (!a->key_schema || !a->key_types) {
        rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
        goto fail;
    }
    rc = weir_buf_put(&sql, "SELECT ", 7);
    for (uint32_t i = 0; i < schema->n_fields && !rc; i++) {
        if (i)
            rc = weir_buf_put(&sql, ", ", 2);
        if (!rc)
            rc = put_ident(&sql, schema->fields[i].name);
    }
    if (!rc)
        rc = weir_buf_put(&sql, " FROM ", 6);
    if (!rc)
        rc = put_table(&sql, table);
    if (!rc)
        rc = weir_buf_put(&sql, " WHERE (", 8);
    for (uint32_t i = 0; i < n_keys && !rc; i++) {
        const weir_field *f = &schema->fields[key_cols[i]];
        const char *t = pg_type(f->type.id);
        if (!t) {
            rc = weir_error_set(err, WEIR_EUNSUPPORTED,
                                "jdbc: cannot look up key column %s of type %s",
                                f->name, weir_type_name(f->type.id));
            goto fail;
        }
        if (i)
            rc = weir_buf_put(&sql, ", ", 2);
        if (!rc)
            rc = put_ident(&sql, f->name);
        if (!rc && weir_schema_add(a->key_schema, f->name, f->type) < 0)
            rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
    }
    if (!rc)
        rc = weir_buf_put(&sql, ") IN (SELECT * FROM unnest(", 27);
    for (uint32_t i = 0; i < n_keys && !rc; i++)
        rc = weir_buf_printf(&sql, "%s$%u::%s[]", i ? ", " : "", i + 1,
                             pg_type(schema->fields[key_cols[i]].type.id));
    if (!rc)
        rc = weir_buf_put(&sql, "))", 3); /* with the NUL */
    if (rc || !(a->select_sql = weir_strdup((const char *)sql.data))) {
        rc = rc ? rc : weir_error_set(err, WEIR_ENOMEM, "out of memory");
        goto fail;
    }
    weir_buf_fini(&sql);
    weir__optset_fini(&o);
    l.open = lk_open;
    l.lookup = lk_lookup;
    l.close = lk_close;
    l.arg = a;
    l.free_arg = arg_free;
    l.key_schema = a->key_schema;
    *out = l;
    return 0;
fail:
    weir_buf_fini(&sql);
    weir__optset_fini(&o);
    arg_free(a);
    return rc;
}
