/*
 * state/rocksdb_backend.c - the RocksDB keyed-state backend: state larger
 * than memory, and native incremental checkpoints.
 *
 * Key layout (one RocksDB key per value, list, or map entry):
 *
 *   [kg: u16 BE][state id: u16 BE][varint len][key][varint len][ns][map key]
 *
 * The key group leads, so a key group is one contiguous range (snapshot,
 * restore and drop touch only it), and within it a state is one range.
 * The length prefixes make [kg][id][key][ns] a unique prefix of every map
 * entry of that (key, ns), so a map is one range too. Records under the
 * prefix FF FF (never a key group, which is < 32768) hold the state names
 * and kinds written into native checkpoints.
 *
 * Values: [i64 stamp LE][bytes] for value / reducing / aggregating states
 * and map entries; a list is the concatenation of its elements,
 * [u32 len LE][i64 stamp LE][bytes] each, appended with a merge operator
 * (concatenation), so list add never reads or rewrites the list.
 *
 * Reads copy into an arena of chunks that is reset by the next write or
 * set_key: read pointers stay valid until the next write, as weir/state.h
 * says. TTL: expired values are hidden and deleted when accessed; a
 * compaction filter drops them in the background (the incremental cleanup
 * of this backend), reading TTLs from a table indexed by state id and the
 * backend's clock (which must therefore be thread-safe, as weir clocks are).
 * The write-ahead log is off: state is recovered from checkpoints.
 */
#include "state/rocksdb_backend.h"

#ifdef WEIR_HAVE_ROCKSDB

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <rocksdb/c.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "state/backend_impl.h"
#include "util/bytes.h"
#include "util/io.h"

/* What the compaction filter knows of states, TTL_CHUNK ids a chunk;
 * state ids are u16, TTL_CHUNKS chunks cover them all. */
#define TTL_CHUNK 4096
#define TTL_CHUNKS (0x10000 / TTL_CHUNK)
#define ARENA_CHUNK (64 * 1024)
#define ELEM_HDR 12 /* list element: u32 len, i64 stamp */
#define DEFAULT_CACHE (64u << 20)
#define DEFAULT_WBUF (32u << 20)

typedef struct rchunk {
    struct rchunk *next;
    size_t cap, used;
    uint8_t data[];
} rchunk;

typedef struct rdb_state {
    weir_state base;
} rdb_state;

/* TTL_CHUNK states from id (id / TTL_CHUNK) * TTL_CHUNK; all but stored
 * read by compaction threads. */
typedef struct ttl_chunk {
    _Atomic int64_t ttl[TTL_CHUNK];  /* 0: none, or not bound */
    _Atomic int64_t kind[TTL_CHUNK]; /* weir_state_kind */
    /* the stamp a value written without one counts as (unstamped_of) */
    _Atomic int64_t unstamped[TTL_CHUNK];
    /* stamps before it count as it (a run without TTL left them stale) */
    _Atomic int64_t floor[TTL_CHUNK];
    /* what the restored checkpoint named (META_UNSTAMPED): */
    uint8_t stored[TTL_CHUNK]; /* STORED_* */
    int64_t stored_at[TTL_CHUNK];
    /* The META_UNSTAMPED key the database holds, so that write_meta writes
     * it only when it changes: 0 not known, else 1 + STORED_*, at meta_at. */
    uint8_t meta[TTL_CHUNK];
    int64_t meta_at[TTL_CHUNK];
} ttl_chunk;

enum { STORED_NONE, STORED_AT, STORED_FLOOR };

typedef struct rdb_backend {
    weir__backend base;
    rocksdb_t *db;
    rocksdb_options_t *opts;
    rocksdb_readoptions_t *ro;
    rocksdb_writeoptions_t *wo;
    rocksdb_cache_t *cache;
    rocksdb_block_based_table_options_t *bbto;
    rocksdb_compactionfilter_t
        *cfilter; /* not owned by the options: freed after close */
    char *dir;
    /* By state id / TTL_CHUNK, allocated when a state of the chunk binds
     * or a native restore brings one; read by compaction threads. */
    _Atomic(ttl_chunk *) ttl[TTL_CHUNKS];
    _Atomic bool floors; /* some state has a floor */
    /* The meta keys the database holds (write_meta writes the others):
     * META_MAXP, and the names of states [0, meta_states). */
    bool meta_maxp;
    uint32_t meta_states;
    weir_buf kbuf; /* the key of the current access */
    weir_buf vbuf; /* the value being written */
    rchunk *arena; /* read results, reset by writes */
    /*
     * Write combining (weir__backend_write_batch): while on, puts and
     * deletes collect in wb and reach the database in large batches; every
     * other access writes the batch first, so reads see every write.
     */
    rocksdb_writebatch_t *wb;
    bool batching;
    int batch_err; /* a failed batch write, reported when batching ends */
    /*
     * Bulk restore (load_begin .. load_end): the entries of the key group
     * being restored collect in lrec as [u32 klen][u32 vlen][key][value]
     * records (a list's elements concatenated into one value), then are
     * sorted and appended to a staged SST file. Key groups restored in
     * ascending order share one file, ingested into the database (below
     * every existing level, no memtable, no WAL, no compaction) at the
     * first other access, when it grows past INGEST_BYTES, or when a key
     * group out of order comes.
     */
    bool loading;
    weir_buf lrec;
    size_t lrec_list_at; /* record of the last list entry loaded, or SIZE_MAX */
    rocksdb_envoptions_t *envopts;
    rocksdb_sstfilewriter_t *sst; /* the staged file, open; NULL if none */
    char *sst_path;
    uint32_t sst_last_kg;
    uint64_t sst_entries;
    int load_err; /* staged state was lost: every later access fails */
    weir__rocksdb_stats stats;
    char err[256];
} rdb_backend;

static inline rdb_backend *RB(weir__backend *be)
{
    return (rdb_backend *)be;
}

/* ---- small helpers ---- */

