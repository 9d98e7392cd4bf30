/*
 * runtime/runtime.h - the runtime's internal structures, shared by the files
 * of src/runtime/ only.
 *
 * Layers, from the graph the user builds to the threads that run it:
 *   node     an operator or a source of the job graph, with a parallelism
 *   edge     a stream from one node's (main or side) output to an input of
 *            another node, with a partitioning
 *   task     a chain of nodes joined by chained edges (forward, same
 *            parallelism, single input, single consumer)
 *   subtask  one parallel instance of a task: one thread, one instance of
 *            each operator of the chain (a weir_op_ctx each), input channels
 *            into the head and output writers out of the chain
 * Files: job.c (graph building, explain), plan.c (chaining, channels,
 * threads, lifecycle), task.c (the consumer loop: watermarks, barriers,
 * timers), source_task.c (the source loop), opctx.c (the services of
 * weir/operator.h), writer.c (exchanges), builtin.c (map, filter, flat map,
 * process function), snapshot.c (checkpoint snapshots).
 */
#ifndef WEIR_RUNTIME_RUNTIME_H
#define WEIR_RUNTIME_RUNTIME_H

#include <pthread.h>
#include <stdatomic.h>

#include "runtime/channel.h"
#include "runtime/checkpoint.h"
#include "state/backend.h"
#include "state/timer_service.h"
#include "time/watermark.h"
#include "weir/agg.h"
#include "weir/expr.h"
#include "weir/job.h"
#include "weir/operator.h"
#include "weir/source.h"
#include "weir/state.h"

/*
 * Metrics are written by the one thread that owns them and read by any
 * thread (weir_job_metrics): relaxed atomic stores and loads, no locked
 * read-modify-write on the hot path.
 */
#define WEIR__ADD(p, n) __atomic_store_n((p), *(p) + (n), __ATOMIC_RELAXED)
#define WEIR__SET(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define WEIR__LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)

typedef struct weir__subtask weir__subtask;
/* objects one subtask's chain may share (weir__op_chain_shared) */
#define WEIR__CHAIN_SHARED 4
typedef struct weir__writer weir__writer;

typedef enum weir__node_kind {
    WEIR__NODE_SOURCE,
    WEIR__NODE_OPERATOR,
} weir__node_kind;

typedef struct weir__side_schema {
    int tag;
    const weir_schema *schema;
} weir__side_schema;

typedef struct weir__node {
    int id;
    weir__node_kind kind;
    char *name;
    uint32_t parallelism;
    weir_source_spec src;          /* SOURCE */
    weir_watermark_spec wm;        /* SOURCE */
    weir_operator_spec op;         /* OPERATOR (name points to `name`) */
    const weir_schema *out_schema; /* NULL for sinks */
    int *in_edges;                 /* edge id per input index */
    uint32_t n_in;
    weir__side_schema *sides;
    uint32_t n_sides;
    /* restore compatibility (stateid.c) */
    char *uid;      /* user-given stable id, or NULL: name[k] */
    weir_buf state; /* what its state means: "field: value\n" lines */
    char *fp_input; /* or NULL: the value of the fingerprint's "input" line (weir__job_describe_two_phase) */
    /* or NULL: per output column, the expression that computes it from the
     * input's columns ($k), as weir_expr_digest writes it (a Calc; origins.c) */
    char **col_exprs;
    /* the checkpoint being restored keeps its rows in the canonical
     * encoding (written before the compact one; checkpoint/compat.c) */
    bool restore_canonical_rows;
    /* it keeps Top-N rows whole (written before "rank rows: 2"; checkpoint/compat.c) */
    bool restore_whole_rank_rows;
    /* it keeps a join's row logs in the first element format (written before "row log: 2"; checkpoint/compat.c),
     * a side's elements after the row's time where restore_row_log_1_timed says so */
    bool restore_row_log_1;
    bool restore_row_log_1_timed[2];
    /*
     * Where the main output's rows are (plan.c keyed_in_place): out_part,
     * when n > 0, holds the values of input out_part_in's key, so that a row
     * is on the subtask that owns its key group whenever that input arrives
     * keyed (a join's rows, by the key of a side never padded with NULLs);
     * passes, when set, gives per output column the input column it carries
     * unchanged, or -1 (a Calc). Both are set by the SQL planner.
     */
    weir_keyspec out_part;
    uint32_t out_part_in;
    int32_t *passes;
    /* plan */
    int task;
    uint32_t chain_pos;
} weir__node;

