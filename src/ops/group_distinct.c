/*
 * ops/group_distinct.c - the bounded cache of COUNT(DISTINCT) views (see
 * the header).
 *
 * Groups: an array with an open-addressing index (linear probing, at most
 * half full) by key hash, their key bytes in one buffer. Values: per view
 * one open-addressing table (linear probing, at most two thirds full) of
 * records {group, length, value, counters}, in one block that doubles
 * (util/bigmem), so a probe reads one record where it lies. A record's
 * hash mixes its value's with its group key's (a row's place is known
 * before its group's number: weir__gd_prefetch) and is not stored: a
 * doubling computes it again. A value of up to 8 bytes (every integer,
 * double and short string) is inline; a longer one lies in the view's
 * arena, its offset beside the top bits of its hash (most probes of
 * another value then skip the arena). A view of at most 4 counters whose
 * values have all been 8 bytes long (a BIGINT's canonical bytes, for
 * one) keeps them in the record's length field, 7 bits each: a 16-byte
 * record (q15/q16's distinct bidders and auctions: half the memory to
 * clear, move and miss in of the 32-byte record before). The few records
 * whose counters leave 0..127 keep theirs aside, as int64s, in the view's
 * `out`, until they are all back within it: then the place aside is free
 * for the next record that needs one (the view's free list). The first value of another length rebuilds the table
 * with int32 counters, each record where it was; those are int32s until
 * one leaves that range (weir__gd_narrow_max): then it is rebuilt with
 * int64s. Callers see int64s (a copy: weir__gd_counts, weir__gd_put). A
 * value whose counters all fell to zero stays as zeros (absent for
 * COUNT(DISTINCT)) until the next drain removes it from state; then its
 * record becomes a tombstone (probes pass it, an insert may take it,
 * doubling drops it; a long value's bytes and counters held aside stay
 * until a reset, and count in weir__gd_bytes). A table doubles where it
 * lies (view_double): the block grows without a copy where it can, and
 * the records move within it. Each view lists the positions of its changed records (rebuilt when the table
 * doubles), so a drain visits only those; once they are an eighth of the
 * table the list stops growing and a drain finds them by their flag. A reset
 * empties the tables and the arenas where they lie: their size, reached
 * under the caller's bound, serves the next values.
 */
#include <stdlib.h>
#include <string.h>

#include "ops/group_distinct.h"
#include "util/bigmem.h"
#include "util/hindex.h"
#include "weir/common.h"
#include "weir/key.h"

#define GD_CHANGED 0x80000000u /* in gd_rec.grp: listed in the view's chg */
#define GD_TOMB 0x7FFFFFFFu /* gd_rec.grp of a removed record (never changed) */
#define GD_SMALL_BITS 7
#define GD_SMALL_MAX 127u /* the most a GD_SMALL record's counter holds in its own bits (the least: 0) */
#define GD_SMALL_OUT 0x80000000u /* a GD_SMALL record's counters held aside: at this index of the view's out */

#define GD_TAG_SHIFT 40 /* a long value: offset in the low bits of gd_rec.val, its hash's top bits above */

int64_t weir__gd_narrow_max = INT32_MAX;

/*
 * A record: GD_INT32 and GD_INT64 views hold this, then the counters. A
 * GD_SMALL view (at most 4 counters, every value 8 bytes long so far)
 * holds them in place of vlen, so its record is 16 bytes: 7 bits each
 * while all are within 0..GD_SMALL_MAX, else an index of the view's out,
 * where they lie as int64s, | GD_SMALL_OUT.
 */
typedef struct gd_rec {
    uint32_t grp;  /* group + 1, | GD_CHANGED while listed in the view's chg; 0: an empty record; GD_TOMB: a removed one */
    uint32_t vlen; /* the value's length (GD_SMALL: the counters, or where they lie) */
    uint64_t val;  /* the value's bytes when vlen <= 8 (zero-padded), else arena offset | hash tag */
} gd_rec;

/* How a view's records hold their counters (each level holds every value of the ones before). */
enum { GD_SMALL, GD_INT32, GD_INT64 };

#define GD_SMALL_WIDTH 4 /* the most counters of a GD_SMALL record */
#define GD_SMALL_VLEN 8  /* the length of every value of a GD_SMALL view */
_Static_assert(GD_SMALL_WIDTH == 4 && 4 * GD_SMALL_BITS < 31, "rec_get and rec_set write out four counters below GD_SMALL_OUT");

