/*
 * connector/nats/source.c - a NATS JetStream stream as a source
 * ('connector' = 'nats').
 *
 * Splits. Each subject filter ('subjects', or the stream's own subjects) is
 * one split, named "<stream>:<filter>"; filter i of the list goes to subtask
 * i % parallelism. A split is read in stream-sequence order by an ordered
 * consumer (ephemeral, no acks, recreated by the client after a gap), so
 * every split has its own watermark.
 *
 * Positions. A split's position is the stream sequence of the next message
 * it will return, with the sequence that bounds it (resolved once, when the
 * split was first opened: a restored bounded job ends where the first run
 * would have). A restore resumes at the checkpoint's sequence; nothing is
 * kept on the server between runs, and no acknowledgement is relied on.
 * 'timestamp' starts are resolved by the server at the first message.
 *
 * Lag. Every message carries the number of messages of its consumer still
 * pending after it; a split whose last message said more are pending, or
 * that holds delivered messages not yet read, has a backlog and is never
 * idle.
 */
#ifdef WEIR_HAVE_NATS

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "connector/nats/nats_internal.h"

#define POSITION_VERSION 1
#define NO_STOP UINT64_MAX

typedef enum nats_start {
    NATS_START_EARLIEST = 0,
    NATS_START_LATEST,
    NATS_START_SEQUENCE,
    NATS_START_TIMESTAMP,
} nats_start;

typedef struct nats_source_arg {
    weir__nats_conn conn;
    char *stream;
    char **subjects; /* NULL: the stream's own */
    uint32_t n_subjects;
    nats_start start;
    uint64_t start_seq;
    int64_t start_ts;
    bool bounded; /* 'scan.bounded.mode' = 'latest' */
    bool raw;
    weir_format_options fmt;
    char *null_literal;
    bool skip_bad;
    const weir_schema *schema; /* borrowed */
    uint32_t *et_cols;
    uint32_t n_et;
    char *event_time;
    weir_clock clock;
} nats_source_arg;

/* ---- instance ---- */

typedef struct nats_split {
    char *id; /* "<stream>:<filter>" */
    const char *filter; /* inside id */
    struct nats_reader *reader;
} nats_split;

typedef struct nats_source {
    const nats_source_arg *a;
    weir_source_info info;
    natsConnection *nc;
    jsCtx *js;
    nats_split *splits;
    uint32_t n_splits;
    const char **new_ids;
    bool discovered;
    uint64_t n_records, n_skipped, n_gaps;
} nats_source;

typedef struct nats_reader {
    nats_source *s;
    nats_split *sp;
    natsSubscription *sub;
    uint64_t next;    /* sequence of the next message to return; 0: not yet
                         known ('timestamp' start) */
    uint64_t stop;    /* last sequence read (NO_STOP: unbounded) */
    int64_t start_ts; /* 'timestamp' start, while next == 0 */
    bool done;
    uint64_t pending; /* messages after the last one returned */
    int64_t last_ts;  /* stream time (ms) of the last message returned */
    bool has_last_ts;
    weir_decoder *dec;
    natsMsg *held; /* a bad message, reported at the next read */
} nats_reader;

static int ns_create(void *argp, const weir_source_info *info, void **out,
                     weir_error *err)
{
    const nats_source_arg *a = argp;
    nats_source *s = weir_calloc(1, sizeof *s);
    if (!s)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    s->a = a;
    s->info = *info;
    if (!s->info.parallelism)
        s->info.parallelism = 1;
    int rc = weir__nats_connect(&a->conn, NULL, &s->nc, &s->js, err);
    if (rc) {
        weir_free(s);
        return rc;
    }
    *out = s;
    return 0;
}

static void ns_destroy(void *p)
{
    nats_source *s = p;
    if (!s)
        return;
    for (uint32_t i = 0; i < s->n_splits; i++)
        weir_free(s->splits[i].id);
    weir_free(s->splits);
    weir_free(s->new_ids);
    jsCtx_Destroy(s->js);
    if (s->nc) {
        natsConnection_Close(s->nc);
        natsConnection_Destroy(s->nc);
    }
    weir_free(s);
}

