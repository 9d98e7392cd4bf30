/*
 * tests/test_sql_parse_errors.c - what the SQL parser says about bad input,
 * and that no input can crash it, exhaust its stack or leak memory: exact
 * messages with line and column for typical mistakes, nesting and size
 * limits, invalid bytes, allocation failures at every point, and a seeded
 * mutation test (set WEIR_SQL_SEED to replay a run).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sql/ast.h"
#include "weir/sql.h"

static void expect_error(const char *sql, const char *want, uint32_t line,
                         uint32_t col)
{
    weir_sql_script *s = (weir_sql_script *)0x1;
    weir_error err;
    weir_sql_loc loc;
    int rc = weir_sql_parse("job.sql", sql, strlen(sql), &s, &err, &loc);
    cr_assert_eq(rc, WEIR_EPARSE, "expected a parse error for: %s", sql);
    cr_assert_null(s);
    cr_assert_eq(err.code, WEIR_EPARSE);
    cr_assert_str_eq(err.message, want, "\n  input: %s", sql);
    cr_assert_eq(loc.line, line, "line for: %s", sql);
    cr_assert_eq(loc.col, col, "column for: %s", sql);
}

/* ------------------------------------------------------ typical mistakes */

Test(sql_errors, misspelled_keywords_suggest_the_keyword)
{
    expect_error("SELCT a FROM t",
                 "job.sql:1:1: error: expected a statement, found identifier "
                 "'SELCT'; did you mean SELECT?",
                 1, 1);
    expect_error("SELECT a\nFORM t",
                 "job.sql:2:6: error: expected ';', found identifier 't' (did "
                 "you mean FROM instead of 'FORM' at 2:1?)",
                 2, 6);
    expect_error("SELECT a FROM t;\nSELECT b FROM u WHER b > 1",
                 "job.sql:2:22: error: expected ';', found identifier 'b' "
                 "(did you mean WHERE instead of 'WHER' at 2:17?)",
                 2, 22);
    expect_error("SELECT a FROM t WHERE x > 1 GRUP BY a",
                 "job.sql:1:29: error: expected ';', found identifier 'GRUP'; "
                 "did you mean GROUP?",
                 1, 29);
    expect_error("CREATE TABEL t (a INT)",
                 "job.sql:1:8: error: expected TABLE, VIEW, FUNCTION, DATABASE, "
                 "CATALOG or TEMPORARY, found identifier 'TABEL'; did you mean "
                 "TABLE?",
                 1, 8);
    expect_error("CREATE TABLE t (a INT, b VARCHR(10))",
                 "job.sql:1:26: error: expected a data type, found identifier "
                 "'VARCHR'; did you mean VARCHAR?",
                 1, 26);
    expect_error("INSERT INTO t SELEC a FROM b",
                 "job.sql:1:15: error: expected a query (SELECT, VALUES or "
                 "WITH) or a column list, found identifier 'SELEC'; did you "
                 "mean SELECT?",
                 1, 15);
    /* A word far from every keyword gets no guess. */
    expect_error("FROBNICATE t",
                 "job.sql:1:1: error: expected a statement, found identifier "
                 "'FROBNICATE'",
                 1, 1);
}

Test(sql_errors, punctuation_and_structure)
{
    expect_error("CREATE TABLE t (\n  a INT\n  b INT\n)",
                 "job.sql:3:3: error: expected ',' or ')', found identifier "
                 "'b'",
                 3, 3);
    expect_error("SELECT COUNT(a FROM t",
                 "job.sql:1:16: error: expected ',' or ')', found keyword "
                 "FROM",
                 1, 16);
    expect_error("SELECT a,\nFROM t",
                 "job.sql:2:1: error: expected an expression, found keyword "
                 "FROM",
                 2, 1);
    expect_error("INSERT INTO t VALUES (1, 2",
                 "job.sql:1:27: error: expected ',' or ')', found end of "
                 "input",
                 1, 27);
    expect_error("SELECT * FROM a JOIN b WHERE a.x = b.x",
                 "job.sql:1:24: error: expected ON or USING, found keyword "
                 "WHERE",
                 1, 24);
    expect_error("SELECT a FROM t GROUP a",
                 "job.sql:1:23: error: expected BY, found identifier 'a'", 1,
                 23);
    expect_error("SELECT CASE WHEN a THEN 1 ELSE 2 FROM t",
                 "job.sql:1:34: error: expected END, found keyword FROM", 1,
                 34);
    expect_error("CREATE VIEW v SELECT 1",
                 "job.sql:1:15: error: expected AS, found keyword SELECT", 1,
                 15);
    expect_error("SELECT * FROM TABLE TUMBLE(TABLE t, DESCRIPTOR(ts), "
                 "INTERVAL '1' MINUTE)",
                 "job.sql:1:21: error: expected '(', found identifier "
                 "'TUMBLE'",
                 1, 21);
    expect_error("SELECT x FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), "
                 "INTERVAL '1' MINUTE) AS w",
                 "job.sql:1:74: error: expected ')', found keyword AS", 1, 74);
    expect_error("CREATE TABLE a (x INT) WITH ('connector' = 'x')\n"
                 "INSERT INTO b SELECT * FROM a;",
                 "job.sql:2:1: error: expected ';' before the next statement, "
                 "found keyword INSERT",
                 2, 1);
    expect_error("SELECT a = NOT b FROM t",
                 "job.sql:1:12: error: expected an expression (write NOT ... "
                 "in parentheses here), found keyword NOT",
                 1, 12);
    expect_error("SELECT COUNT(*) FILTER WHERE x > 1 FROM t",
                 "job.sql:1:24: error: expected '(', found keyword WHERE", 1,
                 24);
}

