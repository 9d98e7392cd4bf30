/*
 * connector/options.c - WITH options: typed values as Flink writes them,
 * the format options shared by every connector that reads or writes
 * records, unknown-option reporting with suggestions, and the connector
 * dispatch by name used by the SQL layer.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "connector/connector_internal.h"
#include "connector/hybrid/hybrid.h"
#include "connector/postgres/jdbc_sink.h"
#include "util/cnum.h"
#include "weir/nexmark.h"
#ifdef WEIR_HAVE_KAFKA
#include "connector/kafka/source_internal.h"
#include "connector/kafka/sink.h"
#endif
#ifdef WEIR_HAVE_POSTGRES
#include "connector/postgres/cdc_internal.h"
#endif
#ifdef WEIR_HAVE_NATS
#include "connector/nats/nats_internal.h"
#endif

/* ---- values ---- */

static const char *skip_spaces(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* Parses the leading unsigned integer; returns the rest or NULL. */
static const char *parse_u64(const char *s, uint64_t *out)
{
    if (!isdigit((unsigned char)*s))
        return NULL;
    uint64_t v = 0;
    for (; isdigit((unsigned char)*s); s++) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return NULL;
        v = v * 10 + d;
    }
    *out = v;
    return s;
}

static bool unit_is(const char *u, size_t n, const char *const *names)
{
    for (; *names; names++) {
        size_t m = strlen(*names);
        if (n == m && strncasecmp(u, *names, n) == 0)
            return true;
        /* plural */
        if (n == m + 1 && m > 2 && strncasecmp(u, *names, m) == 0 &&
            (u[m] == 's' || u[m] == 'S'))
            return true;
    }
    return false;
}

int weir_option_parse_duration(const char *s, int64_t *out_ms)
{
    static const char *const ns[] = {"ns", "nano", "nanosecond", NULL};
    static const char *const us[] = {"us", "\xc2\xb5s", "micro", "microsecond",
                                     NULL};
    static const char *const ms[] = {"ms", "milli", "millisecond", NULL};
    static const char *const sec[] = {"s", "sec", "second", NULL};
    static const char *const min[] = {"m", "min", "minute", NULL};
    static const char *const hour[] = {"h", "hour", NULL};
    static const char *const day[] = {"d", "day", NULL};
    if (!s)
        return WEIR_EINVAL;
    uint64_t v;
    const char *p = parse_u64(skip_spaces(s), &v);
    if (!p)
        return WEIR_EINVAL;
    p = skip_spaces(p);
    const char *u = p;
    while (*p && *p != ' ' && *p != '\t')
        p++;
    size_t n = (size_t)(p - u);
    if (*skip_spaces(p))
        return WEIR_EINVAL;
    double f; /* milliseconds per unit */
    if (n == 0 || unit_is(u, n, ms))
        f = 1;
    else if (unit_is(u, n, ns))
        f = 1e-6;
    else if (unit_is(u, n, us))
        f = 1e-3;
    else if (unit_is(u, n, sec))
        f = 1e3;
    else if (unit_is(u, n, min))
        f = 6e4;
    else if (unit_is(u, n, hour))
        f = 3.6e6;
    else if (unit_is(u, n, day))
        f = 8.64e7;
    else
        return WEIR_EINVAL;
    double r = (double)v * f;
    if (r > 9.2e18)
        return WEIR_EINVAL;
    *out_ms = f >= 1 ? (int64_t)v * (int64_t)f : (int64_t)r;
    return 0;
}

int weir_option_parse_size(const char *s, uint64_t *out_bytes)
{
    static const char *const b[] = {"b", "bytes", NULL};
    static const char *const k[] = {"k", "kb", "kibibytes", NULL};
    static const char *const m[] = {"m", "mb", "mebibytes", NULL};
    static const char *const g[] = {"g", "gb", "gibibytes", NULL};
    static const char *const t[] = {"t", "tb", "tebibytes", NULL};
    if (!s)
        return WEIR_EINVAL;
    uint64_t v;
    const char *p = parse_u64(skip_spaces(s), &v);
    if (!p)
        return WEIR_EINVAL;
    p = skip_spaces(p);
    const char *u = p;
    while (*p && *p != ' ' && *p != '\t')
        p++;
    size_t n = (size_t)(p - u);
    if (*skip_spaces(p))
        return WEIR_EINVAL;
    unsigned shift;
    if (n == 0 || (n == 1 && (*u == 'b' || *u == 'B')) ||
        (n == 5 && strncasecmp(u, "bytes", 5) == 0))
        shift = 0;
    else if (unit_is(u, n, k))
        shift = 10;
    else if (unit_is(u, n, m))
        shift = 20;
    else if (unit_is(u, n, g))
        shift = 30;
    else if (unit_is(u, n, t))
        shift = 40;
    else
        return WEIR_EINVAL;
    (void)b;
    if (shift && v > (UINT64_MAX >> shift))
        return WEIR_EINVAL;
    *out_bytes = v << shift;
    return 0;
}

