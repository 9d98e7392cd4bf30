/*
 * ops/group_agg.c - updating (changelog) group aggregation.
 *
 * State per group key: one value holding the row count (net of
 * retractions) followed by each accumulator's canonical bytes. For every
 * input row the operator computes the previous result from the group's
 * accumulators, applies the row, computes the new result, and emits the
 * change. Unchanged results emit nothing (like Flink without state TTL).
 * The whole change for a row is decided before the next row, so the
 * changelog is the same for every batching of the input.
 *
 * Within one input batch a group's accumulators are restored from state
 * once, at its first row, kept live in a per-batch slot for its later rows,
 * and written back once at the end of the batch (or cleared, when its rows
 * were all retracted). Restoring and serialising per row made a row cost
 * O(size of the accumulators) - for COUNT(DISTINCT) the number of distinct
 * values of the group - and a hot group O(n^2) over the stream. Barriers
 * and watermarks come between batches, so state is complete whenever it is
 * snapshotted.
 *
 * Mini-batch (table.exec.mini-batch.enabled): a slot also keeps the group's
 * result from before the batch (keep_old: its int64 results as values, the
 * others in a row of `before`) and the input rows that first and last
 * touched it; rows only update the accumulators, and when the slots
 * are written back each group emits its net change over the batch: +I,
 * -U/+U, -D, or nothing when its result is unchanged. The input batch is
 * the mini-batch, so no latency is added; a group changed by k rows of a
 * batch emits one change instead of k.
 *
 * FILTER (WHERE ...): an aggregate with a filter column sees only the rows
 * where that column is TRUE.
 *
 * COUNT(DISTINCT): without state TTL its values live outside the
 * accumulator, and the group's value keeps only {rows, non-NULL rows,
 * distinct values} for it - so a row costs one lookup of its value, not a
 * copy of the whole value set (which made q15/q16's cost grow with the
 * stream). The COUNT(DISTINCT)s of one column share a view, as in Flink:
 * one entry per (column, value) holding each sharing aggregate's live
 * occurrences of the value, so COUNT(DISTINCT x) FILTER (WHERE a), ...
 * FILTER (WHERE b) cost one entry. The values live in keyed map state
 * "group-agg-distinct" (on RocksDB: on disk), behind a bounded cache
 * (ops/group_distinct.c: one probe per value). The cache writes the values
 * that changed to map state when a checkpoint's snapshot starts - the
 * runtime snapshots keyed state right after - and, between two input
 * batches, when it holds more than distinct_cache_bytes: then it writes
 * its changes and forgets everything. A group met for the first time
 * since then (or since the start, a restore, a rescale) with no rows in
 * state is new: complete in the cache. One with a few values has them
 * loaded from map state at once; one with more has each value read from
 * map state when a row first brings it. A group whose rows are all
 * retracted has every value at zero: the next write of the changes
 * removes them from map state. With TTL the set stays inside the
 * accumulator, in the group's value, and expires with it: map entries
 * would expire one by one, behind the count that depends on them.
 *
 * With the views, the groups' counts and accumulators are held in the
 * operator between batches as well, beside the cache's groups (the
 * group's number there finds its slot in the batch): a group costs no
 * value-state read and write and no second lookup per batch. Those that
 * changed are written to value state with the views' values: at a
 * snapshot, and before the cache is emptied. A group the cache does not
 * hold is read from value state.
 */
#include <stddef.h>
#include <string.h>

#include "agg/distinct.h"
#include "agg/merge.h"
#include "ops/group_distinct.h"
#include "ops/ops.h"
#include "util/hindex.h"
#include "weir/state.h"

typedef struct ga_conf {
    weir_keyspec keys;
    uint32_t n_aggs;
    weir_agg *aggs;
    const weir_schema *out;
    int64_t ttl_ms;
    bool mini_batch;
    uint64_t distinct_cache_bytes;
    int32_t *filter;  /* per aggregate: FILTER column or -1 */
    uint8_t *res;     /* per aggregate: how write_result writes its result (GA_RES_*) */
    bool *ext;        /* per aggregate: a COUNT(DISTINCT) whose values are in map state */
    bool any_ext;
    /* ext aggregates: the view (the first ext aggregate of the same column) and the
     * position among its sharers; width: the number of sharers, at the view's index */
    uint32_t *view, *view_pos, *view_width;
    /* the view at index v lists its sharers in order at sharer[sharer_off[v]], view_width[v] of them */
    uint32_t *sharer, *sharer_off;
    /* the aggregates a row is applied to, in order: every one but a view's other sharers (the view's first
     * applies them all); of those, the views' first sharers (vhead, n_views) */
    uint32_t *applied, n_applied, *vhead, n_views;
    /* with at most 64 aggregates and a FILTER among them: a row's answers as one mask (bit i: aggregate i
     * takes the row, filter_masks), and per view its sharers' bits (at the view's index) */
    bool masked;
    uint64_t *vbits;
} ga_conf;

/* The accumulator of a COUNT(DISTINCT) whose values are in map state. */
typedef struct ga_dist {
    int64_t rows;    /* rows net of retractions, NULLs included */
    int64_t nonnull; /* of which non-NULL */
    int64_t n;       /* distinct values: map entries */
} ga_dist;

/* How a result is written: an int64 of the accumulator stored into a BIGINT column (COUNT(DISTINCT) as
 * held here, COUNT(*)), or by the function's result writer (its checks and type switch) */
enum { GA_RES_ANY, GA_RES_DIST, GA_RES_STAR };

#define GA_KEY_MAX 1024 /* the longest group key, encoded */
/* How many rows ahead of the row applied key_ahead, the prefetch of its group's entry and views_prefetch look. */
#define GA_KEY_AHEAD 12
#define GA_ENTRY_AHEAD 8
#define GA_PREFETCH_AHEAD 6
#define GA_RING 16 /* rows of encoded keys kept (more than GA_KEY_AHEAD) */

/* What apply_row does for an aggregate it applies a row to (conf->applied). */
enum { GA_STEP_ADD, GA_STEP_STAR, GA_STEP_VIEW };

/*
 * One aggregate of apply_row's plan: its number, what is done (GA_STEP_STAR:
 * a COUNT(*) written as an int64, GA_STEP_VIEW: a view's first sharer, for
 * all its sharers, GA_STEP_ADD: the function's add or retract) and where
 * its accumulator lies in a group's block. Read from one place per step,
 * not from four arrays, and as a uint32_t, which no int64 store of the
 * apply may alias (acc_off's size_t was loaded again after each).
 */
typedef struct ga_step {
    uint32_t agg;
    uint32_t off;
    uint8_t kind;
} ga_step;

/* A row's group key, encoded and hashed once for its prefetch and its apply. */
typedef struct ga_rowkey {
    size_t klen; /* over GA_KEY_MAX: too long (not encoded) */
    uint64_t h;
    uint8_t key[GA_KEY_MAX];
} ga_rowkey;

/* A row's value of one view, encoded and hashed once for its prefetch and its apply (views_prefetch). */
typedef struct ga_rowval {
    weir_buf val; /* its canonical bytes (weir__agg_distinct_key) */
    uint64_t h;   /* weir__gd_value_hash of them */
    int rc;       /* of the encoding: nonzero, view_apply fails the row with it (when a FILTER lets it in) */
    bool present; /* not NULL */
} ga_rowval;

/* One group met in the current batch. */
typedef struct ga_slot {
    size_t koff;     /* key bytes at kbuf + koff */
    uint32_t klen;
    uint64_t hash;
    int64_t count;   /* rows net of retractions; 0: the group is empty (cleared at the end) */
    /* mini-batch: */
    bool had;        /* the group had a result before the batch: kept by keep_old (slot s: row s of g->before) */
    uint32_t first;  /* the input row that first met it in the batch (the old result's key columns) */
    uint32_t last;   /* the input row that last changed it (for its key columns and time) */
    uint32_t grp;    /* its group in g->dt (with COUNT(DISTINCT) views) */
} ga_slot;

/*
 * A group's result before the batch (mini-batch) or before the row, kept
 * in parts until it is emitted: its key columns are those of input row
 * key_row, its int64 results (the fast plan) at fast, the others in row
 * brow of rest. Written into the output only when it is emitted: as a
 * whole row of its own it was written once and copied once more (q16:
 * 630 and 813 instructions per -U row).
 */
typedef struct ga_old {
    uint32_t key_row;
    const int64_t *fast;
    const weir_batch *rest;
    uint32_t brow;
} ga_old;

