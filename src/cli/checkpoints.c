/*
 * cli/checkpoints.c - `weir checkpoints DIR` lists the checkpoints in a
 * folder; `weir inspect PATH` shows what one checkpoint or savepoint holds;
 * `weir savepoint PID` asks a running job for a savepoint; and the
 * checkpoint side of `weir run` (options, --fresh, --from, signals).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "checkpoint/catalog.h"
#include "cli/cli.h"
#include "runtime/checkpoint.h"
#include "util/registry.h"
#include "weir/checkpoint.h"
#include "weir/planner.h"

static const char *status_name(weir__ckpt_status s)
{
    switch (s) {
    case WEIR_CKPT_COMPLETE:
        return "complete";
    case WEIR_CKPT_INCOMPLETE:
        return "incomplete";
    case WEIR_CKPT_CORRUPT:
        return "corrupt";
    }
    return "?";
}

static void format_time(int64_t ms, char *buf, size_t cap)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, cap, "%Y-%m-%d %H:%M:%S", &tm);
}

int weir_cli_checkpoints(int argc, char **argv)
{
    if (argc != 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        printf(
            "usage: weir checkpoints DIR\n\n"
            "Lists the checkpoints and savepoints in DIR with id, time (UTC),\n"
            "size and status; a corrupt or incomplete one says why.\n");
        return argc == 2 ? WEIR_EXIT_OK : WEIR_EXIT_USAGE;
    }
    weir__storage *s;
    struct stat st;
    bool remote = weir__storage_is_remote(argv[1]);
    if (!remote && (stat(argv[1], &st) != 0 || !S_ISDIR(st.st_mode))) {
        fprintf(stderr, "weir: %s: no such folder\n", argv[1]);
        return WEIR_EXIT_IO;
    }
    /* s3://: credentials and endpoint from the AWS_* environment */
    weir_error oerr = {0};
    int rc = weir__storage_open(argv[1], NULL, &s, &oerr);
    if (rc) {
        fprintf(stderr, "weir: %s\n", oerr.message);
        return WEIR_EXIT_IO;
    }
    weir__ckpt_info *infos;
    size_t n;
    rc = weir__ckpt_list(s, &infos, &n);
    if (rc) {
        fprintf(stderr, "weir: %s: %s\n", argv[1], weir_strerror(rc));
        weir__storage_destroy(s);
        return WEIR_EXIT_IO;
    }
    printf("%-18s %8s  %-19s  %12s  %s\n", "NAME", "ID", "TIME (UTC)", "SIZE",
           "STATUS");
    for (size_t i = 0; i < n; i++) {
        char when[32] = "-";
        if (infos[i].status == WEIR_CKPT_COMPLETE)
            format_time(infos[i].time_ms, when, sizeof when);
        printf("%-18s %8" PRIu64 "  %-19s  %12" PRIu64 "  %s%s%s\n",
               infos[i].name, infos[i].id, when, infos[i].size_bytes,
               status_name(infos[i].status), infos[i].reason[0] ? ": " : "",
               infos[i].reason);
    }
    if (n == 0)
        printf("(no checkpoints)\n");
    weir_free(infos);
    weir__storage_destroy(s);
    return WEIR_EXIT_OK;
}

/*
 * An operator's keyed state held as a native RocksDB checkpoint
 * (state.backend.incremental): its files, those in shared/ and those inline.
 */
static void print_native(const weir__snap_view *v, uint32_t node)
{
    for (uint32_t i = 0; i < v->n_native; i++) {
        const weir__native_part *np = &v->native[i];
        if (np->node != node)
            continue;
        uint32_t n_shared = 0;
        uint64_t shared = 0, inline_bytes = 0;
        for (uint32_t f = 0; f < np->n_files; f++) {
            if (np->files[f].shared) {
                n_shared++;
                shared += np->files[f].size;
            } else {
                inline_bytes += np->files[f].len;
            }
        }
        printf("      native RocksDB checkpoint, key groups [%u, %u]: %u "
               "files, %u in shared/ (%" PRIu64 " bytes), %" PRIu64
               " bytes inline\n",
               np->kg_lo, np->kg_hi > np->kg_lo ? np->kg_hi - 1 : np->kg_lo,
               np->n_files, n_shared, shared,
               inline_bytes);
        for (uint32_t f = 0; f < np->n_files; f++)
            if (np->files[f].shared)
                printf("        %s -> %s, %" PRIu64 " bytes\n",
                       np->files[f].name, np->files[f].shared,
                       np->files[f].size);
    }
}

