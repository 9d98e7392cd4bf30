/*
 * cli/jobs.c - the running jobs of this machine: `weir list`, and how
 * `weir stop`, `weir cancel` and `weir savepoint` find the process of JOB
 * (a process id or a pipeline.name from the registry, util/registry.h) and
 * signal it. Only processes in the registry are signalled: a mistyped pid
 * never sends SIGTERM to some other program. The same for SHOW JOBS and
 * STOP JOB in a script that weir run plans.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "weir/planner.h"
#include "util/registry.h"

/* Signals the process of job, or every process of this machine that
 * carries job's id (a clustered job); the pids into pids (up to cap). */
static int signal_all(const char *job, int sig, long *pids, size_t cap, size_t *n, weir_error *err)
{
    weir__registry_entry e;
    size_t more = 0;
    int rc = weir__registry_find(job, &e, &more, err);
    if (rc)
        return rc;
    *n = 0;
    weir__registry_entry *v = &e;
    size_t nv = 1;
    if (more && (rc = weir__registry_list(&v, &nv, err)))
        return rc;
    for (size_t i = 0; i < nv && !rc; i++) {
        if (v != &e && strcmp(v[i].id, e.id) != 0)
            continue;
        if (kill((pid_t)v[i].pid, sig) != 0 && (errno != ESRCH || *n == 0))
            rc = weir_error_set(err, WEIR_EIO, "cannot signal process %ld: %s", v[i].pid, strerror(errno));
        else if (*n < cap)
            pids[(*n)++] = v[i].pid;
    }
    if (v != &e)
        weir_free(v);
    return rc;
}

int weir_cli_signal_job_err(const char *job, int sig, long *pid, weir_error *err)
{
    long pids[64];
    size_t n = 0;
    int rc = signal_all(job, sig, pids, 64, &n, err);
    if (!rc && pid)
        *pid = pids[0];
    return rc;
}

int weir_cli_signal_job(const char *cmd, const char *job, int sig, long *pid)
{
    weir_error err = {0};
    int rc = weir_cli_signal_job_err(job, sig, pid, &err);
    if (rc) {
        fprintf(stderr, "weir %s: %s\n", cmd, err.message);
        return rc == WEIR_ENOTFOUND || rc == WEIR_EINVAL ? WEIR_EXIT_NOJOB : WEIR_EXIT_IO;
    }
    return WEIR_EXIT_OK;
}

/* ---- SHOW JOBS and STOP JOB in a script ---- */

static int control_list(void *ud, weir_sql_running_job **out, size_t *n, weir_error *err)
{
    (void)ud;
    weir__registry_entry *v;
    int rc = weir__registry_list(&v, n, err);
    if (rc)
        return rc;
    *out = weir_calloc(*n + 1, sizeof **out);
    if (!*out) {
        weir_free(v);
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < *n; i++) {
        weir__registry_job_id(&v[i], (*out)[i].id);
        snprintf((*out)[i].name, sizeof (*out)[i].name, "%s", v[i].name);
        snprintf((*out)[i].status, sizeof (*out)[i].status, "%s", v[i].status[0] ? v[i].status : "RUNNING");
        (*out)[i].started_ms = v[i].started_ms;
    }
    weir_free(v);
    /* One row per job: the processes of a clustered job on this machine
     * share its id; the row keeps the earliest start and says RESTARTING
     * only when no process of it runs. */
    size_t k = 0;
    for (size_t i = 0; i < *n; i++) {
        size_t j = 0;
        while (j < k && strcmp((*out)[j].id, (*out)[i].id) != 0)
            j++;
        if (j == k) {
            (*out)[k++] = (*out)[i];
            continue;
        }
        if ((*out)[i].started_ms < (*out)[j].started_ms)
            (*out)[j].started_ms = (*out)[i].started_ms;
        if (!strcmp((*out)[i].status, "RUNNING"))
            snprintf((*out)[j].status, sizeof (*out)[j].status, "RUNNING");
    }
    *n = k;
    return 0;
}

/* Whether job is one of this machine's, and (savepoint) can take a savepoint now. */
static int stoppable(const char *job, bool savepoint, weir_error *err)
{
    weir__registry_entry e;
    int rc = weir__registry_find(job, &e, NULL, err);
    if (rc || !savepoint)
        return rc;
    /* between restart attempts no task runs to take the savepoint: say so now, not after the delay */
    if (!strcmp(e.status, "RESTARTING"))
        return weir_error_set(err, WEIR_EINVAL,
                              "job '%s' is RESTARTING (waiting between restart attempts): no savepoint can be "
                              "taken until it runs again; STOP JOB without WITH SAVEPOINT stops it now",
                              job);
    return 0;
}

