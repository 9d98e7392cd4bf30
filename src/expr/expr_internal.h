/*
 * expr/expr_internal.h - the parts of the expression engine shared between
 * its files: the node layout, the evaluation context and its scratch
 * allocator, kernels, the function table, casts and time zones.
 *
 * Invariants:
 * - A node's `type` is final once its constructor returns; children are
 *   already cast to the types the node's kernel expects.
 * - During evaluation every vector holds n rows. Values of NULL rows are
 *   defined (zero / empty string) but meaningless. Rows whose `active` flag
 *   is 0 (branches not taken by CASE/IF/AND/OR/COALESCE) may hold anything;
 *   kernels must not report errors for them.
 * - All scratch memory comes from the env's chunk allocator, reset at the
 *   start of each top-level evaluation and never freed in between, so
 *   pointers into it stay valid for the whole evaluation.
 */
#ifndef WEIR_EXPR_INTERNAL_H
#define WEIR_EXPR_INTERNAL_H

#include <string.h>

#include "time/tz.h"
#include "util/dec128.h"
#include "util/pow10.h"
#include "weir/expr.h"

typedef weir_expr_vec xvec;
typedef weir_expr_str xstr;

enum {
    N_COLUMN,
    N_LITERAL,
    N_CALL,     /* kernel over evaluated arguments */
    N_AND,
    N_OR,
    N_CASE,     /* args: cond0, val0, cond1, val1, ..., else */
    N_COALESCE,
    N_IF,       /* IF(c, a, b) */
    N_SHARED,   /* args[0], computed once per evaluation into slot p0 (shared.c) */
};

/* Node flags. */
enum {
    F_VOLATILE = 1,   /* value differs per call/row (RAND) */
    F_SESSION = 2,    /* depends on env (clock, watermark, time zone) */
    F_STRICT = 4,     /* NULL if any argument is NULL (driver handles it) */
    F_TRY = 8,        /* TRY_CAST */
    F_MAYNULL = 16,   /* the kernel itself can produce NULLs */
};

typedef struct ecx ecx;
typedef int (*xkernel)(ecx *cx, const weir_expr *e, const xvec *args, uint32_t n, const uint8_t *active,
                       xvec *out);

struct weir_expr {
    uint8_t kind;
    uint8_t iv;    /* weir_interval_kind of the result */
    uint8_t flags;
    weir_type type;
    uint32_t n_args;
    weir_expr **args;
    const char *name; /* function name for formatting */
    xkernel fn;
    void *aux;        /* compiled pattern, IN set, UDF, ... */
    int64_t p0, p1;   /* small kernel parameters (units, scales) */
    int32_t col;      /* N_COLUMN */
    weir_value lit;   /* N_LITERAL */
    const weir__tz *tz; /* the arena's session zone when built (NULL = UTC); owned by the arena */
};

/* ---- scratch memory ---- */

typedef struct xchunk {
    struct xchunk *next;
    size_t cap, used;
    char *data;
} xchunk;


typedef struct rng_slot {
    const weir_expr *node;
    uint64_t state;
} rng_slot;

struct weir_expr_env {
    weir_ts watermark;
    weir_clock clock;
    weir__tz *tz;     /* NULL = UTC */
    xchunk *chunks;   /* all chunks, kept across evaluations */
    xchunk *cur;
    rng_slot *rng;    /* per RAND node generator state */
    uint32_t n_rng, cap_rng;
    uint64_t rng_seq; /* seeds unseeded generators */
};

/*
 * The value of one shared subexpression during an evaluation: v holds the
 * rows computed so far (those in `done`, or every row when `all`); rows a
 * later use needs beyond them are computed then, and only then, so that a
 * row is never evaluated where no use of the subexpression is active.
 */
typedef struct xshared {
    xvec v;
    uint8_t *done; /* NULL until the first use */
    bool all;
} xshared;

