/*
 * ops/ops.h - relational operators the SQL planner (and C users) place in a
 * job: updating group aggregation, regular and window join, and union. Each returns a
 * weir_operator_spec whose arg is a copy of the configuration.
 */
#ifndef WEIR_OPS_H
#define WEIR_OPS_H

#include "weir/agg.h"
#include "weir/clock.h"
#include "weir/expr.h"
#include "weir/operator.h"
#include "weir/window.h"

/*
 * Non-windowed GROUP BY over an unbounded stream, as an updating result.
 * Input is keyed by `keys` (columns of the input). Output rows are the key
 * columns followed by one column per aggregate, as a changelog: the first
 * result of a group is +I; a change is -U (old) then +U (new); a group whose
 * rows are all retracted is -D. Input rows may themselves be a changelog
 * (-U/-D retract, which needs retractable aggregates). Each input row is
 * applied and emitted on its own, so the changelog does not depend on how
 * rows were batched - unless mini_batch is set (table.exec.mini-batch.enabled):
 * then all rows of a key within one input batch are folded and only the
 * net change is emitted (+I, -U/+U, -D or nothing), as Flink's mini-batch
 * aggregation; the table the changelog describes is the same.
 */
typedef struct weir_group_agg_config {
    weir_keyspec keys;
    uint32_t n_aggs;
    const weir_agg *aggs;          /* copied */
    /* Optional, per aggregate (copied): a BOOLEAN input column, FILTER (WHERE ...):
     * the aggregate sees only the rows where it is TRUE; -1 for none. */
    const int32_t *filter_cols;
    /* borrowed; exactly the keys (with their input types) then the
     * aggregates: anything else is refused (WEIR_EINVAL) */
    const weir_schema *out_schema;
    int64_t state_ttl_ms;          /* 0: keep forever (table.exec.state.ttl) */
    bool mini_batch;               /* one net change per key per input batch */
    /* Bytes the cache of COUNT(DISTINCT) values in front of their map state
     * may hold between two input batches, per subtask (weir.distinct-cache.size);
     * 0: the default, which depends on the state backend: unbounded on the
     * in-memory one (its state is in memory too: emptying the cache would save
     * nothing), weir__distinct_cache_default on RocksDB. */
    uint64_t distinct_cache_bytes;
} weir_group_agg_config;

/* 128 MiB; a variable so that tests can reach it with little data. */
extern uint64_t weir__distinct_cache_default;

int weir_group_agg_spec(const weir_group_agg_config *cfg, weir_operator_spec *out);

/*
 * Top-N and deduplication (ops/rank.c): of each partition (the key of the
 * keyed input), the rows ranked [rank_start, rank_end] by ROW_NUMBER() over
 * the ORDER BY columns, as an updating changelog. The input must be
 * append-only unless retract is set (below). Output: the input columns, then the rank number (BIGINT NOT
 * NULL) when with_rank. NULLs order as nulls_last says per column.
 */
