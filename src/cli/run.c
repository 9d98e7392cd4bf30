/*
 * cli/run.c - `weir run JOB.sql` and `weir explain JOB.sql`.
 *
 * run plans the script and runs the job: bounded inputs run to completion
 * and exit 0; an unbounded job runs until SIGINT/SIGTERM, which stops it
 * cleanly. While it runs, and stderr is a terminal, one status line shows
 * records in and out, the output rate, and the job's progress.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "rest/rest.h"
#include "weir/planner.h"

#define MAX_SETS 128

typedef struct run_args {
    const char *file;
    const char *keys[MAX_SETS];
    const char *vals[MAX_SETS];
    char *owned[MAX_SETS];
    size_t n_set;
    bool fresh;        /* --fresh: ignore existing checkpoints */
    const char *from;  /* --from PATH: restore this checkpoint or savepoint */
    bool drain_on_stop; /* --drain-on-stop: SIGINT/SIGTERM fire every window */
} run_args;

static int parse_args(const char *cmd, int argc, char **argv, run_args *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        const char *kv = NULL;
        if (!strcmp(s, "-D")) {
            if (++i >= argc) {
                fprintf(stderr, "weir %s: -D needs key=value\n", cmd);
                return WEIR_EXIT_USAGE;
            }
            kv = argv[i];
        } else if (!strncmp(s, "-D", 2)) {
            kv = s + 2;
        } else if (!strcmp(s, "--fresh")) {
            a->fresh = true;
            continue;
        } else if (!strcmp(s, "--allow-non-restored-state")) {
            /* Flink's --allowNonRestoredState, as its configuration key. */
            kv = "execution.savepoint.ignore-unclaimed-state=true";
        } else if (!strcmp(s, "--drain-on-stop")) {
            a->drain_on_stop = true;
            continue;
        } else if (!strcmp(s, "--from")) {
            if (++i >= argc) {
                fprintf(stderr, "weir %s: --from needs a checkpoint or savepoint path\n", cmd);
                return WEIR_EXIT_USAGE;
            }
            a->from = argv[i];
            continue;
        } else if (s[0] == '-' && s[1]) {
            fprintf(stderr, "weir %s: unknown option '%s' (see weir %s --help)\n", cmd, s, cmd);
            return WEIR_EXIT_USAGE;
        } else if (!a->file) {
            a->file = s;
            continue;
        } else {
            fprintf(stderr, "weir %s: more than one job file given ('%s' and '%s')\n", cmd, a->file, s);
            return WEIR_EXIT_USAGE;
        }
        const char *eq = strchr(kv, '=');
        if (!eq || eq == kv) {
            fprintf(stderr, "weir %s: -D expects key=value, got '%s'\n", cmd, kv);
            return WEIR_EXIT_USAGE;
        }
        if (a->n_set == MAX_SETS) {
            fprintf(stderr, "weir %s: too many -D options\n", cmd);
            return WEIR_EXIT_USAGE;
        }
        char *k = weir_strndup(kv, (size_t)(eq - kv));
        a->owned[a->n_set] = k;
        a->keys[a->n_set] = k;
        a->vals[a->n_set] = eq + 1;
        a->n_set++;
    }
    if (!a->file) {
        fprintf(stderr, "weir %s: no job file given (see weir %s --help)\n", cmd, cmd);
        return WEIR_EXIT_USAGE;
    }
    return 0;
}

static void free_args(run_args *a)
{
    for (size_t i = 0; i < a->n_set; i++)
        weir_free(a->owned[i]);
}

static int read_file(const char *path, char **text, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "weir: %s: %s\n", path, strerror(errno));
        return WEIR_EXIT_IO;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = weir_malloc(cap);
    while (buf) {
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (n < cap)
            break;
        char *nb = weir_realloc(buf, cap * 2);
        if (!nb) {
            weir_free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        weir_free(buf);
        fprintf(stderr, "weir: %s: cannot read\n", path);
        return WEIR_EXIT_IO;
    }
    *text = buf;
    *len = n;
    return 0;
}

static int plan(const char *cmd, int argc, char **argv, run_args *a, weir_sql_job **job)
{
    int rc = parse_args(cmd, argc, argv, a);
    if (rc)
        return rc;
    char *text;
    size_t len;
    if ((rc = read_file(a->file, &text, &len)))
        return rc;
    weir_sql_job_options opt = {.set_keys = a->keys, .set_values = a->vals, .n_set = a->n_set};
    weir_error err = {0};
    rc = weir_sql_job_create(a->file, text, len, &opt, job, &err);
    weir_free(text);
    if (rc) {
        fprintf(stderr, "%s\n", err.message);
        return rc == WEIR_ENOMEM ? WEIR_EXIT_FAILED : WEIR_EXIT_INVALID;
    }
    return 0;
}

