/*
 * bench/agg_bench.c - nanoseconds per add for every aggregate function.
 *
 * Two shapes, both over batches of 1024 rows with ~10% NULLs:
 *   one acc   every row into one accumulator through class->add
 *             (a global aggregate, or one window of one key);
 *   10k keys  rows scattered over 10,000 accumulators, one per key, through
 *             weir_agg_add_rows (what a keyed window operator does; the
 *             accumulators do not fit in L1, as in the window benchmark).
 * Values: BIGINT uniform in [0, 1e6) (so COUNT_DISTINCT and the sketches
 * see many distinct values), STRING "user-<n>" with n < 50,000.
 *
 * Usage: bench_agg_bench [rows_per_function]   (default 20,000,000)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "weir/agg.h"

enum { BATCH = 1024, KEYS = 10000 };

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID,
                  &t); /* CPU time: the machine may be shared */
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint64_t rng = 88172645463325252ULL;
static uint64_t xorshift(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

typedef struct spec {
    const char *fn;
    int col; /* -1, 0 = BIGINT, 1 = STRING, 2 = DOUBLE */
    double param;
    const char *label;
} spec;

static const spec specs[] = {
    {"COUNT", -1, 0, "COUNT(*)"},
    {"COUNT", 0, 0, "COUNT(bigint)"},
    {"SUM", 0, 0, "SUM(bigint)"},
    {"SUM", 2, 0, "SUM(double)"},
    {"AVG", 0, 0, "AVG(bigint)"},
    {"MIN", 0, 0, "MIN(bigint)"},
    {"MAX", 0, 0, "MAX(bigint)"},
    {"MAX", 1, 0, "MAX(string)"},
    {"FIRST_VALUE", 0, 0, "FIRST_VALUE(bigint)"},
    {"LAST_VALUE", 1, 0, "LAST_VALUE(string)"},
    {"VAR_POP", 2, 0, "VAR_POP(double)"},
    {"COUNT_DISTINCT", 0, 0, "COUNT_DISTINCT(bigint)"},
    {"COUNT_DISTINCT", 1, 0, "COUNT_DISTINCT(string)"},
    {"APPROX_COUNT_DISTINCT", 0, 0, "APPROX_COUNT_DISTINCT(bigint)"},
    {"APPROX_PERCENTILE", 0, 0.99, "APPROX_PERCENTILE(bigint, 0.99)"},
    {"MIN_RETRACT", 0, 0, "MIN_RETRACT(bigint)"},
    {"LAST_VALUE_RETRACT", 0, 0, "LAST_VALUE_RETRACT(bigint)"},
};

static weir_batch *make_batch(const weir_schema *s, int seed)
{
    weir_batch *b = weir_batch_create(s, BATCH);
    rng = 88172645463325252ULL + (uint64_t)seed * 7919;
    for (int r = 0; r < BATCH; r++) {
        weir_batch_append_row(b);
        bool null = xorshift() % 10 == 0;
        int64_t v = (int64_t)(xorshift() % 1000000);
        WEIR_COL_I64(b, 0)[r] = v;
        WEIR_COL_F64(b, 2)[r] = (double)v / 3;
        char w[32];
        int n = snprintf(w, sizeof w, "user-%d", (int)(xorshift() % 50000));
        weir_batch_set_str(b, 1, (uint32_t)r, w, (size_t)n);
        if (null) {
            weir_batch_set_null(b, 0, (uint32_t)r);
            weir_batch_set_null(b, 1, (uint32_t)r);
            weir_batch_set_null(b, 2, (uint32_t)r);
        }
    }
    return b;
}

int main(int argc, char **argv)
{
    long rows = argc > 1 ? atol(argv[1]) : 20000000L;
    if (rows < BATCH)
        rows = BATCH;
    weir_schema *s = weir_schema_create();
    weir_schema_add(s, "v", weir_type_make(WEIR_TYPE_BIGINT, true));
    weir_schema_add(s, "name", weir_type_make(WEIR_TYPE_STRING, true));
    weir_schema_add(s, "x", weir_type_make(WEIR_TYPE_DOUBLE, true));
    enum { NB = 16 };
    weir_batch *batches[NB];
    for (int i = 0; i < NB; i++)
        batches[i] = make_batch(s, i);
    /* The key of each row, as a hash partitioner would spread them. */
    static uint32_t keyof[NB][BATCH], rowids[BATCH];
    for (int i = 0; i < NB; i++)
        for (int r = 0; r < BATCH; r++)
            keyof[i][r] = (uint32_t)(xorshift() % KEYS);
    for (int r = 0; r < BATCH; r++)
        rowids[r] = (uint32_t)r;

    printf("| function | one acc, ns/add | 10k keys, ns/add | M adds/s (10k "
           "keys) |\n");
    printf("|---|---:|---:|---:|\n");
    long long checksum = 0;
    for (size_t f = 0; f < sizeof specs / sizeof specs[0]; f++) {
        weir_agg a;
        weir_error err;
        if (weir_agg_bind(specs[f].fn, s, specs[f].col, specs[f].param, &a,
                          &err)) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
        size_t sz = weir_agg_acc_size(&a);
        /* One accumulator. */
        void *acc = weir_malloc(sz);
        weir_agg_init(&a, acc);
        long nb = rows / BATCH;
        double t0 = now_s();
        for (long i = 0; i < nb; i++) {
            const weir_batch *b = batches[i % NB];
            for (uint32_t r = 0; r < BATCH; r++)
                a.cls->add(&a, acc, b, r);
        }
        double one = (now_s() - t0) * 1e9 / (double)(nb * BATCH);
        checksum += weir_agg_is_empty(&a, acc);
        weir_agg_destroy(&a, acc);
        weir_free(acc);

        /* 10,000 keys. */
        char *accs = weir_malloc(sz * KEYS);
        for (int k = 0; k < KEYS; k++)
            weir_agg_init(&a, accs + (size_t)k * sz);
        static void *ptrs[NB][BATCH];
        for (int i = 0; i < NB; i++)
            for (int r = 0; r < BATCH; r++)
                ptrs[i][r] = accs + (size_t)keyof[i][r] * sz;
        t0 = now_s();
        for (long i = 0; i < nb; i++)
            weir_agg_add_rows(&a, ptrs[i % NB], batches[i % NB], rowids, BATCH);
        double many = (now_s() - t0) * 1e9 / (double)(nb * BATCH);
        for (int k = 0; k < KEYS; k++) {
            checksum += weir_agg_is_empty(&a, accs + (size_t)k * sz);
            weir_agg_destroy(&a, accs + (size_t)k * sz);
        }
        weir_free(accs);
        printf("| %s | %.2f | %.2f | %.0f |\n", specs[f].label, one, many,
               1e3 / many);
        fflush(stdout);
    }
    for (int i = 0; i < NB; i++)
        weir_batch_destroy(batches[i]);
    weir_schema_destroy(s);
    fprintf(stderr, "(checksum %lld)\n", checksum);
    return 0;
}
