/*
 * agg/agg_arrayagg.c - ARRAY_AGG(x [RESPECT NULLS | IGNORE NULLS]): the
 * values of x in the order they arrived, as an ARRAY of x's type (Flink's
 * ARRAY_AGG). NULL values are elements unless IGNORE NULLS (param 1); the
 * result is NULL when there is no element. A retraction removes the oldest
 * element equal to the retracted value (Flink's retracting ARRAY_AGG removes
 * the first equal element of its list too); merging appends the other
 * side's elements after this one's.
 *
 * The accumulator keeps the elements already encoded as entries of a
 * nested value (record/nested.h), so the result is the count followed by
 * the bytes, and two elements are equal when their entries' bytes are.
 *
 * Invariant: ents holds n entries of lens[0], lens[1], ... bytes.
 */
#include "agg/agg_internal.h"
#include "record/nested.h"

typedef struct aa_acc {
    int64_t rows;   /* net rows, NULLs included (first: weir__agg_rows_empty) */
    uint32_t n;     /* elements */
    uint32_t ncap;  /* capacity of lens */
    uint32_t *lens; /* bytes of each element's entry, in order */
    weir_buf ents;  /* the entries */
} aa_acc;

static size_t aa_size(const weir_agg *a)
{
    (void)a;
    return sizeof(aa_acc);
}

static void aa_init(const weir_agg *a, void *acc)
{
    (void)a;
    aa_acc *c = acc;
    memset(c, 0, sizeof *c);
    weir_buf_init(&c->ents);
}

static void aa_destroy(const weir_agg *a, void *acc)
{
    aa_acc *c = acc;
    weir_free(c->lens);
    weir_buf_fini(&c->ents);
    aa_init(a, acc);
}

static bool ignore_nulls(const weir_agg *a) { return a->param == 1; }

/* Appends the entry of (b, col, row) to out. */
static int put_entry(const weir_agg *a, weir_buf *out, const weir_batch *b, uint32_t row)
{
    if (!aggv_valid(b, a->input_col, row))
        return weir_nv_put_null(out);
    const weir_column *col = &b->cols[a->input_col];
    weir_type et = a->input_type;
    uint32_t w = weir_nv_fixed_width(et);
    if (w)
        return weir_nv_put(out, et, (const uint8_t *)col->data + (size_t)row * w, w);
    weir_strref r = ((const weir_strref *)col->data)[row];
    return weir_nv_put(out, et, b->heap + r.off, r.len);
}

/* Records the entry that ents now ends with (from byte `from`). */
static int push_len(aa_acc *c, size_t from)
{
    if (c->n == c->ncap) {
        uint32_t nc = c->ncap ? c->ncap * 2 : 8;
        uint32_t *l = nc > c->ncap ? weir_realloc(c->lens, (size_t)nc * sizeof *l) : NULL;
        if (!l) {
            c->ents.len = from;
            return WEIR_ENOMEM;
        }
        c->lens = l;
        c->ncap = nc;
    }
    if (c->ents.len - from > UINT32_MAX) {
        c->ents.len = from;
        return WEIR_ENOMEM;
    }
    c->lens[c->n++] = (uint32_t)(c->ents.len - from);
    return 0;
}

static int aa_add(const weir_agg *a, void *acc, const weir_batch *b, uint32_t row)
{
    aa_acc *c = acc;
    if (aggv_valid(b, a->input_col, row) || !ignore_nulls(a)) {
        size_t from = c->ents.len;
        int rc = put_entry(a, &c->ents, b, row);
        if (rc) {
            c->ents.len = from;
            return rc;
        }
        if ((rc = push_len(c, from)))
            return rc;
    }
    c->rows++;
    return 0;
}

