/*
 * tests/test_sql_parse.c - the SQL parser accepts the Flink SQL dialect:
 * every statement and construct parses into the expected tree. Trees are
 * checked through the canonical printer (input -> canonical text, and
 * canonical text parses and prints to itself) and, where the printer
 * cannot show it (precedence, positions, literal values), directly.
 * The Nexmark queries are golden files under tests/sql/parse/nexmark/.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql/ast.h"
#include "sql/lexer.h"
#include "weir/sql.h"

/* ---------------------------------------------------------------- helpers */

static weir_sql_script *parse_ok(const char *sql)
{
    weir_sql_script *s = NULL;
    weir_error err;
    int rc = weir_sql_parse("t.sql", sql, strlen(sql), &s, &err, NULL);
    cr_assert_eq(rc, 0, "parse failed: %s\n  input: %s", err.message, sql);
    cr_assert_not_null(s);
    return s;
}

static char *format_script(const weir_sql_script *s)
{
    weir_buf b;
    weir_buf_init(&b);
    cr_assert_eq(weir_sql_format_script(s, &b), 0);
    cr_assert_eq(weir_buf_put_u8(&b, 0), 0);
    return (char *)b.data; /* caller frees with weir_free */
}

/* Parses, prints, and checks that the printed text is a fixpoint. */
static char *canonical(const char *sql)
{
    weir_sql_script *s = parse_ok(sql);
    char *once = format_script(s);
    weir_sql_script_destroy(s);
    weir_sql_script *s2 = parse_ok(once);
    char *twice = format_script(s2);
    weir_sql_script_destroy(s2);
    cr_assert_str_eq(twice, once, "printing is not a fixpoint for: %s", sql);
    weir_free(twice);
    return once;
}

/* One statement: its canonical text must be `want` (no ';'). */
static void check(const char *sql, const char *want)
{
    char *got = canonical(sql);
    size_t n = strlen(got);
    cr_assert(n >= 2 && strcmp(got + n - 2, ";\n") == 0);
    got[n - 2] = '\0';
    cr_assert_str_eq(got, want, "\n  input: %s", sql);
    weir_free(got);
}

/* SELECT <expr> FROM t, checking only the expression's text. */
static void check_expr(const char *e, const char *want)
{
    char in[2048], out[2048];
    snprintf(in, sizeof in, "SELECT %s FROM t", e);
    snprintf(out, sizeof out, "SELECT %s FROM t", want);
    check(in, out);
}

static const weir_sql_query *stmt_query(const weir_sql_script *s, size_t i)
{
    const weir_sql_stmt *st = weir_sql_script_stmt(s, i);
    cr_assert_not_null(st);
    if (st->kind == WEIR_SQL_STMT_INSERT)
        return st->u.insert.query;
    cr_assert_eq(st->kind, WEIR_SQL_STMT_QUERY);
    return st->u.query.query;
}

