/*
 * bench/nexmark_runner.c - runs Nexmark queries and measures them the way
 * stream engines publish their Nexmark numbers.
 *
 * For each chosen query and each repetition, a child process plans
 * bench/nexmark/<ddl> + <query>.sql (placeholders substituted as the
 * reference runner does) and runs the job to the end of its bounded input.
 * The child measures the run alone (planning excluded): wall time, and CPU
 * time of the whole process (every thread: sources, operators, sinks), so
 * events/s per core = events / CPU seconds. The parent takes the child's
 * peak RSS from wait4(). A fresh process per run keeps peak RSS per query
 * honest and isolates a query that crashes or times out.
 *
 * Checkpoints (--checkpoint-interval MS): the job checkpoints as `weir run`
 * does with execution.checkpointing.interval (weir/checkpoint.h), into a
 * fresh folder under --checkpoint-dir (default: $TMPDIR or /tmp) that is
 * removed after the run. A monitor thread reads the coordinator's counters
 * and records every completed checkpoint: its duration (trigger to
 * metadata written), the synchronous part (trigger to the last subtask's
 * acknowledgement: barriers, alignment, state serialisation) and its size.
 *
 * Results: a table on stdout (medians over the repetitions) and JSON
 * (--json, every run and the medians) for comparing commits.
 *
 *   bench_nexmark_runner [options] [QUERY...]
 * QUERY is a name under the query directory (q0, q5_hop, ...); default: all
 * of q0..q22. See usage() for the options.
 */
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "weir/checkpoint.h"
#include "weir/nexmark.h"
#include "weir/planner.h"
#include "weir/weir.h"

#define MAX_QUERIES 64
#define MAX_SETS 32
#define MAX_REPEAT 15

typedef struct options {
    const char *dir;        /* folder of the .sql files */
    const char *ddl;        /* ddl file name in dir */
    int64_t events;         /* events.num */
    int64_t tps;            /* first/next-event.rate */
    uint32_t proportions[3];
    uint32_t parallelism;
    uint32_t repeat;
    int64_t ckpt_interval_ms;
    const char *ckpt_dir;   /* parent of the per-run checkpoint folders */
    int timeout_s;          /* per run */
    const char *json;       /* output path or NULL */
    const char *label;      /* free text stored in the JSON (e.g. a commit) */
    const char *queries[MAX_QUERIES];
    uint32_t n_queries;
    const char *set_keys[MAX_SETS], *set_values[MAX_SETS];
    size_t n_set;
    bool verbose;
} options;

/* What a child reports through its pipe. Plain data, fixed size. */
typedef struct run_result {
    int status; /* 0 ok, 1 plan error, 2 run error */
    double wall_s, cpu_s, user_s, sys_s;
    double rows_out;
    uint32_t n_ckpt, n_ckpt_failed;
    double ckpt_ms_median, ckpt_ms_max, ckpt_sync_ms_median;
    double ckpt_pause_ms_max; /* longest pause of a subtask at a barrier */
    uint64_t ckpt_bytes_max;
    char error[600];
} run_result;

/* What the parent adds. */
typedef struct run_record {
    run_result r;
    long peak_rss_kb;
    bool timed_out, crashed;
} run_record;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: bench_nexmark_runner [options] [QUERY...]\n"
            "  QUERY                 a .sql name in the query folder (q0 ... q22, q5_hop); default q0..q22\n"
            "  --dir DIR             query folder (default: bench/nexmark)\n"
            "  --ddl FILE            table definitions in DIR (default: ddl.sql; ddl_event.sql = the\n"
            "                        reference's one-table-plus-views shape)\n"
            "  --events N            events.num, events of all kinds (default 10000000)\n"
            "  --tps N               events per second of event time (default 10000000, the reference's)\n"
            "  --parallelism P       parallelism.default (default 1)\n"
            "  --repeat R            runs per query; the table shows medians (default 3)\n"
            "  --checkpoint-interval MS  checkpoint every MS ms and time the checkpoints (default: none)\n"
            "  --checkpoint-dir DIR  where the runs' checkpoint folders go (default: $TMPDIR or /tmp)\n"
            "  --timeout S           seconds per run before it is killed (default 600)\n"
            "  --json PATH           write every run and the medians as JSON\n"
            "  --label TEXT          stored in the JSON (e.g. the commit)\n"
            "  -D key=value          configuration for the planner (e.g. -D weir.batch-size=4096);\n"
            "                        table.exec.mini-batch.enabled is true unless set, as in the reference\n"
            "  -v                    print the job's metrics after each run\n");
}

