/*
 * ops/rank.c - Top-N and deduplication over an append-only input: the
 * rows ranked [start, end] by ROW_NUMBER() OVER (PARTITION BY p ORDER BY o)
 * of each partition, kept up to date as rows arrive (Flink's append-only
 * Top-N and its deduplication).
 *
 * State per partition key: one value with the partition's best `end` rows
 * in rank order, each with its sort key - the ORDER BY columns in an
 * order-preserving encoding, so ranking is memcmp. A row that ranks below
 * `end` changes nothing and is forgotten: with an append-only input it can
 * never climb back. A row that ranks at or above `end` is inserted; the row
 * pushed past `end` is dropped from state.
 *
 * Changelog. With the rank number in the output, or a lower bound
 * (rank_start > 1, as Flink), every position whose row changed is updated:
 * -U (old row, rank) then +U (new row, rank), or +I for a position that was
 * empty. Without either, the row that entered [1, end] is +I and the one
 * that left it -D. Deduplication (Top-1 by a time
 * attribute, without the rank number) emits a replacement as -U old, +U new,
 * and for ORDER BY ... DESC (keep the last row) a row equal in time to the
 * kept one replaces it, as Flink's deduplication does; elsewhere equal rows
 * keep their arrival order (the earlier ranks first). Without ORDER BY
 * columns (n_order 0: LIMIT alone, or a deduplication by processing time,
 * which goes by arrival) every row ties.
 *
 * State is read and written once per partition per batch: a partition's
 * value is kept, as the batch's rows leave it, in a cache of the batch
 * (rows are still applied in order, so the output is as row by row), and
 * the partitions it changed are written back when the batch is done -
 * before any timer or checkpoint can look. Hot partitions (a few auctions
 * take most bids) then cost one state read and write per batch. Both go
 * to the partition's key without making it the current key where the
 * backend allows (weir__value_get_key, weir__value_edit_key: the memory
 * backend): a change of key per read and again per write-back cost more
 * than the read itself. Over an
 * append-only input the cache holds a partition's list as references -
 * rows read from state, or input rows of the batch by number, with their
 * sort keys - and encodes it only at that write: a row that a later row of
 * the same batch replaces (the newer bid of a deduplication, a lower bid
 * pushed out of a Top-10) is never copied at all. That write changes the
 * stored value where it lies (weir_value_edit): the old rows a list keeps
 * are the first ones of its old value, in order, so they stay in place or
 * move once, and each new row is encoded straight into its place - one new
 * bid in a Top-10 moves the ranks below it instead of copying the whole
 * list twice.
 *
 * Window Top-N (window_end_col >= 0; the partition includes the window's
 * bounds): rows are ranked into the same state without output, an
 * event-time timer waits for the window's end, and then the kept ranks come
 * out once as +I and the partition's state is cleared: append-only, as
 * Flink's window Top-N and window deduplication. There the rank may also be
 * RANK or DENSE_RANK: the state keeps every row whose rank is within
 * rank_end, ties included, so it may hold more than rank_end rows.
 *
 * Window Top-N of windows of local wall time (conf->time_zone): the window
 * end is a local time; a row is late when it is at or behind the local
 * floor of the watermark (weir__tz_local_floor), the timer is the first
 * instant from which that floor reaches the end (the end is its
 * namespace), and the ranks come out at the instant of local end - 1, as
 * the window aggregation's rows.
 *
 * Retractable Top-N (conf->retract: the input is updating, as Flink's
 * RetractableTopNFunction): the value holds every row of the partition in
 * rank order, equal sort keys in arrival order, since a retraction lifts
 * the row below it. +I/+U rank a row in (after the equal ones); -U/-D
 * take out the first kept row equal to it (byte-equal encodings; a row
 * that is not there changes nothing, as Flink's lenient mode). With the
 * rank number, or an offset (rank_start > 1), each rank in [start, end]
 * whose row changed is -U old, +U new, in rank order, and the rank that
 * filled is +I or the one that emptied -D (with its old row). Without it,
 * an insertion above the bound is -D (the row pushed to end + 1) then +I
 * (the new row), a removal above the bound -D (the row) then +I (the row
 * lifted from end + 1), and rows moving inside [1, end] emit nothing.
 */
#include <assert.h>
#include <string.h>

#include "ops/held_wm.h"
#include "ops/ops.h"
#include "ops/rowcodec.h"
#include "ops/top1_hint.h"
#include "runtime/checkpoint.h"
#include "state/backend.h"
#include "time/tz.h"
#include "util/hindex.h"
#include "weir/state.h"

/* One kept row of the current partition: encoded (row, rowlen; pointing
 * into a value read from state) or, with brow1 > 0, row brow1 - 1 of the
 * batch being processed. A row already emitted into the current output
 * batch (ogen == rank_op.out_gen) is row orow there: emitting it again
 * copies that row, its strings shared (a Top-N with the rank number emits
 * each row it shifts down twice, as -U at its old rank and +U at the next;
 * a deduplication emits the row it replaces again when the same key had
 * a row earlier in the batch). */
typedef struct kept {
    const uint8_t *sk;
    size_t sklen;
    const uint8_t *row;
    size_t rowlen;
    uint32_t brow1, orow;
    uint64_t ogen; /* 64 bits: out_gen never comes back to 0 (at 32, after 2^32 batches, it did) */
    const uint8_t *enc; /* read from a value: where its encoding (sort key, row) starts there; else NULL */
} kept;

/* A partition's state value as this batch's rows left it. */
typedef struct rcache_ent {
    uint64_t hash;
    uint32_t koff, klen; /* key bytes in rank_op.ckeys */
    bool dirty;          /* to be written back */
    weir_buf val;        /* the value (empty: none); append-only input: as read from state */
    kept *list;          /* append-only input: the list, pointing into val, sks and the batch */
    uint32_t n_list, cap_list;
} rcache_ent;

/* Sort keys of the batch's input rows held by cache lists (stable addresses). */
typedef struct skblock {
    struct skblock *next;
    size_t used, cap;
    uint8_t data[];
} skblock;

#define KEY_MAX 1024 /* bytes of an encoded partition key */

/* A row of the output batch (dst) to be written from another row (src; see takes_apply). */
typedef struct row_pair {
    uint32_t dst, src;
} row_pair;

typedef struct rank_op {
    const weir_rank_config *conf;
    uint32_t n_cols; /* input columns */
    weir_state *st;
    weir_batch *out;
    uint8_t *out_w;   /* the byte width of each output column (all of them) */
    bool *varlen;     /* which of the row's columns are strings (heap references) */
    size_t *take_bytes; /* per string column, the bytes of the queued takes' strings (takes_span) */
    uint64_t out_gen; /* counts the output batches (kept.ogen); 0 is none, never reached again */
    /* rows of out still to be written (takes_apply), in emission order (room for a batch each) */
    row_pair *takes;         /* from take_in */
    row_pair *ptakes;        /* from prev */
    row_pair *copies;        /* from out itself */
    uint32_t n_takes, n_ptakes, n_copies;
    const weir_batch *take_in;
    /* the output batch sent before out (output batch out_gen - 1), kept as it was sent until out
     * is sent in turn: a kept row emitted there is taken from it, not decoded again (emit) */
    weir_batch *prev;
    /* a column of out may have a NULL bitmap: a row with a NULL was decoded into it since it was
     * last sent (queued rows set their own bits) */
    bool out_bitmaps;
    weir_buf copy; /* the partition's state value, copied (state pointers die at the put) */
    weir_buf val;  /* the value being written */
    weir_buf sk;   /* the input row's sort key */
    weir_buf row;  /* the input row, encoded */
    kept *kept;
    uint32_t cap_kept;
    /* the batch's partition keys: row r's is bkeys[koff[r], + klen[r]) (klen over
     * KEY_MAX: too long, not stored), its hash hashes[r] (weir_key_hash) */
    weir_buf bkeys;
    /* the batch's sort keys, when all have one width (bsk_w > 0): row r's at bsk.data + r * bsk_w */
    weir_buf bsk;
    size_t bsk_w;
    uint32_t *koff, *klen;
    uint64_t *hashes;
    uint32_t cap_hashes;
    uint8_t *pf; /* which rows' partitions are prefetched (prefetch_rows) */
    /* the batch's rows that the write-back encodes into state, and their lengths (new_row_lens) */
    uint32_t *wrows;
    size_t *wlens;
    uint32_t cap_w;
    /* the batch's cache: entries (their buffers kept across batches), an open hash over them */
    rcache_ent *ents;
    uint32_t n_ents, cap_ents;
    uint32_t *slots; /* entry index + 1, 0 empty */
    uint32_t n_slots;
    weir_buf ckeys;
    skblock *sks;
    uint64_t *n_changes;
    uint64_t *n_late;
    uint64_t *n_missing; /* retractions of rows not kept */
    /* The columns a kept row leaves out (rank rows 2, see "state" below): drop[c] when the
     * partition key or the sort key holds column c; NULL when none does. */
    bool *drop;
    /* Where the left-out columns lie in a partition key of fkey_len bytes and a sort key of
     * fsk_len bytes, the lengths with no NULL (fill_fixed: no key has a string, so those lengths
     * are fixed): n_fill of them, each read without walking the keys (fill_dropped). */
    struct fill_at {
        uint32_t col;
        uint16_t at;   /* the value's offset in its key */
        uint8_t w;     /* its bytes in the column */
        uint8_t in_sk; /* 0: in the partition key; 1: in the sort key; 2: descending there */
    } *fill;
    uint32_t n_fill;
    size_t fkey_len, fsk_len;
    bool fill_fixed;
    weir__crow_plan plan; /* the stored row's encoding: the row's columns but the left-out ones */
    /* the partition key of the rows being emitted (their left-out columns come from it) */
    const uint8_t *pkey;
    size_t pklen;
    /* a Top-1 over an append-only input outside windows (a deduplication, a LIMIT 1 per
     * partition): each list holds at most one row (top1_row) */
    bool top1;
    weir__top1_hint *hint; /* the join chained before it reads it (conf->top1_link), or NULL */
    weir__tz *tz;        /* conf->time_zone loaded; NULL: UTC */
    int64_t tz_end, tz_fire; /* the last local window end and its timer instant */
    /* Window Top-N: its watermark, held across a restore (ops/held_wm.h) */
    weir__held_wm wm;
} rank_op;

/* ---- the order-preserving sort key ---- */

/* Swaps between host and big-endian byte order (8 bytes loaded as a big-endian number, and back). */
static inline uint64_t be64(uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return v;
#else
    return __builtin_bswap64(v);
#endif
}

/* v big-endian (inverted when invert) into 8 bytes of b's room, which the caller reserved. */
static inline int put_be64(weir_buf *b, uint64_t v, bool invert)
{
    v = be64(v) ^ (invert ? ~UINT64_C(0) : 0);
    memcpy(b->data + b->len, &v, 8);
    b->len += 8;
    return 0;
}

/*
 * Appends column col of (b, row) so that bytewise order is the SQL order:
 * a flag byte (NULL before or after every value, as nulls_last says), then
 * integers with the sign bit flipped, big-endian; doubles as their sortable
 * bits (-0.0 = 0.0); strings with 0x00 escaped as 00 ff and ended by 00 00.
 * Descending inverts the value bytes, not the flag.
 */
