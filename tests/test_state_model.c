/*
 * tests/test_state_model.c - a randomized model test of the keyed state
 * backends: the public state API (weir/state.h) and what the runtime uses
 * of state/backend.h (set_key, key groups, snapshots, asynchronous
 * snapshots, restores at other key-group ranges, RocksDB native
 * checkpoints, TTL on a manual clock), run on the memory and the RocksDB
 * backend side by side and compared with a naive model written here.
 *
 * The model shares no code with weir: entries are plain arrays in a
 * chained hash table of its own, and the canonical snapshot bytes
 * (docs/state.md) are decoded by a reader of its own, so every full check
 * compares each entry's bytes and TTL stamps. It uses weir_key_hash only to
 * learn which key group a key belongs to (that is the definition of the
 * mapping, not storage).
 *
 * A case: a max parallelism (1, 2, 7, 128 or 4096), a range of owned key
 * groups, a pool of keys (lengths 0 - 1100, sometimes all in one key
 * group; the backends set no limit on a key's length, operators do) and
 * namespaces (0 - 300 bytes), values of 0 bytes to past the slab's 4 KiB
 * blocks (grown and shrunk in place by value_edit), then random operations
 * on every state kind (value, list, map, reducing, aggregating; the
 * callbacks of value_edit, map_update, map_rewrite, reduce and agg_add,
 * failing ones too) with and without TTL, each result checked on both
 * backends at once. Now and then: the clock moves (often right onto an entry's
 * expiry), an asynchronous snapshot opens (several at once), writes go on
 * (copy-on-write), and the snapshot is decoded and compared with the model
 * as it was; a round ends by snapshotting every owned key group (or rolling
 * back to an open snapshot: a failover), and the next round restores into
 * fresh backends owning another range, the bytes of each key group taken
 * from either backend (memory -> RocksDB -> memory), RocksDB sometimes
 * opening the previous one's native checkpoint and reading the rest
 * canonically. Where a RocksDB asynchronous snapshot may lack what expired
 * after its pin (its compaction filter, docs/state.md), that alone is
 * allowed. A bigger case pushes one memory table past 2^19 slots (keys of
 * one key group, max parallelism 1): inserts, deletions, re-inserts, TTL
 * expiry and cleanup, a visit of every key, a snapshot and restore.
 *
 * WEIR_SEED replays a run (the seed is printed); WEIR_STATE_MODEL_OPS sets
 * the operations of a run (default 16000), WEIR_STATE_MODEL_BIG the keys of
 * the big case (default 420000; 0 skips it). A failure prints the seed,
 * the operation's index and the last operations, and keeps the RocksDB
 * folders.
 */
#include <criterion/criterion.h>
#include <ftw.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "state/backend_impl.h"
#include "state/rocksdb_backend.h"
#include "weir/clock.h"
#include "weir/key.h"

/* ---- random numbers (splitmix64) ---- */

static uint64_t g_rng;

static uint64_t rnd(void)
{
    uint64_t z = (g_rng += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static uint32_t below(uint32_t n)
{
    return n ? (uint32_t)(rnd() % n) : 0;
}

static bool chance(uint32_t pct)
{
    return below(100) < pct;
}

static void fill(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)rnd();
}

static uint8_t *bdup(const void *p, size_t n)
{
    uint8_t *d = malloc(n ? n : 1);
    cr_assert_not_null(d);
    if (n)
        memcpy(d, p, n);
    return d;
}

/* ---- failure context ---- */

#define TRACE_N 40
static char g_trace[TRACE_N][160];
static uint64_t g_op;
static uint64_t g_seed;
static char g_case[160];
static uint32_t g_ci;

static void trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void trace(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_trace[g_op % TRACE_N], sizeof g_trace[0], fmt, ap);
    va_end(ap);
}

static bool g_failed;

static void model_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void model_fail(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    g_failed = true;
    fprintf(stderr, "state_model: FAILED at op %" PRIu64 " (WEIR_SEED=%" PRIu64 ", %s): %s\nlast operations:\n",
            g_op, g_seed, g_case, msg);
    for (uint64_t i = g_op >= TRACE_N ? g_op - TRACE_N + 1 : 0; i <= g_op; i++)
        fprintf(stderr, "  #%" PRIu64 " %s\n", i, g_trace[i % TRACE_N]);
    cr_assert_fail("WEIR_SEED=%" PRIu64 " op %" PRIu64 ": %s", g_seed, g_op, msg);
}

#define CHECK(cond, ...)                                                                                              \
    do {                                                                                                              \
        if (!(cond))                                                                                                  \
            model_fail(__VA_ARGS__);                                                                                        \
    } while (0)

/* ---- the states ---- */

#define TTL 40
#define FAIL_BYTE 0xEE /* an input starting with it makes reduce / agg_add fail */

static int reduce_fn(void *ud, const void *a, size_t alen, const void *b, size_t blen, weir_buf *out);
static int agg_add_fn(void *ud, weir_buf *acc, const void *in, size_t inlen);
static int agg_result_fn(void *ud, const void *acc, size_t acclen, weir_buf *out);

typedef struct sdef {
    const char *name;
    weir_state_kind kind;
    int64_t ttl;
    weir_ttl_update upd;
} sdef;

static const sdef SD[] = {
    {"v", WEIR_STATE_VALUE, 0, 0},
    {"v_cw", WEIR_STATE_VALUE, TTL, WEIR_TTL_ON_CREATE_AND_WRITE},
    {"v_rw", WEIR_STATE_VALUE, TTL, WEIR_TTL_ON_READ_AND_WRITE},
    {"l", WEIR_STATE_LIST, 0, 0},
    {"l_cw", WEIR_STATE_LIST, TTL, WEIR_TTL_ON_CREATE_AND_WRITE},
    {"l_rw", WEIR_STATE_LIST, TTL, WEIR_TTL_ON_READ_AND_WRITE},
    {"m", WEIR_STATE_MAP, 0, 0},
    {"m_cw", WEIR_STATE_MAP, TTL, WEIR_TTL_ON_CREATE_AND_WRITE},
    {"m_rw", WEIR_STATE_MAP, TTL, WEIR_TTL_ON_READ_AND_WRITE},
    {"r", WEIR_STATE_REDUCING, 0, 0},
    {"r_rw", WEIR_STATE_REDUCING, TTL, WEIR_TTL_ON_READ_AND_WRITE},
    {"a", WEIR_STATE_AGGREGATING, 0, 0},
    {"a_cw", WEIR_STATE_AGGREGATING, TTL, WEIR_TTL_ON_CREATE_AND_WRITE},
};
#define N_ST (sizeof SD / sizeof SD[0])

static bool value_like(uint32_t s)
{
    return SD[s].kind == WEIR_STATE_VALUE || SD[s].kind == WEIR_STATE_REDUCING ||
           SD[s].kind == WEIR_STATE_AGGREGATING;
}

static bool rw(uint32_t s)
{
    return SD[s].ttl > 0 && SD[s].upd == WEIR_TTL_ON_READ_AND_WRITE;
}

/* ---- the model ---- */

typedef struct mitem {
    uint8_t *k, *v; /* k: map entries only */
    size_t kn, vn;
    int64_t stamp;
    uint64_t seen; /* g_gen of the last check that met it */
} mitem;

typedef struct ment {
    struct ment *next;
    uint32_t st, kg;
    uint8_t *key, *ns;
    size_t kn, nn;
    bool has; /* value-like: a value */
    uint8_t *v;
    size_t vn;
    int64_t stamp;
    uint64_t seen; /* g_gen of the last check that met it */
    mitem *it; /* list elements in order, or map entries */
    size_t n, cap;
} ment;

typedef struct model {
    ment **b;
    size_t nb, n;
} model;

static int64_t g_now;
static uint32_t g_maxp;

static bool expired(uint32_t s, int64_t stamp, int64_t now)
{
    return SD[s].ttl > 0 && stamp != INT64_MIN && now - SD[s].ttl >= stamp;
}

static int64_t wstamp(uint32_t s)
{
    return SD[s].ttl > 0 ? g_now : INT64_MIN;
}

static uint64_t mhash(uint32_t st, const uint8_t *k, size_t kn, const uint8_t *ns, size_t nn)
{
    uint64_t h = 1469598103934665603ULL ^ st;
    for (size_t i = 0; i < kn; i++)
        h = (h ^ k[i]) * 1099511628211ULL;
    h = (h ^ 0x1ff) * 1099511628211ULL;
    for (size_t i = 0; i < nn; i++)
        h = (h ^ ns[i]) * 1099511628211ULL;
    return h ^ (h >> 29);
}

static bool eq(const void *a, size_t an, const void *b, size_t bn)
{
    return an == bn && (an == 0 || memcmp(a, b, an) == 0);
}

static void model_grow(model *m)
{
    size_t nb = m->nb ? m->nb * 2 : 1024;
    ment **b = calloc(nb, sizeof *b);
    cr_assert_not_null(b);
    for (size_t i = 0; i < m->nb; i++)
        for (ment *e = m->b[i], *nx; e; e = nx) {
            nx = e->next;
            size_t j = mhash(e->st, e->key, e->kn, e->ns, e->nn) & (nb - 1);
            e->next = b[j];
            b[j] = e;
        }
    free(m->b);
    m->b = b;
    m->nb = nb;
}

static void items_free(ment *e)
{
    for (size_t i = 0; i < e->n; i++) {
        free(e->it[i].k);
        free(e->it[i].v);
    }
    e->n = 0;
}

static void ment_clear(ment *e)
{
    free(e->v);
    e->v = NULL;
    e->has = false;
    items_free(e);
}

/* The entry's value becomes v (owned: the entry frees it), written at stamp. */
static void ment_set(ment *e, uint8_t *v, size_t n, int64_t stamp)
{
    free(e->v);
    e->v = v;
    e->vn = n;
    e->has = true;
    e->stamp = stamp;
}

static ment *model_find(model *m, uint32_t st, const uint8_t *k, size_t kn, const uint8_t *ns, size_t nn,
                        bool create)
{
    if (m->nb) {
        size_t j = mhash(st, k, kn, ns, nn) & (m->nb - 1);
        for (ment *e = m->b[j]; e; e = e->next)
            if (e->st == st && eq(e->key, e->kn, k, kn) && eq(e->ns, e->nn, ns, nn))
                return e;
    }
    if (!create)
        return NULL;
    if (m->n >= m->nb)
        model_grow(m);
    ment *e = calloc(1, sizeof *e);
    cr_assert_not_null(e);
    e->st = st;
    e->key = bdup(k, kn);
    e->kn = kn;
    e->ns = bdup(ns, nn);
    e->nn = nn;
    e->kg = weir_key_group(weir_key_hash(k, kn), g_maxp);
    size_t j = mhash(st, k, kn, ns, nn) & (m->nb - 1);
    e->next = m->b[j];
    m->b[j] = e;
    m->n++;
    return e;
}

static void item_push(ment *e, const void *k, size_t kn, const void *v, size_t vn, int64_t stamp)
{
    if (e->n == e->cap) {
        e->cap = e->cap ? e->cap * 2 : 4;
        e->it = realloc(e->it, e->cap * sizeof *e->it);
        cr_assert_not_null(e->it);
    }
    e->it[e->n++] = (mitem){k ? bdup(k, kn) : NULL, bdup(v, vn), kn, vn, stamp, 0};
}

static mitem *item_find(ment *e, const void *k, size_t kn)
{
    for (size_t i = 0; e && i < e->n; i++)
        if (eq(e->it[i].k, e->it[i].kn, k, kn))
            return &e->it[i];
    return NULL;
}

static void item_del(ment *e, mitem *x)
{
    free(x->k);
    free(x->v);
    memmove(x, x + 1, (size_t)(e->it + e->n - (x + 1)) * sizeof *x);
    e->n--;
}

