/*
 * expr/eval.c - the vectorized evaluation driver.
 *
 * A tree is evaluated bottom-up, one node over all n rows at a time.
 * Column references alias the input batch's fixed-width arrays (no copy);
 * their bitmaps become byte-per-row NULL flags, strings become (ptr, len)
 * pairs into the input heap. Kernels write into scratch vectors from the
 * env's chunk allocator.
 *
 * Conditional nodes (AND, OR, CASE, IF, COALESCE) pass an `active` mask down
 * to the branches they evaluate, so that a branch not taken for a row can
 * neither fail nor cost much for it: CASE WHEN x <> 0 THEN 10 / x END never
 * divides by zero, as in Flink, which evaluates row by row.
 *
 * A calc (weir_expr_calc_run) evaluates its filter and its projections in
 * one evaluation: shared subexpressions (N_SHARED, see shared.c) keep their
 * values in slots for its whole length, and the projections read only the
 * rows the filter kept, through a row index (cx->rows), so that the slots
 * filled by the filter are compacted to those rows instead of recomputed.
 */
#include <stdio.h>

#include "expr/expr_internal.h"

/* Bytes per row of a vector of each type (a DECIMAL of more than 18 digits: 16). */
static const uint8_t phys_widths[WEIR__TYPE_ID_LAST + 1] = {
    [WEIR_TYPE_BOOLEAN] = 1,
    [WEIR_TYPE_NULL] = 1,
    [WEIR_TYPE_INT] = 4,
    [WEIR_TYPE_DATE] = 4,
    [WEIR_TYPE_TIME] = 4,
    [WEIR_TYPE_BIGINT] = 8,
    [WEIR_TYPE_DOUBLE] = 8,
    [WEIR_TYPE_DECIMAL] = 8,
    [WEIR_TYPE_TIMESTAMP] = 8,
    [WEIR_TYPE_TIMESTAMP_LTZ] = 8,
    [WEIR_TYPE_STRING] = sizeof(xstr),
    [WEIR_TYPE_BYTES] = sizeof(xstr),
    [WEIR_TYPE_ARRAY] = sizeof(xstr),
    [WEIR_TYPE_MAP] = sizeof(xstr),
    [WEIR_TYPE_MULTISET] = sizeof(xstr),
    [WEIR_TYPE_ROW] = sizeof(xstr),
};

_Static_assert(WEIR__TYPE_ID_LAST == WEIR_TYPE_MULTISET, "a new type needs its width in phys_widths");

/* Asked for every vector a node allocates: a load from a table, inline, not a call through a switch. */
static inline size_t phys_width(weir_type t)
{
    if (weir_type_is_wide(t))
        return 16;
    return (unsigned)t.id <= WEIR__TYPE_ID_LAST ? phys_widths[t.id] : 8;
}

static int oom(ecx *cx) { return weir_error_set(cx->err, WEIR_ENOMEM, "out of memory evaluating an expression"); }

static int load_column(ecx *cx, const weir_expr *e, xvec *out)
{
    const weir_batch *in = cx->in;
    uint32_t n = cx->n;
    if (!in || (uint32_t)e->col >= in->schema->n_fields)
        return weir_error_set(cx->err, WEIR_EINVAL, "column $%d is not in the input", e->col);
    const weir_column *c = &in->cols[e->col];
    if (c->type.id != e->type.id || weir_type_is_wide(c->type) != weir_type_is_wide(e->type))
        return weir_error_set(cx->err, WEIR_EINVAL, "column $%d is %s in the batch but %s in the expression",
                              e->col, weir_type_name(c->type.id), weir_type_name(e->type.id));
    const uint32_t *rows = cx->rows;
#define ROW(i) (rows ? rows[i] : (i))
    out->type = e->type;
    out->nulls = NULL;
    if (!c->all_valid) {
        uint8_t *nb = weir__x_alloc(cx, n ? n : 1);
        if (!nb)
            return oom(cx);
        bool any = false;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t r = ROW(i);
            nb[i] = !((c->valid[r >> 3] >> (r & 7)) & 1);
            any |= nb[i];
        }
        if (any)
            out->nulls = nb;
    }
    if (weir_type_is_varlen(c->type.id)) {
        xstr *s = weir__x_alloc(cx, (n ? n : 1) * sizeof *s);
        if (!s)
            return oom(cx);
        const weir_strref *r = c->data;
        for (uint32_t i = 0; i < n; i++) {
            s[i].ptr = in->heap ? in->heap + r[ROW(i)].off : "";
            s[i].len = r[ROW(i)].len;
        }
        if (out->nulls)
            for (uint32_t i = 0; i < n; i++)
                if (out->nulls[i])
                    s[i] = (xstr){"", 0};
        out->data = s;
    } else if (rows) {
        size_t w = weir_type_size(c->type);
        char *d = weir__x_alloc(cx, (n ? n : 1) * w);
        if (!d)
            return oom(cx);
        const char *src = c->data;
        switch (w) {
        case 1:
            for (uint32_t i = 0; i < n; i++)
                ((uint8_t *)d)[i] = ((const uint8_t *)src)[rows[i]];
            break;
        case 4:
            for (uint32_t i = 0; i < n; i++)
                ((int32_t *)d)[i] = ((const int32_t *)src)[rows[i]];
            break;
        case 8:
            for (uint32_t i = 0; i < n; i++)
                ((int64_t *)d)[i] = ((const int64_t *)src)[rows[i]];
            break;
        default:
            for (uint32_t i = 0; i < n; i++)
                memcpy(d + (size_t)i * w, src + (size_t)rows[i] * w, w);
        }
        out->data = d;
    } else {
        out->data = c->data; /* aliased, read-only */
    }