int weir_cli_inspect(int argc, char **argv)
{
    if (argc != 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        printf("usage: weir inspect PATH\n\n"
               "PATH is a checkpoint or savepoint folder (e.g. ckpts/chk-12). "
               "Prints its\n"
               "operators, subtasks, key groups, state sizes and source "
               "positions.\n");
        return argc == 2 ? WEIR_EXIT_OK : WEIR_EXIT_USAGE;
    }
    struct stat pst;
    if (stat(argv[1], &pst) != 0) {
        fprintf(stderr, "weir inspect: %s: %s\n", argv[1],
                errno == ENOENT ? "no such checkpoint or savepoint: the path is missing" : strerror(errno));
        return WEIR_EXIT_IO;
    }
    if (!S_ISDIR(pst.st_mode)) {
        fprintf(stderr, "weir inspect: %s: not a checkpoint or savepoint folder\n", argv[1]);
        return WEIR_EXIT_IO;
    }
    char dir[4096], name[4096];
    snprintf(dir, sizeof dir, "%s", argv[1]);
    size_t l = strlen(dir);
    while (l > 1 && dir[l - 1] == '/')
        dir[--l] = '\0';
    char *slash = strrchr(dir, '/');
    if (slash) {
        snprintf(name, sizeof name, "%s", slash + 1);
        *slash = '\0';
        if (!*dir)
            strcpy(dir, "/");
    } else {
        snprintf(name, sizeof name, "%s", dir);
        strcpy(dir, ".");
    }
    weir__storage *s;
    int rc = weir__storage_local_create(dir, &s);
    if (rc) {
        fprintf(stderr, "weir: %s: %s\n", dir, weir_strerror(rc));
        return WEIR_EXIT_IO;
    }
    weir__ckpt_meta m;
    weir_error err;
    rc = weir__ckpt_verify(s, name, &m, &err);
    if (rc) {
        fprintf(stderr, "weir: %s\n", err.message);
        weir__storage_destroy(s);
        return WEIR_EXIT_IO;
    }
    char when[32];
    format_time(m.time_ms, when, sizeof when);
    uint64_t total = 0;
    for (uint32_t i = 0; i < m.n_files; i++)
        total += m.files[i].size;
    uint64_t shared_total = 0;
    for (uint32_t i = 0; i < m.n_shared; i++)
        shared_total += m.shared[i].size;
    printf("%s %s: id %" PRIu64 ", taken %s UTC, took %" PRId64
           " ms, max parallelism %u, %u state files, %" PRIu64 " bytes",
           m.is_savepoint ? "savepoint" : "checkpoint", name, m.id, when,
           m.duration_ms, m.max_parallelism, m.n_files, total);
    if (m.n_shared)
        printf(", %u shared files, %" PRIu64 " bytes (incremental)",
               m.n_shared, shared_total);
    printf("%s\n", m.is_final ? ", final (every task had ended)" : "");
    for (uint32_t i = 0; i < m.n_files; i++) {
        const weir__ckpt_file *f = &m.files[i];
        char path[8300];
        snprintf(path, sizeof path, "%s/%s", name, f->file);
        uint8_t *data;
        size_t len;
        weir__snap_view v;
        printf("  task %u subtask %u/%u (%s): %s, %" PRIu64 " bytes\n",
               f->task_id, f->subtask, f->parallelism, f->task, f->file,
               f->size);
        if (s->ops->get(s, path, &data, &len) != 0) {
            printf("    (cannot read)\n");
            continue;
        }
        rc = weir__snap_view_decode(data, len, &v, &err);
        weir_free(data);
        if (rc) {
            printf("    (cannot decode: %s)\n", err.message);
            continue;
        }
        for (uint32_t o = 0; o < v.n_ops; o++) {
            const weir__snap_op_view *op = &v.ops[o];
            printf("    operator %u '%s': operator state %zu bytes", op->node,
                   op->name ? op->name : "?", op->op_state_bytes);
            uint32_t first, last;
            weir__snap_op_view_span(&v, op, m.max_parallelism, &first, &last);
            if (op->n_kg)
                printf(", key groups [%u, %u] (%u with state): keyed state "
                       "%" PRIu64 " bytes, timers %" PRIu64 " bytes",
                       first, last, op->n_kg_used, op->state_bytes,
                       op->timer_bytes);
            printf("\n");
            print_native(&v, op->node);
        }
        if (v.inflight_msgs)
            printf("    in-flight data (unaligned checkpoint): %" PRIu64
                   " messages, %zu bytes, replayed before new input on "
                   "restore\n",
                   v.inflight_msgs, v.inflight_bytes);
        for (uint32_t k = 0; k < v.n_splits; k++) {
            const weir__snap_split_view *sp = &v.splits[k];
            printf("    source split %s: ", sp->id ? sp->id : "?");
            if (sp->finished) {
                printf("finished");
            } else if (sp->pos_len == 8) {
                uint64_t off = 0;
                for (int b = 7; b >= 0; b--)
                    off = off << 8 | sp->pos[b];
                printf("position %" PRIu64, off);
            } else {
                printf("position 0x");
                for (size_t b = 0; b < sp->pos_len && b < 32; b++)
                    printf("%02x", sp->pos[b]);
                if (sp->pos_len > 32)
                    printf("... (%zu bytes)", sp->pos_len);
            }
            if (sp->max_ts != INT64_MIN)
                printf(", largest event time %" PRId64, sp->max_ts);
            printf("\n");
        }
        weir__snap_view_fini(&v);
    }
    weir__ckpt_meta_fini(&m);
    weir__storage_destroy(s);
    return WEIR_EXIT_OK;
}

