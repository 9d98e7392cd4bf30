/*
 * format/encode.c - rows to JSON lines, CSV, debezium-json, and Flink's
 * print format.
 *
 * Encoders append to a caller's weir_buf (reused across rows, so steady
 * state allocates nothing). Object keys are escaped once, at create time.
 * Text forms match the decoders: whatever an encoder writes, the decoder of
 * the same format reads back to the same row (the CSV exception: a NULL
 * STRING or BYTES is written as an empty field and reads back empty, unless
 * csv.null-literal is set).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "format/codec.h"
#include "format/convert.h"
#include "record/nested.h"
#include "util/dec128.h"
#include "time/timefmt.h"
#include "weir/format.h"

struct weir_encoder {
    weir_format_options opt;
    char *null_literal;
    const weir_schema *schema;
    uint32_t ncols;
    weir_buf keys;     /* "\"name\":" for every column, back to back */
    uint32_t *key_off; /* ncols + 1 offsets into keys */
};

int weir_encoder_create(const weir_format_options *opt,
                        const weir_schema *schema, weir_encoder **out,
                        weir_error *err)
{
    *out = NULL;
    if (!opt || !schema)
        return weir_error_set(err, WEIR_EINVAL,
                              "encoder: missing options or schema");
    if (opt->kind != WEIR_FORMAT_JSON && opt->kind != WEIR_FORMAT_CSV &&
        opt->kind != WEIR_FORMAT_DEBEZIUM_JSON)
        return weir_error_set(err, WEIR_EINVAL, "encoder: unknown format %d",
                              (int)opt->kind);
    for (uint32_t c = 0; c < schema->n_fields; c++)
        if (schema->fields[c].type.id == WEIR_TYPE_NULL)
            return weir_error_set(
                err, WEIR_EUNSUPPORTED,
                "field \"%s\" has type NULL, which no format stores",
                schema->fields[c].name);
    int nrc = weir__format_nested_check(opt->kind, schema, err);
    if (nrc)
        return nrc;
    weir_encoder *e = weir_calloc(1, sizeof *e);
    if (!e)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    e->opt = *opt;
    e->schema = schema;
    e->ncols = schema->n_fields;
    weir_buf_init(&e->keys);
    e->key_off = weir_calloc(e->ncols + 1, sizeof *e->key_off);
    if (!e->key_off)
        goto nomem;
    if (opt->csv_null_literal) {
        if (!(e->null_literal = weir_strdup(opt->csv_null_literal)))
            goto nomem;
        e->opt.csv_null_literal = e->null_literal;
    }
    for (uint32_t c = 0; c < e->ncols; c++) {
        e->key_off[c] = (uint32_t)e->keys.len;
        const char *name = schema->fields[c].name;
        if (weir__fmt_json_put_string(&e->keys, name, strlen(name)) ||
            weir_buf_put_u8(&e->keys, ':'))
            goto nomem;
    }
    e->key_off[e->ncols] = (uint32_t)e->keys.len;
    *out = e;
    return 0;
nomem:
    weir_encoder_destroy(e);
    return weir_error_set(err, WEIR_ENOMEM, "out of memory");
}

void weir_encoder_destroy(weir_encoder *e)
{
    if (!e)
        return;
    weir_buf_fini(&e->keys);
    weir_free(e->key_off);
    weir_free(e->null_literal);
    weir_free(e);
}

/* ---- JSON ---- */

