/*
 * connector/postgres/jdbc_sink.c - the 'jdbc' sink: rows into a PostgreSQL
 * table, with Flink's JDBC connector options.
 *
 * Modes. A table without a PRIMARY KEY is written in append mode: +I rows
 * go in with COPY ... FROM STDIN (text format), one COPY per flush. A table
 * with one is written in upsert mode: the buffered rows are reduced to the
 * last change per key (a -U counts as a delete of its key, as in Flink: a +U
 * of the same key after it replaces it; a -U that nothing follows - a filter
 * dropped its +U, or the +U went to another key - removes the row), then one round trip
 * sends "DELETE ... WHERE (pk) IN (...)" for the keys whose last change is
 * -D and "INSERT ... VALUES ... ON CONFLICT (pk) DO UPDATE" for the others,
 * keys in sorted order (two writers never lock rows in opposite orders).
 * Upserts are idempotent: a replay rewrites the same rows.
 *
 * Buffer: rows are encoded as text when they arrive (COPY lines, or SQL
 * tuples plus their key tuple) and flushed once sink.buffer-flush.max-rows
 * are buffered (after the batch that reached it), when the oldest buffered
 * row is older than sink.buffer-flush.interval (checked when rows or
 * watermarks arrive), at checkpoints and at the end of the input.
 *
 * Delivery guarantees ('sink.delivery-guarantee'):
 * - none / at-least-once: each flush is one implicit transaction; a flush
 *   that fails is retried up to sink.max-retries times with a growing pause,
 *   reconnecting when the connection was lost. at-least-once also flushes at
 *   every checkpoint, so a restored checkpoint never lacks rows it covers.
 * - exactly-once (two-phase commit): one transaction per subtask per
 *   checkpoint. Rows of an epoch go into a transaction opened by the first
 *   flush after a barrier; snapshot() flushes and runs PREPARE TRANSACTION
 *   with the global id "weir-<job>-<node>-<subtask>-<checkpoint>" (<job>: a
 *   hash of the job's id and the table name; <node>: the sink's node in
 *   the job graph; <subtask>: the instance's index among those of every
 *   process of a job run by several, weir__op_instance, and so its
 *   parallelism below); checkpoint_complete(c) runs COMMIT PREPARED for every
 *   transaction prepared at a checkpoint <= c. On the first call after open
 *   the sink lists pg_prepared_xacts for its "weir-<job>-<node>-" prefix and,
 *   for the subtask indexes it owns (index mod parallelism), commits those
 *   the restored checkpoint covers (checkpoint <= the restored one: that
 *   checkpoint completed, and so did everything before its barrier) and
 *   rolls back the others - all of them on a fresh start. A lost connection
 *   or any error fails the job's attempt: the restart strategy restores
 *   the last checkpoint, never a silent reconnect inside a transaction.
 *   While one of its prepared transactions waits for its checkpoint to
 *   complete, a subtask writes nothing (it buffers): a new transaction could
 *   wait forever for row locks held by the prepared one, which only this
 *   thread can commit. The end of the input and a stop leave the last rows
 *   to the job's final checkpoint, which prepares and commits them, so a
 *   clean end leaves no prepared transaction behind.
 *
 * State (operator state, per subtask): u32 version (1), u32 subtask,
 * u64 the checkpoint id the snapshot was taken for, u32 n carried rows
 * and n x (u8 kind, bytes row, bytes key): upsert mode's rows that a
 * snapshot could not write (see jdbc_snapshot_impl).
 */
#ifdef WEIR_HAVE_POSTGRES
#include <ctype.h>
#include <inttypes.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <xxhash.h>

#include "connector/postgres/jdbc_sink.h"
#include "connector/postgres/pg_internal.h"
#include "runtime/checkpoint.h"
#include "time/timefmt.h"

#define STATE_VERSION 1
#define ROWS_PER_STATEMENT 1000u
#define COPY_CHUNK (1u << 20)

typedef enum guarantee {
    GUARANTEE_NONE,
    GUARANTEE_AT_LEAST_ONCE,
    GUARANTEE_EXACTLY_ONCE,
} guarantee;

typedef struct jdbc_arg {
    weir__pg_params conn;
    char *table;        /* 'table-name' as written */
    weir_schema *schema; /* the table's columns (a copy) */
    uint32_t *pk;       /* column indexes of the PRIMARY KEY */
    uint32_t n_pk;
    int64_t max_rows;    /* 0: no flush by count */
    int64_t interval_ms; /* 0: no flush by time */
    int64_t max_retries;
    guarantee g;
    uint64_t job_hash;
} jdbc_arg;

typedef struct row_ref {
    size_t off, len;         /* the row's text in data */
    size_t key_off, key_len; /* upsert mode: its key tuple in data */
    uint32_t seq;            /* arrival order */
    uint8_t kind;
} row_ref;

typedef struct jdbc_sink {
    const jdbc_arg *a;
    uint32_t subtask, parallelism, node;
    PGconn *conn;
    weir_error err;
    char *qtable;        /* the table as PostgreSQL names it, quoted */
    weir_buf copy_sql;   /* COPY t (cols) FROM STDIN */
    weir_buf insert_sql; /* INSERT INTO t (cols) VALUES */
    weir_buf upsert_tail; /* ON CONFLICT (pk) DO ... */
    weir_buf delete_sql; /* DELETE FROM t WHERE (pk) IN ( */
    weir_buf data;       /* encoded rows */
    row_ref *rows;
    uint32_t n_rows, cap_rows;
    uint32_t *order; /* flush scratch */
    weir_buf sql;    /* flush scratch */
    int64_t first_ms; /* arrival of the oldest buffered row */
    /* exactly-once */
    bool ready;       /* prepared transactions of earlier runs dealt with */
    bool restored;
    uint64_t restored_ckpt;
    bool in_txn;
    bool copying;     /* a COPY FROM STDIN is in progress */
    bool copy_failed; /* sending its data failed: end it as failed */
    uint64_t carried_ckpt; /* rows in the buffer are in this checkpoint's
                              state, not in any transaction (0: none) */
    uint64_t *prepared; /* checkpoints with a prepared transaction */
    uint32_t n_prepared, cap_prepared;
    uint64_t *rows_written;
    int broken;
} jdbc_sink;