int weir_option_parse_bool(const char *s, bool *out)
{
    if (!s)
        return WEIR_EINVAL;
    if (strcasecmp(s, "true") == 0)
        *out = true;
    else if (strcasecmp(s, "false") == 0)
        *out = false;
    else
        return WEIR_EINVAL;
    return 0;
}

/* ---- the option set ---- */

static bool ignored_everywhere(const char *key)
{
    return strcmp(key, "connector") == 0 ||
           strncmp(key, "scan.watermark.", 15) == 0 ||
           strcmp(key, "lookup.join.cache.ttl") == 0 || /* the planner's, for lookup joins */
           strcmp(key, "scan.parallelism") == 0 ||
           strcmp(key, "sink.parallelism") == 0;
}

int weir__opt_fail(weir__optset *o, size_t i, int code, const char *fmt, ...)
{
    if (o->env && o->env->bad_option_index)
        *o->env->bad_option_index = (int)i;
    if (o->err) {
        va_list ap;
        va_start(ap, fmt);
        o->err->code = code;
        vsnprintf(o->err->message, sizeof o->err->message, fmt, ap);
        va_end(ap);
    }
    return code;
}

int weir__opt_local_path(weir__optset *o, const char *key, const char **path)
{
    const char *p = *path;
    const char *colon = strstr(p, "://");
    if (!colon)
        return 0;
    for (const char *q = p; q < colon; q++)
        if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
              (*q >= '0' && *q <= '9') || *q == '+' || *q == '-' || *q == '.'))
            return 0; /* not a scheme: a plain path with "://" in it */
    if (colon - p == 4 && strncasecmp(p, "file", 4) == 0) {
        *path = colon + 3;
        if (**path != '/')
            return weir__opt_fail(o, (size_t)weir__opt_index(o, key),
                                  WEIR_EINVAL,
                                  "option '%s': a file:// URI needs an "
                                  "absolute path (file:///dir), got '%s'",
                                  key, p);
        return 0;
    }
    return weir__opt_fail(o, (size_t)weir__opt_index(o, key), WEIR_EUNSUPPORTED,
                          "option '%s': file system scheme '%.*s' is not "
                          "supported: weir reads and writes local files "
                          "(a path, or file:///path)",
                          key, (int)(colon - p), p);
}

int weir__optset_init(weir__optset *o, const char *connector,
                      const weir_option *opts, size_t n,
                      const weir_connector_env *env, weir_error *err)
{
    memset(o, 0, sizeof *o);
    o->opts = opts;
    o->n = n;
    o->connector = connector;
    o->env = env;
    o->err = err;
    if (env && env->bad_option_index)
        *env->bad_option_index = -1;
    if (n && !opts)
        return weir_error_set(err, WEIR_EINVAL,
                              "connector '%s': options missing", connector);
    o->used = weir_calloc(n ? n : 1, sizeof *o->used);
    if (!o->used)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        if (!opts[i].key || !opts[i].value)
            return weir__opt_fail(
                o, i, WEIR_EINVAL,
                "connector '%s': option %zu has no key or no value", connector,
                i);
        for (size_t j = 0; j < i; j++)
            if (strcmp(opts[j].key, opts[i].key) == 0)
                return weir__opt_fail(o, i, WEIR_EINVAL,
                                      "option '%s' is given twice",
                                      opts[i].key);
        if (ignored_everywhere(opts[i].key))
            o->used[i] = true;
    }
    return 0;
}

void weir__optset_fini(weir__optset *o)
{
    weir_free(o->used);
    o->used = NULL;
}

int weir__opt_index(const weir__optset *o, const char *key)
{
    for (size_t i = 0; i < o->n; i++)
        if (strcmp(o->opts[i].key, key) == 0)
            return (int)i;
    return -1;
}

void weir__opt_accept(weir__optset *o, const char *const *keys)
{
    for (; *keys; keys++) {
        int i = weir__opt_index(o, *keys);
        if (i >= 0)
            o->used[i] = true;
    }
}

/* The value of option key, marked used (its index in *i); NULL when the
 * options do not name it. */
