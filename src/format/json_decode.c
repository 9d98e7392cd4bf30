/*
 * format/json_decode.c - a schema-directed JSON object decoder.
 *
 * One pass over the record, no tree: each key is matched to a column (first
 * against the column expected next, since producers keep their key order,
 * then through a small hash table), and the value is parsed straight into
 * the batch column in the column's type. Unknown keys have their values
 * validated and skipped, nested objects and arrays included. Strings are
 * checked for valid UTF-8 and unescaped (\uXXXX with surrogate pairs) into a
 * scratch buffer only when they contain escapes.
 *
 * Every read is bounded by the record's end; a malformed record sets the
 * decode error (position and "expected ...") and returns WEIR_EPARSE.
 */
#include <stdio.h>
#include <string.h>

#include "format/codec.h"
#include "format/convert.h"
#include "record/nested.h"
#include "time/timefmt.h"
#include "util/hex.h"

#define FAIL(d, at, ...) weir__decode_fail((d), (at), __VA_ARGS__)
#define OOM(d, at)                                                             \
    ((d)->oom = true, weir__decode_fail((d), (at), "out of memory"))

static uint32_t hash_name(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 16777619u;
    return h;
}

/* Whether a key named name[0, n) is written as these bytes in any JSON:
 * printable ASCII that needs no escape. */
static bool plain_name(const char *name, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (name[i] < 0x20 || name[i] > 0x7e || name[i] == '"' || name[i] == '\\')
            return false;
    return true;
}

static void key_patterns(weir_decoder *d)
{
    for (uint32_t c = 0; c < d->ncols; c++) {
        size_t n = d->name_len[c];
        if (n + 2 > sizeof d->key_pat[c] || !plain_name(d->schema->fields[c].name, n))
            continue;
        memcpy(d->key_pat[c], d->schema->fields[c].name, n);
        memcpy(d->key_pat[c] + n, "\":", 2);
        d->key_pat_len[c] = (uint8_t)(n + 2);
    }
}

int weir__json_decoder_init(weir_decoder *d)
{
    uint32_t cap = 8;
    while (cap < d->ncols * 2)
        cap *= 2;
    d->slots = weir_calloc(cap, sizeof *d->slots);
    uint32_t n = d->ncols ? d->ncols : 1;
    d->key_pat = weir_calloc(n, sizeof *d->key_pat);
    d->key_pat_len = weir_calloc(n, 1);
    if (!d->slots || !d->key_pat || !d->key_pat_len)
        return WEIR_ENOMEM;
    key_patterns(d);
    d->slot_mask = cap - 1;
    /* Insert in reverse so that, were two names equal, the first column wins.
     */
    for (uint32_t c = d->ncols; c-- > 0;) {
        const char *name = d->schema->fields[c].name;
        uint32_t h = hash_name(name, d->name_len[c]) & d->slot_mask;
        while (d->slots[h]) {
            uint32_t o = d->slots[h] - 1;
            if (d->name_len[o] == d->name_len[c] &&
                memcmp(d->schema->fields[o].name, name, d->name_len[c]) == 0)
                break;
            h = (h + 1) & d->slot_mask;
        }
        d->slots[h] = c + 1;
    }
    return 0;
}

static inline bool name_eq(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return false;
    return true;
}

static inline int lookup(weir_decoder *d, const char *k, size_t n)
{
    uint32_t g = d->guess;
    if (g < d->ncols && d->name_len[g] == n &&
        name_eq(d->schema->fields[g].name, k, n))
        return (int)g;
    uint32_t h = hash_name(k, n) & d->slot_mask;
    while (d->slots[h]) {
        uint32_t c = d->slots[h] - 1;
        if (d->name_len[c] == n && name_eq(d->schema->fields[c].name, k, n))
            return (int)c;
        h = (h + 1) & d->slot_mask;
    }
    return -1;
}

/*
 * The key that opens at p (its quote) when it is the one expected next,
 * written plain and followed at once by ':': returns the position after
 * the ':', or NULL (the key is read the general way).
 */
static inline const char *expected_key(const weir_decoder *d, const char *p,
                                       const char *end)
{
    uint32_t g = d->guess;
    if (g >= d->ncols || !d->key_pat_len[g] || end - p < 17)
        return NULL;
    unsigned n = d->key_pat_len[g];
#if defined(__SSE2__)
    __m128i eq = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 1)),
                                _mm_loadu_si128((const __m128i *)(const void *)d->key_pat[g]));
    unsigned want = (1u << n) - 1;
    if (((unsigned)_mm_movemask_epi8(eq) & want) != want)
        return NULL;
#else
    if (memcmp(p + 1, d->key_pat[g], n) != 0)
        return NULL;
#endif
    return p + 1 + n;
}

/* Whitespace between tokens; in line mode a line break ends the record. */
static inline const char *skip_ws(const weir_decoder *d, const char *p, const char *end)
{
    while (p < end && (unsigned char)*p <= ' ' &&
           (*p == ' ' || *p == '\t' || *p == '\r' || (*p == '\n' && !d->line_mode)))
        p++;
    return p;
}

/* "'x'", "byte 0x01" or "end of record", for messages about one character. */
static const char *describe_char(const char *p, const char *end, char *buf,
                                 size_t cap)
{
    if (p >= end)
        snprintf(buf, cap, "end of record");
    else if ((unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7f)
        snprintf(buf, cap, "'%c'", *p);
    else
        snprintf(buf, cap, "byte 0x%02x", (unsigned char)*p);
    return buf;
}

static const char *parse_hex4(weir_decoder *d, const char *p, const char *end,
                              uint32_t *out)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        int h = p + i < end ? weir__hex_value(p[i]) : -1;
        if (h < 0) {
            char found[64];
            weir__fmt_describe_text(
                p, (size_t)(end - p) < 4 ? (size_t)(end - p) : 4, found,
                sizeof found);
            return FAIL(d, p - 2, "expected 4 hex digits after \\u, found %s",
                        found);
        }
        v = v << 4 | (uint32_t)h;
    }
    *out = v;
    return p + 4;
}

