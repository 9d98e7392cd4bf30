/*
 * cluster/control.c - membership, checkpoints and restarts of a job run by
 * several processes, through the job's control topic (control.h).
 *
 * The control topic <job>-control (one partition) is the job's log of
 * decisions; every process reads all of it in order and so reaches the
 * same conclusions. A record is 27 bytes:
 *   u8 'C', u8 type, u32 process, u32 epoch, u64 checkpoint id, u8 flag,
 *   u32 processes, u32 repartition partitions
 * (little endian), by type:
 *   JOIN      process takes part in epoch, which has `processes` processes
 *             (id: a number that tells its writer that it read its own
 *             record back); the first JOIN of the log sets the job's
 *             processes and partitions
 *   RESTART   process started again after it had joined epoch - 1: every
 *             process restores the last checkpoint completed before this
 *             record in the log, and goes on at epoch (id as for JOIN)
 *   RESCALE   as RESTART, but epoch has another number of processes: a
 *             process started with weir.cluster.processes other than the
 *             job's asked for it (a new one joining, or fewer processes)
 *   TRIGGER   the leader (process 0) triggered checkpoint id
 *   ACK       process's part of checkpoint id is durable (flag: final)
 *   COMPLETE  every process acknowledged checkpoint id in epoch (flag:
 *             every part was final: the job ended everywhere)
 * and the savepoint records SP_REQUEST, SP_TRIGGER, SP_ACK and
 * SP_COMPLETE (types 16 and up; see "savepoints" below).
 *
 * Invariants: records of an epoch below the current one are ignored (their
 * writer has not seen the restart yet); so are membership records of the
 * current epoch with another process count, and any record of a process
 * outside the epoch's count; the number of processes of an epoch comes
 * from the record that opened it, never from a process's own options; the
 * repartition partitions never change; a checkpoint is complete only after
 * a COMPLETE of the current epoch, and the last one before a RESTART or
 * RESCALE in the log is the one every process restores, over the
 * processes of the epoch that record opens, from the parts of the
 * processes of the epoch in which it completed; the leader writes
 * COMPLETE once per checkpoint, after one ACK of the current epoch from
 * every process of the epoch; checkpoint ids only grow (the leader starts
 * above every TRIGGER in the log).
 */
#ifdef WEIR_HAVE_KAFKA

#include <librdkafka/rdkafka.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "checkpoint/storage.h"
#include "cluster/control.h"
#include "runtime/runtime.h"
#include "util/io.h"

#define REC_LEN 27
#define OLD_REC_LEN 19 /* records written before the process count */
#define POLL_MS 20
/* weir.cluster.processes at most (cluster.c) */
#define MAX_PROCS 1024

enum { C_JOIN = 1, C_RESTART, C_TRIGGER, C_ACK, C_COMPLETE, C_RESCALE };
/* Savepoints of the whole job (their own records; see "savepoints"). */
enum {
    C_SP_REQUEST = 16,
    C_SP_TRIGGER,
    C_SP_ACK,
    C_SP_COMPLETE,
};
#define SP_MAX_QUEUE 64

/* Whether this OS process joined a job before: a run again after a
 * failure (restart-strategy) follows the log's process count instead of
 * asking for its own. */
static _Atomic bool g_joined_once;

typedef struct ackset {
    uint64_t id;
    uint8_t *from; /* per process */
    uint32_t n;
    bool final;
} ackset;

struct weir__control {
    weir__cluster_conf conf; /* conf.epoch: this run's */
    char *servers, *topic, *dir, *restore;
    rd_kafka_t *prod, *cons;
    rd_kafka_topic_t *prkt;
    weir_job *job;

    /* the log as read so far */
    uint32_t first_epoch; /* weir.cluster.epoch: older records are ignored */
    uint32_t epoch;       /* current */
    uint32_t count;       /* processes of the current epoch (0: none yet) */
    uint32_t partitions;  /* of every repartition topic (0: not in the log) */
    uint8_t *joined;      /* per process, in epoch */
    uint64_t complete;    /* last complete checkpoint to restore (0: none) */
    uint32_t complete_count; /* processes of the epoch it completed in */
    bool complete_final;
    char **parts;         /* per process that took the checkpoint to restore:
                             its part, or NULL */
    uint32_t n_parts;
    weir__cluster_restore *combined;
    uint64_t max_trigger;
    uint64_t last_trigger; /* of the current epoch, read at the start */
    uint64_t done_id; /* leader: last COMPLETE written */
    uint64_t nonce;   /* in this process's JOIN or RESTART record */
    bool seen_own;    /* that record was read back */
    ackset *acks;
    uint32_t n_acks;

    pthread_t thread;
    bool thread_started;
    _Atomic bool quit;
    pthread_mutex_t mu; /* triggers */
    uint64_t *triggers;
    uint32_t n_triggers, cap_triggers;
    bool aborted;
    weir__ckpt_gate gate;

    /* savepoints (under mu): requests of the epoch not yet triggered, in
     * the log's order; the savepoints triggered and whose request they
     * answer; the leader's one in flight and its acknowledgements */
    struct sp_req {
        uint32_t proc;
        uint64_t nonce;
        bool stop;
    } sp_queue[SP_MAX_QUEUE];
    uint32_t n_sp_queue;
    struct sp_taken {
        uint64_t id;
        uint32_t proc;
        uint64_t nonce;
        bool stop;
    } sp_taken[SP_MAX_QUEUE];
    uint32_t n_sp_taken;
    bool sp_busy;        /* leader: a request taken, not answered yet */
    uint64_t sp_ack_id;  /* leader: the savepoint whose acks these are */
    uint8_t *sp_ack_from;
    uint32_t sp_acks;
    bool sp_failed, sp_done;
    char sp_part[32];
    char *sp_restore; /* the savepoint this run restores, or NULL */
};