/* Text of a non-string scalar; returns its length (buf has 64 bytes). */
static size_t scalar_text(const weir_batch *b, uint32_t col, uint32_t row,
                          bool iso, char *buf)
{
    const weir_column *c = &b->cols[col];
    switch (c->type.id) {
    case WEIR_TYPE_BOOLEAN:
        if (WEIR_COL_BOOL(b, col)[row]) {
            memcpy(buf, "true", 5);
            return 4;
        }
        memcpy(buf, "false", 6);
        return 5;
    case WEIR_TYPE_INT:
        return weir__fmt_format_i64(WEIR_COL_I32(b, col)[row], buf);
    case WEIR_TYPE_BIGINT:
        return weir__fmt_format_i64(WEIR_COL_I64(b, col)[row], buf);
    case WEIR_TYPE_DOUBLE:
        return weir__fmt_format_f64_java(WEIR_COL_F64(b, col)[row], buf);
    case WEIR_TYPE_DECIMAL:
        return weir__fmt_format_decimal_at(c->data, row, c->type, buf);
    case WEIR_TYPE_TIMESTAMP:
    case WEIR_TYPE_TIMESTAMP_LTZ: {
        size_t n = weir__fmt_format_ts_fast(WEIR_COL_I64(b, col)[row], buf);
        char *sp = iso ? strchr(buf, ' ') : NULL;
        if (sp)
            *sp = 'T';
        if (c->type.id == WEIR_TYPE_TIMESTAMP)
            return n;
        buf[n++] = 'Z';
        buf[n] = '\0';
        return n;
    }
    case WEIR_TYPE_DATE:
        return weir__format_date(WEIR_COL_I32(b, col)[row], buf, 64);
    case WEIR_TYPE_TIME:
        /* "HH:mm:ss" and the fraction's digits without trailing zeros */
        return weir__format_time(WEIR_COL_I32(b, col)[row], -1, buf, 64);
    default:
        buf[0] = '\0';
        return 0;
    }
}

static int json_put_value(const weir_batch *b, uint32_t col, uint32_t row,
                          weir_type declared, bool iso, weir_buf *out)
{
    if (weir_batch_is_null(b, col, row))
        return weir_buf_put(out, "null", 4);
    weir_type_id t = b->cols[col].type.id;
    if (weir_type_is_nested(t)) {
        uint32_t n;
        const char *s = weir_batch_str(b, col, row, &n);
        /* the table's type names the ROW fields (a query's ROW(...) has EXPR$n) */
        weir_type dt = weir_type_is_nested(declared.id) ? declared : b->cols[col].type;
        return weir_format_nested_json(out, dt, s, n, iso);
    }
    if (t == WEIR_TYPE_STRING) {
        uint32_t n;
        const char *s = weir_batch_str(b, col, row, &n);
        return weir__fmt_json_put_string(out, s, n);
    }
    if (t == WEIR_TYPE_BYTES) {
        uint32_t n;
        const char *s = weir_batch_str(b, col, row, &n);
        int rc = weir_buf_put_u8(out, '"');
        if (!rc)
            rc = weir__fmt_base64_encode((const uint8_t *)s, n, out);
        return rc ? rc : weir_buf_put_u8(out, '"');
    }
    char buf[64];
    size_t n = scalar_text(b, col, row, iso, buf);
    bool quote = weir_type_is_time(t) || weir_type_is_date_time(t) || (t == WEIR_TYPE_DOUBLE &&
                                          !isfinite(WEIR_COL_F64(b, col)[row]));
    int rc = weir_buf_reserve(out, n + 2);
    if (rc)
        return rc;
    if (quote)
        out->data[out->len++] = '"';
    memcpy(out->data + out->len, buf, n);
    out->len += n;
    if (quote)
        out->data[out->len++] = '"';
    return 0;
}

static int json_put_object(weir_encoder *e, const weir_batch *b, uint32_t row,
                           weir_buf *out)
{
    int rc = weir_buf_put_u8(out, '{');
    bool first = true;
    for (uint32_t c = 0; c < e->ncols && !rc; c++) {
        if (e->opt.json_ignore_null_fields && weir_batch_is_null(b, c, row))
            continue;
        if (!first && (rc = weir_buf_put_u8(out, ',')))
            break;
        first = false;
        rc = weir_buf_put(out, e->keys.data + e->key_off[c],
                          e->key_off[c + 1] - e->key_off[c]);
        if (!rc)
            rc = json_put_value(b, c, row, e->schema->fields[c].type,
                                e->opt.json_timestamp_iso8601, out);
    }
    return rc ? rc : weir_buf_put_u8(out, '}');
}

