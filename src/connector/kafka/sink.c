/*
 * connector/kafka/sink.c - the Kafka sink operator, for 'kafka' and
 * 'upsert-kafka' tables (options in sink_options.c).
 *
 * Each row becomes one message: its key and value encoded by their formats
 * (sink_internal.h), its partition chosen by 'sink.partitioner'. The
 * upsert sink writes +I/+U rows as the value, -D rows as a tombstone (a
 * null value), and drops -U rows (the +U that follows replaces them); with
 * 'sink.buffer-flush.*' it keeps the last change per key and writes the
 * buffer when it holds max-rows keys, when the interval has passed (checked
 * as rows and watermarks arrive), and at every checkpoint.
 *
 * Delivery ('sink.delivery-guarantee'):
 * - none: messages are handed to the client; a checkpoint does not wait.
 * - at-least-once: a checkpoint barrier flushes the producer and checks
 *   every delivery report before the snapshot may complete; a failed
 *   delivery fails the checkpoint (and the job), never passes silently.
 * - exactly-once: a transactional producer, one transaction per subtask
 *   per checkpoint, named "<prefix>-<subtask>-<checkpoint>" (<subtask>:
 *   the instance's index among those of every process of a job run by
 *   several, weir__op_instance) where
 *   <checkpoint> is the id of the checkpoint that pre-commits it (the
 *   first transaction after checkpoint n is named n+1). snapshot(n)
 *   flushes and pre-commits the open transaction; checkpoint_complete(n)
 *   commits every pre-committed transaction up to n. The snapshot keeps
 *   the messages of the transactions not yet committed, because librdkafka
 *   cannot resume a transaction another producer opened (Flink's KafkaSink
 *   resumes it through the Java client's internals). Each commit also
 *   commits, inside the transaction, the offset <checkpoint> of the
 *   consumer group "weir-txn-<prefix>-<subtask>" for partition 0 of the
 *   topic: a marker that becomes visible exactly when the transaction
 *   does. On restore, a transaction the restored checkpoint covers is
 *   committed again unless its marker says it committed already: its id
 *   is taken over (which aborts it if it was still open) and its messages
 *   are written in a new transaction under the same id. Transactions the
 *   crashed run opened after the restored checkpoint are aborted by
 *   taking over their ids (<checkpoint>+1 and +2: with one checkpoint in
 *   flight, the furthest a run gets past its last completed checkpoint; in
 *   a job run by several processes, up to two past the last checkpoint
 *   triggered, see fence_lingering).
 *
 * The test seam: with WEIR_KAFKA_SINK_LOG=FILE in the environment when the
 * sink is built, every transactional step is appended to FILE as one line
 * "<event> <transactional-id> <checkpoint> <messages> <monotonic ms>"
 * (events: begin,
 * precommit, commit, recover-commit, recover-skip, abort), written before
 * the step for begin/abort and after it for the others, so that a kill -9
 * leaves the log consistent with what the broker saw.
 */
#ifdef WEIR_HAVE_KAFKA /* built only with librdkafka */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "connector/kafka/sink_internal.h"
#include "runtime/checkpoint.h"

#define KSINK_STATE_VERSION 1
#define KSINK_TXN_TIMEOUT_MS 60000
#define KSINK_LINGER 2

/* A transaction of this subtask (exactly-once). */
typedef struct ktxn {
    char *tid;
    uint64_t ckpt;   /* the checkpoint that pre-commits it */
    rd_kafka_t *rk;  /* its producer; NULL once restored from a snapshot */
    weir_buf msgs;   /* its messages: partition i32, key, value (see put_msg) */
    uint64_t n_msgs;
} ktxn;

/* One buffered upsert: the last change of its key. */
typedef struct kentry {
    size_t key_off, key_len;
    size_t val_off, val_len;
    bool tombstone;
    int64_t ts;
} kentry;

typedef struct ksink {
    const ksink_arg *a;
    uint32_t subtask;
    rd_kafka_t *rk; /* none / at-least-once: the producer */
    rd_kafka_resp_err_t dr_err; /* the first failed delivery */
    char dr_msg[256];
    uint64_t delivered, failed;
    uint64_t rr;      /* round-robin position */
    uint32_t n_parts; /* of the topic, for 'fixed' and 'round-robin' */
    /* exactly-once */
    ktxn cur;          /* the open transaction (cur.rk != NULL) */
    uint64_t next_ckpt; /* the id the next transaction is named after */
    ktxn *pending;     /* pre-committed, not yet committed; by ckpt */
    uint32_t n_pending, cap_pending;
    bool fenced; /* lingering transactions of earlier runs handled */
    /* the highest checkpoint id the job's log shows triggered before this
     * run (several processes; 0 alone): see fence_lingering */
    uint64_t last_id;
    uint64_t restored_id; /* the job's restored checkpoint (several processes) */
    /* encoding */
    weir_encoder *kenc, *venc;
    weir_column *kcols, *vcols;
    weir_buf kbuf, vbuf;
    weir_buf ubkey; /* upsert: the key of a -U not yet followed by its +U */
    bool has_ub, ub_knull;
    uint8_t *inserts; /* cap_inserts kinds, all +I */
    uint32_t cap_inserts;
    /* upsert buffer */
    kentry *ents;
    uint32_t n_ents, cap_ents;
    uint32_t *slots; /* open addressing: entry index + 1, 0 empty */
    uint32_t n_slots;
    weir_buf arena;
    int64_t last_flush_ms;
    int log_fd;
    weir_op_ctx *ctx; /* of the call in progress, for messages */
} ksink;

