/*
 * connector/postgres/jdbc_sink.h - the 'jdbc' sink (PostgreSQL), for the
 * connector dispatch (internal-but-shared).
 */
#ifndef WEIR_CONNECTOR_JDBC_SINK_H
#define WEIR_CONNECTOR_JDBC_SINK_H

#include "weir/connector.h"

/* Builds the sink from its WITH options ('url', 'table-name', ...). */
int weir__jdbc_sink_spec_opts(const weir_option *opts, size_t n_opts,
                              const weir_schema *schema,
                              const weir_connector_env *env,
                              weir_operator_spec *out, weir_error *err);
/* Whether spec is a jdbc sink, and then (*upsert) whether it writes in
 * upsert mode (the table declares a PRIMARY KEY). */
bool weir__jdbc_sink_is(const weir_operator_spec *spec, bool *upsert);

#endif
