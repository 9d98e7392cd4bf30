/*
 * connector/kafka/source_options.c - the Kafka source's WITH options, named
 * and read as Flink's Kafka SQL connector reads them, checked when the job
 * is planned (every error names its option), and the decoders of the key
 * and value formats.
 */
#ifdef WEIR_HAVE_KAFKA

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "connector/kafka/kafka_internal.h"
#include "connector/kafka/source_internal.h"

static void side_fini(weir__kafka_format *f)
{
    weir_free(f->null_literal);
    weir_schema_destroy(f->schema);
    weir_free(f->cols);
    memset(f, 0, sizeof *f);
}

static void arg_free(void *p)
{
    weir__kafka_source_arg *a = p;
    if (!a)
        return;
    for (size_t i = 0; i < a->n_props; i++) {
        weir_free((char *)a->props[i].key);
        weir_free((char *)a->props[i].value);
    }
    weir_free(a->props);
    weir_free(a->bootstrap);
    weir_free(a->group_id);
    for (uint32_t i = 0; i < a->n_topics; i++)
        weir_free(a->topics[i]);
    weir_free(a->topics);
    if (a->has_pattern)
        regfree(&a->pattern);
    weir_free(a->start_offsets);
    weir_free(a->bound_offsets);
    side_fini(&a->value);
    side_fini(&a->key);
    weir_free(a->meta);
    weir_free(a->et_cols);
    weir_free(a->event_time);
    weir_free(a);
}

/* ---- decoders ---- */

static int side_decoder(const weir__kafka_source_arg *a,
                        const weir__kafka_format *f, weir_decoder **out,
                        weir_error *err)
{
    *out = NULL;
    if (f->kind != WEIR__KAFKA_FMT_JSON && f->kind != WEIR__KAFKA_FMT_CSV)
        return 0;
    int rc = weir_decoder_create(&f->fmt, f->schema, out, err);
    if (rc)
        return rc;
    for (uint32_t i = 0; i < a->n_et; i++) {
        for (uint32_t j = 0; j < f->schema->n_fields; j++) {
            if (f->cols[j] != a->et_cols[i])
                continue;
            const char *col = a->schema->fields[a->et_cols[i]].name;
            char why[160];
            if (!a->event_time || !strcasecmp(a->event_time, col))
                snprintf(why, sizeof why, "it is the event time");
            else
                snprintf(why, sizeof why,
                         "the event time %s is computed from it",
                         a->event_time);
            if ((rc = weir_decoder_require(*out, j, why))) {
                weir_decoder_destroy(*out);
                *out = NULL;
                return weir_error_set(err, rc, "out of memory");
            }
        }
    }
    return 0;
}

int weir__kafka_make_decoders(const weir__kafka_source_arg *a,
                              weir_decoder **value, weir_decoder **key,
                              weir_error *err)
{
    *key = NULL;
    int rc = side_decoder(a, &a->value, value, err);
    if (!rc && (rc = side_decoder(a, &a->key, key, err))) {
        weir_decoder_destroy(*value);
        *value = NULL;
    }
    return rc;
}

/* ---- option values ---- */

