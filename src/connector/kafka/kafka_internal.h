/*
 * connector/kafka/kafka_internal.h - what the Kafka connectors share: the
 * client configuration built from a table's 'properties.*' options.
 * Internal-but-shared; compiled only with librdkafka (WEIR_HAVE_KAFKA).
 */
#ifndef WEIR_KAFKA_INTERNAL_H
#define WEIR_KAFKA_INTERNAL_H

#include <librdkafka/rdkafka.h>

#include "connector/connector_internal.h"

/*
 * Builds a librdkafka configuration from every 'properties.<name>' option
 * of o (marked used): each is passed to rd_kafka_conf_set as <name>, as
 * Flink passes them to the Kafka client. 'properties.bootstrap.servers' is
 * required. An error names the option and quotes librdkafka's reason.
 * *out is the caller's (rd_kafka_conf_destroy) on success.
 */
int weir__kafka_conf_from_options(weir__optset *o, rd_kafka_conf_t **out);

#endif
