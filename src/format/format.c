/*
 * format/format.c - format options, decoder life cycle, record framing and
 * the typed store shared by the JSON and CSV decoders.
 *
 * Invariant kept by every decoder: a record either becomes one complete row
 * (every column written: a value or NULL) or leaves the batch exactly as it
 * was (row count and string heap restored).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "format/codec.h"
#include "format/convert.h"
#include "time/timefmt.h"

void weir_format_options_init(weir_format_options *o, weir_format_kind kind)
{
    memset(o, 0, sizeof *o);
    o->kind = kind;
    o->csv_field_delimiter = ',';
    o->csv_quote_character = '"';
}

const char *weir_format_name(weir_format_kind kind)
{
    switch (kind) {
    case WEIR_FORMAT_JSON:
        return "json";
    case WEIR_FORMAT_CSV:
        return "csv";
    case WEIR_FORMAT_DEBEZIUM_JSON:
        return "debezium-json";
    }
    return "?";
}

int weir_format_parse_name(const char *name, weir_format_kind *out)
{
    if (!name)
        return WEIR_EINVAL;
    if (strcmp(name, "json") == 0)
        *out = WEIR_FORMAT_JSON;
    else if (strcmp(name, "csv") == 0)
        *out = WEIR_FORMAT_CSV;
    else if (strcmp(name, "debezium-json") == 0)
        *out = WEIR_FORMAT_DEBEZIUM_JSON;
    else
        return WEIR_EINVAL;
    return 0;
}

const char *weir_format_extension(weir_format_kind kind)
{
    return kind == WEIR_FORMAT_CSV ? "csv" : "json";
}

bool weir_format_is_changelog(weir_format_kind kind)
{
    return kind == WEIR_FORMAT_DEBEZIUM_JSON;
}

/* ---- decoder life cycle ---- */

/* A nested type that the format cannot store: MAP keys other than STRING in
 * JSON (an object's keys are text), ARRAY/MAP/ROW in CSV. */
static bool nested_ok(weir_format_kind kind, weir_type t, char *why, size_t cap)
{
    const weir_nested_type *d = weir_type_nested(t);
    if (!d)
        return true;
    char tb[256];
    if (kind == WEIR_FORMAT_CSV) {
        snprintf(why, cap, "format 'csv' does not support type %s; use format 'json'",
                 weir_type_format(t, tb, sizeof tb));
        return false;
    }
    if (t.id == WEIR_TYPE_MULTISET && d->elems[0].id != WEIR_TYPE_STRING) {
        snprintf(why, cap,
                 "format '%s' reads and writes a MULTISET as a JSON object of element -> count: the element type of %s "
                 "must be STRING",
                 weir_format_name(kind), weir_type_format(t, tb, sizeof tb));
        return false;
    }
    if (t.id == WEIR_TYPE_MAP && d->elems[0].id != WEIR_TYPE_STRING) {
        snprintf(why, cap, "format '%s' reads and writes MAP keys as JSON object keys: the key type of %s must be STRING",
                 weir_format_name(kind), weir_type_format(t, tb, sizeof tb));
        return false;
    }
    for (uint32_t i = 0; i < d->n; i++)
        if (!nested_ok(kind, d->elems[i], why, cap))
            return false;
    return true;
}

int weir__format_nested_check(weir_format_kind kind, const weir_schema *schema, weir_error *err)
{
    char why[512];
    for (uint32_t c = 0; c < schema->n_fields; c++)
        if (!nested_ok(kind, schema->fields[c].type, why, sizeof why))
            return weir_error_set(err, WEIR_EUNSUPPORTED, "field \"%s\": %s", schema->fields[c].name, why);
    return 0;
}

