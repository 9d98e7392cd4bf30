/*
 * tests/test_pg_conn.c - the PostgreSQL connectors' shared part, without a
 * server: JDBC URLs to libpq parameters (forms, defaults, percent-escapes,
 * errors with their offset and suggestion), identifier and literal quoting,
 * and the jdbc sink's option checks (missing and misspelled options,
 * exactly-once without checkpoints, the changelog rule).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "weir/connector.h"

#ifdef WEIR_HAVE_POSTGRES
#include "connector/postgres/pg_internal.h"

static const char *param(const weir__pg_params *p, const char *key)
{
    for (unsigned i = 0; i < p->n; i++)
        if (!strcmp(p->keys[i], key))
            return p->vals[i];
    return NULL;
}

Test(pg_url, host_port_database)
{
    weir__pg_params p;
    weir_error e = {0};
    cr_assert_eq(weir__pg_params_parse("jdbc:postgresql://db.example:6543/ads",
                                       "u", "pw", &p, &e), 0, "%s", e.message);
    cr_assert_str_eq(param(&p, "host"), "db.example");
    cr_assert_str_eq(param(&p, "port"), "6543");
    cr_assert_str_eq(param(&p, "dbname"), "ads");
    cr_assert_str_eq(param(&p, "user"), "u");
    cr_assert_str_eq(param(&p, "password"), "pw");
    cr_assert_str_eq(param(&p, "application_name"), "weir");
    cr_assert_str_eq(p.where, "db.example:6543/ads");
    weir__pg_params_fini(&p);
}

Test(pg_url, defaults_and_short_form)
{
    weir__pg_params p;
    weir_error e = {0};
    cr_assert_eq(weir__pg_params_parse("jdbc:postgresql://h/", NULL, NULL, &p, &e), 0);
    cr_assert_str_eq(param(&p, "port"), "5432");
    cr_assert_null(param(&p, "dbname"));
    cr_assert_null(param(&p, "user"));
    weir__pg_params_fini(&p);
    cr_assert_eq(weir__pg_params_parse("jdbc:postgresql:ads", NULL, NULL, &p, &e), 0);
    cr_assert_str_eq(param(&p, "host"), "localhost");
    cr_assert_str_eq(param(&p, "dbname"), "ads");
    weir__pg_params_fini(&p);
}

Test(pg_url, several_hosts_ipv6_and_parameters)
{
    weir__pg_params p;
    weir_error e = {0};
    cr_assert_eq(weir__pg_params_parse(
                     "jdbc:postgresql://a:1,[::1]:2,b/d%20b?user=x%26y&password=p"
                     "&sslmode=require&currentSchema=my%20schema&ApplicationName=app",
                     NULL, NULL, &p, &e),
                 0, "%s", e.message);
    cr_assert_str_eq(param(&p, "host"), "a,::1,b");
    cr_assert_str_eq(param(&p, "port"), "1,2,5432");
    cr_assert_str_eq(param(&p, "dbname"), "d b");
    cr_assert_str_eq(param(&p, "user"), "x&y");
    cr_assert_str_eq(param(&p, "password"), "p");
    cr_assert_str_eq(param(&p, "sslmode"), "require");
    cr_assert_str_eq(param(&p, "options"), "-c search_path=my\\ schema");
    cr_assert_str_eq(param(&p, "application_name"), "app");
    weir__pg_params_fini(&p);
    /* The options win over the URL's user and password. */
    cr_assert_eq(weir__pg_params_parse("jdbc:postgresql://a/d?user=x&password=y",
                                       "opt-user", "opt-pw", &p, &e), 0);
    cr_assert_str_eq(param(&p, "user"), "opt-user");
    cr_assert_str_eq(param(&p, "password"), "opt-pw");
    weir__pg_params_fini(&p);
}

