/*
 * connector/postgres/cdc_source.c - 'connector' = 'postgres-cdc': one
 * PostgreSQL table as a changelog (+I/-U/+U/-D), a consistent snapshot
 * followed by the logical replication stream of a slot (pgoutput).
 *
 * Parts: options; table metadata; key bounds; text values; the snapshot;
 * the stream (pgoutput decoding in cdc_decode.c's style, inline here);
 * positions and checkpoints; the source class.
 *
 * Invariants:
 * - The slot's confirmed position (standby status "flush") only ever moves
 *   to the position of a checkpoint that completed: the server keeps every
 *   change a restart from the latest completed checkpoint needs.
 * - Snapshot and stream neither lose nor duplicate a change. A snapshot
 *   reads the table in primary key order from a snapshot exported by a
 *   replication slot, whose consistent point L says exactly which
 *   transactions it holds: those whose commit record starts before L
 *   (the stream's BEGIN carries that position, final_lsn). A snapshot
 *   interrupted by a restart cannot be resumed (its exported snapshot died
 *   with the connection), so a new one is exported (from a temporary slot,
 *   at L') and read from just past the last key emitted. The position keeps
 *   the list of segments (L_j, B_j): keys in (B_j, B_j+1] were read at L_j.
 *   A row image of the stream with key k in segment j is emitted only for
 *   a transaction with final_lsn >= L_j; before that, the snapshot that
 *   covered k already holds it.
 * - Within the stream, the position is the last transaction emitted whole
 *   (final_lsn, end_lsn) plus the number of changes already emitted from
 *   the next one: a checkpoint between two rows of one transaction resumes
 *   in the middle of it. An update's -U/+U pair is never split.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "connector/postgres/cdc_internal.h"
#include "format/convert.h"
#include "time/timefmt.h"
#include "util/hex.h"

#define POS_VERSION 1
enum { PHASE_SNAPSHOT = 0, PHASE_STREAM = 1 };

/* ---- options ---- */

typedef struct cdc_conf {
    char *conninfo;
    char *schema_name, *table_name, *slot, *publication;
    bool latest;            /* scan.startup.mode = latest-offset */
    int64_t fetch_size;     /* rows per FETCH of the snapshot cursor */
    int64_t status_ms;      /* standby status update interval */
    weir_clock clock;
    const weir_schema *schema; /* borrowed */
} cdc_conf;

static void conf_free(void *arg)
{
    cdc_conf *c = arg;
    if (!c)
        return;
    weir_free(c->conninfo);
    weir_free(c->schema_name);
    weir_free(c->table_name);
    weir_free(c->slot);
    weir_free(c->publication);
    weir_free(c);
}

/* Appends key='value' to a conninfo string, escaping ' and \. */
static int conninfo_put(weir_buf *b, const char *key, const char *v)
{
    int rc = weir_buf_printf(b, "%s%s='", b->len ? " " : "", key);
    for (; !rc && *v; v++)
        rc = (*v == '\'' || *v == '\\') ? weir_buf_printf(b, "\\%c", *v)
                                       : weir_buf_put_u8(b, (uint8_t)*v);
    return rc ? rc : weir_buf_put_u8(b, '\'');
}

static bool slot_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 50) /* room for the temporary slots' suffix */
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
              *s == '_'))
            return false;
    return true;
}

/* ---- table metadata ---- */

typedef enum key_kind { KEY_INT, KEY_TEXT } key_kind;

typedef struct cdc_meta {
    uint32_t n_key;
    char **key_names;    /* primary key columns, in key order */
    key_kind *key_kinds;
} cdc_meta;

static void meta_fini(cdc_meta *m)
{
    for (uint32_t i = 0; i < m->n_key; i++)
        weir_free(m->key_names[i]);
    weir_free(m->key_names);
    weir_free(m->key_kinds);
    memset(m, 0, sizeof *m);
}

/* A key: the text of each key column (NULL-free: primary keys). */
typedef struct cdc_key {
    bool set;          /* false: minus infinity */
    char **vals;       /* n_key values, owned */
    size_t *lens;
} cdc_key;

typedef struct cdc_seg {
    uint64_t lsn;  /* L_j: the snapshot's consistent point */
    cdc_key lower; /* B_j, exclusive */
} cdc_seg;

/* ---- the source and its reader ---- */

typedef struct cdc_pending {
    uint64_t ckpt_id;
    uint64_t confirm_lsn; /* 0: nothing to confirm */
} cdc_pending;

struct cdc_reader;

typedef struct cdc_src {
    const cdc_conf *conf;
    bool owner; /* subtask 0 reads the table */
    bool discovered;
    const char *ids[1];
    struct cdc_reader *reader;
    cdc_pending *pending;
    uint32_t n_pending, cap_pending;
} cdc_src;

typedef struct cdc_reader {
    cdc_src *src;
    const cdc_conf *conf;
    const weir_schema *schema;
    cdc_meta meta;
    PGconn *repl; /* replication connection of the slot */
    PGconn *snap; /* the snapshot's transaction; NULL once read */
    int phase;
    cdc_seg *segs;
    uint32_t n_segs;
    cdc_key last; /* the last key the current snapshot emitted */
    PGresult *res;
    int res_row;
    /* stream */
    bool streaming;
    uint64_t last_final, last_end; /* the last transaction emitted whole */
    uint64_t resume_final;         /* restored: a transaction begun ... */
    uint32_t resume_done;          /* ... and how many changes of it went */
    bool in_txn, skip_txn;
    uint64_t cur_final;
    uint32_t cur_seen; /* changes of the current transaction consumed */
    uint32_t skip_n;
    uint64_t received, confirmed;
    int64_t last_status_ms;
    char *msg; /* a change that did not fit the batch (PQfreemem) */
    int msg_len;
    /* the relation, from pgoutput's 'R' message */
    uint32_t relid;
    bool have_rel;
    uint32_t n_rel;
    int32_t *rel_col; /* weir column of each relation column, or -1 */
    int32_t *rel_key; /* key index of each relation column, or -1 */
    /* scratch for one tuple's text values */
    const char **tv;
    size_t *tl;
    char *tkind;
    const char **ov; /* the old image */
    size_t *ol;
    char *okind;
    const char **kv; /* key values in key order */
    size_t *kl;
} cdc_reader;

static void key_free(cdc_key *k, uint32_t n)
{
    if (k->vals)
        for (uint32_t i = 0; i < n; i++)
            weir_free(k->vals[i]);
    weir_free(k->vals);
    weir_free(k->lens);
    memset(k, 0, sizeof *k);
}

static int key_set(cdc_key *k, uint32_t n, const char *const *v,
                   const size_t *l)
{
    if (!k->vals) {
        k->vals = weir_calloc(n ? n : 1, sizeof *k->vals);
        k->lens = weir_calloc(n ? n : 1, sizeof *k->lens);
        if (!k->vals || !k->lens)
            return WEIR_ENOMEM;
    }
    for (uint32_t i = 0; i < n; i++) {
        char *c = weir_realloc(k->vals[i], l[i] + 1);
        if (!c)
            return WEIR_ENOMEM;
        memcpy(c, v[i], l[i]);
        c[l[i]] = 0;
        k->vals[i] = c;
        k->lens[i] = l[i];
    }
    k->set = true;
    return 0;
}

/* Compares key values a with key b (set), as PostgreSQL orders them:
 * integers by value, text by bytes (the snapshot orders by COLLATE "C"). */
