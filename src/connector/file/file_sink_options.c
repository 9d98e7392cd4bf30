/*
 * connector/file/file_sink_options.c - the filesystem sink's SQL options
 * ('path', 'format', rolling policy, 'sink.commit-on-checkpoint',
 * partition commit) checked and turned into a weir_file_sink_config; the
 * sink itself is file_sink.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "connector/connector_internal.h"
#include "connector/file/fileio.h"
#include "weir/expr.h"

static const char *const file_sink_known[] = {
    "path",
    "format",
    "sink.rolling-policy.file-size",
    "sink.rolling-policy.rollover-interval",
    "sink.rolling-policy.check-interval",
    "sink.commit-on-checkpoint",
    "sink.partition-commit.trigger",
    "sink.partition-commit.delay",
    "sink.partition-commit.policy.kind",
    "sink.partition-commit.success-file.name",
    "sink.partition-commit.watermark-time-zone",
    "partition.default-name",
    "partition.time-extractor.kind",
    "partition.time-extractor.timestamp-pattern",
    "partition.time-extractor.timestamp-formatter",
    "json.encode.ignore-null-fields",
    "json.timestamp-format.standard",
    "csv.field-delimiter",
    "csv.quote-character",
    "csv.disable-quote-character",
    "csv.null-literal",
    "csv.header",
    NULL};

/* Index of option key, for messages (0 if absent: never used then). */
static size_t opt_at(const weir__optset *o, const char *key)
{
    int i = weir__opt_index(o, key);
    return i < 0 ? 0 : (size_t)i;
}

/* The 'partition.*' and 'sink.partition-commit.*' options, and the keys. */
static int partition_opts(weir__optset *o, const weir_connector_env *env,
                          weir_file_sink_config *cfg)
{
    int rc;
    if (env && env->n_partition_keys) {
        cfg->partition_keys = env->partition_keys;
        cfg->n_partition_keys = env->n_partition_keys;
    }
    const char *v;
    if ((v = weir__opt_get(o, "partition.default-name"))) {
        /* The name becomes one folder under the table's path, verbatim:
         * a '/' (or "..") in it would write elsewhere. */
        if (!weir__file_sink_plain_name(v))
            return weir__opt_fail(
                o, opt_at(o, "partition.default-name"), WEIR_EINVAL,
                "option 'partition.default-name' must be a plain folder "
                "name (not empty, no '/', '\\' or control characters), so "
                "partitions stay inside the table's path; got '%s'",
                v);
        cfg->partition_default_name = v;
    }
    if ((v = weir__opt_get(o, "sink.partition-commit.policy.kind"))) {
        /* A comma-separated list, as in Flink. */
        const char *p = v;
        while (*p) {
            while (*p == ' ' || *p == ',')
                p++;
            size_t n = strcspn(p, ",");
            while (n && p[n - 1] == ' ')
                n--;
            if (n == 12 && strncasecmp(p, "success-file", 12) == 0) {
                cfg->success_file = true;
            } else if (n) {
                return weir__opt_fail(
                    o, opt_at(o, "sink.partition-commit.policy.kind"),
                    WEIR_EUNSUPPORTED,
                    "partition commit policy '%.*s' is not supported: weir "
                    "has 'success-file' only (no metastore, no custom "
                    "policy classes)",
                    (int)n, p);
            }
            p += n;
            while (*p == ' ')
                p++;
        }
    }
    static const char *const triggers[] = {"process-time", "partition-time", NULL};
    int trigger = -1;
    if ((rc = weir__opt_choice(o, "sink.partition-commit.trigger", triggers, WEIR__CHOICE_ANY_CASE, &trigger)))
        return rc;
    if (trigger >= 0)
        cfg->partition_trigger =
            trigger ? WEIR_PARTITION_TRIGGER_PARTITION_TIME : WEIR_PARTITION_TRIGGER_PROCESS_TIME;
    if ((rc = weir__opt_duration(o, "sink.partition-commit.delay",
                                 &cfg->partition_commit_delay_ms)))
        return rc;
    if (cfg->partition_commit_delay_ms < 0)
        return weir__opt_fail(o, opt_at(o, "sink.partition-commit.delay"),
                              WEIR_EINVAL,
                              "option 'sink.partition-commit.delay' must not "
                              "be negative");
    cfg->success_file_name =
        weir__opt_get(o, "sink.partition-commit.success-file.name");
    if (cfg->success_file_name &&
        (!*cfg->success_file_name || strchr(cfg->success_file_name, '/')))
        return weir__opt_fail(
            o, opt_at(o, "sink.partition-commit.success-file.name"),
            WEIR_EINVAL,
            "option 'sink.partition-commit.success-file.name' must be a plain "
            "file name");
    if ((v = weir__opt_get(o, "sink.partition-commit.watermark-time-zone")) &&
        strcasecmp(v, "UTC") != 0 && strcasecmp(v, "GMT") != 0 &&
        strcmp(v, "Z") != 0)
        return weir__opt_fail(
            o, opt_at(o, "sink.partition-commit.watermark-time-zone"),
            WEIR_EUNSUPPORTED,
            "option 'sink.partition-commit.watermark-time-zone': weir reads "
            "partition times in UTC only, got '%s'",
            v);
    if ((v = weir__opt_get(o, "partition.time-extractor.kind")) &&
        strcasecmp(v, "default") != 0)
        return weir__opt_fail(o, opt_at(o, "partition.time-extractor.kind"),
                              WEIR_EUNSUPPORTED,
                              "partition time extractor '%s' is not "
                              "supported: weir has 'default' only",
                              v);
    if ((v = weir__opt_get(o,
                           "partition.time-extractor.timestamp-formatter")) &&
        strcmp(v, "yyyy-MM-dd HH:mm:ss") != 0)
        return weir__opt_fail(
            o, opt_at(o, "partition.time-extractor.timestamp-formatter"),
            WEIR_EUNSUPPORTED,
            "option 'partition.time-extractor.timestamp-formatter': weir reads "
            "'yyyy-MM-dd HH:mm:ss' only, got '%s'",
            v);
    cfg->partition_time_pattern =
        weir__opt_get(o, "partition.time-extractor.timestamp-pattern");
    if (cfg->success_file && !cfg->n_partition_keys)
        return weir__opt_fail(
            o, opt_at(o, "sink.partition-commit.policy.kind"), WEIR_EINVAL,
            "option 'sink.partition-commit.policy.kind' needs a partitioned "
            "table (PARTITIONED BY)");
    return 0;
}

