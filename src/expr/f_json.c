/*
 * expr/f_json.c - the SQL/JSON functions: IS JSON, JSON_EXISTS, JSON_VALUE,
 * JSON_QUERY, JSON_OBJECT, JSON_ARRAY, JSON_STRING, JSON_QUOTE and
 * JSON_UNQUOTE.
 *
 * A document is checked once (standard JSON, RFC 8259: no NaN, no trailing
 * text, valid UTF-8, at most JSON_MAX_DEPTH levels) and then walked in
 * place, without building a tree: a path step scans the members of an
 * object (the last of duplicate keys wins) or the elements of an array.
 *
 * Paths: [lax|strict] $ followed by steps .name, ."name", ['name'],
 * ["name"] and [n]. Without a mode the path is strict. In strict mode a
 * missing key, an index out of range or a step on the wrong kind of value
 * is an error; in lax mode it gives the empty result. A malformed document
 * or path is an error in both modes.
 *
 * The SQL parser turns the clauses into trailing literal arguments:
 *   JSON_VALUE(json, path, 'type', empty_mode, empty_default, error_mode, error_default)
 *   JSON_EXISTS(json, path, on_error)          (0 FALSE, 1 TRUE, 2 UNKNOWN, 3 ERROR)
 *   JSON_QUERY(json, path, wrapper, on_empty, on_error)
 *   "IS JSON"(x, kind)                          (0 VALUE, 1 SCALAR, 2 ARRAY, 3 OBJECT)
 *   JSON_OBJECT(on_null, k1, v1, raw1, ...), JSON_ARRAY(on_null, v1, raw1, ...)
 *                       (on_null 0 NULL, 1 ABSENT; raw 1: v is a constructor call)
 * with modes 0 NULL, 1 ERROR, 2 DEFAULT (JSON_VALUE) or 3 EMPTY ARRAY,
 * 4 EMPTY OBJECT (JSON_QUERY), and wrappers 0 WITHOUT, 1 CONDITIONAL,
 * 2 UNCONDITIONAL.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "expr/expr_internal.h"
#include "format/convert.h"
#include "record/nested.h"
#include "time/timefmt.h"
#include "util/hex.h"
#include "weir/buf.h"

#define JSON_MAX_DEPTH 512

static int nomem_b(weir_error *err) { return weir_error_set(err, WEIR_ENOMEM, "out of memory"); }

/* ---- scanning (the document is trusted after j_check) ---- */

static const char *j_ws(const char *p, const char *e)
{
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

/* p at '"'; returns just past the closing quote, or NULL. */
static const char *j_string(const char *p, const char *e)
{
    for (p++; p < e; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '"')
            return p + 1;
        if (c < 0x20)
            return NULL;
        if (c == '\\') {
            if (++p >= e)
                return NULL;
            switch (*p) {
            case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
                break;
            case 'u':
                if (e - p < 5)
                    return NULL;
                for (int k = 1; k <= 4; k++)
                    if (weir__hex_value(p[k]) < 0)
                        return NULL;
                p += 4;
                break;
            default:
                return NULL;
            }
        }
    }
    return NULL;
}

static const char *j_number(const char *p, const char *e)
{
    if (p < e && *p == '-')
        p++;
    if (p >= e || !isdigit((unsigned char)*p))
        return NULL;
    if (*p == '0')
        p++;
    else
        while (p < e && isdigit((unsigned char)*p))
            p++;
    if (p < e && *p == '.') {
        p++;
        if (p >= e || !isdigit((unsigned char)*p))
            return NULL;
        while (p < e && isdigit((unsigned char)*p))
            p++;
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < e && (*p == '+' || *p == '-'))
            p++;
        if (p >= e || !isdigit((unsigned char)*p))
            return NULL;
        while (p < e && isdigit((unsigned char)*p))
            p++;
    }
    return p;
}

static const char *j_word(const char *p, const char *e, const char *w)
{
    size_t n = strlen(w);
    return (size_t)(e - p) >= n && memcmp(p, w, n) == 0 ? p + n : NULL;
}

/* p at a value (no leading blanks); returns just past it, or NULL. */
static const char *j_value(const char *p, const char *e, int depth)
{
    if (p >= e)
        return NULL;
    switch (*p) {
    case '"':
        return j_string(p, e);
    case 't':
        return j_word(p, e, "true");
    case 'f':
        return j_word(p, e, "false");
    case 'n':
        return j_word(p, e, "null");
    case '{':
    case '[': {
        char close = *p == '{' ? '}' : ']';
        bool obj = *p == '{';
        if (depth >= JSON_MAX_DEPTH)
            return NULL;
        p = j_ws(p + 1, e);
        if (p < e && *p == close)
            return p + 1;
        for (;;) {
            if (obj) {
                if (p >= e || *p != '"' || !(p = j_string(p, e)))
                    return NULL;
                p = j_ws(p, e);
                if (p >= e || *p != ':')
                    return NULL;
                p = j_ws(p + 1, e);
            }
            if (!(p = j_value(p, e, depth + 1)))
                return NULL;
            p = j_ws(p, e);
            if (p < e && *p == ',') {
                p = j_ws(p + 1, e);
                continue;
            }
            return p < e && *p == close ? p + 1 : NULL;
        }
    }
    default:
        return j_number(p, e);
    }
}

/* The document's only value (start in *v), or false if s is not JSON. */
static bool j_check(xstr s, const char **v)
{
    const char *e = s.ptr + s.len;
    if (weir__fmt_utf8_check(s.ptr, s.len) != s.len)
        return false;
    const char *p = j_ws(s.ptr, e);
    *v = p;
    p = j_value(p, e, 0);
    return p && j_ws(p, e) == e;
}

/* Unescapes the string at p ('"') into scratch. */
static int j_unescape(ecx *cx, const char *p, const char *e, xstr *out)
{
    const char *q = j_string(p, e);
    size_t cap = (size_t)(q - p);
    char *o = x_str(cx, cap);
    if (!o)
        return weir_error_set(cx->err, WEIR_ENOMEM, "out of memory");
    size_t n = 0;
    for (p++; p < q - 1; p++) {
        if (*p != '\\') {
            o[n++] = *p;
            continue;
        }
        p++;
        switch (*p) {
        case 'b': o[n++] = '\b'; break;
        case 'f': o[n++] = '\f'; break;
        case 'n': o[n++] = '\n'; break;
        case 'r': o[n++] = '\r'; break;
        case 't': o[n++] = '\t'; break;
        case 'u': {
            uint32_t cp = 0;
            for (int k = 1; k <= 4; k++)
                cp = cp * 16 + (uint32_t)weir__hex_value(p[k]);
            p += 4;
            if (cp >= 0xD800 && cp < 0xDC00 && q - 1 - p >= 6 && p[1] == '\\' && p[2] == 'u') {
                uint32_t lo = 0;
                bool ok = true;
                for (int k = 3; k <= 6; k++)
                    ok &= weir__hex_value(p[k]) >= 0;
                if (ok)
                    for (int k = 3; k <= 6; k++)
                        lo = lo * 16 + (uint32_t)weir__hex_value(p[k]);
                if (ok && lo >= 0xDC00 && lo < 0xE000) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    p += 6;
                }
            }
            if (cp >= 0xD800 && cp < 0xE000)
                cp = 0xFFFD; /* a lone surrogate */
            if (cp < 0x80) {
                o[n++] = (char)cp;
            } else if (cp < 0x800) {
                o[n++] = (char)(0xC0 | (cp >> 6));
                o[n++] = (char)(0x80 | (cp & 0x3F));
            } else if (cp < 0x10000) {
                o[n++] = (char)(0xE0 | (cp >> 12));
                o[n++] = (char)(0x80 | ((cp >> 6) & 0x3F));
                o[n++] = (char)(0x80 | (cp & 0x3F));
            } else {
                o[n++] = (char)(0xF0 | (cp >> 18));
                o[n++] = (char)(0x80 | ((cp >> 12) & 0x3F));
                o[n++] = (char)(0x80 | ((cp >> 6) & 0x3F));
                o[n++] = (char)(0x80 | (cp & 0x3F));
            }
            break;
        }
        default:
            o[n++] = *p; /* " \ / */
        }
    }
    *out = (xstr){o, (uint32_t)n};
    return 0;
}

