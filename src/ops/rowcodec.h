/*
 * ops/rowcodec.h - the canonical row encoding the join operators keep in
 * state, and a column copy between batches (internal to src/ops).
 *
 * Encoding of columns [0, n) of a row: per column a NULL flag byte, then
 * the fixed-width value, or a u32 length and the bytes of a string.
 */
#ifndef WEIR_OPS_ROWCODEC_H
#define WEIR_OPS_ROWCODEC_H

#include "weir/batch.h"
#include "weir/buf.h"
#include "weir/operator.h"

/* Clears out and writes columns [0, n) of (b, row) into it. */
int weir__row_encode(const weir_batch *b, uint32_t row, uint32_t n,
                     weir_buf *out);
/* Writes an encoded row into columns [off, off + n) of (dst, row);
 * WEIR_ECORRUPT when it does not decode. */
int weir__row_decode(const uint8_t *p, size_t len, weir_batch *dst,
                     uint32_t row, uint32_t off, uint32_t n);
/* Copies columns [soff, soff + n) of (src, srow) into columns [off, off + n) of
 * (dst, drow). */
int weir__row_copy_cols(weir_batch *dst, uint32_t drow, uint32_t off,
                        const weir_batch *src, uint32_t srow, uint32_t soff,
                        uint32_t n);

/* Appends column col of (b, row) to out in an order-preserving encoding
 * (ops/rank.c): bytewise order of the encodings is SQL order, ASC or DESC,
 * with NULL first or last. */
int weir__sort_key_col(weir_buf *out, const weir_batch *b, uint32_t col,
                       uint32_t row, bool desc, bool nulls_last);

/* A new row at the end of an operator's output batch, emitting the batch
 * first when it is full: the row's index, or a negative WEIR_E... code. */
int weir__out_row(weir_op_ctx *ctx, weir_batch *out);

#endif