typedef struct gd_view {
    uint32_t width;
    uint8_t level; /* GD_SMALL, GD_INT32, GD_INT64: the narrowest that held every value and counter so far */
    int64_t *out;  /* GD_SMALL: counters held aside, width int64s each */
    size_t n_out, cap_out;
    size_t free_out; /* GD_SMALL: 1 + the first free place in out (its first int64: the next one's), 0: none */
    size_t stride; /* sizeof(gd_rec) + width counters, a multiple of 8 */
    uint8_t *rec;  /* mask + 1 records */
    size_t mask, n, n_tomb; /* live records, tombstones */
    uint8_t *arena;
    size_t alen, acap;
    size_t *chg; /* positions of the changed records, unless chg_all */
    size_t n_chg, cap_chg; /* n_chg: the changed records, listed or not */
    bool chg_all; /* too many changed to list: a drain finds them by their flag */
} gd_view;

typedef struct gd_group {
    uint64_t hash;
    size_t koff;
    uint32_t klen;
    bool complete; /* every value of the group in state is held (a miss: absent) */
} gd_group;

struct gd_table {
    uint32_t n_views;
    gd_view *views;
    gd_group *g;
    uint32_t n_g, cap_g;
    uint32_t *slot; /* group + 1, 0 empty */
    uint32_t mask;
    uint8_t *keys;
    size_t klen, kcap;
    /* the record weir__gd_counts handed out (view, position) and its counters as int64s */
    uint32_t cur_v;
    size_t cur_i;
    int64_t *cnt;
};

static gd_rec *rec_at(const gd_view *w, size_t i) { return (gd_rec *)(void *)(w->rec + i * w->stride); }
static uint32_t rec_grp(const gd_rec *r) { return r->grp & ~GD_CHANGED; }
static uint32_t rec_vlen(const gd_view *w, const gd_rec *r) { return w->level == GD_SMALL ? GD_SMALL_VLEN : r->vlen; }

static const void *rec_value(const gd_view *w, const gd_rec *r)
{
    return rec_vlen(w, r) <= sizeof r->val ? (const void *)&r->val
                                        : (const void *)(w->arena + (r->val & ((1ull << GD_TAG_SHIFT) - 1)));
}

static size_t view_stride(uint32_t width, uint8_t level)
{
    return level == GD_SMALL ? sizeof(gd_rec)
                             : sizeof(gd_rec) + (((size_t)width * (level == GD_INT64 ? 8 : 4) + 7) & ~(size_t)7);
}

/* Record r's counters into c, as int64s. */
static void rec_get(const gd_view *w, const gd_rec *r, int64_t *c)
{
    if (w->level == GD_SMALL) {
        uint32_t p = r->vlen;
        if (p & GD_SMALL_OUT) {
            memcpy(c, w->out + (size_t)(p & ~GD_SMALL_OUT) * w->width, (size_t)w->width * sizeof *c);
        } else { /* 1 to GD_SMALL_WIDTH counters, written out (a loop of width cost ~40 instructions a call) */
            uint32_t n = w->width;
            c[0] = p & GD_SMALL_MAX;
            if (n > 1)
                c[1] = (p >> GD_SMALL_BITS) & GD_SMALL_MAX;
            if (n > 2)
                c[2] = (p >> (2 * GD_SMALL_BITS)) & GD_SMALL_MAX;
            if (n > 3)
                c[3] = (p >> (3 * GD_SMALL_BITS)) & GD_SMALL_MAX;
        }
        return;
    }
    const uint8_t *p = (const uint8_t *)(r + 1);
    for (uint32_t x = 0; x < w->width; x++) {
        if (w->level == GD_INT64) {
            memcpy(&c[x], p + 8 * x, 8);
        } else {
            int32_t n;
            memcpy(&n, p + 4 * x, 4);
            c[x] = n;
        }
    }
}