/* ---- paths ---- */

typedef struct jstep {
    bool index;
    int64_t idx;
    const char *key;
    uint32_t klen;
} jstep;

typedef struct jpath {
    bool strict;
    uint32_t n;
    jstep *steps;
} jpath;

/* Parses a path; false if malformed (wildcards and filters included). */
static bool j_path(ecx *cx, xstr s, jpath *jp, bool *oom)
{
    const char *p = s.ptr, *e = s.ptr + s.len;
    *oom = false;
    jp->strict = true;
    jp->n = 0;
    jp->steps = weir__x_alloc(cx, sizeof(jstep) * (s.len + 1));
    if (!jp->steps) {
        *oom = true;
        return false;
    }
    p = j_ws(p, e);
    if (e - p >= 4 && strncasecmp(p, "lax", 3) == 0 && isspace((unsigned char)p[3])) {
        jp->strict = false;
        p = j_ws(p + 3, e);
    } else if (e - p >= 7 && strncasecmp(p, "strict", 6) == 0 && isspace((unsigned char)p[6])) {
        p = j_ws(p + 6, e);
    }
    if (p >= e || *p != '$')
        return false;
    p++;
    while ((p = j_ws(p, e)) < e) {
        jstep st = {0};
        if (*p == '.' && p + 1 < e && p[1] != '[') {
            p++;
            if (p < e && (*p == '"' || *p == '\'')) {
                char q = *p++;
                st.key = p;
                while (p < e && *p != q)
                    p++;
                if (p >= e)
                    return false;
                st.klen = (uint32_t)(p - st.key);
                p++;
            } else {
                st.key = p;
                while (p < e && (isalnum((unsigned char)*p) || *p == '_' || *p == '$' ||
                                 (unsigned char)*p >= 0x80))
                    p++;
                st.klen = (uint32_t)(p - st.key);
                if (!st.klen)
                    return false;
            }
        } else {
            if (*p == '.')
                p++;
            if (p >= e || *p != '[')
                return false;
            p = j_ws(p + 1, e);
            if (p < e && (*p == '"' || *p == '\'')) {
                char q = *p++;
                st.key = p;
                while (p < e && *p != q)
                    p++;
                if (p >= e)
                    return false;
                st.klen = (uint32_t)(p - st.key);
                p++;
            } else {
                if (p >= e || !isdigit((unsigned char)*p))
                    return false;
                st.index = true;
                while (p < e && isdigit((unsigned char)*p)) {
                    if (st.idx > INT32_MAX)
                        return false;
                    st.idx = st.idx * 10 + (*p++ - '0');
                }
            }
            p = j_ws(p, e);
            if (p >= e || *p != ']')
                return false;
            p++;
        }
        jp->steps[jp->n++] = st;
    }
    return true;
}

enum { J_FOUND, J_EMPTY, J_ERROR };

/* Key at p ('"') equal to k? */
static bool j_key_eq(ecx *cx, const char *p, const char *e, const char *k, uint32_t klen, bool *oom)
{
    const char *q = j_string(p, e);
    if (!memchr(p + 1, '\\', (size_t)(q - p - 2)))
        return (uint32_t)(q - p - 2) == klen && memcmp(p + 1, k, klen) == 0;
    xstr u;
    if (j_unescape(cx, p, e, &u)) {
        *oom = true;
        return false;
    }
    return u.len == klen && memcmp(u.ptr, k, klen) == 0;
}

/* Follows the path from v; *out the value found. */
static int j_walk(ecx *cx, const jpath *jp, const char *v, const char *e, const char **out, bool *oom)
{
    for (uint32_t s = 0; s < jp->n; s++) {
        const jstep *st = &jp->steps[s];
        const char *found = NULL;
        if (*v != (st->index ? '[' : '{'))
            return jp->strict ? J_ERROR : J_EMPTY;
        const char *p = j_ws(v + 1, e);
        int64_t k = 0;
        if (*p != ']' && *p != '}') {
            for (;;) {
                if (!st->index) {
                    const char *kp = p;
                    p = j_ws(j_string(p, e), e) + 1;
                    p = j_ws(p, e);
                    if (j_key_eq(cx, kp, e, st->key, st->klen, oom))
                        found = p; /* the last duplicate wins */
                    if (*oom)
                        return J_ERROR;
                } else if (k++ == st->idx) {
                    found = p;
                    break;
                }
                p = j_ws(j_value(p, e, 0), e);
                if (*p != ',')
                    break;
                p = j_ws(p + 1, e);
            }
        }
        if (!found)
            return jp->strict ? J_ERROR : J_EMPTY;
        v = found;
    }
    *out = v;
    return J_FOUND;
}

/* Evaluates json/path of row i: J_FOUND with *v, J_EMPTY, or J_ERROR with *why. */
static int j_eval(ecx *cx, xstr doc, xstr path, const char **v, const char **why, bool *strict)
{
    jpath jp;
    bool oom;
    const char *root;
    bool ok = j_path(cx, path, &jp, &oom);
    *strict = jp.strict;
    if (!ok) {
        *why = oom ? NULL : "malformed JSON path";
        return J_ERROR;
    }
    if (!j_check(doc, &root)) {
        *why = "not a valid JSON document";
        return J_ERROR;
    }
    int r = j_walk(cx, &jp, root, doc.ptr + doc.len, v, &oom);
    *why = oom ? NULL : "no value at the path in strict mode";
    return r;
}

static bool j_scalar(const char *v) { return *v != '{' && *v != '['; }

/* The text of a scalar that is not a string: the integer -0 is 0, as Flink
 * reads it (JSON allows no other integer zero with a sign; the double -0.0
 * stays). */
static xstr j_scalar_text(const char *v, const char *e)
{
    xstr s = {v, (uint32_t)(j_value(v, e, 0) - v)};
    return s.len == 2 && v[0] == '-' && v[1] == '0' ? (xstr){"0", 1} : s;
}

/* A JSON number as Flink writes it: an integer as written (j_scalar_text),
 * any other number read as a double and printed as Java prints one
 * (1e2 -> 100.0, 2.50 -> 2.5, -0.0 stays -0.0). *s is the number's text;
 * false when out of memory. */
