/*
 * cluster/exchange.c - the writer and the reader of a repartition topic
 * (exchange.h for the message format).
 *
 * Writer invariants: the rows of one key go to one partition in the order
 * they came; a watermark marker follows every row it covers (markers and
 * rows of one producer go through one librdkafka producer with one request
 * in flight, so a partition keeps their order); an END marker is the last
 * message of a producer in every partition; an IDLE or ACTIVE marker
 * follows the watermarks sent before the subtask's status changed.
 *
 * Reader invariants: nothing is read on until every producer of the job
 * has been heard from in the partition (a writer's first record is its
 * status, sent before anything else): the records read before wait, in
 * order, as an operator inside a process waits for the first message of
 * every input channel before it processes any data, so that no row is read
 * against a watermark held at its start by a producer that has not started
 * yet (a process that starts later changes no late-data decision). The
 * reported watermark is the minimum over the producers of the job that are
 * active (one that ended counts as +infinity; one idle is left out, as an
 * idle channel is inside a process), or, when every
 * producer that has not ended is idle, the maximum of their watermarks,
 * and then the split says it is idle; it never goes backwards, and covers
 * exactly the rows returned before it was reported: a read stops at a
 * marker that raises it or changes the split's idleness. The split ends
 * when every producer's END has been read. The splits of one reader
 * subtask read in step: none reads past a watermark that another has not
 * reached yet (r_ahead).
 */
#ifdef WEIR_HAVE_KAFKA

#include <librdkafka/rdkafka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/exchange.h"
#include "runtime/runtime.h"

#define HDR_LEN 10
/* A record stays under the 1 MB that Kafka brokers accept by default
 * (message.max.bytes), unless one row alone is larger. */
#define MAX_RECORD_BYTES (900 * 1024)
#define POLL_MS 20

typedef struct xarg {
    weir__exchange_spec x;
    char *topic, *servers;
} xarg;

static void xarg_free(void *p)
{
    xarg *a = p;
    if (!a)
        return;
    weir_free(a->topic);
    weir_free(a->servers);
    weir_free(a);
}

static xarg *xarg_copy(const weir__exchange_spec *x)
{
    xarg *a = weir_calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->x = *x;
    a->topic = weir_strdup(x->topic);
    a->servers = weir_strdup(x->conf.servers);
    if (!a->topic || !a->servers) {
        xarg_free(a);
        return NULL;
    }
    a->x.topic = a->topic;
    a->x.conf.servers = a->servers;
    return a;
}

static rd_kafka_conf_t *base_conf(const char *servers, char *why, size_t cap)
{
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    if (!conf)
        return NULL;
    if (rd_kafka_conf_set(conf, "bootstrap.servers", servers, why, cap) !=
        RD_KAFKA_CONF_OK) {
        rd_kafka_conf_destroy(conf);
        return NULL;
    }
    rd_kafka_conf_set(conf, "log_level", "3", why, cap);
    return conf;
}

static void put_hdr(uint8_t *h, uint8_t type, uint32_t producer, uint32_t epoch)
{
    h[0] = 'W';
    h[1] = type;
    for (int i = 0; i < 4; i++) {
        h[2 + i] = (uint8_t)(producer >> (8 * i));
        h[6 + i] = (uint8_t)(epoch >> (8 * i));
    }
}

/* ---- the topic check ---- */

int weir__cluster_topic_partitions(rd_kafka_t *rk, const char *topic,
                                   const char *what, int32_t *count,
                                   weir_error *err)
{
    *count = 0;
    rd_kafka_topic_t *rkt = rd_kafka_topic_new(rk, topic, NULL);
    const struct rd_kafka_metadata *md = NULL;
    rd_kafka_resp_err_t e = rkt ? rd_kafka_metadata(rk, 0, rkt, &md, 10000)
                                : RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC;
    int rc = 0;
    if (e != RD_KAFKA_RESP_ERR_NO_ERROR)
        rc = weir_error_set(err, WEIR_EIO,
                            "weir.cluster.bootstrap-servers: cannot read "
                            "the metadata of %s '%s': %s",
                            what, topic, rd_kafka_err2str(e));
    else if (md->topic_cnt == 1 && !md->topics[0].err)
        *count = md->topics[0].partition_cnt;
    if (md)
        rd_kafka_metadata_destroy(md);
    if (rkt)
        rd_kafka_topic_destroy(rkt);
    return rc;
}

int weir__exchange_check_topic(const weir__exchange_spec *x, weir_error *err)
{
    char why[512];
    rd_kafka_conf_t *conf = base_conf(x->conf.servers, why, sizeof why);
    if (!conf)
        return weir_error_set(err, WEIR_EINVAL,
                              "weir.cluster.bootstrap-servers: %s", why);
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, why, sizeof why);
    if (!rk) {
        rd_kafka_conf_destroy(conf);
        return weir_error_set(err, WEIR_EIO, "weir.cluster: %s", why);
    }
    int32_t count = 0;
    int rc = weir__cluster_topic_partitions(rk, x->topic, "repartition topic",
                                            &count, err);
    if (!rc && (uint32_t)count != x->conf.partitions)
        rc = weir_error_set(
            err, WEIR_EINVAL,
            "weir.cluster.repartition-partitions: repartition topic '%s' "
            "must exist with %u partitions (one per key-group range), "
            "found %s%d",
            x->topic, x->conf.partitions, count ? "" : "no topic, ", count);
    rd_kafka_destroy(rk);
    return rc;
}

/* ---- the writer ---- */

