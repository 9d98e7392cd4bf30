/*
 * planner/splitdistinct.c - split distinct aggregation, as Flink's
 * table.optimizer.distinct-agg.split.enabled: a GROUP BY whose aggregates
 * include a DISTINCT one runs as two aggregations,
 *
 *   partial: GROUP BY keys, bucket [, $e]   (the original aggregates)
 *   final:   GROUP BY keys                  (aggregates of the partials)
 *
 * where bucket = a hash of the distinct argument MOD bucket-num (default
 * 1024). Every value of the distinct argument falls into one bucket, so
 * the distinct values of different buckets are different and their counts
 * (sums, extremes) combine by SUM0 (SUM, MIN, MAX). A hot key's rows are
 * spread over the buckets, and so over the subtasks, by the partial
 * aggregation; the final one sees a row only when a bucket's partial
 * result changes.
 *
 * With DISTINCT aggregates of several arguments each row is expanded, as
 * Flink's Expand: one copy per argument, $e numbering the copy, bucketed by
 * that argument; every aggregate reads only its copy (a FILTER on $e), the
 * non-distinct ones the first.
 *
 * The final aggregation's input is a changelog (the partial results are
 * updated), so MIN and MAX there retract. The final results are the
 * unsplit aggregation's exactly; the changelog on the way differs (a
 * change of the partial result is a -U/+U pair of the final one, where the
 * unsplit aggregation may emit one update for the same rows).
 *
 * A window aggregation (TUMBLE, HOP, CUMULATE, on the terms of two-phase
 * aggregation, query.c) splits the same way: the partial window
 * aggregation is keyed by the keys and the bucket, and its rows, each
 * carrying its window's last instant, are aggregated per window by a final
 * one of tumbling windows of the step that end where they end (as a
 * cascaded window aggregation). Window operators take no FILTER column, so
 * a window aggregation is split only with one distinct column.
 *
 * What is split: COUNT, COUNT(DISTINCT), MIN, MAX, and SUM, SUM0 and AVG
 * (plain or DISTINCT) of exact numbers. AVG splits as Flink splits it: SUM
 * and COUNT of its rows (with its DISTINCT and FILTER) in the partial
 * aggregation, SUM of the sums and SUM0 of the counts in the final one, and
 * a Calc after it divides them as AVG itself does ($AVG: integers truncate
 * toward zero, a DECIMAL(p, s) gives DECIMAL(38, max(6, s)) HALF_UP), so
 * the result and its type are the unsplit AVG's. Any other aggregate (the
 * variance family, a SUM or AVG of DOUBLE that would round differently,
 * order-dependent and user-defined functions, APPROX_COUNT_DISTINCT) keeps
 * the aggregation in one piece, as does an aggregation without a DISTINCT
 * one.
 * The bucket is MOD(x, n) for an integer x, else MOD(HASH_CODE(CAST(x AS
 * STRING)), n); which bucket a value gets changes no result.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ops/ops.h"
#include "planner/planner.h"
#include "runtime/checkpoint.h"
#include "weir/connector.h"
#include "weir/job.h"

#define ENABLED_KEY "table.optimizer.distinct-agg.split.enabled"
#define BUCKETS_KEY "table.optimizer.distinct-agg.split.bucket-num"

static bool is_distinct(const weir_agg *a)
{
    return a->inner || !strcmp(a->cls->name, "COUNT_DISTINCT");
}

/* The number of distinct argument columns (of copies of each row). */
static uint32_t n_dargs(const weir_agg *aggs, uint32_t n)
{
    uint32_t nd = 0;
    for (uint32_t i = 0; i < n; i++) {
        bool first = is_distinct(&aggs[i]);
        for (uint32_t j = 0; j < i && first; j++)
            first = !(is_distinct(&aggs[j]) && aggs[j].input_col == aggs[i].input_col);
        nd += first;
    }
    return nd;
}

