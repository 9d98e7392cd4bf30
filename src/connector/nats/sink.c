/*
 * connector/nats/sink.c - publishing rows to a NATS JetStream subject
 * ('connector' = 'nats' as a sink).
 *
 * Each row becomes one message on 'sink.subject', its payload the row
 * encoded by 'format' (json, csv, raw; debezium-json for a changelog).
 *
 * Delivery ('sink.delivery-guarantee'):
 * - none: messages are published asynchronously; nothing waits for the
 *   server's acknowledgements except the end of the job.
 * - at-least-once (the default): a checkpoint barrier waits until the
 *   server acknowledged every message published before it; a failed
 *   publish fails the checkpoint (and the job). A restore publishes what
 *   came after the checkpoint again.
 * - exactly-once: the rows of each checkpoint epoch are held in the sink
 *   (and in its snapshot) and published when that checkpoint completes,
 *   each with the header Nats-Msg-Id = "<job>-<operator>-<subtask>-<run>-
 *   <checkpoint>-<row>": <job> the hash of the job's checkpoint folder (or
 *   'sink.msg-id-prefix'), <operator> the sink's node in the job graph,
 *   <run> a number drawn when the epoch began, <row> the index of the row
 *   in the epoch. A restore publishes the epochs its snapshot holds again
 *   under the same ids; JetStream drops a message whose id it saw within
 *   the stream's duplicate window (duplicate_window, 2 minutes by default),
 *   so a consumer sees each row once, provided the restart comes within
 *   that window. Epochs after the restored checkpoint were never
 *   published (their checkpoint did not complete), and get ids of their
 *   own run.
 */
#ifdef WEIR_HAVE_NATS

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "connector/nats/nats_internal.h"
#include "runtime/checkpoint.h"

#define STATE_VERSION 1
#define ACK_WAIT_MS 60000
#define MAX_IN_FLIGHT 4096

typedef enum nsink_guarantee {
    NSINK_NONE = 0,
    NSINK_AT_LEAST_ONCE,
    NSINK_EXACTLY_ONCE,
} nsink_guarantee;

typedef struct nsink_arg {
    weir__nats_conn conn;
    char *subject;
    nsink_guarantee guarantee;
    bool raw;
    weir_format_options fmt;
    char *null_literal;
    char *id_prefix; /* <job> of the message ids */
} nsink_arg;

/* The rows of one checkpoint epoch (exactly-once). */
typedef struct epoch {
    uint64_t ckpt;   /* the checkpoint that closes it */
    char *id_base;   /* "<job>-<operator>-<subtask>-<run>" */
    weir_buf data;   /* the payloads, each as weir_buf_put_bytes */
    uint64_t n;
} epoch;

typedef struct nsink {
    const nsink_arg *a;
    const weir_op_info *info;
    uint32_t subtask;
    uint32_t node;
    natsConnection *nc;
    jsCtx *js;
    weir_encoder *enc;
    weir_buf buf;
    /* acknowledgements, counted by the client's thread */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t sent, acked, failed, duplicates;
    char first_error[256];
    /* exactly-once */
    epoch cur;
    uint64_t next_ckpt; /* the checkpoint that will close cur */
    epoch *pending;     /* closed, not yet published; by ckpt */
    uint32_t n_pending, cap_pending;
    uint64_t *c_acked, *c_dups; /* the operator's counters */
    weir_op_ctx *ctx;
} nsink;

/* ---- publishing ---- */

static void on_ack(jsCtx *js, natsMsg *msg, jsPubAck *pa, jsPubAckErr *pae,
                   void *closure)
{
    (void)js;
    nsink *s = closure;
    pthread_mutex_lock(&s->mu);
    if (pa) {
        s->acked++;
        if (pa->Duplicate)
            s->duplicates++;
    } else {
        s->failed++;
        if (!s->first_error[0] && pae && pae->Err == NATS_NO_RESPONDERS)
            snprintf(s->first_error, sizeof s->first_error,
                     "no stream captures the subject (no responders)");
        else if (!s->first_error[0])
            snprintf(s->first_error, sizeof s->first_error, "%s",
                     pae && pae->ErrText ? pae->ErrText
                     : pae ? natsStatus_GetText(pae->Err)
                           : "no acknowledgement");
    }
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    natsMsg_Destroy(msg);
}