/* Stores c into record r's counters (they fit w's level); a GD_SMALL record may take a place in w->out. */
static int rec_set(gd_view *w, gd_rec *r, const int64_t *c)
{
    if (w->level == GD_SMALL) {
        /* in its own bits when every counter is within 0..max (a negative one is a large unsigned) */
        uint64_t max = weir__gd_narrow_max < GD_SMALL_MAX ? (uint64_t)weir__gd_narrow_max : GD_SMALL_MAX;
        uint32_t n = w->width; /* 1 to GD_SMALL_WIDTH, written out as in rec_get */
        uint64_t c0 = (uint64_t)c[0], c1 = n > 1 ? (uint64_t)c[1] : 0, c2 = n > 2 ? (uint64_t)c[2] : 0,
                 c3 = n > 3 ? (uint64_t)c[3] : 0;
        bool fit = (c0 <= max) & (c1 <= max) & (c2 <= max) & (c3 <= max);
        uint32_t p = (uint32_t)(c0 & GD_SMALL_MAX) | (uint32_t)(c1 & GD_SMALL_MAX) << GD_SMALL_BITS |
                     (uint32_t)(c2 & GD_SMALL_MAX) << (2 * GD_SMALL_BITS) |
                     (uint32_t)(c3 & GD_SMALL_MAX) << (3 * GD_SMALL_BITS);
        if (fit) {
            if (r->vlen & GD_SMALL_OUT) { /* back within its bits: its place aside goes to the free list */
                size_t k = r->vlen & ~GD_SMALL_OUT;
                w->out[k * w->width] = (int64_t)w->free_out;
                w->free_out = k + 1;
            }
            r->vlen = p;
            return 0;
        }
        if (!(r->vlen & GD_SMALL_OUT) && w->free_out) {
            size_t k = w->free_out - 1;
            w->free_out = (size_t)w->out[k * w->width];
            r->vlen = (uint32_t)k | GD_SMALL_OUT;
        } else if (!(r->vlen & GD_SMALL_OUT)) {
            if (w->n_out == GD_SMALL_OUT)
                return WEIR_ENOMEM;
            if (w->n_out == w->cap_out) {
                size_t cap = w->cap_out ? 2 * w->cap_out : 64;
                int64_t *no = weir_realloc(w->out, cap * w->width * sizeof *no);
                if (!no)
                    return WEIR_ENOMEM;
                w->out = no;
                w->cap_out = cap;
            }
            r->vlen = (uint32_t)w->n_out++ | GD_SMALL_OUT;
        }
        memcpy(w->out + (size_t)(r->vlen & ~GD_SMALL_OUT) * w->width, c, (size_t)w->width * sizeof *c);
        return 0;
    }
    uint8_t *p = (uint8_t *)(r + 1);
    for (uint32_t x = 0; x < w->width; x++) {
        if (w->level == GD_INT64) {
            memcpy(p + 8 * x, &c[x], 8);
        } else {
            int32_t n = (int32_t)c[x];
            memcpy(p + 4 * x, &n, 4);
        }
    }
    return 0;
}

/* Whether c fits int32 counters. */
static bool fits32(uint32_t width, const int64_t *c)
{
    for (uint32_t x = 0; x < width; x++)
        if (c[x] > weir__gd_narrow_max || c[x] < -weir__gd_narrow_max)
            return false;
    return true;
}

/*
 * Rebuilds w's table at a wider level, every record at its position (so
 * chg stays right): GD_INT32 from GD_SMALL (GD_INT64 when a counter held
 * aside needs it), GD_INT64 from GD_INT32.
 */
static int view_widen(gd_view *w)
{
    gd_view nw = *w;
    nw.level = w->level == GD_SMALL ? GD_INT32 : GD_INT64;
    for (size_t i = 0; w->level == GD_SMALL && w->n_out && w->rec && i <= w->mask; i++) { /* places in use */
        const gd_rec *r = rec_at(w, i);
        if (r->grp && r->grp != GD_TOMB && (r->vlen & GD_SMALL_OUT) &&
            !fits32(w->width, w->out + (size_t)(r->vlen & ~GD_SMALL_OUT) * w->width))
            nw.level = GD_INT64;
    }
    nw.stride = view_stride(w->width, nw.level);
    nw.out = NULL;
    nw.n_out = nw.cap_out = nw.free_out = 0;
    int64_t *c = weir_malloc((size_t)w->width * sizeof *c);
    if (!c)
        return WEIR_ENOMEM;
    if (w->rec) {
        nw.rec = weir__bigmem_calloc((w->mask + 1) * nw.stride, 64);
        if (!nw.rec) {
            weir_free(c);
            return WEIR_ENOMEM;
        }
        for (size_t i = 0; i <= w->mask; i++) {
            const gd_rec *r = rec_at(w, i);
            gd_rec *d = rec_at(&nw, i);
            if (!r->grp)
                continue;
            d->grp = r->grp;
            if (r->grp == GD_TOMB)
                continue;
            d->val = r->val;
            d->vlen = rec_vlen(w, r);
            rec_get(w, r, c);
            (void)rec_set(&nw, d, c); /* not GD_SMALL: no allocation */
        }
        weir__bigmem_free(w->rec);
    }
    weir_free(c);
    weir_free(w->out);
    *w = nw;
    return 0;
}

