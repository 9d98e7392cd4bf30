/*
 * state/timer_service.c - per-subtask event-time and processing-time timers.
 *
 * Each timer is one entry that lives in two structures at once:
 * - a hash set keyed by (domain, key, ns, ts), which makes registration
 *   idempotent (deduplication) and deletion O(1) to find;
 * - a binary min-heap per domain ordered by (ts, key group, key bytes, ns),
 *   the firing order. The entry remembers its heap slot so that deletion
 *   can remove it from the middle of the heap.
 * Firing order depends only on the timers' values, never on the order in
 * which they were registered, which keeps results independent of batching
 * and parallelism.
 *
 * Snapshots are per key group in a canonical format (see snapshot_kg). A
 * checkpoint asks for every key group of the subtask in turn, so the service
 * keeps a lazily rebuilt array of all entries sorted by (kg, domain, firing
 * order) and answers each key group with a binary search into it.
 */
#include <stdlib.h>
#include <string.h>

#include "state/timer_service.h"
#include "util/bytes.h"
#include "weir/key.h"

typedef struct tentry {
    weir_ts ts;
    int64_t ns;
    uint64_t hash;       /* of (domain, key, ns, ts), for the hash set */
    struct tentry *next; /* hash-bucket chain */
    uint32_t kg;
    uint32_t heap_idx; /* slot in the heap of its domain */
    uint32_t klen;
    uint8_t domain;
    uint8_t key[];
} tentry;

/* A heap slot: the entry's time and key group inline, so that most
 * comparisons on the way down read no entry (a miss each, in a big heap). */
typedef struct hslot {
    weir_ts ts;
    uint32_t kg;
    tentry *e;
} hslot;

typedef struct theap {
    hslot *a;
    uint32_t n, cap;
} theap;

struct weir__timers {
    theap heap[2]; /* per weir_time_domain */
    tentry **buckets;
    uint32_t n_buckets; /* power of two */
    uint32_t count;
    uint64_t version; /* bumped on every change, invalidates `sorted` */
    tentry **sorted;  /* snapshot cache, see file comment */
    uint32_t n_sorted;
    uint64_t sorted_version;
    bool sorted_valid;
};

static uint64_t entry_hash(weir_time_domain d, weir_ts t, int64_t ns,
                           const void *key, size_t klen)
{
    uint64_t h = weir_key_hash(key, klen);
    h ^= (uint64_t)t * 0x9E3779B97F4A7C15ull;
    h = (h << 27 | h >> 37) * 0xC2B2AE3D27D4EB4Full;
    h ^= (uint64_t)ns * 0x165667B19E3779F9ull + (uint64_t)d;
    h ^= h >> 31;
    return h;
}

/* Firing order: (ts, kg, key bytes, ns). */
static int fire_cmp(const tentry *a, const tentry *b)
{
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    if (a->kg != b->kg)
        return a->kg < b->kg ? -1 : 1;
    int c = weir__bytes_cmp(a->key, a->klen, b->key, b->klen);
    if (c)
        return c;
    if (a->ns != b->ns)
        return a->ns < b->ns ? -1 : 1;
    return 0;
}

/* Snapshot order: (kg, domain, firing order). */
static int snap_cmp(const void *pa, const void *pb)
{
    const tentry *a = *(tentry *const *)pa, *b = *(tentry *const *)pb;
    if (a->kg != b->kg)
        return a->kg < b->kg ? -1 : 1;
    if (a->domain != b->domain)
        return a->domain < b->domain ? -1 : 1;
    return fire_cmp(a, b);
}

/* Firing order of two slots: fire_cmp's, from the inline fields first. */
static inline int slot_cmp(const hslot *a, const hslot *b)
{
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    if (a->kg != b->kg)
        return a->kg < b->kg ? -1 : 1;
    return fire_cmp(a->e, b->e);
}

static void heap_set(theap *h, uint32_t i, hslot s)
{
    h->a[i] = s;
    s.e->heap_idx = i;
}

static void heap_up(theap *h, uint32_t i)
{
    hslot s = h->a[i];
    while (i > 0) {
        uint32_t p = (i - 1) / 2;
        if (slot_cmp(&h->a[p], &s) <= 0)
            break;
        heap_set(h, i, h->a[p]);
        i = p;
    }
    heap_set(h, i, s);
}

static void heap_down(theap *h, uint32_t i)
{
    hslot s = h->a[i];
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        const hslot *best = &s;
        if (l < h->n && slot_cmp(&h->a[l], best) < 0) {
            m = l;
            best = &h->a[l];
        }
        if (r < h->n && slot_cmp(&h->a[r], best) < 0)
            m = r;
        if (m == i)
            break;
        heap_set(h, i, h->a[m]);
        i = m;
    }
    heap_set(h, i, s);
}

