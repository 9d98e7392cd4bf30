/*
 * window/wcore_impl.h - the window engine's data structures, shared by the
 * engine (wcore.c) and its persistence (wstore.c). Private to src/window.
 *
 * Per key, an entry holds:
 * - `head..tail`: the main list, ascending. For sliced windows (tumbling,
 *   hopping, cumulating with the event-time trigger and no early firings)
 *   it holds slices, ordered by end: each record updates exactly one slice
 *   and a firing combines slices. For other configurations it holds one
 *   node per window (ordered by end), the sessions (ordered by start) or the
 *   global window.
 * - `mats`: sliced mode only, windows that fired and are still within
 *   allowed lateness, each with its own accumulator (late records update
 *   them and cause late firings).
 * - `cum`: cumulating, the merged prefix of the current period's slices.
 * - `back` and the F_FRONT nodes: hopping's two-stacks aggregation, so a
 *   firing costs O(1) merges amortised instead of size/slide.
 */
#ifndef WEIR_WCORE_IMPL_H
#define WEIR_WCORE_IMPL_H

#include "util/bigmem.h"
#include "window/window_internal.h"

enum { NODE_SLICE = 1, NODE_WIN, NODE_SESSION, NODE_GLOBAL, NODE_CUM, NODE_RETRACT, NODE_BACK };

enum {
    F_DIRTY = 1,   /* records since the window's last firing */
    F_PREV = 2,    /* retracting: aux holds the last emitted accumulator */
    F_FRONT = 4,   /* hopping: in the front stack; aux holds the suffix aggregate */
    F_PROCREQ = 8, /* processing-time trigger: a timer at end was requested */
};

typedef struct wnode {
    struct wnode *next, *prev;
    struct wnode *retract; /* retracting: earlier results to retract (-D) at the next firing */
    weir_ts start, end;
    weir_ts max_ts;        /* latest record timestamp (session cap, global row time) */
    int64_t due;           /* processing time of a pending early/late firing, or INT64_MAX */
    uint64_t count;        /* records since the last firing (count triggers) */
    uint8_t type, flags;
    uint64_t blk[];        /* the accumulator block, then the aux block when the layout has one */
} wnode;

enum {
    E_CHANGED = 1,   /* changed since the last drain (its state entry must be rewritten) */
    E_IN_STATE = 2,  /* has an entry in keyed state */
    E_IN_CHG = 8,    /* listed in the changed vector */
    E_LIVE = 16,     /* in the key table */
    E_IDLE = 32,     /* holds nothing */
    E_STALE = 64,    /* found idle by the last sweep */
};

typedef struct sslice sslice;

/*
 * The first cache line holds what a record's lookup and routing touch
 * (hash, key, its slice cache and record count): 10,000 keys of two lines
 * each would not fit in a core's cache, and every record looks one up.
 * Entries are 128 bytes and placed at 64-byte boundaries (entry_alloc).
 */
struct weir__wentry {
    uint64_t hash;
    uint8_t *key;         /* key_inline, or an allocation for longer keys */
    sslice *cs_slice;     /* sliced mode: the slice of its last record (NULL: none cached) ... */
    uint32_t key_len;
    uint32_t nrec;        /* records in slice tables (sliced mode) */
    uint32_t run_idx;     /* hopping: a hint, the number of its record in the running sum c->run */
    uint32_t cs_rec;      /* ... and the number of its record there */
    uint8_t flags;
    uint8_t key_inline[23];
    /* second cache line */
    wnode *head, *tail;   /* windows, sessions or the global window (not sliced mode) */
    wnode *mats;          /* sliced mode: fired windows within allowed lateness */
    weir_ts floor;        /* windows ending at or before this were handled before a restore */
    weir_ts wake;         /* registered wheel time, WEIR_TS_MAX when none */
    struct weir__wentry *free_next;
    uint64_t spare_[2];
};
_Static_assert(sizeof(struct weir__wentry) == 128, "a key entry is two cache lines");
typedef struct weir__wentry wentry;

