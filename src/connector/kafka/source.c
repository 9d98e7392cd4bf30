/*
 * connector/kafka/source.c - Kafka topics as a source ('connector' = 'kafka').
 *
 * Splits. Every partition of every subscribed topic (a list, or the topics a
 * pattern matches) is one split, named "<topic>-<partition>". Each source
 * subtask discovers the partitions itself from the cluster's metadata and
 * keeps those that Flink's Kafka source would give it: the start index is
 * ((hashCode(topic) * 31) & 0x7FFFFFFF) % parallelism, with Java's String
 * hashCode, and partition p goes to subtask (start + p) % parallelism. The
 * consumer group is never used for assignment: each subtask reads its
 * partitions directly, one fetch queue per partition, so every split is read
 * in offset order and has its own watermark.
 *
 * Positions. A split's position is the offset of the next record it will
 * return, with what bounds it (the stopping offset and timestamp, resolved
 * once when the split was first opened, so a restored bounded job ends where
 * the first run would have). A restore resumes from the checkpoint's
 * offsets, never from the group's. Every start offset is resolved to a
 * number when the split opens (earliest, latest, group, specific), so a
 * checkpoint taken before the first record already holds a real offset.
 * 'timestamp' starts and bounds ask the broker (offsetsForTimes: the first
 * offset whose timestamp is >= the time) and are checked while reading:
 * records before the first one at or after the time are skipped, and a
 * bound also ends at that record. A broker without an answer (librdkafka's
 * mock cluster does not look timestamps up) leaves the start at the
 * earliest offset and the bound at the latest, so the reading check alone
 * finds them.
 *
 * Commits. When a checkpoint completes, the offsets it holds are committed
 * to 'properties.group.id' (asynchronously), so the usual lag tools see the
 * job's progress; a failed commit is counted, never fatal.
 *
 * Lag. The high watermark each fetch reports tells how far behind a split
 * is; a split with unread records is never idle. A partition whose last
 * offsets are transaction markers is "caught up" once the fetcher reports
 * the end of the partition (enable.partition.eof, which weir turns on).
 */
#ifdef WEIR_HAVE_KAFKA

#include <inttypes.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "connector/kafka/kafka_internal.h"
#include "connector/kafka/source_internal.h"
#include "connector/kafka/upsert.h"
#include "format/convert.h"
#include "ops/rowcodec.h"

#define MAX_PENDING_COMMITS 16
#define QUERY_TIMEOUT_MS 10000

/* ---- assignment ---- */

uint32_t weir__kafka_java_string_hash(const char *s)
{
    /* Java's String.hashCode over UTF-16 code units of the UTF-8 name. */
    uint32_t h = 0;
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        uint32_t cp;
        if (*p < 0x80) {
            cp = *p++;
        } else if ((*p & 0xE0) == 0xC0 && p[1]) {
            cp = ((uint32_t)(p[0] & 0x1F) << 6) | (p[1] & 0x3F);
            p += 2;
        } else if ((*p & 0xF0) == 0xE0 && p[1] && p[2]) {
            cp = ((uint32_t)(p[0] & 0x0F) << 12) |
                 ((uint32_t)(p[1] & 0x3F) << 6) | (p[2] & 0x3F);
            p += 3;
        } else if ((*p & 0xF8) == 0xF0 && p[1] && p[2] && p[3]) {
            cp = ((uint32_t)(p[0] & 0x07) << 18) |
                 ((uint32_t)(p[1] & 0x3F) << 12) |
                 ((uint32_t)(p[2] & 0x3F) << 6) | (p[3] & 0x3F);
            p += 4;
        } else {
            cp = 0xFFFD;
            p++;
        }
        if (cp >= 0x10000) {
            cp -= 0x10000;
            h = 31 * h + (0xD800 + (cp >> 10));
            h = 31 * h + (0xDC00 + (cp & 0x3FF));
        } else {
            h = 31 * h + cp;
        }
    }
    return h;
}

uint32_t weir__kafka_split_owner(const char *topic, int32_t partition,
                                 uint32_t parallelism)
{
    if (parallelism == 0)
        return 0;
    uint32_t start = ((weir__kafka_java_string_hash(topic) * 31u) &
                      0x7FFFFFFFu) %
                     parallelism;
    return (uint32_t)((start + (uint64_t)partition) % parallelism);
}

/* ---- instance ---- */

typedef struct kafka_part {
    char *id; /* "<topic>-<partition>" */
    char *topic;
    int32_t partition;
    struct kafka_reader *reader; /* while open */
    int64_t offset;              /* last known position */
    bool has_offset;
} kafka_part;

typedef struct pending_commit {
    uint64_t ckpt_id;
    rd_kafka_topic_partition_list_t *offsets;
} pending_commit;

typedef struct kafka_source {
    const weir__kafka_source_arg *a;
    weir_source_info info;
    rd_kafka_t *rk;
    char **known; /* every partition seen, ours or not ("<topic>-<p>") */
    uint32_t n_known, cap_known;
    kafka_part *parts; /* ours */
    uint32_t n_parts, cap_parts;
    const char **new_ids;
    uint32_t cap_new_ids;
    bool discovered;
    int64_t last_discovery_ms;
    pending_commit pending[MAX_PENDING_COMMITS];
    uint32_t n_pending;
    weir_buf scratch;
    uint64_t n_records, n_skipped, n_tombstones, n_commits, n_commit_failures,
        n_consume_errors, n_unchanged;
} kafka_source;