typedef struct ga {
    const ga_conf *conf;
    weir_state *st;
    weir_state *dst;      /* COUNT(DISTINCT) values: ns = aggregate number, key = value, value = occurrences */
    gd_table *dt;         /* the views' values, held between checkpoints (written to dst at a snapshot) */
    uint32_t *vnum;       /* per aggregate that is a view: its number in dt */
    weir_batch *out;      /* output being filled */
    weir_batch *prev;     /* one-row scratch: the results before the row that are not in bfast (keep_old) */
    weir_batch *cur;      /* one-row scratch: new result */
    weir_batch *before;   /* mini-batch: per slot, the results before the batch that are not in bfast (keep_old;
                           * cap_slots rows) */
    weir_schema *rest;    /* prev's and before's: the slow plan's columns, in order (with n_slow > 0) */
    int64_t *bfast;       /* the fast plan's results before the batch (per slot, n_fast each) or the row */
    weir_batch *old1;     /* one-row scratch: an old result in full (an output of one row) */
    ga_old row_old;       /* without mini-batch: the result before the row (bfast, prev; key_row set per row) */
    const weir_batch *in; /* mini-batch: the input batch being processed */
    uint32_t in_row;      /* mini-batch: its row being applied */
    size_t *acc_off;      /* accumulator i of a slot at acc_off[i]; acc_off[n_aggs]: the slot size */
    ga_step *steps;       /* apply_row's plan: one per conf->applied, in order */
    uint32_t *sh_off;     /* per entry of conf->sharer: that sharer's acc_off, as view_apply reads it */
    /* write_result's plan: n_fast results that are an int64 of the accumulators (at fast_off) stored
     * into BIGINT column fast_col (GA_RES_DIST, GA_RES_STAR), then the aggregates slow[0..n_slow) by
     * their result writers */
    uint32_t n_fast, n_slow;
    uint32_t *fast_col, *slow;
    size_t *fast_off;
    weir_buf val;         /* state value being built */
    uint8_t key[GA_KEY_MAX];
    ga_rowkey *ring;      /* with views: row r's group key at ring[r % GA_RING] (key_ahead) */
    ga_rowval *vring;     /* and its value of view n at vring[(r % GA_RING) * conf->n_views + n] (views_prefetch) */
    uint64_t *n_updates;
    uint64_t *n_evictions;  /* times the COUNT(DISTINCT) cache outgrew its bound and was emptied */
    uint64_t *cache_peak;   /* the most bytes it held at the end of a batch */
    uint64_t cache_limit;   /* its bound in bytes (UINT64_MAX: none), set at open */
    /* the groups of the current batch: slots, their keys, and a hash index */
    ga_slot *slots;
    uint8_t *slot_accs;   /* cap_slots * acc_off[n_aggs] bytes (without views: with them a slot uses held) */
    uint32_t n_slots, cap_slots;
    uint8_t *kbuf;        /* the slots' key bytes */
    size_t kbuf_len, kbuf_cap;
    uint32_t *index;      /* open addressing: slot + 1, 0 empty; 2 * cap_slots entries */
    uint32_t index_mask;
    /* with views: per group of dt, its count and accumulators held between batches
     * (written to state at a snapshot and before dt is reset) */
    uint8_t *held;        /* cap_held * acc_off[n_aggs] bytes */
    int64_t *hcount;
    uint8_t *hflag;       /* GA_HELD, GA_DIRTY */
    uint32_t *hslot;      /* its slot + 1 in the current batch, 0: none */
    uint32_t cap_held;
    uint32_t *dirty;      /* the groups changed since their last write to state */
    uint32_t n_dirty, cap_dirty;
    uint64_t *fmask;      /* conf->masked: per row of the batch, the aggregates whose FILTER takes it */
    uint32_t cap_fmask;
} ga;

#define GA_HELD 1u  /* count and accumulators held (owned by held, not by a slot) */
#define GA_DIRTY 2u /* listed in dirty: state is behind */

static void conf_free(void *arg)
{
    ga_conf *c = arg;
    if (!c)
        return;
    weir_free(c->aggs);
    weir_free(c->ext);
    weir_free(c->filter);
    weir_free(c->res);
    weir_free(c->view);
    weir_free(c->view_pos);
    weir_free(c->view_width);
    weir_free(c->sharer);
    weir_free(c->sharer_off);
    weir_free(c->applied);
    weir_free(c->vhead);
    weir_free(c->vbits);
    weir_free(c);
}

static size_t align8(size_t n) { return (n + 7) & ~(size_t)7; }

static int ga_create(void *arg, const weir_op_info *info, void **out_op)
{
    const ga_conf *c = arg;
    ga *g = weir_calloc(1, sizeof *g);
    if (!g)
        return WEIR_ENOMEM;
    g->conf = c;
    weir_buf_init(&g->val);
    g->acc_off = weir_calloc(c->n_aggs + 1, sizeof *g->acc_off);
    if (!g->acc_off)
        goto fail;
    size_t total = 0;
    for (uint32_t i = 0; i < c->n_aggs; i++) {
        g->acc_off[i] = total;
        total += align8(c->ext[i] ? sizeof(ga_dist) : c->aggs[i].cls->acc_size(&c->aggs[i]));
    }
    g->acc_off[c->n_aggs] = total;
    if (total > UINT32_MAX) /* a block's offsets are uint32s in steps and sh_off */
        goto fail;
    g->steps = weir_calloc(c->n_applied + 1, sizeof *g->steps);
    g->sh_off = weir_calloc(c->n_aggs + 1, sizeof *g->sh_off);
    if (!g->steps || !g->sh_off)
        goto fail;
    for (uint32_t k = 0; k < c->n_applied; k++) {
        uint32_t i = c->applied[k];
        uint8_t kind = c->ext[i] ? GA_STEP_VIEW : c->res[i] == GA_RES_STAR ? GA_STEP_STAR : GA_STEP_ADD;
        g->steps[k] = (ga_step){.agg = i, .off = (uint32_t)g->acc_off[i], .kind = kind};
    }
    for (uint32_t i = 0; i < c->n_aggs; i++) /* the sharers' entries of conf->sharer: n_aggs at most */
        if (c->ext[i])
            g->sh_off[c->sharer_off[c->view[i]] + c->view_pos[i]] = (uint32_t)g->acc_off[i];
    g->fast_col = weir_calloc(c->n_aggs + 1, sizeof *g->fast_col);
    g->fast_off = weir_calloc(c->n_aggs + 1, sizeof *g->fast_off);
    g->slow = weir_calloc(c->n_aggs + 1, sizeof *g->slow);
    if (!g->fast_col || !g->fast_off || !g->slow)
        goto fail;
    for (uint32_t i = 0; i < c->n_aggs; i++) {
        if (c->res[i] == GA_RES_ANY) {
            g->slow[g->n_slow++] = i;
            continue;
        }
        g->fast_col[g->n_fast] = c->keys.n + i;
        g->fast_off[g->n_fast++] = g->acc_off[i] + (c->res[i] == GA_RES_DIST ? offsetof(ga_dist, n) : 0);
    }
    if (c->any_ext) {
        g->vnum = weir_calloc(c->n_aggs, sizeof *g->vnum);
        uint32_t *widths = weir_calloc(c->n_aggs, sizeof *widths);
        /* the views numbered as the spec listed their first sharers (vhead) */
        uint32_t nv = c->n_views;
        for (uint32_t k = 0; g->vnum && widths && k < nv; k++) {
            g->vnum[c->vhead[k]] = k;
            widths[k] = c->view_width[c->vhead[k]];
        }
        g->ring = weir_calloc(GA_RING, sizeof *g->ring);
        g->vring = weir_calloc((size_t)GA_RING * c->n_views, sizeof *g->vring);
        for (size_t k = 0; g->vring && k < (size_t)GA_RING * c->n_views; k++)
            weir_buf_init(&g->vring[k].val);
        int rc = g->vnum && widths && g->ring && g->vring ? weir__gd_create(nv, widths, &g->dt) : WEIR_ENOMEM;
        weir_free(widths);
        if (rc)
            goto fail;
    }
    g->cap_slots = info->batch_size ? info->batch_size : 1;
    uint32_t ix = 2;
    while (ix < 2 * g->cap_slots)
        ix *= 2;
    g->index_mask = ix - 1;
    g->slots = weir_calloc(g->cap_slots, sizeof *g->slots);
    g->slot_accs = weir_calloc((size_t)g->cap_slots * (total ? total : 1), 1);
    g->index = weir_calloc(ix, sizeof *g->index);
    /* allocated up front: a global aggregation's keys are empty and never grow it, and
     * memcpy/memcmp must not see a NULL buffer */
    g->kbuf_cap = 4096;
    g->kbuf = weir_malloc(g->kbuf_cap);
    g->out = weir_batch_create(c->out, info->batch_size);
    /* the results of the slow plan kept (keep_old) in batches of their columns only: a row of them is
     * appended for each group of a batch */
    const weir_schema *rs = c->out;
    if (g->n_slow) {
        if (!(g->rest = weir_schema_create()))
            goto fail;
        for (uint32_t k = 0; k < g->n_slow; k++) {
            const weir_field *f = &c->out->fields[c->keys.n + g->slow[k]];
            if (weir_schema_add(g->rest, f->name, f->type) < 0)
                goto fail;
        }
        rs = g->rest;
    }
    g->prev = weir_batch_create(rs, 1);
    g->cur = weir_batch_create(c->out, 1);
    g->old1 = weir_batch_create(c->out, 1);
    g->bfast = weir_calloc((size_t)g->cap_slots * g->n_fast + 1, sizeof *g->bfast);
    if (c->mini_batch && !(g->before = weir_batch_create(rs, g->cap_slots)))
        goto fail;
    if (!g->slots || !g->slot_accs || !g->index || !g->kbuf || !g->out || !g->prev || !g->cur || !g->old1 || !g->bfast)
        goto fail;
    g->row_old = (ga_old){.fast = g->bfast, .rest = g->prev};
    *out_op = g;
    return 0;
fail:
    *out_op = g;
    return WEIR_ENOMEM;
}

