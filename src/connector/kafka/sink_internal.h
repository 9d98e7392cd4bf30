/*
 * connector/kafka/sink_internal.h - what the Kafka sink's option reader
 * (sink_options.c) hands its operator (sink.c): one read-only argument
 * shared by every subtask of the sink.
 */
#ifndef WEIR_KAFKA_SINK_INTERNAL_H
#define WEIR_KAFKA_SINK_INTERNAL_H

#include "connector/kafka/kafka_internal.h"
#include "connector/kafka/sink.h"

typedef enum ksink_guarantee {
    KSINK_NONE = 0,
    KSINK_AT_LEAST_ONCE,
    KSINK_EXACTLY_ONCE,
} ksink_guarantee;

typedef enum ksink_partitioner {
    KSINK_PART_DEFAULT = 0, /* Kafka's: murmur2 of the key, else any */
    KSINK_PART_FIXED,       /* subtask i writes partition i mod n */
    KSINK_PART_ROUND_ROBIN, /* each message to the next partition */
} ksink_partitioner;

/* How one side of a message (key or value) is written. */
typedef struct ksink_side {
    bool present;            /* false: no key (the message key is null) */
    bool raw;                /* 'raw': the one column's bytes as they are */
    weir_format_options fmt; /* otherwise: json, csv or debezium-json */
    weir_schema *schema;     /* the side's columns, named as written */
    uint32_t *cols;          /* their index in the table's schema */
} ksink_side;

typedef struct ksink_arg {
    bool upsert;
    char *topic;
    rd_kafka_conf_t *conf; /* template: each producer takes a copy */
    ksink_guarantee guarantee;
    char *tid_prefix; /* 'sink.transactional-id-prefix' (exactly-once) */
    ksink_partitioner partitioner;
    ksink_side key, value;
    /* upsert: 'sink.buffer-flush.*'; max_rows 0: no buffer */
    int64_t buffer_max_rows;
    int64_t buffer_interval_ms;
    weir_clock clock;
    /* WEIR_KAFKA_SINK_LOG at spec time: the test seam (see sink.c). */
    char *event_log;
} ksink_arg;

/* The factory of the sink's instances (sink.c). */
int weir__kafka_sink_create(void *arg, const weir_op_info *info, void **out);

#endif