static size_t put_utf8(char *o, uint32_t cp)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xC0 | cp >> 6);
        o[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | cp >> 12);
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | cp >> 18);
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Length of the valid UTF-8 sequence at p (0 if invalid). */
static inline size_t utf8_seq(const char *p, const char *end)
{
    size_t lim = (size_t)(end - p) < 4 ? (size_t)(end - p) : 4;
    size_t seq = 1;
    while (seq < lim && ((unsigned char)p[seq] & 0xC0) == 0x80)
        seq++;
    return seq > 1 && weir__fmt_utf8_check(p, seq) == seq ? seq : 0;
}

/*
 * The rest of parse_string, out of line: a string with escapes, non-ASCII
 * bytes or an error. p is the first such byte; start the string's first.
 */
static const char *parse_string_slow(weir_decoder *d, const char *start,
                                     const char *p, const char *end,
                                     const char **s, size_t *n)
    __attribute__((noinline));

/*
 * Decodes a string whose opening quote is at p[-1]. On success returns the
 * position after the closing quote and the content through s/n: a view of
 * the record when the string has no escapes, else of d->scratch (valid
 * until the next string). The common case (plain ASCII) stays inline.
 */
static inline const char *parse_string(weir_decoder *d, const char *p,
                                       const char *end, const char **s,
                                       size_t *n)
{
    const char *q = weir__fmt_json_scan(p, end);
    if (q < end && *q == '"') {
        *s = p;
        *n = (size_t)(q - p);
        return q + 1;
    }
    return parse_string_slow(d, p, q, end, s, n);
}

static const char *parse_string_slow(weir_decoder *d, const char *start,
                                     const char *p, const char *end,
                                     const char **s, size_t *n)
{
    char msg[64];
    for (;;) {
        if (p >= end)
            return FAIL(d, p,
                        "expected '\"' to end the string, found end of record");
        unsigned char c = (unsigned char)*p;
        if (c == '"') {
            *s = start;
            *n = (size_t)(p - start);
            return p + 1;
        }
        if (c == '\\')
            break;
        if (c < 0x20)
            return FAIL(d, p,
                        "expected control characters in strings to be escaped, "
                        "found %s",
                        describe_char(p, end, msg, sizeof msg));
        size_t seq = utf8_seq(p, end);
        if (!seq)
            return FAIL(d, p, "expected valid UTF-8 in string, found %s",
                        describe_char(p, end, msg, sizeof msg));
        p = weir__fmt_json_scan(p + seq, end);
    }
    /* Slow path: the string has escapes. */
    weir_buf *sc = &d->scratch;
    weir_buf_clear(sc);
    if (weir_buf_reserve(sc, (size_t)(end - start) + 4))
        return OOM(d, p);
    char *o = (char *)sc->data;
    size_t on = (size_t)(p - start);
    memcpy(o, start, on);
    while (p < end) {
        const char *run = p;
        p = weir__fmt_json_scan(p, end);
        memcpy(o + on, run, (size_t)(p - run));
        on += (size_t)(p - run);
        if (p >= end)
            break;
        unsigned char c = (unsigned char)*p;
        if (c == '"') {
            *s = o;
            *n = on;
            return p + 1;
        }
        if (c < 0x20)
            return FAIL(d, p,
                        "expected control characters in strings to be escaped, "
                        "found %s",
                        describe_char(p, end, msg, sizeof msg));
        if (c >= 0x80) {
            size_t seq = utf8_seq(p, end);
            if (!seq)
                return FAIL(d, p, "expected valid UTF-8 in string, found %s",
                            describe_char(p, end, msg, sizeof msg));
            memcpy(o + on, p, seq);
            on += seq;
            p += seq;
            continue;
        }
        const char *esc = p;
        p++;
        char e = p < end ? *p : 0;
        p++;
        switch (e) {
        case '"':
            o[on++] = '"';
            break;
        case '\\':
            o[on++] = '\\';
            break;
        case '/':
            o[on++] = '/';
            break;
        case 'b':
            o[on++] = '\b';
            break;
        case 'f':
            o[on++] = '\f';
            break;
        case 'n':
            o[on++] = '\n';
            break;
        case 'r':
            o[on++] = '\r';
            break;
        case 't':
            o[on++] = '\t';
            break;
        case 'u': {
            uint32_t cp;
            if (!(p = parse_hex4(d, p, end, &cp)))
                return NULL;
            if (cp >= 0xDC00 && cp <= 0xDFFF)
                return FAIL(d, esc,
                            "expected a high surrogate \\uD800-\\uDBFF before "
                            "low surrogate \\u%04X",
                            cp);
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                uint32_t lo = 0;
                if (end - p < 2 || p[0] != '\\' || p[1] != 'u')
                    return FAIL(d, p,
                                "expected a low surrogate \\uDC00-\\uDFFF "
                                "after \\u%04X, found %s",
                                cp, describe_char(p, end, msg, sizeof msg));
                const char *lo_at = p;
                if (!(p = parse_hex4(d, p + 2, end, &lo)))
                    return NULL;
                if (lo < 0xDC00 || lo > 0xDFFF)
                    return FAIL(d, lo_at,
                                "expected a low surrogate \\uDC00-\\uDFFF "
                                "after \\u%04X, found \\u%04X",
                                cp, lo);
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            }
            on += put_utf8(o + on, cp);
            break;
        }
        default: {
            char found[64];
            weir__fmt_describe_text(
                esc, (size_t)(end - esc) < 2 ? (size_t)(end - esc) : 2, found,
                sizeof found);
            return FAIL(d, esc,
                        "expected an escape sequence (\\\" \\\\ \\/ \\b \\f "
                        "\\n \\r \\t \\uXXXX), found %s",
                        found);
        }
        }
    }
    return FAIL(d, p, "expected '\"' to end the string, found end of record");
}

