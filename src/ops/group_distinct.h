/*
 * ops/group_distinct.h - a bounded cache of the COUNT(DISTINCT) views of a
 * group aggregation, in front of their map state (internal to ops/).
 *
 * A view is the set of values of one column with, per value, one
 * occurrence counter for each COUNT(DISTINCT) sharing the view; in keyed
 * map state "group-agg-distinct": namespace = the view's aggregate number,
 * map key = the value's canonical bytes, map value = the counters as
 * int64s. The cache holds, per view, one open-addressing table of (group,
 * value) records with the counters inline, so a row costs one probe
 * instead of a map-state lookup. Every value whose counters changed since
 * the previous drain is remembered; weir__gd_drain hands those to the
 * caller, which writes them to map state (when a checkpoint's snapshot
 * starts, and before the cache is emptied because it outgrew its bound).
 * So map state, with the changes not drained yet, is always the truth,
 * and the cache may forget everything after a drain (weir__gd_reset).
 *
 * A group is complete when the cache holds all its values (a new group,
 * or one whose values the caller loaded from state through weir__gd_load);
 * a value missing from a complete group is absent. Of a group that is not
 * complete the cache holds only the values met since it was taken in: a
 * value missing there is reported unknown, and the caller reads its
 * counters from map state.
 */
#ifndef WEIR_OPS_GROUP_DISTINCT_H
#define WEIR_OPS_GROUP_DISTINCT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "weir/key.h"

typedef struct gd_table gd_table;

/* A table of n_views views; view v has widths[v] counters per value. */
int weir__gd_create(uint32_t n_views, const uint32_t *widths, gd_table **out);
void weir__gd_destroy(gd_table *t);

/*
 * The group with key (klen bytes, hash h): *grp its number (stable until
 * the next weir__gd_reset); *fresh true when it was not held before this
 * call (not complete: the caller may load its values from state and mark
 * it so).
 */
int weir__gd_group(gd_table *t, const uint8_t *key, size_t klen, uint64_t h, uint32_t *grp, bool *fresh);

/*
 * Hints for a row some rows ahead, before its group is looked up, in
 * three steps some rows apart, each reading only what the one before
 * brought near: weir__gd_group_prefetch brings toward the cache the
 * index place where the group whose key hashes to h is looked up;
 * weir__gd_group_entry_prefetch reads that place and brings the entry of
 * the group held there; weir__gd_group_peek walks the index from there
 * to the group whose key's hash is h, brings its key bytes, and returns
 * its number, or UINT32_MAX when none is held. Not a lookup (the keys are
 * not compared): use the number only to prefetch.
 */
void weir__gd_group_prefetch(const gd_table *t, uint64_t h);
void weir__gd_group_entry_prefetch(const gd_table *t, uint64_t h);
uint32_t weir__gd_group_peek(const gd_table *t, uint64_t h);

/* Marks group grp complete: the cache holds every value it has in state. */
void weir__gd_set_complete(gd_table *t, uint32_t grp);

/* Group grp's key bytes (valid until the next weir__gd_group or reset) and hash. */
void weir__gd_group_key(const gd_table *t, uint32_t grp, const uint8_t **key, size_t *klen, uint64_t *h);

/* The number of groups held: they are numbered from 0 (until the next weir__gd_reset). */
uint32_t weir__gd_n_groups(const gd_table *t);

/*
 * The counters of value (vlen canonical bytes) in view v of group grp,
 * inserted as zeros when new, and the value remembered as changed: a copy
 * (widths[v] int64s), valid until the next call on t; what the caller
 * changes there is kept by weir__gd_put, before any other call on t.
 * *unknown: the value was not held and the group is not complete - the
 * caller fills the counters from state (they are zeros) before changing
 * them. The caller may leave every counter zero: the value is then absent
 * (removed from state at the next drain).
 */
int weir__gd_counts(gd_table *t, uint32_t grp, uint32_t v, const void *val, size_t vlen, int64_t **counts,
                    bool *unknown);

/* The same, with the value's hash (weir__gd_value_hash) computed by the caller, as for its prefetch. */
int weir__gd_counts_hashed(gd_table *t, uint32_t grp, uint32_t v, const void *val, size_t vlen, uint64_t vhash,
                           int64_t **counts, bool *unknown);

/*
 * A value's hash, as weir__gd_counts_hashed and weir__gd_prefetch take it.
 * Only the views' tables see it (never state, never a key group), so an
 * 8-byte value (every integer's canonical bytes: q15/q16's bidders and
 * auctions) is mixed inline, a bijection with full avalanche, instead of
 * a call to the key hash: a row hashes two values and a doubling hashes
 * every record again.
 */
static inline uint64_t weir__gd_value_hash(const void *val, size_t vlen)
{
    if (vlen != 8)
        return weir_key_hash(val, vlen);
    uint64_t x;
    memcpy(&x, val, 8);
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

/* Stores the counters weir__gd_counts handed out into their value. */
int weir__gd_put(gd_table *t);

/* Counters are held as int32s while within +-this (INT32_MAX; tests lower it to reach the int64 path);
 * in a view's 16-byte records, 7 bits each while within 0..min(127, this). */
extern int64_t weir__gd_narrow_max;

/*
 * Brings toward the cache the place where the value whose hash is vhash
 * (weir__gd_value_hash) of view v of the group whose key hashes to ghash
 * would be: a hint, for a row a few rows ahead (the table's probes are
 * cache misses in large views).
 */
void weir__gd_prefetch(const gd_table *t, uint32_t v, uint64_t ghash, uint64_t vhash);

/* Puts a value read from state (counters: widths[v] int64s, any alignment), not as changed. */
int weir__gd_load(gd_table *t, uint32_t grp, uint32_t v, const void *val, size_t vlen, const void *counters);

/*
 * Hands every changed value to fn and forgets that it changed: the group's
 * key and hash, the view, the value, and its counters (NULL when they are
 * all zero: the value is gone). Stops at fn's first nonzero return. With
 * in_order, a view's values come group by group, each group's in byte
 * order (a sorted store such as RocksDB inserts neighbouring keys cheaply).
 */
typedef int (*gd_change_fn)(void *ud, const uint8_t *key, size_t klen, uint64_t hash, uint32_t v, const void *val,
                            size_t vlen, const int64_t *counters);
int weir__gd_drain(gd_table *t, bool in_order, gd_change_fn fn, void *ud);

/* Bytes the held groups and values take (approximate): what the bound is checked against. */
size_t weir__gd_bytes(const gd_table *t);

/*
 * Forgets every group and value (group numbers too), keeping the memory
 * for the next ones. WEIR_EINVAL when changes are not drained.
 */
int weir__gd_reset(gd_table *t);

#endif