Test(sql_errors, flink_specific_mistakes)
{
    expect_error("SELECT * FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), "
                 "INTERVAL 10 SECOND))",
                 "job.sql:1:62: error: expected a quoted interval value such "
                 "as '10', found number 10",
                 1, 62);
    expect_error("CREATE TABLE t (a INT) WITH (connector = 'datagen')",
                 "job.sql:1:30: error: expected a quoted option key such as "
                 "'connector', found identifier 'connector'",
                 1, 30);
    expect_error("CREATE TABLE t (a INT) WITH ('rows-per-second' = 10)",
                 "job.sql:1:50: error: expected a quoted option value such as "
                 "'datagen' or '10', found number 10",
                 1, 50);
    expect_error("CREATE TABLE t (timestamp TIMESTAMP(3))",
                 "job.sql:1:17: error: expected a column name, WATERMARK FOR "
                 "or PRIMARY KEY, found keyword TIMESTAMP (a reserved word; "
                 "write `timestamp` to use it as a name)",
                 1, 17);
    expect_error("CREATE TABLE t (ts TIMESTAMP(3),\n"
                 "  WATERMARK ts AS ts - INTERVAL '5' SECOND)",
                 "job.sql:2:13: error: expected FOR, found identifier 'ts'", 2,
                 13);
    expect_error("CREATE TABLE t (a LONG)",
                 "job.sql:1:19: error: expected a data type (Flink SQL spells "
                 "LONG as BIGINT), found identifier 'LONG'",
                 1, 19);
    expect_error("SET a = b -- no\n c",
                 "job.sql:1:9: error: an unquoted SET value must be one line "
                 "without comments: quote it ('...')",
                 1, 9);
    expect_error("SET = 4",
                 "job.sql:1:5: error: expected a configuration key such as "
                 "'parallelism.default', found '='",
                 1, 5);
    expect_error("EXECUTE STATEMENT SET BEGIN SELECT 1; END",
                 "job.sql:1:29: error: expected INSERT (a statement set holds "
                 "INSERT statements), found keyword SELECT",
                 1, 29);
    expect_error("BEGIN STATEMENT SET;\nINSERT INTO a SELECT 1;\n",
                 "job.sql:3:1: error: expected INSERT or END, found end of "
                 "input",
                 3, 1);
    expect_error("SELECT * FROM ${source}",
                 "job.sql:1:15: error: unsubstituted placeholder '${source}'",
                 1, 15);
    expect_error("CREATE TABLE t (a INT, PRIMARY KEY (a), PRIMARY KEY (a))",
                 "job.sql:1:41: error: a table can have only one PRIMARY KEY "
                 "(the first is at 1:24)",
                 1, 41);
    expect_error("CREATE TABLE t (a INT, WATERMARK FOR a AS a,\n"
                 "  WATERMARK FOR a AS a)",
                 "job.sql:2:3: error: a table can have only one WATERMARK (the "
                 "first is at 1:24)",
                 2, 3);
    expect_error("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts ALL ROWS PER MATCH",
                 "job.sql:1:46: error: ALL ROWS PER MATCH is not supported "
                 "(Flink neither): use ONE ROW PER MATCH",
                 1, 46);
    expect_error("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN ((A B)+)",
                 "job.sql:1:55: error: pattern groups (a quantifier over a "
                 "parenthesised part of a PATTERN) are not supported (Flink "
                 "neither)",
                 1, 55);
    expect_error("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (A | B)",
                 "job.sql:1:57: error: pattern alternation '|' is not "
                 "supported (Flink neither)",
                 1, 57);
    expect_error("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (A{3,1})",
                 "job.sql:1:56: error: quantifier {3,1}: the upper bound is "
                 "below the lower one",
                 1, 56);
    expect_error("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (A) DEFINE A AS a > 1 x",
                 "job.sql:1:76: error: expected ')' closing MATCH_RECOGNIZE, "
                 "found identifier 'x'",
                 1, 76);
    expect_error("SELECT TABLE t",
                 "job.sql:1:8: error: TABLE t is only allowed as an argument "
                 "of a table function such as TUMBLE(TABLE t, ...)",
                 1, 8);
}