int weir__sort_key_col(weir_buf *out, const weir_batch *b, uint32_t col, uint32_t row, bool desc, bool nulls_last)
{
    int rc = weir_buf_reserve(out, 17); /* the flag and a value of up to 16 bytes */
    if (rc)
        return rc;
    if (weir_batch_is_null(b, col, row)) {
        out->data[out->len++] = nulls_last ? 2 : 0;
        return 0;
    }
    out->data[out->len++] = 1;
    const weir_column *c = &b->cols[col];
    uint8_t inv = desc ? 0xff : 0;
    switch (c->type.id) {
    case WEIR_TYPE_BOOLEAN:
        out->data[out->len++] = (uint8_t)((((const uint8_t *)c->data)[row] ? 1 : 0) ^ inv);
        return 0;
    case WEIR_TYPE_DATE:
    case WEIR_TYPE_TIME:
    case WEIR_TYPE_INT:
        return put_be64(out, (uint64_t)(int64_t)((const int32_t *)c->data)[row] ^ (UINT64_C(1) << 63), desc);
    case WEIR_TYPE_DOUBLE: {
        double d = ((const double *)c->data)[row];
        if (d == 0)
            d = 0; /* -0.0 */
        uint64_t bits;
        memcpy(&bits, &d, 8);
        bits = (bits >> 63) ? ~bits : bits | (UINT64_C(1) << 63);
        return put_be64(out, bits, desc);
    }
    case WEIR_TYPE_STRING:
    case WEIR_TYPE_BYTES:
    case WEIR_TYPE_ARRAY:
    case WEIR_TYPE_MAP:
    case WEIR_TYPE_MULTISET:
    case WEIR_TYPE_ROW: {
        uint32_t len;
        const char *s = weir_batch_str(b, col, row, &len);
        if ((rc = weir_buf_reserve(out, 2 * (size_t)len + 2)))
            return rc;
        for (uint32_t i = 0; i < len; i++) {
            uint8_t x = (uint8_t)s[i];
            out->data[out->len++] = x ^ inv;
            if (!x)
                out->data[out->len++] = 0xff ^ inv;
        }
        out->data[out->len++] = inv;
        out->data[out->len++] = inv;
        return 0;
    }
    default: /* BIGINT, DECIMAL (unscaled, one scale per column), timestamps */
        if (weir_type_is_wide(c->type)) { /* 128 bits: high word (sign flipped), then low word */
            __int128 v;
            memcpy(&v, (const char *)c->data + (size_t)row * 16, 16);
            unsigned __int128 u = (unsigned __int128)v ^ ((unsigned __int128)1 << 127);
            put_be64(out, (uint64_t)(u >> 64), desc);
            return put_be64(out, (uint64_t)u, desc);
        }
        return put_be64(out, (uint64_t)((const int64_t *)c->data)[row] ^ (UINT64_C(1) << 63), desc);
    }
}

static int sort_key(const weir_rank_config *c, const weir_batch *b, uint32_t row, weir_buf *out)
{
    weir_buf_clear(out);
    for (uint32_t i = 0; i < c->n_order; i++) {
        int rc = weir__sort_key_col(out, b, c->order_cols[i], row, c->order_desc[i], c->nulls_last[i]);
        if (rc)
            return rc;
    }
    return 0;
}

/* memcmp order, then the shorter first. Sort keys are short (9 bytes for a
 * BIGINT or timestamp), so they are compared 8 bytes at a time here rather
 * than in a call. */
static inline int sk_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    size_t m = alen < blen ? alen : blen, i = 0;
    for (; i + 8 <= m; i += 8) {
        uint64_t x, y;
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (x != y)
            return be64(x) < be64(y) ? -1 : 1;
    }
    for (; i < m; i++) /* empty keys (no ORDER BY) may be NULL: m is 0 then */
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return (alen > blen) - (alen < blen);
}

/* ---- state: u32 count with bit 31 set (RANK_ROWS_2), then per row:
 * bytes sort key, bytes row: the compact encoding (weir__crow_encode in
 * ops/rowcodec.h) without the columns that the partition key or the sort
 * key already hold (o->drop: a fixed-width partition column; an INT, DATE,
 * TIME, BIGINT, timestamp or DECIMAL(<= 18) ORDER BY column), which are
 * read back from those (fill_dropped). The planner names the layout in the
 * fingerprint ("rank rows: 2", WEIR__RANK_ROWS). A checkpoint of an
 * earlier weir holds rows whole, the count without bit 31: they are
 * re-encoded after its restore (rank_rows2); rows of the canonical
 * encoding, older still, first by rank_recode. ---- */

int weir__describe_rank_rows(weir_job *job, weir_stream s)
{
    return weir_job_describe_state(job, s, WEIR__RANK_ROWS_FIELD, WEIR__RANK_ROWS);
}

/* The count's flag of the layout above; without it the rows are whole. */
#define RANK_ROWS_2 (UINT32_C(1) << 31)

/* A column an ORDER BY sort key holds exactly (weir__sort_key_col): an integer of 4 or 8 bytes
 * (the bytes it takes in a column), else 0. DOUBLE is not (-0.0 and 0.0 share a key). */
static size_t sk_int_width(weir_type t)
{
    switch (t.id) {
    case WEIR_TYPE_INT:
    case WEIR_TYPE_DATE:
    case WEIR_TYPE_TIME:
        return 4;
    case WEIR_TYPE_BIGINT:
    case WEIR_TYPE_TIMESTAMP:
    case WEIR_TYPE_TIMESTAMP_LTZ:
        return 8;
    case WEIR_TYPE_DECIMAL:
        return weir_type_is_wide(t) ? 0 : 8;
    default:
        return 0;
    }
}

/* o->drop from the configuration: the columns a kept row leaves out. */
static int drop_init(rank_op *o)
{
    const weir_rank_config *c = o->conf;
    const weir_schema *s = c->out_schema;
    bool any = false;
    bool *d = weir_calloc(o->n_cols ? o->n_cols : 1, sizeof *d);
    if (!d)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < c->partition.n; i++) {
        uint32_t col = c->partition.cols[i];
        if (col < o->n_cols && !weir_type_is_varlen(s->fields[col].type.id))
            any = d[col] = true;
    }
    for (uint32_t i = 0; i < c->n_order; i++) {
        uint32_t col = c->order_cols[i];
        if (col < o->n_cols && sk_int_width(s->fields[col].type))
            any = d[col] = true;
    }
    if (!any) {
        weir_free(d);
        d = NULL;
    }
    o->drop = d;
    if (!any)
        return 0;
    /* the fixed places: every partition column of one width, every ORDER BY column not a string */
    o->fill = weir_calloc(c->partition.n + c->n_order, sizeof *o->fill);
    if (!o->fill)
        return WEIR_ENOMEM;
    size_t at = 0;
    for (uint32_t i = 0; i < c->partition.n && at != SIZE_MAX; i++) {
        weir_type t = s->fields[c->partition.cols[i]].type;
        if (weir_type_is_varlen(t.id)) {
            at = SIZE_MAX;
            break;
        }
        at++; /* the flag */
        if (d[c->partition.cols[i]])
            o->fill[o->n_fill++] = (struct fill_at){c->partition.cols[i], (uint16_t)at, (uint8_t)weir_type_size(t), 0};
        at += weir_type_size(t);
    }
    o->fkey_len = at;
    at = 0;
    for (uint32_t i = 0; i < c->n_order && at != SIZE_MAX; i++) {
        uint32_t col = c->order_cols[i];
        weir_type t = s->fields[col].type;
        if (weir_type_is_varlen(t.id)) {
            at = SIZE_MAX;
            break;
        }
        at++;
        size_t iw = sk_int_width(t);
        if (iw && d[col])
            o->fill[o->n_fill++] = (struct fill_at){col, (uint16_t)at, (uint8_t)iw, c->order_desc[i] ? 2 : 1};
        at += t.id == WEIR_TYPE_BOOLEAN ? 1 : weir_type_is_wide(t) ? 16 : 8;
    }
    o->fsk_len = at;
    o->fill_fixed = o->fkey_len <= KEY_MAX && o->fsk_len <= UINT16_MAX; /* SIZE_MAX: a string */
    return 0;
}

/* A row of in in the stored encoding: its length, and its bytes at dst (o->plan: the same bytes as
 * weir__crow_write_skip with o->drop, by the columns stored only). */
static inline size_t row_len(const rank_op *o, const weir_batch *in, uint32_t r)
{
    return weir__crow_plan_len(&o->plan, in, r);
}

static inline void row_write(const rank_op *o, const weir_batch *in, uint32_t r, size_t len, uint8_t *dst)
{
    weir__crow_plan_write(&o->plan, in, r, len, dst);
}

/* Clears out and writes row r of in into it, encoded as stored. */
static int row_encode(const rank_op *o, const weir_batch *in, uint32_t r, weir_buf *out)
{
    return weir__crow_encode_skip(in, r, o->n_cols, o->drop, out);
}

/* A column value of w bytes at p into (out, row), or NULL. */
static inline void fill_col(rank_op *o, uint32_t col, uint32_t row, const uint8_t *p, size_t w, bool null)
{
    if (null) {
        weir_batch_set_null(o->out, col, row);
        o->out_bitmaps = true;
        return;
    }
    char *d = (char *)o->out->cols[col].data + (size_t)row * w;
    if (w == 8) /* the common widths as constants: a move, not a call */
        memcpy(d, p, 8);
    else if (w == 4)
        memcpy(d, p, 4);
    else
        memcpy(d, p, w);
}

/*
 * The columns a stored row leaves out into row `row` of o->out: from the
 * partition key (key, klen: weir_key_encode's bytes, a flag byte 1 and the
 * value's bytes, 0 for NULL) and the row's sort key (weir__sort_key_col's).
 * WEIR_ECORRUPT when they are shorter than their columns.
 */
static int fill_dropped(rank_op *o, const uint8_t *key, size_t klen, const uint8_t *sk, size_t sklen, uint32_t row)
{
    if (o->fill_fixed && klen == o->fkey_len && sklen == o->fsk_len) { /* no NULL: their fixed places */
        for (uint32_t i = 0; i < o->n_fill; i++) {
            const struct fill_at *f = &o->fill[i];
            char *d = (char *)o->out->cols[f->col].data + (size_t)row * f->w;
            if (!f->in_sk) {
                if (f->w == 8)
                    memcpy(d, key + f->at, 8);
                else
                    memcpy(d, key + f->at, f->w);
                continue;
            }
            uint64_t v;
            memcpy(&v, sk + f->at, 8);
            v = be64(v) ^ (f->in_sk == 2 ? ~UINT64_C(0) : 0) ^ (UINT64_C(1) << 63);
            if (f->w == 4) {
                int32_t v32 = (int32_t)(int64_t)v;
                memcpy(d, &v32, 4);
            } else {
                memcpy(d, &v, 8);
            }
        }
        return 0;
    }
    const weir_rank_config *c = o->conf;
    const weir_schema *s = c->out_schema;
    size_t at = 0;
    for (uint32_t i = 0; i < c->partition.n; i++) {
        uint32_t col = c->partition.cols[i];
        if (at >= klen)
            return WEIR_ECORRUPT;
        bool null = key[at++] == 0;
        if (null) {
            if (col < o->n_cols && o->drop[col])
                fill_col(o, col, row, NULL, 0, true);
            continue;
        }
        if (weir_type_is_varlen(s->fields[col].type.id)) {
            uint32_t len;
            if (klen - at < 4)
                return WEIR_ECORRUPT;
            memcpy(&len, key + at, 4);
            if (klen - at - 4 < len)
                return WEIR_ECORRUPT;
            at += 4 + (size_t)len;
            continue;
        }
        size_t w = weir_type_size(s->fields[col].type);
        if (klen - at < w)
            return WEIR_ECORRUPT;
        if (col < o->n_cols && o->drop[col])
            fill_col(o, col, row, key + at, w, false);
        at += w;
    }
    at = 0;
    for (uint32_t i = 0; i < c->n_order; i++) {
        uint32_t col = c->order_cols[i];
        weir_type t = s->fields[col].type;
        if (at >= sklen)
            return WEIR_ECORRUPT;
        bool null = sk[at++] != 1;
        size_t iw = col < o->n_cols ? sk_int_width(t) : 0; /* (order columns are input columns) */
        if (null) {
            if (iw && o->drop[col])
                fill_col(o, col, row, NULL, 0, true);
            continue;
        }
        uint8_t inv = c->order_desc[i] ? 0xff : 0;
        size_t vw = 8; /* the value's bytes in the key */
        switch (t.id) {
        case WEIR_TYPE_BOOLEAN:
            vw = 1;
            break;
        case WEIR_TYPE_STRING:
        case WEIR_TYPE_BYTES:
        case WEIR_TYPE_ARRAY:
        case WEIR_TYPE_MAP:
        case WEIR_TYPE_MULTISET:
        case WEIR_TYPE_ROW: /* escaped bytes up to 00 00 (inverted when descending) */
            for (vw = 0;; vw++) {
                if (at + vw + 1 >= sklen)
                    return WEIR_ECORRUPT;
                if ((sk[at + vw] ^ inv) == 0) {
                    vw++;
                    if ((sk[at + vw] ^ inv) == 0) {
                        vw++;
                        break;
                    }
                }
            }
            break;
        default:
            vw = weir_type_is_wide(t) ? 16 : 8;
            break;
        }
        if (sklen - at < vw)
            return WEIR_ECORRUPT;
        if (iw && o->drop[col]) {
            uint64_t v;
            memcpy(&v, sk + at, 8);
            v = be64(v) ^ (inv ? ~UINT64_C(0) : 0) ^ (UINT64_C(1) << 63);
            if (iw == 4) {
                int32_t v32 = (int32_t)(int64_t)v;
                fill_col(o, col, row, (const uint8_t *)&v32, 4, false);
            } else {
                fill_col(o, col, row, (const uint8_t *)&v, 8, false);
            }
        }
        at += vw;
    }
    return 0;
}