static int stream_info(nats_source *s, jsStreamInfo **si, weir_error *err)
{
    jsErrCode jerr = 0;
    char why[300];
    natsStatus st = js_GetStreamInfo(si, s->js, s->a->stream, NULL, &jerr);
    if (st == NATS_OK)
        return 0;
    *si = NULL;
    if (st == NATS_NOT_FOUND || jerr == JSStreamNotFoundErr)
        return weir_error_set(err, WEIR_ENOTFOUND,
                              "nats: stream '%s' does not exist on '%s'",
                              s->a->stream, s->a->conn.servers_text);
    return weir_error_set(err, WEIR_EIO,
                          "nats: cannot read stream '%s' on '%s': %s",
                          s->a->stream, s->a->conn.servers_text,
                          weir__nats_why(st, jerr, why, sizeof why));
}

static int add_split(nats_source *s, const char *filter)
{
    size_t sl = strlen(s->a->stream), fl = strlen(filter);
    char *id = weir_malloc(sl + fl + 2);
    if (!id)
        return WEIR_ENOMEM;
    memcpy(id, s->a->stream, sl);
    id[sl] = ':';
    memcpy(id + sl + 1, filter, fl + 1);
    nats_split *v =
        weir_realloc(s->splits, (s->n_splits + 1) * sizeof *s->splits);
    if (!v) {
        weir_free(id);
        return WEIR_ENOMEM;
    }
    for (uint32_t i = 0; i < s->n_splits; i++)
        if (v[i].reader)
            v[i].reader->sp = &v[i];
    s->splits = v;
    s->splits[s->n_splits++] =
        (nats_split){.id = id, .filter = id + sl + 1, .reader = NULL};
    return 0;
}

static int ns_discover(void *p, const char ***ids, uint32_t *n_ids, bool *done,
                       weir_error *err)
{
    nats_source *s = p;
    const nats_source_arg *a = s->a;
    *ids = NULL;
    *n_ids = 0;
    *done = true;
    if (s->discovered)
        return 0;
    jsStreamInfo *si = NULL;
    int rc = stream_info(s, &si, err);
    if (rc)
        return rc;
    const char *const *filters = (const char *const *)a->subjects;
    uint32_t n = a->n_subjects;
    if (!filters) {
        filters = si->Config->Subjects;
        n = (uint32_t)si->Config->SubjectsLen;
    }
    uint32_t first = s->n_splits;
    for (uint32_t i = 0; i < n && !rc; i++) {
        if (i % s->info.parallelism != s->info.subtask)
            continue;
        bool have = false;
        for (uint32_t j = 0; j < s->n_splits && !have; j++)
            have = !strcmp(s->splits[j].filter, filters[i]);
        if (!have && add_split(s, filters[i]))
            rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
    }
    jsStreamInfo_Destroy(si);
    if (rc)
        return rc;
    uint32_t n_new = s->n_splits - first;
    weir_free(s->new_ids);
    if (!(s->new_ids = weir_calloc(n_new ? n_new : 1, sizeof *s->new_ids)))
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < n_new; i++)
        s->new_ids[i] = s->splits[first + i].id;
    *ids = s->new_ids;
    *n_ids = n_new;
    s->discovered = true;
    return 0;
}

/* ---- readers ---- */

static int make_decoder(const nats_source_arg *a, weir_decoder **out,
                        weir_error *err)
{
    *out = NULL;
    if (a->raw)
        return 0;
    int rc = weir_decoder_create(&a->fmt, a->schema, out, err);
    if (rc)
        return rc;
    for (uint32_t i = 0; i < a->n_et; i++) {
        const char *col = a->schema->fields[a->et_cols[i]].name;
        char why[160];
        if (!a->event_time || !strcasecmp(a->event_time, col))
            snprintf(why, sizeof why, "it is the event time");
        else
            snprintf(why, sizeof why, "the event time %s is computed from it",
                     a->event_time);
        if ((rc = weir_decoder_require(*out, a->et_cols[i], why))) {
            weir_decoder_destroy(*out);
            *out = NULL;
            return weir_error_set(err, rc, "out of memory");
        }
    }
    return 0;
}

static void reader_free(nats_reader *r)
{
    if (r->sub) {
        natsSubscription_Unsubscribe(r->sub);
        natsSubscription_Destroy(r->sub);
    }
    weir_decoder_destroy(r->dec);
    natsMsg_Destroy(r->held);
    weir_free(r);
}