/* ---------------------------------------------------------------- log */

static void log_event(ksink *s, const char *ev, const char *tid,
                      uint64_t ckpt, uint64_t n)
{
    if (s->log_fd < 0)
        return;
    char line[512];
    int len = snprintf(line, sizeof line,
                       "%s %s %" PRIu64 " %" PRIu64 " %" PRId64 "\n", ev, tid,
                       ckpt, n, weir_monotonic_ns() / 1000000);
    if (len > 0 && (size_t)len < sizeof line) {
        ssize_t w = write(s->log_fd, line, (size_t)len);
        (void)w;
    }
}

/* ----------------------------------------------------------- producers */

static void on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *m,
                        void *opaque)
{
    (void)rk;
    ksink *s = opaque;
    if (m->err) {
        if (!s->dr_err) {
            s->dr_err = m->err;
            snprintf(s->dr_msg, sizeof s->dr_msg, "%s",
                     rd_kafka_err2str(m->err));
        }
        s->failed++;
    } else {
        s->delivered++;
    }
}

static int make_producer(ksink *s, const char *tid, rd_kafka_t **out)
{
    char why[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_dup(s->a->conf);
    if (!conf)
        return weir_op_fail(s->ctx, WEIR_ENOMEM, "out of memory");
    /* 'default': Kafka's (Java client's) partitioner, murmur2 of the key. */
    rd_kafka_topic_conf_t *tc = rd_kafka_topic_conf_new();
    rd_kafka_topic_conf_set_partitioner_cb(
        tc, rd_kafka_msg_partitioner_murmur2_random);
    rd_kafka_conf_set_default_topic_conf(conf, tc);
    rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
    rd_kafka_conf_set_opaque(conf, s);
    if (tid) {
        if (rd_kafka_conf_set(conf, "transactional.id", tid, why,
                              sizeof why) != RD_KAFKA_CONF_OK) {
            rd_kafka_conf_destroy(conf);
            return weir_op_fail(s->ctx, WEIR_EINVAL,
                                "kafka sink: transactional.id '%s': %s", tid,
                                why);
        }
    }
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, why, sizeof why);
    if (!rk) {
        rd_kafka_conf_destroy(conf);
        return weir_op_fail(s->ctx, WEIR_EINVAL,
                            "kafka sink: cannot create a producer: %s", why);
    }
    *out = rk;
    return 0;
}

/* Fails with librdkafka's message about error e (consumed). */
static int txn_fail(ksink *s, rd_kafka_error_t *e, const char *what,
                    const char *tid)
{
    int rc = weir_op_fail(s->ctx, WEIR_EIO,
                          "kafka sink: %s of transaction '%s' failed: %s",
                          what, tid, rd_kafka_error_string(e));
    rd_kafka_error_destroy(e);
    return rc;
}

/* Waits until every message of rk is delivered or failed. */
static int flush_producer(ksink *s, rd_kafka_t *rk)
{
    while (rd_kafka_outq_len(rk) > 0) {
        rd_kafka_resp_err_t e = rd_kafka_flush(rk, 1000);
        if (e && e != RD_KAFKA_RESP_ERR__TIMED_OUT)
            return weir_op_fail(s->ctx, WEIR_EIO, "kafka sink: flush: %s",
                                rd_kafka_err2str(e));
        if (weir_op_interrupted(s->ctx))
            return WEIR_ECANCELED;
    }
    if (s->dr_err)
        return weir_op_fail(s->ctx, WEIR_EIO,
                            "kafka sink: %" PRIu64
                            " message(s) to topic '%s' were not delivered: "
                            "%s",
                            s->failed, s->a->topic, s->dr_msg);
    return 0;
}

static void txn_fini(ktxn *t)
{
    if (t->rk)
        rd_kafka_destroy(t->rk);
    weir_free(t->tid);
    weir_buf_fini(&t->msgs);
    memset(t, 0, sizeof *t);
}

static char *tid_of(const ksink *s, uint32_t subtask, uint64_t ckpt)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s-%u-%" PRIu64, s->a->tid_prefix, subtask,
             ckpt);
    return weir_strdup(buf);
}

/* Takes over transactional id tid: the broker aborts what it left open. */
static int fence(ksink *s, const char *tid, rd_kafka_t **keep)
{
    rd_kafka_t *rk;
    int rc = make_producer(s, tid, &rk);
    if (rc)
        return rc;
    rd_kafka_error_t *e = rd_kafka_init_transactions(rk, KSINK_TXN_TIMEOUT_MS);
    if (e) {
        rd_kafka_destroy(rk);
        return txn_fail(s, e, "init", tid);
    }
    if (keep)
        *keep = rk;
    else
        rd_kafka_destroy(rk);
    return 0;
}

