/*
 * expr/f_nested.c - ARRAY, MAP and ROW: the constructors ARRAY[...],
 * MAP[...] and ROW(...) (and the planner's $DISTINCT_TUPLE), element access (ITEM: arr[i], map[key]; $FIELD:
 * row.field), CARDINALITY, ELEMENT, ARRAY_CONTAINS, ARRAY_DISTINCT,
 * MAP_KEYS, MAP_VALUES.
 *
 * Values are the encodings of record/nested.h, carried as weir_expr_str.
 * An element read out of a value points into the value's bytes (valid for
 * the evaluation, like every string). Element equality is byte equality of
 * the encodings, as for GROUP BY keys.
 */
#include <math.h>
#include <stdio.h>
#include <strings.h>

#include "expr/expr_internal.h"
#include "record/nested.h"

static int nomem(weir_error *err) { return weir_error_set(err, WEIR_ENOMEM, "out of memory"); }

/* Bytes of row i of v in the encoding's entry form (record/nested.h). */
static inline const uint8_t *raw_at(const xvec *v, uint32_t i, uint32_t *len)
{
    if (weir_type_is_varlen(v->type.id)) {
        const xstr *s = v->data;
        *len = s[i].len;
        return (const uint8_t *)s[i].ptr;
    }
    uint32_t w = (uint32_t)weir_type_size(v->type);
    *len = w;
    return (const uint8_t *)v->data + (size_t)i * w;
}

/* Stores an entry's bytes as row i of out (borrowing varlen bytes). */
static inline void raw_store(xvec *out, uint32_t i, const uint8_t *val, uint32_t len)
{
    if (weir_type_is_varlen(out->type.id)) {
        ((xstr *)out->data)[i] = (xstr){(const char *)val, len};
        return;
    }
    uint32_t w = (uint32_t)weir_type_size(out->type);
    memcpy((uint8_t *)out->data + (size_t)i * w, val, w);
}

static inline bool is_null_at(const xvec *v, uint32_t i) { return v->nulls && v->nulls[i]; }

int weir__x_put_buf(ecx *cx, xvec *out, uint32_t i, const weir_buf *b)
{
    char *p = x_str(cx, b->len);
    if (!p)
        return weir_error_set(cx->err, WEIR_ENOMEM, "out of memory");
    if (b->len)
        memcpy(p, b->data, b->len);
    ((xstr *)out->data)[i] = (xstr){p, (uint32_t)b->len};
    return 0;
}

static int put_arg(weir_buf *b, const xvec *v, uint32_t i)
{
    if (is_null_at(v, i))
        return weir_nv_put_null(b);
    uint32_t len;
    const uint8_t *p = raw_at(v, i, &len);
    return weir_nv_put(b, v->type, p, len);
}

/* ---- constructors ---- */

/*
 * The entry of a DOUBLE in the form COUNT(DISTINCT x) compares it in:
 * -0.0 as 0.0, every NaN as one (docs/aggregates.md, Equality).
 */
static int put_canon_f64(weir_buf *b, const xvec *v, uint32_t i)
{
    double d = ((const double *)v->data)[i];
    if (d != d)
        d = NAN;
    else if (d == 0)
        d = 0.0;
    return weir_nv_put(b, v->type, &d, 8);
}

/*
 * ARRAY[...] (param 0), MAP[k, v, ...] (param 1), ROW(...) (param 2), and
 * $DISTINCT_TUPLE(...) (param 3): the ROW that COUNT(DISTINCT a, b, ...)
 * counts, NULL when an argument is (F_STRICT), its DOUBLEs canonical so
 * that the tuples are equal when each field is equal as COUNT(DISTINCT)
 * of that one column compares it.
 */
static int ctor_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    weir_buf b;
    weir_buf_init(&b);
    int rc = 0;
    uint32_t na = e->n_args;
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (act && !act[i])
            continue;
        weir_buf_clear(&b);
        if (e->p0 == 0) {
            rc = weir_nv_put_count(&b, na);
            for (uint32_t k = 0; k < na && !rc; k++)
                rc = put_arg(&b, &a[k], i);
        } else if (e->p0 == 1) {
            /* a key given twice keeps its last value, as a Java map's put */
            rc = weir_nv_put_count(&b, na / 2);
            for (uint32_t k = 0; k < na && !rc; k++)
                rc = put_arg(&b, &a[k], i);
            if (!rc)
                rc = weir_nv_map_canon(&b, 0, e->type);
        } else {
            for (uint32_t k = 0; k < na && !rc; k++)
                rc = e->p0 == 3 && a[k].type.id == WEIR_TYPE_DOUBLE ? put_canon_f64(&b, &a[k], i)
                                                                   : put_arg(&b, &a[k], i);
        }
        if (rc)
            rc = weir_error_set(cx->err, WEIR_ENOMEM, "out of memory");
        else
            rc = weir__x_put_buf(cx, out, i, &b);
    }
    weir_buf_fini(&b);
    return rc;
}

