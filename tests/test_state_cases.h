/*
 * tests/test_state_cases.h - keyed-state test bodies shared by every backend.
 *
 * test_state.c runs them on the memory backend, test_state_rocksdb.c on
 * RocksDB: STATE_CASES(suite, "kind") instantiates one Criterion test per
 * body. Helpers here create backends (RocksDB ones in a fresh temporary
 * directory, removed at the end of the test process) and dump a backend's
 * whole content as sorted text, so two backends can be compared.
 */
#ifndef WEIR_TEST_STATE_CASES_H
#define WEIR_TEST_STATE_CASES_H

#include <criterion/criterion.h>
#include <ftw.h>
#include <pthread.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "state/backend_impl.h" /* white-box: state names and kinds */
#include "weir/key.h"

/* ---- backends and temporary directories ---- */

#define MAX_TMP 16
static char g_tmp[MAX_TMP][256];
static int g_n_tmp;

static int rm_entry(const char *p, const struct stat *sb, int flag,
                    struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(p);
}

__attribute__((destructor)) static void rm_tmp_dirs(void)
{
    for (int i = 0; i < g_n_tmp; i++)
        nftw(g_tmp[i], rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    g_n_tmp = 0;
}

/*
 * A fresh directory, removed when the test process ends. RocksDB syncs its
 * files, so tmpfs (/dev/shm) keeps the tests fast; WEIR_TEST_TMPDIR overrides.
 */
static const char *tmp_dir(void)
{
    cr_assert_lt(g_n_tmp, MAX_TMP);
    const char *base = getenv("WEIR_TEST_TMPDIR");
    if (!base)
        base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    char *d = g_tmp[g_n_tmp];
    snprintf(d, 256, "%s/weir-state-test-XXXXXX", base);
    cr_assert_not_null(mkdtemp(d));
    g_n_tmp++;
    return d;
}

typedef struct be_opts {
    uint32_t lo, hi, maxp;
    weir_clock clock;
    uint64_t cache_bytes, wbuf_bytes;
} be_opts;

static weir__backend *mkbe_opts(const char *kind, const be_opts *o)
{
    char dir[300];
    weir__backend_config cfg = {
        .kind = kind,
        .max_parallelism = o->maxp ? o->maxp : 128,
        .kg_lo = o->lo,
        .kg_hi = o->hi,
        .clock = o->clock,
        .block_cache_bytes = o->cache_bytes,
        .write_buffer_bytes = o->wbuf_bytes,
    };
    if (strcmp(kind, "rocksdb") == 0) {
        snprintf(dir, sizeof dir, "%s/db", tmp_dir());
        cfg.dir = dir;
    }
    weir__backend *be = NULL;
    int rc = weir__backend_create(&cfg, &be);
    cr_assert_eq(rc, 0, "create %s backend: %s", kind, weir_strerror(rc));
    return be;
}

static weir__backend *mkbe(const char *kind, uint32_t lo, uint32_t hi,
                           weir_clock clock)
{
    be_opts o = {.lo = lo, .hi = hi, .clock = clock};
    return mkbe_opts(kind, &o);
}

static weir_clock no_clock(void)
{
    return (weir_clock){0};
}

/* Sets the current key to the string s; returns the backend's answer (EINVAL
 * when not owned). */
static int setk(weir__backend *be, const char *s)
{
    return weir__backend_set_key(be, s, strlen(s), weir_key_hash(s, strlen(s)));
}

static uint32_t kg_of(const char *s)
{
    return weir_key_group(weir_key_hash(s, strlen(s)), 128);
}

static weir_state *reg(weir__backend *be, const char *name,
                       weir_state_kind kind, int64_t ttl_ms,
                       weir_ttl_update upd)
{
    weir_state_desc d = {
        .name = name, .kind = kind, .ttl_ms = ttl_ms, .ttl_update = upd};
    weir_state *st = NULL;
    cr_assert_eq(weir__backend_register(be, &d, &st), 0);
    return st;
}

#define NS(s) (s), strlen(s)

static void put_s(weir_state *st, const char *ns, const char *v)
{
    cr_assert_eq(weir_value_put(st, NS(ns), NS(v)), 0);
}

/* The value as a NUL-terminated string in buf, or NULL when absent. */
static const char *get_s(weir_state *st, const char *ns, char *buf, size_t cap)
{
    const void *v;
    size_t len;
    int rc = weir_value_get(st, NS(ns), &v, &len);
    if (rc == WEIR_ENOTFOUND)
        return NULL;
    cr_assert_eq(rc, 0, "get: %s", weir_strerror(rc));
    cr_assert_lt(len, cap);
    memcpy(buf, v, len);
    buf[len] = '\0';
    return buf;
}

static int join_visit(void *ud, const void *v, size_t len)
{
    weir_buf *b = ud;
    if (b->len)
        weir_buf_put(b, ",", 1);
    weir_buf_put(b, v, len);
    return 0;
}

/* The list as "a,b,c" (empty string when empty). Caller frees. */
static char *list_s(weir_state *st, const char *ns)
{
    weir_buf b;
    weir_buf_init(&b);
    cr_assert_eq(weir_list_get(st, NS(ns), join_visit, &b), 0);
    weir_buf_put(&b, "", 1);
    return (char *)b.data ? (char *)b.data : weir_strdup("");
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct strv {
    char **v;
    size_t n, cap;
} strv;

static void strv_add(strv *s, const char *x)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 64;
        s->v = realloc(s->v, s->cap * sizeof *s->v);
    }
    s->v[s->n++] = strdup(x);
}

static void strv_free(strv *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
    memset(s, 0, sizeof *s);
}

/* Printable form of bytes (keys and namespaces in tests may be binary). */
static void hex(weir_buf *b, const void *p, size_t n)
{
    const uint8_t *u = p;
    for (size_t i = 0; i < n; i++) {
        if (u[i] >= 0x20 && u[i] < 0x7f && u[i] != '|' && u[i] != ',' &&
            u[i] != '=')
            weir_buf_put(b, &u[i], 1);
        else
            weir_buf_printf(b, "\\x%02x", u[i]);
    }
}

static int map_visit(void *ud, const void *k, size_t klen, const void *v,
                     size_t vlen)
{
    weir_buf b;
    weir_buf_init(&b);
    hex(&b, k, klen);
    weir_buf_put(&b, "=", 1);
    hex(&b, v, vlen);
    weir_buf_put(&b, "", 1);
    strv_add(ud, (char *)b.data);
    weir_buf_fini(&b);
    return 0;
}

typedef struct dump_ctx {
    weir_state *st;
    strv *lines;
} dump_ctx;

static int dump_visit(void *ud, const uint8_t *key, size_t klen, const void *ns,
                      size_t nslen)
{
    dump_ctx *d = ud;
    weir_buf b;
    weir_buf_init(&b);
    weir_buf_printf(&b, "%s|", d->st->desc.name);
    hex(&b, key, klen);
    weir_buf_put(&b, "|", 1);
    hex(&b, ns, nslen);
    weir_buf_put(&b, "|", 1);
    switch (d->st->desc.kind) {
    case WEIR_STATE_LIST: {
        weir_buf l;
        weir_buf_init(&l);
        cr_assert_eq(weir_list_get(d->st, ns, nslen, join_visit, &l), 0);
        hex(&b, l.data, l.len);
        weir_buf_fini(&l);
        break;
    }
    case WEIR_STATE_MAP: {
        strv es = {0};
        cr_assert_eq(weir_map_iterate(d->st, ns, nslen, map_visit, &es), 0);
        qsort(es.v, es.n, sizeof *es.v, cmp_str);
        for (size_t i = 0; i < es.n; i++)
            weir_buf_printf(&b, "%s%s", i ? "," : "{", es.v[i]);
        weir_buf_put(&b, "}", 1);
        strv_free(&es);
        break;
    }
    default: {
        const void *v;
        size_t len;
        cr_assert_eq(weir_value_get(d->st, ns, nslen, &v, &len), 0);
        hex(&b, v, len);
    }
    }
    weir_buf_put(&b, "", 1);
    strv_add(d->lines, (char *)b.data);
    weir_buf_fini(&b);
    return 0;
}

/* Every entry of the given states, one sorted line each, as one string (caller
 * frees). */
static char *dump(weir_state **sts, int n)
{
    strv lines = {0};
    for (int i = 0; i < n; i++) {
        dump_ctx d = {sts[i], &lines};
        cr_assert_eq(weir_state_keys(sts[i], dump_visit, &d), 0);
    }
    if (lines.n) /* qsort(NULL, 0, ...) is undefined */
        qsort(lines.v, lines.n, sizeof *lines.v, cmp_str);
    weir_buf b;
    weir_buf_init(&b);
    for (size_t i = 0; i < lines.n; i++)
        weir_buf_printf(&b, "%s\n", lines.v[i]);
    weir_buf_put(&b, "", 1);
    strv_free(&lines);
    return (char *)b.data;
}

/* ---- reducing / aggregating callbacks: int64 sum; average as (sum, count)
 * ---- */

static int64_t rd64(const void *p)
{
    int64_t v;
    memcpy(&v, p, 8);
    return v;
}

static int sum_reduce(void *ud, const void *a, size_t alen, const void *b,
                      size_t blen, weir_buf *out)
{
    (void)ud;
    if (alen != 8 || blen != 8)
        return WEIR_EINVAL;
    int64_t s = rd64(a) + rd64(b);
    return weir_buf_put(out, &s, 8);
}

static int avg_add(void *ud, weir_buf *acc, const void *in, size_t inlen)
{
    (void)ud;
    if (inlen != 8)
        return 1; /* a user failure */
    int64_t sc[2] = {0, 0};
    if (acc->len == 16)
        memcpy(sc, acc->data, 16);
    else if (acc->len != 0)
        return WEIR_ECORRUPT;
    sc[0] += rd64(in);
    sc[1] += 1;
    weir_buf_clear(acc);
    return weir_buf_put(acc, sc, 16);
}

static int avg_result(void *ud, const void *acc, size_t acclen, weir_buf *out)
{
    (void)ud;
    if (acclen != 16)
        return WEIR_ECORRUPT;
    int64_t sc[2];
    memcpy(sc, acc, 16);
    double avg = (double)sc[0] / (double)sc[1];
    return weir_buf_put(out, &avg, sizeof avg);
}

static weir_state *reg_sum(weir__backend *be, const char *name, int64_t ttl_ms)
{
    weir_state_desc d = {.name = name,
                         .kind = WEIR_STATE_REDUCING,
                         .ttl_ms = ttl_ms,
                         .reduce = sum_reduce};
    weir_state *st = NULL;
    cr_assert_eq(weir__backend_register(be, &d, &st), 0);
    return st;
}

static weir_state *reg_avg(weir__backend *be, const char *name)
{
    weir_state_desc d = {.name = name,
                         .kind = WEIR_STATE_AGGREGATING,
                         .agg_add = avg_add,
                         .agg_result = avg_result};
    weir_state *st = NULL;
    cr_assert_eq(weir__backend_register(be, &d, &st), 0);
    return st;
}

static void add64(weir_state *st, const char *ns, int64_t v)
{
    cr_assert_eq(weir_state_add(st, NS(ns), &v, 8), 0);
}

static int64_t sum_of(weir_state *st, const char *ns)
{
    weir_buf b;
    weir_buf_init(&b);
    int rc = weir_state_get_result(st, NS(ns), &b);
    cr_assert_eq(rc, 0, "get_result: %s", weir_strerror(rc));
    cr_assert_eq(b.len, 8);
    int64_t v = rd64(b.data);
    weir_buf_fini(&b);
    return v;
}

/* ---- the cases ---- */

static void case_value_basics(const char *kind)
{
    weir__backend *be = mkbe(kind, 0, 128, no_clock());
    weir_state *st = reg(be, "v", WEIR_STATE_VALUE, 0, 0);
    char buf[16384];
    const void *v;
    size_t len;
    /* No key set yet: the operation is refused, not crashed. */
    cr_assert_eq(weir_value_get(st, NS(""), &v, &len), WEIR_ESTATE);
    cr_assert_eq(setk(be, "alice"), 0);
    cr_assert_eq(weir_value_get(st, NS(""), &v, &len), WEIR_ENOTFOUND);
    put_s(st, "", "one");
    cr_assert_str_eq(get_s(st, "", buf, sizeof buf), "one");
    put_s(st, "", "a much longer second value that needs a bigger record");
    cr_assert_str_eq(get_s(st, "", buf, sizeof buf),
                     "a much longer second value that needs a bigger record");
    put_s(st, "", "x");
    cr_assert_str_eq(get_s(st, "", buf, sizeof buf), "x");
    /* An empty value is a value, not an absence. */
    cr_assert_eq(weir_value_put(st, NS(""), "", 0), 0);
    cr_assert_eq(weir_value_get(st, NS(""), &v, &len), 0);
    cr_assert_eq(len, 0);
    /* Values larger than a slab block. */
    char big[10000];
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (char)('a' + i % 26);
    cr_assert_eq(weir_value_put(st, NS("big"), big, sizeof big), 0);
    cr_assert_eq(weir_value_get(st, NS("big"), &v, &len), 0);
    cr_assert_eq(len, sizeof big);
    cr_assert_eq(memcmp(v, big, sizeof big), 0);
    /* Two reads: both pointers stay valid until the next write. */
    const void *v1, *v2;
    size_t l1, l2;
    cr_assert_eq(weir_value_get(st, NS("big"), &v1, &l1), 0);
    cr_assert_eq(weir_value_get(st, NS(""), &v2, &l2), 0);
    cr_assert_eq(memcmp(v1, big, sizeof big), 0);
    cr_assert_eq(l2, 0);
    /* A put of bytes read from the same entry. */
    cr_assert_eq(weir_value_put(st, NS("big"), (const char *)v1 + 1, 100), 0);
    cr_assert_eq(weir_value_get(st, NS("big"), &v, &len), 0);
    cr_assert_eq(len, 100);
    cr_assert_eq(memcmp(v, big + 1, 100), 0);
    cr_assert_eq(weir_state_clear(st, NS("big")), 0);
    cr_assert_eq(weir_value_get(st, NS("big"), &v, &len), WEIR_ENOTFOUND);
    cr_assert_eq(weir_state_clear(st, NS("never")), 0);
    weir__backend_destroy(be);
}

