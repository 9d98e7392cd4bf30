/*
 * agg/agg_retract.c - MIN_RETRACT, MAX_RETRACT, FIRST_VALUE_RETRACT and
 * LAST_VALUE_RETRACT: the retractable forms of the one-value aggregates,
 * for updating (changelog) aggregation.
 *
 * They keep every live non-NULL value: a value multiset (vmap) with counts,
 * plus an indexed binary heap over its distinct values whose top is the
 * answer - the smallest value (MIN), the largest (MAX), the value with the
 * oldest live occurrence (FIRST) or the newest (LAST). Each add, retract
 * and result costs O(log d) for d distinct values.
 *
 * FIRST/LAST also remember the order of occurrences: each add gets a
 * sequence number, and every distinct value keeps its occurrences oldest
 * first in a linked list drawn from a per-accumulator pool. A retraction
 * removes the value's oldest live occurrence (as Flink does: a changelog
 * says which value goes, not which copy). merge(acc, other) orders every
 * row of other after those of acc.
 */
#include <stdlib.h>

#include "agg/agg_internal.h"

#define NONE UINT32_MAX

typedef enum rmode { R_MIN, R_MAX, R_FIRST, R_LAST } rmode;

typedef struct occ {
    uint64_t seq;
    uint32_t next; /* next newer occurrence of the same value, or free-list link */
    uint32_t pad;
} occ;

typedef struct rstate {
    vmap m;
    uint32_t *heap; /* entry numbers; e[heap[i]].hpos == i */
    uint32_t hn, hcap;
    occ *occ; /* FIRST/LAST only */
    uint32_t on, ocap, olive, ofree;
    uint64_t next_seq;
} rstate;

typedef struct r_acc {
    int64_t rows;
    int64_t n; /* non-NULL rows = live occurrences */
    rstate *st;
} r_acc;

static rmode mode_of(const weir_agg *a)
{
    const weir_agg_class *c = a->cls;
    return c == &weir__agg_min_retract   ? R_MIN
           : c == &weir__agg_max_retract ? R_MAX
           : c == &weir__agg_first_retract ? R_FIRST
                                           : R_LAST;
}

static size_t r_size(const weir_agg *a) { return sizeof(r_acc); }
static void r_init(const weir_agg *a, void *acc) { memset(acc, 0, sizeof(r_acc)); }

static void r_destroy(const weir_agg *a, void *acc)
{
    r_acc *r = acc;
    if (r->st) {
        weir__vmap_fini(&r->st->m);
        weir_free(r->st->heap);
        weir_free(r->st->occ);
        weir_free(r->st);
    }
    memset(r, 0, sizeof *r);
}

static int ensure_state(const weir_agg *a, r_acc *r)
{
    if (r->st)
        return 0;
    rstate *st = weir_calloc(1, sizeof *st);
    if (!st)
        return WEIR_ENOMEM;
    weir__vmap_init(&st->m, weir__agg_vkind(a->input_type.id));
    st->ofree = NONE;
    r->st = st;
    return 0;
}

/* ---- the heap ---- */

/* Should entry x sit above entry y? */
static bool above(const rstate *st, rmode md, uint32_t x, uint32_t y)
{
    const vent *e = st->m.e;
    switch (md) {
    case R_MIN:
    case R_MAX: {
        aggv a, b;
        vmap_key(&st->m, x, &a);
        vmap_key(&st->m, y, &b);
        int c = weir__agg_cmp(st->m.kind, &a, &b);
        return md == R_MIN ? c < 0 : c > 0;
    }
    case R_FIRST:
        return st->occ[e[x].head].seq < st->occ[e[y].head].seq;
    default:
        return st->occ[e[x].tail].seq > st->occ[e[y].tail].seq;
    }
}

static void heap_set(rstate *st, uint32_t pos, uint32_t idx)
{
    st->heap[pos] = idx;
    st->m.e[idx].hpos = pos;
}