static void put_rec(uint8_t *b, uint8_t type, uint32_t proc, uint32_t epoch,
                    uint64_t id, uint8_t flag, uint32_t count, uint32_t parts)
{
    b[0] = 'C';
    b[1] = type;
    for (int i = 0; i < 4; i++) {
        b[2 + i] = (uint8_t)(proc >> (8 * i));
        b[6 + i] = (uint8_t)(epoch >> (8 * i));
    }
    for (int i = 0; i < 8; i++)
        b[10 + i] = (uint8_t)(id >> (8 * i));
    b[18] = flag;
    for (int i = 0; i < 4; i++) {
        b[19 + i] = (uint8_t)(count >> (8 * i));
        b[23 + i] = (uint8_t)(parts >> (8 * i));
    }
}

static int produce_as(weir__control *c, uint8_t type, uint64_t id,
                      uint8_t flag, uint32_t epoch, uint32_t count, bool wait,
                      weir_error *err)
{
    uint8_t b[REC_LEN];
    put_rec(b, type, c->conf.index, epoch, id, flag, count, c->partitions);
    if (rd_kafka_produce(c->prkt, 0, RD_KAFKA_MSG_F_COPY, b, sizeof b, NULL, 0,
                         NULL) != 0)
        return weir_error_set(err, WEIR_EIO, "control topic '%s': %s",
                              c->topic, rd_kafka_err2str(rd_kafka_last_error()));
    rd_kafka_poll(c->prod, 0);
    if (wait && rd_kafka_flush(c->prod, 10000) != RD_KAFKA_RESP_ERR_NO_ERROR)
        return weir_error_set(err, WEIR_EIO,
                              "control topic '%s': a record was not "
                              "delivered in 10 s",
                              c->topic);
    return 0;
}

static int produce(weir__control *c, uint8_t type, uint64_t id, uint8_t flag,
                   uint32_t epoch, bool wait, weir_error *err)
{
    return produce_as(c, type, id, flag, epoch, c->count, wait, err);
}

static ackset *find_acks(weir__control *c, uint64_t id)
{
    for (uint32_t i = 0; i < c->n_acks; i++)
        if (c->acks[i].id == id)
            return &c->acks[i];
    ackset *n = weir_realloc(c->acks, (c->n_acks + 1) * sizeof *n);
    if (!n)
        return NULL;
    c->acks = n;
    ackset *a = &c->acks[c->n_acks];
    a->from = weir_calloc(MAX_PROCS, 1);
    if (!a->from)
        return NULL;
    a->id = id;
    a->n = 0;
    a->final = true;
    c->n_acks++;
    return a;
}

static void drop_acks(weir__control *c)
{
    for (uint32_t i = 0; i < c->n_acks; i++)
        weir_free(c->acks[i].from);
    weir_free(c->acks);
    c->acks = NULL;
    c->n_acks = 0;
}

/* The leader: every process acknowledged id. */
static void leader_ack(weir__control *c, uint32_t proc, uint64_t id, bool fin)
{
    if (id <= c->done_id)
        return;
    ackset *a = find_acks(c, id);
    if (!a || a->from[proc])
        return;
    a->from[proc] = 1;
    a->n++;
    a->final = a->final && fin;
    if (a->n < c->count)
        return;
    weir_error e = {0};
    c->done_id = id;
    bool final = a->final;
    /* acks of older checkpoints will not be needed any more */
    uint32_t k = 0;
    for (uint32_t i = 0; i < c->n_acks; i++) {
        if (c->acks[i].id > id)
            c->acks[k++] = c->acks[i];
        else
            weir_free(c->acks[i].from);
    }
    c->n_acks = k;
    if (produce(c, C_COMPLETE, id, final ? 1 : 0, c->epoch, true, &e))
        weir__job_abort(c->job, WEIR_EIO, e.message);
}

static void queue_trigger_locked(weir__control *c, uint64_t id)
{
    if (c->n_triggers == c->cap_triggers) {
        uint32_t cap = c->cap_triggers ? c->cap_triggers * 2 : 8;
        uint64_t *t = weir_realloc(c->triggers, cap * sizeof *t);
        if (t) {
            c->triggers = t;
            c->cap_triggers = cap;
        }
    }
    if (c->n_triggers < c->cap_triggers)
        c->triggers[c->n_triggers++] = id;
}

static void queue_trigger(weir__control *c, uint64_t id)
{
    pthread_mutex_lock(&c->mu);
    queue_trigger_locked(c, id);
    pthread_mutex_unlock(&c->mu);
}

/* ---- savepoints ----
 *
 * A savepoint of the whole job: any process writes SP_REQUEST (id: the
 * request's number, flag: stop). The leader takes the requests one at a
 * time in the log's order: it triggers savepoint n as a checkpoint whose
 * parts go to state.savepoints.dir, and writes SP_TRIGGER n (flag: stop;
 * n 0: refused), which answers the oldest request not answered yet, in
 * every process's reading of the log. Every other process takes its part
 * of n when it reads it (with stop: its sources end right after barrier
 * n); each writes SP_ACK n (flag 1: its part is written, 0: it failed).
 * With every part written the leader writes savepoint-<n>/_cluster, then
 * SP_COMPLETE n (flag 1: complete, 0: failed), which answers the request.
 */

