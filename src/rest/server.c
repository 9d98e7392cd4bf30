/*
 * rest/server.c - the HTTP side of rest/rest.h: configuration, the
 * listening socket, the token, routing, and the actions.
 *
 * The server (libmicrohttpd, one internal polling thread) answers GETs at
 * once from what the monitor keeps (routes.c, metrics.c) and the UI's
 * files (assets.h). Actions need "Authorization: Bearer <token>": none is
 * 401, a wrong one 403. The token is 32 random bytes in hex, written to
 * rest-<pid>.token in a folder only the user can enter ($XDG_RUNTIME_DIR/weir,
 * else /tmp/weir-<uid>), mode 0600, removed at the end. An action that
 * waits (a savepoint) runs on its own thread and answers 202 with a
 * request id to poll (GET /jobs/:id/savepoints/:request-id), as Flink's
 * asynchronous operations do; weir_rest_stop joins those threads.
 *
 * The socket is bound here (not by libmicrohttpd) so that the port can be
 * chosen: the first free one of a range, or any (port 0), and so that the
 * address is exactly the one configured: 127.0.0.1 unless asked otherwise.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifdef WEIR_HAVE_MICROHTTPD
#include <microhttpd.h>
#endif

#include "rest/assets.h"
#include "rest/rest_internal.h"
#include "weir/connector.h"

#define DEFAULT_PORT 8081
#define PORT_TRIES 100
#define MAX_BODY (64 * 1024)

/* ---- configuration ---- */

static int parse_port(const char *v, uint32_t *lo, uint32_t *hi)
{
    char *end;
    unsigned long a = strtoul(v, &end, 10);
    if (end == v || a > 65535)
        return WEIR_EINVAL;
    unsigned long b = a;
    if (*end == '-') {
        const char *p = end + 1;
        b = strtoul(p, &end, 10);
        if (end == p || b > 65535 || b < a || a == 0)
            return WEIR_EINVAL;
    }
    if (*end)
        return WEIR_EINVAL;
    *lo = (uint32_t)a;
    *hi = (uint32_t)b;
    return 0;
}

int weir_rest_config_load(weir_rest_config *cfg, const char *(*get)(void *ud, const char *key), void *ud,
                          const char *script_file, weir_error *err)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->enabled = true;
    snprintf(cfg->bind_address, sizeof cfg->bind_address, "127.0.0.1");
    cfg->port_lo = DEFAULT_PORT;
    cfg->port_hi = DEFAULT_PORT + PORT_TRIES - 1;
    cfg->sample_ms = 1000;
    cfg->stall_warn_ms = 30000;
    cfg->log = stderr;
    const char *base = script_file ? strrchr(script_file, '/') : NULL;
    base = base ? base + 1 : (script_file ? script_file : "weir job");
    size_t bl = strlen(base);
    if (bl > 4 && !strcmp(base + bl - 4, ".sql"))
        bl -= 4;
    snprintf(cfg->job_name, sizeof cfg->job_name, "%.*s", (int)bl, base);
    const char *v;
    if ((v = get(ud, "rest.enabled"))) {
        if (weir_option_parse_bool(v, &cfg->enabled))
            return weir_error_set(err, WEIR_EINVAL, "rest.enabled: expected 'true' or 'false', got '%s'", v);
        cfg->enabled_explicitly = true;
    }
    if ((v = get(ud, "rest.bind-address")) || (v = get(ud, "rest.address"))) {
        if (!*v || strlen(v) >= sizeof cfg->bind_address)
            return weir_error_set(err, WEIR_EINVAL, "rest.address: expected a host name or an IP address, got '%s'",
                                  v);
        snprintf(cfg->bind_address, sizeof cfg->bind_address, "%s", v);
        cfg->enabled_explicitly = true;
    }
    const char *pk = get(ud, "rest.bind-port") ? "rest.bind-port" : "rest.port";
    if ((v = get(ud, pk))) {
        if (parse_port(v, &cfg->port_lo, &cfg->port_hi))
            return weir_error_set(err, WEIR_EINVAL,
                                  "%s: expected a port (0: any free one) or a range such as '8081-8090', got '%s'",
                                  pk, v);
        cfg->enabled_explicitly = true;
    }
    if ((v = get(ud, "pipeline.name")) && *v)
        snprintf(cfg->job_name, sizeof cfg->job_name, "%s", v);
    int64_t ms;
    if ((v = get(ud, "metrics.fetcher.update-interval"))) {
        if (weir_option_parse_duration(v, &ms) || ms < 10 || ms > 3600000)
            return weir_error_set(err, WEIR_EINVAL,
                                  "metrics.fetcher.update-interval: expected a duration from 10 ms to 1 h, got '%s'",
                                  v);
        cfg->sample_ms = ms;
    }
    if ((v = get(ud, "weir.watermark.stall-warning"))) {
        if (weir_option_parse_duration(v, &ms) || ms < 0)
            return weir_error_set(err, WEIR_EINVAL,
                                  "weir.watermark.stall-warning: expected a duration such as '30 s' (0: never), "
                                  "got '%s'",
                                  v);
        cfg->stall_warn_ms = ms;
    }
    return 0;
}

