/*
 * expr/f_string.c - string functions.
 *
 * Strings are UTF-8. Positions and lengths count characters (code points),
 * 1-based as in SQL; a character is never split. Results are written into
 * the evaluation's scratch memory and copied into the output batch at the
 * end. NULL in any argument gives NULL unless a function's comment says
 * otherwise (CONCAT_WS skips NULL values).
 */
#include <locale.h>
#include <stdio.h>
#include <strings.h>
#include <wctype.h>

#include "expr/expr_internal.h"

static int nomem_b(weir_error *err) { return weir_error_set(err, WEIR_ENOMEM, "out of memory"); }
static int oom(ecx *cx) { return weir_error_set(cx->err, WEIR_ENOMEM, "out of memory"); }

/* ---- UTF-8 helpers ---- */

static inline uint32_t u8len(unsigned char c)
{
    return c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
}

/* Number of characters; invalid bytes count as one character each. */
static uint32_t nchars(xstr s)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < s.len; i++)
        n += ((unsigned char)s.ptr[i] & 0xC0) != 0x80;
    return n;
}

/* Byte offset of character k (clamped to the end). */
static uint32_t char_off(xstr s, uint32_t k)
{
    uint32_t i = 0;
    while (k > 0 && i < s.len) {
        i += u8len((unsigned char)s.ptr[i]);
        k--;
    }
    return i > s.len ? s.len : i;
}

static uint32_t decode(const char *p, uint32_t len, uint32_t *cp)
{
    unsigned char c = (unsigned char)p[0];
    uint32_t n = u8len(c);
    if (n > len || n == 1) {
        *cp = c;
        return 1;
    }
    uint32_t v = c & (0x7F >> n);
    for (uint32_t k = 1; k < n; k++) {
        if (((unsigned char)p[k] & 0xC0) != 0x80) {
            *cp = c;
            return 1;
        }
        v = (v << 6) | ((unsigned char)p[k] & 0x3F);
    }
    *cp = v;
    return n;
}

static uint32_t encode(uint32_t cp, char *o)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xC0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

uint32_t weir__utf8_decode(const char *p, uint32_t len, uint32_t *cp) { return decode(p, len, cp); }
uint32_t weir__utf8_encode(uint32_t cp, char *o) { return encode(cp, o); }
uint32_t weir__utf8_nchars(xstr s) { return nchars(s); }
uint32_t weir__utf8_off(xstr s, uint32_t k) { return char_off(s, k); }

/* Unicode case mapping through the C.UTF-8 locale (ASCII fast path). */
static locale_t utf8_locale(void)
{
    static locale_t loc;
    static int tried;
    if (!__atomic_load_n(&tried, __ATOMIC_ACQUIRE)) {
        locale_t l = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
        loc = l;
        __atomic_store_n(&tried, 1, __ATOMIC_RELEASE);
    }
    return loc;
}

static uint32_t to_upper(uint32_t cp)
{
    if (cp < 0x80)
        return cp >= 'a' && cp <= 'z' ? cp - 32 : cp;
    locale_t l = utf8_locale();
    return l ? (uint32_t)towupper_l((wint_t)cp, l) : cp;
}

uint32_t weir__upper_cp(uint32_t cp) { return to_upper(cp); }

static uint32_t to_lower(uint32_t cp)
{
    if (cp < 0x80)
        return cp >= 'A' && cp <= 'Z' ? cp + 32 : cp;
    locale_t l = utf8_locale();
    return l ? (uint32_t)towlower_l((wint_t)cp, l) : cp;
}

static bool is_alnum_cp(uint32_t cp)
{
    if (cp < 0x80)
        return (cp >= '0' && cp <= '9') || ((cp | 32) >= 'a' && (cp | 32) <= 'z');
    locale_t l = utf8_locale();
    return l && iswalnum_l((wint_t)cp, l);
}

