/*
 * agg/distinct.h - COUNT(DISTINCT) with its values kept by the caller
 * (internal-but-shared).
 *
 * The COUNT_DISTINCT accumulator holds its whole value set, so storing it
 * costs O(distinct values). An operator that keeps the values in keyed map
 * state instead (ops/group_agg.c: one entry per value with its number of
 * live occurrences, as Flink keeps a distinct view) touches only the
 * values a row brings. These give it what it needs from the function: the
 * canonical bytes of a value, equal exactly when COUNT(DISTINCT) calls two
 * values equal, and the result column's encoding.
 */
#ifndef WEIR_AGG_DISTINCT_H
#define WEIR_AGG_DISTINCT_H

#include "weir/agg.h"

/* Whether a is COUNT(DISTINCT col). */
bool weir__agg_is_count_distinct(const weir_agg *a);

/*
 * The canonical bytes of the input value at (b, a->input_col, row) into out
 * (cleared first); *present false for NULL, which COUNT(DISTINCT) skips.
 * Integers of every width give their int64, doubles their canonical bits
 * (-0.0 = 0.0, one NaN), strings their bytes.
 */
int weir__agg_distinct_key(const weir_agg *a, const weir_batch *b, uint32_t row, weir_buf *out,
                           bool *present);

/* Writes the result n (the number of distinct values) into (out, col, row). */
int weir__agg_distinct_result(const weir_agg *a, int64_t n, weir_batch *out, uint32_t col, uint32_t row);

#endif
