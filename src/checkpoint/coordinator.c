/*
 * checkpoint/coordinator.c - the checkpoint coordinator of a job: triggers
 * checkpoints, collects the subtasks' snapshots, writes them (writer
 * thread), completes checkpoints and notifies the job, prunes old ones;
 * savepoints and stop-with-savepoint; the public API of weir/checkpoint.h.
 *
 * Life of a checkpoint (threads: coordinator.h):
 *   registered (pending, COLLECTING) -> triggered in the runtime
 *   -> acks arrive (bytes copied) -> each state file written as it arrives
 *   -> all acked and written: _metadata written atomically -> complete:
 *   older pending ones are subsumed, the job is notified (sinks commit),
 *   old checkpoints pruned.
 * Any failure on the way (a decline, a write error, the timeout, the job
 * ending first) marks it FAILED; the writer then removes its folder. A
 * failure touches nothing but that checkpoint.
 *
 * Invariants: only the writer frees a pending checkpoint (so the others may
 * mark one under the mutex at any time); ids increase; a checkpoint's
 * _metadata is written only after all its state files are durable; the job
 * is notified of N only after N's _metadata is durable.
 */
#include <dirent.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "checkpoint/coordinator.h"
#include "util/dirlock.h"
#include "util/io.h"

#define TICK_MS                                                                \
    10 /* how often the coordinator looks at the clock (real time) */
#define N_OUTCOMES 64 /* outcomes kept for weir_job_await_checkpoint */
#define FINAL_RETRY_MS                                                         \
    50 /* a failed final checkpoint is tried again after this (or min pause)   \
        */
/* Once every subtask has ended and waits for the final checkpoint, each
 * answers a trigger at once; a checkpoint still unanswered this long (real
 * time) after that will never be, and is given up so that the final
 * checkpoint can be taken (instead of waiting for the checkpoint timeout). */
#define FINAL_STALL_MS 10000
/* A job asked to stop whose final checkpoint has failed this many times
 * since then stops without it, as a cancel does: it would retry without end
 * while the storage refuses (a full disk), and a stop must end the job. */
#define FINAL_STOP_TRIES 3

enum { P_COLLECTING, P_FAILED };

typedef struct snap_entry {
    int task;
    uint32_t subtask, parallelism;
    uint8_t *data; /* owned until written */
    size_t len;
    bool busy; /* the writer is writing it */
    bool written;
    uint32_t crc;
    char label[200]; /* the chain's operator names, for the metadata */
    weir__ckpt_shared *shared; /* shared files its native parts need */
    uint32_t n_shared;
} snap_entry;

typedef struct pending {
    uint64_t id;
    bool savepoint; /* intermediate savepoint: written to sp only, sinks do not
                       commit */
    weir__storage *sp; /* savepoint storage (owned), or NULL */
    char *sp_dir;
    bool all_final;  /* every snapshot was a final one */
    bool finalizing; /* the writer is writing its metadata */
    bool subsumed;
    int state;
    int code;
    char why[512];
    int64_t trigger_ms;
    int64_t acked_ms; /* when the last acknowledgement arrived */
    int64_t max_sync_ns; /* longest synchronous pause of a subtask */
    uint64_t inflight_bytes; /* unaligned: in-flight data stored */
    uint32_t n_expected;
    snap_entry *snaps;
    uint32_t n_snaps;
    uint32_t n_written;
    uint64_t uploaded; /* bytes of shared files uploaded for it */
    struct pending *next;
} pending;

/*
 * Incremental checkpoints: the SST files one subtask's operator has in
 * shared storage (this run). SST files are immutable and RocksDB never
 * reuses a file number, so a local name (and size) stands for its
 * content. last_used is the newest checkpoint whose snapshot lists the
 * file; retention keeps the files of entries at or above the checkpoint
 * just completed (in-flight checkpoints) besides those of retained ones.
 */
typedef struct upl_file {
    char *local, *shared;
    uint64_t size;
    uint32_t crc;
    uint64_t last_used;
} upl_file;

typedef struct upl_table {
    int task;
    uint32_t subtask, node;
    upl_file *files;
    uint32_t n_files, cap_files;
} upl_table;

typedef struct final_copy {
    int task;
    uint32_t subtask, parallelism;
    uint8_t *data;
    size_t len;
} final_copy;

typedef struct outcome {
    uint64_t id;
    int code;
    char why[512];
    char path[700];
} outcome;

struct weir__coord {
    weir_job *job;
    weir_checkpoint_config cfg;
    char *dir, *sp_dir, *restore_path; /* owned copies behind cfg's strings */
    char *s3_copies[5]; /* owned copies behind cfg's s3_* strings */
    weir_clock clock;
    uint32_t max_par;
    weir__storage *storage;
    weir__dirlock *lock; /* on dir: one process per checkpoint folder */
    weir__state_op *ops; /* the job's stateful operators, for _metadata */
    uint32_t n_ops;
    weir__recovered rec;
    weir__restore_source
        inner; /* rec.set's restore source, wrapped to time recovery */
    int64_t enable_ns;
    _Atomic int64_t last_restore_ns;

    pthread_mutex_t mu;
    pthread_cond_t tick_cv; /* wakes the coordinator thread */
    pthread_cond_t work_cv; /* wakes the writer */
    pthread_cond_t done_cv; /* wakes waiters for outcomes */
    pthread_t coord_thread, writer_thread;
    bool coord_started, writer_started;
    bool running; /* started and not yet ended */
    bool ending;

    uint64_t next_id;
    pending *pend;     /* ascending id */
    uint32_t n_active; /* pending and not failed */
    uint32_t n_subtasks;
    uint32_t n_final_ready;
    int64_t all_final_mono_ms; /* real time every subtask was final-ready */
    uint64_t all_final_id;     /* the first checkpoint id registered after that */
    int64_t final_stall_ms;    /* FINAL_STALL_MS, or WEIR_TEST_FINAL_STALL_MS */
    final_copy *finals;
    uint32_t n_finals, cap_finals;
    int64_t last_trigger_ms; /* job clock */
    int64_t last_end_ms;     /* end (complete or failed) of the last checkpoint;
                                INT64_MIN: none */
    int64_t final_retry_ms;
    /* The final checkpoint that completed (0: none yet): every subtask
     * answered it with its final snapshot, so its completion ends them all
     * and the job. Nothing is triggered after it: a trigger would race the
     * subtasks' end for an answer, only to record the same state again. */
    uint64_t final_id;
    uint32_t consecutive_failures;
    int abort_code; /* tolerable failures exceeded: the coordinator thread fails
                       the job */
    uint32_t final_stop_fails; /* final checkpoints failed since the job was
                                  asked to stop */
    bool final_give_up; /* FINAL_STOP_TRIES of them: the coordinator thread
                           cancels the job */
    char abort_msg[600];

    /* stop-with-savepoint: the first all-final checkpoint is copied to a
     * savepoint */
    weir__storage *stop_sp;
    char *stop_sp_dir;
    bool stop_sp_done;
    int stop_sp_code;
    char stop_sp_path[700];
    char stop_sp_why[512];

    _Atomic int savepoint_requested;

    uint64_t *retained; /* complete checkpoints kept, oldest first */
    uint32_t n_retained, cap_retained;
    uint64_t *stale; /* folders of earlier runs without _metadata */
    uint32_t n_stale;
    /* A checkpoint retention never drops (0: none): a restart of a job run
     * by several processes that had ended restores the checkpoint the
     * control topic names, takes checkpoints of its own and tells the
     * control topic of none, so every later start restores that one again
     * (and the other processes may read this part of it). */
    uint64_t keep_id;

    upl_table *tables; /* incremental checkpoints: what is in shared/ */
    uint32_t n_tables;
    uint64_t run_tag; /* makes shared names unique per run */

    outcome outcomes[N_OUTCOMES];
    uint64_t n_outcomes;
    weir_checkpoint_stats stats;

    /* One job on several processes (weir__ckpt_gate); NULL: alone. */
    const weir__ckpt_gate *gate;
    bool gate_started;
    /* the first checkpoint whose local part was final everywhere here (0:
     * none yet): completing it does not end the job here unless it ended
     * on every process */
    uint64_t gate_final_from;
    bool gate_done; /* a checkpoint that ended the job everywhere completed */
    /* the other processes' parts restored with this one's (rescaling);
     * rec holds the first one loaded */
    weir__snapshot_set **part_sets;
    uint32_t n_part_sets;
    uint32_t rec_part; /* the part c->rec holds */
    /* Savepoints of the job across the processes: the leader takes no
     * checkpoint while a stop-with-savepoint (sp_hold) is in flight; a
     * request asked for here (sp_nonce, 0: none) waits for its answer. */
    uint64_t sp_hold;
    uint64_t sp_nonce;
    bool sp_answered;
    int sp_code;
    char sp_answer[700];
};

/* ---- small helpers ---- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

void weir__ckpt_log(const weir_checkpoint_config *cfg, const char *fmt, ...)
{
    char line[1400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (cfg && cfg->log)
        cfg->log(cfg->log_ud, line);
    else
        fprintf(stderr, "weir: %s\n", line);
}

void weir__ckpt_format_time(int64_t ms, char *buf, size_t cap)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, cap, "%Y-%m-%d %H:%M:%S", &tm);
}

static int64_t now_ms(const weir__coord *c)
{
    return weir_clock_now(&c->clock);
}

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static struct timespec deadline_in_ms(int64_t ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_sec += ms / 1000;
    ts.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return ts;
}

static int cond_init_mono(pthread_cond_t *cv)
{
    pthread_condattr_t a;
    if (pthread_condattr_init(&a))
        return WEIR_ENOMEM;
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    int rc = pthread_cond_init(cv, &a);
    pthread_condattr_destroy(&a);
    return rc ? WEIR_ENOMEM : 0;
}

static weir__coord *coord_of(const weir_job *job)
{
    return weir__job_companion_ud(job);
}

static void free_shared(weir__ckpt_shared *sh, uint32_t n)
{
    for (uint32_t i = 0; sh && i < n; i++)
        weir_free(sh[i].name);
    weir_free(sh);
}

static void free_pending(pending *p)
{
    for (uint32_t i = 0; i < p->n_snaps; i++) {
        weir_free(p->snaps[i].data);
        free_shared(p->snaps[i].shared, p->snaps[i].n_shared);
    }
    weir_free(p->snaps);
    weir__storage_destroy(p->sp);
    weir_free(p->sp_dir);
    weir_free(p);
}

static pending *find_pending(weir__coord *c, uint64_t id)
{
    for (pending *p = c->pend; p; p = p->next)
        if (p->id == id)
            return p;
    return NULL;
}

static final_copy *find_final(weir__coord *c, int task, uint32_t subtask)
{
    for (uint32_t i = 0; i < c->n_finals; i++)
        if (c->finals[i].task == task && c->finals[i].subtask == subtask)
            return &c->finals[i];
    return NULL;
}

static void record_outcome(weir__coord *c, uint64_t id, int code,
                           const char *why, const char *path)
{
    outcome *o = &c->outcomes[c->n_outcomes++ % N_OUTCOMES];
    o->id = id;
    o->code = code;
    snprintf(o->why, sizeof o->why, "%s", why ? why : "");
    snprintf(o->path, sizeof o->path, "%s", path ? path : "");
    pthread_cond_broadcast(&c->done_cv);
}

static const outcome *find_outcome(const weir__coord *c, uint64_t id)
{
    uint64_t lo = c->n_outcomes > N_OUTCOMES ? c->n_outcomes - N_OUTCOMES : 0;
    for (uint64_t i = c->n_outcomes; i-- > lo;)
        if (c->outcomes[i % N_OUTCOMES].id == id)
            return &c->outcomes[i % N_OUTCOMES];
    return NULL;
}

/* Marks p failed (mutex held). The writer removes what it wrote. */
static void fail_locked(weir__coord *c, pending *p, int code, const char *fmt,
                        ...) __attribute__((format(printf, 4, 5)));
