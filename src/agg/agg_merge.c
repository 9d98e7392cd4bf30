/*
 * agg/agg_merge.c - the global phase of a two-phase aggregation: a
 * function whose input values are another function's partial
 * accumulators (made by the local phase, ops/local_agg.c) and whose add is
 * that function's merge. Everything else - the accumulator
 * block, result, serialised form, emptiness - is the inner function's, so
 * an operator running the global phase keeps the same state as one that
 * adds the rows itself.
 *
 * The partial accumulators arrive in one of two forms (merge.h): COUNT,
 * SUM, AVG and MIN/MAX of 64-bit values as BIGINT columns holding the
 * accumulator's words, which add merges from the batch directly (word by
 * word where the merge is a sum of words, else through the function's
 * merge), anything else serialised into one BYTES column. The column's
 * type tells which, so a batch of either form is merged right.
 *
 * The inner class rides in the bound aggregate's udf pointer (a static
 * class, never freed); add, merge and the serialised form see the inner
 * function through a copy of the bound aggregate with that class put back.
 */
#include <string.h>

#include "agg/agg_internal.h"
#include "agg/merge.h"

static const weir_agg_class merge_class;

static weir_agg inner_of(const weir_agg *m)
{
    weir_agg a = *m;
    a.cls = m->udf;
    a.udf = NULL;
    return a;
}

bool weir__agg_is_count_star(const weir_agg *a) { return a->cls == &weir__agg_count_star; }

bool weir__agg_two_phase_ok(const weir_agg *a)
{
    if (!a->cls || !a->cls->name || !a->cls->merge || !a->cls->serialize || !a->cls->deserialize || a->inner ||
        a->udf)
        return false;
    const char *n = a->cls->name;
    if (!strcmp(n, "COUNT") || !strcmp(n, "MIN") || !strcmp(n, "MAX"))
        return true;
    if (strcmp(n, "SUM") && strcmp(n, "SUM0") && strcmp(n, "AVG"))
        return false;
    weir_type_id t = a->input_type.id;
    return t == WEIR_TYPE_INT || t == WEIR_TYPE_BIGINT || t == WEIR_TYPE_DECIMAL;
}

static const char *const count_star_words[] = {"rows"};
static const char *const count_words[] = {"rows", "n"};
static const char *const isum_words[] = {"rows", "n", "sum"};
static const char *const dsum_words[] = {"rows", "n", "sum_lo", "sum_hi", "sum_top"};
static const char *const extreme_words[] = {"rows", "has", "value"};

/*
 * The words of the accumulator of function cls over input type t sent as
 * columns (0: serialised); *additive: its merge adds them one by one.
 */
static uint32_t partial_words(const weir_agg_class *cls, weir_type t, const char *const **names, bool *additive)
{
    *additive = true;
    if (cls == &weir__agg_count_star) {
        *names = count_star_words;
        return 1;
    }
    if (cls == &weir__agg_count) {
        *names = count_words;
        return 2;
    }
    if (cls == &weir__agg_sum_int || cls == &weir__agg_sum_bigint || cls == &weir__agg_sum0_int ||
        cls == &weir__agg_sum0_bigint || cls == &weir__agg_avg_int || cls == &weir__agg_avg_bigint) {
        *names = isum_words;
        return 3;
    }
    if (cls == &weir__agg_sum_decimal || cls == &weir__agg_sum0_decimal || cls == &weir__agg_avg_decimal) {
        /* the sum's 192 bits carry from word to word: the function's merge adds them */
        *additive = false;
        *names = dsum_words;
        return 5;
    }
    if (cls == &weir__agg_min || cls == &weir__agg_max) {
        /* rows, whether a value is kept, and its 64 bits; a string or a 38-digit DECIMAL travels serialised */
        vkind k = weir__agg_vkind(t);
        if (k != VK_I64 && k != VK_F64)
            return 0;
        *additive = false;
        *names = extreme_words;
        return 3;
    }
    *names = NULL;
    return 0;
}

uint32_t weir__agg_partial_cols(const weir_agg *a, const char *const **names)
{
    const char *const *nm;
    bool additive;
    uint32_t n = a->udf || a->inner ? 0 : partial_words(a->cls, a->input_type, &nm, &additive);
    if (names)
        *names = n ? nm : NULL;
    return n;
}