#undef ROW
    return 0;
}

static int load_literal(ecx *cx, const weir_expr *e, xvec *out)
{
    uint32_t n = cx->n ? cx->n : 1;
    out->type = e->type;
    size_t w = phys_width(e->type);
    out->data = weir__x_alloc(cx, n * w);
    if (!out->data)
        return oom(cx);
    out->nulls = NULL;
    if (e->lit.is_null) {
        x_fill(out->data, 0, n * w);
        if (weir_type_is_varlen(e->type.id))
            for (uint32_t i = 0; i < n; i++)
                ((xstr *)out->data)[i] = (xstr){"", 0};
        out->nulls = weir__x_alloc(cx, n);
        if (!out->nulls)
            return oom(cx);
        x_fill(out->nulls, 1, n);
        return 0;
    }
    switch (e->type.id) {
    case WEIR_TYPE_BOOLEAN:
        x_fill(out->data, e->lit.v.b ? 1 : 0, n);
        break;
    case WEIR_TYPE_DATE:
    case WEIR_TYPE_TIME:
    case WEIR_TYPE_INT:
        for (uint32_t i = 0; i < n; i++)
            ((int32_t *)out->data)[i] = e->lit.v.i32;
        break;
    case WEIR_TYPE_DOUBLE:
        for (uint32_t i = 0; i < n; i++)
            ((double *)out->data)[i] = e->lit.v.f64;
        break;
    case WEIR_TYPE_STRING:
    case WEIR_TYPE_BYTES:
    case WEIR_TYPE_ARRAY:
    case WEIR_TYPE_MAP:
    case WEIR_TYPE_MULTISET:
    case WEIR_TYPE_ROW:
        for (uint32_t i = 0; i < n; i++)
            ((xstr *)out->data)[i] = e->lit.v.s;
        break;
    default:
        if (weir_type_is_wide(e->type)) {
            for (uint32_t i = 0; i < n; i++)
                ((weir_i128 *)out->data)[i] = WEIR__I128_GET(e->lit.v.i128);
            break;
        }
        for (uint32_t i = 0; i < n; i++)
            ((int64_t *)out->data)[i] = e->lit.v.i64;
    }
    return 0;
}

/* Allocates an output vector of type t for n rows. */
static int alloc_vec(ecx *cx, weir_type t, xvec *out)
{
    uint32_t n = cx->n ? cx->n : 1;
    out->type = t;
    out->nulls = NULL;
    size_t w = phys_width(t);
    out->data = weir__x_alloc(cx, n * w);
    if (!out->data)
        return oom(cx);
    if (weir_type_is_varlen(t.id)) {
        for (uint32_t i = 0; i < n; i++)
            ((xstr *)out->data)[i] = (xstr){"", 0};
    } else {
        x_fill(out->data, 0, n * w);
    }
    return 0;
}

/* An output vector of type t for n rows, every row NULL until a branch fills it (CASE, COALESCE). */
static int alloc_null_vec(ecx *cx, weir_type t, xvec *out)
{
    uint32_t n = cx->n;
    int rc = alloc_vec(cx, t, out);
    if (rc)
        return rc;
    out->nulls = weir__x_alloc(cx, n ? n : 1);
    if (!out->nulls)
        return oom(cx);
    x_fill(out->nulls, 1, n);
    return 0;
}

static bool is_true(const xvec *v, uint32_t i) { return !(v->nulls && v->nulls[i]) && ((uint8_t *)v->data)[i]; }

/* Copies row i of src into row j of dst (same type). */
static inline void copy_row_to(xvec *dst, uint32_t j, const xvec *src, uint32_t i, size_t w)
{
    if (src->nulls && src->nulls[i]) {
        dst->nulls[j] = 1;
        return;
    }
    dst->nulls[j] = 0;
    switch (w) {
    case 1: ((uint8_t *)dst->data)[j] = ((const uint8_t *)src->data)[i]; break;
    case 4: ((int32_t *)dst->data)[j] = ((const int32_t *)src->data)[i]; break;
    case 8: ((int64_t *)dst->data)[j] = ((const int64_t *)src->data)[i]; break;
    case 16:
        if (!weir_type_is_varlen(dst->type.id)) {
            ((weir_i128 *)dst->data)[j] = ((const weir_i128 *)src->data)[i];
            break;
        }
        /* fall through */
    default: ((xstr *)dst->data)[j] = ((const xstr *)src->data)[i];
    }
}

