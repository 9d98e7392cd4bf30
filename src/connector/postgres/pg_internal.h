/*
 * connector/postgres/pg_internal.h - what the PostgreSQL connectors share:
 * opening a connection from WITH options, and the constructors of the
 * postgres-cdc source and the jdbc lookup table. Internal-but-shared;
 * compiled only with libpq (WEIR_HAVE_POSTGRES).
 */
#ifndef WEIR_PG_INTERNAL_H
#define WEIR_PG_INTERNAL_H

#include <libpq-fe.h>

#include "connector/connector_internal.h"

/*
 * Connects with the jdbc options 'url' (jdbc:postgresql://host[:port]/db),
 * 'username' and 'password' (marked used). *out is transferred to the
 * caller (PQfinish). The error names the option or the server's message.
 */
int weir__pg_connect_options(weir__optset *o, PGconn **out);

/* Opens a connection from a libpq conninfo string (app: its
 * application_name, may be NULL); err gets the server's message. The
 * session runs in UTC with ISO dates, so timestamps read back as weir
 * writes them. */
int weir__pg_connect(const char *conninfo, bool replication, const char *app,
                     PGconn **out, weir_error *err);

/* "1/A2B3C4" <-> LSN. */
int weir__pg_parse_lsn(const char *s, uint64_t *out);
void weir__pg_format_lsn(uint64_t lsn, char buf[32]);

/* 'connector' = 'postgres-cdc'. */
int weir__pg_cdc_source_spec(const weir_option *opts, size_t n_opts,
                             const weir_schema *schema,
                             const weir_connector_env *env,
                             weir_source_spec *out, weir_error *err);

#endif
