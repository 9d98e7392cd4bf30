/*
 * bench/window_bench.c - event-time windows: throughput and memory.
 *
 * Workload (the windows issue): N events (default 20 M), 10,000 keys, one
 * event per millisecond of event time with up to 100 ms of jitter
 * (ts = i - U[0,100]), watermark delay 100 ms, COUNT(*) and SUM(v) per key,
 * over tumbling 1 s and hopping 10 s / 1 s windows. The input is generated
 * once into memory (key, v, ts: 24 bytes per event) before any measurement.
 *
 * Pipelines, each run in a forked child so its CPU time and peak RSS are its
 * own (--runs rounds, each running every pipeline once; medians):
 *   plain     a hand-written single loop: per window (tumbling) or per
 *             pane (hopping: plus a running table that adds the pane
 *             entering a window and subtracts the one leaving it) an
 *             open-addressing table key -> (count, sum), the watermark
 *             after each event, windows emitted when the watermark passes
 *             their end
 *   engine    the window operator's engine fed batches of 1024 directly
 *             (no runtime): the window code's own cost
 *   job       through the C API: memory source (one split) -> keyed
 *             exchange -> window operator -> a sink that checksums the
 *             results; source and window run in two threads
 * Every pipeline checksums its results (rows, sum of counts, sum of sums,
 * and a hash of key x window); the checksums must agree.
 * "per core" = events / CPU seconds of the child (all its threads).
 * "RSS beyond input" = peak RSS minus that of a child that only reads the
 * input.
 *
 * --cpu N pins each child, all its threads, to CPU N: the whole pipeline
 * then runs on one core (the job's two threads take turns), and a VM whose
 * virtual CPUs differ in speed (the shared one here: one runs this loop
 * ~25 % slower than the other) measures every pipeline on the same one.
 *
 *   bench_window_bench [--events N] [--runs R] [--out FILE] [--only NAME]
 *                      [--window tumbling|hopping] [--cpu N]
 */
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "weir/weir.h"
#include "weir/window.h"
#include "window/window_internal.h"

#define KEYS 10000
#define DELAY 100

static uint64_t g_n = 20000000;
static int64_t *g_key, *g_v, *g_ts;

/* ---- results checksum ---- */

typedef struct sum {
    uint64_t rows;
    int64_t cnt, total;
    uint64_t mix;
} sum;

static inline void sum_row(sum *s, int64_t key, int64_t start, int64_t cnt, int64_t total)
{
    s->rows++;
    s->cnt += cnt;
    s->total += total;
    uint64_t h = (uint64_t)key * 0x9E3779B97F4A7C15ull ^ (uint64_t)start * 0xC2B2AE3D27D4EB4Full;
    s->mix += h ^ (h >> 29);
}

/* ---- the input ---- */

static void make_input(void)
{
    g_key = malloc(g_n * sizeof *g_key);
    g_v = malloc(g_n * sizeof *g_v);
    g_ts = malloc(g_n * sizeof *g_ts);
    if (!g_key || !g_v || !g_ts) {
        fprintf(stderr, "out of memory for the input\n");
        exit(1);
    }
    uint64_t x = 0x1234567;
    for (uint64_t i = 0; i < g_n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        g_key[i] = (int64_t)(x % KEYS);
        g_v[i] = (int64_t)((x >> 20) % 1000);
        g_ts[i] = (int64_t)i - (int64_t)((x >> 40) % 101);
    }
}

/* ---- the plain loop ---- */

typedef struct pslot {
    int64_t key, cnt, total;
} pslot;

typedef struct pwin {
    int64_t start, end;
    bool live;
    pslot *tab;     /* 16384 slots, key -1 = empty */
    uint32_t *used; /* indexes of used slots */
    uint32_t n_used;
} pwin;

#define PCAP 16384
#define PRING 64

static pwin g_pw[PRING];