static bool j_number_text(ecx *cx, xstr *s)
{
    if (!memchr(s->ptr, '.', s->len) && !memchr(s->ptr, 'e', s->len) && !memchr(s->ptr, 'E', s->len))
        return true;
    double d = 0;
    char buf[40];
    weir__fmt_parse_f64(s->ptr, s->len, &d); /* valid JSON numbers parse */
    size_t len = weir__fmt_format_f64_java(d, buf);
    char *o = x_str(cx, len);
    if (!o)
        return false;
    memcpy(o, buf, len);
    *s = (xstr){o, (uint32_t)len};
    return true;
}

/* ---- compact serialization (JSON_QUERY) ---- */

static int j_write(ecx *cx, weir_buf *b, const char *p, const char *e)
{
    switch (*p) {
    case '"': {
        xstr u;
        if (j_unescape(cx, p, e, &u))
            return WEIR_ENOMEM;
        return weir__fmt_json_put_string(b, u.ptr, u.len);
    }
    case '{':
    case '[': {
        bool obj = *p == '{';
        if (weir_buf_put(b, p, 1))
            return WEIR_ENOMEM;
        p = j_ws(p + 1, e);
        bool first = true;
        while (*p != '}' && *p != ']') {
            if (!first && weir_buf_put(b, ",", 1))
                return WEIR_ENOMEM;
            first = false;
            if (obj) {
                if (j_write(cx, b, p, e) || weir_buf_put(b, ":", 1))
                    return WEIR_ENOMEM;
                p = j_ws(j_ws(j_string(p, e), e) + 1, e);
            }
            if (j_write(cx, b, p, e))
                return WEIR_ENOMEM;
            p = j_ws(j_value(p, e, 0), e);
            if (*p == ',')
                p = j_ws(p + 1, e);
        }
        return weir_buf_put(b, obj ? "}" : "]", 1) ? WEIR_ENOMEM : 0;
    }
    default: {
        xstr s = j_scalar_text(p, e);
        if (*p != 't' && *p != 'f' && *p != 'n' && !j_number_text(cx, &s))
            return WEIR_ENOMEM;
        if (s.len && s.ptr[s.len - 1] == 'y') /* a number past a double's range, read as Infinity: */
            return weir__fmt_json_put_string(b, s.ptr, s.len); /* not a JSON number, quoted as JSON_OBJECT quotes it */
        return weir_buf_put(b, s.ptr, s.len) ? WEIR_ENOMEM : 0;
    }
    }
}

/* ---- IS JSON ---- */

#define STR(k) (((const xstr *)a[k].data)[i])
#define NUL(k) (a[k].nulls && a[k].nulls[i])

static int is_json_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    (void)cx, (void)act;
    uint8_t *o = out->data;
    for (uint32_t i = 0; i < n; i++) {
        const char *v;
        if (NUL(0) || !j_check(STR(0), &v)) {
            o[i] = 0;
            continue;
        }
        switch (e->p0) {
        case 1: o[i] = j_scalar(v); break;
        case 2: o[i] = *v == '['; break;
        case 3: o[i] = *v == '{'; break;
        default: o[i] = 1;
        }
    }
    return 0;
}

static bool lit_int(const weir_expr *e, int64_t *v)
{
    if (e->kind != N_LITERAL || e->lit.is_null)
        return false;
    if (e->type.id == WEIR_TYPE_INT)
        *v = e->lit.v.i32;
    else if (e->type.id == WEIR_TYPE_BIGINT)
        *v = e->lit.v.i64;
    else
        return false;
    return true;
}

/* A literal path with a construct weir does not evaluate yet is refused
 * when the job is planned, naming it (a computed one is an error per row). */
static int check_path_literal(const xfunc *f, const weir_expr *path, weir_error *err)
{
    xstr s;
    if (path->type.id != WEIR_TYPE_STRING || !weir__lit_str(path, &s))
        return 0;
    static const char *const unsupported[] = {"[*]", ".*", "..", "?(", "[last"};
    char quote = 0;
    for (uint32_t i = 0; i < s.len; i++) {
        if (quote) {
            quote = s.ptr[i] == quote ? 0 : quote;
            continue;
        }
        if (s.ptr[i] == '"' || s.ptr[i] == '\'') {
            quote = s.ptr[i];
            continue;
        }
        for (size_t k = 0; k < sizeof unsupported / sizeof unsupported[0]; k++) {
            size_t m = strlen(unsupported[k]);
            if (i + m <= s.len && strncasecmp(s.ptr + i, unsupported[k], m) == 0)
                return weir_error_set(err, WEIR_EUNSUPPORTED,
                                      "%s: the JSON path '%.*s' uses '%s', which weir does not support yet "
                                      "(paths are $ with .key, [\"key\"] and [n] steps)",
                                      f->name, (int)s.len, s.ptr, unsupported[k]);
        }
    }
    return 0;
}

static int need_json_args(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, uint32_t nstr,
                          weir_error *err)
{
    if (nstr >= 2 && check_path_literal(f, args[1], err))
        return err->code;
    for (uint32_t k = 0; k < nstr; k++) {
        if (args[k]->type.id == WEIR_TYPE_NULL) {
            if (weir__coerce(a, &args[k], tmake(WEIR_TYPE_STRING, true), err))
                return err->code;
        } else if (args[k]->type.id != WEIR_TYPE_STRING || args[k]->iv) {
            return weir__bad_args(f, args, n, err);
        }
    }
    return 0;
}

static int bind_is_json(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                        weir_error *err)
{
    int64_t kind;
    if (n != 2 || !lit_int(args[1], &kind))
        return weir__bad_args(f, args, n, err);
    if (args[0]->type.id != WEIR_TYPE_STRING && args[0]->type.id != WEIR_TYPE_NULL)
        return weir_error_set(err, WEIR_EINVAL, "IS JSON needs a STRING operand");
    int rc = need_json_args(a, f, args, 1, 1, err);
    if (rc)
        return rc;
    *out = weir__call_node(a, f, args, 1, tmake(WEIR_TYPE_BOOLEAN, false), is_json_kernel, 0);
    if (!*out)
        return nomem_b(err);
    (*out)->p0 = kind;
    return 0;
}

/* ---- JSON_EXISTS ---- */

static int exists_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    uint8_t *o = out->data;
    for (uint32_t i = 0; i < n; i++) {
        if (NUL(0) || NUL(1)) {
            x_setnull(cx, out, i);
            continue;
        }
        if (act && !act[i])
            continue;
        const char *v, *why;
        bool strict;
        int r = j_eval(cx, STR(0), STR(1), &v, &why, &strict);
        if (r == J_ERROR && !why)
            return weir_error_set(cx->err, WEIR_ENOMEM, "out of memory");
        if (r != J_ERROR) {
            o[i] = r == J_FOUND && !j_word(v, STR(0).ptr + STR(0).len, "null");
            continue;
        }
        switch (e->p0) {
        case 1: o[i] = 1; break;
        case 2: x_setnull(cx, out, i); break;
        case 3: return weir__x_fail(cx, i, "JSON_EXISTS: %s", why);
        default: o[i] = 0;
        }
    }
    return 0;
}

static int bind_exists(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                       weir_error *err)
{
    int64_t mode = 0;
    if ((n != 2 && n != 3) || (n == 3 && !lit_int(args[2], &mode)))
        return weir__bad_args(f, args, n, err);
    int rc = need_json_args(a, f, args, 2, 2, err);
    if (rc)
        return rc;
    bool nullable = weir__any_nullable(args, 2) || mode == 2;
    *out = weir__call_node(a, f, args, 2, tmake(WEIR_TYPE_BOOLEAN, nullable), exists_kernel,
                           mode == 2 ? F_MAYNULL : 0);
    if (!*out)
        return nomem_b(err);
    (*out)->p0 = mode;
    return 0;
}