static void fail_locked(weir__coord *c, pending *p, int code, const char *fmt,
                        ...)
{
    if (p->state == P_FAILED)
        return;
    p->state = P_FAILED;
    p->code = code ? code : WEIR_EIO;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->why, sizeof p->why, fmt, ap);
    va_end(ap);
    c->n_active--;
    int64_t now = now_ms(c);
    c->last_end_ms = now;
    if (p->all_final || c->n_final_ready >= c->n_subtasks) {
        c->final_retry_ms =
            now + (c->cfg.min_pause_ms > FINAL_RETRY_MS ? c->cfg.min_pause_ms
                                                        : FINAL_RETRY_MS);
        if (!p->savepoint && !p->subsumed && !c->gate &&
            weir__job_stop_requested(c->job) &&
            ++c->final_stop_fails == FINAL_STOP_TRIES)
            c->final_give_up = true;
    }
    if (!p->subsumed) {
        c->stats.failed++;
        snprintf(c->stats.last_failure, sizeof c->stats.last_failure,
                 "%s %" PRIu64 ": %.200s",
                 p->savepoint ? "savepoint" : "checkpoint", p->id, p->why);
        if (!c->ending)
            weir__ckpt_log(&c->cfg, "%s %" PRIu64 " failed: %s%s",
                           p->savepoint ? "savepoint" : "checkpoint", p->id,
                           p->why, p->savepoint ? "" : "; the job goes on");
        if (!p->savepoint) {
            c->consecutive_failures++;
            if (c->cfg.tolerable_failures >= 0 &&
                c->consecutive_failures > (uint32_t)c->cfg.tolerable_failures &&
                !c->abort_code) {
                c->abort_code = p->code;
                snprintf(c->abort_msg, sizeof c->abort_msg,
                         "%u consecutive checkpoints failed (tolerable: %d); "
                         "the last: %s",
                         c->consecutive_failures, c->cfg.tolerable_failures,
                         p->why);
            }
        }
    }
    record_outcome(c, p->id, p->code, p->why, NULL);
    /* A part of a savepoint of the whole job: the leader hears of it. */
    if (p->savepoint && c->gate && c->gate->sp_acked)
        c->gate->sp_acked(c->gate->ud, p->id, false);
    pthread_cond_signal(&c->work_cv);
    pthread_cond_signal(&c->tick_cv);
}

/* Registers checkpoint id (mutex held); the caller triggers it after unlocking.
 */
static pending *register_locked(weir__coord *c, bool savepoint,
                                weir__storage *sp, char *sp_dir)
{
    pending *p = weir_calloc(1, sizeof *p);
    snap_entry *snaps =
        weir_calloc(c->n_subtasks ? c->n_subtasks : 1, sizeof *snaps);
    if (!p || !snaps) {
        weir_free(p);
        weir_free(snaps);
        return NULL;
    }
    p->id = c->next_id++;
    p->savepoint = savepoint;
    p->sp = sp;
    p->sp_dir = sp_dir;
    p->all_final = true;
    p->state = P_COLLECTING;
    p->trigger_ms = now_ms(c);
    p->n_expected = c->n_subtasks;
    p->snaps = snaps;
    pending **tail = &c->pend;
    while (*tail)
        tail = &(*tail)->next;
    *tail = p;
    c->n_active++;
    if (!savepoint)
        c->last_trigger_ms = p->trigger_ms;
    return p;
}

/* Triggers p in the runtime; the mutex is released around the call (it may ack
 * at once). */
static void trigger_unlocked(weir__coord *c, uint64_t id)
{
    pthread_mutex_unlock(&c->mu);
    int rc = weir__job_trigger_checkpoint(c->job, id);
    pthread_mutex_lock(&c->mu);
    if (rc) {
        pending *p = find_pending(c, id);
        if (p)
            fail_locked(c, p, rc, "cannot trigger: %s", weir_strerror(rc));
    }
}

/* ---- the hooks the runtime calls (subtask threads) ---- */

static uint8_t *dup_bytes(const uint8_t *data, size_t len)
{
    uint8_t *p = weir_malloc(len ? len : 1);
    if (p && len)
        memcpy(p, data, len);
    return p;
}

static void on_ack(void *ud, const weir__task_snapshot *snap)
{
    weir__coord *c = ud;
    /* The bytes are taken over when the runtime allows it, else copied (before
     * locking: they can be large). */
    uint8_t *copy = NULL;
    if (snap->len && !snap->final && snap->buf &&
        snap->buf->data == snap->data) {
        copy = snap->buf->data;
        weir_buf_init(snap->buf);
    } else if (snap->len) {
        copy = dup_bytes(snap->data, snap->len);
    }
    size_t len = snap->len;
    uint8_t *fcopy =
        snap->final && snap->len ? dup_bytes(snap->data, snap->len) : NULL;
    bool is_final = snap->final;
    pthread_mutex_lock(&c->mu);
    if (fcopy && !find_final(c, snap->task, snap->subtask)) {
        if (c->n_finals == c->cap_finals) {
            uint32_t cap = c->cap_finals ? c->cap_finals * 2 : 8;
            final_copy *f = weir_realloc(c->finals, cap * sizeof *f);
            if (f) {
                c->finals = f;
                c->cap_finals = cap;
            }
        }
        if (c->n_finals < c->cap_finals) {
            c->finals[c->n_finals++] = (final_copy){
                snap->task, snap->subtask, snap->parallelism, fcopy, snap->len};
            fcopy = NULL;
        }
    }
    pending *p = find_pending(c, snap->ckpt_id);
    if (p && p->state == P_COLLECTING && snap->finished && !snap->len) {
        /* The subtask exited after its final checkpoint: its state is that
         * final snapshot. */
        final_copy *f = find_final(c, snap->task, snap->subtask);
        if (!f) {
            fail_locked(c, p, WEIR_ESTATE,
                        "task %d subtask %u ended without a final snapshot",
                        snap->task, snap->subtask);
        } else if (!(copy = dup_bytes(f->data, f->len))) {
            fail_locked(c, p, WEIR_ENOMEM, "out of memory copying a snapshot");
        } else {
            len = f->len;
            is_final = true;
        }
    } else if (p && p->state == P_COLLECTING && !copy) {
        if (snap->len)
            fail_locked(c, p, WEIR_ENOMEM, "out of memory copying a snapshot");
        else
            fail_locked(c, p, WEIR_ECORRUPT,
                        "task %d subtask %u sent an empty snapshot", snap->task,
                        snap->subtask);
    }
    if (p && p->state == P_COLLECTING && copy) {
        bool dup = false;
        for (uint32_t i = 0; i < p->n_snaps; i++)
            dup = dup || (p->snaps[i].task == snap->task &&
                          p->snaps[i].subtask == snap->subtask);
        if (!dup && p->n_snaps < p->n_expected) {
            p->snaps[p->n_snaps++] =
                (snap_entry){.task = snap->task,
                             .subtask = snap->subtask,
                             .parallelism = snap->parallelism,
                             .data = copy,
                             .len = len};
            copy = NULL;
            if (snap->sync_ns > p->max_sync_ns)
                p->max_sync_ns = snap->sync_ns;
            p->inflight_bytes += snap->inflight_bytes;
            p->all_final = p->all_final && is_final;
            if (p->n_snaps == p->n_expected)
                p->acked_ms = now_ms(c);
            pthread_cond_signal(&c->work_cv);
        }
    }
    pthread_mutex_unlock(&c->mu);
    weir_free(copy);
    weir_free(fcopy);
}

static void on_decline(void *ud, uint64_t id, int task, uint32_t subtask,
                       int code, const char *why)
{
    weir__coord *c = ud;
    pthread_mutex_lock(&c->mu);
    pending *p = find_pending(c, id);
    if (p && p->state == P_COLLECTING)
        fail_locked(c, p, code, "declined by task %d subtask %u: %s", task,
                    subtask, why ? why : "");
    pthread_mutex_unlock(&c->mu);
}

static void on_final_ready(void *ud, int task, uint32_t subtask)
{
    weir__coord *c = ud;
    pthread_mutex_lock(&c->mu);
    if (++c->n_final_ready == c->n_subtasks) { /* (0 until coord_started: it sets the time then) */
        c->all_final_mono_ms = mono_ms();
        c->all_final_id = c->next_id;
    }
    pthread_cond_signal(&c->tick_cv);
    pthread_mutex_unlock(&c->mu);
}

/* ---- incremental checkpoints: native parts into shared storage ---- */

/* Unaligned checkpoints: every checkpoint but savepoints (as in Flink). */
static bool on_unaligned_ok(void *ud, uint64_t id)
{
    weir__coord *c = ud;
    pthread_mutex_lock(&c->mu);
    pending *p = find_pending(c, id);
    bool ok = c->cfg.unaligned && p && !p->savepoint;
    pthread_mutex_unlock(&c->mu);
    return ok;
}

static bool on_native_ok(void *ud, uint64_t id)
{
    weir__coord *c = ud;
    pthread_mutex_lock(&c->mu);
    pending *p = find_pending(c, id);
    /* Savepoints stay canonical: they must restore anywhere. */
    bool ok = c->cfg.incremental && p && !p->savepoint;
    pthread_mutex_unlock(&c->mu);
    return ok;
}

static upl_table *find_table(weir__coord *c, int task, uint32_t subtask,
                             uint32_t node)
{
    for (uint32_t i = 0; i < c->n_tables; i++)
        if (c->tables[i].task == task && c->tables[i].subtask == subtask &&
            c->tables[i].node == node)
            return &c->tables[i];
    upl_table *t =
        weir_realloc(c->tables, (c->n_tables + 1) * sizeof *c->tables);
    if (!t)
        return NULL;
    c->tables = t;
    t = &c->tables[c->n_tables++];
    *t = (upl_table){.task = task, .subtask = subtask, .node = node};
    return t;
}

/* Room for one more file in t (mutex held); 0 or WEIR_ENOMEM. */
static int grow_files(upl_table *t)
{
    uint32_t cap = t->cap_files ? t->cap_files * 2 : 16;
    upl_file *f = weir_realloc(t->files, cap * sizeof *f);
    if (!f)
        return WEIR_ENOMEM;
    t->files = f;
    t->cap_files = cap;
    return 0;
}

static bool is_sst(const char *name)
{
    size_t n = strlen(name);
    return n > 4 && strcmp(name + n - 4, ".sst") == 0;
}

/* Stores one SST file unless this subtask stored it before; appends its
 * entry. */
static int upload_sst(weir__coord *c, uint64_t id, int task, uint32_t subtask,
                      uint32_t node, const char *dir, const char *name,
                      weir_buf *out)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct stat sb;
    if (stat(path, &sb) != 0)
        return WEIR_EIO;
    uint64_t size = (uint64_t)sb.st_size;
    char shared[512];
    uint32_t crc = 0;
    bool have = false;
    pthread_mutex_lock(&c->mu);
    upl_table *t = find_table(c, task, subtask, node);
    for (uint32_t i = 0; t && i < t->n_files && !have; i++) {
        upl_file *f = &t->files[i];
        if (strcmp(f->local, name) == 0 && f->size == size) {
            have = true;
            if (f->last_used < id)
                f->last_used = id;
            snprintf(shared, sizeof shared, "%s", f->shared);
            crc = f->crc;
        }
    }
    pthread_mutex_unlock(&c->mu);
    if (!t)
        return WEIR_ENOMEM;
    int rc = 0;
    const char *restored;
    uint64_t rsize;
    uint32_t rcrc;
    if (!have && c->cfg.restore == WEIR_RESTORE_LATEST &&
        weir__snapshot_set_shared_file(c->rec.set, (uint64_t)sb.st_dev,
                                       (uint64_t)sb.st_ino, &restored, &rsize,
                                       &rcrc) &&
        rsize == size) {
        /*
         * The restored database's own file (hard-linked from where the
         * restore fetched it): the stored copy serves, as long as this
         * run's checkpoints list it. Only when the restored checkpoint is
         * in this storage (not --from elsewhere).
         */
        upl_file nf = {weir_strdup(name), weir_strdup(restored), size, rcrc,
                       id};
        pthread_mutex_lock(&c->mu);
        t = find_table(c, task, subtask, node);
        if (t && nf.local && nf.shared &&
            (t->n_files < t->cap_files || !grow_files(t))) {
            t->files[t->n_files++] = nf;
            nf.local = nf.shared = NULL;
            have = true;
            snprintf(shared, sizeof shared, "%s", restored);
            crc = rcrc;
        }
        pthread_mutex_unlock(&c->mu);
        weir_free(nf.local);
        weir_free(nf.shared);
    }
    if (!have) {
        uint8_t *data = NULL;
        size_t len = 0;
        /* Storage that streams a file reads it itself (and sums it). */
        bool stream = c->storage->ops->put_file != NULL;
        if (!stream) {
            if ((rc = weir__io_read_file(path, &data, &len)))
                return rc;
            size = len;
            crc = weir_crc32c(0, data, len);
        }
        snprintf(shared, sizeof shared,
                 "shared/r%" PRIu64 "-t%d-s%u-n%u-%s", c->run_tag, task,
                 subtask, node, name);
        upl_file nf = {weir_strdup(name), weir_strdup(shared), size, crc, id};
        /* In the table before it is stored: retention must see it. */
        pthread_mutex_lock(&c->mu);
        t = find_table(c, task, subtask, node);
        if (t && nf.local && nf.shared &&
            (t->n_files < t->cap_files ||
             !grow_files(t))) {
            t->files[t->n_files++] = nf;
            nf.local = nf.shared = NULL;
        } else {
            rc = WEIR_ENOMEM;
        }
        pthread_mutex_unlock(&c->mu);
        weir_free(nf.local);
        weir_free(nf.shared);
        if (!rc && stream) {
            uint64_t fsize;
            uint32_t fcrc;
            rc = c->storage->ops->put_file(c->storage, shared, path, &fsize,
                                           &fcrc);
            if (!rc) {
                size = fsize;
                crc = fcrc;
            }
        } else if (!rc) {
            rc = c->storage->ops->put(c->storage, shared, data, len);
        }
        weir_free(data);
        pthread_mutex_lock(&c->mu);
        if (rc) {
            /* Not stored: forget it, so the next checkpoint tries again. */
            t = find_table(c, task, subtask, node);
            for (uint32_t i = 0; t && i < t->n_files; i++)
                if (strcmp(t->files[i].shared, shared) == 0) {
                    weir_free(t->files[i].local);
                    weir_free(t->files[i].shared);
                    t->files[i] = t->files[--t->n_files];
                    break;
                }
        } else {
            pending *p = find_pending(c, id);
            if (p)
                p->uploaded += size;
            /* streamed: its CRC is known only now */
            t = find_table(c, task, subtask, node);
            for (uint32_t i = 0; stream && t && i < t->n_files; i++)
                if (strcmp(t->files[i].shared, shared) == 0) {
                    t->files[i].size = size;
                    t->files[i].crc = crc;
                    break;
                }
        }
        pthread_mutex_unlock(&c->mu);
        if (rc)
            return rc;
    }
    if (!(rc = weir_buf_put_str(out, name)) &&
        !(rc = weir_buf_put_u8(out, 1)) && !(rc = weir_buf_put_str(out, shared)) &&
        !(rc = weir_buf_put_u64(out, size)))
        rc = weir_buf_put_u32(out, crc);
    return rc;
}