static void case_keys_and_namespaces_isolate(const char *kind)
{
    weir__backend *be = mkbe(kind, 0, 128, no_clock());
    weir_state *a = reg(be, "a", WEIR_STATE_VALUE, 0, 0);
    weir_state *b = reg(be, "b", WEIR_STATE_VALUE, 0, 0);
    char buf[64], val[64], k[32];
    for (int i = 0; i < 200; i++) {
        snprintf(k, sizeof k, "key%d", i);
        cr_assert_eq(setk(be, k), 0);
        snprintf(val, sizeof val, "a-%d", i);
        put_s(a, "", val);
        snprintf(val, sizeof val, "a-%d-w1", i);
        put_s(a, "w1", val);
        snprintf(val, sizeof val, "b-%d", i);
        put_s(b, "", val);
    }
    /* A key that is a prefix of another, and a namespace that continues the
     * key. */
    cr_assert_eq(setk(be, "key1"), 0);
    cr_assert_str_eq(get_s(a, "", buf, sizeof buf), "a-1");
    cr_assert_null(get_s(a, "w2", buf, sizeof buf));
    cr_assert_null(get_s(a, "0", buf, sizeof buf));
    for (int i = 0; i < 200; i++) {
        snprintf(k, sizeof k, "key%d", i);
        cr_assert_eq(setk(be, k), 0);
        snprintf(val, sizeof val, "a-%d", i);
        cr_assert_str_eq(get_s(a, "", buf, sizeof buf), val);
        snprintf(val, sizeof val, "a-%d-w1", i);
        cr_assert_str_eq(get_s(a, "w1", buf, sizeof buf), val);
        snprintf(val, sizeof val, "b-%d", i);
        cr_assert_str_eq(get_s(b, "", buf, sizeof buf), val);
        cr_assert_null(get_s(b, "w1", buf, sizeof buf));
    }
    /* Clearing one (key, ns) leaves the others. */
    cr_assert_eq(setk(be, "key7"), 0);
    cr_assert_eq(weir_state_clear(a, NS("w1")), 0);
    cr_assert_null(get_s(a, "w1", buf, sizeof buf));
    cr_assert_str_eq(get_s(a, "", buf, sizeof buf), "a-7");
    cr_assert_eq(setk(be, "key8"), 0);
    cr_assert_str_eq(get_s(a, "w1", buf, sizeof buf), "a-8-w1");
    /* Binary keys that differ only after a NUL byte. */
    uint8_t k1[3] = {1, 0, 2}, k2[3] = {1, 0, 3};
    cr_assert_eq(weir__backend_set_key(be, k1, 3, weir_key_hash(k1, 3)), 0);
    put_s(a, "", "k1");
    cr_assert_eq(weir__backend_set_key(be, k2, 3, weir_key_hash(k2, 3)), 0);
    cr_assert_null(get_s(a, "", buf, sizeof buf));
    weir__backend_destroy(be);
}

static int stop_after_two(void *ud, const void *v, size_t len)
{
    (void)v;
    (void)len;
    return ++*(int *)ud == 2 ? 1 : 0;
}

static int fail_visit(void *ud, const void *v, size_t len)
{
    (void)ud;
    (void)v;
    (void)len;
    return WEIR_EUSER;
}

static void case_list(const char *kind)
{
    weir__backend *be = mkbe(kind, 0, 128, no_clock());
    weir_state *st = reg(be, "l", WEIR_STATE_LIST, 0, 0);
    cr_assert_eq(setk(be, "k"), 0);
    char *s = list_s(st, "w");
    cr_assert_str_eq(s, ""); /* an absent list is empty */
    weir_free(s);
    weir_buf expect;
    weir_buf_init(&expect);
    char e[32];
    for (int i = 0; i < 500; i++) {
        int n = snprintf(e, sizeof e, "e%d", i);
        cr_assert_eq(weir_list_add(st, NS("w"), e, (size_t)n), 0);
        if (i)
            weir_buf_put(&expect, ",", 1);
        weir_buf_put(&expect, e, (size_t)n);
    }
    weir_buf_put(&expect, "", 1);
    cr_assert_eq(weir_list_add(st, NS("w2"), "", 0), 0);
    s = list_s(st, "w");
    cr_assert_str_eq(s, (char *)expect.data);
    weir_free(s);
    s = list_s(st, "w2");
    cr_assert_str_eq(s, ""); /* one empty element */
    weir_free(s);
    int count = 0;
    cr_assert_eq(weir_list_get(st, NS("w"), stop_after_two, &count), 0);
    cr_assert_eq(count, 2);
    cr_assert_eq(weir_list_get(st, NS("w"), fail_visit, NULL), WEIR_EUSER);
    /* Another key sees nothing; clear removes the list. */
    cr_assert_eq(setk(be, "other"), 0);
    s = list_s(st, "w");
    cr_assert_str_eq(s, "");
    weir_free(s);
    cr_assert_eq(setk(be, "k"), 0);
    cr_assert_eq(weir_state_clear(st, NS("w")), 0);
    s = list_s(st, "w");
    cr_assert_str_eq(s, "");
    weir_free(s);
    cr_assert_eq(weir_list_add(st, NS("w"), "again", 5), 0);
    s = list_s(st, "w");
    cr_assert_str_eq(s, "again");
    weir_free(s);
    /* Wrong kind is refused. */
    const void *v;
    size_t len;
    cr_assert_eq(weir_value_get(st, NS("w"), &v, &len), WEIR_EINVAL);
    cr_assert_eq(weir_map_put(st, NS("w"), "a", 1, "b", 1), WEIR_EINVAL);
    weir_buf_fini(&expect);
    weir__backend_destroy(be);
}

static int count_visit(void *ud, const void *k, size_t klen, const void *v,
                       size_t vlen)
{
    (void)k;
    (void)klen;
    (void)v;
    (void)vlen;
    ++*(int *)ud;
    return 0;
}

static void case_map(const char *kind)
{
    weir__backend *be = mkbe(kind, 0, 128, no_clock());
    weir_state *st = reg(be, "m", WEIR_STATE_MAP, 0, 0);
    cr_assert_eq(setk(be, "k"), 0);
    const void *v;
    size_t vlen;
    cr_assert_eq(weir_map_get(st, NS("w"), "a", 1, &v, &vlen), WEIR_ENOTFOUND);
    char mk[32], mv[32];
    for (int i = 0; i < 300; i++) {
        int kn = snprintf(mk, sizeof mk, "mk%d", i);
        int vn = snprintf(mv, sizeof mv, "mv%d", i);
        cr_assert_eq(weir_map_put(st, NS("w"), mk, (size_t)kn, mv, (size_t)vn),
                     0);
    }
    cr_assert_eq(
        weir_map_put(st, NS("w"), "mk5", 3, "replaced with a longer value", 28),
        0);
    cr_assert_eq(weir_map_get(st, NS("w"), "mk5", 3, &v, &vlen), 0);
    cr_assert_eq(vlen, 28);
    cr_assert_eq(memcmp(v, "replaced with a longer value", 28), 0);
    cr_assert_eq(weir_map_get(st, NS("w"), "mk299", 5, &v, &vlen), 0);
    cr_assert_eq(memcmp(v, "mv299", 5), 0);
    /* Map keys that are prefixes of one another are distinct entries. */
    cr_assert_eq(weir_map_get(st, NS("w"), "mk2", 3, &v, &vlen), 0);
    cr_assert_eq(memcmp(v, "mv2", 3), 0);
    cr_assert_eq(weir_map_remove(st, NS("w"), "mk2", 3), 0);
    cr_assert_eq(weir_map_get(st, NS("w"), "mk2", 3, &v, &vlen),
                 WEIR_ENOTFOUND);
    cr_assert_eq(weir_map_get(st, NS("w"), "mk29", 4, &v, &vlen), 0);
    cr_assert_eq(weir_map_remove(st, NS("w"), "absent", 6), 0);
    int n = 0;
    cr_assert_eq(weir_map_iterate(st, NS("w"), count_visit, &n), 0);
    cr_assert_eq(n, 299);
    /* Another namespace of the same key is a different map. */
    n = 0;
    cr_assert_eq(weir_map_iterate(st, NS("w2"), count_visit, &n), 0);
    cr_assert_eq(n, 0);
    cr_assert_eq(weir_map_put(st, NS("w2"), "", 0, "empty key", 9), 0);
    cr_assert_eq(weir_map_get(st, NS("w2"), "", 0, &v, &vlen), 0);
    cr_assert_eq(vlen, 9);
    /* Removing every entry leaves an absent map. */
    for (int i = 0; i < 300; i++) {
        int kn = snprintf(mk, sizeof mk, "mk%d", i);
        cr_assert_eq(weir_map_remove(st, NS("w"), mk, (size_t)kn), 0);
    }
    n = 0;
    cr_assert_eq(weir_map_iterate(st, NS("w"), count_visit, &n), 0);
    cr_assert_eq(n, 0);
    cr_assert_eq(weir_state_clear(st, NS("w2")), 0);
    cr_assert_eq(weir_map_get(st, NS("w2"), "", 0, &v, &vlen), WEIR_ENOTFOUND);
    weir__backend_destroy(be);
}

static void case_reducing_aggregating(const char *kind)
{
    weir__backend *be = mkbe(kind, 0, 128, no_clock());
    weir_state *sum = reg_sum(be, "sum", 0);
    weir_state *avg = reg_avg(be, "avg");
    weir_buf out;
    weir_buf_init(&out);
    cr_assert_eq(setk(be, "k"), 0);
    cr_assert_eq(weir_state_get_result(sum, NS("w"), &out), WEIR_ENOTFOUND);
    for (int64_t i = 1; i <= 100; i++) {
        add64(sum, "w", i);
        add64(avg, "w", i);
        add64(sum, "w2", 2 * i);
    }
    cr_assert_eq(sum_of(sum, "w"), 5050);
    cr_assert_eq(sum_of(sum, "w2"), 10100);
    cr_assert_eq(weir_state_get_result(avg, NS("w"), &out), 0);
    double a;
    cr_assert_eq(out.len, sizeof a);
    memcpy(&a, out.data, sizeof a);
    cr_assert_float_eq(a, 50.5, 1e-9);
    /* The raw accumulator is readable (and writable) as a value. */
    const void *v;
    size_t len;
    cr_assert_eq(weir_value_get(avg, NS("w"), &v, &len), 0);
    cr_assert_eq(len, 16);
    cr_assert_eq(rd64((const char *)v + 8), 100);
    /* A failing user function leaves the accumulator as it was. */
    cr_assert_eq(weir_state_add(avg, NS("w"), "bad", 3), WEIR_EUSER);
    cr_assert_eq(weir_value_get(avg, NS("w"), &v, &len), 0);
    cr_assert_eq(rd64((const char *)v + 8), 100);
    cr_assert_eq(weir_state_add(sum, NS("w"), "bad", 3), WEIR_EINVAL);
    cr_assert_eq(sum_of(sum, "w"), 5050);
    /* Keys do not share accumulators. */
    cr_assert_eq(setk(be, "k2"), 0);
    add64(sum, "w", 7);
    cr_assert_eq(sum_of(sum, "w"), 7);
    cr_assert_eq(weir_state_clear(sum, NS("w")), 0);
    cr_assert_eq(weir_state_get_result(sum, NS("w"), &out), WEIR_ENOTFOUND);
    cr_assert_eq(setk(be, "k"), 0);
    cr_assert_eq(sum_of(sum, "w"), 5050);
    /* add on the wrong kind */
    weir_state *val = reg(be, "val", WEIR_STATE_VALUE, 0, 0);
    cr_assert_eq(weir_state_add(val, NS(""), "x", 1), WEIR_EINVAL);
    weir_buf_fini(&out);
    weir__backend_destroy(be);
}