/* Finds needle in hay from byte offset `from`; returns byte offset or -1. */
static int64_t find(xstr hay, xstr needle, uint32_t from)
{
    if (needle.len == 0)
        return from <= hay.len ? (int64_t)from : -1;
    if (needle.len > hay.len)
        return -1;
    const char *p = hay.ptr + from, *end = hay.ptr + hay.len - needle.len;
    while (p <= end) {
        const char *q = memchr(p, needle.ptr[0], (size_t)(end - p) + 1);
        if (!q)
            return -1;
        if (!memcmp(q, needle.ptr, needle.len))
            return q - hay.ptr;
        p = q + 1;
    }
    return -1;
}

#define STR(k) (((const xstr *)a[k].data)[i])
#define I32(k) (((const int32_t *)a[k].data)[i])
#define OUT(i) (((xstr *)out->data)[i])
#define OUTI(i) (((int32_t *)out->data)[i])

/* ---- binders ---- */

/* Checks/coerces each argument against a spec string: 'S' string, 'I' INT, 'B' BIGINT, 'b' BYTES, '*' any. */
static int want(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, const char *spec, uint32_t min_n,
                weir_error *err)
{
    if (n < min_n || n > strlen(spec))
        return weir__bad_args(f, args, n, err);
    for (uint32_t k = 0; k < n; k++) {
        weir_type_id want_id;
        switch (spec[k]) {
        case 'S': want_id = WEIR_TYPE_STRING; break;
        case 'I': want_id = WEIR_TYPE_INT; break;
        case 'B': want_id = WEIR_TYPE_BIGINT; break;
        default: continue;
        }
        weir_type t = tmake(want_id, args[k]->type.nullable || args[k]->type.id == WEIR_TYPE_NULL);
        /* INT arguments also accept BIGINT values (positions, lengths). */
        if (want_id == WEIR_TYPE_INT && args[k]->type.id == WEIR_TYPE_BIGINT && !args[k]->iv) {
            if (weir__build_cast(a, args[k], t, false, true, &args[k], err))
                return err->code;
            continue;
        }
        if (!weir__implicit_ok(args[k], t) ||
            (want_id == WEIR_TYPE_STRING && args[k]->type.id != WEIR_TYPE_STRING && args[k]->type.id != WEIR_TYPE_NULL))
            return weir__bad_args(f, args, n, err);
        if (weir__coerce(a, &args[k], t, err))
            return err->code;
    }
    return 0;
}

static int simple(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out, weir_error *err,
                  const char *spec, uint32_t min_n, weir_type_id rt, xkernel fn, uint8_t extra_flags)
{
    int rc = want(a, f, args, n, spec, min_n, err);
    if (rc)
        return rc;
    bool nullable = weir__any_nullable(args, n) || (extra_flags & F_MAYNULL);
    *out = weir__call_node(a, f, args, n, tmake(rt, nullable), fn, F_STRICT | extra_flags);
    return *out ? 0 : nomem_b(err);
}

/* ---- concatenation ---- */

static int concat_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    for (uint32_t i = 0; i < n; i++) {
        if (!x_live(out, act, i))
            continue;
        size_t len = 0;
        for (uint32_t k = 0; k < e->n_args; k++)
            len += STR(k).len;
        char *p = x_str(cx, len);
        if (!p)
            return oom(cx);
        size_t off = 0;
        for (uint32_t k = 0; k < e->n_args; k++) {
            if (STR(k).len)
                memcpy(p + off, STR(k).ptr, STR(k).len);
            off += STR(k).len;
        }
        OUT(i) = (xstr){p, (uint32_t)len};
    }
    return 0;
}

static int bind_concat(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                       weir_error *err)
{
    if (n < 1 || (f->param && n != 2))
        return weir__bad_args(f, args, n, err);
    for (uint32_t k = 0; k < n; k++)
        if (args[k]->type.id != WEIR_TYPE_STRING && args[k]->type.id != WEIR_TYPE_NULL)
            return weir__bad_args(f, args, n, err);
    return simple(a, f, args, n, out, err, "SSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSS", 1,
                  WEIR_TYPE_STRING, concat_kernel, 0);
}

