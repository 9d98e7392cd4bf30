/*
 * fuzz/fuzz_common.h - what the decoder fuzz targets share: a schema with
 * every type, and the round-trip check. Included by each target (and by
 * tests/test_fuzz_replay.c, which runs the targets over the seed corpus).
 *
 * Properties checked on every input: no crash, no leak, no read out of
 * bounds; a failed record leaves the batch unchanged; a record that decodes
 * encodes to text that decodes to the same row.
 */
#ifndef WEIR_FUZZ_COMMON_H
#define WEIR_FUZZ_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weir/format.h"

#define FUZZ_CHECK(cond)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "%s:%d: fuzz property failed: %s\n", __FILE__,     \
                    __LINE__, #cond);                                          \
            abort();                                                           \
        }                                                                      \
    } while (0)

/* json: with ARRAY, MAP and ROW columns too (csv refuses them). */
static weir_schema *fuzz_schema(int json)
{
    weir_schema *s = weir_schema_create();
    weir_schema_add(s, "id", weir_type_make(WEIR_TYPE_BIGINT, true));
    weir_schema_add(s, "name", weir_type_make(WEIR_TYPE_STRING, true));
    weir_schema_add(s, "price", weir_type_make(WEIR_TYPE_DOUBLE, true));
    weir_schema_add(s, "amount", weir_type_decimal(12, 3, true));
    weir_schema_add(s, "ok", weir_type_make(WEIR_TYPE_BOOLEAN, true));
    weir_schema_add(s, "n", weir_type_make(WEIR_TYPE_INT, true));
    weir_schema_add(s, "ts", weir_type_make(WEIR_TYPE_TIMESTAMP, true));
    weir_schema_add(s, "lts", weir_type_make(WEIR_TYPE_TIMESTAMP_LTZ, true));
    weir_schema_add(s, "raw", weir_type_make(WEIR_TYPE_BYTES, true));
    weir_schema_add(s, "req", weir_type_make(WEIR_TYPE_BIGINT, false));
    if (json) {
        weir_type arr, map, row, rows;
        weir_type f[3] = {weir_type_make(WEIR_TYPE_STRING, true), weir_type_make(WEIR_TYPE_DOUBLE, true)};
        const char *names[3] = {"s", "d", "a"};
        FUZZ_CHECK(weir_type_array(weir_type_make(WEIR_TYPE_BIGINT, true), true, &arr) == 0);
        FUZZ_CHECK(weir_type_map(weir_type_make(WEIR_TYPE_STRING, false), arr, true, &map) == 0);
        f[2] = arr;
        FUZZ_CHECK(weir_type_row(f, names, 3, true, &row) == 0);
        FUZZ_CHECK(weir_type_array(row, true, &rows) == 0);
        weir_schema_add(s, "arr", arr);
        weir_schema_add(s, "m", map);
        weir_schema_add(s, "r", row);
        weir_schema_add(s, "rs", rows);
    }
    return s;
}

/*
 * Whether row r of a and row r2 of b hold the same values. csv_null_string:
 * a NULL STRING or BYTES reads back empty (CSV without a null literal).
 */
static int fuzz_same_row(const weir_batch *a, uint32_t r, const weir_batch *b,
                         uint32_t r2, int csv_null_string)
{
    for (uint32_t c = 0; c < a->schema->n_fields; c++) {
        char x[256], y[256];
        bool xn = weir_batch_is_null(a, c, r),
             yn = weir_batch_is_null(b, c, r2);
        if (csv_null_string && xn && weir_type_is_string(a->cols[c].type.id)) {
            if (yn)
                return 0;
            uint32_t len;
            weir_batch_str(b, c, r2, &len);
            if (len != 0)
                return 0;
            continue;
        }
        if (xn != yn)
            return 0;
        if (weir_type_is_varlen(a->cols[c].type.id)) { /* also nested values: their bytes */
            uint32_t la, lb;
            const char *sa = weir_batch_str(a, c, r, &la),
                       *sb = weir_batch_str(b, c, r2, &lb);
            if (la != lb || memcmp(sa, sb, la) != 0)
                return 0;
            continue;
        }
        weir_batch_format_value(a, c, r, x, sizeof x);
        weir_batch_format_value(b, c, r2, y, sizeof y);
        if (strcmp(x, y) != 0)
            return 0;
    }
    return 1;
}

