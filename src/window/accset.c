/*
 * window/accset.c - accumulator blocks for a window's aggregates.
 *
 * A block is [int64 rows][acc 0][acc 1]...: rows counts the net records
 * folded in, so an empty window (never emitted) is rows == 0 whatever its
 * aggregates are. COUNT(*), COUNT(col) and SUM over INT/BIGINT/DECIMAL/DOUBLE
 * use typed accumulators updated by tight per-aggregate loops over a batch
 * (the per-record cost of the common case); every other function goes
 * through its weir_agg class. The typed kinds are exact inverses of
 * themselves, so they are always retractable.
 *
 * The global phase of a two-phase aggregation (MERGE of COUNT, SUM, SUM0,
 * AVG of INT/BIGINT, MIN/MAX of 64-bit values) has typed kinds too: the
 * block holds the function's accumulator, whose leading words the partial
 * columns carry, and the engine adds those columns and writes the result
 * with no call per window. Their serialised form is the function's, as the
 * generic kind writes it, so the state of a window written either way
 * restores into the other.
 */
#include <strings.h>

#include "window/window_internal.h"

static uint32_t align8(size_t n) { return (uint32_t)((n + 7) & ~(size_t)7); }

static bool fast_out_type(weir_type_id id)
{
    return id == WEIR_TYPE_INT || id == WEIR_TYPE_BIGINT || id == WEIR_TYPE_DECIMAL ||
           id == WEIR_TYPE_DOUBLE;
}

/* The partial columns of a MERGE of this form: the accumulator's leading words. */
static uint32_t merge_words(weir__merge_form form)
{
    switch (form) {
    case WEIR__MERGE_GENERIC: return 0;
    case WEIR__MERGE_ROWS: return 1;
    case WEIR__MERGE_COUNT: return 2;
    default: return 3; /* rows, n, sum; rows, has, bits */
    }
}

static weir__acc_kind pick_kind(const weir_agg *a, const weir_schema *in, bool no_fast)
{
    if (no_fast)
        return WEIR__ACC_GENERIC;
    switch (weir__agg_merge_form(a)) {
    case WEIR__MERGE_GENERIC: break;
    case WEIR__MERGE_MIN_I64:
    case WEIR__MERGE_MAX_I64:
    case WEIR__MERGE_MIN_F64:
    case WEIR__MERGE_MAX_F64: return WEIR__ACC_MERGE_EXTREME;
    default: return WEIR__ACC_MERGE_WORDS;
    }
    if (!a->cls || !a->cls->name || a->udf)
        return WEIR__ACC_GENERIC;
    if (!strcasecmp(a->cls->name, "COUNT")) {
        if (a->result_type.id != WEIR_TYPE_BIGINT)
            return WEIR__ACC_GENERIC;
        return a->input_col < 0 ? WEIR__ACC_COUNT_STAR : WEIR__ACC_COUNT;
    }
    if (!strcasecmp(a->cls->name, "SUM") && a->input_col >= 0 &&
        (uint32_t)a->input_col < in->n_fields && fast_out_type(a->result_type.id)) {
        switch (in->fields[a->input_col].type.id) {
        case WEIR_TYPE_INT: return WEIR__ACC_SUM_I32;
        case WEIR_TYPE_BIGINT: return WEIR__ACC_SUM_I64;
        case WEIR_TYPE_DECIMAL:
            /* Unscaled sums only when the result keeps the input's scale. */
            if (a->result_type.id == WEIR_TYPE_DECIMAL && !weir_type_is_wide(a->result_type) &&
                !weir_type_is_wide(in->fields[a->input_col].type) &&
                a->result_type.scale == in->fields[a->input_col].type.scale)
                return WEIR__ACC_SUM_I64;
            return WEIR__ACC_GENERIC;
        case WEIR_TYPE_DOUBLE:
            return a->result_type.id == WEIR_TYPE_DOUBLE ? WEIR__ACC_SUM_F64 : WEIR__ACC_GENERIC;
        default: return WEIR__ACC_GENERIC;
        }
    }
    return WEIR__ACC_GENERIC;
}

