/*
 * expr/f_text.c - string functions of Flink's list added after f_string.c:
 * LEFT, RIGHT, STARTSWITH, ENDSWITH, TO_BASE64, FROM_BASE64.
 *
 * Lengths count characters (code points, as f_string.c); every function is
 * NULL when an argument is.
 */
#include "expr/expr_internal.h"
#include "format/convert.h"
#include "weir/buf.h"

enum { T_LEFT, T_RIGHT, T_STARTS, T_ENDS, T_TO_B64, T_FROM_B64 };

static int nomem_b(weir_error *err) { return weir_error_set(err, WEIR_ENOMEM, "out of memory"); }

/* Byte offset of character k of s (clamped to the end). */
static uint32_t char_off(xstr s, int64_t k)
{
    uint32_t i = 0;
    for (; k > 0 && i < s.len; k--) {
        i++;
        while (i < s.len && ((unsigned char)s.ptr[i] & 0xC0) == 0x80)
            i++;
    }
    return i;
}

static uint32_t nchars(xstr s)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < s.len; i++)
        n += ((unsigned char)s.ptr[i] & 0xC0) != 0x80;
    return n;
}

static int text_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    weir_buf b;
    weir_buf_init(&b);
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (!x_live(out, act, i))
            continue;
        xstr s = ((const xstr *)a[0].data)[i];
        switch (e->p0) {
        case T_LEFT:
        case T_RIGHT: {
            /* a negative length gives '' (Flink) */
            int64_t k = ((const int32_t *)a[1].data)[i];
            if (k < 0)
                k = 0;
            uint32_t cut = e->p0 == T_LEFT ? char_off(s, k) : char_off(s, (int64_t)nchars(s) - k);
            ((xstr *)out->data)[i] = e->p0 == T_LEFT ? (xstr){s.ptr, cut} : (xstr){s.ptr + cut, s.len - cut};
            break;
        }
        case T_STARTS:
        case T_ENDS: {
            xstr x = ((const xstr *)a[1].data)[i];
            bool hit = x.len <= s.len &&
                       (!x.len || !memcmp(e->p0 == T_STARTS ? s.ptr : s.ptr + s.len - x.len, x.ptr, x.len));
            ((uint8_t *)out->data)[i] = hit;
            break;
        }
        case T_TO_B64:
        case T_FROM_B64: {
            weir_buf_clear(&b);
            if (e->p0 == T_TO_B64) {
                rc = weir__fmt_base64_encode((const uint8_t *)s.ptr, s.len, &b);
            } else {
                size_t len = 0;
                rc = weir_buf_reserve(&b, (size_t)s.len * 3 / 4 + 1);
                if (!rc && weir__fmt_base64_decode(s.ptr, s.len, b.data, &len)) {
                    rc = weir__x_fail(cx, i, "FROM_BASE64: '%.*s' is not base64", (int)(s.len > 40 ? 40 : s.len),
                                      s.ptr);
                    break;
                }
                b.len = len;
            }
            char *o = rc ? NULL : x_str(cx, b.len);
            if (!o) {
                rc = WEIR_ENOMEM;
                break;
            }
            if (b.len)
                memcpy(o, b.data, b.len);
            ((xstr *)out->data)[i] = (xstr){o, (uint32_t)b.len};
            break;
        }
        }
    }
    weir_buf_fini(&b);
    return rc == WEIR_ENOMEM ? weir_error_set(cx->err, WEIR_ENOMEM, "out of memory") : rc;
}

static int bind_text(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                     weir_error *err)
{
    int64_t fn = f->param;
    uint32_t want = fn == T_TO_B64 || fn == T_FROM_B64 ? 1 : 2;
    if (n != want)
        return weir__bad_args(f, args, n, err);
    weir_type_id rt = WEIR_TYPE_STRING;
    if (fn == T_STARTS || fn == T_ENDS) {
        /* STRING with STRING or BYTES with BYTES */
        weir_type_id t = args[0]->type.id == WEIR_TYPE_NULL ? args[1]->type.id : args[0]->type.id;
        if (t != WEIR_TYPE_BYTES)
            t = WEIR_TYPE_STRING;
        for (uint32_t k = 0; k < n; k++) {
            if (args[k]->type.id == WEIR_TYPE_NULL && weir__coerce(a, &args[k], tmake(t, true), err))
                return err->code;
            if (args[k]->type.id != t || args[k]->iv)
                return weir__bad_args(f, args, n, err);
        }
        rt = WEIR_TYPE_BOOLEAN;
    } else {
        int rc = weir__need_strings(a, f, args, n, 1, err);
        if (rc)
            return rc;
    }
    *out = weir__call_node(a, f, args, n, tmake(rt, weir__any_nullable(args, n)), text_kernel, F_STRICT);
    if (!*out)
        return nomem_b(err);
    (*out)->p0 = fn;
    return 0;
}

const xfunc weir__funcs_text[] = {
    {"LEFT", "LEFT(STRING, INT)", bind_text, T_LEFT},
    {"RIGHT", "RIGHT(STRING, INT)", bind_text, T_RIGHT},
    {"STARTSWITH", "STARTSWITH(STRING, STRING) or (BYTES, BYTES)", bind_text, T_STARTS},
    {"ENDSWITH", "ENDSWITH(STRING, STRING) or (BYTES, BYTES)", bind_text, T_ENDS},
    {"TO_BASE64", "TO_BASE64(STRING)", bind_text, T_TO_B64},
    {"FROM_BASE64", "FROM_BASE64(STRING)", bind_text, T_FROM_B64},
    {NULL, NULL, NULL, 0},
};
