/*
 * examples/ride_fares.c - the window API and an unbounded job, from C.
 *
 * Part 1, bounded: taxi rides (driver, fare in cents, event time) come from
 * a CSV file (data/rides.csv), slightly out of order, with one malformed
 * line (skipped and counted by the source's bad-input policy), one refund
 * (a negative fare, dropped by a filter) and one ride that arrives 25
 * minutes late. Per driver, a hopping window of 10 minutes sliding every 5
 * computes the number of rides, the takings and the largest fare; the
 * watermark trails the newest ride by 2 minutes. The late ride goes to a
 * side output with how late it was. The window runs at parallelism 2
 * behind a keyed exchange, and the job checks its results against a plain loop over the
 * same file that applies DESIGN.md's rules directly: W = max(ts) - delay,
 * a record goes to each of its windows with end > W, a record no window
 * accepts is late.
 *
 * Part 2, unbounded: a data generator (as fast as it can) -> filter ->
 * keyed process function (a running total per driver in keyed state) ->
 * discard. It runs until its metrics show 200 000 rows read, is stopped,
 * and checks from the metrics that every row the filter passed reached the
 * process function.
 *
 * Exits non-zero on any difference. Built with weir; runs as a test (ctest,
 * from examples/).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "weir/weir.h"

#define MINUTE 60000
#define DELAY_MS (2 * MINUTE)
#define SLIDE_MS (5 * MINUTE)
#define SIZE_MS (10 * MINUTE)

/* ---- a sink that keeps the rows as text ---- */

typedef struct lines {
    char (*text)[320];
    int n, cap;
} lines;

static int lines_create(void *arg, const weir_op_info *info, void **out)
{
    (void)info;
    *out = arg; /* parallelism 1: one instance */
    return 0;
}

static int lines_process(void *op, weir_op_ctx *ctx, int input, const weir_batch *b)
{
    (void)ctx;
    (void)input;
    lines *l = op;
    for (uint32_t r = 0; r < b->n_rows; r++) {
        if (l->n == l->cap) {
            int cap = l->cap ? l->cap * 2 : 64;
            void *t = realloc(l->text, (size_t)cap * sizeof *l->text);
            if (!t)
                return WEIR_ENOMEM;
            l->text = t;
            l->cap = cap;
        }
        char *p = l->text[l->n++];
        size_t len = 0;
        for (uint32_t c = 0; c < b->schema->n_fields && len < 320; c++) {
            char v[64];
            weir_batch_format_value(b, c, r, v, sizeof v);
            len += (size_t)snprintf(p + len, 320 - len, "%s%s", c ? " " : "", v);
        }
    }
    return 0;
}

static void lines_close(void *op) { (void)op; }

static const weir_operator_class lines_sink = {.name = "lines", .process = lines_process, .close = lines_close};

static int cmp_text(const void *a, const void *b) { return strcmp(a, b); }

/* ---- the reference: the same rules as a plain loop over the file ---- */

typedef struct ride {
    char driver[16];
    int64_t fare, ts;
} ride;

typedef struct wres {
    char driver[16];
    int64_t start, count, sum, max;
} wres;

static void fmt_ts(int64_t ms, char *out, size_t cap)
{
    time_t s = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&s, &tm);
    snprintf(out, cap, "%04d-%02d-%02d %02d:%02d:%02d.%03d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
             tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(ms % 1000));
}

static int64_t parse_ts(const char *s)
{
    struct tm tm = {0};
    int ms = 0;
    if (sscanf(s, "%d-%d-%d %d:%d:%d.%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
               &tm.tm_sec, &ms) != 7)
        return INT64_MIN;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return (int64_t)timegm(&tm) * 1000 + ms;
}

