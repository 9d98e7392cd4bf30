/*
 * runtime/checkpoint.h - the runtime's side of checkpoints
 * (internal-but-shared: the checkpoint coordinator, its storage and recovery
 * build on this).
 *
 * Taking a checkpoint:
 *   1. The coordinator calls weir__job_trigger_checkpoint(job, id) with
 *      increasing ids. Every source subtask records its split positions at
 *      the next batch boundary and injects barrier `id` into its outputs.
 *   2. Barriers flow with the data. A subtask with several input channels
 *      aligns them: a channel that delivered barrier `id` is not read again
 *      until every open channel has delivered it.
 *   3. When aligned, the subtask snapshots each operator of its chain
 *      (the operator's snapshot hook, then for each key group it owns the
 *      keyed state and the timers) into one byte string, calls hooks.ack with
 *      it, then forwards the barrier. The snapshot has two parts: on the
 *      subtask's thread the operator hooks, the timers and the source
 *      positions are written and the keyed state is pinned (cheap: see
 *      weir__backend_snapshot_begin), then the barrier goes on and the
 *      subtask keeps processing while its snapshot thread serializes the
 *      pinned keyed state and calls hooks.ack (or hooks.decline if that
 *      fails). So ack and decline come from subtask threads or their
 *      snapshot threads; the bytes are valid for the call only (copy them,
 *      or take the buffer over).
 *   4. A subtask that has already finished (end of input) when `id` is
 *      triggered, or that finishes without seeing the barrier, acks with
 *      finished = true and no bytes.
 *   5. When all subtasks acked, the coordinator persists the checkpoint and
 *      calls weir__job_notify_checkpoint_complete(job, id): every operator's
 *      checkpoint_complete hook runs (sinks commit).
 * A newer barrier overtaking an older one during alignment aborts the older
 * checkpoint at that subtask (hooks.decline).
 *
 * Final checkpoints (hooks.final_checkpoint): a subtask whose input ended,
 * or that the job stopped, does not exit at once. It snapshots its chain a
 * last time (its state no longer changes), tells hooks.final_ready, answers
 * every checkpoint from then on with that snapshot (final = true), and exits
 * once one of those checkpoints completed (or the job is canceled). So the
 * last output of a two-phase-commit sink is committed only under a completed
 * checkpoint that also records the end of every source, and a crash between
 * the end of the input and the end of the job never shows output twice. In
 * this mode a stopped job (weir_job_stop) does not call the operators'
 * finish hooks: finish means end of input, and after a stop the state must
 * stay as the sources left it, for the job to resume from the final
 * checkpoint.
 *
 * Restoring: before weir_job_start, weir__job_set_restore gives the runtime
 * a weir__restore_source; each operator instance asks it for its operator
 * state and for the keyed state and timers of each key group it owns (so a
 * different parallelism works, key groups move whole), and each source split
 * asks for its position by split id. weir__snapshot_set implements it over a
 * set of subtask snapshots.
 *
 * Subtask snapshot format (little-endian; varint = LEB128; bytes = varint
 * length + bytes; str = bytes):
 *   u32 magic "WSNP", u8 version (1), varint task, varint subtask,
 *   varint parallelism, varint n_ops, then per operator:
 *     varint node, str name, bytes operator_state, varint n_kg,
 *     n_kg x (u32 kg, bytes keyed_state, bytes timers)
 *   then u8 has_source and, if 1: varint node, varint n_splits,
 *     n_splits x (str split_id, u8 finished, bytes position, i64 max_ts).
 * The key groups listed are those of the subtask's range that hold keyed
 * state or timers, in increasing order; a key group not listed is empty,
 * so one that no key falls into costs nothing (a checkpoint of an earlier
 * weir lists every one, the empty ones with a canonical snapshot of no
 * state and a timer count of 0, and restores the same). n_kg is written
 * padded to 5 bytes (LEB128 with continuation bits: it is known only
 * after the entries).
 * Version 2 (incremental checkpoints) adds, at the end, the native RocksDB
 * checkpoints that hold the keyed state of some operators instead of the
 * per-key-group bytes (which are then empty; timers stay per key group):
 *   varint n_native, n_native x (varint node, varint kg_lo, varint kg_hi,
 *     varint n_files, n_files x (str name, u8 where,
 *       where 0 (inline): bytes content;
 *       where 1 (shared): str storage name, u64 size, u32 crc32c)).
 * Version 1 is written whenever no operator is snapshotted natively, so
 * savepoints and full checkpoints keep the backend-independent format.
 * Version 3 (unaligned checkpoints that stored in-flight data) has the
 * native section (n_native may be 0) and then the in-flight section:
 *   varint n_in (the subtask's input channels), varint n_entries,
 *   n_entries x (varint channel, varint n_msgs, bytes messages), channels
 *   in increasing order, only those with messages; messages in channel
 *   order, each u8 type and: BATCH i64 wm_after (or WEIR_TS_MIN), varint
 *   n_rows, varint n_cols, n_rows x i64 ts, n_rows x u8 kind, per column
 *   u8 type id, u8 all_valid, [bitmap (n_rows+7)/8 if not all_valid],
 *   values (strings: n_rows x bytes; others n_rows x width, raw);
 *   WATERMARK i64; IDLE, ACTIVE nothing.
 *
 * Unaligned checkpoints (hooks.unaligned_ok): a source that injects barrier
 * `id`, and any other subtask at the first barrier `id` on any input,
 * snapshots its chain at once and puts the barrier at the head of each of
 * its output channels (weir__channel_push_barrier), overtaking what is
 * queued there; that overtaken data is in flight. The receiving subtask
 * stores, per input channel, the messages the barrier overtook and, for
 * channels whose barrier had not arrived when it snapshotted, every message
 * it takes from them until it does; it processes all of them as usual, and
 * acks when every open input delivered the barrier. On restore the stored
 * messages of every channel are replayed through the chain before any new
 * input (after the status handshake).
 */
