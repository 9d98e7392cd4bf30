/*
 * connector/stdin/stdin_source.c - records from standard input as a source
 * ('connector' = 'stdin'), so `kcat -C ... | weir run job.sql` works.
 *
 * One split ("stdin"), owned by source subtask 0, read in order and bounded
 * by the end of input. Formats: json and csv (framed and decoded as the
 * file source does) and raw (each line, without its line break, is the one
 * STRING or BYTES column). Bad records follow the same policy options as the
 * filesystem source ('source.bad-input' = fail | skip | dead-letter,
 * 'source.dead-letter.path', '<format>.ignore-parse-errors'); messages say
 * "stdin:LINE:COLUMN".
 *
 * The reader never blocks the subtask: it polls the descriptor and reads
 * only what is there, so barriers and timers are served while the pipe is
 * quiet. The position is the byte offset of the next record: a restore can
 * resume only when standard input is a file it can seek in (a pipe cannot
 * be rewound, and the restore says so).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "connector/connector_internal.h"
#include "connector/file/fileio.h"
#include "format/convert.h"

#define STDIN_CHUNK (1u << 16)
#define MAX_RECORD (16u << 20)
#define DEAD_LETTER_RAW_MAX (64u << 10)

typedef struct stdin_arg {
    bool raw;
    weir_format_options fmt;
    char *null_literal;
    weir_bad_input on_bad;
    char *dead_letter_path;
    const weir_schema *schema;
    uint32_t *et_cols;
    uint32_t n_et;
    char *event_time;
    int fd;
} stdin_arg;

typedef struct stdin_source {
    const stdin_arg *a;
    weir_source_info info;
    bool discovered;
    int dl_fd;
    weir_buf dl;
    uint64_t n_records, n_skipped, n_dead_letter;
} stdin_source;

typedef struct stdin_reader {
    stdin_source *s;
    weir_decoder *dec;
    char *buf;
    size_t cap, len, pos; /* buf[pos, len) not consumed */
    uint64_t off;         /* stream offset of buf[0] */
    uint64_t line;        /* line breaks consumed before buf[pos] */
    bool eof, done, header_pending, bom_checked;
} stdin_reader;

static void arg_free(void *p)
{
    stdin_arg *a = p;
    if (!a)
        return;
    weir_free(a->null_literal);
    weir_free(a->dead_letter_path);
    weir_free(a->et_cols);
    weir_free(a->event_time);
    weir_free(a);
}

static int make_decoder(const stdin_arg *a, weir_decoder **out,
                        weir_error *err)
{
    *out = NULL;
    if (a->raw)
        return 0;
    int rc = weir_decoder_create(&a->fmt, a->schema, out, err);
    for (uint32_t i = 0; !rc && i < a->n_et; i++) {
        char why[160];
        const char *col = a->schema->fields[a->et_cols[i]].name;
        if (!a->event_time || !strcasecmp(a->event_time, col))
            snprintf(why, sizeof why, "it is the event time");
        else
            snprintf(why, sizeof why, "the event time %s is computed from it",
                     a->event_time);
        if ((rc = weir_decoder_require(*out, a->et_cols[i], why)))
            rc = weir_error_set(err, rc, "out of memory");
    }
    if (rc) {
        weir_decoder_destroy(*out);
        *out = NULL;
    }
    return rc;
}

static int ss_create(void *argp, const weir_source_info *info, void **out,
                     weir_error *err)
{
    stdin_source *s = weir_calloc(1, sizeof *s);
    if (!s)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    s->a = argp;
    s->info = *info;
    s->dl_fd = -1;
    weir_buf_init(&s->dl);
    *out = s;
    return 0;
}

static void ss_destroy(void *p)
{
    stdin_source *s = p;
    if (!s)
        return;
    if (s->dl_fd >= 0)
        weir__fio->close(s->dl_fd);
    weir_buf_fini(&s->dl);
    weir_free(s);
}

static int ss_discover(void *p, const char ***ids, uint32_t *n, bool *done,
                       weir_error *err)
{
    static const char *const id[] = {"stdin"};
    stdin_source *s = p;
    (void)err;
    *done = true;
    *n = 0;
    *ids = NULL;
    if (!s->discovered && s->info.subtask == 0) {
        *ids = (const char **)id;
        *n = 1;
    }
    s->discovered = true;
    return 0;
}

static void ss_close_split(void *p)
{
    stdin_reader *r = p;
    if (!r)
        return;
    weir_decoder_destroy(r->dec);
    weir_free(r->buf);
    weir_free(r);
}