/* A stored row (its sort key sk) into row `row` of o->out, of the partition with key (key, klen). */
static int row_decode(rank_op *o, const uint8_t *key, size_t klen, const kept *k, uint32_t row)
{
    int rc = weir__crow_plan_decode(&o->plan, k->row, k->rowlen, o->out, row);
    return rc || !o->drop ? rc : fill_dropped(o, key, klen, k->sk, k->sklen, row);
}

/* Room for n rows in the array *arr of capacity *cap. */
static int list_reserve(kept **arr, uint32_t *cap, uint32_t n)
{
    if (n <= *cap)
        return 0;
    kept *gk = weir_realloc(*arr, n * sizeof *gk);
    if (!gk)
        return WEIR_ENOMEM;
    *arr = gk;
    *cap = n;
    return 0;
}

/* A list's bytes field at c (weir_cursor_get_bytes): a length of one or two varint bytes (a sort
 * key's, a row's under 16 KiB) read here, as that call per field showed in q19's parse; longer
 * ones, and every refusal, through the call. */
static inline int list_bytes(weir_cursor *c, const uint8_t **p, size_t *n)
{
    const uint8_t *q = c->p;
    size_t left = (size_t)(c->end - q), len, at;
    if (left >= 1 && q[0] < 0x80) {
        len = q[0];
        at = 1;
    } else if (left >= 2 && q[1] < 0x80) {
        len = (size_t)(q[0] & 0x7f) | (size_t)q[1] << 7;
        at = 2;
    } else {
        const void *v;
        int rc = weir_cursor_get_bytes(c, &v, n);
        *p = v;
        return rc;
    }
    if (left - at < len)
        return WEIR_ECORRUPT;
    *p = q + at;
    *n = len;
    c->p = q + at + len;
    return 0;
}

/* The list of a value into *arr (pointers into the value; room for one more
 * row); an empty value is an empty list. Its rows are whole (an earlier
 * weir's layout, without RANK_ROWS_2) only where whole is set: then *whole
 * says whether they are; elsewhere such a value is WEIR_ECORRUPT. */
static int parse_into_as(rank_op *o, const weir_buf *val, kept **arr, uint32_t *cap, uint32_t *n, bool *whole)
{
    *n = 0;
    if (whole)
        *whole = false;
    if (!val->len)
        return 0;
    weir_cursor c;
    weir_cursor_init(&c, val->data, val->len);
    uint32_t count;
    if (weir_cursor_get_u32(&c, &count))
        return WEIR_ECORRUPT;
    if (count & RANK_ROWS_2)
        count &= ~RANK_ROWS_2;
    else if (whole)
        *whole = true;
    else if (count) /* a list of whole rows: the restore re-encodes them (rank_rows2) */
        return WEIR_ECORRUPT;
    /* RANK and DENSE_RANK keep ties past rank_end */
    if (o->conf->rank_fn == WEIR_RANK_ROW_NUMBER && !o->conf->retract && count > o->conf->rank_end)
        return WEIR_ECORRUPT;
    int rc = list_reserve(arr, cap, count + 1);
    if (rc)
        return rc;
    for (uint32_t i = 0; i < count; i++) {
        kept *k = &(*arr)[i];
        k->enc = c.p;
        if (list_bytes(&c, &k->sk, &k->sklen) || list_bytes(&c, &k->row, &k->rowlen))
            return WEIR_ECORRUPT;
        k->brow1 = 0;
        k->ogen = 0;
    }
    *n = count;
    return 0;
}

static int parse_into(rank_op *o, const weir_buf *val, kept **arr, uint32_t *cap, uint32_t *n)
{
    return parse_into_as(o, val, arr, cap, n, NULL);
}

/* o->kept from a value (pointers into it). */
static int parse(rank_op *o, const weir_buf *val, uint32_t *n)
{
    return parse_into(o, val, &o->kept, &o->cap_kept, n);
}

/* A stable copy of a sort key until the batch's cache is written back. */
static const uint8_t *sk_keep(rank_op *o, const uint8_t *sk, size_t len)
{
    skblock *b = o->sks;
    if (!b || b->cap - b->used < len) {
        size_t cap = len > 16384 ? len : 16384;
        skblock *nb = weir_malloc(sizeof *nb + cap);
        if (!nb)
            return NULL;
        nb->next = b;
        nb->used = 0;
        nb->cap = cap;
        o->sks = b = nb;
    }
    uint8_t *p = b->data + b->used;
    if (len)
        memcpy(p, sk, len);
    b->used += len;
    return p;
}

/* Frees the sort-key blocks but the newest, which is emptied for the next batch. */
static void sk_reset(rank_op *o, bool all)
{
    skblock *b = o->sks;
    if (!b)
        return;
    skblock *rest = all ? b : b->next;
    if (!all) {
        b->next = NULL;
        b->used = 0;
    } else {
        o->sks = NULL;
    }
    while (rest) {
        skblock *next = rest->next;
        weir_free(rest);
        rest = next;
    }
}

/* The current key's value from state into out (empty when there is none). */
static int read_state(rank_op *o, weir_buf *out)
{
    weir_buf_clear(out);
    const void *v;
    size_t len;
    int rc = weir_value_get(o->st, NULL, 0, &v, &len);
    if (rc == WEIR_ENOTFOUND)
        return 0;
    return rc ? rc : weir_buf_put(out, v, len);
}

/*
 * The value of the partition with key bytes key[0..klen) of hash h into out
 * (empty when there is none). The current key stays where the backend reads
 * another key's value (weir__value_get_key); elsewhere it is set to this one.
 */
static int read_key(rank_op *o, weir_op_ctx *ctx, const uint8_t *key, size_t klen, uint64_t h, weir_buf *out)
{
    weir_buf_clear(out);
    const void *v;
    size_t len;
    int rc = weir__value_get_key(o->st, key, klen, h, &v, &len);
    if (rc == 1)
        return (rc = weir_op_set_key_hashed(ctx, key, klen, h)) ? rc : read_state(o, out);
    if (rc == WEIR_ENOTFOUND)
        return 0;
    return rc ? rc : weir_buf_put(out, v, len);
}

/* A value's len bytes, written whole by weir_value_edit (as weir_value_put). */
typedef struct value_bytes {
    const uint8_t *data;
    size_t len;
} value_bytes;

static int whole_fill(void *ud, uint8_t *val, size_t len, size_t keep)
{
    (void)keep;
    const value_bytes *w = ud;
    if (len)
        memcpy(val, w->data, len);
    return 0;
}

/*
 * Writes the value of the partition of cache entry e: by fn (weir_value_edit,
 * keep_max as there), or as len bytes at data where fn is NULL, without a
 * change of the current key where the backend allows (weir__value_edit_key).
 */
static int write_key(rank_op *o, weir_op_ctx *ctx, const rcache_ent *e, size_t len, size_t keep_max,
                     weir_value_edit_fn fn, void *ud, const uint8_t *data)
{
    const uint8_t *key = o->ckeys.data + e->koff;
    value_bytes w = {data, len};
    if (!fn) {
        fn = whole_fill;
        ud = &w;
        keep_max = 0;
    }
    int rc = weir__value_edit_key(o->st, key, e->klen, e->hash, len, keep_max, fn, ud);
    if (rc != 1)
        return rc;
    if ((rc = weir_op_set_key_hashed(ctx, key, e->klen, e->hash)))
        return rc;
    return fn == whole_fill ? weir_value_put(o->st, NULL, 0, data, len)
                            : weir_value_edit(o->st, NULL, 0, len, keep_max, fn, ud);
}

/* The current key's list, read from state (the timer's path). */
static int load(rank_op *o, uint32_t *n)
{
    int rc = read_state(o, &o->copy);
    return rc ? rc : parse(o, &o->copy, n);
}

/* ---- the batch's cache ---- */

/* Equal keys of len bytes: 8 at a time inline (a partition key of one or two
 * BIGINT columns is 9 or 18 bytes; a memcmp call per cache hit showed). */
static inline bool key_eq(const uint8_t *a, const uint8_t *b, size_t len)
{
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t x, y;
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (x != y)
            return false;
    }
    for (; i < len; i++)
        if (a[i] != b[i])
            return false;
    return true;
}

/*
 * The cache entry of the partition with key bytes key[0..klen) of hash h,
 * read from state on first use (read_key: the current key is set then only
 * where the backend needs it; a hit reads nothing).
 */
static int cache_get(rank_op *o, weir_op_ctx *ctx, const uint8_t *key, size_t klen, uint64_t h, rcache_ent **out)
{
    if ((o->n_ents + 1) * 2 > o->n_slots) {
        int rc = weir__hindex_grow(&o->slots, &o->n_slots, o->ents, sizeof *o->ents, o->n_ents);
        if (rc)
            return rc;
    }
    uint32_t i = weir__hash_slot(h) & (o->n_slots - 1);
    for (; o->slots[i]; i = (i + 1) & (o->n_slots - 1)) {
        rcache_ent *e = &o->ents[o->slots[i] - 1];
        if (e->hash == h && e->klen == klen && key_eq(o->ckeys.data + e->koff, key, klen)) {
            *out = e;
            return 0;
        }
    }
    if (o->n_ents == o->cap_ents) {
        uint32_t cap = o->cap_ents ? o->cap_ents * 2 : 64;
        rcache_ent *ne = weir_realloc(o->ents, cap * sizeof *ne);
        if (!ne)
            return WEIR_ENOMEM;
        for (uint32_t k = o->cap_ents; k < cap; k++) {
            weir_buf_init(&ne[k].val);
            ne[k].list = NULL;
            ne[k].cap_list = 0;
        }
        o->ents = ne;
        o->cap_ents = cap;
    }
    rcache_ent *e = &o->ents[o->n_ents];
    e->hash = h;
    e->koff = (uint32_t)o->ckeys.len;
    e->klen = (uint32_t)klen;
    e->dirty = false;
    e->n_list = 0;
    int rc = weir_buf_put(&o->ckeys, key, klen);
    if (!rc)
        rc = read_key(o, ctx, key, klen, h, &e->val);
    if (!rc && !o->conf->retract)
        rc = parse_into(o, &e->val, &e->list, &e->cap_list, &e->n_list);
    if (rc)
        return rc;
    o->slots[i] = ++o->n_ents;
    *out = e;
    return 0;
}

/* The new list of a partition into its cache entry (rows may point into the entry's old value). */
static int cache_store(rank_op *o, rcache_ent *e, const kept *rows, uint32_t n)
{
    weir_buf_clear(&o->val);
    int rc = weir_buf_put_u32(&o->val, n | RANK_ROWS_2);
    for (uint32_t i = 0; !rc && i < n; i++) {
        rc = weir_buf_put_bytes(&o->val, rows[i].sk, rows[i].sklen);
        if (!rc)
            rc = weir_buf_put_bytes(&o->val, rows[i].row, rows[i].rowlen);
    }
    if (rc)
        return rc;
    weir_buf t = e->val;
    e->val = o->val;
    o->val = t;
    e->dirty = true;
    return 0;
}

/*
 * Append-only input: an entry's list encoded into o->val, the batch's rows
 * encoded now. Rows read from the old value that lay next to each other
 * there (the ranks above and below a new row) are copied as one run.
 */
