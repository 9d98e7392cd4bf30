/*
 * tests/test_rowcodec.c - the compact row encoding that joins and Top-N keep
 * in state (ops/rowcodec.h): bytes written by hand from its definition,
 * random rows of every column type through encode and decode (values
 * compared column by column), one encoding per row (equal bytes exactly
 * for equal rows), some columns of a row decoded, encodings that do not
 * decode, and rows of the canonical encoding (checkpoints of an earlier
 * weir) re-encoded.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ops/rowcodec.h"
#include "weir/batch.h"

/* INT, BIGINT, STRING, BOOLEAN */
static weir_schema *small_schema(void)
{
    weir_schema *s = weir_schema_create();
    weir_schema_add(s, "i", weir_type_make(WEIR_TYPE_INT, true));
    weir_schema_add(s, "b", weir_type_make(WEIR_TYPE_BIGINT, true));
    weir_schema_add(s, "s", weir_type_make(WEIR_TYPE_STRING, true));
    weir_schema_add(s, "f", weir_type_make(WEIR_TYPE_BOOLEAN, true));
    return s;
}

static void expect_bytes(const weir_buf *b, const uint8_t *want, size_t n)
{
    cr_assert_eq(b->len, n, "encoded %zu bytes, expected %zu", b->len, n);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(b->data[i], want[i], "byte %zu: %02x, expected %02x", i, b->data[i], want[i]);
}