typedef struct status_sums {
    double in, out;
    uint32_t last_task; /* the task closest to the sinks seen so far */
    double wm;          /* minimum watermark over its subtasks */
    bool have_wm;
    double newest;      /* newest event time read by the sources */
} status_sums;

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

/* Metric names: "task<T>.<operator>.<subtask>.<metric>" and "task<T>.<subtask>.watermark". */
static void sum_metric(void *ud, const char *name, double v)
{
    status_sums *s = ud;
    if (!strcmp(name, "job.records_read"))
        s->in = v;
    else if (!strcmp(name, "job.records_written"))
        s->out = v;
    else if (ends_with(name, ".max_event_ts")) {
        if (v > s->newest)
            s->newest = v;
    } else if (ends_with(name, ".watermark")) {
        uint32_t t = (uint32_t)strtoul(name + 4, NULL, 10);
        if (t > s->last_task || !s->have_wm) {
            s->last_task = t;
            s->wm = v;
            s->have_wm = true;
        } else if (t == s->last_task && v < s->wm) {
            s->wm = v;
        }
    }
}

static void format_wm(double wm, char *buf, size_t cap)
{
    if (wm <= (double)INT64_MIN / 2) {
        snprintf(buf, cap, "none yet");
        return;
    }
    if (wm >= (double)INT64_MAX / 2) {
        snprintf(buf, cap, "end of input");
        return;
    }
    time_t t = (time_t)(wm / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, cap, "%Y-%m-%d %H:%M:%S", &tm);
}

/*
 * Bad records the sources dropped ("skipped_records") or wrote to their
 * dead-letter file ("dead_letter_records"), summed over the subtasks of each
 * source: "task<T>.<operator>.<subtask>.<metric>".
 */
#define MAX_BAD_SOURCES 32

typedef struct bad_sums {
    struct {
        char op[96];
        uint64_t skipped, dead_letter;
    } src[MAX_BAD_SOURCES];
    uint32_t n;
} bad_sums;

static void sum_bad(void *ud, const char *name, double v)
{
    bad_sums *b = ud;
    bool skipped = ends_with(name, ".skipped_records");
    if ((!skipped && !ends_with(name, ".dead_letter_records")) || v <= 0 ||
        strncmp(name, "task", 4) != 0)
        return;
    const char *op = strchr(name, '.');
    const char *metric = strrchr(name, '.');
    const char *sub = op;
    for (const char *p = op + 1; p < metric; p++)
        if (*p == '.')
            sub = p; /* the last dot before the metric: ".<subtask>" */
    if (sub <= op)
        return;
    char key[96];
    snprintf(key, sizeof key, "%.*s (task %.*s)", (int)(sub - op - 1), op + 1,
             (int)(op - name - 4), name + 4);
    uint32_t i = 0;
    while (i < b->n && strcmp(b->src[i].op, key) != 0)
        i++;
    if (i == b->n) {
        if (b->n == MAX_BAD_SOURCES)
            return;
        snprintf(b->src[b->n++].op, sizeof b->src[i].op, "%s", key);
        b->src[i].skipped = b->src[i].dead_letter = 0;
    }
    if (skipped)
        b->src[i].skipped += (uint64_t)v;
    else
        b->src[i].dead_letter += (uint64_t)v;
}

/* Says at the end of a run how many bad records each source left out. */
static void report_bad_records(weir_job *job)
{
    bad_sums b = {.n = 0};
    weir_job_metrics(job, sum_bad, &b);
    for (uint32_t i = 0; i < b.n; i++) {
        if (b.src[i].skipped)
            fprintf(stderr, "weir: source %s: %" PRIu64 " bad record%s skipped\n", b.src[i].op, b.src[i].skipped,
                    b.src[i].skipped == 1 ? "" : "s");
        if (b.src[i].dead_letter)
            fprintf(stderr, "weir: source %s: %" PRIu64 " bad record%s written to the dead-letter file\n",
                    b.src[i].op, b.src[i].dead_letter, b.src[i].dead_letter == 1 ? "" : "s");
    }
}

static const char *sql_config(void *ud, const char *key)
{
    return weir_sql_job_config(ud, key);
}