static int key_cmp(const cdc_meta *m, const char *const *a, const size_t *al,
                   const cdc_key *b)
{
    for (uint32_t i = 0; i < m->n_key; i++) {
        int c;
        if (m->key_kinds[i] == KEY_INT) {
            int64_t x = 0, y = 0;
            weir__fmt_parse_i64(a[i], al[i], &x);
            weir__fmt_parse_i64(b->vals[i], b->lens[i], &y);
            c = x < y ? -1 : x > y;
        } else {
            size_t n = al[i] < b->lens[i] ? al[i] : b->lens[i];
            c = memcmp(a[i], b->vals[i], n);
            if (!c)
                c = al[i] < b->lens[i] ? -1 : al[i] > b->lens[i];
        }
        if (c)
            return c;
    }
    return 0;
}

/* Whether a row image with key values kv belongs in the output for a
 * transaction whose commit starts at final_lsn. */
static bool image_applies(const cdc_reader *r, const char *const *kv,
                          const size_t *kl, uint64_t final_lsn)
{
    for (uint32_t j = r->n_segs; j-- > 0;) {
        const cdc_seg *s = &r->segs[j];
        if (!s->lower.set || key_cmp(&r->meta, kv, kl, &s->lower) > 0)
            return final_lsn >= s->lsn;
    }
    return true;
}

/* ---- SQL helpers ---- */

static int sql_fail(weir_error *err, const char *what, PGconn *c,
                    PGresult *res)
{
    weir_error_set(err, WEIR_EIO, "postgres-cdc: %s: %s", what,
                   res ? PQresultErrorMessage(res) : PQerrorMessage(c));
    /* libpq messages end with a newline */
    size_t n = strlen(err->message);
    while (n && (err->message[n - 1] == '\n' || err->message[n - 1] == ' '))
        err->message[--n] = 0;
    if (res)
        PQclear(res);
    return WEIR_EIO;
}

static int exec_ok(PGconn *c, const char *sql, const char *what,
                   weir_error *err)
{
    PGresult *res = PQexec(c, sql);
    ExecStatusType st = PQresultStatus(res);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
        return sql_fail(err, what, c, res);
    PQclear(res);
    return 0;
}

static PGresult *query(PGconn *c, const char *sql, int n, const char *const *p,
                       const char *what, weir_error *err)
{
    PGresult *res = PQexecParams(c, sql, n, NULL, p, NULL, NULL, 0);
    if (PQresultStatus(res) != PGRES_TUPLES_OK &&
        PQresultStatus(res) != PGRES_COMMAND_OK) {
        sql_fail(err, what, c, res);
        return NULL;
    }
    return res;
}

/* Quoted identifier (transferred, PQfreemem), or NULL. */
static char *ident(PGconn *c, const char *s)
{
    return PQescapeIdentifier(c, s, strlen(s));
}

/* ---- text values ---- */

/* Stores PostgreSQL's text form of a value into (col, row). */
static int set_text(cdc_reader *r, weir_batch *b, uint32_t col, uint32_t row,
                    const char *p, size_t n, weir_error *err)
{
    const weir_field *f = &r->schema->fields[col];
    int rc = weir__pg_text_to_col(b, col, row, p, n);
    if (rc) {
        char d[96];
        weir__fmt_describe_text(p, n, d, sizeof d);
        return weir_error_set(err, WEIR_EPARSE,
                              "postgres-cdc: table %s.%s, column %s: cannot "
                              "read %s as %s",
                              r->conf->schema_name, r->conf->table_name,
                              f->name, d, weir_type_name(f->type.id));
    }
    return 0;
}

/* ---- metadata ---- */

static int load_meta(cdc_reader *r, PGconn *c, weir_error *err)
{
    const cdc_conf *cf = r->conf;
    const char *p[2] = {cf->schema_name, cf->table_name};
    PGresult *res = query(c,
                          "SELECT c.oid::text, c.relreplident::text FROM "
                          "pg_class c JOIN pg_namespace n ON n.oid = "
                          "c.relnamespace WHERE n.nspname = $1 AND "
                          "c.relname = $2 AND c.relkind IN ('r', 'p')",
                          2, p, "reading the table's catalog entry", err);
    if (!res)
        return WEIR_EIO;
    if (PQntuples(res) != 1) {
        PQclear(res);
        return weir_error_set(err, WEIR_ENOTFOUND,
                              "postgres-cdc: table %s.%s does not exist in "
                              "database (options 'schema-name', "
                              "'table-name')",
                              cf->schema_name, cf->table_name);
    }
    char oid[32];
    snprintf(oid, sizeof oid, "%s", PQgetvalue(res, 0, 0));
    char ident_kind = PQgetvalue(res, 0, 1)[0];
    PQclear(res);
    if (ident_kind != 'f')
        return weir_error_set(
            err, WEIR_EUNSUPPORTED,
            "postgres-cdc: table %s.%s needs REPLICA IDENTITY FULL, so that "
            "updates and deletes carry the whole old row (-U/-D rows): run "
            "ALTER TABLE %s.%s REPLICA IDENTITY FULL",
            cf->schema_name, cf->table_name, cf->schema_name, cf->table_name);
    const char *po[1] = {oid};
    res = query(c,
                "SELECT a.attname, a.atttypid::regtype::text FROM "
                "pg_attribute a WHERE a.attrelid = $1::oid AND a.attnum > 0 "
                "AND NOT a.attisdropped",
                1, po, "reading the table's columns", err);
    if (!res)
        return WEIR_EIO;
    for (uint32_t i = 0; i < r->schema->n_fields; i++) {
        bool found = false;
        for (int t = 0; t < PQntuples(res) && !found; t++)
            found = strcmp(PQgetvalue(res, t, 0), r->schema->fields[i].name) ==
                    0;
        if (!found) {
            weir_error_set(err, WEIR_ENOTFOUND,
                           "postgres-cdc: table %s.%s has no column '%s'",
                           cf->schema_name, cf->table_name,
                           r->schema->fields[i].name);
            PQclear(res);
            return WEIR_ENOTFOUND;
        }
    }
    PQclear(res);
    res = query(c,
                "SELECT a.attname, a.atttypid::regtype::text FROM pg_index i "
                "JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum "
                "= ANY(i.indkey) WHERE i.indrelid = $1::oid AND "
                "i.indisprimary ORDER BY array_position(i.indkey::int2[], "
                "a.attnum)",
                1, po, "reading the table's primary key", err);
    if (!res)
        return WEIR_EIO;
    int n = PQntuples(res);
    if (n == 0) {
        PQclear(res);
        return weir_error_set(err, WEIR_EUNSUPPORTED,
                              "postgres-cdc: table %s.%s has no primary key "
                              "(the snapshot is read in key order)",
                              cf->schema_name, cf->table_name);
    }
    r->meta.n_key = (uint32_t)n;
    r->meta.key_names = weir_calloc((size_t)n, sizeof *r->meta.key_names);
    r->meta.key_kinds = weir_calloc((size_t)n, sizeof *r->meta.key_kinds);
    if (!r->meta.key_names || !r->meta.key_kinds) {
        PQclear(res);
        return WEIR_ENOMEM;
    }
    for (int i = 0; i < n; i++) {
        const char *ty = PQgetvalue(res, i, 1);
        r->meta.key_names[i] = weir_strdup(PQgetvalue(res, i, 0));
        if (!r->meta.key_names[i]) {
            PQclear(res);
            return WEIR_ENOMEM;
        }
        if (!strcmp(ty, "smallint") || !strcmp(ty, "integer") ||
            !strcmp(ty, "bigint")) {
            r->meta.key_kinds[i] = KEY_INT;
        } else if (!strcmp(ty, "text") || !strcmp(ty, "character varying")) {
            r->meta.key_kinds[i] = KEY_TEXT;
        } else {
            weir_error_set(err, WEIR_EUNSUPPORTED,
                           "postgres-cdc: table %s.%s: primary key column "
                           "'%s' has type %s; weir reads a snapshot in key "
                           "order and takes integer (smallint, integer, "
                           "bigint) and text (text, varchar) key columns",
                           cf->schema_name, cf->table_name,
                           r->meta.key_names[i], ty);
            PQclear(res);
            return WEIR_EUNSUPPORTED;
        }
    }
    PQclear(res);
    size_t nk = r->meta.n_key;
    r->kv = weir_calloc(nk, sizeof *r->kv);
    r->kl = weir_calloc(nk, sizeof *r->kl);
    return r->kv && r->kl ? 0 : WEIR_ENOMEM;
}