static int parse_i64(const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < 0)
        return -1;
    *out = v;
    return 0;
}

static int parse_options(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->dir = "bench/nexmark";
    o->ddl = "ddl.sql";
    o->events = 10000000;
    o->tps = 10000000;
    o->proportions[0] = 1;
    o->proportions[1] = 3;
    o->proportions[2] = 46;
    o->parallelism = 1;
    o->repeat = 3;
    o->timeout_s = 600;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int64_t n;
#define NEEDV()                                                                                                        \
    do {                                                                                                               \
        if (!v) {                                                                                                      \
            fprintf(stderr, "%s needs a value\n", a);                                                                  \
            return -1;                                                                                                 \
        }                                                                                                              \
        i++;                                                                                                           \
    } while (0)
#define NEEDN(lo, hi)                                                                                                  \
    do {                                                                                                               \
        NEEDV();                                                                                                       \
        if (parse_i64(v, &n) || n < (lo) || n > (hi)) {                                                                \
            fprintf(stderr, "%s: expected a number in [%lld, %lld], got '%s'\n", a, (long long)(lo),                  \
                    (long long)(hi), v);                                                                               \
            return -1;                                                                                                 \
        }                                                                                                              \
    } while (0)
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(a, "--dir")) {
            NEEDV();
            o->dir = v;
        } else if (!strcmp(a, "--ddl")) {
            NEEDV();
            o->ddl = v;
        } else if (!strcmp(a, "--events")) {
            NEEDN(1, INT64_C(1) << 50);
            o->events = n;
        } else if (!strcmp(a, "--tps")) {
            NEEDN(1, UINT32_MAX);
            o->tps = n;
        } else if (!strcmp(a, "--parallelism")) {
            NEEDN(1, 1024);
            o->parallelism = (uint32_t)n;
        } else if (!strcmp(a, "--repeat")) {
            NEEDN(1, MAX_REPEAT);
            o->repeat = (uint32_t)n;
        } else if (!strcmp(a, "--checkpoint-interval")) {
            NEEDN(1, INT64_C(1) << 40);
            o->ckpt_interval_ms = n;
        } else if (!strcmp(a, "--checkpoint-dir")) {
            NEEDV();
            o->ckpt_dir = v;
        } else if (!strcmp(a, "--timeout")) {
            NEEDN(1, 86400);
            o->timeout_s = (int)n;
        } else if (!strcmp(a, "--json")) {
            NEEDV();
            o->json = v;
        } else if (!strcmp(a, "--label")) {
            NEEDV();
            o->label = v;
        } else if (!strcmp(a, "-D")) {
            NEEDV();
            const char *eq = strchr(v, '=');
            if (!eq || eq == v || o->n_set == MAX_SETS) {
                fprintf(stderr, "-D expects key=value (at most %d), got '%s'\n", MAX_SETS, v);
                return -1;
            }
            o->set_keys[o->n_set] = weir_strndup(v, (size_t)(eq - v));
            o->set_values[o->n_set++] = eq + 1;
        } else if (!strcmp(a, "-v")) {
            o->verbose = true;
        } else if (a[0] == '-') {
            fprintf(stderr, "unknown option '%s'\n", a);
            usage(stderr);
            return -1;
        } else {
            if (o->n_queries == MAX_QUERIES) {
                fprintf(stderr, "too many queries\n");
                return -1;
            }
            o->queries[o->n_queries++] = a;
        }
#undef NEEDV
#undef NEEDN
    }
    if (o->n_queries == 0) {
        static char names[23][16];
        for (int q = 0; q <= 22; q++) {
            snprintf(names[q], sizeof names[q], "q%d", q);
            o->queries[o->n_queries++] = names[q];
        }
    }
    return 0;
}

/* ---- SQL text ---- */

static char *read_text(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    weir_buf b;
    weir_buf_init(&b);
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        weir_buf_put(&b, chunk, n);
    bool bad = ferror(f);
    fclose(f);
    weir_buf_put(&b, "", 1);
    if (bad || !b.data) {
        weir_buf_fini(&b);
        return NULL;
    }
    *len = b.len - 1;
    return (char *)b.data;
}