/* Drops what expired at now (never visible again: the clock only moves on). */
static void prune(ment *e, int64_t now)
{
    if (!e)
        return;
    if (e->has && expired(e->st, e->stamp, now)) {
        free(e->v);
        e->v = NULL;
        e->has = false;
    }
    size_t o = 0;
    for (size_t i = 0; i < e->n; i++) {
        if (expired(e->st, e->it[i].stamp, now)) {
            free(e->it[i].k);
            free(e->it[i].v);
        } else {
            e->it[o++] = e->it[i];
        }
    }
    e->n = o;
}

static bool live(const ment *e, int64_t now)
{
    if (e->has && !expired(e->st, e->stamp, now))
        return true;
    for (size_t i = 0; i < e->n; i++)
        if (!expired(e->st, e->it[i].stamp, now))
            return true;
    return false;
}

static model *model_copy(const model *m)
{
    model *c = calloc(1, sizeof *c);
    cr_assert_not_null(c);
    for (size_t i = 0; i < m->nb; i++)
        for (const ment *e = m->b[i]; e; e = e->next) {
            if (!e->has && !e->n)
                continue;
            ment *d = model_find(c, e->st, e->key, e->kn, e->ns, e->nn, true);
            d->has = e->has;
            d->v = e->has ? bdup(e->v, e->vn) : NULL;
            d->vn = e->vn;
            d->stamp = e->stamp;
            for (size_t j = 0; j < e->n; j++)
                item_push(d, e->it[j].k, e->it[j].kn, e->it[j].v, e->it[j].vn, e->it[j].stamp);
        }
    return c;
}

static void model_free(model *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->nb; i++)
        for (ment *e = m->b[i], *nx; e; e = nx) {
            nx = e->next;
            ment_clear(e);
            free(e->it);
            free(e->key);
            free(e->ns);
            free(e);
        }
    free(m->b);
    free(m);
}

/* ---- the callbacks, and what the model makes of the same inputs ---- */

/* reduce(a, b) = the first half of a, then b. */
static int reduce_fn(void *ud, const void *a, size_t alen, const void *b, size_t blen, weir_buf *out)
{
    (void)ud;
    if (blen && *(const uint8_t *)b == FAIL_BYTE) {
        weir_buf_put(out, "junk", 4);
        return 1;
    }
    if (weir_buf_put(out, a, alen / 2) || weir_buf_put(out, b, blen))
        return WEIR_ENOMEM;
    return 0;
}

static void model_reduce(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen, uint8_t **out, size_t *on)
{
    *on = alen / 2 + blen;
    *out = malloc(*on ? *on : 1);
    memcpy(*out, a, alen / 2);
    if (blen)
        memcpy(*out + alen / 2, b, blen);
}

/*
 * Accumulator: u32 count, u32 byte sum, then the inputs that start with
 * 0xAA appended (reset when past 6000 bytes), so it grows and shrinks.
 */
static int agg_add_fn(void *ud, weir_buf *acc, const void *in, size_t inlen)
{
    (void)ud;
    const uint8_t *p = in;
    if (acc->len == 0) {
        uint8_t z[8] = {0};
        if (weir_buf_put(acc, z, 8))
            return WEIR_ENOMEM;
    }
    acc->data[0]++; /* changed before a failure on purpose: it must not stick */
    if (inlen && p[0] == FAIL_BYTE)
        return 1;
    uint32_t sum;
    memcpy(&sum, acc->data + 4, 4);
    for (size_t i = 0; i < inlen; i++)
        sum += p[i];
    memcpy(acc->data + 4, &sum, 4);
    if (acc->len > 6000)
        acc->len = 8;
    if (inlen && p[0] == 0xAA && weir_buf_put(acc, in, inlen))
        return WEIR_ENOMEM;
    return 0;
}

static void model_agg(const uint8_t *acc, size_t an, bool has, const uint8_t *p, size_t inlen, uint8_t **out,
                      size_t *on)
{
    size_t cap = (has ? an : 8) + inlen + 8;
    uint8_t *o = calloc(1, cap);
    size_t n = 8;
    if (has && an) { /* an empty accumulator reaches agg_add as none: it makes one */
        memcpy(o, acc, an);
        n = an;
    }
    o[0]++;
    uint32_t sum;
    memcpy(&sum, o + 4, 4);
    for (size_t i = 0; i < inlen; i++)
        sum += p[i];
    memcpy(o + 4, &sum, 4);
    if (n > 6000)
        n = 8;
    if (inlen && p[0] == 0xAA) {
        memcpy(o + n, p, inlen);
        n += inlen;
    }
    *out = o;
    *on = n;
}

/* The result: the accumulator's bytes reversed. */
static int agg_result_fn(void *ud, const void *acc, size_t acclen, weir_buf *out)
{
    (void)ud;
    for (size_t i = acclen; i-- > 0;)
        if (weir_buf_put_u8(out, ((const uint8_t *)acc)[i]))
            return WEIR_ENOMEM;
    return 0;
}

/* ---- the backends under test ---- */

#define N_SIDES 2
static const char *const KINDS[N_SIDES] = {"memory", "rocksdb"};

typedef struct side {
    weir__backend *be;
    weir_state *st[N_ST];
    char dir[300];
} side;

static side g_sd[N_SIDES];
static weir_manual_clock *g_clock;
static char g_base[256];
static int g_dirs;
static uint32_t g_lo, g_hi;

static void register_states(side *s)
{
    for (uint32_t i = 0; i < N_ST; i++) {
        weir_state_desc d = {.name = SD[i].name,
                             .kind = SD[i].kind,
                             .ttl_ms = SD[i].ttl,
                             .ttl_update = SD[i].upd,
                             .reduce = reduce_fn,
                             .agg_add = agg_add_fn,
                             .agg_result = (i % 2) ? agg_result_fn : NULL};
        int rc = weir__backend_register(s->be, &d, &s->st[i]);
        CHECK(rc == 0, "register %s on %s: %s", SD[i].name, s->be->ops->kind, weir_strerror(rc));
    }
}

static weir__backend_config be_cfg(int side_i, char *dir)
{
    weir__backend_config cfg = {.kind = KINDS[side_i],
                                .max_parallelism = g_maxp,
                                .kg_lo = g_lo,
                                .kg_hi = g_hi,
                                .clock = weir_manual_clock_get(g_clock),
                                .block_cache_bytes = 1 << 20,
                                .write_buffer_bytes = 256 << 10};
    if (side_i == 1) {
        snprintf(dir, 300, "%s/db%d", g_base, g_dirs++);
        cfg.dir = dir;
    }
    return cfg;
}

static void side_create(int i)
{
    weir__backend_config cfg = be_cfg(i, g_sd[i].dir);
    int rc = weir__backend_create(&cfg, &g_sd[i].be);
    CHECK(rc == 0, "create %s backend: %s", KINDS[i], weir_strerror(rc));
}

/* ---- decoding canonical snapshots (docs/state.md), by hand ---- */

typedef struct rd {
    const uint8_t *p, *end;
    bool bad;
} rd;

static uint64_t rd_le(rd *r, int n)
{
    if (r->end - r->p < n) {
        r->bad = true;
        return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)r->p[i] << (8 * i);
    r->p += n;
    return v;
}

static uint64_t rd_varint(rd *r)
{
    uint64_t v = 0;
    for (int sh = 0; sh < 64; sh += 7) {
        if (r->p >= r->end) {
            r->bad = true;
            return 0;
        }
        uint8_t b = *r->p++;
        v |= (uint64_t)(b & 0x7f) << sh;
        if (!(b & 0x80))
            return v;
    }
    r->bad = true;
    return 0;
}

static const uint8_t *rd_bytes(rd *r, size_t *n)
{
    uint64_t l = rd_varint(r);
    if (r->bad || (uint64_t)(r->end - r->p) < l) {
        r->bad = true;
        *n = 0;
        return NULL;
    }
    const uint8_t *p = r->p;
    r->p += l;
    *n = (size_t)l;
    return p;
}

static uint32_t crc32c(const uint8_t *p, size_t n)
{
    static uint32_t tab[256];
    if (!tab[1])
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++)
                c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1)));
            tab[i] = c;
        }
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++)
        c = (c >> 8) ^ tab[(c ^ p[i]) & 0xff];
    return ~c;
}

/* The model's entries by key group, for a full check. */
typedef struct kgidx {
    size_t *off; /* entries of kg: ent[off[kg] .. off[kg + 1]) */
    ment **ent;
} kgidx;

static kgidx kg_index(const model *m)
{
    kgidx x = {calloc(g_maxp + 1, sizeof *x.off), calloc(m->n ? m->n : 1, sizeof *x.ent)};
    cr_assert(x.off && x.ent);
    for (size_t i = 0; i < m->nb; i++)
        for (const ment *e = m->b[i]; e; e = e->next)
            x.off[e->kg + 1]++;
    for (uint32_t kg = 0; kg < g_maxp; kg++)
        x.off[kg + 1] += x.off[kg];
    size_t *fillp = calloc(g_maxp, sizeof *fillp);
    for (size_t i = 0; i < m->nb; i++)
        for (ment *e = m->b[i]; e; e = e->next)
            x.ent[x.off[e->kg] + fillp[e->kg]++] = e;
    free(fillp);
    return x;
}

static void kg_index_free(kgidx *x)
{
    free(x->off);
    free(x->ent);
}

/*
 * Whether a check reads key group kg: every one that holds entries in the
 * model, and of the empty ones all in a range of up to 256 key groups, else
 * about 32 drawn (reading thousands of empty key groups of RocksDB costs
 * seconds and finds what a few of them find).
 */
static bool kg_wanted(const kgidx *x, uint32_t kg)
{
    uint32_t range = g_hi - g_lo;
    return x->off[kg + 1] > x->off[kg] || range <= 256 || below(range) < 32;
}

static uint64_t g_gen; /* marks the entries a check met */
static bool g_debug;  /* WEIR_STATE_MODEL_DEBUG: every entry of every check printed */

/*
 * Checks that the snapshot bytes of key group kg hold exactly the entries of
 * m that live at now, stamps included. What expired by `lax` (>= now) may be
 * missing: RocksDB's compaction filter may drop an entry that expired after
 * an asynchronous snapshot's pin (docs/state.md); lax = now elsewhere.
 */
