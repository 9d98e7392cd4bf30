/*
 * connector/hybrid/hybrid.c - 'connector' = 'hybrid': a bounded history
 * (files, or a range of a Kafka topic) and then the live topic, as one
 * table with one schema, one format and one WATERMARK (Flink's
 * HybridSource, which Flink SQL has no connector for).
 *
 * Options: 'sources' = 'history,live' names the two parts (the default);
 * an option '<name>.<key>' goes to that part as '<key>', any other option
 * to both ('format', 'json.*', 'topic', 'properties.bootstrap.servers').
 * '<name>.connector' says what each part is.
 *
 * Two ways to switch, decided when the table is built:
 *
 * - Chained (the history is a bounded range of the live topic: both parts
 *   Kafka, same topics, same bootstrap servers). One split per partition
 *   runs both phases: the history's reader until its bound, then a live
 *   reader opened at exactly the offset the history's reader stands at.
 *   No gap and no overlap by construction: the offsets read are
 *   [history start, bound) followed by [bound, ...). The split keeps its
 *   watermark generator across the switch, so the partition's watermark is
 *   one sequence. The position is (phase, the part's own position), so a
 *   checkpoint of either phase restores in that phase at that offset, and
 *   a history bound that moves between runs ('latest-offset') is fixed by
 *   the first run's history position until the split switches.
 *
 * - Sequential (files, or another topic, as history). The subtask reads its
 *   history splits; once all of them ended it discovers the live part's
 *   splits, which start where the live part's own startup options say
 *   (required: 'live.scan.startup.mode'). The subtask's watermark holds at
 *   the history's last one (a valve never goes back) until every live
 *   partition's own watermark passes it; idle live partitions are left out
 *   as in the Kafka source (lag-aware idleness).
 *   A history split restored as finished is never opened by the runtime:
 *   a history id handed out by one discover() call and not opened by the
 *   next call ended before the checkpoint this run restored.
 *
 * Split ids: chained, the Kafka partition's id ("topic-3"); sequential,
 * "<name>:<the part's id>", so the phases never collide in a checkpoint.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "connector/hybrid/hybrid.h"
#ifdef WEIR_HAVE_KAFKA
#include "connector/kafka/source_internal.h"
#endif

#define HYBRID_NAME_MAX 64

typedef struct hybrid_arg {
    char names[2][HYBRID_NAME_MAX]; /* the history's and the live part's */
    weir_source_spec part[2];       /* [0] history, [1] live */
    bool chained;
} hybrid_arg;

enum { HIST_RETURNED = 0, HIST_OPENED, HIST_ENDED };

typedef struct hybrid_src {
    const hybrid_arg *a;
    void *inst[2];
    /* sequential mode: the history ids handed out and where each stands */
    char **hist_ids; /* inner ids (owned) */
    uint8_t *hist_state;
    uint32_t n_hist, cap_hist;
    bool hist_done; /* the history discovered all its splits */
    bool switched;  /* this subtask reads the live part */
    /* ids handed to the runtime (owned until destroy) */
    char **ids;
    uint32_t n_ids, cap_ids;
    const char **out; /* the array of one discover() call */
    uint32_t cap_out;
} hybrid_src;

typedef struct hybrid_reader {
    hybrid_src *s;
    int phase;     /* 0 history, 1 live */
    void *inner;   /* the part's reader */
    char *id;      /* the part's split id */
    int32_t hist;  /* sequential history split: its index; -1 otherwise */
} hybrid_reader;

static const weir_source_class *cls_of(const hybrid_src *s, int phase)
{
    return s->a->part[phase].cls;
}

static void hybrid_free_arg(void *p)
{
    hybrid_arg *a = p;
    if (!a)
        return;
    weir_source_spec_release(&a->part[0]);
    weir_source_spec_release(&a->part[1]);
    weir_free(a);
}

/* ---- instances ---- */

