/*
 * bench/runtime_pipeline.c - throughput of the runtime's hot paths.
 *
 * Pipelines (N rows of (id BIGINT, key BIGINT, price DOUBLE), event time = id):
 *   loop        a plain single loop doing the same work: generate a batch,
 *               filter it, (exchange variant: encode + hash the key, compute
 *               the key group and its owner), count - no runtime at all
 *   chain       generator -> filter -> discard, chained in one task
 *   exchange    generator -> filter -> key-by exchange -> discard
 * The runtime pipelines run at parallelism 1 and 2. Each measurement runs in
 * a forked child so that its peak RSS and CPU time are its own; the median
 * of --runs runs is reported. records/s per core = rows / CPU seconds of the
 * whole process (all threads), so waiting threads do not count as work.
 *
 *   bench_runtime_pipeline [--rows N] [--runs R] [--batch B] [--out FILE]
 * [--only I]
 * (--only I runs the I-th pipeline of the table alone, for profiling.)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "weir/weir.h"

/* ---- a generator source: one split per subtask, rows written column-wise ----
 */

typedef struct gen_arg {
    uint64_t rows; /* in total, shared by the subtasks */
    const weir_schema *schema;
} gen_arg;

typedef struct gen_src {
    gen_arg *arg;
    uint32_t subtask, parallelism;
    bool discovered;
    char id[32];
    const char *ids[1];
} gen_src;

typedef struct gen_reader {
    uint64_t next, end;
} gen_reader;

static int gen_create(void *arg, const weir_source_info *info, void **out,
                      weir_error *err)
{
    (void)err;
    gen_src *g = calloc(1, sizeof *g);
    g->arg = arg;
    g->subtask = info->subtask;
    g->parallelism = info->parallelism;
    snprintf(g->id, sizeof g->id, "gen-%u", info->subtask);
    g->ids[0] = g->id;
    *out = g;
    return 0;
}

static int gen_discover(void *src, const char ***ids, uint32_t *n, bool *done,
                        weir_error *err)
{
    (void)err;
    gen_src *g = src;
    *done = true;
    *n = 0;
    if (!g->discovered) {
        g->discovered = true;
        *ids = g->ids;
        *n = 1;
    }
    return 0;
}

static int gen_open(void *src, const char *id, const void *pos, size_t pos_len,
                    void **out, weir_error *err)
{
    (void)id;
    (void)pos;
    (void)pos_len;
    (void)err;
    gen_src *g = src;
    gen_reader *r = calloc(1, sizeof *r);
    uint64_t per = g->arg->rows / g->parallelism;
    r->next = per * g->subtask;
    r->end = g->subtask + 1 == g->parallelism ? g->arg->rows
                                              : per * (g->subtask + 1);
    *out = r;
    return 0;
}

static inline uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

static uint32_t gen_fill(uint64_t *next, uint64_t end, weir_batch *out,
                         uint32_t max_rows)
{
    uint32_t n = (uint32_t)(end - *next < max_rows ? end - *next : max_rows);
    uint32_t base = out->n_rows;
    int64_t *id = WEIR_COL_I64(out, 0) + base,
            *key = WEIR_COL_I64(out, 1) + base;
    double *price = WEIR_COL_F64(out, 2) + base;
    weir_ts *ts = out->ts + base;
    uint64_t x = *next;
    for (uint32_t i = 0; i < n; i++, x++) {
        id[i] = (int64_t)x;
        key[i] = (int64_t)(mix(x) % 100000);
        price[i] = (double)(x % 1000) * 0.5;
        ts[i] = (weir_ts)x;
    }
    memset(out->kind + base, 0, n);
    out->n_rows += n;
    *next = x;
    return n;
}

static int gen_read(void *reader, weir_batch *out, uint32_t max_rows,
                    weir_error *err)
{
    (void)err;
    gen_reader *r = reader;
    if (r->next >= r->end)
        return WEIR_EOF;
    return (int)gen_fill(&r->next, r->end, out, max_rows);
}

static int gen_position(void *reader, weir_buf *out)
{
    return weir_buf_put_u64(out, ((gen_reader *)reader)->next);
}
static void gen_close(void *reader)
{
    free(reader);
}
static void gen_destroy(void *src)
{
    free(src);
}