static const char *opt_take(weir__optset *o, const char *key, size_t *i)
{
    int at = weir__opt_index(o, key);
    if (at < 0)
        return NULL;
    *i = (size_t)at;
    o->used[at] = true;
    return o->opts[at].value;
}

/* The error of option i (key), whose value is not `what`. */
static int opt_bad(weir__optset *o, size_t i, const char *key, const char *what)
{
    return weir__opt_fail(o, i, WEIR_EINVAL,
                          "option '%s': expected %s, found '%s'", key, what,
                          o->opts[i].value);
}

const char *weir__opt_get(weir__optset *o, const char *key)
{
    size_t i;
    return opt_take(o, key, &i);
}

int weir__opt_bool(weir__optset *o, const char *key, bool *out)
{
    size_t i;
    const char *v = opt_take(o, key, &i);
    if (v && weir_option_parse_bool(v, out))
        return opt_bad(o, i, key, "'true' or 'false'");
    return 0;
}

/* Whether value v names name under how. */
static bool choice_matches(const char *v, const char *name, weir__choice_match how)
{
    if (how == WEIR__CHOICE_EXACT)
        return !strcmp(v, name);
    for (;; v++, name++) {
        char c = how == WEIR__CHOICE_ENUM_NAME && *v == '_' ? '-' : *v;
        if (tolower((unsigned char)c) != tolower((unsigned char)*name))
            return false;
        if (!c)
            return true;
    }
}

int weir__opt_choice(weir__optset *o, const char *key, const char *const *names,
                     weir__choice_match how, int *out)
{
    size_t i;
    const char *v = opt_take(o, key, &i);
    if (!v)
        return 0;
    int n = 0;
    for (; names[n]; n++)
        if (choice_matches(v, names[n], how)) {
            *out = n;
            return 0;
        }
    char what[256];
    size_t len = 0;
    for (int k = 0; k < n && len < sizeof what; k++)
        len += (size_t)snprintf(what + len, sizeof what - len, "%s'%s'", !k ? "" : k == n - 1 ? " or " : ", ",
                                names[k]);
    return opt_bad(o, i, key, what);
}

int weir__opt_bad_input(weir__optset *o, weir_format_kind fmt, bool ignore_parse_errors,
                        weir_bad_input *policy, const char **dead_letter_path)
{
    static const char *const names[] = {"fail", "skip", "dead-letter", NULL}; /* weir_bad_input's order */
    const char *key = "source.bad-input";
    const char *dl = weir__opt_get(o, "source.dead-letter.path");
    int p = -1;
    int rc = weir__opt_choice(o, key, names, WEIR__CHOICE_EXACT, &p);
    if (rc)
        return rc;
    if (p >= 0 && ignore_parse_errors && p != WEIR_BAD_INPUT_SKIP)
        return weir__opt_fail(o, (size_t)weir__opt_index(o, key), WEIR_EINVAL,
                              "option '%s' = '%s' contradicts '%s.ignore-parse-errors' = 'true'", key, names[p],
                              weir_format_name(fmt));
    if (p < 0)
        p = ignore_parse_errors ? WEIR_BAD_INPUT_SKIP : dl ? WEIR_BAD_INPUT_DEAD_LETTER : WEIR_BAD_INPUT_FAIL;
    if (dl && p != WEIR_BAD_INPUT_DEAD_LETTER)
        return weir__opt_fail(o, (size_t)weir__opt_index(o, "source.dead-letter.path"), WEIR_EINVAL,
                              "option 'source.dead-letter.path' needs '%s' = 'dead-letter'", key);
    *policy = (weir_bad_input)p;
    *dead_letter_path = dl;
    return 0;
}

int weir__opt_duration(weir__optset *o, const char *key, int64_t *out_ms)
{
    size_t i;
    const char *v = opt_take(o, key, &i);
    if (v && weir_option_parse_duration(v, out_ms))
        return opt_bad(o, i, key,
                       "a duration such as '10 s', '500 ms' or '1 min'");
    return 0;
}

int weir__opt_size(weir__optset *o, const char *key, uint64_t *out)
{
    size_t i;
    const char *v = opt_take(o, key, &i);
    if (v && weir_option_parse_size(v, out))
        return opt_bad(o, i, key,
                       "a memory size such as '128MB', '64 kb' or '1gb'");
    return 0;
}

int weir__opt_i64(weir__optset *o, const char *key, int64_t *out)
{
    size_t i;
    const char *v = opt_take(o, key, &i);
    if (!v)
        return 0;
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (end == v || *skip_spaces(end) || errno)
        return opt_bad(o, i, key, "an integer");
    *out = x;
    return 0;
}

