/*
 * agg/agg_internal.h - what the aggregate functions of src/agg share:
 * typed access to one input value, the total order and hash of values,
 * owned string copies, the value multiset (vmap) used by the exact distinct
 * and retractable functions, and the framing of serialised accumulators.
 *
 * Invariants every built-in accumulator keeps:
 * - It begins with `int64_t rows`, the net number of rows (NULL inputs
 *   included) folded in; rows == 0 means empty, and an accumulator whose
 *   rows drop back to 0 through retraction is reset to its initial state.
 * - init never allocates; heap parts appear on the first add and go in
 *   destroy. A block holds no pointer into itself, so it may be moved
 *   with memcpy (never duplicated: the copy would share heap parts).
 * - A failed add/retract/merge (WEIR_ENOMEM) leaves the accumulator as it
 *   was: memory is reserved before anything changes.
 */
#ifndef WEIR_AGG_INTERNAL_H
#define WEIR_AGG_INTERNAL_H

#include <string.h>

#include "util/pow10.h"
#include "weir/agg.h"

/* How a value is held while aggregating. */
typedef enum vkind {
    VK_I64, /* BOOLEAN, INT, BIGINT, DECIMAL (unscaled), TIMESTAMP(_LTZ) */
    VK_F64, /* DOUBLE */
    VK_STR, /* STRING, BYTES */
    VK_DEC, /* DECIMAL of 19-38 digits: its 16 bytes, held as a string is */
} vkind;

/* Inline: MIN/MAX ask it per row added and per result written. */
static inline vkind weir__agg_vkind(weir_type t)
{
    if (weir_type_is_wide(t))
        return VK_DEC;
    if (t.id == WEIR_TYPE_DOUBLE)
        return VK_F64;
    return weir_type_is_varlen(t.id) ? VK_STR : VK_I64;
}

/* Is the value held as bytes (s/len) rather than in bits? */
static inline bool vk_bytes(vkind k)
{
    return k >= VK_STR;
}

/*
 * One value. For VK_I64 `bits` is the int64 (INT and BOOLEAN widened);
 * for VK_F64 the canonical bits of the double (-0.0 folded into +0.0, every
 * NaN into one quiet NaN), so equal values have equal bits; for VK_STR s/len;
 * for VK_DEC s/len too: the 16 bytes of the 128-bit two's complement
 * unscaled value in machine order (len 16).
 */
typedef struct aggv {
    uint64_t bits;
    const char *s;
    uint32_t len;
} aggv;

uint64_t weir__agg_canon_f64(double d);

static inline bool aggv_valid(const weir_batch *b, int32_t col, uint32_t row)
{
    const weir_column *c = &b->cols[col];
    return c->all_valid || ((c->valid[row >> 3] >> (row & 7)) & 1);
}

/* Reads (b, col, row), which must be non-NULL. */
static inline void aggv_get(vkind k, const weir_batch *b, int32_t col,
                            uint32_t row, aggv *v)
{
    const weir_column *c = &b->cols[col];
    if (k == VK_DEC) {
        v->s = (const char *)c->data + (size_t)row * 16;
        v->len = 16;
        v->bits = 0;
        return;
    }
    switch (c->type.id) {
    case WEIR_TYPE_BOOLEAN:
        v->bits = ((const uint8_t *)c->data)[row] ? 1 : 0;
        break;
    case WEIR_TYPE_DATE:
    case WEIR_TYPE_TIME:
    case WEIR_TYPE_INT:
        v->bits = (uint64_t)(int64_t)((const int32_t *)c->data)[row];
        break;
    case WEIR_TYPE_DOUBLE:
        v->bits = weir__agg_canon_f64(((const double *)c->data)[row]);
        break;
    case WEIR_TYPE_STRING:
    case WEIR_TYPE_BYTES:
    case WEIR_TYPE_ARRAY:
    case WEIR_TYPE_MAP:
    case WEIR_TYPE_MULTISET:
    case WEIR_TYPE_ROW: {
        weir_strref r = ((const weir_strref *)c->data)[row];
        v->s = b->heap + r.off;
        v->len = r.len;
        v->bits = 0;
        break;
    }
    default:
        v->bits = (uint64_t)((const int64_t *)c->data)[row];
        break;
    }
}

static inline double aggv_f64(const aggv *v)
{
    double d;
    memcpy(&d, &v->bits, 8);
    return d;
}

/* Total order: integers and decimals numerically; doubles numerically with
 * NaN above everything; strings bytewise (unsigned), a prefix before its
 * extensions. */
int weir__agg_cmp(vkind k, const aggv *x, const aggv *y);
/* weir__agg_cmp of two strings: bytes, then the shorter first. */
static inline int weir__agg_cmp_str(const char *x, uint32_t xlen, const char *y, uint32_t ylen)
{
    uint32_t n = xlen < ylen ? xlen : ylen;
    int c = n ? memcmp(x, y, n) : 0;
    if (c)
        return c < 0 ? -1 : 1;
    return (xlen > ylen) - (xlen < ylen);
}
bool weir__agg_eq(vkind k, const aggv *x, const aggv *y);
/* Stable across versions: XXH3-64 (seed 0) of the 8 little-endian bytes of
 * bits, or of the string bytes (VK_DEC: the 16 bytes as held). Sketches
 * persist these hashes. */