static inline void wr_u16be(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static inline int64_t rd_i64(const void *p)
{
    int64_t v;
    memcpy(&v, p, 8);
    return v;
}

static inline uint32_t rd_u32(const void *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static int rdb_err(rdb_backend *rb, char *err)
{
    int code = WEIR_EIO;
    if (strstr(err, "No space") || strstr(err, "ENOSPC"))
        code = WEIR_ENOSPC;
    else if (strstr(err, "Corruption"))
        code = WEIR_ECORRUPT;
    snprintf(rb->err, sizeof rb->err, "%s", err);
    rocksdb_free(err);
    return code;
}

static void *arena_copy(rdb_backend *rb, const void *p, size_t n)
{
    size_t need = (n + 7) & ~(size_t)7;
    rchunk *c = rb->arena;
    if (!c || c->cap - c->used < need) {
        size_t cap = need > ARENA_CHUNK ? need : ARENA_CHUNK;
        rchunk *nc = weir_malloc(sizeof *nc + cap);
        if (!nc)
            return NULL;
        nc->next = c;
        nc->cap = cap;
        nc->used = 0;
        rb->arena = c = nc;
    }
    void *d = c->data + c->used;
    if (n)
        memcpy(d, p, n);
    c->used += need;
    return d;
}

/* Called once a write has consumed its arguments (which may point into the
 * arena). */
static void arena_reset(rdb_backend *rb)
{
    rchunk *c = rb->arena;
    while (c && c->next) {
        rchunk *next = c->next;
        weir_free(c);
        c = next;
    }
    if (c && c->cap > ARENA_CHUNK) {
        weir_free(c);
        c = NULL;
    }
    if (c)
        c->used = 0;
    rb->arena = c;
}

static int put_prefix(weir_buf *b, uint32_t kg, uint32_t sid)
{
    int rc = weir_buf_reserve(b, 4);
    if (rc)
        return rc;
    wr_u16be(b->data + b->len, kg);
    wr_u16be(b->data + b->len + 2, sid);
    b->len += 4;
    return 0;
}

/* [kg][sid][key][ns] of the current key into b (cleared first). */
static int build_key(rdb_backend *rb, weir_buf *b, const weir_state *st,
                     const void *ns, size_t nslen)
{
    weir__backend *be = &rb->base;
    weir_buf_clear(b);
    int rc;
    if ((rc = weir_buf_reserve(b, 4 + 20 + be->key_len + nslen)) ||
        (rc = put_prefix(b, be->kg, st->id)) ||
        (rc = weir_buf_put_bytes(b, be->key, be->key_len)) ||
        (rc = weir_buf_put_bytes(b, ns, nslen)))
        return rc;
    return 0;
}

/* Splits a data key into its key, namespace and the rest (the map key). */
static int parse_key(const char *k, size_t n, const void **key, size_t *klen,
                     const void **ns, size_t *nslen, const void **rest,
                     size_t *restlen)
{
    if (n < 4)
        return WEIR_ECORRUPT;
    weir_cursor c;
    weir_cursor_init(&c, k + 4, n - 4);
    int rc;
    if ((rc = weir_cursor_get_bytes(&c, key, klen)) ||
        (rc = weir_cursor_get_bytes(&c, ns, nslen)))
        return rc;
    *rest = c.p;
    *restlen = weir_cursor_left(&c);
    return 0;
}

static int put_stamped(weir_buf *b, int64_t stamp, const void *v, size_t len)
{
    weir_buf_clear(b);
    int rc = weir_buf_put_i64(b, stamp);
    return rc ? rc : weir_buf_put(b, v, len);
}

static int put_elem(weir_buf *b, int64_t stamp, const void *v, size_t len)
{
    int rc;
    if ((rc = weir_buf_put_u32(b, (uint32_t)len)) ||
        (rc = weir_buf_put_i64(b, stamp)) || (rc = weir_buf_put(b, v, len)))
        return rc;
    return 0;
}

#define BATCH_OPS 4096 /* writes per batch: bounded memory, fewer calls */

static int ingest_staged(rdb_backend *rb);
static int settle_floors(rdb_backend *rb, bool all);

/* Writes the collected write batch (not the staged restore file). */
static int batch_write_raw(rdb_backend *rb)
{
    if (!rb->wb || rocksdb_writebatch_count(rb->wb) == 0)
        return 0;
    char *err = NULL;
    rocksdb_write(rb->db, rb->wo, rb->wb, &err);
    rocksdb_writebatch_clear(rb->wb);
    int rc = err ? rdb_err(rb, err) : 0;
    if (rc && !rb->batch_err)
        rb->batch_err = rc;
    return rc;
}

/*
 * Brings the database up to date before any access: ingests a staged
 * restore file, then writes the collected batch. Every access but put and
 * delete with batching on calls it (those call settle_staged).
 */
static int batch_flush(rdb_backend *rb)
{
    int rc = ingest_staged(rb);
    return rc ? rc : batch_write_raw(rb);
}

/* A staged restore file must reach the database before any new write, or
 * its (newer) sequence numbers would hide the write. */
static inline int settle_staged(rdb_backend *rb)
{
    return rb->sst || rb->load_err ? ingest_staged(rb) : 0;
}

static int db_put(rdb_backend *rb, const weir_buf *k, const weir_buf *v)
{
    int src = settle_staged(rb);
    if (src)
        return src;
    if (rb->batching) {
        rocksdb_writebatch_put(rb->wb, (const char *)k->data, k->len,
                               (const char *)v->data, v->len);
        return rocksdb_writebatch_count(rb->wb) >= BATCH_OPS ? batch_flush(rb)
                                                             : 0;
    }
    char *err = NULL;
    rocksdb_put(rb->db, rb->wo, (const char *)k->data, k->len,
                (const char *)v->data, v->len, &err);
    return err ? rdb_err(rb, err) : 0;
}

static int db_delete(rdb_backend *rb, const weir_buf *k)
{
    int src = settle_staged(rb);
    if (src)
        return src;
    if (rb->batching) {
        rocksdb_writebatch_delete(rb->wb, (const char *)k->data, k->len);
        return rocksdb_writebatch_count(rb->wb) >= BATCH_OPS ? batch_flush(rb)
                                                             : 0;
    }
    char *err = NULL;
    rocksdb_delete(rb->db, rb->wo, (const char *)k->data, k->len, &err);
    return err ? rdb_err(rb, err) : 0;
}

static int db_write(rdb_backend *rb, rocksdb_writebatch_t *wb)
{
    int brc = batch_flush(rb);
    if (brc)
        return brc;
    char *err = NULL;
    if (rocksdb_writebatch_count(wb) > 0)
        rocksdb_write(rb->db, rb->wo, wb, &err);
    return err ? rdb_err(rb, err) : 0;
}

/* Looks up kbuf. *ps is NULL when absent. */
static int db_get(rdb_backend *rb, rocksdb_pinnableslice_t **ps)
{
    *ps = NULL;
    int brc = batch_flush(rb);
    if (brc)
        return brc;
    char *err = NULL;
    *ps = rocksdb_get_pinned(rb->db, rb->ro, (const char *)rb->kbuf.data,
                             rb->kbuf.len, &err);
    return err ? rdb_err(rb, err) : 0;
}

static inline bool has_ttl(const weir_state *st)
{
    return weir__state_has_ttl(st);
}
static inline bool touch_on_read(const weir_state *st)
{
    return has_ttl(st) && st->desc.ttl_update == WEIR_TTL_ON_READ_AND_WRITE;
}
static inline int64_t access_now(const weir_state *st)
{
    return has_ttl(st) ? weir__now(st->be) : 0;
}
static inline int64_t stamp_of(const weir_state *st, int64_t now)
{
    return has_ttl(st) ? now : WEIR__NO_STAMP;
}
/*
 * The stamp a TTL counts from. A value written while its state had no TTL
 * carries none (WEIR__NO_STAMP); brought by a native restore into a state
 * with TTL it counts from that restore, as a canonical restore stamps it
 * (docs/state.md): from the time the checkpoint names for the state (an
 * earlier restore's, META_UNSTAMPED) or else the restore's own. So does a
 * value whose stamp a run without TTL left (the state's floor): values
 * written since carry later stamps (a restore with the clock behind the
 * floor rewrites the stale ones instead: settle_floors). Without a native
 * restore no stamped state holds such a value.
 */
static inline ttl_chunk *chunk_of(const rdb_backend *rb, uint32_t sid)
{
    return sid / TTL_CHUNK < TTL_CHUNKS
               ? atomic_load_explicit(&rb->ttl[sid / TTL_CHUNK],
                                      memory_order_acquire)
               : NULL;
}
static inline int64_t unstamped_of(const rdb_backend *rb, uint32_t sid,
                                   int64_t stamp)
{
    if (stamp != WEIR__NO_STAMP &&
        !atomic_load_explicit(&rb->floors, memory_order_relaxed))
        return stamp;
    ttl_chunk *c = chunk_of(rb, sid);
    if (!c)
        return stamp;
    if (stamp == WEIR__NO_STAMP)
        return atomic_load_explicit(&c->unstamped[sid % TTL_CHUNK],
                                    memory_order_relaxed);
    int64_t f =
        atomic_load_explicit(&c->floor[sid % TTL_CHUNK], memory_order_relaxed);
    return stamp < f ? f : stamp;
}
/* The stamp of st's value as its TTL counts it (none without TTL). */
static inline int64_t stamp_in(const weir_state *st, int64_t stamp)
{
    return has_ttl(st)
               ? unstamped_of((const rdb_backend *)st->be, st->id, stamp)
               : stamp;
}
static inline bool expired(const weir_state *st, int64_t stamp, int64_t now)
{
    return has_ttl(st) &&
           weir__ttl_expired(stamp_in(st, stamp), now, st->ttl_ms);
}
/*
 * The stamps a snapshot or a native checkpoint gives st's values: those
 * without one get at; with floor, so do those before at (all of them when
 * at is none). With TTL, what it counts from (stamp_in); without, every
 * stamp is stale, as a canonical snapshot writes none; for a state a native
 * restore brought and no operator bound, what its checkpoint named, so that
 * the next restore counts from the same time.
 */
typedef struct unstamp {
    int64_t at;
    bool floor;
} unstamp;

static unstamp unstamped_out(const weir_state *st)
{
    const rdb_backend *rb = (const rdb_backend *)st->be;
    ttl_chunk *c = chunk_of(rb, st->id);
    uint32_t i = st->id % TTL_CHUNK;
    if (has_ttl(st)) {
        int64_t f = c ? atomic_load_explicit(&c->floor[i], memory_order_relaxed)
                      : WEIR__NO_STAMP;
        return (unstamp){unstamped_of(rb, st->id, WEIR__NO_STAMP),
                         f != WEIR__NO_STAMP};
    }
    if (st->bound)
        return (unstamp){WEIR__NO_STAMP, true};
    if (!c || c->stored[i] == STORED_NONE)
        return (unstamp){WEIR__NO_STAMP, false};
    return (unstamp){c->stored_at[i], c->stored[i] == STORED_FLOOR};
}
/* The chunk of state sid, allocated if none. */
static int chunk_get(rdb_backend *rb, uint32_t sid, ttl_chunk **out)
{
    ttl_chunk *c = chunk_of(rb, sid);
    if (!c) {
        if (sid / TTL_CHUNK >= TTL_CHUNKS ||
            !(c = weir_calloc(1, sizeof *c)))
            return WEIR_ENOMEM;
        for (uint32_t i = 0; i < TTL_CHUNK; i++) {
            atomic_init(&c->unstamped[i], WEIR__NO_STAMP);
            atomic_init(&c->floor[i], WEIR__NO_STAMP);
        }
        atomic_store_explicit(&rb->ttl[sid / TTL_CHUNK], c,
                              memory_order_release);
    }
    *out = c;
    return 0;
}

/*
 * An iterator over [lo, hi). The bounds are owned by the caller and must
 * outlive the iterator (RocksDB keeps pointers to them).
 */
typedef struct range_iter {
    rocksdb_readoptions_t *ro;
    rocksdb_iterator_t *it;
    int err; /* state that could not be brought up to date: reported by close */
} range_iter;

static int iter_open(rdb_backend *rb, range_iter *ri, const weir_buf *lo,
                     const weir_buf *hi)
{
    /* A failed batch write is kept in batch_err and fails the batch's end;
     * a failed ingestion fails this scan. */
    batch_flush(rb);
    ri->err = rb->load_err;
    ri->ro = rocksdb_readoptions_create();
    rocksdb_readoptions_set_iterate_lower_bound(ri->ro, (const char *)lo->data,
                                                lo->len);
    rocksdb_readoptions_set_iterate_upper_bound(ri->ro, (const char *)hi->data,
                                                hi->len);
    ri->it = rocksdb_create_iterator(rb->db, ri->ro);
    rocksdb_iter_seek(ri->it, (const char *)lo->data, lo->len);
    return 0;
}

static int iter_close(rdb_backend *rb, range_iter *ri)
{
    char *err = NULL;
    rocksdb_iter_get_error(ri->it, &err);
    rocksdb_iter_destroy(ri->it);
    rocksdb_readoptions_destroy(ri->ro);
    int rc = err ? rdb_err(rb, err) : 0;
    return ri->err ? ri->err : rc;
}

/* The smallest key greater than every key with prefix p (p never all 0xFF
 * here). */
static int prefix_end(weir_buf *hi, const weir_buf *p)
{
    weir_buf_clear(hi);
    int rc = weir_buf_put(hi, p->data, p->len);
    if (rc)
        return rc;
    while (hi->len > 0 && hi->data[hi->len - 1] == 0xFF)
        hi->len--;
    if (hi->len == 0)
        return WEIR_EINVAL;
    hi->data[hi->len - 1]++;
    return 0;
}

/* ---- merge operator: list append is concatenation ---- */

/* TTL, kind and id of the state a data key belongs to (0 / none for meta
 * keys and unbound states). */
static int64_t key_ttl(rdb_backend *rb, const char *key, size_t klen,
                       uint8_t *kind, uint32_t *sid_out)
{
    if (klen < 4 || ((uint8_t)key[0] == 0xFF && (uint8_t)key[1] == 0xFF))
        return 0;
    uint32_t sid = (uint32_t)(uint8_t)key[2] << 8 | (uint8_t)key[3];
    ttl_chunk *c = chunk_of(rb, sid);
    if (!c)
        return 0;
    *sid_out = sid;
    int64_t ttl = atomic_load_explicit(&c->ttl[sid % TTL_CHUNK],
                                       memory_order_acquire);
    *kind = (uint8_t)atomic_load_explicit(&c->kind[sid % TTL_CHUNK],
                                          memory_order_relaxed);
    return ttl;
}

/* Appends the list elements of p (of state sid) to r, leaving out those
 * expired (ttl > 0). */
static size_t append_live(const rdb_backend *rb, uint32_t sid, char *r,
                          size_t off, const char *p, size_t n, int64_t ttl,
                          int64_t now)
{
    if (ttl <= 0) {
        memcpy(r + off, p, n);
        return off + n;
    }
    size_t i = 0;
    while (i + ELEM_HDR <= n) {
        size_t esz = ELEM_HDR + (size_t)rd_u32(p + i);
        if (esz > n - i)
            break; /* malformed: keep the rest as it is, a read reports it */
        if (!weir__ttl_expired(unstamped_of(rb, sid, rd_i64(p + i + 4)), now,
                               ttl)) {
            memcpy(r + off, p + i, esz);
            off += esz;
        }
        i += esz;
    }
    memcpy(r + off, p + i, n - i);
    return off + (n - i);
}

/*
 * Set while an asynchronous snapshot iterates on this thread: its reads
 * merge list appends with every element kept, and the snapshot writer
 * leaves out those expired at the pin. (A merge that dropped them at the
 * clock of the read would lose elements that expired after the pin.)
 */
static _Thread_local bool tl_merge_keeps_all;

/*
 * Concatenation; a full merge also drops expired elements, so list memory
 * is reclaimed when a compaction first merges the appends (the compaction
 * filter only sees merged values).
 */
static char *concat(rdb_backend *rb, const char *key, size_t klen,
                    const char *first, size_t first_len, const char *const *ops,
                    const size_t *lens, int n, unsigned char *success,
                    size_t *out_len)
{
    size_t total = first_len;
    for (int i = 0; i < n; i++)
        total += lens[i];
    char *r = weir_malloc(total ? total : 1);
    if (!r) {
        *success = 0;
        return NULL;
    }
    uint8_t kind = 0;
    uint32_t sid = 0;
    int64_t ttl = rb ? key_ttl(rb, key, klen, &kind, &sid) : 0;
    int64_t now = ttl > 0 && kind == WEIR_STATE_LIST
                      ? weir_clock_now(&rb->base.clock)
                      : 0;
    if (kind != WEIR_STATE_LIST || tl_merge_keeps_all)
        ttl = 0;
    size_t off = 0;
    if (first_len)
        off = append_live(rb, sid, r, off, first, first_len, ttl, now);
    for (int i = 0; i < n; i++)
        off = append_live(rb, sid, r, off, ops[i], lens[i], ttl, now);
    *success = 1;
    *out_len = off;
    return r;
}

static char *merge_full(void *ud, const char *key, size_t klen,
                        const char *existing, size_t existing_len,
                        const char *const *ops, const size_t *lens, int n,
                        unsigned char *success, size_t *out_len)
{
    return concat(ud, key, klen, existing, existing ? existing_len : 0, ops,
                  lens, n, success, out_len);
}

static char *merge_partial(void *ud, const char *key, size_t klen,
                           const char *const *ops, const size_t *lens, int n,
                           unsigned char *success, size_t *out_len)
{
    (void)ud;
    /* Operands only: no TTL filtering, an operand is never dropped before its
     * list is whole. */
    return concat(NULL, key, klen, NULL, 0, ops, lens, n, success, out_len);
}

static void merge_free(void *ud, const char *v, size_t len)
{
    (void)ud;
    (void)len;
    weir_free((void *)v);
}

static const char *merge_name(void *ud)
{
    (void)ud;
    return "weir.list_append";
}

static void no_destructor(void *ud)
{
    (void)ud;
}

/* ---- compaction filter: background TTL cleanup ---- */

static unsigned char ttl_filter(void *ud, int level, const char *key,
                                size_t klen, const char *v, size_t vlen,
                                char **new_v, size_t *new_vlen,
                                unsigned char *changed)
{
    (void)level;
    (void)new_v;
    (void)new_vlen;
    *changed = 0;
    rdb_backend *rb = ud;
    uint8_t kind = 0;
    uint32_t sid = 0;
    int64_t ttl = key_ttl(rb, key, klen, &kind, &sid);
    if (ttl <= 0)
        return 0;
    int64_t now = weir_clock_now(&rb->base.clock);
    if (kind == WEIR_STATE_LIST) {
        /* A list goes when every element expired (an emptied list has none
         * left). */
        size_t off = 0;
        while (off + ELEM_HDR <= vlen) {
            if (!weir__ttl_expired(unstamped_of(rb, sid, rd_i64(v + off + 4)),
                                   now, ttl))
                return 0;
            off += ELEM_HDR + (size_t)rd_u32(v + off);
        }
        return off == vlen;
    }
    /* Values and map entries start with their stamp. */
    if (vlen < 8)
        return 0;
    return weir__ttl_expired(unstamped_of(rb, sid, rd_i64(v)), now, ttl);
}

static const char *ttl_filter_name(void *ud)
{
    (void)ud;
    return "weir.ttl";
}

/* ---- value, reducing, aggregating ---- */

/*
 * Reads the stamped value at rb->kbuf into the arena: WEIR_ENOTFOUND when
 * absent or expired (an expired value is deleted), its access time renewed
 * when the TTL counts reads.
 */
static int get_live(weir_state *st, rdb_backend *rb, const void **val,
                    size_t *len)
{
    rocksdb_pinnableslice_t *ps;
    int rc = db_get(rb, &ps);
    if (rc)
        return rc;
    if (!ps)
        return WEIR_ENOTFOUND;
    size_t vlen;
    const char *v = rocksdb_pinnableslice_value(ps, &vlen);
    if (vlen < 8) {
        rocksdb_pinnableslice_destroy(ps);
        return WEIR_ECORRUPT;
    }
    int64_t now = access_now(st);
    if (expired(st, rd_i64(v), now)) {
        rocksdb_pinnableslice_destroy(ps);
        rc = db_delete(rb, &rb->kbuf);
        return rc ? rc : WEIR_ENOTFOUND;
    }
    void *copy = arena_copy(rb, v + 8, vlen - 8);
    rocksdb_pinnableslice_destroy(ps);
    if (!copy)
        return WEIR_ENOMEM;
    if (touch_on_read(st)) {
        if ((rc = put_stamped(&rb->vbuf, now, copy, vlen - 8)) ||
            (rc = db_put(rb, &rb->kbuf, &rb->vbuf)))
            return rc;
    }
    *val = copy;
    *len = vlen - 8;
    return 0;
}


static int rdb_get(weir_state *st, const void *ns, size_t nslen,
                   const void **val, size_t *len)
{
    rdb_backend *rb = RB(st->be);
    int rc = build_key(rb, &rb->kbuf, st, ns, nslen);
    if (rc)
        return rc;
    return get_live(st, rb, val, len);
}

static int rdb_put(weir_state *st, const void *ns, size_t nslen,
                   const void *val, size_t len)
{
    rdb_backend *rb = RB(st->be);
    int rc;
    if (!(rc = build_key(rb, &rb->kbuf, st, ns, nslen)) &&
        !(rc = put_stamped(&rb->vbuf, stamp_of(st, access_now(st)), val, len)))
        rc = db_put(rb, &rb->kbuf, &rb->vbuf);
    arena_reset(rb);
    return rc;
}

static int rdb_update(weir_state *st, const void *ns, size_t nslen,
                      weir__update_fn fn, void *ud)
{
    rdb_backend *rb = RB(st->be);
    int rc = build_key(rb, &rb->kbuf, st, ns, nslen);
    if (rc)
        return rc;
    rocksdb_pinnableslice_t *ps;
    if ((rc = db_get(rb, &ps)))
        return rc;
    int64_t now = access_now(st);
    const char *old = NULL;
    size_t oldlen = 0;
    if (ps) {
        size_t vlen;
        const char *v = rocksdb_pinnableslice_value(ps, &vlen);
        if (vlen < 8) {
            rocksdb_pinnableslice_destroy(ps);
            return WEIR_ECORRUPT;
        }
        if (!expired(st, rd_i64(v), now)) {
            old = v + 8;
            oldlen = vlen - 8;
        }
    }
    weir_buf_clear(&st->be->scratch);
    rc = fn(ud, old, oldlen, &st->be->scratch);
    if (ps)
        rocksdb_pinnableslice_destroy(ps);
    if (!rc && !(rc = put_stamped(&rb->vbuf, stamp_of(st, now),
                                  st->be->scratch.data, st->be->scratch.len)))
        rc = db_put(rb, &rb->kbuf, &rb->vbuf);
    arena_reset(rb);
    return rc;
}

/* Deletes every map entry under the prefix in kbuf. */
static int delete_map(rdb_backend *rb)
{
    weir_buf lo, hi;
    weir_buf_init(&lo);
    weir_buf_init(&hi);
    int rc;
    if ((rc = weir_buf_put(&lo, rb->kbuf.data, rb->kbuf.len)) ||
        (rc = prefix_end(&hi, &lo))) {
        weir_buf_fini(&lo);
        weir_buf_fini(&hi);
        return rc;
    }
    range_iter ri;
    iter_open(rb, &ri, &lo, &hi);
    rocksdb_writebatch_t *wb = rocksdb_writebatch_create();
    for (; rocksdb_iter_valid(ri.it); rocksdb_iter_next(ri.it)) {
        size_t klen;
        const char *k = rocksdb_iter_key(ri.it, &klen);
        rocksdb_writebatch_delete(wb, k, klen);
    }
    rc = iter_close(rb, &ri);
    if (!rc)
        rc = db_write(rb, wb);
    rocksdb_writebatch_destroy(wb);
    weir_buf_fini(&lo);
    weir_buf_fini(&hi);
    return rc;
}

static int rdb_clear(weir_state *st, const void *ns, size_t nslen)
{
    rdb_backend *rb = RB(st->be);
    int rc = build_key(rb, &rb->kbuf, st, ns, nslen);
    if (!rc)
        rc = st->desc.kind == WEIR_STATE_MAP ? delete_map(rb)
                                             : db_delete(rb, &rb->kbuf);
    arena_reset(rb);
    return rc;
}

/* ---- list ---- */

static int list_append(rdb_backend *rb, weir_state *st, const void *ns,
                       size_t nslen, int64_t stamp, const void *val, size_t len)
{
    int rc = build_key(rb, &rb->kbuf, st, ns, nslen);
    if (rc)
        return rc;
    weir_buf_clear(&rb->vbuf);
    if ((rc = put_elem(&rb->vbuf, stamp, val, len)))
        return rc;
    if ((rc = batch_flush(rb)))
        return rc;
    char *err = NULL;
    rocksdb_merge(rb->db, rb->wo, (const char *)rb->kbuf.data, rb->kbuf.len,
                  (const char *)rb->vbuf.data, rb->vbuf.len, &err);
    return err ? rdb_err(rb, err) : 0;
}

static int rdb_list_add(weir_state *st, const void *ns, size_t nslen,
                        const void *val, size_t len)
{
    rdb_backend *rb = RB(st->be);
    int rc =
        list_append(rb, st, ns, nslen, stamp_of(st, access_now(st)), val, len);
    arena_reset(rb);
    return rc;
}

static int rdb_list_get(weir_state *st, const void *ns, size_t nslen,
                        weir_list_visit_fn fn, void *ud)
{
    rdb_backend *rb = RB(st->be);
    int rc = build_key(rb, &rb->kbuf, st, ns, nslen);
    if (rc)
        return rc;
    rocksdb_pinnableslice_t *ps;
    if ((rc = db_get(rb, &ps)) || !ps)
        return rc;
    size_t vlen;
    const char *v = rocksdb_pinnableslice_value(ps, &vlen);
    int64_t now = access_now(st);
    size_t n_expired = 0, n_live = 0;
    bool stopped = false;
    size_t off = 0;
    while (off < vlen) {
        if (vlen - off < ELEM_HDR || vlen - off - ELEM_HDR < rd_u32(v + off)) {
            rocksdb_pinnableslice_destroy(ps);
            return WEIR_ECORRUPT;
        }
        uint32_t len = rd_u32(v + off);
        if (expired(st, rd_i64(v + off + 4), now)) {
            n_expired++;
        } else {
            n_live++;
            if (!stopped) {
                int x = fn(ud, v + off + ELEM_HDR, len);
                if (x) {
                    rc = x < 0 ? x : 0;
                    stopped = true;
                }
            }
        }
        off += ELEM_HDR + len;
    }
    if (n_expired || touch_on_read(st)) {
        /* Rewrite without the expired elements (and with fresh stamps when
         * reads count). */
        int wrc;
        weir_buf_clear(&rb->vbuf);
        wrc = 0;
        for (off = 0; off < vlen && !wrc; off += ELEM_HDR + rd_u32(v + off)) {
            int64_t s = stamp_in(st, rd_i64(v + off + 4));
            if (!expired(st, s, now))
                wrc = put_elem(&rb->vbuf, touch_on_read(st) ? now : s,
                               v + off + ELEM_HDR, rd_u32(v + off));
        }
        if (!wrc)
            wrc = n_live ? db_put(rb, &rb->kbuf, &rb->vbuf)
                         : db_delete(rb, &rb->kbuf);
        if (!rc)
            rc = wrc;
    }
    rocksdb_pinnableslice_destroy(ps);
    return rc;
}

/* ---- map ---- */

static int map_key(rdb_backend *rb, weir_state *st, const void *ns,
                   size_t nslen, const void *k, size_t klen)
{
    int rc = build_key(rb, &rb->kbuf, st, ns, nslen);
    return rc ? rc : weir_buf_put(&rb->kbuf, k, klen);
}

static int rdb_map_put(weir_state *st, const void *ns, size_t nslen,
                       const void *k, size_t klen, const void *v, size_t vlen)
{
    rdb_backend *rb = RB(st->be);
    int rc;
    if (!(rc = map_key(rb, st, ns, nslen, k, klen)) &&
        !(rc = put_stamped(&rb->vbuf, stamp_of(st, access_now(st)), v, vlen)))
        rc = db_put(rb, &rb->kbuf, &rb->vbuf);
    arena_reset(rb);
    return rc;
}

static int rdb_map_get(weir_state *st, const void *ns, size_t nslen,
                       const void *k, size_t klen, const void **v, size_t *vlen)
{
    rdb_backend *rb = RB(st->be);
    int rc = map_key(rb, st, ns, nslen, k, klen);
    if (rc)
        return rc;
    return get_live(st, rb, v, vlen);
}

static int rdb_stamp(weir_state *st, const void *ns, size_t nslen,
                     const void *k, size_t klen, int64_t *stamp)
{
    rdb_backend *rb = RB(st->be);
    int rc = k ? map_key(rb, st, ns, nslen, k, klen)
               : build_key(rb, &rb->kbuf, st, ns, nslen);
    rocksdb_pinnableslice_t *ps;
    if (rc || (rc = db_get(rb, &ps)))
        return rc;
    if (!ps)
        return WEIR_ENOTFOUND;
    size_t vlen;
    const char *v = rocksdb_pinnableslice_value(ps, &vlen);
    rc = vlen < 8 ? WEIR_ECORRUPT
         : expired(st, rd_i64(v), access_now(st)) ? WEIR_ENOTFOUND
                                                   : 0;
    if (!rc)
        *stamp = stamp_in(st, rd_i64(v));
    rocksdb_pinnableslice_destroy(ps);
    return rc;
}

static int rdb_map_remove(weir_state *st, const void *ns, size_t nslen,
                          const void *k, size_t klen)
{
    rdb_backend *rb = RB(st->be);
    int rc = map_key(rb, st, ns, nslen, k, klen);
    if (!rc)
        rc = db_delete(rb, &rb->kbuf);
    arena_reset(rb);
    return rc;
}

static int rdb_map_iterate(weir_state *st, const void *ns, size_t nslen,
                           weir_map_visit_fn fn, void *ud)
{
    rdb_backend *rb = RB(st->be);
    weir_buf lo, hi;
    weir_buf_init(&lo);
    weir_buf_init(&hi);
    int rc;
    if ((rc = build_key(rb, &lo, st, ns, nslen)) || (rc = prefix_end(&hi, &lo)))
        goto out;
    int64_t now = access_now(st);
    bool touch = touch_on_read(st);
    range_iter ri;
    iter_open(rb, &ri, &lo, &hi);
    rocksdb_writebatch_t *wb = rocksdb_writebatch_create();
    for (; rocksdb_iter_valid(ri.it); rocksdb_iter_next(ri.it)) {
        size_t klen, vlen;
        const char *k = rocksdb_iter_key(ri.it, &klen);
        const char *v = rocksdb_iter_value(ri.it, &vlen);
        if (vlen < 8 || klen < lo.len) {
            rc = WEIR_ECORRUPT;
            break;
        }
        if (expired(st, rd_i64(v), now)) {
            rocksdb_writebatch_delete(wb, k, klen);
            continue;
        }
        if (touch) {
            if ((rc = put_stamped(&rb->vbuf, now, v + 8, vlen - 8)))
                break;
            rocksdb_writebatch_put(wb, k, klen, (const char *)rb->vbuf.data,
                                   rb->vbuf.len);
        }
        int x = fn(ud, k + lo.len, klen - lo.len, v + 8, vlen - 8);
        if (x) {
            rc = x < 0 ? x : 0;
            break;
        }
    }
    int irc = iter_close(rb, &ri);
    if (!rc)
        rc = irc;
    int wrc = db_write(rb, wb);
    if (!rc)
        rc = wrc;
    rocksdb_writebatch_destroy(wb);
out:
    weir_buf_fini(&lo);
    weir_buf_fini(&hi);
    return rc;
}

/* ---- whole key groups ---- */

/* Range of one state inside one key group. */
static int state_range(weir_buf *lo, weir_buf *hi, uint32_t kg, uint32_t sid)
{
    int rc;
    if ((rc = put_prefix(lo, kg, sid)))
        return rc;
    return sid < 0xFFFF ? put_prefix(hi, kg, sid + 1)
                        : put_prefix(hi, kg + 1, 0);
}

typedef int (*entry_fn)(void *ud, weir_state *st, const void *key, size_t klen,
                        const void *ns, size_t nslen, const void *rest,
                        size_t restlen, const char *v, size_t vlen);

/* Calls fn for every record of st in kg, in key order. */
static int scan_state(rdb_backend *rb, weir_state *st, uint32_t kg, entry_fn fn,
                      void *ud)
{
    weir_buf lo, hi;
    weir_buf_init(&lo);
    weir_buf_init(&hi);
    int rc = state_range(&lo, &hi, kg, st->id);
    if (!rc) {
        range_iter ri;
        iter_open(rb, &ri, &lo, &hi);
        for (; rocksdb_iter_valid(ri.it) && !rc; rocksdb_iter_next(ri.it)) {
            size_t klen, vlen;
            const char *k = rocksdb_iter_key(ri.it, &klen);
            const char *v = rocksdb_iter_value(ri.it, &vlen);
            const void *key, *ns, *rest;
            size_t keylen, nslen, restlen;
            if ((rc = parse_key(k, klen, &key, &keylen, &ns, &nslen, &rest,
                                &restlen)))
                break;
            rc = fn(ud, st, key, keylen, ns, nslen, rest, restlen, v, vlen);
        }
        int irc = iter_close(rb, &ri);
        if (!rc)
            rc = irc;
    }
    weir_buf_fini(&lo);
    weir_buf_fini(&hi);
    return rc;
}

/* Grouping map entries by (key, ns): the previous group's key and namespace. */
typedef struct group {
    weir_buf key, ns;
    bool open;
} group;

static bool same_group(const group *g, const void *key, size_t klen,
                       const void *ns, size_t nslen)
{
    return g->open && g->key.len == klen && g->ns.len == nslen &&
           (klen == 0 || memcmp(g->key.data, key, klen) == 0) &&
           (nslen == 0 || memcmp(g->ns.data, ns, nslen) == 0);
}

static int group_set(group *g, const void *key, size_t klen, const void *ns,
                     size_t nslen)
{
    weir_buf_clear(&g->key);
    weir_buf_clear(&g->ns);
    int rc;
    if ((rc = weir_buf_put(&g->key, key, klen)) ||
        (rc = weir_buf_put(&g->ns, ns, nslen)))
        return rc;
    g->open = true;
    return 0;
}

typedef struct snap_ctx {
    weir__snap_writer *w;
    unstamp u; /* unstamped_out of the state */
    group g;
} snap_ctx;

static inline int64_t snap_stamp(const snap_ctx *c, int64_t stamp)
{
    if (stamp == WEIR__NO_STAMP ||
        (c->u.floor && (c->u.at == WEIR__NO_STAMP || stamp < c->u.at)))
        return c->u.at;
    return stamp;
}

static int snap_entry(void *ud, weir_state *st, const void *key, size_t klen,
                      const void *ns, size_t nslen, const void *rest,
                      size_t restlen, const char *v, size_t vlen)
{
    snap_ctx *c = ud;
    int rc;
    switch (st->desc.kind) {
    case WEIR_STATE_LIST: {
        if ((rc = weir__snap_group_begin(c->w, key, klen, ns, nslen)))
            return rc;
        for (size_t off = 0; off < vlen; off += ELEM_HDR + rd_u32(v + off)) {
            if (vlen - off < ELEM_HDR ||
                vlen - off - ELEM_HDR < rd_u32(v + off))
                return WEIR_ECORRUPT;
            if ((rc = weir__snap_item(c->w, snap_stamp(c, rd_i64(v + off + 4)),
                                      NULL, 0, v + off + ELEM_HDR,
                                      rd_u32(v + off))))
                return rc;
        }
        return weir__snap_group_end(c->w);
    }
    case WEIR_STATE_MAP:
        if (vlen < 8)
            return WEIR_ECORRUPT;
        if (!same_group(&c->g, key, klen, ns, nslen)) {
            if (c->g.open && (rc = weir__snap_group_end(c->w)))
                return rc;
            if ((rc = group_set(&c->g, key, klen, ns, nslen)) ||
                (rc = weir__snap_group_begin(c->w, key, klen, ns, nslen)))
                return rc;
        }
        return weir__snap_item(c->w, snap_stamp(c, rd_i64(v)), rest, restlen,
                               v + 8, vlen - 8);
    default:
        if (vlen < 8)
            return WEIR_ECORRUPT;
        return weir__snap_value(c->w, key, klen, ns, nslen,
                                snap_stamp(c, rd_i64(v)), v + 8, vlen - 8);
    }
}

static int rdb_snapshot_state(weir_state *st, uint32_t kg, weir__snap_writer *w)
{
    snap_ctx c = {.w = w, .u = unstamped_out(st)};
    weir_buf_init(&c.g.key);
    weir_buf_init(&c.g.ns);
    int rc = scan_state(RB(st->be), st, kg, snap_entry, &c);
    if (!rc && c.g.open)
        rc = weir__snap_group_end(w);
    weir_buf_fini(&c.g.key);
    weir_buf_fini(&c.g.ns);
    return rc;
}

/* ---- asynchronous snapshots: a RocksDB snapshot, read on another thread ---- */

typedef struct rdb_view {
    rocksdb_t *db;
    const rocksdb_snapshot_t *snap;
    uint32_t n_states;
    unstamp *unstamped; /* by state id, unstamped_out at the begin */
} rdb_view;

static int rdb_snap_begin(weir__backend *be, void **out)
{
    int rc = batch_flush(RB(be));
    if (rc)
        return rc;
    rdb_view *v = weir_malloc(sizeof *v);
    if (!v)
        return WEIR_ENOMEM;
    v->n_states = be->n_states;
    v->unstamped = weir_malloc((be->n_states ? be->n_states : 1) *
                               sizeof *v->unstamped);
    if (!v->unstamped) {
        weir_free(v);
        return WEIR_ENOMEM;
    }
    for (uint32_t i = 0; i < be->n_states; i++)
        v->unstamped[be->states[i]->id] = unstamped_out(be->states[i]);
    v->db = RB(be)->db;
    v->snap = rocksdb_create_snapshot(v->db);
    *out = v;
    return 0;
}

static void rdb_snap_release(void *p)
{
    rdb_view *v = p;
    rocksdb_release_snapshot(v->db, v->snap);
    weir_free(v->unstamped);
    weir_free(v);
}

static int rdb_snap_state(void *p, uint32_t id, weir_state_kind kind,
                          uint32_t kg, weir__snap_writer *w)
{
    rdb_view *v = p;
    /* snap_entry looks at the kind only. */
    weir_state st = {.id = id, .desc = {.kind = kind}};
    snap_ctx c = {.w = w,
                  .u = id < v->n_states ? v->unstamped[id]
                                        : (unstamp){WEIR__NO_STAMP, false}};
    weir_buf lo, hi;
    weir_buf_init(&lo);
    weir_buf_init(&hi);
    weir_buf_init(&c.g.key);
    weir_buf_init(&c.g.ns);
    int rc = state_range(&lo, &hi, kg, id);
    if (!rc) {
        rocksdb_readoptions_t *ro = rocksdb_readoptions_create();
        rocksdb_readoptions_set_snapshot(ro, v->snap);
        rocksdb_readoptions_set_iterate_lower_bound(ro, (const char *)lo.data,
                                                    lo.len);
        rocksdb_readoptions_set_iterate_upper_bound(ro, (const char *)hi.data,
                                                    hi.len);
        /* A one-off scan: keep it out of the block cache's hot set. */
        rocksdb_readoptions_set_fill_cache(ro, 0);
        rocksdb_iterator_t *it = rocksdb_create_iterator(v->db, ro);
        tl_merge_keeps_all = true;
        for (rocksdb_iter_seek(it, (const char *)lo.data, lo.len);
             rocksdb_iter_valid(it) && !rc; rocksdb_iter_next(it)) {
            size_t klen, vlen;
            const char *k = rocksdb_iter_key(it, &klen);
            const char *val = rocksdb_iter_value(it, &vlen);
            const void *key, *ns, *rest;
            size_t keylen, nslen, restlen;
            if ((rc = parse_key(k, klen, &key, &keylen, &ns, &nslen, &rest,
                                &restlen)))
                break;
            rc = snap_entry(&c, &st, key, keylen, ns, nslen, rest, restlen,
                            val, vlen);
        }
        tl_merge_keeps_all = false;
        char *err = NULL;
        rocksdb_iter_get_error(it, &err);
        if (err) {
            if (!rc)
                rc = strstr(err, "Corruption") ? WEIR_ECORRUPT : WEIR_EIO;
            rocksdb_free(err);
        }
        rocksdb_iter_destroy(it);
        rocksdb_readoptions_destroy(ro);
    }
    if (!rc && c.g.open)
        rc = weir__snap_group_end(w);
    weir_buf_fini(&c.g.key);
    weir_buf_fini(&c.g.ns);
    weir_buf_fini(&lo);
    weir_buf_fini(&hi);
    return rc;
}

typedef struct keys_ctx {
    weir_buf *out;
    int64_t now;
    group g;
} keys_ctx;

static int key_entry(void *ud, weir_state *st, const void *key, size_t klen,
                     const void *ns, size_t nslen, const void *rest,
                     size_t restlen, const char *v, size_t vlen)
{
    (void)rest;
    (void)restlen;
    keys_ctx *c = ud;
    bool live = false;
    if (st->desc.kind == WEIR_STATE_LIST) {
        for (size_t off = 0; off + ELEM_HDR <= vlen && !live;
             off += ELEM_HDR + rd_u32(v + off))
            live = !expired(st, rd_i64(v + off + 4), c->now);
    } else {
        live = vlen >= 8 && !expired(st, rd_i64(v), c->now);
    }
    if (!live)
        return 0;
    if (st->desc.kind == WEIR_STATE_MAP) {
        if (same_group(&c->g, key, klen, ns, nslen))
            return 0; /* this (key, ns) was reported for an earlier entry */
        int rc = group_set(&c->g, key, klen, ns, nslen);
        if (rc)
            return rc;
    }
    int rc;
    if ((rc = weir_buf_put_bytes(c->out, key, klen)) ||
        (rc = weir_buf_put_bytes(c->out, ns, nslen)))
        return rc;
    return 0;
}

static int rdb_collect_keys(weir_state *st, uint32_t kg, weir_buf *out)
{
    keys_ctx c = {.out = out, .now = access_now(st)};
    weir_buf_init(&c.g.key);
    weir_buf_init(&c.g.ns);
    int rc = scan_state(RB(st->be), st, kg, key_entry, &c);
    weir_buf_fini(&c.g.key);
    weir_buf_fini(&c.g.ns);
    return rc;
}

static int delete_kg_range(rdb_backend *rb, uint32_t kg_from, uint32_t kg_to)
{
    if (kg_from >= kg_to)
        return 0;
    uint8_t lo[2], hi[2];
    wr_u16be(lo, kg_from);
    wr_u16be(hi, kg_to);
    int brc = batch_flush(rb);
    if (brc)
        return brc;
    rocksdb_writebatch_t *wb = rocksdb_writebatch_create();
    rocksdb_writebatch_delete_range(wb, (const char *)lo, 2, (const char *)hi,
                                    2);
    char *err = NULL;
    rocksdb_write(rb->db, rb->wo, wb, &err);
    rocksdb_writebatch_destroy(wb);
    return err ? rdb_err(rb, err) : 0;
}

static int rdb_drop_kg(weir__backend *be, uint32_t kg)
{
    arena_reset(RB(be));
    return delete_kg_range(RB(be), kg, kg + 1);
}

/* ---- restore: bulk loading through sorted SST files ---- */

#define INGEST_BYTES (256u << 20) /* a staged file is ingested at this size */
#define REC_HDR 8                 /* lrec record: u32 klen, u32 vlen */

/*
 * An entry already expired is not loaded (only known for states an operator
 * registered; others keep their stamps and reads hide them).
 */
static inline bool load_expired(const weir_state *st, int64_t stamp)
{
    return st->bound && expired(st, stamp, weir__now(st->be));
}

/* Appends a record: key kbuf, value [stamp][v] (stamped) or v. */
static int rec_add(rdb_backend *rb, bool stamped, int64_t stamp, const void *v,
                   size_t len)
{
    size_t vlen = len + (stamped ? 8 : 0);
    if (rb->kbuf.len > UINT32_MAX || vlen > UINT32_MAX)
        return WEIR_EINVAL;
    int rc;
    if ((rc = weir_buf_reserve(&rb->lrec, REC_HDR + rb->kbuf.len + vlen)) ||
        (rc = weir_buf_put_u32(&rb->lrec, (uint32_t)rb->kbuf.len)) ||
        (rc = weir_buf_put_u32(&rb->lrec, (uint32_t)vlen)) ||
        (rc = weir_buf_put(&rb->lrec, rb->kbuf.data, rb->kbuf.len)) ||
        (stamped && (rc = weir_buf_put_i64(&rb->lrec, stamp))) ||
        (rc = weir_buf_put(&rb->lrec, v, len)))
        return rc;
    return 0;
}

static int rdb_load_value(weir_state *st, const void *ns, size_t nslen,
                          int64_t stamp, const void *v, size_t len)
{
    rdb_backend *rb = RB(st->be);
    int rc;
    if ((rc = build_key(rb, &rb->kbuf, st, ns, nslen)))
        return rc;
    if (rb->loading) {
        rb->lrec_list_at = SIZE_MAX;
        return load_expired(st, stamp) ? 0 : rec_add(rb, true, stamp, v, len);
    }
    if (!(rc = put_stamped(&rb->vbuf, stamp, v, len)))
        rc = db_put(rb, &rb->kbuf, &rb->vbuf);
    arena_reset(rb); /* a write (weir__value_put_stamped) */
    return rc;
}

static int rdb_load_list(weir_state *st, const void *ns, size_t nslen,
                         int64_t stamp, const void *v, size_t len)
{
    rdb_backend *rb = RB(st->be);
    if (!rb->loading)
        return list_append(rb, st, ns, nslen, stamp, v, len);
    int rc = build_key(rb, &rb->kbuf, st, ns, nslen);
    if (rc)
        return rc;
    if (load_expired(st, stamp))
        return 0;
    if (len > UINT32_MAX - ELEM_HDR)
        return WEIR_EINVAL;
    /*
     * The elements of one list come one after another: they grow the value
     * of the last record, so a list is one put instead of one merge operand
     * per element.
     */
    size_t at = rb->lrec_list_at;
    if (at != SIZE_MAX && rd_u32(rb->lrec.data + at) == rb->kbuf.len &&
        memcmp(rb->lrec.data + at + REC_HDR, rb->kbuf.data, rb->kbuf.len) ==
            0) {
        uint32_t vlen = rd_u32(rb->lrec.data + at + 4);
        if ((size_t)vlen + ELEM_HDR + len > UINT32_MAX)
            return WEIR_EINVAL;
        if ((rc = put_elem(&rb->lrec, stamp, v, len)))
            return rc;
        vlen += (uint32_t)(ELEM_HDR + len);
        memcpy(rb->lrec.data + at + 4, &vlen, 4);
        return 0;
    }
    weir_buf_clear(&rb->vbuf);
    if ((rc = put_elem(&rb->vbuf, stamp, v, len)))
        return rc;
    at = rb->lrec.len;
    if ((rc = rec_add(rb, false, 0, rb->vbuf.data, rb->vbuf.len)))
        return rc;
    rb->lrec_list_at = at;
    return 0;
}

static int rdb_load_map(weir_state *st, const void *ns, size_t nslen,
                        const void *k, size_t klen, int64_t stamp,
                        const void *v, size_t vlen)
{
    rdb_backend *rb = RB(st->be);
    int rc;
    if ((rc = map_key(rb, st, ns, nslen, k, klen)))
        return rc;
    if (rb->loading) {
        rb->lrec_list_at = SIZE_MAX;
        return load_expired(st, stamp) ? 0 : rec_add(rb, true, stamp, v, vlen);
    }
    if (!(rc = put_stamped(&rb->vbuf, stamp, v, vlen)))
        rc = db_put(rb, &rb->kbuf, &rb->vbuf);
    arena_reset(rb); /* a write (weir__map_put_stamped) */
    return rc;
}

static int rdb_load_begin(weir__backend *be, uint32_t kg)
{
    (void)kg;
    rdb_backend *rb = RB(be);
    if (rb->load_err)
        return rb->load_err;
    /* A floor of this database does not hold for the entries that come. */
    int rc;
    if (atomic_load_explicit(&rb->floors, memory_order_relaxed) &&
        (rc = settle_floors(rb, true)))
        return rc;
    weir_buf_clear(&rb->lrec);
    rb->lrec_list_at = SIZE_MAX;
    rb->loading = true;
    return 0;
}

/* A record of lrec, for sorting. */
typedef struct lent {
    const uint8_t *key;
    uint32_t klen;
    uint32_t seq; /* position in the snapshot: equal keys keep their order */
} lent;

static int lent_cmp(const void *a, const void *b)
{
    const lent *x = a, *y = b;
    int c = weir__bytes_cmp(x->key, x->klen, y->key, y->klen);
    if (c)
        return c;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static inline int lent_key_cmp(const lent *x, const lent *y)
{
    return weir__bytes_cmp(x->key, x->klen, y->key, y->klen);
}

static inline const char *lent_value(const lent *e, size_t *vlen)
{
    *vlen = rd_u32(e->key - 4);
    return (const char *)e->key + e->klen;
}

/* Whether the database holds anything in key group kg. */
static int kg_nonempty(rdb_backend *rb, uint32_t kg, bool *out)
{
    uint8_t lo[2], hi[2];
    wr_u16be(lo, kg);
    wr_u16be(hi, kg + 1);
    rocksdb_readoptions_t *ro = rocksdb_readoptions_create();
    rocksdb_readoptions_set_iterate_upper_bound(ro, (const char *)hi, 2);
    rocksdb_readoptions_set_fill_cache(ro, 0);
    rocksdb_iterator_t *it = rocksdb_create_iterator(rb->db, ro);
    rocksdb_iter_seek(it, (const char *)lo, 2);
    *out = rocksdb_iter_valid(it);
    char *err = NULL;
    rocksdb_iter_get_error(it, &err);
    rocksdb_iter_destroy(it);
    rocksdb_readoptions_destroy(ro);
    return err ? rdb_err(rb, err) : 0;
}

static int staged_put(rdb_backend *rb, const char *k, size_t klen,
                      const char *v, size_t vlen)
{
    char *err = NULL;
    if (!rb->sst) {
        rb->sst = rocksdb_sstfilewriter_create(rb->envopts, rb->opts);
        rocksdb_sstfilewriter_open(rb->sst, rb->sst_path, &err);
        if (err) {
            rocksdb_sstfilewriter_destroy(rb->sst);
            rb->sst = NULL;
            return rdb_err(rb, err);
        }
        rb->sst_entries = 0;
    }
    rocksdb_sstfilewriter_put(rb->sst, k, klen, v, vlen, &err);
    if (err)
        return rdb_err(rb, err);
    rb->sst_entries++;
    return 0;
}

/* Writes the sorted records of lrec into the staged file. */
static int stage_sorted(rdb_backend *rb, lent *ents, size_t n)
{
    weir_buf cat;
    weir_buf_init(&cat);
    int rc = 0;
    for (size_t i = 0; i < n && !rc;) {
        size_t j = i + 1;
        while (j < n && lent_key_cmp(&ents[i], &ents[j]) == 0)
            j++;
        size_t vlen;
        const char *v = lent_value(&ents[j - 1], &vlen);
        if (j - i > 1) {
            /*
             * The same entry twice (no snapshot writer does that): as the
             * per-entry loads would, the last value wins and a list's
             * elements add up.
             */
            uint32_t sid = (uint32_t)ents[i].key[2] << 8 | ents[i].key[3];
            if (sid < rb->base.n_states &&
                rb->base.states[sid]->desc.kind == WEIR_STATE_LIST) {
                weir_buf_clear(&cat);
                for (size_t x = i; x < j && !rc; x++) {
                    size_t l;
                    const char *p = lent_value(&ents[x], &l);
                    rc = weir_buf_put(&cat, p, l);
                }
                v = (const char *)cat.data;
                vlen = cat.len;
            }
        }
        if (!rc)
            rc = staged_put(rb, (const char *)ents[i].key, ents[i].klen, v,
                            vlen);
        i = j;
    }
    weir_buf_fini(&cat);
    return rc;
}

/*
 * Replaces key group kg with the loaded records: sorted into the staged SST
 * file, after a range delete of what the database holds there (nothing,
 * in a restore into a fresh backend).
 */
static int load_commit(rdb_backend *rb, uint32_t kg)
{
    int rc;
    /* Keys of a staged file must ascend: a key group out of order (or
     * restored twice) goes into a file of its own. */
    if (rb->sst && kg <= rb->sst_last_kg && (rc = ingest_staged(rb)))
        return rc;
    if ((rc = batch_write_raw(rb)))
        return rc;
    bool nonempty;
    if ((rc = kg_nonempty(rb, kg, &nonempty)))
        return rc;
    if (nonempty) {
        /* Not through batch_flush: the staged file (lower key groups) may
         * stay staged. */
        uint8_t lo[2], hi[2];
        wr_u16be(lo, kg);
        wr_u16be(hi, kg + 1);
        rocksdb_writebatch_t *wb = rocksdb_writebatch_create();
        rocksdb_writebatch_delete_range(wb, (const char *)lo, 2,
                                        (const char *)hi, 2);
        char *err = NULL;
        rocksdb_write(rb->db, rb->wo, wb, &err);
        rocksdb_writebatch_destroy(wb);
        if (err)
            return rdb_err(rb, err);
    }
    rb->stats.bulk_kgs++;
    size_t n = 0;
    for (size_t off = 0; off < rb->lrec.len; n++)
        off += REC_HDR + rd_u32(rb->lrec.data + off) +
               rd_u32(rb->lrec.data + off + 4);
    if (n == 0)
        return 0;
    if (n > UINT32_MAX)
        return WEIR_EINVAL;
    lent *ents = weir_malloc(n * sizeof *ents);
    if (!ents)
        return WEIR_ENOMEM;
    bool sorted = true;
    size_t i = 0;
    for (size_t off = 0; off < rb->lrec.len; i++) {
        uint32_t kl = rd_u32(rb->lrec.data + off);
        ents[i] = (lent){rb->lrec.data + off + REC_HDR, kl, (uint32_t)i};
        if (i > 0 && sorted && lent_key_cmp(&ents[i - 1], &ents[i]) >= 0)
            sorted = false;
        off += REC_HDR + kl + rd_u32(rb->lrec.data + off + 4);
    }
    /*
     * The canonical order is the source backend's (hash order from memory;
     * RocksDB's byte order, but state ids may differ here): sort unless it
     * already is.
     */
    if (!sorted && n > 1)
        qsort(ents, n, sizeof *ents, lent_cmp);
    rc = stage_sorted(rb, ents, n);
    weir_free(ents);
    if (rc) {
        /* A half-written file would lose earlier staged key groups too. */
        if (!rb->load_err)
            rb->load_err = rc;
        return rc;
    }
    rb->sst_last_kg = kg;
    rb->stats.bulk_entries += n;
    uint64_t size = 0;
    rocksdb_sstfilewriter_file_size(rb->sst, &size);
    if (size >= INGEST_BYTES)
        rc = ingest_staged(rb);
    return rc;
}

static int rdb_load_end(weir__backend *be, uint32_t kg, bool commit)
{
    rdb_backend *rb = RB(be);
    rb->loading = false;
    int rc = commit ? load_commit(rb, kg) : 0;
    /* Keep the capacity for the next key group, unless it was large. */
    if (rb->lrec.cap > (64u << 20))
        weir_buf_fini(&rb->lrec);
    else
        weir_buf_clear(&rb->lrec);
    return rc;
}

/*
 * Ingests the staged file: RocksDB links it into the lowest level whose
 * files it does not overlap (the bottom one, in a fresh restore) with a
 * sequence number above every write so far. A failure loses the staged key
 * groups, so it sticks: every later access of the backend fails with it.
 */
static int ingest_staged(rdb_backend *rb)
{
    if (rb->load_err)
        return rb->load_err;
    if (!rb->sst)
        return 0;
    int rc = batch_write_raw(rb);
    char *err = NULL;
    if (!rc) {
        rocksdb_sstfilewriter_finish(rb->sst, &err);
        if (err)
            rc = rdb_err(rb, err);
    }
    rocksdb_sstfilewriter_destroy(rb->sst);
    rb->sst = NULL;
    if (!rc) {
        rocksdb_ingestexternalfileoptions_t *io =
            rocksdb_ingestexternalfileoptions_create();
        rocksdb_ingestexternalfileoptions_set_move_files(io, 1);
        const char *files[1] = {rb->sst_path};
        rocksdb_ingest_external_file(rb->db, files, 1, io, &err);
        rocksdb_ingestexternalfileoptions_destroy(io);
        if (err)
            rc = rdb_err(rb, err);
    }
    unlink(rb->sst_path);
    if (rc) {
        rb->load_err = rc;
        return rc;
    }
    rb->stats.ingested_files++;
    rb->stats.ingested_entries += rb->sst_entries;
    rb->sst_entries = 0;
    return 0;
}

/* ---- lifecycle ---- */

static int rdb_state_create(weir__backend *be, weir_state **out)
{
    if (be->n_states >= 0xFFFF)
        return WEIR_EUNSUPPORTED; /* state ids are u16 in the key layout */
    rdb_state *s = weir_calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    *out = &s->base;
    return 0;
}

static int rdb_state_bound(weir__backend *be, weir_state *st)
{
    ttl_chunk *c;
    int rc = chunk_get(RB(be), st->id, &c);
    if (rc)
        return rc;
    atomic_store(&c->kind[st->id % TTL_CHUNK], (int64_t)st->desc.kind);
    atomic_store(&c->ttl[st->id % TTL_CHUNK], st->ttl_ms);
    return 0;
}

static int rdb_key_changed(weir__backend *be)
{
    arena_reset(RB(be));
    return 0;
}

static uint64_t rdb_size_bytes(const weir__backend *be)
{
    const rdb_backend *rb = (const rdb_backend *)be;
    uint64_t sst = 0, mem = 0;
    rocksdb_property_int(rb->db, "rocksdb.total-sst-files-size", &sst);
    rocksdb_property_int(rb->db, "rocksdb.cur-size-all-mem-tables", &mem);
    uint64_t staged = 0;
    if (rb->sst)
        rocksdb_sstfilewriter_file_size(rb->sst, &staged);
    return sst + mem + staged;
}

static int rdb_write_batch(weir__backend *be, bool on)
{
    rdb_backend *rb = RB(be);
    if (on) {
        if (!rb->wb)
            rb->wb = rocksdb_writebatch_create();
        rb->batching = true;
        rb->batch_err = 0;
        return 0;
    }
    batch_flush(rb);
    rb->batching = false;
    int rc = rb->batch_err;
    rb->batch_err = 0;
    return rc;
}

static void rdb_free(rdb_backend *rb, bool destroy_db)
{
    if (rb->wb)
        rocksdb_writebatch_destroy(rb->wb);
    if (rb->sst)
        rocksdb_sstfilewriter_destroy(rb->sst);
    if (rb->sst_path)
        unlink(rb->sst_path);
    weir_free(rb->sst_path);
    weir_buf_fini(&rb->lrec);
    if (rb->envopts)
        rocksdb_envoptions_destroy(rb->envopts);
    if (rb->db) {
        rocksdb_close(rb->db);
        if (destroy_db) {
            char *err = NULL;
            rocksdb_destroy_db(rb->opts, rb->dir, &err);
            if (err)
                rocksdb_free(err);
        }
    }
    if (rb->cfilter)
        rocksdb_compactionfilter_destroy(rb->cfilter);
    if (rb->opts)
        rocksdb_options_destroy(rb->opts);
    if (rb->bbto)
        rocksdb_block_based_options_destroy(rb->bbto);
    if (rb->cache)
        rocksdb_cache_destroy(rb->cache);
    if (rb->ro)
        rocksdb_readoptions_destroy(rb->ro);
    if (rb->wo)
        rocksdb_writeoptions_destroy(rb->wo);
    for (uint32_t i = 0; i < rb->base.n_states; i++) {
        weir_free((void *)rb->base.states[i]->desc.name);
        weir_free(rb->base.states[i]);
    }
    while (rb->arena) {
        rchunk *n = rb->arena->next;
        weir_free(rb->arena);
        rb->arena = n;
    }
    for (uint32_t i = 0; i < TTL_CHUNKS; i++)
        weir_free(atomic_load(&rb->ttl[i]));
    weir_free(rb->dir);
    weir_buf_fini(&rb->kbuf);
    weir_buf_fini(&rb->vbuf);
    weir__backend_fini(&rb->base);
    weir_free(rb);
}

static void rdb_destroy(weir__backend *be)
{
    rdb_free(RB(be), true);
}

static const weir__backend_ops rdb_ops = {
    .kind = "rocksdb",
    .destroy = rdb_destroy,
    .state_create = rdb_state_create,
    .state_bound = rdb_state_bound,
    .key_changed = rdb_key_changed,
    .get = rdb_get,
    .put = rdb_put,
    .update = rdb_update,
    .clear = rdb_clear,
    .list_add = rdb_list_add,
    .list_get = rdb_list_get,
    .map_put = rdb_map_put,
    .map_get = rdb_map_get,
    .stamp = rdb_stamp,
    .map_remove = rdb_map_remove,
    .map_iterate = rdb_map_iterate,
    .collect_keys = rdb_collect_keys,
    .snapshot_state = rdb_snapshot_state,
    .snap_begin = rdb_snap_begin,
    .write_batch = rdb_write_batch,
    .snap_state = rdb_snap_state,
    .snap_release = rdb_snap_release,
    .drop_kg = rdb_drop_kg,
    .load_value = rdb_load_value,
    .load_list = rdb_load_list,
    .load_map = rdb_load_map,
    .load_begin = rdb_load_begin,
    .load_end = rdb_load_end,
    .size_bytes = rdb_size_bytes,
};

bool weir__backend_is_rocksdb(const weir__backend *be)
{
    return be && be->ops == &rdb_ops;
}

/* mkdir -p */
static int make_dirs(const char *path)
{
    char buf[4096];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf)
        return WEIR_EINVAL;
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        char c = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            return errno == ENOSPC ? WEIR_ENOSPC : WEIR_EIO;
        buf[i] = c;
    }
    return 0;
}

/*
 * Subtasks open their databases at the same moment, and the first use of
 * RocksDB's process-wide defaults (its Env and thread pools, its object
 * registry) from several threads at once is not something its C API
 * promises to be safe; ThreadSanitizer flags it. Opening is rare: one lock
 * around setting up the options and around rocksdb_open.
 */
static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;

/* Creates the backend struct, options and (after deleting any old database) the
 * directory. */
/*
 * Native checkpoints of an earlier run that died before removing them
 * ("<dir>.snap-<id>", weir__rocksdb_snapshot_native) are scratch too.
 */
static void remove_stale_snaps(const char *dir)
{
    const char *slash = strrchr(dir, '/');
    char parent[4096], prefix[512];
    if (slash) {
        snprintf(parent, sizeof parent, "%.*s", (int)(slash - dir), dir);
        if (!parent[0])
            strcpy(parent, "/");
    } else {
        strcpy(parent, ".");
    }
    if ((size_t)snprintf(prefix, sizeof prefix, "%s.snap-",
                         slash ? slash + 1 : dir) >= sizeof prefix)
        return;
    DIR *d = opendir(parent);
    if (!d)
        return;
    struct dirent *e;
    char path[8192];
    while ((e = readdir(d)))
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) {
            snprintf(path, sizeof path, "%s/%s", parent, e->d_name);
            weir__io_remove_tree(path);
        }
    closedir(d);
}

