/*
 * connector/postgres/conn.c - PostgreSQL connections for the connectors:
 * JDBC URLs to libpq parameters, connecting with a located message,
 * quoting. See pg_internal.h for the URL forms.
 *
 * Parameters go to libpq as keyword/value arrays (PQconnectdbParams), so no
 * value is ever spliced into a conninfo string and needs no escaping.
 */
#ifdef WEIR_HAVE_POSTGRES
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "connector/postgres/pg_internal.h"

static char *dupn(const char *s, size_t n)
{
    char *d = weir_malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

void weir__pg_params_fini(weir__pg_params *p)
{
    if (!p)
        return;
    for (unsigned i = 0; i < p->n; i++)
        weir_free(p->vals[i]);
    weir_free(p->url);
    weir_free(p->where);
    memset(p, 0, sizeof *p);
}

/* Sets keyword key (static string) to value v (owned by p afterwards). */
static int set_param(weir__pg_params *p, const char *key, char *v)
{
    if (!v)
        return WEIR_ENOMEM;
    for (unsigned i = 0; i < p->n; i++) {
        if (!strcmp(p->keys[i], key)) {
            weir_free(p->vals[i]);
            p->vals[i] = v;
            return 0;
        }
    }
    if (p->n == WEIR__PG_MAX_PARAMS) {
        weir_free(v);
        return WEIR_EINVAL;
    }
    p->keys[p->n] = key;
    p->vals[p->n++] = v;
    p->keys[p->n] = NULL;
    p->vals[p->n] = NULL;
    return 0;
}

static const char *get_param(const weir__pg_params *p, const char *key)
{
    for (unsigned i = 0; i < p->n; i++)
        if (!strcmp(p->keys[i], key))
            return p->vals[i];
    return NULL;
}

int weir__pg_params_copy(weir__pg_params *dst, const weir__pg_params *src)
{
    memset(dst, 0, sizeof *dst);
    dst->url = dupn(src->url, strlen(src->url));
    dst->where = dupn(src->where, strlen(src->where));
    int rc = dst->url && dst->where ? 0 : WEIR_ENOMEM;
    for (unsigned i = 0; i < src->n && !rc; i++)
        rc = set_param(dst, src->keys[i],
                       dupn(src->vals[i], strlen(src->vals[i])));
    if (rc)
        weir__pg_params_fini(dst);
    return rc;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = tolower(c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Percent-decodes s[0..n) ('+' stays '+', as in the JDBC driver). */
static char *decode(const char *s, size_t n, bool *bad)
{
    char *d = weir_malloc(n + 1);
    if (!d)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '%') {
            int a = i + 1 < n ? hexval((unsigned char)s[i + 1]) : -1;
            int c = i + 2 < n ? hexval((unsigned char)s[i + 2]) : -1;
            if (a < 0 || c < 0) {
                *bad = true;
                weir_free(d);
                return NULL;
            }
            int h = a * 16 + c;
            d[k++] = (char)h;
            i += 2;
        } else {
            d[k++] = s[i];
        }
    }
    d[k] = 0;
    return d;
}

/* A JDBC parameter and the libpq keyword it becomes. */
static const struct {
    const char *jdbc, *libpq;
} url_params[] = {
    {"user", "user"},
    {"password", "password"},
    {"sslmode", "sslmode"},
    {"connectTimeout", "connect_timeout"},
    {"loginTimeout", "connect_timeout"},
    {"ApplicationName", "application_name"},
    {"options", "options"},
    {"currentSchema", NULL}, /* becomes options=-c search_path=... */
};

static int url_error(weir_error *err, const char *url, size_t at,
                     const char *what)
{
    return weir_error_set(err, WEIR_EINVAL,
                          "option 'url': %s at offset %zu of '%s' (expected "
                          "jdbc:postgresql://host:port/database)",
                          what, at, url);
}

static int parse_query(const char *url, const char *q, weir__pg_params *p,
                       char **schema, weir_error *err)
{
    while (*q) {
        const char *end = q + strcspn(q, "&");
        const char *eq = memchr(q, '=', (size_t)(end - q));
        if (end == q) {
            q++;
            continue;
        }
        if (!eq)
            return url_error(err, url, (size_t)(q - url),
                             "a parameter without '='");
        size_t kn = (size_t)(eq - q);
        int found = -1;
        for (size_t i = 0; i < sizeof url_params / sizeof *url_params; i++)
            if (strlen(url_params[i].jdbc) == kn &&
                !strncasecmp(url_params[i].jdbc, q, kn))
                found = (int)i;
        if (found < 0) {
            char key[128];
            snprintf(key, sizeof key, "%.*s", (int)(kn < 100 ? kn : 100), q);
            const char *best = NULL;
            size_t bd = 4;
            for (size_t i = 0; i < sizeof url_params / sizeof *url_params;
                 i++) {
                size_t d = weir__opt_edit_distance(key, url_params[i].jdbc);
                if (d < bd) {
                    bd = d;
                    best = url_params[i].jdbc;
                }
            }
            char msg[400];
            snprintf(msg, sizeof msg,
                     "unknown parameter '%s'%s%s%s (weir knows user, "
                     "password, sslmode, connectTimeout, ApplicationName, "
                     "currentSchema, options)",
                     key, best ? "; did you mean '" : "", best ? best : "",
                     best ? "'?" : "");
            return url_error(err, url, (size_t)(q - url), msg);
        }
        bool bad = false;
        char *v = decode(eq + 1, (size_t)(end - eq - 1), &bad);
        if (!v)
            return bad ? url_error(err, url, (size_t)(eq + 1 - url),
                                   "a bad %-escape")
                       : WEIR_ENOMEM;
        int rc;
        if (!url_params[found].libpq) {
            weir_free(*schema);
            *schema = v;
            rc = 0;
        } else {
            rc = set_param(p, url_params[found].libpq, v);
        }
        if (rc)
            return rc;
        q = *end ? end + 1 : end;
    }
    return 0;
}

int weir__pg_params_parse(const char *url, const char *user,
                          const char *password, weir__pg_params *p,
                          weir_error *err)
{
    static const char prefix[] = "jdbc:postgresql:";
    memset(p, 0, sizeof *p);
    if (strncasecmp(url, prefix, sizeof prefix - 1))
        return url_error(err, url, 0,
                         strncasecmp(url, "jdbc:", 5)
                             ? "not a JDBC URL"
                             : "weir's jdbc connector speaks PostgreSQL only "
                               "(jdbc:postgresql:...)");
    p->url = dupn(url, strlen(url));
    if (!p->url)
        return WEIR_ENOMEM;
    const char *s = url + sizeof prefix - 1;
    char hosts[512] = "", ports[256] = "";
    const char *db = NULL;
    size_t db_n = 0;
    char *schema = NULL;
    int rc = 0;
    if (s[0] == '/' && s[1] == '/') {
        s += 2;
        size_t an = strcspn(s, "/?");
        const char *a = s, *aend = s + an;
        size_t hl = 0, pl = 0;
        while (a < aend) {
            const char *e = memchr(a, ',', (size_t)(aend - a));
            if (!e)
                e = aend;
            const char *h = a, *he, *port = NULL;
            if (*h == '[') { /* [::1]:5432 */
                he = memchr(h, ']', (size_t)(e - h));
                if (!he)
                    return weir__pg_params_fini(p),
                           url_error(err, url, (size_t)(h - url),
                                     "an IPv6 address without ']'");
                h++;
                if (he + 1 < e && he[1] == ':')
                    port = he + 2;
            } else {
                he = memchr(h, ':', (size_t)(e - h));
                if (he)
                    port = he + 1;
                else
                    he = e;
            }
            size_t portn = port ? (size_t)(e - port) : 0;
            for (size_t i = 0; i < portn; i++)
                if (!isdigit((unsigned char)port[i]))
                    return weir__pg_params_fini(p),
                           url_error(err, url, (size_t)(port + i - url),
                                     "a port that is not a number");
            if (hl + (size_t)(he - h) + 2 > sizeof hosts ||
                pl + portn + 7 > sizeof ports)
                return weir__pg_params_fini(p),
                       url_error(err, url, (size_t)(a - url), "too many hosts");
            hl += (size_t)snprintf(hosts + hl, sizeof hosts - hl, "%s%.*s",
                                   hl ? "," : "", (int)(he - h),
                                   he == h ? "localhost" : h);
            pl += (size_t)snprintf(ports + pl, sizeof ports - pl, "%s%.*s",
                                   pl ? "," : "", (int)(portn ? portn : 4),
                                   portn ? port : "5432");
            a = e < aend ? e + 1 : e;
        }
        if (!hl) {
            snprintf(hosts, sizeof hosts, "localhost");
            snprintf(ports, sizeof ports, "5432");
        }
        s = aend;
        if (*s == '/') {
            s++;
            db = s;
            db_n = strcspn(s, "?");
            s += db_n;
        }
    } else {
        snprintf(hosts, sizeof hosts, "localhost");
        snprintf(ports, sizeof ports, "5432");
        db = s;
        db_n = strcspn(s, "?");
        s += db_n;
    }
    rc = set_param(p, "host", dupn(hosts, strlen(hosts)));
    if (!rc)
        rc = set_param(p, "port", dupn(ports, strlen(ports)));
    if (!rc && db && db_n) {
        bool bad = false;
        char *d = decode(db, db_n, &bad);
        rc = d ? set_param(p, "dbname", d)
               : bad ? url_error(err, url, (size_t)(db - url),
                                 "a bad %-escape")
                     : WEIR_ENOMEM;
    }
    if (!rc && *s == '?')
        rc = parse_query(url, s + 1, p, &schema, err);
    if (!rc && user)
        rc = set_param(p, "user", dupn(user, strlen(user)));
    if (!rc && password)
        rc = set_param(p, "password", dupn(password, strlen(password)));
    if (!rc && schema) {
        const char *o = get_param(p, "options");
        size_t n = strlen(schema) * 2 + (o ? strlen(o) : 0) + 32;
        char *v = weir_malloc(n), *w = v;
        if (!v) {
            rc = WEIR_ENOMEM;
        } else {
            w += sprintf(w, "%s%s-c search_path=", o ? o : "", o ? " " : "");
            for (const char *c = schema; *c; c++) {
                if (*c == ' ' || *c == '\\')
                    *w++ = '\\'; /* libpq's options: spaces escaped */
                *w++ = *c;
            }
            *w = 0;
            rc = set_param(p, "options", v);
        }
    }
    weir_free(schema);
    if (!rc && !get_param(p, "application_name"))
        rc = set_param(p, "application_name", dupn("weir", 4));
    if (!rc && !get_param(p, "connect_timeout"))
        rc = set_param(p, "connect_timeout", dupn("10", 2));
    if (!rc) {
        const char *d = get_param(p, "dbname");
        size_t n = strlen(hosts) + strlen(ports) + (d ? strlen(d) : 0) + 8;
        p->where = weir_malloc(n);
        if (!p->where)
            rc = WEIR_ENOMEM;
        else if (!strchr(hosts, ','))
            snprintf(p->where, n, "%s:%s/%s", hosts, ports, d ? d : "");
        else
            snprintf(p->where, n, "%s/%s", hosts, d ? d : "");
    }
    if (rc == WEIR_ENOMEM)
        weir_error_set(err, rc, "out of memory");
    if (rc)
        weir__pg_params_fini(p);
    return rc;
}

int weir__pg_params_options(weir__optset *o, weir__pg_params *p)
{
    const char *url = weir__opt_get(o, "url");
    if (!url)
        return weir__opt_missing(
            o, "url", " (a JDBC URL: jdbc:postgresql://host:port/database)");
    const char *user = weir__opt_get(o, "username");
    const char *password = weir__opt_get(o, "password");
    weir_error e = {0};
    int rc = weir__pg_params_parse(url, user, password, p, &e);
    if (rc)
        return weir__opt_fail(o, (size_t)weir__opt_index(o, "url"), rc, "%s",
                              e.message);
    return 0;
}

static void one_line(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
        s[--n] = 0;
    for (char *c = s; *c; c++)
        if (*c == '\n' || *c == '\t')
            *c = ' ';
}

const char *weir__pg_error(PGconn *conn, const PGresult *res, char *buf,
                           size_t cap)
{
    const char *m = res ? PQresultErrorMessage(res) : NULL;
    if (!m || !*m)
        m = conn ? PQerrorMessage(conn) : "no connection";
    const char *state =
        res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    if (state)
        snprintf(buf, cap, "%s (SQLSTATE %s)", m, state);
    else
        snprintf(buf, cap, "%s", m && *m ? m : "unknown error");
    one_line(buf);
    return buf;
}

bool weir__pg_conn_lost(PGconn *conn)
{
    return !conn || PQstatus(conn) != CONNECTION_OK;
}

int weir__pg_connect(const weir__pg_params *p, PGconn **out, weir_error *err)
{
    *out = NULL;
    PGconn *c = PQconnectdbParams(p->keys, (const char *const *)p->vals, 0);
    char msg[400];
    if (!c)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    if (PQstatus(c) != CONNECTION_OK) {
        weir_error_set(err, WEIR_EIO,
                       "cannot connect to PostgreSQL at %s (option 'url'): %s",
                       p->where, weir__pg_error(c, NULL, msg, sizeof msg));
        PQfinish(c);
        return WEIR_EIO;
    }
    PGresult *r = PQexec(c, "SET client_encoding = 'UTF8'; SET TimeZone = "
                            "'UTC'; SET standard_conforming_strings = on");
    if (PQresultStatus(r) != PGRES_COMMAND_OK) {
        weir_error_set(err, WEIR_EIO, "PostgreSQL at %s: %s", p->where,
                       weir__pg_error(c, r, msg, sizeof msg));
        PQclear(r);
        PQfinish(c);
        return WEIR_EIO;
    }
    PQclear(r);
    *out = c;
    return 0;
}

int weir__pg_connect_options(weir__optset *o, PGconn **out)
{
    weir__pg_params p;
    *out = NULL;
    int rc = weir__pg_params_options(o, &p);
    if (rc)
        return rc;
    weir_error e = {0};
    rc = weir__pg_connect(&p, out, &e);
    weir__pg_params_fini(&p);
    if (rc)
        return weir__opt_fail(o, (size_t)weir__opt_index(o, "url"), rc, "%s",
                              e.message);
    return 0;
}

int weir__pg_put_ident(weir_buf *b, const char *name)
{
    int rc = weir_buf_put_u8(b, '"');
    for (const char *c = name; *c && !rc; c++)
        rc = *c == '"' ? weir_buf_put(b, "\"\"", 2) : weir_buf_put_u8(b, (uint8_t)*c);
    return rc ? rc : weir_buf_put_u8(b, '"');
}

int weir__pg_put_literal(weir_buf *b, const char *s, size_t n)
{
    int rc = weir_buf_reserve(b, n + 2);
    if (rc)
        return rc;
    rc = weir_buf_put_u8(b, '\'');
    const char *start = s, *end = s + n;
    for (const char *c = s; c < end && !rc; c++) {
        if (*c == '\'') {
            rc = weir_buf_put(b, start, (size_t)(c + 1 - start));
            start = c; /* the quote goes out twice */
        }
    }
    if (!rc)
        rc = weir_buf_put(b, start, (size_t)(end - start));
    return rc ? rc : weir_buf_put_u8(b, '\'');
}
#endif
