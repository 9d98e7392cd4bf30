/*
 * tests/test_nexmark_queries.c - the Nexmark queries of bench/nexmark/, run
 * end to end through the SQL layer on a small stream, checked against
 * results computed here from the generator API in plain loops.
 *
 * Each query file runs as the benchmark runs it (ddl.sql + qN.sql, the
 * reference runner's placeholders substituted) except that its blackhole
 * sink becomes a print sink writing to memory, and the source tables get a
 * seed and, where a query needs it, a base time. Every query runs at
 * parallelism 1 and 2 and both outputs must equal the expected rows (as
 * multisets; for updating queries, the table the changelog leaves).
 *
 * The expected results never go through weir's SQL, expressions, windows or
 * aggregates: events come from weir_nexmark_gen_event(), windows and
 * sessions are computed with sorting and loops, and values are printed in
 * the print sink's format (Flink's: +I[a, b, ...], timestamps as
 * yyyy-MM-ddTHH:mm[:ss[.SSS]]).
 *
 * NEXMARK_QUERIES_SEED=<n> changes the generator seed (printed).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "weir/nexmark.h"
#include "weir/planner.h"
#include "weir/weir.h"

#define EVENTS 20000
#define TPS 997 /* not a divisor of 1000 ms: bids land on window boundaries */

static uint64_t test_seed(void)
{
    static bool printed;
    const char *s = getenv("NEXMARK_QUERIES_SEED");
    uint64_t seed = s ? strtoull(s, NULL, 0) : 7;
    if (!printed) {
        fprintf(stderr, "test_nexmark_queries: seed %" PRIu64 " (set NEXMARK_QUERIES_SEED to change)\n", seed);
        printed = true;
    }
    return seed;
}

/* How a query is run: the stream's size and rate, and more connector
 * options (the same for the SQL tables and the generator here). */
typedef struct stream_cfg {
    int64_t events;
    int64_t tps;
    const char *opts[4][2]; /* key, value; NULL-terminated */
    const char *ddl;        /* file in bench/nexmark/; NULL: ddl.sql */
    int64_t clock_ms;       /* processing time: a manual clock frozen here; 0: the system clock */
    const char *prelude;    /* statements put before the DDL (SET ...), or NULL */
} stream_cfg;

/* ---- growable string lists ---- */

typedef struct lines {
    char **v;
    size_t n, cap;
} lines;

static void lines_push(lines *l, char *s)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 1024;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        cr_assert(l->v);
    }
    l->v[l->n++] = s;
}

static void lines_free(lines *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    char *s = NULL;
    cr_assert(vasprintf(&s, f, ap) >= 0);
    va_end(ap);
    return s;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Equal as multisets; prints the first difference. */
static void assert_same_rows(lines *got, lines *want, const char *what)
{
    qsort(got->v, got->n, sizeof *got->v, cmp_str);
    qsort(want->v, want->n, sizeof *want->v, cmp_str);
    size_t i = 0;
    while (i < got->n && i < want->n && !strcmp(got->v[i], want->v[i]))
        i++;
    if (i < got->n || i < want->n)
        cr_assert_fail("%s: %zu rows, expected %zu; first difference at sorted row %zu:\n  got      %s\n  expected %s",
                       what, got->n, want->n, i, i < got->n ? got->v[i] : "(none)",
                       i < want->n ? want->v[i] : "(none)");
}

/* ---- running a query file ---- */

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    cr_assert(s);
    cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = 0;
    fclose(f);
    return s;
}

/* Replaces every occurrence of `from` in *s by `to`. */
static void replace_all(char **s, const char *from, const char *to)
{
    size_t fl = strlen(from), tl = strlen(to), n = 0;
    for (const char *p = *s; (p = strstr(p, from)); p += fl)
        n++;
    char *out = malloc(strlen(*s) + n * tl + 1), *o = out;
    cr_assert(out);
    const char *p = *s, *q;
    while ((q = strstr(p, from))) {
        memcpy(o, p, (size_t)(q - p));
        o += q - p;
        memcpy(o, to, tl);
        o += tl;
        p = q + fl;
    }
    strcpy(o, p);
    free(*s);
    *s = out;
}

static char *query_script(const char *query, const stream_cfg *sc)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/bench/nexmark/%s", WEIR_SOURCE_DIR, sc->ddl ? sc->ddl : "ddl.sql");
    char *ddl = slurp(path);
    snprintf(path, sizeof path, "%s/bench/nexmark/%s.sql", WEIR_SOURCE_DIR, query);
    char *q = slurp(path);
    char *s = fmt("%s\n%s\n%s", sc->prelude ? sc->prelude : "", ddl, q);
    free(ddl);
    free(q);
    char num[64];
    snprintf(num, sizeof num, "%" PRId64, sc->tps);
    replace_all(&s, "${TPS}", num);
    snprintf(num, sizeof num, "%" PRId64, sc->events);
    replace_all(&s, "${EVENTS_NUM}", num);
    replace_all(&s, "${PERSON_PROPORTION}", "1");
    replace_all(&s, "${AUCTION_PROPORTION}", "3");
    replace_all(&s, "${BID_PROPORTION}", "46");
    snprintf(path, sizeof path, "%s/bench/nexmark", WEIR_SOURCE_DIR);
    replace_all(&s, "${NEXMARK_DATA}", path);
    char *extra = fmt("'connector' = 'nexmark',\n    'seed' = '%" PRIu64 "',", test_seed());
    for (int i = 0; i < 4 && sc->opts[i][0]; i++) {
        char *e = fmt("%s '%s' = '%s',", extra, sc->opts[i][0], sc->opts[i][1]);
        free(extra);
        extra = e;
    }
    replace_all(&s, "'connector' = 'nexmark',", extra);
    free(extra);
    replace_all(&s, "'connector' = 'blackhole'", "'connector' = 'print'");
    return s;
}

/* Plans and runs script at parallelism p; returns the printed rows without
 * the "N> " subtask prefix. */
static void run_script(const char *name, const char *script, uint32_t p, int64_t clock_ms, lines *out)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    cr_assert(mem);
    char par[16];
    snprintf(par, sizeof par, "%" PRIu32, p);
    const char *keys[] = {"parallelism.default"}, *vals[] = {par};
    weir_sql_job_options opt = {.set_keys = keys, .set_values = vals, .n_set = 1, .print_out = mem};
    weir_manual_clock *mc = clock_ms ? weir_manual_clock_create(clock_ms) : NULL;
    if (mc)
        opt.clock = weir_manual_clock_get(mc);
    weir_sql_job *sj = NULL;
    weir_error err = {0};
    int rc = weir_sql_job_create(name, script, strlen(script), &opt, &sj, &err);
    cr_assert_eq(rc, 0, "%s does not plan: %s", name, err.message);
    weir_job *job = weir_sql_job_graph(sj);
    cr_assert(job);
    rc = weir_job_run(job);
    cr_assert_eq(rc, 0, "%s (parallelism %u) failed: %s", name, p, weir_job_error(job));
    weir_sql_job_destroy(sj);
    if (mc)
        weir_manual_clock_destroy(mc);
    fclose(mem);
    memset(out, 0, sizeof *out);
    for (char *line = buf, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl)
            *nl = 0;
        char *s = line;
        char *gt = strstr(s, "> ");
        if (gt && gt > s && strspn(s, "0123456789") == (size_t)(gt - s))
            s = gt + 2;
        if (*s)
            lines_push(out, strdup(s));
    }
    free(buf);
}

/*
 * Folds a changelog into the table it describes: +I and +U add a row, -U
 * and -D take one away (which must be there). The rows lose their kind.
 */