static int rdb_prepare_locked(const weir__backend_config *cfg, rdb_backend **out)
{
    if (!cfg->dir || !cfg->dir[0])
        return WEIR_EINVAL;
    rdb_backend *rb = weir_calloc(1, sizeof *rb);
    if (!rb)
        return WEIR_ENOMEM;
    weir__backend_init(&rb->base, &rdb_ops, cfg);
    weir_buf_init(&rb->kbuf);
    weir_buf_init(&rb->vbuf);
    weir_buf_init(&rb->lrec);
    rb->lrec_list_at = SIZE_MAX;
    rb->dir = weir_strdup(cfg->dir);
    /* Next to the database, not in it: RocksDB owns its folder. */
    size_t plen = strlen(cfg->dir) + sizeof ".restore.sst";
    rb->sst_path = weir_malloc(plen);
    if (rb->sst_path)
        snprintf(rb->sst_path, plen, "%s.restore.sst", cfg->dir);
    rb->envopts = rocksdb_envoptions_create();
    if (!rb->dir || !rb->sst_path) {
        rdb_free(rb, false);
        return WEIR_ENOMEM;
    }
    rb->opts = rocksdb_options_create();
    rocksdb_options_set_create_if_missing(rb->opts, 1);
    rocksdb_options_set_info_log_level(rb->opts, 3 /* errors only */);
    rocksdb_options_set_keep_log_file_num(rb->opts, 1);
    rocksdb_options_set_stats_dump_period_sec(rb->opts, 0);
    rocksdb_options_set_stats_persist_period_sec(rb->opts, 0);
    rocksdb_options_set_merge_operator(
        rb->opts,
        rocksdb_mergeoperator_create(rb, no_destructor, merge_full,
                                     merge_partial, merge_free, merge_name));
    rb->cfilter = rocksdb_compactionfilter_create(rb, no_destructor, ttl_filter,
                                                  ttl_filter_name);
    rocksdb_options_set_compaction_filter(rb->opts, rb->cfilter);
    rb->cache = rocksdb_cache_create_lru(
        cfg->block_cache_bytes ? cfg->block_cache_bytes : DEFAULT_CACHE);
    rb->bbto = rocksdb_block_based_options_create();
    rocksdb_block_based_options_set_block_cache(rb->bbto, rb->cache);
    rocksdb_block_based_options_set_filter_policy(
        rb->bbto, rocksdb_filterpolicy_create_bloom(10));
    /* Index and filter blocks count against the cache, so the cache bounds read
     * memory. */
    rocksdb_block_based_options_set_cache_index_and_filter_blocks(rb->bbto, 1);
    /*
     * Partitioned index and filters: a file's index and Bloom filter come in
     * 4 KiB partitions under a small top level (pinned), so a point read
     * loads only the partitions it needs. With whole-file blocks, a large
     * file (a restore ingests files of up to INGEST_BYTES; compactions
     * write 64 MiB ones) has a filter of megabytes, more than one shard of
     * the block cache holds: every read would read it from the file again
     * (10 M keys: ~6 MB per get).
     */
    rocksdb_block_based_options_set_index_type(
        rb->bbto, rocksdb_block_based_table_index_type_two_level_index_search);
    rocksdb_block_based_options_set_partition_filters(rb->bbto, 1);
    rocksdb_block_based_options_set_metadata_block_size(rb->bbto, 4096);
    rocksdb_block_based_options_set_pin_top_level_index_and_filter(rb->bbto, 1);
    rocksdb_block_based_options_set_cache_index_and_filter_blocks_with_high_priority(
        rb->bbto, 1);
    rocksdb_options_set_block_based_table_factory(rb->opts, rb->bbto);
    rocksdb_options_set_write_buffer_size(
        rb->opts,
        cfg->write_buffer_bytes ? cfg->write_buffer_bytes : DEFAULT_WBUF);
    rb->ro = rocksdb_readoptions_create();
    rb->wo = rocksdb_writeoptions_create();
    rocksdb_writeoptions_disable_WAL(rb->wo, 1);

    /* The directory is scratch space: a database left there (a crash) is not
     * state. A symbolic link in its place is removed itself: destroying the
     * database through it would delete files outside the state folder. */
    struct stat sb;
    if (lstat(cfg->dir, &sb) == 0 && S_ISLNK(sb.st_mode)) {
        if (unlink(cfg->dir) != 0) {
            rdb_free(rb, false);
            return WEIR_EIO;
        }
    } else if (lstat(cfg->dir, &sb) == 0) {
        char *err = NULL;
        rocksdb_destroy_db(rb->opts, cfg->dir, &err);
        if (err) {
            int rc = rdb_err(rb, err);
            rdb_free(rb, false);
            return rc;
        }
    }
    remove_stale_snaps(cfg->dir);
    unlink(rb->sst_path); /* a crashed restore's staged file */
    int rc = make_dirs(cfg->dir);
    if (rc) {
        rdb_free(rb, false);
        return rc;
    }
    *out = rb;
    return 0;
}

