/*
 * state/backend_impl.h - what a state backend implements, and the parts every
 * backend shares (internal to the state module).
 *
 * state.c owns the generic layer: argument checks, the current key, state
 * registration by name, reducing/aggregating on top of a read-modify-write
 * primitive, key visiting, and the canonical snapshot codec (snapshot.c).
 * A backend (memory_backend.c, rocksdb_backend.c) stores bytes: it embeds
 * weir__backend and weir_state as the first member of its own structs and
 * fills in weir__backend_ops.
 *
 * TTL stamps: every stored value, list element and map entry carries an
 * int64 stamp, the processing time (ms) of its last write (or read, with
 * WEIR_TTL_ON_READ_AND_WRITE). States without TTL store WEIR__NO_STAMP and
 * never read the clock.
 */
#ifndef WEIR_STATE_BACKEND_IMPL_H
#define WEIR_STATE_BACKEND_IMPL_H

#include "state/backend.h"
#include "weir/buf.h"

#define WEIR__NO_STAMP INT64_MIN

typedef struct weir__snap_writer weir__snap_writer;

/*
 * Read-modify-write of a value-like entry: old is the stored bytes (NULL when
 * absent or expired); the function writes the new bytes into out (empty on
 * entry). A non-zero return aborts the update and leaves the entry as it was.
 */
typedef int (*weir__update_fn)(void *ud, const void *old, size_t oldlen,
                               weir_buf *out);

/*
 * Backend operations. Unless noted, they act on the backend's current key
 * (set and range-checked by the generic layer) and return 0 or WEIR_E...
 * Visitor conventions are those of weir/state.h.
 */
typedef struct weir__backend_ops {
    const char *kind;
    void (*destroy)(
        weir__backend *be); /* frees the backend, its states included */
    /* A zeroed state struct of the backend's size, generic part included. */
    int (*state_create)(weir__backend *be, weir_state **out);
    /* Optional: st was bound to an operator's desc (TTL now known); what
     * a restore loaded into it before takes its layout. */
    int (*state_bound)(weir__backend *be, weir_state *st);
    /* Optional: the current key changed (it is valid in be->key). */
    int (*key_changed)(weir__backend *be);

    int (*get)(weir_state *st, const void *ns, size_t nslen, const void **val,
               size_t *len);
    int (*put)(weir_state *st, const void *ns, size_t nslen, const void *val,
               size_t len);
    int (*update)(weir_state *st, const void *ns, size_t nslen,
                  weir__update_fn fn, void *ud);
    int (*clear)(weir_state *st, const void *ns, size_t nslen);
    int (*list_add)(weir_state *st, const void *ns, size_t nslen,
                    const void *val, size_t len);
    int (*list_get)(weir_state *st, const void *ns, size_t nslen,
                    weir_list_visit_fn fn, void *ud);
    int (*map_put)(weir_state *st, const void *ns, size_t nslen, const void *k,
                   size_t klen, const void *v, size_t vlen);
    int (*map_get)(weir_state *st, const void *ns, size_t nslen, const void *k,
                   size_t klen, const void **v, size_t *vlen);
    int (*map_remove)(weir_state *st, const void *ns, size_t nslen,
                      const void *k, size_t klen);
    int (*map_iterate)(weir_state *st, const void *ns, size_t nslen,
                       weir_map_visit_fn fn, void *ud);
    /* Optional (NULL: weir_value_edit does a get and a put). */
    int (*value_edit)(weir_state *st, const void *ns, size_t nslen, size_t len,
                      size_t keep_max, weir_value_edit_fn fn, void *ud);
    /* Optional: weir__value_get_key and weir__value_edit_key (backend.h);
     * 1 where they cannot serve the key. NULL: always 1. */
    int (*get_key)(weir_state *st, const void *key, size_t klen,
                   uint64_t key_hash, const void **val, size_t *len);
    int (*value_edit_key)(weir_state *st, const void *key, size_t klen,
                          uint64_t key_hash, size_t len, size_t keep_max,
                          weir_value_edit_fn fn, void *ud);
    /* The stamp of the live value in ns (k NULL) or of its live map entry
     * k: WEIR_ENOTFOUND when absent or expired. Reads only (the stamp is
     * not renewed, nothing expired is removed). */
    int (*stamp)(weir_state *st, const void *ns, size_t nslen, const void *k,
                 size_t klen, int64_t *stamp);
    /* Optional: a hint, see weir__states_prefetch (NULL: none). */
    void (*prefetch)(weir_state *const *st, uint32_t n, const uint64_t *slot_hash, const uint64_t *rec_hash);
    /* Optional (NULL: weir_map_update does a get and a put). */
    int (*map_update)(weir_state *st, const void *ns, size_t nslen,
                      const void *k, size_t klen, size_t vlen,
                      weir_map_update_fn fn, void *ud);
    /* Optional (NULL: weir_map_rewrite does a get and a put). */
    int (*map_rewrite)(weir_state *st, const void *ns, size_t nslen,
                       const void *k, size_t klen, weir_map_rewrite_fn fn,
                       void *ud);

    /*
     * Not on the current key: appends (bytes key, bytes ns) -
     * weir_buf_put_bytes encoding - for every live entry of st in key group kg.
     */
    int (*collect_keys)(weir_state *st, uint32_t kg, weir_buf *out);
    /* Not on the current key: writes every entry of st in kg through w. */
    int (*snapshot_state)(weir_state *st, uint32_t kg, weir__snap_writer *w);
    /* Removes everything (all states) stored in key group kg. */
    int (*drop_kg)(weir__backend *be, uint32_t kg);
    /* Restore: store one value / append one list element / put one map entry
     * with its stamp. */
    int (*load_value)(weir_state *st, const void *ns, size_t nslen,
                      int64_t stamp, const void *v, size_t len);
    int (*load_list)(weir_state *st, const void *ns, size_t nslen,
                     int64_t stamp, const void *v, size_t len);
    int (*load_map)(weir_state *st, const void *ns, size_t nslen, const void *k,
                    size_t klen, int64_t stamp, const void *v, size_t vlen);
    /*
     * Optional: bulk restore. With them, a restore of kg calls load_begin,
     * then the load_* ops for every entry (in snapshot order), then
     * load_end(commit: whether every load succeeded), and not drop_kg:
     * load_end with commit replaces kg's content with what was loaded
     * since load_begin, and without commit forgets it.
     */
    int (*load_begin)(weir__backend *be, uint32_t kg);
    int (*load_end)(weir__backend *be, uint32_t kg, bool commit);
    uint64_t (*size_bytes)(const weir__backend *be);
    /*
     * Optional: asynchronous snapshots (backend.h). snap_begin pins a view on
     * the backend's thread; snap_state writes every entry of state `id` (its
     * id at begin, of kind `kind`) in kg as of begin, on any thread;
     * snap_release on any thread. Without them a snapshot is encoded whole
     * at begin.
     */
    int (*snap_begin)(weir__backend *be, void **view);
    int (*snap_state)(void *view, uint32_t id, weir_state_kind kind,
                      uint32_t kg, weir__snap_writer *w);
    void (*snap_release)(void *view);
    /* Optional: write combining (backend.h, weir__backend_write_batch). */
    int (*write_batch)(weir__backend *be, bool on);
} weir__backend_ops;