/*
 * Tests only: WEIR_TEST_PG_SINK_CRASH = "prepare:N" kills the process
 * (SIGKILL) right after its N-th PREPARE TRANSACTION, before the checkpoint
 * can complete; "commit:N" kills it right before its N-th COMMIT PREPARED,
 * after the checkpoint completed. The two windows a kill at a random moment
 * rarely hits, made certain, so recovery's commit and rollback paths are
 * both tested.
 */
static atomic_uint crash_prepares, crash_commits;

static void crash_point(const char *what, atomic_uint *count)
{
    const char *e = getenv("WEIR_TEST_PG_SINK_CRASH");
    size_t n = strlen(what);
    if (!e || strncmp(e, what, n) || e[n] != ':')
        return;
    if (atomic_fetch_add(count, 1) + 1 == (unsigned)atoi(e + n + 1))
        raise(SIGKILL);
}

/* ---- helpers ---- */

static int fail(jdbc_sink *s, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(jdbc_sink *s, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char msg[480];
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    weir_error_set(&s->err, code, "jdbc sink (table '%s'): %s",
                   s->a->table, msg);
    return code;
}

static int oom(jdbc_sink *s) { return fail(s, WEIR_ENOMEM, "out of memory"); }

static int report(weir_op_ctx *ctx, jdbc_sink *s, int rc)
{
    if (rc && ctx)
        return weir_op_fail(ctx, rc, "%s",
                            s->err.message[0] ? s->err.message
                                              : weir_strerror(rc));
    return rc;
}

static int db_fail(jdbc_sink *s, const PGresult *r, const char *what)
{
    char msg[400];
    weir__pg_error(s->conn, r, msg, sizeof msg);
    if (weir__pg_conn_lost(s->conn))
        return fail(s, WEIR_EIO, "%s: lost the connection to %s: %s", what,
                    s->a->conn.where, msg);
    return fail(s, WEIR_EIO, "%s at %s: %s", what, s->a->conn.where, msg);
}

/* Runs a statement that returns no rows. ok_state: a SQLSTATE that counts
 * as success (NULL: none). */
static int exec_cmd(jdbc_sink *s, const char *sql, const char *what,
                    const char *ok_state)
{
    PGresult *r = PQexec(s->conn, sql);
    ExecStatusType st = PQresultStatus(r);
    int rc = 0;
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
        const char *state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
        if (!(ok_state && state && !strcmp(state, ok_state)))
            rc = db_fail(s, r, what);
    }
    PQclear(r);
    return rc;
}

static void gid_of(const jdbc_sink *s, uint32_t subtask, uint64_t ckpt,
                   char *buf, size_t cap)
{
    snprintf(buf, cap, "weir-%016" PRIx64 "-%u-%u-%" PRIu64, s->a->job_hash,
             s->node, subtask, ckpt);
}

/* ---- encoding rows as text ---- */

static int put_hex(weir_buf *b, const uint8_t *p, size_t n)
{
    static const char hx[] = "0123456789abcdef";
    int rc = weir_buf_reserve(b, n * 2);
    for (size_t i = 0; i < n && !rc; i++) {
        char two[2] = {hx[p[i] >> 4], hx[p[i] & 15]};
        rc = weir_buf_put(b, two, 2);
    }
    return rc;
}

/* A value's text, as PostgreSQL reads it, into t (cleared first). */
static int value_text(const weir_batch *b, uint32_t c, uint32_t r,
                      weir_buf *t)
{
    weir_buf_clear(t);
    weir_type_id id = b->cols[c].type.id;
    if (id == WEIR_TYPE_STRING) {
        uint32_t n;
        const char *p = weir_batch_str(b, c, r, &n);
        return weir_buf_put(t, p, n);
    }
    if (id == WEIR_TYPE_BYTES) {
        uint32_t n;
        const char *p = weir_batch_str(b, c, r, &n);
        int rc = weir_buf_put(t, "\\x", 2);
        return rc ? rc : put_hex(t, (const uint8_t *)p, n);
    }
    char v[64];
    size_t n = weir_batch_format_value(b, c, r, v, sizeof v);
    return weir_buf_put(t, v, n);
}

/* COPY text format: backslash, tab, newline and carriage return escaped. */
static int put_copy_text(weir_buf *o, const char *p, size_t n)
{
    int rc = weir_buf_reserve(o, n);
    const char *start = p, *end = p + n;
    for (const char *q = p; q < end && !rc; q++) {
        char e = *q == '\\' ? '\\' : *q == '\t' ? 't' : *q == '\n' ? 'n'
                 : *q == '\r' ? 'r' : 0;
        if (!e)
            continue;
        char two[2] = {'\\', e};
        rc = weir_buf_put(o, start, (size_t)(q - start));
        if (!rc)
            rc = weir_buf_put(o, two, 2);
        start = q + 1;
    }
    return rc ? rc : weir_buf_put(o, start, (size_t)(end - start));
}

static int encode_copy(jdbc_sink *s, const weir_batch *b, uint32_t r,
                       weir_buf *t)
{
    const weir_schema *sc = s->a->schema;
    int rc = 0;
    for (uint32_t c = 0; c < sc->n_fields && !rc; c++) {
        if (c)
            rc = weir_buf_put_u8(&s->data, '\t');
        if (rc)
            break;
        if (weir_batch_is_null(b, c, r)) {
            rc = weir_buf_put(&s->data, "\\N", 2);
            continue;
        }
        rc = value_text(b, c, r, t);
        if (!rc)
            rc = put_copy_text(&s->data, (const char *)t->data, t->len);
    }
    return rc ? rc : weir_buf_put_u8(&s->data, '\n');
}

static int encode_tuple(jdbc_sink *s, const weir_batch *b, uint32_t r,
                        const uint32_t *cols, uint32_t n, weir_buf *t)
{
    int rc = weir_buf_put_u8(&s->data, '(');
    for (uint32_t i = 0; i < n && !rc; i++) {
        uint32_t c = cols ? cols[i] : i;
        if (i)
            rc = weir_buf_put_u8(&s->data, ',');
        if (rc)
            break;
        if (weir_batch_is_null(b, c, r)) {
            rc = weir_buf_put(&s->data, "NULL", 4);
            continue;
        }
        rc = value_text(b, c, r, t);
        if (!rc)
            rc = weir__pg_put_literal(&s->data, (const char *)t->data, t->len);
    }
    return rc ? rc : weir_buf_put_u8(&s->data, ')');
}