void weir__agg_merge_of(const weir_agg *a, int32_t col, weir_agg *out)
{
    *out = *a;
    out->cls = &merge_class;
    out->udf = (void *)a->cls;
    out->input_col = col;
}

const weir_agg_class *weir__agg_merge_inner(const weir_agg *m, bool *star)
{
    const weir_agg_class *c = m->cls == &merge_class ? m->udf : NULL;
    if (star)
        *star = c == &weir__agg_count_star;
    return c;
}

weir__merge_form weir__agg_merge_form(const weir_agg *m)
{
    const weir_agg_class *c = weir__agg_merge_inner(m, NULL);
    if (!c)
        return WEIR__MERGE_GENERIC;
    if (c == &weir__agg_count_star)
        return WEIR__MERGE_ROWS;
    if (c == &weir__agg_count)
        return WEIR__MERGE_COUNT;
    if (c == &weir__agg_sum_int || c == &weir__agg_sum_bigint)
        return WEIR__MERGE_SUM;
    if (c == &weir__agg_sum0_int || c == &weir__agg_sum0_bigint)
        return WEIR__MERGE_SUM0;
    if (c == &weir__agg_avg_int || c == &weir__agg_avg_bigint)
        return WEIR__MERGE_AVG;
    if (c == &weir__agg_min || c == &weir__agg_max) {
        bool min = c == &weir__agg_min;
        switch (weir__agg_vkind(m->input_type)) {
        case VK_I64: return min ? WEIR__MERGE_MIN_I64 : WEIR__MERGE_MAX_I64;
        case VK_F64: return min ? WEIR__MERGE_MIN_F64 : WEIR__MERGE_MAX_F64;
        default: return WEIR__MERGE_GENERIC;
        }
    }
    return WEIR__MERGE_GENERIC;
}

/*
 * acc_size, init, result, destroy and is_empty run once per window or
 * group, not per row: they get m itself, not a copy. Those of the
 * functions two phases take (COUNT, SUM, SUM0, AVG, MIN, MAX) read the
 * bound aggregate's types only, never its class, udf or input column, in
 * which m differs from the function. (add, merge and the serialised form
 * do look at the class: MIN/MAX tell themselves apart by it.)
 */
static inline const weir_agg_class *inner_cls(const weir_agg *m)
{
    return m->udf;
}

static size_t m_acc_size(const weir_agg *m)
{
    return inner_cls(m)->acc_size(m);
}

static void m_init(const weir_agg *m, void *acc)
{
    inner_cls(m)->init(m, acc);
}

/* Folds in the accumulator serialised at (b, m->input_col, row); a NULL there is no rows. */
static int add_serialised(const weir_agg *a, void *acc, const weir_batch *b, uint32_t col, uint32_t row)
{
    if (weir_batch_is_null(b, col, row))
        return 0;
    uint32_t len;
    const char *p = weir_batch_str(b, col, row, &len);
    size_t sz = a->cls->acc_size(a);
    _Alignas(8) unsigned char small[256];
    void *part = sz <= sizeof small ? (void *)small : weir_malloc(sz);
    if (!part)
        return WEIR_ENOMEM;
    weir_cursor cur;
    weir_cursor_init(&cur, p, len);
    int rc = a->cls->deserialize(a, part, &cur);
    if (!rc && weir_cursor_left(&cur))
        rc = WEIR_ECORRUPT;
    if (!rc)
        rc = a->cls->merge(a, acc, part);
    if (a->cls->destroy)
        a->cls->destroy(a, part);
    if (part != small)
        weir_free(part);
    return rc;
}

/*
 * Whether b holds the partial accumulators of m's function as the *n words
 * of weir__agg_partial_cols from column col on (else serialised, BYTES).
 */
static int typed_form(const weir_agg *m, const weir_batch *b, uint32_t col, uint32_t *n, bool *additive)
{
    if (b->cols[col].type.id == WEIR_TYPE_BYTES) {
        *n = 0;
        return 0;
    }
    const char *const *names;
    *n = partial_words(inner_cls(m), m->input_type, &names, additive);
    if (!*n || col + *n > b->schema->n_fields)
        return WEIR_ECORRUPT;
    for (uint32_t i = 0; i < *n; i++)
        if (b->cols[col + i].type.id != WEIR_TYPE_BIGINT)
            return WEIR_ECORRUPT;
    return 0;
}

/* An accumulator rebuilt from the words the local phase sent. */
typedef struct words {
    int64_t w[8];
} words;