/* Copies row i of src into dst (same type). */
static inline void copy_row(xvec *dst, const xvec *src, uint32_t i, size_t w) { copy_row_to(dst, i, src, i, w); }

/* Drops an all-zero NULL array so that consumers can take fast paths. */
static void drop_no_nulls(xvec *v, uint32_t n)
{
    if (!v->nulls)
        return;
    for (uint32_t i = 0; i < n; i++)
        if (v->nulls[i])
            return;
    v->nulls = NULL;
}

/* mask[i] = active[i] && pred(i). Returns whether any row is set. */
static uint8_t *new_mask(ecx *cx, const uint8_t *active, uint32_t n)
{
    uint8_t *m = weir__x_alloc(cx, n ? n : 1);
    if (!m)
        return NULL;
    if (active)
        memcpy(m, active, n);
    else
        x_fill(m, 1, n);
    return m;
}

static bool any_set(const uint8_t *m, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (m[i])
            return true;
    return false;
}

/* Three-valued AND / OR with short-circuit: an operand is evaluated only where the ones before leave it open
 * (left to right, or cheap first where none can fail: cond_order.c). */
static int eval_andor(ecx *cx, const weir_expr *e, const uint8_t *active, xvec *out)
{
    uint32_t n = cx->n;
    bool is_and = e->kind == N_AND;
    int rc = alloc_vec(cx, e->type, out);
    if (rc)
        return rc;
    uint8_t *res = out->data;
    uint8_t *nul = weir__x_zalloc(cx, n ? n : 1);
    uint8_t *open = new_mask(cx, active, n);
    if (!nul || !open)
        return oom(cx);
    /* Start from the identity (TRUE for AND, FALSE for OR, not NULL). */
    x_fill(res, is_and ? 1 : 0, n);
    const xcond_order *ord = e->aux; /* operands that cannot fail, cheap first (cond_order.c) */
    if (ord && ord->n != e->n_args)
        ord = NULL;
    for (uint32_t k = 0; k < e->n_args; k++) {
        if (!any_set(open, n))
            break;
        xvec v;
        rc = weir__eval_node(cx, e->args[ord ? ord->idx[k] : k], open, &v);
        if (rc)
            return rc;
        const uint8_t *vd = v.data;
        for (uint32_t i = 0; i < n; i++) {
            if (!open[i])
                continue;
            if (v.nulls && v.nulls[i]) {
                nul[i] = 1;
            } else if (is_and ? !vd[i] : vd[i]) {
                /* Decided: FALSE for AND, TRUE for OR, whatever NULLs came before. */
                res[i] = is_and ? 0 : 1;
                nul[i] = 0;
                open[i] = 0;
            }
        }
    }
    bool any = false;
    for (uint32_t i = 0; i < n; i++)
        any |= nul[i];
    out->nulls = any ? nul : NULL;
    return 0;
}

/* The value of literal node e as a one-row vector (a THEN taken by some rows). */
static int literal_row(ecx *cx, const weir_expr *e, xvec *out)
{
    uint32_t n = cx->n;
    cx->n = 1;
    int rc = load_literal(cx, e, out);
    cx->n = n;
    return rc;
}

/*
 * CASE WHEN x = 'a' THEN .. WHEN x = 'b' THEN .. ELSE .. END prepared as a
 * switch (f_core.c): x once, then each row's WHEN by one lookup of its
 * value; each THEN (and the ELSE) is evaluated for exactly the rows the
 * WHEN-by-WHEN evaluation would give it, in the same order, so a branch
 * not taken still cannot fail. A NULL x matches no WHEN. Returns 1 when a
 * WHEN is no longer in that form (eval_case then goes WHEN by WHEN).
 */