typedef struct writer {
    const xarg *a;
    rd_kafka_t *rk;
    rd_kafka_topic_t *rkt;
    uint32_t producer;
    uint32_t n_producers; /* of the job: processes * parallelism */
    uint32_t *part;  /* partition of each row of the batch */
    uint32_t *idx;   /* rows by partition */
    uint32_t *count; /* rows per partition, then offsets */
    uint32_t cap_rows;
    weir_batch *scratch;
    weir_buf msg;
    weir_buf bigkey;
    weir_ts sent_wm;
    bool idle_sent;   /* the last status marker sent was IDLE */
    bool status_sent; /* the first status (the readers hear of it) */
    /* rows a record holds at most: the batch size, less after a batch of
     * long rows made a record larger than MAX_RECORD_BYTES */
    uint32_t split_max;
    bool ended;
    /* set by the delivery report (the writer's thread, in rd_kafka_poll) */
    rd_kafka_resp_err_t failed;
} writer;

static void on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *m,
                        void *opaque)
{
    (void)rk;
    writer *w = opaque;
    if (m->err && !w->failed)
        w->failed = m->err;
}

static int w_create(void *arg, const weir_op_info *info, void **out)
{
    writer *w = weir_calloc(1, sizeof *w);
    if (!w)
        return WEIR_ENOMEM;
    w->a = arg;
    w->producer = w->a->x.conf.index * info->parallelism + info->subtask;
    w->n_producers = w->a->x.conf.processes * info->parallelism;
    w->sent_wm = WEIR_TS_MIN;
    weir_buf_init(&w->msg);
    weir_buf_init(&w->bigkey);
    *out = w;
    return 0;
}

static int w_fail(weir_op_ctx *ctx, writer *w, const char *what)
{
    return weir_op_fail(ctx, WEIR_EIO, "repartition topic '%s': %s",
                        w->a->x.topic, what);
}

static int w_status(void *op, weir_op_ctx *ctx, bool idle);

static int w_open(void *op, weir_op_ctx *ctx)
{
    writer *w = op;
    char why[512];
    rd_kafka_conf_t *conf = base_conf(w->a->x.conf.servers, why, sizeof why);
    if (!conf)
        return w_fail(ctx, w, why);
    /* One request in flight per broker: a partition keeps the order in
     * which rows and markers were produced, retries included. */
    rd_kafka_conf_set(conf, "max.in.flight.requests.per.connection", "1", why,
                      sizeof why);
    rd_kafka_conf_set(conf, "linger.ms", "5", why, sizeof why);
    rd_kafka_conf_set(conf, "message.max.bytes", "67108864", why, sizeof why);
    rd_kafka_conf_set_opaque(conf, w);
    rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
    w->rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, why, sizeof why);
    if (!w->rk) {
        rd_kafka_conf_destroy(conf);
        return w_fail(ctx, w, why);
    }
    w->rkt = rd_kafka_topic_new(w->rk, w->a->x.topic, NULL);
    uint32_t R = w->a->x.conf.partitions;
    w->count = weir_calloc(R + 1, sizeof *w->count);
    w->scratch =
        weir_batch_create(w->a->x.schema, weir_op_info_of(ctx)->batch_size);
    if (!w->rkt || !w->count || !w->scratch)
        return w_fail(ctx, w, "out of memory");
    w->split_max = w->scratch->capacity;
    weir__op_on_status(ctx, w_status);
    return 0;
}

/* Sends the message in w->msg (header included) to partition r. */
static int w_send(weir_op_ctx *ctx, writer *w, uint32_t r)
{
    for (;;) {
        if (rd_kafka_produce(w->rkt, (int32_t)r, RD_KAFKA_MSG_F_COPY,
                             w->msg.data, w->msg.len, NULL, 0, NULL) == 0)
            break;
        rd_kafka_resp_err_t e = rd_kafka_last_error();
        if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL)
            return w_fail(ctx, w, rd_kafka_err2str(e));
        rd_kafka_poll(w->rk, 10); /* the local queue is full: wait */
        if (weir_op_interrupted(ctx))
            return WEIR_ECANCELED;
    }
    rd_kafka_poll(w->rk, 0);
    if (w->failed)
        return w_fail(ctx, w, rd_kafka_err2str(w->failed));
    return 0;
}

/* A marker to every partition; wm is the watermark, or the checkpoint id
 * of a barrier. */
static int w_marker(weir_op_ctx *ctx, writer *w, uint8_t type, weir_ts wm)
{
    weir_buf_clear(&w->msg);
    int rc = weir_buf_reserve(&w->msg, HDR_LEN + 8);
    if (rc)
        return rc;
    put_hdr(w->msg.data, type, w->producer, w->a->x.conf.epoch);
    w->msg.len = HDR_LEN;
    if ((type == WEIR__X_WATERMARK || type == WEIR__X_BARRIER) &&
        (rc = weir_buf_put_i64(&w->msg, wm)))
        return rc;
    for (uint32_t r = 0; r < w->a->x.conf.partitions && !rc; r++)
        rc = w_send(ctx, w, r);
    return rc;
}

/* The subtask went idle, or active again: every reader hears of it, after
 * the watermarks sent before (weir__op_on_status). A reader holds a
 * producer active until told otherwise (at the cut it restores, what the
 * writer had sent before its barrier: w_restore). */
static int w_status(void *op, weir_op_ctx *ctx, bool idle)
{
    writer *w = op;
    /* The first status goes out even when it is ACTIVE, the readers'
     * default: it is how they hear that this producer has started. */
    if (w->ended || (w->status_sent && idle == w->idle_sent))
        return 0;
    w->status_sent = true;
    w->idle_sent = idle;
    return w_marker(ctx, w, idle ? WEIR__X_IDLE : WEIR__X_ACTIVE, 0);
}

