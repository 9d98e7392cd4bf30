/*
 * state/backend.h - the keyed state backend as the runtime sees it
 * (internal-but-shared, weir__ prefix).
 *
 * One backend instance serves one operator subtask. It owns the key groups
 * [kg_lo, kg_hi) of that subtask, knows the current key (set by the runtime
 * through weir_op_set_key), and snapshots / restores one key group at a time
 * in a canonical, backend-independent format, so that a snapshot taken from
 * one backend restores into another and into another parallelism.
 *
 * Implementations: memory (memory_backend.c) and RocksDB (rocksdb_backend.c,
 * when built with WEIR_HAVE_ROCKSDB). Each implements weir__backend_ops
 * (backend_impl.h); the public state API in weir/state.h dispatches through
 * it. The snapshot format is described in docs/state.md.
 */
#ifndef WEIR_STATE_BACKEND_INTERNAL_H
#define WEIR_STATE_BACKEND_INTERNAL_H

#include "weir/clock.h"
#include "weir/state.h"

typedef struct weir__backend weir__backend;

typedef struct weir__backend_config {
    const char *kind;           /* "memory" (default) or "rocksdb" */
    uint32_t max_parallelism;
    uint32_t kg_lo, kg_hi;      /* owned key groups [kg_lo, kg_hi) */
    weir_clock clock;           /* processing time, for TTL */
    const char *dir;            /* working directory for disk backends */
    /*
     * RocksDB tuning; 0 picks the default. Memory the backend may use for
     * its block cache and for each memtable (write buffer).
     */
    uint64_t block_cache_bytes;
    uint64_t write_buffer_bytes;
} weir__backend_config;

int weir__backend_create(const weir__backend_config *cfg, weir__backend **out);
void weir__backend_destroy(weir__backend *be);

/* Registers a state; same name twice returns the same handle. */
int weir__backend_register(weir__backend *be, const weir_state_desc *desc, weir_state **out);

/* Sets the current key (copied); hash is weir_key_hash(key, len). */
int weir__backend_set_key(weir__backend *be, const void *key, size_t len, uint64_t hash);
/*
 * The same with the key borrowed, not copied, and its key group kg
 * (weir_key_group of hash) given: key must stay valid and unchanged until
 * the next change of be's key. For the operator context, which keeps a
 * copy of its key anyway (a second copy and two more key groups a row
 * showed in the joins' profiles).
 */
int weir__backend_use_key(weir__backend *be, const void *key, size_t len, uint64_t hash, uint32_t kg);
const uint8_t *weir__backend_key(const weir__backend *be, size_t *len, uint32_t *kg);

/*
 * Canonical snapshot of everything in key group kg (all states, TTL stamps
 * included), appended to out. restore reads what snapshot_kg wrote, for a
 * key group this backend owns; states are matched by name.
 */
int weir__backend_snapshot_kg(weir__backend *be, uint32_t kg, weir_buf *out);
int weir__backend_restore_kg(weir__backend *be, uint32_t kg, weir_cursor *in);

/*
 * Restored state that no operator registered (weir__backend_register) is
 * kept: it stays in the backend and in every later snapshot, unread, so a
 * job that registers its name again finds it. fn is called once for each
 * such state that holds anything, with its name (borrowed for the call),
 * the number of key groups holding it and of its entries (keys with a
 * namespace) in them, so that a restore can say what was not claimed.
 */
typedef void (*weir__unclaimed_fn)(void *ud, const char *state, uint32_t key_groups, uint64_t entries);
int weir__backend_unclaimed(weir__backend *be, weir__unclaimed_fn fn, void *ud);

/*
 * Asynchronous snapshots. weir__backend_snapshot_begin, on the backend's
 * thread, pins the state of every owned key group as it is at that moment,
 * cheaply: the memory backend marks its per-key-group tables copy-on-write
 * (O(states x key groups); the first access to a key group afterwards
 * copies that key group's table), RocksDB takes a RocksDB snapshot. Then
 * weir__backend_snap_kg may run on any other thread (one call at a time per
 * snap) while the backend goes on being used on its own thread, and writes
 * exactly what weir__backend_snapshot_kg would have written at begin (TTL
 * filtering uses the clock read at begin). weir__backend_snap_release may
 * run on any thread; every snap must be released before the backend is
 * destroyed. Several snaps may be open at once.
 */