int weir_decoder_create(const weir_format_options *opt,
                        const weir_schema *schema, weir_decoder **out,
                        weir_error *err)
{
    *out = NULL;
    if (!opt || !schema)
        return weir_error_set(err, WEIR_EINVAL,
                              "decoder: missing options or schema");
    if (opt->kind != WEIR_FORMAT_JSON && opt->kind != WEIR_FORMAT_CSV &&
        opt->kind != WEIR_FORMAT_DEBEZIUM_JSON)
        return weir_error_set(err, WEIR_EINVAL, "decoder: unknown format %d",
                              (int)opt->kind);
    if (opt->kind == WEIR_FORMAT_CSV &&
        (opt->csv_field_delimiter == '\n' || opt->csv_field_delimiter == '\r' ||
         opt->csv_field_delimiter == 0 ||
         opt->csv_field_delimiter == opt->csv_quote_character))
        return weir_error_set(
            err, WEIR_EINVAL,
            "csv.field-delimiter must be one character other than a line break "
            "or the quote character");
    for (uint32_t c = 0; c < schema->n_fields; c++) {
        if (schema->fields[c].type.id == WEIR_TYPE_NULL)
            return weir_error_set(
                err, WEIR_EUNSUPPORTED,
                "field \"%s\" has type NULL, which no format stores",
                schema->fields[c].name);
    }
    int nrc = weir__format_nested_check(opt->kind, schema, err);
    if (nrc)
        return nrc;
    weir_decoder *d = weir_calloc(1, sizeof *d);
    if (!d)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    d->opt = *opt;
    d->schema = schema;
    d->ncols = schema->n_fields;
    weir_buf_init(&d->scratch);
    weir_buf_init(&d->nested);
    uint32_t n = d->ncols ? d->ncols : 1;
    d->type_desc = weir_calloc(n, sizeof *d->type_desc);
    d->seen = weir_calloc(n, sizeof *d->seen);
    d->isnull = weir_calloc(n, 1);
    d->name_len = weir_calloc(n, sizeof *d->name_len);
    if (!d->type_desc || !d->seen || !d->isnull || !d->name_len)
        goto nomem;
    if (opt->csv_null_literal) {
        d->null_literal = weir_strdup(opt->csv_null_literal);
        if (!d->null_literal)
            goto nomem;
        d->null_literal_len = strlen(d->null_literal);
        d->opt.csv_null_literal = d->null_literal;
    }
    for (uint32_t c = 0; c < d->ncols; c++) {
        weir_type t = schema->fields[c].type;
        t.nullable = true; /* describe the type without NOT NULL */
        weir_type_format(t, d->type_desc[c], sizeof d->type_desc[c]);
        d->name_len[c] = (uint32_t)strlen(schema->fields[c].name);
    }
    if (opt->kind != WEIR_FORMAT_CSV && weir__json_decoder_init(d))
        goto nomem;
    *out = d;
    return 0;
nomem:
    weir_decoder_destroy(d);
    return weir_error_set(err, WEIR_ENOMEM, "out of memory");
}

void weir_decoder_destroy(weir_decoder *d)
{
    if (!d)
        return;
    weir_free(d->null_literal);
    weir_free(d->type_desc);
    weir_free(d->seen);
    weir_free(d->isnull);
    weir_free(d->name_len);
    weir_free(d->slots);
    weir_free(d->key_pat);
    weir_free(d->key_pat_len);
    if (d->require_why)
        for (uint32_t c = 0; c < d->ncols; c++)
            weir_free(d->require_why[c]);
    weir_free(d->require_why);
    weir_buf_fini(&d->scratch);
    weir_buf_fini(&d->nested);
    weir_free(d);
}

int weir_decoder_require(weir_decoder *d, uint32_t col, const char *why)
{
    if (!d || col >= d->ncols || !why)
        return WEIR_EINVAL;
    if (!d->require_why) {
        d->require_why = weir_calloc(d->ncols, sizeof *d->require_why);
        if (!d->require_why)
            return WEIR_ENOMEM;
    }
    char *copy = weir_strdup(why);
    if (!copy)
        return WEIR_ENOMEM;
    weir_free(d->require_why[col]);
    d->require_why[col] = copy;
    return 0;
}

bool weir__null_ok(weir_decoder *d, uint32_t col, const char *at,
                   const char *found)
{
    const char *name = d->schema->fields[col].name;
    if (!d->schema->fields[col].type.nullable)
        weir__decode_fail(d, at,
                          "expected a non-null value for NOT NULL field "
                          "\"%s\", found %s",
                          name, found);
    else if (d->require_why && d->require_why[col])
        weir__decode_fail(d, at,
                          "expected a non-null value for field \"%s\" (%s), "
                          "found %s",
                          name, d->require_why[col], found);
    else
        return true;
    return false;
}

bool weir__missing_ok(weir_decoder *d, uint32_t col, const char *at)
{
    const char *name = d->schema->fields[col].name;
    if (!d->schema->fields[col].type.nullable)
        weir__decode_fail(d, at,
                          "expected field \"%s\" in the object (it is NOT "
                          "NULL)",
                          name);
    else if (d->require_why && d->require_why[col])
        weir__decode_fail(d, at, "expected field \"%s\" in the object (%s)",
                          name, d->require_why[col]);
    else
        return true;
    return false;
}