/* Creates the publication of the table when there is none by that name. */
static int ensure_publication(cdc_reader *r, PGconn *c, weir_error *err)
{
    const cdc_conf *cf = r->conf;
    const char *p[1] = {cf->publication};
    PGresult *res = query(c, "SELECT 1 FROM pg_publication WHERE pubname = $1",
                          1, p, "looking for the publication", err);
    if (!res)
        return WEIR_EIO;
    int have = PQntuples(res);
    PQclear(res);
    if (have)
        return 0;
    char *pub = ident(c, cf->publication), *sn = ident(c, cf->schema_name),
         *tn = ident(c, cf->table_name);
    int rc = WEIR_ENOMEM;
    weir_buf sql;
    weir_buf_init(&sql);
    if (pub && sn && tn &&
        !weir_buf_printf(&sql, "CREATE PUBLICATION %s FOR TABLE %s.%s%c", pub,
                         sn, tn, 0))
        rc = exec_ok(c, (const char *)sql.data, "creating the publication",
                     err);
    weir_buf_fini(&sql);
    PQfreemem(pub);
    PQfreemem(sn);
    PQfreemem(tn);
    return rc;
}

/* ---- slots ---- */

static int slot_exists(cdc_reader *r, PGconn *c, bool *out, weir_error *err)
{
    const char *p[1] = {r->conf->slot};
    PGresult *res =
        query(c, "SELECT 1 FROM pg_replication_slots WHERE slot_name = $1", 1,
              p, "looking for the replication slot", err);
    if (!res)
        return WEIR_EIO;
    *out = PQntuples(res) > 0;
    PQclear(res);
    return 0;
}

/*
 * CREATE_REPLICATION_SLOT on replication connection c; *lsn gets its
 * consistent point and snap (when not NULL, 64 bytes) the exported
 * snapshot's name.
 */
static int create_slot(PGconn *c, const char *name, bool temporary,
                       char *snap, uint64_t *lsn, weir_error *err)
{
    char sql[256];
    snprintf(sql, sizeof sql,
             "CREATE_REPLICATION_SLOT \"%s\" %sLOGICAL pgoutput %s", name,
             temporary ? "TEMPORARY " : "",
             snap ? "EXPORT_SNAPSHOT" : "NOEXPORT_SNAPSHOT");
    PGresult *res = PQexec(c, sql);
    if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1)
        return sql_fail(err, "creating the replication slot", c, res);
    int rc = weir__pg_parse_lsn(PQgetvalue(res, 0, 1), lsn);
    if (snap)
        snprintf(snap, 64, "%s", PQgetvalue(res, 0, 2));
    PQclear(res);
    return rc ? weir_error_set(err, WEIR_EPARSE,
                               "postgres-cdc: unexpected slot position")
              : 0;
}

/* ---- the snapshot ---- */

/* Opens the snapshot's transaction and its cursor over the keys after
 * r->last (all keys when unset). */
static int snapshot_open(cdc_reader *r, const char *snapshot_name,
                         weir_error *err)
{
    PGconn *c = r->snap;
    char sql[160];
    int rc = exec_ok(c,
                     "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
                     "starting the snapshot", err);
    if (rc)
        return rc;
    snprintf(sql, sizeof sql, "SET TRANSACTION SNAPSHOT '%s'", snapshot_name);
    if ((rc = exec_ok(c, sql, "importing the snapshot", err)))
        return rc;
    weir_buf q;
    weir_buf_init(&q);
    rc = weir_buf_printf(&q, "DECLARE weir_snapshot NO SCROLL CURSOR FOR "
                             "SELECT ");
    for (uint32_t i = 0; i < r->schema->n_fields && !rc; i++) {
        char *id = ident(c, r->schema->fields[i].name);
        rc = id ? weir_buf_printf(&q, "%s%s", i ? ", " : "", id) : WEIR_ENOMEM;
        PQfreemem(id);
    }
    for (uint32_t i = 0; i < r->meta.n_key && !rc; i++) {
        char *id = ident(c, r->meta.key_names[i]);
        rc = id ? weir_buf_printf(&q, ", %s", id) : WEIR_ENOMEM;
        PQfreemem(id);
    }
    char *sn = ident(c, r->conf->schema_name);
    char *tn = ident(c, r->conf->table_name);
    if (!rc)
        rc = sn && tn ? weir_buf_printf(&q, " FROM %s.%s", sn, tn)
                      : WEIR_ENOMEM;
    PQfreemem(sn);
    PQfreemem(tn);
    if (!rc && r->last.set) {
        /* (k1, k2, ...) > (v1, v2, ...), spelled out so that text keys
         * compare under COLLATE "C" as key_cmp does */
        rc = weir_buf_printf(&q, " WHERE ");
        for (uint32_t i = 0; i < r->meta.n_key && !rc; i++) {
            rc = weir_buf_printf(&q, "%s(", i ? " OR " : "");
            for (uint32_t j = 0; j <= i && !rc; j++) {
                char *id = ident(c, r->meta.key_names[j]);
                char *lit = PQescapeLiteral(c, r->last.vals[j],
                                            r->last.lens[j]);
                const char *coll =
                    r->meta.key_kinds[j] == KEY_TEXT ? " COLLATE \"C\"" : "";
                const char *type =
                    r->meta.key_kinds[j] == KEY_INT ? "::bigint" : "";
                rc = id && lit ? weir_buf_printf(
                                     &q, "%s%s%s %s %s%s", j ? " AND " : "",
                                     id, coll, j == i ? ">" : "=", lit, type)
                               : WEIR_ENOMEM;
                PQfreemem(id);
                PQfreemem(lit);
            }
            if (!rc)
                rc = weir_buf_printf(&q, ")");
        }
    }
    if (!rc)
        rc = weir_buf_printf(&q, " ORDER BY ");
    for (uint32_t i = 0; i < r->meta.n_key && !rc; i++) {
        char *id = ident(c, r->meta.key_names[i]);
        rc = id ? weir_buf_printf(&q, "%s%s%s", i ? ", " : "", id,
                                  r->meta.key_kinds[i] == KEY_TEXT
                                      ? " COLLATE \"C\""
                                      : "")
                : WEIR_ENOMEM;
        PQfreemem(id);
    }
    if (!rc)
        rc = weir_buf_put_u8(&q, 0);
    if (!rc)
        rc = exec_ok(c, (const char *)q.data, "reading the snapshot", err);
    weir_buf_fini(&q);
    return rc;
}