/* The marker group of a subtask's transactions. */
static void marker_group(const ksink *s, uint32_t subtask, char *buf,
                         size_t cap)
{
    snprintf(buf, cap, "weir-txn-%s-%u", s->a->tid_prefix, subtask);
}

/* Commits t (its producer open, its messages sent) with its marker. */
static int commit_txn(ksink *s, ktxn *t, uint32_t subtask)
{
    char group[1100];
    marker_group(s, subtask, group, sizeof group);
    rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(l, s->a->topic, 0)->offset =
        (int64_t)t->ckpt;
    rd_kafka_consumer_group_metadata_t *md =
        rd_kafka_consumer_group_metadata_new(group);
    rd_kafka_error_t *e =
        rd_kafka_send_offsets_to_transaction(t->rk, l, md, KSINK_TXN_TIMEOUT_MS);
    rd_kafka_consumer_group_metadata_destroy(md);
    rd_kafka_topic_partition_list_destroy(l);
    if (e)
        return txn_fail(s, e, "marker", t->tid);
    if ((e = rd_kafka_commit_transaction(t->rk, KSINK_TXN_TIMEOUT_MS)))
        return txn_fail(s, e, "commit", t->tid);
    return 0;
}

/* The last checkpoint a subtask's marker says committed (0: none known). */
static uint64_t committed_marker(ksink *s, uint32_t subtask)
{
    char group[1100], why[256];
    marker_group(s, subtask, group, sizeof group);
    rd_kafka_conf_t *conf = rd_kafka_conf_dup(s->a->conf);
    if (rd_kafka_conf_set(conf, "group.id", group, why, sizeof why) ||
        rd_kafka_conf_set(conf, "enable.auto.commit", "false", why,
                          sizeof why)) {
        rd_kafka_conf_destroy(conf);
        return 0;
    }
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, why, sizeof why);
    if (!rk) {
        rd_kafka_conf_destroy(conf);
        return 0;
    }
    rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(l, s->a->topic, 0);
    uint64_t got = 0;
    if (!rd_kafka_committed(rk, l, 10000) && l->elems[0].err == 0 &&
        l->elems[0].offset > 0)
        got = (uint64_t)l->elems[0].offset;
    rd_kafka_topic_partition_list_destroy(l);
    rd_kafka_destroy(rk);
    return got;
}

/*
 * Aborts what earlier runs of this subtask index may have left open: the
 * ids after the restored checkpoint (or the first ones, on a fresh start),
 * up to the last one an earlier run may have begun: with one checkpoint in
 * flight, two past the restored one; in a job run by several processes,
 * whose checkpoints complete only when every process has its part, up to
 * two past the last checkpoint the job's log shows triggered (the leader
 * may have taken one more whose record had not reached the log yet).
 */
static int fence_lingering(ksink *s, uint32_t subtask, uint64_t from)
{
    for (uint64_t c = from;
         c < from + KSINK_LINGER || c <= s->last_id + KSINK_LINGER; c++) {
        char *tid = tid_of(s, subtask, c);
        if (!tid)
            return weir_op_fail(s->ctx, WEIR_ENOMEM, "out of memory");
        log_event(s, "abort", tid, c, 0);
        int rc = fence(s, tid, NULL);
        weir_free(tid);
        if (rc)
            return rc;
    }
    return 0;
}

static int ensure_fenced(ksink *s)
{
    if (s->fenced)
        return 0;
    s->fenced = true;
    /* A subtask without state of its own in the restored checkpoint (new
     * after a rescale) still starts at 1; the ids up to the checkpoint the
     * job restored were settled when it completed. */
    uint64_t from = s->next_ckpt;
    if (s->restored_id + 1 > from)
        from = s->restored_id + 1;
    return fence_lingering(s, s->subtask, from);
}

/* Opens the transaction of the current checkpoint interval if needed. */
static int ensure_txn(ksink *s)
{
    if (s->cur.rk)
        return 0;
    int rc = ensure_fenced(s);
    if (rc)
        return rc;
    s->cur.ckpt = s->next_ckpt;
    if (!(s->cur.tid = tid_of(s, s->subtask, s->cur.ckpt)))
        return weir_op_fail(s->ctx, WEIR_ENOMEM, "out of memory");
    log_event(s, "begin", s->cur.tid, s->cur.ckpt, 0);
    if ((rc = fence(s, s->cur.tid, &s->cur.rk)))
        return rc;
    rd_kafka_error_t *e = rd_kafka_begin_transaction(s->cur.rk);
    if (e)
        return txn_fail(s, e, "begin", s->cur.tid);
    return 0;
}

static int ensure_producer(ksink *s)
{
    if (s->a->guarantee == KSINK_EXACTLY_ONCE)
        return ensure_txn(s);
    if (s->rk)
        return 0;
    return make_producer(s, NULL, &s->rk);
}

/* ------------------------------------------------------------- sending */

/* Stores a message for a later re-send: i32 partition, then key and value
 * as a u8 null flag and bytes each. */
