/*
 * tests/tools/idle_driver.c - runs one schedule of split deliveries through
 * weir's source runtime (per-split watermarks, idleness, the subtask's
 * valve) and window operator, on a manual clock, and prints what came out.
 * tests/idle_diff.py writes the schedules and checks the output against its
 * own model of the rules.
 *
 *   weir-idle-driver < SCHEDULE > LOG
 *
 * The schedule (one item per line):
 *   splits N | delay MS | spec_idle MS | job_idle MS | batch ROWS |
 *   par N | window tumble SIZE | window hop SLIDE SIZE |
 *   window cumulate STEP SIZE | window session GAP | lateness MS |
 *   acc 0|1|2 (accumulating, discarding, retracting) | start MS |
 *   self_idle 0|1 (the splits say when they are idle: no timeout)
 *   pass MS                          a pass over the splits at that time
 *   s SPLIT FLAGS N k ts v ...       what the split delivers in that pass;
 *                                    FLAGS '-' or of b (a backlog, rows not
 *                                    read yet), i (with self_idle: it says
 *                                    it is idle after them) and e (it ends
 *                                    after them)
 *   end
 *
 * Determinism: the source subtask (parallelism 1) reads its splits in
 * order, each read of a split asks its reader until it says "nothing now",
 * and each such read is one pass of that split's script. So while a round
 * of rows fits in a read batch every open split is in the same pass, and
 * the reader that starts a pass sets the clock to the pass's time before
 * the runtime looks at it. The clock moves only there, and everything
 * downstream of the one source subtask sees its rows and watermarks in
 * order, so the output is a function of the schedule.
 *
 * The log: "W SUB WM" for each watermark a result sink subtask receives,
 * "R SUB KIND k start end count sum min max" for each result row in the
 * order it arrives, then "L k v ts watermark lateness_ms" per late row
 * (one late sink subtask; its channels interleave, so sort them).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weir/weir.h"

typedef struct rec {
    int64_t k, ts, v;
} rec;

typedef struct round {
    rec *recs;
    uint32_t n;
    bool backlog, idle, end;
} round;

typedef struct script {
    uint32_t n_splits, n_passes, cap_passes;
    int64_t *times;
    round **rounds; /* [split][pass] */
    weir_manual_clock *clock;
    char **ids;
} script;

static script SC;

static _Noreturn void die(const char *msg)
{
    fprintf(stderr, "weir-idle-driver: %s\n", msg);
    exit(2);
}

/* ---- the source: one split per script column ---- */

typedef struct reader {
    uint32_t split;
    uint32_t pass; /* the pass being read or next */
    bool started;  /* the pass's rows are out, its end not yet */
    bool backlog;  /* of the pass that ended last */
    bool idle;     /* likewise */
} reader;

static int sched_create(void *arg, const weir_source_info *info, void **out,
                        weir_error *err)
{
    (void)arg, (void)err;
    if (info->parallelism != 1)
        die("the source runs at parallelism 1");
    *out = &SC;
    return 0;
}

static int sched_discover(void *src, const char ***ids, uint32_t *n, bool *done,
                          weir_error *err)
{
    (void)err;
    static bool given;
    script *sc = src;
    *ids = given ? NULL : (const char **)sc->ids;
    *n = given ? 0 : sc->n_splits;
    given = true;
    *done = true;
    return 0;
}

static int sched_open(void *src, const char *id, const void *pos, size_t len,
                      void **out, weir_error *err)
{
    (void)src, (void)pos, (void)len, (void)err;
    reader *r = calloc(1, sizeof *r);
    if (!r)
        return WEIR_ENOMEM;
    r->split = (uint32_t)strtoul(id + 1, NULL, 10);
    *out = r;
    return 0;
}

static int sched_read(void *rd, weir_batch *out, uint32_t max_rows,
                      weir_error *err)
{
    (void)err;
    reader *r = rd;
    if (r->pass >= SC.n_passes)
        die("a split was read past the last pass");
    const round *rn = &SC.rounds[r->split][r->pass];
    if (!r->started) {
        r->started = true;
        weir_manual_clock_set(SC.clock, SC.times[r->pass]);
        if (rn->n > 0) {
            /* The runtime asks again only while the batch has room; a pass
             * that filled it would spill into the next pass. */
            if (rn->n >= max_rows)
                die("a pass's rows do not fit a read batch");
            for (uint32_t i = 0; i < rn->n; i++) {
                int row = weir_batch_append_row(out);
                if (row < 0)
                    return row;
                WEIR_COL_I64(out, 0)[row] = rn->recs[i].k;
                WEIR_COL_I64(out, 1)[row] = rn->recs[i].v;
                out->ts[row] = rn->recs[i].ts;
            }
            return (int)rn->n;
        }
    }
    r->started = false;
    r->backlog = rn->backlog;
    r->idle = rn->idle;
    r->pass++;
    return rn->end ? WEIR_EOF : 0;
}