static int on_native_upload(void *ud, uint64_t id, int task, uint32_t subtask,
                            uint32_t node, const char *dir, weir_buf *out)
{
    weir__coord *c = ud;
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    DIR *d = opendir(dir);
    if (!d)
        return WEIR_EIO;
    struct dirent *e;
    while (!rc && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 32;
            char **nn = weir_realloc(names, nc * sizeof *nn);
            if (!nn) {
                rc = WEIR_ENOMEM;
                break;
            }
            names = nn;
            cap = nc;
        }
        if (!(names[n] = weir_strdup(e->d_name)))
            rc = WEIR_ENOMEM;
        else
            n++;
    }
    closedir(d);
    if (!rc && n)
        qsort(names, n, sizeof *names, cmp_str);
    if (!rc)
        rc = weir_buf_put_varint(out, n);
    char path[4096];
    for (size_t i = 0; i < n && !rc; i++) {
        if (is_sst(names[i])) {
            rc = upload_sst(c, id, task, subtask, node, dir, names[i], out);
            continue;
        }
        /* MANIFEST, CURRENT, OPTIONS: small, and rewritten each time. */
        uint8_t *data;
        size_t len;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if ((rc = weir__io_read_file(path, &data, &len)))
            break;
        if (!(rc = weir_buf_put_str(out, names[i])) &&
            !(rc = weir_buf_put_u8(out, 0)))
            rc = weir_buf_put_bytes(out, data, len);
        weir_free(data);
    }
    weir__storage_free_names(names, n);
    return rc;
}

/* ---- the writer thread ---- */

static void file_name(const snap_entry *e, char *buf, size_t cap)
{
    snprintf(buf, cap, "t%d-s%u.snap", e->task, e->subtask);
}

/*
 * The chain's operator names ("source -> window"), for the metadata, and
 * the shared files of its native parts (*shared transferred).
 */
static int task_label(const snap_entry *e, char *buf, size_t cap,
                      weir__ckpt_shared **shared, uint32_t *n_shared)
{
    weir__snap_view v;
    weir_error err;
    buf[0] = '\0';
    *shared = NULL;
    *n_shared = 0;
    if (!e->data)
        return 0;
    int rc = weir__snap_view_decode(e->data, e->len, &v, &err);
    if (rc)
        return rc == WEIR_ENOMEM ? rc : 0;
    uint32_t n_sh = 0;
    for (uint32_t i = 0; i < v.n_native; i++)
        for (uint32_t f = 0; f < v.native[i].n_files; f++)
            n_sh += v.native[i].files[f].shared != NULL;
    if (n_sh && !(*shared = weir_calloc(n_sh, sizeof **shared))) {
        weir__snap_view_fini(&v);
        return WEIR_ENOMEM;
    }
    for (uint32_t i = 0; i < v.n_native; i++)
        for (uint32_t f = 0; f < v.native[i].n_files; f++) {
            weir__native_file *nf = &v.native[i].files[f];
            if (!nf->shared)
                continue;
            (*shared)[(*n_shared)++] = (weir__ckpt_shared){
                .name = nf->shared,
                .task_id = (uint32_t)e->task,
                .subtask = e->subtask,
                .size = nf->size,
                .crc = nf->crc,
            };
            nf->shared = NULL; /* moved */
        }
    size_t n = 0;
    if (v.has_source)
        n += (size_t)snprintf(buf, cap, "source (operator %u)%s", v.source_node,
                              v.n_ops ? " -> " : "");
    for (uint32_t i = 0; i < v.n_ops && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%s", i ? " -> " : "",
                              v.ops[i].name ? v.ops[i].name : "?");
    if (n >= cap)
        buf[cap - 1] = '\0';
    weir__snap_view_fini(&v);
    return 0;
}

/*
 * The folder of checkpoint or savepoint id in its storage: chk-<id>, or
 * savepoint-<id>; a process's part of a savepoint of a job run by several
 * processes goes into savepoint-<id>/process-<i>.
 */
static void part_name(const weir__coord *c, uint64_t id, bool savepoint,
                      char *buf, size_t cap)
{
    weir__ckpt_name(id, savepoint, buf, cap);
    size_t n = strlen(buf);
    if (savepoint && c->gate && c->gate->sp_part && n < cap)
        snprintf(buf + n, cap - n, "/%s", c->gate->sp_part);
}

static int write_entry(weir__coord *c, pending *p, const snap_entry *e)
{
    char name[64], path[160];
    file_name(e, name, sizeof name);
    weir__storage *s = p->savepoint ? p->sp : c->storage;
    part_name(c, p->id, p->savepoint, path, sizeof path);
    size_t n = strlen(path);
    snprintf(path + n, sizeof path - n, "/%s", name);
    return s->ops->put(s, path, e->data, e->len);
}

static int write_meta(const weir__coord *c, weir__storage *s, uint64_t id,
                      bool savepoint, const weir__ckpt_meta *m)
{
    weir_buf b;
    weir_buf_init(&b);
    int rc = weir__ckpt_meta_encode(m, &b);
    char path[160];
    part_name(c, id, savepoint, path, sizeof path);
    strcat(path, "/_metadata");
    if (!rc)
        rc = s->ops->put(s, path, b.data, b.len);
    weir_buf_fini(&b);
    return rc;
}

/* Copies complete checkpoint id (described by m) into sp as savepoint-<id>. */
static int copy_to_savepoint(weir__coord *c, const weir__ckpt_meta *m,
                             weir__storage *sp)
{
    char from[160], to[160], base_from[64], base_to[64];
    weir__ckpt_name(m->id, false, base_from, sizeof base_from);
    weir__ckpt_name(m->id, true, base_to, sizeof base_to);
    int rc = 0;
    for (uint32_t i = 0; i < m->n_files && !rc; i++) {
        uint8_t *data;
        size_t len;
        snprintf(from, sizeof from, "%s/%s", base_from, m->files[i].file);
        snprintf(to, sizeof to, "%s/%s", base_to, m->files[i].file);
        if (!(rc = c->storage->ops->get(c->storage, from, &data, &len))) {
            rc = sp->ops->put(sp, to, data, len);
            weir_free(data);
        }
    }
    weir__ckpt_meta sm = *m;
    sm.is_savepoint = true;
    if (!rc)
        rc = write_meta(c, sp, m->id, true, &sm);
    if (rc)
        sp->ops->remove(sp, base_to);
    return rc;
}

static int cmp_entries(const void *a, const void *b)
{
    const snap_entry *x = a, *y = b;
    if (x->task != y->task)
        return x->task < y->task ? -1 : 1;
    return x->subtask < y->subtask ? -1 : x->subtask > y->subtask;
}

/* Drops retained checkpoints beyond num_retained and stale folders older than
 * id (no mutex held). */
static void prune(weir__coord *c, uint64_t id, uint64_t *drop, uint32_t n_drop)
{
    char name[64];
    for (uint32_t i = 0; i < n_drop; i++) {
        if (drop[i] >= id)
            continue;
        weir__ckpt_name(drop[i], false, name, sizeof name);
        int rc = c->storage->ops->remove(c->storage, name);
        if (rc && rc != WEIR_ENOTFOUND)
            weir__ckpt_log(&c->cfg, "cannot remove old checkpoint %s: %s", name,
                           weir_strerror(rc));
    }
}

static int add_live(char ***live, size_t *n, size_t *cap, const char *name)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        char **l = weir_realloc(*live, nc * sizeof *l);
        if (!l)
            return WEIR_ENOMEM;
        *live = l;
        *cap = nc;
    }
    /* "shared/x" -> "x", as list names it */
    const char *base = strncmp(name, "shared/", 7) ? name : name + 7;
    if (!((*live)[*n] = weir_strdup(base)))
        return WEIR_ENOMEM;
    (*n)++;
    return 0;
}

/*
 * Incremental checkpoints: removes the shared files that no retained
 * checkpoint lists and no checkpoint in flight may list (no mutex held).
 * The folder is listed before the live set is taken, and an upload enters
 * its table before it is stored, so a file being uploaded now is either
 * not listed or already live. Retained checkpoints of earlier runs count
 * through their _metadata, so this also cleans up after a restart.
 */
static void prune_shared(weir__coord *c, uint64_t id, const weir__ckpt_meta *m)
{
    char **names = NULL;
    size_t n_names = 0;
    int lr = c->storage->ops->list(c->storage, "shared", &names, &n_names);
    if (lr || n_names == 0) {
        if (lr && lr != WEIR_ENOTFOUND)
            weir__ckpt_log(&c->cfg,
                           "cannot list %s/shared: %s (a symbolic link there "
                           "is never followed); its unused files stay",
                           c->dir, weir_strerror(lr));
        weir__storage_free_names(names, n_names);
        return;
    }
    char **live = NULL;
    size_t n_live = 0, cap_live = 0;
    int rc = 0;
    pthread_mutex_lock(&c->mu);
    uint32_t n_ret = c->n_retained;
    uint64_t *ret = weir_calloc(n_ret ? n_ret : 1, sizeof *ret);
    if (ret)
        memcpy(ret, c->retained, n_ret * sizeof *ret);
    else
        rc = WEIR_ENOMEM;
    for (uint32_t t = 0; t < c->n_tables && !rc; t++) {
        upl_table *tb = &c->tables[t];
        uint32_t k = 0;
        for (uint32_t i = 0; i < tb->n_files; i++) {
            upl_file *f = &tb->files[i];
            if (f->last_used >= id) {
                if (!rc)
                    rc = add_live(&live, &n_live, &cap_live, f->shared);
                tb->files[k++] = *f;
            } else {
                /* Gone from the subtask's database: never uploaded again. */
                weir_free(f->local);
                weir_free(f->shared);
            }
        }
        tb->n_files = k;
    }
    pthread_mutex_unlock(&c->mu);
    for (uint32_t i = 0; i < m->n_shared && !rc; i++)
        rc = add_live(&live, &n_live, &cap_live, m->shared[i].name);
    for (uint32_t r = 0; r < n_ret && !rc; r++) {
        if (ret[r] == id)
            continue;
        char path[96];
        weir__ckpt_name(ret[r], false, path, sizeof path);
        strcat(path, "/_metadata");
        uint8_t *data;
        size_t len;
        weir__ckpt_meta rm;
        weir_error e;
        int gr = c->storage->ops->get(c->storage, path, &data, &len);
        if (gr == WEIR_ENOTFOUND)
            continue; /* not in this storage (restored with --from) */
        if (gr) {
            rc = gr; /* cannot tell what it needs: remove nothing now */
            break;
        }
        gr = weir__ckpt_meta_decode(data, len, &rm, &e);
        weir_free(data);
        if (gr) {
            rc = gr;
            break;
        }
        for (uint32_t i = 0; i < rm.n_shared && !rc; i++)
            rc = add_live(&live, &n_live, &cap_live, rm.shared[i].name);
        weir__ckpt_meta_fini(&rm);
    }
    if (!rc) {
        if (n_live)
            qsort(live, n_live, sizeof *live, cmp_str);
        char path[600];
        for (size_t i = 0; i < n_names; i++) {
            if (n_live && bsearch(&names[i], live, n_live, sizeof *live,
                                  cmp_str))
                continue;
            snprintf(path, sizeof path, "shared/%s", names[i]);
            int r = c->storage->ops->remove(c->storage, path);
            if (r && r != WEIR_ENOTFOUND)
                weir__ckpt_log(&c->cfg, "cannot remove %s: %s", path,
                               weir_strerror(r));
        }
    }
    weir_free(ret);
    weir__storage_free_names(live, n_live);
    weir__storage_free_names(names, n_names);
}