static int ensure_conn(nsink *s)
{
    if (s->js)
        return 0;
    jsOptions jo;
    jsOptions_Init(&jo);
    jo.PublishAsync.AckHandler = on_ack;
    jo.PublishAsync.AckHandlerClosure = s;
    jo.PublishAsync.MaxPending = MAX_IN_FLIGHT;
    jo.PublishAsync.StallWait = ACK_WAIT_MS;
    weir_error err = {0};
    int rc = weir__nats_connect(&s->a->conn, &jo, &s->nc, &s->js, &err);
    if (rc)
        return weir_op_fail(s->ctx, rc, "nats sink: %s", err.message);
    return 0;
}

static int publish(nsink *s, const void *data, size_t len, const char *msg_id)
{
    int rc = ensure_conn(s);
    if (rc)
        return rc;
    jsPubOptions po;
    jsPubOptions_Init(&po);
    po.MsgId = msg_id;
    natsStatus st;
    pthread_mutex_lock(&s->mu);
    s->sent++;
    pthread_mutex_unlock(&s->mu);
    st = js_PublishAsync(s->js, s->a->subject, data, (int)len, &po);
    if (st != NATS_OK) {
        pthread_mutex_lock(&s->mu);
        s->sent--;
        pthread_mutex_unlock(&s->mu);
        char why[300];
        return weir_op_fail(s->ctx, WEIR_EIO,
                            "nats sink: cannot publish to '%s': %s",
                            s->a->subject,
                            weir__nats_why(st, 0, why, sizeof why));
    }
    return 0;
}

/* Waits until the server acknowledged everything published; fails on the
 * first message it refused. */
static int wait_acks(nsink *s)
{
    if (!s->js)
        return 0;
    jsPubOptions po;
    jsPubOptions_Init(&po);
    po.MaxWait = ACK_WAIT_MS;
    natsStatus st = js_PublishAsyncComplete(s->js, &po);
    /* the handler of the last acknowledgement may still be running */
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 5;
    pthread_mutex_lock(&s->mu);
    while (s->acked + s->failed < s->sent &&
           pthread_cond_timedwait(&s->cv, &s->mu, &until) == 0)
        ;
    bool missing = s->acked + s->failed < s->sent;
    uint64_t failed = s->failed, dups = s->duplicates, acked = s->acked;
    char first[256];
    snprintf(first, sizeof first, "%s", s->first_error);
    pthread_mutex_unlock(&s->mu);
    if (s->c_dups) {
        weir_op_counter_set(s->c_acked, acked);
        weir_op_counter_set(s->c_dups, dups);
    }
    if (failed)
        return weir_op_fail(s->ctx, WEIR_EIO,
                            "nats sink: %" PRIu64 " message%s to '%s' not "
                            "stored: %s",
                            failed, failed == 1 ? "" : "s", s->a->subject,
                            first);
    if (st != NATS_OK || missing) {
        char why[300];
        return weir_op_fail(s->ctx, WEIR_EIO,
                            "nats sink: no acknowledgement from the server "
                            "for messages to '%s' within %d s: %s",
                            s->a->subject, ACK_WAIT_MS / 1000,
                            st != NATS_OK
                                ? weir__nats_why(st, 0, why, sizeof why)
                                : "the acknowledgements did not arrive");
    }
    return 0;
}

static void epoch_fini(epoch *e)
{
    weir_free(e->id_base);
    weir_buf_fini(&e->data);
    memset(e, 0, sizeof *e);
}

static int epoch_begin(nsink *s, epoch *e)
{
    char base[128];
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t seed[4] = {(uint64_t)ts.tv_sec, (uint64_t)ts.tv_nsec,
                        (uint64_t)getpid(), (uint64_t)(uintptr_t)e};
    uint32_t run = (uint32_t)XXH64(seed, sizeof seed, s->subtask);
    snprintf(base, sizeof base, "%s-%" PRIu32 "-%" PRIu32 "-%08" PRIx32,
             s->a->id_prefix, s->node, s->subtask, run);
    memset(e, 0, sizeof *e);
    weir_buf_init(&e->data);
    if (!(e->id_base = weir_strdup(base)))
        return weir_op_fail(s->ctx, WEIR_ENOMEM, "out of memory");
    return 0;
}