typedef struct weir_rank_config {
    weir_keyspec partition;
    uint32_t n_order;
    uint32_t order_cols[WEIR_KEY_MAX_COLS];
    bool order_desc[WEIR_KEY_MAX_COLS];
    bool nulls_last[WEIR_KEY_MAX_COLS];
    uint64_t rank_start, rank_end; /* 1-based, inclusive */
    bool with_rank;
    /* Deduplication (Top-1 by a time attribute, no rank number): a replacement is -U/+U;
     * ties_newer_first (keep the last row): an equal row replaces the kept one. */
    bool dedup;
    bool ties_newer_first;
    const weir_schema *out_schema; /* borrowed */
    int64_t state_ttl_ms;
    /*
     * Window Top-N (Flink's): >= 0, the input column holding each row's
     * window end (epoch ms; the partition includes the window's bounds).
     * Rows are ranked without output; when the watermark reaches the window
     * end the ranks [start, end] are emitted once as +I and the partition's
     * state is cleared. A row whose window already ended is late: dropped
     * and counted (late_records_dropped). -1: the continuous Top-N above.
     */
    int32_t window_end_col;
    /*
     * Window Top-N only: the rank function. ROW_NUMBER numbers the rows;
     * RANK gives equal ORDER BY values one rank and skips (1, 1, 3);
     * DENSE_RANK does not skip (1, 1, 2). Every row with a rank in
     * [start, end] comes out, so ties may give more than end rows.
     */
    enum { WEIR_RANK_ROW_NUMBER, WEIR_RANK_RANK, WEIR_RANK_DENSE_RANK } rank_fn;
    /*
     * Top-N over an updating input (Flink's retractable Top-N; continuous,
     * ROW_NUMBER only): +I/+U rows are ranked in, -U/-D rows are taken out
     * (the first kept row equal to them), and the state keeps every row of
     * the partition, since a retraction lifts a row from below the bound
     * back into it. With the rank number (or rank_start > 1) every rank whose
     * row changed is updated (-U/+U), a rank that filled is +I, one that
     * emptied -D; without it, the row that enters [1, end] is +I and the
     * one that leaves it -D.
     */
    bool retract;
    /*
     * Window Top-N of windows of this zone's wall time: the window end is
     * local wall time, the window ends once every instant from the
     * watermark on shows a local time at or after it, and its rows carry
     * the instant of local end - 1 (as weir_window_join_config.time_zone).
     * NULL = UTC. Borrowed: must outlive the operator.
     */
    const char *time_zone;
    /*
     * A continuous Top-1 (ranks [1, 1], append-only input) may leave the
     * join chained before it the sort key it keeps per partition, so that
     * the join skips the rows it would drop (ops/top1_hint.h): the link the
     * join's spec holds too (weir__join_set_top1), or NULL. weir_rank_spec
     * takes a reference.
     */
    struct weir__top1_link *top1_link;
} weir_rank_config;

int weir_rank_spec(const weir_rank_config *cfg, weir_operator_spec *out);

/*
 * Names the stored-row encoding in the fingerprint of node s ("row
 * format: compact-1"): a join's (weir_join_spec) or a Top-N's or
 * deduplication's (weir_rank_spec), which keep rows in the compact
 * encoding (ops/rowcodec.h). A checkpoint of an earlier weir, whose rows
 * are in the canonical encoding, lacks the field: the operator re-encodes
 * its rows after the restore (weir__op_on_canonical_rows).
 */
int weir__describe_row_format(weir_job *job, weir_stream s);
/* Names the layout of a Top-N's or deduplication's kept rows in the
 * fingerprint of node s ("rank rows: 2", ops/rank.c). */
int weir__describe_rank_rows(weir_job *job, weir_stream s);

/*
 * The local half of a window Top-1 with ties (ops/wtop1_local.c): of each
 * batch, the rows whose value_col (INT or BIGINT) equals the largest
 * (keep_max) or the smallest among the batch's rows of the same window
 * (ws_col, we_col: its bounds) go on, the others are dropped. Stateless;
 * exact in front of a window Top-N with rank_end 1 ordered by value_col
 * (DESC for keep_max) whose input rows all come before the watermark
 * passes their window. Output: the input's schema.
 */
typedef struct weir_window_top1_local_config {
    uint32_t ws_col, we_col, value_col;
    bool keep_max;
} weir_window_top1_local_config;

int weir_window_top1_local_spec(const weir_window_top1_local_config *cfg, weir_operator_spec *out);

/*
 * Temporal sort (ops/temporal_sort.c; Flink's ORDER BY rowtime ASC on a
 * stream): rows are held until the watermark passes their timestamp (W > t,
 * Flink's timer at t), then emitted in timestamp order, rows of one
 * timestamp by the secondary ORDER BY columns (equal ones in arrival
 * order). A row whose timestamp is not after the last one emitted is late:
 * dropped and counted (late_records_dropped). Append-only in and out; the
 * input is global (one subtask, empty key). proctime (ORDER BY a
 * processing-time attribute, then others): a row's time is the clock's
 * millisecond when it arrives (after the last one emitted, if the clock
 * went back); the rows of a millisecond come out when the clock passes it
 * (a processing-time timer), sorted alike, each with its own timestamp;
 * at the end of input the rows still held come out.
 */