typedef struct kafka_reader {
    kafka_source *s;
    kafka_part *part;
    rd_kafka_topic_t *rkt;
    bool started;       /* consume_start was called */
    bool done;          /* the bounded end is reached */
    int64_t next;       /* offset of the next record to return */
    int64_t stop;       /* offsets >= stop are not read (INT64_MAX: none) */
    int64_t stop_ts;    /* the first record with ts >= stop_ts ends the split */
    int64_t skip_until; /* records before the first with ts >= this are
                           skipped (INT64_MIN: none) */
    rd_kafka_message_t **msgs;
    uint32_t n_msgs, at, cap_msgs;
    bool at_eof;        /* the fetcher reported the end of the partition */
    int64_t eof_offset; /* ... at this offset */
    int64_t hi;         /* the highest high watermark seen */
    int64_t last_ts;    /* timestamp of the last record returned */
    bool has_last_ts;
    weir_decoder *vdec, *kdec;
    weir_batch *vb, *kb; /* one decoded row of the value / key format */
    weir__kafka_utab utab; /* upsert-kafka: each key's last row */
    weir_buf rowbuf;       /* upsert-kafka: the row being applied */
} kafka_reader;

static weir_clock source_clock(const kafka_source *s)
{
    return s->a->clock.now_ms ? s->a->clock : weir_clock_system();
}

static int make_client(const weir__kafka_source_arg *a, rd_kafka_t **out,
                       weir_error *err)
{
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    char why[512];
    if (!conf)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    for (size_t i = 0; i < a->n_props; i++) {
        if (rd_kafka_conf_set(conf, a->props[i].key, a->props[i].value, why,
                              sizeof why) != RD_KAFKA_CONF_OK) {
            rd_kafka_conf_destroy(conf);
            return weir_error_set(err, WEIR_EINVAL,
                                  "kafka: property '%s': %s",
                                  a->props[i].key, why);
        }
    }
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, why, sizeof why);
    if (!rk) {
        rd_kafka_conf_destroy(conf);
        return weir_error_set(err, WEIR_EINVAL,
                              "kafka: cannot create a consumer: %s", why);
    }
    *out = rk;
    return 0;
}

static int ks_create(void *argp, const weir_source_info *info, void **out,
                     weir_error *err)
{
    const weir__kafka_source_arg *a = argp;
    kafka_source *s = weir_calloc(1, sizeof *s);
    if (!s)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    s->a = a;
    s->info = *info;
    if (!s->info.parallelism)
        s->info.parallelism = 1;
    weir_buf_init(&s->scratch);
    int rc = make_client(a, &s->rk, err);
    if (rc) {
        weir_free(s);
        return rc;
    }
    *out = s;
    return 0;
}

static void ks_destroy(void *p)
{
    kafka_source *s = p;
    if (!s)
        return;
    for (uint32_t i = 0; i < s->n_pending; i++)
        rd_kafka_topic_partition_list_destroy(s->pending[i].offsets);
    for (uint32_t i = 0; i < s->n_known; i++)
        weir_free(s->known[i]);
    weir_free(s->known);
    for (uint32_t i = 0; i < s->n_parts; i++) {
        weir_free(s->parts[i].id);
        weir_free(s->parts[i].topic);
    }
    weir_free(s->parts);
    weir_free(s->new_ids);
    if (s->rk)
        rd_kafka_destroy(s->rk);
    weir_buf_fini(&s->scratch);
    weir_free(s);
}

/* ---- discovery ---- */

static bool known_has(const kafka_source *s, const char *id)
{
    for (uint32_t i = 0; i < s->n_known; i++)
        if (strcmp(s->known[i], id) == 0)
            return true;
    return false;
}

static int add_known(kafka_source *s, const char *id)
{
    if (s->n_known == s->cap_known) {
        uint32_t cap = s->cap_known ? s->cap_known * 2 : 16;
        char **k = weir_realloc(s->known, cap * sizeof *k);
        if (!k)
            return WEIR_ENOMEM;
        s->known = k;
        s->cap_known = cap;
    }
    if (!(s->known[s->n_known] = weir_strdup(id)))
        return WEIR_ENOMEM;
    s->n_known++;
    return 0;
}

static int add_part(kafka_source *s, const char *topic, int32_t partition,
                    const char *id)
{
    if (s->n_parts == s->cap_parts) {
        uint32_t cap = s->cap_parts ? s->cap_parts * 2 : 8;
        kafka_part *np = weir_realloc(s->parts, cap * sizeof *np);
        if (!np)
            return WEIR_ENOMEM;
        /* open readers point at their part: move them along */
        for (uint32_t i = 0; i < s->n_parts; i++)
            if (np[i].reader)
                np[i].reader->part = &np[i];
        s->parts = np;
        s->cap_parts = cap;
    }
    kafka_part *pt = &s->parts[s->n_parts];
    memset(pt, 0, sizeof *pt);
    pt->id = weir_strdup(id);
    pt->topic = weir_strdup(topic);
    pt->partition = partition;
    if (!pt->id || !pt->topic) {
        weir_free(pt->id);
        weir_free(pt->topic);
        return WEIR_ENOMEM;
    }
    s->n_parts++;
    return 0;
}

static bool topic_wanted(const weir__kafka_source_arg *a, const char *topic)
{
    if (a->has_pattern) {
        if (strncmp(topic, "__", 2) == 0) /* internal topics */
            return false;
        regmatch_t m;
        return regexec(&a->pattern, topic, 1, &m, 0) == 0 && m.rm_so == 0 &&
               topic[m.rm_eo] == '\0';
    }
    for (uint32_t i = 0; i < a->n_topics; i++)
        if (strcmp(a->topics[i], topic) == 0)
            return true;
    return false;
}

