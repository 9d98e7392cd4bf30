/*
 * cli/config.c - `weir run --config FILE`: configuration in YAML, as Flink's
 * config.yaml. Nested maps flatten to dotted keys
 * (execution: {checkpointing: {interval: 10s}} is
 * execution.checkpointing.interval = 10s); a list of scalars is one value,
 * its items joined with ';' (Flink's list syntax). Scalars are kept as
 * written. The keys are the ones SET and -D take; the script's SET and -D
 * override the file. Every error names the file, line and column.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "weir/common.h"

void weir_cli_config_fini(weir_cli_config *c)
{
    for (size_t i = 0; i < c->n; i++) {
        weir_free(c->keys[i]);
        weir_free(c->values[i]);
    }
    weir_free(c->keys);
    weir_free(c->values);
    weir_free(c->lines);
    weir_free(c->cols);
    memset(c, 0, sizeof *c);
}

#ifdef WEIR_HAVE_YAML
#include <yaml.h>

#define MAX_DEPTH 32

static int put(weir_cli_config *c, const char *key, const char *value, const yaml_mark_t *at)
{
    for (size_t i = 0; i < c->n; i++) {
        if (!strcmp(c->keys[i], key)) { /* a later line wins */
            char *v = weir_strdup(value);
            if (!v)
                return -1;
            weir_free(c->values[i]);
            c->values[i] = v;
            c->lines[i] = (uint32_t)at->line + 1;
            c->cols[i] = (uint32_t)at->column + 1;
            return 0;
        }
    }
    size_t n = c->n + 1;
    char **k = weir_realloc(c->keys, n * sizeof *k);
    if (k)
        c->keys = k;
    char **v = weir_realloc(c->values, n * sizeof *v);
    if (v)
        c->values = v;
    uint32_t *l = weir_realloc(c->lines, n * sizeof *l);
    if (l)
        c->lines = l;
    uint32_t *co = weir_realloc(c->cols, n * sizeof *co);
    if (co)
        c->cols = co;
    if (!k || !v || !l || !co)
        return -1;
    c->keys[c->n] = weir_strdup(key);
    c->values[c->n] = weir_strdup(value);
    c->lines[c->n] = (uint32_t)at->line + 1;
    c->cols[c->n] = (uint32_t)at->column + 1;
    c->n++;
    return c->keys[c->n - 1] && c->values[c->n - 1] ? 0 : -1;
}

static int fail(const char *path, const yaml_mark_t *at, const char *what)
{
    fprintf(stderr, "%s:%zu:%zu: error: %s\n", path, at->line + 1, at->column + 1, what);
    return WEIR_EXIT_INVALID;
}

int weir_cli_config_load(const char *path, weir_cli_config *c)
{
    memset(c, 0, sizeof *c);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "weir: %s: %s\n", path, strerror(errno));
        return WEIR_EXIT_IO;
    }
    yaml_parser_t p;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_file(&p, f);
    /* The path of dotted keys down to the current map: prefix lengths per level. */
    char key[1024] = "";
    size_t len_at[MAX_DEPTH];
    int depth = 0;          /* maps open */
    bool want_key[MAX_DEPTH];
    yaml_mark_t key_at[MAX_DEPTH]; /* where the current key of each map is */
    char seq[4096];         /* the items of a list value */
    bool in_seq = false;
    yaml_mark_t seq_at = {0};
    int rc = WEIR_EXIT_OK;
    bool done = false;
    while (!done && !rc) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) {
            char msg[512];
            snprintf(msg, sizeof msg, "%s%s%s", p.problem ? p.problem : "malformed YAML",
                     p.context ? " " : "", p.context ? p.context : "");
            rc = fail(path, &p.problem_mark, msg);
            break;
        }
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            done = true;
            break;
        case YAML_DOCUMENT_START_EVENT:
            if (depth || key[0]) /* a second document */
                rc = fail(path, &ev.start_mark, "one YAML document expected");
            break;
        case YAML_MAPPING_START_EVENT:
            if (in_seq) {
                rc = fail(path, &ev.start_mark, "a list value holds scalars only");
                break;
            }
            if (depth && want_key[depth - 1]) {
                rc = fail(path, &ev.start_mark, "a key must be a scalar");
                break;
            }
            if (depth == MAX_DEPTH) {
                rc = fail(path, &ev.start_mark, "maps nested too deep");
                break;
            }
            len_at[depth] = strlen(key);
            want_key[depth++] = true;
            break;
        case YAML_MAPPING_END_EVENT:
            depth--;
            if (depth > 0) {
                /* Back to the parent map: drop the key of this map. */
                key[len_at[depth - 1]] = '\0';
                want_key[depth - 1] = true;
            }
            break;
        case YAML_SEQUENCE_START_EVENT:
            if (!depth || want_key[depth - 1] || in_seq) {
                rc = fail(path, &ev.start_mark,
                          in_seq ? "a list value holds scalars only" : "the top level must be a map of keys");
                break;
            }
            in_seq = true;
            seq[0] = '\0';
            seq_at = ev.start_mark;
            break;
        case YAML_SEQUENCE_END_EVENT:
            in_seq = false;
            if (put(c, key, seq, &key_at[depth - 1]))
                rc = fail(path, &seq_at, "out of memory");
            key[len_at[depth - 1]] = '\0';
            want_key[depth - 1] = true;
            break;
        case YAML_SCALAR_EVENT: {
            const char *v = (const char *)ev.data.scalar.value;
            if (!depth) {
                rc = fail(path, &ev.start_mark, "the top level must be a map of keys");
            } else if (in_seq) {
                size_t l = strlen(seq);
                snprintf(seq + l, sizeof seq - l, "%s%s", l ? ";" : "", v);
            } else if (want_key[depth - 1]) {
                size_t l = len_at[depth - 1];
                if (!*v) {
                    rc = fail(path, &ev.start_mark, "empty key");
                    break;
                }
                if (l + 1 + strlen(v) >= sizeof key) {
                    rc = fail(path, &ev.start_mark, "key too long");
                    break;
                }
                snprintf(key + l, sizeof key - l, "%s%s", l ? "." : "", v);
                want_key[depth - 1] = false;
                key_at[depth - 1] = ev.start_mark;
            } else {
                if (put(c, key, v, &key_at[depth - 1]))
                    rc = fail(path, &ev.start_mark, "out of memory");
                key[len_at[depth - 1]] = '\0';
                want_key[depth - 1] = true;
            }
            break;
        }
        case YAML_ALIAS_EVENT:
            rc = fail(path, &ev.start_mark, "aliases (*name) are not supported");
            break;
        default:
            break;
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&p);
    fclose(f);
    if (rc)
        weir_cli_config_fini(c);
    return rc;
}
#else
int weir_cli_config_load(const char *path, weir_cli_config *c)
{
    memset(c, 0, sizeof *c);
    fprintf(stderr, "weir: --config %s: this weir was built without libyaml (install libyaml-dev and rebuild)\n",
            path);
    return WEIR_EXIT_USAGE;
}
#endif