static int w_process(void *op, weir_op_ctx *ctx, int input, const weir_batch *b)
{
    (void)input;
    writer *w = op;
    const weir__exchange_spec *x = &w->a->x;
    uint32_t n = b->n_rows, R = x->conf.partitions;
    if (n == 0)
        return 0;
    if (n > w->cap_rows) {
        weir_free(w->part);
        weir_free(w->idx);
        w->part = weir_malloc(n * sizeof *w->part);
        w->idx = weir_malloc(n * sizeof *w->idx);
        w->cap_rows = w->part && w->idx ? n : 0;
        if (!w->cap_rows)
            return w_fail(ctx, w, "out of memory");
    }
    memset(w->count, 0, (R + 1) * sizeof *w->count);
    for (uint32_t i = 0; i < n; i++) {
        uint8_t buf[256];
        size_t len = weir_key_encode(b, &x->key, i, buf, sizeof buf);
        const uint8_t *k = buf;
        if (len > sizeof buf) {
            weir_buf_clear(&w->bigkey);
            if (weir_buf_reserve(&w->bigkey, len))
                return w_fail(ctx, w, "out of memory");
            weir_key_encode(b, &x->key, i, w->bigkey.data, len);
            k = w->bigkey.data;
        }
        uint32_t kg = weir_key_group(weir_key_hash(k, len), x->max_parallelism);
        uint32_t r = weir_key_group_owner(kg, x->max_parallelism, R);
        w->part[i] = r;
        w->count[r + 1]++;
    }
    for (uint32_t r = 0; r < R; r++)
        w->count[r + 1] += w->count[r];
    /* count[r] is now where partition r's rows start in idx */
    for (uint32_t i = 0; i < n; i++)
        w->idx[w->count[w->part[i]]++] = i;
    /* count[r] is now where they end; they start at count[r - 1] */
    int rc = 0;
    for (uint32_t r = 0; r < R && !rc; r++) {
        uint32_t lo = r ? w->count[r - 1] : 0, hi = w->count[r];
        if (lo == hi)
            continue;
        for (uint32_t s = lo; s < hi && !rc;) {
            uint32_t m = hi - s;
            if (m > w->split_max)
                m = w->split_max;
            weir_batch_reset(w->scratch);
            if ((rc = weir_batch_gather(w->scratch, b, w->idx + s, m)))
                break;
            weir_buf_clear(&w->msg);
            if ((rc = weir_buf_reserve(&w->msg, HDR_LEN)))
                break;
            put_hdr(w->msg.data, WEIR__X_BATCH, w->producer, x->conf.epoch);
            w->msg.len = HDR_LEN;
            weir__msg msg = {.type = WEIR__MSG_BATCH,
                             .wm = WEIR_TS_MIN,
                             .batch = w->scratch};
            if ((rc = weir__inflight_put_msg(&w->msg, &msg)))
                break;
            if (w->msg.len > MAX_RECORD_BYTES && m > 1) {
                w->split_max = m / 2; /* fewer rows a record from now on */
                continue;
            }
            rc = w_send(ctx, w, r);
            s += m;
        }
    }
    return rc;
}

static int w_watermark(void *op, weir_op_ctx *ctx, weir_ts wm)
{
    writer *w = op;
    if (wm <= w->sent_wm)
        return 0;
    w->sent_wm = wm;
    return w_marker(ctx, w, WEIR__X_WATERMARK, wm);
}

/*
 * The barrier of checkpoint id reached this producer: every row it sent
 * before is before the marker in each partition, every row after it is
 * after (one request in flight keeps the order). What was sent is in the
 * topic, and the readers' positions at the cut say where to go on from;
 * the state is the status the readers hold for this producer there: u8 1
 * when the last status marker sent was IDLE, then u32 the job's number of
 * producers (a reader restoring a position written for another number -
 * a rescale - holds every producer active: so does the writer then).
 */
static int w_snapshot(void *op, weir_op_ctx *ctx, uint64_t id, weir_buf *out)
{
    writer *w = op;
    int rc = w_marker(ctx, w, WEIR__X_BARRIER, (weir_ts)id);
    if (!rc && (weir_buf_put_u8(out, w->idle_sent ? 1 : 0) ||
                weir_buf_put_u32(out, w->n_producers) ||
                weir_buf_put_u32(out, w->a->x.conf.processes)))
        rc = w_fail(ctx, w, "out of memory");
    return rc;
}

static int w_restore(void *op, weir_op_ctx *ctx, weir_cursor *in)
{
    writer *w = op;
    uint8_t idle = 0;
    if (weir_cursor_get_u8(in, &idle) || idle > 1)
        return weir_op_fail(ctx, WEIR_ECORRUPT,
                            "repartition topic '%s': the writer's state in "
                            "the checkpoint is corrupt",
                            w->a->x.topic);
    uint32_t n = w->n_producers;
    if (weir_cursor_left(in) && weir_cursor_get_u32(in, &n))
        return weir_op_fail(ctx, WEIR_ECORRUPT,
                            "repartition topic '%s': the writer's state in "
                            "the checkpoint is corrupt",
                            w->a->x.topic);
    /* The processes too (absent in states of earlier versions): the same
     * number of producers over another number of processes numbers other
     * subtasks of other processes (a rescale that changed the per-process
     * parallelism too); a savepoint is restored on fresh readers. */
    uint32_t procs = w->a->x.conf.processes;
    if (weir_cursor_left(in) && weir_cursor_get_u32(in, &procs))
        return weir_op_fail(ctx, WEIR_ECORRUPT,
                            "repartition topic '%s': the writer's state in "
                            "the checkpoint is corrupt",
                            w->a->x.topic);
    w->idle_sent = idle != 0 && n == w->n_producers &&
                   procs == w->a->x.conf.processes &&
                   !w->a->x.conf.from_savepoint;
    return 0;
}

