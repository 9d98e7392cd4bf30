/*
 * ops/rowcodec.h - the row encodings operators keep in state, and a
 * column copy between batches (internal to src/ops).
 *
 * Canonical encoding of columns [0, n) of a row (weir__row_*: temporal,
 * lookup, window join and OVER state, MATCH_RECOGNIZE, the
 * sink's upsert materializer): per column a NULL flag byte, then the
 * fixed-width value, or a u32 length and the bytes of a string. Compact
 * encoding (weir__crow_*: regular and interval joins, Top-N and
 * deduplication): see below.
 */
#ifndef WEIR_OPS_ROWCODEC_H
#define WEIR_OPS_ROWCODEC_H

#include "weir/batch.h"
#include "weir/buf.h"
#include "weir/operator.h"
#include "weir/state.h"

/* Clears out and writes columns [0, n) of (b, row) into it. */
int weir__row_encode(const weir_batch *b, uint32_t row, uint32_t n,
                     weir_buf *out);
/* The byte length of that encoding of columns [0, n) of (b, row). */
size_t weir__row_encoded_len(const weir_batch *b, uint32_t row, uint32_t n);
/* Writes that encoding, of len bytes (weir__row_encoded_len), at dst. */
void weir__row_encode_to(const weir_batch *b, uint32_t row, uint32_t n, size_t len, uint8_t *dst);
/* Appends that encoding, of len bytes (weir__row_encoded_len), to out. */
int weir__row_encode_append(const weir_batch *b, uint32_t row, uint32_t n,
                            size_t len, weir_buf *out);
/* Writes an encoded row into columns [off, off + n) of (dst, row);
 * WEIR_ECORRUPT when it does not decode. */
int weir__row_decode(const uint8_t *p, size_t len, weir_batch *dst,
                     uint32_t row, uint32_t off, uint32_t n);
/* Copies columns [soff, soff + n) of (src, srow) into columns [off, off + n) of
 * (dst, drow). */
int weir__row_copy_cols(weir_batch *dst, uint32_t drow, uint32_t off,
                        const weir_batch *src, uint32_t srow, uint32_t soff,
                        uint32_t n);

/*
 * The compact encoding of columns [0, n) of a row, the one the regular
 * joins and Top-N / deduplication keep in state (their fingerprint names
 * it: "row format: compact-1", weir__describe_row_format in ops/ops.h): a
 * NULL bitmap of (n + 7) / 8 bytes (bit c % 8 of byte c / 8 set: column c
 * is NULL), then per non-NULL column: INT, DATE and TIME as the zigzag
 * varint of the 32-bit value; BIGINT, INTERVAL, TIMESTAMP(_LTZ) and DECIMAL of precision
 * <= 18 as the zigzag varint of the 64-bit value; STRING, BYTES and the
 * nested types as a varint length and the bytes; BOOLEAN, DOUBLE and a
 * DECIMAL of precision > 18 as their bytes in the column (little-endian).
 * A row has one encoding: equal rows have equal bytes (a join's map key).
 */
/* WEIR__ROW_FORMAT, the name, is in runtime/checkpoint.h (restore compatibility). */
/* The byte length of that encoding of columns [0, n) of (b, row). */
size_t weir__crow_len(const weir_batch *b, uint32_t row, uint32_t n);
/* Writes that encoding, of len bytes (weir__crow_len), at dst. */
void weir__crow_write(const weir_batch *b, uint32_t row, uint32_t n, size_t len, uint8_t *dst);
/*
 * The same encoding with the columns c where skip[c] left out: their NULL
 * bit clear and no bytes (Top-N keeps a row without the columns its
 * partition key and sort key hold; the reader fills them from those).
 */
size_t weir__crow_len_skip(const weir_batch *b, uint32_t row, uint32_t n, const bool *skip);
void weir__crow_write_skip(const weir_batch *b, uint32_t row, uint32_t n, size_t len, uint8_t *dst, const bool *skip);
/* weir__crow_encode with those columns left out (skip NULL: none). */
int weir__crow_encode_skip(const weir_batch *b, uint32_t row, uint32_t n, const bool *skip, weir_buf *out);
/* Decodes such a row as weir__crow_decode, the columns left out not written. */
int weir__crow_decode_skip(const uint8_t *p, size_t len, weir_batch *dst, uint32_t row, uint32_t off, uint32_t n,
                           const bool *skip);
/* Clears out and writes that encoding of columns [0, n) of (b, row) into it. */
int weir__crow_encode(const weir_batch *b, uint32_t row, uint32_t n, weir_buf *out);
/* weir__crow_encode_skip after out's bytes, which it keeps (a join's row log: the row's time
 * first on some bounded sides). */
int weir__crow_encode_append_skip(const weir_batch *b, uint32_t row, uint32_t n, const bool *skip, weir_buf *out);
/* Writes a compact row into columns [off, off + n) of (dst, row), a row
 * whose columns are marked valid (a NULL column is set NULL), its strings
 * in one piece of dst's heap; WEIR_ECORRUPT when it does not decode. */
int weir__crow_decode(const uint8_t *p, size_t len, weir_batch *dst, uint32_t row, uint32_t off, uint32_t n);
/* The same for the columns i with want[i] only (want has n entries) of a
 * row stored without the columns i with skip[i] (skip NULL: none); the
 * others of the row are left as they are. The row is read up to its last
 * column wanted: a row cut or spoilt after it is not refused here (a row
 * decoded whole, as every row a join emits is, is checked whole).
 * The row's column types are those of columns [off, off + n) of types
 * (NULL: dst's; a column not wanted may have another type in dst). */