static int heap_push(theap *h, tentry *e)
{
    if (h->n == h->cap) {
        uint32_t cap = h->cap ? h->cap * 2 : 64;
        hslot *a = weir_realloc(h->a, (size_t)cap * sizeof *a);
        if (!a)
            return WEIR_ENOMEM;
        h->a = a;
        h->cap = cap;
    }
    heap_set(h, h->n++, (hslot){e->ts, e->kg, e});
    heap_up(h, h->n - 1);
    return 0;
}

static void heap_remove(theap *h, uint32_t i)
{
    h->n--;
    if (i == h->n)
        return;
    heap_set(h, i, h->a[h->n]);
    heap_up(h, i);
    heap_down(h, h->a[i].e->heap_idx);
}

int weir__timers_create(weir__timers **out)
{
    weir__timers *ts = weir_calloc(1, sizeof *ts);
    if (!ts)
        return WEIR_ENOMEM;
    ts->n_buckets = 64;
    ts->buckets = weir_calloc(ts->n_buckets, sizeof *ts->buckets);
    if (!ts->buckets) {
        weir_free(ts);
        return WEIR_ENOMEM;
    }
    *out = ts;
    return 0;
}

void weir__timers_destroy(weir__timers *ts)
{
    if (!ts)
        return;
    for (uint32_t b = 0; b < ts->n_buckets; b++) {
        tentry *e = ts->buckets[b];
        while (e) {
            tentry *next = e->next;
            weir_free(e);
            e = next;
        }
    }
    weir_free(ts->buckets);
    weir_free(ts->heap[0].a);
    weir_free(ts->heap[1].a);
    weir_free(ts->sorted);
    weir_free(ts);
}

static tentry **find_slot(weir__timers *ts, uint64_t h, weir_time_domain d,
                          weir_ts t, int64_t ns, const void *key, size_t klen)
{
    tentry **pp = &ts->buckets[h & (ts->n_buckets - 1)];
    for (; *pp; pp = &(*pp)->next) {
        tentry *e = *pp;
        if (e->hash == h && e->ts == t && e->ns == ns &&
            e->domain == (uint8_t)d && e->klen == klen &&
            (klen == 0 || memcmp(e->key, key, klen) == 0))
            return pp;
    }
    return pp;
}

static int grow_buckets(weir__timers *ts)
{
    uint32_t nb = ts->n_buckets * 2;
    tentry **b = weir_calloc(nb, sizeof *b);
    if (!b)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < ts->n_buckets; i++) {
        tentry *e = ts->buckets[i];
        while (e) {
            tentry *next = e->next;
            tentry **head = &b[e->hash & (nb - 1)];
            e->next = *head;
            *head = e;
            e = next;
        }
    }
    weir_free(ts->buckets);
    ts->buckets = b;
    ts->n_buckets = nb;
    return 0;
}

int weir__timers_register(weir__timers *ts, weir_time_domain d, weir_ts t,
                          int64_t ns, const void *key, size_t klen, uint32_t kg)
{
    if ((unsigned)d > WEIR_TIME_PROCESSING || klen > UINT32_MAX ||
        (klen && !key))
        return WEIR_EINVAL;
    uint64_t h = entry_hash(d, t, ns, key, klen);
    tentry **pp = find_slot(ts, h, d, t, ns, key, klen);
    if (*pp)
        return 0; /* deduplicated */
    tentry *e = weir_malloc(sizeof *e + klen);
    if (!e)
        return WEIR_ENOMEM;
    e->ts = t;
    e->ns = ns;
    e->hash = h;
    e->kg = kg;
    e->klen = (uint32_t)klen;
    e->domain = (uint8_t)d;
    e->next = NULL;
    if (klen)
        memcpy(e->key, key, klen);
    int rc = heap_push(&ts->heap[d], e);
    if (rc) {
        weir_free(e);
        return rc;
    }
    *pp = e;
    ts->count++;
    ts->version++;
    if (ts->count > ts->n_buckets)
        (void)grow_buckets(ts); /* a failed grow only costs speed */
    return 0;
}

/* Unlinks e from the hash set and its heap; the caller frees it. */
static void unlink_entry(weir__timers *ts, tentry *e)
{
    tentry **pp = &ts->buckets[e->hash & (ts->n_buckets - 1)];
    while (*pp != e)
        pp = &(*pp)->next;
    *pp = e->next;
    heap_remove(&ts->heap[e->domain], e->heap_idx);
    ts->count--;
    ts->version++;
}