static int list_encode(rank_op *o, const rcache_ent *e, const weir_batch *in)
{
    /* its size first: one reservation (a buffer grown step by step showed in profiles) */
    size_t size = 4;
    for (uint32_t i = 0; i < e->n_list; i++) {
        const kept *k = &e->list[i];
        size += k->sklen + 20 + (k->brow1 ? row_len(o, in, k->brow1 - 1) : k->rowlen);
    }
    weir_buf_clear(&o->val);
    int rc = weir_buf_reserve(&o->val, size);
    if (!rc)
        rc = weir_buf_put_u32(&o->val, e->n_list | RANK_ROWS_2);
    for (uint32_t i = 0; !rc && i < e->n_list;) {
        const kept *k = &e->list[i++];
        if (k->brow1) { /* encoded straight into the value, not through a row buffer */
            size_t rl = row_len(o, in, k->brow1 - 1);
            if (!(rc = weir_buf_put_bytes(&o->val, k->sk, k->sklen)) && !(rc = weir_buf_put_varint(&o->val, rl)))
                if (!(rc = weir_buf_reserve(&o->val, rl))) {
                    row_write(o, in, k->brow1 - 1, rl, o->val.data + o->val.len);
                    o->val.len += rl;
                }
        } else if (k->enc) {
            const uint8_t *end = k->row + k->rowlen;
            while (i < e->n_list && !e->list[i].brow1 && e->list[i].enc == end) {
                end = e->list[i].row + e->list[i].rowlen;
                i++;
            }
            rc = weir_buf_put(&o->val, k->enc, (size_t)(end - k->enc));
        } else if (!(rc = weir_buf_put_bytes(&o->val, k->sk, k->sklen))) {
            rc = weir_buf_put_bytes(&o->val, k->row, k->rowlen);
        }
    }
    return rc;
}

/* Bytes of the varint encoding of v (weir_buf_put_varint). */
static inline size_t varint_len(uint64_t v)
{
    size_t n = 1;
    while (v >>= 7)
        n++;
    return n;
}

/* v as a varint at p (weir_buf_put_varint); returns the bytes written. */
static inline size_t varint_at(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    do {
        uint8_t byte = v & 0x7f;
        v >>= 7;
        p[n++] = byte | (v ? 0x80 : 0);
    } while (v);
    return n;
}

/* An append-only partition's new value, built where its old one lies. */
typedef struct splice {
    rank_op *o;
    const rcache_ent *e;
    const weir_batch *in;
} splice;

/*
 * Append-only input: the list's old rows are a prefix of the old value's
 * rows, in order (rows leave a list only at its end), so each lies at or
 * after its old place in the new value. Filled from the back: each new row
 * is encoded into its place, and every run of old rows that moves is copied
 * once from the entry's copy of the old value (e->val, as read from state);
 * the old rows above the first new row stay where they are. The backend
 * keeps only those (list_write's keep_max): when the value outgrows its
 * record, the rows that move are not copied into the new one first and
 * then moved again. keep short of them (the stored value expired, or is
 * new) means they are copied too.
 */
static int splice_fill(void *ud, uint8_t *val, size_t len, size_t keep)
{
    const splice *sp = ud;
    const rcache_ent *e = sp->e;
    const uint8_t *old = e->val.data;
    size_t at = len;
    for (uint32_t i = e->n_list; i-- > 0;) {
        const kept *k = &e->list[i];
        if (k->brow1) {
            size_t rl = k->rowlen, sz = varint_len(k->sklen) + k->sklen + varint_len(rl) + rl;
            at -= sz;
            uint8_t *p = val + at;
            p += varint_at(p, k->sklen);
            if (k->sklen)
                memcpy(p, k->sk, k->sklen);
            p += k->sklen;
            p += varint_at(p, rl);
            row_write(sp->o, sp->in, k->brow1 - 1, rl, p);
            continue;
        }
        uint32_t j = i; /* the run of old rows j..i */
        while (j > 0 && !e->list[j - 1].brow1)
            j--;
        size_t from = (size_t)(e->list[j].enc - old);
        size_t to = (size_t)(k->row + k->rowlen - old);
        at -= to - from;
        if (at != from || to > keep)
            memcpy(val + at, old + from, to - from);
        i = j;
    }
    assert(at == 4);
    uint32_t n = e->n_list | RANK_ROWS_2;
    val[0] = (uint8_t)n;
    val[1] = (uint8_t)(n >> 8);
    val[2] = (uint8_t)(n >> 16);
    val[3] = (uint8_t)(n >> 24);
    return 0;
}

/*
 * Append-only input: writes an entry's list back as a change of the stored
 * value where it lies (weir_value_edit), the bytes an equal encoding of
 * the list would have. Returns 1, writing nothing, when the list's old
 * rows are not a prefix of the old value in order (not expected; then it
 * is encoded whole).
 */
static int list_write(rank_op *o, weir_op_ctx *ctx, rcache_ent *e, const weir_batch *in)
{
    size_t len = 4, old_end = 4, in_place = 0; /* in_place: the old bytes before the first new row */
    for (uint32_t i = 0; i < e->n_list; i++) {
        kept *k = &e->list[i];
        if (k->brow1) {
            if (!in_place)
                in_place = old_end;
            len += varint_len(k->sklen) + k->sklen + varint_len(k->rowlen) + k->rowlen;
        } else {
            if (!k->enc || k->enc != e->val.data + old_end)
                return 1;
            size_t sz = (size_t)(k->row + k->rowlen - k->enc);
            old_end += sz;
            len += sz;
        }
    }
    splice sp = {o, e, in};
    return write_key(o, ctx, e, len, in_place ? in_place : old_end, splice_fill, &sp, NULL);
}

/*
 * Append-only input: the stored length (rowlen) of every row of the batch that a changed list
 * keeps, taken column by column for all of them at once (weir__crow_plan_lens): a call per row
 * that walked the row's columns showed in q19's write-back.
 */
static int new_row_lens(rank_op *o, const weir_batch *in)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < o->n_ents; k++) {
        const rcache_ent *e = &o->ents[k];
        if (!e->dirty)
            continue;
        if (o->cap_w - n < e->n_list) {
            uint32_t cap = o->cap_w * 2 > n + e->n_list ? o->cap_w * 2 : n + e->n_list + 256;
            uint32_t *wr = weir_realloc(o->wrows, cap * sizeof *wr);
            if (wr)
                o->wrows = wr;
            size_t *wl = wr ? weir_realloc(o->wlens, cap * sizeof *wl) : NULL;
            if (!wl)
                return WEIR_ENOMEM;
            o->wlens = wl;
            o->cap_w = cap;
        }
        for (uint32_t i = 0; i < e->n_list; i++)
            if (e->list[i].brow1)
                o->wrows[n++] = e->list[i].brow1 - 1;
    }
    weir__crow_plan_lens(&o->plan, in, o->wrows, n, o->wlens);
    n = 0;
    for (uint32_t k = 0; k < o->n_ents; k++) {
        rcache_ent *e = &o->ents[k];
        for (uint32_t i = 0; e->dirty && i < e->n_list; i++)
            if (e->list[i].brow1)
                e->list[i].rowlen = o->wlens[n++];
    }
    return 0;
}

/* Writes back the partitions the batch in changed and empties the cache. */
static int cache_flush(rank_op *o, weir_op_ctx *ctx, const weir_batch *in)
{
    bool lists = !o->conf->retract;
    int rc = lists ? new_row_lens(o, in) : 0;
    for (uint32_t k = 0; k < o->n_ents; k++) {
        rcache_ent *e = &o->ents[k];
        /* the join before it learns the row kept now (read or changed: after a restore too) */
        if (o->hint && e->n_list)
            weir__top1_hint_put(o->hint, e->hash, o->ckeys.data + e->koff, e->klen, e->list[0].sk, e->list[0].sklen);
        if (e->dirty && !rc) {
            const weir_buf *v = &e->val;
            rc = lists ? list_write(o, ctx, e, in) : 1;
            if (rc == 1 && !(rc = lists ? list_encode(o, e, in) : 0)) {
                if (lists)
                    v = &o->val;
                rc = write_key(o, ctx, e, v->len, 0, NULL, NULL, v->data);
            }
        }
        /* buffers stay for the next batch, but not large ones (a wide Top-N over many partitions) */
        if (e->val.cap > 64 * 1024) {
            weir_buf_fini(&e->val);
            weir_buf_init(&e->val);
        }
        if (e->cap_list > 1024) {
            weir_free(e->list);
            e->list = NULL;
            e->cap_list = 0;
        }
    }
    sk_reset(o, false);
    o->n_ents = 0;
    weir_buf_clear(&o->ckeys);
    if (o->n_slots)
        memset(o->slots, 0, o->n_slots * sizeof *o->slots);
    return rc;
}

/* ---- output ---- */

/* A fixed-width value of w bytes: the widths are few, so each case is a move, not a call. */
static inline void copy_fixed(void *dst, const void *src, size_t w)
{
    switch (w) {
    case 8: memcpy(dst, src, 8); break;
    case 4: memcpy(dst, src, 4); break;
    case 1: memcpy(dst, src, 1); break;
    case 16: memcpy(dst, src, 16); break;
    default: memcpy(dst, src, w); break;
    }
}

/* A row's value of column c valid (not NULL)? */
static inline bool col_valid(const weir_column *c, uint32_t row)
{
    return c->all_valid || (c->valid[row >> 3] & (1u << (row & 7)));
}

#define TAKE_SPAN_MAX (4u << 20) /* bytes of the most that takes_span copies in one move */

/*
 * The strings of the n takes tp from in: their bytes per string column into
 * o->take_bytes and, when they lie close together in in's heap (the
 * rows of a batch, written in order), the bytes from the first to the end
 * of the last, copied into o->out's heap in one move: *span their place
 * there and *moved what to add to an input offset to get its output one.
 * No span (span->len 0) when there are no bytes, or when the span is over
 * twice the strings' own (rows far apart, a string shared by many rows) or
 * over TAKE_SPAN_MAX (long strings gain nothing from one move, and the
 * output heap stays far from its 4 GiB limit): then each column's strings
 * are copied one by one.
 */
static int takes_span(rank_op *o, const row_pair *tp, uint32_t n, const weir_batch *in, weir_strref *span,
                      int64_t *moved)
{
    uint64_t lo = UINT64_MAX, hi = 0, total = 0;
    for (uint32_t c = 0; c < o->n_cols; c++) {
        if (!o->varlen[c])
            continue;
        const weir_column *ic = &in->cols[c];
        const weir_strref *sr = (const weir_strref *)(const void *)ic->data;
        uint64_t bytes = 0;
        if (ic->all_valid) { /* most columns: no test per row, and selects rather than branches */
            for (uint32_t i = 0; i < n; i++) {
                weir_strref r = sr[tp[i].src];
                uint64_t from = r.len ? r.off : UINT64_MAX, to = r.len ? r.off + (uint64_t)r.len : 0;
                bytes += r.len;
                lo = from < lo ? from : lo;
                hi = to > hi ? to : hi;
            }
        } else {
            for (uint32_t i = 0; i < n; i++) {
                weir_strref r = sr[tp[i].src];
                if (!r.len || !col_valid(ic, tp[i].src))
                    continue;
                bytes += r.len;
                lo = r.off < lo ? r.off : lo;
                hi = r.off + (uint64_t)r.len > hi ? r.off + (uint64_t)r.len : hi;
            }
        }
        o->take_bytes[c] = bytes;
        total += bytes;
    }
    if (!total || hi - lo > 2 * total || hi - lo > TAKE_SPAN_MAX)
        return 0;
    char *h;
    int rc = weir_batch_heap_alloc(o->out, hi - lo, &h, span);
    if (rc)
        return rc;
    memcpy(h, in->heap + lo, hi - lo);
    *moved = (int64_t)span->off - (int64_t)lo;
    return 0;
}

/*
 * The rows emit queued, written column by column before the batch leaves:
 * a loop over the queued rows per column costs a fraction of a loop over
 * each row's columns (a width switch, a NULL check and the column arrays
 * reloaded per value). Three queues, in emission order:
 * - o->takes: input rows of o->take_in, the batch being processed (it
 *   lives until process returns, and every send happens inside it): their
 *   strings' stretch of its heap is copied in one move (takes_span), else
 *   each string column's bytes of all the queued rows take one piece of
 *   the heap.
 * - o->ptakes: rows of o->prev, the output batch sent last, the same way
 *   (rows read from state that a Top-N emitted there and shifts again: a
 *   column copy, not a second decode of the stored row).
 * - o->copies: rows of o->out itself (a Top-N with the rank number emits
 *   most rows twice, a deduplication the row it replaces when its key had a
 *   row earlier in the batch). A copy reads a row written directly, a taken
 *   one (so the takes go first) or an earlier copy (so in order).
 * NULLs: a taken NULL is set as weir_batch_set_null does; a copy takes its
 * source's bit. A column with a bitmap got it at its first NULL (every row
 * before valid), so the bits read are the rows' own.
 */