typedef struct weir__edge {
    int id;
    int from, to;
    int side_tag;
    uint32_t input;             /* input index at `to` */
    weir_partitioning req_part; /* as the user asked */
    weir_partitioning
        part; /* as planned (FORWARD across parallelisms becomes REBALANCE) */
    weir_keyspec key;
    bool chained;
} weir__edge;

typedef struct weir__task {
    int id;
    int *nodes; /* the chain, head first */
    uint32_t n_nodes;
    uint32_t parallelism;
    bool is_source;
    weir__subtask **subtasks;
} weir__task;

/* A named counter of one operator instance. Chunks keep pointers stable. */
typedef struct weir__counter {
    char *name;
    uint64_t
        value; /* written by the owning thread only; read with WEIR__LOAD */
    struct weir__counter *next;
} weir__counter;

typedef struct weir__side_out {
    int tag;
    weir__writer **w;
    uint32_t n;
} weir__side_out;

/* One operator instance inside a subtask: what the operator sees as its ctx. */
struct weir_op_ctx {
    weir__subtask *st;
    uint32_t pos; /* position in the chain */
    weir__node *node;
    const weir_operator_class *cls;
    void *op;
    bool created, opened;
    weir_op_info info;
    /* told of the subtask's idle/active status (weir__op_on_status) */
    int (*status_fn)(void *op, weir_op_ctx *ctx, bool idle);
    /* converts restored rows of the canonical encoding (weir__op_on_canonical_rows) */
    int (*canonical_rows_fn)(void *op, weir_op_ctx *ctx);
    /* changes the layout of restored state (weir__op_on_restored) */
    int (*restored_fn)(void *op, weir_op_ctx *ctx);
    const weir_schema **in_schemas;
    weir_keyspec *in_keys;

    /* time */
    weir_ts in_wm;  /* input watermark */
    weir_ts out_wm; /* last watermark forwarded */
    weir_ts hold;   /* weir_op_hold_watermark */

    /* keyed state and timers (created when first used; at open for keyed
     * operators) */
    bool keyed;            /* input arrives through a keyed exchange */
    uint32_t kg_lo, kg_hi; /* key groups this instance's state may hold */
    weir__backend *be;
    weir__timers *timers;
    uint8_t *key;
    size_t key_len, key_cap;
    uint64_t key_hash;
    uint32_t kg;
    bool has_key;

    /* outputs: to the next operator of the chain, or to writers at the tail */
    weir_op_ctx *next;
    weir__writer **out;
    uint32_t n_out;
    weir__side_out *sides;
    uint32_t n_sides;

    /* metrics */
    uint64_t records_in, records_out;
    /* in_wm and out_wm as the owning thread last set them (WEIR__SET), for
     * readers on other threads (runtime/inspect.h) */
    int64_t in_wm_metric, out_wm_metric;
    weir__counter *counters;
    pthread_mutex_t counters_mu; /* registration vs. metric readers */
    uint64_t unlisted_counter; /* what weir_op_counter hands out when it cannot list one */
};

typedef struct weir__inchan {
    weir__channel *ch;
    uint32_t input; /* logical input of the head operator */
    bool started;   /* first message seen */
    bool ended;
    bool blocked; /* delivered the barrier being aligned */
    bool first_idle; /* its first message (the status) said IDLE */
    /* where it comes from (runtime/inspect.h) */
    int edge;
    uint32_t from_subtask;
    /* Mirrored for readers on other threads (WEIR__SET / WEIR__LOAD): the
     * channel's watermark, its status (WEIR__CHAN_*), and the job-clock
     * time of its last batch (WEIR_TS_MIN: none yet). */
    int64_t wm_metric;
    int32_t status_metric;
    int64_t last_data_ms_metric;
} weir__inchan;

