/*
 * format/csv_decode.c - RFC 4180 CSV records into typed rows.
 *
 * Fields are separated by the configured delimiter. A field that starts
 * with the quote character runs to the matching quote; a doubled quote inside
 * it is one quote, and delimiters and line breaks inside it are data. A
 * quote character inside an unquoted field is taken literally, as Flink's
 * (Jackson's) CSV reader does.
 *
 * NULL: an unquoted empty field is NULL for every type except STRING and
 * BYTES (where it is empty), and an unquoted field equal to csv.null-literal
 * is NULL for every type. Numbers and booleans are trimmed of spaces and
 * tabs. The record must have exactly as many fields as the schema has
 * columns.
 */
#include <stdio.h>
#include <string.h>

#include "format/codec.h"
#include "format/convert.h"

#define FAIL(d, at, ...) weir__decode_fail((d), (at), __VA_ARGS__)

static const char *describe_char(const char *p, const char *end, char *buf,
                                 size_t cap)
{
    if (p >= end)
        snprintf(buf, cap, "end of record");
    else if ((unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7f)
        snprintf(buf, cap, "'%c'", *p);
    else
        snprintf(buf, cap, "byte 0x%02x", (unsigned char)*p);
    return buf;
}

static int store_null(weir_decoder *d, uint32_t col, const char *at,
                      const char *found)
{
    if (!weir__null_ok(d, col, at, found))
        return WEIR_EPARSE;
    d->isnull[col] = 1;
    return 0;
}

int weir__csv_decode(weir_decoder *d, const char *rec, size_t len,
                     weir_batch *b)
{
    const char *p = rec, *end = rec + len;
    const char q = d->opt.csv_quote_character,
               delim = d->opt.csv_field_delimiter;
    uint32_t row = b->n_rows;
    uint32_t col = 0;
    char msg[64];
    for (;;) {
        const char *fstart = p, *s;
        const char *unescaped_from = NULL; /* a quoted field's text, when s is its copy */
        size_t n;
        bool quoted = false;
        if (col >= d->ncols) {
            FAIL(d, fstart - 1,
                 "expected end of record after %u fields, found '%c'", d->ncols,
                 delim);
            return WEIR_EPARSE;
        }
        if (q && p < end && *p == q) {
            quoted = true;
            const char *cs = ++p, *close;
            bool doubled = false;
            for (;;) {
                close = memchr(p, q, (size_t)(end - p));
                if (!close) {
                    FAIL(d, fstart,
                         "expected '%c' to end the quoted field, found end of "
                         "record",
                         q);
                    return WEIR_EPARSE;
                }
                if (close + 1 < end && close[1] == q) {
                    doubled = true;
                    p = close + 2;
                    continue;
                }
                break;
            }
            s = cs;
            n = (size_t)(close - cs);
            if (doubled) {
                weir_buf *sc = &d->scratch;
                weir_buf_clear(sc);
                if (weir_buf_reserve(sc, n + 1)) {
                    d->oom = true;
                    FAIL(d, fstart, "out of memory");
                    return WEIR_ENOMEM;
                }
                char *o = (char *)sc->data;
                size_t on = 0;
                for (size_t i = 0; i < n; i++) {
                    o[on++] = cs[i];
                    if (cs[i] == q)
                        i++; /* the second quote of a pair */
                }
                s = o;
                n = on;
                unescaped_from = cs;
            }
            p = close + 1;
            if (p < end && *p != delim) {
                FAIL(d, p,
                     "expected '%c' or end of record after a quoted field, "
                     "found %s",
                     delim, describe_char(p, end, msg, sizeof msg));
                return WEIR_EPARSE;
            }
        } else {
            const char *dp = memchr(p, delim, (size_t)(end - p));
            const char *fe = dp ? dp : end;
            s = p;
            n = (size_t)(fe - p);
            p = fe;
        }
        weir_type_id t = d->schema->fields[col].type.id;
        int rc = 0;
        if (!quoted && d->null_literal && n == d->null_literal_len &&
            memcmp(s, d->null_literal, n) == 0) {
            rc = store_null(d, col, fstart, "the null literal");
        } else if (t == WEIR_TYPE_STRING) {
            size_t ascii = weir__ascii_prefix(s, n);
            size_t bad =
                ascii == n ? n
                           : ascii + weir__fmt_utf8_check(s + ascii, n - ascii);
            if (bad != n) {
                /* In the copy of a field with doubled quotes, each quote
                 * before the bad byte stood for two in the record. */
                const char *at = s + bad;
                if (unescaped_from) {
                    at = unescaped_from;
                    for (size_t i = 0; i < bad; i++)
                        at += s[i] == q ? 2 : 1;
                }
                FAIL(d, at, "expected valid UTF-8 in field \"%s\", found %s",
                     d->schema->fields[col].name,
                     describe_char(s + bad, s + n, msg, sizeof msg));
                return WEIR_EPARSE;
            }
            d->isnull[col] = 0;
            rc = weir__put_str(b, col, row, s, n);
            if (rc) {
                d->oom = true;
                FAIL(d, fstart, "out of memory");
            }
        } else if (t == WEIR_TYPE_BIGINT &&
                   weir__fast_i64(s, n, &WEIR_COL_I64(b, col)[row])) {
            d->isnull[col] = 0;
        } else if (weir_type_is_time(t) &&
                   weir__fast_ts(s, n, &WEIR_COL_I64(b, col)[row])) {
            d->isnull[col] = 0;
        } else {
            const char *ts = s;
            size_t tn = n;
            weir__fmt_trim(&ts, &tn);
            if (!quoted && tn == 0 && t != WEIR_TYPE_BYTES)
                rc = store_null(d, col, fstart, "an empty field");
            else
                rc = weir__store_text(d, b, col, row, s, n, fstart, s, n);
        }
        if (rc)
            return rc == WEIR_ENOMEM ? WEIR_ENOMEM : WEIR_EPARSE;
        col++;
        if (p >= end)
            break;
        p++; /* the delimiter */
    }
    if (col < d->ncols) {
        FAIL(d, end, "expected %u fields, found %u", d->ncols, col);
        return WEIR_EPARSE;
    }
    weir__finish_row(d, b, row);
    return 0;
}
