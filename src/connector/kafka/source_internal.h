/*
 * connector/kafka/source_internal.h - the Kafka source's configuration, as
 * its options build it (source_options.c) and its instances read it
 * (source.c). Internal to connector/kafka/.
 */
#ifndef WEIR_KAFKA_SOURCE_INTERNAL_H
#define WEIR_KAFKA_SOURCE_INTERNAL_H

#include <regex.h>

#include "connector/connector_internal.h"

typedef enum weir__kafka_start {
    WEIR__KAFKA_START_GROUP = 0, /* Flink's default */
    WEIR__KAFKA_START_EARLIEST,
    WEIR__KAFKA_START_LATEST,
    WEIR__KAFKA_START_TIMESTAMP,
    WEIR__KAFKA_START_SPECIFIC,
} weir__kafka_start;

typedef enum weir__kafka_bound {
    WEIR__KAFKA_BOUND_NONE = 0,
    WEIR__KAFKA_BOUND_LATEST,
    WEIR__KAFKA_BOUND_TIMESTAMP,
    WEIR__KAFKA_BOUND_SPECIFIC,
    WEIR__KAFKA_BOUND_GROUP, /* the group's committed offsets */
} weir__kafka_bound;

/* 'properties.auto.offset.reset', for a group without a committed offset. */
typedef enum weir__kafka_reset {
    WEIR__KAFKA_RESET_NONE = 0,
    WEIR__KAFKA_RESET_EARLIEST,
    WEIR__KAFKA_RESET_LATEST,
} weir__kafka_reset;

typedef enum weir__kafka_fmt {
    WEIR__KAFKA_FMT_NONE = 0, /* no key format */
    WEIR__KAFKA_FMT_JSON,
    WEIR__KAFKA_FMT_CSV,
    WEIR__KAFKA_FMT_RAW, /* the whole bytes as one STRING or BYTES column */
} weir__kafka_fmt;

typedef enum weir__kafka_meta {
    WEIR__KAFKA_META_TOPIC,
    WEIR__KAFKA_META_PARTITION,
    WEIR__KAFKA_META_OFFSET,
    WEIR__KAFKA_META_TIMESTAMP,
    WEIR__KAFKA_META_TIMESTAMP_TYPE,
    WEIR__KAFKA_META_HEADERS,
    WEIR__KAFKA_META_LEADER_EPOCH,
} weir__kafka_meta;

typedef struct weir__kafka_offset {
    int32_t partition;
    int64_t offset;
} weir__kafka_offset;

/* The key or the value side of a message. */
typedef struct weir__kafka_format {
    weir__kafka_fmt kind;
    weir_format_options fmt; /* json, csv */
    char *null_literal;      /* owned copy of fmt.csv_null_literal */
    weir_schema *schema;     /* the columns this side decodes (owned) */
    uint32_t *cols;          /* column of the table for each of them */
} weir__kafka_format;

typedef struct weir__kafka_source_arg {
    weir_option *props; /* librdkafka properties (owned strings) */
    size_t n_props;
    char *bootstrap; /* for messages */
    char *group_id;  /* NULL: none */
    bool commit_on_checkpoint;
    char **topics;
    uint32_t n_topics;
    bool has_pattern;
    regex_t pattern;
    weir__kafka_start start;
    int64_t start_ts;
    weir__kafka_offset *start_offsets;
    uint32_t n_start_offsets;
    weir__kafka_reset reset;
    weir__kafka_bound bound;
    int64_t bound_ts;
    weir__kafka_offset *bound_offsets;
    uint32_t n_bound_offsets;
    int64_t discovery_ms; /* <= 0: the partitions found at start only */
    weir_clock clock;
    const weir_schema *schema; /* the table's (borrowed) */
    weir__kafka_format value, key;
    /* The value format decodes every column of the table straight into the
     * output batch (no key format, no metadata columns). */
    bool direct;
    struct {
        uint32_t col;
        weir__kafka_meta kind;
    } *meta;
    uint32_t n_meta;
    bool skip_bad; /* '<format>.ignore-parse-errors' */
    /* 'upsert-kafka': each message is its key's latest row (a tombstone
     * deletes the key); the reader keeps each key's last row to emit
     * +I, -U/+U and -D. */
    bool upsert;
    /* The most rows one message makes (2: an update's -U and +U). */
    uint32_t rows_per_message;
    /* Columns of the table the event time is computed from; decoders treat
     * a NULL there as a bad record. */
    uint32_t *et_cols;
    uint32_t n_et;
    char *event_time;
} weir__kafka_source_arg;

extern const weir_source_class weir__kafka_source_class;

/* Java's String.hashCode of a UTF-8 name, and Flink's owner of a partition. */
uint32_t weir__kafka_java_string_hash(const char *s);
uint32_t weir__kafka_split_owner(const char *topic, int32_t partition,
                                 uint32_t parallelism);

/* The decoders of a's value and key sides (NULL where raw or absent). */
int weir__kafka_make_decoders(const weir__kafka_source_arg *a,
                              weir_decoder **value, weir_decoder **key,
                              weir_error *err);

/* 'connector' = 'kafka' (upsert false) or 'upsert-kafka' as a source. */
int weir__kafka_source_spec_opts(const weir_option *opts, size_t n_opts,
                                 const weir_schema *schema,
                                 const weir_connector_env *env,
                                 weir_source_spec *out, weir_error *err);
int weir__upsert_kafka_source_spec_opts(const weir_option *opts, size_t n_opts,
                                        const weir_schema *schema,
                                        const weir_connector_env *env,
                                        weir_source_spec *out,
                                        weir_error *err);

/* For the hybrid source: the offset a reader of weir__kafka_source_class
 * stands at, and a reader of partition id of instance src (of that class)
 * that starts at offset, whatever the startup mode says. */
int64_t weir__kafka_reader_offset(const void *reader);
int weir__kafka_open_at(void *src, const char *id, int64_t offset,
                        void **out, weir_error *err);

#endif