static int takes_apply(rank_op *o, const row_pair *tp, uint32_t n, const weir_batch *in)
{
    weir_batch *b = o->out;
    /* the span of in's heap under the queued strings, copied whole when it is at most twice their
     * bytes (span.len == 0: one copy per string) */
    weir_strref span = {0, 0};
    int64_t moved = 0;
    int rc = n ? takes_span(o, tp, n, in, &span, &moved) : 0;
    if (rc)
        return rc;
    for (uint32_t c = 0; c < o->n_cols && n; c++) {
        const weir_column *ic = &in->cols[c];
        char *d = b->cols[c].data;
        const char *s = ic->data;
        size_t w = o->out_w[c];
        if (o->varlen[c] && span.len) {
            const weir_strref *sr = (const weir_strref *)(const void *)s;
            weir_strref *dr = (weir_strref *)(void *)d;
            /* an empty string's offset may lie outside the span: it reads nothing */
            if (ic->all_valid) { /* most columns: no test per row */
                for (uint32_t i = 0; i < n; i++) {
                    weir_strref r = sr[tp[i].src];
                    dr[tp[i].dst] = (weir_strref){r.len ? (uint32_t)(r.off + moved) : span.off, r.len};
                }
            } else {
                for (uint32_t i = 0; i < n; i++) {
                    if (!col_valid(ic, tp[i].src))
                        continue;
                    weir_strref r = sr[tp[i].src];
                    dr[tp[i].dst] = (weir_strref){r.len ? (uint32_t)(r.off + moved) : span.off, r.len};
                }
            }
        } else if (o->varlen[c]) {
            const weir_strref *sr = (const weir_strref *)(const void *)s;
            weir_strref *dr = (weir_strref *)(void *)d;
            size_t total = o->take_bytes[c];
            char *h = NULL;
            weir_strref at = {0, 0};
            if (total && (rc = weir_batch_heap_alloc(b, total, &h, &at)))
                return rc;
            uint32_t off = at.off;
            for (uint32_t i = 0; i < n; i++) {
                if (!col_valid(ic, tp[i].src))
                    continue;
                weir_strref r = sr[tp[i].src];
                if (r.len)
                    memcpy(h + (off - at.off), in->heap + r.off, r.len);
                dr[tp[i].dst] = (weir_strref){off, r.len};
                off += r.len;
            }
        } else if (w == 8) { /* BIGINT, timestamps: most fixed-width columns */
            for (uint32_t i = 0; i < n; i++)
                memcpy(d + (size_t)tp[i].dst * 8, s + (size_t)tp[i].src * 8, 8);
        } else {
            for (uint32_t i = 0; i < n; i++)
                copy_fixed(d + (size_t)tp[i].dst * w, s + (size_t)tp[i].src * w, w);
        }
        if (!ic->all_valid)
            for (uint32_t i = 0; i < n; i++)
                if (!col_valid(ic, tp[i].src))
                    weir_batch_set_null(b, c, tp[i].dst);
    }
    return 0;
}

static void copies_apply(rank_op *o)
{
    const row_pair *cp = o->copies;
    const uint32_t n = o->n_copies;
    weir_batch *b = o->out;
    for (uint32_t c = 0; c < o->n_cols && n; c++) {
        weir_column *col = &b->cols[c];
        char *d = col->data;
        size_t w = o->out_w[c];
        if (w == 8) { /* BIGINT, timestamps, strings (heap references): most columns */
            for (uint32_t i = 0; i < n; i++)
                memcpy(d + (size_t)cp[i].dst * 8, d + (size_t)cp[i].src * 8, 8);
        } else {
            for (uint32_t i = 0; i < n; i++)
                copy_fixed(d + (size_t)cp[i].dst * w, d + (size_t)cp[i].src * w, w);
        }
        if (!col->all_valid) {
            uint8_t *v = col->valid;
            for (uint32_t i = 0; i < n; i++) {
                uint32_t s = cp[i].src, t = cp[i].dst;
                uint8_t bit = (uint8_t)(1u << (t & 7));
                if (v[s >> 3] & (1u << (s & 7)))
                    v[t >> 3] |= bit;
                else
                    v[t >> 3] &= (uint8_t)~bit;
            }
        }
    }
    o->n_copies = 0;
}

/* Sends o->out on (its queued rows written first); it stays as o->prev, and out is the other batch, emptied. */
static int flush(rank_op *o, weir_op_ctx *ctx)
{
    int rc = takes_apply(o, o->takes, o->n_takes, o->take_in);
    if (!rc)
        rc = takes_apply(o, o->ptakes, o->n_ptakes, o->prev);
    o->n_takes = o->n_ptakes = 0;
    if (rc)
        return rc;
    copies_apply(o);
    o->out_gen++;
    o->out_bitmaps = false; /* emptied: every column all valid again */
    /* sent as it is, and kept as prev (output batch out_gen - 1) until the next is sent */
    rc = weir_op_emit(ctx, o->out);
    weir_batch *t = o->prev;
    o->prev = o->out;
    o->out = t;
    weir_batch_reset(o->out);
    return rc;
}

/* Row r of b marked valid in each column that has a NULL bitmap. */
static void out_row_valid(weir_batch *b, uint32_t r)
{
    weir_column *cols = b->cols;
    const uint32_t nf = b->schema->n_fields;
    const uint8_t bit = (uint8_t)(1u << (r & 7));
    for (uint32_t i = 0; i < nf; i++)
        if (!cols[i].all_valid)
            cols[i].valid[r >> 3] |= bit;
}

/*
 * A new row of o->out (sending the full batch on first) whose every column
 * the caller writes: it is marked valid, not zeroed, as emit writes each
 * value or sets it NULL (weir_batch_append_row zeroes every slot first, a
 * pass that showed in the Top-N profile). Only columns with a bitmap need
 * the mark, and those exist only once a decoded row with a NULL made one
 * (o->out_bitmaps; the queued rows mark themselves): until then the pass
 * over the columns is skipped. Inline (in emit): a call per output row
 * showed in q19's profile; the flush and the pass are calls.
 */
__attribute__((always_inline)) static inline int out_row(rank_op *o, weir_op_ctx *ctx)
{
    weir_batch *b = o->out;
    if (weir_batch_full(b)) {
        int rc = flush(o, ctx);
        if (rc)
            return rc;
        b = o->out; /* the other batch: the one sent is kept as prev */
    }
    uint32_t r = b->n_rows++;
    b->key_hash_of = NULL;
    if (o->out_bitmaps)
        out_row_valid(b, r);
    return (int)r;
}

/* Emits a kept row (or, with k NULL, input row r of in) as kind, with rank when the output has it.
 * Inline: a Top-10 emits two rows per rank a new row shifts, and the call itself showed. */
__attribute__((always_inline)) static inline int emit(rank_op *o, weir_op_ctx *ctx, kept *k, const weir_batch *in, uint32_t r, weir_row_kind kind,
                int64_t rank)
{
    int row = out_row(o, ctx);
    if (row < 0)
        return row;
    int rc = 0;
    if (k && k->ogen == o->out_gen) {
        o->copies[o->n_copies++] = (row_pair){(uint32_t)row, k->orow};
    } else if (k && !k->brow1 && k->ogen && k->ogen + 1 == o->out_gen) {
        /* a row read from state, emitted into the batch sent last: taken from there */
        o->ptakes[o->n_ptakes++] = (row_pair){(uint32_t)row, k->orow};
    } else if (k && !k->brow1) {
        /* the encoding starts with the row's NULL bits (rowcodec.h) */
        for (size_t i = 0; i < (o->n_cols + 7) / 8 && i < k->rowlen; i++)
            o->out_bitmaps |= k->row[i] != 0;
        rc = row_decode(o, o->pkey, o->pklen, k, (uint32_t)row);
    } else {
        assert(!o->n_takes || o->take_in == in);
        o->take_in = in;
        o->takes[o->n_takes++] = (row_pair){(uint32_t)row, k ? k->brow1 - 1 : r};
    }
    if (rc)
        return rc;
    if (k) {
        k->ogen = o->out_gen;
        k->orow = (uint32_t)row;
    }
    weir_batch *b = o->out;
    b->ts[row] = in->ts[r]; /* before the byte stores, after which every field is read again */
    if (o->conf->with_rank) {
        weir_column *rk = &b->cols[o->n_cols];
        ((int64_t *)rk->data)[row] = rank;
        if (!rk->all_valid) /* the call only where the column has a bitmap (the rank is never NULL) */
            weir_batch_set_valid(b, o->n_cols, (uint32_t)row);
    }
    b->kind[row] = (uint8_t)kind;
    weir_op_counter_add(o->n_changes, 1);
    return 0;
}

/* ---- processing ---- */

/* The rank of kept[q] given the rank of kept[q - 1] (prev; 0 for q = 0), by the rank function. */
static uint64_t rank_of(const rank_op *o, const kept *k, uint32_t q, uint64_t prev)
{
    if (q > 0 && o->conf->rank_fn != WEIR_RANK_ROW_NUMBER &&
        sk_cmp(k[q - 1].sk, k[q - 1].sklen, k[q].sk, k[q].sklen) == 0)
        return prev;
    return o->conf->rank_fn == WEIR_RANK_DENSE_RANK ? prev + 1 : q + 1;
}

/* How many of the n rows of the list k rank at or above rank_end. */
static uint32_t ranked_rows(const rank_op *o, const kept *k, uint32_t n)
{
    uint64_t rk = 0;
    for (uint32_t q = 0; q < n; q++)
        if ((rk = rank_of(o, k, q, rk)) > o->conf->rank_end)
            return q;
    return n;
}

/* Room for n kept rows in o->kept. */
static int kept_reserve(rank_op *o, uint32_t n) { return list_reserve(&o->kept, &o->cap_kept, n); }