static void check_kg(const model *m, const kgidx *x, int64_t now, int64_t lax, uint32_t kg, const uint8_t *p,
                     size_t n, const char *what)
{
    g_gen++;
    rd r = {p, p + n, false};
    if (n) {
        uint32_t magic = (uint32_t)rd_le(&r, 4);
        uint8_t ver = (uint8_t)rd_le(&r, 1);
        uint32_t skg = (uint32_t)rd_le(&r, 4), smaxp = (uint32_t)rd_le(&r, 4);
        uint64_t body = rd_le(&r, 8);
        CHECK(!r.bad && magic == 0x474B5357 && ver == 1 && skg == kg && smaxp == g_maxp,
              "%s: key group %u: bad header (magic %08x version %u kg %u maxp %u)", what, kg, magic, ver, skg, smaxp);
        CHECK(body + 4 == (uint64_t)(r.end - r.p), "%s: key group %u: body length %" PRIu64 " of %zu bytes", what,
              kg, body, (size_t)(r.end - r.p));
        size_t hb = (size_t)(r.p - p) + (size_t)body;
        uint32_t crc = (uint32_t)(p[hb] | p[hb + 1] << 8 | p[hb + 2] << 16 | (uint32_t)p[hb + 3] << 24);
        CHECK(crc == crc32c(p, hb), "%s: key group %u: CRC-32C mismatch", what, kg);
        r.end = p + hb;
    }
    uint32_t nst = n ? (uint32_t)rd_le(&r, 4) : 0;
    for (uint32_t s = 0; s < nst && !r.bad; s++) {
        uint64_t nl = rd_varint(&r);
        CHECK(!r.bad && nl >= 1 && nl - 1 <= (uint64_t)(r.end - r.p), "%s: kg %u: bad state name", what, kg);
        char name[64] = {0};
        memcpy(name, r.p, nl - 1 < 63 ? nl - 1 : 63);
        r.p += nl - 1;
        uint32_t st = 0;
        while (st < N_ST && strcmp(SD[st].name, name) != 0)
            st++;
        CHECK(st < N_ST, "%s: kg %u: unknown state '%s'", what, kg, name);
        uint8_t kind = (uint8_t)rd_le(&r, 1);
        CHECK(kind == SD[st].kind, "%s: kg %u: state %s of kind %u", what, kg, name, kind);
        uint32_t ne = (uint32_t)rd_le(&r, 4);
        CHECK(ne > 0, "%s: kg %u: state %s written with no entry", what, kg, name);
        for (uint32_t i = 0; i < ne && !r.bad; i++) {
            size_t kn, nn;
            const uint8_t *k = rd_bytes(&r, &kn), *ns = rd_bytes(&r, &nn);
            CHECK(!r.bad, "%s: kg %u: truncated entry", what, kg);
            CHECK(weir_key_group(weir_key_hash(k, kn), g_maxp) == kg, "%s: kg %u: a key of another key group", what,
                  kg);
            ment *e = model_find((model *)m, st, k, kn, ns, nn, false);
            if (g_debug)
                fprintf(stderr, "  snapshot: [%s kg %u] %s key %zu bytes ns %zu bytes\n", what, kg, name, kn, nn);
            CHECK(e && live(e, now), "%s: kg %u: state %s: entry (key of %zu bytes, ns of %zu) not in the model",
                  what, kg, name, kn, nn);
            CHECK(e->seen != g_gen, "%s: kg %u: state %s: an entry twice", what, kg, name);
            e->seen = g_gen;
            if (value_like(st)) {
                int64_t stamp = (int64_t)rd_le(&r, 8);
                size_t vn;
                const uint8_t *v = rd_bytes(&r, &vn);
                CHECK(!r.bad && e->has && !expired(st, e->stamp, now), "%s: kg %u: %s: a value the model lacks",
                      what, kg, name);
                CHECK(eq(v, vn, e->v, e->vn), "%s: kg %u: %s: value of %zu bytes, model %zu", what, kg, name, vn,
                      e->vn);
                CHECK(stamp == e->stamp, "%s: kg %u: %s: stamp %" PRId64 ", model %" PRId64, what, kg, name, stamp,
                      e->stamp);
                continue;
            }
            uint32_t ni = (uint32_t)rd_le(&r, 4), nlive = 0, nsure = 0;
            for (size_t j = 0; j < e->n; j++) {
                nlive += !expired(st, e->it[j].stamp, now);
                nsure += !expired(st, e->it[j].stamp, lax);
            }
            CHECK(ni >= 1 && ni >= nsure && ni <= nlive, "%s: kg %u: %s: %u items, model %u (%u sure)", what, kg,
                  name, ni, nlive, nsure);
            size_t j = 0;
            for (uint32_t q = 0; q < ni && !r.bad; q++) {
                if (SD[st].kind == WEIR_STATE_LIST) {
                    int64_t stamp = (int64_t)rd_le(&r, 8);
                    size_t vn;
                    const uint8_t *v = rd_bytes(&r, &vn);
                    /* In order; elements that may be missing are skipped. */
                    while (j < e->n && (expired(st, e->it[j].stamp, now) ||
                                        (expired(st, e->it[j].stamp, lax) &&
                                         !(eq(v, vn, e->it[j].v, e->it[j].vn) && stamp == e->it[j].stamp))))
                        j++;
                    CHECK(!r.bad && j < e->n && eq(v, vn, e->it[j].v, e->it[j].vn) && stamp == e->it[j].stamp,
                          "%s: kg %u: %s: element %u (%zu bytes, stamp %" PRId64 ") differs from the model's", what,
                          kg, name, q, vn, stamp);
                    j++;
                } else {
                    size_t mk, vn;
                    const uint8_t *k2 = rd_bytes(&r, &mk);
                    int64_t stamp = (int64_t)rd_le(&r, 8);
                    const uint8_t *v = rd_bytes(&r, &vn);
                    mitem *it = item_find(e, k2, mk);
                    CHECK(!r.bad && it && !expired(st, it->stamp, now) && eq(v, vn, it->v, it->vn) &&
                              stamp == it->stamp,
                          "%s: kg %u: %s: map entry (%zu-byte key, %zu-byte value, stamp %" PRId64
                          ") differs from the model's",
                          what, kg, name, mk, vn, stamp);
                    CHECK(it->seen != g_gen, "%s: kg %u: %s: a map entry twice", what, kg, name);
                    it->seen = g_gen;
                }
            }
            /* Nothing sure is missing: the rest of a list, any map entry. */
            for (j = SD[st].kind == WEIR_STATE_LIST ? j : 0; j < e->n; j++)
                CHECK(expired(st, e->it[j].stamp, lax) || (SD[st].kind == WEIR_STATE_MAP && e->it[j].seen == g_gen),
                      "%s: kg %u: %s: item %zu missing", what, kg, name, j);
        }
    }
    CHECK(!r.bad && r.p == r.end, "%s: kg %u: trailing or truncated bytes", what, kg);
    for (size_t i = x->off[kg]; i < x->off[kg + 1]; i++) {
        const ment *e = x->ent[i];
        if (e->seen == g_gen || !live(e, now))
            continue;
        bool sure = (e->has && !expired(e->st, e->stamp, lax));
        for (size_t j = 0; j < e->n && !sure; j++)
            sure = !expired(e->st, e->it[j].stamp, lax);
        CHECK(!sure, "%s: kg %u: %s: the entry of key %zu bytes, ns %zu bytes (%s, stamp %" PRId64
                     ", %zu items) is missing",
              what, kg, SD[e->st].name, e->kn, e->nn, e->has ? "a value" : "no value", e->stamp, e->n);
    }
}

/* ---- the run's state ---- */

static model *g_m;
#define MAX_SNAPS 3
typedef struct osnap {
    weir__backend_snap *s[N_SIDES];
    model *m;
    int64_t at;
} osnap;
static osnap g_snaps[MAX_SNAPS];
static uint32_t g_nsnaps;

/* Key and namespace pools of a round. */
#define MAX_KEYS 400
static uint8_t *g_keys[MAX_KEYS];
static size_t g_klen[MAX_KEYS];
static uint32_t g_nkeys;
#define N_NS 10
static uint8_t g_nsb[N_NS][300];
static size_t g_nsl[N_NS];

/* The current key (an index into the pool; -1: none set yet). */
static int g_cur = -1;

static const uint8_t *ckey(size_t *n)
{
    *n = g_klen[g_cur];
    return g_keys[g_cur];
}

static ment *cur_ent(uint32_t st, uint32_t ns, bool create)
{
    size_t kn;
    const uint8_t *k = ckey(&kn);
    ment *e = model_find(g_m, st, k, kn, g_nsb[ns], g_nsl[ns], create);
    prune(e, g_now);
    return e;
}

/* Full check: every owned key group of every backend, decoded, against the model. */
static void full_check(const char *what)
{
    kgidx x = kg_index(g_m);
    weir_buf b;
    weir_buf_init(&b);
    for (int i = 0; i < N_SIDES; i++)
        for (uint32_t kg = g_lo; kg < g_hi; kg++) {
            if (!kg_wanted(&x, kg))
                continue;
            weir_buf_clear(&b);
            int rc = weir__backend_snapshot_kg(g_sd[i].be, kg, &b);
            CHECK(rc == 0, "%s: snapshot of kg %u on %s: %s", what, kg, KINDS[i], weir_strerror(rc));
            char w[96];
            snprintf(w, sizeof w, "%s (%s)", what, KINDS[i]);
            check_kg(g_m, &x, g_now, g_now, kg, b.data, b.len, w);
        }
    weir_buf_fini(&b);
    kg_index_free(&x);
}

/* ---- drawing keys, namespaces, values ---- */

static const size_t KLENS[] = {0, 1, 7, 8, 9, 15, 16, 254, 255, 256, 700, 1023, 1024, 1025, 1100};
static const size_t VLENS[] = {0,    1,    7,    8,    15,   16,   17,   100,  232,  255,  256,  1000,
                               2000, 4000, 4063, 4064, 4079, 4080, 4095, 4096, 4097, 5000, 9000};

static size_t draw_vlen(void)
{
    if (chance(60))
        return below(40);
    if (chance(70))
        return VLENS[below(sizeof VLENS / sizeof VLENS[0])];
    return below(6000);
}

static uint8_t g_vbuf[16384];

static const uint8_t *draw_val(size_t *n)
{
    *n = draw_vlen();
    fill(g_vbuf, *n);
    if (*n && g_vbuf[0] == FAIL_BYTE)
        g_vbuf[0] = 0;
    return g_vbuf;
}

static bool owned(const uint8_t *k, size_t kn)
{
    uint32_t kg = weir_key_group(weir_key_hash(k, kn), g_maxp);
    return kg >= g_lo && kg < g_hi;
}

static void pool_free(void)
{
    for (uint32_t i = 0; i < g_nkeys; i++)
        free(g_keys[i]);
    g_nkeys = 0;
    g_cur = -1;
}

/* Keys of the round: owned ones, sometimes all of one key group. */
static void pool_draw(void)
{
    pool_free();
    uint32_t want = chance(20) ? 150 + below(250) : 20 + below(60);
    int64_t one_kg = chance(25) ? (int64_t)(g_lo + below(g_hi - g_lo)) : -1;
    uint8_t k[1200];
    for (uint32_t tries = 0; g_nkeys < want && tries < 400000; tries++) {
        size_t kn = chance(50) ? 2 + below(30) : KLENS[below(sizeof KLENS / sizeof KLENS[0])];
        fill(k, kn);
        if (kn > 4 && chance(30))
            memcpy(k, "common-prefix", kn < 13 ? kn : 13);
        uint32_t kg = weir_key_group(weir_key_hash(k, kn), g_maxp);
        if (kg < g_lo || kg >= g_hi || (one_kg >= 0 && kg != (uint32_t)one_kg))
            continue;
        bool seen = false;
        for (uint32_t i = 0; i < g_nkeys && !seen; i++)
            seen = eq(g_keys[i], g_klen[i], k, kn);
        if (seen)
            continue;
        g_keys[g_nkeys] = bdup(k, kn);
        g_klen[g_nkeys++] = kn;
    }
    /* Keys of earlier rounds that are still owned come back (restored state). */
    for (size_t i = 0; i < g_m->nb && g_nkeys < MAX_KEYS; i++)
        for (const ment *e = g_m->b[i]; e && g_nkeys < MAX_KEYS; e = e->next) {
            if (e->kg < g_lo || e->kg >= g_hi || !chance(30))
                continue;
            bool seen = false;
            for (uint32_t j = 0; j < g_nkeys && !seen; j++)
                seen = eq(g_keys[j], g_klen[j], e->key, e->kn);
            if (!seen) {
                g_keys[g_nkeys] = bdup(e->key, e->kn);
                g_klen[g_nkeys++] = e->kn;
            }
        }
    static const size_t NSL[] = {0, 0, 1, 8, 16, 254, 255, 256, 300, 5};
    for (int i = 0; i < N_NS; i++) {
        g_nsl[i] = chance(50) ? NSL[i] : below(20);
        fill(g_nsb[i], g_nsl[i]);
        if (i == 9 && g_nsl[i] >= 1) /* a namespace that is a prefix of another */
            memcpy(g_nsb[i], g_nsb[8], g_nsl[i] < g_nsl[8] ? g_nsl[i] : g_nsl[8]);
    }
}

/* ---- the operations ---- */

static void set_key(int ki)
{
    uint64_t h = weir_key_hash(g_keys[ki], g_klen[ki]);
    for (int i = 0; i < N_SIDES; i++) {
        if (chance(10)) /* a hint before the access: it must change nothing */
            weir__state_prefetch(g_sd[i].st[below(N_ST)], h, (int)below(2));
        int rc = chance(50) ? weir__backend_set_key(g_sd[i].be, g_keys[ki], g_klen[ki], h)
                            : weir__backend_use_key(g_sd[i].be, g_keys[ki], g_klen[ki], h,
                                                    weir_key_group(h, g_maxp));
        CHECK(rc == 0, "set_key (%zu bytes) on %s: %s", g_klen[ki], KINDS[i], weir_strerror(rc));
    }
    g_cur = ki;
}