int weir__accset_init(weir__accset *as, const weir_agg *aggs, uint32_t n, const weir_schema *in,
                      bool no_fast_path, weir_error *err)
{
    memset(as, 0, sizeof *as);
    as->f = weir_calloc(n ? n : 1, sizeof *as->f);
    if (!as->f)
        return weir_error_set(err, WEIR_ENOMEM, "window: out of memory");
    as->n = n;
    as->retractable = true;
    uint32_t off = 8;
    for (uint32_t i = 0; i < n; i++) {
        weir__accfield *f = &as->f[i];
        f->agg = aggs[i];
        f->col = aggs[i].input_col;
        f->out_type = aggs[i].result_type;
        if (!aggs[i].cls)
            return weir_error_set(err, WEIR_EINVAL, "window: aggregate %u is not bound", i);
        if (f->col >= 0 && (uint32_t)f->col >= in->n_fields)
            return weir_error_set(err, WEIR_EINVAL,
                                  "window: aggregate %u reads column %d of a %u-column input", i,
                                  f->col, in->n_fields);
        f->kind = pick_kind(&aggs[i], in, no_fast_path);
        f->form = (uint8_t)weir__agg_merge_form(&aggs[i]);
        f->words = (uint8_t)merge_words(weir__agg_merge_form(&aggs[i]));
        f->off = off;
        switch (f->kind) {
        case WEIR__ACC_COUNT_STAR:
        case WEIR__ACC_COUNT: off += 8; break;
        case WEIR__ACC_SUM_I32:
        case WEIR__ACC_SUM_I64:
        case WEIR__ACC_SUM_F64: off += 16; break;
        case WEIR__ACC_MERGE_WORDS:
        case WEIR__ACC_MERGE_EXTREME:
            /* the function's block, so that its serialize and deserialize read it */
            if (f->col < 0 || (uint32_t)f->col + f->words > in->n_fields)
                return weir_error_set(err, WEIR_EINVAL,
                                      "window: aggregate %u merges %u partial columns from column %d of a "
                                      "%u-column input",
                                      i, f->words, f->col, in->n_fields);
            off += align8(aggs[i].cls->acc_size(&f->agg));
            /* a merge has no retract */
            as->retractable = false;
            break;
        case WEIR__ACC_GENERIC: {
            const weir_agg_class *k = aggs[i].cls;
            if (!k->acc_size || !k->init || !k->add || !k->merge || !k->result)
                return weir_error_set(err, WEIR_EINVAL,
                                      "window: aggregate %s lacks functions a window needs "
                                      "(acc_size, init, add, merge, result)",
                                      k->name ? k->name : "?");
            off += align8(k->acc_size(&f->agg));
            as->any_generic = true;
            if (!k->retract)
                as->retractable = false;
            break;
        }
        }
    }
    as->size = align8(off);
    as->all_int = true;
    for (uint32_t i = 0; i < n; i++)
        if (as->f[i].kind != WEIR__ACC_COUNT_STAR && as->f[i].kind != WEIR__ACC_COUNT &&
            as->f[i].kind != WEIR__ACC_SUM_I32 && as->f[i].kind != WEIR__ACC_SUM_I64)
            as->all_int = false;
    return 0;
}

void weir__accset_fini(weir__accset *as)
{
    weir_free(as->f);
    as->f = NULL;
    as->n = 0;
}

void weir__acc_init_generic(const weir__accset *as, void *blk)
{
    memset(blk, 0, as->size);
    for (uint32_t i = 0; i < as->n; i++) {
        const weir__accfield *f = &as->f[i];
        if (f->kind == WEIR__ACC_GENERIC)
            f->agg.cls->init(&f->agg, (char *)blk + f->off);
    }
}

void weir__acc_fini_generic(const weir__accset *as, void *blk)
{
    for (uint32_t i = 0; i < as->n; i++) {
        const weir__accfield *f = &as->f[i];
        if (f->kind == WEIR__ACC_GENERIC && f->agg.cls->destroy)
            f->agg.cls->destroy(&f->agg, (char *)blk + f->off);
    }
}

void weir__acc_reset(const weir__accset *as, void *blk)
{
    weir__acc_fini(as, blk);
    weir__acc_init(as, blk);
}

