/*
 * connector/postgres/cdc_internal.h - the postgres-cdc source and the jdbc
 * lookup table: their constructors (for the connector dispatch) and the
 * helpers they share (cdc_util.c). Internal-but-shared; compiled only with
 * libpq (WEIR_HAVE_POSTGRES).
 */
#ifndef WEIR_PG_CDC_INTERNAL_H
#define WEIR_PG_CDC_INTERNAL_H

#include "connector/postgres/pg_internal.h"

/* Opens a connection from a libpq conninfo string (app: its
 * application_name, may be NULL); err gets the server's message. The
 * session runs in UTC with ISO dates, so timestamps read back as weir
 * writes them. */
int weir__pg_connect_conninfo(const char *conninfo, bool replication, const char *app,
                     PGconn **out, weir_error *err);

/* "1/A2B3C4" <-> LSN. */
int weir__pg_parse_lsn(const char *s, uint64_t *out);
void weir__pg_format_lsn(uint64_t lsn, char buf[32]);

/*
 * Stores PostgreSQL's text output of a value (UTC session, ISO dates,
 * bytea as hex) into (col, row) as the column's type: 0, WEIR_EPARSE,
 * WEIR__ERANGE, WEIR_EUNSUPPORTED or WEIR_ENOMEM.
 */
int weir__pg_text_to_col(weir_batch *b, uint32_t col, uint32_t row,
                         const char *p, size_t n);

/* 'connector' = 'postgres-cdc'. */
int weir__pg_cdc_source_spec(const weir_option *opts, size_t n_opts,
                             const weir_schema *schema,
                             const weir_connector_env *env,
                             weir_source_spec *out, weir_error *err);

/* 'connector' = 'jdbc' as a lookup join's table queried by key. */
int weir__pg_lookup_spec(const weir_option *opts, size_t n_opts,
                         const weir_schema *schema, const uint32_t *key_cols,
                         uint32_t n_keys, const weir_connector_env *env,
                         weir_lookup_source *out, weir_error *err);

#endif
