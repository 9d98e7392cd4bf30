/*
 * connector/kafka/upsert.c - the last row of every key of one partition, for
 * the 'upsert-kafka' source (what Flink's ChangelogNormalize keeps).
 *
 * Keys are the message keys as bytes, as Kafka's log compaction compares
 * them. An entry whose key was deleted (a tombstone) stays in the table
 * without a row, so the index never needs deletion; it is left out of the
 * serialized form. The table is serialized into the split's checkpointed
 * position, so a restore emits -U/+U and -D against the rows the
 * checkpoint's offsets had produced.
 */
#ifdef WEIR_HAVE_KAFKA

#include <string.h>

#include "connector/kafka/upsert.h"
#include "util/hindex.h"
#include "weir/key.h"

void weir__kafka_utab_init(weir__kafka_utab *t)
{
    memset(t, 0, sizeof *t);
}

void weir__kafka_utab_fini(weir__kafka_utab *t)
{
    for (uint32_t i = 0; i < t->n; i++) {
        weir_free(t->ents[i].key);
        weir_free(t->ents[i].row);
    }
    weir_free(t->ents);
    weir_free(t->slots);
    memset(t, 0, sizeof *t);
}

weir__kafka_uent *weir__kafka_utab_find(weir__kafka_utab *t, const void *key,
                                        uint32_t klen)
{
    if (!t->n_slots)
        return NULL;
    uint64_t h = weir_key_hash(key, klen);
    for (uint32_t i = weir__hash_slot(h) & (t->n_slots - 1); t->slots[i];
         i = (i + 1) & (t->n_slots - 1)) {
        weir__kafka_uent *e = &t->ents[t->slots[i] - 1];
        if (e->hash == h && e->klen == klen && !memcmp(e->key, key, klen))
            return e;
    }
    return NULL;
}

int weir__kafka_utab_put(weir__kafka_utab *t, const void *key, uint32_t klen,
                         const void *row, uint32_t rlen)
{
    weir__kafka_uent *e = weir__kafka_utab_find(t, key, klen);
    void *copy = weir_malloc(rlen ? rlen : 1);
    if (!copy)
        return WEIR_ENOMEM;
    memcpy(copy, row, rlen);
    if (e) {
        if (!e->row)
            t->n_live++;
        weir_free(e->row);
        e->row = copy;
        e->rlen = rlen;
        return 0;
    }
    if ((t->n + 1) * 2 > t->n_slots &&
        weir__hindex_grow(&t->slots, &t->n_slots, t->ents, sizeof *t->ents,
                          t->n)) {
        weir_free(copy);
        return WEIR_ENOMEM;
    }
    if (t->n == t->cap) {
        uint32_t cap = t->cap ? t->cap * 2 : 64;
        weir__kafka_uent *ne = weir_realloc(t->ents, cap * sizeof *ne);
        if (!ne) {
            weir_free(copy);
            return WEIR_ENOMEM;
        }
        t->ents = ne;
        t->cap = cap;
    }
    void *kcopy = weir_malloc(klen ? klen : 1);
    if (!kcopy) {
        weir_free(copy);
        return WEIR_ENOMEM;
    }
    memcpy(kcopy, key, klen);
    uint64_t h = weir_key_hash(key, klen);
    t->ents[t->n] = (weir__kafka_uent){h, kcopy, klen, copy, rlen};
    uint32_t i = weir__hash_slot(h) & (t->n_slots - 1);
    while (t->slots[i])
        i = (i + 1) & (t->n_slots - 1);
    t->slots[i] = ++t->n;
    t->n_live++;
    return 0;
}

void weir__kafka_utab_delete(weir__kafka_utab *t, weir__kafka_uent *e)
{
    if (!e || !e->row)
        return;
    weir_free(e->row);
    e->row = NULL;
    e->rlen = 0;
    t->n_live--;
}

int weir__kafka_utab_save(const weir__kafka_utab *t, weir_buf *out)
{
    int rc = weir_buf_put_u32(out, t->n_live);
    for (uint32_t i = 0; !rc && i < t->n; i++) {
        const weir__kafka_uent *e = &t->ents[i];
        if (!e->row)
            continue;
        if (!(rc = weir_buf_put_bytes(out, e->key, e->klen)))
            rc = weir_buf_put_bytes(out, e->row, e->rlen);
    }
    return rc;
}

int weir__kafka_utab_load(weir__kafka_utab *t, weir_cursor *c)
{
    uint32_t n;
    if (weir_cursor_get_u32(c, &n))
        return WEIR_ECORRUPT;
    for (uint32_t i = 0; i < n; i++) {
        size_t klen, rlen;
        const void *k, *r;
        if (weir_cursor_get_bytes(c, &k, &klen) ||
            weir_cursor_get_bytes(c, &r, &rlen) || klen > UINT32_MAX ||
            rlen > UINT32_MAX)
            return WEIR_ECORRUPT;
        int rc = weir__kafka_utab_put(t, k, (uint32_t)klen, r, (uint32_t)rlen);
        if (rc)
            return rc;
    }
    return 0;
}

#endif
