/*
 * agg/vmap.c - the value multiset behind COUNT_DISTINCT and the
 * retractable MIN/MAX/FIRST/LAST: distinct values with counts.
 *
 * Entries keep their number while they live (removed ones are chained in a
 * free list through hpos and reused), so owners can refer to them; an
 * open-addressing index with linear probing and backward-shift deletion
 * (no tombstones) finds them. The index is kept at most half full. String bytes
 * go to one arena; removed strings become garbage that is compacted away before
 * an insert when it exceeds half the arena.
 */
#include <stdlib.h>

#include "agg/agg_internal.h"

void weir__vmap_init(vmap *m, vkind kind)
{
    memset(m, 0, sizeof *m);
    m->kind = kind;
    m->free = UINT32_MAX;
}

void weir__vmap_fini(vmap *m)
{
    weir_free(m->e);
    weir_free(m->slot);
    weir_free(m->arena);
    vkind k = m->kind;
    weir__vmap_init(m, k);
}

static uint32_t slot_home(const vmap *m, uint64_t hash)
{
    return (uint32_t)(hash & (m->nslot - 1));
}

static void index_put(uint32_t *slot, uint32_t nslot, uint64_t hash,
                      uint32_t idx)
{
    uint32_t s = (uint32_t)(hash & (nslot - 1));
    while (slot[s])
        s = (s + 1) & (nslot - 1);
    slot[s] = idx + 1;
}

static int grow_index(vmap *m, uint32_t want_entries)
{
    uint32_t ns = m->nslot ? m->nslot : 16;
    while (ns / 2 < want_entries) {
        if (ns > (1u << 30))
            return WEIR_ENOMEM;
        ns *= 2;
    }
    if (ns == m->nslot)
        return 0;
    uint32_t *slot = weir_calloc(ns, sizeof *slot);
    if (!slot)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < m->top; i++)
        if (vmap_live(m, i))
            index_put(slot, ns, m->e[i].hash, i);
    weir_free(m->slot);
    m->slot = slot;
    m->nslot = ns;
    return 0;
}

/* Rewrites the arena without the bytes of removed strings. */
static int compact_arena(vmap *m)
{
    size_t live = m->alen - m->agarbage;
    char *a = weir_malloc(live ? live : 1);
    if (!a)
        return WEIR_ENOMEM;
    size_t off = 0;
    for (uint32_t i = 0; i < m->top; i++) {
        if (!vmap_live(m, i))
            continue;
        memcpy(a + off, m->arena + m->e[i].bits, m->e[i].len);
        m->e[i].bits = off;
        off += m->e[i].len;
    }
    weir_free(m->arena);
    m->arena = a;
    m->alen = off;
    m->acap = live ? live : 1;
    m->agarbage = 0;
    return 0;
}

int weir__vmap_reserve(vmap *m, uint32_t extra, size_t bytes)
{
    if (extra > UINT32_MAX - 1 - m->n)
        return WEIR_ENOMEM;
    uint32_t want = m->n + extra;
    /* Free entries below top are reused first; the rest come after top. */
    uint32_t from_top = extra > m->top - m->n ? extra - (m->top - m->n) : 0;
    if (from_top > m->cap - m->top) {
        uint32_t need = m->top + from_top;
        uint32_t cap = m->cap ? m->cap : 8;
        while (cap < need)
            cap = cap > UINT32_MAX / 2 ? need : cap * 2;
        vent *e = weir_realloc(m->e, (size_t)cap * sizeof *e);
        if (!e)
            return WEIR_ENOMEM;
        m->e = e;
        m->cap = cap;
    }
    int rc = grow_index(m, want);
    if (rc)
        return rc;
    if (vk_bytes(m->kind) && bytes) {
        if (m->agarbage > 4096 && m->agarbage * 2 > m->alen) {
            rc = compact_arena(m);
            if (rc)
                return rc;
        }
        if (m->alen + bytes > m->acap) {
            size_t cap = m->acap ? m->acap : 256;
            while (cap < m->alen + bytes)
                cap *= 2;
            char *a = weir_realloc(m->arena, cap);
            if (!a)
                return WEIR_ENOMEM;
            m->arena = a;
            m->acap = cap;
        }
    }
    return 0;
}

int64_t weir__vmap_find(const vmap *m, const aggv *v, uint64_t hash)
{
    if (!m->nslot)
        return -1;
    uint32_t s = slot_home(m, hash);
    for (;;) {
        uint32_t x = m->slot[s];
        if (!x)
            return -1;
        const vent *e = &m->e[x - 1];
        if (e->hash == hash) {
            aggv k;
            vmap_key(m, x - 1, &k);
            if (weir__agg_eq(m->kind, &k, v))
                return x - 1;
        }
        s = (s + 1) & (m->nslot - 1);
    }
}

