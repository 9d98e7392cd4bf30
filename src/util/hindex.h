/*
 * src/util/hindex.h - an open-addressing index (linear probing) of entry
 * numbers by a 64-bit hash: slot = entry number + 1, 0 empty. The entries
 * live in the caller's array, each with its hash as its first field; the
 * caller keeps the index at most half full by growing it.
 */
#ifndef WEIR_UTIL_HINDEX_H
#define WEIR_UTIL_HINDEX_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "weir/common.h"

/*
 * The home slot bits of a key hash in a table of a keyed operator. The low
 * bits of a key's hash decide its key group (hash mod max parallelism), and
 * a subtask owns a contiguous range of key groups: at parallelism 2 with
 * max parallelism 128, every key of subtask 0 has bit 6 clear. A table that
 * took its slot from the low bits would use half (a quarter at parallelism
 * 4, ...) of its home slots, and linear probing runs long through the
 * clusters. The high half is independent of the key group.
 */
static inline uint32_t weir__hash_slot(uint64_t h)
{
    return (uint32_t)(h >> 32);
}

/* Rebuilds the index at twice its size (first 256 slots) over n entries every stride bytes from ents. */
static inline int weir__hindex_grow(uint32_t **slots, uint32_t *n_slots, const void *ents, size_t stride, uint32_t n)
{
    uint32_t cap = *n_slots ? *n_slots * 2 : 256;
    uint32_t *s = weir_calloc(cap, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    for (uint32_t e = 0; e < n; e++) {
        uint64_t h;
        memcpy(&h, (const char *)ents + (size_t)e * stride, sizeof h);
        uint32_t i = weir__hash_slot(h) & (cap - 1);
        while (s[i])
            i = (i + 1) & (cap - 1);
        s[i] = e + 1;
    }
    weir_free(*slots);
    *slots = s;
    *n_slots = cap;
    return 0;
}

#endif