static void hs_destroy(void *p)
{
    hybrid_src *s = p;
    if (!s)
        return;
    for (int i = 0; i < 2; i++)
        if (s->inst[i])
            cls_of(s, i)->destroy(s->inst[i]);
    for (uint32_t i = 0; i < s->n_hist; i++)
        weir_free(s->hist_ids[i]);
    weir_free(s->hist_ids);
    weir_free(s->hist_state);
    for (uint32_t i = 0; i < s->n_ids; i++)
        weir_free(s->ids[i]);
    weir_free(s->ids);
    weir_free(s->out);
    weir_free(s);
}

static int hs_create(void *argp, const weir_source_info *info, void **out,
                     weir_error *err)
{
    const hybrid_arg *a = argp;
    hybrid_src *s = weir_calloc(1, sizeof *s);
    if (!s)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    s->a = a;
    for (int i = 0; i < 2; i++) {
        int rc = a->part[i].cls->create(a->part[i].arg, info, &s->inst[i],
                                        err);
        if (rc) {
            s->inst[i] = NULL;
            hs_destroy(s);
            return rc;
        }
    }
    *out = s;
    return 0;
}

/* Keeps id (a copy, prefixed with the part's name in sequential mode) for
 * the runtime and adds it to this call's array. */
static int hand_out(hybrid_src *s, uint32_t *n_out, const char *prefix,
                    const char *id)
{
    if (s->n_ids == s->cap_ids) {
        uint32_t cap = s->cap_ids ? s->cap_ids * 2 : 8;
        char **ids = weir_realloc(s->ids, cap * sizeof *ids);
        if (!ids)
            return WEIR_ENOMEM;
        s->ids = ids;
        s->cap_ids = cap;
    }
    if (*n_out == s->cap_out) {
        uint32_t cap = s->cap_out ? s->cap_out * 2 : 8;
        const char **o = weir_realloc(s->out, cap * sizeof *o);
        if (!o)
            return WEIR_ENOMEM;
        s->out = o;
        s->cap_out = cap;
    }
    size_t n = (prefix ? strlen(prefix) + 1 : 0) + strlen(id) + 1;
    char *c = weir_malloc(n);
    if (!c)
        return WEIR_ENOMEM;
    if (prefix)
        snprintf(c, n, "%s:%s", prefix, id);
    else
        memcpy(c, id, n);
    s->ids[s->n_ids++] = c;
    s->out[(*n_out)++] = c;
    return 0;
}

static int add_hist(hybrid_src *s, const char *id)
{
    if (s->n_hist == s->cap_hist) {
        uint32_t cap = s->cap_hist ? s->cap_hist * 2 : 8;
        char **ids = weir_realloc(s->hist_ids, cap * sizeof *ids);
        if (!ids)
            return WEIR_ENOMEM;
        s->hist_ids = ids;
        uint8_t *st = weir_realloc(s->hist_state, cap);
        if (!st)
            return WEIR_ENOMEM;
        s->hist_state = st;
        s->cap_hist = cap;
    }
    if (!(s->hist_ids[s->n_hist] = weir_strdup(id)))
        return WEIR_ENOMEM;
    s->hist_state[s->n_hist++] = HIST_RETURNED;
    return 0;
}

static int discover_live(hybrid_src *s, uint32_t *n_out, bool *done,
                         weir_error *err)
{
    const char **ids = NULL;
    uint32_t n = 0;
    int rc = cls_of(s, 1)->discover(s->inst[1], &ids, &n, done, err);
    for (uint32_t i = 0; i < n && !rc; i++)
        rc = hand_out(s, n_out, s->a->chained ? NULL : s->a->names[1],
                      ids[i]);
    return rc == WEIR_ENOMEM ? weir_error_set(err, rc, "out of memory") : rc;
}