int weir_file_sink_spec_opts(const weir_option *opts, size_t n_opts,
                             const weir_schema *schema,
                             const weir_connector_env *env,
                             weir_operator_spec *out, weir_error *err)
{
    weir__optset o;
    weir_file_sink_config cfg;
    weir_file_sink_config_init(&cfg);
    memset(out, 0, sizeof *out);
    bool ignore_errors = false;
    int rc = weir__optset_init(&o, "filesystem", opts, n_opts, env, err);
    if (rc)
        goto done;
    cfg.path = weir__opt_get(&o, "path");
    if (!cfg.path) {
        rc = weir__opt_missing(&o, "path", NULL);
        goto done;
    }
    if ((rc = weir__fio_opt_path(&o, "path", &cfg.path)))
        goto done;
    if ((rc = partition_opts(&o, env, &cfg)))
        goto done;
    if ((rc = weir__opt_format(&o, true, &cfg.format, &ignore_errors)))
        goto done;
    if ((rc = weir__opt_size(&o, "sink.rolling-policy.file-size",
                             &cfg.rolling_file_size)))
        goto done;
    if ((rc = weir__opt_duration(&o, "sink.rolling-policy.rollover-interval",
                                 &cfg.rollover_interval_ms)))
        goto done;
    int64_t check_ms =
        0; /* Flink's timer granularity; weir checks on every batch */
    if ((rc = weir__opt_duration(&o, "sink.rolling-policy.check-interval",
                                 &check_ms)))
        goto done;
    /*
     * With checkpoints, files become visible when the checkpoint that
     * covers them completes (exactly-once, as Flink's file sink). Rolling
     * files visible before that would lose the rows of the file in
     * progress at a restore: refused.
     */
    cfg.commit_on_checkpoint = env && env->checkpointing;
    if ((rc = weir__opt_bool(&o, "sink.commit-on-checkpoint",
                             &cfg.commit_on_checkpoint)))
        goto done;
    if (env && env->checkpointing && !cfg.commit_on_checkpoint) {
        rc = weir__opt_fail(
            &o, (size_t)weir__opt_index(&o, "sink.commit-on-checkpoint"),
            WEIR_EINVAL,
            "option 'sink.commit-on-checkpoint' = 'false' cannot be used in "
            "a job that checkpoints: a restore would lose the rows of the "
            "part file in progress; leave it out (files become visible when "
            "a checkpoint covering them completes)");
        goto done;
    }
    if (cfg.rolling_file_size == 0 &&
        weir__opt_index(&o, "sink.rolling-policy.file-size") >= 0) {
        rc = weir__opt_fail(
            &o, (size_t)weir__opt_index(&o, "sink.rolling-policy.file-size"),
            WEIR_EINVAL,
            "option 'sink.rolling-policy.file-size' must be at least 1 byte");
        goto done;
    }
    static const char *const source_side[] = {
        "source.monitor-interval",   "source.split-size",
        "source.bad-input",          "source.dead-letter.path",
        "source.path.regex-pattern", NULL};
    weir__opt_accept(&o, source_side);
    if (env) {
        cfg.clock = env->clock;
        cfg.job_id = env->job_id;
    }
    if ((rc = weir__opt_finish(&o, file_sink_known)))
        goto done;
    for (uint32_t k = 0; schema && k < cfg.n_partition_keys; k++) {
        int col = weir_schema_find(schema, cfg.partition_keys[k]);
        if (col < 0) {
            rc = weir_error_set(err, WEIR_EINVAL,
                                "partition column '%s' is not a column of the "
                                "table",
                                cfg.partition_keys[k]);
            goto done;
        }
        /* A folder name holds a scalar's text, which the source reads
         * back; a nested value's text has no bound and no reader. */
        if (weir_type_nested_id(schema->fields[col].type)) {
            char tb[64];
            rc = weir_error_set(
                err, WEIR_EUNSUPPORTED,
                "filesystem sink: partition column '%s' has type %s; a "
                "partition folder names a scalar value",
                cfg.partition_keys[k],
                weir_expr_type_name(schema->fields[col].type, 0, tb,
                                    sizeof tb));
            goto done;
        }
    }
    if (schema && cfg.n_partition_keys >= schema->n_fields) {
        rc = weir_error_set(err, WEIR_EINVAL,
                            "a partitioned table needs at least one column "
                            "that is not a partition column");
        goto done;
    }
    if (schema) {
        weir_encoder *probe; /* check the format against the schema now */
        if ((rc = weir_encoder_create(&cfg.format, schema, &probe, err)))
            goto done;
        weir_encoder_destroy(probe);
    }
    rc = weir_file_sink_spec(&cfg, out, err);
done:
    weir__optset_fini(&o);
    return rc;
}

const weir_error *weir__sink_last_error(const void *op)
{
    return (const weir_error *)op;
}
