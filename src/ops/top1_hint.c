/*
 * ops/top1_hint.c - the link between a join and its Top-1, and the hint
 * the Top-1 leaves the join (see top1_hint.h).
 *
 * The hint is a direct-mapped table of fixed 64-byte entries (the key's
 * hash, its bytes and the kept row's sort key, 54 bytes for both): a put
 * overwrites whatever held the slot. It starts at 1 024 entries and
 * doubles (the entries moved by their hash) while more than half of its
 * slots hold an entry, up to 65 536 (4 MiB): at most two entries' bytes
 * per partition the Top-1 has written, never more than the cap.
 */
#include <string.h>

#include "ops/rowcodec.h"
#include "ops/top1_hint.h"
#include "runtime/runtime.h"
#include "util/hindex.h"

#define ENT_BYTES 54
#define FIRST_SLOTS 1024u
#define MAX_SLOTS 65536u

typedef struct hint_ent {
    uint64_t hash;
    uint8_t klen, sklen; /* klen 0: empty (a partition key has at least its NULL flag) */
    uint8_t bytes[ENT_BYTES]; /* the key, then the sort key */
} hint_ent;

struct weir__top1_hint {
    hint_ent *ents; /* NULL until the first put */
    uint32_t n_slots, n_used;
};

weir__top1_link *weir__top1_link_new(void)
{
    weir__top1_link *l = weir_calloc(1, sizeof *l);
    if (l)
        l->refs = 1;
    return l;
}

weir__top1_link *weir__top1_link_ref(weir__top1_link *l)
{
    if (l)
        l->refs++;
    return l;
}

void weir__top1_link_unref(weir__top1_link *l)
{
    if (l && --l->refs == 0)
        weir_free(l);
}

static void *hint_make(void) { return weir_calloc(1, sizeof(weir__top1_hint)); }

static void hint_destroy(void *p)
{
    weir__top1_hint *h = p;
    weir_free(h->ents);
    weir_free(h);
}

weir__top1_hint *weir__top1_hint_of(weir_op_ctx *ctx, const weir__top1_link *l)
{
    return weir__op_chain_shared(ctx, l, hint_make, hint_destroy);
}

static inline uint32_t slot_of(uint64_t hash, uint32_t n_slots)
{
    return weir__hash_slot(hash) & (n_slots - 1);
}

/* Twice the slots, the entries moved; without memory the table stays as it is. */
static void grow(weir__top1_hint *h)
{
    uint32_t n = h->n_slots ? h->n_slots * 2 : FIRST_SLOTS;
    hint_ent *e = weir_calloc(n, sizeof *e);
    if (!e)
        return;
    uint32_t used = 0;
    for (uint32_t i = 0; i < h->n_slots; i++) {
        const hint_ent *o = &h->ents[i];
        if (!o->klen)
            continue;
        hint_ent *d = &e[slot_of(o->hash, n)];
        used += !d->klen;
        *d = *o;
    }
    weir_free(h->ents);
    h->ents = e;
    h->n_slots = n;
    h->n_used = used;
}

void weir__top1_hint_put(weir__top1_hint *h, uint64_t hash, const uint8_t *key, size_t klen, const uint8_t *sk,
                         size_t sklen)
{
    if (!h || !klen || klen + sklen > ENT_BYTES)
        return;
    if (!h->ents || (h->n_used * 2 > h->n_slots && h->n_slots < MAX_SLOTS))
        grow(h);
    if (!h->ents)
        return;
    hint_ent *e = &h->ents[slot_of(hash, h->n_slots)];
    h->n_used += !e->klen;
    e->hash = hash;
    e->klen = (uint8_t)klen;
    e->sklen = (uint8_t)sklen;
    memcpy(e->bytes, key, klen);
    if (sklen)
        memcpy(e->bytes + klen, sk, sklen);
}

/* memcmp order, then the shorter first (ops/rank.c's order of sort keys). */
static int sk_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    size_t m = alen < blen ? alen : blen;
    int c = m ? memcmp(a, b, m) : 0;
    return c ? c : (alen > blen) - (alen < blen);
}

bool weir__top1_hint_worse(const weir__top1_hint *h, const weir__top1_link *l, uint64_t hash, const uint8_t *key,
                           size_t klen, const weir_batch *in, uint32_t r, weir_buf *sk)
{
    if (!h || !h->ents)
        return false;
    const hint_ent *e = &h->ents[slot_of(hash, h->n_slots)];
    if (e->hash != hash || e->klen != klen || !klen || memcmp(e->bytes, key, klen))
        return false;
    weir_buf_clear(sk);
    for (uint32_t i = 0; i < l->n_order; i++)
        if (weir__sort_key_col(sk, in, l->cols[i], r, l->desc[i], l->nulls_last[i]))
            return false;
    return sk_cmp(sk->data, sk->len, e->bytes + klen, e->sklen) > 0;
}
