/*
 * weir/window.h - event-time windows: assigners, triggers, accumulation
 * modes, allowed lateness and the late-record side output.
 *
 * Semantics (DESIGN.md section 1, "Windows" and "Firing and lateness"):
 * - Every window is [start, end) in milliseconds. Fixed windows align their
 *   start to offset + k * slide (k any integer, floor semantics for negative
 *   timestamps).
 * - A window fires once the watermark W >= end.
 * - A record is added to each of its windows with end + L > W (L = allowed
 *   lateness). A record that no window accepts is late: it is counted in the
 *   operator counter "late_records" and sent to side output
 *   WEIR_WINDOW_LATE_TAG when that output is consumed. For sessions, a record
 *   that merges into a live session is never late.
 * - With L > 0 a fired window keeps its state until W >= end + L; a record in
 *   that period updates it and causes a late firing.
 * - Empty windows are never emitted, and a firing with no new data since the
 *   window's previous firing emits nothing.
 *
 * Output rows of a window operator: the key columns (as in the input), then
 * window_start and window_end (TIMESTAMP(3)), then window_time = end - 1
 * when asked for, then one column per aggregate. Each row's event time (ts)
 * is window_end - 1, so windows can be stacked downstream. Row kinds are +I,
 * except in retracting mode, where a result that replaces an earlier one is
 * -U old / +U new, and a session result that disappears because sessions
 * merged is -D.
 *
 * The late side output (tag WEIR_WINDOW_LATE_TAG) carries each late record
 * with its original columns and timestamp, then two columns: "watermark"
 * (TIMESTAMP(3), the operator's watermark when the record arrived) and
 * "lateness_ms" (BIGINT, watermark - record timestamp; always >= 1, since a
 * late record has a timestamp below the watermark).
 */
#ifndef WEIR_WINDOW_H
#define WEIR_WINDOW_H

#include "weir/agg.h"
#include "weir/job.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WEIR_WINDOW_LATE_TAG 1

typedef enum weir_window_kind {
    WEIR_WINDOW_TUMBLING = 0, /* one window of size_ms per record */
    WEIR_WINDOW_HOPPING,      /* size_ms / slide_ms windows per record */
    WEIR_WINDOW_CUMULATING,   /* [s, s+step), [s, s+2*step) ... [s, s+size) */
    WEIR_WINDOW_SESSION,      /* per key, [ts, ts+gap) merged while they touch */
    WEIR_WINDOW_GLOBAL,       /* one window per key; fired only by a trigger */
} weir_window_kind;

typedef struct weir_window_assigner {
    weir_window_kind kind;
    int64_t size_ms;       /* tumbling, hopping, cumulating (the largest window) */
    int64_t slide_ms;      /* hopping: the slide; cumulating: the step */
    int64_t offset_ms;     /* fixed kinds: starts align to offset + k * slide */
    int64_t gap_ms;        /* session */
    int64_t max_length_ms; /* session: 0 = unbounded; see docs/windows.md */
} weir_window_assigner;

/* Convenience constructors (no validation; see weir_window_assigner_check). */
weir_window_assigner weir_window_tumbling(int64_t size_ms, int64_t offset_ms);
/* Slide first, as in Flink SQL's HOP(TABLE t, DESCRIPTOR(ts), slide, size). */
weir_window_assigner weir_window_hopping(int64_t slide_ms, int64_t size_ms, int64_t offset_ms);
weir_window_assigner weir_window_cumulating(int64_t step_ms, int64_t size_ms, int64_t offset_ms);
weir_window_assigner weir_window_session(int64_t gap_ms, int64_t max_length_ms);
weir_window_assigner weir_window_global(void);

/* Returns 0, or WEIR_EINVAL with a message in err for an invalid assigner. */
int weir_window_assigner_check(const weir_window_assigner *a, weir_error *err);

/* A window [start, end). */
typedef struct weir_window {
    weir_ts start;
    weir_ts end;
} weir_window;

/*
 * Floor alignment: the largest offset + k*step <= ts (k any integer).
 * Correct for negative timestamps (floor, not truncation).
 */
weir_ts weir_window_align(weir_ts ts, int64_t offset_ms, int64_t step_ms);

/*
 * The windows of a fixed assigner (tumbling, hopping, cumulating) that
 * contain ts, in increasing order of end. Writes at most cap windows and
 * returns how many there are (which may exceed cap), or a negative code for
 * session and global assigners. Windows whose bounds would overflow the
 * event-time range are clamped to it.
 */
int weir_window_assign(const weir_window_assigner *a, weir_ts ts, weir_window *out, uint32_t cap);

/* ---- triggers ---- */