static void case_registration(const char *kind)
{
    weir__backend *be = mkbe(kind, 10, 20, no_clock());
    weir_state *a = reg(be, "a", WEIR_STATE_VALUE, 0, 0);
    weir_state *a2 = reg(be, "a", WEIR_STATE_VALUE, 0, 0);
    cr_assert_eq(a, a2);
    weir_state_desc d = {.name = "a", .kind = WEIR_STATE_LIST};
    weir_state *x = NULL;
    cr_assert_eq(weir__backend_register(be, &d, &x), WEIR_EINVAL);
    d = (weir_state_desc){.name = "r",
                          .kind = WEIR_STATE_REDUCING}; /* no reduce function */
    cr_assert_eq(weir__backend_register(be, &d, &x), WEIR_EINVAL);
    d = (weir_state_desc){.name = "", .kind = WEIR_STATE_VALUE};
    cr_assert_eq(weir__backend_register(be, &d, &x), WEIR_EINVAL);
    d = (weir_state_desc){.name = "n", .kind = WEIR_STATE_VALUE, .ttl_ms = -1};
    cr_assert_eq(weir__backend_register(be, &d, &x), WEIR_EINVAL);
    /* Keys of key groups outside [10, 20) belong to another subtask. */
    char k[32];
    int owned = 0, foreign = 0;
    for (int i = 0; i < 400; i++) {
        snprintf(k, sizeof k, "key%d", i);
        uint32_t kg = kg_of(k);
        int rc = setk(be, k);
        if (kg >= 10 && kg < 20) {
            cr_assert_eq(rc, 0);
            size_t len;
            uint32_t got;
            const uint8_t *cur = weir__backend_key(be, &len, &got);
            cr_assert_eq(got, kg);
            cr_assert_eq(len, strlen(k));
            cr_assert_eq(memcmp(cur, k, len), 0);
            owned++;
        } else {
            cr_assert_eq(rc, WEIR_EINVAL);
            foreign++;
        }
    }
    cr_assert_gt(owned, 0);
    cr_assert_gt(foreign, 0);
    weir_buf b;
    weir_buf_init(&b);
    cr_assert_eq(weir__backend_snapshot_kg(be, 9, &b), WEIR_EINVAL);
    cr_assert_eq(weir__backend_snapshot_kg(be, 20, &b), WEIR_EINVAL);
    weir_buf_fini(&b);
    weir__backend_destroy(be);
    /* Bad configurations. */
    weir__backend *bad = NULL;
    weir__backend_config cfg = {
        .kind = kind, .max_parallelism = 128, .kg_lo = 5, .kg_hi = 200};
    cr_assert_eq(weir__backend_create(&cfg, &bad), WEIR_EINVAL);
    cfg = (weir__backend_config){
        .kind = "nosuch", .max_parallelism = 128, .kg_hi = 128};
    cr_assert_eq(weir__backend_create(&cfg, &bad), WEIR_EINVAL);
    weir__backend_destroy(NULL);
}

typedef struct keys_ctx {
    weir_state *st;
    int visits;
    int clear;
} keys_ctx;

static int keys_visit(void *ud, const uint8_t *key, size_t klen, const void *ns,
                      size_t nslen)
{
    keys_ctx *c = ud;
    c->visits++;
    /* The current key is the visited one: state reads see its entries. */
    size_t cur_len;
    const uint8_t *cur = weir__backend_key(c->st->be, &cur_len, NULL);
    cr_assert_eq(cur_len, klen);
    cr_assert_eq(memcmp(cur, key, klen), 0);
    const void *v;
    size_t len;
    cr_assert_eq(weir_value_get(c->st, ns, nslen, &v, &len), 0);
    if (c->clear)
        cr_assert_eq(weir_state_clear(c->st, ns, nslen), 0);
    return 0;
}

static void case_state_keys(const char *kind)
{
    weir__backend *be = mkbe(kind, 0, 128, no_clock());
    weir_state *st = reg(be, "v", WEIR_STATE_VALUE, 0, 0);
    weir_state *other = reg(be, "o", WEIR_STATE_VALUE, 0, 0);
    char k[32];
    for (int i = 0; i < 300; i++) {
        snprintf(k, sizeof k, "key%d", i);
        cr_assert_eq(setk(be, k), 0);
        put_s(st, "n1", "x");
        if (i % 3 == 0)
            put_s(st, "n2", "y");
        put_s(other, "", "z");
    }
    cr_assert_eq(setk(be, "key5"), 0);
    keys_ctx c = {st, 0, 0};
    cr_assert_eq(weir_state_keys(st, keys_visit, &c), 0);
    cr_assert_eq(c.visits, 400);
    /* The caller's current key is back afterwards. */
    size_t len;
    const uint8_t *cur = weir__backend_key(be, &len, NULL);
    cr_assert_eq(len, 4);
    cr_assert_eq(memcmp(cur, "key5", 4), 0);
    /* The visitor may clear what it visits. */
    c = (keys_ctx){st, 0, 1};
    cr_assert_eq(weir_state_keys(st, keys_visit, &c), 0);
    cr_assert_eq(c.visits, 400);
    c = (keys_ctx){st, 0, 0};
    cr_assert_eq(weir_state_keys(st, keys_visit, &c), 0);
    cr_assert_eq(c.visits, 0);
    c = (keys_ctx){other, 0, 0};
    cr_assert_eq(weir_state_keys(other, keys_visit, &c), 0);
    cr_assert_eq(c.visits, 300);
    weir__backend_destroy(be);
}

static void case_ttl_create_and_write(const char *kind)
{
    weir_manual_clock *mc = weir_manual_clock_create(1000);
    weir__backend *be = mkbe(kind, 0, 128, weir_manual_clock_get(mc));
    weir_state *st =
        reg(be, "v", WEIR_STATE_VALUE, 100, WEIR_TTL_ON_CREATE_AND_WRITE);
    weir_state *plain = reg(be, "p", WEIR_STATE_VALUE, 0, 0);
    char buf[64];
    cr_assert_eq(setk(be, "k"), 0);
    put_s(st, "", "v1");
    put_s(plain, "", "forever");
    weir_manual_clock_set(mc, 1099);
    cr_assert_str_eq(get_s(st, "", buf, sizeof buf), "v1");
    /* Reads do not extend the life in this mode. */
    weir_manual_clock_set(mc, 1100);
    cr_assert_null(get_s(st, "", buf, sizeof buf));
    cr_assert_str_eq(get_s(plain, "", buf, sizeof buf), "forever");
    /* A write restarts the clock. */
    put_s(st, "", "v2");
    weir_manual_clock_set(mc, 1150);
    put_s(st, "", "v3");
    weir_manual_clock_set(mc, 1249);
    cr_assert_str_eq(get_s(st, "", buf, sizeof buf), "v3");
    weir_manual_clock_set(mc, 1250);
    cr_assert_null(get_s(st, "", buf, sizeof buf));
    /* An expired value is gone for good, even if time went backwards. */
    weir_manual_clock_set(mc, 1200);
    cr_assert_null(get_s(st, "", buf, sizeof buf));
    /* Reducing: an expired accumulator restarts from the next value. */
    weir_state *sum = reg_sum(be, "sum", 50);
    weir_manual_clock_set(mc, 2000);
    add64(sum, "", 5);
    weir_manual_clock_set(mc, 2049);
    add64(sum, "", 6);
    cr_assert_eq(sum_of(sum, ""), 11);
    weir_manual_clock_set(mc, 2098);
    cr_assert_eq(sum_of(sum, ""), 11);
    weir_manual_clock_set(mc, 2099);
    weir_buf out;
    weir_buf_init(&out);
    cr_assert_eq(weir_state_get_result(sum, NS(""), &out), WEIR_ENOTFOUND);
    add64(sum, "", 1);
    cr_assert_eq(sum_of(sum, ""), 1);
    weir_buf_fini(&out);
    weir__backend_destroy(be);
    weir_manual_clock_destroy(mc);
}

/*
 * The stamp of a value and of a map entry, and puts that keep a given
 * stamp (an operator rewriting restored state in a new layout): the
 * rewritten entry expires when the one it replaces would have, not a TTL
 * after the rewrite. A state without TTL ignores the stamp.
 */
static void case_ttl_stamped_puts(const char *kind)
{
    weir_manual_clock *mc = weir_manual_clock_create(1000);
    weir__backend *be = mkbe(kind, 0, 128, weir_manual_clock_get(mc));
    weir_state *v =
        reg(be, "v", WEIR_STATE_VALUE, 100, WEIR_TTL_ON_CREATE_AND_WRITE);
    weir_state *m =
        reg(be, "m", WEIR_STATE_MAP, 100, WEIR_TTL_ON_CREATE_AND_WRITE);
    weir_state *plain = reg(be, "p", WEIR_STATE_VALUE, 0, 0);
    char buf[64];
    int64_t sv = 0, sm = 0, sp = 0;
    cr_assert_eq(setk(be, "k"), 0);
    cr_assert_eq(weir__state_stamp(v, NS(""), NULL, 0, &sv), WEIR_ENOTFOUND);
    put_s(v, "", "old");
    put_s(plain, "", "forever");
    cr_assert_eq(weir_map_put(m, NS(""), "a", 1, "1", 1), 0);
    weir_manual_clock_set(mc, 1040);
    cr_assert_eq(weir_map_put(m, NS(""), "b", 1, "2", 1), 0);
    weir_manual_clock_set(mc, 1060);
    cr_assert_eq(weir__state_stamp(v, NS(""), NULL, 0, &sv), 0);
    cr_assert_eq(sv, 1000);
    cr_assert_eq(weir__state_stamp(m, NS(""), "a", 1, &sm), 0);
    cr_assert_eq(sm, 1000);
    cr_assert_eq(weir__state_stamp(m, NS(""), "c", 1, &sm), WEIR_ENOTFOUND);
    cr_assert_eq(weir__state_stamp(plain, NS(""), NULL, 0, &sp), 0);
    cr_assert_eq(weir__state_stamp(v, NS(""), "a", 1, &sp), WEIR_EINVAL,
                 "a value state has no map entries");
    /* Rewritten at 1060 with the stamps they had: a's at 1000, b's at 1040. */
    cr_assert_eq(weir__value_put_stamped(v, NS(""), sv, "new", 3), 0);
    cr_assert_eq(weir__state_stamp(m, NS(""), "b", 1, &sm), 0);
    cr_assert_eq(sm, 1040);
    cr_assert_eq(weir_map_remove(m, NS(""), "b", 1), 0);
    cr_assert_eq(weir__map_put_stamped(m, NS(""), "B", 1, sm, "2", 1), 0);
    cr_assert_eq(weir__state_stamp(m, NS(""), "a", 1, &sm), 0);
    cr_assert_eq(weir__map_put_stamped(m, NS(""), "a", 1, sm, "3", 1), 0);
    cr_assert_eq(weir__value_put_stamped(plain, NS(""), 1000, "still", 5), 0);
    cr_assert_str_eq(get_s(v, "", buf, sizeof buf), "new");
    weir_manual_clock_set(mc, 1099);
    cr_assert_str_eq(get_s(v, "", buf, sizeof buf), "new");
    const void *p;
    size_t len;
    cr_assert_eq(weir_map_get(m, NS(""), "a", 1, &p, &len), 0);
    cr_assert(len == 1 && !memcmp(p, "3", 1));
    /* 1100: a TTL after the first writes, not after the rewrite. */
    weir_manual_clock_set(mc, 1100);
    cr_assert_null(get_s(v, "", buf, sizeof buf));
    cr_assert_eq(weir_map_get(m, NS(""), "a", 1, &p, &len), WEIR_ENOTFOUND);
    cr_assert_eq(weir__state_stamp(m, NS(""), "B", 1, &sm), 0);
    cr_assert_eq(sm, 1040);
    cr_assert_eq(weir_map_get(m, NS(""), "B", 1, &p, &len), 0);
    weir_manual_clock_set(mc, 1140);
    cr_assert_eq(weir_map_get(m, NS(""), "B", 1, &p, &len), WEIR_ENOTFOUND);
    cr_assert_eq(weir__state_stamp(m, NS(""), "B", 1, &sm), WEIR_ENOTFOUND);
    cr_assert_eq(weir__state_stamp(v, NS(""), NULL, 0, &sv), WEIR_ENOTFOUND);
    weir_manual_clock_set(mc, 1000000);
    cr_assert_str_eq(get_s(plain, "", buf, sizeof buf), "still");
    weir__backend_destroy(be);
    weir_manual_clock_destroy(mc);
}

static void case_ttl_read_and_write(const char *kind)
{
    weir_manual_clock *mc = weir_manual_clock_create(0);
    weir__backend *be = mkbe(kind, 0, 128, weir_manual_clock_get(mc));
    weir_state *st =
        reg(be, "v", WEIR_STATE_VALUE, 100, WEIR_TTL_ON_READ_AND_WRITE);
    weir_state *ls =
        reg(be, "l", WEIR_STATE_LIST, 100, WEIR_TTL_ON_READ_AND_WRITE);
    weir_state *ms =
        reg(be, "m", WEIR_STATE_MAP, 100, WEIR_TTL_ON_READ_AND_WRITE);
    char buf[64];
    cr_assert_eq(setk(be, "k"), 0);
    put_s(st, "", "v");
    cr_assert_eq(weir_list_add(ls, NS(""), "e", 1), 0);
    cr_assert_eq(weir_map_put(ms, NS(""), "a", 1, "1", 1), 0);
    cr_assert_eq(weir_map_put(ms, NS(""), "b", 1, "2", 1), 0);
    /* Each read at 90 extends the life to 190. */
    weir_manual_clock_set(mc, 90);
    cr_assert_str_eq(get_s(st, "", buf, sizeof buf), "v");
    char *s = list_s(ls, "");
    cr_assert_str_eq(s, "e");
    weir_free(s);
    const void *v;
    size_t vlen;
    cr_assert_eq(weir_map_get(ms, NS(""), "a", 1, &v, &vlen), 0);
    weir_manual_clock_set(mc, 189);
    cr_assert_str_eq(get_s(st, "", buf, sizeof buf), "v"); /* and now to 289 */
    s = list_s(ls, "");
    cr_assert_str_eq(s, "e");
    weir_free(s);
    /* "b" was never read: it expired at 100; "a" lives on. */
    cr_assert_eq(weir_map_get(ms, NS(""), "b", 1, &v, &vlen), WEIR_ENOTFOUND);
    cr_assert_eq(weir_map_get(ms, NS(""), "a", 1, &v, &vlen), 0);
    weir_manual_clock_set(mc, 288);
    int n = 0;
    cr_assert_eq(weir_map_iterate(ms, NS(""), count_visit, &n),
                 0); /* iteration reads: extends "a" */
    cr_assert_eq(n, 1);
    weir_manual_clock_set(mc, 289);
    cr_assert_null(get_s(st, "", buf, sizeof buf));
    s = list_s(ls, "");
    cr_assert_str_eq(s, "");
    weir_free(s);
    cr_assert_eq(weir_map_get(ms, NS(""), "a", 1, &v, &vlen), 0);
    weir_manual_clock_set(mc, 1000);
    cr_assert_eq(weir_map_get(ms, NS(""), "a", 1, &v, &vlen), WEIR_ENOTFOUND);
    weir__backend_destroy(be);
    weir_manual_clock_destroy(mc);
}

