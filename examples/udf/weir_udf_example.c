/*
 * examples/udf/weir_udf_example.c - a shared library of SQL functions in C,
 * for CREATE FUNCTION ... LANGUAGE C (docs/functions.md):
 *
 *   CREATE FUNCTION clamp AS 'weir_example_clamp' LANGUAGE C
 *     USING JAR '/path/libweir_udf_example.so';
 *   CREATE FUNCTION reverse_str AS 'weir_example_reverse' LANGUAGE C
 *     USING JAR '/path/libweir_udf_example.so';
 *   SELECT clamp(x, 0, 10), reverse_str(name) FROM t;
 *
 * Each exported symbol is a weir_udf_init_fn: weir calls it once when the
 * CREATE FUNCTION statement is planned, and it describes the function
 * (argument and result types, the callback, flags). Build it as a shared
 * library against weir's headers:
 *
 *   cc -shared -fPIC -I/usr/include weir_udf_example.c -o libweir_udf_example.so
 */
#include <string.h>

#include "weir/expr.h"

/* clamp(x INT, lo INT, hi INT) INT: x limited to [lo, hi]. */
static int clamp_row(void *ud, const weir_value *args, uint32_t n_args, weir_value *out, weir_udf_ctx *cx)
{
    (void)ud, (void)n_args, (void)cx;
    int32_t x = args[0].v.i32, lo = args[1].v.i32, hi = args[2].v.i32;
    out->v.i32 = x < lo ? lo : x > hi ? hi : x;
    return 0;
}

static const weir_type clamp_args[3] = {
    {WEIR_TYPE_INT, 0, 0, true}, {WEIR_TYPE_INT, 0, 0, true}, {WEIR_TYPE_INT, 0, 0, true}};

int weir_example_clamp(uint32_t abi, weir_udf *out, weir_error *err);
int weir_example_clamp(uint32_t abi, weir_udf *out, weir_error *err)
{
    if (abi != WEIR_UDF_ABI_VERSION)
        return weir_error_set(err, WEIR_EINVAL, "built for weir's UDF ABI %d, not %u", WEIR_UDF_ABI_VERSION, abi);
    out->arg_types = clamp_args;
    out->n_args = 3;
    out->result_type = (weir_type){WEIR_TYPE_INT, 0, 0, true};
    out->row_fn = clamp_row;
    out->null_on_null = true; /* NULL in, NULL out, without a call */
    out->deterministic = true;
    return 0;
}

/* reverse_str(s STRING) STRING: the bytes of s in reverse order. */
static int reverse_row(void *ud, const weir_value *args, uint32_t n_args, weir_value *out, weir_udf_ctx *cx)
{
    (void)ud, (void)n_args;
    const char *s = args[0].v.s.ptr;
    uint32_t n = args[0].v.s.len;
    char *r = weir_udf_alloc(cx, n ? n : 1);
    if (!r)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < n; i++)
        r[i] = s[n - 1 - i];
    out->v.s.ptr = r;
    out->v.s.len = n;
    return 0;
}

static const weir_type reverse_args[1] = {{WEIR_TYPE_STRING, 0, 0, true}};

int weir_example_reverse(uint32_t abi, weir_udf *out, weir_error *err);
int weir_example_reverse(uint32_t abi, weir_udf *out, weir_error *err)
{
    if (abi != WEIR_UDF_ABI_VERSION)
        return weir_error_set(err, WEIR_EINVAL, "built for weir's UDF ABI %d, not %u", WEIR_UDF_ABI_VERSION, abi);
    out->arg_types = reverse_args;
    out->n_args = 1;
    out->result_type = (weir_type){WEIR_TYPE_STRING, 0, 0, true};
    out->row_fn = reverse_row;
    out->null_on_null = true;
    out->deterministic = true;
    return 0;
}