static const weir_source_class gen_class = {
    .name = "generator",
    .create = gen_create,
    .discover = gen_discover,
    .open_split = gen_open,
    .read = gen_read,
    .position = gen_position,
    .close_split = gen_close,
    .destroy = gen_destroy,
};

/* ---- filter and discard ---- */

static bool keep(void *ud, const weir_batch *b, uint32_t row)
{
    (void)ud;
    return (WEIR_COL_I64(b, 0)[row] & 3) != 0; /* 75% pass */
}

static bool keep_all(void *ud, const weir_batch *b, uint32_t row)
{
    (void)ud;
    (void)b;
    (void)row;
    return true;
}

typedef struct discard {
    uint64_t rows;
} discard;

static int discard_create(void *arg, const weir_op_info *info, void **out)
{
    (void)arg;
    (void)info;
    *out = calloc(1, sizeof(discard));
    return 0;
}

static int discard_process(void *op, weir_op_ctx *ctx, int input,
                           const weir_batch *b)
{
    (void)input;
    discard *d = op;
    d->rows += b->n_rows;
    (void)ctx;
    return 0;
}

static int discard_finish(void *op, weir_op_ctx *ctx)
{
    discard *d = op;
    uint64_t *c = weir_op_counter(ctx, "discarded");
    if (c)
        *c = d->rows;
    return 0;
}

static void discard_close(void *op)
{
    free(op);
}

/* A deliberately slow sink: 20 us per batch. */
static int slow_process(void *op, weir_op_ctx *ctx, int input,
                        const weir_batch *b)
{
    struct timespec ts = {0, 20000};
    nanosleep(&ts, NULL);
    return discard_process(op, ctx, input, b);
}

static const weir_operator_class slow_class = {.name = "slow",
                                               .process = slow_process,
                                               .finish = discard_finish,
                                               .close = discard_close};

static const weir_operator_class discard_class = {.name = "discard",
                                                  .process = discard_process,
                                                  .finish = discard_finish,
                                                  .close = discard_close};

/* ---- the measured runs ---- */

typedef enum kind {
    LOOP_CHAIN,
    LOOP_EXCHANGE,
    CHAIN,
    EXCHANGE,
    SLOW_SMALL,
    SLOW_LARGE
} kind;

typedef struct result {
    double wall_s, cpu_s;
    long maxrss_kb;
    uint64_t out_rows;
} result;

static uint64_t g_rows = 20000000;
#define SLOW_ROWS                                                              \
    500000ull /* fast source, slow sink: memory must not grow with the input   \
               */
static uint32_t g_batch = 1024;