/* Reads up to max_rows snapshot rows; sets *done at the end. */
static int snapshot_read(cdc_reader *r, weir_batch *out, uint32_t max_rows,
                         bool *done, weir_error *err)
{
    *done = false;
    uint32_t n = 0;
    uint32_t nf = r->schema->n_fields;
    while (n < max_rows) {
        if (!r->res || r->res_row >= PQntuples(r->res)) {
            if (r->res)
                PQclear(r->res);
            r->res = NULL;
            char sql[96];
            snprintf(sql, sizeof sql, "FETCH FORWARD %" PRId64
                     " FROM weir_snapshot", r->conf->fetch_size);
            PGresult *res = PQexec(r->snap, sql);
            if (PQresultStatus(res) != PGRES_TUPLES_OK)
                return sql_fail(err, "reading the snapshot", r->snap, res);
            if (PQntuples(res) == 0) {
                PQclear(res);
                *done = true;
                break;
            }
            r->res = res;
            r->res_row = 0;
        }
        PGresult *res = r->res;
        int row = r->res_row++;
        int br = weir_batch_append_row(out);
        if (br < 0)
            return WEIR_ENOMEM;
        for (uint32_t i = 0; i < nf; i++) {
            if (PQgetisnull(res, row, (int)i)) {
                weir_batch_set_null(out, i, (uint32_t)br);
                continue;
            }
            int rc = set_text(r, out, i, (uint32_t)br,
                              PQgetvalue(res, row, (int)i),
                              (size_t)PQgetlength(res, row, (int)i), err);
            if (rc)
                return rc;
        }
        out->kind[br] = WEIR_ROW_INSERT;
        n++;
        if (n == max_rows || r->res_row >= PQntuples(res)) {
            /* the key of the last row emitted, once per batch */
            for (uint32_t k = 0; k < r->meta.n_key; k++) {
                r->kv[k] = PQgetvalue(res, row, (int)(nf + k));
                r->kl[k] = (size_t)PQgetlength(res, row, (int)(nf + k));
            }
            int rc = key_set(&r->last, r->meta.n_key, r->kv, r->kl);
            if (rc)
                return rc;
        }
    }
    return (int)n;
}

/* ---- the stream ---- */

static void put_be64(uint8_t *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--, v >>= 8)
        p[i] = (uint8_t)v;
}

static uint64_t get_be64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
}

static uint32_t get_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
           p[3];
}

/* Standby status update: the slot may forget what precedes r->confirmed. */
static int send_status(cdc_reader *r, weir_error *err)
{
    uint8_t m[34];
    m[0] = 'r';
    uint64_t write = r->received > r->confirmed ? r->received : r->confirmed;
    put_be64(m + 1, write);
    put_be64(m + 9, r->confirmed);
    put_be64(m + 17, r->confirmed);
    /* microseconds since 2000-01-01 */
    int64_t now = weir_clock_now(&r->conf->clock);
    put_be64(m + 25, (uint64_t)((now - INT64_C(946684800000)) * 1000));
    m[33] = 0;
    r->last_status_ms = now;
    if (PQputCopyData(r->repl, (const char *)m, sizeof m) != 1 ||
        PQflush(r->repl) != 0)
        return sql_fail(err, "sending the standby status", r->repl, NULL);
    return 0;
}

static int stream_start(cdc_reader *r, weir_error *err)
{
    char *pub = ident(r->repl, r->conf->publication);
    if (!pub)
        return WEIR_ENOMEM;
    char sql[512];
    /* 0/0: from the slot's confirmed position; transactions this reader
     * emitted already are skipped by their final_lsn */
    snprintf(sql, sizeof sql,
             "START_REPLICATION SLOT \"%s\" LOGICAL 0/0 (proto_version '1', "
             "publication_names '%s')",
             r->conf->slot, pub);
    PQfreemem(pub);
    PGresult *res = PQexec(r->repl, sql);
    if (PQresultStatus(res) != PGRES_COPY_BOTH)
        return sql_fail(err, "starting replication", r->repl, res);
    PQclear(res);
    r->streaming = true;
    r->last_status_ms = weir_clock_now(&r->conf->clock);
    return 0;
}

/* A bounded reader over one pgoutput message. */
typedef struct msg_cur {
    const uint8_t *p, *end;
    bool bad;
} msg_cur;

static uint8_t mc_u8(msg_cur *c)
{
    if (c->end - c->p < 1) {
        c->bad = true;
        return 0;
    }
    return *c->p++;
}
static uint32_t mc_u32(msg_cur *c)
{
    if (c->end - c->p < 4) {
        c->bad = true;
        return 0;
    }
    uint32_t v = get_be32(c->p);
    c->p += 4;
    return v;
}
static uint16_t mc_u16(msg_cur *c)
{
    if (c->end - c->p < 2) {
        c->bad = true;
        return 0;
    }
    uint16_t v = (uint16_t)(c->p[0] << 8 | c->p[1]);
    c->p += 2;
    return v;
}
static uint64_t mc_u64(msg_cur *c)
{
    if (c->end - c->p < 8) {
        c->bad = true;
        return 0;
    }
    uint64_t v = get_be64(c->p);
    c->p += 8;
    return v;
}
static const char *mc_str(msg_cur *c)
{
    const uint8_t *z = memchr(c->p, 0, (size_t)(c->end - c->p));
    if (!z) {
        c->bad = true;
        return "";
    }
    const char *s = (const char *)c->p;
    c->p = z + 1;
    return s;
}

static int on_relation(cdc_reader *r, msg_cur *c, weir_error *err)
{
    uint32_t relid = mc_u32(c);
    const char *ns = mc_str(c), *name = mc_str(c);
    mc_u8(c); /* replica identity */
    uint16_t ncols = mc_u16(c);
    if (c->bad)
        return WEIR_ECORRUPT;
    if (strcmp(ns, r->conf->schema_name) || strcmp(name, r->conf->table_name))
        return 0;
    int32_t *rc_ = weir_realloc(r->rel_col, (ncols + 1u) * sizeof *rc_);
    if (rc_)
        r->rel_col = rc_;
    int32_t *rk = weir_realloc(r->rel_key, (ncols + 1u) * sizeof *rk);
    if (rk)
        r->rel_key = rk;
    const char **tv = weir_realloc(r->tv, (ncols + 1u) * sizeof *tv);
    if (tv)
        r->tv = tv;
    const char **ov = weir_realloc(r->ov, (ncols + 1u) * sizeof *ov);
    if (ov)
        r->ov = ov;
    size_t *tl = weir_realloc(r->tl, (ncols + 1u) * sizeof *tl);
    if (tl)
        r->tl = tl;
    size_t *ol = weir_realloc(r->ol, (ncols + 1u) * sizeof *ol);
    if (ol)
        r->ol = ol;
    char *tk = weir_realloc(r->tkind, ncols + 1u);
    if (tk)
        r->tkind = tk;
    char *ok = weir_realloc(r->okind, ncols + 1u);
    if (ok)
        r->okind = ok;
    if (!rc_ || !rk || !tv || !ov || !tl || !ol || !tk || !ok)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < ncols; i++) {
        mc_u8(c); /* flags */
        const char *col = mc_str(c);
        mc_u32(c); /* type */
        mc_u32(c); /* typmod */
        r->rel_col[i] = -1;
        r->rel_key[i] = -1;
        for (uint32_t f = 0; f < r->schema->n_fields; f++)
            if (!strcmp(r->schema->fields[f].name, col))
                r->rel_col[i] = (int32_t)f;
        for (uint32_t k = 0; k < r->meta.n_key; k++)
            if (!strcmp(r->meta.key_names[k], col))
                r->rel_key[i] = (int32_t)k;
    }
    if (c->bad)
        return WEIR_ECORRUPT;
    for (uint32_t k = 0; k < r->meta.n_key; k++) {
        bool found = false;
        for (uint32_t i = 0; i < ncols; i++)
            found |= r->rel_key[i] == (int32_t)k;
        if (!found)
            return weir_error_set(err, WEIR_EUNSUPPORTED,
                                  "postgres-cdc: the key column '%s' of "
                                  "%s.%s is no longer published",
                                  r->meta.key_names[k], r->conf->schema_name,
                                  r->conf->table_name);
    }
    r->relid = relid;
    r->have_rel = true;
    r->n_rel = ncols;
    return 0;
}