/* ---- CSV ---- */

static int csv_put_text(weir_encoder *e, const char *s, size_t n, weir_buf *out)
{
    const char q = e->opt.csv_quote_character,
               delim = e->opt.csv_field_delimiter;
    bool need = false;
    if (q) {
        for (size_t i = 0; i < n && !need; i++)
            need = s[i] == delim || s[i] == q || s[i] == '\n' || s[i] == '\r';
        if (n && (s[0] == ' ' || s[0] == '\t' || s[n - 1] == ' ' ||
                  s[n - 1] == '\t'))
            need = true;
        if (!need && e->null_literal && strlen(e->null_literal) == n &&
            memcmp(s, e->null_literal, n) == 0)
            need = true; /* a value that reads as NULL unless quoted */
        if (!need && n && s[0] == '#' && e->opt.csv_allow_comments)
            need = true;
    }
    if (!need)
        return weir_buf_put(out, s, n);
    int rc = weir_buf_reserve(out, n + 2);
    if (rc)
        return rc;
    out->data[out->len++] = (uint8_t)q;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == q && (rc = weir_buf_put_u8(out, (uint8_t)q)))
            return rc;
        if ((rc = weir_buf_put_u8(out, (uint8_t)s[i])))
            return rc;
    }
    return weir_buf_put_u8(out, (uint8_t)q);
}

static int csv_put_row(weir_encoder *e, const weir_batch *b, uint32_t row,
                       weir_buf *out)
{
    int rc = 0;
    for (uint32_t c = 0; c < e->ncols && !rc; c++) {
        if (c &&
            (rc = weir_buf_put_u8(out, (uint8_t)e->opt.csv_field_delimiter)))
            break;
        if (weir_batch_is_null(b, c, row)) {
            if (e->null_literal)
                rc =
                    weir_buf_put(out, e->null_literal, strlen(e->null_literal));
            continue;
        }
        weir_type_id t = b->cols[c].type.id;
        if (t == WEIR_TYPE_STRING) {
            uint32_t n;
            const char *s = weir_batch_str(b, c, row, &n);
            rc = csv_put_text(e, s, n, out);
        } else if (t == WEIR_TYPE_BYTES) {
            uint32_t n;
            const char *s = weir_batch_str(b, c, row, &n);
            rc = weir__fmt_base64_encode((const uint8_t *)s, n, out);
        } else {
            char buf[64];
            size_t n = scalar_text(b, c, row, false, buf);
            rc = weir_buf_put(out, buf, n);
        }
    }
    return rc;
}

int weir_encoder_header(weir_encoder *e, weir_buf *out)
{
    if (e->opt.kind != WEIR_FORMAT_CSV || !e->opt.csv_header)
        return 0;
    int rc = 0;
    for (uint32_t c = 0; c < e->ncols && !rc; c++) {
        if (c)
            rc = weir_buf_put_u8(out, (uint8_t)e->opt.csv_field_delimiter);
        const char *name = e->schema->fields[c].name;
        if (!rc)
            rc = csv_put_text(e, name, strlen(name), out);
    }
    return rc ? rc : weir_buf_put_u8(out, '\n');
}