enum { WEIR__CHAN_ACTIVE = 0, WEIR__CHAN_IDLE = 1, WEIR__CHAN_ENDED = 2 };

/*
 * What a split shows to readers on other threads (runtime/inspect.h):
 * written by the source thread with WEIR__SET, read with WEIR__LOAD. It
 * lives in its subtask's list (split_pub) until the job is destroyed, so a
 * reader never sees it freed.
 */
typedef struct weir__split_pub {
    char *id;
    int64_t wm;           /* the split's watermark (WEIR_TS_MIN: none yet) */
    int64_t max_ts;       /* newest event time read */
    int64_t last_data_ms; /* job clock: last row, or opening */
    uint64_t rows;        /* rows read */
    int32_t idle, finished;
} weir__split_pub;

/* A source split as the source task drives it. */
typedef struct weir__split {
    char *id;
    void *reader;
    weir__wm_gen gen;
    uint32_t valve_idx;
    bool finished;
    bool idle;
    /* waiting for the split it continues (weir_source_class.continues) to
     * end: not opened, no input of the valve */
    bool queued;
    uint32_t next; /* index of the split that continues this one; 0: none */
    int64_t last_data_ms; /* processing time of the last row (or of opening) */
    weir__split_pub *pub; /* owned by the subtask's split_pub list */
} weir__split;

/* The most rows one source record decodes to (a debezium-json update: -U and +U). */
#define WEIR__SOURCE_MAX_ROWS_PER_RECORD 2

typedef struct weir__source_run {
    const weir_source_class *cls;
    void *src;
    weir__split *splits;
    uint32_t n_splits, cap_splits;
    bool discovery_done;
    weir__wm_valve valve;
    int64_t idle_timeout_ms; /* <= 0: never idle */
    /* job clock: the last row of any split, or the last split opened */
    int64_t last_data_ms;
    weir_batch *rb;          /* read batch */
    weir_batch *seg;         /* scratch for the later segments of a cut batch */
    uint32_t *iota;          /* 0, 1, 2, ... for gathers */
    weir_buf pos;            /* scratch for positions */
    uint64_t rows;           /* rows read by this subtask in this run */
    uint32_t n_seqs;         /* splits that continue none (lockstep's unit) */
    /* lockstep: this subtask had to wait for its siblings and reads on only
     * once it is half as far ahead */
    bool lock_held;
} weir__source_run;

struct weir__subtask {
    weir_job *job;
    weir__task *task;
    uint32_t index;
    pthread_t thread;
    bool thread_started;
    weir__gate gate;

    weir__inchan *in;
    uint32_t n_in;
    uint32_t rr; /* round-robin start among input channels */
    bool all_started;
    weir__wm_valve valve; /* over input channels (or splits: see source_run) */
    /* Per logical input of the head operator: that input's own watermark
     * (its channels merged by the valve's rules), never backwards; what a
     * several-input operator judges that input's records against
     * (weir_op_input_watermark). NULL for a single input. */
    weir_ts *input_wm;
    uint32_t n_inputs;

    weir_op_ctx
        *ops; /* the chain; for a source task ops[0] is the source itself */
    uint32_t n_ops;
    weir__writer *
        *writers; /* every writer of the subtask (for status, barriers, end) */
    uint32_t n_writers;
    weir__source_run *src;

    bool idle_out;     /* last status sent downstream */
    bool undrained;    /* an input ended by stop, not by its end */
    bool ending;       /* every input ended: the final watermark, finish and END follow */
    bool wake_pending; /* a push left a consumer asleep: notify before idling */
    bool status_sent;  /* the initial status went out */
    uint32_t interrupt_tick; /* timers fired, see weir__job_interrupted */

