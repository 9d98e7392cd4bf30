/*
 * state/memory_backend.c - the in-memory keyed-state backend (the embedded
 * default).
 *
 * Layout. Each state has one open-addressing hash table per owned key group
 * (linear probing, power-of-two size, load <= 3/4, deletion by backward
 * shift, so there are no tombstones). A slot holds the 64-bit hash of
 * (key, namespace) and a pointer to a record carved from the backend's slab:
 *
 *   record: stamp | vlen | klen | nslen | vcap | key | ns | pad to 8 | value
 * area
 *
 * (16 bytes of header: u8 lengths and a u16 capacity; a record whose key or
 * namespace is longer, or whose block is larger than the slab's, holds its
 * lengths in 16 bytes more before its key: see mrec.)
 *
 * The value area holds the bytes of a value / reducing / aggregating state;
 * the elements of a list of a state with TTL, appended in place
 * ([u32 len][i64 stamp][bytes] each, capacity doubling when full); a log,
 * the list of a state without TTL (elements [varint len][bytes], or a
 * log_head and chunks chained from the record: log_append); or, for a
 * map, a nested table whose
 * slots point to entry records (stamp | klen | vlen | key | pad | value).
 * An entry's block is the slab's size for its header, key and value
 * (ent_block): it holds no capacity of its own, and its value is rewritten
 * in place only when the new value needs a block of the same size (a join
 * keeps millions of entries, and 8 bytes of header were 4 % of each).
 * Because tables are per key group, a key group is snapshotted, restored
 * or dropped without looking at the others.
 *
 * Pointer lifetime. A pointer returned by a read points into a record. Writes
 * (put, add, clear, map put/remove, set_key, restore) may move or free any
 * record. Reads never free: an expired entry found by a read is unlinked from
 * its table and its memory is parked on a retire list, which the next write
 * (once it has consumed its own arguments) or set_key frees. So a read pointer
 * stays valid until the next write, as weir/state.h promises, even when the
 * clock advanced in between.
 *
 * TTL. Records of a TTL state carry the stamp of their last write (and read,
 * for ON_READ_AND_WRITE). A list record's stamp is the newest stamp of its
 * elements, and a map record's is an upper bound on its entries' stamps, so a
 * record whose stamp is expired holds nothing live. Each access to a TTL
 * state also runs one incremental cleanup step: a cursor walks the state's
 * tables (all key groups, round robin), examining a few records per access
 * and removing what has expired, so dead keys that are never read again do
 * not hold memory.
 *
 * Asynchronous snapshots (copy-on-write). snap_begin does not copy records:
 * it pins each non-empty key-group table as a `frozen` object shared by the
 * live backend and the snapshot (a reference each). The first access to a
 * key group after that - set_key of a key in it, which every access goes
 * through - copies that key group's table and records (tab_unshare), so the
 * live backend never writes into memory a snapshot reads, and the snapshot
 * thread reads the frozen records without locks. The task therefore pays
 * O(states x key groups) at the barrier plus one copy of each key group it
 * touches while a snapshot is open. Whoever drops the last reference of a
 * frozen table frees it, on the backend's thread (the slab is not
 * thread-safe): a snapshot released on another thread queues it on the
 * garbage list, which the next set_key empties.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

/* gcc 12 at -O3 misreads xxhash's inlined 16-byte reads as out of bounds. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#define XXH_INLINE_ALL
#include <xxhash.h>
#pragma GCC diagnostic pop

#include "state/backend_impl.h"
#include "state/slab.h"

#define CLEANUP_RECORDS 4 /* records (or map entries) examined per access */
#define CLEANUP_PROBES 32 /* slots or empty key groups passed over per access  \
                           */
#define TAB_MIN 8
/* Slots of a map's first table: two, which hold its first entry (the second
 * insert doubles it, as the load rule does at any size). Many maps keep one
 * entry (a join key met once: q7's prices), and their tables of four slots
 * (64 bytes) held 6 % of q7's memory. */
#define MAP_MIN 2
#define ELEM_HDR 12 /* list element of a state with TTL: u32 len, i64 stamp */

/*
 * A slot is one word: the address of a record (or map entry) in its low
 * SLOT_PTR_BITS bits, shifted right by 3 (slab blocks are 8-aligned, and
 * the slab hands out no block at or above 2^48: WEIR__SLAB_ADDR_BITS), and
 * the low SLOT_TAG_BITS bits of the entry's hash above it; 0: empty. A
 * probe compares the tag before it reads a record. The tag is the hash's
 * low bits, those that give the home slot (hash & mask), so a resize or
 * deletion's backward shift finds each entry's home in its slot for a
 * table of up to 2^SLOT_TAG_BITS slots, and only a larger one rehashes
 * the entry's key (slot_home). A slot of hash and pointer, 16 bytes, was
 * 29 - 37 bytes a record at a load of 0.375 - 0.75 (q7: 37 of ~250 bytes
 * a price).
 */
typedef uint64_t slot;

#define SLOT_PTR_BITS 45
#define SLOT_TAG_BITS (64 - SLOT_PTR_BITS)
#define SLOT_PTR_MASK ((UINT64_C(1) << SLOT_PTR_BITS) - 1)
#define SLOT_TAG_MASK ((UINT64_C(1) << SLOT_TAG_BITS) - 1)
_Static_assert(SLOT_PTR_BITS + 3 >= WEIR__SLAB_ADDR_BITS, "a slab block's address fits a slot");

static inline void *slot_p(slot s)
{
    return (void *)(uintptr_t)((s & SLOT_PTR_MASK) << 3);
}
/* The slot of an entry of hash h at p (a slab block). */
static inline slot slot_make(uint64_t h, const void *p)
{
    return (h << SLOT_PTR_BITS) | ((uint64_t)(uintptr_t)p >> 3);
}
/* Slot s pointed to p: the same entry's (its copy, or it moved). */
static inline slot slot_to(slot s, const void *p)
{
    return (s & ~SLOT_PTR_MASK) | ((uint64_t)(uintptr_t)p >> 3);
}
/* Whether slot s may hold an entry of hash h (its tag is h's). */
static inline bool slot_tag_is(slot s, uint64_t h)
{
    return (s >> SLOT_PTR_BITS) == (h & SLOT_TAG_MASK);
}

typedef struct tab {
    slot *slots; /* NULL until the first insert */
    uint32_t mask;
    uint32_t n;
} tab;

/*
 * A log (a list of a state without TTL, kind KIND_LOG here): its record's
 * value area holds its elements ([varint len][bytes], log_hdr_read) up to
 * vlen. When they fill it, a log of up to LOG_REC_MAX bytes moves whole
 * into a larger record (the block its elements need); past that the
 * elements move, once, into the first of a
 * chain of chunks, and the record is replaced by one whose value area is
 * a log_head; each chunk is half as large again as the one before (the
 * first as the record's area) up to LOG_CHUNK bytes, an element larger
 * than that in a chunk of its own. Nothing is moved or copied as a log
 * grows further (a join keeps thousands of rows per key in one: growing a
 * list by doubling copied them, 10 % of q20's time), and an element is
 * never split. (Chunks twice as large as the one before took q20's peak
 * RSS from 407 to 423 MB, chunks of up to 1 KiB 403 MB.)
 * The record names the first chunk in the word that holds other records'
 * stamp (a log's state has no TTL; NULL: no chunks), and the head the
 * last one with that chunk's fill and capacity, so that an append reads
 * nothing but the key's record: reading the last chunk's header was a
 * cache miss per row (11 % of q7's time: the header is up to 4 KiB before
 * the place the row goes), and so was its link to the first chunk when a
 * new one opened. A log without chunks has no head: most of q7's keys
 * (prices) hold one row, and a head in each of their records took 16 MB
 * of q7's 336 MB at 2 M events.
 */
#define KIND_LOG ((weir_state_kind)0x100)
#define LOG_CHUNK 4096
/* A log's elements stay in its record, moved into a larger one as they
 * grow, up to this many bytes: most of a join's keys keep a few rows (q7's
 * prices 1 - 16, q9's auctions 5 - 16 bids), and a record of log_head plus
 * chunks each half as large again as the one before held them in 1.5 - 2
 * times their bytes (a price with three bids of 93 bytes: 592 bytes in a
 * record and two chunks, 320 in one record). A move copies at most this. */
#define LOG_REC_MAX 1024

typedef struct log_chunk {
    struct log_chunk *next;
    uint32_t len, cap; /* bytes used (the last chunk's: in the head), bytes of data */
    uint8_t data[];
} log_chunk;

typedef struct log_head {
    log_chunk *last;
    uint32_t len, cap; /* bytes used and available in the last chunk */
} log_head;

/*
 * A record's header is 16 bytes: its lengths in the narrowest fields that
 * hold nearly every record's (a key of a few bytes, a block of the slab's
 * classes). A record with a key or namespace of REC_WIDE bytes or more, or
 * a block larger than WEIR__SLAB_MAX (a long list), is wide: klen8 is
 * REC_WIDE and its lengths are in a rec_wide before its key. (A header of
 * u32 lengths, 24 bytes, was 11 - 16 % of q18's and q7's records: a key of
 * 18 or 9 bytes and a row.)
 */
#define REC_WIDE 0xff

typedef struct mrec {
    union {
        int64_t stamp;
        log_chunk *first; /* a log's (KIND_LOG) first chunk, NULL if none */
    };
    uint32_t vlen;        /* bytes used in the value area */
    uint8_t klen8, nslen8; /* a narrow record's lengths (klen8 REC_WIDE: wide) */
    uint16_t vcap16;      /* a narrow record's bytes available in the value area */
    uint8_t data[];
} mrec;

_Static_assert(sizeof(mrec) == 16, "a record's header is 16 bytes");
_Static_assert(WEIR__SLAB_MAX <= UINT16_MAX, "a narrow record's capacity fits vcap16");

/* A wide record's lengths, at its data (its key follows). */
typedef struct rec_wide {
    uint32_t klen, nslen;
    uint32_t vcap;
    uint32_t unused; /* keeps the key and value 8-aligned */
} rec_wide;

typedef struct ment {
    int64_t stamp;
    uint32_t klen, vlen;
    uint8_t data[];
} ment;

/* A key-group table shared with open snapshots (see the top). */
typedef struct frozen {
    tab t;
    weir_state_kind kind; /* of its records (rec_kind) */
    _Atomic uint32_t refs;
    struct frozen *next; /* on the garbage list */
} frozen;

typedef struct mem_state {
    weir_state base;
    tab *tabs; /* one per owned key group: tabs[kg - kg_lo] */
    frozen **shared; /* per key group: tabs[k] is frozen storage; NULL until
                        the first snapshot */
    uint32_t cl_kg, cl_slot, cl_sub; /* incremental cleanup cursor */
} mem_state;

typedef struct retired {
    void *p;
    size_t size;
} retired;

typedef struct mem_backend {
    weir__backend base;
    weir__slab slab;
    uint32_t n_kg;
    uint64_t meta_bytes; /* state structs and per-key-group table headers */
    retired *retire;     /* freed by the next write; see "Pointer lifetime" */
    size_t n_retire, cap_retire;
    pthread_mutex_t gmu; /* guards garbage */
    frozen *garbage;     /* frozen tables no one references, to free */
    _Atomic bool has_garbage;
    /* a snapshot began: a table may be shared since (until then every set_key's
     * look for shared tables, over all states, finds none: 2 % of a join's instructions) */
    bool snapshotted;
} mem_backend;