/* Publishes every row of e under its ids and waits for the server. */
static int publish_epoch(nsink *s, const epoch *e)
{
    weir_cursor c;
    weir_cursor_init(&c, e->data.data, e->data.len);
    char id[200];
    int rc = 0;
    for (uint64_t i = 0; i < e->n && !rc; i++) {
        const void *p;
        size_t len;
        if (weir_cursor_get_bytes(&c, &p, &len))
            return weir_op_fail(s->ctx, WEIR_ECORRUPT,
                                "nats sink: the rows of checkpoint %" PRIu64
                                " are damaged",
                                e->ckpt);
        snprintf(id, sizeof id, "%s-%" PRIu64 "-%" PRIu64, e->id_base, e->ckpt,
                 i);
        rc = publish(s, p, len, id);
    }
    if (!rc)
        rc = wait_acks(s);
    return rc;
}

/* ---- operator ---- */

static int nsink_create(void *argp, const weir_op_info *info, void **out)
{
    nsink *s = weir_calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    s->a = argp;
    s->info = info;
    s->subtask = info->subtask;
    s->node = info->node_id;
    s->next_ckpt = 1;
    weir_buf_init(&s->buf);
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    *out = s;
    return 0;
}

static int nsink_open(void *op, weir_op_ctx *ctx)
{
    nsink *s = op;
    s->ctx = ctx;
    const weir_op_info *info = weir_op_info_of(ctx);
    const weir_schema *schema = info->input_schemas[0];
    weir_error err = {0};
    int rc;
    if (!s->a->raw &&
        (rc = weir_encoder_create(&s->a->fmt, schema, &s->enc, &err)))
        return weir_op_fail(ctx, rc, "nats sink: %s", err.message);
    s->c_acked = weir_op_counter(ctx, "messages_acknowledged");
    s->c_dups = weir_op_counter(ctx, "duplicates_dropped");
    if (!s->c_acked || !s->c_dups)
        s->c_acked = s->c_dups = NULL;
    if ((rc = ensure_conn(s)))
        return rc;
    if (s->a->guarantee == NSINK_EXACTLY_ONCE && !s->cur.id_base)
        return epoch_begin(s, &s->cur);
    return 0;
}

static int nsink_process(void *op, weir_op_ctx *ctx, int input,
                         const weir_batch *b)
{
    (void)input;
    nsink *s = op;
    s->ctx = ctx;
    const nsink_arg *a = s->a;
    for (uint32_t r = 0; r < b->n_rows; r++) {
        weir_row_kind kind = (weir_row_kind)b->kind[r];
        if (kind != WEIR_ROW_INSERT &&
            (a->raw || !weir_format_is_changelog(a->fmt.kind)))
            return weir_op_fail(ctx, WEIR_EUNSUPPORTED,
                                "nats sink: a %s row reached an append-only "
                                "sink (subject '%s'); write a changelog with "
                                "'format' = 'debezium-json'",
                                weir_row_kind_name(kind), a->subject);
        weir_buf_clear(&s->buf);
        if (a->raw) {
            if (!weir_batch_is_null(b, 0, r)) {
                uint32_t len;
                const char *p = weir_batch_str(b, 0, r, &len);
                if (weir_buf_put(&s->buf, p, len))
                    return weir_op_fail(ctx, WEIR_ENOMEM, "out of memory");
            }
        } else {
            weir_error err = {0};
            int rc = weir_encoder_encode(s->enc, b, r, &s->buf, &err);
            if (rc)
                return weir_op_fail(ctx, rc, "nats sink: %s", err.message);
            if (s->buf.len && s->buf.data[s->buf.len - 1] == '\n')
                s->buf.len--; /* a message is one record, no line break */
        }
        int rc;
        if (a->guarantee == NSINK_EXACTLY_ONCE) {
            if (weir_buf_put_bytes(&s->cur.data, s->buf.data, s->buf.len))
                return weir_op_fail(ctx, WEIR_ENOMEM, "out of memory");
            s->cur.n++;
        } else if ((rc = publish(s, s->buf.data, s->buf.len, NULL))) {
            return rc;
        }
    }
    return 0;
}

static int write_epoch(weir_buf *out, const epoch *e)
{
    int rc = weir_buf_put_u64(out, e->ckpt);
    if (!rc)
        rc = weir_buf_put_str(out, e->id_base);
    if (!rc)
        rc = weir_buf_put_u64(out, e->n);
    if (!rc)
        rc = weir_buf_put_bytes(out, e->data.data, e->data.len);
    return rc;
}

