/*
 * bench/micro_bench.c - timer churn: the per-key timers of
 * state/timer_service.h, alone and inside a keyed job on each state backend.
 *
 * (The other hot paths have their own benchmarks: keyed exchange in
 * runtime_pipeline.c, window updates in window_bench.c, state get/put in
 * state_bench.c, decoding in format_bench.c; bench/results/micro.md has
 * them all.)
 *
 * service   the timer service alone, K keys of 8 bytes (as a BIGINT key
 *           encodes) spread over 128 key groups, in random key order:
 *             register    a new timer per key (K timers pending)
 *             duplicate   the same timers again (deduplicated: no change)
 *             reset       delete the key's timer, register one 1 s later -
 *                         the "extend the timeout" pattern of sessions and
 *                         idle detection
 *             fire        advance the event-time clock so that every
 *                         pending timer fires, in order
 *           ns per operation, by the thread's CPU time and by wall time.
 * job       a keyed process function through the runtime, N records over K
 *           keys (one record per ms of event time, watermark after every
 *           batch): per record it reads the key's pending timer from value
 *           state, deletes that timer, registers one at ts + 60 s and
 *           writes it back; each firing clears the key's state and emits
 *           one row. Run on the memory and the RocksDB backend; records/s
 *           and records/s per core (CPU time of the whole process).
 *
 *   bench_micro_bench [--keys 10000,1000000] [--ops N] [--records N]
 *                     [--backends memory,rocksdb] [--dir DIR] [--only service|job]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "state/timer_service.h"
#include "weir/key.h"
#include "weir/state.h"
#include "weir/weir.h"

#define MAX_KG 128

static double now_s(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double proc_cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec * 1e-6;
}

static uint64_t rng(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    return *s = x;
}

static void die(const char *what, int rc)
{
    fprintf(stderr, "%s failed: %s\n", what, weir_strerror(rc));
    exit(2);
}

/* ---- the timer service alone ---- */

typedef struct tkey {
    uint8_t b[8];
    uint32_t kg;
} tkey;

static int count_fired(void *ud, const weir_timer *t)
{
    (void)t;
    (*(uint64_t *)ud)++;
    return 0;
}

static void service_row(size_t keys, const char *op, uint64_t ops, double cpu, double wall)
{
    printf("| service | %9zu | %-9s | %8.1f | %8.1f | %7.2f |\n", keys, op, cpu * 1e9 / (double)ops,
           wall * 1e9 / (double)ops, (double)ops / wall / 1e6);
    fflush(stdout);
}