/* Waits until librdkafka has delivered everything produced. */
static int w_flush(weir_op_ctx *ctx, writer *w)
{
    while (rd_kafka_outq_len(w->rk) > 0) {
        rd_kafka_flush(w->rk, 100);
        if (w->failed)
            return w_fail(ctx, w, rd_kafka_err2str(w->failed));
        if (weir_op_interrupted(ctx))
            return WEIR_ECANCELED;
    }
    return w->failed ? w_fail(ctx, w, rd_kafka_err2str(w->failed)) : 0;
}

static int w_finish(void *op, weir_op_ctx *ctx)
{
    writer *w = op;
    int rc = 0;
    if (w->sent_wm < WEIR_TS_MAX)
        rc = w_watermark(op, ctx, WEIR_TS_MAX);
    if (!rc && !w->ended) {
        w->ended = true;
        rc = w_marker(ctx, w, WEIR__X_END, 0);
    }
    return rc ? rc : w_flush(ctx, w);
}

static int w_stop(void *op, weir_op_ctx *ctx)
{
    return w_flush(ctx, op);
}

static void w_close(void *op)
{
    writer *w = op;
    if (!w)
        return;
    if (w->rkt)
        rd_kafka_topic_destroy(w->rkt);
    if (w->rk)
        rd_kafka_destroy(w->rk);
    weir_free(w->part);
    weir_free(w->idx);
    weir_free(w->count);
    weir_batch_destroy(w->scratch);
    weir_buf_fini(&w->msg);
    weir_buf_fini(&w->bigkey);
    weir_free(w);
}

static const weir_operator_class WRITER = {
    .name = "repartition-writer",
    .open = w_open,
    .process = w_process,
    .watermark = w_watermark,
    .snapshot = w_snapshot,
    .restore = w_restore,
    .finish = w_finish,
    .stop = w_stop,
    .close = w_close,
};

/* ---- the reader ---- */

typedef struct rsrc {
    const xarg *a;
    uint32_t subtask, parallelism, batch_size;
    char **ids;
    uint32_t n_ids;
    bool discovered;
    /* the last barrier injected: splits go on past it (checkpoint_taken) */
    uint64_t released;
    /* the subtask's open splits (its partitions), which read in step */
    struct reader **splits;
    uint32_t n_splits, cap_splits;
} rsrc;

/* A record held back: its producer is past a barrier not yet injected. */
typedef struct held {
    int64_t offset;
    uint8_t *data;
    size_t len;
} held;

typedef struct reader {
    rsrc *s;
    rd_kafka_t *rk;
    int32_t partition;
    int64_t next_offset; /* of the next message to read */
    uint32_t n_producers;
    weir_ts *pwm;   /* per producer */
    uint8_t *ended; /* per producer: its END was read */
    uint8_t *pidle; /* per producer: idle (its IDLE was the last status) */
    uint8_t *heard; /* per producer: a record of it was read (or it ended) */
    uint32_t n_heard;
    bool idle, told_idle; /* every live producer is idle; last reported */
    uint64_t *pbar; /* per producer: the last barrier read */
    uint32_t n_ended;
    weir_ts wm, told_wm; /* r_recompute's; last reported */
    weir_batch *pend;    /* a decoded batch being handed out */
    uint32_t pend_pos;
    uint32_t *iota;
    uint64_t dropped_epoch; /* records of other epochs */
    /* Alignment: hold is the barrier every live producer of the partition
     * has passed (0: none), cut the offset after the marker that completed
     * it: where a restore of that checkpoint goes on. */
    uint64_t hold;
    int64_t cut;
    held *q; /* held back, in offset order */
    uint32_t n_q, cap_q;
    held *replay; /* held back before the last release, read first */
    uint32_t n_replay, pos_replay;
} reader;

static int r_create(void *arg, const weir_source_info *info, void **out,
                    weir_error *err)
{
    (void)err;
    rsrc *s = weir_calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    s->a = arg;
    s->subtask = info->subtask;
    s->parallelism = info->parallelism;
    s->batch_size = info->batch_size ? info->batch_size : 1;
    *out = s;
    return 0;
}

static int r_discover(void *src, const char ***ids, uint32_t *n_ids, bool *done,
                      weir_error *err)
{
    rsrc *s = src;
    *done = true;
    *ids = NULL;
    *n_ids = 0;
    if (s->discovered)
        return 0;
    s->discovered = true;
    uint32_t R = s->a->x.conf.partitions;
    s->ids = weir_calloc(R ? R : 1, sizeof *s->ids);
    if (!s->ids)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    /* One reader subtask per process (subtask = process index, parallelism
     * = N): the partitions of its process, by the rule that deals key
     * groups out over the operator's N·p subtasks. */
    uint32_t all = s->parallelism * s->a->x.reader_share;
    for (uint32_t r = 0; r < R; r++) {
        if (r % all / s->a->x.reader_share != s->subtask)
            continue;
        char id[32];
        snprintf(id, sizeof id, "p%u", r);
        if (!(s->ids[s->n_ids] = weir_strdup(id)))
            return weir_error_set(err, WEIR_ENOMEM, "out of memory");
        s->n_ids++;
    }
    *ids = (const char **)s->ids;
    *n_ids = s->n_ids;
    return 0;
}

static void free_held(held *h, uint32_t from, uint32_t n)
{
    for (uint32_t i = from; i < n; i++)
        weir_free(h[i].data);
    weir_free(h);
}

