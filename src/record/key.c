/*
 * record/key.c - canonical key encoding, key hashing and key-group ranges.
 * The encoding depends only on the values, never on batch layout, so the
 * same key always maps to the same key group and the same state entry.
 */
#include <string.h>
#include <xxhash.h>

#include "weir/key.h"

size_t weir_key_encode(const weir_batch *b, const weir_keyspec *ks, uint32_t row, uint8_t *buf, size_t cap)
{
    size_t n = 0;
    for (uint32_t i = 0; i < ks->n; i++) {
        uint32_t col = ks->cols[i];
        const weir_column *c = &b->cols[col];
        bool null = weir_batch_is_null(b, col, row);
        if (n < cap)
            buf[n] = null ? 0 : 1;
        n++;
        if (null)
            continue;
        if (weir_type_is_varlen(c->type.id)) {
            weir_strref r = WEIR_COL_STR(b, col)[row];
            if (n + 4 + r.len <= cap) {
                memcpy(buf + n, &r.len, 4);
                if (r.len) /* an all-empty batch may have no heap at all */
                    memcpy(buf + n + 4, b->heap + r.off, r.len);
            }
            n += 4 + r.len;
        } else {
            size_t w = weir_type_size(c->type);
            const char *v = (const char *)c->data + (size_t)row * w;
            if (n + w <= cap) {
                if (w == 8) /* the common widths as constants: a load and a store, not a call */
                    memcpy(buf + n, v, 8);
                else if (w == 4)
                    memcpy(buf + n, v, 4);
                else
                    memcpy(buf + n, v, w);
            }
            n += w;
        }
    }
    return n;
}

uint64_t weir_key_hash(const void *key, size_t len) { return XXH3_64bits(key, len); }

void weir_key_group_range(uint32_t i, uint32_t p, uint32_t max_parallelism, uint32_t *lo, uint32_t *hi)
{
    uint64_t m = max_parallelism;
    *lo = (uint32_t)((i * m + p - 1) / p);
    *hi = (uint32_t)(((i + 1) * m + p - 1) / p);
}
