/*
 * weir/agg.h - aggregate functions as incremental, mergeable accumulators.
 *
 * An accumulator is a fixed-size block of acc_size bytes (aligned to 8) that
 * the caller owns and places where it likes (a window slice, a hash-table
 * entry). Functions whose state is variable-sized (exact distinct sets,
 * sketches) keep a pointer to heap memory inside that block and release it
 * in destroy. Every function can be serialised into canonical bytes (for
 * checkpoints and savepoints) and merged (for session merging, slice
 * combination and two-phase aggregation).
 *
 * Retraction: `retract` is non-NULL for functions that can undo an add
 * exactly (COUNT, SUM, SUM0, AVG, COUNT_DISTINCT, APPROX_PERCENTILE, the
 * variance family); updating (changelog) aggregation uses it on -U/-D rows.
 * MIN/MAX/FIRST_VALUE/LAST_VALUE are retractable only through their
 * _RETRACT variants, which keep a multiset of values.
 *
 * An accumulator block holds no pointer into itself: it may be moved with
 * memcpy, never duplicated that way. docs/aggregates.md has the semantics
 * (NULLs, types, ordering, sketches, the serialised format).
 */
#ifndef WEIR_AGG_H
#define WEIR_AGG_H

#include "weir/batch.h"
#include "weir/buf.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct weir_agg weir_agg;

typedef struct weir_agg_class {
    const char *name;                       /* "COUNT", "SUM", ... */
    /* Bytes of the accumulator block for input type in. */
    size_t (*acc_size)(const weir_agg *a);
    void (*init)(const weir_agg *a, void *acc);
    /* Folds in the value at (b, a->input_col, row); NULLs are handled by the function. */
    int (*add)(const weir_agg *a, void *acc, const weir_batch *b, uint32_t row);
    /* Optional: exact inverse of add. */
    int (*retract)(const weir_agg *a, void *acc, const weir_batch *b, uint32_t row);
    /* acc += other (other is unchanged). */
    int (*merge)(const weir_agg *a, void *acc, const void *other);
    /* Writes the result into (out, col, row) (NULL when undefined, e.g. SUM of nothing). */
    int (*result)(const weir_agg *a, const void *acc, weir_batch *out, uint32_t col, uint32_t row);
    int (*serialize)(const weir_agg *a, const void *acc, weir_buf *out);
    /* acc is uninitialised on entry. */
    int (*deserialize)(const weir_agg *a, void *acc, weir_cursor *in);
    /* Optional: frees heap parts of acc. */
    void (*destroy)(const weir_agg *a, void *acc);
    /* Optional: true when acc has seen no (net) rows; empty windows are never emitted. */
    bool (*is_empty)(const weir_agg *a, const void *acc);
    /*
     * Optional fast path: folds rows[i] into accs[i] for i < n, exactly as n
     * calls of add would (accs may repeat). Use weir_agg_add_rows(), which
     * falls back to add.
     */
    int (*add_rows)(const weir_agg *a, void *const *accs, const weir_batch *b, const uint32_t *rows,
                    uint32_t n);
} weir_agg_class;

/* A bound aggregate: a function applied to one input column. */
struct weir_agg {
    const weir_agg_class *cls;
    int32_t input_col;        /* -1 for COUNT(*) */
    weir_type input_type;
    weir_type result_type;
    double param;             /* e.g. the percentile for APPROX_PERCENTILE */
    void *udf;                /* user-defined aggregates: their context */
    /* DISTINCT wrappers (SUM_DISTINCT, ...): the function applied to the
     * distinct values; NULL otherwise. */
    const weir_agg_class *inner;
    /* LISTAGG: the separator (borrowed; must outlive every use of the
     * aggregate); NULL means ",". */
    const char *sep;
    /* SINGLE_VALUE: the job's error when a group gets a second row (borrowed,
     * like sep); NULL gives a generic one. */
    const char *label;
    /* PERCENTILES: the percentages, n_params of them (borrowed, like sep). */
    const double *params;
    uint32_t n_params;
};