/* p is complete (mutex held): bookkeeping, then notify and prune unlocked. */
static void complete_locked(weir__coord *c, pending *p,
                            const weir__ckpt_meta *m)
{
    int64_t now = now_ms(c);
    char path[700];
    const char *dir = p->savepoint ? p->sp_dir : c->dir;
    snprintf(path, sizeof path, "%s/%s-%" PRIu64, dir,
             p->savepoint ? "savepoint" : "chk", p->id);
    uint64_t size = weir__ckpt_meta_size(m), own = p->uploaded;
    for (uint32_t i = 0; i < m->n_files; i++)
        own += m->files[i].size;
    c->n_active--;
    c->last_end_ms = now;
    /* Unlink p; older pending checkpoints are subsumed by this one. */
    for (pending *q = c->pend; q; q = q->next)
        if (q->id < p->id && q->state == P_COLLECTING && !p->savepoint &&
            !q->savepoint) {
            q->subsumed = true;
            fail_locked(c, q, WEIR_ECANCELED, "subsumed by checkpoint %" PRIu64,
                        p->id);
        }
    pending **pp = &c->pend;
    while (*pp != p)
        pp = &(*pp)->next;
    *pp = p->next;
    record_outcome(c, p->id, 0, "", path);
    if (p->savepoint) {
        const weir__ckpt_gate *g = c->gate;
        weir__ckpt_log(&c->cfg,
                       "savepoint %" PRIu64 " %s %s (%" PRIu64 " bytes)",
                       p->id, g ? "part written to" : "written to", path,
                       size);
        if (g && g->sp_acked) {
            /* one part of the job's savepoint: the leader seals it */
            uint64_t id = p->id;
            pthread_mutex_unlock(&c->mu);
            g->sp_acked(g->ud, id, true);
            pthread_mutex_lock(&c->mu);
        }
        return;
    }
    c->stats.last_id = p->id;
    c->stats.last_duration_ms = now - p->trigger_ms;
    c->stats.last_sync_ms = p->acked_ms - p->trigger_ms;
    c->stats.last_async_ms = now - p->acked_ms;
    c->stats.last_pause_us = p->max_sync_ns / 1000;
    c->stats.last_inflight_bytes = p->inflight_bytes;
    c->stats.last_size_bytes = size;
    c->stats.last_checkpointed_bytes = own;
    c->stats.last_time_ms = p->trigger_ms;
    c->stats.completed++;
    c->consecutive_failures = 0;
    if (p->all_final && !c->gate && !c->final_id)
        c->final_id = p->id;
    /* Retention: the newest num_retained complete checkpoints stay. */
    uint64_t drop[64];
    uint32_t n_drop = 0;
    if (c->n_retained == c->cap_retained) {
        uint32_t cap = c->cap_retained ? c->cap_retained * 2 : 8;
        uint64_t *r = weir_realloc(c->retained, cap * sizeof *r);
        if (r) {
            c->retained = r;
            c->cap_retained = cap;
        }
    }
    if (c->n_retained < c->cap_retained)
        c->retained[c->n_retained++] = p->id;
    if (c->gate) {
        /* One part of the job's checkpoint: the job hears of it, and older
         * parts go, only once every process has its part
         * (weir__ckpt_global_complete). */
        if (c->n_retained > 1)
            qsort(c->retained, c->n_retained, sizeof *c->retained, cmp_u64);
        if (p->all_final && !c->gate_final_from)
            c->gate_final_from = p->id;
        const weir__ckpt_gate *g = c->gate;
        uint64_t id = p->id;
        bool fin = p->all_final;
        pthread_mutex_unlock(&c->mu);
        g->acked(g->ud, id, fin);
        pthread_mutex_lock(&c->mu);
        return;
    }
    uint32_t keep = c->cfg.num_retained ? c->cfg.num_retained : 1;
    for (uint32_t i = 0; c->keep_id && i < c->n_retained; i++)
        if (c->retained[i] == c->keep_id)
            keep++; /* kept besides the newest num_retained */
    while (c->n_retained > keep && n_drop < 64) {
        /* the oldest, unless it is keep_id: then the one after it */
        uint32_t o = c->keep_id && c->retained[0] == c->keep_id;
        drop[n_drop++] = c->retained[o];
        memmove(c->retained + o, c->retained + o + 1,
                (c->n_retained - o - 1) * sizeof *c->retained);
        c->n_retained--;
    }
    while (c->n_stale > 0 && n_drop < 64)
        drop[n_drop++] = c->stale[--c->n_stale];
    weir__storage *stop_sp = NULL;
    char *stop_dir = NULL;
    if (p->all_final && c->stop_sp) {
        stop_sp = c->stop_sp;
        stop_dir = c->stop_sp_dir;
        c->stop_sp = NULL;
        c->stop_sp_dir = NULL;
    }
    bool notify = c->running;
    pthread_mutex_unlock(&c->mu);
    if (notify)
        weir__job_notify_checkpoint_complete(
            c->job, p->id); /* fails harmlessly once the job ended */
    if (stop_sp) {
        int rc = copy_to_savepoint(c, m, stop_sp);
        pthread_mutex_lock(&c->mu);
        c->stop_sp_done = true;
        c->stop_sp_code = rc;
        snprintf(c->stop_sp_path, sizeof c->stop_sp_path,
                 "%s/savepoint-%" PRIu64, stop_dir, p->id);
        if (rc)
            snprintf(c->stop_sp_why, sizeof c->stop_sp_why,
                     "cannot write the savepoint into %s: %s", stop_dir,
                     weir_strerror(rc));
        else
            weir__ckpt_log(
                &c->cfg, "savepoint %" PRIu64 " written to %s (the job stops)",
                p->id, c->stop_sp_path);
        pthread_cond_broadcast(&c->done_cv);
        pthread_mutex_unlock(&c->mu);
        weir__storage_destroy(stop_sp);
        weir_free(stop_dir);
    }
    prune(c, p->id, drop, n_drop);
    prune_shared(c, p->id, m);
    pthread_mutex_lock(&c->mu);
}

void weir__ckpt_global_complete(weir_job *job, uint64_t id, bool job_final)
{
    weir__coord *c = coord_of(job);
    if (!c)
        return;
    pthread_mutex_lock(&c->mu);
    /* Every part older than id goes; id and newer stay. */
    uint64_t drop[64];
    uint32_t n_drop = 0, k = 0;
    bool have = false;
    for (uint32_t i = 0; i < c->n_retained; i++) {
        if (c->retained[i] < id && n_drop < 64)
            drop[n_drop++] = c->retained[i];
        else
            c->retained[k++] = c->retained[i];
        have = have || c->retained[i] == id;
    }
    c->n_retained = k;
    while (c->n_stale > 0 && n_drop < 64)
        drop[n_drop++] = c->stale[--c->n_stale];
    /* A process whose every subtask is final waits for the job's end:
     * completing a checkpoint lets final subtasks exit. */
    bool notify = c->running && have &&
                  (job_final || !c->gate_final_from || id < c->gate_final_from);
    c->gate_done = c->gate_done || (notify && job_final);
    pthread_mutex_unlock(&c->mu);
    if (notify)
        weir__job_notify_checkpoint_complete(job, id);
    prune(c, id, drop, n_drop);
}

static void *writer_main(void *arg)
{
    weir__coord *c = arg;
    pthread_mutex_lock(&c->mu);
    for (;;) {
        bool did = false;
        /* 1. Failed checkpoints: remove what was written, free them. */
        for (pending **pp = &c->pend; *pp;) {
            pending *p = *pp;
            bool busy = p->finalizing;
            for (uint32_t i = 0; i < p->n_snaps; i++)
                busy = busy || p->snaps[i].busy;
            if (p->state != P_FAILED || busy) {
                pp = &p->next;
                continue;
            }
            *pp = p->next;
            pthread_mutex_unlock(&c->mu);
            char name[96];
            part_name(c, p->id, p->savepoint, name, sizeof name);
            weir__storage *s = p->savepoint ? p->sp : c->storage;
            if (s)
                s->ops->remove(s, name);
            free_pending(p);
            pthread_mutex_lock(&c->mu);
            did = true;
            break;
        }
        if (did)
            continue;
        /* 2. A state file to write. */
        pending *wp = NULL;
        snap_entry *we = NULL;
        for (pending *p = c->pend; p && !we; p = p->next) {
            if (p->state != P_COLLECTING)
                continue;
            for (uint32_t i = 0; i < p->n_snaps && !we; i++)
                if (!p->snaps[i].written && !p->snaps[i].busy) {
                    wp = p;
                    we = &p->snaps[i];
                }
        }
        if (we) {
            we->busy = true;
            uint64_t id = wp->id;
            snap_entry e = *we; /* p->snaps may not move (fixed size), but copy
                                   for clarity */
            pthread_mutex_unlock(&c->mu);
            int rc = write_entry(c, wp, &e);
            uint32_t crc = rc ? 0 : weir_crc32c(0, e.data, e.len);
            char label[sizeof e.label];
            weir__ckpt_shared *shared = NULL;
            uint32_t n_shared = 0;
            if (!rc)
                rc = task_label(&e, label, sizeof label, &shared, &n_shared);
            pthread_mutex_lock(&c->mu);
            we->busy = false;
            if (wp->state == P_COLLECTING) {
                if (rc) {
                    fail_locked(
                        c, wp, rc,
                        "cannot write the state of task %d subtask %u: %s",
                        e.task, e.subtask, weir_strerror(rc));
                } else {
                    we->written = true;
                    we->crc = crc;
                    memcpy(we->label, label, sizeof label);
                    we->shared = shared;
                    we->n_shared = n_shared;
                    shared = NULL;
                    n_shared = 0;
                    weir_free(we->data); /* durable now: the bytes are not
                                            needed again */
                    we->data = NULL;
                    wp->n_written++;
                }
            }
            (void)id;
            pthread_mutex_unlock(&c->mu);
            free_shared(shared, n_shared);
            pthread_mutex_lock(&c->mu);
            continue;
        }
        /* 3. A checkpoint with every state file written: its metadata. */
        pending *rp = NULL;
        for (pending *p = c->pend; p && !rp; p = p->next)
            if (p->state == P_COLLECTING && !p->finalizing &&
                p->n_snaps == p->n_expected && p->n_written == p->n_expected)
                rp = p;
        if (rp) {
            rp->finalizing = true;
            if (rp->n_snaps > 1)
                qsort(rp->snaps, rp->n_snaps, sizeof *rp->snaps, cmp_entries);
            weir__ckpt_meta m = {.id = rp->id,
                                 .time_ms = rp->trigger_ms,
                                 .duration_ms = now_ms(c) - rp->trigger_ms,
                                 .is_savepoint = rp->savepoint,
                                 /* A job stopped without a drain did not
                                  * end: it continues from here. */
                                 .is_final = rp->all_final &&
                                             !weir__job_stopped_undrained(c->job),
                                 .max_parallelism = c->max_par};
            int rc = 0;
            /* What the state means, for restore compatibility (compat.c). */
            m.has_ops = true;
            for (uint32_t i = 0; i < c->n_ops && !rc; i++)
                rc = weir__ckpt_meta_add_op(&m, c->ops[i].node, c->ops[i].uid,
                                            c->ops[i].name, c->ops[i].fp);
            for (uint32_t i = 0; i < rp->n_snaps && !rc; i++) {
                snap_entry *e = &rp->snaps[i];
                char name[64];
                file_name(e, name, sizeof name);
                rc = weir__ckpt_meta_add(&m, e->label, (uint32_t)e->task,
                                         e->subtask, e->parallelism, name,
                                         e->len, e->crc);
                for (uint32_t k = 0; k < e->n_shared && !rc; k++)
                    rc = weir__ckpt_meta_add_shared(
                        &m, e->shared[k].name, e->shared[k].task_id,
                        e->shared[k].subtask, e->shared[k].size,
                        e->shared[k].crc);
            }
            bool sp = rp->savepoint;
            weir__storage *s = sp ? rp->sp : c->storage;
            pthread_mutex_unlock(&c->mu);
            if (!rc)
                rc = write_meta(c, s, rp->id, sp, &m);
            pthread_mutex_lock(&c->mu);
            rp->finalizing = false;
            if (rp->state == P_COLLECTING) {
                if (rc) {
                    fail_locked(c, rp, rc, "cannot write _metadata: %s",
                                weir_strerror(rc));
                } else {
                    complete_locked(c, rp, &m);
                    weir__ckpt_meta_fini(&m);
                    free_pending(rp);
                    continue;
                }
            }
            weir__ckpt_meta_fini(&m);
            continue;
        }
        if (c->ending && !c->pend)
            break;
        struct timespec dl = deadline_in_ms(100);
        pthread_cond_timedwait(&c->work_cv, &c->mu, &dl);
    }
    pthread_mutex_unlock(&c->mu);
    return NULL;
}

/* ---- the coordinator thread ---- */

static void expire_locked(weir__coord *c, int64_t now)
{
    int64_t timeout = c->cfg.timeout_ms > 0 ? c->cfg.timeout_ms : 600000;
    for (pending *p = c->pend; p; p = p->next)
        if (p->state == P_COLLECTING && now - p->trigger_ms >= timeout)
            fail_locked(c, p, WEIR_ETIMEDOUT,
                        "expired after %" PRId64
                        " ms with %u of %u subtasks acknowledged",
                        now - p->trigger_ms, p->n_snaps, p->n_expected);
}