static int aa_retract(const weir_agg *a, void *acc, const weir_batch *b, uint32_t row)
{
    aa_acc *c = acc;
    if (aggv_valid(b, a->input_col, row) || !ignore_nulls(a)) {
        weir_buf v;
        weir_buf_init(&v);
        int rc = put_entry(a, &v, b, row);
        if (rc) {
            weir_buf_fini(&v);
            return rc;
        }
        size_t off = 0;
        uint32_t i = 0;
        for (; i < c->n; off += c->lens[i], i++)
            if (c->lens[i] == v.len && !memcmp(c->ents.data + off, v.data, v.len))
                break;
        weir_buf_fini(&v);
        if (i == c->n)
            return WEIR_ESTATE; /* no such element to take back */
        size_t to = off + c->lens[i];
        memmove(c->ents.data + off, c->ents.data + to, c->ents.len - to);
        c->ents.len -= to - off;
        memmove(c->lens + i, c->lens + i + 1, (size_t)(c->n - i - 1) * sizeof *c->lens);
        c->n--;
    } else if (c->rows == (int64_t)c->n) {
        return WEIR_ESTATE; /* no NULL row to take back */
    }
    if (--c->rows == 0)
        aa_destroy(a, acc);
    return 0;
}

static int aa_merge(const weir_agg *a, void *acc, const void *other)
{
    (void)a;
    aa_acc *c = acc;
    const aa_acc *o = other;
    size_t off = 0;
    for (uint32_t i = 0; i < o->n; off += o->lens[i], i++) {
        size_t from = c->ents.len;
        int rc = weir_buf_put(&c->ents, o->ents.data + off, o->lens[i]);
        if (!rc)
            rc = push_len(c, from);
        if (rc)
            return rc;
    }
    c->rows += o->rows;
    return 0;
}

static int aa_result(const weir_agg *a, const void *acc, weir_batch *out, uint32_t col, uint32_t row)
{
    const aa_acc *c = acc;
    int rc = weir__agg_check_out(a, out, col, row);
    if (rc)
        return rc;
    if (c->n == 0)
        return weir__agg_put_null(out, col, row);
    weir_buf b;
    weir_buf_init(&b);
    rc = weir_nv_put_count(&b, c->n);
    if (!rc)
        rc = weir_buf_put(&b, c->ents.data, c->ents.len);
    if (!rc)
        rc = b.len > UINT32_MAX ? WEIR_ENOMEM : weir__agg_put_str(out, col, row, (const char *)b.data, (uint32_t)b.len);
    weir_buf_fini(&b);
    return rc;
}

static int aa_serialize(const weir_agg *a, const void *acc, weir_buf *out)
{
    (void)a;
    const aa_acc *c = acc;
    int rc = weir__agg_put_header(out, FC_ARRAY_AGG, -1, c->rows);
    if (!rc)
        rc = weir_buf_put_varint(out, c->n);
    size_t off = 0;
    for (uint32_t i = 0; !rc && i < c->n; off += c->lens[i], i++)
        rc = weir_buf_put_bytes(out, c->ents.data + off, c->lens[i]);
    return rc;
}

static int aa_deserialize(const weir_agg *a, void *acc, weir_cursor *in)
{
    aa_acc *c = acc;
    aa_init(a, acc);
    int64_t rows;
    uint64_t n;
    if (weir__agg_get_header(in, FC_ARRAY_AGG, -1, &rows) || weir_cursor_get_varint(in, &n) || n > (uint64_t)rows)
        return WEIR_ECORRUPT;
    for (uint64_t i = 0; i < n; i++) {
        const void *p;
        size_t len;
        int rc = weir_cursor_get_bytes(in, &p, &len) ? WEIR_ECORRUPT : 0;
        size_t from = c->ents.len;
        if (!rc)
            rc = weir_buf_put(&c->ents, p, len);
        if (!rc)
            rc = push_len(c, from);
        if (rc) {
            aa_destroy(a, acc);
            return rc == WEIR_ENOMEM ? rc : WEIR_ECORRUPT;
        }
    }
    c->rows = rows;
    return 0;
}

/*
 * ARRAY_AGG(DISTINCT x): each distinct value once, in the order the values
 * first arrived (Flink's distinct aggregation feeds ARRAY_AGG a value when
 * its count of live occurrences goes from 0 to 1 and retracts it when the
 * count drops back to 0, so a value retracted completely and seen again
 * goes to the end). NULL is one value (RESPECT NULLS) or skipped (IGNORE
 * NULLS). Merging keeps this side's elements and appends the other side's
 * new values in the other side's order, adding the counts.
 *
 * The state is the ordered list of distinct entries (as ARRAY_AGG's) and a
 * multiset from each entry's bytes to its live occurrences; serialised in
 * list order, so a restore gives the same order.
 *
 * Invariant: the list holds exactly the keys of m, once each; vals is the
 * sum of m's counts.
 */