/* CONCAT_WS(sep, s1, ...): NULL values are skipped; NULL separator gives NULL. */
static int concat_ws_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    for (uint32_t i = 0; i < n; i++) {
        if (!(act == NULL || act[i]))
            continue;
        if (a[0].nulls && a[0].nulls[i]) {
            x_setnull(cx, out, i);
            continue;
        }
        xstr sep = STR(0);
        size_t len = 0;
        uint32_t cnt = 0;
        for (uint32_t k = 1; k < e->n_args; k++)
            if (!(a[k].nulls && a[k].nulls[i]))
                len += STR(k).len, cnt++;
        len += cnt ? (size_t)(cnt - 1) * sep.len : 0;
        char *p = x_str(cx, len);
        if (!p)
            return oom(cx);
        size_t off = 0;
        bool first = true;
        for (uint32_t k = 1; k < e->n_args; k++) {
            if (a[k].nulls && a[k].nulls[i])
                continue;
            if (!first && sep.len) {
                memcpy(p + off, sep.ptr, sep.len);
                off += sep.len;
            }
            first = false;
            if (STR(k).len)
                memcpy(p + off, STR(k).ptr, STR(k).len);
            off += STR(k).len;
        }
        OUT(i) = (xstr){p, (uint32_t)len};
    }
    return 0;
}

static int bind_concat_ws(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                          weir_error *err)
{
    if (n < 2)
        return weir__bad_args(f, args, n, err);
    int rc = want(a, f, args, n, "SSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSS", 2, err);
    if (rc)
        return rc;
    *out = weir__call_node(a, f, args, n, tmake(WEIR_TYPE_STRING, args[0]->type.nullable), concat_ws_kernel, 0);
    return *out ? 0 : nomem_b(err);
}

/* ---- case and length ---- */

static int case_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    bool up = e->p0 == 1, initcap = e->p0 == 2;
    for (uint32_t i = 0; i < n; i++) {
        if (!x_live(out, act, i))
            continue;
        xstr s = STR(0);
        /* The ASCII prefix that the case mapping leaves as it is (all of a
         * string already in the wanted case, as channel names usually are)
         * is not copied: a string that is all such prefix is returned as is. */
        uint32_t keep = 0;
        if (!initcap) {
            char lo = up ? 'a' : 'A', hi = up ? 'z' : 'Z';
            while (keep < s.len && (unsigned char)s.ptr[keep] < 0x80 && !(s.ptr[keep] >= lo && s.ptr[keep] <= hi))
                keep++;
            if (keep == s.len) {
                OUT(i) = s;
                continue;
            }
        }
        char *p = x_str(cx, (size_t)s.len * 2);
        if (!p)
            return oom(cx);
        memcpy(p, s.ptr, keep);
        uint32_t o = keep;
        bool word_start = true;
        for (uint32_t j = keep; j < s.len;) {
            unsigned char c = (unsigned char)s.ptr[j];
            if (c < 0x80 && !initcap) {
                p[o++] = (char)(up ? (c >= 'a' && c <= 'z' ? c - 32 : c) : (c >= 'A' && c <= 'Z' ? c + 32 : c));
                j++;
                continue;
            }
            uint32_t cp;
            j += decode(s.ptr + j, s.len - j, &cp);
            uint32_t m;
            if (initcap) {
                bool al = is_alnum_cp(cp);
                m = al && word_start ? to_upper(cp) : to_lower(cp);
                word_start = !al;
            } else {
                m = up ? to_upper(cp) : to_lower(cp);
            }
            o += encode(m, p + o);
        }
        OUT(i) = (xstr){p, o};
    }
    return 0;
}

static int bind_case(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out, weir_error *err)
{
    int rc = simple(a, f, args, n, out, err, "S", 1, WEIR_TYPE_STRING, case_kernel, 0);
    if (!rc)
        (*out)->p0 = f->param;
    return rc;
}

