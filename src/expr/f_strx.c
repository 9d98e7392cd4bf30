/*
 * expr/f_strx.c - more string functions of Flink's list: OVERLAY, CHR,
 * TRANSLATE, ELT, SUBSTRING_INDEX, IS_ALPHA, IS_DIGIT, IS_DECIMAL,
 * URL_ENCODE, URL_DECODE, PARSE_URL, STR_TO_MAP, ENCODE, DECODE, TYPEOF.
 *
 * Positions and lengths count characters (code points, as f_string.c). NULL
 * rules are Flink's: most are NULL when an argument is (F_STRICT); TRANSLATE
 * is NULL only for a NULL string, ELT for a NULL index or a NULL chosen
 * value, IS_* are FALSE for NULL. URL_DECODE, PARSE_URL are NULL where Flink
 * catches the Java exception; ELT's index out of range, an unknown charset
 * and STR_TO_MAP's regular expression delimiters fail the row, as they fail
 * Flink's job.
 */
#include <stdio.h>
#include <strings.h>

#include "expr/expr_internal.h"
#include "expr/unicode_class.h"
#include "record/nested.h"
#include "util/hex.h"
#include "weir/buf.h"

enum {
    S_OVERLAY,
    S_CHR,
    S_TRANSLATE,
    S_ELT,
    S_SUBSTR_INDEX,
    S_IS_ALPHA,
    S_IS_DIGIT,
    S_IS_DECIMAL,
    S_URL_ENCODE,
    S_URL_DECODE,
    S_PARSE_URL,
    S_STR_TO_MAP,
    S_ENCODE,
    S_DECODE,
    S_TYPEOF,
};

static int nomem_x(weir_error *err) { return weir_error_set(err, WEIR_ENOMEM, "out of memory"); }

static inline bool null_at(const xvec *v, uint32_t i) { return v->nulls && v->nulls[i]; }
static inline xstr str_at(const xvec *v, uint32_t i) { return ((const xstr *)v->data)[i]; }

/* ---- code points ---- */

static bool in_ranges(const uint32_t (*r)[2], size_t n, uint32_t cp)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (cp < r[mid][0])
            hi = mid;
        else if (cp > r[mid][1])
            lo = mid + 1;
        else
            return true;
    }
    return false;
}

static bool is_letter(uint32_t cp)
{
    if (cp < 0x80)
        return (cp | 32) >= 'a' && (cp | 32) <= 'z';
    return in_ranges(weir__uc_letters, sizeof weir__uc_letters / sizeof weir__uc_letters[0], cp);
}

/* The value 0-9 of a decimal digit of any script, or -1. */
static int digit_value(uint32_t cp)
{
    if (cp < 0x80)
        return cp >= '0' && cp <= '9' ? (int)(cp - '0') : -1;
    size_t n = sizeof weir__uc_digits / sizeof weir__uc_digits[0];
    for (size_t k = 0; k < n && weir__uc_digits[k][0] <= cp; k++)
        if (cp <= weir__uc_digits[k][1])
            return (int)((cp - weir__uc_digits[k][0]) % 10);
    return -1;
}

/* The code points of s into cx memory; *n their count. NULL when out of memory. */
static uint32_t *code_points(ecx *cx, xstr s, uint32_t *n)
{
    uint32_t *cps = weir__x_alloc(cx, ((size_t)s.len + 1) * sizeof *cps), m = 0;
    if (!cps)
        return NULL;
    for (uint32_t k = 0; k < s.len; m++)
        k += weir__utf8_decode(s.ptr + k, s.len - k, &cps[m]);
    *n = m;
    return cps;
}

/* ---- IS_DECIMAL: what Java's Integer/Long.parseLong or Double.parseDouble take ---- */

/* [+-]digits of any script, within a long (Long.parseLong). */
static bool java_long_ok(xstr s)
{
    uint32_t k = 0, cp, nd = 0;
    bool neg = false;
    if (s.len && (s.ptr[0] == '+' || s.ptr[0] == '-')) {
        neg = s.ptr[0] == '-';
        k = 1;
    }
    uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    while (k < s.len) {
        k += weir__utf8_decode(s.ptr + k, s.len - k, &cp);
        int d = digit_value(cp);
        if (d < 0 || v > (lim - (uint64_t)d) / 10)
            return false;
        v = v * 10 + (uint64_t)d;
        nd++;
    }
    return nd > 0;
}

static bool is_dd(char c) { return c >= '0' && c <= '9'; }

static bool java_double_ok(xstr s)
{
    const char *b, *e;
    return weir__java_double_span(s.ptr, s.len, &b, &e);
}

static bool is_class(int fn, xstr s)
{
    if (!s.len)
        return false;
    if (fn == S_IS_DECIMAL)
        return java_long_ok(s) || java_double_ok(s);
    for (uint32_t k = 0; k < s.len;) {
        uint32_t cp;
        k += weir__utf8_decode(s.ptr + k, s.len - k, &cp);
        if (fn == S_IS_ALPHA ? !is_letter(cp) : digit_value(cp) < 0)
            return false;
    }
    return true;
}