uint64_t weir__distinct_cache_default = 128u << 20;

static int ga_open(void *op, weir_op_ctx *ctx)
{
    ga *g = op;
    weir_state_desc d = {.name = "group-agg", .kind = WEIR_STATE_VALUE, .ttl_ms = g->conf->ttl_ms};
    g->n_updates = weir_op_counter(ctx, "updates_emitted");
    int rc = weir_op_get_state(ctx, &d, &g->st);
    if (rc || !g->conf->any_ext)
        return rc;
    g->n_evictions = weir_op_counter(ctx, "distinct_cache_evictions");
    g->cache_peak = weir_op_counter(ctx, "distinct_cache_peak_bytes");
    weir_state_desc dd = {.name = "group-agg-distinct", .kind = WEIR_STATE_MAP};
    if ((rc = weir_op_get_state(ctx, &dd, &g->dst)))
        return rc;
    g->cache_limit = g->conf->distinct_cache_bytes;
    if (!g->cache_limit)
        g->cache_limit = weir_state_in_memory(g->dst) ? UINT64_MAX : weir__distinct_cache_default;
    return 0;
}

static uint8_t *held_accs(ga *g, uint32_t grp) { return g->held + (size_t)grp * g->acc_off[g->conf->n_aggs]; }

/*
 * A slot's accumulators: with views, where its group's are held (the slot
 * owns them until slots_flush; found anew each time, as held may move
 * when it grows), else the slot's own.
 */
static uint8_t *slot_accs(ga *g, uint32_t slot)
{
    return g->dt ? held_accs(g, g->slots[slot].grp) : g->slot_accs + (size_t)slot * g->acc_off[g->conf->n_aggs];
}

static void accs_destroy(ga *g, uint8_t *accs)
{
    for (uint32_t i = 0; i < g->conf->n_aggs; i++) {
        const weir_agg *a = &g->conf->aggs[i];
        if (!g->conf->ext[i] && a->cls->destroy)
            a->cls->destroy(a, accs + g->acc_off[i]);
    }
}

static void accs_init(ga *g, uint8_t *accs)
{
    for (uint32_t i = 0; i < g->conf->n_aggs; i++) {
        if (g->conf->ext[i])
            memset(accs + g->acc_off[i], 0, sizeof(ga_dist));
        else
            g->conf->aggs[i].cls->init(&g->conf->aggs[i], accs + g->acc_off[i]);
    }
}

static int dist_get(weir_cursor *c, ga_dist *d)
{
    uint64_t rows, nonnull, n;
    if (weir_cursor_get_varint(c, &rows) || weir_cursor_get_varint(c, &nonnull) || weir_cursor_get_varint(c, &n) ||
        nonnull > rows || n > nonnull || rows > INT64_MAX)
        return WEIR_ECORRUPT;
    *d = (ga_dist){(int64_t)rows, (int64_t)nonnull, (int64_t)n};
    return 0;
}

static int dist_put(weir_buf *b, const ga_dist *d)
{
    int rc = weir_buf_put_varint(b, (uint64_t)d->rows);
    if (!rc)
        rc = weir_buf_put_varint(b, (uint64_t)d->nonnull);
    return rc ? rc : weir_buf_put_varint(b, (uint64_t)d->n);
}

/* Loads count and accumulators for the current key into accs; *count 0 when new. */
static int load(ga *g, uint8_t *accs, int64_t *count)
{
    const void *v;
    size_t len;
    int rc = weir_value_get(g->st, NULL, 0, &v, &len);
    if (rc == WEIR_ENOTFOUND) {
        *count = 0;
        accs_init(g, accs);
        return 0;
    }
    if (rc)
        return rc;
    weir_cursor c;
    weir_cursor_init(&c, v, len);
    rc = weir_cursor_get_i64(&c, count);
    for (uint32_t i = 0; !rc && i < g->conf->n_aggs; i++) {
        if (g->conf->ext[i]) {
            rc = dist_get(&c, (ga_dist *)(void *)(accs + g->acc_off[i]));
            if (rc)
                memset(accs + g->acc_off[i], 0, sizeof(ga_dist));
        } else {
            rc = g->conf->aggs[i].cls->deserialize(&g->conf->aggs[i], accs + g->acc_off[i], &c);
        }
        if (rc) {
            /* the failed one is left initialised and empty (weir/agg.h) */
            for (uint32_t j = 0; j <= i; j++) {
                const weir_agg *a = &g->conf->aggs[j];
                if (!g->conf->ext[j] && a->cls->destroy)
                    a->cls->destroy(a, accs + g->acc_off[j]);
            }
        }
    }
    return rc;
}

static int store(ga *g, const uint8_t *accs, int64_t count)
{
    weir_buf_clear(&g->val);
    int rc = weir_buf_put_i64(&g->val, count);
    for (uint32_t i = 0; !rc && i < g->conf->n_aggs; i++) {
        if (g->conf->ext[i])
            rc = dist_put(&g->val, (const ga_dist *)(const void *)(accs + g->acc_off[i]));
        else
            rc = g->conf->aggs[i].cls->serialize(&g->conf->aggs[i], accs + g->acc_off[i], &g->val);
    }
    return rc ? rc : weir_value_put(g->st, NULL, 0, g->val.data, g->val.len);
}

/* Room in the held arrays for group grp of dt (the new entries not held). */
static int held_reserve(ga *g, uint32_t grp)
{
    if (grp < g->cap_held)
        return 0;
    uint32_t cap = g->cap_held ? g->cap_held : 64;
    while (cap <= grp)
        cap *= 2;
    size_t size = g->acc_off[g->conf->n_aggs];
    uint8_t *nh = weir_realloc(g->held, (size_t)cap * (size ? size : 1));
    if (nh)
        g->held = nh;
    int64_t *nc = nh ? weir_realloc(g->hcount, (size_t)cap * sizeof *nc) : NULL;
    if (nc)
        g->hcount = nc;
    uint32_t *ns = nc ? weir_realloc(g->hslot, (size_t)cap * sizeof *ns) : NULL;
    if (ns)
        g->hslot = ns;
    uint8_t *nf = ns ? weir_realloc(g->hflag, cap) : NULL;
    if (!nf)
        return WEIR_ENOMEM;
    g->hflag = nf;
    memset(g->hslot + g->cap_held, 0, (size_t)(cap - g->cap_held) * sizeof *g->hslot);
    memset(g->hflag + g->cap_held, 0, cap - g->cap_held);
    g->cap_held = cap;
    return 0;
}

/* Takes over a slot's count and accumulators as group grp's, changed since state was written. */
static int held_keep(ga *g, uint32_t grp, const uint8_t *accs, int64_t count)
{
    if (!(g->hflag[grp] & GA_DIRTY)) {
        if (g->n_dirty == g->cap_dirty) {
            uint32_t cap = g->cap_dirty ? 2 * g->cap_dirty : 256;
            uint32_t *nd = weir_realloc(g->dirty, (size_t)cap * sizeof *nd);
            if (!nd)
                return WEIR_ENOMEM;
            g->dirty = nd;
            g->cap_dirty = cap;
        }
        g->dirty[g->n_dirty++] = grp;
    }
    if (accs != held_accs(g, grp))
        memcpy(held_accs(g, grp), accs, g->acc_off[g->conf->n_aggs]);
    g->hcount[grp] = count;
    g->hflag[grp] = GA_HELD | GA_DIRTY;
    return 0;
}