static int ks_discover(void *p, const char ***ids, uint32_t *n_ids, bool *done,
                       weir_error *err)
{
    kafka_source *s = p;
    const weir__kafka_source_arg *a = s->a;
    *ids = NULL;
    *n_ids = 0;
    rd_kafka_poll(s->rk, 0);
    bool periodic = a->bound == WEIR__KAFKA_BOUND_NONE && a->discovery_ms > 0;
    *done = s->discovered && !periodic;
    if (*done)
        return 0;
    weir_clock clock = source_clock(s);
    int64_t now = weir_clock_now(&clock);
    if (s->discovered && now - s->last_discovery_ms < a->discovery_ms)
        return 0;
    const struct rd_kafka_metadata *md = NULL;
    rd_kafka_resp_err_t e =
        rd_kafka_metadata(s->rk, 1, NULL, &md, QUERY_TIMEOUT_MS);
    if (e) {
        if (s->discovered) /* try again at the next interval */
            return 0;
        return weir_error_set(err, WEIR_EIO,
                              "kafka: cannot read the topics of '%s': %s",
                              a->bootstrap, rd_kafka_err2str(e));
    }
    s->last_discovery_ms = now;
    int rc = 0;
    if (!s->discovered) {
        for (uint32_t t = 0; t < a->n_topics && !rc; t++) {
            bool found = false;
            for (int i = 0; i < md->topic_cnt && !found; i++)
                found = strcmp(md->topics[i].topic, a->topics[t]) == 0 &&
                        !md->topics[i].err;
            if (!found)
                rc = weir_error_set(err, WEIR_ENOTFOUND,
                                    "kafka: topic '%s' does not exist on '%s'",
                                    a->topics[t], a->bootstrap);
        }
    }
    uint32_t n_new = 0;
    char id[512];
    for (int i = 0; i < md->topic_cnt && !rc; i++) {
        const struct rd_kafka_metadata_topic *t = &md->topics[i];
        if (t->err || !topic_wanted(a, t->topic))
            continue;
        for (int j = 0; j < t->partition_cnt && !rc; j++) {
            int32_t part = t->partitions[j].id;
            snprintf(id, sizeof id, "%s-%" PRId32, t->topic, part);
            if (known_has(s, id))
                continue;
            if ((rc = add_known(s, id)))
                break;
            if (weir__kafka_split_owner(t->topic, part, s->info.parallelism) !=
                s->info.subtask)
                continue;
            if ((rc = add_part(s, t->topic, part, id)))
                break;
            n_new++;
        }
    }
    rd_kafka_metadata_destroy(md);
    if (rc)
        return rc == WEIR_ENOMEM ? weir_error_set(err, rc, "out of memory")
                                 : rc;
    if (n_new > s->cap_new_ids) {
        const char **nn = weir_realloc(s->new_ids, n_new * sizeof *nn);
        if (!nn)
            return weir_error_set(err, WEIR_ENOMEM, "out of memory");
        s->new_ids = nn;
        s->cap_new_ids = n_new;
    }
    for (uint32_t i = 0; i < n_new; i++)
        s->new_ids[i] = s->parts[s->n_parts - n_new + i].id;
    *ids = s->new_ids;
    *n_ids = n_new;
    s->discovered = true;
    *done = !periodic;
    return 0;
}

/* ---- readers ---- */

static int64_t specific_offset(const weir__kafka_offset *offs, uint32_t n,
                               int32_t partition)
{
    for (uint32_t i = 0; i < n; i++)
        if (offs[i].partition == partition)
            return offs[i].offset;
    return -1;
}

static int committed_offset(kafka_source *s, kafka_part *pt, int64_t *out,
                            weir_error *err)
{
    *out = -1;
    if (!s->a->group_id)
        return 0;
    rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(1);
    if (!l)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    rd_kafka_topic_partition_list_add(l, pt->topic, pt->partition);
    rd_kafka_resp_err_t e = rd_kafka_committed(s->rk, l, QUERY_TIMEOUT_MS);
    if (!e)
        e = l->elems[0].err;
    if (!e && l->elems[0].offset >= 0)
        *out = l->elems[0].offset;
    rd_kafka_topic_partition_list_destroy(l);
    if (e)
        return weir_error_set(err, WEIR_EIO,
                              "kafka: cannot read the committed offset of %s "
                              "for group '%s': %s",
                              pt->id, s->a->group_id, rd_kafka_err2str(e));
    return 0;
}

/*
 * The broker's offsetsForTimes answer for ts: the first offset whose
 * timestamp is >= ts, when it names a record below hi; -1 otherwise (no
 * such record, no answer, or a broker that does not look timestamps up:
 * librdkafka's mock cluster answers the end of the partition).
 */
static int64_t offset_for_time(kafka_source *s, const kafka_part *pt,
                               int64_t ts, int64_t hi)
{
    rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(1);
    if (!l)
        return -1;
    rd_kafka_topic_partition_list_add(l, pt->topic, pt->partition)->offset =
        ts;
    int64_t o = -1;
    if (!rd_kafka_offsets_for_times(s->rk, l, QUERY_TIMEOUT_MS) &&
        !l->elems[0].err && l->elems[0].offset >= 0 &&
        l->elems[0].offset < hi)
        o = l->elems[0].offset;
    rd_kafka_topic_partition_list_destroy(l);
    return o;
}

/* Resolves where a split starts and ends when it opens for the first time. */
/* A fresh reader's start and bound; at >= 0 starts there instead of where
 * the startup mode says (the hybrid source's live part). */