/* The home position of a hash: its two halves folded. */
static size_t home(const gd_view *w, uint64_t h) { return (size_t)(h ^ (h >> 32)) & w->mask; }

int weir__gd_create(uint32_t n_views, const uint32_t *widths, gd_table **out)
{
    gd_table *t = weir_calloc(1, sizeof *t);
    if (!t)
        return WEIR_ENOMEM;
    t->n_views = n_views;
    t->views = weir_calloc(n_views ? n_views : 1, sizeof *t->views);
    uint32_t maxw = 1;
    for (uint32_t v = 0; v < n_views; v++)
        maxw = widths[v] > maxw ? widths[v] : maxw;
    t->cnt = weir_calloc(maxw, sizeof *t->cnt);
    if (!t->views || !t->cnt) {
        weir_free(t->views);
        weir_free(t->cnt);
        weir_free(t);
        return WEIR_ENOMEM;
    }
    for (uint32_t v = 0; v < n_views; v++) {
        t->views[v].width = widths[v];
        t->views[v].level = widths[v] <= GD_SMALL_WIDTH ? GD_SMALL : GD_INT32;
        t->views[v].stride = view_stride(widths[v], t->views[v].level);
    }
    *out = t;
    return 0;
}

void weir__gd_destroy(gd_table *t)
{
    if (!t)
        return;
    for (uint32_t v = 0; v < t->n_views; v++) {
        weir__bigmem_free(t->views[v].rec);
        weir_free(t->views[v].arena);
        weir_free(t->views[v].chg);
        weir_free(t->views[v].out);
    }
    weir_free(t->views);
    weir_free(t->cnt);
    weir_free(t->g);
    weir_free(t->slot);
    weir_free(t->keys);
    weir_free(t);
}

int weir__gd_group(gd_table *t, const uint8_t *key, size_t klen, uint64_t h, uint32_t *grp, bool *fresh)
{
    uint32_t i;
    if (t->slot) {
        for (i = weir__hash_slot(h) & t->mask; t->slot[i]; i = (i + 1) & t->mask) {
            const gd_group *g = &t->g[t->slot[i] - 1];
            if (g->hash == h && g->klen == klen && (!klen || !memcmp(t->keys + g->koff, key, klen))) {
                *grp = t->slot[i] - 1;
                *fresh = false;
                return 0;
            }
        }
    }
    if (klen > UINT32_MAX || t->n_g >= UINT32_MAX / 4)
        return WEIR_ENOMEM;
    if (t->n_g == t->cap_g) {
        uint32_t cap = t->cap_g ? 2 * t->cap_g : 16;
        gd_group *ng = weir_realloc(t->g, (size_t)cap * sizeof *ng);
        if (!ng)
            return WEIR_ENOMEM;
        t->g = ng;
        t->cap_g = cap;
    }
    if (t->klen + klen > t->kcap) {
        size_t cap = t->kcap ? 2 * t->kcap : 1024;
        while (cap < t->klen + klen)
            cap *= 2;
        uint8_t *nk = weir_realloc(t->keys, cap);
        if (!nk)
            return WEIR_ENOMEM;
        t->keys = nk;
        t->kcap = cap;
    }
    if (!t->slot || 2 * ((size_t)t->n_g + 1) > (size_t)t->mask + 1) {
        uint32_t n_slots = t->slot ? t->mask + 1 : 0;
        int rc = weir__hindex_grow(&t->slot, &n_slots, t->g, sizeof *t->g, t->n_g);
        if (rc)
            return rc;
        t->mask = n_slots - 1;
    }
    for (i = weir__hash_slot(h) & t->mask; t->slot[i]; i = (i + 1) & t->mask)
        ;
    uint32_t n = t->n_g;
    if (klen)
        memcpy(t->keys + t->klen, key, klen);
    t->g[n] = (gd_group){.hash = h, .koff = t->klen, .klen = (uint32_t)klen, .complete = false};
    t->klen += klen;
    t->slot[i] = n + 1;
    t->n_g++;
    *grp = n;
    *fresh = true;
    return 0;
}