/* A key the backends do not own is refused, and the current key stays. */
static void op_foreign_key(void)
{
    if (g_hi - g_lo == g_maxp)
        return;
    uint8_t k[16];
    do
        fill(k, sizeof k);
    while (owned(k, sizeof k));
    for (int i = 0; i < N_SIDES; i++) {
        int rc = weir__backend_set_key(g_sd[i].be, k, sizeof k, weir_key_hash(k, sizeof k));
        CHECK(rc == WEIR_EINVAL, "a key of another subtask on %s: %s", KINDS[i], weir_strerror(rc));
    }
}

static void cmp_get(int side_i, int rc, int erc, const void *v, size_t vn, const ment *e, const char *what)
{
    CHECK(rc == erc, "%s on %s: rc %s, model %s", what, KINDS[side_i], weir_strerror(rc), weir_strerror(erc));
    if (rc == 0)
        CHECK(eq(v, vn, e->v, e->vn), "%s on %s: %zu bytes, model %zu (or bytes differ)", what, KINDS[side_i], vn,
              e->vn);
}

static void op_value_get(uint32_t s, uint32_t ns)
{
    trace("value_get %s ns%u", SD[s].name, ns);
    ment *e = cur_ent(s, ns, false);
    int erc = e && e->has ? 0 : WEIR_ENOTFOUND;
    for (int i = 0; i < N_SIDES; i++) {
        const void *v = NULL;
        size_t vn = 0;
        int rc = weir_value_get(g_sd[i].st[s], g_nsb[ns], g_nsl[ns], &v, &vn);
        cmp_get(i, rc, erc, v, vn, e, "value_get");
    }
    if (!erc && rw(s))
        e->stamp = g_now;
}

static void op_value_put(uint32_t s, uint32_t ns)
{
    size_t vn;
    const uint8_t *v = draw_val(&vn);
    trace("value_put %s ns%u %zu bytes", SD[s].name, ns, vn);
    for (int i = 0; i < N_SIDES; i++) {
        int rc = weir_value_put(g_sd[i].st[s], g_nsb[ns], g_nsl[ns], v, vn);
        CHECK(rc == 0, "value_put on %s: %s", KINDS[i], weir_strerror(rc));
    }
    ment *e = cur_ent(s, ns, true);
    ment_set(e, bdup(v, vn), vn, wstamp(s));
}

typedef struct edit_ctx {
    const uint8_t *old;
    size_t oldn, keep, len;
    const uint8_t *fillb;
    bool bad;
} edit_ctx;

static int edit_fn(void *ud, uint8_t *val, size_t len, size_t keep)
{
    edit_ctx *c = ud;
    if (len != c->len || keep != c->keep || (keep && memcmp(val, c->old, keep) != 0)) {
        c->bad = true;
        return 0;
    }
    if (keep)
        val[0] ^= 0x5a; /* a kept byte changes in place */
    if (len > keep)
        memcpy(val + keep, c->fillb, len - keep);
    return 0;
}

/* The value after edit_fn: old[0..keep) (its first byte flipped), then fill. */
static uint8_t *edited(const edit_ctx *c)
{
    uint8_t *n = malloc(c->len ? c->len : 1);
    if (c->keep) {
        memcpy(n, c->old, c->keep);
        n[0] ^= 0x5a;
    }
    if (c->len > c->keep)
        memcpy(n + c->keep, c->fillb, c->len - c->keep);
    return n;
}

static void op_value_edit(uint32_t s, uint32_t ns)
{
    ment *e = cur_ent(s, ns, true);
    size_t len = draw_vlen();
    if (e->has && chance(50)) /* grow or shrink a little, in place or not */
    {
        size_t d = below(40);
        len = e->vn + d < 20 ? 0 : e->vn + d - 20;
    }
    size_t keep_max = chance(70) ? SIZE_MAX : below(100);
    uint8_t *fb = malloc(len ? len : 1);
    fill(fb, len);
    edit_ctx c = {e->has ? e->v : NULL, e->has ? e->vn : 0, 0, len, fb, false};
    c.keep = c.oldn < len ? c.oldn : len;
    if (c.keep > keep_max)
        c.keep = keep_max;
    trace("value_edit %s ns%u len %zu keep %zu (old %zu)", SD[s].name, ns, len, c.keep, c.oldn);
    for (int i = 0; i < N_SIDES; i++) {
        int rc = weir_value_edit(g_sd[i].st[s], g_nsb[ns], g_nsl[ns], len, keep_max, edit_fn, &c);
        CHECK(rc == 0 && !c.bad, "value_edit on %s: %s%s", KINDS[i], weir_strerror(rc),
              c.bad ? " (the callback saw other bytes, length or keep than the model)" : "");
    }
    uint8_t *nv = edited(&c);
    ment_set(e, nv, len, wstamp(s));
    free(fb);
}

static void op_clear(uint32_t s, uint32_t ns)
{
    trace("clear %s ns%u", SD[s].name, ns);
    for (int i = 0; i < N_SIDES; i++) {
        int rc = weir_state_clear(g_sd[i].st[s], g_nsb[ns], g_nsl[ns]);
        CHECK(rc == 0, "clear on %s: %s", KINDS[i], weir_strerror(rc));
    }
    ment *e = cur_ent(s, ns, false);
    if (e)
        ment_clear(e);
}

static void op_list_add(uint32_t s, uint32_t ns)
{
    int reps = chance(10) ? 50 + (int)below(300) : 1;
    for (int r = 0; r < reps; r++) {
        size_t vn;
        const uint8_t *v = draw_val(&vn);
        if (reps > 1 && vn > 64)
            vn = below(64);
        trace("list_add %s ns%u %zu bytes (%d of %d)", SD[s].name, ns, vn, r, reps);
        for (int i = 0; i < N_SIDES; i++) {
            int rc = weir_list_add(g_sd[i].st[s], g_nsb[ns], g_nsl[ns], v, vn);
            CHECK(rc == 0, "list_add on %s: %s", KINDS[i], weir_strerror(rc));
        }
        item_push(cur_ent(s, ns, true), NULL, 0, v, vn, wstamp(s));
    }
}

typedef struct lctx {
    const ment *e;
    size_t i;
    bool bad;
} lctx;

static int list_visit(void *ud, const void *v, size_t n)
{
    lctx *c = ud;
    if (!c->e || c->i >= c->e->n || !eq(v, n, c->e->it[c->i].v, c->e->it[c->i].vn))
        c->bad = true;
    c->i++;
    return 0;
}

static void op_list_get(uint32_t s, uint32_t ns)
{
    trace("list_get %s ns%u", SD[s].name, ns);
    ment *e = cur_ent(s, ns, false);
    for (int i = 0; i < N_SIDES; i++) {
        lctx c = {e, 0, false};
        int rc = weir_list_get(g_sd[i].st[s], g_nsb[ns], g_nsl[ns], list_visit, &c);
        CHECK(rc == 0 && !c.bad && c.i == (e ? e->n : 0), "list_get on %s: rc %s, %zu elements, model %zu%s",
              KINDS[i], weir_strerror(rc), c.i, e ? e->n : 0, c.bad ? ", an element differs" : "");
    }
    if (e && rw(s))
        for (size_t j = 0; j < e->n; j++)
            e->it[j].stamp = g_now;
}

/* A map key: from a small set per namespace, so entries are met again. */
static const uint8_t *draw_mkey(size_t *n)
{
    static uint8_t k[300];
    uint32_t pick = below(chance(10) ? 3000 : 40);
    static const size_t MKL[] = {0, 1, 8, 16, 255, 256, 300};
    *n = pick < 7 ? MKL[pick] : 1 + pick % 23;
    for (size_t i = 0; i < *n; i++)
        k[i] = (uint8_t)(pick * 31 + i * 7);
    return k;
}

static void op_map_put(uint32_t s, uint32_t ns)
{
    int reps = chance(5) ? 100 + (int)below(900) : 1;
    for (int r = 0; r < reps; r++) {
        size_t kn, vn;
        const uint8_t *k = draw_mkey(&kn);
        const uint8_t *v = draw_val(&vn);
        if (reps > 1 && vn > 32)
            vn = below(32);
        trace("map_put %s ns%u key %zu bytes value %zu bytes", SD[s].name, ns, kn, vn);
        for (int i = 0; i < N_SIDES; i++) {
            int rc = weir_map_put(g_sd[i].st[s], g_nsb[ns], g_nsl[ns], k, kn, v, vn);
            CHECK(rc == 0, "map_put on %s: %s", KINDS[i], weir_strerror(rc));
        }
        ment *e = cur_ent(s, ns, true);
        mitem *x = item_find(e, k, kn);
        if (x) {
            free(x->v);
            x->v = bdup(v, vn);
            x->vn = vn;
            x->stamp = wstamp(s);
        } else {
            item_push(e, k, kn, v, vn, wstamp(s));
        }
    }
}

static void op_map_get(uint32_t s, uint32_t ns)
{
    size_t kn;
    const uint8_t *k = draw_mkey(&kn);
    ment *e = cur_ent(s, ns, false);
    mitem *x = item_find(e, k, kn);
    trace("map_get %s ns%u key %zu bytes (model: %s)", SD[s].name, ns, kn, x ? "present" : "absent");
    for (int i = 0; i < N_SIDES; i++) {
        const void *v = NULL;
        size_t vn = 0;
        int rc = weir_map_get(g_sd[i].st[s], g_nsb[ns], g_nsl[ns], k, kn, &v, &vn);
        CHECK(rc == (x ? 0 : WEIR_ENOTFOUND), "map_get on %s: %s", KINDS[i], weir_strerror(rc));
        if (x)
            CHECK(eq(v, vn, x->v, x->vn), "map_get on %s: %zu bytes, model %zu", KINDS[i], vn, x->vn);
    }
    if (x && rw(s))
        x->stamp = g_now;
}

static void op_map_remove(uint32_t s, uint32_t ns)
{
    size_t kn;
    const uint8_t *k = draw_mkey(&kn);
    trace("map_remove %s ns%u key %zu bytes", SD[s].name, ns, kn);
    for (int i = 0; i < N_SIDES; i++) {
        int rc = weir_map_remove(g_sd[i].st[s], g_nsb[ns], g_nsl[ns], k, kn);
        CHECK(rc == 0, "map_remove on %s: %s", KINDS[i], weir_strerror(rc));
    }
    ment *e = cur_ent(s, ns, false);
    mitem *x = item_find(e, k, kn);
    if (x)
        item_del(e, x);
}

typedef struct upd_ctx {
    const uint8_t *exp; /* NULL: zeros expected */
    size_t vlen;
    int ret;
    bool bad;
} upd_ctx;

static int update_fn(void *ud, void *val, size_t vlen)
{
    upd_ctx *c = ud;
    uint8_t *p = val;
    for (size_t i = 0; i < vlen && !c->bad; i++)
        c->bad = p[i] != (c->exp ? c->exp[i] : 0);
    c->bad |= vlen != c->vlen;
    for (size_t i = 0; i < vlen; i++)
        p[i] = (uint8_t)(p[i] + 1 + i);
    return c->ret;
}

