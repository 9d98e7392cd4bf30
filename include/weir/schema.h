/*
 * weir/schema.h - logical types and record schemas.
 *
 * Physical representation of each type inside a batch column:
 *   BOOLEAN        uint8_t (0/1)
 *   INT            int32_t
 *   BIGINT         int64_t
 *   DOUBLE         double
 *   DECIMAL(p,s)   unscaled value: int64_t for p <= 18, __int128 for
 *                  19 <= p <= 38 (see weir_type_size)
 *   STRING, BYTES  weir_strref into the batch's string heap
 *   TIMESTAMP(3), TIMESTAMP_LTZ(3)  int64_t epoch milliseconds (UTC)
 *   DATE           int32_t days since 1970-01-01
 *   TIME(p)        int32_t milliseconds of the day (0 .. 86399999)
 *   INTERVAL       a BIGINT whose precision holds the kind (weir_type_interval):
 *                  1 day-time (milliseconds), 2 year-month (months); every
 *                  BIGINT operation applies, only the text form differs
 *   ARRAY<T>, MAP<K, V>, ROW<...>   weir_strref to the value's encoding in
 *                  the string heap (record/nested.h): equal values have equal
 *                  bytes, so they hash, compare and checkpoint as BYTES do
 * A schema is immutable once built and is shared by pointer; it must outlive
 * every batch that refers to it.
 */
#ifndef WEIR_SCHEMA_H
#define WEIR_SCHEMA_H

#include "weir/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum weir_type_id {
    WEIR_TYPE_BOOLEAN,
    WEIR_TYPE_INT,
    WEIR_TYPE_BIGINT,
    WEIR_TYPE_DOUBLE,
    WEIR_TYPE_DECIMAL,
    WEIR_TYPE_STRING,
    WEIR_TYPE_BYTES,
    WEIR_TYPE_TIMESTAMP,     /* TIMESTAMP(3): wall-clock time, kept as UTC ms */
    WEIR_TYPE_TIMESTAMP_LTZ, /* TIMESTAMP_LTZ(3): an instant, epoch ms */
    WEIR_TYPE_NULL,          /* type of the NULL literal (SQL planner only) */
    WEIR_TYPE_ARRAY,         /* ARRAY<T>: weir_type_nested() describes T */
    WEIR_TYPE_MAP,           /* MAP<K, V> */
    WEIR_TYPE_ROW,           /* ROW<name T, ...> */
    WEIR_TYPE_DATE,          /* DATE: int32_t days since 1970-01-01 */
    WEIR_TYPE_TIME,          /* TIME(p): int32_t milliseconds of the day; precision 0 to 3 */
    WEIR_TYPE_MULTISET,      /* MULTISET<T>: encoded as MAP<T, INT NOT NULL> (element -> count) */
} weir_type_id;
/* The highest type id (readers of stored data check ids against it): a new
 * type goes above it and moves it. */
#define WEIR__TYPE_ID_LAST WEIR_TYPE_MULTISET

/*
 * For ARRAY, MAP and ROW, precision and scale hold the number of the
 * interned descriptor (low and high byte; see weir_type_nested), so the
 * struct stays 8 bytes and comparing precision and scale compares
 * structures.
 */
typedef struct weir_type {
    weir_type_id id;
    uint8_t precision; /* DECIMAL precision, TIMESTAMP and TIME fractional digits */
    uint8_t scale;     /* DECIMAL scale */
    bool nullable;
} weir_type;

/* The interval kind of a column type: 1 day-time, 2 year-month, 0 none
 * (the values of weir_interval_kind in weir/expr.h). */
static inline int weir_type_interval(weir_type t) { return t.id == WEIR_TYPE_BIGINT ? t.precision : 0; }

/* The descriptor number of a nested type (0 for any other type). */
static inline uint32_t weir_type_nested_id(weir_type t)
{
    return t.id == WEIR_TYPE_ARRAY || t.id == WEIR_TYPE_MAP || t.id == WEIR_TYPE_ROW || t.id == WEIR_TYPE_MULTISET
               ? (uint32_t)t.precision | (uint32_t)t.scale << 8
               : 0;
}

/*
 * The structure of an ARRAY, MAP or ROW type. Descriptors are interned
 * process-wide and never freed: two structurally equal types have the same
 * `nested` number, so comparing numbers compares structures.
 */
typedef struct weir_nested_type {
    weir_type_id kind;        /* ARRAY, MAP, ROW or MULTISET */
    uint32_t n;               /* ARRAY 1 (element), MAP 2 (key, value), ROW its fields,
                                 MULTISET 2 (element, INT NOT NULL count) */
    const weir_type *elems;   /* n types */
    const char *const *names; /* ROW field names, else NULL */
} weir_nested_type;

/* A string or bytes value inside a batch: offset and length in its heap. */
typedef struct weir_strref {
    uint32_t off;
    uint32_t len;
} weir_strref;

typedef struct weir_field {
    char *name; /* owned by the schema */
    weir_type type;
} weir_field;

typedef struct weir_schema {
    uint32_t n_fields;
    weir_field *fields;
    int32_t rowtime; /* index of the event-time field, or -1 */
    uint32_t cap_;   /* internal */
} weir_schema;