static int eval_case_switch(ecx *cx, const weir_expr *e, const uint8_t *active, xvec *out)
{
    const xcase_switch *sw = e->aux;
    const weir_expr *x0 = weir__case_switch_subject(e, 0);
    for (uint32_t k = 1; x0 && k < sw->n_when; k++)
        if (!weir__case_switch_subject(e, k))
            return 1;
    if (!x0)
        return 1;
    uint32_t n = cx->n;
    int rc = alloc_null_vec(cx, e->type, out);
    if (rc)
        return rc;
    size_t w = phys_width(e->type);
    uint32_t *branch = weir__x_alloc(cx, (n ? n : 1) * sizeof *branch);
    uint8_t *take = weir__x_alloc(cx, n ? n : 1);
    if (!branch || !take)
        return oom(cx);
    xvec x;
    if ((rc = weir__eval_node(cx, x0, active, &x)))
        return rc;
    const xstr *xs = x.data;
    const uint32_t none = UINT32_MAX - 1, els = sw->n_when; /* inactive row; no WHEN matches */
    for (uint32_t i = 0; i < n; i++) {
        if (active && !active[i])
            branch[i] = none;
        else if (x.nulls && x.nulls[i])
            branch[i] = els;
        else {
            uint32_t k = weir__strset_find(&sw->set, xs[i]);
            branch[i] = k == UINT32_MAX ? els : k;
        }
    }
    for (uint32_t k = 0; k <= sw->n_when; k++) {
        bool any = false;
        for (uint32_t i = 0; i < n; i++) {
            take[i] = branch[i] == k;
            any |= take[i];
        }
        if (!any)
            continue;
        const weir_expr *v = e->args[k < sw->n_when ? 2 * k + 1 : e->n_args - 1];
        xvec vv;
        if (v->kind == N_LITERAL) {
            if ((rc = literal_row(cx, v, &vv)))
                return rc;
            for (uint32_t i = 0; i < n; i++)
                if (take[i])
                    copy_row_to(out, i, &vv, 0, w);
            continue;
        }
        if ((rc = weir__eval_node(cx, v, take, &vv)))
            return rc;
        for (uint32_t i = 0; i < n; i++)
            if (take[i])
                copy_row(out, &vv, i, w);
    }
    return 0;
}

static int eval_case(ecx *cx, const weir_expr *e, const uint8_t *active, xvec *out)
{
    if (e->aux) {
        int rc = eval_case_switch(cx, e, active, out);
        if (rc <= 0)
            return rc;
    }
    uint32_t n = cx->n;
    int rc = alloc_null_vec(cx, e->type, out);
    if (rc)
        return rc;
    size_t w = phys_width(e->type);
    uint8_t *open = new_mask(cx, active, n);
    uint8_t *take = weir__x_alloc(cx, n ? n : 1);
    if (!open || !take)
        return oom(cx);
    uint32_t n_when = (e->n_args - 1) / 2;
    for (uint32_t k = 0; k <= n_when; k++) {
        if (!any_set(open, n))
            break;
        if (k < n_when) {
            xvec c;
            rc = weir__eval_node(cx, e->args[2 * k], open, &c);
            if (rc)
                return rc;
            bool any = false;
            for (uint32_t i = 0; i < n; i++) {
                take[i] = open[i] && is_true(&c, i);
                any |= take[i];
            }
            if (!any)
                continue;
            xvec v;
            rc = weir__eval_node(cx, e->args[2 * k + 1], take, &v);
            if (rc)
                return rc;
            for (uint32_t i = 0; i < n; i++)
                if (take[i]) {
                    copy_row(out, &v, i, w);
                    open[i] = 0;
                }
        } else {
            xvec v;
            rc = weir__eval_node(cx, e->args[e->n_args - 1], open, &v);
            if (rc)
                return rc;
            for (uint32_t i = 0; i < n; i++)
                if (open[i])
                    copy_row(out, &v, i, w);
        }
    }
    return 0;
}

static int eval_if(ecx *cx, const weir_expr *e, const uint8_t *active, xvec *out)
{
    uint32_t n = cx->n;
    int rc = alloc_vec(cx, e->type, out);
    if (rc)
        return rc;
    size_t w = phys_width(e->type);
    out->nulls = weir__x_zalloc(cx, n ? n : 1);
    uint8_t *mt = weir__x_alloc(cx, n ? n : 1), *mf = weir__x_alloc(cx, n ? n : 1);
    if (!out->nulls || !mt || !mf)
        return oom(cx);
    xvec c;
    rc = weir__eval_node(cx, e->args[0], active, &c);
    if (rc)
        return rc;
    bool at = false, af = false;
    for (uint32_t i = 0; i < n; i++) {
        bool act = !active || active[i];
        mt[i] = act && is_true(&c, i);
        mf[i] = act && !mt[i];
        at |= mt[i];
        af |= mf[i];
    }
    for (int side = 0; side < 2; side++) {
        uint8_t *m = side ? mf : mt;
        if (!(side ? af : at))
            continue;
        xvec v;
        rc = weir__eval_node(cx, e->args[1 + side], m, &v);
        if (rc)
            return rc;
        for (uint32_t i = 0; i < n; i++)
            if (m[i])
                copy_row(out, &v, i, w);
    }
    return 0;
}

static int eval_coalesce(ecx *cx, const weir_expr *e, const uint8_t *active, xvec *out)
{
    uint32_t n = cx->n;
    int rc = alloc_null_vec(cx, e->type, out);
    if (rc)
        return rc;
    size_t w = phys_width(e->type);
    uint8_t *open = new_mask(cx, active, n);
    if (!open)
        return oom(cx);
    for (uint32_t k = 0; k < e->n_args && any_set(open, n); k++) {
        xvec v;
        rc = weir__eval_node(cx, e->args[k], open, &v);
        if (rc)
            return rc;
        for (uint32_t i = 0; i < n; i++)
            if (open[i] && !(v.nulls && v.nulls[i])) {
                copy_row(out, &v, i, w);
                open[i] = 0;
            }
    }
    return 0;
}

