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
 * exactly (COUNT, SUM, AVG, COUNT DISTINCT); updating (changelog) aggregation
 * uses it on -U/-D rows. MIN/MAX/FIRST/LAST are retractable only through
 * their "retractable" variants, which keep a multiset of values.
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
} weir_agg_class;

/* A bound aggregate: a function applied to one input column. */
struct weir_agg {
    const weir_agg_class *cls;
    int32_t input_col;        /* -1 for COUNT(*) */
    weir_type input_type;
    weir_type result_type;
    double param;             /* e.g. the percentile for APPROX_PERCENTILE */
    void *udf;                /* user-defined aggregates: their context */
};

/*
 * Binds the built-in function `name` (case-insensitive: COUNT, COUNT_DISTINCT,
 * APPROX_COUNT_DISTINCT, SUM, MIN, MAX, AVG, FIRST_VALUE, LAST_VALUE,
 * APPROX_PERCENTILE, ...) to input column col of schema s. Fails with
 * WEIR_ENOTFOUND for an unknown name, WEIR_EINVAL for a type it cannot take.
 */
int weir_agg_bind(const char *name, const weir_schema *s, int32_t col, double param, weir_agg *out,
                  weir_error *err);

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
/* Binds a UDAF; its accumulator is serialised as its acc_size raw bytes. */
int weir_agg_bind_udaf(const weir_udaf *u, const weir_schema *s, int32_t col, weir_agg *out);

#ifdef __cplusplus
}
#endif
#endif