/* The common type of args[from], args[from + step], ...; coerces them to it. */
static int unify(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, uint32_t from, uint32_t step,
                 weir_type *out, weir_error *err)
{
    weir_type t = args[from]->type;
    for (uint32_t i = from + step; i < n; i += step) {
        weir_expr tmp = *args[from];
        tmp.type = t;
        if (!weir__common_type(&tmp, args[i], &t))
            return weir__bad_args(f, args, n, err);
    }
    if (t.id == WEIR_TYPE_NULL)
        return weir_error_set(err, WEIR_EPLAN, "%s: the elements have no type (only NULLs): CAST one of them",
                              f->name);
    for (uint32_t i = from; i < n; i += step) {
        if (args[i]->iv != WEIR_INTERVAL_NONE)
            return weir__bad_args(f, args, n, err);
        if (weir__coerce(a, &args[i], t, err))
            return err->code;
    }
    *out = t;
    return 0;
}

static int bind_ctor(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                     weir_error *err)
{
    weir_type t;
    int rc;
    if (n == 0 || (f->param == 1 && n % 2))
        return weir__bad_args(f, args, n, err);
    if (f->param == 0) {
        weir_type el;
        if ((rc = unify(a, f, args, n, 0, 1, &el, err)))
            return rc;
        rc = weir_type_array(el, false, &t);
    } else if (f->param == 1) {
        weir_type k, v;
        if ((rc = unify(a, f, args, n, 0, 2, &k, err)) || (rc = unify(a, f, args, n, 1, 2, &v, err)))
            return rc;
        rc = weir_type_map(k, v, false, &t);
    } else {
        if (n > 64)
            return weir_error_set(err, WEIR_EUNSUPPORTED, "%s of more than 64 fields is not supported",
                                  f->param == 3 ? "COUNT(DISTINCT ...)" : "ROW(...)");
        weir_type ft[64];
        char names[64][12];
        const char *np[64];
        for (uint32_t i = 0; i < n; i++) {
            if (args[i]->type.id == WEIR_TYPE_NULL &&
                (rc = weir__coerce(a, &args[i], tmake(WEIR_TYPE_STRING, true), err)))
                return rc;
            if (args[i]->iv != WEIR_INTERVAL_NONE)
                return weir__bad_args(f, args, n, err);
            ft[i] = args[i]->type;
            snprintf(names[i], sizeof names[i], "EXPR$%u", i);
            np[i] = names[i];
        }
        rc = weir_type_row(ft, np, n, f->param == 3, &t);
    }
    if (rc == WEIR_ENOMEM)
        return nomem(err);
    if (rc)
        return weir_error_set(err, WEIR_EUNSUPPORTED, "too many distinct ARRAY, MAP and ROW types");
    *out = weir__call_node(a, f, args, n, t, ctor_kernel, f->param == 3 ? F_STRICT : 0);
    if (!*out)
        return nomem(err);
    (*out)->p0 = f->param;
    return 0;
}

/* ---- access ---- */

/* Compares an entry's bytes with row i of key (same type). */
static inline bool entry_eq(const uint8_t *v, uint32_t vl, const xvec *key, uint32_t i)
{
    uint32_t kl;
    const uint8_t *k = raw_at(key, i, &kl);
    return vl == kl && (!vl || !memcmp(v, k, vl));
}

/* Reads the entries of it up to entry k (0-based), entry j of type types[j]
 * (a ROW's fields) or, with one_type, types[0] (an ARRAY's elements); entry
 * k in *en, *ev, *el. False when the value ends before it. */
static bool nth_entry(weir_nv_iter *it, const weir_type *types, bool one_type,
                      int64_t k, bool *en, const uint8_t **ev, uint32_t *el)
{
    bool ok = true;
    for (int64_t j = 0; j <= k && ok; j++)
        ok = weir_nv_next(it, types[one_type ? 0 : j], en, ev, el);
    return ok;
}

/* Row i of out: the entry read (found) or NULL (not found, or a NULL entry). */
static void store_entry(ecx *cx, xvec *out, uint32_t i, bool found, bool en,
                        const uint8_t *ev, uint32_t el)
{
    if (!found || en)
        x_setnull(cx, out, i);
    else
        raw_store(out, i, ev, el);
}