/* Whether a is an AVG of an exact number (it splits into a SUM and a COUNT). */
static bool is_avg(const weir_agg *a)
{
    if (a->udf)
        return false;
    const char *n = a->inner ? a->inner->name : a->cls->name;
    weir_type_id t = a->input_type.id;
    return !strcmp(n, "AVG") && (t == WEIR_TYPE_INT || t == WEIR_TYPE_BIGINT || t == WEIR_TYPE_DECIMAL);
}

/* The number of partial (and final) aggregates: one per aggregate, two per AVG. */
static uint32_t n_partials(const weir_agg *aggs, uint32_t n)
{
    uint32_t np = n;
    for (uint32_t i = 0; i < n; i++)
        np += is_avg(&aggs[i]);
    return np;
}

/* The function that combines partial results of a, or NULL when a does not split exactly. */
static const char *final_fn(const weir_agg *a)
{
    if (a->udf)
        return NULL;
    const char *n = a->inner ? a->inner->name : a->cls->name;
    if (!strcmp(n, "COUNT") || !strcmp(n, "COUNT_DISTINCT"))
        return a->inner ? NULL : "SUM0";
    if (!strncmp(n, "MIN", 3) && (!n[3] || !strcmp(n + 3, "_RETRACT")))
        return a->inner ? NULL : "MIN_RETRACT";
    if (!strncmp(n, "MAX", 3) && (!n[3] || !strcmp(n + 3, "_RETRACT")))
        return a->inner ? NULL : "MAX_RETRACT";
    weir_type_id t = a->input_type.id;
    bool exact = t == WEIR_TYPE_INT || t == WEIR_TYPE_BIGINT || t == WEIR_TYPE_DECIMAL;
    if (exact && !strcmp(n, "SUM"))
        return "SUM";
    if (exact && !strcmp(n, "SUM0"))
        return "SUM0";
    return NULL;
}

/* a MOD n, in [0, n): the remainder's sign follows a's. */
static int mod_pos(plan_ctx *pc, weir_expr *a, uint32_t n, weir_expr **out, weir_error *err)
{
    weir_expr *m = weir_expr_lit_bigint(pc->arena, n);
    weir_expr *m2 = weir_expr_lit_bigint(pc->arena, n);
    weir_expr *m3 = weir_expr_lit_bigint(pc->arena, n);
    if (!m || !m2 || !m3)
        return WEIR_ENOMEM;
    weir_expr *args[2] = {a, m};
    int rc = weir_expr_call(pc->arena, "MOD", args, 2, &args[0], err);
    if (!rc) {
        args[1] = m2;
        rc = weir_expr_call(pc->arena, "+", args, 2, &args[0], err);
    }
    if (!rc) {
        args[1] = m3;
        rc = weir_expr_call(pc->arena, "MOD", args, 2, out, err);
    }
    return rc;
}

/*
 * The bucket of column col (type t) of the partial aggregation's input:
 * integers by value, anything else by HASH_CODE of its text. Values the
 * distinct aggregates take as equal must share the bucket: a floating-point
 * zero is read as +0 first (-0.0 = 0.0), and every NaN prints alike.
 */
static int bucket_expr(plan_ctx *pc, uint32_t col, weir_type t, uint32_t n, weir_expr **out, weir_error *err)
{
    weir_expr *x;
    int rc = weir_expr_column(pc->arena, col, t, &x, err);
    if (rc)
        return rc;
    weir_type big = weir_type_make(WEIR_TYPE_BIGINT, true);
    if (t.id == WEIR_TYPE_INT || t.id == WEIR_TYPE_BIGINT) {
        if ((rc = weir_expr_cast(pc->arena, x, big, false, &x, err)))
            return rc;
        return mod_pos(pc, x, n, out, err);
    }
    if (t.id == WEIR_TYPE_DOUBLE) {
        weir_expr *x2, *zero = weir_expr_lit_double(pc->arena, 0), *zero2 = weir_expr_lit_double(pc->arena, 0);
        if (!zero || !zero2)
            return WEIR_ENOMEM;
        if ((rc = weir_expr_column(pc->arena, col, t, &x2, err)))
            return rc;
        weir_expr *args[2] = {x, zero}, *cond;
        if ((rc = weir_expr_call(pc->arena, "=", args, 2, &cond, err)) ||
            (rc = weir_expr_case(pc->arena, &cond, &zero2, 1, x2, &x, err)))
            return rc;
    }
    if (t.id != WEIR_TYPE_STRING &&
        (rc = weir_expr_cast(pc->arena, x, weir_type_make(WEIR_TYPE_STRING, true), false, &x, err)))
        return rc;
    if ((rc = weir_expr_call(pc->arena, "HASH_CODE", &x, 1, &x, err)) ||
        (rc = weir_expr_cast(pc->arena, x, big, false, &x, err)))
        return rc;
    return mod_pos(pc, x, n, out, err);
}