    /* checkpoints */
    uint64_t pending_barrier; /* being aligned, 0 if none */
    /* its time to turn unaligned (job clock, ms), 0: never */
    int64_t align_timeout_at_ms;
    uint32_t n_aligned;
    uint64_t last_barrier;  /* highest barrier snapshotted or aborted */
    uint64_t max_triggered; /* highest checkpoint this subtask heard of */
    bool finished;          /* thread done; guarded by gate.mu */
    struct weir__snapper *snapper; /* asynchronous snapshot parts, lazily */
    /*
     * The unaligned checkpoint this subtask snapshotted and is storing the
     * in-flight data of (0: none): per input channel whether its barrier is
     * still to come (ua_wait) and the messages stored (ua_rec, ua_nmsg).
     * Arrays of n_in, allocated at the first unaligned checkpoint.
     */
    uint64_t ua_id;
    struct weir__async_snap *ua_snap;
    uint8_t *ua_wait;
    uint32_t ua_n_wait;
    weir_buf *ua_rec;
    uint32_t *ua_nmsg;
    weir__msg *ua_tmp; /* overtaken messages, copied out of a ring */
    uint32_t ua_tmp_cap;
    /* Restore: the in-flight section to replay after the handshake. */
    const uint8_t *replay;
    size_t replay_len;

    /* errors and metrics */
    weir_error err; /* first failure of this subtask */
    int64_t backpressured_ns;
    /* monotonic ns spent waiting for input (nothing to read, no timer due),
     * and when the wait under way began (0: not waiting) */
    int64_t idle_ns, idle_since_ns;
    /* monotonic ns the thread started and ended (0: not yet) */
    int64_t start_ns, end_ns;
    int64_t out_wm_metric; /* last watermark sent downstream */
    /* job clock (ms) when out_wm_metric last changed (0: never) */
    int64_t out_wm_moved_ms;
    /* sources: every split seen, for readers on other threads; the mutex
     * guards the array (not the entries' fields, which are atomic) */
    pthread_mutex_t pub_mu;
    weir__split_pub **split_pub;
    uint32_t n_split_pub, cap_split_pub;
    int64_t max_event_ts_metric; /* sources: newest event time read */
    /* sources in a watermark-alignment group: the watermark this subtask
     * holds the group to (WEIR_TS_MAX: idle or finished, holds no one) */
    _Atomic int64_t align_wm;
    /* sources whose class is lockstep: rows read per split (UINT64_MAX once
     * finished: holds no one back) */
    _Atomic uint64_t lock_rows;
    /* a lockstep subtask waiting for its siblings: the rows per sequence
     * every sibling must have read for it to read on (0: not waiting) */
    _Atomic uint64_t lock_resume_at;
    /* objects the operators of the chain share (weir__op_chain_shared): freed with the subtask */
    struct weir__chain_shared {
        const void *token;
        void *obj;
        void (*destroy)(void *obj);
    } shared[WEIR__CHAIN_SHARED];
    uint32_t n_shared;
};

struct weir_job {
    weir_job_config cfg;
    char *cfg_state_backend, *cfg_state_dir,
        *cfg_checkpoint_dir; /* owned copies */
    bool state_dir_temp; /* cfg_state_dir was made for the job: removed with it */
    int state_dir_owner; /* the lock on its owner file (weir__io_temp_dir_owned) */
    weir__node *nodes;
    uint32_t n_nodes, cap_nodes;
    weir__edge *edges;
    uint32_t n_edges, cap_edges;
    weir__task *tasks;
    uint32_t n_tasks;
    weir__channel **channels;
    uint32_t n_channels, cap_channels;