int weir__opt_f64(weir__optset *o, const char *key, double *out)
{
    size_t i;
    const char *v = opt_take(o, key, &i);
    if (!v)
        return 0;
    char *end;
    double x = weir__strtod_c(v, &end);
    if (end == v || *skip_spaces(end) || !isfinite(x))
        return opt_bad(o, i, key, "a number");
    *out = x;
    return 0;
}

size_t weir__opt_edit_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 64 || m > 64)
        return n > m ? n : m;
    size_t prev[65], cur[65];
    for (size_t j = 0; j <= m; j++)
        prev[j] = j;
    for (size_t i = 1; i <= n; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t sub = prev[j - 1] + (tolower((unsigned char)a[i - 1]) !=
                                        tolower((unsigned char)b[j - 1]));
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] =
                sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        memcpy(prev, cur, (m + 1) * sizeof *prev);
    }
    return prev[m];
}

/* Whether key is close enough to name to be a misspelling of it. */
static bool close_to(const char *key, const char *name, size_t *dist)
{
    *dist = weir__opt_edit_distance(key, name);
    return *dist <= strlen(key) / 3 + 1;
}

const char *weir__opt_closest(const char *key, const void *entries, size_t n, size_t stride)
{
    const char *best = NULL;
    size_t best_d = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        const char *name;
        memcpy(&name, (const char *)entries + i * stride, sizeof name);
        size_t d = weir__opt_edit_distance(key, name);
        if (d < best_d) {
            best_d = d;
            best = name;
        }
    }
    return best_d <= strlen(key) / 3 + 1 ? best : NULL;
}

int weir__opt_missing(weir__optset *o, const char *key, const char *hint)
{
    size_t best_d = SIZE_MAX, best = 0;
    for (size_t i = 0; i < o->n; i++) {
        size_t d;
        if (!o->used[i] && close_to(o->opts[i].key, key, &d) && d < best_d) {
            best_d = d;
            best = i;
        }
    }
    if (best_d != SIZE_MAX)
        return weir__opt_fail(o, best, WEIR_EINVAL,
                              "unsupported option '%s' for connector '%s' "
                              "(did you mean '%s'?)",
                              o->opts[best].key, o->connector, key);
    if (o->env && o->env->bad_option_index)
        *o->env->bad_option_index = -1;
    return weir_error_set(o->err, WEIR_EINVAL,
                          "connector '%s' needs option '%s'%s", o->connector,
                          key, hint ? hint : "");
}

int weir__opt_finish(weir__optset *o, const char *const *known)
{
    for (size_t i = 0; i < o->n; i++) {
        if (o->used[i])
            continue;
        const char *key = o->opts[i].key, *best = NULL;
        size_t best_d = SIZE_MAX;
        for (const char *const *k = known; k && *k; k++) {
            size_t d = weir__opt_edit_distance(key, *k);
            if (d < best_d) {
                best_d = d;
                best = *k;
            }
        }
        size_t limit = strlen(key) / 3 + 1;
        if (best && best_d <= limit)
            return weir__opt_fail(o, i, WEIR_EINVAL,
                                  "unsupported option '%s' for connector '%s' "
                                  "(did you mean '%s'?)",
                                  key, o->connector, best);
        return weir__opt_fail(o, i, WEIR_EINVAL,
                              "unsupported option '%s' for connector '%s'", key,
                              o->connector);
    }
    return 0;
}

/* ---- format options ---- */

/* One character, or one of the escapes "\t", "\\t", "\u0009" style. */
static int parse_char_option(const char *v, char *out)
{
    size_t n = strlen(v);
    if (n == 1) {
        *out = v[0];
        return 0;
    }
    if (strcmp(v, "\\t") == 0) {
        *out = '\t';
        return 0;
    }
    if (n == 6 && v[0] == '\\' && v[1] == 'u') {
        char *end;
        long c = strtol(v + 2, &end, 16);
        if (*end == '\0' && c > 0 && c < 0x80) {
            *out = (char)c;
            return 0;
        }
    }
    return WEIR_EINVAL;
}

int weir__opt_event_time(const weir_connector_env *env, uint32_t **cols,
                         uint32_t *n, char **name)
{
    if (!env)
        return 0;
    if (env->n_event_time_fields) {
        if (!(*cols = weir_calloc(env->n_event_time_fields, sizeof **cols)))
            return WEIR_ENOMEM;
        memcpy(*cols, env->event_time_fields,
               env->n_event_time_fields * sizeof **cols);
        *n = env->n_event_time_fields;
    }
    if (env->event_time && !(*name = weir_strdup(env->event_time)))
        return WEIR_ENOMEM;
    return 0;
}