/* weir_map_update's callback: adds *ud to an int64 counter (unaligned
 * access through memcpy), keeps the entry while the counter is not 0; a
 * delta of 99 fails. */
static int counter_update(void *ud, void *val, size_t vlen)
{
    int64_t d = *(const int64_t *)ud, c;
    if (vlen != sizeof c || d == 99)
        return WEIR_EUSER;
    memcpy(&c, val, sizeof c);
    c += d;
    memcpy(val, &c, sizeof c);
    return c != 0;
}

static int64_t counter_of(weir_state *st, const char *k)
{
    const void *v;
    size_t vlen;
    int rc = weir_map_get(st, NS("w"), k, strlen(k), &v, &vlen);
    if (rc == WEIR_ENOTFOUND)
        return -1000;
    cr_assert_eq(rc, 0);
    cr_assert_eq(vlen, 8);
    int64_t c;
    memcpy(&c, v, sizeof c);
    return c;
}

static int bump(weir_state *st, const char *k, int64_t d)
{
    return weir_map_update(st, NS("w"), k, strlen(k), 8, counter_update, &d);
}

/* Read-modify-write of map entries in one call, the same on every backend. */
/* weir_map_rewrite's fn for the tests: the value becomes the old one with
 * `append` appended (rw->remove: the entry goes; rw->fail: an error). What
 * it was given is recorded. */
typedef struct rewrite_case {
    const char *append;
    bool remove, fail, keep_old;
    bool saw_absent;
    char saw[8192];
    char out[8192];
} rewrite_case;

static int rewrite_fn(void *ud, const void *old, size_t oldlen, const void **nv, size_t *nvlen)
{
    rewrite_case *rw = ud;
    rw->saw_absent = old == NULL;
    cr_assert(old || oldlen == 0);
    cr_assert_lt(oldlen, sizeof rw->saw);
    memcpy(rw->saw, old ? old : "", oldlen);
    rw->saw[oldlen] = 0;
    if (rw->fail)
        return WEIR_EUSER;
    if (rw->remove)
        return 0;
    if (rw->keep_old) {
        *nv = old;
        *nvlen = oldlen;
        return 1;
    }
    snprintf(rw->out, sizeof rw->out, "%s%s", rw->saw, rw->append);
    *nv = rw->out;
    *nvlen = strlen(rw->out);
    return 1;
}

static void rewrite(weir_state *st, const char *mk, rewrite_case *rw, int want_rc)
{
    cr_assert_eq(weir_map_rewrite(st, NS("w"), mk, strlen(mk), rewrite_fn, rw), want_rc, "%s", mk);
}

/* Map entry mk of namespace "w" as a string ("<absent>" when absent). */
static const char *rw_get(weir_state *st, const char *mk, char *buf, size_t cap)
{
    const void *v;
    size_t len;
    int rc = weir_map_get(st, NS("w"), mk, strlen(mk), &v, &len);
    if (rc == WEIR_ENOTFOUND)
        return "<absent>";
    cr_assert_eq(rc, 0);
    cr_assert_lt(len, cap);
    memcpy(buf, v, len);
    buf[len] = 0;
    return buf;
}

static void case_map_rewrite(const char *kind)
{
    weir_manual_clock *mc = weir_manual_clock_create(0);
    weir__backend *be = mkbe(kind, 0, 128, weir_manual_clock_get(mc));
    weir_state *st = reg(be, "m", WEIR_STATE_MAP, 0, 0);
    cr_assert_eq(setk(be, "k"), 0);
    static char buf[8192];
    static rewrite_case rw;
    /* Absent: fn sees NULL; its value is stored. Then the value grows
     * through the slab's sizes and past its largest block, read back each
     * time. */
    rw = (rewrite_case){.append = ""};
    rewrite(st, "a", &rw, 0);
    cr_assert(rw.saw_absent);
    cr_assert_str_eq(rw_get(st, "a", buf, sizeof buf), "");
    /* Present and empty: a pointer, not NULL. */
    rw = (rewrite_case){.append = "x"};
    rewrite(st, "a", &rw, 0);
    cr_assert(!rw.saw_absent);
    cr_assert_str_eq(rw.saw, "");
    for (int i = 0; i < 300; i++) {
        rw = (rewrite_case){.append = "0123456789abcdef"};
        rewrite(st, "a", &rw, 0);
        cr_assert_eq(strlen(rw.saw), 1 + 16 * (size_t)i);
        const char *v = rw_get(st, "a", buf, sizeof buf);
        cr_assert_eq(strlen(v), 1 + 16 * (size_t)i + 16);
        cr_assert_str_eq(v + strlen(v) - 16, "0123456789abcdef");
    }
    rw = (rewrite_case){.remove = true};
    rewrite(st, "a", &rw, 0);
    cr_assert_str_eq(rw_get(st, "a", buf, sizeof buf), "<absent>");
    /* Short values rewritten at every length up to 60 bytes. */
    for (int i = 0; i < 60; i++) {
        rw = (rewrite_case){.append = "y"};
        rewrite(st, "b", &rw, 0);
        cr_assert_eq(strlen(rw.saw), (size_t)i);
        cr_assert_eq(strlen(rw_get(st, "b", buf, sizeof buf)), (size_t)i + 1);
    }
    /* A new entry in a map that has one; then gone again. */
    rw = (rewrite_case){.append = "z"};
    rewrite(st, "c", &rw, 0);
    cr_assert(rw.saw_absent);
    cr_assert_str_eq(rw_get(st, "c", buf, sizeof buf), "z");
    cr_assert_eq(strlen(rw_get(st, "b", buf, sizeof buf)), 60);
    for (int i = 0; i < 40; i++) {
        char mk[16];
        snprintf(mk, sizeof mk, "many%d", i);
        rw = (rewrite_case){.append = mk};
        rewrite(st, mk, &rw, 0);
    }
    for (int i = 0; i < 40; i++) {
        char mk[16];
        snprintf(mk, sizeof mk, "many%d", i);
        cr_assert_str_eq(rw_get(st, mk, buf, sizeof buf), mk);
        rw = (rewrite_case){.remove = true};
        rewrite(st, mk, &rw, 0);
    }
    rw = (rewrite_case){.remove = true};
    rewrite(st, "c", &rw, 0);
    cr_assert_str_eq(rw_get(st, "c", buf, sizeof buf), "<absent>");
    /* The old bytes as the new value. */
    rw = (rewrite_case){.keep_old = true};
    rewrite(st, "b", &rw, 0);
    cr_assert_eq(strlen(rw_get(st, "b", buf, sizeof buf)), 60);
    /* A failing fn: its code, nothing changed; removing an absent entry
     * leaves it absent. */
    rw = (rewrite_case){.fail = true};
    rewrite(st, "b", &rw, WEIR_EUSER);
    cr_assert_eq(strlen(rw_get(st, "b", buf, sizeof buf)), 60);
    rw = (rewrite_case){.fail = true};
    rewrite(st, "c", &rw, WEIR_EUSER);
    rw = (rewrite_case){.remove = true};
    rewrite(st, "c", &rw, 0);
    cr_assert(rw.saw_absent);
    int n = 0;
    cr_assert_eq(weir_map_iterate(st, NS("w"), count_visit, &n), 0);
    cr_assert_eq(n, 1);
    /* The last entry removed: the map is gone. */
    rw = (rewrite_case){.remove = true};
    rewrite(st, "b", &rw, 0);
    n = 0;
    cr_assert_eq(weir_map_iterate(st, NS("w"), count_visit, &n), 0);
    cr_assert_eq(n, 0);
    /* TTL: an expired entry is absent to fn; a rewritten one gets a new
     * stamp. */
    weir_state *ts = reg(be, "t", WEIR_STATE_MAP, 100, WEIR_TTL_ON_CREATE_AND_WRITE);
    rw = (rewrite_case){.append = "old"};
    rewrite(ts, "a", &rw, 0);
    weir_manual_clock_set(mc, 60);
    rw = (rewrite_case){.append = "+"};
    rewrite(ts, "a", &rw, 0);
    cr_assert_str_eq(rw.saw, "old");
    weir_manual_clock_set(mc, 120);
    cr_assert_str_eq(rw_get(ts, "a", buf, sizeof buf), "old+");
    weir_manual_clock_set(mc, 300);
    rw = (rewrite_case){.append = "new"};
    rewrite(ts, "a", &rw, 0);
    cr_assert(rw.saw_absent);
    cr_assert_str_eq(rw_get(ts, "a", buf, sizeof buf), "new");
    weir__backend_destroy(be);
    weir_manual_clock_destroy(mc);
}

static void case_map_update(const char *kind)
{
    weir_manual_clock *mc = weir_manual_clock_create(0);
    weir__backend *be = mkbe(kind, 0, 128, weir_manual_clock_get(mc));
    weir_state *st = reg(be, "m", WEIR_STATE_MAP, 0, 0);
    cr_assert_eq(setk(be, "k"), 0);
    char mk[32];
    for (int round = 0; round < 3; round++)
        for (int i = 0; i < 200; i++) {
            snprintf(mk, sizeof mk, "mk%d", i);
            cr_assert_eq(bump(st, mk, i % 5), 0);
        }
    for (int i = 0; i < 200; i++) {
        snprintf(mk, sizeof mk, "mk%d", i);
        /* A delta of 0 on an absent entry leaves it absent. */
        cr_assert_eq(counter_of(st, mk), i % 5 ? 3 * (i % 5) : -1000, "%s", mk);
    }
    int n = 0;
    cr_assert_eq(weir_map_iterate(st, NS("w"), count_visit, &n), 0);
    cr_assert_eq(n, 160);
    /* Down to zero: the entry goes; the map goes with its last entry. */
    cr_assert_eq(bump(st, "mk1", -3), 0);
    cr_assert_eq(counter_of(st, "mk1"), -1000);
    cr_assert_eq(bump(st, "mk2", -1), 0);
    cr_assert_eq(counter_of(st, "mk2"), 5);
    /* A failing callback's code comes back; nothing is created. */
    cr_assert_eq(bump(st, "new", 99), WEIR_EUSER);
    cr_assert_eq(counter_of(st, "new"), -1000);
    /* An entry of another length is corrupt, not reinterpreted. */
    cr_assert_eq(weir_map_put(st, NS("w"), "short", 5, "abc", 3), 0);
    cr_assert_eq(bump(st, "short", 1), WEIR_ECORRUPT);
    for (int i = 0; i < 200; i++) {
        snprintf(mk, sizeof mk, "mk%d", i);
        int64_t c = counter_of(st, mk);
        if (c != -1000)
            cr_assert_eq(bump(st, mk, -c), 0);
    }
    cr_assert_eq(weir_map_remove(st, NS("w"), "short", 5), 0);
    n = 0;
    cr_assert_eq(weir_map_iterate(st, NS("w"), count_visit, &n), 0);
    cr_assert_eq(n, 0);
    /* TTL: an expired entry counts as absent (zeros), also when its bytes
     * were shorter; a kept entry gets a new stamp. */
    weir_state *ts = reg(be, "t", WEIR_STATE_MAP, 100, WEIR_TTL_ON_CREATE_AND_WRITE);
    cr_assert_eq(weir_map_update(ts, NS("w"), "a", 1, 8, counter_update, &(int64_t){4}), 0);
    cr_assert_eq(weir_map_put(ts, NS("w"), "b", 1, "x", 1), 0);
    weir_manual_clock_set(mc, 60);
    cr_assert_eq(weir_map_update(ts, NS("w"), "a", 1, 8, counter_update, &(int64_t){1}), 0);
    weir_manual_clock_set(mc, 120);
    cr_assert_eq(counter_of(ts, "a"), 5);
    cr_assert_eq(weir_map_update(ts, NS("w"), "b", 1, 8, counter_update, &(int64_t){2}), 0);
    cr_assert_eq(counter_of(ts, "b"), 2);
    weir_manual_clock_set(mc, 200);
    cr_assert_eq(weir_map_update(ts, NS("w"), "a", 1, 8, counter_update, &(int64_t){1}), 0);
    cr_assert_eq(counter_of(ts, "a"), 1);
    cr_assert_eq(weir_map_update(ts, NS("w"), "b", 1, 8, counter_update, &(int64_t){0}), 0);
    cr_assert_eq(counter_of(ts, "b"), 2);
    weir_manual_clock_set(mc, 350);
    cr_assert_eq(weir_map_update(ts, NS("w"), "b", 1, 8, counter_update, &(int64_t){0}), 0);
    cr_assert_eq(counter_of(ts, "b"), -1000);
    weir__backend_destroy(be);
    weir_manual_clock_destroy(mc);
}

/* weir_value_edit's callback: checks keep, then inserts the text ins at
 * byte at of the kept old value (moving its tail right, in place) and cuts
 * the result to the call's length; fail: returns WEIR_EUSER after writing. */
typedef struct edit_ins {
    const char *ins;
    size_t at, want_keep;
    bool fail;
} edit_ins;

static int insert_edit(void *ud, uint8_t *val, size_t len, size_t keep)
{
    const edit_ins *e = ud;
    cr_assert_eq(keep, e->want_keep);
    size_t il = strlen(e->ins), tail = keep > e->at ? keep - e->at : 0;
    if (e->at + il < len) /* the old tail moves right by il (what fits) */
        memmove(val + e->at + il, val + e->at, tail < len - e->at - il ? tail : len - e->at - il);
    memcpy(val + e->at, e->ins, il < len - e->at ? il : len - e->at);
    return e->fail ? WEIR_EUSER : 0;
}