static int eval_call(ecx *cx, const weir_expr *e, const uint8_t *active, xvec *out)
{
    uint32_t n = cx->n;
    xvec argv_small[8];
    xvec *argv = argv_small;
    if (e->n_args > 8) {
        argv = weir__x_alloc(cx, e->n_args * sizeof *argv);
        if (!argv)
            return oom(cx);
    }
    bool any_null = false;
    for (uint32_t k = 0; k < e->n_args; k++) {
        int rc = weir__eval_node(cx, e->args[k], active, &argv[k]);
        if (rc)
            return rc;
        any_null |= argv[k].nulls != NULL;
    }
    int rc = alloc_vec(cx, e->type, out);
    if (rc)
        return rc;
    if ((e->flags & F_STRICT) && any_null) {
        out->nulls = weir__x_zalloc(cx, n ? n : 1);
        if (!out->nulls)
            return oom(cx);
        for (uint32_t k = 0; k < e->n_args; k++) {
            const uint8_t *an = argv[k].nulls;
            if (an)
                for (uint32_t i = 0; i < n; i++)
                    out->nulls[i] |= an[i];
        }
    }
    rc = e->fn(cx, e, argv, n, active, out);
    if (rc)
        return rc;
    drop_no_nulls(out, n);
    return 0;
}

/*
 * A shared subexpression: its slot's rows are reused; rows this use needs
 * that no earlier use computed are computed now (for those rows alone) and
 * merged into a fresh vector (the slot's may alias an input column).
 * Consumers only read argument vectors, so handing out the slot's is safe.
 */
static int eval_shared(ecx *cx, const weir_expr *e, const uint8_t *active, xvec *out)
{
    if (!cx->shared)
        return weir__eval_node(cx, e->args[0], active, out);
    xshared *s = &cx->shared[e->p0];
    uint32_t n = cx->n;
    if (s->all) {
        *out = s->v;
        return 0;
    }
    if (!s->done) {
        int rc = weir__eval_node(cx, e->args[0], active, &s->v);
        if (rc)
            return rc;
        if (!active) {
            s->all = true;
        } else {
            s->done = weir__x_alloc(cx, n ? n : 1);
            if (!s->done)
                return oom(cx);
            memcpy(s->done, active, n);
        }
        *out = s->v;
        return 0;
    }
    uint8_t *need = weir__x_alloc(cx, n ? n : 1);
    if (!need)
        return oom(cx);
    bool any = false;
    for (uint32_t i = 0; i < n; i++) {
        need[i] = (!active || active[i]) && !s->done[i];
        any |= need[i];
    }
    if (!any) {
        *out = s->v;
        return 0;
    }
    xvec v, m;
    int rc = weir__eval_node(cx, e->args[0], need, &v);
    if (rc || (rc = alloc_vec(cx, e->type, &m)))
        return rc;
    m.nulls = weir__x_zalloc(cx, n ? n : 1);
    if (!m.nulls)
        return oom(cx);
    size_t w = phys_width(e->type);
    bool all = true;
    for (uint32_t i = 0; i < n; i++) {
        if (need[i]) {
            copy_row(&m, &v, i, w);
            s->done[i] = 1;
        } else if (s->done[i]) {
            copy_row(&m, &s->v, i, w);
        } else {
            all = false;
        }
    }
    drop_no_nulls(&m, n);
    s->v = m;
    s->all = all;
    *out = m;
    return 0;
}

int weir__eval_node(ecx *cx, const weir_expr *e, const uint8_t *active, xvec *out)
{
    switch (e->kind) {
    case N_COLUMN: return load_column(cx, e, out);
    case N_LITERAL: return load_literal(cx, e, out);
    case N_AND:
    case N_OR: return eval_andor(cx, e, active, out);
    case N_CASE: return eval_case(cx, e, active, out);
    case N_IF: return eval_if(cx, e, active, out);
    case N_COALESCE: return eval_coalesce(cx, e, active, out);
    case N_SHARED: return eval_shared(cx, e, active, out);
    default: return eval_call(cx, e, active, out);
    }
}

/* ---- top level ---- */

static void cx_init(ecx *cx, weir_expr_env *env, weir_error *err, const weir_batch *in, uint32_t n,
                    const weir_expr *root)
{
    memset(cx, 0, sizeof *cx);
    cx->env = env;
    cx->tz = env->tz ? env->tz : root ? root->tz : NULL;
    cx->err = err;
    cx->in = in;
    cx->n = n;
    weir__x_reset(env);
}

static void set_valid_bit(weir_column *c, uint32_t i, bool valid)
{
    if (valid)
        c->valid[i >> 3] |= (uint8_t)(1u << (i & 7));
    else
        c->valid[i >> 3] &= (uint8_t) ~(1u << (i & 7));
}