static int nsink_snapshot(void *op, weir_op_ctx *ctx, uint64_t ckpt_id,
                          weir_buf *out)
{
    nsink *s = op;
    s->ctx = ctx;
    int rc;
    if (s->a->guarantee == NSINK_AT_LEAST_ONCE && (rc = wait_acks(s)))
        return rc;
    if (s->a->guarantee == NSINK_EXACTLY_ONCE) {
        if (s->cur.n) {
            if (s->n_pending == s->cap_pending) {
                uint32_t cap = s->cap_pending ? s->cap_pending * 2 : 4;
                epoch *v = weir_realloc(s->pending, cap * sizeof *v);
                if (!v)
                    return weir_op_fail(ctx, WEIR_ENOMEM, "out of memory");
                s->pending = v;
                s->cap_pending = cap;
            }
            s->cur.ckpt = ckpt_id;
            s->pending[s->n_pending++] = s->cur;
            if ((rc = epoch_begin(s, &s->cur)))
                return rc;
        }
        s->next_ckpt = ckpt_id + 1;
    }
    rc = weir_buf_put_u32(out, STATE_VERSION);
    if (!rc)
        rc = weir_buf_put_u32(out, s->n_pending);
    for (uint32_t i = 0; i < s->n_pending && !rc; i++)
        rc = write_epoch(out, &s->pending[i]);
    return rc ? weir_op_fail(ctx, WEIR_ENOMEM, "out of memory") : 0;
}

static int nsink_checkpoint_complete(void *op, weir_op_ctx *ctx,
                                     uint64_t ckpt_id)
{
    nsink *s = op;
    s->ctx = ctx;
    uint32_t kept = 0;
    int rc = 0;
    for (uint32_t i = 0; i < s->n_pending; i++) {
        epoch *e = &s->pending[i];
        if (!rc && e->ckpt <= ckpt_id && !(rc = publish_epoch(s, e))) {
            epoch_fini(e);
            continue;
        }
        s->pending[kept++] = *e;
    }
    s->n_pending = kept;
    return rc;
}

static int nsink_restore(void *op, weir_op_ctx *ctx, weir_cursor *in)
{
    nsink *s = op;
    s->ctx = ctx;
    uint32_t version, n;
    if (weir_cursor_get_u32(in, &version) || version != STATE_VERSION ||
        weir_cursor_get_u32(in, &n))
        return weir_op_fail(ctx, WEIR_ECORRUPT,
                            "nats sink: the snapshot is corrupt or of another "
                            "version");
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        epoch e = {0};
        const void *p;
        size_t len;
        weir_buf_init(&e.data);
        if (weir_cursor_get_u64(in, &e.ckpt) ||
            weir_cursor_get_str(in, &e.id_base) ||
            weir_cursor_get_u64(in, &e.n) ||
            weir_cursor_get_bytes(in, &p, &len) || !e.id_base) {
            epoch_fini(&e);
            return weir_op_fail(ctx, WEIR_ECORRUPT,
                                "nats sink: the snapshot is corrupt");
        }
        if (weir_buf_put(&e.data, p, len))
            rc = weir_op_fail(ctx, WEIR_ENOMEM, "out of memory");
        /* The restored checkpoint completed: what it holds is published now,
         * under the ids it had; the server drops those it already has. */
        if (!rc && s->a->guarantee == NSINK_EXACTLY_ONCE)
            rc = publish_epoch(s, &e);
        if (e.ckpt + 1 > s->next_ckpt)
            s->next_ckpt = e.ckpt + 1;
        epoch_fini(&e);
    }
    return rc;
}

/* End of input, or a stop: with a final checkpoint coming, it publishes
 * what is held (exactly-once); otherwise publish and wait now. */
static int nsink_finish(void *op, weir_op_ctx *ctx)
{
    nsink *s = op;
    s->ctx = ctx;
    if (s->a->guarantee != NSINK_EXACTLY_ONCE)
        return wait_acks(s);
    if (weir__op_final_checkpoint(ctx) || !s->cur.n)
        return 0;
    s->cur.ckpt = s->next_ckpt;
    int rc = publish_epoch(s, &s->cur);
    if (!rc) {
        epoch_fini(&s->cur);
        rc = epoch_begin(s, &s->cur);
    }
    return rc;
}

