/*
 * expr/f_regex.c - regular expressions with Java's semantics through PCRE2:
 * SIMILAR TO, REGEXP, REGEXP_EXTRACT, REGEXP_REPLACE, REGEXP_COUNT,
 * REGEXP_INSTR, REGEXP_SUBSTR, REGEXP_EXTRACT_ALL, REGEXP_SPLIT. (LIKE is in f_like.c; f_regex_posix.c is the
 * fallback when weir is built without PCRE2.)
 *
 * Patterns are written in Java's syntax, as in Flink. PCRE2 matches the way
 * java.util.regex does (leftmost-first alternation, greedy, lazy and
 * possessive quantifiers, look-around, back-references, \b, \Q...\E, named
 * groups, atomic groups, \p{...}), so most of a pattern passes through
 * unchanged; translate() rewrites the few places where the two syntaxes
 * differ (\uXXXX, Java's octal escapes, the POSIX-named \p{Alpha} classes,
 * \p{IsX}, the (?d) (?u) (?U) flags) and refuses what PCRE2 cannot express
 * (nested classes, class intersection '&&', Unicode blocks), naming the
 * construct. Subjects are matched as UTF-8 (one '.' is one character;
 * invalid bytes read as U+FFFD, as Java decodes them);
 * line terminators are Java's (\n, \r\n, \r, U+0085, U+2028, U+2029).
 *
 * A literal pattern is compiled (and JIT-compiled) once when the expression
 * is built; a pattern computed per row is compiled when it changes from the
 * previous row. Compiled code is shared by threads; match data is per call.
 */
#ifdef WEIR_HAVE_PCRE2
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>

#include "expr/expr_internal.h"
#include "format/convert.h"
#include "record/nested.h"

static int oom(ecx *cx) { return weir_error_set(cx->err, WEIR_ENOMEM, "out of memory"); }
static int nomem_b(weir_error *err) { return weir_error_set(err, WEIR_ENOMEM, "out of memory"); }

typedef struct xregex {
    pcre2_code *code;
    bool jit;
    uint32_t n_groups; /* capturing groups, numbered as in Java */
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
    if (n)
        memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
    return 0;
}
static int tputc(tbuf *b, char c) { return tput(b, &c, 1); }
static int tputs(tbuf *b, const char *s) { return tput(b, s, strlen(s)); }