/* ---- URL_ENCODE / URL_DECODE (Java's URLEncoder / URLDecoder, UTF-8) ---- */

static int url_encode(xstr s, weir_buf *b)
{
    static const char hexd[] = "0123456789ABCDEF";
    int rc = weir_buf_reserve(b, (size_t)s.len * 3);
    for (uint32_t k = 0; k < s.len && !rc; k++) {
        unsigned char c = (unsigned char)s.ptr[k];
        if ((c | 32) >= 'a' && (c | 32) <= 'z' ? 1 : (is_dd((char)c) || c == '.' || c == '-' || c == '*' || c == '_')) {
            b->data[b->len++] = c;
        } else if (c == ' ') {
            b->data[b->len++] = '+';
        } else {
            b->data[b->len++] = '%';
            b->data[b->len++] = (uint8_t)hexd[c >> 4];
            b->data[b->len++] = (uint8_t)hexd[c & 15];
        }
    }
    return rc;
}

/*
 * Bytes -> UTF-8 text, each ill-formed part (a maximal subpart of a
 * sequence, as Java's and Unicode's decoders cut them) replaced by U+FFFD.
 */
static int utf8_repair(const uint8_t *p, size_t n, weir_buf *b)
{
    static const uint8_t fffd[3] = {0xEF, 0xBF, 0xBD};
    int rc = 0;
    for (size_t k = 0; k < n && !rc;) {
        uint8_t c = p[k];
        size_t need = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
        if (need == 1) {
            rc = weir_buf_put(b, &c, 1);
            k++;
            continue;
        }
        size_t got = 1;
        if (need) {
            uint8_t lo = 0x80, hi = 0xBF;
            if (c == 0xE0)
                lo = 0xA0;
            else if (c == 0xED)
                hi = 0x9F;
            else if (c == 0xF0)
                lo = 0x90;
            else if (c == 0xF4)
                hi = 0x8F;
            while (got < need && k + got < n) {
                uint8_t d = p[k + got];
                if (got == 1 ? (d < lo || d > hi) : (d & 0xC0) != 0x80)
                    break;
                got++;
            }
        }
        rc = got == need && need ? weir_buf_put(b, p + k, need) : weir_buf_put(b, fffd, 3);
        k += got;
    }
    return rc;
}

/* 0, 1 when Java's URLDecoder would throw (a malformed escape), or ENOMEM. */
static int url_decode(xstr s, weir_buf *b, weir_buf *tmp)
{
    int rc = 0;
    for (uint32_t k = 0; k < s.len && !rc;) {
        char c = s.ptr[k];
        if (c == '%') {
            weir_buf_clear(tmp);
            while (k < s.len && s.ptr[k] == '%') {
                if (s.len - k < 3)
                    return 1;
                /* Java reads the two characters with Integer.parseInt(.., 16):
                 * a sign is taken ("%+A" is 0x0A, "%-0" is 0), a negative
                 * value is refused */
                char c1 = s.ptr[k + 1];
                int hv = c1 == '+' || c1 == '-' ? 0 : weir__hex_value(c1), lv = weir__hex_value(s.ptr[k + 2]);
                if (hv < 0 || lv < 0 || (c1 == '-' && lv > 0))
                    return 1;
                uint8_t v = (uint8_t)(hv * 16 + lv);
                if ((rc = weir_buf_put(tmp, &v, 1)))
                    return rc;
                k += 3;
            }
            rc = utf8_repair(tmp->data, tmp->len, b);
        } else {
            uint8_t v = c == '+' ? ' ' : (uint8_t)c;
            rc = weir_buf_put(b, &v, 1);
            k++;
        }
    }
    return rc;
}

/* ---- PARSE_URL (the parts java.net.URL gives) ---- */

typedef struct url_parts {
    xstr protocol, authority, userinfo, host, path, query, ref;
    bool has_authority, has_userinfo, has_query, has_ref;
} url_parts;

/* The schemes a java.net.URL has a handler for. */
static bool known_protocol(xstr p)
{
    static const char *const known[] = {"http", "https", "ftp", "file", "jar", "mailto", "jrt"};
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
        if (strlen(known[k]) == p.len && !strncasecmp(known[k], p.ptr, p.len))
            return true;
    return false;
}