#ifndef WEIR_RUNTIME_CHECKPOINT_H
#define WEIR_RUNTIME_CHECKPOINT_H

#include "state/backend.h"
#include "weir/buf.h"
#include "weir/job.h"

#define WEIR__SNAPSHOT_MAGIC 0x504E5357u /* "WSNP" */

typedef struct weir__task_snapshot {
    uint64_t ckpt_id;
    int task;
    uint32_t subtask;
    uint32_t parallelism;
    bool finished; /* the subtask had finished: nothing left to restore */
    bool final;    /* a final snapshot: the subtask's state no longer changes */
    const uint8_t *data; /* valid for the call */
    size_t len;
    /*
     * The buffer holding data, or NULL. The hook may take it over instead
     * of copying (move it out and leave *buf initialised and empty).
     */
    weir_buf *buf;
    /*
     * How long the subtask's thread paused for this snapshot (its
     * synchronous part, the operators' snapshot hooks included), in ns;
     * 0 when not measured (finished and final snapshots).
     */
    int64_t sync_ns;
    /* Unaligned checkpoints: bytes of in-flight data in the snapshot. */
    uint64_t inflight_bytes;
} weir__task_snapshot;

typedef struct weir__ckpt_hooks {
    /* Called from subtask threads, concurrently: one call per subtask per
     * checkpoint. */
    void (*ack)(void *ud, const weir__task_snapshot *snap);
    /* A subtask gave up checkpoint id (a snapshot hook failed, or a newer
     * barrier overtook it). */
    void (*decline)(void *ud, uint64_t ckpt_id, int task, uint32_t subtask,
                    int code, const char *why);
    void *ud;
    /* Final checkpoints (see above); final_ready is called from the subtask's
     * thread. */
    bool final_checkpoint;
    void (*final_ready)(void *ud, int task, uint32_t subtask);
    /* The first checkpoint id of this run (the coordinator's: above every
     * id a checkpoint folder holds, so above a restored checkpoint's); 0:
     * unknown. A final snapshot taken before this run has seen a
     * checkpoint is tagged with it, never with a lower id (which a restored
     * run's sinks would count as covered by the restored checkpoint). */
    uint64_t first_id;
    /* Serialize snapshots on the subtask's thread before the barrier goes
     * on (state.backend.async = false). */
    bool sync_snapshots;
    /*
     * Incremental checkpoints (state.backend.incremental), optional.
     * native_ok, on the subtask's thread at the barrier: whether checkpoint
     * id may hold RocksDB keyed state as native checkpoints (not for
     * savepoints). If so, the synchronous part takes a native checkpoint
     * (weir__rocksdb_snapshot_native) and the snapshot thread calls
     * native_upload with its folder: it stores what storage does not hold
     * yet and appends the part's file list (varint n_files, entries as in
     * the format above) to out. A non-zero return declines the checkpoint.
     */
    bool (*native_ok)(void *ud, uint64_t id);
    int (*native_upload)(void *ud, uint64_t id, int task, uint32_t subtask,
                         uint32_t node, const char *dir, weir_buf *out);
    /*
     * Optional, on a source subtask's thread when it injects barrier id:
     * whether checkpoint id is unaligned (its barriers overtake queued data;
     * savepoints are always aligned). Subtasks downstream follow the
     * barrier's kind.
     */
    bool (*unaligned_ok)(void *ud, uint64_t id);
    /*
     * With unaligned_ok: > 0 makes such a checkpoint start aligned; where
     * its barrier is still queued behind data, or its alignment is not
     * done, this many ms (job clock) after the source injected it, it turns
     * unaligned there (execution.checkpointing.aligned-checkpoint-timeout).
     */
    int64_t aligned_timeout_ms;
} weir__ckpt_hooks;