/* arr[i] (1-based; NULL outside 1..CARDINALITY) and map[key] (NULL if absent). */
static int item_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    weir_type t = a[0].type;
    const weir_nested_type *d = weir_type_nested(t);
    const xstr *v = a[0].data;
    for (uint32_t i = 0; i < n; i++) {
        if (!x_live(out, act, i))
            continue;
        weir_nv_iter it;
        uint32_t cnt = weir_nv_open(t, v[i].ptr, v[i].len, &it);
        bool found = false, en = true;
        const uint8_t *ev = NULL;
        uint32_t el = 0;
        if (t.id == WEIR_TYPE_ARRAY) {
            int64_t want = a[1].type.id == WEIR_TYPE_INT ? ((const int32_t *)a[1].data)[i]
                                                          : ((const int64_t *)a[1].data)[i];
            found = want >= 1 && want <= cnt &&
                    nth_entry(&it, d->elems, true, want - 1, &en, &ev, &el);
        } else {
            bool kn, vn;
            const uint8_t *kv, *vv;
            uint32_t kl, vl;
            for (uint32_t k = 0; k < cnt; k++) {
                if (!weir_nv_next(&it, d->elems[0], &kn, &kv, &kl) || !weir_nv_next(&it, d->elems[1], &vn, &vv, &vl))
                    break;
                if (!kn && entry_eq(kv, kl, &a[1], i)) {
                    found = true, en = vn, ev = vv, el = vl;
                    break;
                }
            }
        }
        store_entry(cx, out, i, found, en, ev, el);
    }
    return 0;
}

static int bind_item(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                     weir_error *err)
{
    if (n != 2)
        return weir__bad_args(f, args, n, err);
    const weir_nested_type *d = weir_type_nested(args[0]->type);
    weir_type rt;
    if (d && d->kind == WEIR_TYPE_ARRAY) {
        if (args[1]->type.id != WEIR_TYPE_INT && args[1]->type.id != WEIR_TYPE_BIGINT &&
            args[1]->type.id != WEIR_TYPE_NULL)
            return weir_error_set(err, WEIR_EPLAN, "an ARRAY index must be an INT, not %s",
                                  weir__tname(args[1], (char[64]){0}, 64));
        if (args[1]->type.id == WEIR_TYPE_NULL && weir__coerce(a, &args[1], tmake(WEIR_TYPE_INT, true), err))
            return err->code;
        rt = d->elems[0];
    } else if (d && d->kind == WEIR_TYPE_MAP) {
        weir_type kt = d->elems[0];
        if (!weir__implicit_ok(args[1], kt))
            return weir__bad_args(f, args, n, err);
        if (weir__coerce(a, &args[1], kt, err))
            return err->code;
        rt = d->elems[1];
    } else {
        char tb[64];
        return weir_error_set(err, WEIR_EPLAN, "cannot apply [] to %s: only an ARRAY or a MAP has elements",
                              weir__tname(args[0], tb, sizeof tb));
    }
    rt.nullable = true;
    *out = weir__call_node(a, f, args, 2, rt, item_kernel, F_STRICT | F_MAYNULL);
    return *out ? 0 : nomem(err);
}

/* row.field: p0 is the field's index. */
static int field_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    weir_type t = a[0].type;
    const weir_nested_type *d = weir_type_nested(t);
    const xstr *v = a[0].data;
    for (uint32_t i = 0; i < n; i++) {
        if (!x_live(out, act, i))
            continue;
        weir_nv_iter it;
        weir_nv_open(t, v[i].ptr, v[i].len, &it);
        bool en = true;
        const uint8_t *ev = NULL;
        uint32_t el = 0;
        bool found = nth_entry(&it, d->elems, false, e->p0, &en, &ev, &el);
        store_entry(cx, out, i, found, en, ev, el);
    }
    return 0;
}

static int bind_field(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                      weir_error *err)
{
    xstr name;
    if (n != 2 || !weir__lit_str(args[1], &name))
        return weir__bad_args(f, args, n, err);
    const weir_nested_type *d = weir_type_nested(args[0]->type);
    char tb[256];
    if (!d || d->kind != WEIR_TYPE_ROW)
        return weir_error_set(err, WEIR_EPLAN, "cannot read field '%.*s' of %s: only a ROW has fields",
                              (int)name.len, name.ptr, weir__tname(args[0], tb, sizeof tb));
    int found = -1;
    for (uint32_t i = 0; i < d->n; i++)
        if (strlen(d->names[i]) == name.len && !strncasecmp(d->names[i], name.ptr, name.len)) {
            found = (int)i;
            break;
        }
    if (found < 0) {
        size_t o = 0;
        for (uint32_t i = 0; i < d->n && o < 200; i++)
            o += (size_t)snprintf(tb + o, sizeof tb - o, "%s%s", i ? ", " : "", d->names[i]);
        return weir_error_set(err, WEIR_EPLAN, "the ROW has no field '%.*s' (its fields: %s)", (int)name.len,
                              name.ptr, tb);
    }
    weir_type rt = d->elems[found];
    rt.nullable = rt.nullable || args[0]->type.nullable;
    *out = weir__call_node(a, f, args, 1, rt, field_kernel, F_STRICT | F_MAYNULL);
    if (!*out)
        return nomem(err);
    (*out)->p0 = found;
    return 0;
}