/* ---- randomness, token ---- */

static int random_hex(char *out, size_t n_bytes)
{
    unsigned char b[64];
    if (n_bytes > sizeof b)
        return WEIR_EINVAL;
    size_t got = 0;
    while (got < n_bytes) {
        ssize_t k = getrandom(b + got, n_bytes - got, 0);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return WEIR_EIO;
        }
        got += (size_t)k;
    }
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < n_bytes; i++) {
        out[2 * i] = hex[b[i] >> 4];
        out[2 * i + 1] = hex[b[i] & 15];
    }
    out[2 * n_bytes] = 0;
    return 0;
}

/* A folder for the token that only this user can enter. */
static int token_folder(const weir_rest_config *cfg, char *out, size_t cap, weir_error *err)
{
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    if (cfg->token_dir[0])
        snprintf(out, cap, "%s", cfg->token_dir);
    else if (xdg && *xdg == '/')
        snprintf(out, cap, "%s/weir", xdg);
    else
        snprintf(out, cap, "/tmp/weir-%u", (unsigned)geteuid());
    if (mkdir(out, 0700) != 0 && errno != EEXIST)
        return weir_error_set(err, WEIR_EIO, "cannot create the folder for the REST token %s: %s", out,
                              strerror(errno));
    struct stat st;
    if (lstat(out, &st) != 0)
        return weir_error_set(err, WEIR_EIO, "%s: %s", out, strerror(errno));
    if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077))
        return weir_error_set(err, WEIR_EIO,
                              "%s: not a folder of this user's that only this user can enter (mode 0700); the "
                              "REST token is not written there",
                              out);
    return 0;
}