/* Every subtask is final-ready: a checkpoint triggered before that which has
 * not heard from all of them by now never will (see FINAL_STALL_MS).
 * Checkpoints triggered after it (the final one) reach subtasks that answer
 * them, however long their snapshots take: they are left to the checkpoint
 * timeout, or a final checkpoint slower than the stall time would be given
 * up and taken again without end. Savepoints are left to their timeout:
 * someone waits for them. */
static void abandon_stalled_locked(weir__coord *c)
{
    if (c->n_final_ready < c->n_subtasks ||
        mono_ms() - c->all_final_mono_ms < c->final_stall_ms)
        return;
    for (pending *p = c->pend; p; p = p->next)
        if (p->state == P_COLLECTING && !p->savepoint && p->id < c->all_final_id &&
            p->n_snaps < p->n_expected) {
            /* Not a failure of the job's checkpointing (it does not count
             * against the tolerable failures), but said, since it should
             * not happen. */
            weir__ckpt_log(&c->cfg,
                           "checkpoint %" PRIu64 " given up at the end of the "
                           "job with %u of %u subtasks acknowledged; taking "
                           "the final checkpoint",
                           p->id, p->n_snaps, p->n_expected);
            p->subsumed = true;
            fail_locked(c, p, WEIR_ETIMEDOUT, "given up at the end of the job");
        }
}

/* The leader could not tell the other processes of checkpoint (or
 * savepoint) id: it fails (mutex held). */
static void announce_failed_locked(weir__coord *c, uint64_t id, int rc)
{
    pending *q = find_pending(c, id);
    if (q)
        fail_locked(c, q, rc, "cannot announce it to the other processes: %s",
                    weir_strerror(rc));
}

static void *coord_main(void *arg)
{
    weir__coord *c = arg;
    pthread_mutex_lock(&c->mu);
    while (!c->ending) {
        int64_t now = now_ms(c);
        expire_locked(c, now);
        abandon_stalled_locked(c);
        if (c->abort_code) {
            int code = c->abort_code;
            char msg[sizeof c->abort_msg];
            memcpy(msg, c->abort_msg, sizeof msg);
            c->abort_code = 0;
            pthread_mutex_unlock(&c->mu);
            weir__job_abort(c->job, code, msg);
            pthread_mutex_lock(&c->mu);
            continue;
        }
        if (c->final_give_up && !c->final_id) {
            c->final_give_up = false;
            c->stats.final_given_up = true;
            weir__ckpt_log(&c->cfg,
                           "the job is stopping and its final checkpoint "
                           "failed %u times (the last: %s): it stops without "
                           "one, as a cancel does; the output stays at the "
                           "last completed checkpoint",
                           c->final_stop_fails, c->stats.last_failure);
            pthread_mutex_unlock(&c->mu);
            weir_job_cancel(c->job);
            pthread_mutex_lock(&c->mu);
            continue;
        }
        pending *p = NULL;
        bool sp_stop = false;
        if (c->gate && atomic_exchange(&c->savepoint_requested, 0)) {
            /* weir_job_request_savepoint: ask the leader, nobody waits */
            const weir__ckpt_gate *g = c->gate;
            pthread_mutex_unlock(&c->mu);
            if (!g->sp_request || g->sp_request(g->ud, 0, false))
                weir__ckpt_log(&c->cfg, "cannot take a savepoint: the "
                                        "request did not reach the other "
                                        "processes");
            pthread_mutex_lock(&c->mu);
            continue;
        }
        if (c->gate && c->gate->leader && c->running && !c->ending &&
            c->gate->sp_next && c->gate->sp_next(c->gate->ud, &sp_stop)) {
            /* A savepoint of the whole job that some process asked for. */
            const weir__ckpt_gate *g = c->gate;
            weir__storage *sp = NULL;
            char *dir = c->sp_dir ? weir_strdup(c->sp_dir) : NULL;
            char why[600] = "";
            pthread_mutex_unlock(&c->mu);
            weir_error e = {0};
            int rc = dir ? weir__storage_open(dir, &c->cfg, &sp, &e)
                         : WEIR_EINVAL;
            if (rc)
                snprintf(why, sizeof why, "%s",
                         dir ? e.message
                             : "the leader has no state.savepoints.dir");
            pthread_mutex_lock(&c->mu);
            if (!rc && !(p = register_locked(c, true, sp, dir))) {
                rc = WEIR_ENOMEM;
                snprintf(why, sizeof why, "out of memory");
            }
            if (rc) {
                weir__storage_destroy(sp);
                if (!p)
                    weir_free(dir);
                pthread_mutex_unlock(&c->mu);
                g->sp_announce(g->ud, 0, sp_stop, why);
                pthread_mutex_lock(&c->mu);
                continue;
            }
            uint64_t id = p->id;
            if (sp_stop) {
                /* nothing after its cut enters the job; the final
                 * checkpoint comes after it */
                c->sp_hold = id;
                weir__job_stop_after_barrier(c->job, id);
            }
            pthread_mutex_unlock(&c->mu);
            rc = g->sp_announce(g->ud, id, sp_stop, NULL);
            pthread_mutex_lock(&c->mu);
            if (rc) {
                announce_failed_locked(c, id, rc);
                continue;
            }
            trigger_unlocked(c, id);
            continue;
        }
        if (!c->gate && atomic_exchange(&c->savepoint_requested, 0)) {
            /* A savepoint asked for by a signal (weir_job_request_savepoint).
             */
            weir__storage *sp = NULL;
            char *dir = c->sp_dir ? weir_strdup(c->sp_dir) : NULL;
            pthread_mutex_unlock(&c->mu);
            weir_error e = {0};
            int rc = dir ? weir__storage_open(dir, &c->cfg, &sp, &e)
                         : WEIR_EINVAL;
            pthread_mutex_lock(&c->mu);
            if (rc) {
                weir__ckpt_log(&c->cfg, "cannot take a savepoint: %s",
                               dir ? weir_strerror(rc)
                                   : "no state.savepoints.dir");
                weir_free(dir);
            } else if (!(p = register_locked(c, true, sp, dir))) {
                weir__storage_destroy(sp);
                weir_free(dir);
            }
        } else if (c->gate && !c->gate->leader) {
            /* The leader decides which checkpoints the job takes. */
            const weir__ckpt_gate *g = c->gate;
            pthread_mutex_unlock(&c->mu);
            uint64_t id = g->next_trigger(g->ud);
            bool is_sp = id && g->sp_kind && g->sp_kind(g->ud, id, &sp_stop);
            weir__storage *sp = NULL;
            char *dir = NULL;
            int sprc = 0;
            if (is_sp) {
                /* this process's part of the job's savepoint */
                weir_error e = {0};
                dir = c->sp_dir ? weir_strdup(c->sp_dir) : NULL;
                sprc = dir ? weir__storage_open(dir, &c->cfg, &sp, &e)
                           : WEIR_EINVAL;
                if (sprc)
                    weir__ckpt_log(&c->cfg,
                                   "savepoint %" PRIu64 ": cannot write this "
                                   "process's part: %s",
                                   id,
                                   dir ? e.message
                                       : "no state.savepoints.dir");
                if (sp_stop)
                    weir__job_stop_after_barrier(c->job, id);
            }
            pthread_mutex_lock(&c->mu);
            if (id && id >= c->next_id) {
                c->next_id = id;
                p = register_locked(c, is_sp && !sprc, sp, dir);
                if (p && is_sp && !sprc) {
                    sp = NULL;
                    dir = NULL;
                }
                if (p && is_sp && sprc) {
                    /* taken as a checkpoint part (the barrier must pass),
                     * but the savepoint's part failed here */
                    pthread_mutex_unlock(&c->mu);
                    g->sp_acked(g->ud, id, false);
                    pthread_mutex_lock(&c->mu);
                }
            }
            if (is_sp && !p) {
                /* no part here (an id this process has passed, or out of
                 * memory): the leader must hear that, or the job's
                 * savepoint would wait for this part until it expires */
                weir__ckpt_log(&c->cfg,
                               "savepoint %" PRIu64 ": this process cannot "
                               "take its part (its checkpoint ids are at "
                               "%" PRIu64 ")",
                               id, c->next_id);
                pthread_mutex_unlock(&c->mu);
                g->sp_acked(g->ud, id, false);
                pthread_mutex_lock(&c->mu);
            }
            weir__storage_destroy(sp);
            weir_free(dir);
            if (id) {
                if (p)
                    trigger_unlocked(c, p->id);
                continue;
            }
        } else if (c->gate) {
            /* The leader: at the interval, also once every subtask here is
             * final (the others may not be). */
            if (c->cfg.interval_ms > 0 && !c->gate_done && !c->sp_hold &&
                c->n_active <
                    (c->cfg.max_concurrent ? c->cfg.max_concurrent : 1) &&
                now - c->last_trigger_ms >= c->cfg.interval_ms &&
                (c->last_end_ms == INT64_MIN ||
                 now - c->last_end_ms >= c->cfg.min_pause_ms))
                p = register_locked(c, false, NULL, NULL);
            if (p) {
                const weir__ckpt_gate *g = c->gate;
                uint64_t id = p->id;
                pthread_mutex_unlock(&c->mu);
                int rc = g->announce(g->ud, id);
                pthread_mutex_lock(&c->mu);
                if (rc) {
                    announce_failed_locked(c, id, rc);
                    p = NULL;
                }
            }
        } else if (c->final_id) {
            /* The final checkpoint completed: the job is ending. */
        } else if (c->n_final_ready >= c->n_subtasks && c->n_active == 0 &&
                   now >= c->final_retry_ms) {
            /* Every subtask ended and waits: the final checkpoint, now. */
            p = register_locked(c, false, NULL, NULL);
        } else if (c->cfg.interval_ms > 0 &&
                   c->n_active <
                       (c->cfg.max_concurrent ? c->cfg.max_concurrent : 1) &&
                   now - c->last_trigger_ms >= c->cfg.interval_ms &&
                   (c->last_end_ms == INT64_MIN ||
                    now - c->last_end_ms >= c->cfg.min_pause_ms) &&
                   c->n_final_ready < c->n_subtasks) {
            p = register_locked(c, false, NULL, NULL);
        }
        if (p) {
            trigger_unlocked(c, p->id);
            continue;
        }
        struct timespec dl = deadline_in_ms(TICK_MS);
        pthread_cond_timedwait(&c->tick_cv, &c->mu, &dl);
    }
    pthread_mutex_unlock(&c->mu);
    return NULL;
}

/* ---- the job companion ---- */

static int coord_started(void *ud, weir_job *job)
{
    weir__coord *c = ud;
    pthread_mutex_lock(&c->mu);
    c->n_subtasks = weir__job_subtask_count(job);
    /* The subtasks started before this: every one may have said it is
     * final-ready already (a job whose sources have nothing to read), and
     * on_final_ready could not know it was the last. */
    if (c->n_subtasks && c->n_final_ready >= c->n_subtasks && !c->all_final_mono_ms) {
        c->all_final_mono_ms = mono_ms();
        c->all_final_id = c->next_id;
    }
    c->running = true;
    c->last_trigger_ms = now_ms(c);
    pthread_mutex_unlock(&c->mu);
    if (pthread_create(&c->writer_thread, NULL, writer_main, c))
        return WEIR_ENOMEM;
    c->writer_started = true;
    if (pthread_create(&c->coord_thread, NULL, coord_main, c))
        return WEIR_ENOMEM;
    c->coord_started = true;
    if (c->gate && c->gate->start) {
        int rc = c->gate->start(c->gate->ud, job);
        if (rc)
            return rc;
        c->gate_started = true;
    }
    return 0;
}

static void free_part_sets(weir__coord *c)
{
    for (uint32_t i = 0; i < c->n_part_sets; i++)
        weir__snapshot_set_destroy(c->part_sets[i]);
    weir_free(c->part_sets);
    c->part_sets = NULL;
    c->n_part_sets = 0;
}

static void coord_ended(void *ud, weir_job *job)
{
    weir__coord *c = ud;
    if (c->gate_started && c->gate->stop)
        c->gate->stop(c->gate->ud);
    c->gate_started = false;
    pthread_mutex_lock(&c->mu);
    c->running = false;
    c->ending = true;
    /* What still misses acknowledgements never gets them now. */
    for (pending *p = c->pend; p; p = p->next)
        if (p->state == P_COLLECTING && p->n_snaps < p->n_expected)
            fail_locked(c, p, WEIR_ECANCELED,
                        "the job ended before every subtask acknowledged it");
    pthread_cond_broadcast(&c->tick_cv);
    pthread_cond_broadcast(&c->work_cv);
    pthread_mutex_unlock(&c->mu);
    if (c->coord_started)
        pthread_join(c->coord_thread, NULL);
    if (c->writer_started)
        pthread_join(c->writer_thread, NULL);
    c->coord_started = c->writer_started = false;
    pthread_mutex_lock(&c->mu);
    if (c->stop_sp && !c->stop_sp_done) {
        c->stop_sp_done = true;
        c->stop_sp_code = WEIR_ECANCELED;
        snprintf(c->stop_sp_why, sizeof c->stop_sp_why,
                 "the job ended without a final checkpoint: %s",
                 weir_job_error(job)[0] ? weir_job_error(job)
                                        : "no savepoint was written");
    }
    /* The restored state is no longer needed. */
    weir__snapshot_set_destroy(c->rec.set);
    c->rec.set = NULL;
    free_part_sets(c);
    pthread_cond_broadcast(&c->done_cv);
    pthread_mutex_unlock(&c->mu);
}