/* ---- the native section of a version 2 snapshot ---- */

typedef struct weir__native_file {
    char *name;   /* file name inside the native checkpoint */
    char *shared; /* name in checkpoint storage ("shared/..."); NULL: inline */
    const uint8_t *data; /* inline content (borrowed from the snapshot) */
    size_t len;
    uint64_t size; /* shared: size and CRC-32C */
    uint32_t crc;
} weir__native_file;

typedef struct weir__native_part {
    uint32_t node, kg_lo, kg_hi;
    uint32_t n_files;
    weir__native_file *files;
} weir__native_part;

/* Checks an in-flight section at c (version 3) and moves past it;
 * *section points to it inside c's bytes, *n_msgs counts its messages. */
int weir__snapshot_read_inflight(weir_cursor *c, const uint8_t **section,
                                 size_t *section_len, uint64_t *n_msgs);

/* Reads a native section at c (after the source section of a version 2
 * snapshot); *parts transferred (free with weir__native_parts_free). */
int weir__snapshot_read_native(weir_cursor *c, weir__native_part **parts,
                               uint32_t *n);
void weir__native_parts_free(weir__native_part *parts, uint32_t n);

/*
 * Tests only: when set, every subtask's snapshot thread calls fn before it
 * serializes its part of checkpoint `id` (a test may block there to show that
 * the job goes on meanwhile); a non-zero return (a WEIR_E... code) fails
 * that part as a failed serialization would. Set it before the job starts,
 * clear it after.
 */
typedef int (*weir__snapshot_test_hook)(uint64_t id, int task,
                                        uint32_t subtask);
void weir__set_snapshot_test_hook(weir__snapshot_test_hook fn);

/*
 * Tests only: when set, weir__job_trigger_checkpoint calls fn (on the
 * triggering thread) before it hands checkpoint `id` to each subtask, so a
 * test can let that subtask end just then. Set it before the job starts,
 * clear it after.
 */
typedef void (*weir__trigger_test_hook)(uint64_t id, int task,
                                        uint32_t subtask);
void weir__set_trigger_test_hook(weir__trigger_test_hook fn);

/* Before weir_job_start. */
int weir__job_set_ckpt_hooks(weir_job *job, const weir__ckpt_hooks *hooks);
/* Number of subtasks in the running job: the acks to expect per checkpoint. */
uint32_t weir__job_subtask_count(const weir_job *job);
int weir__job_trigger_checkpoint(weir_job *job, uint64_t id);
int weir__job_notify_checkpoint_complete(weir_job *job, uint64_t id);

/*
 * For a two-phase-commit sink's finish hook: whether a final checkpoint
 * follows, whose completion commits what finish leaves pending. Without one
 * (no checkpoints) finish must commit its output itself.
 */
bool weir__op_final_checkpoint(weir_op_ctx *ctx);

/*
 * For a sink whose transactions outlive its process (two-phase commit),
 * so that it names them uniquely across a job run by several processes
 * (cluster/cluster.h) and the same in every run of one process: *subtask,
 * the instance's index among all the processes' instances of its operator
 * (process index * parallelism + its own); *parallelism, their number;
 * *last_id, the highest checkpoint id the job's log shows triggered
 * before this run started (the leader may have taken one more whose
 * record had not reached the log); *restored_id (may be NULL), the
 * checkpoint every process restored (0: a fresh start). Alone: its own
 * index and parallelism, and 0.
 */
void weir__op_instance(weir_op_ctx *ctx, uint32_t *subtask,
                       uint32_t *parallelism, uint64_t *last_id,
                       uint64_t *restored_id);

/*
 * For an operator that carries its subtask's status out of the process (a
 * repartition writer, cluster/exchange.c): fn is called whenever the
 * subtask tells downstream that it went idle (true) or active again
 * (false), in order with the watermarks it forwards. From open on.
 */
typedef int (*weir__op_status_fn)(void *op, weir_op_ctx *ctx, bool idle);
void weir__op_on_status(weir_op_ctx *ctx, weir__op_status_fn fn);