static void r_close_split(void *rd)
{
    reader *r = rd;
    if (!r)
        return;
    rsrc *s = r->s;
    for (uint32_t i = 0; i < s->n_splits; i++)
        if (s->splits[i] == r) {
            s->splits[i] = s->splits[--s->n_splits];
            break;
        }
    if (r->rk) {
        rd_kafka_assign(r->rk, NULL);
        rd_kafka_destroy(r->rk);
    }
    weir_free(r->pwm);
    weir_free(r->ended);
    weir_free(r->pidle);
    weir_free(r->heard);
    weir_free(r->pbar);
    weir_free(r->iota);
    free_held(r->q, 0, r->n_q);
    free_held(r->replay, r->pos_replay, r->n_replay);
    weir_batch_destroy(r->pend);
    weir_free(r);
}

static void r_recompute(reader *r);

/*
 * A position: i64 next offset, u32 producers, then per producer i64
 * watermark and u8 flags, 1 ended and 2 idle (the state at the cut: the
 * markers read before it), then u32 the job's processes (not in positions
 * of earlier versions). Eight bytes alone (a position written before
 * barriers existed): the offset. A position written for another number of
 * producers or processes restores the offset alone (below).
 */
static int r_restore(reader *r, const uint8_t *p, size_t len, weir_error *err)
{
    const weir__exchange_spec *x = &r->s->a->x;
    weir_cursor c;
    weir_cursor_init(&c, p, len);
    int64_t off = 0;
    uint32_t n = 0;
    if (weir_cursor_get_i64(&c, &off))
        goto bad;
    r->next_offset = r->cut = off;
    if (len == 8)
        return 0;
    if (weir_cursor_get_u32(&c, &n))
        goto bad;
    /*
     * Another number of producers (the job was rescaled): the restored run
     * is at a new epoch, whose producers are all new and write again what
     * came after the cut, watermarks and ends included, so only the offset
     * after the cut counts; the reader hears every new producer from there.
     * The watermark the reader had reported stays with the split (the
     * runtime never lets it go back).
     */
    if (n > weir_cursor_left(&c) / 9)
        goto bad;
    /* The processes follow the producers (absent before this version): the
     * same number of producers over another number of processes is
     * another mapping of producers to subtasks, so their state at the cut
     * says nothing of the new ones either. */
    uint32_t procs = x->conf.processes;
    if (weir_cursor_left(&c) == (size_t)n * 9 + 4) {
        weir_cursor pc = c;
        pc.p += (size_t)n * 9;
        if (weir_cursor_get_u32(&pc, &procs))
            goto bad;
    }
    if (n != r->n_producers || procs != x->conf.processes)
        return 0;
    for (uint32_t i = 0; i < n; i++) {
        uint8_t e = 0;
        if (weir_cursor_get_i64(&c, &r->pwm[i]) || weir_cursor_get_u8(&c, &e))
            goto bad;
        if (e & 1) {
            r->ended[i] = 1;
            r->n_ended++;
        }
        r->pidle[i] = (e >> 1) & 1;
    }
    r->wm = WEIR_TS_MIN;
    r_recompute(r);
    return 0;
bad:
    return weir_error_set(err, WEIR_ECORRUPT,
                          "repartition topic '%s' partition %d: a corrupt "
                          "position in the checkpoint",
                          r->s->a->x.topic, r->partition);
}

static int r_open_split(void *src, const char *id, const void *pos,
                        size_t pos_len, void **out, weir_error *err)
{
    rsrc *s = src;
    const weir__exchange_spec *x = &s->a->x;
    reader *r = weir_calloc(1, sizeof *r);
    if (!r)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    r->s = s;
    r->partition = (int32_t)strtol(id + 1, NULL, 10);
    r->next_offset = RD_KAFKA_OFFSET_BEGINNING;
    r->n_producers = x->conf.processes * x->writer_parallelism;
    r->pwm = weir_malloc(r->n_producers * sizeof *r->pwm);
    r->ended = weir_calloc(r->n_producers, 1);
    r->pidle = weir_calloc(r->n_producers, 1);
    r->heard = weir_calloc(r->n_producers, 1);
    r->pbar = weir_calloc(r->n_producers, sizeof *r->pbar);
    /* A writer's batches hold at most the job's batch size. */
    r->pend = weir_batch_create(x->schema, s->batch_size);
    r->iota = weir_malloc(s->batch_size * sizeof *r->iota);
    r->wm = r->told_wm = WEIR_TS_MIN;
    if (!r->pwm || !r->ended || !r->pidle || !r->heard || !r->pbar ||
        !r->pend || !r->iota) {
        r_close_split(r);
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    }
    for (uint32_t i = 0; i < r->n_producers; i++)
        r->pwm[i] = WEIR_TS_MIN;
    for (uint32_t i = 0; i < s->batch_size; i++)
        r->iota[i] = i;
    r->pend->n_rows = 0;
    /* A savepoint's positions are offsets in the topics of the run that
     * took it: the restored run (a fresh control topic, perhaps fresh
     * repartition topics) reads its epoch from the beginning, and its
     * producers write everything after the cut again. */
    if (pos && pos_len && !x->conf.from_savepoint &&
        r_restore(r, pos, pos_len, err)) {
        r_close_split(r);
        return err->code;
    }
    /* A producer that had ended at the restored cut sends nothing more. */
    for (uint32_t i = 0; i < r->n_producers; i++)
        if (r->ended[i]) {
            r->heard[i] = 1;
            r->n_heard++;
        }
    /* told_wm stays below a restored watermark: the runtime asks for it
     * (and keeps it, restored with the split) before the first read. */
    char why[512];
    rd_kafka_conf_t *conf = base_conf(x->conf.servers, why, sizeof why);
    if (!conf) {
        r_close_split(r);
        return weir_error_set(err, WEIR_EINVAL, "%s", why);
    }
    rd_kafka_conf_set(conf, "group.id", x->topic, why, sizeof why);
    rd_kafka_conf_set(conf, "enable.auto.commit", "false", why, sizeof why);
    rd_kafka_conf_set(conf, "enable.partition.eof", "false", why, sizeof why);
    rd_kafka_conf_set(conf, "fetch.wait.max.ms", "10", why, sizeof why);
    /* Records deleted before they were read (retention) are an error, never
     * a silent jump to the end of the partition. */
    rd_kafka_conf_set(conf, "auto.offset.reset", "error", why, sizeof why);
    r->rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, why, sizeof why);
    if (!r->rk) {
        rd_kafka_conf_destroy(conf);
        r_close_split(r);
        return weir_error_set(err, WEIR_EIO, "repartition topic '%s': %s",
                              x->topic, why);
    }
    rd_kafka_poll_set_consumer(r->rk);
    rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(l, x->topic, r->partition)->offset =
        r->next_offset;
    rd_kafka_resp_err_t e = rd_kafka_assign(r->rk, l);
    rd_kafka_topic_partition_list_destroy(l);
    if (e) {
        r_close_split(r);
        return weir_error_set(err, WEIR_EIO, "repartition topic '%s': %s",
                              x->topic, rd_kafka_err2str(e));
    }
    if (s->n_splits == s->cap_splits) {
        uint32_t cap = s->cap_splits ? 2 * s->cap_splits : 4;
        reader **n = weir_realloc(s->splits, cap * sizeof *n);
        if (!n) {
            r_close_split(r);
            return weir_error_set(err, WEIR_ENOMEM, "out of memory");
        }
        s->splits = n;
        s->cap_splits = cap;
    }
    s->splits[s->n_splits++] = r;
    *out = r;
    return 0;
}