static void sp_reset(weir__control *c)
{
    pthread_mutex_lock(&c->mu);
    c->n_sp_queue = c->n_sp_taken = 0;
    c->sp_busy = false;
    c->sp_ack_id = 0;
    pthread_mutex_unlock(&c->mu);
}

/* The request that savepoint id answers (NULL: none known). */
static struct sp_taken *sp_find(weir__control *c, uint64_t id)
{
    for (uint32_t i = 0; i < c->n_sp_taken; i++)
        if (c->sp_taken[i].id == id)
            return &c->sp_taken[i];
    return NULL;
}

static void sp_seal(weir__control *c, uint64_t id)
{
    char text[600];
    snprintf(text, sizeof text,
             "weir cluster savepoint 1\nid %llu\nprocesses %u\n"
             "partitions %u\nepoch %u\ncontrol %s\n",
             (unsigned long long)id, c->count, c->partitions, c->epoch,
             c->topic);
    weir_error e = {0};
    int rc = weir__ckpt_savepoint_seal(c->job, id, text);
    if (rc)
        fprintf(stderr,
                "weir: savepoint %llu: cannot write its _cluster file: %s\n",
                (unsigned long long)id, weir_strerror(rc));
    if (produce(c, C_SP_COMPLETE, id, rc ? 0 : 1, c->epoch, false, &e))
        weir__job_abort(c->job, WEIR_EIO, e.message);
}

static void apply_sp(weir__control *c, uint8_t type, uint32_t proc,
                     uint64_t id, uint8_t flag, bool live)
{
    pthread_mutex_lock(&c->mu);
    uint64_t answer_nonce = 0, answer_id = 0;
    int answer_code = -1;
    const char *why = NULL;
    bool seal = false;
    switch (type) {
    case C_SP_REQUEST:
        if (c->n_sp_queue < SP_MAX_QUEUE)
            c->sp_queue[c->n_sp_queue++] =
                (struct sp_req){proc, id, (flag & 1) != 0};
        break;
    case C_SP_TRIGGER: {
        if (c->n_sp_queue == 0)
            break;
        struct sp_req r = c->sp_queue[0];
        memmove(c->sp_queue, c->sp_queue + 1,
                (c->n_sp_queue - 1) * sizeof *c->sp_queue);
        c->n_sp_queue--;
        if (!id) {
            c->sp_busy = false;
            answer_nonce = r.proc == c->conf.index ? r.nonce : 0;
            answer_code = WEIR_EINVAL;
            why = "the leader could not take it: its log says why";
            break;
        }
        if (c->n_sp_taken == SP_MAX_QUEUE) {
            memmove(c->sp_taken, c->sp_taken + 1,
                    (SP_MAX_QUEUE - 1) * sizeof *c->sp_taken);
            c->n_sp_taken--;
        }
        c->sp_taken[c->n_sp_taken++] =
            (struct sp_taken){id, r.proc, r.nonce, (flag & 1) != 0};
        if (live && !c->gate.leader)
            queue_trigger_locked(c, id);
        break;
    }
    case C_SP_ACK:
        if (!live || !c->gate.leader || !c->sp_ack_from)
            break;
        if (c->sp_ack_id != id) {
            c->sp_ack_id = id;
            memset(c->sp_ack_from, 0, MAX_PROCS);
            c->sp_acks = 0;
            c->sp_failed = c->sp_done = false;
        }
        if (c->sp_done || c->sp_ack_from[proc])
            break;
        c->sp_ack_from[proc] = 1;
        c->sp_acks++;
        c->sp_failed = c->sp_failed || !(flag & 1);
        if (c->sp_failed || c->sp_acks == c->count) {
            c->sp_done = true;
            seal = !c->sp_failed;
            if (c->sp_failed) {
                weir_error e = {0};
                if (produce(c, C_SP_COMPLETE, id, 0, c->epoch, false, &e))
                    weir__job_abort(c->job, WEIR_EIO, e.message);
            }
        }
        break;
    case C_SP_COMPLETE: {
        struct sp_taken *t = sp_find(c, id);
        c->sp_busy = false;
        answer_id = id;
        answer_nonce = t && t->proc == c->conf.index ? t->nonce : 0;
        answer_code = (flag & 1) ? 0 : WEIR_EIO;
        if (answer_code)
            why = "a process could not write its part (its log says why)";
        break;
    }
    default:
        break;
    }
    pthread_mutex_unlock(&c->mu);
    if (seal)
        sp_seal(c, id);
    if (live && c->job && answer_code >= 0)
        weir__ckpt_global_savepoint(c->job, answer_id, answer_nonce,
                                    answer_code, why);
}

/*
 * Applies one record to the state. live: the job runs (triggers, acks and
 * completions act on it); otherwise the log is being read at the start.
 */