/* Where a split opened for the first time starts and ends. */
static int resolve_fresh(nats_reader *r, weir_error *err)
{
    nats_source *s = r->s;
    const nats_source_arg *a = s->a;
    jsStreamInfo *si = NULL;
    int rc = stream_info(s, &si, err);
    if (rc)
        return rc;
    uint64_t first = si->State.FirstSeq ? si->State.FirstSeq : 1;
    uint64_t last = si->State.LastSeq;
    jsStreamInfo_Destroy(si);
    switch (a->start) {
    case NATS_START_EARLIEST:
        r->next = first;
        break;
    case NATS_START_LATEST:
        r->next = last + 1;
        break;
    case NATS_START_SEQUENCE:
        r->next = a->start_seq < first ? first : a->start_seq;
        break;
    case NATS_START_TIMESTAMP:
        r->next = 0;
        r->start_ts = a->start_ts;
        break;
    }
    r->stop = a->bounded ? last : NO_STOP;
    return 0;
}

static int subscribe(nats_reader *r, weir_error *err)
{
    nats_source *s = r->s;
    jsSubOptions so;
    jsSubOptions_Init(&so);
    so.Stream = s->a->stream;
    so.Ordered = true;
    if (r->next) {
        so.Config.DeliverPolicy = js_DeliverByStartSequence;
        so.Config.OptStartSeq = r->next;
    } else {
        so.Config.DeliverPolicy = js_DeliverByStartTime;
        so.Config.OptStartTime = r->start_ts * 1000000;
    }
    jsErrCode jerr = 0;
    char why[300];
    natsStatus st =
        js_SubscribeSync(&r->sub, s->js, r->sp->filter, NULL, &so, &jerr);
    if (st != NATS_OK) {
        r->sub = NULL;
        return weir_error_set(err, WEIR_EIO,
                              "nats: cannot read subjects '%s' of stream "
                              "'%s': %s",
                              r->sp->filter, s->a->stream,
                              weir__nats_why(st, jerr, why, sizeof why));
    }
    /* Messages matching the filter from the start on, at this moment: those
     * not delivered yet and those delivered already (the consumer pushes
     * them as soon as it exists) but not read. */
    jsConsumerInfo *ci = NULL;
    st = natsSubscription_GetConsumerInfo(&ci, r->sub, NULL, &jerr);
    if (st != NATS_OK)
        return weir_error_set(err, WEIR_EIO,
                              "nats: cannot read the consumer of '%s': %s",
                              r->sp->id,
                              weir__nats_why(st, jerr, why, sizeof why));
    r->pending = ci->NumPending + ci->Delivered.Consumer;
    jsConsumerInfo_Destroy(ci);
    if (r->stop != NO_STOP && r->pending == 0)
        r->done = true; /* nothing up to the bound matches the filter */
    return 0;
}

static nats_split *find_split(nats_source *s, const char *id)
{
    for (uint32_t i = 0; i < s->n_splits; i++)
        if (!strcmp(s->splits[i].id, id))
            return &s->splits[i];
    return NULL;
}

static int ns_open_split(void *p, const char *id, const void *pos,
                         size_t pos_len, void **out, weir_error *err)
{
    nats_source *s = p;
    nats_split *sp = find_split(s, id);
    size_t sl = strlen(s->a->stream);
    if (!sp) {
        /* named by a restored checkpoint */
        if (strncmp(id, s->a->stream, sl) || id[sl] != ':' || !id[sl + 1])
            return weir_error_set(err, WEIR_EINVAL,
                                  "nats: '%s' does not name subjects of "
                                  "stream '%s'",
                                  id, s->a->stream);
        if (add_split(s, id + sl + 1))
            return weir_error_set(err, WEIR_ENOMEM, "out of memory");
        sp = &s->splits[s->n_splits - 1];
    }
    nats_reader *r = weir_calloc(1, sizeof *r);
    if (!r)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    r->s = s;
    r->sp = sp;
    int rc = make_decoder(s->a, &r->dec, err);
    if (rc)
        goto fail;
    if (pos) {
        weir_cursor c;
        weir_cursor_init(&c, pos, pos_len);
        uint8_t version;
        uint64_t ts;
        if (weir_cursor_get_u8(&c, &version) || version != POSITION_VERSION ||
            weir_cursor_get_u64(&c, &r->next) ||
            weir_cursor_get_u64(&c, &r->stop) ||
            weir_cursor_get_u64(&c, &ts)) {
            rc = weir_error_set(err, WEIR_ECORRUPT,
                                "nats: the checkpointed position of %s is "
                                "damaged",
                                id);
            goto fail;
        }
        r->start_ts = (int64_t)ts;
    } else if ((rc = resolve_fresh(r, err))) {
        goto fail;
    }
    if (r->stop != NO_STOP && r->next > r->stop)
        r->done = true;
    else if ((rc = subscribe(r, err)))
        goto fail;
    sp->reader = r;
    *out = r;
    return 0;
fail:
    reader_free(r);
    return rc;
}