    /* 0 built, 1 running, 2 finished; atomic because weir_job_stop may come
     * from any thread (a signal watcher) while the job starts or ends. The
     * tasks are complete before it turns 1 and stay until destroy. */
    _Atomic int phase;
    _Atomic int cancel; /* failing: every thread stops now */
    _Atomic int stop;   /* stopping: sources end, in-flight data drains */
    /* with stop: the stop is an end of input (final watermark, finish) */
    _Atomic int drain;
    /* with stop: a savepoint waits for the stop; loops are not cut short */
    _Atomic int stop_savepoint;
    /* stop-with-savepoint across processes: each source ends (undrained)
     * right after it injected this barrier (0: none) */
    _Atomic uint64_t stop_after_barrier;
    /* monotonic ns of the first stop (0: none); see weir__job_interrupted */
    _Atomic int64_t stop_ns;
    pthread_mutex_t mu; /* error */
    int err_code;
    char err_msg[1024];
    bool build_failed;

    /* This process's place among the processes running one job
     * (cluster/cluster.h): sources take their share of the job's splits as
     * subtasks cluster_index * p + i of cluster_count * p. 0, 0: alone. */
    uint32_t cluster_index, cluster_count;
    /* Their number may change (a rescale through a checkpoint): sources
     * keep split ids that do not depend on it (weir_source_info). */
    bool cluster_rescalable;
    /* Checkpoints across those processes (runtime/checkpoint.h). */
    weir__ckpt_gate gate;
    bool has_gate;

    weir__ckpt_hooks hooks;
    bool has_hooks;
    weir__restore_source restore;
    bool has_restore;
    weir__job_companion companion; /* checkpoint.h; .ud NULL if none */
};