static void op_map_update(uint32_t s, uint32_t ns)
{
    size_t kn;
    const uint8_t *k = draw_mkey(&kn);
    ment *e = cur_ent(s, ns, true);
    mitem *x = item_find(e, k, kn);
    static const size_t UL[] = {0, 1, 4, 8, 16, 300};
    size_t vlen = x && chance(80) ? x->vn : UL[below(6)];
    bool corrupt = x && x->vn != vlen;
    if (corrupt && rw(s))
        return; /* whether a refused update renews the stamp is not promised */
    upd_ctx c = {x ? x->v : NULL, vlen, chance(75) ? 1 : 0, false};
    if (!corrupt && chance(5) && !rw(s))
        c.ret = WEIR_EUSER - 100; /* a callback's own error code */
    trace("map_update %s ns%u key %zu bytes vlen %zu ret %d (model: %s)", SD[s].name, ns, kn, vlen, c.ret,
          x ? "present" : "absent");
    uint8_t *exp = NULL;
    if (x)
        c.exp = exp = bdup(x->v, x->vn);
    for (int i = 0; i < N_SIDES; i++) {
        int rc = weir_map_update(g_sd[i].st[s], g_nsb[ns], g_nsl[ns], k, kn, vlen, update_fn, &c);
        int erc = corrupt ? WEIR_ECORRUPT : c.ret < 0 ? c.ret : 0;
        CHECK(rc == erc && !c.bad, "map_update on %s: rc %s, model %s%s", KINDS[i], weir_strerror(rc),
              weir_strerror(erc), c.bad ? " (the callback saw other bytes)" : "");
    }
    if (corrupt || c.ret < 0) {
        /* A negative return may leave what fn wrote (state.h): the model takes
         * nothing for granted, so the entry is set again on both sides. */
        for (int i = 0; c.ret < 0 && i < N_SIDES; i++)
            CHECK((x ? weir_map_put(g_sd[i].st[s], g_nsb[ns], g_nsl[ns], k, kn, x->v, x->vn)
                     : weir_map_remove(g_sd[i].st[s], g_nsb[ns], g_nsl[ns], k, kn)) == 0,
                  "map_put / map_remove");
        if (c.ret < 0 && x)
            x->stamp = wstamp(s);
        free(exp);
        return;
    }
    if (c.ret == 0) {
        if (x)
            item_del(e, x);
    } else {
        uint8_t *nv = calloc(1, vlen ? vlen : 1);
        for (size_t i = 0; i < vlen; i++)
            nv[i] = (uint8_t)((x ? x->v[i] : 0) + 1 + i);
        if (x) {
            free(x->v);
            x->v = nv;
            x->stamp = wstamp(s);
        } else {
            item_push(e, k, kn, nv, vlen, wstamp(s));
            free(nv);
        }
    }
    free(exp);
}

typedef struct rw_ctx {
    const uint8_t *exp;
    size_t expn;
    bool present, bad;
    int ret, mode; /* mode 0: new bytes; 1: the old bytes themselves */
    const uint8_t *nv;
    size_t nvn;
} rw_ctx;

static int rewrite_fn(void *ud, const void *old, size_t oldlen, const void **nv, size_t *nvlen)
{
    rw_ctx *c = ud;
    if (c->present ? !old || !eq(old, oldlen, c->exp, c->expn) : old != NULL)
        c->bad = true;
    if (c->mode == 1 && old) {
        *nv = old;
        *nvlen = oldlen;
    } else {
        *nv = c->nv;
        *nvlen = c->nvn;
    }
    return c->ret;
}

static void op_map_rewrite(uint32_t s, uint32_t ns)
{
    size_t kn, vn;
    const uint8_t *k = draw_mkey(&kn);
    const uint8_t *v = draw_val(&vn);
    ment *e = cur_ent(s, ns, true);
    mitem *x = item_find(e, k, kn);
    rw_ctx c = {x ? x->v : NULL, x ? x->vn : 0, x != NULL, false, chance(80) ? 1 : 0, (int)below(2), v, vn};
    if (chance(5) && !rw(s))
        c.ret = WEIR_EUSER - 101;
    trace("map_rewrite %s ns%u key %zu bytes ret %d mode %d (model: %s)", SD[s].name, ns, kn, c.ret, c.mode,
          x ? "present" : "absent");
    uint8_t *keepold = x ? bdup(x->v, x->vn) : NULL;
    c.exp = keepold;
    for (int i = 0; i < N_SIDES; i++) {
        int rc = weir_map_rewrite(g_sd[i].st[s], g_nsb[ns], g_nsl[ns], k, kn, rewrite_fn, &c);
        int erc = c.ret < 0 ? c.ret : 0;
        CHECK(rc == erc && !c.bad, "map_rewrite on %s: rc %s, model %s%s", KINDS[i], weir_strerror(rc),
              weir_strerror(erc), c.bad ? " (the callback saw other bytes)" : "");
    }
    if (c.ret == 0 && x) {
        item_del(e, x);
    } else if (c.ret == 1) {
        const uint8_t *nv = c.mode == 1 && x ? keepold : v;
        size_t nn = c.mode == 1 && x ? c.expn : vn;
        if (x) {
            free(x->v);
            x->v = bdup(nv, nn);
            x->vn = nn;
            x->stamp = wstamp(s);
        } else {
            item_push(e, k, kn, nv, nn, wstamp(s));
        }
    }
    free(keepold);
}

typedef struct mi {
    const uint8_t *k, *v;
    size_t kn, vn;
} mi;

typedef struct it_ctx {
    mi *v;
    size_t n, cap;
} it_ctx;

static int iter_visit(void *ud, const void *k, size_t kn, const void *v, size_t vn)
{
    it_ctx *c = ud;
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 16;
        c->v = realloc(c->v, c->cap * sizeof *c->v);
    }
    c->v[c->n++] = (mi){bdup(k, kn), bdup(v, vn), kn, vn};
    return 0;
}

static int bytes_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    int c = memcmp(a, b, an < bn ? an : bn);
    return c ? c : an < bn ? -1 : an > bn;
}

static void op_map_iterate(uint32_t s, uint32_t ns)
{
    trace("map_iterate %s ns%u", SD[s].name, ns);
    ment *e = cur_ent(s, ns, false);
    size_t n = e ? e->n : 0;
    for (int i = 0; i < N_SIDES; i++) {
        it_ctx c = {0};
        int rc = weir_map_iterate(g_sd[i].st[s], g_nsb[ns], g_nsl[ns], iter_visit, &c);
        CHECK(rc == 0 && c.n == n, "map_iterate on %s: rc %s, %zu entries, model %zu", KINDS[i], weir_strerror(rc),
              c.n, n);
        for (size_t j = 0; j < c.n; j++) {
            mitem *x = item_find(e, c.v[j].k, c.v[j].kn);
            CHECK(x && eq(x->v, x->vn, c.v[j].v, c.v[j].vn), "map_iterate on %s: entry %zu not the model's",
                  KINDS[i], j);
            for (size_t q = 0; q < j; q++) /* each entry once */
                CHECK(!eq(c.v[q].k, c.v[q].kn, c.v[j].k, c.v[j].kn), "map_iterate on %s: an entry twice", KINDS[i]);
            /* RocksDB promises the byte order of the map keys. */
            if (i == 1 && j)
                CHECK(bytes_cmp(c.v[j - 1].k, c.v[j - 1].kn, c.v[j].k, c.v[j].kn) < 0,
                      "map_iterate on rocksdb: entry %zu out of byte order", j);
        }
        for (size_t j = 0; j < c.n; j++) {
            free((void *)c.v[j].k);
            free((void *)c.v[j].v);
        }
        free(c.v);
    }
    if (e && rw(s))
        for (size_t j = 0; j < e->n; j++)
            e->it[j].stamp = g_now;
}

static void op_state_add(uint32_t s, uint32_t ns)
{
    size_t vn = below(5) == 0 ? draw_vlen() : below(24);
    uint8_t *v = malloc(vn ? vn : 1);
    fill(v, vn);
    if (vn && chance(8))
        v[0] = FAIL_BYTE;
    else if (vn && chance(20))
        v[0] = 0xAA;
    else if (vn && v[0] == FAIL_BYTE)
        v[0] = 1;
    bool fails = vn && v[0] == FAIL_BYTE;
    trace("state_add %s ns%u %zu bytes%s", SD[s].name, ns, vn, fails ? " (fails)" : "");
    ment *e = cur_ent(s, ns, true);
    bool reducing = SD[s].kind == WEIR_STATE_REDUCING;
    /* The reducer's first value is stored as given, even a failing one. */
    int erc = fails && (!reducing || e->has) ? WEIR_EUSER : 0;
    for (int i = 0; i < N_SIDES; i++) {
        int rc = weir_state_add(g_sd[i].st[s], g_nsb[ns], g_nsl[ns], v, vn);
        CHECK(rc == erc, "state_add on %s: rc %s, model %s", KINDS[i], weir_strerror(rc), weir_strerror(erc));
    }
    if (!erc) {
        uint8_t *nv;
        size_t nn;
        if (reducing) {
            if (e->has)
                model_reduce(e->v, e->vn, v, vn, &nv, &nn);
            else
                nv = bdup(v, vn), nn = vn;
        } else {
            model_agg(e->v, e->vn, e->has, v, vn, &nv, &nn);
        }
        ment_set(e, nv, nn, wstamp(s));
    }
    free(v);
}

static void op_get_result(uint32_t s, uint32_t ns)
{
    trace("get_result %s ns%u", SD[s].name, ns);
    ment *e = cur_ent(s, ns, false);
    bool has = e && e->has;
    for (int i = 0; i < N_SIDES; i++) {
        weir_buf out;
        weir_buf_init(&out);
        weir_buf_put(&out, "stale", 5);
        int rc = weir_state_get_result(g_sd[i].st[s], g_nsb[ns], g_nsl[ns], &out);
        CHECK(rc == (has ? 0 : WEIR_ENOTFOUND), "get_result on %s: %s", KINDS[i], weir_strerror(rc));
        if (has) {
            bool reversed = SD[s].kind == WEIR_STATE_AGGREGATING && s % 2;
            bool ok = out.len == e->vn;
            for (size_t j = 0; ok && j < e->vn; j++)
                ok = out.data[j] == e->v[reversed ? e->vn - 1 - j : j];
            CHECK(ok, "get_result on %s: %zu bytes, model %zu (or bytes differ)", KINDS[i], out.len, e->vn);
        }
        weir_buf_fini(&out);
    }
    if (has && rw(s))
        e->stamp = g_now;
}

static void op_stamp(uint32_t s, uint32_t ns)
{
    size_t kn = 0;
    const uint8_t *k = NULL;
    bool map = SD[s].kind == WEIR_STATE_MAP;
    if (map)
        k = draw_mkey(&kn);
    ment *e = cur_ent(s, ns, false);
    mitem *x = map ? item_find(e, k, kn) : NULL;
    bool has = map ? x != NULL : e && e->has;
    int64_t exp = map ? (x ? x->stamp : 0) : (has ? e->stamp : 0);
    trace("stamp %s ns%u", SD[s].name, ns);
    for (int i = 0; i < N_SIDES; i++) {
        int64_t got = 0;
        if (SD[s].kind == WEIR_STATE_LIST) { /* list elements have a stamp each: not asked this way */
            int rc = weir__state_stamp(g_sd[i].st[s], g_nsb[ns], g_nsl[ns], NULL, 0, &got);
            CHECK(rc == WEIR_EINVAL, "stamp of a list on %s: %s", KINDS[i], weir_strerror(rc));
            continue;
        }
        int rc = weir__state_stamp(g_sd[i].st[s], g_nsb[ns], g_nsl[ns], map ? k : NULL, kn, &got);
        CHECK(rc == (has ? 0 : WEIR_ENOTFOUND), "stamp on %s: %s", KINDS[i], weir_strerror(rc));
        /* Without TTL the stamp means nothing: a restore gives entries the
         * restore time, a write none (INT64_MIN); only TTL stamps are exact. */
        CHECK(!has || got == exp || SD[s].ttl == 0, "stamp on %s: %" PRId64 ", model %" PRId64, KINDS[i], got, exp);
    }
}