/* ---- flushing ---- */

/* Ends the COPY in progress, if any, and reads its outcome. */
static int end_copy(jdbc_sink *s)
{
    if (!s->copying)
        return 0;
    s->copying = false;
    bool ok = PQputCopyEnd(s->conn, s->copy_failed ? "weir: sending rows failed"
                                                   : NULL) == 1;
    int rc = 0;
    PGresult *r;
    while ((r = PQgetResult(s->conn))) {
        if (!rc && PQresultStatus(r) != PGRES_COMMAND_OK)
            rc = db_fail(s, r, "COPY");
        PQclear(r);
    }
    if (!rc && (!ok || s->copy_failed))
        rc = db_fail(s, NULL, "COPY");
    s->copy_failed = false;
    return rc;
}

/*
 * Append mode: the buffered rows as COPY data. exactly-once keeps the COPY
 * open across the flushes of one transaction (rows are invisible until the
 * commit anyway): end_copy() runs before the PREPARE. The other guarantees
 * end it at every flush, so each flush is visible and can be retried.
 */
static int flush_copy(jdbc_sink *s)
{
    if (!s->copying) {
        PGresult *r = PQexec(s->conn, (const char *)s->copy_sql.data);
        if (PQresultStatus(r) != PGRES_COPY_IN) {
            int rc = db_fail(s, r, "COPY");
            PQclear(r);
            return rc;
        }
        PQclear(r);
        s->copying = true;
        s->copy_failed = false;
    }
    const char *p = (const char *)s->data.data;
    size_t left = s->data.len;
    while (left && !s->copy_failed) {
        size_t n = left < COPY_CHUNK ? left : COPY_CHUNK;
        s->copy_failed = PQputCopyData(s->conn, p, (int)n) != 1;
        p += n;
        left -= n;
    }
    if (s->a->g != GUARANTEE_EXACTLY_ONCE || s->copy_failed)
        return end_copy(s);
    return 0;
}