/* Writes the held groups changed since their last write to value state (between batches: all held). */
static int held_write(ga *g, weir_op_ctx *ctx)
{
    for (; g->n_dirty; g->n_dirty--) {
        uint32_t grp = g->dirty[g->n_dirty - 1];
        const uint8_t *key;
        size_t klen;
        uint64_t h;
        weir__gd_group_key(g->dt, grp, &key, &klen, &h);
        int rc = weir_op_set_key_hashed(ctx, key, klen, h);
        if (!rc)
            rc = g->hcount[grp] > 0 ? store(g, held_accs(g, grp), g->hcount[grp]) : weir_state_clear(g->st, NULL, 0);
        if (rc)
            return rc;
        g->hflag[grp] &= (uint8_t)~GA_DIRTY;
    }
    return 0;
}

/* Frees the held accumulators (written to state first: held_write), before dt forgets its groups. */
static void held_forget(ga *g)
{
    uint32_t n = g->dt ? weir__gd_n_groups(g->dt) : 0;
    for (uint32_t grp = 0; grp < n && grp < g->cap_held; grp++) {
        if (g->hflag[grp] & GA_HELD)
            accs_destroy(g, held_accs(g, grp));
        g->hflag[grp] = 0;
    }
    g->n_dirty = 0;
}

static int emit_net(ga *g, weir_op_ctx *ctx, uint32_t s);
static int views_write(ga *g, weir_op_ctx *ctx, bool in_order);
static int write_result(ga *g, const uint8_t *accs, const weir_batch *in, uint32_t in_row, weir_batch *dst,
                        uint32_t row, bool under_old);
static int keep_old(ga *g, const uint8_t *accs, int64_t *fast, weir_batch *rest);

/*
 * Writes every group of the batch back to state (or clears the emptied
 * ones) and forgets them; with mini-batch, emits each group's net change
 * first. With COUNT(DISTINCT) views the groups' counts and accumulators
 * are held instead (written at the next snapshot, or before the views'
 * cache is emptied). With write false (after a failure) it only frees the
 * accumulators.
 */
static int slots_flush(ga *g, weir_op_ctx *ctx, bool write)
{
    int rc = 0;
    for (uint32_t s = 0; write && g->before && s < g->n_slots && !rc; s++)
        rc = emit_net(g, ctx, s);
    for (uint32_t s = 0; s < g->n_slots; s++) {
        ga_slot *sl = &g->slots[s];
        uint8_t *accs = slot_accs(g, s);
        if (g->dt) {
            g->hslot[sl->grp] = 0;
            if (write && !rc && !(rc = held_keep(g, sl->grp, accs, sl->count)))
                continue;
        } else if (write && !rc) {
            rc = weir_op_set_key_hashed(ctx, g->kbuf + sl->koff, sl->klen, sl->hash);
            if (!rc)
                rc = sl->count > 0 ? store(g, accs, sl->count) : weir_state_clear(g->st, NULL, 0);
        }
        accs_destroy(g, accs);
    }
    g->n_slots = 0;
    g->kbuf_len = 0;
    if (g->before)
        weir_batch_reset(g->before);
    if (!g->dt) /* with views hslot finds the slots */
        memset(g->index, 0, ((size_t)g->index_mask + 1) * sizeof *g->index);
    if (write && !rc && g->dt) {
        /* no slot refers to a group of the cache now: it may forget them */
        size_t held = weir__gd_bytes(g->dt) +
                      (size_t)weir__gd_n_groups(g->dt) * (g->acc_off[g->conf->n_aggs] + sizeof(int64_t) + 5) +
                      (size_t)g->n_dirty * sizeof(uint32_t);
        if (held > *g->cache_peak)
            weir_op_counter_set(g->cache_peak, held);
        if (held > g->cache_limit && !(rc = views_write(g, ctx, true)) && !(rc = held_write(g, ctx))) {
            held_forget(g);
            if (!(rc = weir__gd_reset(g->dt)))
                weir_op_counter_add(g->n_evictions, 1);
        }
    }
    return rc;
}

/* A value of a view read from state (views_of). */
typedef struct view_load {
    ga *g;
    uint32_t grp, v;
} view_load;

static int view_load_entry(void *ud, const void *k, size_t klen, const void *v, size_t vlen)
{
    const view_load *vl = ud;
    ga *g = vl->g;
    if (vlen != g->conf->view_width[vl->v] * sizeof(int64_t))
        return WEIR_ECORRUPT;
    return weir__gd_load(g->dt, vl->grp, g->vnum[vl->v], k, klen, v);
}

/* A group with at most this many values in map state has them all loaded
 * when the cache takes it in; one with more, each value at its first row. */
#define GA_LOAD_WHOLE 64

/*
 * Group grp, new in the cache of the views (its first row since the
 * start, a restore or the cache's last reset): count and accs are its rows
 * and accumulators from state. With no rows it has no values in map state
 * (the cache is complete for it), with few they are loaded now. The
 * current key is the group's.
 */
static int views_load(ga *g, uint32_t grp, int64_t count, const uint8_t *accs)
{
    int rc = 0;
    const ga_conf *c = g->conf;
    int64_t held = 0; /* values in map state, at most: each is counted by one of its view's sharers at least */
    for (uint32_t i = 0; count > 0 && i < c->n_aggs; i++)
        if (c->ext[i])
            held += ((const ga_dist *)(const void *)(accs + g->acc_off[i]))->n;
    if (held > GA_LOAD_WHOLE)
        return 0;
    for (uint32_t v = 0; held > 0 && !rc && v < c->n_aggs; v++) {
        if (!c->ext[v] || c->view[v] != v)
            continue;
        uint8_t ns[2] = {(uint8_t)(v >> 8), (uint8_t)v};
        view_load vl = {g, grp, v};
        rc = weir_map_iterate(g->dst, ns, sizeof ns, view_load_entry, &vl);
    }
    if (!rc)
        weir__gd_set_complete(g->dt, grp);
    return rc;
}

/*
 * The slot of the group with key (klen bytes, hash h), taken on first use
 * in the batch: from what is held (views) or from state. With views the
 * group's number in their cache finds its slot (hslot): one lookup.
 */
static int slot_of(ga *g, weir_op_ctx *ctx, const uint8_t *key, size_t klen, uint64_t h, uint32_t *out)
{
    uint32_t i = 0, grp = 0;
    bool fresh = false;
    int rc;
    if (g->dt) {
        if ((rc = weir__gd_group(g->dt, key, klen, h, &grp, &fresh)) || (rc = held_reserve(g, grp)))
            return rc;
        if (g->hslot[grp]) {
            *out = g->hslot[grp] - 1;
            return 0;
        }
    } else {
        for (i = weir__hash_slot(h) & g->index_mask; g->index[i]; i = (i + 1) & g->index_mask) {
            ga_slot *sl = &g->slots[g->index[i] - 1];
            if (sl->hash == h && sl->klen == klen && (!klen || !memcmp(g->kbuf + sl->koff, key, klen))) {
                *out = g->index[i] - 1;
                return 0;
            }
        }
    }
    if (g->n_slots == g->cap_slots) {
        /* a batch with more groups than the operator's batch size: write back and start over
         * (a group just taken into the views' cache is met again as not complete: safe) */
        if ((rc = slots_flush(g, ctx, true)))
            return rc;
        return slot_of(g, ctx, key, klen, h, out);
    }
    if (g->kbuf_len + klen > g->kbuf_cap) {
        size_t cap = g->kbuf_cap ? 2 * g->kbuf_cap : 4096;
        while (cap < g->kbuf_len + klen)
            cap *= 2;
        uint8_t *nb = weir_realloc(g->kbuf, cap);
        if (!nb)
            return WEIR_ENOMEM;
        g->kbuf = nb;
        g->kbuf_cap = cap;
    }
    uint32_t s = g->n_slots;
    ga_slot *sl = &g->slots[s];
    sl->grp = grp; /* with views, slot_accs(g, s) is the group's held place */
    if (g->dt && (g->hflag[grp] & GA_HELD)) {
        sl->count = g->hcount[grp];
        g->hflag[grp] &= (uint8_t)~GA_HELD; /* the slot owns them until slots_flush */
    } else {
        if ((rc = weir_op_set_key_hashed(ctx, key, klen, h)) || (rc = load(g, slot_accs(g, s), &sl->count)))
            return rc;
        if (g->dt && fresh && (rc = views_load(g, grp, sl->count, slot_accs(g, s)))) {
            accs_destroy(g, slot_accs(g, s));
            return rc;
        }
    }
    if (g->before) {
        /* the group's result before this batch, to emit the net change against */
        sl->had = sl->count > 0;
        sl->first = g->in_row;
        if (sl->had)
            rc = keep_old(g, slot_accs(g, s), g->bfast + (size_t)s * g->n_fast, g->before);
        else if (g->n_slow && weir_batch_append_row(g->before) < 0) /* never read: zeroed, not left as it was */
            rc = WEIR_EINVAL;
        if (rc) {
            accs_destroy(g, slot_accs(g, s));
            return rc;
        }
    }
    if (klen) /* a global aggregation's key is empty */
        memcpy(g->kbuf + g->kbuf_len, key, klen);
    sl->koff = g->kbuf_len;
    sl->klen = (uint32_t)klen;
    sl->hash = h;
    g->kbuf_len += klen;
    if (g->dt)
        g->hslot[grp] = s + 1;
    else
        g->index[i] = s + 1;
    g->n_slots++;
    *out = s;
    return 0;
}