/* A put with a stamp of the past (an operator rewriting restored state). */
static void op_put_stamped(uint32_t s, uint32_t ns)
{
    int64_t stamp = g_now - below(TTL + 10);
    size_t vn, kn = 0;
    const uint8_t *v = draw_val(&vn), *k = NULL;
    bool map = SD[s].kind == WEIR_STATE_MAP;
    if (map)
        k = draw_mkey(&kn);
    int64_t st = SD[s].ttl > 0 ? stamp : INT64_MIN;
    trace("put_stamped %s ns%u stamp now-%" PRId64, SD[s].name, ns, g_now - stamp);
    for (int i = 0; i < N_SIDES; i++) {
        int rc = map ? weir__map_put_stamped(g_sd[i].st[s], g_nsb[ns], g_nsl[ns], k, kn, stamp, v, vn)
                     : weir__value_put_stamped(g_sd[i].st[s], g_nsb[ns], g_nsl[ns], stamp, v, vn);
        CHECK(rc == 0, "put_stamped on %s: %s", KINDS[i], weir_strerror(rc));
    }
    ment *e = cur_ent(s, ns, true);
    if (map) {
        mitem *x = item_find(e, k, kn);
        if (x)
            item_del(e, x);
        item_push(e, k, kn, v, vn, st);
    } else {
        ment_set(e, bdup(v, vn), vn, st);
    }
    prune(e, g_now); /* a stamp of the past may be expired already */
}

/* weir__value_get_key / edit_key: another key's value, the current key kept. */
static void op_other_key(uint32_t s)
{
    int ki = (int)below(g_nkeys);
    bool edit = chance(50);
    uint64_t h = weir_key_hash(g_keys[ki], g_klen[ki]);
    ment *e = model_find(g_m, s, g_keys[ki], g_klen[ki], (const uint8_t *)"", 0, edit);
    prune(e, g_now);
    size_t len = draw_vlen();
    uint8_t *fb = malloc(len ? len : 1);
    fill(fb, len);
    edit_ctx c = {e && e->has ? e->v : NULL, e && e->has ? e->vn : 0, 0, len, fb, false};
    c.keep = c.oldn < len ? c.oldn : len;
    trace("%s_key %s key %d", edit ? "value_edit" : "value_get", SD[s].name, ki);
    bool served = false, unserved = false;
    for (int i = 0; i < N_SIDES; i++) {
        int rc;
        if (edit) {
            rc = weir__value_edit_key(g_sd[i].st[s], g_keys[ki], g_klen[ki], h, len, SIZE_MAX, edit_fn, &c);
            CHECK((rc == 0 || rc == 1) && !c.bad, "value_edit_key on %s: %s%s", KINDS[i], weir_strerror(rc),
                  c.bad ? " (the callback saw other bytes)" : "");
            if (rc == 1) { /* not served this way: the caller sets the key */
                size_t ckn;
                const uint8_t *ck = ckey(&ckn);
                uint64_t ch = weir_key_hash(ck, ckn);
                CHECK(weir__backend_set_key(g_sd[i].be, g_keys[ki], g_klen[ki], h) == 0, "set_key");
                rc = weir_value_edit(g_sd[i].st[s], NULL, 0, len, SIZE_MAX, edit_fn, &c);
                CHECK(rc == 0 && !c.bad, "value_edit on %s: %s", KINDS[i], weir_strerror(rc));
                CHECK(weir__backend_set_key(g_sd[i].be, ck, ckn, ch) == 0, "set_key");
            }
        } else {
            const void *v = NULL;
            size_t vn = 0;
            rc = weir__value_get_key(g_sd[i].st[s], g_keys[ki], g_klen[ki], h, &v, &vn);
            CHECK(rc == 1 || rc == 0 || rc == WEIR_ENOTFOUND, "value_get_key on %s: %s", KINDS[i],
                  weir_strerror(rc));
            if (rc != 1)
                cmp_get(i, rc, e && e->has ? 0 : WEIR_ENOTFOUND, v, vn, e, "value_get_key");
            served |= rc != 1;
            unserved |= rc == 1;
        }
    }
    if (edit) {
        uint8_t *nv = edited(&c);
        ment_set(e, nv, len, wstamp(s));
    } else if (served && e && e->has && rw(s)) {
        /* A read renews the stamp; where only one side read, read on the other. */
        if (unserved)
            for (int i = 0; i < N_SIDES; i++) {
                const void *v;
                size_t vn;
                int rc = weir__value_get_key(g_sd[i].st[s], g_keys[ki], g_klen[ki], h, &v, &vn);
                if (rc == 1) {
                    size_t ckn;
                    const uint8_t *ck = ckey(&ckn);
                    CHECK(weir__backend_set_key(g_sd[i].be, g_keys[ki], g_klen[ki], h) == 0, "set_key");
                    CHECK(weir_value_get(g_sd[i].st[s], NULL, 0, &v, &vn) == 0, "value_get");
                    CHECK(weir__backend_set_key(g_sd[i].be, ck, ckn, weir_key_hash(ck, ckn)) == 0, "set_key");
                }
            }
        e->stamp = g_now;
    }
    free(fb);
}

typedef struct keys_ctx {
    weir_state *st;
    size_t n, cap;
    uint8_t **k, **ns;
    size_t *kn, *nn;
    bool clear;
    int rc;
} keys_ctx;

static int keys_visit(void *ud, const uint8_t *key, size_t klen, const void *ns, size_t ns_len)
{
    keys_ctx *c = ud;
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 64;
        c->k = realloc(c->k, c->cap * sizeof *c->k);
        c->ns = realloc(c->ns, c->cap * sizeof *c->ns);
        c->kn = realloc(c->kn, c->cap * sizeof *c->kn);
        c->nn = realloc(c->nn, c->cap * sizeof *c->nn);
    }
    c->k[c->n] = bdup(key, klen);
    c->kn[c->n] = klen;
    c->ns[c->n] = bdup(ns, ns_len);
    c->nn[c->n++] = ns_len;
    /* The visitor may write: clearing what it visits is allowed. */
    if (c->clear && !c->rc)
        c->rc = weir_state_clear(c->st, ns, ns_len);
    return 0;
}

static void op_state_keys(uint32_t s)
{
    bool clear = chance(15);
    trace("state_keys %s%s", SD[s].name, clear ? " (clearing each)" : "");
    size_t n = 0;
    for (size_t i = 0; i < g_m->nb; i++)
        for (ment *e = g_m->b[i]; e; e = e->next)
            if (e->st == s && e->kg >= g_lo && e->kg < g_hi) {
                prune(e, g_now);
                n += e->has || e->n;
            }
    for (int i = 0; i < N_SIDES; i++) {
        keys_ctx c = {.st = g_sd[i].st[s], .clear = clear};
        int rc = weir_state_keys(g_sd[i].st[s], keys_visit, &c);
        CHECK(rc == 0 && c.rc == 0, "state_keys on %s: %s / %s", KINDS[i], weir_strerror(rc), weir_strerror(c.rc));
        CHECK(c.n == n, "state_keys on %s: %zu pairs, model %zu", KINDS[i], c.n, n);
        for (size_t j = 0; j < c.n; j++) {
            ment *e = model_find(g_m, s, c.k[j], c.kn[j], c.ns[j], c.nn[j], false);
            CHECK(e && (e->has || e->n), "state_keys on %s: pair %zu (key %zu bytes) not in the model", KINDS[i],
                  j, c.kn[j]);
            for (size_t q = 0; q < j; q++)
                CHECK(!(eq(c.k[q], c.kn[q], c.k[j], c.kn[j]) && eq(c.ns[q], c.nn[q], c.ns[j], c.nn[j])),
                      "state_keys on %s: a pair twice", KINDS[i]);
        }
        for (size_t j = 0; j < c.n; j++) {
            free(c.k[j]);
            free(c.ns[j]);
        }
        free(c.k);
        free(c.ns);
        free(c.kn);
        free(c.nn);
        /* The current key is back. */
        size_t kn, ckn;
        const uint8_t *bk = weir__backend_key(g_sd[i].be, &kn, NULL), *ck = ckey(&ckn);
        CHECK(bk && eq(bk, kn, ck, ckn), "state_keys on %s: the current key changed", KINDS[i]);
    }
    if (clear)
        for (size_t i = 0; i < g_m->nb; i++)
            for (ment *e = g_m->b[i]; e; e = e->next)
                if (e->st == s && e->kg >= g_lo && e->kg < g_hi)
                    ment_clear(e);
}

/*
 * A pointer from value_get stays valid across further reads (state.h), even
 * reads that drop expired entries after the clock moved.
 */
static void op_pointer_lifetime(uint32_t s, uint32_t ns)
{
    ment *e = cur_ent(s, ns, false);
    if (!e || !e->has)
        return;
    trace("pointer_lifetime %s ns%u", SD[s].name, ns);
    const void *p[N_SIDES];
    size_t pn[N_SIDES];
    for (int i = 0; i < N_SIDES; i++)
        CHECK(weir_value_get(g_sd[i].st[s], g_nsb[ns], g_nsl[ns], &p[i], &pn[i]) == 0, "value_get");
    if (rw(s))
        e->stamp = g_now;
    uint8_t *copy = bdup(e->v, e->vn);
    size_t cn = e->vn;
    for (int r = 0; r < 4; r++) {
        uint32_t s2 = below(N_ST), ns2 = below(N_NS);
        if (value_like(s2))
            op_value_get(s2, ns2);
        else if (SD[s2].kind == WEIR_STATE_LIST)
            op_list_get(s2, ns2);
        else if (chance(50))
            op_map_get(s2, ns2);
        else
            op_map_iterate(s2, ns2);
    }
    for (int i = 0; i < N_SIDES; i++)
        CHECK(eq(p[i], pn[i], copy, cn), "a pointer from value_get on %s changed across reads", KINDS[i]);
    free(copy);
}

/*
 * Write combining, as the runtime turns it on around operators' snapshot
 * hooks: reads must see every write meanwhile, and off reports no error.
 */
static bool g_batch;

static void op_write_batch(bool on)
{
    if (on == g_batch)
        return;
    trace("write_batch %s", on ? "on" : "off");
    for (int i = 0; i < N_SIDES; i++) {
        int rc = weir__backend_write_batch(g_sd[i].be, on);
        CHECK(rc == 0, "write_batch %s on %s: %s", on ? "on" : "off", KINDS[i], weir_strerror(rc));
    }
    g_batch = on;
}

/* ---- the clock ---- */

static void clock_set(int64_t t)
{
    if (t <= g_now)
        return;
    g_now = t;
    weir_manual_clock_set(g_clock, t);
}

/* Moves on a little, or right onto (or just before) some stamp's expiry. */
static void op_clock(void)
{
    if (chance(40) && g_m->n) {
        size_t b = below((uint32_t)g_m->nb);
        for (size_t i = 0; i < g_m->nb; i++) {
            ment *e = g_m->b[(b + i) & (g_m->nb - 1)];
            for (; e; e = e->next) {
                int64_t st = e->has ? e->stamp : e->n ? e->it[below((uint32_t)e->n)].stamp : INT64_MIN;
                if (SD[e->st].ttl > 0 && st != INT64_MIN) {
                    int64_t t = st + SD[e->st].ttl - (int64_t)below(2);
                    trace("clock onto an expiry: %" PRId64 " -> %" PRId64, g_now, t);
                    clock_set(t);
                    return;
                }
            }
        }
    }
    int64_t d = chance(90) ? below(8) : below(3 * TTL);
    trace("clock +%" PRId64, d);
    clock_set(g_now + d);
}

/* ---- asynchronous snapshots ---- */

static void snap_begin(void)
{
    if (g_nsnaps == MAX_SNAPS)
        return;
    trace("snapshot_begin (%u open)", g_nsnaps);
    osnap *o = &g_snaps[g_nsnaps];
    for (int i = 0; i < N_SIDES; i++) {
        int rc = weir__backend_snapshot_begin(g_sd[i].be, &o->s[i]);
        CHECK(rc == 0, "snapshot_begin on %s: %s", KINDS[i], weir_strerror(rc));
    }
    o->m = model_copy(g_m);
    o->at = g_now;
    g_nsnaps++;
}

/* Writes snapshot j of side i for every owned key group into store (if
 * given) after checking each against the model as it was at the pin. */
