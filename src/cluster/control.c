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
 * SP_COMPLETE (types 16 to 19; see "savepoints" below), and SUMMARY (type
 * 40: the state of the log up to an offset; see "summaries" below).
 *
 * Automatic membership (a process started without
 * weir.cluster.process-index). Membership records may carry, after
 * the 27 bytes, u32 pid, u8 n, n bytes of host name (for humans); id is
 * then the writer's member id (random, one per OS process):
 *   MEMBER_JOIN  a member asks for a place (process: none): the lowest
 *                slot of the epoch that has no member takes it; with none
 *                free, it opens epoch + 1 with processes + 1, the new slot
 *                its (a rescale). The first JOIN of the log, when it is a
 *                MEMBER_JOIN, makes the job's membership automatic (a
 *                hand-numbered JOIN, RESCALE or RESTART is then ignored;
 *                in a hand-numbered job a MEMBER_JOIN is)
 *   HEARTBEAT    member id is alive (every weir.cluster.heartbeat-interval;
 *                only a job numbered by the log has them)
 *   EVICT        opens epoch (the current + 1) without the members whose
 *                ids follow the 27 bytes (u64 each): they were silent for
 *                weir.cluster.session-timeout; the others keep their order
 *                and are numbered again from 0. Written by the lowest live
 *                slot (the leader, or the next one when the leader is the
 *                silent one)
 * In an automatic job a JOIN or RESTART counts only from the member of its
 * slot (id), and the slot-to-member table moves with EVICT and rescales.
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
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
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
/* automatic membership (see above) */
enum { C_MEMBER_JOIN = 32, C_HEARTBEAT, C_EVICT };
/* the state of the log up to an offset ("summaries" below) */
#define C_SUMMARY 40
#define SUMMARY_VERSION 1
/* the log's membership: its first JOIN decides */
enum { M_NONE, M_HAND, M_AUTO };
#define ANY_PROC UINT32_MAX /* a MEMBER_JOIN's process: not known yet */
#define HOST_LEN 64

/* One slot of the current epoch: which member holds it (id 0: none yet)
 * and when this process last read a record of that member. */
typedef struct member {
    uint64_t id;
    uint32_t pid;
    char host[HOST_LEN];
    int64_t seen_ms; /* monotonic; 0: never */
} member_t;

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

/* What a record, applied under mmu, asks of the job: done once the locks
 * are released (a produce may block for seconds, and the job's calls take
 * its own locks). */
typedef struct effects {
    bool write_complete, complete_final; /* the leader's COMPLETE */
    uint64_t write_complete_id;
    bool global_complete, global_final; /* tell the job */
    uint64_t global_id;
    bool seal;                          /* the leader seals savepoint id */
    uint64_t seal_id;
    uint32_t seal_count, seal_epoch;
    bool sp_failed;                     /* the leader: SP_COMPLETE id, 0 */
    uint64_t sp_failed_id;
    int sp_code;                        /* -1: no savepoint answered */
    uint64_t sp_id, sp_nonce;
    const char *sp_why;
    int abort_code;                     /* 0: none */
    char abort_msg[600];
    uint8_t *summary;                   /* a summary record to write */
    size_t summary_len;
} effects;

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
    /* a savepoint triggered, not completed, in the log read at the start */
    uint64_t last_sp_trigger;
    uint64_t done_id; /* leader: last COMPLETE written */
    uint64_t nonce;   /* in this process's JOIN or RESTART record */
    bool seen_own;    /* that record was read back */
    ackset *acks;
    uint32_t n_acks;

    /* offsets: the next record to apply; the last summary read, the last
     * one this process wrote (as of) */
    int64_t applied_off, summary_seen, summary_sent;
    int64_t summary_every;  /* the leader writes one every this many */
    int64_t summary_chunk;  /* records per step of the search back */
    effects fx;             /* of the record being applied (mmu) */
    /* the start's read: where it began, how many records it read */
    int64_t start_from, start_summary;
    uint64_t start_records;

    pthread_t thread;
    _Atomic bool thread_started;
    _Atomic bool quit;
    /* membership: the slots of the current epoch (MAX_PROCS; under mmu,
     * which GET /cluster reads too) */
    uint8_t mode;        /* M_* */
    member_t *members;
    uint64_t *complete_ids; /* per slot of the epoch of `complete` */
    pthread_mutex_t mmu;
    int64_t timeout_ms;  /* weir.cluster.session-timeout */
    uint32_t evicted_at; /* the epoch in which this process wrote an EVICT */
    pthread_mutex_t mu; /* triggers */
    uint64_t *triggers;
    uint32_t n_triggers, cap_triggers;
    _Atomic bool aborted;
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

/* Writes record b (len bytes); wait: until it is delivered. Never called
 * with mmu or mu held. */
