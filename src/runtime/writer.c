/*
 * runtime/writer.c - exchanges: one writer per (producer subtask, edge)
 * routes the rows of each emitted batch to the channels of the consumer
 * subtasks.
 *
 * Rows are scattered column-wise: the writer first computes the target of
 * every row into per-target row-index lists, then gathers each list into that
 * target's staging batch (weir_batch_gather), which goes into the channel
 * when full, and at every control message (so that rows never overtake or
 * fall behind the watermark, barrier or end that followed them). Staging
 * batches come from the channel's pool; nothing is allocated per record.
 *
 * KEYED: target = owner of the key group of the row's key (weir/key.h), via
 * a key-group -> subtask table. The hashes travel with the rows
 * (weir_batch.key_hash), so a keyed consumer does not hash them again. REBALANCE: each emitted batch goes whole to
 * the next subtask in turn. BROADCAST: every row to every subtask. GLOBAL:
 * every row to subtask 0. FORWARD: to the one channel the writer has.
 * Control messages go to every channel, whatever the partitioning.
 */
#include <string.h>

#include "runtime/runtime.h"

/*
 * The hash of the key decides the key group, so it must be exactly
 * weir_key_hash (XXH3-64); inlining the same function here saves a call per
 * row on the hottest loop of an exchange.
 */
/* gcc 12 at -O3 misreads xxhash's inlined 16-byte reads as out of bounds. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#define XXH_INLINE_ALL
#include <xxhash.h>
#pragma GCC diagnostic pop
#define row_hash(p, n) XXH3_64bits((p), (n))

int weir__writer_init(weir__writer *w, weir__subtask *st, weir__edge *edge,
                      weir__channel **targets, uint32_t n)
{
    memset(w, 0, sizeof *w);
    w->st = st;
    w->edge = edge;
    w->part = edge->part;
    w->key = edge->key;
    w->max_par = st->job->cfg.max_parallelism;
    w->n = n;
    weir_buf_init(&w->bigkey);
    w->ch = weir_calloc(n, sizeof *w->ch);
    w->stage = weir_calloc(n, sizeof *w->stage);
    w->tidx = weir_calloc(n, sizeof *w->tidx);
    w->tn = weir_calloc(n, sizeof *w->tn);
    if (!w->ch || !w->stage || !w->tidx || !w->tn)
        return WEIR_ENOMEM;
    memcpy(w->ch, targets, n * sizeof *targets);
    if (w->part == WEIR_PART_KEYED) {
        w->kg_owner = weir_calloc(w->max_par, sizeof *w->kg_owner);
        if (!w->kg_owner)
            return WEIR_ENOMEM;
        for (uint32_t kg = 0; kg < w->max_par; kg++)
            w->kg_owner[kg] = weir_key_group_owner(kg, w->max_par, n);
    }
    return 0;
}

void weir__writer_fini(weir__writer *w)
{
    if (w->stage)
        for (uint32_t t = 0; t < w->n; t++)
            if (w->stage[t])
                weir__channel_unacquire(w->ch[t], w->stage[t]);
    if (w->tidx)
        for (uint32_t t = 0; t < w->n; t++)
            weir_free(w->tidx[t]);
    weir_free(w->tidx);
    weir_free(w->tn);
    weir_free(w->stage);
    weir_free(w->ch);
    weir_free(w->iota);
    weir_free(w->rhash);
    weir_free(w->kbuf);
    weir_free(w->kg_owner);
    weir_buf_fini(&w->bigkey);
}

static int push_stage(weir__writer *w, uint32_t t)
{
    weir_batch *b = w->stage[t];
    w->stage[t] = NULL;
    weir__msg m = {.type = WEIR__MSG_BATCH, .batch = b};
    int64_t blocked = 0;
    int rc = weir__channel_push(w->ch[t], &m, &blocked);
    if (blocked)
        WEIR__ADD(&w->st->backpressured_ns, blocked);
    if (rc > 0) {
        w->st->wake_pending = true;
        rc = 0;
    }
    if (rc)
        weir__channel_unacquire(w->ch[t], b);
    return rc;
}

/*
 * Appends rows idx[0..n) of b to target t's staging batch, pushing full ones.
 * hash: the key hash of every row of b (a keyed exchange), or NULL; the
 * stage keeps them while all its rows have one.
 */