static int rdb_prepare(const weir__backend_config *cfg, rdb_backend **out)
{
    pthread_mutex_lock(&open_lock);
    int rc = rdb_prepare_locked(cfg, out);
    pthread_mutex_unlock(&open_lock);
    return rc;
}

static int rdb_open(rdb_backend *rb)
{
    char *err = NULL;
    pthread_mutex_lock(&open_lock);
    rb->db = rocksdb_open(rb->opts, rb->dir, &err);
    pthread_mutex_unlock(&open_lock);
    return err ? rdb_err(rb, err) : 0;
}

int weir__rocksdb_backend_create(const weir__backend_config *cfg,
                                 weir__backend **out)
{
    rdb_backend *rb;
    int rc = rdb_prepare(cfg, &rb);
    if (rc)
        return rc;
    if ((rc = rdb_open(rb))) {
        rdb_free(rb, true);
        return rc;
    }
    *out = &rb->base;
    return 0;
}

/* ---- native checkpoints ---- */

static const uint8_t META_MAXP[3] = {0xFF, 0xFF, 'P'};
/* {FF FF 'U' id (u16 BE)}: i64, the stamp values without one of state id
 * (a state with TTL that a native restore gave them) count as, so that a
 * restore of the checkpoint keeps counting from the restore that brought
 * them, not from itself; then u8 1 if stamps before it count as it too
 * (unstamped_out: floor; an i64 of WEIR__NO_STAMP then says every stamp is
 * stale, the state had no TTL). No key: stamps count as they are. */