static void apply(weir__control *c, const uint8_t *p, size_t len, bool live)
{
    /* After a restart record nothing counts here any more: a COMPLETE
     * behind it in the log (the leader had not seen it yet) must not prune
     * the checkpoint every process goes back to. */
    if (len != REC_LEN || p[0] != 'C' || (live && c->aborted))
        return;
    uint32_t proc = 0, epoch = 0, count = 0, parts = 0;
    uint64_t id = 0;
    for (int i = 0; i < 4; i++) {
        proc |= (uint32_t)p[2 + i] << (8 * i);
        epoch |= (uint32_t)p[6 + i] << (8 * i);
        count |= (uint32_t)p[19 + i] << (8 * i);
        parts |= (uint32_t)p[23 + i] << (8 * i);
    }
    for (int i = 0; i < 8; i++)
        id |= (uint64_t)p[10 + i] << (8 * i);
    uint8_t type = p[1], flag = p[18];
    if (type >= C_SP_REQUEST) {
        if (epoch >= c->first_epoch && epoch == c->epoch && proc < c->count)
            apply_sp(c, type, proc, id, flag, live);
        return;
    }
    bool member = type == C_JOIN || type == C_RESTART || type == C_RESCALE;
    /* Its writer reads it back whatever it decides (it may decide again). */
    if (member && id == c->nonce && id)
        c->seen_own = true;
    if (epoch < c->first_epoch || proc >= MAX_PROCS)
        return;
    if (type == C_TRIGGER && id > c->max_trigger)
        c->max_trigger = id;
    if (epoch < c->epoch)
        return; /* its writer has not seen the restart yet */
    if (type == C_TRIGGER && !live && epoch == c->epoch)
        c->last_trigger = id;
    if (epoch > c->epoch || (member && c->count == 0)) {
        /* A new epoch, opened by a membership record of a valid count. */
        if (!member || count == 0 || count > MAX_PROCS || proc >= count ||
            parts == 0 || (c->partitions && parts != c->partitions))
            return;
        if (live) {
            /* Another process restarted, or asked for another count:
             * every one goes back. */
            if (!c->aborted) {
                char msg[400];
                if (count != c->count)
                    snprintf(msg, sizeof msg,
                             "process %u asked for %u processes instead of "
                             "%u: every process goes on from checkpoint "
                             "%llu at epoch %u (restart-strategy runs this "
                             "one again)",
                             proc, count, c->count,
                             (unsigned long long)c->complete, epoch);
                else
                    snprintf(msg, sizeof msg,
                             "process %u of the job restarted: every process "
                             "goes on from checkpoint %llu at epoch %u (start "
                             "this one again, or let restart-strategy do it)",
                             proc, (unsigned long long)c->complete, epoch);
                c->aborted = true;
                weir__job_abort(c->job, WEIR_ESTATE, msg);
            }
            return;
        }
        /* The checkpoint to restore is the last one completed before
         * this record in the log (c->complete), whatever its writer saw. */
        c->epoch = epoch;
        c->count = count;
        c->partitions = parts;
        c->last_trigger = 0;
        memset(c->joined, 0, MAX_PROCS);
        drop_acks(c);
        sp_reset(c);
    } else if (proc >= c->count || (member && count != c->count)) {
        return; /* not a member of this epoch, or a stale count */
    }
    switch (type) {
    case C_JOIN:
    case C_RESTART:
    case C_RESCALE:
        c->joined[proc] = 1;
        break;
    case C_TRIGGER:
        if (live && !c->gate.leader)
            queue_trigger(c, id);
        break;
    case C_ACK:
        if (live && c->gate.leader)
            leader_ack(c, proc, id, flag != 0);
        break;
    case C_COMPLETE:
        if (id > c->complete) {
            c->complete = id;
            c->complete_count = c->count;
            c->complete_final = flag != 0;
            if (live)
                weir__ckpt_global_complete(c->job, id, flag != 0);
        }
        break;
    default:
        break;
    }
}

static void *control_main(void *arg)
{
    weir__control *c = arg;
    while (!atomic_load(&c->quit)) {
        rd_kafka_message_t *m = rd_kafka_consumer_poll(c->cons, POLL_MS);
        rd_kafka_poll(c->prod, 0);
        if (!m)
            continue;
        if (!m->err)
            apply(c, m->payload, m->len, true);
        else if (m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF && !c->aborted) {
            char msg[300];
            snprintf(msg, sizeof msg, "control topic '%s': %s", c->topic,
                     rd_kafka_err2str(m->err));
            c->aborted = true;
            weir__job_abort(c->job, WEIR_EIO, msg);
        }
        rd_kafka_message_destroy(m);
    }
    return NULL;
}

/* ---- the gate (runtime/checkpoint.h) ---- */

static int g_start(void *ud, weir_job *job)
{
    weir__control *c = ud;
    c->job = job;
    /* A checkpoint the leader triggered before this process started: take
     * it (the leader's readers wait for this process's barrier). */
    if (!c->gate.leader && c->last_trigger > c->complete)
        queue_trigger(c, c->last_trigger);
    if (pthread_create(&c->thread, NULL, control_main, c))
        return WEIR_ENOMEM;
    c->thread_started = true;
    return 0;
}

static void g_stop(void *ud)
{
    weir__control *c = ud;
    atomic_store(&c->quit, true);
    if (c->thread_started)
        pthread_join(c->thread, NULL);
    c->thread_started = false;
    if (c->prod)
        rd_kafka_flush(c->prod, 5000);
}

static int g_announce(void *ud, uint64_t id)
{
    weir__control *c = ud;
    weir_error e = {0};
    return produce(c, C_TRIGGER, id, 0, c->epoch, false, &e) ? WEIR_EIO : 0;
}

static uint64_t g_next_trigger(void *ud)
{
    weir__control *c = ud;
    uint64_t id = 0;
    pthread_mutex_lock(&c->mu);
    if (c->n_triggers > 0) {
        id = c->triggers[0];
        memmove(c->triggers, c->triggers + 1,
                (c->n_triggers - 1) * sizeof *c->triggers);
        c->n_triggers--;
    }
    pthread_mutex_unlock(&c->mu);
    return id;
}