uint64_t weir__agg_hash(vkind k, const aggv *v);

/* Value encoding inside serialised accumulators. */
int weir__agg_put_value(weir_buf *out, vkind k, const aggv *v);
/* For VK_STR and VK_DEC, v->s points into the cursor's memory. */
int weir__agg_get_value(weir_cursor *in, vkind k, aggv *v);

/* Writes an integer, double or string result with the width of the
 * result column; set_valid included. */
int weir__agg_put_i64(weir_batch *out, uint32_t col, uint32_t row, int64_t v);
int weir__agg_put_f64(weir_batch *out, uint32_t col, uint32_t row, double v);
int weir__agg_put_str(weir_batch *out, uint32_t col, uint32_t row,
                      const char *s, uint32_t len);
int weir__agg_put_value_out(weir_batch *out, uint32_t col, uint32_t row,
                            vkind k, const aggv *v);
int weir__agg_put_null(weir_batch *out, uint32_t col, uint32_t row);
/* WEIR_EINVAL unless the output column has the aggregate's result type. */
int weir__agg_check_out(const weir_agg *a, const weir_batch *out, uint32_t col,
                        uint32_t row);

/*
 * A string owned by an accumulator; grows geometrically, never shrinks.
 * Up to 8 bytes (MAX of a 'HH:mm', a short code) lie in the place of the
 * pointer while nothing is allocated (cap 0), so reading them touches no
 * other memory than the accumulator's; the struct may be moved (memcpy,
 * realloc) either way. All zeros is the empty string. Read it through
 * weir__ostr_data.
 */
typedef struct ostr {
    char *p; /* cap 0: the bytes themselves */
    uint32_t len;
    uint32_t cap;
} ostr;
int weir__ostr_set(ostr *o, const char *s, uint32_t len);
void weir__ostr_free(ostr *o);
static inline const char *weir__ostr_data(const ostr *o)
{
    return o->cap ? o->p : (const char *)(const void *)&o->p;
}

/* Powers of ten up to 10^18, for DECIMAL scaling. */

/* ---- serialisation framing ---- */

#define WEIR_AGG_FORMAT_V1 1

/* Function codes in the serialised header; never renumber. */
enum {
    FC_COUNT_STAR = 1,
    FC_COUNT = 2,
    FC_SUM = 3,
    FC_AVG = 4,
    FC_MIN = 5,
    FC_MAX = 6,
    FC_FIRST = 7,
    FC_LAST = 8,
    FC_COUNT_DISTINCT = 9,
    FC_HLL = 10,
    FC_PERCENTILE = 11,
    FC_MIN_RETRACT = 12,
    FC_MAX_RETRACT = 13,
    FC_FIRST_RETRACT = 14,
    FC_LAST_RETRACT = 15,
    FC_VARIANCE = 16,
    FC_UDAF = 17,
    FC_DISTINCT_OF = 18,
    FC_LISTAGG = 19,
    FC_LAG = 20,
    FC_LAG_PRESENT = 21,
    FC_COLLECT = 22,
    FC_SINGLE_VALUE = 23,
    FC_PERCENTILE_EXACT = 24,
    FC_ARRAY_AGG = 40,
    FC_ARRAY_AGG_DISTINCT = 41,
    FC_PERCENTILE_FREQ = 42,
};

/* Header: u8 format version, u8 function code, u8 value kind + 1 (0 when
 * the function carries no input values), varint rows. */
int weir__agg_put_header(weir_buf *out, uint8_t fc, int kind, int64_t rows);
int weir__agg_get_header(weir_cursor *in, uint8_t fc, int kind, int64_t *rows);

/* ---- the value multiset ---- */

typedef struct vent {
    uint64_t hash;
    uint64_t bits; /* the value (VK_I64/VK_F64) or arena offset (VK_STR/VK_DEC) */
    int64_t count; /* live occurrences; -1 marks a free entry */
    uint32_t len;  /* VK_STR/VK_DEC length */
    uint32_t hpos; /* position in the owner's heap; next free entry when free */
    uint32_t head; /* oldest live occurrence (FIRST/LAST_RETRACT) */
    uint32_t tail; /* newest live occurrence */
} vent;

/*
 * Distinct values with counts. Entries keep their number for life (removed
 * ones go to a free list and are reused), so owners can point at them; an
 * open-addressing index of entry numbers + 1 with linear probing finds
 * them. String bytes live in one arena that is compacted when more than
 * half of it is garbage, so adding values allocates only when a buffer
 * doubles.
 */
typedef struct vmap {
    vkind kind;
    uint32_t n;   /* live entries */
    uint32_t top; /* entries [0, top) have been used */
    uint32_t cap;
    uint32_t free; /* first free entry below top, or UINT32_MAX */
    vent *e;
    uint32_t *slot;
    uint32_t nslot; /* power of two, or 0 */
    char *arena;
    size_t alen, acap, agarbage;
} vmap;

