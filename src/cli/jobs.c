/*
 * cli/jobs.c - the running jobs of this machine: `weir list`, and how
 * `weir stop`, `weir cancel` and `weir savepoint` find the process of JOB
 * (a process id or a pipeline.name from the registry, util/registry.h) and
 * signal it. Only processes in the registry are signalled: a mistyped pid
 * never sends SIGTERM to some other program.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "util/registry.h"

int weir_cli_signal_job(const char *cmd, const char *job, int sig, long *pid)
{
    weir__registry_entry e;
    weir_error err = {0};
    int rc = weir__registry_find(job, &e, &err);
    if (rc) {
        fprintf(stderr, "weir %s: %s\n", cmd, err.message);
        return rc == WEIR_EIO ? WEIR_EXIT_IO : WEIR_EXIT_NOJOB;
    }
    if (kill((pid_t)e.pid, sig) != 0) {
        fprintf(stderr, "weir %s: cannot signal process %ld: %s\n", cmd, e.pid, strerror(errno));
        return WEIR_EXIT_IO;
    }
    if (pid)
        *pid = e.pid;
    return WEIR_EXIT_OK;
}

int weir_cli_list(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: weir list\n\n"
               "Lists the jobs that `weir run` is running on this machine for this user:\n"
               "process id, job name (pipeline.name), start time (UTC), checkpoint folder\n"
               "and the web endpoint's URL. JOB in weir stop, cancel and savepoint is\n"
               "one of these process ids or names.\n");
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
    printf("%-8s %-24s %-19s  %-30s %s\n", "PID", "NAME", "STARTED (UTC)", "CHECKPOINTS", "URL");
    for (size_t i = 0; i < n; i++) {
        char when[32];
        time_t t = (time_t)(v[i].started_ms / 1000);
        struct tm tm;
        gmtime_r(&t, &tm);
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
        printf("%-8ld %-24s %-19s  %-30s %s\n", v[i].pid, v[i].name, when,
               v[i].checkpoints[0] ? v[i].checkpoints : "-", v[i].rest[0] ? v[i].rest : "-");
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