/* ---- records ---- */

static inline size_t align8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}
static inline bool rec_is_wide(const mrec *r)
{
    return r->klen8 == REC_WIDE;
}
static inline rec_wide *rec_w(const mrec *r)
{
    return (rec_wide *)(void *)r->data;
}
static inline uint32_t rec_klen(const mrec *r)
{
    return rec_is_wide(r) ? rec_w(r)->klen : r->klen8;
}
static inline uint32_t rec_nslen(const mrec *r)
{
    return rec_is_wide(r) ? rec_w(r)->nslen : r->nslen8;
}
static inline uint32_t rec_vcap(const mrec *r)
{
    return rec_is_wide(r) ? rec_w(r)->vcap : r->vcap16;
}
/* Bytes before the value area: header, wide lengths, key, namespace, padding. */
static inline size_t rec_head(const mrec *r)
{
    size_t w = rec_is_wide(r) ? sizeof(rec_wide) : 0;
    return sizeof(mrec) + w + align8((size_t)rec_klen(r) + rec_nslen(r));
}
static inline uint8_t *rec_key(mrec *r)
{
    return r->data + (rec_is_wide(r) ? sizeof(rec_wide) : 0);
}
static inline uint8_t *rec_ns(mrec *r)
{
    return rec_key(r) + rec_klen(r);
}
static inline uint8_t *rec_val(mrec *r)
{
    return (uint8_t *)r + rec_head(r);
}
static inline size_t rec_size(const mrec *r)
{
    return rec_head(r) + rec_vcap(r);
}
static inline uint8_t *ent_val(ment *e)
{
    return e->data + align8(e->klen);
}
/* The block of an entry with a key of klen bytes and a value of vlen. */
static inline size_t ent_block(size_t klen, size_t vlen)
{
    return weir__slab_round(sizeof(ment) + align8(klen) + vlen);
}
static inline size_t ent_size(const ment *e)
{
    return ent_block(e->klen, e->vlen);
}

/* The head of a log's record (KIND_LOG) with chunks (r->first): its value area. */
static inline log_head *rec_log(mrec *r)
{
    return (log_head *)(void *)rec_val(r);
}
static inline size_t chunk_size(const log_chunk *c)
{
    return weir__slab_round(sizeof(log_chunk) + c->cap);
}
/* Bytes used in chunk c of the log whose head is lh. */
static inline uint32_t chunk_used(const log_head *lh, const log_chunk *c)
{
    return c == lh->last ? lh->len : c->len;
}

/* The map of a MAP record lives in its value area. */
static inline tab *rec_map(mrec *r)
{
    return (tab *)(void *)rec_val(r);
}

static inline uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

/*
 * Slot hash of (current key, ns). The key hash is remixed because every key
 * in one key group's table shares its value modulo max_parallelism.
 */
static inline uint64_t kns_hash_of(uint64_t key_hash, const void *ns,
                                   size_t nslen)
{
    uint64_t h = key_hash;
    if (nslen)
        h ^= XXH3_64bits(ns, nslen) * 0x9E3779B97F4A7C15ULL;
    return mix64(h);
}

static inline uint64_t kns_hash(const weir__backend *be, const void *ns,
                                size_t nslen)
{
    return kns_hash_of(be->key_hash, ns, nslen);
}

static inline uint64_t ukey_hash(const void *k, size_t klen)
{
    return XXH3_64bits(k, klen);
}

static mrec *rec_alloc(mem_backend *mb, const void *key, size_t klen,
                       const void *ns, size_t nslen, size_t want)
{
    size_t off = sizeof(mrec) + align8(klen + nslen);
    size_t sz = weir__slab_round(off + want);
    bool wide = klen >= REC_WIDE || nslen >= REC_WIDE || sz > WEIR__SLAB_MAX;
    if (wide) {
        if (klen > UINT32_MAX || nslen > UINT32_MAX)
            return NULL;
        off += sizeof(rec_wide);
        sz = weir__slab_round(off + want);
        if (sz - off > UINT32_MAX)
            return NULL;
    }
    mrec *r = weir__slab_alloc(&mb->slab, off + want);
    if (!r)
        return NULL;
    r->stamp = WEIR__NO_STAMP;
    r->vlen = 0;
    uint8_t *k = r->data;
    if (wide) {
        r->klen8 = r->nslen8 = REC_WIDE;
        r->vcap16 = 0;
        *rec_w(r) = (rec_wide){(uint32_t)klen, (uint32_t)nslen, (uint32_t)(sz - off), 0};
        k += sizeof(rec_wide);
    } else {
        r->klen8 = (uint8_t)klen;
        r->nslen8 = (uint8_t)nslen;
        r->vcap16 = (uint16_t)(sz - off);
    }
    if (klen)
        memcpy(k, key, klen);
    if (nslen)
        memcpy(k + klen, ns, nslen);
    return r;
}

/* An entry for a value of vlen bytes (e->vlen is set: the block's size
 * follows from it, see ent_block). */
static ment *ent_alloc(mem_backend *mb, const void *k, size_t klen, size_t vlen)
{
    if (klen > UINT32_MAX || vlen > UINT32_MAX)
        return NULL;
    ment *e = weir__slab_alloc(&mb->slab, sizeof(ment) + align8(klen) + vlen);
    if (!e)
        return NULL;
    e->stamp = WEIR__NO_STAMP;
    e->klen = (uint32_t)klen;
    e->vlen = (uint32_t)vlen;
    if (klen)
        memcpy(e->data, k, klen);
    return e;
}

/* A new entry of key k holding value v, written at stamp; NULL when out of memory. */
static ment *ent_new(mem_backend *mb, const void *k, size_t klen, const void *v, size_t vlen, int64_t stamp)
{
    ment *e = ent_alloc(mb, k, klen, vlen);
    if (!e)
        return NULL;
    if (vlen)
        memcpy(ent_val(e), v, vlen);
    e->stamp = stamp;
    return e;
}

/*
 * Entry *pe (key k) given value v at stamp: in place when the value needs
 * a block of the same size, else in a new block that replaces it in *pe
 * (v may point into the old value: it is read before the block is freed).
 */
static int ent_set(mem_backend *mb, slot *pe, const void *k, size_t klen, const void *v, size_t vlen, int64_t stamp)
{
    ment *e = slot_p(*pe);
    if (ent_block(klen, vlen) == ent_size(e)) {
        if (vlen)
            memmove(ent_val(e), v, vlen);
        e->vlen = (uint32_t)vlen;
        e->stamp = stamp;
        return 0;
    }
    ment *n = ent_new(mb, k, klen, v, vlen, stamp);
    if (!n)
        return WEIR_ENOMEM;
    weir__slab_free(&mb->slab, e, ent_size(e));
    *pe = slot_to(*pe, n);
    return 0;
}

/* ---- releasing memory: now (writes) or at the next write (reads) ---- */

static bool retire_reserve(mem_backend *mb, size_t extra)
{
    if (mb->n_retire + extra <= mb->cap_retire)
        return true;
    size_t cap = mb->cap_retire ? mb->cap_retire : 16;
    while (cap < mb->n_retire + extra)
        cap *= 2;
    retired *r = weir_realloc(mb->retire, cap * sizeof *r);
    if (!r)
        return false;
    mb->retire = r;
    mb->cap_retire = cap;
    return true;
}

static void release(mem_backend *mb, void *p, size_t size, bool defer)
{
    if (defer) {
        /* Capacity was reserved by the caller before it unlinked anything. */
        mb->retire[mb->n_retire++] = (retired){p, size};
    } else {
        weir__slab_free(&mb->slab, p, size);
    }
}

static void flush_retired(mem_backend *mb)
{
    for (size_t i = 0; i < mb->n_retire; i++)
        weir__slab_free(&mb->slab, mb->retire[i].p, mb->retire[i].size);
    mb->n_retire = 0;
}

static inline size_t tab_bytes(const tab *t)
{
    return ((size_t)t->mask + 1) * sizeof(slot);
}

/* Blocks a record owns: itself, for a map its slot array and entries, for a log its chunks. */
static size_t rec_blocks(weir_state_kind kind, mrec *r)
{
    if (kind == KIND_LOG) {
        size_t n = 1;
        for (log_chunk *c = r->first; c; c = c->next)
            n++;
        return n;
    }
    if (kind != WEIR_STATE_MAP)
        return 1;
    tab *m = rec_map(r);
    return 2 + m->n;
}

static void rec_release(mem_backend *mb, weir_state_kind kind, mrec *r,
                        bool defer)
{
    if (kind == KIND_LOG) {
        for (log_chunk *c = r->first, *next; c; c = next) {
            next = c->next;
            release(mb, c, chunk_size(c), defer);
        }
    }
    if (kind == WEIR_STATE_MAP) {
        tab *m = rec_map(r);
        if (m->slots) {
            for (uint32_t i = 0; i <= m->mask; i++)
                if (m->slots[i])
                    release(mb, slot_p(m->slots[i]), ent_size(slot_p(m->slots[i])), defer);
            release(mb, m->slots, tab_bytes(m), defer);
        }
    }
    release(mb, r, rec_size(r), defer);
}

/* ---- open-addressing tables ---- */

/*
 * The home slot, in a table of mask, of the entry in slot s: from its tag,
 * or for a table larger than the tag reaches from its key (ents: a map's
 * entry, else a record, whose key hash is weir_key_hash of its key as for
 * every key set: a restore places records by it too).
 */
static uint32_t slot_home(slot s, uint32_t mask, bool ents)
{
    if (mask <= SLOT_TAG_MASK)
        return (uint32_t)(s >> SLOT_PTR_BITS) & mask;
    if (ents) {
        ment *e = slot_p(s);
        return (uint32_t)ukey_hash(e->data, e->klen) & mask;
    }
    mrec *r = slot_p(s);
    uint64_t kh = weir_key_hash(rec_key(r), rec_klen(r));
    return (uint32_t)kns_hash_of(kh, rec_ns(r), rec_nslen(r)) & mask;
}

static int tab_resize(mem_backend *mb, tab *t, uint32_t n_slots, bool ents)
{
    slot *s = weir__slab_alloc(&mb->slab, (size_t)n_slots * sizeof(slot));
    if (!s)
        return WEIR_ENOMEM;
    memset(s, 0, (size_t)n_slots * sizeof(slot));
    uint32_t mask = n_slots - 1;
    if (t->slots) {
        for (uint32_t i = 0; i <= t->mask; i++) {
            if (!t->slots[i])
                continue;
            uint32_t j = slot_home(t->slots[i], mask, ents);
            while (s[j])
                j = (j + 1) & mask;
            s[j] = t->slots[i];
        }
        weir__slab_free(&mb->slab, t->slots, tab_bytes(t));
    }
    t->slots = s;
    t->mask = mask;
    return 0;
}

/* Makes room for one more entry so that a following probe finds an empty slot.
 */
static inline int tab_reserve(mem_backend *mb, tab *t, uint32_t min_slots, bool ents)
{
    if (!t->slots)
        return tab_resize(mb, t, min_slots, ents);
    if ((uint64_t)(t->n + 1) * 4 > (uint64_t)(t->mask + 1) * 3) {
        if (t->mask >= UINT32_MAX / 4)
            return WEIR_ENOMEM;
        return tab_resize(mb, t, (t->mask + 1) * 2, ents);
    }
    return 0;
}