/* Results as the sink formats them, sorted; returns the number of late rides. */
static int reference(const char *path, lines *out, lines *late, int *skipped)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[256];
    ride rides[256];
    int n = 0;
    *skipped = 0;
    if (!fgets(line, sizeof line, f)) { /* the header */
        fclose(f);
        return -1;
    }
    while (fgets(line, sizeof line, f) && n < 256) {
        ride r;
        char fare[32], ts[64];
        char *end;
        if (sscanf(line, "%15[^,],%31[^,],%63[^\n]", r.driver, fare, ts) != 3 ||
            (r.fare = strtoll(fare, &end, 10), *end) || (r.ts = parse_ts(ts)) == INT64_MIN) {
            (*skipped)++;
            continue;
        }
        rides[n++] = r;
    }
    fclose(f);

    wres res[512];
    int n_res = 0, n_late = 0;
    int64_t max_ts = INT64_MIN;
    for (int i = 0; i < n; i++) {
        const ride *r = &rides[i];
        int64_t w = max_ts == INT64_MIN ? INT64_MIN : max_ts - DELAY_MS;
        if (r->ts > max_ts)
            max_ts = r->ts;
        if (r->fare <= 0) /* the filter, after the source's watermark */
            continue;
        bool taken = false;
        for (int64_t s = r->ts / SLIDE_MS * SLIDE_MS; s > r->ts - SIZE_MS; s -= SLIDE_MS) {
            if (s + SIZE_MS <= w) /* this window has fired */
                continue;
            taken = true;
            int k = 0;
            while (k < n_res && !(res[k].start == s && !strcmp(res[k].driver, r->driver)))
                k++;
            if (k == n_res) {
                res[n_res] = (wres){.start = s};
                strcpy(res[n_res++].driver, r->driver);
            }
            res[k].count++;
            res[k].sum += r->fare;
            if (r->fare > res[k].max)
                res[k].max = r->fare;
        }
        if (!taken) {
            char t[80], wm[80];
            fmt_ts(r->ts, t, sizeof t);
            fmt_ts(w, wm, sizeof wm);
            snprintf(late->text[n_late++], 320, "%.15s %lld %.40s %.40s %lld", r->driver, (long long)r->fare, t, wm,
                     (long long)(w - r->ts));
        }
    }
    for (int k = 0; k < n_res; k++) {
        char a[80], b[80];
        fmt_ts(res[k].start, a, sizeof a);
        fmt_ts(res[k].start + SIZE_MS, b, sizeof b);
        snprintf(out->text[k], 320, "%.15s %.40s %.40s %lld %lld %lld", res[k].driver, a, b, (long long)res[k].count,
                 (long long)res[k].sum, (long long)res[k].max);
    }
    out->n = n_res;
    late->n = n_late;
    qsort(out->text, (size_t)out->n, sizeof *out->text, cmp_text);
    return n_late;
}

static int compare(const char *what, lines *got, lines *want)
{
    qsort(got->text, (size_t)got->n, sizeof *got->text, cmp_text);
    int bad = got->n != want->n;
    for (int i = 0; i < got->n || i < want->n; i++) {
        const char *g = i < got->n ? got->text[i] : "(none)", *w = i < want->n ? want->text[i] : "(none)";
        if (strcmp(g, w)) {
            fprintf(stderr, "%s row %d: got '%s', expected '%s'\n", what, i, g, w);
            bad = 1;
        }
    }
    return bad;
}

typedef struct metric_find {
    const char *suffix;
    double sum;
} metric_find;

static void metric_sum(void *ud, const char *name, double value)
{
    metric_find *m = ud;
    size_t n = strlen(name), k = strlen(m->suffix);
    if (n >= k && !strcmp(name + n - k, m->suffix))
        m->sum += value;
}

static double metric(weir_job *job, const char *suffix)
{
    metric_find m = {suffix, 0};
    weir_job_metrics(job, metric_sum, &m);
    return m.sum;
}

/* ---- part 1: windows over a CSV file ---- */

static bool positive_fare(void *ud, const weir_batch *b, uint32_t row)
{
    (void)ud;
    return !weir_batch_is_null(b, 1, row) && WEIR_COL_I64(b, 1)[row] > 0;
}

