/*
 * cli/run.c - `weir run JOB.sql` and `weir explain JOB.sql`.
 *
 * run plans the script and runs the job: bounded inputs run to completion
 * and exit 0; an unbounded job runs until SIGINT/SIGTERM, which stops it
 * cleanly. While it runs, and stderr is a terminal, one status line shows
 * records in and out, the output rate, and the job's progress.
 */
#include <errno.h>
#include <stddef.h>
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
#include "cluster/cluster.h"
#include "rest/rest.h"
#include "util/registry.h"
#include "weir/checkpoint.h"
#include "weir/connector.h"
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
    const char *config; /* --config FILE */
    weir_cli_config cfg;
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
        } else if (!strcmp(s, "--config")) {
            if (++i >= argc) {
                fprintf(stderr, "weir %s: --config needs a YAML file\n", cmd);
                return WEIR_EXIT_USAGE;
            }
            a->config = argv[i];
            continue;
        } else if (!strncmp(s, "--config=", 9)) {
            a->config = s + 9;
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
    weir_cli_config_fini(&a->cfg);
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

/*
 * The script's text, read once per process: a script with SHOW JOBS / STOP
 * JOB is planned twice and a restart plans it again, and a second read of
 * a pipe (/dev/stdin, <(...)) would find it empty, of a file perhaps
 * changed. *text is a copy the caller frees.
 */
static int script_text(const char *path, char **text, size_t *len)
{
    static char *kept;
    static size_t kept_len;
    static char *kept_path;
    if (!kept || strcmp(kept_path, path)) {
        char *t;
        size_t n;
        int rc = read_file(path, &t, &n);
        if (rc)
            return rc;
        char *p = weir_strdup(path);
        if (!p) {
            weir_free(t);
            fprintf(stderr, "weir: out of memory\n");
            return WEIR_EXIT_FAILED;
        }
        weir_free(kept);
        weir_free(kept_path);
        kept = t;
        kept_len = n;
        kept_path = p;
    }
    if (!(*text = weir_malloc(kept_len ? kept_len : 1))) {
        fprintf(stderr, "weir: out of memory\n");
        return WEIR_EXIT_FAILED;
    }
    memcpy(*text, kept, kept_len);
    *len = kept_len;
    return 0;
}

static int plan(const char *cmd, int argc, char **argv, run_args *a, const weir_sql_job_control *jobs,
                weir_sql_job **job)
{
    int rc = parse_args(cmd, argc, argv, a);
    if (rc)
        return rc;
    if (a->config && (rc = weir_cli_config_load(a->config, &a->cfg)))
        return rc;
    char *text;
    size_t len;
    if ((rc = script_text(a->file, &text, &len)))
        return rc;
    weir_sql_job_options opt = {.set_keys = a->keys,
                                .set_values = a->vals,
                                .n_set = a->n_set,
                                .defaults_file = a->config,
                                .default_keys = (const char *const *)a->cfg.keys,
                                .default_values = (const char *const *)a->cfg.values,
                                .default_lines = a->cfg.lines,
                                .default_cols = a->cfg.cols,
                                .n_default = a->cfg.n,
                                .jobs = jobs};
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
 * Per-operator counters summed over subtasks, from metric names
 * "task<T>.<operator>.<subtask>.<metric>": the operator is keyed by its
 * name and task ("tumbling window (task 1)"), as the logs name it.
 */
#define MAX_OP_SUMS 64

typedef struct op_sum {
    char op[96];
    uint64_t read, written;        /* sources, sinks */
    uint64_t skipped, dead_letter; /* bad records of a source */
    uint64_t late, late_routed;    /* window: late rows, of which routed */
    uint64_t late_dropped;         /* other operators: late rows dropped */
    uint64_t top1_skipped;         /* joins: rows their Top-1 would drop, neither joined nor stored */
    bool source, sink;
} op_sum;

typedef struct op_sums {
    op_sum v[MAX_OP_SUMS];
    uint32_t n;
} op_sums;

static const struct {
    const char *metric;
    size_t off;
} OP_METRICS[] = {
    {"rows_read", offsetof(op_sum, read)},
    {"rows_written", offsetof(op_sum, written)},
    {"skipped_records", offsetof(op_sum, skipped)},
    {"dead_letter_records", offsetof(op_sum, dead_letter)},
    {"late_records", offsetof(op_sum, late)},
    {"late_records_routed", offsetof(op_sum, late_routed)},
    {"late_records_dropped", offsetof(op_sum, late_dropped)}, /* OVER, rank */
    {"late_rows", offsetof(op_sum, late_dropped)},            /* interval joins */
    {"rows_skipped_for_top1", offsetof(op_sum, top1_skipped)}, /* joins (ops/top1_hint.h) */
};

static void sum_op(void *ud, const char *name, double v)
{
    op_sums *b = ud;
    if (v < 0 || strncmp(name, "task", 4) != 0)
        return;
    const char *op = strchr(name, '.');
    const char *metric = strrchr(name, '.');
    if (!op || metric <= op)
        return;
    size_t m = 0, n_metrics = sizeof OP_METRICS / sizeof OP_METRICS[0];
    while (m < n_metrics && strcmp(metric + 1, OP_METRICS[m].metric) != 0)
        m++;
    if (m == n_metrics)
        return;
    const char *sub = op;
    for (const char *p = op + 1; p < metric; p++)
        if (*p == '.')
            sub = p; /* the last dot before the metric: ".<subtask>" */
    if (sub <= op)
        return;
    char key[96];
    snprintf(key, sizeof key, "%.*s (task %.*s)", (int)(sub - op - 1), op + 1, (int)(op - name - 4), name + 4);
    uint32_t i = 0;
    while (i < b->n && strcmp(b->v[i].op, key) != 0)
        i++;
    if (i == b->n) {
        if (b->n == MAX_OP_SUMS)
            return;
        memset(&b->v[i], 0, sizeof b->v[i]);
        snprintf(b->v[b->n++].op, sizeof b->v[i].op, "%s", key);
    }
    *(uint64_t *)((char *)&b->v[i] + OP_METRICS[m].off) += (uint64_t)v;
    if (OP_METRICS[m].off == offsetof(op_sum, read))
        b->v[i].source = true;
    if (OP_METRICS[m].off == offsetof(op_sum, written))
        b->v[i].sink = true;
}

static const char *plural(uint64_t n)
{
    return n == 1 ? "" : "s";
}

/*
 * The end of every run: rows read per source and written per sink, bad
 * records the sources left out, late rows per operator (dropped or routed
 * to the late-records table), and the checkpoints.
 */
static void report_summary(weir_job *job, double secs)
{
    op_sums *b = weir_calloc(1, sizeof *b);
    if (!b)
        return;
    weir_job_metrics(job, sum_op, b);
    weir_cli_log(WEIR_LOG_INFO, "summary: the job ran %.1f s", secs);
    for (uint32_t i = 0; i < b->n; i++)
        if (b->v[i].source)
            weir_cli_log(WEIR_LOG_INFO, "summary: source %s: %" PRIu64 " row%s read", b->v[i].op, b->v[i].read,
                         plural(b->v[i].read));
    for (uint32_t i = 0; i < b->n; i++)
        if (b->v[i].sink)
            weir_cli_log(WEIR_LOG_INFO, "summary: sink %s: %" PRIu64 " row%s written", b->v[i].op, b->v[i].written,
                         plural(b->v[i].written));
    for (uint32_t i = 0; i < b->n; i++) {
        const char *op = b->v[i].op;
        if (b->v[i].skipped)
            weir_cli_log(WEIR_LOG_WARN, "source %s: %" PRIu64 " bad record%s skipped", op, b->v[i].skipped,
                         plural(b->v[i].skipped));
        if (b->v[i].dead_letter)
            weir_cli_log(WEIR_LOG_WARN, "source %s: %" PRIu64 " bad record%s written to the dead-letter file", op,
                         b->v[i].dead_letter, plural(b->v[i].dead_letter));
        uint64_t routed = b->v[i].late_routed;
        uint64_t dropped = b->v[i].late_dropped + (b->v[i].late > routed ? b->v[i].late - routed : 0);
        if (dropped)
            weir_cli_log(WEIR_LOG_WARN, "summary: operator %s: %" PRIu64 " late row%s dropped", op, dropped,
                         plural(dropped));
        if (routed)
            weir_cli_log(WEIR_LOG_WARN, "summary: operator %s: %" PRIu64 " late row%s routed to the late-records table",
                         op, routed, plural(routed));
        if (b->v[i].top1_skipped)
            weir_cli_log(WEIR_LOG_INFO,
                         "summary: operator %s: %" PRIu64 " row%s neither joined nor stored (its Top-1 would drop them)",
                         op, b->v[i].top1_skipped, plural(b->v[i].top1_skipped));
    }
    weir_free(b);
    weir_checkpoint_stats st;
    if (weir_job_checkpoint_stats(job, &st) != 0) {
        weir_cli_log(WEIR_LOG_INFO, "summary: checkpoints: none (state.checkpoints.dir is not set)");
        return;
    }
    char last[128] = "";
    if (st.last_id)
        snprintf(last, sizeof last, ", last chk-%" PRIu64 " (%" PRIu64 " bytes, %" PRId64 " ms)", st.last_id,
                 st.last_size_bytes, st.last_duration_ms);
    weir_cli_log(st.failed ? WEIR_LOG_WARN : WEIR_LOG_INFO,
                 "summary: checkpoints: %" PRIu64 " completed, %" PRIu64 " failed%s%s%s", st.completed, st.failed,
                 last, st.failed && st.last_failure[0] ? "; last failure: " : "",
                 st.failed ? st.last_failure : "");
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
static void rest_line(void *ud, bool warn, const char *text)
{
    (void)ud;
    weir_cli_log(warn ? WEIR_LOG_WARN : WEIR_LOG_INFO, "%s", text);
}

static int start_rest(weir_sql_job *sj, weir_job *job, const char *file, const char *job_id,
                      weir__cluster_view *cluster, weir_rest **out)
{
    weir_rest_config cfg;
    weir_error err = {0};
    *out = NULL;
    if (weir_rest_config_load(&cfg, sql_config, sj, file, &err)) {
        weir_cli_log(WEIR_LOG_ERROR, "%s", err.message);
        return WEIR_EXIT_INVALID;
    }
    cfg.log_line = rest_line;
    snprintf(cfg.job_id, sizeof cfg.job_id, "%s", job_id);
    if (cluster) {
        cfg.cluster_json = weir__cluster_view_json;
        cfg.cluster_ud = cluster;
    }
    if (weir_rest_start(job, &cfg, out, &err)) {
        weir_cli_log(cfg.enabled_explicitly ? WEIR_LOG_ERROR : WEIR_LOG_WARN, "%s%s", err.message,
                     cfg.enabled_explicitly ? "" : " (the job runs without the HTTP endpoint; rest.enabled = false hides this)");
        if (cfg.enabled_explicitly)
            return WEIR_EXIT_FAILED;
        cfg.enabled = false; /* still watch the watermarks */
        if (weir_rest_start(job, &cfg, out, &err))
            *out = NULL;
    }
    return WEIR_EXIT_OK;
}

typedef struct waiter {
    weir_job *job;
    int rc;
    bool done;
    pthread_mutex_t mu;
    pthread_cond_t cv; /* on CLOCK_MONOTONIC */
} waiter;

static void *wait_job(void *arg)
{
    waiter *w = arg;
    int rc = weir_job_wait(w->job);
    pthread_mutex_lock(&w->mu);
    w->rc = rc;
    w->done = true;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* One line of progress: the terminal's status line, or a log line. */
static void format_progress(weir_job *job, int64_t t0, double *last_out, int64_t *last_t, char *line,
                            size_t cap)
{
    status_sums s = {.newest = (double)INT64_MIN};
    weir_job_metrics(job, sum_metric, &s);
    int64_t now = weir_monotonic_ns();
    double dt = (double)(now - *last_t) / 1e9;
    double rate = dt > 0 ? (s.out - *last_out) / dt : 0;
    *last_out = s.out;
    *last_t = now;
    char wm[64], lag[48] = "";
    format_wm(s.have_wm ? s.wm : (double)INT64_MIN, wm, sizeof wm);
    if (s.have_wm && s.newest > (double)INT64_MIN / 2 && s.wm > (double)INT64_MIN / 2 && s.wm < (double)INT64_MAX / 2)
        snprintf(lag, sizeof lag, " (%.1f s behind the newest event)", (s.newest - s.wm) / 1000.0);
    snprintf(line, cap, "in %.0f  out %.0f  %.0f rows/s  watermark %s%s  %.1f s", s.in, s.out, rate, wm, lag,
             (double)(now - t0) / 1e9);
}

/*
 * Waits for the job. On a terminal a status line is refreshed twice a
 * second; otherwise a progress line is logged every interval_ms (0: none).
 */
static int watch_job(weir_job *job, bool tty, int64_t interval_ms, int64_t t0)
{
    waiter w = {.job = job};
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&w.mu, NULL);
    pthread_cond_init(&w.cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_t th;
    int64_t tick_ns = tty ? 500 * 1000 * 1000LL : interval_ms * 1000 * 1000;
    int rc;
    if ((!tty && interval_ms <= 0) || pthread_create(&th, NULL, wait_job, &w) != 0) {
        rc = weir_job_wait(job);
    } else {
        double last_out = 0;
        int64_t last_t = t0, next = t0 + tick_ns;
        pthread_mutex_lock(&w.mu);
        while (!w.done) {
            struct timespec until = {(time_t)(next / 1000000000LL), (long)(next % 1000000000LL)};
            if (pthread_cond_timedwait(&w.cv, &w.mu, &until) == 0 || w.done)
                continue;
            pthread_mutex_unlock(&w.mu);
            char line[400];
            format_progress(job, t0, &last_out, &last_t, line, sizeof line);
            if (tty)
                weir_cli_log_status(line);
            else
                weir_cli_log(WEIR_LOG_INFO, "progress: %s", line);
            next += tick_ns;
            int64_t now = weir_monotonic_ns();
            if (next < now) /* a slow metrics walk: skip ticks, never bunch them */
                next = now + tick_ns;
            pthread_mutex_lock(&w.mu);
        }
        pthread_mutex_unlock(&w.mu);
        if (tty)
            weir_cli_log_status(NULL);
        pthread_join(th, NULL);
        rc = w.rc;
    }
    pthread_cond_destroy(&w.cv);
    pthread_mutex_destroy(&w.mu);
    return rc;
}

/* log.format, log.level, log.progress.interval; an exit code. */
static int configure_logging(weir_sql_job *sj, int64_t *interval_ms)
{
    char msg[256];
    if (weir_cli_log_configure(weir_sql_job_config(sj, "log.format"), weir_sql_job_config(sj, "log.level"), msg,
                               sizeof msg)) {
        fprintf(stderr, "weir: %s\n", msg);
        return WEIR_EXIT_INVALID;
    }
    *interval_ms = 10000;
    const char *v = weir_sql_job_config(sj, "log.progress.interval");
    if (v && weir_option_parse_duration(v, interval_ms) != 0) {
        fprintf(stderr, "weir: log.progress.interval: '%s' is not a duration (e.g. 10s, 500ms; 0 turns it off)\n",
                v);
        return WEIR_EXIT_INVALID;
    }
    return WEIR_EXIT_OK;
}

/* Warnings of the planner, one log line each. */
static void log_lines(int level, const char *text)
{
    while (*text) {
        const char *nl = strchr(text, '\n');
        size_t n = nl ? (size_t)(nl - text) : strlen(text);
        if (n)
            weir_cli_log(level, "%.*s", (int)n, text);
        text += n + (nl != NULL);
    }
}

/* The job's name in weir list: pipeline.name, else the script's file name. */
static void job_name(weir_sql_job *sj, const char *file, char *buf, size_t cap)
{
    const char *n = weir_sql_job_config(sj, "pipeline.name");
    if (n && *n) {
        snprintf(buf, cap, "%s", n);
        return;
    }
    const char *base = strrchr(file, '/');
    snprintf(buf, cap, "%s", base ? base + 1 : file);
    size_t l = strlen(buf);
    if (l > 4 && !strcmp(buf + l - 4, ".sql"))
        buf[l - 4] = '\0';
}

/* path as an absolute path (file:// dropped), for other processes to read. */
static void absolute(const char *path, char *out, size_t cap)
{
    if (!strncmp(path, "file://", 7))
        path += 7;
    char cwd[2048], *real = realpath(path, NULL);
    if (real) {
        snprintf(out, cap, "%s", real);
        free(real);
        return;
    }
    if (path[0] != '/' && getcwd(cwd, sizeof cwd))
        snprintf(out, cap, "%s/%s", cwd, path);
    else
        snprintf(out, cap, "%s", path);
}

/*
 * The job id of this run, made once before its first attempt and kept by
 * every restart (weir list, SHOW JOBS, the REST API and the metrics show
 * it): a job run by several processes (weir.cluster.bootstrap-servers)
 * takes it from the servers and its group id, so that all its processes
 * carry the same one.
 */
static void make_job_id(weir_sql_job *sj, int64_t started_ms, char out[33])
{
    const char *servers = weir_sql_job_config(sj, "weir.cluster.bootstrap-servers");
    const char *group = weir_sql_job_config(sj, "weir.cluster.group-id");
    if (!group || !*group)
        group = weir_sql_job_config(sj, "pipeline.name");
    if (servers && *servers && group && *group) {
        char key[2048];
        snprintf(key, sizeof key, "%s\n%s", servers, group);
        weir__registry_make_job_id(0, 0, key, out);
    } else {
        weir__registry_make_job_id((long)getpid(), started_ms, NULL, out);
    }
}

static void register_job(weir_sql_job *sj, const char *file, int64_t started_ms, const char *job_id)
{
    char name[256], abs_file[4096], ck[4096] = "", sp[4096] = "";
    job_name(sj, file, name, sizeof name);
    absolute(file, abs_file, sizeof abs_file);
    const char *v = weir_sql_job_config(sj, "state.checkpoints.dir");
    if (v || (v = weir_sql_job_config(sj, "execution.checkpointing.dir")))
        absolute(v, ck, sizeof ck);
    if ((v = weir_sql_job_config(sj, "state.savepoints.dir")) ||
        (v = weir_sql_job_config(sj, "execution.checkpointing.savepoint-dir")))
        absolute(v, sp, sizeof sp);
    weir_error err = {0};
    if (weir__registry_add(name, abs_file, ck, sp, started_ms, job_id, &err))
        weir_cli_log(WEIR_LOG_WARN, "%s: weir list, stop, cancel and savepoint will not see this job", err.message);
}

/* The job's options as the cluster reads them: --from is the savepoint the
 * processes restore (execution.savepoint.path), on every attempt (a run
 * again before any checkpoint of the job completed restores it again). */
typedef struct cluster_opts {
    weir_sql_job *sj;
    const char *from;
} cluster_opts;

static const char *cluster_cfg(void *ud, const char *key)
{
    const cluster_opts *o = ud;
    if (o->from && !strcmp(key, "execution.savepoint.path"))
        return o->from;
    return weir_sql_job_config(o->sj, key);
}

int weir_cli_run(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: weir run JOB.sql [--config FILE] [-D key=value]... [--fresh | --from PATH]\n"
               "                [--allow-non-restored-state] [--drain-on-stop]\n\n"
               "Plans the SQL script JOB.sql and runs it as one job. Bounded inputs run to\n"
               "completion; an unbounded job runs until stopped: Ctrl-C, SIGTERM or\n"
               "weir stop JOB stop it cleanly (a second one stops it at once).\n\n"
               "  --config FILE    read configuration from a YAML file (Flink's config.yaml:\n"
               "                   nested maps are dotted keys); the script's SET and -D\n"
               "                   override it\n"
               "  -D key=value     set a configuration key, overriding the script's SET\n"
               "                   (e.g. -D parallelism.default=4)\n"
               "  --fresh          with state.checkpoints.dir set, start over instead of\n"
               "                   resuming from the newest checkpoint there\n"
               "  --from PATH      restore a checkpoint or savepoint\n"
               "  --allow-non-restored-state\n"
               "                   restore a checkpoint whose operators do not all match the\n"
               "                   job (a changed query), dropping the state of those that\n"
               "                   do not; without it such a checkpoint is refused\n"
               "  --drain-on-stop  a stop is an end of input: every window fires and every\n"
               "                   timer runs (without it, windows that have not fired are\n"
               "                   not emitted on a stop)\n\n"
               "With state.checkpoints.dir set the job checkpoints there, a stop takes a\n"
               "final checkpoint, and a later run resumes where it stopped; weir savepoint\n"
               "JOB takes a savepoint. Log lines go to stderr (log.format = text or json,\n"
               "log.level); when stderr is not a terminal a progress line is logged every\n"
               "log.progress.interval (default 10s), and every run ends with a summary.\n\n"
               "Exit status: 0 done, 1 the job failed, 2 usage, 3 the script does not\n"
               "parse or plan, 4 a file could not be read, 130 stopped by SIGINT, 143\n"
               "stopped by SIGTERM or weir stop/cancel.\n");
        return WEIR_EXIT_OK;
    }
    /* Before any thread exists, so that every thread inherits the mask and
     * only the stopper takes SIGINT/SIGTERM (cli/stop.c), and a savepoint
     * asked for while the job starts waits for the signal thread. */
    weir_cli_stopper_block();
    weir_cli_signals_block();
    run_args a;
    weir_sql_job *sj = NULL;
    uint32_t attempt = 0;            /* restarts made (restart-strategy) */
    char restart_from[1100] = "";
    int64_t interval_ms = 0;
    int64_t started_ms = 0; /* of the first attempt */
    char job_id[33] = "";
again:;
    /* SHOW JOBS and STOP JOB act only when the whole script plans: a first planning checks it with them
     * not acting; a script that has them is planned again, where they act (their results printed below
     * with the other statements'). A restart plans with them skipped: they acted the first time. */
    weir_sql_job_control check;
    bool met = false;
    weir_cli_job_control_check(&check, &met);
    int rc = plan("run", argc, argv, &a, attempt > 0 ? weir_cli_job_control(true) : &check, &sj);
    if (!rc && met) {
        weir_sql_job_destroy(sj);
        sj = NULL;
        free_args(&a);
        rc = plan("run", argc, argv, &a, weir_cli_job_control(false), &sj);
    }
    if (rc) {
        free_args(&a);
        weir__registry_remove(); /* a restart that ends here */
        return rc;
    }
    if ((rc = configure_logging(sj, &interval_ms))) {
        weir_sql_job_destroy(sj);
        free_args(&a);
        weir__registry_remove(); /* a restart that ends here */
        return rc;
    }
    /* The planner's warnings read as a compiler's ("file:line:col: warning: ..."),
     * as its errors do; as JSON lines when the log is JSON. */
    if (attempt == 0 && weir_cli_log_json())
        log_lines(WEIR_LOG_WARN, weir_sql_job_warnings(sj));
    else if (attempt == 0 && weir_cli_log_enabled(WEIR_LOG_WARN))
        fputs(weir_sql_job_warnings(sj), stderr);
    const char *ex = weir_sql_job_explain_output(sj);
    if (*ex && attempt == 0)
        fputs(ex, stdout);
    weir_job *job = weir_sql_job_graph(sj);
    if (!job) {
        weir_sql_job_destroy(sj);
        free_args(&a);
        weir__registry_remove(); /* a restart that ends here */
        return WEIR_EXIT_OK;
    }
    /* One of several processes running the job (cluster/cluster.h): its
     * keyed exchanges become repartition topics. */
    bool clustered = false;
    weir_error cerr = {0};
    weir__cluster_view *cluster = NULL;
    bool left = false;
    cluster_opts copts = {sj, a.from};
    if ((rc = weir__cluster_setup(job, cluster_cfg, &copts, &clustered, &left, &cluster, &cerr))) {
        /* The job went down to fewer processes without this one: done. An
         * evicted process (WEIR_ESTATE) failed. */
        weir_cli_log(left ? WEIR_LOG_INFO : WEIR_LOG_ERROR, "%s: %s", a.file, cerr.message);
        weir_sql_job_destroy(sj);
        free_args(&a);
        weir__registry_remove(); /* a restart that ends here */
        return left ? WEIR_EXIT_OK : rc == WEIR_ESTATE ? WEIR_EXIT_FAILED : WEIR_EXIT_INVALID;
    }
    if (clustered && cluster) {
        /* who this process is in the job (its index may come from the log) */
        uint32_t index = 0, processes = 0, epoch = 0;
        weir__cluster_view_self(cluster, &index, &processes, &epoch);
        weir_cli_log(WEIR_LOG_INFO, "%s: process %u of %u at epoch %u", a.file, index, processes, epoch);
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
        weir__cluster_view_free(cluster);
        weir_sql_job_destroy(sj);
        free_args(&a);
        weir__registry_remove(); /* a restart that ends here */
        return rc;
    }
    weir_cli_signals_start(job);
    if (attempt == 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        started_ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
        make_job_id(sj, started_ms, job_id);
        register_job(sj, a.file, started_ms, job_id);
    } else {
        weir__registry_set_status("RUNNING");
    }
    int64_t t0 = weir_monotonic_ns();
    int jrc = weir_job_start(job);
    weir_rest *rest = NULL;
    if (!jrc && (rc = start_rest(sj, job, a.file, job_id, clustered ? cluster : NULL, &rest))) {
        weir_job_cancel(job);
        weir_job_wait(job);
        weir_cli_stopper_end(&stopper);
        weir_cli_signals_stop();
        weir__registry_remove();
        weir__cluster_view_free(cluster);
        weir_sql_job_destroy(sj);
        free_args(&a);
        return rc;
    }
    weir__registry_set_rest_url(rest ? weir_rest_url(rest) : NULL);
    if (!jrc)
        jrc = watch_job(job, isatty(STDERR_FILENO), interval_ms, t0);
    weir_rest_stop(rest);
    weir__cluster_view_free(cluster);
    weir_cli_stopper_end(&stopper);
    weir_cli_signals_stop();
    /* The entry stays while the job restarts (RESTARTING during the delay). */
    weir__registry_set_rest_url(NULL);
    report_summary(job, (double)(weir_monotonic_ns() - t0) / 1e9);
    int exit_code = WEIR_EXIT_OK;
    weir_checkpoint_stats cs;
    if ((!jrc || jrc == WEIR_ECANCELED) && !weir_job_checkpoint_stats(job, &cs) && cs.final_given_up &&
        !weir_cli_stopper_signal(&stopper)) {
        /* a stop-with-savepoint (or an API stop) whose final checkpoint kept
         * failing: canceled without it, so nothing since the last
         * completed checkpoint was committed and no savepoint was written */
        weir_cli_log(WEIR_LOG_ERROR,
                     "the job stopped without its final checkpoint (the last failure: %s): no savepoint was "
                     "written, the output stays at the last completed checkpoint",
                     cs.last_failure);
        exit_code = WEIR_EXIT_FAILED;
    } else if (weir_cli_stopper_signal(&stopper) && (!jrc || jrc == WEIR_ECANCELED)) {
        weir_cli_stopper_report(&stopper, job);
        exit_code = weir_cli_stopper_exit_code(&stopper);
    } else if (jrc && jrc != WEIR_ECANCELED) {
        const char *msg = weir_job_error(job);
        weir_cli_log(WEIR_LOG_ERROR, "job failed: %s", msg && *msg ? msg : weir_strerror(jrc));
        exit_code = WEIR_EXIT_FAILED;
        /* restart-strategy: build the job again and resume from its last
         * checkpoint - unless the user asked the job to stop: a stop that
         * came while this attempt was failing, or during the delay, ends
         * the run instead of starting another attempt. */
        int64_t delay_ms = 0;
        int stop = weir_cli_stopper_signal(&stopper);
        if (stop) {
            weir_cli_log(WEIR_LOG_INFO, "not restarting: %s came while the job was failing",
                         weir_cli_stop_signal_name(stop));
        } else if (weir_cli_restart_due(sj, job, &attempt, restart_from, sizeof restart_from,
                                        &delay_ms)) {
            weir__registry_set_status("RESTARTING");
            if ((stop = weir_cli_stop_wait(delay_ms))) {
                weir_cli_log(WEIR_LOG_INFO, "%s: stopping; not restarting",
                             weir_cli_stop_signal_name(stop));
                exit_code = weir_cli_stop_exit_code(stop);
            } else {
                weir_sql_job_destroy(sj);
                free_args(&a);
                goto again;
            }
        }
    }
    weir__registry_remove();
    weir_sql_job_destroy(sj);
    free_args(&a);
    return exit_code;
}

int weir_cli_explain(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: weir explain JOB.sql [--config FILE] [-D key=value]...\n\n"
               "Prints the plan of JOB.sql without running it: the logical operators of\n"
               "each INSERT, then the job graph with its tasks, chaining, parallelism and\n"
               "exchanges.\n");
        return WEIR_EXIT_OK;
    }
    run_args a;
    weir_sql_job *sj = NULL;
    int rc = plan("explain", argc, argv, &a, NULL, &sj);
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