static void snap_check(uint32_t j, int i, uint8_t **store, size_t *store_n)
{
    osnap *o = &g_snaps[j];
    kgidx x = kg_index(o->m);
    weir_buf b;
    weir_buf_init(&b);
    for (uint32_t kg = g_lo; kg < g_hi; kg++) {
        if (!kg_wanted(&x, kg)) {
            if (store) { /* empty in the model: nothing to restore */
                free(store[kg]);
                store[kg] = NULL;
            }
            continue;
        }
        weir_buf_clear(&b);
        int rc = weir__backend_snap_kg(o->s[i], kg, &b);
        CHECK(rc == 0, "snap_kg %u on %s: %s", kg, KINDS[i], weir_strerror(rc));
        char w[96];
        snprintf(w, sizeof w, "snapshot %u of %s, taken at %" PRId64, j, KINDS[i], o->at);
        check_kg(o->m, &x, o->at, i == 1 ? g_now : o->at, kg, b.data, b.len, w);
        if (store) {
            free(store[kg]);
            store[kg] = bdup(b.data, b.len);
            store_n[kg] = b.len;
        }
    }
    weir_buf_fini(&b);
    kg_index_free(&x);
}

static void snap_release(uint32_t j)
{
    for (int i = 0; i < N_SIDES; i++)
        weir__backend_snap_release(g_snaps[j].s[i]);
    model_free(g_snaps[j].m);
    g_snaps[j] = g_snaps[--g_nsnaps];
}

static void op_snap_end(void)
{
    if (!g_nsnaps)
        return;
    uint32_t j = below(g_nsnaps);
    trace("snapshot %u checked and released", j);
    for (int i = 0; i < N_SIDES; i++)
        snap_check(j, i, NULL, NULL);
    snap_release(j);
}

/*
 * A snapshot written on another thread while this one goes on with writes
 * (what the runtime does), and released there: its bytes are checked
 * afterwards against the model as it was at the pin.
 */
typedef struct snap_job {
    weir__backend_snap *s[N_SIDES];
    uint32_t lo, hi;
    const bool *wanted; /* by kg - lo */
    weir_buf *out;      /* [side * (hi - lo) + kg - lo] */
    int rc;
} snap_job;

static void *snap_thread(void *ud)
{
    snap_job *j = ud;
    for (int i = 0; i < N_SIDES; i++) {
        for (uint32_t kg = j->lo; kg < j->hi && !j->rc; kg++)
            if (j->wanted[kg - j->lo])
                j->rc = weir__backend_snap_kg(j->s[i], kg, &j->out[(size_t)i * (j->hi - j->lo) + kg - j->lo]);
        weir__backend_snap_release(j->s[i]);
    }
    return NULL;
}

static void step_state(void);

static void op_snap_threaded(void)
{
    if (!g_nsnaps)
        return;
    uint32_t k = below(g_nsnaps), n = g_hi - g_lo;
    osnap *o = &g_snaps[k];
    trace("snapshot %u written on another thread", k);
    kgidx x = kg_index(o->m);
    bool *wanted = calloc(n ? n : 1, sizeof *wanted);
    snap_job job = {{o->s[0], o->s[1]}, g_lo, g_hi, wanted, calloc((size_t)N_SIDES * n + 1, sizeof(weir_buf)), 0};
    cr_assert(wanted && job.out);
    for (uint32_t kg = g_lo; kg < g_hi; kg++)
        wanted[kg - g_lo] = kg_wanted(&x, kg);
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, snap_thread, &job), 0);
    for (int q = 0; q < 40; q++) { /* writes, reads, key changes, the clock */
        g_op++;
        if (chance(15))
            set_key((int)below(g_nkeys));
        else if (chance(5))
            op_clock();
        else
            step_state();
    }
    pthread_join(t, NULL);
    CHECK(job.rc == 0, "snap_kg on another thread: %s", weir_strerror(job.rc));
    for (int i = 0; i < N_SIDES; i++)
        for (uint32_t kg = g_lo; kg < g_hi; kg++) {
            weir_buf *b = &job.out[(size_t)i * n + kg - g_lo];
            if (wanted[kg - g_lo]) {
                char w[96];
                snprintf(w, sizeof w, "snapshot %u of %s written on another thread, taken at %" PRId64, k, KINDS[i],
                         o->at);
                check_kg(o->m, &x, o->at, i == 1 ? g_now : o->at, kg, b->data, b->len, w);
            }
            weir_buf_fini(b);
        }
    free(job.out);
    free(wanted);
    kg_index_free(&x);
    model_free(o->m); /* released by the thread */
    g_snaps[k] = g_snaps[--g_nsnaps];
}

/* ---- rounds: the end of one, a restore into the next ---- */

static uint8_t **g_store; /* canonical bytes by key group (NULL: nothing) */
static size_t *g_store_n;
static char g_native[300]; /* a native checkpoint of the last round's RocksDB */
static uint32_t g_native_lo, g_native_hi;

static void round_end(void)
{
    /* A failover to an open snapshot, or a snapshot of now. */
    if (g_nsnaps && chance(30)) {
        uint32_t j = below(g_nsnaps);
        trace("round ends: failover to snapshot %u taken at %" PRId64, j, g_snaps[j].at);
        snap_check(j, (int)below(N_SIDES), g_store, g_store_n);
        model_free(g_m);
        g_m = g_snaps[j].m;
        g_snaps[j].m = NULL;
        for (size_t i = 0; i < g_m->nb; i++) /* what the snapshot left out is gone */
            for (ment *e = g_m->b[i]; e; e = e->next)
                prune(e, g_snaps[j].at);
        g_native[0] = '\0';
    } else {
        trace("round ends: snapshot at %" PRId64, g_now);
        full_check("round end");
        int from = (int)below(N_SIDES);
        weir_buf b;
        weir_buf_init(&b);
        kgidx x = kg_index(g_m);
        for (uint32_t kg = g_lo; kg < g_hi; kg++) {
            if (!kg_wanted(&x, kg)) { /* empty (full_check read some such) */
                free(g_store[kg]);
                g_store[kg] = NULL;
                continue;
            }
            weir_buf_clear(&b);
            CHECK(weir__backend_snapshot_kg(g_sd[from].be, kg, &b) == 0, "snapshot_kg");
            free(g_store[kg]);
            g_store[kg] = bdup(b.data, b.len);
            g_store_n[kg] = b.len;
        }
        kg_index_free(&x);
        weir_buf_fini(&b);
        for (size_t i = 0; i < g_m->nb; i++)
            for (ment *e = g_m->b[i]; e; e = e->next)
                prune(e, g_now);
        g_native[0] = '\0';
        if (chance(40)) {
            snprintf(g_native, sizeof g_native, "%s/ck%d", g_base, g_dirs++);
            int rc = weir__rocksdb_checkpoint(g_sd[1].be, g_native);
            CHECK(rc == 0, "native checkpoint: %s", weir_strerror(rc));
            g_native_lo = g_lo;
            g_native_hi = g_hi;
        }
    }
    while (g_nsnaps)
        snap_release(g_nsnaps - 1);
    op_write_batch(false);
    for (int i = 0; i < N_SIDES; i++) {
        weir__backend_destroy(g_sd[i].be);
        g_sd[i].be = NULL;
    }
}

static void pick_range(void)
{
    uint32_t p = 1 + below(4);
    if (p > g_maxp)
        p = g_maxp;
    uint32_t i = below(p);
    g_lo = (uint32_t)(((uint64_t)i * g_maxp + p - 1) / p);
    g_hi = (uint32_t)(((uint64_t)(i + 1) * g_maxp + p - 1) / p);
    if (chance(15) && g_maxp > 2) { /* any range, down to a single key group */
        g_lo = below(g_maxp);
        g_hi = g_lo + 1 + below(g_maxp - g_lo);
    }
}

static void round_start(void)
{
    pick_range();
    if (chance(30))
        clock_set(g_now + below(2 * TTL)); /* restored later: stamps move on */
    bool register_late = chance(20);
    for (int i = 0; i < N_SIDES; i++) {
        bool native = i == 1 && g_native[0] && chance(70);
        if (native) {
            weir__backend_config cfg = be_cfg(1, g_sd[1].dir);
            int rc = weir__rocksdb_open_checkpoint(&cfg, g_native, &g_sd[1].be);
            CHECK(rc == 0, "open native checkpoint: %s", weir_strerror(rc));
        } else {
            side_create(i);
        }
        if (!register_late)
            register_states(&g_sd[i]);
        for (uint32_t kg = g_lo; kg < g_hi; kg++) {
            if (native && kg >= g_native_lo && kg < g_native_hi)
                continue; /* in the checkpoint */
            if (!g_store[kg])
                continue;
            weir_cursor c;
            weir_cursor_init(&c, g_store[kg], g_store_n[kg]);
            int rc = weir__backend_restore_kg(g_sd[i].be, kg, &c);
            CHECK(rc == 0, "restore of kg %u into %s: %s", kg, KINDS[i], weir_strerror(rc));
        }
        if (register_late)
            register_states(&g_sd[i]);
    }
    snprintf(g_case, sizeof g_case, "case %u, max parallelism %u, key groups [%u, %u)", g_ci, g_maxp, g_lo, g_hi);
    pool_draw();
    set_key((int)below(g_nkeys));
    full_check("after restore");
}

/* ---- a run ---- */

static void step_value(uint32_t s, uint32_t ns, uint32_t r)
{
    bool agg = SD[s].kind != WEIR_STATE_VALUE;
    if (r < 12)
        op_pointer_lifetime(s, ns);
    else if (r < 16)
        op_other_key(s);
    else if (agg && r < 55)
        op_state_add(s, ns);
    else if (agg && r < 70)
        op_get_result(s, ns);
    else if (r < 50)
        op_value_get(s, ns);
    else if (r < 75)
        op_value_put(s, ns);
    else
        op_value_edit(s, ns);
}

static void step_map(uint32_t s, uint32_t ns, uint32_t r)
{
    if (r < 35)
        op_map_put(s, ns);
    else if (r < 55)
        op_map_get(s, ns);
    else if (r < 65)
        op_map_remove(s, ns);
    else if (r < 75)
        op_map_update(s, ns);
    else if (r < 88)
        op_map_rewrite(s, ns);
    else
        op_map_iterate(s, ns);
}

static void step_state(void)
{
    uint32_t s = below(N_ST), ns = below(N_NS);
    if (chance(40))
        ns = below(2); /* most writes meet earlier ones */
    uint32_t r = below(100);
    if (r < 4)
        op_clear(s, ns);
    else if (r < 7)
        op_stamp(s, ns);
    else if (r < 9 && SD[s].kind != WEIR_STATE_LIST)
        op_put_stamped(s, ns);
    else if (value_like(s))
        step_value(s, ns, r);
    else if (SD[s].kind == WEIR_STATE_MAP)
        step_map(s, ns, r);
    else if (r < 55)
        op_list_add(s, ns);
    else
        op_list_get(s, ns);
}

static uint32_t g_check_every;

static void step(void)
{
    uint32_t r = below(1000);
    if (r < 120) {
        set_key((int)below(g_nkeys));
        trace("set_key %d (%zu bytes)", g_cur, g_klen[g_cur]);
    } else if (r < 170) {
        op_clock();
    } else if (r < 172) {
        op_foreign_key();
    } else if (r < 178) {
        snap_begin();
    } else if (r < 181) {
        op_snap_end();
    } else if (r < 182) {
        op_snap_threaded();
    } else if (r < 186) {
        op_state_keys(below(N_ST));
    } else if (r < 190) {
        op_write_batch(!g_batch);
    } else {
        step_state();
    }
    if (g_op % g_check_every == 0)
        full_check("periodic");
}

static uint64_t env_u64(const char *name, uint64_t dflt)
{
    const char *s = getenv(name);
    return s && *s ? strtoull(s, NULL, 0) : dflt;
}

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(p);
}

static void make_base(void)
{
    const char *base = getenv("WEIR_TEST_TMPDIR");
    if (!base)
        base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(g_base, sizeof g_base, "%s/weir-state-model-XXXXXX", base);
    cr_assert_not_null(mkdtemp(g_base));
}