static void fold_changelog(lines *log, lines *table)
{
    memset(table, 0, sizeof *table);
    for (size_t i = 0; i < log->n; i++) {
        const char *r = log->v[i];
        cr_assert(strlen(r) > 2 && (r[0] == '+' || r[0] == '-'), "not a changelog row: %s", r);
        const char *body = r + 2;
        if (r[0] == '+') {
            lines_push(table, strdup(body));
            continue;
        }
        size_t k = table->n;
        while (k > 0 && strcmp(table->v[k - 1], body))
            k--;
        cr_assert(k > 0, "retraction of a row that is not in the table: %s", r);
        free(table->v[k - 1]);
        table->v[k - 1] = table->v[--table->n];
    }
}

/* Prefixes every expected row with its kind. */
static void as_inserts(lines *l)
{
    for (size_t i = 0; i < l->n; i++) {
        char *s = fmt("+I%s", l->v[i]);
        free(l->v[i]);
        l->v[i] = s;
    }
}

typedef void (*expect_fn)(const stream_cfg *sc, lines *want);

/* Rewrites rows so that results equal up to an allowed difference compare equal (or NULL). */
static void (*normalize)(lines *l);

/* Runs query at parallelism 1 and 2; both must give the expected rows. */
static void check_query(const char *query, const stream_cfg *sc, expect_fn expect, bool updating)
{
    char *script = query_script(query, sc);
    lines want;
    memset(&want, 0, sizeof want);
    expect(sc, &want);
    if (!updating)
        as_inserts(&want);
    cr_assert_gt(want.n, 0, "%s: the expected result is empty; the test would prove nothing", query);
    for (uint32_t p = 1; p <= 2; p++) {
        lines got, table;
        run_script(query, script, p, sc->clock_ms, &got);
        char what[64];
        snprintf(what, sizeof what, "%s at parallelism %u", query, p);
        if (updating) {
            fold_changelog(&got, &table);
            lines_free(&got);
            got = table;
        }
        lines w2;
        memset(&w2, 0, sizeof w2);
        for (size_t i = 0; i < want.n; i++)
            lines_push(&w2, strdup(want.v[i]));
        if (normalize) {
            normalize(&got);
            normalize(&w2);
        }
        assert_same_rows(&got, &w2, what);
        lines_free(&got);
        lines_free(&w2);
    }
    lines_free(&want);
    free(script);
}

/* ---- the independent side: events and formatting ---- */

typedef struct bid_row {
    int64_t auction, bidder, price, ts;
    char channel[64], url[256], extra[1024];
} bid_row;

typedef struct bids {
    bid_row *v;
    size_t n;
} bids;

static void gen_bids(const stream_cfg *sc, bids *out)
{
    weir_nexmark_config c;
    weir_nexmark_config_init(&c);
    c.seed = test_seed();
    c.events_num = sc->events;
    c.first_event_rate = c.next_event_rate = (uint32_t)sc->tps;
    weir_error err = {0};
    for (int i = 0; i < 4 && sc->opts[i][0]; i++)
        cr_assert_eq(weir_nexmark_config_set(&c, sc->opts[i][0], sc->opts[i][1], &err), 0, "%s", err.message);
    weir_nexmark_gen *g;
    cr_assert_eq(weir_nexmark_gen_create(&c, &g, &err), 0, "%s", err.message);
    out->v = calloc((size_t)sc->events, sizeof *out->v);
    out->n = 0;
    cr_assert(out->v);
    weir_nexmark_event ev;
    for (uint64_t n = 0; n < (uint64_t)sc->events; n++) {
        if (weir_nexmark_gen_kind(g, n) != WEIR_NEXMARK_BID)
            continue;
        weir_nexmark_gen_event(g, n, &ev);
        const weir_nexmark_bid *b = &ev.u.bid;
        bid_row *r = &out->v[out->n++];
        r->auction = b->auction;
        r->bidder = b->bidder;
        r->price = b->price;
        r->ts = ev.ts_ms;
        cr_assert(b->channel_len < sizeof r->channel && b->url_len < sizeof r->url &&
                  b->extra_len < sizeof r->extra);
        memcpy(r->channel, b->channel, b->channel_len);
        memcpy(r->url, b->url, b->url_len);
        memcpy(r->extra, b->extra, b->extra_len);
    }
    weir_nexmark_gen_destroy(g);
}

/* A TIMESTAMP(3) as the print sink shows it (Java's LocalDateTime). */
static void fmt_ts(int64_t ms, char *out, size_t n)
{
    time_t sec = (time_t)(ms / 1000);
    int milli = (int)(ms % 1000);
    if (milli < 0) {
        milli += 1000;
        sec -= 1;
    }
    struct tm tm;
    gmtime_r(&sec, &tm);
    int k = snprintf(out, n, "%04d-%02d-%02dT%02d:%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                     tm.tm_min);
    if (tm.tm_sec || milli)
        k += snprintf(out + k, n - (size_t)k, ":%02d", tm.tm_sec);
    if (milli)
        snprintf(out + k, n - (size_t)k, ".%03d", milli);
}

static int hour_of(int64_t ms)
{
    time_t sec = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&sec, &tm);
    return tm.tm_hour;
}

static void day_of(int64_t ms, char *out, size_t n)
{
    time_t sec = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&sec, &tm);
    snprintf(out, n, "%04d-%02d-%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
}

/* 0.908 * price as DECIMAL(18, 3): exactly price * 908 thousandths. */
static void fmt_euro(int64_t price, char *out, size_t n)
{
    int64_t m = price * 908;
    snprintf(out, n, "%" PRId64 ".%03" PRId64, m / 1000, m % 1000);
}

/* ---- expected results ---- */

static void expect_q0(const stream_cfg *sc, lines *want)
{
    bids b;
    gen_bids(sc, &b);
    for (size_t i = 0; i < b.n; i++) {
        char ts[40];
        fmt_ts(b.v[i].ts, ts, sizeof ts);
        lines_push(want, fmt("[%" PRId64 ", %" PRId64 ", %" PRId64 ", %s, %s]", b.v[i].auction, b.v[i].bidder,
                             b.v[i].price, ts, b.v[i].extra));
    }
    free(b.v);
}

/* q13: every bid with the side input's value of auction % 10000 (side_input.csv: 'side-<key>'). */
static void expect_q13(const stream_cfg *sc, lines *want)
{
    bids b;
    gen_bids(sc, &b);
    for (size_t i = 0; i < b.n; i++) {
        char ts[40];
        fmt_ts(b.v[i].ts, ts, sizeof ts);
        lines_push(want, fmt("[%" PRId64 ", %" PRId64 ", %" PRId64 ", %s, side-%" PRId64 "]", b.v[i].auction,
                             b.v[i].bidder, b.v[i].price, ts, b.v[i].auction % 10000));
    }
    free(b.v);
}

static void expect_q1(const stream_cfg *sc, lines *want)
{
    bids b;
    gen_bids(sc, &b);
    for (size_t i = 0; i < b.n; i++) {
        char ts[40], eur[40];
        fmt_ts(b.v[i].ts, ts, sizeof ts);
        fmt_euro(b.v[i].price, eur, sizeof eur);
        lines_push(want, fmt("[%" PRId64 ", %" PRId64 ", %s, %s, %s]", b.v[i].auction, b.v[i].bidder, eur, ts,
                             b.v[i].extra));
    }
    free(b.v);
}

static void expect_q2(const stream_cfg *sc, lines *want)
{
    bids b;
    gen_bids(sc, &b);
    for (size_t i = 0; i < b.n; i++)
        if (b.v[i].auction % 123 == 0)
            lines_push(want, fmt("[%" PRId64 ", %" PRId64 "]", b.v[i].auction, b.v[i].price));
    free(b.v);
}

/* HOP(2 s slide, 10 s size) COUNT(*) per auction: each bid counts in the
 * five windows [s, s + 10 s) with s a multiple of 2 s and s <= ts < s + 10 s. */
typedef struct win_count {
    int64_t auction, start, n;
} win_count;

static int cmp_win(const void *a, const void *b)
{
    const win_count *x = a, *y = b;
    if (x->auction != y->auction)
        return x->auction < y->auction ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;
}