/* As weir stop (--drain) and weir savepoint --stop, then until the job's process has ended. */
static int control_stop(void *ud, const char *job, bool savepoint, bool drain, char *path, size_t cap,
                        weir_error *err)
{
    (void)ud;
    int sig = savepoint ? WEIR_CLI_STOP_SAVEPOINT_SIGNAL : drain ? WEIR_CLI_DRAIN_SIGNAL : SIGTERM;
    long pids[64];
    size_t n = 0;
    int rc;
    if (savepoint && (rc = stoppable(job, true, err)))
        return rc;
    rc = signal_all(job, sig, pids, 64, &n, err);
    for (size_t i = 0; !rc && savepoint && i < n; i++) {
        /* each process of a clustered job answers with its own path; the first is shown */
        char other[1024];
        rc = weir_cli_savepoint_await(pids[i], i ? other : path, i ? sizeof other : cap, err);
    }
    if (rc)
        return rc;
    for (size_t i = 0; i < n; i++)
        while (weir__registry_alive(pids[i])) {
            struct timespec ts = {0, 20 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    return 0;
}

/* The check before the script acts: SHOW JOBS lists, STOP JOB finds its job; ud: set when either is met. */
static int check_list(void *ud, weir_sql_running_job **out, size_t *n, weir_error *err)
{
    *(bool *)ud = true;
    return control_list(NULL, out, n, err);
}

static int check_stop(void *ud, const char *job, bool savepoint, bool drain, char *path, size_t cap,
                      weir_error *err)
{
    (void)drain;
    *(bool *)ud = true;
    snprintf(path, cap, "%s", "");
    return stoppable(job, savepoint, err);
}

void weir_cli_job_control_check(weir_sql_job_control *c, bool *met)
{
    *met = false;
    *c = (weir_sql_job_control){.ud = met, .list = check_list, .stop = check_stop};
}

const weir_sql_job_control *weir_cli_job_control(bool skip)
{
    static const weir_sql_job_control first = {.list = control_list, .stop = control_stop};
    static const weir_sql_job_control again = {.list = control_list, .stop = control_stop, .skip = true};
    return skip ? &again : &first;
}

int weir_cli_list(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: weir list\n\n"
               "Lists the jobs that `weir run` is running on this machine for this user:\n"
               "process id, job name (pipeline.name), start time (UTC), checkpoint folder,\n"
               "the web endpoint's URL, status (RUNNING, or RESTARTING while a restart\n"
               "strategy waits) and the job id (as SHOW JOBS and the REST API print it;\n"
               "it stays the same across restarts, and the processes of a clustered job\n"
               "share it). JOB in weir stop, cancel and savepoint is one of these process\n"
               "ids, names or job ids.\n");
        return WEIR_EXIT_OK;
    }
    if (argc != 1) {
        fprintf(stderr, "weir list: unexpected argument '%s' (see weir list --help)\n", argv[1]);
        return WEIR_EXIT_USAGE;
    }
    weir__registry_entry *v;
    size_t n;
    weir_error err = {0};
    if (weir__registry_list(&v, &n, &err)) {
        fprintf(stderr, "weir list: %s\n", err.message);
        return WEIR_EXIT_IO;
    }
    printf("%-8s %-24s %-19s  %-30s %-24s %-10s %s\n", "PID", "NAME", "STARTED (UTC)", "CHECKPOINTS", "URL",
           "STATUS", "JOB ID");
    for (size_t i = 0; i < n; i++) {
        char when[32];
        time_t t = (time_t)(v[i].started_ms / 1000);
        struct tm tm;
        gmtime_r(&t, &tm);
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
        char id[33];
        weir__registry_job_id(&v[i], id);
        printf("%-8ld %-24s %-19s  %-30s %-24s %-10s %s\n", v[i].pid, v[i].name, when,
               v[i].checkpoints[0] ? v[i].checkpoints : "-", v[i].rest[0] ? v[i].rest : "-",
               v[i].status[0] ? v[i].status : "RUNNING", id);
    }
    if (n == 0)
        printf("(no running jobs)\n");
    weir_free(v);
    return WEIR_EXIT_OK;
}

int weir_cli_cancel(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: weir cancel JOB\n\n"
               "Cancels the running job JOB (a process id or pipeline.name, see weir list)\n"
               "at once, as Flink's cancel: no final checkpoint, no window fires, files in\n"
               "progress are discarded; with checkpoints, the output stays committed up to\n"
               "the last completed checkpoint, where a rerun resumes. weir stop is the\n"
               "clean stop. The job's process exits with 143.\n");
        return WEIR_EXIT_OK;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: weir cancel JOB (see weir cancel --help)\n");
        return WEIR_EXIT_USAGE;
    }
    return weir_cli_signal_job("cancel", argv[1], WEIR_CLI_CANCEL_SIGNAL, NULL);
}