#define META_UNSTAMPED 'U'

static void meta_unstamped_key(uint8_t k[5], uint32_t sid)
{
    k[0] = k[1] = 0xFF;
    k[2] = META_UNSTAMPED;
    wr_u16be(k + 3, sid);
}

/* The meta value of u (ttl_chunk's meta). */
static uint8_t meta_of(unstamp u)
{
    return 1 + (u.floor                  ? STORED_FLOOR
                : u.at == WEIR__NO_STAMP ? STORED_NONE
                                         : STORED_AT);
}

/* Forgets which meta keys the database holds (a failed write). */
static void meta_unknown(rdb_backend *rb)
{
    rb->meta_maxp = false;
    rb->meta_states = 0;
    for (uint32_t i = 0; i < rb->base.n_states; i++) {
        ttl_chunk *c = chunk_of(rb, i);
        if (c)
            c->meta[i % TTL_CHUNK] = 0;
    }
}

/*
 * Writes the meta keys that changed since the last write_meta or the
 * restore: a checkpoint with nothing new to say writes nothing, so a job
 * that wrote no state since its last checkpoint flushes no file.
 */
static int write_meta(rdb_backend *rb)
{
    rocksdb_writebatch_t *wb = rocksdb_writebatch_create();
    uint8_t maxp[4];
    uint32_t m = rb->base.max_parallelism;
    memcpy(maxp, &m, 4);
    if (!rb->meta_maxp)
        rocksdb_writebatch_put(wb, (const char *)META_MAXP, 3,
                               (const char *)maxp, 4);
    weir_buf v;
    weir_buf_init(&v);
    int rc = 0;
    for (uint32_t i = 0; i < rb->base.n_states && !rc; i++) {
        weir_state *st = rb->base.states[i];
        uint8_t k[5] = {0xFF, 0xFF, 'S'};
        wr_u16be(k + 3, st->id);
        weir_buf_clear(&v);
        if (st->id >= rb->meta_states &&
            !(rc = weir_buf_put_u8(&v, (uint8_t)st->desc.kind)) &&
            !(rc = weir_buf_put(&v, st->desc.name, strlen(st->desc.name))))
            rocksdb_writebatch_put(wb, (const char *)k, 5, (const char *)v.data,
                                   v.len);
        unstamp u = unstamped_out(st);
        /* A floor whose TTL passed no longer matters here (the stamps
         * before it expired with it), and a restore with the clock behind
         * it would revive them (settle_floors): it goes, as a canonical
         * snapshot leaves those entries out. */
        if (u.floor && has_ttl(st) &&
            weir__ttl_expired(u.at, weir__now(&rb->base), st->ttl_ms))
            u.floor = false;
        ttl_chunk *c = chunk_of(rb, st->id);
        uint32_t j = st->id % TTL_CHUNK;
        if (c && c->meta[j] == meta_of(u) && c->meta_at[j] == u.at)
            continue;
        if (c) {
            c->meta[j] = meta_of(u);
            c->meta_at[j] = u.at;
        }
        /* A key of an earlier checkpoint goes when stamps count as they
         * are. */
        meta_unstamped_key(k, st->id);
        if (u.at == WEIR__NO_STAMP && !u.floor) {
            rocksdb_writebatch_delete(wb, (const char *)k, 5);
        } else {
            uint8_t b[9] = {[8] = 1};
            memcpy(b, &u.at, 8);
            rocksdb_writebatch_put(wb, (const char *)k, 5, (const char *)b,
                                   u.floor ? 9 : 8);
        }
    }
    if (!rc)
        rc = db_write(rb, wb);
    if (rc) {
        meta_unknown(rb);
    } else {
        rb->meta_maxp = true;
        rb->meta_states = rb->base.n_states;
    }
    weir_buf_fini(&v);
    rocksdb_writebatch_destroy(wb);
    return rc;
}

