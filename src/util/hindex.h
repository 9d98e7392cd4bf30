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
        uint32_t i = (uint32_t)h & (cap - 1);
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