static int hs_discover(void *p, const char ***ids, uint32_t *n_ids,
                       bool *done, weir_error *err)
{
    hybrid_src *s = p;
    uint32_t n_out = 0;
    int rc = 0;
    *done = false;
    if (s->a->chained) {
        /* The live part finds the partitions; each runs both phases. */
        rc = discover_live(s, &n_out, done, err);
        goto out;
    }
    if (!s->switched) {
        /* Every history id of an earlier call that is still not opened was
         * restored as finished (the runtime adds all ids of one call before
         * it calls again). */
        for (uint32_t i = 0; i < s->n_hist; i++)
            if (s->hist_state[i] == HIST_RETURNED)
                s->hist_state[i] = HIST_ENDED;
        if (!s->hist_done) {
            const char **h = NULL;
            uint32_t n = 0;
            bool hdone = false;
            if ((rc = cls_of(s, 0)->discover(s->inst[0], &h, &n, &hdone,
                                             err)))
                goto out;
            for (uint32_t i = 0; i < n && !rc; i++) {
                rc = add_hist(s, h[i]);
                if (!rc)
                    rc = hand_out(s, &n_out, s->a->names[0], h[i]);
            }
            if (rc) {
                rc = weir_error_set(err, rc, "out of memory");
                goto out;
            }
            s->hist_done = hdone;
        }
        bool ended = s->hist_done;
        for (uint32_t i = 0; i < s->n_hist && ended; i++)
            ended = s->hist_state[i] == HIST_ENDED;
        s->switched = ended;
    }
    if (s->switched)
        rc = discover_live(s, &n_out, done, err);
out:
    *ids = s->out;
    *n_ids = rc ? 0 : n_out;
    return rc;
}

/* ---- readers ---- */

static void hr_free(hybrid_reader *r)
{
    if (!r)
        return;
    if (r->inner)
        cls_of(r->s, r->phase)->close_split(r->inner);
    weir_free(r->id);
    weir_free(r);
}

#ifdef WEIR_HAVE_KAFKA
/* Chained: the history's reader of r ended; the live reader starts at the
 * offset it stands at. */
static int switch_to_live(hybrid_reader *r, weir_error *err)
{
    hybrid_src *s = r->s;
    int64_t at = weir__kafka_reader_offset(r->inner);
    cls_of(s, 0)->close_split(r->inner);
    r->inner = NULL;
    void *live = NULL;
    int rc = weir__kafka_open_at(s->inst[1], r->id, at, &live, err);
    if (rc)
        return rc;
    r->inner = live;
    r->phase = 1;
    return 0;
}
#else
static int switch_to_live(hybrid_reader *r, weir_error *err)
{
    (void)r;
    return weir_error_set(err, WEIR_EUNSUPPORTED,
                          "hybrid: chained Kafka parts need librdkafka");
}
#endif

static int hs_open_split(void *p, const char *id, const void *pos,
                         size_t pos_len, void **out, weir_error *err)
{
    hybrid_src *s = p;
    const hybrid_arg *a = s->a;
    hybrid_reader *r = weir_calloc(1, sizeof *r);
    if (!r)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    r->s = s;
    r->hist = -1;
    const char *inner_id = id;
    if (a->chained) {
        if (pos) {
            /* (phase, the part's position) */
            if (pos_len < 1 || ((const uint8_t *)pos)[0] > 1) {
                hr_free(r);
                return weir_error_set(err, WEIR_ECORRUPT,
                                      "hybrid: the checkpointed position of "
                                      "%s is damaged",
                                      id);
            }
            r->phase = ((const uint8_t *)pos)[0];
            pos = (const uint8_t *)pos + 1;
            pos_len--;
        }
    } else {
        size_t n0 = strlen(a->names[0]), n1 = strlen(a->names[1]);
        if (!strncmp(id, a->names[0], n0) && id[n0] == ':') {
            r->phase = 0;
            inner_id = id + n0 + 1;
        } else if (!strncmp(id, a->names[1], n1) && id[n1] == ':') {
            r->phase = 1;
            inner_id = id + n1 + 1;
        } else {
            hr_free(r);
            return weir_error_set(err, WEIR_EINVAL,
                                  "hybrid: split '%s' names neither '%s' nor "
                                  "'%s'",
                                  id, a->names[0], a->names[1]);
        }
        if (r->phase == 0)
            for (uint32_t i = 0; i < s->n_hist; i++)
                if (!strcmp(s->hist_ids[i], inner_id))
                    r->hist = (int32_t)i;
    }
    if (!(r->id = weir_strdup(inner_id))) {
        hr_free(r);
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    }
    int rc = cls_of(s, r->phase)->open_split(s->inst[r->phase], inner_id, pos,
                                             pos_len, &r->inner, err);
    if (rc) {
        r->inner = NULL;
        hr_free(r);
        return rc;
    }
    if (r->hist >= 0)
        s->hist_state[r->hist] = HIST_OPENED;
    *out = r;
    return 0;
}