static int produce_raw(weir__control *c, const uint8_t *b, size_t len,
                       bool wait, weir_error *err)
{
    if (rd_kafka_produce(c->prkt, 0, RD_KAFKA_MSG_F_COPY, (void *)b, len,
                         NULL, 0, NULL) != 0)
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

/* A record with ext (ext_len bytes, at most 1024) after the 27 bytes. */
static int produce_ext(weir__control *c, uint8_t type, uint32_t proc,
                       uint64_t id, uint8_t flag, uint32_t epoch,
                       uint32_t count, const uint8_t *ext, size_t ext_len,
                       bool wait, weir_error *err)
{
    uint8_t b[REC_LEN + 1024];
    put_rec(b, type, proc, epoch, id, flag, count, c->partitions);
    if (ext_len > sizeof b - REC_LEN)
        ext_len = sizeof b - REC_LEN;
    if (ext_len)
        memcpy(b + REC_LEN, ext, ext_len);
    return produce_raw(c, b, REC_LEN + ext_len, wait, err);
}

static int produce_as(weir__control *c, uint8_t type, uint64_t id,
                      uint8_t flag, uint32_t epoch, uint32_t count, bool wait,
                      weir_error *err)
{
    return produce_ext(c, type, c->conf.index, id, flag, epoch, count, NULL, 0,
                       wait, err);
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

/* The leader: every process acknowledged id (its COMPLETE is written once
 * mmu is released: effects). */
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
    c->fx.write_complete = true;
    c->fx.write_complete_id = id;
    c->fx.complete_final = final;
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

/* ---- automatic membership ---- */

static int64_t now_ms(void)
{
    return weir_monotonic_ns() / 1000000;
}

static uint64_t get_le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* The slot of member id in the current epoch, or -1. */
static int64_t slot_of(const weir__control *c, uint64_t id)
{
    for (uint32_t i = 0; id && i < c->count; i++)
        if (c->members[i].id == id)
            return i;
    return -1;
}

/* The pid and host of a membership record's tail ext (n bytes), into m
 * when there. */
static void read_ident(member_t *m, const uint8_t *ext, size_t n)
{
    if (n < 5)
        return;
    m->pid = (uint32_t)get_le(ext, 4);
    size_t hl = ext[4] < n - 5 ? ext[4] : n - 5;
    if (hl >= HOST_LEN)
        hl = HOST_LEN - 1;
    memcpy(m->host, ext + 5, hl);
    m->host[hl] = 0;
}

/* Slot i is member id's. */
static void set_member(weir__control *c, uint32_t i, uint64_t id,
                       const uint8_t *ext, size_t n)
{
    member_t *m = &c->members[i];
    if (m->id != id)
        memset(m, 0, sizeof *m);
    m->id = id;
    read_ident(m, ext, n);
    m->seen_ms = now_ms();
}

/* The epoch opens with count slots; the members keep theirs. */
static void sp_reset(weir__control *c);

static void open_epoch(weir__control *c, uint32_t epoch, uint32_t count)
{
    c->epoch = epoch;
    c->count = count;
    c->last_trigger = 0;
    memset(c->joined, 0, MAX_PROCS);
    memset(c->members + count, 0, (MAX_PROCS - count) * sizeof *c->members);
    drop_acks(c);
    sp_reset(c);
}

/* A live record changed the membership: this run ends, and the next one
 * (restart-strategy) reads the new membership from the log. */
static void abort_members(weir__control *c, const char *what, uint32_t epoch,
                          uint32_t count)
{
    if (c->aborted)
        return;
    snprintf(c->fx.abort_msg, sizeof c->fx.abort_msg,
             "%s: every process goes on from checkpoint %llu at epoch %u on "
             "%u process%s (restart-strategy runs this one again)",
             what, (unsigned long long)c->complete, epoch, count,
             count == 1 ? "" : "es");
    c->aborted = true;
    c->fx.abort_code = WEIR_ESTATE;
}

/* MEMBER_JOIN and EVICT (the top of this file). */
static void apply_auto(weir__control *c, uint8_t type, uint32_t epoch,
                       uint64_t id, uint32_t count, uint32_t parts,
                       const uint8_t *ext, size_t n, bool live)
{
    if (type == C_MEMBER_JOIN && c->count == 0) {
        /* The job's first JOIN: count slots, the first one its writer's. */
        if (!id || epoch < c->epoch || count == 0 || count > MAX_PROCS ||
            parts == 0 || (c->partitions && parts != c->partitions))
            return;
        c->mode = M_AUTO;
        c->partitions = parts;
        open_epoch(c, epoch, count);
        set_member(c, 0, id, ext, n);
        c->joined[0] = 1;
        return;
    }
    if (c->mode != M_AUTO)
        return;
    char what[300];
    if (type == C_MEMBER_JOIN) {
        if (!id || epoch != c->epoch || slot_of(c, id) >= 0)
            return;
        for (uint32_t i = 0; i < c->count; i++)
            if (!c->members[i].id) {
                set_member(c, i, id, ext, n);
                c->joined[i] = 1;
                return;
            }
        /* No free slot: one more process, at the next epoch. */
        if (c->count >= MAX_PROCS)
            return;
        if (live) {
            member_t m = {0};
            read_ident(&m, ext, n);
            snprintf(what, sizeof what,
                     "a new member (host %s, pid %u) joined the job as "
                     "process %u",
                     m.host[0] ? m.host : "?", m.pid, c->count);
            abort_members(c, what, epoch + 1, c->count + 1);
            return;
        }
        open_epoch(c, epoch + 1, c->count + 1);
        set_member(c, c->count - 1, id, ext, n);
        c->joined[c->count - 1] = 1;
        return;
    }
    /* EVICT: the ids of the silent members follow. */
    if (epoch != c->epoch + 1)
        return;
    uint8_t gone[MAX_PROCS] = {0};
    uint32_t k = 0, first = 0;
    for (size_t off = 0; off + 8 <= n; off += 8) {
        int64_t s = slot_of(c, get_le(ext + off, 8));
        if (s >= 0 && !gone[s]) {
            if (!k)
                first = (uint32_t)s;
            gone[s] = 1;
            k++;
        }
    }
    if (k == 0 || k >= c->count)
        return;
    if (live) {
        const member_t *m = &c->members[first];
        snprintf(what, sizeof what,
                 "process %u (host %s, pid %u)%s was silent for longer than "
                 "weir.cluster.session-timeout and is no longer a member",
                 first, m->host[0] ? m->host : "?", m->pid,
                 k > 1 ? " and others" : "");
        abort_members(c, what, epoch, c->count - k);
        return;
    }
    uint32_t w = 0;
    for (uint32_t i = 0; i < c->count; i++)
        if (!gone[i])
            c->members[w++] = c->members[i];
    open_epoch(c, epoch, w);
}

/* A record of member id (or of slot proc of the current epoch) was read. */
static void heard(weir__control *c, uint64_t id, uint32_t proc,
                  uint32_t epoch)
{
    int64_t s = slot_of(c, id);
    if (s < 0 && epoch == c->epoch && proc < c->count)
        s = proc;
    if (s >= 0)
        c->members[s].seen_ms = now_ms();
}

/* This OS process's member id: drawn once, kept by every run of its job
 * (restart-strategy), so that a run again finds its slot. */
static uint64_t member_id(void)
{
    static _Atomic uint64_t id;
    uint64_t v = atomic_load(&id);
    if (v)
        return v;
    if (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v)
        v = ((uint64_t)weir_monotonic_ns() << 16) ^ (uint64_t)getpid();
    if (!v)
        v = 1;
    uint64_t none = 0;
    return atomic_compare_exchange_strong(&id, &none, v) ? v : none;
}

/* u32 pid, u8 n, n bytes of host name: a membership record's tail. */
static size_t identity(uint8_t *b)
{
    char host[HOST_LEN] = "";
    if (gethostname(host, sizeof host) != 0)
        host[0] = 0;
    host[HOST_LEN - 1] = 0;
    uint32_t pid = (uint32_t)getpid();
    for (int i = 0; i < 4; i++)
        b[i] = (uint8_t)(pid >> (8 * i));
    size_t n = strlen(host);
    b[4] = (uint8_t)n;
    memcpy(b + 5, host, n);
    return 5 + n;
}

/*
 * Heartbeats: one thread per OS process writes a HEARTBEAT with its member
 * id every weir.cluster.heartbeat-interval, from its first join to its
 * exit, also while its job is down between two runs (a restore may take
 * longer than the session timeout), so that only a process that is gone
 * (or cut off from the brokers) falls silent.
 */
static struct {
    pthread_mutex_t mu;
    bool started;
    pthread_t thread;
    _Atomic bool quit;
    rd_kafka_t *prod;
    rd_kafka_topic_t *rkt;
    int64_t interval_ms;
    _Atomic uint32_t index, epoch; /* for humans reading the log */
} g_hb = {.mu = PTHREAD_MUTEX_INITIALIZER};

static void *hb_main(void *arg)
{
    (void)arg;
    int64_t next = 0;
    while (!atomic_load(&g_hb.quit)) {
        int64_t t = now_ms();
        if (t >= next) {
            uint8_t b[REC_LEN];
            put_rec(b, C_HEARTBEAT, atomic_load(&g_hb.index),
                    atomic_load(&g_hb.epoch), member_id(), 0, 0, 0);
            /* a full queue (brokers away) means silence: as it should */
            rd_kafka_produce(g_hb.rkt, 0, RD_KAFKA_MSG_F_COPY, b, sizeof b,
                             NULL, 0, NULL);
            next = t + g_hb.interval_ms;
        }
        int64_t wait = next - now_ms();
        rd_kafka_poll(g_hb.prod, (int)(wait < 0 ? 0 : wait > 50 ? 50 : wait));
    }
    return NULL;
}

static void hb_stop(void)
{
    pthread_mutex_lock(&g_hb.mu);
    if (g_hb.started) {
        atomic_store(&g_hb.quit, true);
        pthread_join(g_hb.thread, NULL);
        rd_kafka_flush(g_hb.prod, 1000);
        rd_kafka_topic_destroy(g_hb.rkt);
        rd_kafka_destroy(g_hb.prod);
        g_hb.started = false;
    }
    pthread_mutex_unlock(&g_hb.mu);
}

static rd_kafka_t *client(weir__control *c, rd_kafka_type_t type,
                          weir_error *err);

static int hb_start(weir__control *c, weir_error *err)
{
    atomic_store(&g_hb.index, c->conf.index);
    atomic_store(&g_hb.epoch, c->epoch);
    pthread_mutex_lock(&g_hb.mu);
    int rc = 0;
    if (!g_hb.started) {
        g_hb.interval_ms = c->conf.heartbeat_ms > 0 ? c->conf.heartbeat_ms : 1000;
        atomic_store(&g_hb.quit, false);
        if (!(g_hb.prod = client(c, RD_KAFKA_PRODUCER, err))) {
            rc = err->code ? err->code : WEIR_EIO;
        } else if (!(g_hb.rkt = rd_kafka_topic_new(g_hb.prod, c->topic,
                                                   NULL)) ||
                   pthread_create(&g_hb.thread, NULL, hb_main, NULL)) {
            if (g_hb.rkt)
                rd_kafka_topic_destroy(g_hb.rkt);
            rd_kafka_destroy(g_hb.prod);
            rc = weir_error_set(err, WEIR_ENOMEM,
                                "control topic '%s': cannot start the "
                                "heartbeats",
                                c->topic);
        } else {
            static bool registered;
            g_hb.started = true;
            if (!registered)
                atexit(hb_stop);
            registered = true;
        }
    }
    pthread_mutex_unlock(&g_hb.mu);
    return rc;
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
    c->last_sp_trigger = 0;
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

/* The leader, every part written: savepoint id's _cluster file (taken in
 * epoch by count processes), then SP_COMPLETE. */
static void sp_seal(weir__control *c, uint64_t id, uint32_t count,
                    uint32_t epoch)
{
    char text[600];
    snprintf(text, sizeof text,
             "weir cluster savepoint 1\nid %llu\nprocesses %u\n"
             "partitions %u\nepoch %u\ncontrol %s\n",
             (unsigned long long)id, count, c->partitions, epoch, c->topic);
    weir_error e = {0};
    int rc = weir__ckpt_savepoint_seal(c->job, id, text);
    if (rc)
        fprintf(stderr,
                "weir: savepoint %llu: cannot write its _cluster file: %s\n",
                (unsigned long long)id, weir_strerror(rc));
    if (produce_as(c, C_SP_COMPLETE, id, rc ? 0 : 1, epoch, count, false, &e))
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
        /* g_start takes it (kept while live too: a summary says it) */
        c->last_sp_trigger = id;
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
                c->fx.sp_failed = true;
                c->fx.sp_failed_id = id;
            }
        }
        break;
    case C_SP_COMPLETE: {
        struct sp_taken *t = sp_find(c, id);
        if (c->last_sp_trigger <= id)
            c->last_sp_trigger = 0;
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
    if (seal) {
        c->fx.seal = true;
        c->fx.seal_id = id;
        c->fx.seal_count = c->count;
        c->fx.seal_epoch = c->epoch;
    }
    if (live && c->job && answer_code >= 0) {
        c->fx.sp_code = answer_code;
        c->fx.sp_id = answer_id;
        c->fx.sp_nonce = answer_nonce;
        c->fx.sp_why = why;
    }
}

/*
 * Applies one record to the state. live: the job runs (triggers, acks and
 * completions act on it); otherwise the log is being read at the start.
 */
static void apply_locked(weir__control *c, const uint8_t *p, size_t len,
                         bool live)
{
    /* After a restart record nothing counts here any more: a COMPLETE
     * behind it in the log (the leader had not seen it yet) must not prune
     * the checkpoint every process goes back to. */
    if (len < REC_LEN || p[0] != 'C' || (live && c->aborted))
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
    const uint8_t *ext = p + REC_LEN;
    size_t ext_len = len - REC_LEN;
    if (type == C_SUMMARY)
        return; /* what came before it, again: nothing new */
    if (type >= C_SP_REQUEST && type <= C_SP_COMPLETE) {
        if (epoch >= c->first_epoch && epoch == c->epoch && proc < c->count)
            apply_sp(c, type, proc, id, flag, live);
        return;
    }
    bool member = type == C_JOIN || type == C_RESTART || type == C_RESCALE;
    if (type == C_HEARTBEAT) {
        heard(c, id, ANY_PROC, 0);
        return;
    }
    /* Its writer reads it back whatever it decides (it may decide again). */
    if ((member || type == C_MEMBER_JOIN) && id == c->nonce && id)
        c->seen_own = true;
    if (epoch < c->first_epoch)
        return;
    if (type == C_MEMBER_JOIN || type == C_EVICT) {
        apply_auto(c, type, epoch, id, count, parts, ext, ext_len, live);
        return;
    }
    if (proc >= MAX_PROCS)
        return;
    /* An automatic job's slots are its members': a JOIN or RESTART counts
     * only from the member of its slot; RESCALE is a hand-numbered job's. */
    if (member && c->mode == M_AUTO &&
        (type == C_RESCALE || proc >= c->count || c->members[proc].id != id))
        return;
    if (type == C_TRIGGER && id > c->max_trigger)
        c->max_trigger = id;
    if (epoch < c->epoch)
        return; /* its writer has not seen the restart yet */
    if (type == C_TRIGGER && epoch == c->epoch)
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
                char *msg = c->fx.abort_msg;
                size_t cap = sizeof c->fx.abort_msg;
                if (count != c->count)
                    snprintf(msg, cap,
                             "process %u asked for %u processes instead of "
                             "%u: every process goes on from checkpoint "
                             "%llu at epoch %u (restart-strategy runs this "
                             "one again)",
                             proc, count, c->count,
                             (unsigned long long)c->complete, epoch);
                else
                    snprintf(msg, cap,
                             "process %u of the job restarted: every process "
                             "goes on from checkpoint %llu at epoch %u (start "
                             "this one again, or let restart-strategy do it)",
                             proc, (unsigned long long)c->complete, epoch);
                c->aborted = true;
                c->fx.abort_code = WEIR_ESTATE;
            }
            return;
        }
        /* The checkpoint to restore is the last one completed before
         * this record in the log (c->complete), whatever its writer saw. */
        if (c->mode == M_NONE)
            c->mode = M_HAND;
        c->partitions = parts;
        open_epoch(c, epoch, count);
    } else if (proc >= c->count || (member && count != c->count)) {
        return; /* not a member of this epoch, or a stale count */
    }
    switch (type) {
    case C_JOIN:
    case C_RESTART:
    case C_RESCALE:
        c->joined[proc] = 1;
        set_member(c, proc, id, ext, ext_len);
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
            for (uint32_t i = 0; i < c->count; i++)
                c->complete_ids[i] = c->members[i].id;
            c->complete_final = flag != 0;
            if (live) {
                c->fx.global_complete = true;
                c->fx.global_id = id;
                c->fx.global_final = flag != 0;
            }
        }
        break;
    default:
        break;
    }
    heard(c, 0, proc, epoch);
}