uint32_t weir__vmap_insert(vmap *m, const aggv *v, uint64_t hash)
{
    uint32_t i;
    if (m->free != UINT32_MAX) {
        i = m->free;
        m->free = m->e[i].hpos;
    } else {
        i = m->top++;
    }
    m->n++;
    vent *e = &m->e[i];
    memset(e, 0, sizeof *e);
    e->hash = hash;
    if (vk_bytes(m->kind)) {
        if (v->len)
            memcpy(m->arena + m->alen, v->s, v->len);
        e->bits = m->alen;
        e->len = v->len;
        m->alen += v->len;
    } else {
        e->bits = v->bits;
    }
    index_put(m->slot, m->nslot, hash, i);
    return i;
}

static uint32_t find_slot_of(const vmap *m, uint32_t idx)
{
    uint32_t s = slot_home(m, m->e[idx].hash);
    while (m->slot[s] != idx + 1)
        s = (s + 1) & (m->nslot - 1);
    return s;
}

void weir__vmap_remove(vmap *m, uint32_t i)
{
    uint32_t mask = m->nslot - 1;
    /* Backward-shift deletion keeps every probe sequence unbroken. */
    uint32_t hole = find_slot_of(m, i);
    uint32_t j = hole;
    for (;;) {
        j = (j + 1) & mask;
        uint32_t x = m->slot[j];
        if (!x)
            break;
        uint32_t home = slot_home(m, m->e[x - 1].hash);
        /* Move x back if its home is not cyclically within (hole, j]. */
        bool within =
            hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (!within) {
            m->slot[hole] = x;
            hole = j;
        }
    }
    m->slot[hole] = 0;
    if (vk_bytes(m->kind))
        m->agarbage += m->e[i].len;
    m->e[i].count = -1;
    m->e[i].len = 0;
    m->e[i].hpos = m->free;
    m->free = i;
    m->n--;
}

typedef struct sort_ctx {
    const vmap *m;
} sort_ctx;

static int cmp_entries(const void *pa, const void *pb, void *ud)
{
    const sort_ctx *c = ud;
    aggv a, b;
    vmap_key(c->m, *(const uint32_t *)pa, &a);
    vmap_key(c->m, *(const uint32_t *)pb, &b);
    return weir__agg_cmp(c->m->kind, &a, &b);
}

int weir__vmap_sorted(const vmap *m, uint32_t **out)
{
    uint32_t *ix = weir_malloc(((size_t)m->n + 1) * sizeof *ix);
    if (!ix)
        return WEIR_ENOMEM;
    uint32_t k = 0;
    for (uint32_t i = 0; i < m->top; i++)
        if (vmap_live(m, i))
            ix[k++] = i;
    sort_ctx c = {m};
    qsort_r(ix, m->n, sizeof *ix, cmp_entries, &c);
    *out = ix;
    return 0;
}

int weir__vmap_put_counts(weir_buf *out, const vmap *m)
{
    uint32_t n = m ? m->n : 0;
    int rc = weir_buf_put_varint(out, n);
    if (rc || n == 0)
        return rc;
    uint32_t *ix;
    rc = weir__vmap_sorted(m, &ix);
    if (rc)
        return rc;
    for (uint32_t i = 0; i < n && !rc; i++) {
        aggv v;
        vmap_key(m, ix[i], &v);
        rc = weir__agg_put_value(out, m->kind, &v);
        if (!rc)
            rc = weir_buf_put_varint(out, (uint64_t)m->e[ix[i]].count);
    }
    weir_free(ix);
    return rc;
}

int weir__vmap_get_counts(weir_cursor *in, vmap *m, int64_t max_total,
                          int64_t *total)
{
    uint64_t n;
    *total = 0;
    if (weir_cursor_get_varint(in, &n) || n > (uint64_t)max_total ||
        n > UINT32_MAX)
        return WEIR_ECORRUPT;
    aggv prev = {0};
    for (uint64_t i = 0; i < n; i++) {
        aggv v;
        uint64_t c;
        if (weir__agg_get_value(in, m->kind, &v) ||
            weir_cursor_get_varint(in, &c) || c == 0 ||
            c > (uint64_t)(max_total - *total))
            return WEIR_ECORRUPT;
        /* Strictly ascending: canonical, and no value twice. */
        if (i > 0 && weir__agg_cmp(m->kind, &prev, &v) >= 0)
            return WEIR_ECORRUPT;
        int rc = weir__vmap_reserve(m, 1, v.len);
        if (rc)
            return rc;
        uint32_t idx = weir__vmap_insert(m, &v, weir__agg_hash(m->kind, &v));
        m->e[idx].count = (int64_t)c;
        *total += (int64_t)c;
        prev = v; /* points into the cursor's memory, which stays put */
    }
    return 0;
}