static int flush(ga *g, weir_op_ctx *ctx) { return weir_op_emit_reset(ctx, g->out); }

/*
 * Writes the key columns of input row and the results of accs into (dst,
 * row), a row just appended with weir_batch_append_row_to_fill: every
 * column valid and not cleared, each written here. A result writer's
 * column is cleared first, as weir_batch_append_row would have left it:
 * the writer may count on that. Clearing all 18 columns of a q16 row and
 * marking each written one valid again cost more than writing them.
 */
static int write_keys(ga *g, const weir_batch *in, uint32_t in_row, weir_batch *dst, uint32_t row)
{
    const ga_conf *c = g->conf;
    for (uint32_t k = 0; k < c->keys.n; k++) {
        uint32_t col = c->keys.cols[k];
        if (weir_batch_is_null(in, col, in_row)) {
            weir_batch_set_null(dst, k, row);
        } else if (weir_type_is_varlen(in->cols[col].type.id)) {
            uint32_t len;
            const char *s = weir_batch_str(in, col, in_row, &len);
            int rc = weir_batch_set_str(dst, k, row, s, len);
            if (rc)
                return rc;
        } else {
            size_t w = weir_type_size(in->cols[col].type);
            memcpy((char *)dst->cols[k].data + (size_t)row * w, (const char *)in->cols[col].data + (size_t)in_row * w,
                   w);
        }
    }
    return 0;
}

/*
 * The key columns of (dst, row) as those of (dst, from), a row of the same
 * group: the same bytes (a group is its encoded key), so a string's bytes
 * are shared, not copied into the heap again (q16: the channel and the day
 * of every +U row).
 */
static void share_keys(const ga *g, weir_batch *dst, uint32_t from, uint32_t row)
{
    for (uint32_t k = 0; k < g->conf->keys.n; k++) {
        if (weir_batch_is_null(dst, k, from)) {
            weir_batch_set_null(dst, k, row);
            continue;
        }
        char *d = dst->cols[k].data;
        size_t w = weir_type_size(dst->cols[k].type); /* a string: its weir_strref */
        memcpy(d + (size_t)row * w, d + (size_t)from * w, w);
    }
}

/* The results of the slow plan (their writers) of accs into (dst, row), as write_result writes them: into
 * their output columns, or with rest into a batch of g->rest (column k: the plan's k-th). */
static int write_slow(ga *g, const uint8_t *accs, weir_batch *dst, uint32_t row, bool rest)
{
    const ga_conf *c = g->conf;
    for (uint32_t k = 0; k < g->n_slow; k++) {
        uint32_t i = g->slow[k], col = rest ? k : c->keys.n + i;
        const uint8_t *acc = accs + g->acc_off[i];
        size_t w = weir_type_size(dst->cols[col].type);
        memset((char *)dst->cols[col].data + (size_t)row * w, 0, w);
        int rc = c->ext[i] ? weir__agg_distinct_result(&c->aggs[i], ((const ga_dist *)(const void *)acc)->n, dst, col,
                                                       row)
                           : c->aggs[i].cls->result(&c->aggs[i], acc, dst, col, row);
        if (rc)
            return rc;
    }
    return 0;
}

/* Writes the key columns of input row in_row (under_old: of the row above, the group's old result) and the
 * results of accs into (dst, row). */
static int write_result(ga *g, const uint8_t *accs, const weir_batch *in, uint32_t in_row, weir_batch *dst,
                        uint32_t row, bool under_old)
{
    int rc = 0;
    if (under_old)
        share_keys(g, dst, row - 1, row);
    else
        rc = write_keys(g, in, in_row, dst, row);
    if (rc)
        return rc;
    /* the common cases (q16: 12 COUNT(DISTINCT)s and 3 COUNT(*)s per row written) */
    for (uint32_t k = 0; k < g->n_fast; k++)
        ((int64_t *)dst->cols[g->fast_col[k]].data)[row] = *(const int64_t *)(const void *)(accs + g->fast_off[k]);
    return write_slow(g, accs, dst, row, false);
}

/* Keeps accs' results for a ga_old: the fast plan's into fast, the others into a row appended to rest (a
 * batch of g->rest). */
static int keep_old(ga *g, const uint8_t *accs, int64_t *fast, weir_batch *rest)
{
    for (uint32_t k = 0; k < g->n_fast; k++)
        fast[k] = *(const int64_t *)(const void *)(accs + g->fast_off[k]);
    if (!g->n_slow)
        return 0;
    int r = weir_batch_append_row_to_fill(rest);
    return r < 0 ? WEIR_EINVAL : write_slow(g, accs, rest, (uint32_t)r, true);
}

/* Writes old result od (key columns from in) into (dst, row), a row just appended with
 * weir_batch_append_row_to_fill: the row write_result wrote when it was kept. */
static int write_old(ga *g, const ga_old *od, const weir_batch *in, weir_batch *dst, uint32_t row)
{
    int rc = write_keys(g, in, od->key_row, dst, row);
    if (rc)
        return rc;
    for (uint32_t k = 0; k < g->n_fast; k++)
        ((int64_t *)dst->cols[g->fast_col[k]].data)[row] = od->fast[k];
    for (uint32_t k = 0; k < g->n_slow && !rc; k++)
        rc = weir_batch_copy_value(dst, row, g->conf->keys.n + g->slow[k], od->rest, od->brow, k);
    return rc;
}

/* Whether old result od's int64 results (the fast plan) are those of accs: when not, the rows differ. */
static bool same_fast(const ga *g, const ga_old *od, const uint8_t *accs)
{
    for (uint32_t k = 0; k < g->n_fast; k++)
        if (od->fast[k] != *(const int64_t *)(const void *)(accs + g->fast_off[k]))
            return false;
    return true;
}

static bool same_values(const weir_batch *a, uint32_t ra, const weir_batch *b, uint32_t rb)
{
    for (uint32_t c = 0; c < a->schema->n_fields; c++) {
        bool na = weir_batch_is_null(a, c, ra), nb = weir_batch_is_null(b, c, rb);
        if (na != nb)
            return false;
        if (na)
            continue;
        if (weir_type_is_varlen(a->cols[c].type.id)) {
            uint32_t la, lb;
            const char *sa = weir_batch_str(a, c, ra, &la), *sb = weir_batch_str(b, c, rb, &lb);
            if (la != lb || memcmp(sa, sb, la))
                return false;
        } else {
            size_t w = weir_type_size(a->cols[c].type);
            if (memcmp((const char *)a->cols[c].data + (size_t)ra * w, (const char *)b->cols[c].data + (size_t)rb * w,
                       w))
                return false;
        }
    }
    return true;
}

/* Appends row `row` of src to the output as kind, flushing first when full. */
static int emit_row(ga *g, weir_op_ctx *ctx, const weir_batch *src, uint32_t row, weir_row_kind kind, weir_ts ts)
{
    if (weir_batch_full(g->out)) {
        int rc = flush(g, ctx);
        if (rc)
            return rc;
    }
    int rc = weir_batch_copy_row(g->out, src, row);
    if (rc)
        return rc;
    g->out->kind[g->out->n_rows - 1] = (uint8_t)kind;
    g->out->ts[g->out->n_rows - 1] = ts;
    return 0;
}

/* Appends old result od (key columns from in) to the output as kind, flushing first when full. */
static int emit_old(ga *g, weir_op_ctx *ctx, const weir_batch *in, const ga_old *od, weir_row_kind kind, weir_ts ts)
{
    if (weir_batch_full(g->out)) {
        int rc = flush(g, ctx);
        if (rc)
            return rc;
    }
    uint32_t r = (uint32_t)weir_batch_append_row_to_fill(g->out);
    g->out->kind[r] = (uint8_t)kind;
    g->out->ts[r] = ts;
    return write_old(g, od, in, g->out, r);
}

