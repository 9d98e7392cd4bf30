/*
 * expr/f_printf.c - PRINTF(format, arg...): Java's java.util.Formatter
 * (Locale.US) over SQL values, as Flink's PRINTF.
 *
 * Specifiers: %[index$][flags][width][.precision]conversion with the
 * flags - # + space 0 , ( and < (the previous argument), and the
 * conversions b s c d o x e f g (and their upper-case forms B S C X E G),
 * %% and %n. The arguments are the Java values of their SQL types: INT is
 * an Integer, BIGINT a Long, DOUBLE a Double, DECIMAL a BigDecimal,
 * BOOLEAN a Boolean, STRING a String; any other type is its text (CAST AS
 * STRING) and formats only as %s or %b.
 *
 * Where Java throws (an unknown conversion, a flag the conversion refuses,
 * a missing argument, %d of a DOUBLE, ...) Flink's PRINTF returns NULL, and
 * so does weir. A NULL format gives NULL; a NULL argument prints "null"
 * ("false" for %b). The date/time conversions %t, the hash code %h and the
 * hexadecimal float %a are not built: they give NULL too.
 *
 * Floating-point output rounds the DOUBLE's decimal digits as the JDK
 * generates them (weir__fmt_java_digits) half-up, as Java does (%.1f of
 * 0.25 is 0.3; %e of the smallest subnormal is 4.900000e-324); a DECIMAL
 * rounds its exact digits half-up. Widths and precisions over
 * PF_MAX_WIDTH fail the row instead of building a huge string.
 */
#include <math.h>
#include <stdio.h>

#include "expr/expr_internal.h"
#include "format/convert.h"
#include "weir/buf.h"

#define PF_MAX_WIDTH 1000000

enum {
    PF_LEFT = 1,   /* - */
    PF_ALT = 2,    /* # */
    PF_PLUS = 4,   /* + */
    PF_SPACE = 8,  /* space */
    PF_ZERO = 16,  /* 0 */
    PF_GROUP = 32, /* , */
    PF_PAREN = 64, /* ( */
    PF_PREV = 128, /* < */
};

/* The result of one row: 0, PF_NULL (Java would throw) or an error code. */
#define PF_NULL 1

typedef struct spec {
    int flags;
    int64_t width, prec; /* -1: none */
    char conv;           /* lower case */
    bool upper;
} spec;

/* An argument as Java sees it. */
typedef enum { A_NULL, A_BOOL, A_INT, A_LONG, A_DOUBLE, A_DECIMAL, A_STRING } akind;

typedef struct parg {
    akind kind;
    bool b;
    int64_t i;
    double d;
    weir_i128 dec;
    int scale;
    xstr s;
} parg;

/* A number as decimal digits: value = 0.d[0]d[1]... x 10^exp. */
typedef struct dnum {
    char d[48];
    int nd;
    int exp;
} dnum;

static int put(weir_buf *b, const void *p, size_t n) { return weir_buf_put(b, p, n); }
static int putc_(weir_buf *b, char c) { return weir_buf_put_u8(b, (uint8_t)c); }

/* Inserts n copies of c at byte offset at. */
static int insert_fill(weir_buf *b, size_t at, char c, size_t n)
{
    if (!n)
        return 0;
    if (weir_buf_reserve(b, n))
        return WEIR_ENOMEM;
    memmove(b->data + at + n, b->data + at, b->len - at);
    memset(b->data + at, c, n);
    b->len += n;
    return 0;
}

/* Java's length of text: UTF-16 units. */
static size_t utf16_len(const char *p, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        i += weir__utf8_decode(p + i, (uint32_t)(len - i), &cp);
        n += cp >= 0x10000 ? 2 : 1;
    }
    return n;
}

