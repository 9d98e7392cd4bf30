/*
 * expr/f_regex_posix.c - SIMILAR TO, REGEXP, REGEXP_EXTRACT, REGEXP_REPLACE
 * on the C library's POSIX engine: the fallback when weir is built without
 * PCRE2 (f_regex.c is the PCRE2 version; LIKE is in f_like.c).
 *
 * Regular expressions are written in Java's syntax (as in Flink) and
 * translated to POSIX extended regular expressions for the C library's
 * regex engine: \d \w \s (and their negations) become bracket classes,
 * (?:...) becomes a group whose number is hidden from the user, a leading
 * (?i) sets case-insensitive matching. Java constructs with no POSIX
 * equivalent (lazy or possessive quantifiers, look-around, back-references,
 * \b, \Q...\E, named groups, class intersections) are refused when the
 * expression is built, with a message naming the construct: a pattern never
 * silently means something else. Matching is leftmost-longest (POSIX) where
 * Java is leftmost-first: alternatives such as (a|ab) can pick a longer
 * match than Java would. Matching works on bytes: '.' matches one byte.
 *
 * A literal pattern is compiled once when the expression is built; a
 * pattern computed per row is compiled when it changes from the previous
 * row. REGEXP_COUNT, REGEXP_INSTR, REGEXP_SUBSTR, REGEXP_EXTRACT_ALL and
 * REGEXP_SPLIT need PCRE2 and are
 * refused here.
 */
#ifndef WEIR_HAVE_PCRE2
#include <regex.h>
#include <stdio.h>
#include <strings.h>

#include "expr/expr_internal.h"

#define MAX_GROUPS 32

static int oom(ecx *cx) { return weir_error_set(cx->err, WEIR_ENOMEM, "out of memory"); }

typedef struct xregex {
    regex_t re;
    bool compiled;
    int n_java;              /* capturing groups the user can refer to */
    int map[MAX_GROUPS + 1]; /* Java group -> POSIX group */
} xregex;

typedef struct tbuf {
    char *p;
    size_t len, cap;
} tbuf;

static int tput(tbuf *b, const char *s, size_t n)
{
    if (n > SIZE_MAX / 4 - b->len)
        return -1;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 64;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = weir_realloc(b->p, cap);
        if (!p)
            return -1;
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
    return 0;
}
static int tputc(tbuf *b, char c) { return tput(b, &c, 1); }

static bool ere_special(char c) { return c && strchr(".[]()*+?{}|^$\\", c) != NULL; }

/* Emits a literal byte outside brackets. */
static int lit_byte(tbuf *b, char c)
{
    if (ere_special(c) && tputc(b, '\\'))
        return -1;
    return tputc(b, c);
}

static const char *esc_class(char c, bool in_bracket)
{
    switch (c) {
    case 'd': return in_bracket ? "0-9" : "[0-9]";
    case 'w': return in_bracket ? "[:alnum:]_" : "[[:alnum:]_]";
    case 's': return in_bracket ? "[:space:]" : "[[:space:]]";
    case 'D': return in_bracket ? NULL : "[^0-9]";
    case 'W': return in_bracket ? NULL : "[^[:alnum:]_]";
    case 'S': return in_bracket ? NULL : "[^[:space:]]";
    default: return NULL;
    }
}

static int esc_char(char c)
{
    switch (c) {
    case 't': return '\t';
    case 'n': return '\n';
    case 'r': return '\r';
    case 'f': return '\f';
    case 'a': return '\a';
    case 'e': return 27;
    case '0': return 0;
    default: return -1;
    }
}

