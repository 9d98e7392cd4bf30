/* cli/cli.h - the weir command's subcommands. */
#ifndef WEIR_CLI_H
#define WEIR_CLI_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "weir/common.h"

int weir_cli_checkpoints(int argc, char **argv);
int weir_cli_inspect(int argc, char **argv);
int weir_cli_run(int argc, char **argv);
int weir_cli_explain(int argc, char **argv);
int weir_cli_savepoint(int argc, char **argv);
int weir_cli_stop(int argc, char **argv);
int weir_cli_cancel(int argc, char **argv);
int weir_cli_list(int argc, char **argv);
int weir_cli_savepoint_tool(int argc, char **argv);

/*
 * jobs.c: finds JOB (a pid or pipeline.name) in the registry and sends it
 * sig; *pid (if not NULL) gets its process id. Returns an exit code, having
 * said what went wrong on stderr.
 */
int weir_cli_signal_job(const char *cmd, const char *job, int sig, long *pid);
/* The same, saying what went wrong in err; 0 or a WEIR_E... code. */
int weir_cli_signal_job_err(const char *job, int sig, long *pid, weir_error *err);
/* SHOW JOBS and STOP JOB of the scripts weir run plans (skip: a restart
 * plans the script again; they acted the first time). */
struct weir_sql_job_control;
const struct weir_sql_job_control *weir_cli_job_control(bool skip);
/* SHOW JOBS and STOP JOB checked, not acting (the first planning of a script: they act only when all of it
 * plans); *met set when the script has either. */
void weir_cli_job_control_check(struct weir_sql_job_control *c, bool *met);

/* checkpoints.c: the checkpoint side of `weir run`. */
struct weir_sql_job;
struct weir_job;
/* Enables checkpoints as the script's options say; returns an exit code (WEIR_EXIT_OK: go on). */
int weir_cli_enable_checkpoints(struct weir_sql_job *sj, struct weir_job *job, bool fresh, const char *from);
/* SIGUSR1: savepoint; SIGRTMIN+1: stop with savepoint (call before weir_job_start / after the job ended). */
#define WEIR_CLI_STOP_SAVEPOINT_SIGNAL (SIGRTMIN + 1) /* weir savepoint JOB --stop */
/*
 * After a savepoint signal sent to process pid: waits for its reply; 0 with
 * the savepoint's path, or WEIR_EIO (it failed: why in err) or
 * WEIR_ENOTFOUND (the job ended without one).
 */
int weir_cli_savepoint_await(long pid, char *path, size_t cap, weir_error *err);
/* Blocks the savepoint signals in the calling thread and the threads it
 * starts from then on: call it before any thread exists, so that a
 * savepoint asked for while the job starts (a cluster process joining)
 * waits for the signal thread instead of killing the process. */
int weir_cli_signals_block(void);
void weir_cli_signals_start(struct weir_job *job);
void weir_cli_signals_stop(void);
/*
 * After a failed run: whether restart-strategy allows another attempt. If so
 * it counts it in *attempt, puts the checkpoint to resume from in from (""
 * for a fresh start), says so on stderr and gives the delay to wait
 * (weir_cli_stop_wait: a stop signal during it ends the run).
 */
bool weir_cli_restart_due(struct weir_sql_job *sj, struct weir_job *job, uint32_t *attempt, char *from,
                          size_t from_cap, int64_t *delay_ms);

/*
 * stop.c: SIGINT/SIGTERM stop `weir run` (first: a clean stop, or a drain;
 * second: at once). weir_cli_stopper_block must run before the process
 * makes any thread; start, then end after the job ended.
 */
#define WEIR_CLI_DRAIN_SIGNAL (SIGRTMIN + 2)  /* weir stop JOB --drain */
#define WEIR_CLI_CANCEL_SIGNAL (SIGRTMIN + 3) /* weir cancel JOB */
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
/* The exit code a stop signal calls for (128 + the signal; weir stop and
 * weir cancel count as SIGTERM). */
int weir_cli_stop_exit_code(int sig);
/* Waits up to ms for a stop signal while no job runs (between restart
 * attempts); returns the signal taken, 0 when the time ran out. */
int weir_cli_stop_wait(int64_t ms);
/* The signal's name in log lines ("SIGTERM", "weir stop --drain", ...). */
const char *weir_cli_stop_signal_name(int sig);
/* One line on stderr: how the job stopped and what is committed. */
void weir_cli_stopper_report(const weir_cli_stopper *s, struct weir_job *job);

/*
 * log.c: levelled, timestamped lines on stderr (text or JSON lines), which
 * never overwrite the terminal's status line. Thread-safe.
 */
enum { WEIR_LOG_DEBUG, WEIR_LOG_INFO, WEIR_LOG_WARN, WEIR_LOG_ERROR };
/* log.format (text|json) and log.level (NULL: unchanged); -1 with msg when a value is invalid. */
int weir_cli_log_configure(const char *format, const char *level, char *msg, size_t cap);
bool weir_cli_log_enabled(int level);
bool weir_cli_log_json(void); /* log.format = json */
void weir_cli_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The status line shown under the log lines on a terminal ("" or NULL: none). */
void weir_cli_log_status(const char *line);
/* A weir_checkpoint_log_fn that logs at INFO. */
void weir_cli_log_checkpoint_line(void *ud, const char *line);

/* config.c: `weir run --config FILE`, YAML flattened to dotted keys. */
typedef struct weir_cli_config {
    char **keys, **values;
    uint32_t *lines, *cols; /* where each value is, 1-based */
    size_t n;
} weir_cli_config;
/* Returns an exit code, having said on stderr what is wrong and where. */
int weir_cli_config_load(const char *path, weir_cli_config *c);
void weir_cli_config_fini(weir_cli_config *c);

/* Exit codes of the weir command. */
enum {
    WEIR_EXIT_OK = 0,
    WEIR_EXIT_FAILED = 1,  /* the job failed while running */
    WEIR_EXIT_USAGE = 2,   /* bad command line */
    WEIR_EXIT_INVALID = 3, /* the job does not parse or plan */
    WEIR_EXIT_IO = 4,      /* a file could not be read or written */
    WEIR_EXIT_NOJOB = 5,   /* no running job is JOB */
};

#endif