static char *value_s(weir_state *st, const char *ns)
{
    const void *v;
    size_t len;
    int rc = weir_value_get(st, NS(ns), &v, &len);
    if (rc == WEIR_ENOTFOUND)
        return strdup("<none>");
    cr_assert_eq(rc, 0);
    char *s = malloc(len + 1);
    memcpy(s, v, len);
    s[len] = 0;
    return s;
}

static void expect_value(weir_state *st, const char *ns, const char *want)
{
    char *s = value_s(st, ns);
    cr_assert_str_eq(s, want);
    free(s);
}

/* A value rewritten where it lies: in place, grown past its room, cut
 * shorter, a failing edit, TTL - the same on every backend. */
static void case_value_edit(const char *kind)
{
    weir_manual_clock *mc = weir_manual_clock_create(0);
    weir__backend *be = mkbe(kind, 0, 128, weir_manual_clock_get(mc));
    weir_state *st = reg(be, "v", WEIR_STATE_VALUE, 0, 0);
    cr_assert_eq(setk(be, "k"), 0);
    /* absent: nothing kept */
    cr_assert_eq(weir_value_edit(st, NS("w"), 5, SIZE_MAX, insert_edit, &(edit_ins){"hello", 0, 0, false}), 0);
    expect_value(st, "w", "hello");
    cr_assert_eq(weir_value_edit(st, NS("w"), 8, SIZE_MAX, insert_edit, &(edit_ins){"abc", 2, 5, false}), 0);
    expect_value(st, "w", "heabcllo");
    /* grown far past the record's room: the old bytes come along */
    char big[1200];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    cr_assert_eq(weir_value_edit(st, NS("w"), 8 + 1199, SIZE_MAX, insert_edit, &(edit_ins){big, 4, 8, false}), 0);
    char *s = value_s(st, "w");
    cr_assert_eq(strlen(s), 1207);
    cr_assert(!strncmp(s, "heab", 4) && s[4] == 'x' && s[1202] == 'x' && !strcmp(s + 1203, "cllo"));
    free(s);
    /* cut shorter: keep is the new length */
    cr_assert_eq(weir_value_edit(st, NS("w"), 3, SIZE_MAX, insert_edit, &(edit_ins){"Z", 1, 3, false}), 0);
    expect_value(st, "w", "hZe");
    /* other namespaces and keys untouched */
    put_s(st, "o", "other");
    cr_assert_eq(setk(be, "k2"), 0);
    cr_assert_eq(weir_value_edit(st, NS("w"), 2, SIZE_MAX, insert_edit, &(edit_ins){"k2", 0, 0, false}), 0);
    cr_assert_eq(setk(be, "k"), 0);
    expect_value(st, "w", "hZe");
    expect_value(st, "o", "other");
    /* a failing edit: its code comes back; an absent value stays absent */
    cr_assert_eq(weir_value_edit(st, NS("f"), 4, SIZE_MAX, insert_edit, &(edit_ins){"abcd", 0, 0, true}), WEIR_EUSER);
    expect_value(st, "f", "<none>");
    cr_assert_eq(weir_value_edit(st, NS("w"), 500, SIZE_MAX, insert_edit, &(edit_ins){"q", 0, 3, true}), WEIR_EUSER);
    cr_assert_eq(weir_value_edit(st, NS("w"), 3, SIZE_MAX, insert_edit, &(edit_ins){"", 0, 3, false}), 0);
    /* bad arguments */
    cr_assert_eq(weir_value_edit(st, NS("w"), 3, SIZE_MAX, NULL, NULL), WEIR_EINVAL);
    weir_state *ls = reg(be, "l", WEIR_STATE_LIST, 0, 0);
    cr_assert_eq(weir_value_edit(ls, NS("w"), 3, SIZE_MAX, insert_edit, &(edit_ins){"abc", 0, 0, false}), WEIR_EINVAL);
    /* keep_max: only that much of the old value is kept, in place and when the value moves */
    cr_assert_eq(weir_value_edit(st, NS("m"), 3, SIZE_MAX, insert_edit, &(edit_ins){"abc", 0, 0, false}), 0);
    cr_assert_eq(weir_value_edit(st, NS("m"), 3, 1, insert_edit, &(edit_ins){"XY", 1, 1, false}), 0);
    expect_value(st, "m", "aXY");
    cr_assert_eq(weir_value_edit(st, NS("m"), 1 + 1199, 1, insert_edit, &(edit_ins){big, 1, 1, false}), 0);
    s = value_s(st, "m");
    cr_assert(strlen(s) == 1200 && s[0] == 'a' && s[1] == 'x' && s[1199] == 'x');
    free(s);
    cr_assert_eq(weir_value_edit(st, NS("m"), 2, 0, insert_edit, &(edit_ins){"pq", 0, 0, false}), 0);
    expect_value(st, "m", "pq");
    /* TTL: an expired value keeps nothing; an edit is a write (new stamp) */
    weir_state *ts = reg(be, "t", WEIR_STATE_VALUE, 100, WEIR_TTL_ON_CREATE_AND_WRITE);
    cr_assert_eq(weir_value_edit(ts, NS("w"), 3, SIZE_MAX, insert_edit, &(edit_ins){"abc", 0, 0, false}), 0);
    weir_manual_clock_set(mc, 60);
    cr_assert_eq(weir_value_edit(ts, NS("w"), 4, SIZE_MAX, insert_edit, &(edit_ins){"d", 3, 3, false}), 0);
    weir_manual_clock_set(mc, 120);
    expect_value(ts, "w", "abcd");
    weir_manual_clock_set(mc, 300);
    cr_assert_eq(weir_value_edit(ts, NS("w"), 2, SIZE_MAX, insert_edit, &(edit_ins){"ef", 0, 0, false}), 0);
    expect_value(ts, "w", "ef");
    weir_manual_clock_set(mc, 500);
    cr_assert_eq(weir_value_edit(ts, NS("w"), 2, SIZE_MAX, insert_edit, &(edit_ins){"gh", 0, 0, true}), WEIR_EUSER);
    expect_value(ts, "w", "<none>");
    weir__backend_destroy(be);
    weir_manual_clock_destroy(mc);
}

/* A string key of key group [lo, hi) of 128: "<prefix><n>" for the first n that has one. */
static void key_in(char *out, const char *prefix, uint32_t lo, uint32_t hi)
{
    for (int n = 0;; n++) {
        sprintf(out, "%s%d", prefix, n);
        if (kg_of(out) >= lo && kg_of(out) < hi)
            return;
    }
}

static int get_key_s(weir_state *st, const char *k, char *out, size_t cap)
{
    const void *v;
    size_t len;
    int rc = weir__value_get_key(st, k, strlen(k), weir_key_hash(k, strlen(k)), &v, &len);
    if (!rc) {
        cr_assert_lt(len, cap);
        memcpy(out, v, len);
        out[len] = 0;
    }
    return rc;
}

static int edit_key_s(weir_state *st, const char *k, size_t len, edit_ins e)
{
    return weir__value_edit_key(st, k, strlen(k), weir_key_hash(k, strlen(k)), len, SIZE_MAX, insert_edit, &e);
}

/* Another key's value read and rewritten without a change of the current
 * key (weir__value_get_key, weir__value_edit_key): the memory backend
 * serves it, with the results, TTL and snapshots of the way through the
 * current key; 1 (nothing done) for a key of another subtask, a key group
 * a snapshot still shares, and on RocksDB. */
static void case_value_key(const char *kind)
{
    bool mem = !strcmp(kind, "memory");
    weir_manual_clock *mc = weir_manual_clock_create(0);
    weir__backend *be = mkbe(kind, 0, 64, weir_manual_clock_get(mc));
    weir_state *st = reg(be, "v", WEIR_STATE_VALUE, 0, 0);
    weir_state *ts = reg(be, "t", WEIR_STATE_VALUE, 100, WEIR_TTL_ON_CREATE_AND_WRITE);
    char cur[32], k1[32], k2[32], other[32], got[2048];
    key_in(cur, "cur", 0, 64);
    key_in(k1, "one", 0, 64);
    key_in(k2, "two", 0, 64);
    key_in(other, "far", 64, 128);
    cr_assert_eq(setk(be, cur), 0);
    put_s(st, "", "current");
    cr_assert_eq(get_key_s(st, other, got, sizeof got), 1);
    cr_assert_eq(edit_key_s(st, other, 3, (edit_ins){"abc", 0, 0, false}), 1);
    if (!mem) {
        cr_assert_eq(get_key_s(st, k1, got, sizeof got), 1);
        cr_assert_eq(edit_key_s(st, k1, 3, (edit_ins){"abc", 0, 0, false}), 1);
        weir__backend_destroy(be);
        weir_manual_clock_destroy(mc);
        return;
    }
    cr_assert_eq(get_key_s(st, k1, got, sizeof got), WEIR_ENOTFOUND);
    cr_assert_eq(edit_key_s(st, k1, 5, (edit_ins){"hello", 0, 0, false}), 0);
    cr_assert_eq(edit_key_s(st, k1, 8, (edit_ins){"abc", 2, 5, false}), 0);
    cr_assert_eq(get_key_s(st, k1, got, sizeof got), 0);
    cr_assert_str_eq(got, "heabcllo");
    char big[1200];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    cr_assert_eq(edit_key_s(st, k1, 8 + 1199, (edit_ins){big, 4, 8, false}), 0); /* moves to a new record */
    cr_assert_eq(get_key_s(st, k1, got, sizeof got), 0);
    cr_assert(strlen(got) == 1207 && !strncmp(got, "heab", 4) && got[4] == 'x' && !strcmp(got + 1203, "cllo"));
    /* a failing edit: its code; an absent value stays absent */
    cr_assert_eq(edit_key_s(st, k2, 4, (edit_ins){"abcd", 0, 0, true}), WEIR_EUSER);
    cr_assert_eq(get_key_s(st, k2, got, sizeof got), WEIR_ENOTFOUND);
    /* the current key is as it was, its value untouched; the others' read through it */
    size_t klen;
    const uint8_t *k = weir__backend_key(be, &klen, NULL);
    cr_assert(klen == strlen(cur) && !memcmp(k, cur, klen));
    expect_value(st, "", "current");
    cr_assert_eq(setk(be, k1), 0);
    char *s = value_s(st, "");
    cr_assert_eq(strlen(s), 1207);
    free(s);
    cr_assert_eq(setk(be, k2), 0);
    expect_value(st, "", "<none>");
    /* TTL: an expired value keeps nothing and is not read; an edit is a write (new stamp) */
    cr_assert_eq(edit_key_s(ts, k1, 3, (edit_ins){"abc", 0, 0, false}), 0);
    weir_manual_clock_set(mc, 60);
    cr_assert_eq(edit_key_s(ts, k1, 4, (edit_ins){"d", 3, 3, false}), 0);
    weir_manual_clock_set(mc, 120);
    cr_assert_eq(get_key_s(ts, k1, got, sizeof got), 0);
    cr_assert_str_eq(got, "abcd");
    weir_manual_clock_set(mc, 300);
    cr_assert_eq(get_key_s(ts, k1, got, sizeof got), WEIR_ENOTFOUND);
    cr_assert_eq(edit_key_s(ts, k1, 2, (edit_ins){"ef", 0, 0, false}), 0);
    cr_assert_eq(get_key_s(ts, k1, got, sizeof got), 0);
    cr_assert_str_eq(got, "ef");
    /* a key group an open snapshot shares is served once a change of key copied it */
    weir__backend_snap *snap;
    cr_assert_eq(weir__backend_snapshot_begin(be, &snap), 0);
    cr_assert_eq(get_key_s(st, k1, got, sizeof got), 1);
    cr_assert_eq(edit_key_s(st, k1, 3, (edit_ins){"new", 0, 0, false}), 1);
    cr_assert_eq(setk(be, k1), 0);
    cr_assert_eq(edit_key_s(st, k1, 3, (edit_ins){"new", 0, 3, false}), 0);
    cr_assert_eq(setk(be, cur), 0);
    cr_assert_eq(get_key_s(st, k1, got, sizeof got), 0);
    cr_assert_str_eq(got, "new");
    weir_buf out;
    weir_buf_init(&out);
    cr_assert_eq(weir__backend_snap_kg(snap, kg_of(k1), &out), 0); /* the snapshot has the old value */
    cr_assert(memmem(out.data, out.len, "heab", 4) && !memmem(out.data, out.len, "new", 3));
    weir_buf_fini(&out);
    weir__backend_snap_release(snap);
    /* bad arguments */
    cr_assert_eq(weir__value_edit_key(st, k1, strlen(k1), 0, 3, SIZE_MAX, NULL, NULL), WEIR_EINVAL);
    weir_state *ls = reg(be, "l", WEIR_STATE_LIST, 0, 0);
    cr_assert_eq(get_key_s(ls, k1, got, sizeof got), WEIR_EINVAL);
    weir__backend_destroy(be);
    weir_manual_clock_destroy(mc);
}