static int store(ecx *cx, const xvec *v, weir_batch *out, uint32_t col)
{
    uint32_t n = cx->n;
    weir_column *c = &out->cols[col];
    if (n > out->capacity)
        return weir_error_set(cx->err, WEIR_EINVAL, "output batch holds %u rows, input has %u", out->capacity, n);
    if (v->nulls) {
        if (c->all_valid) {
            memset(c->valid, 0xff, (out->capacity + 7) / 8);
            c->all_valid = false;
        }
        for (uint32_t i = 0; i < n; i++)
            set_valid_bit(c, i, !v->nulls[i]);
    } else if (!c->all_valid) {
        for (uint32_t i = 0; i < n; i++)
            set_valid_bit(c, i, true);
    }
    switch (c->type.id) {
    case WEIR_TYPE_STRING:
    case WEIR_TYPE_BYTES:
    case WEIR_TYPE_ARRAY:
    case WEIR_TYPE_MAP:
    case WEIR_TYPE_MULTISET:
    case WEIR_TYPE_ROW: {
        const xstr *s = v->data;
        size_t total = 0;
        for (uint32_t i = 0; i < n; i++)
            total += (v->nulls && v->nulls[i]) ? 0 : s[i].len;
        /* Strings may point into out's own heap (out == in): stage them first. */
        const char *heap_lo = out->heap, *heap_hi = out->heap + out->heap_len;
        bool alias = false;
        for (uint32_t i = 0; i < n && !alias; i++)
            alias = s[i].len && s[i].ptr >= heap_lo && s[i].ptr < heap_hi;
        char *stage = NULL;
        if (alias && total) {
            stage = weir__x_alloc(cx, total);
            if (!stage)
                return oom(cx);
            size_t off = 0;
            for (uint32_t i = 0; i < n; i++)
                if (!(v->nulls && v->nulls[i])) {
                    memcpy(stage + off, s[i].ptr, s[i].len);
                    off += s[i].len;
                }
        }
        char *dst = NULL;
        weir_strref base = {0, 0};
        if (total) {
            int rc = weir_batch_heap_alloc(out, total, &dst, &base);
            if (rc)
                return weir_error_set(cx->err, rc, "string heap of the output batch is full");
        }
        weir_strref *refs = c->data;
        size_t off = 0;
        /* A row whose string is the row above's own bytes (the same pointer and length: DATE_FORMAT gives the
         * rows of one second one text, a constant is one text) shares them in the heap, not copied again;
         * the heap gives back what was not used. Staged strings are all copied. */
        const char *above = NULL;
        uint32_t above_len = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (v->nulls && v->nulls[i]) {
                refs[i] = (weir_strref){0, 0};
                above = NULL;
                continue;
            }
            /* above is NULL at the first row and after a NULL one, and an empty text may lie at NULL */
            if (above && s[i].ptr == above && s[i].len == above_len) {
                refs[i] = refs[i - 1];
                continue;
            }
            if (s[i].len)
                memcpy(dst + off, stage ? stage + off : s[i].ptr, s[i].len);
            refs[i] = (weir_strref){(uint32_t)(base.off + off), s[i].len};
            off += s[i].len;
            above = stage ? NULL : s[i].ptr;
            above_len = s[i].len;
        }
        if (total)
            out->heap_len = base.off + off; /* the allocation was the heap's last */
        break;
    }
    default: {
        size_t w = weir_type_size(c->type);
        if (v->data != c->data)
            memmove(c->data, v->data, (size_t)n * w);
        if (v->nulls)
            for (uint32_t i = 0; i < n; i++)
                if (v->nulls[i])
                    memset((char *)c->data + (size_t)i * w, 0, w);
    }
    }
    return 0;
}

static bool out_type_ok(weir_type e, weir_type c)
{
    if (e.id == WEIR_TYPE_NULL)
        return true;
    if (e.id != c.id)
        return false;
    if (e.id == WEIR_TYPE_DECIMAL && e.scale != c.scale)
        return false;
    return true;
}

/* Evaluates e for the cx->n rows of the evaluation into column out_col of out. */
static int eval_into(ecx *cx, const weir_expr *e, weir_batch *out, uint32_t out_col)
{
    weir_type ct = out->cols[out_col].type;
    if (!out_type_ok(e->type, ct)) {
        char b1[64], b2[64];
        return weir_error_set(cx->err, WEIR_EINVAL, "expression of type %s cannot be stored in a %s column",
                              weir_expr_type_name(e->type, e->iv, b1, sizeof b1),
                              weir_expr_type_name(ct, WEIR_INTERVAL_NONE, b2, sizeof b2));
    }
    xvec v;
    int rc = weir__eval_node(cx, e, NULL, &v);
    if (rc)
        return rc;
    if (e->type.id == WEIR_TYPE_NULL) {
        /* An untyped NULL: store NULLs of the column's type. */
        for (uint32_t i = 0; i < cx->n; i++)
            weir_batch_set_null(out, out_col, i);
        return 0;
    }
    return store(cx, &v, out, out_col);
}