static void g_acked(void *ud, uint64_t id, bool all_final)
{
    weir__control *c = ud;
    weir_error e = {0};
    if (produce(c, C_ACK, id, all_final ? 1 : 0, c->epoch, false, &e))
        weir__job_abort(c->job, WEIR_EIO, e.message);
}

static int g_sp_request(void *ud, uint64_t nonce, bool stop)
{
    weir__control *c = ud;
    weir_error e = {0};
    if (!nonce)
        nonce = ((uint64_t)weir_monotonic_ns() << 8) ^ (uint64_t)getpid();
    return produce(c, C_SP_REQUEST, nonce, stop ? 1 : 0, c->epoch, true, &e)
               ? WEIR_EIO
               : 0;
}

static bool g_sp_next(void *ud, bool *stop)
{
    weir__control *c = ud;
    bool take = false;
    pthread_mutex_lock(&c->mu);
    if (!c->sp_busy && c->n_sp_queue > 0 && !c->aborted) {
        *stop = c->sp_queue[0].stop;
        c->sp_busy = take = true;
    }
    pthread_mutex_unlock(&c->mu);
    return take;
}

static int g_sp_announce(void *ud, uint64_t id, bool stop, const char *why)
{
    weir__control *c = ud;
    weir_error e = {0};
    if (!id)
        fprintf(stderr, "weir: cannot take the savepoint asked for: %s\n",
                why ? why : "");
    return produce(c, C_SP_TRIGGER, id, stop ? 1 : 0, c->epoch, false, &e)
               ? WEIR_EIO
               : 0;
}

static bool g_sp_kind(void *ud, uint64_t id, bool *stop)
{
    weir__control *c = ud;
    pthread_mutex_lock(&c->mu);
    struct sp_taken *t = sp_find(c, id);
    if (t)
        *stop = t->stop;
    pthread_mutex_unlock(&c->mu);
    return t != NULL;
}

static void g_sp_acked(void *ud, uint64_t id, bool ok)
{
    weir__control *c = ud;
    weir_error e = {0};
    if (produce(c, C_SP_ACK, id, ok ? 1 : 0, c->epoch, false, &e))
        weir__job_abort(c->job, WEIR_EIO, e.message);
}

static void g_destroy(void *ud)
{
    weir__control *c = ud;
    if (!c)
        return;
    g_stop(c);
    if (c->cons) {
        rd_kafka_assign(c->cons, NULL);
        rd_kafka_destroy(c->cons);
    }
    if (c->prkt)
        rd_kafka_topic_destroy(c->prkt);
    if (c->prod)
        rd_kafka_destroy(c->prod);
    drop_acks(c);
    weir_free(c->triggers);
    weir_free(c->joined);
    weir_free(c->servers);
    weir_free(c->topic);
    weir_free(c->dir);
    weir_free(c->restore);
    weir_free(c->sp_restore);
    weir_free(c->sp_ack_from);
    for (uint32_t i = 0; i < c->n_parts; i++)
        weir_free(c->parts[i]);
    weir_free(c->parts);
    weir__cluster_restore_free(c->combined);
    pthread_mutex_destroy(&c->mu);
    weir_free(c);
}

/* ---- the start ---- */

