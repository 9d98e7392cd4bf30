/*
 * weir/job.h - building and running a job (the C API).
 *
 * A job is a dataflow graph. Build it with weir_job_source / map / filter /
 * key_by / process / operator / sink, then run it. Each call returns a
 * stream handle (a value) naming the operator output it produces; key_by
 * marks a stream as keyed, so the next operator receives it through a keyed
 * exchange by key group. Operators connected without an exchange and with the
 * same parallelism are chained into one task; each parallel instance of a
 * task runs on its own thread.
 */
#ifndef WEIR_JOB_H
#define WEIR_JOB_H

#include "weir/clock.h"
#include "weir/operator.h"
#include "weir/source.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct weir_job weir_job;

typedef enum weir_partitioning {
    WEIR_PART_FORWARD = 0,   /* subtask i -> subtask i (chains when parallelism matches) */
    WEIR_PART_KEYED,         /* by key group of the key columns */
    WEIR_PART_REBALANCE,     /* round-robin */
    WEIR_PART_BROADCAST,     /* every row to every subtask */
    WEIR_PART_GLOBAL,        /* everything to subtask 0 */
} weir_partitioning;

/* A stream: the output of a node, and how the next operator receives it. */
typedef struct weir_stream {
    int node;
    int side_tag;            /* 0: main output; > 0: a side output of node */
    weir_partitioning part;
    weir_keyspec key;        /* for WEIR_PART_KEYED */
} weir_stream;

typedef struct weir_job_config {
    uint32_t parallelism;        /* default parallelism of new operators (1) */
    uint32_t max_parallelism;    /* number of key groups (128) */
    uint32_t batch_size;         /* rows per batch (1024) */
    uint32_t channel_capacity;   /* batches buffered per channel (8) */
    int64_t idle_timeout_ms;     /* splits idle after this much processing time; 0 = never */
    weir_clock clock;            /* processing time (system clock by default) */
    const char *state_backend;   /* "memory" (default) or "rocksdb" */
    const char *state_dir;       /* working directory for disk state (NULL with
                                    "rocksdb": a temporary one, removed with the job) */
    int64_t checkpoint_interval_ms; /* 0 = no checkpoints */
    const char *checkpoint_dir;
} weir_job_config;

void weir_job_config_init(weir_job_config *cfg);

/* cfg is copied (strings too). */
int weir_job_create(const weir_job_config *cfg, weir_job **out);
void weir_job_destroy(weir_job *job);

/* parallelism 0 uses the job's default. */
int weir_job_source(weir_job *job, const weir_source_spec *src, const weir_watermark_spec *wm,
                    uint32_t parallelism, weir_stream *out);

/*
 * Generic operator with n_in inputs. out_schema is borrowed and must outlive
 * the job (NULL for a sink). The spec is copied; its arg becomes the job's.
 */
int weir_job_operator(weir_job *job, const weir_stream *inputs, uint32_t n_in,
                      const weir_operator_spec *spec, const weir_schema *out_schema,
                      uint32_t parallelism, weir_stream *out);

/* A keyed view of stream in (no node is added). */
weir_stream weir_stream_key_by(weir_stream in, const uint32_t *cols, uint32_t n_cols);
weir_stream weir_stream_partition(weir_stream in, weir_partitioning part);
/* The side output `tag` of the node producing s. */
weir_stream weir_stream_side(weir_stream s, int tag);
/*
 * Declares the schema of side output `tag` of the node producing s (schema
 * borrowed; must outlive the job). Without it a side output carries rows of
 * the node's first input, which is what late-record outputs need.
 */
int weir_job_set_side_schema(weir_job *job, weir_stream s, int tag, const weir_schema *schema);

/* Row-level conveniences over weir_job_operator (callbacks get borrowed batches). */
typedef bool (*weir_filter_fn)(void *ud, const weir_batch *b, uint32_t row);
/* Writes output rows into out (appended; out has room for at least in->n_rows rows). */
typedef int (*weir_map_fn)(void *ud, const weir_batch *in, weir_batch *out);
int weir_job_filter(weir_job *job, weir_stream in, weir_filter_fn fn, void *ud, weir_stream *out);
int weir_job_map(weir_job *job, weir_stream in, const weir_schema *out_schema, weir_map_fn fn,
                 void *ud, weir_stream *out);