struct ecx {
    weir_expr_env *env;
    weir_error *err;
    const weir_batch *in;
    uint32_t n;
    const uint32_t *rows; /* row i of the evaluation is row rows[i] of `in`; NULL: row i */
    xshared *shared;      /* a slot per shared subexpression; NULL: N_SHARED evaluates its argument */
    const weir__tz *tz; /* session zone: the env's, else the root expression's; NULL = UTC */
    int64_t now_ms; /* processing time, read once per evaluation (PROCTIME(), weir__x_now) */
    bool have_now;
    /*
     * Processing time per input row (weir__x_now_rows): the clock is read
     * once for each row of `in`, in order, the first time a function asks,
     * and every function of the evaluation sees the row's reading.
     */
    int64_t *now_rows;
};

/* weir_udf_ctx is the evaluation context seen from a UDF. */
struct weir_udf_ctx {
    ecx cx;
};

/* A new chunk for an allocation the current one cannot hold (arena.c); NULL: no memory. */
void *weir__x_alloc_chunk(ecx *cx, size_t size);

/*
 * Evaluation memory: size bytes, aligned 16, not zeroed; the block is size
 * rounded up to 16 (at least 16), so x_fill may write whole 16-byte units
 * of it. Every node takes a few of these per evaluation, and a join's
 * residual is evaluated for a batch of a row or two: the common case (room
 * in the current chunk) is inline.
 */
static inline void *weir__x_alloc(ecx *cx, size_t size)
{
    size = size ? (size + 15) & ~(size_t)15 : 16;
    xchunk *c = cx->env->cur;
    if (!c || c->cap - c->used < size)
        return weir__x_alloc_chunk(cx, size);
    void *p = c->data + c->used;
    c->used += size;
    return p;
}

/*
 * Sets the first n bytes of p, a block of weir__x_alloc of at least n
 * bytes, to v. Most evaluations are of a few rows: a block of one 16-byte
 * unit is set by one inlined store instead of a call.
 */
static inline void x_fill(void *p, int v, size_t n)
{
    if (n <= 16)
        memset(p, v, 16);
    else
        memset(p, v, n);
}