/*
 * The watermark and idleness over the producers, by the rules of an
 * operator's input channels (time/watermark.h): the minimum over the
 * active ones; with none active but some not ended, the maximum of the
 * idle ones' watermarks, and the split is idle; never backwards.
 */
static void r_recompute(reader *r)
{
    weir_ts m = WEIR_TS_MAX, top = WEIR_TS_MIN;
    bool active = false, open = false;
    for (uint32_t i = 0; i < r->n_producers; i++) {
        if (r->ended[i]) {
            if (r->pwm[i] < m)
                m = r->pwm[i]; /* +infinity once its END came */
            continue;
        }
        open = true;
        if (r->pidle[i]) {
            if (r->pwm[i] > top)
                top = r->pwm[i];
        } else {
            active = true;
            if (r->pwm[i] < m)
                m = r->pwm[i];
        }
    }
    r->idle = open && !active;
    if (r->idle)
        m = top;
    if (m > r->wm)
        r->wm = m;
}

/* A producer's status changed to idle (or active: !idle). */
static void r_set_idle(reader *r, uint32_t producer, bool idle)
{
    if (r->pidle[producer] == idle)
        return;
    r->pidle[producer] = idle;
    r_recompute(r);
}

/* Hands out rows of the pending batch; returns how many. */
static uint32_t r_take(reader *r, weir_batch *out, uint32_t max_rows)
{
    uint32_t left = r->pend->n_rows - r->pend_pos;
    uint32_t room = out->capacity - out->n_rows;
    uint32_t m = left < max_rows ? left : max_rows;
    if (m > room)
        m = room;
    if (m && !weir_batch_gather(out, r->pend, r->iota + r->pend_pos, m)) {
        r->pend_pos += m;
        return m;
    }
    return 0;
}

/* Whether every live producer has passed a barrier not yet injected: then
 * the split waits there (hold), its cut just after offset. */
static bool r_check_hold(reader *r, int64_t offset)
{
    uint64_t m = UINT64_MAX;
    for (uint32_t i = 0; i < r->n_producers; i++)
        if (!r->ended[i] && r->pbar[i] < m)
            m = r->pbar[i];
    if (m == UINT64_MAX || m <= r->s->released)
        return false;
    r->hold = m;
    r->cut = offset + 1;
    return true;
}

static int r_hold_back(reader *r, int64_t offset, const uint8_t *p,
                       size_t len, weir_error *err)
{
    if (r->n_q == r->cap_q) {
        uint32_t cap = r->cap_q ? r->cap_q * 2 : 16;
        held *q = weir_realloc(r->q, cap * sizeof *q);
        if (!q)
            return weir_error_set(err, WEIR_ENOMEM, "out of memory");
        r->q = q;
        r->cap_q = cap;
    }
    held *h = &r->q[r->n_q];
    h->data = weir_malloc(len ? len : 1);
    if (!h->data)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    memcpy(h->data, p, len);
    h->len = len;
    h->offset = offset;
    r->n_q++;
    return 0;
}

/* What was held back is read again first, before what was left to
 * replay. */
static int r_requeue(reader *r, weir_error *err)
{
    uint32_t left = r->n_replay - r->pos_replay;
    if (r->n_q == 0)
        return 0;
    if (left) {
        held *n = weir_realloc(r->q, (r->n_q + left) * sizeof *n);
        if (!n)
            return weir_error_set(err, WEIR_ENOMEM, "out of memory");
        memcpy(n + r->n_q, r->replay + r->pos_replay, left * sizeof *n);
        r->q = n;
        r->n_q += left;
    }
    weir_free(r->replay);
    r->replay = r->q;
    r->n_replay = r->n_q;
    r->pos_replay = 0;
    r->q = NULL;
    r->n_q = r->cap_q = 0;
    return 0;
}

/* The barrier was injected: the split goes on past it. */
static int r_release(reader *r, weir_error *err)
{
    r->hold = 0;
    return r_requeue(r, err);
}

