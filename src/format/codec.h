/*
 * format/codec.h - the decoder and encoder structures shared by the JSON and
 * CSV codecs, and the helpers both use to store a decoded value.
 */
#ifndef WEIR_FORMAT_CODEC_H
#define WEIR_FORMAT_CODEC_H

#include "weir/format.h"

#define WEIR__JSON_MAX_DEPTH 512

struct weir_decoder {
    weir_format_options opt;
    char *null_literal; /* owned copy of opt.csv_null_literal */
    size_t null_literal_len;
    const weir_schema *schema;
    uint32_t ncols;
    char (*type_desc)[160]; /* "BIGINT", "DECIMAL(10, 2)", "ARRAY<INT>", per column */
    /* JSON key lookup: an open-addressing table of column index + 1. */
    uint32_t *slots;
    uint32_t slot_mask;
    uint32_t *name_len;
    uint32_t
        guess; /* the column expected next: keys usually keep their order */
    /* Per column: the bytes of its key as a record holds it, name + "\":"
     * (16 at most; 0: a name too long or one JSON escapes), matched
     * against the record in one comparison where the key expected next
     * stands. */
    char (*key_pat)[16];
    uint8_t *key_pat_len;
    /* Per record: which columns were seen (== gen) and which are NULL. */
    uint32_t *seen;
    uint32_t gen;
    uint8_t *isnull;
    weir_buf scratch; /* unescaped strings, CSV quoted fields */
    weir_buf nested;  /* the encoding of an ARRAY/MAP/ROW value being read */
    /* The record being decoded, for error positions. */
    const char *rec;
    weir_decode_error *err;
    bool oom; /* the failure was an allocation, not the input */
    /* weir_decoder_decode_line: a JSON object read straight from the
     * stream, its record ending at the first line break after it (which
     * whitespace between tokens then does not cross); line_end is that
     * break. */
    bool line_mode;
    const char *line_end;
    /* Per column: why a NULL there is a bad record although the type is
     * nullable (weir_decoder_require), or NULL. Owned. */
    char **require_why;
};

/* Refuses a schema whose nested types the format cannot store. */
int weir__format_nested_check(weir_format_kind kind, const weir_schema *schema, weir_error *err);

/* Sets the decode error at `at` (a pointer into the record); returns NULL. */
const char *weir__decode_fail(weir_decoder *d, const char *at, const char *fmt,
                              ...) __attribute__((format(printf, 3, 4)));

/*
 * Whether column col may not be NULL, and if so fails the record at `at`:
 * "expected a non-null value for ... field "x" ..., found <found>".
 * Returns true when the NULL is allowed.
 */
bool weir__null_ok(weir_decoder *d, uint32_t col, const char *at,
                   const char *found);
/* The same for a JSON field missing from its object (at: the closing '}'). */
bool weir__missing_ok(weir_decoder *d, uint32_t col, const char *at);

/*
 * Stores text (already unquoted/unescaped) into column col of row, converting
 * it to the column's type. `token` is how the value looked in the input, for
 * the error message; `at` is where it started. Returns 0 or WEIR_EPARSE
 * (error set) or WEIR_ENOMEM.
 */
int weir__store_text(weir_decoder *d, weir_batch *b, uint32_t col, uint32_t row,
                     const char *s, size_t n, const char *at, const char *token,
                     size_t token_len);

/* Finishes a decoded row: validity bits from d->isnull, ts, kind, n_rows. */
void weir__finish_row(weir_decoder *d, weir_batch *b, uint32_t row);

/* ---- fast paths shared by the decoders (inline: they run per value) ---- */

#include <string.h>

#include "time/timefmt.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* weir_batch_set_str with the common case (the heap has room) inline. */
static inline int weir__put_str(weir_batch *b, uint32_t col, uint32_t row,
                                const char *s, size_t n)
{
    if (b->heap && b->heap_len + n <= b->heap_cap) {
        memcpy(b->heap + b->heap_len, s, n);
        WEIR_COL_STR(b, col)
        [row] = (weir_strref){(uint32_t)b->heap_len, (uint32_t)n};
        b->heap_len += n;
        return 0;
    }
    return weir_batch_set_str(b, col, row, s, n);
}

static inline int weir__digit2(const char *s)
{
    return (s[0] - '0') * 10 + (s[1] - '0');
}

/* The 8 bytes at s as one word, from any alignment. */
static inline uint64_t weir__load8(const char *s)
{
    uint64_t v;
    memcpy(&v, s, 8);
    return v;
}