static int ss_open_split(void *p, const char *id, const void *pos,
                         size_t pos_len, void **out, weir_error *err)
{
    stdin_source *s = p;
    (void)id;
    stdin_reader *r = weir_calloc(1, sizeof *r);
    if (!r)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    r->s = s;
    r->header_pending = !s->a->raw && s->a->fmt.csv_header;
    r->cap = STDIN_CHUNK;
    int rc = 0;
    if (!(r->buf = weir_malloc(r->cap))) {
        rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
        goto fail;
    }
    if ((rc = make_decoder(s->a, &r->dec, err)))
        goto fail;
    if (pos) {
        weir_cursor c;
        uint64_t off, line;
        uint8_t hdr;
        weir_cursor_init(&c, pos, pos_len);
        if (weir_cursor_get_u64(&c, &off) || weir_cursor_get_u64(&c, &line) ||
            weir_cursor_get_u8(&c, &hdr)) {
            rc = weir_error_set(err, WEIR_ECORRUPT,
                                "stdin: the checkpointed position is damaged");
            goto fail;
        }
        if (off > 0 && lseek(s->a->fd, (off_t)off, SEEK_SET) != (off_t)off) {
            rc = weir_error_set(err, WEIR_EUNSUPPORTED,
                                "stdin: cannot resume at byte %" PRIu64
                                ": standard input is not a file weir can "
                                "seek in (a pipe cannot be rewound); run the "
                                "job without restoring, or read a file",
                                off);
            goto fail;
        }
        r->off = off;
        r->line = line;
        r->header_pending = hdr != 0;
        r->bom_checked = off > 0;
    }
    *out = r;
    return 0;
fail:
    ss_close_split(r);
    return rc;
}

static int ss_position(void *p, weir_buf *out)
{
    stdin_reader *r = p;
    int rc = weir_buf_put_u64(out, r->off + r->pos);
    if (!rc)
        rc = weir_buf_put_u64(out, r->line);
    if (!rc)
        rc = weir_buf_put_u8(out, r->header_pending ? 1 : 0);
    return rc;
}

/* Reads what is there now. Returns 0 (*got says whether bytes came), or an
 * error. */
static int refill(stdin_reader *r, bool *got, weir_error *err)
{
    *got = false;
    if (r->eof)
        return 0;
    if (r->pos > 0) {
        memmove(r->buf, r->buf + r->pos, r->len - r->pos);
        r->off += r->pos;
        r->len -= r->pos;
        r->pos = 0;
    }
    if (r->len == r->cap) {
        if (r->cap >= MAX_RECORD + 2)
            return weir_error_set(err, WEIR_EPARSE,
                                  "stdin:%" PRIu64 ": error: expected a "
                                  "record of at most %u bytes, found a "
                                  "longer one",
                                  r->line + 1, MAX_RECORD);
        char *nb = weir_realloc(r->buf, r->cap * 2);
        if (!nb)
            return weir_error_set(err, WEIR_ENOMEM, "out of memory");
        r->buf = nb;
        r->cap *= 2;
    }
    struct pollfd pfd = {.fd = r->s->a->fd, .events = POLLIN};
    int pr = poll(&pfd, 1, 0);
    if (pr == 0 || (pr < 0 && errno == EINTR))
        return 0;
    ssize_t n = read(r->s->a->fd, r->buf + r->len, r->cap - r->len);
    if (n < 0) {
        if (errno == EINTR || errno == EAGAIN)
            return 0;
        return weir_error_set(err, WEIR_EIO, "stdin: read failed: %s",
                              strerror(errno));
    }
    if (n == 0)
        r->eof = true;
    r->len += (size_t)n;
    *got = true;
    return 0;
}

static int dead_letter(stdin_reader *r, const char *rec, size_t len,
                       uint64_t line, uint64_t col, uint64_t off,
                       const char *reason, weir_error *err)
{
    stdin_source *s = r->s;
    const char *path = s->a->dead_letter_path;
    if (s->dl_fd < 0 &&
        (s->dl_fd = weir__fio->open(path, O_WRONLY | O_CREAT | O_APPEND,
                                    0666)) < 0)
        return weir_error_set(err, weir__fio_errno_code(errno),
                              "%s: error: cannot open dead-letter file: %s",
                              path, strerror(errno));
    weir_buf *b = &s->dl;
    weir_buf_clear(b);
    int rc = weir_buf_printf(b,
                             "{\"file\":\"stdin\",\"line\":%" PRIu64
                             ",\"column\":%" PRIu64 ",\"offset\":%" PRIu64
                             ",\"error\":",
                             line, col, off);
    if (!rc)
        rc = weir__fmt_json_put_string(b, reason, strlen(reason));
    if (!rc)
        rc = weir_buf_put(b, ",\"raw\":", 7);
    if (!rc)
        rc = weir__fmt_json_put_string(
            b, rec, len < DEAD_LETTER_RAW_MAX ? len : DEAD_LETTER_RAW_MAX);
    if (!rc)
        rc = weir_buf_put(b, "}\n", 2);
    if (rc)
        return weir_error_set(err, rc, "out of memory");
    int wrc = weir__fio_write_all(s->dl_fd, b->data, b->len);
    if (wrc)
        return weir_error_set(err, weir__fio_errno_code(-wrc),
                              "%s: error: cannot write dead-letter file: %s",
                              path, strerror(-wrc));
    s->n_dead_letter++;
    return 0;
}

