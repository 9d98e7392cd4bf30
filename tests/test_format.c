/* tests/test_format.c - JSON lines, CSV and debezium-json codecs, print format.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "format/codec.h"
#include "format/convert.h"
#include "time/timefmt.h"
#include "weir/format.h"

/* id BIGINT NOT NULL, name STRING, price DOUBLE, amount DECIMAL(10, 2), ok
 * BOOLEAN, n INT, ts TIMESTAMP(3), lts TIMESTAMP_LTZ(3), raw BYTES */
static weir_schema *all_types(void)
{
    weir_schema *s = weir_schema_create();
    weir_schema_add(s, "id", weir_type_make(WEIR_TYPE_BIGINT, false));
    weir_schema_add(s, "name", weir_type_make(WEIR_TYPE_STRING, true));
    weir_schema_add(s, "price", weir_type_make(WEIR_TYPE_DOUBLE, true));
    weir_schema_add(s, "amount", weir_type_decimal(10, 2, true));
    weir_schema_add(s, "ok", weir_type_make(WEIR_TYPE_BOOLEAN, true));
    weir_schema_add(s, "n", weir_type_make(WEIR_TYPE_INT, true));
    weir_schema_add(s, "ts", weir_type_make(WEIR_TYPE_TIMESTAMP, true));
    weir_schema_add(s, "lts", weir_type_make(WEIR_TYPE_TIMESTAMP_LTZ, true));
    weir_schema_add(s, "raw", weir_type_make(WEIR_TYPE_BYTES, true));
    return s;
}

typedef struct fixture {
    weir_schema *schema;
    weir_decoder *dec;
    weir_batch *batch;
    weir_decode_error err;
} fixture;

static fixture setup(weir_format_kind kind, const weir_format_options *opt_in)
{
    fixture f = {0};
    weir_format_options opt;
    if (opt_in)
        opt = *opt_in;
    else
        weir_format_options_init(&opt, kind);
    f.schema = all_types();
    weir_error err;
    cr_assert_eq(weir_decoder_create(&opt, f.schema, &f.dec, &err), 0);
    f.batch = weir_batch_create(f.schema, 16);
    return f;
}

static void teardown(fixture *f)
{
    weir_batch_destroy(f->batch);
    weir_decoder_destroy(f->dec);
    weir_schema_destroy(f->schema);
}

static int dec(fixture *f, const char *rec)
{
    return weir_decoder_decode(f->dec, rec, strlen(rec), f->batch, &f->err);
}

static const char *str_at(fixture *f, uint32_t col, uint32_t row, char *buf)
{
    uint32_t n;
    const char *s = weir_batch_str(f->batch, col, row, &n);
    memcpy(buf, s, n);
    buf[n] = '\0';
    return buf;
}

static int64_t ms_of(const char *s)
{
    int64_t v;
    cr_assert_eq(weir__parse_ts(s, strlen(s), &v, NULL), 0);
    return v;
}

Test(json, decodes_every_type)
{
    fixture f = setup(WEIR_FORMAT_JSON, NULL);
    const char *rec =
        "{\"id\": 42, \"name\": \"caf\\u00e9 \\ud83d\\ude00\\n\", \"price\": "
        "2.5, \"amount\": 12.345, "
        "\"ok\": true, \"n\": -7, \"ts\": \"2020-01-01 12:00:00.123\", "
        "\"lts\": \"2020-01-01T12:00:00.5Z\", \"raw\": \"AQL/\"}";
    cr_assert_eq(dec(&f, rec), 0, "%s", f.err.message);
    weir_batch *b = f.batch;
    char buf[64];
    cr_assert_eq(b->n_rows, 1);
    cr_assert_eq(WEIR_COL_I64(b, 0)[0], 42);
    cr_assert_str_eq(str_at(&f, 1, 0, buf), "caf\xc3\xa9 \xf0\x9f\x98\x80\n");
    cr_assert_eq(WEIR_COL_F64(b, 2)[0], 2.5);
    cr_assert_eq(WEIR_COL_I64(b, 3)[0],
                 1235); /* 12.345 rounded half-up to 12.35 */
    cr_assert_eq(WEIR_COL_BOOL(b, 4)[0], 1);
    cr_assert_eq(WEIR_COL_I32(b, 5)[0], -7);
    cr_assert_eq(WEIR_COL_I64(b, 6)[0], ms_of("2020-01-01 12:00:00.123"));
    cr_assert_eq(WEIR_COL_I64(b, 7)[0], ms_of("2020-01-01 12:00:00.500"));
    uint32_t n;
    const char *raw = weir_batch_str(b, 8, 0, &n);
    cr_assert_eq(n, 3);
    cr_assert(memcmp(raw, "\x01\x02\xff", 3) == 0);
    cr_assert_eq(b->kind[0], WEIR_ROW_INSERT);
    teardown(&f);
}

Test(json, missing_fields_are_null_and_unknown_fields_are_skipped)
{
    fixture f = setup(WEIR_FORMAT_JSON, NULL);
    cr_assert_eq(dec(&f, "{\"extra\": {\"a\": [1, {\"b\": null}], \"c\": "
                         "\"}\"}, \"id\": 1, \"more\": [true, false]}"),
                 0, "%s", f.err.message);
    cr_assert_eq(dec(&f, "  {\"n\": null, \"id\": 2}  "), 0, "%s",
                 f.err.message);
    weir_batch *b = f.batch;
    cr_assert_eq(b->n_rows, 2);
    cr_assert_eq(WEIR_COL_I64(b, 0)[0], 1);
    cr_assert_eq(WEIR_COL_I64(b, 0)[1], 2);
    for (uint32_t c = 1; c < 9; c++) {
        cr_assert(weir_batch_is_null(b, c, 0), "column %u", c);
        cr_assert(weir_batch_is_null(b, c, 1), "column %u", c);
    }
    teardown(&f);
}

Test(json, keys_in_any_order_and_duplicates_take_the_last)
{
    fixture f = setup(WEIR_FORMAT_JSON, NULL);
    cr_assert_eq(dec(&f, "{\"n\": 1, \"id\": 5, \"name\": \"a\"}"), 0);
    cr_assert_eq(dec(&f, "{\"name\": \"b\", \"id\": 6, \"n\": 2, \"n\": 3}"),
                 0);
    char buf[16];
    cr_assert_eq(WEIR_COL_I64(f.batch, 0)[1], 6);
    cr_assert_eq(WEIR_COL_I32(f.batch, 5)[1], 3);
    cr_assert_str_eq(str_at(&f, 1, 1, buf), "b");
    cr_assert_str_eq(str_at(&f, 1, 0, buf), "a");
    teardown(&f);
}

Test(json, lenient_conversions_as_flink)
{
    fixture f = setup(WEIR_FORMAT_JSON, NULL);
    /* numbers as strings, booleans as strings, values of any kind into STRING
     */
    cr_assert_eq(dec(&f, "{\"id\": \" 12 \", \"n\": \"-3\", \"price\": "
                         "\"NaN\", \"ok\": \"FALSE\", "
                         "\"amount\": \"1e1\", \"name\": {\"x\": [1, 2]}}"),
                 0, "%s", f.err.message);
    cr_assert_eq(dec(&f, "{\"id\": 1, \"name\": 12.50, \"ts\": 1577880000123, "
                         "\"price\": -1.5e-3}"),
                 0, "%s", f.err.message);
    cr_assert_eq(dec(&f, "{\"id\": 1, \"name\": true}"), 0, "%s",
                 f.err.message);
    weir_batch *b = f.batch;
    char buf[64];
    cr_assert_eq(WEIR_COL_I64(b, 0)[0], 12);
    cr_assert_eq(WEIR_COL_I32(b, 5)[0], -3);
    cr_assert(isnan(WEIR_COL_F64(b, 2)[0]));
    cr_assert_eq(WEIR_COL_BOOL(b, 4)[0], 0);
    cr_assert_eq(WEIR_COL_I64(b, 3)[0], 1000);
    cr_assert_str_eq(str_at(&f, 1, 0, buf), "{\"x\": [1, 2]}");
    cr_assert_str_eq(str_at(&f, 1, 1, buf), "12.50");
    cr_assert_eq(WEIR_COL_I64(b, 6)[1], 1577880000123);
    cr_assert_eq(WEIR_COL_F64(b, 2)[1], -1.5e-3);
    cr_assert_str_eq(str_at(&f, 1, 2, buf), "true");
    teardown(&f);
}