int plan_split_distinct_buckets(plan_ctx *pc, const weir_schema *in, uint32_t n_keys, const weir_agg *aggs,
                                uint32_t n, bool window, weir_sql_loc loc, uint32_t *buckets)
{
    *buckets = 0;
    const char *v = plan_config(pc, ENABLED_KEY);
    bool on = false;
    if (v && weir_option_parse_bool(v, &on))
        return plan_error(pc, plan_config_at(pc, ENABLED_KEY, loc), WEIR_EINVAL,
                          "%s: expected 'true' or 'false', got '%s'", ENABLED_KEY, v);
    uint32_t nb = 1024;
    if ((v = plan_config(pc, BUCKETS_KEY))) {
        char *end;
        unsigned long long x = strtoull(v, &end, 10);
        if (!*v || *v == '-' || *end || x == 0 || x > (1u << 20))
            return plan_error(pc, plan_config_at(pc, BUCKETS_KEY, loc), WEIR_EINVAL,
                              "%s: expected an integer from 1 to %u, got '%s'", BUCKETS_KEY, 1u << 20, v);
        nb = (uint32_t)x;
    }
    if (!on)
        return 0;
    bool any = false;
    for (uint32_t i = 0; i < n; i++) {
        const char *fn = final_fn(&aggs[i]);
        if (!fn && !is_avg(&aggs[i]))
            return 0;
        /* the final function must give the original's type (it does for every function above) */
        weir_schema *s = weir_schema_create();
        weir_agg f;
        weir_error err = {0};
        if (!s || weir_schema_add(s, "p", aggs[i].result_type) < 0) {
            weir_schema_destroy(s);
            return WEIR_ENOMEM;
        }
        int rc = fn ? weir_agg_bind(fn, s, 0, 0, &f, &err) : 0; /* an AVG's type is $AVG's */
        weir_schema_destroy(s);
        if (rc == WEIR_ENOMEM)
            return rc;
        if (fn && (rc || !weir_type_same(f.result_type, aggs[i].result_type) ||
                   f.result_type.nullable != aggs[i].result_type.nullable))
            return 0;
        if (!is_distinct(&aggs[i]))
            continue;
        /* a type whose values cannot be bucketed keeps one piece */
        weir_expr *b;
        uint32_t c = (uint32_t)aggs[i].input_col;
        if ((rc = bucket_expr(pc, c, in->fields[c].type, nb, &b, &err)))
            return rc == WEIR_ENOMEM ? rc : 0;
        any = true;
    }
    /* the partial aggregation's keys: the group keys, the bucket and, for several distinct columns, $e */
    uint32_t nd = n_dargs(aggs, n);
    if (any && n_keys + 1 + (nd > 1) <= WEIR_KEY_MAX_COLS && (!window || nd == 1))
        *buckets = nb;
    return 0;
}

/*
 * The partial aggregation's input: pr's columns and the bucket; when
 * expanded (*expand: several distinct columns), one copy of each row per
 * column, united, with $e and a BOOLEAN filter column per aggregate after
 * the bucket.
 */
