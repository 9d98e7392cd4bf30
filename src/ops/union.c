/*
 * ops/union.c - UNION ALL: forwards every batch of every input unchanged.
 * The runtime merges the inputs' watermarks (minimum over channels), so the
 * union needs no event-time logic of its own.
 */
#include "ops/ops.h"

static int union_create(void *arg, const weir_op_info *info, void **out_op)
{
    (void)arg;
    (void)info;
    *out_op = NULL;
    return 0;
}

static int union_process(void *op, weir_op_ctx *ctx, int input, const weir_batch *in)
{
    (void)op;
    (void)input;
    return weir_op_emit(ctx, in);
}

static void union_close(void *op) { (void)op; }

static const weir_operator_class union_class = {
    .name = "Union",
    .process = union_process,
    .close = union_close,
    /* A union with a global input (a global aggregation's rows sent to its
     * first subtask at parallelism 2 or more) is no more stateful than at
     * parallelism 1, where the same rows come forward. */
    .keeps_no_state = true,
};

int weir_union_spec(uint32_t n_inputs, weir_operator_spec *out)
{
    (void)n_inputs;
    *out = (weir_operator_spec){"Union", &union_class, union_create, NULL, NULL};
    return 0;
}