/*
 * For an operator that keeps rows in the compact encoding (ops/rowcodec.h)
 * and names it in its fingerprint ("row format"): when the checkpoint being
 * restored was written before that encoding (its fingerprint lacks the
 * field; its rows are in the canonical one), fn is called once, after the
 * keyed and operator state were restored and before any input, timer or
 * checkpoint, to re-encode them. From open.
 */
#define WEIR__ROW_FORMAT_FIELD "row format"
#define WEIR__ROW_FORMAT "compact-1" /* its value: the compact encoding */
typedef int (*weir__op_canonical_rows_fn)(void *op, weir_op_ctx *ctx);
void weir__op_on_canonical_rows(weir_op_ctx *ctx, weir__op_canonical_rows_fn fn);
/*
 * For an operator whose state may have to change layout after a restore
 * (a join moving rows a checkpoint holds in map entries into its row
 * logs): fn is called once after every restore, after the keyed and
 * operator state were restored and the rows re-encoded (above), before any
 * input, timer or checkpoint. From open.
 */
typedef int (*weir__op_restored_fn)(void *op, weir_op_ctx *ctx);
void weir__op_on_restored(weir_op_ctx *ctx, weir__op_restored_fn fn);
/* The fingerprint field of the layout of Top-N and deduplication rows
 * (ops/rank.c): "2", without the columns their partition key and sort key
 * hold. A checkpoint without it keeps them whole; its lists are re-encoded
 * after the restore (weir__op_on_restored). */
#define WEIR__RANK_ROWS_FIELD "rank rows"
#define WEIR__RANK_ROWS "2"
/* Marks whether the checkpoint restored into node keeps its Top-N rows
 * whole (checkpoint/compat.c); before the job starts. */
void weir__job_restore_whole_rank_rows(weir_job *job, int node, bool whole);
/* Whether the checkpoint this operator restored keeps its Top-N rows whole
 * (for its weir__op_on_restored function). */
bool weir__op_restores_whole_rank_rows(const weir_op_ctx *ctx);
/*
 * Fingerprint fields that a checkpoint written before weir recorded them
 * lacks: a keyed input's key column positions ("key columns: 2, 0", "key
 * columns of input 1: 0"), an input's column names ("columns: k, v"), a
 * regular join's type ("join: LEFT"), time bounds ("join bounds: interval
 * [-5000, 0] ms") and null-safe keys ("null-safe keys: 1"), a Top-N's
 * ranks ("ranks: 1..3 ROW_NUMBER numbered"), the input column each
 * aggregate folds ("aggregate columns: 2, *"), an OVER aggregation's frame
 * ("frame: ROWS 2 PRECEDING"), a MATCH_RECOGNIZE's pattern ("pattern: (S
 * U{2,} D) skip=TO LAST U") and the running values of its partial matches
 * ("running values: LAST(1.$2, 0)"). Missing from the checkpoint,
 * one is not a mismatch (the rest is still compared), and cannot be
 * checked (checkpoint/compat.c).
 */
#define WEIR__KEY_COLUMNS_FIELD "key columns"
#define WEIR__COLUMNS_FIELD "columns"
#define WEIR__JOIN_FIELD "join"
#define WEIR__JOIN_BOUNDS_FIELD "join bounds"
#define WEIR__NULL_SAFE_KEYS_FIELD "null-safe keys"
#define WEIR__RANKS_FIELD "ranks"
#define WEIR__AGGREGATE_COLUMNS_FIELD "aggregate columns"
#define WEIR__FRAME_FIELD "frame"
#define WEIR__PATTERN_FIELD "pattern"
#define WEIR__RUNNING_VALUES_FIELD "running values"
/* The first term (from 1) from which a MATCH_RECOGNIZE merges the partial
 * matches that wait at the same term with the same count, its conditions
 * from there reading only the candidate row ("merged partial matches:
 * from term 3", or "none"; ops/match.h, weir_match_merged_from). A
 * checkpoint that merged from term n restores into a job that merges from
 * n or earlier; missing from a checkpoint of a weir that did not record
 * it, it cannot be checked (checkpoint/compat.c). */
#define WEIR__MERGED_FIELD "merged partial matches"
/* A MATCH_RECOGNIZE ordered by a processing-time attribute ("order:
 * processing time"; recorded only then): its rows were matched in the
 * order they arrived, so its state does not restore into one ordered by
 * event time, nor the other way round. */