/* Translates a Java regex into POSIX ERE. Returns 0, or -1 with msg set. */
static int translate(const char *p, size_t len, tbuf *o, xregex *rx, int *cflags, char *msg, size_t msgcap)
{
    int posix = 0;
    size_t i = 0;
    if (len >= 4 && !memcmp(p, "(?i)", 4)) {
        *cflags |= REG_ICASE;
        i = 4;
    }
    while (i < len) {
        char c = p[i];
        if (c == '\\') {
            if (i + 1 >= len) {
                snprintf(msg, msgcap, "pattern ends with a backslash");
                return -1;
            }
            char d = p[i + 1];
            i += 2;
            const char *cls = esc_class(d, false);
            if (cls) {
                if (tput(o, cls, strlen(cls)))
                    goto nomem;
                continue;
            }
            int ec = esc_char(d);
            if (ec >= 0) {
                if (ec == 0) {
                    snprintf(msg, msgcap, "NUL characters in patterns are not supported");
                    return -1;
                }
                if (lit_byte(o, (char)ec))
                    goto nomem;
                continue;
            }
            if ((d >= '1' && d <= '9') || strchr("bBAzZGQEpPkXRhHvVuxc", d)) {
                snprintf(msg, msgcap, "'\\%c' is not supported in weir's regular expressions", d);
                return -1;
            }
            if (lit_byte(o, d))
                goto nomem;
            continue;
        }
        if (c == '[') {
            /* Bracket expression: collect members, then emit in POSIX order. */
            size_t j = i + 1;
            bool neg = false, has_rb = false, has_dash = false;
            tbuf mem = {0};
            if (j < len && p[j] == '^')
                neg = true, j++;
            bool first = true;
            while (j < len && (p[j] != ']' || first)) {
                char m = p[j];
                first = false;
                if (m == '[' && j + 1 < len && p[j + 1] == ':') {
                    const char *end = memchr(p + j, ']', len - j);
                    if (!end) {
                        weir_free(mem.p);
                        snprintf(msg, msgcap, "unclosed character class");
                        return -1;
                    }
                    if (tput(&mem, p + j, (size_t)(end - (p + j)) + 1))
                        goto nomem2;
                    j = (size_t)(end - p) + 1;
                    continue;
                }
                if (m == '[' || (m == '&' && j + 1 < len && p[j + 1] == '&')) {
                    weir_free(mem.p);
                    snprintf(msg, msgcap, "nested character classes and '&&' are not supported");
                    return -1;
                }
                if (m == '\\' && j + 1 < len) {
                    char d = p[j + 1];
                    j += 2;
                    const char *cls = esc_class(d, true);
                    if (cls) {
                        if (tput(&mem, cls, strlen(cls)))
                            goto nomem2;
                        continue;
                    }
                    if (strchr("DWS", d)) {
                        weir_free(mem.p);
                        snprintf(msg, msgcap, "'\\%c' inside [...] is not supported", d);
                        return -1;
                    }
                    int ec = esc_char(d);
                    m = ec > 0 ? (char)ec : d;
                } else {
                    j++;
                }
                if (m == ']') {
                    has_rb = true;
                } else if (m == '-' && (mem.len == 0 || j >= len || p[j] == ']')) {
                    has_dash = true;
                } else if (m == '^') {
                    /* '^' must not come first in POSIX: put it after another member. */
                    if (tput(&mem, "^", 1))
                        goto nomem2;
                } else if (tputc(&mem, m)) {
                    goto nomem2;
                }
            }
            if (j >= len) {
                weir_free(mem.p);
                snprintf(msg, msgcap, "unclosed character class");
                return -1;
            }
            i = j + 1;
            int rc;
            if (!neg && !has_rb && !has_dash && mem.len == 1 && mem.p[0] == '^') {
                rc = tput(o, "\\^", 2);
            } else {
                /* '^' first would negate: move it last. */
                if (!neg && !has_rb && mem.len > 1 && mem.p[0] == '^') {
                    memmove(mem.p, mem.p + 1, mem.len - 1);
                    mem.p[mem.len - 1] = '^';
                }
                rc = tputc(o, '[') || (neg && tputc(o, '^')) || (has_rb && tputc(o, ']')) ||
                     (mem.len && tput(o, mem.p, mem.len)) || (has_dash && tputc(o, '-')) || tputc(o, ']');
            }
            weir_free(mem.p);
            if (rc)
                goto nomem;
            continue;
        nomem2:
            weir_free(mem.p);
            goto nomem;
        }
        if (c == '(') {
            if (i + 1 < len && p[i + 1] == '?') {
                if (i + 2 < len && p[i + 2] == ':') {
                    posix++;
                    i += 3;
                    if (tputc(o, '('))
                        goto nomem;
                    continue;
                }
                snprintf(msg, msgcap, "'(?%c' (look-around, flags or named groups) is not supported",
                         i + 2 < len ? p[i + 2] : ' ');
                return -1;
            }
            posix++;
            if (rx->n_java >= MAX_GROUPS) {
                snprintf(msg, msgcap, "more than %d groups", MAX_GROUPS);
                return -1;
            }
            rx->map[++rx->n_java] = posix;
            i++;
            if (tputc(o, '('))
                goto nomem;
            continue;
        }
        if (c == '*' || c == '+' || c == '?' || c == '}') {
            if (i + 1 < len && (p[i + 1] == '?' || p[i + 1] == '+') && !(c == '?' && i > 0 && p[i - 1] == '(')) {
                snprintf(msg, msgcap, "%s quantifier '%c%c' is not supported", p[i + 1] == '?' ? "lazy" : "possessive",
                         c, p[i + 1]);
                return -1;
            }
        }
        if (tputc(o, c))
            goto nomem;
        i++;
    }
    if (!o->p && tput(o, "", 0))
        goto nomem;
    return 0;
nomem:
    snprintf(msg, msgcap, "out of memory");
    return -1;
}