static uint8_t *summary_build(weir__control *c, int64_t as_of, size_t *len);

/* Does what the record asked of the job (effects), no lock held. */
static void run_effects(weir__control *c, effects *fx)
{
    weir_error e = {0};
    if (fx->write_complete &&
        produce(c, C_COMPLETE, fx->write_complete_id,
                fx->complete_final ? 1 : 0, c->epoch, true, &e))
        weir__job_abort(c->job, WEIR_EIO, e.message);
    if (fx->sp_failed &&
        produce(c, C_SP_COMPLETE, fx->sp_failed_id, 0, c->epoch, false, &e))
        weir__job_abort(c->job, WEIR_EIO, e.message);
    if (fx->seal)
        sp_seal(c, fx->seal_id, fx->seal_count, fx->seal_epoch);
    if (fx->global_complete)
        weir__ckpt_global_complete(c->job, fx->global_id, fx->global_final);
    if (fx->sp_code >= 0)
        weir__ckpt_global_savepoint(c->job, fx->sp_id, fx->sp_nonce,
                                    fx->sp_code, fx->sp_why);
    if (fx->abort_code)
        weir__job_abort(c->job, fx->abort_code, fx->abort_msg);
    /* a summary lost on the way costs only a longer read at a start */
    if (fx->summary)
        produce_raw(c, fx->summary, fx->summary_len, false, &e);
    weir_free(fx->summary);
}