/* Appends s padded with spaces to the width (left or right). */
static int justified(weir_buf *out, const spec *sp, const char *s, size_t len)
{
    size_t w = utf16_len(s, len);
    size_t pad = sp->width > 0 && (size_t)sp->width > w ? (size_t)sp->width - w : 0;
    int rc = 0;
    if (!(sp->flags & PF_LEFT))
        for (size_t k = 0; k < pad && !rc; k++)
            rc = putc_(out, ' ');
    rc = rc ? rc : put(out, s, len);
    if (sp->flags & PF_LEFT)
        for (size_t k = 0; k < pad && !rc; k++)
            rc = putc_(out, ' ');
    return rc;
}

/* Upper-cases the UTF-8 text in b from byte `from` on (Locale.US). */
static int upper_from(weir_buf *b, size_t from, weir_buf *tmp)
{
    weir_buf_clear(tmp);
    int rc = 0;
    for (size_t i = from; i < b->len && !rc;) {
        uint32_t cp;
        i += weir__utf8_decode((const char *)b->data + i, (uint32_t)(b->len - i), &cp);
        char o[4];
        rc = put(tmp, o, weir__utf8_encode(weir__upper_cp(cp), o));
    }
    if (rc)
        return rc;
    b->len = from;
    return put(b, tmp->data, tmp->len);
}

/* Java's print(String): precision cuts to that many UTF-16 units, then the
 * upper case, then the width. */
static int print_text(weir_buf *out, const spec *sp, const char *s, size_t len, weir_buf *tmp)
{
    weir_buf_clear(tmp);
    int rc = 0;
    if (sp->prec >= 0) {
        size_t units = 0, i = 0;
        while (i < len) {
            uint32_t cp;
            uint32_t k = weir__utf8_decode(s + i, (uint32_t)(len - i), &cp);
            size_t u = cp >= 0x10000 ? 2 : 1;
            if (units + u > (size_t)sp->prec) {
                /* half of a surrogate pair: a lone surrogate, which the
                 * STRING result encodes as '?' */
                if (units < (size_t)sp->prec)
                    rc = putc_(tmp, '?');
                break;
            }
            rc = rc ? rc : put(tmp, s + i, k);
            units += u;
            i += k;
        }
    } else {
        rc = put(tmp, s, len);
    }
    if (rc)
        return rc;
    weir_buf t2;
    weir_buf_init(&t2);
    if (sp->upper)
        rc = upper_from(tmp, 0, &t2);
    weir_buf_fini(&t2);
    return rc ? rc : justified(out, sp, (const char *)tmp->data, tmp->len);
}

/* ---- numbers ---- */

static void ascii_upper(weir_buf *b)
{
    for (size_t k = 0; k < b->len; k++)
        if (b->data[k] >= 'a' && b->data[k] <= 'z')
            b->data[k] = (uint8_t)(b->data[k] - 32);
}

static void leading_sign(weir_buf *sb, const spec *sp, bool neg, int *rc)
{
    if (*rc)
        return;
    if (!neg) {
        if (sp->flags & PF_PLUS)
            *rc = putc_(sb, '+');
        else if (sp->flags & PF_SPACE)
            *rc = putc_(sb, ' ');
    } else {
        *rc = putc_(sb, sp->flags & PF_PAREN ? '(' : '-');
    }
}

static void trailing_sign(weir_buf *sb, const spec *sp, bool neg, int *rc)
{
    if (!*rc && neg && (sp->flags & PF_PAREN))
        *rc = putc_(sb, ')');
}

/* The width left for the magnitude when a ')' follows it. */
static int64_t adjust_width(int64_t width, const spec *sp, bool neg)
{
    return width != -1 && neg && (sp->flags & PF_PAREN) ? width - 1 : width;
}

/* Java's localizedMagnitude: the digits (and '.') of v with ',' every
 * three integer digits under the ',' flag, then zeros inserted after what
 * sb held before (the sign) until sb is `width` long under the '0' flag. */
static int magnitude(weir_buf *sb, const char *v, size_t len, const spec *sp, int64_t width)
{
    size_t begin = sb->len, dot = len;
    for (size_t j = 0; j < len; j++)
        if (v[j] == '.') {
            dot = j;
            break;
        }
    int rc = 0;
    for (size_t j = 0; j < len && !rc; j++) {
        rc = putc_(sb, v[j]);
        if (!rc && (sp->flags & PF_GROUP) && j < dot && j != dot - 1 && (dot - j) % 3 == 1)
            rc = putc_(sb, ',');
    }
    if (!rc && width != -1 && (sp->flags & PF_ZERO) && (int64_t)sb->len < width)
        rc = insert_fill(sb, begin, '0', (size_t)(width - (int64_t)sb->len));
    return rc;
}