static int hs_read(void *p, weir_batch *out, uint32_t max_rows,
                   weir_error *err)
{
    hybrid_reader *r = p;
    hybrid_src *s = r->s;
    int rc = cls_of(s, r->phase)->read(r->inner, out, max_rows, err);
    if (rc != WEIR_EOF || r->phase == 1)
        return rc;
    if (!s->a->chained) {
        if (r->hist >= 0)
            s->hist_state[r->hist] = HIST_ENDED;
        return WEIR_EOF;
    }
    if ((rc = switch_to_live(r, err)))
        return rc;
    /* Nothing read now; the runtime comes back (lag-aware idleness asks the
     * live reader whether it is behind). */
    return cls_of(s, 1)->read(r->inner, out, max_rows, err);
}

static int hs_position(void *p, weir_buf *out)
{
    hybrid_reader *r = p;
    int rc = 0;
    if (r->s->a->chained)
        rc = weir_buf_put_u8(out, (uint8_t)r->phase);
    if (!rc && cls_of(r->s, r->phase)->position)
        rc = cls_of(r->s, r->phase)->position(r->inner, out);
    return rc;
}

static void hs_close_split(void *p)
{
    hr_free(p);
}

static bool hs_has_backlog(void *p)
{
    hybrid_reader *r = p;
    const weir_source_class *c = cls_of(r->s, r->phase);
    return c->has_backlog && r->inner && c->has_backlog(r->inner);
}

/*
 * Checkpoint hooks go to both parts, except that a chained history (a range
 * of the live topic) leaves committing to the live part: the history's
 * consumer would go on committing the offset its range ended at after the
 * partition switched, racing the live consumer's newer one.
 */
static int hs_checkpoint_taken(void *p, uint64_t ckpt_id, weir_error *err)
{
    hybrid_src *s = p;
    int rc = 0;
    for (int i = s->a->chained ? 1 : 0; i < 2 && !rc; i++)
        if (cls_of(s, i)->checkpoint_taken)
            rc = cls_of(s, i)->checkpoint_taken(s->inst[i], ckpt_id, err);
    return rc;
}

static int hs_checkpoint_complete(void *p, uint64_t ckpt_id, weir_error *err)
{
    hybrid_src *s = p;
    int rc = 0;
    for (int i = s->a->chained ? 1 : 0; i < 2 && !rc; i++)
        if (cls_of(s, i)->checkpoint_complete)
            rc = cls_of(s, i)->checkpoint_complete(s->inst[i], ckpt_id, err);
    return rc;
}

/* The parts' counters, each named after its part ("history_records"). */
typedef struct metric_ctx {
    const char *part;
    void (*emit)(void *ud, const char *name, uint64_t v);
    void *ud;
} metric_ctx;

static void metric_prefixed(void *ud, const char *name, uint64_t v)
{
    metric_ctx *m = ud;
    char buf[160];
    snprintf(buf, sizeof buf, "%s_%s", m->part, name);
    m->emit(m->ud, buf, v);
}

static int hs_metrics(void *p, void (*emit)(void *ud, const char *name,
                                            uint64_t v),
                      void *ud)
{
    hybrid_src *s = p;
    emit(ud, "hybrid_switched", s->a->chained || s->switched ? 1 : 0);
    for (int i = 0; i < 2; i++) {
        metric_ctx m = {s->a->names[i], emit, ud};
        if (cls_of(s, i)->metrics)
            cls_of(s, i)->metrics(s->inst[i], metric_prefixed, &m);
    }
    return 0;
}