/* Reads TupleData into (v, l, k); 'n' null, 'u' unchanged TOAST, 't' text. */
static int read_tuple(cdc_reader *r, msg_cur *c, const char **v, size_t *l,
                      char *k)
{
    uint16_t n = mc_u16(c);
    if (c->bad || n != r->n_rel)
        return WEIR_ECORRUPT;
    for (uint32_t i = 0; i < n; i++) {
        k[i] = (char)mc_u8(c);
        v[i] = NULL;
        l[i] = 0;
        if (k[i] == 't' || k[i] == 'b') {
            uint32_t len = mc_u32(c);
            if (c->bad || (size_t)(c->end - c->p) < len)
                return WEIR_ECORRUPT;
            v[i] = (const char *)c->p;
            l[i] = len;
            c->p += len;
        } else if (k[i] != 'n' && k[i] != 'u') {
            return WEIR_ECORRUPT;
        }
    }
    return c->bad ? WEIR_ECORRUPT : 0;
}

/* The key values of a tuple into r->kv/kl. */
static void tuple_key(cdc_reader *r, const char *const *v, const size_t *l)
{
    for (uint32_t i = 0; i < r->n_rel; i++)
        if (r->rel_key[i] >= 0) {
            r->kv[r->rel_key[i]] = v[i] ? v[i] : "";
            r->kl[r->rel_key[i]] = l[i];
        }
}

static int emit_tuple(cdc_reader *r, weir_batch *out, const char *const *v,
                      const size_t *l, const char *k, weir_row_kind kind,
                      weir_error *err)
{
    int row = weir_batch_append_row(out);
    if (row < 0)
        return WEIR_ENOMEM;
    out->kind[row] = (uint8_t)kind;
    for (uint32_t i = 0; i < r->n_rel; i++) {
        int32_t col = r->rel_col[i];
        if (col < 0)
            continue;
        if (k[i] == 'n' || !v[i]) {
            weir_batch_set_null(out, (uint32_t)col, (uint32_t)row);
            continue;
        }
        int rc = set_text(r, out, (uint32_t)col, (uint32_t)row, v[i], l[i],
                          err);
        if (rc)
            return rc;
    }
    return 1;
}

/* Decodes one change (I, U, D) of the captured relation into out. */
static int on_change(cdc_reader *r, uint8_t tag, msg_cur *c, weir_batch *out,
                     weir_error *err)
{
    const char *what = "a change";
    bool has_old = false, has_new = false;
    int rc = 0;
    if (tag == 'I') {
        if (mc_u8(c) != 'N')
            return WEIR_ECORRUPT;
        has_new = true;
        rc = read_tuple(r, c, r->tv, r->tl, r->tkind);
    } else if (tag == 'U') {
        uint8_t t = mc_u8(c);
        if (t == 'O' || t == 'K') {
            if (t == 'K')
                return weir_error_set(err, WEIR_EUNSUPPORTED,
                                      "postgres-cdc: an update of %s.%s came "
                                      "without its old row (REPLICA "
                                      "IDENTITY FULL is needed)",
                                      r->conf->schema_name,
                                      r->conf->table_name);
            has_old = true;
            if ((rc = read_tuple(r, c, r->ov, r->ol, r->okind)))
                return rc;
            t = mc_u8(c);
        }
        if (t != 'N')
            return WEIR_ECORRUPT;
        has_new = true;
        rc = read_tuple(r, c, r->tv, r->tl, r->tkind);
        if (!has_old)
            return weir_error_set(err, WEIR_EUNSUPPORTED,
                                  "postgres-cdc: an update of %s.%s came "
                                  "without its old row (REPLICA IDENTITY FULL "
                                  "is needed)",
                                  r->conf->schema_name, r->conf->table_name);
        /* an unchanged TOAST value is the old one */
        for (uint32_t i = 0; !rc && i < r->n_rel; i++)
            if (r->tkind[i] == 'u') {
                r->tkind[i] = r->okind[i];
                r->tv[i] = r->ov[i];
                r->tl[i] = r->ol[i];
            }
    } else {
        uint8_t t = mc_u8(c);
        if (t != 'O')
            return weir_error_set(err, WEIR_EUNSUPPORTED,
                                  "postgres-cdc: a delete of %s.%s came "
                                  "without its old row (REPLICA IDENTITY FULL "
                                  "is needed)",
                                  r->conf->schema_name, r->conf->table_name);
        has_old = true;
        rc = read_tuple(r, c, r->ov, r->ol, r->okind);
    }
    if (rc)
        return weir_error_set(err, WEIR_ECORRUPT,
                              "postgres-cdc: malformed pgoutput message (%s)",
                              what);
    bool old_in = false, new_in = false;
    if (has_old) {
        tuple_key(r, r->ov, r->ol);
        old_in = image_applies(r, r->kv, r->kl, r->cur_final);
    }
    if (has_new) {
        tuple_key(r, r->tv, r->tl);
        new_in = image_applies(r, r->kv, r->kl, r->cur_final);
    }
    int n = 0;
    if (old_in) {
        weir_row_kind k = new_in ? WEIR_ROW_UPDATE_BEFORE : WEIR_ROW_DELETE;
        if ((rc = emit_tuple(r, out, r->ov, r->ol, r->okind, k, err)) < 0)
            return rc;
        n++;
    }
    if (new_in) {
        weir_row_kind k = old_in ? WEIR_ROW_UPDATE_AFTER : WEIR_ROW_INSERT;
        if ((rc = emit_tuple(r, out, r->tv, r->tl, r->tkind, k, err)) < 0)
            return rc;
        n++;
    }
    return n;
}

/*
 * Handles one pgoutput message. Returns the rows appended (>= 0), or an
 * error.
 */
