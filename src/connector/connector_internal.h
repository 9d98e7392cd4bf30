/*
 * connector/connector_internal.h - reading WITH options, shared by the
 * connectors' option-list constructors. Internal-but-shared.
 *
 * A weir__optset wraps the caller's option list, remembers which options a
 * constructor consumed, and reports the rest as unsupported with the
 * closest known name. Every error names the option it is about.
 */
#ifndef WEIR_CONNECTOR_INTERNAL_H
#define WEIR_CONNECTOR_INTERNAL_H

#include "weir/connector.h"

typedef struct weir__optset {
    const weir_option *opts;
    size_t n;
    bool *used;
    const char *connector; /* for messages: "filesystem", "datagen", ... */
    const weir_connector_env *env;
    weir_error *err;
} weir__optset;

/*
 * Prepares o; fails on a NULL key or value and on a key given twice.
 * Keys every connector ignores ('connector', 'scan.watermark.*',
 * 'scan.parallelism', 'sink.parallelism': the planner's) are marked used.
 */
int weir__optset_init(weir__optset *o, const char *connector,
                      const weir_option *opts, size_t n,
                      const weir_connector_env *env, weir_error *err);
void weir__optset_fini(weir__optset *o);

/* Value of key (marking it used), or NULL. */
const char *weir__opt_get(weir__optset *o, const char *key);
/* Typed readers: leave *out alone when the key is absent; an error names the
 * key. */
int weir__opt_bool(weir__optset *o, const char *key, bool *out);
/*
 * One of names (NULL-terminated): its index into *out ("option 'k':
 * expected 'a', 'b' or 'c', found 'x'" otherwise). how says how a value
 * matches a name: each option keeps the matching it always had (Flink
 * matches the options of enum type in any case, its string options exactly).
 */
typedef enum weir__choice_match {
    WEIR__CHOICE_EXACT,      /* byte for byte */
    WEIR__CHOICE_ANY_CASE,   /* ASCII case ignored */
    WEIR__CHOICE_ENUM_NAME,  /* case ignored and '_' read as '-', so the
                                Java constant AT_LEAST_ONCE names
                                'at-least-once' */
} weir__choice_match;
int weir__opt_choice(weir__optset *o, const char *key, const char *const *names,
                     weir__choice_match how, int *out);
/*
 * Reads 'source.bad-input' and 'source.dead-letter.path' (a source of
 * records that may not decode: file, stdin): the policy into *policy, the
 * path (NULL when not given) into *dead_letter_path. Without a policy it is
 * 'skip' when ignore_parse_errors ('<fmt>.ignore-parse-errors' = 'true'),
 * 'dead-letter' when a path is given, else 'fail'. Another policy with
 * ignore_parse_errors, or a path without 'dead-letter', is an error.
 */
int weir__opt_bad_input(weir__optset *o, weir_format_kind fmt, bool ignore_parse_errors,
                        weir_bad_input *policy, const char **dead_letter_path);
int weir__opt_duration(weir__optset *o, const char *key, int64_t *out_ms);
int weir__opt_size(weir__optset *o, const char *key, uint64_t *out);
int weir__opt_i64(weir__optset *o, const char *key, int64_t *out);
int weir__opt_f64(weir__optset *o, const char *key, double *out);
/* Sets the error about option i (and env->bad_option_index). */
int weir__opt_fail(weir__optset *o, size_t i, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/*
 * Marks keys[] (NULL-terminated) as used without reading them: the options
 * of the other side of a table (a filesystem table's WITH clause carries
 * both its source and its sink options, as in Flink).
 */
void weir__opt_accept(weir__optset *o, const char *const *keys);
/* Index of key, or -1. */
int weir__opt_index(const weir__optset *o, const char *key);

/*
 * Reads 'format' and the options of that format ('json.*', 'csv.*',
 * 'debezium-json.*') into fmt. *ignore_parse_errors reports
 * '<format>.ignore-parse-errors'. for_sink allows debezium-json.
 */
int weir__opt_format(weir__optset *o, bool for_sink, weir_format_options *fmt,
                     bool *ignore_parse_errors);

/*
 * Copies the event-time columns env names (the columns a source's decoder
 * must fill for its watermark) and the event-time attribute's name into
 * *cols, *n and *name (nothing when env is NULL). WEIR_ENOMEM leaves what
 * was copied for the caller to free.
 */
int weir__opt_event_time(const weir_connector_env *env, uint32_t **cols,
                         uint32_t *n, char **name);

/*
 * Fails on the first option nobody consumed, suggesting the closest of
 * known[] (NULL-terminated) and of the options consumed.
 */
/*
 * Reads a local path option in place: "file:///x" becomes "/x" (the scheme
 * stripped); another scheme ("hdfs://...", "s3://...") is an error.
 */
int weir__opt_local_path(weir__optset *o, const char *key, const char **path);
int weir__opt_finish(weir__optset *o, const char *const *known);

/*
 * Reports that required option key is absent. An option nobody consumed
 * whose name is close to key ('pth' for 'path') is named as the error,
 * with key as the suggestion; otherwise "connector 'c' needs option 'key'"
 * followed by hint (may be NULL).
 */
int weir__opt_missing(weir__optset *o, const char *key, const char *hint);

/* 'connector' = 'stdin': records from standard input (one split, bounded by
 * the end of input). */
int weir__stdin_source_spec_opts(const weir_option *opts, size_t n_opts,
                                 const weir_schema *schema,
                                 const weir_connector_env *env,
                                 weir_source_spec *out, weir_error *err);

/* Edit distance, for "did you mean" suggestions. */
size_t weir__opt_edit_distance(const char *a, const char *b);
/*
 * The name closest to key among n entries of a table whose entries, stride
 * bytes apart, start with their name (a const char *), when it is close
 * enough to suggest (at most a third of key's length + 1 edits); else NULL.
 */
const char *weir__opt_closest(const char *key, const void *entries, size_t n, size_t stride);

/* Source classes and sink classes, for weir_sink_spec_accepts_changelog. */
extern const weir_source_class weir__file_source_class;
extern const weir_source_class weir__datagen_source_class;
extern const weir_operator_class weir__print_sink_class;
extern const weir_operator_class weir__file_sink_class;
extern const weir_operator_class weir__blackhole_sink_class;
/* The format a file sink spec writes. */
weir_format_kind weir__file_sink_format(const weir_operator_spec *spec);
/* Whether name can be one folder or file name under a sink's path as it
 * is: not empty, no '/', '\\' or control characters. */
bool weir__file_sink_plain_name(const char *name);

/*
 * The last error of a print or file sink instance (what process/finish
 * failed with, with its message). Until sinks report through their ctx,
 * this is how the message reaches a caller.
 */
const weir_error *weir__sink_last_error(const void *op);

#endif