/* Applies the record at offset off (see apply_locked). */
static void apply(weir__control *c, const uint8_t *p, size_t len, bool live,
                  int64_t off)
{
    pthread_mutex_lock(&c->mmu);
    memset(&c->fx, 0, sizeof c->fx);
    c->fx.sp_code = -1;
    apply_locked(c, p, len, live);
    c->applied_off = off + 1;
    if (len >= REC_LEN && p[0] == 'C' && p[1] == C_SUMMARY)
        c->summary_seen = off;
    /* The leader writes the log's state: at each completed checkpoint,
     * and every summary_every records (heartbeats too) */
    bool completed = c->fx.global_complete;
    int64_t last = c->summary_seen > c->summary_sent ? c->summary_seen
                                                     : c->summary_sent;
    if (live && c->gate.leader && !c->aborted &&
        (completed || c->applied_off - last >= c->summary_every)) {
        c->fx.summary = summary_build(c, c->applied_off, &c->fx.summary_len);
        c->summary_sent = c->applied_off;
    }
    effects fx = c->fx;
    c->fx.summary = NULL;
    pthread_mutex_unlock(&c->mmu);
    if (live)
        run_effects(c, &fx);
    else
        weir_free(fx.summary);
}

/*
 * The lowest slot that is not silent evicts the silent ones: slot j is
 * silent when this process read nothing of its member for
 * weir.cluster.session-timeout before the last heartbeat of its own that
 * it read back (the log is the clock: a process that reads it late does
 * not take the others for dead).
 */
static void check_silence(weir__control *c)
{
    if (c->mode != M_AUTO || c->aborted || c->complete_final ||
        c->evicted_at == c->epoch || c->count < 2 || c->timeout_ms <= 0)
        return;
    uint8_t ids[8 * 64];
    size_t n = 0;
    bool lowest = true;
    pthread_mutex_lock(&c->mmu);
    uint32_t self = c->conf.index, count = c->count, epoch = c->epoch;
    int64_t ref = c->members[self].seen_ms;
    for (uint32_t j = 0; j < count; j++) {
        const member_t *m = &c->members[j];
        bool silent = m->id && j != self && ref - m->seen_ms > c->timeout_ms;
        if (j < self && m->id && !silent)
            lowest = false;
        if (silent && n + 8 <= sizeof ids) {
            for (int b = 0; b < 8; b++)
                ids[n + b] = (uint8_t)(m->id >> (8 * b));
            n += 8;
        }
    }
    pthread_mutex_unlock(&c->mmu);
    if (!lowest || !n)
        return;
    c->evicted_at = epoch;
    weir_error e = {0};
    if (produce_ext(c, C_EVICT, self, 0, 0, epoch + 1, count - (uint32_t)(n / 8),
                    ids, n, false, &e) &&
        !c->aborted) {
        c->aborted = true;
        weir__job_abort(c->job, WEIR_EIO, e.message);
    }
}

/* ---- summaries ----
 *
 * A start reads the log from its last SUMMARY record instead of its
 * beginning. A SUMMARY (type 40, written by the leader at its start, at
 * every completed checkpoint, and every summary_every records) holds what
 * reading the log from its beginning up to offset `id` gives (every
 * record before id applied, none from id on), for a reader whose first
 * epoch (weir.cluster.epoch) is the writer's; a reader loads it and reads
 * on from id (the records between id and the summary itself are the ones
 * its writer had not read yet). flag: its version (1); process, epoch,
 * processes, partitions as in every record; then, little endian:
 *   u32 first epoch, u8 membership (M_*), u64 complete, u32 its processes,
 *   u8 final, u64 max trigger, u64 last trigger of the epoch, u64 last
 *   savepoint triggered, per slot of the epoch (processes): u64 member
 *   id, u8 joined, u32 pid, u8 n, n bytes of host; per process of the
 *   complete checkpoint: u64 member id; u32 n, n savepoint requests not
 *   triggered (u32 process, u64 number, u8 stop); u32 n, n savepoints
 *   triggered (u64 id, u32 process, u64 number, u8 stop).
 * A full read ignores summaries: the log stays the truth, and a summary
 * that does not parse, or holds for another first epoch, is passed over.
 */

typedef struct wbuf {
    uint8_t *p;
    size_t n;
} wbuf;

static void put_n(wbuf *b, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        b->p[b->n++] = (uint8_t)(v >> (8 * i));
}

/* The state as of offset as_of, as a SUMMARY record (mmu held; NULL: out
 * of memory). */
static uint8_t *summary_build(weir__control *c, int64_t as_of, size_t *len)
{
    size_t cap = REC_LEN + 64 + (size_t)c->count * (14 + HOST_LEN) +
                 (size_t)c->complete_count * 8 + 8 + SP_MAX_QUEUE * 34;
    wbuf b = {weir_malloc(cap), 0};
    if (!b.p)
        return NULL;
    put_rec(b.p, C_SUMMARY, c->conf.index, c->epoch, (uint64_t)as_of,
            SUMMARY_VERSION, c->count, c->partitions);
    b.n = REC_LEN;
    put_n(&b, c->first_epoch, 4);
    put_n(&b, c->mode, 1);
    put_n(&b, c->complete, 8);
    put_n(&b, c->complete_count, 4);
    put_n(&b, c->complete_final, 1);
    put_n(&b, c->max_trigger, 8);
    put_n(&b, c->last_trigger, 8);
    pthread_mutex_lock(&c->mu);
    put_n(&b, c->last_sp_trigger, 8);
    for (uint32_t i = 0; i < c->count; i++) {
        const member_t *m = &c->members[i];
        size_t hl = strnlen(m->host, HOST_LEN - 1);
        put_n(&b, m->id, 8);
        put_n(&b, c->joined[i], 1);
        put_n(&b, m->pid, 4);
        put_n(&b, hl, 1);
        memcpy(b.p + b.n, m->host, hl);
        b.n += hl;
    }
    for (uint32_t i = 0; i < c->complete_count; i++)
        put_n(&b, c->complete_ids[i], 8);
    put_n(&b, c->n_sp_queue, 4);
    for (uint32_t i = 0; i < c->n_sp_queue; i++) {
        put_n(&b, c->sp_queue[i].proc, 4);
        put_n(&b, c->sp_queue[i].nonce, 8);
        put_n(&b, c->sp_queue[i].stop, 1);
    }
    put_n(&b, c->n_sp_taken, 4);
    for (uint32_t i = 0; i < c->n_sp_taken; i++) {
        put_n(&b, c->sp_taken[i].id, 8);
        put_n(&b, c->sp_taken[i].proc, 4);
        put_n(&b, c->sp_taken[i].nonce, 8);
        put_n(&b, c->sp_taken[i].stop, 1);
    }
    pthread_mutex_unlock(&c->mu);
    *len = b.n;
    return b.p;
}

