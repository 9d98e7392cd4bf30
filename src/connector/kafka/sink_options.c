/*
 * connector/kafka/sink_options.c - the WITH options of the 'kafka' and
 * 'upsert-kafka' sinks, named as in Flink, read into the argument every
 * subtask of the sink shares (sink_internal.h).
 *
 * A message has a key side and a value side, each with its own format and
 * columns: 'key.format' + 'key.fields' (kafka) or the PRIMARY KEY
 * (upsert-kafka), and 'value.format' (or 'format') + 'value.fields-include'.
 * Format options are written as Flink writes them: 'json.*' after
 * 'format', 'value.json.*' after 'value.format'.
 */
#ifdef WEIR_HAVE_KAFKA /* built only with librdkafka */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "connector/kafka/sink_internal.h"

static void side_fini(ksink_side *s)
{
    weir_schema_destroy(s->schema);
    weir_free(s->cols);
    weir_free((void *)s->fmt.csv_null_literal);
    memset(s, 0, sizeof *s);
}

static void ksink_arg_free(void *p)
{
    ksink_arg *a = p;
    if (!a)
        return;
    weir_free(a->topic);
    weir_free(a->tid_prefix);
    weir_free(a->event_log);
    if (a->conf)
        rd_kafka_conf_destroy(a->conf);
    side_fini(&a->key);
    side_fini(&a->value);
    weir_free(a);
}

/* Adds column col of schema to side, named name (copied). */
static int side_add(ksink_side *s, const weir_schema *schema, uint32_t col,
                    const char *name)
{
    uint32_t n = s->schema->n_fields;
    uint32_t *v = weir_realloc(s->cols, (n + 1) * sizeof *v);
    if (!v)
        return WEIR_ENOMEM;
    s->cols = v;
    s->cols[n] = col;
    int rc = weir_schema_add(s->schema, name, schema->fields[col].type);
    return rc < 0 ? rc : 0;
}

static bool side_has(const ksink_side *s, uint32_t col)
{
    for (uint32_t i = 0; s->schema && i < s->schema->n_fields; i++)
        if (s->cols[i] == col)
            return true;
    return false;
}

/*
 * Reads the format of one side: the option at index fi names it ('raw',
 * 'json', 'csv', 'debezium-json'). The value side reads its format's own
 * options through weir__opt_format; a key side takes the format's defaults.
 */
static int read_format(weir__optset *o, int fi, bool is_value,
                       bool allow_changelog, ksink_side *s)
{
    const char *name = o->opts[fi].value, *opt = o->opts[fi].key;
    o->used[fi] = true;
    if (strcmp(name, "raw") == 0) {
        s->raw = true;
        return 0;
    }
    weir_format_kind kind;
    if (weir_format_parse_name(name, &kind))
        return weir__opt_fail(o, (size_t)fi, WEIR_EUNSUPPORTED,
                              "option '%s': unsupported format '%s' (the "
                              "Kafka sinks write 'json', 'csv', 'raw'%s)",
                              opt, name,
                              allow_changelog ? " and 'debezium-json'" : "");
    if (kind == WEIR_FORMAT_DEBEZIUM_JSON && !allow_changelog)
        return weir__opt_fail(
            o, (size_t)fi, WEIR_EUNSUPPORTED,
            "option '%s': 'debezium-json' cannot be a %s format here (it is "
            "a changelog; %s)",
            opt, is_value ? "value" : "key",
            is_value ? "upsert-kafka writes the changelog as upserts and "
                       "tombstones: use 'json', 'csv' or 'raw'"
                     : "a key is one row: use 'json', 'csv' or 'raw'");
    if (!is_value) {
        weir_format_options_init(&s->fmt, kind);
        return 0;
    }
    bool ignore = false;
    int rc = weir__opt_format(o, true, &s->fmt, &ignore);
    if (!rc && s->fmt.csv_null_literal) {
        s->fmt.csv_null_literal = weir_strdup(s->fmt.csv_null_literal);
        if (!s->fmt.csv_null_literal)
            return weir_error_set(o->err, WEIR_ENOMEM, "out of memory");
    }
    return rc;
}