/* ---- functions ---- */

enum { K_CARD, K_ELEMENT, K_CONTAINS, K_DISTINCT, K_KEYS, K_VALUES };

static int coll_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    weir_type t = a[0].type;
    const weir_nested_type *d = weir_type_nested(t);
    const xstr *v = a[0].data;
    weir_buf b;
    weir_buf_init(&b);
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (!x_live(out, act, i))
            continue;
        weir_nv_iter it;
        uint32_t cnt = weir_nv_open(t, v[i].ptr, v[i].len, &it);
        bool en = true;
        const uint8_t *ev = NULL;
        uint32_t el = 0;
        switch (e->p0) {
        case K_CARD:
            if (t.id == WEIR_TYPE_MULTISET) {
                /* every occurrence counts: the sum of the counts */
                int64_t sum = 0;
                bool kn, cn;
                const uint8_t *kv, *cv;
                uint32_t kl, cl;
                for (uint32_t k = 0; k < cnt; k++) {
                    if (!weir_nv_next(&it, d->elems[0], &kn, &kv, &kl) ||
                        !weir_nv_next(&it, d->elems[1], &cn, &cv, &cl))
                        break;
                    int32_t c = 0;
                    if (!cn)
                        memcpy(&c, cv, 4);
                    sum += c;
                }
                if (sum > INT32_MAX) {
                    rc = weir__x_fail(cx, i, "CARDINALITY of a MULTISET of %lld elements overflows INT",
                                      (long long)sum);
                    break;
                }
                ((int32_t *)out->data)[i] = (int32_t)sum;
                break;
            }
            ((int32_t *)out->data)[i] = (int32_t)cnt;
            break;
        case K_ELEMENT: {
            if (cnt > 1) {
                rc = weir__x_fail(cx, i, "ELEMENT of an ARRAY of %u elements: it must have at most one", cnt);
                break;
            }
            bool found =
                cnt > 0 && nth_entry(&it, d->elems, true, 0, &en, &ev, &el);
            store_entry(cx, out, i, found, en, ev, el);
            break;
        }
        case K_CONTAINS: {
            bool want_null = is_null_at(&a[1], i), hit = false;
            for (uint32_t k = 0; k < cnt && !hit && weir_nv_next(&it, d->elems[0], &en, &ev, &el); k++)
                hit = want_null ? en : !en && entry_eq(ev, el, &a[1], i);
            ((uint8_t *)out->data)[i] = hit;
            break;
        }
        default: {
            /* ARRAY_DISTINCT, MAP_KEYS, MAP_VALUES: a new ARRAY */
            weir_buf_clear(&b);
            uint32_t m = 0;
            rc = weir_nv_put_count(&b, 0);
            const weir_type et = d->elems[e->p0 == K_VALUES ? 1 : 0];
            for (uint32_t k = 0; k < cnt && !rc; k++) {
                if (e->p0 == K_VALUES && !weir_nv_next(&it, d->elems[0], &en, &ev, &el))
                    break;
                const uint8_t *start = it.p;
                if (!weir_nv_next(&it, et, &en, &ev, &el))
                    break;
                size_t elen = (size_t)(it.p - start);
                if (e->p0 == K_KEYS && !weir_nv_next(&it, d->elems[1], &en, &ev, &el))
                    break;
                if (e->p0 == K_DISTINCT) {
                    /* keep the first occurrence: compare the whole entry with those kept */
                    weir_nv_iter kept;
                    weir_nv_open(out->type, b.data, (uint32_t)b.len, &kept);
                    kept.p = b.data + 4;
                    bool dup = false;
                    while (!dup && kept.p < b.data + b.len) {
                        const uint8_t *ks = kept.p;
                        bool kn;
                        const uint8_t *kv;
                        uint32_t kl;
                        if (!weir_nv_next(&kept, et, &kn, &kv, &kl))
                            break;
                        dup = (size_t)(kept.p - ks) == elen && !memcmp(ks, start, elen);
                    }
                    if (dup)
                        continue;
                }
                rc = weir_buf_put(&b, start, elen);
                m++;
            }
            if (rc) {
                rc = weir_error_set(cx->err, WEIR_ENOMEM, "out of memory");
                break;
            }
            memcpy(b.data, &m, 4);
            rc = weir__x_put_buf(cx, out, i, &b);
        }
        }
    }
    weir_buf_fini(&b);
    return rc;
}