static int bad_record(stdin_reader *r, const char *rec, size_t len,
                      const weir_decode_error *derr, weir_error *err)
{
    uint64_t line = r->line + 1, col = 1;
    size_t ls = 0;
    for (size_t i = 0; i < derr->pos && i < len; i++)
        if (rec[i] == '\n') {
            line++;
            ls = i + 1;
        }
    col = derr->pos - ls + 1;
    uint64_t off = r->off + (uint64_t)(rec - r->buf);
    switch (r->s->a->on_bad) {
    case WEIR_BAD_INPUT_SKIP:
        r->s->n_skipped++;
        return 0;
    case WEIR_BAD_INPUT_DEAD_LETTER:
        return dead_letter(r, rec, len, line, col, off, derr->message, err);
    case WEIR_BAD_INPUT_FAIL:
    default:
        return weir_error_set(err, WEIR_EPARSE,
                              "stdin:%" PRIu64 ":%" PRIu64
                              ": error: %s (offset %" PRIu64 ")",
                              line, col, derr->message, off + derr->pos);
    }
}

static int ss_read(void *p, weir_batch *out, uint32_t max_rows,
                   weir_error *err)
{
    stdin_reader *r = p;
    const stdin_arg *a = r->s->a;
    uint32_t appended = 0;
    /* A debezium-json update is two rows: room for a whole record. */
    const uint32_t per_rec = r->dec ? weir_decoder_rows_per_record(r->dec) : 1;
    while (!r->done && appended < max_rows &&
           out->capacity - out->n_rows >= per_rec) {
        if (!r->bom_checked && (r->len - r->pos >= 3 || r->eof)) {
            r->bom_checked = true;
            if (r->len - r->pos >= 3 &&
                !memcmp(r->buf + r->pos, "\xEF\xBB\xBF", 3))
                r->pos += 3;
        }
        weir_frame f;
        int rc = !r->bom_checked ? WEIR_EAGAIN
                 : a->raw ? weir_frame_line(r->buf + r->pos, r->len - r->pos, r->eof,
                                      &f)
                          : weir_decoder_frame(r->dec, r->buf + r->pos,
                                               r->len - r->pos, r->eof, &f);
        if (rc == WEIR_EAGAIN) {
            bool got;
            if ((rc = refill(r, &got, err)))
                return appended ? (int)appended : rc;
            if (!got)
                break;
            continue;
        }
        if (rc == WEIR_EOF) {
            r->done = true;
            break;
        }
        const char *rec = r->buf + r->pos;
        if (r->header_pending) {
            r->header_pending = false;
        } else if (a->raw) {
            int row = weir_batch_append_row(out);
            if (row < 0)
                break;
            if (weir_batch_set_str(out, 0, (uint32_t)row, rec, f.rec_len))
                return weir_error_set(err, WEIR_ENOMEM, "out of memory");
            appended++;
        } else if (!weir_decoder_is_blank(r->dec, rec, f.rec_len)) {
            weir_decode_error derr;
            const uint32_t before = out->n_rows;
            rc = weir_decoder_decode(r->dec, rec, f.rec_len, out, &derr);
            if (rc == WEIR_EPARSE) {
                if ((rc = bad_record(r, rec, f.rec_len, &derr, err)))
                    return appended ? (int)appended : rc;
            } else if (rc) {
                return weir_error_set(err, rc, "stdin: %s", weir_strerror(rc));
            } else {
                appended += out->n_rows - before;
            }
        }
        r->pos += f.consumed;
        r->line += f.newlines;
    }
    r->s->n_records += appended;
    if (appended)
        return (int)appended;
    return r->done ? WEIR_EOF : 0;
}

static int ss_metrics(void *p,
                      void (*emit)(void *ud, const char *name, uint64_t v),
                      void *ud)
{
    stdin_source *s = p;
    emit(ud, "records_read", s->n_records);
    emit(ud, "skipped_records", s->n_skipped);
    emit(ud, "dead_letter_records", s->n_dead_letter);
    return 0;
}