static inline uint32_t u8len(unsigned char c) { return c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4; }

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Reads Java's \uXXXX at p[i] (i at the 'u'); returns the code unit or -1. */
static long read_u4(const char *p, size_t len, size_t i)
{
    if (i + 5 > len)
        return -1;
    long v = 0;
    for (size_t k = 1; k <= 4; k++) {
        int h = hexval(p[i + k]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

/* Java's POSIX-named classes (US-ASCII) and their PCRE2 POSIX class names. */
static const char *posix_name(const char *name, size_t n)
{
    static const char *const map[][2] = {
        {"Lower", "lower"}, {"Upper", "upper"}, {"ASCII", "ascii"}, {"Alpha", "alpha"}, {"Digit", "digit"},
        {"Alnum", "alnum"}, {"Punct", "punct"}, {"Graph", "graph"}, {"Print", "print"}, {"Blank", "blank"},
        {"Cntrl", "cntrl"}, {"XDigit", "xdigit"}, {"Space", "space"},
    };
    for (size_t k = 0; k < sizeof map / sizeof map[0]; k++)
        if (strlen(map[k][0]) == n && !memcmp(map[k][0], name, n))
            return map[k][1];
    return NULL;
}

/* Java's java.lang.Character classes that map onto Unicode categories. */
static const char *java_char_class(const char *name, size_t n)
{
    static const char *const map[][2] = {
        {"javaLowerCase", "Ll"}, {"javaUpperCase", "Lu"}, {"javaTitleCase", "Lt"},
        {"javaDigit", "Nd"},     {"javaLetter", "L"},
    };
    for (size_t k = 0; k < sizeof map / sizeof map[0]; k++)
        if (strlen(map[k][0]) == n && !memcmp(map[k][0], name, n))
            return map[k][1];
    return NULL;
}

static bool has_prefix(const char *s, size_t n, const char *pre)
{
    size_t k = strlen(pre);
    return n >= k && !memcmp(s, pre, k);
}

/* Translates \p{name} / \P{name} (p at the 'p'/'P'); advances *ip past it. */
static int tr_property(const char *p, size_t len, size_t *ip, bool in_class, tbuf *o, char *msg, size_t cap)
{
    size_t i = *ip;
    bool neg = p[i] == 'P';
    const char *name;
    size_t n;
    if (i + 1 < len && p[i + 1] == '{') {
        const char *end = memchr(p + i + 2, '}', len - (i + 2));
        if (!end) {
            snprintf(msg, cap, "unclosed '\\%c{' property", p[i]);
            return -1;
        }
        name = p + i + 2;
        n = (size_t)(end - name);
        *ip = (size_t)(end - p) + 1;
    } else if (i + 1 < len) {
        name = p + i + 1;
        n = 1;
        *ip = i + 2;
    } else {
        snprintf(msg, cap, "'\\%c' without a property name", p[i]);
        return -1;
    }
    const char *px = posix_name(name, n);
    if (px) {
        return (in_class ? 0 : tputc(o, '[')) || tputs(o, neg ? "[:^" : "[:") || tputs(o, px) || tputs(o, ":]") ||
                       (in_class ? 0 : tputc(o, ']'))
                   ? -2
                   : 0;
    }
    const char *jc = java_char_class(name, n);
    if (jc)
        return tputc(o, '\\') || tputc(o, neg ? 'P' : 'p') || tputc(o, '{') || tputs(o, jc) || tputc(o, '}') ? -2 : 0;
    if (has_prefix(name, n, "In") || has_prefix(name, n, "block=") || has_prefix(name, n, "blk=")) {
        snprintf(msg, cap, "Unicode blocks ('\\%c{%.*s}') are not supported", p[i], (int)n, name);
        return -1;
    }
    if (has_prefix(name, n, "java")) {
        snprintf(msg, cap, "'\\%c{%.*s}' is not supported", p[i], (int)n, name);
        return -1;
    }
    /* \p{IsLatin} (script), \p{IsL} (category), \p{sc=Latin}, \p{gc=L}: PCRE2 takes the bare name. */
    static const char *const prefixes[] = {"Is", "script=", "sc=", "general_category=", "gc="};
    for (size_t k = 0; k < sizeof prefixes / sizeof prefixes[0]; k++) {
        if (has_prefix(name, n, prefixes[k])) {
            size_t d = strlen(prefixes[k]);
            name += d;
            n -= d;
            break;
        }
    }
    return tputc(o, '\\') || tputc(o, neg ? 'P' : 'p') || tputc(o, '{') || tput(o, name, n) || tputc(o, '}') ? -2 : 0;
}

/* Emits a code point as \x{...}. */
static int put_cp(tbuf *o, unsigned long cp)
{
    char b[24];
    snprintf(b, sizeof b, "\\x{%lx}", cp);
    return tputs(o, b);
}

/*
 * Translates a Java pattern into PCRE2's syntax. *opts receives compile
 * options set by leading (?d) / (?U) flags. Returns 0, or -1 with msg set.
 */
static int translate(const char *p, size_t len, tbuf *o, uint32_t *opts, bool *unix_lines, char *msg, size_t cap)
{
    size_t i = 0;
    bool in_class = false;
    size_t class_start = 0; /* index of the first member of the open class */
    int rc = 0;
    while (i < len && rc == 0) {
        char c = p[i];
        if (c == '\\') {
            if (i + 1 >= len) {
                snprintf(msg, cap, "pattern ends with a backslash");
                return -1;
            }
            char d = p[i + 1];
            if (d == 'Q') {
                /* Quoted text up to \E (or the end) passes through: PCRE2 has \Q...\E too. */
                const char *end = NULL;
                for (size_t k = i + 2; k + 1 < len; k++)
                    if (p[k] == '\\' && p[k + 1] == 'E') {
                        end = p + k;
                        break;
                    }
                size_t stop = end ? (size_t)(end - p) + 2 : len;
                rc = tput(o, p + i, stop - i);
                if (!end)
                    rc = rc || tputs(o, "\\E");
                i = stop;
                continue;
            }
            if (d == 'u') {
                long u = read_u4(p, len, i + 1);
                if (u < 0) {
                    snprintf(msg, cap, "'\\u' must be followed by four hexadecimal digits");
                    return -1;
                }
                size_t next = i + 6;
                if (u >= 0xD800 && u <= 0xDBFF && next + 1 < len && p[next] == '\\' && p[next + 1] == 'u') {
                    long lo = read_u4(p, len, next + 1);
                    if (lo >= 0xDC00 && lo <= 0xDFFF) {
                        u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                        next += 6;
                    }
                }
                if (u >= 0xD800 && u <= 0xDFFF) {
                    snprintf(msg, cap, "a lone surrogate '\\u%04lX' cannot be matched in UTF-8 text", u);
                    return -1;
                }
                rc = put_cp(o, (unsigned long)u);
                i = next;
                continue;
            }
            if (d == '0') {
                /* Java: \0n, \0nn, \0mnn (m <= 3) in octal. */
                size_t k = i + 2;
                unsigned long v = 0;
                int nd = 0;
                while (k < len && nd < 3 && p[k] >= '0' && p[k] <= '7') {
                    unsigned long nv = v * 8 + (unsigned long)(p[k] - '0');
                    if (nv > 0377)
                        break;
                    v = nv;
                    k++, nd++;
                }
                if (nd == 0) {
                    snprintf(msg, cap, "'\\0' must be followed by an octal digit");
                    return -1;
                }
                if (v == 0) {
                    snprintf(msg, cap, "NUL characters in patterns are not supported");
                    return -1;
                }
                rc = put_cp(o, v);
                i = k;
                continue;
            }
            if (d == 'p' || d == 'P') {
                size_t k = i + 1;
                int r = tr_property(p, len, &k, in_class, o, msg, cap);
                if (r == -1)
                    return -1;
                rc = r;
                i = k;
                continue;
            }
            if (d == 'N' && i + 2 < len && p[i + 2] == '{') {
                snprintf(msg, cap, "named characters ('\\N{...}') are not supported");
                return -1;
            }
            if ((d == 'b' || d == 'B') && i + 2 < len && p[i + 2] == '{') {
                snprintf(msg, cap, "'\\%c{...}' boundaries are not supported", d);
                return -1;
            }
            rc = tput(o, p + i, 2);
            i += 2;
            continue;
        }
        if (in_class) {
            if (c == '[' && !(i == class_start && i + 1 < len && p[i + 1] == ']')) {
                snprintf(msg, cap, "a character class inside a character class ('[a[b]]', union) is not supported");
                return -1;
            }
            if (c == '&' && i + 1 < len && p[i + 1] == '&') {
                snprintf(msg, cap, "character class intersection '&&' is not supported");
                return -1;
            }
            if (c == ']' && i != class_start)
                in_class = false;
            rc = tputc(o, c);
            i++;
            continue;
        }
        if (c == '[') {
            in_class = true;
            rc = tputc(o, c);
            i++;
            if (i < len && p[i] == '^') {
                rc = rc || tputc(o, '^');
                i++;
            }
            class_start = i;
            continue;
        }
        if (c == '(' && i + 1 < len && p[i + 1] == '*') {
            /* PCRE2 would read a verb such as (*ACCEPT); Java has none ("dangling meta character"). */
            snprintf(msg, cap, "'(*' is not valid: nothing to repeat");
            return -1;
        }
        if (c == '(' && i + 1 < len && p[i + 1] == '?') {
            /* Inline flags (?idmsuxU-idmsuxU) or (?flags:...): keep i m s x; drop u
             * (PCRE2 folds case by Unicode rules already); d and U only at the start. */
            size_t k = i + 2;
            while (k < len && strchr("idmsuxU-", p[k]) && p[k])
                k++;
            if (k > i + 2 && k < len && (p[k] == ')' || p[k] == ':')) {
                tbuf f = {0};
                bool on = true;
                for (size_t j = i + 2; j < k && rc == 0; j++) {
                    char fl = p[j];
                    if (fl == '-') {
                        on = false;
                        rc = tputc(&f, '-');
                    } else if (fl == 'u') {
                        /* nothing */
                    } else if (fl == 'd' || fl == 'U') {
                        if (i != 0 || p[k] != ')' || !on) {
                            weir_free(f.p);
                            snprintf(msg, cap, "the '%c' flag is supported only as a leading '(?%c)'", fl, fl);
                            return -1;
                        }
                        if (fl == 'd')
                            *unix_lines = true;
                        else
                            *opts |= PCRE2_UCP;
                    } else if (fl == 'x') {
                        /* Java's comments mode ignores whitespace in classes too: PCRE2's xx. */
                        rc = tputs(&f, "xx");
                    } else {
                        rc = tputc(&f, fl);
                    }
                }
                /* A trailing '-' alone is not valid in PCRE2. */
                if (f.len && f.p[f.len - 1] == '-')
                    f.p[--f.len] = 0;
                if (rc == 0) {
                    if (f.len)
                        rc = tputs(o, "(?") || tput(o, f.p, f.len) || tputc(o, p[k]);
                    else if (p[k] == ':')
                        rc = tputs(o, "(?:");
                }
                weir_free(f.p);
                i = k + 1;
                continue;
            }
        }
        rc = tputc(o, c);
        i++;
    }
    if (rc == 0 && !o->p)
        rc = tput(o, "", 0);
    if (rc) {
        snprintf(msg, cap, "out of memory");
        return -1;
    }
    return 0;
}

static void free_rx(void *p)
{
    xregex *rx = p;
    if (rx->code)
        pcre2_code_free(rx->code);
    weir_free(rx);
}

/* Compiles a PCRE2 pattern (already translated) into rx. */
static int compile_pcre(const char *pat, size_t len, uint32_t opts, bool unix_lines, xregex *rx, char *msg,
                        size_t cap)
{
    memset(rx, 0, sizeof *rx);
    pcre2_compile_context *cc = pcre2_compile_context_create(NULL);
    if (!cc) {
        snprintf(msg, cap, "out of memory");
        return -1;
    }
    pcre2_set_newline(cc, unix_lines ? PCRE2_NEWLINE_LF : PCRE2_NEWLINE_ANY);
    int ec;
    PCRE2_SIZE eoff;
    /*
     * Subjects are made valid UTF-8 before matching (utf8_subject), so no
     * check is needed while matching. PCRE2 10.42's JIT misses matches with
     * its start-of-match optimizations on ('(?:[^a]|)b*.' finds nothing in
     * "b"): they are turned off; the JIT stays several times faster than
     * the interpreter with them.
     */
    rx->code = pcre2_compile((PCRE2_SPTR)pat, len, opts | PCRE2_UTF | PCRE2_NO_START_OPTIMIZE, &ec, &eoff, cc);
    pcre2_compile_context_free(cc);
    if (!rx->code) {
        PCRE2_UCHAR eb[160];
        pcre2_get_error_message(ec, eb, sizeof eb);
        snprintf(msg, cap, "%s (at offset %zu)", (const char *)eb, (size_t)eoff);
        return -1;
    }
    pcre2_pattern_info(rx->code, PCRE2_INFO_CAPTURECOUNT, &rx->n_groups);
    rx->jit = pcre2_jit_compile(rx->code, PCRE2_JIT_COMPLETE) == 0;
    return 0;
}

/* Compiles a Java-syntax pattern into rx. Returns 0, or -1 with msg set. */
static int compile(const char *pat, size_t len, xregex *rx, char *msg, size_t cap)
{
    tbuf o = {0};
    uint32_t opts = 0;
    bool unix_lines = false;
    if (translate(pat, len, &o, &opts, &unix_lines, msg, cap)) {
        weir_free(o.p);
        memset(rx, 0, sizeof *rx);
        return -1;
    }
    int rc = compile_pcre(o.p, o.len, opts, unix_lines, rx, msg, cap);
    weir_free(o.p);
    return rc;
}

/*
 * Finds the first match at or after byte `from`: 1 and md's ovector set, 0
 * when none, -1 on a matching error (reported on row i).
 */
static int rx_find(ecx *cx, uint32_t row, const xregex *rx, xstr s, uint32_t from, pcre2_match_data *md)
{
    int rc;
    if (rx->jit) {
        rc = pcre2_jit_match(rx->code, (PCRE2_SPTR)s.ptr, s.len, from, 0, md, NULL);
        if (rc != PCRE2_ERROR_JIT_STACKLIMIT)
            goto done;
    }
    /* The interpreter keeps its backtracking on the heap: no JIT stack limit. */
    rc = pcre2_match(rx->code, (PCRE2_SPTR)s.ptr, s.len, from, PCRE2_NO_JIT | PCRE2_NO_UTF_CHECK, md, NULL);
done:
    if (rc >= 0)
        return 1;
    if (rc == PCRE2_ERROR_NOMATCH)
        return 0;
    if (rc == PCRE2_ERROR_NOMEMORY)
        return oom(cx), -1;
    PCRE2_UCHAR eb[160];
    pcre2_get_error_message(rc, eb, sizeof eb);
    weir__x_fail(cx, row, "regular expression match failed: %s", (const char *)eb);
    return -1;
}

/*
 * Makes *s valid UTF-8 for matching: bytes that are not are read as U+FFFD,
 * as Java's decoding of the bytes into a String does. Valid text (the usual
 * case) is left in place. False when out of memory.
 */
static bool utf8_subject(ecx *cx, xstr *s)
{
    size_t bad = weir__fmt_utf8_check(s->ptr, s->len);
    if (bad == s->len)
        return true;
    if (s->len > (UINT32_MAX - 1) / 3)
        return false;
    char *p = weir__x_alloc(cx, (size_t)s->len * 3 + 1);
    if (!p)
        return false;
    size_t o = 0, i = 0;
    while (i < s->len) {
        size_t n = weir__fmt_utf8_check(s->ptr + i, s->len - i);
        memcpy(p + o, s->ptr + i, n);
        o += n;
        i += n;
        if (i < s->len) {
            memcpy(p + o, "\xEF\xBF\xBD", 3);
            o += 3;
            i++;
        }
    }
    *s = (xstr){p, (uint32_t)o};
    return true;
}

/* The start of the next search after a match [so, eo), as Java's Matcher.find:
 * after an empty match, one character further; past the end: s.len + 1. */
static uint32_t next_from(xstr s, uint32_t so, uint32_t eo)
{
    if (eo != so)
        return eo;
    if (eo >= s.len)
        return s.len + 1;
    uint32_t step = u8len((unsigned char)s.ptr[eo]);
    return eo + step > s.len ? s.len : eo + step;
}

/* ---- per-row pattern cache for non-literal patterns ---- */

typedef struct rxcache {
    xregex rx;
    xstr pat;
    bool valid, bad;
    pcre2_match_data *md;   /* for the literal pattern, or the cached one */
    uint32_t md_groups;
} rxcache;

/* Returns the compiled pattern for row i (NULL when it does not compile), with c->md fitting it. */
static const xregex *row_rx(ecx *cx, const weir_expr *e, const xvec *pv, uint32_t i, rxcache *c, bool *nomem)
{
    const xregex *rx = e->aux;
    if (!rx) {
        xstr p = ((const xstr *)pv->data)[i];
        if (!(c->valid && c->pat.len == p.len && !memcmp(c->pat.ptr, p.ptr, p.len))) {
            if (c->valid && !c->bad)
                pcre2_code_free(c->rx.code);
            char msg[200];
            c->valid = true;
            c->pat = p;
            c->bad = compile(p.ptr, p.len, &c->rx, msg, sizeof msg) != 0;
        }
        if (c->bad)
            return NULL;
        rx = &c->rx;
    }
    if (!c->md || c->md_groups < rx->n_groups + 1) {
        if (c->md)
            pcre2_match_data_free(c->md);
        c->md_groups = rx->n_groups + 1;
        c->md = pcre2_match_data_create(c->md_groups, NULL);
        if (!c->md) {
            *nomem = true;
            (void)cx;
            return NULL;
        }
    }
    return rx;
}

static void cache_done(rxcache *c)
{
    if (c->valid && !c->bad)
        pcre2_code_free(c->rx.code);
    if (c->md)
        pcre2_match_data_free(c->md);
}

#define STR(k) (((const xstr *)a[k].data)[i])
#define I32(k) (((const int32_t *)a[k].data)[i])

enum { RX_MATCH, RX_EXTRACT, RX_REPLACE, RX_COUNT, RX_INSTR, RX_SUBSTR, RX_EXTRACT_ALL, RX_SPLIT };

/* Appends a STRING entry to the ARRAY being built in b (NULL when unset). */
static int put_piece(weir_buf *b, const char *p, size_t len, bool unset)
{
    return unset ? weir_nv_put_null(b) : weir_nv_put(b, tmake(WEIR_TYPE_STRING, true), p, (uint32_t)len);
}

/* Copies the ARRAY in b (its count patched to m) into evaluation memory. */
static int finish_array(ecx *cx, weir_buf *b, uint32_t m, int rc, xstr *res)
{
    char *o = rc ? NULL : x_str(cx, b->len);
    if (o) {
        memcpy(b->data, &m, 4);
        memcpy(o, b->data, b->len);
        *res = (xstr){o, (uint32_t)b->len};
    }
    weir_buf_fini(b);
    return o ? 0 : oom(cx);
}

/* REGEXP_SPLIT with an empty pattern: one piece per character. */
static int split_chars(ecx *cx, xstr s, xstr *res)
{
    weir_buf b;
    weir_buf_init(&b);
    int rc = weir_nv_put_count(&b, 0);
    uint32_t m = 0;
    for (uint32_t k = 0; k < s.len && !rc; m++) {
        uint32_t w = u8len((unsigned char)s.ptr[k]);
        w = k + w > s.len ? s.len - k : w;
        rc = put_piece(&b, s.ptr + k, w, false);
        k += w;
    }
    return finish_array(cx, &b, m, rc, res);
}

/*
 * REGEXP_EXTRACT_ALL: group g of every match, found as Java's Matcher.find
 * finds them (a group that took no part is a NULL element). REGEXP_SPLIT:
 * the text around the matches, as Java's Pattern.split(s, -1): trailing
 * empty pieces kept, an empty match at the start gives no leading piece,
 * and no match gives [s].
 */
static int find_all(ecx *cx, uint32_t row, const xregex *rx, xstr s, pcre2_match_data *md, bool split,
                    uint32_t g, xstr *res)
{
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
    weir_buf b;
    weir_buf_init(&b);
    int rc = weir_nv_put_count(&b, 0);
    uint32_t m = 0, from = 0, piece = 0;
    while (!rc && from <= s.len) {
        int f = rx_find(cx, row, rx, s, from, md);
        if (f < 0) {
            weir_buf_fini(&b);
            return -1;
        }
        if (!f)
            break;
        uint32_t so = (uint32_t)ov[0], eo = (uint32_t)ov[1];
        from = next_from(s, so, eo);
        if (split) {
            if (so == 0 && eo == 0)
                continue;
            rc = put_piece(&b, s.ptr + piece, so - piece, false);
            piece = eo;
        } else {
            bool unset = ov[2 * g] == PCRE2_UNSET;
            rc = put_piece(&b, unset ? NULL : s.ptr + ov[2 * g], unset ? 0 : ov[2 * g + 1] - ov[2 * g], unset);
        }
        m++;
    }
    if (split && !rc) {
        rc = put_piece(&b, s.ptr + piece, s.len - piece, false);
        m++;
    }
    return finish_array(cx, &b, m, rc, res);
}

/* One kernel for the family: e->p0 says which function. */
static int regex_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    int kind = (int)e->p0;
    rxcache c = {0};
    tbuf b = {0};
    int rc = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!x_live(out, act, i))
            continue;
        if (kind == RX_MATCH && STR(1).len == 0) {
            ((uint8_t *)out->data)[i] = 0;
            continue;
        }
        if (kind == RX_SPLIT && STR(1).len == 0) {
            /* an empty pattern splits into characters (Flink) */
            if ((rc = split_chars(cx, STR(0), &((xstr *)out->data)[i])))
                goto done;
            continue;
        }
        bool nomem = false;
        const xregex *rx = row_rx(cx, e, &a[1], i, &c, &nomem);
        if (nomem) {
            rc = oom(cx);
            goto done;
        }
        xstr s = STR(0);
        if (!utf8_subject(cx, &s)) {
            rc = oom(cx);
            goto done;
        }
        if (!rx) {
            /* A computed pattern that does not compile: FALSE / NULL, as Flink. */
            if (kind == RX_MATCH)
                ((uint8_t *)out->data)[i] = 0;
            else
                x_setnull(cx, out, i);
            continue;
        }
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(c.md);
        int f;
        switch (kind) {
        case RX_MATCH:
            f = rx_find(cx, i, rx, s, 0, c.md);
            if (f < 0) {
                rc = -1;
                goto done;
            }
            ((uint8_t *)out->data)[i] = (uint8_t)f;
            break;
        case RX_EXTRACT:
        case RX_SUBSTR: {
            int64_t g = kind == RX_EXTRACT && e->n_args > 2 ? I32(2) : 0;
            if (g < 0 || g > rx->n_groups) {
                x_setnull(cx, out, i);
                break;
            }
            f = rx_find(cx, i, rx, s, 0, c.md);
            if (f < 0) {
                rc = -1;
                goto done;
            }
            if (!f || ov[2 * g] == PCRE2_UNSET) {
                x_setnull(cx, out, i);
                break;
            }
            ((xstr *)out->data)[i] = (xstr){s.ptr + ov[2 * g], (uint32_t)(ov[2 * g + 1] - ov[2 * g])};
            break;
        }
        case RX_INSTR: {
            f = rx_find(cx, i, rx, s, 0, c.md);
            if (f < 0) {
                rc = -1;
                goto done;
            }
            int32_t pos = 0;
            if (f) {
                /* 1-based position in characters. */
                pos = 1;
                for (uint32_t k = 0; k < ov[0]; k++)
                    pos += ((unsigned char)s.ptr[k] & 0xC0) != 0x80;
            }
            ((int32_t *)out->data)[i] = pos;
            break;
        }
        case RX_COUNT: {
            int32_t count = 0;
            uint32_t from = 0;
            while (from <= s.len) {
                f = rx_find(cx, i, rx, s, from, c.md);
                if (f < 0) {
                    rc = -1;
                    goto done;
                }
                if (!f)
                    break;
                count++;
                from = next_from(s, (uint32_t)ov[0], (uint32_t)ov[1]);
            }
            ((int32_t *)out->data)[i] = count;
            break;
        }
        case RX_REPLACE: {
            /* Java's String.replaceAll with a quoted replacement (Flink quotes it). */
            xstr rep = STR(2);
            b.len = 0;
            uint32_t from = 0, app = 0;
            while (from <= s.len) {
                f = rx_find(cx, i, rx, s, from, c.md);
                if (f < 0) {
                    rc = -1;
                    goto done;
                }
                if (!f)
                    break;
                uint32_t so = (uint32_t)ov[0], eo = (uint32_t)ov[1];
                if (tput(&b, s.ptr + app, so - app) || tput(&b, rep.ptr, rep.len)) {
                    rc = oom(cx);
                    goto done;
                }
                app = eo;
                from = next_from(s, so, eo);
            }
            if (tput(&b, s.ptr + app, s.len - app)) {
                rc = oom(cx);
                goto done;
            }
            char *o = x_str(cx, b.len);
            if (!o) {
                rc = oom(cx);
                goto done;
            }
            if (b.len)
                memcpy(o, b.p, b.len);
            ((xstr *)out->data)[i] = (xstr){o, (uint32_t)b.len};
            break;
        }
        case RX_EXTRACT_ALL:
        case RX_SPLIT: {
            int64_t g = kind == RX_EXTRACT_ALL ? (e->n_args > 2 ? I32(2) : 1) : 0;
            if (g < 0 || g > rx->n_groups) {
                x_setnull(cx, out, i);
                break;
            }
            if ((rc = find_all(cx, i, rx, s, c.md, kind == RX_SPLIT, (uint32_t)g, &((xstr *)out->data)[i])))
                goto done;
            break;
        }
        default: break;
        }
    }
done:
    weir_free(b.p);
    cache_done(&c);
    return rc;
}