static int resolve_fresh(kafka_reader *r, int64_t at, weir_error *err)
{
    kafka_source *s = r->s;
    const weir__kafka_source_arg *a = s->a;
    kafka_part *pt = r->part;
    int64_t lo = 0, hi = 0;
    rd_kafka_resp_err_t e = rd_kafka_query_watermark_offsets(
        s->rk, pt->topic, pt->partition, &lo, &hi, QUERY_TIMEOUT_MS);
    if (e)
        return weir_error_set(err, WEIR_EIO,
                              "kafka: cannot read the offsets of %s: %s",
                              pt->id, rd_kafka_err2str(e));
    r->hi = hi;
    int64_t c;
    int rc;
    switch (at >= 0 ? WEIR__KAFKA_START_EARLIEST : a->start) {
    case WEIR__KAFKA_START_EARLIEST:
        r->next = lo;
        break;
    case WEIR__KAFKA_START_LATEST:
        r->next = hi;
        break;
    case WEIR__KAFKA_START_TIMESTAMP:
        /* From the broker's offset for the time, else from the earliest;
         * either way records before the first one at or after the time are
         * skipped while reading, so a broker answering too early changes
         * nothing. */
        c = offset_for_time(s, pt, a->start_ts, hi);
        r->next = c >= 0 ? c : lo;
        r->skip_until = a->start_ts;
        break;
    case WEIR__KAFKA_START_SPECIFIC:
        r->next = specific_offset(a->start_offsets, a->n_start_offsets,
                                  pt->partition);
        if (r->next >= 0)
            break;
        /* a partition not listed starts from the group */
        __attribute__((fallthrough));
    case WEIR__KAFKA_START_GROUP:
        if ((rc = committed_offset(s, pt, &c, err)))
            return rc;
        if (c >= 0)
            r->next = c;
        else if (a->start == WEIR__KAFKA_START_SPECIFIC ||
                 a->reset == WEIR__KAFKA_RESET_EARLIEST)
            r->next = lo;
        else if (a->reset == WEIR__KAFKA_RESET_LATEST)
            r->next = hi;
        else
            return weir_error_set(
                err, WEIR_ENOTFOUND,
                "kafka: group '%s' has no committed offset for %s "
                "('scan.startup.mode' = 'group-offsets'); set "
                "'properties.auto.offset.reset' to 'earliest' or 'latest' "
                "to start there instead",
                a->group_id ? a->group_id : "", pt->id);
        break;
    }
    if (at >= 0)
        r->next = at;
    if (r->next < lo) /* a specific or committed offset already deleted */
        r->next = lo;
    switch (a->bound) {
    case WEIR__KAFKA_BOUND_NONE:
        break;
    case WEIR__KAFKA_BOUND_LATEST:
        r->stop = hi;
        break;
    case WEIR__KAFKA_BOUND_TIMESTAMP:
        /* The broker's offset for the time ends the split; the first record
         * at or after the time ends it too, where the broker has no answer. */
        c = offset_for_time(s, pt, a->bound_ts, hi);
        r->stop = c >= 0 ? c : hi;
        r->stop_ts = a->bound_ts;
        break;
    case WEIR__KAFKA_BOUND_SPECIFIC:
        r->stop = specific_offset(a->bound_offsets, a->n_bound_offsets,
                                  pt->partition);
        if (r->stop < 0)
            r->stop = hi;
        break;
    case WEIR__KAFKA_BOUND_GROUP:
        /* Flink's committedOffsets(): the group's position, else the
         * reset strategy ('properties.auto.offset.reset'). */
        if ((rc = committed_offset(s, pt, &c, err)))
            return rc;
        if (c >= 0)
            r->stop = c;
        else if (a->reset == WEIR__KAFKA_RESET_EARLIEST)
            r->stop = lo;
        else if (a->reset == WEIR__KAFKA_RESET_LATEST)
            r->stop = hi;
        else
            return weir_error_set(
                err, WEIR_ENOTFOUND,
                "kafka: group '%s' has no committed offset for %s to stop "
                "at ('scan.bounded.mode' = 'group-offsets'); set "
                "'properties.auto.offset.reset' to 'earliest' or 'latest' "
                "to stop there instead",
                a->group_id ? a->group_id : "", pt->id);
        break;
    }
    return 0;
}

static void reader_free(kafka_reader *r)
{
    for (uint32_t i = r->at; i < r->n_msgs; i++)
        rd_kafka_message_destroy(r->msgs[i]);
    if (r->started)
        rd_kafka_consume_stop(r->rkt, r->part->partition);
    if (r->rkt)
        rd_kafka_topic_destroy(r->rkt);
    weir_free(r->msgs);
    weir_decoder_destroy(r->vdec);
    weir_decoder_destroy(r->kdec);
    weir_batch_destroy(r->vb);
    weir_batch_destroy(r->kb);
    weir__kafka_utab_fini(&r->utab);
    weir_buf_fini(&r->rowbuf);
    weir_free(r);
}

static kafka_part *find_part(kafka_source *s, const char *id)
{
    for (uint32_t i = 0; i < s->n_parts; i++)
        if (strcmp(s->parts[i].id, id) == 0)
            return &s->parts[i];
    return NULL;
}

/* A split named in a restored checkpoint but not (yet) discovered here. */
static kafka_part *part_from_id(kafka_source *s, const char *id)
{
    const char *dash = strrchr(id, '-');
    if (!dash || dash == id || !dash[1])
        return NULL;
    char *end;
    long p = strtol(dash + 1, &end, 10);
    if (*end || p < 0 || p > INT32_MAX)
        return NULL;
    char topic[512];
    size_t n = (size_t)(dash - id);
    if (n >= sizeof topic)
        return NULL;
    memcpy(topic, id, n);
    topic[n] = '\0';
    if (!known_has(s, id) && add_known(s, id))
        return NULL;
    if (add_part(s, topic, (int32_t)p, id))
        return NULL;
    return &s->parts[s->n_parts - 1];
}