static void expect_q5_hop(const stream_cfg *sc, lines *want)
{
    bids b;
    gen_bids(sc, &b);
    const int64_t slide = 2000, size = 10000;
    win_count *w = calloc(b.n * 5, sizeof *w);
    cr_assert(w);
    size_t n = 0;
    for (size_t i = 0; i < b.n; i++) {
        int64_t last = b.v[i].ts - b.v[i].ts % slide; /* ts >= 0 here */
        for (int64_t s = last; s > b.v[i].ts - size; s -= slide)
            w[n++] = (win_count){b.v[i].auction, s, 1};
    }
    qsort(w, n, sizeof *w, cmp_win);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && w[j].auction == w[i].auction && w[j].start == w[i].start)
            j++;
        char s0[40], s1[40];
        fmt_ts(w[i].start, s0, sizeof s0);
        fmt_ts(w[i].start + size, s1, sizeof s1);
        lines_push(want, fmt("[%" PRId64 ", %zu, %s, %s]", w[i].auction, j - i, s0, s1));
        i = j;
    }
    free(w);
    free(b.v);
}

static int cmp_bidder_ts(const void *a, const void *b)
{
    const bid_row *x = a, *y = b;
    if (x->bidder != y->bidder)
        return x->bidder < y->bidder ? -1 : 1;
    return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* SESSION(10 s) per bidder: a bid at t joins the open session if
 * t <= its end (touching sessions merge); a session ends at last + gap. */
static void expect_q11(const stream_cfg *sc, lines *want)
{
    bids b;
    gen_bids(sc, &b);
    const int64_t gap = 10000;
    qsort(b.v, b.n, sizeof *b.v, cmp_bidder_ts);
    for (size_t i = 0; i < b.n;) {
        int64_t start = b.v[i].ts, end = b.v[i].ts + gap, count = 1;
        size_t j = i + 1;
        while (j < b.n && b.v[j].bidder == b.v[i].bidder && b.v[j].ts <= end) {
            if (b.v[j].ts + gap > end)
                end = b.v[j].ts + gap;
            count++;
            j++;
        }
        char s0[40], s1[40];
        fmt_ts(start, s0, sizeof s0);
        fmt_ts(end, s1, sizeof s1);
        lines_push(want, fmt("[%" PRId64 ", %" PRId64 ", %s, %s]", b.v[i].bidder, count, s0, s1));
        i = j;
    }
    free(b.v);
}

static void expect_q14(const stream_cfg *sc, lines *want)
{
    bids b;
    gen_bids(sc, &b);
    for (size_t i = 0; i < b.n; i++) {
        const bid_row *r = &b.v[i];
        int64_t m = r->price * 908; /* thousandths of 0.908 * price */
        if (!(m > INT64_C(1000000000) && m < INT64_C(50000000000)))
            continue;
        int h = hour_of(r->ts);
        const char *type = h >= 8 && h <= 18 ? "dayTime" : h <= 6 || h >= 20 ? "nightTime" : "otherTime";
        int64_t cs = 0;
        for (const char *p = r->extra; *p; p++)
            cs += *p == 'c';
        char ts[40], eur[40];
        fmt_ts(r->ts, ts, sizeof ts);
        fmt_euro(r->price, eur, sizeof eur);
        lines_push(want, fmt("[%" PRId64 ", %" PRId64 ", %s, %s, %s, %s, %" PRId64 "]", r->auction, r->bidder, eur,
                             type, ts, r->extra, cs));
    }
    free(b.v);
}

/* REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2), by hand: the leftmost
 * "channel_id=" at the start or after '&', up to the next '&'. */
static bool channel_id_of(const char *url, char *out, size_t n)
{
    const char *key = "channel_id=";
    for (const char *p = url; (p = strstr(p, key)); p++) {
        if (p != url && p[-1] != '&')
            continue;
        const char *v = p + strlen(key);
        size_t len = strcspn(v, "&");
        snprintf(out, n, "%.*s", (int)len, v);
        return true;
    }
    return false;
}

static void expect_q21(const stream_cfg *sc, lines *want)
{
    bids b;
    gen_bids(sc, &b);
    static const char *const named[4] = {"apple", "google", "facebook", "baidu"};
    for (size_t i = 0; i < b.n; i++) {
        const bid_row *r = &b.v[i];
        char id[256];
        bool have = false;
        for (int k = 0; k < 4 && !have; k++)
            if (!strcasecmp(r->channel, named[k])) {
                snprintf(id, sizeof id, "%d", k);
                have = true;
            }
        if (!have && !channel_id_of(r->url, id, sizeof id))
            continue;
        lines_push(want, fmt("[%" PRId64 ", %" PRId64 ", %" PRId64 ", %s, %s]", r->auction, r->bidder, r->price,
                             r->channel, id));
    }
    free(b.v);
}

/* SPLIT_INDEX(url, '/', k): the k-th piece (from 0) of url split at '/'. */
static void split_piece(const char *url, int k, char *out, size_t n)
{
    const char *p = url;
    for (int i = 0; i < k && p; i++) {
        p = strchr(p, '/');
        if (p)
            p++;
    }
    if (!p) {
        snprintf(out, n, "null");
        return;
    }
    snprintf(out, n, "%.*s", (int)strcspn(p, "/"), p);
}

static void expect_q22(const stream_cfg *sc, lines *want)
{
    bids b;
    gen_bids(sc, &b);
    for (size_t i = 0; i < b.n; i++) {
        const bid_row *r = &b.v[i];
        char d[3][256];
        for (int k = 0; k < 3; k++)
            split_piece(r->url, 3 + k, d[k], sizeof d[k]);
        lines_push(want, fmt("[%" PRId64 ", %" PRId64 ", %" PRId64 ", %s, %s, %s, %s]", r->auction, r->bidder,
                             r->price, r->channel, d[0], d[1], d[2]));
    }
    free(b.v);
}

/* ---- the statistics reports (q15-q17): grouped, with distinct counts ---- */

static int rank_of(int64_t price) { return price < 10000 ? 1 : price < 1000000 ? 2 : 3; }

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Number of distinct values among v[0..n) (sorts v). */
static int64_t n_distinct(int64_t *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_i64);
    int64_t d = 0;
    for (size_t i = 0; i < n; i++)
        d += i == 0 || v[i] != v[i - 1];
    return d;
}

/* total, rank1..3 bids; total, rank1..3 distinct bidders; the same for
 * auctions - the twelve numbers of q15 and q16, over rows [i, j) of b. */
static char *stats12(const bid_row *const *rows, size_t n)
{
    int64_t bids_n[4] = {0}, out_b[4], out_a[4];
    int64_t *bv = malloc((n + 1) * sizeof *bv), *av = malloc((n + 1) * sizeof *av);
    cr_assert(bv && av);
    for (int rk = 0; rk < 4; rk++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            if (rk && rank_of(rows[i]->price) != rk)
                continue;
            bv[m] = rows[i]->bidder;
            av[m] = rows[i]->auction;
            m++;
        }
        bids_n[rk] = (int64_t)m;
        out_b[rk] = n_distinct(bv, m);
        out_a[rk] = n_distinct(av, m);
    }
    free(bv);
    free(av);
    return fmt("%" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64
               ", %" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64,
               bids_n[0], bids_n[1], bids_n[2], bids_n[3], out_b[0], out_b[1], out_b[2], out_b[3], out_a[0],
               out_a[1], out_a[2], out_a[3]);
}

typedef struct keyed_bid {
    char key[128];
    const bid_row *row;
} keyed_bid;

static int cmp_keyed(const void *a, const void *b)
{
    return strcmp(((const keyed_bid *)a)->key, ((const keyed_bid *)b)->key);
}

