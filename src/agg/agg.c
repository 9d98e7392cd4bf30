/*
 * agg/agg.c - binding aggregate functions to columns, the helpers every
 * function shares (value order and hashing, result writing, serialisation
 * framing) and user-defined aggregates.
 *
 * Binding picks a class specialised for the input type where the add path
 * is hot (COUNT, SUM), so the per-row work is one indirect call and a few
 * instructions.
 */
#include <math.h>
#include <stdio.h>
#include <strings.h>
#include <xxhash.h>

#include "agg/agg_internal.h"

uint64_t weir__agg_canon_f64(double d)
{
    uint64_t u;
    if (d != d)
        return 0x7ff8000000000000ULL;
    if (d == 0)
        d = 0.0; /* folds -0.0 */
    memcpy(&u, &d, 8);
    return u;
}

int weir__agg_cmp(vkind k, const aggv *x, const aggv *y)
{
    switch (k) {
    case VK_I64: {
        int64_t a = (int64_t)x->bits, b = (int64_t)y->bits;
        return (a > b) - (a < b);
    }
    case VK_F64: {
        double a = aggv_f64(x), b = aggv_f64(y);
        bool na = a != a, nb = b != b;
        if (na || nb)
            return (int)na - (int)nb;
        return (a > b) - (a < b);
    }
    case VK_STR:
        return weir__agg_cmp_str(x->s, x->len, y->s, y->len);
    case VK_DEC: {
        __int128 a, b;
        memcpy(&a, x->s, 16);
        memcpy(&b, y->s, 16);
        return (a > b) - (a < b);
    }
    }
    return 0;
}

bool weir__agg_eq(vkind k, const aggv *x, const aggv *y)
{
    if (!vk_bytes(k))
        return x->bits == y->bits;
    return x->len == y->len && (x->len == 0 || memcmp(x->s, y->s, x->len) == 0);
}

uint64_t weir__agg_hash(vkind k, const aggv *v)
{
    if (vk_bytes(k))
        return XXH3_64bits(v->s, v->len);
    uint8_t le[8];
    for (int i = 0; i < 8; i++)
        le[i] = (uint8_t)(v->bits >> (8 * i));
    return XXH3_64bits(le, 8);
}

int weir__agg_put_value(weir_buf *out, vkind k, const aggv *v)
{
    if (vk_bytes(k))
        return weir_buf_put_bytes(out, v->s, v->len);
    return weir_buf_put_u64(out, v->bits);
}

int weir__agg_get_value(weir_cursor *in, vkind k, aggv *v)
{
    if (vk_bytes(k)) {
        const void *p;
        size_t n;
        int rc = weir_cursor_get_bytes(in, &p, &n);
        if (rc)
            return WEIR_ECORRUPT;
        if (n > UINT32_MAX || (k == VK_DEC && n != 16))
            return WEIR_ECORRUPT;
        v->s = p;
        v->len = (uint32_t)n;
        v->bits = 0;
        return 0;
    }
    v->s = NULL;
    v->len = 0;
    if (weir_cursor_get_u64(in, &v->bits))
        return WEIR_ECORRUPT;
    /* Only canonical doubles are ever written. */
    if (k == VK_F64 && weir__agg_canon_f64(aggv_f64(v)) != v->bits)
        return WEIR_ECORRUPT;
    return 0;
}

int weir__agg_put_null(weir_batch *out, uint32_t col, uint32_t row)
{
    weir_batch_set_null(out, col, row);
    return 0;
}

int weir__agg_put_i64(weir_batch *out, uint32_t col, uint32_t row, int64_t v)
{
    weir_column *c = &out->cols[col];
    switch (c->type.id) {
    case WEIR_TYPE_BOOLEAN:
        ((uint8_t *)c->data)[row] = v ? 1 : 0;
        break;
    case WEIR_TYPE_DATE:
    case WEIR_TYPE_TIME:
    case WEIR_TYPE_INT:
        ((int32_t *)c->data)[row] = (int32_t)v;
        break;
    case WEIR_TYPE_DOUBLE:
        ((double *)c->data)[row] = (double)v;
        break;
    case WEIR_TYPE_STRING:
    case WEIR_TYPE_BYTES:
    case WEIR_TYPE_ARRAY:
    case WEIR_TYPE_MAP:
    case WEIR_TYPE_MULTISET:
    case WEIR_TYPE_ROW:
    case WEIR_TYPE_NULL:
        return WEIR_EINVAL;
    default:
        ((int64_t *)c->data)[row] = v;
        break;
    }
    weir_batch_set_valid(out, col, row);
    return 0;
}