static rd_kafka_t *client(weir__control *c, rd_kafka_type_t type,
                          weir_error *err)
{
    char why[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    if (rd_kafka_conf_set(conf, "bootstrap.servers", c->servers, why,
                          sizeof why) != RD_KAFKA_CONF_OK) {
        rd_kafka_conf_destroy(conf);
        weir_error_set(err, WEIR_EINVAL, "weir.cluster.bootstrap-servers: %s",
                       why);
        return NULL;
    }
    rd_kafka_conf_set(conf, "log_level", "3", why, sizeof why);
    if (type == RD_KAFKA_PRODUCER) {
        rd_kafka_conf_set(conf, "linger.ms", "0", why, sizeof why);
        rd_kafka_conf_set(conf, "max.in.flight.requests.per.connection", "1",
                          why, sizeof why);
    } else {
        rd_kafka_conf_set(conf, "group.id", c->topic, why, sizeof why);
        rd_kafka_conf_set(conf, "enable.auto.commit", "false", why,
                          sizeof why);
        rd_kafka_conf_set(conf, "enable.partition.eof", "true", why,
                          sizeof why);
        rd_kafka_conf_set(conf, "fetch.wait.max.ms", "10", why, sizeof why);
    }
    rd_kafka_t *rk = rd_kafka_new(type, conf, why, sizeof why);
    if (!rk) {
        rd_kafka_conf_destroy(conf);
        weir_error_set(err, WEIR_EIO, "control topic '%s': %s", c->topic, why);
    }
    return rk;
}

/* The control topic must exist with one partition (brokers that create
 * topics on first use would make one with their default count). */
static int check_topic(weir__control *c, weir_error *err)
{
    int32_t count = 0;
    int rc = weir__cluster_topic_partitions(c->prod, c->topic,
                                            "control topic", &count, err);
    if (!rc && count != 1)
        rc = weir_error_set(err, WEIR_EINVAL,
                            "state.checkpoints.dir: control topic '%s' (create "
                            "it with one partition before the start) must "
                            "exist with 1 partition, found %s%d",
                            c->topic, count ? "" : "no topic, ", count);
    return rc;
}

/* Reads the log on: up to its end as it is now, or (own) up to this
 * process's own JOIN or RESTART record. */
static int read_log(weir__control *c, bool own, weir_error *err)
{
    int64_t lo = 0, hi = 0;
    rd_kafka_resp_err_t e =
        rd_kafka_query_watermark_offsets(c->cons, c->topic, 0, &lo, &hi, 10000);
    if (e)
        return weir_error_set(err, WEIR_EIO,
                              "control topic '%s' (create it with one "
                              "partition before the start): %s",
                              c->topic, rd_kafka_err2str(e));
    if (!own) {
        rd_kafka_topic_partition_list_t *l =
            rd_kafka_topic_partition_list_new(1);
        rd_kafka_topic_partition_list_add(l, c->topic, 0)->offset =
            RD_KAFKA_OFFSET_BEGINNING;
        e = rd_kafka_assign(c->cons, l);
        rd_kafka_topic_partition_list_destroy(l);
        if (e)
            return weir_error_set(err, WEIR_EIO, "control topic '%s': %s",
                                  c->topic, rd_kafka_err2str(e));
    }
    int64_t next = own ? 0 : lo;
    int64_t deadline = weir_monotonic_ns() / 1000000 + 30000;
    while (own ? !c->seen_own : next < hi) {
        if (weir_monotonic_ns() / 1000000 > deadline)
            return weir_error_set(err, WEIR_ETIMEDOUT,
                                  "control topic '%s': could not read it to "
                                  "its end (offset %lld) in 30 s",
                                  c->topic, (long long)hi);
        rd_kafka_message_t *m = rd_kafka_consumer_poll(c->cons, 100);
        if (!m)
            continue;
        if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
            next = m->offset > next ? m->offset : next;
        } else if (m->err) {
            int rc = weir_error_set(err, WEIR_EIO, "control topic '%s': %s",
                                    c->topic, rd_kafka_err2str(m->err));
            rd_kafka_message_destroy(m);
            return rc;
        } else if (m->len == OLD_REC_LEN && ((const uint8_t *)m->payload)[0] == 'C') {
            /* Records without the process count (weir before rescaling):
             * reading past them would start the job over in the old
             * checkpoint folders, its ids from 1 again. */
            int rc = weir_error_set(
                err, WEIR_EUNSUPPORTED,
                "control topic '%s' offset %lld: a record of an older weir "
                "(%d bytes, without the number of processes); this weir "
                "cannot go on from that log: give the job a new control "
                "topic (and fresh repartition topics and checkpoint folder)",
                c->topic, (long long)m->offset, OLD_REC_LEN);
            rd_kafka_message_destroy(m);
            return rc;
        } else {
            apply(c, m->payload, m->len, false);
            next = m->offset + 1;
        }
        rd_kafka_message_destroy(m);
    }
    return 0;
}

/* The gate's combine: the restore source of this process over the parts
 * of the processes that took the checkpoint (cluster/rescale.c). */
static int g_combine(void *ud, weir_job *job,
                     const weir__restore_source *parts, uint32_t n,
                     weir__restore_source *out, weir_error *err)
{
    weir__control *c = ud;
    weir__cluster_layout l = {.old_processes = n,
                              .processes = c->count,
                              .index = c->conf.index,
                              .partitions = c->partitions};
    weir__cluster_restore_free(c->combined);
    c->combined = NULL;
    return weir__cluster_restore_create(job, &l, parts, &c->combined, out,
                                        err);
}

/* Where the parts of the checkpoint to restore are: every process's of
 * the epoch it completed in when the count changed (a rescale), else this
 * process's own (which may then live on its machine only). */
static int restore_paths(weir__control *c, const char *ckpt_dir,
                         weir_error *err)
{
    uint32_t n = c->complete_count;
    c->parts = weir_calloc(n ? n : 1, sizeof *c->parts);
    if (!c->parts)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    c->n_parts = n;
    size_t cap = strlen(ckpt_dir) + 64;
    for (uint32_t j = 0; j < n; j++) {
        if (n == c->count && j != c->conf.index)
            continue;
        if (!(c->parts[j] = weir_malloc(cap)))
            return weir_error_set(err, WEIR_ENOMEM, "out of memory");
        snprintf(c->parts[j], cap, "%s/process-%u/chk-%llu", ckpt_dir, j,
                 (unsigned long long)c->complete);
    }
    return 0;
}

/* What a savepoint of the whole job says of itself (its _cluster file). */
typedef struct sp_info {
    uint64_t id;
    uint32_t processes, partitions, epoch;
    char control[200];
} sp_info;

/*
 * Reads <path>/_cluster: a savepoint of a job run by several processes.
 * A savepoint (or checkpoint) of a job run by one process is refused.
 */
