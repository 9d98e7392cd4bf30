/*
 * bench/expr_bench.c - rows/s of vectorized expression evaluation:
 *   1. filter      price > 100 AND channel = 'x'
 *   2. arithmetic  price * 0.908 (DECIMAL), price * 3 + qty (BIGINT)
 *   3. string      UPPER(channel) || '-' || SUBSTRING(url, 1, 8)
 *   4. regex       REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2)
 * over batches of 1024 rows, single thread. Usage: bench_expr_bench [rows].
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weir/clock.h"
#include "weir/expr.h"

static weir_expr *col(weir_expr_arena *a, const weir_schema *s, const char *name)
{
    weir_expr *e;
    weir_error err;
    if (weir_expr_column_named(a, s, name, &e, &err)) {
        fprintf(stderr, "%s\n", err.message);
        exit(1);
    }
    return e;
}

static weir_expr *call(weir_expr_arena *a, const char *name, weir_expr *x, weir_expr *y, weir_expr *z)
{
    weir_expr *args[3] = {x, y, z}, *e;
    weir_error err;
    uint32_t n = z ? 3 : y ? 2 : 1;
    if (weir_expr_call(a, name, args, n, &e, &err)) {
        fprintf(stderr, "%s: %s\n", name, err.message);
        exit(1);
    }
    return e;
}

static weir_expr *num(weir_expr_arena *a, const char *t)
{
    weir_expr *e;
    weir_error err;
    weir_expr_lit_numeric(a, t, &e, &err);
    return e;
}

int main(int argc, char **argv)
{
    uint64_t total = argc > 1 ? strtoull(argv[1], NULL, 10) : 20000000;
    const uint32_t cap = 1024;
    weir_schema *s = weir_schema_create();
    weir_schema_add(s, "price", weir_type_make(WEIR_TYPE_BIGINT, false));
    weir_schema_add(s, "channel", weir_type_make(WEIR_TYPE_STRING, false));
    weir_schema_add(s, "qty", weir_type_make(WEIR_TYPE_INT, false));
    weir_schema_add(s, "url", weir_type_make(WEIR_TYPE_STRING, false));
    weir_batch *in = weir_batch_create(s, cap);
    static const char *chans[] = {"x", "apple", "google", "facebook", "baidu"};
    uint64_t r = 88172645463325252ULL;
    for (uint32_t i = 0; i < cap; i++) {
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        weir_batch_append_row(in);
        ((int64_t *)in->cols[0].data)[i] = (int64_t)(r % 1000);
        const char *c = chans[r % 5];
        weir_batch_set_str(in, 1, i, c, strlen(c));
        ((int32_t *)in->cols[2].data)[i] = (int32_t)(r % 7);
        char url[96];
        int len = snprintf(url, sizeof url, "https://www.nexmark.com/item.htm?query=1&channel_id=%llu&x=%u",
                           (unsigned long long)(r % 100000), i);
        weir_batch_set_str(in, 3, i, url, (size_t)len);
    }
    weir_expr_arena *a = weir_expr_arena_create();
    weir_expr_env *env = weir_expr_env_create();
    weir_expr *filter = call(a, "AND", call(a, ">", col(a, s, "price"), weir_expr_lit_int(a, 100), NULL),
                             call(a, "=", col(a, s, "channel"), weir_expr_lit_string(a, "x", 1), NULL), NULL);
    weir_expr *dec = call(a, "*", col(a, s, "price"), num(a, "0.908"), NULL);
    weir_expr *ari = call(a, "+", call(a, "*", col(a, s, "price"), weir_expr_lit_int(a, 3), NULL), col(a, s, "qty"), NULL);
    weir_expr *str = call(a, "||", call(a, "||", call(a, "UPPER", col(a, s, "channel"), NULL, NULL),
                                        weir_expr_lit_string(a, "-", 1), NULL),
                          call(a, "SUBSTRING", col(a, s, "url"), weir_expr_lit_int(a, 1), weir_expr_lit_int(a, 8)), NULL);
    weir_expr *rx = call(a, "REGEXP_EXTRACT", col(a, s, "url"), weir_expr_lit_string(a, "(&|^)channel_id=([^&]*)", 23),
                         weir_expr_lit_int(a, 2));
    struct {
        const char *name;
        weir_expr *e;
        bool is_filter;
    } cases[] = {{"filter price > 100 AND channel = 'x'", filter, true},
                 {"projection price * 0.908 (DECIMAL)", dec, false},
                 {"projection price * 3 + qty (BIGINT)", ari, false},
                 {"string UPPER(channel) || '-' || SUBSTRING(url, 1, 8)", str, false},
                 {"regex REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2)", rx, false}};
    uint8_t sel[1024];
    weir_error err;
    printf("| expression | rows | seconds | Mrows/s |\n|---|---|---|---|\n");
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        weir_schema *os = weir_schema_create();
        weir_schema_add(os, "r", weir_expr_type(cases[k].e));
        weir_batch *out = weir_batch_create(os, cap);
        uint64_t rows = total;
        if (k == 4)
            rows /= 10; /* the regex case is far slower */
        int64_t t0 = weir_monotonic_ns();
        uint64_t done = 0, kept = 0;
        while (done < rows) {
            int rc;
            if (cases[k].is_filter) {
                rc = weir_expr_filter(cases[k].e, in, env, sel, &err);
                for (uint32_t i = 0; i < cap; i++)
                    kept += sel[i];
            } else {
                out->heap_len = 0;
                rc = weir_expr_eval(cases[k].e, in, env, out, 0, &err);
            }
            if (rc) {
                fprintf(stderr, "%s\n", err.message);
                return 1;
            }
            done += cap;
        }
        double sec = (double)(weir_monotonic_ns() - t0) / 1e9;
        printf("| %s | %llu | %.3f | %.1f |\n", cases[k].name, (unsigned long long)done, sec, (double)done / sec / 1e6);
        (void)kept;
        weir_batch_destroy(out);
        weir_schema_destroy(os);
    }
    weir_expr_env_destroy(env);
    weir_expr_arena_destroy(a);
    weir_batch_destroy(in);
    weir_schema_destroy(s);
    return 0;
}