/* Java's applyPrecision: rounds x half-up to its first `prec` digits
 * (nothing when prec < 0 or prec >= the digits there are). */
static void apply_precision(dnum *x, int64_t prec)
{
    if (prec >= x->nd || prec < 0)
        return;
    if (prec == 0) {
        bool up = x->d[0] >= '5';
        memset(x->d, '0', (size_t)x->nd);
        if (up) {
            x->d[0] = '1';
            x->exp++;
        }
        return;
    }
    if (x->d[prec] >= '5') {
        int64_t i = prec - 1;
        while (i >= 0 && x->d[i] == '9')
            i--;
        if (i < 0) {
            memset(x->d, '0', (size_t)x->nd);
            x->d[0] = '1';
            x->exp++;
            return;
        }
        x->d[i]++;
        memset(x->d + i + 1, '0', (size_t)(x->nd - i - 1));
    } else {
        memset(x->d + prec, '0', (size_t)(x->nd - prec));
    }
}

/* Java's fillDecimal: the magnitude in plain notation with at most `prec`
 * fraction digits (fewer when the digits run out). */
static int fill_decimal(weir_buf *m, const dnum *x, int64_t prec)
{
    int rc = 0;
    if (x->exp > 0) {
        for (int j = 0; j < x->exp && !rc; j++)
            rc = putc_(m, j < x->nd ? x->d[j] : '0');
        int64_t t = x->nd - x->exp < prec ? x->nd - x->exp : prec;
        if (t > 0 && !rc) {
            rc = putc_(m, '.');
            rc = rc ? rc : put(m, x->d + x->exp, (size_t)t);
        }
        return rc;
    }
    int64_t zeros = -(int64_t)x->exp < prec ? -(int64_t)x->exp : prec;
    if (zeros < 0)
        zeros = 0;
    int64_t t = prec + x->exp < x->nd ? prec + x->exp : x->nd;
    if (t < 0)
        t = 0;
    if (zeros == 0 && t == 0)
        return putc_(m, '0');
    rc = put(m, "0.", 2);
    for (int64_t k = 0; k < zeros && !rc; k++)
        rc = putc_(m, '0');
    return rc ? rc : put(m, x->d, (size_t)t);
}

/* Java's fillScientific: d[.ddd] with at most `prec` fraction digits; the
 * exponent (sign and at least two digits) into exp. */