static int char_length_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    (void)cx, (void)e, (void)act;
    for (uint32_t i = 0; i < n; i++)
        OUTI(i) = (int32_t)nchars(STR(0));
    return 0;
}

static int bind_char_length(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                            weir_error *err)
{
    return simple(a, f, args, n, out, err, "S", 1, WEIR_TYPE_INT, char_length_kernel, 0);
}

/* ---- SUBSTRING ---- */

static int substring_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    for (uint32_t i = 0; i < n; i++) {
        if (!x_live(out, act, i))
            continue;
        xstr s = STR(0);
        int64_t pos = I32(1);
        int64_t len = e->n_args > 2 ? I32(2) : INT32_MAX;
        if (len < 0) {
            x_setnull(cx, out, i); /* Flink: a negative length gives NULL */
            continue;
        }
        uint32_t b0, b1;
        if (pos >= 0) {
            /* Walk from the front: no need to count every character. */
            b0 = char_off(s, (uint32_t)(pos > 0 ? pos - 1 : 0));
            if (b0 >= s.len) {
                OUT(i) = (xstr){"", 0};
                continue;
            }
            b1 = len >= (int64_t)(s.len - b0) ? s.len : b0 + char_off((xstr){s.ptr + b0, s.len - b0}, (uint32_t)len);
        } else {
            int64_t nc = nchars(s), start = nc + pos;
            if (start < 0) {
                OUT(i) = (xstr){"", 0};
                continue;
            }
            int64_t end = nc - start < len ? nc : start + len;
            b0 = char_off(s, (uint32_t)start);
            b1 = b0 + char_off((xstr){s.ptr + b0, s.len - b0}, (uint32_t)(end - start));
        }
        OUT(i) = (xstr){s.ptr + b0, b1 - b0}; /* a view into the argument: copied when stored */
    }
    return 0;
}

static int bind_substring(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                          weir_error *err)
{
    return simple(a, f, args, n, out, err, "SII", 2, WEIR_TYPE_STRING, substring_kernel, F_MAYNULL);
}

/* ---- TRIM family ---- */

static bool in_set(xstr set, uint32_t cp)
{
    for (uint32_t j = 0; j < set.len;) {
        uint32_t c;
        j += decode(set.ptr + j, set.len - j, &c);
        if (c == cp)
            return true;
    }
    return false;
}

/* p0: 1 leading, 2 trailing, 3 both. Args: str [, chars]. */
static int trim_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    (void)cx;
    for (uint32_t i = 0; i < n; i++) {
        if (!x_live(out, act, i))
            continue;
        xstr s = STR(0);
        xstr set = e->n_args > 1 ? STR(1) : (xstr){" ", 1};
        uint32_t b = 0, en = s.len;
        if (e->p0 & 1)
            while (b < en) {
                uint32_t cp, k = decode(s.ptr + b, en - b, &cp);
                if (!in_set(set, cp))
                    break;
                b += k;
            }
        if (e->p0 & 2)
            while (en > b) {
                uint32_t st = en - 1;
                while (st > b && ((unsigned char)s.ptr[st] & 0xC0) == 0x80)
                    st--;
                uint32_t cp;
                decode(s.ptr + st, en - st, &cp);
                if (!in_set(set, cp))
                    break;
                en = st;
            }
        OUT(i) = (xstr){s.ptr + b, en - b};
    }
    return 0;
}

