/*
 * ops/local_agg.h - the local phase of a two-phase aggregation
 * (ops/local_agg.c).
 *
 * Of each input batch (insert-only rows), the rows of one key - and, for a
 * window aggregation, of one slice of event time - are folded into one
 * accumulator per aggregate, and one row per such group goes on: the key
 * columns, then each aggregate's accumulator in the form of
 * weir__agg_partial_cols (its words as BIGINT columns, or serialised into
 * one BYTES column), with the
 * event time slice_end - 1 (the row's own time when that end would leave
 * the int64 range). Every row of one slice belongs to the same windows, so
 * the window operator behind the keyed exchange, merging these
 * accumulators (agg/merge.h), gives each window exactly what the rows
 * would have given it. It holds nothing from one batch to the next: a
 * checkpoint barrier, a watermark or the end of input always finds it
 * empty, and its place in the stream of control messages is the rows'.
 */
#ifndef WEIR_OPS_LOCAL_AGG_H
#define WEIR_OPS_LOCAL_AGG_H

#include "weir/agg.h"
#include "weir/operator.h"

typedef struct weir_local_agg_config {
    weir_keyspec keys;         /* the grouping columns of the input; the output's first columns */
    uint32_t n_aggs;
    const weir_agg *aggs;      /* copied; each must support weir__agg_two_phase_ok */
    const int32_t *filter_cols; /* n_aggs (copied): a BOOLEAN column an aggregate's rows need TRUE in, or -1; may be NULL */
    /* Slices of event time [offset + k*slice_ms, offset + (k+1)*slice_ms); slice_ms 0: no slicing. */
    int64_t slice_ms, slice_offset_ms;
    const weir_schema *out_schema; /* borrowed: the keys, then each aggregate's partial columns, in order */
} weir_local_agg_config;

int weir_local_agg_spec(const weir_local_agg_config *cfg, weir_operator_spec *out);

#endif