const weir_source_class weir__hybrid_source_class = {
    .name = "hybrid",
    .create = hs_create,
    .discover = hs_discover,
    .open_split = hs_open_split,
    .read = hs_read,
    .position = hs_position,
    .close_split = hs_close_split,
    .destroy = hs_destroy,
    .metrics = hs_metrics,
    .has_backlog = hs_has_backlog,
    .checkpoint_taken = hs_checkpoint_taken,
    .checkpoint_complete = hs_checkpoint_complete,
};

/* ---- options ---- */

/* Reads 'sources' = 'a,b' into names. */
static int parse_sources(const char *v, char names[2][HYBRID_NAME_MAX])
{
    const char *comma = strchr(v, ',');
    if (!comma || strchr(comma + 1, ','))
        return WEIR_EINVAL;
    const char *part[2] = {v, comma + 1};
    size_t len[2] = {(size_t)(comma - v), strlen(comma + 1)};
    for (int i = 0; i < 2; i++) {
        while (len[i] && *part[i] == ' ') {
            part[i]++;
            len[i]--;
        }
        while (len[i] && part[i][len[i] - 1] == ' ')
            len[i]--;
        if (!len[i] || len[i] >= HYBRID_NAME_MAX)
            return WEIR_EINVAL;
        for (size_t j = 0; j < len[i]; j++) {
            char c = part[i][j];
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                  (c >= '0' && c <= '9') || c == '_' || c == '-'))
                return WEIR_EINVAL;
        }
        memcpy(names[i], part[i], len[i]);
        names[i][len[i]] = 0;
    }
    return strcmp(names[0], names[1]) ? 0 : WEIR_EINVAL;
}

/* Which part option key goes to: 0, 1, 2 for both, -1: the hybrid's own. */
static int owner_of(const char *key, const hybrid_arg *a, const char **rest)
{
    if (!strcmp(key, "sources") || !strcmp(key, "connector"))
        return -1;
    for (int i = 0; i < 2; i++) {
        size_t n = strlen(a->names[i]);
        if (!strncmp(key, a->names[i], n) && key[n] == '.') {
            *rest = key + n + 1;
            return i;
        }
    }
    *rest = key;
    return 2;
}

static bool has_opt(const weir_option *o, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(o[i].key, key))
            return true;
    return false;
}

static const char *get_opt(const weir_option *o, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(o[i].key, key))
            return o[i].value;
    return NULL;
}

#ifdef WEIR_HAVE_KAFKA
static bool same_topics(const weir__kafka_source_arg *h,
                        const weir__kafka_source_arg *l)
{
    if (h->has_pattern || l->has_pattern || h->n_topics != l->n_topics ||
        !h->bootstrap || !l->bootstrap || strcmp(h->bootstrap, l->bootstrap))
        return false;
    for (uint32_t i = 0; i < h->n_topics; i++)
        if (strcmp(h->topics[i], l->topics[i]))
            return false;
    return true;
}
#endif