/* ---- JSON_VALUE ---- */

/* Whether s is a number as Java's BigDecimal reads one (every JSON number
 * is one): [+-], digits with at most one '.' among them (at least one
 * digit), then [eE][+-]digits or nothing. */
static bool j_decimal_text(xstr s)
{
    size_t i = 0, n = s.len, ndig = 0;
    const char *p = s.ptr;
    if (i < n && (p[i] == '+' || p[i] == '-'))
        i++;
    for (; i < n && isdigit((unsigned char)p[i]); i++)
        ndig++;
    if (i < n && p[i] == '.')
        for (i++; i < n && isdigit((unsigned char)p[i]); i++)
            ndig++;
    if (!ndig)
        return false;
    if (i < n && (p[i] == 'e' || p[i] == 'E')) {
        i++;
        if (i < n && (p[i] == '+' || p[i] == '-'))
            i++;
        size_t k = i;
        while (i < n && isdigit((unsigned char)p[i]))
            i++;
        if (i == k)
            return false;
    }
    return i == n;
}

/* The value of the number s (j_decimal_text) as an integer in [-hi - 1, hi]
 * (hi = 2^31 - 1 or 2^63 - 1), exactly: 1e2 is 100, 9223372036854775807.0
 * fits, -0.0 is 0. False if the value has a fraction or does not fit. */
static bool j_whole(xstr s, int64_t hi, int64_t *v)
{
    weir_i128 x;
    if (weir__parse_decimal128_exact(s.ptr, s.len, WEIR_DEC_MAX_PRECISION, 0, &x) || x > hi || x < -(weir_i128)hi - 1)
        return false;
    *v = (int64_t)x;
    return true;
}

/* Converts the scalar at v to the result type; false if it cannot. A string
 * converts to BOOLEAN as CAST converts it (true/t/yes/y/1, false/f/no/n/0,
 * any case) and to a number as the number it holds (j_decimal_text), both
 * after Java's trim. */
static bool value_convert(ecx *cx, const char *v, const char *e, weir_type_id t, xvec *out, uint32_t i,
                          bool *oom)
{
    xstr s;
    bool is_str = *v == '"';
    if (is_str) {
        if (j_unescape(cx, v, e, &s)) {
            *oom = true;
            return false;
        }
    } else {
        s = j_scalar_text(v, e);
    }
    if (t == WEIR_TYPE_STRING) {
        if (!is_str && *v != 't' && *v != 'f' && !j_number_text(cx, &s)) {
            *oom = true;
            return false;
        }
        ((xstr *)out->data)[i] = s;
        return true;
    }
    if (is_str) {
        size_t n = s.len;
        weir__cast_trim(&s.ptr, &n);
        s.len = (uint32_t)n;
    }
    if (t == WEIR_TYPE_BOOLEAN) /* a string as CAST reads it; else only true and false */
        return is_str ? !weir__cast_parse_bool(s.ptr, s.len, &((uint8_t *)out->data)[i])
                      : !weir__fmt_parse_bool(s.ptr, s.len, &((uint8_t *)out->data)[i]);
    if (!j_decimal_text(s))
        return false; /* true, false or a string that holds no number */
    int64_t n;
    switch (t) {
    case WEIR_TYPE_INT:
        if (!j_whole(s, INT32_MAX, &n))
            return false;
        ((int32_t *)out->data)[i] = (int32_t)n;
        return true;
    case WEIR_TYPE_BIGINT: return j_whole(s, INT64_MAX, &((int64_t *)out->data)[i]);
    case WEIR_TYPE_DOUBLE: {
        double d = 0;
        weir__fmt_parse_f64(s.ptr, s.len, &d);
        if (!isfinite(d))
            return false;
        if (d == 0 && !memchr(s.ptr, '.', s.len) && !memchr(s.ptr, 'e', s.len) && !memchr(s.ptr, 'E', s.len))
            d = 0; /* the integer -0 (also "-0", "-00") is 0 */
        ((double *)out->data)[i] = d;
        return true;
    }
    default: return false;
    }
}

static void copy_default(const xvec *d, weir_type_id t, xvec *out, uint32_t i, ecx *cx)
{
    if (d->nulls && d->nulls[i]) {
        x_setnull(cx, out, i);
        return;
    }
    switch (t) {
    case WEIR_TYPE_STRING: ((xstr *)out->data)[i] = ((const xstr *)d->data)[i]; break;
    case WEIR_TYPE_BOOLEAN: ((uint8_t *)out->data)[i] = ((const uint8_t *)d->data)[i]; break;
    case WEIR_TYPE_DATE:
    case WEIR_TYPE_TIME:
    case WEIR_TYPE_INT: ((int32_t *)out->data)[i] = ((const int32_t *)d->data)[i]; break;
    default: ((int64_t *)out->data)[i] = ((const int64_t *)d->data)[i]; break; /* BIGINT, DOUBLE */
    }
}

static int value_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    weir_type_id t = e->type.id;
    int empty_mode = (int)e->p0, error_mode = (int)e->p1;
    for (uint32_t i = 0; i < n; i++) {
        if (NUL(0) || NUL(1)) {
            x_setnull(cx, out, i);
            continue;
        }
        if (act && !act[i])
            continue;
        const char *v, *why;
        const char *end = STR(0).ptr + STR(0).len;
        bool oom = false;
        bool strict;
        int r = j_eval(cx, STR(0), STR(1), &v, &why, &strict);
        if (r == J_ERROR && !why)
            return weir_error_set(cx->err, WEIR_ENOMEM, "out of memory");
        if (r == J_FOUND && j_word(v, end, "null"))
            r = J_EMPTY;
        else if (r == J_FOUND && !j_scalar(v)) {
            if (!strict)
                r = J_EMPTY;
            else
                r = J_ERROR, why = "the value at the path is not a scalar";
        }
        if (r == J_FOUND) {
            if (value_convert(cx, v, end, t, out, i, &oom))
                continue;
            if (oom)
                return weir_error_set(cx->err, WEIR_ENOMEM, "out of memory");
            r = J_ERROR;
            why = "the value at the path does not convert to the RETURNING type";
        }
        int mode = r == J_EMPTY ? empty_mode : error_mode;
        if (mode == 1)
            return weir__x_fail(cx, i, "JSON_VALUE: %s", r == J_EMPTY ? "no value at the path (ERROR ON EMPTY)" : why);
        if (mode == 2)
            copy_default(&a[r == J_EMPTY ? 2 : 3], t, out, i, cx);
        else
            x_setnull(cx, out, i);
    }
    return 0;
}