static const weir_source_class stdin_source_class = {
    .name = "stdin",
    .create = ss_create,
    .discover = ss_discover,
    .open_split = ss_open_split,
    .read = ss_read,
    .position = ss_position,
    .close_split = ss_close_split,
    .destroy = ss_destroy,
    .metrics = ss_metrics,
};

static const char *const stdin_known[] = {
    "format",
    "source.bad-input",
    "source.dead-letter.path",
    "raw.charset",
    "json.ignore-parse-errors",
    "json.fail-on-missing-field",
    "json.timestamp-format.standard",
    "csv.field-delimiter",
    "csv.quote-character",
    "csv.disable-quote-character",
    "csv.allow-comments",
    "csv.ignore-parse-errors",
    "csv.null-literal",
    "csv.header",
    "debezium-json.ignore-parse-errors",
    "debezium-json.schema-include",
    "debezium-json.timestamp-format.standard",
    NULL};

int weir__stdin_source_spec_opts(const weir_option *opts, size_t n_opts,
                                 const weir_schema *schema,
                                 const weir_connector_env *env,
                                 weir_source_spec *out, weir_error *err)
{
    memset(out, 0, sizeof *out);
    weir__optset o;
    stdin_arg *a = NULL;
    bool ignore = false;
    int rc = weir__optset_init(&o, "stdin", opts, n_opts, env, err);
    if (rc)
        goto done;
    if (!schema) {
        rc = weir_error_set(err, WEIR_EINVAL, "stdin source: missing schema");
        goto done;
    }
    if (!(a = weir_calloc(1, sizeof *a))) {
        rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
        goto done;
    }
    a->schema = schema;
    a->fd = STDIN_FILENO;
    int fi = weir__opt_index(&o, "format");
    if (fi >= 0 && !strcmp(opts[fi].value, "raw")) {
        o.used[fi] = true;
        a->raw = true;
        const char *cs = weir__opt_get(&o, "raw.charset");
        if (cs && strcasecmp(cs, "UTF-8") && strcasecmp(cs, "UTF8")) {
            rc = weir__opt_fail(&o, (size_t)weir__opt_index(&o, "raw.charset"),
                                WEIR_EUNSUPPORTED,
                                "option 'raw.charset': weir reads raw text "
                                "as UTF-8 only, found '%s'",
                                cs);
            goto done;
        }
        if (schema->n_fields != 1 ||
            !weir_type_is_string(schema->fields[0].type.id)) {
            rc = weir__opt_fail(&o, (size_t)fi, WEIR_EINVAL,
                                "option 'format': format 'raw' reads each "
                                "line into exactly one STRING or BYTES "
                                "column, but the table has %u column%s",
                                schema->n_fields,
                                schema->n_fields == 1 ? " of another type"
                                                      : "s");
            goto done;
        }
    } else if ((rc = weir__opt_format(&o, false, &a->fmt, &ignore))) {
        goto done;
    }
    if (a->fmt.csv_null_literal &&
        !(a->null_literal = weir_strdup(a->fmt.csv_null_literal))) {
        rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
        goto done;
    }
    a->fmt.csv_null_literal = a->null_literal;
    const char *dl;
    if ((rc = weir__opt_bad_input(&o, a->fmt.kind, ignore, &a->on_bad, &dl)))
        goto done;
    if (a->on_bad == WEIR_BAD_INPUT_DEAD_LETTER) {
        if (!dl) {
            rc = weir__opt_missing(&o, "source.dead-letter.path",
                                   " (the dead-letter policy writes there)");
            goto done;
        }
        if ((rc = weir__opt_local_path(&o, "source.dead-letter.path", &dl)))
            goto done;
        if (!(a->dead_letter_path = weir_strdup(dl))) {
            rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
            goto done;
        }
    }
    if (weir__opt_event_time(env, &a->et_cols, &a->n_et, &a->event_time)) {
        rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
        goto done;
    }
    if ((rc = weir__opt_finish(&o, stdin_known)))
        goto done;
    weir_decoder *probe;
    if ((rc = make_decoder(a, &probe, err)))
        goto done;
    weir_decoder_destroy(probe);
    out->name = "stdin";
    out->changelog = weir_format_is_changelog(a->fmt.kind);
    out->cls = &stdin_source_class;
    out->arg = a;
    out->free_arg = arg_free;
    out->schema = schema;
    a = NULL;
done:
    arg_free(a);
    weir__optset_fini(&o);
    return rc;
}