static int cmp_rows(const void *x, const void *y, void *ud)
{
    const jdbc_sink *sk = ud;
    const row_ref *a = &sk->rows[*(const uint32_t *)x];
    const row_ref *b = &sk->rows[*(const uint32_t *)y];
    const uint8_t *d = sk->data.data;
    size_t n = a->key_len < b->key_len ? a->key_len : b->key_len;
    int c = memcmp(d + a->key_off, d + b->key_off, n);
    if (c)
        return c;
    if (a->key_len != b->key_len)
        return a->key_len < b->key_len ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Upsert mode: the last change of each key, deletes then upserts, in
 * statements of at most ROWS_PER_STATEMENT rows, one round trip. */
static int flush_upsert(jdbc_sink *s)
{
    uint32_t n = s->n_rows;
    for (uint32_t i = 0; i < n; i++)
        s->order[i] = i;
    qsort_r(s->order, n, sizeof *s->order, cmp_rows, s);
    /* Keep the last row of each key, in place at the front of order. */
    uint32_t kept = 0;
    const uint8_t *d = s->data.data;
    for (uint32_t i = 0; i < n; i++) {
        const row_ref *a = &s->rows[s->order[i]];
        if (i + 1 < n) {
            const row_ref *b = &s->rows[s->order[i + 1]];
            if (a->key_len == b->key_len &&
                !memcmp(d + a->key_off, d + b->key_off, a->key_len))
                continue;
        }
        s->order[kept++] = s->order[i];
    }
    weir_buf_clear(&s->sql);
    int rc = 0;
    for (int pass = 0; pass < 2 && !rc; pass++) {
        bool del = pass == 0;
        uint32_t in_stmt = 0;
        for (uint32_t i = 0; i < kept && !rc; i++) {
            const row_ref *a = &s->rows[s->order[i]];
            if ((a->kind == WEIR_ROW_DELETE) != del)
                continue;
            if (in_stmt == 0)
                rc = del ? weir_buf_put(&s->sql, s->delete_sql.data,
                                        s->delete_sql.len)
                         : weir_buf_put(&s->sql, s->insert_sql.data,
                                        s->insert_sql.len);
            else
                rc = weir_buf_put_u8(&s->sql, ',');
            if (!rc)
                rc = del ? weir_buf_put(&s->sql, d + a->key_off, a->key_len)
                         : weir_buf_put(&s->sql, d + a->off, a->len);
            if (!rc && ++in_stmt == ROWS_PER_STATEMENT) {
                rc = del ? weir_buf_put(&s->sql, ");", 2)
                         : weir_buf_put(&s->sql, s->upsert_tail.data,
                                        s->upsert_tail.len);
                in_stmt = 0;
            }
        }
        if (!rc && in_stmt)
            rc = del ? weir_buf_put(&s->sql, ");", 2)
                     : weir_buf_put(&s->sql, s->upsert_tail.data,
                                    s->upsert_tail.len);
    }
    if (rc)
        return oom(s);
    if (s->sql.len == 0)
        return 0;
    rc = weir_buf_put_u8(&s->sql, 0);
    if (rc)
        return oom(s);
    return exec_cmd(s, (const char *)s->sql.data, "upsert", NULL);
}

static int flush_once(jdbc_sink *s)
{
    int rc = 0;
    if (s->a->g == GUARANTEE_EXACTLY_ONCE && !s->in_txn) {
        if ((rc = exec_cmd(s, "BEGIN", "BEGIN", NULL)))
            return rc;
        s->in_txn = true;
    }
    return s->a->n_pk ? flush_upsert(s) : flush_copy(s);
}

static void pause_ms(int64_t ms)
{
    struct timespec ts = {.tv_sec = ms / 1000,
                          .tv_nsec = (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

static int reconnect(jdbc_sink *s)
{
    PQfinish(s->conn);
    s->conn = NULL;
    weir_error e = {0};
    int rc = weir__pg_connect(&s->a->conn, &s->conn, &e);
    if (rc)
        return fail(s, rc, "%s", e.message);
    return 0;
}

/* Writes the buffered rows. exactly-once: into this epoch's transaction, no
 * retry. Otherwise: up to max_retries more attempts. */
static int flush(jdbc_sink *s)
{
    if (s->n_rows == 0)
        return 0;
    int rc = flush_once(s);
    if (rc && s->a->g != GUARANTEE_EXACTLY_ONCE) {
        for (int64_t i = 1; rc && i <= s->a->max_retries; i++) {
            int64_t ms = (int64_t)100 << (i - 1 < 7 ? i - 1 : 7);
            fprintf(stderr,
                    "weir: %s; retrying in %" PRId64 " ms (retry %" PRId64
                    " of %" PRId64 ")\n",
                    s->err.message, ms, i, s->a->max_retries);
            pause_ms(ms);
            if (weir__pg_conn_lost(s->conn) && reconnect(s))
                continue;
            weir_error_clear(&s->err);
            rc = flush_once(s);
        }
    }
    if (rc)
        return s->broken = rc;
    if (s->rows_written)
        weir_op_counter_add(s->rows_written, s->n_rows);
    s->n_rows = 0;
    weir_buf_clear(&s->data);
    return 0;
}

/* ---- recovery of earlier runs' prepared transactions ---- */

static int recover(jdbc_sink *s)
{
    if (s->ready)
        return 0;
    s->ready = true;
    if (s->a->g != GUARANTEE_EXACTLY_ONCE)
        return 0;
    char prefix[64];
    snprintf(prefix, sizeof prefix, "weir-%016" PRIx64 "-%u-",
             s->a->job_hash, s->node);
    char pattern[80];
    snprintf(pattern, sizeof pattern, "%s%%", prefix);
    const char *params[1] = {pattern};
    PGresult *r = PQexecParams(
        s->conn,
        "SELECT gid FROM pg_prepared_xacts WHERE database = "
        "current_database() AND gid LIKE $1 ORDER BY gid",
        1, NULL, params, NULL, NULL, 0);
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        int rc = db_fail(s, r, "listing prepared transactions");
        PQclear(r);
        return rc;
    }
    int rc = 0;
    uint32_t committed = 0, rolled = 0;
    for (int i = 0; i < PQntuples(r) && !rc; i++) {
        const char *gid = PQgetvalue(r, i, 0);
        unsigned sub;
        uint64_t ck;
        char tail;
        if (sscanf(gid + strlen(prefix), "%u-%" SCNu64 "%c", &sub, &ck,
                   &tail) != 2)
            continue; /* not one of ours */
        if (sub % s->parallelism != s->subtask)
            continue;
        bool commit = s->restored && ck <= s->restored_ckpt;
        char sql[160];
        snprintf(sql, sizeof sql, "%s PREPARED '%s'",
                 commit ? "COMMIT" : "ROLLBACK", gid);
        /* 42704: gone meanwhile (another run finished it) - fine. */
        rc = exec_cmd(s, sql,
                      commit ? "committing a prepared transaction"
                             : "rolling back a prepared transaction",
                      "42704");
        committed += commit;
        rolled += !commit;
    }
    PQclear(r);
    if (!rc && (committed || rolled))
        fprintf(stderr,
                "weir: jdbc sink '%s' subtask %u: %u prepared transaction%s "
                "of an earlier run committed, %u rolled back\n",
                s->a->table, s->subtask, committed, committed == 1 ? "" : "s",
                rolled);
    return rc;
}

static int commit_upto(jdbc_sink *s, uint64_t ckpt)
{
    uint32_t kept = 0;
    int rc = 0;
    for (uint32_t i = 0; i < s->n_prepared; i++) {
        if (rc || s->prepared[i] > ckpt) {
            s->prepared[kept++] = s->prepared[i];
            continue;
        }
        char gid[96], sql[160];
        gid_of(s, s->subtask, s->prepared[i], gid, sizeof gid);
        snprintf(sql, sizeof sql, "COMMIT PREPARED '%s'", gid);
        crash_point("commit", &crash_commits);
        rc = exec_cmd(s, sql, "COMMIT PREPARED", "42704");
        if (rc)
            s->prepared[kept++] = s->prepared[i];
    }
    s->n_prepared = kept;
    return rc;
}

/* ---- the operator ---- */

static int jdbc_create(void *argp, const weir_op_info *info, void **out)
{
    jdbc_sink *s = weir_calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    s->a = argp;
    s->subtask = info->subtask;
    s->parallelism = info->parallelism ? info->parallelism : 1;
    s->node = info->node_id;
    weir_buf_init(&s->copy_sql);
    weir_buf_init(&s->insert_sql);
    weir_buf_init(&s->upsert_tail);
    weir_buf_init(&s->delete_sql);
    weir_buf_init(&s->data);
    weir_buf_init(&s->sql);
    *out = s;
    return 0;
}

/* Finds the table and its columns; builds the statements' fixed parts. */
static int resolve_table(jdbc_sink *s)
{
    const jdbc_arg *a = s->a;
    const char *params[1] = {a->table};
    PGresult *r = PQexecParams(
        s->conn,
        "SELECT coalesce(to_regclass($1), to_regclass(quote_ident($1)))::oid",
        1, NULL, params, NULL, NULL, 0);
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        int rc = db_fail(s, r, "looking up the table");
        PQclear(r);
        return rc;
    }
    if (PQntuples(r) != 1 || PQgetisnull(r, 0, 0)) {
        PQclear(r);
        return fail(s, WEIR_ENOTFOUND,
                    "option 'table-name': no table '%s' in the database at "
                    "%s (weir writes into an existing table; create it first)",
                    a->table, a->conn.where);
    }
    char oid[32];
    snprintf(oid, sizeof oid, "%s", PQgetvalue(r, 0, 0));
    PQclear(r);
    params[0] = oid;
    r = PQexecParams(s->conn,
                     "SELECT $1::oid::regclass::text UNION ALL (SELECT attname "
                     "FROM pg_attribute WHERE attrelid = $1::oid AND attnum > "
                     "0 AND NOT attisdropped ORDER BY attnum)",
                     1, NULL, params, NULL, NULL, 0);
    if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) < 1) {
        int rc = db_fail(s, r, "reading the table's columns");
        PQclear(r);
        return rc;
    }
    int rc = 0;
    s->qtable = weir_malloc(strlen(PQgetvalue(r, 0, 0)) + 1);
    if (!s->qtable) {
        PQclear(r);
        return oom(s);
    }
    strcpy(s->qtable, PQgetvalue(r, 0, 0));
    int n_db = PQntuples(r) - 1;
    const weir_schema *sc = a->schema;
    const char **cols = weir_calloc(sc->n_fields + 1, sizeof *cols);
    if (!cols) {
        PQclear(r);
        return oom(s);
    }
    for (uint32_t c = 0; c < sc->n_fields && !rc; c++) {
        const char *name = sc->fields[c].name, *hit = NULL;
        int n_ci = 0;
        for (int i = 1; i <= n_db && !hit; i++)
            if (!strcmp(PQgetvalue(r, i, 0), name))
                hit = PQgetvalue(r, i, 0);
        for (int i = 1; i <= n_db && !hit; i++)
            n_ci += !strcasecmp(PQgetvalue(r, i, 0), name);
        for (int i = 1; i <= n_db && !hit && n_ci == 1; i++)
            if (!strcasecmp(PQgetvalue(r, i, 0), name))
                hit = PQgetvalue(r, i, 0);
        if (!hit) {
            weir_buf have;
            weir_buf_init(&have);
            for (int i = 1; i <= n_db; i++)
                weir_buf_printf(&have, "%s%s", i > 1 ? ", " : "",
                                PQgetvalue(r, i, 0));
            weir_buf_put_u8(&have, 0);
            rc = fail(s, WEIR_ENOTFOUND,
                      "column '%s' %s in PostgreSQL table %s (its columns: "
                      "%s)",
                      name,
                      n_ci > 1 ? "matches several columns only by case"
                               : "not found",
                      s->qtable, have.data ? (char *)have.data : "");
            weir_buf_fini(&have);
        }
        cols[c] = hit;
    }
    /* The statements' fixed parts. */
    weir_buf list;
    weir_buf_init(&list);
    for (uint32_t c = 0; c < sc->n_fields && !rc; c++) {
        if (c)
            rc = weir_buf_put(&list, ", ", 2);
        if (!rc)
            rc = weir__pg_put_ident(&list, cols[c]);
    }
    if (!rc)
        rc = weir_buf_printf(&s->copy_sql, "COPY %s (%.*s) FROM STDIN",
                             s->qtable, (int)list.len, (char *)list.data);
    if (!rc)
        rc = weir_buf_put_u8(&s->copy_sql, 0);
    if (!rc)
        rc = weir_buf_printf(&s->insert_sql, "INSERT INTO %s (%.*s) VALUES ",
                             s->qtable, (int)list.len, (char *)list.data);
    if (!rc && a->n_pk) {
        weir_buf pk;
        weir_buf_init(&pk);
        for (uint32_t i = 0; i < a->n_pk && !rc; i++) {
            if (i)
                rc = weir_buf_put(&pk, ", ", 2);
            if (!rc)
                rc = weir__pg_put_ident(&pk, cols[a->pk[i]]);
        }
        if (!rc)
            rc = weir_buf_printf(&s->upsert_tail, " ON CONFLICT (%.*s) DO ",
                                 (int)pk.len, (char *)pk.data);
        bool any = false;
        for (uint32_t c = 0; c < sc->n_fields && !rc; c++) {
            bool is_pk = false;
            for (uint32_t i = 0; i < a->n_pk; i++)
                is_pk |= a->pk[i] == c;
            if (is_pk)
                continue;
            rc = weir_buf_put(&s->upsert_tail, any ? ", " : "UPDATE SET ",
                              any ? 2 : 11);
            if (!rc)
                rc = weir__pg_put_ident(&s->upsert_tail, cols[c]);
            if (!rc)
                rc = weir_buf_put(&s->upsert_tail, " = EXCLUDED.", 12);
            if (!rc)
                rc = weir__pg_put_ident(&s->upsert_tail, cols[c]);
            any = true;
        }
        if (!rc && !any)
            rc = weir_buf_put(&s->upsert_tail, "NOTHING", 7);
        if (!rc)
            rc = weir_buf_put(&s->upsert_tail, ";", 1);
        if (!rc)
            rc = weir_buf_printf(&s->delete_sql,
                                 "DELETE FROM %s WHERE (%.*s) IN (", s->qtable,
                                 (int)pk.len, (char *)pk.data);
        weir_buf_fini(&pk);
    }
    weir_buf_fini(&list);
    weir_free(cols);
    PQclear(r);
    return rc == WEIR_ENOMEM ? oom(s) : rc;
}