/* Groups the bids by a text key; calls emit(key, rows, n) per group. */
static void group_bids(const bids *b, void (*key_of)(const bid_row *, char *, size_t),
                       void (*emit)(const char *key, const bid_row *const *rows, size_t n, lines *want), lines *want)
{
    keyed_bid *k = calloc(b->n + 1, sizeof *k);
    const bid_row **rows = calloc(b->n + 1, sizeof *rows);
    cr_assert(k && rows);
    for (size_t i = 0; i < b->n; i++) {
        key_of(&b->v[i], k[i].key, sizeof k[i].key);
        k[i].row = &b->v[i];
    }
    qsort(k, b->n, sizeof *k, cmp_keyed);
    for (size_t i = 0; i < b->n;) {
        size_t j = i;
        while (j < b->n && !strcmp(k[j].key, k[i].key)) {
            rows[j - i] = k[j].row;
            j++;
        }
        emit(k[i].key, rows, j - i, want);
        i = j;
    }
    free(k);
    free(rows);
}

static void key_day(const bid_row *r, char *out, size_t n) { day_of(r->ts, out, n); }

static void emit_q15(const char *key, const bid_row *const *rows, size_t n, lines *want)
{
    char *s = stats12(rows, n);
    lines_push(want, fmt("[%s, %s]", key, s));
    free(s);
}

static void expect_q15(const stream_cfg *sc, lines *want)
{
    bids b;
    gen_bids(sc, &b);
    group_bids(&b, key_day, emit_q15, want);
    free(b.v);
}

static void key_channel_day(const bid_row *r, char *out, size_t n)
{
    char d[48];
    day_of(r->ts, d, sizeof d);
    snprintf(out, n, "%s, %s", r->channel, d);
}

static void emit_q16(const char *key, const bid_row *const *rows, size_t n, lines *want)
{
    /* max(DATE_FORMAT(dateTime, 'HH:mm')): the latest minute, as text */
    char minute[32] = "", m[32];
    for (size_t i = 0; i < n; i++) {
        time_t sec = (time_t)(rows[i]->ts / 1000);
        struct tm tm;
        gmtime_r(&sec, &tm);
        snprintf(m, sizeof m, "%02d:%02d", tm.tm_hour, tm.tm_min);
        if (strcmp(m, minute) > 0)
            memcpy(minute, m, sizeof m);
    }
    char *s = stats12(rows, n);
    lines_push(want, fmt("[%s, %s, %s]", key, minute, s));
    free(s);
}

static void expect_q16(const stream_cfg *sc, lines *want)
{
    bids b;
    gen_bids(sc, &b);
    group_bids(&b, key_channel_day, emit_q16, want);
    free(b.v);
}

static void key_auction_day(const bid_row *r, char *out, size_t n)
{
    char d[48];
    day_of(r->ts, d, sizeof d);
    snprintf(out, n, "%020" PRId64 ", %s", r->auction, d);
}

static void emit_q17(const char *key, const bid_row *const *rows, size_t n, lines *want)
{
    int64_t rank[4] = {0}, mn = INT64_MAX, mx = INT64_MIN, sum = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t p = rows[i]->price;
        rank[rank_of(p)]++;
        mn = p < mn ? p : mn;
        mx = p > mx ? p : mx;
        sum += p;
    }
    /* AVG of a BIGINT is a BIGINT (truncated), as in Flink */
    lines_push(want, fmt("[%" PRId64 ", %s, %zu, %" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64
                         ", %" PRId64 ", %" PRId64 "]",
                         rows[0]->auction, strchr(key, ',') + 2, n, rank[1], rank[2], rank[3], mn, mx,
                         sum / (int64_t)n, sum));
}

static void expect_q17(const stream_cfg *sc, lines *want)
{
    bids b;
    gen_bids(sc, &b);
    group_bids(&b, key_auction_day, emit_q17, want);
    free(b.v);
}

/*
 * q12 with the clock frozen: every bid reaches the window at the same
 * processing time, so each bidder has one window, the 10 s window that
 * holds the clock's time, with all its bids; it fires at the end of input
 * (docs/sql.md). The bids' own times play no part.
 */
static void expect_q12(const stream_cfg *sc, lines *want)
{
    bids b;
    gen_bids(sc, &b);
    int64_t *bidders = malloc((b.n + 1) * sizeof *bidders);
    cr_assert(bidders);
    for (size_t i = 0; i < b.n; i++)
        bidders[i] = b.v[i].bidder;
    qsort(bidders, b.n, sizeof *bidders, cmp_i64);
    int64_t start = sc->clock_ms - sc->clock_ms % 10000;
    char ws[40], we[40];
    fmt_ts(start, ws, sizeof ws);
    fmt_ts(start + 10000, we, sizeof we);
    for (size_t i = 0, j; i < b.n; i = j) {
        for (j = i; j < b.n && bidders[j] == bidders[i]; j++)
            ;
        lines_push(want, fmt("[%" PRId64 ", %zu, %s, %s]", bidders[i], j - i, ws, we));
    }
    free(bidders);
    free(b.v);
}

/* ---- the join queries (q3, q5, q20) ---- */

/* Calls fn for every event of the stream (events in number order). */
static void each_event(const stream_cfg *sc, void (*fn)(void *ud, const weir_nexmark_event *ev), void *ud)
{
    weir_nexmark_config c;
    weir_nexmark_config_init(&c);
    c.seed = test_seed();
    c.events_num = sc->events;
    c.first_event_rate = c.next_event_rate = (uint32_t)sc->tps;
    weir_error err = {0};
    for (int i = 0; i < 4 && sc->opts[i][0]; i++)
        cr_assert_eq(weir_nexmark_config_set(&c, sc->opts[i][0], sc->opts[i][1], &err), 0, "%s", err.message);
    weir_nexmark_gen *g;
    cr_assert_eq(weir_nexmark_gen_create(&c, &g, &err), 0, "%s", err.message);
    weir_nexmark_event ev;
    for (uint64_t n = 0; n < (uint64_t)sc->events; n++) {
        weir_nexmark_gen_event(g, n, &ev);
        fn(ud, &ev);
    }
    weir_nexmark_gen_destroy(g);
}

/* The auctions and people of the stream, as the print sink shows their columns. */
typedef struct auction_row {
    int64_t id, seller, category;
    int64_t ts, expires;
    char *cols; /* "itemName, description, initialBid, reserve, dateTime, expires, seller, category, extra" */
} auction_row;

typedef struct person_row {
    int64_t id;
    char *cols; /* "name, city, state" */
    char state[8];
} person_row;

typedef struct world {
    auction_row *a;
    size_t na;
    person_row *p;
    size_t np;
} world;

static void world_add(void *ud, const weir_nexmark_event *ev)
{
    world *w = ud;
    if (ev->kind == WEIR_NEXMARK_AUCTION) {
        const weir_nexmark_auction *a = &ev->u.auction;
        char t0[40], t1[40];
        fmt_ts(a->date_time_ms, t0, sizeof t0);
        fmt_ts(a->expires_ms, t1, sizeof t1);
        w->a = realloc(w->a, (w->na + 1) * sizeof *w->a);
        cr_assert(w->a);
        w->a[w->na++] = (auction_row){a->id, a->seller, a->category, a->date_time_ms, a->expires_ms,
                                      fmt("%.*s, %.*s, %" PRId64 ", %" PRId64 ", %s, %s, %" PRId64 ", %" PRId64 ", %.*s",
                                          (int)a->item_name_len, a->item_name, (int)a->description_len,
                                          a->description, a->initial_bid, a->reserve, t0, t1, a->seller,
                                          a->category, (int)a->extra_len, a->extra)};
    } else if (ev->kind == WEIR_NEXMARK_PERSON) {
        const weir_nexmark_person *p = &ev->u.person;
        w->p = realloc(w->p, (w->np + 1) * sizeof *w->p);
        cr_assert(w->p);
        person_row *r = &w->p[w->np++];
        r->id = p->id;
        r->cols = fmt("%.*s, %.*s, %.*s", (int)p->name_len, p->name, (int)p->city_len, p->city, (int)p->state_len,
                      p->state);
        snprintf(r->state, sizeof r->state, "%.*s", (int)p->state_len, p->state);
    }
}

