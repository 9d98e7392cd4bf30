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

int weir_cli_signal_job_err(const char *job, int sig, long *pid, weir_error *err)
{
    weir__registry_entry e;
    int rc = weir__registry_find(job, &e, err);
    if (rc)
        return rc;
    if (kill((pid_t)e.pid, sig) != 0)
        return weir_error_set(err, WEIR_EIO, "cannot signal process %ld: %s", e.pid, strerror(errno));
    if (pid)
        *pid = e.pid;
    return 0;
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
        (*out)[i].started_ms = v[i].started_ms;
    }
    weir_free(v);
    return 0;
}

/* As weir stop (--drain) and weir savepoint --stop, then until the job's process has ended. */
static int control_stop(void *ud, const char *job, bool savepoint, bool drain, char *path, size_t cap,
                        weir_error *err)
{
    (void)ud;
    int sig = savepoint ? WEIR_CLI_STOP_SAVEPOINT_SIGNAL : drain ? WEIR_CLI_DRAIN_SIGNAL : SIGTERM;
    long pid;
    int rc = weir_cli_signal_job_err(job, sig, &pid, err);
    if (!rc && savepoint)
        rc = weir_cli_savepoint_await(pid, path, cap, err);
    if (rc)
        return rc;
    while (weir__registry_alive(pid)) {
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return 0;
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
               "the web endpoint's URL and the job id (as SHOW JOBS prints it). JOB in\n"
               "weir stop, cancel and savepoint is one of these process ids, names or\n"
               "job ids.\n");
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
    printf("%-8s %-24s %-19s  %-30s %-24s %s\n", "PID", "NAME", "STARTED (UTC)", "CHECKPOINTS", "URL", "JOB ID");
    for (size_t i = 0; i < n; i++) {
        char when[32];
        time_t t = (time_t)(v[i].started_ms / 1000);
        struct tm tm;
        gmtime_r(&t, &tm);
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
        char id[33];
        weir__registry_job_id(&v[i], id);
        printf("%-8ld %-24s %-19s  %-30s %-24s %s\n", v[i].pid, v[i].name, when,
               v[i].checkpoints[0] ? v[i].checkpoints : "-", v[i].rest[0] ? v[i].rest : "-", id);
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