static void run_case(uint32_t ci, uint64_t ops)
{
    static const uint32_t MAXPS[] = {128, 128, 128, 1, 2, 7, 7, 4096};
    g_rng = g_seed * 1000003 + ci;
    g_maxp = MAXPS[below(sizeof MAXPS / sizeof MAXPS[0])];
    g_ci = ci;
    g_m = calloc(1, sizeof *g_m);
    g_store = calloc(g_maxp, sizeof *g_store);
    g_store_n = calloc(g_maxp, sizeof *g_store_n);
    g_native[0] = '\0';
    g_now = 1000;
    g_clock = weir_manual_clock_create(g_now);
    /* A full check reads every owned key group: fewer of them with many. */
    g_check_every = g_maxp > 1000 ? 2000 : 150;
    round_start();
    uint64_t round_len = 300 + below(3000);
    for (uint64_t i = 0; i < ops; i++) {
        g_op++;
        if (--round_len == 0) {
            round_end();
            round_start();
            round_len = 300 + below(3000);
            continue;
        }
        step();
    }
    round_end();
    pool_free();
    for (uint32_t kg = 0; kg < g_maxp; kg++)
        free(g_store[kg]);
    free(g_store);
    free(g_store_n);
    model_free(g_m);
    weir_manual_clock_destroy(g_clock);
}

Test(state_model, random_operations_on_both_backends, .timeout = 600)
{
    g_seed = env_u64("WEIR_SEED", (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20));
    uint64_t ops = env_u64("WEIR_STATE_MODEL_OPS", 16000);
    fprintf(stderr, "state_model: WEIR_SEED=%" PRIu64 ", %" PRIu64 " operations (WEIR_STATE_MODEL_OPS)\n", g_seed,
            ops);
    g_debug = getenv("WEIR_STATE_MODEL_DEBUG") != NULL;
    make_base();
    uint64_t per_case = ops < 6000 ? ops : 6000;
    for (uint32_t ci = 0; ci * per_case < ops; ci++)
        run_case(ci, per_case);
    if (!g_failed)
        nftw(g_base, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- one table past 2^19 slots ---- */

/* Key i of the big case: 8 bytes that say i (so a visitor's key gives it back). */
static void big_key(uint32_t i, uint8_t k[8])
{
    uint64_t x = (uint64_t)i * UINT64_C(0x9E3779B97F4A7C15) ^ 0x5bd1e995;
    for (int b = 0; b < 8; b++)
        k[b] = (uint8_t)(x >> (8 * b));
}

static uint32_t big_index(const uint8_t k[8])
{
    uint64_t x = 0;
    for (int b = 0; b < 8; b++)
        x |= (uint64_t)k[b] << (8 * b);
    return (uint32_t)((x ^ 0x5bd1e995) * UINT64_C(0xF1DE83E19937733D)); /* the inverse multiplier */
}

/* The value of key i at version ver (0: absent): 0 - 12 bytes. */
static size_t big_val(uint32_t i, uint32_t ver, uint8_t v[16])
{
    size_t n = (i + ver) % 13;
    for (size_t b = 0; b < n; b++)
        v[b] = (uint8_t)(i >> b) ^ (uint8_t)ver;
    return n;
}

typedef struct big {
    weir__backend *be;
    weir_state *v, *t; /* t: with TTL, written for every third key */
    uint32_t n;
    uint32_t *ver, *tver; /* 0: absent */
    int64_t *tstamp;
} big;

static void big_set_key(big *b, uint32_t i)
{
    uint8_t k[8];
    big_key(i, k);
    int rc = weir__backend_set_key(b->be, k, 8, weir_key_hash(k, 8));
    CHECK(rc == 0, "big: set_key %u: %s", i, weir_strerror(rc));
}

static void big_put(big *b, uint32_t i, uint32_t ver)
{
    uint8_t v[16];
    big_set_key(b, i);
    int rc = ver ? weir_value_put(b->v, NULL, 0, v, big_val(i, ver, v)) : weir_state_clear(b->v, NULL, 0);
    CHECK(rc == 0, "big: %s of key %u: %s", ver ? "put" : "clear", i, weir_strerror(rc));
    b->ver[i] = ver;
    if (i % 3 == 0) {
        rc = ver ? weir_value_put(b->t, NULL, 0, v, big_val(i, ver, v)) : weir_state_clear(b->t, NULL, 0);
        CHECK(rc == 0, "big: TTL %s of key %u: %s", ver ? "put" : "clear", i, weir_strerror(rc));
        b->tver[i] = ver;
        b->tstamp[i] = g_now;
    }
}

/* Every key's value in both states, against the model. */
static void big_verify(big *b, const char *what)
{
    for (uint32_t i = 0; i < b->n; i++) {
        g_op++;
        big_set_key(b, i);
        uint8_t v[16];
        const void *got;
        size_t n;
        int rc = weir_value_get(b->v, NULL, 0, &got, &n);
        CHECK(rc == (b->ver[i] ? 0 : WEIR_ENOTFOUND), "big, %s: get of key %u: %s (model: version %u)", what, i,
              weir_strerror(rc), b->ver[i]);
        CHECK(!b->ver[i] || eq(got, n, v, big_val(i, b->ver[i], v)), "big, %s: key %u: other bytes", what, i);
        if (i % 3)
            continue;
        bool live = b->tver[i] && g_now - 20 < b->tstamp[i];
        rc = weir_value_get(b->t, NULL, 0, &got, &n);
        CHECK(rc == (live ? 0 : WEIR_ENOTFOUND), "big, %s: TTL get of key %u: %s (model: %s)", what, i,
              weir_strerror(rc), live ? "live" : "absent or expired");
        CHECK(!live || eq(got, n, v, big_val(i, b->tver[i], v)), "big, %s: TTL key %u: other bytes", what, i);
        if (!live)
            b->tver[i] = 0;
    }
}

static int big_visit(void *ud, const uint8_t *key, size_t klen, const void *ns, size_t ns_len)
{
    big *b = ud;
    uint32_t i = klen == 8 ? big_index(key) : UINT32_MAX;
    CHECK(i < b->n && ns_len == 0 && b->ver[i] && !(b->ver[i] & 0x80000000u),
          "big: state_keys visits key %u, absent or visited before", i);
    (void)ns;
    b->ver[i] |= 0x80000000u;
    return 0;
}

Test(state_model, one_table_past_2_19_slots, .timeout = 600)
{
    g_seed = env_u64("WEIR_SEED", (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20));
    uint32_t n = (uint32_t)env_u64("WEIR_STATE_MODEL_BIG", 420000);
    fprintf(stderr, "state_model big: WEIR_SEED=%" PRIu64 ", %u keys in one key group (WEIR_STATE_MODEL_BIG)\n",
            g_seed, n);
    if (!n)
        return;
    g_rng = g_seed ^ 0xb16;
    snprintf(g_case, sizeof g_case, "big case, %u keys", n);
    g_maxp = 1;
    g_lo = 0;
    g_hi = 1;
    g_now = 1000;
    g_clock = weir_manual_clock_create(g_now);
    big b = {.n = n, .ver = calloc(n, 4), .tver = calloc(n, 4), .tstamp = calloc(n, 8)};
    cr_assert(b.ver && b.tver && b.tstamp);
    char dir[300];
    weir__backend_config cfg = be_cfg(0, dir);
    cr_assert_eq(weir__backend_create(&cfg, &b.be), 0);
    weir_state_desc dv = {.name = "v", .kind = WEIR_STATE_VALUE};
    weir_state_desc dt = {.name = "t", .kind = WEIR_STATE_VALUE, .ttl_ms = 20};
    cr_assert_eq(weir__backend_register(b.be, &dv, &b.v), 0);
    cr_assert_eq(weir__backend_register(b.be, &dt, &b.t), 0);
    /* All keys in, the clock moving on: the TTL state's older third expires. */
    for (uint32_t i = 0; i < n; i++) {
        g_op++;
        if (i % (n / 8 + 1) == 0)
            clock_set(g_now + 7);
        big_put(&b, i, 1);
    }
    big_verify(&b, "after the inserts");
    /* Deletions (backward shifts that rehash records in the large table), re-inserts, updates. */
    for (int round = 0; round < 3; round++) {
        for (uint32_t q = 0; q < n / 2; q++) {
            g_op++;
            uint32_t i = below(n);
            big_put(&b, i, b.ver[i] && chance(60) ? 0 : 2 + round);
        }
        clock_set(g_now + 9);
        big_verify(&b, "after deletions and re-inserts");
    }
    /* Every live key visited once. */
    CHECK(weir_state_keys(b.v, big_visit, &b) == 0, "big: state_keys");
    for (uint32_t i = 0; i < n; i++) {
        CHECK(!b.ver[i] || (b.ver[i] & 0x80000000u), "big: state_keys missed key %u", i);
        b.ver[i] &= 0x7fffffffu;
    }
    /* A snapshot restored into a fresh backend holds the same. */
    weir_buf snap;
    weir_buf_init(&snap);
    CHECK(weir__backend_snapshot_kg(b.be, 0, &snap) == 0, "big: snapshot");
    weir__backend_destroy(b.be);
    cr_assert_eq(weir__backend_create(&cfg, &b.be), 0);
    cr_assert_eq(weir__backend_register(b.be, &dv, &b.v), 0);
    cr_assert_eq(weir__backend_register(b.be, &dt, &b.t), 0);
    weir_cursor c;
    weir_cursor_init(&c, snap.data, snap.len);
    CHECK(weir__backend_restore_kg(b.be, 0, &c) == 0, "big: restore");
    weir_buf_fini(&snap);
    big_verify(&b, "after the restore");
    clock_set(g_now + 30); /* every TTL value expires: reads and cleanup remove them */
    big_verify(&b, "after every TTL value expired");
    weir__backend_destroy(b.be);
    weir_manual_clock_destroy(g_clock);
    free(b.ver);
    free(b.tver);
    free(b.tstamp);
}

/*
 * Found by the random test: a RocksDB list of a state with TTL is a merge
 * of appends, and a read merges them; an asynchronous snapshot's read
 * dropped the elements expired at the clock of the read, not of the pin, so
 * elements that expired after the pin were missing from it.
 */
Test(state_model, rocksdb_snapshot_keeps_list_elements_expiring_after_its_pin)
{
    g_maxp = 128;
    g_lo = 0;
    g_hi = 128;
    g_now = 1000;
    g_clock = weir_manual_clock_create(g_now);
    make_base();
    char dir[300];
    weir__backend_config cfg = be_cfg(1, dir);
    weir__backend *be = NULL;
    cr_assert_eq(weir__backend_create(&cfg, &be), 0);
    weir_state_desc d = {.name = "l", .kind = WEIR_STATE_LIST, .ttl_ms = 10};
    weir_state *l;
    cr_assert_eq(weir__backend_register(be, &d, &l), 0);
    cr_assert_eq(weir__backend_set_key(be, "k", 1, weir_key_hash("k", 1)), 0);
    cr_assert_eq(weir_list_add(l, NULL, 0, "a", 1), 0);
    cr_assert_eq(weir_list_add(l, NULL, 0, "b", 1), 0);
    weir_buf want, got;
    weir_buf_init(&want);
    weir_buf_init(&got);
    uint32_t kg = weir_key_group(weir_key_hash("k", 1), 128);
    cr_assert_eq(weir__backend_snapshot_kg(be, kg, &want), 0);
    weir__backend_snap *s;
    cr_assert_eq(weir__backend_snapshot_begin(be, &s), 0);
    clock_set(g_now + 10); /* both expire after the pin */
    cr_assert_eq(weir__backend_snap_kg(s, kg, &got), 0);
    cr_assert(eq(got.data, got.len, want.data, want.len), "the snapshot lost what lived at its pin (%zu bytes, %zu)",
              got.len, want.len);
    weir__backend_snap_release(s);
    weir_buf_fini(&want);
    weir_buf_fini(&got);
    weir__backend_destroy(be);
    weir_manual_clock_destroy(g_clock);
    nftw(g_base, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}
