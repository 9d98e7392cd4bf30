/*
 * agg/agg_listagg.c - LISTAGG(x [, sep]): the non-NULL values of x joined
 * by the separator (',' by default), in the order they arrived, as Flink's
 * LISTAGG. The accumulator keeps the joined string itself, so the result
 * costs nothing, and the length of every value in it, so a retraction can
 * find and cut out one occurrence: the oldest live one equal to the
 * retracted value (Flink's retracting LISTAGG removes the first equal
 * element of its list too). Merging appends the other side's values after
 * this one's.
 *
 * Invariant: s holds lens[0], sep, lens[1], sep, ... (n values, n - 1
 * separators); n == 0 means an empty string.
 */
#include "agg/agg_internal.h"

typedef struct la_acc {
    int64_t rows;   /* net rows, NULLs included */
    uint32_t n;     /* values in s */
    uint32_t ncap;  /* capacity of lens */
    uint32_t *lens; /* length of each value, in order */
    char *s;        /* the joined values */
    size_t len, cap;
} la_acc;

static const char *sep_of(const weir_agg *a, uint32_t *len)
{
    const char *s = a->sep ? a->sep : ",";
    *len = (uint32_t)strlen(s);
    return s;
}

static size_t la_size(const weir_agg *a)
{
    (void)a;
    return sizeof(la_acc);
}

static void la_init(const weir_agg *a, void *acc)
{
    (void)a;
    memset(acc, 0, sizeof(la_acc));
}

static void la_destroy(const weir_agg *a, void *acc)
{
    (void)a;
    la_acc *c = acc;
    weir_free(c->lens);
    weir_free(c->s);
    memset(c, 0, sizeof *c);
}

/* Room for one more value of vlen bytes, so the append cannot fail. */
static int reserve(const weir_agg *a, la_acc *c, size_t vlen)
{
    uint32_t sl;
    sep_of(a, &sl);
    if (c->n == UINT32_MAX)
        return WEIR_ENOMEM;
    if (c->n == c->ncap) {
        uint32_t nc = c->ncap ? c->ncap * 2 : 8;
        if (nc < c->ncap)
            return WEIR_ENOMEM;
        uint32_t *l = weir_realloc(c->lens, (size_t)nc * sizeof *l);
        if (!l)
            return WEIR_ENOMEM;
        c->lens = l;
        c->ncap = nc;
    }
    size_t need = c->len + sl + vlen;
    if (need > UINT32_MAX)
        return WEIR_ENOMEM; /* a result longer than a STRING can hold */
    if (need > c->cap) {
        size_t cap = c->cap ? c->cap : 32;
        while (cap < need)
            cap *= 2;
        char *p = weir_realloc(c->s, cap);
        if (!p)
            return WEIR_ENOMEM;
        c->s = p;
        c->cap = cap;
    }
    return 0;
}

static int append(const weir_agg *a, la_acc *c, const char *v, uint32_t vlen)
{
    int rc = reserve(a, c, vlen);
    if (rc)
        return rc;
    uint32_t sl;
    const char *sep = sep_of(a, &sl);
    if (c->n && sl) {
        memcpy(c->s + c->len, sep, sl);
        c->len += sl;
    }
    if (vlen)
        memcpy(c->s + c->len, v, vlen);
    c->len += vlen;
    c->lens[c->n++] = vlen;
    return 0;
}

static int la_add(const weir_agg *a, void *acc, const weir_batch *b, uint32_t row)
{
    la_acc *c = acc;
    if (aggv_valid(b, a->input_col, row)) {
        aggv v = {0};
        aggv_get(VK_STR, b, a->input_col, row, &v);
        int rc = append(a, c, v.s, v.len);
        if (rc)
            return rc;
    }
    c->rows++;
    return 0;
}