/* A slice table (slices.c): per key one accumulator for the slice [start, end). */
struct sslice {
    weir_ts start, end;
    weir_ts first, last;  /* ends of the first and the last window containing the slice */
    uint32_t n;           /* records */
    uint32_t n_chunks, cap_chunks;
    uint8_t **chunks;     /* records (entry pointer, accumulator), 256 per chunk; never move */
    void **blocks;        /* the memory of the chunks (util/bigmem.h) */
    uint32_t n_blocks, cap_blocks;
    uint8_t *bnext, *bend; /* the newest block's bytes not yet in a chunk */
    uint32_t *idx;        /* open addressing by key hash: record number + 1, 0 = free */
    uint32_t idx_cap;
    sslice *next, *prev;  /* the live list, ascending by end */
    bool in_list;
    bool scratch;         /* a scratch table: its records are not the keys' state */
    bool in_run;          /* hopping: folded into the running sum c->run */
};

/* A wheel bucket: the entries to visit when the watermark reaches t. */
typedef struct wbucket {
    weir_ts t;
    uint32_t n, cap;
    wentry **v;
    struct wbucket *free_next;
} wbucket;

enum { MODE_SLICED = 1, MODE_WINDOWS, MODE_SESSION, MODE_GLOBAL };

/*
 * A slot of the key table: the entry and a copy of its hash, so a probe
 * compares hashes in the table's own cache line and reads only the entry it
 * finds (a slot of another key costs no miss), and the table grows without
 * reading the entries.
 */
typedef struct wslot {
    uint64_t hash;
    wentry *e; /* NULL: free */
} wslot;

typedef struct keycol {
    weir_type_id type;
    uint32_t width;
    bool is_string;
} keycol;

struct weir__wcore {
    /* configuration */
    weir_window_kind kind;
    int mode;
    weir_trigger_kind base;   /* resolved trigger */
    uint64_t trig_count;
    int64_t early_ms, late_ms;
    uint64_t early_count;
    bool purge;               /* discarding or purging: contents cleared after each firing */
    weir_window_accumulation accm;
    bool proc_domain;
    bool proc_row_ts;         /* processing time: rows are assigned by b->ts, not by now_ms (set_proc_row_ts) */
    int64_t size, slide, sl, off, L, gap, maxlen;
    int64_t eoff;             /* hopping: offset of the grid of window ends */
    weir_keyspec key;
    keycol kcols[WEIR_KEY_MAX_COLS];
    bool key_fixed;           /* no STRING/BYTES key column: keys encode without weir_key_encode */
    size_t key_max;           /* then: the longest encoded key */
    weir__accset as;
    uint32_t nblk;            /* blocks per node: 1, or 2 with an aux block */
    size_t node_size;
    uint32_t col_ws, col_we;  /* output columns */
    int32_t col_wt;
    uint32_t col_agg0;
    uint32_t n_in_cols;

    const weir_schema *in_schema;
    weir_batch *out, *late;
    weir__wcore_io io;
    uint32_t tick;            /* steps of firing loops, see weir__wcore_tick */

    /* time */
    bool loaded;              /* state was loaded (restore) */
    weir_ts wm;
    weir_ts wm_prev;          /* watermark before the advance being processed */
    int64_t now;

    /* key table (open addressing, linear probing) */
    wslot *tab;
    uint32_t tab_cap, n_live, n_idle;
    uint32_t n_key_heap;      /* entries whose key is a heap allocation (longer than key_inline) */
    wentry *efree;
    wentry *ebump, *eend;     /* the newest entry block's entries not handed out yet */
    uint32_t eblock;          /* entries in the newest block */
    void **echunks;           /* the entry blocks (util/bigmem.h) */
    uint32_t n_echunks, cap_echunks;

    /* node pool: the free list, else the newest block front to back (as the entries) */
    wnode *nfree;
    char *nbump, *nend;
    uint32_t nblock;          /* nodes in the newest block */
    void **nchunks;           /* the node blocks (util/bigmem.h) */
    uint32_t n_nchunks, cap_nchunks;
    uint64_t n_nodes;

    /* event-time wheel */
    wbucket **heap;
    uint32_t n_heap, cap_heap;
    wbucket *bcache[64];
    wbucket *bfree;

    /* rows waiting to be folded into accumulators */
    void **pend_blk;
    uint32_t *pend_row;
    int8_t *pend_sign;
    uint32_t pend_n, pend_cap;
    bool pend_signed;
    const weir_batch *pend_b;

