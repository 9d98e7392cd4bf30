/*
 * ops/join_core.h - what the two-input joins (regular and interval joins,
 * window joins, temporal joins) share: per side a state and a row width,
 * the residual condition's expression environment, the output batch, the
 * candidate joined rows with the residual's result per candidate, the key
 * buffer, and the counters every join has (internal to src/ops).
 */
#ifndef WEIR_OPS_JOIN_CORE_H
#define WEIR_OPS_JOIN_CORE_H

#include "weir/batch.h"
#include "weir/clock.h"
#include "weir/expr.h"
#include "weir/key.h"
#include "weir/operator.h"
#include "weir/state.h"

typedef struct weir_join_core {
    const char
        *what; /* "join", "window join", ...: names the operator in errors */
    weir_state *st[2];  /* per side */
    weir_expr_env *env; /* the residual condition's */
    weir_batch *out;    /* output being filled */
    uint64_t out_gen;   /* output batches emitted so far (a row of out is known by it and its index) */
    weir_batch *cand;   /* candidate joined rows */
    uint8_t *sel;       /* the residual's result per candidate */
    uint32_t cand_cap;
    uint32_t batch_size;
    uint64_t *n_emitted; /* join_rows_emitted */
    uint64_t *n_late;    /* late_rows */
    uint8_t key[1024];   /* the join key of the row at hand */
} weir_join_core;

/* Creates the environment (on clock when it has one), an output batch of
 * the job's batch size and cand_cap candidate rows of cand_schema (cand_cap
 * 0: the batch size). The core may be partly built on an error:
 * weir__join_core_fini frees it. */
int weir__join_core_init(weir_join_core *jc, const char *what,
                         const weir_op_info *info,
                         const weir_schema *out_schema,
                         const weir_schema *cand_schema, uint32_t cand_cap,
                         const weir_clock *clock);
/* Checks that the operator has two inputs of at least n_out[s] columns,
 * gets each side's state (desc[s]) and the counters. */
int weir__join_core_open(weir_join_core *jc, weir_op_ctx *ctx,
                         const uint32_t n_out[2],
                         const weir_state_desc desc[2]);
void weir__join_core_fini(weir_join_core *jc);

/* Room for n candidates (cand_schema rows; the residual's results too),
 * keeping none of the candidates. */
int weir__join_core_reserve(weir_join_core *jc, const weir_schema *cand_schema,
                            uint32_t n);

/* Room for n candidates, keeping the candidates already there (a scan
 * that decodes rows as it meets them). */
int weir__join_core_grow(weir_join_core *jc, const weir_schema *cand_schema,
                         uint32_t n);

/* Encodes row r's join key (ks) into jc->key: its length in *klen; an
 * error naming the limit when it does not fit. */
int weir__join_core_key(weir_join_core *jc, weir_op_ctx *ctx,
                        const weir_batch *in, const weir_keyspec *ks,
                        uint32_t r, size_t *klen);
/* That error for a key of klen bytes encoded elsewhere (0 when it fits jc->key). */
int weir__join_core_key_fits(weir_join_core *jc, weir_op_ctx *ctx, size_t klen);

/* Emits the output batch (counted in join_rows_emitted) and counts it in out_gen. */
int weir__join_core_flush(weir_join_core *jc, weir_op_ctx *ctx);
/* A new output row of this kind and time (the batch emitted first when it
 * is full): its index in *row. */
int weir__join_core_out_row(weir_join_core *jc, weir_op_ctx *ctx,
                            weir_row_kind kind, weir_ts ts, uint32_t *row);
/* The same for a row whose every column the caller writes next (a value or
 * a NULL): its values not zeroed first. */
int weir__join_core_out_row_to_fill(weir_join_core *jc, weir_op_ctx *ctx, weir_row_kind kind, weir_ts ts,
                                    uint32_t *row);

/* An error of the residual over the candidate batch ends in " (row N)", N
 * the candidate: takes that off the message and gives N (false, message
 * untouched, when it does not end so). Each join then names the rows the
 * candidate joined. */
bool weir__join_error_candidate(weir_error *err, uint32_t *cand);

#endif
