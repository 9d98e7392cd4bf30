/*
 * window/window_internal.h - the window module's internal interfaces:
 * saturating time arithmetic, accumulator sets (typed COUNT/SUM fast path
 * plus generic weir_agg accumulators) and the window engine that the
 * operator wraps.
 */
#ifndef WEIR_WINDOW_INTERNAL_H
#define WEIR_WINDOW_INTERNAL_H

#include <inttypes.h>
#include <string.h>

#include "agg/merge.h"
#include "weir/window.h"

/* ---- saturating event-time arithmetic ---- */

static inline weir_ts weir__ts_add(weir_ts a, int64_t b)
{
    weir_ts r;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? WEIR_TS_MAX : WEIR_TS_MIN;
    return r;
}

static inline weir_ts weir__ts_sub(weir_ts a, int64_t b)
{
    weir_ts r;
    if (__builtin_sub_overflow(a, b, &r))
        return b > 0 ? WEIR_TS_MIN : WEIR_TS_MAX;
    return r;
}

/* ---- accumulator sets ----
 *
 * An accumulator block holds one accumulator per aggregate after a header
 * with the net number of rows folded in (rows == 0 means empty: never
 * emitted). COUNT and SUM over fixed-width columns use typed accumulators
 * owned by this module; everything else goes through weir_agg's class.
 */
typedef enum weir__acc_kind {
    WEIR__ACC_COUNT_STAR, /* int64 rows */
    WEIR__ACC_COUNT,      /* int64 non-NULL values */
    WEIR__ACC_SUM_I32,    /* int64 sum, int64 non-NULL count; INT input */
    WEIR__ACC_SUM_I64,    /* same for BIGINT / DECIMAL (unscaled) input */
    WEIR__ACC_SUM_F64,    /* double sum, int64 non-NULL count */
    WEIR__ACC_GENERIC,    /* weir_agg class */
    /*
     * A two-phase aggregation's global phase (a MERGE, agg/merge.h): the
     * function's own accumulator block and serialised form (as GENERIC
     * writes it), whose partial columns the engine folds in and whose
     * result it writes itself. WORDS: COUNT, SUM, SUM0, AVG of INT/BIGINT,
     * every word a wrapping sum; EXTREME: MIN/MAX of a 64-bit value.
     */
    WEIR__ACC_MERGE_WORDS,
    WEIR__ACC_MERGE_EXTREME,
} weir__acc_kind;

typedef struct weir__accfield {
    weir__acc_kind kind;
    int32_t col;          /* input column, -1 for COUNT(*); a MERGE's first partial column */
    uint32_t off;         /* byte offset in the block */
    /* the MERGE kinds: which function's accumulator (a weir__merge_form), and its partial columns
     * (the block's first words); bytes, in what was padding: the engine's loops step over fields */
    uint8_t form;
    uint8_t words;
    weir_type out_type;
    weir_agg agg;         /* copy of the bound aggregate */
} weir__accfield;

typedef struct weir__accset {
    uint32_t n;
    weir__accfield *f;
    uint32_t size;        /* bytes per block, multiple of 8 */
    bool any_generic;
    bool all_int;         /* only integer COUNT/SUM: a block is a vector of int64 sums */
    bool retractable;     /* every function can undo an add */
} weir__accset;

/* Header of every block: net rows folded in. */
#define WEIR__ACC_ROWS(blk) (*(int64_t *)(blk))

int weir__accset_init(weir__accset *as, const weir_agg *aggs, uint32_t n, const weir_schema *in,
                      bool no_fast_path, weir_error *err);
void weir__accset_fini(weir__accset *as);

void weir__acc_init_generic(const weir__accset *as, void *blk);
void weir__acc_fini_generic(const weir__accset *as, void *blk);