/* ---- SIMILAR TO: SQL regex -> anchored PCRE2 pattern ---- */

static int similar_to_pcre(xstr p, int esc, tbuf *o, char *msg, size_t cap)
{
    if (tputs(o, "\\A(?:"))
        return -1;
    for (uint32_t i = 0; i < p.len; i++) {
        char c = p.ptr[i];
        if (esc >= 0 && (unsigned char)c == esc) {
            if (i + 1 >= p.len) {
                snprintf(msg, cap, "invalid escape sequence in SIMILAR TO pattern");
                return -1;
            }
            char d = p.ptr[++i];
            if ((!((d >= 'a' && d <= 'z') || (d >= 'A' && d <= 'Z') || (d >= '0' && d <= '9')) &&
                 tputc(o, '\\')) ||
                tputc(o, d))
                return -1;
            continue;
        }
        int rc;
        switch (c) {
        case '%': rc = tputs(o, ".*"); break;
        case '_': rc = tputc(o, '.'); break;
        case '.':
        case '^':
        case '$':
        case '\\':
        case '#': rc = tputc(o, '\\') || tputc(o, c); break;
        default: rc = tputc(o, c);
        }
        if (rc)
            return -1;
    }
    return tputs(o, ")\\z");
}

static int compile_similar(xstr pat, int esc, xregex *rx, char *msg, size_t cap)
{
    tbuf b = {0};
    if (similar_to_pcre(pat, esc, &b, msg, cap)) {
        weir_free(b.p);
        if (!msg[0])
            snprintf(msg, cap, "out of memory");
        return -1;
    }
    int rc = compile_pcre(b.p, b.len, PCRE2_DOTALL, false, rx, msg, cap);
    weir_free(b.p);
    return rc;
}