/* A raw side is one STRING or BYTES column. */
static int check_raw(weir__optset *o, const ksink_side *s, const char *opt)
{
    if (!s->raw)
        return 0;
    int at = weir__opt_index(o, opt);
    if (s->schema->n_fields != 1)
        return weir__opt_fail(o, (size_t)at, WEIR_EINVAL,
                              "option '%s': the 'raw' format writes exactly "
                              "one column, but this side has %u",
                              opt, s->schema->n_fields);
    if (!weir_type_is_string(s->schema->fields[0].type.id)) {
        char t[64];
        return weir__opt_fail(
            o, (size_t)at, WEIR_EUNSUPPORTED,
            "option '%s': the 'raw' format writes a STRING or BYTES column, "
            "but '%s' is %s",
            opt, s->schema->fields[0].name,
            weir_type_format(s->schema->fields[0].type, t, sizeof t));
    }
    return 0;
}

/* The key columns: 'key.fields' (kafka) or the PRIMARY KEY (upsert-kafka),
 * named without 'key.fields-prefix'. */
static int read_key_columns(weir__optset *o, ksink_arg *a,
                            const weir_schema *schema,
                            const weir_connector_env *env, const char *prefix)
{
    const char *connector = a->upsert ? "upsert-kafka" : "kafka";
    char name[256];
    a->key.schema = weir_schema_create();
    if (!a->key.schema)
        return weir_error_set(o->err, WEIR_ENOMEM, "out of memory");
    const char *list = a->upsert ? NULL : weir__opt_get(o, "key.fields");
    uint32_t n = a->upsert ? env->n_primary_keys : 0;
    const char *p = list;
    int ki = weir__opt_index(o, "key.fields");
    for (uint32_t i = 0; a->upsert ? i < n : p && *p; i++) {
        if (a->upsert) {
            snprintf(name, sizeof name, "%s", env->primary_keys[i]);
        } else {
            size_t len = strcspn(p, ";");
            snprintf(name, sizeof name, "%.*s", (int)len, p);
            p += len + (p[len] == ';');
        }
        int col = weir_schema_find(schema, name);
        if (col < 0) {
            if (a->upsert)
                return weir_error_set(o->err, WEIR_ENOTFOUND,
                                      "PRIMARY KEY column '%s' is not a column "
                                      "of the table",
                                      name);
            return weir__opt_fail(o, (size_t)ki, WEIR_ENOTFOUND,
                                  "option 'key.fields': '%s' is not a column "
                                  "of the table",
                                  name);
        }
        if (side_has(&a->key, (uint32_t)col))
            return weir__opt_fail(o, (size_t)(ki >= 0 ? ki : 0), WEIR_EINVAL,
                                  "option 'key.fields': column '%s' is named "
                                  "twice",
                                  name);
        const char *written = schema->fields[col].name;
        if (prefix && *prefix) {
            size_t pl = strlen(prefix);
            if (strncmp(written, prefix, pl) != 0 || !written[pl])
                return weir__opt_fail(
                    o, (size_t)weir__opt_index(o, "key.fields-prefix"),
                    WEIR_EINVAL,
                    "option 'key.fields-prefix': key column '%s' does not "
                    "start with the prefix '%s'",
                    written, prefix);
            written += pl;
        }
        int rc = side_add(&a->key, schema, (uint32_t)col, written);
        if (rc)
            return weir_error_set(o->err, rc, "out of memory");
    }
    if (!a->upsert && list && a->key.schema->n_fields == 0)
        return weir__opt_fail(o, (size_t)ki, WEIR_EINVAL,
                              "option 'key.fields': no column named "
                              "(columns are separated by ';')");
    (void)connector;
    return 0;
}

