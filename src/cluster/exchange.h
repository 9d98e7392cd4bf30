/*
 * cluster/exchange.h - a keyed exchange between processes through a
 * repartition topic (cluster.h): its writer (a sink operator) and its
 * reader (a source whose splits are the topic's partitions).
 *
 * Every Kafka message of a repartition topic starts with a header:
 *   u8 'W', u8 type, u32 producer, u32 epoch   (little endian)
 * then, by type: BATCH a batch of rows (runtime/checkpoint.h's in-flight
 * message format: event times, row kinds, columns), WATERMARK an i64, END
 * nothing, BARRIER the u64 id of a checkpoint, IDLE and ACTIVE nothing (the
 * producer's input went idle, or active again). A producer is one writer
 * subtask of one process: process index * writer parallelism + subtask.
 * Partition r holds the key groups of range r of
 * weir.cluster.repartition-partitions (weir_key_group_owner).
 */
#ifndef WEIR_CLUSTER_EXCHANGE_H
#define WEIR_CLUSTER_EXCHANGE_H

#include "weir/key.h"
#include "weir/operator.h"
#include "weir/source.h"

typedef struct weir__cluster_conf {
    const char *servers; /* borrowed */
    uint32_t processes;  /* N */
    uint32_t index;      /* this process, 0 .. N-1 */
    uint32_t partitions; /* of every repartition topic */
    uint32_t epoch;      /* records of other epochs are dropped */
    /* automatic membership (control.h): index comes from the control
     * topic; heartbeats and the session timeout, in ms */
    bool auto_index;
    int64_t heartbeat_ms, session_timeout_ms;
    /* The run restores a savepoint (not a checkpoint of its control
     * topic): readers do not go on from its offsets, writers and readers
     * hold every producer active. */
    bool from_savepoint;
} weir__cluster_conf;

typedef struct weir__exchange_spec {
    weir__cluster_conf conf;
    const char *topic;          /* borrowed */
    const weir_schema *schema;  /* the rows exchanged; outlives the job */
    weir_keyspec key;
    uint32_t max_parallelism;   /* key groups */
    uint32_t writer_parallelism;
    /* The keyed operator's parallelism p in each process: partition r is
     * read in process (r mod N·p) / p, by the one reader subtask of that
     * process (the reader runs at parallelism 1 in each process, so that
     * each subtask of the operator has one input channel, as it has one
     * per producer inside a process: exact lateness). */
    uint32_t reader_share;
} weir__exchange_spec;

enum {
    WEIR__X_BATCH = 1,
    WEIR__X_WATERMARK = 2,
    WEIR__X_END = 3,
    WEIR__X_BARRIER = 4, /* u64 checkpoint id */
    /* The producer's input is idle: readers leave it out of the watermark
     * minimum until it sends ACTIVE, rows or a watermark. */
    WEIR__X_IDLE = 5,
    WEIR__X_ACTIVE = 6,
};

/* How many partitions topic has (0: none, no such topic), asked through
 * the client rk; what names the topic's role in the error. */
struct rd_kafka_s;
int weir__cluster_topic_partitions(struct rd_kafka_s *rk, const char *topic,
                                   const char *what, int32_t *count,
                                   weir_error *err);
/* Checks that the topic exists with conf.partitions partitions. */
int weir__exchange_check_topic(const weir__exchange_spec *x, weir_error *err);
/* Whether s is a repartition reader's spec (of weir__exchange_specs). */
bool weir__exchange_is_reader(const weir_source_spec *s);
/* The writer's and the reader's specs, each with its own copy of x. */
int weir__exchange_specs(const weir__exchange_spec *x,
                         weir_operator_spec *writer, weir_source_spec *reader,
                         weir_error *err);

#endif