int weir_expr_eval(const weir_expr *e, const weir_batch *in, weir_expr_env *env, weir_batch *out,
                   uint32_t out_col, weir_error *err)
{
    if (!e || !in || !env || !out || out_col >= out->schema->n_fields)
        return weir_error_set(err, WEIR_EINVAL, "weir_expr_eval: invalid argument");
    ecx cx;
    cx_init(&cx, env, err, in, in->n_rows, e);
    return eval_into(&cx, e, out, out_col);
}

static int check_filter(const weir_expr *e, weir_error *err)
{
    if (e->type.id != WEIR_TYPE_BOOLEAN && e->type.id != WEIR_TYPE_NULL)
        return weir_error_set(err, WEIR_EINVAL, "a filter condition must be BOOLEAN, not %s",
                              weir_type_name(e->type.id));
    return 0;
}

/* Evaluates the filter e over the cx->n rows into sel. */
static int eval_filter(ecx *cx, const weir_expr *e, uint8_t *sel)
{
    xvec v;
    int rc = weir__eval_node(cx, e, NULL, &v);
    if (rc)
        return rc;
    const uint8_t *d = v.data;
    uint32_t n = cx->n;
    if (e->type.id == WEIR_TYPE_NULL) {
        memset(sel, 0, n);
    } else if (v.nulls) {
        for (uint32_t i = 0; i < n; i++)
            sel[i] = d[i] & !v.nulls[i];
    } else {
        memcpy(sel, d, n);
    }
    return 0;
}

int weir_expr_filter(const weir_expr *e, const weir_batch *in, weir_expr_env *env, uint8_t *sel, weir_error *err)
{
    if (!e || !in || !env || !sel)
        return weir_error_set(err, WEIR_EINVAL, "weir_expr_filter: invalid argument");
    int rc = check_filter(e, err);
    if (rc)
        return rc;
    ecx cx;
    cx_init(&cx, env, err, in, in->n_rows, e);
    return eval_filter(&cx, e, sel);
}

uint32_t weir_expr_calc_shared(const weir_expr_calc *c) { return c ? c->n_shared : 0; }

/* Starts an evaluation of calc c over in, with empty slots for its shared subexpressions. */
static int calc_init(ecx *cx, const weir_expr_calc *c, const weir_batch *in, weir_expr_env *env, weir_error *err)
{
    cx_init(cx, env, err, in, in->n_rows, c->filter ? c->filter : c->n ? c->exprs[0] : NULL);
    if (c->n_shared && !(cx->shared = weir__x_zalloc(cx, c->n_shared * sizeof *cx->shared)))
        return oom(cx);
    return 0;
}

int weir_expr_calc_filter(const weir_expr_calc *c, const weir_batch *in, weir_expr_env *env, uint8_t *sel,
                          weir_error *err)
{
    if (!c || !c->filter || !in || !env || !sel)
        return weir_error_set(err, WEIR_EINVAL, "weir_expr_calc_filter: invalid argument");
    ecx cx;
    int rc = calc_init(&cx, c, in, env, err);
    return rc ? rc : eval_filter(&cx, c->filter, sel);
}

/* Keeps the rows of every filled slot listed in rows[0..m), in order. */
static int compact_slots(ecx *cx, uint32_t n_slots, const uint32_t *rows, uint32_t m)
{
    for (uint32_t k = 0; k < n_slots; k++) {
        xshared *s = &cx->shared[k];
        if (!s->all && !s->done)
            continue;
        xvec v;
        uint8_t *done = s->all ? NULL : weir__x_alloc(cx, m ? m : 1);
        int rc = alloc_vec(cx, s->v.type, &v);
        if (rc)
            return rc;
        v.nulls = weir__x_zalloc(cx, m ? m : 1);
        if (!v.nulls || (!s->all && !done))
            return oom(cx);
        size_t w = phys_width(s->v.type);
        for (uint32_t j = 0; j < m; j++) {
            copy_row_to(&v, j, &s->v, rows[j], w);
            if (done)
                done[j] = s->done[rows[j]];
        }
        drop_no_nulls(&v, m);
        s->v = v;
        s->done = done;
    }
    return 0;
}