/* Flink statements weir does not run are refused by name, where they start. */
Test(sql_errors, flink_only_statements_are_named)
{
    expect_error("CREATE TABLE t (a INT);\nALTER FUNCTION f AS 'g'",
                 "job.sql:2:7: error: ALTER FUNCTION statements are not "
                 "supported by weir",
                 2, 7);
    expect_error("ALTER CATALOG c COMMENT 'x'",
                 "job.sql:1:17: error: ALTER CATALOG ... COMMENT is not "
                 "supported by weir",
                 1, 17);
    expect_error("SHOW CREATE DATABASE d",
                 "job.sql:1:13: error: SHOW CREATE DATABASE is not supported "
                 "by weir",
                 1, 13);
    expect_error("ALTER TABLE t ADD PARTITION (k = 1)",
                 "job.sql:1:19: error: ALTER TABLE ... PARTITION is not "
                 "supported by weir",
                 1, 19);
    expect_error("ADD JAR '/tmp/x.jar'",
                 "job.sql:1:1: error: ADD JAR is not supported by weir: weir "
                 "runs no Java code; a library of C functions is loaded by "
                 "CREATE FUNCTION f AS 'symbol' LANGUAGE C USING JAR "
                 "'/path/lib.so' (docs/functions.md)",
                 1, 1);
    expect_error("CREATE MATERIALIZED TABLE m AS SELECT 1",
                 "job.sql:1:8: error: CREATE MATERIALIZED TABLE is not "
                 "supported by weir: weir schedules no refreshes: declare the "
                 "table with CREATE TABLE and fill it with a continuous INSERT "
                 "INTO ... SELECT (or CREATE TABLE ... AS SELECT)",
                 1, 8);
    expect_error("CREATE CATALOG c",
                 "job.sql:1:17: error: expected WITH ('type' = ...), found end "
                 "of input",
                 1, 17);
    expect_error("CREATE OR REPLACE VIEW v AS SELECT 1",
                 "job.sql:1:19: error: CREATE OR REPLACE is supported for "
                 "TABLE ... AS query only (as in Flink)",
                 1, 19);
    expect_error("CREATE OR REPLACE TABLE t (a INT)",
                 "job.sql:1:1: error: CREATE OR REPLACE TABLE needs AS "
                 "followed by a query (a table is replaced by a query's "
                 "result, as in Flink)",
                 1, 1);
    expect_error("CREATE TABLE t (k INT) DISTRIBUTED BY HASH(k) INTO 4 BUCKETS",
                 "job.sql:1:24: error: DISTRIBUTED BY (buckets) is not "
                 "supported by weir: none of weir's connectors stores a table "
                 "in buckets (PARTITIONED BY splits a file table by value)",
                 1, 24);
    expect_error("SHOW MODULES",
                 "job.sql:1:6: error: SHOW MODULES is not supported by weir: "
                 "weir has no modules (its built-in functions, Flink's core "
                 "module, are always loaded; Hive's are not available)",
                 1, 6);
    expect_error("USE MODULES core, hive",
                 "job.sql:1:1: error: USE MODULES is not supported by weir: "
                 "weir has no modules (its built-in functions, Flink's core "
                 "module, are always loaded; Hive's are not available)",
                 1, 1);
    expect_error("LOAD MODULE hive",
                 "job.sql:1:1: error: LOAD MODULE is not supported by weir: "
                 "weir has no modules (its built-in functions, Flink's core "
                 "module, are always loaded; Hive's are not available)",
                 1, 1);
    expect_error("COMPILE PLAN '/tmp/p.json' FOR INSERT INTO o SELECT 1",
                 "job.sql:1:1: error: COMPILE PLAN is not supported by weir: "
                 "weir keeps no compiled JSON plan: it plans a job from its "
                 "SQL at each run, and a restored checkpoint's state is "
                 "matched to that plan operator by operator",
                 1, 1);
    expect_error("EXECUTE PLAN '/tmp/p.json'",
                 "job.sql:1:1: error: EXECUTE PLAN is not supported by weir: "
                 "weir keeps no compiled JSON plan: it plans a job from its "
                 "SQL at each run, and a restored checkpoint's state is "
                 "matched to that plan operator by operator",
                 1, 1);
    expect_error("SELECT * FROM ML_PREDICT(TABLE t, MODEL m, DESCRIPTOR(a))",
                 "job.sql:1:15: error: ML_PREDICT is not supported by weir: "
                 "weir has no models (CREATE MODEL) to run",
                 1, 15);
    expect_error("SELECT * FROM TABLE(ML_EVALUATE(TABLE t, MODEL m, "
                 "DESCRIPTOR(a)))",
                 "job.sql:1:21: error: ML_EVALUATE is not supported by weir: "
                 "weir has no models (CREATE MODEL) to run",
                 1, 21);
    expect_error("SHOW JARS",
                 "job.sql:1:6: error: SHOW JARS is not supported by weir: "
                 "weir runs no Java code; a library of C functions is loaded "
                 "by CREATE FUNCTION f AS 'symbol' LANGUAGE C USING JAR "
                 "'/path/lib.so' (docs/functions.md)",
                 1, 6);
    /* STOP JOB 'id' [WITH SAVEPOINT] [WITH DRAIN] */
    expect_error("STOP JOB abc",
                 "job.sql:1:10: error: expected a quoted job id, found identifier 'abc'",
                 1, 10);
    expect_error("STOP TASK 'x'",
                 "job.sql:1:6: error: expected JOB, found identifier 'TASK'",
                 1, 6);
    expect_error("STOP JOB 'x' WITH DRAIN WITH SAVEPOINT",
                 "job.sql:1:25: error: expected ';', found keyword WITH",
                 1, 25);
    expect_error("STOP JOB 'x' WITH SOON",
                 "job.sql:1:19: error: expected SAVEPOINT or DRAIN, found identifier 'SOON'",
                 1, 19);
    expect_error("SELECT 'a' MEMBER OF m FROM t",
                 "job.sql:1:12: error: MEMBER OF (a MULTISET operator) is not "
                 "supported by weir",
                 1, 12);
    /* A table named like such a statement is still a table. */
    weir_sql_script *s = NULL;
    weir_error err;
    weir_sql_loc loc;
    const char *ok = "SELECT * FROM `alter` AS `update`";
    cr_assert_eq(weir_sql_parse("job.sql", ok, strlen(ok), &s, &err, &loc), 0);
    weir_sql_script_destroy(s);
}