static void case_ttl_list_map_per_item(const char *kind)
{
    weir_manual_clock *mc = weir_manual_clock_create(0);
    weir__backend *be = mkbe(kind, 0, 128, weir_manual_clock_get(mc));
    weir_state *ls =
        reg(be, "l", WEIR_STATE_LIST, 100, WEIR_TTL_ON_CREATE_AND_WRITE);
    weir_state *ms =
        reg(be, "m", WEIR_STATE_MAP, 100, WEIR_TTL_ON_CREATE_AND_WRITE);
    cr_assert_eq(setk(be, "k"), 0);
    /* Each list element and map entry has its own stamp. */
    cr_assert_eq(weir_list_add(ls, NS("w"), "a", 1), 0);
    cr_assert_eq(weir_map_put(ms, NS("w"), "a", 1, "1", 1), 0);
    weir_manual_clock_set(mc, 50);
    cr_assert_eq(weir_list_add(ls, NS("w"), "b", 1), 0);
    cr_assert_eq(weir_map_put(ms, NS("w"), "b", 1, "2", 1), 0);
    weir_manual_clock_set(mc, 99);
    char *s = list_s(ls, "w");
    cr_assert_str_eq(s, "a,b");
    weir_free(s);
    weir_manual_clock_set(mc, 100);
    s = list_s(ls, "w");
    cr_assert_str_eq(s, "b");
    weir_free(s);
    const void *v;
    size_t vlen;
    cr_assert_eq(weir_map_get(ms, NS("w"), "a", 1, &v, &vlen), WEIR_ENOTFOUND);
    cr_assert_eq(weir_map_get(ms, NS("w"), "b", 1, &v, &vlen), 0);
    cr_assert_eq(weir_list_add(ls, NS("w"), "c", 1), 0);
    weir_manual_clock_set(mc, 150);
    s = list_s(ls, "w");
    cr_assert_str_eq(s, "c");
    weir_free(s);
    int n = 0;
    cr_assert_eq(weir_map_iterate(ms, NS("w"), count_visit, &n), 0);
    cr_assert_eq(n, 0);
    /* After everything expired, adding starts a fresh list. */
    weir_manual_clock_set(mc, 1000);
    cr_assert_eq(weir_list_add(ls, NS("w"), "d", 1), 0);
    s = list_s(ls, "w");
    cr_assert_str_eq(s, "d");
    weir_free(s);
    cr_assert_eq(weir_map_put(ms, NS("w"), "z", 1, "9", 1), 0);
    n = 0;
    cr_assert_eq(weir_map_iterate(ms, NS("w"), count_visit, &n), 0);
    cr_assert_eq(n, 1);
    weir__backend_destroy(be);
    weir_manual_clock_destroy(mc);
}

/* Fills four states of every kind with keys key0..key(n-1) (only the owned
 * ones). */
static void fill_all_kinds(weir__backend *be, weir_state **sts, int n)
{
    char k[32], v[64];
    for (int i = 0; i < n; i++) {
        snprintf(k, sizeof k, "key%d", i);
        if (setk(be, k) != 0)
            continue;
        snprintf(v, sizeof v, "value-%d", i);
        put_s(sts[0], "", v);
        if (i % 2)
            put_s(sts[0], "ns1", "odd");
        for (int j = 0; j <= i % 4; j++) {
            snprintf(v, sizeof v, "el%d.%d", i, j);
            cr_assert_eq(weir_list_add(sts[1], NS("w"), v, strlen(v)), 0);
        }
        for (int j = 0; j <= i % 3; j++) {
            char mk[16];
            snprintf(mk, sizeof mk, "m%d", j);
            snprintf(v, sizeof v, "mv%d.%d", i, j);
            cr_assert_eq(
                weir_map_put(sts[2], NS("w"), mk, strlen(mk), v, strlen(v)), 0);
        }
        add64(sts[3], "w", i);
        add64(sts[3], "w", 1);
    }
}

static void reg_all_kinds(weir__backend *be, weir_state **sts)
{
    sts[0] = reg(be, "value", WEIR_STATE_VALUE, 0, 0);
    sts[1] = reg(be, "list", WEIR_STATE_LIST, 0, 0);
    sts[2] = reg(be, "map", WEIR_STATE_MAP, 0, 0);
    sts[3] = reg_sum(be, "sum", 0);
}

/* Snapshots every key group of `from` (owned by it) and restores those `to`
 * owns. */
static void move_kgs(weir__backend *from, uint32_t flo, uint32_t fhi,
                     weir__backend *to, uint32_t tlo, uint32_t thi)
{
    weir_buf b;
    weir_buf_init(&b);
    for (uint32_t kg = flo; kg < fhi; kg++) {
        if (kg < tlo || kg >= thi)
            continue;
        weir_buf_clear(&b);
        cr_assert_eq(weir__backend_snapshot_kg(from, kg, &b), 0);
        weir_cursor c;
        weir_cursor_init(&c, b.data, b.len);
        int rc = weir__backend_restore_kg(to, kg, &c);
        cr_assert_eq(rc, 0, "restore kg %u: %s", kg, weir_strerror(rc));
        cr_assert_eq(weir_cursor_left(&c), 0);
    }
    weir_buf_fini(&b);
}

/* Snapshot of every kind restores into a backend of kind `to_kind` with equal
 * content. */
static void roundtrip_into(const char *from_kind, const char *to_kind)
{
    weir__backend *a = mkbe(from_kind, 0, 128, no_clock());
    weir_state *sa[4];
    reg_all_kinds(a, sa);
    fill_all_kinds(a, sa, 300);
    weir__backend *b = mkbe(to_kind, 0, 128, no_clock());
    weir_state *sb[4];
    /* Half the states are registered before the restore, half after: both bind
     * by name. */
    sb[0] = reg(b, "value", WEIR_STATE_VALUE, 0, 0);
    sb[1] = reg(b, "list", WEIR_STATE_LIST, 0, 0);
    move_kgs(a, 0, 128, b, 0, 128);
    sb[2] = reg(b, "map", WEIR_STATE_MAP, 0, 0);
    sb[3] = reg_sum(b, "sum", 0);
    char *da = dump(sa, 4), *db = dump(sb, 4);
    cr_assert_gt(strlen(da), 1000);
    cr_assert_str_eq(da, db);
    /* The restored states work as usual afterwards. */
    cr_assert_eq(setk(b, "key3"), 0);
    add64(sb[3], "w", 10);
    cr_assert_eq(sum_of(sb[3], "w"), 3 + 1 + 10);
    cr_assert_eq(weir_list_add(sb[1], NS("w"), "more", 4), 0);
    char *s = list_s(sb[1], "w");
    cr_assert_str_eq(s, "el3.0,el3.1,el3.2,el3.3,more");
    weir_free(s);
    weir_free(da);
    weir_free(db);
    weir__backend_destroy(a);
    weir__backend_destroy(b);
}

static void case_snapshot_roundtrip(const char *kind)
{
    roundtrip_into(kind, kind);
}

static void case_snapshot_replaces_kg(const char *kind)
{
    weir__backend *be = mkbe(kind, 0, 128, no_clock());
    weir_state *st = reg(be, "v", WEIR_STATE_VALUE, 0, 0);
    char buf[64];
    cr_assert_eq(setk(be, "key1"), 0);
    put_s(st, "", "before");
    uint32_t kg = kg_of("key1");
    weir_buf snap;
    weir_buf_init(&snap);
    cr_assert_eq(weir__backend_snapshot_kg(be, kg, &snap), 0);
    put_s(st, "", "after");
    put_s(st, "extra", "x");
    /* A restore puts the key group back to the snapshot, dropping later
     * changes. */
    weir_cursor c;
    weir_cursor_init(&c, snap.data, snap.len);
    cr_assert_eq(weir__backend_restore_kg(be, kg, &c), 0);
    cr_assert_str_eq(get_s(st, "", buf, sizeof buf), "before");
    cr_assert_null(get_s(st, "extra", buf, sizeof buf));
    /* Restoring into another key group is refused. */
    weir_cursor_init(&c, snap.data, snap.len);
    cr_assert_eq(weir__backend_restore_kg(be, (kg + 1) % 128, &c), WEIR_EINVAL);
    /* An empty key group snapshots to a small blob that restores to nothing. */
    uint32_t empty_kg = 0;
    char k[32];
    for (; empty_kg < 128; empty_kg++) {
        bool used = false;
        for (int i = 0; i < 2; i++) {
            snprintf(k, sizeof k, "key%d", i);
            used |= kg_of(k) == empty_kg;
        }
        if (!used)
            break;
    }
    weir_buf_clear(&snap);
    cr_assert_eq(weir__backend_snapshot_kg(be, empty_kg, &snap), 0);
    cr_assert_lt(snap.len, 40);
    weir_cursor_init(&c, snap.data, snap.len);
    cr_assert_eq(weir__backend_restore_kg(be, empty_kg, &c), 0);
    weir_buf_fini(&snap);
    weir__backend_destroy(be);
}

static void case_snapshot_rescale(const char *kind)
{
    /* One subtask owning everything, split across two (parallelism 1 -> 2). */
    weir__backend *a = mkbe(kind, 0, 128, no_clock());
    weir_state *sa[4];
    reg_all_kinds(a, sa);
    fill_all_kinds(a, sa, 250);
    uint32_t lo0, hi0, lo1, hi1;
    weir_key_group_range(0, 2, 128, &lo0, &hi0);
    weir_key_group_range(1, 2, 128, &lo1, &hi1);
    weir__backend *b0 = mkbe(kind, lo0, hi0, no_clock());
    weir__backend *b1 = mkbe(kind, lo1, hi1, no_clock());
    weir_state *s0[4], *s1[4];
    reg_all_kinds(b0, s0);
    reg_all_kinds(b1, s1);
    move_kgs(a, 0, 128, b0, lo0, hi0);
    move_kgs(a, 0, 128, b1, lo1, hi1);
    /* Every key lives in exactly the subtask that owns its key group. */
    char k[32], buf[64], v[64];
    for (int i = 0; i < 250; i++) {
        snprintf(k, sizeof k, "key%d", i);
        weir__backend *owner = kg_of(k) < hi0 ? b0 : b1;
        weir_state **so = owner == b0 ? s0 : s1;
        cr_assert_eq(setk(owner, k), 0);
        snprintf(v, sizeof v, "value-%d", i);
        cr_assert_str_eq(get_s(so[0], "", buf, sizeof buf), v);
        cr_assert_eq(sum_of(so[3], "w"), i + 1);
    }
    /* A key group the backend does not own is refused. */
    weir_buf snap;
    weir_buf_init(&snap);
    cr_assert_eq(weir__backend_snapshot_kg(a, hi0, &snap), 0);
    weir_cursor c;
    weir_cursor_init(&c, snap.data, snap.len);
    cr_assert_eq(weir__backend_restore_kg(b0, hi0, &c), WEIR_EINVAL);
    weir_buf_fini(&snap);
    /* And back together (2 -> 1): the content equals the original. */
    weir__backend *m = mkbe(kind, 0, 128, no_clock());
    weir_state *sm[4];
    reg_all_kinds(m, sm);
    move_kgs(b0, lo0, hi0, m, 0, 128);
    move_kgs(b1, lo1, hi1, m, 0, 128);
    char *da = dump(sa, 4), *dm = dump(sm, 4);
    cr_assert_str_eq(da, dm);
    weir_free(da);
    weir_free(dm);
    weir__backend_destroy(a);
    weir__backend_destroy(b0);
    weir__backend_destroy(b1);
    weir__backend_destroy(m);
}

static void case_snapshot_corrupt(const char *kind)
{
    weir__backend *a = mkbe(kind, 0, 128, no_clock());
    weir_state *sa[4];
    reg_all_kinds(a, sa);
    fill_all_kinds(a, sa, 300);
    uint32_t kg = kg_of("key1");
    weir_buf snap;
    weir_buf_init(&snap);
    cr_assert_eq(weir__backend_snapshot_kg(a, kg, &snap), 0);
    cr_assert_gt(snap.len, 100);
    weir__backend *b = mkbe(kind, 0, 128, no_clock());
    weir_state *sb[4];
    reg_all_kinds(b, sb);
    cr_assert_eq(setk(b, "key1"), 0);
    put_s(sb[0], "", "untouched");
    uint8_t *copy = weir_malloc(snap.len);
    weir_cursor c;
    /* Every flipped byte is detected (the checksum covers header and body). */
    for (size_t i = 0; i < snap.len; i++) {
        memcpy(copy, snap.data, snap.len);
        copy[i] ^= (uint8_t)(1u << (i % 8));
        weir_cursor_init(&c, copy, snap.len);
        cr_assert_eq(weir__backend_restore_kg(b, kg, &c), WEIR_ECORRUPT,
                     "flip at %zu", i);
    }
    /* Every truncation too. */
    for (size_t n = 0; n < snap.len; n++) {
        weir_cursor_init(&c, snap.data, n);
        cr_assert_eq(weir__backend_restore_kg(b, kg, &c), WEIR_ECORRUPT,
                     "truncated to %zu", n);
    }
    /* Nothing was applied by the failed restores. */
    char buf[64];
    cr_assert_str_eq(get_s(sb[0], "", buf, sizeof buf), "untouched");
    /* A blob for another max parallelism is refused as incompatible. */
    be_opts o = {.lo = 0, .hi = 256, .maxp = 256};
    weir__backend *c256 = mkbe_opts(kind, &o);
    weir_cursor_init(&c, snap.data, snap.len);
    cr_assert_eq(weir__backend_restore_kg(c256, kg, &c), WEIR_EINVAL);
    /* The intact blob restores, followed by trailing bytes the cursor leaves
     * alone. */
    weir_buf_put(&snap, "tail", 4);
    weir_cursor_init(&c, snap.data, snap.len);
    cr_assert_eq(weir__backend_restore_kg(b, kg, &c), 0);
    cr_assert_eq(weir_cursor_left(&c), 4);
    cr_assert_str_eq(get_s(sb[0], "", buf, sizeof buf), "value-1");
    /* A state restored under a name registered with another kind is
     * incompatible. */
    weir__backend *d = mkbe(kind, 0, 128, no_clock());
    reg(d, "value", WEIR_STATE_LIST, 0, 0);
    weir_cursor_init(&c, snap.data, snap.len - 4);
    cr_assert_eq(weir__backend_restore_kg(d, kg, &c), WEIR_EINVAL);
    weir_free(copy);
    weir_buf_fini(&snap);
    weir__backend_destroy(a);
    weir__backend_destroy(b);
    weir__backend_destroy(c256);
    weir__backend_destroy(d);
}