typedef struct rbuf {
    const uint8_t *p;
    size_t n, at;
    bool bad;
} rbuf;

static uint64_t take_n(rbuf *r, int n)
{
    if (r->bad || r->n - r->at < (size_t)n) {
        r->bad = true;
        return 0;
    }
    uint64_t v = get_le(r->p + r->at, n);
    r->at += (size_t)n;
    return v;
}

/*
 * Summary p (len bytes) read at offset off: false when it is not one this
 * process can use. commit: load it into c (only after a pass without,
 * which checks it all).
 */
static bool summary_load(weir__control *c, const uint8_t *p, size_t len,
                         int64_t off, int64_t lo, bool commit)
{
    if (len < REC_LEN || p[0] != 'C' || p[1] != C_SUMMARY ||
        p[18] != SUMMARY_VERSION)
        return false;
    uint32_t epoch = (uint32_t)get_le(p + 6, 4);
    uint64_t as_of = get_le(p + 10, 8);
    uint32_t count = (uint32_t)get_le(p + 19, 4);
    uint32_t parts = (uint32_t)get_le(p + 23, 4);
    /* the records it stands for must all still be in the log after it */
    if (as_of > (uint64_t)off || as_of < (uint64_t)lo || count > MAX_PROCS)
        return false;
    rbuf r = {p, len, REC_LEN, false};
    if (take_n(&r, 4) != c->first_epoch || epoch < c->first_epoch)
        return false;
    uint8_t mode = (uint8_t)take_n(&r, 1);
    uint64_t complete = take_n(&r, 8);
    uint32_t complete_count = (uint32_t)take_n(&r, 4);
    bool final = take_n(&r, 1) != 0;
    uint64_t max_trigger = take_n(&r, 8), last_trigger = take_n(&r, 8);
    uint64_t last_sp = take_n(&r, 8);
    if (mode > M_AUTO || complete_count > MAX_PROCS ||
        (count && !parts) || r.bad)
        return false;
    if (commit) {
        c->mode = mode;
        c->epoch = epoch;
        c->count = count;
        c->partitions = parts;
        c->complete = complete;
        c->complete_count = complete_count;
        c->complete_final = final;
        c->max_trigger = max_trigger;
        c->last_trigger = last_trigger;
        memset(c->joined, 0, MAX_PROCS);
        memset(c->members, 0, MAX_PROCS * sizeof *c->members);
        memset(c->complete_ids, 0, MAX_PROCS * sizeof *c->complete_ids);
    }
    for (uint32_t i = 0; i < count; i++) {
        uint64_t id = take_n(&r, 8);
        uint8_t joined = (uint8_t)take_n(&r, 1);
        uint32_t pid = (uint32_t)take_n(&r, 4);
        size_t hl = (size_t)take_n(&r, 1);
        if (r.bad || hl >= HOST_LEN || r.n - r.at < hl)
            return false;
        if (commit) {
            c->members[i].id = id;
            c->members[i].pid = pid;
            memcpy(c->members[i].host, r.p + r.at, hl);
            c->joined[i] = joined;
        }
        r.at += hl;
    }
    for (uint32_t i = 0; i < complete_count; i++) {
        uint64_t id = take_n(&r, 8);
        if (commit)
            c->complete_ids[i] = id;
    }
    uint32_t nq = (uint32_t)take_n(&r, 4);
    if (r.bad || nq > SP_MAX_QUEUE)
        return false;
    struct sp_req q[SP_MAX_QUEUE];
    for (uint32_t i = 0; i < nq; i++) {
        q[i].proc = (uint32_t)take_n(&r, 4);
        q[i].nonce = take_n(&r, 8);
        q[i].stop = take_n(&r, 1) != 0;
    }
    uint32_t nt = (uint32_t)take_n(&r, 4);
    if (r.bad || nt > SP_MAX_QUEUE)
        return false;
    struct sp_taken t[SP_MAX_QUEUE];
    for (uint32_t i = 0; i < nt; i++) {
        t[i].id = take_n(&r, 8);
        t[i].proc = (uint32_t)take_n(&r, 4);
        t[i].nonce = take_n(&r, 8);
        t[i].stop = take_n(&r, 1) != 0;
    }
    if (r.bad || r.at != r.n)
        return false;
    if (commit) {
        pthread_mutex_lock(&c->mu);
        c->last_sp_trigger = last_sp;
        c->n_sp_queue = nq;
        memcpy(c->sp_queue, q, nq * sizeof *q);
        c->n_sp_taken = nt;
        memcpy(c->sp_taken, t, nt * sizeof *t);
        c->sp_busy = false;
        pthread_mutex_unlock(&c->mu);
    }
    return true;
}