static void sift_up(rstate *st, rmode md, uint32_t pos)
{
    uint32_t x = st->heap[pos];
    while (pos > 0) {
        uint32_t parent = (pos - 1) / 2;
        if (!above(st, md, x, st->heap[parent]))
            break;
        heap_set(st, pos, st->heap[parent]);
        pos = parent;
    }
    heap_set(st, pos, x);
}

static void sift_down(rstate *st, rmode md, uint32_t pos)
{
    uint32_t x = st->heap[pos];
    for (;;) {
        uint32_t c = 2 * pos + 1;
        if (c >= st->hn)
            break;
        if (c + 1 < st->hn && above(st, md, st->heap[c + 1], st->heap[c]))
            c++;
        if (!above(st, md, st->heap[c], x))
            break;
        heap_set(st, pos, st->heap[c]);
        pos = c;
    }
    heap_set(st, pos, x);
}

static void heap_push(rstate *st, rmode md, uint32_t idx)
{
    st->heap[st->hn] = idx;
    st->m.e[idx].hpos = st->hn;
    sift_up(st, md, st->hn++);
}

static void heap_remove(rstate *st, rmode md, uint32_t pos)
{
    uint32_t last = st->heap[--st->hn];
    if (pos == st->hn)
        return;
    heap_set(st, pos, last);
    sift_up(st, md, pos);
    sift_down(st, md, st->m.e[last].hpos);
}

static void heapify(rstate *st, rmode md)
{
    st->hn = st->m.n;
    for (uint32_t i = 0; i < st->hn; i++)
        heap_set(st, i, i);
    for (uint32_t i = st->hn / 2; i-- > 0;)
        sift_down(st, md, i);
}

/* ---- reservation: everything an operation may need, before it changes anything ---- */

static int reserve(rstate *st, rmode md, uint32_t values, size_t bytes, uint32_t occs)
{
    int rc = weir__vmap_reserve(&st->m, values, bytes);
    if (rc)
        return rc;
    uint32_t want = st->m.n + values;
    if (want > st->hcap) {
        uint32_t cap = st->hcap ? st->hcap : 8;
        while (cap < want)
            cap = cap > UINT32_MAX / 2 ? want : cap * 2;
        uint32_t *h = weir_realloc(st->heap, (size_t)cap * sizeof *h);
        if (!h)
            return WEIR_ENOMEM;
        st->heap = h;
        st->hcap = cap;
    }
    if ((md == R_FIRST || md == R_LAST) && st->ocap - st->olive < occs) {
        if (occs > NONE - 1 - st->olive)
            return WEIR_ENOMEM;
        uint32_t cap = st->ocap ? st->ocap : 8;
        while (cap - st->olive < occs)
            cap = cap > UINT32_MAX / 2 ? st->olive + occs : cap * 2;
        occ *o = weir_realloc(st->occ, (size_t)cap * sizeof *o);
        if (!o)
            return WEIR_ENOMEM;
        st->occ = o;
        st->ocap = cap;
    }
    return 0;
}

static uint32_t occ_alloc(rstate *st, uint64_t seq)
{
    uint32_t o;
    if (st->ofree != NONE) {
        o = st->ofree;
        st->ofree = st->occ[o].next;
    } else {
        o = st->on++;
    }
    st->occ[o].seq = seq;
    st->occ[o].next = NONE;
    st->olive++;
    return o;
}

static void occ_free(rstate *st, uint32_t o)
{
    st->occ[o].next = st->ofree;
    st->ofree = o;
    st->olive--;
}

/* Appends an occurrence with sequence seq to entry idx (newest). */
static void occ_append(rstate *st, uint32_t idx, uint64_t seq)
{
    uint32_t o = occ_alloc(st, seq);
    vent *e = &st->m.e[idx];
    if (e->count == 0)
        e->head = o;
    else
        st->occ[e->tail].next = o;
    e->tail = o;
}

/* ---- add / retract / merge ---- */