/* Removes slot i, shifting back the entries of its probe run. */
static void tab_remove_at(tab *t, uint32_t i, bool ents)
{
    uint32_t mask = t->mask;
    uint32_t j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (!t->slots[j])
            break;
        uint32_t home = slot_home(t->slots[j], mask, ents);
        /* The entry at j may move to i only if its home is not in (i, j]. */
        bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
        if (stays)
            continue;
        t->slots[i] = t->slots[j];
        i = j;
    }
    t->slots[i] = 0;
    t->n--;
}

#define NONE UINT32_MAX

/* Whether record r is (key, ns). */
static inline bool rec_has(mrec *r, const uint8_t *key, size_t klen,
                           const void *ns, size_t nslen)
{
    const uint8_t *k = r->data;
    /* A narrow record's lengths are its klen8 and nslen8 (klen8 below
     * REC_WIDE); a wide one may hold short lengths too (a large block). */
    if (klen >= REC_WIDE || r->klen8 != klen || r->nslen8 != nslen) {
        if (!rec_is_wide(r) || rec_w(r)->klen != klen || rec_w(r)->nslen != nslen)
            return false;
        k += sizeof(rec_wide);
    }
    return (klen == 0 || memcmp(k, key, klen) == 0) &&
           (nslen == 0 || memcmp(k + klen, ns, nslen) == 0);
}

/*
 * Probes for (key, ns). Returns the slot index of the match, or NONE; *empty
 * gets the first empty slot of the run (where an insert goes).
 */
static inline uint32_t rec_find(const tab *t, uint64_t h, const uint8_t *key,
                                size_t klen, const void *ns, size_t nslen,
                                uint32_t *empty)
{
    if (!t->slots) {
        *empty = NONE;
        return NONE;
    }
    uint32_t i = (uint32_t)h & t->mask;
    for (;;) {
        slot s = t->slots[i];
        if (!s) {
            *empty = i;
            return NONE;
        }
        if (slot_tag_is(s, h)) {
            mrec *r = slot_p(s);
            if (rec_has(r, key, klen, ns, nslen))
                return i;
        }
        i = (i + 1) & t->mask;
    }
}

static inline uint32_t ent_find(const tab *m, uint64_t h, const void *k,
                                size_t klen, uint32_t *empty)
{
    if (!m->slots) {
        *empty = NONE;
        return NONE;
    }
    uint32_t i = (uint32_t)h & m->mask;
    for (;;) {
        slot s = m->slots[i];
        if (!s) {
            *empty = i;
            return NONE;
        }
        if (slot_tag_is(s, h)) {
            ment *e = slot_p(s);
            if (e->klen == klen && (klen == 0 || memcmp(e->data, k, klen) == 0))
                return i;
        }
        i = (i + 1) & m->mask;
    }
}

/* ---- list elements ---- */

static inline uint32_t elem_len(const uint8_t *p)
{
    uint32_t n;
    memcpy(&n, p, 4);
    return n;
}
static inline int64_t elem_stamp(const uint8_t *p)
{
    int64_t s;
    memcpy(&s, p + 4, 8);
    return s;
}
static inline void elem_set_stamp(uint8_t *p, int64_t s)
{
    memcpy(p + 4, &s, 8);
}

/*
 * The header of a log's element of len bytes (see log_head): the length
 * alone, LEB128 (one byte up to 127, two up to 16383), where a list of a
 * state with TTL has ELEM_HDR bytes: a join's row log keeps millions of
 * rows, and 12 bytes were 7 % of each. log_hdr_read returns its size.
 */
