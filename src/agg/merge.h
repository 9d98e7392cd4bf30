/*
 * agg/merge.h - two-phase aggregation's view of the aggregate functions
 * (internal-but-shared): which functions may be split into a local and a
 * global phase, and the global phase's function, which folds in the
 * accumulators the local phase sends instead of input values.
 */
#ifndef WEIR_AGG_MERGE_H
#define WEIR_AGG_MERGE_H

#include "weir/agg.h"

/*
 * Whether a may run in two phases with a result identical to one phase:
 * its merge of partial accumulators gives exactly what adding every row to
 * one accumulator gives, whatever the grouping of the rows. COUNT, MIN,
 * MAX, and SUM, SUM0 and AVG of exact numbers (INT, BIGINT, DECIMAL) do.
 * SUM/AVG of DOUBLE and the variance family would round differently,
 * DISTINCT functions would ship their value sets, order-dependent ones
 * (FIRST_VALUE, LAST_VALUE, LISTAGG, LAG) and SINGLE_VALUE, sketches and
 * user-defined functions stay in one phase.
 */
bool weir__agg_two_phase_ok(const weir_agg *a);

/*
 * *out: the global phase of a (a copy of a whose accumulator is a's): each
 * input row holds, in BYTES column col, a's accumulator serialised by a's
 * serialize; add deserialises it and merges it in. It has no retract. Its
 * accumulator, result and serialised form are a's, so its state is a's.
 */
void weir__agg_merge_of(const weir_agg *a, int32_t col, weir_agg *out);

/*
 * The function whose accumulators m merges (m from weir__agg_merge_of), or
 * NULL for any other m; *star (may be NULL) true when that function is
 * COUNT(*), which read no column.
 */
const weir_agg_class *weir__agg_merge_inner(const weir_agg *m, bool *star);

#endif