static void case_snapshot_ttl(const char *kind)
{
    weir_manual_clock *mc = weir_manual_clock_create(0);
    weir__backend *a = mkbe(kind, 0, 128, weir_manual_clock_get(mc));
    weir_state *v =
        reg(a, "v", WEIR_STATE_VALUE, 100, WEIR_TTL_ON_CREATE_AND_WRITE);
    weir_state *l =
        reg(a, "l", WEIR_STATE_LIST, 100, WEIR_TTL_ON_CREATE_AND_WRITE);
    weir_state *m =
        reg(a, "m", WEIR_STATE_MAP, 100, WEIR_TTL_ON_CREATE_AND_WRITE);
    cr_assert_eq(setk(a, "key1"), 0);
    put_s(v, "old", "o");
    cr_assert_eq(weir_list_add(l, NS(""), "old", 3), 0);
    cr_assert_eq(weir_map_put(m, NS(""), "old", 3, "o", 1), 0);
    cr_assert_eq(weir_map_put(m, NS("gone"), "old", 3, "o", 1), 0);
    weir_manual_clock_set(mc, 60);
    put_s(v, "new", "n");
    cr_assert_eq(weir_list_add(l, NS(""), "new", 3), 0);
    cr_assert_eq(weir_map_put(m, NS(""), "new", 3, "n", 1), 0);
    weir_manual_clock_set(mc, 120);
    /* Expired entries are left out of the snapshot; stamps travel with the
     * rest. */
    weir_buf snap;
    weir_buf_init(&snap);
    uint32_t kg = kg_of("key1");
    cr_assert_eq(weir__backend_snapshot_kg(a, kg, &snap), 0);
    cr_assert_null(memmem(snap.data, snap.len, "old", 3));
    cr_assert_null(memmem(snap.data, snap.len, "gone", 4));
    cr_assert_not_null(memmem(snap.data, snap.len, "new", 3));
    weir__backend *b = mkbe(kind, 0, 128, weir_manual_clock_get(mc));
    weir_cursor c;
    weir_cursor_init(&c, snap.data, snap.len);
    cr_assert_eq(weir__backend_restore_kg(b, kg, &c), 0);
    weir_state *bv =
        reg(b, "v", WEIR_STATE_VALUE, 100, WEIR_TTL_ON_CREATE_AND_WRITE);
    weir_state *bl =
        reg(b, "l", WEIR_STATE_LIST, 100, WEIR_TTL_ON_CREATE_AND_WRITE);
    cr_assert_eq(setk(b, "key1"), 0);
    char buf[16];
    cr_assert_str_eq(get_s(bv, "new", buf, sizeof buf), "n");
    weir_manual_clock_set(mc, 160); /* the restored stamp (60) still decides */
    cr_assert_null(get_s(bv, "new", buf, sizeof buf));
    char *s = list_s(bl, "");
    cr_assert_str_eq(s, "");
    weir_free(s);
    /* A state without TTL restored into one with TTL starts its life at the
     * restore. */
    weir__backend *p = mkbe(kind, 0, 128, weir_manual_clock_get(mc));
    weir_state *pv = reg(p, "v", WEIR_STATE_VALUE, 0, 0);
    cr_assert_eq(setk(p, "key1"), 0);
    put_s(pv, "", "plain");
    weir_buf_clear(&snap);
    cr_assert_eq(weir__backend_snapshot_kg(p, kg, &snap), 0);
    weir_manual_clock_set(mc, 10000);
    weir__backend *q = mkbe(kind, 0, 128, weir_manual_clock_get(mc));
    weir_state *qv =
        reg(q, "v", WEIR_STATE_VALUE, 100, WEIR_TTL_ON_CREATE_AND_WRITE);
    weir_cursor_init(&c, snap.data, snap.len);
    cr_assert_eq(weir__backend_restore_kg(q, kg, &c), 0);
    cr_assert_eq(setk(q, "key1"), 0);
    weir_manual_clock_set(mc, 10099);
    cr_assert_str_eq(get_s(qv, "", buf, sizeof buf), "plain");
    weir_manual_clock_set(mc, 10100);
    cr_assert_null(get_s(qv, "", buf, sizeof buf));
    weir_buf_fini(&snap);
    weir__backend_destroy(a);
    weir__backend_destroy(b);
    weir__backend_destroy(p);
    weir__backend_destroy(q);
    weir_manual_clock_destroy(mc);
}

/*
 * A state that had no TTL restored into one with TTL: each value, list
 * element and map entry lives a TTL from the restore (docs/state.md),
 * whether the state is registered before the restore (as an operator's
 * open does) or after it (a state the operator asks for later), and also
 * through a second snapshot taken before it expires.
 */
static void reg_vlm(weir__backend *be, int64_t ttl_ms, weir_state *s[3])
{
    s[0] = reg(be, "v", WEIR_STATE_VALUE, ttl_ms, WEIR_TTL_ON_CREATE_AND_WRITE);
    s[1] = reg(be, "l", WEIR_STATE_LIST, ttl_ms, WEIR_TTL_ON_CREATE_AND_WRITE);
    s[2] = reg(be, "m", WEIR_STATE_MAP, ttl_ms, WEIR_TTL_ON_CREATE_AND_WRITE);
}

/* Fills reg_vlm's states with key's value, list and map entry; key stays
 * current. */
static void put_entries_of(weir__backend *be, weir_state *s[3], const char *key)
{
    cr_assert_eq(setk(be, key), 0);
    put_s(s[0], "", "plain");
    cr_assert_eq(weir_list_add(s[1], NS(""), "e1", 2), 0);
    cr_assert_eq(weir_list_add(s[1], NS(""), "e2", 2), 0);
    cr_assert_eq(weir_map_put(s[2], NS(""), "mk", 2, "mv", 2), 0);
}

/* Fills reg_vlm's states with key1's value, list and map entry. */
static void put_plain_entries(weir__backend *be, weir_state *s[3])
{
    put_entries_of(be, s, "key1");
}

/* Whether the current key's entries of reg_vlm's states (put_entries_of) are
 * all there, or all gone. */
static void expect_plain_entries(weir_state *const st[3], bool live)
{
    weir_state *v = st[0], *l = st[1], *m = st[2];
    char buf[16];
    const void *mv;
    size_t mvlen;
    const char *got = get_s(v, "", buf, sizeof buf);
    char *s = list_s(l, "");
    int rc = weir_map_get(m, NS(""), "mk", 2, &mv, &mvlen);
    if (live) {
        cr_assert_str_eq(got ? got : "(none)", "plain");
        cr_assert_str_eq(s, "e1,e2");
        cr_assert_eq(rc, 0);
    } else {
        cr_assert_null(got, "the value outlived its TTL");
        cr_assert_str_eq(s, "", "list elements outlived their TTL");
        cr_assert_eq(rc, WEIR_ENOTFOUND, "a map entry outlived its TTL");
    }
    weir_free(s);
}

/* A backend with reg_vlm's states (ttl_ms) and key group kg restored from
 * snap, key1 current. */
static weir__backend *restored_vlm(const char *kind, weir_clock clock,
                                   const weir_buf *snap, uint32_t kg,
                                   int64_t ttl_ms, weir_state *s[3])
{
    weir__backend *be = mkbe(kind, 0, 128, clock);
    reg_vlm(be, ttl_ms, s);
    weir_cursor c;
    weir_cursor_init(&c, snap->data, snap->len);
    cr_assert_eq(weir__backend_restore_kg(be, kg, &c), 0);
    cr_assert_eq(setk(be, "key1"), 0);
    return be;
}

static void case_ttl_starts_at_restore(const char *kind)
{
    weir_manual_clock *mc = weir_manual_clock_create(0);
    weir__backend *p = mkbe(kind, 0, 128, weir_manual_clock_get(mc));
    weir_state *ps[3];
    reg_vlm(p, 0, ps);
    put_plain_entries(p, ps);
    weir_buf snap, again;
    weir_buf_init(&snap);
    weir_buf_init(&again);
    uint32_t kg = kg_of("key1");
    cr_assert_eq(weir__backend_snapshot_kg(p, kg, &snap), 0);
    for (int late = 0; late < 2; late++) {
        weir_manual_clock_set(mc, 10000);
        weir__backend *q = mkbe(kind, 0, 128, weir_manual_clock_get(mc));
        weir_state *qs[3];
        if (!late)
            reg_vlm(q, 100, qs);
        weir_cursor c;
        weir_cursor_init(&c, snap.data, snap.len);
        cr_assert_eq(weir__backend_restore_kg(q, kg, &c), 0);
        if (late)
            reg_vlm(q, 100, qs);
        cr_assert_eq(setk(q, "key1"), 0);
        weir_manual_clock_set(mc, 10050);
        expect_plain_entries(qs, true);
        /* Their stamps (10000) travel on into the next snapshot. */
        weir_buf_clear(&again);
        cr_assert_eq(weir__backend_snapshot_kg(q, kg, &again), 0);
        weir_manual_clock_set(mc, 10099);
        expect_plain_entries(qs, true);
        weir_manual_clock_set(mc, 10100);
        expect_plain_entries(qs, false);
        weir_state *rs[3];
        weir__backend *r =
            restored_vlm(kind, weir_manual_clock_get(mc), &again, kg, 100, rs);
        expect_plain_entries(rs, false);
        weir__backend_destroy(q);
        weir__backend_destroy(r);
    }
    /* Registered after the restore without TTL, while a snapshot taken
     * before holds the restored state: the entries stay for good, the list
     * takes more elements, and the snapshot has the restored ones. */
    weir__backend *n = mkbe(kind, 0, 128, weir_manual_clock_get(mc));
    weir_cursor c;
    weir_cursor_init(&c, snap.data, snap.len);
    cr_assert_eq(weir__backend_restore_kg(n, kg, &c), 0);
    weir__backend_snap *pinned;
    cr_assert_eq(weir__backend_snapshot_begin(n, &pinned), 0);
    weir_state *ns[3];
    reg_vlm(n, 0, ns);
    cr_assert_eq(setk(n, "key1"), 0);
    weir_manual_clock_set(mc, 1000000);
    expect_plain_entries(ns, true);
    cr_assert_eq(weir_list_add(ns[1], NS(""), "e3", 2), 0);
    char *s = list_s(ns[1], "");
    cr_assert_str_eq(s, "e1,e2,e3");
    weir_free(s);
    weir_buf_clear(&again);
    cr_assert_eq(weir__backend_snap_kg(pinned, kg, &again), 0);
    weir__backend_snap_release(pinned);
    weir_state *os[3];
    weir__backend *o =
        restored_vlm(kind, weir_manual_clock_get(mc), &again, kg, 0, os);
    expect_plain_entries(os, true);
    weir_buf_fini(&snap);
    weir_buf_fini(&again);
    weir__backend_destroy(n);
    weir__backend_destroy(o);
    weir__backend_destroy(p);
    weir_manual_clock_destroy(mc);
}

/*
 * Random operations against a plain model (value state, a few keys and
 * namespaces), checked after every step. Seed from WEIR_TEST_SEED.
 */
#define RM_KEYS 40
#define RM_NS 3
static uint64_t rnd_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static uint64_t test_seed(void)
{
    const char *e = getenv("WEIR_TEST_SEED");
    uint64_t seed = e ? strtoull(e, NULL, 0) : 0x5eed1234abcdULL;
    fprintf(stderr,
            "state model test seed: 0x%" PRIx64
            " (set WEIR_TEST_SEED to repeat)\n",
            seed);
    return seed ? seed : 1;
}

/* Namespace i: the empty namespace for 0, "n<i>" otherwise. */
static void ns_name(char *ns, size_t cap, int i)
{
    if (i == 0)
        ns[0] = '\0';
    else
        snprintf(ns, cap, "n%d", i);
}

static void case_random_model(const char *kind)
{
    weir__backend *be = mkbe(kind, 0, 128, no_clock());
    weir_state *st = reg(be, "v", WEIR_STATE_VALUE, 0, 0);
    weir_state *ls = reg(be, "l", WEIR_STATE_LIST, 0, 0);
    static char model[RM_KEYS][RM_NS][80];
    static int present[RM_KEYS][RM_NS];
    static int list_n[RM_KEYS][RM_NS];
    memset(present, 0, sizeof present);
    memset(list_n, 0, sizeof list_n);
    uint64_t s = test_seed();
    char k[32], ns[16], buf[128];
    for (int step = 0; step < 6000; step++) {
        int ki = (int)(rnd_next(&s) % RM_KEYS),
            ni = (int)(rnd_next(&s) % RM_NS);
        snprintf(k, sizeof k, "k%d", ki);
        ns_name(ns, sizeof ns, ni);
        cr_assert_eq(setk(be, k), 0);
        int op = (int)(rnd_next(&s) % 10);
        if (op < 4) {
            int len = (int)(rnd_next(&s) % 70);
            for (int i = 0; i < len; i++)
                model[ki][ni][i] = (char)('a' + (int)(rnd_next(&s) % 26));
            model[ki][ni][len] = '\0';
            present[ki][ni] = 1;
            put_s(st, ns, model[ki][ni]);
        } else if (op < 5) {
            present[ki][ni] = 0;
            cr_assert_eq(weir_state_clear(st, NS(ns)), 0);
        } else if (op < 7) {
            cr_assert_eq(weir_list_add(ls, NS(ns), "x", 1), 0);
            list_n[ki][ni]++;
        } else if (op < 8) {
            cr_assert_eq(weir_state_clear(ls, NS(ns)), 0);
            list_n[ki][ni] = 0;
        } else {
            const char *got = get_s(st, ns, buf, sizeof buf);
            if (present[ki][ni])
                cr_assert_str_eq(got, model[ki][ni], "step %d", step);
            else
                cr_assert_null(got, "step %d", step);
            int cnt = 0;
            weir_buf lb;
            weir_buf_init(&lb);
            cr_assert_eq(weir_list_get(ls, NS(ns), join_visit, &lb), 0);
            for (size_t i = 0; i < lb.len; i++)
                cnt += lb.data[i] == 'x';
            cr_assert_eq(cnt, list_n[ki][ni], "step %d", step);
            weir_buf_fini(&lb);
        }
    }
    for (int ki = 0; ki < RM_KEYS; ki++) {
        snprintf(k, sizeof k, "k%d", ki);
        cr_assert_eq(setk(be, k), 0);
        for (int ni = 0; ni < RM_NS; ni++) {
            ns_name(ns, sizeof ns, ni);
            const char *got = get_s(st, ns, buf, sizeof buf);
            if (present[ki][ni])
                cr_assert_str_eq(got, model[ki][ni]);
            else
                cr_assert_null(got);
        }
    }
    weir__backend_destroy(be);
}

