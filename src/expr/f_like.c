/*
 * expr/f_like.c - LIKE (with ESCAPE), and the argument checks the pattern
 * functions share (f_regex.c, f_regex_posix.c).
 *
 * LIKE patterns with only leading/trailing '%' use memcmp/memmem; the
 * others match with backtracking to the last '%'.
 */
#include <stdio.h>

#include "expr/expr_internal.h"

#define STR(k) (((const xstr *)a[k].data)[i])

/* ---- LIKE ---- */

enum { LK_GENERAL, LK_EXACT, LK_PREFIX, LK_SUFFIX, LK_CONTAINS, LK_ALL };

typedef struct likepat {
    int kind;
    xstr lit;  /* for the fast kinds */
    xstr pat;  /* general: the pattern */
    int esc;   /* escape byte or -1 */
} likepat;

static inline uint32_t u8len(unsigned char c) { return c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4; }

/* Wildcard match with backtracking to the last '%' (linear in practice). esc < 0: none. */
static bool like_match(xstr s, xstr p, int esc)
{
    uint32_t si = 0, pi = 0, star_p = UINT32_MAX, star_s = 0;
    while (si < s.len) {
        if (pi < p.len) {
            char pc = p.ptr[pi];
            if (esc >= 0 && (unsigned char)pc == esc && pi + 1 < p.len) {
                if (s.ptr[si] == p.ptr[pi + 1]) {
                    si++, pi += 2;
                    continue;
                }
            } else if (pc == '%') {
                star_p = ++pi;
                star_s = si;
                continue;
            } else if (pc == '_') {
                si += u8len((unsigned char)s.ptr[si]);
                pi++;
                continue;
            } else if (pc == s.ptr[si]) {
                si++, pi++;
                continue;
            }
        }
        if (star_p == UINT32_MAX)
            return false;
        star_s += u8len((unsigned char)s.ptr[star_s]);
        si = star_s;
        pi = star_p;
    }
    if (si > s.len)
        return false;
    while (pi < p.len && p.ptr[pi] == '%')
        pi++;
    return pi == p.len;
}

static int check_escapes(xstr p, int esc, char *msg, size_t cap)
{
    if (esc < 0)
        return 0;
    for (uint32_t i = 0; i < p.len; i++) {
        if ((unsigned char)p.ptr[i] != esc)
            continue;
        if (i + 1 >= p.len || (p.ptr[i + 1] != '%' && p.ptr[i + 1] != '_' && (unsigned char)p.ptr[i + 1] != esc)) {
            snprintf(msg, cap, "invalid escape sequence in LIKE pattern '%.*s'", (int)p.len, p.ptr);
            return -1;
        }
        i++;
    }
    return 0;
}

static void classify(likepat *lp)
{
    xstr p = lp->pat;
    lp->kind = LK_GENERAL;
    if (lp->esc >= 0 && memchr(p.ptr, lp->esc, p.len))
        return;
    if (memchr(p.ptr, '_', p.len))
        return;
    uint32_t b = 0, e = p.len;
    while (b < e && p.ptr[b] == '%')
        b++;
    while (e > b && p.ptr[e - 1] == '%')
        e--;
    if (memchr(p.ptr + b, '%', e - b))
        return;
    lp->lit = (xstr){p.ptr + b, e - b};
    bool lead = b > 0, trail = e < p.len;
    if (b == p.len)
        lp->kind = LK_ALL;
    else
        lp->kind = lead && trail ? LK_CONTAINS : lead ? LK_SUFFIX : trail ? LK_PREFIX : LK_EXACT;
}