#define WEIR__MATCH_ORDER_FIELD "order"
/* The windows whose bounds key a window Top-N's, window deduplication's or
 * window join's state ("windows: HOP size=4000 slide=2000"). */
#define WEIR__WINDOWS_FIELD "windows"
/* What an input's columns are computed from (runtime/origins.c): where a
 * checkpoint has it, it is compared instead of the columns' names, which
 * an alias on the way may change ("column origins: "usr", (+:BIGINT "v" 1)"). */
#define WEIR__ORIGINS_FIELD "column origins"
/* The fingerprint field of a join's row logs (weir__describe_join in ops/ops.h): its
 * value begins with the elements' format, WEIR__ROW_LOG, then names the sides that log. A
 * checkpoint of the first format ("1 ...": every element the whole row, after its time on a
 * bounded side) is re-encoded after the restore (weir__op_on_restored). */
#define WEIR__ROW_LOG_FIELD "row log"
#define WEIR__ROW_LOG "2"
/* The fingerprint field of a join linked to the Top-1 after it (planner/top1_skip.c): the side
 * whose rows strictly worse than the Top-1's kept row are neither joined nor stored, and the
 * Top-1's order as that side's columns ("top1 skip: right $2 DESC, $3 ASC NULLS LAST"). Such a
 * join's state lacks those rows: a checkpoint with it restores only into a join with the same
 * link; one without it (every row stored) restores into any (checkpoint/compat.c). */
#define WEIR__TOP1_SKIP_FIELD "top1 skip"
/* Marks whether the checkpoint restored into node keeps its row logs in the first format
 * (checkpoint/compat.c), and then whether side s's elements begin with the row's time there
 * (timed[s]: "left+time", "right+time"; the side may be bounded or not now); before the job
 * starts. */
void weir__job_restore_row_log_1(weir_job *job, int node, bool first, const bool timed[2]);
/* Whether the checkpoint this operator restored does, and then its timed sides into timed
 * (for its weir__op_on_restored function). */
bool weir__op_restores_row_log_1(const weir_op_ctx *ctx, bool timed[2]);
/* Marks whether the checkpoint restored into node keeps its rows in the
 * canonical encoding (checkpoint/compat.c); before the job starts. */
void weir__job_restore_canonical_rows(weir_job *job, int node, bool canonical);

/* The job's configuration (strings valid while the job lives). */
const weir_job_config *weir__job_config(const weir_job *job);
/* Fails the job with a message and stops every thread (a coordinator's fatal
 * error). */
void weir__job_abort(weir_job *job, int code, const char *msg);

/*
 * Restore compatibility: the job's stateful nodes (see weir_job_set_uid),
 * in node order, each with its stable id and its fingerprint ("field:
 * value\n" lines, the runtime's key fields first). *ops transferred.
 */
typedef struct weir__state_op {
    uint32_t node;
    char *uid;
    char *name;
    char *fp;
} weir__state_op;
int weir__job_state_ops(const weir_job *job, weir__state_op **ops,
                        uint32_t *n);
void weir__state_ops_free(weir__state_op *ops, uint32_t n);
/* Adds "aggregates: COUNT(*), SUM(BIGINT), ..." to node s's fingerprint. */
struct weir_agg;
/*
 * For the global phase of a two-phase aggregation (stream s, n_keys key
 * columns first in its input, then n_aggs aggregates' partial
 * accumulators): its state is the aggregates' accumulators, which the form
 * the partials travel in does not change. So its fingerprint's "input" line
 * shows the key columns and one BYTES column per aggregate whatever that
 * form is - as a weir that serialised every partial accumulator wrote it,
 * whose checkpoints thus restore - and the form is named in "partial rows"
 * (agg/merge.h: COUNT, SUM, AVG, MIN, MAX as BIGINT columns of words). A
 * checkpoint without that field restores, unless it holds in-flight data:
 * its partial rows in flight are in the serialised form, which the global
 * phase's input no longer has (checkpoint/compat.c refuses it by name).
 */
#define WEIR__PARTIAL_ROWS_FIELD "partial rows"
#define WEIR__PARTIAL_ROWS "columns-1"
int weir__job_describe_two_phase(weir_job *job, weir_stream s, uint32_t n_keys, uint32_t n_aggs);

int weir__job_describe_aggs(weir_job *job, weir_stream s,
                            const struct weir_agg *aggs, uint32_t n);

/* The name of node `node` of the job graph, or NULL if there is none (restore
 * checks). */
const char *weir__job_node_name(const weir_job *job, int node);