/*
 * Flat map: fn may emit any number of rows per input row; it calls
 * weir_op_emit itself through ctx when its output batch fills.
 */
typedef int (*weir_flat_map_fn)(void *ud, weir_op_ctx *ctx, const weir_batch *in, weir_batch *out);
int weir_job_flat_map(weir_job *job, weir_stream in, const weir_schema *out_schema,
                      weir_flat_map_fn fn, void *ud, weir_stream *out);

/*
 * Keyed process function: called per row with the row's key already set, and
 * per timer. It may use state (weir_op_get_state in open) and timers, and
 * emit rows into out (the runtime flushes out when full and after each batch).
 */
typedef struct weir_process_fn {
    int (*open)(void *ud, weir_op_ctx *ctx, void **instance);
    int (*process)(void *instance, weir_op_ctx *ctx, const weir_batch *in, uint32_t row, weir_batch *out);
    int (*timer)(void *instance, weir_op_ctx *ctx, const weir_timer *t, weir_batch *out);
    void (*close)(void *instance);
    void *ud;
    const char *name; /* optional: the operator's name in explain and metrics ("process") */
} weir_process_fn;
int weir_job_process(weir_job *job, weir_stream keyed_in, const weir_schema *out_schema,
                     const weir_process_fn *fn, weir_stream *out);

int weir_job_sink(weir_job *job, weir_stream in, const weir_operator_spec *sink, uint32_t parallelism);

/* Sets the parallelism of the node that produced s. */
int weir_job_set_parallelism(weir_job *job, weir_stream s, uint32_t parallelism);

/*
 * Restore compatibility (docs/checkpoints.md). Every stateful node (a
 * source, a keyed operator, an operator with operator state such as a
 * two-phase-commit sink) has a stable id and a fingerprint of what its state
 * means, and a checkpoint restores only into nodes with the same id and the
 * same fingerprint. The id is by default the node's name and its place
 * among the job's stateful nodes of that name ("tumbling window[0]"), so
 * adding or removing stateless operators keeps it; weir_job_set_uid gives
 * one that survives any change of the graph (unique in the job, else
 * WEIR_EEXIST). The fingerprint is the key columns' types (added by the
 * runtime) and the fields added with weir_job_describe_state (the window
 * operator adds its kind, sizes and aggregates itself); restore compares it
 * field by field and names the fields that differ. Both before the job
 * starts; strings are copied.
 */
int weir_job_set_uid(weir_job *job, weir_stream s, const char *uid);
int weir_job_describe_state(weir_job *job, weir_stream s, const char *field, const char *value);

/* Runs to completion (bounded inputs) or until weir_job_stop. */
int weir_job_run(weir_job *job);
/* Non-blocking variant: start, then stop and/or wait. */
int weir_job_start(weir_job *job);
/*
 * Stops the job: sources stop reading and the data in flight drains. It is
 * not an end of input: no final watermark, no finish hooks, so windows and
 * timers that have not fired do not fire (operators' stop hooks run instead:
 * sinks make final what they received). With checkpoints the job's final
 * checkpoint keeps that state, and a restore continues there. Safe from any
 * thread, also before weir_job_start.
 */
void weir_job_stop(weir_job *job);
/*
 * Stops the job as if every input had ended (Flink's stop --drain): sources
 * stop reading, then send the final watermark, so every window fires and
 * every event-time timer runs, and finish hooks run.
 */
void weir_job_stop_drain(weir_job *job);
/*
 * Stops the job at once: every thread leaves within a bounded time, also in
 * the middle of a firing, a restore or a snapshot; no final checkpoint, and
 * sinks commit nothing more (with checkpoints the output stays at the last
 * completed one). weir_job_wait then returns 0 unless something failed.
 */
void weir_job_cancel(weir_job *job);
int weir_job_wait(weir_job *job);
/* The failure message of a failed run ("" if none); valid while job lives. */
const char *weir_job_error(const weir_job *job);

/* Writes the operator graph (tasks, chaining, parallelism, exchanges) as text. */
int weir_job_explain(const weir_job *job, weir_buf *out);

/* Metrics: visits every counter (name like "task.op.subtask.records_in"). */
typedef void (*weir_metric_visit_fn)(void *ud, const char *name, double value);
void weir_job_metrics(weir_job *job, weir_metric_visit_fn fn, void *ud);

#ifdef __cplusplus
}
#endif
#endif