/* w: zero, and room for a's accumulator. */
static int words_init(const weir_agg *a, words *w)
{
    memset(w, 0, sizeof *w);
    return a->cls->acc_size(a) <= sizeof w->w ? 0 : WEIR_EINVAL;
}

/*
 * Folds in the words at (b, col ..., row) - the first n words of an
 * accumulator - through w; the rest of it (a MIN/MAX's string, unused for
 * the 64-bit values sent so) stays zero, as init leaves it.
 */
static int add_words(const weir_agg *a, void *acc, const weir_batch *b, uint32_t col, uint32_t n, uint32_t row,
                     words *w)
{
    for (uint32_t i = 0; i < n; i++)
        w->w[i] = WEIR_COL_I64(b, col + i)[row];
    return a->cls->merge(a, acc, w->w);
}

static int m_add(const weir_agg *m, void *acc, const weir_batch *b, uint32_t row)
{
    uint32_t col = (uint32_t)m->input_col, n;
    bool additive;
    int rc = typed_form(m, b, col, &n, &additive);
    if (rc)
        return rc;
    if (n && additive) {
        /* wrapping int64 sums, word by word: exactly the function's merge */
        for (uint32_t k = 0; k < n; k++)
            ((uint64_t *)acc)[k] += (uint64_t)WEIR_COL_I64(b, col + k)[row];
        return 0;
    }
    weir_agg a = inner_of(m);
    if (!n)
        return add_serialised(&a, acc, b, col, row);
    words w;
    return (rc = words_init(&a, &w)) ? rc : add_words(&a, acc, b, col, n, row, &w);
}

/* The batch path: the form is looked at once, and additive words are summed in place. */
static int m_add_rows(const weir_agg *m, void *const *accs, const weir_batch *b, const uint32_t *rows, uint32_t n)
{
    weir_agg a = inner_of(m);
    uint32_t col = (uint32_t)m->input_col, nw;
    bool additive;
    int rc = typed_form(m, b, col, &nw, &additive);
    if (rc)
        return rc;
    if (!nw) {
        for (uint32_t i = 0; i < n && !rc; i++)
            rc = add_serialised(&a, accs[i], b, col, rows[i]);
        return rc;
    }
    if (!additive) {
        words w;
        rc = words_init(&a, &w);
        for (uint32_t i = 0; i < n && !rc; i++)
            rc = add_words(&a, accs[i], b, col, nw, rows[i], &w);
        return rc;
    }
    /* wrapping int64 sums, word by word: exactly the function's merge */
    for (uint32_t k = 0; k < nw; k++) {
        const int64_t *v = WEIR_COL_I64(b, col + k);
        for (uint32_t i = 0; i < n; i++) {
            uint64_t *w = (uint64_t *)accs[i] + k;
            *w += (uint64_t)v[rows[i]];
        }
    }
    return 0;
}

static int m_merge(const weir_agg *m, void *acc, const void *other)
{
    weir_agg a = inner_of(m);
    return a.cls->merge(&a, acc, other);
}

static int m_result(const weir_agg *m, const void *acc, weir_batch *out, uint32_t col, uint32_t row)
{
    return inner_cls(m)->result(m, acc, out, col, row);
}

static int m_serialize(const weir_agg *m, const void *acc, weir_buf *out)
{
    weir_agg a = inner_of(m);
    return a.cls->serialize(&a, acc, out);
}

static int m_deserialize(const weir_agg *m, void *acc, weir_cursor *in)
{
    weir_agg a = inner_of(m);
    return a.cls->deserialize(&a, acc, in);
}

static void m_destroy(const weir_agg *m, void *acc)
{
    const weir_agg_class *c = inner_cls(m);
    if (c->destroy)
        c->destroy(m, acc);
}

static bool m_is_empty(const weir_agg *m, const void *acc)
{
    const weir_agg_class *c = inner_cls(m);
    return c->is_empty && c->is_empty(m, acc);
}

static const weir_agg_class merge_class = {
    .name = "MERGE",
    .acc_size = m_acc_size,
    .init = m_init,
    .add = m_add,
    .add_rows = m_add_rows,
    .merge = m_merge,
    .result = m_result,
    .serialize = m_serialize,
    .deserialize = m_deserialize,
    .destroy = m_destroy,
    .is_empty = m_is_empty,
};