/* Validates a JSON number and returns its end; *is_int says: no fraction, no
 * exponent. */
static const char *scan_number(weir_decoder *d, const char *p, const char *end,
                               bool *is_int)
{
    const char *s = p;
    char msg[64];
    *is_int = true;
    if (s < end && *s == '-')
        s++;
    if (s < end && *s == '0') {
        s++;
    } else if (s < end && *s >= '1' && *s <= '9') {
        while (s < end && (unsigned)(*s - '0') < 10)
            s++;
    } else {
        return FAIL(d, s, "expected a digit in a JSON number, found %s",
                    describe_char(s, end, msg, sizeof msg));
    }
    if (s < end && *s == '.') {
        *is_int = false;
        s++;
        if (s >= end || (unsigned)(*s - '0') >= 10)
            return FAIL(d, s,
                        "expected a digit after '.' in a JSON number, found %s",
                        describe_char(s, end, msg, sizeof msg));
        while (s < end && (unsigned)(*s - '0') < 10)
            s++;
    }
    if (s < end && (*s == 'e' || *s == 'E')) {
        *is_int = false;
        s++;
        if (s < end && (*s == '+' || *s == '-'))
            s++;
        if (s >= end || (unsigned)(*s - '0') >= 10)
            return FAIL(
                d, s,
                "expected a digit in the exponent of a JSON number, found %s",
                describe_char(s, end, msg, sizeof msg));
        while (s < end && (unsigned)(*s - '0') < 10)
            s++;
    }
    return s;
}

static const char *match_literal(weir_decoder *d, const char *p,
                                 const char *end, const char *lit, size_t n)
{
    if ((size_t)(end - p) >= n && memcmp(p, lit, n) == 0)
        return p + n;
    char found[64];
    size_t show = (size_t)(end - p) < n ? (size_t)(end - p) : n;
    weir__fmt_describe_text(p, show, found, sizeof found);
    return FAIL(d, p, "expected a JSON value, found %s", found);
}

/* Validates and skips any JSON value. */
static const char *skip_value(weir_decoder *d, const char *p, const char *end,
                              int depth)
{
    char msg[64];
    if (p >= end)
        return FAIL(d, p, "expected a JSON value, found end of record");
    switch (*p) {
    case '"': {
        const char *s;
        size_t n;
        return parse_string(d, p + 1, end, &s, &n);
    }
    case '{':
    case '[': {
        char close = *p == '{' ? '}' : ']';
        bool obj = *p == '{';
        if (depth >= WEIR__JSON_MAX_DEPTH)
            return FAIL(d, p, "expected at most %d levels of nesting",
                        WEIR__JSON_MAX_DEPTH);
        p = skip_ws(d, p + 1, end);
        if (p < end && *p == close)
            return p + 1;
        for (;;) {
            if (obj) {
                if (p >= end || *p != '"')
                    return FAIL(
                        d, p, "expected '\"' to start an object key, found %s",
                        describe_char(p, end, msg, sizeof msg));
                const char *s;
                size_t n;
                if (!(p = parse_string(d, p + 1, end, &s, &n)))
                    return NULL;
                p = skip_ws(d, p, end);
                if (p >= end || *p != ':')
                    return FAIL(d, p,
                                "expected ':' after an object key, found %s",
                                describe_char(p, end, msg, sizeof msg));
                p = skip_ws(d, p + 1, end);
            }
            if (!(p = skip_value(d, p, end, depth + 1)))
                return NULL;
            p = skip_ws(d, p, end);
            if (p < end && *p == ',') {
                p = skip_ws(d, p + 1, end);
                continue;
            }
            if (p < end && *p == close)
                return p + 1;
            return FAIL(
                d, p,
                obj ? "expected ',' or '}' after an object member, found %s"
                    : "expected ',' or ']' after an array element, found %s",
                describe_char(p, end, msg, sizeof msg));
        }
    }
    case 't':
        return match_literal(d, p, end, "true", 4);
    case 'f':
        return match_literal(d, p, end, "false", 5);
    case 'n':
        return match_literal(d, p, end, "null", 4);
    default: {
        bool is_int;
        if (*p != '-' && (unsigned)(*p - '0') >= 10)
            return FAIL(d, p, "expected a JSON value, found %s",
                        describe_char(p, end, msg, sizeof msg));
        return scan_number(d, p, end, &is_int);
    }
    }
}

/* What a value looks like, for "found ..." in messages. */
static void describe_value(const char *p, const char *end, char *buf,
                           size_t cap)
{
    if (p >= end)
        snprintf(buf, cap, "end of record");
    else if (*p == '{')
        snprintf(buf, cap, "an object");
    else if (*p == '[')
        snprintf(buf, cap, "an array");
    else if (*p == '"') {
        const char *q = p + 1;
        while (q < end && *q != '"') {
            if (*q == '\\' && q + 1 < end)
                q++;
            q++;
        }
        weir__fmt_describe_text(p + 1, (size_t)(q - p - 1), buf, cap);
    } else {
        const char *q = p;
        while (q < end && *q != ',' && *q != '}' && *q != ']' && *q != ' ' &&
               *q != '\t')
            q++;
        size_t n = (size_t)(q - p);
        if (n > 24)
            n = 24;
        snprintf(buf, cap, "%.*s", (int)n, p);
    }
}