/* An empty block: zero words, then each user-defined aggregate's init. */
static inline void weir__acc_init(const weir__accset *as, void *blk)
{
    if (as->any_generic) {
        weir__acc_init_generic(as, blk);
        return;
    }
    /* a record is created per key and slice: small blocks are cleared without a call */
    uint64_t *w = blk;
    switch (as->size / 8) {
    case 6: w[5] = 0; /* fall through */
    case 5: w[4] = 0; /* fall through */
    case 4: w[3] = 0; /* fall through */
    case 3: w[2] = 0; /* fall through */
    case 2: w[1] = 0; /* fall through */
    case 1: w[0] = 0; break;
    default: memset(blk, 0, as->size); break;
    }
}

/* Releases what a block's user-defined aggregates hold. */
static inline void weir__acc_fini(const weir__accset *as, void *blk)
{
    if (as->any_generic)
        weir__acc_fini_generic(as, blk);
}
void weir__acc_reset(const weir__accset *as, void *blk);
int weir__acc_merge(const weir__accset *as, void *dst, const void *src);
int weir__acc_copy(const weir__accset *as, void *dst, const void *src);
/* dst -= src; only for all_int sets (WEIR_EUNSUPPORTED otherwise), where it is exact. */
int weir__acc_unmerge(const weir__accset *as, void *dst, const void *src);
/* Every word of blk is zero: for all_int sets, the block equals an empty one. */
bool weir__acc_zero(const weir__accset *as, const void *blk);
/* Folds (sign > 0) or retracts (sign < 0) one row. */
int weir__acc_add(const weir__accset *as, void *blk, const weir_batch *b, uint32_t row, int sign);
/*
 * Folds many rows: rows[i] of b into blks[i] (sign signs[i], or +1 for all
 * when signs is NULL). Typed loops per aggregate, no per-row dispatch for
 * the fast kinds.
 */
int weir__acc_add_many(const weir__accset *as, void *const *blks, const uint32_t *rows,
                       const int8_t *signs, uint32_t n, const weir_batch *b);
/* Writes the results into out columns col0 .. col0+n-1 of row orow. */
int weir__acc_result(const weir__accset *as, const void *blk, weir_batch *out, uint32_t col0,
                     uint32_t orow);
/* The results of n blocks into rows row0 .. row0+n-1, one typed loop per aggregate. */
int weir__acc_result_many(const weir__accset *as, const void *const *blks, uint32_t n, weir_batch *out,
                          uint32_t col0, uint32_t row0);
int weir__acc_serialize(const weir__accset *as, const void *blk, weir_buf *out);
/* blk is uninitialised on entry; initialised on return (also on failure). */
int weir__acc_deserialize(const weir__accset *as, void *blk, weir_cursor *in);
static inline bool weir__acc_empty(const void *blk) { return WEIR__ACC_ROWS(blk) == 0; }

/* ---- the window engine ----
 *
 * Everything a window operator does, independent of the runtime: it takes
 * batches with the current watermark and processing time, advances of the
 * watermark and processing-time timers, and produces output batches, late
 * rows and processing-time timer requests through callbacks.
 */
typedef struct weir__wcore weir__wcore;
typedef struct weir__wentry weir__wentry;

typedef struct weir__wcore_io {
    /* A full (or final) output batch; borrowed for the call. */
    int (*emit)(void *ud, const weir_batch *b);
    /* A batch of late rows (late schema); borrowed for the call. NULL: late rows are only counted. */
    int (*emit_late)(void *ud, const weir_batch *b);
    /* Asks for a processing-time callback for key at t (deduplicated by the callee). */
    int (*proc_timer)(void *ud, const uint8_t *key, size_t len, uint64_t hash, int64_t t);
    /* Incremented for each late record (may be NULL). */
    uint64_t *late_counter;
    /* Asked every WCORE_TICK steps of a firing (may be NULL): non-zero
     * stops the firing with that code (the job is being canceled). */
    int (*interrupted)(void *ud);
    void *ud;
} weir__wcore_io;

int weir__wcore_create(const weir_window_spec *spec, const weir_schema *in, const weir_schema *out,
                       const weir_schema *late, uint32_t batch_size, const weir__wcore_io *io,
                       weir__wcore **out_core, weir_error *err);