/* TRIM(s) or TRIM('BOTH'|'LEADING'|'TRAILING', chars, s). */
static int bind_trim(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                     weir_error *err)
{
    int mode = (int)f->param;
    if (mode == 0) {
        if (n != 1 && n != 3)
            return weir__bad_args(f, args, n, err);
        mode = 3;
        if (n == 3) {
            weir_value v;
            if (weir_expr_literal_value(args[0], &v) || v.type.id != WEIR_TYPE_STRING || v.is_null)
                return weir__bad_args(f, args, n, err);
            if (v.v.s.len == 4 && !strncasecmp(v.v.s.ptr, "BOTH", 4))
                mode = 3;
            else if (v.v.s.len == 7 && !strncasecmp(v.v.s.ptr, "LEADING", 7))
                mode = 1;
            else if (v.v.s.len == 8 && !strncasecmp(v.v.s.ptr, "TRAILING", 8))
                mode = 2;
            else
                return weir_error_set(err, WEIR_EPLAN, "TRIM mode must be BOTH, LEADING or TRAILING, not '%.*s'",
                                      (int)v.v.s.len, v.v.s.ptr);
            args[0] = args[2]; /* reorder to (str, chars) */
            n = 2;
        }
    }
    int rc = simple(a, f, args, n, out, err, "SS", 1, WEIR_TYPE_STRING, trim_kernel, 0);
    if (!rc)
        (*out)->p0 = mode;
    return rc;
}

/* ---- REPLACE, POSITION, LOCATE, INSTR ---- */

static int replace_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    (void)e;
    for (uint32_t i = 0; i < n; i++) {
        if (!x_live(out, act, i))
            continue;
        xstr s = STR(0), from = STR(1), to = STR(2);
        if (from.len == 0) {
            /* Java's String.replace("", r) puts r around every character. */
            uint32_t nc = nchars(s);
            size_t len = s.len + (size_t)(nc + 1) * to.len;
            char *p = x_str(cx, len);
            if (!p)
                return oom(cx);
            size_t o = 0;
            for (uint32_t j = 0;;) {
                if (to.len)
                    memcpy(p + o, to.ptr, to.len);
                o += to.len;
                if (j >= s.len)
                    break;
                uint32_t k = u8len((unsigned char)s.ptr[j]);
                if (j + k > s.len)
                    k = s.len - j;
                memcpy(p + o, s.ptr + j, k);
                o += k;
                j += k;
            }
            OUT(i) = (xstr){p, (uint32_t)o};
            continue;
        }
        uint32_t cnt = 0;
        for (int64_t at = find(s, from, 0); at >= 0; at = find(s, from, (uint32_t)at + from.len))
            cnt++;
        if (!cnt) {
            OUT(i) = s;
            continue;
        }
        size_t len = s.len + (size_t)cnt * to.len - (size_t)cnt * from.len;
        char *p = x_str(cx, len);
        if (!p)
            return oom(cx);
        size_t o = 0;
        uint32_t prev = 0;
        for (int64_t at = find(s, from, 0); at >= 0; at = find(s, from, (uint32_t)at + from.len)) {
            memcpy(p + o, s.ptr + prev, (size_t)at - prev);
            o += (size_t)at - prev;
            if (to.len)
                memcpy(p + o, to.ptr, to.len);
            o += to.len;
            prev = (uint32_t)at + from.len;
        }
        memcpy(p + o, s.ptr + prev, s.len - prev);
        OUT(i) = (xstr){p, (uint32_t)len};
    }
    return 0;
}

static int bind_replace(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                        weir_error *err)
{
    return simple(a, f, args, n, out, err, "SSS", 3, WEIR_TYPE_STRING, replace_kernel, 0);
}

/* Character position (1-based) of needle in hay at or after character `from` (1-based); 0 if none. */
static int32_t char_index(xstr hay, xstr needle, int64_t from)
{
    if (from < 1)
        return 0;
    uint32_t b = char_off(hay, (uint32_t)(from - 1));
    if (from - 1 > (int64_t)nchars(hay))
        return 0;
    int64_t at = find(hay, needle, b);
    if (at < 0)
        return 0;
    return (int32_t)nchars((xstr){hay.ptr, (uint32_t)at}) + 1;
}