/* The first select item of the first statement. */
static const weir_sql_expr *first_item(const weir_sql_script *s)
{
    const weir_sql_query *q = stmt_query(s, 0);
    cr_assert_eq(q->kind, WEIR_SQL_QUERY_SELECT);
    return q->u.select->items[0].expr;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* ---------------------------------------------------------------- lexing */

Test(sql_lex, keyword_table_is_sorted)
{
    cr_assert(weir__sql_keywords_sorted());
    cr_assert_eq(weir__sql_keyword_lookup("select", 6), WEIR__SQL_KW_SELECT);
    cr_assert_eq(weir__sql_keyword_lookup("SeLeCt", 6), WEIR__SQL_KW_SELECT);
    cr_assert_eq(weir__sql_keyword_lookup("selectx", 7), WEIR__SQL_KW_NONE);
    cr_assert(weir__sql_keyword_reserved(WEIR__SQL_KW_FROM));
    cr_assert_not(weir__sql_keyword_reserved(WEIR__SQL_KW_KEY));
}

Test(sql_lex, case_insensitive_keywords_comments_quotes)
{
    check("select A, `b c`, `x``y`, 'it''s' /* block\ncomment */ from T -- "
          "trailing\n",
          "SELECT A, `b c`, `x``y`, 'it''s' FROM T");
    check("SeLeCt\ta\r\nFrOm\tt", "SELECT a FROM t");
    /* Keywords in backticks are names; reserved ones print quoted. */
    check("SELECT `select`, `key`, `dateTime`, `value` FROM `from`",
          "SELECT `select`, `key`, dateTime, value FROM `from`");
    check("SELECT 'multi\nline', X'0aFF', '' FROM t",
          "SELECT 'multi\nline', X'0aFF', '' FROM t");
    /* No-break spaces and a byte order mark are white space. */
    check("\xEF\xBB\xBFSELECT\xC2\xA0"
          "a FROM t",
          "SELECT a FROM t");
    check("SELECT 名前 FROM t", "SELECT `名前` FROM t");
}

Test(sql_lex, numbers)
{
    check_expr("1, 12.5, .5, 1., 1e10, 1.5E-3, 2E+2, 007",
               "1, 12.5, .5, 1., 1e10, 1.5E-3, 2E+2, 007");
    weir_sql_script *s =
        parse_ok("SELECT 9223372036854775807, 9223372036854775808, 2.5, "
                 "1e3 FROM t");
    const weir_sql_select *sel = stmt_query(s, 0)->u.select;
    cr_assert_eq(sel->items[0].expr->u.lit.kind, WEIR_SQL_LIT_INTEGER);
    cr_assert_eq(sel->items[0].expr->u.lit.i64, INT64_MAX);
    cr_assert_not(sel->items[0].expr->u.lit.overflow);
    cr_assert(sel->items[1].expr->u.lit.overflow);
    cr_assert_eq(sel->items[2].expr->u.lit.kind, WEIR_SQL_LIT_DECIMAL);
    cr_assert_float_eq(sel->items[2].expr->u.lit.f64, 2.5, 1e-12);
    cr_assert_eq(sel->items[3].expr->u.lit.kind, WEIR_SQL_LIT_DOUBLE);
    cr_assert_float_eq(sel->items[3].expr->u.lit.f64, 1000.0, 1e-9);
    weir_sql_script_destroy(s);
}

Test(sql_lex, empty_scripts)
{
    const char *inputs[] = {"", "   ", ";;;", "-- only a comment",
                            "/* just this */ ;"};
    for (size_t i = 0; i < sizeof inputs / sizeof *inputs; i++) {
        weir_sql_script *s = parse_ok(inputs[i]);
        cr_assert_eq(weir_sql_script_count(s), 0);
        weir_sql_script_destroy(s);
    }
}

/* ------------------------------------------------------------- statements */

Test(sql_stmt, create_table_everything)
{
    check("create table if not exists cat.db.Orders (\n"
          "  id BIGINT NOT NULL COMMENT 'order id',\n"
          "  price DECIMAL(10, 2),\n"
          "  ts_ms BIGINT,\n"
          "  ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),\n"
          "  topic STRING METADATA FROM 'topic' VIRTUAL,\n"
          "  `offset` BIGINT METADATA VIRTUAL COMMENT 'kafka offset',\n"
          "  WATERMARK FOR ts AS ts - INTERVAL '3' SECOND,\n"
          "  PRIMARY KEY (id) NOT ENFORCED\n"
          ") COMMENT 'orders' PARTITIONED BY (id) WITH (\n"
          "  'connector' = 'filesystem', 'path' = '/tmp/o', 'format' = "
          "'json')",
          "CREATE TABLE IF NOT EXISTS cat.db.Orders (id BIGINT NOT NULL "
          "COMMENT 'order id', price DECIMAL(10, 2), ts_ms BIGINT, ts AS "
          "TO_TIMESTAMP_LTZ(ts_ms, 3), topic STRING METADATA FROM 'topic' "
          "VIRTUAL, `offset` BIGINT METADATA VIRTUAL COMMENT 'kafka offset', "
          "WATERMARK FOR ts AS ts - INTERVAL '3' SECOND, PRIMARY KEY (id) NOT "
          "ENFORCED) COMMENT 'orders' PARTITIONED BY (id) WITH ('connector' = "
          "'filesystem', 'path' = '/tmp/o', 'format' = 'json')");

    weir_sql_script *s = parse_ok(
        "CREATE TEMPORARY TABLE t (a INT, b AS a + 1, c STRING METADATA, "
        "CONSTRAINT pk PRIMARY KEY (a, c) NOT ENFORCED, WATERMARK FOR b AS "
        "b) WITH ('k' = 'v')");
    const weir_sql_stmt *st = weir_sql_script_stmt(s, 0);
    cr_assert_eq(weir_sql_stmt_get_kind(st), WEIR_SQL_STMT_CREATE_TABLE);
    const weir_sql_create_table *ct = &st->u.create_table;
    cr_assert(ct->temporary);
    cr_assert_eq(ct->n_columns, 3);
    cr_assert_eq(ct->columns[0].kind, WEIR_SQL_COLUMN_PHYSICAL);
    cr_assert_eq(ct->columns[0].type->kind, WEIR_SQL_TYPE_INT);
    cr_assert_eq(ct->columns[1].kind, WEIR_SQL_COLUMN_COMPUTED);
    cr_assert_eq(ct->columns[1].expr->kind, WEIR_SQL_EXPR_BINARY);
    cr_assert_eq(ct->columns[2].kind, WEIR_SQL_COLUMN_METADATA);
    cr_assert_null(ct->columns[2].metadata_key);
    cr_assert_str_eq(ct->primary_key->constraint_name->name, "pk");
    cr_assert_eq(ct->primary_key->n_columns, 2);
    cr_assert_eq(ct->primary_key->enforcement, WEIR_SQL_NOT_ENFORCED);
    cr_assert_str_eq(ct->watermark->column.parts[0].name, "b");
    cr_assert_eq(ct->n_options, 1);
    cr_assert_str_eq(ct->options[0].key, "k");
    cr_assert_str_eq(ct->options[0].value, "v");
    cr_assert_eq(ct->options[0].loc.col, 140);
    weir_sql_script_destroy(s);
}

Test(sql_stmt, create_table_variants)
{
    check("CREATE TABLE t (a INT PRIMARY KEY NOT ENFORCED, b INT)",
          "CREATE TABLE t (a INT PRIMARY KEY NOT ENFORCED, b INT)");
    check("CREATE TABLE t (a INT CONSTRAINT k PRIMARY KEY, b INT)",
          "CREATE TABLE t (a INT CONSTRAINT k PRIMARY KEY, b INT)");
    check("CREATE TABLE t2 WITH ('connector' = 'print') LIKE t1 (EXCLUDING "
          "ALL INCLUDING OPTIONS OVERWRITING WATERMARKS)",
          "CREATE TABLE t2 WITH ('connector' = 'print') LIKE t1 (EXCLUDING "
          "ALL INCLUDING OPTIONS OVERWRITING WATERMARKS)");
    check("CREATE TABLE t3 WITH ('connector' = 'print') AS SELECT * FROM t",
          "CREATE TABLE t3 WITH ('connector' = 'print') AS SELECT * FROM t");
    check("CREATE TABLE `my table` (`a b` INT) WITH ()",
          "CREATE TABLE `my table` (`a b` INT)");
}

Test(sql_stmt, data_types)
{
    check("CREATE TABLE t (a BOOLEAN, b TINYINT, c SMALLINT, d INTEGER, e "
          "INT, f BIGINT, g FLOAT, h REAL, i DOUBLE, j DOUBLE PRECISION, k "
          "DECIMAL, l DECIMAL(10), m NUMERIC(20, 3), n DEC(5, 1))",
          "CREATE TABLE t (a BOOLEAN, b TINYINT, c SMALLINT, d INT, e INT, f "
          "BIGINT, g FLOAT, h FLOAT, i DOUBLE, j DOUBLE, k DECIMAL, l "
          "DECIMAL(10), m DECIMAL(20, 3), n DECIMAL(5, 1))");
    check("CREATE TABLE t (a CHAR(3), b CHARACTER, c VARCHAR, d VARCHAR(10), "
          "e CHARACTER VARYING(4), f STRING, g BINARY(2), h VARBINARY(8), i "
          "BYTES)",
          "CREATE TABLE t (a CHAR(3), b CHAR, c VARCHAR, d VARCHAR(10), e "
          "VARCHAR(4), f STRING, g BINARY(2), h VARBINARY(8), i BYTES)");
    check("CREATE TABLE t (a DATE, b TIME, c TIME(3) WITHOUT TIME ZONE, d "
          "TIMESTAMP, e TIMESTAMP(3), f TIMESTAMP(6) WITHOUT TIME ZONE, g "
          "TIMESTAMP(3) WITH LOCAL TIME ZONE, h TIMESTAMP_LTZ(3), i "
          "TIMESTAMP_LTZ)",
          "CREATE TABLE t (a DATE, b TIME, c TIME(3), d TIMESTAMP, e "
          "TIMESTAMP(3), f TIMESTAMP(6), g TIMESTAMP_LTZ(3), h "
          "TIMESTAMP_LTZ(3), i TIMESTAMP_LTZ)");
    check("CREATE TABLE t (a ARRAY<INT NOT NULL> NOT NULL, b MAP<STRING, "
          "ARRAY<DOUBLE>>, c ROW<x INT, y STRING 'the y'>, d ROW(p BIGINT, q "
          "MULTISET<STRING>), e STRING ARRAY, f INT NOT NULL MULTISET NOT "
          "NULL, g ROW<>)",
          "CREATE TABLE t (a ARRAY<INT NOT NULL> NOT NULL, b MAP<STRING, "
          "ARRAY<DOUBLE>>, c ROW<x INT, y STRING 'the y'>, d ROW<p BIGINT, q "
          "MULTISET<STRING>>, e ARRAY<STRING>, f MULTISET<INT NOT NULL> NOT "
          "NULL, g ROW<>)");
    weir_sql_script *s = parse_ok(
        "CREATE TABLE t (a DECIMAL(10, 2), b TIMESTAMP(3) WITH LOCAL TIME "
        "ZONE NOT NULL, c MAP<STRING, INT>, d VARCHAR)");
    const weir_sql_column *c = s->stmts[0]->u.create_table.columns;
    cr_assert_eq(c[0].type->precision, 10);
    cr_assert_eq(c[0].type->scale, 2);
    cr_assert_eq(c[1].type->kind, WEIR_SQL_TYPE_TIMESTAMP_LTZ);
    cr_assert_eq(c[1].type->precision, 3);
    cr_assert(c[1].type->not_null);
    cr_assert_eq(c[2].type->elem->kind, WEIR_SQL_TYPE_STRING);
    cr_assert_eq(c[2].type->value->kind, WEIR_SQL_TYPE_INT);
    cr_assert_eq(c[3].type->precision, -1);
    weir_sql_script_destroy(s);
}

Test(sql_stmt, views_functions_drop)
{
    check("CREATE VIEW v AS SELECT a FROM t",
          "CREATE VIEW v AS SELECT a FROM t");
    check("create temporary view if not exists v (x, y) comment 'vv' as "
          "select a, b from t",
          "CREATE TEMPORARY VIEW IF NOT EXISTS v (x, y) COMMENT 'vv' AS SELECT "
          "a, b FROM t");
    check("CREATE FUNCTION count_char AS 'com.example.CountChar'",
          "CREATE FUNCTION count_char AS 'com.example.CountChar'");
    check("CREATE TEMPORARY SYSTEM FUNCTION IF NOT EXISTS db.f AS 'a.B' "
          "LANGUAGE JAVA USING JAR '/x.jar', JAR '/y.jar'",
          "CREATE TEMPORARY SYSTEM FUNCTION IF NOT EXISTS db.f AS 'a.B' "
          "LANGUAGE JAVA USING JAR '/x.jar', JAR '/y.jar'");
    check("drop table t", "DROP TABLE t");
    check("DROP TABLE IF EXISTS db.t", "DROP TABLE IF EXISTS db.t");
    check("DROP TEMPORARY VIEW IF EXISTS v", "DROP TEMPORARY VIEW IF EXISTS v");
    check("DROP TEMPORARY SYSTEM FUNCTION f",
          "DROP TEMPORARY SYSTEM FUNCTION f");
}

Test(sql_stmt, alter_and_replace)
{
    check("alter table t rename to db.t2", "ALTER TABLE t RENAME TO db.t2");
    check("ALTER TABLE IF EXISTS t RENAME a TO b",
          "ALTER TABLE IF EXISTS t RENAME a TO b");
    check("ALTER TABLE t SET ('k' = 'v', 'k2' = 'v2')",
          "ALTER TABLE t SET ('k' = 'v', 'k2' = 'v2')");
    check("ALTER TABLE t RESET ('k', 'k2')", "ALTER TABLE t RESET ('k', 'k2')");
    check("ALTER TABLE t ADD c INT NOT NULL COMMENT 'x' FIRST",
          "ALTER TABLE t ADD c INT NOT NULL COMMENT 'x' FIRST");
    check("ALTER TABLE t ADD (c AS a + 1 AFTER a, d STRING, WATERMARK FOR ts "
          "AS ts, PRIMARY KEY (d) NOT ENFORCED)",
          "ALTER TABLE t ADD (c AS a + 1 AFTER a, d STRING, WATERMARK FOR ts "
          "AS ts, PRIMARY KEY (d) NOT ENFORCED)");
    check("ALTER TABLE t MODIFY WATERMARK FOR ts AS ts - INTERVAL '1' SECOND",
          "ALTER TABLE t MODIFY WATERMARK FOR ts AS ts - INTERVAL '1' SECOND");
    check("ALTER TABLE t DROP a", "ALTER TABLE t DROP (a)");
    check("ALTER TABLE t DROP (a, b)", "ALTER TABLE t DROP (a, b)");
    check("ALTER TABLE t DROP PRIMARY KEY", "ALTER TABLE t DROP PRIMARY KEY");
    check("ALTER TABLE t DROP CONSTRAINT pk", "ALTER TABLE t DROP CONSTRAINT pk");
    check("ALTER TABLE t DROP WATERMARK", "ALTER TABLE t DROP WATERMARK");
    check("ALTER VIEW v RENAME TO w", "ALTER VIEW v RENAME TO w");
    check("ALTER VIEW v AS SELECT 1", "ALTER VIEW v AS SELECT 1");
    check("create or replace table t with ('connector' = 'print') as select 1",
          "CREATE OR REPLACE TABLE t WITH ('connector' = 'print') AS SELECT 1");
    check("REPLACE TABLE t AS SELECT 1", "REPLACE TABLE t AS SELECT 1");
    check("SET table.exec.mini-batch.enabled = true",
          "SET 'table.exec.mini-batch.enabled' = 'true'");
    check("SET 'a' = b c", "SET 'a' = 'b c'");
}

Test(sql_stmt, insert)
{
    check("INSERT INTO sink SELECT * FROM src",
          "INSERT INTO sink SELECT * FROM src");
    check("insert into sink (a, b) select x, y from src",
          "INSERT INTO sink (a, b) SELECT x, y FROM src");
    check("INSERT INTO sink (SELECT x FROM src)",
          "INSERT INTO sink SELECT x FROM src");
    check("INSERT OVERWRITE t PARTITION (dt = '2024-01-01', hr = 3) (a) "
          "VALUES (1), (2)",
          "INSERT OVERWRITE t PARTITION (dt = '2024-01-01', hr = 3) (a) VALUES "
          "(1), (2)");
    check("EXECUTE INSERT INTO t SELECT 1", "EXECUTE INSERT INTO t SELECT 1");
    check("INSERT INTO t /*+ OPTIONS('sink.parallelism' = '2') */ SELECT 1",
          "INSERT INTO t /*+ OPTIONS('sink.parallelism' = '2') */ SELECT 1");
}

Test(sql_stmt, statement_sets)
{
    const char *exec = "EXECUTE STATEMENT SET BEGIN\n"
                       "  INSERT INTO a SELECT x FROM t;\n"
                       "  INSERT INTO b SELECT y FROM t;\n"
                       "END;";
    check(exec, "EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT x FROM t; "
                "INSERT INTO b SELECT y FROM t; END");
    weir_sql_script *s = parse_ok(exec);
    const weir_sql_stmt *st = weir_sql_script_stmt(s, 0);
    cr_assert_eq(st->kind, WEIR_SQL_STMT_STATEMENT_SET);
    cr_assert(st->u.statement_set.execute_form);
    cr_assert_eq(st->u.statement_set.n_inserts, 2);
    cr_assert_eq(st->u.statement_set.inserts[1]->kind, WEIR_SQL_STMT_INSERT);
    cr_assert_eq(st->u.statement_set.inserts[1]->loc.line, 3);
    weir_sql_script_destroy(s);

    const char *script = "SET 'parallelism.default' = '2';\n"
                         "BEGIN STATEMENT SET;\n"
                         "INSERT INTO a SELECT x FROM t;\n"
                         "INSERT INTO b SELECT y FROM t;\n"
                         "END;\n"
                         "SELECT 1;";
    char *out = canonical(script);
    cr_assert_str_eq(out, "SET 'parallelism.default' = '2';\n"
                          "BEGIN STATEMENT SET; INSERT INTO a SELECT x FROM t; "
                          "INSERT INTO b SELECT y FROM t; END;\n"
                          "SELECT 1;\n");
    weir_free(out);
    s = parse_ok(script);
    cr_assert_eq(weir_sql_script_count(s), 3);
    st = weir_sql_script_stmt(s, 1);
    cr_assert_eq(st->kind, WEIR_SQL_STMT_STATEMENT_SET);
    cr_assert_not(st->u.statement_set.execute_form);
    cr_assert_eq(st->u.statement_set.n_inserts, 2);
    weir_sql_script_destroy(s);
}

Test(sql_stmt, set_reset_explain_show)
{
    check("SET 'table.exec.emit.allow-lateness' = '1 h'",
          "SET 'table.exec.emit.allow-lateness' = '1 h'");
    check("set", "SET");
    check("RESET", "RESET");
    check("reset 'a.b'", "RESET 'a.b'");
    check("EXPLAIN SELECT 1", "EXPLAIN SELECT 1");
    check("explain plan for insert into t select 1",
          "EXPLAIN PLAN FOR INSERT INTO t SELECT 1");
    check("EXPLAIN CHANGELOG_MODE, ESTIMATED_COST SELECT a FROM t",
          "EXPLAIN CHANGELOG_MODE, ESTIMATED_COST SELECT a FROM t");
    check("EXPLAIN STATEMENT SET BEGIN INSERT INTO a SELECT 1; END",
          "EXPLAIN STATEMENT SET BEGIN INSERT INTO a SELECT 1; END");
    check("EXPLAIN EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT 1; END",
          "EXPLAIN STATEMENT SET BEGIN INSERT INTO a SELECT 1; END");
    check("SHOW TABLES", "SHOW TABLES");
    check("show create view v", "SHOW CREATE VIEW v");
    check("DESC t", "DESCRIBE t");
    check("DESCRIBE EXTENDED db.t", "DESCRIBE EXTENDED db.t");
    check("show columns in db.t not ilike 'a\\_%'",
          "SHOW COLUMNS FROM db.t NOT ILIKE 'a\\_%'");
    check("SHOW TABLES LIKE 'o%'", "SHOW TABLES LIKE 'o%'");
    check("SHOW VIEWS NOT LIKE 'o%'", "SHOW VIEWS NOT LIKE 'o%'");
    check("show current catalog", "SHOW CURRENT CATALOG");
    check("SHOW CURRENT DATABASE", "SHOW CURRENT DATABASE");
    check("USE CATALOG c", "USE CATALOG c");
    check("USE db", "USE db");
    check("use `c`.db", "USE c.db");
    check("show tables from c.db like 'o%'", "SHOW TABLES FROM c.db LIKE 'o%'");
    check("SHOW VIEWS IN db", "SHOW VIEWS FROM db");
    check("show user functions in db not ilike 'a%'", "SHOW USER FUNCTIONS FROM db NOT ILIKE 'a%'");
    check("SHOW FUNCTIONS", "SHOW FUNCTIONS");
    check("show databases from c like 'x_'", "SHOW DATABASES FROM c LIKE 'x_'");
    check("SHOW CATALOGS ILIKE 'M%'", "SHOW CATALOGS ILIKE 'M%'");
    check("show create catalog c", "SHOW CREATE CATALOG c");
    weir_sql_script *s = parse_ok("EXPLAIN PLAN FOR SELECT 1; SET 'a' = 'b'");
    cr_assert_eq(s->stmts[0]->kind, WEIR_SQL_STMT_EXPLAIN);
    cr_assert(s->stmts[0]->u.explain.plan_for);
    cr_assert_eq(s->stmts[0]->u.explain.stmt->kind, WEIR_SQL_STMT_QUERY);
    cr_assert_str_eq(s->stmts[1]->u.set.key, "a");
    cr_assert_str_eq(s->stmts[1]->u.set.value, "b");
    cr_assert_str_eq(weir_sql_stmt_kind_name(s->stmts[1]->kind), "SET");
    weir_sql_script_destroy(s);
}

Test(sql_stmt, catalogs_and_databases)
{
    check("create catalog if not exists c comment 'x' with ('type' = 'generic_in_memory')",
          "CREATE CATALOG IF NOT EXISTS c COMMENT 'x' WITH ('type' = 'generic_in_memory')");
    check("CREATE DATABASE c.db", "CREATE DATABASE c.db");
    check("create database if not exists db comment 'the db' with ('k' = 'v')",
          "CREATE DATABASE IF NOT EXISTS db COMMENT 'the db' WITH ('k' = 'v')");
    check("drop database if exists c.db cascade", "DROP DATABASE IF EXISTS c.db CASCADE");
    check("DROP DATABASE db RESTRICT", "DROP DATABASE db");
    check("drop catalog if exists c", "DROP CATALOG IF EXISTS c");
    check("alter database c.db set ('k' = 'v')", "ALTER DATABASE c.db SET ('k' = 'v')");
    check("ALTER CATALOG c SET ('default-database' = 'x')", "ALTER CATALOG c SET ('default-database' = 'x')");
    check("alter catalog c reset ('default-database')", "ALTER CATALOG c RESET ('default-database')");
    weir_sql_script *cs = parse_ok("DROP DATABASE d CASCADE; CREATE CATALOG c WITH ('type' = 't')");
    cr_assert_eq(cs->stmts[0]->u.drop.object, WEIR_SQL_OBJECT_DATABASE);
    cr_assert(cs->stmts[0]->u.drop.cascade);
    cr_assert_eq(cs->stmts[1]->kind, WEIR_SQL_STMT_CREATE_CATALOG);
    cr_assert_eq(cs->stmts[1]->u.create_catalog.n_options, 1);
    cr_assert_str_eq(weir_sql_stmt_kind_name(cs->stmts[1]->kind), "CREATE CATALOG");
    weir_sql_script_destroy(cs);
}

Test(sql_stmt, statement_text_and_locations)
{
    const char *sql = "-- header\n"
                      "SELECT a\n"
                      "  FROM t ;\n"
                      "\tINSERT INTO s SELECT * FROM t";
    weir_sql_script *s = parse_ok(sql);
    cr_assert_eq(weir_sql_script_count(s), 2);
    size_t n;
    const char *text = weir_sql_stmt_text(weir_sql_script_stmt(s, 0), &n);
    cr_assert_eq(n, strlen("SELECT a\n  FROM t"));
    cr_assert_eq(strncmp(text, "SELECT a\n  FROM t", n), 0);
    weir_sql_loc loc = weir_sql_stmt_loc(weir_sql_script_stmt(s, 1));
    cr_assert_eq(loc.line, 4);
    cr_assert_eq(loc.col, 2);
    cr_assert_eq(loc.offset, (uint32_t)(strchr(sql, 'I') - sql));
    text = weir_sql_stmt_text(weir_sql_script_stmt(s, 1), &n);
    cr_assert_eq(n, strlen("INSERT INTO s SELECT * FROM t"));
    cr_assert_str_eq(weir_sql_script_file(s), "t.sql");
    weir_sql_script_destroy(s);
}

/* ------------------------------------------------------------ expressions */

Test(sql_expr, precedence_and_parentheses)
{
    check_expr("a + b * c", "a + b * c");
    check_expr("(a + b) * c", "(a + b) * c");
    check_expr("a - (b - c)", "a - (b - c)");
    check_expr("(a - b) - c", "a - b - c");
    check_expr("-a * b, -(a * b), - -a, -(-a), +a, -+a, - - -1",
               "-a * b, -(a * b), - -a, - -a, +a, - +a, - - -1");
    check_expr("a AND NOT b, NOT NOT a, a = (NOT b), -(NOT a)",
               "a AND NOT b, NOT NOT a, a = (NOT b), -(NOT a)");
    check_expr("a OR b AND c", "a OR b AND c");
    check_expr("(a OR b) AND c", "(a OR b) AND c");
    check_expr("NOT a = b", "NOT a = b");
    check_expr("NOT (a OR b)", "NOT (a OR b)");
    check_expr("a = b IS NULL", "a = b IS NULL");
    check_expr("a = (b IS NULL)", "a = (b IS NULL)");
    check_expr("(a AND b) IS NOT TRUE", "(a AND b) IS NOT TRUE");
    check_expr("'a' || 'b' || c", "'a' || 'b' || c");
    check_expr("a || b + c", "a || b + c");
    check_expr("a % 2 = 0", "a % 2 = 0");
    check_expr("a <> b, a != b, a < b, a <= b, a > b, a >= b",
               "a <> b, a <> b, a < b, a <= b, a > b, a >= b");

    /* The tree, not just the text: AND binds tighter than OR, '=' tighter
     * than IS, || as tight as '*'. */
    weir_sql_script *s = parse_ok("SELECT a OR b AND c, a = b IS NULL, "
                                  "a || b + c FROM t");
    const weir_sql_select *sel = stmt_query(s, 0)->u.select;
    const weir_sql_expr *e = sel->items[0].expr;
    cr_assert_eq(e->u.binary.op, WEIR_SQL_OP_OR);
    cr_assert_eq(e->u.binary.right->u.binary.op, WEIR_SQL_OP_AND);
    e = sel->items[1].expr;
    cr_assert_eq(e->kind, WEIR_SQL_EXPR_IS);
    cr_assert_eq(e->u.is.operand->u.binary.op, WEIR_SQL_OP_EQ);
    e = sel->items[2].expr;
    cr_assert_eq(e->u.binary.op, WEIR_SQL_OP_ADD);
    cr_assert_eq(e->u.binary.left->u.binary.op, WEIR_SQL_OP_CONCAT);
    weir_sql_script_destroy(s);
}

Test(sql_expr, predicates)
{
    check_expr("a IS NULL, a IS NOT NULL, a IS TRUE, a IS NOT FALSE, a IS "
               "UNKNOWN, a IS DISTINCT FROM b, a IS NOT DISTINCT FROM b",
               "a IS NULL, a IS NOT NULL, a IS TRUE, a IS NOT FALSE, a IS "
               "UNKNOWN, a IS DISTINCT FROM b, a IS NOT DISTINCT FROM b");
    check_expr("a BETWEEN 1 AND 2 AND c", "a BETWEEN 1 AND 2 AND c");
    check_expr("a NOT BETWEEN ASYMMETRIC b - 1 AND b + 1",
               "a NOT BETWEEN b - 1 AND b + 1");
    check_expr("a BETWEEN SYMMETRIC 2 AND 1", "a BETWEEN SYMMETRIC 2 AND 1");
    check_expr("a IN (1, 2, 3), a NOT IN ('x')",
               "a IN (1, 2, 3), a NOT IN ('x')");
    check_expr("a IN (SELECT b FROM u), a NOT IN (SELECT b FROM u)",
               "a IN (SELECT b FROM u), a NOT IN (SELECT b FROM u)");
    check_expr("s LIKE 'a%', s NOT LIKE 'a!%' ESCAPE '!', s SIMILAR TO "
               "'[ab]+', s NOT SIMILAR TO 'x'",
               "s LIKE 'a%', s NOT LIKE 'a!%' ESCAPE '!', s SIMILAR TO "
               "'[ab]+', s NOT SIMILAR TO 'x'");
    check_expr("EXISTS (SELECT 1 FROM u WHERE u.a = t.a)",
               "EXISTS (SELECT 1 FROM u WHERE u.a = t.a)");

    weir_sql_script *s = parse_ok("SELECT a NOT BETWEEN 1 AND 2, b NOT IN "
                                  "(1), c NOT LIKE 'x' FROM t");
    const weir_sql_select *sel = stmt_query(s, 0)->u.select;
    cr_assert(sel->items[0].expr->u.between.negated);
    cr_assert_not(sel->items[0].expr->u.between.symmetric);
    cr_assert(sel->items[1].expr->u.in_list.negated);
    cr_assert(sel->items[2].expr->u.like.negated);
    cr_assert_not(sel->items[2].expr->u.like.similar);
    weir_sql_script_destroy(s);
}

Test(sql_expr, case_cast_extract)
{
    check_expr("CASE WHEN a > 0 THEN 'pos' WHEN a < 0 THEN 'neg' ELSE 'zero' "
               "END",
               "CASE WHEN a > 0 THEN 'pos' WHEN a < 0 THEN 'neg' ELSE 'zero' "
               "END");
    check_expr("case a when 1 then 'one' end", "CASE a WHEN 1 THEN 'one' END");
    check_expr("CAST(a AS DECIMAL(10, 2)), TRY_CAST(s AS INT NOT NULL), "
               "CAST(x AS TIMESTAMP(3) WITH LOCAL TIME ZONE)",
               "CAST(a AS DECIMAL(10, 2)), TRY_CAST(s AS INT NOT NULL), "
               "CAST(x AS TIMESTAMP_LTZ(3))");
    check_expr("EXTRACT(year FROM ts), EXTRACT(DOW FROM d), "
               "EXTRACT(MILLISECOND FROM ts)",
               "EXTRACT(YEAR FROM ts), EXTRACT(DOW FROM d), "
               "EXTRACT(MILLISECOND FROM ts)");
    weir_sql_script *s = parse_ok("SELECT CASE x WHEN 1 THEN 2 END FROM t");
    const weir_sql_expr *e = first_item(s);
    cr_assert_eq(e->kind, WEIR_SQL_EXPR_CASE);
    cr_assert_not_null(e->u.case_.operand);
    cr_assert_eq(e->u.case_.n_whens, 1);
    cr_assert_null(e->u.case_.else_);
    weir_sql_script_destroy(s);
}

Test(sql_expr, literals_and_values)
{
    check_expr("TRUE, FALSE, NULL, UNKNOWN", "TRUE, FALSE, NULL, NULL");
    check_expr("DATE '2024-02-29', TIME '23:59:59.5', TIMESTAMP '2024-01-31 "
               "12:30:00.123', TIMESTAMP '2024-01-31 12:30'",
               "DATE '2024-02-29', TIME '23:59:59.5', TIMESTAMP '2024-01-31 "
               "12:30:00.123', TIMESTAMP '2024-01-31 12:30'");
    weir_sql_script *s = parse_ok(
        "SELECT DATE '1970-01-02', TIME '01:00:00.250', TIMESTAMP "
        "'1970-01-01 00:00:01.5', TIMESTAMP '1969-12-31 23:59:59' FROM t");
    const weir_sql_select *sel = stmt_query(s, 0)->u.select;
    cr_assert_eq(sel->items[0].expr->u.lit.kind, WEIR_SQL_LIT_DATE);
    cr_assert_eq(sel->items[0].expr->u.lit.i64, 1);
    cr_assert_eq(sel->items[1].expr->u.lit.i64, 3600250);
    cr_assert_eq(sel->items[2].expr->u.lit.i64, 1500);
    cr_assert_eq(sel->items[3].expr->u.lit.i64, -1000);
    weir_sql_script_destroy(s);
}

Test(sql_expr, intervals)
{
    check_expr("INTERVAL '10' SECOND, INTERVAL '1' MINUTE, INTERVAL '2' HOUR, "
               "INTERVAL '1' DAY, INTERVAL '1-2' YEAR TO MONTH, INTERVAL '10' "
               "MINUTES, INTERVAL '3' DAYS, INTERVAL '2' YEARS, INTERVAL '5' "
               "SECONDS, INTERVAL '7' MONTHS, INTERVAL '4' HOURS",
               "INTERVAL '10' SECOND, INTERVAL '1' MINUTE, INTERVAL '2' HOUR, "
               "INTERVAL '1' DAY, INTERVAL '1-2' YEAR TO MONTH, INTERVAL '10' "
               "MINUTE, INTERVAL '3' DAY, INTERVAL '2' YEAR, INTERVAL '5' "
               "SECOND, INTERVAL '7' MONTH, INTERVAL '4' HOUR");
    check_expr("INTERVAL '1 02:03:04.5' DAY TO SECOND, INTERVAL '1:30' HOUR TO "
               "MINUTE, INTERVAL -'1' DAY, INTERVAL '100' DAY(3), INTERVAL "
               "'1.25' SECOND(3)",
               "INTERVAL '1 02:03:04.5' DAY TO SECOND, INTERVAL '1:30' HOUR TO "
               "MINUTE, INTERVAL -'1' DAY, INTERVAL '100' DAY(3), INTERVAL "
               "'1.25' SECOND(3)");
    check_expr("INTERVAL '500' MILLISECOND, INTERVAL '7' MILLISECONDS, "
               "INTERVAL '4000' MICROSECOND, INTERVAL '1000' MICROSECONDS",
               "INTERVAL '500' MILLISECOND, INTERVAL '7' MILLISECOND, "
               "INTERVAL '4000' MICROSECOND, INTERVAL '1000' MICROSECOND");
    struct {
        const char *sql;
        bool ym;
        int64_t v;
    } cases[] = {
        {"INTERVAL '10' MINUTES", false, 600000},
        {"INTERVAL '4' SECOND", false, 4000},
        {"INTERVAL '1.5' SECOND", false, 1500},
        {"INTERVAL '2' HOUR", false, 7200000},
        {"INTERVAL '1' DAY", false, 86400000},
        {"INTERVAL '1 02:03:04.005' DAY TO SECOND", false, 93784005},
        {"INTERVAL '1 2' DAY TO HOUR", false, 93600000},
        {"INTERVAL '02:30' HOUR TO MINUTE", false, 9000000},
        {"INTERVAL '1:02:03' HOUR TO SECOND", false, 3723000},
        {"INTERVAL '2:03.5' MINUTE TO SECOND", false, 123500},
        {"INTERVAL '-10' SECOND", false, -10000},
        {"INTERVAL -'10' SECOND", false, -10000},
        {"INTERVAL -'-10' SECOND", false, 10000},
        {"INTERVAL ' 5 ' MINUTE", false, 300000},
        {"INTERVAL '1-2' YEAR TO MONTH", true, 14},
        {"INTERVAL '3' YEARS", true, 36},
        {"INTERVAL '5' MONTH", true, 5},
        /* Flink's spelling for sub-second intervals (watermark delays) */
        {"INTERVAL '500' MILLISECOND", false, 500},
        {"INTERVAL '1500' MILLISECONDS", false, 1500},
        {"INTERVAL -'250' MILLISECOND", false, -250},
        {"INTERVAL '2000' MICROSECOND", false, 2},
        {"INTERVAL '3000000' MICROSECONDS", false, 3000},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char sql[128];
        snprintf(sql, sizeof sql, "SELECT %s", cases[i].sql);
        weir_sql_script *s = parse_ok(sql);
        const weir_sql_expr *e = first_item(s);
        cr_assert_eq(e->u.lit.kind, WEIR_SQL_LIT_INTERVAL);
        const weir_sql_interval *iv = &e->u.lit.interval;
        cr_assert_eq(iv->year_month, cases[i].ym, "%s", cases[i].sql);
        cr_assert_eq(cases[i].ym ? iv->months : iv->ms, cases[i].v,
                     "%s: got %lld", cases[i].sql,
                     (long long)(cases[i].ym ? iv->months : iv->ms));
        weir_sql_script_destroy(s);
    }
}

Test(sql_expr, function_calls)
{
    check_expr("COUNT(*), count(DISTINCT bidder), SUM(ALL x), f(), "
               "db.udf(a, b), `my fn`(x)",
               "COUNT(*), count(DISTINCT bidder), SUM(ALL x), f(), "
               "db.udf(a, b), `my fn`(x)");
    check_expr("count(*) filter (where price < 10000), count(distinct "
               "bidder) FILTER (WHERE price >= 1000000)",
               "count(*) FILTER (WHERE price < 10000), count(DISTINCT bidder) "
               "FILTER (WHERE price >= 1000000)");
    check_expr("TO_TIMESTAMP_LTZ(ts_ms, 3), DATE_FORMAT(ts, 'yyyy-MM-dd'), "
               "UNIX_TIMESTAMP(), CURRENT_WATERMARK(ts), SPLIT_INDEX(url, "
               "'/', 3), REGEXP_EXTRACT(url, '(&|^)c=([^&]*)', 2), "
               "COALESCE(a, b, 0), MOD(a, 2), HOUR(ts), YEAR(d), LEFT(s, 2), "
               "RIGHT(s, 1), IF(a, 1, 2), ROW(a, b), PROCTIME()",
               "TO_TIMESTAMP_LTZ(ts_ms, 3), DATE_FORMAT(ts, 'yyyy-MM-dd'), "
               "UNIX_TIMESTAMP(), CURRENT_WATERMARK(ts), SPLIT_INDEX(url, "
               "'/', 3), REGEXP_EXTRACT(url, '(&|^)c=([^&]*)', 2), "
               "COALESCE(a, b, 0), MOD(a, 2), HOUR(ts), YEAR(d), LEFT(s, 2), "
               "RIGHT(s, 1), IF(a, 1, 2), ROW(a, b), PROCTIME()");
    check_expr("CURRENT_TIMESTAMP, CURRENT_DATE, CURRENT_TIME, LOCALTIME, "
               "LOCALTIMESTAMP, LOCALTIMESTAMP(3)",
               "CURRENT_TIMESTAMP, CURRENT_DATE, CURRENT_TIME, LOCALTIME, "
               "LOCALTIMESTAMP, LOCALTIMESTAMP(3)");
    check_expr("TRIM(BOTH 'x' FROM s), TRIM(LEADING FROM s), TRIM(' ' FROM "
               "s), TRIM(s), POSITION('a' IN s), SUBSTRING(s FROM 2 FOR 3), "
               "SUBSTRING(s FROM 2), SUBSTRING(s, 2, 3), OVERLAY(s PLACING 'x' "
               "FROM 2 FOR 1), FLOOR(ts TO HOUR), CEIL(ts TO DAY), FLOOR(x), "
               "CEILING(x)",
               "TRIM(BOTH 'x' FROM s), TRIM(LEADING FROM s), TRIM(' ' FROM "
               "s), TRIM(s), POSITION('a' IN s), SUBSTRING(s FROM 2 FOR 3), "
               "SUBSTRING(s FROM 2), SUBSTRING(s, 2, 3), OVERLAY(s PLACING 'x' "
               "FROM 2 FOR 1), FLOOR(ts TO HOUR), CEIL(ts TO DAY), FLOOR(x), "
               "CEILING(x)");
    check_expr("ARRAY[1, 2], MAP['a', 1, 'b', 2], tags[1], m['k'], "
               "ARRAY[1][1]",
               "ARRAY[1, 2], MAP['a', 1, 'b', 2], tags[1], m['k'], "
               "ARRAY[1][1]");
    check_expr("TIMESTAMPADD(HOUR, 2, ts), timestampdiff(days, a, b)",
               "TIMESTAMPADD(HOUR, 2, ts), timestampdiff(DAY, a, b)");
    /* Keywords spelled as plain calls keep their meaning when printed. */
    check_expr("`EXTRACT`(a, b), `position`(a), `DESCRIPTOR`(x)",
               "`EXTRACT`(a, b), `position`(a), `DESCRIPTOR`(x)");

    weir_sql_script *s =
        parse_ok("SELECT COUNT(*), count(DISTINCT x) FILTER (WHERE y > 1), "
                 "TRIM(LEADING 'x' FROM s), CURRENT_TIMESTAMP FROM t");
    const weir_sql_select *sel = stmt_query(s, 0)->u.select;
    cr_assert(sel->items[0].expr->u.call.star);
    cr_assert_eq(sel->items[0].expr->u.call.n_args, 0);
    cr_assert(sel->items[1].expr->u.call.distinct);
    cr_assert_not_null(sel->items[1].expr->u.call.filter);
    const weir_sql_expr *trim = sel->items[2].expr;
    cr_assert_eq(trim->u.call.syntax, WEIR_SQL_CALL_TRIM);
    cr_assert_eq(trim->u.call.trim, WEIR_SQL_TRIM_LEADING);
    cr_assert_eq(trim->u.call.n_args, 2);
    cr_assert_str_eq(trim->u.call.args[0]->u.column.parts[0].name, "s");
    cr_assert_eq(sel->items[3].expr->u.call.syntax, WEIR_SQL_CALL_NO_PARENS);
    weir_sql_script_destroy(s);

    s = parse_ok("SELECT TIMESTAMPDIFF(MINUTE, a, b) FROM t");
    const weir_sql_expr *td = first_item(s);
    cr_assert_eq(td->u.call.syntax, WEIR_SQL_CALL_UNIT_FIRST);
    cr_assert_eq(td->u.call.unit, WEIR_SQL_UNIT_MINUTE);
    cr_assert_eq(td->u.call.n_args, 2);
    weir_sql_script_destroy(s);
}

Test(sql_expr, json_functions)
{
    check_expr("JSON_VALUE(p, '$.a'), json_value(p, 'lax $.a' RETURNING INT "
               "DEFAULT -1 ON EMPTY ERROR ON ERROR), JSON_VALUE(p, '$.b' NULL "
               "ON EMPTY DEFAULT 'x' ON ERROR)",
               "JSON_VALUE(p, '$.a'), json_value(p, 'lax $.a' RETURNING INT "
               "DEFAULT -1 ON EMPTY ERROR ON ERROR), JSON_VALUE(p, '$.b' "
               "RETURNING STRING DEFAULT 'x' ON ERROR)");
    check_expr("JSON_EXISTS(p, '$.a'), JSON_EXISTS(p, '$.a' unknown ON ERROR)",
               "JSON_EXISTS(p, '$.a'), JSON_EXISTS(p, '$.a' UNKNOWN ON ERROR)");
    check_expr("JSON_QUERY(p, '$'), JSON_QUERY(p, '$' WITH WRAPPER), "
               "JSON_QUERY(p, '$' WITH CONDITIONAL ARRAY WRAPPER EMPTY ARRAY "
               "ON EMPTY EMPTY OBJECT ON ERROR), JSON_QUERY(p, '$' NULL ON "
               "EMPTY ERROR ON ERROR)",
               "JSON_QUERY(p, '$'), JSON_QUERY(p, '$' WITH UNCONDITIONAL "
               "ARRAY WRAPPER), JSON_QUERY(p, '$' WITH CONDITIONAL ARRAY "
               "WRAPPER EMPTY ARRAY ON EMPTY EMPTY OBJECT ON ERROR), "
               "JSON_QUERY(p, '$' WITHOUT ARRAY WRAPPER ERROR ON ERROR)");
    check_expr("p IS JSON, p IS NOT JSON OBJECT, a = (p IS JSON SCALAR)",
               "(p IS JSON), NOT (p IS JSON OBJECT), a = (p IS JSON SCALAR)");
    check_expr("JSON_OBJECT(), JSON_OBJECT(KEY 'k' VALUE v, 'n' VALUE "
               "JSON_ARRAY(1, NULL NULL ON NULL) ABSENT ON NULL), JSON_ARRAY()",
               "JSON_OBJECT(NULL ON NULL), JSON_OBJECT(KEY 'k' VALUE v, KEY "
               "'n' VALUE JSON_ARRAY(1, NULL NULL ON NULL) ABSENT ON NULL), "
               "JSON_ARRAY(ABSENT ON NULL)");
    /* Written as a plain call, the name stays quoted so it reads back as one. */
    check_expr("`JSON_VALUE`(p, '$', 'INT', 0, NULL, 0, NULL)",
               "`JSON_VALUE`(p, '$', 'INT', 0, NULL, 0, NULL)");
    /* JSON_ARRAYAGG reads as what it computes */
    check_expr("JSON_ARRAYAGG(v), JSON_ARRAYAGG(JSON_OBJECT('a' VALUE v) NULL ON NULL) FILTER (WHERE v > 0)",
               "CONCAT('[', COALESCE(LISTAGG(JSON_STRING(v), ','), ''), ']'), CONCAT('[', "
               "COALESCE(LISTAGG(COALESCE(JSON_OBJECT(KEY 'a' VALUE v NULL ON NULL), 'null'), ',') "
               "FILTER (WHERE v > 0), ''), ']')");
}

Test(sql_expr, null_treatment)
{
    check_expr("ARRAY_AGG(x), array_agg(x ignore nulls), ARRAY_AGG(DISTINCT x RESPECT NULLS), f(ignore)",
               "ARRAY_AGG(x), array_agg(x IGNORE NULLS), ARRAY_AGG(DISTINCT x RESPECT NULLS), f(ignore)");
}

Test(sql_expr, over_windows)
{
    check_expr("ROW_NUMBER() OVER (PARTITION BY a ORDER BY b DESC, c ASC "
               "NULLS FIRST)",
               "ROW_NUMBER() OVER (PARTITION BY a ORDER BY b DESC, c ASC "
               "NULLS FIRST)");
    check_expr("AVG(price) OVER (PARTITION BY seller ORDER BY ts ROWS BETWEEN "
               "10 PRECEDING AND CURRENT ROW)",
               "AVG(price) OVER (PARTITION BY seller ORDER BY ts ROWS BETWEEN "
               "10 PRECEDING AND CURRENT ROW)");
    check_expr("SUM(x) OVER (ORDER BY ts RANGE BETWEEN INTERVAL '1' HOUR "
               "PRECEDING AND CURRENT ROW), SUM(x) OVER (ORDER BY ts ROWS "
               "UNBOUNDED PRECEDING), MAX(x) OVER (ORDER BY ts ROWS BETWEEN "
               "UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING), MIN(x) OVER ()",
               "SUM(x) OVER (ORDER BY ts RANGE BETWEEN INTERVAL '1' HOUR "
               "PRECEDING AND CURRENT ROW), SUM(x) OVER (ORDER BY ts ROWS "
               "UNBOUNDED PRECEDING), MAX(x) OVER (ORDER BY ts ROWS BETWEEN "
               "UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING), MIN(x) OVER ()");
    check("SELECT SUM(x) OVER w, AVG(x) OVER (w ROWS 2 PRECEDING) FROM t "
          "WINDOW w AS (PARTITION BY k ORDER BY ts)",
          "SELECT SUM(x) OVER w, AVG(x) OVER (w ROWS 2 PRECEDING) FROM t "
          "WINDOW w AS (PARTITION BY k ORDER BY ts)");
    weir_sql_script *s =
        parse_ok("SELECT AVG(p) OVER (PARTITION BY s ORDER BY ts RANGE "
                 "BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW) FROM t");
    const weir_sql_window *w = first_item(s)->u.call.over;
    cr_assert_not_null(w);
    cr_assert_eq(w->n_partition_by, 1);
    cr_assert_eq(w->n_order_by, 1);
    cr_assert_not(w->frame->rows);
    cr_assert_eq(w->frame->start.kind, WEIR_SQL_BOUND_PRECEDING);
    cr_assert_eq(w->frame->start.offset->u.lit.interval.ms, 3600000);
    cr_assert_eq(w->frame->end.kind, WEIR_SQL_BOUND_CURRENT_ROW);
    weir_sql_script_destroy(s);
}

/* ---------------------------------------------------------------- queries */

Test(sql_query, select_clauses)
{
    check("select distinct a as x, b y, t.*, * from t where a > 1 group by "
          "a, b having count(*) > 2 order by x desc limit 10 offset 5",
          "SELECT DISTINCT a AS x, b AS y, t.*, * FROM t WHERE a > 1 GROUP BY "
          "a, b HAVING count(*) > 2 ORDER BY x DESC LIMIT 10 OFFSET 5");
    check("SELECT ALL a FROM t", "SELECT ALL a FROM t");
    check("SELECT 1", "SELECT 1");
    check("SELECT a FROM t FETCH FIRST 3 ROWS ONLY", "SELECT a FROM t LIMIT 3");
    check("SELECT a FROM t OFFSET 2 ROWS FETCH NEXT ROW ONLY",
          "SELECT a FROM t LIMIT 1 OFFSET 2");
    check("SELECT db.t.a, `x`.`y`.* FROM db.t",
          "SELECT db.t.a, x.y.* FROM db.t");
    check("SELECT bidder, TUMBLE_START(ts, INTERVAL '1' HOUR) FROM bid GROUP "
          "BY bidder, TUMBLE(ts, INTERVAL '1' HOUR)",
          "SELECT bidder, TUMBLE_START(ts, INTERVAL '1' HOUR) FROM bid GROUP "
          "BY bidder, TUMBLE(ts, INTERVAL '1' HOUR)");
    check("SELECT a FROM t GROUP BY HOP(ts, INTERVAL '1' MINUTE, INTERVAL '5' "
          "MINUTE), SESSION(ts, INTERVAL '10' SECOND)",
          "SELECT a FROM t GROUP BY HOP(ts, INTERVAL '1' MINUTE, INTERVAL '5' "
          "MINUTE), SESSION(ts, INTERVAL '10' SECOND)");
    check("SELECT a, b, SUM(x) FROM t GROUP BY GROUPING SETS ((a, b), a, "
          "()), ROLLUP(a, b), CUBE(a)",
          "SELECT a, b, SUM(x) FROM t GROUP BY GROUPING SETS ((a, b), (a), "
          "()), ROLLUP(a, b), CUBE(a)");
    check("SELECT /*+ STATE_TTL('t' = '1d') */ a FROM t",
          "SELECT /*+ STATE_TTL('t' = '1d') */ a FROM t");
}

Test(sql_query, from_clause)
{
    check("SELECT * FROM a, b AS bb, (SELECT 1 AS x) AS q, (SELECT 2)",
          "SELECT * FROM a, b AS bb, (SELECT 1 AS x) AS q, (SELECT 2)");
    check("SELECT * FROM a INNER JOIN b ON a.x = b.x LEFT OUTER JOIN c ON "
          "TRUE RIGHT JOIN d USING (x, y) FULL OUTER JOIN e ON a.k = e.k CROSS "
          "JOIN f NATURAL JOIN g NATURAL LEFT JOIN h",
          "SELECT * FROM a JOIN b ON a.x = b.x LEFT JOIN c ON TRUE RIGHT JOIN "
          "d USING (x, y) FULL JOIN e ON a.k = e.k CROSS JOIN f NATURAL JOIN "
          "g NATURAL LEFT JOIN h");
    check("SELECT * FROM a JOIN (b JOIN c ON b.x = c.x) ON a.x = b.x",
          "SELECT * FROM a JOIN (b JOIN c ON b.x = c.x) ON a.x = b.x");
    check("SELECT * FROM (a JOIN b ON a.x = b.x) JOIN c ON c.y = b.y",
          "SELECT * FROM a JOIN b ON a.x = b.x JOIN c ON c.y = b.y");
    check("SELECT * FROM orders AS o LEFT JOIN rates FOR SYSTEM_TIME AS OF "
          "o.order_time AS r ON o.currency = r.currency",
          "SELECT * FROM orders AS o LEFT JOIN rates FOR SYSTEM_TIME AS OF "
          "o.order_time AS r ON o.currency = r.currency");
    check("SELECT * FROM t, LATERAL TABLE(split(s)) AS T(word) LEFT JOIN "
          "LATERAL TABLE(f(x)) AS u ON TRUE CROSS JOIN UNNEST(tags) WITH "
          "ORDINALITY AS x(tag, pos), LATERAL (SELECT 1)",
          "SELECT * FROM t, LATERAL TABLE(split(s)) AS T(word) LEFT JOIN "
          "LATERAL TABLE(f(x)) AS u ON TRUE CROSS JOIN UNNEST(tags) WITH "
          "ORDINALITY AS x(tag, pos), LATERAL (SELECT 1)");
    check("SELECT * FROM t /*+ OPTIONS('scan.startup.mode' = "
          "'earliest-offset') */ x",
          "SELECT * FROM t /*+ OPTIONS('scan.startup.mode' = "
          "'earliest-offset') */ AS x");

    /* Comma joins and JOIN are one left-associative level (Calcite). */
    weir_sql_script *s = parse_ok("SELECT * FROM a, b JOIN c ON a.x = c.x");
    const weir_sql_table_ref *j = stmt_query(s, 0)->u.select->from;
    cr_assert_eq(j->kind, WEIR_SQL_FROM_JOIN);
    cr_assert_eq(j->u.join.kind, WEIR_SQL_JOIN_INNER);
    cr_assert_eq(j->u.join.left->u.join.kind, WEIR_SQL_JOIN_COMMA);
    weir_sql_script_destroy(s);

    s = parse_ok("SELECT * FROM side FOR SYSTEM_TIME AS OF b.p AS S");
    const weir_sql_table_ref *t = stmt_query(s, 0)->u.select->from;
    cr_assert_eq(t->kind, WEIR_SQL_FROM_TABLE);
    cr_assert_not_null(t->u.table.system_time);
    cr_assert_str_eq(t->alias->name, "S");
    weir_sql_script_destroy(s);
}

Test(sql_query, window_table_functions)
{
    check("SELECT window_start, window_end, SUM(price) FROM "
          "TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' "
          "MINUTES)) GROUP BY window_start, window_end",
          "SELECT window_start, window_end, SUM(price) FROM "
          "TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' "
          "MINUTE)) GROUP BY window_start, window_end");
    check("SELECT * FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' "
          "HOUR, INTERVAL '5' MINUTE))",
          "SELECT * FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' "
          "HOUR, INTERVAL '5' MINUTE))");
    check("SELECT * FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '2' "
          "SECOND, INTERVAL '10' SECOND))",
          "SELECT * FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '2' "
          "SECOND, INTERVAL '10' SECOND))");
    check("SELECT * FROM TABLE(CUMULATE(TABLE t, DESCRIPTOR(ts), INTERVAL "
          "'2' MINUTES, INTERVAL '10' MINUTES))",
          "SELECT * FROM TABLE(CUMULATE(TABLE t, DESCRIPTOR(ts), INTERVAL "
          "'2' MINUTE, INTERVAL '10' MINUTE))");
    check("SELECT * FROM TABLE(SESSION(TABLE bid PARTITION BY bidder, "
          "DESCRIPTOR(ts), INTERVAL '5' MINUTES))",
          "SELECT * FROM TABLE(SESSION(TABLE bid PARTITION BY bidder, "
          "DESCRIPTOR(ts), INTERVAL '5' MINUTE))");
    check("SELECT * FROM TABLE(SESSION(TABLE bid PARTITION BY (a, b), "
          "DESCRIPTOR(ts), INTERVAL '5' MINUTE))",
          "SELECT * FROM TABLE(SESSION(TABLE bid PARTITION BY (a, b), "
          "DESCRIPTOR(ts), INTERVAL '5' MINUTE))");
    check("SELECT * FROM TABLE(TUMBLE(DATA => TABLE t, TIMECOL => "
          "DESCRIPTOR(ts), SIZE => INTERVAL '1' MINUTE, OFFSET => INTERVAL "
          "'10' SECOND))",
          "SELECT * FROM TABLE(TUMBLE(DATA => TABLE t, TIMECOL => "
          "DESCRIPTOR(ts), SIZE => INTERVAL '1' MINUTE, OFFSET => INTERVAL "
          "'10' SECOND))");

    weir_sql_script *s = parse_ok(
        "SELECT * FROM TABLE(HOP(TABLE bid, DESCRIPTOR(`dateTime`), "
        "INTERVAL '2' SECOND, INTERVAL '10' SECOND)), "
        "TABLE(SESSION(TABLE b PARTITION BY k, DESCRIPTOR(ts), INTERVAL '1' "
        "MINUTE))");
    const weir_sql_table_ref *j = stmt_query(s, 0)->u.select->from;
    const weir_sql_table_ref *hop = j->u.join.left;
    cr_assert_eq(hop->kind, WEIR_SQL_FROM_FUNCTION);
    const weir_sql_expr *call = hop->u.function.call;
    cr_assert_str_eq(call->u.call.name.parts[0].name, "HOP");
    cr_assert_eq(call->u.call.n_args, 4);
    cr_assert_eq(call->u.call.args[0]->kind, WEIR_SQL_EXPR_TABLE_ARG);
    cr_assert_str_eq(call->u.call.args[0]->u.table_arg.table.parts[0].name,
                     "bid");
    cr_assert_eq(call->u.call.args[1]->kind, WEIR_SQL_EXPR_DESCRIPTOR);
    cr_assert_str_eq(call->u.call.args[1]->u.descriptor.columns[0].name,
                     "dateTime");
    cr_assert(call->u.call.args[1]->u.descriptor.columns[0].quoted);
    cr_assert_eq(call->u.call.args[2]->u.lit.interval.ms, 2000);
    cr_assert_eq(call->u.call.args[3]->u.lit.interval.ms, 10000);
    const weir_sql_expr *sess = j->u.join.right->u.function.call;
    cr_assert_eq(sess->u.call.args[0]->u.table_arg.n_partition_by, 1);
    weir_sql_script_destroy(s);

    s = parse_ok("SELECT * FROM TABLE(TUMBLE(DATA => TABLE t, TIMECOL => "
                 "DESCRIPTOR(ts), SIZE => INTERVAL '1' MINUTE))");
    call = stmt_query(s, 0)->u.select->from->u.function.call;
    cr_assert_eq(call->u.call.args[0]->kind, WEIR_SQL_EXPR_NAMED_ARG);
    cr_assert_str_eq(call->u.call.args[0]->u.named_arg.name.name, "DATA");
    cr_assert_eq(call->u.call.args[0]->u.named_arg.value->kind,
                 WEIR_SQL_EXPR_TABLE_ARG);
    cr_assert_eq(call->u.call.args[2]->u.named_arg.value->u.lit.interval.ms,
                 60000);
    weir_sql_script_destroy(s);
}

Test(sql_query, set_operations_ctes_values)
{
    check("SELECT a FROM t UNION ALL SELECT b FROM u",
          "SELECT a FROM t UNION ALL SELECT b FROM u");
    check("SELECT a FROM t UNION SELECT b FROM u UNION DISTINCT SELECT c FROM "
          "v",
          "SELECT a FROM t UNION SELECT b FROM u UNION DISTINCT SELECT c FROM "
          "v");
    check("SELECT 1 INTERSECT SELECT 2 EXCEPT SELECT 3 MINUS SELECT 4",
          "SELECT 1 INTERSECT SELECT 2 EXCEPT SELECT 3 EXCEPT SELECT 4");
    check("SELECT a FROM t UNION (SELECT b FROM u UNION SELECT c FROM v)",
          "SELECT a FROM t UNION (SELECT b FROM u UNION SELECT c FROM v)");
    check("(SELECT a FROM t ORDER BY a LIMIT 1) UNION ALL (SELECT b FROM u)",
          "(SELECT a FROM t ORDER BY a LIMIT 1) UNION ALL SELECT b FROM u");
    check("SELECT a FROM t UNION ALL SELECT b FROM u ORDER BY 1 LIMIT 3",
          "SELECT a FROM t UNION ALL SELECT b FROM u ORDER BY 1 LIMIT 3");
    check("WITH x AS (SELECT 1 AS a), y (b) AS (VALUES (2)) SELECT a FROM x "
          "UNION ALL SELECT b FROM y",
          "WITH x AS (SELECT 1 AS a), y (b) AS (VALUES (2)) SELECT a FROM x "
          "UNION ALL SELECT b FROM y");
    check("VALUES (1, 'a'), (2, 'b')", "VALUES (1, 'a'), (2, 'b')");
    check("VALUES ROW(1, 'a')", "VALUES (1, 'a')");
    check("SELECT * FROM (VALUES (1), (2)) AS v(x)",
          "SELECT * FROM (VALUES (1), (2)) AS v(x)");

    /* INTERSECT binds tighter than UNION. */
    weir_sql_script *s = parse_ok("SELECT 1 UNION SELECT 2 INTERSECT SELECT 3");
    const weir_sql_query *q = stmt_query(s, 0);
    cr_assert_eq(q->kind, WEIR_SQL_QUERY_SETOP);
    cr_assert_eq(q->u.setop.op, WEIR_SQL_SETOP_UNION);
    cr_assert_eq(q->u.setop.right->u.setop.op, WEIR_SQL_SETOP_INTERSECT);
    weir_sql_script_destroy(s);
}

Test(sql_query, subqueries_in_from_without_alias)
{
    check("SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY a ORDER "
          "BY b DESC) AS rn FROM t) WHERE rn <= 1",
          "SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY a ORDER "
          "BY b DESC) AS rn FROM t) WHERE rn <= 1");
    check("SELECT * FROM ((SELECT 1))", "SELECT * FROM (SELECT 1)");
    check("SELECT (SELECT MAX(x) FROM u), ((a)) FROM t",
          "SELECT (SELECT MAX(x) FROM u), a FROM t");
}

/* ------------------------------------------------------------- positions */

Test(sql_ast, locations_and_spans)
{
    /* The column counts characters: 'é' is two bytes, one column. */
    const char *sql = "SELECT\n  'é', count(*) AS n,\n\tb + 1\nFROM t";
    weir_sql_script *s = parse_ok(sql);
    const weir_sql_select *sel = stmt_query(s, 0)->u.select;
    const weir_sql_expr *c = sel->items[1].expr;
    cr_assert_eq(c->loc.line, 2);
    cr_assert_eq(c->loc.col, 8);
    cr_assert_eq(c->loc.offset, (uint32_t)(strstr(sql, "count") - sql));
    cr_assert_eq(c->end - c->loc.offset, strlen("count(*)"));
    cr_assert_eq(sel->items[1].alias->loc.col, 20);
    const weir_sql_expr *b = sel->items[2].expr;
    cr_assert_eq(b->loc.line, 3);
    cr_assert_eq(b->loc.col, 2);
    cr_assert_eq(b->u.binary.op_loc.col, 4);
    cr_assert_eq(strncmp(sql + b->loc.offset, "b + 1", b->end - b->loc.offset),
                 0);
    cr_assert_eq(sel->from->loc.line, 4);
    cr_assert_eq(sel->from->loc.col, 6);
    weir_sql_script_destroy(s);

    weir_error err;
    cr_assert_eq(weir__sql_error_at(&err, NULL, (weir_sql_loc){3, 7, 40},
                                    WEIR_EPLAN, "unknown column '%s'", "x"),
                 WEIR_EPLAN);
    cr_assert_str_eq(err.message, "<input>:3:7: error: unknown column 'x'");
}

/* Counts the column references below an expression, recursively. */
static int count_columns(const weir_sql_expr *e, void *ud)
{
    if (e->kind == WEIR_SQL_EXPR_COLUMN)
        (*(int *)ud)++;
    return weir__sql_expr_each_child(e, count_columns, ud);
}

static int stop_at_literal(const weir_sql_expr *e, void *ud)
{
    (void)ud;
    return e->kind == WEIR_SQL_EXPR_LITERAL ? 7 : 0;
}

Test(sql_ast, expression_children_walk)
{
    weir_sql_script *s = parse_ok(
        "SELECT CASE WHEN a > 1 THEN b ELSE c END + f(d, e) FILTER (WHERE "
        "g) OVER (PARTITION BY h ORDER BY i ROWS j PRECEDING) + (SELECT z "
        "FROM u) FROM t");
    int n = 0;
    cr_assert_eq(count_columns(first_item(s), &n), 0);
    cr_assert_eq(n, 9,
                 "a-e and g-j are nine columns (f is a function, z in a "
                 "subquery)");
    const weir_sql_expr *e = first_item(s);
    /* (CASE ... + f(...)) + (SELECT ...): the walk stops at a literal. */
    const weir_sql_expr *case_ = e->u.binary.left->u.binary.left;
    cr_assert_eq(weir__sql_expr_each_child(case_->u.case_.whens[0].when,
                                           stop_at_literal, NULL),
                 7);
    weir_sql_script_destroy(s);
}

Test(sql_ast, dump_shows_structure_and_positions)
{
    weir_sql_script *s =
        parse_ok("SELECT a + 1 AS x\nFROM t\nWHERE b IS NOT NULL");
    weir_buf b;
    weir_buf_init(&b);
    cr_assert_eq(weir_sql_dump_stmt(weir_sql_script_stmt(s, 0), &b), 0);
    weir_buf_put_u8(&b, 0);
    const char *d = (const char *)b.data;
    cr_assert(strstr(d, "QUERY @1:1\n"), "%s", d);
    cr_assert(strstr(d, "  select @1:1\n"), "%s", d);
    cr_assert(strstr(d, "    item AS x BINARY + @1:8\n"), "%s", d);
    cr_assert(strstr(d, "      COLUMN a @1:8\n"), "%s", d);
    cr_assert(strstr(d, "      LITERAL 1 @1:12\n"), "%s", d);
    cr_assert(strstr(d, "      table t @2:6\n"), "%s", d);
    cr_assert(strstr(d, "    where IS NOT NULL @3:7\n"), "%s", d);
    weir_buf_fini(&b);
    weir_sql_script_destroy(s);
}

/* ----------------------------------------------------------------- nexmark */

static void check_golden(const char *name)
{
    char path[512];
    size_t len, elen;
    snprintf(path, sizeof path, "%s/tests/sql/parse/nexmark/%s.sql",
             WEIR_SOURCE_DIR, name);
    char *sql = read_file(path, &len);
    snprintf(path, sizeof path, "%s/tests/sql/parse/nexmark/%s.expected",
             WEIR_SOURCE_DIR, name);
    char *want = read_file(path, &elen);
    weir_sql_script *s = NULL;
    weir_error err;
    int rc = weir_sql_parse(name, sql, len, &s, &err, NULL);
    cr_assert_eq(rc, 0, "%s: %s", name, err.message);
    char *got = format_script(s);
    cr_assert_str_eq(got, want, "%s differs from its golden file", name);
    weir_free(got);
    weir_sql_script_destroy(s);
    got = canonical(want);
    cr_assert_str_eq(got, want);
    weir_free(got);
    free(want);
    free(sql);
}

Test(sql_nexmark, all_queries_parse_to_their_golden_text)
{
    static const char *const names[] = {
        "ddl", "q0",  "q1",  "q2",  "q3",  "q4",  "q5",  "q6",  "q7",
        "q8",  "q9",  "q10", "q11", "q12", "q13", "q14", "q15", "q16",
        "q17", "q18", "q19", "q20", "q21", "q22", "q23"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        check_golden(names[i]);
}

static weir_sql_script *parse_fixture(const char *name)
{
    char path[512];
    size_t len;
    snprintf(path, sizeof path, "%s/tests/sql/parse/nexmark/%s.sql",
             WEIR_SOURCE_DIR, name);
    char *sql = read_file(path, &len);
    weir_sql_script *s = NULL;
    weir_error err;
    cr_assert_eq(weir_sql_parse(name, sql, len, &s, &err, NULL), 0, "%s",
                 err.message);
    free(sql);
    return s;
}

Test(sql_nexmark, trees_of_selected_queries)
{
    /* ddl: the source table's computed rowtime and watermark */
    weir_sql_script *s = parse_fixture("ddl");
    cr_assert_eq(weir_sql_script_count(s), 4);
    const weir_sql_create_table *ct = &s->stmts[0]->u.create_table;
    cr_assert_eq(ct->n_columns, 5);
    cr_assert_eq(ct->columns[1].type->kind, WEIR_SQL_TYPE_ROW);
    cr_assert_eq(ct->columns[1].type->n_fields, 8);
    cr_assert_eq(ct->columns[4].kind, WEIR_SQL_COLUMN_COMPUTED);
    cr_assert_eq(ct->columns[4].expr->kind, WEIR_SQL_EXPR_CASE);
    cr_assert_eq(ct->watermark->expr->u.binary.right->u.lit.interval.ms, 4000);
    cr_assert_eq(s->stmts[3]->kind, WEIR_SQL_STMT_CREATE_VIEW);
    weir_sql_script_destroy(s);

    /* q11: a legacy session window in GROUP BY */
    s = parse_fixture("q11");
    const weir_sql_select *sel = stmt_query(s, 1)->u.select;
    cr_assert_eq(sel->n_group_by, 2);
    cr_assert_str_eq(sel->group_by[1]->u.call.name.parts[0].name, "SESSION");
    cr_assert_eq(sel->group_by[1]->u.call.args[1]->u.lit.interval.ms, 10000);
    weir_sql_script_destroy(s);

    /* q14: CREATE FUNCTION, used by the INSERT */
    s = parse_fixture("q14");
    cr_assert_eq(s->stmts[0]->kind, WEIR_SQL_STMT_CREATE_FUNCTION);
    cr_assert_str_eq(s->stmts[0]->u.create_function.class_name,
                     "com.github.nexmark.flink.udf.CountChar");
    weir_sql_script_destroy(s);

    /* q6: OVER with a ROWS frame over a ROW_NUMBER subquery */
    s = parse_fixture("q6");
    const weir_sql_expr *avg = stmt_query(s, 1)->u.select->items[1].expr;
    cr_assert_eq(avg->u.call.over->frame->start.kind, WEIR_SQL_BOUND_PRECEDING);
    cr_assert_eq(avg->u.call.over->frame->start.offset->u.lit.i64, 10);
    weir_sql_script_destroy(s);

    /* q13: a temporal join on processing time */
    s = parse_fixture("q13");
    const weir_sql_table_ref *j = stmt_query(s, 2)->u.select->from;
    cr_assert_eq(j->u.join.right->kind, WEIR_SQL_FROM_TABLE);
    cr_assert_not_null(j->u.join.right->u.table.system_time);
    weir_sql_script_destroy(s);
}