static inline bool vmap_live(const vmap *m, uint32_t i)
{
    return m->e[i].count >= 0;
}

void weir__vmap_init(vmap *m, vkind kind);
void weir__vmap_fini(vmap *m);
/* Makes room for `extra` more entries with `bytes` more string bytes, so
 * the next inserts cannot fail. */
int weir__vmap_reserve(vmap *m, uint32_t extra, size_t bytes);
/* Index of v, or -1. */
int64_t weir__vmap_find(const vmap *m, const aggv *v, uint64_t hash);
/* Inserts v (absent; room reserved) with count 0; returns its index. */
uint32_t weir__vmap_insert(vmap *m, const aggv *v, uint64_t hash);
/* Removes entry i; its number may be reused by a later insert. */
void weir__vmap_remove(vmap *m, uint32_t i);
/* A view of entry i's value; a string view is valid until the next insert. */
static inline void vmap_key(const vmap *m, uint32_t i, aggv *v)
{
    v->bits = m->e[i].bits;
    if (vk_bytes(m->kind)) {
        v->s = m->arena + m->e[i].bits;
        v->len = m->e[i].len;
    } else {
        v->s = NULL;
        v->len = 0;
    }
}
/* The live entry numbers sorted by value, m->n of them (transferred;
 * weir_free). */
int weir__vmap_sorted(const vmap *m, uint32_t **out);
/* Canonical form: varint number of values, then each value in ascending
 * order with its varint count. m may be NULL (no values). */
int weir__vmap_put_counts(weir_buf *out, const vmap *m);
/* Reads that form into the empty m; the counts must add up to at most
 * max_total; their sum goes to *total. */
int weir__vmap_get_counts(weir_cursor *in, vmap *m, int64_t max_total,
                          int64_t *total);

/* ---- the function classes ---- */

extern const weir_agg_class weir__agg_count_star;
extern const weir_agg_class weir__agg_count;
extern const weir_agg_class weir__agg_sum_int;
extern const weir_agg_class weir__agg_sum_bigint;
extern const weir_agg_class weir__agg_sum_double;
extern const weir_agg_class weir__agg_sum_decimal;
extern const weir_agg_class weir__agg_sum0_int;
extern const weir_agg_class weir__agg_sum0_bigint;
extern const weir_agg_class weir__agg_sum0_double;
extern const weir_agg_class weir__agg_sum0_decimal;
extern const weir_agg_class weir__agg_avg_int;
extern const weir_agg_class weir__agg_avg_bigint;
extern const weir_agg_class weir__agg_avg_double;
extern const weir_agg_class weir__agg_avg_decimal;
extern const weir_agg_class weir__agg_var_pop;
extern const weir_agg_class weir__agg_var_samp;
extern const weir_agg_class weir__agg_stddev_pop;
extern const weir_agg_class weir__agg_stddev_samp;
extern const weir_agg_class weir__agg_min;
extern const weir_agg_class weir__agg_max;
extern const weir_agg_class weir__agg_first;
extern const weir_agg_class weir__agg_last;
extern const weir_agg_class weir__agg_min_retract;
extern const weir_agg_class weir__agg_max_retract;
extern const weir_agg_class weir__agg_first_retract;
extern const weir_agg_class weir__agg_last_retract;
extern const weir_agg_class weir__agg_count_distinct;
extern const weir_agg_class weir__agg_hll;
extern const weir_agg_class weir__agg_percentile;
extern const weir_agg_class weir__agg_udaf;
extern const weir_agg_class weir__agg_distinct_of;
extern const weir_agg_class weir__agg_listagg;
extern const weir_agg_class weir__agg_collect;
extern const weir_agg_class weir__agg_percentile_exact;
extern const weir_agg_class weir__agg_percentiles;
extern const weir_agg_class weir__agg_percentile_freq;
extern const weir_agg_class weir__agg_percentiles_freq;
extern const weir_agg_class weir__agg_array_agg;
extern const weir_agg_class weir__agg_array_agg_distinct;
extern const weir_agg_class weir__agg_single_value;
extern const weir_agg_class weir__agg_lag;
extern const weir_agg_class weir__agg_lag_present;

/* Shared by every built-in: rows == 0. */
bool weir__agg_rows_empty(const weir_agg *a, const void *acc);

/* HLL precision bounds and default (m = 2^p registers). */
#define WEIR_HLL_P_MIN 4
#define WEIR_HLL_P_MAX 18
#define WEIR_HLL_P_DEFAULT 14
/* DDSketch relative accuracy and bucket budget per sign. */
#define WEIR_DDS_ALPHA 0.01
#define WEIR_DDS_MAX_BUCKETS 2048
/* ln(gamma) with gamma = (1 + alpha) / (1 - alpha), its inverse, and
 * ln(2 / (gamma + 1)), to 20 digits (tests check them against libm). */
#define WEIR_DDS_LN_GAMMA 0.020000666706669524032
#define WEIR_DDS_INV_LN_GAMMA 49.998333288886560696
#define WEIR_DDS_LN_MID -0.010050335853501441184

#endif