int weir__timers_delete(weir__timers *ts, weir_time_domain d, weir_ts t,
                        int64_t ns, const void *key, size_t klen, uint32_t kg)
{
    (void)kg;
    if ((unsigned)d > WEIR_TIME_PROCESSING)
        return WEIR_EINVAL;
    uint64_t h = entry_hash(d, t, ns, key, klen);
    tentry **pp = find_slot(ts, h, d, t, ns, key, klen);
    if (!*pp)
        return 0; /* deleting an absent timer is not an error, as in Flink */
    tentry *e = *pp;
    unlink_entry(ts, e);
    weir_free(e);
    return 0;
}

int weir__timers_advance(weir__timers *ts, weir_time_domain d, weir_ts upto,
                         weir__timer_fire_fn fn, void *ud)
{
    if ((unsigned)d > WEIR_TIME_PROCESSING)
        return WEIR_EINVAL;
    theap *h = &ts->heap[d];
    while (h->n > 0 && h->a[0].ts <= upto) {
        tentry *e = h->a[0].e;
        unlink_entry(ts, e);
        weir_timer t = {.domain = d,
                        .ts = e->ts,
                        .ns = e->ns,
                        .key = e->key,
                        .key_len = e->klen,
                        .key_group = e->kg};
        int rc = fn(ud, &t);
        weir_free(e);
        if (rc)
            return rc;
    }
    return 0;
}

weir_ts weir__timers_next(const weir__timers *ts, weir_time_domain d)
{
    if (!ts || (unsigned)d > WEIR_TIME_PROCESSING || ts->heap[d].n == 0)
        return WEIR_TS_MAX;
    return ts->heap[d].a[0].ts;
}

size_t weir__timers_count(const weir__timers *ts)
{
    return ts ? ts->count : 0;
}

/* Rebuilds the (kg, domain, firing order) array if any timer changed since. */
static int ensure_sorted(weir__timers *ts)
{
    if (ts->sorted_valid && ts->sorted_version == ts->version)
        return 0;
    tentry **a = weir_realloc(ts->sorted,
                              (size_t)(ts->count ? ts->count : 1) * sizeof *a);
    if (!a)
        return WEIR_ENOMEM;
    ts->sorted = a;
    uint32_t n = 0;
    for (int d = 0; d < 2; d++)
        for (uint32_t i = 0; i < ts->heap[d].n; i++)
            a[n++] = ts->heap[d].a[i].e;
    if (n > 1)
        qsort(a, n, sizeof *a, snap_cmp);
    ts->n_sorted = n;
    ts->sorted_version = ts->version;
    ts->sorted_valid = true;
    return 0;
}

/*
 * Canonical key-group format:
 *   varint count, then per timer in (domain, ts, kg, key, ns) order:
 *   u8 domain, i64 ts, i64 ns, bytes key (varint length + bytes).
 */
int weir__timers_snapshot_kg(const weir__timers *cts, uint32_t kg,
                             weir_buf *out)
{
    weir__timers *ts = (weir__timers *)cts; /* the sorted array is a cache */
    int rc = ensure_sorted(ts);
    if (rc)
        return rc;
    uint32_t lo = 0, hi = ts->n_sorted;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (ts->sorted[mid]->kg < kg)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint32_t end = lo;
    while (end < ts->n_sorted && ts->sorted[end]->kg == kg)
        end++;
    if ((rc = weir_buf_put_varint(out, end - lo)))
        return rc;
    for (uint32_t i = lo; i < end; i++) {
        const tentry *e = ts->sorted[i];
        if ((rc = weir_buf_put_u8(out, e->domain)) ||
            (rc = weir_buf_put_i64(out, e->ts)) ||
            (rc = weir_buf_put_i64(out, e->ns)) ||
            (rc = weir_buf_put_bytes(out, e->key, e->klen)))
            return rc;
    }
    return 0;
}

int weir__timers_restore_kg(weir__timers *ts, uint32_t kg, weir_cursor *in)
{
    uint64_t n;
    int rc = weir_cursor_get_varint(in, &n);
    if (rc)
        return rc;
    for (uint64_t i = 0; i < n; i++) {
        uint8_t d;
        int64_t t, ns;
        const void *key;
        size_t klen;
        if ((rc = weir_cursor_get_u8(in, &d)) ||
            (rc = weir_cursor_get_i64(in, &t)) ||
            (rc = weir_cursor_get_i64(in, &ns)) ||
            (rc = weir_cursor_get_bytes(in, &key, &klen)))
            return rc;
        if (d > WEIR_TIME_PROCESSING)
            return WEIR_ECORRUPT;
        if ((rc = weir__timers_register(ts, (weir_time_domain)d, t, ns, key,
                                        klen, kg)))
            return rc;
    }
    return 0;
}