static const char *type_fail(weir_decoder *d, uint32_t col, const char *p,
                             const char *end, bool range)
{
    char found[64];
    describe_value(p, end, found, sizeof found);
    weir_type_id t = d->schema->fields[col].type.id;
    return FAIL(
        d, p, "expected %s%s for field \"%s\", found %s%s", d->type_desc[col],
        weir_type_is_time(t)     ? " as \"yyyy-MM-dd HH:mm:ss.SSS\""
        : t == WEIR_TYPE_DATE  ? " as \"yyyy-MM-dd\""
        : t == WEIR_TYPE_TIME  ? " as \"HH:mm:ss\""
        : t == WEIR_TYPE_BYTES ? " as base64"
                               : "",
        d->schema->fields[col].name, found, range ? " (out of range)" : "");
}

/* ---- ARRAY, MAP and ROW values (record/nested.h) ---- */

__attribute__((cold, noinline)) static const char *nested_value(weir_decoder *d, uint32_t col, weir_type t,
                                                                const char *p, const char *end, weir_buf *o,
                                                                int depth);

static const char *elem_fail(weir_decoder *d, uint32_t col, weir_type et, const char *p, const char *end)
{
    char tb[128], found[64];
    weir_type_format(et, tb, sizeof tb);
    describe_value(p, end, found, sizeof found);
    return FAIL(d, p, "expected %s inside field \"%s\" (%s), found %s", tb, d->schema->fields[col].name,
                d->type_desc[col], found);
}

/* A scalar element from its text (a JSON string's content or a number's or
 * literal's characters) into raw bytes of type et. */
static int elem_from_text(weir_type et, const char *s, size_t n, uint8_t raw[16])
{
    weir__fmt_trim(&s, &n);
    switch (et.id) {
    case WEIR_TYPE_BOOLEAN: return weir__fmt_parse_bool(s, n, raw);
    case WEIR_TYPE_INT: {
        int32_t v;
        int rc = weir__fmt_parse_i32(s, n, &v);
        memcpy(raw, &v, 4);
        return rc;
    }
    case WEIR_TYPE_BIGINT: {
        int64_t v;
        int rc = weir__fmt_parse_i64(s, n, &v);
        memcpy(raw, &v, 8);
        return rc;
    }
    case WEIR_TYPE_DOUBLE: {
        double v;
        int rc = weir__fmt_parse_f64(s, n, &v);
        memcpy(raw, &v, 8);
        return rc;
    }
    case WEIR_TYPE_DECIMAL: return weir__fmt_parse_decimal_at(s, n, et, raw, 0);
    case WEIR_TYPE_TIMESTAMP:
    case WEIR_TYPE_TIMESTAMP_LTZ: {
        int64_t v;
        bool digits = n > 0;
        for (size_t i = 0; i < n; i++)
            digits &= (unsigned)(s[i] - '0') < 10;
        int rc = digits ? weir__fmt_parse_i64(s, n, &v) : weir__parse_ts(s, n, &v, NULL);
        if (!rc && !weir__fmt_ts_in_range(v))
            rc = WEIR__ERANGE;
        memcpy(raw, &v, 8);
        return rc;
    }
    case WEIR_TYPE_DATE:
    case WEIR_TYPE_TIME: {
        int32_t v = 0;
        int rc = et.id == WEIR_TYPE_DATE ? weir__fmt_parse_date(s, n, &v) : weir__fmt_parse_time(s, n, et.precision, &v);
        memcpy(raw, &v, 4);
        return rc;
    }
    default: return WEIR_EPARSE;
    }
}

/* One element (an entry of record/nested.h) of type et at p. */
static const char *nested_entry(weir_decoder *d, uint32_t col, weir_type et, const char *p, const char *end,
                                weir_buf *o, int depth)
{
    if (p >= end)
        return FAIL(d, p, "expected a JSON value, found end of record");
    char ch = *p;
    if (ch == 'n') {
        const char *q = match_literal(d, p, end, "null", 4);
        if (q && weir_nv_put_null(o))
            return OOM(d, p);
        return q;
    }
    if (weir_type_is_nested(et.id)) {
        if (ch != (et.id == WEIR_TYPE_ARRAY ? '[' : '{'))
            return elem_fail(d, col, et, p, end);
        size_t mark;
        if (weir_nv_begin_nested(o, &mark))
            return OOM(d, p);
        const char *q = nested_value(d, col, et, p, end, o, depth + 1);
        if (q)
            weir_nv_end_nested(o, mark);
        return q;
    }
    const char *s, *q;
    size_t n;
    if (ch == '"') {
        if (!(q = parse_string(d, p + 1, end, &s, &n)))
            return NULL;
    } else {
        if (!(q = skip_value(d, p, end, depth)))
            return NULL;
        s = p;
        n = (size_t)(q - p);
        if ((ch == '{' || ch == '[') && et.id != WEIR_TYPE_STRING)
            return elem_fail(d, col, et, p, end);
    }
    if (et.id == WEIR_TYPE_STRING)
        return weir_nv_put(o, et, s, (uint32_t)n) ? OOM(d, p) : q;
    if (et.id == WEIR_TYPE_BYTES) {
        if (ch != '"')
            return elem_fail(d, col, et, p, end);
        weir_buf *bb = &d->scratch; /* s may live in scratch: decode behind it */
        size_t off = bb->len, at = (size_t)(s - (const char *)bb->data);
        bool in_scratch = bb->data && s >= (const char *)bb->data && at <= off;
        if (weir_buf_reserve(bb, n / 4 * 3 + 3))
            return OOM(d, p);
        if (in_scratch)
            s = (const char *)bb->data + at;
        size_t got = 0;
        if (weir__fmt_base64_decode(s, n, bb->data + off, &got))
            return elem_fail(d, col, et, p, end);
        return weir_nv_put(o, et, bb->data + off, (uint32_t)got) ? OOM(d, p) : q;
    }
    if (ch == 't' || ch == 'f' ? et.id != WEIR_TYPE_BOOLEAN : ch != '"' && et.id == WEIR_TYPE_BOOLEAN)
        return elem_fail(d, col, et, p, end);
    uint8_t raw[16];
    if (elem_from_text(et, s, n, raw))
        return elem_fail(d, col, et, p, end);
    return weir_nv_put(o, et, raw, weir_nv_fixed_width(et)) ? OOM(d, p) : q;
}