/* ---- checkpoints for `weir run` ---- */

/* Every checkpoint key the script (SET) or -D may give. */
static const char *const CKPT_KEYS[] = {
    "state.checkpoints.dir",
    "execution.checkpointing.dir",
    "execution.checkpointing.interval",
    "execution.checkpointing.timeout",
    "execution.checkpointing.min-pause",
    "execution.checkpointing.max-concurrent-checkpoints",
    "execution.checkpointing.tolerable-failed-checkpoints",
    "execution.checkpointing.mode",
    "execution.checkpointing.unaligned",
    "execution.checkpointing.unaligned.enabled",
    "execution.checkpointing.aligned-checkpoint-timeout",
    "execution.checkpointing.alignment-timeout",
    "state.checkpoints.num-retained",
    "execution.checkpointing.num-retained",
    "state.savepoints.dir",
    "execution.checkpointing.savepoint-dir",
    "execution.savepoint.path",
    "execution.savepoint.ignore-unclaimed-state",
    "state.backend.async",
    "state.backend.incremental",
    "execution.checkpointing.incremental",
    /* object storage (s3:// paths) */
    "s3.endpoint",
    "s3.region",
    "s3.access-key",
    "s3.access.key",
    "s3.secret-key",
    "s3.secret.key",
    "s3.path.style.access",
    "s3.path-style-access",
    "s3.max-error-retries",
    "s3.upload.min.part.size",
    NULL,
};