/* A record of a producer while some producer has not been heard from:
 * it waits, and the last one heard lets every record waiting go on. A
 * producer's first record is its status (its writer sends it before
 * anything else): that is known from the start, before any record waiting,
 * as an operator inside a process knows the first message of every input
 * channel before it processes any data. 1 when the watermark or the
 * idleness changed, as r_record. */
static int r_hear(reader *r, uint32_t producer, int64_t offset,
                  const uint8_t *p, size_t len, weir_error *err)
{
    int rc = 0;
    if (!r->heard[producer]) {
        r->heard[producer] = 1;
        r->n_heard++;
        if (p[1] == WEIR__X_ACTIVE || p[1] == WEIR__X_IDLE) {
            weir_ts wm_before = r->wm;
            bool idle_before = r->idle;
            r_set_idle(r, producer, p[1] == WEIR__X_IDLE);
            rc = r->wm != wm_before || r->idle != idle_before ? 1 : 0;
            p = NULL;
        }
    }
    int hrc = p ? r_hold_back(r, offset, p, len, err) : 0;
    if (!hrc && r->n_heard == r->n_producers)
        hrc = r_requeue(r, err);
    return hrc ? hrc : rc;
}

/*
 * One record: 1 when the read must stop after it (the watermark rose, or
 * the split reached a barrier), 0 to go on, or an error.
 */
static int r_record(reader *r, int64_t offset, const uint8_t *p, size_t len,
                    weir_error *err)
{
    const weir__exchange_spec *x = &r->s->a->x;
    if (len < HDR_LEN || p[0] != 'W')
        return weir_error_set(err, WEIR_ECORRUPT,
                              "repartition topic '%s' partition %d "
                              "offset %lld: not a weir record",
                              x->topic, r->partition, (long long)offset);
    uint32_t producer = 0, epoch = 0;
    for (int i = 0; i < 4; i++) {
        producer |= (uint32_t)p[2 + i] << (8 * i);
        epoch |= (uint32_t)p[6 + i] << (8 * i);
    }
    uint8_t type = p[1];
    if (epoch != x->conf.epoch) {
        r->dropped_epoch++;
        return 0;
    }
    if (producer >= r->n_producers)
        return weir_error_set(err, WEIR_ECORRUPT,
                              "repartition topic '%s': producer %u of a "
                              "job with %u (another membership wrote "
                              "this epoch)",
                              x->topic, producer, r->n_producers);
    if (r->n_heard < r->n_producers)
        return r_hear(r, producer, offset, p, len, err);
    /* After its barrier, a producer's records wait for the others'. */
    if (r->pbar[producer] > r->s->released)
        return r_hold_back(r, offset, p, len, err);
    weir_cursor c;
    weir_cursor_init(&c, p + HDR_LEN, len - HDR_LEN);
    weir_ts wm_before = r->wm;
    bool idle_before = r->idle;
    /* Only its status markers change a producer's status, as an input
     * channel's inside a process: an idle subtask may still send rows (of
     * processing-time timers, say) without becoming active, and its writer
     * sends ACTIVE when it does. */
    if (type == WEIR__X_ACTIVE || type == WEIR__X_IDLE)
        r_set_idle(r, producer, type == WEIR__X_IDLE);
    if (type == WEIR__X_IDLE || type == WEIR__X_ACTIVE)
        return r->wm != wm_before || r->idle != idle_before ? 1 : 0;
    if (type == WEIR__X_BATCH) {
        weir__msg msg;
        r->pend_pos = 0;
        int rc = weir__inflight_get_msg(&c, &msg, r->pend);
        if (rc) {
            r->pend->n_rows = 0;
            return weir_error_set(err, rc,
                                  "repartition topic '%s' partition %d "
                                  "offset %lld: a corrupt batch",
                                  x->topic, r->partition, (long long)offset);
        }
        return 0;
    }
    if (type == WEIR__X_BARRIER) {
        int64_t id = 0;
        if (weir_cursor_get_i64(&c, &id) || id <= 0)
            return weir_error_set(err, WEIR_ECORRUPT,
                                  "repartition topic '%s': a short barrier "
                                  "marker",
                                  x->topic);
        if ((uint64_t)id > r->pbar[producer])
            r->pbar[producer] = (uint64_t)id;
        return r_check_hold(r, offset) ? 1 : 0;
    }
    if (type != WEIR__X_WATERMARK && type != WEIR__X_END)
        return 0;
    weir_ts w = WEIR_TS_MAX;
    if (type == WEIR__X_WATERMARK && weir_cursor_get_i64(&c, &w))
        return weir_error_set(err, WEIR_ECORRUPT,
                              "repartition topic '%s': a short "
                              "watermark marker",
                              x->topic);
    bool stop = false;
    if (type == WEIR__X_END && !r->ended[producer]) {
        r->ended[producer] = 1;
        r->n_ended++;
        /* the producers still to pass a barrier may be only those that
         * ended */
        stop = r_check_hold(r, offset);
    }
    if (w > r->pwm[producer]) {
        r->pwm[producer] = w;
        r_recompute(r);
    }
    stop = stop || r->wm != wm_before || r->idle != idle_before;
    return stop ? 1 : 0;
}

/*
 * Whether another split of the subtask has read less far in the
 * producers' watermarks: then this one waits for it. Every producer writes
 * each watermark into every partition, after the rows it sent before; a
 * row of a partition read after a producer's watermark W must meet W, as
 * in the producer's channel inside a process, and the subtask's watermark
 * is the minimum over its splits: so no split reads on past W until every
 * other one has reached it too. (A split waiting at a barrier is left out:
 * what it holds back comes after its cut.)
 */