/* ---- job.c ---- */
int weir__job_fail(weir_job *job, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A graph-building error: the job keeps it and refuses to start. */
int weir__job_build_error(weir_job *job, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
weir__node *weir__job_node(const weir_job *job, int id);
/* Node `node`'s output columns `part` hold the key of its input `input`. */
int weir__job_keyed_output(weir_job *job, int node, const weir_keyspec *part,
                           uint32_t input);
/* Per output column of node `node` (n of them): the input column it carries
 * unchanged, or -1. */
int weir__job_passes_columns(weir_job *job, int node, const int32_t *src,
                             uint32_t n);
/* The schema rows on edge e have: its producer's main or side output. */
const weir_schema *weir__edge_schema(const weir_job *job, const weir__edge *e);

/* ---- stateid.c ---- */
/* Whether node n keeps state that a checkpoint records. */
bool weir__node_stateful(const weir_job *job, const weir__node *n);
/* Node `node`'s stable id (its own, or its name and index among the
 * stateful nodes of that name) into buf. */
void weir__node_uid(const weir_job *job, uint32_t node, char *buf, size_t cap);

/* ---- origins.c ---- */
/* Records the expressions (n, one per output column) of Calc node `node`. */
int weir__job_column_exprs(weir_job *job, int node, weir_expr *const *exprs, uint32_t n);
/* The same for a source that adds computed columns to the physical ones
 * (`physical`, which the expressions read): written out with their names. */
int weir__job_source_column_exprs(weir_job *job, int node, weir_expr *const *exprs, uint32_t n,
                                  const weir_schema *physical);
/* The same for the local phase of a two-phase aggregation (planner/twophase.c):
 * its keys, then each aggregate's partial words, of its input's columns. */
int weir__job_local_agg_exprs(weir_job *job, int node, uint32_t n_keys, const weir_agg *aggs,
                              const int32_t *filters, uint32_t n_aggs);
/* Appends the origins of edge e's columns, ", " apart: what each is
 * computed from, back to the sources' columns and stateful operators'
 * outputs. WEIR_EUNSUPPORTED (nothing appended): too deep or too long. */
int weir__edge_column_origins(const weir_job *job, const weir__edge *e, weir_buf *out);

/* ---- plan.c ---- */
int weir__plan_build(weir_job *job);
void weir__plan_free(weir_job *job);
int weir__job_start_threads(weir_job *job);
void weir__job_cancel(weir_job *job);

/* ---- task.c / source_task.c ---- */
void *weir__subtask_main(void *arg);
int weir__run_consumer(weir__subtask *st);
int weir__run_source(weir__subtask *st);
int weir__source_open(weir__subtask *st);
void weir__source_close(weir__subtask *st);
int weir__source_snapshot(weir__subtask *st, uint64_t ckpt_id, weir_buf *out);
/* Tells the source that checkpoint ckpt_id completed (its optional hook). */
int weir__source_checkpoint_complete(weir__subtask *st, uint64_t ckpt_id);

/* Chain plumbing shared by both loops. */
int weir__chain_watermark(weir__subtask *st, weir_ts wm); /* into ops[0] */
int weir__op_advance_watermark(weir_op_ctx *c, weir_ts wm);
int weir__op_check_hold(weir_op_ctx *c);
int weir__chain_status(weir__subtask *st, bool idle);
int weir__chain_finish(weir__subtask *st);
/* The job stopped without a drain: each operator's stop hook, in chain order. */
int weir__chain_stop(weir__subtask *st);
int weir__chain_end(weir__subtask *st, bool drained);
int weir__chain_barrier(weir__subtask *st, uint64_t id);
int weir__chain_flush(weir__subtask *st);
int weir__fire_processing_timers(weir__subtask *st);
/* Handles mailbox commands; `*checkpoint` gets a requested checkpoint id
 * (sources) or 0. */
int weir__subtask_commands(weir__subtask *st, uint64_t *checkpoint);
int weir__subtask_fail(weir__subtask *st, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void weir__subtask_mark_finished(weir__subtask *st);
/* Final checkpoints (checkpoint.h): whether they are on, and the wait for one
 * at the end. */
bool weir__final_checkpoints(const weir_job *job);
int weir__subtask_await_final(weir__subtask *st);

/* ---- snapshot_async.c ---- */

/*
 * A subtask snapshot between its two parts (format: checkpoint.h). The
 * synchronous part, on the subtask's thread at the barrier, writes
 * everything but the keyed state (operator state, timers, source positions)
 * and pins each backend's keyed state (weir__backend_snapshot_begin); the
 * asynchronous part, on the subtask's snapshot thread, serializes the pinned
 * keyed state and assembles the bytes.
 */
typedef struct weir__async_op {
    size_t head_end;        /* its header, up to n_kg, ends here in head */
    bool has_kg;            /* a key-group section follows */
    uint32_t kg_lo, kg_hi;
    weir__backend_snap *bs; /* pinned keyed state, or NULL */
    /* Or (incremental checkpoints) a native RocksDB checkpoint's folder. */
    char *native_dir;
    uint32_t node;
    size_t tmr_start;       /* where its timers begin in timers */
    size_t *tmr_end;        /* per key group: end of its timers in timers */
} weir__async_op;

typedef struct weir__async_snap {
    uint64_t id;
    weir_buf head;   /* the snapshot header, then each operator's header */
    weir_buf timers; /* the timers of every operator's key groups */
    weir_buf tail;   /* the source section */
    weir__async_op *ops;
    uint32_t n_ops;
    weir_buf inflight; /* unaligned: the in-flight section, or empty */
    uint64_t inflight_bytes;
    int64_t t0_ns;   /* monotonic time the snapshot began */
    int64_t sync_ns; /* time the subtask's thread spent on the first part */
    struct weir__async_snap *next;
} weir__async_snap;

void weir__async_snap_free(weir__async_snap *a);
/*
 * The second part, on any thread: the snapshot's bytes, appended to out.
 * Native parts are stored through hooks->native_upload (task and subtask
 * name the subtask); hooks may be NULL when there are none.
 */
int weir__async_snap_write(weir__async_snap *a, weir_buf *out,
                           const weir__ckpt_hooks *hooks, int task,
                           uint32_t subtask);
/*
 * Queues the second part on the subtask's snapshot thread (started on first
 * use), which acks (or declines) checkpoint a->id when done; takes a. With
 * hooks.sync_snapshots it runs here instead.
 */
int weir__snapshot_submit(weir__subtask *st, weir__async_snap *a);
/*
 * At the end of the subtask, before its operators close: finishes the queued
 * parts (discards them when the job was canceled) and ends the thread.
 */
void weir__snapshot_thread_stop(weir__subtask *st);

/* ---- checkpoint.c: in-flight messages (format: checkpoint.h) ---- */
int weir__inflight_put_msg(weir_buf *out, const weir__msg *m);
/* Decodes a batch message into b (the channel's schema, enough capacity),
 * or with b NULL only checks it. */
int weir__inflight_get_msg(weir_cursor *c, weir__msg *m, weir_batch *b);

/* ---- opctx.c ---- */
int weir__op_init(weir_op_ctx *c, weir__subtask *st, uint32_t pos,
                  weir__node *node);
int weir__op_open(weir_op_ctx *c);
void weir__op_close(weir_op_ctx *c);
/*
 * The object the operators of ctx's chain (one subtask, one thread) share
 * under token: made by make() for the first that asks, the same object for
 * every later ask in this subtask; destroy frees it with the subtask, after
 * every operator closed. NULL without memory, or when the subtask already
 * shares WEIR__CHAIN_SHARED objects. Operators in other subtasks (across an
 * exchange) never see it.
 */
void *weir__op_chain_shared(weir_op_ctx *ctx, const void *token, void *(*make)(void), void (*destroy)(void *obj));
int weir__op_process(weir_op_ctx *c, int input, const weir_batch *b);
/*
 * weir_op_emit for a batch the caller owns: when the operator's output is a
 * single exchange (no chained operator), the batch may be handed to the
 * channel instead of copied, and *b replaced (weir__writer_emit_handoff).
 */
int weir__op_emit_handoff(weir_op_ctx *c, weir_batch **b);
int weir__op_ensure_backend(weir_op_ctx *c);
int weir__op_ensure_timers(weir_op_ctx *c);
int weir__op_set_key_raw(weir_op_ctx *c, const void *key, size_t len,
                         uint64_t hash);

/* ---- writer.c ---- */
struct weir__writer {
    weir__subtask *st;
    weir__edge *edge;
    weir_partitioning part;
    weir_keyspec key;
    uint32_t max_par;
    weir__channel **ch; /* targets */
    uint32_t n;
    weir_batch **stage; /* per target, NULL until rows arrive */
    uint32_t **tidx; /* per target: row indices of the batch being scattered */
    uint32_t *tn;
    uint32_t *iota;
    uint64_t *rhash;    /* KEYED: the key hash of each row being scattered */
    uint8_t *kbuf;      /* KEYED: encoded fixed-width keys, 9 bytes a row */
    uint32_t idx_cap;   /* capacity of tidx[t], iota, rhash and kbuf */
    uint32_t *kg_owner; /* key group -> target */
    uint32_t rr;        /* rebalance cursor */
    weir_buf bigkey;    /* keys longer than the stack buffer */
};

int weir__writer_init(weir__writer *w, weir__subtask *st, weir__edge *edge,
                      weir__channel **targets, uint32_t n);
void weir__writer_fini(weir__writer *w);
int weir__writer_emit(weir__writer *w, const weir_batch *b);
/*
 * As weir__writer_emit, for a batch the caller owns and can give up: when
 * all its rows go to one channel of the same schema and batch size, *b is
 * queued as it is (no copy) and replaced by an empty batch from that
 * channel's pool, which the caller owns from then on (it is freed with
 * weir_batch_destroy like its own). Otherwise the rows are copied and *b
 * stays the caller's, unchanged.
 */
int weir__writer_emit_handoff(weir__writer *w, weir_batch **b);
int weir__writer_flush(weir__writer *w);
int weir__writer_control(weir__writer *w, const weir__msg *m);
/* An unaligned barrier into every channel of w: staged rows are queued, then
 * the barrier goes to the head (weir__channel_push_barrier); never blocks. */
int weir__writer_barrier_unaligned(weir__writer *w, uint64_t id);
void weir__writer_notify(weir__writer *w);

#endif