int weir_encoder_encode(weir_encoder *e, const weir_batch *b, uint32_t row,
                        weir_buf *out, weir_error *err)
{
    weir_row_kind kind = (weir_row_kind)b->kind[row];
    size_t mark = out->len;
    int rc;
    if (e->opt.kind == WEIR_FORMAT_DEBEZIUM_JSON) {
        bool after = kind == WEIR_ROW_INSERT || kind == WEIR_ROW_UPDATE_AFTER;
        rc = weir_buf_put(out, "{\"before\":", 10);
        if (!rc)
            rc = after ? weir_buf_put(out, "null", 4)
                       : json_put_object(e, b, row, out);
        if (!rc)
            rc = weir_buf_put(out, ",\"after\":", 9);
        if (!rc)
            rc = after ? json_put_object(e, b, row, out)
                       : weir_buf_put(out, "null", 4);
        if (!rc)
            rc = weir_buf_put(
                out, after ? ",\"op\":\"c\"}\n" : ",\"op\":\"d\"}\n", 11);
    } else {
        if (kind != WEIR_ROW_INSERT)
            return weir_error_set(err, WEIR_EUNSUPPORTED,
                                  "format '%s' writes only inserts (+I), got a "
                                  "%s row; use 'debezium-json' "
                                  "for a changelog",
                                  weir_format_name(e->opt.kind),
                                  weir_row_kind_name(kind));
        rc = e->opt.kind == WEIR_FORMAT_CSV ? csv_put_row(e, b, row, out)
                                            : json_put_object(e, b, row, out);
        if (!rc)
            rc = weir_buf_put_u8(out, '\n');
    }
    if (rc) {
        out->len = mark;
        return weir_error_set(err, rc, "out of memory");
    }
    return 0;
}

/* ---- Flink's print format (Java toString of each value) ---- */

/* BigDecimal.toString: plain unless the adjusted exponent is below -6. */
static size_t java_decimal(__int128 unscaled, int scale, char *buf)
{
    if (scale <= 0)
        return weir__dec_format(unscaled, 0, buf);
    char digits[48];
    size_t nd = weir__dec_format(unscaled < 0 ? -unscaled : unscaled, 0, digits);
    int64_t adjusted = -(int64_t)scale + ((int64_t)nd - 1);
    if (adjusted >= -6)
        return weir__dec_format(unscaled, scale, buf);
    size_t o = 0;
    if (unscaled < 0)
        buf[o++] = '-';
    buf[o++] = digits[0];
    if (nd > 1) {
        buf[o++] = '.';
        memcpy(buf + o, digits + 1, nd - 1);
        o += nd - 1;
    }
    o += (size_t)sprintf(buf + o, "E%lld", (long long)adjusted);
    return o;
}

static size_t java_year(int64_t y, char *buf)
{
    if (y > 9999)
        return (size_t)sprintf(buf, "+%lld", (long long)y);
    if (y < 0)
        return (size_t)sprintf(buf, "-%04lld", (long long)-y);
    return (size_t)sprintf(buf, "%04lld", (long long)y);
}

/* LocalDateTime.toString (ltz false) or Instant.toString (ltz true). */
static size_t java_datetime(int64_t ms, bool ltz, char *buf)
{
    weir__civil c;
    weir__civil_from_ms(ms, &c);
    size_t o = java_year(c.year, buf);
    o += (size_t)sprintf(buf + o, "-%02d-%02dT%02d:%02d", c.month, c.day,
                         c.hour, c.minute);
    if (ltz || c.second || c.millis)
        o += (size_t)sprintf(buf + o, ":%02d", c.second);
    if (c.millis)
        o += (size_t)sprintf(buf + o, ".%03d", c.millis);
    if (ltz)
        buf[o++] = 'Z';
    buf[o] = '\0';
    return o;
}

/* LocalDate.toString and LocalTime.toString ("HH:mm", ":ss" unless zero with
 * no fraction, ".SSS" when there are milliseconds). */
static size_t java_date(int32_t days, char *buf)
{
    weir__civil c;
    weir__civil_from_ms((int64_t)days * WEIR__MS_PER_DAY, &c);
    size_t o = java_year(c.year, buf);
    return o + (size_t)sprintf(buf + o, "-%02d-%02d", c.month, c.day);
}

static size_t java_time(int32_t ms, char *buf)
{
    int s = ms / 1000 % 60, f = ms % 1000;
    size_t o = (size_t)sprintf(buf, "%02d:%02d", ms / 3600000, ms / 60000 % 60);
    if (s || f)
        o += (size_t)sprintf(buf + o, ":%02d", s);
    if (f)
        o += (size_t)sprintf(buf + o, ".%03d", f);
    return o;
}