static int on_message(cdc_reader *r, const uint8_t *p, size_t n,
                      weir_batch *out, weir_error *err)
{
    msg_cur c = {p + 1, p + n, n == 0};
    uint8_t tag = n ? p[0] : 0;
    switch (tag) {
    case 'B':
        r->cur_final = mc_u64(&c);
        r->in_txn = true;
        r->cur_seen = 0;
        r->skip_txn = r->cur_final <= r->last_final;
        r->skip_n = r->cur_final == r->resume_final ? r->resume_done : 0;
        break;
    case 'C': {
        mc_u8(&c);
        mc_u64(&c); /* commit_lsn */
        uint64_t end = mc_u64(&c);
        if (c.bad)
            break;
        if (!r->skip_txn) {
            r->last_final = r->cur_final;
            r->last_end = end;
        }
        r->in_txn = false;
        r->cur_seen = 0;
        r->resume_final = 0;
        r->resume_done = 0;
        break;
    }
    case 'R':
        return on_relation(r, &c, err);
    case 'I':
    case 'U':
    case 'D': {
        uint32_t relid = mc_u32(&c);
        if (c.bad)
            break;
        if (!r->have_rel || relid != r->relid || r->skip_txn)
            return 0;
        r->cur_seen++;
        if (r->cur_seen <= r->skip_n)
            return 0;
        return on_change(r, tag, &c, out, err);
    }
    case 'T': {
        uint32_t nrel = mc_u32(&c);
        mc_u8(&c);
        for (uint32_t i = 0; i < nrel && !c.bad; i++)
            if (r->have_rel && mc_u32(&c) == r->relid && !r->skip_txn)
                return weir_error_set(err, WEIR_EUNSUPPORTED,
                                      "postgres-cdc: table %s.%s was "
                                      "truncated; a TRUNCATE cannot be read "
                                      "as a changelog (restart the job "
                                      "without its checkpoint)",
                                      r->conf->schema_name,
                                      r->conf->table_name);
        break;
    }
    default: /* Y (type), O (origin), M (message) */
        break;
    }
    if (c.bad)
        return weir_error_set(err, WEIR_ECORRUPT,
                              "postgres-cdc: malformed pgoutput message '%c'",
                              tag);
    return 0;
}

static int stream_read(cdc_reader *r, weir_batch *out, uint32_t max_rows,
                       weir_error *err)
{
    int rc;
    if (!r->streaming && (rc = stream_start(r, err)))
        return rc;
    if (out->capacity < 2)
        return weir_error_set(err, WEIR_EINVAL,
                              "postgres-cdc needs a batch size of at least 2");
    int64_t now = weir_clock_now(&r->conf->clock);
    if (now - r->last_status_ms >= r->conf->status_ms &&
        (rc = send_status(r, err)))
        return rc;
    uint32_t n = 0;
    bool consumed = false;
    while (max_rows - n >= 2) {
        if (!r->msg) {
            int len = PQgetCopyData(r->repl, &r->msg, 1);
            if (len == 0 && !consumed) {
                consumed = true;
                if (!PQconsumeInput(r->repl))
                    return sql_fail(err, "reading the replication stream",
                                    r->repl, NULL);
                continue;
            }
            if (len == 0)
                break;
            if (len == -1)
                return weir_error_set(err, WEIR_EIO,
                                      "postgres-cdc: the server ended the "
                                      "replication stream");
            if (len < 0)
                return sql_fail(err, "reading the replication stream",
                                r->repl, NULL);
            r->msg_len = len;
        }
        const uint8_t *m = (const uint8_t *)r->msg;
        size_t len = (size_t)r->msg_len;
        if (m[0] == 'k' && len >= 18) {
            uint64_t end = get_be64(m + 1);
            if (end > r->received && !r->in_txn)
                r->received = end;
            bool reply = m[17] != 0;
            PQfreemem(r->msg);
            r->msg = NULL;
            if (reply && (rc = send_status(r, err)))
                return rc;
            continue;
        }
        if (m[0] == 'w' && len >= 25) {
            uint64_t start = get_be64(m + 1);
            if (start > r->received)
                r->received = start;
            rc = on_message(r, m + 25, len - 25, out, err);
            if (rc < 0)
                return rc;
            n += (uint32_t)rc;
        }
        PQfreemem(r->msg);
        r->msg = NULL;
    }
    return (int)n;
}

/* ---- positions ---- */

static int put_key(weir_buf *b, const cdc_key *k, uint32_t n)
{
    int rc = weir_buf_put_u8(b, k->set ? 1 : 0);
    for (uint32_t i = 0; k->set && i < n && !rc; i++)
        rc = weir_buf_put_bytes(b, k->vals[i], k->lens[i]);
    return rc;
}

static int get_key(weir_cursor *c, cdc_key *k, uint32_t n)
{
    uint8_t set;
    int rc = weir_cursor_get_u8(c, &set);
    if (rc || !set)
        return rc;
    for (uint32_t i = 0; i < n; i++) {
        const void *p;
        size_t len;
        if ((rc = weir_cursor_get_bytes(c, &p, &len)))
            return rc;
        /* key_set copies each value; one at a time through the scratch */
        const char *v = p;
        if (!k->vals) {
            k->vals = weir_calloc(n, sizeof *k->vals);
            k->lens = weir_calloc(n, sizeof *k->lens);
            if (!k->vals || !k->lens)
                return WEIR_ENOMEM;
        }
        char *s = weir_malloc(len + 1);
        if (!s)
            return WEIR_ENOMEM;
        memcpy(s, v, len);
        s[len] = 0;
        k->vals[i] = s;
        k->lens[i] = len;
    }
    k->set = true;
    return 0;
}

static int cdc_position(void *reader, weir_buf *out)
{
    cdc_reader *r = reader;
    int rc = weir_buf_put_u8(out, POS_VERSION);
    if (!rc)
        rc = weir_buf_put_u8(out, (uint8_t)r->phase);
    if (!rc)
        rc = weir_buf_put_u32(out, r->meta.n_key);
    if (!rc)
        rc = weir_buf_put_u32(out, r->n_segs);
    for (uint32_t j = 0; j < r->n_segs && !rc; j++) {
        rc = weir_buf_put_u64(out, r->segs[j].lsn);
        if (!rc)
            rc = put_key(out, &r->segs[j].lower, r->meta.n_key);
    }
    if (!rc)
        rc = put_key(out, &r->last, r->meta.n_key);
    if (!rc)
        rc = weir_buf_put_u64(out, r->last_final);
    if (!rc)
        rc = weir_buf_put_u64(out, r->last_end);
    /* the transaction under way: how many of its changes went out */
    uint64_t cf = r->in_txn && !r->skip_txn ? r->cur_final : r->resume_final;
    uint32_t cd = r->in_txn && !r->skip_txn
                      ? (r->cur_seen > r->skip_n ? r->cur_seen : r->skip_n)
                      : r->resume_done;
    if (!rc)
        rc = weir_buf_put_u64(out, cf);
    if (!rc)
        rc = weir_buf_put_u32(out, cd);
    return rc;
}

static int decode_position(cdc_reader *r, const void *pos, size_t len,
                           weir_error *err)
{
    weir_cursor c;
    weir_cursor_init(&c, pos, len);
    uint8_t ver, phase;
    uint32_t nk = 0, nseg = 0;
    int rc = weir_cursor_get_u8(&c, &ver);
    if (!rc && ver != POS_VERSION)
        rc = WEIR_ECORRUPT;
    if (!rc)
        rc = weir_cursor_get_u8(&c, &phase);
    if (!rc)
        rc = weir_cursor_get_u32(&c, &nk);
    if (!rc && nk != r->meta.n_key)
        return weir_error_set(err, WEIR_EUNSUPPORTED,
                              "postgres-cdc: the primary key of %s.%s "
                              "changed since the checkpoint",
                              r->conf->schema_name, r->conf->table_name);
    if (!rc)
        rc = weir_cursor_get_u32(&c, &nseg);
    if (!rc && nseg > len)
        rc = WEIR_ECORRUPT;
    if (!rc && !(r->segs = weir_calloc(nseg + 2u, sizeof *r->segs)))
        rc = WEIR_ENOMEM;
    for (uint32_t j = 0; j < nseg && !rc; j++) {
        rc = weir_cursor_get_u64(&c, &r->segs[j].lsn);
        if (!rc)
            rc = get_key(&c, &r->segs[j].lower, nk);
        r->n_segs = j + 1;
    }
    if (!rc)
        rc = get_key(&c, &r->last, nk);
    if (!rc)
        rc = weir_cursor_get_u64(&c, &r->last_final);
    if (!rc)
        rc = weir_cursor_get_u64(&c, &r->last_end);
    if (!rc)
        rc = weir_cursor_get_u64(&c, &r->resume_final);
    if (!rc)
        rc = weir_cursor_get_u32(&c, &r->resume_done);
    if (rc)
        return weir_error_set(err, rc == WEIR_ENOMEM ? rc : WEIR_ECORRUPT,
                              "postgres-cdc: the checkpointed position is "
                              "unreadable");
    r->phase = phase == PHASE_SNAPSHOT ? PHASE_SNAPSHOT : PHASE_STREAM;
    return 0;
}

