/*
 * src/util/bytes.h - the order of byte strings (serialized keys), the one
 * every sort of keys in state and snapshots uses: bytewise, and a string
 * before every longer string that starts with it (memcmp's order, then the
 * length).
 */
#ifndef WEIR_UTIL_BYTES_H
#define WEIR_UTIL_BYTES_H

#include <stddef.h>
#include <string.h>

/* < 0, 0 or > 0 as a sorts before, with or after b; a or b may be NULL
 * when its length is 0. */
static inline int weir__bytes_cmp(const void *a, size_t alen, const void *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen;
    int c = n ? memcmp(a, b, n) : 0;
    if (c)
        return c;
    return (alen > blen) - (alen < blen);
}

#endif
