/*
 * connector/kafka/kafka_internal.h - what the Kafka source and sink share:
 * the client configuration built from a table's WITH options.
 * Internal-but-shared; compiled only with librdkafka (WEIR_HAVE_KAFKA).
 */
#ifndef WEIR_KAFKA_INTERNAL_H
#define WEIR_KAFKA_INTERNAL_H

#ifdef WEIR_HAVE_KAFKA

#include <librdkafka/rdkafka.h>

#include "connector/connector_internal.h"

/*
 * Builds a librdkafka configuration from o's 'properties.*' options, as
 * Flink passes them to its Kafka clients: every 'properties.<name>' that no
 * one consumed before the call becomes rd_kafka_conf_set(<name>, value) and
 * is marked used (a connector reads the few properties it interprets itself,
 * such as 'properties.commit.offsets.on.checkpoint', before calling).
 * 'properties.bootstrap.servers' is required. An error names the option and
 * carries librdkafka's reason. *out is the caller's (rd_kafka_conf_destroy,
 * or handed to rd_kafka_new); NULL on error.
 */
int weir__kafka_conf_from_options(weir__optset *o, rd_kafka_conf_t **out);

/* The values of 'value.fields-include' (source and sink), for
 * weir__opt_choice: 'ALL' (0) or 'EXCEPT_KEY' (1), in any case (an enum option). */
extern const char *const weir__fields_include[];

#endif
#endif