typedef struct weir_temporal_sort_config {
    bool proctime;
    uint32_t n_order; /* secondary sort columns (may be 0) */
    uint32_t order_cols[WEIR_KEY_MAX_COLS];
    bool order_desc[WEIR_KEY_MAX_COLS];
    bool nulls_last[WEIR_KEY_MAX_COLS];
    const weir_schema *schema; /* borrowed: input and output */
} weir_temporal_sort_config;

int weir_temporal_sort_spec(const weir_temporal_sort_config *cfg, weir_operator_spec *out);

/*
 * The upsert materializer before a sink with a PRIMARY KEY
 * (ops/sink_materialize.c; table.exec.sink.upsert-materialize): its input
 * keyed by primary_key, it keeps per key value the live rows received and
 * emits a changelog whose last change of a key is its last live row,
 * whatever order the changes of different upstream subtasks arrived in.
 * Rows are matched by the upsert key when has_upsert_key (all changes of
 * one value of those columns come in order), else by every column.
 */
typedef struct weir_upsert_materialize_config {
    weir_keyspec primary_key;   /* columns of schema, n >= 1 */
    weir_keyspec upsert_key;    /* when has_upsert_key (n == 0: one row at a time) */
    bool has_upsert_key;
    const weir_schema *schema;  /* borrowed; input and output */
    int64_t state_ttl_ms;       /* 0: keep forever (table.exec.state.ttl) */
} weir_upsert_materialize_config;

int weir_upsert_materialize_spec(const weir_upsert_materialize_config *cfg, weir_operator_spec *out);

/*
 * Regular (unwindowed) streaming equi-join of two inputs, as Flink's
 * streaming join: input 0 is the left side, input 1 the right side, each
 * received through a keyed exchange on its equi-join key columns (the two
 * key specs must describe columns of identical types, so that equal values
 * give equal key bytes). Both sides' rows are kept in keyed map state
 * (row -> occurrence count, and for an outer side the number of matching
 * rows of the other side). Output rows are the first n_out[0] columns of
 * the left row followed by the first n_out[1] columns of the right row;
 * the columns of a missing side of an outer join are NULL.
 * Changelog: an INNER join forwards each input row's kind (append-only
 * inputs give an append-only result); outer joins emit +I and -D only,
 * retracting a NULL-padded row when its first match arrives and emitting it
 * again when its last match goes. A row with a NULL key column matches
 * nothing (SQL equality).
 */
typedef enum weir_join_type {
    WEIR_JOIN_INNER,
    WEIR_JOIN_LEFT,
    WEIR_JOIN_RIGHT,
    WEIR_JOIN_FULL,
    /*
     * Semi and anti joins (Flink's, planned from IN / EXISTS subqueries):
     * the output is the left row alone (out_schema: n_out[0] columns), the
     * residual sees the joined row (cand_schema). SEMI emits a left row
     * while it has at least one match, ANTI while it has none; the left
     * side counts its matches as an outer side does.
     */
    WEIR_JOIN_SEMI,
    WEIR_JOIN_ANTI,
} weir_join_type;