uint32_t weir_decoder_rows_per_record(const weir_decoder *d)
{
    return d && d->opt.kind == WEIR_FORMAT_DEBEZIUM_JSON ? 2 : 1;
}

int weir_decoder_decode(weir_decoder *d, const char *rec, size_t len,
                        weir_batch *out, weir_decode_error *e)
{
    weir_decode_error dummy;
    if (out->n_rows >= out->capacity ||
        out->capacity - out->n_rows < weir_decoder_rows_per_record(d))
        return WEIR_EINVAL;
    d->rec = rec;
    d->err = e ? e : &dummy;
    d->err->pos = 0;
    d->err->message[0] = '\0';
    size_t heap_mark = out->heap_len;
    d->oom = false;
    int rc = d->opt.kind == WEIR_FORMAT_CSV ? weir__csv_decode(d, rec, len, out)
             : d->opt.kind == WEIR_FORMAT_DEBEZIUM_JSON
                 ? weir__debezium_decode(d, rec, len, out)
                 : weir__json_decode(d, rec, len, out);
    if (rc)
        out->heap_len = heap_mark;
    if (rc == WEIR_EPARSE && d->oom)
        rc = WEIR_ENOMEM;
    return rc;
}

int weir_decoder_decode_line(weir_decoder *d, const char *buf, size_t len,
                             size_t max_len, weir_batch *out, weir_frame *f)
{
    if (d->opt.kind != WEIR_FORMAT_JSON || out->n_rows >= out->capacity)
        return WEIR_EAGAIN;
    weir_decode_error dummy;
    d->rec = buf;
    d->err = &dummy;
    d->oom = false;
    d->line_mode = true;
    size_t heap_mark = out->heap_len;
    /* A record over max_len bytes ends past buf + max_len: framing takes it. */
    int rc = weir__json_decode(d, buf, len > max_len ? max_len + 1 : len, out);
    d->line_mode = false;
    if (rc) {
        out->heap_len = heap_mark;
        return WEIR_EAGAIN;
    }
    size_t n = (size_t)(d->line_end - buf);
    f->consumed = n + 1;
    f->newlines = 1;
    f->rec_len = n && buf[n - 1] == '\r' ? n - 1 : n;
    return 0;
}

const char *weir__decode_fail(weir_decoder *d, const char *at, const char *fmt,
                              ...)
{
    va_list ap;
    d->err->pos = (size_t)(at - d->rec);
    va_start(ap, fmt);
    vsnprintf(d->err->message, sizeof d->err->message, fmt, ap);
    va_end(ap);
    return NULL;
}

void weir__finish_row(weir_decoder *d, weir_batch *b, uint32_t row)
{
    for (uint32_t c = 0; c < d->ncols; c++) {
        if (d->isnull[c])
            weir_batch_set_null(b, c, row);
        else if (!b->cols[c].all_valid)
            b->cols[c].valid[row >> 3] |= (uint8_t)(1u << (row & 7));
    }
    b->ts[row] = 0;
    b->kind[row] = WEIR_ROW_INSERT;
    b->n_rows = row + 1;
}

/* ---- typed store ---- */

static int conv_fail(weir_decoder *d, uint32_t col, const char *at,
                     const char *token, size_t token_len, int rc)
{
    if (rc == WEIR_ENOMEM)
        return rc;
    char found[64];
    weir__fmt_describe_text(token, token_len, found, sizeof found);
    weir_type_id t = d->schema->fields[col].type.id;
    const char *how = "";
    if (weir_type_is_time(t))
        how = " as \"yyyy-MM-dd HH:mm:ss.SSS\"";
    else if (t == WEIR_TYPE_DATE)
        how = " as \"yyyy-MM-dd\"";
    else if (t == WEIR_TYPE_TIME)
        how = " as \"HH:mm:ss\"";
    else if (t == WEIR_TYPE_BYTES)
        how = " as base64";
    weir__decode_fail(d, at, "expected %s%s for field \"%s\", found %s%s",
                      d->type_desc[col], how, d->schema->fields[col].name,
                      found, rc == WEIR__ERANGE ? " (out of range)" : "");
    return WEIR_EPARSE;
}

/* Epoch milliseconds written as a plain integer are accepted for timestamps. */
static bool all_digits(const char *s, size_t n)
{
    size_t i = n && s[0] == '-' ? 1 : 0;
    if (i == n)
        return false;
    for (; i < n; i++)
        if ((unsigned)(s[i] - '0') > 9)
            return false;
    return true;
}