int weir__hybrid_source_spec_opts(const weir_option *opts, size_t n_opts,
                                  const weir_schema *schema,
                                  const weir_connector_env *env,
                                  weir_source_spec *out, weir_error *err)
{
    int *bad = env ? env->bad_option_index : NULL;
    if (bad)
        *bad = -1;
    hybrid_arg *a = weir_calloc(1, sizeof *a);
    weir_option *sub = weir_calloc(n_opts + 1, sizeof *sub);
    size_t *map = weir_calloc(n_opts + 1, sizeof *map);
    bool *refused = weir_calloc(n_opts + 1, sizeof *refused);
    int rc = 0;
    if (!a || !sub || !map || !refused) {
        rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
        goto fail;
    }
    strcpy(a->names[0], "history");
    strcpy(a->names[1], "live");
    for (size_t i = 0; i < n_opts; i++) {
        if (!opts[i].key || !opts[i].value) {
            rc = weir_error_set(err, WEIR_EINVAL,
                                "connector 'hybrid': option %zu has no key or "
                                "no value",
                                i);
            goto fail;
        }
        if (!strcmp(opts[i].key, "sources") &&
            parse_sources(opts[i].value, a->names)) {
            if (bad)
                *bad = (int)i;
            rc = weir_error_set(err, WEIR_EINVAL,
                                "option 'sources': expected two different "
                                "names separated by a comma, the bounded "
                                "history first (e.g. 'history,live'), found "
                                "'%s'",
                                opts[i].value);
            goto fail;
        }
    }
    /* An option whose first word is close to a part's name is a misspelled
     * part option, not one for both parts ('histroy.path'). */
    for (size_t i = 0; i < n_opts; i++) {
        const char *rest;
        const char *dot = strchr(opts[i].key, '.');
        if (owner_of(opts[i].key, a, &rest) != 2 || !dot)
            continue;
        char word[HYBRID_NAME_MAX];
        size_t wl = (size_t)(dot - opts[i].key);
        if (wl >= sizeof word)
            continue;
        memcpy(word, opts[i].key, wl);
        word[wl] = 0;
        for (int k = 0; k < 2; k++) {
            size_t d = weir__opt_edit_distance(word, a->names[k]);
            if (d > 0 && d <= strlen(a->names[k]) / 3 + 1) {
                if (bad)
                    *bad = (int)i;
                rc = weir_error_set(err, WEIR_EINVAL,
                                    "unsupported option '%s' for connector "
                                    "'hybrid' (did you mean '%s.%s'?)",
                                    opts[i].key, a->names[k], dot + 1);
                goto fail;
            }
        }
    }
    const char *conn[2] = {NULL, NULL};
    for (int part = 0; part < 2; part++) {
        size_t n = 0;
        for (size_t i = 0; i < n_opts; i++) {
            const char *rest;
            int w = owner_of(opts[i].key, a, &rest);
            if (w == part || w == 2) {
                sub[n] = (weir_option){rest, opts[i].value};
                map[n++] = i;
            }
        }
        /* A live part that may go on from a range of its own topic needs no
         * start of its own (the switch gives it); so that the Kafka options
         * do not ask for a consumer group, it gets one it never uses. Not
         * chained after all, it must have been given one (checked below). */
        if (part == 1 && !has_opt(sub, n, "scan.startup.mode") &&
            conn[0] && !strcmp(conn[0], "kafka")) {
            sub[n] = (weir_option){"scan.startup.mode", "earliest-offset"};
            map[n++] = SIZE_MAX;
        }
        conn[part] = get_opt(sub, n, "connector");
        if (!conn[part]) {
            rc = weir_error_set(err, WEIR_EINVAL,
                                "connector 'hybrid' needs option "
                                "'%s.connector' (%s)",
                                a->names[part],
                                part ? "the live part: 'kafka'"
                                     : "the bounded history: 'filesystem' or "
                                       "'kafka'");
            goto fail;
        }
        if (!strcmp(conn[part], "hybrid")) {
            rc = weir_error_set(err, WEIR_EINVAL,
                                "option '%s.connector': a hybrid part cannot "
                                "be 'hybrid' itself",
                                a->names[part]);
            goto fail;
        }
        /* The history must end. */
        if (part == 0) {
            const char *why = NULL;
            if (!strcmp(conn[0], "filesystem") &&
                has_opt(sub, n, "source.monitor-interval"))
                why = "'source.monitor-interval' makes the files unbounded";
            else if (!strcmp(conn[0], "kafka")) {
                const char *m = get_opt(sub, n, "scan.bounded.mode");
                if (!m || !strcasecmp(m, "unbounded"))
                    why = "a Kafka history needs 'history.scan.bounded.mode' "
                          "('latest-offset', 'timestamp' or "
                          "'specific-offsets')";
            } else if (strcmp(conn[0], "filesystem"))
                why = "the history is 'filesystem' or 'kafka'";
            if (why) {
                for (size_t i = 0; i < n && bad; i++)
                    if (map[i] != SIZE_MAX &&
                        (!strcmp(sub[i].key, "source.monitor-interval") ||
                         !strcmp(sub[i].key, "scan.bounded.mode")))
                        *bad = (int)map[i];
                rc = weir_error_set(err, WEIR_EINVAL,
                                    "connector 'hybrid': the history part "
                                    "'%s' must be bounded: %s",
                                    a->names[0], why);
                goto fail;
            }
        }
        weir_connector_env e;
        int inner_bad = -1;
        if (env)
            e = *env;
        else
            memset(&e, 0, sizeof e);
        e.bad_option_index = &inner_bad;
        weir_error ierr;
        const char *rest;
        /* A shared option that this part's connector does not know is left
         * to the other part ('path' for files, 'topic' for Kafka); one that
         * neither knows is refused, by the second part's message. */
        for (;;) {
            weir_error_clear(&ierr);
            inner_bad = -1;
            rc = weir_connector_source_spec(conn[part], sub, n, schema, &e,
                                            &a->part[part], &ierr);
            if (!rc || inner_bad < 0 || (size_t)inner_bad >= n ||
                map[inner_bad] == SIZE_MAX ||
                owner_of(opts[map[inner_bad]].key, a, &rest) != 2 ||
                strncmp(ierr.message, "unsupported option", 18) ||
                (part == 1 && refused[map[inner_bad]]))
                break;
            refused[map[inner_bad]] = true;
            memset(&a->part[part], 0, sizeof a->part[part]);
            n--;
            memmove(sub + inner_bad, sub + inner_bad + 1,
                    (n - (size_t)inner_bad) * sizeof *sub);
            memmove(map + inner_bad, map + inner_bad + 1,
                    (n - (size_t)inner_bad) * sizeof *map);
        }
        if (rc) {
            memset(&a->part[part], 0, sizeof a->part[part]);
            if (bad && inner_bad >= 0 && (size_t)inner_bad < n &&
                map[inner_bad] != SIZE_MAX)
                *bad = (int)map[inner_bad];
            weir_error_set(err, rc, "hybrid part '%s' ('%s'): %s",
                           a->names[part], conn[part], ierr.message);
            goto fail;
        }
        if (a->part[part].changelog) {
            rc = weir_error_set(err, WEIR_EUNSUPPORTED,
                                "hybrid part '%s': a changelog source cannot "
                                "be a hybrid part",
                                a->names[part]);
            goto fail;
        }
    }
#ifdef WEIR_HAVE_KAFKA
    if (a->part[0].cls == &weir__kafka_source_class &&
        a->part[1].cls == &weir__kafka_source_class &&
        same_topics(a->part[0].arg, a->part[1].arg))
        a->chained = true;
#endif
    {
        /* The live part starts where the history ends (chained), or where
         * the user says. */
        size_t n = 0;
        for (size_t i = 0; i < n_opts; i++) {
            const char *rest;
            if (owner_of(opts[i].key, a, &rest) == 1 &&
                !strncmp(rest, "scan.startup.", 13)) {
                map[n++] = i;
            }
        }
        bool live_kafka = !strcmp(conn[1], "kafka");
        if (a->chained && n) {
            if (bad)
                *bad = (int)map[0];
            rc = weir_error_set(err, WEIR_EINVAL,
                                "option '%s': the live part reads on from "
                                "the offsets where the history's range of "
                                "the same topic ends; leave its start out",
                                opts[map[0]].key);
            goto fail;
        }
        if (!a->chained && live_kafka && !n) {
            rc = weir_error_set(
                err, WEIR_EINVAL,
                "connector 'hybrid' needs option '%s.scan.startup.mode': "
                "where the live topic starts after the history (e.g. "
                "'timestamp' with '%s.scan.startup.timestamp-millis' = the "
                "time the history ends, or 'specific-offsets')",
                a->names[1], a->names[1]);
            goto fail;
        }
    }
    weir_free(sub);
    weir_free(map);
    weir_free(refused);
    memset(out, 0, sizeof *out);
    out->name = "hybrid";
    out->cls = &weir__hybrid_source_class;
    out->arg = a;
    out->free_arg = hybrid_free_arg;
    out->schema = schema;
    return 0;
fail:
    weir_free(sub);
    weir_free(map);
    weir_free(refused);
    hybrid_free_arg(a);
    return rc;
}