static int split_input(plan_ctx *pc, const rel *pr, const weir_agg *aggs, const int32_t *filters, uint32_t n,
                       uint32_t buckets, weir_sql_loc loc, weir_stream *pin_out, rel *cr_out, bool *expand_out)
{
    int rc;
    weir_error err = {0};
    /* the distinct arguments, in order of first use: the copies of the expansion */
    int32_t *dargs = plan_alloc(pc, (n + 1) * sizeof *dargs);
    uint32_t *copy_of = plan_alloc(pc, (n + 1) * sizeof *copy_of);
    if (!dargs || !copy_of)
        return WEIR_ENOMEM;
    uint32_t nd = 0;
    for (uint32_t i = 0; i < n; i++) {
        copy_of[i] = 0;
        if (!is_distinct(&aggs[i]))
            continue;
        uint32_t d = 0;
        while (d < nd && dargs[d] != aggs[i].input_col)
            d++;
        if (d == nd)
            dargs[nd++] = aggs[i].input_col;
        copy_of[i] = d;
    }
    bool expand = nd > 1;
    /* partial input: pr's columns, the bucket, and when expanded $e and one filter per aggregate */
    uint32_t np = pr->n_physical;
    uint32_t width = np + 1 + (expand ? 1 + n : 0);
    rel *copies = plan_alloc(pc, nd * sizeof *copies);
    weir_stream *ins = plan_alloc(pc, nd * sizeof *ins);
    rel cr = {0};
    if (!copies || !ins)
        return WEIR_ENOMEM;
    for (uint32_t d = 0; d < nd; d++) {
        weir_expr **ex = plan_alloc(pc, (width + 1) * sizeof *ex);
        const char **names = plan_alloc(pc, (width + 1) * sizeof *names);
        if (!ex || !names)
            return WEIR_ENOMEM;
        for (uint32_t c = 0; c < np; c++) {
            if ((rc = weir_expr_column(pc->arena, c, pr->schema->fields[c].type, &ex[c], &err)))
                return rc;
            names[c] = pr->schema->fields[c].name;
        }
        uint32_t dc = (uint32_t)dargs[d];
        if ((rc = bucket_expr(pc, dc, pr->schema->fields[dc].type, buckets, &ex[np], &err)))
            return rc == WEIR_ENOMEM ? rc : plan_error(pc, loc, rc, "split distinct aggregation: %s", err.message);
        names[np] = "$bucket";
        if (expand) {
            /* $e and the filters: aggregate i sees the rows of its copy (and its own FILTER) */
            if (!(ex[np + 1] = weir_expr_lit_int(pc->arena, (int32_t)d)))
                return WEIR_ENOMEM;
            names[np + 1] = "$e";
            for (uint32_t i = 0; i < n; i++) {
                weir_expr *f;
                if (copy_of[i] != d)
                    f = weir_expr_lit_bool(pc->arena, false);
                else if (filters && filters[i] >= 0)
                    rc = weir_expr_column(pc->arena, (uint32_t)filters[i], pr->schema->fields[filters[i]].type,
                                          &f, &err);
                else
                    f = weir_expr_lit_bool(pc->arena, true);
                if (rc)
                    return rc;
                if (!f)
                    return WEIR_ENOMEM;
                char nm[32];
                snprintf(nm, sizeof nm, "$f%u", i);
                ex[np + 2 + i] = f;
                names[np + 2 + i] = plan_strdup(pc, nm);
                if (!names[np + 2 + i])
                    return WEIR_ENOMEM;
            }
        }
        rel in = *pr;
        if ((rc = plan_calc(pc, &in, NULL, ex, names, width, &cr, expand ? "Expand" : "Calc")))
            return rc;
        copies[d] = cr;
    }
    weir_stream pin = cr.s;
    if (expand) {
        /* one schema for every copy: a column is nullable where any copy's is */
        weir_schema *us_schema = plan_union_schema(pc, copies, nd);
        if (!us_schema)
            return WEIR_ENOMEM;
        for (uint32_t d = 0; d < nd; d++) {
            if ((rc = plan_union_align(pc, &copies[d], us_schema)))
                return rc;
            ins[d] = plan_union_input(pc, &copies[d]);
        }
        cr = copies[0];
        cr.schema = us_schema;
        weir_operator_spec us;
        if ((rc = weir_union_spec(nd, &us)))
            return rc;
        if ((rc = weir_job_operator(pc->job, ins, nd, &us, us_schema, 0, &pin))) {
            us.free_arg(us.arg);
            return plan_error(pc, loc, rc, "cannot expand the rows: %s", weir_job_error(pc->job));
        }
    }
    *pin_out = pin;
    *cr_out = cr;
    *expand_out = expand;
    return 0;
}