/* ---- the reader ---- */

static void reader_free(cdc_reader *r)
{
    if (!r)
        return;
    if (r->res)
        PQclear(r->res);
    if (r->msg)
        PQfreemem(r->msg);
    if (r->snap)
        PQfinish(r->snap);
    if (r->repl)
        PQfinish(r->repl);
    for (uint32_t j = 0; j < r->n_segs; j++)
        key_free(&r->segs[j].lower, r->meta.n_key);
    weir_free(r->segs);
    key_free(&r->last, r->meta.n_key);
    weir_free(r->rel_col);
    weir_free(r->rel_key);
    weir_free(r->tv);
    weir_free(r->tl);
    weir_free(r->tkind);
    weir_free(r->ov);
    weir_free(r->ol);
    weir_free(r->okind);
    weir_free(r->kv);
    weir_free(r->kl);
    meta_fini(&r->meta);
    if (r->src && r->src->reader == r)
        r->src->reader = NULL;
    weir_free(r);
}

/*
 * A new snapshot after a restart in the middle of one: exported by a
 * temporary slot at L', read from just past the last key emitted.
 */
static int resnapshot(cdc_reader *r, weir_error *err)
{
    PGconn *tmp = NULL;
    int rc = weir__pg_connect_conninfo(r->conf->conninfo, true, "weir-cdc", &tmp, err);
    if (rc)
        return rc;
    char name[64], snap[64];
    snprintf(name, sizeof name, "%s_s%ld", r->conf->slot, (long)getpid());
    uint64_t lsn;
    if ((rc = create_slot(tmp, name, true, snap, &lsn, err)))
        goto done;
    if (r->last.set) {
        /* keys up to last came from the current segment's snapshot */
        cdc_seg *s = &r->segs[r->n_segs++];
        s->lsn = lsn;
        s->lower = r->last;
        memset(&r->last, 0, sizeof r->last);
        if ((rc = key_set(&r->last, r->meta.n_key,
                          (const char *const *)s->lower.vals,
                          s->lower.lens)))
            goto done;
    } else {
        /* the current snapshot emitted nothing: the new one replaces it */
        r->segs[r->n_segs - 1].lsn = lsn;
    }
    rc = snapshot_open(r, snap, err);
done:
    PQfinish(tmp); /* the snapshot lives on in r->snap's transaction */
    return rc;
}

static int reader_open(cdc_src *s, const void *pos, size_t pos_len,
                       cdc_reader **out, weir_error *err)
{
    const cdc_conf *cf = s->conf;
    cdc_reader *r = weir_calloc(1, sizeof *r);
    if (!r)
        return WEIR_ENOMEM;
    r->src = s;
    r->conf = cf;
    r->schema = cf->schema;
    int rc = weir__pg_connect_conninfo(cf->conninfo, false, "weir-cdc-snapshot", &r->snap, err);
    if (!rc)
        rc = weir__pg_connect_conninfo(cf->conninfo, true, "weir-cdc", &r->repl, err);
    if (!rc)
        rc = load_meta(r, r->snap, err);
    if (!rc)
        rc = ensure_publication(r, r->snap, err);
    bool exists = false;
    if (!rc)
        rc = slot_exists(r, r->snap, &exists, err);
    if (rc)
        goto fail;
    if (pos) {
        if ((rc = decode_position(r, pos, pos_len, err)))
            goto fail;
        if (!exists) {
            rc = weir_error_set(err, WEIR_ENOTFOUND,
                                "postgres-cdc: replication slot '%s' is gone: "
                                "the changes since the checkpoint cannot be "
                                "read (start the job without its checkpoint "
                                "for a new snapshot)",
                                cf->slot);
            goto fail;
        }
        if (r->phase == PHASE_SNAPSHOT && (rc = resnapshot(r, err)))
            goto fail;
    } else {
        r->segs = weir_calloc(2, sizeof *r->segs);
        if (!r->segs) {
            rc = WEIR_ENOMEM;
            goto fail;
        }
        r->n_segs = 1;
        if (cf->latest) {
            /* no snapshot: the stream from the slot's position (kept when
             * the slot exists) */
            r->phase = PHASE_STREAM;
            uint64_t lsn = 0;
            if (!exists &&
                (rc = create_slot(r->repl, cf->slot, false, NULL, &lsn, err)))
                goto fail;
        } else {
            /* a fresh start reads the whole table again: the slot starts
             * over with the snapshot it exports */
            if (exists) {
                const char *p[1] = {cf->slot};
                PGresult *res = query(r->snap,
                                      "SELECT pg_drop_replication_slot($1)",
                                      1, p,
                                      "dropping the earlier replication slot",
                                      err);
                if (!res) {
                    rc = WEIR_EIO;
                    goto fail;
                }
                PQclear(res);
            }
            char snap[64];
            if ((rc = create_slot(r->repl, cf->slot, false, snap,
                                  &r->segs[0].lsn, err)))
                goto fail;
            r->phase = PHASE_SNAPSHOT;
            if ((rc = snapshot_open(r, snap, err)))
                goto fail;
        }
    }
    if (r->phase == PHASE_STREAM) {
        PQfinish(r->snap);
        r->snap = NULL;
    }
    *out = r;
    return 0;
fail:
    reader_free(r);
    return rc;
}

/* ---- the source class ---- */

static int cdc_create(void *arg, const weir_source_info *info, void **out,
                      weir_error *err)
{
    (void)err;
    cdc_src *s = weir_calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    s->conf = arg;
    s->owner = info->subtask == 0;
    s->ids[0] = "table";
    *out = s;
    return 0;
}

static int cdc_discover(void *src, const char ***ids, uint32_t *n, bool *done,
                        weir_error *err)
{
    (void)err;
    cdc_src *s = src;
    *n = 0;
    if (s->owner && !s->discovered) {
        *ids = s->ids;
        *n = 1;
    }
    s->discovered = true;
    *done = true;
    return 0;
}

static int cdc_open_split(void *src, const char *id, const void *pos,
                          size_t pos_len, void **out, weir_error *err)
{
    (void)id;
    cdc_src *s = src;
    cdc_reader *r = NULL;
    int rc = reader_open(s, pos, pos_len, &r, err);
    if (rc)
        return rc;
    s->reader = r;
    *out = r;
    return 0;
}

static int cdc_read(void *reader, weir_batch *out, uint32_t max_rows,
                    weir_error *err)
{
    cdc_reader *r = reader;
    if (r->phase == PHASE_SNAPSHOT) {
        bool done;
        int n = snapshot_read(r, out, max_rows, &done, err);
        if (n < 0 || !done)
            return n;
        int rc = exec_ok(r->snap, "COMMIT", "ending the snapshot", err);
        if (rc)
            return rc;
        PQfinish(r->snap);
        r->snap = NULL;
        r->phase = PHASE_STREAM;
        key_free(&r->last, r->meta.n_key);
        if (n > 0)
            return n;
    }
    return stream_read(r, out, max_rows, err);
}