static bool sched_backlog(void *rd)
{
    return ((reader *)rd)->backlog;
}

static bool sched_idle(void *rd)
{
    return ((reader *)rd)->idle;
}

static int sched_position(void *rd, weir_buf *out)
{
    return weir_buf_put_u64(out, ((reader *)rd)->pass);
}

static void sched_close(void *rd)
{
    free(rd);
}
static void sched_destroy(void *src)
{
    (void)src;
}

static const weir_source_class SCHEDULE = {
    .name = "schedule",
    .create = sched_create,
    .discover = sched_discover,
    .open_split = sched_open,
    .read = sched_read,
    .position = sched_position,
    .close_split = sched_close,
    .destroy = sched_destroy,
    .has_backlog = sched_backlog,
};

/* ---- the sinks: a text log per subtask ---- */

typedef struct tlog {
    char *buf;
    size_t len, cap;
    uint32_t subtask;
} tlog;

typedef struct sinkset {
    tlog *logs;
    uint32_t n;
    bool late;
} sinkset;

static void logf_(tlog *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void logf_(tlog *l, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(l->buf + l->len, l->cap - l->len, fmt, ap);
        va_end(ap);
        if (n < 0)
            die("format");
        if ((size_t)n < l->cap - l->len) {
            l->len += (size_t)n;
            return;
        }
        size_t cap = (l->cap + (size_t)n + 1) * 2;
        char *b = realloc(l->buf, cap);
        if (!b)
            die("out of memory");
        l->buf = b;
        l->cap = cap;
    }
}

static int k_create(void *arg, const weir_op_info *info, void **out)
{
    sinkset *ss = arg;
    if (info->subtask >= ss->n)
        die("a sink subtask beyond its parallelism");
    ss->logs[info->subtask].subtask = info->subtask;
    *out = &ss->logs[info->subtask];
    return 0;
}

static int64_t col(const weir_batch *b, uint32_t c, uint32_t r)
{
    if (weir_batch_is_null(b, c, r))
        die("a NULL in the output");
    return WEIR_COL_I64(b, c)[r];
}

static int k_process(void *op, weir_op_ctx *ctx, int input, const weir_batch *b)
{
    (void)ctx, (void)input;
    tlog *l = op;
    static const char *const kinds[] = {"+I", "-U", "+U", "-D"};
    for (uint32_t r = 0; r < b->n_rows; r++)
        logf_(l,
              "R %u %s %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64
              " %" PRId64 " %" PRId64 "\n",
              l->subtask, kinds[b->kind[r] & 3], col(b, 0, r), col(b, 1, r),
              col(b, 2, r), col(b, 3, r), col(b, 4, r), col(b, 5, r),
              col(b, 6, r));
    return 0;
}

static int k_late(void *op, weir_op_ctx *ctx, int input, const weir_batch *b)
{
    (void)ctx, (void)input;
    tlog *l = op;
    for (uint32_t r = 0; r < b->n_rows; r++)
        logf_(l,
              "L %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 "\n",
              col(b, 0, r), col(b, 1, r), b->ts[r], col(b, 2, r), col(b, 3, r));
    return 0;
}

static int k_watermark(void *op, weir_op_ctx *ctx, weir_ts wm)
{
    (void)ctx;
    tlog *l = op;
    if (wm == WEIR_TS_MAX)
        logf_(l, "W %u MAX\n", l->subtask);
    else
        logf_(l, "W %u %" PRId64 "\n", l->subtask, wm);
    return 0;
}

static void k_close(void *op)
{
    (void)op;
}

static const weir_operator_class RESULTS = {.name = "results",
                                            .process = k_process,
                                            .watermark = k_watermark,
                                            .close = k_close};
static const weir_operator_class LATE = {
    .name = "late", .process = k_late, .close = k_close};

/* ---- the schedule ---- */

static round *round_at(uint32_t split, uint32_t pass)
{
    if (split >= SC.n_splits || pass >= SC.n_passes)
        die("a split or pass out of range");
    return &SC.rounds[split][pass];
}