static int similar_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    uint8_t *o = out->data;
    bool neg = e->p0 != 0;
    rxcache c = {0};
    int rc = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!x_live(out, act, i))
            continue;
        const xregex *rx = e->aux;
        if (!rx) {
            xstr p = STR(1);
            int esc = e->n_args > 2 && STR(2).len ? (unsigned char)STR(2).ptr[0] : -1;
            if (c.valid && !c.bad)
                pcre2_code_free(c.rx.code);
            char msg[200] = {0};
            c.valid = true;
            c.bad = compile_similar(p, esc, &c.rx, msg, sizeof msg) != 0;
            if (c.bad) {
                rc = weir__x_fail(cx, i, "invalid SIMILAR TO pattern: %s", msg);
                goto done;
            }
            rx = &c.rx;
        }
        if (!c.md || c.md_groups < rx->n_groups + 1) {
            if (c.md)
                pcre2_match_data_free(c.md);
            c.md_groups = rx->n_groups + 1;
            c.md = pcre2_match_data_create(c.md_groups, NULL);
            if (!c.md) {
                rc = oom(cx);
                goto done;
            }
        }
        xstr sv = STR(0);
        if (!utf8_subject(cx, &sv)) {
            rc = oom(cx);
            goto done;
        }
        int f = rx_find(cx, i, rx, sv, 0, c.md);
        if (f < 0) {
            rc = -1;
            goto done;
        }
        o[i] = (f == 1) != neg;
    }