void weir__gd_group_prefetch(const gd_table *t, uint64_t h)
{
    if (t->slot)
        __builtin_prefetch(&t->slot[weir__hash_slot(h) & t->mask]);
}

void weir__gd_group_entry_prefetch(const gd_table *t, uint64_t h)
{
    uint32_t s = t->slot ? t->slot[weir__hash_slot(h) & t->mask] : 0;
    if (s)
        __builtin_prefetch(&t->g[s - 1]);
}

uint32_t weir__gd_group_peek(const gd_table *t, uint64_t h)
{
    if (!t->slot)
        return UINT32_MAX;
    for (uint32_t i = weir__hash_slot(h) & t->mask; t->slot[i]; i = (i + 1) & t->mask) {
        const gd_group *g = &t->g[t->slot[i] - 1];
        if (g->hash == h) {
            if (g->klen) {
                __builtin_prefetch(t->keys + g->koff);
                __builtin_prefetch(t->keys + g->koff + g->klen - 1);
            }
            return t->slot[i] - 1;
        }
    }
    return UINT32_MAX;
}

/* Rebuilds w's table without tombstones, doubled when the live records ask for it
 * (first 1024 records), and lists its changed records anew. */
static uint64_t rec_hash(uint64_t ghash, const void *val, size_t vlen);

/* Lists changed record j of w (when w keeps the list) and counts it. */
static void chg_relist(gd_view *w, size_t j)
{
    if (!w->chg_all)
        w->chg[w->n_chg] = j; /* never more than before */
    w->n_chg++;
}

/*
 * Doubles w's table where it lies: the block grows (its pages remapped,
 * not copied, where the allocator can), the new half is cleared, and
 * every record moves to its place in the doubled table. The old half is
 * walked from an empty position on, in probe order; a record taken out
 * is put back at its new home or after it, and no record yet to be moved
 * lies between those (the ones before it in its old run have moved, and
 * the new half holds only moved ones). A probe that would wrap from the
 * table's end to its start could meet records yet to be moved: those few
 * records wait in a list and go in last.
 */
static int view_double(const gd_table *t, gd_view *w)
{
    size_t old_cap = w->mask + 1, cap = 2 * old_cap, stride = w->stride;
    size_t n_wait = 0, cap_wait = 64;
    uint8_t *wait = weir_malloc(cap_wait * stride);
    if (!wait)
        return WEIR_ENOMEM; /* nothing changed yet */
    uint8_t *nr = weir__bigmem_grow(w->rec, old_cap * stride, cap * stride);
    if (!nr) {
        weir_free(wait);
        return WEIR_ENOMEM; /* the table as it was */
    }
    w->rec = nr;
    w->mask = cap - 1;
    w->n_chg = 0;
    w->n_tomb = 0;
    size_t s = 0;
    while (rec_at(w, s)->grp) /* an empty position exists: the table is at most two thirds full */
        s++;
    for (size_t k = 1; k <= old_cap; k++) {
        gd_rec *r = rec_at(w, (s + k) & (old_cap - 1));
        if (!r->grp)
            continue;
        if (r->grp == GD_TOMB) {
            r->grp = 0;
            continue;
        }
        size_t j = home(w, rec_hash(t->g[rec_grp(r) - 1].hash, rec_value(w, r), rec_vlen(w, r)));
        while (j < cap && rec_at(w, j)->grp && rec_at(w, j) != r)
            j++;
        if (rec_at(w, j) == r) { /* already at its place */
            if (r->grp & GD_CHANGED)
                chg_relist(w, j);
            continue;
        }
        if (j == cap) {
            if (n_wait == cap_wait) {
                uint8_t *nw = weir_realloc(wait, 2 * cap_wait * stride);
                if (!nw) {
                    weir_free(wait);
                    return WEIR_ENOMEM; /* records lost from the cache: the caller fails the task */
                }
                wait = nw;
                cap_wait *= 2;
            }
            memcpy(wait + n_wait++ * stride, r, stride);
        } else {
            memcpy(rec_at(w, j), r, stride);
            if (r->grp & GD_CHANGED)
                chg_relist(w, j);
        }
        r->grp = 0;
    }
    for (size_t k = 0; k < n_wait; k++) {
        const gd_rec *r = (const gd_rec *)(const void *)(wait + k * stride);
        size_t j = home(w, rec_hash(t->g[rec_grp(r) - 1].hash, rec_value(w, r), rec_vlen(w, r)));
        while (rec_at(w, j)->grp)
            j = (j + 1) & w->mask;
        memcpy(rec_at(w, j), r, stride);
        if (r->grp & GD_CHANGED)
            chg_relist(w, j);
    }
    weir_free(wait);
    return 0;
}

