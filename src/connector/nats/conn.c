/*
 * connector/nats/conn.c - the connection options of 'connector' = 'nats'
 * ('servers', credentials) and the connection itself, shared by the source
 * and the sink.
 */
#ifdef WEIR_HAVE_NATS

#include <stdio.h>
#include <string.h>

#include "connector/nats/nats_internal.h"

void weir__nats_conn_fini(weir__nats_conn *c)
{
    for (uint32_t i = 0; i < c->n_servers; i++)
        weir_free(c->servers[i]);
    weir_free(c->servers);
    weir_free(c->servers_text);
    weir_free(c->user);
    weir_free(c->password);
    weir_free(c->token);
    weir_free(c->creds_file);
    memset(c, 0, sizeof *c);
}

static int dup_opt(weir__optset *o, const char *key, char **out)
{
    const char *v = weir__opt_get(o, key);
    if (v && !(*out = weir_strdup(v)))
        return weir_error_set(o->err, WEIR_ENOMEM, "out of memory");
    return 0;
}

/* One server URL: "nats://host:port", "tls://host:port" or "host:port". */
static bool server_ok(const char *s, size_t n)
{
    if (n == 0)
        return false;
    const char *colon = memchr(s, ':', n);
    if (colon && colon + 2 < s + n && colon[1] == '/' && colon[2] == '/') {
        size_t sl = (size_t)(colon - s);
        if (!((sl == 4 && !strncmp(s, "nats", 4)) ||
              (sl == 3 && !strncmp(s, "tls", 3)) ||
              (sl == 2 && !strncmp(s, "ws", 2)) ||
              (sl == 3 && !strncmp(s, "wss", 3))))
            return false;
        return colon + 3 < s + n;
    }
    for (size_t i = 0; i < n; i++)
        if (s[i] == ' ' || s[i] == '/')
            return false;
    return true;
}

int weir__nats_conn_read(weir__optset *o, weir__nats_conn *c)
{
    int si = weir__opt_index(o, "servers");
    if (si < 0)
        return weir__opt_missing(
            o, "servers", " (the NATS servers, e.g. 'nats://localhost:4222')");
    const char *v = weir__opt_get(o, "servers");
    uint32_t n = 1;
    for (const char *p = v; *p; p++)
        n += *p == ',';
    if (!(c->servers = weir_calloc(n, sizeof *c->servers)) ||
        !(c->servers_text = weir_strdup(v)))
        return weir_error_set(o->err, WEIR_ENOMEM, "out of memory");
    const char *p = v;
    for (;;) {
        while (*p == ' ')
            p++;
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        while (len && p[len - 1] == ' ')
            len--;
        if (!server_ok(p, len))
            return weir__opt_fail(o, (size_t)si, WEIR_EINVAL,
                                  "option 'servers': '%.*s' is not a server "
                                  "(expected 'nats://host:port', several "
                                  "separated by ',')",
                                  (int)len, p);
        char *s = weir_malloc(len + 1);
        if (!s)
            return weir_error_set(o->err, WEIR_ENOMEM, "out of memory");
        memcpy(s, p, len);
        s[len] = '\0';
        c->servers[c->n_servers++] = s;
        if (!e)
            break;
        p = e + 1;
    }
    int rc;
    if ((rc = dup_opt(o, "username", &c->user)) ||
        (rc = dup_opt(o, "password", &c->password)) ||
        (rc = dup_opt(o, "token", &c->token)) ||
        (rc = dup_opt(o, "credentials-file", &c->creds_file)))
        return rc;
    if (!!c->user != !!c->password)
        return c->user ? weir__opt_missing(o, "password",
                                           " ('username' needs it)")
                       : weir__opt_missing(o, "username",
                                           " ('password' needs it)");
    int methods = !!c->user + !!c->token + !!c->creds_file;
    if (methods > 1) {
        const char *k = c->creds_file ? "credentials-file" : "token";
        return weir__opt_fail(o, (size_t)weir__opt_index(o, k), WEIR_EINVAL,
                              "option '%s': give one way to authenticate "
                              "('username'/'password', 'token' or "
                              "'credentials-file')",
                              k);
    }
    c->connect_timeout_ms = 5000;
    if ((rc = weir__opt_duration(o, "connect.timeout", &c->connect_timeout_ms)))
        return rc;
    if (c->connect_timeout_ms <= 0)
        return weir__opt_fail(o, (size_t)weir__opt_index(o, "connect.timeout"),
                              WEIR_EINVAL,
                              "option 'connect.timeout': must be positive");
    return 0;
}

const char *weir__nats_why(natsStatus s, jsErrCode jerr, char *buf,
                           size_t len)
{
    const char *last = nats_GetLastError(NULL);
    if (jerr)
        snprintf(buf, len, "%s (JetStream error %d)",
                 last && *last ? last : natsStatus_GetText(s), (int)jerr);
    else
        snprintf(buf, len, "%s", last && *last ? last : natsStatus_GetText(s));
    return buf;
}

int weir__nats_connect(const weir__nats_conn *c, const jsOptions *jo,
                       natsConnection **nc, jsCtx **js, weir_error *err)
{
    natsOptions *no = NULL;
    natsStatus s = natsOptions_Create(&no);
    char why[300];
    *nc = NULL;
    *js = NULL;
    if (s == NATS_OK)
        s = natsOptions_SetServers(no, (const char **)c->servers,
                                   (int)c->n_servers);
    if (s == NATS_OK)
        s = natsOptions_SetTimeout(no, c->connect_timeout_ms);
    if (s == NATS_OK)
        s = natsOptions_SetName(no, "weir");
    if (s == NATS_OK)
        s = natsOptions_SetNoRandomize(no, true);
    /* Keep trying for as long as the job runs: a restart of the server
     * is not a failure of the job. */
    if (s == NATS_OK)
        s = natsOptions_SetMaxReconnect(no, -1);
    if (s == NATS_OK && c->user)
        s = natsOptions_SetUserInfo(no, c->user, c->password);
    if (s == NATS_OK && c->token)
        s = natsOptions_SetToken(no, c->token);
    if (s == NATS_OK && c->creds_file)
        s = natsOptions_SetUserCredentialsFromFiles(no, c->creds_file, NULL);
    if (s != NATS_OK) {
        natsOptions_Destroy(no);
        return weir_error_set(err, WEIR_EINVAL, "nats: %s",
                              weir__nats_why(s, 0, why, sizeof why));
    }
    s = natsConnection_Connect(nc, no);
    natsOptions_Destroy(no);
    if (s != NATS_OK) {
        *nc = NULL;
        return weir_error_set(err, WEIR_EIO, "nats: cannot connect to '%s': %s",
                              c->servers_text,
                              weir__nats_why(s, 0, why, sizeof why));
    }
    s = natsConnection_JetStream(js, *nc, (jsOptions *)jo);
    if (s != NATS_OK) {
        natsConnection_Destroy(*nc);
        *nc = NULL;
        *js = NULL;
        return weir_error_set(err, WEIR_EIO, "nats: '%s': no JetStream: %s",
                              c->servers_text,
                              weir__nats_why(s, 0, why, sizeof why));
    }
    return 0;
}

#endif