static inline pslot *pwin_slot(pwin *w, int64_t key)
{
    uint32_t i = (uint32_t)(((uint64_t)key * 0x9E3779B97F4A7C15ull) >> 50);
    for (;;) {
        pslot *s = &w->tab[i];
        if (s->key == key)
            return s;
        if (s->key == -1) {
            s->key = key;
            s->cnt = s->total = 0;
            w->used[w->n_used++] = i;
            return s;
        }
        i = (i + 1) & (PCAP - 1);
    }
}

static inline int64_t fl(int64_t a, int64_t b) { return a >= 0 ? a / b * b : -((-a + b - 1) / b) * b; }

static void pwin_fire(pwin *w, sum *s)
{
    for (uint32_t j = 0; j < w->n_used; j++) {
        pslot *x = &w->tab[w->used[j]];
        sum_row(s, x->key, w->start, x->cnt, x->total);
        x->key = -1;
    }
    w->n_used = 0;
    w->live = false;
}

static void plain(int64_t size, int64_t slide, sum *s)
{
    for (int i = 0; i < PRING; i++) {
        g_pw[i].tab = malloc(PCAP * sizeof(pslot));
        g_pw[i].used = malloc(PCAP * sizeof(uint32_t));
        for (int j = 0; j < PCAP; j++)
            g_pw[i].tab[j].key = -1;
    }
    int64_t maxts = INT64_MIN, W = INT64_MIN, next_fire = INT64_MAX;
    for (uint64_t i = 0; i < g_n; i++) {
        int64_t ts = g_ts[i];
        /* each window [st, st+size) containing ts with end > W (no late data here: jitter < delay) */
        for (int64_t st = fl(ts, slide); st > ts - size; st -= slide) {
            int64_t end = st + size;
            if (end <= W)
                continue;
            pwin *w = &g_pw[(uint64_t)(st / slide) % PRING];
            if (!w->live) {
                w->live = true;
                w->start = st;
                w->end = end;
                if (end < next_fire)
                    next_fire = end;
            }
            pslot *x = pwin_slot(w, g_key[i]);
            x->cnt++;
            x->total += g_v[i];
        }
        if (ts > maxts) {
            maxts = ts;
            W = maxts - DELAY;
            while (W >= next_fire) {
                int64_t nf = INT64_MAX;
                for (int k = 0; k < PRING; k++) {
                    if (!g_pw[k].live)
                        continue;
                    if (g_pw[k].end <= W)
                        pwin_fire(&g_pw[k], s);
                    else if (g_pw[k].end < nf)
                        nf = g_pw[k].end;
                }
                next_fire = nf;
            }
        }
    }
    for (int k = 0; k < PRING; k++)
        if (g_pw[k].live)
            pwin_fire(&g_pw[k], s);
}

/*
 * Hopping, done the way a good hand-written loop does it: one table per
 * pane (a slide-wide slice) so an event updates one accumulator, and a
 * running table key -> (count, sum) that, at each window end, adds the pane
 * entering the window and subtracts the one leaving it (COUNT and SUM are
 * invertible), then emits its non-zero keys. Keys stay in the running table
 * once seen (the key space is bounded).
 */
static pwin g_run;

static void pane_clear(pwin *w)
{
    for (uint32_t j = 0; j < w->n_used; j++)
        w->tab[w->used[j]].key = -1;
    w->n_used = 0;
    w->live = false;
}

static void pane_fold(const pwin *p, int64_t sign)
{
    for (uint32_t j = 0; j < p->n_used; j++) {
        const pslot *x = &p->tab[p->used[j]];
        pslot *y = pwin_slot(&g_run, x->key);
        y->cnt += sign * x->cnt;
        y->total += sign * x->total;
    }
}

static inline pwin *pane_at(int64_t start, int64_t slide) { return &g_pw[(uint64_t)(start / slide) % PRING]; }