/*
 * The HTTP endpoint and the watermark watch beside the running job
 * (rest/rest.h, docs/rest.md). A failure is fatal only when the user asked
 * for the endpoint explicitly (rest.* set); otherwise the job runs without.
 */
static int start_rest(weir_sql_job *sj, weir_job *job, const char *file, weir_rest **out)
{
    weir_rest_config cfg;
    weir_error err = {0};
    *out = NULL;
    if (weir_rest_config_load(&cfg, sql_config, sj, file, &err)) {
        fprintf(stderr, "weir: %s\n", err.message);
        return WEIR_EXIT_INVALID;
    }
    if (weir_rest_start(job, &cfg, out, &err)) {
        fprintf(stderr, "weir: %s%s\n", err.message,
                cfg.enabled_explicitly ? "" : " (the job runs without the HTTP endpoint; rest.enabled = false hides this)");
        if (cfg.enabled_explicitly)
            return WEIR_EXIT_FAILED;
        cfg.enabled = false; /* still watch the watermarks */
        if (weir_rest_start(job, &cfg, out, &err))
            *out = NULL;
    }
    /* registry: rest url - weir_rest_url(*out) goes into the run's registry
     * entry for `weir list` (obs-cli), once that exists. */
    return WEIR_EXIT_OK;
}

typedef struct waiter {
    weir_job *job;
    int rc;
    atomic_bool done;
} waiter;

static void *wait_job(void *arg)
{
    waiter *w = arg;
    w->rc = weir_job_wait(w->job);
    atomic_store(&w->done, true);
    return NULL;
}

int weir_cli_run(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "--help")) {
        printf("usage: weir run JOB.sql [-D key=value]... [--fresh | --from PATH]\n"
               "                [--allow-non-restored-state] [--drain-on-stop]\n\n"
               "Plans the SQL script JOB.sql and runs it as one job. Bounded inputs run to\n"
               "completion; an unbounded job runs until stopped: Ctrl-C, SIGTERM or\n"
               "weir stop PID stop it cleanly (a second one stops it at once).\n\n"
               "  -D key=value     set a configuration key, overriding the script's SET\n"
               "                   (e.g. -D parallelism.default=4)\n"
               "  --fresh          with state.checkpoints.dir set, start over instead of\n"
               "                   resuming from the newest checkpoint there\n"
               "  --from PATH      restore a checkpoint or savepoint (docs/checkpoints.md)\n"
               "  --allow-non-restored-state\n"
               "                   restore a checkpoint whose operators do not all match the\n"
               "                   job (a changed query), dropping the state of those that\n"
               "                   do not; without it such a checkpoint is refused\n"
               "  --drain-on-stop  a stop is an end of input: every window fires and every\n"
               "                   timer runs (without it, windows that have not fired are\n"
               "                   not emitted on a stop)\n\n"
               "With state.checkpoints.dir set the job checkpoints there, a stop takes a\n"
               "final checkpoint, and a later run resumes where it stopped; kill -USR1 PID\n"
               "(weir savepoint PID) takes a savepoint.\n\n"
               "Exit status: 0 done, 1 the job failed, 2 usage, 3 the script does not\n"
               "parse or plan, 4 a file could not be read, 130 stopped by SIGINT, 143\n"
               "stopped by SIGTERM or weir stop.\n");
        return WEIR_EXIT_OK;
    }
    /* Before any thread exists, so that every thread inherits the mask and
     * only the stopper takes SIGINT/SIGTERM (cli/stop.c). */
    weir_cli_stopper_block();
    run_args a;
    weir_sql_job *sj = NULL;
    uint32_t attempt = 0;            /* restarts made (restart-strategy) */
    char restart_from[1100] = "";