/* The RETURNING type named by the parser's type text. */
static bool returning_type(const weir_expr *e, weir_type_id *t)
{
    xstr s;
    if (e->type.id != WEIR_TYPE_STRING || !weir__lit_str(e, &s))
        return false;
    uint32_t n = 0;
    while (n < s.len && isalpha((unsigned char)s.ptr[n]))
        n++;
    static const struct {
        const char *name;
        weir_type_id id;
    } names[] = {
        {"STRING", WEIR_TYPE_STRING}, {"VARCHAR", WEIR_TYPE_STRING}, {"CHAR", WEIR_TYPE_STRING},
        {"BOOLEAN", WEIR_TYPE_BOOLEAN}, {"INT", WEIR_TYPE_INT},      {"INTEGER", WEIR_TYPE_INT},
        {"BIGINT", WEIR_TYPE_BIGINT}, {"DOUBLE", WEIR_TYPE_DOUBLE},
    };
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (strlen(names[k].name) == n && strncasecmp(names[k].name, s.ptr, n) == 0) {
            *t = names[k].id;
            return true;
        }
    return false;
}

static int bind_value(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                      weir_error *err)
{
    int64_t empty_mode = 0, error_mode = 0;
    weir_type_id t = WEIR_TYPE_STRING;
    if (n == 7) {
        if (!lit_int(args[3], &empty_mode) || !lit_int(args[5], &error_mode))
            return weir__bad_args(f, args, n, err);
        if (!returning_type(args[2], &t)) {
            xstr s = {"?", 1};
            weir__lit_str(args[2], &s);
            return weir_error_set(err, WEIR_EUNSUPPORTED,
                                  "JSON_VALUE ... RETURNING %.*s is not supported; use STRING, BOOLEAN, INT, "
                                  "BIGINT or DOUBLE (and CAST the result)",
                                  (int)s.len, s.ptr);
        }
    } else if (n != 2) {
        return weir__bad_args(f, args, n, err);
    }
    int rc = need_json_args(a, f, args, n, 2, err);
    if (rc)
        return rc;
    weir_expr *dflt[2] = {NULL, NULL};
    for (int k = 0; k < 2; k++) {
        weir_expr *d = n == 7 ? args[4 + 2 * k] : NULL;
        if (!d || (k == 0 ? empty_mode : error_mode) != 2) {
            d = weir__node(a, N_LITERAL, tmake(WEIR_TYPE_NULL, true), 0);
            if (!d)
                return nomem_b(err);
            d->lit.type = d->type;
            d->lit.is_null = true;
        }
        if (weir__coerce(a, &d, tmake(t, true), err)) {
            if (err->code != WEIR_ENOMEM)
                return weir_error_set(err, WEIR_EINVAL,
                                      "JSON_VALUE: the DEFAULT value ON %s does not convert to the RETURNING type",
                                      k == 0 ? "EMPTY" : "ERROR");
            return err->code;
        }
        dflt[k] = d;
    }
    weir_expr *call_args[4] = {args[0], args[1], dflt[0], dflt[1]};
    *out = weir__call_node(a, f, call_args, 4, tmake(t, true), value_kernel, F_MAYNULL);
    if (!*out)
        return nomem_b(err);
    (*out)->p0 = empty_mode;
    (*out)->p1 = error_mode;
    return 0;
}

/* ---- JSON_QUERY ---- */

/*
 * RETURNING ARRAY<STRING>: the JSON array text in b (compact, as j_write
 * writes it) as an ARRAY<STRING> into ab: a string element is its value, a
 * null element NULL, any other element its JSON text. false when b holds
 * no array (an object: the row is NULL).
 */
static bool query_array(ecx *cx, const weir_buf *b, weir_buf *ab, int *rc)
{
    const char *p = (const char *)b->data, *e = p + b->len;
    weir_buf_clear(ab);
    if (!b->len || *p != '[')
        return false;
    uint32_t cnt = 0;
    for (const char *q = j_ws(p + 1, e); q < e && *q != ']'; cnt++) {
        q = j_ws(j_value(q, e, 0), e);
        if (q < e && *q == ',')
            q = j_ws(q + 1, e);
    }
    weir_type st = tmake(WEIR_TYPE_STRING, true);
    *rc = weir_nv_put_count(ab, cnt);
    for (const char *q = j_ws(p + 1, e); !*rc && q < e && *q != ']';) {
        const char *end = j_value(q, e, 0);
        if (*q == '"') {
            xstr u;
            *rc = j_unescape(cx, q, e, &u) ? WEIR_ENOMEM : weir_nv_put(ab, st, u.ptr, u.len);
        } else if (j_word(q, e, "null")) {
            *rc = weir_nv_put_null(ab);
        } else {
            *rc = weir_nv_put(ab, st, q, (uint32_t)(end - q));
        }
        q = j_ws(end, e);
        if (q < e && *q == ',')
            q = j_ws(q + 1, e);
    }
    return true;
}

static int query_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    int wrapper = (int)(e->p0 & 0x3), empty_mode = (int)((e->p0 >> 4) & 0xF), error_mode = (int)e->p1;
    bool as_array = (e->p0 & 0x4) != 0;
    weir_buf ab;
    weir_buf_init(&ab);
    weir_buf b;
    weir_buf_init(&b);
    int rc = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        if (NUL(0) || NUL(1)) {
            x_setnull(cx, out, i);
            continue;
        }
        if (act && !act[i])
            continue;
        const char *v, *why;
        const char *end = STR(0).ptr + STR(0).len;
        bool strict;
        int r = j_eval(cx, STR(0), STR(1), &v, &why, &strict);
        if (r == J_ERROR && !why) {
            rc = weir_error_set(cx->err, WEIR_ENOMEM, "out of memory");
            break;
        }
        if (r == J_FOUND && j_word(v, end, "null"))
            r = J_EMPTY; /* JSON null is empty, wrapper or not */
        else if (r == J_FOUND && wrapper == 0 && j_scalar(v)) {
            if (strict)
                r = J_ERROR, why = "the value at the path is a scalar (use WITH ARRAY WRAPPER)";
            else
                r = J_EMPTY;
        }
        weir_buf_clear(&b);
        if (r == J_FOUND) {
            bool wrap = wrapper == 2 || (wrapper == 1 && *v != '[');
            if ((wrap && weir_buf_put(&b, "[", 1)) || j_write(cx, &b, v, end) || (wrap && weir_buf_put(&b, "]", 1))) {
                rc = weir_error_set(cx->err, WEIR_ENOMEM, "out of memory");
                break;
            }
        } else {
            int mode = r == J_EMPTY ? empty_mode : error_mode;
            if (mode == 1) {
                rc = weir__x_fail(cx, i, "JSON_QUERY: %s",
                                  r == J_EMPTY ? "no value at the path (ERROR ON EMPTY)" : why);
                break;
            }
            if (mode == 0) {
                x_setnull(cx, out, i);
                continue;
            }
            weir_buf_put(&b, mode == 3 ? "[]" : "{}", 2);
        }
        if (as_array) {
            if (!query_array(cx, &b, &ab, &rc)) {
                x_setnull(cx, out, i);
                continue;
            }
            if (rc || (rc = weir__x_put_buf(cx, out, i, &ab)))
                break;
            continue;
        }
        char *o = x_str(cx, b.len);
        if (!o) {
            rc = weir_error_set(cx->err, WEIR_ENOMEM, "out of memory");
            break;
        }
        memcpy(o, b.data, b.len);
        ((xstr *)out->data)[i] = (xstr){o, (uint32_t)b.len};
    }
    weir_buf_fini(&b);
    weir_buf_fini(&ab);
    if (rc == WEIR_ENOMEM)
        return weir_error_set(cx->err, WEIR_ENOMEM, "out of memory");
    return rc;
}