static int put_msg(weir_buf *b, int32_t part, const void *k, size_t kl,
                   const void *v, size_t vl)
{
    int rc = weir_buf_put_u32(b, (uint32_t)part);
    if (!rc)
        rc = weir_buf_put_u8(b, k != NULL);
    if (!rc)
        rc = weir_buf_put_bytes(b, k ? k : "", k ? kl : 0);
    if (!rc)
        rc = weir_buf_put_u8(b, v != NULL);
    if (!rc)
        rc = weir_buf_put_bytes(b, v ? v : "", v ? vl : 0);
    return rc;
}

/*
 * The partition of the next message under 'fixed' and 'round-robin'
 * (librdkafka places a message without a key by its sticky partitioner,
 * never asking a partitioner callback, so weir chooses the partition
 * itself); RD_KAFKA_PARTITION_UA under 'default'.
 */
static int choose_partition(ksink *s, rd_kafka_t *rk, int32_t *out)
{
    *out = RD_KAFKA_PARTITION_UA;
    if (s->a->partitioner == KSINK_PART_DEFAULT)
        return 0;
    if (!s->n_parts) {
        rd_kafka_topic_t *rkt = rd_kafka_topic_new(rk, s->a->topic, NULL);
        const struct rd_kafka_metadata *md = NULL;
        rd_kafka_resp_err_t e =
            rkt ? rd_kafka_metadata(rk, 0, rkt, &md, 30000)
                : RD_KAFKA_RESP_ERR__INVALID_ARG;
        if (!e && md->topic_cnt == 1 && !md->topics[0].err)
            s->n_parts = (uint32_t)md->topics[0].partition_cnt;
        else if (!e && md->topic_cnt == 1)
            e = md->topics[0].err;
        if (md)
            rd_kafka_metadata_destroy(md);
        if (rkt)
            rd_kafka_topic_destroy(rkt);
        if (e || !s->n_parts)
            return weir_op_fail(s->ctx, WEIR_EIO,
                                "kafka sink: cannot read the partitions of "
                                "topic '%s': %s",
                                s->a->topic,
                                e ? rd_kafka_err2str(e) : "no partitions");
    }
    if (s->a->partitioner == KSINK_PART_FIXED)
        *out = (int32_t)(s->subtask % s->n_parts);
    else
        *out = (int32_t)(s->rr++ % s->n_parts);
    return 0;
}

static int produce(ksink *s, rd_kafka_t *rk, int32_t part, const void *k,
                   size_t kl, const void *v, size_t vl)
{
    for (;;) {
        rd_kafka_resp_err_t e = rd_kafka_producev(
            rk, RD_KAFKA_V_TOPIC(s->a->topic), RD_KAFKA_V_PARTITION(part),
            RD_KAFKA_V_KEY((void *)k, k ? kl : 0),
            RD_KAFKA_V_VALUE((void *)v, v ? vl : 0),
            RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
        if (!e)
            break;
        if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL)
            return weir_op_fail(s->ctx, WEIR_EIO,
                                "kafka sink: cannot write to topic '%s': %s",
                                s->a->topic, rd_kafka_err2str(e));
        /* The client's queue is full: wait for deliveries (backpressure). */
        rd_kafka_poll(rk, 10);
        if (weir_op_interrupted(s->ctx))
            return WEIR_ECANCELED;
    }
    rd_kafka_poll(rk, 0);
    if (s->dr_err && s->a->guarantee != KSINK_NONE)
        return flush_producer(s, rk);
    return 0;
}

/* Writes one message (key or value NULL: a null key or value). */
static int send_msg(ksink *s, const void *k, size_t kl, const void *v,
                    size_t vl)
{
    int rc = ensure_producer(s);
    if (rc)
        return rc;
    rd_kafka_t *rk = s->a->guarantee == KSINK_EXACTLY_ONCE ? s->cur.rk : s->rk;
    int32_t part;
    if ((rc = choose_partition(s, rk, &part)))
        return rc;
    if (s->a->guarantee == KSINK_EXACTLY_ONCE) {
        if (put_msg(&s->cur.msgs, part, k, kl, v, vl))
            return weir_op_fail(s->ctx, WEIR_ENOMEM, "out of memory");
        s->cur.n_msgs++;
    }
    return produce(s, rk, part, k, kl, v, vl);
}

/* A view of rows of b with the columns of one side only. */
static void side_view(const weir_batch *b, const ksink_side *side,
                      weir_column *cols, weir_batch *view)
{
    *view = *b;
    view->schema = side->schema;
    for (uint32_t i = 0; i < side->schema->n_fields; i++)
        cols[i] = b->cols[side->cols[i]];
    view->cols = cols;
}

/* Encodes row of view by side into out; *is_null for a NULL raw value. */
static int encode(ksink *s, const ksink_side *side, weir_encoder *enc,
                  const weir_batch *view, uint32_t row, weir_buf *out,
                  bool *is_null)
{
    weir_buf_clear(out);
    *is_null = false;
    if (side->raw) {
        if (weir_batch_is_null(view, 0, row)) {
            *is_null = true;
            return 0;
        }
        uint32_t len;
        const char *p = weir_batch_str(view, 0, row, &len);
        return weir_buf_put(out, p, len) ? WEIR_ENOMEM : 0;
    }
    weir_error err = {0};
    int rc = weir_encoder_encode(enc, view, row, out, &err);
    if (rc)
        return weir_op_fail(s->ctx, rc, "kafka sink: %s", err.message);
    if (out->len && out->data[out->len - 1] == '\n')
        out->len--; /* a message is one record, without a line break */
    return 0;
}