/* Every count of the MULTISET value at o->data[at, o->len) is at least 1. */
static bool multiset_counts_ok(const weir_buf *o, size_t at, weir_type t)
{
    const weir_nested_type *nt = weir_type_nested(t);
    weir_nv_iter it;
    uint32_t n = weir_nv_open(t, o->data + at, (uint32_t)(o->len - at), &it);
    for (uint32_t i = 0; i < n; i++) {
        bool kn, cn;
        const uint8_t *kv, *cv;
        uint32_t kl, cl;
        int32_t c;
        if (!weir_nv_next(&it, nt->elems[0], &kn, &kv, &kl) || !weir_nv_next(&it, nt->elems[1], &cn, &cv, &cl) || cn)
            return false;
        memcpy(&c, cv, 4);
        if (c < 1)
            return false;
    }
    return true;
}

/* A JSON array (ARRAY) or object (MAP, ROW, MULTISET) at p into o, as t's encoding.
 * Kept out of line (cold) so that flat records decode as before. */
__attribute__((cold, noinline)) static const char *nested_value(weir_decoder *d, uint32_t col, weir_type t, const char *p, const char *end,
                                weir_buf *o, int depth)
{
    const weir_nested_type *nt = weir_type_nested(t);
    char msg[64];
    if (!nt || depth >= WEIR__JSON_NEST_MAX)
        return FAIL(d, p, "expected at most %d levels of nested ARRAY, MAP and ROW values", WEIR__JSON_NEST_MAX);
    bool obj = t.id != WEIR_TYPE_ARRAY;
    char close = obj ? '}' : ']';
    size_t count_at = o->len;
    uint32_t count = 0;
    if (t.id != WEIR_TYPE_ROW && weir_nv_put_count(o, 0))
        return OOM(d, p);
    /* ROW: each field's entry goes to the end of o first, then the fields are
     * laid out in order (absent ones NULL) */
    size_t row_start = o->len;
    size_t *span = NULL;
    if (t.id == WEIR_TYPE_ROW) {
        span = weir_calloc(2 * (size_t)nt->n + 1, sizeof *span);
        if (!span)
            return OOM(d, p);
    }
    const char *ret = NULL;
    p = skip_ws(d, p + 1, end);
    if (p < end && *p == close) {
        p++;
        goto done;
    }
    for (;;) {
        int field = -1;
        if (obj) {
            if (p >= end || *p != '"') {
                FAIL(d, p, "expected '\"' to start an object key, found %s", describe_char(p, end, msg, sizeof msg));
                goto out;
            }
            const char *ks;
            size_t kn;
            const char *kp = p;
            if (!(p = parse_string(d, p + 1, end, &ks, &kn)))
                goto out;
            if (weir_type_is_mapish(t.id)) {
                if (weir_nv_put(o, nt->elems[0], ks, (uint32_t)kn)) {
                    OOM(d, kp);
                    goto out;
                }
            } else {
                for (uint32_t i = 0; i < nt->n && field < 0; i++)
                    if (strlen(nt->names[i]) == kn && !memcmp(nt->names[i], ks, kn))
                        field = (int)i;
            }
            p = skip_ws(d, p, end);
            if (p >= end || *p != ':') {
                FAIL(d, p, "expected ':' after an object key, found %s", describe_char(p, end, msg, sizeof msg));
                goto out;
            }
            p = skip_ws(d, p + 1, end);
        }
        if (t.id == WEIR_TYPE_ROW && field < 0) {
            p = skip_value(d, p, end, depth); /* a key the ROW type does not name */
        } else {
            size_t at = o->len;
            weir_type et = nt->elems[t.id == WEIR_TYPE_ROW ? (uint32_t)field : weir_type_is_mapish(t.id) ? 1 : 0];
            p = nested_entry(d, col, et, p, end, o, depth);
            if (field >= 0) {
                span[2 * field] = at + 1; /* + 1: 0 means absent */
                span[2 * field + 1] = o->len - at;
            }
        }
        if (!p)
            goto out;
        count++;
        p = skip_ws(d, p, end);
        if (p < end && *p == ',') {
            p = skip_ws(d, p + 1, end);
            continue;
        }
        if (p < end && *p == close) {
            p++;
            break;
        }
        FAIL(d, p,
             obj ? "expected ',' or '}' after an object member, found %s"
                 : "expected ',' or ']' after an array element, found %s",
             describe_char(p, end, msg, sizeof msg));
        goto out;
    }
done:
    if (t.id == WEIR_TYPE_ROW) {
        size_t tail = o->len;
        for (uint32_t i = 0; i < nt->n; i++) {
            int rc;
            if (!span[2 * i] && d->opt.json_fail_on_missing_field) {
                /* as at the top level (and in Flink, whose nested ROW is read
                 * by the same converter): at the closing brace */
                FAIL(d, p - 1, "expected field \"%s\" in the object (json.fail-on-missing-field is true)",
                     nt->names[i]);
                goto out;
            }
            if (!span[2 * i]) {
                rc = weir_nv_put_null(o);
            } else if (!(rc = weir_buf_reserve(o, span[2 * i + 1]))) {
                memcpy(o->data + o->len, o->data + span[2 * i] - 1, span[2 * i + 1]);
                o->len += span[2 * i + 1];
            }
            if (rc) {
                OOM(d, p);
                goto out;
            }
        }
        memmove(o->data + row_start, o->data + tail, o->len - tail);
        o->len = row_start + (o->len - tail);
    } else {
        memcpy(o->data + count_at, &count, 4);
        /* a key given twice keeps its last value, as Flink's JSON format */
        if (weir_type_is_mapish(t.id) && weir_nv_map_canon(o, count_at, t)) {
            OOM(d, p);
            goto out;
        }
        if (t.id == WEIR_TYPE_MULTISET && !multiset_counts_ok(o, count_at, t)) {
            FAIL(d, p, "a MULTISET is an object of element -> count, each count an integer of at least 1");
            goto out;
        }
    }
    ret = p;
out:
    weir_free(span);
    return ret;
}

