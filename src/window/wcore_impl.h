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
    E_STK_DIRTY = 4, /* hopping: the stacks must be rebuilt before the next firing */
    E_IN_CHG = 8,    /* listed in the changed vector */
    E_LIVE = 16,     /* in the key table */
};

struct weir__wentry {
    uint64_t hash;
    uint8_t *key;
    uint32_t key_len;
    uint8_t flags;
    wnode *head, *tail;
    wnode *mats;
    wnode *cum;
    wnode *back;
    weir_ts stk_end;      /* hopping: window end the stacks hold; WEIR_TS_MIN when empty */
    weir_ts floor;        /* windows ending at or before this were handled before a restore */
    weir_ts wake;         /* registered wheel time, WEIR_TS_MAX when none */
    struct weir__wentry *free_next;
    uint8_t key_inline[24];
};
typedef struct weir__wentry wentry;

/* A wheel bucket: the entries to visit when the watermark reaches t. */
typedef struct wbucket {
    weir_ts t;
    uint32_t n, cap;
    wentry **v;
    struct wbucket *free_next;
} wbucket;

enum { MODE_SLICED = 1, MODE_WINDOWS, MODE_SESSION, MODE_GLOBAL };

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
    int64_t size, slide, sl, off, L, gap, maxlen;
    int64_t eoff;             /* hopping: offset of the grid of window ends */
    weir_keyspec key;
    keycol kcols[WEIR_KEY_MAX_COLS];
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

    /* time */
    bool loaded;              /* state was loaded (restore) */
    weir_ts wm;
    weir_ts wm_prev;          /* watermark before the advance being processed */
    int64_t now;

    /* key table (open addressing, linear probing) */
    wentry **tab;
    uint32_t tab_cap, n_live, n_idle;
    wentry *efree;
    void **echunks;
    uint32_t n_echunks, cap_echunks;

    /* node pool */
    wnode *nfree;
    void **nchunks;
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

    /* entries changed since the last drain */
    wentry **chg;
    uint32_t chg_n, chg_cap;

    uint8_t *kbuf;
    size_t kcap;
    void *scratch;            /* an accumulator block for combining slices */
    void *scratch2;
    weir_buf sbuf;

    /* one-slice cache for the tumbling fast path */
    weir_ts cs_start, cs_end;

    weir__wcore_stats st;
};
typedef struct weir__wcore wcore;

#define ACC(n) ((void *)(n)->blk)
#define AUX(c, n) ((void *)((char *)(n)->blk + (c)->as.size))

/* shared between wcore.c and wstore.c */
wnode *weir__wnode_alloc(wcore *c, int type, weir_ts start, weir_ts end);
void weir__wnode_free(wcore *c, wnode *n);
wentry *weir__wentry_get(wcore *c, const uint8_t *key, size_t len, uint64_t hash, bool create);
void weir__wentry_changed(wcore *c, wentry *e);
int weir__wentry_settle(wcore *c, wentry *e);
void weir__list_append(wentry *e, wnode *n);

#endif