/* ---- nested values ---- */

/* The bytes of a fixed-width entry as a one-row column of type t. */
static size_t raw_scalar(weir_type t, const uint8_t *v, bool print, bool iso, char *buf)
{
    int64_t i64 = 0;
    switch (t.id) {
    case WEIR_TYPE_BOOLEAN:
        return (size_t)sprintf(buf, "%s", v[0] ? "true" : "false");
    case WEIR_TYPE_INT: {
        int32_t i;
        memcpy(&i, v, 4);
        return weir__fmt_format_i64(i, buf);
    }
    case WEIR_TYPE_DOUBLE: {
        double d;
        memcpy(&d, v, 8);
        return weir__fmt_format_f64_java(d, buf);
    }
    case WEIR_TYPE_DECIMAL: {
        __int128 u;
        if (weir_type_is_wide(t)) {
            memcpy(&u, v, 16);
        } else {
            memcpy(&i64, v, 8);
            u = i64;
        }
        return print ? java_decimal(u, t.scale, buf) : weir__dec_format(u, t.scale, buf);
    }
    case WEIR_TYPE_TIMESTAMP:
    case WEIR_TYPE_TIMESTAMP_LTZ: {
        memcpy(&i64, v, 8);
        if (print)
            return java_datetime(i64, t.id == WEIR_TYPE_TIMESTAMP_LTZ, buf);
        size_t n = weir__fmt_format_ts_fast(i64, buf);
        char *sp = iso ? strchr(buf, ' ') : NULL;
        if (sp)
            *sp = 'T';
        if (t.id == WEIR_TYPE_TIMESTAMP_LTZ) {
            buf[n++] = 'Z';
            buf[n] = '\0';
        }
        return n;
    }
    case WEIR_TYPE_DATE:
    case WEIR_TYPE_TIME: {
        int32_t i;
        memcpy(&i, v, 4);
        if (t.id == WEIR_TYPE_DATE)
            return print ? java_date(i, buf) : weir__format_date(i, buf, 64);
        return print ? java_time(i, buf) : weir__format_time(i, -1, buf, 64);
    }
    default:
        memcpy(&i64, v, 8);
        return weir__fmt_format_i64(i64, buf);
    }
}

static int nested_text(weir_buf *out, weir_type t, const uint8_t *v, uint32_t len, int depth);

/* One element in the print format: null, a scalar, or a nested value. */
static int text_entry(weir_buf *out, weir_type et, bool is_null, const uint8_t *v, uint32_t len, int depth)
{
    if (is_null)
        return weir_buf_put(out, "null", 4);
    if (weir_type_is_nested(et.id))
        return nested_text(out, et, v, len, depth + 1);
    if (et.id == WEIR_TYPE_STRING)
        return weir_buf_put(out, v, len);
    if (et.id == WEIR_TYPE_BYTES) {
        int rc = weir_buf_put_u8(out, '[');
        char buf[16];
        for (uint32_t i = 0; i < len && !rc; i++)
            rc = weir_buf_put(out, buf, (size_t)sprintf(buf, "%s%d", i ? ", " : "", (int)(int8_t)v[i]));
        return rc ? rc : weir_buf_put_u8(out, ']');
    }
    char buf[64];
    return weir_buf_put(out, buf, raw_scalar(et, v, true, false, buf));
}

