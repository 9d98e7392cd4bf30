/*
 * weir/state.h - keyed state.
 *
 * State is scoped to the current key (set with weir_op_set_key) and to an
 * optional namespace (for example a window), and is stored by key group so
 * that checkpoints and rescaling move whole key groups. The operator does not
 * know which backend stores it (in-memory hash tables by default, RocksDB
 * when configured).
 *
 * Values are byte strings. Pointers returned by reads are valid until the
 * next write to any state of the same backend (put, add, remove, clear,
 * set_key), like LMDB's "valid until a subsequent update".
 *
 * TTL: a state with ttl_ms > 0 stamps each value with the processing time of
 * its last write (or read, with WEIR_TTL_ON_READ_AND_WRITE); a value older
 * than ttl_ms is never returned, and is removed lazily on access, during
 * snapshots, and by incremental cleanup.
 */
#ifndef WEIR_STATE_H
#define WEIR_STATE_H

#include "weir/operator.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum weir_state_kind {
    WEIR_STATE_VALUE,
    WEIR_STATE_LIST,
    WEIR_STATE_MAP,
    WEIR_STATE_REDUCING,
    WEIR_STATE_AGGREGATING,
} weir_state_kind;

typedef enum weir_ttl_update {
    WEIR_TTL_ON_CREATE_AND_WRITE,
    WEIR_TTL_ON_READ_AND_WRITE,
} weir_ttl_update;

/*
 * Reducing state: combines an existing value with a new one into out
 * (out is cleared by the caller). Aggregating state: folds an input value
 * into the accumulator bytes acc (in place, may resize), and turns an
 * accumulator into a result.
 */
typedef int (*weir_reduce_fn)(void *ud, const void *a, size_t alen, const void *b, size_t blen, weir_buf *out);
typedef int (*weir_agg_add_fn)(void *ud, weir_buf *acc, const void *in, size_t inlen);
typedef int (*weir_agg_result_fn)(void *ud, const void *acc, size_t acclen, weir_buf *out);

typedef struct weir_state_desc {
    const char *name;       /* unique within the operator; stable across versions */
    weir_state_kind kind;
    int64_t ttl_ms;         /* 0: never expires */
    weir_ttl_update ttl_update;
    weir_reduce_fn reduce;          /* REDUCING */
    weir_agg_add_fn agg_add;        /* AGGREGATING */
    weir_agg_result_fn agg_result;  /* AGGREGATING; NULL returns the accumulator */
    void *ud;                       /* passed to the functions above */
} weir_state_desc;

typedef struct weir_state weir_state; /* a registered state of one operator instance */

/* Registers (or finds) a state in open(). The handle lives as long as the instance. */
int weir_op_get_state(weir_op_ctx *ctx, const weir_state_desc *desc, weir_state **out);

/* Value state. get: WEIR_ENOTFOUND when absent. */
int weir_value_get(weir_state *st, const void *ns, size_t ns_len, const void **val, size_t *len);
int weir_value_put(weir_state *st, const void *ns, size_t ns_len, const void *val, size_t len);

/* Removes the value / list / map of the current key and namespace (any kind). */
int weir_state_clear(weir_state *st, const void *ns, size_t ns_len);

/* List state. */
int weir_list_add(weir_state *st, const void *ns, size_t ns_len, const void *val, size_t len);
typedef int (*weir_list_visit_fn)(void *ud, const void *val, size_t len); /* non-zero stops */
int weir_list_get(weir_state *st, const void *ns, size_t ns_len, weir_list_visit_fn fn, void *ud);

/* Map state. */
int weir_map_put(weir_state *st, const void *ns, size_t ns_len, const void *k, size_t klen, const void *v, size_t vlen);
int weir_map_get(weir_state *st, const void *ns, size_t ns_len, const void *k, size_t klen, const void **v, size_t *vlen);
int weir_map_remove(weir_state *st, const void *ns, size_t ns_len, const void *k, size_t klen);
typedef int (*weir_map_visit_fn)(void *ud, const void *k, size_t klen, const void *v, size_t vlen);
int weir_map_iterate(weir_state *st, const void *ns, size_t ns_len, weir_map_visit_fn fn, void *ud);

/* Reducing and aggregating state: add folds a value in; get reads the result. */
int weir_state_add(weir_state *st, const void *ns, size_t ns_len, const void *val, size_t len);
int weir_state_get_result(weir_state *st, const void *ns, size_t ns_len, weir_buf *out);

/*
 * Visits every (key, namespace) that has an entry in this state, across all
 * keys of the backend (the current key is set to each in turn). Used for
 * cleanup and for operators that scan state on a timer.
 */
typedef int (*weir_state_key_visit_fn)(void *ud, const uint8_t *key, size_t klen, const void *ns, size_t ns_len);
int weir_state_keys(weir_state *st, weir_state_key_visit_fn fn, void *ud);

#ifdef __cplusplus
}
#endif
#endif