static void ns_close_split(void *p)
{
    nats_reader *r = p;
    if (!r)
        return;
    r->sp->reader = NULL;
    reader_free(r);
}

static int ns_position(void *p, weir_buf *out)
{
    nats_reader *r = p;
    int rc = weir_buf_put_u8(out, POSITION_VERSION);
    if (!rc)
        rc = weir_buf_put_u64(out, r->next);
    if (!rc)
        rc = weir_buf_put_u64(out, r->stop);
    if (!rc)
        rc = weir_buf_put_u64(out, (uint64_t)r->start_ts);
    return rc;
}

/* Appends the row of one message to out: 0, WEIR_EPARSE (derr set), or
 * another negative code. */
static int decode(nats_reader *r, const char *data, size_t len,
                  weir_batch *out, weir_decode_error *derr)
{
    if (!r->s->a->raw)
        return weir_decoder_decode(r->dec, data, len, out, derr);
    int row = weir_batch_append_row(out);
    if (row < 0)
        return WEIR_ENOMEM;
    if (weir_batch_set_str(out, 0, (uint32_t)row, data ? data : "", len)) {
        out->n_rows--;
        return WEIR_ENOMEM;
    }
    return 0;
}

static int ns_read(void *p, weir_batch *out, uint32_t max_rows,
                   weir_error *err)
{
    nats_reader *r = p;
    nats_source *s = r->s;
    uint32_t appended = 0;
    char why[300];
    while (!r->done && appended < max_rows && out->n_rows < out->capacity) {
        natsMsg *m = r->held;
        natsStatus st = NATS_OK;
        r->held = NULL;
        if (!m)
            st = natsSubscription_NextMsg(&m, r->sub, 0);
        if (st == NATS_TIMEOUT)
            break;
        if (st == NATS_SLOW_CONSUMER || st == NATS_MISMATCH) {
            /* the ordered consumer starts again after the last message it
             * delivered: nothing is lost */
            s->n_gaps++;
            continue;
        }
        if (st != NATS_OK) {
            int rc = weir_error_set(err, WEIR_EIO, "nats: %s: %s", r->sp->id,
                                    weir__nats_why(st, 0, why, sizeof why));
            return appended ? (int)appended : rc;
        }
        jsMsgMetaData *md = NULL;
        if (natsMsg_GetMetaData(&md, m) != NATS_OK) {
            natsMsg_Destroy(m); /* not a stream message */
            continue;
        }
        uint64_t seq = md->Sequence.Stream, pending = md->NumPending;
        int64_t ts_ms = md->Timestamp / 1000000;
        jsMsgMetaData_Destroy(md);
        if (seq < r->next) { /* already returned */
            natsMsg_Destroy(m);
            continue;
        }
        if (seq > r->stop) {
            natsMsg_Destroy(m);
            r->done = true;
            break;
        }
        weir_decode_error derr;
        int rc = decode(r, natsMsg_GetData(m),
                        (size_t)natsMsg_GetDataLength(m), out, &derr);
        if (rc == WEIR_EPARSE) {
            if (!s->a->skip_bad) {
                if (appended) { /* the rows before it first */
                    r->held = m;
                    break;
                }
                rc = weir_error_set(err, WEIR_EPARSE,
                                    "%s:%" PRIu64 ": error: %s (byte %zu)",
                                    r->sp->id, seq, derr.message, derr.pos);
                natsMsg_Destroy(m);
                return rc;
            }
            s->n_skipped++;
        } else if (rc) {
            natsMsg_Destroy(m);
            return weir_error_set(err, rc, "nats: %s:%" PRIu64 ": %s",
                                  r->sp->id, seq, weir_strerror(rc));
        } else {
            appended++;
            r->last_ts = ts_ms;
            r->has_last_ts = true;
        }
        natsMsg_Destroy(m);
        r->next = seq + 1;
        r->pending = pending;
        if (r->stop != NO_STOP && (seq >= r->stop || pending == 0))
            r->done = true;
    }
    s->n_records += appended;
    if (appended)
        return (int)appended;
    return r->done ? WEIR_EOF : 0;
}