static int open_reader(void *p, const char *id, const void *pos,
                       size_t pos_len, int64_t at, void **out,
                       weir_error *err)
{
    kafka_source *s = p;
    const weir__kafka_source_arg *a = s->a;
    kafka_part *pt = find_part(s, id);
    if (!pt && !(pt = part_from_id(s, id)))
        return weir_error_set(err, WEIR_EINVAL,
                              "kafka: '%s' does not name a partition", id);
    kafka_reader *r = weir_calloc(1, sizeof *r);
    if (!r)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    r->s = s;
    r->part = pt;
    r->stop = INT64_MAX;
    r->stop_ts = INT64_MAX;
    r->skip_until = INT64_MIN;
    r->hi = -1;
    weir__kafka_utab_init(&r->utab);
    weir_buf_init(&r->rowbuf);
    r->cap_msgs = s->info.batch_size ? s->info.batch_size : 1024;
    int rc = 0;
    r->msgs = weir_malloc(r->cap_msgs * sizeof *r->msgs);
    if (!r->msgs) {
        rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
        goto fail;
    }
    if ((rc = weir__kafka_make_decoders(a, &r->vdec, &r->kdec, err)))
        goto fail;
    if (!a->direct) {
        if (a->value.kind != WEIR__KAFKA_FMT_NONE &&
            !(r->vb = weir_batch_create(a->value.schema,
                                        a->rows_per_message))) {
            rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
            goto fail;
        }
        if (a->key.kind != WEIR__KAFKA_FMT_NONE &&
            !(r->kb = weir_batch_create(a->key.schema, 1))) {
            rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
            goto fail;
        }
    }
    if (pos) {
        weir_cursor c;
        weir_cursor_init(&c, pos, pos_len);
        uint8_t version;
        /* version 1: the offsets; 2: and the upsert table */
        if (weir_cursor_get_u8(&c, &version) ||
            version != (a->upsert ? 2 : 1) ||
            weir_cursor_get_i64(&c, &r->next) ||
            weir_cursor_get_i64(&c, &r->stop) ||
            weir_cursor_get_i64(&c, &r->stop_ts) ||
            weir_cursor_get_i64(&c, &r->skip_until) ||
            (a->upsert && weir__kafka_utab_load(&r->utab, &c))) {
            rc = weir_error_set(err, WEIR_ECORRUPT,
                                "kafka: the checkpointed position of %s is "
                                "damaged",
                                id);
            goto fail;
        }
    } else if ((rc = resolve_fresh(r, at, err))) {
        goto fail;
    }
    pt->offset = r->next;
    pt->has_offset = true;
    if (r->next >= r->stop) {
        r->done = true;
    } else {
        rd_kafka_topic_t *rkt = rd_kafka_topic_new(s->rk, pt->topic, NULL);
        if (!rkt) {
            rc = weir_error_set(err, WEIR_EIO, "kafka: topic '%s': %s",
                                pt->topic,
                                rd_kafka_err2str(rd_kafka_last_error()));
            goto fail;
        }
        r->rkt = rkt;
        if (rd_kafka_consume_start(rkt, pt->partition, r->next) == -1) {
            rc = weir_error_set(err, WEIR_EIO,
                                "kafka: cannot start reading %s at offset "
                                "%" PRId64 ": %s",
                                id, r->next,
                                rd_kafka_err2str(rd_kafka_last_error()));
            goto fail;
        }
        r->started = true;
    }
    pt->reader = r;
    *out = r;
    return 0;
fail:
    reader_free(r);
    return rc;
}

static int ks_open_split(void *p, const char *id, const void *pos,
                         size_t pos_len, void **out, weir_error *err)
{
    return open_reader(p, id, pos, pos_len, -1, out, err);
}

int weir__kafka_open_at(void *src, const char *id, int64_t offset,
                        void **out, weir_error *err)
{
    return open_reader(src, id, NULL, 0, offset, out, err);
}

static void ks_close_split(void *p)
{
    kafka_reader *r = p;
    if (!r)
        return;
    r->part->offset = r->next;
    r->part->reader = NULL;
    reader_free(r);
}

static int ks_position(void *p, weir_buf *out)
{
    kafka_reader *r = p;
    int rc = weir_buf_put_u8(out, r->s->a->upsert ? 2 : 1);
    if (!rc)
        rc = weir_buf_put_i64(out, r->next);
    if (!rc)
        rc = weir_buf_put_i64(out, r->stop);
    if (!rc)
        rc = weir_buf_put_i64(out, r->stop_ts);
    if (!rc)
        rc = weir_buf_put_i64(out, r->skip_until);
    if (!rc && r->s->a->upsert)
        rc = weir__kafka_utab_save(&r->utab, out);
    return rc;
}

/*
 * For the hybrid source (connector/hybrid/), which runs a bounded range of a
 * partition and then the live partition as one split: the offset a reader
 * stands at (the next one it would return). weir__kafka_open_at opens a
 * reader that starts exactly at an offset (bounded as the source's
 * 'scan.bounded.mode' says).
 */
int64_t weir__kafka_reader_offset(const void *reader)
{
    return ((const kafka_reader *)reader)->next;
}

/* ---- decoding ---- */

static void copy_value(weir_batch *dst, uint32_t dc, uint32_t dr,
                       const weir_batch *src, uint32_t sc, uint32_t sr,
                       int *rc)
{
    if (weir_batch_is_null(src, sc, sr)) {
        weir_batch_set_null(dst, dc, dr);
        return;
    }
    weir_type_id t = src->schema->fields[sc].type.id;
    if (weir_type_is_string(t)) {
        uint32_t len;
        const char *v = weir_batch_str(src, sc, sr, &len);
        if (weir_batch_set_str(dst, dc, dr, v, len))
            *rc = WEIR_ENOMEM;
        return;
    }
    size_t w = weir_type_size(src->schema->fields[sc].type);
    memcpy((char *)dst->cols[dc].data + (size_t)dr * w,
           (const char *)src->cols[sc].data + (size_t)sr * w, w);
}

/* Decodes one part (key or value) into b (reset; one row on success). */
static int decode_part(const weir__kafka_format *f, weir_decoder *dec,
                       weir_batch *b, const void *data, size_t len,
                       weir_decode_error *derr)
{
    weir_batch_reset(b);
    if (!data || f->kind == WEIR__KAFKA_FMT_RAW) {
        int row = weir_batch_append_row(b);
        if (row < 0)
            return WEIR_ENOMEM;
        for (uint32_t c = 0; c < b->schema->n_fields; c++)
            if (!data)
                weir_batch_set_null(b, c, (uint32_t)row);
        if (data && weir_batch_set_str(b, 0, (uint32_t)row, data, len))
            return WEIR_ENOMEM;
        return 0;
    }
    return weir_decoder_decode(dec, data, len, b, derr);
}