int weir__agg_put_f64(weir_batch *out, uint32_t col, uint32_t row, double v)
{
    weir_column *c = &out->cols[col];
    if (c->type.id != WEIR_TYPE_DOUBLE)
        return WEIR_EINVAL;
    ((double *)c->data)[row] = v;
    weir_batch_set_valid(out, col, row);
    return 0;
}

int weir__agg_put_str(weir_batch *out, uint32_t col, uint32_t row,
                      const char *s, uint32_t len)
{
    if (!weir_type_is_varlen(out->cols[col].type.id))
        return WEIR_EINVAL;
    int rc = weir_batch_set_str(out, col, row, s, len);
    if (rc)
        return rc;
    weir_batch_set_valid(out, col, row);
    return 0;
}

int weir__agg_put_value_out(weir_batch *out, uint32_t col, uint32_t row,
                            vkind k, const aggv *v)
{
    switch (k) {
    case VK_I64:
        return weir__agg_put_i64(out, col, row, (int64_t)v->bits);
    case VK_F64:
        return weir__agg_put_f64(out, col, row, aggv_f64(v));
    case VK_STR:
        return weir__agg_put_str(out, col, row, v->s, v->len);
    case VK_DEC: {
        weir_column *c = &out->cols[col];
        if (!weir_type_is_wide(c->type) || v->len != 16)
            return WEIR_EINVAL;
        memcpy((char *)c->data + (size_t)row * 16, v->s, 16);
        weir_batch_set_valid(out, col, row);
        return 0;
    }
    }
    return WEIR_EINVAL;
}

int weir__agg_check_out(const weir_agg *a, const weir_batch *out, uint32_t col,
                        uint32_t row)
{
    if (!out || col >= out->schema->n_fields || row >= out->capacity)
        return WEIR_EINVAL;
    weir_type_id want = a->result_type.id, have = out->cols[col].type.id;
    /* STRING and BYTES share a representation, as do the two timestamps. */
    if (want == have ||
        (weir_type_is_string(want) && weir_type_is_string(have)) ||
        (weir_type_is_time(want) && weir_type_is_time(have)))
        return 0;
    return WEIR_EINVAL;
}

int weir__ostr_set(ostr *o, const char *s, uint32_t len)
{
    if (!o->cap && len <= sizeof o->p) {
        if (len)
            memmove((char *)(void *)&o->p, s, len); /* s may be these bytes */
        o->len = len;
        return 0;
    }
    if (len > o->cap) {
        /* s is neither the inline bytes nor in the buffer: both are shorter than len */
        uint32_t cap = o->cap ? o->cap : 16;
        while (cap < len)
            cap = cap > UINT32_MAX / 2 ? len : cap * 2;
        char *p = o->cap ? weir_realloc(o->p, cap) : weir_malloc(cap);
        if (!p)
            return WEIR_ENOMEM;
        o->p = p;
        o->cap = cap;
    }
    if (len)
        memmove(o->p, s, len);
    o->len = len;
    return 0;
}

void weir__ostr_free(ostr *o)
{
    if (o->cap)
        weir_free(o->p);
    o->p = NULL;
    o->len = o->cap = 0;
}

int weir__agg_put_header(weir_buf *out, uint8_t fc, int kind, int64_t rows)
{
    uint8_t h[3] = {WEIR_AGG_FORMAT_V1, fc, (uint8_t)(kind + 1)};
    int rc = weir_buf_put(out, h, 3);
    return rc ? rc : weir_buf_put_varint(out, (uint64_t)rows);
}

int weir__agg_get_header(weir_cursor *in, uint8_t fc, int kind, int64_t *rows)
{
    uint8_t h[3];
    uint64_t r;
    if (weir_cursor_get(in, h, 3) || h[0] != WEIR_AGG_FORMAT_V1 || h[1] != fc ||
        h[2] != (uint8_t)(kind + 1))
        return WEIR_ECORRUPT;
    /* No accumulator sees 2^62 rows; the bound keeps counters far from
     * overflow. */
    if (weir_cursor_get_varint(in, &r) || r > ((uint64_t)1 << 62))
        return WEIR_ECORRUPT;
    *rows = (int64_t)r;
    return 0;
}

