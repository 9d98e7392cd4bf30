/*
 * agg/agg_retract.c - MIN_RETRACT, MAX_RETRACT, FIRST_VALUE_RETRACT and
 * LAST_VALUE_RETRACT: the retractable forms of the one-value aggregates,
 * for updating (changelog) aggregation.
 *
 * They keep every live non-NULL value in a value multiset (vmap) with
 * counts.
 * - MIN/MAX add an indexed binary heap over the distinct values whose top
 *   is the answer: O(1) to add a value already held, O(log d) for a new
 *   distinct value or one whose last copy goes.
 * - FIRST/LAST keep every live occurrence in arrival order in a doubly
 *   linked list (the answer is its head or tail), and each distinct value
 *   threads its own occurrences oldest first through the same nodes. A
 *   retraction removes the value's oldest live occurrence (as Flink does: a
 *   changelog says which value goes, not which copy). Everything is O(1)
 *   beyond the hash lookup. merge(acc, other) orders every row of other
 *   after those of acc.
 * Occurrence nodes come from a per-accumulator pool with a free list, so
 * steady churn allocates nothing.
 */
#include <stdlib.h>

#include "agg/agg_internal.h"

#define NONE UINT32_MAX

typedef enum rmode { R_MIN, R_MAX, R_FIRST, R_LAST } rmode;

typedef struct occ {
    uint32_t entry;     /* the value's vmap entry */
    uint32_t next_same; /* next newer occurrence of the value; free-list link */
    uint32_t prev, next; /* neighbours in arrival order */
} occ;

typedef struct rstate {
    vmap m;
    /* MIN/MAX: entry numbers; e[heap[i]].hpos == i. */
    uint32_t *heap;
    uint32_t hn, hcap;
    /* FIRST/LAST: the occurrence pool and the arrival-order list. */
    occ *occ;
    uint32_t on, ocap, olive, ofree;
    uint32_t oldest, newest;
} rstate;

typedef struct r_acc {
    int64_t rows;
    int64_t n; /* non-NULL rows = live occurrences */
    rstate *st;
} r_acc;

static rmode mode_of(const weir_agg *a)
{
    const weir_agg_class *c = a->cls;
    return c == &weir__agg_min_retract     ? R_MIN
           : c == &weir__agg_max_retract   ? R_MAX
           : c == &weir__agg_first_retract ? R_FIRST
                                           : R_LAST;
}

static bool ordered(rmode md)
{
    return md == R_FIRST || md == R_LAST;
}

static size_t r_size(const weir_agg *a)
{
    return sizeof(r_acc);
}
static void r_init(const weir_agg *a, void *acc)
{
    memset(acc, 0, sizeof(r_acc));
}

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
    weir__vmap_init(&st->m, weir__agg_vkind(a->input_type));
    st->ofree = st->oldest = st->newest = NONE;
    r->st = st;
    return 0;
}

/* ---- the MIN/MAX heap ---- */