/* *d += v modulo 2^64: a BIGINT sum wraps as documented, with no signed overflow. */
static inline void add_wrapping(int64_t *d, int64_t v) { *d = (int64_t)((uint64_t)*d + (uint64_t)v); }

/* Doubles by their canonical bits: numerically, NaN above every number (MIN/MAX's order). */
static inline int cmp_f64_bits(int64_t x, int64_t y)
{
    double a, b;
    memcpy(&a, &x, 8);
    memcpy(&b, &y, 8);
    bool na = a != a, nb = b != b;
    if (na || nb)
        return (int)na - (int)nb;
    return (a > b) - (a < b);
}

/* Does value v replace the kept value cur of a MIN/MAX of this form? */
static inline bool extreme_beats(weir__merge_form form, int64_t v, int64_t cur)
{
    switch (form) {
    case WEIR__MERGE_MIN_I64: return v < cur;
    case WEIR__MERGE_MAX_I64: return v > cur;
    case WEIR__MERGE_MIN_F64: return cmp_f64_bits(v, cur) < 0;
    default: return cmp_f64_bits(v, cur) > 0;
    }
}

/*
 * Folds a MIN/MAX's accumulator words (rows, has, bits) into a: the
 * function's merge (its rows add; its value wins if a keeps none or it
 * beats a's).
 */
static inline void extreme_fold(weir__merge_form form, int64_t *a, int64_t rows, int64_t has, int64_t bits)
{
    add_wrapping(&a[0], rows);
    if (has && (!a[1] || extreme_beats(form, bits, a[2]))) {
        a[1] = 1;
        a[2] = bits;
    }
}

int weir__acc_merge(const weir__accset *as, void *dst, const void *src)
{
    if (as->all_int) {
        /* every word is an int64 sum: rows, counts, sums and their non-NULL counts */
        int64_t *dw = dst;
        const int64_t *sw = src;
        for (uint32_t w = 0; w < as->size / 8; w++)
            dw[w] = (int64_t)((uint64_t)dw[w] + (uint64_t)sw[w]);
        return 0;
    }
    char *d = dst;
    const char *s = src;
    add_wrapping(&WEIR__ACC_ROWS(d), WEIR__ACC_ROWS(s));
    for (uint32_t i = 0; i < as->n; i++) {
        const weir__accfield *f = &as->f[i];
        switch (f->kind) {
        case WEIR__ACC_COUNT_STAR:
        case WEIR__ACC_COUNT: add_wrapping((int64_t *)(d + f->off), *(const int64_t *)(s + f->off)); break;
        case WEIR__ACC_SUM_I32:
        case WEIR__ACC_SUM_I64:
            add_wrapping((int64_t *)(d + f->off), ((const int64_t *)(s + f->off))[0]);
            add_wrapping((int64_t *)(d + f->off) + 1, ((const int64_t *)(s + f->off))[1]);
            break;
        case WEIR__ACC_SUM_F64:
            *(double *)(d + f->off) += *(const double *)(s + f->off);
            add_wrapping((int64_t *)(d + f->off) + 1, ((const int64_t *)(s + f->off))[1]);
            break;
        case WEIR__ACC_MERGE_WORDS:
            for (uint32_t w = 0; w < f->words; w++)
                add_wrapping((int64_t *)(d + f->off) + w, ((const int64_t *)(s + f->off))[w]);
            break;
        case WEIR__ACC_MERGE_EXTREME: {
            const int64_t *o = (const int64_t *)(s + f->off);
            extreme_fold(f->form, (int64_t *)(d + f->off), o[0], o[1], o[2]);
            break;
        }
        case WEIR__ACC_GENERIC: {
            int rc = f->agg.cls->merge(&f->agg, d + f->off, s + f->off);
            if (rc)
                return rc;
            break;
        }
        }
    }
    return 0;
}