static int fill_scientific(weir_buf *m, const dnum *x, int64_t prec, char *exp)
{
    int64_t t = x->nd - 1 < prec ? x->nd - 1 : prec;
    int rc = putc_(m, x->d[0]);
    if (t > 0 && !rc) {
        rc = putc_(m, '.');
        rc = rc ? rc : put(m, x->d + 1, (size_t)t);
    }
    int e = x->exp - 1;
    sprintf(exp, "%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
    return rc;
}

/* Java's addZeros: zeros (and a '.') until m has prec fraction digits. */
static int add_zeros(weir_buf *m, int64_t prec)
{
    size_t i = 0;
    while (i < m->len && m->data[i] != '.')
        i++;
    bool need_dot = i == m->len;
    int64_t have = need_dot ? 0 : (int64_t)(m->len - i - 1);
    if (have >= prec)
        return 0;
    int rc = need_dot ? putc_(m, '.') : 0;
    for (int64_t k = have; k < prec && !rc; k++)
        rc = putc_(m, '0');
    return rc;
}

/* The digits of a DECIMAL's magnitude (all the unscaled ones; "0" for 0). */
static void dec_digits(weir_i128 v, int scale, dnum *x)
{
    x->nd = (int)weir__dec_format(v < 0 ? -v : v, 0, x->d);
    x->exp = x->d[0] == '0' ? 0 : x->nd - scale;
}

/* %e %f %g of a finite number's digits x (neg: its sign); `dec_scale` is
 * the DECIMAL's scale, or -1 for a DOUBLE. */
static int print_float_digits(weir_buf *sb, const spec *sp, dnum *x, bool neg, bool is_zero, int dec_scale)
{
    weir_buf m;
    weir_buf_init(&m);
    char exp[16] = "";
    int rc = 0;
    int64_t width = sp->width, neww = width;
    char c = sp->conv;
    int64_t prec = sp->prec;
    if (c == 'g' && dec_scale >= 0) {
        /* BigDecimal: rounded (half up) to prec significant digits first;
         * fixed when that is in [1e-4, 10^prec), or an exact 0 of scale 0 */
        int64_t p = prec == -1 ? 6 : prec == 0 ? 1 : prec;
        bool fixed;
        if (is_zero) {
            fixed = dec_scale == 0;
        } else {
            apply_precision(x, p);
            fixed = x->exp - 1 >= -4 && x->exp - 1 < p;
        }
        if (fixed) {
            c = 'f';
            prec = is_zero ? p - 1 : p - (x->exp - 1) - 1;
        } else {
            c = 'e';
            prec = p - 1;
        }
    }
    if (c == 'e') {
        int64_t p = prec == -1 ? 6 : prec;
        apply_precision(x, p + 1);
        rc = fill_scientific(&m, x, p, exp);
        if (is_zero) {
            int e0 = dec_scale > 0 ? -dec_scale : 0;
            sprintf(exp, "%c%02d", e0 < 0 ? '-' : '+', e0 < 0 ? -e0 : e0);
        }
        rc = rc ? rc : add_zeros(&m, p);
        if (!rc && (sp->flags & PF_ALT) && p == 0)
            rc = putc_(&m, '.');
        if (width != -1)
            neww = adjust_width(width - (int64_t)strlen(exp) - 1, sp, neg);
    } else if (c == 'f') {
        int64_t p = prec == -1 ? 6 : prec;
        apply_precision(x, x->exp + p);
        rc = fill_decimal(&m, x, p);
        rc = rc ? rc : add_zeros(&m, p);
        if (!rc && (sp->flags & PF_ALT) && p == 0)
            rc = putc_(&m, '.');
        neww = adjust_width(width, sp, neg);
    } else { /* 'g' of a DOUBLE */
        int64_t p = prec == -1 ? 6 : prec == 0 ? 1 : prec;
        bool sci = false;
        if (is_zero) {
            rc = putc_(&m, '0');
            p -= 1;
        } else {
            apply_precision(x, p);
            int e = x->exp - 1;
            if (e < -4 || e >= p) {
                sci = true;
                rc = fill_scientific(&m, x, p - 1, exp);
                p -= 1;
            } else {
                rc = fill_decimal(&m, x, p - x->exp);
                p -= x->exp;
            }
        }
        rc = rc ? rc : add_zeros(&m, p);
        if (width != -1)
            neww = sci ? adjust_width(width - (int64_t)strlen(exp) - 1, sp, neg) : adjust_width(width, sp, neg);
    }
    rc = rc ? rc : magnitude(sb, (const char *)m.data, m.len, sp, neww);
    if (!rc && exp[0]) {
        rc = putc_(sb, sp->upper ? 'E' : 'e');
        rc = rc ? rc : put(sb, exp, strlen(exp));
    }
    weir_buf_fini(&m);
    return rc;
}

static int print_float(weir_buf *out, const spec *sp, const parg *a, weir_buf *sb)
{
    weir_buf_clear(sb);
    int rc = 0;
    dnum x;
    if (a->kind == A_DOUBLE) {
        double v = a->d;
        if (isnan(v)) {
            rc = put(sb, sp->upper ? "NAN" : "NaN", 3);
            return rc ? rc : justified(out, sp, (const char *)sb->data, sb->len);
        }
        bool neg = v < 0 || (v == 0 && signbit(v));
        leading_sign(sb, sp, neg, &rc);
        if (isinf(v)) {
            rc = rc ? rc : put(sb, sp->upper ? "INFINITY" : "Infinity", 8);
        } else if (v == 0) {
            x = (dnum){.d = "0", .nd = 1, .exp = 0};
            rc = rc ? rc : print_float_digits(sb, sp, &x, neg, true, -1);
        } else {
            /* Formatter rounds the JDK's digits of the value (not its shortest text) */
            x.nd = weir__fmt_java_digits(v, false, x.d, &x.exp);
            rc = rc ? rc : print_float_digits(sb, sp, &x, neg, false, -1);
        }
        trailing_sign(sb, sp, neg, &rc);
    } else {
        bool neg = a->dec < 0;
        dec_digits(a->dec, a->scale, &x);
        leading_sign(sb, sp, neg, &rc);
        rc = rc ? rc : print_float_digits(sb, sp, &x, neg, a->dec == 0, a->scale);
        trailing_sign(sb, sp, neg, &rc);
    }
    if (rc)
        return rc;
    if (sp->upper)
        ascii_upper(sb);
    return justified(out, sp, (const char *)sb->data, sb->len);
}

static int print_integer(weir_buf *out, const spec *sp, const parg *a, weir_buf *sb)
{
    weir_buf_clear(sb);
    int64_t v = a->i;
    char digits[32];
    int rc = 0;
    if (sp->conv == 'd') {
        bool neg = v < 0;
        uint64_t mag = neg ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
        int n = snprintf(digits, sizeof digits, "%llu", (unsigned long long)mag);
        leading_sign(sb, sp, neg, &rc);
        rc = rc ? rc : magnitude(sb, digits, (size_t)n, sp, adjust_width(sp->width, sp, neg));
        trailing_sign(sb, sp, neg, &rc);
    } else {
        if (sp->flags & (PF_PAREN | PF_SPACE | PF_PLUS))
            return PF_NULL; /* FormatFlagsConversionMismatchException */
        uint64_t u = a->kind == A_INT ? (uint64_t)(uint32_t)(int32_t)v : (uint64_t)v;
        int n = snprintf(digits, sizeof digits, sp->conv == 'o' ? "%llo" : "%llx", (unsigned long long)u);
        const char *pre = !(sp->flags & PF_ALT) ? "" : sp->conv == 'o' ? "0" : "0x";
        int64_t len = n + (int64_t)strlen(pre);
        rc = put(sb, pre, strlen(pre));
        if (!rc && (sp->flags & PF_ZERO))
            for (int64_t k = len; k < sp->width && !rc; k++)
                rc = putc_(sb, '0');
        rc = rc ? rc : put(sb, digits, (size_t)n);
    }
    if (rc)
        return rc;
    if (sp->upper)
        ascii_upper(sb);
    return justified(out, sp, (const char *)sb->data, sb->len);
}

/* BigDecimal.toString: plain, or d.dddE-n when the exponent is below -6. */
static int decimal_text(weir_buf *b, weir_i128 v, int scale)
{
    dnum x;
    dec_digits(v, scale, &x);
    int rc = v < 0 ? putc_(b, '-') : 0;
    int adjusted = x.nd - 1 - scale;
    if (scale == 0 || adjusted >= -6) {
        char buf[64];
        size_t n = weir__dec_format(v < 0 ? -v : v, scale, buf);
        return rc ? rc : put(b, buf, n);
    }
    rc = rc ? rc : putc_(b, x.d[0]);
    if (x.nd > 1 && !rc) {
        rc = putc_(b, '.');
        rc = rc ? rc : put(b, x.d + 1, (size_t)(x.nd - 1));
    }
    return rc ? rc : weir_buf_printf(b, "E%d", adjusted);
}

/* The toString() of an argument (the %s text). */
static int arg_text(weir_buf *b, const parg *a)
{
    char buf[48];
    switch (a->kind) {
    case A_NULL: return put(b, "null", 4);
    case A_BOOL: return a->b ? put(b, "true", 4) : put(b, "false", 5);
    case A_INT:
    case A_LONG: return weir_buf_printf(b, "%lld", (long long)a->i);
    case A_DOUBLE: return put(b, buf, weir__fmt_double(a->d, buf));
    case A_DECIMAL: return decimal_text(b, a->dec, a->scale);
    case A_STRING: return put(b, a->s.ptr, a->s.len);
    }
    return 0;
}

/* ---- specifiers ---- */

/* Java's checks made when a specifier is parsed; false: Java throws. */
static bool spec_ok(const spec *sp)
{
    int f = sp->flags;
    switch (sp->conv) {
    case 'b':
    case 's':
        if (sp->conv == 'b' && (f & PF_ALT))
            return false;
        if (sp->width == -1 && (f & PF_LEFT))
            return false;
        return !(f & (PF_PLUS | PF_SPACE | PF_ZERO | PF_GROUP | PF_PAREN));
    case 'c':
        if (sp->prec != -1 || (f & (PF_ALT | PF_PLUS | PF_SPACE | PF_ZERO | PF_GROUP | PF_PAREN)))
            return false;
        return !(sp->width == -1 && (f & PF_LEFT));
    case 'd':
    case 'o':
    case 'x':
    case 'e':
    case 'f':
    case 'g':
        if (sp->width == -1 && (f & (PF_LEFT | PF_ZERO)))
            return false;
        if (((f & PF_PLUS) && (f & PF_SPACE)) || ((f & PF_LEFT) && (f & PF_ZERO)))
            return false;
        if (sp->conv == 'd' || sp->conv == 'o' || sp->conv == 'x') {
            if (sp->prec != -1)
                return false;
            return sp->conv == 'd' ? !(f & PF_ALT) : !(f & PF_GROUP);
        }
        if (sp->conv == 'e')
            return !(f & PF_GROUP);
        if (sp->conv == 'g')
            return !(f & PF_ALT);
        return true;
    case '%':
        return sp->prec == -1 && (f == 0 || f == PF_LEFT) && !(sp->width == -1 && (f & PF_LEFT));
    case 'n':
        return sp->prec == -1 && sp->width == -1 && f == 0;
    }
    return false;
}

/* Reads an unsigned decimal at *p; -2 when it overflows Java's int. */
static int64_t read_num(const char *s, size_t len, size_t *p)
{
    int64_t v = 0;
    while (*p < len && s[*p] >= '0' && s[*p] <= '9') {
        v = v * 10 + (s[*p] - '0');
        if (v > INT32_MAX)
            v = INT32_MAX + (int64_t)1; /* keep reading; flagged below */
        (*p)++;
    }
    return v > INT32_MAX ? -2 : v;
}

/* Formats one row into out: 0, PF_NULL, or an error (ENOMEM; the width
 * limit, set on cx for the row). */
static int format_row(ecx *cx, uint32_t row, xstr fmt, const parg *args, uint32_t n_args, weir_buf *out,
                      weir_buf *sb, weir_buf *tmp)
{
    const char *s = fmt.ptr;
    size_t len = fmt.len, i = 0;
    int64_t last = -1, ordinary = -1;
    int rc = 0;
    while (i < len && !rc) {
        if (s[i] != '%') {
            size_t j = i;
            while (j < len && s[j] != '%')
                j++;
            rc = put(out, s + i, j - i);
            i = j;
            continue;
        }
        i++;
        spec sp = {.width = -1, .prec = -1};
        int64_t index = 0; /* 0 ordinary, > 0 explicit */
        size_t save = i;
        int64_t num = read_num(s, len, &i);
        if (i > save && i < len && s[i] == '$') {
            if (num <= 0)
                return PF_NULL;
            index = num;
            i++;
        } else {
            i = save;
        }
        for (; i < len; i++) {
            const char *fl = strchr("-#+ 0,(<", s[i]);
            if (!fl || !s[i])
                break;
            int bit = 1 << (fl - "-#+ 0,(<");
            if (sp.flags & bit)
                return PF_NULL; /* DuplicateFormatFlagsException */
            sp.flags |= bit;
        }
        if (i < len && s[i] >= '1' && s[i] <= '9') {
            sp.width = read_num(s, len, &i);
            if (sp.width == -2)
                return PF_NULL;
        }
        if (i < len && s[i] == '.') {
            i++;
            if (i >= len || s[i] < '0' || s[i] > '9')
                return PF_NULL;
            sp.prec = read_num(s, len, &i);
            if (sp.prec == -2)
                return PF_NULL;
        }
        if (i >= len)
            return PF_NULL; /* UnknownFormatConversionException */
        char c = s[i++];
        if (c == 't' || c == 'T' || c == 'h' || c == 'H' || c == 'a' || c == 'A')
            return PF_NULL; /* not built: see the header */
        if (c >= 'A' && c <= 'Z' && strchr("BSCXEG", c)) {
            sp.upper = true;
            c = (char)(c + 32);
        }
        if (!strchr("bscdoxefg%n", c) || !c)
            return PF_NULL;
        sp.conv = c;
        if (!spec_ok(&sp))
            return PF_NULL;
        if (sp.width > PF_MAX_WIDTH || sp.prec > PF_MAX_WIDTH) {
            weir__x_fail(cx, row, "PRINTF: a width or precision of %lld is over weir's limit of %d",
                         (long long)(sp.width > sp.prec ? sp.width : sp.prec), PF_MAX_WIDTH);
            return WEIR_EINVAL;
        }
        if (c == '%') {
            rc = justified(out, &sp, "%", 1);
            continue;
        }
        if (c == 'n') {
            rc = putc_(out, '\n');
            continue;
        }
        /* the argument */
        int64_t k;
        if (sp.flags & PF_PREV)
            k = last;
        else if (index > 0)
            k = index - 1;
        else
            k = ++ordinary;
        if (k < 0 || k >= (int64_t)n_args)
            return PF_NULL; /* MissingFormatArgumentException */
        last = k;
        const parg *a = &args[k];
        switch (c) {
        case 'b':
            rc = print_text(out, &sp, a->kind == A_NULL || (a->kind == A_BOOL && !a->b) ? "false" : "true",
                            a->kind == A_NULL || (a->kind == A_BOOL && !a->b) ? 5 : 4, tmp);
            break;
        case 's':
            if (sp.flags & PF_ALT)
                return PF_NULL; /* not Formattable */
            weir_buf_clear(sb);
            rc = arg_text(sb, a);
            rc = rc ? rc : print_text(out, &sp, (const char *)sb->data, sb->len, tmp);
            break;
        case 'c': {
            if (a->kind == A_NULL) {
                rc = print_text(out, &sp, "null", 4, tmp);
                break;
            }
            if (a->kind != A_INT || a->i < 0 || a->i > 0x10FFFF)
                return PF_NULL;
            char o[4];
            uint32_t cp = (uint32_t)a->i;
            uint32_t n = cp >= 0xD800 && cp <= 0xDFFF ? (o[0] = '?', 1) : weir__utf8_encode(cp, o);
            spec t = sp;
            t.prec = -1;
            rc = print_text(out, &t, o, n, tmp);
            break;
        }
        case 'd':
        case 'o':
        case 'x':
            if (a->kind == A_NULL) {
                rc = print_text(out, &sp, "null", 4, tmp);
                break;
            }
            if (a->kind != A_INT && a->kind != A_LONG)
                return PF_NULL; /* IllegalFormatConversionException */
            rc = print_integer(out, &sp, a, sb);
            break;
        default: /* e f g */
            if (a->kind == A_NULL) {
                rc = print_text(out, &sp, "null", 4, tmp);
                break;
            }
            if (a->kind != A_DOUBLE && a->kind != A_DECIMAL)
                return PF_NULL;
            rc = print_float(out, &sp, a, sb);
            break;
        }
    }
    return rc;
}

static int printf_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    uint32_t na = e->n_args - 1;
    parg *args = weir__x_alloc(cx, sizeof(parg) * (na ? na : 1));
    if (!args)
        return weir_error_set(cx->err, WEIR_ENOMEM, "out of memory");
    weir_buf b, sb, tmp;
    weir_buf_init(&b);
    weir_buf_init(&sb);
    weir_buf_init(&tmp);
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (!(act == NULL || act[i]))
            continue;
        if (a[0].nulls && a[0].nulls[i]) {
            x_setnull(cx, out, i);
            continue;
        }
        for (uint32_t k = 0; k < na; k++) {
            const xvec *v = &a[k + 1];
            parg *p = &args[k];
            if ((v->nulls && v->nulls[i]) || v->type.id == WEIR_TYPE_NULL) {
                p->kind = A_NULL;
                continue;
            }
            switch (v->type.id) {
            case WEIR_TYPE_BOOLEAN: p->kind = A_BOOL, p->b = ((const uint8_t *)v->data)[i]; break;
            case WEIR_TYPE_INT: p->kind = A_INT, p->i = ((const int32_t *)v->data)[i]; break;
            case WEIR_TYPE_BIGINT: p->kind = A_LONG, p->i = ((const int64_t *)v->data)[i]; break;
            case WEIR_TYPE_DOUBLE: p->kind = A_DOUBLE, p->d = ((const double *)v->data)[i]; break;
            case WEIR_TYPE_DECIMAL:
                p->kind = A_DECIMAL;
                p->scale = v->type.scale;
                if (weir_type_is_wide(v->type)) {
                    weir_i128 w;
                    memcpy(&w, (const char *)v->data + (size_t)i * 16, 16);
                    p->dec = w;
                } else {
                    p->dec = ((const int64_t *)v->data)[i];
                }
                break;
            default: p->kind = A_STRING, p->s = ((const xstr *)v->data)[i]; break;
            }
        }
        weir_buf_clear(&b);
        rc = format_row(cx, i, ((const xstr *)a[0].data)[i], args, na, &b, &sb, &tmp);
        if (rc == PF_NULL) {
            x_setnull(cx, out, i);
            rc = 0;
        } else if (!rc) {
            rc = x_put_str(cx, out, i, b.data, b.len);
            if (rc)
                weir_error_set(cx->err, WEIR_ENOMEM, "out of memory");
        } else if (rc == WEIR_ENOMEM) {
            weir_error_set(cx->err, WEIR_ENOMEM, "out of memory");
        }
    }
    weir_buf_fini(&b);
    weir_buf_fini(&sb);
    weir_buf_fini(&tmp);
    return rc;
}