static int write_token(weir_rest *r, weir_error *err)
{
    char dir[512];
    int rc = token_folder(&r->cfg, dir, sizeof dir, err);
    if (rc)
        return rc;
    if ((rc = random_hex(r->token, 32)))
        return weir_error_set(err, rc, "cannot read random bytes for the REST token");
    snprintf(r->token_path, sizeof r->token_path, "%s/rest-%ld.token", dir, (long)getpid());
    unlink(r->token_path); /* a stale one of an earlier process with this pid */
    int fd = open(r->token_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return weir_error_set(err, WEIR_EIO, "cannot create %s: %s", r->token_path, strerror(errno));
    char line[80];
    int n = snprintf(line, sizeof line, "%s\n", r->token);
    bool ok = fchmod(fd, 0600) == 0 && write(fd, line, (size_t)n) == n;
    ok = close(fd) == 0 && ok;
    if (!ok) {
        unlink(r->token_path);
        return weir_error_set(err, WEIR_EIO, "cannot write %s: %s", r->token_path, strerror(errno));
    }
    return 0;
}

#ifdef WEIR_HAVE_MICROHTTPD

/* ---- the socket ---- */

static int bind_socket(weir_rest *r, int *out_fd, weir_error *err)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE};
    struct addrinfo *ai = NULL;
    int g = getaddrinfo(r->cfg.bind_address, NULL, &hints, &ai);
    if (g != 0)
        return weir_error_set(err, WEIR_EINVAL, "rest.address '%s': %s", r->cfg.bind_address, gai_strerror(g));
    int last_errno = 0;
    for (uint32_t port = r->cfg.port_lo; port <= r->cfg.port_hi; port++) {
        for (struct addrinfo *a = ai; a; a = a->ai_next) {
            int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
            if (fd < 0) {
                last_errno = errno;
                continue;
            }
            int one = 1;
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
            struct sockaddr_storage ss;
            memcpy(&ss, a->ai_addr, a->ai_addrlen);
            if (ss.ss_family == AF_INET)
                ((struct sockaddr_in *)&ss)->sin_port = htons((uint16_t)port);
            else
                ((struct sockaddr_in6 *)&ss)->sin6_port = htons((uint16_t)port);
            if (bind(fd, (struct sockaddr *)&ss, a->ai_addrlen) == 0 && listen(fd, 64) == 0) {
                socklen_t len = sizeof ss;
                getsockname(fd, (struct sockaddr *)&ss, &len);
                char host[INET6_ADDRSTRLEN] = "?";
                unsigned bound;
                if (ss.ss_family == AF_INET) {
                    inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, host, sizeof host);
                    bound = ntohs(((struct sockaddr_in *)&ss)->sin_port);
                    snprintf(r->url, sizeof r->url, "http://%s:%u/", host, bound);
                } else {
                    inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, host, sizeof host);
                    bound = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
                    snprintf(r->url, sizeof r->url, "http://[%s]:%u/", host, bound);
                }
                freeaddrinfo(ai);
                *out_fd = fd;
                return 0;
            }
            last_errno = errno;
            close(fd);
        }
        if (last_errno != EADDRINUSE)
            break;
    }
    freeaddrinfo(ai);
    if (r->cfg.port_lo == r->cfg.port_hi)
        return weir_error_set(err, WEIR_EIO, "cannot listen on %s port %u: %s", r->cfg.bind_address,
                              r->cfg.port_lo, strerror(last_errno));
    return weir_error_set(err, WEIR_EIO, "cannot listen on %s, ports %u to %u: %s", r->cfg.bind_address,
                          r->cfg.port_lo, r->cfg.port_hi, strerror(last_errno));
}

/* ---- responses ---- */

static enum MHD_Result respond(struct MHD_Connection *c, unsigned status, const char *type, const void *data,
                               size_t len, const char *extra_header, const char *extra_value)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer(len, (void *)data, MHD_RESPMEM_MUST_COPY);
    if (!resp)
        return MHD_NO;
    MHD_add_response_header(resp, "Content-Type", type);
    MHD_add_response_header(resp, "Cache-Control", "no-store");
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    if (extra_header)
        MHD_add_response_header(resp, extra_header, extra_value);
    enum MHD_Result ret = MHD_queue_response(c, status, resp);
    MHD_destroy_response(resp);
    return ret;
}

static enum MHD_Result respond_buf(struct MHD_Connection *c, unsigned status, const weir_buf *b)
{
    return respond(c, status, "application/json", b->data ? (const void *)b->data : "", b->len, NULL, NULL);
}

static enum MHD_Result respond_error(struct MHD_Connection *c, unsigned status, const char *msg,
                                     const char *extra_header, const char *extra_value)
{
    weir_buf b;
    weir_buf_init(&b);
    jw w;
    jw_init(&w, &b);
    jw_obj(&w, NULL);
    jw_arr(&w, "errors");
    jw_str(&w, NULL, msg);
    jw_end(&w);
    jw_end(&w);
    enum MHD_Result ret = respond(c, status, "application/json", b.data ? (const void *)b.data : "", b.len, extra_header,
                                  extra_value);
    weir_buf_fini(&b);
    return ret;
}

/* ---- actions ---- */