static void nsink_close(void *op)
{
    nsink *s = op;
    if (!s)
        return;
    if (s->js) {
        /* What a checkpoint did not cover is published again by the next
         * run; the wait only keeps acknowledgements still in flight (a job
         * that failed) from reaching a freed sink. */
        pthread_mutex_lock(&s->mu);
        bool in_flight = s->acked + s->failed < s->sent;
        pthread_mutex_unlock(&s->mu);
        if (in_flight) {
            jsPubOptions po;
            jsPubOptions_Init(&po);
            po.MaxWait = 2000;
            js_PublishAsyncComplete(s->js, &po);
        }
        jsCtx_Destroy(s->js);
    }
    if (s->nc) {
        natsConnection_Close(s->nc);
        natsConnection_Destroy(s->nc);
    }
    epoch_fini(&s->cur);
    for (uint32_t i = 0; i < s->n_pending; i++)
        epoch_fini(&s->pending[i]);
    weir_free(s->pending);
    weir_encoder_destroy(s->enc);
    weir_buf_fini(&s->buf);
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
    weir_free(s);
}

static const weir_operator_class nats_sink_class = {
    .name = "nats",
    .open = nsink_open,
    .process = nsink_process,
    .snapshot = nsink_snapshot,
    .restore = nsink_restore,
    .checkpoint_complete = nsink_checkpoint_complete,
    .finish = nsink_finish,
    .stop = nsink_finish,
    .close = nsink_close,
};

/* ---- options ---- */

static void arg_free(void *p)
{
    nsink_arg *a = p;
    if (!a)
        return;
    weir__nats_conn_fini(&a->conn);
    weir_free(a->subject);
    weir_free(a->null_literal);
    weir_free(a->id_prefix);
    weir_free(a);
}

/* A subject to publish to: tokens separated by '.', no wildcards. */
static bool subject_ok(const char *s)
{
    size_t n = strlen(s), tok = 0;
    if (!n || s[n - 1] == '.')
        return false;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == ' ' || s[i] == '\t' || s[i] == '*' || s[i] == '>')
            return false;
        if (s[i] == '.') {
            if (!tok)
                return false;
            tok = 0;
        } else {
            tok++;
        }
    }
    return true;
}