static void free_rx(void *p)
{
    xregex *rx = p;
    if (rx->compiled)
        regfree(&rx->re);
    weir_free(rx);
}

/* Compiles a Java-syntax pattern (or, with raw_ere, an ERE) into rx. */
static int compile(const char *pat, size_t len, bool raw_ere, int extra_flags, xregex *rx, char *msg, size_t msgcap)
{
    memset(rx, 0, sizeof *rx);
    tbuf o = {0};
    int cflags = REG_EXTENDED | extra_flags;
    if (raw_ere) {
        if (tput(&o, pat, len)) {
            snprintf(msg, msgcap, "out of memory");
            return -1;
        }
    } else if (translate(pat, len, &o, rx, &cflags, msg, msgcap)) {
        weir_free(o.p);
        return -1;
    }
    int rc = regcomp(&rx->re, o.p ? o.p : "", cflags);
    weir_free(o.p);
    if (rc) {
        char eb[128];
        regerror(rc, &rx->re, eb, sizeof eb);
        snprintf(msg, msgcap, "%s", eb);
        return -1;
    }
    rx->compiled = true;
    if (raw_ere) {
        rx->n_java = (int)rx->re.re_nsub;
        for (int k = 0; k <= rx->n_java && k <= MAX_GROUPS; k++)
            rx->map[k] = k;
    }
    return 0;
}

/*
 * Finds the first match at or after byte `from`. m[0..] are POSIX groups.
 * s must be NUL-terminated at s.len (see nul_copy): REG_STARTEND bounds the
 * search, and the terminator keeps sanitizers' strlen-based checks exact.
 */
static bool rx_find(const xregex *rx, xstr s, uint32_t from, regmatch_t *m, size_t nm)
{
    m[0].rm_so = from;
    m[0].rm_eo = s.len;
    int flags = REG_STARTEND | (from > 0 ? REG_NOTBOL : 0);
    return regexec(&rx->re, s.ptr, nm, m, flags) == 0;
}

/* A NUL-terminated copy of s in scratch memory (NULL on exhaustion). */
static bool nul_copy(ecx *cx, xstr *s)
{
    char *p = weir__x_alloc(cx, (size_t)s->len + 1);
    if (!p)
        return false;
    if (s->len)
        memcpy(p, s->ptr, s->len);
    p[s->len] = 0;
    s->ptr = p;
    return true;
}

/* ---- per-row pattern cache for non-literal patterns ---- */

typedef struct rxcache {
    xregex rx;
    xstr pat;
    bool valid, bad;
} rxcache;