bool weir__agg_rows_empty(const weir_agg *a, const void *acc)
{
    (void)a;
    return *(const int64_t *)acc == 0;
}

/* ---- binding ---- */

typedef enum accept {
    ACC_ANY,     /* every type */
    ACC_NUMERIC, /* INT, BIGINT, DOUBLE, DECIMAL */
    ACC_ORDERED, /* every type but NULL */
    ACC_STRING,  /* STRING, BYTES */
} accept;

typedef struct builtin {
    const char *name;
    accept takes;
    bool star_ok; /* accepts col -1 */
} builtin;

/* The built-ins: name, accepted input, whether col -1 is allowed. */
#define WEIR_AGG_BUILTINS(X)                                                   \
    X("COUNT", ACC_ANY, true)                                                  \
    X("SUM", ACC_NUMERIC, false)                                               \
    X("SUM0", ACC_NUMERIC, false)                                              \
    X("AVG", ACC_NUMERIC, false)                                               \
    X("MIN", ACC_ORDERED, false)                                               \
    X("MAX", ACC_ORDERED, false)                                               \
    X("FIRST_VALUE", ACC_ORDERED, false)                                       \
    X("LAST_VALUE", ACC_ORDERED, false)                                        \
    X("MIN_RETRACT", ACC_ORDERED, false)                                       \
    X("MAX_RETRACT", ACC_ORDERED, false)                                       \
    X("FIRST_VALUE_RETRACT", ACC_ORDERED, false)                               \
    X("LAST_VALUE_RETRACT", ACC_ORDERED, false)                                \
    X("COUNT_DISTINCT", ACC_ORDERED, false)                                    \
    X("APPROX_COUNT_DISTINCT", ACC_ORDERED, false)                             \
    X("APPROX_PERCENTILE", ACC_NUMERIC, false)                                 \
    X("PERCENTILE", ACC_NUMERIC, false)                                        \
    X("PERCENTILES", ACC_NUMERIC, false)                                       \
    X("PERCENTILE_FREQ", ACC_ANY, false)                                       \
    X("PERCENTILES_FREQ", ACC_ANY, false)                                      \
    X("VAR_POP", ACC_NUMERIC, false)                                           \
    X("VAR_SAMP", ACC_NUMERIC, false)                                          \
    X("VARIANCE", ACC_NUMERIC, false)                                          \
    X("STDDEV_POP", ACC_NUMERIC, false)                                        \
    X("STDDEV_SAMP", ACC_NUMERIC, false)                                       \
    X("STDDEV", ACC_NUMERIC, false)                                            \
    X("LISTAGG", ACC_STRING, false)                                            \
    X("COLLECT", ACC_ORDERED, false)                                           \
    X("ARRAY_AGG", ACC_ORDERED, false)                                         \
    X("LAG", ACC_ORDERED, false)                                               \
    X("LAG_PRESENT", ACC_ANY, false)                                           \
    X("SINGLE_VALUE", ACC_ANY, false)

#define AS_ENTRY(n, t, star) {n, t, star},
#define AS_NAME(n, t, star) n,
static const builtin builtins[] = {WEIR_AGG_BUILTINS(AS_ENTRY)};
static const char *const builtin_names[] = {WEIR_AGG_BUILTINS(AS_NAME)};
#define N_BUILTINS (sizeof builtins / sizeof builtins[0])

const char *const *weir_agg_builtin_names(size_t *n)
{
    if (n)
        *n = N_BUILTINS;
    return builtin_names;
}

static bool type_accepted(accept takes, weir_type_id id)
{
    switch (takes) {
    case ACC_ANY:
        return true;
    case ACC_NUMERIC:
        return weir_type_is_numeric(id);
    case ACC_ORDERED:
        return id != WEIR_TYPE_NULL;
    case ACC_STRING:
        return weir_type_is_string(id);
    }
    return false;
}

static const char *accepted_list(accept takes)
{
    switch (takes) {
    case ACC_ANY:
        return "any type";
    case ACC_NUMERIC:
        return "INT, BIGINT, DOUBLE, DECIMAL";
    case ACC_ORDERED:
        return "BOOLEAN, INT, BIGINT, DOUBLE, DECIMAL, STRING, BYTES, "
               "TIMESTAMP, TIMESTAMP_LTZ";
    case ACC_STRING:
        return "STRING (CAST other types to STRING)";
    }
    return "";
}