static int read_options(weir__optset *o, nsink_arg *a, const weir_schema *schema,
                        const weir_connector_env *env)
{
    int rc = weir__nats_conn_read(o, &a->conn);
    if (rc)
        return rc;
    const char *subj = weir__opt_get(o, "sink.subject");
    if (!subj)
        return weir__opt_missing(o, "sink.subject",
                                 " (the subject the rows are published to)");
    if (!subject_ok(subj))
        return weir__opt_fail(o, (size_t)weir__opt_index(o, "sink.subject"),
                              WEIR_EINVAL,
                              "option 'sink.subject': '%s' is not a subject to "
                              "publish to (tokens separated by '.', no "
                              "wildcards '*' or '>')",
                              subj);
    if (!(a->subject = weir_strdup(subj)))
        return weir_error_set(o->err, WEIR_ENOMEM, "out of memory");
    static const char *const guarantees[] = {"none", "at-least-once", "exactly-once", NULL}; /* nsink_guarantee's order */
    const char *gk = "sink.delivery-guarantee";
    int g = NSINK_AT_LEAST_ONCE;
    if ((rc = weir__opt_choice(o, gk, guarantees, WEIR__CHOICE_ANY_CASE, &g)))
        return rc;
    a->guarantee = (nsink_guarantee)g;
    const char *gv = weir__opt_get(o, gk); /* as written, for messages */
    const char *pk = "sink.msg-id-prefix";
    const char *prefix = weir__opt_get(o, pk);
    if (prefix && (!*prefix || strpbrk(prefix, " \t\r\n")))
        return weir__opt_fail(o, (size_t)weir__opt_index(o, pk), WEIR_EINVAL,
                              "option '%s': must be a non-empty word without "
                              "spaces, found '%s'",
                              pk, prefix);
    if (a->guarantee == NSINK_EXACTLY_ONCE) {
        if (!(env && env->checkpointing))
            return weir__opt_fail(o, (size_t)weir__opt_index(o, gk),
                                  WEIR_EINVAL,
                                  "option '%s': 'exactly-once' publishes the "
                                  "rows of each checkpoint when it completes, "
                                  "and this job takes no checkpoints (set "
                                  "'execution.checkpointing.interval')",
                                  gk);
        char h[17];
        if (!prefix) {
            const char *job = env->job_id ? env->job_id : "weir";
            snprintf(h, sizeof h, "%016" PRIx64,
                     (uint64_t)XXH64(job, strlen(job), 0));
            prefix = h;
        }
        if (!(a->id_prefix = weir_strdup(prefix)))
            return weir_error_set(o->err, WEIR_ENOMEM, "out of memory");
    } else if (prefix) {
        return weir__opt_fail(o, (size_t)weir__opt_index(o, pk), WEIR_EINVAL,
                              "option '%s' names the message ids of "
                              "'sink.delivery-guarantee' = 'exactly-once'; "
                              "'%s' publishes without ids",
                              pk, gv ? gv : "at-least-once");
    }
    int fi = weir__opt_index(o, "format");
    if (fi < 0)
        return weir__opt_missing(o, "format",
                                 " ('json', 'csv', 'raw' or 'debezium-json')");
    if (!strcmp(o->opts[fi].value, "raw")) {
        o->used[fi] = true;
        a->raw = true;
        weir__opt_get(o, "raw.charset");
        if (schema->n_fields != 1 ||
            !weir_type_is_string(schema->fields[0].type.id))
            return weir__opt_fail(o, (size_t)fi, WEIR_EINVAL,
                                  "option 'format': format 'raw' writes "
                                  "exactly one STRING or BYTES column as the "
                                  "message, but the table has %u column%s",
                                  schema->n_fields,
                                  schema->n_fields == 1 ? " of another type"
                                                        : "s");
        return 0;
    }
    bool ignore = false;
    if ((rc = weir__opt_format(o, true, &a->fmt, &ignore)))
        return rc;
    if (a->fmt.csv_null_literal) {
        if (!(a->null_literal = weir_strdup(a->fmt.csv_null_literal)))
            return weir_error_set(o->err, WEIR_ENOMEM, "out of memory");
        a->fmt.csv_null_literal = a->null_literal;
    }
    return 0;
}

int weir__nats_sink_spec_opts(const weir_option *opts, size_t n_opts,
                              const weir_schema *schema,
                              const weir_connector_env *env,
                              weir_operator_spec *out, weir_error *err)
{
    static const char *const known[] = {
        WEIR__NATS_CONN_OPTIONS, "sink.subject", "sink.delivery-guarantee",
        "sink.msg-id-prefix", "format", NULL};
    /* a table's WITH clause carries the options of both sides */
    static const char *const source_side[] = {
        "stream", "subjects", "scan.startup.mode", "scan.startup.sequence",
        "scan.startup.timestamp-millis", "scan.bounded.mode", NULL};
    memset(out, 0, sizeof *out);
    if (!schema)
        return weir_error_set(err, WEIR_EINVAL, "a NATS sink needs a schema");
    nsink_arg *a = weir_calloc(1, sizeof *a);
    if (!a)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    weir__optset o;
    int rc = weir__optset_init(&o, "nats", opts, n_opts, env, err);
    if (!rc) {
        weir__opt_accept(&o, source_side);
        rc = read_options(&o, a, schema, env);
    }
    if (!rc)
        rc = weir__opt_finish(&o, known);
    if (!rc && !a->raw) {
        /* the format against the schema, now */
        weir_encoder *e = NULL;
        rc = weir_encoder_create(&a->fmt, schema, &e, err);
        weir_encoder_destroy(e);
    }
    weir__optset_fini(&o);
    if (rc) {
        arg_free(a);
        return rc;
    }
    out->name = "nats";
    out->cls = &nats_sink_class;
    out->create = nsink_create;
    out->arg = a;
    out->free_arg = arg_free;
    return 0;
}

int weir__nats_sink_accepts_changelog(const weir_operator_spec *spec,
                                      const char **why_not)
{
    if (spec->cls != &nats_sink_class)
        return -1;
    const nsink_arg *a = spec->arg;
    if (!a->raw && weir_format_is_changelog(a->fmt.kind))
        return 1;
    if (why_not)
        *why_not = "the nats sink is append-only with this format; use "
                   "'format' = 'debezium-json' to write a changelog";
    return 0;
}

#endif