int weir__opt_format(weir__optset *o, bool for_sink, weir_format_options *fmt,
                     bool *ignore_parse_errors)
{
    int fi = weir__opt_index(o, "format");
    if (fi < 0)
        fi = weir__opt_index(o,
                             "value.format"); /* Flink's alternative spelling */
    if (fi < 0)
        return weir__opt_missing(o, "format",
                                 " ('json', 'csv' or 'debezium-json')");
    o->used[fi] = true;
    const char *name = o->opts[fi].value;
    weir_format_kind kind;
    if (weir_format_parse_name(name, &kind))
        return weir__opt_fail(o, (size_t)fi, WEIR_EUNSUPPORTED,
                              "option 'format': unsupported format '%s' (weir "
                              "has 'json', 'csv' and 'debezium-json')",
                              name);
    weir_format_options_init(fmt, kind);
    *ignore_parse_errors = false;
    int rc = 0;
    char key[64];
#define KEY(suffix) (snprintf(key, sizeof key, "%s.%s", name, suffix), key)
    if (kind == WEIR_FORMAT_JSON || kind == WEIR_FORMAT_DEBEZIUM_JSON) {
        if ((rc = weir__opt_bool(o, KEY("ignore-parse-errors"),
                                 ignore_parse_errors)))
            return rc;
        if ((rc = weir__opt_bool(o, KEY("fail-on-missing-field"),
                                 &fmt->json_fail_on_missing_field)))
            return rc;
        if ((rc = weir__opt_bool(o, KEY("encode.ignore-null-fields"),
                                 &fmt->json_ignore_null_fields)))
            return rc;
        const char *ts = weir__opt_get(o, KEY("timestamp-format.standard"));
        if (ts) {
            if (strcmp(ts, "ISO-8601") == 0)
                fmt->json_timestamp_iso8601 = true;
            else if (strcmp(ts, "SQL") != 0)
                return weir__opt_fail(
                    o, (size_t)weir__opt_index(o, key), WEIR_EINVAL,
                    "option '%s': expected 'SQL' or 'ISO-8601', found '%s'",
                    key, ts);
        }
        /* Accepted for compatibility: weir has no MAP type, and writes decimals
         * plainly. */
        weir__opt_get(o, KEY("map-null-key.mode"));
        weir__opt_get(o, KEY("map-null-key.literal"));
        weir__opt_get(o, KEY("encode.decimal-as-plain-number"));
        bool schema_include = false;
        if (kind == WEIR_FORMAT_DEBEZIUM_JSON &&
            (rc = weir__opt_bool(o, KEY("schema-include"), &schema_include)))
            return rc;
        fmt->debezium_schema_include = schema_include;
        if (schema_include && for_sink)
            return weir__opt_fail(
                o, (size_t)weir__opt_index(o, key), WEIR_EUNSUPPORTED,
                "option '%s': weir does not write the debezium schema envelope",
                key);
    } else {
        const char *v;
        if ((v = weir__opt_get(o, KEY("field-delimiter"))) &&
            parse_char_option(v, &fmt->csv_field_delimiter))
            return weir__opt_fail(
                o, (size_t)weir__opt_index(o, key), WEIR_EINVAL,
                "option '%s': expected a single character, found '%s'", key, v);
        if ((v = weir__opt_get(o, KEY("quote-character"))) &&
            parse_char_option(v, &fmt->csv_quote_character))
            return weir__opt_fail(
                o, (size_t)weir__opt_index(o, key), WEIR_EINVAL,
                "option '%s': expected a single character, found '%s'", key, v);
        bool disable = false;
        if ((rc = weir__opt_bool(o, KEY("disable-quote-character"), &disable)))
            return rc;
        if (disable)
            fmt->csv_quote_character = 0;
        if ((rc = weir__opt_bool(o, KEY("allow-comments"),
                                 &fmt->csv_allow_comments)))
            return rc;
        if ((rc = weir__opt_bool(o, KEY("ignore-parse-errors"),
                                 ignore_parse_errors)))
            return rc;
        if ((rc = weir__opt_bool(o, KEY("header"), &fmt->csv_header)))
            return rc;
        fmt->csv_null_literal = weir__opt_get(o, KEY("null-literal"));
        weir__opt_get(
            o, KEY("array-element-delimiter")); /* weir has no ARRAY type */
        bool sci = false;
        if ((rc = weir__opt_bool(
                 o, KEY("write-bigdecimal-in-scientific-notation"), &sci)))
            return rc;
        if (sci)
            return weir__opt_fail(
                o, (size_t)weir__opt_index(o, key), WEIR_EUNSUPPORTED,
                "option '%s': weir writes decimals plainly", key);
        if ((v = weir__opt_get(o, KEY("escape-character"))))
            return weir__opt_fail(o, (size_t)weir__opt_index(o, key),
                                  WEIR_EUNSUPPORTED,
                                  "option '%s' is not supported: weir reads "
                                  "RFC 4180 CSV, where a quote inside a "
                                  "quoted field is doubled",
                                  key);
        if (fmt->csv_field_delimiter == '\n' ||
            fmt->csv_field_delimiter == '\r' || fmt->csv_field_delimiter == 0 ||
            fmt->csv_field_delimiter == fmt->csv_quote_character) {
            int at = weir__opt_index(o, KEY("field-delimiter"));
            return weir__opt_fail(o, (size_t)(at >= 0 ? at : fi), WEIR_EINVAL,
                                  "option 'csv.field-delimiter': must differ "
                                  "from line breaks and the quote character");
        }
    }
#undef KEY
    return 0;
}