Test(json, fail_on_missing_field)
{
    weir_format_options opt;
    weir_format_options_init(&opt, WEIR_FORMAT_JSON);
    opt.json_fail_on_missing_field = true;
    fixture f = setup(WEIR_FORMAT_JSON, &opt);
    const char *rec = "{\"id\": 1, \"name\": \"x\", \"price\": 1, \"amount\": "
                      "1, \"ok\": false, \"n\": 1, "
                      "\"ts\": null, \"raw\": null}";
    cr_assert_eq(dec(&f, rec), WEIR_EPARSE);
    cr_assert_str_eq(f.err.message, "expected field \"lts\" in the object "
                                    "(json.fail-on-missing-field is true)");
    cr_assert_eq(f.err.pos, strlen(rec) - 1);
    teardown(&f);
}

typedef struct bad_case {
    const char *rec;
    size_t pos;
    const char *message;
} bad_case;

Test(json, malformed_records_have_exact_messages)
{
    static const bad_case cases[] = {
        {"", 0, "expected '{' to start a JSON object, found end of record"},
        {"[1]", 0, "expected '{' to start a JSON object, found '['"},
        {"{\"id\" 1}", 6, "expected ':' after object key \"id\", found '1'"},
        {"{\"id\": 1 \"n\": 2}", 9,
         "expected ',' or '}' after an object member, found '\"'"},
        {"{\"id\": 1,}", 9, "expected '\"' to start an object key, found '}'"},
        {"{\"id\": 1", 8,
         "expected ',' or '}' after an object member, found end of record"},
        {"{\"id\": 1} x", 10,
         "expected end of record after the JSON object, found 'x'"},
        {"{\"id\": \"abc}", 12,
         "expected '\"' to end the string, found end of record"},
        {"{\"id\": 1, \"name\": \"a\tb\"}", 20,
         "expected control characters in strings to be escaped, found byte "
         "0x09"},
        {"{\"id\": 1, \"name\": \"a\\qb\"}", 20,
         "expected an escape sequence (\\\" \\\\ \\/ \\b \\f \\n \\r \\t "
         "\\uXXXX), found \"\\\\q\""},
        {"{\"id\": 1, \"name\": \"\\u12G4\"}", 19,
         "expected 4 hex digits after \\u, found \"12G4\""},
        {"{\"id\": 1, \"name\": \"\\ud83d x\"}", 25,
         "expected a low surrogate \\uDC00-\\uDFFF after \\uD83D, found ' '"},
        {"{\"id\": 1, \"name\": \"\\ude00\"}", 19,
         "expected a high surrogate \\uD800-\\uDBFF before low surrogate "
         "\\uDE00"},
        {"{\"id\": 1, \"name\": \"\xff\"}", 19,
         "expected valid UTF-8 in string, found byte 0xff"},
        {"{\"id\": \"abc\"}", 7,
         "expected BIGINT for field \"id\", found \"abc\""},
        {"{\"id\": 1.5}", 7, "expected BIGINT for field \"id\", found 1.5"},
        {"{\"id\": 99999999999999999999}", 7,
         "expected BIGINT for field \"id\", found 99999999999999999999 (out of "
         "range)"},
        {"{\"id\": 1, \"n\": 2147483648}", 15,
         "expected INT for field \"n\", found 2147483648 (out of range)"},
        {"{\"id\": 1, \"amount\": 123456789.5}", 20,
         "expected DECIMAL(10, 2) for field \"amount\", found 123456789.5 (out "
         "of range)"},
        {"{\"id\": 1, \"ok\": 1}", 16,
         "expected BOOLEAN for field \"ok\", found 1"},
        {"{\"id\": 1, \"ok\": \"yes\"}", 16,
         "expected BOOLEAN for field \"ok\", found \"yes\""},
        {"{\"id\": 1, \"ts\": \"2020-13-01 00:00:00\"}", 16,
         "expected TIMESTAMP(3) as \"yyyy-MM-dd HH:mm:ss.SSS\" for field "
         "\"ts\", found \"2020-13-01 00:00:00\""},
        {"{\"id\": 1, \"raw\": \"a\"}", 17,
         "expected BYTES as base64 for field \"raw\", found \"a\""},
        {"{\"id\": 1, \"price\": [1]}", 19,
         "expected DOUBLE for field \"price\", found an array"},
        {"{\"id\": null}", 7,
         "expected a non-null value for NOT NULL field \"id\", found null"},
        {"{\"n\": 1}", 7,
         "expected field \"id\" in the object (it is NOT NULL)"},
        {"{\"id\": 01}", 8,
         "expected ',' or '}' after an object member, found '1'"},
        {"{\"id\": -}", 8, "expected a digit in a JSON number, found '}'"},
        {"{\"id\": 1.}", 9,
         "expected a digit after '.' in a JSON number, found '}'"},
        {"{\"id\": 1, \"x\": tru}", 15,
         "expected a JSON value, found \"tru}\""},
        {"{\"id\": 1, \"x\": {\"a\" 1}}", 20,
         "expected ':' after an object key, found '1'"},
        {"{\"id\": 1, \"x\": [1 2]}", 18,
         "expected ',' or ']' after an array element, found '2'"},
        {"{\"id\": 1, \"x\": @}", 15, "expected a JSON value, found '@'"},
    };
    fixture f = setup(WEIR_FORMAT_JSON, NULL);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        size_t heap = f.batch->heap_len;
        cr_assert_eq(dec(&f, cases[i].rec), WEIR_EPARSE, "case %zu: %s", i,
                     cases[i].rec);
        cr_expect_str_eq(f.err.message, cases[i].message, "case %zu: %s", i,
                         cases[i].rec);
        cr_expect_eq(f.err.pos, cases[i].pos, "case %zu: %s: pos %zu", i,
                     cases[i].rec, f.err.pos);
        cr_assert_eq(f.batch->n_rows, 0, "a failed record appends nothing");
        cr_assert_eq(f.batch->heap_len, heap,
                     "a failed record leaves the heap as it was");
    }
    teardown(&f);
}

Test(json, nesting_depth_is_bounded)
{
    fixture f = setup(WEIR_FORMAT_JSON, NULL);
    size_t depth = 100000;
    char *rec = malloc(depth * 2 + 64);
    size_t o = (size_t)sprintf(rec, "{\"id\": 1, \"x\": ");
    for (size_t i = 0; i < depth; i++)
        rec[o++] = '[';
    for (size_t i = 0; i < depth; i++)
        rec[o++] = ']';
    strcpy(rec + o, "}");
    cr_assert_eq(dec(&f, rec), WEIR_EPARSE);
    cr_assert_str_eq(f.err.message, "expected at most 512 levels of nesting");
    free(rec);
    teardown(&f);
}