static int bind_query(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                      weir_error *err)
{
    int64_t wrapper = 0, empty_mode = 0, error_mode = 0;
    if (n == 5) {
        if (!lit_int(args[2], &wrapper) || !lit_int(args[3], &empty_mode) || !lit_int(args[4], &error_mode))
            return weir__bad_args(f, args, n, err);
    } else if (n != 2) {
        return weir__bad_args(f, args, n, err);
    }
    int rc = need_json_args(a, f, args, 2, 2, err);
    if (rc)
        return rc;
    weir_type rt = tmake(WEIR_TYPE_STRING, true);
    if ((wrapper & 4) && weir_type_array(tmake(WEIR_TYPE_STRING, true), true, &rt))
        return nomem_b(err);
    *out = weir__call_node(a, f, args, 2, rt, query_kernel, F_MAYNULL);
    if (!*out)
        return nomem_b(err);
    (*out)->p0 = wrapper | (empty_mode << 4);
    (*out)->p1 = error_mode;
    return 0;
}

/* ---- JSON_OBJECT, JSON_ARRAY ---- */

/* How a constructor writes a value (kinds in the node's aux). */
enum { JV_QUOTED, JV_RAW, JV_BOOL, JV_INT, JV_BIGINT, JV_DOUBLE, JV_DATE, JV_TIME, JV_NULL };

static int put_value(weir_buf *b, const xvec *v, uint8_t kind, uint32_t i)
{
    char buf[40];
    size_t len;
    switch (kind) {
    case JV_QUOTED: {
        xstr s = ((const xstr *)v->data)[i];
        return weir__fmt_json_put_string(b, s.ptr, s.len);
    }
    case JV_RAW: {
        xstr s = ((const xstr *)v->data)[i];
        return weir_buf_put(b, s.ptr, s.len);
    }
    case JV_BOOL:
        return ((const uint8_t *)v->data)[i] ? weir_buf_put(b, "true", 4) : weir_buf_put(b, "false", 5);
    case JV_INT:
        len = (size_t)snprintf(buf, sizeof buf, "%d", (int)((const int32_t *)v->data)[i]);
        return weir_buf_put(b, buf, len);
    case JV_BIGINT:
        len = (size_t)snprintf(buf, sizeof buf, "%lld", (long long)((const int64_t *)v->data)[i]);
        return weir_buf_put(b, buf, len);
    case JV_DOUBLE: {
        double d = ((const double *)v->data)[i];
        len = weir__fmt_format_f64_java(d, buf);
        bool finite = d == d && d - d == 0;
        if (!finite) /* NaN and Infinity are not JSON numbers: quoted */
            return weir__fmt_json_put_string(b, buf, len);
        return weir_buf_put(b, buf, len);
    }
    /* DATE and TIME as JSON strings: "yyyy-MM-dd" and "HH:mm:ss", the
     * fraction of a second dropped whatever the TIME's precision (Flink). */
    case JV_DATE:
        len = weir__format_date(((const int32_t *)v->data)[i], buf, sizeof buf);
        return weir__fmt_json_put_string(b, buf, len);
    case JV_TIME:
        len = weir__format_time(((const int32_t *)v->data)[i], 0, buf, sizeof buf);
        return weir__fmt_json_put_string(b, buf, len);
    default:
        return weir_buf_put(b, "null", 4);
    }
}

static int ctor_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    /* p1: 0 JSON_ARRAY, 1 JSON_OBJECT, 2 JSON_STRING (one value, no brackets) */
    bool object = e->p1 == 1, single = e->p1 == 2, absent = e->p0 != 0;
    const uint8_t *kinds = e->aux;
    uint32_t step = object ? 2 : 1, nv = e->n_args / step;
    weir_buf b;
    weir_buf_init(&b);
    int rc = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        if (act && !act[i])
            continue;
        weir_buf_clear(&b);
        bool first = true;
        if (single) {
            if (kinds[0] == JV_NULL || (a[0].nulls && a[0].nulls[i])) {
                x_setnull(cx, out, i);
                continue;
            }
            rc = put_value(&b, &a[0], kinds[0], i);
            goto done_row;
        }
        rc = weir_buf_put(&b, object ? "{" : "[", 1);
        for (uint32_t k = 0; k < nv && rc == 0; k++) {
            const xvec *v = &a[k * step + step - 1];
            bool vnull = kinds[k] == JV_NULL || (v->nulls && v->nulls[i]);
            if (object && a[k * 2].nulls && a[k * 2].nulls[i]) {
                rc = weir__x_fail(cx, i, "JSON_OBJECT: key %u is NULL", k + 1);
                break;
            }
            if (vnull && absent)
                continue;
            if (!first)
                rc = weir_buf_put(&b, ",", 1);
            first = false;
            if (object && rc == 0) {
                xstr key = ((const xstr *)a[k * 2].data)[i];
                rc = weir__fmt_json_put_string(&b, key.ptr, key.len);
                if (rc == 0)
                    rc = weir_buf_put(&b, ":", 1);
            }
            if (rc == 0)
                rc = vnull ? weir_buf_put(&b, "null", 4) : put_value(&b, v, kinds[k], i);
        }
        if (rc == 0)
            rc = weir_buf_put(&b, object ? "}" : "]", 1);
    done_row:
        if (rc == 0) {
            char *o = x_str(cx, b.len);
            if (!o) {
                rc = WEIR_ENOMEM;
                break;
            }
            memcpy(o, b.data, b.len);
            ((xstr *)out->data)[i] = (xstr){o, (uint32_t)b.len};
        }
    }
    weir_buf_fini(&b);
    if (rc == WEIR_ENOMEM)
        return weir_error_set(cx->err, WEIR_ENOMEM, "out of memory");
    return rc;
}

static int bind_ctor(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                     weir_error *err)
{
    bool object = f->param != 0;
    uint32_t step = object ? 3 : 2;
    int64_t on_null;
    if (n < 1 || (n - 1) % step != 0 || !lit_int(args[0], &on_null))
        return weir__bad_args(f, args, n, err);
    uint32_t nv = (n - 1) / step;
    uint8_t *kinds = weir__arena_alloc(a, nv ? nv : 1);
    weir_expr **call_args = weir__arena_alloc(a, sizeof(weir_expr *) * (nv * (step - 1) + 1));
    if (!kinds || !call_args)
        return nomem_b(err);
    uint32_t m = 0;
    for (uint32_t k = 0; k < nv; k++) {
        weir_expr **slot = &args[1 + k * step];
        if (object) {
            if ((*slot)->type.id == WEIR_TYPE_NULL) {
                if (weir__coerce(a, slot, tmake(WEIR_TYPE_STRING, true), err))
                    return err->code;
            } else if ((*slot)->type.id != WEIR_TYPE_STRING || (*slot)->iv) {
                return weir_error_set(err, WEIR_EPLAN, "JSON_OBJECT: key %u must be a STRING", k + 1);
            }
            call_args[m++] = *slot;
            slot++;
        }
        int64_t raw = 0;
        lit_int(slot[1], &raw);
        weir_type_id t = (*slot)->iv ? WEIR_TYPE_NULL + 1 : (*slot)->type.id;
        uint8_t kind;
        switch ((int)t) {
        case WEIR_TYPE_STRING: kind = raw ? JV_RAW : JV_QUOTED; break;
        case WEIR_TYPE_BOOLEAN: kind = JV_BOOL; break;
        case WEIR_TYPE_INT: kind = JV_INT; break;
        case WEIR_TYPE_BIGINT: kind = JV_BIGINT; break;
        case WEIR_TYPE_DOUBLE: kind = JV_DOUBLE; break;
        case WEIR_TYPE_DATE: kind = JV_DATE; break;
        case WEIR_TYPE_TIME: kind = JV_TIME; break;
        case WEIR_TYPE_NULL: kind = JV_NULL; break;
        case WEIR_TYPE_DECIMAL: /* its text is a JSON number */
            if (weir__build_cast(a, *slot, tmake(WEIR_TYPE_STRING, (*slot)->type.nullable), false, false, slot,
                                 err))
                return err->code;
            kind = JV_RAW;
            break;
        default: {
            char tb[64];
            return weir_error_set(err, WEIR_EUNSUPPORTED,
                                  "%s: a value of type %s is not supported; CAST it to STRING", f->name,
                                  weir__tname(*slot, tb, sizeof tb));
        }
        }
        if (kind == JV_NULL && weir__coerce(a, slot, tmake(WEIR_TYPE_STRING, true), err))
            return err->code;
        kinds[k] = kind;
        call_args[m++] = *slot;
    }
    *out = weir__call_node(a, f, call_args, m, tmake(WEIR_TYPE_STRING, false), ctor_kernel, 0);
    if (!*out)
        return nomem_b(err);
    (*out)->aux = kinds;
    (*out)->p0 = on_null;
    (*out)->p1 = object;
    return 0;
}