/* false when java.net.URL would refuse the text (MalformedURLException). */
static bool url_parse(xstr s, url_parts *u)
{
    memset(u, 0, sizeof *u);
    const char *p = s.ptr, *e = s.ptr + s.len;
    while (p < e && (unsigned char)*p <= ' ')
        p++;
    while (e > p && (unsigned char)e[-1] <= ' ')
        e--;
    if (e - p >= 4 && !strncasecmp(p, "url:", 4))
        p += 4;
    const char *c = p;
    if (c < e && ((*c | 32) >= 'a' && (*c | 32) <= 'z')) {
        while (c < e && (((*c | 32) >= 'a' && (*c | 32) <= 'z') || is_dd(*c) || *c == '+' || *c == '-' || *c == '.'))
            c++;
    }
    if (c == p || c >= e || *c != ':')
        return false;
    u->protocol = (xstr){p, (uint32_t)(c - p)};
    if (!known_protocol(u->protocol))
        return false;
    p = c + 1;
    const char *hash = memchr(p, '#', (size_t)(e - p));
    if (hash) {
        u->has_ref = true;
        u->ref = (xstr){hash + 1, (uint32_t)(e - hash - 1)};
        e = hash;
    }
    if (e - p >= 2 && p[0] == '/' && p[1] == '/') {
        p += 2;
        const char *a = p;
        while (a < e && *a != '/' && *a != '?')
            a++;
        u->has_authority = true;
        u->authority = (xstr){p, (uint32_t)(a - p)};
        const char *at = memchr(p, '@', (size_t)(a - p)), *h = p;
        if (at) {
            if (memchr(at + 1, '@', (size_t)(a - at - 1)))
                return false;
            u->has_userinfo = true;
            u->userinfo = (xstr){p, (uint32_t)(at - p)};
            h = at + 1;
        }
        const char *he = a;
        if (h < a && *h == '[') {
            const char *rb = memchr(h, ']', (size_t)(a - h));
            if (!rb)
                return false;
            he = rb + 1;
            if (he < a && *he != ':')
                return false;
        } else {
            const char *colon = memchr(h, ':', (size_t)(a - h));
            if (colon)
                he = colon;
        }
        if (he < a) {
            /* the port: digits, or nothing */
            for (const char *q = he + 1; q < a; q++)
                if (!is_dd(*q))
                    return false;
        }
        u->host = (xstr){h, (uint32_t)(he - h)};
        p = a;
    } else {
        u->host = (xstr){p, 0};
    }
    const char *q = memchr(p, '?', (size_t)(e - p));
    if (q) {
        u->has_query = true;
        u->query = (xstr){q + 1, (uint32_t)(e - q - 1)};
        e = q;
    }
    u->path = (xstr){p, (uint32_t)(e - p)};
    return true;
}

/* The value of key in a query: the first `(&|^)key=([^&]*)`. */
static bool query_key(xstr query, xstr key, xstr *out)
{
    for (uint32_t k = 0; k + key.len < query.len; k++) {
        if (k && query.ptr[k - 1] != '&')
            continue;
        if ((key.len && memcmp(query.ptr + k, key.ptr, key.len)) || query.ptr[k + key.len] != '=')
            continue;
        uint32_t v = k + key.len + 1, end = v;
        while (end < query.len && query.ptr[end] != '&')
            end++;
        *out = (xstr){query.ptr + v, end - v};
        return true;
    }
    return false;
}

/* The part of u named part (Flink's names), NULL when there is none. */
static bool url_part(const url_parts *u, xstr part, weir_buf *b, xstr *out)
{
#define IS(name) (part.len == sizeof name - 1 && !memcmp(part.ptr, name, sizeof name - 1))
    if (IS("HOST")) {
        *out = u->host;
        return true;
    }
    if (IS("PATH")) {
        *out = u->path;
        return true;
    }
    if (IS("QUERY")) {
        *out = u->query;
        return u->has_query;
    }
    if (IS("REF")) {
        *out = u->ref;
        return u->has_ref;
    }
    if (IS("PROTOCOL")) {
        /* java.net.URL keeps the scheme in lowercase */
        weir_buf_clear(b);
        if (weir_buf_reserve(b, u->protocol.len))
            return false;
        for (uint32_t k = 0; k < u->protocol.len; k++) {
            char c = u->protocol.ptr[k];
            b->data[b->len++] = (uint8_t)(c >= 'A' && c <= 'Z' ? c + 32 : c);
        }
        *out = (xstr){(const char *)b->data, (uint32_t)b->len};
        return true;
    }
    if (IS("FILE")) {
        weir_buf_clear(b);
        if (weir_buf_put(b, u->path.ptr, u->path.len) ||
            (u->has_query && (weir_buf_put(b, "?", 1) || weir_buf_put(b, u->query.ptr, u->query.len))))
            return false;
        *out = (xstr){(const char *)b->data, (uint32_t)b->len};
        return true;
    }
    if (IS("AUTHORITY")) {
        *out = u->authority;
        return u->has_authority;
    }
    if (IS("USERINFO")) {
        *out = u->userinfo;
        return u->has_userinfo;
    }
    return false;
#undef IS
}

/* ---- STR_TO_MAP ---- */

/* A delimiter Java's String.split takes without a regular expression: no
 * metacharacter, or one escaped non-alphanumeric character. The literal
 * text in *lit. */
static bool plain_delim(xstr d, xstr *lit)
{
    if (d.len == 2 && d.ptr[0] == '\\') {
        char c = d.ptr[1];
        if (is_dd(c) || ((c | 32) >= 'a' && (c | 32) <= 'z'))
            return false;
        *lit = (xstr){d.ptr + 1, 1};
        return true;
    }
    for (uint32_t k = 0; k < d.len; k++)
        if (strchr(".$|()[{^?*+\\", d.ptr[k]))
            return false;
    *lit = d;
    return d.len > 0;
}