static int read_sp(const char *path, sp_info *si, weir_error *err)
{
    size_t pl = strlen(path);
    while (pl > 1 && path[pl - 1] == '/')
        pl--;
    weir__storage *s = NULL;
    uint8_t *data = NULL;
    size_t len = 0;
    int rc;
    bool remote = weir__storage_is_remote(path);
    char *file = weir_malloc(pl + 16);
    if (!file)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    snprintf(file, pl + 16, "%.*s/_cluster", (int)pl, path);
    if (remote) {
        rc = weir__storage_open(path, NULL, &s, err);
        if (!rc)
            rc = s->ops->get(s, "_cluster", &data, &len);
    } else {
        rc = weir__io_read_file(file, &data, &len);
    }
    weir__storage_destroy(s);
    if (rc == WEIR_ENOTFOUND || (rc && !remote)) {
        char meta[1100];
        snprintf(meta, sizeof meta, "%.*s/_metadata", (int)pl, path);
        uint8_t *m = NULL;
        size_t ml = 0;
        bool single = !remote && !weir__io_read_file(meta, &m, &ml);
        weir_free(m);
        rc = weir_error_set(
            err, single ? WEIR_EUNSUPPORTED : WEIR_ENOTFOUND,
            single ? "execution.savepoint.path: %s is a savepoint (or "
                     "checkpoint) of a job run by one process; a job run by "
                     "several processes restores only a savepoint that such "
                     "a job took (weir savepoint of one of its processes): "
                     "restore it with one process and take one there"
                   : "execution.savepoint.path: %s: not a complete savepoint "
                     "of a job run by several processes (no _cluster file: "
                     "it was not finished, or this is not one)",
            path);
        weir_free(file);
        return rc;
    }
    weir_free(file);
    if (rc)
        return weir_error_set(err, rc, "execution.savepoint.path: %s: %s",
                              path, err->message[0] ? err->message
                                                    : weir_strerror(rc));
    char *text = weir_malloc(len + 1);
    if (!text) {
        weir_free(data);
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    }
    memcpy(text, data, len);
    text[len] = 0;
    weir_free(data);
    unsigned long long id = 0;
    unsigned procs = 0, parts = 0, epoch = 0;
    memset(si, 0, sizeof *si);
    int got = sscanf(text,
                     "weir cluster savepoint 1\nid %llu\nprocesses %u\n"
                     "partitions %u\nepoch %u\ncontrol %199s",
                     &id, &procs, &parts, &epoch, si->control);
    weir_free(text);
    if (got != 5 || !id || !procs || procs > MAX_PROCS || !parts)
        return weir_error_set(err, WEIR_ECORRUPT,
                              "execution.savepoint.path: %s/_cluster is "
                              "corrupt",
                              path);
    si->id = id;
    si->processes = procs;
    si->partitions = parts;
    si->epoch = epoch;
    return 0;
}