static double now_s(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The plain loop: the same generate / filter / (hash, route) / count work, no
 * runtime. */
static uint64_t plain_loop(const weir_schema *schema, bool exchange)
{
    weir_batch *b = weir_batch_create(schema, g_batch);
    uint32_t *sel = malloc(g_batch * sizeof *sel);
    uint64_t next = 0, out = 0, route = 0;
    weir_keyspec ks = {.n = 1, .cols = {1}};
    while (next < g_rows) {
        weir_batch_reset(b);
        gen_fill(&next, g_rows, b, g_batch);
        uint32_t k = 0;
        for (uint32_t r = 0; r < b->n_rows; r++) {
            sel[k] = r;
            k += keep(NULL, b, r) ? 1 : 0;
        }
        if (exchange)
            for (uint32_t i = 0; i < k; i++) {
                uint8_t key[16];
                size_t len = weir_key_encode(b, &ks, sel[i], key, sizeof key);
                uint32_t kg = weir_key_group(weir_key_hash(key, len), 128);
                route += weir_key_group_owner(kg, 128, 2);
            }
        out += k;
    }
    weir_batch_destroy(b);
    free(sel);
    return out + (route & 0); /* route is computed, not reported */
}

static void sum_discarded(void *ud, const char *name, double v)
{
    size_t n = strlen(name), m = strlen(".discarded");
    if (n >= m && strcmp(name + n - m, ".discarded") == 0)
        *(uint64_t *)ud += (uint64_t)v;
}

static uint64_t run_job(const weir_schema *schema, bool exchange, uint32_t par,
                        bool slow, uint64_t rows)
{
    weir_job_config cfg;
    weir_job_config_init(&cfg);
    cfg.parallelism = par;
    cfg.batch_size = g_batch;
    weir_job *job;
    if (weir_job_create(&cfg, &job))
        exit(2);
    gen_arg ga = {.rows = rows, .schema = schema};
    weir_source_spec src = {
        .name = "generator", .cls = &gen_class, .arg = &ga, .schema = schema};
    weir_watermark_spec wm = {.kind = WEIR_WATERMARK_BOUNDED, .delay_ms = 1000};
    weir_stream s, f;
    weir_operator_spec sink = {.name = "discard",
                               .cls = slow ? &slow_class : &discard_class,
                               .create = discard_create};
    uint32_t key = 1;
    if (weir_job_source(job, &src, &wm, par, &s) ||
        weir_job_filter(job, s, slow ? keep_all : keep, NULL, &f) ||
        weir_job_sink(job, exchange ? weir_stream_key_by(f, &key, 1) : f, &sink,
                      par))
        exit(2);
    if (weir_job_run(job)) {
        fprintf(stderr, "job failed: %s\n", weir_job_error(job));
        exit(2);
    }
    uint64_t out = 0;
    weir_job_metrics(job, sum_discarded, &out);
    weir_job_destroy(job);
    return out;
}

static result measure(kind k, uint32_t par)
{
    int fd[2];
    if (pipe(fd))
        exit(2);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        weir_schema *schema = weir_schema_create();
        weir_schema_add(schema, "id", weir_type_make(WEIR_TYPE_BIGINT, false));
        weir_schema_add(schema, "key", weir_type_make(WEIR_TYPE_BIGINT, false));
        weir_schema_add(schema, "price",
                        weir_type_make(WEIR_TYPE_DOUBLE, false));
        double w0 = now_s(CLOCK_MONOTONIC);
        uint64_t out = k == LOOP_CHAIN      ? plain_loop(schema, false)
                       : k == LOOP_EXCHANGE ? plain_loop(schema, true)
                       : k == SLOW_SMALL
                           ? run_job(schema, true, par, true, SLOW_ROWS)
                       : k == SLOW_LARGE
                           ? run_job(schema, true, par, true, 10 * SLOW_ROWS)
                           : run_job(schema, k == EXCHANGE, par, false, g_rows);
        double wall = now_s(CLOCK_MONOTONIC) - w0;
        ssize_t wr = write(fd[1], &wall, sizeof wall);
        wr += write(fd[1], &out, sizeof out);
        (void)wr;
        weir_schema_destroy(schema);
        _exit(0);
    }
    close(fd[1]);
    result r = {0};
    ssize_t rd = read(fd[0], &r.wall_s, sizeof r.wall_s);
    rd += read(fd[0], &r.out_rows, sizeof r.out_rows);
    (void)rd;
    close(fd[0]);
    int status;
    struct rusage ru;
    wait4(pid, &status, 0, &ru);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "run failed\n");
        exit(2);
    }
    r.cpu_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
              (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
    r.maxrss_kb = ru.ru_maxrss;
    return r;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct row {
    const char *name;
    kind k;
    uint32_t par;
    double rps, rps_core, wall, cpu;
    long rss_kb;
} row;

int main(int argc, char **argv)
{
    int runs = 5, only = -1;
    const char *out_path = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--rows") && i + 1 < argc)
            g_rows = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--batch") && i + 1 < argc)
            g_batch = (uint32_t)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--out") && i + 1 < argc)
            out_path = argv[++i];
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = atoi(argv[++i]);
        else {
            fprintf(stderr,
                    "usage: %s [--rows N] [--runs R] [--batch B] [--out FILE] "
                    "[--only I]\n",
                    argv[0]);
            return 2;
        }
    }
    row rows[] = {
        {"plain loop: generate+filter", LOOP_CHAIN, 1, 0, 0, 0, 0, 0},
        {"chain: generator->filter->discard", CHAIN, 1, 0, 0, 0, 0, 0},
        {"chain: generator->filter->discard", CHAIN, 2, 0, 0, 0, 0, 0},
        {"plain loop: generate+filter+hash+route", LOOP_EXCHANGE, 1, 0, 0, 0, 0,
         0},
        {"exchange: generator->filter->keyBy->discard", EXCHANGE, 1, 0, 0, 0, 0,
         0},
        {"exchange: generator->filter->keyBy->discard", EXCHANGE, 2, 0, 0, 0, 0,
         0},
        {"backpressure: generator->keyBy->slow sink, 0.5M rows", SLOW_SMALL, 1,
         0, 0, 0, 0, 0},
        {"backpressure: generator->keyBy->slow sink, 5M rows", SLOW_LARGE, 1, 0,
         0, 0, 0, 0},
    };
    int n_rows = (int)(sizeof rows / sizeof rows[0]);
    uint64_t expect = g_rows - (g_rows + 3) / 4;
    long rss_small = 0, rss_large = 0;
    for (int i = 0; i < n_rows; i++) {
        if (only >= 0 && i != only)
            continue;
        double rps[64], core[64], wall[64], cpu[64], rss[64];
        for (int r = 0; r < runs && r < 64; r++) {
            result m = measure(rows[i].k, rows[i].par);
            uint64_t want = rows[i].k == SLOW_SMALL   ? SLOW_ROWS
                            : rows[i].k == SLOW_LARGE ? 10 * SLOW_ROWS
                                                      : expect;
            uint64_t in_rows =
                rows[i].k == SLOW_SMALL || rows[i].k == SLOW_LARGE ? want
                                                                   : g_rows;
            if (m.out_rows != want) {
                fprintf(stderr,
                        "%s: %" PRIu64 " rows out, expected %" PRIu64 "\n",
                        rows[i].name, m.out_rows, want);
                return 1;
            }
            rps[r] = (double)in_rows / m.wall_s;
            core[r] = (double)in_rows / m.cpu_s;
            wall[r] = m.wall_s;
            cpu[r] = m.cpu_s;
            rss[r] = (double)m.maxrss_kb;
        }
        qsort(rps, (size_t)runs, sizeof(double), cmp_d);
        qsort(core, (size_t)runs, sizeof(double), cmp_d);
        qsort(wall, (size_t)runs, sizeof(double), cmp_d);
        qsort(cpu, (size_t)runs, sizeof(double), cmp_d);
        qsort(rss, (size_t)runs, sizeof(double), cmp_d);
        rows[i].rps = rps[runs / 2];
        rows[i].rps_core = core[runs / 2];
        rows[i].wall = wall[runs / 2];
        rows[i].cpu = cpu[runs / 2];
        rows[i].rss_kb = (long)rss[runs / 2];
        if (rows[i].k == SLOW_SMALL)
            rss_small = rows[i].rss_kb;
        if (rows[i].k == SLOW_LARGE)
            rss_large = rows[i].rss_kb;
        printf("%-46s p=%u  %7.2f M rec/s  %7.2f M rec/s/core  wall %.3fs cpu "
               "%.3fs  peak RSS %.1f MiB\n",
               rows[i].name, rows[i].par, rows[i].rps / 1e6,
               rows[i].rps_core / 1e6, rows[i].wall, rows[i].cpu,
               rows[i].rss_kb / 1024.0);
        fflush(stdout);
    }
    /* The checked ceiling: ten times the input may not need more memory. */
    int bounded = !(rss_small && rss_large) || rss_large <= rss_small + 2048;
    if (rss_small && rss_large)
        printf("peak RSS with 10x the input under backpressure: %.1f MiB vs "
               "%.1f MiB: %s\n",
               rss_large / 1024.0, rss_small / 1024.0,
               bounded ? "bounded" : "GROWS");
    if (out_path) {
        FILE *f = fopen(out_path, "w");
        if (!f) {
            perror(out_path);
            return 1;
        }
        fprintf(f, "| pipeline | parallelism | M records/s | M records/s per "
                   "core | wall s | CPU s | peak RSS MiB |\n");
        fprintf(f, "|---|---|---|---|---|---|---|\n");
        for (int i = 0; i < n_rows; i++)
            fprintf(f, "| %s | %u | %.2f | %.2f | %.3f | %.3f | %.1f |\n",
                    rows[i].name, rows[i].par, rows[i].rps / 1e6,
                    rows[i].rps_core / 1e6, rows[i].wall, rows[i].cpu,
                    rows[i].rss_kb / 1024.0);
        fprintf(f,
                "\n%" PRIu64
                " rows per run, batch size %u, median of %d runs.\n",
                g_rows, g_batch, runs);
        fclose(f);
    }
    return bounded ? 0 : 1;
}