static int store_text(weir_decoder *d, weir_batch *b, uint32_t col,
                      uint32_t row, const char *s, size_t n, const char *at,
                      const char *token, size_t token_len)
{
    weir_column *c = &b->cols[col];
    int rc = 0;
    d->isnull[col] = 0;
    switch (c->type.id) {
    case WEIR_TYPE_STRING:
        return weir_batch_set_str(b, col, row, s, n);
    case WEIR_TYPE_BYTES: {
        char *dst;
        weir_strref ref;
        rc = weir_batch_heap_alloc(b, n / 4 * 3 + 3, &dst, &ref);
        if (rc)
            return rc;
        size_t got = 0;
        rc = weir__fmt_base64_decode(s, n, (uint8_t *)dst, &got);
        if (rc)
            break;
        b->heap_len -= ref.len - got; /* the allocation was the last one */
        ref.len = (uint32_t)got;
        WEIR_COL_STR(b, col)[row] = ref;
        return 0;
    }
    default:
        break;
    }
    if (rc)
        return conv_fail(d, col, at, token, token_len, rc);
    weir__fmt_trim(&s, &n);
    switch (c->type.id) {
    case WEIR_TYPE_BOOLEAN:
        rc = weir__fmt_parse_bool(s, n, &WEIR_COL_BOOL(b, col)[row]);
        break;
    case WEIR_TYPE_INT:
        rc = weir__fmt_parse_i32(s, n, &WEIR_COL_I32(b, col)[row]);
        break;
    case WEIR_TYPE_BIGINT:
        rc = weir__fmt_parse_i64(s, n, &WEIR_COL_I64(b, col)[row]);
        break;
    case WEIR_TYPE_DOUBLE:
        rc = weir__fmt_parse_f64(s, n, &WEIR_COL_F64(b, col)[row]);
        break;
    case WEIR_TYPE_DECIMAL:
        rc = weir__fmt_parse_decimal_at(s, n, c->type, c->data, row);
        break;
    case WEIR_TYPE_TIMESTAMP:
    case WEIR_TYPE_TIMESTAMP_LTZ:
        if (all_digits(s, n)) {
            rc = weir__fmt_parse_i64(s, n, &WEIR_COL_I64(b, col)[row]);
            if (!rc && !weir__fmt_ts_in_range(WEIR_COL_I64(b, col)[row]))
                rc = WEIR__ERANGE;
        } else
            rc = weir__parse_ts(s, n, &WEIR_COL_I64(b, col)[row], NULL);
        break;
    case WEIR_TYPE_DATE:
        rc = weir__fmt_parse_date(s, n, &WEIR_COL_I32(b, col)[row]);
        break;
    case WEIR_TYPE_TIME:
        rc = weir__fmt_parse_time(s, n, c->type.precision, &WEIR_COL_I32(b, col)[row]);
        break;
    default:
        rc = WEIR_EPARSE;
        break;
    }
    if (rc)
        return conv_fail(d, col, at, token, token_len, rc);
    return 0;
}

int weir__store_text(weir_decoder *d, weir_batch *b, uint32_t col, uint32_t row,
                     const char *s, size_t n, const char *at, const char *token,
                     size_t token_len)
{
    int rc = store_text(d, b, col, row, s, n, at, token, token_len);
    if (rc == WEIR_ENOMEM) {
        d->oom = true;
        weir__decode_fail(d, at, "out of memory");
    }
    return rc;
}

/* ---- framing ---- */

static int csv_frame(const weir_decoder *d, const char *buf, size_t len,
                     bool eof, weir_frame *f);

int weir_decoder_frame(const weir_decoder *d, const char *buf, size_t len,
                       bool eof, weir_frame *f)
{
    if (len == 0)
        return eof ? WEIR_EOF : WEIR_EAGAIN;
    if (d->opt.kind == WEIR_FORMAT_CSV && d->opt.csv_quote_character)
        return csv_frame(d, buf, len, eof, f);
    return weir_frame_line(buf, len, eof, f);
}

int weir_frame_line(const char *buf, size_t len, bool eof, weir_frame *f)
{
    if (len == 0)
        return eof ? WEIR_EOF : WEIR_EAGAIN;
    const char *nl = memchr(buf, '\n', len);
    if (!nl) {
        if (!eof)
            return WEIR_EAGAIN;
        f->rec_len = len;
        f->consumed = len;
        f->newlines = 0;
    } else {
        f->rec_len = (size_t)(nl - buf);
        f->consumed = f->rec_len + 1;
        f->newlines = 1;
    }
    if (f->rec_len && buf[f->rec_len - 1] == '\r')
        f->rec_len--;
    return 0;
}