    /* slice store (slices.c) */
    sslice *s_head, *s_tail, *s_last;
    /* The live slices again, ordered by end, for lookups by binary search:
     * with splits far apart in event time a record's slice can lie behind
     * thousands of newer ones. Entries [s_ord_lo, s_ord_lo + s_ord_n). */
    sslice **s_ord;
    uint32_t s_ord_lo, s_ord_n, s_ord_cap;
    sslice *sfree;
    sslice *cum;              /* cumulating: the running table of the current period */
    sslice *tmp;              /* hopping: scratch table for combining slices */
    size_t rec_size;
    size_t rec_key_off;       /* where a record keeps a copy of its key's bytes, 0 if it does not */
    bool emit_many;           /* slices emit with weir__emit_many (key copies in records, no lateness) */
    bool emit_fused;          /* ... and with weir__emit_fused (one 8-byte key, integer COUNT/SUM) */
    sslice *run;              /* hopping, all_int: the running sum of the slices marked in_run */
    weir_ts run_end;          /* ... which are the live slices ending at or before this; WEIR_TS_MIN: none */
    uint32_t run_zeros;       /* about how many of c->run's records are all zero (see slices.c) */
    uint32_t srec_last;       /* the number of the record srec_get returned last */
    weir_ts cum_ds, cum_de;   /* cumulating: the period table's [start, end) when drained last */
    uint64_t n_recs;
    weir_ts armed;            /* processing-time domain: the slice store's requested timer */

    /* entries changed since the last drain */
    wentry **chg;
    uint32_t chg_n, chg_cap;
    bool chg_lost;            /* an entry could not be listed (no memory): the drain scans the table */
    weir_ts floor_max;        /* the largest floor loaded */

    uint8_t *kbuf;            /* the encoded keys of the batch being processed */
    size_t kcap;
    /* per row of that batch: key offset and length in kbuf, hash, entry */
    uint32_t *r_koff, *r_klen;
    uint64_t *r_hash;
    wentry **r_ent;
    uint32_t rows_cap;
    void *scratch;            /* an accumulator block for combining slices */
    void *scratch2;
    weir_buf sbuf;

    /* one-slice cache: most records fall into the slice of the record before */
    weir_ts cs_start, cs_end;
    weir_ts cs_first, cs_last; /* hopping: ends of the first and last window of that slice */
    weir_ts cs_base;           /* cumulating: start of its period */
    weir_ts ga_in, ga_out;     /* grid_after cache */

    weir__wcore_stats st;
};
typedef struct weir__wcore wcore;

#define ACC(n) ((void *)(n)->blk)
#define AUX(c, n) ((void *)((char *)(n)->blk + (c)->as.size))

/* shared by wcore.c, slices.c and wstore.c */
wnode *weir__wnode_alloc(wcore *c, int type, weir_ts start, weir_ts end);
void weir__wnode_free(wcore *c, wnode *n);
wentry *weir__wentry_get(wcore *c, const uint8_t *key, size_t len, uint64_t hash, bool create);
/* Appends p to the growing array *v of *n pointers (room for *cap). */
int weir__wpush_ptr(void ***v, uint32_t *n, uint32_t *cap, void *p);
void weir__wentry_changed(wcore *c, wentry *e);
/* weir__wentry_changed for the per-record path: the flag is on the entry's hot line. */
static inline void weir__wentry_touch(wcore *c, wentry *e)
{
    if (__builtin_expect(!(e->flags & E_CHANGED), 0))
        weir__wentry_changed(c, e);
}
int weir__wentry_settle(wcore *c, wentry *e);
void weir__list_append(wentry *e, wnode *n);
/*
 * An entry holds nothing: no slice records and no nodes. The record count
 * is on the entry's first cache line; with no node allocated anywhere (the
 * sliced mode without allowed lateness) the second line is not read.
 */
static inline bool weir__entry_empty(const wcore *c, const wentry *e)
{
    return !e->nrec && (!c->n_nodes || (!e->head && !e->mats));
}

/* An entry whose last window went away counts as idle (sweepable). */
static inline void weir__entry_maybe_idle(wcore *c, wentry *e)
{
    if (weir__entry_empty(c, e) && !(e->flags & E_IDLE)) {
        e->flags |= E_IDLE;
        c->n_idle++;
    }
}

static inline void weir__entry_busy(wcore *c, wentry *e)
{
    if (e->flags & E_IDLE) {
        e->flags &= (uint8_t)~(E_IDLE | E_STALE);
        c->n_idle--;
    }
}
int weir__pend_flush(wcore *c);
int weir__emit_late_row(wcore *c, const weir_batch *b, uint32_t row, weir_ts ts);
/* key: the key's bytes when the caller has them at hand (else e->key is read) */
int weir__emit_sliced(wcore *c, wentry *e, const uint8_t *key, weir_ts start, weir_ts end, const void *blk);
int weir__route_mat(wcore *c, wentry *e, uint32_t row, weir_ts start, weir_ts end, int sign);
/*
 * Emits n results of window [start, end) as +I rows, column by column:
 * keys[i] is a key in weir_key_encode's format, blks[i] a non-empty
 * accumulator. Only when c->emit_many (no allowed lateness, fixed-width keys).
 */