static bool like_fast(const likepat *lp, xstr s)
{
    xstr l = lp->lit;
    switch (lp->kind) {
    case LK_ALL: return true;
    case LK_EXACT: return s.len == l.len && !memcmp(s.ptr, l.ptr, l.len);
    case LK_PREFIX: return s.len >= l.len && !memcmp(s.ptr, l.ptr, l.len);
    case LK_SUFFIX: return s.len >= l.len && !memcmp(s.ptr + s.len - l.len, l.ptr, l.len);
    case LK_CONTAINS: return l.len == 0 || (s.len >= l.len && memmem(s.ptr, s.len, l.ptr, l.len) != NULL);
    default: return like_match(s, lp->pat, lp->esc);
    }
}

static int like_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    uint8_t *o = out->data;
    bool neg = e->p0 != 0;
    const likepat *lp = e->aux;
    if (lp) {
        const xstr *s = a[0].data;
        for (uint32_t i = 0; i < n; i++)
            o[i] = like_fast(lp, s[i]) != neg;
        return 0;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (!x_live(out, act, i))
            continue;
        int esc = -1;
        if (e->n_args > 2) {
            xstr es = STR(2);
            if (es.len != 1)
                return weir__x_fail(cx, i, "the LIKE escape must be one character, not '%.*s'", (int)es.len, es.ptr);
            esc = (unsigned char)es.ptr[0];
        }
        char msg[200];
        if (check_escapes(STR(1), esc, msg, sizeof msg))
            return weir__x_fail(cx, i, "%s", msg);
        o[i] = like_match(STR(0), STR(1), esc) != neg;
    }
    return 0;
}

static int nomem_b(weir_error *err) { return weir_error_set(err, WEIR_ENOMEM, "out of memory"); }

/* Checks that the first nstr arguments are STRING and the rest INT (NULL literals and BIGINT are coerced). */
int weir__need_strings(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, uint32_t nstr,
                        weir_error *err)
{
    for (uint32_t k = 0; k < n; k++) {
        weir_type_id want = k < nstr ? WEIR_TYPE_STRING : WEIR_TYPE_INT;
        weir_type_id id = args[k]->type.id;
        if (id == WEIR_TYPE_NULL) {
            if (weir__coerce(a, &args[k], tmake(want, true), err))
                return err->code;
            continue;
        }
        if (want == WEIR_TYPE_INT && id == WEIR_TYPE_BIGINT) {
            if (weir__build_cast(a, args[k], tmake(WEIR_TYPE_INT, args[k]->type.nullable), false, true, &args[k], err))
                return err->code;
            continue;
        }
        if (id != want || args[k]->iv)
            return weir__bad_args(f, args, n, err);
    }
    return 0;
}

bool weir__lit_str(const weir_expr *e, xstr *s)
{
    if (e->kind != N_LITERAL || e->lit.is_null)
        return false;
    *s = e->lit.v.s;
    return true;
}

int weir__bind_like(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                     weir_error *err)
{
    if (n != 2 && n != 3)
        return weir__bad_args(f, args, n, err);
    int rc = weir__need_strings(a, f, args, n, n, err);
    if (rc)
        return rc;
    weir_expr *e = weir__call_node(a, f, args, n, tmake(WEIR_TYPE_BOOLEAN, weir__any_nullable(args, n)), like_kernel,
                                   F_STRICT);
    if (!e)
        return nomem_b(err);
    e->p0 = f->param;
    xstr pat, es = {0};
    if (weir__lit_str(args[1], &pat) && (n == 2 || weir__lit_str(args[2], &es))) {
        likepat *lp = weir__arena_alloc(a, sizeof *lp);
        if (!lp)
            return nomem_b(err);
        lp->pat = pat;
        lp->esc = -1;
        if (n == 3) {
            if (es.len != 1)
                return weir_error_set(err, WEIR_EPLAN, "the LIKE escape must be one character, not '%.*s'",
                                      (int)es.len, es.ptr);
            lp->esc = (unsigned char)es.ptr[0];
        }
        char msg[200];
        if (check_escapes(pat, lp->esc, msg, sizeof msg))
            return weir_error_set(err, WEIR_EPLAN, "%s", msg);
        classify(lp);
        e->aux = lp;
    }
    *out = e;
    return 0;
}