/* p0 = 0: POSITION(needle, hay); 1: LOCATE(needle, hay [, from]). */
static int position_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    (void)cx, (void)act;
    for (uint32_t i = 0; i < n; i++) {
        if (out->nulls && out->nulls[i])
            continue;
        int64_t from = e->n_args > 2 ? I32(2) : 1;
        OUTI(i) = char_index(STR(1), STR(0), from);
    }
    return 0;
}

static int bind_position(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                         weir_error *err)
{
    return simple(a, f, args, n, out, err, f->param ? "SSI" : "SS", 2, WEIR_TYPE_INT, position_kernel, 0);
}

/* INSTR(str, sub [, start [, nth]]): negative start searches backwards from the end. */
static int instr_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    for (uint32_t i = 0; i < n; i++) {
        if (!x_live(out, act, i))
            continue;
        xstr s = STR(0), sub = STR(1);
        int64_t start = e->n_args > 2 ? I32(2) : 1, nth = e->n_args > 3 ? I32(3) : 1;
        if (nth <= 0)
            return weir__x_fail(cx, i, "INSTR: the occurrence must be positive, not %lld", (long long)nth);
        int32_t r = 0;
        if (start > 0) {
            int64_t from = start;
            for (int64_t k = 0; k < nth; k++) {
                r = char_index(s, sub, from);
                if (!r)
                    break;
                from = r + 1;
            }
        } else if (start < 0) {
            /* Scan backwards: the k-th match whose start is at or before character nc + start + 1. */
            int64_t nc = nchars(s), ns = nchars(sub);
            int64_t last = nc + start + 1 - ns + 1; /* latest allowed 1-based start */
            int64_t found = 0;
            for (int64_t p = last; p >= 1 && found < nth; p--) {
                uint32_t b = char_off(s, (uint32_t)(p - 1));
                if (b + sub.len <= s.len && !memcmp(s.ptr + b, sub.ptr, sub.len)) {
                    found++;
                    if (found == nth)
                        r = (int32_t)p;
                }
            }
        }
        OUTI(i) = r;
    }
    return 0;
}

static int bind_instr(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                      weir_error *err)
{
    return simple(a, f, args, n, out, err, "SSII", 2, WEIR_TYPE_INT, instr_kernel, 0);
}

/* ---- padding, repetition, reversal ---- */

static int pad_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    bool left = e->p0 == 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!x_live(out, act, i))
            continue;
        xstr s = STR(0), pad = STR(2);
        int64_t len = I32(1);
        if (len < 0 || pad.len == 0) {
            x_setnull(cx, out, i);
            continue;
        }
        uint32_t nc = nchars(s), np = nchars(pad);
        if (len <= nc) {
            uint32_t b = left ? char_off(s, (uint32_t)len) : char_off(s, (uint32_t)len);
            OUT(i) = (xstr){s.ptr, b};
            continue;
        }
        uint32_t need = (uint32_t)len - nc;
        /* Bytes of `need` pad characters cycling through pad. */
        size_t full = need / np, rest = need % np;
        size_t rest_b = char_off(pad, (uint32_t)rest);
        size_t bytes = full * pad.len + rest_b + s.len;
        if (bytes > (1u << 30))
            return weir__x_fail(cx, i, "%s result too long", left ? "LPAD" : "RPAD");
        char *p = x_str(cx, bytes);
        if (!p)
            return oom(cx);
        size_t o = 0;
        if (!left) {
            memcpy(p, s.ptr, s.len);
            o = s.len;
        }
        for (size_t k = 0; k < full; k++, o += pad.len)
            memcpy(p + o, pad.ptr, pad.len);
        memcpy(p + o, pad.ptr, rest_b);
        o += rest_b;
        if (left) {
            memcpy(p + o, s.ptr, s.len);
            o += s.len;
        }
        OUT(i) = (xstr){p, (uint32_t)o};
    }
    return 0;
}

static int bind_pad(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out, weir_error *err)
{
    int rc = simple(a, f, args, n, out, err, "SIS", 3, WEIR_TYPE_STRING, pad_kernel, F_MAYNULL);
    if (!rc)
        (*out)->p0 = f->param;
    return rc;
}