Test(convert, decimals_are_exact_and_round_half_up)
{
    static const struct {
        const char *text;
        int p, s;
        int rc;
        int64_t v;
    } cases[] = {
        {"12.345", 10, 2, 0, 1235},
        {"-12.345", 10, 2, 0, -1235},
        {"12.344999", 10, 2, 0, 1234},
        {"0.005", 10, 2, 0, 1},
        {"0.004", 10, 2, 0, 0},
        {"1e2", 10, 2, 0, 10000},
        {"1.5E-1", 10, 2, 0, 15},
        {"00012.10", 10, 2, 0, 1210},
        {"+7", 5, 0, 0, 7},
        {".5", 5, 0, 0, 1},
        {"99999999.99", 10, 2, 0, 9999999999},
        {"99999999.995", 10, 2, WEIR__ERANGE, 0},
        {"100000000", 10, 2, WEIR__ERANGE, 0},
        {"123456789012345678", 18, 0, 0, 123456789012345678},
        {"0.000000000000000000000000001", 18, 2, 0, 0},
        {"1e-100000000", 18, 2, 0, 0},
        {"1e100000000", 18, 2, WEIR__ERANGE, 0},
        {"0e100000000", 18, 2, 0, 0},
        {"1.2.3", 10, 2, WEIR_EPARSE, 0},
        {"", 10, 2, WEIR_EPARSE, 0},
        {"e5", 10, 2, WEIR_EPARSE, 0},
        {"1e", 10, 2, WEIR_EPARSE, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int64_t v = 0;
        int rc = weir__fmt_parse_decimal(cases[i].text, strlen(cases[i].text),
                                         cases[i].p, cases[i].s, &v);
        cr_expect_eq(rc, cases[i].rc, "%s: rc %d", cases[i].text, rc);
        if (!rc)
            cr_expect_eq(v, cases[i].v, "%s: %lld", cases[i].text,
                         (long long)v);
    }
}

Test(convert, doubles_read_exactly)
{
    static const char *const texts[] = {"2.5",
                                        "0.1",
                                        "1e308",
                                        "1.7976931348623157e308",
                                        "4.9e-324",
                                        "-0",
                                        "123456789012345678901234567890",
                                        "0.30000000000000004",
                                        "3.141592653589793238462643383279",
                                        "1e-7",
                                        "9007199254740993"};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        double v;
        cr_assert_eq(weir__fmt_parse_f64(texts[i], strlen(texts[i]), &v), 0,
                     "%s", texts[i]);
        cr_expect_eq(v, strtod(texts[i], NULL), "%s", texts[i]);
    }
    double v;
    cr_assert_eq(weir__fmt_parse_f64("-Infinity", 9, &v), 0);
    cr_assert(isinf(v) && v < 0);
    cr_assert_eq(weir__fmt_parse_f64("0x10", 4, &v), WEIR_EPARSE);
    cr_assert_eq(weir__fmt_parse_f64("inf", 3, &v), WEIR_EPARSE);
    cr_assert_eq(weir__fmt_parse_f64("1e", 2, &v), WEIR_EPARSE);
}