static int nested_text(weir_buf *out, weir_type t, const uint8_t *v, uint32_t len, int depth)
{
    const weir_nested_type *d = weir_type_nested(t);
    if (!d || depth > WEIR__JSON_NEST_MAX)
        return weir_buf_put(out, "?", 1);
    weir_nv_iter it;
    uint32_t n = weir_nv_open(t, v, len, &it);
    bool is_null;
    const uint8_t *ev;
    uint32_t el;
    int rc = t.id == WEIR_TYPE_ROW ? weir_buf_put(out, "+I[", 3) : weir_buf_put_u8(out, weir_type_is_mapish(t.id) ? '{' : '[');
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (i)
            rc = weir_buf_put(out, ", ", 2);
        weir_type et = d->elems[t.id == WEIR_TYPE_ROW ? i : 0];
        if (!rc && weir_nv_next(&it, et, &is_null, &ev, &el))
            rc = text_entry(out, et, is_null, ev, el, depth);
        if (!rc && weir_type_is_mapish(t.id) && (rc = weir_buf_put_u8(out, '=')) == 0 &&
            weir_nv_next(&it, d->elems[1], &is_null, &ev, &el))
            rc = text_entry(out, d->elems[1], is_null, ev, el, depth);
    }
    return rc ? rc : weir_buf_put_u8(out, weir_type_is_mapish(t.id) ? '}' : ']');
}

int weir_format_nested_text(weir_buf *out, weir_type t, const void *v, uint32_t len)
{
    return nested_text(out, t, v, len, 0);
}

static int nested_json(weir_buf *out, weir_type t, const uint8_t *v, uint32_t len, bool iso, int depth);

static int json_entry(weir_buf *out, weir_type et, bool is_null, const uint8_t *v, uint32_t len, bool iso, int depth)
{
    if (is_null)
        return weir_buf_put(out, "null", 4);
    if (weir_type_is_nested(et.id))
        return nested_json(out, et, v, len, iso, depth + 1);
    if (et.id == WEIR_TYPE_STRING)
        return weir__fmt_json_put_string(out, (const char *)v, len);
    if (et.id == WEIR_TYPE_BYTES) {
        int rc = weir_buf_put_u8(out, '"');
        if (!rc)
            rc = weir__fmt_base64_encode(v, len, out);
        return rc ? rc : weir_buf_put_u8(out, '"');
    }
    char buf[64];
    size_t n = raw_scalar(et, v, false, iso, buf);
    double d = 0;
    if (et.id == WEIR_TYPE_DOUBLE)
        memcpy(&d, v, 8);
    bool quote = weir_type_is_time(et.id) || weir_type_is_date_time(et.id) || (et.id == WEIR_TYPE_DOUBLE && !isfinite(d));
    int rc = quote ? weir_buf_put_u8(out, '"') : 0;
    if (!rc)
        rc = weir_buf_put(out, buf, n);
    return rc || !quote ? rc : weir_buf_put_u8(out, '"');
}

static int nested_json(weir_buf *out, weir_type t, const uint8_t *v, uint32_t len, bool iso, int depth)
{
    const weir_nested_type *d = weir_type_nested(t);
    if (!d || depth > WEIR__JSON_NEST_MAX)
        return weir_buf_put(out, "null", 4);
    weir_nv_iter it;
    uint32_t n = weir_nv_open(t, v, len, &it);
    bool is_null;
    const uint8_t *ev;
    uint32_t el;
    int rc = weir_buf_put_u8(out, t.id == WEIR_TYPE_ARRAY ? '[' : '{');
    weir_buf key;
    weir_buf_init(&key);
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (i)
            rc = weir_buf_put_u8(out, ',');
        if (!rc && t.id == WEIR_TYPE_ROW)
            rc = weir__fmt_json_put_string(out, d->names[i], strlen(d->names[i]));
        if (!rc && weir_type_is_mapish(t.id) && weir_nv_next(&it, d->elems[0], &is_null, &ev, &el)) {
            /* a JSON object key is text: a non-STRING key is written as its text */
            weir_buf_clear(&key);
            if (d->elems[0].id == WEIR_TYPE_STRING)
                rc = weir_buf_put(&key, ev, el);
            else
                rc = text_entry(&key, d->elems[0], is_null, ev, el, depth);
            if (!rc)
                rc = weir__fmt_json_put_string(out, (const char *)key.data, key.len);
        }
        if (!rc && t.id != WEIR_TYPE_ARRAY)
            rc = weir_buf_put_u8(out, ':');
        weir_type et = d->elems[t.id == WEIR_TYPE_ROW ? i : weir_type_is_mapish(t.id) ? 1 : 0];
        if (!rc && weir_nv_next(&it, et, &is_null, &ev, &el))
            rc = json_entry(out, et, is_null, ev, el, iso, depth);
    }
    weir_buf_fini(&key);
    return rc ? rc : weir_buf_put_u8(out, t.id == WEIR_TYPE_ARRAY ? ']' : '}');
}