int weir_cli_enable_checkpoints(weir_sql_job *sj, weir_job *job, bool fresh,
                                const char *from)
{
    weir_checkpoint_config cfg;
    weir_checkpoint_config_init(&cfg);
    cfg.log = weir_cli_log_checkpoint_line;
    weir_error err = {0};
    for (size_t i = 0; CKPT_KEYS[i]; i++) {
        const char *v = weir_sql_job_config(sj, CKPT_KEYS[i]);
        if (v && weir_checkpoint_config_set(&cfg, CKPT_KEYS[i], v, &err) != 0) {
            weir_cli_log(WEIR_LOG_ERROR, "%s", err.message);
            return WEIR_EXIT_INVALID;
        }
    }
    if (from) {
        cfg.restore = WEIR_RESTORE_PATH;
        cfg.restore_path = from;
    } else if (fresh) {
        cfg.restore = WEIR_RESTORE_FRESH;
    }
    if (!cfg.dir) {
        if (cfg.restore == WEIR_RESTORE_PATH) {
            weir_cli_log(WEIR_LOG_ERROR, "restoring %s needs state.checkpoints.dir, where the "
                "restored job checkpoints "
                "(SET it in the script or pass -D state.checkpoints.dir=DIR)",
                cfg.restore_path);
            return WEIR_EXIT_USAGE;
        }
        if (fresh)
            weir_cli_log(WEIR_LOG_WARN, "--fresh has no effect: the job has no "
                            "checkpoint directory");
        return WEIR_EXIT_OK; /* no checkpoints */
    }
    int rc = weir_job_enable_checkpoints(job, &cfg, &err);
    if (rc) {
        weir_cli_log(WEIR_LOG_ERROR, "%s", err.message);
        if (rc == WEIR_ESTATE) /* the folder is in use */
            return WEIR_EXIT_FAILED;
        return rc == WEIR_ENOTFOUND || rc == WEIR_EIO || rc == WEIR_ECORRUPT
                   ? WEIR_EXIT_IO
                   : WEIR_EXIT_INVALID;
    }
    return WEIR_EXIT_OK;
}

bool weir_cli_restart_due(weir_sql_job *sj, weir_job *job, uint32_t *attempt,
                          char *from, size_t from_cap, int64_t *delay_ms)
{
    static const char *const keys[] = {
        "restart-strategy.type", "restart-strategy",
        "restart-strategy.fixed-delay.attempts",
        "restart-strategy.fixed-delay.delay", NULL};
    weir_restart_strategy rs;
    weir_restart_strategy_init(&rs);
    weir_error err = {0};
    for (size_t i = 0; keys[i]; i++) {
        const char *v = weir_sql_job_config(sj, keys[i]);
        if (v && weir_restart_strategy_set(&rs, keys[i], v, &err) != 0) {
            weir_cli_log(WEIR_LOG_ERROR, "%s", err.message);
            return false;
        }
    }
    if (*attempt >= rs.attempts)
        return false;
    (*attempt)++;
    /* Resume where the failed run got: its last checkpoint, else where it
     * started. */
    weir_checkpoint_stats st;
    const char *dir = weir_sql_job_config(sj, "state.checkpoints.dir");
    if (!dir)
        dir = weir_sql_job_config(sj, "execution.checkpointing.dir");
    if (dir && !strncmp(dir, "file://", 7))
        dir += 7;
    if (dir && weir_job_checkpoint_stats(job, &st) == 0 && st.last_id)
        snprintf(from, from_cap, "%s/chk-%" PRIu64, dir, st.last_id);
    else if (weir_job_restored_from(job)[0])
        snprintf(from, from_cap, "%s", weir_job_restored_from(job));
    else
        from[0] = '\0';
    weir_cli_log(WEIR_LOG_INFO, "restarting in %" PRId64 " ms (restart %u of %u)%s%s",
            rs.delay_ms, *attempt, rs.attempts, from[0] ? " from " : "", from);
    *delay_ms = rs.delay_ms;
    return true;
}

/*
 * Savepoints on signals: SIGUSR1 takes a savepoint into state.savepoints.dir
 * while the job goes on; STOP_SIGNAL (SIGRTMIN + 1, sent by `weir savepoint
 * JOB --stop`) stops the job with one. A thread of ours waits for them with
 * sigwaitinfo, so the savepoint (which blocks) never runs in a signal
 * handler; the signals are blocked in every other thread
 * (weir_cli_signals_start runs before the job's threads exist). The result
 * goes to stderr and, for the sender (`weir savepoint`, which waits for it),
 * to a reply in the job registry. A job without checkpoints takes the
 * signals too and answers that it cannot take savepoints: SIGUSR1's default
 * action would kill it.
 */
#define STOP_SIGNAL WEIR_CLI_STOP_SAVEPOINT_SIGNAL

static pthread_t g_sig_thread;
static bool g_sig_started;
static weir_job *g_sig_job;
static _Atomic bool g_sig_stopping;
static sigset_t g_sig_set;