/* ---- lag, metrics ---- */

static uint64_t reader_lag(nats_reader *r)
{
    if (r->done || !r->sub)
        return 0;
    int msgs = 0, bytes = 0;
    natsSubscription_GetPending(r->sub, &msgs, &bytes);
    /* pending counts the delivered messages not read yet as well */
    uint64_t lag = r->pending;
    if ((uint64_t)(msgs > 0 ? msgs : 0) > lag)
        lag = (uint64_t)msgs;
    return lag;
}

static bool ns_has_backlog(void *p)
{
    return reader_lag(p) > 0;
}

static int ns_metrics(void *p,
                      void (*emit)(void *ud, const char *name, uint64_t v),
                      void *ud)
{
    nats_source *s = p;
    emit(ud, "records_read", s->n_records);
    emit(ud, "skipped_records", s->n_skipped);
    emit(ud, "consumer_restarts", s->n_gaps);
    weir_clock clock = s->a->clock.now_ms ? s->a->clock : weir_clock_system();
    int64_t now = weir_clock_now(&clock);
    char name[600];
    for (uint32_t i = 0; i < s->n_splits; i++) {
        nats_reader *r = s->splits[i].reader;
        if (!r)
            continue;
        uint64_t lag = reader_lag(r);
        int64_t lag_ms =
            lag > 0 && r->has_last_ts && now > r->last_ts ? now - r->last_ts
                                                          : 0;
        snprintf(name, sizeof name, "nats.%s.lag_records", s->splits[i].id);
        emit(ud, name, lag);
        snprintf(name, sizeof name, "nats.%s.lag_ms", s->splits[i].id);
        emit(ud, name, (uint64_t)lag_ms);
    }
    return 0;
}

static const weir_source_class nats_source_class = {
    .name = "nats",
    .create = ns_create,
    .discover = ns_discover,
    .open_split = ns_open_split,
    .read = ns_read,
    .position = ns_position,
    .close_split = ns_close_split,
    .destroy = ns_destroy,
    .metrics = ns_metrics,
    .has_backlog = ns_has_backlog,
};

/* ---- options ---- */

static void arg_free(void *p)
{
    nats_source_arg *a = p;
    if (!a)
        return;
    weir__nats_conn_fini(&a->conn);
    weir_free(a->stream);
    for (uint32_t i = 0; i < a->n_subjects; i++)
        weir_free(a->subjects[i]);
    weir_free(a->subjects);
    weir_free(a->null_literal);
    weir_free(a->et_cols);
    weir_free(a->event_time);
    weir_free(a);
}

/* A subject filter: tokens separated by '.', '*' a whole token, '>' the
 * whole last token. */
static bool filter_ok(const char *f, size_t n)
{
    if (n == 0 || f[0] == '.' || f[n - 1] == '.')
        return false;
    size_t tok = 0;
    for (size_t i = 0; i < n; i++) {
        char c = f[i];
        if (c == ' ' || c == '\t')
            return false;
        if (c == '.') {
            if (tok == 0)
                return false;
            tok = 0;
            continue;
        }
        if ((c == '*' || c == '>') &&
            ((i > 0 && f[i - 1] != '.') || (i + 1 < n && f[i + 1] != '.')))
            return false;
        if (c == '>' && i + 1 != n)
            return false;
        tok++;
    }
    return true;
}