static bool r_ahead(const reader *r)
{
    const rsrc *s = r->s;
    for (uint32_t i = 0; i < s->n_splits; i++) {
        const reader *o = s->splits[i];
        if (o != r && o->wm < r->wm && !(o->hold > s->released))
            return true;
    }
    return false;
}

static int r_read(void *rd, weir_batch *out, uint32_t max_rows, weir_error *err)
{
    reader *r = rd;
    const weir__exchange_spec *x = &r->s->a->x;
    uint32_t got = 0;
    /* The watermark and idleness reached so far must be reported before
     * more rows. */
    if (r->wm != r->told_wm || r->idle != r->told_idle)
        return 0;
    if (r_ahead(r))
        return 0;
    if (r->hold) {
        if (r->hold > r->s->released)
            return 0; /* at a barrier, until the runtime injects it */
        int rc = r_release(r, err);
        if (rc)
            return rc;
    }
    for (;;) {
        if (r->pend_pos < r->pend->n_rows) {
            got += r_take(r, out, max_rows - got);
            if (r->pend_pos < r->pend->n_rows || got >= max_rows)
                return (int)got;
        }
        if (r->n_ended == r->n_producers)
            return got ? (int)got : WEIR_EOF;
        if (r->pos_replay < r->n_replay) {
            held h = r->replay[r->pos_replay++];
            int rc = r_record(r, h.offset, h.data, h.len, err);
            weir_free(h.data);
            if (rc < 0)
                return rc;
            if (rc > 0)
                return (int)got;
            continue;
        }
        rd_kafka_message_t *m =
            rd_kafka_consumer_poll(r->rk, got ? 0 : POLL_MS);
        if (!m)
            return (int)got;
        if (m->err) {
            rd_kafka_resp_err_t e = m->err;
            rd_kafka_message_destroy(m);
            if (e == RD_KAFKA_RESP_ERR__PARTITION_EOF)
                continue;
            if (e == RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET ||
                e == RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE)
                return weir_error_set(
                    err, WEIR_EIO,
                    "repartition topic '%s' partition %d: records from "
                    "offset %lld on were deleted before this process read "
                    "them (the topic's retention is shorter than the "
                    "readers' lag)",
                    x->topic, r->partition,
                    (long long)(r->next_offset < 0 ? 0 : r->next_offset));
            return weir_error_set(err, WEIR_EIO,
                                  "repartition topic '%s' partition %d: %s",
                                  x->topic, r->partition, rd_kafka_err2str(e));
        }
        r->next_offset = m->offset + 1;
        int rc = r_record(r, m->offset, m->payload, m->len, err);
        rd_kafka_message_destroy(m);
        if (rc < 0)
            return rc;
        if (rc > 0)
            return (int)got;
    }
}

static weir_ts r_watermark(void *rd)
{
    reader *r = rd;
    r->told_wm = r->wm;
    return r->wm;
}

static bool r_idle(void *rd)
{
    reader *r = rd;
    r->told_idle = r->idle;
    return r->idle;
}

static uint64_t r_barrier(void *rd)
{
    const reader *r = rd;
    return r->hold > r->s->released ? r->hold : 0;
}

/* At a barrier: the cut (what the split had read up to the marker that
 * completed it, and the producers' watermarks and ends then). */
static int r_position(void *rd, weir_buf *out)
{
    reader *r = rd;
    int64_t off = r->hold ? r->cut : r->next_offset;
    if (!r->hold && r->n_heard < r->n_producers && r->n_q)
        off = r->q[0].offset; /* waiting to hear from every producer */
    int rc = weir_buf_put_i64(out, off);
    if (!rc)
        rc = weir_buf_put_u32(out, r->n_producers);
    for (uint32_t i = 0; i < r->n_producers && !rc; i++) {
        rc = weir_buf_put_i64(out, r->pwm[i]);
        if (!rc)
            rc = weir_buf_put_u8(out,
                                 (uint8_t)(r->ended[i] | r->pidle[i] << 1));
    }
    if (!rc)
        rc = weir_buf_put_u32(out, r->s->a->x.conf.processes);
    return rc;
}

static int r_checkpoint_taken(void *src, uint64_t id, weir_error *err)
{
    (void)err;
    rsrc *s = src;
    if (id > s->released)
        s->released = id;
    return 0;
}

static void r_destroy(void *src)
{
    rsrc *s = src;
    if (!s)
        return;
    for (uint32_t i = 0; i < s->n_ids; i++)
        weir_free(s->ids[i]);
    weir_free(s->ids);
    weir_free(s->splits);
    weir_free(s);
}

static const weir_source_class READER = {
    .name = "repartition-reader",
    .create = r_create,
    .discover = r_discover,
    .open_split = r_open_split,
    .read = r_read,
    .position = r_position,
    .close_split = r_close_split,
    .destroy = r_destroy,
    .checkpoint_taken = r_checkpoint_taken,
    .watermark = r_watermark,
    .barrier = r_barrier,
    .idle = r_idle,
};

bool weir__exchange_is_reader(const weir_source_spec *s)
{
    return s && s->cls == &READER;
}

int weir__exchange_specs(const weir__exchange_spec *x,
                         weir_operator_spec *wspec, weir_source_spec *rspec,
                         weir_error *err)
{
    xarg *wa = xarg_copy(x), *ra = xarg_copy(x);
    if (!wa || !ra) {
        xarg_free(wa);
        xarg_free(ra);
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    }
    *wspec = (weir_operator_spec){.name = "repartition-writer",
                                  .cls = &WRITER,
                                  .create = w_create,
                                  .arg = wa,
                                  .free_arg = xarg_free};
    *rspec = (weir_source_spec){.name = "repartition-reader",
                                .cls = &READER,
                                .arg = ra,
                                .free_arg = xarg_free,
                                .schema = x->schema};
    return 0;
}

#endif