typedef struct aad_acc {
    aa_acc l;     /* l.rows: net rows, NULLs included; l.n: distinct elements */
    int64_t vals; /* occurrences counted in m */
    vmap *m;      /* NULL until the first element */
} aad_acc;

static size_t aad_size(const weir_agg *a)
{
    (void)a;
    return sizeof(aad_acc);
}

static void aad_init(const weir_agg *a, void *acc)
{
    aad_acc *c = acc;
    memset(c, 0, sizeof *c);
    aa_init(a, &c->l);
}

static void aad_destroy(const weir_agg *a, void *acc)
{
    aad_acc *c = acc;
    if (c->m) {
        weir__vmap_fini(c->m);
        weir_free(c->m);
    }
    aa_destroy(a, &c->l);
    aad_init(a, acc);
}

static int aad_ensure_map(aad_acc *c)
{
    if (c->m)
        return 0;
    c->m = weir_malloc(sizeof *c->m);
    if (!c->m)
        return WEIR_ENOMEM;
    weir__vmap_init(c->m, VK_STR);
    return 0;
}

static int64_t aad_find(const aad_acc *c, const void *ent, size_t len)
{
    if (!c->m)
        return -1;
    aggv v = {.s = ent, .len = (uint32_t)len};
    return weir__vmap_find(c->m, &v, weir__agg_hash(VK_STR, &v));
}

/* Adds `times` occurrences of the entry; a new one goes to the end. */
static int aad_put(aad_acc *c, const void *ent, size_t len, int64_t times)
{
    if (len > UINT32_MAX)
        return WEIR_ENOMEM;
    int64_t i = aad_find(c, ent, len);
    if (i < 0) {
        int rc = aad_ensure_map(c);
        if (!rc)
            rc = weir__vmap_reserve(c->m, 1, len);
        size_t from = c->l.ents.len;
        if (!rc)
            rc = weir_buf_put(&c->l.ents, ent, len);
        if (!rc && (rc = push_len(&c->l, from)))
            c->l.ents.len = from;
        if (rc)
            return rc;
        aggv v = {.s = ent, .len = (uint32_t)len};
        i = weir__vmap_insert(c->m, &v, weir__agg_hash(VK_STR, &v));
    }
    c->m->e[i].count += times;
    c->vals += times;
    return 0;
}

static int aad_add(const weir_agg *a, void *acc, const weir_batch *b, uint32_t row)
{
    aad_acc *c = acc;
    if (aggv_valid(b, a->input_col, row) || !ignore_nulls(a)) {
        weir_buf v;
        weir_buf_init(&v);
        int rc = put_entry(a, &v, b, row);
        if (!rc)
            rc = aad_put(c, v.data, v.len, 1);
        weir_buf_fini(&v);
        if (rc)
            return rc;
    }
    c->l.rows++;
    return 0;
}

static int aad_retract(const weir_agg *a, void *acc, const weir_batch *b, uint32_t row)
{
    aad_acc *c = acc;
    if (aggv_valid(b, a->input_col, row) || !ignore_nulls(a)) {
        weir_buf v;
        weir_buf_init(&v);
        int rc = put_entry(a, &v, b, row);
        int64_t i = rc ? -1 : aad_find(c, v.data, v.len);
        if (!rc && i < 0)
            rc = WEIR_ESTATE; /* no such value to take back */
        if (!rc && c->m->e[i].count == 1) {
            /* The last occurrence: the element leaves the list. */
            size_t off = 0;
            uint32_t k = 0;
            for (; k < c->l.n; off += c->l.lens[k], k++)
                if (c->l.lens[k] == v.len && !memcmp(c->l.ents.data + off, v.data, v.len))
                    break;
            if (k == c->l.n) {
                rc = WEIR_ESTATE;
            } else {
                size_t to = off + c->l.lens[k];
                memmove(c->l.ents.data + off, c->l.ents.data + to, c->l.ents.len - to);
                c->l.ents.len -= to - off;
                memmove(c->l.lens + k, c->l.lens + k + 1, (size_t)(c->l.n - k - 1) * sizeof *c->l.lens);
                c->l.n--;
                weir__vmap_remove(c->m, (uint32_t)i);
                c->vals--;
            }
        } else if (!rc) {
            c->m->e[i].count--;
            c->vals--;
        }
        weir_buf_fini(&v);
        if (rc)
            return rc;
    } else if (c->l.rows == c->vals) {
        return WEIR_ESTATE; /* no skipped NULL row to take back */
    }
    if (--c->l.rows == 0)
        aad_destroy(a, acc);
    return 0;
}