static void set_metadata(kafka_reader *r, weir_batch *out, uint32_t row,
                         const rd_kafka_message_t *m, int64_t ts,
                         rd_kafka_timestamp_type_t tstype, int *rc)
{
    const weir__kafka_source_arg *a = r->s->a;
    for (uint32_t i = 0; i < a->n_meta; i++) {
        uint32_t col = a->meta[i].col;
        weir_type_id t = out->schema->fields[col].type.id;
        switch (a->meta[i].kind) {
        case WEIR__KAFKA_META_TOPIC:
            if (weir_batch_set_str(out, col, row, r->part->topic,
                                   strlen(r->part->topic)))
                *rc = WEIR_ENOMEM;
            break;
        case WEIR__KAFKA_META_PARTITION:
        case WEIR__KAFKA_META_LEADER_EPOCH: {
            int64_t v = a->meta[i].kind == WEIR__KAFKA_META_PARTITION
                            ? m->partition
                            : -1;
            if (v < 0) {
                weir_batch_set_null(out, col, row);
            } else if (t == WEIR_TYPE_INT) {
                WEIR_COL_I32(out, col)[row] = (int32_t)v;
            } else {
                WEIR_COL_I64(out, col)[row] = v;
            }
            break;
        }
        case WEIR__KAFKA_META_OFFSET:
            WEIR_COL_I64(out, col)[row] = m->offset;
            break;
        case WEIR__KAFKA_META_TIMESTAMP:
            if (ts < 0 || tstype == RD_KAFKA_TIMESTAMP_NOT_AVAILABLE)
                weir_batch_set_null(out, col, row);
            else
                WEIR_COL_I64(out, col)[row] = ts;
            break;
        case WEIR__KAFKA_META_TIMESTAMP_TYPE: {
            const char *v = tstype == RD_KAFKA_TIMESTAMP_CREATE_TIME
                                ? "CreateTime"
                            : tstype == RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME
                                ? "LogAppendTime"
                                : "NoTimestampType";
            if (weir_batch_set_str(out, col, row, v, strlen(v)))
                *rc = WEIR_ENOMEM;
            break;
        }
        case WEIR__KAFKA_META_HEADERS: {
            /* weir has no MAP type: a JSON object of the headers, values as
             * strings (a header without a value is null). */
            weir_buf *b = &r->s->scratch;
            weir_buf_clear(b);
            int e = weir_buf_put(b, "{", 1);
            rd_kafka_headers_t *hdrs = NULL;
            if (rd_kafka_message_headers(m, &hdrs) == RD_KAFKA_RESP_ERR_NO_ERROR) {
                const char *name;
                const void *val;
                size_t vlen;
                for (size_t h = 0; !e && rd_kafka_header_get_all(
                                             hdrs, h, &name, &val, &vlen) ==
                                             RD_KAFKA_RESP_ERR_NO_ERROR;
                     h++) {
                    if (h)
                        e = weir_buf_put(b, ",", 1);
                    if (!e)
                        e = weir__fmt_json_put_string(b, name, strlen(name));
                    if (!e)
                        e = weir_buf_put(b, ":", 1);
                    if (!e)
                        e = val ? weir__fmt_json_put_string(b, val, vlen)
                                : weir_buf_put(b, "null", 4);
                }
            }
            if (!e)
                e = weir_buf_put(b, "}", 1);
            if (e || weir_batch_set_str(out, col, row, (const char *)b->data,
                                        b->len))
                *rc = WEIR_ENOMEM;
            break;
        }
        }
    }
}

/*
 * Appends the row of message m to out. Returns 0; 1 when the message makes
 * no row (a tombstone for json/csv); WEIR_EPARSE with derr and *what set
 * ("key" or "value"); or another negative code.
 */
static int decode_message(kafka_reader *r, const rd_kafka_message_t *m,
                          weir_batch *out, weir_decode_error *derr,
                          const char **what)
{
    const weir__kafka_source_arg *a = r->s->a;
    *what = "value";
    if (!m->payload && a->value.kind != WEIR__KAFKA_FMT_RAW &&
        a->value.kind != WEIR__KAFKA_FMT_NONE)
        return 1; /* a deletion marker carries no row in an append table */
    if (a->direct)
        return weir_decoder_decode(r->vdec, m->payload, m->len, out, derr);
    int rc;
    if (r->vb && (rc = decode_part(&a->value, r->vdec, r->vb, m->payload,
                                   m->len, derr)))
        return rc;
    *what = "key";
    if (r->kb &&
        (rc = decode_part(&a->key, r->kdec, r->kb, m->key, m->key_len, derr)))
        return rc;
    /* One row, or a debezium-json update's two: each with the key's
     * columns and the message's metadata. */
    uint32_t n = r->vb ? r->vb->n_rows : 1, first = out->n_rows;
    rd_kafka_timestamp_type_t tstype;
    int64_t ts = rd_kafka_message_timestamp(m, &tstype);
    rc = 0;
    for (uint32_t v = 0; v < n && !rc; v++) {
        int row = weir_batch_append_row(out);
        if (row < 0) {
            rc = WEIR_EINVAL;
            break;
        }
        for (uint32_t i = 0; r->kb && i < a->key.schema->n_fields; i++)
            copy_value(out, a->key.cols[i], (uint32_t)row, r->kb, i, 0, &rc);
        for (uint32_t i = 0; r->vb && i < a->value.schema->n_fields; i++)
            copy_value(out, a->value.cols[i], (uint32_t)row, r->vb, i, v,
                       &rc);
        if (r->vb)
            out->kind[row] = r->vb->kind[v];
        set_metadata(r, out, (uint32_t)row, m, ts, tstype, &rc);
    }
    if (rc)
        out->n_rows = first;
    return rc;
}

/*
 * upsert-kafka: turns the row just decoded at out's last row into the
 * changelog of its key: +I for a new key, -U (the key's last row) and +U
 * for a known one, nothing when the row equals the last (as Flink's
 * ChangelogNormalize drops an unchanged row). Returns 0, 1 (no row) or a
 * negative code.
 */