static const char *find_lit(const char *p, const char *e, xstr d)
{
    for (; p + d.len <= e; p++)
        if (*p == d.ptr[0] && !memcmp(p, d.ptr, d.len))
            return p;
    return NULL;
}

/* Flink: the text split by the pair delimiter (Java's split: trailing empty
 * pieces dropped), each piece split once by the key-value delimiter; a
 * piece without one is a key with a NULL value; a later key wins. */
static int str_to_map(ecx *cx, uint32_t i, xstr s, xstr ld, xstr kd, weir_type mt, weir_buf *b)
{
    xstr l, kl;
    if (!plain_delim(ld, &l) || !plain_delim(kd, &kl))
        return weir__x_fail(cx, i, "STR_TO_MAP: the delimiters '%.*s' and '%.*s' must be literal text "
                                   "(weir does not split by a regular expression here; escape a "
                                   "metacharacter with one backslash)",
                            (int)(ld.len > 20 ? 20 : ld.len), ld.ptr, (int)(kd.len > 20 ? 20 : kd.len), kd.ptr);
    const weir_type st = tmake(WEIR_TYPE_STRING, false);
    uint32_t m = 0;
    int rc = weir_nv_put_count(b, 0);
    if (s.len) {
        /* the pieces; trailing empty ones dropped (all empty: none) */
        const char *e = s.ptr + s.len;
        xstr *piece = weir__x_alloc(cx, ((size_t)s.len / l.len + 2) * sizeof *piece);
        if (!piece)
            return WEIR_ENOMEM;
        uint32_t np = 0;
        for (const char *p = s.ptr;;) {
            const char *h = find_lit(p, e, l);
            piece[np++] = (xstr){p, (uint32_t)((h ? h : e) - p)};
            if (!h)
                break;
            p = h + l.len;
        }
        if (np > 1)
            while (np && !piece[np - 1].len)
                np--;
        for (uint32_t k = 0; k < np && !rc; k++, m++) {
            xstr pc = piece[k];
            const char *kv = find_lit(pc.ptr, pc.ptr + pc.len, kl);
            if (kv) {
                rc = weir_nv_put(b, st, pc.ptr, (uint32_t)(kv - pc.ptr));
                rc = rc ? rc : weir_nv_put(b, st, kv + kl.len, (uint32_t)(pc.ptr + pc.len - kv - kl.len));
            } else {
                rc = weir_nv_put(b, st, pc.ptr, pc.len);
                rc = rc ? rc : weir_nv_put_null(b);
            }
        }
    }
    if (!rc) {
        memcpy(b->data, &m, 4);
        rc = weir_nv_map_canon(b, 0, mt);
    }
    return rc;
}

/* ---- ENCODE / DECODE ---- */

enum { CS_ASCII, CS_LATIN1, CS_UTF8, CS_UTF16BE, CS_UTF16LE, CS_UTF16 };

/* Java's names of the charsets every JVM has (and a few of their aliases). */
static int charset_of(xstr n)
{
    static const struct {
        const char *name;
        int cs;
    } names[] = {
        {"US-ASCII", CS_ASCII},     {"ASCII", CS_ASCII},         {"ISO-8859-1", CS_LATIN1}, {"LATIN1", CS_LATIN1},
        {"ISO8859_1", CS_LATIN1},   {"UTF-8", CS_UTF8},          {"UTF8", CS_UTF8},         {"UTF-16BE", CS_UTF16BE},
        {"UTF-16LE", CS_UTF16LE},   {"UTF-16", CS_UTF16},
    };
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (strlen(names[k].name) == n.len && !strncasecmp(names[k].name, n.ptr, n.len))
            return names[k].cs;
    return -1;
}

static int put_u16(weir_buf *b, uint32_t u, bool le)
{
    uint8_t two[2] = {(uint8_t)(le ? u : u >> 8), (uint8_t)(le ? u >> 8 : u)};
    return weir_buf_put(b, two, 2);
}

/* String -> bytes; a character the charset lacks becomes '?' (Java's getBytes). */
static int encode_cs(xstr s, int cs, weir_buf *b)
{
    if (cs == CS_UTF8)
        return weir_buf_put(b, s.ptr, s.len);
    int rc = cs == CS_UTF16 ? put_u16(b, 0xFEFF, false) : 0;
    for (uint32_t k = 0; k < s.len && !rc;) {
        uint32_t cp;
        k += weir__utf8_decode(s.ptr + k, s.len - k, &cp);
        if (cs == CS_ASCII || cs == CS_LATIN1) {
            uint8_t c = cp < (cs == CS_ASCII ? 0x80u : 0x100u) ? (uint8_t)cp : '?';
            rc = weir_buf_put(b, &c, 1);
        } else {
            bool le = cs == CS_UTF16LE;
            if (cp >= 0x10000) {
                rc = put_u16(b, 0xD800 + ((cp - 0x10000) >> 10), le);
                rc = rc ? rc : put_u16(b, 0xDC00 + ((cp - 0x10000) & 0x3FF), le);
            } else {
                rc = put_u16(b, cp, le);
            }
        }
    }
    return rc;
}

static int put_cp(weir_buf *b, uint32_t cp)
{
    char o[4];
    return weir_buf_put(b, o, weir__utf8_encode(cp, o));
}