again:;
    int rc = plan("run", argc, argv, &a, &sj);
    if (rc) {
        free_args(&a);
        return rc;
    }
    if (attempt == 0)
        fputs(weir_sql_job_warnings(sj), stderr);
    const char *ex = weir_sql_job_explain_output(sj);
    if (*ex && attempt == 0)
        fputs(ex, stdout);
    weir_job *job = weir_sql_job_graph(sj);
    if (!job) {
        weir_sql_job_destroy(sj);
        free_args(&a);
        return WEIR_EXIT_OK;
    }
    /* A stop that comes while the checkpoint is being loaded stops the job
     * before it starts. */
    weir_cli_stopper stopper;
    weir_cli_stopper_start(&stopper, job, a.drain_on_stop);
    if ((rc = weir_cli_enable_checkpoints(sj, job, attempt ? !restart_from[0] : a.fresh,
                                          attempt ? (restart_from[0] ? restart_from : NULL) : a.from))) {
        weir_cli_stopper_end(&stopper);
        if (weir_cli_stopper_signal(&stopper))
            rc = weir_cli_stopper_exit_code(&stopper);
        weir_sql_job_destroy(sj);
        free_args(&a);
        return rc;
    }
    weir_cli_signals_start(job);
    int jrc = weir_job_start(job);
    weir_rest *rest = NULL;
    if (!jrc && (rc = start_rest(sj, job, a.file, &rest))) {
        weir_job_cancel(job);
        weir_job_wait(job);
        weir_cli_stopper_end(&stopper);
        weir_cli_signals_stop();
        weir_sql_job_destroy(sj);
        free_args(&a);
        return rc;
    }
    bool tty = isatty(STDERR_FILENO);
    waiter w = {.job = job};
    pthread_t th;
    if (!jrc && tty && pthread_create(&th, NULL, wait_job, &w) == 0) {
        /* Status line until the job ends, refreshed twice a second. */
        int64_t t0 = weir_monotonic_ns();
        double last_out = 0;
        int64_t last_t = t0;
        for (;;) {
            struct timespec half = {0, 500 * 1000 * 1000};
            nanosleep(&half, NULL);
            if (atomic_load(&w.done))
                break;
            status_sums s = {.newest = (double)INT64_MIN};
            weir_job_metrics(job, sum_metric, &s);
            int64_t now = weir_monotonic_ns();
            double rate = (s.out - last_out) / ((double)(now - last_t) / 1e9);
            last_out = s.out;
            last_t = now;
            char wm[64], lag[48] = "";
            format_wm(s.have_wm ? s.wm : (double)INT64_MIN, wm, sizeof wm);
            if (s.have_wm && s.newest > (double)INT64_MIN / 2 && s.wm > (double)INT64_MIN / 2 &&
                s.wm < (double)INT64_MAX / 2)
                snprintf(lag, sizeof lag, " (%.1f s behind the newest event)", (s.newest - s.wm) / 1000.0);
            fprintf(stderr, "\r\033[Kin %.0f  out %.0f  %.0f rows/s  watermark %s%s  %.1f s", s.in, s.out, rate, wm,
                    lag, (double)(now - t0) / 1e9);
        }
        fprintf(stderr, "\r\033[K");
        pthread_join(th, NULL);
        jrc = w.rc;
    } else if (!jrc) {
        jrc = weir_job_wait(job);
    }
    weir_rest_stop(rest);
    weir_cli_stopper_end(&stopper);
    weir_cli_signals_stop();
    report_bad_records(job);
    int exit_code = WEIR_EXIT_OK;
    if (weir_cli_stopper_signal(&stopper) && (!jrc || jrc == WEIR_ECANCELED)) {
        weir_cli_stopper_report(&stopper, job);
        exit_code = weir_cli_stopper_exit_code(&stopper);
    } else if (jrc && jrc != WEIR_ECANCELED) {
        const char *msg = weir_job_error(job);
        fprintf(stderr, "weir: job failed: %s\n", msg && *msg ? msg : weir_strerror(jrc));
        exit_code = WEIR_EXIT_FAILED;
        /* restart-strategy: build the job again and resume from its last checkpoint. */
        if (weir_cli_restart_due(sj, job, &attempt, restart_from, sizeof restart_from)) {
            weir_sql_job_destroy(sj);
            free_args(&a);
            goto again;
        }
    }
    weir_sql_job_destroy(sj);
    free_args(&a);
    return exit_code;
}

int weir_cli_explain(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "--help")) {
        printf("usage: weir explain JOB.sql [-D key=value]...\n\n"
               "Prints the plan of JOB.sql without running it: the logical operators of\n"
               "each INSERT, then the job graph with its tasks, chaining, parallelism and\n"
               "exchanges.\n");
        return WEIR_EXIT_OK;
    }
    run_args a;
    weir_sql_job *sj = NULL;
    int rc = plan("explain", argc, argv, &a, &sj);
    if (rc) {
        free_args(&a);
        return rc;
    }
    fputs(weir_sql_job_warnings(sj), stderr);
    weir_buf b;
    weir_buf_init(&b);
    weir_sql_job_explain(sj, &b);
    fwrite(b.data, 1, b.len, stdout);
    weir_buf_fini(&b);
    weir_sql_job_destroy(sj);
    free_args(&a);
    return WEIR_EXIT_OK;
}
