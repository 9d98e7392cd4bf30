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
    char (*type_desc)[40]; /* "BIGINT", "DECIMAL(10, 2)", per column */
    /* JSON key lookup: an open-addressing table of column index + 1. */
    uint32_t *slots;
    uint32_t slot_mask;
    uint32_t *name_len;
    uint32_t guess; /* the column expected next: keys usually keep their order */
    /* Per record: which columns were seen (== gen) and which are NULL. */
    uint32_t *seen;
    uint32_t gen;
    uint8_t *isnull;
    weir_buf scratch; /* unescaped strings, CSV quoted fields */
    /* The record being decoded, for error positions. */
    const char *rec;
    weir_decode_error *err;
    bool oom; /* the failure was an allocation, not the input */
};

/* Sets the decode error at `at` (a pointer into the record); returns NULL. */
const char *weir__decode_fail(weir_decoder *d, const char *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * Stores text (already unquoted/unescaped) into column col of row, converting
 * it to the column's type. `token` is how the value looked in the input, for
 * the error message; `at` is where it started. Returns 0 or WEIR_EPARSE
 * (error set) or WEIR_ENOMEM.
 */
int weir__store_text(weir_decoder *d, weir_batch *b, uint32_t col, uint32_t row, const char *s,
                     size_t n, const char *at, const char *token, size_t token_len);

/* Finishes a decoded row: validity bits from d->isnull, ts, kind, n_rows. */
void weir__finish_row(weir_decoder *d, weir_batch *b, uint32_t row);

int weir__json_decode(weir_decoder *d, const char *rec, size_t len, weir_batch *b);
int weir__csv_decode(weir_decoder *d, const char *rec, size_t len, weir_batch *b);
int weir__json_decoder_init(weir_decoder *d);

#endif