static void cdc_close_split(void *reader)
{
    reader_free(reader);
}

static void cdc_destroy(void *src)
{
    cdc_src *s = src;
    if (!s)
        return;
    if (s->reader)
        s->reader->src = NULL;
    weir_free(s->pending);
    weir_free(s);
}

static int cdc_checkpoint_taken(void *src, uint64_t ckpt_id, weir_error *err)
{
    (void)err;
    cdc_src *s = src;
    if (!s->reader)
        return 0;
    if (s->n_pending == s->cap_pending) {
        uint32_t cap = s->cap_pending ? 2 * s->cap_pending : 8;
        cdc_pending *p = weir_realloc(s->pending, cap * sizeof *p);
        if (!p)
            return WEIR_ENOMEM;
        s->pending = p;
        s->cap_pending = cap;
    }
    /* In the snapshot phase nothing may be forgotten: the slot stays at its
     * start. */
    cdc_reader *r = s->reader;
    s->pending[s->n_pending++] = (cdc_pending){
        ckpt_id, r->phase == PHASE_STREAM ? r->last_end : 0};
    return 0;
}

static int cdc_checkpoint_complete(void *src, uint64_t ckpt_id,
                                   weir_error *err)
{
    cdc_src *s = src;
    uint64_t confirm = 0;
    uint32_t keep = 0;
    for (uint32_t i = 0; i < s->n_pending; i++) {
        if (s->pending[i].ckpt_id <= ckpt_id) {
            if (s->pending[i].confirm_lsn > confirm)
                confirm = s->pending[i].confirm_lsn;
        } else {
            s->pending[keep++] = s->pending[i];
        }
    }
    s->n_pending = keep;
    cdc_reader *r = s->reader;
    if (!r || confirm <= r->confirmed)
        return 0;
    r->confirmed = confirm;
    return r->streaming ? send_status(r, err) : 0;
}

static const weir_source_class cdc_class = {
    .name = "postgres-cdc",
    .create = cdc_create,
    .discover = cdc_discover,
    .open_split = cdc_open_split,
    .read = cdc_read,
    .position = cdc_position,
    .close_split = cdc_close_split,
    .destroy = cdc_destroy,
    .checkpoint_taken = cdc_checkpoint_taken,
    .checkpoint_complete = cdc_checkpoint_complete,
};

/* ---- options ---- */

int weir__pg_cdc_source_spec(const weir_option *opts, size_t n_opts,
                             const weir_schema *schema,
                             const weir_connector_env *env,
                             weir_source_spec *out, weir_error *err)
{
    static const char *const known[] = {
        "hostname", "port", "username", "password", "database-name",
        "schema-name", "table-name", "slot.name", "decoding.plugin.name",
        "scan.startup.mode", "scan.snapshot.fetch.size",
        "debezium.publication.name", "debezium.status.update.interval.ms",
        NULL};
    weir__optset o;
    int rc = weir__optset_init(&o, "postgres-cdc", opts, n_opts, env, err);
    if (rc)
        return rc;
    cdc_conf *c = weir_calloc(1, sizeof *c);
    weir_buf ci;
    weir_buf_init(&ci);
    if (!c) {
        rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
        goto fail;
    }
    c->schema = schema;
    c->fetch_size = 1024;
    c->status_ms = 10000;
    if (env && env->clock.now_ms)
        c->clock = env->clock;
    else
        c->clock = weir_clock_system();
    static const char *const required[] = {"hostname", "username",
                                           "database-name", "table-name",
                                           "slot.name"};
    const char *val[5];
    for (int i = 0; i < 5; i++)
        if (!(val[i] = weir__opt_get(&o, required[i]))) {
            rc = weir__opt_missing(&o, required[i], NULL);
            goto fail;
        }
    const char *port = weir__opt_get(&o, "port");
    const char *pass = weir__opt_get(&o, "password");
    const char *schema_name = weir__opt_get(&o, "schema-name");
    rc = conninfo_put(&ci, "host", val[0]);
    if (!rc)
        rc = conninfo_put(&ci, "port", port ? port : "5432");
    if (!rc)
        rc = conninfo_put(&ci, "user", val[1]);
    if (!rc && pass)
        rc = conninfo_put(&ci, "password", pass);
    if (!rc)
        rc = conninfo_put(&ci, "dbname", val[2]);
    if (!rc)
        rc = weir_buf_put_u8(&ci, 0);
    const char *pub = weir__opt_get(&o, "debezium.publication.name");
    if (rc || !(c->conninfo = weir_strdup((const char *)ci.data)) ||
        !(c->schema_name = weir_strdup(schema_name ? schema_name : "public")) ||
        !(c->table_name = weir_strdup(val[3])) ||
        !(c->slot = weir_strdup(val[4])) ||
        !(c->publication = weir_strdup(pub ? pub : "dbz_publication"))) {
        rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
        goto fail;
    }
    if (!slot_name_ok(c->slot)) {
        rc = weir__opt_fail(&o, (size_t)weir__opt_index(&o, "slot.name"),
                            WEIR_EINVAL,
                            "option 'slot.name': '%s' is not a valid slot "
                            "name (lower-case letters, digits and '_', at "
                            "most 50 characters)",
                            c->slot);
        goto fail;
    }
    const char *plugin = weir__opt_get(&o, "decoding.plugin.name");
    if (plugin && strcmp(plugin, "pgoutput") != 0) {
        rc = weir__opt_fail(
            &o, (size_t)weir__opt_index(&o, "decoding.plugin.name"),
            WEIR_EUNSUPPORTED,
            "option 'decoding.plugin.name': weir decodes 'pgoutput' only, "
            "not '%s'",
            plugin);
        goto fail;
    }
    static const char *const modes[] = {"initial", "latest-offset", NULL};
    int mode = 0;
    if ((rc = weir__opt_choice(&o, "scan.startup.mode", modes, WEIR__CHOICE_ANY_CASE, &mode)))
        goto fail;
    c->latest = mode == 1;
    if ((rc = weir__opt_i64(&o, "scan.snapshot.fetch.size", &c->fetch_size)))
        goto fail;
    if (c->fetch_size < 1) {
        rc = weir__opt_fail(
            &o, (size_t)weir__opt_index(&o, "scan.snapshot.fetch.size"),
            WEIR_EINVAL, "option 'scan.snapshot.fetch.size' must be positive");
        goto fail;
    }
    if ((rc = weir__opt_i64(&o, "debezium.status.update.interval.ms",
                            &c->status_ms)))
        goto fail;
    if ((rc = weir__opt_finish(&o, known)))
        goto fail;
    for (uint32_t i = 0; i < schema->n_fields; i++) {
        weir_type_id t = schema->fields[i].type.id;
        if (t == WEIR_TYPE_NULL) {
            rc = weir_error_set(err, WEIR_EUNSUPPORTED,
                                "postgres-cdc: column %s has no type",
                                schema->fields[i].name);
            goto fail;
        }
    }
    weir_buf_fini(&ci);
    weir__optset_fini(&o);
    *out = (weir_source_spec){.name = "postgres-cdc",
                              .cls = &cdc_class,
                              .arg = c,
                              .free_arg = conf_free,
                              .schema = schema,
                              .changelog = true};
    return 0;
fail:
    weir_buf_fini(&ci);
    weir__optset_fini(&o);
    conf_free(c);
    return rc;
}