static weir_type nullable(weir_type t)
{
    t.nullable = true;
    return t;
}

/* SUM/AVG classes by input type: INT, BIGINT, DOUBLE, DECIMAL. */
static const weir_agg_class *pick_numeric(weir_type_id id,
                                          const weir_agg_class *i32,
                                          const weir_agg_class *i64,
                                          const weir_agg_class *f64,
                                          const weir_agg_class *dec)
{
    switch (id) {
    case WEIR_TYPE_INT:
        return i32;
    case WEIR_TYPE_BIGINT:
        return i64;
    case WEIR_TYPE_DOUBLE:
        return f64;
    default:
        return dec;
    }
}

/* Does the built-in n take a DECIMAL of more than 18 digits (VK_DEC)? The
 * variance family, the percentiles and the collections read DECIMALs as
 * 8-byte values. */
static bool takes_wide(const char *n)
{
    static const char *const yes[] = {
        "COUNT", "SUM", "SUM0", "AVG", "MIN", "MAX", "FIRST_VALUE", "LAST_VALUE",
        "MIN_RETRACT", "MAX_RETRACT", "FIRST_VALUE_RETRACT", "LAST_VALUE_RETRACT",
        "COUNT_DISTINCT", "APPROX_COUNT_DISTINCT", "LAG", "LAG_PRESENT", "SINGLE_VALUE",
    };
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
        if (!strcmp(n, yes[i]))
            return true;
    return false;
}

/*
 * F_DISTINCT: F (the first flen bytes of name) over the distinct values.
 * F must retract: a value leaves F when its last occurrence goes.
 */
static int bind_distinct(const char *name, size_t flen, const weir_schema *s,
                         int32_t col, double param, weir_agg *out,
                         weir_error *err)
{
    char fn[40];
    snprintf(fn, sizeof fn, "%.*s", (int)flen, name);
    int rc = weir_agg_bind(fn, s, col, param, out, err);
    if (rc)
        return rc;
    if (col < 0 || !out->cls->retract || out->inner)
        return weir_error_set(err, WEIR_EUNSUPPORTED,
                              "%s(DISTINCT ...) is not supported", fn);
    if (out->cls == &weir__agg_array_agg) {
        /* Keeps first-arrival order, which the wrapper's value set does not. */
        out->cls = &weir__agg_array_agg_distinct;
        return 0;
    }
    out->inner = out->cls;
    out->cls = &weir__agg_distinct_of;
    return 0;
}

