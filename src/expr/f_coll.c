/*
 * expr/f_coll.c - the collection functions of Flink's list that build or
 * take apart ARRAY and MAP values: ARRAY_APPEND, ARRAY_PREPEND,
 * ARRAY_CONCAT, ARRAY_POSITION, ARRAY_REMOVE, ARRAY_REVERSE, ARRAY_SLICE,
 * ARRAY_SORT, ARRAY_UNION, ARRAY_INTERSECT, ARRAY_EXCEPT, ARRAY_MAX,
 * ARRAY_MIN, ARRAY_JOIN, SPLIT, MAP_ENTRIES, MAP_FROM_ARRAYS, MAP_UNION.
 *
 * Values are the encodings of record/nested.h. Two elements are equal when
 * their entries' bytes are (a NULL element equals a NULL element), as for
 * ARRAY_CONTAINS and GROUP BY keys. Elements are copied entry by entry, so
 * a result is canonical when its parts are; MAP results end with
 * weir_nv_map_canon (a key given again keeps its last value, which is how
 * MAP_UNION lets a later map win).
 *
 * NULL rules are Flink's: every function is NULL when one of its arguments
 * is, except that ARRAY_APPEND, ARRAY_PREPEND and ARRAY_REMOVE take a NULL
 * element as a value (they are NULL only for a NULL array).
 */
#include <math.h>
#include <stdio.h>

#include "expr/expr_internal.h"
#include "record/nested.h"

enum {
    C_APPEND,
    C_PREPEND,
    C_CONCAT,
    C_POSITION,
    C_REMOVE,
    C_REVERSE,
    C_SLICE,
    C_SORT,
    C_UNION,
    C_INTERSECT,
    C_EXCEPT,
    C_MAX,
    C_MIN,
    C_JOIN,
    C_SPLIT,
    C_ENTRIES,
    C_FROM_ARRAYS,
    C_MAP_UNION,
};

static int nomem(weir_error *err) { return weir_error_set(err, WEIR_ENOMEM, "out of memory"); }

/* One entry of a value being taken apart: its encoded bytes (flag included)
 * and, for a non-NULL entry, its value bytes. */
typedef struct ent {
    const uint8_t *p;
    uint32_t len;
    bool null;
    const uint8_t *v;
    uint32_t vl;
} ent;

/* Reads the entries of row i of v (an ARRAY, or a MAP's key/value pairs as
 * 2 * count entries) into scratch memory; *out NULL only when out of memory
 * with entries to read. Returns the number read. */
static uint32_t read_ents(ecx *cx, const xvec *v, uint32_t i, ent **out)
{
    const weir_nested_type *d = weir_type_nested(v->type);
    const xstr s = ((const xstr *)v->data)[i];
    weir_nv_iter it;
    uint32_t cnt = weir_nv_open(v->type, s.ptr, s.len, &it);
    bool map = d->kind != WEIR_TYPE_ARRAY;
    uint32_t want = map ? 2 * cnt : cnt;
    *out = want ? weir__x_alloc(cx, (size_t)want * sizeof **out) : NULL;
    if (want && !*out)
        return 0;
    uint32_t k = 0;
    for (; k < want; k++) {
        ent *e = &(*out)[k];
        e->p = it.p;
        if (!weir_nv_next(&it, d->elems[map ? k % 2 : 0], &e->null, &e->v, &e->vl))
            break;
        e->len = (uint32_t)(it.p - e->p);
    }
    return map ? k / 2 * 2 : k;
}

static inline bool ent_eq(const ent *a, const ent *b)
{
    return a->len == b->len && !memcmp(a->p, b->p, a->len);
}

static inline bool null_at(const xvec *v, uint32_t i) { return v->nulls && v->nulls[i]; }

/* ---- ordering (ARRAY_SORT, ARRAY_MAX, ARRAY_MIN) ---- */