Test(sql_errors, lexical_errors)
{
    expect_error("SELECT \"name\" FROM t",
                 "job.sql:1:8: error: double quotes are not used in Flink "
                 "SQL; write 'text' for a string or `name` for an identifier",
                 1, 8);
    expect_error("SELECT 'abc\nFROM t",
                 "job.sql:1:8: error: unterminated string literal", 1, 8);
    expect_error("SELECT `abc FROM t",
                 "job.sql:1:8: error: unterminated quoted identifier", 1, 8);
    expect_error("SELECT 1 /* note",
                 "job.sql:1:10: error: unterminated comment", 1, 10);
    expect_error("SELECT a FROM t WHERE a == 1",
                 "job.sql:1:25: error: '==' is not SQL; use '=' to compare", 1,
                 25);
    expect_error("SELECT a FROM t WHERE b = \xE2\x80\x98x\xE2\x80\x99",
                 "job.sql:1:27: error: typographic quote '\xE2\x80\x98' "
                 "(U+2018); use ' for strings and ` for identifiers",
                 1, 27);
    expect_error("SELECT ``", "job.sql:1:8: error: empty quoted identifier", 1,
                 8);
    expect_error("SELECT 12ab", "job.sql:1:8: error: invalid number '12ab'", 1,
                 8);
    expect_error("SELECT 1e+",
                 "job.sql:1:8: error: invalid number '1e': the "
                 "exponent has no digits",
                 1, 8);
    expect_error("SELECT X'0g'",
                 "job.sql:1:8: error: invalid binary string: "
                 "'g' is not a hex digit",
                 1, 8);
    expect_error("SELECT a ^ b",
                 "job.sql:1:10: error: unexpected character "
                 "'^'",
                 1, 10);
    /* A syntax error before a bad character is reported first. */
    expect_error("SELECT FROM \"x\"",
                 "job.sql:1:8: error: expected an expression, found keyword "
                 "FROM",
                 1, 8);
    /* Columns count characters, not bytes. */
    expect_error("SELECT 'é', 'ü' 'x",
                 "job.sql:1:17: error: unterminated string literal", 1, 17);
}