static int parse_subjects(weir__optset *o, nats_source_arg *a)
{
    const char *v = weir__opt_get(o, "subjects");
    if (!v)
        return 0;
    int at = weir__opt_index(o, "subjects");
    uint32_t n = 1;
    for (const char *p = v; *p; p++)
        n += *p == ',' || *p == ';';
    if (!(a->subjects = weir_calloc(n, sizeof *a->subjects)))
        return weir_error_set(o->err, WEIR_ENOMEM, "out of memory");
    const char *p = v;
    for (;;) {
        while (*p == ' ')
            p++;
        size_t len = strcspn(p, ",;");
        const char *e = p[len] ? p + len : NULL;
        while (len && p[len - 1] == ' ')
            len--;
        if (!filter_ok(p, len))
            return weir__opt_fail(o, (size_t)at, WEIR_EINVAL,
                                  "option 'subjects': '%.*s' is not a subject "
                                  "filter (tokens separated by '.', '*' for "
                                  "one token, '>' for the rest; several "
                                  "separated by ',' or ';')",
                                  (int)len, p);
        char *f = weir_malloc(len + 1);
        if (!f)
            return weir_error_set(o->err, WEIR_ENOMEM, "out of memory");
        memcpy(f, p, len);
        f[len] = '\0';
        for (uint32_t i = 0; i < a->n_subjects; i++)
            if (!strcmp(a->subjects[i], f)) {
                weir_free(f);
                return weir__opt_fail(o, (size_t)at, WEIR_EINVAL,
                                      "option 'subjects': '%s' is listed "
                                      "twice",
                                      a->subjects[i]);
            }
        a->subjects[a->n_subjects++] = f;
        if (!e)
            break;
        p = e + 1;
    }
    return 0;
}

static int unused_with(weir__optset *o, const char *key, const char *mode)
{
    int at = weir__opt_index(o, key);
    if (at < 0)
        return 0;
    return weir__opt_fail(o, (size_t)at, WEIR_EINVAL,
                          "option '%s' is only used with a matching "
                          "'scan.startup.mode'; 'scan.startup.mode' = '%s' "
                          "does not read it",
                          key, mode);
}

static int parse_startup(weir__optset *o, nats_source_arg *a)
{
    static const char *const modes[] = {"earliest", "latest", "sequence", "timestamp", NULL};
    static const nats_start starts[] = {NATS_START_EARLIEST, NATS_START_LATEST, NATS_START_SEQUENCE,
                                        NATS_START_TIMESTAMP};
    int m = 0;
    int rc = weir__opt_choice(o, "scan.startup.mode", modes, WEIR__CHOICE_ANY_CASE, &m);
    if (rc)
        return rc;
    a->start = starts[m];
    const char *mode = modes[m];
    const char *sk = "scan.startup.sequence", *tk = "scan.startup.timestamp-millis";
    if (a->start == NATS_START_SEQUENCE) {
        int64_t v = 0;
        if (weir__opt_index(o, sk) < 0)
            return weir__opt_missing(o, sk,
                                     " ('scan.startup.mode' = 'sequence' "
                                     "needs it)");
        if ((rc = weir__opt_i64(o, sk, &v)))
            return rc;
        if (v < 1)
            return weir__opt_fail(o, (size_t)weir__opt_index(o, sk),
                                  WEIR_EINVAL,
                                  "option '%s': stream sequences start at 1, "
                                  "found %" PRId64,
                                  sk, v);
        a->start_seq = (uint64_t)v;
    } else if ((rc = unused_with(o, sk, mode))) {
        return rc;
    }
    if (a->start == NATS_START_TIMESTAMP) {
        if (weir__opt_index(o, tk) < 0)
            return weir__opt_missing(o, tk,
                                     " ('scan.startup.mode' = 'timestamp' "
                                     "needs it)");
        if ((rc = weir__opt_i64(o, tk, &a->start_ts)))
            return rc;
        if (a->start_ts < 0)
            return weir__opt_fail(o, (size_t)weir__opt_index(o, tk),
                                  WEIR_EINVAL,
                                  "option '%s': must be >= 0", tk);
    } else if ((rc = unused_with(o, tk, mode))) {
        return rc;
    }
    static const char *const bounds[] = {"unbounded", "latest", NULL};
    int b = 0;
    if ((rc = weir__opt_choice(o, "scan.bounded.mode", bounds, WEIR__CHOICE_ANY_CASE, &b)))
        return rc;
    a->bounded = b == 1;
    return 0;
}