/* Decoders and encoders per options byte, made once: libFuzzer runs in one
 * process. */
typedef struct fuzz_codecs {
    weir_schema *schema;
    weir_decoder *d, *d2;
    weir_encoder *e;
    weir_batch *b, *back;
    weir_buf out;
} fuzz_codecs;

static fuzz_codecs *fuzz_codecs_for(const weir_format_options *opt,
                                    unsigned key)
{
    static fuzz_codecs cache[2][256];
    fuzz_codecs *c = &cache[opt->kind == WEIR_FORMAT_CSV][key & 255];
    if (c->schema)
        return c;
    weir_error err;
    c->schema = fuzz_schema(opt->kind == WEIR_FORMAT_JSON);
    FUZZ_CHECK(weir_decoder_create(opt, c->schema, &c->d, &err) == 0);
    FUZZ_CHECK(weir_decoder_create(opt, c->schema, &c->d2, &err) == 0);
    FUZZ_CHECK(weir_encoder_create(opt, c->schema, &c->e, &err) == 0);
    c->b = weir_batch_create(c->schema, 4);
    c->back = weir_batch_create(c->schema, 4);
    weir_buf_init(&c->out);
    return c;
}

/*
 * Frames data as a stream of records and decodes each; checks the
 * round trip for every record that decodes. key identifies opt.
 */
static void fuzz_decode_stream(const weir_format_options *opt, unsigned key,
                               const char *data, size_t size)
{
    fuzz_codecs *c = fuzz_codecs_for(opt, key);
    weir_decoder *d = c->d, *d2 = c->d2;
    weir_batch *b = c->b, *back = c->back;
    weir_buf *out = &c->out;
    weir_error err;
    size_t pos = 0;
    int records = 0;
    while (pos < size && records < 64) {
        weir_frame f;
        int rc = weir_decoder_frame(d, data + pos, size - pos, true, &f);
        if (rc)
            break;
        FUZZ_CHECK(f.consumed > 0 && f.consumed <= size - pos &&
                   f.rec_len <= f.consumed);
        records++;
        const char *rec = data + pos;
        pos += f.consumed;
        if (weir_decoder_is_blank(d, rec, f.rec_len))
            continue;
        weir_batch_reset(b);
        weir_decode_error de;
        rc = weir_decoder_decode(d, rec, f.rec_len, b, &de);
        if (rc) {
            FUZZ_CHECK(rc == WEIR_EPARSE);
            FUZZ_CHECK(b->n_rows == 0 && b->heap_len == 0);
            FUZZ_CHECK(de.pos <= f.rec_len);
            FUZZ_CHECK(strncmp(de.message, "expected", 8) == 0);
            continue;
        }
        FUZZ_CHECK(b->n_rows == 1);
        weir_buf_clear(out);
        FUZZ_CHECK(weir_encoder_encode(c->e, b, 0, out, &err) == 0);
        weir_frame f2;
        FUZZ_CHECK(weir_decoder_frame(d2, (const char *)out->data, out->len,
                                      true, &f2) == 0);
        FUZZ_CHECK(f2.consumed == out->len);
        weir_batch_reset(back);
        rc = weir_decoder_decode(d2, (const char *)out->data, f2.rec_len, back,
                                 &de);
        if (rc)
            fprintf(stderr, "re-decoding %.*s failed: %s\n", (int)out->len,
                    (const char *)out->data, de.message);
        FUZZ_CHECK(rc == 0);
        if (!fuzz_same_row(b, 0, back, 0,
                           opt->kind == WEIR_FORMAT_CSV &&
                               !opt->csv_null_literal))
            fprintf(stderr, "round trip changed the row: [%.*s] -> [%.*s]\n",
                    (int)f.rec_len, rec, (int)out->len,
                    (const char *)out->data);
        FUZZ_CHECK(fuzz_same_row(b, 0, back, 0,
                                 opt->kind == WEIR_FORMAT_CSV &&
                                     !opt->csv_null_literal));
    }
}

#endif