static void coord_destroy(void *ud)
{
    weir__coord *c = ud;
    if (!c)
        return;
    while (c->pend) {
        pending *p = c->pend;
        c->pend = p->next;
        free_pending(p);
    }
    for (uint32_t i = 0; i < c->n_finals; i++)
        weir_free(c->finals[i].data);
    weir_free(c->finals);
    weir_free(c->retained);
    weir_free(c->stale);
    for (uint32_t i = 0; i < c->n_tables; i++) {
        for (uint32_t f = 0; f < c->tables[i].n_files; f++) {
            weir_free(c->tables[i].files[f].local);
            weir_free(c->tables[i].files[f].shared);
        }
        weir_free(c->tables[i].files);
    }
    weir_free(c->tables);
    weir__snapshot_set_destroy(c->rec.set);
    free_part_sets(c);
    weir__storage_destroy(c->storage);
    weir__dirlock_release(c->lock);
    weir__state_ops_free(c->ops, c->n_ops);
    weir__storage_destroy(c->stop_sp);
    weir_free(c->stop_sp_dir);
    weir_free(c->dir);
    weir_free(c->sp_dir);
    weir_free(c->restore_path);
    for (int i = 0; i < 5; i++)
        weir_free(c->s3_copies[i]);
    pthread_mutex_destroy(&c->mu);
    pthread_cond_destroy(&c->tick_cv);
    pthread_cond_destroy(&c->work_cv);
    pthread_cond_destroy(&c->done_cv);
    weir_free(c);
}

/* Checkpoint metrics, as weir_job_metrics names them. */
static void coord_metrics(void *ud, weir_metric_visit_fn fn, void *fn_ud)
{
    weir__coord *c = ud;
    pthread_mutex_lock(&c->mu);
    weir_checkpoint_stats st = c->stats;
    uint32_t active = c->n_active;
    pthread_mutex_unlock(&c->mu);
    fn(fn_ud, "checkpoint.last_id", (double)st.last_id);
    fn(fn_ud, "checkpoint.last_duration_ms", (double)st.last_duration_ms);
    fn(fn_ud, "checkpoint.last_sync_ms", (double)st.last_sync_ms);
    fn(fn_ud, "checkpoint.last_pause_us", (double)st.last_pause_us);
    fn(fn_ud, "checkpoint.last_size_bytes", (double)st.last_size_bytes);
    fn(fn_ud, "checkpoint.last_checkpointed_bytes",
       (double)st.last_checkpointed_bytes);
    fn(fn_ud, "checkpoint.last_inflight_bytes",
       (double)st.last_inflight_bytes);
    fn(fn_ud, "checkpoint.completed", (double)st.completed);
    fn(fn_ud, "checkpoint.failed", (double)st.failed);
    fn(fn_ud, "checkpoint.in_progress", (double)active);
    fn(fn_ud, "checkpoint.restored_id", (double)st.restored_id);
    fn(fn_ud, "checkpoint.restore_unclaimed_states", (double)st.restore_unclaimed_states);
}

/* Lists the checkpoint folders of earlier runs: complete ones (retained) and
 * stale ones. */
static int scan_existing(weir__coord *c)
{
    char **names;
    size_t n;
    int rc = c->storage->ops->list(c->storage, "", &names, &n);
    if (rc == WEIR_ENOTFOUND)
        return 0;
    if (rc)
        return rc;
    c->stale = weir_calloc(n ? n : 1, sizeof *c->stale);
    if (!c->stale) {
        weir__storage_free_names(names, n);
        return WEIR_ENOMEM;
    }
    for (size_t i = 0; i < n && !rc; i++) {
        uint64_t id;
        bool sp;
        if (!weir__ckpt_parse_name(names[i], &id, &sp) || sp)
            continue;
        char path[128];
        snprintf(path, sizeof path, "%s/_metadata", names[i]);
        uint8_t *data;
        size_t len;
        if (c->storage->ops->get(c->storage, path, &data, &len) == 0) {
            weir_free(data);
            if (c->n_retained == c->cap_retained) {
                uint32_t cap = c->cap_retained ? c->cap_retained * 2 : 8;
                uint64_t *r = weir_realloc(c->retained, cap * sizeof *r);
                if (!r) {
                    rc = WEIR_ENOMEM;
                    break;
                }
                c->retained = r;
                c->cap_retained = cap;
            }
            c->retained[c->n_retained++] =
                id; /* names are sorted, but not numerically */
        } else {
            c->stale[c->n_stale++] = id;
        }
    }
    weir__storage_free_names(names, n);
    for (uint32_t i = 1; i < c->n_retained;
         i++) /* insertion sort: few entries */
        for (uint32_t j = i; j > 0 && c->retained[j - 1] > c->retained[j];
             j--) {
            uint64_t t = c->retained[j];
            c->retained[j] = c->retained[j - 1];
            c->retained[j - 1] = t;
        }
    return rc;
}

/* ---- restoring: the snapshot set's source, timed ---- */

static void restore_called(weir__coord *c)
{
    atomic_store(&c->last_restore_ns, weir_monotonic_ns());
}

static int timed_op_state(void *ud, int node, const char *name,
                          uint32_t subtask, uint32_t par, weir_buf *out)
{
    weir__coord *c = ud;
    int rc = c->inner.op_state(c->inner.ud, node, name, subtask, par, out);
    restore_called(c);
    return rc;
}

static uint32_t timed_op_parallelism(void *ud, int node, const char *name)
{
    weir__coord *c = ud;
    return c->inner.op_parallelism
               ? c->inner.op_parallelism(c->inner.ud, node, name)
               : 0;
}

static int timed_kg_state(void *ud, int node, const char *name, uint32_t kg,
                          weir_buf *state, weir_buf *timers)
{
    weir__coord *c = ud;
    int rc = c->inner.kg_state(c->inner.ud, node, name, kg, state, timers);
    restore_called(c);
    return rc;
}

static int timed_split(void *ud, int node, const char *id,
                       weir__restored_split *out)
{
    weir__coord *c = ud;
    int rc = c->inner.split(c->inner.ud, node, id, out);
    restore_called(c);
    return rc;
}

static int timed_open_backend(void *ud, int node, const char *name,
                              const weir__backend_config *cfg,
                              weir__backend **out)
{
    weir__coord *c = ud;
    int rc = c->inner.open_backend(c->inner.ud, node, name, cfg, out);
    restore_called(c);
    return rc;
}

static int timed_inflight(void *ud, int task, uint32_t subtask,
                          const uint8_t **data, size_t *len)
{
    weir__coord *c = ud;
    int rc = c->inner.inflight(c->inner.ud, task, subtask, data, len);
    restore_called(c);
    return rc;
}

static uint32_t timed_task_parallelism(void *ud, int task)
{
    weir__coord *c = ud;
    return c->inner.task_parallelism
               ? c->inner.task_parallelism(c->inner.ud, task)
               : 0;
}

static int timed_inflight_unplaced(void *ud, const int *node_task,
                                   uint32_t n_nodes, int *node)
{
    weir__coord *c = ud;
    return c->inner.inflight_unplaced(c->inner.ud, node_task, n_nodes, node);
}

/*
 * Keyed state a restored operator subtask did not claim (restore source's
 * unclaimed): one line naming the operator by its id, the subtask, the
 * state and how much of it there is, and a count in the stats. Under the
 * mutex: subtasks restore on their own threads, and the lines stay whole.
 */
static void on_unclaimed(void *ud, int node, uint32_t job_subtask, const char *state,
                         uint32_t key_groups, uint64_t entries)
{
    weir__coord *c = ud;
    weir__state_op *ops = NULL;
    uint32_t n_ops = 0;
    const char *uid = weir__job_node_name(c->job, node);
    if (weir__job_state_ops(c->job, &ops, &n_ops) == 0)
        for (uint32_t i = 0; i < n_ops; i++)
            if ((int)ops[i].node == node)
                uid = ops[i].uid;
    pthread_mutex_lock(&c->mu);
    c->stats.restore_unclaimed_states++;
    weir__ckpt_log(&c->cfg,
                   "%s (subtask %u) of %s: keyed state '%s' (%" PRIu64 " entries in %u key groups) is "
                   "not registered by the operator: it is kept, unread, in the job's checkpoints",
                   uid ? uid : "?", job_subtask, c->rec.name, state, entries, key_groups);
    pthread_mutex_unlock(&c->mu);
    weir__state_ops_free(ops, n_ops);
}

/* cfg's object storage options, copied: savepoints open storage later. */
static int copy_s3_options(weir__coord *c)
{
    const char **f[5] = {&c->cfg.s3_endpoint, &c->cfg.s3_region,
                         &c->cfg.s3_access_key, &c->cfg.s3_secret_key,
                         &c->cfg.s3_path_style};
    for (int i = 0; i < 5; i++) {
        if (!*f[i])
            continue;
        if (!(c->s3_copies[i] = weir_strdup(*f[i])))
            return WEIR_ENOMEM;
        *f[i] = c->s3_copies[i];
    }
    return 0;
}

/* ---- the public API ---- */

/* Why a process reads another's part of the checkpoint to restore. */
typedef enum part_why {
    PART_PROCESSES, /* restoring over another number of processes */
    PART_MOVED,     /* the parallelism in each process changed */
    PART_LEFT_OUT,  /* to check an operator that left the job (left_out) */
} part_why;

static void quiet_log(void *ud, const char *line)
{
    (void)ud;
    (void)line;
}

/*
 * Loads process j's part of the checkpoint to restore into c->part_sets[j]
 * (why: for the message when it is not there). A part read only to check
 * what it holds of an operator that left the job (PART_LEFT_OUT, whose id
 * left_out is) logs nothing: this process does not restore it.
 */
static int load_part(weir__coord *c, const weir__ckpt_gate *g, uint32_t j,
                     part_why why, const char *left_out, weir__recovered *rec,
                     weir_error *err)
{
    weir_checkpoint_config cfg = c->cfg;
    cfg.restore = WEIR_RESTORE_PATH;
    cfg.restore_path = g->restore_parts[j];
    if (why == PART_LEFT_OUT)
        cfg.log = quiet_log;
    uint64_t next = 0;
    int rc = weir__recovery_find(c->job, &cfg, c->storage, rec, &next, err);
    size_t dl = strlen(g->dir);
    if (rc == WEIR_ENOTFOUND && !strncmp(g->restore_parts[j], g->dir, dl) &&
        g->restore_parts[j][dl] == '/')
        return weir_error_set(
            err, rc,
            "%s: this process's own part of the checkpoint to restore is "
            "not there: the control topic names it as the job's last "
            "complete checkpoint, and every process restores its part of "
            "it (was it deleted, or is this process running where its "
            "part is not?)",
            g->restore_parts[j]);
    if (rc == WEIR_ENOTFOUND && why == PART_LEFT_OUT)
        return weir_error_set(
            err, rc,
            "%s: process %u's part of the checkpoint to restore is not "
            "there: %s is not in the job and this process's part holds no "
            "state of it, but it may hold state in another process's part, "
            "and every process must decide alike, so each reads every part: "
            "state.checkpoints.dir must be shared by all of them (a folder "
            "every machine sees, or object storage), or run with "
            "--allow-non-restored-state to drop its state wherever it is",
            g->restore_parts[j], j, left_out);
    if (rc == WEIR_ENOTFOUND)
        return weir_error_set(
            err, rc,
            "%s: process %u's part of the checkpoint to restore is not "
            "there: %s reads every process's part, so "
            "state.checkpoints.dir must be shared by all of them (a folder "
            "every machine sees, or object storage)",
            g->restore_parts[j], j,
            why == PART_MOVED
                ? "a change of the parallelism in each process (splits and "
                  "state move between the processes)"
                : "restoring over another number of processes");
    if (rc)
        return rc;
    if (next > c->next_id)
        c->next_id = next;
    c->part_sets[j] = rec->set;
    return 0;
}

/*
 * An operator that left the job (left_out) whose state this process's own
 * part does not hold may hold state in another process's part: there it is
 * refused (docs/checkpoints.md), and every process must decide alike, so
 * each other part is read to check it (restore compatibility refuses it
 * with the message its own process gives). What is read is not restored.
 */