/* ---- dispatch ---- */

/* 'connector' = 'kafka' as a source: built in when librdkafka was found. */
static int kafka_source_spec(const weir_option *opts, size_t n_opts,
                                   const weir_schema *schema,
                                   const weir_connector_env *env,
                                   weir_source_spec *out, weir_error *err)
{
#ifdef WEIR_HAVE_KAFKA
    return weir__kafka_source_spec_opts(opts, n_opts, schema, env, out, err);
#else
    (void)opts;
    (void)n_opts;
    (void)schema;
    (void)env;
    (void)out;
    return weir_error_set(err, WEIR_EUNSUPPORTED,
                          "connector 'kafka' is not built into this weir: it "
                          "needs librdkafka (install librdkafka-dev, as "
                          "scripts/install-deps.sh does, and rebuild)");
#endif
}

static const char *connector_name(const char *connector,
                                  const weir_option *opts, size_t n)
{
    if (connector)
        return connector;
    for (size_t i = 0; i < n; i++)
        if (opts && opts[i].key && strcmp(opts[i].key, "connector") == 0)
            return opts[i].value;
    return NULL;
}

/* 'connector' = 'nexmark': options are applied one at a time so that a bad
 * one is reported at its own position in the DDL. */
static int nexmark_source_spec(const weir_option *opts, size_t n_opts, const weir_schema *schema,
                               const weir_connector_env *env, weir_source_spec *out, weir_error *err)
{
    weir_nexmark_config cfg;
    weir_nexmark_config_init(&cfg);
    for (size_t i = 0; i < n_opts; i++) {
        int rc = weir_nexmark_config_set(&cfg, opts[i].key, opts[i].value, err);
        if (rc) {
            if (env && env->bad_option_index)
                *env->bad_option_index = (int)i;
            return rc;
        }
    }
    if (env)
        cfg.clock = env->clock;
    /* q14 calls count_char, which the reference ships with its connector. */
    int rc = weir_nexmark_register_udfs(err);
    if (!rc)
        rc = weir_nexmark_config_validate(&cfg, err);
    if (!rc)
        rc = weir_nexmark_source_spec(&cfg, "nexmark", out, err);
    if (!rc && schema)
        out->schema = schema; /* the declared table; columns are matched by name */
    return rc;
}