static int jdbc_open_impl(jdbc_sink *s, weir_op_ctx *ctx)
{
    s->rows_written = weir_op_counter(ctx, "rows_written");
    /* Transaction ids name the instance among every process's instances
     * (a job run by several processes: cluster/cluster.h): no two
     * processes share one, and a process that comes back finds its own. */
    uint64_t last_id;
    weir__op_instance(ctx, &s->subtask, &s->parallelism, &last_id, NULL);
    weir_error e = {0};
    int rc = weir__pg_connect(&s->a->conn, &s->conn, &e);
    if (rc)
        return fail(s, rc, "%s", e.message);
    return resolve_table(s);
}

static bool flush_allowed(const jdbc_sink *s)
{
    /* exactly-once: not while a prepared transaction of this subtask may
     * hold locks the new rows wait for (see the top of the file). */
    return s->n_prepared == 0;
}

static int maybe_flush(jdbc_sink *s, weir_op_ctx *ctx)
{
    if (s->n_rows == 0 || !flush_allowed(s))
        return 0;
    const jdbc_arg *a = s->a;
    if (a->max_rows > 0 && s->n_rows >= (uint64_t)a->max_rows)
        return flush(s);
    if (a->interval_ms > 0 && weir_op_now_ms(ctx) - s->first_ms >= a->interval_ms)
        return flush(s);
    return 0;
}

static int reserve_row(jdbc_sink *s)
{
    if (s->n_rows == s->cap_rows) {
        uint32_t cap = s->cap_rows ? s->cap_rows * 2 : 1024;
        row_ref *v = weir_realloc(s->rows, cap * sizeof *v);
        uint32_t *o = v ? weir_realloc(s->order, cap * sizeof *o) : NULL;
        if (v)
            s->rows = v;
        if (!o)
            return WEIR_ENOMEM;
        s->order = o;
        s->cap_rows = cap;
    }
    return 0;
}

