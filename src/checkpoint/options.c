/*
 * checkpoint/options.c - checkpoint and restart options, by their Flink
 * keys (docs/checkpoints.md lists them with their defaults).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "weir/checkpoint.h"
#include "weir/connector.h"
#include "util/s3.h"

/* The s3.* options also serve the connectors' s3:// paths (util/s3.h). */
static void s3_default(const char *key, const char *value)
{
#if defined(WEIR_HAVE_CURL)
    weir__s3_default(key, value);
#else
    (void)key;
    (void)value;
#endif
}

void weir_checkpoint_config_init(weir_checkpoint_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->timeout_ms = 10 * 60 * 1000;
    cfg->max_concurrent = 1;
    cfg->num_retained = 1;
    cfg->tolerable_failures = -1;
    cfg->s3_max_retries = -1;
}

static int parse_int(const char *key, const char *value, int64_t lo, int64_t hi,
                     int64_t *out, weir_error *err)
{
    char *end;
    errno = 0;
    long long v = strtoll(value, &end, 10);
    while (*end == ' ')
        end++;
    if (errno || end == value || *end || v < lo || v > hi)
        return weir_error_set(
            err, WEIR_EINVAL,
            "option '%s': expected an integer in [%lld, %lld], got '%s'", key,
            (long long)lo, (long long)hi, value);
    *out = v;
    return 0;
}

static int parse_ms(const char *key, const char *value, int64_t *out,
                    weir_error *err)
{
    if (weir_option_parse_duration(value, out) || *out < 0)
        return weir_error_set(err, WEIR_EINVAL,
                              "option '%s': expected a duration such as '10 s' "
                              "or '500 ms', got '%s'",
                              key, value);
    return 0;
}