/* ------------------------------------------------------- upsert buffer */

static uint64_t hash_bytes(const void *p, size_t n)
{
    const uint8_t *b = p;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static int buffer_flush(ksink *s)
{
    int rc = 0;
    for (uint32_t i = 0; i < s->n_ents && !rc; i++) {
        const kentry *e = &s->ents[i];
        const char *base = (const char *)s->arena.data;
        rc = send_msg(s, base + e->key_off, e->key_len,
                      e->tombstone ? NULL : base + e->val_off, e->val_len);
    }
    s->n_ents = 0;
    weir_buf_clear(&s->arena);
    if (s->slots)
        memset(s->slots, 0, s->n_slots * sizeof *s->slots);
    s->last_flush_ms = weir_clock_now(&s->a->clock);
    return rc;
}

static int buffer_grow(ksink *s)
{
    uint32_t n = s->n_slots ? s->n_slots * 2 : 1024;
    uint32_t *v = weir_calloc(n, sizeof *v);
    if (!v)
        return WEIR_ENOMEM;
    weir_free(s->slots);
    s->slots = v;
    s->n_slots = n;
    for (uint32_t i = 0; i < s->n_ents; i++) {
        const kentry *e = &s->ents[i];
        uint64_t h = hash_bytes(s->arena.data + e->key_off, e->key_len);
        uint32_t j = (uint32_t)h & (n - 1);
        while (s->slots[j])
            j = (j + 1) & (n - 1);
        s->slots[j] = i + 1;
    }
    return 0;
}

/* Keeps the change (key, value or tombstone) as its key's last. */
static int buffer_put(ksink *s, const weir_buf *k, const weir_buf *v,
                      bool tombstone)
{
    if ((s->n_ents + 1) * 2 > s->n_slots && buffer_grow(s))
        return WEIR_ENOMEM;
    uint64_t h = hash_bytes(k->data, k->len);
    uint32_t j = (uint32_t)h & (s->n_slots - 1);
    kentry *e = NULL;
    while (s->slots[j]) {
        kentry *c = &s->ents[s->slots[j] - 1];
        if (c->key_len == k->len &&
            !memcmp(s->arena.data + c->key_off, k->data, k->len)) {
            e = c;
            break;
        }
        j = (j + 1) & (s->n_slots - 1);
    }
    if (!e) {
        if (s->n_ents == s->cap_ents) {
            uint32_t cap = s->cap_ents ? s->cap_ents * 2 : 256;
            kentry *ne = weir_realloc(s->ents, cap * sizeof *ne);
            if (!ne)
                return WEIR_ENOMEM;
            s->ents = ne;
            s->cap_ents = cap;
        }
        e = &s->ents[s->n_ents];
        s->slots[j] = ++s->n_ents;
        e->key_off = s->arena.len;
        e->key_len = k->len;
        if (weir_buf_put(&s->arena, k->data, k->len))
            return WEIR_ENOMEM;
    }
    /* A replaced value stays in the arena until the flush resets it. */
    e->tombstone = tombstone;
    e->val_off = s->arena.len;
    e->val_len = tombstone ? 0 : v->len;
    if (!tombstone && weir_buf_put(&s->arena, v->data, v->len))
        return WEIR_ENOMEM;
    return 0;
}

static bool buffering(const ksink *s)
{
    return s->a->upsert && s->a->buffer_max_rows > 0;
}

static int buffer_maybe_flush(ksink *s)
{
    if (!buffering(s) || !s->n_ents)
        return 0;
    int64_t now = weir_clock_now(&s->a->clock);
    if ((int64_t)s->n_ents >= s->a->buffer_max_rows ||
        now - s->last_flush_ms >= s->a->buffer_interval_ms)
        return buffer_flush(s);
    return 0;
}

/* ------------------------------------------------------------ operator */

static int send_pending_ub(ksink *s);

int weir__kafka_sink_create(void *argp, const weir_op_info *info, void **out)
{
    const ksink_arg *a = argp;
    ksink *s = weir_calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    s->a = a;
    s->subtask = info->subtask;
    s->next_ckpt = 1;
    s->log_fd = -1;
    weir_buf_init(&s->kbuf);
    weir_buf_init(&s->vbuf);
    weir_buf_init(&s->ubkey);
    weir_buf_init(&s->arena);
    *out = s;
    return 0;
}

static int ksink_open(void *op, weir_op_ctx *ctx)
{
    ksink *s = op;
    s->ctx = ctx;
    const ksink_arg *a = s->a;
    weir_error err = {0};
    int rc;
    /* Transactional ids, marker groups and the 'fixed' partition name the
     * instance among every process's instances (a job run by several
     * processes: cluster/cluster.h): unique across the job, and the same
     * when this process comes back, so that it fences its own zombie. */
    uint32_t par;
    weir__op_instance(ctx, &s->subtask, &par, &s->last_id, &s->restored_id);
    if (a->event_log) {
        s->log_fd = open(a->event_log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
                         0644);
        if (s->log_fd < 0)
            return weir_op_fail(ctx, WEIR_EIO, "kafka sink: cannot open %s: %s",
                                a->event_log, strerror(errno));
    }
    if (a->key.present && !a->key.raw &&
        (rc = weir_encoder_create(&a->key.fmt, a->key.schema, &s->kenc, &err)))
        return weir_op_fail(ctx, rc, "kafka sink key: %s", err.message);
    if (!a->value.raw &&
        (rc = weir_encoder_create(&a->value.fmt, a->value.schema, &s->venc,
                                  &err)))
        return weir_op_fail(ctx, rc, "kafka sink value: %s", err.message);
    s->kcols = weir_calloc(a->key.present ? a->key.schema->n_fields : 1,
                           sizeof *s->kcols);
    s->vcols = weir_calloc(a->value.schema->n_fields, sizeof *s->vcols);
    if (!s->kcols || !s->vcols)
        return weir_op_fail(ctx, WEIR_ENOMEM, "out of memory");
    s->last_flush_ms = weir_clock_now(&a->clock);
    return 0;
}

static int ksink_process(void *op, weir_op_ctx *ctx, int input,
                         const weir_batch *b)
{
    (void)input;
    ksink *s = op;
    s->ctx = ctx;
    const ksink_arg *a = s->a;
    weir_batch kv, vv;
    /* A key is one row, and an upsert's value is the row as it now is:
     * both are encoded as inserts, whatever the change. */
    if (b->n_rows > s->cap_inserts) {
        uint8_t *v = weir_calloc(b->n_rows, 1);
        if (!v)
            return weir_op_fail(ctx, WEIR_ENOMEM, "out of memory");
        weir_free(s->inserts);
        s->inserts = v;
        s->cap_inserts = b->n_rows;
    }
    if (a->key.present) {
        side_view(b, &a->key, s->kcols, &kv);
        kv.kind = s->inserts;
    }
    side_view(b, &a->value, s->vcols, &vv);
    if (a->upsert)
        vv.kind = s->inserts;
    int rc = 0;
    for (uint32_t r = 0; r < b->n_rows && !rc; r++) {
        weir_row_kind kind = (weir_row_kind)b->kind[r];
        bool tombstone = false, knull = !a->key.present, vnull = false;
        if (a->upsert) {
            tombstone = kind == WEIR_ROW_DELETE ||
                        kind == WEIR_ROW_UPDATE_BEFORE;
        } else if (kind != WEIR_ROW_INSERT &&
                   (a->value.raw ||
                    !weir_format_is_changelog(a->value.fmt.kind))) {
            return weir_op_fail(ctx, WEIR_EUNSUPPORTED,
                                "kafka sink: a %s row reached an append-only "
                                "sink (topic '%s'); write a changelog with "
                                "'upsert-kafka' or 'debezium-json'",
                                weir_row_kind_name(kind), a->topic);
        }
        if (a->key.present &&
            (rc = encode(s, &a->key, s->kenc, &kv, r, &s->kbuf, &knull)))
            break;
        if (!tombstone &&
            (rc = encode(s, &a->value, s->venc, &vv, r, &s->vbuf, &vnull)))
            break;
        if (tombstone)
            vnull = true;
        /*
         * -U: dropped when the +U of its key follows (the +U replaces the
         * value, as in Flink); a -U that nothing follows (a filter above
         * the aggregation dropped its +U) deletes the key. Buffered, it
         * is a tombstone that the +U overwrites.
         */
        if (s->has_ub) {
            bool replaced = !tombstone && s->ubkey.len == s->kbuf.len &&
                            !memcmp(s->ubkey.data, s->kbuf.data, s->kbuf.len);
            if (!replaced && (rc = send_pending_ub(s)))
                break;
            s->has_ub = false;
        }
        if (a->upsert && kind == WEIR_ROW_UPDATE_BEFORE && !buffering(s)) {
            weir_buf_clear(&s->ubkey);
            if (weir_buf_put(&s->ubkey, s->kbuf.data, s->kbuf.len))
                return weir_op_fail(ctx, WEIR_ENOMEM, "out of memory");
            s->ub_knull = knull;
            s->has_ub = true;
            continue;
        }
        if (buffering(s)) {
            rc = buffer_put(s, &s->kbuf, &s->vbuf, vnull);
            if (rc)
                return weir_op_fail(ctx, rc, "out of memory");
            if ((int64_t)s->n_ents >= a->buffer_max_rows)
                rc = buffer_flush(s);
            continue;
        }
        rc = send_msg(s, knull ? NULL : s->kbuf.data, s->kbuf.len,
                      vnull ? NULL : s->vbuf.data, s->vbuf.len);
    }
    if (!rc)
        rc = buffer_maybe_flush(s);
    return rc;
}

/* The tombstone of a -U whose +U did not follow. */
static int send_pending_ub(ksink *s)
{
    s->has_ub = false;
    return send_msg(s, s->ub_knull ? NULL : s->ubkey.data, s->ubkey.len, NULL,
                    0);
}

static int ksink_watermark(void *op, weir_op_ctx *ctx, weir_ts wm)
{
    (void)wm;
    ksink *s = op;
    s->ctx = ctx;
    return buffer_maybe_flush(s);
}

static int add_pending(ksink *s, ktxn *t)
{
    if (s->n_pending == s->cap_pending) {
        uint32_t cap = s->cap_pending ? s->cap_pending * 2 : 4;
        ktxn *v = weir_realloc(s->pending, cap * sizeof *v);
        if (!v)
            return weir_op_fail(s->ctx, WEIR_ENOMEM, "out of memory");
        s->pending = v;
        s->cap_pending = cap;
    }
    s->pending[s->n_pending++] = *t;
    memset(t, 0, sizeof *t);
    return 0;
}

static int write_state(ksink *s, uint64_t ckpt_id, weir_buf *out)
{
    int rc = weir_buf_put_u32(out, KSINK_STATE_VERSION);
    if (!rc)
        rc = weir_buf_put_u32(out, s->subtask);
    if (!rc)
        rc = weir_buf_put_u64(out, ckpt_id);
    if (!rc)
        rc = weir_buf_put_u32(out, s->n_pending);
    for (uint32_t i = 0; i < s->n_pending && !rc; i++) {
        const ktxn *t = &s->pending[i];
        rc = weir_buf_put_str(out, t->tid);
        if (!rc)
            rc = weir_buf_put_u64(out, t->ckpt);
        if (!rc)
            rc = weir_buf_put_u64(out, t->n_msgs);
        if (!rc)
            rc = weir_buf_put_bytes(out, t->msgs.data, t->msgs.len);
    }
    return rc ? weir_op_fail(s->ctx, WEIR_ENOMEM, "out of memory") : 0;
}

static int ksink_snapshot(void *op, weir_op_ctx *ctx, uint64_t ckpt_id,
                          weir_buf *out)
{
    ksink *s = op;
    s->ctx = ctx;
    int rc = s->has_ub ? send_pending_ub(s) : 0;
    if (!rc && buffering(s))
        rc = buffer_flush(s);
    if (rc)
        return rc;
    switch (s->a->guarantee) {
    case KSINK_NONE:
        break;
    case KSINK_AT_LEAST_ONCE:
        if (s->rk && (rc = flush_producer(s, s->rk)))
            return rc;
        break;
    case KSINK_EXACTLY_ONCE:
        if ((rc = ensure_fenced(s)))
            return rc;
        if (s->cur.rk) {
            if ((rc = flush_producer(s, s->cur.rk)))
                return rc;
            s->cur.ckpt = ckpt_id;
            log_event(s, "precommit", s->cur.tid, ckpt_id, s->cur.n_msgs);
            if ((rc = add_pending(s, &s->cur)))
                return rc;
        }
        if (ckpt_id + 1 > s->next_ckpt)
            s->next_ckpt = ckpt_id + 1;
        break;
    }
    return write_state(s, ckpt_id, out);
}

static int ksink_checkpoint_complete(void *op, weir_op_ctx *ctx,
                                     uint64_t ckpt_id)
{
    ksink *s = op;
    s->ctx = ctx;
    uint32_t kept = 0;
    int rc = 0;
    for (uint32_t i = 0; i < s->n_pending; i++) {
        ktxn *t = &s->pending[i];
        if (rc || t->ckpt > ckpt_id) {
            s->pending[kept++] = *t;
            continue;
        }
        if (t->rk) {
            rc = commit_txn(s, t, s->subtask);
            if (!rc)
                log_event(s, "commit", t->tid, t->ckpt, t->n_msgs);
        }
        if (rc)
            s->pending[kept++] = *t;
        else
            txn_fini(t);
    }
    s->n_pending = kept;
    return rc;
}

/* Commits a transaction of a restored checkpoint again, unless its marker
 * says it committed: fence, re-send its messages, commit. */
static int recover_txn(ksink *s, ktxn *t, uint32_t subtask)
{
    if (committed_marker(s, subtask) >= t->ckpt) {
        log_event(s, "recover-skip", t->tid, t->ckpt, t->n_msgs);
        return 0;
    }
    int rc = fence(s, t->tid, &t->rk);
    if (rc)
        return rc;
    rd_kafka_error_t *e = rd_kafka_begin_transaction(t->rk);
    if (e)
        return txn_fail(s, e, "begin", t->tid);
    weir_cursor c;
    weir_cursor_init(&c, t->msgs.data, t->msgs.len);
    for (uint64_t i = 0; i < t->n_msgs; i++) {
        uint32_t part;
        uint8_t has_k, has_v;
        const void *k, *v;
        size_t kl, vl;
        if (weir_cursor_get_u32(&c, &part) || weir_cursor_get_u8(&c, &has_k) ||
            weir_cursor_get_bytes(&c, &k, &kl) ||
            weir_cursor_get_u8(&c, &has_v) ||
            weir_cursor_get_bytes(&c, &v, &vl))
            return weir_op_fail(s->ctx, WEIR_ECORRUPT,
                                "kafka sink: the snapshot of transaction '%s' "
                                "is corrupt",
                                t->tid);
        if ((rc = produce(s, t->rk, (int32_t)part, has_k ? k : NULL, kl,
                          has_v ? v : NULL, vl)))
            return rc;
    }
    if ((rc = flush_producer(s, t->rk)) || (rc = commit_txn(s, t, subtask)))
        return rc;
    log_event(s, "recover-commit", t->tid, t->ckpt, t->n_msgs);
    return 0;
}

static int ksink_restore(void *op, weir_op_ctx *ctx, weir_cursor *in)
{
    ksink *s = op;
    s->ctx = ctx;
    uint32_t version, subtask, n;
    uint64_t ckpt;
    if (weir_cursor_get_u32(in, &version) || version != KSINK_STATE_VERSION ||
        weir_cursor_get_u32(in, &subtask) || weir_cursor_get_u64(in, &ckpt) ||
        weir_cursor_get_u32(in, &n))
        return weir_op_fail(ctx, WEIR_ECORRUPT,
                            "kafka sink: the snapshot is corrupt or of "
                            "another version");
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        ktxn t = {0};
        const void *p;
        size_t len;
        if (weir_cursor_get_str(in, &t.tid) ||
            weir_cursor_get_u64(in, &t.ckpt) ||
            weir_cursor_get_u64(in, &t.n_msgs) ||
            weir_cursor_get_bytes(in, &p, &len)) {
            weir_free(t.tid);
            return weir_op_fail(ctx, WEIR_ECORRUPT,
                                "kafka sink: the snapshot is corrupt");
        }
        weir_buf_init(&t.msgs);
        if (weir_buf_put(&t.msgs, p, len))
            rc = weir_op_fail(ctx, WEIR_ENOMEM, "out of memory");
        /* The restored checkpoint completed: what it pre-committed is
         * committed now (the exactly-once guarantee's recovery). */
        if (!rc && s->a->guarantee == KSINK_EXACTLY_ONCE)
            rc = recover_txn(s, &t, subtask);
        txn_fini(&t);
    }
    if (rc || s->a->guarantee != KSINK_EXACTLY_ONCE)
        return rc;
    if (subtask == s->subtask) {
        if (ckpt + 1 > s->next_ckpt)
            s->next_ckpt = ckpt + 1;
        s->fenced = true;
    }
    /* Transactions the crashed run opened after the restored checkpoint. */
    return fence_lingering(s, subtask, ckpt + 1);
}