static int r_add(const weir_agg *a, void *acc, const weir_batch *b, uint32_t row)
{
    r_acc *r = acc;
    if (!aggv_valid(b, a->input_col, row)) {
        r->rows++;
        return 0;
    }
    rmode md = mode_of(a);
    int rc = ensure_state(a, r);
    if (rc)
        return rc;
    rstate *st = r->st;
    aggv v;
    aggv_get(st->m.kind, b, a->input_col, row, &v);
    uint64_t h = weir__agg_hash(st->m.kind, &v);
    int64_t i = weir__vmap_find(&st->m, &v, h);
    rc = reserve(st, md, i < 0 ? 1 : 0, i < 0 ? v.len : 0, 1);
    if (rc)
        return rc;
    bool fresh = i < 0;
    if (fresh)
        i = weir__vmap_insert(&st->m, &v, h);
    if (md == R_FIRST || md == R_LAST)
        occ_append(st, (uint32_t)i, st->next_seq++);
    st->m.e[i].count++;
    if (fresh)
        heap_push(st, md, (uint32_t)i);
    else if (md == R_LAST)
        sift_up(st, md, st->m.e[i].hpos); /* its newest occurrence is now the newest of all */
    r->rows++;
    r->n++;
    return 0;
}

static int r_retract(const weir_agg *a, void *acc, const weir_batch *b, uint32_t row)
{
    r_acc *r = acc;
    if (!aggv_valid(b, a->input_col, row)) {
        if (r->rows - r->n == 0)
            return WEIR_ESTATE;
    } else {
        rstate *st = r->st;
        if (!st)
            return WEIR_ESTATE;
        rmode md = mode_of(a);
        aggv v;
        aggv_get(st->m.kind, b, a->input_col, row, &v);
        int64_t i = weir__vmap_find(&st->m, &v, weir__agg_hash(st->m.kind, &v));
        if (i < 0)
            return WEIR_ESTATE;
        vent *e = &st->m.e[i];
        if (md == R_FIRST || md == R_LAST) {
            uint32_t o = e->head;
            e->head = st->occ[o].next;
            occ_free(st, o);
        }
        if (--e->count == 0) {
            heap_remove(st, md, e->hpos);
            uint32_t moved = weir__vmap_remove(&st->m, (uint32_t)i);
            if (moved != UINT32_MAX)
                st->heap[st->m.e[i].hpos] = (uint32_t)i;
        } else if (md == R_FIRST) {
            sift_down(st, md, e->hpos); /* its oldest occurrence got younger */
        }
        r->n--;
    }
    if (--r->rows == 0)
        r_destroy(a, acc);
    return 0;
}

static int r_merge(const weir_agg *a, void *acc, const void *other)
{
    r_acc *r = acc;
    const r_acc *o = other;
    const rstate *os = o->st;
    if (os && os->m.n) {
        rmode md = mode_of(a);
        int rc = ensure_state(a, r);
        if (!rc)
            rc = reserve(r->st, md, os->m.n, os->m.alen, (uint32_t)o->n);
        if (rc)
            return rc;
        rstate *st = r->st;
        uint64_t offset = st->next_seq;
        for (uint32_t j = 0; j < os->m.n; j++) {
            const vent *oe = &os->m.e[j];
            aggv v;
            vmap_key(&os->m, j, &v);
            int64_t i = weir__vmap_find(&st->m, &v, oe->hash);
            if (i < 0)
                i = weir__vmap_insert(&st->m, &v, oe->hash);
            if (md == R_FIRST || md == R_LAST) {
                /* Other's occurrences keep their order, after all of ours. */
                for (uint32_t x = oe->head, k = 0; k < oe->count; x = os->occ[x].next, k++) {
                    occ_append(st, (uint32_t)i, offset + os->occ[x].seq);
                    st->m.e[i].count++;
                }
            } else {
                st->m.e[i].count += oe->count;
            }
        }
        st->next_seq += os->next_seq;
        heapify(st, md);
    }
    r->rows += o->rows;
    r->n += o->n;
    return 0;
}