typedef enum weir_trigger_kind {
    WEIR_TRIGGER_DEFAULT = 0,     /* EVENT_TIME for time windows, NEVER for the global window */
    WEIR_TRIGGER_EVENT_TIME,      /* fire once W >= end (global window: at the end of input) */
    WEIR_TRIGGER_PROCESSING_TIME, /* fire once processing time >= end */
    WEIR_TRIGGER_COUNT,           /* fire each time `count` records arrived since the last firing */
    WEIR_TRIGGER_NEVER,           /* only early firings fire */
} weir_trigger_kind;

typedef struct weir_window_trigger {
    weir_trigger_kind kind;
    uint64_t count;            /* COUNT: records per firing (>= 1) */
    /*
     * Early firings, before the window's end (EVENT_TIME, NEVER and the
     * global window): at most every early_interval_ms of processing time
     * after the first record since the last firing, and/or every
     * early_count records. 0 disables.
     */
    int64_t early_interval_ms;
    uint64_t early_count;
    /*
     * Late firings (allowed lateness > 0): 0 fires on every late record;
     * N > 0 fires at most every N ms of processing time.
     */
    int64_t late_interval_ms;
    /* Clear the window's contents after each firing (Flink's PurgingTrigger). */
    bool purging;
} weir_window_trigger;

/* What repeated firings of one window carry downstream. */
typedef enum weir_window_accumulation {
    WEIR_ACC_ACCUMULATING = 0, /* each firing carries the whole window (+I rows) */
    WEIR_ACC_DISCARDING,       /* each firing carries only data since the previous one (+I) */
    WEIR_ACC_RETRACTING,       /* each firing retracts the previous result: -U/+U, -D */
} weir_window_accumulation;

/* ---- the window operator ---- */

typedef struct weir_window_spec {
    weir_window_assigner assigner;
    weir_window_trigger trigger;
    /*
     * EVENT (default): windows by the record's event time and the watermark.
     * PROCESSING: windows by arrival time on the job's clock, fired by it;
     * no lateness, no early or late firings.
     */
    weir_time_domain time_domain;
    int64_t allowed_lateness_ms;
    weir_window_accumulation accumulation;
    weir_keyspec key;               /* the grouping columns of the input */
    const weir_agg *aggs;           /* n_aggs bound aggregates (copied) */
    uint32_t n_aggs;
    const char *const *agg_names;   /* output column names, or NULL for agg0, agg1, ... */
    bool window_time;               /* add the window_time column (end - 1) */
    /* Testing aid: never use the typed COUNT/SUM fast path (results are identical). */
    bool no_fast_path;
    /*
     * Windows of local wall time (a TIMESTAMP_LTZ attribute in SQL's
     * table.local-time-zone): row times are instants, and windows align to
     * this zone's clock (a 1-day window is a local day: 23 or 25 hours
     * across a DST change; sessions are merged by gaps of local time).
     * window_start, window_end and window_time show local wall time; output
     * rows carry the instant of window_end - 1 ms. A window fires once
     * every later instant shows a local time at or after its end.
     * Processing-time windows likewise: a row is assigned by the local time
     * of its arrival, and a window fires once every later instant of the
     * clock shows a local time at or after its end. NULL or "UTC":
     * epoch-aligned (copied; names as weir_expr_env_set_time_zone). Global
     * windows ignore it.
     */
    const char *time_zone;
} weir_window_spec;

void weir_window_spec_init(weir_window_spec *spec);

/* Checks a spec against its input schema; WEIR_EINVAL / EUNSUPPORTED with a message. */
int weir_window_spec_check(const weir_window_spec *spec, const weir_schema *in, weir_error *err);

/* The output schema (transferred to the caller) of a window operator over `in`. */
int weir_window_output_schema(const weir_window_spec *spec, const weir_schema *in, weir_schema **out,
                              weir_error *err);
/* The schema (transferred) of the late side output: in's fields, watermark, lateness_ms. */
int weir_window_late_schema(const weir_schema *in, weir_schema **out);

/*
 * An operator spec for the window operator (the spec and its aggregates are
 * copied). *out_schema is the output schema; it is owned by out->arg and
 * lives until out->free_arg(out->arg), i.e. as long as a job that uses the
 * spec. in must outlive that too. The operator must receive its input
 * through a keyed exchange on spec->key (see weir_job_window).
 */
int weir_window_operator_spec(const weir_window_spec *spec, const weir_schema *in,
                              weir_operator_spec *out, const weir_schema **out_schema,
                              weir_error *err);

/*
 * Adds a window operator over stream `in` (schema in_schema, borrowed, must
 * outlive the job), keyed by spec->key, with the given parallelism
 * (0: the job's default). *out is its main output; weir_stream_side(*out,
 * WEIR_WINDOW_LATE_TAG) is the late-record side output.
 */
int weir_job_window(weir_job *job, weir_stream in, const weir_schema *in_schema,
                    const weir_window_spec *spec, uint32_t parallelism, weir_stream *out,
                    weir_error *err);

#ifdef __cplusplus
}
#endif
#endif