static void world_free(world *w)
{
    for (size_t i = 0; i < w->na; i++)
        free(w->a[i].cols);
    for (size_t i = 0; i < w->np; i++)
        free(w->p[i].cols);
    free(w->a);
    free(w->p);
}

/* q3: auctions of category 10 joined with their sellers living in OR, ID or CA. */
static void expect_q3(const stream_cfg *sc, lines *want)
{
    world w = {0};
    each_event(sc, world_add, &w);
    for (size_t i = 0; i < w.na; i++) {
        if (w.a[i].category != 10)
            continue;
        for (size_t k = 0; k < w.np; k++) {
            const person_row *p = &w.p[k];
            if (p->id == w.a[i].seller &&
                (!strcmp(p->state, "OR") || !strcmp(p->state, "ID") || !strcmp(p->state, "CA")))
                lines_push(want, fmt("[%s, %" PRId64 "]", p->cols, w.a[i].id));
        }
    }
    world_free(&w);
}

/* q20: every bid joined with its auction, when the auction is of category 10. */
static void expect_q20(const stream_cfg *sc, lines *want)
{
    world w = {0};
    each_event(sc, world_add, &w);
    bids b;
    gen_bids(sc, &b);
    for (size_t i = 0; i < b.n; i++) {
        const bid_row *r = &b.v[i];
        for (size_t k = 0; k < w.na; k++) {
            if (w.a[k].id != r->auction || w.a[k].category != 10)
                continue;
            char ts[40];
            fmt_ts(r->ts, ts, sizeof ts);
            lines_push(want, fmt("[%" PRId64 ", %" PRId64 ", %" PRId64 ", %s, %s, %s, %s, %s]", r->auction, r->bidder,
                                 r->price, r->channel, r->url, ts, r->extra, w.a[k].cols));
        }
    }
    free(b.v);
    world_free(&w);
}

static int cmp_start_auction(const void *a, const void *b)
{
    const win_count *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->auction < y->auction ? -1 : x->auction > y->auction;
}

/*
 * q5: per HOP(2 s, 10 s) window the auctions whose bid count is the
 * window's maximum (the table the changelog leaves).
 */
static void expect_q5(const stream_cfg *sc, lines *want)
{
    bids b;
    gen_bids(sc, &b);
    const int64_t slide = 2000, size = 10000;
    win_count *w = calloc(b.n * 5 + 1, sizeof *w);
    cr_assert(w);
    size_t n = 0;
    for (size_t i = 0; i < b.n; i++) {
        int64_t last = b.v[i].ts - b.v[i].ts % slide;
        for (int64_t s = last; s > b.v[i].ts - size; s -= slide)
            w[n++] = (win_count){b.v[i].auction, s, 1};
    }
    qsort(w, n, sizeof *w, cmp_start_auction);
    /* counts per (window, auction), in window order */
    size_t m = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && w[j].auction == w[i].auction && w[j].start == w[i].start)
            j++;
        w[m++] = (win_count){w[i].auction, w[i].start, (int64_t)(j - i)};
        i = j;
    }
    for (size_t i = 0; i < m;) {
        size_t j = i;
        int64_t max = 0;
        while (j < m && w[j].start == w[i].start) {
            if (w[j].n > max)
                max = w[j].n;
            j++;
        }
        for (size_t k = i; k < j; k++)
            if (w[k].n == max)
                lines_push(want, fmt("[%" PRId64 ", %" PRId64 "]", w[k].auction, w[k].n));
        i = j;
    }
    free(w);
    free(b.v);
}

/* The auctions with their numbers (for q4 and q8). */
typedef struct auc {
    int64_t id, ts, expires, seller, category;
} auc;

typedef struct pers {
    int64_t id, ts;
    char name[64];
} pers;

typedef struct world2 {
    auc *a;
    size_t na;
    pers *p;
    size_t np;
} world2;

static void world2_add(void *ud, const weir_nexmark_event *ev)
{
    world2 *w = ud;
    if (ev->kind == WEIR_NEXMARK_AUCTION) {
        const weir_nexmark_auction *a = &ev->u.auction;
        w->a = realloc(w->a, (w->na + 1) * sizeof *w->a);
        cr_assert(w->a);
        w->a[w->na++] = (auc){a->id, a->date_time_ms, a->expires_ms, a->seller, a->category};
    } else if (ev->kind == WEIR_NEXMARK_PERSON) {
        const weir_nexmark_person *p = &ev->u.person;
        w->p = realloc(w->p, (w->np + 1) * sizeof *w->p);
        cr_assert(w->p);
        pers *r = &w->p[w->np++];
        r->id = p->id;
        r->ts = p->date_time_ms;
        cr_assert(p->name_len < sizeof r->name);
        snprintf(r->name, sizeof r->name, "%.*s", (int)p->name_len, p->name);
    }
}

/*
 * q4: per auction the highest bid placed between its start and its expiry
 * (both included), then per category the average of those (BIGINT AVG:
 * the sum divided by the count, truncated).
 */
static void expect_q4(const stream_cfg *sc, lines *want)
{
    world2 w = {0};
    each_event(sc, world2_add, &w);
    bids b;
    gen_bids(sc, &b);
    int64_t sum[64] = {0}, cnt[64] = {0};
    for (size_t k = 0; k < w.na; k++) {
        int64_t max = -1;
        for (size_t i = 0; i < b.n; i++)
            if (b.v[i].auction == w.a[k].id && b.v[i].ts >= w.a[k].ts && b.v[i].ts <= w.a[k].expires &&
                b.v[i].price > max)
                max = b.v[i].price;
        if (max < 0)
            continue;
        cr_assert(w.a[k].category >= 0 && w.a[k].category < 64);
        sum[w.a[k].category] += max;
        cnt[w.a[k].category]++;
    }
    for (int c = 0; c < 64; c++)
        if (cnt[c])
            lines_push(want, fmt("[%d, %" PRId64 "]", c, sum[c] / cnt[c]));
    free(b.v);
    free(w.a);
    free(w.p);
}

/*
 * q7: per TUMBLE(10 s) window its highest price; the bids of that price
 * whose time lies in [window_end - 10 s, window_end] (BETWEEN includes both
 * ends, so a bid at window_end matches the window before its own too).
 */
static void expect_q7(const stream_cfg *sc, lines *want)
{
    bids b;
    gen_bids(sc, &b);
    const int64_t size = 10000;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < b.n; i++) {
        lo = b.v[i].ts < lo ? b.v[i].ts : lo;
        hi = b.v[i].ts > hi ? b.v[i].ts : hi;
    }
    for (int64_t s = lo - lo % size; s <= hi; s += size) {
        int64_t max = -1;
        for (size_t i = 0; i < b.n; i++)
            if (b.v[i].ts >= s && b.v[i].ts < s + size && b.v[i].price > max)
                max = b.v[i].price;
        if (max < 0)
            continue;
        for (size_t i = 0; i < b.n; i++) {
            const bid_row *r = &b.v[i];
            if (r->price != max || r->ts < s || r->ts > s + size)
                continue;
            char ts[40];
            fmt_ts(r->ts, ts, sizeof ts);
            lines_push(want, fmt("[%" PRId64 ", %" PRId64 ", %" PRId64 ", %s, %s]", r->auction, r->price, r->bidder,
                                 ts, r->extra));
        }
    }
    free(b.v);
}

