/*
 * weir/operator.h - the one operator interface.
 *
 * Every piece of a job - map, filter, window, join, aggregation, sink - is an
 * operator instance driven by the runtime through this vtable. One instance
 * exists per parallel subtask and is only ever called from that subtask's
 * thread, so an operator needs no locking.
 *
 * Call order for one instance:
 *   create -> open -> { process | timer | watermark | snapshot |
 *   checkpoint_complete }* -> finish (end of input, after the final
 *   watermark WEIR_TS_MAX) or stop (the job stopped without a drain: no
 *   final watermark) -> close.
 * Watermarks: when the operator's input watermark advances to W the runtime
 * (1) fires every event-time timer with ts <= W, in (ts, key) order, through
 * `timer`; (2) calls `watermark`; (3) forwards W downstream, unless the
 * operator holds it back with weir_op_hold_watermark().
 * Batches passed to `process` are borrowed for the call only: anything kept
 * must be copied into state. Batches passed to weir_op_emit() are borrowed by
 * the runtime for that call only, so an operator reuses its output batch.
 */
#ifndef WEIR_OPERATOR_H
#define WEIR_OPERATOR_H

#include "weir/batch.h"
#include "weir/buf.h"
#include "weir/key.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct weir_op_ctx weir_op_ctx; /* provided by the runtime, per subtask */

typedef enum weir_time_domain {
    WEIR_TIME_EVENT = 0,
    WEIR_TIME_PROCESSING = 1,
} weir_time_domain;

/* A timer as delivered to `timer`. key is valid for the call only. */
typedef struct weir_timer {
    weir_time_domain domain;
    weir_ts ts;
    int64_t ns;          /* caller-chosen namespace (e.g. a window end), 0 if unused */
    const uint8_t *key;
    size_t key_len;
    uint32_t key_group;
} weir_timer;

typedef struct weir_operator_class {
    const char *name;
    int (*open)(void *op, weir_op_ctx *ctx);
    /* input: index of the logical input (0 for one-input operators). */
    int (*process)(void *op, weir_op_ctx *ctx, int input, const weir_batch *batch);
    /* Optional. The input watermark advanced to wm (timers already fired). */
    int (*watermark)(void *op, weir_op_ctx *ctx, weir_ts wm);
    /* Optional. A timer fired; the runtime has set the current key. */
    int (*timer)(void *op, weir_op_ctx *ctx, const weir_timer *t);
    /*
     * Optional. Write operator (non-keyed) state for checkpoint ckpt_id.
     * Keyed state and timers are snapshotted by the runtime. Sinks pre-commit here.
     */
    int (*snapshot)(void *op, weir_op_ctx *ctx, uint64_t ckpt_id, weir_buf *out);
    /*
     * Optional. Restore what snapshot wrote (called after open). After a
     * scale-down an instance is called once for its own old state and
     * once more for each old instance that no longer exists and maps to it
     * (old index mod new parallelism), own state first.
     */
    int (*restore)(void *op, weir_op_ctx *ctx, weir_cursor *in);
    /*
     * Optional. Union (broadcast) operator state: before restore, every
     * instance reads what snapshot wrote at every old instance (states[i]
     * of old instance i, n the old parallelism), whatever the parallelism
     * now, so an instance without state of its own (a scale-up) still
     * learns what the checkpoint holds. Only for read: each state is still
     * restored by its one instance through restore. Not called when the
     * restore source lacks an old instance's state (a process of several
     * that reads only its own part).
     */
    int (*restore_union)(void *op, weir_op_ctx *ctx, weir_cursor *states,
                         uint32_t n);
    /* Optional. Checkpoint ckpt_id completed everywhere: sinks commit here. */
    int (*checkpoint_complete)(void *op, weir_op_ctx *ctx, uint64_t ckpt_id);
    /* Optional. End of input: emit what is left. */
    int (*finish)(void *op, weir_op_ctx *ctx);
    /* Frees the instance. Must accept an instance whose open failed. */
    void (*close)(void *op);
    /*
     * Optional; instead of finish when the job was stopped without a drain
     * (weir_job_stop): the input did not end, so nothing may be emitted that
     * waits for more input (an unfired window, a pending timer). A sink
     * makes final what it already received, unless the job's final
     * checkpoint commits it (two-phase commit).
     */
    int (*stop)(void *op, weir_op_ctx *ctx);
    /*
     * Optional. True for an operator that keeps no state of its own (no
     * keyed state, timers or snapshot hooks; a union): a keyed or global
     * input then does not make it a stateful operator of the job's
     * checkpoints, whatever the parallelism. Asking for keyed state fails.
     */
    bool keeps_no_state;
} weir_operator_class;