int weir__emit_many(wcore *c, const uint8_t *const *keys, const void *const *blks, uint32_t n, weir_ts start,
                    weir_ts end);
/* Whether weir__emit_fused applies: one 8-byte key column, integer COUNT/SUM into BIGINT or DECIMAL. */
bool weir__emit_fused_ok(const wcore *c);
/*
 * As weir__emit_many for n records laid out every stride bytes from recs,
 * each with its key (weir_key_encode's format) at key_off and its
 * accumulator at acc_off; empty accumulators are skipped. Only when
 * c->emit_many and weir__emit_fused_ok.
 */
int weir__emit_fused(wcore *c, const uint8_t *recs, uint32_t n, size_t stride, size_t key_off, size_t acc_off,
                     weir_ts start, weir_ts end);

int weir__sliced_init(wcore *c);
void weir__sliced_destroy(wcore *c);
/* Stage 3 of weir__wcore_process in the sliced mode: routes every row of b (entries in c->r_ent). */
int weir__sliced_route_rows(wcore *c, const weir_batch *b, int64_t now_ms);
int weir__sliced_fire(wcore *c, weir_ts after, weir_ts W);
int weir__sliced_arm(wcore *c);
/* Drops the running sum's zero records, which may name idle entries (before a sweep). */
void weir__sliced_compact(wcore *c);
typedef int (*weir__sliced_rec_fn)(void *ud, wentry *e, uint32_t order, int type, weir_ts start, weir_ts end,
                                   void *acc);
/*
 * Visits the e->nrec records of entry e, slices in list order, then the
 * cumulating period table: one index probe per live slice, no scan.
 * WEIR_ESTATE when fewer records than e->nrec were found.
 */
/*
 * Before a drain: the period table's records carry its end, which moves at
 * each step's firing; when it moved since the last drain, its keys changed.
 */
void weir__sliced_mark_moved(wcore *c);
int weir__sliced_visit_key(wcore *c, wentry *e, weir__sliced_rec_fn fn, void *ud);
void *weir__sliced_load_acc(wcore *c, wentry *e, int type, weir_ts start, weir_ts end);

/* Rows waiting to be folded into accumulators (flushed before anything reads them). */
static inline int weir__pend_add(wcore *c, void *blk, uint32_t row, int sign)
{
    if (c->pend_n == c->pend_cap) {
        int rc = weir__pend_flush(c);
        if (rc)
            return rc;
    }
    uint32_t i = c->pend_n++;
    c->pend_blk[i] = blk;
    c->pend_row[i] = row;
    c->pend_sign[i] = (int8_t)sign;
    if (sign < 0)
        c->pend_signed = true;
    return 0;
}

/* Smallest point of the grid off + k*step strictly after t. */
static inline weir_ts weir__grid_after(weir_ts t, int64_t off, int64_t step)
{
    if (t == WEIR_TS_MIN)
        return WEIR_TS_MIN;
    return weir__ts_add(weir_window_align(t, off, step), step);
}

/* Smallest grid point >= t. */
static inline weir_ts weir__grid_ceil(weir_ts t, int64_t off, int64_t step)
{
    if (t == WEIR_TS_MIN)
        return WEIR_TS_MIN;
    return weir__grid_after(t - 1, off, step);
}

/* weir__grid_after with a one-entry cache: all keys visited in one advance ask for the same t. */
static inline weir_ts weir__grid_after_cached(wcore *c, weir_ts t, int64_t off, int64_t step)
{
    if (t != c->ga_in) {
        c->ga_in = t;
        c->ga_out = weir__grid_after(t, off, step);
    }
    return c->ga_out;
}

/*
 * A step of a loop whose length the data decides (windows fired by one
 * watermark, keys visited): every WCORE_TICK steps it asks whether the job
 * is being canceled, so a stop never waits for a firing of millions of
 * windows. One counter increment per step, no clock read.
 */
#define WCORE_TICK 1024u
static inline int weir__wcore_tick(wcore *c)
{
    if (++c->tick % WCORE_TICK || !c->io.interrupted)
        return 0;
    return c->io.interrupted(c->io.ud);
}

#endif