static int bind_coll(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                     weir_error *err)
{
    uint32_t want = f->param == K_CONTAINS ? 2 : 1;
    if (n != want)
        return weir__bad_args(f, args, n, err);
    const weir_nested_type *d = weir_type_nested(args[0]->type);
    weir_type_id need = f->param == K_KEYS || f->param == K_VALUES ? WEIR_TYPE_MAP : WEIR_TYPE_ARRAY;
    if (!d || (d->kind != need && !(f->param == K_CARD && weir_type_is_mapish(d->kind))))
        return weir__bad_args(f, args, n, err);
    weir_type rt;
    uint8_t flags = F_STRICT;
    int rc = 0;
    switch (f->param) {
    case K_CARD: rt = tmake(WEIR_TYPE_INT, args[0]->type.nullable); break;
    case K_ELEMENT:
        rt = d->elems[0];
        rt.nullable = true;
        flags |= F_MAYNULL;
        break;
    case K_CONTAINS:
        if (!weir__implicit_ok(args[1], d->elems[0]))
            return weir__bad_args(f, args, n, err);
        if (weir__coerce(a, &args[1], d->elems[0], err))
            return err->code;
        rt = tmake(WEIR_TYPE_BOOLEAN, args[0]->type.nullable);
        flags = 0; /* a NULL element is looked for; a NULL array gives NULL (below) */
        break;
    case K_DISTINCT: rt = args[0]->type; break;
    default: rc = weir_type_array(d->elems[f->param == K_KEYS ? 0 : 1], args[0]->type.nullable, &rt);
    }
    if (rc)
        return rc == WEIR_ENOMEM ? nomem(err) : weir_error_set(err, WEIR_EUNSUPPORTED, "too many nested types");
    if (f->param == K_CONTAINS) {
        /* NULL only when the array is: the element argument may be NULL */
        weir_expr *strict[2] = {args[0], args[1]};
        *out = weir__call_node(a, f, strict, 2, rt, coll_kernel, 0);
        if (!*out)
            return nomem(err);
        (*out)->p0 = f->param;
        /* wrap: IF(arr IS NULL, NULL, contains) is what F_STRICT on the first
         * argument alone would do; the kernel leaves NULL arrays to it */
        weir_expr *isn;
        weir_expr *x = args[0];
        if ((rc = weir_expr_call(a, "IS NULL", &x, 1, &isn, err)))
            return rc;
        weir_expr *nul = weir_expr_lit_null(a, rt);
        if (!nul)
            return nomem(err);
        weir_expr *conds[1] = {isn}, *vals[1] = {nul};
        return weir_expr_case(a, conds, vals, 1, *out, out, err);
    }
    *out = weir__call_node(a, f, args, n, rt, coll_kernel, flags);
    if (!*out)
        return nomem(err);
    (*out)->p0 = f->param;
    return 0;
}

const xfunc weir__funcs_nested[] = {
    {"ARRAY", "ARRAY[value, ...]", bind_ctor, 0},
    {"MAP", "MAP[key, value, ...]", bind_ctor, 1},
    {"ROW", "ROW(value, ...)", bind_ctor, 2},
    {"$DISTINCT_TUPLE", "COUNT(DISTINCT value, value, ...)", bind_ctor, 3},
    {"ITEM", "ARRAY[INT] or MAP[key]", bind_item, 0},
    {"$FIELD", "row.field", bind_field, 0},
    {"CARDINALITY", "CARDINALITY(ARRAY, MAP or MULTISET)", bind_coll, K_CARD},
    {"ELEMENT", "ELEMENT(ARRAY)", bind_coll, K_ELEMENT},
    {"ARRAY_CONTAINS", "ARRAY_CONTAINS(ARRAY, value)", bind_coll, K_CONTAINS},
    {"ARRAY_DISTINCT", "ARRAY_DISTINCT(ARRAY)", bind_coll, K_DISTINCT},
    {"MAP_KEYS", "MAP_KEYS(MAP)", bind_coll, K_KEYS},
    {"MAP_VALUES", "MAP_VALUES(MAP)", bind_coll, K_VALUES},
    {NULL, NULL, NULL, 0},
};