static void *action_main(void *arg)
{
    rest_action *a = arg;
    weir_rest *r = a->r;
    weir_error err = {0};
    const char *dir = a->dir[0] ? a->dir : NULL;
    int rc = 0;
    weir_checkpoint_stats st;
    bool ckpt = weir_job_checkpoint_stats(r->job, &st) == 0;
    if (a->kind == REST_OP_SAVEPOINT) {
        rc = weir_job_savepoint(r->job, dir, a->path, sizeof a->path, &err);
    } else if (a->drain || !ckpt) {
        /* Without checkpoints there is no savepoint to take: a plain stop
         * (its final checkpoint, with checkpoints and --drain). */
        if (a->drain)
            weir_job_stop_drain(r->job);
        else
            weir_job_stop(r->job);
    } else {
        rc = weir_job_stop_with_savepoint(r->job, dir, a->path, sizeof a->path, &err);
    }
    if (rc) {
        snprintf(a->error, sizeof a->error, "%s", err.message[0] ? err.message : weir_strerror(rc));
        atomic_store(&a->state, 2);
        rest_log(r, true, "REST %s failed: %s", a->kind == REST_OP_SAVEPOINT ? "savepoint" : "stop", a->error);
    } else {
        atomic_store(&a->state, 1);
        if (a->path[0])
            rest_log(r, false, "savepoint written to %s%s (asked over REST)", a->path,
                     a->kind == REST_OP_STOP ? "; the job stops" : "");
        else
            rest_log(r, false, "the job stops (asked over REST)");
    }
    return NULL;
}

/* Starts an action; fills id. Returns an HTTP status. */
static unsigned start_action(weir_rest *r, int kind, const char *dir, bool drain, char *id)
{
    pthread_mutex_lock(&r->act_mu);
    if (r->n_acts == REST_MAX_OPS) {
        pthread_mutex_unlock(&r->act_mu);
        return 429;
    }
    rest_action *a = &r->acts[r->n_acts];
    memset(a, 0, sizeof *a);
    a->kind = kind;
    a->drain = drain;
    a->r = r;
    snprintf(a->dir, sizeof a->dir, "%s", dir ? dir : "");
    if (random_hex(a->id, 16)) {
        pthread_mutex_unlock(&r->act_mu);
        return 500;
    }
    if (pthread_create(&a->thread, NULL, action_main, a)) {
        pthread_mutex_unlock(&r->act_mu);
        return 500;
    }
    a->thread_started = true;
    r->n_acts++;
    memcpy(id, a->id, sizeof a->id);
    pthread_mutex_unlock(&r->act_mu);
    return 202;
}

static enum MHD_Result action_status(weir_rest *r, struct MHD_Connection *c, const char *rid)
{
    weir_buf b;
    weir_buf_init(&b);
    jw w;
    jw_init(&w, &b);
    unsigned status = 404;
    pthread_mutex_lock(&r->act_mu);
    for (uint32_t i = 0; i < r->n_acts; i++) {
        rest_action *a = &r->acts[i];
        if (strcmp(a->id, rid) != 0)
            continue;
        int s = atomic_load(&a->state);
        status = 200;
        jw_obj(&w, NULL);
        jw_obj(&w, "status");
        jw_str(&w, "id", s ? "COMPLETED" : "IN_PROGRESS");
        jw_end(&w);
        if (s) {
            jw_obj(&w, "operation");
            if (s == 1)
                jw_str(&w, "location", a->path[0] ? a->path : NULL);
            else {
                jw_obj(&w, "failure-cause");
                jw_str(&w, "class", "weir.SavepointFailure");
                jw_str(&w, "stack-trace", a->error);
                jw_end(&w);
            }
            jw_end(&w);
        }
        jw_end(&w);
    }
    pthread_mutex_unlock(&r->act_mu);
    enum MHD_Result ret =
        status == 200 ? respond_buf(c, 200, &b) : respond_error(c, 404, "Not found: no such request id", NULL, NULL);
    weir_buf_fini(&b);
    return ret;
}

/* ---- request bodies: a few keys of a small JSON object ---- */

/* The value of "key" in body: a string (unescaped into out) or a literal
 * (true, false, null, a number). Returns false when absent or malformed. */