/* JSON_STRING(v): v as JSON_ARRAY would write it, without the brackets;
 * NULL for NULL (Flink). */
static int bind_json_string(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                            weir_error *err)
{
    if (n != 1)
        return weir__bad_args(f, args, n, err);
    weir_expr *ctor_args[3] = {weir_expr_lit_int(a, 0), args[0], weir_expr_lit_int(a, 0)};
    if (!ctor_args[0] || !ctor_args[2])
        return nomem_b(err);
    bool nullable = args[0]->type.nullable || args[0]->type.id == WEIR_TYPE_NULL;
    int rc = bind_ctor(a, f, ctor_args, 3, out, err);
    if (rc)
        return rc;
    (*out)->p1 = 2;
    (*out)->type = tmake(WEIR_TYPE_STRING, nullable);
    (*out)->flags |= F_MAYNULL;
    return 0;
}

/* JSON_QUOTE(s): s as a JSON string literal, written as Flink writes it:
 * '"', '\', '/' and \b \f \n \r \t escaped, other ASCII as it is, and
 * every other character as \u and its code point in lower-case hex (a
 * character beyond U+FFFF as its code point, then its low surrogate:
 * Flink steps through UTF-16 units but reads code points). */
static int quote_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    (void)e;
    weir_buf b;
    weir_buf_init(&b);
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (!x_live(out, act, i))
            continue;
        xstr s = ((const xstr *)a[0].data)[i];
        weir_buf_clear(&b);
        rc = weir_buf_put(&b, "\"", 1);
        for (uint32_t k = 0; k < s.len && !rc;) {
            unsigned char c = (unsigned char)s.ptr[k];
            char tmp[24];
            size_t tl = 0;
            if (c < 0x80) {
                const char *esc = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '/' ? "\\/" : c == '\b' ? "\\b"
                                : c == '\f' ? "\\f" : c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t" : NULL;
                rc = esc ? weir_buf_put(&b, esc, 2) : weir_buf_put(&b, (const char *)&c, 1);
                k++;
                continue;
            }
            uint32_t w = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4, cp = c & (0x7F >> w);
            for (uint32_t j = 1; j < w; j++)
                cp = (cp << 6) | (k + j < s.len ? ((unsigned char)s.ptr[k + j] & 0x3F) : 0);
            tl = (size_t)snprintf(tmp, sizeof tmp, "\\u%04x", cp);
            if (cp > 0xFFFF)
                tl += (size_t)snprintf(tmp + tl, sizeof tmp - tl, "\\u%04x", 0xDC00 + ((cp - 0x10000) & 0x3FF));
            rc = weir_buf_put(&b, tmp, tl);
            k += w;
        }
        rc = rc ? rc : weir_buf_put(&b, "\"", 1);
        char *o = rc ? NULL : x_str(cx, b.len);
        if (!o) {
            rc = WEIR_ENOMEM;
            break;
        }
        memcpy(o, b.data, b.len);
        ((xstr *)out->data)[i] = (xstr){o, (uint32_t)b.len};
    }
    weir_buf_fini(&b);
    return rc ? weir_error_set(cx->err, WEIR_ENOMEM, "out of memory") : 0;
}

/* JSON_UNQUOTE(s): the value of s when s is one JSON string literal;
 * anything else is returned as it is (Flink). */
static int unquote_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    (void)e;
    for (uint32_t i = 0; i < n; i++) {
        if (!x_live(out, act, i))
            continue;
        xstr s = ((const xstr *)a[0].data)[i], v = s;
        const char *end = s.ptr + s.len;
        if (s.len >= 2 && s.ptr[0] == '"' && j_string(s.ptr, end) == end &&
            weir__fmt_utf8_check(s.ptr, s.len) == s.len && j_unescape(cx, s.ptr, end, &v))
            return cx->err->code;
        ((xstr *)out->data)[i] = v;
    }
    return 0;
}

static int bind_quote(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                      weir_error *err)
{
    if (n != 1)
        return weir__bad_args(f, args, n, err);
    int rc = weir__need_strings(a, f, args, n, n, err);
    if (rc)
        return rc;
    *out = weir__call_node(a, f, args, 1, tmake(WEIR_TYPE_STRING, args[0]->type.nullable),
                           f->param ? unquote_kernel : quote_kernel, F_STRICT);
    return *out ? 0 : nomem_b(err);
}

/*
 * JSON_OBJECTAGG, as the parser writes it (sql/parse_expr.c):
 * JSON_OBJECTAGG_OBJECT(COLLECT(JSON_OBJECTAGG_ENTRY(k, val, absent))).
 * An entry is the key's bytes, a NUL, and the value's JSON text ("null" for
 * a NULL value; no entry, NULL, for one under ABSENT ON NULL); a NULL key
 * gives a lone NUL, on which the object fails the row (so that a row the
 * aggregate's FILTER drops does not fail it). The object writes the entries in ascending key order (the
 * bytes of UTF-8 text, which is code point order), and fails the row when a
 * key occurs twice, as Flink's JSON_OBJECTAGG fails on a duplicate key.
 */
static int objagg_entry_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act,
                               xvec *out)
{
    for (uint32_t i = 0; i < n; i++) {
        if (act && !act[i])
            continue;
        if (a[0].nulls && a[0].nulls[i]) {
            /* a lone NUL: the object fails on it (a row FILTER drops never
             * reaches it) */
            ((xstr *)out->data)[i] = (xstr){"", 1};
            continue;
        }
        xstr key = ((const xstr *)a[0].data)[i];
        if (key.len && memchr(key.ptr, 0, key.len))
            return weir__x_fail(cx, i, "JSON_OBJECTAGG: a key with the character U+0000 is not supported");
        bool vnull = a[1].nulls && a[1].nulls[i];
        if (vnull && e->p0) {
            x_setnull(cx, out, i);
            continue;
        }
        xstr k = ((const xstr *)a[0].data)[i], v = vnull ? (xstr){"null", 4} : ((const xstr *)a[1].data)[i];
        char *o = x_str(cx, (size_t)k.len + 1 + v.len);
        if (!o)
            return weir_error_set(cx->err, WEIR_ENOMEM, "out of memory");
        if (k.len)
            memcpy(o, k.ptr, k.len);
        o[k.len] = 0;
        if (v.len)
            memcpy(o + k.len + 1, v.ptr, v.len);
        ((xstr *)out->data)[i] = (xstr){o, k.len + 1 + v.len};
    }
    return 0;
}