int weir_agg_bind(const char *name, const weir_schema *s, int32_t col,
                  double param, weir_agg *out, weir_error *err)
{
    if (!name || !s || !out)
        return weir_error_set(err, WEIR_EINVAL, "weir_agg_bind: NULL argument");
    size_t nl = strlen(name);
    if (nl > 9 && nl < 40 && !strcasecmp(name + nl - 9, "_DISTINCT") &&
        strcasecmp(name, "COUNT_DISTINCT") &&
        strcasecmp(name, "APPROX_COUNT_DISTINCT"))
        return bind_distinct(name, nl - 9, s, col, param, out, err);
    const builtin *f = NULL;
    for (size_t i = 0; i < N_BUILTINS; i++)
        if (strcasecmp(name, builtins[i].name) == 0)
            f = &builtins[i];
    if (!f)
        return weir_error_set(err, WEIR_ENOTFOUND,
                              "unknown aggregate function '%s'", name);
    if (col == -1 && !f->star_ok)
        return weir_error_set(err, WEIR_EINVAL,
                              "%s needs an input column; only COUNT takes *",
                              f->name);
    if (col < -1 || (col >= 0 && (uint32_t)col >= s->n_fields))
        return weir_error_set(
            err, WEIR_EINVAL,
            "%s: column %d out of range (schema has %u fields)", f->name,
            (int)col, s->n_fields);
    memset(out, 0, sizeof *out);
    out->input_col = col;
    out->param = param;
    weir_type in =
        col >= 0 ? s->fields[col].type : weir_type_make(WEIR_TYPE_NULL, true);
    out->input_type = in;
    if (weir_type_is_wide(in) && !takes_wide(f->name)) {
        char tb[64];
        weir_type_format(in, tb, sizeof tb);
        return weir_error_set(err, WEIR_EUNSUPPORTED,
                              "%s does not accept %s (column '%s'): a DECIMAL of more than 18 digits "
                              "is aggregated by COUNT, SUM, AVG, MIN, MAX, FIRST_VALUE, LAST_VALUE "
                              "and LAG only",
                              f->name, tb, s->fields[col].name);
    }
    if (col >= 0 && !type_accepted(f->takes, in.id)) {
        char tb[64];
        weir_type_format(in, tb, sizeof tb);
        return weir_error_set(
            err, WEIR_EINVAL,
            "%s does not accept %s (column '%s'); it takes %s", f->name, tb,
            s->fields[col].name, accepted_list(f->takes));
    }
    /* Flink types the operand of SUM, AVG, the variance family and the
     * percentiles as NUMERIC, which an INTERVAL is not. */
    if (col >= 0 && weir_type_interval(in) && f->takes == ACC_NUMERIC) {
        char tb[64], cb[160] = "";
        weir_type_format(in, tb, sizeof tb);
        if (s->fields[col].name[0] != '$') /* not a planner's name for an argument expression */
            snprintf(cb, sizeof cb, " (column '%s')", s->fields[col].name);
        return weir_error_set(err, WEIR_EINVAL,
                              "%s does not accept %s%s: %s takes a number, not an INTERVAL "
                              "(MIN, MAX, COUNT, FIRST_VALUE and LAST_VALUE do)",
                              f->name, tb, cb, f->name);
    }
    const char *n = f->name;
    weir_type_id id = in.id;
    if (!strcmp(n, "COUNT")) {
        out->cls = col < 0 ? &weir__agg_count_star : &weir__agg_count;
        out->result_type = weir_type_make(WEIR_TYPE_BIGINT, false);
    } else if (!strcmp(n, "SUM") || !strcmp(n, "SUM0")) {
        bool zero = n[3] == '0';
        out->cls =
            zero ? pick_numeric(id, &weir__agg_sum0_int, &weir__agg_sum0_bigint,
                                &weir__agg_sum0_double, &weir__agg_sum0_decimal)
                 : pick_numeric(id, &weir__agg_sum_int, &weir__agg_sum_bigint,
                                &weir__agg_sum_double, &weir__agg_sum_decimal);
        if (id == WEIR_TYPE_DECIMAL) /* Flink: DECIMAL(38, s) */
            out->result_type = weir_type_decimal(38, in.scale, !zero);
        else
            out->result_type = weir_type_make(
                id == WEIR_TYPE_DOUBLE ? WEIR_TYPE_DOUBLE : WEIR_TYPE_BIGINT,
                !zero);
    } else if (!strcmp(n, "AVG")) {
        out->cls = pick_numeric(id, &weir__agg_avg_int, &weir__agg_avg_bigint,
                                &weir__agg_avg_double, &weir__agg_avg_decimal);
        if (id == WEIR_TYPE_DECIMAL) {
            /* Flink: DECIMAL(38, max(6, s)) (a division by DECIMAL(20, 0)). */
            int rs = in.scale > 6 ? in.scale : 6;
            out->result_type = weir_type_decimal(38, (uint8_t)rs, true);
        } else {
            out->result_type = nullable(in);
        }
    } else if (!strcmp(n, "MIN") || !strcmp(n, "MAX") ||
               !strcmp(n, "FIRST_VALUE") || !strcmp(n, "LAST_VALUE") ||
               !strcmp(n, "MIN_RETRACT") || !strcmp(n, "MAX_RETRACT") ||
               !strcmp(n, "FIRST_VALUE_RETRACT") ||
               !strcmp(n, "LAST_VALUE_RETRACT")) {
        static const struct {
            const char *n;
            const weir_agg_class *c;
        } m[] = {
            {"MIN", &weir__agg_min},
            {"MAX", &weir__agg_max},
            {"FIRST_VALUE", &weir__agg_first},
            {"LAST_VALUE", &weir__agg_last},
            {"MIN_RETRACT", &weir__agg_min_retract},
            {"MAX_RETRACT", &weir__agg_max_retract},
            {"FIRST_VALUE_RETRACT", &weir__agg_first_retract},
            {"LAST_VALUE_RETRACT", &weir__agg_last_retract},
        };
        for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
            if (!strcmp(n, m[i].n))
                out->cls = m[i].c;
        out->result_type = nullable(in);
    } else if (!strcmp(n, "COUNT_DISTINCT")) {
        out->cls = &weir__agg_count_distinct;
        out->result_type = weir_type_make(WEIR_TYPE_BIGINT, false);
    } else if (!strcmp(n, "APPROX_COUNT_DISTINCT")) {
        if (param == 0)
            out->param = WEIR_HLL_P_DEFAULT;
        else if (!(param >= WEIR_HLL_P_MIN && param <= WEIR_HLL_P_MAX) ||
                 param != floor(param))
            return weir_error_set(err, WEIR_EINVAL,
                                  "APPROX_COUNT_DISTINCT: precision %g out of "
                                  "range (an integer in %d..%d, 0 for "
                                  "the default %d)",
                                  param, WEIR_HLL_P_MIN, WEIR_HLL_P_MAX,
                                  WEIR_HLL_P_DEFAULT);
        out->cls = &weir__agg_hll;
        out->result_type = weir_type_make(WEIR_TYPE_BIGINT, false);
    } else if (!strcmp(n, "APPROX_PERCENTILE")) {
        if (!(param >= 0 && param <= 1))
            return weir_error_set(
                err, WEIR_EINVAL,
                "APPROX_PERCENTILE: percentile %g is not in [0, 1]", param);
        out->cls = &weir__agg_percentile;
        out->result_type = weir_type_make(WEIR_TYPE_DOUBLE, true);
    } else if (!strcmp(n, "PERCENTILE")) {
        if (!(param >= 0 && param <= 1))
            return weir_error_set(err, WEIR_EINVAL, "PERCENTILE: percentage %g is not in [0, 1]", param);
        if (weir_type_is_wide(in))
            return weir_error_set(err, WEIR_EUNSUPPORTED, "PERCENTILE of a DECIMAL of more than 18 digits is not "
                                                          "supported");
        out->cls = &weir__agg_percentile_exact;
        out->result_type = weir_type_make(WEIR_TYPE_DOUBLE, true);
    } else if (!strcmp(n, "PERCENTILES") || !strcmp(n, "PERCENTILE_FREQ") || !strcmp(n, "PERCENTILES_FREQ")) {
        bool many = n[10] == 'S', freq = strstr(n, "_FREQ") != NULL;
        if (!many && !(param >= 0 && param <= 1))
            return weir_error_set(err, WEIR_EINVAL, "PERCENTILE: percentage %g is not in [0, 1]", param);
        if (freq) {
            /* ROW(value, frequency): a number up to 18 digits, an INT or BIGINT */
            const weir_nested_type *nt = weir_type_nested(in);
            if (!nt || nt->kind != WEIR_TYPE_ROW || nt->n != 2 || !weir_type_is_numeric(nt->elems[0].id) ||
                weir_type_is_wide(nt->elems[0]) ||
                (nt->elems[1].id != WEIR_TYPE_INT && nt->elems[1].id != WEIR_TYPE_BIGINT))
                return weir_error_set(err, WEIR_EINVAL,
                                      "PERCENTILE(value, percentage, frequency) needs a numeric value (a DECIMAL "
                                      "of at most 18 digits) and an INT or BIGINT frequency");
            out->cls = many ? &weir__agg_percentiles_freq : &weir__agg_percentile_freq;
        } else {
            if (weir_type_is_wide(in))
                return weir_error_set(err, WEIR_EUNSUPPORTED, "PERCENTILE of a DECIMAL of more than 18 digits is not "
                                                              "supported");
            out->cls = &weir__agg_percentiles;
        }
        if (!many) {
            out->result_type = weir_type_make(WEIR_TYPE_DOUBLE, true);
        } else {
            int rc = weir_type_array(weir_type_make(WEIR_TYPE_DOUBLE, true), true, &out->result_type);
            if (rc)
                return weir_error_set(err, rc, "PERCENTILE: too many distinct nested types");
        }
    } else if (!strcmp(n, "LAG") || !strcmp(n, "LAG_PRESENT")) {
        if (!(param >= 0 && param <= WEIR_AGG_LAG_MAX) || param != floor(param))
            return weir_error_set(err, WEIR_EINVAL,
                                  "LAG: offset %g out of range (an integer in "
                                  "0..%d)",
                                  param, WEIR_AGG_LAG_MAX);
        bool lag = n[3] == 0;
        out->cls = lag ? &weir__agg_lag : &weir__agg_lag_present;
        out->result_type =
            lag ? nullable(in) : weir_type_make(WEIR_TYPE_BOOLEAN, false);
    } else if (!strcmp(n, "LISTAGG")) {
        out->cls = &weir__agg_listagg;
        out->result_type = weir_type_make(WEIR_TYPE_STRING, true);
    } else if (!strcmp(n, "SINGLE_VALUE")) {
        out->cls = &weir__agg_single_value;
        out->result_type = nullable(in);
    } else if (!strcmp(n, "ARRAY_AGG")) {
        /* Flink: ARRAY<type of x>, NULL without values; param 1: IGNORE NULLS */
        out->cls = &weir__agg_array_agg;
        int rc = weir_type_array(in, true, &out->result_type);
        if (rc)
            return weir_error_set(err, rc, "ARRAY_AGG: too many distinct nested types");
    } else if (!strcmp(n, "COLLECT")) {
        /* Flink: MULTISET<type of x>; never NULL ({} without values) */
        out->cls = &weir__agg_collect;
        int rc = weir_type_multiset(in, true, &out->result_type);
        if (rc)
            return weir_error_set(err, rc, "COLLECT: too many distinct nested types");
    } else {
        if (!strcmp(n, "VAR_POP"))
            out->cls = &weir__agg_var_pop;
        else if (!strcmp(n, "VAR_SAMP") || !strcmp(n, "VARIANCE"))
            out->cls = &weir__agg_var_samp;
        else if (!strcmp(n, "STDDEV_POP"))
            out->cls = &weir__agg_stddev_pop;
        else
            out->cls = &weir__agg_stddev_samp;
        /* DOUBLE for every input. Flink returns the input type, computed
         * with integer intermediates that truncate at each step; an
         * approximate type is what the SQL standard asks for. */
        out->result_type = weir_type_make(WEIR_TYPE_DOUBLE, true);
    }
    return 0;
}