/* q8: people who joined in a TUMBLE(10 s) window and opened an auction in that same window. */
static void expect_q8(const stream_cfg *sc, lines *want)
{
    world2 w = {0};
    each_event(sc, world2_add, &w);
    const int64_t size = 10000;
    for (size_t i = 0; i < w.np; i++) {
        int64_t s = w.p[i].ts - w.p[i].ts % size;
        bool dup = false;
        for (size_t k = 0; k < i && !dup; k++)
            dup = w.p[k].id == w.p[i].id && !strcmp(w.p[k].name, w.p[i].name) && w.p[k].ts - w.p[k].ts % size == s;
        if (dup)
            continue;
        for (size_t k = 0; k < w.na; k++) {
            if (w.a[k].seller == w.p[i].id && w.a[k].ts - w.a[k].ts % size == s) {
                char t0[40];
                fmt_ts(s, t0, sizeof t0);
                lines_push(want, fmt("[%" PRId64 ", %s, %s]", w.p[i].id, w.p[i].name, t0));
                break;
            }
        }
    }
    free(w.a);
    free(w.p);
}

/* ---- the tests ---- */

/* ---- Top-N and deduplication (q9, q18, q19) ---- */

/* A bid as the print sink shows bid's seven columns. */
static char *bid_cols(const bid_row *r)
{
    char ts[40];
    fmt_ts(r->ts, ts, sizeof ts);
    return fmt("%" PRId64 ", %" PRId64 ", %" PRId64 ", %s, %s, %s, %s", r->auction, r->bidder, r->price, r->channel,
               r->url, ts, r->extra);
}

/*
 * Bids ordered by key, then as the ranking orders them within the key; equal
 * ranking keys keep the generator's order (the arrival order at parallelism
 * 1). At parallelism 2 two tied rows may arrive either way, so the tests
 * check that their streams have no tie where it would decide a row.
 */
static int (*rank_cmp)(const bid_row *, const bid_row *);
static int cmp_ranked(const void *a, const void *b)
{
    const bid_row *x = *(const bid_row *const *)a, *y = *(const bid_row *const *)b;
    int c = rank_cmp(x, y);
    return c ? c : (x > y) - (x < y);
}

/* q18: per (bidder, auction), the bid with the latest dateTime: ORDER BY dateTime DESC, keep the last. */
static int q18_cmp(const bid_row *x, const bid_row *y)
{
    if (x->bidder != y->bidder)
        return x->bidder < y->bidder ? -1 : 1;
    if (x->auction != y->auction)
        return x->auction < y->auction ? -1 : 1;
    return (x->ts > y->ts) - (x->ts < y->ts);
}

static void expect_q18(const stream_cfg *sc, lines *want)
{
    bids b;
    gen_bids(sc, &b);
    const bid_row **v = calloc(b.n, sizeof *v);
    cr_assert(v);
    for (size_t i = 0; i < b.n; i++)
        v[i] = &b.v[i];
    rank_cmp = q18_cmp;
    qsort(v, b.n, sizeof *v, cmp_ranked);
    size_t keys = 0, dups = 0;
    for (size_t i = 0; i < b.n; i++) {
        bool last = i + 1 == b.n || v[i + 1]->bidder != v[i]->bidder || v[i + 1]->auction != v[i]->auction;
        if (!last) {
            dups++;
            continue;
        }
        /* the latest bid; two latest ones in one millisecond would be kept by arrival order */
        bool tie = i > 0 && q18_cmp(v[i - 1], v[i]) == 0;
        cr_assert(!tie,
                  "seed %" PRIu64 ": bidder %" PRId64 " bid twice on auction %" PRId64
                  " in one millisecond; the kept row would depend on arrival order",
                  test_seed(), v[i]->bidder, v[i]->auction);
        char *c = bid_cols(v[i]);
        lines_push(want, fmt("[%s]", c));
        free(c);
        keys++;
    }
    cr_assert_gt(dups, 100, "too few repeated (bidder, auction) pairs to test deduplication: %zu", dups);
    free(v);
    free(b.v);
}

/* q19: the 10 highest bids of each auction, with their rank: ORDER BY price DESC. */
static int q19_cmp(const bid_row *x, const bid_row *y)
{
    if (x->auction != y->auction)
        return x->auction < y->auction ? -1 : 1;
    return (x->price < y->price) - (x->price > y->price);
}

static void expect_q19(const stream_cfg *sc, lines *want)
{
    bids b;
    gen_bids(sc, &b);
    const bid_row **v = calloc(b.n, sizeof *v);
    cr_assert(v);
    for (size_t i = 0; i < b.n; i++)
        v[i] = &b.v[i];
    rank_cmp = q19_cmp;
    qsort(v, b.n, sizeof *v, cmp_ranked);
    size_t full = 0;
    for (size_t i = 0, start = 0; i < b.n; i++) {
        if (i > 0 && v[i]->auction != v[i - 1]->auction)
            start = i;
        size_t rank = i - start + 1;
        if (rank > 10)
            continue;
        full += rank == 10;
        /* a tie across rank 10 would decide by arrival order which bid is kept */
        cr_assert(rank < 10 || i + 1 >= b.n || v[i + 1]->auction != v[i]->auction || v[i + 1]->price != v[i]->price,
                  "seed %" PRIu64 ": auction %" PRId64 " has two bids of %" PRId64 " at ranks 10 and 11", test_seed(),
                  v[i]->auction, v[i]->price);
        char *c = bid_cols(v[i]);
        lines_push(want, fmt("[%s, %zu]", c, rank));
        free(c);
    }
    cr_assert_gt(full, 10, "too few auctions with 10 bids to test Top-N: %zu", full);
    free(v);
    free(b.v);
}

/*
 * Equal prices within an auction's top 10 take their ranks in arrival order,
 * which at parallelism 2 is either order: a row's rank is replaced by the
 * lowest rank of the rows with its auction and price (the tied group's
 * ranks are a permutation, so the multisets then compare).
 */
static void q19_normalize(lines *l)
{
    int64_t *a = calloc(l->n + 1, sizeof *a), *p = calloc(l->n + 1, sizeof *p), *r = calloc(l->n + 1, sizeof *r);
    cr_assert(a && p && r);
    for (size_t i = 0; i < l->n; i++) {
        const char *s = l->v[i];
        cr_assert_eq(sscanf(s, "[%" SCNd64 ", %*d, %" SCNd64, &a[i], &p[i]), 2, "not a q19 row: %s", s);
        const char *c = strrchr(s, ',');
        cr_assert(c, "not a q19 row: %s", s);
        r[i] = strtoll(c + 1, NULL, 10);
    }
    for (size_t i = 0; i < l->n; i++) {
        int64_t low = r[i];
        for (size_t k = 0; k < l->n; k++)
            if (a[k] == a[i] && p[k] == p[i] && r[k] < low)
                low = r[k];
        char *c = strrchr(l->v[i], ',');
        *c = 0;
        char *s = fmt("%s, %" PRId64 "]", l->v[i], low);
        free(l->v[i]);
        l->v[i] = s;
    }
    free(a);
    free(p);
    free(r);
}

/* q9: each auction's winning bid - the highest, then the earliest, among its bids within [dateTime, expires]. */
static void expect_q9(const stream_cfg *sc, lines *want)
{
    world w = {0};
    each_event(sc, world_add, &w);
    bids b;
    gen_bids(sc, &b);
    for (size_t i = 0; i < w.na; i++) {
        const auction_row *a = &w.a[i];
        const bid_row *best = NULL;
        bool tie = false;
        for (size_t k = 0; k < b.n; k++) {
            const bid_row *r = &b.v[k];
            if (r->auction != a->id || r->ts < a->ts || r->ts > a->expires)
                continue;
            if (best && r->price == best->price && r->ts == best->ts)
                tie = true;
            else if (!best || r->price > best->price || (r->price == best->price && r->ts < best->ts))
                best = r, tie = false;
        }
        if (!best)
            continue;
        cr_assert(!tie, "seed %" PRIu64 ": auction %" PRId64 " has two winning bids", test_seed(), a->id);
        char ts[40];
        fmt_ts(best->ts, ts, sizeof ts);
        lines_push(want, fmt("[%" PRId64 ", %s, %" PRId64 ", %" PRId64 ", %" PRId64 ", %s, %s]", a->id, a->cols,
                             best->auction, best->bidder, best->price, ts, best->extra));
    }
    free(b.v);
    world_free(&w);
}