/*
 * CSV records end at a line break outside quotes. A quote opens a quoted
 * field only at the start of a field; inside one, a doubled quote is an
 * escaped quote and a single one closes it. Lines without any quote (the
 * common case) are found with memchr alone.
 *
 * csv_scan runs this state machine over buf[0, len) from state *st and
 * stops at the first line break that ends the record: it returns that
 * break's index (len if there is none, *st then being the state to resume
 * from with the next bytes) and counts the line breaks it passed, the
 * terminating one included.
 */
enum { CSV_FIELD_START, CSV_UNQUOTED, CSV_QUOTED, CSV_QUOTE_IN_QUOTED };

static size_t csv_scan(const weir_decoder *d, uint32_t *st, const char *buf,
                       size_t len, uint32_t *newlines)
{
    const char q = d->opt.csv_quote_character,
               delim = d->opt.csv_field_delimiter;
    size_t pos = 0;
    for (;;) {
        const char *nl = memchr(buf + pos, '\n', len - pos);
        size_t line_end = nl ? (size_t)(nl - buf) : len;
        if (*st != CSV_QUOTED && !memchr(buf + pos, q, line_end - pos)) {
            /* Without quotes only the delimiter moves the state. */
            if (line_end > pos)
                *st = buf[line_end - 1] == delim ? CSV_FIELD_START
                                                 : CSV_UNQUOTED;
        } else {
            for (size_t i = pos; i < line_end; i++) {
                char c = buf[i];
                switch (*st) {
                case CSV_FIELD_START:
                    *st = c == q       ? CSV_QUOTED
                          : c == delim ? CSV_FIELD_START
                                       : CSV_UNQUOTED;
                    break;
                case CSV_UNQUOTED:
                    if (c == delim)
                        *st = CSV_FIELD_START;
                    break;
                case CSV_QUOTED:
                    if (c == q)
                        *st = CSV_QUOTE_IN_QUOTED;
                    break;
                case CSV_QUOTE_IN_QUOTED:
                    *st = c == q       ? CSV_QUOTED
                          : c == delim ? CSV_FIELD_START
                                       : CSV_UNQUOTED;
                    break;
                }
            }
        }
        if (!nl)
            return len;
        (*newlines)++;
        if (*st != CSV_QUOTED) {
            *st = CSV_FIELD_START; /* the next record's */
            return line_end;
        }
        pos = line_end + 1; /* a line break inside a quoted field */
    }
}

static int csv_frame(const weir_decoder *d, const char *buf, size_t len,
                     bool eof, weir_frame *f)
{
    uint32_t st = CSV_FIELD_START, newlines = 0;
    size_t end = csv_scan(d, &st, buf, len, &newlines);
    if (end == len) {
        if (!eof)
            return WEIR_EAGAIN;
        f->rec_len = len;
        f->consumed = len;
    } else {
        f->rec_len = end;
        f->consumed = end + 1;
    }
    f->newlines = newlines;
    if (f->rec_len && buf[f->rec_len - 1] == '\r')
        f->rec_len--;
    return 0;
}

void weir_decoder_skip_init(weir_skip_state *s)
{
    s->state = CSV_FIELD_START;
}

int weir_decoder_skip(const weir_decoder *d, weir_skip_state *s,
                      const char *buf, size_t len, weir_frame *f)
{
    f->newlines = 0;
    size_t end;
    if (d->opt.kind == WEIR_FORMAT_CSV && d->opt.csv_quote_character) {
        end = csv_scan(d, &s->state, buf, len, &f->newlines);
    } else {
        const char *nl = memchr(buf, '\n', len);
        end = nl ? (size_t)(nl - buf) : len;
        f->newlines = nl != NULL;
    }
    if (end == len) {
        f->rec_len = f->consumed = len;
        return WEIR_EAGAIN;
    }
    f->rec_len = end;
    f->consumed = end + 1;
    return 0;
}

bool weir_decoder_is_blank(const weir_decoder *d, const char *rec, size_t len)
{
    if (len && d->opt.kind == WEIR_FORMAT_CSV && d->opt.csv_allow_comments &&
        rec[0] == '#')
        return true;
    for (size_t i = 0; i < len; i++)
        if (rec[i] != ' ' && rec[i] != '\t' && rec[i] != '\r')
            return false;
    return true;
}