/* The window [E - size, E) fires: the pane ending at E enters, the one ending at E - size leaves. */
static void hop_fire(int64_t E, int64_t size, int64_t slide, int *n_live, sum *s)
{
    pwin *in = pane_at(E - slide, slide), *out = pane_at(E - size - slide, slide);
    if (in->live && in->end == E)
        pane_fold(in, 1);
    if (out->live && out->end == E - size) {
        pane_fold(out, -1);
        pane_clear(out);
        (*n_live)--;
    }
    for (uint32_t j = 0; j < g_run.n_used; j++) {
        const pslot *x = &g_run.tab[g_run.used[j]];
        if (x->cnt)
            sum_row(s, x->key, E - size, x->cnt, x->total);
    }
}

static void plain_hop(int64_t size, int64_t slide, sum *s)
{
    for (int i = 0; i <= PRING; i++) {
        pwin *w = i < PRING ? &g_pw[i] : &g_run;
        w->tab = malloc(PCAP * sizeof(pslot));
        w->used = malloc(PCAP * sizeof(uint32_t));
        for (int j = 0; j < PCAP; j++)
            w->tab[j].key = -1;
    }
    int64_t maxts = INT64_MIN, W = INT64_MIN, next = INT64_MAX; /* next: the first window end not fired */
    int n_live = 0;
    for (uint64_t i = 0; i < g_n; i++) {
        int64_t ts = g_ts[i], st = fl(ts, slide), pend = st + slide;
        if (st + size <= W)
            continue; /* every window of the pane fired (no such event here: jitter < delay) */
        pwin *p = pane_at(st, slide);
        if (!p->live) {
            p->live = true;
            p->start = st;
            p->end = pend;
            n_live++;
            if (pend < next)
                next = pend;
        }
        pslot *x = pwin_slot(p, g_key[i]);
        x->cnt++;
        x->total += g_v[i];
        if (pend <= W) {
            /* the pane is in the running table already */
            pslot *y = pwin_slot(&g_run, g_key[i]);
            y->cnt++;
            y->total += g_v[i];
        }
        if (ts > maxts) {
            maxts = ts;
            W = maxts - DELAY;
            for (; next <= W; next += slide)
                hop_fire(next, size, slide, &n_live, s);
        }
    }
    for (; n_live > 0; next += slide)
        hop_fire(next, size, slide, &n_live, s);
}

/* ---- shared pieces for the weir pipelines ---- */

static weir_schema *g_in;

static void make_spec(weir_window_spec *spec, weir_agg *aggs, int64_t size, int64_t slide)
{
    weir_window_spec_init(spec);
    spec->assigner = size == slide ? weir_window_tumbling(size, 0) : weir_window_hopping(slide, size, 0);
    spec->key.n = 1;
    spec->key.cols[0] = 0;
    weir_error err;
    if (weir_agg_bind("COUNT", g_in, -1, 0, &aggs[0], &err) || weir_agg_bind("SUM", g_in, 1, 0, &aggs[1], &err)) {
        fprintf(stderr, "bind: %s\n", err.message);
        exit(1);
    }
    spec->aggs = aggs;
    spec->n_aggs = 2;
}

static void sum_batch(sum *s, const weir_batch *b)
{
    const int64_t *k = WEIR_COL_I64(b, 0), *st = WEIR_COL_I64(b, 1), *c = WEIR_COL_I64(b, 3),
                  *t = WEIR_COL_I64(b, 4);
    for (uint32_t r = 0; r < b->n_rows; r++)
        sum_row(s, k[r], st[r], c[r], t[r]);
}

/* ---- engine only ---- */

static int eng_emit(void *ud, const weir_batch *b)
{
    sum_batch(ud, b);
    return 0;
}