static unsigned count_lines(const char *s, size_t n)
{
    unsigned k = 0;
    for (size_t i = 0; i < n; i++)
        k += s[i] == '\n';
    return k;
}

/*
 * ddl + "\n" + query with the reference runner's placeholders replaced;
 * ${NEXMARK_DIR} (where q10 writes its files) is out_dir, a temporary
 * folder of this run, ${SUBMIT_TIME} the query's name, and ${NEXMARK_DATA}
 * the folder of the query files (q13 reads its side input from there).
 */
static int build_script(const options *o, const char *query, const char *out_dir, weir_buf *out,
                        unsigned *ddl_lines, char *err, size_t errlen)
{
    char path[4096];
    size_t dl, ql;
    snprintf(path, sizeof path, "%s/%s", o->dir, o->ddl);
    char *ddl = read_text(path, &dl);
    if (!ddl) {
        snprintf(err, errlen, "cannot read %.400s: %s", path, strerror(errno));
        return -1;
    }
    snprintf(path, sizeof path, "%s/%s.sql", o->dir, query);
    char *q = read_text(path, &ql);
    if (!q) {
        snprintf(err, errlen, "cannot read %.400s: %s", path, strerror(errno));
        weir_free(ddl);
        return -1;
    }
    *ddl_lines = count_lines(ddl, dl) + 1;
    char vals[8][4096];
    snprintf(vals[0], sizeof vals[0], "%" PRId64, o->tps);
    snprintf(vals[1], sizeof vals[1], "%" PRId64, o->events);
    for (int i = 0; i < 3; i++)
        snprintf(vals[2 + i], sizeof vals[2 + i], "%" PRIu32, o->proportions[i]);
    snprintf(vals[5], sizeof vals[5], "%s", out_dir);
    snprintf(vals[6], sizeof vals[6], "%s", query);
    snprintf(vals[7], sizeof vals[7], "%s", o->dir);
    static const char *const names[8] = {"${TPS}",           "${EVENTS_NUM}",      "${PERSON_PROPORTION}",
                                         "${AUCTION_PROPORTION}", "${BID_PROPORTION}", "${NEXMARK_DIR}",
                                         "${SUBMIT_TIME}",   "${NEXMARK_DATA}"};
    const char *parts[2] = {ddl, q};
    weir_buf_init(out);
    for (int p = 0; p < 2; p++) {
        const char *s = parts[p];
        while (*s) {
            int hit = -1;
            if (*s == '$')
                for (int k = 0; k < 8; k++)
                    if (!strncmp(s, names[k], strlen(names[k])))
                        hit = k;
            if (hit >= 0) {
                weir_buf_put(out, vals[hit], strlen(vals[hit]));
                s += strlen(names[hit]);
            } else {
                weir_buf_put(out, s, 1);
                s++;
            }
        }
        if (p == 0)
            weir_buf_put(out, "\n", 1);
    }
    weir_free(ddl);
    weir_free(q);
    return 0;
}

/* "FILE:LINE:COL: error" with LINE in the query file rather than the script. */
static void relocate_error(const char *msg, const char *query, unsigned ddl_lines, char *out, size_t n)
{
    const char *tag = "<nexmark>:";
    if (strncmp(msg, tag, strlen(tag))) {
        snprintf(out, n, "%s", msg);
        return;
    }
    char *end;
    unsigned long line = strtoul(msg + strlen(tag), &end, 10);
    if (*end != ':' || line == 0) {
        snprintf(out, n, "%s", msg);
        return;
    }
    if (line > ddl_lines)
        snprintf(out, n, "%s.sql:%lu%s", query, line - ddl_lines, end);
    else
        snprintf(out, n, "ddl:%lu%s", line, end);
}

/* ---- checkpoint monitor ---- */

typedef struct ckpt_monitor {
    weir_job *job;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool stop;
    uint64_t last_id;
    double *ms, *sync_ms;
    uint32_t n, cap;
    uint64_t max_bytes, failed;
    double pause_max_ms;
} ckpt_monitor;