/*
 * The bucket count is part of what the partial aggregation's state means: a
 * value seen before a restore must fall in the same bucket after it, or it
 * is counted again. Recorded in the operator's fingerprint, so that a
 * restore with another table.optimizer.distinct-agg.split.bucket-num is
 * refused, naming it.
 */
static int describe_buckets(plan_ctx *pc, weir_stream s, uint32_t buckets)
{
    char v[16];
    snprintf(v, sizeof v, "%u", buckets);
    return weir_job_describe_state(pc->job, s, "split distinct buckets", v);
}

/*
 * The partial aggregates of aggs over the partial input `in` (pa, n_partials
 * of them: an AVG's SUM and COUNT in its place), the function of the final
 * aggregate over each (fns), and the filter column of each (pf, when not
 * NULL) from the aggregates' (f).
 */
static int partial_aggs(plan_ctx *pc, const weir_schema *in, const weir_agg *aggs, const int32_t *f, uint32_t n,
                        weir_sql_loc loc, weir_agg *pa, const char **fns, int32_t *pf)
{
    weir_error err = {0};
    int rc;
    for (uint32_t i = 0, j = 0; i < n; i++) {
        if (is_avg(&aggs[i])) {
            bool d = is_distinct(&aggs[i]);
            if ((rc = weir_agg_bind(d ? "SUM_DISTINCT" : "SUM", in, aggs[i].input_col, 0, &pa[j], &err)) ||
                (rc = weir_agg_bind(d ? "COUNT_DISTINCT" : "COUNT", in, aggs[i].input_col, 0, &pa[j + 1], &err)))
                return plan_error(pc, loc, rc, "split distinct aggregation: %s", err.message);
            fns[j] = "SUM";
            fns[j + 1] = "SUM0";
            if (pf)
                pf[j] = pf[j + 1] = f[i];
            j += 2;
        } else {
            pa[j] = aggs[i];
            fns[j] = final_fn(&aggs[i]);
            if (pf)
                pf[j] = f[i];
            j++;
        }
    }
    return 0;
}