static inline size_t log_hdr_size(size_t len)
{
    size_t n = 1;
    while (len >= 0x80) {
        len >>= 7;
        n++;
    }
    return n;
}
static inline size_t log_hdr_read(const uint8_t *p, uint32_t *len)
{
    uint32_t v = 0;
    size_t i = 0;
    for (int shift = 0;; shift += 7) {
        uint8_t b = p[i++];
        v |= (uint32_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            break;
    }
    *len = v;
    return i;
}
static inline size_t log_hdr_put(uint8_t *p, uint32_t len)
{
    size_t i = 0;
    for (; len >= 0x80; len >>= 7)
        p[i++] = (uint8_t)(len | 0x80);
    p[i++] = (uint8_t)len;
    return i;
}

/* Drops the expired elements of a TTL state's list in place; returns the new stamp (newest left). */
static int64_t list_compact(mrec *r, int64_t now, int64_t ttl_ms)
{
    uint8_t *v = rec_val(r);
    size_t in = 0, out = 0;
    int64_t newest = WEIR__NO_STAMP;
    while (in < r->vlen) {
        size_t esz = ELEM_HDR + elem_len(v + in);
        int64_t s = elem_stamp(v + in);
        if (!weir__ttl_expired(s, now, ttl_ms)) {
            if (out != in)
                memmove(v + out, v + in, esz);
            out += esz;
            if (s > newest)
                newest = s;
        }
        in += esz;
    }
    r->vlen = (uint32_t)out;
    return newest;
}

/* ---- backend plumbing ---- */

static inline mem_backend *MB(weir__backend *be)
{
    return (mem_backend *)be;
}
static inline mem_state *MS(weir_state *st)
{
    return (mem_state *)st;
}
/*
 * The kind of st's records: a list of a state bound without TTL is a log. A
 * list that a restore loads before its state is bound (its TTL not known
 * yet) keeps its elements with their stamps, and becomes a log if the state
 * is bound without TTL (mem_state_bound).
 */
static inline weir_state_kind rec_kind(const weir_state *st)
{
    return st->desc.kind == WEIR_STATE_LIST && st->bound &&
                   !weir__state_has_ttl(st)
               ? KIND_LOG
               : st->desc.kind;
}
static inline tab *cur_tab(mem_state *ms)
{
    return &ms->tabs[ms->base.be->kg - ms->base.be->kg_lo];
}

static inline int64_t stamp_now(weir_state *st, int64_t now)
{
    return weir__state_has_ttl(st) ? now : WEIR__NO_STAMP;
}

static inline bool rec_expired(weir_state *st, const mrec *r, int64_t now)
{
    return weir__state_has_ttl(st) &&
           weir__ttl_expired(r->stamp, now, st->ttl_ms);
}

/* Unlinks record slot i of t and releases it. A deferred release needs room on
 * the retire list. */
static bool remove_rec_at(mem_backend *mb, mem_state *ms, tab *t, uint32_t i,
                          bool defer)
{
    mrec *r = slot_p(t->slots[i]);
    if (defer && !retire_reserve(mb, rec_blocks(rec_kind(&ms->base), r)))
        return false; /* leave it; it stays invisible and is found again later
                       */
    tab_remove_at(t, i, false);
    rec_release(mb, rec_kind(&ms->base), r, defer);
    return true;
}

static bool remove_ent_at(mem_backend *mb, tab *m, uint32_t i, bool defer)
{
    ment *e = slot_p(m->slots[i]);
    if (defer && !retire_reserve(mb, 1))
        return false;
    tab_remove_at(m, i, true);
    release(mb, e, ent_size(e), defer);
    return true;
}

/*
 * One incremental cleanup step for a TTL state: examine a few records at the
 * cursor and remove what has expired. defer: called from a read.
 */
static void cleanup_step(mem_backend *mb, mem_state *ms, int64_t now,
                         bool defer)
{
    weir_state *st = &ms->base;
    if (mb->n_kg == 0)
        return;
    int examined = 0, probes = 0;
    while (examined < CLEANUP_RECORDS && probes < CLEANUP_PROBES) {
        probes++;
        tab *t = &ms->tabs[ms->cl_kg];
        /* A table a snapshot still reads is cleaned after it was copied. */
        if (!t->slots || t->n == 0 || ms->cl_slot > t->mask ||
            (ms->shared && ms->shared[ms->cl_kg])) {
            ms->cl_kg = (ms->cl_kg + 1) % mb->n_kg;
            ms->cl_slot = 0;
            ms->cl_sub = 0;
            continue;
        }
        slot s = t->slots[ms->cl_slot];
        if (!s) {
            ms->cl_slot++;
            ms->cl_sub = 0;
            continue;
        }
        examined++;
        mrec *r = slot_p(s);
        if (weir__ttl_expired(r->stamp, now, st->ttl_ms)) {
            /* The backward shift may bring another record here: look at this
             * slot again. */
            if (!remove_rec_at(mb, ms, t, ms->cl_slot, defer))
                ms->cl_slot++;
            ms->cl_sub = 0;
            continue;
        }
        if (st->desc.kind == WEIR_STATE_LIST && r->vlen &&
            weir__ttl_expired(elem_stamp(rec_val(r)), now, st->ttl_ms)) {
            /* Compaction only moves element bytes, which no read pointer
             * outlives. */
            r->stamp = list_compact(r, now, st->ttl_ms);
        } else if (st->desc.kind == WEIR_STATE_MAP) {
            tab *m = rec_map(r);
            int budget = CLEANUP_RECORDS;
            while (budget-- > 0 && m->slots && ms->cl_sub <= m->mask) {
                slot es = m->slots[ms->cl_sub];
                if (es && weir__ttl_expired(((ment *)slot_p(es))->stamp, now,
                                               st->ttl_ms)) {
                    if (remove_ent_at(mb, m, ms->cl_sub, defer))
                        continue;
                }
                ms->cl_sub++;
            }
            if (m->n == 0) {
                if (!remove_rec_at(mb, ms, t, ms->cl_slot, defer))
                    ms->cl_slot++;
                ms->cl_sub = 0;
                continue;
            }
            if (m->slots && ms->cl_sub <= m->mask)
                return; /* continue inside this map at the next access */
        }
        ms->cl_slot++;
        ms->cl_sub = 0;
    }
}

/* Runs after every access to a TTL state, once the access has used its
 * arguments. */
static inline void after_access(mem_backend *mb, mem_state *ms, int64_t now,
                                bool write)
{
    if (weir__state_has_ttl(&ms->base))
        cleanup_step(mb, ms, now, !write);
    if (write && mb->n_retire)
        flush_retired(mb);
}

static inline int64_t access_now(weir_state *st)
{
    return weir__state_has_ttl(st) ? weir__now(st->be) : 0;
}

/* ---- value, reducing, aggregating ---- */

/* The live value of (key, ns) in t, its slot hash h (weir_value_get). */
static inline int value_get_in(weir_state *st, tab *t, uint64_t h, const uint8_t *key,
                        size_t klen, const void *ns, size_t nslen,
                        const void **val, size_t *len)
{
    mem_backend *mb = MB(st->be);
    mem_state *ms = MS(st);
    uint32_t empty = NONE;
    uint32_t i = rec_find(t, h, key, klen, ns, nslen, &empty);
    int64_t now = access_now(st);
    int rc = WEIR_ENOTFOUND;
    if (i != NONE) {
        mrec *r = slot_p(t->slots[i]);
        if (rec_expired(st, r, now)) {
            remove_rec_at(mb, ms, t, i, true);
        } else {
            if (weir__state_has_ttl(st) &&
                st->desc.ttl_update == WEIR_TTL_ON_READ_AND_WRITE)
                r->stamp = now;
            *val = rec_val(r);
            *len = r->vlen;
            rc = 0;
        }
    }
    after_access(mb, ms, now, false);
    return rc;
}

static int mem_get(weir_state *st, const void *ns, size_t nslen,
                   const void **val, size_t *len)
{
    return value_get_in(st, cur_tab(MS(st)), kns_hash(st->be, ns, nslen),
                        st->be->key, st->be->key_len, ns, nslen, val, len);
}

/*
 * Stores len bytes as the value of (current key, ns): in place when they fit,
 * else in a new record. val may point into the old record.
 */
static int store_value(mem_backend *mb, mem_state *ms, const void *ns,
                       size_t nslen, const void *val, size_t len, int64_t stamp)
{
    weir__backend *be = &mb->base;
    tab *t = cur_tab(ms);
    int rc = tab_reserve(mb, t, TAB_MIN, false);
    if (rc)
        return rc;
    uint64_t h = kns_hash(be, ns, nslen);
    uint32_t empty = NONE;
    uint32_t i = rec_find(t, h, be->key, be->key_len, ns, nslen, &empty);
    if (i != NONE) {
        mrec *r = slot_p(t->slots[i]);
        if (len <= rec_vcap(r)) {
            if (len)
                memmove(rec_val(r), val, len);
            r->vlen = (uint32_t)len;
            r->stamp = stamp;
            return 0;
        }
        mrec *n = rec_alloc(mb, be->key, be->key_len, ns, nslen, len);
        if (!n)
            return WEIR_ENOMEM;
        memcpy(rec_val(n), val, len);
        n->vlen = (uint32_t)len;
        n->stamp = stamp;
        weir__slab_free(&mb->slab, r, rec_size(r));
        t->slots[i] = slot_to(t->slots[i], n);
        return 0;
    }
    mrec *r = rec_alloc(mb, be->key, be->key_len, ns, nslen, len);
    if (!r)
        return WEIR_ENOMEM;
    if (len)
        memcpy(rec_val(r), val, len);
    r->vlen = (uint32_t)len;
    r->stamp = stamp;
    t->slots[empty] = slot_make(h, r);
    t->n++;
    return 0;
}

static int mem_put(weir_state *st, const void *ns, size_t nslen,
                   const void *val, size_t len)
{
    int64_t now = access_now(st);
    int rc = store_value(MB(st->be), MS(st), ns, nslen, val, len,
                         stamp_now(st, now));
    after_access(MB(st->be), MS(st), now, true);
    return rc;
}

static int mem_update(weir_state *st, const void *ns, size_t nslen,
                      weir__update_fn fn, void *ud)
{
    mem_backend *mb = MB(st->be);
    mem_state *ms = MS(st);
    weir__backend *be = st->be;
    tab *t = cur_tab(ms);
    int64_t now = access_now(st);
    uint32_t empty = NONE;
    uint32_t i = rec_find(t, kns_hash(be, ns, nslen), be->key, be->key_len, ns,
                          nslen, &empty);
    const void *old = NULL;
    size_t oldlen = 0;
    if (i != NONE) {
        mrec *r = slot_p(t->slots[i]);
        if (!rec_expired(st, r, now)) {
            old = rec_val(r);
            oldlen = r->vlen;
        }
    }
    weir_buf_clear(&be->scratch);
    int rc = fn(ud, old, oldlen, &be->scratch);
    if (!rc)
        rc = store_value(mb, ms, ns, nslen, be->scratch.data, be->scratch.len,
                         stamp_now(st, now));
    after_access(mb, ms, now, true);
    return rc;
}

/*
 * The value of (key, ns) in t, its slot hash h, rewritten where it lies
 * (weir_value_edit): in its record when len fits the room there (its length
 * and stamp change only when fn succeeds), else in a new record that takes
 * the old bytes first (the old record stays when fn fails).
 */
static inline int value_edit_in(weir_state *st, tab *t, uint64_t h,
                         const uint8_t *key, size_t klen, const void *ns,
                         size_t nslen, size_t len, size_t keep_max,
                         weir_value_edit_fn fn, void *ud)
{
    mem_backend *mb = MB(st->be);
    mem_state *ms = MS(st);
    int64_t now = access_now(st);
    int rc = tab_reserve(mb, t, TAB_MIN, false);
    if (rc)
        goto out;
    uint32_t empty = NONE;
    uint32_t i = rec_find(t, h, key, klen, ns, nslen, &empty);
    mrec *r = i != NONE ? slot_p(t->slots[i]) : NULL;
    size_t keep = 0;
    if (r && !rec_expired(st, r, now))
        keep = r->vlen < len ? r->vlen : len;
    if (keep > keep_max) /* the caller writes the rest itself */
        keep = keep_max;
    if (r && len <= rec_vcap(r)) {
        if ((rc = fn(ud, rec_val(r), len, keep)) >= 0) {
            r->vlen = (uint32_t)len;
            r->stamp = stamp_now(st, now);
        }
        goto out;
    }
    mrec *n = rec_alloc(mb, key, klen, ns, nslen, len);
    if (!n) {
        rc = WEIR_ENOMEM;
        goto out;
    }
    if (keep)
        memcpy(rec_val(n), rec_val(r), keep);
    n->vlen = (uint32_t)len;
    n->stamp = stamp_now(st, now);
    if ((rc = fn(ud, rec_val(n), len, keep)) < 0) {
        weir__slab_free(&mb->slab, n, rec_size(n));
        goto out;
    }
    if (r) {
        weir__slab_free(&mb->slab, r, rec_size(r));
        t->slots[i] = slot_to(t->slots[i], n);
    } else {
        t->slots[empty] = slot_make(h, n);
        t->n++;
    }
out:
    after_access(mb, ms, now, true);
    return rc < 0 ? rc : 0;
}

static int mem_value_edit(weir_state *st, const void *ns, size_t nslen,
                          size_t len, size_t keep_max, weir_value_edit_fn fn,
                          void *ud)
{
    weir__backend *be = st->be;
    return value_edit_in(st, cur_tab(MS(st)), kns_hash(be, ns, nslen), be->key,
                         be->key_len, ns, nslen, len, keep_max, fn, ud);
}

static void collect_garbage(mem_backend *mb);

/*
 * The table of the key group of a key of hash key_hash, where that key can be
 * read or written without being the current key (weir__value_get_key): NULL
 * when a snapshot still shares it (setting the key copies it first) or
 * another subtask owns it. Frozen tables the snapshots are done with are
 * freed first, as at a change of key.
 */
static inline tab *key_tab(weir_state *st, uint64_t key_hash)
{
    weir__backend *be = st->be;
    mem_state *ms = MS(st);
    uint32_t kg = weir_key_group(key_hash, be->max_parallelism);
    if (kg < be->kg_lo || kg >= be->kg_hi ||
        (ms->shared && ms->shared[kg - be->kg_lo]))
        return NULL;
    if (atomic_load_explicit(&MB(be)->has_garbage, memory_order_relaxed))
        collect_garbage(MB(be));
    return &ms->tabs[kg - be->kg_lo];
}

static int mem_get_key(weir_state *st, const void *key, size_t klen,
                       uint64_t key_hash, const void **val, size_t *len)
{
    tab *t = key_tab(st, key_hash);
    if (!t)
        return 1;
    /* kns_hash of the empty namespace */
    return value_get_in(st, t, mix64(key_hash), key, klen, NULL, 0, val, len);
}

static int mem_value_edit_key(weir_state *st, const void *key, size_t klen,
                              uint64_t key_hash, size_t len, size_t keep_max,
                              weir_value_edit_fn fn, void *ud)
{
    tab *t = key_tab(st, key_hash);
    if (!t)
        return 1;
    return value_edit_in(st, t, mix64(key_hash), key, klen, NULL, 0, len,
                         keep_max, fn, ud);
}

static int mem_clear(weir_state *st, const void *ns, size_t nslen)
{
    mem_backend *mb = MB(st->be);
    mem_state *ms = MS(st);
    tab *t = cur_tab(ms);
    uint32_t empty = NONE;
    uint32_t i = rec_find(t, kns_hash(st->be, ns, nslen), st->be->key,
                          st->be->key_len, ns, nslen, &empty);
    if (i != NONE)
        remove_rec_at(mb, ms, t, i, false);
    after_access(mb, ms, access_now(st), true);
    return 0;
}

/* ---- list ---- */

static int append_elem(mem_backend *mb, mem_state *ms, const void *ns,
                       size_t nslen, const void *val, size_t len, int64_t stamp,
                       int64_t now)
{
    weir__backend *be = &mb->base;
    weir_state *st = &ms->base;
    tab *t = cur_tab(ms);
    int rc = tab_reserve(mb, t, TAB_MIN, false);
    if (rc)
        return rc;
    uint64_t h = kns_hash(be, ns, nslen);
    uint32_t empty = NONE;
    uint32_t i = rec_find(t, h, be->key, be->key_len, ns, nslen, &empty);
    size_t esz = ELEM_HDR + len;
    mrec *r;
    if (i != NONE) {
        r = slot_p(t->slots[i]);
        if (rec_expired(st, r, now))
            r->vlen =
                0; /* everything in it is dead: start over in the same record */
        if ((size_t)r->vlen + esz > rec_vcap(r)) {
            size_t want = (size_t)r->vlen + esz;
            if (want < (size_t)rec_vcap(r) * 2)
                want = (size_t)rec_vcap(r) * 2;
            if ((size_t)r->vlen + esz > UINT32_MAX)
                return WEIR_ENOMEM;
            if (want > UINT32_MAX)
                want = UINT32_MAX;
            uintptr_t vp = (uintptr_t)val, rp = (uintptr_t)r;
            size_t off = rec_head(r);
            size_t need = off + want;
            size_t cap = weir__slab_round(need) - off;
            if (rec_size(r) > WEIR__SLAB_MAX && cap <= UINT32_MAX &&
                !(vp >= rp && vp < rp + rec_size(r))) {
                /* A large list grows in place where the allocator can: its
                 * elements are neither copied nor given new pages. (Its
                 * record is wide: its block is larger than the slab's.) */
                mrec *n = weir__slab_grow(&mb->slab, r, rec_size(r), need);
                if (!n)
                    return WEIR_ENOMEM;
                rec_w(n)->vcap = (uint32_t)cap;
                t->slots[i] = slot_to(t->slots[i], n);
                r = n;
                goto append;
            }
            mrec *n = rec_alloc(mb, be->key, be->key_len, ns, nslen, want);
            if (!n)
                return WEIR_ENOMEM;
            memcpy(rec_val(n), rec_val(r), r->vlen);
            n->vlen = r->vlen;
            n->stamp = r->stamp;
            /* Write the new element before freeing r: val may point into it. */
            uint8_t *e = rec_val(n) + n->vlen;
            uint32_t l32 = (uint32_t)len;
            memcpy(e, &l32, 4);
            elem_set_stamp(e, stamp);
            if (len)
                memcpy(e + ELEM_HDR, val, len);
            n->vlen += (uint32_t)esz;
            if (stamp > n->stamp)
                n->stamp = stamp;
            weir__slab_free(&mb->slab, r, rec_size(r));
            t->slots[i] = slot_to(t->slots[i], n);
            return 0;
        }
    } else {
        r = rec_alloc(mb, be->key, be->key_len, ns, nslen, esz);
        if (!r)
            return WEIR_ENOMEM;
        t->slots[empty] = slot_make(h, r);
        t->n++;
    }
append:;
    uint8_t *e = rec_val(r) + r->vlen;
    uint32_t l32 = (uint32_t)len;
    memcpy(e, &l32, 4);
    elem_set_stamp(e, stamp);
    if (len)
        memmove(e + ELEM_HDR, val, len);
    r->vlen += (uint32_t)esz;
    if (stamp > r->stamp)
        r->stamp = stamp;
    return 0;
}

/* Appends an element to the log of (current key, ns): see log_head. */
static int log_append(mem_backend *mb, mem_state *ms, const void *ns, size_t nslen, const void *val, size_t len)
{
    weir__backend *be = &mb->base;
    tab *t = cur_tab(ms);
    int rc = tab_reserve(mb, t, TAB_MIN, false);
    if (rc)
        return rc;
    if (len > UINT32_MAX - 8)
        return WEIR_ENOMEM;
    uint64_t h = kns_hash(be, ns, nslen);
    uint32_t empty = NONE;
    uint32_t i = rec_find(t, h, be->key, be->key_len, ns, nslen, &empty);
    size_t esz = log_hdr_size(len) + len;
    uint8_t *e;
    mrec *old = NULL; /* a record the log left, freed once val was read */
    if (i == NONE) {
        mrec *r = rec_alloc(mb, be->key, be->key_len, ns, nslen, esz);
        if (!r)
            return WEIR_ENOMEM;
        r->first = NULL;
        e = rec_val(r);
        r->vlen = (uint32_t)esz;
        t->slots[empty] = slot_make(h, r);
        t->n++;
    } else {
        mrec *r = slot_p(t->slots[i]);
        log_head *lh = rec_log(r); /* once it has chunks */
        if (!r->first && (size_t)r->vlen + esz <= rec_vcap(r)) {
            e = rec_val(r) + r->vlen;
            r->vlen += (uint32_t)esz;
        } else if (r->first && (size_t)lh->len + esz <= lh->cap) {
            e = lh->last->data + lh->len;
            lh->len += (uint32_t)esz;
        } else if (!r->first && (size_t)r->vlen + esz <= LOG_REC_MAX) {
            mrec *n = rec_alloc(mb, be->key, be->key_len, ns, nslen, r->vlen + esz);
            if (!n)
                return WEIR_ENOMEM;
            n->first = NULL;
            memcpy(rec_val(n), rec_val(r), r->vlen);
            e = rec_val(n) + r->vlen;
            n->vlen = r->vlen + (uint32_t)esz;
            t->slots[i] = slot_to(t->slots[i], n);
            old = r;
        } else {
            /* A new chunk; the first one takes the record's elements over. */
            size_t used = r->first ? 0 : r->vlen;
            size_t cap = 3 * (size_t)(r->first ? lh->cap : rec_vcap(r)) / 2;
            if (cap > LOG_CHUNK - sizeof(log_chunk))
                cap = LOG_CHUNK - sizeof(log_chunk);
            if (used + esz > UINT32_MAX - sizeof(log_chunk) - 16)
                return WEIR_ENOMEM; /* a chunk's capacity is a u32 */
            if (cap < used + esz)
                cap = used + esz;
            size_t sz = weir__slab_round(sizeof(log_chunk) + cap);
            log_chunk *c = weir__slab_alloc(&mb->slab, sz);
            if (!c)
                return WEIR_ENOMEM;
            c->next = NULL;
            c->cap = (uint32_t)(sz - sizeof(log_chunk));
            c->len = 0; /* kept in the head while c is the last */
            if (r->first) {
                lh->last->len = lh->len;
                lh->last->next = c;
                *lh = (log_head){c, (uint32_t)esz, c->cap};
            } else {
                mrec *n = rec_alloc(mb, be->key, be->key_len, ns, nslen, sizeof(log_head));
                if (!n) {
                    weir__slab_free(&mb->slab, c, sz);
                    return WEIR_ENOMEM;
                }
                memcpy(c->data, rec_val(r), used);
                n->first = c;
                n->vlen = sizeof(log_head);
                *rec_log(n) = (log_head){c, (uint32_t)(used + esz), c->cap};
                t->slots[i] = slot_to(t->slots[i], n);
                old = r;
            }
            e = c->data + used;
        }
    }
    /* val may point into this log: into a chunk (never moved) or the record left. */
    size_t hs = log_hdr_put(e, (uint32_t)len);
    if (len)
        memcpy(e + hs, val, len);
    if (old)
        weir__slab_free(&mb->slab, old, rec_size(old));
    return 0;
}

/* Calls fn(ud, element, its length) for each element in bytes [p, end) of a log; stops at a non-zero return, which it returns. */
typedef int (*log_elem_fn)(void *ud, const uint8_t *v, size_t len);
static int log_bytes(const uint8_t *p, const uint8_t *end, log_elem_fn fn, void *ud)
{
    while (p < end) {
        uint32_t len;
        p += log_hdr_read(p, &len);
        int x = fn(ud, p, len);
        if (x)
            return x;
        p += len;
    }
    return 0;
}

/* Every element of log record r, in order; a non-zero return of fn stops the walk and is returned. */
static int log_walk(mrec *r, log_elem_fn fn, void *ud)
{
    if (!r->first)
        return log_bytes(rec_val(r), rec_val(r) + r->vlen, fn, ud);
    const log_head *lh = rec_log(r);
    int x = 0;
    for (const log_chunk *c = r->first; !x && c; c = c->next)
        x = log_bytes(c->data, c->data + chunk_used(lh, c), fn, ud);
    return x;
}

typedef struct list_visit {
    weir_list_visit_fn fn;
    void *ud;
} list_visit;

static int log_visit(void *ud, const uint8_t *v, size_t len)
{
    list_visit *lv = ud;
    return lv->fn(lv->ud, v, len);
}

static int mem_list_add(weir_state *st, const void *ns, size_t nslen,
                        const void *val, size_t len)
{
    int64_t now = access_now(st);
    int rc = weir__state_has_ttl(st)
                 ? append_elem(MB(st->be), MS(st), ns, nslen, val, len, stamp_now(st, now), now)
                 : log_append(MB(st->be), MS(st), ns, nslen, val, len);
    after_access(MB(st->be), MS(st), now, true);
    return rc;
}

static int mem_list_get(weir_state *st, const void *ns, size_t nslen,
                        weir_list_visit_fn fn, void *ud)
{
    mem_backend *mb = MB(st->be);
    mem_state *ms = MS(st);
    tab *t = cur_tab(ms);
    uint32_t empty = NONE;
    uint32_t i = rec_find(t, kns_hash(st->be, ns, nslen), st->be->key,
                          st->be->key_len, ns, nslen, &empty);
    int64_t now = access_now(st);
    int rc = 0;
    if (i == NONE)
        goto out;
    mrec *r = slot_p(t->slots[i]);
    if (rec_expired(st, r, now)) {
        remove_rec_at(mb, ms, t, i, true);
        goto out;
    }
    if (!weir__state_has_ttl(st)) {
        list_visit lv = {fn, ud};
        int x = log_walk(r, log_visit, &lv);
        rc = x < 0 ? x : 0;
        goto out;
    }
    size_t n_expired = 0;
    uint8_t *v = rec_val(r);
    for (size_t off = 0; off < r->vlen;) {
        uint32_t len = elem_len(v + off);
        if (weir__ttl_expired(elem_stamp(v + off), now, st->ttl_ms)) {
            n_expired++;
        } else {
            int x = fn(ud, v + off + ELEM_HDR, len);
            if (x) {
                rc = x < 0 ? x : 0;
                break;
            }
        }
        off += ELEM_HDR + len;
    }
    if (n_expired)
        r->stamp = list_compact(r, now, st->ttl_ms);
    if (st->desc.ttl_update == WEIR_TTL_ON_READ_AND_WRITE) {
        for (size_t off = 0; off < r->vlen; off += ELEM_HDR + elem_len(v + off))
            elem_set_stamp(v + off, now);
        r->stamp = now;
    }
    if (r->vlen == 0)
        remove_rec_at(mb, ms, t, i, true);
out:
    after_access(mb, ms, now, false);
    return rc;
}

/* ---- map ---- */

/* Puts entry k (eh: its ukey_hash) of the map of (current key, ns). */
static int map_store(mem_backend *mb, mem_state *ms, const void *ns,
                     size_t nslen, const void *k, size_t klen, uint64_t eh,
                     const void *v, size_t vlen, int64_t stamp, int64_t now)
{
    weir__backend *be = &mb->base;
    weir_state *st = &ms->base;
    tab *t = cur_tab(ms);
    int rc = tab_reserve(mb, t, TAB_MIN, false);
    if (rc)
        return rc;
    uint64_t h = kns_hash(be, ns, nslen);
    uint32_t empty = NONE;
    uint32_t i = rec_find(t, h, be->key, be->key_len, ns, nslen, &empty);
    mrec *r;
    bool created = false;
    if (i == NONE) {
        r = rec_alloc(mb, be->key, be->key_len, ns, nslen, sizeof(tab));
        if (!r)
            return WEIR_ENOMEM;
        memset(rec_map(r), 0, sizeof(tab));
        r->vlen = sizeof(tab);
        i = empty;
        t->slots[i] = slot_make(h, r);
        t->n++;
        created = true;
    } else {
        r = slot_p(t->slots[i]);
        if (rec_expired(st, r, now)) {
            /* Everything in it is dead; drop it and start an empty map in its
             * place. */
            tab *m = rec_map(r);
            if (m->slots) {
                for (uint32_t j = 0; j <= m->mask; j++)
                    if (slot_p(m->slots[j]))
                        weir__slab_free(&mb->slab, slot_p(m->slots[j]),
                                        ent_size(slot_p(m->slots[j])));
                memset(m->slots, 0, tab_bytes(m));
                m->n = 0;
            }
        }
    }
    tab *m = rec_map(r);
    uint32_t eempty = NONE;
    uint32_t j;
    if ((rc = tab_reserve(mb, m, MAP_MIN, true)))
        goto fail;
    j = ent_find(m, eh, k, klen, &eempty);
    if (j != NONE) {
        if ((rc = ent_set(mb, &m->slots[j], k, klen, v, vlen, stamp)))
            goto fail;
    } else {
        ment *e = ent_new(mb, k, klen, v, vlen, stamp);
        if (!e) {
            rc = WEIR_ENOMEM;
            goto fail;
        }
        m->slots[eempty] = slot_make(eh, e);
        m->n++;
    }
    if (stamp > r->stamp)
        r->stamp = stamp;
    return 0;
fail:
    if (created || m->n == 0)
        remove_rec_at(mb, ms, t, i, false);
    return rc;
}

static int mem_map_put(weir_state *st, const void *ns, size_t nslen,
                       const void *k, size_t klen, const void *v, size_t vlen)
{
    int64_t now = access_now(st);
    int rc = map_store(MB(st->be), MS(st), ns, nslen, k, klen,
                       ukey_hash(k, klen), v, vlen,
                       stamp_now(st, now), now);
    after_access(MB(st->be), MS(st), now, true);
    return rc;
}

/* Finds the live map record of (current key, ns); removes it (deferred) if
 * expired. */
static mrec *map_find(mem_backend *mb, mem_state *ms, const void *ns,
                      size_t nslen, int64_t now, uint32_t *idx)
{
    weir__backend *be = &mb->base;
    tab *t = cur_tab(ms);
    uint32_t empty = NONE;
    uint32_t i = rec_find(t, kns_hash(be, ns, nslen), be->key, be->key_len, ns,
                          nslen, &empty);
    if (i == NONE)
        return NULL;
    mrec *r = slot_p(t->slots[i]);
    if (rec_expired(&ms->base, r, now)) {
        remove_rec_at(mb, ms, t, i, true);
        return NULL;
    }
    *idx = i;
    return r;
}

/* The live map record of (current key, ns) (slot *i), or NULL; *j: the slot
 * of entry k in its table, NONE when absent. */
static mrec *map_entry(mem_backend *mb, mem_state *ms, const void *ns,
                       size_t nslen, const void *k, size_t klen, int64_t now,
                       uint32_t *i, uint32_t *j)
{
    mrec *r = map_find(mb, ms, ns, nslen, now, i);
    uint32_t empty = NONE;
    *j = r ? ent_find(rec_map(r), ukey_hash(k, klen), k, klen, &empty) : NONE;
    return r;
}

static int mem_map_get(weir_state *st, const void *ns, size_t nslen,
                       const void *k, size_t klen, const void **v, size_t *vlen)
{
    mem_backend *mb = MB(st->be);
    mem_state *ms = MS(st);
    int64_t now = access_now(st);
    int rc = WEIR_ENOTFOUND;
    uint32_t i, j;
    mrec *r = map_entry(mb, ms, ns, nslen, k, klen, now, &i, &j);
    if (r) {
        tab *m = rec_map(r);
        if (j != NONE) {
            ment *e = slot_p(m->slots[j]);
            if (weir__state_has_ttl(st) &&
                weir__ttl_expired(e->stamp, now, st->ttl_ms)) {
                remove_ent_at(mb, m, j, true);
                if (m->n == 0)
                    remove_rec_at(mb, ms, cur_tab(ms), i, true);
            } else {
                if (weir__state_has_ttl(st) &&
                    st->desc.ttl_update == WEIR_TTL_ON_READ_AND_WRITE) {
                    e->stamp = now;
                    r->stamp = now;
                }
                *v = ent_val(e);
                *vlen = e->vlen;
                rc = 0;
            }
        }
    }
    after_access(mb, ms, now, false);
    return rc;
}

static int mem_stamp(weir_state *st, const void *ns, size_t nslen,
                     const void *k, size_t klen, int64_t *stamp)
{
    weir__backend *be = st->be;
    tab *t = cur_tab(MS(st));
    int64_t now = access_now(st);
    uint32_t empty = NONE;
    uint32_t i = rec_find(t, kns_hash(be, ns, nslen), be->key, be->key_len, ns,
                          nslen, &empty);
    if (i == NONE || rec_expired(st, slot_p(t->slots[i]), now))
        return WEIR_ENOTFOUND;
    mrec *r = slot_p(t->slots[i]);
    int64_t s = r->stamp;
    if (k) {
        tab *m = rec_map(r);
        uint32_t j = ent_find(m, ukey_hash(k, klen), k, klen, &empty);
        if (j == NONE)
            return WEIR_ENOTFOUND;
        s = ((ment *)slot_p(m->slots[j]))->stamp;
        if (weir__state_has_ttl(st) && weir__ttl_expired(s, now, st->ttl_ms))
            return WEIR_ENOTFOUND;
    }
    *stamp = s;
    return 0;
}

static int mem_map_remove(weir_state *st, const void *ns, size_t nslen,
                          const void *k, size_t klen)
{
    mem_backend *mb = MB(st->be);
    mem_state *ms = MS(st);
    int64_t now = access_now(st);
    uint32_t i, j;
    mrec *r = map_entry(mb, ms, ns, nslen, k, klen, now, &i, &j);
    if (r) {
        tab *m = rec_map(r);
        if (j != NONE) {
            remove_ent_at(mb, m, j, false);
            if (m->n == 0)
                remove_rec_at(mb, ms, cur_tab(ms), i, false);
        }
    }
    after_access(mb, ms, now, true);
    return 0;
}

/*
 * An entry that exists (and is live) is changed where it lies: one lookup
 * of the record and one of the entry. Only a new entry takes a second
 * lookup, to be stored once fn has filled it.
 */
static int mem_map_update(weir_state *st, const void *ns, size_t nslen,
                          const void *k, size_t klen, size_t vlen,
                          weir_map_update_fn fn, void *ud)
{
    mem_backend *mb = MB(st->be);
    mem_state *ms = MS(st);
    int64_t now = access_now(st);
    int64_t stamp = stamp_now(st, now);
    int rc;
    uint32_t i, j;
    mrec *r = map_entry(mb, ms, ns, nslen, k, klen, now, &i, &j);
    if (r) {
        tab *m = rec_map(r);
        if (j != NONE) {
            ment *e = slot_p(m->slots[j]);
            bool expired = weir__state_has_ttl(st) &&
                           weir__ttl_expired(e->stamp, now, st->ttl_ms);
            if (!expired && e->vlen != vlen) {
                rc = WEIR_ECORRUPT;
                goto out;
            }
            if (!expired || ent_block(klen, vlen) == ent_size(e)) {
                if (expired)
                    memset(ent_val(e), 0, vlen);
                e->vlen = (uint32_t)vlen;
                if ((rc = fn(ud, ent_val(e), vlen)) < 0)
                    goto out;
                if (rc == 0) {
                    remove_ent_at(mb, m, j, false);
                    if (m->n == 0)
                        remove_rec_at(mb, ms, cur_tab(ms), i, false);
                } else {
                    e->stamp = stamp;
                    if (stamp > r->stamp)
                        r->stamp = stamp;
                }
                rc = 0;
                goto out;
            }
            /* An expired entry too small for the value: gone, then stored
             * anew below if fn keeps it. */
            remove_ent_at(mb, m, j, false);
            if (m->n == 0)
                remove_rec_at(mb, ms, cur_tab(ms), i, false);
        }
    }
    uint8_t small[256];
    uint8_t *buf = vlen <= sizeof small ? small : weir_malloc(vlen);
    if (!buf) {
        rc = WEIR_ENOMEM;
        goto out;
    }
    memset(buf, 0, vlen);
    rc = fn(ud, buf, vlen);
    if (rc > 0)
        rc = map_store(mb, ms, ns, nslen, k, klen, ukey_hash(k, klen), buf,
                       vlen, stamp, now);
    if (buf != small)
        weir_free(buf);
out:
    after_access(mb, ms, now, true);
    return rc;
}

/*
 * One lookup of the record and the entry, and one hash of the map key: an
 * entry that exists is rewritten where it lies (in its block when the new
 * value needs a block of the same size, else moved to a new one), removed,
 * or, absent, put into the record's table found (only a new record goes
 * through map_store, with the hash already taken).
 */
static int mem_map_rewrite(weir_state *st, const void *ns, size_t nslen,
                           const void *k, size_t klen, weir_map_rewrite_fn fn,
                           void *ud)
{
    mem_backend *mb = MB(st->be);
    mem_state *ms = MS(st);
    int64_t now = access_now(st);
    int64_t stamp = stamp_now(st, now);
    uint64_t eh = ukey_hash(k, klen);
    uint32_t i = 0, j = NONE, empty = NONE;
    mrec *r = map_find(mb, ms, ns, nslen, now, &i);
    tab *m = r ? rec_map(r) : NULL;
    ment *e = NULL;
    if (m && (j = ent_find(m, eh, k, klen, &empty)) != NONE)
        e = slot_p(m->slots[j]);
    bool live = e && !(weir__state_has_ttl(st) &&
                       weir__ttl_expired(e->stamp, now, st->ttl_ms));
    const void *nv = NULL;
    size_t nvlen = 0;
    int rc = fn(ud, live ? ent_val(e) : NULL, live ? e->vlen : 0, &nv, &nvlen);
    if (rc < 0)
        goto out;
    if (rc > 0 && (nvlen > UINT32_MAX || (!nv && nvlen))) {
        rc = WEIR_EINVAL;
        goto out;
    }
    if (rc == 0) {
        if (e) {
            remove_ent_at(mb, m, j, false);
            if (m->n == 0)
                remove_rec_at(mb, ms, cur_tab(ms), i, false);
        }
    } else if (!r) {
        rc = map_store(mb, ms, ns, nslen, k, klen, eh, nv, nvlen, stamp, now);
    } else if (!e) {
        /* The table may grow: the probe for the empty slot comes after. */
        ment *n;
        if ((rc = tab_reserve(mb, m, MAP_MIN, true)))
            goto out;
        if (!(n = ent_new(mb, k, klen, nv, nvlen, stamp))) {
            rc = WEIR_ENOMEM;
            goto out;
        }
        (void)ent_find(m, eh, k, klen, &empty);
        m->slots[empty] = slot_make(eh, n);
        m->n++;
        if (stamp > r->stamp)
            r->stamp = stamp;
    } else {
        if ((rc = ent_set(mb, &m->slots[j], k, klen, nv, nvlen, stamp)))
            goto out;
        if (stamp > r->stamp)
            r->stamp = stamp;
    }
    if (rc > 0)
        rc = 0;
out:
    after_access(mb, ms, now, true);
    return rc;
}

static int mem_map_iterate(weir_state *st, const void *ns, size_t nslen,
                           weir_map_visit_fn fn, void *ud)
{
    mem_backend *mb = MB(st->be);
    mem_state *ms = MS(st);
    int64_t now = access_now(st);
    int rc = 0;
    uint32_t i;
    mrec *r = map_find(mb, ms, ns, nslen, now, &i);
    if (!r)
        goto out;
    tab *m = rec_map(r);
    bool ttl = weir__state_has_ttl(st);
    bool touch = ttl && st->desc.ttl_update == WEIR_TTL_ON_READ_AND_WRITE;
    size_t n_expired = 0;
    for (uint32_t j = 0; m->slots && j <= m->mask; j++) {
        ment *e = slot_p(m->slots[j]);
        if (!e)
            continue;
        if (ttl && weir__ttl_expired(e->stamp, now, st->ttl_ms)) {
            n_expired++;
            continue;
        }
        if (touch)
            e->stamp = now;
        int x = fn(ud, e->data, e->klen, ent_val(e), e->vlen);
        if (x) {
            rc = x < 0 ? x : 0;
            break;
        }
    }
    if (touch)
        r->stamp = now;
    if (n_expired) {
        for (uint32_t j = 0; j <= m->mask;) {
            ment *e = slot_p(m->slots[j]);
            if (e && weir__ttl_expired(e->stamp, now, st->ttl_ms) &&
                remove_ent_at(mb, m, j, true))
                continue; /* something may have shifted into j */
            j++;
        }
        if (m->n == 0)
            remove_rec_at(mb, ms, cur_tab(ms), i, true);
    }
out:
    after_access(mb, ms, now, false);
    return rc;
}

/* ---- whole key groups: keys, snapshots, restore ---- */

/* Whether a record holds anything live (checked entry by entry for maps). */
static bool rec_live(weir_state *st, mrec *r, int64_t now)
{
    if (!weir__state_has_ttl(st))
        return true;
    if (weir__ttl_expired(r->stamp, now, st->ttl_ms))
        return false;
    if (st->desc.kind == WEIR_STATE_LIST) {
        uint8_t *v = rec_val(r);
        for (size_t off = 0; off < r->vlen; off += ELEM_HDR + elem_len(v + off))
            if (!weir__ttl_expired(elem_stamp(v + off), now, st->ttl_ms))
                return true;
        return false;
    }
    if (st->desc.kind == WEIR_STATE_MAP) {
        tab *m = rec_map(r);
        for (uint32_t j = 0; m->slots && j <= m->mask; j++)
            if (slot_p(m->slots[j]) &&
                !weir__ttl_expired(((ment *)slot_p(m->slots[j]))->stamp, now,
                                   st->ttl_ms))
                return true;
        return false;
    }
    return true;
}

static int mem_collect_keys(weir_state *st, uint32_t kg, weir_buf *out)
{
    tab *t = &MS(st)->tabs[kg - st->be->kg_lo];
    int64_t now = access_now(st);
    for (uint32_t i = 0; t->slots && i <= t->mask; i++) {
        mrec *r = slot_p(t->slots[i]);
        if (!r || !rec_live(st, r, now))
            continue;
        int rc;
        if ((rc = weir_buf_put_bytes(out, rec_key(r), rec_klen(r))) ||
            (rc = weir_buf_put_bytes(out, rec_ns(r), rec_nslen(r))))
            return rc;
    }
    return 0;
}

/* Writes every entry of table t (of a state of kind `kind`) through w. */
/* One element of a log into a snapshot (weir__snap_writer ud). */
static int snap_log_elem(void *ud, const uint8_t *v, size_t len)
{
    return weir__snap_item(ud, WEIR__NO_STAMP, NULL, 0, v, len);
}

static int snap_tab(const tab *t, weir_state_kind kind, weir__snap_writer *w)
{
    int rc = 0;
    for (uint32_t i = 0; t->slots && i <= t->mask && !rc; i++) {
        mrec *r = slot_p(t->slots[i]);
        if (!r)
            continue;
        if (kind == KIND_LOG) {
            if (!(rc = weir__snap_group_begin(w, rec_key(r), rec_klen(r), rec_ns(r), rec_nslen(r))) &&
                !(rc = log_walk(r, snap_log_elem, w)))
                rc = weir__snap_group_end(w);
            continue;
        }
        switch (kind) {
        case WEIR_STATE_LIST: {
            if ((rc = weir__snap_group_begin(w, rec_key(r), rec_klen(r), rec_ns(r),
                                             rec_nslen(r))))
                break;
            uint8_t *v = rec_val(r);
            for (size_t off = 0; off < r->vlen && !rc;
                 off += ELEM_HDR + elem_len(v + off))
                rc = weir__snap_item(w, elem_stamp(v + off), NULL, 0,
                                     v + off + ELEM_HDR, elem_len(v + off));
            if (!rc)
                rc = weir__snap_group_end(w);
            break;
        }
        case WEIR_STATE_MAP: {
            if ((rc = weir__snap_group_begin(w, rec_key(r), rec_klen(r), rec_ns(r),
                                             rec_nslen(r))))
                break;
            tab *m = rec_map(r);
            for (uint32_t j = 0; m->slots && j <= m->mask && !rc; j++) {
                ment *e = slot_p(m->slots[j]);
                if (e)
                    rc = weir__snap_item(w, e->stamp, e->data, e->klen,
                                         ent_val(e), e->vlen);
            }
            if (!rc)
                rc = weir__snap_group_end(w);
            break;
        }
        default:
            rc = weir__snap_value(w, rec_key(r), rec_klen(r), rec_ns(r), rec_nslen(r),
                                  r->stamp, rec_val(r), r->vlen);
            break;
        }
    }
    return rc;
}

static int mem_snapshot_state(weir_state *st, uint32_t kg, weir__snap_writer *w)
{
    return snap_tab(&MS(st)->tabs[kg - st->be->kg_lo], rec_kind(st), w);
}

static void tab_free_all(mem_backend *mb, weir_state_kind kind, tab *t)
{
    if (!t->slots)
        return;
    for (uint32_t i = 0; i <= t->mask; i++)
        if (slot_p(t->slots[i]))
            rec_release(mb, kind, slot_p(t->slots[i]), false);
    weir__slab_free(&mb->slab, t->slots, tab_bytes(t));
    memset(t, 0, sizeof *t);
}

/* ---- copy-on-write tables for asynchronous snapshots (see the top) ---- */

static void frozen_unref(mem_backend *mb, frozen *f)
{
    if (atomic_fetch_sub(&f->refs, 1) != 1)
        return;
    pthread_mutex_lock(&mb->gmu);
    f->next = mb->garbage;
    mb->garbage = f;
    atomic_store(&mb->has_garbage, true);
    pthread_mutex_unlock(&mb->gmu);
}

/* On the backend's thread, between accesses (no read pointer survives). */
static void collect_garbage(mem_backend *mb)
{
    if (!atomic_load_explicit(&mb->has_garbage, memory_order_acquire))
        return;
    pthread_mutex_lock(&mb->gmu);
    frozen *f = mb->garbage;
    mb->garbage = NULL;
    atomic_store(&mb->has_garbage, false);
    pthread_mutex_unlock(&mb->gmu);
    while (f) {
        frozen *next = f->next;
        tab_free_all(mb, f->kind, &f->t);
        weir_free(f);
        f = next;
    }
}

/* A copy of record r (its nested map and entries, or its log's chunks, included). */
static mrec *rec_clone(mem_backend *mb, weir_state_kind kind, mrec *r)
{
    size_t head = rec_head(r);
    mrec *n = weir__slab_alloc(&mb->slab, rec_size(r));
    if (!n)
        return NULL;
    if (kind == KIND_LOG) {
        memcpy(n, r, head + r->vlen);
        if (!r->first)
            return n;
        const log_head *oh = rec_log(r);
        log_head *nh = rec_log(n);
        n->first = NULL;
        nh->last = NULL; /* len, cap: copied */
        for (const log_chunk *c = r->first; c; c = c->next) {
            log_chunk *nc = weir__slab_alloc(&mb->slab, chunk_size(c));
            if (!nc) {
                rec_release(mb, kind, n, false); /* with the chunks copied so far */
                return NULL;
            }
            memcpy(nc, c, sizeof(log_chunk) + chunk_used(oh, c));
            nc->next = NULL;
            if (nh->last)
                nh->last->next = nc;
            else
                n->first = nc;
            nh->last = nc;
        }
        return n;
    }
    if (kind != WEIR_STATE_MAP) {
        memcpy(n, r, head + r->vlen);
        return n;
    }
    memcpy(n, r, head + sizeof(tab));
    tab *m = rec_map(r), *nm = rec_map(n);
    if (!m->slots)
        return n;
    nm->slots = weir__slab_alloc(&mb->slab, tab_bytes(m));
    if (!nm->slots) {
        weir__slab_free(&mb->slab, n, rec_size(n));
        return NULL;
    }
    memset(nm->slots, 0, tab_bytes(m));
    for (uint32_t j = 0; j <= m->mask; j++) {
        ment *e = slot_p(m->slots[j]);
        if (!e)
            continue;
        size_t sz = ent_size(e);
        ment *ne = weir__slab_alloc(&mb->slab, sz);
        if (!ne) {
            rec_release(mb, kind, n, false);
            return NULL;
        }
        memcpy(ne, e, sizeof(ment) + align8(e->klen) + e->vlen);
        nm->slots[j] = slot_to(m->slots[j], ne);
    }
    return n;
}

/* Gives key group k of ms a private copy of its frozen table. */
static int tab_unshare(mem_backend *mb, mem_state *ms, uint32_t k)
{
    frozen *f = ms->shared[k];
    weir_state_kind kind = rec_kind(&ms->base);
    /*
     * Every snapshot that pinned it is done: the storage is the live table's
     * alone again, no copy needed. (No snapshot can take a new reference
     * meanwhile: snap_begin runs on this thread.)
     */
    if (atomic_load_explicit(&f->refs, memory_order_acquire) == 1) {
        ms->shared[k] = NULL;
        weir_free(f);
        return 0;
    }
    tab nt = {0};
    if (f->t.slots) {
        nt.slots = weir__slab_alloc(&mb->slab, tab_bytes(&f->t));
        if (!nt.slots)
            return WEIR_ENOMEM;
        memset(nt.slots, 0, tab_bytes(&f->t));
        nt.mask = f->t.mask;
        for (uint32_t i = 0; i <= f->t.mask; i++) {
            mrec *r = slot_p(f->t.slots[i]);
            if (!r)
                continue;
            mrec *c = rec_clone(mb, kind, r);
            if (!c) {
                tab_free_all(mb, kind, &nt);
                return WEIR_ENOMEM;
            }
            nt.slots[i] = slot_to(f->t.slots[i], c);
        }
        nt.n = f->t.n;
    }
    ms->tabs[k] = nt;
    ms->shared[k] = NULL;
    frozen_unref(mb, f);
    return 0;
}

/* Unshares the tables of the current key's key group, in every state. */
static int unshare_current(mem_backend *mb)
{
    weir__backend *be = &mb->base;
    if (!mb->snapshotted)
        return 0;
    uint32_t k = be->kg - be->kg_lo;
    for (uint32_t s = 0; s < be->n_states; s++) {
        mem_state *ms = MS(be->states[s]);
        if (ms->shared && ms->shared[k]) {
            int rc = tab_unshare(mb, ms, k);
            if (rc)
                return rc;
        }
    }
    return 0;
}

typedef struct mem_view {
    mem_backend *mb;
    uint32_t n_states, n_kg, kg_lo;
    frozen **f; /* [state id * n_kg + k], NULL: empty */
} mem_view;

static void mem_snap_release(void *p)
{
    mem_view *v = p;
    for (size_t i = 0; i < (size_t)v->n_states * v->n_kg; i++)
        if (v->f[i])
            frozen_unref(v->mb, v->f[i]);
    weir_free(v->f);
    weir_free(v);
}

static int mem_snap_begin(weir__backend *be, void **out)
{
    mem_backend *mb = MB(be);
    mem_view *v = weir_calloc(1, sizeof *v);
    if (!v)
        return WEIR_ENOMEM;
    mb->snapshotted = true;
    v->mb = mb;
    v->n_kg = mb->n_kg;
    v->kg_lo = be->kg_lo;
    size_t n = (size_t)be->n_states * mb->n_kg;
    if (n && !(v->f = weir_calloc(n, sizeof *v->f))) {
        weir_free(v);
        return WEIR_ENOMEM;
    }
    v->n_states = be->n_states;
    int rc = 0;
    for (uint32_t s = 0; s < be->n_states && !rc; s++) {
        mem_state *ms = MS(be->states[s]);
        if (!ms->shared && mb->n_kg &&
            !(ms->shared = weir_calloc(mb->n_kg, sizeof *ms->shared))) {
            rc = WEIR_ENOMEM;
            break;
        }
        for (uint32_t k = 0; k < mb->n_kg; k++) {
            frozen *f = ms->shared[k];
            if (!f) {
                tab *t = &ms->tabs[k];
                if (!t->slots || t->n == 0)
                    continue;
                if (!(f = weir_malloc(sizeof *f))) {
                    rc = WEIR_ENOMEM;
                    break;
                }
                f->t = *t;
                f->kind = rec_kind(&ms->base);
                f->next = NULL;
                atomic_init(&f->refs, 1); /* the live table's */
                ms->shared[k] = f;
            }
            atomic_fetch_add(&f->refs, 1);
            v->f[(size_t)s * mb->n_kg + k] = f;
        }
    }
    /*
     * The current key may be used again without a set_key: its key group
     * must not stay shared.
     */
    if (!rc && be->has_key)
        rc = unshare_current(mb);
    if (rc) {
        mem_snap_release(v);
        return rc;
    }
    *out = v;
    return 0;
}

static int mem_snap_state(void *p, uint32_t id, weir_state_kind kind,
                          uint32_t kg, weir__snap_writer *w)
{
    mem_view *v = p;
    if (id >= v->n_states || kg < v->kg_lo || kg - v->kg_lo >= v->n_kg)
        return WEIR_EINVAL;
    frozen *f = v->f[(size_t)id * v->n_kg + (kg - v->kg_lo)];
    (void)kind;
    return f ? snap_tab(&f->t, f->kind, w) : 0;
}

static int mem_drop_kg(weir__backend *be, uint32_t kg)
{
    mem_backend *mb = MB(be);
    flush_retired(mb);
    for (uint32_t s = 0; s < be->n_states; s++) {
        mem_state *ms = MS(be->states[s]);
        uint32_t k = kg - be->kg_lo;
        if (ms->shared && ms->shared[k]) {
            /* The storage stays with the snapshots that read it. */
            memset(&ms->tabs[k], 0, sizeof ms->tabs[k]);
            frozen_unref(mb, ms->shared[k]);
            ms->shared[k] = NULL;
        } else {
            tab_free_all(mb, rec_kind(&ms->base), &ms->tabs[k]);
        }
        if (ms->cl_kg == k)
            ms->cl_slot = ms->cl_sub = 0;
    }
    return 0;
}

static int mem_load_value(weir_state *st, const void *ns, size_t nslen,
                          int64_t stamp, const void *v, size_t len)
{
    return store_value(MB(st->be), MS(st), ns, nslen, v, len, stamp);
}

static int mem_load_list(weir_state *st, const void *ns, size_t nslen,
                         int64_t stamp, const void *v, size_t len)
{
    if (rec_kind(st) == KIND_LOG)
        return log_append(MB(st->be), MS(st), ns, nslen, v, len);
    /* now = stamp: a restore never discards what it was given; expiry is
     * decided on access. */
    return append_elem(MB(st->be), MS(st), ns, nslen, v, len, stamp,
                       WEIR__NO_STAMP);
}

static int mem_load_map(weir_state *st, const void *ns, size_t nslen,
                        const void *k, size_t klen, int64_t stamp,
                        const void *v, size_t vlen)
{
    return map_store(MB(st->be), MS(st), ns, nslen, k, klen,
                     ukey_hash(k, klen), v, vlen, stamp,
                     WEIR__NO_STAMP);
}

/* ---- lifecycle ---- */

/* Appends the elements of list record r (with stamps) to the log of its key
 * and namespace, which is the current key's. */
static int relay_as_log(mem_backend *mb, mem_state *ms, mrec *r)
{
    const uint8_t *v = rec_val(r);
    int rc = 0;
    for (size_t off = 0; off < r->vlen && !rc;
         off += ELEM_HDR + elem_len(v + off))
        rc = log_append(mb, ms, rec_ns(r), rec_nslen(r), v + off + ELEM_HDR,
                        elem_len(v + off));
    return rc;
}

/*
 * A list state bound without TTL after a restore loaded it (its records then
 * kept their elements with stamps, rec_kind): each record becomes a log.
 * The current key is the backend's again afterwards.
 */
static int mem_state_bound(weir__backend *be, weir_state *st)
{
    if (rec_kind(st) != KIND_LOG)
        return 0;
    mem_backend *mb = MB(be);
    mem_state *ms = MS(st);
    bool had_key = be->has_key, moved = false;
    weir_buf key;
    weir_buf_init(&key);
    uint64_t key_hash = be->key_hash;
    int rc = had_key ? weir_buf_put(&key, be->key, be->key_len) : 0;
    flush_retired(mb);
    for (uint32_t k = 0; !rc && k < be->kg_hi - be->kg_lo; k++) {
        /* Read from the old table (or a snapshot's frozen one) while the
         * logs go into a new one. */
        frozen *f = ms->shared ? ms->shared[k] : NULL;
        tab old = f ? f->t : ms->tabs[k];
        if (!old.n)
            continue;
        memset(&ms->tabs[k], 0, sizeof ms->tabs[k]);
        if (f)
            ms->shared[k] = NULL;
        if (ms->cl_kg == k)
            ms->cl_slot = ms->cl_sub = 0;
        moved = true;
        for (uint32_t i = 0; !rc && old.slots && i <= old.mask; i++) {
            mrec *r = slot_p(old.slots[i]);
            if (!r)
                continue;
            if (!(rc = weir__backend_set_key_raw(
                      be, rec_key(r), rec_klen(r),
                      weir_key_hash(rec_key(r), rec_klen(r)))))
                rc = relay_as_log(mb, ms, r);
        }
        if (f)
            frozen_unref(mb, f);
        else
            tab_free_all(mb, WEIR_STATE_LIST, &old);
    }
    if (!rc && moved && had_key)
        rc = weir__backend_set_key_raw(be, key.data, key.len, key_hash);
    weir_buf_fini(&key);
    return rc;
}

static int mem_state_create(weir__backend *be, weir_state **out)
{
    mem_backend *mb = MB(be);
    mem_state *ms = weir_calloc(1, sizeof *ms);
    if (!ms)
        return WEIR_ENOMEM;
    if (mb->n_kg) {
        ms->tabs = weir_calloc(mb->n_kg, sizeof(tab));
        if (!ms->tabs) {
            weir_free(ms);
            return WEIR_ENOMEM;
        }
    }
    mb->meta_bytes += sizeof *ms + (uint64_t)mb->n_kg * sizeof(tab);
    *out = &ms->base;
    return 0;
}

/* Where a lookup of (key, empty namespace) of hash key_hash starts: the
 * index of its key group's table in a state's tabs (false: another
 * subtask's key) and the hash of its slot. */
static inline bool lookup_start(const weir__backend *be, uint64_t key_hash, uint32_t *tab_at, uint64_t *h)
{
    uint32_t kg = weir_key_group(key_hash, be->max_parallelism);
    if (kg < be->kg_lo || kg >= be->kg_hi)
        return false;
    *tab_at = kg - be->kg_lo;
    *h = mix64(key_hash); /* kns_hash of the empty namespace */
    return true;
}

/* See weir__states_prefetch: the slot where a lookup starts, or the record
 * in it. */
static void mem_prefetch(weir_state *const *st, uint32_t n, const uint64_t *slot_hash, const uint64_t *rec_hash)
{
    const weir__backend *be = st[0]->be;
    uint32_t ts = 0, tr = 0;
    uint64_t hs = 0, hr = 0;
    bool pfs = slot_hash && lookup_start(be, *slot_hash, &ts, &hs);
    bool pfr = rec_hash && lookup_start(be, *rec_hash, &tr, &hr);
    for (uint32_t i = 0; i < n; i++) {
        const tab *tabs = MS(st[i])->tabs;
        if (pfs && tabs[ts].slots)
            __builtin_prefetch(&tabs[ts].slots[(uint32_t)hs & tabs[ts].mask]);
        if (pfr && tabs[tr].slots) {
            slot s = tabs[tr].slots[(uint32_t)hr & tabs[tr].mask];
            if (s && slot_tag_is(s, hr))
                __builtin_prefetch(slot_p(s));
        }
    }
}

/* set_key ends the life of read pointers too: a read-only workload must not
 * pile up retired records. */
static int mem_key_changed(weir__backend *be)
{
    mem_backend *mb = MB(be);
    if (mb->n_retire)
        flush_retired(mb);
    collect_garbage(mb);
    return unshare_current(mb);
}

static uint64_t mem_size_bytes(const weir__backend *be)
{
    const mem_backend *mb = (const mem_backend *)be;
    return mb->slab.bytes + mb->meta_bytes;
}

static void mem_destroy(weir__backend *be)
{
    mem_backend *mb = MB(be);
    flush_retired(mb);
    for (uint32_t s = 0; s < be->n_states; s++) {
        mem_state *ms = MS(be->states[s]);
        /* Every record, table and large block is the slab's: its fini
         * frees them all at once, without a walk over the records (which
         * took a fifth of a join job's CPU time). */
        for (uint32_t k = 0; k < mb->n_kg; k++)
            if (ms->shared && ms->shared[k])
                frozen_unref(mb, ms->shared[k]); /* every snap was released */
        weir_free((void *)ms->base.desc.name);
        weir_free(ms->shared);
        weir_free(ms->tabs);
        weir_free(ms);
    }
    for (frozen *f = mb->garbage, *next; f; f = next) {
        next = f->next;
        weir_free(f); /* its records go with the slab */
    }
    pthread_mutex_destroy(&mb->gmu);
    weir_free(mb->retire);
    weir__slab_fini(&mb->slab);
    weir__backend_fini(be);
    weir_free(mb);
}

static const weir__backend_ops mem_ops = {
    .kind = "memory",
    .destroy = mem_destroy,
    .state_create = mem_state_create,
    .key_changed = mem_key_changed,
    .get = mem_get,
    .put = mem_put,
    .update = mem_update,
    .clear = mem_clear,
    .list_add = mem_list_add,
    .list_get = mem_list_get,
    .map_put = mem_map_put,
    .map_get = mem_map_get,
    .stamp = mem_stamp,
    .map_remove = mem_map_remove,
    .map_iterate = mem_map_iterate,
    .map_update = mem_map_update,
    .map_rewrite = mem_map_rewrite,
    .value_edit = mem_value_edit,
    .get_key = mem_get_key,
    .value_edit_key = mem_value_edit_key,
    .prefetch = mem_prefetch,
    .collect_keys = mem_collect_keys,
    .snapshot_state = mem_snapshot_state,
    .drop_kg = mem_drop_kg,
    .load_value = mem_load_value,
    .load_list = mem_load_list,
    .state_bound = mem_state_bound,
    .load_map = mem_load_map,
    .size_bytes = mem_size_bytes,
    .snap_begin = mem_snap_begin,
    .snap_state = mem_snap_state,
    .snap_release = mem_snap_release,
};

int weir__memory_backend_create(const weir__backend_config *cfg,
                                weir__backend **out)
{
    mem_backend *mb = weir_calloc(1, sizeof *mb);
    if (!mb)
        return WEIR_ENOMEM;
    weir__backend_init(&mb->base, &mem_ops, cfg);
    weir__slab_init(&mb->slab);
    pthread_mutex_init(&mb->gmu, NULL);
    mb->n_kg = cfg->kg_hi - cfg->kg_lo;
    mb->meta_bytes = sizeof *mb;
    *out = &mb->base;
    return 0;
}