Test(convert, doubles_print_as_java)
{
    static const struct {
        double v;
        const char *s;
    } cases[] = {
        {2.5, "2.5"},
        {1.0, "1.0"},
        {100.0, "100.0"},
        {1e7, "1.0E7"},
        {1234567.0, "1234567.0"},
        {0.001, "0.001"},
        {1e-4, "1.0E-4"},
        {1e20, "1.0E20"},
        {0.1 + 0.2, "0.30000000000000004"},
        {-0.0, "-0.0"},
        {123456789.0, "1.23456789E8"},
        {-1.5e-10, "-1.5E-10"},
        {NAN, "NaN"},
        {-INFINITY, "-Infinity"},
        {0.5, "0.5"},
        {9999999.0, "9999999.0"},
        {4.9e-324, "4.9E-324"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char buf[32];
        weir__fmt_format_f64_java(cases[i].v, buf);
        cr_expect_str_eq(buf, cases[i].s);
    }
}

/*
 * Java 17's Double.toString where it is not the shortest text that reads
 * back (a digit more, or other digits: 9.999999999999999E22 is 1e23), the
 * two-digit E-form of the smallest subnormal and the range boundaries.
 * Expected strings printed by Java 17 (Double.toString of the same bits);
 * tests/tools/java_double_soak.sh compares a few hundred thousand more.
 */
Test(convert, f64_java17_digits)
{
    static const struct {
        uint64_t bits;
        const char *s;
    } cases[] = {
        {0x0000000000000001ull, "4.9E-324"},
        {0x4366345785d8a001ull, "5.0000000000000008E16"},
        {0x0000000000000020ull, "1.58E-322"},
        {0x0000000000000800ull, "1.0118E-320"},
        {0x0630000000000000ull, "7.0515405307219905E-279"},
        {0x0e80000000000000ull, "7.6784476871456305E-239"},
        {0x1680000000000000ull, "2.6128403532605207E-200"},
        {0x1f10000000000000ull, "4.5522099189454387E-159"},
        {0x2800000000000000ull, "5.0758836746312984E-116"},
        {0x3050000000000000ull, "5.5271478752604446E-76"},
        {0x37f0000000000000ull, "2.9387358770557188E-39"},
        {0x4900000000000000ull, "4.4601490397061246E43"},
        {0x5100000000000000ull, "1.5177100720513508E82"},
        {0x5920000000000000ull, "2.0657999024695269E121"},
        {0x6130000000000000ull, "1.4059105607947489E160"},
        {0x6a70000000000000ull, "5.0164565101131187E204"},
        {0x7200000000000000ull, "1.3336028865759709E241"},
        {0x7ac0000000000000ull, "1.8587711355972288E283"},
        {0xc53f25b61cf3faa7ull, "-3.7654787361627743E25"},
        {0x000fffffffffffffull, "2.225073858507201E-308"},
        {0x0010000000000000ull, "2.2250738585072014E-308"},
        {0x7fefffffffffffffull, "1.7976931348623157E308"},
        {0x44b52d02c7e14af6ull, "9.999999999999999E22"},
        {0x43e0000000000000ull, "9.223372036854776E18"},
        {0x4340000000000001ull, "9.007199254740994E15"},
        {0x3f50624dd2f1a9fcull, "0.001"},
        {0x3eb0c6f7a0b5ed8dull, "1.0E-6"},
        {0x4170000000000000ull, "1.6777216E7"},
        {0x43abc16d674ec801ull, "1.00000000000000013E18"},
        {0x4380a741a4627801ull, "1.50000000000000032E17"},
        {0x4376345785d89fffull, "9.9999999999999984E16"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        double v;
        memcpy(&v, &cases[i].bits, 8);
        char buf[32];
        weir__fmt_format_f64_java(v, buf);
        cr_expect_str_eq(buf, cases[i].s, "bits %016llx", (unsigned long long)cases[i].bits);
    }
}

Test(csv, decodes_quotes_delimiters_and_nulls)
{
    fixture f = setup(WEIR_FORMAT_CSV, NULL);
    cr_assert_eq(dec(&f, "1,\"a, \"\"b\"\"\nc\",2.5,3.10,true,7,2020-01-01 "
                         "00:00:00,2020-01-01T00:00:00Z,AQI="),
                 0, "%s", f.err.message);
    cr_assert_eq(dec(&f, "2,,,,,,,,"), 0, "%s", f.err.message);
    cr_assert_eq(dec(&f, "3,\"\", 1 ,\" 2 \",TRUE,,,,"), 0, "%s",
                 f.err.message);
    weir_batch *b = f.batch;
    char buf[64];
    cr_assert_str_eq(str_at(&f, 1, 0, buf), "a, \"b\"\nc");
    cr_assert_eq(WEIR_COL_I64(b, 3)[0], 310);
    cr_assert_eq(WEIR_COL_I64(b, 7)[0], ms_of("2020-01-01 00:00:00"));
    /* an unquoted empty field: empty for STRING and BYTES, NULL for other types
     */
    cr_assert_not(weir_batch_is_null(b, 1, 1));
    cr_assert_str_eq(str_at(&f, 1, 1, buf), "");
    for (uint32_t c = 2; c < 8; c++)
        cr_assert(weir_batch_is_null(b, c, 1), "column %u", c);
    cr_assert_not(weir_batch_is_null(b, 8, 1));
    cr_assert_str_eq(str_at(&f, 1, 2, buf), "");
    cr_assert_eq(WEIR_COL_F64(b, 2)[2], 1.0);
    cr_assert_eq(WEIR_COL_I64(b, 3)[2], 200);
    cr_assert_eq(WEIR_COL_BOOL(b, 4)[2], 1);
    teardown(&f);
}

Test(csv, delimiter_null_literal_and_no_quoting)
{
    weir_format_options opt;
    weir_format_options_init(&opt, WEIR_FORMAT_CSV);
    opt.csv_field_delimiter = '|';
    opt.csv_null_literal = "\\N";
    opt.csv_quote_character = 0;
    fixture f = setup(WEIR_FORMAT_CSV, &opt);
    cr_assert_eq(dec(&f, "1|\"x\"|\\N|\\N|\\N|\\N|\\N|\\N|\\N"), 0, "%s",
                 f.err.message);
    char buf[16];
    cr_assert_str_eq(str_at(&f, 1, 0, buf), "\"x\"");
    cr_assert(weir_batch_is_null(f.batch, 2, 0));
    teardown(&f);
}

Test(csv, malformed_records_have_exact_messages)
{
    static const bad_case cases[] = {
        {"1,a", 3, "expected 9 fields, found 2"},
        {"1,a,,,,,,,,x", 10,
         "expected end of record after 9 fields, found ','"},
        {"x,a,,,,,,,", 0, "expected BIGINT for field \"id\", found \"x\""},
        {"1,\"abc,,,,,,,", 2,
         "expected '\"' to end the quoted field, found end of record"},
        {"1,\"ab\"c,,,,,,,", 6,
         "expected ',' or end of record after a quoted field, found 'c'"},
        {",a,,,,,,,", 0,
         "expected a non-null value for NOT NULL field \"id\", found an empty "
         "field"},
        {"1,\xc3(,,,,,,,", 2,
         "expected valid UTF-8 in field \"name\", found byte 0xc3"},
        {"1,a,,,,,2020-02-30 00:00:00,,", 8,
         "expected TIMESTAMP(3) as \"yyyy-MM-dd HH:mm:ss.SSS\" for field "
         "\"ts\", found \"2020-02-30 00:00:00\""},
    };
    fixture f = setup(WEIR_FORMAT_CSV, NULL);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cr_assert_eq(dec(&f, cases[i].rec), WEIR_EPARSE, "case %zu", i);
        cr_expect_str_eq(f.err.message, cases[i].message, "case %zu", i);
        cr_expect_eq(f.err.pos, cases[i].pos, "case %zu: pos %zu", i,
                     f.err.pos);
        cr_assert_eq(f.batch->n_rows, 0);
    }
    teardown(&f);
}

Test(csv, framing_keeps_quoted_line_breaks)
{
    fixture f = setup(WEIR_FORMAT_CSV, NULL);
    const char *buf = "1,\"a\nb\",x\r\n2,c\n3,\"\"\"\n\"\n4";
    size_t len = strlen(buf), pos = 0;
    const char *expect[] = {"1,\"a\nb\",x", "2,c", "3,\"\"\"\n\"", "4"};
    uint32_t nl[] = {2, 1, 2, 0};
    for (int i = 0; i < 4; i++) {
        weir_frame fr;
        cr_assert_eq(
            weir_decoder_frame(f.dec, buf + pos, len - pos, i == 3, &fr), 0);
        cr_assert_eq(fr.rec_len, strlen(expect[i]), "record %d", i);
        cr_assert(memcmp(buf + pos, expect[i], fr.rec_len) == 0, "record %d",
                  i);
        cr_assert_eq(fr.newlines, nl[i], "record %d", i);
        pos += fr.consumed;
    }
    weir_frame fr;
    cr_assert_eq(weir_decoder_frame(f.dec, "1,\"open\n", 8, false, &fr),
                 WEIR_EAGAIN);
    cr_assert_eq(weir_decoder_frame(f.dec, "", 0, true, &fr), WEIR_EOF);
    teardown(&f);
}

/*
 * Skipping a record chunk by chunk must end where framing would, whatever
 * the chunk size: a quoted field's line breaks (and a quote cut off from
 * its pair at a chunk boundary) do not end the record.
 */
Test(csv, skipping_ends_the_record_where_framing_does)
{
    fixture f = setup(WEIR_FORMAT_CSV, NULL);
    const char *buf = "1,\"a\nb\"\"\n\"\"c\nd\",x\n2,\"e\"\n";
    size_t len = strlen(buf);
    weir_frame whole;
    cr_assert_eq(weir_decoder_frame(f.dec, buf, len, false, &whole), 0);
    cr_assert_eq(whole.consumed, strlen("1,\"a\nb\"\"\n\"\"c\nd\",x\n"));
    for (size_t chunk = 1; chunk <= len; chunk++) {
        weir_skip_state st;
        weir_decoder_skip_init(&st);
        size_t pos = 0;
        uint32_t newlines = 0;
        for (;;) {
            size_t n = len - pos < chunk ? len - pos : chunk;
            weir_frame fr;
            int rc = weir_decoder_skip(f.dec, &st, buf + pos, n, &fr);
            newlines += fr.newlines;
            if (rc == 0) {
                pos += fr.consumed;
                break;
            }
            cr_assert_eq(rc, WEIR_EAGAIN, "chunk %zu", chunk);
            cr_assert_eq(fr.consumed, n);
            pos += n;
            cr_assert(pos < len, "chunk %zu: the record never ended", chunk);
        }
        cr_assert_eq(pos, whole.consumed, "chunk %zu: ended at %zu", chunk,
                     pos);
        cr_assert_eq(newlines, whole.newlines, "chunk %zu", chunk);
    }
    /* Without quoting (and in JSON) a record is a line. */
    weir_skip_state st;
    weir_decoder_skip_init(&st);
    weir_format_options opt;
    weir_format_options_init(&opt, WEIR_FORMAT_JSON);
    weir_decoder *jd;
    weir_error err;
    cr_assert_eq(weir_decoder_create(&opt, f.schema, &jd, &err), 0);
    weir_frame fr;
    cr_assert_eq(weir_decoder_skip(jd, &st, "{\"a\nb", 6, &fr), 0);
    cr_assert_eq(fr.consumed, 4);
    cr_assert_eq(fr.newlines, 1);
    weir_decoder_destroy(jd);
    teardown(&f);
}

/*
 * A column the event time is computed from: NULL there is a bad record
 * even though the type is nullable, located at the value (or, for a JSON
 * field that is missing, at the end of the object), naming the field.
 */
Test(format, required_event_time_field_is_bad_when_null_or_missing)
{
    static const struct {
        weir_format_kind kind;
        const char *rec;
        size_t pos;
        const char *message;
    } cases[] = {
        {WEIR_FORMAT_JSON, "{\"id\": 1, \"lts\": null}", 17,
         "expected a non-null value for field \"lts\" (the event time t is "
         "computed from it), found null"},
        {WEIR_FORMAT_JSON, "{\"id\": 1}", 8,
         "expected field \"lts\" in the object (the event time t is computed "
         "from it)"},
        {WEIR_FORMAT_CSV, "1,a,,,,,,,", 9,
         "expected a non-null value for field \"lts\" (the event time t is "
         "computed from it), found an empty field"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        fixture f = setup(cases[i].kind, NULL);
        cr_assert_eq(dec(&f, cases[i].rec), 0, "case %zu: nullable", i);
        cr_assert_eq(weir_decoder_require(f.dec, 7,
                                          "the event time t is computed "
                                          "from it"),
                     0);
        cr_assert_eq(dec(&f, cases[i].rec), WEIR_EPARSE, "case %zu", i);
        cr_expect_str_eq(f.err.message, cases[i].message, "case %zu", i);
        cr_expect_eq(f.err.pos, cases[i].pos, "case %zu: pos %zu", i,
                     f.err.pos);
        cr_assert_eq(f.batch->n_rows, 1, "case %zu: no row added", i);
        cr_assert_eq(weir_decoder_require(f.dec, 99, "x"), WEIR_EINVAL);
        teardown(&f);
    }
}

/* Builds one row of every type. */
static void fill_row(weir_batch *b, int64_t id, const char *name, double price,
                     int64_t amount, int64_t ts)
{
    int r = weir_batch_append_row(b);
    WEIR_COL_I64(b, 0)[r] = id;
    if (name)
        weir_batch_set_str(b, 1, r, name, strlen(name));
    else
        weir_batch_set_null(b, 1, r);
    WEIR_COL_F64(b, 2)[r] = price;
    WEIR_COL_I64(b, 3)[r] = amount;
    WEIR_COL_BOOL(b, 4)[r] = 1;
    weir_batch_set_null(b, 5, r);
    WEIR_COL_I64(b, 6)[r] = ts;
    WEIR_COL_I64(b, 7)[r] = ts;
    weir_batch_set_str(b, 8, r, "\x01\xff", 2);
}

static char *encode_all(weir_format_options *opt, weir_batch *b)
{
    weir_encoder *e;
    weir_error err;
    cr_assert_eq(weir_encoder_create(opt, b->schema, &e, &err), 0);
    weir_buf out;
    weir_buf_init(&out);
    weir_encoder_header(e, &out);
    for (uint32_t r = 0; r < b->n_rows; r++)
        cr_assert_eq(weir_encoder_encode(e, b, r, &out, &err), 0, "%s",
                     err.message);
    weir_buf_put_u8(&out, 0);
    char *s = strdup((char *)out.data);
    weir_buf_fini(&out);
    weir_encoder_destroy(e);
    return s;
}

Test(encode, json_csv_and_debezium_text)
{
    weir_schema *s = all_types();
    weir_batch *b = weir_batch_create(s, 8);
    int64_t ts = ms_of("2020-01-01 12:00:00.120");
    fill_row(b, 1, "a\"b\n\x01", 2.5, 1230, ts);
    fill_row(b, 2, NULL, 1e20, -5, ts);
    weir_format_options opt;
    weir_format_options_init(&opt, WEIR_FORMAT_JSON);
    char *json = encode_all(&opt, b);
    cr_assert_str_eq(json,
                     "{\"id\":1,\"name\":\"a\\\"b\\n\\u0001\",\"price\":2.5,"
                     "\"amount\":12.30,\"ok\":true,\"n\":null,"
                     "\"ts\":\"2020-01-01 12:00:00.120\",\"lts\":\"2020-01-01 "
                     "12:00:00.120Z\",\"raw\":\"Af8=\"}\n"
                     "{\"id\":2,\"name\":null,\"price\":1.0E20,\"amount\":-0."
                     "05,\"ok\":true,\"n\":null,"
                     "\"ts\":\"2020-01-01 12:00:00.120\",\"lts\":\"2020-01-01 "
                     "12:00:00.120Z\",\"raw\":\"Af8=\"}\n");
    free(json);
    opt.json_ignore_null_fields = true;
    opt.json_timestamp_iso8601 = true;
    b->n_rows = 1;
    json = encode_all(&opt, b);
    cr_assert_str_eq(json, "{\"id\":1,\"name\":\"a\\\"b\\n\\u0001\",\"price\":"
                           "2.5,\"amount\":12.30,\"ok\":true,"
                           "\"ts\":\"2020-01-01T12:00:00.120\",\"lts\":\"2020-"
                           "01-01T12:00:00.120Z\",\"raw\":\"Af8=\"}\n");
    free(json);
    b->n_rows = 2;

    weir_format_options_init(&opt, WEIR_FORMAT_CSV);
    opt.csv_header = true;
    char *csv = encode_all(&opt, b);
    cr_assert_str_eq(csv, "id,name,price,amount,ok,n,ts,lts,raw\n"
                          "1,\"a\"\"b\n\x01\",2.5,12.30,true,,2020-01-01 "
                          "12:00:00.120,2020-01-01 12:00:00.120Z,Af8=\n"
                          "2,,1.0E20,-0.05,true,,2020-01-01 "
                          "12:00:00.120,2020-01-01 12:00:00.120Z,Af8=\n");
    free(csv);

    weir_format_options_init(&opt, WEIR_FORMAT_DEBEZIUM_JSON);
    weir_schema *small = weir_schema_create();
    weir_schema_add(small, "k", weir_type_make(WEIR_TYPE_STRING, false));
    weir_schema_add(small, "v", weir_type_make(WEIR_TYPE_BIGINT, true));
    weir_batch *c = weir_batch_create(small, 8);
    const weir_row_kind kinds[] = {WEIR_ROW_INSERT, WEIR_ROW_UPDATE_BEFORE,
                                   WEIR_ROW_UPDATE_AFTER, WEIR_ROW_DELETE};
    for (int i = 0; i < 4; i++) {
        int r = weir_batch_append_row(c);
        weir_batch_set_str(c, 0, r, "k", 1);
        WEIR_COL_I64(c, 1)[r] = i;
        c->kind[r] = kinds[i];
    }
    char *dbz = encode_all(&opt, c);
    cr_assert_str_eq(
        dbz,
        "{\"before\":null,\"after\":{\"k\":\"k\",\"v\":0},\"op\":\"c\"}\n"
        "{\"before\":{\"k\":\"k\",\"v\":1},\"after\":null,\"op\":\"d\"}\n"
        "{\"before\":null,\"after\":{\"k\":\"k\",\"v\":2},\"op\":\"c\"}\n"
        "{\"before\":{\"k\":\"k\",\"v\":3},\"after\":null,\"op\":\"d\"}\n");
    free(dbz);

    /* plain json refuses changelog rows */
    weir_format_options_init(&opt, WEIR_FORMAT_JSON);
    weir_encoder *e;
    weir_error err;
    cr_assert_eq(weir_encoder_create(&opt, small, &e, &err), 0);
    weir_buf out;
    weir_buf_init(&out);
    cr_assert_eq(weir_encoder_encode(e, c, 3, &out, &err), WEIR_EUNSUPPORTED);
    cr_assert_str_eq(err.message,
                     "format 'json' writes only inserts (+I), got a -D row; "
                     "use 'debezium-json' for a changelog");
    cr_assert_eq(out.len, 0);
    weir_buf_fini(&out);
    weir_encoder_destroy(e);
    weir_batch_destroy(c);
    weir_schema_destroy(small);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

/* Decoding what an encoder wrote gives the same row back. */
Test(encode, round_trip)
{
    weir_format_kind kinds[] = {WEIR_FORMAT_JSON, WEIR_FORMAT_CSV};
    for (int k = 0; k < 2; k++) {
        weir_schema *s = all_types();
        weir_batch *b = weir_batch_create(s, 8);
        fill_row(b, -9, "x,\"y\"\n\xe2\x82\xac", 0.1 + 0.2, 99999999,
                 ms_of("1969-12-31 23:59:59.999"));
        fill_row(b, INT64_MAX, "", -1e-300, -99999999,
                 ms_of("2038-01-19 03:14:07.000"));
        weir_format_options opt;
        weir_format_options_init(&opt, kinds[k]);
        char *text = encode_all(&opt, b);
        weir_decoder *d;
        weir_error err;
        cr_assert_eq(weir_decoder_create(&opt, s, &d, &err), 0);
        weir_batch *back = weir_batch_create(s, 8);
        size_t len = strlen(text), pos = 0;
        weir_frame fr;
        while (weir_decoder_frame(d, text + pos, len - pos, true, &fr) == 0) {
            weir_decode_error de;
            cr_assert_eq(
                weir_decoder_decode(d, text + pos, fr.rec_len, back, &de), 0,
                "%s", de.message);
            pos += fr.consumed;
        }
        cr_assert_eq(back->n_rows, 2);
        for (uint32_t r = 0; r < 2; r++) {
            for (uint32_t c = 0; c < s->n_fields; c++) {
                char x[128], y[128];
                weir_batch_format_value(b, c, r, x, sizeof x);
                weir_batch_format_value(back, c, r, y, sizeof y);
                cr_expect_str_eq(x, y, "format %d row %u column %u", k, r, c);
            }
        }
        weir_batch_destroy(back);
        weir_decoder_destroy(d);
        free(text);
        weir_batch_destroy(b);
        weir_schema_destroy(s);
    }
}

Test(print, rows_as_flink_prints_them)
{
    weir_schema *s = all_types();
    weir_batch *b = weir_batch_create(s, 4);
    fill_row(b, 1, "foo", 2.5, 1230, ms_of("2020-01-01 12:00:00.000"));
    fill_row(b, 2, NULL, 1.0, 5, ms_of("2020-01-01 12:00:30.045"));
    b->kind[1] = WEIR_ROW_UPDATE_BEFORE;
    weir_buf out;
    weir_buf_init(&out);
    weir_format_print_row(b, 0, &out);
    weir_buf_put_u8(&out, '\n');
    weir_format_print_row(b, 1, &out);
    weir_buf_put_u8(&out, 0);
    cr_assert_str_eq(
        (char *)out.data,
        "+I[1, foo, 2.5, 12.30, true, null, 2020-01-01T12:00, "
        "2020-01-01T12:00:00Z, [1, -1]]\n"
        "-U[2, null, 1.0, 0.05, true, null, 2020-01-01T12:00:30.045, "
        "2020-01-01T12:00:30.045Z, [1, -1]]");
    weir_buf_fini(&out);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

Test(decoder, refuses_what_it_cannot_read)
{
    weir_schema *s = all_types();
    weir_format_options opt;
    weir_decoder *d;
    weir_error err;
    weir_format_options_init(&opt, WEIR_FORMAT_CSV);
    opt.csv_field_delimiter = '"';
    cr_assert_eq(weir_decoder_create(&opt, s, &d, &err), WEIR_EINVAL);
    weir_schema_destroy(s);
}

Test(decoder, full_batch_and_allocation_failure)
{
    fixture f = setup(WEIR_FORMAT_JSON, NULL);
    weir_batch_destroy(f.batch);
    f.batch = weir_batch_create(f.schema, 1);
    cr_assert_eq(dec(&f, "{\"id\": 1}"), 0);
    cr_assert_eq(dec(&f, "{\"id\": 2}"), WEIR_EINVAL);
    weir_batch_reset(f.batch);
    /* a fresh batch has no heap yet: the string allocation is the first one */
    weir_batch_destroy(f.batch);
    f.batch = weir_batch_create(f.schema, 1);
    weir_alloc_fail_after(1);
    cr_assert_eq(dec(&f, "{\"id\": 1, \"name\": \"x\"}"), WEIR_ENOMEM);
    weir_alloc_fail_after(0);
    cr_assert_eq(f.batch->n_rows, 0);
    cr_assert_eq(dec(&f, "{\"id\": 1, \"name\": \"x\"}"), 0);
    teardown(&f);
}

/* ---- debezium-json decoding ---- */

Test(debezium_decode, ops_make_row_kinds)
{
    fixture f = setup(WEIR_FORMAT_DEBEZIUM_JSON, NULL);
    cr_assert_eq(weir_decoder_rows_per_record(f.dec), 2);
    cr_assert_eq(dec(&f, "{\"before\":null,\"after\":{\"id\":1,\"name\":\"a\"},"
                         "\"op\":\"c\",\"ts_ms\":5,\"source\":{\"x\":[1]}}"),
                 0);
    cr_assert_eq(dec(&f, "{\"op\":\"r\",\"after\":{\"id\":2}}"), 0);
    cr_assert_eq(dec(&f, "{\"before\":{\"id\":1,\"name\":\"a\"},\"after\":"
                         "{\"id\":1,\"name\":\"b\"},\"op\":\"u\"}"),
                 0);
    cr_assert_eq(dec(&f, "{\"before\":{\"id\":2},\"after\":null,\"op\":\"d\"}"),
                 0);
    cr_assert_eq(f.batch->n_rows, 5);
    const uint8_t kinds[] = {WEIR_ROW_INSERT, WEIR_ROW_INSERT,
                             WEIR_ROW_UPDATE_BEFORE, WEIR_ROW_UPDATE_AFTER,
                             WEIR_ROW_DELETE};
    const int64_t ids[] = {1, 2, 1, 1, 2};
    for (uint32_t i = 0; i < 5; i++) {
        cr_assert_eq(f.batch->kind[i], kinds[i], "row %u", i);
        cr_assert_eq(WEIR_COL_I64(f.batch, 0)[i], ids[i], "row %u", i);
    }
    char buf[16];
    cr_assert_str_eq(str_at(&f, 1, 2, buf), "a");
    cr_assert_str_eq(str_at(&f, 1, 3, buf), "b");
    cr_assert(weir_batch_is_null(f.batch, 1, 1));
    teardown(&f);
}

Test(debezium_decode, schema_include_wrapper)
{
    weir_format_options o;
    weir_format_options_init(&o, WEIR_FORMAT_DEBEZIUM_JSON);
    o.debezium_schema_include = true;
    fixture f = setup(WEIR_FORMAT_DEBEZIUM_JSON, &o);
    cr_assert_eq(dec(&f, "{\"schema\":{\"type\":\"struct\"},\"payload\":{"
                         "\"before\":null,\"after\":{\"id\":7},\"op\":\"c\"}}"),
                 0);
    cr_assert_eq(f.batch->n_rows, 1);
    cr_assert_eq(WEIR_COL_I64(f.batch, 0)[0], 7);
    cr_assert_eq(dec(&f, "{\"before\":null,\"after\":{\"id\":7},\"op\":\"c\"}"),
                 WEIR_EPARSE);
    cr_assert(strstr(f.err.message, "\"payload\""), "%s", f.err.message);
    teardown(&f);
    /* without the option, a wrapped message says which option to set */
    f = setup(WEIR_FORMAT_DEBEZIUM_JSON, NULL);
    cr_assert_eq(dec(&f, "{\"schema\":{},\"payload\":{\"op\":\"c\","
                         "\"after\":{\"id\":1}}}"),
                 WEIR_EPARSE);
    cr_assert(strstr(f.err.message, "debezium-json.schema-include"), "%s",
              f.err.message);
    teardown(&f);
}

Test(debezium_decode, bad_envelopes_are_located_and_append_nothing)
{
    fixture f = setup(WEIR_FORMAT_DEBEZIUM_JSON, NULL);
    const char *rec = "{\"before\":null,\"after\":{\"id\":1},\"op\":\"x\"}";
    cr_assert_eq(dec(&f, rec), WEIR_EPARSE);
    cr_assert_eq(f.err.pos, (size_t)(strstr(rec, "\"x\"") - rec));
    cr_assert(strstr(f.err.message, "found \"x\""), "%s", f.err.message);
    cr_assert_eq(dec(&f, "{\"before\":null,\"after\":{\"id\":1}}"), WEIR_EPARSE);
    cr_assert_eq(dec(&f, "{\"before\":null,\"after\":{\"id\":1},\"op\":\"u\"}"),
                 WEIR_EPARSE);
    cr_assert(strstr(f.err.message, "REPLICA IDENTITY FULL"), "%s",
              f.err.message);
    /* an update whose after image is bad leaves no -U behind */
    cr_assert_eq(dec(&f, "{\"before\":{\"id\":1},\"after\":{\"id\":\"z\"},"
                         "\"op\":\"u\"}"),
                 WEIR_EPARSE);
    cr_assert_eq(dec(&f, "{\"before\":{\"id\":1},\"after\":null,\"op\":\"d\"} x"),
                 WEIR_EPARSE);
    cr_assert_eq(f.batch->n_rows, 0);
    cr_assert_eq(f.batch->heap_len, 0);
    /* a batch with one free row refuses an update rather than splitting it */
    weir_batch *one = weir_batch_create(f.schema, 1);
    cr_assert_eq(weir_decoder_decode(f.dec, "{\"op\":\"c\",\"after\":{\"id\":1}}",
                                     29, one, &f.err),
                 WEIR_EINVAL);
    weir_batch_destroy(one);
    teardown(&f);
}

/*
 * weir_decoder_decode_line against framing then decoding: random streams of
 * JSON lines - valid objects with whitespace (and line breaks) between
 * tokens, CRLF, blank lines, escapes and UTF-8, unknown keys with nested
 * values, missing and mistyped fields, junk after the object, a last line
 * without a break - read both ways must give the same rows, the same bad
 * records at the same offsets, and never a record over max_len bytes.
 */
static const char *line_ws(uint64_t *rng)
{
    static const char *ws[] = {"", "", "", "", " ", "\t", "  ", "\r"};
    *rng = *rng * 6364136223846793005ULL + 1442695040888963407ULL;
    uint32_t r = (uint32_t)((*rng >> 33) % 800);
    return r == 0 ? "\n" : r == 1 ? " \n " : ws[r % 8]; /* a line break: rarely */
}

static uint32_t line_pick(uint64_t *rng, uint32_t n)
{
    *rng = *rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)((*rng >> 33) % n);
}

static void line_put(weir_buf *s, const char *t) { weir_buf_put(s, t, strlen(t)); }

static void line_record(weir_buf *s, uint64_t *rng)
{
    static const char *vals[][3] = {
        {"7", "-12", "\"x\""},                                  /* id */
        {"\"a\\\"b\"", "\"\\u00e9t\\u00e9 \xc3\xa9\"", "null"}, /* name */
        {"2.5", "1e3", "\"z\""},                                /* price */
        {"12.30", "-0.05", "true"},                             /* amount */
        {"true", "false", "1"},                                 /* ok */
        {"5", "null", "99999999999"},                           /* n */
        {"\"2020-01-01 12:00:00.120\"", "\"2020-01-01T00:00:00Z\"", "\"bad\""},
        {"\"2020-01-01 12:00:00.120Z\"", "1577880000000", "null"},
        {"\"Af8=\"", "null", "\"@@\""},
    };
    static const char *names[] = {"id", "name", "price", "amount", "ok", "n", "ts", "lts", "raw"};
    line_put(s, line_ws(rng));
    line_put(s, "{");
    bool first = true;
    for (uint32_t c = 0; c < 9; c++) {
        if (line_pick(rng, c ? 40 : 400) == 0)
            continue; /* missing (id is NOT NULL: a bad record when absent) */
        if (!first) {
            line_put(s, line_ws(rng));
            line_put(s, ",");
        }
        first = false;
        line_put(s, line_ws(rng));
        if (line_pick(rng, 10) == 0) {
            line_put(s, "\"extra\":{\"a\":[1, {\"b\" : \"}\"}], \"c\":null},");
            line_put(s, line_ws(rng));
        }
        line_put(s, "\"");
        line_put(s, names[c]);
        line_put(s, "\"");
        line_put(s, line_ws(rng));
        line_put(s, ":");
        line_put(s, line_ws(rng));
        uint32_t v = line_pick(rng, 200); /* a bad value: rarely */
        line_put(s, vals[c][v == 0 ? 2 : v & 1]);
    }
    line_put(s, line_ws(rng));
    line_put(s, "}");
    uint32_t tail = line_pick(rng, 12);
    line_put(s, tail == 0 && line_pick(rng, 4) == 0 ? " x" : tail == 1 ? "\r" : tail == 2 ? " \t" : "");
}

typedef struct line_read {
    weir_batch *b;
    uint32_t bad;
    weir_buf bad_at; /* offsets of the bad records, as text */
} line_read;

static void line_read_all(weir_decoder *d, const char *buf, size_t len, size_t max_len,
                          bool fused, line_read *out)
{
    size_t pos = 0;
    for (;;) {
        weir_frame f;
        if (fused) {
            uint32_t before = out->b->n_rows;
            if (weir_decoder_decode_line(d, buf + pos, len - pos, max_len, out->b, &f) == 0) {
                cr_assert_eq(out->b->n_rows, before + 1);
                cr_assert_leq(f.rec_len, max_len, "a record of %zu bytes over %zu", f.rec_len,
                              max_len);
                cr_assert_eq(buf[pos + f.consumed - 1], '\n');
                pos += f.consumed;
                continue;
            }
            cr_assert_eq(out->b->n_rows, before);
        }
        if (weir_decoder_frame(d, buf + pos, len - pos, true, &f))
            break;
        if (!weir_decoder_is_blank(d, buf + pos, f.rec_len)) {
            weir_decode_error e;
            if (weir_decoder_decode(d, buf + pos, f.rec_len, out->b, &e)) {
                char at[64];
                snprintf(at, sizeof at, "%zu+%zu:%.20s;", pos, e.pos, e.message);
                line_put(&out->bad_at, at);
                out->bad++;
            }
        }
        pos += f.consumed;
    }
}

Test(json, decode_line_equals_framing_then_decoding)
{
    weir_schema *s = all_types();
    weir_format_options opt;
    weir_format_options_init(&opt, WEIR_FORMAT_JSON);
    weir_decoder *d;
    weir_error err;
    cr_assert_eq(weir_decoder_create(&opt, s, &d, &err), 0);
    uint64_t rng = 20261203;
    uint32_t fused_rows = 0;
    for (int round = 0; round < 300; round++) {
        weir_buf in;
        weir_buf_init(&in);
        uint32_t n = 1 + line_pick(&rng, 40);
        for (uint32_t i = 0; i < n; i++) {
            if (line_pick(&rng, 15) == 0)
                line_put(&in, line_pick(&rng, 2) ? "  \r" : "");
            else
                line_record(&in, &rng);
            if (i + 1 < n || line_pick(&rng, 2))
                line_put(&in, "\n");
        }
        size_t max_len = line_pick(&rng, 3) == 0 ? 60 + line_pick(&rng, 200) : 1u << 20;
        line_read a = {weir_batch_create(s, 4096), 0, {0}}, b = {weir_batch_create(s, 4096), 0, {0}};
        weir_buf_init(&a.bad_at);
        weir_buf_init(&b.bad_at);
        line_read_all(d, (const char *)in.data, in.len, max_len, false, &a);
        line_read_all(d, (const char *)in.data, in.len, max_len, true, &b);
        cr_assert_eq(a.b->n_rows, b.b->n_rows, "round %d", round);
        cr_assert_eq(a.bad, b.bad, "round %d", round);
        weir_buf_put_u8(&a.bad_at, 0);
        weir_buf_put_u8(&b.bad_at, 0);
        cr_assert_str_eq((char *)a.bad_at.data, (char *)b.bad_at.data, "round %d", round);
        char *ja = encode_all(&opt, a.b), *jb = encode_all(&opt, b.b);
        cr_assert_str_eq(ja, jb, "round %d", round);
        fused_rows += b.b->n_rows;
        free(ja);
        free(jb);
        weir_buf_fini(&a.bad_at);
        weir_buf_fini(&b.bad_at);
        weir_batch_destroy(a.b);
        weir_batch_destroy(b.b);
        weir_buf_fini(&in);
    }
    cr_assert_gt(fused_rows, 500, "only %u good rows were drawn", fused_rows);
    weir_decoder_destroy(d);
    weir_schema_destroy(s);
}

/* The shape weir__fast_ts takes, checked a byte at a time. */
static bool fast_ts_shape(const char *s)
{
    static const char shape[] = "0000-00-00 00:00:00.000";
    for (size_t i = 0; i < 23; i++) {
        if (i == 10 ? s[i] != ' ' && s[i] != 'T'
            : shape[i] == '0' ? (unsigned)(s[i] - '0') > 9
                              : s[i] != shape[i])
            return false;
    }
    return true;
}

static uint64_t ts_rng_next(uint64_t *st)
{
    *st = *st * 6364136223846793005u + 1442695040888963407u;
    return *st >> 33;
}

/*
 * The fast timestamp path reads its digits and separators as words: it
 * must take exactly the texts of its shape with fields in range, and give
 * what the general parser gives. Texts: valid ones with up to three bytes
 * changed, often to a byte next to a digit or separator ('/', ':', 0xB0,
 * 0xFF carries into the next byte).
 */
Test(json, fast_timestamp_path_agrees_with_the_general_parser)
{
    static const unsigned char bytes[] = {'0', '5', '9', '/', ':', '-', '.', ' ', 'T', 0,
                                          0x7f, 0x80, 0xB0, 0xB9, 0xF9, 0xFA, 0xFF, 'a'};
    uint64_t st = 36;
    unsigned taken = 0;
    for (int i = 0; i < 300000; i++) {
        char s[24];
        snprintf(s, sizeof s, "%04u-%02u-%02u%c%02u:%02u:%02u.%03u",
                 (unsigned)ts_rng_next(&st) % 10000, 1 + (unsigned)ts_rng_next(&st) % 12,
                 1 + (unsigned)ts_rng_next(&st) % 31, ts_rng_next(&st) & 1 ? ' ' : 'T',
                 (unsigned)ts_rng_next(&st) % 25, (unsigned)ts_rng_next(&st) % 61,
                 (unsigned)ts_rng_next(&st) % 61, (unsigned)ts_rng_next(&st) % 1000);
        for (unsigned k = (unsigned)ts_rng_next(&st) % 4; k > 0; k--)
            s[ts_rng_next(&st) % 23] =
                (char)(ts_rng_next(&st) % 4 ? bytes[ts_rng_next(&st) % sizeof bytes]
                                            : ts_rng_next(&st));
        int64_t fast = 0, general = 0;
        bool took = weir__fast_ts(s, 23, &fast);
        int mo = (s[5] - '0') * 10 + s[6] - '0', d = (s[8] - '0') * 10 + s[9] - '0';
        int h = (s[11] - '0') * 10 + s[12] - '0', mi = (s[14] - '0') * 10 + s[15] - '0';
        int se = (s[17] - '0') * 10 + s[18] - '0';
        bool in_range = mo >= 1 && mo <= 12 && d >= 1 && d <= 28 && h <= 23 &&
                        mi <= 59 && se <= 59;
        cr_assert_eq(took, fast_ts_shape(s) && in_range, "text %.23s: fast path %s it", s,
                     took ? "took" : "refused");
        if (!took)
            continue;
        taken++;
        cr_assert_eq(weir__parse_ts(s, 23, &general, NULL), 0, "text %.23s", s);
        cr_assert_eq(fast, general, "text %.23s: %lld, general parser %lld", s,
                     (long long)fast, (long long)general);
    }
    cr_assert_gt(taken, 10000u);
}

/*
 * A key is matched against the column expected next in one comparison of
 * its bytes (name + "\":"); only that exact key may match there: not one
 * the name is a prefix of, nor a shorter one, and an escaped key, space
 * before the ':', a name too long for the comparison or one JSON escapes
 * still find their column the general way.
 */
Test(json, expected_key_matches_only_that_key)
{
    weir_schema *s = weir_schema_create();
    weir_schema_add(s, "name", weir_type_make(WEIR_TYPE_STRING, true));
    weir_schema_add(s, "a_name_of_16_chr", weir_type_make(WEIR_TYPE_BIGINT, true));
    weir_schema_add(s, "q\"t", weir_type_make(WEIR_TYPE_BIGINT, true));
    weir_schema_add(s, "n", weir_type_make(WEIR_TYPE_BIGINT, true));
    weir_format_options opt;
    weir_format_options_init(&opt, WEIR_FORMAT_JSON);
    weir_decoder *d;
    weir_error err;
    cr_assert_eq(weir_decoder_create(&opt, s, &d, &err), 0);
    weir_batch *b = weir_batch_create(s, 16);
    static const struct {
        const char *rec, *name;
        int64_t long_name, quoted, n;
    } cases[] = {
        {"{\"name\":\"plain\",\"a_name_of_16_chr\":1,\"q\\\"t\":2,\"n\":3}", "plain", 1, 2, 3},
        {"{\"namex\":\"x\",\"nam\":\"y\",\"name\" :\"spaced\",\"n\":4}", "spaced", -1, -1, 4},
        {"{\"n\\u0061me\":\"escaped\",\"nx\":9,\"n\":5}", "escaped", -1, -1, 5},
        {"{\"name\":\"last key short\",\"n\":6}", "last key short", -1, -1, 6},
    };
    for (uint32_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        weir_decode_error de;
        cr_assert_eq(weir_decoder_decode(d, cases[i].rec, strlen(cases[i].rec), b, &de), 0,
                     "%s: %s", cases[i].rec, de.message);
        uint32_t n;
        const char *v = weir_batch_str(b, 0, i, &n);
        cr_assert(n == strlen(cases[i].name) && memcmp(v, cases[i].name, n) == 0,
                  "%s: name %.*s", cases[i].rec, (int)n, v);
        const int64_t want[3] = {cases[i].long_name, cases[i].quoted, cases[i].n};
        for (uint32_t c = 1; c < 4; c++) {
            bool null = weir_batch_is_null(b, c, i);
            cr_assert_eq(null, want[c - 1] < 0, "%s: column %u", cases[i].rec, c);
            if (!null)
                cr_assert_eq(WEIR_COL_I64(b, c)[i], want[c - 1], "%s: column %u",
                             cases[i].rec, c);
        }
    }
    /* the name q"t written bare is no key q"t: the record is bad */
    const char *bad = "{\"name\":\"x\",\"a_name_of_16_chr\":1,\"q\"t\":2,\"n\":3,\"unknown\":0}";
    weir_decode_error de;
    cr_assert_eq(weir_decoder_decode(d, bad, strlen(bad), b, &de), WEIR_EPARSE);
    cr_assert(strstr(de.message, "expected ':' after object key \"q\"") != NULL, "%s",
              de.message);
    weir_batch_destroy(b);
    weir_decoder_destroy(d);
    weir_schema_destroy(s);
}