static void engine(int64_t size, int64_t slide, sum *s)
{
    weir_window_spec spec;
    weir_agg aggs[2];
    make_spec(&spec, aggs, size, slide);
    weir_schema *os, *ls;
    weir_error err;
    weir_window_output_schema(&spec, g_in, &os, &err);
    weir_window_late_schema(g_in, &ls);
    weir__wcore_io io = {.emit = eng_emit, .ud = s};
    weir__wcore *core;
    if (weir__wcore_create(&spec, g_in, os, ls, 1024, &io, &core, &err)) {
        fprintf(stderr, "engine: %s\n", err.message);
        exit(1);
    }
    weir_batch *b = weir_batch_create(g_in, 1024);
    int64_t maxts = INT64_MIN;
    for (uint64_t i = 0; i < g_n; i += 1024) {
        uint32_t n = (uint32_t)(g_n - i < 1024 ? g_n - i : 1024);
        weir_batch_reset(b);
        memcpy(b->cols[0].data, g_key + i, n * 8);
        memcpy(b->cols[1].data, g_v + i, n * 8);
        memcpy(b->ts, g_ts + i, n * 8);
        memset(b->kind, 0, n);
        b->n_rows = n;
        /* the batch is processed at the watermark before it; no record here can be late */
        weir__wcore_process(core, b, maxts == INT64_MIN ? INT64_MIN : maxts - DELAY, 0);
        for (uint32_t j = 0; j < n; j++)
            if (g_ts[i + j] > maxts)
                maxts = g_ts[i + j];
        weir__wcore_advance(core, maxts - DELAY, 0);
        weir__wcore_flush(core);
    }
    weir__wcore_finish(core, 0);
    weir__wcore_destroy(core);
    weir_batch_destroy(b);
    weir_schema_destroy(os);
    weir_schema_destroy(ls);
}

/* ---- through the runtime: a memory source and a checksum sink ---- */

typedef struct msrc {
    bool discovered;
    const char *ids[1];
} msrc;

typedef struct mreader {
    uint64_t next;
} mreader;

static int ms_create(void *arg, const weir_source_info *info, void **out, weir_error *err)
{
    (void)arg, (void)info, (void)err;
    msrc *m = calloc(1, sizeof *m);
    m->ids[0] = "memory";
    *out = m;
    return 0;
}

static int ms_discover(void *src, const char ***ids, uint32_t *n, bool *done, weir_error *err)
{
    (void)err;
    msrc *m = src;
    *done = true;
    *n = 0;
    if (!m->discovered) {
        m->discovered = true;
        *ids = m->ids;
        *n = 1;
    }
    return 0;
}

static int ms_open(void *src, const char *id, const void *pos, size_t pos_len, void **out, weir_error *err)
{
    (void)src, (void)id, (void)pos, (void)pos_len, (void)err;
    *out = calloc(1, sizeof(mreader));
    return 0;
}

static int ms_read(void *reader, weir_batch *out, uint32_t max_rows, weir_error *err)
{
    (void)err;
    mreader *r = reader;
    if (r->next >= g_n)
        return WEIR_EOF;
    uint32_t room = out->capacity - out->n_rows;
    uint32_t n = max_rows < room ? max_rows : room;
    if (g_n - r->next < n)
        n = (uint32_t)(g_n - r->next);
    uint32_t at = out->n_rows;
    memcpy(WEIR_COL_I64(out, 0) + at, g_key + r->next, n * 8);
    memcpy(WEIR_COL_I64(out, 1) + at, g_v + r->next, n * 8);
    memcpy(out->ts + at, g_ts + r->next, n * 8);
    memset(out->kind + at, 0, n);
    out->n_rows += n;
    r->next += n;
    return (int)n;
}

static int ms_position(void *reader, weir_buf *out) { return weir_buf_put_u64(out, ((mreader *)reader)->next); }
static void ms_close_split(void *reader) { free(reader); }
static void ms_destroy(void *src) { free(src); }

static const weir_source_class ms_cls = {.name = "memory", .create = ms_create, .discover = ms_discover,
                                         .open_split = ms_open, .read = ms_read, .position = ms_position,
                                         .close_split = ms_close_split, .destroy = ms_destroy};

static int sk_create(void *arg, const weir_op_info *info, void **out)
{
    (void)info;
    *out = arg;
    return 0;
}

static int sk_process(void *op, weir_op_ctx *ctx, int input, const weir_batch *b)
{
    (void)ctx, (void)input;
    sum_batch(op, b);
    return 0;
}