typedef struct weir__backend_snap weir__backend_snap;
int weir__backend_snapshot_begin(weir__backend *be, weir__backend_snap **out);
int weir__backend_snap_kg(weir__backend_snap *s, uint32_t kg, weir_buf *out);
void weir__backend_snap_release(weir__backend_snap *s);
/* Whether the bytes written for one key group hold no entry (an empty
 * string included). */
bool weir__backend_kg_bytes_empty(const uint8_t *p, size_t len);

/*
 * Write combining around a burst of writes (the operators' snapshot hooks
 * at a barrier: the window operator writes every changed key). While on, a
 * backend may collect puts and deletes and write them in large batches;
 * any other access writes the collected ones first, so reads always see
 * every write. Turning it off writes the rest and returns the first error
 * of any batch write since it was turned on - a write the caller was told
 * had succeeded may then be lost, so the caller must treat that error as
 * fatal for the state. The memory backend ignores it (0).
 */
int weir__backend_write_batch(weir__backend *be, bool on);

/*
 * A hint before the accesses of a batch: the key of hash key_hash will be
 * the current key of an access to st soon. Stage 0 asks the CPU to load
 * the table slot where its lookup starts; stage 1, issued a few keys later
 * (the slot is then in cache), the record the slot points to. Changes
 * nothing and reads nothing the state's owner could not; keys of other
 * subtasks are ignored. A no-op where the backend has no use for it.
 */
void weir__state_prefetch(weir_state *st, uint64_t key_hash, int stage);
/*
 * Both stages in each of the n states st[0..n) of one backend: stage 0 for
 * the key of hash *slot_hash, stage 1 for *rec_hash's (NULL: that stage
 * for no key). One call a row where an operator hints a state per input,
 * the key group and the slot's hash taken once for all of them.
 */
void weir__states_prefetch(weir_state *const *st, uint32_t n, const uint64_t *slot_hash, const uint64_t *rec_hash);

/*
 * For an operator that rewrites restored state in a new layout (after a
 * restore, before any input): weir__state_stamp reads the TTL stamp of the
 * current key's value in ns (k NULL) or of its map entry k (WEIR_ENOTFOUND
 * when absent or expired; nothing changes), and the puts below store a
 * value or a map entry with that stamp instead of the clock's now, so a
 * rewritten entry expires when the one it replaces would have. In a state
 * without TTL the stamp is ignored. Writes, as weir_value_put and
 * weir_map_put are.
 */
int weir__state_stamp(weir_state *st, const void *ns, size_t ns_len,
                      const void *k, size_t klen, int64_t *stamp);
int weir__value_put_stamped(weir_state *st, const void *ns, size_t ns_len,
                            int64_t stamp, const void *val, size_t len);
int weir__map_put_stamped(weir_state *st, const void *ns, size_t ns_len,
                          const void *k, size_t klen, int64_t stamp,
                          const void *v, size_t vlen);

/*
 * The value of another key than the current one, in the empty namespace
 * of a value-like st: weir__value_get_key reads it as weir_value_get and
 * weir__value_edit_key rewrites it as weir_value_edit would after a
 * change of the current key to (key, klen), of hash key_hash
 * (weir_key_hash), but the current key stays as it is. An operator that
 * reads the keys of a batch and writes them back when the batch is done
 * spares a change of key per write (the copies of the key, the backend's
 * work at each change). Both return 1, doing nothing, where the backend
 * does not serve the key this way - RocksDB, a key group that a snapshot
 * still shares, a key of another subtask: the caller then sets the key
 * and calls weir_value_get / weir_value_edit. A pointer from
 * weir__value_get_key lives as one from weir_value_get (until the next
 * write or change of key); both count as accesses for TTL as those do.
 */
int weir__value_get_key(weir_state *st, const void *key, size_t klen,
                        uint64_t key_hash, const void **val, size_t *len);
int weir__value_edit_key(weir_state *st, const void *key, size_t klen,
                         uint64_t key_hash, size_t len, size_t keep_max,
                         weir_value_edit_fn fn, void *ud);

/* Bytes of state held (approximate), for metrics and inspect. */
uint64_t weir__backend_size_bytes(const weir__backend *be);

#endif