static bool orderable(weir_type t)
{
    switch (t.id) {
    case WEIR_TYPE_BOOLEAN:
    case WEIR_TYPE_INT:
    case WEIR_TYPE_BIGINT:
    case WEIR_TYPE_DOUBLE:
    case WEIR_TYPE_DECIMAL:
    case WEIR_TYPE_STRING:
    case WEIR_TYPE_BYTES:
    case WEIR_TYPE_TIMESTAMP:
    case WEIR_TYPE_TIMESTAMP_LTZ:
    case WEIR_TYPE_DATE:
    case WEIR_TYPE_TIME: return true;
    default: return false;
    }
}

static int64_t rd_int(const uint8_t *p, uint32_t w)
{
    if (w == 1)
        return p[0];
    if (w == 4) {
        int32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    int64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* Compares two non-NULL values of type t. DOUBLE in a total order (as
 * Java's Double.compare: -0.0 before 0.0, NaN after everything); strings
 * and bytes bytewise, a prefix first. */
static int val_cmp(weir_type t, const ent *a, const ent *b)
{
    switch (t.id) {
    case WEIR_TYPE_DOUBLE: {
        double x, y;
        memcpy(&x, a->v, 8);
        memcpy(&y, b->v, 8);
        if (x < y)
            return -1;
        if (x > y)
            return 1;
        /* equal or NaN: by the bits, every NaN as one */
        int64_t bx = isnan(x) ? INT64_C(0x7ff8000000000000) : rd_int(a->v, 8);
        int64_t by = isnan(y) ? INT64_C(0x7ff8000000000000) : rd_int(b->v, 8);
        return (bx > by) - (bx < by);
    }
    case WEIR_TYPE_STRING:
    case WEIR_TYPE_BYTES: {
        uint32_t n = a->vl < b->vl ? a->vl : b->vl;
        int c = n ? memcmp(a->v, b->v, n) : 0;
        return c ? (c < 0 ? -1 : 1) : (a->vl > b->vl) - (a->vl < b->vl);
    }
    case WEIR_TYPE_DECIMAL:
        if (weir_type_is_wide(t)) {
            weir_i128 x, y;
            memcpy(&x, a->v, 16);
            memcpy(&y, b->v, 16);
            return (x > y) - (x < y);
        }
        /* fall through */
    default: {
        int64_t x = rd_int(a->v, a->vl), y = rd_int(b->v, b->vl);
        return (x > y) - (x < y);
    }
    }
}

/* Whether a > b as SQL's '>' says (IEEE for DOUBLE: nothing is greater
 * than NaN, NaN greater than nothing), for ARRAY_MAX / ARRAY_MIN. */
static bool val_gt(weir_type t, const ent *a, const ent *b)
{
    if (t.id == WEIR_TYPE_DOUBLE) {
        double x, y;
        memcpy(&x, a->v, 8);
        memcpy(&y, b->v, 8);
        return x > y;
    }
    return val_cmp(t, a, b) > 0;
}

/* A merge sort of entries (stable, no allocation beyond tmp). */
typedef struct sort_ord {
    weir_type t;
    bool asc, nulls_first;
} sort_ord;

static int ord_cmp(const sort_ord *o, const ent *a, const ent *b)
{
    if (a->null || b->null) {
        if (a->null && b->null)
            return 0;
        return (a->null ? -1 : 1) * (o->nulls_first ? 1 : -1);
    }
    int c = val_cmp(o->t, a, b);
    return o->asc ? c : -c;
}

static void msort(const sort_ord *o, ent *x, ent *tmp, uint32_t n)
{
    if (n < 2)
        return;
    uint32_t h = n / 2;
    msort(o, x, tmp, h);
    msort(o, x + h, tmp, n - h);
    uint32_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = ord_cmp(o, &x[j], &x[i]) < 0 ? x[j++] : x[i++];
    while (i < h)
        tmp[k++] = x[i++];
    while (j < n)
        tmp[k++] = x[j++];
    memcpy(x, tmp, (size_t)n * sizeof *x);
}

/* ---- results ---- */

/* Appends an entry to an ARRAY being built in b (its count patched by the caller). */
static int put_ent(weir_buf *b, const ent *e) { return weir_buf_put(b, e->p, e->len); }

/* An entry for row i of v (a scalar argument: the element of APPEND, ...). */
static int put_arg(weir_buf *b, const xvec *v, uint32_t i)
{
    if (null_at(v, i))
        return weir_nv_put_null(b);
    if (weir_type_is_varlen(v->type.id)) {
        xstr s = ((const xstr *)v->data)[i];
        return weir_nv_put(b, v->type, s.ptr, s.len);
    }
    uint32_t w = (uint32_t)weir_type_size(v->type);
    return weir_nv_put(b, v->type, (const uint8_t *)v->data + (size_t)i * w, w);
}

/* The entry an argument value would be: for comparing it with elements. */
static int arg_ent(ecx *cx, const xvec *v, uint32_t i, ent *e)
{
    weir_buf b;
    weir_buf_init(&b);
    int rc = put_arg(&b, v, i);
    uint8_t *p = rc ? NULL : weir__x_alloc(cx, b.len);
    if (p)
        memcpy(p, b.data, b.len);
    *e = (ent){p, (uint32_t)b.len, null_at(v, i), p ? p + 1 + (weir_type_is_varlen(v->type.id) ? 4 : 0) : NULL,
               0};
    weir_buf_fini(&b);
    return p ? 0 : weir_error_set(cx->err, WEIR_ENOMEM, "out of memory");
}

/* Whether e is among x[0..n). */
static bool ent_in(const ent *e, const ent *x, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++)
        if (ent_eq(e, &x[k]))
            return true;
    return false;
}

/* ---- the kernel ---- */

/* Builds row i's ARRAY result in b; returns 0, or an error code. */
static int array_row(ecx *cx, const weir_expr *e, const xvec *a, uint32_t i, weir_buf *b)
{
    ent *x = NULL, *y = NULL;
    uint32_t nx = read_ents(cx, &a[0], i, &x), m = 0;
    if (nx && !x)
        return WEIR_ENOMEM;
    int rc = weir_nv_put_count(b, 0);
    switch (e->p0) {
    case C_APPEND:
    case C_PREPEND:
        if (e->p0 == C_PREPEND)
            rc = rc ? rc : put_arg(b, &a[1], i);
        for (uint32_t k = 0; k < nx && !rc; k++)
            rc = put_ent(b, &x[k]);
        if (e->p0 == C_APPEND)
            rc = rc ? rc : put_arg(b, &a[1], i);
        m = nx + 1;
        break;
    case C_CONCAT:
    case C_MAP_UNION:
        /* every argument's entries in order (MAP_UNION: canonical form below
         * keeps the last value of a key) */
        for (uint32_t j = 0; j < e->n_args && !rc; j++) {
            uint32_t nj = j ? read_ents(cx, &a[j], i, &y) : nx;
            const ent *ej = j ? y : x;
            if (nj && !ej)
                return WEIR_ENOMEM;
            for (uint32_t k = 0; k < nj && !rc; k++)
                rc = put_ent(b, &ej[k]);
            m += e->p0 == C_MAP_UNION ? nj / 2 : nj;
        }
        break;
    case C_REMOVE: {
        ent needle;
        if ((rc = rc ? rc : arg_ent(cx, &a[1], i, &needle)))
            return rc;
        for (uint32_t k = 0; k < nx && !rc; k++)
            if (!ent_eq(&x[k], &needle)) {
                rc = put_ent(b, &x[k]);
                m++;
            }
        break;
    }
    case C_REVERSE:
        for (uint32_t k = nx; k > 0 && !rc; k--)
            rc = put_ent(b, &x[k - 1]);
        m = nx;
        break;
    case C_SLICE: {
        /* offsets 1-based, negative from the end, 0 as 1; end inclusive,
         * default the last element (Flink's ARRAY_SLICE) */
        int64_t len = nx;
        int64_t s = ((const int32_t *)a[1].data)[i];
        int64_t t = e->n_args > 2 ? ((const int32_t *)a[2].data)[i] : len;
        if (len == 0)
            break;
        s += s < 0 ? len + 1 : 0;
        t += t < 0 ? len + 1 : 0;
        if (s < 1)
            s = 1;
        t = t == 0 ? 1 : t < len ? t : len;
        for (int64_t k = s; k <= t && !rc; k++, m++)
            rc = put_ent(b, &x[k - 1]);
        break;
    }
    case C_SORT: {
        sort_ord o = {weir_type_nested(a[0].type)->elems[0], true, true};
        if (e->n_args > 1)
            o.asc = o.nulls_first = ((const uint8_t *)a[1].data)[i] != 0;
        if (e->n_args > 2)
            o.nulls_first = ((const uint8_t *)a[2].data)[i] != 0;
        ent *tmp = nx ? weir__x_alloc(cx, (size_t)nx * sizeof *tmp) : NULL;
        if (nx && !tmp)
            return WEIR_ENOMEM;
        msort(&o, x, tmp, nx);
        for (uint32_t k = 0; k < nx && !rc; k++)
            rc = put_ent(b, &x[k]);
        m = nx;
        break;
    }
    case C_UNION:
    case C_INTERSECT:
    case C_EXCEPT: {
        /* distinct elements in first-occurrence order: of both arrays
         * (UNION), or of the first that are (INTERSECT) / are not (EXCEPT)
         * in the second */
        uint32_t ny = read_ents(cx, &a[1], i, &y);
        if (ny && !y)
            return WEIR_ENOMEM;
        ent *kept = nx + ny ? weir__x_alloc(cx, (size_t)(nx + ny) * sizeof *kept) : NULL;
        if (nx + ny && !kept)
            return WEIR_ENOMEM;
        for (uint32_t k = 0; k < nx + (e->p0 == C_UNION ? ny : 0) && !rc; k++) {
            const ent *c = k < nx ? &x[k] : &y[k - nx];
            if (ent_in(c, kept, m))
                continue;
            if (e->p0 == C_INTERSECT && !ent_in(c, y, ny))
                continue;
            if (e->p0 == C_EXCEPT && ent_in(c, y, ny))
                continue;
            kept[m++] = *c;
            rc = put_ent(b, c);
        }
        break;
    }
    case C_ENTRIES: {
        /* ARRAY<ROW<key, value>>: each pair as a ROW entry */
        for (uint32_t k = 0; k + 1 < nx && !rc; k += 2, m++) {
            size_t mark;
            rc = weir_nv_begin_nested(b, &mark);
            rc = rc ? rc : put_ent(b, &x[k]);
            rc = rc ? rc : put_ent(b, &x[k + 1]);
            if (!rc)
                weir_nv_end_nested(b, mark);
        }
        break;
    }
    case C_FROM_ARRAYS: {
        uint32_t ny = read_ents(cx, &a[1], i, &y);
        if (ny && !y)
            return WEIR_ENOMEM;
        if (nx != ny)
            return weir__x_fail(cx, i,
                                "MAP_FROM_ARRAYS: the keys array has %u elements and the values array %u: "
                                "they must have the same length",
                                nx, ny);
        for (uint32_t k = 0; k < nx && !rc; k++) {
            rc = put_ent(b, &x[k]);
            rc = rc ? rc : put_ent(b, &y[k]);
        }
        m = nx;
        break;
    }
    }
    if (rc)
        return rc;
    memcpy(b->data, &m, 4);
    if (e->p0 == C_FROM_ARRAYS || e->p0 == C_MAP_UNION)
        rc = weir_nv_map_canon(b, 0, e->type);
    return rc;
}

/* ARRAY_JOIN(arr, sep [, null_text]): the elements joined by sep; NULL
 * elements skipped, or written as null_text. */
static int join_row(ecx *cx, const weir_expr *e, const xvec *a, uint32_t i, xstr *res)
{
    ent *x = NULL;
    uint32_t nx = read_ents(cx, &a[0], i, &x);
    if (nx && !x)
        return WEIR_ENOMEM;
    xstr sep = ((const xstr *)a[1].data)[i];
    xstr nt = e->n_args > 2 ? ((const xstr *)a[2].data)[i] : (xstr){NULL, 0};
    bool has_nt = e->n_args > 2;
    size_t len = 0;
    uint32_t parts = 0;
    for (uint32_t k = 0; k < nx; k++)
        if (!x[k].null || has_nt) {
            len += (x[k].null ? nt.len : x[k].vl) + (parts ? sep.len : 0);
            parts++;
        }
    char *p = x_str(cx, len);
    if (!p)
        return WEIR_ENOMEM;
    size_t o = 0;
    parts = 0;
    for (uint32_t k = 0; k < nx; k++) {
        if (x[k].null && !has_nt)
            continue;
        if (parts++ && sep.len) {
            memcpy(p + o, sep.ptr, sep.len);
            o += sep.len;
        }
        const void *src = x[k].null ? (const void *)nt.ptr : (const void *)x[k].v;
        uint32_t sl = x[k].null ? nt.len : x[k].vl;
        if (sl)
            memcpy(p + o, src, sl);
        o += sl;
    }
    *res = (xstr){p, (uint32_t)len};
    return 0;
}

/* SPLIT(s, sep): the pieces of s between occurrences of sep, empty pieces
 * kept; an empty sep splits into characters; an empty s gives []. */
static int split_row(const xvec *a, uint32_t i, weir_buf *b)
{
    xstr s = ((const xstr *)a[0].data)[i], sep = ((const xstr *)a[1].data)[i];
    const weir_type st = tmake(WEIR_TYPE_STRING, false);
    uint32_t m = 0;
    int rc = weir_nv_put_count(b, 0);
    if (s.len == 0) {
    } else if (sep.len == 0) {
        for (uint32_t k = 0; k < s.len && !rc; m++) {
            uint32_t w = 1;
            while (k + w < s.len && ((unsigned char)s.ptr[k + w] & 0xC0) == 0x80)
                w++;
            rc = weir_nv_put(b, st, s.ptr + k, w);
            k += w;
        }
    } else {
        uint32_t from = 0;
        for (;;) {
            const char *hit = NULL;
            for (uint32_t k = from; k + sep.len <= s.len; k++)
                if (s.ptr[k] == sep.ptr[0] && !memcmp(s.ptr + k, sep.ptr, sep.len)) {
                    hit = s.ptr + k;
                    break;
                }
            uint32_t end = hit ? (uint32_t)(hit - s.ptr) : s.len;
            if ((rc = weir_nv_put(b, st, s.ptr + from, end - from)))
                break;
            m++;
            if (!hit)
                break;
            from = end + sep.len;
        }
    }
    if (!rc)
        memcpy(b->data, &m, 4);
    return rc;
}

static int coll_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    weir_buf b;
    weir_buf_init(&b);
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (!x_live(out, act, i))
            continue;
        /* the functions that take a NULL element as a value are NULL
         * only for a NULL array (the others are F_STRICT) */
        if (null_at(&a[0], i)) {
            x_setnull(cx, out, i);
            continue;
        }
        switch (e->p0) {
        case C_POSITION: {
            ent *x = NULL, needle;
            uint32_t nx = read_ents(cx, &a[0], i, &x), pos = 0;
            if ((nx && !x) || arg_ent(cx, &a[1], i, &needle)) {
                rc = WEIR_ENOMEM;
                break;
            }
            for (uint32_t k = 0; k < nx && !pos; k++)
                if (ent_eq(&x[k], &needle))
                    pos = k + 1;
            ((int32_t *)out->data)[i] = (int32_t)pos;
            break;
        }
        case C_MAX:
        case C_MIN: {
            ent *x = NULL;
            uint32_t nx = read_ents(cx, &a[0], i, &x);
            if (nx && !x) {
                rc = WEIR_ENOMEM;
                break;
            }
            weir_type et = weir_type_nested(a[0].type)->elems[0];
            const ent *best = NULL;
            for (uint32_t k = 0; k < nx; k++)
                if (!x[k].null &&
                    (!best || (e->p0 == C_MAX ? val_gt(et, &x[k], best) : val_gt(et, best, &x[k]))))
                    best = &x[k];
            if (!best) {
                x_setnull(cx, out, i);
            } else if (weir_type_is_varlen(out->type.id)) {
                ((xstr *)out->data)[i] = (xstr){(const char *)best->v, best->vl};
            } else {
                memcpy((uint8_t *)out->data + (size_t)i * best->vl, best->v, best->vl);
            }
            break;
        }
        case C_JOIN: rc = join_row(cx, e, a, i, &((xstr *)out->data)[i]); break;
        default:
            weir_buf_clear(&b);
            rc = e->p0 == C_SPLIT ? split_row(a, i, &b) : array_row(cx, e, a, i, &b);
            if (!rc)
                rc = weir__x_put_buf(cx, out, i, &b);
        }
    }
    weir_buf_fini(&b);
    if (rc == WEIR_ENOMEM)
        return weir_error_set(cx->err, WEIR_ENOMEM, "out of memory");
    return rc;
}