/*
 * Whether the 8 bytes at s are the digits and separators of shape: a '0'
 * there stands for any digit, any other byte for itself. Words, not bytes:
 * a byte b is a digit when its high nibble and that of b + 6 are both 3.
 */
static inline bool weir__digits_shaped(const char *s, const char shape[8])
{
    const uint64_t w = weir__load8(s), z = UINT64_C(0x3030303030303030),
                   hi = UINT64_C(0xF0F0F0F0F0F0F0F0),
                   six = UINT64_C(0x0606060606060606),
                   threes = UINT64_C(0x3333333333333333);
    /* sep: all ones at the separators, whose bytes must be equal (x's
     * nibbles or-ed into each low nibble, then that made 0 or 1) */
    const uint64_t sh = weir__load8(shape), x = sh ^ z,
                   lo = (x | (x >> 4)) & UINT64_C(0x0F0F0F0F0F0F0F0F),
                   sep = (((lo + UINT64_C(0x0F0F0F0F0F0F0F0F)) >> 4) &
                          UINT64_C(0x0101010101010101)) * 0xFF;
    const uint64_t digits = (w & ~sep) | (z & sep);
    return (w & sep) == (sh & sep) &&
           ((digits & hi) | (((digits + six) & hi) >> 4)) == threes;
}

/*
 * "yyyy-MM-dd HH:mm:ss.SSS" exactly (or with 'T'), the shape encoders
 * write; anything else goes to the general parser. Returns false if the
 * text does not have this shape.
 */
static inline bool weir__fast_ts(const char *s, size_t n, int64_t *out)
{
    /* four overlapping words around s[10], ' ' or 'T' */
    if (n != 23 || (s[10] != ' ' && s[10] != 'T') ||
        !weir__digits_shaped(s, "0000-00-") ||
        !weir__digits_shaped(s + 2, "00-00-00") ||
        !weir__digits_shaped(s + 11, "00:00:00") ||
        !weir__digits_shaped(s + 15, "0:00.000"))
        return false;
    int mo = weir__digit2(s + 5), d = weir__digit2(s + 8),
        h = weir__digit2(s + 11), mi = weir__digit2(s + 14),
        se = weir__digit2(s + 17);
    if (mo < 1 || mo > 12 || d < 1 || d > 28 || h > 23 || mi > 59 || se > 59)
        return false; /* days 29-31 need the month's length: the general parser
                         checks them */
    int64_t y = weir__digit2(s) * 100 + weir__digit2(s + 2);
    int64_t days = weir__days_from_civil(y, mo, d);
    *out = days * 86400000 + h * 3600000 + mi * 60000 + se * 1000 +
           (s[20] - '0') * 100 + weir__digit2(s + 21);
    return true;
}

/*
 * A plain decimal integer of 1 to 18 digits with an optional '-' (no
 * overflow possible); false for anything else (the general parser decides).
 */
static inline bool weir__fast_i64(const char *s, size_t n, int64_t *out)
{
    bool neg = n && s[0] == '-';
    size_t i = neg;
    if (n - i == 0 || n - i > 18)
        return false;
    int64_t v = 0;
    for (; i < n; i++) {
        unsigned dg = (unsigned)(s[i] - '0');
        if (dg > 9)
            return false;
        v = v * 10 + dg;
    }
    *out = neg ? -v : v;
    return true;
}

/* Number of leading ASCII bytes of s[0, n). */
static inline size_t weir__ascii_prefix(const char *s, size_t n)
{
    size_t i = 0;
#if defined(__SSE2__)
    for (; i + 16 <= n; i += 16) {
        unsigned m = (unsigned)_mm_movemask_epi8(
            _mm_loadu_si128((const __m128i *)(const void *)(s + i)));
        if (m)
            return i + (size_t)__builtin_ctz(m);
    }
#endif
    while (i < n && (unsigned char)s[i] < 0x80)
        i++;
    return i;
}

int weir__json_decode(weir_decoder *d, const char *rec, size_t len,
                      weir_batch *b);
int weir__csv_decode(weir_decoder *d, const char *rec, size_t len,
                     weir_batch *b);
int weir__json_decoder_init(weir_decoder *d);
/* debezium-json: one change (0 rows appended on error, else 1 or 2). */
int weir__debezium_decode(weir_decoder *d, const char *rec, size_t len,
                          weir_batch *b);

#endif