static int check_left_out(weir__coord *c, const weir__ckpt_gate *g,
                          uint32_t own, const char *left_out, weir_error *err)
{
    weir__recovered rec;
    for (uint32_t j = 0; j < g->n_parts; j++) {
        if (!g->restore_parts[j] || j == own)
            continue;
        int rc = load_part(c, g, j, PART_LEFT_OUT, left_out, &rec, err);
        if (rc)
            return rc;
        weir__snapshot_set_destroy(c->part_sets[j]);
        c->part_sets[j] = NULL;
    }
    weir__ckpt_log(&c->cfg,
                   "%s holds no state in the other processes' parts of the "
                   "checkpoint either: it is left out",
                   left_out);
    return 0;
}

/*
 * A job run by several processes restores the parts of every process that
 * took the checkpoint (gate->restore_parts): the first one loaded is
 * c->rec, the others go to part_sets, in process order. With need_others
 * (the number of processes did not change) this process's own part is
 * read first, and the others only when need_others asks for them, or to
 * check an operator that left the job (check_left_out).
 */
static int recover_parts(weir__coord *c, const weir__ckpt_gate *g,
                         weir_error *err)
{
    c->part_sets = weir_calloc(g->n_parts, sizeof *c->part_sets);
    if (!c->part_sets)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    c->n_part_sets = g->n_parts;
    /* Every loaded set stays in part_sets until all are loaded (a failure
     * midway leaves them to free_part_sets, once each); the main one moves
     * to c->rec at the end. */
    uint32_t main = UINT32_MAX, own = UINT32_MAX;
    weir__recovered main_rec = {0}, rec;
    for (uint32_t j = 0; j < g->n_parts; j++)
        if (g->restore_parts[j] && g->restore &&
            !strcmp(g->restore, g->restore_parts[j]))
            own = j;
    bool others = true, moved = false;
    if (g->need_others && own != UINT32_MAX) {
        int rc = load_part(c, g, own, PART_PROCESSES, NULL, &rec, err);
        if (rc)
            return rc;
        main = own;
        main_rec = rec;
        weir__restore_source src = weir__snapshot_set_source(rec.set);
        others = moved = g->need_others(g->ud, c->job, &src);
        /* (when every part is read, each one's own check decides) */
        if (!others && main_rec.left_out[0] &&
            !c->cfg.allow_non_restored_state &&
            (rc = check_left_out(c, g, own, main_rec.left_out, err)))
            return rc;
    }
    for (uint32_t j = 0; others && j < g->n_parts; j++) {
        if (!g->restore_parts[j] || j == main)
            continue;
        int rc = load_part(c, g, j, moved ? PART_MOVED : PART_PROCESSES, NULL,
                           &rec, err);
        if (rc)
            return rc;
        /* the name users see: this process's own part when it has one */
        if (main == UINT32_MAX || j == own) {
            main = j;
            main_rec = rec;
        }
    }
    if (main != UINT32_MAX) {
        c->rec = main_rec;
        c->part_sets[main] = NULL; /* c->rec owns it */
    }
    c->rec_part = main;
    return 0;
}

/* This process's restore source over the parts (gate->combine). */
static int combine_parts(weir__coord *c, const weir__ckpt_gate *g,
                         weir_error *err)
{
    weir__restore_source *src =
        weir_calloc(g->n_parts ? g->n_parts : 1, sizeof *src);
    if (!src)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    for (uint32_t j = 0; j < g->n_parts; j++) {
        weir__snapshot_set *set =
            j == c->rec_part ? c->rec.set : c->part_sets[j];
        if (set)
            src[j] = weir__snapshot_set_source(set);
    }
    int rc = g->combine(g->ud, c->job, src, g->n_parts, &c->inner, err);
    weir_free(src);
    return rc;
}

int weir_job_enable_checkpoints(weir_job *job,
                                const weir_checkpoint_config *cfg_in,
                                weir_error *err)
{
    if (!job)
        return weir_error_set(err, WEIR_EINVAL,
                              "weir_job_enable_checkpoints: no job");
    if (weir__job_companion_ud(job))
        return weir_error_set(err, WEIR_ESTATE,
                              "checkpoints are enabled already for this job");
    const weir_job_config *jc = weir__job_config(job);
    weir_checkpoint_config cfg;
    if (cfg_in) {
        cfg = *cfg_in;
    } else {
        weir_checkpoint_config_init(&cfg);
        cfg.dir = jc->checkpoint_dir;
        cfg.interval_ms = jc->checkpoint_interval_ms;
    }
    const weir__ckpt_gate *gate = weir__job_ckpt_gate(job);
    if (gate) {
        /* Several processes: what they do not do together yet is refused
         * (docs/cluster.md). */
        const char *no = cfg.unaligned     ? "execution.checkpointing.unaligned"
                         : cfg.incremental ? "state.backend.incremental"
                                           : NULL;
        if (no)
            return weir_error_set(err, WEIR_EUNSUPPORTED,
                                  "%s: a job run by several processes "
                                  "(weir.cluster.bootstrap-servers) does not "
                                  "take it yet",
                                  no);
        /* The control topic decides what is restored (a restart of this
         * process included): its last checkpoint complete everywhere. */
        cfg.dir = gate->dir;
        cfg.restore = gate->restore ? WEIR_RESTORE_PATH : WEIR_RESTORE_FRESH;
        cfg.restore_path = gate->restore;
        if (!gate->leader)
            cfg.interval_ms = 0; /* the leader triggers */
    }
    if (!cfg.dir || !*cfg.dir)
        return weir_error_set(
            err, WEIR_EINVAL,
            "checkpoints need a directory (state.checkpoints.dir)");
    if (cfg.interval_ms < 0 || cfg.timeout_ms < 0 || cfg.min_pause_ms < 0)
        return weir_error_set(
            err, WEIR_EINVAL,
            "checkpoint interval, timeout and min pause must not be negative");
    if (cfg.unaligned && cfg.max_concurrent > 1)
        return weir_error_set(
            err, WEIR_EINVAL,
            "unaligned checkpoints need "
            "execution.checkpointing.max-concurrent-checkpoints = 1 (got %u)",
            cfg.max_concurrent);
    if (cfg.restore == WEIR_RESTORE_PATH &&
        (!cfg.restore_path || !*cfg.restore_path))
        return weir_error_set(err, WEIR_EINVAL,
                              "restoring from a path needs the path");
    weir__coord *c = weir_calloc(1, sizeof *c);
    if (!c)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    c->job = job;
    c->cfg = cfg;
    /* tests make the stall short to see that a slow final checkpoint is not given up */
    const char *stall = getenv("WEIR_TEST_FINAL_STALL_MS");
    c->final_stall_ms = stall && atoll(stall) > 0 ? atoll(stall) : FINAL_STALL_MS;
    c->clock = jc->clock.now_ms ? jc->clock : weir_clock_system();
    c->max_par = jc->max_parallelism;
    c->last_end_ms = INT64_MIN;
    c->final_retry_ms = INT64_MIN;
    atomic_init(&c->savepoint_requested, 0);
    c->enable_ns = weir_monotonic_ns();
    atomic_init(&c->last_restore_ns, 0);
    c->dir = weir_strdup(cfg.dir);
    c->sp_dir = cfg.savepoint_dir ? weir_strdup(cfg.savepoint_dir) : NULL;
    c->restore_path = cfg.restore_path ? weir_strdup(cfg.restore_path) : NULL;
    c->cfg.dir = c->dir;
    c->cfg.savepoint_dir = c->sp_dir;
    c->cfg.restore_path = c->restore_path;
    int rc = 0;
    if (!c->dir || (cfg.savepoint_dir && !c->sp_dir) ||
        (cfg.restore_path && !c->restore_path)) {
        weir_free(c->dir);
        weir_free(c->sp_dir);
        weir_free(c->restore_path);
        weir_free(c);
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    }
    if (pthread_mutex_init(&c->mu, NULL) || cond_init_mono(&c->tick_cv) ||
        cond_init_mono(&c->work_cv) || cond_init_mono(&c->done_cv)) {
        weir_free(c->dir);
        weir_free(c->sp_dir);
        weir_free(c->restore_path);
        weir_free(c);
        return weir_error_set(
            err, WEIR_ENOMEM,
            "cannot create the checkpoint coordinator's locks");
    }
    weir__job_companion comp = {.started = coord_started,
                                .ended = coord_ended,
                                .destroy = coord_destroy,
                                .metrics = coord_metrics,
                                .ud = c};
    char why[160];
    bool remote = weir__storage_is_remote(c->dir);
    if ((rc = copy_s3_options(c))) {
        coord_destroy(c);
        return weir_error_set(err, rc, "out of memory");
    }
    if (!remote &&
        (rc = weir__io_check_dir_writable(c->dir, 0755, why, sizeof why))) {
        weir_error_set(err, rc,
                       "%s: cannot write checkpoints to this folder: %s",
                       c->dir, why);
        coord_destroy(c);
        return rc;
    }
    if ((rc = weir__storage_open(c->dir, &c->cfg, &c->storage, err))) {
        if (!remote)
            weir_error_set(err, rc,
                           "%s: cannot use as checkpoint directory: %s",
                           c->dir, weir_strerror(rc));
        coord_destroy(c);
        return rc;
    }
    if (remote) {
        /* Reach the bucket now: wrong keys or endpoint fail the start. */
        char **names = NULL;
        size_t n_names = 0;
        rc = c->storage->ops->list(c->storage, "", &names, &n_names);
        weir__storage_free_names(names, n_names);
        if (rc) {
            weir_error_set(err, rc == WEIR_EINVAL ? rc : WEIR_EIO,
                           "%s: cannot use as checkpoint directory: %s (the "
                           "line above says what the server answered)",
                           c->dir, weir_strerror(rc));
            coord_destroy(c);
            return rc == WEIR_EINVAL ? rc : WEIR_EIO;
        }
    }
    if ((rc = weir__job_state_ops(job, &c->ops, &c->n_ops))) {
        coord_destroy(c);
        return weir_error_set(err, rc, "out of memory");
    }
    /*
     * Before recovery reads anything: another process may be writing.
     * Object storage has no lock (docs/checkpoints.md).
     */
    if (!remote && (rc = weir__dirlock_acquire(c->dir, "checkpoint folder",
                                               &c->lock, err))) {
        coord_destroy(c);
        return rc;
    }
    if ((rc = gate && gate->n_parts
                  ? recover_parts(c, gate, err)
                  : weir__recovery_find(job, &c->cfg, c->storage, &c->rec,
                                        &c->next_id, err)) ||
        (rc = scan_existing(c))) {
        if (rc == WEIR_ENOMEM)
            weir_error_set(err, rc, "out of memory");
        coord_destroy(c);
        return rc;
    }
    /* A restored checkpoint that ended the job everywhere is this process's
     * alone to finish (its sinks commit what was left pending): it stays,
     * whatever this run checkpoints, for the next start to restore. */
    if (gate && gate->job_done)
        c->keep_id = gate->restored_id;
    if (gate && !gate->job_done) {
        c->gate = gate;
        /* The leader's ids go on above every one it triggered before; the
         * others take the leader's (one triggered before they started
         * too). */
        if (gate->leader && c->next_id <= gate->first_id)
            c->next_id = gate->first_id + 1;
    }
    /*
     * Shared files outlive checkpoint folders: what a killed run's uploads
     * left half-written there must go now (nothing uploads yet).
     */
    if (c->storage->ops->sweep)
        c->storage->ops->sweep(c->storage, "shared");
    c->stats.restored_id = c->rec.set ? c->rec.id : 0;
    c->stats.restore_load_ms =
        c->rec.set ? (weir_monotonic_ns() - c->enable_ns) / 1000000 : 0;
    /* Retention counts the restored checkpoint, even when it lives elsewhere
     * (--from). */
    weir__ckpt_hooks hooks = {.ack = on_ack,
                              .decline = on_decline,
                              .ud = c,
                              .final_checkpoint = true,
                              .final_ready = on_final_ready,
                              .first_id = c->next_id,
                              .sync_snapshots = c->cfg.sync_snapshots};
    if (c->cfg.unaligned) {
        hooks.unaligned_ok = on_unaligned_ok;
        hooks.aligned_timeout_ms = c->cfg.aligned_timeout_ms;
    }
    if (c->cfg.incremental) {
        hooks.native_ok = on_native_ok;
        hooks.native_upload = on_native_upload;
    }
    /* The first id of this run: no other run can have used it. */
    c->run_tag = c->next_id;
    if ((rc = weir__job_set_ckpt_hooks(job, &hooks))) {
        weir_error_set(err, rc,
                       "checkpoints must be enabled before the job starts");
        coord_destroy(c);
        return rc;
    }
    if (c->rec.set && gate && gate->n_parts) {
        if ((rc = combine_parts(c, gate, err))) {
            coord_destroy(c);
            return rc;
        }
    } else if (c->rec.set) {
        c->inner = weir__snapshot_set_source(c->rec.set);
    }
    if (c->rec.set) {
        weir__restore_source rs = {.op_state = timed_op_state,
                                   .op_parallelism = timed_op_parallelism,
                                   .kg_state = timed_kg_state,
                                   .split = timed_split,
                                   .open_backend = c->inner.open_backend
                                                       ? timed_open_backend
                                                       : NULL,
                                   .inflight = c->inner.inflight
                                                   ? timed_inflight
                                                   : NULL,
                                   .task_parallelism = timed_task_parallelism,
                                   .inflight_unplaced =
                                       c->inner.inflight_unplaced
                                           ? timed_inflight_unplaced
                                           : NULL,
                                   .unclaimed = on_unclaimed,
                                   .ud = c};
        if ((rc = weir__job_set_restore(job, &rs))) {
            weir_error_set(err, rc,
                           "checkpoints must be enabled before the job starts");
            coord_destroy(c);
            return rc;
        }
    }
    if ((rc = weir__job_set_companion(job, &comp))) {
        weir_error_set(err, rc,
                       "checkpoints must be enabled before the job starts");
        coord_destroy(c);
        return rc;
    }
    return 0;
}