int plan_split_distinct(plan_ctx *pc, const rel *pr, uint32_t n_keys, const weir_agg *aggs, const int32_t *filters,
                        uint32_t n, uint32_t buckets, const weir_group_agg_config *like, weir_sql_loc loc,
                        weir_stream *out, const weir_schema **out_schema, weir_agg *final, uint32_t *n_final)
{
    weir_error err = {0};
    weir_stream pin;
    rel cr;
    bool expand;
    uint32_t np = pr->n_physical, npart = n_partials(aggs, n);
    int rc = split_input(pc, pr, aggs, filters, n, buckets, loc, &pin, &cr, &expand);
    if (rc)
        return rc;
    /* the partial aggregation: keys, bucket [, $e], then the original aggregates of the rows (an AVG's SUM and
     * COUNT) */
    weir_schema *ps = plan_new_schema(pc);
    if (!ps)
        return WEIR_ENOMEM;
    weir_keyspec ks = {.n = n_keys + 1 + expand}; /* plan_split_distinct_buckets checked the count */
    for (uint32_t k = 0; k < n_keys; k++)
        ks.cols[k] = k;
    ks.cols[n_keys] = np;
    if (expand)
        ks.cols[n_keys + 1] = np + 1;
    for (uint32_t k = 0; k < ks.n; k++)
        if (weir_schema_add(ps, cr.schema->fields[ks.cols[k]].name, cr.schema->fields[ks.cols[k]].type) < 0)
            return WEIR_ENOMEM;
    int32_t *pf = plan_alloc(pc, (npart + 1) * sizeof *pf), *f = plan_alloc(pc, (n + 1) * sizeof *f);
    weir_agg *pa = plan_alloc(pc, (npart + 1) * sizeof *pa);
    const char **fns = plan_alloc(pc, (npart + 1) * sizeof *fns);
    if (!pf || !f || !pa || !fns)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < n; i++)
        f[i] = expand ? (int32_t)(np + 2 + i) : filters ? filters[i] : -1;
    if ((rc = partial_aggs(pc, cr.schema, aggs, f, n, loc, pa, fns, pf)))
        return rc;
    uint32_t j;
    for (j = 0; j < npart; j++) {
        char nm[32];
        snprintf(nm, sizeof nm, "$partial%u", j);
        if (weir_schema_add(ps, nm, pa[j].result_type) < 0)
            return WEIR_ENOMEM;
    }
    weir_group_agg_config gc = *like;
    gc.keys = ks;
    gc.aggs = pa;
    gc.n_aggs = npart;
    gc.filter_cols = pf;
    gc.out_schema = ps;
    weir_operator_spec spec;
    if ((rc = weir_group_agg_spec(&gc, &spec)))
        return rc;
    weir_stream keyed = weir_stream_key_by(pin, ks.cols, ks.n);
    if ((rc = weir_job_operator(pc->job, &keyed, 1, &spec, ps, 0, out))) {
        spec.free_arg(spec.arg);
        return plan_error(pc, loc, rc, "cannot add the partial aggregation: %s", weir_job_error(pc->job));
    }
    if ((rc = weir__job_describe_aggs(pc->job, *out, pa, npart)) || (rc = describe_buckets(pc, *out, buckets)))
        return rc;
    /* the final aggregates over the partial results */
    for (j = 0; j < npart; j++)
        if ((rc = weir_agg_bind(fns[j], ps, (int32_t)(ks.n + j), 0, &final[j], &err)))
            return plan_error(pc, loc, rc, "split distinct aggregation: %s", err.message);
    *out_schema = ps;
    *n_final = npart;
    return 0;
}

int plan_split_distinct_final_schema(plan_ctx *pc, const weir_schema *os, uint32_t n_keys, const weir_agg *final,
                                     uint32_t n_final, weir_schema **out)
{
    weir_schema *fs = plan_new_schema(pc);
    if (!fs)
        return WEIR_ENOMEM;
    for (uint32_t k = 0; k < n_keys; k++)
        if (weir_schema_add(fs, os->fields[k].name, os->fields[k].type) < 0)
            return WEIR_ENOMEM;
    for (uint32_t j = 0; j < n_final; j++) {
        char nm[32];
        snprintf(nm, sizeof nm, "$final%u", j);
        if (weir_schema_add(fs, nm, final[j].result_type) < 0)
            return WEIR_ENOMEM;
    }
    *out = fs;
    return 0;
}

/* *e (the column of an AVG's partial sum) made $AVG(sum, count column c) of AVG's type `want` (an INT's average is
 * the BIGINT quotient, which fits) */
static int avg_expr(plan_ctx *pc, const weir_schema *s, uint32_t c, weir_type want, weir_expr **e, weir_sql_loc loc)
{
    weir_error err = {0};
    weir_expr *args[2] = {*e, NULL};
    int rc = weir_expr_column(pc->arena, c, s->fields[c].type, &args[1], &err);
    if (rc)
        return rc;
    if ((rc = weir_expr_call(pc->arena, "$AVG", args, 2, e, &err)))
        return plan_error(pc, loc, rc, "split distinct aggregation: %s", err.message);
    if (!weir_type_same(weir_expr_type(*e), want) && (rc = weir_expr_cast(pc->arena, *e, want, false, e, &err)))
        return plan_error(pc, loc, rc, "split distinct aggregation: %s", err.message);
    return 0;
}