static int parse_format(weir__optset *o, nats_source_arg *a,
                        const weir_schema *schema)
{
    int fi = weir__opt_index(o, "format");
    if (fi < 0)
        return weir__opt_missing(o, "format", " ('json', 'csv' or 'raw')");
    const char *name = o->opts[fi].value;
    if (!strcmp(name, "raw")) {
        o->used[fi] = true;
        a->raw = true;
        const char *cs = weir__opt_get(o, "raw.charset");
        if (cs && strcasecmp(cs, "UTF-8") && strcasecmp(cs, "UTF8"))
            return weir__opt_fail(o, (size_t)weir__opt_index(o, "raw.charset"),
                                  WEIR_EUNSUPPORTED,
                                  "option 'raw.charset': weir reads raw text "
                                  "as UTF-8 only, found '%s'",
                                  cs);
        if (schema->n_fields != 1 ||
            !weir_type_is_string(schema->fields[0].type.id))
            return weir__opt_fail(o, (size_t)fi, WEIR_EINVAL,
                                  "option 'format': format 'raw' reads the "
                                  "whole message into exactly one STRING or "
                                  "BYTES column, but the table has %u "
                                  "column%s%s%s",
                                  schema->n_fields,
                                  schema->n_fields == 1 ? "" : "s",
                                  schema->n_fields == 1 ? " of type " : "",
                                  schema->n_fields == 1
                                      ? weir_type_name(schema->fields[0].type.id)
                                      : "");
        return 0;
    }
    if (!strcmp(name, "debezium-json"))
        return weir__opt_fail(o, (size_t)fi, WEIR_EUNSUPPORTED,
                              "option 'format': format 'debezium-json' cannot "
                              "be read from NATS (weir reads 'json', 'csv' "
                              "and 'raw')");
    int rc = weir__opt_format(o, false, &a->fmt, &a->skip_bad);
    if (rc)
        return rc;
    if (a->fmt.csv_null_literal) {
        if (!(a->null_literal = weir_strdup(a->fmt.csv_null_literal)))
            return weir_error_set(o->err, WEIR_ENOMEM, "out of memory");
        a->fmt.csv_null_literal = a->null_literal;
    }
    return 0;
}

int weir__nats_source_spec_opts(const weir_option *opts, size_t n_opts,
                                const weir_schema *schema,
                                const weir_connector_env *env,
                                weir_source_spec *out, weir_error *err)
{
    static const char *const known[] = {
        WEIR__NATS_CONN_OPTIONS, "stream", "subjects", "scan.startup.mode",
        "scan.startup.sequence", "scan.startup.timestamp-millis",
        "scan.bounded.mode", "format", NULL};
    memset(out, 0, sizeof *out);
    weir__optset o;
    nats_source_arg *a = NULL;
    int rc = weir__optset_init(&o, "nats", opts, n_opts, env, err);
    if (rc)
        goto done;
    if (!schema) {
        rc = weir_error_set(err, WEIR_EINVAL, "nats source: missing schema");
        goto done;
    }
    if (!(a = weir_calloc(1, sizeof *a)))
        goto nomem;
    a->schema = schema;
    if ((rc = weir__nats_conn_read(&o, &a->conn)))
        goto done;
    const char *stream = weir__opt_get(&o, "stream");
    if (!stream) {
        rc = weir__opt_missing(&o, "stream", " (the JetStream stream to read)");
        goto done;
    }
    if (!*stream || strpbrk(stream, " \t.*>/\\")) {
        rc = weir__opt_fail(&o, (size_t)weir__opt_index(&o, "stream"),
                            WEIR_EINVAL,
                            "option 'stream': '%s' is not a stream name (no "
                            "spaces, '.', '*', '>', '/' or '\\')",
                            stream);
        goto done;
    }
    if (!(a->stream = weir_strdup(stream)))
        goto nomem;
    if ((rc = parse_subjects(&o, a)) || (rc = parse_startup(&o, a)) ||
        (rc = parse_format(&o, a, schema)))
        goto done;
    if (env) {
        a->clock = env->clock;
        if (weir__opt_event_time(env, &a->et_cols, &a->n_et, &a->event_time))
            goto nomem;
    }
    /* a table's WITH clause carries the options of both sides */
    static const char *const sink_side[] = {
        "sink.subject", "sink.delivery-guarantee", "sink.msg-id-prefix", NULL};
    weir__opt_accept(&o, sink_side);
    if ((rc = weir__opt_finish(&o, known)))
        goto done;
    /* the format against the schema, now rather than when the job runs */
    weir_decoder *d;
    if ((rc = make_decoder(a, &d, err)))
        goto done;
    weir_decoder_destroy(d);
    out->name = "nats";
    out->cls = &nats_source_class;
    out->arg = a;
    out->free_arg = arg_free;
    out->schema = schema;
    a = NULL;
    goto done;
nomem:
    rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
done:
    arg_free(a);
    weir__optset_fini(&o);
    return rc;
}

#endif