int weir__control_open(weir__cluster_conf *conf, const char *topic,
                       const char *ckpt_dir, const char *sp_path,
                       weir__control **out, bool *left, weir_error *err)
{
    *out = NULL;
    *left = false;
    weir__control *c = weir_calloc(1, sizeof *c);
    if (!c)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    pthread_mutex_init(&c->mu, NULL);
    atomic_init(&c->quit, false);
    c->conf = *conf;
    c->servers = weir_strdup(conf->servers);
    c->topic = weir_strdup(topic);
    c->joined = weir_calloc(MAX_PROCS, 1);
    c->sp_ack_from = weir_calloc(MAX_PROCS, 1);
    snprintf(c->sp_part, sizeof c->sp_part, "process-%u", conf->index);
    size_t dl = strlen(ckpt_dir) + 32;
    c->dir = weir_malloc(dl);
    int rc = 0;
    if (!c->servers || !c->topic || !c->joined || !c->dir ||
        !c->sp_ack_from) {
        rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
        goto fail;
    }
    snprintf(c->dir, dl, "%s/process-%u", ckpt_dir, conf->index);
    c->first_epoch = c->epoch = conf->epoch;
    if (!(c->prod = client(c, RD_KAFKA_PRODUCER, err)) ||
        !(c->cons = client(c, RD_KAFKA_CONSUMER, err))) {
        rc = err->code ? err->code : WEIR_EIO;
        goto fail;
    }
    rd_kafka_poll_set_consumer(c->cons);
    if (!(c->prkt = rd_kafka_topic_new(c->prod, topic, NULL))) {
        rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
        goto fail;
    }
    if ((rc = check_topic(c, err)) || (rc = read_log(c, false, err)))
        goto fail;
    /*
     * A savepoint is restored by a job that starts afresh: with a
     * checkpoint of the job complete in the control topic (the job ran
     * since, and this process restarts), that checkpoint is restored.
     */
    sp_info spi = {0};
    bool from_sp = false;
    if (sp_path && *sp_path && c->complete) {
        fprintf(stderr,
                "weir: execution.savepoint.path: the control topic '%s' "
                "has checkpoint %llu of this job complete, which is "
                "restored instead (a savepoint is restored by a job that "
                "starts afresh: a new control topic, or weir.cluster.epoch "
                "above %u)\n",
                c->topic, (unsigned long long)c->complete, c->epoch);
    } else if (sp_path && *sp_path) {
        if ((rc = read_sp(sp_path, &spi, err)))
            goto fail;
        from_sp = true;
        /* The repartition partitions are the savepoint's (its key groups'
         * owners are computed with them). */
        uint32_t want = c->partitions ? c->partitions : conf->partitions;
        if (want && want != spi.partitions) {
            rc = weir_error_set(
                err, WEIR_EINVAL,
                "weir.cluster.repartition-partitions: the savepoint %s was "
                "taken with %u, and the job restores it with %u: set %u (and "
                "give the repartition topics that many partitions)",
                sp_path, spi.partitions, want, spi.partitions);
            goto fail;
        }
        c->partitions = spi.partitions;
        /* The job's old topics may be the ones read again: its epochs
         * there are ignored. */
        if (c->count == 0 && !strcmp(spi.control, c->topic) &&
            spi.epoch >= c->epoch)
            c->first_epoch = c->epoch = spi.epoch + 1;
    }
    /* The repartition partitions stay what the job's first process set:
     * the key groups of a partition (and every reader position) depend on
     * them. */
    if (c->partitions && conf->partitions &&
        conf->partitions != c->partitions) {
        rc = weir_error_set(
            err, WEIR_EINVAL,
            "weir.cluster.repartition-partitions: the job runs with %u "
            "(control topic '%s'), and a running job keeps its count "
            "across restarts and rescaling: set %u or leave it out",
            c->partitions, c->topic, c->partitions);
        goto fail;
    }
    if (!c->partitions)
        c->partitions = conf->partitions ? conf->partitions : conf->processes;
    /*
     * The log decides. A process that asks for another count than the
     * job's (started with another weir.cluster.processes: a new process
     * joining, or fewer processes wanted) opens the next epoch with it,
     * once; a run again after a failure follows the log. A process that
     * joined this epoch before died and comes back: the whole job goes
     * back to the last complete checkpoint at the next epoch. What counts
     * is where the record lands (an epoch may have moved on meanwhile:
     * then decide again).
     */
    bool follow = atomic_load(&g_joined_once);
    for (;;) {
        uint32_t i = conf->index, n = c->count, want = c->epoch, cnt = n;
        uint8_t type = C_JOIN;
        if (n == 0) {
            cnt = conf->processes;
        } else if (!follow && conf->processes != n) {
            type = C_RESCALE;
            want = c->epoch + 1;
            cnt = conf->processes;
        } else if (i >= n) {
            /* The job went down to fewer processes: this one left. */
            *left = true;
            rc = weir_error_set(err, WEIR_ENOTFOUND,
                                "process %u left the job: it runs on %u "
                                "process%s since epoch %u (control topic "
                                "'%s')",
                                i, n, n == 1 ? "" : "es", c->epoch, c->topic);
            goto fail;
        } else if (c->joined[i]) {
            type = C_RESTART;
            want = c->epoch + 1;
        }
        c->nonce = ((uint64_t)weir_monotonic_ns() << 8) ^ (uint64_t)getpid() ^
                   ((uint64_t)conf->index << 48);
        if (!c->nonce)
            c->nonce = 1;
        c->seen_own = false;
        if ((rc = produce_as(c, type, c->nonce, 0, want, cnt, true, err)) ||
            (rc = read_log(c, true, err)))
            goto fail;
        if (c->epoch == want && c->count == cnt && i < cnt && c->joined[i])
            break;
        follow = true; /* asked once: from now on the log's count */
    }
    atomic_store(&g_joined_once, true);
    c->conf.epoch = c->epoch;
    c->conf.processes = c->count;
    c->conf.partitions = c->partitions;
    if (from_sp && !c->complete) {
        /* Every process's part, from the shared savepoint folder. */
        size_t pl = strlen(sp_path) + 48;
        uint32_t n = spi.processes;
        c->parts = weir_calloc(n, sizeof *c->parts);
        c->restore = weir_malloc(pl);
        c->sp_restore = weir_strdup(sp_path);
        if (!c->parts || !c->restore || !c->sp_restore) {
            rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
            goto fail;
        }
        c->n_parts = n;
        for (uint32_t j = 0; j < n; j++) {
            if (!(c->parts[j] = weir_malloc(pl))) {
                rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
                goto fail;
            }
            snprintf(c->parts[j], pl, "%s/process-%u", sp_path, j);
        }
        snprintf(c->restore, pl, "%s/process-%u", sp_path, conf->index);
        c->conf.from_savepoint = true;
        fprintf(stderr,
                "weir: restoring savepoint %llu of the job (taken by %u "
                "process%s) from %s at epoch %u\n",
                (unsigned long long)spi.id, n, n == 1 ? "" : "es", sp_path,
                c->epoch);
    } else if (c->complete) {
        if ((rc = restore_paths(c, ckpt_dir, err)))
            goto fail;
        /* this process's own part, as users name the restored checkpoint */
        size_t rl = strlen(ckpt_dir) + 64;
        if (!(c->restore = weir_malloc(rl))) {
            rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
            goto fail;
        }
        snprintf(c->restore, rl, "%s/process-%u/chk-%llu", ckpt_dir,
                 conf->index, (unsigned long long)c->complete);
    }
    c->gate = (weir__ckpt_gate){.leader = conf->index == 0,
                                .dir = c->dir,
                                .restore = c->restore,
                                .restore_parts = (const char *const *)c->parts,
                                .n_parts = c->n_parts,
                                .combine = g_combine,
                                .first_id = c->max_trigger,
                                .restored_id = c->sp_restore ? spi.id
                                               : c->restore ? c->complete
                                                            : 0,
                                .job_done = c->complete && c->complete_final,
                                .start = g_start,
                                .stop = g_stop,
                                .announce = g_announce,
                                .next_trigger = g_next_trigger,
                                .acked = g_acked,
                                .destroy = g_destroy,
                                .ud = c,
                                .sp_part = c->sp_part,
                                .sp_request = g_sp_request,
                                .sp_next = g_sp_next,
                                .sp_announce = g_sp_announce,
                                .sp_kind = g_sp_kind,
                                .sp_acked = g_sp_acked};
    *conf = c->conf;
    *out = c;
    return 0;
fail:
    g_destroy(c);
    return rc;
}

const weir__ckpt_gate *weir__control_gate(const weir__control *c)
{
    return &c->gate;
}

uint64_t weir__control_restored(const weir__control *c)
{
    return c->complete;
}

void weir__control_free(weir__control *c)
{
    g_destroy(c);
}

#endif