/* ---- binding ---- */

static const weir_nested_type *nested_of(const weir_expr *e, weir_type_id kind)
{
    const weir_nested_type *d = weir_type_nested(e->type);
    return d && d->kind == kind ? d : NULL;
}

/* Coerces args[k] (a NULL literal or a value) to type t; false if it cannot be. */
static bool coerce_to(weir_expr_arena *a, weir_expr **args, uint32_t k, weir_type t, weir_error *err)
{
    if (args[k]->iv != WEIR_INTERVAL_NONE || !weir__implicit_ok(args[k], t))
        return false;
    return weir__coerce(a, &args[k], t, err) == 0;
}

/* The arguments from..n must be collections of args[0]'s kind with the
 * same element types (nullability and ROW field names aside); a NULL
 * literal takes args[0]'s type. The result's elements are nullable when
 * any argument's are. */
static int same_collections(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_type *rt,
                            weir_error *err)
{
    weir_type t = args[0]->type;
    const weir_nested_type *d = weir_type_nested(t);
    bool any_null_elem = false, nullable = false;
    for (uint32_t k = 0; k < n; k++) {
        if (args[k]->type.id == WEIR_TYPE_NULL && weir__coerce(a, &args[k], t, err))
            return err->code;
        const weir_nested_type *dk = weir_type_nested(args[k]->type);
        if (!dk || dk->kind != d->kind || !weir_nv_type_compatible(args[k]->type, t)) {
            char tb[128], tk[128];
            return weir_error_set(err, WEIR_EPLAN,
                                  "%s: the arguments must be of one type, not %s and %s (CAST one of them)",
                                  f->name, weir__tname(args[0], tb, sizeof tb), weir__tname(args[k], tk, sizeof tk));
        }
        for (uint32_t j = 0; j < dk->n; j++)
            any_null_elem |= dk->elems[j].nullable;
        nullable |= args[k]->type.nullable;
    }
    if (!any_null_elem) {
        *rt = t;
        rt->nullable = nullable;
        return 0;
    }
    int rc = weir_nv_type_relax(t, rt);
    rt->nullable = nullable;
    return rc == WEIR_ENOMEM ? nomem(err) : rc;
}