static void sk_close(void *op) { (void)op; }

static const weir_operator_class sk_cls = {.name = "checksum", .process = sk_process, .close = sk_close};

static void job(int64_t size, int64_t slide, sum *s)
{
    weir_job_config jc;
    weir_job_config_init(&jc);
    weir_job *j;
    if (weir_job_create(&jc, &j))
        exit(1);
    weir_source_spec ss = {.name = "events", .cls = &ms_cls, .schema = g_in};
    weir_watermark_spec wm = {.kind = WEIR_WATERMARK_BOUNDED, .delay_ms = DELAY};
    weir_stream st, win;
    weir_window_spec spec;
    weir_agg aggs[2];
    make_spec(&spec, aggs, size, slide);
    weir_error err = {0};
    weir_operator_spec sink = {.name = "checksum", .cls = &sk_cls, .create = sk_create, .arg = s};
    if (weir_job_source(j, &ss, &wm, 1, &st) || weir_job_window(j, st, g_in, &spec, 1, &win, &err) ||
        weir_job_sink(j, win, &sink, 1)) {
        fprintf(stderr, "job: %s %s\n", err.message, weir_job_error(j));
        exit(1);
    }
    if (weir_job_run(j)) {
        fprintf(stderr, "job failed: %s\n", weir_job_error(j));
        exit(1);
    }
    weir_job_destroy(j);
}

/* ---- measurement ---- */

typedef struct result {
    double wall, cpu;
    long rss_kb;
    sum s;
} result;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/*
 * Reads one word of every page of the input, before a child's clock starts.
 * A forked child's first access to each page it shares with the parent is
 * expensive on some virtual machines (on the shared VM these figures come
 * from, ~6 us a page under shadow paging: 37 ns an event, more than a third
 * of the plain loop) and costs nothing the pipelines differ in; every child
 * pays it here, untimed.
 */
static void map_input(void)
{
    volatile int64_t x = 0;
    for (uint64_t i = 0; i < g_n; i += 4096 / sizeof(int64_t))
        x += g_key[i] + g_v[i] + g_ts[i];
    (void)x;
}

static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec * 1e-6;
}

static void touch_input(sum *s)
{
    for (uint64_t i = 0; i < g_n; i++)
        s->cnt += g_key[i] + g_v[i] + g_ts[i];
}

enum { P_TOUCH, P_PLAIN, P_ENGINE, P_JOB };

static int g_cpu = -1; /* --cpu: the CPU every child (all its threads) is pinned to */