/*
 * For long loops (a firing, timers, a restore): call it every
 * WEIR__INTERRUPT_EVERY steps - one atomic load while the job runs. It
 * returns WEIR_ECANCELED when the loop must give up now: the job was
 * canceled, or it was stopped without a drain more than WEIR__STOP_GRACE_MS
 * ago (then it cancels the job: state halfway through a firing cannot be a
 * final checkpoint, so the job ends at its last completed one) - unless the
 * stop waits for a savepoint (weir__job_stop_for_savepoint).
 */
#define WEIR__INTERRUPT_EVERY 1024u
#define WEIR__STOP_GRACE_MS 50
int weir__job_interrupted(weir_job *job);
/*
 * Marks the stop that follows as a stop with a savepoint: weir__job_interrupted
 * then lets long loops finish (the savepoint is the final checkpoint, taken
 * after them) instead of canceling the job after WEIR__STOP_GRACE_MS.
 */
void weir__job_stop_for_savepoint(weir_job *job);
/* Whether the job was stopped without a drain (its input did not end). */
bool weir__job_stopped_undrained(const weir_job *job);
/*
 * Stop-with-savepoint of a job run by several processes: every source
 * subtask ends (as after weir_job_stop, undrained) right after it injected
 * barrier id, so nothing after that savepoint's cut enters the job; its
 * final checkpoint then holds the savepoint's state. Before triggering id.
 */
void weir__job_stop_after_barrier(weir_job *job, uint64_t id);
/* Whether the job was canceled (a failure, weir_job_cancel). */
bool weir__job_canceled(const weir_job *job);
/* Whether the job was asked to stop (weir_job_stop, its drain or cancel). */
bool weir__job_stop_requested(const weir_job *job);

uint32_t weir__job_node_count(const weir_job *job);
/* The parallelism of a node added so far (0: no such node). */
uint32_t weir__job_node_parallelism(const weir_job *job, int node);

/*
 * A companion whose life follows the job's (the checkpoint coordinator):
 * started right after the job's threads started (a failure cancels the
 * job), ended after they all ended, destroyed with the job. One per job.
 */
typedef struct weir__job_companion {
    int (*started)(void *ud, weir_job *job);
    void (*ended)(void *ud, weir_job *job);
    void (*destroy)(void *ud);
    /* Optional: adds the companion's metrics to weir_job_metrics. */
    void (*metrics)(void *ud, weir_metric_visit_fn fn, void *fn_ud);
    void *ud;
} weir__job_companion;

/* Before weir_job_start. */
int weir__job_set_companion(weir_job *job, const weir__job_companion *c);
/* The companion's ud, or NULL. */
void *weir__job_companion_ud(const weir_job *job);

/*
 * A job run by several processes (cluster/control.c): the checkpoints of
 * every process's coordinator are parts of one checkpoint of the job. The
 * leader's coordinator triggers (after announce), the others trigger what
 * next_trigger hands them; each part, once durable, is acked, and the job
 * is told of completion (sinks commit) only by weir__ckpt_global_complete,
 * when every process acked it. Pruning waits for that too: a process
 * restores the last checkpoint complete everywhere. Owned by the job
 * (destroy with it).
 */
struct weir__restore_source;
typedef struct weir__ckpt_gate {
    bool leader;
    const char *dir;     /* this process's parts: replaces state.checkpoints.dir */
    const char *restore; /* this process's part of it (a path), NULL: fresh */
    /*
     * With restore: the parts of every process that took the checkpoint
     * (paths; NULL where this process need not read one), and combine,
     * which makes this process's restore source from the ones loaded
     * from them (ud NULL where not read).
     */
    const char *const *restore_parts;
    uint32_t n_parts;
    /*
     * Optional: restore_parts names every process's part, but only this
     * process's own (the one restore names) is read first; the others are
     * read only when need_others says so after looking at it (the job's
     * parallelism changed: splits and state move between processes).
     */
    bool (*need_others)(void *ud, weir_job *job,
                        const struct weir__restore_source *own);
    int (*combine)(void *ud, weir_job *job, const struct weir__restore_source *parts,
                   uint32_t n, struct weir__restore_source *out, weir_error *err);
    uint64_t first_id;   /* checkpoint ids start above this */
    uint64_t restored_id; /* the complete checkpoint restored (0: fresh) */
    bool job_done;       /* the restored checkpoint ended the whole job */
    int (*start)(void *ud, weir_job *job); /* the job started */
    void (*stop)(void *ud);                /* the job ended */
    int (*announce)(void *ud, uint64_t id);
    uint64_t (*next_trigger)(void *ud); /* 0: none now */
    void (*acked)(void *ud, uint64_t id, bool all_final);
    void (*destroy)(void *ud);
    void *ud;
    /*
     * Savepoints of the whole job (cluster/control.c). sp_part: this
     * process's folder inside savepoint-<id>/ ("process-<i>"). sp_request
     * asks the leader for one (stop: then the job stops after it) under the
     * number nonce (0: nobody waits), which comes back with the answer
     * (weir__ckpt_global_savepoint); non-zero: not sent. The leader's coordinator takes
     * the requests in the log's order with sp_next (true: one, *stop set;
     * one at a time, the next after the answer to the last) and announces
     * each with sp_announce (id 0: refused, with why). sp_kind says
     * whether a triggered id (next_trigger) is a savepoint (and *stop).
     * sp_acked: this process's part of savepoint id is written (ok) or
     * failed.
     */
    const char *sp_part;
    int (*sp_request)(void *ud, uint64_t nonce, bool stop);
    bool (*sp_next)(void *ud, bool *stop);
    int (*sp_announce)(void *ud, uint64_t id, bool stop, const char *why);
    bool (*sp_kind)(void *ud, uint64_t id, bool *stop);
    void (*sp_acked)(void *ud, uint64_t id, bool ok);
} weir__ckpt_gate;