int weir__acc_unmerge(const weir__accset *as, void *dst, const void *src)
{
    if (!as->all_int)
        return WEIR_EUNSUPPORTED;
    /* wrapping int64 words: dst - src is exact whatever order blocks were merged in */
    int64_t *dw = dst;
    const int64_t *sw = src;
    for (uint32_t w = 0; w < as->size / 8; w++)
        dw[w] = (int64_t)((uint64_t)dw[w] - (uint64_t)sw[w]);
    return 0;
}

bool weir__acc_zero(const weir__accset *as, const void *blk)
{
    const int64_t *w = blk;
    for (uint32_t i = 0; i < as->size / 8; i++)
        if (w[i])
            return false;
    return true;
}

int weir__acc_copy(const weir__accset *as, void *dst, const void *src)
{
    if (!as->any_generic) {
        memcpy(dst, src, as->size);
        return 0;
    }
    weir__acc_reset(as, dst);
    return weir__acc_merge(as, dst, src);
}

int weir__acc_add(const weir__accset *as, void *blk, const weir_batch *b, uint32_t row, int sign)
{
    void *blks[1] = {blk};
    int8_t s = sign < 0 ? -1 : 1;
    return weir__acc_add_many(as, blks, &row, &s, 1, b);
}

#define SIGN(i) (signs ? (int64_t)signs[i] : 1)

/* Rows through field f's class: its own loop over rows where it has one, else add/retract row by row. */
static int add_generic(const weir__accfield *f, void *const *blks, const uint32_t *rows, const int8_t *signs,
                       uint32_t n, const weir_batch *b)
{
    const weir_agg_class *cls = f->agg.cls;
    const uint32_t off = f->off;
    if (!signs && cls->add_rows) {
        /* accs may repeat: one slice, many rows */
        void *accs[256];
        for (uint32_t i0 = 0; i0 < n; i0 += 256) {
            uint32_t m = n - i0 < 256 ? n - i0 : 256;
            for (uint32_t i = 0; i < m; i++)
                accs[i] = (char *)blks[i0 + i] + off;
            int rc = cls->add_rows(&f->agg, accs, b, rows + i0, m);
            if (rc)
                return rc;
        }
        return 0;
    }
    for (uint32_t i = 0; i < n; i++) {
        int rc;
        if (SIGN(i) > 0)
            rc = cls->add(&f->agg, (char *)blks[i] + off, b, rows[i]);
        else if (cls->retract)
            rc = cls->retract(&f->agg, (char *)blks[i] + off, b, rows[i]);
        else
            rc = WEIR_EUNSUPPORTED;
        if (rc)
            return rc;
    }
    return 0;
}

/*
 * Whether b holds a MERGE's partial accumulators as its BIGINT word columns
 * (else serialised, one BYTES column, which the function's add reads).
 */
static bool partial_words_in(const weir__accfield *f, const weir_batch *b)
{
    if ((uint32_t)f->col + f->words > b->schema->n_fields)
        return false;
    for (uint32_t w = 0; w < f->words; w++)
        if (b->cols[(uint32_t)f->col + w].type.id != WEIR_TYPE_BIGINT)
            return false;
    return true;
}