/* Bytes -> string; what the charset cannot read becomes U+FFFD (Java's new String). */
static int decode_cs(xstr s, int cs, weir_buf *b)
{
    const uint8_t *p = (const uint8_t *)s.ptr;
    size_t n = s.len;
    if (cs == CS_UTF8)
        return utf8_repair(p, n, b);
    int rc = 0;
    if (cs == CS_ASCII || cs == CS_LATIN1) {
        for (size_t k = 0; k < n && !rc; k++)
            rc = put_cp(b, cs == CS_ASCII && p[k] >= 0x80 ? 0xFFFD : p[k]);
        return rc;
    }
    bool le = cs == CS_UTF16LE;
    size_t k = 0;
    if (cs == CS_UTF16 && n >= 2) {
        if (p[0] == 0xFE && p[1] == 0xFF)
            k = 2;
        else if (p[0] == 0xFF && p[1] == 0xFE)
            k = 2, le = true;
    }
    for (; k < n && !rc;) {
        if (k + 1 >= n) {
            rc = put_cp(b, 0xFFFD);
            break;
        }
        uint32_t u = le ? (uint32_t)p[k] | (uint32_t)p[k + 1] << 8 : (uint32_t)p[k] << 8 | p[k + 1];
        k += 2;
        if (u >= 0xD800 && u <= 0xDBFF) {
            if (k + 1 < n) {
                uint32_t v = le ? (uint32_t)p[k] | (uint32_t)p[k + 1] << 8 : (uint32_t)p[k] << 8 | p[k + 1];
                if (v >= 0xDC00 && v <= 0xDFFF) {
                    rc = put_cp(b, 0x10000 + ((u - 0xD800) << 10) + (v - 0xDC00));
                    k += 2;
                    continue;
                }
            }
            rc = put_cp(b, 0xFFFD);
            if (k + 1 == n)
                break; /* a high surrogate and one byte end the input: one malformed part */
        } else if (u >= 0xDC00 && u <= 0xDFFF) {
            rc = put_cp(b, 0xFFFD);
        } else {
            rc = put_cp(b, u);
        }
    }
    return rc;
}

/* ---- the kernel ---- */

static int overlay_row(ecx *cx, const xvec *a, uint32_t n_args, uint32_t i, xvec *out, weir_buf *b)
{
    xstr s = str_at(&a[0], i), r = str_at(&a[1], i);
    int64_t start = ((const int32_t *)a[2].data)[i], n = weir__utf8_nchars(s);
    /* Flink: a start outside [1, length] leaves the string as it is; the
     * rest after the replaced part is kept only for a positive length that
     * ends inside the string. */
    if (start < 1 || start > n) {
        ((xstr *)out->data)[i] = s;
        return 0;
    }
    int64_t len = n_args == 4 ? ((const int32_t *)a[3].data)[i] : (int64_t)weir__utf8_nchars(r);
    weir_buf_clear(b);
    uint32_t pre = weir__utf8_off(s, (uint32_t)(start - 1));
    int rc = weir_buf_put(b, s.ptr, pre);
    rc = rc ? rc : weir_buf_put(b, r.ptr, r.len);
    if (!rc && len > 0 && start + len <= n) {
        uint32_t at = weir__utf8_off(s, (uint32_t)(start - 1 + len));
        rc = weir_buf_put(b, s.ptr + at, s.len - at);
    }
    return rc ? rc : x_put_str(cx, out, i, b->data, b->len);
}

static int translate_row(ecx *cx, const xvec *a, uint32_t i, xvec *out, weir_buf *b)
{
    xstr s = str_at(&a[0], i);
    if (null_at(&a[1], i) || !str_at(&a[1], i).len) {
        ((xstr *)out->data)[i] = s;
        return 0;
    }
    xstr to = null_at(&a[2], i) ? (xstr){"", 0} : str_at(&a[2], i);
    uint32_t nf, nt;
    uint32_t *from = code_points(cx, str_at(&a[1], i), &nf), *tov = code_points(cx, to, &nt);
    if (!from || !tov)
        return WEIR_ENOMEM;
    weir_buf_clear(b);
    int rc = 0;
    for (uint32_t k = 0; k < s.len && !rc;) {
        uint32_t cp, w = weir__utf8_decode(s.ptr + k, s.len - k, &cp), f = 0;
        while (f < nf && from[f] != cp)
            f++;
        if (f == nf)
            rc = weir_buf_put(b, s.ptr + k, w); /* not in fromStr: kept */
        else if (f < nt)
            rc = put_cp(b, tov[f]); /* the first occurrence in fromStr decides */
        k += w;
    }
    return rc ? rc : x_put_str(cx, out, i, b->data, b->len);
}

/* Spark's and Hive's SUBSTRING_INDEX, as Flink's: the occurrences are
 * searched one byte after the previous one (they may overlap). */