static void bench_service(size_t nkeys, uint64_t ops)
{
    tkey *k = malloc(nkeys * sizeof *k);
    uint32_t *order = malloc(ops * sizeof *order);
    weir_ts *due = malloc(nkeys * sizeof *due);
    if (!k || !order || !due)
        die("malloc", WEIR_ENOMEM);
    for (size_t i = 0; i < nkeys; i++) {
        int64_t v = (int64_t)i * 7919;
        memcpy(k[i].b, &v, 8);
        k[i].kg = weir_key_group(weir_key_hash(k[i].b, 8), MAX_KG);
    }
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (uint64_t i = 0; i < ops; i++)
        order[i] = (uint32_t)(rng(&s) % nkeys);
    weir__timers *ts;
    int rc = weir__timers_create(&ts);
    if (rc)
        die("timers_create", rc);
    /* register: one new timer per key, due within the first 10 s */
    double c0 = now_s(CLOCK_THREAD_CPUTIME_ID), w0 = now_s(CLOCK_MONOTONIC);
    for (size_t i = 0; i < nkeys; i++) {
        due[i] = 1000 + (weir_ts)(rng(&s) % 10000);
        if ((rc = weir__timers_register(ts, WEIR_TIME_EVENT, due[i], 0, k[i].b, 8, k[i].kg)))
            die("register", rc);
    }
    service_row(nkeys, "register", nkeys, now_s(CLOCK_THREAD_CPUTIME_ID) - c0, now_s(CLOCK_MONOTONIC) - w0);
    /* duplicate registrations change nothing */
    c0 = now_s(CLOCK_THREAD_CPUTIME_ID), w0 = now_s(CLOCK_MONOTONIC);
    for (uint64_t i = 0; i < ops; i++) {
        uint32_t x = order[i];
        if ((rc = weir__timers_register(ts, WEIR_TIME_EVENT, due[x], 0, k[x].b, 8, k[x].kg)))
            die("register", rc);
    }
    service_row(nkeys, "duplicate", ops, now_s(CLOCK_THREAD_CPUTIME_ID) - c0, now_s(CLOCK_MONOTONIC) - w0);
    if (weir__timers_count(ts) != nkeys)
        die("deduplication", WEIR_ESTATE);
    /* reset: delete + register 1 s later, the timer moves back in the heap */
    c0 = now_s(CLOCK_THREAD_CPUTIME_ID), w0 = now_s(CLOCK_MONOTONIC);
    for (uint64_t i = 0; i < ops; i++) {
        uint32_t x = order[i];
        if ((rc = weir__timers_delete(ts, WEIR_TIME_EVENT, due[x], 0, k[x].b, 8, k[x].kg)))
            die("delete", rc);
        due[x] += 1000;
        if ((rc = weir__timers_register(ts, WEIR_TIME_EVENT, due[x], 0, k[x].b, 8, k[x].kg)))
            die("register", rc);
    }
    service_row(nkeys, "reset", ops, now_s(CLOCK_THREAD_CPUTIME_ID) - c0, now_s(CLOCK_MONOTONIC) - w0);
    if (weir__timers_count(ts) != nkeys)
        die("reset count", WEIR_ESTATE);
    /* fire them all, advancing the clock in 100 steps */
    weir_ts last = 0;
    for (size_t i = 0; i < nkeys; i++)
        last = due[i] > last ? due[i] : last;
    uint64_t fired = 0;
    c0 = now_s(CLOCK_THREAD_CPUTIME_ID), w0 = now_s(CLOCK_MONOTONIC);
    for (int step = 1; step <= 100; step++)
        if ((rc = weir__timers_advance(ts, WEIR_TIME_EVENT, last * step / 100, count_fired, &fired)))
            die("advance", rc);
    service_row(nkeys, "fire", nkeys, now_s(CLOCK_THREAD_CPUTIME_ID) - c0, now_s(CLOCK_MONOTONIC) - w0);
    if (fired != nkeys || weir__timers_count(ts) != 0)
        die("firing count", WEIR_ESTATE);
    weir__timers_destroy(ts);
    free(k);
    free(order);
    free(due);
}

/* ---- a keyed job: source (key, ts) -> keyBy -> timer churn -> count ---- */

typedef struct gen_arg {
    uint64_t rows, keys;
    const weir_schema *schema;
} gen_arg;

typedef struct gen_src {
    gen_arg *arg;
    const char *ids[1];
    bool discovered;
} gen_src;

typedef struct gen_reader {
    uint64_t next, end, keys;
} gen_reader;

static int gen_create(void *arg, const weir_source_info *info, void **out, weir_error *err)
{
    (void)info;
    (void)err;
    gen_src *s = calloc(1, sizeof *s);
    s->arg = arg;
    s->ids[0] = "gen";
    *out = s;
    return 0;
}

static int gen_discover(void *p, const char ***ids, uint32_t *n, bool *done, weir_error *err)
{
    gen_src *s = p;
    (void)err;
    *ids = s->ids;
    *n = s->discovered ? 0 : 1;
    s->discovered = true;
    *done = true;
    return 0;
}

static int gen_open(void *p, const char *id, const void *pos, size_t pos_len, void **out, weir_error *err)
{
    gen_src *s = p;
    (void)id;
    (void)pos;
    (void)pos_len;
    (void)err;
    gen_reader *r = calloc(1, sizeof *r);
    r->end = s->arg->rows;
    r->keys = s->arg->keys;
    *out = r;
    return 0;
}