/* Retractable Top-N: row r of in (any kind) into its partition's full ranking (see the top). */
static int retract_row(rank_op *o, weir_op_ctx *ctx, const weir_batch *in, uint32_t r, const uint8_t *key, size_t klen)
{
    const weir_rank_config *c = o->conf;
    uint32_t n;
    rcache_ent *ce;
    int rc;
    o->pkey = key;
    o->pklen = klen;
    if ((rc = sort_key(c, in, r, &o->sk)) || (rc = cache_get(o, ctx, key, klen, o->hashes[r], &ce)) || (rc = parse(o, &ce->val, &n)) ||
        (rc = row_encode(o, in, r, &o->row)) || (rc = kept_reserve(o, n + 1)))
        return rc;
    uint64_t end = c->rank_end, start = c->rank_start;
    bool numbered = c->with_rank || start > 1; /* the unnumbered way cannot skip ranks */
    kept *k = o->kept;
    /* p: the first row ranked after the new row's sort key (accumulate), or the row retracted */
    uint32_t p = 0;
    while (p < n && sk_cmp(k[p].sk, k[p].sklen, o->sk.data, o->sk.len) < 0)
        p++;
    if (in->kind[r] == WEIR_ROW_INSERT || in->kind[r] == WEIR_ROW_UPDATE_AFTER) {
        while (p < n && sk_cmp(k[p].sk, k[p].sklen, o->sk.data, o->sk.len) == 0)
            p++;
        kept nk = {.sk = o->sk.data, .sklen = o->sk.len, .row = o->row.data, .rowlen = o->row.len};
        if (numbered) {
            /* rank q + 1 now holds the new row (q = p) or the row above it (q > p) */
            for (uint64_t q = p > start - 1 ? p : start - 1; q <= n && q < end && !rc; q++) {
                kept *now = q == p ? NULL : &k[q - 1];
                if (q < n) {
                    if (!(rc = emit(o, ctx, &k[q], in, r, WEIR_ROW_UPDATE_BEFORE, (int64_t)q + 1)))
                        rc = emit(o, ctx, now, in, r, WEIR_ROW_UPDATE_AFTER, (int64_t)q + 1);
                } else {
                    rc = emit(o, ctx, now, in, r, WEIR_ROW_INSERT, (int64_t)q + 1);
                }
            }
        } else if (p < end) {
            if (n >= end)
                rc = emit(o, ctx, &k[end - 1], in, r, WEIR_ROW_DELETE, 0);
            if (!rc)
                rc = emit(o, ctx, NULL, in, r, WEIR_ROW_INSERT, 0);
        }
        if (rc)
            return rc;
        memmove(&k[p + 1], &k[p], (n - p) * sizeof *k);
        k[p] = nk;
        return cache_store(o, ce, k, n + 1);
    }
    while (p < n && sk_cmp(k[p].sk, k[p].sklen, o->sk.data, o->sk.len) == 0 &&
           (k[p].rowlen != o->row.len || memcmp(k[p].row, o->row.data, o->row.len)))
        p++;
    if (p == n || sk_cmp(k[p].sk, k[p].sklen, o->sk.data, o->sk.len) != 0) {
        weir_op_counter_add(o->n_missing, 1);
        return 0; /* not kept (state expired): nothing to take back */
    }
    if (numbered) {
        /* rank q (p < q <= end) passes from k[q - 1] to k[q]; rank n empties */
        for (uint64_t q = p + 1; q < n && q <= end && !rc; q++)
            if (q >= start && !(rc = emit(o, ctx, &k[q - 1], in, r, WEIR_ROW_UPDATE_BEFORE, (int64_t)q)))
                rc = emit(o, ctx, &k[q], in, r, WEIR_ROW_UPDATE_AFTER, (int64_t)q);
        if (!rc && p < end && n <= end && n >= start)
            rc = emit(o, ctx, &k[n - 1], in, r, WEIR_ROW_DELETE, (int64_t)n);
    } else if (p < end) {
        rc = emit(o, ctx, &k[p], in, r, WEIR_ROW_DELETE, 0);
        if (!rc && n > end)
            rc = emit(o, ctx, &k[end], in, r, WEIR_ROW_INSERT, 0);
    }
    if (rc)
        return rc;
    memmove(&k[p], &k[p + 1], (n - p - 1) * sizeof *k);
    return cache_store(o, ce, k, n - 1);
}

/*
 * A new row's position in a list of n rows in rank order: after the rows that
 * rank before it, and after equal ones unless a newer equal row wins
 * (keep-last deduplication). Those rows are a prefix of the list. Its last row
 * is compared first (a full Top-N's new row mostly ranks past it: q19), then
 * its first (a new row mostly ranks first where rows come in the order's
 * direction: ORDER BY a time DESC), then the rows between are halved.
 */
