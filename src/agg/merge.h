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

/* Whether a is COUNT(*) itself: its accumulator is one int64, the rows net of retractions. */
bool weir__agg_is_count_star(const weir_agg *a);

/* The most columns one function's partial accumulator takes. */
#define WEIR__AGG_PARTIAL_MAX 5

/*
 * How the local phase sends a's partial accumulator (a two-phase function):
 * n > 0 - as n BIGINT NOT NULL columns holding the accumulator's first n
 * int64 words, in order (COUNT(*): rows; COUNT: rows, non-NULL values;
 * SUM, SUM0, AVG of INT and BIGINT: rows, non-NULL values, the sum modulo
 * 2^64; of DECIMAL: rows, non-NULL values and the 192-bit sum's three
 * words; MIN, MAX of a value held in 64 bits - integers, DECIMAL of up to
 * 18 digits, times, DOUBLE: rows, whether a value is kept, its bits),
 * which the global phase merges straight from the batch with nothing to
 * decode; 0 - serialised by a's serialize into one BYTES column (MIN/MAX
 * of strings and of 38-digit DECIMALs). The names (e.g. "rows", "sum")
 * are for the columns' names.
 */
uint32_t weir__agg_partial_cols(const weir_agg *a, const char *const **names);

/*
 * *out: the global phase of a (a copy of a whose accumulator is a's): each
 * input row holds a's partial accumulator from column col on, in the form
 * the column's type says: BYTES, serialised by a's serialize (add
 * deserialises it and merges it in), or BIGINT, the words of
 * weir__agg_partial_cols (add merges them as they are). It has no retract.
 * Its accumulator, result and serialised form are a's, so its state is a's.
 */
void weir__agg_merge_of(const weir_agg *a, int32_t col, weir_agg *out);

/*
 * The function whose accumulators m merges (m from weir__agg_merge_of), or
 * NULL for any other m; *star (may be NULL) true when that function is
 * COUNT(*), which read no column.
 */
const weir_agg_class *weir__agg_merge_inner(const weir_agg *m, bool *star);

/*
 * What the global phase's accumulator of m is, for an engine that holds it
 * itself (the window engine's typed kinds): the accumulator block is m's
 * (acc_size, all zeros when empty, nothing owned, serialised by m's
 * serialize), its first words are those of weir__agg_partial_cols, and
 * the result is one of these. WEIR__MERGE_GENERIC: only through m's class
 * (any other function, DECIMAL sums, MIN/MAX of strings and wide DECIMALs,
 * or m not a merge).
 */
typedef enum weir__merge_form {
    WEIR__MERGE_GENERIC,
    WEIR__MERGE_ROWS,    /* COUNT(*): [rows]; the result is rows */
    WEIR__MERGE_COUNT,   /* COUNT: [rows, n]; the result is n */
    WEIR__MERGE_SUM,     /* SUM of INT/BIGINT: [rows, n, sum mod 2^64]; NULL when n is 0 */
    WEIR__MERGE_SUM0,    /* SUM0: the same, 0 when n is 0 */
    WEIR__MERGE_AVG,     /* AVG: sum / n as int64, truncated toward zero; NULL when n is 0 */
    WEIR__MERGE_MIN_I64, /* MIN of a value held as int64: [rows, has, bits]; NULL unless has */
    WEIR__MERGE_MAX_I64,
    WEIR__MERGE_MIN_F64, /* MIN of DOUBLE: bits canonical, NaN above every number */
    WEIR__MERGE_MAX_F64,
} weir__merge_form;

weir__merge_form weir__agg_merge_form(const weir_agg *m);

#endif
