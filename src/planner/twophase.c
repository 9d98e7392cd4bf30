/*
 * planner/twophase.c - two-phase (local-global) aggregation, as Flink's
 * table.optimizer.agg-phase-strategy: a local aggregation chained in
 * front of the keyed exchange (ops/local_agg.c) folds each batch's rows
 * per key - and, for a window aggregation, per slice of event time - into
 * partial accumulators; the aggregation behind the exchange merges them
 * (agg/merge.h). A hot key then costs its subtask one row per batch.
 *
 * The strategy: ONE_PHASE never splits; TWO_PHASE splits every
 * aggregation that can be split; AUTO (the default) keeps one phase.
 * Flink's AUTO weighs the two by cost; weir has no statistics of key
 * frequencies to weigh them with, and the local phase is not free: over
 * many keys of even frequency it folds almost nothing (a batch's rows of a
 * key are one or two) yet serialises and merges an accumulator per row,
 * which measured 2.6 times the CPU of one phase (BENCHMARKS.md, issue 16,
 * skew). So the split is asked for where the keys are known to be skewed.
 * Which aggregations can be split is decided by query.c (window kind,
 * trigger, lateness, mini-batch, ...) and here (the aggregates:
 * weir__agg_two_phase_ok).
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "agg/merge.h"
#include "ops/local_agg.h"
#include "planner/planner.h"
#include "runtime/runtime.h"
#include "weir/job.h"

#define STRATEGY_KEY "table.optimizer.agg-phase-strategy"

int plan_agg_phases(plan_ctx *pc, weir_stream in, const weir_agg *aggs, uint32_t n, weir_sql_loc loc, bool *two)
{
    *two = false;
    const char *v = plan_config(pc, STRATEGY_KEY);
    if (!v || !strcasecmp(v, "AUTO") || !strcasecmp(v, "ONE_PHASE"))
        return 0;
    if (strcasecmp(v, "TWO_PHASE"))
        return plan_error(pc, plan_config_at(pc, STRATEGY_KEY, loc), WEIR_EINVAL,
                          "%s: expected 'AUTO', 'ONE_PHASE' or 'TWO_PHASE', got '%s'", STRATEGY_KEY, v);
    /* The local phase is chained to its input: an input that arrives through an exchange stays one phase. */
    if (in.part != WEIR_PART_FORWARD || in.side_tag != 0)
        return 0;
    for (uint32_t i = 0; i < n; i++)
        if (!weir__agg_two_phase_ok(&aggs[i]))
            return 0;
    *two = true;
    return 0;
}

int plan_local_agg(plan_ctx *pc, weir_stream in, const weir_schema *in_schema, uint32_t n_keys, const weir_agg *aggs,
                   const int32_t *filters, uint32_t n, int64_t slice_ms, int64_t slice_offset_ms, weir_sql_loc loc,
                   weir_stream *out, const weir_schema **out_schema, weir_agg *global)
{
    weir_schema *os = plan_new_schema(pc);
    if (!os)
        return WEIR_ENOMEM;
    weir_local_agg_config lc = {.keys = {.n = n_keys}, .n_aggs = n, .aggs = aggs, .filter_cols = filters,
                                .slice_ms = slice_ms, .slice_offset_ms = slice_offset_ms, .out_schema = os};
    for (uint32_t k = 0; k < n_keys; k++) {
        lc.keys.cols[k] = k;
        if (weir_schema_add(os, in_schema->fields[k].name, in_schema->fields[k].type) < 0)
            return WEIR_ENOMEM;
    }
    /* each aggregate's partial accumulator: its words as BIGINT columns, or one BYTES column (agg/merge.h) */
    uint32_t col = n_keys;
    for (uint32_t i = 0; i < n; i++) {
        char nm[48];
        const char *const *words;
        uint32_t w = weir__agg_partial_cols(&aggs[i], &words);
        weir__agg_merge_of(&aggs[i], (int32_t)col, &global[i]);
        for (uint32_t k = 0; k < (w ? w : 1); k++, col++) {
            if (w)
                snprintf(nm, sizeof nm, "$acc%u_%s", i, words[k]);
            else
                snprintf(nm, sizeof nm, "$acc%u", i);
            weir_type t = w ? weir_type_make(WEIR_TYPE_BIGINT, false) : weir_type_make(WEIR_TYPE_BYTES, true);
            if (weir_schema_add(os, nm, t) < 0)
                return WEIR_ENOMEM;
        }
    }
    weir_operator_spec spec;
    int rc = weir_local_agg_spec(&lc, &spec);
    if (rc)
        return rc;
    if ((rc = weir_job_operator(pc->job, &in, 1, &spec, os, plan_forward_parallelism(pc, in), out))) {
        spec.free_arg(spec.arg);
        return plan_error(pc, loc, rc, "cannot add the local aggregation: %s", weir_job_error(pc->job));
    }
    *out_schema = os;
    /* what each partial column folds, for restore compatibility */
    return weir__job_local_agg_exprs(pc->job, out->node, n_keys, aggs, filters, n);
}

/* The slices of a's windows: every instant of one slice lies in the same windows. */
void plan_window_slices(const weir_window_assigner *a, int64_t *slice_ms, int64_t *offset_ms)
{
    int64_t s = a->kind == WEIR_WINDOW_TUMBLING ? a->size_ms : a->slide_ms;
    if (a->kind == WEIR_WINDOW_HOPPING || a->kind == WEIR_WINDOW_CUMULATING) {
        int64_t x = a->size_ms, y = a->slide_ms;
        while (y) {
            int64_t t = x % y;
            x = y;
            y = t;
        }
        s = x;
    }
    int64_t off = a->offset_ms % s;
    *slice_ms = s;
    *offset_ms = off < 0 ? off + s : off;
}