int weir_connector_source_spec(const char *connector, const weir_option *opts, size_t n_opts,
                               const weir_schema *schema, const weir_connector_env *env, weir_source_spec *out,
                               weir_error *err)
{
    const char *c = connector_name(connector, opts, n_opts);
    if (!c)
        return weir_error_set(err, WEIR_EINVAL, "missing option 'connector'");
    if (env && env->n_partition_keys && strcmp(c, "filesystem") != 0)
        return weir_error_set(err, WEIR_EUNSUPPORTED,
                              "connector '%s' cannot read a partitioned table "
                              "(PARTITIONED BY): only 'filesystem' can", c);
    if (env && env->n_metadata_columns && strcmp(c, "kafka") != 0 &&
        strcmp(c, "upsert-kafka") != 0 && strcmp(c, "filesystem") != 0) {
        if (env->bad_metadata_index)
            *env->bad_metadata_index = 0;
        return weir_error_set(err, WEIR_EUNSUPPORTED,
                              "column '%s': connector '%s' has no metadata "
                              "('%s'); METADATA columns are read from "
                              "'kafka' and 'filesystem' tables",
                              env->metadata_columns[0].key, c,
                              env->metadata_columns[0].value);
    }
    if (strcmp(c, "kafka") == 0)
        return kafka_source_spec(opts, n_opts, schema, env, out, err);
    if (strcmp(c, "hybrid") == 0)
        return weir__hybrid_source_spec_opts(opts, n_opts, schema, env, out,
                                             err);
    if (strcmp(c, "upsert-kafka") == 0) {
#ifdef WEIR_HAVE_KAFKA
        return weir__upsert_kafka_source_spec_opts(opts, n_opts, schema, env,
                                                   out, err);
#else
        return weir_error_set(err, WEIR_EUNSUPPORTED,
                              "connector 'upsert-kafka' is not built into "
                              "this weir: it needs librdkafka "
                              "(librdkafka-dev) at build time");
#endif
    }
    if (strcmp(c, "stdin") == 0)
        return weir__stdin_source_spec_opts(opts, n_opts, schema, env, out,
                                            err);
    if (strcmp(c, "nats") == 0) {
#ifdef WEIR_HAVE_NATS
        return weir__nats_source_spec_opts(opts, n_opts, schema, env, out, err);
#else
        return weir_error_set(err, WEIR_EUNSUPPORTED,
                              "connector 'nats' is not built into this weir: "
                              "it needs the NATS C client (libnats-dev, see "
                              "scripts/install-deps.sh) at build time");
#endif
    }
    if (strcmp(c, "filesystem") == 0)
        return weir_file_source_spec_opts(opts, n_opts, schema, env, out, err);
    if (strcmp(c, "datagen") == 0)
        return weir_datagen_source_spec_opts(opts, n_opts, schema, env, out, err);
    if (strcmp(c, "nexmark") == 0)
        return nexmark_source_spec(opts, n_opts, schema, env, out, err);
    if (strcmp(c, "postgres-cdc") == 0) {
#ifdef WEIR_HAVE_POSTGRES
        return weir__pg_cdc_source_spec(opts, n_opts, schema, env, out, err);
#else
        return weir_error_set(err, WEIR_EUNSUPPORTED,
                              "connector 'postgres-cdc' is not built into this "
                              "weir: it needs libpq (libpq-dev) at build time");
#endif
    }
    if (strcmp(c, "print") == 0 || strcmp(c, "blackhole") == 0)
        return weir_error_set(
            err, WEIR_EUNSUPPORTED,
            "connector '%s' can only be written to (a sink), not read from", c);
    return weir_error_set(err, WEIR_EUNSUPPORTED,
                          "unsupported connector '%s' as a source (weir has 'filesystem', 'datagen', 'nexmark', "
                          "'kafka', 'upsert-kafka', 'hybrid', 'nats' and 'stdin')", c);
}

int weir_connector_sink_spec(const char *connector, const weir_option *opts,
                             size_t n_opts, const weir_schema *schema,
                             const weir_connector_env *env,
                             weir_operator_spec *out, weir_error *err)
{
    const char *c = connector_name(connector, opts, n_opts);
    if (!c)
        return weir_error_set(err, WEIR_EINVAL, "missing option 'connector'");
    if (strcmp(c, "filesystem") == 0)
        return weir_file_sink_spec_opts(opts, n_opts, schema, env, out, err);
    if (env && env->n_partition_keys)
        return weir_error_set(err, WEIR_EUNSUPPORTED,
                              "connector '%s' cannot write a partitioned table "
                              "(PARTITIONED BY): only 'filesystem' can", c);
    if (strcmp(c, "print") == 0)
        return weir_print_sink_spec_opts(opts, n_opts, schema, env, out, err);
    if (strcmp(c, "blackhole") == 0)
        return weir_blackhole_sink_spec_opts(opts, n_opts, schema, env, out,
                                             err);
    if (strcmp(c, "kafka") == 0 || strcmp(c, "upsert-kafka") == 0) {
#ifdef WEIR_HAVE_KAFKA
        return weir__kafka_sink_spec_opts(c[0] == 'u', opts, n_opts, schema,
                                          env, out, err);
#else
        return weir_error_set(err, WEIR_EUNSUPPORTED,
                              "connector '%s' is not built into this weir: "
                              "it needs librdkafka (librdkafka-dev, see "
                              "scripts/install-deps.sh)",
                              c);
#endif
    }
    if (strcmp(c, "nats") == 0) {
#ifdef WEIR_HAVE_NATS
        return weir__nats_sink_spec_opts(opts, n_opts, schema, env, out, err);
#else
        return weir_error_set(err, WEIR_EUNSUPPORTED,
                              "connector 'nats' is not built into this weir: "
                              "it needs the NATS C client (libnats-dev, see "
                              "scripts/install-deps.sh) at build time");
#endif
    }
    if (strcmp(c, "datagen") == 0 || strcmp(c, "stdin") == 0)
        return weir_error_set(
            err, WEIR_EUNSUPPORTED,
            "connector '%s' can only be read from (a source)", c);
    if (strcmp(c, "jdbc") == 0) {
#ifdef WEIR_HAVE_POSTGRES
        return weir__jdbc_sink_spec_opts(opts, n_opts, schema, env, out, err);
#else
        return weir_error_set(err, WEIR_EUNSUPPORTED,
                              "connector 'jdbc' is not built into this weir: "
                              "it needs libpq (PostgreSQL's client library; "
                              "scripts/install-deps.sh installs libpq-dev), "
                              "found missing when weir was built");
#endif
    }
    return weir_error_set(err, WEIR_EUNSUPPORTED,
                          "unsupported connector '%s' as a sink (weir has "
                          "'filesystem', 'print', 'blackhole', 'jdbc', "
                          "'kafka', 'upsert-kafka' and 'nats')",
                          c);
}