/* Records the newest completed checkpoint if it is new. */
static void monitor_poll(ckpt_monitor *m)
{
    weir_checkpoint_stats st;
    if (weir_job_checkpoint_stats(m->job, &st))
        return;
    m->failed = st.failed;
    if (st.last_id == 0 || st.last_id == m->last_id)
        return;
    m->last_id = st.last_id;
    if (m->n == m->cap) {
        uint32_t cap = m->cap ? 2 * m->cap : 64;
        double *a = weir_realloc(m->ms, cap * sizeof *a);
        if (!a)
            return;
        m->ms = a;
        double *b = weir_realloc(m->sync_ms, cap * sizeof *b);
        if (!b)
            return;
        m->sync_ms = b;
        m->cap = cap;
    }
    m->ms[m->n] = (double)st.last_duration_ms;
    m->sync_ms[m->n] = (double)st.last_sync_ms;
    m->n++;
    if ((double)st.last_pause_us / 1000.0 > m->pause_max_ms)
        m->pause_max_ms = (double)st.last_pause_us / 1000.0;
    if (st.last_size_bytes > m->max_bytes)
        m->max_bytes = st.last_size_bytes;
}

static void deadline_after(struct timespec *ts, int64_t ns)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    ts->tv_sec += (time_t)(ns / 1000000000);
    ts->tv_nsec += (long)(ns % 1000000000);
    if (ts->tv_nsec >= 1000000000) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000;
    }
}

/* Polls every 5 ms: checkpoints are at least --checkpoint-interval apart
 * (one at a time), so none is missed for intervals above that. */
static void *monitor_main(void *arg)
{
    ckpt_monitor *m = arg;
    pthread_mutex_lock(&m->mu);
    while (!m->stop) {
        struct timespec ts;
        deadline_after(&ts, 5 * 1000000);
        pthread_cond_timedwait(&m->cv, &m->mu, &ts);
        monitor_poll(m);
    }
    pthread_mutex_unlock(&m->mu);
    return NULL;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, uint32_t n)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- one run, in the child ---- */

static double tv_s(struct timeval tv) { return (double)tv.tv_sec + (double)tv.tv_usec / 1e6; }

typedef struct metric_sums {
    double rows_out;
    bool verbose;
} metric_sums;

static void visit_metric(void *ud, const char *name, double v)
{
    metric_sums *m = ud;
    if (m->verbose)
        fprintf(stderr, "  metric %s = %.0f\n", name, v);
    /* task<T>.<operator>.<subtask>.records_in of the sink operators, which
     * are named after their connector. */
    size_t n = strlen(name);
    if (n < 11 || strcmp(name + n - 11, ".records_in"))
        return;
    static const char *const sinks[] = {".blackhole.", ".print.", ".filesystem."};
    for (size_t i = 0; i < sizeof sinks / sizeof *sinks; i++)
        if (strstr(name, sinks[i]))
            m->rows_out += v;
}

static void run_in(const options *o, const char *query, const char *out_dir, run_result *res);