static int read_options(weir__optset *o, ksink_arg *a,
                        const weir_schema *schema,
                        const weir_connector_env *env)
{
    const char *connector = a->upsert ? "upsert-kafka" : "kafka";
    int rc;
    /* topic */
    const char *topic = weir__opt_get(o, "topic");
    if (!topic)
        return weir__opt_missing(o, "topic", " (the topic to write)");
    if (!*topic || strchr(topic, ';'))
        return weir__opt_fail(o, (size_t)weir__opt_index(o, "topic"),
                              WEIR_EINVAL,
                              "option 'topic': a sink writes one topic, "
                              "found '%s'",
                              topic);
    if (!(a->topic = weir_strdup(topic)))
        return WEIR_ENOMEM;
    if (weir__opt_index(o, "topic-pattern") >= 0)
        return weir__opt_fail(o, (size_t)weir__opt_index(o, "topic-pattern"),
                              WEIR_EINVAL,
                              "option 'topic-pattern' is for sources; a sink "
                              "writes the one 'topic'");
    if ((rc = weir__kafka_conf_from_options(o, &a->conf)))
        return rc;

    /* delivery */
    static const char *const guarantees[] = {"none", "at-least-once", "exactly-once", NULL}; /* ksink_guarantee's order */
    int g = KSINK_AT_LEAST_ONCE;
    if ((rc = weir__opt_choice(o, "sink.delivery-guarantee", guarantees, WEIR__CHOICE_ANY_CASE, &g)))
        return rc;
    a->guarantee = (ksink_guarantee)g;
    const char *prefix = weir__opt_get(o, "sink.transactional-id-prefix");
    if (a->guarantee == KSINK_EXACTLY_ONCE) {
        if (!prefix)
            return weir__opt_missing(
                o, "sink.transactional-id-prefix",
                " with 'sink.delivery-guarantee' = 'exactly-once' (the "
                "prefix of the transactional ids, unique to this job among "
                "all writers of the cluster)");
        if (!*prefix)
            return weir__opt_fail(
                o, (size_t)weir__opt_index(o, "sink.transactional-id-prefix"),
                WEIR_EINVAL,
                "option 'sink.transactional-id-prefix' must not be empty");
        if (!(env && env->checkpointing))
            return weir__opt_fail(
                o, (size_t)weir__opt_index(o, "sink.delivery-guarantee"),
                WEIR_EINVAL,
                "option 'sink.delivery-guarantee': 'exactly-once' commits a "
                "transaction per checkpoint, and this job takes no "
                "checkpoints (set 'execution.checkpointing.interval')");
        if (!(a->tid_prefix = weir_strdup(prefix)))
            return WEIR_ENOMEM;
    }

    /* partitioner */
    const char *part = weir__opt_get(o, "sink.partitioner");
    if (part) {
        if (a->upsert)
            return weir__opt_fail(
                o, (size_t)weir__opt_index(o, "sink.partitioner"),
                WEIR_EINVAL,
                "option 'sink.partitioner' is not an option of "
                "'upsert-kafka': messages are partitioned by their key, so "
                "that the last message of a key is its value");
        if (!strcmp(part, "default"))
            a->partitioner = KSINK_PART_DEFAULT;
        else if (!strcmp(part, "fixed"))
            a->partitioner = KSINK_PART_FIXED;
        else if (!strcmp(part, "round-robin"))
            a->partitioner = KSINK_PART_ROUND_ROBIN;
        else
            return weir__opt_fail(
                o, (size_t)weir__opt_index(o, "sink.partitioner"),
                WEIR_EUNSUPPORTED,
                "option 'sink.partitioner': expected 'default', 'fixed' or "
                "'round-robin', found '%s' (weir runs no Java partitioner "
                "class)",
                part);
    }

    /* key side */
    int kf = weir__opt_index(o, "key.format");
    const char *kprefix = weir__opt_get(o, "key.fields-prefix");
    if (a->upsert) {
        if (!env || env->n_primary_keys == 0)
            return weir_error_set(
                o->err, WEIR_EINVAL,
                "connector 'upsert-kafka' needs a PRIMARY KEY on the table: "
                "it is the message key, e.g. PRIMARY KEY (id) NOT ENFORCED");
        if (kf < 0)
            return weir__opt_missing(o, "key.format",
                                     " ('json', 'csv' or 'raw': how the "
                                     "PRIMARY KEY is written as the message "
                                     "key)");
    } else {
        if (env && env->n_primary_keys)
            return weir_error_set(
                o->err, WEIR_EINVAL,
                "connector 'kafka' does not take a PRIMARY KEY (it appends "
                "rows); use 'upsert-kafka' to write changes by key");
        int kfi = weir__opt_index(o, "key.fields");
        if (kf >= 0 && kfi < 0)
            return weir__opt_fail(o, (size_t)kf, WEIR_EINVAL,
                                  "option 'key.format' needs 'key.fields' "
                                  "(the columns of the key, separated by "
                                  "';')");
        if (kf < 0 && kfi >= 0)
            return weir__opt_fail(o, (size_t)kfi, WEIR_EINVAL,
                                  "option 'key.fields' needs 'key.format' "
                                  "(how the key columns are written)");
    }
    if (kf >= 0) {
        a->key.present = true;
        if ((rc = read_format(o, kf, false, false, &a->key)) ||
            (rc = read_key_columns(o, a, schema, env, kprefix)) ||
            (rc = check_raw(o, &a->key, "key.format")))
            return rc;
    } else if (kprefix) {
        return weir__opt_fail(
            o, (size_t)weir__opt_index(o, "key.fields-prefix"), WEIR_EINVAL,
            "option 'key.fields-prefix' needs a key ('key.format' and "
            "'key.fields')");
    }

    /* value side */
    int inc = 0;
    if ((rc = weir__opt_choice(o, "value.fields-include", weir__fields_include, WEIR__CHOICE_ANY_CASE, &inc)))
        return rc;
    bool except_key = inc == 1;
    if (kprefix && *kprefix && !except_key)
        return weir__opt_fail(
            o, (size_t)weir__opt_index(o, "key.fields-prefix"), WEIR_EINVAL,
            "option 'key.fields-prefix' needs 'value.fields-include' = "
            "'EXCEPT_KEY' (the prefixed columns are the key's alone)");
    int vf = weir__opt_index(o, "value.format");
    if (vf < 0)
        vf = weir__opt_index(o, "format");
    if (vf < 0)
        return weir__opt_missing(o, a->upsert ? "value.format" : "format",
                                 " ('json', 'csv', 'raw'" /* */
                                 ", or 'debezium-json' for a changelog)");
    a->value.present = true;
    if ((rc = read_format(o, vf, true, !a->upsert, &a->value)))
        return rc;
    if (!(a->value.schema = weir_schema_create()))
        return WEIR_ENOMEM;
    for (uint32_t c = 0; c < schema->n_fields; c++)
        if (!(except_key && side_has(&a->key, c)) &&
            (rc = side_add(&a->value, schema, c, schema->fields[c].name)))
            return weir_error_set(o->err, rc, "out of memory");
    if (a->value.schema->n_fields == 0)
        return weir__opt_fail(
            o, (size_t)weir__opt_index(o, "value.fields-include"), WEIR_EINVAL,
            "option 'value.fields-include': 'EXCEPT_KEY' leaves the value "
            "no column");
    if ((rc = check_raw(o, &a->value, o->opts[vf].key)))
        return rc;

    /* upsert buffer */
    if (a->upsert) {
        int mi = weir__opt_index(o, "sink.buffer-flush.max-rows");
        int ii = weir__opt_index(o, "sink.buffer-flush.interval");
        if ((rc = weir__opt_i64(o, "sink.buffer-flush.max-rows",
                                &a->buffer_max_rows)) ||
            (rc = weir__opt_duration(o, "sink.buffer-flush.interval",
                                     &a->buffer_interval_ms)))
            return rc;
        if (a->buffer_max_rows < 0)
            return weir__opt_fail(o, (size_t)mi, WEIR_EINVAL,
                                  "option 'sink.buffer-flush.max-rows' must "
                                  "not be negative");
        /* As Flink: both set and positive, or neither. */
        if ((a->buffer_max_rows > 0) != (a->buffer_interval_ms > 0))
            return weir__opt_fail(
                o, (size_t)(a->buffer_max_rows > 0 ? mi : ii), WEIR_EINVAL,
                "options 'sink.buffer-flush.max-rows' and "
                "'sink.buffer-flush.interval' must both be set above zero to "
                "buffer, or both left out");
    }
    (void)connector;
    return 0;
}