weir_type weir_type_make(weir_type_id id, bool nullable);
weir_type weir_type_decimal(uint8_t precision, uint8_t scale, bool nullable);
/* Width in bytes of one value in a column of this type (a DECIMAL counts as
 * its narrow form, 8 bytes: use weir_type_size for a full type). */
size_t weir_type_width(weir_type_id id);
/* A DECIMAL stored as a 128-bit unscaled value (precision 19 to 38). */
static inline bool weir_type_is_wide(weir_type t) { return t.id == WEIR_TYPE_DECIMAL && t.precision > 18; }
/* Width in bytes of one value of type t: 16 for a DECIMAL of precision > 18. */
size_t weir_type_size(weir_type t);
/* The batch code asks both per value of every row it appends or copies:
 * calls expand inline (the macros below); the functions are exported too,
 * for callers built against an earlier weir and for their addresses
 * (variadic: a compound literal argument holds commas). */
static inline size_t weir__type_width_inline(weir_type_id id)
{
    switch (id) {
    case WEIR_TYPE_BOOLEAN: return 1;
    case WEIR_TYPE_INT:
    case WEIR_TYPE_DATE:
    case WEIR_TYPE_TIME: return 4;
    case WEIR_TYPE_BIGINT:
    case WEIR_TYPE_DOUBLE:
    case WEIR_TYPE_DECIMAL:
    case WEIR_TYPE_TIMESTAMP:
    case WEIR_TYPE_TIMESTAMP_LTZ:
    case WEIR_TYPE_STRING:
    case WEIR_TYPE_BYTES:
    case WEIR_TYPE_ARRAY:
    case WEIR_TYPE_MAP:
    case WEIR_TYPE_MULTISET:
    case WEIR_TYPE_ROW: return 8;
    case WEIR_TYPE_NULL: return 1;
    }
    return 8;
}
static inline size_t weir__type_size_inline(weir_type t)
{
    return weir_type_is_wide(t) ? 16 : weir__type_width_inline(t.id);
}
#define weir_type_width(...) weir__type_width_inline(__VA_ARGS__)
#define weir_type_size(...) weir__type_size_inline(__VA_ARGS__)
/* "BIGINT", "DECIMAL", ... (static string). */
const char *weir_type_name(weir_type_id id);
/* Writes e.g. "DECIMAL(10, 2) NOT NULL" into buf; returns buf. */
char *weir_type_format(weir_type t, char *buf, size_t cap);
bool weir_type_is_string(weir_type_id id);   /* STRING or BYTES */
bool weir_type_is_numeric(weir_type_id id);  /* INT, BIGINT, DOUBLE, DECIMAL */
bool weir_type_is_time(weir_type_id id);     /* TIMESTAMP or TIMESTAMP_LTZ */
/* DATE or TIME (inline: asked per value on hot paths) */
static inline bool weir_type_is_date_time(weir_type_id id) { return id == WEIR_TYPE_DATE || id == WEIR_TYPE_TIME; }
/* ARRAY, MAP, ROW, MULTISET (inline: asked per value on hot paths) */
static inline bool weir_type_is_nested(weir_type_id id)
{
    return id == WEIR_TYPE_ARRAY || id == WEIR_TYPE_MAP || id == WEIR_TYPE_ROW || id == WEIR_TYPE_MULTISET;
}
/* MAP or MULTISET: a count, then (key, value) pairs in key order. */
static inline bool weir_type_is_mapish(weir_type_id id) { return id == WEIR_TYPE_MAP || id == WEIR_TYPE_MULTISET; }
/* Stored as a weir_strref into the batch heap: STRING, BYTES and the nested types. */
static inline bool weir_type_is_varlen(weir_type_id id)
{
    return id == WEIR_TYPE_STRING || id == WEIR_TYPE_BYTES || weir_type_is_nested(id);
}
/* ARRAY<elem>, MAP<key, value>, ROW<names[i] types[i], ...> (names copied). Fail
 * with WEIR_ENOSPC only when the process holds too many distinct nested types. */
int weir_type_array(weir_type elem, bool nullable, weir_type *out);
int weir_type_map(weir_type key, weir_type value, bool nullable, weir_type *out);
int weir_type_row(const weir_type *types, const char *const *names, uint32_t n, bool nullable, weir_type *out);
/* MULTISET<elem>: its descriptor holds elem and the INT NOT NULL count. */
int weir_type_multiset(weir_type elem, bool nullable, weir_type *out);
/* The descriptor of a nested type, or NULL for any other type. */
const weir_nested_type *weir_type_nested(weir_type t);
/* Same type, nullability aside (DECIMAL precision and scale, nested structure). */
bool weir_type_same(weir_type a, weir_type b);

weir_schema *weir_schema_create(void);
void weir_schema_destroy(weir_schema *s);
/* Appends a field (name copied); returns its index or a negative code. */
int weir_schema_add(weir_schema *s, const char *name, weir_type type);
/* Index of the field named name (case-insensitive), or -1. */
int weir_schema_find(const weir_schema *s, const char *name);
weir_schema *weir_schema_copy(const weir_schema *s);
bool weir_schema_equal(const weir_schema *a, const weir_schema *b);

#ifdef __cplusplus
}
#endif
#endif