static int la_retract(const weir_agg *a, void *acc, const weir_batch *b, uint32_t row)
{
    la_acc *c = acc;
    if (aggv_valid(b, a->input_col, row)) {
        aggv v = {0};
        aggv_get(VK_STR, b, a->input_col, row, &v);
        uint32_t sl;
        sep_of(a, &sl);
        size_t off = 0;
        uint32_t i = 0;
        for (; i < c->n; off += c->lens[i] + sl, i++)
            if (c->lens[i] == v.len && (v.len == 0 || memcmp(c->s + off, v.s, v.len) == 0))
                break;
        if (i == c->n)
            return WEIR_ESTATE;
        /* Cut the value with the separator before it (after it for the first). */
        size_t from = off, to = off + v.len;
        if (i > 0)
            from -= sl;
        else if (c->n > 1)
            to += sl;
        /* s stays NULL while every value and the separator are empty */
        if (to < c->len)
            memmove(c->s + from, c->s + to, c->len - to);
        c->len -= to - from;
        memmove(c->lens + i, c->lens + i + 1, (size_t)(c->n - i - 1) * sizeof *c->lens);
        c->n--;
    } else if (c->rows == (int64_t)c->n) {
        return WEIR_ESTATE; /* no NULL row to take back */
    }
    if (--c->rows == 0)
        la_destroy(a, acc);
    return 0;
}

static int la_merge(const weir_agg *a, void *acc, const void *other)
{
    la_acc *c = acc;
    const la_acc *o = other;
    uint32_t sl;
    sep_of(a, &sl);
    /* The other's values, one by one: the separator may differ from none. */
    size_t off = 0;
    for (uint32_t i = 0; i < o->n; off += o->lens[i] + sl, i++) {
        int rc = append(a, c, o->s + off, o->lens[i]);
        if (rc)
            return rc;
    }
    c->rows += o->rows;
    return 0;
}

static int la_result(const weir_agg *a, const void *acc, weir_batch *out, uint32_t col, uint32_t row)
{
    const la_acc *c = acc;
    int rc = weir__agg_check_out(a, out, col, row);
    if (rc)
        return rc;
    if (c->n == 0)
        return weir__agg_put_null(out, col, row);
    return weir__agg_put_str(out, col, row, c->s, (uint32_t)c->len);
}

static int la_serialize(const weir_agg *a, const void *acc, weir_buf *out)
{
    const la_acc *c = acc;
    uint32_t sl;
    sep_of(a, &sl);
    int rc = weir__agg_put_header(out, FC_LISTAGG, VK_STR, c->rows);
    if (!rc)
        rc = weir_buf_put_varint(out, c->n);
    size_t off = 0;
    for (uint32_t i = 0; !rc && i < c->n; off += c->lens[i] + sl, i++)
        rc = weir_buf_put_bytes(out, c->s + off, c->lens[i]);
    return rc;
}

static int la_deserialize(const weir_agg *a, void *acc, weir_cursor *in)
{
    la_acc *c = acc;
    la_init(a, acc);
    int64_t rows;
    uint64_t n;
    if (weir__agg_get_header(in, FC_LISTAGG, VK_STR, &rows) || weir_cursor_get_varint(in, &n) ||
        n > (uint64_t)rows)
        return WEIR_ECORRUPT;
    for (uint64_t i = 0; i < n; i++) {
        aggv v = {0};
        int rc = weir__agg_get_value(in, VK_STR, &v);
        if (!rc)
            rc = append(a, c, v.s, v.len);
        if (rc) {
            la_destroy(a, acc);
            return rc == WEIR_ENOMEM ? rc : WEIR_ECORRUPT;
        }
    }
    c->rows = rows;
    return 0;
}

const weir_agg_class weir__agg_listagg = {
    .name = "LISTAGG",
    .acc_size = la_size,
    .init = la_init,
    .add = la_add,
    .retract = la_retract,
    .merge = la_merge,
    .result = la_result,
    .serialize = la_serialize,
    .deserialize = la_deserialize,
    .destroy = la_destroy,
    .is_empty = weir__agg_rows_empty,
};