static uint32_t place(const kept *L, uint32_t n, const uint8_t *sk, size_t sklen, bool newer_first)
{
    /* L[i] ranks before the new row: less, or equal and the older wins */
    int before = newer_first ? 0 : 1;
    if (!n || sk_cmp(L[n - 1].sk, L[n - 1].sklen, sk, sklen) < before)
        return n;
    if (n == 1 || sk_cmp(L[0].sk, L[0].sklen, sk, sklen) >= before)
        return 0;
    uint32_t lo = 1, hi = n - 1; /* L[lo - 1] ranks before it, L[hi] does not */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (sk_cmp(L[mid].sk, L[mid].sklen, sk, sklen) < before)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int apply_row(rank_op *o, weir_op_ctx *ctx, const weir_batch *in, uint32_t r)
{
    const weir_rank_config *c = o->conf;
    size_t klen = o->klen[r];
    const uint8_t *key = o->bkeys.data + o->koff[r];
    if (klen > KEY_MAX)
        return weir_op_fail(ctx, WEIR_EINVAL, "partition key of %zu bytes exceeds the limit of %d", klen, KEY_MAX);
    if (c->retract)
        return retract_row(o, ctx, in, r, key, klen);
    if (in->kind[r] != WEIR_ROW_INSERT)
        return weir_op_fail(ctx, WEIR_EUNSUPPORTED, "%s takes an append-only input, got a %s row",
                            c->dedup ? "deduplication" : "Top-N", weir_row_kind_name((weir_row_kind)in->kind[r]));
    o->pkey = key;
    o->pklen = klen;
    /* a window Top-N row registers its window's timer under the key */
    int rc = c->window_end_col >= 0 ? weir_op_set_key_hashed(ctx, key, klen, o->hashes[r]) : 0;
    uint32_t n;
    rcache_ent *ce;
    /* the row's sort key: made with the batch's (batch_sort_keys), else here */
    const uint8_t *sk = o->bsk_w ? o->bsk.data + (size_t)r * o->bsk_w : NULL;
    size_t sklen = o->bsk_w;
    if (!rc && !sklen && !(rc = sort_key(c, in, r, &o->sk))) {
        sk = o->sk.data;
        sklen = o->sk.len;
    }
    if (rc || (rc = cache_get(o, ctx, key, klen, o->hashes[r], &ce)))
        return rc;
    n = ce->n_list;
    uint32_t p = place(ce->list, n, sk, sklen, c->ties_newer_first);
    uint64_t end = c->rank_end, start = c->rank_start;
    bool by_rank = c->rank_fn != WEIR_RANK_ROW_NUMBER; /* window Top-N only */
    if (p >= end && !by_rank)
        return 0; /* below the kept ranks: it can never climb back */
    /* room for the new row only where it may enter */
    if ((rc = list_reserve(&ce->list, &ce->cap_list, n + 1)))
        return rc;
    /* the partition's list, changed in place (emitting marks its rows as emitted) */
    kept *L = ce->list;
    /* the row stays in the batch until the cache is written back (so do the batch's sort keys) */
    const uint8_t *skc = o->bsk_w ? sk : sk_keep(o, sk, sklen);
    if (!skc)
        return WEIR_ENOMEM;
    kept nk = {.sk = skc, .sklen = sklen, .brow1 = r + 1};
    /* the new list: the old one with nk at p, cut at end */
    uint32_t n_new = n + 1 > end ? (uint32_t)end : n + 1;
    if (c->window_end_col >= 0) /* window Top-N: ranked now, emitted when the window ends */
        goto insert;
#define NEW_AT(q) ((q) == p ? &nk : (q) < p ? &L[q] : &L[(q) - 1])
    if (c->with_rank || start > 1) { /* as Flink: the unnumbered way cannot skip ranks */
        for (uint32_t q = p > start - 1 ? p : (uint32_t)(start - 1); q < n_new; q++) {
            kept *now = q == p ? &nk : &L[q - 1]; /* NEW_AT(q): q is never below p here */
            if (q < n) {
                if ((rc = emit(o, ctx, &L[q], in, r, WEIR_ROW_UPDATE_BEFORE, q + 1)) ||
                    (rc = emit(o, ctx, now, in, r, WEIR_ROW_UPDATE_AFTER, q + 1)))
                    return rc;
            } else if ((rc = emit(o, ctx, now, in, r, WEIR_ROW_INSERT, q + 1))) {
                return rc;
            }
        }
    } else {
        /* entering [start, end]: the new row, or the one it pushed in from rank start - 1;
         * leaving: the row pushed from rank end to end + 1 */
        uint32_t s0 = (uint32_t)(start - 1);
        kept *in_row = s0 < n_new ? NEW_AT(p > s0 ? p : s0) : NULL;
        kept *out_row = n >= end ? &L[end - 1] : NULL;
        if (in_row) {
            bool replace = c->dedup && out_row;
            if (replace && (rc = emit(o, ctx, out_row, in, r, WEIR_ROW_UPDATE_BEFORE, 0)))
                return rc;
            if ((rc = emit(o, ctx, in_row, in, r,
                           replace ? WEIR_ROW_UPDATE_AFTER : WEIR_ROW_INSERT, 0)))
                return rc;
            if (!replace && out_row && (rc = emit(o, ctx, out_row, in, r, WEIR_ROW_DELETE, 0)))
                return rc;
        }
    }
insert:
    /* the new list: shift the rows after p (the last one falls off at end) */
    memmove(&L[p + 1], &L[p], (n - p) * sizeof *L);
    L[p] = nk;
#undef NEW_AT
    if (by_rank) {
        /* the rows whose rank is still within end, ties included */
        n_new = ranked_rows(o, L, n + 1);
        if (n_new <= p) { /* the new row ranks below end: nothing changes */
            memmove(&L[p], &L[p + 1], (n - p) * sizeof *L);
            return 0;
        }
    }
    ce->n_list = n_new;
    ce->dirty = true;
    return 0;
}

/*
 * apply_row of a Top-1 (o->top1): row r of in against its partition's one kept row, the changes
 * and the list that apply_row's general way gives (place, the emission, the shift) without its
 * steps: the new row loses to the kept one (nothing changes) or takes its place - -U old, +U new
 * with the rank number or in a deduplication, else +I new, -D old; +I alone where none was kept.
 * A row that apply_row refuses goes there.
 */
static int top1_row(rank_op *o, weir_op_ctx *ctx, const weir_batch *in, uint32_t r)
{
    const weir_rank_config *c = o->conf;
    size_t klen = o->klen[r];
    const uint8_t *key = o->bkeys.data + o->koff[r];
    if (klen > KEY_MAX || in->kind[r] != WEIR_ROW_INSERT)
        return apply_row(o, ctx, in, r);
    o->pkey = key;
    o->pklen = klen;
    const uint8_t *sk = o->bsk_w ? o->bsk.data + (size_t)r * o->bsk_w : NULL;
    size_t sklen = o->bsk_w;
    rcache_ent *ce;
    int rc = 0;
    if (!sklen && !(rc = sort_key(c, in, r, &o->sk))) {
        sk = o->sk.data;
        sklen = o->sk.len;
    }
    if (rc || (rc = cache_get(o, ctx, key, klen, o->hashes[r], &ce)))
        return rc;
    kept *L = ce->list;
    /* the kept row ranks before the new one: less, or equal and the older wins */
    if (ce->n_list && sk_cmp(L[0].sk, L[0].sklen, sk, sklen) < (c->ties_newer_first ? 0 : 1))
        return 0;
    rc = ce->cap_list ? 0 : list_reserve(&ce->list, &ce->cap_list, 1);
    const uint8_t *skc = o->bsk_w ? sk : sk_keep(o, sk, sklen);
    if (rc || !skc)
        return rc ? rc : WEIR_ENOMEM;
    L = ce->list;
    if (!ce->n_list || c->with_rank || c->dedup) {
        /* the old row out first, then the new one written in its place and emitted from there (a
         * row built aside and copied in was read back before its stores had landed) */
        if (ce->n_list && (rc = emit(o, ctx, &L[0], in, r, WEIR_ROW_UPDATE_BEFORE, 1)))
            return rc;
        L[0] = (kept){.sk = skc, .sklen = sklen, .brow1 = r + 1};
        rc = emit(o, ctx, &L[0], in, r, ce->n_list ? WEIR_ROW_UPDATE_AFTER : WEIR_ROW_INSERT, 1);
    } else {
        kept nk = {.sk = skc, .sklen = sklen, .brow1 = r + 1};
        if (!(rc = emit(o, ctx, &nk, in, r, WEIR_ROW_INSERT, 0)))
            rc = emit(o, ctx, &L[0], in, r, WEIR_ROW_DELETE, 0);
        L[0] = nk;
    }
    if (rc)
        return rc;
    ce->n_list = 1;
    ce->dirty = true;
    return 0;
}

/*
 * Window Top-N: the watermark that judges a row late, held across a restore (ops/held_wm.h): a
 * row behind a window that fired before the checkpoint does not open that window again.
 */
static weir_ts window_watermark(const rank_op *o, weir_op_ctx *ctx)
{
    return weir__held_wm_input(&o->wm, ctx, 0);
}

/* Window Top-N: a row of a window that has not ended is ranked; its window's end is a timer. */
static int window_row(rank_op *o, weir_op_ctx *ctx, const weir_batch *in, uint32_t r)
{
    uint32_t col = (uint32_t)o->conf->window_end_col;
    if (weir_batch_is_null(in, col, r))
        return weir_op_fail(ctx, WEIR_EINVAL, "window Top-N: a row without a window end");
    int64_t wend = ((const int64_t *)in->cols[col].data)[r];
    if (wend <= weir__tz_local_watermark(o->tz, window_watermark(o, ctx))) {
        weir_op_counter_add(o->n_late, 1);
        return 0;
    }
    int rc = apply_row(o, ctx, in, r);
    if (rc || !o->tz)
        return rc ? rc : weir_op_timer_register(ctx, WEIR_TIME_EVENT, wend, 0);
    if (wend != o->tz_end) {
        o->tz_end = wend;
        o->tz_fire = weir__tz_fire_instant(o->tz, wend);
    }
    return weir_op_timer_register(ctx, WEIR_TIME_EVENT, o->tz_fire, wend);
}

/* Prefetch distances in rows of a batch: the state table slot of row r +
 * PF_SLOT's partition, then the record of row r + PF_REC's (with many
 * partitions each first read of one in a batch is a cache miss; these
 * overlap). */
#define PF_SLOT 8
#define PF_REC 4
#define PF_SEEN_LOG2 14 /* bits (log2) of the filter of the partitions a batch has seen */

/*
 * o->pf[r] for the n rows of the batch: whether row r's partition is
 * prefetched. Outside windows a later row of a partition finds it in the
 * batch's cache and reads no state, so only the first row of each
 * partition is: a row whose hash an earlier row of the batch had, by a
 * filter of 2^PF_SEEN_LOG2 bits (a collision costs a prefetch, never a
 * result), is not (most of q18's rows are of partitions their batch has
 * seen). A window Top-N sets each row's key in state: there a row is
 * skipped only after a row of the same partition (runs of one key).
 */
static void prefetch_rows(rank_op *o, uint32_t n)
{
    const uint64_t *h = o->hashes;
    uint8_t *pf = o->pf;
    if (o->conf->window_end_col >= 0) {
        for (uint32_t r = 0; r < n; r++)
            pf[r] = !r || h[r] != h[r - 1];
        return;
    }
    uint64_t seen[(1u << PF_SEEN_LOG2) / 64] = {0};
    for (uint32_t r = 0; r < n; r++) {
        uint32_t b = (uint32_t)(h[r] >> (64 - PF_SEEN_LOG2));
        uint64_t m = UINT64_C(1) << (b & 63);
        pf[r] = !(seen[b >> 6] & m);
        seen[b >> 6] |= m;
    }
}

/*
 * The batch's partition keys when every key column is fixed-width without
 * NULLs in in (q18's bidder and auction, q19's auction): each key has the
 * same width, so they are encoded column by column, a flag byte 1 and the
 * value each, the bytes weir_key_encode gives row by row (a loop over the
 * key's columns and a type switch per value, ~5 % of q18's instructions).
 * Returns false, encoding nothing, when that does not hold.
 */
static bool fixed_keys(rank_op *o, const weir_batch *in, uint32_t n)
{
    const weir_keyspec *ks = &o->conf->partition;
    size_t kw = 0;
    for (uint32_t i = 0; i < ks->n; i++) {
        const weir_column *c = &in->cols[ks->cols[i]];
        if (!c->all_valid || weir_type_is_varlen(c->type.id))
            return false;
        kw += 1 + weir_type_size(c->type);
    }
    if (!ks->n || kw > KEY_MAX || weir_buf_reserve(&o->bkeys, (size_t)n * kw))
        return false;
    uint8_t *kb = o->bkeys.data;
    size_t at = 0;
    for (uint32_t i = 0; i < ks->n; i++) {
        const weir_column *c = &in->cols[ks->cols[i]];
        const char *d = c->data;
        size_t w = weir_type_size(c->type);
        uint8_t *k = kb + at;
        if (w == 8) {
            for (uint32_t r = 0; r < n; r++, k += kw) {
                k[0] = 1;
                memcpy(k + 1, d + (size_t)r * 8, 8);
            }
        } else {
            for (uint32_t r = 0; r < n; r++, k += kw) {
                k[0] = 1;
                memcpy(k + 1, d + (size_t)r * w, w);
            }
        }
        at += 1 + w;
    }
    for (uint32_t r = 0; r < n; r++) {
        o->koff[r] = (uint32_t)(r * kw);
        o->klen[r] = (uint32_t)kw;
    }
    o->bkeys.len = (size_t)n * kw;
#ifndef NDEBUG
    uint8_t first[KEY_MAX];
    assert(!n || (weir_key_encode(in, ks, 0, first, KEY_MAX) == kw && !memcmp(first, kb, kw)));
#endif
    return true;
}

/*
 * The batch's partition keys, encoded once, and their hashes - the ones the
 * keyed exchange before computed to route the rows when it keyed them the
 * same way (the same encoding, so the same hash). A key over KEY_MAX bytes
 * is not stored (apply_row refuses it).
 */
static int batch_keys(rank_op *o, const weir_batch *in)
{
    uint32_t n = in->n_rows;
    if (n > o->cap_hashes) {
        uint64_t *h = weir_realloc(o->hashes, n * sizeof *h);
        if (h)
            o->hashes = h;
        uint32_t *ko = h ? weir_realloc(o->koff, n * sizeof *ko) : NULL;
        if (ko)
            o->koff = ko;
        uint32_t *kl = ko ? weir_realloc(o->klen, n * sizeof *kl) : NULL;
        if (kl)
            o->klen = kl;
        uint8_t *pf = kl ? weir_realloc(o->pf, n) : NULL;
        if (!pf)
            return WEIR_ENOMEM;
        o->pf = pf;
        o->cap_hashes = n;
    }
    const weir_keyspec *ks = &o->conf->partition;
    weir_buf_clear(&o->bkeys);
    if (!fixed_keys(o, in, n)) {
        for (uint32_t r = 0; r < n; r++) {
            int rc = weir_buf_reserve(&o->bkeys, KEY_MAX);
            if (rc)
                return rc;
            size_t klen = weir_key_encode(in, ks, r, o->bkeys.data + o->bkeys.len, KEY_MAX);
            o->koff[r] = (uint32_t)o->bkeys.len;
            o->klen[r] = klen > KEY_MAX ? KEY_MAX + 1 : (uint32_t)klen;
            if (klen <= KEY_MAX)
                o->bkeys.len += klen;
        }
    }
    const weir_keyspec *hk = in->key_hash_of;
    if (hk && hk->n == ks->n && !memcmp(hk->cols, ks->cols, ks->n * sizeof *ks->cols)) {
        memcpy(o->hashes, in->key_hash, n * sizeof *o->hashes);
        for (uint32_t r = 0; r < n; r++)
            assert(o->klen[r] > KEY_MAX || o->hashes[r] == weir_key_hash(o->bkeys.data + o->koff[r], o->klen[r]));
        return 0;
    }
    for (uint32_t r = 0; r < n; r++)
        o->hashes[r] = o->klen[r] > KEY_MAX ? 0 : weir_key_hash(o->bkeys.data + o->koff[r], o->klen[r]);
    return 0;
}

/*
 * The batch's sort keys at once, when every ORDER BY column is a BIGINT,
 * INT, DATE, TIME or timestamp without NULLs in in (q18's dateTime, q19's
 * price): each key is then a flag byte 1 and 8 sortable bytes per column
 * (weir__sort_key_col), all of one width, written column by column into
 * o->bsk, which stays until the batch's cache is written back, so the lists
 * point into it rather than into copies (sk_keep). Else (or without
 * memory) o->bsk_w is 0 and apply_row makes each row's key.
 */
static void batch_sort_keys(rank_op *o, const weir_batch *in)
{
    const weir_rank_config *c = o->conf;
    const uint32_t n = in->n_rows, kw = 9 * c->n_order;
    o->bsk_w = 0;
    for (uint32_t i = 0; i < c->n_order; i++) {
        const weir_column *col = &in->cols[c->order_cols[i]];
        weir_type_id t = col->type.id;
        if (!col->all_valid || !(t == WEIR_TYPE_BIGINT || t == WEIR_TYPE_TIMESTAMP || t == WEIR_TYPE_TIMESTAMP_LTZ ||
                                 t == WEIR_TYPE_INT || t == WEIR_TYPE_DATE || t == WEIR_TYPE_TIME))
            return;
    }
    weir_buf_clear(&o->bsk);
    if (!kw || weir_buf_reserve(&o->bsk, (size_t)n * kw))
        return;
    for (uint32_t i = 0; i < c->n_order; i++) {
        const weir_column *col = &in->cols[c->order_cols[i]];
        const uint64_t inv = c->order_desc[i] ? ~UINT64_C(0) : 0, sign = UINT64_C(1) << 63;
        uint8_t *k = o->bsk.data + 9 * i;
        if (weir_type_size(col->type) == 8) {
            const int64_t *v = col->data;
            for (uint32_t r = 0; r < n; r++, k += kw) {
                uint64_t x = be64((uint64_t)v[r] ^ sign) ^ inv;
                k[0] = 1;
                memcpy(k + 1, &x, 8);
            }
        } else {
            const int32_t *v = col->data;
            for (uint32_t r = 0; r < n; r++, k += kw) {
                uint64_t x = be64((uint64_t)(int64_t)v[r] ^ sign) ^ inv;
                k[0] = 1;
                memcpy(k + 1, &x, 8);
            }
        }
    }
    o->bsk.len = (size_t)n * kw;
    o->bsk_w = kw;
#ifndef NDEBUG
    int rc = n ? sort_key(c, in, 0, &o->sk) : 0;
    assert(rc || !n || (o->sk.len == kw && !memcmp(o->sk.data, o->bsk.data, kw)));
#endif
}

/* Rows of in through row_fn (one per operator: a constant where this is inlined, so each way is
 * its own loop of direct calls), each with the state prefetches ahead of it. */
__attribute__((always_inline)) static inline int rows_apply(rank_op *o, weir_op_ctx *ctx, const weir_batch *in,
                                                            int (*row_fn)(rank_op *, weir_op_ctx *, const weir_batch *, uint32_t))
{
    uint32_t n = in->n_rows;
    const uint64_t *h = o->hashes;
    const uint8_t *pf = o->pf;
    int rc = 0;
    prefetch_rows(o, n);
    for (uint32_t r = 0; r < n && r < PF_SLOT; r++)
        if (pf[r])
            weir__state_prefetch(o->st, h[r], 0);
    for (uint32_t r = 0; r < n && !rc; r++) {
        uint32_t s = r + PF_SLOT, q = r + PF_REC;
        if (s < n && pf[s])
            weir__state_prefetch(o->st, h[s], 0);
        if (q < n && pf[q])
            weir__state_prefetch(o->st, h[q], 1);
        rc = row_fn(o, ctx, in, r);
    }
    return rc;
}

static int rank_process(void *op, weir_op_ctx *ctx, int input, const weir_batch *in)
{
    (void)input;
    rank_op *o = op;
    int rc = batch_keys(o, in);
    if (!o->conf->retract)
        batch_sort_keys(o, in);
    if (!rc)
        rc = o->conf->window_end_col >= 0 ? rows_apply(o, ctx, in, window_row)
             : o->top1                    ? rows_apply(o, ctx, in, top1_row)
                                          : rows_apply(o, ctx, in, apply_row);
    int frc = cache_flush(o, ctx, in);
    rc = rc ? rc : frc;
    if (rc) { /* the queued rows of a failed batch are not written; in dies with it */
        o->n_takes = o->n_ptakes = 0;
        o->n_copies = 0;
        return rc;
    }
    return flush(o, ctx);
}

/* Window Top-N: the window ended; its ranks [start, end] come out once, then its state goes. */
static int rank_timer(void *op, weir_op_ctx *ctx, const weir_timer *t)
{
    rank_op *o = op;
    const weir_rank_config *c = o->conf;
    uint32_t n, kg;
    size_t klen = 0;
    const uint8_t *key = weir_op_key(ctx, &klen, &kg);
    int rc = load(o, &n);
    if (rc)
        return weir_op_fail(ctx, rc, "window Top-N: cannot read its state: %s", weir_strerror(rc));
    uint64_t rk = 0;
    for (uint32_t q = 0; q < n && !rc; q++) {
        if ((rk = rank_of(o, o->kept, q, rk)) < c->rank_start)
            continue;
        if (rk > c->rank_end)
            break;
        int row = weir__out_row(ctx, o->out);
        if (row < 0)
            return row;
        rc = row_decode(o, key, klen, &o->kept[q], (uint32_t)row);
        if (c->with_rank) {
            ((int64_t *)o->out->cols[o->n_cols].data)[row] = (int64_t)rk;
            weir_batch_set_valid(o->out, o->n_cols, (uint32_t)row);
        }
        o->out->kind[row] = WEIR_ROW_INSERT;
        /* the window's time, as the window aggregation's rows */
        o->out->ts[row] = o->tz ? weir__tz_to_utc(o->tz, t->ns - 1) : t->ts - 1;
    }
    if (!rc)
        rc = weir_state_clear(o->st, NULL, 0);
    return rc ? rc : flush(o, ctx);
}

/* ---- lifecycle ---- */

static int rank_create(void *arg, const weir_op_info *info, void **out_op)
{
    const weir_rank_config *c = arg;
    rank_op *o = weir_calloc(1, sizeof *o);
    if (!o)
        return WEIR_ENOMEM;
    *out_op = o;
    o->conf = c;
    weir__held_wm_init(&o->wm, 1);
    o->n_cols = c->out_schema->n_fields - (c->with_rank ? 1 : 0);
    weir_buf_init(&o->copy);
    weir_buf_init(&o->val);
    weir_buf_init(&o->sk);
    weir_buf_init(&o->row);
    weir_buf_init(&o->ckeys);
    weir_buf_init(&o->bkeys);
    weir_buf_init(&o->bsk);
    o->out = weir_batch_create(c->out_schema, info->batch_size);
    o->out_w = weir_malloc(c->out_schema->n_fields ? c->out_schema->n_fields : 1);
    if (!o->out_w)
        return WEIR_ENOMEM;
    o->varlen = weir_calloc(c->out_schema->n_fields ? c->out_schema->n_fields : 1, sizeof *o->varlen);
    o->take_bytes = weir_calloc(c->out_schema->n_fields ? c->out_schema->n_fields : 1, sizeof *o->take_bytes);
    if (!o->varlen || !o->take_bytes)
        return WEIR_ENOMEM;
    o->takes = weir_malloc((info->batch_size ? info->batch_size : 1) * sizeof *o->takes);
    o->ptakes = weir_malloc((info->batch_size ? info->batch_size : 1) * sizeof *o->ptakes);
    o->copies = weir_malloc((info->batch_size ? info->batch_size : 1) * sizeof *o->copies);
    o->prev = weir_batch_create(c->out_schema, info->batch_size);
    if (!o->takes || !o->ptakes || !o->copies || !o->prev)
        return WEIR_ENOMEM;
    for (uint32_t i = 0; i < c->out_schema->n_fields; i++) {
        o->out_w[i] = (uint8_t)weir_type_size(c->out_schema->fields[i].type);
        o->varlen[i] = weir_type_is_varlen(c->out_schema->fields[i].type.id);
    }
    o->out_gen = 1; /* 0 is no output batch: kept rows start with ogen 0 */
    int drc = drop_init(o);
    if (!drc)
        drc = weir__crow_plan_init(&o->plan, c->out_schema, o->n_cols, o->drop);
    if (drc)
        return drc;
    o->top1 = !c->retract && c->window_end_col < 0 && c->rank_fn == WEIR_RANK_ROW_NUMBER && c->rank_start == 1 &&
              c->rank_end == 1;
    o->tz_end = WEIR_TS_MIN;
    if (c->time_zone && c->window_end_col >= 0) {
        weir_error err = {0};
        int rc = weir__tz_load(c->time_zone, &o->tz, &err);
        if (rc)
            return rc;
    }
    return o->out ? 0 : WEIR_ENOMEM;
}

/* ---- a checkpoint of an earlier weir: whole rows ---- */

typedef struct recode_ctx {
    rank_op *o;
    weir_op_ctx *ctx;
    weir_batch *scratch; /* the output schema: the input's columns first */
    bool canonical;      /* rows in the canonical encoding, else in the compact one (whole) */
    uint64_t keys;
    weir_buf val, row;
} recode_ctx;

/* The current key's list, each row whole re-encoded as stored now (without the columns its keys
 * hold); the sort keys stay. A list already in that layout is left. */
static int recode_key(void *ud, const uint8_t *key, size_t klen, const void *ns, size_t ns_len)
{
    (void)key;
    (void)klen;
    recode_ctx *r = ud;
    rank_op *o = r->o;
    int rc = 0;
    if (++r->keys % 1024 == 0 && (rc = weir_op_interrupted(r->ctx)))
        return rc;
    const void *v;
    size_t len;
    uint32_t n;
    bool whole;
    int64_t stamp; /* the list's TTL stamp, kept: re-encoding it is no write of the user's */
    if ((rc = weir_value_get(o->st, ns, ns_len, &v, &len)) ||
        (rc = weir__state_stamp(o->st, ns, ns_len, NULL, 0, &stamp)))
        return rc == WEIR_ENOTFOUND ? 0 : rc; /* expired (TTL) since it was listed */
    weir_buf_clear(&o->copy);
    if ((rc = weir_buf_put(&o->copy, v, len)) || (rc = parse_into_as(o, &o->copy, &o->kept, &o->cap_kept, &n, &whole)))
        return rc;
    if (!whole) /* already re-encoded; a checkpoint of the canonical encoding has none such */
        return r->canonical ? WEIR_ECORRUPT : 0;
    weir_buf_clear(&r->val);
    rc = weir_buf_put_u32(&r->val, n | RANK_ROWS_2);
    for (uint32_t i = 0; !rc && i < n; i++) {
        const kept *k = &o->kept[i];
        weir_batch_reset(r->scratch);
        int row = weir_batch_append_row(r->scratch);
        if (row < 0)
            return row;
        if (r->canonical) {
            /* the canonical encoding's length, to see that the row uses every byte */
            if (!(rc = weir__row_decode(k->row, k->rowlen, r->scratch, (uint32_t)row, 0, o->n_cols)) &&
                weir__row_encoded_len(r->scratch, (uint32_t)row, o->n_cols) != k->rowlen)
                rc = WEIR_ECORRUPT;
        } else {
            rc = weir__crow_decode(k->row, k->rowlen, r->scratch, (uint32_t)row, 0, o->n_cols);
        }
        if (!rc && !(rc = row_encode(o, r->scratch, (uint32_t)row, &r->row)) &&
            !(rc = weir_buf_put_bytes(&r->val, k->sk, k->sklen)))
            rc = weir_buf_put_bytes(&r->val, r->row.data, r->row.len);
    }
    return rc ? rc : weir__value_put_stamped(o->st, ns, ns_len, stamp, r->val.data, r->val.len);
}

/* Every list of the restored state re-encoded (recode_key). */
static int recode_all(rank_op *o, weir_op_ctx *ctx, bool canonical)
{
    recode_ctx r = {.o = o, .ctx = ctx, .canonical = canonical};
    weir_buf_init(&r.val);
    weir_buf_init(&r.row);
    int rc = (r.scratch = weir_batch_create(o->conf->out_schema, 1)) ? weir_state_keys(o->st, recode_key, &r)
                                                                      : WEIR_ENOMEM;
    weir_batch_destroy(r.scratch);
    weir_buf_fini(&r.val);
    weir_buf_fini(&r.row);
    return rc;
}

/* The restored lists, their rows in the canonical encoding (a checkpoint before the compact one). */
static int rank_recode(void *op, weir_op_ctx *ctx) { return recode_all(op, ctx, true); }

/* After a restore of a checkpoint before "rank rows: 2" (checkpoint/compat.c says which): its lists
 * of whole compact rows without the columns their keys hold. Any other restore reads nothing. */
static int rank_rows2(void *op, weir_op_ctx *ctx)
{
    return weir__op_restores_whole_rank_rows(ctx) ? recode_all(op, ctx, false) : 0;
}

static int rank_open(void *op, weir_op_ctx *ctx)
{
    rank_op *o = op;
    weir_state_desc d = {.name = "rank", .kind = WEIR_STATE_VALUE, .ttl_ms = o->conf->state_ttl_ms};
    o->n_changes = weir_op_counter(ctx, "changes_emitted");
    o->n_late = weir_op_counter(ctx, "late_records_dropped");
    if (o->conf->retract)
        o->n_missing = weir_op_counter(ctx, "retractions_not_found");
    weir__op_on_canonical_rows(ctx, rank_recode);
    weir__op_on_restored(ctx, rank_rows2);
    /* only a Top-1 of an append-only input without TTL can tell a row it will never keep */
    if (o->conf->top1_link && o->top1 && !o->conf->state_ttl_ms)
        o->hint = weir__top1_hint_of(ctx, o->conf->top1_link);
    return weir_op_get_state(ctx, &d, &o->st);
}

static void rank_close(void *op)
{
    rank_op *o = op;
    if (!o)
        return;
    weir_batch_destroy(o->out);
    weir_batch_destroy(o->prev);
    weir_free(o->out_w);
    weir_free(o->varlen);
    weir_free(o->take_bytes);
    weir_free(o->drop);
    weir_free(o->fill);
    weir__crow_plan_fini(&o->plan);
    weir_free(o->takes);
    weir_free(o->ptakes);
    weir_free(o->copies);
    weir__tz_free(o->tz);
    weir_buf_fini(&o->copy);
    weir_buf_fini(&o->val);
    weir_buf_fini(&o->sk);
    weir_buf_fini(&o->row);
    weir_buf_fini(&o->ckeys);
    weir_buf_fini(&o->bkeys);
    weir_buf_fini(&o->bsk);
    weir_free(o->koff);
    weir_free(o->klen);
    for (uint32_t k = 0; k < o->cap_ents; k++) {
        weir_buf_fini(&o->ents[k].val);
        weir_free(o->ents[k].list);
    }
    sk_reset(o, true);
    weir_free(o->ents);
    weir_free(o->slots);
    weir_free(o->kept);
    weir_free(o->hashes);
    weir_free(o->pf);
    weir_free(o->wrows);
    weir_free(o->wlens);
    weir_free(o);
}

/* Window Top-N: its watermark, as operator state (version 1, then the watermark); other
 * rankings keep none. */
static int rank_snapshot(void *op, weir_op_ctx *ctx, uint64_t ckpt_id, weir_buf *out)
{
    rank_op *o = op;
    (void)ckpt_id;
    if (o->conf->window_end_col < 0)
        return 0;
    return weir__held_wm_snapshot(&o->wm, ctx, out);
}

static int rank_restore(void *op, weir_op_ctx *ctx, weir_cursor *in)
{
    return weir__held_wm_restore(&((rank_op *)op)->wm, ctx, in, "window Top-N");
}

static int rank_restore_union(void *op, weir_op_ctx *ctx, weir_cursor *states, uint32_t n)
{
    return weir__held_wm_restore_union(&((rank_op *)op)->wm, ctx, states, n, "window Top-N");
}

static const weir_operator_class rank_class = {
    .name = "Rank",
    .open = rank_open,
    .process = rank_process,
    .timer = rank_timer,
    .snapshot = rank_snapshot,
    .restore = rank_restore,
    .restore_union = rank_restore_union,
    .close = rank_close,
};

static void conf_free(void *arg)
{
    weir_rank_config *c = arg;
    if (c)
        weir__top1_link_unref(c->top1_link);
    weir_free(c);
}

int weir_rank_spec(const weir_rank_config *cfg, weir_operator_spec *out)
{
    /* no ORDER BY (LIMIT alone): every row ties, so the first to arrive rank first */
    if (cfg->rank_start < 1 || cfg->rank_end < cfg->rank_start || (cfg->n_order == 0 && cfg->window_end_col >= 0) ||
        cfg->n_order > WEIR_KEY_MAX_COLS || !cfg->out_schema)
        return WEIR_EINVAL;
    weir_rank_config *c = weir_malloc(sizeof *c);
    if (!c)
        return WEIR_ENOMEM;
    *c = *cfg;
    c->top1_link = weir__top1_link_ref(cfg->top1_link);
    const char *name = cfg->window_end_col >= 0 ? (cfg->dedup ? "WindowDeduplicate" : "WindowRank")
                                                : (cfg->dedup ? "Deduplicate" : "Rank");
    *out = (weir_operator_spec){name, &rank_class, rank_create, c, conf_free};
    return 0;
}