static int aad_merge(const weir_agg *a, void *acc, const void *other)
{
    (void)a;
    aad_acc *c = acc;
    const aad_acc *o = other;
    size_t off = 0;
    for (uint32_t i = 0; i < o->l.n; off += o->l.lens[i], i++) {
        const uint8_t *ent = o->l.ents.data + off;
        int64_t j = aad_find(o, ent, o->l.lens[i]);
        if (j < 0)
            return WEIR_ESTATE;
        int rc = aad_put(c, ent, o->l.lens[i], o->m->e[j].count);
        if (rc)
            return rc;
    }
    c->l.rows += o->l.rows;
    return 0;
}

static int aad_result(const weir_agg *a, const void *acc, weir_batch *out, uint32_t col, uint32_t row)
{
    const aad_acc *c = acc;
    return aa_result(a, &c->l, out, col, row);
}

/* Header (rows), varint n, then each element's entry and count, in order. */
static int aad_serialize(const weir_agg *a, const void *acc, weir_buf *out)
{
    (void)a;
    const aad_acc *c = acc;
    int rc = weir__agg_put_header(out, FC_ARRAY_AGG_DISTINCT, -1, c->l.rows);
    if (!rc)
        rc = weir_buf_put_varint(out, c->l.n);
    size_t off = 0;
    for (uint32_t i = 0; !rc && i < c->l.n; off += c->l.lens[i], i++) {
        int64_t j = aad_find(c, c->l.ents.data + off, c->l.lens[i]);
        rc = j < 0 ? WEIR_ESTATE : weir_buf_put_bytes(out, c->l.ents.data + off, c->l.lens[i]);
        if (!rc)
            rc = weir_buf_put_varint(out, (uint64_t)c->m->e[j].count);
    }
    return rc;
}

static int aad_deserialize(const weir_agg *a, void *acc, weir_cursor *in)
{
    aad_acc *c = acc;
    aad_init(a, acc);
    int64_t rows;
    uint64_t n;
    if (weir__agg_get_header(in, FC_ARRAY_AGG_DISTINCT, -1, &rows) || weir_cursor_get_varint(in, &n) ||
        n > (uint64_t)rows)
        return WEIR_ECORRUPT;
    c->l.rows = rows;
    for (uint64_t i = 0; i < n; i++) {
        const void *p;
        size_t len;
        uint64_t cnt;
        int rc = weir_cursor_get_bytes(in, &p, &len) || weir_cursor_get_varint(in, &cnt) || cnt == 0 ||
                         cnt > (uint64_t)(rows - c->vals) || aad_find(c, p, len) >= 0
                     ? WEIR_ECORRUPT
                     : 0;
        if (!rc)
            rc = aad_put(c, p, len, (int64_t)cnt);
        if (rc) {
            aad_destroy(a, acc);
            return rc == WEIR_ENOMEM ? rc : WEIR_ECORRUPT;
        }
    }
    return 0;
}

const weir_agg_class weir__agg_array_agg_distinct = {
    .name = "ARRAY_AGG_DISTINCT", /* the state id tells it from ARRAY_AGG */
    .acc_size = aad_size,
    .init = aad_init,
    .add = aad_add,
    .retract = aad_retract,
    .merge = aad_merge,
    .result = aad_result,
    .serialize = aad_serialize,
    .deserialize = aad_deserialize,
    .destroy = aad_destroy,
    .is_empty = weir__agg_rows_empty,
};

const weir_agg_class weir__agg_array_agg = {
    .name = "ARRAY_AGG",
    .acc_size = aa_size,
    .init = aa_init,
    .add = aa_add,
    .retract = aa_retract,
    .merge = aa_merge,
    .result = aa_result,
    .serialize = aa_serialize,
    .deserialize = aa_deserialize,
    .destroy = aa_destroy,
    .is_empty = weir__agg_rows_empty,
};