typedef struct weir_join_config {
    weir_join_type type;
    weir_keyspec keys[2];          /* equi-join key columns of the left and right input */
    uint32_t n_out[2];             /* leading columns of each input that form the output */
    const weir_expr *residual;     /* borrowed; extra condition over the output row, or NULL */
    const weir_schema *out_schema; /* borrowed; n_out[0] + n_out[1] columns (SEMI/ANTI: n_out[0]) */
    const weir_schema *cand_schema; /* borrowed; SEMI/ANTI only: the joined row, n_out[0] + n_out[1] columns */
    int64_t state_ttl_ms;          /* 0: keep rows forever (table.exec.state.ttl) */
    /* the right input's rows live right_state_ttl_ms instead (a STATE_TTL hint naming the inputs apart) */
    bool right_ttl;
    int64_t right_state_ttl_ms;
    weir_clock clock;              /* for the residual's time functions; may be zeroed */
    /*
     * Interval join (append-only inputs): every match satisfies
     * lo_ms <= left.time - right.time <= hi_ms, where time is column
     * time_col[i] (an epoch-ms time column) of input i. The residual still
     * decides matches; the bounds let the operator drop a row once the
     * watermark guarantees no row of the other side can match it any more.
     * Outer interval joins emit a padded row when an unmatched row expires,
     * so their output is append-only.
     */
    bool interval;
    uint32_t time_col[2];
    int64_t lo_ms, hi_ms;
    /* Key i compares with IS NOT DISTINCT FROM (null_safe[i]): a NULL there
     * meets a NULL of the other side; other keys with a NULL match nothing. */
    bool null_safe[WEIR_KEY_MAX_COLS];
    /*
     * Inner regular join of append-only inputs whose other side only ever
     * sends rows with a time above its watermark (a window aggregation's
     * window_end): a row of side s with column bound_col[s] = t can only
     * match rows of the other side up to t + bound_off[s], so it is dropped
     * once the watermark reaches t + bound_off[s] (expiry buckets, no keyed
     * timers); a row already behind that when it arrives is joined but not
     * stored. Rows are never late: the result is the regular join's. NULL:
     * kept. bound_step_ms (0: 1) rounds the expiry up to its multiples: a key
     * is listed once per bucket of that width; a row stays up to a step longer.
     */
    bool bounded[2];
    uint32_t bound_col[2];
    int64_t bound_off[2];
    int64_t bound_step_ms;
    /*
     * Input i sends +I rows only (append-only). A side that is, and that
     * counts no matches per row (not an outer side, not a semi or anti
     * join), of a regular join that is not an interval join and whose
     * rows have no TTL, keeps its rows in a row log: a list state per join
     * key, one element per row in arrival order (after the row's time on
     * a bounded side), appended without a lookup (weir_join_row_log). A retraction reaching
     * such a side fails the job.
     */
    bool insert_only[2];
} weir_join_config;

int weir_join_spec(const weir_join_config *cfg, weir_operator_spec *out);
const char *weir_join_type_name(weir_join_type t); /* "INNER", "LEFT", ... */
/* Whether side s of a join of cfg keeps its rows in a row log (see insert_only). */
bool weir_join_row_log(const weir_join_config *cfg, int s);
/*
 * Describes join node s's state in its fingerprint: its type ("join:
 * LEFT"), when stored rows are dropped ("join bounds: interval [-5000, 0]
 * ms", "left $2 + 10000 ms, right none"), its null-safe keys ("null-safe
 * keys: none") and the sides that keep a row log ("row log: 2 left
 * right-key"; nothing when neither does). A checkpoint without "row log"
 * (an earlier weir, every row in a map entry) restores: the join moves the
 * rows of its log sides into their logs after the restore. A weir without
 * row logs refuses a checkpoint that names them.
 */
int weir__describe_join(weir_job *job, weir_stream s, const weir_join_config *cfg);

/*
 * Window join (Flink's window join): an equi-join of two append-only
 * inputs whose rows each belong to one window (the output of a window
 * aggregation or of another window join), joined on equal windows. The key
 * specs include the window bounds (window_start and window_end of both
 * sides are equi-join key pairs), so one key holds the rows of one window;
 * end_col[i] is input i's window_end column (TIMESTAMP, epoch ms).
 * Rows are buffered in keyed list state until the watermark reaches the
 * window end (W >= end, DESIGN.md's firing rule); then every pair that
 * passes the residual is emitted once, an outer side's unmatched rows are
 * emitted NULL-padded, and the window's rows are dropped. A row whose
 * window the watermark has already reached is late: dropped and counted
 * (late_rows). Output rows are +I (append-only) with event time end - 1,
 * so the result can be windowed again. Output columns as weir_join_config.
 */