static void substring_index(xstr s, xstr d, int64_t count, xstr *res)
{
    if (!d.len || !count || !s.len) {
        *res = (xstr){s.ptr, 0};
        return;
    }
    if (count > 0) {
        int64_t idx = -1;
        while (count > 0) {
            const char *h = NULL;
            for (int64_t k = idx + 1; k + d.len <= s.len; k++)
                if (!memcmp(s.ptr + k, d.ptr, d.len)) {
                    h = s.ptr + k;
                    break;
                }
            if (!h) {
                *res = s;
                return;
            }
            idx = h - s.ptr;
            count--;
        }
        *res = (xstr){s.ptr, (uint32_t)idx};
    } else {
        int64_t idx = s.len;
        while (count < 0) {
            int64_t k = idx - 1;
            if (k + d.len > s.len)
                k = (int64_t)s.len - d.len;
            while (k >= 0 && memcmp(s.ptr + k, d.ptr, d.len))
                k--;
            if (k < 0) {
                *res = s;
                return;
            }
            idx = k;
            count++;
        }
        uint32_t from = (uint32_t)idx + d.len;
        *res = (xstr){s.ptr + from, s.len - from};
    }
}

static int strx_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    weir_buf b, t;
    weir_buf_init(&b);
    weir_buf_init(&t);
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (!x_live(out, act, i))
            continue;
        switch (e->p0) {
        case S_OVERLAY: rc = overlay_row(cx, a, e->n_args, i, out, &b); break;
        case S_CHR: {
            /* Flink: '' for a negative code, else the character (code & 0xFF) */
            int64_t c = a[0].type.id == WEIR_TYPE_BIGINT ? ((const int64_t *)a[0].data)[i]
                                                          : ((const int32_t *)a[0].data)[i];
            char o[4];
            rc = x_put_str(cx, out, i, o, c < 0 ? 0 : weir__utf8_encode((uint32_t)(c & 0xFF), o));
            break;
        }
        case S_TRANSLATE:
            if (null_at(&a[0], i))
                x_setnull(cx, out, i);
            else
                rc = translate_row(cx, a, i, out, &b);
            break;
        case S_ELT: {
            if (null_at(&a[0], i)) {
                x_setnull(cx, out, i);
                break;
            }
            int64_t k = a[0].type.id == WEIR_TYPE_BIGINT ? ((const int64_t *)a[0].data)[i]
                                                          : ((const int32_t *)a[0].data)[i];
            /* Flink: NULL for an index outside [1, n] */
            if (k < 1 || k >= (int64_t)e->n_args || null_at(&a[k], i))
                x_setnull(cx, out, i);
            else
                ((xstr *)out->data)[i] = str_at(&a[k], i);
            break;
        }
        case S_SUBSTR_INDEX:
            substring_index(str_at(&a[0], i), str_at(&a[1], i), ((const int32_t *)a[2].data)[i],
                            &((xstr *)out->data)[i]);
            break;
        case S_IS_ALPHA:
        case S_IS_DIGIT:
        case S_IS_DECIMAL:
            ((uint8_t *)out->data)[i] = !null_at(&a[0], i) && is_class((int)e->p0, str_at(&a[0], i));
            break;
        case S_URL_ENCODE:
            weir_buf_clear(&b);
            rc = url_encode(str_at(&a[0], i), &b);
            rc = rc ? rc : x_put_str(cx, out, i, b.data, b.len);
            break;
        case S_URL_DECODE:
            weir_buf_clear(&b);
            rc = url_decode(str_at(&a[0], i), &b, &t);
            if (rc == 1) {
                x_setnull(cx, out, i);
                rc = 0;
            } else if (!rc) {
                rc = x_put_str(cx, out, i, b.data, b.len);
            }
            break;
        case S_PARSE_URL: {
            url_parts u;
            xstr part;
            if (!url_parse(str_at(&a[0], i), &u) || !url_part(&u, str_at(&a[1], i), &b, &part)) {
                x_setnull(cx, out, i);
                break;
            }
            if (e->n_args == 3) {
                /* with a key: only the QUERY part, then the key's value */
                xstr pn = str_at(&a[1], i), v;
                if (pn.len != 5 || memcmp(pn.ptr, "QUERY", 5) || !query_key(part, str_at(&a[2], i), &v)) {
                    x_setnull(cx, out, i);
                    break;
                }
                part = v;
            }
            rc = x_put_str(cx, out, i, part.ptr, part.len);
            break;
        }
        case S_STR_TO_MAP: {
            xstr ld = e->n_args > 1 ? str_at(&a[1], i) : (xstr){",", 1};
            xstr kd = e->n_args > 2 ? str_at(&a[2], i) : (xstr){"=", 1};
            weir_buf_clear(&b);
            rc = str_to_map(cx, i, str_at(&a[0], i), ld, kd, e->type, &b);
            rc = rc ? rc : weir__x_put_buf(cx, out, i, &b);
            break;
        }
        case S_ENCODE:
        case S_DECODE: {
            xstr cn = str_at(&a[1], i);
            int cs = charset_of(cn);
            if (cs < 0) {
                rc = weir__x_fail(cx, i, "%s: unsupported charset '%.*s'", e->name, (int)(cn.len > 40 ? 40 : cn.len),
                                  cn.ptr);
                break;
            }
            weir_buf_clear(&b);
            rc = e->p0 == S_ENCODE ? encode_cs(str_at(&a[0], i), cs, &b) : decode_cs(str_at(&a[0], i), cs, &b);
            rc = rc ? rc : x_put_str(cx, out, i, b.data, b.len);
            break;
        }
        }
    }
    weir_buf_fini(&b);
    weir_buf_fini(&t);
    return rc == WEIR_ENOMEM ? weir_error_set(cx->err, WEIR_ENOMEM, "out of memory") : rc;
}