/* Parses the value at p into column col of row. */
static const char *parse_value(weir_decoder *d, uint32_t col, const char *p,
                               const char *end, weir_batch *b, uint32_t row)
{
    weir_column *c = &b->cols[col];
    weir_type_id t = c->type.id;
    if (p >= end)
        return FAIL(d, p, "expected a JSON value, found end of record");
    char ch = *p;
    if (ch == '"') {
        const char *s;
        size_t n;
        const char *q = parse_string(d, p + 1, end, &s, &n);
        if (!q)
            return NULL;
        if (t == WEIR_TYPE_STRING) {
            d->isnull[col] = 0;
            if (weir__put_str(b, col, row, s, n))
                return OOM(d, p);
            return q;
        }
        if (weir_type_is_time(t) &&
            weir__fast_ts(s, n, &WEIR_COL_I64(b, col)[row])) {
            d->isnull[col] = 0;
            return q;
        }
        int rc = weir__store_text(d, b, col, row, s, n, p, p + 1,
                                  (size_t)(q - p - 2));
        return rc ? NULL : q;
    }
    if (ch == 'n') {
        const char *q = match_literal(d, p, end, "null", 4);
        if (!q)
            return NULL;
        if (!weir__null_ok(d, col, p, "null"))
            return NULL;
        d->isnull[col] = 1;
        return q;
    }
    if (ch == '-' || (unsigned)(ch - '0') < 10) {
        if (t == WEIR_TYPE_BIGINT && ch != '0') {
            /* Up to 18 digits cannot overflow; what follows must end the
             * number. */
            const char *q = p + (ch == '-');
            const char *lim = end - q > 18 ? q + 18 : end;
            int64_t v = 0;
            const char *first = q;
            while (q < lim && (unsigned)(*q - '0') < 10)
                v = v * 10 + (*q++ - '0');
            if (q > first && *first != '0' &&
                (q == end || (*q != '.' && *q != 'e' && *q != 'E' &&
                              (unsigned)(*q - '0') >= 10))) {
                WEIR_COL_I64(b, col)[row] = ch == '-' ? -v : v;
                d->isnull[col] = 0;
                return q;
            }
        }
        bool is_int;
        const char *q = scan_number(d, p, end, &is_int);
        if (!q)
            return NULL;
        size_t n = (size_t)(q - p);
        int rc;
        d->isnull[col] = 0;
        switch (t) {
        case WEIR_TYPE_BIGINT:
        case WEIR_TYPE_TIMESTAMP:
        case WEIR_TYPE_TIMESTAMP_LTZ:
            if (!is_int)
                return type_fail(d, col, p, end, false);
            if (n <= 18 &&
                ch != '-') { /* fits in int64 without an overflow check */
                int64_t v = 0;
                for (const char *s = p; s < q; s++)
                    v = v * 10 + (*s - '0');
                WEIR_COL_I64(b, col)[row] = v;
                if (t != WEIR_TYPE_BIGINT && !weir__fmt_ts_in_range(v))
                    return type_fail(d, col, p, end, true);
                return q;
            }
            rc = weir__fmt_parse_i64(p, n, &WEIR_COL_I64(b, col)[row]);
            if (!rc && t != WEIR_TYPE_BIGINT &&
                !weir__fmt_ts_in_range(WEIR_COL_I64(b, col)[row]))
                rc = WEIR__ERANGE;
            break;
        case WEIR_TYPE_INT:
            if (!is_int)
                return type_fail(d, col, p, end, false);
            rc = weir__fmt_parse_i32(p, n, &WEIR_COL_I32(b, col)[row]);
            break;
        case WEIR_TYPE_DOUBLE:
            rc = weir__fmt_parse_f64(p, n, &WEIR_COL_F64(b, col)[row]);
            break;
        case WEIR_TYPE_DECIMAL:
            rc = weir__fmt_parse_decimal_at(p, n, c->type, c->data, row);
            break;
        case WEIR_TYPE_STRING:
            rc = weir__put_str(b, col, row, p, n);
            if (rc)
                return OOM(d, p);
            break;
        default:
            return type_fail(d, col, p, end, false);
        }
        if (rc == WEIR_ENOMEM)
            return OOM(d, p);
        if (rc)
            return type_fail(d, col, p, end, rc == WEIR__ERANGE);
        return q;
    }
    if (ch == 't' || ch == 'f') {
        bool v = ch == 't';
        const char *q = v ? match_literal(d, p, end, "true", 4)
                          : match_literal(d, p, end, "false", 5);
        if (!q)
            return NULL;
        d->isnull[col] = 0;
        if (t == WEIR_TYPE_BOOLEAN) {
            WEIR_COL_BOOL(b, col)[row] = v;
            return q;
        }
        if (t == WEIR_TYPE_STRING) {
            if (weir_batch_set_str(b, col, row, p, (size_t)(q - p)))
                return OOM(d, p);
            return q;
        }
        return type_fail(d, col, p, end, false);
    }
    if (ch == '{' || ch == '[') {
        if (weir_type_is_nested(t) && ch == (t == WEIR_TYPE_ARRAY ? '[' : '{')) {
            weir_buf_clear(&d->nested);
            const char *q = nested_value(d, col, c->type, p, end, &d->nested, 0);
            if (!q)
                return NULL;
            d->isnull[col] = 0;
            if (weir_batch_set_str(b, col, row, (const char *)d->nested.data, d->nested.len))
                return OOM(d, p);
            return q;
        }
        if (t != WEIR_TYPE_STRING)
            return type_fail(d, col, p, end, false);
        const char *q = skip_value(d, p, end, 0);
        if (!q)
            return NULL;
        d->isnull[col] = 0;
        if (weir_batch_set_str(b, col, row, p, (size_t)(q - p)))
            return OOM(d, p);
        return q;
    }
    char msg[64];
    return FAIL(d, p, "expected a JSON value, found %s",
                describe_char(p, end, msg, sizeof msg));
}