static void *signal_thread(void *arg)
{
    (void)arg;
    for (;;) {
        siginfo_t info;
        int sig = sigwaitinfo(&g_sig_set, &info);
        if (sig < 0)
            continue;
        if (atomic_load(&g_sig_stopping)) /* weir_cli_signals_stop: the job ended */
            break;
        char path[1024];
        weir_error err = {0};
        int rc = sig == SIGUSR1 ? weir_job_savepoint(g_sig_job, NULL, path, sizeof path, &err)
                                : weir_job_stop_with_savepoint(g_sig_job, NULL, path, sizeof path, &err);
        if (rc)
            weir_cli_log(WEIR_LOG_ERROR, "%s failed: %s", sig == SIGUSR1 ? "savepoint" : "stop with savepoint",
                         err.message);
        else
            weir_cli_log(WEIR_LOG_INFO, "savepoint written to %s%s", path, sig != SIGUSR1 ? "; the job stops" : "");
        if (info.si_code == SI_USER || info.si_code == SI_QUEUE)
            weir__registry_savepoint_reply(info.si_pid, rc, rc ? err.message : path);
    }
    return NULL;
}

int weir_cli_signals_block(void)
{
    sigemptyset(&g_sig_set);
    sigaddset(&g_sig_set, SIGUSR1);
    sigaddset(&g_sig_set, STOP_SIGNAL);
    return pthread_sigmask(SIG_BLOCK, &g_sig_set, NULL);
}

void weir_cli_signals_start(weir_job *job)
{
    if (weir_cli_signals_block() != 0)
        return;
    g_sig_job = job;
    atomic_store(&g_sig_stopping, false);
    g_sig_started = pthread_create(&g_sig_thread, NULL, signal_thread, NULL) == 0;
}

void weir_cli_signals_stop(void)
{
    if (!g_sig_started)
        return;
    atomic_store(&g_sig_stopping, true);
    pthread_kill(g_sig_thread, SIGUSR1);
    pthread_join(g_sig_thread, NULL);
    g_sig_started = false;
}

int weir_cli_savepoint(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: weir savepoint JOB [--stop]\n\n"
               "Takes a savepoint of the running job JOB (a process id or pipeline.name,\n"
               "see weir list) into its state.savepoints.dir, waits for it, and prints its\n"
               "path. With --stop the job stops after the savepoint, which is also its\n"
               "final checkpoint. Restore it with weir run JOB.sql --from PATH, at any\n"
               "parallelism and on either state backend.\n\n"
               "Exit status: 0 the savepoint is complete, 1 it failed (the message says\n"
               "why: no checkpoints, no state.savepoints.dir, the job ended), 2 usage,\n"
               "5 no such running job.\n");
        return WEIR_EXIT_OK;
    }
    bool stop = argc == 3 && !strcmp(argv[2], "--stop");
    if (argc < 2 || argc > 3 || (argc == 3 && !stop)) {
        fprintf(stderr, "usage: weir savepoint JOB [--stop] (see weir savepoint --help)\n");
        return WEIR_EXIT_USAGE;
    }
    long pid;
    int rc = weir_cli_signal_job("savepoint", argv[1], stop ? STOP_SIGNAL : SIGUSR1, &pid);
    if (rc)
        return rc;
    char path[1100];
    weir_error err = {0};
    if (weir_cli_savepoint_await(pid, path, sizeof path, &err)) {
        fprintf(stderr, "weir savepoint: %s\n", err.message);
        return WEIR_EXIT_FAILED;
    }
    printf("%s\n", path);
    return WEIR_EXIT_OK;
}

int weir_cli_savepoint_await(long pid, char *path, size_t cap, weir_error *err)
{
    /* The reply comes when the savepoint is complete or has failed; the
     * job's end without one is a failure too (after one more look: it may
     * have answered just before it ended). */
    bool alive = true;
    for (;;) {
        int failed;
        int got = weir__registry_savepoint_take(pid, &failed, path, cap);
        if (got > 0) {
            if (failed)
                return weir_error_set(err, WEIR_EIO, "%s", path);
            return 0;
        }
        if (got < 0 || !alive)
            return weir_error_set(err, WEIR_ENOTFOUND, "job %ld ended without a savepoint", pid);
        alive = weir__registry_alive(pid);
        if (!alive)
            continue;
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}
