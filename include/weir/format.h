/*
 * weir/format.h - record formats: JSON lines, CSV and the debezium-json
 * changelog, as schema-directed decoders and encoders.
 *
 * A decoder turns one record (a line of text, or one message) into one row
 * appended to a batch, writing straight into the batch's columns and string
 * heap: nothing is allocated per record. A decoder also knows how records
 * are framed in a byte stream (a line for JSON, a line outside quotes for
 * CSV), so a file reader can cut its buffer into records.
 *
 * On bad input a decoder never crashes and never appends a partial row: it
 * returns WEIR_EPARSE and says where (byte index in the record) and what was
 * expected. The caller (a source) adds the file, line, column and offset and
 * applies its bad-input policy.
 *
 * Value mapping (both directions), following Flink's json and csv formats:
 *   BOOLEAN        true / false
 *   INT, BIGINT    integer numbers (JSON also accepts them as strings)
 *   DOUBLE         numbers; "NaN", "Infinity", "-Infinity" as strings
 *   DECIMAL(p,s)   numbers, parsed exactly, rounded half-up to s digits
 *   STRING         strings (a JSON number, boolean, object or array read
 *                  into a STRING column keeps its JSON text)
 *   BYTES          base64 strings
 *   TIMESTAMP(3)   "yyyy-MM-dd HH:mm:ss.SSS" (UTC); ISO-8601 'T' accepted
 *   TIMESTAMP_LTZ  the same with a trailing 'Z' on output; 'Z' optional on
 *                  input
 *   DATE           "yyyy-MM-dd"
 *   TIME(p)        "HH:mm:ss[.fraction]" (no trailing zeros on output; p
 *                  digits kept on input)
 * See docs/connectors.md for every decision and difference from Flink.
 */
#ifndef WEIR_FORMAT_H
#define WEIR_FORMAT_H

#include "weir/batch.h"
#include "weir/buf.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum weir_format_kind {
    WEIR_FORMAT_JSON = 0,      /* JSON lines: one object per line */
    WEIR_FORMAT_CSV,           /* RFC 4180 CSV */
    WEIR_FORMAT_DEBEZIUM_JSON, /* changelog: {"before":..,"after":..,"op":..} */
} weir_format_kind;

typedef struct weir_format_options {
    weir_format_kind kind;
    /* JSON: a field missing from an object is an error instead of NULL. */
    bool json_fail_on_missing_field;
    /* JSON encoder: leave out fields whose value is NULL. */
    bool json_ignore_null_fields;
    /* JSON encoder: timestamps as "yyyy-MM-ddTHH:mm:ss.SSS" (ISO-8601)
     * instead of "yyyy-MM-dd HH:mm:ss.SSS" (SQL). Decoders accept both. */
    bool json_timestamp_iso8601;
    char csv_field_delimiter; /* ',' */
    char csv_quote_character; /* '"'; 0 disables quoting */
    /* CSV: the first line of each file is a header (skipped on input,
     * written at the top of each part file on output). */
    bool csv_header;
    /* CSV: lines starting with '#' are comments (skipped). */
    bool csv_allow_comments;
    /* CSV: this field text means NULL (e.g. "\\N"); NULL pointer: none. Copied.
     */
    const char *csv_null_literal;
    /* debezium-json decoder: each message wraps the change in
     * {"schema": ..., "payload": {...}} ('debezium-json.schema-include'). */
    bool debezium_schema_include;
} weir_format_options;

/* Defaults for kind (Flink's defaults). */
void weir_format_options_init(weir_format_options *o, weir_format_kind kind);
/* "json", "csv", "debezium-json". */
const char *weir_format_name(weir_format_kind kind);
/* Parses a format name as Flink spells it; WEIR_EINVAL if unknown. */
int weir_format_parse_name(const char *name, weir_format_kind *out);
/* File name extension for part files: "json" or "csv". */
const char *weir_format_extension(weir_format_kind kind);
/* Whether the format can carry a changelog (-U, +U, -D rows). */
bool weir_format_is_changelog(weir_format_kind kind);

/* Where and why a record failed to decode. */
typedef struct weir_decode_error {
    size_t pos;        /* byte index in the record where the error was found */
    char message[256]; /* "expected ..., found ..." */
} weir_decode_error;

typedef struct weir_decoder weir_decoder;

/*
 * Creates a decoder for rows of schema (borrowed; must outlive the decoder).
 * Options are copied.
 */
int weir_decoder_create(const weir_format_options *opt,
                        const weir_schema *schema, weir_decoder **out,
                        weir_error *err);
void weir_decoder_destroy(weir_decoder *d);

/*
 * Decodes one record rec[0, len) (without its line terminator) and appends
 * it to out as a new row of kind +I with ts 0. Returns 0; WEIR_EPARSE with
 * *e set (out unchanged); WEIR_EINVAL if out has fewer free rows than
 * weir_decoder_rows_per_record; WEIR_ENOMEM.
 *
 * Debezium-json appends the change's rows with their kinds: op "c" or "r"
 * -> +I(after); "u" -> -U(before), +U(after); "d" -> -D(before). A missing
 * or null row image the op needs, or another op, is a bad record.
 */
int weir_decoder_decode(weir_decoder *d, const char *rec, size_t len,
                        weir_batch *out, weir_decode_error *e);
/* The most rows one record can append: 2 for debezium-json, else 1. */
uint32_t weir_decoder_rows_per_record(const weir_decoder *d);