/* Returns the compiled pattern for row i: the literal's, or one compiled for this row's text. */
static const xregex *row_rx(ecx *cx, const weir_expr *e, const xvec *pv, uint32_t i, rxcache *c, bool raw)
{
    if (e->aux)
        return e->aux;
    xstr p = ((const xstr *)pv->data)[i];
    if (c->valid && c->pat.len == p.len && !memcmp(c->pat.ptr, p.ptr, p.len))
        return c->bad ? NULL : &c->rx;
    if (c->valid && !c->bad)
        regfree(&c->rx.re);
    char msg[128];
    c->valid = true;
    c->pat = p;
    c->bad = compile(p.ptr, p.len, raw, 0, &c->rx, msg, sizeof msg) != 0;
    (void)cx;
    return c->bad ? NULL : &c->rx;
}

static void cache_done(rxcache *c)
{
    if (c->valid && !c->bad)
        regfree(&c->rx.re);
}

#define STR(k) (((const xstr *)a[k].data)[i])
#define I32(k) (((const int32_t *)a[k].data)[i])

/* REGEXP(str, pattern): does any substring match? An empty pattern never matches. */
static int regexp_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    rxcache c = {0};
    uint8_t *o = out->data;
    regmatch_t m[1];
    for (uint32_t i = 0; i < n; i++) {
        if (!x_live(out, act, i))
            continue;
        if (STR(1).len == 0) {
            o[i] = 0;
            continue;
        }
        const xregex *rx = row_rx(cx, e, &a[1], i, &c, false);
        xstr s = STR(0);
        if (rx && !nul_copy(cx, &s))
            return oom(cx);
        o[i] = rx && rx_find(rx, s, 0, m, 1);
    }
    cache_done(&c);
    return 0;
}

/* REGEXP_EXTRACT(str, pattern [, group]): the group of the first match, NULL when none. */
static int regexp_extract_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    rxcache c = {0};
    regmatch_t m[MAX_GROUPS + 1];
    for (uint32_t i = 0; i < n; i++) {
        if (!x_live(out, act, i))
            continue;
        const xregex *rx = row_rx(cx, e, &a[1], i, &c, false);
        int64_t g = e->n_args > 2 ? I32(2) : 0;
        xstr s = STR(0);
        if (rx && !nul_copy(cx, &s))
            return oom(cx);
        if (!rx || g < 0 || g > rx->n_java || !rx_find(rx, s, 0, m, MAX_GROUPS + 1)) {
            x_setnull(cx, out, i);
            continue;
        }
        regmatch_t r = m[rx->map[g]];
        if (r.rm_so < 0) {
            x_setnull(cx, out, i);
            continue;
        }
        ((xstr *)out->data)[i] = (xstr){s.ptr + r.rm_so, (uint32_t)(r.rm_eo - r.rm_so)};
    }
    cache_done(&c);
    return 0;
}

/* REGEXP_REPLACE(str, pattern, replacement): every match replaced by the literal replacement. */
static int regexp_replace_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    rxcache c = {0};
    regmatch_t m[1];
    tbuf b = {0};
    int rc = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!x_live(out, act, i))
            continue;
        const xregex *rx = row_rx(cx, e, &a[1], i, &c, false);
        if (!rx) {
            x_setnull(cx, out, i);
            continue;
        }
        xstr s = STR(0), rep = STR(2);
        if (!nul_copy(cx, &s)) {
            rc = oom(cx);
            goto done;
        }
        b.len = 0;
        uint32_t pos = 0;
        while (pos <= s.len && rx_find(rx, s, pos, m, 1)) {
            uint32_t so = (uint32_t)m[0].rm_so, eo = (uint32_t)m[0].rm_eo;
            if (tput(&b, s.ptr + pos, so - pos) || tput(&b, rep.ptr, rep.len)) {
                rc = oom(cx);
                goto done;
            }
            if (eo == so) {
                /* An empty match: keep the next character and move past it. */
                if (so >= s.len) {
                    pos = s.len + 1;
                    break;
                }
                if (tput(&b, s.ptr + so, 1)) {
                    rc = oom(cx);
                    goto done;
                }
                pos = so + 1;
            } else {
                pos = eo;
            }
        }
        if (pos < s.len && tput(&b, s.ptr + pos, s.len - pos)) {
            rc = oom(cx);
            goto done;
        }
        char *p = x_str(cx, b.len);
        if (!p) {
            rc = oom(cx);
            goto done;
        }
        if (b.len)
            memcpy(p, b.p, b.len);
        ((xstr *)out->data)[i] = (xstr){p, (uint32_t)b.len};
    }