int weir__kafka_sink_spec_opts(bool upsert, const weir_option *opts,
                               size_t n_opts, const weir_schema *schema,
                               const weir_connector_env *env,
                               weir_operator_spec *out, weir_error *err)
{
    static const char *const known[] = {
        "topic",
        "properties.bootstrap.servers",
        "format",
        "value.format",
        "key.format",
        "key.fields",
        "key.fields-prefix",
        "value.fields-include",
        "sink.delivery-guarantee",
        "sink.transactional-id-prefix",
        "sink.partitioner",
        "sink.parallelism",
        "sink.buffer-flush.max-rows",
        "sink.buffer-flush.interval",
        NULL,
    };
    memset(out, 0, sizeof *out);
    if (!schema)
        return weir_error_set(err, WEIR_EINVAL, "a Kafka sink needs a schema");
    /*
     * 'value.json.x' after 'value.format' is 'json.x' to the shared format
     * reader: the same option, read at the same index (positions in the
     * DDL stay right).
     */
    weir_option *ro = weir_calloc(n_opts ? n_opts : 1, sizeof *ro);
    ksink_arg *a = weir_calloc(1, sizeof *a);
    if (!ro || !a) {
        weir_free(ro);
        weir_free(a);
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < n_opts; i++) {
        ro[i] = opts[i];
        const char *k = opts[i].key;
        if (k && !strncmp(k, "value.", 6) && strcmp(k, "value.format") &&
            strcmp(k, "value.fields-include"))
            ro[i].key = k + 6;
    }
    a->upsert = upsert;
    a->clock = env && env->clock.now_ms ? env->clock : weir_clock_system();
    const char *log = getenv("WEIR_KAFKA_SINK_LOG");
    weir__optset o;
    int rc = weir__optset_init(&o, upsert ? "upsert-kafka" : "kafka", ro,
                               n_opts, env, err);
    if (!rc)
        rc = read_options(&o, a, schema, env);
    if (!rc)
        rc = weir__opt_finish(&o, known);
    if (!rc && log && *log && !(a->event_log = weir_strdup(log)))
        rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
    weir__optset_fini(&o);
    weir_free(ro);
    if (rc == WEIR_ENOMEM && err && !err->message[0])
        weir_error_set(err, rc, "out of memory");
    if (rc) {
        ksink_arg_free(a);
        return rc;
    }
    out->name = upsert ? "upsert-kafka" : "kafka";
    out->cls = &weir__kafka_sink_class;
    out->create = weir__kafka_sink_create;
    out->arg = a;
    out->free_arg = ksink_arg_free;
    return 0;
}

bool weir__kafka_sink_is_upsert(const weir_operator_spec *spec)
{
    return ((const ksink_arg *)spec->arg)->upsert;
}

bool weir__kafka_sink_accepts_changelog(const weir_operator_spec *spec,
                                        const char **why_not)
{
    const ksink_arg *a = spec->arg;
    if (a->upsert || (!a->value.raw &&
                      weir_format_is_changelog(a->value.fmt.kind)))
        return true;
    if (why_not)
        *why_not = "the 'kafka' sink appends rows with this format; use "
                   "'upsert-kafka' (a PRIMARY KEY, upserts and tombstones) "
                   "or 'value.format' = 'debezium-json' to write a changelog";
    return false;
}

#endif /* WEIR_HAVE_KAFKA */