static bool body_value(const char *body, const char *key, char *out, size_t cap, bool *is_string)
{
    char pat[80];
    snprintf(pat, sizeof pat, "\"%s\"", key);
    const char *p = strstr(body, pat);
    if (!p)
        return false;
    p += strlen(pat);
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    if (*p++ != ':')
        return false;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    size_t n = 0;
    if (*p == '"') {
        *is_string = true;
        for (p++; *p && *p != '"'; p++) {
            char ch = *p;
            if (ch == '\\') {
                p++;
                if (*p == '"' || *p == '\\' || *p == '/')
                    ch = *p;
                else
                    return false; /* paths need no other escapes */
            }
            if (n + 1 >= cap)
                return false;
            out[n++] = ch;
        }
        if (*p != '"')
            return false;
    } else {
        *is_string = false;
        while (*p && *p != ',' && *p != '}' && *p != ' ' && *p != '\n' && n + 1 < cap)
            out[n++] = *p++;
    }
    out[n] = 0;
    return true;
}

typedef struct req_body {
    char *data;
    size_t len;
    bool too_big;
} req_body;

static void request_done(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode t)
{
    req_body *b = *con_cls;
    if (b) {
        weir_free(b->data);
        weir_free(b);
        *con_cls = NULL;
    }
}

static bool token_ok(const weir_rest *r, const char *given)
{
    size_t n = strlen(r->token), m = strlen(given);
    unsigned diff = n != m;
    for (size_t i = 0; i < n; i++)
        diff |= (unsigned)(r->token[i] ^ (i < m ? given[i] : 0));
    return diff == 0;
}