done:
    weir_free(b.p);
    cache_done(&c);
    return rc;
}

static int nomem_b(weir_error *err) { return weir_error_set(err, WEIR_ENOMEM, "out of memory"); }

/* ---- SIMILAR TO: SQL regex -> anchored POSIX ERE ---- */

static int similar_to_ere(xstr p, int esc, tbuf *o, char *msg, size_t cap)
{
    if (tput(o, "^(", 2))
        return -1;
    for (uint32_t i = 0; i < p.len; i++) {
        char c = p.ptr[i];
        if (esc >= 0 && (unsigned char)c == esc) {
            if (i + 1 >= p.len) {
                snprintf(msg, cap, "invalid escape sequence in SIMILAR TO pattern");
                return -1;
            }
            if (lit_byte(o, p.ptr[++i]))
                return -1;
            continue;
        }
        int rc;
        switch (c) {
        case '%': rc = tput(o, ".*", 2); break;
        case '_': rc = tputc(o, '.'); break;
        case '.':
        case '^':
        case '$':
        case '\\': rc = lit_byte(o, c); break;
        default: rc = tputc(o, c);
        }
        if (rc)
            return -1;
    }
    return tput(o, ")$", 2);
}

static int similar_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    uint8_t *o = out->data;
    bool neg = e->p0 != 0;
    regmatch_t m[1];
    for (uint32_t i = 0; i < n; i++) {
        if (!x_live(out, act, i))
            continue;
        const xregex *rx = e->aux;
        xregex tmp;
        if (!rx) {
            tbuf b = {0};
            char msg[200];
            int esc = e->n_args > 2 && STR(2).len ? (unsigned char)STR(2).ptr[0] : -1;
            if (similar_to_ere(STR(1), esc, &b, msg, sizeof msg) || compile(b.p, b.len, true, 0, &tmp, msg, sizeof msg)) {
                weir_free(b.p);
                return weir__x_fail(cx, i, "invalid SIMILAR TO pattern: %s", msg);
            }
            weir_free(b.p);
            rx = &tmp;
        }
        xstr sv = STR(0);
        if (!nul_copy(cx, &sv)) {
            if (rx == &tmp)
                regfree(&tmp.re);
            return oom(cx);
        }
        o[i] = rx_find(rx, sv, 0, m, 1) != neg;
        if (rx == &tmp)
            regfree(&tmp.re);
    }
    return 0;
}

static int bind_similar(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                        weir_error *err)
{
    if (n != 2 && n != 3)
        return weir__bad_args(f, args, n, err);
    int rc = weir__need_strings(a, f, args, n, n, err);
    if (rc)
        return rc;
    weir_expr *e = weir__call_node(a, f, args, n, tmake(WEIR_TYPE_BOOLEAN, weir__any_nullable(args, n)),
                                   similar_kernel, F_STRICT);
    if (!e)
        return nomem_b(err);
    e->p0 = f->param;
    xstr pat, es = {0};
    if (weir__lit_str(args[1], &pat) && (n == 2 || weir__lit_str(args[2], &es))) {
        tbuf b = {0};
        char msg[200];
        xregex *rx = weir_malloc(sizeof *rx);
        if (!rx)
            return nomem_b(err);
        int esc = n == 3 && es.len ? (unsigned char)es.ptr[0] : -1;
        if (similar_to_ere(pat, esc, &b, msg, sizeof msg) || compile(b.p, b.len, true, 0, rx, msg, sizeof msg)) {
            weir_free(b.p);
            weir_free(rx);
            return weir_error_set(err, WEIR_EPLAN, "invalid SIMILAR TO pattern '%.*s': %s", (int)pat.len, pat.ptr, msg);
        }
        weir_free(b.p);
        if (weir__arena_on_destroy(a, free_rx, rx)) {
            free_rx(rx);
            return nomem_b(err);
        }
        e->aux = rx;
    }
    *out = e;
    return 0;
}

