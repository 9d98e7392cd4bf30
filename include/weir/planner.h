/*
 * weir/planner.h - turning a SQL script into a runnable job.
 *
 * weir_sql_job_create parses a script (Flink SQL dialect), runs its DDL and
 * SET statements, plans every INSERT (and every bare SELECT, which prints
 * its rows like a print sink) into one job graph, and returns it ready to
 * run. EXPLAIN statements add nothing to the job; their text is collected
 * and available through weir_sql_job_explain_output.
 *
 * Every error is "FILE:LINE:COL: error: ..." in err->message.
 */
#ifndef WEIR_PLANNER_H
#define WEIR_PLANNER_H

#include <stdio.h>

#include "weir/job.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct weir_sql_job weir_sql_job;

/* A running job of this machine, as SHOW JOBS lists it. */
typedef struct weir_sql_running_job {
    char id[33];        /* the job id: 32 hex digits */
    char name[256];     /* pipeline.name */
    int64_t started_ms; /* wall clock, ms since the epoch */
    char status[16];    /* RUNNING, or RESTARTING between attempts ("": RUNNING) */
} weir_sql_running_job;

/*
 * SHOW JOBS and STOP JOB, which act on the other jobs of this machine when
 * the script is planned (`weir run` provides them).
 */
typedef struct weir_sql_job_control {
    void *ud;
    /* The running jobs; *out transferred (weir_free). */
    int (*list)(void *ud, weir_sql_running_job **out, size_t *n, weir_error *err);
    /* Stops job (a job id, process id or pipeline.name) and waits until it
     * ended; with savepoint, path gets the savepoint's path. */
    int (*stop)(void *ud, const char *job, bool savepoint, bool drain, char *path, size_t cap,
                weir_error *err);
    /* The script is planned again (a restart): they acted the first time
     * and are skipped. */
    bool skip;
} weir_sql_job_control;

typedef struct weir_sql_job_options {
    /* key/value settings applied after the script's own SET statements
     * (the command line's -D key=value); borrowed for the call. */
    const char *const *set_keys;
    const char *const *set_values;
    size_t n_set;
    /* key/value settings applied before the script's SET statements (a
     * configuration file, `weir run --config`): the lowest precedence; the
     * file's name and each key's line and column (1-based) are for warnings.
     * Borrowed for the call; all NULL/0: none. */
    const char *defaults_file;
    const char *const *default_keys;
    const char *const *default_values;
    const uint32_t *default_lines, *default_cols;
    size_t n_default;
    weir_clock clock;     /* processing time; now_ms NULL: the system clock */
    FILE *print_out;      /* print sinks and bare SELECTs write here (NULL: stdout) */
    /* SHOW JOBS and STOP JOB (borrowed for the call); NULL: refused. */
    const weir_sql_job_control *jobs;
} weir_sql_job_options;

int weir_sql_job_create(const char *file, const char *text, size_t len, const weir_sql_job_options *opt,
                        weir_sql_job **out, weir_error *err);
void weir_sql_job_destroy(weir_sql_job *j);

/* The job graph (borrowed; run it with weir_job_run). NULL when the script has nothing to run. */
weir_job *weir_sql_job_graph(weir_sql_job *j);
/* The plan of everything the job runs: logical operators, then the task graph. */
int weir_sql_job_explain(weir_sql_job *j, weir_buf *out);
/* What the script's EXPLAIN statements printed ("" if none); valid while j lives. */
const char *weir_sql_job_explain_output(const weir_sql_job *j);
/*
 * What planning found worth saying without failing: one
 * "FILE:LINE:COL: warning: ..." line each (a SET of a configuration key
 * weir does not read, with the closest key it does), "" if none; valid
 * while j lives.
 */
const char *weir_sql_job_warnings(const weir_sql_job *j);
/* The value of a configuration key after SET and -D, or NULL. */
const char *weir_sql_job_config(const weir_sql_job *j, const char *key);

#ifdef __cplusplus
}
#endif
#endif