Test(sql_errors, invalid_literals)
{
    expect_error("SELECT INTERVAL '1:2' DAY",
                 "job.sql:1:17: error: invalid interval literal '1:2' for "
                 "DAY: expected 'D'",
                 1, 17);
    expect_error("SELECT INTERVAL '1 25:00' DAY TO MINUTE",
                 "job.sql:1:17: error: invalid interval literal '1 25:00' for "
                 "DAY TO MINUTE: expected 'D H:M'",
                 1, 17);
    expect_error("SELECT INTERVAL '1-12' YEAR TO MONTH",
                 "job.sql:1:17: error: invalid interval literal '1-12' for "
                 "YEAR TO MONTH: expected 'Y-M'",
                 1, 17);
    expect_error("SELECT INTERVAL '1' MONTH TO DAY",
                 "job.sql:1:21: error: invalid interval qualifier MONTH TO DAY "
                 "(use YEAR TO MONTH, DAY TO HOUR|MINUTE|SECOND, HOUR TO "
                 "MINUTE|SECOND or MINUTE TO SECOND)",
                 1, 21);
    expect_error("SELECT INTERVAL '1' WEEK",
                 "job.sql:1:21: error: expected an interval unit (YEAR, "
                 "MONTH, DAY, HOUR, MINUTE, SECOND, MILLISECOND or "
                 "MICROSECOND), found keyword WEEK",
                 1, 21);
    expect_error("SELECT INTERVAL '1500' MICROSECOND",
                 "job.sql:1:17: error: interval '1500' has digits below a "
                 "millisecond, which weir cannot represent",
                 1, 17);
    expect_error("SELECT INTERVAL '1.5' MILLISECOND",
                 "job.sql:1:17: error: invalid interval literal '1.5' for "
                 "MILLISECOND: expected a whole number such as '500'",
                 1, 17);
    expect_error("SELECT INTERVAL '1' SECOND TO MILLISECOND",
                 "job.sql:1:21: error: invalid interval qualifier SECOND TO "
                 "MILLISECOND (use YEAR TO MONTH, DAY TO HOUR|MINUTE|SECOND, "
                 "HOUR TO MINUTE|SECOND or MINUTE TO SECOND)",
                 1, 21);
    expect_error("SELECT INTERVAL '0.0001' SECOND",
                 "job.sql:1:17: error: interval '0.0001' has digits below a "
                 "millisecond, which weir cannot represent",
                 1, 17);
    expect_error("SELECT INTERVAL '99999999999999999' DAY",
                 "job.sql:1:17: error: interval '99999999999999999': field "
                 "value 99999999999999999 exceeds precision of DAY(2) field "
                 "(a day-time leading field has at most 3 digits)",
                 1, 17);
    expect_error("SELECT INTERVAL '100' DAY",
                 "job.sql:1:17: error: interval '100': field value 100 "
                 "exceeds precision of DAY(2) field (write DAY(3))",
                 1, 17);
    expect_error("SELECT INTERVAL '-100:30' HOUR TO MINUTE",
                 "job.sql:1:17: error: interval '-100:30': field value -100 "
                 "exceeds precision of HOUR(2) field (write HOUR(3))",
                 1, 17);
    expect_error("SELECT INTERVAL '1000' DAY(4)",
                 "job.sql:1:17: error: interval '1000': DAY(4) is not "
                 "supported: a day-time interval takes a leading precision "
                 "of at most 3, as in Flink",
                 1, 17);
    expect_error("SELECT DATE '2023-02-29'",
                 "job.sql:1:13: error: invalid DATE literal '2023-02-29': "
                 "expected 'yyyy-MM-dd' with a valid day",
                 1, 13);
    expect_error("SELECT TIMESTAMP '2024-13-01 00:00:00'",
                 "job.sql:1:18: error: invalid TIMESTAMP literal '2024-13-01 "
                 "00:00:00': expected 'yyyy-MM-dd HH:mm:ss[.fff]' with a "
                 "valid day",
                 1, 18);
    expect_error("SELECT TIME '24:00:00'",
                 "job.sql:1:13: error: invalid TIME literal '24:00:00': "
                 "expected 'HH:mm:ss[.fff]'",
                 1, 13);
    expect_error("SELECT TIMESTAMP 5",
                 "job.sql:1:18: error: expected a quoted timestamp such as "
                 "'2024-01-31 12:30:00', found number 5",
                 1, 18);
}

/* ------------------------------------------------------------- robustness */

static int parse_any(const char *sql, size_t len, weir_error *err)
{
    weir_sql_script *s = NULL;
    int rc = weir_sql_parse("fuzz.sql", sql, len, &s, err, NULL);
    if (rc == 0) {
        weir_buf b;
        weir_buf_init(&b);
        cr_assert_eq(weir_sql_format_script(s, &b), 0);
        for (size_t i = 0; i < weir_sql_script_count(s); i++)
            cr_assert_eq(weir_sql_dump_stmt(weir_sql_script_stmt(s, i), &b), 0);
        weir_buf_fini(&b);
        weir_sql_script_destroy(s);
    } else {
        cr_assert_null(s);
    }
    return rc;
}

static char *repeat(const char *prefix, const char *unit, int n,
                    const char *suffix)
{
    size_t len = strlen(prefix) + strlen(unit) * (size_t)n + strlen(suffix);
    char *s = malloc(len + 1);
    strcpy(s, prefix);
    char *p = s + strlen(prefix);
    for (int i = 0; i < n; i++) {
        memcpy(p, unit, strlen(unit));
        p += strlen(unit);
    }
    strcpy(p, suffix);
    return s;
}