/*
 * Emits a group's change: its old result is od (NULL when it had none),
 * its new one comes from accs (key columns from input row in_row; after a
 * -U row in the output, that row's, shared): +I, -U/+U, or nothing when
 * the two are equal. Both rows are written into the
 * output itself, and taken back (with their strings) when equal: no
 * scratch row and no copy. An output of one row (batch size 1) goes
 * through old1 and cur.
 */
static int emit_change(ga *g, weir_op_ctx *ctx, const weir_batch *in, uint32_t in_row, const ga_old *od,
                       const uint8_t *accs, weir_ts ts)
{
    weir_batch *o = g->out;
    bool had = od != NULL;
    int rc;
    if (o->capacity < 2) {
        weir_batch_reset(g->cur);
        weir_batch_append_row_to_fill(g->cur);
        if ((rc = write_result(g, accs, in, in_row, g->cur, 0, false)))
            return rc;
        if (had) {
            weir_batch_reset(g->old1);
            weir_batch_append_row_to_fill(g->old1);
            if ((rc = write_old(g, od, in, g->old1, 0)))
                return rc;
            if (same_fast(g, od, accs) && same_values(g->old1, 0, g->cur, 0))
                return 0;
            if ((rc = emit_row(g, ctx, g->old1, 0, WEIR_ROW_UPDATE_BEFORE, ts)))
                return rc;
        }
        rc = emit_row(g, ctx, g->cur, 0, had ? WEIR_ROW_UPDATE_AFTER : WEIR_ROW_INSERT, ts);
        weir_op_counter_add(g->n_updates, 1);
        return rc;
    }
    if (o->n_rows + 2 > o->capacity && (rc = flush(g, ctx)))
        return rc;
    size_t heap = o->heap_len;
    if (had && (rc = write_old(g, od, in, o, (uint32_t)weir_batch_append_row_to_fill(o))))
        return rc;
    uint32_t r = (uint32_t)weir_batch_append_row_to_fill(o);
    if ((rc = write_result(g, accs, in, in_row, o, r, had)))
        return rc;
    if (had && same_fast(g, od, accs) && same_values(o, r - 1, o, r)) {
        o->n_rows -= 2;
        o->heap_len = heap; /* the strings of the two rows were the heap's last bytes */
        return 0;
    }
    if (had) {
        o->kind[r - 1] = WEIR_ROW_UPDATE_BEFORE;
        o->ts[r - 1] = ts;
    }
    o->kind[r] = had ? WEIR_ROW_UPDATE_AFTER : WEIR_ROW_INSERT;
    o->ts[r] = ts;
    weir_op_counter_add(g->n_updates, 1);
    return 0;
}

/* Whether FILTER column f lets row r through: TRUE, not FALSE or NULL. */
static bool filter_passes(const weir_batch *in, int32_t f, uint32_t r)
{
    return f < 0 || (!weir_batch_is_null(in, (uint32_t)f, r) && ((const uint8_t *)in->cols[f].data)[r]);
}

/*
 * With conf->masked: the FILTER answers of every row of in, as a mask per
 * row (bit i: aggregate i takes the row), column by column. q16's price
 * ranges let a row into one of three at random: a branch per aggregate
 * and row on its FILTER was mispredicted about as often as not.
 */
static int filter_masks(ga *g, const weir_batch *in)
{
    const ga_conf *c = g->conf;
    if (in->n_rows > g->cap_fmask) {
        uint64_t *m = weir_realloc(g->fmask, (size_t)in->n_rows * sizeof *m);
        if (!m)
            return WEIR_ENOMEM;
        g->fmask = m;
        g->cap_fmask = in->n_rows;
    }
    uint64_t *m = g->fmask, all = 0;
    for (uint32_t i = 0; i < c->n_aggs; i++)
        all |= (uint64_t)(c->filter[i] < 0) << i;
    for (uint32_t r = 0; r < in->n_rows; r++)
        m[r] = all;
    for (uint32_t i = 0; i < c->n_aggs; i++) {
        if (c->filter[i] < 0)
            continue;
        const weir_column *col = &in->cols[c->filter[i]];
        const uint8_t *d = col->data;
        if (col->all_valid) {
            for (uint32_t r = 0; r < in->n_rows; r++)
                m[r] |= (uint64_t)(d[r] != 0) << i;
        } else {
            for (uint32_t r = 0; r < in->n_rows; r++)
                m[r] |= (uint64_t)((d[r] != 0) & (col->valid[r >> 3] >> (r & 7))) << i;
        }
    }
    return 0;
}

/* Whether aggregate i takes row r: m, the row's mask (filter_masks), with conf->masked. */
static inline bool agg_takes(const ga *g, const weir_batch *in, uint64_t m, uint32_t i, uint32_t r)
{
    return g->conf->masked ? m >> i & 1 : filter_passes(in, g->conf->filter[i], r);
}

/*
 * Adds or retracts row r's value for the COUNT(DISTINCT) aggregates of view v
 * (those sharing v's column) whose FILTER lets the row through. The value
 * holds one occurrence counter per sharer (in the group's view in memory,
 * one probe for all of them); each sharer's distinct count follows its
 * counter to and from zero.
 */
static int view_apply(ga *g, weir_op_ctx *ctx, uint32_t slot, uint32_t v, const weir_batch *in, uint32_t r,
                      uint64_t m, bool retract, uint8_t *accs)
{
    const ga_conf *c = g->conf;
    const uint32_t *sh = c->sharer + c->sharer_off[v], n_sh = c->view_width[v];
    const uint32_t *off = g->sh_off + c->sharer_off[v]; /* their accumulators' offsets */
    bool any_pass = c->masked && (m & c->vbits[v]);
    for (uint32_t k = 0; !c->masked && k < n_sh && !any_pass; k++)
        any_pass = filter_passes(in, c->filter[sh[k]], r);
    if (!any_pass)
        return 0;
    /* the value as views_prefetch encoded and hashed it, a few rows before */
    const ga_rowval *rv = &g->vring[(r % GA_RING) * c->n_views + g->vnum[v]];
    const weir_buf *dkey = &rv->val;
    bool present = rv->present;
    int rc = rv->rc;
    if (rc)
        return rc;
    if (!present) {
        for (uint32_t k = 0; k < n_sh; k++) {
            uint32_t i = sh[k];
            if (!agg_takes(g, in, m, i, r))
                continue;
            ga_dist *d = (ga_dist *)(void *)(accs + off[k]);
            if (retract && d->rows - d->nonnull == 0)
                return WEIR_ESTATE;
            d->rows += retract ? -1 : 1;
        }
        return 0;
    }
    int64_t *occ;
    bool unknown;
    if ((rc = weir__gd_counts_hashed(g->dt, g->slots[slot].grp, g->vnum[v], dkey->data, dkey->len, rv->h, &occ,
                                     &unknown)))
        return rc;
    if (unknown) {
        /* the cache does not know the group's every value: this one's counters are in map state, or it is new */
        const ga_slot *sl = &g->slots[slot];
        uint8_t ns[2] = {(uint8_t)(v >> 8), (uint8_t)v};
        const void *sv;
        size_t svlen, width = c->view_width[v] * sizeof(int64_t);
        if ((rc = weir_op_set_key_hashed(ctx, g->kbuf + sl->koff, sl->klen, sl->hash)))
            return rc;
        rc = weir_map_get(g->dst, ns, sizeof ns, dkey->data, dkey->len, &sv, &svlen);
        if (rc == 0 && svlen != width)
            return WEIR_ECORRUPT;
        if (rc == 0)
            memcpy(occ, sv, width);
        else if (rc != WEIR_ENOTFOUND)
            return rc;
    }
    /* occ[k]: the counter of sharer k (its view_pos) */
    for (uint32_t k = 0; !retract && k < n_sh; k++) { /* p added, not branched on */
        int64_t p = agg_takes(g, in, m, sh[k], r);
        ga_dist *d = (ga_dist *)(void *)(accs + off[k]);
        occ[k] += p;
        d->n += p & (occ[k] == 1);
        d->nonnull += p;
        d->rows += p;
    }
    for (uint32_t k = 0; retract && k < n_sh; k++) {
        ga_dist *d = (ga_dist *)(void *)(accs + off[k]);
        if (!agg_takes(g, in, m, sh[k], r))
            continue;
        if (occ[k] <= 0)
            return WEIR_ESTATE;
        d->n -= --occ[k] == 0;
        d->nonnull--;
        d->rows--;
    }
    return weir__gd_put(g->dt);
}