int plan_split_distinct_avg(plan_ctx *pc, rel *fin, uint32_t n_keys, const weir_agg *aggs, uint32_t n,
                            const weir_schema *os, rel *out)
{
    weir_error err = {0};
    uint32_t width = n_keys + n;
    weir_expr **ex = plan_alloc(pc, (width + 1) * sizeof *ex);
    const char **names = plan_alloc(pc, (width + 1) * sizeof *names);
    if (!ex || !names)
        return WEIR_ENOMEM;
    int rc;
    for (uint32_t c = 0, j = n_keys; c < width; c++) {
        names[c] = os->fields[c].name;
        uint32_t from = c < n_keys ? c : j++;
        if ((rc = weir_expr_column(pc->arena, from, fin->schema->fields[from].type, &ex[c], &err)))
            return rc;
        if (c >= n_keys && is_avg(&aggs[c - n_keys]) &&
            (rc = avg_expr(pc, fin->schema, j++, os->fields[c].type, &ex[c], fin->loc)))
            return rc;
    }
    return plan_calc(pc, fin, NULL, ex, names, width, out, "Calc");
}

int plan_split_distinct_window(plan_ctx *pc, const rel *pr, uint32_t n_keys, const weir_window_spec *ws,
                               uint32_t buckets, weir_sql_loc loc, int *partial_node, weir_stream *out,
                               const weir_schema **out_schema)
{
    weir_error err = {0};
    weir_stream pin;
    rel cr;
    bool expand;
    uint32_t n = ws->n_aggs, np = pr->n_physical, npart = n_partials(ws->aggs, n);
    int rc = split_input(pc, pr, ws->aggs, NULL, n, buckets, loc, &pin, &cr, &expand);
    if (rc)
        return rc;
    weir_agg *pa = plan_alloc(pc, (npart + 1) * sizeof *pa);
    const char **fns = plan_alloc(pc, (npart + 1) * sizeof *fns);
    if (!pa || !fns)
        return WEIR_ENOMEM;
    if ((rc = partial_aggs(pc, cr.schema, ws->aggs, NULL, n, loc, pa, fns, NULL)))
        return rc;
    if (expand) /* plan_split_distinct_buckets allows one distinct column only */
        return plan_error(pc, loc, WEIR_EPLAN, "internal error: expanded split window aggregation");
    /* partial: the same windows, keyed by the keys and the bucket */
    weir_window_spec in = *ws;
    in.key.n = n_keys + 1;
    in.key.cols[n_keys] = np;
    in.window_time = true;
    in.agg_names = NULL;
    in.aggs = pa;
    in.n_aggs = npart;
    weir_stream ps;
    weir_schema *pss, *fss, *want;
    if ((rc = weir_job_window(pc->job, pin, cr.schema, &in, 0, &ps, &err)))
        return plan_error(pc, loc, rc, "%s", err.message);
    if ((rc = weir_window_output_schema(&in, cr.schema, &pss, &err)))
        return plan_error(pc, loc, rc, "%s", err.message);
    if ((rc = plan_keep_schema(pc, pss)))
        return rc;
    *partial_node = ps.node;
    if ((rc = describe_buckets(pc, ps, buckets)))
        return rc;
    /* the partial window's columns renamed, so that the final window's own do not clash with them */
    uint32_t pw = pss->n_fields;
    weir_expr **pex = plan_alloc(pc, (pw + 1) * sizeof *pex);
    const char **pnames = plan_alloc(pc, (pw + 1) * sizeof *pnames);
    if (!pex || !pnames)
        return WEIR_ENOMEM;
    for (uint32_t c = 0; c < pw; c++) {
        if ((rc = weir_expr_column(pc->arena, c, pss->fields[c].type, &pex[c], &err)))
            return rc;
        char nm[64];
        snprintf(nm, sizeof nm, "$%s", pss->fields[c].name);
        pnames[c] = c > n_keys && c <= n_keys + 3 ? plan_strdup(pc, nm) : pss->fields[c].name;
        if (!pnames[c])
            return WEIR_ENOMEM;
    }
    rel pr2 = {.s = ps, .schema = pss, .rowtime = (int)(n_keys + 3), .n_physical = pw, .loc = loc}, pc2;
    if ((rc = plan_calc(pc, &pr2, NULL, pex, pnames, pw, &pc2, "Calc")))
        return rc;
    pss = pc2.schema;
    ps = pc2.s;
    /*
     * final: each partial row belongs to the window [start, end) named by
     * its columns and carries time end - 1; the tumbling windows of the
     * step that end where those windows end give each its own end, and the
     * partial window_start is a key (as a cascaded window aggregation).
     */
    const weir_window_assigner *a = &ws->assigner;
    int64_t step = a->kind == WEIR_WINDOW_TUMBLING ? a->size_ms : a->slide_ms;
    int64_t off = (a->offset_ms + a->size_ms) % step;
    weir_window_spec fin;
    weir_window_spec_init(&fin);
    fin.assigner = weir_window_tumbling(step, off < 0 ? off + step : off);
    fin.key.n = n_keys + 1;
    for (uint32_t k = 0; k < n_keys; k++)
        fin.key.cols[k] = k;
    fin.key.cols[n_keys] = n_keys + 1; /* the partial window_start */
    fin.window_time = true;
    weir_agg *final = plan_alloc(pc, (npart + 1) * sizeof *final);
    if (!final)
        return WEIR_ENOMEM;
    for (uint32_t j = 0; j < npart; j++)
        if ((rc = weir_agg_bind(fns[j], pss, (int32_t)(n_keys + 4 + j), 0, &final[j], &err)))
            return plan_error(pc, loc, rc, "split distinct aggregation: %s", err.message);
    fin.aggs = final;
    fin.n_aggs = npart;
    weir_stream fs;
    if ((rc = weir_job_window(pc->job, ps, pss, &fin, 0, &fs, &err)))
        return plan_error(pc, loc, rc, "%s", err.message);
    if ((rc = weir_window_output_schema(&fin, pss, &fss, &err)))
        return plan_error(pc, loc, rc, "%s", err.message);
    if ((rc = plan_keep_schema(pc, fss)))
        return rc;
    /* back to the unsplit aggregation's columns: keys, window_start, window_end, window_time, aggregates */
    if ((rc = weir_window_output_schema(ws, pr->schema, &want, &err)))
        return plan_error(pc, loc, rc, "%s", err.message);
    if ((rc = plan_keep_schema(pc, want)))
        return rc;
    uint32_t width = n_keys + 3 + n;
    weir_expr **ex = plan_alloc(pc, (width + 1) * sizeof *ex);
    const char **names = plan_alloc(pc, (width + 1) * sizeof *names);
    if (!ex || !names)
        return WEIR_ENOMEM;
    for (uint32_t c = 0, j = n_keys + 4; c < width; c++) {
        /* keys as they are; window_start is the final key n_keys; then the final window's end and time, and the
         * aggregates (an AVG divided as AVG does) */
        uint32_t from = c <= n_keys ? c : c < n_keys + 3 ? c + 1 : j++;
        if ((rc = weir_expr_column(pc->arena, from, fss->fields[from].type, &ex[c], &err)))
            return rc;
        names[c] = want->fields[c].name;
        if (c >= n_keys + 3 && is_avg(&ws->aggs[c - n_keys - 3]) &&
            (rc = avg_expr(pc, fss, j++, want->fields[c].type, &ex[c], loc)))
            return rc;
    }
    rel fr = {.s = fs, .schema = fss, .rowtime = (int)(n_keys + 3), .n_physical = fss->n_fields, .loc = loc};
    rel o;
    if ((rc = plan_calc(pc, &fr, NULL, ex, names, width, &o, "Calc")))
        return rc;
    *out = o.s;
    *out_schema = o.schema;
    return 0;
}