int weir_checkpoint_config_set(weir_checkpoint_config *cfg, const char *key,
                               const char *value, weir_error *err)
{
    if (!cfg || !key || !value)
        return weir_error_set(err, WEIR_EINVAL,
                              "weir_checkpoint_config_set: missing argument");
    int64_t v;
    int rc;
    if (!strcmp(key, "execution.checkpointing.interval"))
        return parse_ms(key, value, &cfg->interval_ms, err);
    if (!strcmp(key, "execution.checkpointing.timeout")) {
        if ((rc = parse_ms(key, value, &v, err)))
            return rc;
        if (v == 0)
            return weir_error_set(err, WEIR_EINVAL,
                                  "option '%s': the timeout must be positive",
                                  key);
        cfg->timeout_ms = v;
        return 0;
    }
    if (!strcmp(key, "execution.checkpointing.min-pause"))
        return parse_ms(key, value, &cfg->min_pause_ms, err);
    if (!strcmp(key, "execution.checkpointing.max-concurrent-checkpoints")) {
        if ((rc = parse_int(key, value, 1, 64, &v, err)))
            return rc;
        cfg->max_concurrent = (uint32_t)v;
        return 0;
    }
    if (!strcmp(key, "execution.checkpointing.tolerable-failed-checkpoints")) {
        if ((rc = parse_int(key, value, -1, INT32_MAX, &v, err)))
            return rc;
        cfg->tolerable_failures = (int32_t)v;
        return 0;
    }
    if (!strcmp(key, "state.checkpoints.num-retained") ||
        !strcmp(key, "execution.checkpointing.num-retained")) {
        if ((rc = parse_int(key, value, 1, 1000, &v, err)))
            return rc;
        cfg->num_retained = (uint32_t)v;
        return 0;
    }
    if (!strcmp(key, "state.checkpoints.dir") ||
        !strcmp(key, "execution.checkpointing.dir")) {
        /* Flink writes URIs; a local folder may be given as file:///path. */
        cfg->dir = !strncmp(value, "file://", 7) ? value + 7 : value;
        return 0;
    }
    if (!strcmp(key, "state.savepoints.dir") ||
        !strcmp(key, "execution.checkpointing.savepoint-dir")) {
        cfg->savepoint_dir = !strncmp(value, "file://", 7) ? value + 7 : value;
        return 0;
    }
    if (!strcmp(key, "execution.savepoint.path")) {
        cfg->restore = WEIR_RESTORE_PATH;
        cfg->restore_path = !strncmp(value, "file://", 7) ? value + 7 : value;
        return 0;
    }
    if (!strcmp(key, "execution.savepoint.ignore-unclaimed-state")) {
        if (strcasecmp(value, "true") && strcasecmp(value, "false"))
            return weir_error_set(
                err, WEIR_EINVAL,
                "option '%s': expected true or false, got '%s'", key, value);
        cfg->allow_non_restored_state = !strcasecmp(value, "true");
        return 0;
    }
    if (!strcmp(key, "s3.endpoint")) {
        if (strncmp(value, "http://", 7) && strncmp(value, "https://", 8) &&
            strstr(value, "://"))
            return weir_error_set(
                err, WEIR_EINVAL,
                "option '%s': expected an http:// or https:// URL, got '%s'",
                key, value);
        cfg->s3_endpoint = value;
        s3_default("endpoint", value);
        return 0;
    }
    if (!strcmp(key, "s3.region")) {
        cfg->s3_region = value;
        s3_default("region", value);
        return 0;
    }
    if (!strcmp(key, "s3.access-key") || !strcmp(key, "s3.access.key")) {
        cfg->s3_access_key = value;
        s3_default("access-key", value);
        return 0;
    }
    if (!strcmp(key, "s3.secret-key") || !strcmp(key, "s3.secret.key")) {
        cfg->s3_secret_key = value;
        s3_default("secret-key", value);
        return 0;
    }
    if (!strcmp(key, "s3.path.style.access") ||
        !strcmp(key, "s3.path-style-access")) {
        if (strcasecmp(value, "true") && strcasecmp(value, "false"))
            return weir_error_set(
                err, WEIR_EINVAL,
                "option '%s': expected true or false, got '%s'", key, value);
        cfg->s3_path_style = !strcasecmp(value, "true") ? "true" : "false";
        s3_default("path-style", cfg->s3_path_style);
        return 0;
    }
    if (!strcmp(key, "s3.max-error-retries")) {
        if ((rc = parse_int(key, value, 0, 100, &v, err)))
            return rc;
        cfg->s3_max_retries = (int32_t)v;
        s3_default("max-retries", value);
        return 0;
    }
    if (!strcmp(key, "s3.upload.min.part.size")) {
        if ((rc = parse_int(key, value, 1024, (int64_t)5 << 30, &v, err)))
            return rc;
        cfg->s3_part_size = (uint64_t)v;
        char num[32];
        snprintf(num, sizeof num, "%" PRIu64, (uint64_t)v);
        s3_default("part-size", num);
        return 0;
    }
    if (!strcmp(key, "execution.checkpointing.mode")) {
        if (!strcasecmp(value, "EXACTLY_ONCE"))
            return 0;
        if (!strcasecmp(value, "AT_LEAST_ONCE"))
            return weir_error_set(
                err, WEIR_EUNSUPPORTED,
                "option '%s': AT_LEAST_ONCE is not supported: weir's "
                "checkpoints are always exactly-once "
                "(barriers are aligned)",
                key);
        return weir_error_set(
            err, WEIR_EINVAL,
            "option '%s': expected EXACTLY_ONCE or AT_LEAST_ONCE, got '%s'",
            key, value);
    }
    if (!strcmp(key, "state.backend.async")) {
        if (strcasecmp(value, "true") && strcasecmp(value, "false"))
            return weir_error_set(
                err, WEIR_EINVAL,
                "option '%s': expected true or false, got '%s'", key, value);
        cfg->sync_snapshots = !strcasecmp(value, "false");
        return 0;
    }
    if (!strcmp(key, "state.backend.incremental") ||
        !strcmp(key, "execution.checkpointing.incremental")) {
        if (strcasecmp(value, "true") && strcasecmp(value, "false"))
            return weir_error_set(
                err, WEIR_EINVAL,
                "option '%s': expected true or false, got '%s'", key, value);
        cfg->incremental = !strcasecmp(value, "true");
        return 0;
    }
    if (!strcmp(key, "execution.checkpointing.aligned-checkpoint-timeout") ||
        !strcmp(key, "execution.checkpointing.alignment-timeout"))
        return parse_ms(key, value, &cfg->aligned_timeout_ms, err);
    if (!strcmp(key, "execution.checkpointing.unaligned") ||
        !strcmp(key, "execution.checkpointing.unaligned.enabled")) {
        if (!strcasecmp(value, "false") || !strcasecmp(value, "true")) {
            cfg->unaligned = !strcasecmp(value, "true");
            return 0;
        }
        return weir_error_set(err, WEIR_EINVAL,
                              "option '%s': expected true or false, got '%s'",
                              key, value);
    }
    return WEIR_ENOTFOUND;
}