typedef struct weir_window_join_config {
    weir_join_type type;
    weir_keyspec keys[2];          /* equi-join keys of each input, window bounds included */
    uint32_t end_col[2];           /* window_end column of each input */
    uint32_t n_out[2];             /* leading columns of each input that form the output */
    const weir_expr *residual;     /* borrowed; extra condition over the output row, or NULL */
    const weir_schema *out_schema; /* borrowed; n_out[0] + n_out[1] columns (SEMI/ANTI: n_out[0]) */
    const weir_schema *cand_schema; /* borrowed; SEMI/ANTI only: the joined row, n_out[0] + n_out[1] columns */
    weir_clock clock;              /* for the residual's time functions; may be zeroed */
    /*
     * Windows of this zone's wall time (weir_window_spec.time_zone): the
     * window_end columns hold local wall time; a window is joined once
     * every instant from the watermark on shows a local time at or after
     * its end (weir__tz_local_floor), and its rows carry the instant of
     * local end - 1. NULL = UTC. Borrowed: must outlive the operator.
     */
    const char *time_zone;
} weir_window_join_config;

int weir_window_join_spec(const weir_window_join_config *cfg, weir_operator_spec *out);

/*
 * Window assignment (a window table function's rows, materialised): each
 * input row is emitted once per window of a fixed assigner (tumbling,
 * hopping, cumulating) that contains its event time, with three columns
 * appended: window_start, window_end and window_time = end - 1 (TIMESTAMP).
 * The row keeps its kind and event time. Stateless.
 */
typedef struct weir_window_assign_config {
    weir_window_assigner assigner;
    const weir_schema *out_schema; /* borrowed; the input's columns then the three window columns */
    bool window_time_ts;           /* the row's event time becomes window_time (end - 1) */
    /*
     * Windows of this zone's wall time (as weir_window_spec.time_zone): the
     * window columns show local time, and window_time as the row's event
     * time is the instant of local end - 1. NULL = UTC. Borrowed: must
     * outlive the operator (the plan's).
     */
    const char *time_zone;
} weir_window_assign_config;

int weir_window_assign_spec(const weir_window_assign_config *cfg, weir_operator_spec *out);

/* n-input union: forwards every batch of every input unchanged. */
int weir_union_spec(uint32_t n_inputs, weir_operator_spec *out);

/*
 * INTERSECT / EXCEPT [ALL] of two inputs (ops/setop.c): both keyed by all
 * their columns (n_cols, equal schemas; NULLs compare equal). Per row value
 * the operator counts its occurrences on each side (changelogs: +I/+U add
 * one, -U/-D remove one) and keeps the output multiplicity at
 *   INTERSECT      1 if both counts > 0, else 0
 *   INTERSECT ALL  min(left, right)
 *   EXCEPT         1 if left > 0 and right == 0, else 0
 *   EXCEPT ALL     max(left - right, 0)
 * emitting +I / -D rows for each change of it (an updating result).
 */
typedef enum weir_setop_kind { WEIR_SETOP_INTERSECT, WEIR_SETOP_EXCEPT } weir_setop_kind;

typedef struct weir_setop_config {
    weir_setop_kind kind;
    bool all;
    uint32_t n_cols;
    const weir_schema *out_schema; /* borrowed */
    int64_t state_ttl_ms;          /* table.exec.state.ttl; 0: never */
} weir_setop_config;

int weir_setop_spec(const weir_setop_config *cfg, weir_operator_spec *out);

/*
 * OVER aggregation (ops/over_agg.c): each input row comes out once,
 * followed by n_aggs aggregates over the rows of its partition in the frame
 * ending at it. Event time (ORDER BY the input's row time, ascending): a
 * row is processed once the watermark passes its timestamp; a row not after
 * the last timestamp its partition processed is late (dropped, counted as
 * late_records_dropped). Processing time (proctime): rows are ordered by
 * arrival; ROWS frames and RANGE UNBOUNDED emit each row as it arrives,
 * RANGE BETWEEN d PRECEDING once the clock passes the row's millisecond of
 * arrival (its peers: the rows of that millisecond). Bounded frames need
 * retractable aggregates.
 */