static int gen_read(void *p, weir_batch *out, uint32_t max_rows, weir_error *err)
{
    gen_reader *r = p;
    (void)err;
    if (r->next >= r->end)
        return WEIR_EOF;
    uint32_t n = 0;
    while (n < max_rows && out->n_rows < out->capacity && r->next < r->end) {
        uint32_t row = out->n_rows++;
        uint64_t x = (r->next + 1) * 0x9E3779B97F4A7C15ull;
        WEIR_COL_I64(out, 0)[row] = (int64_t)((x ^ (x >> 31)) % r->keys);
        out->ts[row] = (weir_ts)r->next; /* one record per ms */
        out->kind[row] = WEIR_ROW_INSERT;
        r->next++;
        n++;
    }
    return (int)n;
}

static int gen_position(void *p, weir_buf *out)
{
    return weir_buf_put_u64(out, ((gen_reader *)p)->next);
}

static void gen_close(void *p) { free(p); }
static void gen_destroy(void *p) { free(p); }

static const weir_source_class gen_class = {
    .name = "gen",
    .create = gen_create,
    .discover = gen_discover,
    .open_split = gen_open,
    .read = gen_read,
    .position = gen_position,
    .close_split = gen_close,
    .destroy = gen_destroy,
};

typedef struct churn {
    weir_state *pending;
    uint64_t *fired;
} churn;

static int churn_open(void *ud, weir_op_ctx *ctx, void **instance)
{
    (void)ud;
    churn *c = calloc(1, sizeof *c);
    weir_state_desc d = {.name = "pending", .kind = WEIR_STATE_VALUE};
    int rc = weir_op_get_state(ctx, &d, &c->pending);
    if (rc)
        return rc;
    c->fired = weir_op_counter(ctx, "fired");
    *instance = c;
    return 0;
}

static int churn_process(void *instance, weir_op_ctx *ctx, const weir_batch *in, uint32_t row, weir_batch *out)
{
    churn *c = instance;
    (void)out;
    const void *v;
    size_t len;
    int rc = weir_value_get(c->pending, NULL, 0, &v, &len);
    if (rc == 0) {
        weir_ts old;
        memcpy(&old, v, sizeof old);
        if ((rc = weir_op_timer_delete(ctx, WEIR_TIME_EVENT, old, 0)))
            return rc;
    } else if (rc != WEIR_ENOTFOUND) {
        return rc;
    }
    weir_ts due = in->ts[row] + 60000; /* a 60 s timeout */
    if ((rc = weir_op_timer_register(ctx, WEIR_TIME_EVENT, due, 0)))
        return rc;
    return weir_value_put(c->pending, NULL, 0, &due, sizeof due);
}

static int churn_timer(void *instance, weir_op_ctx *ctx, const weir_timer *t, weir_batch *out)
{
    churn *c = instance;
    (void)ctx;
    (*c->fired)++;
    int row = weir_batch_append_row(out);
    if (row < 0)
        return row;
    WEIR_COL_I64(out, 0)[row] = t->ts;
    out->ts[row] = t->ts;
    return weir_state_clear(c->pending, NULL, 0);
}

static void churn_close(void *instance) { free(instance); }

static void sum_counter(void *ud, const char *name, double v)
{
    size_t n = strlen(name);
    if (n > 6 && !strcmp(name + n - 6, ".fired"))
        *(uint64_t *)ud += (uint64_t)v;
}

static int discard_process(void *op, weir_op_ctx *ctx, int input, const weir_batch *b)
{
    (void)op;
    (void)ctx;
    (void)input;
    (void)b;
    return 0;
}

static int discard_create(void *arg, const weir_op_info *info, void **out)
{
    (void)arg;
    (void)info;
    static int dummy;
    *out = &dummy;
    return 0;
}

static void discard_close(void *op) { (void)op; }

static const weir_operator_class discard_class = {.name = "discard", .process = discard_process,
                                                  .close = discard_close};

