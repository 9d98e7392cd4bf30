/*
 * connector/nexmark/udf.c - the scalar functions the Nexmark queries call.
 *
 * The reference ships count_char (q14) with its benchmark and declares it
 * with CREATE FUNCTION ... AS '<java class>', which weir cannot run, so the
 * function is registered through the C API instead: the SQL
 * layer registers it whenever it plans a 'connector' = 'nexmark' table, and
 * a C program may call weir_nexmark_register_udfs() itself.
 *
 * count_char(s STRING, c STRING) BIGINT: the number of bytes of s equal to
 * the first byte of c, as the reference counts them. A NULL s counts 0 (the
 * reference's behaviour); a NULL or empty c, which makes the reference throw,
 * gives NULL.
 */
#include <string.h>

#include "weir/expr.h"
#include "weir/nexmark.h"

static int64_t count_byte(const char *p, uint32_t n, char c)
{
    /* A plain loop: the compiler vectorises the compare-and-add. */
    int64_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        k += p[i] == c;
    return k;
}

static int count_char_vec(void *ud, const weir_expr_vec *args, uint32_t n_args, uint32_t n_rows,
                          weir_expr_vec *out, weir_udf_ctx *cx)
{
    (void)ud;
    (void)n_args;
    (void)cx;
    const weir_expr_str *s = args[0].data, *c = args[1].data;
    const uint8_t *sn = args[0].nulls, *cn = args[1].nulls;
    int64_t *r = out->data;
    for (uint32_t i = 0; i < n_rows; i++) {
        if ((cn && cn[i]) || c[i].len == 0) {
            out->nulls[i] = 1;
            r[i] = 0;
            continue;
        }
        r[i] = sn && sn[i] ? 0 : count_byte(s[i].ptr, s[i].len, c[i].ptr[0]);
    }
    return 0;
}

int weir_nexmark_register_udfs(weir_error *err)
{
    static const weir_type args[2] = {{.id = WEIR_TYPE_STRING, .nullable = true},
                                      {.id = WEIR_TYPE_STRING, .nullable = true}};
    weir_udf u = {.name = "count_char",
                  .arg_types = args,
                  .n_args = 2,
                  .result_type = {.id = WEIR_TYPE_BIGINT, .nullable = true},
                  .vec_fn = count_char_vec,
                  .null_on_null = false,
                  .deterministic = true};
    weir_error e = {0};
    int rc = weir_expr_register_udf(&u, &e);
    /* Registered before (by us, or by the application with its own
     * count_char, which then wins): nothing to do. */
    if (rc == WEIR_EEXIST)
        return 0;
    if (rc && err)
        *err = e;
    return rc;
}