void weir__wcore_destroy(weir__wcore *c);
/*
 * Processing-time windows whose rows are assigned by their b->ts (the
 * caller sets it to the arrival time it wants, e.g. local wall time)
 * rather than by now_ms, which then only moves the engine's clock. Each
 * row's b->ts must be at or after that clock.
 */
void weir__wcore_set_proc_row_ts(weir__wcore *c);
/* Processes rows of b at watermark wm and processing time now_ms. */
int weir__wcore_process(weir__wcore *c, const weir_batch *b, weir_ts wm, int64_t now_ms);
/* The watermark (processing time in the PROCESSING domain) advanced to wm. */
int weir__wcore_advance(weir__wcore *c, weir_ts wm, int64_t now_ms);
/* A processing-time timer of key fired at t (now_ms >= t). */
int weir__wcore_proc_timer(weir__wcore *c, const uint8_t *key, size_t len, uint64_t hash, int64_t t,
                           int64_t now_ms);
/* Sends what is buffered in the output batches. */
int weir__wcore_flush(weir__wcore *c);
/* End of input: processing-time windows fire. */
int weir__wcore_finish(weir__wcore *c, int64_t now_ms);
weir_ts weir__wcore_watermark(const weir__wcore *c);
/* The label of the aggregate (SINGLE_VALUE: names the scalar subquery) whose add failed with WEIR_EINVAL,
 * or NULL: the aggregation has no labelled aggregate, or several. */
const char *weir__wcore_fail_label(const weir__wcore *c);

/* Persistence: the live windows of one key as canonical bytes. */
typedef int (*weir__wcore_entry_fn)(void *ud, const uint8_t *key, size_t len, uint64_t hash,
                                     const void *val, size_t vlen, bool removed);
/*
 * Visits every key changed since the previous call, with its serialised
 * windows, or removed = true when the key has no windows left (its state
 * entry should be cleared). Clears the changed marks. A key is changed when
 * anything its bytes hold changed: a record went into one of its slice
 * records or window nodes, a slice holding one of its records fired or was
 * released, a window node fired, merged or was cleaned up. Keys not visited
 * keep the bytes written for them before, which equal what a full rewrite
 * would write except for the header's floor (the watermark of the write).
 */
int weir__wcore_drain_changes(weir__wcore *c, weir__wcore_entry_fn fn, void *ud);
/*
 * Marks every key with windows, and every key written before, changed: the
 * next drain rewrites all of them (a full rewrite; tests compare with it).
 */
void weir__wcore_mark_all(weir__wcore *c);
/* Loads the windows of one key from bytes written by drain_changes. */
int weir__wcore_load_entry(weir__wcore *c, const uint8_t *key, size_t len, uint64_t hash,
                           const void *val, size_t vlen, weir_ts wm);
/*
 * After loading: the watermark the state was written at (the operator's
 * snapshot records it). A key's floor is the watermark of the drain that
 * last wrote it, older than the checkpoint's for keys that did not change
 * since, so the smallest floor may lag; this sets the engine's watermark.
 */
void weir__wcore_restore_watermark(weir__wcore *c, weir_ts wm);
/* The largest floor of the keys loaded (WEIR_TS_MIN: none loaded). */
weir_ts weir__wcore_loaded_floor_max(const weir__wcore *c);
/* Counters for tests and metrics. */
typedef struct weir__wcore_stats {
    uint64_t keys;          /* key entries with live windows */
    uint64_t entries;       /* key entries in the table (with windows or idle) */
    uint64_t nodes;         /* live window / slice nodes */
    uint64_t fired;         /* result rows emitted */
    uint64_t late;          /* late records */
    uint64_t slice_updates; /* accumulator updates by records */
    uint64_t drain_written; /* keys written by drains (all drains) */
    uint64_t drain_cleared; /* keys cleared by drains (all drains) */
    uint64_t run_compactions; /* hopping: times the running sum dropped its zero records */
} weir__wcore_stats;
void weir__wcore_stats_get(const weir__wcore *c, weir__wcore_stats *out);

#endif