static void add_pass(int64_t t)
{
    if (SC.n_passes == SC.cap_passes) {
        uint32_t cap = SC.cap_passes ? SC.cap_passes * 2 : 64;
        SC.times = realloc(SC.times, cap * sizeof *SC.times);
        for (uint32_t s = 0; s < SC.n_splits; s++) {
            SC.rounds[s] = realloc(SC.rounds[s], cap * sizeof **SC.rounds);
            if (!SC.rounds[s])
                die("out of memory");
            memset(SC.rounds[s] + SC.cap_passes, 0,
                   (cap - SC.cap_passes) * sizeof **SC.rounds);
        }
        if (!SC.times)
            die("out of memory");
        SC.cap_passes = cap;
    }
    SC.times[SC.n_passes++] = t;
}

typedef struct config {
    int64_t delay, spec_idle, job_idle, lateness, size, slide, start;
    uint32_t batch, par;
    int acc;
    char kind; /* t(umble), h(op), c(umulate), s(ession: size is the gap) */
    bool self_idle;
} config;

static void read_schedule(FILE *in, config *c)
{
    char word[32];
    while (fscanf(in, "%31s", word) == 1) {
        if (!strcmp(word, "end"))
            return;
        if (!strcmp(word, "splits")) {
            if (fscanf(in, "%u", &SC.n_splits) != 1 || SC.n_splits == 0 ||
                SC.n_splits > 64)
                die("bad splits");
            SC.rounds = calloc(SC.n_splits, sizeof *SC.rounds);
            SC.ids = calloc(SC.n_splits, sizeof *SC.ids);
            for (uint32_t s = 0; s < SC.n_splits; s++) {
                SC.ids[s] = malloc(16);
                snprintf(SC.ids[s], 16, "s%u", s);
            }
        } else if (!strcmp(word, "delay")) {
            if (fscanf(in, "%" SCNd64, &c->delay) != 1)
                die("bad delay");
        } else if (!strcmp(word, "spec_idle")) {
            if (fscanf(in, "%" SCNd64, &c->spec_idle) != 1)
                die("bad spec_idle");
        } else if (!strcmp(word, "job_idle")) {
            if (fscanf(in, "%" SCNd64, &c->job_idle) != 1)
                die("bad job_idle");
        } else if (!strcmp(word, "batch")) {
            if (fscanf(in, "%u", &c->batch) != 1)
                die("bad batch");
        } else if (!strcmp(word, "par")) {
            if (fscanf(in, "%u", &c->par) != 1 || c->par == 0)
                die("bad par");
        } else if (!strcmp(word, "window")) {
            if (fscanf(in, "%31s", word) != 1)
                die("bad window");
            c->kind = word[0];
            bool two = c->kind == 'h' || c->kind == 'c';
            if (!strchr("thcs", c->kind) ||
                (two ? fscanf(in, "%" SCNd64 " %" SCNd64, &c->slide,
                              &c->size) != 2
                     : fscanf(in, "%" SCNd64, &c->size) != 1))
                die("bad window");
        } else if (!strcmp(word, "lateness")) {
            if (fscanf(in, "%" SCNd64, &c->lateness) != 1)
                die("bad lateness");
        } else if (!strcmp(word, "acc")) {
            if (fscanf(in, "%d", &c->acc) != 1)
                die("bad acc");
        } else if (!strcmp(word, "self_idle")) {
            int v;
            if (fscanf(in, "%d", &v) != 1)
                die("bad self_idle");
            c->self_idle = v != 0;
        } else if (!strcmp(word, "start")) {
            if (fscanf(in, "%" SCNd64, &c->start) != 1)
                die("bad start");
        } else if (!strcmp(word, "pass")) {
            int64_t t;
            if (!SC.n_splits || fscanf(in, "%" SCNd64, &t) != 1)
                die("bad pass");
            add_pass(t);
        } else if (!strcmp(word, "s")) {
            uint32_t split, n;
            char flags[8];
            if (!SC.n_passes || fscanf(in, "%u %7s %u", &split, flags, &n) != 3)
                die("bad s");
            round *rn = round_at(split, SC.n_passes - 1);
            rn->backlog = strchr(flags, 'b') != NULL;
            rn->idle = strchr(flags, 'i') != NULL;
            rn->end = strchr(flags, 'e') != NULL;
            rn->n = n;
            rn->recs = n ? calloc(n, sizeof *rn->recs) : NULL;
            for (uint32_t i = 0; i < n; i++)
                if (fscanf(in, "%" SCNd64 " %" SCNd64 " %" SCNd64,
                           &rn->recs[i].k, &rn->recs[i].ts,
                           &rn->recs[i].v) != 3)
                    die("bad record");
        } else {
            die("unknown schedule item");
        }
    }
    die("the schedule has no end");
}