/* ---- binding ---- */

/* Argument k as an integer index (INT or BIGINT; an untyped NULL as INT). */
static bool int_arg(weir_expr_arena *a, weir_expr **args, uint32_t k, weir_error *err)
{
    if (args[k]->type.id == WEIR_TYPE_NULL && weir__coerce(a, &args[k], tmake(WEIR_TYPE_INT, true), err))
        return false;
    return (args[k]->type.id == WEIR_TYPE_INT || args[k]->type.id == WEIR_TYPE_BIGINT) && !args[k]->iv;
}

/* Arguments [from, n) all STRING or all BYTES (untyped NULLs take that type);
 * the type in *t. */
static bool same_text(weir_expr_arena *a, weir_expr **args, uint32_t from, uint32_t n, weir_type_id *t,
                      weir_error *err)
{
    weir_type_id id = WEIR_TYPE_NULL;
    for (uint32_t k = from; k < n && id == WEIR_TYPE_NULL; k++)
        id = args[k]->type.id;
    if (id == WEIR_TYPE_NULL)
        id = WEIR_TYPE_STRING;
    for (uint32_t k = from; k < n; k++) {
        if (args[k]->type.id == WEIR_TYPE_NULL && weir__coerce(a, &args[k], tmake(id, true), err))
            return false;
        if (args[k]->type.id != id || args[k]->iv || (id != WEIR_TYPE_STRING && id != WEIR_TYPE_BYTES))
            return false;
    }
    *t = id;
    return true;
}