int weir__rocksdb_checkpoint(weir__backend *be, const char *dir)
{
    if (!be || !dir || !dir[0])
        return WEIR_EINVAL;
    if (!weir__backend_is_rocksdb(be))
        return WEIR_EUNSUPPORTED;
    rdb_backend *rb = RB(be);
    int rc = batch_flush(rb);
    if (!rc)
        rc = write_meta(rb);
    if (rc)
        return rc;
    char *err = NULL;
    rocksdb_checkpoint_t *cp = rocksdb_checkpoint_object_create(rb->db, &err);
    if (err)
        return rdb_err(rb, err);
    /* log_size_for_flush 0: always flush the memtables, as the WAL is off. */
    rocksdb_checkpoint_create(cp, dir, 0, &err);
    rocksdb_checkpoint_object_destroy(cp);
    return err ? rdb_err(rb, err) : 0;
}

int weir__rocksdb_snapshot_native(weir__backend *be, uint64_t id, char **dir)
{
    *dir = NULL;
    if (!be || !weir__backend_is_rocksdb(be))
        return WEIR_EUNSUPPORTED;
    size_t cap = strlen(RB(be)->dir) + 32;
    char *d = weir_malloc(cap);
    if (!d)
        return WEIR_ENOMEM;
    snprintf(d, cap, "%s.snap-%" PRIu64, RB(be)->dir, id);
    /* A crashed run's leftover would make the checkpoint fail. */
    weir__io_remove_tree(d);
    int rc = weir__rocksdb_checkpoint(be, d);
    if (rc) {
        weir__io_remove_tree(d);
        weir_free(d);
        return rc;
    }
    *dir = d;
    return 0;
}