static int repeat_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    (void)e;
    for (uint32_t i = 0; i < n; i++) {
        if (!x_live(out, act, i))
            continue;
        xstr s = STR(0);
        int64_t k = I32(1);
        if (k <= 0 || s.len == 0) {
            OUT(i) = (xstr){"", 0};
            continue;
        }
        if ((uint64_t)k * s.len > (1u << 30))
            return weir__x_fail(cx, i, "REPEAT result too long");
        char *p = x_str(cx, (size_t)k * s.len);
        if (!p)
            return oom(cx);
        for (int64_t j = 0; j < k; j++)
            memcpy(p + j * s.len, s.ptr, s.len);
        OUT(i) = (xstr){p, (uint32_t)(k * s.len)};
    }
    return 0;
}

static int bind_repeat(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                       weir_error *err)
{
    return simple(a, f, args, n, out, err, "SI", 2, WEIR_TYPE_STRING, repeat_kernel, 0);
}

static int reverse_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    (void)e;
    for (uint32_t i = 0; i < n; i++) {
        if (!x_live(out, act, i))
            continue;
        xstr s = STR(0);
        char *p = x_str(cx, s.len);
        if (!p)
            return oom(cx);
        uint32_t o = s.len;
        for (uint32_t j = 0; j < s.len;) {
            uint32_t k = u8len((unsigned char)s.ptr[j]);
            if (j + k > s.len)
                k = s.len - j;
            o -= k;
            memcpy(p + o, s.ptr + j, k);
            j += k;
        }
        OUT(i) = (xstr){p, s.len};
    }
    return 0;
}

static int bind_reverse(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                        weir_error *err)
{
    return simple(a, f, args, n, out, err, "S", 1, WEIR_TYPE_STRING, reverse_kernel, 0);
}

/* ---- SPLIT_INDEX ---- */

/* Splits on the whole separator keeping empty tokens; an empty separator splits on whitespace. */
static int split_index_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    bool by_char = e->args[1]->type.id == WEIR_TYPE_INT;
    for (uint32_t i = 0; i < n; i++) {
        if (!x_live(out, act, i))
            continue;
        xstr s = STR(0);
        int64_t idx = I32(2);
        char cbuf[1];
        xstr sep;
        if (by_char) {
            int32_t c = I32(1);
            if (c < 1 || c > 255) {
                x_setnull(cx, out, i);
                continue;
            }
            cbuf[0] = (char)c;
            sep = (xstr){cbuf, 1};
        } else {
            sep = STR(1);
        }
        if (idx < 0 || s.len == 0) {
            x_setnull(cx, out, i);
            continue;
        }
        int64_t k = 0;
        uint32_t start = 0;
        bool found = false;
        for (;;) {
            uint32_t end, next;
            if (sep.len == 0) {
                end = start;
                while (end < s.len && !(s.ptr[end] == ' ' || (s.ptr[end] >= '\t' && s.ptr[end] <= '\r')))
                    end++;
                next = end + 1;
            } else {
                int64_t at = find(s, sep, start);
                end = at < 0 ? s.len : (uint32_t)at;
                next = end + sep.len;
            }
            if (k == idx) {
                OUT(i) = (xstr){s.ptr + start, end - start};
                found = true;
                break;
            }
            if (end >= s.len)
                break;
            start = next;
            k++;
        }
        if (!found)
            x_setnull(cx, out, i);
    }
    return 0;
}

static int bind_split_index(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                            weir_error *err)
{
    const char *spec = n == 3 && (args[1]->type.id == WEIR_TYPE_INT) ? "SII" : "SSI";
    return simple(a, f, args, n, out, err, spec, 3, WEIR_TYPE_STRING, split_index_kernel, F_MAYNULL);
}

/* ---- HASH_CODE ---- */