/* Before weir_job_enable_checkpoints; the job owns gate (copied) and ud. */
int weir__job_set_ckpt_gate(weir_job *job, const weir__ckpt_gate *gate);
const weir__ckpt_gate *weir__job_ckpt_gate(const weir_job *job);
/* Checkpoint id completed on every process; job_final: every part of it
 * was final (the job ended everywhere). From the gate's thread. */
void weir__ckpt_global_complete(weir_job *job, uint64_t id, bool job_final);
/*
 * Savepoint id of the whole job ended (the gate's thread): code 0, every
 * process wrote its part and the leader sealed it; else why. nonce: the
 * request it answers when this process asked for it (0: another's).
 * id 0: the leader refused the request.
 */
void weir__ckpt_global_savepoint(weir_job *job, uint64_t id, uint64_t nonce,
                                 int code, const char *why);
/*
 * The leader, once every process wrote its part of savepoint id: writes
 * savepoint-<id>/_cluster (text) into state.savepoints.dir, which makes it
 * a complete savepoint of the job.
 */
int weir__ckpt_savepoint_seal(weir_job *job, uint64_t id, const char *text);

/* ---- restoring ---- */

typedef struct weir__restored_split {
    char *id; /* owned by the restore source until the job ends */
    bool finished;
    const void *pos;
    size_t pos_len;
    weir_ts max_ts; /* watermark generator state */
} weir__restored_split;

typedef struct weir__restore_source {
    /* Operator (non-keyed) state of node at subtask i of the new parallelism;
     * leave out empty if none. */
    /*
     * Optional: the parallelism node had when the snapshot was taken (0:
     * unknown). When it was larger than now, instance i also restores the
     * operator state of old instances i + p, i + 2p, ... (p the new
     * parallelism), so no instance's state is lost on a scale-down.
     */
    uint32_t (*op_parallelism)(void *ud, int node, const char *name);
    int (*op_state)(void *ud, int node, const char *name, uint32_t subtask,
                    uint32_t parallelism, weir_buf *out);
    /* Keyed state and timers of key group kg of node; leave both empty if none.
     */
    int (*kg_state)(void *ud, int node, const char *name, uint32_t kg,
                    weir_buf *state, weir_buf *timers);
    /* State of source split `id` of node: WEIR_ENOTFOUND if the checkpoint does
     * not know it. */
    int (*split)(void *ud, int node, const char *id, weir__restored_split *out);
    /*
     * Optional: a keyed-state backend for node's subtask opened from a
     * native checkpoint (cfg as for weir__backend_create; only for RocksDB
     * targets). *out stays NULL when there is none; otherwise the key
     * groups it brought are no longer served by kg_state (their timers
     * still are).
     */
    int (*open_backend)(void *ud, int node, const char *name,
                        const weir__backend_config *cfg,
                        weir__backend **out);
    /*
     * Optional (unaligned checkpoints): the in-flight section (format
     * above) stored by subtask `subtask` of task `task`, borrowed until the
     * job ends; *len 0 if none. NULL when the checkpoint holds no in-flight
     * data at all.
     */
    int (*inflight)(void *ud, int task, uint32_t subtask,
                    const uint8_t **data, size_t *len);
    /* With inflight: the parallelism task had in the checkpoint (0: not in
     * it). In-flight data is restored only at the same parallelisms. */
    uint32_t (*task_parallelism)(void *ud, int task);
    /*
     * Optional, with inflight: the first task of the checkpoint whose
     * in-flight data has no task of the same id holding its operators in
     * the job (node_task[n]: the task of node n, n_nodes of them), or -1;
     * *node is then the operator that task held there.
     */
    int (*inflight_unplaced)(void *ud, const int *node_task, uint32_t n_nodes,
                             int *node);
    /*
     * Optional: told, once an operator subtask (job_subtask: its index over
     * all the processes of the job) has restored, of each keyed state the
     * checkpoint gave it that it did not register (weir__backend_unclaimed:
     * kept, unread), with the key groups and entries holding it.
     */
    void (*unclaimed)(void *ud, int node, uint32_t job_subtask, const char *state,
                      uint32_t key_groups, uint64_t entries);
    void *ud;
} weir__restore_source;