static int append_rows(weir__writer *w, uint32_t t, const weir_batch *b,
                       const uint32_t *idx, uint32_t n, const uint64_t *hash)
{
    while (n > 0) {
        if (!w->stage[t]) {
            int rc = weir__channel_acquire(w->ch[t], &w->stage[t]);
            if (rc)
                return rc;
        }
        weir_batch *s = w->stage[t];
        uint32_t room = s->capacity - s->n_rows;
        uint32_t k = n < room ? n : room;
        int rc = hash ? weir_batch_gather_hashed(s, b, idx, k, hash, &w->key)
                      : weir_batch_gather(s, b, idx, k);
        if (rc)
            return rc;
        idx += k;
        n -= k;
        if (weir_batch_full(s) && (rc = push_stage(w, t)))
            return rc;
    }
    return 0;
}

static int ensure_idx(weir__writer *w, uint32_t n)
{
    if (n <= w->idx_cap)
        return 0;
    uint32_t cap = w->idx_cap ? w->idx_cap : 64;
    while (cap < n)
        cap *= 2;
    uint32_t *iota = weir_realloc(w->iota, cap * sizeof *iota);
    if (!iota)
        return WEIR_ENOMEM;
    w->iota = iota;
    for (uint32_t i = 0; i < cap; i++)
        iota[i] = i;
    if (w->part == WEIR_PART_KEYED) {
        for (uint32_t t = 0; t < w->n; t++) {
            uint32_t *x = weir_realloc(w->tidx[t], cap * sizeof *x);
            if (!x)
                return WEIR_ENOMEM;
            w->tidx[t] = x;
        }
        uint64_t *h = weir_realloc(w->rhash, cap * sizeof *h);
        if (!h)
            return WEIR_ENOMEM;
        w->rhash = h;
        /* encoded fixed-width keys: a flag byte and up to 8 bytes */
        uint8_t *kb = weir_realloc(w->kbuf, (size_t)cap * 9);
        if (!kb)
            return WEIR_ENOMEM;
        w->kbuf = kb;
    }
    w->idx_cap = cap;
    return 0;
}

/* All rows of b to target t. A whole batch into an empty stage is one copy per
 * column. */
static int append_all(weir__writer *w, uint32_t t, const weir_batch *b)
{
    if (!w->stage[t]) {
        int rc = weir__channel_acquire(w->ch[t], &w->stage[t]);
        if (rc)
            return rc;
    }
    weir_batch *s = w->stage[t];
    if (s->n_rows == 0 && b->n_rows <= s->capacity) {
        int rc = weir_batch_copy(s, b);
        if (rc)
            return rc;
        return weir_batch_full(s) ? push_stage(w, t) : 0;
    }
    return append_rows(w, t, b, w->iota, b->n_rows, NULL);
}

/* The hash of an encoded key of any length (a call; see hash_fixed). */
__attribute__((noinline)) static uint64_t hash_any(const void *p, size_t n)
{
    return row_hash(p, n);
}

/*
 * Encodes n values of wd bytes each into kb as weir_key_encode does: a flag
 * byte 1, then the value. Always inlined, so that each constant width's
 * copy is one load and one store, not a copy of a variable length (17
 * instructions a row). The loops on this path are unrolled: their own
 * count, compare and branch are as many instructions as a row's work.
 */
static inline __attribute__((always_inline)) void
encode_fixed(const uint8_t *data, size_t wd, uint32_t n, uint8_t *kb)
{
    const size_t kw = wd + 1;
#pragma GCC unroll 4
    for (uint32_t r = 0; r < n; r++) {
        kb[(size_t)r * kw] = 1;
        memcpy(kb + (size_t)r * kw + 1, data + (size_t)r * wd, wd);
    }
}

/*
 * The key hashes of n values of one fixed-width column without NULLs (wd
 * <= 8 bytes each), encoded as weir_key_encode does. The keys are encoded
 * into kb (n * (wd + 1) bytes) first and hashed in a second loop: hashing a
 * key right after storing it stalls on store forwarding (XXH3 reads it back
 * as two overlapping words). flatten inlines XXH3 into the loops, where the
 * constant lengths leave only its short-input paths (a call per row took a
 * third of a source subtask's time in a keyed job at parallelism 2).
 */