/* Should entry x sit above entry y? */
static bool above(const rstate *st, rmode md, uint32_t x, uint32_t y)
{
    aggv a, b;
    vmap_key(&st->m, x, &a);
    vmap_key(&st->m, y, &b);
    int c = weir__agg_cmp(st->m.kind, &a, &b);
    return md == R_MIN ? c < 0 : c > 0;
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

/* Rebuilds the heap over every live entry. */
static void heapify(rstate *st, rmode md)
{
    st->hn = 0;
    for (uint32_t i = 0; i < st->m.top; i++)
        if (vmap_live(&st->m, i))
            heap_set(st, st->hn++, i);
    for (uint32_t i = st->hn / 2; i-- > 0;)
        sift_down(st, md, i);
}

/* ---- reservation: what an operation needs, before anything changes ---- */

static int reserve(rstate *st, rmode md, uint32_t values, size_t bytes,
                   uint32_t occs)
{
    int rc = weir__vmap_reserve(&st->m, values, bytes);
    if (rc)
        return rc;
    if (!ordered(md)) {
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
    } else if (st->ocap - st->olive < occs) {
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

/* Appends an occurrence of entry idx as the newest of all (room reserved). */
static uint32_t occ_append(rstate *st, uint32_t idx)
{
    uint32_t o;
    if (st->ofree != NONE) {
        o = st->ofree;
        st->ofree = st->occ[o].next_same;
    } else {
        o = st->on++;
    }
    st->olive++;
    occ *x = &st->occ[o];
    x->entry = idx;
    x->next_same = NONE;
    x->prev = st->newest;
    x->next = NONE;
    if (st->newest != NONE)
        st->occ[st->newest].next = o;
    else
        st->oldest = o;
    st->newest = o;
    vent *e = &st->m.e[idx];
    if (e->count == 0)
        e->head = o;
    else
        st->occ[e->tail].next_same = o;
    e->tail = o;
    e->count++;
    return o;
}

/* Removes entry idx's oldest occurrence from both lists. */
static void occ_pop_oldest(rstate *st, uint32_t idx)
{
    vent *e = &st->m.e[idx];
    uint32_t o = e->head;
    occ *x = &st->occ[o];
    e->head = x->next_same;
    if (x->prev != NONE)
        st->occ[x->prev].next = x->next;
    else
        st->oldest = x->next;
    if (x->next != NONE)
        st->occ[x->next].prev = x->prev;
    else
        st->newest = x->prev;
    x->next_same = st->ofree;
    st->ofree = o;
    st->olive--;
    e->count--;
}

/* ---- add / retract / merge ---- */

static int r_add(const weir_agg *a, void *acc, const weir_batch *b,
                 uint32_t row)
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
    if (ordered(md)) {
        occ_append(st, (uint32_t)i);
    } else {
        st->m.e[i].count++;
        if (fresh)
            heap_push(st, md, (uint32_t)i);
    }
    r->rows++;
    r->n++;
    return 0;
}

static int r_retract(const weir_agg *a, void *acc, const weir_batch *b,
                     uint32_t row)
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
        if (ordered(md))
            occ_pop_oldest(st, (uint32_t)i);
        else
            st->m.e[i].count--;
        if (st->m.e[i].count == 0) {
            if (!ordered(md))
                heap_remove(st, md, st->m.e[i].hpos);
            weir__vmap_remove(&st->m, (uint32_t)i);
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
        uint32_t *map = NULL;
        int rc = ensure_state(a, r);
        if (!rc && ordered(md)) {
            /* other's entry number -> ours, filled as values are met */
            map = weir_malloc((size_t)os->m.top * sizeof *map);
            if (!map)
                rc = WEIR_ENOMEM;
        }
        if (!rc)
            rc = reserve(r->st, md, os->m.n, os->m.alen, (uint32_t)o->n);
        if (rc) {
            weir_free(map);
            return rc;
        }
        rstate *st = r->st;
        if (ordered(md)) {
            memset(map, 0xff, (size_t)os->m.top * sizeof *map);
            for (uint32_t x = os->oldest; x != NONE; x = os->occ[x].next) {
                uint32_t oe = os->occ[x].entry;
                if (map[oe] == NONE) {
                    aggv v;
                    vmap_key(&os->m, oe, &v);
                    int64_t i = weir__vmap_find(&st->m, &v, os->m.e[oe].hash);
                    map[oe] = i >= 0 ? (uint32_t)i
                                     : weir__vmap_insert(&st->m, &v,
                                                         os->m.e[oe].hash);
                }
                occ_append(st, map[oe]);
            }
            weir_free(map);
        } else {
            for (uint32_t j = 0; j < os->m.top; j++) {
                if (!vmap_live(&os->m, j))
                    continue;
                aggv v;
                vmap_key(&os->m, j, &v);
                int64_t i = weir__vmap_find(&st->m, &v, os->m.e[j].hash);
                if (i < 0) {
                    i = weir__vmap_insert(&st->m, &v, os->m.e[j].hash);
                    heap_push(st, md, (uint32_t)i);
                }
                st->m.e[i].count += os->m.e[j].count;
            }
        }
    }
    r->rows += o->rows;
    r->n += o->n;
    return 0;
}

static int r_result(const weir_agg *a, const void *acc, weir_batch *out,
                    uint32_t col, uint32_t row)
{
    const r_acc *r = acc;
    int rc = weir__agg_check_out(a, out, col, row);
    if (rc)
        return rc;
    const rstate *st = r->st;
    if (!st || st->m.n == 0)
        return weir__agg_put_null(out, col, row);
    rmode md = mode_of(a);
    uint32_t idx = md == R_FIRST  ? st->occ[st->oldest].entry
                   : md == R_LAST ? st->occ[st->newest].entry
                                  : st->heap[0];
    aggv v;
    vmap_key(&st->m, idx, &v);
    return weir__agg_put_value_out(out, col, row, st->m.kind, &v);
}

/* ---- serialisation ---- */

static uint8_t fc_of(rmode md)
{
    static const uint8_t fc[] = {FC_MIN_RETRACT, FC_MAX_RETRACT,
                                 FC_FIRST_RETRACT, FC_LAST_RETRACT};
    return fc[md];
}

/*
 * FIRST/LAST state in canonical form: the distinct values in ascending
 * order, each with its count and the arrival ranks (0 .. n-1) of its
 * occurrences, ascending and delta-coded. Ranks rather than any internal
 * numbering make equal states serialise equally whatever their history.
 */
static int put_ordered(weir_buf *out, const rstate *st)
{
    uint32_t *ix = NULL;
    uint32_t *rank = weir_malloc(((size_t)st->on + 1) * sizeof *rank);
    int rc = rank ? weir__vmap_sorted(&st->m, &ix) : WEIR_ENOMEM;
    if (rc)
        goto done;
    uint32_t k = 0;
    for (uint32_t x = st->oldest; x != NONE; x = st->occ[x].next)
        rank[x] = k++;
    rc = weir_buf_put_varint(out, st->m.n);
    for (uint32_t i = 0; i < st->m.n && !rc; i++) {
        const vent *e = &st->m.e[ix[i]];
        aggv v;
        vmap_key(&st->m, ix[i], &v);
        rc = weir__agg_put_value(out, st->m.kind, &v);
        if (!rc)
            rc = weir_buf_put_varint(out, (uint64_t)e->count);
        uint32_t prev = 0;
        for (uint32_t x = e->head; x != NONE && !rc; x = st->occ[x].next_same) {
            rc = weir_buf_put_varint(out, x == e->head ? rank[x]
                                                       : rank[x] - prev - 1);
            prev = rank[x];
        }
    }
done:
    weir_free(ix);
    weir_free(rank);
    return rc;
}

static int get_ordered(weir_cursor *in, rstate *st, rmode md, int64_t n)
{
    uint64_t nd;
    if (weir_cursor_get_varint(in, &nd) || nd > (uint64_t)n)
        return WEIR_ECORRUPT;
    /* Each value's occurrences are read in rank order; the arrival list
     * is linked by rank once all are known. */
    uint32_t *byrank = weir_malloc(((size_t)n + 1) * sizeof *byrank);
    if (!byrank)
        return WEIR_ENOMEM;
    memset(byrank, 0xff, ((size_t)n + 1) * sizeof *byrank);
    int rc = 0;
    int64_t total = 0;
    aggv prev = {0};
    for (uint64_t i = 0; i < nd && !rc; i++) {
        aggv v;
        uint64_t c;
        if (weir__agg_get_value(in, st->m.kind, &v) ||
            weir_cursor_get_varint(in, &c) || c == 0 ||
            c > (uint64_t)(n - total) ||
            (i > 0 && weir__agg_cmp(st->m.kind, &prev, &v) >= 0)) {
            rc = WEIR_ECORRUPT;
            break;
        }
        rc = reserve(st, md, 1, v.len, (uint32_t)c);
        if (rc)
            break;
        uint32_t idx =
            weir__vmap_insert(&st->m, &v, weir__agg_hash(st->m.kind, &v));
        uint64_t rk = 0;
        for (uint64_t j = 0; j < c; j++) {
            uint64_t d;
            if (weir_cursor_get_varint(in, &d) || d >= (uint64_t)n ||
                (j > 0 && d >= (uint64_t)n - rk - 1)) {
                rc = WEIR_ECORRUPT;
                break;
            }
            rk = j == 0 ? d : rk + d + 1;
            if (byrank[rk] != NONE) {
                rc = WEIR_ECORRUPT;
                break;
            }
            /* Appended now, relinked by rank below. */
            byrank[rk] = occ_append(st, idx);
        }
        total += (int64_t)c;
        prev = v;
    }
    if (!rc && total != n)
        rc = WEIR_ECORRUPT;
    if (!rc) {
        st->oldest = st->newest = NONE;
        for (int64_t k = 0; k < n; k++) {
            uint32_t o = byrank[k];
            st->occ[o].prev = st->newest;
            st->occ[o].next = NONE;
            if (st->newest != NONE)
                st->occ[st->newest].next = o;
            else
                st->oldest = o;
            st->newest = o;
        }
    }
    weir_free(byrank);
    return rc;
}

static int r_serialize(const weir_agg *a, const void *acc, weir_buf *out)
{
    const r_acc *r = acc;
    rmode md = mode_of(a);
    int rc = weir__agg_put_header(out, fc_of(md),
                                  weir__agg_vkind(a->input_type), r->rows);
    if (!rc)
        rc = weir_buf_put_varint(out, (uint64_t)r->n);
    if (rc)
        return rc;
    if (!r->st || r->n == 0)
        return weir_buf_put_varint(out, 0);
    if (!ordered(md))
        return weir__vmap_put_counts(out, &r->st->m);
    return put_ordered(out, r->st);
}

static int r_deserialize(const weir_agg *a, void *acc, weir_cursor *in)
{
    r_acc *r = acc;
    rmode md = mode_of(a);
    int64_t rows, total;
    uint64_t n;
    r_init(a, acc);
    if (weir__agg_get_header(in, fc_of(md), weir__agg_vkind(a->input_type),
                             &rows) ||
        weir_cursor_get_varint(in, &n) || n > (uint64_t)rows || n >= NONE)
        return WEIR_ECORRUPT;
    int rc = ensure_state(a, r);
    if (!rc) {
        if (!ordered(md)) {
            rc = weir__vmap_get_counts(in, &r->st->m, (int64_t)n, &total);
            if (!rc && total != (int64_t)n)
                rc = WEIR_ECORRUPT;
            if (!rc)
                rc = reserve(r->st, md, 0, 0, 0);
            if (!rc)
                heapify(r->st, md);
        } else {
            rc = get_ordered(in, r->st, md, (int64_t)n);
        }
    }
    if (rc) {
        r_destroy(a, acc);
        return rc;
    }
    r->rows = rows;
    r->n = (int64_t)n;
    return 0;
}

#define R_CLASS(cname, fname)                                                  \
    const weir_agg_class cname = {                                             \
        .name = fname,                                                         \
        .acc_size = r_size,                                                    \
        .init = r_init,                                                        \
        .add = r_add,                                                          \
        .retract = r_retract,                                                  \
        .merge = r_merge,                                                      \
        .result = r_result,                                                    \
        .serialize = r_serialize,                                              \
        .deserialize = r_deserialize,                                          \
        .destroy = r_destroy,                                                  \
        .is_empty = weir__agg_rows_empty,                                      \
    }

R_CLASS(weir__agg_min_retract, "MIN_RETRACT");
R_CLASS(weir__agg_max_retract, "MAX_RETRACT");
R_CLASS(weir__agg_first_retract, "FIRST_VALUE_RETRACT");
R_CLASS(weir__agg_last_retract, "LAST_VALUE_RETRACT");