static int bind_coll(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                     weir_error *err)
{
    int64_t fn = f->param;
    uint8_t flags = F_STRICT;
    if (n == 0)
        return weir__bad_args(f, args, n, err);
    weir_type rt = args[0]->type;
    int rc = 0;
    bool want_map = fn == C_ENTRIES || fn == C_MAP_UNION;
    if (fn != C_SPLIT) {
        if (args[0]->type.id == WEIR_TYPE_NULL)
            return weir_error_set(err, WEIR_EPLAN, "%s: the first argument has no type (NULL): CAST it", f->name);
        if (!nested_of(args[0], want_map ? WEIR_TYPE_MAP : WEIR_TYPE_ARRAY))
            return weir__bad_args(f, args, n, err);
    }
    const weir_nested_type *d = weir_type_nested(args[0]->type);
    switch (fn) {
    case C_APPEND:
    case C_PREPEND:
    case C_POSITION:
    case C_REMOVE: {
        if (n != 2)
            return weir__bad_args(f, args, n, err);
        weir_type et = d->elems[0];
        bool elem_null = args[1]->type.nullable || args[1]->type.id == WEIR_TYPE_NULL;
        et.nullable = true;
        if (!coerce_to(a, args, 1, et, err))
            return err->code ? err->code : weir__bad_args(f, args, n, err);
        if (fn == C_POSITION) {
            rt = tmake(WEIR_TYPE_INT, weir__any_nullable(args, n));
        } else {
            flags = F_MAYNULL;
            if ((fn == C_APPEND || fn == C_PREPEND) && elem_null && !d->elems[0].nullable) {
                weir_type rel = d->elems[0];
                rel.nullable = true;
                if ((rc = weir_type_array(rel, args[0]->type.nullable, &rt)))
                    return rc == WEIR_ENOMEM ? nomem(err) : rc;
            }
        }
        break;
    }
    case C_CONCAT:
    case C_MAP_UNION:
        if ((rc = same_collections(a, f, args, n, &rt, err)))
            return rc;
        break;
    case C_UNION:
    case C_INTERSECT:
    case C_EXCEPT:
        if (n != 2)
            return weir__bad_args(f, args, n, err);
        if ((rc = same_collections(a, f, args, n, &rt, err)))
            return rc;
        break;
    case C_REVERSE:
        if (n != 1)
            return weir__bad_args(f, args, n, err);
        break;
    case C_SLICE:
        if (n != 2 && n != 3)
            return weir__bad_args(f, args, n, err);
        for (uint32_t k = 1; k < n; k++) {
            if (args[k]->type.id == WEIR_TYPE_NULL && weir__coerce(a, &args[k], tmake(WEIR_TYPE_INT, true), err))
                return err->code;
            if (args[k]->type.id != WEIR_TYPE_INT || args[k]->iv)
                return weir__bad_args(f, args, n, err);
        }
        rt.nullable = weir__any_nullable(args, n);
        break;
    case C_SORT:
    case C_MAX:
    case C_MIN: {
        if (n != 1 && !(fn == C_SORT && n <= 3))
            return weir__bad_args(f, args, n, err);
        if (!orderable(d->elems[0])) {
            char tb[128];
            return weir_error_set(err, WEIR_EPLAN, "%s does not support %s: its elements have no order", f->name,
                                  weir__tname(args[0], tb, sizeof tb));
        }
        for (uint32_t k = 1; k < n; k++) {
            if (args[k]->type.id == WEIR_TYPE_NULL &&
                weir__coerce(a, &args[k], tmake(WEIR_TYPE_BOOLEAN, true), err))
                return err->code;
            if (args[k]->type.id != WEIR_TYPE_BOOLEAN)
                return weir__bad_args(f, args, n, err);
        }
        if (fn == C_SORT) {
            rt.nullable = weir__any_nullable(args, n);
        } else {
            rt = d->elems[0];
            rt.nullable = true;
            flags |= F_MAYNULL;
        }
        break;
    }
    case C_JOIN:
        if ((n != 2 && n != 3) || d->elems[0].id != WEIR_TYPE_STRING)
            return weir__bad_args(f, args, n, err);
        for (uint32_t k = 1; k < n; k++)
            if (!coerce_to(a, args, k, tmake(WEIR_TYPE_STRING, true), err) || args[k]->type.id != WEIR_TYPE_STRING)
                return err->code ? err->code : weir__bad_args(f, args, n, err);
        rt = tmake(WEIR_TYPE_STRING, weir__any_nullable(args, n));
        break;
    case C_SPLIT:
        if (n != 2 || (rc = weir__need_strings(a, f, args, n, n, err)))
            return rc ? rc : weir__bad_args(f, args, n, err);
        rc = weir_type_array(tmake(WEIR_TYPE_STRING, false), weir__any_nullable(args, n), &rt);
        break;
    case C_ENTRIES: {
        if (n != 1)
            return weir__bad_args(f, args, n, err);
        weir_type row;
        const char *names[2] = {"key", "value"};
        rc = weir_type_row(d->elems, names, 2, false, &row);
        rc = rc ? rc : weir_type_array(row, args[0]->type.nullable, &rt);
        break;
    }
    case C_FROM_ARRAYS: {
        if (n != 2)
            return weir__bad_args(f, args, n, err);
        if (args[1]->type.id == WEIR_TYPE_NULL)
            return weir_error_set(err, WEIR_EPLAN, "%s: the second argument has no type (NULL): CAST it", f->name);
        const weir_nested_type *dv = nested_of(args[1], WEIR_TYPE_ARRAY);
        if (!dv)
            return weir__bad_args(f, args, n, err);
        rc = weir_type_map(d->elems[0], dv->elems[0], weir__any_nullable(args, n), &rt);
        break;
    }
    }
    if (rc)
        return rc == WEIR_ENOMEM ? nomem(err)
                                 : weir_error_set(err, WEIR_EUNSUPPORTED, "too many distinct ARRAY, MAP and ROW types");
    *out = weir__call_node(a, f, args, n, rt, coll_kernel, flags);
    if (!*out)
        return nomem(err);
    (*out)->p0 = fn;
    return 0;
}