int weir__acc_add_many(const weir__accset *as, void *const *blks, const uint32_t *rows,
                       const int8_t *signs, uint32_t n, const weir_batch *b)
{
    for (uint32_t i = 0; i < n; i++)
        WEIR__ACC_ROWS(blks[i]) += SIGN(i);
    for (uint32_t k = 0; k < as->n; k++) {
        const weir__accfield *f = &as->f[k];
        const uint32_t off = f->off;
        const weir_column *col = f->col >= 0 ? &b->cols[f->col] : NULL;
        const bool all_valid = !col || col->all_valid;
        switch (f->kind) {
        case WEIR__ACC_COUNT_STAR:
            for (uint32_t i = 0; i < n; i++)
                *(int64_t *)((char *)blks[i] + off) += SIGN(i);
            break;
        case WEIR__ACC_COUNT:
            for (uint32_t i = 0; i < n; i++)
                if (all_valid || !weir_batch_is_null(b, (uint32_t)f->col, rows[i]))
                    *(int64_t *)((char *)blks[i] + off) += SIGN(i);
            break;
        case WEIR__ACC_SUM_I32: {
            const int32_t *v = col->data;
            for (uint32_t i = 0; i < n; i++) {
                if (!all_valid && weir_batch_is_null(b, (uint32_t)f->col, rows[i]))
                    continue;
                int64_t *a = (int64_t *)((char *)blks[i] + off);
                int64_t s = SIGN(i);
                a[0] = (int64_t)((uint64_t)a[0] + (uint64_t)(s * v[rows[i]]));
                a[1] += s;
            }
            break;
        }
        case WEIR__ACC_SUM_I64: {
            const int64_t *v = col->data;
            if (!signs && all_valid) {
                for (uint32_t i = 0; i < n; i++) {
                    int64_t *a = (int64_t *)((char *)blks[i] + off);
                    a[0] = (int64_t)((uint64_t)a[0] + (uint64_t)v[rows[i]]);
                    a[1] += 1;
                }
                break;
            }
            for (uint32_t i = 0; i < n; i++) {
                if (!all_valid && weir_batch_is_null(b, (uint32_t)f->col, rows[i]))
                    continue;
                int64_t *a = (int64_t *)((char *)blks[i] + off);
                int64_t s = SIGN(i);
                uint64_t d = s > 0 ? (uint64_t)v[rows[i]] : (uint64_t)0 - (uint64_t)v[rows[i]];
                a[0] = (int64_t)((uint64_t)a[0] + d);
                a[1] += s;
            }
            break;
        }
        case WEIR__ACC_SUM_F64: {
            const double *v = col->data;
            for (uint32_t i = 0; i < n; i++) {
                if (!all_valid && weir_batch_is_null(b, (uint32_t)f->col, rows[i]))
                    continue;
                char *a = (char *)blks[i] + off;
                int64_t s = SIGN(i);
                *(double *)a += s > 0 ? v[rows[i]] : -v[rows[i]];
                ((int64_t *)a)[1] += s;
            }
            break;
        }
        case WEIR__ACC_MERGE_WORDS:
            if (signs || !partial_words_in(f, b)) {
                int rc = add_generic(f, blks, rows, signs, n, b);
                if (rc)
                    return rc;
                break;
            }
            /* wrapping int64 sums, word by word: exactly the function's merge */
            for (uint32_t w = 0; w < f->words; w++) {
                const int64_t *v = b->cols[(uint32_t)f->col + w].data;
                const uint32_t wo = off + 8 * w;
                for (uint32_t i = 0; i < n; i++)
                    add_wrapping((int64_t *)((char *)blks[i] + wo), v[rows[i]]);
            }
            break;
        case WEIR__ACC_MERGE_EXTREME: {
            if (signs || !partial_words_in(f, b)) {
                int rc = add_generic(f, blks, rows, signs, n, b);
                if (rc)
                    return rc;
                break;
            }
            const uint32_t c0 = (uint32_t)f->col;
            const int64_t *nrows = b->cols[c0].data, *has = b->cols[c0 + 1].data, *bits = b->cols[c0 + 2].data;
            for (uint32_t i = 0; i < n; i++) {
                const uint32_t r = rows[i];
                extreme_fold(f->form, (int64_t *)((char *)blks[i] + off), nrows[r], has[r], bits[r]);
            }
            break;
        }
        case WEIR__ACC_GENERIC: {
            int rc = add_generic(f, blks, rows, signs, n, b);
            if (rc)
                return rc;
            break;
        }
        }
    }
    return 0;
}

static inline void set_valid(weir_batch *out, uint32_t col, uint32_t row)
{
    weir_column *c = &out->cols[col];
    if (!c->all_valid)
        c->valid[row >> 3] |= (uint8_t)(1u << (row & 7));
}

static void put_int_result(weir_batch *out, uint32_t col, uint32_t row, weir_type_id id, int64_t v)
{
    switch (id) {
    case WEIR_TYPE_BOOLEAN: ((uint8_t *)out->cols[col].data)[row] = v ? 1 : 0; break;
    case WEIR_TYPE_DATE:
    case WEIR_TYPE_TIME:
    case WEIR_TYPE_INT: WEIR_COL_I32(out, col)[row] = (int32_t)v; break;
    case WEIR_TYPE_DOUBLE: WEIR_COL_F64(out, col)[row] = (double)v; break;
    default: WEIR_COL_I64(out, col)[row] = v; break;
    }
    set_valid(out, col, row);
}