__attribute__((flatten)) static void hash_fixed(const uint8_t *data,
                                                size_t wd, uint32_t n,
                                                uint8_t *kb, uint64_t *out)
{
    switch (wd) {
    case 8:
        encode_fixed(data, 8, n, kb);
#pragma GCC unroll 4
        for (uint32_t r = 0; r < n; r++)
            out[r] = row_hash(kb + (size_t)r * 9, 9);
        break;
    case 4:
        encode_fixed(data, 4, n, kb);
#pragma GCC unroll 4
        for (uint32_t r = 0; r < n; r++)
            out[r] = row_hash(kb + (size_t)r * 5, 5);
        break;
    default:
        encode_fixed(data, wd, n, kb);
        for (uint32_t r = 0; r < n; r++)
            out[r] = hash_any(kb + (size_t)r * (wd + 1), wd + 1);
    }
}

static int scatter_keyed(weir__writer *w, const weir_batch *b)
{
    uint32_t n = b->n_rows, m = w->max_par;
    uint64_t *hash = w->rhash;
    const weir_keyspec *ks = &w->key;
    const weir_column *c0 = ks->n == 1 ? &b->cols[ks->cols[0]] : NULL;
    if (c0 && c0->all_valid && !weir_type_is_varlen(c0->type.id) &&
        weir_type_size(c0->type) <= 8) {
        /* One fixed-width key column without NULLs: the encoding is a flag byte
         * and the value. */
        hash_fixed(c0->data, weir_type_size(c0->type), n, w->kbuf, hash);
    } else {
        uint8_t buf[256];
        for (uint32_t r = 0; r < n; r++) {
            const uint8_t *k = buf;
            size_t len = weir_key_encode(b, ks, r, buf, sizeof buf);
            if (len > sizeof buf) {
                weir_buf_clear(&w->bigkey);
                int rc = weir_buf_reserve(&w->bigkey, len);
                if (rc)
                    return rc;
                weir_key_encode(b, ks, r, w->bigkey.data, len);
                k = w->bigkey.data;
            }
            hash[r] = hash_any(k, len);
        }
    }
    /* Each row's target: the owner of its key group (weir_key_group); a
     * power-of-two max parallelism (the default 128) takes a mask instead
     * of a 64-bit division. Counts and lists in locals, so that the stores
     * of row indices do not make the compiler reload them every row. */
    const uint32_t *owner = w->kg_owner;
    uint32_t **tidx = w->tidx;
    uint32_t nt = w->n;
    uint32_t cnt[8] = {0};
    if (nt <= 8 && (m & (m - 1)) == 0) {
        const uint64_t mask = m - 1;
#pragma GCC unroll 4
        for (uint32_t r = 0; r < n; r++) {
            uint32_t t = owner[hash[r] & mask];
            tidx[t][cnt[t]++] = r;
        }
        for (uint32_t t = 0; t < nt; t++)
            w->tn[t] = cnt[t];
    } else {
        for (uint32_t t = 0; t < nt; t++)
            w->tn[t] = 0;
        for (uint32_t r = 0; r < n; r++) {
            uint32_t t = owner[weir_key_group(hash[r], m)];
            tidx[t][w->tn[t]++] = r;
        }
    }
    for (uint32_t t = 0; t < nt; t++)
        if (w->tn[t]) {
            int rc = append_rows(w, t, b, w->tidx[t], w->tn[t], hash);
            if (rc)
                return rc;
        }
    return 0;
}

int weir__writer_emit(weir__writer *w, const weir_batch *b)
{
    if (b->n_rows == 0)
        return 0;
    int rc = ensure_idx(w, b->n_rows);
    if (rc)
        return rc;
    switch (w->part) {
    case WEIR_PART_KEYED:
        /* one target owns every key group: no row needs hashing */
        return w->n == 1 ? append_all(w, 0, b) : scatter_keyed(w, b);
    case WEIR_PART_REBALANCE: {
        uint32_t t = w->rr;
        w->rr = (w->rr + 1) % w->n;
        return append_all(w, t, b);
    }
    case WEIR_PART_BROADCAST:
        for (uint32_t t = 0; t < w->n; t++)
            if ((rc = append_all(w, t, b)))
                return rc;
        return 0;
    case WEIR_PART_FORWARD:
    case WEIR_PART_GLOBAL:
        return append_all(w, 0, b);
    }
    return WEIR_EINVAL;
}