done:
    cache_done(&c);
    return rc;
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
        char msg[200] = {0};
        xregex *rx = weir_malloc(sizeof *rx);
        if (!rx)
            return nomem_b(err);
        int esc = n == 3 && es.len ? (unsigned char)es.ptr[0] : -1;
        if (compile_similar(pat, esc, rx, msg, sizeof msg)) {
            weir_free(rx);
            return weir_error_set(err, WEIR_EPLAN, "invalid SIMILAR TO pattern '%.*s': %s", (int)pat.len, pat.ptr, msg);
        }
        if (weir__arena_on_destroy(a, free_rx, rx)) {
            free_rx(rx);
            return nomem_b(err);
        }
        e->aux = rx;
    }
    *out = e;
    return 0;
}

/* ---- REGEXP family binder ---- */

static int bind_regexp(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                       weir_error *err)
{
    int kind = (int)f->param;
    uint32_t min_n = kind == RX_REPLACE ? 3 : 2;
    uint32_t max_n = kind == RX_EXTRACT || kind == RX_REPLACE || kind == RX_EXTRACT_ALL ? 3 : 2;
    if (n < min_n || n > max_n)
        return weir__bad_args(f, args, n, err);
    int rc = weir__need_strings(a, f, args, n, kind == RX_EXTRACT || kind == RX_EXTRACT_ALL ? 2 : n, err);
    if (rc)
        return rc;
    bool nullable = weir__any_nullable(args, n);
    weir_type rt;
    switch (kind) {
    case RX_MATCH: rt = tmake(WEIR_TYPE_BOOLEAN, nullable); break;
    case RX_COUNT:
    case RX_INSTR: rt = tmake(WEIR_TYPE_INT, nullable || !weir__lit_str(args[1], &(xstr){0})); break;
    case RX_REPLACE: rt = tmake(WEIR_TYPE_STRING, nullable || !weir__lit_str(args[1], &(xstr){0})); break;
    case RX_EXTRACT_ALL:
    case RX_SPLIT:
        if ((rc = weir_type_array(tmake(WEIR_TYPE_STRING, kind == RX_EXTRACT_ALL), true, &rt)))
            return rc == WEIR_ENOMEM ? nomem_b(err) : weir_error_set(err, WEIR_EUNSUPPORTED, "too many nested types");
        break;
    default: rt = tmake(WEIR_TYPE_STRING, true); break;
    }
    weir_expr *e = weir__call_node(a, f, args, n, rt, regex_kernel, F_STRICT | F_MAYNULL);
    if (!e)
        return nomem_b(err);
    e->p0 = kind;
    xstr pat;
    if (weir__lit_str(args[1], &pat) && !(kind == RX_MATCH && pat.len == 0)) {
        xregex *rx = weir_malloc(sizeof *rx);
        if (!rx)
            return nomem_b(err);
        char msg[240];
        if (compile(pat.ptr, pat.len, rx, msg, sizeof msg)) {
            weir_free(rx);
            return weir_error_set(err, WEIR_EPLAN, "invalid regular expression '%.*s' in %s: %s", (int)pat.len,
                                  pat.ptr, f->name, msg);
        }
        if (weir__arena_on_destroy(a, free_rx, rx)) {
            free_rx(rx);
            return nomem_b(err);
        }
        e->aux = rx;
        bool lit_group = n == 3 && args[2]->kind == N_LITERAL && !args[2]->lit.is_null;
        if ((kind == RX_EXTRACT && lit_group) || (kind == RX_EXTRACT_ALL && (n == 2 || lit_group))) {
            int32_t g = n == 3 ? args[2]->lit.v.i32 : 1;
            if (g < 0 || (uint32_t)g > rx->n_groups)
                return weir_error_set(err, WEIR_EPLAN, "%s group %d does not exist: the pattern has %u", f->name,
                                      g, rx->n_groups);
        }
    }
    *out = e;
    return 0;
}