Test(pg_url, errors_say_where)
{
    weir__pg_params p;
    weir_error e = {0};
    cr_assert_neq(weir__pg_params_parse("jdbc:mysql://h/d", NULL, NULL, &p, &e), 0);
    cr_assert(strstr(e.message, "PostgreSQL only"), "%s", e.message);
    cr_assert_neq(weir__pg_params_parse("postgres://h/d", NULL, NULL, &p, &e), 0);
    cr_assert(strstr(e.message, "not a JDBC URL"), "%s", e.message);
    cr_assert_neq(weir__pg_params_parse("jdbc:postgresql://h:5x/d", NULL, NULL, &p, &e), 0);
    cr_assert(strstr(e.message, "a port that is not a number at offset 21"), "%s", e.message);
    cr_assert_neq(weir__pg_params_parse("jdbc:postgresql://h/d?sslmod=x", NULL, NULL, &p, &e), 0);
    cr_assert(strstr(e.message, "unknown parameter 'sslmod'; did you mean 'sslmode'?"), "%s", e.message);
    cr_assert(strstr(e.message, "offset 22"), "%s", e.message);
    cr_assert_neq(weir__pg_params_parse("jdbc:postgresql://h/d?user=%zz", NULL, NULL, &p, &e), 0);
    cr_assert(strstr(e.message, "bad %-escape"), "%s", e.message);
    cr_assert_neq(weir__pg_params_parse("jdbc:postgresql://[::1/d", NULL, NULL, &p, &e), 0);
    cr_assert(strstr(e.message, "IPv6"), "%s", e.message);
}

Test(pg_quote, identifiers_and_literals)
{
    weir_buf b;
    weir_buf_init(&b);
    cr_assert_eq(weir__pg_put_ident(&b, "we\"ird name"), 0);
    cr_assert_eq(weir__pg_put_literal(&b, " it's ''x", 9), 0);
    cr_assert_eq(weir_buf_put_u8(&b, 0), 0);
    cr_assert_str_eq((const char *)b.data, "\"we\"\"ird name\"' it''s ''''x'");
    weir_buf_fini(&b);
}

static weir_schema *two_columns(void)
{
    weir_schema *s = weir_schema_create();
    weir_schema_add(s, "k", weir_type_make(WEIR_TYPE_STRING, true));
    weir_schema_add(s, "n", weir_type_make(WEIR_TYPE_BIGINT, true));
    return s;
}

Test(jdbc_sink, options)
{
    weir_schema *s = two_columns();
    int bad = -1;
    weir_connector_env env = {.bad_option_index = &bad, .checkpointing = true,
                              .job_id = "/tmp/ckpt"};
    weir_operator_spec spec;
    weir_error e = {0};
    weir_option ok[] = {{"connector", "jdbc"},
                        {"url", "jdbc:postgresql://h/d"},
                        {"table-name", "t"},
                        {"sink.delivery-guarantee", "EXACTLY_ONCE"},
                        {"sink.buffer-flush.interval", "2 s"}};
    cr_assert_eq(weir_connector_sink_spec(NULL, ok, 5, s, &env, &spec, &e), 0, "%s", e.message);
    /* No primary key: append only, refused for a changelog. */
    const char *why = NULL;
    cr_assert_not(weir_sink_spec_accepts_changelog(&spec, &why));
    cr_assert(strstr(why, "PRIMARY KEY"));
    weir_operator_spec_release(&spec);
    const char *pk[] = {"k"};
    env.primary_keys = pk;
    env.n_primary_keys = 1;
    cr_assert_eq(weir_connector_sink_spec(NULL, ok, 5, s, &env, &spec, &e), 0, "%s", e.message);
    cr_assert(weir_sink_spec_accepts_changelog(&spec, &why));
    weir_operator_spec_release(&spec);
    /* A misspelled option: named, with the closest one. */
    weir_option typo[] = {{"connector", "jdbc"}, {"url", "jdbc:postgresql://h/d"},
                          {"table-name", "t"}, {"sink.buffer-flush.max-row", "5"}};
    cr_assert_neq(weir_connector_sink_spec(NULL, typo, 4, s, &env, &spec, &e), 0);
    cr_assert(strstr(e.message, "sink.buffer-flush.max-rows"), "%s", e.message);
    cr_assert_eq(bad, 3);
    /* A missing table-name. */
    cr_assert_neq(weir_connector_sink_spec(NULL, ok, 2, s, &env, &spec, &e), 0);
    cr_assert(strstr(e.message, "table-name"), "%s", e.message);
    /* exactly-once without checkpoints. */
    env.checkpointing = false;
    cr_assert_neq(weir_connector_sink_spec(NULL, ok, 5, s, &env, &spec, &e), 0);
    cr_assert(strstr(e.message, "execution.checkpointing.interval"), "%s", e.message);
    cr_assert_eq(bad, 3);
    weir_schema_destroy(s);
}
#else
Test(jdbc_sink, not_built_in)
{
    weir_operator_spec spec;
    weir_error e = {0};
    weir_option o[] = {{"connector", "jdbc"}};
    cr_assert_neq(weir_connector_sink_spec(NULL, o, 1, NULL, NULL, &spec, &e), 0);
    cr_assert(strstr(e.message, "libpq"), "%s", e.message);
}
#endif