const xfunc weir__funcs_coll[] = {
    {"ARRAY_APPEND", "ARRAY_APPEND(ARRAY, value)", bind_coll, C_APPEND},
    {"ARRAY_PREPEND", "ARRAY_PREPEND(ARRAY, value)", bind_coll, C_PREPEND},
    {"ARRAY_CONCAT", "ARRAY_CONCAT(ARRAY, ...)", bind_coll, C_CONCAT},
    {"ARRAY_POSITION", "ARRAY_POSITION(ARRAY, value)", bind_coll, C_POSITION},
    {"ARRAY_REMOVE", "ARRAY_REMOVE(ARRAY, value)", bind_coll, C_REMOVE},
    {"ARRAY_REVERSE", "ARRAY_REVERSE(ARRAY)", bind_coll, C_REVERSE},
    {"ARRAY_SLICE", "ARRAY_SLICE(ARRAY, INT [, INT])", bind_coll, C_SLICE},
    {"ARRAY_SORT", "ARRAY_SORT(ARRAY [, BOOLEAN [, BOOLEAN]])", bind_coll, C_SORT},
    {"ARRAY_UNION", "ARRAY_UNION(ARRAY, ARRAY)", bind_coll, C_UNION},
    {"ARRAY_INTERSECT", "ARRAY_INTERSECT(ARRAY, ARRAY)", bind_coll, C_INTERSECT},
    {"ARRAY_EXCEPT", "ARRAY_EXCEPT(ARRAY, ARRAY)", bind_coll, C_EXCEPT},
    {"ARRAY_MAX", "ARRAY_MAX(ARRAY)", bind_coll, C_MAX},
    {"ARRAY_MIN", "ARRAY_MIN(ARRAY)", bind_coll, C_MIN},
    {"ARRAY_JOIN", "ARRAY_JOIN(ARRAY<STRING>, STRING [, STRING])", bind_coll, C_JOIN},
    {"SPLIT", "SPLIT(STRING, STRING)", bind_coll, C_SPLIT},
    {"MAP_ENTRIES", "MAP_ENTRIES(MAP)", bind_coll, C_ENTRIES},
    {"MAP_FROM_ARRAYS", "MAP_FROM_ARRAYS(ARRAY, ARRAY)", bind_coll, C_FROM_ARRAYS},
    {"MAP_UNION", "MAP_UNION(MAP, ...)", bind_coll, C_MAP_UNION},
    {NULL, NULL, NULL, 0},
};