static int bind_printf(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                       weir_error *err)
{
    if (n < 1)
        return weir__bad_args(f, args, n, err);
    if (args[0]->type.id == WEIR_TYPE_NULL && weir__coerce(a, &args[0], tmake(WEIR_TYPE_STRING, true), err))
        return err->code;
    if (args[0]->type.id != WEIR_TYPE_STRING)
        return weir__bad_args(f, args, n, err);
    for (uint32_t k = 1; k < n; k++) {
        weir_type t = args[k]->type;
        bool native = !args[k]->iv && (t.id == WEIR_TYPE_NULL || t.id == WEIR_TYPE_BOOLEAN || t.id == WEIR_TYPE_INT ||
                                      t.id == WEIR_TYPE_BIGINT || t.id == WEIR_TYPE_DOUBLE ||
                                      t.id == WEIR_TYPE_DECIMAL || t.id == WEIR_TYPE_STRING);
        /* any other type (an INTERVAL too) formats as its text */
        if (!native &&
            weir__build_cast(a, args[k], tmake(WEIR_TYPE_STRING, t.nullable), false, false, &args[k], err))
            return err->code;
    }
    /* NULL only for a NULL format or where Java throws */
    *out = weir__call_node(a, f, args, n, tmake(WEIR_TYPE_STRING, true), printf_kernel, F_MAYNULL);
    return *out ? 0 : weir_error_set(err, WEIR_ENOMEM, "out of memory");
}

const xfunc weir__funcs_printf[] = {
    {"PRINTF", "PRINTF(STRING, any...)", bind_printf, 0},
    {NULL, NULL, NULL, 0},
};
