/*
 * connector/postgres/pg_internal.h - what the PostgreSQL connectors share:
 * opening a connection from the jdbc WITH options. Internal-but-shared;
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

#endif