/* ---- conveniences ---- */

size_t weir_agg_acc_size(const weir_agg *a)
{
    return a->cls->acc_size(a);
}
void weir_agg_init(const weir_agg *a, void *acc)
{
    a->cls->init(a, acc);
}

void weir_agg_destroy(const weir_agg *a, void *acc)
{
    if (acc && a->cls->destroy)
        a->cls->destroy(a, acc);
}

bool weir_agg_is_empty(const weir_agg *a, const void *acc)
{
    return a->cls->is_empty ? a->cls->is_empty(a, acc) : false;
}

bool weir_agg_can_retract(const weir_agg *a)
{
    return a->cls->retract != NULL;
}

int weir_agg_add(const weir_agg *a, void *acc, const weir_batch *b,
                 uint32_t row)
{
    return a->cls->add(a, acc, b, row);
}

int weir_agg_retract(const weir_agg *a, void *acc, const weir_batch *b,
                     uint32_t row)
{
    if (!a->cls->retract)
        return WEIR_EUNSUPPORTED;
    return a->cls->retract(a, acc, b, row);
}

int weir_agg_add_rows(const weir_agg *a, void *const *accs, const weir_batch *b,
                      const uint32_t *rows, uint32_t n)
{
    if (a->cls->add_rows)
        return a->cls->add_rows(a, accs, b, rows, n);
    for (uint32_t i = 0; i < n; i++) {
        int rc = a->cls->add(a, accs[i], b, rows[i]);
        if (rc)
            return rc;
    }
    return 0;
}