/* What the runtime tells a factory about the instance it creates. */
typedef struct weir_op_info {
    uint32_t subtask;
    uint32_t parallelism;
    uint32_t max_parallelism;
    uint32_t n_inputs;
    const weir_schema *const *input_schemas; /* n_inputs */
    const weir_schema *output_schema;        /* NULL for sinks */
    uint32_t batch_size;
    /* n_inputs: the key of each input; .n == 0 for an input that is not keyed. */
    const weir_keyspec *input_keys;
    uint32_t node_id;                        /* stable id of the operator in its job graph */
    /*
     * A job run by several weir processes (docs/cluster.md): how many
     * (0 or 1: one), and this subtask among all of theirs, process index *
     * parallelism + subtask of processes * parallelism (one process:
     * subtask and parallelism). Sinks that name their output by subtask
     * use these so that the processes' names never collide.
     */
    uint32_t processes;
    uint32_t job_subtask, job_parallelism;
    /*
     * The job runs with weir.cluster settings, by any number of processes,
     * one included: its keyed operators' key groups are dealt out by
     * repartition partition, and what it restores may have been written by
     * several processes, whose subtasks' key groups the ranges of their
     * indexes do not show.
     */
    bool cluster;
} weir_op_info;

/*
 * How to make the instances of one operator. arg is shared by all instances
 * (read-only while the job runs); free_arg releases it with the job.
 */
typedef struct weir_operator_spec {
    const char *name;            /* shown by explain and in metrics */
    const weir_operator_class *cls;
    int (*create)(void *arg, const weir_op_info *info, void **out_op);
    void *arg;
    void (*free_arg)(void *arg);
} weir_operator_spec;

/* ---- services the runtime offers an operator, through its ctx ---- */

const weir_op_info *weir_op_info_of(weir_op_ctx *ctx);
/* Sends a batch downstream (borrowed for the call). */
int weir_op_emit(weir_op_ctx *ctx, const weir_batch *b);
/* Emits b when it holds rows, then resets it for the next ones (an
 * operator's output batch at the end of a call). */
int weir_op_emit_reset(weir_op_ctx *ctx, weir_batch *b);
/* Sends a batch to side output `tag` (e.g. late records), if anything consumes it. */
int weir_op_emit_side(weir_op_ctx *ctx, int tag, const weir_batch *b);
bool weir_op_has_side_output(weir_op_ctx *ctx, int tag);
/* Current input watermark of this operator (WEIR_TS_MIN before the first). */
weir_ts weir_op_watermark(weir_op_ctx *ctx);
/*
 * The watermark a record of input `input` is judged against (late or on
 * time): the larger of the operator's watermark and that input's own (the
 * minimum over the input's channels alone, by the same rules, never
 * backwards). With several inputs, the operator's watermark is held back by
 * the slowest input and jumps when an input ends, so how far it got when a
 * record arrives depends on thread timing; the record's own input's
 * watermark does not. A record that is on time by it always finds its
 * window (or interval) still open, since the operator's watermark is never
 * ahead of an active input's. With one input this is weir_op_watermark.
 */
weir_ts weir_op_input_watermark(weir_op_ctx *ctx, int input);
/* Processing time from the job's clock. */
int64_t weir_op_now_ms(weir_op_ctx *ctx);
/*
 * For an operator's long loops (a firing of many windows, a rebuild of
 * state): call it every thousand steps or so - one atomic load while the job
 * runs. WEIR_ECANCELED means the job is being stopped at once: return that
 * code now (the job then ends at its last completed checkpoint). 0: go on.
 */
int weir_op_interrupted(weir_op_ctx *ctx);

/*
 * Sets the current key (copied) for state access and timer registration.
 * key_group is computed from the bytes. Keyed operators only.
 */
int weir_op_set_key(weir_op_ctx *ctx, const void *key, size_t len);
/* Same with a hash computed by the caller (weir_key_hash of the bytes). */
int weir_op_set_key_hashed(weir_op_ctx *ctx, const void *key, size_t len, uint64_t hash);
/* Current key bytes (valid until the next set_key), or NULL. */
const uint8_t *weir_op_key(weir_op_ctx *ctx, size_t *len, uint32_t *key_group);

/* Timers of the current key; deduplicated by (key, ns, ts). */
int weir_op_timer_register(weir_op_ctx *ctx, weir_time_domain d, weir_ts ts, int64_t ns);
int weir_op_timer_delete(weir_op_ctx *ctx, weir_time_domain d, weir_ts ts, int64_t ns);

/*
 * Holds back the watermark this operator forwards at `hold` or below
 * (WEIR_TS_MAX releases it). Used by operators that emit records with
 * timestamps older than their input watermark.
 */
void weir_op_hold_watermark(weir_op_ctx *ctx, weir_ts hold);

/*
 * A named counter of this subtask (created on first use; valid for the job).
 * Never NULL: out of memory, a counter no metric lists.
 */
uint64_t *weir_op_counter(weir_op_ctx *ctx, const char *name);
/* Change a counter of weir_op_counter: only its operator's thread writes
 * it, while other threads (metrics, the HTTP endpoint) read it as the job
 * runs, so writes are relaxed atomic stores. */
static inline void weir_op_counter_add(uint64_t *c, uint64_t n)
{
    __atomic_store_n(c, *c + n, __ATOMIC_RELAXED);
}
static inline void weir_op_counter_set(uint64_t *c, uint64_t v)
{
    __atomic_store_n(c, v, __ATOMIC_RELAXED);
}
/* Reports a failure with a message; the operator then returns code. */
int weir_op_fail(weir_op_ctx *ctx, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#ifdef __cplusplus
}
#endif
#endif