static int copy_file(const char *from, const char *to)
{
    int in = weir__io_ops.open(from, O_RDONLY, 0);
    if (in < 0)
        return WEIR_EIO;
    int outfd = weir__io_ops.open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (outfd < 0) {
        weir__io_ops.close(in);
        return outfd == -ENOSPC ? WEIR_ENOSPC : WEIR_EIO;
    }
    char buf[65536];
    int rc = 0;
    for (;;) {
        ssize_t n = weir__io_ops.read(in, buf, sizeof buf);
        if (n == 0)
            break;
        if (n == -EINTR)
            continue;
        if (n < 0) {
            rc = WEIR_EIO;
            break;
        }
        if ((rc = weir__io_write_all(outfd, buf, (size_t)n)))
            break;
    }
    if (!rc && weir__io_ops.fsync(outfd) != 0)
        rc = WEIR_EIO;
    weir__io_ops.close(in);
    if (weir__io_ops.close(outfd) != 0 && !rc)
        rc = WEIR_EIO;
    return rc;
}

/*
 * SST files are immutable: hard-link them. Everything else (CURRENT,
 * MANIFEST, OPTIONS, logs) may be rewritten by the opened database, so copy
 * it, leaving the checkpoint intact for further restores.
 */
static int seed_dir(const char *ckpt_dir, const char *dir)
{
    DIR *d = opendir(ckpt_dir);
    if (!d)
        return errno == ENOENT ? WEIR_ENOTFOUND : WEIR_EIO;
    int rc = 0;
    struct dirent *e;
    char from[4096], to[4096];
    while (!rc && (e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if ((size_t)snprintf(from, sizeof from, "%s/%s", ckpt_dir, e->d_name) >=
                sizeof from ||
            (size_t)snprintf(to, sizeof to, "%s/%s", dir, e->d_name) >=
                sizeof to) {
            rc = WEIR_EINVAL;
            break;
        }
        size_t n = strlen(e->d_name);
        bool sst = n > 4 && strcmp(e->d_name + n - 4, ".sst") == 0;
        if (sst && link(from, to) == 0)
            continue;
        rc = copy_file(from, to);
    }
    closedir(d);
    return rc;
}

/* Recreates the states recorded in the checkpoint, with their ids. */
static int load_meta(rdb_backend *rb)
{
    size_t vlen;
    char *err = NULL;
    char *v =
        rocksdb_get(rb->db, rb->ro, (const char *)META_MAXP, 3, &vlen, &err);
    if (err)
        return rdb_err(rb, err);
    if (!v || vlen != 4) {
        rocksdb_free(v);
        return WEIR_ECORRUPT; /* not a checkpoint written by
                                 weir__rocksdb_checkpoint */
    }
    uint32_t maxp = rd_u32(v);
    rocksdb_free(v);
    if (maxp != rb->base.max_parallelism)
        return WEIR_EINVAL;
    weir_buf lo, hi;
    weir_buf_init(&lo);
    weir_buf_init(&hi);
    const uint8_t los[3] = {0xFF, 0xFF, 'S'}, his[3] = {0xFF, 0xFF, 'T'};
    int rc;
    if ((rc = weir_buf_put(&lo, los, 3)) || (rc = weir_buf_put(&hi, his, 3))) {
        weir_buf_fini(&lo);
        weir_buf_fini(&hi);
        return rc;
    }
    range_iter ri;
    iter_open(rb, &ri, &lo, &hi);
    char name[1024];
    for (; rocksdb_iter_valid(ri.it) && !rc; rocksdb_iter_next(ri.it)) {
        size_t klen, n;
        const uint8_t *k = (const uint8_t *)rocksdb_iter_key(ri.it, &klen);
        const char *val = rocksdb_iter_value(ri.it, &n);
        if (klen != 5 || n < 2 || n - 1 >= sizeof name ||
            (uint8_t)val[0] > WEIR_STATE_AGGREGATING) {
            rc = WEIR_ECORRUPT;
            break;
        }
        uint32_t id = (uint32_t)k[3] << 8 | k[4];
        if (id != rb->base.n_states) {
            rc = WEIR_ECORRUPT; /* ids are dense, in registration order */
            break;
        }
        memcpy(name, val + 1, n - 1);
        name[n - 1] = '\0';
        weir_state *st;
        rc = weir__backend_add_state(&rb->base, name,
                                     (weir_state_kind)(uint8_t)val[0], &st);
    }
    int irc = iter_close(rb, &ri);
    if (!rc)
        rc = irc;
    weir_buf_fini(&lo);
    weir_buf_fini(&hi);
    rb->meta_maxp = !rc;
    rb->meta_states = rc ? 0 : rb->base.n_states;
    return rc;
}

/* After a native restore: what values without a stamp count as, per state
 * (unstamped_of): the checkpoint's META_UNSTAMPED, else now; and the floor
 * it names. */
static int load_unstamped(rdb_backend *rb)
{
    int64_t now = weir__now(&rb->base);
    for (uint32_t i = 0; i < rb->base.n_states; i++) {
        ttl_chunk *c;
        int rc = chunk_get(rb, i, &c);
        if (rc)
            return rc;
        uint8_t k[5];
        meta_unstamped_key(k, i);
        size_t vlen;
        char *err = NULL;
        char *v = rocksdb_get(rb->db, rb->ro, (const char *)k, 5, &vlen, &err);
        if (err)
            return rdb_err(rb, err);
        int64_t at = WEIR__NO_STAMP;
        uint8_t stored = STORED_NONE;
        if (v && (vlen == 8 || (vlen == 9 && v[8] == 1))) {
            memcpy(&at, v, 8);
            stored = vlen == 9 ? STORED_FLOOR : STORED_AT;
        }
        /* A key that write_meta never writes is not known. */
        bool odd = v && (stored == STORED_NONE ||
                         (stored == STORED_AT && at == WEIR__NO_STAMP));
        rocksdb_free(v);
        if (at == WEIR__NO_STAMP && stored == STORED_AT)
            stored = STORED_NONE;
        uint32_t j = i % TTL_CHUNK;
        c->meta[j] = odd ? 0 : 1 + stored;
        c->meta_at[j] = at;
        c->stored[j] = stored;
        c->stored_at[j] = at;
        int64_t u = at == WEIR__NO_STAMP ? now : at;
        atomic_store_explicit(&c->unstamped[j], u, memory_order_relaxed);
        if (stored == STORED_FLOOR) {
            atomic_store_explicit(&c->floor[j], u, memory_order_relaxed);
            atomic_store_explicit(&rb->floors, true, memory_order_relaxed);
        }
    }
    return 0;
}

/* Whether state i's stale stamps must be rewritten (settle_floors): its
 * floor is ahead of now, or it has one and all go. */
static bool floor_ahead(const rdb_backend *rb, uint32_t i, int64_t now,
                        bool all)
{
    const ttl_chunk *c = chunk_of(rb, i);
    uint32_t j = i % TTL_CHUNK;
    if (!c)
        return false;
    if (all)
        return atomic_load_explicit(&c->floor[j], memory_order_relaxed) !=
               WEIR__NO_STAMP;
    return c->stored[j] == STORED_FLOOR && c->stored_at[j] != WEIR__NO_STAMP &&
           now < c->stored_at[j];
}

/* Rewrites the stamps of value v (of a state of kind) before at to at;
 * whether any changed. */
static bool raise_stamps(char *v, size_t vlen, uint8_t kind, int64_t at)
{
    bool changed = false;
    if (kind == WEIR_STATE_LIST) {
        for (size_t off = 0; vlen - off >= ELEM_HDR;) {
            size_t esz = ELEM_HDR + (size_t)rd_u32(v + off);
            if (esz > vlen - off)
                break; /* malformed: left as it is, a read reports it */
            if (rd_i64(v + off + 4) < at) {
                memcpy(v + off + 4, &at, 8);
                changed = true;
            }
            off += esz;
        }
    } else if (vlen >= 8 && rd_i64(v) < at) {
        memcpy(v, &at, 8);
        changed = true;
    }
    return changed;
}

/*
 * A floor only tells stale stamps from new ones while the clock is past
 * it: restored with the clock behind the floor (another host's, a manual
 * one), a value written now would count as written at the floor and live
 * longer than its TTL. Such a state's stale stamps are rewritten to the
 * floor instead, which then goes: every stamp counts as it is, as a
 * canonical restore's do. A scan of the state, only on that restore.
 *
 * With all, every floor goes so: before entries of other parts come in
 * canonically (a rescale), whose stamps are their own (a floor would count
 * those before it, written after the other part's own restore, as it).
 */
static int settle_floors(rdb_backend *rb, bool all)
{
    int64_t now = weir__now(&rb->base);
    bool any = false, floors = false;
    for (uint32_t i = 0; i < rb->base.n_states; i++)
        any |= floor_ahead(rb, i, now, all);
    if (!any)
        return 0;
    weir_buf lo, hi, v;
    weir_buf_init(&lo);
    weir_buf_init(&hi);
    weir_buf_init(&v);
    uint8_t b[2];
    wr_u16be(b, rb->base.kg_lo);
    int rc = weir_buf_put(&lo, b, 2);
    wr_u16be(b, rb->base.kg_hi);
    if (!rc)
        rc = weir_buf_put(&hi, b, 2);
    if (rc) {
        weir_buf_fini(&lo);
        weir_buf_fini(&hi);
        return rc;
    }
    rocksdb_writebatch_t *wb = rocksdb_writebatch_create();
    range_iter ri;
    iter_open(rb, &ri, &lo, &hi);
    for (; rocksdb_iter_valid(ri.it) && !rc; rocksdb_iter_next(ri.it)) {
        size_t klen, vlen;
        const char *k = rocksdb_iter_key(ri.it, &klen);
        const char *val = rocksdb_iter_value(ri.it, &vlen);
        uint32_t sid =
            klen >= 4 ? (uint32_t)(uint8_t)k[2] << 8 | (uint8_t)k[3] : 0xFFFF;
        if (sid >= rb->base.n_states || !floor_ahead(rb, sid, now, all))
            continue;
        weir_buf_clear(&v);
        if ((rc = weir_buf_put(&v, val, vlen)))
            break;
        if (raise_stamps((char *)v.data, v.len,
                         (uint8_t)rb->base.states[sid]->desc.kind,
                         atomic_load_explicit(
                             &chunk_of(rb, sid)->floor[sid % TTL_CHUNK],
                             memory_order_relaxed)))
            rocksdb_writebatch_put(wb, k, klen, (const char *)v.data, v.len);
        if (rocksdb_writebatch_count(wb) >= BATCH_OPS) {
            rc = db_write(rb, wb);
            rocksdb_writebatch_clear(wb);
        }
    }
    int irc = iter_close(rb, &ri);
    if (!rc)
        rc = irc;
    if (!rc)
        rc = db_write(rb, wb);
    rocksdb_writebatch_destroy(wb);
    weir_buf_fini(&lo);
    weir_buf_fini(&hi);
    weir_buf_fini(&v);
    if (rc)
        return rc;
    for (uint32_t i = 0; i < rb->base.n_states; i++) {
        ttl_chunk *c = chunk_of(rb, i);
        uint32_t j = i % TTL_CHUNK;
        if (floor_ahead(rb, i, now, all)) {
            c->stored[j] = STORED_AT;
            c->stored_at[j] =
                atomic_load_explicit(&c->floor[j], memory_order_relaxed);
            atomic_store_explicit(&c->floor[j], WEIR__NO_STAMP,
                                  memory_order_relaxed);
        }
        floors |= c && atomic_load_explicit(&c->floor[j],
                                            memory_order_relaxed) !=
                           WEIR__NO_STAMP;
    }
    atomic_store_explicit(&rb->floors, floors, memory_order_relaxed);
    return 0;
}

int weir__rocksdb_open_checkpoint(const weir__backend_config *cfg,
                                  const char *ckpt_dir, weir__backend **out)
{
    if (!cfg || !ckpt_dir || !out)
        return WEIR_EINVAL;
    *out = NULL;
    if (cfg->max_parallelism == 0 || cfg->max_parallelism > 32768 ||
        cfg->kg_lo > cfg->kg_hi || cfg->kg_hi > cfg->max_parallelism)
        return WEIR_EINVAL;
    rdb_backend *rb;
    int rc = rdb_prepare(cfg, &rb);
    if (rc)
        return rc;
    if ((rc = seed_dir(ckpt_dir, cfg->dir)) || (rc = rdb_open(rb)) ||
        (rc = load_meta(rb)) || (rc = load_unstamped(rb)) ||
        (rc = delete_kg_range(rb, 0, cfg->kg_lo)) ||
        (rc = delete_kg_range(rb, cfg->kg_hi, 0xFFFF)) ||
        (rc = settle_floors(rb, false))) {
        rdb_free(rb, true);
        return rc;
    }
    *out = &rb->base;
    return 0;
}

int weir__rocksdb_compact(weir__backend *be)
{
    if (!be)
        return WEIR_EINVAL;
    if (!weir__backend_is_rocksdb(be))
        return WEIR_EUNSUPPORTED;
    int rc = batch_flush(RB(be));
    if (rc)
        return rc;
    rocksdb_compact_range(RB(be)->db, NULL, 0, NULL, 0);
    return 0;
}

int weir__rocksdb_count_kg(weir__backend *be, uint32_t kg, uint64_t *out)
{
    if (!be || !out || kg >= 0xFFFF)
        return WEIR_EINVAL;
    if (!weir__backend_is_rocksdb(be))
        return WEIR_EUNSUPPORTED;
    rdb_backend *rb = RB(be);
    weir_buf lo, hi;
    weir_buf_init(&lo);
    weir_buf_init(&hi);
    int rc;
    uint64_t n = 0;
    if (!(rc = put_prefix(&lo, kg, 0)) && !(rc = put_prefix(&hi, kg + 1, 0))) {
        range_iter ri;
        iter_open(rb, &ri, &lo, &hi);
        for (; rocksdb_iter_valid(ri.it); rocksdb_iter_next(ri.it))
            n++;
        rc = iter_close(rb, &ri);
    }
    weir_buf_fini(&lo);
    weir_buf_fini(&hi);
    *out = n;
    return rc;
}

const char *weir__rocksdb_last_error(const weir__backend *be)
{
    return weir__backend_is_rocksdb(be) ? ((const rdb_backend *)be)->err : "";
}

int weir__rocksdb_get_stats(const weir__backend *be, weir__rocksdb_stats *out)
{
    if (!be || !out)
        return WEIR_EINVAL;
    if (!weir__backend_is_rocksdb(be))
        return WEIR_EUNSUPPORTED;
    *out = ((const rdb_backend *)be)->stats;
    return 0;
}

#else /* !WEIR_HAVE_ROCKSDB */

bool weir__backend_is_rocksdb(const weir__backend *be)
{
    (void)be;
    return false;
}

int weir__rocksdb_checkpoint(weir__backend *be, const char *dir)
{
    (void)be;
    (void)dir;
    return WEIR_EUNSUPPORTED;
}

int weir__rocksdb_open_checkpoint(const weir__backend_config *cfg,
                                  const char *ckpt_dir, weir__backend **out)
{
    (void)cfg;
    (void)ckpt_dir;
    if (out)
        *out = NULL;
    return WEIR_EUNSUPPORTED;
}

int weir__rocksdb_snapshot_native(weir__backend *be, uint64_t id, char **dir)
{
    (void)be;
    (void)id;
    *dir = NULL;
    return WEIR_EUNSUPPORTED;
}

int weir__rocksdb_compact(weir__backend *be)
{
    (void)be;
    return WEIR_EUNSUPPORTED;
}

int weir__rocksdb_count_kg(weir__backend *be, uint32_t kg, uint64_t *out)
{
    (void)be;
    (void)kg;
    (void)out;
    return WEIR_EUNSUPPORTED;
}

const char *weir__rocksdb_last_error(const weir__backend *be)
{
    (void)be;
    return "";
}

int weir__rocksdb_get_stats(const weir__backend *be, weir__rocksdb_stats *out)
{
    (void)be;
    (void)out;
    return WEIR_EUNSUPPORTED;
}

#endif