static int bind_strx(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                     weir_error *err)
{
    int64_t fn = f->param;
    weir_type rt = tmake(WEIR_TYPE_STRING, weir__any_nullable(args, n));
    uint8_t flags = F_STRICT;
    int rc = 0;
    switch (fn) {
    case S_OVERLAY:
        if (n != 3 && n != 4)
            return weir__bad_args(f, args, n, err);
        if ((rc = weir__need_strings(a, f, args, n, 2, err)))
            return rc;
        break;
    case S_CHR:
        if (n != 1 || !int_arg(a, args, 0, err))
            return err->code ? err->code : weir__bad_args(f, args, n, err);
        break;
    case S_TRANSLATE:
        if (n != 3)
            return weir__bad_args(f, args, n, err);
        if ((rc = weir__need_strings(a, f, args, n, 3, err)))
            return rc;
        rt.nullable = args[0]->type.nullable;
        flags = 0;
        break;
    case S_ELT: {
        weir_type_id t;
        if (n < 2 || !int_arg(a, args, 0, err) || !same_text(a, args, 1, n, &t, err))
            return err->code ? err->code : weir__bad_args(f, args, n, err);
        rt = tmake(t, true); /* an index out of range gives NULL */
        flags = 0;
        break;
    }
    case S_SUBSTR_INDEX: {
        weir_type_id t;
        if (n != 3 || !same_text(a, args, 0, 2, &t, err) || !int_arg(a, args, 2, err))
            return err->code ? err->code : weir__bad_args(f, args, n, err);
        if (args[2]->type.id == WEIR_TYPE_BIGINT &&
            weir__build_cast(a, args[2], tmake(WEIR_TYPE_INT, args[2]->type.nullable), false, true, &args[2], err))
            return err->code;
        rt = tmake(t, weir__any_nullable(args, n));
        break;
    }
    case S_IS_ALPHA:
    case S_IS_DIGIT:
    case S_IS_DECIMAL:
        if (n != 1)
            return weir__bad_args(f, args, n, err);
        if ((rc = weir__need_strings(a, f, args, n, 1, err)))
            return rc;
        rt = tmake(WEIR_TYPE_BOOLEAN, false);
        flags = 0;
        break;
    case S_URL_ENCODE:
    case S_URL_DECODE:
        if (n != 1)
            return weir__bad_args(f, args, n, err);
        if ((rc = weir__need_strings(a, f, args, n, 1, err)))
            return rc;
        if (fn == S_URL_DECODE)
            rt.nullable = true, flags |= F_MAYNULL;
        break;
    case S_PARSE_URL:
        if (n != 2 && n != 3)
            return weir__bad_args(f, args, n, err);
        if ((rc = weir__need_strings(a, f, args, n, n, err)))
            return rc;
        rt.nullable = true;
        flags |= F_MAYNULL;
        break;
    case S_STR_TO_MAP: {
        if (n != 1 && n != 3)
            return weir__bad_args(f, args, n, err);
        if ((rc = weir__need_strings(a, f, args, n, n, err)))
            return rc;
        xstr d, lit;
        for (uint32_t k = 1; k < n; k++)
            if (weir__lit_str(args[k], &d) && !plain_delim(d, &lit))
                return weir_error_set(err, WEIR_EUNSUPPORTED,
                                      "STR_TO_MAP: the delimiter '%.*s' is a regular expression, which weir does "
                                      "not split by; give literal text (a metacharacter escaped with one backslash)",
                                      (int)(d.len > 40 ? 40 : d.len), d.ptr);
        if (weir_type_map(tmake(WEIR_TYPE_STRING, false), tmake(WEIR_TYPE_STRING, true), weir__any_nullable(args, n),
                          &rt))
            return nomem_x(err);
        break;
    }
    case S_ENCODE:
    case S_DECODE: {
        if (n != 2)
            return weir__bad_args(f, args, n, err);
        weir_type_id want = fn == S_ENCODE ? WEIR_TYPE_STRING : WEIR_TYPE_BYTES;
        if (args[0]->type.id == WEIR_TYPE_NULL && weir__coerce(a, &args[0], tmake(want, true), err))
            return err->code;
        if (args[1]->type.id == WEIR_TYPE_NULL && weir__coerce(a, &args[1], tmake(WEIR_TYPE_STRING, true), err))
            return err->code;
        if (args[0]->type.id != want || args[1]->type.id != WEIR_TYPE_STRING)
            return weir__bad_args(f, args, n, err);
        xstr cn;
        if (weir__lit_str(args[1], &cn) && charset_of(cn) < 0)
            return weir_error_set(err, WEIR_EUNSUPPORTED,
                                  "%s: unsupported charset '%.*s' (US-ASCII, ISO-8859-1, UTF-8, UTF-16BE, UTF-16LE "
                                  "or UTF-16)",
                                  f->name, (int)(cn.len > 40 ? 40 : cn.len), cn.ptr);
        rt = tmake(fn == S_ENCODE ? WEIR_TYPE_BYTES : WEIR_TYPE_STRING, weir__any_nullable(args, n));
        break;
    }
    case S_TYPEOF: {
        /* TYPEOF(x [, force_serializable]): the type as text, a constant */
        if (n != 1 && n != 2)
            return weir__bad_args(f, args, n, err);
        if (n == 2 && (args[1]->kind != N_LITERAL || args[1]->type.id != WEIR_TYPE_BOOLEAN))
            return weir_error_set(err, WEIR_EPLAN, "TYPEOF: the second argument must be a BOOLEAN literal");
        char name[256];
        if (args[0]->type.id == WEIR_TYPE_NULL)
            snprintf(name, sizeof name, "NULL");
        else
            weir__tname(args[0], name, sizeof name);
        size_t len = strlen(name);
        if (args[0]->type.id != WEIR_TYPE_NULL && !args[0]->type.nullable)
            len += (size_t)snprintf(name + len, sizeof name - len, " NOT NULL");
        *out = weir_expr_lit_string(a, name, len < sizeof name ? len : sizeof name - 1);
        return *out ? 0 : nomem_x(err);
    }
    }
    *out = weir__call_node(a, f, args, n, rt, strx_kernel, flags);
    if (!*out)
        return nomem_x(err);
    (*out)->p0 = fn;
    return 0;
}

const xfunc weir__funcs_strx[] = {
    {"OVERLAY", "OVERLAY(STRING PLACING STRING FROM INT [FOR INT])", bind_strx, S_OVERLAY},
    {"CHR", "CHR(INT)", bind_strx, S_CHR},
    {"TRANSLATE", "TRANSLATE(STRING, STRING, STRING)", bind_strx, S_TRANSLATE},
    {"ELT", "ELT(INT, STRING, STRING...) or ELT(INT, BYTES, BYTES...)", bind_strx, S_ELT},
    {"SUBSTRING_INDEX", "SUBSTRING_INDEX(STRING, STRING, INT) or (BYTES, BYTES, INT)", bind_strx, S_SUBSTR_INDEX},
    {"IS_ALPHA", "IS_ALPHA(STRING)", bind_strx, S_IS_ALPHA},
    {"IS_DIGIT", "IS_DIGIT(STRING)", bind_strx, S_IS_DIGIT},
    {"IS_DECIMAL", "IS_DECIMAL(STRING)", bind_strx, S_IS_DECIMAL},
    {"URL_ENCODE", "URL_ENCODE(STRING)", bind_strx, S_URL_ENCODE},
    {"URL_DECODE", "URL_DECODE(STRING)", bind_strx, S_URL_DECODE},
    {"PARSE_URL", "PARSE_URL(STRING, STRING [, STRING])", bind_strx, S_PARSE_URL},
    {"STR_TO_MAP", "STR_TO_MAP(STRING [, STRING, STRING])", bind_strx, S_STR_TO_MAP},
    {"ENCODE", "ENCODE(STRING, STRING)", bind_strx, S_ENCODE},
    {"DECODE", "DECODE(BYTES, STRING)", bind_strx, S_DECODE},
    {"TYPEOF", "TYPEOF(any [, BOOLEAN])", bind_strx, S_TYPEOF},
    {NULL, NULL, NULL, 0},
};