const char *weir_job_restored_from(const weir_job *job)
{
    weir__coord *c = job ? coord_of(job) : NULL;
    return c && c->rec.name[0] && c->stats.restored_id ? c->rec.name : "";
}

int weir_job_trigger_checkpoint(weir_job *job, uint64_t *id)
{
    weir__coord *c = job ? coord_of(job) : NULL;
    if (!c)
        return WEIR_ENOTFOUND;
    if (c->gate)
        return WEIR_EUNSUPPORTED; /* the leader triggers, at the interval */
    pthread_mutex_lock(&c->mu);
    if (!c->running || c->ending || c->final_id) {
        pthread_mutex_unlock(&c->mu);
        return WEIR_ESTATE;
    }
    pending *p = register_locked(c, false, NULL, NULL);
    if (!p) {
        pthread_mutex_unlock(&c->mu);
        return WEIR_ENOMEM;
    }
    uint64_t pid = p->id;
    trigger_unlocked(c, pid);
    pthread_mutex_unlock(&c->mu);
    if (id)
        *id = pid;
    return 0;
}

int weir_job_await_checkpoint(weir_job *job, uint64_t id, int64_t timeout_ms,
                              weir_error *err)
{
    weir__coord *c = job ? coord_of(job) : NULL;
    if (!c)
        return weir_error_set(err, WEIR_ENOTFOUND,
                              "the job has no checkpoints");
    struct timespec dl = deadline_in_ms(timeout_ms < 0 ? 0 : timeout_ms);
    int rc = 0;
    pthread_mutex_lock(&c->mu);
    for (;;) {
        const outcome *o = find_outcome(c, id);
        if (o) {
            rc = o->code
                     ? weir_error_set(err, o->code,
                                      "checkpoint %" PRIu64 ": %s", id, o->why)
                     : 0;
            break;
        }
        if (id >= c->next_id ||
            (!find_pending(c, id) && (c->ending || !c->running))) {
            rc = weir_error_set(
                err, WEIR_ENOTFOUND,
                "checkpoint %" PRIu64 " is not known (or too old)", id);
            break;
        }
        if (timeout_ms < 0) {
            pthread_cond_wait(&c->done_cv, &c->mu);
        } else if (pthread_cond_timedwait(&c->done_cv, &c->mu, &dl) != 0 &&
                   !find_outcome(c, id)) {
            rc = weir_error_set(err, WEIR_ETIMEDOUT,
                                "checkpoint %" PRIu64
                                " did not finish in %" PRId64 " ms",
                                id, timeout_ms);
            break;
        }
    }
    pthread_mutex_unlock(&c->mu);
    return rc;
}

/*
 * The coordinator of job and the storage of its savepoint folder (dir, or
 * state.savepoints.dir when dir is NULL; *dir is set to the one used).
 */
static int savepoint_target(weir_job *job, const char **dir, weir__coord **cp,
                            weir__storage **sp, weir_error *err)
{
    weir__coord *c = job ? coord_of(job) : NULL;
    *cp = NULL;
    *sp = NULL;
    if (!c)
        return weir_error_set(
            err, WEIR_ENOTFOUND,
            "the job has no checkpoints: enable them to take savepoints");
    if (c->gate && *dir && (!c->sp_dir || strcmp(*dir, c->sp_dir)))
        return weir_error_set(err, WEIR_EUNSUPPORTED,
                              "%s: a job run by several processes writes its "
                              "savepoints into every process's "
                              "state.savepoints.dir, not into another folder",
                              *dir);
    if (!*dir)
        *dir = c->sp_dir;
    if (!*dir || !**dir)
        return weir_error_set(err, WEIR_EINVAL,
                              "no savepoint directory (state.savepoints.dir)");
    weir_error e = {0};
    int rc = weir__storage_open(*dir, &c->cfg, sp, &e);
    if (rc)
        return weir_error_set(err, rc,
                              "%s: cannot use as savepoint directory: %s",
                              *dir, e.message);
    *cp = c;
    return 0;
}

/*
 * A savepoint of a job run by several processes: the request goes to the
 * leader through the control topic, and the answer comes back when every
 * process wrote its part and the leader sealed it (or when it failed).
 */
static int gate_savepoint(weir__coord *c, bool stop, char *path,
                          size_t path_cap, weir_error *err)
{
    const weir__ckpt_gate *g = c->gate;
    pthread_mutex_lock(&c->mu);
    if (!c->running || c->ending || c->sp_nonce) {
        bool busy = c->sp_nonce != 0;
        pthread_mutex_unlock(&c->mu);
        return weir_error_set(err, WEIR_ESTATE,
                              busy ? "a savepoint asked for through this "
                                     "process is being taken already"
                                   : "the job is not running: no savepoint");
    }
    c->sp_answered = false;
    /* the request's number: the answer names it */
    uint64_t nonce = ((uint64_t)weir_monotonic_ns() << 16) ^
                     (uint64_t)getpid() ^ ((uint64_t)(uintptr_t)c << 40);
    c->sp_nonce = nonce ? nonce : 1;
    nonce = c->sp_nonce;
    pthread_mutex_unlock(&c->mu);
    int rc = g->sp_request ? g->sp_request(g->ud, nonce, stop) : WEIR_EIO;
    pthread_mutex_lock(&c->mu);
    if (rc) {
        c->sp_nonce = 0;
        pthread_mutex_unlock(&c->mu);
        return weir_error_set(err, rc,
                              "the savepoint request did not reach the "
                              "job's control topic");
    }
    /* The answer, or the end of this process's part of the job (a restart
     * of the job, a failure: then nobody answers). */
    while (!c->sp_answered && c->running && !c->ending)
        pthread_cond_wait(&c->done_cv, &c->mu);
    if (c->sp_answered) {
        rc = c->sp_code;
        if (rc)
            weir_error_set(err, rc, "%s", c->sp_answer);
        else if (path)
            snprintf(path, path_cap, "%s", c->sp_answer);
    } else {
        rc = weir_error_set(err, WEIR_ESTATE,
                            "the job ended before the savepoint was "
                            "complete: %s",
                            weir_job_error(c->job)[0] ? weir_job_error(c->job)
                                                      : "no savepoint");
    }
    c->sp_nonce = 0;
    c->sp_answered = false;
    pthread_mutex_unlock(&c->mu);
    return rc;
}

void weir__ckpt_global_savepoint(weir_job *job, uint64_t id, uint64_t nonce,
                                 int code, const char *why)
{
    weir__coord *c = coord_of(job);
    if (!c)
        return;
    pthread_mutex_lock(&c->mu);
    if (c->sp_hold && (c->sp_hold == id || !id))
        c->sp_hold = 0; /* the final checkpoint may come now */
    if (code && id)
        weir__ckpt_log(&c->cfg, "savepoint %" PRIu64 " of the job failed: %s",
                       id, why ? why : "");
    else if (!code)
        weir__ckpt_log(&c->cfg,
                       "savepoint %" PRIu64 " of the job complete: %s/"
                       "savepoint-%" PRIu64,
                       id, c->sp_dir ? c->sp_dir : "", id);
    if (nonce && c->sp_nonce == nonce) {
        c->sp_answered = true;
        c->sp_code = code;
        if (code)
            snprintf(c->sp_answer, sizeof c->sp_answer, "%s",
                     why ? why : "failed");
        else
            snprintf(c->sp_answer, sizeof c->sp_answer,
                     "%s/savepoint-%" PRIu64, c->sp_dir ? c->sp_dir : "", id);
        pthread_cond_broadcast(&c->done_cv);
    }
    pthread_mutex_unlock(&c->mu);
}

int weir__ckpt_savepoint_seal(weir_job *job, uint64_t id, const char *text)
{
    weir__coord *c = coord_of(job);
    if (!c || !c->sp_dir)
        return WEIR_EINVAL;
    weir__storage *sp = NULL;
    weir_error e = {0};
    int rc = weir__storage_open(c->sp_dir, &c->cfg, &sp, &e);
    if (rc)
        return rc;
    char name[96];
    weir__ckpt_name(id, true, name, sizeof name);
    strcat(name, "/_cluster");
    rc = sp->ops->put(sp, name, text, strlen(text));
    weir__storage_destroy(sp);
    return rc;
}

int weir_job_savepoint(weir_job *job, const char *dir, char *path,
                       size_t path_cap, weir_error *err)
{
    weir__coord *c = NULL;
    weir__storage *sp = NULL;
    int rc = savepoint_target(job, &dir, &c, &sp, err);
    if (rc)
        return rc;
    if (c->gate) {
        weir__storage_destroy(sp);
        return gate_savepoint(c, false, path, path_cap, err);
    }
    char *dcopy = weir_strdup(dir);
    pthread_mutex_lock(&c->mu);
    pending *p = NULL;
    bool running = c->running && !c->ending;
    bool at_end = c->n_final_ready >= c->n_subtasks || c->final_id;
    if (dcopy && running && !at_end)
        p = register_locked(c, true, sp, dcopy);
    if (!p) {
        pthread_mutex_unlock(&c->mu);
        weir__storage_destroy(sp);
        weir_free(dcopy);
        if (running && at_end) /* (its final checkpoint commits the output) */
            return weir_error_set(err, WEIR_ESTATE, "the job has read all of its input and is "
                                                    "ending: no savepoint");
        return weir_error_set(err, running ? WEIR_ENOMEM : WEIR_ESTATE,
                              running ? "out of memory"
                                      : "the job is not running: no savepoint");
    }
    uint64_t id = p->id;
    trigger_unlocked(c, id);
    pthread_mutex_unlock(&c->mu);
    rc = weir_job_await_checkpoint(job, id, -1, err);
    if (!rc && path) {
        pthread_mutex_lock(&c->mu);
        const outcome *o = find_outcome(c, id);
        snprintf(path, path_cap, "%s", o ? o->path : "");
        pthread_mutex_unlock(&c->mu);
    }
    return rc;
}

int weir_job_stop_with_savepoint(weir_job *job, const char *dir, char *path,
                                 size_t path_cap, weir_error *err)
{
    weir__coord *c = NULL;
    weir__storage *sp = NULL;
    int rc = savepoint_target(job, &dir, &c, &sp, err);
    if (rc)
        return rc;
    if (c->gate) {
        /* Every process stops right after the savepoint's barrier; its
         * final checkpoint commits the output up to it. */
        weir__storage_destroy(sp);
        return gate_savepoint(c, true, path, path_cap, err);
    }
    pthread_mutex_lock(&c->mu);
    if (!c->running || c->ending || c->stop_sp || c->stop_sp_done) {
        pthread_mutex_unlock(&c->mu);
        weir__storage_destroy(sp);
        return weir_error_set(
            err, WEIR_ESTATE,
            "the job is not running (or is stopping already)");
    }
    c->stop_sp = sp;
    c->stop_sp_dir = weir_strdup(dir);
    pthread_mutex_unlock(&c->mu);
    weir__job_stop_for_savepoint(job);
    weir_job_stop(job);
    pthread_mutex_lock(&c->mu);
    while (!c->stop_sp_done)
        pthread_cond_wait(&c->done_cv, &c->mu);
    rc = c->stop_sp_code;
    if (rc)
        weir_error_set(err, rc, "%s", c->stop_sp_why);
    else if (path)
        snprintf(path, path_cap, "%s", c->stop_sp_path);
    pthread_mutex_unlock(&c->mu);
    return rc;
}

void weir_job_request_savepoint(weir_job *job)
{
    weir__coord *c = job ? coord_of(job) : NULL;
    if (c)
        atomic_store(&c->savepoint_requested, 1);
}

int weir_job_checkpoint_stats(weir_job *job, weir_checkpoint_stats *out)
{
    weir__coord *c = job ? coord_of(job) : NULL;
    if (!c || !out)
        return WEIR_ENOTFOUND;
    pthread_mutex_lock(&c->mu);
    *out = c->stats;
    out->in_progress = c->n_active;
    int64_t last = atomic_load(&c->last_restore_ns);
    out->restore_done_ms = last ? (last - c->enable_ns) / 1000000 : 0;
    pthread_mutex_unlock(&c->mu);
    return 0;
}
