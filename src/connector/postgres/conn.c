/*
 * connector/postgres/conn.c - a connection to PostgreSQL from the jdbc
 * WITH options ('url', 'username', 'password'). The session runs with
 * TimeZone UTC and DateStyle ISO, so values come back in the text forms
 * the converters read.
 */
#include <stdio.h>
#include <string.h>

#include "connector/postgres/pg_internal.h"

/* jdbc:postgresql://host[:port]/db[?...] -> a libpq URI. */
int weir__pg_connect_options(weir__optset *o, PGconn **out)
{
    const char *url = weir__opt_get(o, "url");
    if (!url)
        return weir__opt_missing(o, "url",
                                 "(jdbc:postgresql://host:port/database)");
    const char *prefix = "jdbc:postgresql://";
    if (strncmp(url, prefix, strlen(prefix)) != 0)
        return weir__opt_fail(o, (size_t)weir__opt_index(o, "url"),
                              WEIR_EINVAL,
                              "option 'url': '%s' is not a PostgreSQL JDBC "
                              "URL (jdbc:postgresql://host:port/database)",
                              url);
    char cs[2048];
    if ((size_t)snprintf(cs, sizeof cs, "postgresql://%s",
                         url + strlen(prefix)) >= sizeof cs)
        return weir__opt_fail(o, (size_t)weir__opt_index(o, "url"),
                              WEIR_EINVAL, "option 'url' is too long");
    const char *user = weir__opt_get(o, "username");
    const char *pass = weir__opt_get(o, "password");
    const char *keys[] = {"dbname", "options", "user", "password", NULL};
    const char *vals[] = {cs, "-c TimeZone=UTC -c DateStyle=ISO", user, pass,
                          NULL};
    if (!user) {
        keys[2] = pass ? "password" : NULL;
        vals[2] = pass;
        keys[3] = NULL;
    } else if (!pass) {
        keys[3] = NULL;
    }
    PGconn *c = PQconnectdbParams(keys, vals, 1);
    if (!c)
        return weir_error_set(o->err, WEIR_ENOMEM, "out of memory");
    if (PQstatus(c) != CONNECTION_OK) {
        weir_error_set(o->err, WEIR_EIO, "cannot connect to '%s': %s", url,
                       PQerrorMessage(c));
        PQfinish(c);
        return WEIR_EIO;
    }
    *out = c;
    return 0;
}