static int apply_row(ga *g, weir_op_ctx *ctx, const weir_batch *in, uint32_t r)
{
    const ga_conf *c = g->conf;
    const uint8_t *key = g->key;
    size_t klen;
    uint64_t h = 0;
    if (g->ring) { /* encoded and hashed by key_ahead */
        const ga_rowkey *rk = &g->ring[r % GA_RING];
        key = rk->key;
        klen = rk->klen;
        h = rk->h;
    } else {
        klen = weir_key_encode(in, &c->keys, r, g->key, sizeof g->key);
    }
    if (klen > GA_KEY_MAX)
        return weir_op_fail(ctx, WEIR_EINVAL, "group key of %zu bytes exceeds the limit of %d", klen, GA_KEY_MAX);
    if (!g->ring)
        h = weir_key_hash(key, klen);
    uint32_t slot;
    g->in_row = r;
    int rc = slot_of(g, ctx, key, klen, h, &slot);
    if (rc)
        return rc;
    uint8_t *accs = slot_accs(g, slot);
    int64_t count = g->slots[slot].count;
    bool mini = g->before != NULL; /* the change is emitted at the end of the batch (emit_net) */
    g->slots[slot].last = r;
    bool had = count > 0;
    bool retract = in->kind[r] == WEIR_ROW_UPDATE_BEFORE || in->kind[r] == WEIR_ROW_DELETE;
    if (retract && !had) {
        /* A retraction of a group with no rows: the row it retracts was never
         * seen (a changelog source read from its latest position, or state
         * expired by TTL). Ignored, as Flink's group aggregation does. */
        return 0;
    }
    if (!mini) { /* the result before the row, to emit against (mini-batch: slot_of kept it, for emit_net) */
        weir_batch_reset(g->prev);
        g->row_old.key_row = r;
        if (had && (rc = keep_old(g, accs, g->bfast, g->prev)))
            return rc;
    }
    uint64_t m = c->masked ? g->fmask[r] : 0;
    for (uint32_t k = 0; k < c->n_applied && !rc; k++) {
        const ga_step *st = &g->steps[k];
        uint32_t i = st->agg;
        uint8_t *acc = accs + st->off;
        if (st->kind == GA_STEP_VIEW) { /* the view's first sharer applies them all */
            rc = view_apply(g, ctx, slot, i, in, r, m, retract, accs);
            continue;
        }
        if (!retract && st->kind == GA_STEP_STAR) { /* COUNT(*): whether it takes the row added, not branched on */
            *(int64_t *)(void *)acc += agg_takes(g, in, m, i, r);
            continue;
        }
        if (!agg_takes(g, in, m, i, r))
            continue;
        const weir_agg *a = &c->aggs[i];
        if (!retract)
            rc = a->cls->add(a, acc, in, r);
        else if (a->cls->retract)
            rc = a->cls->retract(a, acc, in, r);
        else
            rc = weir_op_fail(ctx, WEIR_EUNSUPPORTED, "aggregate %s cannot retract an input row", a->cls->name);
        if (rc == WEIR_EINVAL && a->label) /* SINGLE_VALUE: a second row */
            rc = weir_op_fail(ctx, rc, "%s", a->label);
    }
    if (rc)
        return rc;
    count += retract ? -1 : 1;
    if (count <= 0) {
        /* Every row of the group was retracted: retract its last result; the
         * group starts afresh (its state is cleared at the end of the batch). */
        if (had && !mini) {
            if ((rc = emit_old(g, ctx, in, &g->row_old, WEIR_ROW_DELETE, in->ts[r])))
                return rc;
            weir_op_counter_add(g->n_updates, 1);
        }
        accs_destroy(g, accs);
        accs_init(g, accs);
        g->slots[slot].count = 0;
        return 0;
    }
    g->slots[slot].count = count;
    return mini ? 0 : emit_change(g, ctx, in, r, had ? &g->row_old : NULL, accs, in->ts[r]);
}

/* Mini-batch: emits the net change of slot s's group over the batch. */
static int emit_net(ga *g, weir_op_ctx *ctx, uint32_t s)
{
    const ga_slot *sl = &g->slots[s];
    weir_ts ts = g->in->ts[sl->last];
    const ga_old od = {.key_row = sl->first, .fast = g->bfast + (size_t)s * g->n_fast, .rest = g->before, .brow = s};
    int rc;
    if (sl->count <= 0) {
        if (!sl->had)
            return 0;
        if ((rc = emit_old(g, ctx, g->in, &od, WEIR_ROW_DELETE, ts)))
            return rc;
        weir_op_counter_add(g->n_updates, 1);
        return 0;
    }
    return emit_change(g, ctx, g->in, sl->last, sl->had ? &od : NULL, slot_accs(g, s), ts);
}

/*
 * Encodes and hashes row r's group key into the ring (views_prefetch and
 * apply_row take it from there) and, a hint, starts loading the place of
 * the group's index where the key is looked up.
 */
static void key_ahead(ga *g, const weir_batch *in, uint32_t r)
{
    ga_rowkey *rk = &g->ring[r % GA_RING];
    size_t klen = rk->klen = weir_key_encode(in, &g->conf->keys, r, rk->key, sizeof rk->key);
    if (klen > sizeof rk->key)
        return; /* apply_row refuses it */
    rk->h = weir_key_hash(rk->key, klen);
    weir__gd_group_prefetch(g->dt, rk->h);
}

/* A hint for row r (its key in the ring): starts loading the entry of the group held at its index place. */
static void entry_ahead(ga *g, uint32_t r)
{
    const ga_rowkey *rk = &g->ring[r % GA_RING];
    if (rk->klen <= sizeof rk->key)
        weir__gd_group_entry_prefetch(g->dt, rk->h);
}

/*
 * Hints for row r, a few rows before it is applied (its key in the ring,
 * its group's index place and entry near: key_ahead, entry_ahead): starts
 * loading its group's key bytes, held count and accumulators (the group
 * whose key has the row's key's hash) and the records of the row's values
 * in the views (a cache miss each in a large view), so that they are near
 * when the row is applied. The row's view values are encoded and hashed
 * here once, into the ring, for view_apply too. FILTERs are not looked at:
 * a record fetched for nothing costs only the fetch.
 */
static void views_prefetch(ga *g, const weir_batch *in, uint32_t r)
{
    const ga_conf *c = g->conf;
    const ga_rowkey *rk = &g->ring[r % GA_RING];
    bool key_ok = rk->klen <= sizeof rk->key; /* else apply_row refuses the row */
    uint64_t h = rk->h;
    uint32_t grp = key_ok ? weir__gd_group_peek(g->dt, h) : UINT32_MAX;
    if (grp < g->cap_held) {
        const uint8_t *a = held_accs(g, grp);
        size_t size = g->acc_off[c->n_aggs];
        for (size_t off = 0; off < size; off += 64)
            __builtin_prefetch(a + off, 1);
        if (size)
            __builtin_prefetch(a + size - 1, 1);
        __builtin_prefetch(&g->hcount[grp], 1);
    }
    for (uint32_t k = 0; k < c->n_views; k++) {
        uint32_t v = c->vhead[k];
        ga_rowval *rv = &g->vring[(r % GA_RING) * c->n_views + k]; /* k: the view's number, vnum[v] */
        rv->rc = weir__agg_distinct_key(&c->aggs[v], in, r, &rv->val, &rv->present);
        if (rv->rc || !rv->present)
            continue;
        rv->h = weir__gd_value_hash(rv->val.data, rv->val.len);
        if (key_ok)
            weir__gd_prefetch(g->dt, k, h, rv->h);
    }
}

static int ga_process(void *op, weir_op_ctx *ctx, int input, const weir_batch *in)
{
    ga *g = op;
    if (g->conf->masked) {
        int rc = filter_masks(g, in);
        if (rc)
            return rc;
    }
    g->in = in;
    for (uint32_t r = 0; g->dt && r < GA_KEY_AHEAD && r < in->n_rows; r++)
        key_ahead(g, in, r);
    for (uint32_t r = 0; g->dt && r < GA_ENTRY_AHEAD && r < in->n_rows; r++)
        entry_ahead(g, r);
    for (uint32_t r = 0; g->dt && r < GA_PREFETCH_AHEAD && r < in->n_rows; r++)
        views_prefetch(g, in, r);
    for (uint32_t r = 0; r < in->n_rows; r++) {
        if (g->dt && r + GA_KEY_AHEAD < in->n_rows)
            key_ahead(g, in, r + GA_KEY_AHEAD);
        if (g->dt && r + GA_ENTRY_AHEAD < in->n_rows)
            entry_ahead(g, r + GA_ENTRY_AHEAD);
        if (g->dt && r + GA_PREFETCH_AHEAD < in->n_rows)
            views_prefetch(g, in, r + GA_PREFETCH_AHEAD);
        int rc = apply_row(g, ctx, in, r);
        if (rc) {
            slots_flush(g, ctx, false);
            g->in = NULL;
            return rc;
        }
    }
    int rc = slots_flush(g, ctx, true);
    g->in = NULL;
    return rc ? rc : flush(g, ctx);
}