int weir_expr_calc_run(const weir_expr_calc *c, const weir_batch *in, weir_expr_env *env, weir_batch *out,
                       weir_error *err)
{
    if (!c || !c->exprs || !in || !env || !out || out == in || c->n > out->schema->n_fields ||
        in->n_rows > out->capacity)
        return weir_error_set(err, WEIR_EINVAL, "weir_expr_calc_run: invalid argument");
    weir_batch_reset(out);
    ecx cx;
    int rc = calc_init(&cx, c, in, env, err);
    uint32_t n = in->n_rows, m = n;
    uint32_t *rows = NULL;
    if (!rc && c->filter) {
        uint8_t *sel = weir__x_alloc(&cx, n ? n : 1);
        if (!sel)
            return oom(&cx);
        if ((rc = eval_filter(&cx, c->filter, sel)))
            return rc;
        m = 0;
        for (uint32_t i = 0; i < n; i++)
            m += sel[i] != 0;
        if (m == 0)
            return 0;
        if (m < n) {
            /* The projections read the kept rows only; the slots follow them. */
            if (!(rows = weir__x_alloc(&cx, m * sizeof *rows)))
                return oom(&cx);
            for (uint32_t i = 0, j = 0; i < n; i++)
                if (sel[i])
                    rows[j++] = i;
            if ((rc = compact_slots(&cx, c->n_shared, rows, m)))
                return rc;
            cx.rows = rows;
            cx.n = m;
        }
    }
    for (uint32_t k = 0; !rc && k < c->n; k++)
        rc = eval_into(&cx, c->exprs[k], out, k);
    if (rc)
        return rc;
    for (uint32_t j = 0; j < m; j++) {
        out->ts[j] = in->ts[rows ? rows[j] : j];
        out->kind[j] = in->kind[rows ? rows[j] : j];
    }
    out->n_rows = m;
    return 0;
}

int weir_expr_project(weir_expr *const *exprs, uint32_t n, const weir_batch *in, weir_expr_env *env,
                      weir_batch *out, weir_error *err)
{
    if (!in || !out || out == in || n > out->schema->n_fields || in->n_rows > out->capacity)
        return weir_error_set(err, WEIR_EINVAL, "weir_expr_project: invalid argument");
    weir_batch_reset(out);
    for (uint32_t k = 0; k < n; k++) {
        int rc = weir_expr_eval(exprs[k], in, env, out, k, err);
        if (rc)
            return rc;
    }
    memcpy(out->ts, in->ts, in->n_rows * sizeof *out->ts);
    memcpy(out->kind, in->kind, in->n_rows);
    out->n_rows = in->n_rows;
    return 0;
}

int weir_expr_eval_row(const weir_expr *e, const weir_batch *in, uint32_t row, weir_expr_env *env, weir_value *out,
                       weir_error *err)
{
    if (!e || !env || !out || (in && row >= in->n_rows))
        return weir_error_set(err, WEIR_EINVAL, "weir_expr_eval_row: invalid argument");
    /* A one-row view of the input: columns are offset by `row`. */
    weir_batch view;
    weir_column cols_small[16];
    uint8_t bits_small[16];
    weir_column *cols = cols_small;
    uint8_t *bits = bits_small;
    if (in) {
        view = *in;
        view.key_hash_of = NULL; /* its rows start at `row` */
        uint32_t nf = in->schema->n_fields;
        if (nf > 16) {
            cols = weir_malloc(nf * (sizeof *cols + 1));
            if (!cols)
                return weir_error_set(err, WEIR_ENOMEM, "out of memory");
            bits = (uint8_t *)(cols + nf);
        }
        for (uint32_t c = 0; c < nf; c++) {
            cols[c] = in->cols[c];
            cols[c].data = (char *)in->cols[c].data + (size_t)row * weir_type_size(in->cols[c].type);
            bits[c] = !weir_batch_is_null(in, c, row);
            cols[c].valid = &bits[c];
        }
        view.cols = cols;
        view.n_rows = 1;
    }
    ecx cx;
    cx_init(&cx, env, err, in ? &view : NULL, 1, e);
    xvec v;
    int rc = weir__eval_node(&cx, e, NULL, &v);
    if (cols != cols_small)
        weir_free(cols);
    if (rc)
        return rc;
    memset(out, 0, sizeof *out);
    out->type = e->type;
    out->is_null = e->type.id == WEIR_TYPE_NULL || (v.nulls && v.nulls[0]);
    if (out->is_null)
        return 0;
    switch (e->type.id) {
    case WEIR_TYPE_BOOLEAN: out->v.b = ((uint8_t *)v.data)[0]; break;
    case WEIR_TYPE_DATE:
    case WEIR_TYPE_TIME:
    case WEIR_TYPE_INT: out->v.i32 = ((int32_t *)v.data)[0]; break;
    case WEIR_TYPE_DOUBLE: out->v.f64 = ((double *)v.data)[0]; break;
    case WEIR_TYPE_STRING:
    case WEIR_TYPE_BYTES:
    case WEIR_TYPE_ARRAY:
    case WEIR_TYPE_MAP:
    case WEIR_TYPE_MULTISET:
    case WEIR_TYPE_ROW: out->v.s = ((xstr *)v.data)[0]; break; /* valid until the env's next evaluation */
    default:
        if (weir_type_is_wide(e->type))
            WEIR__I128_SET(out->v.i128, ((weir_i128 *)v.data)[0]);
        else
            out->v.i64 = ((int64_t *)v.data)[0];
    }
    return 0;
}