const xfunc weir__funcs_regex[] = {
    {"LIKE", "STRING LIKE STRING [ESCAPE STRING]", weir__bind_like, 0},
    {"NOT LIKE", "STRING NOT LIKE STRING [ESCAPE STRING]", weir__bind_like, 1},
    {"SIMILAR TO", "STRING SIMILAR TO STRING [ESCAPE STRING]", bind_similar, 0},
    {"NOT SIMILAR TO", "STRING NOT SIMILAR TO STRING [ESCAPE STRING]", bind_similar, 1},
    {"REGEXP", "REGEXP(STRING, STRING)", bind_regexp, RX_MATCH},
    {"REGEXP_EXTRACT", "REGEXP_EXTRACT(STRING, STRING [, INT])", bind_regexp, RX_EXTRACT},
    {"REGEXP_REPLACE", "REGEXP_REPLACE(STRING, STRING, STRING)", bind_regexp, RX_REPLACE},
    {"REGEXP_COUNT", "REGEXP_COUNT(STRING, STRING)", bind_regexp, RX_COUNT},
    {"REGEXP_INSTR", "REGEXP_INSTR(STRING, STRING)", bind_regexp, RX_INSTR},
    {"REGEXP_SUBSTR", "REGEXP_SUBSTR(STRING, STRING)", bind_regexp, RX_SUBSTR},
    {"REGEXP_EXTRACT_ALL", "REGEXP_EXTRACT_ALL(STRING, STRING [, INT])", bind_regexp, RX_EXTRACT_ALL},
    {"REGEXP_SPLIT", "REGEXP_SPLIT(STRING, STRING)", bind_regexp, RX_SPLIT},
    {NULL, NULL, NULL, 0},
};
#endif