typedef struct weir_over_config {
    weir_keyspec partition; /* PARTITION BY columns; none: one partition (parallelism 1) */
    bool rows;              /* ROWS frame, else RANGE */
    bool unbounded;         /* UNBOUNDED PRECEDING */
    bool proctime;          /* ORDER BY a processing-time attribute: by arrival */
    int64_t preceding;      /* bounded: ROWS - rows before the current one, RANGE - milliseconds */
    const weir_agg *aggs;   /* bound on the input's columns (copied) */
    uint32_t n_aggs;
    const weir_schema *out_schema; /* borrowed: the input's columns, then one per aggregate */
} weir_over_config;

int weir_over_spec(const weir_over_config *cfg, weir_operator_spec *out);

/*
 * Processing-time lookup join against a bounded table (ops/lookup_join.c):
 * each input row joined with the table rows of equal key; the table is read
 * whole by every subtask when it opens, and again once it is cache_ttl_ms
 * old (processing time). Output: the first n_out input columns, then the
 * table's columns.
 */
typedef struct weir_lookup_join_config {
    weir_source_spec table;   /* bounded; its arg is owned by the spec (freed with it) */
    const char *table_name;   /* for messages (copied) */
    const weir_expr *table_filter; /* borrowed; over the table's columns, or NULL */
    uint32_t n_keys;
    uint32_t left_keys[WEIR_KEY_MAX_COLS];  /* input columns */
    uint32_t right_keys[WEIR_KEY_MAX_COLS]; /* table columns */
    /* an exact table column (INT, BIGINT, DECIMAL) met by a DOUBLE key: keyed as its DOUBLE (read whole only) */
    bool right_as_double[WEIR_KEY_MAX_COLS];
    uint32_t n_out;           /* leading input columns that form the output */
    const weir_expr *residual; /* borrowed; over the output row, or NULL */
    bool left_outer;          /* LEFT JOIN: rows without a match padded with NULLs */
    const weir_schema *out_schema; /* borrowed */
    weir_clock clock;
    int64_t cache_ttl_ms;     /* read the table again when it is this old; <= 0: never */
    /* Set (lookup.lookup != NULL): the table is queried by key, once per
     * input batch for the keys its cache does not hold fresh, instead of
     * read whole; table.schema is its schema and table.cls is NULL. */
    weir_lookup_source lookup;
} weir_lookup_join_config;

int weir_lookup_join_spec(const weir_lookup_join_config *cfg, weir_operator_spec *out);

/*
 * Event-time temporal join (ops/temporal_join.c, Flink's
 * TemporalRowTimeJoinOperator): input 0 is an append-only probe stream,
 * input 1 a versioned table's changelog, both keyed by the equi-join key
 * (the versioned table's PRIMARY KEY). A probe row at time t is joined
 * when the watermark passes t (W > t) with the version of its key whose
 * time is the latest <= t; that version must be an insert or update
 * (+I/+U), else the row has no match (-D). Versions of one time replace
 * each other (the last to arrive wins); -U rows are skipped (upsert
 * mode). Rows behind their own input's watermark are late (dropped,
 * counted). Output: +I rows at the probe
 * row's time; a LEFT join pads a probe row without a match.
 */
typedef struct weir_temporal_join_config {
    bool left_outer;
    weir_keyspec keys[2];          /* equi-join key columns of the probe and versioned inputs */
    uint32_t n_out[2];             /* leading columns of each input that form the output */
    uint32_t time_col[2];          /* each input's time attribute (epoch-ms column) */
    const weir_expr *residual;     /* borrowed; over the output row, or NULL */
    const weir_schema *out_schema; /* borrowed; n_out[0] + n_out[1] columns */
    weir_clock clock;
} weir_temporal_join_config;

int weir_temporal_join_spec(const weir_temporal_join_config *cfg, weir_operator_spec *out);

#endif
