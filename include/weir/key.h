/*
 * weir/key.h - keys, key groups and their owners.
 *
 * A key is the canonical byte encoding of the key columns of a row (see
 * weir_key_encode); equal values always give equal bytes, whatever batch they
 * came from. kg = hash(key) mod max_parallelism; subtask i of parallelism p
 * owns key groups [ceil(i*M/p), ceil((i+1)*M/p)), so the owner of kg is
 * floor(kg*p/M). Rescaling moves whole key groups.
 */
#ifndef WEIR_KEY_H
#define WEIR_KEY_H

#include "weir/batch.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WEIR_KEY_MAX_COLS 16
#define WEIR_DEFAULT_MAX_PARALLELISM 128

/* Which columns form the key. n == 0 means "no key" (all rows share the empty key). */
typedef struct weir_keyspec {
    uint32_t n;
    uint32_t cols[WEIR_KEY_MAX_COLS];
} weir_keyspec;

/*
 * Encodes the key of `row` into buf (cap bytes). Returns the encoded length;
 * a result > cap means buf was too small and nothing useful was written.
 * Encoding per column: a NULL flag byte, then the fixed-width value in
 * little-endian, or a u32 length and the bytes for STRING/BYTES.
 */
size_t weir_key_encode(const weir_batch *b, const weir_keyspec *ks, uint32_t row, uint8_t *buf, size_t cap);
uint64_t weir_key_hash(const void *key, size_t len);
static inline uint32_t weir_key_group(uint64_t hash, uint32_t max_parallelism)
{
    /* A power of two (the default 128) takes a mask, the same group as the
     * remainder, not a 64-bit division (tens of cycles, several a row on
     * a keyed operator's path). */
    if ((max_parallelism & (max_parallelism - 1)) == 0)
        return (uint32_t)(hash & (max_parallelism - 1));
    return (uint32_t)(hash % max_parallelism);
}
static inline uint32_t weir_key_group_owner(uint32_t kg, uint32_t max_parallelism, uint32_t parallelism)
{
    return (uint32_t)(((uint64_t)kg * parallelism) / max_parallelism);
}
/* Key groups [*lo, *hi) owned by subtask i of p. */
void weir_key_group_range(uint32_t i, uint32_t p, uint32_t max_parallelism, uint32_t *lo, uint32_t *hi);

#ifdef __cplusplus
}
#endif
#endif
