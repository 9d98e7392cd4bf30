/* cli/cli.h - the weir command's subcommands. */
#ifndef WEIR_CLI_H
#define WEIR_CLI_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

int weir_cli_checkpoints(int argc, char **argv);
int weir_cli_inspect(int argc, char **argv);
int weir_cli_run(int argc, char **argv);
int weir_cli_explain(int argc, char **argv);
int weir_cli_savepoint(int argc, char **argv);
int weir_cli_stop(int argc, char **argv);

/* checkpoints.c: the checkpoint side of `weir run`. */
struct weir_sql_job;
struct weir_job;
/* Enables checkpoints as the script's options say; returns an exit code (WEIR_EXIT_OK: go on). */
int weir_cli_enable_checkpoints(struct weir_sql_job *sj, struct weir_job *job, bool fresh, const char *from);
/* SIGUSR1: savepoint; SIGRTMIN+1: stop with savepoint (call before weir_job_start / after the job ended). */
void weir_cli_signals_start(struct weir_job *job);
void weir_cli_signals_stop(void);
/*
 * After a failed run: whether restart-strategy allows another attempt. If so
 * it counts it in *attempt, puts the checkpoint to resume from in from (""
 * for a fresh start), says so on stderr and waits the delay.
 */
bool weir_cli_restart_due(struct weir_sql_job *sj, struct weir_job *job, uint32_t *attempt, char *from,
                          size_t from_cap);

/*
 * stop.c: SIGINT/SIGTERM stop `weir run` (first: a clean stop, or a drain;
 * second: at once). weir_cli_stopper_block must run before the process
 * makes any thread; start, then end after the job ended.
 */
#define WEIR_CLI_DRAIN_SIGNAL (SIGRTMIN + 2) /* weir stop PID --drain */
typedef struct weir_cli_stopper {
    struct weir_job *job;
    bool drain_on_stop; /* --drain-on-stop */
    pthread_t thread;
    bool started;
    _Atomic int sig;       /* the first stop signal, 0: none */
    _Atomic bool drained;  /* that stop drains */
    _Atomic bool canceled; /* a second signal came */
    _Atomic bool ending;   /* the job ended: the thread leaves */
} weir_cli_stopper;
int weir_cli_stopper_block(void);
int weir_cli_stopper_start(weir_cli_stopper *s, struct weir_job *job, bool drain_on_stop);
void weir_cli_stopper_end(weir_cli_stopper *s);
/* The first stop signal taken (0: none) and the exit code it calls for. */
int weir_cli_stopper_signal(const weir_cli_stopper *s);
int weir_cli_stopper_exit_code(const weir_cli_stopper *s);
/* One line on stderr: how the job stopped and what is committed. */
void weir_cli_stopper_report(const weir_cli_stopper *s, struct weir_job *job);

/* Exit codes of the weir command. */
enum {
    WEIR_EXIT_OK = 0,
    WEIR_EXIT_FAILED = 1,  /* the job failed while running */
    WEIR_EXIT_USAGE = 2,   /* bad command line */
    WEIR_EXIT_INVALID = 3, /* the job does not parse or plan */
    WEIR_EXIT_IO = 4,      /* a file could not be read or written */
};

#endif