/* Before weir_job_start; rs->ud must outlive the job's run. */
int weir__job_set_restore(weir_job *job, const weir__restore_source *rs);

/*
 * A set of subtask snapshots (of one checkpoint) that serves as a restore
 * source, for any parallelism of the restored job. Operator state is matched
 * by (node, name, subtask index); keyed state by (node, name, key group);
 * splits by (node, id).
 */
typedef struct weir__snapshot_set weir__snapshot_set;
int weir__snapshot_set_create(weir__snapshot_set **out);
void weir__snapshot_set_destroy(weir__snapshot_set *s);
/* Adds one subtask snapshot (copied); validates it. */
int weir__snapshot_set_add(weir__snapshot_set *s, const uint8_t *data,
                           size_t len);
/*
 * Incremental checkpoints: after every snapshot was added, writes each
 * native part's files into a folder under scratch (created; removed with
 * the set), shared ones read through fetch and checked against their size
 * and CRC (WEIR_ECORRUPT on a mismatch; why names the file and the
 * problem). A RocksDB target then opens them
 * directly (open_backend); any other key group of a native part is served
 * canonically by kg_state, read from the opened native checkpoint.
 */
/* Stores the shared file name at the local path (created or replaced),
 * giving its size and CRC32C; a file of any size need not fit in memory. */
typedef int (*weir__native_fetch_fn)(void *ud, const char *name,
                                     const char *path, uint64_t *size,
                                     uint32_t *crc);
/* scratch_owner: the lock on scratch's owner file (weir__io_temp_dir_owned;
 * -1: none), taken over by the set and released with it. */
int weir__snapshot_set_materialize(weir__snapshot_set *s, const char *scratch,
                                   int scratch_owner, uint32_t max_parallelism,
                                   weir__native_fetch_fn fetch, void *ud,
                                   char *why, size_t why_cap);
/*
 * Whether the file (device, inode) is one the set materialized from shared
 * storage: a restored database hard-linked it, so a later checkpoint can
 * refer to the stored copy instead of storing it again. *shared (borrowed
 * while the set lives), *size and *crc describe the stored copy.
 */
bool weir__snapshot_set_shared_file(const weir__snapshot_set *s, uint64_t dev,
                                    uint64_t ino, const char **shared,
                                    uint64_t *size, uint32_t *crc);
/*
 * Restore compatibility: renumbers the set's state from the checkpoint's
 * node ids to the job's. map[i] (i < n_map) is the job node that takes old
 * node i's state, or -1 to drop it; names[i] its name in the job. State of
 * nodes at or past n_map is dropped. Before the set serves a restore.
 */
int weir__snapshot_set_remap(weir__snapshot_set *s, const int *map,
                             const char *const *names, uint32_t n_map);
/*
 * Whether old node `node` holds nothing in the set: no operator state, no
 * keyed state entry (a key group with no registered state), no timer, no
 * native part, no split. Dropping such a node's state loses nothing.
 */
bool weir__snapshot_set_node_empty(const weir__snapshot_set *s, int node);
/* Whether the set holds in-flight data (unaligned checkpoints). */
bool weir__snapshot_set_has_inflight(const weir__snapshot_set *s);
/* Whether the set holds native parts (it then needs materializing). */
bool weir__snapshot_set_has_native(const weir__snapshot_set *s);
weir__restore_source weir__snapshot_set_source(weir__snapshot_set *s);
/*
 * Tests: the entries the set's key-group lookups compared so far. A
 * restore looks up every key group of every keyed operator subtask (32768
 * at the largest max parallelism), so each must cost O(log n), not a scan.
 */
uint64_t weir__snapshot_set_kg_probes(const weir__snapshot_set *s);

#endif