int weir_agg_copy(const weir_agg *a, void *dst, const void *src)
{
    a->cls->init(a, dst);
    int rc = a->cls->merge(a, dst, src);
    if (rc) {
        weir_agg_destroy(a, dst);
        a->cls->init(a, dst);
    }
    return rc;
}

int weir_agg_apply_batch(const weir_agg *a, void *acc, const weir_batch *b)
{
    for (uint32_t r = 0; r < b->n_rows; r++) {
        int rc;
        if (b->kind[r] == WEIR_ROW_INSERT ||
            b->kind[r] == WEIR_ROW_UPDATE_AFTER)
            rc = a->cls->add(a, acc, b, r);
        else
            rc = weir_agg_retract(a, acc, b, r);
        if (rc)
            return rc;
    }
    return 0;
}

/* ---- user-defined aggregates ---- */

/* Block: int64 rows, then the user's acc_size bytes (padded to 8). */
#define UD_OFF 8

static size_t ud_size(const weir_agg *a)
{
    const weir_udaf *u = a->udf;
    return UD_OFF + ((u->acc_size + 7) & ~(size_t)7);
}

static void ud_init(const weir_agg *a, void *acc)
{
    const weir_udaf *u = a->udf;
    memset(acc, 0, ud_size(a));
    u->init(u->ud, (char *)acc + UD_OFF);
}

