/*
 * rest/json.c - the JSON writer of rest/json.h. Strings are escaped as
 * RFC 8259 asks (quote, backslash, control characters); bytes >= 0x80 pass
 * as they are (weir's names and messages are UTF-8).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rest/json.h"
#include "weir/common.h"

void jw_init(jw *w, weir_buf *b)
{
    memset(w, 0, sizeof *w);
    w->b = b;
    w->first[0] = true;
}

int jw_quote(weir_buf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    int rc = weir_buf_put(b, "\"", 1);
    size_t start = 0, run = 0; /* s[start, start + run) needs no escape */
    for (size_t i = 0; i < n && !rc; i++) {
        unsigned char c = (unsigned char)s[i];
        const char *esc = NULL;
        char u[7];
        if (c == '"')
            esc = "\\\"";
        else if (c == '\\')
            esc = "\\\\";
        else if (c == '\n')
            esc = "\\n";
        else if (c == '\r')
            esc = "\\r";
        else if (c == '\t')
            esc = "\\t";
        else if (c < 0x20) {
            u[0] = '\\', u[1] = 'u', u[2] = '0', u[3] = '0';
            u[4] = hex[c >> 4], u[5] = hex[c & 15], u[6] = 0;
            esc = u;
        }
        if (!esc) {
            run++;
            continue;
        }
        rc = weir_buf_put(b, s + start, run);
        if (!rc)
            rc = weir_buf_put(b, esc, strlen(esc));
        start = i + 1;
        run = 0;
    }
    if (!rc)
        rc = weir_buf_put(b, s + start, run);
    if (!rc)
        rc = weir_buf_put(b, "\"", 1);
    return rc;
}

/* The comma and the key before a value. */
static bool prefix(jw *w, const char *key)
{
    if (w->rc)
        return false;
    if (!w->first[w->depth])
        w->rc = weir_buf_put(w->b, ",", 1);
    w->first[w->depth] = false;
    if (!w->rc && key) {
        w->rc = jw_quote(w->b, key, strlen(key));
        if (!w->rc)
            w->rc = weir_buf_put(w->b, ":", 1);
    }
    return w->rc == 0;
}

static void open_value(jw *w, const char *key, const char *brace)
{
    if (!prefix(w, key))
        return;
    if (w->depth + 1 >= JW_MAX_DEPTH) {
        w->rc = WEIR_EINVAL;
        return;
    }
    w->rc = weir_buf_put(w->b, brace, 1);
    w->first[++w->depth] = true;
    w->close[w->depth] = brace[0] == '{' ? '}' : ']';
}

void jw_obj(jw *w, const char *key) { open_value(w, key, "{"); }
void jw_arr(jw *w, const char *key) { open_value(w, key, "["); }

void jw_end(jw *w)
{
    if (w->rc || w->depth == 0)
        return;
    w->rc = weir_buf_put(w->b, &w->close[w->depth], 1);
    w->depth--;
}

void jw_strn(jw *w, const char *key, const char *v, size_t n)
{
    if (prefix(w, key))
        w->rc = v ? jw_quote(w->b, v, n) : weir_buf_put(w->b, "null", 4);
}

void jw_str(jw *w, const char *key, const char *v)
{
    jw_strn(w, key, v, v ? strlen(v) : 0);
}

void jw_int(jw *w, const char *key, int64_t v)
{
    if (prefix(w, key))
        w->rc = weir_buf_printf(w->b, "%lld", (long long)v);
}

void jw_uint(jw *w, const char *key, uint64_t v)
{
    if (prefix(w, key))
        w->rc = weir_buf_printf(w->b, "%llu", (unsigned long long)v);
}

void jw_num(jw *w, const char *key, double v)
{
    if (!prefix(w, key))
        return;
    if (!isfinite(v))
        w->rc = weir_buf_put(w->b, "null", 4);
    else if (v == (double)(long long)v && fabs(v) < 1e15)
        w->rc = weir_buf_printf(w->b, "%lld", (long long)v);
    else
        w->rc = weir_buf_printf(w->b, "%.6g", v);
}

void jw_bool(jw *w, const char *key, bool v)
{
    if (prefix(w, key))
        w->rc = v ? weir_buf_put(w->b, "true", 4) : weir_buf_put(w->b, "false", 5);
}

void jw_null(jw *w, const char *key)
{
    if (prefix(w, key))
        w->rc = weir_buf_put(w->b, "null", 4);
}

void jw_wm(jw *w, const char *key, int64_t wm)
{
    if (wm == WEIR_TS_MIN)
        jw_null(w, key);
    else if (wm == WEIR_TS_MAX)
        jw_str(w, key, "end");
    else
        jw_int(w, key, wm);
}