static int upsert_apply(kafka_reader *r, const rd_kafka_message_t *m,
                        weir_batch *out)
{
    uint32_t ncols = out->schema->n_fields, row = out->n_rows - 1;
    weir_buf_clear(&r->rowbuf);
    int rc = weir__row_encode(out, row, ncols, &r->rowbuf);
    if (rc)
        return rc;
    uint32_t klen = (uint32_t)m->key_len;
    weir__kafka_uent *e = weir__kafka_utab_find(&r->utab, m->key, klen);
    if (e && e->row) {
        if (e->rlen == r->rowbuf.len &&
            !memcmp(e->row, r->rowbuf.data, e->rlen)) {
            out->n_rows--;
            return 1;
        }
        int after = weir_batch_append_row(out);
        if (after < 0)
            return WEIR_EINVAL;
        if ((rc = weir__row_decode(r->rowbuf.data, r->rowbuf.len, out,
                                   (uint32_t)after, 0, ncols)) ||
            (rc = weir__row_decode(e->row, e->rlen, out, row, 0, ncols))) {
            out->n_rows = row;
            return rc;
        }
        out->kind[row] = WEIR_ROW_UPDATE_BEFORE;
        out->kind[after] = WEIR_ROW_UPDATE_AFTER;
    } else {
        out->kind[row] = WEIR_ROW_INSERT;
    }
    if ((rc = weir__kafka_utab_put(&r->utab, m->key, klen, r->rowbuf.data,
                                   (uint32_t)r->rowbuf.len)))
        out->n_rows = row;
    return rc;
}

/* upsert-kafka: a tombstone is a -D of its key's last row (none for a key
 * not seen). Returns 0 (one row), 1 (no row) or a negative code. */
static int upsert_delete(kafka_reader *r, const rd_kafka_message_t *m,
                         weir_batch *out)
{
    weir__kafka_uent *e =
        weir__kafka_utab_find(&r->utab, m->key, (uint32_t)m->key_len);
    if (!e || !e->row)
        return 1;
    int row = weir_batch_append_row(out);
    if (row < 0)
        return WEIR_EINVAL;
    int rc = weir__row_decode(e->row, e->rlen, out, (uint32_t)row, 0,
                              out->schema->n_fields);
    if (rc) {
        out->n_rows--;
        return rc;
    }
    out->kind[row] = WEIR_ROW_DELETE;
    weir__kafka_utab_delete(&r->utab, e);
    return 0;
}

/* decode_message, and for upsert-kafka the key's changelog. */
static int read_message(kafka_reader *r, const rd_kafka_message_t *m,
                        weir_batch *out, weir_decode_error *derr,
                        const char **what)
{
    if (!r->s->a->upsert)
        return decode_message(r, m, out, derr, what);
    if (!m->key) {
        *what = "key";
        derr->pos = 0;
        snprintf(derr->message, sizeof derr->message,
                 "expected a message key (upsert-kafka keys every row by "
                 "it), found none");
        return WEIR_EPARSE;
    }
    if (!m->payload)
        return upsert_delete(r, m, out);
    int rc = decode_message(r, m, out, derr, what);
    return rc ? rc : upsert_apply(r, m, out);
}

static bool fatal_consume_error(rd_kafka_resp_err_t e)
{
    return e == RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION ||
           e == RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC ||
           e == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED ||
           e == RD_KAFKA_RESP_ERR__AUTHENTICATION ||
           e == RD_KAFKA_RESP_ERR__SSL;
}

static void release_msgs(kafka_reader *r)
{
    for (uint32_t i = r->at; i < r->n_msgs; i++)
        rd_kafka_message_destroy(r->msgs[i]);
    r->at = r->n_msgs = 0;
}

static int ks_read(void *p, weir_batch *out, uint32_t max_rows,
                   weir_error *err)
{
    kafka_reader *r = p;
    kafka_source *s = r->s;
    const weir__kafka_source_arg *a = s->a;
    uint32_t appended = 0;
    while (!r->done && appended < max_rows &&
           out->capacity - out->n_rows >= a->rows_per_message) {
        if (r->at == r->n_msgs) {
            r->at = r->n_msgs = 0;
            uint32_t want = max_rows - appended;
            if (want > r->cap_msgs)
                want = r->cap_msgs;
            ssize_t n = rd_kafka_consume_batch(r->rkt, r->part->partition, 0,
                                               r->msgs, want);
            if (n < 0)
                return weir_error_set(err, WEIR_EIO, "kafka: %s: %s",
                                      r->part->id,
                                      rd_kafka_err2str(rd_kafka_last_error()));
            if (n == 0)
                break;
            r->n_msgs = (uint32_t)n;
        }
        rd_kafka_message_t *m = r->msgs[r->at];
        if (m->err) {
            if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
                r->at_eof = true;
                r->eof_offset = m->offset;
                if (m->offset >= r->stop)
                    r->done = true;
            } else if (fatal_consume_error(m->err)) {
                int rc = weir_error_set(err, WEIR_EIO, "kafka: %s: %s",
                                        r->part->id,
                                        rd_kafka_message_errstr(m));
                return appended ? (int)appended : rc;
            } else {
                s->n_consume_errors++;
            }
            rd_kafka_message_destroy(m);
            r->at++;
            continue;
        }
        if (m->offset < r->next) { /* already returned */
            rd_kafka_message_destroy(m);
            r->at++;
            continue;
        }
        if (m->offset >= r->stop) {
            r->done = true;
            break;
        }
        rd_kafka_timestamp_type_t tstype;
        int64_t ts = rd_kafka_message_timestamp(m, &tstype);
        if (r->stop_ts != INT64_MAX && ts >= r->stop_ts) {
            r->done = true;
            break;
        }
        r->at_eof = false;
        if (r->skip_until != INT64_MIN) {
            if (ts < r->skip_until) {
                r->next = m->offset + 1;
                rd_kafka_message_destroy(m);
                r->at++;
                continue;
            }
            r->skip_until = INT64_MIN;
        }
        weir_decode_error derr;
        const char *what;
        const uint32_t before = out->n_rows;
        int rc = read_message(r, m, out, &derr, &what);
        if (rc == WEIR_EPARSE) {
            if (!a->skip_bad) {
                rc = weir_error_set(
                    err, WEIR_EPARSE,
                    "%s:%" PRId64 ": error: %s of the message: %s (byte %zu)",
                    r->part->id, m->offset, what, derr.message, derr.pos);
                return appended ? (int)appended : rc;
            }
            s->n_skipped++;
        } else if (rc == 1) {
            if (!m->payload)
                s->n_tombstones++;
            else
                s->n_unchanged++;
        } else if (rc) {
            return weir_error_set(err, rc, "kafka: %s:%" PRId64 ": %s",
                                  r->part->id, m->offset, weir_strerror(rc));
        } else {
            appended += out->n_rows - before;
            r->last_ts = ts;
            r->has_last_ts = true;
        }
        r->next = m->offset + 1;
        rd_kafka_message_destroy(m);
        r->at++;
        if (r->next >= r->stop)
            r->done = true;
    }
    if (r->done)
        release_msgs(r);
    s->n_records += appended;
    if (appended)
        return (int)appended;
    return r->done ? WEIR_EOF : 0;
}

