/*
 * weir/batch.h - columnar record batches.
 *
 * A batch holds up to `capacity` rows of one schema: one fixed-width array
 * per column, a validity bitmap per column, a string heap shared by the
 * STRING/BYTES columns, the event timestamp of every row and its changelog
 * kind. Buffers are allocated once and reused: weir_batch_reset() keeps
 * them, so steady-state processing allocates nothing per record (the string
 * heap grows geometrically and is then reused).
 *
 * Invariants:
 * - Rows [0, n_rows) are defined; ts[i] and kind[i] are set for each.
 * - If col->all_valid is true, every row of the column is non-NULL and the
 *   bitmap content is ignored; otherwise bit i of col->valid says whether
 *   row i is non-NULL.
 * - A weir_strref points into this batch's heap; it is meaningless in
 *   another batch. Copying rows between batches copies the bytes.
 */
#ifndef WEIR_BATCH_H
#define WEIR_BATCH_H

#include "weir/schema.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Changelog row kinds, as in Flink's RowKind. */
typedef enum weir_row_kind {
    WEIR_ROW_INSERT = 0,        /* +I */
    WEIR_ROW_UPDATE_BEFORE = 1, /* -U */
    WEIR_ROW_UPDATE_AFTER = 2,  /* +U */
    WEIR_ROW_DELETE = 3,        /* -D */
} weir_row_kind;

/* "+I", "-U", "+U", "-D" */
const char *weir_row_kind_name(weir_row_kind k);

typedef struct weir_column {
    weir_type type;
    void *data;      /* capacity values of the physical type */
    uint8_t *valid;  /* bitmap, capacity bits; see all_valid */
    bool all_valid;
} weir_column;

typedef struct weir_batch {
    const weir_schema *schema; /* borrowed; must outlive the batch */
    uint32_t n_rows;
    uint32_t capacity;
    weir_column *cols;         /* schema->n_fields columns */
    weir_ts *ts;               /* event time of each row */
    uint8_t *kind;             /* weir_row_kind of each row */
    char *heap;                /* string arena */
    size_t heap_len;
    size_t heap_cap;
    /*
     * The hash of each row's key (weir_key_hash of its encoding by the
     * weir_keyspec key_hash_of points to), as a keyed exchange computed it to
     * route the row: a keyed consumer with the same key takes it instead of
     * hashing again. Valid only while key_hash_of is set; every function
     * here that changes the rows clears it. key_hash is owned by the batch.
     */
    uint64_t *key_hash;
    const void *key_hash_of;
} weir_batch;

weir_batch *weir_batch_create(const weir_schema *schema, uint32_t capacity);
void weir_batch_destroy(weir_batch *b);
/* Forgets all rows; keeps every buffer. */
void weir_batch_reset(weir_batch *b);
static inline bool weir_batch_full(const weir_batch *b) { return b->n_rows >= b->capacity; }

/* Typed column access; no checks (the caller knows the schema). */
#define WEIR_COL(b, c, T) ((T *)(b)->cols[(c)].data)
#define WEIR_COL_I32(b, c) WEIR_COL(b, c, int32_t)
#define WEIR_COL_I64(b, c) WEIR_COL(b, c, int64_t)
#define WEIR_COL_F64(b, c) WEIR_COL(b, c, double)
#define WEIR_COL_BOOL(b, c) WEIR_COL(b, c, uint8_t)
#define WEIR_COL_STR(b, c) WEIR_COL(b, c, weir_strref)

static inline bool weir_batch_is_null(const weir_batch *b, uint32_t col, uint32_t row)
{
    const weir_column *c = &b->cols[col];
    return !c->all_valid && !(c->valid[row >> 3] & (1u << (row & 7)));
}
/* Marks row as NULL (zeroes its value) or as valid. */
void weir_batch_set_null(weir_batch *b, uint32_t col, uint32_t row);
void weir_batch_set_valid(weir_batch *b, uint32_t col, uint32_t row);

/* Pointer to the bytes of a STRING/BYTES value; valid until the batch is reset or its heap grows. */
static inline const char *weir_batch_str(const weir_batch *b, uint32_t col, uint32_t row, uint32_t *len)
{
    weir_strref r = WEIR_COL_STR(b, col)[row];
    *len = r.len;
    /* A batch whose strings are all empty has no heap: NULL + 0 is undefined. */
    return b->heap ? b->heap + r.off : "";
}
/*
 * Copies len bytes into the heap and stores the reference in (col, row).
 * May grow the heap (amortised; earlier weir_batch_str() pointers become invalid).
 */
int weir_batch_set_str(weir_batch *b, uint32_t col, uint32_t row, const char *s, size_t len);
/* Reserves len bytes of heap and returns a pointer to write them, with their reference. */
int weir_batch_heap_alloc(weir_batch *b, size_t len, char **out, weir_strref *ref);

/*
 * Appends a new row with every column NULL-free and zeroed, ts 0, kind +I;
 * returns its index, or a negative code if the batch is full.
 */
int weir_batch_append_row(weir_batch *b);
/*
 * The same for a row whose every column the caller writes next (a value, or
 * weir_batch_set_null, which zeroes it): its values are not zeroed first
 * (per column of a wide row that is measurable: 4.5 % of a join's
 * instructions on Nexmark q9).
 */
int weir_batch_append_row_to_fill(weir_batch *b);

/* Appends row `row` of src to dst (same schema layout). dst must have room. */
int weir_batch_copy_row(weir_batch *dst, const weir_batch *src, uint32_t row);

/* Copies the value of (src, scol, srow) into (dst, dcol, drow), NULL or not; strings are re-homed into dst's
 * heap. The two columns have the same type; drow is a row of dst. */
int weir_batch_copy_value(weir_batch *dst, uint32_t drow, uint32_t dcol, const weir_batch *src, uint32_t srow,
                          uint32_t scol);
/* Appends the rows of src listed in rows[0..n) to dst; dst must have room. */
int weir_batch_gather(weir_batch *dst, const weir_batch *src, const uint32_t *rows, uint32_t n);
/*
 * weir_batch_gather, and the rows' key hashes: hash[r] is the hash of row r
 * of src under the keyspec key (borrowed; only compared). dst keeps them
 * (key_hash_of = key) while every row it holds came with one of key.
 */
int weir_batch_gather_hashed(weir_batch *dst, const weir_batch *src, const uint32_t *rows, uint32_t n,
                             const uint64_t *hash, const void *key);
/* Replaces dst's content by a copy of src (dst's capacity must suffice). */
int weir_batch_copy(weir_batch *dst, const weir_batch *src);
/* Keeps only the rows whose sel[i] is non-zero, in order, in place. */
void weir_batch_filter_inplace(weir_batch *b, const uint8_t *sel);

/*
 * Formats one value as text (SQL style: NULL, true/false, numbers, strings
 * without quotes, timestamps as "yyyy-MM-dd HH:mm:ss.SSS"). Returns the
 * length written (truncated to cap-1, always NUL-terminated).
 */
size_t weir_batch_format_value(const weir_batch *b, uint32_t col, uint32_t row, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
