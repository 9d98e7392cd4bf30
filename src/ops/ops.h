/*
 * ops/ops.h - relational operators the SQL planner (and C users) place in a
 * job: updating group aggregation and union. Each returns a
 * weir_operator_spec whose arg is a copy of the configuration.
 */
#ifndef WEIR_OPS_H
#define WEIR_OPS_H

#include "weir/agg.h"
#include "weir/operator.h"

/*
 * Non-windowed GROUP BY over an unbounded stream, as an updating result.
 * Input is keyed by `keys` (columns of the input). Output rows are the key
 * columns followed by one column per aggregate, as a changelog: the first
 * result of a group is +I; a change is -U (old) then +U (new); a group whose
 * rows are all retracted is -D. Input rows may themselves be a changelog
 * (-U/-D retract, which needs retractable aggregates). Each input row is
 * applied and emitted on its own, so the changelog does not depend on how
 * rows were batched.
 */
typedef struct weir_group_agg_config {
    weir_keyspec keys;
    uint32_t n_aggs;
    const weir_agg *aggs;          /* copied */
    const weir_schema *out_schema; /* borrowed; keys then aggregates */
    int64_t state_ttl_ms;          /* 0: keep forever (table.exec.state.ttl) */
} weir_group_agg_config;

int weir_group_agg_spec(const weir_group_agg_config *cfg, weir_operator_spec *out);

/* n-input union: forwards every batch of every input unchanged. */
int weir_union_spec(uint32_t n_inputs, weir_operator_spec *out);

#endif
