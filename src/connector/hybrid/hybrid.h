/*
 * connector/hybrid/hybrid.h - 'connector' = 'hybrid': a bounded history
 * and then the live topic as one source (see hybrid.c for the switch
 * rules). Internal-but-shared: the connector dispatch calls it.
 */
#ifndef WEIR_HYBRID_H
#define WEIR_HYBRID_H

#include "connector/connector_internal.h"

extern const weir_source_class weir__hybrid_source_class;

int weir__hybrid_source_spec_opts(const weir_option *opts, size_t n_opts,
                                  const weir_schema *schema,
                                  const weir_connector_env *env,
                                  weir_source_spec *out, weir_error *err);

#endif
