/*
 * rest/json.h - a small streaming JSON writer over weir_buf (internal to
 * src/rest/).
 *
 * Calls nest as the document does: jw_obj / jw_arr open a value (with a
 * key inside an object, key NULL inside an array), jw_end closes it; the
 * writer puts the commas. The first failure (out of memory) sticks in
 * w->rc and every later call does nothing.
 */
#ifndef WEIR_REST_JSON_H
#define WEIR_REST_JSON_H

#include <stdbool.h>
#include <stdint.h>

#include "weir/buf.h"

#define JW_MAX_DEPTH 32

typedef struct jw {
    weir_buf *b;
    int rc;
    int depth;
    bool first[JW_MAX_DEPTH]; /* no value yet at this depth */
    char close[JW_MAX_DEPTH]; /* what closes this depth */
} jw;

void jw_init(jw *w, weir_buf *b);
void jw_obj(jw *w, const char *key);
void jw_arr(jw *w, const char *key);
void jw_end(jw *w);
void jw_str(jw *w, const char *key, const char *v); /* NULL: null */
void jw_strn(jw *w, const char *key, const char *v, size_t n);
void jw_int(jw *w, const char *key, int64_t v);
void jw_uint(jw *w, const char *key, uint64_t v);
void jw_num(jw *w, const char *key, double v); /* not finite: null */
void jw_bool(jw *w, const char *key, bool v);
void jw_null(jw *w, const char *key);
/* A watermark: an integer, or null for "none yet" (WEIR_TS_MIN) and the
 * string "end" for end of input (WEIR_TS_MAX). */
void jw_wm(jw *w, const char *key, int64_t wm);
/* Appends s as a JSON string literal (quotes included). */
int jw_quote(weir_buf *b, const char *s, size_t n);

#endif
