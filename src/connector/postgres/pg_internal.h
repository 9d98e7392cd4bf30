/*
 * connector/postgres/pg_internal.h - what the PostgreSQL connectors share
 * (internal-but-shared): the connection options ('url', 'username',
 * 'password') turned into libpq parameters, connecting with a message that
 * says where, and quoting of identifiers and literals.
 *
 * Compiled only when libpq is found (WEIR_HAVE_POSTGRES).
 *
 * 'url' is a JDBC URL, as Flink's JDBC connector takes it:
 *   jdbc:postgresql://host[:port][,host2[:port2]...][/database][?k=v&...]
 *   jdbc:postgresql:database            (localhost:5432)
 * Query parameters: user, password, sslmode, connectTimeout (seconds),
 * ApplicationName, currentSchema (the search_path), options; every other
 * one is refused with the closest known name. 'username' and 'password'
 * options win over user/password in the URL.
 */
#ifndef WEIR_CONNECTOR_PG_INTERNAL_H
#define WEIR_CONNECTOR_PG_INTERNAL_H

#ifdef WEIR_HAVE_POSTGRES
#include <libpq-fe.h>

#include "connector/connector_internal.h"
#include "weir/buf.h"

#define WEIR__PG_MAX_PARAMS 16

/* libpq's keyword/value parameters for one server (all strings owned). */
typedef struct weir__pg_params {
    char *url;     /* as the user wrote it, for messages (password never in it:
                      JDBC URLs carry it as a parameter, which is dropped) */
    char *where;   /* "host:port/database", for messages */
    const char *keys[WEIR__PG_MAX_PARAMS + 1]; /* NULL-terminated */
    char *vals[WEIR__PG_MAX_PARAMS + 1];
    unsigned n;
} weir__pg_params;

/*
 * Parses a JDBC URL into p (user and password as given, may be NULL: then
 * the URL's parameters, then libpq's defaults). On error, err says what is
 * wrong with the URL and where (the byte offset in it).
 */
int weir__pg_params_parse(const char *url, const char *user,
                          const char *password, weir__pg_params *p,
                          weir_error *err);
void weir__pg_params_fini(weir__pg_params *p);
/* Copies src into dst (for a spec's arg shared by instances). */
int weir__pg_params_copy(weir__pg_params *dst, const weir__pg_params *src);

/* Reads 'url' (required), 'username' and 'password' from o into p. */
int weir__pg_params_options(weir__optset *o, weir__pg_params *p);

/*
 * Connects; the session then speaks UTF-8, reads and writes timestamps in
 * UTC and uses standard-conforming strings. On failure err says which
 * server and why (libpq's message), *out is NULL.
 */
int weir__pg_connect(const weir__pg_params *p, PGconn **out, weir_error *err);

/* Reads url/username/password from o and connects; an error names 'url'. */
int weir__pg_connect_options(weir__optset *o, PGconn **out);

/* Appends name as a quoted identifier ("a""b"). */
int weir__pg_put_ident(weir_buf *b, const char *name);
/* Appends s[0..n) as a quoted string literal ('it''s'). */
int weir__pg_put_literal(weir_buf *b, const char *s, size_t n);

/* The last error of res (or of conn when res is NULL) as one line, with its
 * SQLSTATE: "ERROR: relation "x" does not exist (SQLSTATE 42P01)". */
const char *weir__pg_error(PGconn *conn, const PGresult *res, char *buf,
                           size_t cap);
/* Whether the connection is gone (server restarted, network). */
bool weir__pg_conn_lost(PGconn *conn);

#endif
#endif