/* A view value that changed since the last snapshot, to map state (snapshot -> weir__gd_drain). */
typedef struct view_save {
    ga *g;
    weir_op_ctx *ctx;
    const uint8_t *key; /* the current key's bytes (in the view table), NULL: none set yet */
} view_save;

static int view_save_entry(void *ud, const uint8_t *key, size_t klen, uint64_t hash, uint32_t v, const void *val,
                           size_t vlen, const int64_t *counters)
{
    view_save *vs = ud;
    ga *g = vs->g;
    int rc;
    if (vs->key != key) {
        if ((rc = weir_op_set_key_hashed(vs->ctx, key, klen, hash)))
            return rc;
        vs->key = key;
    }
    /* v numbers the views; the namespace is the view's aggregate number */
    uint32_t a = 0;
    while (!(g->conf->ext[a] && g->conf->view[a] == a && g->vnum[a] == v))
        a++;
    uint8_t ns[2] = {(uint8_t)(a >> 8), (uint8_t)a};
    if (!counters)
        return weir_map_remove(g->dst, ns, sizeof ns, val, vlen);
    return weir_map_put(g->dst, ns, sizeof ns, val, vlen, counters, g->conf->view_width[a] * sizeof(int64_t));
}

/* Writes the values of the COUNT(DISTINCT) views that changed since the last write to map state
 * (in_order: see weir__gd_drain). */
static int views_write(ga *g, weir_op_ctx *ctx, bool in_order)
{
    view_save vs = {g, ctx, NULL};
    return weir__gd_drain(g->dt, in_order, view_save_entry, &vs);
}

/*
 * The values of the COUNT(DISTINCT) views and the held groups that changed
 * go to state now: the runtime snapshots keyed state right after. The
 * operator's own snapshot is empty (nothing to restore: a restored group
 * is read from state).
 */
static int ga_snapshot(void *op, weir_op_ctx *ctx, uint64_t ckpt_id, weir_buf *out)
{
    ga *g = op;
    (void)ckpt_id;
    (void)out;
    int rc = g->dt ? views_write(g, ctx, false) : 0;
    return rc || !g->dt ? rc : held_write(g, ctx);
}

static void ga_close(void *op)
{
    ga *g = op;
    if (!g)
        return;
    weir_batch_destroy(g->out);
    weir_batch_destroy(g->prev);
    weir_batch_destroy(g->cur);
    weir_batch_destroy(g->old1);
    weir_free(g->bfast);
    if (g->slots && g->slot_accs && g->index && g->acc_off)
        slots_flush(g, NULL, false);
    weir_batch_destroy(g->before);
    weir_schema_destroy(g->rest);
    if (g->hflag)
        held_forget(g);
    weir_free(g->held);
    weir_free(g->hcount);
    weir_free(g->hflag);
    weir_free(g->hslot);
    weir_free(g->dirty);
    weir_free(g->slots);
    weir_free(g->slot_accs);
    weir_free(g->index);
    weir_free(g->kbuf);
    weir_free(g->acc_off);
    weir_free(g->steps);
    weir_free(g->sh_off);
    weir_free(g->fast_col);
    weir_free(g->fast_off);
    weir_free(g->slow);
    weir_buf_fini(&g->val);
    for (size_t k = 0; g->vring && k < (size_t)GA_RING * g->conf->n_views; k++)
        weir_buf_fini(&g->vring[k].val);
    weir_free(g->vring);
    weir_free(g->fmask);
    weir__gd_destroy(g->dt);
    weir_free(g->vnum);
    weir_free(g->ring);
    weir_free(g);
}

static const weir_operator_class ga_class = {
    .name = "GroupAggregate",
    .open = ga_open,
    .process = ga_process,
    .snapshot = ga_snapshot,
    .close = ga_close,
};

int weir_group_agg_spec(const weir_group_agg_config *cfg, weir_operator_spec *out)
{
    /* write_result writes every output column and clears none: a column
     * that is neither a key nor an aggregate would keep stale bytes */
    if (!cfg->out_schema ||
        cfg->out_schema->n_fields != cfg->keys.n + cfg->n_aggs)
        return WEIR_EINVAL;
    ga_conf *c = weir_calloc(1, sizeof *c);
    if (!c)
        return WEIR_ENOMEM;
    c->keys = cfg->keys;
    c->n_aggs = cfg->n_aggs;
    c->out = cfg->out_schema;
    c->ttl_ms = cfg->state_ttl_ms;
    c->mini_batch = cfg->mini_batch;
    c->distinct_cache_bytes = cfg->distinct_cache_bytes;
    c->aggs = weir_calloc(cfg->n_aggs ? cfg->n_aggs : 1, sizeof *c->aggs);
    uint32_t n = cfg->n_aggs ? cfg->n_aggs : 1;
    c->ext = weir_calloc(n, sizeof *c->ext);
    c->filter = weir_calloc(n, sizeof *c->filter);
    c->res = weir_calloc(n, sizeof *c->res);
    c->view = weir_calloc(n, sizeof *c->view);
    c->view_pos = weir_calloc(n, sizeof *c->view_pos);
    c->view_width = weir_calloc(n, sizeof *c->view_width);
    c->sharer = weir_calloc(n, sizeof *c->sharer);
    c->sharer_off = weir_calloc(n, sizeof *c->sharer_off);
    c->applied = weir_calloc(n, sizeof *c->applied);
    c->vhead = weir_calloc(n, sizeof *c->vhead);
    c->vbits = weir_calloc(n, sizeof *c->vbits);
    if (!c->aggs || !c->ext || !c->filter || !c->res || !c->view || !c->view_pos || !c->view_width || !c->sharer ||
        !c->sharer_off || !c->applied || !c->vhead || !c->vbits) {
        conf_free(c);
        return WEIR_ENOMEM;
    }
    if (cfg->n_aggs)
        memcpy(c->aggs, cfg->aggs, cfg->n_aggs * sizeof *c->aggs);
    for (uint32_t i = 0; i < cfg->n_aggs; i++) {
        c->filter[i] = cfg->filter_cols ? cfg->filter_cols[i] : -1;
        c->ext[i] = cfg->state_ttl_ms == 0 && cfg->n_aggs <= 0xffff && weir__agg_is_count_distinct(&cfg->aggs[i]);
        c->any_ext |= c->ext[i];
        bool i64 = cfg->aggs[i].result_type.id == WEIR_TYPE_BIGINT && c->out && c->keys.n + i < c->out->n_fields &&
                   c->out->fields[c->keys.n + i].type.id == WEIR_TYPE_BIGINT;
        if (i64) /* else GA_RES_ANY (0) */
            c->res[i] = c->ext[i] ? GA_RES_DIST : weir__agg_is_count_star(&cfg->aggs[i]) ? GA_RES_STAR : GA_RES_ANY;
        if (!c->ext[i])
            continue;
        uint32_t v = i;
        for (uint32_t j = 0; j < i && v == i; j++)
            if (c->ext[j] && c->aggs[j].input_col == c->aggs[i].input_col)
                v = j;
        c->view[i] = v;
        c->view_pos[i] = c->view_width[v]++;
    }
    uint32_t off = 0;
    for (uint32_t i = 0; i < cfg->n_aggs; i++) {
        if (c->ext[i] && c->view[i] == i) {
            c->sharer_off[i] = off;
            off += c->view_width[i];
            c->vhead[c->n_views++] = i;
        }
        if (!c->ext[i] || c->view[i] == i)
            c->applied[c->n_applied++] = i;
    }
    for (uint32_t i = 0; i < cfg->n_aggs; i++)
        if (c->ext[i])
            c->sharer[c->sharer_off[c->view[i]] + c->view_pos[i]] = i;
    for (uint32_t i = 0; i < cfg->n_aggs && cfg->n_aggs <= 64; i++) {
        c->masked |= c->filter[i] >= 0;
        if (c->ext[i])
            c->vbits[c->view[i]] |= 1ull << i;
    }
    *out = (weir_operator_spec){"GroupAggregate", &ga_class, ga_create, c, conf_free};
    return 0;
}