/* POST/PATCH: the token, then the action. */
static enum MHD_Result handle_action(weir_rest *r, struct MHD_Connection *c, const char *method, const char *url,
                                     const char *body)
{
    char parts[5][128];
    int n = 0;
    for (const char *p = url; *p && n < 5;) {
        while (*p == '/')
            p++;
        if (!*p)
            break;
        const char *e = strchr(p, '/');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len >= 128)
            return respond_error(c, 404, "Not found", NULL, NULL);
        memcpy(parts[n], p, len);
        parts[n++][len] = 0;
        p += len;
    }
    int kind = 0;
    if (n >= 2 && !strcmp(parts[0], "jobs")) {
        if (n == 3 && !strcmp(method, "POST") && !strcmp(parts[2], "savepoints"))
            kind = REST_OP_SAVEPOINT;
        else if (n == 3 && !strcmp(method, "POST") && !strcmp(parts[2], "stop"))
            kind = REST_OP_STOP;
        else if (n == 3 && !strcmp(method, "POST") && !strcmp(parts[2], "cancel"))
            kind = REST_OP_CANCEL;
        else if (n == 2 && !strcmp(method, "PATCH")) {
            const char *mode = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "mode");
            if (!mode || strcmp(mode, "cancel") != 0)
                return respond_error(c, 400, "Bad request: PATCH /jobs/:id takes ?mode=cancel", NULL, NULL);
            kind = REST_OP_CANCEL;
        }
    }
    if (!kind)
        return respond_error(c, 405, "Method not allowed: actions are POST /jobs/:id/savepoints, POST "
                                     "/jobs/:id/stop, PATCH /jobs/:id?mode=cancel", "Allow", "GET");
    const char *auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    if (!auth || strncasecmp(auth, "Bearer ", 7) != 0)
        return respond_error(c, 401,
                             "Unauthorized: actions need the header 'Authorization: Bearer <token>' (the token is in "
                             "the file weir run printed at start)",
                             "WWW-Authenticate", "Bearer realm=\"weir\"");
    if (!token_ok(r, auth + 7))
        return respond_error(c, 403, "Forbidden: wrong token", NULL, NULL);
    if (strcmp(parts[1], r->job_id) != 0)
        return respond_error(c, 404, "Not found: no such job", NULL, NULL);
    if (weir__insp_phase(r->job) != 1)
        return respond_error(c, 409, "Conflict: the job is not running", NULL, NULL);
    if (kind == REST_OP_CANCEL) {
        weir_job_cancel(r->job);
        if (r->log)
            fprintf(r->log, "weir: the job is canceled (asked over REST)\n");
        return respond(c, 202, "application/json", "{}", 2, NULL, NULL);
    }
    char dir[1024] = "", val[32];
    bool is_str = false, drain = false;
    const char *dir_key = kind == REST_OP_SAVEPOINT ? "target-directory" : "targetDirectory";
    if (body_value(body, dir_key, dir, sizeof dir, &is_str) && !is_str && strcmp(dir, "null") != 0)
        return respond_error(c, 400, "Bad request: the target directory must be a string", NULL, NULL);
    if (!is_str)
        dir[0] = 0;
    const char *flag = kind == REST_OP_SAVEPOINT ? "cancel-job" : "drain";
    if (body_value(body, flag, val, sizeof val, &is_str)) {
        if (is_str || (strcmp(val, "true") && strcmp(val, "false")))
            return respond_error(c, 400, "Bad request: cancel-job and drain take true or false", NULL, NULL);
        if (!strcmp(val, "true")) {
            if (kind == REST_OP_SAVEPOINT)
                kind = REST_OP_STOP; /* savepoint, then the job ends */
            else
                drain = true;
        }
    }
    char id[33];
    unsigned status = start_action(r, kind, dir, drain, id);
    if (status != 202)
        return respond_error(c, status, status == 429 ? "Too many requests" : "Internal server error", NULL, NULL);
    char resp[96];
    int len = snprintf(resp, sizeof resp, "{\"request-id\":\"%s\"}", id);
    return respond(c, 202, "application/json", resp, (size_t)len, NULL, NULL);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                              const char *version, const char *upload_data, size_t *upload_size, void **con_cls)
{
    weir_rest *r = cls;
    /* libmicrohttpd's thread, named for top -H and bench/rest_overhead.sh */
    static _Thread_local bool named;
    if (!named) {
        pthread_setname_np(pthread_self(), "weir-http");
        named = true;
    }
    bool is_get = !strcmp(method, "GET") || !strcmp(method, "HEAD");
    if (!is_get) {
        req_body *b = *con_cls;
        if (!b) {
            if (!(b = weir_calloc(1, sizeof *b)))
                return MHD_NO;
            *con_cls = b;
            return MHD_YES;
        }
        if (*upload_size) {
            if (b->len + *upload_size > MAX_BODY) {
                b->too_big = true;
            } else {
                char *d = weir_realloc(b->data, b->len + *upload_size + 1);
                if (!d)
                    return MHD_NO;
                memcpy(d + b->len, upload_data, *upload_size);
                b->data = d;
                b->len += *upload_size;
                b->data[b->len] = 0;
            }
            *upload_size = 0;
            return MHD_YES;
        }
        if (b->too_big)
            return respond_error(c, 413, "Payload too large", NULL, NULL);
        return handle_action(r, c, method, url, b->data ? (const void *)b->data : "");
    }
    if (!strcmp(url, "/"))
        url = "/index.html";
    for (size_t i = 0; i < weir__rest_n_assets; i++)
        if (!strcmp(url, weir__rest_assets[i].path))
            return respond(c, 200, weir__rest_assets[i].type, weir__rest_assets[i].data, weir__rest_assets[i].len,
                           NULL, NULL);
    weir_buf b;
    weir_buf_init(&b);
    enum MHD_Result ret;
    if (!strcmp(url, "/cluster")) {
        if (!r->cfg.cluster_json)
            ret = respond_error(c, 404, "Not found: this job runs on one process (weir.cluster.* not set)", NULL,
                                NULL);
        else if (r->cfg.cluster_json(r->cfg.cluster_ud, &b) || !b.len)
            ret = respond_error(c, 500, "Internal server error: out of memory", NULL, NULL);
        else
            ret = respond(c, 200, "application/json", b.data, b.len - 1, NULL, NULL);
    } else if (!strcmp(url, "/metrics")) {
        if (rest_metrics_render(r, &b))
            ret = respond_error(c, 500, "Internal server error: out of memory", NULL, NULL);
        else
            ret = respond(c, 200, "text/plain; version=0.0.4; charset=utf-8", b.data ? (const void *)b.data : "", b.len, NULL,
                          NULL);
    } else {
        /* /jobs/:id/savepoints/:request-id: an action's progress */
        char jid[64], rid[64];
        int consumed = 0;
        if (sscanf(url, "/jobs/%63[^/]/savepoints/%63[^/]%n", jid, rid, &consumed) == 2 && !url[consumed] &&
            !strcmp(jid, r->job_id)) {
            ret = action_status(r, c, rid);
        } else {
            int status = rest_route_get(r, url, &b);
            ret = respond_buf(c, (unsigned)status, &b);
        }
    }
    weir_buf_fini(&b);
    return ret;
}