static inline void *weir__x_zalloc(ecx *cx, size_t size)
{
    void *p = weir__x_alloc(cx, size);
    if (p)
        x_fill(p, 0, size);
    return p;
}
int weir__x_fail(ecx *cx, uint32_t row, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int64_t weir__x_now(ecx *cx);
/* The processing time of each input row of the evaluation (index it by row i through cx->rows); NULL: no memory. */
const int64_t *weir__x_now_rows(ecx *cx);
void weir__x_reset(weir_expr_env *env);

static inline bool x_live(const xvec *out, const uint8_t *active, uint32_t i)
{
    return !(out->nulls && out->nulls[i]) && !(active && !active[i]);
}
static inline uint8_t *x_nulls(ecx *cx, xvec *out)
{
    if (!out->nulls)
        out->nulls = weir__x_zalloc(cx, cx->n ? cx->n : 1);
    return out->nulls;
}
static inline void x_setnull(ecx *cx, xvec *out, uint32_t i) { x_nulls(cx, out)[i] = 1; }
/* Allocates len bytes for a string result. */
static inline char *x_str(ecx *cx, size_t len) { return weir__x_alloc(cx, len ? len : 1); }
/* Copies len bytes at p into evaluation memory as row i of out (a string);
 * 0 or WEIR_ENOMEM (the error not set). */
static inline int x_put_str(ecx *cx, xvec *out, uint32_t i, const void *p, size_t len)
{
    char *o = x_str(cx, len);
    if (!o)
        return WEIR_ENOMEM;
    if (len)
        memcpy(o, p, len);
    ((xstr *)out->data)[i] = (xstr){o, (uint32_t)len};
    return 0;
}
/* Copies the bytes in b (a nested value, a string) into evaluation memory
 * as row i of out (f_nested.c); 0 or WEIR_ENOMEM with the error set. */
struct weir_buf;
int weir__x_put_buf(ecx *cx, xvec *out, uint32_t i, const struct weir_buf *b);

/* ---- arena ---- */

void *weir__arena_alloc(weir_expr_arena *a, size_t size);
char *weir__arena_strdup(weir_expr_arena *a, const char *s, size_t len);
weir_expr *weir__node(weir_expr_arena *a, int kind, weir_type type, uint32_t n_args);
/* Registers a destructor run when the arena is destroyed (compiled regexes). */
int weir__arena_on_destroy(weir_expr_arena *a, void (*fn)(void *), void *p);

/* ---- types ---- */

static inline weir_type tmake(weir_type_id id, bool nullable) { return weir_type_make(id, nullable); }
bool weir__is_exact(weir_type_id id); /* INT, BIGINT, DECIMAL */
/* Precision/scale of an exact type as a decimal (INT = (10,0), BIGINT = (19,0)). */
void weir__dec_ps(weir_type t, int *p, int *s);
weir_type weir__dec_adjust(int p, int s, bool nullable);
bool weir__implicit_ok(const weir_expr *from, weir_type to);
/*
 * The common type of a and b, false if none. weir__common_type is the type
 * of a value chosen from them (CASE, COALESCE, IF, GREATEST, ARRAY[...]):
 * Flink's least restrictive type, whose DECIMAL keeps the integral digits
 * of both and cuts the scale past 38 digits (a value is rounded to it).
 * weir__compare_type is the type they are compared in (=, IN; two exact
 * numbers of different scales compare without it, exactly): its DECIMAL
 * keeps the scale, so that comparing does not round.
 */
bool weir__common_type(const weir_expr *a, const weir_expr *b, weir_type *out);
bool weir__compare_type(const weir_expr *a, const weir_expr *b, weir_type *out);
bool weir__type_eq(weir_type a, weir_type b); /* ignoring nullability */
const char *weir__tname(const weir_expr *e, char *buf, size_t cap);


/* ---- building ---- */

/* Wraps e in an implicit cast to t (no-op if already of type t). */
int weir__coerce(weir_expr_arena *a, weir_expr **e, weir_type t, weir_error *err);
int weir__coerce_kind(weir_expr_arena *a, weir_expr **e, weir_type t, uint8_t iv, weir_error *err);
/* Constant folding: replaces *e by a literal when possible. */
void weir__fold(weir_expr_arena *a, weir_expr **e);
int weir__build_cast(weir_expr_arena *a, weir_expr *e, weir_type type, bool try_cast, bool implicit,
                     weir_expr **out, weir_error *err);
/* weir__build_cast, and to TIMESTAMP(p) / TIMESTAMP_LTZ(p) with 0 <= digits = p < 3 the fraction of the
 * second then cut to p digits (weir keeps milliseconds in every TIMESTAMP type; CAST cuts as Flink's) */
int weir__build_cast_fraction(weir_expr_arena *a, weir_expr *e, weir_type type, int digits, bool try_cast,
                              weir_expr **out, weir_error *err);

/* A builder: binds a call for one function name. */
typedef struct xfunc xfunc;
typedef int (*xbind)(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                     weir_error *err);
struct xfunc {
    const char *name;
    const char *sig;  /* for messages, e.g. "SUBSTRING(STRING, INT [, INT])" */
    xbind bind;
    int64_t param;    /* bind-specific */
};
/* A finished call node: all args already coerced. */
weir_expr *weir__call_node(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_type type,
                           xkernel fn, uint8_t flags);
int weir__bad_args(const xfunc *f, weir_expr **args, uint32_t n, weir_error *err);
/* The literal list of an IN node (kept in aux, not in args), for
 * formatting: the number of distinct non-NULL values and whether NULL is
 * listed; weir__in_value gives the i-th value, ascending. */
uint32_t weir__in_size(const weir_expr *e, bool *has_null);
void weir__in_value(const weir_expr *e, uint32_t i, weir_value *out);
/* Nullable if any argument is. */
bool weir__any_nullable(weir_expr **args, uint32_t n);

/*
 * A set of string literals with a value each, looked up with one hash and
 * (mostly) one comparison: IN over string literals and a CASE whose WHENs
 * all compare one subject with string literals (f_core.c). Built in the
 * expression's arena; the first of equal keys keeps its value.
 */
typedef struct xstrset_slot {
    const char *ptr;
    uint32_t len;
    uint32_t val; /* the key's value + 1; 0: an empty slot */
} xstrset_slot;

typedef struct xstrset {
    uint32_t mask;
    xstrset_slot *slots;
} xstrset;

int weir__strset_build(weir_expr_arena *a, const xstr *keys, uint32_t n, xstrset *out);

static inline uint64_t weir__strset_hash(const char *p, uint32_t len)
{
    uint64_t lo = 0, hi = 0;
    if (len >= 8) {
        memcpy(&lo, p, 8);
        memcpy(&hi, p + len - 8, 8);
    } else if (len) {
        memcpy(&lo, p, len);
    }
    uint64_t h = (lo ^ (uint64_t)len * 0x9E3779B97F4A7C15ull) * 0xBF58476D1CE4E5B9ull;
    h ^= (hi + (h >> 31)) * 0x94D049BB133111EBull;
    return h ^ (h >> 29);
}

/* The value of key k, or UINT32_MAX when k is not in the set. */
static inline uint32_t weir__strset_find(const xstrset *s, xstr k)
{
    for (uint32_t i = (uint32_t)weir__strset_hash(k.ptr, k.len) & s->mask;; i = (i + 1) & s->mask) {
        const xstrset_slot *e = &s->slots[i];
        if (!e->val)
            return UINT32_MAX;
        if (e->len == k.len && (!k.len || !memcmp(e->ptr, k.ptr, k.len)))
            return e->val - 1;
    }
}

/*
 * CASE WHEN x = 'a' THEN ... WHEN x = 'b' THEN ... (every WHEN the same
 * deterministic string x against a string literal): the literals in one
 * set, so eval.c computes x once and finds each row's branch with one
 * lookup (the CASE node's aux). Whether WHEN k still has that form, and
 * which argument of its `=` is x: weir__case_switch_subject.
 */
typedef struct xcase_switch {
    uint32_t n_when;
    xstrset set; /* literal -> the first WHEN that compares with it */
} xcase_switch;

/* Whether e or a node under it is volatile (RAND, a UDF not declared
 * deterministic) or reads the session (clock, watermark, time zone) (shared.c). */
bool weir__has_volatile_or_session(const weir_expr *e);
/* Prepares e (an N_CASE just built) for the switch when its WHENs allow it. */
int weir__case_switch_prepare(weir_expr_arena *a, weir_expr *e);
/* The subject x of WHEN k of a CASE prepared as a switch, or NULL when the
 * condition is no longer `x = literal` (a later rewrite changed it). */
const weir_expr *weir__case_switch_subject(const weir_expr *e, uint32_t k);

/* Function tables of each file, NULL-name terminated. */
extern const xfunc weir__funcs_core[];
extern const xfunc weir__funcs_string[];
extern const xfunc weir__funcs_regex[];
extern const xfunc weir__funcs_math[];
extern const xfunc weir__funcs_time[];
extern const xfunc weir__funcs_json[];
extern const xfunc weir__funcs_nested[];
extern const xfunc weir__funcs_coll[];
extern const xfunc weir__funcs_text[];
extern const xfunc weir__funcs_strx[];
extern const xfunc weir__funcs_hash[];
extern const xfunc weir__funcs_printf[];
const xfunc *weir__func_find(const char *name);
/* Pattern functions (f_like.c): LIKE's binder; the check that the first nstr
 * arguments are STRING and the rest INT (NULL literals and BIGINT coerced);
 * whether e is a non-NULL string literal (its value in *s). */
int weir__bind_like(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                    weir_error *err);
int weir__need_strings(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, uint32_t nstr,
                       weir_error *err);
bool weir__lit_str(const weir_expr *e, xstr *s);
/* The UDF call builder (udf.c): returns 1 if name is a UDF and *out built. */
int weir__udf_bind(weir_expr_arena *a, const char *name, weir_expr **args, uint32_t n, weir_expr **out,
                   weir_error *err);
/* The order in which an AND/OR node (its aux when set) tests its operands:
 * idx[k] is the k-th operand tested; n equals the node's n_args. */
typedef struct xcond_order {
    uint32_t n;
    uint32_t idx[];
} xcond_order;
/* Sets that order on the AND/OR nodes under roots[0..n) (NULL entries
 * skipped) whose operands cannot fail: the cheap ones first (cond_order.c). */
int weir__order_conditions(weir_expr_arena *a, weir_expr **roots, uint32_t n);
/* Fills names (up to cap) with registered UDF names; returns count. */
uint32_t weir__udf_names(const char **names, uint32_t cap);
/* How many UDFs (scalar and table) are registered; whether name is one of them. */
uint32_t weir__udf_count(void);
bool weir__udf_exists(const char *name);

/* One code point of UTF-8 text at p (len bytes left; a byte that starts no
 * valid sequence reads as itself); returns the bytes read (f_string.c). */
uint32_t weir__utf8_decode(const char *p, uint32_t len, uint32_t *cp);
/* The UTF-8 bytes of cp into o (4 bytes of room); returns their number. */
uint32_t weir__utf8_encode(uint32_t cp, char *o);
/* The upper case of one code point (f_string.c). */
uint32_t weir__upper_cp(uint32_t cp);
/* The number of characters of s (a byte that continues none counts as one);
 * the byte offset of character k of s (clamped to its end). */
uint32_t weir__utf8_nchars(xstr s);
uint32_t weir__utf8_off(xstr s, uint32_t k);

/* ---- evaluation ---- */

int weir__eval_node(ecx *cx, const weir_expr *e, const uint8_t *active, xvec *out);
/* A filter and projections evaluated together (weir_expr_calc_create). */
struct weir_expr_calc {
    weir_expr *filter; /* rewritten, or NULL */
    weir_expr **exprs; /* n rewritten projections, or NULL */
    uint32_t n;
    uint32_t n_shared; /* slots of the N_SHARED nodes in them */
};
/* Rewrites roots[0..n) (NULL entries stay NULL) so that a deterministic
 * subexpression occurring more than once among them is one N_SHARED node;
 * returns the number of slots, or -1 when out of memory (shared.c). */
int32_t weir__share_subexprs(weir_expr_arena *a, weir_expr **roots, uint32_t n);
/* Casts in -> out (out preallocated to type to). */
void weir__cast_trim(const char **s, size_t *len);
int weir__cast_parse_bool(const char *s, size_t len, uint8_t *out);
/* Java's Double.parseDouble grammar: trimmed of characters <= ' ', a sign,
 * NaN, Infinity, decimal digits with an optional point and exponent, or a
 * hexadecimal significand with a binary exponent; an optional f/F/d/D.
 * True when s is such a text; [*begin, *end) is then the number, its sign
 * included and its suffix left out (cast.c). */
bool weir__java_double_span(const char *s, size_t len, const char **begin, const char **end);
int weir__cast_vec(ecx *cx, const weir_expr *e, weir_type from, weir_type to, bool try_cast, const xvec *in,
                   uint32_t n, const uint8_t *active, xvec *out);

/* ---- text <-> values ---- */

/* Java Double.toString format; returns length (buf >= 32). */
size_t weir__fmt_double(double v, char *buf);
size_t weir__fmt_decimal(int64_t v, int scale, char *buf);
/* Parses a decimal string into unscaled at scale s with HALF_UP; 0, WEIR_EPARSE, or WEIR_ERANGE(-100) on overflow of p. */
int weir__parse_decimal(const char *s, size_t len, int p, int sc, int64_t *out);
int weir__parse_decimal128(const char *s, size_t len, int p, int sc, weir_i128 *out);
/* The same without rounding: non-zero (WEIR__EINEXACT) when a digit past the scale is not 0. */
int weir__parse_decimal128_exact(const char *s, size_t len, int p, int sc, weir_i128 *out);
#define WEIR__ERANGE (-100)

/* ---- time ---- */

static inline int64_t x_local(const ecx *cx, int64_t utc_ms)
{
    return cx->tz ? utc_ms + weir__tz_offset(cx->tz, utc_ms) : utc_ms;
}
static inline int64_t x_utc(const ecx *cx, int64_t local_ms)
{
    return cx->tz ? weir__tz_to_utc(cx->tz, local_ms) : local_ms;
}
/*
 * Flink's default timestamp text: yyyy-M[M]-d[d][( |T)H[H]:m[m]:s[s][.f{1,9}]],
 * whitespace-trimmed. Returns 0 or WEIR_EPARSE.
 */
int weir__parse_ts_text(const char *s, size_t len, int64_t *out_ms);
size_t weir__fmt_ts(int64_t ms, char *buf); /* yyyy-MM-dd HH:mm:ss.SSS */

static inline int64_t x_floordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
static inline int64_t x_floormod(int64_t a, int64_t b) { return a - x_floordiv(a, b) * b; }

#endif