static void run_child(const options *o, const char *query, run_result *res)
{
    memset(res, 0, sizeof *res);
    /* Where a query that writes files (q10) writes them; removed after. */
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char out_dir[4096];
    snprintf(out_dir, sizeof out_dir, "%.4000s/weir-nexmark-out-XXXXXX", tmp);
    if (!mkdtemp(out_dir)) {
        snprintf(res->error, sizeof res->error, "cannot create an output folder in %.400s: %s", tmp,
                 strerror(errno));
        res->status = 2;
        return;
    }
    run_in(o, query, out_dir, res);
    nftw(out_dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void run_in(const options *o, const char *query, const char *out_dir, run_result *res)
{
    weir_buf script;
    unsigned ddl_lines = 0;
    if (build_script(o, query, out_dir, &script, &ddl_lines, res->error, sizeof res->error)) {
        res->status = 1;
        return;
    }
    const char *keys[MAX_SETS + 2], *values[MAX_SETS + 2];
    char par[16];
    snprintf(par, sizeof par, "%" PRIu32, o->parallelism);
    keys[0] = "parallelism.default";
    values[0] = par;
    /* The reference runs its queries with mini-batch aggregation on (its conf/config.yaml);
     * -D table.exec.mini-batch.enabled=false overrides (later values win). */
    keys[1] = "table.exec.mini-batch.enabled";
    values[1] = "true";
    for (size_t i = 0; i < o->n_set; i++) {
        keys[i + 2] = o->set_keys[i];
        values[i + 2] = o->set_values[i];
    }
    weir_sql_job_options jo = {.set_keys = keys, .set_values = values, .n_set = o->n_set + 2};
    weir_sql_job *sj = NULL;
    weir_error err = {0};
    int rc = weir_sql_job_create("<nexmark>", (const char *)script.data, script.len, &jo, &sj, &err);
    weir_buf_fini(&script);
    if (rc || !weir_sql_job_graph(sj)) {
        if (rc)
            relocate_error(err.message, query, ddl_lines, res->error, sizeof res->error);
        else
            snprintf(res->error, sizeof res->error, "the script has nothing to run");
        res->status = 1;
        weir_sql_job_destroy(sj);
        return;
    }
    weir_job *job = weir_sql_job_graph(sj);
    ckpt_monitor m;
    memset(&m, 0, sizeof m);
    pthread_t mth;
    bool monitor_on = false;
    char ckpt_dir[4096] = "";
    if (o->ckpt_interval_ms > 0) {
        const char *parent = o->ckpt_dir ? o->ckpt_dir : getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
        snprintf(ckpt_dir, sizeof ckpt_dir, "%.4000s/weir-nexmark-ckpt-XXXXXX", parent);
        weir_checkpoint_config cc;
        weir_checkpoint_config_init(&cc);
        cc.interval_ms = o->ckpt_interval_ms;
        cc.restore = WEIR_RESTORE_FRESH;
        /* -D execution.checkpointing.* and state.checkpoints.* apply here too */
        for (size_t i = 0; i < o->n_set; i++)
            if (weir_checkpoint_config_set(&cc, o->set_keys[i], o->set_values[i], &err) == WEIR_EINVAL) {
                snprintf(res->error, sizeof res->error, "%s", err.message);
                res->status = 1;
                weir_sql_job_destroy(sj);
                return;
            }
        if (!mkdtemp(ckpt_dir)) {
            snprintf(res->error, sizeof res->error, "cannot create a checkpoint folder in %.400s: %s", parent,
                     strerror(errno));
            res->status = 2;
            weir_sql_job_destroy(sj);
            return;
        }
        cc.dir = ckpt_dir;
        if ((rc = weir_job_enable_checkpoints(job, &cc, &err))) {
            snprintf(res->error, sizeof res->error, "cannot enable checkpoints: %s", err.message);
            res->status = 2;
            nftw(ckpt_dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
            weir_sql_job_destroy(sj);
            return;
        }
        pthread_condattr_t ca;
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_mutex_init(&m.mu, NULL);
        pthread_cond_init(&m.cv, &ca);
        pthread_condattr_destroy(&ca);
        m.job = job;
    }
    struct rusage ru0, ru1;
    getrusage(RUSAGE_SELF, &ru0);
    int64_t t0 = weir_monotonic_ns();
    rc = weir_job_start(job);
    if (!rc && o->ckpt_interval_ms > 0)
        monitor_on = pthread_create(&mth, NULL, monitor_main, &m) == 0;
    if (!rc)
        rc = weir_job_wait(job);
    int64_t t1 = weir_monotonic_ns();
    getrusage(RUSAGE_SELF, &ru1);
    if (monitor_on) {
        pthread_mutex_lock(&m.mu);
        m.stop = true;
        pthread_cond_broadcast(&m.cv);
        pthread_mutex_unlock(&m.mu);
        pthread_join(mth, NULL);
        monitor_poll(&m); /* the final checkpoint, taken at the end of the input */
    }
    res->wall_s = (double)(t1 - t0) / 1e9;
    res->user_s = tv_s(ru1.ru_utime) - tv_s(ru0.ru_utime);
    res->sys_s = tv_s(ru1.ru_stime) - tv_s(ru0.ru_stime);
    res->cpu_s = res->user_s + res->sys_s;
    if (rc) {
        const char *msg = weir_job_error(job);
        snprintf(res->error, sizeof res->error, "job failed: %s", msg && *msg ? msg : weir_strerror(rc));
        res->status = 2;
    }
    metric_sums ms = {.verbose = o->verbose};
    weir_job_metrics(job, visit_metric, &ms);
    res->rows_out = ms.rows_out;
    if (o->ckpt_interval_ms > 0) {
        res->n_ckpt = m.n;
        res->n_ckpt_failed = (uint32_t)m.failed;
        res->ckpt_bytes_max = m.max_bytes;
        for (uint32_t i = 0; i < m.n; i++)
            if (m.ms[i] > res->ckpt_ms_max)
                res->ckpt_ms_max = m.ms[i];
        res->ckpt_ms_median = median(m.ms, m.n);
        res->ckpt_sync_ms_median = median(m.sync_ms, m.n);
        res->ckpt_pause_ms_max = m.pause_max_ms;
        weir_free(m.ms);
        weir_free(m.sync_ms);
        pthread_mutex_destroy(&m.mu);
        pthread_cond_destroy(&m.cv);
    }
    weir_sql_job_destroy(sj);
    if (*ckpt_dir)
        nftw(ckpt_dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- the parent ---- */

static int run_one(const options *o, const char *query, run_record *rec)
{
    memset(rec, 0, sizeof *rec);
    int fd[2];
    if (pipe(fd))
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        close(fd[0]);
        alarm((unsigned)o->timeout_s);
        run_result r;
        run_child(o, query, &r);
        const char *p = (const char *)&r;
        size_t left = sizeof r;
        while (left) {
            ssize_t w = write(fd[1], p, left);
            if (w <= 0)
                _exit(3);
            p += w;
            left -= (size_t)w;
        }
        _exit(0);
    }
    close(fd[1]);
    size_t got = 0;
    char *p = (char *)&rec->r;
    while (got < sizeof rec->r) {
        ssize_t n = read(fd[0], p + got, sizeof rec->r - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd[0]);
    int st;
    struct rusage ru;
    while (wait4(pid, &st, 0, &ru) < 0 && errno == EINTR)
        ;
    rec->peak_rss_kb = ru.ru_maxrss;
    if (got != sizeof rec->r) {
        memset(&rec->r, 0, sizeof rec->r);
        rec->r.status = 2;
        if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM) {
            rec->timed_out = true;
            snprintf(rec->r.error, sizeof rec->r.error, "timed out after %d s", o->timeout_s);
        } else {
            rec->crashed = true;
            snprintf(rec->r.error, sizeof rec->r.error, "the run died (%s %d)",
                     WIFSIGNALED(st) ? "signal" : "exit", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
        }
    }
    return 0;
}

typedef struct query_summary {
    const char *name;
    const char *status; /* "ok", "unsupported", "failed", "timeout" */
    char error[600];
    run_record runs[MAX_REPEAT];
    uint32_t n_runs;
    double wall_s, cpu_s, eps, eps_core, rss_mb, rows_out, ckpt_ms, ckpt_ms_max, ckpt_sync_ms, ckpt_mb,
        ckpt_pause_ms;
    uint32_t n_ckpt;
} query_summary;

static void summarize(const options *o, query_summary *q)
{
    double w[MAX_REPEAT], c[MAX_REPEAT], e[MAX_REPEAT], ec[MAX_REPEAT], r[MAX_REPEAT], k[MAX_REPEAT],
        km[MAX_REPEAT], kb[MAX_REPEAT], kn[MAX_REPEAT], ks[MAX_REPEAT], kp[MAX_REPEAT];
    uint32_t n = 0, nk = 0;
    for (uint32_t i = 0; i < q->n_runs; i++) {
        const run_record *rr = &q->runs[i];
        if (rr->r.status)
            continue;
        w[n] = rr->r.wall_s;
        c[n] = rr->r.cpu_s;
        e[n] = (double)o->events / rr->r.wall_s;
        ec[n] = rr->r.cpu_s > 0 ? (double)o->events / rr->r.cpu_s : 0;
        r[n] = (double)rr->peak_rss_kb / 1024.0;
        n++;
        if (rr->r.n_ckpt) {
            k[nk] = rr->r.ckpt_ms_median;
            km[nk] = rr->r.ckpt_ms_max;
            ks[nk] = rr->r.ckpt_sync_ms_median;
            kp[nk] = rr->r.ckpt_pause_ms_max;
            kb[nk] = (double)rr->r.ckpt_bytes_max / (1024.0 * 1024.0);
            nk++;
        }
        kn[n - 1] = rr->r.n_ckpt;
        q->rows_out = rr->r.rows_out;
    }
    q->n_ckpt = (uint32_t)median(kn, n);
    q->wall_s = median(w, n);
    q->cpu_s = median(c, n);
    q->eps = median(e, n);
    q->eps_core = median(ec, n);
    q->rss_mb = median(r, n);
    q->ckpt_ms = median(k, nk);
    q->ckpt_ms_max = median(km, nk);
    q->ckpt_sync_ms = median(ks, nk);
    q->ckpt_pause_ms = median(kp, nk);
    q->ckpt_mb = median(kb, nk);
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

static void cpu_model(char *out, size_t n)
{
    snprintf(out, n, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "model name", 10)) {
            char *c = strchr(line, ':');
            if (c) {
                c += 1 + (c[1] == ' ');
                c[strcspn(c, "\n")] = 0;
                snprintf(out, n, "%s", c);
            }
            break;
        }
    }
    fclose(f);
}

static void write_json(const options *o, const query_summary *qs, uint32_t nq, const double load[2])
{
    FILE *f = fopen(o->json, "w");
    if (!f) {
        fprintf(stderr, "cannot write %s: %s\n", o->json, strerror(errno));
        return;
    }
    char cpu[256];
    cpu_model(cpu, sizeof cpu);
    time_t now = time(NULL);
    char when[64];
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    fprintf(f, "{\n  \"benchmark\": \"nexmark\",\n  \"date\": \"%s\",\n  \"label\": ", when);
    json_str(f, o->label ? o->label : "");
    fprintf(f, ",\n  \"machine\": {\"cpu\": ");
    json_str(f, cpu);
    fprintf(f, ", \"online_cpus\": %ld, \"load_avg_1m_before\": %.2f, \"load_avg_1m_after\": %.2f},\n",
            sysconf(_SC_NPROCESSORS_ONLN), load[0], load[1]);
    fprintf(f,
            "  \"config\": {\"events\": %" PRId64 ", \"tps\": %" PRId64 ", \"parallelism\": %" PRIu32
            ", \"repeat\": %" PRIu32 ", \"ddl\": ",
            o->events, o->tps, o->parallelism, o->repeat);
    json_str(f, o->ddl);
    fprintf(f, ", \"checkpoint_interval_ms\": %" PRId64 ", \"checkpoint_dir\": ", o->ckpt_interval_ms);
    json_str(f, o->ckpt_dir ? o->ckpt_dir : "");
    fprintf(f, ", \"set\": {");
    for (size_t i = 0; i < o->n_set; i++) {
        fprintf(f, "%s", i ? ", " : "");
        json_str(f, o->set_keys[i]);
        fprintf(f, ": ");
        json_str(f, o->set_values[i]);
    }
    fprintf(f, "}},\n  \"queries\": [\n");
    for (uint32_t i = 0; i < nq; i++) {
        const query_summary *q = &qs[i];
        fprintf(f, "    {\"query\": ");
        json_str(f, q->name);
        fprintf(f, ", \"status\": ");
        json_str(f, q->status);
        if (*q->error) {
            fprintf(f, ", \"error\": ");
            json_str(f, q->error);
        }
        if (!strcmp(q->status, "ok")) {
            fprintf(f,
                    ",\n     \"median\": {\"wall_s\": %.4f, \"cpu_s\": %.4f, \"events_per_s\": %.0f, "
                    "\"events_per_s_per_core\": %.0f, \"peak_rss_mb\": %.1f, \"rows_out\": %.0f",
                    q->wall_s, q->cpu_s, q->eps, q->eps_core, q->rss_mb, q->rows_out);
            if (o->ckpt_interval_ms > 0)
                fprintf(f,
                        ", \"checkpoints\": %" PRIu32 ", \"checkpoint_ms\": %.3f, \"checkpoint_ms_max\": %.3f, "
                        "\"checkpoint_sync_ms\": %.3f, \"checkpoint_max_mb\": %.3f, "
                        "\"checkpoint_pause_ms_max\": %.3f",
                        q->n_ckpt, q->ckpt_ms, q->ckpt_ms_max, q->ckpt_sync_ms, q->ckpt_mb, q->ckpt_pause_ms);
            fprintf(f, "},\n     \"runs\": [");
            for (uint32_t k = 0; k < q->n_runs; k++) {
                const run_record *r = &q->runs[k];
                fprintf(f,
                        "%s\n       {\"wall_s\": %.4f, \"user_s\": %.4f, \"sys_s\": %.4f, \"peak_rss_kb\": %ld, "
                        "\"rows_out\": %.0f",
                        k ? "," : "", r->r.wall_s, r->r.user_s, r->r.sys_s, r->peak_rss_kb, r->r.rows_out);
                if (o->ckpt_interval_ms > 0)
                    fprintf(f,
                            ", \"checkpoints\": %" PRIu32 ", \"checkpoints_failed\": %" PRIu32
                            ", \"checkpoint_ms_median\": %.3f, \"checkpoint_sync_ms_median\": %.3f, "
                            "\"checkpoint_max_bytes\": %" PRIu64,
                            r->r.n_ckpt, r->r.n_ckpt_failed, r->r.ckpt_ms_median, r->r.ckpt_sync_ms_median,
                            r->r.ckpt_bytes_max);
                fprintf(f, "}");
            }
            fprintf(f, "]");
        }
        fprintf(f, "}%s\n", i + 1 < nq ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    fclose(f);
}

static void load_avg(double *out)
{
    double l[3];
    *out = getloadavg(l, 1) == 1 ? l[0] : -1;
}

int main(int argc, char **argv)
{
    options o;
    if (parse_options(argc, argv, &o))
        return 2;
    static query_summary qs[MAX_QUERIES];
    double load[2];
    load_avg(&load[0]);
    printf("Nexmark: %" PRId64 " events at %" PRId64 " events/s of event time, parallelism %" PRIu32
           ", %s, median of %" PRIu32 "%s\n",
           o.events, o.tps, o.parallelism, o.ddl, o.repeat,
           o.ckpt_interval_ms > 0 ? ", checkpoints on" : "");
    printf("%-8s %-11s %9s %12s %9s %14s %9s %12s", "query", "status", "wall s", "events/s", "cpu s",
           "events/s/core", "RSS MB", "rows out");
    if (o.ckpt_interval_ms > 0)
        printf(" %6s %14s %8s %8s %9s", "ckpts", "ckpt ms", "sync ms", "max MB", "pause ms");
    printf("\n");
    for (uint32_t i = 0; i < o.n_queries; i++) {
        query_summary *q = &qs[i];
        q->name = o.queries[i];
        q->status = "ok";
        for (uint32_t k = 0; k < o.repeat; k++) {
            run_record *rec = &q->runs[q->n_runs];
            if (run_one(&o, q->name, rec)) {
                snprintf(q->error, sizeof q->error, "cannot start a run: %s", strerror(errno));
                q->status = "failed";
                break;
            }
            q->n_runs++;
            if (rec->r.status) {
                /* (memcpy: GCC's -Wrestrict cannot tell these arrays apart) */
                size_t n = strnlen(rec->r.error, sizeof rec->r.error);
                if (n >= sizeof q->error)
                    n = sizeof q->error - 1;
                memcpy(q->error, rec->r.error, n);
                q->error[n] = '\0';
                q->status = rec->r.status == 1 ? "unsupported" : rec->timed_out ? "timeout" : "failed";
                break; /* a query that does not plan or run will not on the next try either */
            }
        }
        if (!strcmp(q->status, "ok")) {
            summarize(&o, q);
            printf("%-8s %-11s %9.3f %12.0f %9.3f %14.0f %9.1f %12.0f", q->name, q->status, q->wall_s, q->eps,
                   q->cpu_s, q->eps_core, q->rss_mb, q->rows_out);
            if (o.ckpt_interval_ms > 0)
                printf(" %6" PRIu32 " %6.0f/%-7.0f %8.1f %8.2f %9.1f", q->n_ckpt, q->ckpt_ms, q->ckpt_ms_max,
                       q->ckpt_sync_ms, q->ckpt_mb, q->ckpt_pause_ms);
            printf("\n");
        } else {
            printf("%-8s %-11s %s\n", q->name, q->status, q->error);
        }
        fflush(stdout);
    }
    load_avg(&load[1]);
    printf("load average (1 min) before %.2f, after %.2f on %ld CPUs\n", load[0], load[1],
           sysconf(_SC_NPROCESSORS_ONLN));
    if (o.json)
        write_json(&o, qs, o.n_queries, load);
    for (size_t i = 0; i < o.n_set; i++)
        weir_free((void *)o.set_keys[i]);
    return 0;
}