/* End of input, or a stop: what was written is final. With a final
 * checkpoint coming, it commits (exactly-once); otherwise commit now. */
static int ksink_finish(void *op, weir_op_ctx *ctx)
{
    ksink *s = op;
    s->ctx = ctx;
    int rc = s->has_ub ? send_pending_ub(s) : 0;
    if (!rc && buffering(s))
        rc = buffer_flush(s);
    if (rc)
        return rc;
    if (s->a->guarantee != KSINK_EXACTLY_ONCE)
        return s->rk ? flush_producer(s, s->rk) : 0;
    if (weir__op_final_checkpoint(ctx) || !s->cur.rk)
        return 0;
    if ((rc = flush_producer(s, s->cur.rk)))
        return rc;
    log_event(s, "precommit", s->cur.tid, s->cur.ckpt, s->cur.n_msgs);
    if ((rc = commit_txn(s, &s->cur, s->subtask)))
        return rc;
    log_event(s, "commit", s->cur.tid, s->cur.ckpt, s->cur.n_msgs);
    txn_fini(&s->cur);
    return 0;
}

static void ksink_close(void *op)
{
    ksink *s = op;
    if (!s)
        return;
    /* An open or pre-committed transaction is left to the broker: the next
     * run takes its id over (aborting it) or commits it again. */
    txn_fini(&s->cur);
    for (uint32_t i = 0; i < s->n_pending; i++)
        txn_fini(&s->pending[i]);
    weir_free(s->pending);
    if (s->rk)
        rd_kafka_destroy(s->rk);
    weir_encoder_destroy(s->kenc);
    weir_encoder_destroy(s->venc);
    weir_free(s->kcols);
    weir_free(s->inserts);
    weir_free(s->vcols);
    weir_buf_fini(&s->kbuf);
    weir_buf_fini(&s->vbuf);
    weir_buf_fini(&s->ubkey);
    weir_buf_fini(&s->arena);
    weir_free(s->ents);
    weir_free(s->slots);
    if (s->log_fd >= 0)
        close(s->log_fd);
    weir_free(s);
}

const weir_operator_class weir__kafka_sink_class = {
    .name = "kafka",
    .open = ksink_open,
    .process = ksink_process,
    .watermark = ksink_watermark,
    .snapshot = ksink_snapshot,
    .restore = ksink_restore,
    .checkpoint_complete = ksink_checkpoint_complete,
    .finish = ksink_finish,
    .stop = ksink_finish,
    .close = ksink_close,
};

#endif /* WEIR_HAVE_KAFKA */