/* ---- REGEXP family binders ---- */

static int bind_regexp(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                       weir_error *err)
{
    static const xkernel kernels[] = {regexp_kernel, regexp_extract_kernel, regexp_replace_kernel};
    int kind = (int)f->param;
    uint32_t min_n = kind == 2 ? 3 : 2, max_n = kind == 1 ? 3 : kind == 2 ? 3 : 2;
    if (n < min_n || n > max_n)
        return weir__bad_args(f, args, n, err);
    int rc = weir__need_strings(a, f, args, n, kind == 1 ? 2 : n, err);
    if (rc)
        return rc;
    weir_type rt = kind == 0 ? tmake(WEIR_TYPE_BOOLEAN, weir__any_nullable(args, n))
                             : tmake(WEIR_TYPE_STRING, kind == 1 || weir__any_nullable(args, n));
    weir_expr *e = weir__call_node(a, f, args, n, rt, kernels[kind], F_STRICT | F_MAYNULL);
    if (!e)
        return nomem_b(err);
    xstr pat;
    if (weir__lit_str(args[1], &pat) && !(kind == 0 && pat.len == 0)) {
        xregex *rx = weir_malloc(sizeof *rx);
        if (!rx)
            return nomem_b(err);
        char msg[200];
        if (compile(pat.ptr, pat.len, false, 0, rx, msg, sizeof msg)) {
            weir_free(rx);
            return weir_error_set(err, WEIR_EPLAN, "invalid regular expression '%.*s' in %s: %s", (int)pat.len,
                                  pat.ptr, f->name, msg);
        }
        if (weir__arena_on_destroy(a, free_rx, rx)) {
            free_rx(rx);
            return nomem_b(err);
        }
        e->aux = rx;
        if (kind == 1 && args[2 < n ? 2 : 1]->kind == N_LITERAL && n == 3 && !args[2]->lit.is_null) {
            int32_t g = args[2]->lit.v.i32;
            if (g < 0 || g > rx->n_java)
                return weir_error_set(err, WEIR_EPLAN, "REGEXP_EXTRACT group %d does not exist: the pattern has %d",
                                      g, rx->n_java);
        }
    }
    *out = e;
    return 0;
}

static int bind_needs_pcre2(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                            weir_error *err)
{
    (void)a, (void)args, (void)n, (void)out;
    return weir_error_set(err, WEIR_EPLAN, "%s needs weir built with PCRE2 (libpcre2-8 was not found)", f->name);
}

const xfunc weir__funcs_regex[] = {
    {"LIKE", "STRING LIKE STRING [ESCAPE STRING]", weir__bind_like, 0},
    {"NOT LIKE", "STRING NOT LIKE STRING [ESCAPE STRING]", weir__bind_like, 1},
    {"SIMILAR TO", "STRING SIMILAR TO STRING [ESCAPE STRING]", bind_similar, 0},
    {"NOT SIMILAR TO", "STRING NOT SIMILAR TO STRING [ESCAPE STRING]", bind_similar, 1},
    {"REGEXP", "REGEXP(STRING, STRING)", bind_regexp, 0},
    {"REGEXP_EXTRACT", "REGEXP_EXTRACT(STRING, STRING [, INT])", bind_regexp, 1},
    {"REGEXP_REPLACE", "REGEXP_REPLACE(STRING, STRING, STRING)", bind_regexp, 2},
    {"REGEXP_COUNT", "REGEXP_COUNT(STRING, STRING)", bind_needs_pcre2, 0},
    {"REGEXP_EXTRACT_ALL", "REGEXP_EXTRACT_ALL(STRING, STRING [, INT])", bind_needs_pcre2, 0},
    {"REGEXP_SPLIT", "REGEXP_SPLIT(STRING, STRING)", bind_needs_pcre2, 0},
    {"REGEXP_INSTR", "REGEXP_INSTR(STRING, STRING)", bind_needs_pcre2, 0},
    {"REGEXP_SUBSTR", "REGEXP_SUBSTR(STRING, STRING)", bind_needs_pcre2, 0},
    {NULL, NULL, NULL, 0},
};
#endif