static int view_grow(const gd_table *t, gd_view *w)
{
    size_t cap = !w->rec ? 1024 : 3 * (w->n + 1) > w->mask + 1 ? 2 * (w->mask + 1) : w->mask + 1;
    if (w->rec && cap > w->mask + 1)
        return view_double(t, w);
    uint8_t *nr = weir__bigmem_calloc(cap * w->stride, 64);
    if (!nr)
        return WEIR_ENOMEM;
    gd_view old = *w;
    w->rec = nr;
    w->mask = cap - 1;
    w->n_chg = 0;
    w->n_tomb = 0;
    for (size_t i = 0; old.rec && i <= old.mask; i++) {
        const gd_rec *r = rec_at(&old, i);
        if (!r->grp || r->grp == GD_TOMB)
            continue;
        size_t j = home(w, rec_hash(t->g[rec_grp(r) - 1].hash, rec_value(&old, r), rec_vlen(&old, r)));
        while (rec_at(w, j)->grp)
            j = (j + 1) & w->mask;
        memcpy(rec_at(w, j), r, w->stride);
        if (r->grp & GD_CHANGED)
            chg_relist(w, j);
    }
    weir__bigmem_free(old.rec);
    return 0;
}

/* A record's hash from its value's: mixed with its group key's (known before the group's number). */
static uint64_t rec_mix(uint64_t ghash, uint64_t vhash) { return vhash ^ (ghash * 0x9E3779B97F4A7C15ull); }

static uint64_t rec_hash(uint64_t ghash, const void *val, size_t vlen)
{
    return rec_mix(ghash, weir__gd_value_hash(val, vlen));
}

/*
 * The position of (grp, val)'s record in view w, inserted as zeros when
 * new; vhash: the value's hash. The position, not the record: callers
 * keep it, and finding it again from the record's address took a
 * division by the stride (two per row and view).
 */
static int view_find(const gd_table *t, gd_view *w, uint32_t grp, const void *val, size_t vlen, uint64_t vhash,
                     size_t *at, bool *inserted)
{
    *inserted = false;
    if (w->level == GD_SMALL && vlen != GD_SMALL_VLEN) {
        int rc = view_widen(w); /* the view's first value of another length */
        if (rc)
            return rc;
    }
    uint64_t h = rec_mix(t->g[grp].hash, vhash);
    uint64_t inl = 0, tag = h >> GD_TAG_SHIFT << GD_TAG_SHIFT;
    bool is_inline = vlen <= sizeof inl;
    if (is_inline && vlen)
        memcpy(&inl, val, vlen);
    size_t i = 0, tomb = SIZE_MAX;
    if (w->rec) {
        for (i = home(w, h);; i = (i + 1) & w->mask) {
            gd_rec *r = rec_at(w, i);
            if (!r->grp)
                break;
            if (r->grp == GD_TOMB) {
                if (tomb == SIZE_MAX)
                    tomb = i;
                continue;
            }
            if (rec_grp(r) != grp + 1 || rec_vlen(w, r) != vlen)
                continue;
            if (is_inline ? r->val == inl
                          : (r->val ^ tag) >> GD_TAG_SHIFT == 0 && !memcmp(rec_value(w, r), val, vlen)) {
                *at = i;
                return 0;
            }
        }
    }
    if (vlen >= GD_CHANGED)
        return WEIR_EINVAL;
    if (tomb != SIZE_MAX) {
        i = tomb;
        w->n_tomb--;
    } else if (!w->rec || 3 * (w->n + w->n_tomb + 1) > 2 * (w->mask + 1)) {
        int rc = view_grow(t, w);
        if (rc)
            return rc;
        for (i = home(w, h); rec_at(w, i)->grp; i = (i + 1) & w->mask)
            ;
    }
    if (!is_inline) {
        if (w->alen + vlen >= (1ull << GD_TAG_SHIFT))
            return WEIR_ENOMEM;
        if (w->alen + vlen > w->acap) {
            size_t cap = w->acap ? 2 * w->acap : 4096;
            while (cap < w->alen + vlen)
                cap *= 2;
            uint8_t *na = weir_realloc(w->arena, cap);
            if (!na)
                return WEIR_ENOMEM;
            w->arena = na;
            w->acap = cap;
        }
        memcpy(w->arena + w->alen, val, vlen);
        inl = w->alen | tag;
        w->alen += vlen;
    }
    gd_rec *r = rec_at(w, i);
    r->grp = grp + 1;
    r->val = inl;
    if (w->level == GD_SMALL) {
        r->vlen = 0; /* the counters */
    } else {
        r->vlen = (uint32_t)vlen;
        memset(r + 1, 0, w->stride - sizeof *r);
    }
    w->n++;
    *at = i;
    *inserted = true;
    return 0;
}