/* A record framed in a byte stream. */
typedef struct weir_frame {
    size_t rec_len;    /* bytes of the record, without its terminator */
    size_t consumed;   /* bytes to advance past the record and its terminator */
    uint32_t newlines; /* line breaks consumed (the terminator included) */
} weir_frame;

/*
 * Finds the next record at the start of buf[0, len). Returns 0 and fills f;
 * WEIR_EAGAIN if buf holds no complete record and !eof (read more);
 * WEIR_EOF if len == 0 and eof. A trailing "\r" is not part of the record.
 * At eof a final record without a terminator is returned whole (a CSV
 * record whose quote never closes runs to the end of the input, where the
 * decoder reports the open quote).
 */
int weir_decoder_frame(const weir_decoder *d, const char *buf, size_t len,
                       bool eof, weir_frame *f);
/* The same for one record per line, whatever the format (JSON lines, CSV
 * without quoting, raw lines). */
int weir_frame_line(const char *buf, size_t len, bool eof, weir_frame *f);

/*
 * Frames and decodes in one pass, for a stream of JSON objects one per
 * line: decodes the object at the start of buf[0, len) and, when it is
 * valid and followed by a line break within max_len bytes, appends its row
 * to out and fills f as weir_decoder_frame would. Anything else (another
 * format, a bad or blank record, a record not yet whole in buf, the last
 * one without a line break) returns WEIR_EAGAIN and leaves out as it was:
 * the caller then frames and decodes that record the usual way
 * (weir_decoder_frame, weir_decoder_decode), which reports errors. The
 * rows are those the usual way gives; only the bytes are read once.
 */
int weir_decoder_decode_line(weir_decoder *d, const char *buf, size_t len,
                             size_t max_len, weir_batch *out, weir_frame *f);

/*
 * Skipping a record too long to hold in memory: feed the bytes of the stream
 * from the record's first byte on, chunk after chunk, with one state
 * (weir_decoder_skip_init first). Returns 0 when the record ends in
 * buf[0, len): f->consumed is the bytes of this chunk up to and including
 * its terminator; or WEIR_EAGAIN when all of buf belongs to the record.
 * f->newlines counts the line breaks of the chunk that were passed either
 * way. A CSV record ends at a line break outside quotes, as in framing, so
 * a quoted field with many line breaks is skipped as the one record it is.
 */
typedef struct weir_skip_state {
    uint32_t state;
} weir_skip_state;

void weir_decoder_skip_init(weir_skip_state *s);
int weir_decoder_skip(const weir_decoder *d, weir_skip_state *s,
                      const char *buf, size_t len, weir_frame *f);

/*
 * Makes a NULL (or, for JSON, missing) value in column col a bad record,
 * even if the column is nullable: the table's event time is computed from
 * it, so a row without it has no event time. why ends the message, e.g.
 * "the event time ts is computed from it" (copied). Returns 0, WEIR_EINVAL
 * (no such column) or WEIR_ENOMEM.
 */
int weir_decoder_require(weir_decoder *d, uint32_t col, const char *why);

/* Whether a framed record is no record at all: blank, or a CSV comment. */
bool weir_decoder_is_blank(const weir_decoder *d, const char *rec, size_t len);

typedef struct weir_encoder weir_encoder;

/* Creates an encoder for rows of schema (borrowed). Options are copied. */
int weir_encoder_create(const weir_format_options *opt,
                        const weir_schema *schema, weir_encoder **out,
                        weir_error *err);
void weir_encoder_destroy(weir_encoder *e);
/*
 * Appends row `row` of b, with its terminating '\n', to out. Plain json and
 * csv only write +I rows: another kind is WEIR_EUNSUPPORTED with err set
 * (the planner should have refused the query). Debezium-json maps kinds:
 * +I and +U -> {"before":null,"after":ROW,"op":"c"};
 * -U and -D -> {"before":ROW,"after":null,"op":"d"}.
 */
int weir_encoder_encode(weir_encoder *e, const weir_batch *b, uint32_t row,
                        weir_buf *out, weir_error *err);
/* Appends the header line (CSV with csv_header); nothing for other formats. */
int weir_encoder_header(weir_encoder *e, weir_buf *out);

/*
 * Appends one value in Flink's print style (Java's toString of the value:
 * null, true, 2.5, 1.0E20, 2020-01-01T12:00, 2020-01-01T12:00:00Z, [1, -2]).
 */
int weir_format_print_value(const weir_batch *b, uint32_t col, uint32_t row,
                            weir_buf *out);
/* Appends "+I[v1, v2, ...]" for a row, as Flink's print connector does. */
int weir_format_print_row(const weir_batch *b, uint32_t row, weir_buf *out);
/*
 * A nested value (its encoding, v and len) in the print format: ARRAY as
 * "[1, null]", MAP as "{a=1, b=2}", ROW as "+I[1, abc]" (Java's toString of
 * the values, as Flink's print connector shows them).
 */
int weir_format_nested_text(weir_buf *out, weir_type t, const void *v, uint32_t len);
/* A nested value as JSON: an ARRAY as an array, a MAP as an object (keys as
 * text), a ROW as an object of its fields. */
int weir_format_nested_json(weir_buf *out, weir_type t, const void *v, uint32_t len, bool iso);
/* Nested values deeper than this are not read or written. */
#define WEIR__JSON_NEST_MAX 64

#ifdef __cplusplus
}
#endif
#endif