int weir_format_nested_json(weir_buf *out, weir_type t, const void *v, uint32_t len, bool iso)
{
    return nested_json(out, t, v, len, iso, 0);
}

int weir_format_print_value(const weir_batch *b, uint32_t col, uint32_t row,
                            weir_buf *out)
{
    if (weir_batch_is_null(b, col, row))
        return weir_buf_put(out, "null", 4);
    const weir_column *c = &b->cols[col];
    char buf[64];
    size_t n;
    switch (c->type.id) {
    case WEIR_TYPE_ARRAY:
    case WEIR_TYPE_MAP:
    case WEIR_TYPE_MULTISET:
    case WEIR_TYPE_ROW: {
        uint32_t len;
        const char *s = weir_batch_str(b, col, row, &len);
        return weir_format_nested_text(out, c->type, s, len);
    }
    case WEIR_TYPE_STRING: {
        uint32_t len;
        const char *s = weir_batch_str(b, col, row, &len);
        return weir_buf_put(out, s, len);
    }
    case WEIR_TYPE_BYTES: {
        uint32_t len;
        const char *s = weir_batch_str(b, col, row, &len);
        int rc = weir_buf_put_u8(out, '[');
        for (uint32_t i = 0; i < len && !rc; i++) {
            n = (size_t)sprintf(buf, "%s%d", i ? ", " : "", (int)(int8_t)s[i]);
            rc = weir_buf_put(out, buf, n);
        }
        return rc ? rc : weir_buf_put_u8(out, ']');
    }
    case WEIR_TYPE_DECIMAL:
        if (weir_type_is_wide(c->type)) {
            __int128 v;
            memcpy(&v, (const char *)c->data + (size_t)row * 16, 16);
            n = java_decimal(v, c->type.scale, buf);
        } else {
            n = java_decimal(WEIR_COL_I64(b, col)[row], c->type.scale, buf);
        }
        break;
    case WEIR_TYPE_TIMESTAMP:
    case WEIR_TYPE_TIMESTAMP_LTZ:
        n = java_datetime(WEIR_COL_I64(b, col)[row],
                          c->type.id == WEIR_TYPE_TIMESTAMP_LTZ, buf);
        break;
    case WEIR_TYPE_DATE: n = java_date(WEIR_COL_I32(b, col)[row], buf); break;
    case WEIR_TYPE_TIME: n = java_time(WEIR_COL_I32(b, col)[row], buf); break;
    case WEIR_TYPE_BIGINT:
        n = weir_type_interval(c->type)
                ? weir__fmt_format_interval(WEIR_COL_I64(b, col)[row], weir_type_interval(c->type), buf)
                : scalar_text(b, col, row, false, buf);
        break;
    default:
        n = scalar_text(b, col, row, false, buf);
        break;
    }
    return weir_buf_put(out, buf, n);
}

int weir_format_print_row(const weir_batch *b, uint32_t row, weir_buf *out)
{
    int rc =
        weir_buf_put(out, weir_row_kind_name((weir_row_kind)b->kind[row]), 2);
    if (!rc)
        rc = weir_buf_put_u8(out, '[');
    for (uint32_t c = 0; c < b->schema->n_fields && !rc; c++) {
        if (c)
            rc = weir_buf_put(out, ", ", 2);
        if (!rc)
            rc = weir_format_print_value(b, c, row, out);
    }
    return rc ? rc : weir_buf_put_u8(out, ']');
}