int weir__json_decode(weir_decoder *d, const char *rec, size_t len,
                      weir_batch *b)
{
    const char *p = rec, *end = rec + len;
    uint32_t row = b->n_rows;
    char msg[64];
    if (++d->gen == 0) {
        memset(d->seen, 0, d->ncols * sizeof *d->seen);
        d->gen = 1;
    }
    p = skip_ws(d, p, end);
    if (p >= end || *p != '{') {
        FAIL(d, p, "expected '{' to start a JSON object, found %s",
             describe_char(p, end, msg, sizeof msg));
        return WEIR_EPARSE;
    }
    p = skip_ws(d, p + 1, end);
    if (p < end && *p == '}') {
        p++;
    } else {
        for (;;) {
            if (p >= end || *p != '"') {
                FAIL(d, p, "expected '\"' to start an object key, found %s",
                     describe_char(p, end, msg, sizeof msg));
                return WEIR_EPARSE;
            }
            int col = (int)d->guess;
            const char *after = expected_key(d, p, end);
            if (after) {
                p = after;
            } else {
                const char *k;
                size_t kn;
                const char *key_at = p;
                if (!(p = parse_string(d, p + 1, end, &k, &kn)))
                    return WEIR_EPARSE;
                col = lookup(d, k, kn);
                p = skip_ws(d, p, end);
                if (p >= end || *p != ':') {
                    char key[64];
                    weir__fmt_describe_text(key_at + 1, kn, key, sizeof key);
                    FAIL(d, p, "expected ':' after object key %s, found %s", key,
                         describe_char(p, end, msg, sizeof msg));
                    return WEIR_EPARSE;
                }
                p++;
            }
            p = skip_ws(d, p, end);
            if (col < 0) {
                p = skip_value(d, p, end, 1);
            } else {
                d->seen[col] = d->gen;
                d->guess = (uint32_t)col + 1;
                p = parse_value(d, (uint32_t)col, p, end, b, row);
            }
            if (!p)
                return WEIR_EPARSE;
            p = skip_ws(d, p, end);
            if (p < end && *p == ',') {
                p = skip_ws(d, p + 1, end);
                continue;
            }
            if (p < end && *p == '}') {
                p++;
                break;
            }
            FAIL(d, p, "expected ',' or '}' after an object member, found %s",
                 describe_char(p, end, msg, sizeof msg));
            return WEIR_EPARSE;
        }
    }
    const char *close = p - 1;
    p = skip_ws(d, p, end);
    if (d->line_mode) {
        /* The record must end here, at a line break in the buffer. */
        if (p >= end || *p != '\n')
            return WEIR_EAGAIN;
        d->line_end = p;
    } else if (p < end) {
        FAIL(d, p, "expected end of record after the JSON object, found %s",
             describe_char(p, end, msg, sizeof msg));
        return WEIR_EPARSE;
    }
    for (uint32_t c = 0; c < d->ncols; c++) {
        if (d->seen[c] == d->gen)
            continue;
        if (d->opt.json_fail_on_missing_field) {
            FAIL(d, close,
                 "expected field \"%s\" in the object "
                 "(json.fail-on-missing-field is true)",
                 d->schema->fields[c].name);
            return WEIR_EPARSE;
        }
        if (!weir__missing_ok(d, c, close))
            return WEIR_EPARSE;
        d->isnull[c] = 1;
    }
    d->guess = 0;
    weir__finish_row(d, b, row);
    return 0;
}

/* ---- debezium-json: the change envelope around two JSON rows ---- */

typedef struct json_span {
    const char *p; /* the member's value (NULL: the member is absent) */
    size_t n;
} json_span;

enum { DBZ_BEFORE, DBZ_AFTER, DBZ_OP, DBZ_PAYLOAD, DBZ_N };
static const char *const dbz_names[DBZ_N] = {"before", "after", "op",
                                             "payload"};

/*
 * Scans the object at p one level deep, validating every member, and
 * records where the values of the envelope's members are. Returns the
 * position after the object, or NULL (error set).
 */
