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
 * Precisely: a pointer from weir_value_get or weir_map_get stays valid, and
 * its bytes unchanged, across any number of further reads (weir_value_get,
 * weir_map_get, weir_list_get, weir_map_iterate, weir_state_get_result) of
 * any state, also when those reads find and drop expired entries or the
 * clock advanced; it becomes invalid at the first weir_value_put,
 * weir_value_edit, weir_list_add, weir_map_put, weir_map_remove, weir_state_add,
 * weir_state_clear, weir_op_set_key (or the runtime setting the key for a
 * timer), weir_state_keys, or a restore. A write may take its input from
 * such a pointer (put(v) with v read just before is fine). Pointers passed to
 * visitors are valid during that call only; visitors of weir_list_get and
 * weir_map_iterate must not write state (weir_state_keys visitors may).
 * Callbacks of reducing/aggregating states must not call state functions.
 *
 * Namespaces: (ns, ns_len) is any byte string; NULL/0 is the empty
 * namespace. Entries of different keys, namespaces or states never mix.
 *
 * TTL: a state with ttl_ms > 0 stamps each value with the processing time of
 * its last write (or read, with WEIR_TTL_ON_READ_AND_WRITE); a value older
 * than ttl_ms is never returned, and is removed lazily on access, during
 * snapshots, and by incremental cleanup. List elements and map entries have
 * a stamp each (Flink's per-element TTL). A value is expired once
 * now >= stamp + ttl_ms (processing time of the backend's clock).
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

/* True when st's backend keeps its state on the heap (the default backend):
 * an operator's own cache of it then costs no more memory than the state
 * does. False for RocksDB, whose state may outgrow memory. */
bool weir_state_in_memory(const weir_state *st);

/*
 * Value state. get: WEIR_ENOTFOUND when absent. Also valid on reducing and
 * aggregating states, where the value is the stored result / accumulator
 * bytes (so an operator can read or set an accumulator directly, e.g. when
 * merging session windows).
 */
int weir_value_get(weir_state *st, const void *ns, size_t ns_len, const void **val, size_t *len);
int weir_value_put(weir_state *st, const void *ns, size_t ns_len, const void *val, size_t len);

/*
 * Rewrites the value of the current key and namespace where it lies, as len
 * bytes: fn receives the value's storage resized to len writable bytes, of
 * which the first keep = min(len, old length, keep_max) hold the old value
 * (keep is 0 when there is none or it expired; the bytes after keep are
 * unspecified), and changes them in place. So a value of which a small part
 * changes (an entry inserted into a sorted list) costs a move of the bytes
 * after it, not a copy of the whole. keep_max says how much of the old value
 * fn reads in place (SIZE_MAX: all of it): a caller that holds a copy of the
 * old value and writes the rest from there spares the backend a copy of
 * bytes it would overwrite when the value moves. A negative return of fn is
 * the call's (the value may then hold what fn wrote; an absent one stays
 * absent). A write, for TTL stamps and for pointers from earlier reads. The
 * memory backend edits the stored bytes (moving them to a new record only
 * when the value outgrows its room); RocksDB does a get and a put.
 */
typedef int (*weir_value_edit_fn)(void *ud, uint8_t *val, size_t len, size_t keep);
int weir_value_edit(weir_state *st, const void *ns, size_t ns_len, size_t len, size_t keep_max, weir_value_edit_fn fn,
                    void *ud);

/* Removes the value / list / map of the current key and namespace (any kind). */
int weir_state_clear(weir_state *st, const void *ns, size_t ns_len);

/*
 * List state. add appends without reading the list. get visits the
 * elements in insertion order; an absent list visits nothing and returns 0.
 * Visitors (here and below): a positive return stops the walk and the call
 * returns 0; a negative return stops it and is returned.
 */
int weir_list_add(weir_state *st, const void *ns, size_t ns_len, const void *val, size_t len);
typedef int (*weir_list_visit_fn)(void *ud, const void *val, size_t len); /* non-zero stops */
int weir_list_get(weir_state *st, const void *ns, size_t ns_len, weir_list_visit_fn fn, void *ud);

/*
 * Map state: per-entry put / get (WEIR_ENOTFOUND) / remove (0 also when
 * absent). iterate visits every live entry of (key, ns) in an unspecified
 * order (RocksDB: byte order of the map keys; memory: hash order).
 */
int weir_map_put(weir_state *st, const void *ns, size_t ns_len, const void *k, size_t klen, const void *v, size_t vlen);
int weir_map_get(weir_state *st, const void *ns, size_t ns_len, const void *k, size_t klen, const void **v, size_t *vlen);
int weir_map_remove(weir_state *st, const void *ns, size_t ns_len, const void *k, size_t klen);
/*
 * Changes map entry k where it lies: one lookup instead of a get and a put.
 * fn receives the entry's value as vlen writable bytes (all zero when the
 * entry is absent or expired) and returns 1 to keep the entry, 0 to remove
 * it (an absent entry is then not created), or a negative code, which the
 * call returns (the entry may then hold what fn wrote). Every value of the
 * map must be vlen bytes: an entry of another length is WEIR_ECORRUPT. A
 * write, for TTL stamps and for pointers from earlier reads. The memory
 * backend changes the bytes in place; RocksDB does a get and a put.
 */
typedef int (*weir_map_update_fn)(void *ud, void *val, size_t vlen);
int weir_map_update(weir_state *st, const void *ns, size_t ns_len, const void *k, size_t klen, size_t vlen,
                    weir_map_update_fn fn, void *ud);
/*
 * Replaces map entry k by what fn makes of it, a value of any length: fn
 * receives the entry's live value (NULL and 0 when it is absent or
 * expired; an empty value is a pointer all the same), points *nv / *nvlen at the new value (bytes of its own, or the
 * old value, valid until the call returns) and returns 1 to store it, 0 to
 * remove the entry (an absent one stays absent), or a negative code, which
 * the call returns with nothing changed. fn must not call state functions.
 * A write, for TTL stamps and for pointers from earlier reads. The memory
 * backend looks the entry up once (a get and a put hash the map key
 * twice); RocksDB does a get and a put.
 */
typedef int (*weir_map_rewrite_fn)(void *ud, const void *old, size_t oldlen, const void **nv, size_t *nvlen);
int weir_map_rewrite(weir_state *st, const void *ns, size_t ns_len, const void *k, size_t klen,
                     weir_map_rewrite_fn fn, void *ud);
typedef int (*weir_map_visit_fn)(void *ud, const void *k, size_t klen, const void *v, size_t vlen);
int weir_map_iterate(weir_state *st, const void *ns, size_t ns_len, weir_map_visit_fn fn, void *ud);

/*
 * Reducing and aggregating state: add folds a value in; get_result clears
 * out and writes the result (WEIR_ENOTFOUND when nothing was added).
 * Reducing: the first value is stored as given, later ones through reduce.
 * Aggregating: agg_add receives an empty buffer (len 0) when there is no
 * accumulator yet and must create one. A callback's negative return is
 * passed on, a positive one becomes WEIR_EUSER; either way the stored value
 * is left as it was.
 */
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