int weir__crow_decode_some(const uint8_t *p, size_t len, weir_batch *dst, uint32_t row, uint32_t off, uint32_t n,
                           const bool *skip, const bool *want, const weir_schema *types);
/*
 * A row of a checkpoint written before the compact encoding: the canonical
 * encoding of columns [0, n) at p (len bytes) into out in the compact one,
 * through row 0 of scratch (reset; columns [0, n) of the row's types);
 * WEIR_ECORRUPT when it does not decode or leaves bytes over.
 */
int weir__crow_recode(const uint8_t *p, size_t len, weir_batch *scratch, uint32_t n, weir_buf *out);

/*
 * The compact encoding of one row type, its columns' kinds and widths taken
 * once (Top-N and deduplication keep every row of a partition in it): a
 * row's length, write and decode go over the columns stored only, with no
 * per-column look-up of the type, and the skipped columns' NULL bits are
 * checked a bitmap byte at a time. The bytes are those of
 * weir__crow_*_skip with the same skip (NULL: none) for rows of those
 * types, and a row is refused where weir__crow_decode_skip refuses it.
 */
typedef struct weir__crow_col {
    uint32_t col; /* the column */
    uint8_t kind; /* how it is stored (rowcodec.c) */
    uint8_t w;    /* stored as its bytes: their number */
    uint8_t bit;  /* its NULL bit in its bitmap byte (col / 8): 1 << col % 8 */
} weir__crow_col;

typedef struct weir__crow_plan {
    uint32_t off;         /* the row's column c is column off + c of the batches read and written */
    uint32_t n;           /* the row's columns */
    uint32_t n_stored;    /* cols: those not skipped, in order */
    weir__crow_col *cols;
    uint8_t *bad;         /* per byte of the NULL bitmap, the bits a row must leave clear */
} weir__crow_plan;

/* The plan of columns [0, n) of s, the columns c where skip[c] left out (skip NULL: none). */
int weir__crow_plan_init(weir__crow_plan *pl, const weir_schema *s, uint32_t n, const bool *skip);
/* The plan of columns [off, off + n) of s, those where skip[c] left out: a join's stored
 * rows of one side, read into its columns of the output (the column kinds taken once, not
 * per column of every row decoded). */
int weir__crow_plan_init_at(weir__crow_plan *pl, const weir_schema *s, uint32_t off, uint32_t n, const bool *skip);
void weir__crow_plan_fini(weir__crow_plan *pl);
/* The byte length of row `row` of b (columns [0, n) of the plan's types) in that encoding. */
size_t weir__crow_plan_len(const weir__crow_plan *pl, const weir_batch *b, uint32_t row);
/* The lengths of rows rows[0..n) of b in that encoding into len[0..n), taken column by column
 * (a loop over the rows per stored column, not over the columns per row). */
void weir__crow_plan_lens(const weir__crow_plan *pl, const weir_batch *b, const uint32_t *rows, uint32_t n,
                          size_t *len);
/* Writes that encoding, of len bytes (weir__crow_plan_len), at dst. */
void weir__crow_plan_write(const weir__crow_plan *pl, const weir_batch *b, uint32_t row, size_t len, uint8_t *dst);
/* Decodes such a row into columns [off, off + n) of (dst, row), as weir__crow_decode_skip. */
int weir__crow_plan_decode(const weir__crow_plan *pl, const uint8_t *p, size_t len, weir_batch *dst, uint32_t row);
/* The value of the row's column col (stored; BIGINT or a timestamp) of such a row (len bytes
 * at p) into *v, read past the columns before it only: 0, or 1 when it is NULL;
 * WEIR_ECORRUPT when it does not decode that far. */
int weir__crow_plan_get_i64(const weir__crow_plan *pl, const uint8_t *p, size_t len, uint32_t col, int64_t *v);

/* Appends column col of (b, row) to out in an order-preserving encoding
 * (ops/rank.c): bytewise order of the encodings is SQL order, ASC or DESC,
 * with NULL first or last. */
int weir__sort_key_col(weir_buf *out, const weir_batch *b, uint32_t col,
                       uint32_t row, bool desc, bool nulls_last);

/* A new row at the end of an operator's output batch, emitting the batch
 * first when it is full: the row's index, or a negative WEIR_E... code. */
int weir__out_row(weir_op_ctx *ctx, weir_batch *out);

/*
 * The rows of one timestamp an operator holds until the watermark passes it
 * (ops/temporal_sort.c, ops/match.c): list state elements (sort key bytes,
 * encoded row; with_ts: first the row's own timestamp, 8 bytes), loaded
 * and ordered by the sort key, equal keys in the order they were added (a
 * stable sort).
 */
typedef struct weir__held_row {
    uint32_t sk_off, sk_len, row_off, row_len; /* into weir__held.buf */
    int64_t ts;                                /* with_ts: the row's own timestamp */
} weir__held_row;

typedef struct weir__held {
    weir_buf buf;
    weir__held_row *v;
    uint32_t n, cap;
    bool with_ts; /* set by its owner */
} weir__held;

/* Replaces h's rows with the list of st under namespace ns, ordered. */
int weir__held_load(weir__held *h, weir_state *st, const void *ns, size_t ns_len);
/* The encoded row i of h. */
static inline const uint8_t *weir__held_row_data(const weir__held *h, uint32_t i) { return h->buf.data + h->v[i].row_off; }
/* Frees a large buffer between uses, all of it at the end. */
void weir__held_trim(weir__held *h);
void weir__held_fini(weir__held *h);

#endif