static const char *dbz_members(weir_decoder *d, const char *p, const char *end,
                               json_span *sp)
{
    char msg[64];
    memset(sp, 0, DBZ_N * sizeof *sp);
    p = skip_ws(d, p, end);
    if (p >= end || *p != '{')
        return FAIL(d, p,
                    "expected '{' to start the debezium-json envelope, "
                    "found %s",
                    describe_char(p, end, msg, sizeof msg));
    p = skip_ws(d, p + 1, end);
    if (p < end && *p == '}')
        return p + 1;
    for (;;) {
        if (p >= end || *p != '"')
            return FAIL(d, p, "expected '\"' to start an object key, found %s",
                        describe_char(p, end, msg, sizeof msg));
        const char *k;
        size_t kn;
        if (!(p = parse_string(d, p + 1, end, &k, &kn)))
            return NULL;
        int which = -1;
        for (int i = 0; i < DBZ_N && which < 0; i++)
            if (strlen(dbz_names[i]) == kn && !memcmp(dbz_names[i], k, kn))
                which = i;
        p = skip_ws(d, p, end);
        if (p >= end || *p != ':')
            return FAIL(d, p, "expected ':' after an object key, found %s",
                        describe_char(p, end, msg, sizeof msg));
        p = skip_ws(d, p + 1, end);
        const char *v = p;
        if (!(p = skip_value(d, p, end, 1)))
            return NULL;
        if (which >= 0)
            sp[which] = (json_span){v, (size_t)(p - v)};
        p = skip_ws(d, p, end);
        if (p < end && *p == ',') {
            p = skip_ws(d, p + 1, end);
            continue;
        }
        if (p < end && *p == '}')
            return p + 1;
        return FAIL(d, p,
                    "expected ',' or '}' after an object member, found %s",
                    describe_char(p, end, msg, sizeof msg));
    }
}

/* Decodes the row image of member `which` as a row of kind `kind`. */
static int dbz_row(weir_decoder *d, const json_span *sp, int which,
                   char op, const char *at, weir_batch *b, weir_row_kind kind)
{
    const json_span *s = &sp[which];
    const char *name = dbz_names[which];
    if (!s->p) {
        FAIL(d, at, "expected %s \"%s\" row image for op \"%c\", found none",
             which == DBZ_AFTER ? "an" : "a", name, op);
        return WEIR_EPARSE;
    }
    if (*s->p == 'n') {
        FAIL(d, s->p,
             "expected %s \"%s\" row image for op \"%c\", found null%s",
             which == DBZ_AFTER ? "an" : "a", name, op,
             which == DBZ_BEFORE
                 ? " (the database does not log the old row: in PostgreSQL "
                   "set REPLICA IDENTITY FULL on the table)"
                 : "");
        return WEIR_EPARSE;
    }
    uint32_t row = b->n_rows;
    int rc = weir__json_decode(d, s->p, s->n, b);
    if (!rc)
        b->kind[row] = (uint8_t)kind;
    return rc;
}

int weir__debezium_decode(weir_decoder *d, const char *rec, size_t len,
                          weir_batch *b)
{
    const char *end = rec + len;
    json_span sp[DBZ_N];
    char msg[64];
    const char *p = dbz_members(d, rec, end, sp);
    if (!p)
        return WEIR_EPARSE;
    p = skip_ws(d, p, end);
    if (p < end) {
        FAIL(d, p, "expected end of record after the JSON object, found %s",
             describe_char(p, end, msg, sizeof msg));
        return WEIR_EPARSE;
    }
    const char *env = skip_ws(d, rec, end);
    if (d->opt.debezium_schema_include) {
        if (!sp[DBZ_PAYLOAD].p || *sp[DBZ_PAYLOAD].p != '{') {
            FAIL(d, sp[DBZ_PAYLOAD].p ? sp[DBZ_PAYLOAD].p : env,
                 "expected a \"payload\" object around the change "
                 "('debezium-json.schema-include' is true)");
            return WEIR_EPARSE;
        }
        env = sp[DBZ_PAYLOAD].p;
        if (!dbz_members(d, env, env + sp[DBZ_PAYLOAD].n, sp))
            return WEIR_EPARSE;
    } else if (!sp[DBZ_OP].p && sp[DBZ_PAYLOAD].p) {
        FAIL(d, sp[DBZ_PAYLOAD].p,
             "expected the member \"op\" in the envelope, found a "
             "\"payload\": set 'debezium-json.schema-include' = 'true' to "
             "read messages with the schema");
        return WEIR_EPARSE;
    }
    const json_span *ops = &sp[DBZ_OP];
    const char *s = NULL;
    size_t n = 0;
    if (ops->p && *ops->p == '"' && !parse_string(d, ops->p + 1, end, &s, &n))
        return WEIR_EPARSE;
    char op = s && n == 1 ? s[0] : 0;
    if (op != 'c' && op != 'r' && op != 'u' && op != 'd') {
        char found[64];
        if (s)
            weir__fmt_describe_text(s, n, found, sizeof found);
        else if (ops->p)
            weir__fmt_describe_text(ops->p, ops->n, found, sizeof found);
        FAIL(d, ops->p ? ops->p : env,
             "expected \"op\" to be \"c\", \"r\", \"u\" or \"d\", found %s",
             ops->p ? found : "none");
        return WEIR_EPARSE;
    }
    uint32_t row0 = b->n_rows;
    int rc;
    switch (op) {
    case 'c':
    case 'r':
        return dbz_row(d, sp, DBZ_AFTER, op, env, b, WEIR_ROW_INSERT);
    case 'd':
        return dbz_row(d, sp, DBZ_BEFORE, op, env, b, WEIR_ROW_DELETE);
    default:
        if ((rc = dbz_row(d, sp, DBZ_BEFORE, op, env, b,
                          WEIR_ROW_UPDATE_BEFORE)))
            return rc;
        if ((rc = dbz_row(d, sp, DBZ_AFTER, op, env, b,
                          WEIR_ROW_UPDATE_AFTER)))
            b->n_rows = row0; /* a change is two rows or none */
        return rc;
    }
}