static int ud_add(const weir_agg *a, void *acc, const weir_batch *b,
                  uint32_t row)
{
    const weir_udaf *u = a->udf;
    int rc = u->add(u->ud, (char *)acc + UD_OFF, b, a->input_col, row);
    if (rc)
        return rc;
    (*(int64_t *)acc)++;
    return 0;
}

static int ud_retract(const weir_agg *a, void *acc, const weir_batch *b,
                      uint32_t row)
{
    const weir_udaf *u = a->udf;
    int64_t *rows = acc;
    if (*rows == 0)
        return WEIR_ESTATE;
    int rc = u->retract(u->ud, (char *)acc + UD_OFF, b, a->input_col, row);
    if (rc)
        return rc;
    if (--*rows == 0)
        ud_init(a, acc);
    return 0;
}

static int ud_merge(const weir_agg *a, void *acc, const void *other)
{
    const weir_udaf *u = a->udf;
    int rc =
        u->merge(u->ud, (char *)acc + UD_OFF, (const char *)other + UD_OFF);
    if (rc)
        return rc;
    *(int64_t *)acc += *(const int64_t *)other;
    return 0;
}

static int ud_result(const weir_agg *a, const void *acc, weir_batch *out,
                     uint32_t col, uint32_t row)
{
    const weir_udaf *u = a->udf;
    int rc = weir__agg_check_out(a, out, col, row);
    return rc ? rc
              : u->result(u->ud, (const char *)acc + UD_OFF, out, col, row);
}

static int ud_serialize(const weir_agg *a, const void *acc, weir_buf *out)
{
    const weir_udaf *u = a->udf;
    int rc = weir__agg_put_header(out, FC_UDAF, -1, *(const int64_t *)acc);
    if (!rc)
        rc = weir_buf_put_varint(out, u->acc_size);
    if (!rc)
        rc = weir_buf_put(out, (const char *)acc + UD_OFF, u->acc_size);
    return rc;
}

static int ud_deserialize(const weir_agg *a, void *acc, weir_cursor *in)
{
    const weir_udaf *u = a->udf;
    int64_t rows;
    uint64_t size;
    ud_init(a, acc);
    if (weir__agg_get_header(in, FC_UDAF, -1, &rows) ||
        weir_cursor_get_varint(in, &size) || size != u->acc_size ||
        weir_cursor_left(in) < size)
        return WEIR_ECORRUPT;
    weir_cursor_get(in, (char *)acc + UD_OFF, size);
    *(int64_t *)acc = rows;
    return 0;
}

const weir_agg_class weir__agg_udaf = {
    .name = "UDAF",
    .acc_size = ud_size,
    .init = ud_init,
    .add = ud_add,
    .retract = ud_retract,
    .merge = ud_merge,
    .result = ud_result,
    .serialize = ud_serialize,
    .deserialize = ud_deserialize,
    .is_empty = weir__agg_rows_empty,
};

/* For a UDAF without retract: the class says so by its NULL retract. */
static const weir_agg_class udaf_noretract = {
    .name = "UDAF",
    .acc_size = ud_size,
    .init = ud_init,
    .add = ud_add,
    .merge = ud_merge,
    .result = ud_result,
    .serialize = ud_serialize,
    .deserialize = ud_deserialize,
    .is_empty = weir__agg_rows_empty,
};

int weir_agg_bind_udaf(const weir_udaf *u, const weir_schema *s, int32_t col,
                       weir_agg *out)
{
    if (!u || !s || !out || !u->init || !u->add || !u->merge || !u->result ||
        u->acc_size == 0)
        return WEIR_EINVAL;
    if (col < -1 || (col >= 0 && (uint32_t)col >= s->n_fields))
        return WEIR_EINVAL;
    memset(out, 0, sizeof *out);
    /* Two classes serve every UDAF: they find the callbacks through udf. */
    out->cls = u->retract ? &weir__agg_udaf : &udaf_noretract;
    out->input_col = col;
    out->input_type =
        col >= 0 ? s->fields[col].type : weir_type_make(WEIR_TYPE_NULL, true);
    out->result_type = u->result_type;
    out->udf = (void *)u;
    return 0;
}