struct weir_state {
    weir__backend *be;
    uint32_t id;    /* index in be->states, stable for the backend's life */
    bool bound;     /* registered by an operator; false: created by a restore,
                       desc.name/kind only */
    int64_t ttl_ms; /* desc.ttl_ms when bound, else 0 */
    weir_state_desc desc; /* desc.name is an owned copy */
};

struct weir__backend {
    const weir__backend_ops *ops;
    uint32_t max_parallelism;
    uint32_t kg_lo, kg_hi; /* owned key groups [kg_lo, kg_hi) */
    weir_clock clock;
    weir_state **states; /* by id */
    uint32_t n_states, cap_states;

    /* The current key, its hash and key group. key is key_buf, the
     * backend's copy, or borrowed (weir__backend_use_key). */
    const uint8_t *key;
    uint8_t *key_buf;
    size_t key_len, key_cap;
    uint64_t key_hash;
    uint32_t kg;
    bool has_key;

    weir_buf scratch; /* for read-modify-write results; backends may use it
                         inside one call */
};

/* Generic part set up by a backend's create, and torn down by its destroy. */
int weir__backend_init(weir__backend *be, const weir__backend_ops *ops,
                       const weir__backend_config *cfg);
void weir__backend_fini(weir__backend *be);

int weir__memory_backend_create(const weir__backend_config *cfg,
                                weir__backend **out);
#ifdef WEIR_HAVE_ROCKSDB
int weir__rocksdb_backend_create(const weir__backend_config *cfg,
                                 weir__backend **out);
#endif

static inline bool weir__state_has_ttl(const weir_state *st)
{
    return st->ttl_ms > 0;
}

/* Whether a value stamped at stamp is expired at now under ttl_ms (> 0). */
static inline bool weir__ttl_expired(int64_t stamp, int64_t now, int64_t ttl_ms)
{
    int64_t limit;
    if (stamp == WEIR__NO_STAMP)
        return false;
    if (__builtin_sub_overflow(now, ttl_ms, &limit))
        return false;
    return stamp <= limit;
}

static inline int64_t weir__now(const weir__backend *be)
{
    return weir_clock_now(&be->clock);
}

/* Maps a user callback's return to an error: negative codes pass, positive
 * become WEIR_EUSER. */
static inline int weir__user_rc(int rc)
{
    return rc < 0 ? rc : rc > 0 ? WEIR_EUSER : 0;
}

/* ---- the canonical snapshot writer (snapshot.c), used by snapshot_state ----
 */

/* A value, reducing or aggregating entry. Expired entries are skipped. */
int weir__snap_value(weir__snap_writer *w, const void *key, size_t klen,
                     const void *ns, size_t nslen, int64_t stamp, const void *v,
                     size_t vlen);
/*
 * A list or map entry: begin, then its elements / map entries (k NULL for
 * lists), then end. Expired items are skipped; an entry left with no item is
 * dropped.
 */
int weir__snap_group_begin(weir__snap_writer *w, const void *key, size_t klen,
                           const void *ns, size_t nslen);
int weir__snap_item(weir__snap_writer *w, int64_t stamp, const void *k,
                    size_t klen, const void *v, size_t vlen);
int weir__snap_group_end(weir__snap_writer *w);

/* Codec entry points used by state.c. */
int weir__snapshot_encode(weir__backend *be, uint32_t kg, weir_buf *out);
int weir__snapshot_decode(weir__backend *be, uint32_t kg, weir_cursor *in);

/* Internal: state lookup / creation by name used by restore. */
weir_state *weir__backend_find_state(weir__backend *be, const char *name);
int weir__backend_add_state(weir__backend *be, const char *name,
                            weir_state_kind kind, weir_state **out);
/* Sets the current key without the range check (restore), computing its hash.
 */
int weir__backend_set_key_raw(weir__backend *be, const void *key, size_t len,
                              uint64_t hash);

#endif