static int add_row(jdbc_sink *s, const weir_batch *b, uint32_t r,
                   weir_buf *t)
{
    if (reserve_row(s))
        return WEIR_ENOMEM;
    row_ref *ref = &s->rows[s->n_rows];
    ref->kind = b->kind[r] == WEIR_ROW_UPDATE_BEFORE ? WEIR_ROW_DELETE : b->kind[r];
    ref->seq = s->n_rows;
    ref->off = s->data.len;
    int rc;
    if (s->a->n_pk) {
        rc = encode_tuple(s, b, r, NULL, s->a->schema->n_fields, t);
        ref->len = s->data.len - ref->off;
        ref->key_off = s->data.len;
        if (!rc)
            rc = encode_tuple(s, b, r, s->a->pk, s->a->n_pk, t);
        ref->key_len = s->data.len - ref->key_off;
    } else {
        rc = encode_copy(s, b, r, t);
        ref->len = s->data.len - ref->off;
    }
    if (rc)
        return rc;
    s->n_rows++;
    return 0;
}

static int jdbc_process_impl(jdbc_sink *s, weir_op_ctx *ctx,
                             const weir_batch *b)
{
    int rc = recover(s);
    if (rc)
        return rc;
    if (s->n_rows == 0 && b->n_rows)
        s->first_ms = weir_op_now_ms(ctx);
    weir_buf t;
    weir_buf_init(&t);
    for (uint32_t r = 0; r < b->n_rows && !rc; r++) {
        uint8_t k = b->kind[r];
        if (k == WEIR_ROW_UPDATE_BEFORE && !s->a->n_pk)
            continue; /* append mode: the +U that follows is the row */
        if (k == WEIR_ROW_DELETE && !s->a->n_pk) {
            weir_buf_fini(&t);
            return fail(s, WEIR_EUNSUPPORTED,
                        "a -D (delete) row reached the sink, but the table "
                        "has no PRIMARY KEY, so the sink only appends");
        }
        if (add_row(s, b, r, &t))
            rc = oom(s);
    }
    weir_buf_fini(&t);
    return rc ? rc : maybe_flush(s, ctx);
}

/* The state: version, subtask, checkpoint, and the carried rows (kind,
 * row text, key text each). */
static int put_state(jdbc_sink *s, uint64_t ckpt_id, bool carry,
                     weir_buf *out)
{
    int rc = weir_buf_put_u32(out, STATE_VERSION);
    if (!rc)
        rc = weir_buf_put_u32(out, s->subtask);
    if (!rc)
        rc = weir_buf_put_u64(out, ckpt_id);
    if (!rc)
        rc = weir_buf_put_u32(out, carry ? s->n_rows : 0);
    for (uint32_t i = 0; carry && i < s->n_rows && !rc; i++) {
        const row_ref *r = &s->rows[i];
        rc = weir_buf_put_u8(out, r->kind);
        if (!rc)
            rc = weir_buf_put_bytes(out, s->data.data + r->off, r->len);
        if (!rc)
            rc = weir_buf_put_bytes(out, s->data.data + r->key_off,
                                    r->key_len);
    }
    return rc ? oom(s) : 0;
}

static int jdbc_snapshot_impl(jdbc_sink *s, uint64_t ckpt_id, weir_buf *out)
{
    int rc = recover(s);
    if (rc)
        return rc;
    if (s->a->g == GUARANTEE_EXACTLY_ONCE) {
        /*
         * Rows held back while an earlier transaction of this subtask is
         * prepared (its checkpoint's completion has not reached us: the
         * input ended and this is the final snapshot, or checkpoints
         * overlap). Upsert mode: writing them could wait forever for that
         * transaction's row locks, so they go into this checkpoint's state
         * instead ("carried"), and are written once the earlier
         * transaction is committed - in the next transaction, or directly
         * when this checkpoint completes first. Append mode: plain inserts
         * take no row locks; a lock timeout turns a unique index's wait
         * into a failed attempt rather than a hang.
         */
        bool held = s->n_rows && !flush_allowed(s);
        if (held && s->a->n_pk) {
            s->carried_ckpt = ckpt_id;
            return put_state(s, ckpt_id, true, out);
        }
        if (held && (rc = exec_cmd(s, "SET lock_timeout = '10s'",
                                   "SET lock_timeout", NULL)))
            return s->broken = rc;
        rc = flush(s);
        if (!rc)
            rc = end_copy(s);
        if (!rc && held)
            rc = exec_cmd(s, "SET lock_timeout = 0", "SET lock_timeout",
                          NULL);
        if (rc)
            return s->broken = rc;
        if (s->in_txn) {
            if (s->n_prepared == s->cap_prepared) {
                uint32_t cap = s->cap_prepared ? s->cap_prepared * 2 : 8;
                uint64_t *v = weir_realloc(s->prepared, cap * sizeof *v);
                if (!v)
                    return oom(s);
                s->prepared = v;
                s->cap_prepared = cap;
            }
            char gid[96], sql[160];
            gid_of(s, s->subtask, ckpt_id, gid, sizeof gid);
            snprintf(sql, sizeof sql, "PREPARE TRANSACTION '%s'", gid);
            s->in_txn = false;
            if ((rc = exec_cmd(s, sql, "PREPARE TRANSACTION", NULL)))
                return s->broken = rc;
            s->prepared[s->n_prepared++] = ckpt_id;
            s->carried_ckpt = 0; /* carried rows, if any, are in it now */
            crash_point("prepare", &crash_prepares);
        }
    } else if (s->a->g == GUARANTEE_AT_LEAST_ONCE) {
        if ((rc = flush(s)))
            return rc;
    }
    return put_state(s, ckpt_id, false, out);
}