static int cmp_entry(const void *x, const void *y)
{
    const xstr *a = x, *b = y;
    int c = memcmp(a->ptr, b->ptr, a->len < b->len ? a->len : b->len);
    return c ? c : (a->len > b->len) - (a->len < b->len);
}

/* The key of an entry: its bytes up to the NUL. */
static uint32_t entry_key_len(xstr e)
{
    const char *z = memchr(e.ptr, 0, e.len);
    return z ? (uint32_t)(z - e.ptr) : e.len;
}

static int objagg_object_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act,
                                xvec *out)
{
    const weir_nested_type *d = weir_type_nested(a[0].type);
    weir_buf b;
    weir_buf_init(&b);
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (act && !act[i])
            continue;
        uint32_t cnt = 0;
        weir_nv_iter it;
        if (!(a[0].nulls && a[0].nulls[i])) {
            xstr ms = ((const xstr *)a[0].data)[i];
            cnt = weir_nv_open(a[0].type, ms.ptr, ms.len, &it);
        }
        xstr *ents = weir__x_alloc(cx, sizeof(xstr) * (cnt ? cnt : 1));
        if (!ents) {
            rc = WEIR_ENOMEM;
            break;
        }
        uint32_t m = 0;
        for (uint32_t k = 0; k < cnt && !rc; k++) {
            bool en, cn;
            const uint8_t *ev, *cv;
            uint32_t el, cl;
            if (!weir_nv_next(&it, d->elems[0], &en, &ev, &el) || !weir_nv_next(&it, d->elems[1], &cn, &cv, &cl))
                break;
            int32_t c = 1;
            if (!cn)
                memcpy(&c, cv, 4);
            if (en)
                continue;
            if (el == 1 && !ev[0]) {
                rc = weir__x_fail(cx, i, "JSON_OBJECTAGG: the key is NULL");
                break;
            }
            ents[m] = (xstr){(const char *)ev, el};
            if (c > 1) {
                uint32_t kl = entry_key_len(ents[m]);
                rc = weir__x_fail(cx, i, "JSON_OBJECTAGG: the key '%.*s' occurs twice in the group (Flink fails "
                                         "on a duplicate key too)", (int)(kl > 60 ? 60 : kl), ents[m].ptr);
            }
            m++;
        }
        if (rc)
            break;
        if (m > 1)
            qsort(ents, m, sizeof *ents, cmp_entry);
        weir_buf_clear(&b);
        rc = weir_buf_put(&b, "{", 1);
        for (uint32_t k = 0; k < m && !rc; k++) {
            uint32_t kl = entry_key_len(ents[k]);
            if (k && kl == entry_key_len(ents[k - 1]) && !memcmp(ents[k].ptr, ents[k - 1].ptr, kl)) {
                rc = weir__x_fail(cx, i, "JSON_OBJECTAGG: the key '%.*s' occurs twice in the group (Flink fails "
                                         "on a duplicate key too)", (int)(kl > 60 ? 60 : kl), ents[k].ptr);
                break;
            }
            if (k)
                rc = weir_buf_put(&b, ",", 1);
            rc = rc ? rc : weir__fmt_json_put_string(&b, ents[k].ptr, kl);
            rc = rc ? rc : weir_buf_put(&b, ":", 1);
            if (!rc && ents[k].len > kl)
                rc = weir_buf_put(&b, ents[k].ptr + kl + 1, ents[k].len - kl - 1);
        }
        rc = rc ? rc : weir_buf_put(&b, "}", 1);
        rc = rc ? rc : x_put_str(cx, out, i, b.data, b.len);
    }
    weir_buf_fini(&b);
    if (rc == WEIR_ENOMEM)
        return weir_error_set(cx->err, WEIR_ENOMEM, "out of memory");
    return rc;
}

static int bind_objagg(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                       weir_error *err)
{
    if (f->param == 0) { /* ENTRY(key, value text, absent) */
        if (n != 3 || args[2]->kind != N_LITERAL || args[2]->lit.is_null)
            return weir__bad_args(f, args, n, err);
        bool absent = args[2]->type.id == WEIR_TYPE_BIGINT ? args[2]->lit.v.i64 != 0 : args[2]->lit.v.i32 != 0;
        int rc = weir__need_strings(a, f, args, n, 2, err);
        if (rc)
            return rc;
        *out = weir__call_node(a, f, args, 2, tmake(WEIR_TYPE_STRING, absent && args[1]->type.nullable),
                               objagg_entry_kernel, F_MAYNULL);
        if (*out)
            (*out)->p0 = absent;
    } else { /* OBJECT(MULTISET<STRING>) */
        const weir_nested_type *d = n == 1 ? weir_type_nested(args[0]->type) : NULL;
        if (!d || d->kind != WEIR_TYPE_MULTISET || d->elems[0].id != WEIR_TYPE_STRING)
            return weir__bad_args(f, args, n, err);
        *out = weir__call_node(a, f, args, 1, tmake(WEIR_TYPE_STRING, false), objagg_object_kernel, 0);
    }
    return *out ? 0 : nomem_b(err);
}

const xfunc weir__funcs_json[] = {
    {"JSON_STRING", "JSON_STRING(value)", bind_json_string, 0},
    {"JSON_QUOTE", "JSON_QUOTE(STRING)", bind_quote, 0},
    {"JSON_UNQUOTE", "JSON_UNQUOTE(STRING)", bind_quote, 1},
    {"JSON_OBJECT", "JSON_OBJECT([[KEY] STRING VALUE value, ...] [{NULL|ABSENT} ON NULL])", bind_ctor, 1},
    {"JSON_ARRAY", "JSON_ARRAY([value, ...] [{NULL|ABSENT} ON NULL])", bind_ctor, 0},
    {"IS JSON", "STRING IS JSON [VALUE|SCALAR|ARRAY|OBJECT]", bind_is_json, 0},
    {"JSON_EXISTS", "JSON_EXISTS(STRING, STRING [{TRUE|FALSE|UNKNOWN|ERROR} ON ERROR])", bind_exists, 0},
    {"JSON_VALUE", "JSON_VALUE(STRING, STRING [RETURNING type] [... ON EMPTY] [... ON ERROR])", bind_value, 0},
    {"JSON_QUERY", "JSON_QUERY(STRING, STRING [... WRAPPER] [... ON EMPTY] [... ON ERROR])", bind_query, 0},
    {"JSON_OBJECTAGG_ENTRY", "JSON_OBJECTAGG_ENTRY(STRING, STRING, INT)", bind_objagg, 0},
    {"JSON_OBJECTAGG_OBJECT", "JSON_OBJECTAGG_OBJECT(MULTISET<STRING>)", bind_objagg, 1},
    {NULL, NULL, NULL, 0},
};