static void bench_job(const char *backend, size_t nkeys, uint64_t records, const char *dir)
{
    weir_schema *in = weir_schema_create(), *os = weir_schema_create();
    weir_schema_add(in, "k", weir_type_make(WEIR_TYPE_BIGINT, false));
    weir_schema_add(os, "due", weir_type_make(WEIR_TYPE_BIGINT, false));
    weir_job_config cfg;
    weir_job_config_init(&cfg);
    cfg.state_backend = backend;
    char sdir[512];
    snprintf(sdir, sizeof sdir, "%s/weir-micro-%d", dir, (int)getpid());
    cfg.state_dir = sdir;
    weir_job *job;
    int rc = weir_job_create(&cfg, &job);
    if (rc)
        die("job_create", rc);
    gen_arg ga = {.rows = records, .keys = nkeys, .schema = in};
    weir_source_spec src = {.name = "gen", .cls = &gen_class, .arg = &ga, .schema = in};
    weir_watermark_spec wm = {.kind = WEIR_WATERMARK_BOUNDED, .delay_ms = 0};
    weir_stream s, p;
    uint32_t kc = 0;
    weir_process_fn fn = {.open = churn_open, .process = churn_process, .timer = churn_timer,
                          .close = churn_close, .name = "churn"};
    weir_operator_spec sink = {.name = "discard", .cls = &discard_class, .create = discard_create};
    if ((rc = weir_job_source(job, &src, &wm, 1, &s)) ||
        (rc = weir_job_process(job, weir_stream_key_by(s, &kc, 1), os, &fn, &p)) ||
        (rc = weir_job_sink(job, p, &sink, 1))) {
        fprintf(stderr, "job graph: %s\n", weir_job_error(job));
        die("job graph", rc);
    }
    double c0 = proc_cpu_s(), w0 = now_s(CLOCK_MONOTONIC);
    if (weir_job_run(job)) {
        fprintf(stderr, "job failed: %s\n", weir_job_error(job));
        exit(2);
    }
    double wall = now_s(CLOCK_MONOTONIC) - w0, cpu = proc_cpu_s() - c0;
    uint64_t fired = 0;
    weir_job_metrics(job, sum_counter, &fired);
    weir_job_destroy(job);
    weir_schema_destroy(in);
    weir_schema_destroy(os);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", sdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", sdir);
    printf("| job     | %-7s | %9zu | %10" PRIu64 " | %9" PRIu64 " | %6.2f | %6.2f | %7.2f | %7.2f |\n", backend, nkeys,
           records, fired, wall, cpu, (double)records / wall / 1e6, (double)records / cpu / 1e6);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    const char *keys_arg = "10000,1000000", *backends = "memory,rocksdb", *dir = "/tmp", *only = NULL;
    uint64_t ops = 5000000, records = 5000000;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--keys") && i + 1 < argc)
            keys_arg = argv[++i];
        else if (!strcmp(argv[i], "--ops") && i + 1 < argc)
            ops = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--records") && i + 1 < argc)
            records = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--backends") && i + 1 < argc)
            backends = argv[++i];
        else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
            dir = argv[++i];
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else {
            fprintf(stderr,
                    "usage: %s [--keys 10000,1000000] [--ops N] [--records N] [--backends memory,rocksdb] "
                    "[--dir DIR] [--only service|job]\n",
                    argv[0]);
            return 2;
        }
    }
    size_t key_list[8], nk = 0;
    for (const char *p = keys_arg; *p && nk < 8;) {
        key_list[nk++] = strtoull(p, NULL, 10);
        p = strchr(p, ',');
        if (!p)
            break;
        p++;
    }
    if (!only || !strcmp(only, "service")) {
        printf("| part    | keys      | op        | cpu ns/op | wall ns/op | Mops/s (wall) |\n");
        printf("|---------|-----------|-----------|---------:|---------:|--------:|\n");
        for (size_t i = 0; i < nk; i++)
            bench_service(key_list[i], ops);
        printf("\n");
    }
    if (!only || !strcmp(only, "job")) {
        printf("| part    | backend | keys      | records    | fired     | wall s | CPU s  | M rec/s | M rec/s per core |\n");
        printf("|---------|---------|-----------|-----------:|----------:|-------:|-------:|--------:|--------:|\n");
        char buf[128];
        snprintf(buf, sizeof buf, "%s", backends);
        for (char *save = NULL, *b = strtok_r(buf, ",", &save); b; b = strtok_r(NULL, ",", &save))
            for (size_t i = 0; i < nk; i++)
                bench_job(b, key_list[i], records, dir);
    }
    return 0;
}