static const stream_cfg small = {EVENTS, TPS, {{NULL}}, NULL, 0, NULL};

Test(nexmark_queries, q0_pass_through) { check_query("q0", &small, expect_q0, false); }
Test(nexmark_queries, q1_currency_conversion) { check_query("q1", &small, expect_q1, false); }
Test(nexmark_queries, q2_selection) { check_query("q2", &small, expect_q2, false); }
/* q13: a processing-time lookup join with the side input file */
Test(nexmark_queries, q13_bounded_side_input_join) { check_query("q13", &small, expect_q13, false); }
Test(nexmark_queries, q5_hop_window_counts) { check_query("q5_hop", &small, expect_q5_hop, false); }
/* The joins: q3 and q20 inner joins of append-only tables; q5 (the rows at their window's MAX: a window Top-1 with ties) and q8 (a window join), append-only. */
Test(nexmark_queries, q3_local_item_suggestion) { check_query("q3", &small, expect_q3, false); }
Test(nexmark_queries, q5_hot_items) { check_query("q5", &small, expect_q5, false); }
/* With sub-plan reuse off q5 gives the same table (its join is a window Top-1 over AuctionBids either way). */
Test(nexmark_queries, q5_hot_items_without_sub_plan_reuse)
{
    stream_cfg sc = {EVENTS, TPS, {{NULL}}, NULL, 0, "SET 'table.optimizer.reuse-sub-plan-enabled' = 'false';"};
    check_query("q5", &sc, expect_q5, false);
}
Test(nexmark_queries, q20_bid_with_auction) { check_query("q20", &small, expect_q20, false); }
Test(nexmark_queries, q4_average_price_per_category) { check_query("q4", &small, expect_q4, true); }
Test(nexmark_queries, q7_highest_bid) { check_query("q7", &small, expect_q7, false); }
Test(nexmark_queries, q8_new_users) { check_query("q8", &small, expect_q8, false); }
/* The reference's shape (one event table, views per kind) gives the same. */
Test(nexmark_queries, q5_hop_over_the_event_table_views)
{
    stream_cfg sc = {EVENTS, TPS, {{NULL}}, "ddl_event.sql", 0, NULL};
    check_query("q5_hop", &sc, expect_q5_hop, false);
}

Test(nexmark_queries, q11_user_sessions)
{
    /* Twenty people bidding about every 11 s, on whole seconds: many bids
     * land exactly a gap after the previous one (touching sessions merge) */
    stream_cfg sc = {EVENTS, 1, {{"num.active.people", "10"}, {"bid.hot-ratio.bidders", "1"}}, NULL, 0, NULL};
    check_query("q11", &sc, expect_q11, false);
}

Test(nexmark_queries, q12_processing_time_windows)
{
    /* 2015-07-15 00:00:05.123 UTC, in the middle of a 10 s window */
    stream_cfg sc = {EVENTS, TPS, {{NULL}}, NULL, 1436918405123, NULL};
    check_query("q12", &sc, expect_q12, false);
}

Test(nexmark_queries, q14_calculation_and_udf)
{
    /* 10 events/s from 06:58 covers night (hour 6), other (7) and day (8) */
    stream_cfg sc = {EVENTS, 10, {{"base-time", "2015-07-15 06:58:00"}}, NULL, 0, NULL};
    check_query("q14", &sc, expect_q14, false);
}

/* The reports keep per-group distinct sets: a smaller stream keeps the
 * test quick, spread over two days so that there are two groups per key. */
static const stream_cfg two_days = {3000, 1, {{"base-time", "2015-07-15 23:35:00"}}, NULL, 0, NULL};

Test(nexmark_queries, q15_bidding_statistics) { check_query("q15", &two_days, expect_q15, true); }
Test(nexmark_queries, q16_channel_statistics) { check_query("q16", &two_days, expect_q16, true); }
Test(nexmark_queries, q17_auction_statistics) { check_query("q17", &small, expect_q17, true); }
Test(nexmark_queries, q9_winning_bids) { check_query("q9", &small, expect_q9, true); }
Test(nexmark_queries, q18_last_bid) { check_query("q18", &small, expect_q18, true); }
Test(nexmark_queries, q19_top_10_bids)
{
    normalize = q19_normalize;
    check_query("q19", &small, expect_q19, true);
    normalize = NULL;
}
Test(nexmark_queries, q21_channel_id) { check_query("q21", &small, expect_q21, false); }
Test(nexmark_queries, q22_url_directories) { check_query("q22", &small, expect_q22, false); }

/*
 * Projection pushdown: the source makes only the columns a query reads,
 * and those must be the values it makes when it makes every column. Each
 * query here runs with pushdown (checked in the plan) and without; the
 * outputs must be equal. The query reading a single string column checks
 * that skipping the others does not shift the draws behind it.
 */
Test(nexmark_queries, projection_pushdown_keeps_the_generated_values)
{
    static const struct {
        const char *sql, *columns;
    } cases[] = {
        {"SELECT auction, price FROM bid WHERE MOD(auction, 123) = 0;", "columns=auction,price,dateTime"},
        {"SELECT extra FROM bid;", "columns=dateTime,extra"},
        {"SELECT url, COUNT(*) FROM bid GROUP BY url;", "columns=url,dateTime"},
        {"SELECT name, city, extra FROM person;", "columns=name,city,dateTime,extra"},
        {"SELECT seller, description FROM auction WHERE category = 10;", "columns=description,dateTime,seller,category"},
        {"SELECT auction, COUNT(*), window_start FROM TABLE(HOP(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '2' SECOND,"
         " INTERVAL '10' SECOND)) GROUP BY auction, window_start, window_end;",
         "columns=auction,dateTime"},
    };
    char *ddl = query_script("q0", &small);
    *strstr(ddl, "CREATE TABLE nexmark_q0") = 0; /* the tables only */
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *on = fmt("%s\n%s", ddl, cases[i].sql);
        char *off = fmt("SET 'weir.source.projection-pushdown' = 'false';\n%s", on);
        weir_sql_job_options opt = {0};
        weir_sql_job *sj = NULL;
        weir_error err = {0};
        cr_assert_eq(weir_sql_job_create("on.sql", on, strlen(on), &opt, &sj, &err), 0, "%s", err.message);
        weir_buf plan;
        weir_buf_init(&plan);
        cr_assert_eq(weir_sql_job_explain(sj, &plan), 0);
        cr_assert_eq(weir_buf_put_u8(&plan, 0), 0);
        cr_assert(strstr((char *)plan.data, cases[i].columns), "no pushdown (%s) in:\n%s", cases[i].columns,
                  (char *)plan.data);
        weir_buf_fini(&plan);
        weir_sql_job_destroy(sj);
        for (uint32_t p = 1; p <= 2; p++) {
            lines a, b;
            run_script("on.sql", on, p, 0, &a);
            run_script("off.sql", off, p, 0, &b);
            cr_assert_gt(a.n, 0, "%s: no rows", cases[i].sql);
            assert_same_rows(&a, &b, cases[i].sql);
            lines_free(&a);
            lines_free(&b);
        }
        free(on);
        free(off);
    }
    free(ddl);
}

/*
 * The updating group aggregation keeps a group's accumulators live across
 * the rows of one batch and writes them back at its end: the changelog
 * (in order, at parallelism 1) must be the same for every batch size,
 * including one row per batch, where every row restores and stores. q17
 * retracts nothing but updates many groups; the COUNT DISTINCT of q15/q16
 * exercises the value sets.
 */