/* ---- lag, checkpoints, metrics ---- */

static int64_t reader_lag(kafka_reader *r)
{
    int64_t lo = -1, hi = -1;
    if (!rd_kafka_get_watermark_offsets(r->s->rk, r->part->topic,
                                        r->part->partition, &lo, &hi) &&
        hi > r->hi)
        r->hi = hi;
    if (r->done)
        return 0;
    int64_t upto = r->hi;
    if (r->stop < upto)
        upto = r->stop;
    int64_t from = r->next;
    if (r->at_eof && r->at == r->n_msgs && r->eof_offset > from)
        from = r->eof_offset;
    return upto > from ? upto - from : 0;
}

static bool ks_has_backlog(void *p)
{
    kafka_reader *r = p;
    return !r->done && (r->at < r->n_msgs || reader_lag(r) > 0);
}

static int ks_checkpoint_taken(void *p, uint64_t ckpt_id, weir_error *err)
{
    kafka_source *s = p;
    (void)err;
    if (!s->a->group_id || !s->a->commit_on_checkpoint)
        return 0;
    rd_kafka_topic_partition_list_t *l =
        rd_kafka_topic_partition_list_new((int)(s->n_parts ? s->n_parts : 1));
    if (!l)
        return 0; /* only the group's committed offsets lag behind */
    for (uint32_t i = 0; i < s->n_parts; i++) {
        kafka_part *pt = &s->parts[i];
        if (pt->reader)
            pt->offset = pt->reader->next;
        if (pt->has_offset)
            rd_kafka_topic_partition_list_add(l, pt->topic, pt->partition)
                ->offset = pt->offset;
    }
    if (s->n_pending == MAX_PENDING_COMMITS) {
        /* the oldest never completed: forget it */
        rd_kafka_topic_partition_list_destroy(s->pending[0].offsets);
        memmove(s->pending, s->pending + 1,
                (MAX_PENDING_COMMITS - 1) * sizeof *s->pending);
        s->n_pending--;
    }
    s->pending[s->n_pending++] = (pending_commit){ckpt_id, l};
    return 0;
}

/* Committing to the group is a courtesy to lag tools (a restore reads the
 * checkpoint's offsets): a failure is counted, never fails the job. */
static int ks_checkpoint_complete(void *p, uint64_t ckpt_id, weir_error *err)
{
    kafka_source *s = p;
    (void)err;
    rd_kafka_topic_partition_list_t *commit = NULL;
    uint32_t keep = 0;
    for (uint32_t i = 0; i < s->n_pending; i++) {
        if (s->pending[i].ckpt_id > ckpt_id) {
            s->pending[keep++] = s->pending[i];
            continue;
        }
        if (s->pending[i].ckpt_id == ckpt_id)
            commit = s->pending[i].offsets;
        else
            rd_kafka_topic_partition_list_destroy(s->pending[i].offsets);
    }
    s->n_pending = keep;
    if (!commit)
        return 0;
    if (commit->cnt > 0) {
        rd_kafka_resp_err_t e = rd_kafka_commit(s->rk, commit, 1);
        if (e)
            s->n_commit_failures++;
        else
            s->n_commits++;
    }
    rd_kafka_topic_partition_list_destroy(commit);
    rd_kafka_poll(s->rk, 0);
    return 0;
}

static int ks_metrics(void *p,
                      void (*emit)(void *ud, const char *name, uint64_t v),
                      void *ud)
{
    kafka_source *s = p;
    rd_kafka_poll(s->rk, 0);
    emit(ud, "records_read", s->n_records);
    emit(ud, "skipped_records", s->n_skipped);
    emit(ud, "tombstones_skipped", s->n_tombstones);
    if (s->a->upsert)
        emit(ud, "upserts_unchanged", s->n_unchanged);
    emit(ud, "offset_commits", s->n_commits);
    emit(ud, "offset_commit_failures", s->n_commit_failures);
    emit(ud, "consume_errors", s->n_consume_errors);
    weir_clock clock = source_clock(s);
    int64_t now = weir_clock_now(&clock);
    char name[600];
    for (uint32_t i = 0; i < s->n_parts; i++) {
        kafka_reader *r = s->parts[i].reader;
        if (!r)
            continue;
        int64_t lag = reader_lag(r);
        int64_t lag_ms = lag > 0 && r->has_last_ts && now > r->last_ts
                             ? now - r->last_ts
                             : 0;
        snprintf(name, sizeof name, "kafka.%s.%" PRId32 ".lag_records",
                 s->parts[i].topic, s->parts[i].partition);
        emit(ud, name, (uint64_t)lag);
        snprintf(name, sizeof name, "kafka.%s.%" PRId32 ".lag_ms",
                 s->parts[i].topic, s->parts[i].partition);
        emit(ud, name, (uint64_t)lag_ms);
    }
    return 0;
}

const weir_source_class weir__kafka_source_class = {
    .name = "kafka",
    .create = ks_create,
    .discover = ks_discover,
    .open_split = ks_open_split,
    .read = ks_read,
    .position = ks_position,
    .close_split = ks_close_split,
    .destroy = ks_destroy,
    .metrics = ks_metrics,
    .has_backlog = ks_has_backlog,
    .checkpoint_taken = ks_checkpoint_taken,
    .checkpoint_complete = ks_checkpoint_complete,
};

#endif