Test(rowcodec, bytes_by_hand)
{
    weir_schema *s = small_schema();
    weir_batch *b = weir_batch_create(s, 4);
    weir_buf e;
    weir_buf_init(&e);
    /* (-1, 300, 'ab', NULL): bitmap 0x08 (column 3); zigzag(-1) = 1;
     * zigzag(300) = 600 = 0x58 | 0x80, 0x04; length 2, 'a', 'b' */
    int r = weir_batch_append_row(b);
    WEIR_COL_I32(b, 0)[r] = -1;
    WEIR_COL_I64(b, 1)[r] = 300;
    cr_assert_eq(weir_batch_set_str(b, 2, r, "ab", 2), 0);
    weir_batch_set_null(b, 3, r);
    cr_assert_eq(weir__crow_encode(b, (uint32_t)r, 4, &e), 0);
    const uint8_t w1[] = {0x08, 0x01, 0xd8, 0x04, 0x02, 'a', 'b'};
    expect_bytes(&e, w1, sizeof w1);
    cr_assert_eq(weir__crow_len(b, (uint32_t)r, 4), sizeof w1);
    /* (INT32_MIN, INT64_MIN, '', true): zigzag gives all ones: 5 and 10 bytes */
    r = weir_batch_append_row(b);
    WEIR_COL_I32(b, 0)[r] = INT32_MIN;
    WEIR_COL_I64(b, 1)[r] = INT64_MIN;
    cr_assert_eq(weir_batch_set_str(b, 2, r, "", 0), 0);
    ((uint8_t *)b->cols[3].data)[r] = 1;
    cr_assert_eq(weir__crow_encode(b, (uint32_t)r, 4, &e), 0);
    const uint8_t w2[] = {0x00, 0xff, 0xff, 0xff, 0xff, 0x0f, 0xff, 0xff, 0xff, 0xff, 0xff,
                          0xff, 0xff, 0xff, 0xff, 0x01, 0x00, 0x01};
    expect_bytes(&e, w2, sizeof w2);
    /* the first two columns only, both NULL: the bitmap alone */
    r = weir_batch_append_row(b);
    weir_batch_set_null(b, 0, r);
    weir_batch_set_null(b, 1, r);
    cr_assert_eq(weir__crow_encode(b, (uint32_t)r, 2, &e), 0);
    const uint8_t w3[] = {0x03};
    expect_bytes(&e, w3, sizeof w3);
    weir_buf_fini(&e);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

/* Every type a row may hold: the compact encoding's kinds, and a wide bitmap (13 columns). */
static weir_schema *wide_schema(void)
{
    weir_schema *s = weir_schema_create();
    weir_schema_add(s, "bo", weir_type_make(WEIR_TYPE_BOOLEAN, true));
    weir_schema_add(s, "i", weir_type_make(WEIR_TYPE_INT, true));
    weir_schema_add(s, "b", weir_type_make(WEIR_TYPE_BIGINT, true));
    weir_schema_add(s, "d", weir_type_make(WEIR_TYPE_DOUBLE, true));
    weir_schema_add(s, "dec", weir_type_decimal(10, 2, true));
    weir_schema_add(s, "wdec", weir_type_decimal(30, 4, true));
    weir_schema_add(s, "s", weir_type_make(WEIR_TYPE_STRING, true));
    weir_schema_add(s, "by", weir_type_make(WEIR_TYPE_BYTES, true));
    weir_schema_add(s, "ts", weir_type_make(WEIR_TYPE_TIMESTAMP, true));
    weir_schema_add(s, "ltz", weir_type_make(WEIR_TYPE_TIMESTAMP_LTZ, true));
    weir_schema_add(s, "dt", weir_type_make(WEIR_TYPE_DATE, true));
    weir_schema_add(s, "tm", weir_type_make(WEIR_TYPE_TIME, true));
    weir_schema_add(s, "s2", weir_type_make(WEIR_TYPE_STRING, true));
    return s;
}

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A value from a small set (so that equal rows occur) or any bit pattern. */
static uint64_t pick(bool few)
{
    static const uint64_t edge[] = {0, 1, (uint64_t)-1, 63, 64, 127, 128, (uint64_t)INT64_MAX, (uint64_t)INT64_MIN,
                                    (uint64_t)INT32_MAX, (uint64_t)INT32_MIN, 1700000000000u};
    if (few)
        return edge[next_rand() % 4];
    uint64_t r = next_rand();
    switch (r % 4) {
    case 0: return edge[(r >> 8) % (sizeof edge / sizeof *edge)];
    case 1: return (uint64_t)(int64_t)(int8_t)(r >> 8);
    case 2: return next_rand() >> (next_rand() % 64);
    default: return next_rand();
    }
}

static void fill_row(weir_batch *b, uint32_t r, bool few)
{
    char str[300];
    for (uint32_t c = 0; c < b->schema->n_fields; c++) {
        if (next_rand() % 5 == 0) {
            weir_batch_set_null(b, c, r);
            continue;
        }
        weir_column *col = &b->cols[c];
        uint64_t v = pick(few);
        switch (col->type.id) {
        case WEIR_TYPE_BOOLEAN: ((uint8_t *)col->data)[r] = v & 1; break;
        case WEIR_TYPE_INT:
        case WEIR_TYPE_DATE:
        case WEIR_TYPE_TIME: ((int32_t *)col->data)[r] = (int32_t)(uint32_t)v; break;
        case WEIR_TYPE_DOUBLE: {
            double d = (double)(int64_t)v / 7.0;
            memcpy((double *)col->data + r, &d, 8);
            break;
        }
        case WEIR_TYPE_STRING:
        case WEIR_TYPE_BYTES: {
            size_t n = few ? v % 3 : (next_rand() % 8 == 0 ? 128 + next_rand() % 160 : next_rand() % 20);
            for (size_t i = 0; i < n; i++)
                str[i] = (char)(few ? 'a' : next_rand());
            cr_assert_eq(weir_batch_set_str(b, c, r, str, n), 0);
            break;
        }
        default:
            if (weir_type_size(col->type) == 16) {
                uint64_t hi = few ? 0 : pick(false);
                memcpy((char *)col->data + (size_t)r * 16, &v, 8);
                memcpy((char *)col->data + (size_t)r * 16 + 8, &hi, 8);
            } else {
                ((int64_t *)col->data)[r] = (int64_t)v;
            }
            break;
        }
    }
}

/* Column c of (a, ra) and (b, rb) hold the same value (NULL included). */
static bool same_value(const weir_batch *a, uint32_t ac, uint32_t ra, const weir_batch *b, uint32_t bc, uint32_t rb)
{
    bool an = weir_batch_is_null(a, ac, ra), bn = weir_batch_is_null(b, bc, rb);
    if (an || bn)
        return an == bn;
    const weir_column *x = &a->cols[ac], *y = &b->cols[bc];
    if (weir_type_is_varlen(x->type.id)) {
        weir_strref p = ((const weir_strref *)x->data)[ra], q = ((const weir_strref *)y->data)[rb];
        return p.len == q.len && (p.len == 0 || !memcmp(a->heap + p.off, b->heap + q.off, p.len));
    }
    size_t w = weir_type_size(x->type);
    return !memcmp((const char *)x->data + (size_t)ra * w, (const char *)y->data + (size_t)rb * w, w);
}

Test(rowcodec, random_rows_round_trip)
{
    weir_schema *s = wide_schema();
    uint32_t n = s->n_fields;
    /* the decode target: two columns before the row's (a join's candidate row) */
    weir_schema *t = weir_schema_create();
    weir_schema_add(t, "x0", weir_type_make(WEIR_TYPE_STRING, true));
    weir_schema_add(t, "x1", weir_type_make(WEIR_TYPE_BIGINT, true));
    for (uint32_t c = 0; c < n; c++)
        weir_schema_add(t, s->fields[c].name, s->fields[c].type);
    weir_batch *b = weir_batch_create(s, 256);
    weir_batch *d = weir_batch_create(t, 256);
    weir_buf e;
    weir_buf_init(&e);
    for (int round = 0; round < 40; round++) {
        weir_batch_reset(b);
        weir_batch_reset(d);
        for (uint32_t r = 0; r < 256; r++) {
            int row = weir_batch_append_row(b);
            cr_assert_geq(row, 0);
            fill_row(b, (uint32_t)row, false);
            /* a prefix of the columns too */
            uint32_t k = r % 3 == 0 ? 1 + (uint32_t)(next_rand() % n) : n;
            cr_assert_eq(weir__crow_encode(b, r, k, &e), 0);
            cr_assert_eq(e.len, weir__crow_len(b, r, k));
            int dr = weir_batch_append_row(d);
            cr_assert_geq(dr, 0);
            cr_assert_eq(weir_batch_set_str(d, 0, (uint32_t)dr, "keep", 4), 0);
            WEIR_COL_I64(d, 1)[dr] = 42;
            size_t heap = d->heap_len;
            cr_assert_eq(weir__crow_decode(e.data, e.len, d, (uint32_t)dr, 2, k), 0, "row %u of round %d", r, round);
            for (uint32_t c = 0; c < k; c++)
                cr_assert(same_value(b, c, r, d, 2 + c, (uint32_t)dr), "round %d row %u column %u", round, r, c);
            /* the heap keeps only the strings' bytes */
            size_t strings = 0;
            for (uint32_t c = 0; c < k; c++)
                if (weir_type_is_varlen(s->fields[c].type.id) && !weir_batch_is_null(b, c, r))
                    strings += WEIR_COL_STR(b, c)[r].len;
            cr_assert_eq(d->heap_len - heap, strings);
            weir_strref k0 = WEIR_COL_STR(d, 0)[dr];
            cr_assert(k0.len == 4 && !memcmp(d->heap + k0.off, "keep", 4));
            cr_assert_eq(WEIR_COL_I64(d, 1)[dr], 42);
        }
    }
    weir_buf_fini(&e);
    weir_batch_destroy(b);
    weir_batch_destroy(d);
    weir_schema_destroy(s);
    weir_schema_destroy(t);
}

/*
 * Some columns decoded (a join's candidate holds only those its residual
 * reads): the wanted ones equal the row's, the others keep what the target
 * held (values and NULLs), the heap takes only the wanted strings, and a
 * row is read up to its last wanted column: bytes over are refused when
 * that is the last column, not looked at otherwise.
 */
Test(rowcodec, some_columns_decoded)
{
    weir_schema *s = wide_schema();
    uint32_t n = s->n_fields;
    weir_batch *b = weir_batch_create(s, 256);
    weir_batch *d = weir_batch_create(s, 256);
    weir_batch *before = weir_batch_create(s, 256);
    bool *want = calloc(n, sizeof *want);
    weir_buf e;
    weir_buf_init(&e);
    uint32_t kept = 0, put = 0, over_unread = 0;
    for (int round = 0; round < 20; round++) {
        weir_batch_reset(b);
        weir_batch_reset(d);
        weir_batch_reset(before);
        for (uint32_t r = 0; r < 256; r++) {
            cr_assert_eq(weir_batch_append_row(b), (int)r);
            fill_row(b, r, false);
            cr_assert_eq(weir__crow_encode(b, r, n, &e), 0);
            /* the target's row: another random row, remembered */
            cr_assert_eq(weir_batch_append_row(d), (int)r);
            fill_row(d, r, false);
            cr_assert_eq(weir_batch_append_row(before), (int)r);
            cr_assert_eq(weir__row_copy_cols(before, r, 0, d, r, 0, n), 0);
            size_t strings = 0;
            for (uint32_t c = 0; c < n; c++) {
                want[c] = next_rand() % 3 == 0;
                if (want[c]) /* as the decode asks of the columns it writes */
                    weir_batch_set_valid(d, c, r);
                if (want[c] && weir_type_is_varlen(s->fields[c].type.id) && !weir_batch_is_null(b, c, r))
                    strings += WEIR_COL_STR(b, c)[r].len;
            }
            size_t heap = d->heap_len;
            cr_assert_eq(weir__crow_decode_some(e.data, e.len, d, r, 0, n, NULL, want, NULL), 0, "round %d row %u", round, r);
            cr_assert_eq(d->heap_len - heap, strings, "round %d row %u: heap", round, r);
            for (uint32_t c = 0; c < n; c++) {
                if (want[c])
                    cr_assert(same_value(b, c, r, d, c, r), "round %d row %u column %u decoded", round, r, c);
                else
                    cr_assert(same_value(before, c, r, d, c, r), "round %d row %u column %u changed", round, r, c);
                kept += !want[c];
                put += want[c];
            }
            /* a byte left over after the row: refused when the last column is wanted (the row is read to
             * its end), else the wanted columns decoded as before (the bytes after them are not read) */
            cr_assert_eq(weir_buf_put_u8(&e, 0), 0);
            heap = d->heap_len;
            int over = weir__crow_decode_some(e.data, e.len, d, r, 0, n, NULL, want, NULL);
            if (want[n - 1]) {
                cr_assert_eq(over, WEIR_ECORRUPT, "round %d row %u: a byte over", round, r);
                cr_assert_eq(d->heap_len, heap);
            } else {
                cr_assert_eq(over, 0, "round %d row %u: a byte over, the last column not read", round, r);
                for (uint32_t c = 0; c < n; c++)
                    if (want[c])
                        cr_assert(same_value(b, c, r, d, c, r), "round %d row %u column %u again", round, r, c);
                over_unread++;
            }
            e.len--;
            /* cut short, the last column wanted: refused, the heap as it was */
            bool last = want[n - 1];
            want[n - 1] = true;
            heap = d->heap_len;
            cr_assert_eq(weir__crow_decode_some(e.data, e.len - 1, d, r, 0, n, NULL, want, NULL), WEIR_ECORRUPT);
            cr_assert_eq(d->heap_len, heap);
            want[n - 1] = last;
        }
    }
    cr_assert(kept > 0 && put > 0 && over_unread > 0);
    /* a target whose columns not wanted are BOOLEANs: the row's types come from s */
    weir_schema *ns = weir_schema_create();
    for (uint32_t c = 0; c < n; c++) {
        want[c] = c % 3 == 1;
        weir_schema_add(ns, s->fields[c].name, want[c] ? s->fields[c].type : weir_type_make(WEIR_TYPE_BOOLEAN, true));
    }
    weir_batch *nd = weir_batch_create(ns, 256);
    weir_batch_reset(b);
    for (uint32_t r = 0; r < 256; r++) {
        cr_assert_eq(weir_batch_append_row(b), (int)r);
        fill_row(b, r, false);
        cr_assert_eq(weir__crow_encode(b, r, n, &e), 0);
        cr_assert_eq(weir_batch_append_row(nd), (int)r);
        cr_assert_eq(weir__crow_decode_some(e.data, e.len, nd, r, 0, n, NULL, want, s), 0, "narrow row %u", r);
        for (uint32_t c = 1; c < n; c += 3)
            cr_assert(same_value(b, c, r, nd, c, r), "narrow row %u column %u", r, c);
    }
    weir_batch_destroy(nd);
    weir_schema_destroy(ns);
    weir_buf_fini(&e);
    free(want);
    weir_batch_destroy(b);
    weir_batch_destroy(d);
    weir_batch_destroy(before);
    weir_schema_destroy(s);
}

/* A join keeps a row under its encoding: equal bytes exactly when the rows are equal. */
Test(rowcodec, one_encoding_per_row)
{
    weir_schema *s = wide_schema();
    uint32_t n = s->n_fields;
    weir_batch *b = weir_batch_create(s, 512);
    weir_buf *enc = calloc(512, sizeof *enc);
    for (uint32_t r = 0; r < 512; r++) {
        int row = weir_batch_append_row(b);
        /* one of 64 rows (a seed of the generator; equal rows come often),
         * then, half the time, one column set again (rows that differ in
         * one value, or not at all when it draws the same) */
        uint64_t saved = next_rand();
        rng = 0x2545f4914f6cdd1du * (1 + saved % 64);
        fill_row(b, (uint32_t)row, true);
        rng = saved;
        if (next_rand() % 2) {
            uint32_t c = (uint32_t)(next_rand() % n);
            weir_batch_set_null(b, c, (uint32_t)row);
            weir_batch_set_valid(b, c, (uint32_t)row);
            if (weir_type_is_varlen(s->fields[c].type.id))
                cr_assert_eq(weir_batch_set_str(b, c, (uint32_t)row, "a", next_rand() % 2), 0);
            else /* the value's first byte: another value, or the same */
                ((uint8_t *)b->cols[c].data)[(size_t)row * weir_type_size(s->fields[c].type)] =
                    (uint8_t)(next_rand() % 2);
        }
        weir_buf_init(&enc[r]);
        cr_assert_eq(weir__crow_encode(b, r, n, &enc[r]), 0);
    }
    uint32_t equal_pairs = 0;
    for (uint32_t x = 0; x < 512; x++)
        for (uint32_t y = x + 1; y < 512; y++) {
            bool same = true;
            for (uint32_t c = 0; c < n && same; c++)
                same = same_value(b, c, x, b, c, y);
            bool same_bytes = enc[x].len == enc[y].len && !memcmp(enc[x].data, enc[y].data, enc[x].len);
            cr_assert_eq(same, same_bytes, "rows %u and %u", x, y);
            equal_pairs += same;
        }
    for (uint32_t r = 0; r < 512; r++)
        weir_buf_fini(&enc[r]);
    free(enc);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
    cr_assert_gt(equal_pairs, 0, "no two rows were equal: the test compared nothing equal");
}

static void refused(weir_batch *d, const uint8_t *p, size_t len, uint32_t n, const char *what)
{
    weir_batch_reset(d);
    int r = weir_batch_append_row(d);
    size_t heap = d->heap_len;
    cr_assert_eq(weir__crow_decode(p, len, d, (uint32_t)r, 0, n), WEIR_ECORRUPT, "%s decoded", what);
    cr_assert_eq(d->heap_len, heap, "%s: its strings stayed in the heap", what);
}

Test(rowcodec, bad_encodings_refused)
{
    weir_schema *s = small_schema();
    weir_batch *d = weir_batch_create(s, 4);
    const uint8_t good[] = {0x08, 0x01, 0xd8, 0x04, 0x02, 'a', 'b'};
    weir_batch_reset(d);
    int r = weir_batch_append_row(d);
    cr_assert_eq(weir__crow_decode(good, sizeof good, d, (uint32_t)r, 0, 4), 0);
    for (size_t cut = 0; cut < sizeof good; cut++)
        refused(d, good, cut, 4, "a cut row");
    const uint8_t longer[] = {0x08, 0x01, 0xd8, 0x04, 0x02, 'a', 'b', 0};
    refused(d, longer, sizeof longer, 4, "a row with a byte left over");
    const uint8_t spare[] = {0x18, 0x01, 0xd8, 0x04, 0x02, 'a', 'b'};
    refused(d, spare, sizeof spare, 4, "a bitmap bit past the columns");
    const uint8_t strlen_past[] = {0x08, 0x01, 0xd8, 0x04, 0x03, 'a', 'b'};
    refused(d, strlen_past, sizeof strlen_past, 4, "a string past the end");
    const uint8_t int_wide[] = {0x0e, 0xff, 0xff, 0xff, 0xff, 0x1f};
    refused(d, int_wide, sizeof int_wide, 4, "an INT past 32 bits");
    const uint8_t v11[] = {0x0c, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    refused(d, v11, sizeof v11, 4, "a varint of 11 bytes");
    const uint8_t v10_over[] = {0x0c, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
    refused(d, v10_over, sizeof v10_over, 4, "a varint past 64 bits in its tenth byte");
    /* the longest that fits: zigzag 2^64 - 1 is INT64_MIN */
    const uint8_t v10[] = {0x0c, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    weir_batch_reset(d);
    r = weir_batch_append_row(d);
    cr_assert_eq(weir__crow_decode(v10, sizeof v10, d, (uint32_t)r, 0, 4), 0, "a varint of ten bytes refused");
    cr_assert_eq(((const int64_t *)d->cols[1].data)[r], INT64_MIN);
    weir_batch_destroy(d);
    weir_schema_destroy(s);
}

/*
 * Varints with bytes after them (a timestamp in the middle of a row, read from
 * one 8-byte load when 8 bytes are left): 1 to 11 bytes of random 7-bit groups,
 * redundant high zero groups included (no writer makes them, the reader takes
 * them), in an INT or a BIGINT column followed by a string of 8 to 15 bytes.
 * Each decodes to the value its groups spell by the definition (LEB128, then
 * zigzag), or is refused where the definition refuses it: more than ten bytes,
 * bits past 64 in the tenth, an INT past 32 bits.
 */
Test(rowcodec, varints_before_other_bytes)
{
    for (int wide = 0; wide < 2; wide++) {
        weir_schema *s = weir_schema_create();
        weir_schema_add(s, "v", weir_type_make(wide ? WEIR_TYPE_BIGINT : WEIR_TYPE_INT, true));
        weir_schema_add(s, "s", weir_type_make(WEIR_TYPE_STRING, true));
        weir_batch *d = weir_batch_create(s, 1);
        for (int round = 0; round < 4000; round++) {
            uint8_t row[32];
            size_t n = 0, bytes = 1 + (size_t)(round % 11);
            row[n++] = 0; /* the bitmap: no NULL */
            uint64_t z = 0;
            bool fits = bytes <= 10;
            for (size_t i = 0; i < bytes; i++) {
                /* a group: random, zero (a redundant high byte) or all ones */
                uint64_t r = next_rand(), g = r % 4 == 0 ? 0 : r % 4 == 1 ? 0x7f : (r >> 8) & 0x7f;
                if (i == 9 && g > 1)
                    fits = false;
                if (i < 10)
                    z |= g << (7 * i);
                row[n++] = (uint8_t)(g | (i + 1 < bytes ? 0x80 : 0));
            }
            if (!wide && z > UINT32_MAX)
                fits = false;
            size_t sl = 8 + next_rand() % 8;
            row[n++] = (uint8_t)sl;
            for (size_t i = 0; i < sl; i++)
                row[n++] = (uint8_t)('a' + i);
            weir_batch_reset(d);
            cr_assert_eq(weir_batch_append_row(d), 0);
            int rc = weir__crow_decode(row, n, d, 0, 0, 2);
            cr_assert_eq(rc, fits ? 0 : WEIR_ECORRUPT, "%s, %zu bytes, round %d: %d", wide ? "BIGINT" : "INT", bytes,
                         round, rc);
            if (!fits)
                continue;
            int64_t x = (int64_t)((z >> 1) ^ (uint64_t)-(int64_t)(z & 1));
            if (wide)
                cr_assert_eq(WEIR_COL_I64(d, 0)[0], x, "%zu bytes, round %d", bytes, round);
            else
                cr_assert_eq(((const int32_t *)d->cols[0].data)[0],
                             (int32_t)((uint32_t)(z >> 1) ^ (uint32_t)-(int32_t)(z & 1)), "%zu bytes, round %d", bytes,
                             round);
            weir_strref sr = WEIR_COL_STR(d, 1)[0];
            cr_assert(sr.len == sl && memcmp(d->heap + sr.off, "abcdefghijklmno", sl) == 0, "round %d", round);
        }
        weir_batch_destroy(d);
        weir_schema_destroy(s);
    }
}

/*
 * A row of a checkpoint written before the compact encoding: canonical bytes
 * written by hand (a NULL flag byte per column, INT as 4 and BIGINT as 8
 * little-endian bytes, a string as a u32 length and its bytes, BOOLEAN as
 * one byte) re-encode to the compact bytes of the same row; canonical bytes
 * that are cut short or leave bytes over are refused.
 */
Test(rowcodec, canonical_rows_recoded)
{
    weir_schema *s = small_schema();
    weir_batch *scratch = weir_batch_create(s, 1);
    weir_buf e;
    weir_buf_init(&e);
    /* (-1, 300, 'ab', NULL) */
    const uint8_t c1[] = {0, 0xff, 0xff, 0xff, 0xff, 0, 0x2c, 0x01, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 'a', 'b', 1};
    cr_assert_eq(weir__crow_recode(c1, sizeof c1, scratch, 4, &e), 0);
    const uint8_t w1[] = {0x08, 0x01, 0xd8, 0x04, 0x02, 'a', 'b'};
    expect_bytes(&e, w1, sizeof w1);
    /* (NULL, NULL, '', true): the scratch row is cleared of the last one */
    const uint8_t c2[] = {1, 1, 0, 0, 0, 0, 0, 0, 1};
    cr_assert_eq(weir__crow_recode(c2, sizeof c2, scratch, 4, &e), 0);
    const uint8_t w2[] = {0x03, 0x00, 0x01};
    expect_bytes(&e, w2, sizeof w2);
    /* the first two columns only */
    const uint8_t c3[] = {0, 7, 0, 0, 0, 1};
    cr_assert_eq(weir__crow_recode(c3, sizeof c3, scratch, 2, &e), 0);
    const uint8_t w3[] = {0x02, 0x0e};
    expect_bytes(&e, w3, sizeof w3);
    /* cut short, a byte over, a string longer than the bytes */
    cr_assert_eq(weir__crow_recode(c1, sizeof c1 - 1, scratch, 4, &e), WEIR_ECORRUPT);
    const uint8_t over[] = {1, 1, 0, 0, 0, 0, 0, 0, 1, 0};
    cr_assert_eq(weir__crow_recode(over, sizeof over, scratch, 4, &e), WEIR_ECORRUPT);
    const uint8_t longstr[] = {1, 1, 0, 9, 0, 0, 0, 'a', 0, 1};
    cr_assert_eq(weir__crow_recode(longstr, sizeof longstr, scratch, 4, &e), WEIR_ECORRUPT);
    weir_buf_fini(&e);
    weir_batch_destroy(scratch);
    weir_schema_destroy(s);
}

/* Random rows of every type: the canonical encoding re-encoded is the compact one. */
Test(rowcodec, random_canonical_rows_recoded)
{
    weir_schema *s = wide_schema();
    uint32_t n = s->n_fields;
    weir_batch *b = weir_batch_create(s, 64), *scratch = weir_batch_create(s, 1);
    weir_buf canon, got, want;
    weir_buf_init(&canon);
    weir_buf_init(&got);
    weir_buf_init(&want);
    for (int round = 0; round < 50; round++) {
        weir_batch_reset(b);
        for (uint32_t r = 0; r < 64; r++) {
            int row = weir_batch_append_row(b);
            cr_assert_geq(row, 0);
            fill_row(b, (uint32_t)row, round % 2 == 0);
        }
        for (uint32_t r = 0; r < b->n_rows; r++) {
            cr_assert_eq(weir__row_encode(b, r, n, &canon), 0);
            cr_assert_eq(weir__crow_encode(b, r, n, &want), 0);
            cr_assert_eq(weir__crow_recode(canon.data, canon.len, scratch, n, &got), 0);
            cr_assert_eq(got.len, want.len, "round %d row %u: %zu bytes, expected %zu", round, r, got.len, want.len);
            cr_assert_eq(memcmp(got.data, want.data, got.len), 0, "round %d row %u differs", round, r);
        }
    }
    weir_buf_fini(&canon);
    weir_buf_fini(&got);
    weir_buf_fini(&want);
    weir_batch_destroy(b);
    weir_batch_destroy(scratch);
    weir_schema_destroy(s);
}

/*
 * The encoder writes a row in one pass into room for its widest values, growing its buffer
 * before a string that would not fit: rows whose strings cross the varint widths of their
 * lengths (127 / 128, 16383 / 16384 bytes) or need the buffer to grow in the middle of the
 * row (NULL bits after that, in the bitmap's second byte too), nested values, DECIMAL(38),
 * integers at the varint boundaries, the columns left out as Top-N does. Each encoding is
 * compared with one built here from the definition (rowcodec.h) with weir_buf calls (also
 * appended after bytes that stay), with the two-pass weir__crow_len / weir__crow_write, and
 * decoded back.
 */
static weir_schema *bound_schema(void)
{
    weir_schema *s = weir_schema_create();
    weir_type arr, map, row, ms;
    weir_type in = weir_type_make(WEIR_TYPE_INT, true);
    const char *names[] = {"x"};
    cr_assert_eq(weir_type_array(in, true, &arr), 0);
    cr_assert_eq(weir_type_map(weir_type_make(WEIR_TYPE_STRING, true), in, true, &map), 0);
    cr_assert_eq(weir_type_row(&in, names, 1, true, &row), 0);
    cr_assert_eq(weir_type_multiset(in, true, &ms), 0);
    weir_schema_add(s, "s", weir_type_make(WEIR_TYPE_STRING, true));
    weir_schema_add(s, "arr", arr);
    weir_schema_add(s, "wdec", weir_type_decimal(38, 0, true));
    weir_schema_add(s, "map", map);
    weir_schema_add(s, "b", weir_type_make(WEIR_TYPE_BIGINT, true));
    weir_schema_add(s, "row", row);
    weir_schema_add(s, "i", weir_type_make(WEIR_TYPE_INT, true));
    weir_schema_add(s, "by", weir_type_make(WEIR_TYPE_BYTES, true));
    weir_schema_add(s, "bo", weir_type_make(WEIR_TYPE_BOOLEAN, true));
    weir_schema_add(s, "s2", weir_type_make(WEIR_TYPE_STRING, true));
    weir_schema_add(s, "dec", weir_type_decimal(18, 3, true));
    weir_schema_add(s, "ms", ms);
    weir_schema_add(s, "d", weir_type_make(WEIR_TYPE_DOUBLE, true));
    return s;
}

/* The compact encoding of row r, from its definition: bitmap, then per column a zigzag
 * varint, a varint length and the bytes, or the value's bytes. */
static void reference_crow(const weir_batch *b, uint32_t r, uint32_t n, const bool *skip, weir_buf *out)
{
    uint8_t bits[8] = {0};
    size_t nb = (n + 7) / 8;
    weir_buf_clear(out);
    cr_assert_eq(weir_buf_put(out, bits, nb), 0);
    for (uint32_t c = 0; c < n; c++) {
        if (skip && skip[c])
            continue;
        if (weir_batch_is_null(b, c, r)) {
            bits[c / 8] |= (uint8_t)(1u << (c % 8));
            continue;
        }
        weir_type t = b->cols[c].type;
        const char *v = (const char *)b->cols[c].data;
        if (weir_type_is_varlen(t.id)) {
            weir_strref s = ((const weir_strref *)v)[r];
            cr_assert_eq(weir_buf_put_varint(out, s.len), 0);
            cr_assert_eq(weir_buf_put(out, b->heap + s.off, s.len), 0);
        } else if (t.id == WEIR_TYPE_INT) {
            int32_t x = ((const int32_t *)v)[r];
            cr_assert_eq(weir_buf_put_varint(out, ((uint32_t)x << 1) ^ (uint32_t)(x >> 31)), 0);
        } else if (t.id == WEIR_TYPE_BIGINT || (t.id == WEIR_TYPE_DECIMAL && t.precision <= 18)) {
            int64_t x = ((const int64_t *)v)[r];
            cr_assert_eq(weir_buf_put_varint(out, ((uint64_t)x << 1) ^ (uint64_t)(x >> 63)), 0);
        } else {
            size_t w = weir_type_size(t);
            cr_assert_eq(weir_buf_put(out, v + (size_t)r * w, w), 0);
        }
    }
    memcpy(out->data, bits, nb);
}

/* An encoding equal to the reference's, in a buffer of any room before. */
static void expect_encoding(const weir_buf *got, const weir_buf *want, int row, const char *how)
{
    cr_assert_eq(got->len, want->len, "row %d (%s): %zu bytes, expected %zu", row, how, got->len, want->len);
    cr_assert_eq(memcmp(got->data, want->data, got->len), 0, "row %d (%s): the bytes differ", row, how);
}

Test(rowcodec, one_pass_encode_bound)
{
    static const uint32_t lens[] = {0, 1, 2, 127, 128, 129, 16383, 16384, 16385, 70000, 300000};
    static const int64_t ints[] = {0, 63, 64, -64, -65, 8191, 8192, -8192, -8193, INT32_MAX, INT32_MIN,
                                   INT64_MAX, INT64_MIN, 1700000000000};
    const size_t n_lens = sizeof lens / sizeof *lens, n_ints = sizeof ints / sizeof *ints;
    weir_schema *s = bound_schema();
    uint32_t n = s->n_fields;
    weir_batch *b = weir_batch_create(s, 1), *d = weir_batch_create(s, 1);
    char *str = malloc(300000 + 16);
    for (size_t i = 0; i < 300000 + 16; i++)
        str[i] = (char)(i * 7 + 1);
    bool skip[16];
    weir_buf want, reused, two;
    weir_buf_init(&want);
    weir_buf_init(&reused);
    weir_buf_init(&two);
    uint32_t grew_mid_row = 0;
    for (int row = 0; row < 600; row++) {
        weir_batch_reset(b);
        cr_assert_eq(weir_batch_append_row(b), 0);
        for (uint32_t c = 0; c < n; c++) {
            weir_batch_set_valid(b, c, 0);
            /* NULL one time in four; the bitmap's second byte (columns 8 - 12) too */
            if (next_rand() % 4 == 0) {
                weir_batch_set_null(b, c, 0);
                continue;
            }
            weir_type t = s->fields[c].type;
            int64_t x = ints[next_rand() % n_ints];
            if (weir_type_is_varlen(t.id)) {
                /* a long one mostly in the first column, so that the buffer grows mid-row */
                uint32_t len = lens[next_rand() % (c == 0 ? n_lens : 7)];
                cr_assert_eq(weir_batch_set_str(b, c, 0, str + next_rand() % 16, len), 0);
            } else if (t.id == WEIR_TYPE_INT) {
                WEIR_COL_I32(b, c)[0] = (int32_t)x;
            } else if (weir_type_size(t) == 16) {
                int64_t hi = x < 0 ? -1 : (int64_t)next_rand(); /* DECIMAL(38): any 128-bit value */
                memcpy((char *)b->cols[c].data, &x, 8);
                memcpy((char *)b->cols[c].data + 8, &hi, 8);
            } else if (t.id == WEIR_TYPE_BOOLEAN) {
                ((uint8_t *)b->cols[c].data)[0] = (uint8_t)(x & 1);
            } else {
                memcpy(b->cols[c].data, &x, 8);
            }
        }
        /* a prefix of the columns one time in four */
        uint32_t k = row % 4 == 3 ? 1 + (uint32_t)(next_rand() % n) : n;
        reference_crow(b, 0, k, NULL, &want);
        /* a new buffer (no room), one with little room and bytes in it, one reused */
        weir_buf fresh, small;
        weir_buf_init(&fresh);
        weir_buf_init(&small);
        cr_assert_eq(weir_buf_put(&small, "junk", 4), 0);
        /* the room the encoder takes first: a row longer than that grew the buffer mid-row */
        weir_buf first;
        weir_buf_init(&first);
        cr_assert_eq(weir_buf_reserve(&first, (k + 7) / 8 + 16 * (size_t)k), 0);
        grew_mid_row += want.len > first.cap;
        weir_buf_fini(&first);
        cr_assert_eq(weir__crow_encode(b, 0, k, &fresh), 0);
        expect_encoding(&fresh, &want, row, "a new buffer");
        cr_assert_eq(weir__crow_encode(b, 0, k, &small), 0);
        expect_encoding(&small, &want, row, "a small buffer");
        cr_assert_eq(weir__crow_encode(b, 0, k, &reused), 0);
        expect_encoding(&reused, &want, row, "a reused buffer");
        /* after 8 bytes that stay (a bounded join side's time), in a buffer of little room */
        weir_buf after;
        weir_buf_init(&after);
        cr_assert_eq(weir_buf_put(&after, "8 bytes.", 8), 0);
        cr_assert_eq(weir__crow_encode_append_skip(b, 0, k, NULL, &after), 0);
        cr_assert_eq(after.len, 8 + want.len, "row %d: appended %zu bytes, expected %zu", row, after.len - 8, want.len);
        cr_assert(!memcmp(after.data, "8 bytes.", 8) && !memcmp(after.data + 8, want.data, want.len),
                  "row %d: the appended bytes differ", row);
        weir_buf_fini(&after);
        /* the two-pass length and write */
        cr_assert_eq(weir__crow_len(b, 0, k), want.len, "row %d: weir__crow_len", row);
        weir_buf_clear(&two);
        cr_assert_eq(weir_buf_reserve(&two, want.len + 1), 0);
        two.data[want.len] = 0xa5;
        weir__crow_write(b, 0, k, want.len, two.data);
        two.len = want.len;
        expect_encoding(&two, &want, row, "weir__crow_write");
        cr_assert_eq(two.data[want.len], 0xa5, "row %d: weir__crow_write wrote past its length", row);
        /* decoded back */
        weir_batch_reset(d);
        cr_assert_eq(weir_batch_append_row(d), 0);
        cr_assert_eq(weir__crow_decode(fresh.data, fresh.len, d, 0, 0, k), 0, "row %d", row);
        for (uint32_t c = 0; c < k; c++)
            cr_assert(same_value(b, c, 0, d, c, 0), "row %d column %u", row, c);
        /* columns left out (Top-N's rows) */
        for (uint32_t c = 0; c < n; c++)
            skip[c] = next_rand() % 3 == 0;
        reference_crow(b, 0, n, skip, &want);
        weir_buf_fini(&fresh);
        weir_buf_init(&fresh);
        cr_assert_eq(weir__crow_encode_skip(b, 0, n, skip, &fresh), 0);
        expect_encoding(&fresh, &want, row, "columns left out");
        cr_assert_eq(weir__crow_len_skip(b, 0, n, skip), want.len, "row %d: weir__crow_len_skip", row);
        weir_buf_fini(&fresh);
        weir_buf_fini(&small);
    }
    cr_assert_gt(grew_mid_row, 0, "no row grew its buffer in the middle");
    free(str);
    weir_buf_fini(&want);
    weir_buf_fini(&reused);
    weir_buf_fini(&two);
    weir_batch_destroy(b);
    weir_batch_destroy(d);
    weir_schema_destroy(s);
}

/* A row of no columns encodes to no bytes, into a buffer never allocated
 * too (UBSan once saw a memset of a NULL buffer there). */
Test(rowcodec, zero_columns_encode_to_nothing)
{
    weir_schema *s = small_schema();
    weir_batch *b = weir_batch_create(s, 1);
    cr_assert_geq(weir_batch_append_row(b), 0);
    weir_buf fresh;
    weir_buf_init(&fresh);
    cr_assert_eq(weir__crow_encode(b, 0, 0, &fresh), 0);
    cr_assert_eq(fresh.len, 0);
    cr_assert_eq(weir__crow_encode_append_skip(b, 0, 0, NULL, &fresh), 0);
    cr_assert_eq(fresh.len, 0);
    cr_assert_eq(weir__crow_len(b, 0, 0), 0);
    weir_buf_fini(&fresh);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

/*
 * The encoding of one row type (weir__crow_plan, Top-N's stored rows) against
 * weir__crow_*_skip with the same columns left out: random rows (NULLs in
 * every column) and random skip sets give the same length and bytes, decode
 * to the same values, and rows spoilt at random (a byte changed, cut, one
 * added, a NULL bit set) are refused by both or decode alike; a refused row
 * leaves no strings in the heap.
 */
Test(rowcodec, plan_as_skip)
{
    weir_schema *s = wide_schema();
    uint32_t n = s->n_fields;
    weir_batch *b = weir_batch_create(s, 64);
    weir_batch *d1 = weir_batch_create(s, 64);
    weir_batch *d2 = weir_batch_create(s, 64);
    weir_buf e, x;
    weir_buf_init(&e);
    weir_buf_init(&x);
    bool skip[32];
    for (int round = 0; round < 60; round++) {
        uint32_t k = 1 + (uint32_t)(next_rand() % n); /* a prefix of the columns, some left out */
        for (uint32_t c = 0; c < k; c++)
            skip[c] = round % 4 != 0 && next_rand() % 3 == 0;
        weir__crow_plan pl;
        cr_assert_eq(weir__crow_plan_init(&pl, s, k, round % 4 ? skip : NULL), 0);
        const bool *sk = round % 4 ? skip : NULL;
        weir_batch_reset(b);
        weir_batch_reset(d1);
        weir_batch_reset(d2);
        for (uint32_t r = 0; r < 64; r++) {
            cr_assert_eq(weir_batch_append_row(b), (int)r);
            cr_assert_eq(weir_batch_append_row(d1), (int)r);
            cr_assert_eq(weir_batch_append_row(d2), (int)r);
            fill_row(b, r, r % 2 == 0);
            cr_assert_eq(weir__crow_encode_skip(b, r, k, sk, &e), 0);
            size_t len = weir__crow_plan_len(&pl, b, r);
            cr_assert_eq(len, e.len, "round %d row %u: length %zu, skip's %zu", round, r, len, e.len);
            weir_buf_clear(&x);
            cr_assert_eq(weir_buf_reserve(&x, len + 1), 0);
            weir__crow_plan_write(&pl, b, r, len, x.data);
            cr_assert(!memcmp(x.data, e.data, len), "round %d row %u: other bytes", round, r);
            for (int spoil = 0; spoil < 6; spoil++) {
                size_t l = len;
                if (spoil == 1 && l) /* a byte changed */
                    x.data[next_rand() % l] ^= (uint8_t)(1u << (next_rand() % 8));
                else if (spoil == 2 && l) /* cut */
                    l = next_rand() % l;
                else if (spoil == 3) /* a byte over */
                    x.data[l++] = (uint8_t)next_rand();
                else if (spoil == 4 && l) /* a NULL bit, maybe of a column left out or past the row */
                    x.data[(next_rand() % ((k + 7) / 8))] |= (uint8_t)(1u << (next_rand() % 8));
                else if (spoil == 5 && l) /* any byte */
                    x.data[next_rand() % l] = (uint8_t)next_rand();
                size_t h1 = d1->heap_len, h2 = d2->heap_len;
                int rc1 = weir__crow_decode_skip(x.data, l, d1, r, 0, k, sk);
                int rc2 = weir__crow_plan_decode(&pl, x.data, l, d2, r);
                cr_assert_eq(rc2, rc1, "round %d row %u spoil %d: %d, skip's %d", round, r, spoil, rc2, rc1);
                if (rc1) {
                    cr_assert_eq(d2->heap_len, h2, "round %d row %u: a refused row's strings kept", round, r);
                } else {
                    cr_assert_eq(d2->heap_len - h2, d1->heap_len - h1);
                    for (uint32_t c = 0; c < k; c++)
                        cr_assert(!(sk && sk[c]) ? same_value(d1, c, r, d2, c, r) : true,
                                  "round %d row %u spoil %d column %u", round, r, spoil, c);
                    if (spoil == 0)
                        for (uint32_t c = 0; c < k; c++)
                            cr_assert(sk && sk[c] ? true : same_value(b, c, r, d2, c, r));
                }
                memcpy(x.data, e.data, len);
            }
        }
        weir__crow_plan_fini(&pl);
    }
    weir_buf_fini(&e);
    weir_buf_fini(&x);
    weir_batch_destroy(b);
    weir_batch_destroy(d1);
    weir_batch_destroy(d2);
    weir_schema_destroy(s);
}

/*
 * The lengths of many rows at once (weir__crow_plan_lens, Top-N's write-back)
 * against each row's own (weir__crow_plan_len): random rows with NULLs in every
 * column, and rows with none (every column all valid, the loops without a
 * test of the bitmap), random skip sets, the rows asked for in random order
 * and some more than once.
 */
Test(rowcodec, plan_lens_as_len)
{
    weir_schema *s = wide_schema();
    uint32_t n = s->n_fields;
    weir_batch *b = weir_batch_create(s, 64);
    bool skip[32];
    uint32_t rows[100];
    size_t lens[100];
    for (int round = 0; round < 40; round++) {
        uint32_t k = 1 + (uint32_t)(next_rand() % n);
        for (uint32_t c = 0; c < k; c++)
            skip[c] = round % 3 != 0 && next_rand() % 3 == 0;
        weir__crow_plan pl;
        cr_assert_eq(weir__crow_plan_init(&pl, s, k, round % 3 ? skip : NULL), 0);
        weir_batch_reset(b);
        for (uint32_t r = 0; r < 64; r++) {
            cr_assert_eq(weir_batch_append_row(b), (int)r);
            fill_row(b, r, r % 2 == 0);
        }
        if (round % 2) /* no NULL anywhere: every column all valid */
            for (uint32_t c = 0; c < n; c++) {
                weir_column *col = &b->cols[c];
                for (uint32_t r = 0; r < 64; r++)
                    if (weir_batch_is_null(b, c, r)) /* a value the type takes as it lies */
                        memset((char *)col->data + (size_t)r * weir_type_size(col->type), 0,
                               weir_type_size(col->type));
                col->all_valid = true;
            }
        uint32_t m = (uint32_t)(next_rand() % 100);
        for (uint32_t i = 0; i < m; i++)
            rows[i] = (uint32_t)(next_rand() % 64);
        weir__crow_plan_lens(&pl, b, rows, m, lens);
        for (uint32_t i = 0; i < m; i++)
            cr_assert_eq(lens[i], weir__crow_plan_len(&pl, b, rows[i]), "round %d row %u: %zu, the row's own %zu",
                         round, rows[i], lens[i], weir__crow_plan_len(&pl, b, rows[i]));
        weir__crow_plan_fini(&pl);
    }
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

/*
 * Stored rows cut short, each read from a buffer of exactly its length (under
 * AddressSanitizer a byte read past the end is reported): the plan's decoder,
 * the skip decoder and the whole-row decoder (a join's) refuse every cut and
 * keep no strings, the uncut row decodes to its values; and a BIGINT varint of
 * each length (1 to 10 bytes) that ends right at the end of the buffer is
 * read and every cut of it refused (the varint reader tests the end a byte at
 * a time only with fewer than 10 bytes left), as are 0 to 11 continuation
 * bytes with no end.
 */
/* The first len bytes of p in a buffer of their length (to free), and d emptied to one row. */
static uint8_t *cut_copy(const uint8_t *p, size_t len, weir_batch *d)
{
    uint8_t *t = malloc(len ? len : 1);
    cr_assert(t);
    memcpy(t, p, len);
    weir_batch_reset(d);
    cr_assert_eq(weir_batch_append_row(d), 0);
    return t;
}

Test(rowcodec, cut_rows_in_exact_buffers)
{
    weir_schema *s = wide_schema();
    uint32_t n = s->n_fields;
    weir_batch *b = weir_batch_create(s, 64);
    weir_batch *d = weir_batch_create(s, 64);
    weir_buf e;
    weir_buf_init(&e);
    bool skip[32];
    for (int round = 0; round < 24; round++) {
        uint32_t k = 1 + (uint32_t)(next_rand() % n);
        for (uint32_t c = 0; c < k; c++)
            skip[c] = round % 2 && next_rand() % 3 == 0;
        const bool *sk = round % 2 ? skip : NULL;
        weir__crow_plan pl;
        cr_assert_eq(weir__crow_plan_init(&pl, s, k, sk), 0);
        weir_batch_reset(b);
        for (uint32_t r = 0; r < 32; r++) {
            cr_assert_eq(weir_batch_append_row(b), (int)r);
            fill_row(b, r, false);
            cr_assert_eq(weir__crow_encode_skip(b, r, k, sk, &e), 0);
            for (size_t l = 0; l <= e.len; l++) {
                uint8_t *t = cut_copy(e.data, l, d);
                int rc = weir__crow_plan_decode(&pl, t, l, d, 0);
                if (l < e.len) {
                    cr_assert_eq(rc, WEIR_ECORRUPT, "round %d row %u: a cut to %zu of %zu read", round, r, l, e.len);
                    cr_assert_eq(d->heap_len, 0);
                    cr_assert_eq(weir__crow_decode_skip(t, l, d, 0, 0, k, sk), WEIR_ECORRUPT);
                    if (!sk)
                        cr_assert_eq(weir__crow_decode(t, l, d, 0, 0, k), WEIR_ECORRUPT);
                    cr_assert_eq(d->heap_len, 0);
                } else {
                    cr_assert_eq(rc, 0, "round %d row %u: the row refused", round, r);
                    for (uint32_t c = 0; c < k; c++)
                        cr_assert(sk && sk[c] ? true : same_value(b, c, r, d, c, 0), "round %d row %u column %u",
                                  round, r, c);
                }
                free(t);
            }
        }
        weir__crow_plan_fini(&pl);
    }
    /* one BIGINT column, then a varint of each length at the end */
    weir_schema *s1 = weir_schema_create();
    weir_schema_add(s1, "b", weir_type_make(WEIR_TYPE_BIGINT, true));
    weir_batch *b1 = weir_batch_create(s1, 1);
    weir_batch *d1 = weir_batch_create(s1, 1);
    weir__crow_plan pl;
    cr_assert_eq(weir__crow_plan_init(&pl, s1, 1, NULL), 0);
    for (int bytes = 1; bytes <= 10; bytes++) {
        /* zigzag v = 2 * x: 7 * bytes - 1 bits set (the tenth byte holds bit 63 only) */
        uint64_t z = bytes == 10 ? UINT64_MAX - 1 : (((uint64_t)1 << (7 * bytes)) - 1) & ~(uint64_t)1;
        int64_t x = (int64_t)(z >> 1);
        weir_batch_reset(b1);
        cr_assert_eq(weir_batch_append_row(b1), 0);
        ((int64_t *)b1->cols[0].data)[0] = x;
        cr_assert_eq(weir__crow_encode(b1, 0, 1, &e), 0);
        cr_assert_eq(e.len, 1 + (size_t)bytes, "%d bytes: a row of %zu", bytes, e.len);
        for (size_t l = 0; l <= e.len; l++) {
            uint8_t *t = cut_copy(e.data, l, d1);
            int rc = weir__crow_plan_decode(&pl, t, l, d1, 0);
            cr_assert_eq(rc, l < e.len ? WEIR_ECORRUPT : 0, "%d bytes, %zu of them: %d", bytes, l, rc);
            cr_assert_eq(weir__crow_decode(t, l, d1, 0, 0, 1), l < e.len ? WEIR_ECORRUPT : 0);
            if (l == e.len)
                cr_assert_eq(((int64_t *)d1->cols[0].data)[0], x);
            free(t);
        }
    }
    /* continuation bytes up to the end of the buffer, or past the longest varint */
    uint8_t cont[12];
    cont[0] = 0; /* the bitmap: not NULL */
    memset(cont + 1, 0x80, sizeof cont - 1);
    for (size_t l = 1; l <= sizeof cont; l++) {
        uint8_t *t = cut_copy(cont, l, d1);
        cr_assert_eq(weir__crow_plan_decode(&pl, t, l, d1, 0), WEIR_ECORRUPT, "%zu continuation bytes", l - 1);
        cr_assert_eq(weir__crow_decode(t, l, d1, 0, 0, 1), WEIR_ECORRUPT);
        free(t);
    }
    weir__crow_plan_fini(&pl);
    weir_batch_destroy(b1);
    weir_batch_destroy(d1);
    weir_schema_destroy(s1);
    weir_buf_fini(&e);
    weir_batch_destroy(b);
    weir_batch_destroy(d);
    weir_schema_destroy(s);
}