static int jdbc_restore_impl(jdbc_sink *s, weir_cursor *in)
{
    uint32_t version, idx;
    uint64_t ckpt;
    if (weir_cursor_get_u32(in, &version) || version != STATE_VERSION ||
        weir_cursor_get_u32(in, &idx) || weir_cursor_get_u64(in, &ckpt))
        return fail(s, WEIR_ECORRUPT, "the sink's checkpointed state is "
                                      "corrupt or of a newer weir");
    /* Carried rows: the restored checkpoint holds them, no transaction
     * does; they are written again like rows that just arrived. */
    uint32_t n;
    if (weir_cursor_get_u32(in, &n) || n > weir_cursor_left(in) / 3)
        return fail(s, WEIR_ECORRUPT, "the sink's checkpointed state is "
                                      "corrupt");
    for (uint32_t i = 0; i < n; i++) {
        uint8_t kind;
        const void *row, *key;
        size_t row_n, key_n;
        if (weir_cursor_get_u8(in, &kind) ||
            weir_cursor_get_bytes(in, &row, &row_n) ||
            weir_cursor_get_bytes(in, &key, &key_n) ||
            kind > WEIR_ROW_DELETE || !s->a->n_pk)
            return fail(s, WEIR_ECORRUPT, "the sink's checkpointed state is "
                                          "corrupt");
        if (reserve_row(s))
            return oom(s);
        row_ref *r = &s->rows[s->n_rows];
        r->kind = kind;
        r->seq = s->n_rows;
        r->off = s->data.len;
        r->len = row_n;
        r->key_off = s->data.len + row_n;
        r->key_len = key_n;
        if (weir_buf_put(&s->data, row, row_n) ||
            weir_buf_put(&s->data, key, key_n))
            return oom(s);
        s->n_rows++;
    }
    s->restored = true;
    if (ckpt > s->restored_ckpt)
        s->restored_ckpt = ckpt;
    return 0;
}

static int jdbc_complete_impl(jdbc_sink *s, weir_op_ctx *ctx, uint64_t ckpt)
{
    int rc = recover(s);
    if (!rc && s->n_prepared)
        rc = commit_upto(s, ckpt);
    if (!rc && s->carried_ckpt && s->carried_ckpt <= ckpt &&
        flush_allowed(s)) {
        /* The checkpoint that carried rows completed: they are written and
         * committed now (no later checkpoint may come: the final one).
         * Upserts: a restore of that checkpoint writes the same rows. */
        s->carried_ckpt = 0;
        rc = flush(s);
        if (!rc)
            rc = end_copy(s);
        if (!rc && s->in_txn) {
            s->in_txn = false;
            rc = exec_cmd(s, "COMMIT", "COMMIT", NULL);
        }
    }
    if (rc)
        return s->broken = rc;
    return maybe_flush(s, ctx);
}

/* End of input, or a stop: the rows received are final. */
static int jdbc_end_impl(jdbc_sink *s, weir_op_ctx *ctx)
{
    int rc = recover(s);
    if (rc)
        return rc;
    if (s->a->g != GUARANTEE_EXACTLY_ONCE)
        return flush(s);
    /* The final checkpoint prepares and commits what is left. */
    if (weir__op_final_checkpoint(ctx))
        return flush_allowed(s) ? flush(s) : 0;
    /* No checkpoint will follow (the C API without checkpoints). */
    if (!flush_allowed(s))
        return fail(s, WEIR_ESTATE,
                    "the input ended while a prepared transaction waits for "
                    "a checkpoint that will never complete");
    if ((rc = flush(s)) || (rc = end_copy(s)))
        return s->broken = rc;
    if (s->in_txn) {
        s->in_txn = false;
        rc = exec_cmd(s, "COMMIT", "COMMIT", NULL);
    }
    return rc;
}

static int jdbc_open(void *op, weir_op_ctx *ctx)
{
    return report(ctx, op, jdbc_open_impl(op, ctx));
}

static int jdbc_process(void *op, weir_op_ctx *ctx, int input,
                        const weir_batch *b)
{
    (void)input;
    jdbc_sink *s = op;
    if (s->broken)
        return s->broken;
    return report(ctx, s, jdbc_process_impl(s, ctx, b));
}

static int jdbc_watermark(void *op, weir_op_ctx *ctx, weir_ts wm)
{
    (void)wm;
    jdbc_sink *s = op;
    if (s->broken)
        return s->broken;
    int rc = recover(s);
    return report(ctx, s, rc ? rc : maybe_flush(s, ctx));
}

static int jdbc_snapshot(void *op, weir_op_ctx *ctx, uint64_t ckpt_id,
                         weir_buf *out)
{
    jdbc_sink *s = op;
    if (s->broken)
        return s->broken;
    return report(ctx, s, jdbc_snapshot_impl(s, ckpt_id, out));
}

static int jdbc_restore(void *op, weir_op_ctx *ctx, weir_cursor *in)
{
    return report(ctx, op, jdbc_restore_impl(op, in));
}

static int jdbc_checkpoint_complete(void *op, weir_op_ctx *ctx,
                                    uint64_t ckpt_id)
{
    jdbc_sink *s = op;
    if (s->broken)
        return s->broken;
    return report(ctx, s, jdbc_complete_impl(s, ctx, ckpt_id));
}

static int jdbc_finish(void *op, weir_op_ctx *ctx)
{
    jdbc_sink *s = op;
    if (s->broken)
        return s->broken;
    return report(ctx, s, jdbc_end_impl(s, ctx));
}

static void jdbc_close(void *op)
{
    jdbc_sink *s = op;
    if (!s)
        return;
    /* An open transaction is never prepared now: closing the connection
     * rolls it back. Prepared ones wait for the next run's recovery. */
    PQfinish(s->conn);
    weir_free(s->qtable);
    weir_buf_fini(&s->copy_sql);
    weir_buf_fini(&s->insert_sql);
    weir_buf_fini(&s->upsert_tail);
    weir_buf_fini(&s->delete_sql);
    weir_buf_fini(&s->data);
    weir_buf_fini(&s->sql);
    weir_free(s->rows);
    weir_free(s->order);
    weir_free(s->prepared);
    weir_free(s);
}

static const weir_operator_class jdbc_sink_class = {
    .name = "jdbc",
    .open = jdbc_open,
    .process = jdbc_process,
    .watermark = jdbc_watermark,
    .snapshot = jdbc_snapshot,
    .restore = jdbc_restore,
    .checkpoint_complete = jdbc_checkpoint_complete,
    .finish = jdbc_finish,
    .stop = jdbc_finish,
    .close = jdbc_close,
};

/* ---- the spec ---- */

static void jdbc_arg_free(void *p)
{
    jdbc_arg *a = p;
    if (!a)
        return;
    weir__pg_params_fini(&a->conn);
    weir_free(a->table);
    if (a->schema)
        weir_schema_destroy(a->schema);
    weir_free(a->pk);
    weir_free(a);
}

bool weir__jdbc_sink_is(const weir_operator_spec *spec, bool *upsert)
{
    if (!spec || spec->cls != &jdbc_sink_class)
        return false;
    if (upsert)
        *upsert = ((const jdbc_arg *)spec->arg)->n_pk > 0;
    return true;
}