Test(sql_robust, deep_nesting_is_an_error_not_a_crash)
{
    weir_error err;
    const struct {
        const char *prefix, *unit, *suffix;
    } cases[] = {
        {"SELECT ", "(", "1"},
        {"SELECT ", "(", ""},
        {"SELECT ", "NOT ", "TRUE"},
        {"SELECT ", "- ", "1"},
        {"SELECT * FROM ", "(", "t"},
        {"SELECT * FROM t WHERE a IN ", "(SELECT a FROM t WHERE a IN ", "(1)"},
        {"CREATE TABLE t (a ", "ARRAY<", "INT"},
        {"SELECT ", "CASE WHEN ", "1"},
        {"SELECT ", "f(", "1"},
        {"SELECT ", "ARRAY[", "1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        /* Far beyond the limit; the first case is long enough that an
         * unbounded recursion would overflow any stack. */
        char *sql = repeat(cases[i].prefix, cases[i].unit,
                           i == 0 ? 200000 : 3000, cases[i].suffix);
        cr_assert_eq(parse_any(sql, strlen(sql), &err), WEIR_EPARSE, "%s",
                     cases[i].unit);
        cr_assert(strstr(err.message, "nested too deeply"), "%s: %s",
                  cases[i].unit, err.message);
        free(sql);
    }
    /* Printing never nests deeper than the input: a chain of signs just
     * below the limit prints as a chain that parses again. */
    const char *signs[] = {"+", "- ", "-+", "NOT "};
    for (size_t i = 0; i < sizeof signs / sizeof *signs; i++) {
        char *chain = repeat("SELECT ", signs[i],
                             (WEIR_SQL_MAX_NESTING - 4) /
                                 (strcmp(signs[i], "-+") == 0 ? 2 : 1),
                             "1");
        weir_sql_script *s = NULL;
        cr_assert_eq(
            weir_sql_parse("c.sql", chain, strlen(chain), &s, &err, NULL), 0,
            "%s: %s", signs[i], err.message);
        weir_buf b;
        weir_buf_init(&b);
        cr_assert_eq(weir_sql_format_script(s, &b), 0);
        weir_sql_script *s2 = NULL;
        cr_assert_eq(weir_sql_parse("c2.sql", (const char *)b.data, b.len, &s2,
                                    &err, NULL),
                     0, "%s: %s", signs[i], err.message);
        weir_sql_script_destroy(s2);
        weir_sql_script_destroy(s);
        weir_buf_fini(&b);
        free(chain);
    }
    /* Just below the limit is fine. */
    char *sql = repeat("SELECT ", "(", WEIR_SQL_MAX_NESTING - 2, "1");
    size_t n = strlen(sql);
    char *full = malloc(n + WEIR_SQL_MAX_NESTING);
    memcpy(full, sql, n);
    memset(full + n, ')', WEIR_SQL_MAX_NESTING - 2);
    cr_assert_eq(parse_any(full, n + WEIR_SQL_MAX_NESTING - 2, &err), 0, "%s",
                 err.message);
    free(full);
    free(sql);
}

Test(sql_robust, long_operator_chains_are_bounded)
{
    weir_error err;
    /* Left-deep chains are built without recursion, so their height is
     * checked separately. */
    char *sql = repeat("SELECT 1", " + 1", 2000, "");
    cr_assert_eq(parse_any(sql, strlen(sql), &err), WEIR_EPARSE);
    cr_assert(strstr(err.message, "too complex"), "%s", err.message);
    free(sql);
    sql = repeat("SELECT * FROM t", " JOIN t ON TRUE", 2000, "");
    cr_assert_eq(parse_any(sql, strlen(sql), &err), WEIR_EPARSE);
    cr_assert(strstr(err.message, "too complex"), "%s", err.message);
    free(sql);
    sql = repeat("SELECT 1", " UNION ALL SELECT 1", 2000, "");
    cr_assert_eq(parse_any(sql, strlen(sql), &err), WEIR_EPARSE);
    free(sql);
    /* A long but reasonable chain, and a wide IN list, are fine. */
    sql = repeat("SELECT * FROM t WHERE a = 0", " OR a = 1", 400, "");
    cr_assert_eq(parse_any(sql, strlen(sql), &err), 0, "%s", err.message);
    free(sql);
    sql = repeat("SELECT * FROM t WHERE a IN (0", ", 1", 20000, ")");
    cr_assert_eq(parse_any(sql, strlen(sql), &err), 0, "%s", err.message);
    free(sql);
}

Test(sql_robust, bytes_that_are_not_sql)
{
    weir_error err;
    weir_sql_loc loc;
    weir_sql_script *s = NULL;
    const char nul[] = "SELECT 1\0 FROM t";
    cr_assert_eq(weir_sql_parse("x.sql", nul, sizeof nul - 1, &s, &err, &loc),
                 WEIR_EPARSE);
    cr_assert_str_eq(err.message, "x.sql:1:9: error: NUL character in SQL "
                                  "text");
    cr_assert_eq(loc.offset, 8);
    const char str_nul[] = "SELECT 'a\0b'";
    cr_assert_eq(parse_any(str_nul, sizeof str_nul - 1, &err), WEIR_EPARSE);
    cr_assert_str_eq(err.message, "fuzz.sql:1:10: error: NUL character in "
                                  "string literal");
    cr_assert_eq(parse_any("SELECT \xff", 8, &err), WEIR_EPARSE);
    cr_assert_str_eq(err.message,
                     "fuzz.sql:1:8: error: invalid UTF-8 byte 0xFF");
    cr_assert_eq(parse_any("SELECT '\xc3'", 10, &err), WEIR_EPARSE);
    cr_assert_str_eq(err.message,
                     "fuzz.sql:1:9: error: invalid UTF-8 byte 0xC3");
    cr_assert_eq(parse_any("SELECT \x01", 8, &err), WEIR_EPARSE);
    cr_assert_str_eq(err.message, "fuzz.sql:1:8: error: unexpected control "
                                  "character 0x01");
    /* Text that is not NUL-terminated is read only up to len. */
    char buf[8] = {'S', 'E', 'L', 'E', 'C', 'T', ' ', '1'};
    cr_assert_eq(parse_any(buf, sizeof buf, &err), 0, "%s", err.message);
    /* Bad arguments */
    cr_assert_eq(weir_sql_parse(NULL, NULL, 3, &s, &err, NULL), WEIR_EINVAL);
    cr_assert_eq(weir_sql_parse(NULL, "x", 1, NULL, &err, NULL), WEIR_EINVAL);
    cr_assert_eq(weir_sql_parse(NULL, NULL, 0, &s, NULL, NULL), 0);
    cr_assert_eq(weir_sql_script_count(s), 0);
    weir_sql_script_destroy(s);
    weir_sql_script_destroy(NULL);
}

static const char q5[] =
    "CREATE TABLE bid (auction BIGINT, price BIGINT, `dateTime` "
    "TIMESTAMP(3), WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' "
    "SECOND) WITH ('connector' = 'datagen');\n"
    "INSERT INTO nexmark_q5 /*+ OPTIONS('a' = 'b') */\n"
    "SELECT AuctionBids.auction, AuctionBids.num FROM (\n"
    "  SELECT auction, count(*) AS num, window_start AS starttime,\n"
    "    window_end AS endtime FROM TABLE(HOP(TABLE bid, "
    "DESCRIPTOR(`dateTime`), INTERVAL '2' SECOND, INTERVAL '10' SECOND))\n"
    "  GROUP BY auction, window_start, window_end) AS AuctionBids\n"
    "JOIN (SELECT max(CountBids.num) AS maxn, CountBids.starttime FROM (\n"
    "  SELECT count(*) AS num, window_start AS starttime FROM TABLE(\n"
    "    HOP(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '2' SECOND, "
    "INTERVAL '10' SECOND)) GROUP BY auction, window_start, window_end\n"
    "  ) AS CountBids GROUP BY CountBids.starttime) AS MaxBids\n"
    "ON AuctionBids.starttime = MaxBids.starttime AND AuctionBids.num >= "
    "MaxBids.maxn;\n"
    "EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT CASE WHEN x IN (1, 2) "
    "THEN TRIM(BOTH 'x' FROM s) ELSE CAST(y AS STRING) END FROM t; END;";

Test(sql_robust, allocation_failure_at_every_point)
{
    /* Fail the 1st, 2nd, ... allocation until the parse succeeds: every
     * failure must report ENOMEM and free what it had (ASan checks). */
    int n;
    for (n = 1; n < 100000; n++) {
        weir_sql_script *s = NULL;
        weir_error err;
        weir_alloc_fail_after((uint64_t)n);
        int rc = weir_sql_parse("oom.sql", q5, sizeof q5 - 1, &s, &err, NULL);
        weir_alloc_fail_after(0);
        if (rc == 0) {
            weir_buf b;
            weir_buf_init(&b);
            cr_assert_eq(weir_sql_format_script(s, &b), 0);
            weir_buf_fini(&b);
            weir_sql_script_destroy(s);
            break;
        }
        cr_assert_eq(rc, WEIR_ENOMEM, "allocation %d: %s", n, err.message);
        cr_assert_null(s);
        cr_assert(strstr(err.message, "out of memory"), "%s", err.message);
    }
    cr_assert_gt(n, 3);
    cr_assert_lt(n, 100000);

    /* Printing into a buffer that cannot grow reports ENOMEM too. */
    weir_sql_script *s = NULL;
    cr_assert_eq(weir_sql_parse("x", q5, sizeof q5 - 1, &s, NULL, NULL), 0);
    weir_buf b;
    weir_buf_init(&b);
    weir_alloc_fail_after(1);
    cr_assert_eq(weir_sql_format_script(s, &b), WEIR_ENOMEM);
    weir_alloc_fail_after(1);
    cr_assert_eq(weir_sql_dump_stmt(weir_sql_script_stmt(s, 1), &b),
                 WEIR_ENOMEM);
    weir_alloc_fail_after(0);
    weir_buf_fini(&b);
    weir_sql_script_destroy(s);
}

/* A small xorshift generator: the test prints its seed. */
static uint64_t rng_state;
static uint64_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

static const char *const fragments[] = {
    "(",         ")",    ",",          ";",
    "'",         "`",    "SELECT",     "FROM",
    "WHERE",     "JOIN", "ON",         "TABLE",
    "INTERVAL",  "'1'",  "SECOND",     "CASE",
    "WHEN",      "END",  "AS",         "*",
    "NOT",       "IN",   "BETWEEN",    "AND",
    "/*+",       "*/",   "--",         "\n",
    "OVER",      "=>",   "DESCRIPTOR", "ROW<",
    ">",         "[",    "]",          "\xc3\xa9",
    "\xff",      "1e",   "..",         "BEGIN",
    "STATEMENT", "SET",  "EXECUTE",    "WATERMARK FOR",
    "x"};

Test(sql_robust, mutated_queries_never_crash_and_print_to_a_fixpoint)
{
    const char *env = getenv("WEIR_SQL_SEED");
    uint64_t seed = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL);
    if (seed == 0)
        seed = 1;
    rng_state = seed;
    printf("sql mutation test seed: %llu (set WEIR_SQL_SEED to replay)\n",
           (unsigned long long)seed);
    fflush(stdout);
    size_t base = sizeof q5 - 1;
    char *buf = malloc(base * 2 + 256);
    int ok = 0;
    for (int iter = 0; iter < 3000; iter++) {
        memcpy(buf, q5, base);
        size_t len = base;
        int edits = 1 + (int)(rnd() % 4);
        for (int k = 0; k < edits; k++) {
            size_t at = rnd() % (len + 1);
            switch (rnd() % 4) {
            case 0: /* delete a run */ {
                size_t n = rnd() % 8;
                if (at + n > len)
                    n = len - at;
                memmove(buf + at, buf + at + n, len - at - n);
                len -= n;
                break;
            }
            case 1: /* insert a fragment */ {
                const char *f =
                    fragments[rnd() % (sizeof fragments / sizeof *fragments)];
                size_t n = strlen(f);
                if (len + n > base * 2 + 200)
                    break;
                memmove(buf + at + n, buf + at, len - at);
                memcpy(buf + at, f, n);
                len += n;
                break;
            }
            case 2: /* flip a byte */
                if (at < len)
                    buf[at] = (char)(rnd() & 0xff);
                break;
            default: /* truncate */
                len = at;
                break;
            }
        }
        weir_sql_script *s = NULL;
        weir_error err;
        int rc = weir_sql_parse("m.sql", buf, len, &s, &err, NULL);
        if (rc) {
            cr_assert_eq(rc, WEIR_EPARSE, "seed %llu iter %d",
                         (unsigned long long)seed, iter);
            cr_assert(strncmp(err.message, "m.sql:", 6) == 0 &&
                          strstr(err.message, ": error: "),
                      "seed %llu iter %d: %s", (unsigned long long)seed, iter,
                      err.message);
            continue;
        }
        ok++;
        weir_buf b1, b2;
        weir_buf_init(&b1);
        weir_buf_init(&b2);
        cr_assert_eq(weir_sql_format_script(s, &b1), 0);
        weir_sql_script *s2 = NULL;
        rc = weir_sql_parse("m2.sql", (const char *)b1.data, b1.len, &s2, &err,
                            NULL);
        cr_assert_eq(rc, 0, "seed %llu iter %d: reparse: %s\n%.*s",
                     (unsigned long long)seed, iter, err.message, (int)b1.len,
                     (const char *)b1.data);
        cr_assert_eq(weir_sql_format_script(s2, &b2), 0);
        cr_assert(b1.len == b2.len &&
                      (b1.len == 0 || memcmp(b1.data, b2.data, b1.len) == 0),
                  "seed %llu iter %d: not a fixpoint:\n%.*s\n%.*s",
                  (unsigned long long)seed, iter, (int)b1.len,
                  (const char *)b1.data, (int)b2.len, (const char *)b2.data);
        weir_buf_fini(&b1);
        weir_buf_fini(&b2);
        weir_sql_script_destroy(s);
        weir_sql_script_destroy(s2);
    }
    cr_assert_gt(ok, 0, "no mutant parsed at all; the test is too weak");
    free(buf);
}