static int http_start(weir_rest *r, weir_error *err)
{
    int fd = -1;
    int rc = bind_socket(r, &fd, err);
    if (rc)
        return rc;
    if ((rc = write_token(r, err))) {
        close(fd);
        return rc;
    }
    r->httpd = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC | MHD_USE_ERROR_LOG, 0, NULL, NULL, handle, r,
                                MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_NOTIFY_COMPLETED, request_done, NULL,
                                MHD_OPTION_CONNECTION_LIMIT, (unsigned)64, MHD_OPTION_CONNECTION_TIMEOUT,
                                (unsigned)30, MHD_OPTION_END);
    if (!r->httpd) {
        close(fd);
        unlink(r->token_path);
        r->token_path[0] = 0;
        return weir_error_set(err, WEIR_EIO, "cannot start the HTTP server on %s", r->url);
    }
    return 0;
}

static void http_stop(weir_rest *r)
{
    if (r->httpd)
        MHD_stop_daemon(r->httpd); /* closes the listening socket */
    r->httpd = NULL;
}

#else /* !WEIR_HAVE_MICROHTTPD */

static int http_start(weir_rest *r, weir_error *err)
{
    (void)r;
    return weir_error_set(err, WEIR_EUNSUPPORTED,
                          "this weir was built without libmicrohttpd (Debian: libmicrohttpd-dev): no REST API, "
                          "metrics or web UI");
}

static void http_stop(weir_rest *r)
{
    (void)r;
}

#endif

/* ---- lifecycle ---- */

int weir_rest_start(weir_job *job, const weir_rest_config *cfg, weir_rest **out, weir_error *err)
{
    *out = NULL;
    weir_rest *r = weir_calloc(1, sizeof *r);
    if (!r)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    r->job = job;
    r->cfg = *cfg;
    if (r->cfg.sample_ms <= 0)
        r->cfg.sample_ms = 1000;
    r->log = cfg->log;
    r->start_ms = weir__insp_now_ms(job);
    pthread_mutex_init(&r->mu, NULL);
    /* The monitor waits on cv with a CLOCK_MONOTONIC deadline. */
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&r->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&r->act_mu, NULL);
    int rc = 0;
    if (cfg->job_id[0])
        snprintf(r->job_id, sizeof r->job_id, "%s", cfg->job_id);
    else
        rc = random_hex(r->job_id, 16);
    if (rc) {
        weir_rest_stop(r);
        return weir_error_set(err, rc, "cannot read random bytes for the job id");
    }
    if ((rc = rest_monitor_start(r))) {
        weir_rest_stop(r);
        return weir_error_set(err, rc, "cannot start the job monitor: %s", weir_strerror(rc));
    }
    if (cfg->enabled && (rc = http_start(r, err))) {
        weir_rest_stop(r);
        return rc;
    }
    if (r->url[0])
        rest_log(r, false, "web UI and REST API at %s (job %s; actions need the token in %s)", r->url, r->job_id,
                 r->token_path);
    *out = r;
    return 0;
}

void rest_log(weir_rest *r, bool warn, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (r->cfg.log_line) {
        r->cfg.log_line(r->cfg.log_ud, warn, text);
    } else if (r->log) {
        fprintf(r->log, "weir: %s\n", text);
        fflush(r->log);
    }
}

const char *weir_rest_url(const weir_rest *r)
{
    return r ? r->url : "";
}

const char *weir_rest_token_path(const weir_rest *r)
{
    return r ? r->token_path : "";
}

void weir_rest_stop(weir_rest *r)
{
    if (!r)
        return;
    http_stop(r);
    /* No new action can start now; wait for those under way. */
    for (uint32_t i = 0; i < r->n_acts; i++)
        if (r->acts[i].thread_started)
            pthread_join(r->acts[i].thread, NULL);
    rest_monitor_stop(r);
    if (r->token_path[0])
        unlink(r->token_path);
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->cv);
    pthread_mutex_destroy(&r->act_mu);
    weir_free(r);
}