/* The result of field f of blk into (col, orow). */
static int result_one(const weir__accfield *f, const void *blk, weir_batch *out, uint32_t col, uint32_t orow)
{
    const char *p = blk;
    switch (f->kind) {
    case WEIR__ACC_COUNT_STAR:
    case WEIR__ACC_COUNT: put_int_result(out, col, orow, f->out_type.id, *(const int64_t *)(p + f->off)); break;
    case WEIR__ACC_SUM_I32:
    case WEIR__ACC_SUM_I64: {
        const int64_t *a = (const int64_t *)(p + f->off);
        if (a[1] == 0)
            weir_batch_set_null(out, col, orow);
        else
            put_int_result(out, col, orow, f->out_type.id, a[0]);
        break;
    }
    case WEIR__ACC_SUM_F64: {
        const int64_t *a = (const int64_t *)(p + f->off);
        if (a[1] == 0) {
            weir_batch_set_null(out, col, orow);
        } else {
            WEIR_COL_F64(out, col)[orow] = *(const double *)a;
            set_valid(out, col, orow);
        }
        break;
    }
    case WEIR__ACC_MERGE_WORDS: {
        const int64_t *a = (const int64_t *)(p + f->off);
        switch (f->form) {
        case WEIR__MERGE_ROWS: put_int_result(out, col, orow, f->out_type.id, a[0]); break;
        case WEIR__MERGE_COUNT: put_int_result(out, col, orow, f->out_type.id, a[1]); break;
        case WEIR__MERGE_SUM0: put_int_result(out, col, orow, f->out_type.id, a[2]); break;
        case WEIR__MERGE_SUM:
        case WEIR__MERGE_AVG:
            if (a[1] == 0)
                weir_batch_set_null(out, col, orow);
            else /* AVG: integer division truncates toward zero, as Flink's does */
                put_int_result(out, col, orow, f->out_type.id, f->form == WEIR__MERGE_SUM ? a[2] : a[2] / a[1]);
            break;
        default: return WEIR_EINVAL;
        }
        break;
    }
    case WEIR__ACC_MERGE_EXTREME: {
        const int64_t *a = (const int64_t *)(p + f->off);
        if (!a[1]) {
            weir_batch_set_null(out, col, orow);
        } else if (f->form == WEIR__MERGE_MIN_F64 || f->form == WEIR__MERGE_MAX_F64) {
            if (f->out_type.id != WEIR_TYPE_DOUBLE)
                return WEIR_EINVAL;
            memcpy(&WEIR_COL_F64(out, col)[orow], &a[2], 8);
            set_valid(out, col, orow);
        } else {
            put_int_result(out, col, orow, f->out_type.id, a[2]);
        }
        break;
    }
    case WEIR__ACC_GENERIC:
        /* The function writes a value or NULL; start from valid so it need not. */
        weir_batch_set_valid(out, col, orow);
        return f->agg.cls->result(&f->agg, p + f->off, out, col, orow);
    }
    return 0;
}

int weir__acc_result(const weir__accset *as, const void *blk, weir_batch *out, uint32_t col0,
                     uint32_t orow)
{
    for (uint32_t i = 0; i < as->n; i++) {
        int rc = result_one(&as->f[i], blk, out, col0 + i, orow);
        if (rc)
            return rc;
    }
    return 0;
}

static int results_one_by_one(const weir__accfield *f, const void *const *blks, uint32_t n, weir_batch *out,
                              uint32_t col, uint32_t row0)
{
    for (uint32_t j = 0; j < n; j++) {
        int rc = result_one(f, blks[j], out, col, row0 + j);
        if (rc)
            return rc;
    }
    return 0;
}

/*
 * A MERGE whose result is one word of its block as it is (COUNT, SUM, SUM0,
 * MIN/MAX of an int64): that word *vw, and *cw the word that is 0 when the
 * result is NULL (a SUM's non-NULL count, whether a MIN/MAX keeps a value),
 * or -1 when it never is.
 */