Test(nexmark_queries, group_aggregation_changelog_does_not_depend_on_batching)
{
    const char *queries[] = {"q15", "q17"};
    for (size_t q = 0; q < 2; q++) {
        char *script = query_script(queries[q], &two_days);
        lines ref;
        memset(&ref, 0, sizeof ref);
        const char *sizes[] = {"1", "7", "1024"};
        for (size_t b = 0; b < 3; b++) {
            char *s = fmt("SET 'weir.batch-size' = '%s';\n%s", sizes[b], script);
            lines got;
            run_script(queries[q], s, 1, 0, &got);
            free(s);
            if (b == 0) {
                ref = got;
                cr_assert_gt(ref.n, 100);
                continue;
            }
            cr_assert_eq(got.n, ref.n, "%s, batch size %s: %zu rows, %zu with batch size 1", queries[q], sizes[b],
                         got.n, ref.n);
            for (size_t i = 0; i < got.n; i++)
                cr_assert_str_eq(got.v[i], ref.v[i], "%s, batch size %s, row %zu", queries[q], sizes[b], i);
            lines_free(&got);
        }
        lines_free(&ref);
        free(script);
    }
}

/*
 * q10 writes every bid into a partition folder per minute of its time,
 * dt=yyyy-MM-dd/hm=HH%3Amm (':' escaped as Flink does), as CSV without the
 * partition columns, and commits each partition with a _SUCCESS file. The
 * rows of each folder's part files, sorted, must be that minute's bids.
 */
static void q10_collect(const char *dir, lines *got, size_t *n_success)
{
    DIR *d1 = opendir(dir);
    cr_assert(d1, "%s: no output", dir);
    struct dirent *e1, *e2, *e3;
    while ((e1 = readdir(d1))) {
        if (strncmp(e1->d_name, "dt=", 3))
            continue;
        char p1[2048];
        snprintf(p1, sizeof p1, "%s/%s", dir, e1->d_name);
        DIR *d2 = opendir(p1);
        cr_assert(d2);
        while ((e2 = readdir(d2))) {
            if (strncmp(e2->d_name, "hm=", 3))
                continue;
            char p2[4096];
            snprintf(p2, sizeof p2, "%s/%s", p1, e2->d_name);
            DIR *d3 = opendir(p2);
            cr_assert(d3);
            while ((e3 = readdir(d3))) {
                if (!strcmp(e3->d_name, "_SUCCESS")) {
                    (*n_success)++;
                    continue;
                }
                if (e3->d_name[0] == '.' && strcmp(e3->d_name, ".") && strcmp(e3->d_name, ".."))
                    cr_assert_fail("hidden file left: %s/%s", p2, e3->d_name);
                if (strncmp(e3->d_name, "part-", 5))
                    continue;
                char p3[6144];
                snprintf(p3, sizeof p3, "%s/%s", p2, e3->d_name);
                char *text = slurp(p3);
                for (char *line = text, *nl; line && *line; line = nl ? nl + 1 : NULL) {
                    nl = strchr(line, '\n');
                    if (nl)
                        *nl = 0;
                    lines_push(got, fmt("%s/%s %s", e1->d_name, e2->d_name, line));
                }
                free(text);
            }
            closedir(d3);
        }
        closedir(d2);
    }
    closedir(d1);
}

Test(nexmark_queries, q10_log_to_partitioned_files)
{
    /* 20 events per second of event time: about five minutes, five
     * partitions. */
    const stream_cfg sc = {6000, 20, {{NULL}}, NULL, 0, NULL};
    bids b;
    gen_bids(&sc, &b);
    lines want;
    memset(&want, 0, sizeof want);
    size_t minutes = 0;
    int64_t last_min = INT64_MIN;
    for (size_t i = 0; i < b.n; i++) {
        time_t sec = (time_t)(b.v[i].ts / 1000);
        struct tm tm;
        gmtime_r(&sec, &tm);
        if (b.v[i].ts / 60000 != last_min) {
            last_min = b.v[i].ts / 60000;
            minutes++;
        }
        lines_push(&want, fmt("dt=%04d-%02d-%02d/hm=%02d%%3A%02d %" PRId64 ",%" PRId64 ",%" PRId64
                              ",%04d-%02d-%02d %02d:%02d:%02d.%03d,%s",
                              tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, b.v[i].auction,
                              b.v[i].bidder, b.v[i].price, tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                              tm.tm_min, tm.tm_sec, (int)(b.v[i].ts % 1000), b.v[i].extra));
    }
    free(b.v);
    cr_assert_gt(minutes, 3, "the stream should span several partitions");
    char *script = query_script("q10", &sc);
    for (uint32_t p = 1; p <= 2; p++) {
        char root[] = "/tmp/weir-q10-XXXXXX";
        cr_assert(mkdtemp(root));
        char *s = strdup(script);
        replace_all(&s, "${NEXMARK_DIR}", root);
        replace_all(&s, "${SUBMIT_TIME}", "t");
        lines got, w2;
        run_script("q10", s, p, 0, &got);
        cr_assert_eq(got.n, 0, "q10 prints nothing");
        lines_free(&got);
        char *out = fmt("%s/data/output/t/bid", root);
        size_t n_success = 0;
        memset(&got, 0, sizeof got);
        q10_collect(out, &got, &n_success);
        cr_assert_eq(n_success, minutes, "one _SUCCESS per partition (parallelism %u)", p);
        memset(&w2, 0, sizeof w2);
        for (size_t i = 0; i < want.n; i++)
            lines_push(&w2, strdup(want.v[i]));
        char what[64];
        snprintf(what, sizeof what, "q10 at parallelism %u", p);
        assert_same_rows(&got, &w2, what);
        lines_free(&got);
        lines_free(&w2);
        char *rm = fmt("rm -rf '%s'", root);
        cr_assert_eq(system(rm), 0);
        free(rm);
        free(out);
        free(s);
    }
    lines_free(&want);
    free(script);
}

/* count_char's edge cases (q14 only meets plain strings). */
Test(nexmark_queries, count_char_udf)
{
    const char *sql = "CREATE TABLE bid (auction BIGINT, url VARCHAR, `dateTime` TIMESTAMP(3))\n"
                      "  WITH ('connector' = 'nexmark', 'nexmark.table' = 'bid', 'events.num' = '5');\n"
                      "SELECT count_char('cacbc', 'c'), count_char('abc', 'cx'), count_char(CAST(NULL AS STRING), 'c'),\n"
                      "       count_char('abc', ''), count_char('abc', CAST(NULL AS STRING)), count_char('', 'c')\n"
                      "FROM bid;\n";
    lines got;
    run_script("udf.sql", sql, 1, 0, &got);
    cr_assert_eq(got.n, 1);
    cr_assert_str_eq(got.v[0], "+I[3, 1, 0, null, null, 0]");
    lines_free(&got);
}

/*
 * The queries weir cannot run yet must fail to plan with a message naming
 * the missing feature (not a syntax error); when one starts to plan, this
 * test fails so that it moves to the checked queries above and into the
 * benchmark table.
 */
Test(nexmark_queries, unsupported_queries_say_why)
{
    static const struct {
        const char *query, *missing;
    } cases[] = {
        /* q6 filters its ROW_NUMBER() in the same SELECT (Flink cannot run it either) */
        {"q6", "ROW_NUMBER() needs an upper bound on 'rownum' in the outer WHERE"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *script = query_script(cases[i].query, &small);
        weir_sql_job_options opt = {0};
        weir_sql_job *sj = NULL;
        weir_error err = {0};
        int rc = weir_sql_job_create(cases[i].query, script, strlen(script), &opt, &sj, &err);
        weir_sql_job_destroy(sj);
        free(script);
        cr_expect_neq(rc, 0, "%s plans now: check it and add it to the tested queries and BENCHMARKS.md",
                      cases[i].query);
        cr_expect(rc == 0 || strstr(err.message, cases[i].missing), "%s: unexpected error: %s", cases[i].query,
                  err.message);
    }
}