static int r_result(const weir_agg *a, const void *acc, weir_batch *out, uint32_t col, uint32_t row)
{
    const r_acc *r = acc;
    int rc = weir__agg_check_out(a, out, col, row);
    if (rc)
        return rc;
    if (!r->st || r->st->hn == 0)
        return weir__agg_put_null(out, col, row);
    aggv v;
    vmap_key(&r->st->m, r->st->heap[0], &v);
    return weir__agg_put_value_out(out, col, row, r->st->m.kind, &v);
}

/* ---- serialisation ---- */

static uint8_t fc_of(rmode md)
{
    static const uint8_t fc[] = {FC_MIN_RETRACT, FC_MAX_RETRACT, FC_FIRST_RETRACT, FC_LAST_RETRACT};
    return fc[md];
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

/* Rank of seq among the sorted live sequence numbers. */
static uint64_t rank_of(const uint64_t *sorted, uint64_t n, uint64_t seq)
{
    uint64_t lo = 0, hi = n;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (sorted[mid] < seq)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/*
 * FIRST/LAST state in canonical form: the distinct values in ascending
 * order, each with its count and the ranks (0 .. n-1, by arrival) of its
 * occurrences, ascending and delta-coded. Renumbering by rank makes equal
 * states serialise equally whatever their history.
 */
static int put_ordered(weir_buf *out, const rstate *st, int64_t n)
{
    uint32_t *ix = NULL;
    uint64_t *seqs = weir_malloc(((size_t)n + 1) * sizeof *seqs);
    int rc = seqs ? weir__vmap_sorted(&st->m, &ix) : WEIR_ENOMEM;
    if (rc)
        goto done;
    uint64_t k = 0;
    for (uint32_t i = 0; i < st->m.n; i++)
        for (uint32_t x = st->m.e[i].head, c = 0; c < st->m.e[i].count; x = st->occ[x].next, c++)
            seqs[k++] = st->occ[x].seq;
    qsort(seqs, k, sizeof *seqs, cmp_u64);
    rc = weir_buf_put_varint(out, st->m.n);
    for (uint32_t i = 0; i < st->m.n && !rc; i++) {
        const vent *e = &st->m.e[ix[i]];
        aggv v;
        vmap_key(&st->m, ix[i], &v);
        rc = weir__agg_put_value(out, st->m.kind, &v);
        if (!rc)
            rc = weir_buf_put_varint(out, (uint64_t)e->count);
        uint64_t prev = 0;
        for (uint32_t x = e->head, c = 0; c < e->count && !rc; x = st->occ[x].next, c++) {
            uint64_t rk = rank_of(seqs, k, st->occ[x].seq);
            rc = weir_buf_put_varint(out, c == 0 ? rk : rk - prev - 1);
            prev = rk;
        }
    }
done:
    weir_free(ix);
    weir_free(seqs);
    return rc;
}

static int get_ordered(weir_cursor *in, const weir_agg *a, r_acc *r, rmode md, int64_t n)
{
    rstate *st = r->st;
    uint64_t nd;
    if (weir_cursor_get_varint(in, &nd) || nd > (uint64_t)n)
        return WEIR_ECORRUPT;
    uint8_t *seen = weir_calloc((size_t)n / 8 + 1, 1);
    if (!seen)
        return WEIR_ENOMEM;
    int rc = 0;
    int64_t total = 0;
    aggv prev = {0};
    for (uint64_t i = 0; i < nd && !rc; i++) {
        aggv v;
        uint64_t c;
        if (weir__agg_get_value(in, st->m.kind, &v) || weir_cursor_get_varint(in, &c) || c == 0 ||
            c > (uint64_t)(n - total) || (i > 0 && weir__agg_cmp(st->m.kind, &prev, &v) >= 0)) {
            rc = WEIR_ECORRUPT;
            break;
        }
        rc = reserve(st, md, 1, v.len, (uint32_t)c);
        if (rc)
            break;
        uint32_t idx = weir__vmap_insert(&st->m, &v, weir__agg_hash(st->m.kind, &v));
        uint64_t rk = 0;
        for (uint64_t j = 0; j < c; j++) {
            uint64_t d;
            if (weir_cursor_get_varint(in, &d) || d >= (uint64_t)n || (j > 0 && d >= (uint64_t)n - rk - 1)) {
                rc = WEIR_ECORRUPT;
                break;
            }
            rk = j == 0 ? d : rk + d + 1;
            if (seen[rk / 8] & (1u << (rk % 8))) {
                rc = WEIR_ECORRUPT;
                break;
            }
            seen[rk / 8] |= (uint8_t)(1u << (rk % 8));
            occ_append(st, idx, rk);
            st->m.e[idx].count++;
        }
        total += (int64_t)c;
        prev = v;
    }
    if (!rc && total != n)
        rc = WEIR_ECORRUPT;
    weir_free(seen);
    st->next_seq = (uint64_t)n;
    return rc;
}

static int r_serialize(const weir_agg *a, const void *acc, weir_buf *out)
{
    const r_acc *r = acc;
    rmode md = mode_of(a);
    int rc = weir__agg_put_header(out, fc_of(md), weir__agg_vkind(a->input_type.id), r->rows);
    if (!rc)
        rc = weir_buf_put_varint(out, (uint64_t)r->n);
    if (rc)
        return rc;
    if (!r->st || r->n == 0)
        return weir_buf_put_varint(out, 0);
    if (md == R_MIN || md == R_MAX)
        return weir__vmap_put_counts(out, &r->st->m);
    return put_ordered(out, r->st, r->n);
}

static int r_deserialize(const weir_agg *a, void *acc, weir_cursor *in)
{
    r_acc *r = acc;
    rmode md = mode_of(a);
    int64_t rows, total;
    uint64_t n;
    r_init(a, acc);
    if (weir__agg_get_header(in, fc_of(md), weir__agg_vkind(a->input_type.id), &rows) ||
        weir_cursor_get_varint(in, &n) || n > (uint64_t)rows || n >= NONE)
        return WEIR_ECORRUPT;
    int rc = ensure_state(a, r);
    if (!rc) {
        if (md == R_MIN || md == R_MAX) {
            rc = weir__vmap_get_counts(in, &r->st->m, (int64_t)n, &total);
            if (!rc && total != (int64_t)n)
                rc = WEIR_ECORRUPT;
            if (!rc)
                rc = reserve(r->st, md, 0, 0, 0);
        } else {
            rc = get_ordered(in, a, r, md, (int64_t)n);
        }
    }
    if (rc) {
        r_destroy(a, acc);
        return rc;
    }
    heapify(r->st, md);
    r->rows = rows;
    r->n = (int64_t)n;
    return 0;
}

#define R_CLASS(cname, fname)                                                                               \
    const weir_agg_class cname = {                                                                          \
        .name = fname,                                                                                      \
        .acc_size = r_size,                                                                                 \
        .init = r_init,                                                                                     \
        .add = r_add,                                                                                       \
        .retract = r_retract,                                                                               \
        .merge = r_merge,                                                                                   \
        .result = r_result,                                                                                 \
        .serialize = r_serialize,                                                                           \
        .deserialize = r_deserialize,                                                                       \
        .destroy = r_destroy,                                                                               \
        .is_empty = weir__agg_rows_empty,                                                                   \
    }

R_CLASS(weir__agg_min_retract, "MIN_RETRACT");
R_CLASS(weir__agg_max_retract, "MAX_RETRACT");
R_CLASS(weir__agg_first_retract, "FIRST_VALUE_RETRACT");
R_CLASS(weir__agg_last_retract, "LAST_VALUE_RETRACT");
