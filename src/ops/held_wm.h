/*
 * ops/held_wm.h - the watermarks an operator keeps across a restore.
 *
 * After a restore an input has no watermark until its sources send one,
 * so an operator that drops late rows would take a row behind what the
 * checkpoint had seen - a row of a window that already fired, a row an
 * interval join's other side has already let go - and produce what no run
 * without the restore produces. Such an operator writes each input's
 * watermark into its operator state (version 1, then one i64 per input)
 * and, after the restore, judges each input against the larger of the
 * restored watermark and the input's own. After a restore at another
 * parallelism every new subtask reads every old subtask's (union state)
 * and each input keeps the smallest: a row late by the slowest old
 * subtask's watermark was late for the key wherever it lived. A checkpoint
 * of a weir that wrote none restores as before (no restored watermark).
 *
 * An input whose sources had ended is at WEIR_TS_MAX (the end of input's
 * watermark), which no row set: it is written as the operator's own
 * watermark then. While another input goes on, that is the other's: what
 * the operator has fired or let go of, and a row of a file added to the
 * ended input since is late only behind it (before, such an input held
 * WEIR_TS_MAX and dropped every new row). Where every input had ended, the
 * operator fired everything at the end of input: WEIR_TS_MAX is held and
 * every row that comes after the restore is late, as a window aggregation
 * does (a window that fired at the end of input does not open again). In
 * the smallest over old subtasks an old subtask at WEIR_TS_MAX (a process
 * that read no partition) counts for nothing but where all are.
 */
#ifndef WEIR_OPS_HELD_WM_H
#define WEIR_OPS_HELD_WM_H

#include <stdbool.h>
#include <stdint.h>

#include "weir/buf.h"
#include "weir/operator.h"

#define WEIR__HELD_WM_MAX_INPUTS 2

typedef struct weir__held_wm {
    uint32_t n_inputs; /* 1 or 2 (weir__held_wm_init) */
    bool restored;
    weir_ts wm[WEIR__HELD_WM_MAX_INPUTS];
} weir__held_wm;

void weir__held_wm_init(weir__held_wm *h, uint32_t n_inputs);
/* Input `input`'s watermark: its own (weir_op_input_watermark; with one
 * input, weir_op_watermark), held at the restored one until it passes it. */
weir_ts weir__held_wm_input(const weir__held_wm *h, weir_op_ctx *ctx, int input);
/* The operator's snapshot: every input's weir__held_wm_input. */
int weir__held_wm_snapshot(const weir__held_wm *h, weir_op_ctx *ctx, weir_buf *out);
/* One old subtask's snapshot; what names the operator in the error. */
int weir__held_wm_restore(weir__held_wm *h, weir_op_ctx *ctx, weir_cursor *in, const char *what);
/* Every old subtask's (restore_union). */
int weir__held_wm_restore_union(weir__held_wm *h, weir_op_ctx *ctx, weir_cursor *states, uint32_t n,
                                const char *what);

#endif