static int part1(void)
{
    weir_schema *rides = weir_schema_create();
    weir_schema_add(rides, "driver", weir_type_make(WEIR_TYPE_STRING, false));
    weir_schema_add(rides, "fare_cents", weir_type_make(WEIR_TYPE_BIGINT, true));
    rides->rowtime = weir_schema_add(rides, "ts", weir_type_make(WEIR_TYPE_TIMESTAMP, false));

    weir_job_config cfg;
    weir_job_config_init(&cfg);
    cfg.parallelism = 2;
    cfg.batch_size = 8;
    weir_job *job;
    if (weir_job_create(&cfg, &job))
        return 1;

    weir_file_source_config fc;
    weir_file_source_config_init(&fc);
    fc.path = "data/rides.csv";
    weir_format_options_init(&fc.format, WEIR_FORMAT_CSV);
    fc.format.csv_header = true;
    fc.on_bad_input = WEIR_BAD_INPUT_SKIP;
    weir_source_spec src;
    weir_error err = {0};
    if (weir_file_source_spec(&fc, rides, &src, &err)) {
        fprintf(stderr, "file source: %s\n", err.message);
        return 1;
    }
    weir_watermark_spec wm = {.kind = WEIR_WATERMARK_BOUNDED, .delay_ms = DELAY_MS};

    weir_window_spec spec;
    weir_window_spec_init(&spec);
    spec.assigner = weir_window_hopping(SLIDE_MS, SIZE_MS, 0);
    spec.key.n = 1;
    spec.key.cols[0] = 0;
    weir_agg aggs[3];
    const char *names[] = {"rides", "takings", "top_fare"};
    if (weir_agg_bind("COUNT", rides, -1, 0, &aggs[0], &err) || weir_agg_bind("SUM", rides, 1, 0, &aggs[1], &err) ||
        weir_agg_bind("MAX", rides, 1, 0, &aggs[2], &err)) {
        fprintf(stderr, "aggregates: %s\n", err.message);
        return 1;
    }
    spec.aggs = aggs;
    spec.n_aggs = 3;
    spec.agg_names = names;

    lines out = {0}, late = {0};
    weir_operator_spec out_sink = {.name = "fares", .cls = &lines_sink, .create = lines_create, .arg = &out};
    weir_operator_spec late_sink = {.name = "late", .cls = &lines_sink, .create = lines_create, .arg = &late};
    weir_stream s, paid, win;
    /*
     * The filter runs at the source's parallelism, so it chains with it and
     * the window sits right after the first exchange: there the watermark a
     * record meets is the one its split produced before it, whatever the
     * thread timing. (Behind a second exchange, e.g. a filter spread over
     * two subtasks, parallel paths can lag each other and the watermark a
     * record meets can be lower - docs/runtime.md.)
     */
    if (weir_job_source(job, &src, &wm, 1, &s) || weir_job_filter(job, s, positive_fare, NULL, &paid) ||
        weir_job_set_parallelism(job, paid, 1) ||
        weir_job_window(job, paid, rides, &spec, 2, &win, &err) || weir_job_sink(job, win, &out_sink, 1) ||
        weir_job_sink(job, weir_stream_side(win, WEIR_WINDOW_LATE_TAG), &late_sink, 1)) {
        fprintf(stderr, "building the job failed: %s%s\n", err.message, weir_job_error(job));
        return 1;
    }
    weir_buf plan;
    weir_buf_init(&plan);
    if (weir_job_explain(job, &plan) == 0)
        printf("%s\n", (const char *)plan.data);
    weir_buf_fini(&plan);
    if (weir_job_run(job)) {
        fprintf(stderr, "the job failed: %s\n", weir_job_error(job));
        return 1;
    }
    for (int i = 0; i < out.n; i++)
        printf("%s\n", out.text[i]);
    for (int i = 0; i < late.n; i++)
        printf("late: %s\n", late.text[i]);

    lines want = {.text = calloc(512, sizeof *want.text), .cap = 512};
    lines want_late = {.text = calloc(64, sizeof *want_late.text), .cap = 64};
    int skipped = 0;
    int bad = !want.text || !want_late.text || reference(fc.path, &want, &want_late, &skipped) != 1;
    bad |= compare("window", &out, &want);
    bad |= compare("late", &late, &want_late);
    double skipped_metric = metric(job, ".skipped_records"), late_metric = metric(job, ".late_records");
    printf("skipped lines: %.0f, late rides: %.0f\n", skipped_metric, late_metric);
    if (skipped != 1 || skipped_metric != 1 || late_metric != 1) {
        fprintf(stderr, "expected one skipped line and one late ride (reference: %d skipped)\n", skipped);
        bad = 1;
    }
    weir_job_destroy(job);
    free(out.text);
    free(late.text);
    free(want.text);
    free(want_late.text);
    weir_schema_destroy(rides);
    return bad;
}

/* ---- part 2: an unbounded job, stopped after its metrics show enough ---- */