static bool merge_result_word(weir__merge_form form, uint32_t *vw, int32_t *cw)
{
    switch (form) {
    case WEIR__MERGE_ROWS: *vw = 0, *cw = -1; return true;
    case WEIR__MERGE_COUNT: *vw = 1, *cw = -1; return true;
    case WEIR__MERGE_SUM0: *vw = 2, *cw = -1; return true;
    case WEIR__MERGE_SUM:
    case WEIR__MERGE_MIN_I64:
    case WEIR__MERGE_MAX_I64: *vw = 2, *cw = 1; return true;
    default: return false;
    }
}

/* Whether put_int_result writes an int64 into a column of type t. */
static bool int64_out(weir_type t)
{
    return t.id == WEIR_TYPE_BIGINT || t.id == WEIR_TYPE_TIMESTAMP || t.id == WEIR_TYPE_TIMESTAMP_LTZ ||
           (t.id == WEIR_TYPE_DECIMAL && !weir_type_is_wide(t));
}

int weir__acc_result_many(const weir__accset *as, const void *const *blks, uint32_t n, weir_batch *out,
                          uint32_t col0, uint32_t row0)
{
    for (uint32_t i = 0; i < as->n; i++) {
        const weir__accfield *f = &as->f[i];
        const uint32_t col = col0 + i, off = f->off;
        const weir_type_id id = f->out_type.id;
        switch (f->kind) {
        case WEIR__ACC_COUNT_STAR:
        case WEIR__ACC_COUNT:
            if (id == WEIR_TYPE_BIGINT) {
                int64_t *dst = WEIR_COL_I64(out, col) + row0;
                for (uint32_t j = 0; j < n; j++)
                    dst[j] = *(const int64_t *)((const char *)blks[j] + off);
                for (uint32_t j = 0; j < n; j++)
                    set_valid(out, col, row0 + j);
                break;
            }
            for (uint32_t j = 0; j < n; j++)
                put_int_result(out, col, row0 + j, id, *(const int64_t *)((const char *)blks[j] + off));
            break;
        case WEIR__ACC_SUM_I32:
        case WEIR__ACC_SUM_I64:
            if (id == WEIR_TYPE_BIGINT || id == WEIR_TYPE_DECIMAL) {
                /* values first; the rare all-NULL sums afterwards */
                int64_t *dst = WEIR_COL_I64(out, col) + row0;
                bool any_null = false;
                for (uint32_t j = 0; j < n; j++) {
                    const int64_t *a = (const int64_t *)((const char *)blks[j] + off);
                    dst[j] = a[0];
                    any_null |= a[1] == 0;
                }
                for (uint32_t j = 0; j < n; j++)
                    set_valid(out, col, row0 + j);
                for (uint32_t j = 0; any_null && j < n; j++)
                    if (((const int64_t *)((const char *)blks[j] + off))[1] == 0)
                        weir_batch_set_null(out, col, row0 + j);
                break;
            }
            for (uint32_t j = 0; j < n; j++) {
                const int64_t *a = (const int64_t *)((const char *)blks[j] + off);
                if (a[1] == 0)
                    weir_batch_set_null(out, col, row0 + j);
                else
                    put_int_result(out, col, row0 + j, id, a[0]);
            }
            break;
        case WEIR__ACC_MERGE_WORDS:
        case WEIR__ACC_MERGE_EXTREME: {
            uint32_t vw;
            int32_t cw;
            if (!merge_result_word(f->form, &vw, &cw) || !int64_out(f->out_type)) {
                int rc = results_one_by_one(f, blks, n, out, col, row0);
                if (rc)
                    return rc;
                break;
            }
            /* values first; the NULLs afterwards */
            int64_t *dst = WEIR_COL_I64(out, col) + row0;
            bool any_null = false;
            for (uint32_t j = 0; j < n; j++) {
                const int64_t *a = (const int64_t *)((const char *)blks[j] + off);
                dst[j] = a[vw];
                any_null |= cw >= 0 && a[cw] == 0;
            }
            for (uint32_t j = 0; j < n; j++)
                set_valid(out, col, row0 + j);
            for (uint32_t j = 0; any_null && j < n; j++)
                if (((const int64_t *)((const char *)blks[j] + off))[cw] == 0)
                    weir_batch_set_null(out, col, row0 + j);
            break;
        }
        default: {
            int rc = results_one_by_one(f, blks, n, out, col, row0);
            if (rc)
                return rc;
            break;
        }
        }
    }
    return 0;
}

