/*
 * ops/match.h - row pattern recognition (SQL's MATCH_RECOGNIZE, Flink's
 * Match operator): per partition key, rows in event-time order are matched
 * against a pattern of variables with quantifiers; one output row per match.
 *
 * Rows are held until the watermark passes their timestamp (W > t), then
 * released to the partition's sequence in (timestamp, secondary ORDER BY)
 * order, equal ones in arrival order. A row with t <= W on arrival is late:
 * dropped and counted (late_records_dropped).
 *
 * Matching follows the SQL standard's preference: from a start row, the
 * pattern's terms are tried in order, a greedy quantifier preferring one
 * more row, a reluctant one preferring to stop; the first match in that
 * order wins. A start without a match lets the next row try; after a match
 * matching resumes where AFTER MATCH SKIP says. A decision that depends on
 * rows not yet released waits for them (at the end of the input, rows that
 * never came fail). WITHIN d: a match's last row is less than d after its
 * first.
 *
 * Conditions and measures are expressions over "slots", one row of values
 * the operator fills for the (partial) match: a column of the last/first
 * row mapped to a variable (logical offset n), of a row n before it
 * (PREV), an aggregate over a variable's rows, or the match's last
 * timestamp. A condition of variable V is evaluated with the candidate row
 * mapped to V; NULL is false; a variable without a condition always holds.
 *
 * Matching keeps the live partial matches of the current start row and
 * advances them row by row (no bound on a match's length); more than
 * max_partial of them live at once fails the job, naming the setting.
 *
 * State (keyed by the partition): "mr-rows" list state, namespace = the
 * timestamp: rows not yet released (sort key, row); "mr-row" value state,
 * namespace = a sequence number: one released row (timestamp, row), from
 * the current start row on; "mr-run" value state: the start, the live
 * partial matches and the best match so far. A key of a checkpoint of the
 * earlier layout ("mr-seq" value state: the released rows from the first
 * row that may still start a match) is read back as its rows, matched
 * again from the first.
 */
#ifndef WEIR_OPS_MATCH_H
#define WEIR_OPS_MATCH_H

#include "weir/expr.h"
#include "weir/key.h"
#include "weir/operator.h"

typedef enum weir_mr_slot_kind {
    WEIR_MR_SLOT_LAST,    /* col of the offset-th row from the last mapped to var */
    WEIR_MR_SLOT_FIRST,   /* ... from the first */
    WEIR_MR_SLOT_PREV,    /* col of the row offset rows before the last mapped to var (inside the match) */
    WEIR_MR_SLOT_AGG,     /* agg over col of the rows mapped to var */
    WEIR_MR_SLOT_ROWTIME, /* the timestamp of the match's last row */
} weir_mr_slot_kind;

typedef enum weir_mr_agg { WEIR_MR_COUNT, WEIR_MR_SUM, WEIR_MR_AVG, WEIR_MR_MIN, WEIR_MR_MAX } weir_mr_agg;

typedef struct weir_mr_slot {
    weir_mr_slot_kind kind;
    int32_t var;     /* pattern variable, -1: every row of the match */
    int32_t col;     /* input column; -1: COUNT(*) */
    uint32_t offset; /* LAST / FIRST / PREV */
    weir_mr_agg agg;
} weir_mr_slot;

typedef struct weir_mr_term {
    uint32_t var, min, max; /* max UINT32_MAX: unbounded */
    bool reluctant;
} weir_mr_term;

typedef enum weir_mr_skip {
    WEIR_MR_SKIP_PAST_LAST_ROW,
    WEIR_MR_SKIP_TO_NEXT_ROW,
    WEIR_MR_SKIP_TO_FIRST,
    WEIR_MR_SKIP_TO_LAST,
} weir_mr_skip;

/* The slots one expression reads. */
typedef struct weir_mr_uses {
    const uint32_t *slots;
    uint32_t n;
} weir_mr_uses;

typedef struct weir_match_config {
    weir_keyspec partition;    /* input columns; the output starts with them */
    uint32_t n_order;          /* secondary ORDER BY columns */
    uint32_t order_cols[WEIR_KEY_MAX_COLS];
    bool order_desc[WEIR_KEY_MAX_COLS];
    bool nulls_last[WEIR_KEY_MAX_COLS];
    const weir_schema *in_schema; /* borrowed, as everything below */
    uint32_t n_terms;
    const weir_mr_term *terms;
    uint32_t n_vars;
    const weir_expr *const *define; /* per variable, NULL: always true */
    const weir_mr_uses *define_uses;
    uint32_t n_slots;
    const weir_mr_slot *slots;
    const weir_schema *slot_schema; /* one column per slot */
    uint32_t n_measures;
    const weir_expr *const *measures;
    weir_mr_uses measure_uses;
    const weir_schema *measure_schema; /* one column per measure */
    const weir_schema *out_schema;     /* partition columns, then the measures */
    weir_mr_skip skip;
    int32_t skip_var;
    const char *skip_text; /* "TO FIRST A": names the clause when it fails the job */
    int64_t within_ms; /* 0: no WITHIN */
    /* ORDER BY a processing-time attribute: rows matched in the order they
     * arrive, each at the job clock's time then (WITHIN is processing time),
     * none late; else by event time, released by the watermark */
    bool proctime;
    uint32_t max_partial; /* live partial matches of one start; 0: the default */
} weir_match_config;

/* The default bound on live partial matches ('weir.match.max-partial-matches'). */
#define WEIR_MATCH_MAX_PARTIAL_DEFAULT 100000u

int weir_match_spec(const weir_match_config *cfg, weir_operator_spec *out);

/*
 * The first term from which the partial matches of a start are merged
 * (n_terms: none): the conditions of it and every later term read only
 * the candidate row, so two partial matches waiting at the same term with
 * the same count have the same future, and the later one, which can never
 * win, is dropped. Under conditions that read more (another variable's
 * rows, an aggregate) the dropped one could have won: a restore into them
 * is refused ("merged partial matches" of the fingerprint).
 */
uint32_t weir_match_merged_from(const weir_match_config *cfg);

#endif