/* Math.abs(String.hashCode()) over the string's UTF-16 code units, as Flink computes it. */
static int hash_code_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    (void)cx, (void)e, (void)act;
    for (uint32_t i = 0; i < n; i++) {
        xstr s = STR(0);
        uint32_t h = 0;
        for (uint32_t j = 0; j < s.len;) {
            uint32_t cp;
            j += decode(s.ptr + j, s.len - j, &cp);
            if (cp >= 0x10000) {
                cp -= 0x10000;
                h = 31 * h + (0xD800 + (cp >> 10));
                h = 31 * h + (0xDC00 + (cp & 0x3FF));
            } else {
                h = 31 * h + cp;
            }
        }
        int32_t v = (int32_t)h;
        OUTI(i) = v == INT32_MIN ? v : (v < 0 ? -v : v);
    }
    return 0;
}

static int bind_hash_code(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                          weir_error *err)
{
    return simple(a, f, args, n, out, err, "S", 1, WEIR_TYPE_INT, hash_code_kernel, 0);
}

/* ---- ASCII, CHR ---- */

static int ascii_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    (void)cx, (void)e, (void)act;
    for (uint32_t i = 0; i < n; i++)
        OUTI(i) = STR(0).len ? (unsigned char)STR(0).ptr[0] : 0;
    return 0;
}

static int bind_ascii(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                      weir_error *err)
{
    return simple(a, f, args, n, out, err, "S", 1, WEIR_TYPE_INT, ascii_kernel, 0);
}

const xfunc weir__funcs_string[] = {
    {"||", "STRING || STRING", bind_concat, 1},
    {"CONCAT", "CONCAT(STRING, ...)", bind_concat, 0},
    {"CONCAT_WS", "CONCAT_WS(STRING separator, STRING, ...)", bind_concat_ws, 0},
    {"LOWER", "LOWER(STRING)", bind_case, 0},
    {"UPPER", "UPPER(STRING)", bind_case, 1},
    {"INITCAP", "INITCAP(STRING)", bind_case, 2},
    {"CHAR_LENGTH", "CHAR_LENGTH(STRING)", bind_char_length, 0},
    {"CHARACTER_LENGTH", "CHARACTER_LENGTH(STRING)", bind_char_length, 0},
    {"LENGTH", "LENGTH(STRING)", bind_char_length, 0},
    {"SUBSTRING", "SUBSTRING(STRING, INT [, INT])", bind_substring, 0},
    {"SUBSTR", "SUBSTR(STRING, INT [, INT])", bind_substring, 0},
    {"TRIM", "TRIM([BOTH|LEADING|TRAILING] [STRING] FROM STRING)", bind_trim, 0},
    {"LTRIM", "LTRIM(STRING [, STRING])", bind_trim, 1},
    {"RTRIM", "RTRIM(STRING [, STRING])", bind_trim, 2},
    {"BTRIM", "BTRIM(STRING [, STRING])", bind_trim, 3},
    {"REPLACE", "REPLACE(STRING, STRING, STRING)", bind_replace, 0},
    {"POSITION", "POSITION(STRING IN STRING)", bind_position, 0},
    {"LOCATE", "LOCATE(STRING, STRING [, INT])", bind_position, 1},
    {"INSTR", "INSTR(STRING, STRING [, INT [, INT]])", bind_instr, 0},
    {"LPAD", "LPAD(STRING, INT, STRING)", bind_pad, 0},
    {"RPAD", "RPAD(STRING, INT, STRING)", bind_pad, 1},
    {"REPEAT", "REPEAT(STRING, INT)", bind_repeat, 0},
    {"REVERSE", "REVERSE(STRING)", bind_reverse, 0},
    {"SPLIT_INDEX", "SPLIT_INDEX(STRING, STRING, INT)", bind_split_index, 0},
    {"HASH_CODE", "HASH_CODE(STRING)", bind_hash_code, 0},
    {"ASCII", "ASCII(STRING)", bind_ascii, 0},
    {NULL, NULL, NULL, 0},
};