/* ---- asynchronous snapshots (backend.h: snapshot_begin / snap_kg) ---- */

#define AS_KEYS 400

/* Writes a round of changes to every kind of state; round r differs. */
static void as_mutate(weir__backend *be, weir_state **sts, int r)
{
    char k[32], v[32];
    for (int i = 0; i < AS_KEYS; i++) {
        snprintf(k, sizeof k, "key%d", i);
        snprintf(v, sizeof v, "r%d-v%d", r, i);
        cr_assert_eq(setk(be, k), 0);
        if ((i + r) % 7 == 0) {
            cr_assert_eq(weir_state_clear(sts[0], NS("a")), 0);
        } else {
            put_s(sts[0], "a", v);
        }
        cr_assert_eq(weir_list_add(sts[1], NS(""), v, strlen(v)), 0);
        cr_assert_eq(weir_map_put(sts[2], NS("m"), k, strlen(k), v, strlen(v)),
                     0);
        if ((i + r) % 5 == 0)
            cr_assert_eq(weir_map_remove(sts[2], NS("m"), "key1", 4), 0);
        put_s(sts[3], "t", v); /* TTL 100 ms */
    }
}

/* Every key group's canonical bytes, back to back, from the live backend. */
static void as_dump_live(weir__backend *be, weir_buf *out)
{
    weir_buf_clear(out);
    for (uint32_t kg = 0; kg < 128; kg++)
        cr_assert_eq(weir__backend_snapshot_kg(be, kg, out), 0);
}

typedef struct as_job {
    weir__backend_snap *s;
    weir_buf out;
    int rc;
} as_job;

static void *as_thread(void *p)
{
    as_job *j = p;
    for (uint32_t kg = 0; kg < 128 && !j->rc; kg++)
        j->rc = weir__backend_snap_kg(j->s, kg, &j->out);
    return NULL;
}

/*
 * A snapshot pinned by snapshot_begin, serialized on another thread while
 * the owner goes on writing (values, lists, maps, clears, a new state, TTL
 * expiry, a dropped key group), equals byte for byte what a synchronous
 * snapshot at the moment of begin wrote; so does a second one opened while
 * the first is still open.
 */
static void case_snapshot_async(const char *kind)
{
    weir_manual_clock *mc = weir_manual_clock_create(1000);
    weir__backend *be = mkbe(kind, 0, 128, weir_manual_clock_get(mc));
    weir_state *sts[5];
    sts[0] = reg(be, "v", WEIR_STATE_VALUE, 0, WEIR_TTL_ON_CREATE_AND_WRITE);
    sts[1] = reg(be, "l", WEIR_STATE_LIST, 0, WEIR_TTL_ON_CREATE_AND_WRITE);
    sts[2] = reg(be, "m", WEIR_STATE_MAP, 0, WEIR_TTL_ON_CREATE_AND_WRITE);
    sts[3] = reg(be, "t", WEIR_STATE_VALUE, 100, WEIR_TTL_ON_READ_AND_WRITE);
    as_mutate(be, sts, 0);
    weir_manual_clock_set(mc, 1050);
    as_mutate(be, sts, 1);

    weir_buf want_a, want_b, now;
    weir_buf_init(&want_a);
    weir_buf_init(&want_b);
    weir_buf_init(&now);
    as_dump_live(be, &want_a);
    as_job a = {0}, b = {0};
    weir_buf_init(&a.out);
    weir_buf_init(&b.out);
    cr_assert_eq(weir__backend_snapshot_begin(be, &a.s), 0);
    pthread_t ta;
    cr_assert_eq(pthread_create(&ta, NULL, as_thread, &a), 0);
    /* Writes while the other thread reads the pinned state. */
    as_mutate(be, sts, 2);
    weir_manual_clock_set(mc, 1120); /* round 0's TTL values expire */
    weir_state *late = reg(be, "late", WEIR_STATE_VALUE, 0,
                           WEIR_TTL_ON_CREATE_AND_WRITE);
    cr_assert_eq(setk(be, "key3"), 0);
    put_s(late, "x", "y");
    char buf[64];
    get_s(sts[3], "t", buf, sizeof buf); /* a read that refreshes a stamp */
    as_dump_live(be, &want_b);
    cr_assert_eq(weir__backend_snapshot_begin(be, &b.s), 0);
    as_mutate(be, sts, 3);
    cr_assert_eq(weir_state_clear(sts[1], NS("")), 0);
    cr_assert_eq(be->ops->drop_kg(be, kg_of("key5")), 0);
    cr_assert_eq(pthread_join(ta, NULL), 0);
    cr_assert_eq(a.rc, 0, "%s", weir_strerror(a.rc));
    cr_assert_eq(a.out.len, want_a.len);
    cr_assert(memcmp(a.out.data, want_a.data, want_a.len) == 0);
    weir__backend_snap_release(a.s);
    as_mutate(be, sts, 4);
    as_thread(&b);
    cr_assert_eq(b.rc, 0);
    cr_assert_eq(b.out.len, want_b.len);
    cr_assert(memcmp(b.out.data, want_b.data, want_b.len) == 0);
    /* The live state is the newest; it did not leak into either snapshot. */
    as_dump_live(be, &now);
    cr_assert(now.len != want_b.len ||
              memcmp(now.data, want_b.data, now.len) != 0);
    weir__backend_snap_release(b.s);
    /* A snapshot still open when the data is restored into a fresh backend:
     * its bytes restore to the state at begin. */
    weir__backend_snap *c;
    cr_assert_eq(weir__backend_snapshot_begin(be, &c), 0);
    weir_buf_clear(&want_a);
    for (uint32_t kg = 0; kg < 128; kg++)
        cr_assert_eq(weir__backend_snap_kg(c, kg, &want_a), 0);
    weir__backend_snap_release(c);
    cr_assert_eq(want_a.len, now.len);
    cr_assert(memcmp(want_a.data, now.data, now.len) == 0);
    weir_buf_fini(&want_a);
    weir_buf_fini(&want_b);
    weir_buf_fini(&now);
    weir_buf_fini(&a.out);
    weir_buf_fini(&b.out);
    weir__backend_destroy(be);
    weir_manual_clock_destroy(mc);
}

/*
 * Write combining (weir__backend_write_batch): while on, every read, list or
 * map access, key-group scan and snapshot still sees every write made
 * before it; turning it off leaves everything written.
 */
static void case_write_batch(const char *kind)
{
    weir__backend *be = mkbe(kind, 0, 128, no_clock());
    weir_state *v = reg(be, "v", WEIR_STATE_VALUE, 0, 0);
    weir_state *l = reg(be, "l", WEIR_STATE_LIST, 0, 0);
    weir_state *m = reg(be, "m", WEIR_STATE_MAP, 0, 0);
    char k[32], val[32], buf[64];
    cr_assert_eq(weir__backend_write_batch(be, true), 0);
    for (int i = 0; i < 10000; i++) { /* several batches' worth */
        snprintf(k, sizeof k, "key%d", i);
        snprintf(val, sizeof val, "v%d", i);
        cr_assert_eq(setk(be, k), 0);
        put_s(v, "", val);
        if (i % 3 == 0)
            cr_assert_eq(weir_state_clear(v, NS("")), 0);
    }
    cr_assert_eq(setk(be, "key9998"), 0); /* in the last, unwritten batch */
    cr_assert_str_eq(get_s(v, "", buf, sizeof buf), "v9998");
    cr_assert_eq(setk(be, "key9"), 0);
    cr_assert_null(get_s(v, "", buf, sizeof buf));
    put_s(v, "", "again");
    cr_assert_eq(weir_list_add(l, NS(""), "x", 1), 0);
    char *ls = list_s(l, "");
    cr_assert_str_eq(ls, "x");
    weir_free(ls);
    put_s(v, "", "after-list");
    cr_assert_eq(weir_map_put(m, NS(""), "a", 1, "b", 1), 0);
    const void *mv;
    size_t mlen;
    cr_assert_eq(weir_map_get(m, NS(""), "a", 1, &mv, &mlen), 0);
    put_s(v, "", "pinned");
    weir__backend_snap *sn;
    cr_assert_eq(weir__backend_snapshot_begin(be, &sn), 0);
    weir_buf a, b;
    weir_buf_init(&a);
    weir_buf_init(&b);
    cr_assert_eq(weir__backend_snap_kg(sn, kg_of("key9"), &a), 0);
    cr_assert_not_null(memmem(a.data, a.len, "pinned", 6));
    weir__backend_snap_release(sn);
    put_s(v, "", "last");
    cr_assert_eq(weir__backend_write_batch(be, false), 0);
    cr_assert_eq(weir__backend_snapshot_kg(be, kg_of("key9"), &b), 0);
    cr_assert_not_null(memmem(b.data, b.len, "last", 4));
    for (int i = 0; i < 10000; i += 97) {
        snprintf(k, sizeof k, "key%d", i);
        snprintf(val, sizeof val, "v%d", i);
        cr_assert_eq(setk(be, k), 0);
        const char *got = get_s(v, "", buf, sizeof buf);
        if (i == 9)
            cr_assert_str_eq(got, "last");
        else if (i % 3 == 0)
            cr_assert_null(got);
        else
            cr_assert_str_eq(got, val);
    }
    weir_buf_fini(&a);
    weir_buf_fini(&b);
    weir__backend_destroy(be);
}

#define STATE_CASES(suite, kind)                                               \
    Test(suite, value_basics)                                                  \
    {                                                                          \
        case_value_basics(kind);                                               \
    }                                                                          \
    Test(suite, keys_and_namespaces_isolate)                                   \
    {                                                                          \
        case_keys_and_namespaces_isolate(kind);                                \
    }                                                                          \
    Test(suite, list)                                                          \
    {                                                                          \
        case_list(kind);                                                       \
    }                                                                          \
    Test(suite, map)                                                           \
    {                                                                          \
        case_map(kind);                                                        \
    }                                                                          \
    Test(suite, map_update)                                                    \
    {                                                                          \
        case_map_update(kind);                                                 \
    }                                                                          \
    Test(suite, map_rewrite)                                                   \
    {                                                                          \
        case_map_rewrite(kind);                                                \
    }                                                                          \
    Test(suite, value_edit)                                                    \
    {                                                                          \
        case_value_edit(kind);                                                 \
    }                                                                          \
    Test(suite, value_key)                                                     \
    {                                                                          \
        case_value_key(kind);                                                  \
    }                                                                          \
    Test(suite, reducing_aggregating)                                          \
    {                                                                          \
        case_reducing_aggregating(kind);                                       \
    }                                                                          \
    Test(suite, registration)                                                  \
    {                                                                          \
        case_registration(kind);                                               \
    }                                                                          \
    Test(suite, state_keys)                                                    \
    {                                                                          \
        case_state_keys(kind);                                                 \
    }                                                                          \
    Test(suite, ttl_create_and_write)                                          \
    {                                                                          \
        case_ttl_create_and_write(kind);                                       \
    }                                                                          \
    Test(suite, ttl_stamped_puts)                                              \
    {                                                                          \
        case_ttl_stamped_puts(kind);                                           \
    }                                                                          \
    Test(suite, ttl_read_and_write)                                            \
    {                                                                          \
        case_ttl_read_and_write(kind);                                         \
    }                                                                          \
    Test(suite, ttl_list_map_per_item)                                         \
    {                                                                          \
        case_ttl_list_map_per_item(kind);                                      \
    }                                                                          \
    Test(suite, snapshot_roundtrip)                                            \
    {                                                                          \
        case_snapshot_roundtrip(kind);                                         \
    }                                                                          \
    Test(suite, snapshot_replaces_kg)                                          \
    {                                                                          \
        case_snapshot_replaces_kg(kind);                                       \
    }                                                                          \
    Test(suite, snapshot_rescale)                                              \
    {                                                                          \
        case_snapshot_rescale(kind);                                           \
    }                                                                          \
    Test(suite, snapshot_corrupt)                                              \
    {                                                                          \
        case_snapshot_corrupt(kind);                                           \
    }                                                                          \
    Test(suite, snapshot_ttl)                                                  \
    {                                                                          \
        case_snapshot_ttl(kind);                                               \
    }                                                                          \
    Test(suite, ttl_starts_at_restore)                                         \
    {                                                                          \
        case_ttl_starts_at_restore(kind);                                      \
    }                                                                          \
    Test(suite, random_model)                                                  \
    {                                                                          \
        case_random_model(kind);                                               \
    }                                                                          \
    Test(suite, snapshot_async)                                                \
    {                                                                          \
        case_snapshot_async(kind);                                             \
    }                                                                          \
    Test(suite, write_batch)                                                   \
    {                                                                          \
        case_write_batch(kind);                                                \
    }

#endif