/*
 * The one target that takes every row of a batch, or -1 when the rows may
 * spread over several (a keyed exchange into more than one subtask, a
 * broadcast). Advances the rebalance cursor when it answers.
 */
static int whole_target(weir__writer *w)
{
    switch (w->part) {
    case WEIR_PART_KEYED:
        return w->n == 1 ? 0 : -1;
    case WEIR_PART_REBALANCE: {
        uint32_t t = w->rr;
        w->rr = (w->rr + 1) % w->n;
        return (int)t;
    }
    case WEIR_PART_FORWARD:
    case WEIR_PART_GLOBAL:
        return 0;
    case WEIR_PART_BROADCAST:
        return w->n == 1 ? 0 : -1;
    }
    return -1;
}

int weir__writer_emit_handoff(weir__writer *w, weir_batch **b)
{
    weir_batch *x = *b;
    if (x->n_rows == 0)
        return 0;
    /*
     * A batch of the channel's schema and size can travel as it is. Anything
     * else (rows for several targets, a partly filled stage that the rows
     * must follow, another shape) is copied as weir__writer_emit does.
     */
    uint32_t t0 = w->rr;
    int t = whole_target(w);
    if (t < 0)
        return weir__writer_emit(w, x);
    weir__channel *ch = w->ch[t];
    weir_batch *stage = w->stage[t];
    if (x->schema != ch->schema || x->capacity != ch->batch_size ||
        (stage && stage->n_rows > 0)) {
        w->rr = t0; /* weir__writer_emit picks the target itself */
        return weir__writer_emit(w, x);
    }
    /* the replacement comes first: should that fail, nothing has moved */
    weir_batch *swap = stage;
    w->stage[t] = NULL;
    if (!swap) {
        int rc = weir__channel_acquire(ch, &swap);
        if (rc)
            return rc;
    }
    weir__msg m = {.type = WEIR__MSG_BATCH, .batch = x};
    int64_t blocked = 0;
    int rc = weir__channel_push(ch, &m, &blocked);
    if (blocked)
        WEIR__ADD(&w->st->backpressured_ns, blocked);
    if (rc < 0) {
        weir__channel_unacquire(ch, swap);
        return rc;
    }
    if (rc > 0)
        w->st->wake_pending = true;
    weir_batch_reset(swap);
    *b = swap;
    return 0;
}

int weir__writer_flush(weir__writer *w)
{
    for (uint32_t t = 0; t < w->n; t++)
        if (w->stage[t] && w->stage[t]->n_rows > 0) {
            int rc = push_stage(w, t);
            if (rc)
                return rc;
        }
    return 0;
}

void weir__writer_notify(weir__writer *w)
{
    for (uint32_t t = 0; t < w->n; t++)
        weir__channel_notify(w->ch[t]);
}

int weir__writer_control(weir__writer *w, const weir__msg *m)
{
    int rc = weir__writer_flush(w);
    if (rc)
        return rc;
    for (uint32_t t = 0; t < w->n; t++) {
        int64_t blocked = 0;
        rc = weir__channel_push(w->ch[t], m, &blocked);
        if (blocked)
            WEIR__ADD(&w->st->backpressured_ns, blocked);
        if (rc > 0) {
            w->st->wake_pending = true;
            rc = 0;
        }
        if (rc)
            return rc;
    }
    return 0;
}

int weir__writer_barrier_unaligned(weir__writer *w, uint64_t id)
{
    for (uint32_t t = 0; t < w->n; t++) {
        /* Staged rows were emitted before the snapshot: they go in front of
         * the barrier's position, so the barrier overtakes them too. */
        weir_batch *staged = NULL;
        if (w->stage[t] && w->stage[t]->n_rows > 0) {
            staged = w->stage[t];
            w->stage[t] = NULL;
        }
        int rc = weir__channel_push_barrier(w->ch[t], id, staged);
        if (rc) {
            if (staged)
                weir__channel_unacquire(w->ch[t], staged);
            return rc;
        }
    }
    return 0;
}