int weir_connector_lookup_spec(const weir_option *opts, size_t n_opts,
                               const weir_schema *schema,
                               const uint32_t *key_cols, uint32_t n_keys,
                               const weir_connector_env *env,
                               weir_lookup_source *out, weir_error *err)
{
    const char *c = connector_name(NULL, opts, n_opts);
    if (!c || strcmp(c, "jdbc") != 0)
        return WEIR_ENOTFOUND;
#ifdef WEIR_HAVE_POSTGRES
    return weir__pg_lookup_spec(opts, n_opts, schema, key_cols, n_keys, env,
                                out, err);
#else
    (void)schema;
    (void)key_cols;
    (void)n_keys;
    (void)env;
    (void)out;
    return weir_error_set(err, WEIR_EUNSUPPORTED,
                          "connector 'jdbc' is not built into this weir: it "
                          "needs libpq (libpq-dev) at build time");
#endif
}

bool weir_sink_spec_accepts_changelog(const weir_operator_spec *spec,
                                      const char **why_not)
{
    if (why_not)
        *why_not = NULL;
    if (spec->cls == &weir__file_sink_class) {
        weir_format_kind k = weir__file_sink_format(spec);
        if (weir_format_is_changelog(k))
            return true;
        if (why_not)
            *why_not = k == WEIR_FORMAT_CSV
                           ? "the filesystem sink with format 'csv' is "
                             "append-only; use 'format' = 'debezium-json' "
                             "to write a changelog"
                           : "the filesystem sink with format 'json' is "
                             "append-only; use 'format' = 'debezium-json' "
                             "to write a changelog";
        return false;
    }
#ifdef WEIR_HAVE_POSTGRES
    bool upsert = false;
    if (weir__jdbc_sink_is(spec, &upsert)) {
        if (!upsert && why_not)
            *why_not = "the jdbc sink writes an updating result only in "
                       "upsert mode, which needs a primary key: declare "
                       "PRIMARY KEY (...) NOT ENFORCED on the table (as Flink "
                       "asks: 'please declare primary key for sink table when "
                       "query contains update/delete record')";
        return upsert;
    }
#endif
#ifdef WEIR_HAVE_KAFKA
    if (spec->cls == &weir__kafka_sink_class)
        return weir__kafka_sink_accepts_changelog(spec, why_not);
#endif
#ifdef WEIR_HAVE_NATS
    int nats = weir__nats_sink_accepts_changelog(spec, why_not);
    if (nats >= 0)
        return nats == 1;
#endif
    /* print and blackhole take anything; unknown specs are the caller's to
     * judge */
    return true;
}

bool weir_sink_spec_is_upsert(const weir_operator_spec *spec)
{
#ifdef WEIR_HAVE_POSTGRES
    bool upsert = false;
    if (weir__jdbc_sink_is(spec, &upsert))
        return upsert;
#endif
#ifdef WEIR_HAVE_KAFKA
    if (spec->cls == &weir__kafka_sink_class)
        return weir__kafka_sink_is_upsert(spec);
#endif
    (void)spec;
    return false;
}

void weir_source_spec_release(weir_source_spec *spec)
{
    if (spec && spec->free_arg)
        spec->free_arg(spec->arg);
    if (spec) {
        spec->arg = NULL;
        spec->free_arg = NULL;
    }
}

void weir_operator_spec_release(weir_operator_spec *spec)
{
    if (spec && spec->free_arg)
        spec->free_arg(spec->arg);
    if (spec) {
        spec->arg = NULL;
        spec->free_arg = NULL;
    }
}