static int parse_guarantee(weir__optset *o, const char *key, guarantee *g)
{
    static const char *const names[] = {"exactly-once", "at-least-once", "none", NULL};
    static const guarantee values[] = {GUARANTEE_EXACTLY_ONCE, GUARANTEE_AT_LEAST_ONCE, GUARANTEE_NONE};
    int i = -1;
    int rc = weir__opt_choice(o, key, names, WEIR__CHOICE_ENUM_NAME, &i);
    if (!rc && i >= 0)
        *g = values[i];
    return rc;
}

int weir__jdbc_sink_spec_opts(const weir_option *opts, size_t n_opts,
                              const weir_schema *schema,
                              const weir_connector_env *env,
                              weir_operator_spec *out, weir_error *err)
{
    static const char *const known[] = {
        "url", "table-name", "username", "password", "driver",
        "sink.buffer-flush.max-rows", "sink.buffer-flush.interval",
        "sink.max-retries", "sink.delivery-guarantee",
        "connection.max-retry-timeout", NULL};
    /* A jdbc table can also be read (scan) or looked up: those options
     * belong to the source side. */
    static const char *const source_side[] = {
        "scan.partition.column", "scan.partition.num",
        "scan.partition.lower-bound", "scan.partition.upper-bound",
        "scan.fetch-size", "scan.auto-commit", "lookup.cache",
        "lookup.cache.max-rows", "lookup.cache.ttl",
        "lookup.cache.caching-missing-key", "lookup.partial-cache.max-rows",
        "lookup.partial-cache.expire-after-write",
        "lookup.partial-cache.expire-after-access",
        "lookup.partial-cache.cache-missing-key", "lookup.max-retries", NULL};
    weir__optset o;
    int rc = weir__optset_init(&o, "jdbc", opts, n_opts, env, err);
    if (rc)
        return rc;
    weir__opt_accept(&o, source_side);
    jdbc_arg *a = weir_calloc(1, sizeof *a);
    if (!a) {
        weir__optset_fini(&o);
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    }
    a->max_rows = 100;
    a->interval_ms = 1000;
    a->max_retries = 3;
    a->g = GUARANTEE_AT_LEAST_ONCE;
    int64_t retry_timeout_ms = 60000;
    const char *v;
    if ((rc = weir__pg_params_options(&o, &a->conn)))
        goto fail;
    if ((v = weir__opt_get(&o, "driver")) && strcmp(v, "org.postgresql.Driver")) {
        rc = weir__opt_fail(&o, (size_t)weir__opt_index(&o, "driver"),
                            WEIR_EUNSUPPORTED,
                            "option 'driver': weir speaks PostgreSQL only "
                            "('org.postgresql.Driver'), found '%s'",
                            v);
        goto fail;
    }
    const char *table = weir__opt_get(&o, "table-name");
    if (!table) {
        rc = weir__opt_missing(&o, "table-name",
                               "(the PostgreSQL table to write)");
        goto fail;
    }
    if (!*table) {
        rc = weir__opt_fail(&o, (size_t)weir__opt_index(&o, "table-name"),
                            WEIR_EINVAL, "option 'table-name' is empty");
        goto fail;
    }
    if ((rc = weir__opt_i64(&o, "sink.buffer-flush.max-rows", &a->max_rows)) ||
        (rc = weir__opt_duration(&o, "sink.buffer-flush.interval",
                                 &a->interval_ms)) ||
        (rc = weir__opt_i64(&o, "sink.max-retries", &a->max_retries)) ||
        (rc = weir__opt_duration(&o, "connection.max-retry-timeout",
                                 &retry_timeout_ms)) ||
        (rc = parse_guarantee(&o, "sink.delivery-guarantee", &a->g)))
        goto fail;
    if (a->max_rows < 0 || a->max_retries < 0 || a->max_retries > 100) {
        const char *key = a->max_rows < 0 ? "sink.buffer-flush.max-rows"
                                          : "sink.max-retries";
        rc = weir__opt_fail(&o, (size_t)weir__opt_index(&o, key), WEIR_EINVAL,
                            "option '%s': expected %s", key,
                            a->max_rows < 0 ? "a count >= 0"
                                            : "a count from 0 to 100");
        goto fail;
    }
    if (a->g == GUARANTEE_EXACTLY_ONCE &&
        !(env && env->checkpointing && env->job_id)) {
        rc = weir__opt_fail(
            &o, (size_t)weir__opt_index(&o, "sink.delivery-guarantee"),
            WEIR_EINVAL,
            "option 'sink.delivery-guarantee': 'exactly-once' commits at "
            "checkpoints: set 'execution.checkpointing.interval' and "
            "'state.checkpoints.dir'");
        goto fail;
    }
    if ((rc = weir__opt_finish(&o, known)))
        goto fail;
    a->table = weir_malloc(strlen(table) + 1);
    a->schema = weir_schema_copy(schema);
    if (!a->table || !a->schema) {
        rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
        goto fail;
    }
    strcpy(a->table, table);
    if (env && env->n_primary_keys) {
        a->pk = weir_calloc(env->n_primary_keys, sizeof *a->pk);
        if (!a->pk) {
            rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
            goto fail;
        }
        for (uint32_t i = 0; i < env->n_primary_keys; i++) {
            int c = weir_schema_find(schema, env->primary_keys[i]);
            if (c < 0) {
                rc = weir_error_set(err, WEIR_ENOTFOUND,
                                    "PRIMARY KEY column '%s' is not a column "
                                    "of the table",
                                    env->primary_keys[i]);
                goto fail;
            }
            a->pk[a->n_pk++] = (uint32_t)c;
        }
    }
    const char *job = env && env->job_id ? env->job_id : "";
    a->job_hash = XXH64(job, strlen(job), 0) ^
                  XXH64(table, strlen(table), 0x9e3779b97f4a7c15ull);
    (void)retry_timeout_ms; /* connect_timeout comes from the URL */
    weir__optset_fini(&o);
    memset(out, 0, sizeof *out);
    out->name = "jdbc";
    out->cls = &jdbc_sink_class;
    out->create = jdbc_create;
    out->arg = a;
    out->free_arg = jdbc_arg_free;
    return 0;
fail:
    weir__optset_fini(&o);
    jdbc_arg_free(a);
    return rc;
}
#endif