static result run_child(int what, int64_t size, int64_t slide)
{
    result *shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    memset(shared, 0, sizeof *shared);
    pid_t pid = fork();
    if (pid == 0) {
        if (g_cpu >= 0) {
            cpu_set_t set;
            CPU_ZERO(&set);
            CPU_SET(g_cpu, &set);
            if (sched_setaffinity(0, sizeof set, &set)) {
                perror("sched_setaffinity");
                _exit(1);
            }
        }
        map_input();
        double w0 = now_s(), c0 = cpu_s();
        sum s = {0};
        switch (what) {
        case P_TOUCH: touch_input(&s); break;
        case P_PLAIN: size == slide ? plain(size, slide, &s) : plain_hop(size, slide, &s); break;
        case P_ENGINE: engine(size, slide, &s); break;
        default: job(size, slide, &s); break;
        }
        shared->wall = now_s() - w0;
        shared->cpu = cpu_s() - c0;
        shared->s = s;
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        shared->rss_kb = ru.ru_maxrss;
        _exit(0);
    }
    int status;
    waitpid(pid, &status, 0);
    result r = *shared;
    munmap(shared, sizeof *shared);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "child failed\n");
        exit(1);
    }
    return r;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    int runs = 3;
    const char *outpath = NULL, *only = NULL, *window = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--events") && i + 1 < argc)
            g_n = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--out") && i + 1 < argc)
            outpath = argv[++i];
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else if (!strcmp(argv[i], "--window") && i + 1 < argc)
            window = argv[++i];
        else if (!strcmp(argv[i], "--cpu") && i + 1 < argc)
            g_cpu = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--events N] [--runs R] [--out FILE] [--only plain|engine|job] "
                            "[--window tumbling|hopping] [--cpu N]\n", argv[0]);
            return 2;
        }
    }
    if (runs < 1 || runs > 99)
        runs = 3;
    g_in = weir_schema_create();
    weir_schema_add(g_in, "k", weir_type_make(WEIR_TYPE_BIGINT, false));
    weir_schema_add(g_in, "v", weir_type_make(WEIR_TYPE_BIGINT, false));
    make_input();
    result base = run_child(P_TOUCH, 0, 0);

    static const struct {
        const char *window;
        int64_t size, slide;
    } wins[] = {{"tumbling 1 s", 1000, 1000}, {"hopping 10 s / 1 s", 10000, 1000}};
    static const char *pnames[] = {"", "plain", "engine", "job"};
    FILE *md = outpath ? fopen(outpath, "w") : NULL;
    if (md) {
        fprintf(md, "| windows | pipeline | M events/s (wall) | M events/s per core | vs plain (per core) | "
                    "peak RSS beyond input | result rows |\n|---|---|---:|---:|---:|---:|---:|\n");
    }
    printf("%" PRIu64 " events, %d keys, median of %d rounds (\"of plain\": the median of each round's ratio); "
           "input %.1f MiB (baseline child peak RSS %.1f MiB)\n",
           g_n, KEYS, runs, g_n * 24.0 / 1048576, base.rss_kb / 1024.0);
    for (int w = 0; w < 2; w++) {
        if (window && strncmp(wins[w].window, window, strlen(window)))
            continue;
        /* rounds: each runs every pipeline once, so a drift of the machine's speed hits them alike */
        double wall[4][99], core[4][99], rss[4][99], ratio[4][99];
        sum s[4] = {{0}};
        for (int r = 0; r < runs; r++) {
            for (int p = P_PLAIN; p <= P_JOB; p++) {
                if (only && strcmp(only, pnames[p]))
                    continue;
                result x = run_child(p, wins[w].size, wins[w].slide);
                wall[p][r] = g_n / x.wall / 1e6;
                core[p][r] = g_n / x.cpu / 1e6;
                rss[p][r] = (x.rss_kb - base.rss_kb) / 1024.0;
                ratio[p][r] = only ? 0 : core[p][r] / core[P_PLAIN][r];
                s[p] = x.s;
            }
        }
        sum ref = {0};
        for (int p = P_PLAIN; p <= P_JOB; p++) {
            if (only && strcmp(only, pnames[p]))
                continue;
            double mw = median(wall[p], runs), mc = median(core[p], runs), mr = median(rss[p], runs);
            double mq = only ? 0 : median(ratio[p], runs);
            bool agree = true;
            if (!ref.rows)
                ref = s[p];
            else
                agree = s[p].rows == ref.rows && s[p].cnt == ref.cnt && s[p].total == ref.total && s[p].mix == ref.mix;
            printf("%-20s %-7s %8.2f M ev/s  %8.2f M ev/s/core  %5.1f%% of plain  RSS +%6.1f MiB  rows %" PRIu64
                   "  count %" PRId64 "%s\n",
                   wins[w].window, pnames[p], mw, mc, 100 * mq, mr, s[p].rows, s[p].cnt,
                   agree ? "" : "  RESULTS DIFFER FROM THE PLAIN LOOP");
            if (md)
                fprintf(md, "| %s | %s | %.2f | %.2f | %.0f%% | %.1f MiB | %" PRIu64 " |\n", wins[w].window, pnames[p],
                        mw, mc, 100 * mq, mr, s[p].rows);
            if (!agree)
                return 1;
        }
    }
    if (md)
        fclose(md);
    weir_schema_destroy(g_in);
    free(g_key);
    free(g_v);
    free(g_ts);
    return 0;
}
