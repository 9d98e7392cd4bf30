/*
 * connector/kafka/sink.h - the Kafka sinks: 'kafka' (append rows, or a
 * debezium-json changelog) and 'upsert-kafka' (a changelog keyed by the
 * table's PRIMARY KEY, -D as a tombstone). Internal-but-shared: the
 * connector dispatch in connector/options.c builds them by name.
 * Compiled only with librdkafka (WEIR_HAVE_KAFKA).
 */
#ifndef WEIR_KAFKA_SINK_H
#define WEIR_KAFKA_SINK_H

#include "weir/connector.h"

/* 'connector' = 'kafka' ('upsert' false) or 'upsert-kafka' ('upsert' true).
 * The upsert sink takes its key from env->primary_keys. */
int weir__kafka_sink_spec_opts(bool upsert, const weir_option *opts,
                               size_t n_opts, const weir_schema *schema,
                               const weir_connector_env *env,
                               weir_operator_spec *out, weir_error *err);

extern const weir_operator_class weir__kafka_sink_class;

/* For weir_sink_spec_accepts_changelog: the upsert sink and a kafka sink
 * writing debezium-json take a changelog; the others say why not. */
bool weir__kafka_sink_accepts_changelog(const weir_operator_spec *spec,
                                        const char **why_not);
/* For weir_sink_spec_is_upsert: an upsert-kafka sink. */
bool weir__kafka_sink_is_upsert(const weir_operator_spec *spec);

#endif
