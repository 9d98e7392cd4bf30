/*
 * rest/rest.h - what `weir run` serves beside a running job: the REST API,
 * Prometheus /metrics and the web UI over HTTP (libmicrohttpd), and the
 * watermark watch that says on stderr which input holds an operator's
 * watermark back (docs/rest.md).
 *
 * weir_rest_start starts the monitor (a thread sampling the job once per
 * interval: rates, busy and backpressured time, checkpoint history, who
 * holds each watermark) and, unless rest.enabled is false, the HTTP server
 * on rest.bind-address / rest.address (127.0.0.1 by default) at rest.port
 * (8081, or the next free port). Actions (savepoint, stop, cancel) need the
 * token weir writes to a file only the user can read. weir_rest_stop after
 * the job ended (before it is destroyed).
 */
#ifndef WEIR_REST_REST_H
#define WEIR_REST_REST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "weir/buf.h"
#include "weir/common.h"
#include "weir/job.h"

typedef struct weir_rest weir_rest;

typedef struct weir_rest_config {
    bool enabled;            /* rest.enabled (true) */
    bool enabled_explicitly; /* rest.enabled was given (an error then is fatal) */
    char bind_address[256];  /* rest.bind-address, else rest.address */
    uint32_t port_lo, port_hi; /* rest.port: "8081" is 8081..8180, "a-b", "0" any */
    char job_name[256];      /* pipeline.name, else the script's name */
    char job_id[33];         /* the job id (weir list's); "": a random one */
    int64_t sample_ms;       /* how often the monitor samples (1000) */
    int64_t stall_warn_ms;   /* weir.watermark.stall-warning (30 s; 0: off) */
    char token_dir[512];     /* "" : $XDG_RUNTIME_DIR/weir or /tmp/weir-<uid> */
    FILE *log;               /* where the address and warnings go (stderr) */
    /* If set, lines go here instead of to log (the weir command's levelled
     * logger): text without a "weir: " prefix or newline; warn: a warning. */
    void (*log_line)(void *ud, bool warn, const char *text);
    void *log_ud;
    /* GET /cluster: the processes of a job run by several, as of the
     * request (NUL-terminated JSON into out; cluster/cluster.h); called
     * until weir_rest_stop with cluster_ud. NULL: 404. */
    int (*cluster_json)(void *ud, weir_buf *out);
    void *cluster_ud;
} weir_rest_config;

/*
 * Defaults, then the keys found through get (NULL: not set). err names the
 * key and the value on a bad one. script_file names the job when
 * pipeline.name is not set.
 */
int weir_rest_config_load(weir_rest_config *cfg, const char *(*get)(void *ud, const char *key), void *ud,
                          const char *script_file, weir_error *err);

/* Starts the monitor and the server for a started job (job borrowed: it
 * must live until weir_rest_stop). */
int weir_rest_start(weir_job *job, const weir_rest_config *cfg, weir_rest **out, weir_error *err);
/* "http://127.0.0.1:8081/" or "" when the server is off (valid until stop). */
const char *weir_rest_url(const weir_rest *r);
/* The token file's path, "" when the server is off. */
const char *weir_rest_token_path(const weir_rest *r);
/* Stops the server and the monitor, removes the token file. NULL is fine. */
void weir_rest_stop(weir_rest *r);

#endif
