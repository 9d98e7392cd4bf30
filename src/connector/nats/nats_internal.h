/*
 * connector/nats/nats_internal.h - NATS JetStream as a source and a sink
 * ('connector' = 'nats'): the connection options both share (conn.c), the
 * source's and the sink's arguments (source.c, sink.c). Internal to
 * connector/nats/ and the connector registry.
 */
#ifndef WEIR_NATS_INTERNAL_H
#define WEIR_NATS_INTERNAL_H

#include "connector/connector_internal.h"

#ifdef WEIR_HAVE_NATS
#include <nats/nats.h>

/* 'servers' and the credentials options. */
typedef struct weir__nats_conn {
    char **servers; /* "nats://host:port", ... */
    uint32_t n_servers;
    char *servers_text; /* for messages */
    char *user, *password, *token, *creds_file;
    int64_t connect_timeout_ms;
} weir__nats_conn;

/* Reads 'servers', 'username', 'password', 'token', 'credentials-file'
 * and 'connect.timeout' into c. */
int weir__nats_conn_read(weir__optset *o, weir__nats_conn *c);
void weir__nats_conn_fini(weir__nats_conn *c);
/* Connects and opens a JetStream context; what names the calling side
 * ("source", "sink") in messages. jo may be NULL. */
int weir__nats_connect(const weir__nats_conn *c, const jsOptions *jo,
                       natsConnection **nc, jsCtx **js, weir_error *err);
/* The text of a failed call: the JetStream error code when there is one. */
const char *weir__nats_why(natsStatus s, jsErrCode jerr, char *buf,
                           size_t len);

/* The option names both sides know, for suggestions. */
#define WEIR__NATS_CONN_OPTIONS                                              \
    "servers", "username", "password", "token", "credentials-file",         \
        "connect.timeout"
#endif

int weir__nats_source_spec_opts(const weir_option *opts, size_t n_opts,
                                const weir_schema *schema,
                                const weir_connector_env *env,
                                weir_source_spec *out, weir_error *err);
int weir__nats_sink_spec_opts(const weir_option *opts, size_t n_opts,
                              const weir_schema *schema,
                              const weir_connector_env *env,
                              weir_operator_spec *out, weir_error *err);
/* Whether a NATS sink spec accepts a changelog (1 or 0, *why_not set when
 * not); -1 when spec is not a NATS sink. */
int weir__nats_sink_accepts_changelog(const weir_operator_spec *spec,
                                      const char **why_not);

#endif