static weir_agg bind(const char *name, const weir_schema *s, int32_t c)
{
    weir_agg a;
    weir_error err = {0};
    if (weir_agg_bind(name, s, c, 0, &a, &err))
        die(err.message);
    return a;
}

int main(void)
{
    config c = {.batch = 1024, .par = 1, .size = 10, .start = 0, .kind = 't'};
    read_schedule(stdin, &c);
    /* Every split must end within the schedule, or the job never does. */
    for (uint32_t s = 0; s < SC.n_splits; s++) {
        bool ends = false;
        for (uint32_t p = 0; p < SC.n_passes && !ends; p++)
            ends = SC.rounds[s][p].end;
        if (!ends)
            die("a split that never ends");
    }
    SC.clock = weir_manual_clock_create(c.start);

    weir_schema *in = weir_schema_create();
    weir_schema_add(in, "k", weir_type_make(WEIR_TYPE_BIGINT, true));
    weir_schema_add(in, "v", weir_type_make(WEIR_TYPE_BIGINT, true));

    weir_job_config cfg;
    weir_job_config_init(&cfg);
    cfg.batch_size = c.batch;
    cfg.idle_timeout_ms = c.job_idle;
    cfg.clock = weir_manual_clock_get(SC.clock);
    weir_job *job;
    if (weir_job_create(&cfg, &job))
        die("job");
    /* The same class, its splits saying when they are idle. */
    weir_source_class self_idle = SCHEDULE;
    self_idle.idle = sched_idle;
    weir_source_spec ss = {.name = "schedule",
                           .cls = c.self_idle ? &self_idle : &SCHEDULE,
                           .schema = in};
    weir_watermark_spec wm = {.kind = WEIR_WATERMARK_BOUNDED,
                              .delay_ms = c.delay,
                              .idle_timeout_ms = c.spec_idle};
    weir_stream st, win;
    if (weir_job_source(job, &ss, &wm, 1, &st))
        die(weir_job_error(job));

    weir_window_spec spec;
    weir_window_spec_init(&spec);
    spec.assigner =
        c.kind == 'h'   ? weir_window_hopping(c.slide, c.size, 0)
        : c.kind == 'c' ? weir_window_cumulating(c.slide, c.size, 0)
        : c.kind == 's' ? weir_window_session(c.size, 0)
                        : weir_window_tumbling(c.size, 0);
    spec.allowed_lateness_ms = c.lateness;
    spec.accumulation = (weir_window_accumulation)c.acc;
    spec.key.n = 1;
    spec.key.cols[0] = 0;
    weir_agg aggs[4] = {bind("COUNT", in, -1), bind("SUM", in, 1),
                        bind("MIN", in, 1), bind("MAX", in, 1)};
    spec.aggs = aggs;
    spec.n_aggs = 4;
    weir_error err = {0};
    if (weir_job_window(job, st, in, &spec, c.par, &win, &err))
        die(err.message);

    sinkset res = {.logs = calloc(c.par, sizeof(tlog)), .n = c.par};
    sinkset late = {.logs = calloc(1, sizeof(tlog)), .n = 1, .late = true};
    weir_operator_spec k1 = {
        .name = "results", .cls = &RESULTS, .create = k_create, .arg = &res};
    weir_operator_spec k2 = {
        .name = "late", .cls = &LATE, .create = k_create, .arg = &late};
    if (weir_job_sink(job, win, &k1, c.par) ||
        weir_job_sink(job, weir_stream_side(win, WEIR_WINDOW_LATE_TAG), &k2, 1))
        die(weir_job_error(job));
    if (weir_job_run(job)) {
        fprintf(stderr, "weir-idle-driver: run: %s\n", weir_job_error(job));
        return 1;
    }
    for (uint32_t i = 0; i < res.n; i++)
        if (res.logs[i].len)
            fwrite(res.logs[i].buf, 1, res.logs[i].len, stdout);
    if (late.logs[0].len)
        fwrite(late.logs[0].buf, 1, late.logs[0].len, stdout);

    weir_job_destroy(job);
    for (uint32_t i = 0; i < res.n; i++)
        free(res.logs[i].buf);
    free(late.logs[0].buf);
    free(res.logs);
    free(late.logs);
    for (uint32_t s = 0; s < SC.n_splits; s++) {
        for (uint32_t p = 0; p < SC.n_passes; p++)
            free(SC.rounds[s][p].recs);
        free(SC.rounds[s]);
        free(SC.ids[s]);
    }
    free(SC.rounds);
    free(SC.ids);
    free(SC.times);
    weir_schema_destroy(in);
    weir_manual_clock_destroy(SC.clock);
    return 0;
}