static int total_open(void *ud, weir_op_ctx *ctx, void **instance)
{
    (void)ud;
    weir_state_desc desc = {.name = "takings", .kind = WEIR_STATE_VALUE};
    return weir_op_get_state(ctx, &desc, (weir_state **)instance);
}

static int total_process(void *instance, weir_op_ctx *ctx, const weir_batch *in, uint32_t row, weir_batch *out)
{
    (void)ctx;
    (void)out;
    weir_state *st = instance;
    int64_t sum = 0;
    const void *v;
    size_t len;
    if (weir_value_get(st, NULL, 0, &v, &len) == 0)
        memcpy(&sum, v, sizeof sum);
    sum += WEIR_COL_I64(in, 1)[row];
    return weir_value_put(st, NULL, 0, &sum, sizeof sum);
}

static bool big_fare(void *ud, const weir_batch *b, uint32_t row)
{
    (void)ud;
    return WEIR_COL_I64(b, 1)[row] >= 2000;
}

static int part2(void)
{
    weir_schema *gen = weir_schema_create();
    weir_schema_add(gen, "driver", weir_type_make(WEIR_TYPE_BIGINT, false));
    weir_schema_add(gen, "fare_cents", weir_type_make(WEIR_TYPE_BIGINT, false));
    weir_job_config cfg;
    weir_job_config_init(&cfg);
    cfg.parallelism = 2;
    weir_job *job;
    if (weir_job_create(&cfg, &job))
        return 1;
    weir_datagen_field fields[] = {
        {.name = "driver", .kind = WEIR_DATAGEN_RANDOM, .has_min = true, .has_max = true, .min_i = 0, .max_i = 999},
        {.name = "fare_cents", .kind = WEIR_DATAGEN_RANDOM, .has_min = true, .has_max = true, .min_i = 300,
         .max_i = 5000},
    };
    weir_datagen_config dc;
    weir_datagen_config_init(&dc);
    dc.number_of_rows = -1; /* unbounded */
    dc.fields = fields;
    dc.n_fields = 2;
    weir_source_spec src;
    weir_operator_spec sink;
    weir_error err = {0};
    weir_blackhole_sink_config bc = {0};
    if (weir_datagen_source_spec(&dc, gen, &src, &err) || weir_blackhole_sink_spec(&bc, &sink, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    weir_watermark_spec none = {.kind = WEIR_WATERMARK_NONE};
    weir_process_fn fn = {.name = "running_total", .open = total_open, .process = total_process};
    uint32_t driver = 0;
    weir_stream s, big, totals;
    if (weir_job_source(job, &src, &none, 1, &s) || weir_job_filter(job, s, big_fare, NULL, &big) ||
        weir_job_process(job, weir_stream_key_by(big, &driver, 1), gen, &fn, &totals) ||
        weir_job_sink(job, totals, &sink, 0)) {
        fprintf(stderr, "building the job failed: %s\n", weir_job_error(job));
        return 1;
    }
    if (weir_job_start(job)) {
        fprintf(stderr, "the job did not start: %s\n", weir_job_error(job));
        return 1;
    }
    /* Poll the metrics (not a wait for event time: the job has none). */
    struct timespec tick = {0, 2000000};
    for (int i = 0; i < 30000 && metric(job, "job.records_read") < 200000; i++)
        nanosleep(&tick, NULL);
    weir_job_stop(job);
    int rc = weir_job_wait(job);
    double read = metric(job, "job.records_read");
    double passed = metric(job, ".filter.0.records_out") + metric(job, ".filter.1.records_out");
    double processed = metric(job, ".running_total.0.records_in") + metric(job, ".running_total.1.records_in");
    double backpressured = metric(job, ".backpressured_ns");
    printf("unbounded job stopped (rc %d): %.0f rows read, %.0f passed the filter, %.0f reached the keyed "
           "function, %.1f ms backpressured\n",
           rc, read, passed, processed, backpressured / 1e6);
    int bad = rc != 0 || read < 200000 || passed <= 0 || passed >= read || processed != passed;
    if (bad)
        fprintf(stderr, "unexpected metrics after stopping the unbounded job\n");
    weir_job_destroy(job);
    weir_schema_destroy(gen);
    return bad;
}

int main(void)
{
    int bad = part1();
    bad |= part2();
    return bad;
}
