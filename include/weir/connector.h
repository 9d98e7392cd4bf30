/*
 * weir/connector.h - the connectors of the embedded default: the file source
 * and sink, the data generator, print and blackhole.
 *
 * Each connector is built either from a config struct (the C API) or from a
 * list of key/value options named as in Flink SQL's WITH clause (the SQL
 * layer), e.g. 'path', 'format', 'source.monitor-interval',
 * 'json.ignore-parse-errors', 'rows-per-second', 'fields.id.kind',
 * 'print-identifier', 'sink.rolling-policy.file-size'. docs/connectors.md
 * lists every option, default and weir extension.
 *
 * A source constructor fills a weir_source_spec; a sink constructor fills a
 * weir_operator_spec (sinks are operators that emit nothing). In both the
 * config is copied into the spec's arg, which free_arg releases; the schema
 * is borrowed and must outlive the job.
 */
#ifndef WEIR_CONNECTOR_H
#define WEIR_CONNECTOR_H

#include <stdio.h>

#include "weir/clock.h"
#include "weir/format.h"
#include "weir/operator.h"
#include "weir/source.h"

#ifdef __cplusplus
extern "C" {
#endif

struct weir_expr; /* weir/expr.h */

/* One WITH option, both strings borrowed for the call. */
typedef struct weir_option {
    const char *key;
    const char *value;
} weir_option;

/* What the option-list constructors take from their surroundings. */
typedef struct weir_connector_env {
    weir_clock clock; /* the job's processing-time clock; now_ms NULL: the
                         system clock */
    FILE *print_out; /* where print sinks write instead of stdout (NULL: stdout)
                      */
    int *bad_option_index; /* if not NULL, set to the index of the option an
                              error is about, or -1 */
    /* The table's PARTITIONED BY columns (borrowed); only the filesystem
     * source and sink take them, every other connector refuses a partitioned
     * table. */
    const char *const *partition_keys;
    uint32_t n_partition_keys;
    /* Sources of a partitioned table: the predicate a partition must make
     * TRUE to be read (partition pruning), over one row of the partition
     * columns in partition_keys order; NULL: every partition. Borrowed; it
     * must outlive the source (weir_file_source_config). */
    const struct weir_expr *partition_filter;
    /* The table's PRIMARY KEY columns (borrowed; none: 0). The jdbc sink
     * writes in upsert mode by them. */
    const char *const *primary_keys;
    uint32_t n_primary_keys;
    /* The job takes checkpoints or savepoints: sinks that can commit
     * exactly once do so by default (the filesystem sink commits its files
     * when a checkpoint covering them completes). */
    bool checkpointing;
    /* Names the job across its runs (borrowed; NULL: unknown): the SQL
     * planner passes the absolute checkpoint folder. The filesystem sink
     * cleans up the hidden files of earlier runs of the same job with it. */
    const char *job_id;
    /* Sources: the columns of the schema the table's event time is computed
     * from, and the event-time column's name (borrowed). A source that
     * decodes records treats a record where one of them is NULL as bad
     * input, under its bad-input policy; see weir_file_source_config. */
    const uint32_t *event_time_fields;
    uint32_t n_event_time_fields;
    const char *event_time;
    /* Sources: the table's metadata columns (`c TYPE METADATA [FROM 'k']`),
     * each as {column name, metadata key} (borrowed). A source that has no
     * such metadata refuses them; one that has fills the column of that name
     * in its schema. */
    const weir_option *metadata_columns;
    uint32_t n_metadata_columns;
    /* Sources: set to the index in metadata_columns of the column an error
     * is about (an unknown key, a wrong type), so the planner can point at
     * it; left alone otherwise. NULL: not wanted. */
    int *bad_metadata_index;
} weir_connector_env;

/* What a source does with a record it cannot decode. */
typedef enum weir_bad_input {
    WEIR_BAD_INPUT_FAIL = 0,    /* the read fails with FILE:LINE:COL: error:
                                   expected ... (default) */
    WEIR_BAD_INPUT_SKIP,        /* the record is counted ("skipped_records") and
                                   dropped */
    WEIR_BAD_INPUT_DEAD_LETTER, /* the raw record and the reason go to a
                                   dead-letter file */
} weir_bad_input;

/* ---- file source ---- */

typedef struct weir_file_source_config {
    const char *path;           /* a file, or a directory read recursively */
    weir_format_options format; /* json or csv */
    weir_bad_input on_bad_input;
    const char *dead_letter_path; /* JSON lines file appended to under
                                     WEIR_BAD_INPUT_DEAD_LETTER */
    uint64_t split_size_bytes; /* > 0: split each file into byte ranges of this
                                  size */
    int64_t monitor_interval_ms; /* > 0: keep looking for new files this often
                                    (unbounded) */
    weir_clock clock; /* drives monitoring; now_ms NULL: the system clock */
    size_t read_buffer_bytes; /* 0: 1 MiB */
    size_t max_record_bytes;  /* 0: 16 MiB; a longer record is bad input */
    /* true: local files are read with pread() into the read buffer; false
     * (the default): a regular local file is mapped and decoded in place
     * ('source.read-mode' = 'read' / 'map') */
    bool read_no_map;
    size_t map_window_bytes; /* mapped: the most mapped at a time; 0: 64 MiB */
    /* Columns of the schema the table's event time is computed from
     * (borrowed for the call; copied): a record where one is NULL or missing
     * has no event time and is bad input. event_time names the event-time
     * column for messages. */
    const uint32_t *event_time_fields;
    uint32_t n_event_time_fields;
    const char *event_time;
    /*
     * A partitioned table (PARTITIONED BY; copied): the columns of the schema
     * named here are not in the files but in the folder names below path,
     * one level per key: path/k1=v1/k2=v2/... (Flink's layout; values
     * escaped as the filesystem sink writes them; the default name is NULL;
     * a value is CAST from its text to the column's type). Files above the
     * partition level are not read. The other columns, in schema order, are
     * the files' columns.
     */
    const char *const *partition_keys;
    uint32_t n_partition_keys;
    const char *partition_default_name; /* NULL: __DEFAULT_PARTITION__ */
    /* Partition pruning: a partition whose values (one row of the partition
     * columns in partition_keys order) this predicate does not make TRUE is
     * not read. Borrowed: it must outlive the source. NULL: none. */
    const struct weir_expr *partition_filter;
    /*
     * Metadata columns (`c TYPE METADATA FROM 'key'`), each {column name,
     * key} (copied): the columns of the schema named here are not in the
     * files; every row gets its file's 'file.path' (STRING, the absolute
     * path; an object's s3:// URL), 'file.name' (STRING, the last part of
     * the path), 'file.size' (BIGINT, bytes, as the file was when its split
     * was opened) or 'file.modification-time' (TIMESTAMP_LTZ(3), local
     * files only). A name not in the schema is skipped (not read).
     */
    const weir_option *metadata_columns;
    uint32_t n_metadata_columns;
} weir_file_source_config;

void weir_file_source_config_init(weir_file_source_config *cfg);
int weir_file_source_spec(const weir_file_source_config *cfg,
                          const weir_schema *schema, weir_source_spec *out,
                          weir_error *err);
int weir_file_source_spec_opts(const weir_option *opts, size_t n_opts,
                               const weir_schema *schema,
                               const weir_connector_env *env,
                               weir_source_spec *out, weir_error *err);

/* ---- datagen source ---- */

typedef enum weir_datagen_kind {
    WEIR_DATAGEN_RANDOM =
        0, /* uniform in [min, max]; strings of `length` hex characters */
    WEIR_DATAGEN_SEQUENCE, /* start, start+1, ..., end; the source ends with the
                              sequence */
} weir_datagen_kind;

typedef struct weir_datagen_field {
    const char *name; /* column name (copied) */
    weir_datagen_kind kind;
    /* SEQUENCE bounds, inclusive: integers, DECIMAL unscaled, timestamps in
     * epoch ms. */
    int64_t start, end;
    /* RANDOM bounds: integers, DECIMAL unscaled, timestamps (epoch ms) use the
     * _i pair, DOUBLE the _f pair; unset bounds default to the type's range. */
    bool has_min, has_max;
    int64_t min_i, max_i;
    double min_f, max_f;
    uint32_t length;  /* random STRING/BYTES length (0: 100, as Flink) */
    bool var_len;     /* random STRING/BYTES: length uniform in [1, length] */
    double null_rate; /* fraction of NULL values, 0..1 */
    int64_t
        max_past_ms; /* random timestamps without bounds: now - [0, max_past] */
} weir_datagen_field;

typedef struct weir_datagen_config {
    double rows_per_second; /* over all subtasks; 0: as fast as possible */
    int64_t number_of_rows; /* < 0: unbounded (unless a sequence field ends) */
    uint64_t seed;          /* the same seed gives the same rows */
    weir_clock clock; /* rate limiting and max_past; now_ms NULL: system */
    const weir_datagen_field *fields; /* columns not listed are random */
    uint32_t n_fields;
} weir_datagen_config;

void weir_datagen_config_init(weir_datagen_config *cfg);
int weir_datagen_source_spec(const weir_datagen_config *cfg,
                             const weir_schema *schema, weir_source_spec *out,
                             weir_error *err);
int weir_datagen_source_spec_opts(const weir_option *opts, size_t n_opts,
                                  const weir_schema *schema,
                                  const weir_connector_env *env,
                                  weir_source_spec *out, weir_error *err);

/* ---- print sink ---- */

typedef struct weir_print_sink_config {
    const char
        *identifier;     /* 'print-identifier': prefix of every line, or NULL */
    bool standard_error; /* 'standard-error': stderr instead of stdout */
    FILE *out;           /* if set, write here (not closed by weir) */
    int fd; /* if >= 0 (and out is NULL), write here (not closed); -1 by init */
} weir_print_sink_config;

void weir_print_sink_config_init(weir_print_sink_config *cfg);
int weir_print_sink_spec(const weir_print_sink_config *cfg,
                         weir_operator_spec *out, weir_error *err);
int weir_print_sink_spec_opts(const weir_option *opts, size_t n_opts,
                              const weir_schema *schema,
                              const weir_connector_env *env,
                              weir_operator_spec *out, weir_error *err);

/* ---- file sink ---- */

/* When a partition is committed ('sink.partition-commit.trigger'). */
typedef enum weir_partition_trigger {
    /* clock time >= the partition's creation + delay */
    WEIR_PARTITION_TRIGGER_PROCESS_TIME = 0,
    /* watermark > the time extracted from the partition values + delay */
    WEIR_PARTITION_TRIGGER_PARTITION_TIME,
} weir_partition_trigger;

typedef struct weir_file_sink_config {
    const char *path; /* directory of part files (created if missing) */
    weir_format_options format; /* json, csv or debezium-json */
    uint64_t rolling_file_size; /* roll a part file at this size (0: 128 MiB) */
    int64_t rollover_interval_ms; /* roll a part file open this long (0: 30 min;
                                     < 0: never) */
    weir_clock clock; /* for the rollover interval; now_ms NULL: system */
    /*
     * false: a part file becomes visible as soon as it is complete (rolled or
     * at the end of input). true: complete files stay pending until the
     * checkpoint that covers them completes (exactly-once).
     */
    bool commit_on_checkpoint;
    /*
     * Partitioned output (PARTITIONED BY): rows go to
     * path/<key1>=<v1>/<key2>=<v2>/part-... files, without the key columns.
     * NULL or empty values go to partition_default_name
     * (NULL: "__DEFAULT_PARTITION__").
     */
    const char *const *partition_keys; /* column names; copied */
    uint32_t n_partition_keys;
    const char *partition_default_name;
    /*
     * Partition commit ('sink.partition-commit.*'): with success_file, a
     * success file (success_file_name, NULL: "_SUCCESS") is written into a
     * partition folder once the trigger fires and every file of the
     * partition that this subtask wrote is visible.
     */
    bool success_file;
    const char *success_file_name;
    weir_partition_trigger partition_trigger;
    int64_t partition_commit_delay_ms;
    /* 'partition.time-extractor.timestamp-pattern', e.g. "$dt $hm:00";
     * NULL: the first key's value. The result is read as
     * "yyyy-MM-dd[ HH:mm:ss]" in UTC. */
    const char *partition_time_pattern;
    /*
     * Part files are named "part-<writer>-<run>-<subtask>-<n>.<ext>", so
     * several sinks (or several runs) writing one folder never collide.
     * <writer> is a hash of job_id and the sink's node id in its job graph;
     * <run> is run_id (0: a random one per weir_file_sink_spec call, that
     * is per run). job_id names the job across its runs (copied; the SQL
     * planner passes the absolute checkpoint folder): when set, hidden files
     * an earlier run of the same job and sink left behind are deleted at
     * start (those of this subtask index that no restored checkpoint
     * covers). NULL: only the files of the run that took the restored
     * checkpoint are cleaned up, never files of other writers.
     */
    const char *job_id;
    uint64_t run_id;
} weir_file_sink_config;

void weir_file_sink_config_init(weir_file_sink_config *cfg);
int weir_file_sink_spec(const weir_file_sink_config *cfg,
                        weir_operator_spec *out, weir_error *err);
int weir_file_sink_spec_opts(const weir_option *opts, size_t n_opts,
                             const weir_schema *schema,
                             const weir_connector_env *env,
                             weir_operator_spec *out, weir_error *err);

/* ---- blackhole sink ---- */

typedef struct weir_blackhole_sink_config {
    uint64_t *row_counter; /* if set, every instance adds its rows here
                              (atomically) */
} weir_blackhole_sink_config;

int weir_blackhole_sink_spec(const weir_blackhole_sink_config *cfg,
                             weir_operator_spec *out, weir_error *err);
int weir_blackhole_sink_spec_opts(const weir_option *opts, size_t n_opts,
                                  const weir_schema *schema,
                                  const weir_connector_env *env,
                                  weir_operator_spec *out, weir_error *err);

/* ---- by name, for the SQL layer ---- */

/*
 * Builds the source or sink named by connector ('filesystem', 'datagen',
 * 'print', 'blackhole'); connector NULL takes it from the 'connector' option.
 */
int weir_connector_source_spec(const char *connector, const weir_option *opts,
                               size_t n_opts, const weir_schema *schema,
                               const weir_connector_env *env,
                               weir_source_spec *out, weir_error *err);
int weir_connector_sink_spec(const char *connector, const weir_option *opts,
                             size_t n_opts, const weir_schema *schema,
                             const weir_connector_env *env,
                             weir_operator_spec *out, weir_error *err);
/*
 * A table that a lookup join queries by key rather than reads whole
 * ('connector' = 'jdbc'): key_cols (n_keys columns of schema) are the
 * columns the join's ON clause equates. WEIR_ENOTFOUND (err untouched)
 * when the connector is not one of those; the join then reads the table
 * as a bounded source.
 */
int weir_connector_lookup_spec(const weir_option *opts, size_t n_opts,
                               const weir_schema *schema,
                               const uint32_t *key_cols, uint32_t n_keys,
                               const weir_connector_env *env,
                               weir_lookup_source *out, weir_error *err);

/*
 * Whether a sink built here accepts a changelog (-U/+U/-D rows). If not,
 * *why_not (when not NULL) gets a static sentence saying why and what to use
 * instead, for the planner's error message.
 */
bool weir_sink_spec_accepts_changelog(const weir_operator_spec *spec,
                                      const char **why_not);

/*
 * Whether a sink built here writes in upsert mode: it applies +I/+U as "set
 * the row of its PRIMARY KEY" and -D as "delete the key", and drops -U
 * (jdbc with a PRIMARY KEY, upsert-kafka). Sinks that write every change as
 * it comes (print, debezium-json) are not.
 */
bool weir_sink_spec_is_upsert(const weir_operator_spec *spec);

/* Frees what a spec built here owns (its arg); for specs never handed to a job.
 */
void weir_source_spec_release(weir_source_spec *spec);
void weir_operator_spec_release(weir_operator_spec *spec);

/* ---- option values, as Flink writes them ---- */

/* "10 s", "500ms", "1 min", "2h", "1 d"; a bare number is milliseconds. */
int weir_option_parse_duration(const char *s, int64_t *out_ms);
/* "128MB", "64 kb", "1gb", "100 bytes"; units are powers of 1024 as in Flink.
 */
int weir_option_parse_size(const char *s, uint64_t *out_bytes);
/* "true" / "false", case-insensitive. */
int weir_option_parse_bool(const char *s, bool *out);

#ifdef __cplusplus
}
#endif
#endif
