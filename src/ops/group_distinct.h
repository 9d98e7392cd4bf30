/*
 * ops/group_distinct.h - the COUNT(DISTINCT) views of a group aggregation
 * held in memory between checkpoints (internal to ops/).
 *
 * A view is the set of values of one column with, per value, one
 * occurrence counter for each COUNT(DISTINCT) sharing the view (as in map
 * state "group-agg-distinct": namespace = the view's aggregate number, map
 * key = the value's canonical bytes, map value = the counters as int64s).
 * The table holds, per view, one open-addressing table of (group, value)
 * records with the counters inline, so a row costs one probe instead of a
 * map-state lookup. Every value whose counters changed since the previous
 * drain is remembered; weir__gd_drain hands those to the caller, which
 * writes them to map state when a checkpoint's snapshot starts. A group
 * not held yet (first use after a restore, or a new group) is loaded by the
 * caller from map state through weir__gd_load.
 */
#ifndef WEIR_OPS_GROUP_DISTINCT_H
#define WEIR_OPS_GROUP_DISTINCT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct gd_table gd_table;

/* A table of n_views views; view v has widths[v] counters per value. */
int weir__gd_create(uint32_t n_views, const uint32_t *widths, gd_table **out);
void weir__gd_destroy(gd_table *t);

/*
 * The group with key (klen bytes, hash h): *grp its number (stable for the
 * table's life); *fresh true when it was not held before this call (the
 * caller then loads its values from state).
 */
int weir__gd_group(gd_table *t, const uint8_t *key, size_t klen, uint64_t h, uint32_t *grp, bool *fresh);

/*
 * The counters of value (vlen canonical bytes) in view v of group grp,
 * inserted as zeros when new, and the value remembered as changed. The
 * pointer is valid until the next call that takes a value of that view.
 * The caller may leave every counter zero: the value is then absent
 * (removed from state at the next drain).
 */
int weir__gd_counts(gd_table *t, uint32_t grp, uint32_t v, const void *val, size_t vlen, int64_t **counts);

/* Puts a value read from state (counters: widths[v] int64s, any alignment), not as changed. */
int weir__gd_load(gd_table *t, uint32_t grp, uint32_t v, const void *val, size_t vlen, const void *counters);

/*
 * Hands every changed value to fn and forgets that it changed: the group's
 * key and hash, the view, the value, and its counters (NULL when they are
 * all zero: the value is gone). Stops at fn's first nonzero return.
 */
typedef int (*gd_change_fn)(void *ud, const uint8_t *key, size_t klen, uint64_t hash, uint32_t v, const void *val,
                            size_t vlen, const int64_t *counters);
int weir__gd_drain(gd_table *t, gd_change_fn fn, void *ud);

#endif