int weir__acc_serialize(const weir__accset *as, const void *blk, weir_buf *out)
{
    const char *p = blk;
    int rc = weir_buf_put_i64(out, WEIR__ACC_ROWS(p));
    for (uint32_t i = 0; i < as->n && !rc; i++) {
        const weir__accfield *f = &as->f[i];
        const int64_t *a = (const int64_t *)(p + f->off);
        switch (f->kind) {
        case WEIR__ACC_COUNT_STAR:
        case WEIR__ACC_COUNT: rc = weir_buf_put_i64(out, a[0]); break;
        case WEIR__ACC_SUM_I32:
        case WEIR__ACC_SUM_I64:
            rc = weir_buf_put_i64(out, a[0]);
            if (!rc)
                rc = weir_buf_put_i64(out, a[1]);
            break;
        case WEIR__ACC_SUM_F64:
            rc = weir_buf_put_f64(out, *(const double *)a);
            if (!rc)
                rc = weir_buf_put_i64(out, a[1]);
            break;
        case WEIR__ACC_MERGE_WORDS:
        case WEIR__ACC_MERGE_EXTREME:
        case WEIR__ACC_GENERIC: {
            /* Length-prefixed, so a reader never depends on the function's framing. */
            weir_buf tmp;
            weir_buf_init(&tmp);
            if (f->agg.cls->serialize)
                rc = f->agg.cls->serialize(&f->agg, a, &tmp);
            else
                rc = weir_buf_put(&tmp, a, f->agg.cls->acc_size(&f->agg));
            if (!rc)
                rc = weir_buf_put_bytes(out, tmp.data, tmp.len);
            weir_buf_fini(&tmp);
            break;
        }
        }
    }
    return rc;
}

int weir__acc_deserialize(const weir__accset *as, void *blk, weir_cursor *in)
{
    char *p = blk;
    weir__acc_init(as, blk);
    int rc = weir_cursor_get_i64(in, &WEIR__ACC_ROWS(p));
    for (uint32_t i = 0; i < as->n && !rc; i++) {
        const weir__accfield *f = &as->f[i];
        int64_t *a = (int64_t *)(p + f->off);
        switch (f->kind) {
        case WEIR__ACC_COUNT_STAR:
        case WEIR__ACC_COUNT: rc = weir_cursor_get_i64(in, &a[0]); break;
        case WEIR__ACC_SUM_I32:
        case WEIR__ACC_SUM_I64:
            rc = weir_cursor_get_i64(in, &a[0]);
            if (!rc)
                rc = weir_cursor_get_i64(in, &a[1]);
            break;
        case WEIR__ACC_SUM_F64:
            rc = weir_cursor_get_f64(in, (double *)a);
            if (!rc)
                rc = weir_cursor_get_i64(in, &a[1]);
            break;
        case WEIR__ACC_MERGE_WORDS:
        case WEIR__ACC_MERGE_EXTREME:
        case WEIR__ACC_GENERIC: {
            const void *bytes;
            size_t len;
            rc = weir_cursor_get_bytes(in, &bytes, &len);
            if (rc)
                break;
            if (f->agg.cls->deserialize) {
                weir_cursor sub;
                weir_cursor_init(&sub, bytes, len);
                if (f->agg.cls->destroy)
                    f->agg.cls->destroy(&f->agg, a);
                rc = f->agg.cls->deserialize(&f->agg, a, &sub);
                if (rc)
                    f->agg.cls->init(&f->agg, a);
            } else {
                size_t sz = f->agg.cls->acc_size(&f->agg);
                if (len != sz)
                    rc = WEIR_ECORRUPT;
                else
                    memcpy(a, bytes, sz);
            }
            break;
        }
        }
    }
    return rc;
}