static void *control_main(void *arg)
{
    weir__control *c = arg;
    while (!atomic_load(&c->quit)) {
        rd_kafka_message_t *m = rd_kafka_consumer_poll(c->cons, POLL_MS);
        rd_kafka_poll(c->prod, 0);
        check_silence(c);
        if (!m)
            continue;
        if (!m->err)
            apply(c, m->payload, m->len, true, m->offset);
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
    /* The same for a savepoint the leader triggered (in id order): the
     * leader waits for this process's part of it. */
    uint64_t sp = c->last_sp_trigger > c->complete ? c->last_sp_trigger : 0;
    if (!c->gate.leader && sp && sp < c->last_trigger)
        queue_trigger(c, sp);
    if (!c->gate.leader && c->last_trigger > c->complete)
        queue_trigger(c, c->last_trigger);
    if (!c->gate.leader && sp && sp > c->last_trigger)
        queue_trigger(c, sp);
    /* silence counts from now: the log read at the start is history; the
     * leader sums up the log as it opens its run */
    pthread_mutex_lock(&c->mmu);
    int64_t t = now_ms();
    for (uint32_t i = 0; i < c->count; i++)
        c->members[i].seen_ms = t;
    size_t slen = 0;
    uint8_t *sum = c->gate.leader
                       ? summary_build(c, c->applied_off, &slen)
                       : NULL;
    if (sum)
        c->summary_sent = c->applied_off;
    pthread_mutex_unlock(&c->mmu);
    if (sum) {
        weir_error e = {0};
        produce_raw(c, sum, slen, false, &e);
        weir_free(sum);
    }
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
    /* An automatic job's leader triggers only while it reads the log up
     * to date (its own heartbeat came back within the session timeout): a
     * leader that was stopped for longer may have been evicted, and its
     * next checkpoint would be written under the index the new leader
     * now has. It reads its eviction first. */
    if (c->mode == M_AUTO && c->timeout_ms > 0) {
        pthread_mutex_lock(&c->mmu);
        int64_t seen = c->members[c->conf.index].seen_ms;
        pthread_mutex_unlock(&c->mmu);
        if (now_ms() - seen >= c->timeout_ms)
            return WEIR_ETIMEDOUT;
    }
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
    weir_free(c->members);
    weir_free(c->complete_ids);
    pthread_mutex_destroy(&c->mmu);
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

/* Consumes the control topic from offset from. */
static int seek_log(weir__control *c, int64_t from, weir_error *err)
{
    rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(l, c->topic, 0)->offset = from;
    rd_kafka_resp_err_t e = rd_kafka_assign(c->cons, l);
    rd_kafka_topic_partition_list_destroy(l);
    if (e)
        return weir_error_set(err, WEIR_EIO, "control topic '%s': %s",
                              c->topic, rd_kafka_err2str(e));
    return 0;
}

/*
 * The next record of the log (*m NULL: none within the poll), within the
 * start's deadline (ms, monotonic); hi: the end the read aims at. A record
 * of a weir from before the process count is refused.
 */
static int next_rec(weir__control *c, int64_t deadline, int64_t hi,
                    rd_kafka_message_t **out, weir_error *err)
{
    *out = NULL;
    if (now_ms() > deadline)
        return weir_error_set(err, WEIR_ETIMEDOUT,
                              "control topic '%s': could not read it to "
                              "its end (offset %lld) in 30 s",
                              c->topic, (long long)hi);
    rd_kafka_message_t *m = rd_kafka_consumer_poll(c->cons, 100);
    if (!m || m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
        *out = m;
        return 0;
    }
    int rc = 0;
    if (m->err) {
        rc = weir_error_set(err, WEIR_EIO, "control topic '%s': %s", c->topic,
                            rd_kafka_err2str(m->err));
    } else if (m->len == OLD_REC_LEN &&
               ((const uint8_t *)m->payload)[0] == 'C') {
        /* Records without the process count (weir before rescaling):
         * reading past them would start the job over in the old
         * checkpoint folders, its ids from 1 again. */
        rc = weir_error_set(
            err, WEIR_EUNSUPPORTED,
            "control topic '%s' offset %lld: a record of an older weir "
            "(%d bytes, without the number of processes); this weir "
            "cannot go on from that log: give the job a new control "
            "topic (and fresh repartition topics and checkpoint folder)",
            c->topic, (long long)m->offset, OLD_REC_LEN);
    }
    if (rc) {
        rd_kafka_message_destroy(m);
        return rc;
    }
    *out = m;
    return 0;
}


/*
 * The last summary this process can use in [lo, hi), loaded into c: *from
 * is then where the read goes on (else lo). The log is read back from its
 * end by summary_chunk records at a time, so a start costs the records
 * since the last summary, not the log's history.
 */
static int find_summary(weir__control *c, int64_t lo, int64_t hi,
                        int64_t deadline, int64_t *from, weir_error *err)
{
    *from = lo;
    c->start_summary = -1;
    uint8_t *best = NULL;
    size_t best_len = 0;
    int64_t best_off = -1;
    int rc = 0;
    for (int64_t end = hi; end > lo && !best && !rc;) {
        int64_t start =
            end - lo > c->summary_chunk ? end - c->summary_chunk : lo;
        if ((rc = seek_log(c, start, err)))
            break;
        for (int64_t next = start; next < end && !rc;) {
            rd_kafka_message_t *m = NULL;
            if ((rc = next_rec(c, deadline, hi, &m, err)) || !m)
                continue;
            if (m->err) { /* the end of the partition */
                if (m->offset >= end)
                    next = end;
            } else {
                next = m->offset + 1;
                c->start_records++;
                const uint8_t *p = m->payload;
                if (m->offset < end && m->len >= REC_LEN && p[1] == C_SUMMARY &&
                    summary_load(c, p, m->len, m->offset, lo, false)) {
                    uint8_t *copy = weir_malloc(m->len);
                    if (copy) {
                        memcpy(copy, p, m->len);
                        weir_free(best);
                        best = copy;
                        best_len = m->len;
                        best_off = m->offset;
                    }
                }
            }
            rd_kafka_message_destroy(m);
        }
        end = start;
    }
    if (best && !rc) {
        pthread_mutex_lock(&c->mmu);
        summary_load(c, best, best_len, best_off, lo, true);
        *from = (int64_t)get_le(best + 10, 8);
        pthread_mutex_unlock(&c->mmu);
        c->start_summary = best_off;
        c->summary_seen = best_off;
    }
    weir_free(best);
    return rc;
}

/* Reads the log on: up to its end as it is now (from its last summary;
 * full: from its beginning, for the check of the summaries), or (own) up
 * to this process's own JOIN or RESTART record. *hi_io (not NULL): the end
 * to read to (in: when not negative; out: the end read to). */
static int read_log_to(weir__control *c, bool own, bool full, int64_t *hi_io,
                       weir_error *err)
{
    int64_t lo = 0, hi = 0;
    rd_kafka_resp_err_t e =
        rd_kafka_query_watermark_offsets(c->cons, c->topic, 0, &lo, &hi, 10000);
    if (e)
        return weir_error_set(err, WEIR_EIO,
                              "control topic '%s' (create it with one "
                              "partition before the start): %s",
                              c->topic, rd_kafka_err2str(e));
    bool fixed = hi_io && *hi_io >= 0;
    if (fixed && *hi_io < hi)
        hi = *hi_io;
    if (hi_io)
        *hi_io = hi;
    int64_t deadline = now_ms() + 30000;
    int64_t next = own ? 0 : lo;
    int rc;
    if (!own) {
        c->start_records = 0;
        if (!full && (rc = find_summary(c, lo, hi, deadline, &next, err)))
            return rc;
        /* The log's beginning is gone (retention) and no summary stands
         * for it: the read would miss decisions. */
        if (!full && lo > 0 && c->start_summary < 0)
            return weir_error_set(
                err, WEIR_ECORRUPT,
                "control topic '%s': its records before offset %lld were "
                "deleted (retention) and no summary record after them "
                "holds what they said: give the control topic a longer "
                "retention, or the job a new one",
                c->topic, (long long)lo);
        c->start_from = next;
        /* (the read on gets its own 30 s: where no summary was usable the
         * search back has already read the whole log once) */
        deadline = now_ms() + 30000;
        if ((rc = seek_log(c, next, err)))
            return rc;
    }
    while (own ? !c->seen_own : next < hi) {
        rd_kafka_message_t *m = NULL;
        if ((rc = next_rec(c, deadline, hi, &m, err)))
            return rc;
        if (!m)
            continue;
        if (m->err) {
            next = m->offset > next ? m->offset : next;
        } else if (!own && fixed && m->offset >= hi) {
            next = hi; /* (a fixed end, for the check) */
        } else {
            apply(c, m->payload, m->len, false, m->offset);
            next = m->offset + 1;
            c->start_records++;
        }
        rd_kafka_message_destroy(m);
    }
    return 0;
}

static int read_log(weir__control *c, bool own, weir_error *err)
{
    return read_log_to(c, own, false, NULL, err);
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

/* The gate's need_others: the count did not change, but the parallelism
 * in each process did (rescale.c). */
static bool g_need_others(void *ud, weir_job *job,
                          const weir__restore_source *own)
{
    (void)ud;
    return weir__cluster_parallelism_changed(job, own);
}

/*
 * The folder of a process's parts: process-<index> in a job numbered by
 * hand; member-<id> in one numbered by the control topic, whose places
 * change hands (an evicted process that lives on keeps its folder locked
 * until it reads its eviction, and must not write where its successor
 * does).
 */
static void part_dir(const weir__control *c, const char *ckpt_dir,
                     uint32_t index, uint64_t id, char *out, size_t cap)
{
    if (c->mode == M_AUTO)
        snprintf(out, cap, "%s/member-%016llx", ckpt_dir,
                 (unsigned long long)id);
    else
        snprintf(out, cap, "%s/process-%u", ckpt_dir, index);
}

/* Where the parts of the checkpoint to restore are: every process's of
 * the epoch it completed in. When the count did not change only this
 * process's own is read (it may then live on its machine only), unless
 * the parallelism in each process changed (g_need_others). A checkpoint
 * that ended the job too: a split or a sink's pending files that moved to
 * this process are read from the part of the one that held them (no
 * restart of the ended job deletes a part: coordinator.c keeps the
 * restored checkpoint). */
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
        if (!(c->parts[j] = weir_malloc(cap)))
            return weir_error_set(err, WEIR_ENOMEM, "out of memory");
        char d[64 + 4096];
        part_dir(c, ckpt_dir, j, c->complete_ids[j], d, sizeof d);
        snprintf(c->parts[j], cap, "%s/chk-%llu", d,
                 (unsigned long long)c->complete);
    }
    return 0;
}

/*
 * A process without a hand-given index joins: its slot is the one of its
 * member id when it has one (a run again: JOIN, or RESTART when it had
 * joined this epoch already), else it asks for one (MEMBER_JOIN). Its
 * index is where its record lands; an epoch moved on meanwhile: decide
 * again. A process that had a slot and has none now was evicted.
 */
static int join_auto(weir__control *c, const weir__cluster_conf *conf,
                     const uint8_t *ident, size_t ident_len, weir_error *err)
{
    for (;;) {
        if (c->mode == M_HAND)
            return weir_error_set(err, WEIR_EINVAL,
                                  "weir.cluster.process-index: not set, and "
                                  "the processes of this job are numbered "
                                  "by hand (control topic '%s'): give this "
                                  "one its index too",
                                  c->topic);
        int64_t s = slot_of(c, c->nonce);
        uint8_t type = C_MEMBER_JOIN;
        uint32_t proc = ANY_PROC, want = c->epoch, cnt = c->count;
        if (s >= 0) {
            proc = (uint32_t)s;
            type = c->joined[s] ? C_RESTART : C_JOIN;
            want = c->joined[s] ? c->epoch + 1 : c->epoch;
        } else if (atomic_load(&g_joined_once)) {
            return weir_error_set(
                err, WEIR_ESTATE,
                "this process (member %016llx) is no longer a member of the "
                "job: it was silent for longer than "
                "weir.cluster.session-timeout and the others went on "
                "without it (control topic '%s', epoch %u, %u process%s); "
                "start it again to join as a new member",
                (unsigned long long)c->nonce, c->topic, c->epoch, c->count,
                c->count == 1 ? "" : "es");
        } else if (!cnt) {
            cnt = conf->processes ? conf->processes : 1;
        } else if (cnt >= MAX_PROCS) {
            bool free_slot = false;
            for (uint32_t i = 0; i < cnt && !free_slot; i++)
                free_slot = !c->members[i].id;
            if (!free_slot)
                return weir_error_set(err, WEIR_EINVAL,
                                      "control topic '%s': the job runs on "
                                      "%u processes, the most there may be, "
                                      "and every place is taken",
                                      c->topic, cnt);
        }
        c->seen_own = false;
        int rc = produce_ext(c, type, proc, c->nonce, 0, want, cnt, ident,
                             ident_len, true, err);
        if (!rc)
            rc = read_log(c, true, err);
        if (rc)
            return rc;
        s = slot_of(c, c->nonce);
        if (s >= 0 && c->joined[s]) {
            c->conf.index = (uint32_t)s;
            return 0;
        }
    }
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
    if (rc) {
        char why[sizeof err->message];
        snprintf(why, sizeof why, "%s",
                 err->message[0] ? err->message : weir_strerror(rc));
        return weir_error_set(err, rc, "execution.savepoint.path: %s: %s",
                              path, why);
    }
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

/* A control of topic, its clients made, nothing read (*rc: why not). */
static weir__control *control_new(const weir__cluster_conf *conf,
                                  const char *topic, const char *ckpt_dir,
                                  int *rc, weir_error *err)
{
    weir__control *c = weir_calloc(1, sizeof *c);
    if (!c) {
        *rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&c->mu, NULL);
    atomic_init(&c->quit, false);
    c->conf = *conf;
    c->servers = weir_strdup(conf->servers);
    c->topic = weir_strdup(topic);
    c->joined = weir_calloc(MAX_PROCS, 1);
    c->members = weir_calloc(MAX_PROCS, sizeof *c->members);
    c->complete_ids = weir_calloc(MAX_PROCS, sizeof *c->complete_ids);
    pthread_mutex_init(&c->mmu, NULL);
    c->timeout_ms = conf->session_timeout_ms;
    c->sp_ack_from = weir_calloc(MAX_PROCS, 1);
    c->dir = weir_malloc(strlen(ckpt_dir) + 32);
    c->start_summary = -1;
    c->summary_seen = c->summary_sent = -1;
    const char *every = getenv("WEIR_TEST_CLUSTER_SUMMARY_EVERY");
    c->summary_every = every && atoll(every) > 0 ? atoll(every) : 1024;
    const char *chunk = getenv("WEIR_TEST_CLUSTER_SUMMARY_CHUNK");
    c->summary_chunk = chunk && atoll(chunk) > 0 ? atoll(chunk) : 1024;
    *rc = 0;
    if (!c->servers || !c->topic || !c->joined || !c->members ||
        !c->complete_ids || !c->dir || !c->sp_ack_from) {
        *rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
    } else {
        c->first_epoch = c->epoch = conf->epoch;
        if (!(c->prod = client(c, RD_KAFKA_PRODUCER, err)) ||
            !(c->cons = client(c, RD_KAFKA_CONSUMER, err)))
            *rc = err->code ? err->code : WEIR_EIO;
        else if (rd_kafka_poll_set_consumer(c->cons),
                 !(c->prkt = rd_kafka_topic_new(c->prod, topic, NULL)))
            *rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
    }
    if (*rc) {
        g_destroy(c);
        return NULL;
    }
    return c;
}

/* The first difference between the views of the log of a and b (NULL:
 * none): every field a start takes from the log. */
static const char *view_diff(weir__control *a, weir__control *b)
{
    if (a->mode != b->mode)
        return "membership";
    if (a->epoch != b->epoch || a->count != b->count)
        return "epoch or processes";
    if (a->partitions != b->partitions)
        return "partitions";
    for (uint32_t i = 0; i < a->count; i++) {
        const member_t *x = &a->members[i], *y = &b->members[i];
        if (a->joined[i] != b->joined[i] || x->id != y->id ||
            x->pid != y->pid || strcmp(x->host, y->host))
            return "members";
    }
    if (a->complete != b->complete || a->complete_count != b->complete_count ||
        a->complete_final != b->complete_final)
        return "complete checkpoint";
    for (uint32_t i = 0; i < a->complete_count; i++)
        if (a->complete_ids[i] != b->complete_ids[i])
            return "members of the complete checkpoint";
    if (a->max_trigger != b->max_trigger || a->last_trigger != b->last_trigger)
        return "triggers";
    if (a->last_sp_trigger != b->last_sp_trigger ||
        a->n_sp_queue != b->n_sp_queue || a->n_sp_taken != b->n_sp_taken ||
        a->sp_busy != b->sp_busy)
        return "savepoints";
    for (uint32_t i = 0; i < a->n_sp_queue; i++)
        if (a->sp_queue[i].proc != b->sp_queue[i].proc ||
            a->sp_queue[i].nonce != b->sp_queue[i].nonce ||
            a->sp_queue[i].stop != b->sp_queue[i].stop)
            return "savepoint requests";
    for (uint32_t i = 0; i < a->n_sp_taken; i++)
        if (a->sp_taken[i].id != b->sp_taken[i].id ||
            a->sp_taken[i].proc != b->sp_taken[i].proc ||
            a->sp_taken[i].nonce != b->sp_taken[i].nonce ||
            a->sp_taken[i].stop != b->sp_taken[i].stop)
            return "savepoints taken";
    return NULL;
}

/*
 * WEIR_TEST_CLUSTER_CHECK_LOG=1 (the tests): the view a start read from the
 * last summary (c, read to hi) must be the one a read of the whole log to
 * hi gives; a difference fails the start, naming it.
 */
static int check_view(weir__control *c, int64_t hi, weir_error *err)
{
    const char *on = getenv("WEIR_TEST_CLUSTER_CHECK_LOG");
    if (!on || strcmp(on, "1"))
        return 0;
    int rc = 0;
    weir__control *f = control_new(&c->conf, c->topic, "", &rc, err);
    if (!f)
        return rc;
    f->first_epoch = f->epoch = c->first_epoch;
    int64_t end = hi;
    if (!(rc = read_log_to(f, false, true, &end, err))) {
        const char *d = view_diff(c, f);
        if (d)
            rc = weir_error_set(err, WEIR_ESTATE,
                                "control topic '%s': the start read from "
                                "offset %lld (summary at %lld) and the read "
                                "from the beginning to offset %lld differ "
                                "in: %s",
                                c->topic, (long long)c->start_from,
                                (long long)c->start_summary, (long long)hi,
                                d);
        else
            fprintf(stderr,
                    "weir: control topic '%s': the start read %llu records "
                    "from offset %lld (summary at %lld), the whole log %llu "
                    "to offset %lld: the same view\n",
                    c->topic, (unsigned long long)c->start_records,
                    (long long)c->start_from, (long long)c->start_summary,
                    (unsigned long long)f->start_records, (long long)hi);
    }
    g_destroy(f);
    return rc;
}

int weir__control_open(weir__cluster_conf *conf, const char *topic,
                       const char *ckpt_dir, const char *sp_path,
                       weir__control **out, bool *left, weir_error *err)
{
    *out = NULL;
    *left = false;
    int rc = 0;
    weir__control *c = control_new(conf, topic, ckpt_dir, &rc, err);
    if (!c)
        return rc;
    size_t dl = strlen(ckpt_dir) + 32;
    int64_t hi = -1;
    if ((rc = check_topic(c, err)) ||
        (rc = read_log_to(c, false, false, &hi, err)) ||
        (rc = check_view(c, hi, err)))
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
    if (!c->partitions) {
        rc = weir_error_set(err, WEIR_EINVAL,
                            "weir.cluster.repartition-partitions: a new job "
                            "started without weir.cluster.processes needs "
                            "it (control topic '%s' is empty)",
                            c->topic);
        goto fail;
    }
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
    uint8_t ident[5 + HOST_LEN];
    size_t ident_len = identity(ident);
    c->nonce = member_id();
    bool follow = atomic_load(&g_joined_once);
    if (conf->auto_index) {
        if ((rc = join_auto(c, conf, ident, ident_len, err)))
            goto fail;
    } else if (c->mode == M_AUTO) {
        rc = weir_error_set(err, WEIR_EINVAL,
                            "weir.cluster.process-index: the processes of "
                            "this job are numbered by its control topic "
                            "('%s'): start this one without an index",
                            c->topic);
        goto fail;
    }
    for (; !conf->auto_index;) {
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
        c->seen_own = false;
        if ((rc = produce_ext(c, type, i, c->nonce, 0, want, cnt, ident,
                              ident_len, true, err)) ||
            (rc = read_log(c, true, err)))
            goto fail;
        if (c->epoch == want && c->count == cnt && i < cnt && c->joined[i])
            break;
        if (c->mode == M_AUTO) {
            rc = weir_error_set(err, WEIR_EINVAL,
                                "weir.cluster.process-index: the processes "
                                "of this job are numbered by its control "
                                "topic ('%s'): start this one without an "
                                "index",
                                c->topic);
            goto fail;
        }
        follow = true; /* asked once: from now on the log's count */
    }
    atomic_store(&g_joined_once, true);
    part_dir(c, ckpt_dir, c->conf.index, c->nonce, c->dir, dl);
    /* only an automatic job evicts: a job numbered by hand needs none */
    if (c->mode == M_AUTO && (rc = hb_start(c, err)))
        goto fail;
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
        snprintf(c->restore, pl, "%s/process-%u", sp_path, c->conf.index);
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
        /* (of the place this process has now, in an automatic job) */
        uint32_t own = c->conf.index < c->n_parts ? c->conf.index : 0;
        char d[64 + 4096];
        part_dir(c, ckpt_dir, own, c->complete_ids[own], d, sizeof d);
        snprintf(c->restore, rl, "%s/chk-%llu", d,
                 (unsigned long long)c->complete);
    }
    /* a savepoint's part is named by the place (an automatic job's index
     * comes from the log) */
    snprintf(c->sp_part, sizeof c->sp_part, "process-%u", c->conf.index);
    c->gate = (weir__ckpt_gate){.leader = c->conf.index == 0,
                                .dir = c->dir,
                                .restore = c->restore,
                                .restore_parts = (const char *const *)c->parts,
                                .n_parts = c->n_parts,
                                .need_others = c->parts && !c->sp_restore &&
                                                       c->n_parts == c->count
                                                   ? g_need_others
                                                   : NULL,
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

bool weir__control_member(weir__control *c, uint32_t i, weir__member_info *out)
{
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&c->mmu);
    bool ok = i < c->count;
    if (ok) {
        const member_t *m = &c->members[i];
        out->id = m->id;
        out->pid = m->pid;
        snprintf(out->host, sizeof out->host, "%s", m->host);
        out->age_ms = m->seen_ms && c->thread_started && !c->aborted
                          ? now_ms() - m->seen_ms
                          : -1;
        out->joined = c->joined[i] != 0;
    }
    pthread_mutex_unlock(&c->mmu);
    return ok;
}

#endif