int weir__gd_counts(gd_table *t, uint32_t grp, uint32_t v, const void *val, size_t vlen, int64_t **counts,
                    bool *unknown)
{
    return weir__gd_counts_hashed(t, grp, v, val, vlen, weir__gd_value_hash(val, vlen), counts, unknown);
}

int weir__gd_counts_hashed(gd_table *t, uint32_t grp, uint32_t v, const void *val, size_t vlen, uint64_t vhash,
                           int64_t **counts, bool *unknown)
{
    gd_view *w = &t->views[v];
    size_t i;
    bool inserted;
    int rc = view_find(t, w, grp, val, vlen, vhash, &i, &inserted);
    if (rc)
        return rc;
    gd_rec *r = rec_at(w, i);
    *unknown = inserted && !t->g[grp].complete;
    if (!(r->grp & GD_CHANGED)) {
        if (!w->chg_all && w->n_chg == w->cap_chg) {
            if (8 * w->n_chg >= w->mask + 1) {
                w->chg_all = true; /* an eighth of the table or more: scanning it is cheaper than the list */
            } else {
                size_t cap = w->cap_chg ? 2 * w->cap_chg : 1024;
                size_t *nc = weir_realloc(w->chg, cap * sizeof *nc);
                if (!nc)
                    return WEIR_ENOMEM;
                w->chg = nc;
                w->cap_chg = cap;
            }
        }
        if (!w->chg_all)
            w->chg[w->n_chg] = i;
        w->n_chg++;
        r->grp |= GD_CHANGED;
    }
    t->cur_v = v;
    t->cur_i = i;
    rec_get(w, r, t->cnt);
    *counts = t->cnt;
    return 0;
}

int weir__gd_put(gd_table *t)
{
    gd_view *w = &t->views[t->cur_v];
    int rc = w->level == GD_INT32 && !fits32(w->width, t->cnt) ? view_widen(w) : 0;
    return rc ? rc : rec_set(w, rec_at(w, t->cur_i), t->cnt);
}

void weir__gd_prefetch(const gd_table *t, uint32_t v, uint64_t ghash, uint64_t vhash)
{
    const gd_view *w = &t->views[v];
    if (!w->rec)
        return;
    size_t i = home(w, rec_mix(ghash, vhash));
    const uint8_t *r = (const uint8_t *)rec_at(w, i);
    __builtin_prefetch(r, 1);
    /* a record may straddle two lines (the block is 64-aligned) unless its stride, a power of two, divides a line */
    if ((w->stride & (w->stride - 1)) || w->stride > 64)
        __builtin_prefetch(r + w->stride - 1, 1);
    /* A probe walks on past its home (most q16 rows insert: ~2.5 records at half full, ~5 at two thirds):
     * the next line too when the home record is in the second half of its line (else its own line again; no
     * branch on where the record lies, which is random), while that line is in the table. */
    else if (i + 64 / w->stride <= w->mask) {
        size_t off = (uintptr_t)r & 63;
        __builtin_prefetch(r + ((64 - off) & -(size_t)(off >= 32)), 1);
    }
}

int weir__gd_load(gd_table *t, uint32_t grp, uint32_t v, const void *val, size_t vlen, const void *counters)
{
    gd_view *w = &t->views[v];
    size_t i;
    bool inserted;
    int rc = view_find(t, w, grp, val, vlen, weir__gd_value_hash(val, vlen), &i, &inserted);
    if (rc)
        return rc;
    memcpy(t->cnt, counters, (size_t)w->width * sizeof *t->cnt);
    t->cur_v = v;
    t->cur_i = i;
    return weir__gd_put(t);
}