/*
 * Binds the built-in function `name` (case-insensitive) to input column col
 * of schema s. Fails with WEIR_ENOTFOUND for an unknown name, WEIR_EINVAL
 * for a type it cannot take or a bad param. Result types (docs/aggregates.md
 * has the full table and the reasons):
 *   COUNT (col -1: COUNT(*)), COUNT_DISTINCT, APPROX_COUNT_DISTINCT
 *                         any type -> BIGINT NOT NULL
 *   SUM, SUM0             INT/BIGINT -> BIGINT, DOUBLE -> DOUBLE,
 *                         DECIMAL(p,s) -> DECIMAL(18,s)
 *   AVG                   INT -> INT, BIGINT -> BIGINT (truncated, as Flink),
 *                         DOUBLE -> DOUBLE, DECIMAL(p,s) -> DECIMAL(18,s')
 *   MIN, MAX, FIRST_VALUE, LAST_VALUE and their _RETRACT variants
 *                         any type -> the same type
 *   VAR_POP, VAR_SAMP (VARIANCE), STDDEV_POP, STDDEV_SAMP (STDDEV)
 *                         numeric -> DOUBLE
 *   APPROX_PERCENTILE     numeric -> DOUBLE; param = the percentile in [0, 1]
 *   LISTAGG               STRING -> STRING (the non-NULL values in arrival
 *                         order, joined by out->sep, set after binding)
 *   ARRAY_AGG             any type -> ARRAY of it: the values in arrival
 *                         order, NULLs skipped when param is 1 (IGNORE
 *                         NULLS); NULL without elements
 *   LAG                   any type -> the same type: the value param
 *                         (0..WEIR_AGG_LAG_MAX) adds back, NULL when there
 *                         is none; retract only checks (OVER windows: LAG
 *                         follows the partition, not the frame)
 *   LAG_PRESENT           any type -> BOOLEAN NOT NULL: whether that add
 *                         exists
 *   F_DISTINCT            F over the distinct non-NULL values, for every F
 *                         above that can retract (SUM, SUM0, AVG, the
 *                         variance family, APPROX_PERCENTILE, the _RETRACT
 *                         variants); the result type of F
 * APPROX_COUNT_DISTINCT takes its HyperLogLog precision p (4..18) in param;
 * 0 means the default 14.
 */
#define WEIR_AGG_LAG_MAX 100000

int weir_agg_bind(const char *name, const weir_schema *s, int32_t col, double param, weir_agg *out,
                  weir_error *err);

/*
 * Conveniences over the class (every built-in implements every member, but a
 * UDAF may lack retract; these check). An accumulator whose rows are all
 * retracted again is empty (is_empty true) and reports what SQL says of no
 * rows: COUNT 0, the others NULL.
 * Failures: add/retract/merge return WEIR_ENOMEM (acc unchanged),
 * WEIR_ESTATE for a retraction of a row the accumulator does not hold (acc
 * unchanged), WEIR_EUNSUPPORTED when the function cannot retract.
 * deserialize returns WEIR_ECORRUPT for bytes it cannot accept (truncated,
 * unknown version, another function's state, broken invariants) and then
 * leaves acc initialised and empty. Bit flips inside a plausible value are
 * caught by the checksums of the file that holds the bytes, not here.
 */
size_t weir_agg_acc_size(const weir_agg *a);
void weir_agg_init(const weir_agg *a, void *acc);
void weir_agg_destroy(const weir_agg *a, void *acc);
bool weir_agg_is_empty(const weir_agg *a, const void *acc);
bool weir_agg_can_retract(const weir_agg *a);
int weir_agg_add(const weir_agg *a, void *acc, const weir_batch *b, uint32_t row);
int weir_agg_retract(const weir_agg *a, void *acc, const weir_batch *b, uint32_t row);
/* Folds rows[i] into accs[i] for i < n (the fast path where there is one). */
int weir_agg_add_rows(const weir_agg *a, void *const *accs, const weir_batch *b, const uint32_t *rows,
                      uint32_t n);
/*
 * dst (uninitialised) becomes an independent copy of src: init + merge, for
 * structures that combine partial aggregates (two-stacks, DABA) and keep
 * them. On failure dst is left initialised and empty.
 */
int weir_agg_copy(const weir_agg *a, void *dst, const void *src);
/* Adds (+I, +U) or retracts (-U, -D) rows [0, b->n_rows) of b into acc by their row kind. */
int weir_agg_apply_batch(const weir_agg *a, void *acc, const weir_batch *b);
/* The names weir_agg_bind accepts (static; n set to their number), for suggestions. */
const char *const *weir_agg_builtin_names(size_t *n);

/* User-defined aggregates through the C API. */
typedef struct weir_udaf {
    const char *name;
    weir_type result_type;
    size_t acc_size;
    void (*init)(void *ud, void *acc);
    int (*add)(void *ud, void *acc, const weir_batch *b, int32_t col, uint32_t row);
    int (*retract)(void *ud, void *acc, const weir_batch *b, int32_t col, uint32_t row); /* optional */
    int (*merge)(void *ud, void *acc, const void *other);
    int (*result)(void *ud, const void *acc, weir_batch *out, uint32_t col, uint32_t row);
    void *ud;
} weir_udaf;
/*
 * Binds a UDAF (u is borrowed and must outlive every use of out; col may be
 * -1 when the function reads no column). Its accumulator is serialised as
 * its acc_size raw bytes, so it must hold plain data (no pointers). NULL
 * inputs reach add as they are: the function decides what they mean. weir
 * counts rows beside the user's state, so is_empty works and a retraction
 * of every row resets the state to init. Callbacks return 0 or a negative
 * code (WEIR_EUSER when the function itself fails).
 */
int weir_agg_bind_udaf(const weir_udaf *u, const weir_schema *s, int32_t col, weir_agg *out);

#ifdef __cplusplus
}
#endif
#endif
