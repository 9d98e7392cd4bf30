/*
 * record/nested.h - the encoding of ARRAY, MAP and ROW values.
 *
 * A nested value is stored like a BYTES value: a weir_strref to bytes in the
 * batch heap (or a weir_expr_str during evaluation). The bytes are:
 *   ARRAY<T>     u32 count, then count entries of T
 *   MAP<K, V>    u32 count, then count pairs: an entry of K, an entry of V
 *   MULTISET<T>  as MAP<T, INT NOT NULL>: each distinct element (NULL
 *                included) once, with its number of occurrences (>= 1)
 *   ROW<...>     one entry per field, in field order
 * An entry is a u8 flag (0 = NULL, 1 = a value) and, for a value, its bytes:
 *   BOOLEAN 1, INT 4, BIGINT / DOUBLE / TIMESTAMP(_LTZ) / DECIMAL(p <= 18) 8,
 *   DECIMAL(p > 18) 16 (the column's physical bytes, little-endian), and
 *   STRING, BYTES and nested values a u32 length and that many bytes.
 * The encoding of a value is unique, so two values are equal exactly when
 * their bytes are: keys, state and checkpoints treat them as opaque bytes.
 * For that a MAP (and a MULTISET) is kept in canonical form: its pairs ordered by key (NULL
 * first, numbers numerically, anything else bytewise) and each key once,
 * so maps with the same entries in any order have the same bytes. Every
 * producer of a MAP value (decoders, constructors) ends with
 * weir_nv_map_canon; values built from canonical parts stay canonical.
 *
 * Readers never read past the end they are given: a malformed value reads as
 * empty (count 0, every field NULL).
 */
#ifndef WEIR_RECORD_NESTED_H
#define WEIR_RECORD_NESTED_H

#include <string.h>

#include "weir/buf.h"
#include "weir/schema.h"

/* "ARRAY<INT>", "MAP<STRING, BIGINT NOT NULL>", "ROW<`a` INT, `b` STRING>". */
void weir__nested_format_type(weir_type t, char *buf, size_t cap);

/* Same structure at every level, nullability and ROW field names aside:
 * values of a and b have the same encoding, so a cast between them copies
 * the bytes. */
bool weir_nv_type_compatible(weir_type a, weir_type b);
/* t with every nested element and field nullable (t's own nullability kept). */
int weir_nv_type_relax(weir_type t, weir_type *out);

/* A cursor over the entries of one nested value. */
typedef struct weir_nv_iter {
    const uint8_t *p, *end;
} weir_nv_iter;

/* Starts reading value v (len bytes) of nested type t; returns its count
 * (elements, map pairs, or ROW fields). */
uint32_t weir_nv_open(weir_type t, const void *v, uint32_t len, weir_nv_iter *it);
/*
 * Reads the next entry, of type et: *is_null, and for a value its bytes
 * (*val, *vlen: the raw physical bytes of a fixed-width type, the content of
 * a STRING/BYTES/nested one). Returns false at the end or on malformed input.
 */
bool weir_nv_next(weir_nv_iter *it, weir_type et, bool *is_null, const uint8_t **val, uint32_t *vlen);

/* Writing: the header (ARRAY/MAP count), then one entry per element. */
int weir_nv_put_count(weir_buf *b, uint32_t n);
int weir_nv_put_null(weir_buf *b);
/* An entry of type et with the given bytes (as weir_nv_next returns them). */
int weir_nv_put(weir_buf *b, weir_type et, const void *val, uint32_t vlen);
/* Starts a nested entry whose length is patched by weir_nv_end_nested. */
int weir_nv_begin_nested(weir_buf *b, size_t *mark);
void weir_nv_end_nested(weir_buf *b, size_t mark);

/*
 * Puts the MAP or MULTISET value of type t that occupies b->data[at, b->len) (its
 * keys and values already canonical) in canonical form, in place: pairs
 * ordered by key, and of a key given more than once only the last pair
 * kept (as a Java map's put). A malformed value is left as it is.
 */
int weir_nv_map_canon(weir_buf *b, size_t at, weir_type t);

/* Width of a fixed-width entry's bytes, or 0 for STRING/BYTES/nested. */
static inline uint32_t weir_nv_fixed_width(weir_type et)
{
    return weir_type_is_varlen(et.id) ? 0 : (uint32_t)weir_type_size(et);
}

#endif