/* Orders changed records by group, then value bytes (shorter first on a common prefix). */
static int chg_cmp(const void *pa, const void *pb, void *arg)
{
    const gd_view *w = arg;
    const gd_rec *a = rec_at(w, *(const size_t *)pa), *b = rec_at(w, *(const size_t *)pb);
    if (rec_grp(a) != rec_grp(b))
        return rec_grp(a) < rec_grp(b) ? -1 : 1;
    uint32_t la = rec_vlen(w, a), lb = rec_vlen(w, b);
    int c = memcmp(rec_value(w, a), rec_value(w, b), la < lb ? la : lb);
    return c ? c : la < lb ? -1 : la > lb;
}

int weir__gd_drain(gd_table *t, bool in_order, gd_change_fn fn, void *ud)
{
    for (uint32_t v = 0; v < t->n_views; v++) {
        gd_view *w = &t->views[v];
        if (w->chg_all) { /* list the changed records now, in table order */
            if (w->n_chg > w->cap_chg) {
                size_t *nc = weir_realloc(w->chg, w->n_chg * sizeof *nc);
                if (!nc)
                    return WEIR_ENOMEM;
                w->chg = nc;
                w->cap_chg = w->n_chg;
            }
            size_t n = 0;
            for (size_t i = 0; i <= w->mask && n < w->n_chg; i++) {
                const gd_rec *r = rec_at(w, i);
                if (r->grp & GD_CHANGED)
                    w->chg[n++] = i;
            }
            w->chg_all = false;
        }
        if (in_order && w->n_chg > 1)
            qsort_r(w->chg, w->n_chg, sizeof *w->chg, chg_cmp, w);
        for (size_t k = 0; k < w->n_chg; k++) {
            gd_rec *r = rec_at(w, w->chg[k]);
            int64_t *c = t->cnt;
            rec_get(w, r, c);
            bool any = false;
            for (uint32_t x = 0; x < w->width && !any; x++)
                any = c[x] != 0;
            const gd_group *g = &t->g[rec_grp(r) - 1];
            int rc = fn(ud, t->keys + g->koff, g->klen, g->hash, v, rec_value(w, r), rec_vlen(w, r), any ? c : NULL);
            if (rc) {
                /* keep what was not handed over, for the next drain */
                memmove(w->chg, w->chg + k, (w->n_chg - k) * sizeof *w->chg);
                w->n_chg -= k;
                return rc;
            }
            r->grp &= ~GD_CHANGED;
            if (!any) {
                r->grp = GD_TOMB; /* removed from state: nothing to keep */
                w->n--;
                w->n_tomb++;
            }
        }
        w->n_chg = 0;
    }
    return 0;
}

void weir__gd_set_complete(gd_table *t, uint32_t grp) { t->g[grp].complete = true; }

void weir__gd_group_key(const gd_table *t, uint32_t grp, const uint8_t **key, size_t *klen, uint64_t *h)
{
    *key = t->keys + t->g[grp].koff;
    *klen = t->g[grp].klen;
    *h = t->g[grp].hash;
}

uint32_t weir__gd_n_groups(const gd_table *t) { return t->n_g; }

size_t weir__gd_bytes(const gd_table *t)
{
    size_t b = (size_t)t->n_g * (sizeof(gd_group) + 2 * sizeof(uint32_t)) + t->klen;
    for (uint32_t v = 0; v < t->n_views; v++) {
        const gd_view *w = &t->views[v];
        /* a record's share of a table at most two thirds full, its change entry, long values, counters aside */
        b += (w->n + w->n_tomb) * (w->stride * 3 / 2) + w->n_chg * sizeof(size_t) + w->alen +
             w->n_out * w->width * sizeof(int64_t);
    }
    return b;
}

int weir__gd_reset(gd_table *t)
{
    for (uint32_t v = 0; v < t->n_views; v++)
        if (t->views[v].n_chg)
            return WEIR_EINVAL; /* changes not drained: forgetting them would lose state */
    for (uint32_t v = 0; v < t->n_views; v++) {
        gd_view *w = &t->views[v];
        if (w->rec)
            memset(w->rec, 0, (w->mask + 1) * w->stride);
        w->n = w->n_tomb = 0;
        w->alen = 0;
        w->n_out = w->free_out = 0;
    }
    if (t->slot)
        memset(t->slot, 0, ((size_t)t->mask + 1) * sizeof *t->slot);
    t->n_g = 0;
    t->klen = 0;
    return 0;
}