static const char *skip_ws(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* "partition:0,offset:42;partition:1,offset:300" */
static int parse_offsets(weir__optset *o, const char *key,
                         weir__kafka_offset **out, uint32_t *n_out)
{
    int at = weir__opt_index(o, key);
    const char *v = weir__opt_get(o, key);
    *out = NULL;
    *n_out = 0;
    if (!v)
        return weir__opt_missing(o, key, NULL);
    size_t cap = 1;
    for (const char *q = v; *q; q++)
        cap += *q == ';';
    weir__kafka_offset *offs = weir_calloc(cap, sizeof *offs);
    if (!offs)
        return weir_error_set(o->err, WEIR_ENOMEM, "out of memory");
    uint32_t n = 0;
    const char *p = v;
    for (;;) {
        p = skip_ws(p);
        long long part, off;
        char *end;
        if (strncmp(p, "partition:", 10) != 0)
            goto bad;
        errno = 0;
        part = strtoll(p + 10, &end, 10);
        if (end == p + 10 || errno || part < 0 || part > INT32_MAX)
            goto bad;
        p = skip_ws(end);
        if (strncmp(p, ",offset:", 8) != 0)
            goto bad;
        errno = 0;
        off = strtoll(p + 8, &end, 10);
        if (end == p + 8 || errno || off < 0)
            goto bad;
        for (uint32_t i = 0; i < n; i++)
            if (offs[i].partition == (int32_t)part) {
                weir_free(offs);
                return weir__opt_fail(o, (size_t)at, WEIR_EINVAL,
                                      "option '%s': partition %lld is given "
                                      "twice",
                                      key, part);
            }
        offs[n++] = (weir__kafka_offset){(int32_t)part, off};
        p = skip_ws(end);
        if (*p == '\0')
            break;
        if (*p != ';')
            goto bad;
        p++;
        if (*skip_ws(p) == '\0')
            break;
    }
    *out = offs;
    *n_out = n;
    return 0;
bad:
    weir_free(offs);
    return weir__opt_fail(o, (size_t)at, WEIR_EINVAL,
                          "option '%s': expected "
                          "'partition:0,offset:42;partition:1,offset:300', "
                          "found '%s' (at character %zu)",
                          key, v, (size_t)(p - v) + 1);
}

static int need_i64(weir__optset *o, const char *key, const char *mode_key,
                    const char *mode, int64_t *out)
{
    if (weir__opt_index(o, key) < 0) {
        char hint[160];
        snprintf(hint, sizeof hint, " (%s = '%s' needs it)", mode_key, mode);
        return weir__opt_missing(o, key, hint);
    }
    return weir__opt_i64(o, key, out);
}

/* Fails when key is given although the mode does not use it. */
static int unused_with(weir__optset *o, const char *key, const char *mode_key,
                       const char *mode)
{
    int at = weir__opt_index(o, key);
    if (at < 0)
        return 0;
    return weir__opt_fail(o, (size_t)at, WEIR_EINVAL,
                          "option '%s' is only used with a matching '%s'; "
                          "'%s' = '%s' does not read it",
                          key, mode_key, mode_key, mode);
}

static int parse_startup(weir__optset *o, weir__kafka_source_arg *a)
{
    static const char *const modes[] = {"earliest-offset", "latest-offset", "group-offsets", "timestamp",
                                        "specific-offsets", NULL};
    static const weir__kafka_start starts[] = {WEIR__KAFKA_START_EARLIEST, WEIR__KAFKA_START_LATEST,
                                               WEIR__KAFKA_START_GROUP, WEIR__KAFKA_START_TIMESTAMP,
                                               WEIR__KAFKA_START_SPECIFIC};
    const char *mk = "scan.startup.mode";
    bool m = weir__opt_index(o, mk) >= 0;
    int i = 2; /* group-offsets, Flink's default */
    int rc = weir__opt_choice(o, mk, modes, WEIR__CHOICE_ANY_CASE, &i);
    if (rc)
        return rc;
    a->start = starts[i];
    const char *mode = modes[i];
    if (a->start == WEIR__KAFKA_START_TIMESTAMP)
        rc = need_i64(o, "scan.startup.timestamp-millis", mk, mode,
                      &a->start_ts);
    else
        rc = unused_with(o, "scan.startup.timestamp-millis", mk, mode);
    if (rc)
        return rc;
    if (a->start == WEIR__KAFKA_START_SPECIFIC)
        rc = parse_offsets(o, "scan.startup.specific-offsets",
                           &a->start_offsets, &a->n_start_offsets);
    else
        rc = unused_with(o, "scan.startup.specific-offsets", mk, mode);
    if (rc)
        return rc;
    if (a->start == WEIR__KAFKA_START_GROUP && !a->group_id)
        return m ? weir__opt_fail(o, (size_t)weir__opt_index(o, mk),
                                  WEIR_EINVAL,
                                  "option '%s' = 'group-offsets' needs "
                                  "'properties.group.id'",
                                  mk)
                 : weir__opt_missing(
                       o, "properties.group.id",
                       " ('scan.startup.mode' is 'group-offsets' by default; "
                       "set it to 'earliest-offset' or 'latest-offset' to "
                       "read without a group)");
    return 0;
}

static int parse_bounded(weir__optset *o, weir__kafka_source_arg *a)
{
    static const char *const modes[] = {"unbounded", "latest-offset", "group-offsets", "timestamp",
                                        "specific-offsets", NULL};
    static const weir__kafka_bound bounds[] = {WEIR__KAFKA_BOUND_NONE, WEIR__KAFKA_BOUND_LATEST,
                                               WEIR__KAFKA_BOUND_GROUP, WEIR__KAFKA_BOUND_TIMESTAMP,
                                               WEIR__KAFKA_BOUND_SPECIFIC};
    const char *mk = "scan.bounded.mode";
    int i = 0;
    int rc = weir__opt_choice(o, mk, modes, WEIR__CHOICE_ANY_CASE, &i);
    if (rc)
        return rc;
    a->bound = bounds[i];
    const char *mode = modes[i];
    if (a->bound == WEIR__KAFKA_BOUND_GROUP &&
        !weir__opt_get(o, "properties.group.id"))
        return weir__opt_missing(o, "properties.group.id",
                                 " ('scan.bounded.mode' = 'group-offsets' "
                                 "stops at the group's committed offsets)");
    if (a->bound == WEIR__KAFKA_BOUND_TIMESTAMP)
        rc = need_i64(o, "scan.bounded.timestamp-millis", mk, mode,
                      &a->bound_ts);
    else
        rc = unused_with(o, "scan.bounded.timestamp-millis", mk, mode);
    if (rc)
        return rc;
    if (a->bound == WEIR__KAFKA_BOUND_SPECIFIC)
        rc = parse_offsets(o, "scan.bounded.specific-offsets",
                           &a->bound_offsets, &a->n_bound_offsets);
    else
        rc = unused_with(o, "scan.bounded.specific-offsets", mk, mode);
    return rc;
}

static int parse_topics(weir__optset *o, weir__kafka_source_arg *a)
{
    int ti = weir__opt_index(o, "topic"), pi = weir__opt_index(o, "topic-pattern");
    if (ti >= 0 && pi >= 0)
        return weir__opt_fail(o, (size_t)pi, WEIR_EINVAL,
                              "options 'topic' and 'topic-pattern' exclude "
                              "each other: give one");
    if (ti < 0 && pi < 0)
        return weir__opt_missing(o, "topic",
                                 " (or 'topic-pattern'): the topics to read");
    if (pi >= 0) {
        const char *pat = weir__opt_get(o, "topic-pattern");
        int e = regcomp(&a->pattern, pat, REG_EXTENDED);
        if (e) {
            char why[160];
            regerror(e, &a->pattern, why, sizeof why);
            return weir__opt_fail(o, (size_t)pi, WEIR_EINVAL,
                                  "option 'topic-pattern': '%s' is not a "
                                  "regular expression: %s",
                                  pat, why);
        }
        a->has_pattern = true;
        return 0;
    }
    const char *v = weir__opt_get(o, "topic");
    size_t cap = 1;
    for (const char *q = v; *q; q++)
        cap += *q == ';';
    if (!(a->topics = weir_calloc(cap, sizeof *a->topics)))
        return weir_error_set(o->err, WEIR_ENOMEM, "out of memory");
    const char *p = v;
    while (*p) {
        const char *e = strchr(p, ';');
        if (!e)
            e = p + strlen(p);
        const char *b = skip_ws(p);
        const char *z = e;
        while (z > b && (z[-1] == ' ' || z[-1] == '\t'))
            z--;
        if (z > b) {
            char *t = weir_malloc((size_t)(z - b) + 1);
            if (!t)
                return weir_error_set(o->err, WEIR_ENOMEM, "out of memory");
            memcpy(t, b, (size_t)(z - b));
            t[z - b] = '\0';
            a->topics[a->n_topics++] = t;
        }
        p = *e ? e + 1 : e;
    }
    if (a->n_topics == 0)
        return weir__opt_fail(o, (size_t)ti, WEIR_EINVAL,
                              "option 'topic': no topic name in '%s'", v);
    return 0;
}

/* ---- formats ---- */

static int parse_raw(weir__optset *o, const char *prefix, int fi,
                     weir__kafka_format *f)
{
    char key[96];
    o->used[fi] = true;
    f->kind = WEIR__KAFKA_FMT_RAW;
    snprintf(key, sizeof key, "%sraw.charset", prefix);
    const char *cs = weir__opt_get(o, key);
    if (cs && strcasecmp(cs, "UTF-8") && strcasecmp(cs, "UTF8"))
        return weir__opt_fail(o, (size_t)weir__opt_index(o, key),
                              WEIR_EUNSUPPORTED,
                              "option '%s': weir reads raw text as UTF-8 "
                              "only, found '%s'",
                              key, cs);
    snprintf(key, sizeof key, "%sraw.endianness", prefix);
    weir__opt_get(o, key); /* numbers are not read raw: nothing to swap */
    return 0;
}

/*
 * Reads one side's format: 'format' (prefix "") or 'key.format' /
 * 'value.format' (prefix "key." / "value."), with its options
 * '<prefix><format>.<option>'.
 */
static int parse_side(weir__optset *o, const char *prefix, const char *fkey,
                      weir__kafka_format *f, bool *ignore)
{
    int fi = weir__opt_index(o, fkey);
    const char *name = o->opts[fi].value;
    *ignore = false;
    if (!strcmp(name, "raw"))
        return parse_raw(o, prefix, fi, f);
    if (!strcmp(name, "canal-json") ||
        !strcmp(name, "maxwell-json") || !strcmp(name, "avro") ||
        !strcmp(name, "avro-confluent") || !strcmp(name, "protobuf"))
        return weir__opt_fail(o, (size_t)fi, WEIR_EUNSUPPORTED,
                              "option '%s': format '%s' cannot be read from "
                              "Kafka yet (weir reads 'json', 'csv', "
                              "'debezium-json' and 'raw')",
                              fkey, name);
    weir__optset sub;
    size_t plen = strlen(prefix), nlen = strlen(name);
    weir_option *so = weir_calloc(o->n + 1, sizeof *so);
    size_t *map = weir_calloc(o->n + 1, sizeof *map);
    int bad = -1, rc = 0;
    if (!so || !map) {
        rc = weir_error_set(o->err, WEIR_ENOMEM, "out of memory");
        goto done;
    }
    size_t n = 0;
    for (size_t i = 0; i < o->n; i++) {
        const char *k = o->opts[i].key;
        if (strncmp(k, prefix, plen))
            continue;
        const char *rest = k + plen;
        if (!strcmp(rest, "format") ||
            (!strncmp(rest, name, nlen) && rest[nlen] == '.')) {
            so[n] = (weir_option){rest, o->opts[i].value};
            map[n++] = i;
        }
    }
    weir_connector_env env = {0};
    if (o->env)
        env = *o->env;
    env.bad_option_index = &bad;
    if ((rc = weir__optset_init(&sub, o->connector, so, n, &env, o->err)))
        goto fini;
    rc = weir__opt_format(&sub, false, &f->fmt, ignore);
    for (size_t i = 0; i < n; i++)
        if (sub.used[i])
            o->used[map[i]] = true;
fini:
    weir__optset_fini(&sub);
    if (rc && bad >= 0 && o->env && o->env->bad_option_index)
        *o->env->bad_option_index = (int)map[bad];
    if (!rc) {
        f->kind = f->fmt.kind == WEIR_FORMAT_CSV ? WEIR__KAFKA_FMT_CSV
                                                 : WEIR__KAFKA_FMT_JSON;
        if (f->fmt.csv_null_literal) {
            if (!(f->null_literal = weir_strdup(f->fmt.csv_null_literal)))
                rc = weir_error_set(o->err, WEIR_ENOMEM, "out of memory");
            f->fmt.csv_null_literal = f->null_literal;
        }
    }
done:
    weir_free(so);
    weir_free(map);
    return rc;
}

/* The columns of one side: names (without strip prefix) and types. */
static int side_columns(weir__kafka_format *f, const weir_schema *table,
                        const uint32_t *cols, uint32_t n, const char *strip)
{
    f->schema = weir_schema_create();
    f->cols = weir_calloc(n ? n : 1, sizeof *f->cols);
    if (!f->schema || !f->cols)
        return WEIR_ENOMEM;
    size_t sl = strip ? strlen(strip) : 0;
    for (uint32_t i = 0; i < n; i++) {
        const weir_field *fd = &table->fields[cols[i]];
        const char *name = fd->name;
        if (sl && !strncmp(name, strip, sl) && name[sl])
            name += sl;
        if (weir_schema_add(f->schema, name, fd->type) < 0)
            return WEIR_ENOMEM;
        f->cols[i] = cols[i];
    }
    return 0;
}

static int check_raw(weir__optset *o, const char *fkey,
                     const weir__kafka_format *f)
{
    if (f->kind != WEIR__KAFKA_FMT_RAW)
        return 0;
    if (f->schema->n_fields == 1 &&
        weir_type_is_string(f->schema->fields[0].type.id))
        return 0;
    return weir__opt_fail(o, (size_t)weir__opt_index(o, fkey), WEIR_EINVAL,
                          "option '%s': format 'raw' reads the whole %s "
                          "into exactly one STRING or BYTES column, but it "
                          "would get %u column%s%s%s",
                          fkey, strncmp(fkey, "key", 3) ? "message" : "key",
                          f->schema->n_fields,
                          f->schema->n_fields == 1 ? "" : "s",
                          f->schema->n_fields == 1 ? " of type " : "",
                          f->schema->n_fields == 1
                              ? weir_type_name(f->schema->fields[0].type.id)
                              : "");
}

static const struct {
    const char *key;
    weir__kafka_meta kind;
} meta_keys[] = {
    {"topic", WEIR__KAFKA_META_TOPIC},
    {"partition", WEIR__KAFKA_META_PARTITION},
    {"offset", WEIR__KAFKA_META_OFFSET},
    {"timestamp", WEIR__KAFKA_META_TIMESTAMP},
    {"timestamp-type", WEIR__KAFKA_META_TIMESTAMP_TYPE},
    {"headers", WEIR__KAFKA_META_HEADERS},
    {"leader-epoch", WEIR__KAFKA_META_LEADER_EPOCH},
};

static bool meta_type_ok(weir__kafka_meta k, weir_type_id t, const char **want)
{
    *want = "?";
    switch (k) {
    case WEIR__KAFKA_META_TOPIC:
    case WEIR__KAFKA_META_TIMESTAMP_TYPE:
        *want = "STRING";
        return t == WEIR_TYPE_STRING;
    case WEIR__KAFKA_META_HEADERS:
        *want = "STRING (a JSON object; weir has no MAP type)";
        return t == WEIR_TYPE_STRING;
    case WEIR__KAFKA_META_PARTITION:
    case WEIR__KAFKA_META_LEADER_EPOCH:
        *want = "INT";
        return t == WEIR_TYPE_INT || t == WEIR_TYPE_BIGINT;
    case WEIR__KAFKA_META_OFFSET:
        *want = "BIGINT";
        return t == WEIR_TYPE_BIGINT;
    case WEIR__KAFKA_META_TIMESTAMP:
        *want = "TIMESTAMP_LTZ(3)";
        return t == WEIR_TYPE_TIMESTAMP_LTZ || t == WEIR_TYPE_TIMESTAMP;
    }
    return false;
}

static int parse_metadata(weir__optset *o, weir__kafka_source_arg *a,
                          const weir_schema *schema, bool *is_meta)
{
    const weir_connector_env *env = o->env;
    if (!env || !env->n_metadata_columns)
        return 0;
    a->meta = weir_calloc(env->n_metadata_columns, sizeof *a->meta);
    if (!a->meta)
        return weir_error_set(o->err, WEIR_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < env->n_metadata_columns; i++) {
        const char *colname = env->metadata_columns[i].key;
        const char *key = env->metadata_columns[i].value;
        int col = weir_schema_find(schema, colname);
        if (col < 0)
            continue; /* not read by this query */
        size_t k, n = sizeof meta_keys / sizeof meta_keys[0];
        for (k = 0; k < n && strcmp(meta_keys[k].key, key); k++)
            ;
        if (k == n) {
            const char *best = weir__opt_closest(key, meta_keys, n, sizeof *meta_keys);
            char hint[96] = "";
            if (best)
                snprintf(hint, sizeof hint, " (did you mean '%s'?)", best);
            if (env->bad_option_index)
                *env->bad_option_index = -1;
            if (env->bad_metadata_index)
                *env->bad_metadata_index = (int)i;
            return weir_error_set(
                o->err, WEIR_EINVAL,
                "column '%s': connector 'kafka' has no metadata '%s'%s; it "
                "has 'topic', 'partition', 'offset', 'timestamp', "
                "'timestamp-type', 'headers' and 'leader-epoch'",
                colname, key, hint);
        }
        const char *want;
        weir_type_id t = schema->fields[col].type.id;
        if (!meta_type_ok(meta_keys[k].kind, t, &want)) {
            if (env->bad_option_index)
                *env->bad_option_index = -1;
            if (env->bad_metadata_index)
                *env->bad_metadata_index = (int)i;
            return weir_error_set(o->err, WEIR_EINVAL,
                                  "column '%s': metadata '%s' is %s, not %s",
                                  colname, key, want, weir_type_name(t));
        }
        a->meta[a->n_meta].col = (uint32_t)col;
        a->meta[a->n_meta].kind = meta_keys[k].kind;
        a->n_meta++;
        is_meta[col] = true;
    }
    return 0;
}

static int parse_formats(weir__optset *o, weir__kafka_source_arg *a,
                         const weir_schema *schema)
{
    uint32_t nf = schema->n_fields;
    bool *is_meta = weir_calloc(nf + 1, sizeof *is_meta);
    bool *is_key = weir_calloc(nf + 1, sizeof *is_key);
    uint32_t *cols = weir_calloc(nf + 1, sizeof *cols);
    int rc = 0;
    if (!is_meta || !is_key || !cols) {
        rc = weir_error_set(o->err, WEIR_ENOMEM, "out of memory");
        goto done;
    }
    if ((rc = parse_metadata(o, a, schema, is_meta)))
        goto done;
    bool ignore_v = false, ignore_k = false;
    int fi = weir__opt_index(o, "format"), vi = weir__opt_index(o, "value.format");
    if (fi >= 0 && vi >= 0) {
        rc = weir__opt_fail(o, (size_t)vi, WEIR_EINVAL,
                            "options 'format' and 'value.format' exclude each "
                            "other: give one");
        goto done;
    }
    if (fi < 0 && vi < 0) {
        rc = weir__opt_missing(o, "format",
                               " (or 'value.format'): 'json', 'csv' or 'raw'");
        goto done;
    }
    const char *vkey = fi >= 0 ? "format" : "value.format";
    if ((rc = parse_side(o, fi >= 0 ? "" : "value.", vkey, &a->value,
                         &ignore_v)))
        goto done;
    if (a->value.fmt.kind == WEIR_FORMAT_DEBEZIUM_JSON && a->upsert) {
        rc = weir__opt_fail(o, (size_t)weir__opt_index(o, vkey),
                            WEIR_EINVAL,
                            "option '%s': 'upsert-kafka' reads each message "
                            "as its key's latest row; a 'debezium-json' "
                            "changelog is read with 'connector' = 'kafka'",
                            vkey);
        goto done;
    }
    int ki = weir__opt_index(o, "key.format");
    /* upsert-kafka: the key holds the PRIMARY KEY's columns */
    char pk_list[1024] = "";
    if (a->upsert) {
        const weir_connector_env *env = o->env;
        for (uint32_t i = 0; i < env->n_primary_keys; i++) {
            const char *pk = env->primary_keys[i];
            int col = weir_schema_find(schema, pk);
            if (col < 0 || is_meta[col]) {
                if (env->bad_option_index)
                    *env->bad_option_index = -1;
                rc = weir_error_set(o->err, WEIR_EINVAL,
                                    "PRIMARY KEY column '%s' is not a "
                                    "physical column of the table: "
                                    "'upsert-kafka' reads it from the "
                                    "message key",
                                    pk);
                goto done;
            }
            size_t len = strlen(pk_list);
            snprintf(pk_list + len, sizeof pk_list - len, "%s%s",
                     i ? ";" : "", pk);
        }
        if (ki < 0) {
            rc = weir__opt_missing(o, "key.format",
                                   " (the format of the message key, which "
                                   "holds the PRIMARY KEY's columns)");
            goto done;
        }
    }
    const char *kf = a->upsert ? pk_list : weir__opt_get(o, "key.fields");
    const char *prefix = weir__opt_get(o, "key.fields-prefix");
    int incl = 0;
    if ((rc = weir__opt_choice(o, "value.fields-include", weir__fields_include, WEIR__CHOICE_ANY_CASE, &incl)))
        goto done;
    bool except_key = incl == 1;
    if ((ki >= 0) != (kf != NULL)) {
        rc = ki >= 0 ? weir__opt_missing(o, "key.fields",
                                         " ('key.format' needs the columns "
                                         "the key holds, e.g. 'id;region')")
                     : weir__opt_missing(o, "key.format",
                                         " ('key.fields' needs the format of "
                                         "the key)");
        goto done;
    }
    uint32_t nk = 0;
    if (ki >= 0) {
        /* key.fields: column names separated by ';' */
        const char *p = kf;
        int at = weir__opt_index(o, "key.fields");
        while (*p) {
            const char *e = strchr(p, ';');
            if (!e)
                e = p + strlen(p);
            char name[256];
            const char *b = skip_ws(p);
            size_t len = (size_t)(e - b);
            while (len && (b[len - 1] == ' ' || b[len - 1] == '\t'))
                len--;
            if (len == 0 || len >= sizeof name) {
                rc = weir__opt_fail(o, (size_t)at, WEIR_EINVAL,
                                    "option 'key.fields': expected column "
                                    "names separated by ';', found '%s'",
                                    kf);
                goto done;
            }
            memcpy(name, b, len);
            name[len] = '\0';
            int col = weir_schema_find(schema, name);
            if (col < 0 || is_meta[col]) {
                rc = weir__opt_fail(o, (size_t)at, WEIR_EINVAL,
                                    "option 'key.fields': '%s' is not a "
                                    "physical column of the table",
                                    name);
                goto done;
            }
            if (is_key[col]) {
                rc = weir__opt_fail(o, (size_t)at, WEIR_EINVAL,
                                    "option 'key.fields': column '%s' is "
                                    "given twice",
                                    name);
                goto done;
            }
            if (prefix && strncmp(name, prefix, strlen(prefix))) {
                rc = weir__opt_fail(o, (size_t)at, WEIR_EINVAL,
                                    "option 'key.fields': column '%s' does "
                                    "not start with 'key.fields-prefix' '%s'",
                                    name, prefix);
                goto done;
            }
            is_key[col] = true;
            cols[nk++] = (uint32_t)col;
            p = *e ? e + 1 : e;
        }
        if ((rc = parse_side(o, "key.", "key.format", &a->key, &ignore_k)))
            goto done;
        if (a->key.fmt.kind == WEIR_FORMAT_DEBEZIUM_JSON) {
            rc = weir__opt_fail(o, (size_t)ki, WEIR_EINVAL,
                                "option 'key.format': 'debezium-json' "
                                "describes a change, not a key; use 'json', "
                                "'csv' or 'raw'");
            goto done;
        }
        if ((rc = side_columns(&a->key, schema, cols, nk, prefix))) {
            rc = weir_error_set(o->err, rc, "out of memory");
            goto done;
        }
        if ((rc = check_raw(o, "key.format", &a->key)))
            goto done;
    } else if (except_key) {
        rc = weir__opt_fail(
            o, (size_t)weir__opt_index(o, "value.fields-include"),
            WEIR_EINVAL,
            "option 'value.fields-include' = 'EXCEPT_KEY' needs 'key.fields' "
            "and 'key.format'");
        goto done;
    } else if (prefix) {
        rc = weir__opt_fail(o, (size_t)weir__opt_index(o, "key.fields-prefix"),
                            WEIR_EINVAL,
                            "option 'key.fields-prefix' needs 'key.fields' "
                            "and 'key.format'");
        goto done;
    }
    if (prefix && !except_key) {
        rc = weir__opt_fail(o, (size_t)weir__opt_index(o, "key.fields-prefix"),
                            WEIR_EINVAL,
                            "option 'key.fields-prefix' needs "
                            "'value.fields-include' = 'EXCEPT_KEY' (as in "
                            "Flink)");
        goto done;
    }
    uint32_t nv = 0;
    for (uint32_t c = 0; c < nf; c++)
        if (!is_meta[c] && !(except_key && is_key[c]))
            cols[nv++] = c;
    if ((rc = side_columns(&a->value, schema, cols, nv, NULL))) {
        rc = weir_error_set(o->err, rc, "out of memory");
        goto done;
    }
    if ((rc = check_raw(o, vkey, &a->value)))
        goto done;
    a->direct = a->key.kind == WEIR__KAFKA_FMT_NONE && a->n_meta == 0 &&
                a->value.kind != WEIR__KAFKA_FMT_RAW;
    a->skip_bad = ignore_v || ignore_k;
    a->rows_per_message =
        a->upsert || a->value.fmt.kind == WEIR_FORMAT_DEBEZIUM_JSON ? 2 : 1;
done:
    weir_free(is_meta);
    weir_free(is_key);
    weir_free(cols);
    return rc;
}

/* ---- the spec ---- */

static const char *const kafka_source_known[] = {
    "topic",
    "topic-pattern",
    "properties.bootstrap.servers",
    "properties.group.id",
    "properties.commit.offsets.on.checkpoint",
    "scan.startup.mode",
    "scan.startup.timestamp-millis",
    "scan.startup.specific-offsets",
    "scan.bounded.mode",
    "scan.bounded.timestamp-millis",
    "scan.bounded.specific-offsets",
    "scan.topic-partition-discovery.interval",
    "format",
    "key.format",
    "value.format",
    "key.fields",
    "key.fields-prefix",
    "value.fields-include",
    NULL};

static int add_prop(weir__kafka_source_arg *a, size_t cap, const char *k,
                    const char *v)
{
    if (a->n_props == cap)
        return WEIR_ENOMEM;
    char *kk = weir_strdup(k), *vv = weir_strdup(v);
    if (!kk || !vv) {
        weir_free(kk);
        weir_free(vv);
        return WEIR_ENOMEM;
    }
    a->props[a->n_props++] = (weir_option){kk, vv};
    return 0;
}

static bool has_prop(const weir__kafka_source_arg *a, const char *k)
{
    for (size_t i = 0; i < a->n_props; i++)
        if (!strcmp(a->props[i].key, k))
            return true;
    return false;
}

/* 'upsert-kafka' reads the whole topic: a key's row needs its history. */
static const char *const upsert_kafka_source_known[] = {
    "topic",
    "properties.bootstrap.servers",
    "properties.group.id",
    "properties.commit.offsets.on.checkpoint",
    "scan.bounded.mode",
    "scan.bounded.timestamp-millis",
    "scan.bounded.specific-offsets",
    "key.format",
    "value.format",
    "key.fields-prefix",
    "value.fields-include",
    NULL};

/* Options of 'kafka' that 'upsert-kafka' refuses, and why. */
static int upsert_refused(weir__optset *o)
{
    static const struct {
        const char *key, *why;
    } refused[] = {
        {"format", "give 'key.format' and 'value.format'"},
        {"key.fields", "the message key holds the PRIMARY KEY's columns"},
        {"topic-pattern", "give the one 'topic' of the table"},
        {"scan.startup.mode",
         "a key's row needs the topic's whole history, so upsert-kafka "
         "always starts from the earliest offsets"},
        {"scan.startup.timestamp-millis", "it always starts from the earliest "
                                          "offsets"},
        {"scan.startup.specific-offsets", "it always starts from the earliest "
                                          "offsets"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        int at = weir__opt_index(o, refused[i].key);
        if (at >= 0)
            return weir__opt_fail(o, (size_t)at, WEIR_EINVAL,
                                  "option '%s' is not an option of "
                                  "'upsert-kafka': %s",
                                  refused[i].key, refused[i].why);
    }
    return 0;
}

static int kafka_spec(bool upsert, const weir_option *opts, size_t n_opts,
                      const weir_schema *schema, const weir_connector_env *env,
                      weir_source_spec *out, weir_error *err)
{
    memset(out, 0, sizeof *out);
    weir__optset o;
    weir__kafka_source_arg *a = NULL;
    rd_kafka_conf_t *conf = NULL;
    int rc = weir__optset_init(&o, upsert ? "upsert-kafka" : "kafka", opts,
                               n_opts, env, err);
    if (rc)
        goto done;
    if (upsert && (!env || !env->n_primary_keys)) {
        if (env && env->bad_option_index)
            *env->bad_option_index = -1;
        rc = weir_error_set(err, WEIR_EINVAL,
                            "connector 'upsert-kafka' needs a PRIMARY KEY on "
                            "the table, e.g. PRIMARY KEY (id) NOT ENFORCED: "
                            "each message is the latest row of its key");
        goto done;
    }
    if (upsert && (rc = upsert_refused(&o)))
        goto done;
    if (!schema) {
        rc = weir_error_set(err, WEIR_EINVAL, "kafka source: missing schema");
        goto done;
    }
    if (!(a = weir_calloc(1, sizeof *a))) {
        rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
        goto done;
    }
    a->schema = schema;
    a->upsert = upsert;
    a->commit_on_checkpoint = true;
    a->discovery_ms = 5 * 60 * 1000;
    if ((rc = parse_topics(&o, a)))
        goto done;
    /* Read (not consumed: librdkafka gets them too) */
    int gi = weir__opt_index(&o, "properties.group.id");
    if (gi >= 0 && !(a->group_id = weir_strdup(opts[gi].value))) {
        rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
        goto done;
    }
    int ri = weir__opt_index(&o, "properties.auto.offset.reset");
    if (ri >= 0) {
        const char *v = opts[ri].value;
        if (!strcmp(v, "earliest") || !strcmp(v, "smallest") ||
            !strcmp(v, "beginning"))
            a->reset = WEIR__KAFKA_RESET_EARLIEST;
        else if (!strcmp(v, "latest") || !strcmp(v, "largest") ||
                 !strcmp(v, "end"))
            a->reset = WEIR__KAFKA_RESET_LATEST;
    }
    if ((rc = weir__opt_bool(&o, "properties.commit.offsets.on.checkpoint",
                             &a->commit_on_checkpoint)))
        goto done;
    /* Flink's client-side properties that librdkafka does not have. */
    static const char *const flink_only[] = {
        "properties.partition.discovery.interval.ms",
        "properties.client.id.prefix", "properties.register.consumer.metrics",
        NULL};
    weir__opt_accept(&o, flink_only);
    if ((!upsert && (rc = parse_startup(&o, a))) ||
        (rc = parse_bounded(&o, a)))
        goto done;
    if (upsert)
        a->start = WEIR__KAFKA_START_EARLIEST;
    if ((rc = weir__opt_duration(&o, "scan.topic-partition-discovery.interval",
                                 &a->discovery_ms)))
        goto done;
    if ((rc = parse_formats(&o, a, schema)))
        goto done;
    /* Every other 'properties.*' goes to librdkafka, which checks it now. */
    int bi = weir__opt_index(&o, "properties.bootstrap.servers");
    if ((rc = weir__kafka_conf_from_options(&o, &conf)))
        goto done;
    if (!(a->bootstrap = weir_strdup(opts[bi].value)))
        goto nomem;
    size_t cap = n_opts + 8;
    if (!(a->props = weir_calloc(cap, sizeof *a->props)))
        goto nomem;
    for (size_t i = 0; i < n_opts; i++) {
        const char *k = opts[i].key;
        if (strncmp(k, "properties.", 11) ||
            !strcmp(k, "properties.commit.offsets.on.checkpoint"))
            continue;
        bool flink = false;
        for (const char *const *f = flink_only; *f; f++)
            flink |= !strcmp(*f, k);
        if (!flink && add_prop(a, cap, k + 11, opts[i].value))
            goto nomem;
    }
    /* The job, not the client, decides what is committed and when; the end
     * of a partition is how a caught-up partition is recognised. */
    if (add_prop(a, cap, "enable.auto.commit", "false") ||
        add_prop(a, cap, "enable.auto.offset.store", "false") ||
        add_prop(a, cap, "enable.partition.eof", "true"))
        goto nomem;
    if (!has_prop(a, "auto.offset.reset") &&
        add_prop(a, cap, "auto.offset.reset", "earliest"))
        goto nomem;
    if (env) {
        a->clock = env->clock;
        if (weir__opt_event_time(env, &a->et_cols, &a->n_et, &a->event_time))
            goto nomem;
    }
    if ((rc = weir__opt_finish(&o, upsert ? upsert_kafka_source_known
                                          : kafka_source_known)))
        goto done;
    /* The formats against the schema, now rather than when the job runs. */
    weir_decoder *vd, *kd;
    if ((rc = weir__kafka_make_decoders(a, &vd, &kd, err)))
        goto done;
    weir_decoder_destroy(vd);
    weir_decoder_destroy(kd);
    out->name = upsert ? "upsert-kafka" : "kafka";
    out->cls = &weir__kafka_source_class;
    out->arg = a;
    out->free_arg = arg_free;
    out->schema = schema;
    out->changelog = a->rows_per_message > 1;
    a = NULL;
    goto done;
nomem:
    rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
done:
    if (conf)
        rd_kafka_conf_destroy(conf);
    arg_free(a);
    weir__optset_fini(&o);
    return rc;
}

int weir__kafka_source_spec_opts(const weir_option *opts, size_t n_opts,
                                 const weir_schema *schema,
                                 const weir_connector_env *env,
                                 weir_source_spec *out, weir_error *err)
{
    return kafka_spec(false, opts, n_opts, schema, env, out, err);
}

int weir__upsert_kafka_source_spec_opts(const weir_option *opts, size_t n_opts,
                                        const weir_schema *schema,
                                        const weir_connector_env *env,
                                        weir_source_spec *out, weir_error *err)
{
    return kafka_spec(true, opts, n_opts, schema, env, out, err);
}

#endif
