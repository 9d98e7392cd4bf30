/*
 * tests/test_expr_funcs.c - the SQL function library: every function with
 * normal values, NULLs and edge cases; time zones; UDFs; and the property
 * that vectorized evaluation equals row-at-a-time evaluation on random
 * batches (seed printed; WEIR_TEST_SEED overrides it).
 */
#include <stdlib.h>
#include <time.h>

#include "expr_support.h"
#include "weir/batch.h"

TestSuite(funcs, .init = setup_expr, .fini = teardown_expr);

/* ---- collection functions (print text through CAST to STRING) ---- */

static const char *EVS(weir_expr *e) { return EV(CAST(e, T(WEIR_TYPE_STRING))); }

static weir_expr *ARR3(weir_expr *a, weir_expr *b, weir_expr *c) { return F("ARRAY", a, b, c, NULL); }

Test(funcs, collection_functions)
{
    weir_expr *a = ARR3(I(3), NULT(WEIR_TYPE_INT), I(1));
    cr_assert_str_eq(EVS(F("ARRAY_APPEND", a, NUL(), NULL)), "[3, null, 1, null]");
    cr_assert_str_eq(EVS(F("ARRAY_PREPEND", a, I(7), NULL)), "[7, 3, null, 1]");
    cr_assert_str_eq(EVS(F("ARRAY_CONCAT", a, F("ARRAY", I(4), NULL), NULL)), "[3, null, 1, 4]");
    cr_assert_str_eq(EV(F("ARRAY_POSITION", a, I(1), NULL)), "3");
    cr_assert_str_eq(EV(F("ARRAY_POSITION", a, NULT(WEIR_TYPE_INT), NULL)), "NULL");
    cr_assert_str_eq(EVS(F("ARRAY_REMOVE", a, NULT(WEIR_TYPE_INT), NULL)), "[3, 1]");
    cr_assert_str_eq(EVS(F("ARRAY_REVERSE", a, NULL)), "[1, null, 3]");
    cr_assert_str_eq(EVS(F("ARRAY_SLICE", a, I(-2), NULL)), "[null, 1]");
    cr_assert_str_eq(EVS(F("ARRAY_SLICE", a, I(3), I(1), NULL)), "[]");
    cr_assert_str_eq(EVS(F("ARRAY_SLICE", a, I(1), NULT(WEIR_TYPE_INT), NULL)), "NULL");
    cr_assert_str_eq(EVS(F("ARRAY_SORT", a, NULL)), "[null, 1, 3]");
    cr_assert_str_eq(EVS(F("ARRAY_SORT", a, B(false), NULL)), "[3, 1, null]");
    cr_assert_str_eq(EVS(F("ARRAY_SORT", a, B(false), B(true), NULL)), "[null, 3, 1]");
    cr_assert_str_eq(EVS(F("ARRAY_SORT", a, NULT(WEIR_TYPE_BOOLEAN), NULL)), "NULL");
    cr_assert_str_eq(EVS(F("ARRAY_SORT", ARR3(D(0.0), D(-0.0), D(-1.5)), NULL)), "[-1.5, -0.0, 0.0]");
    cr_assert_str_eq(EVS(F("ARRAY_UNION", a, ARR3(I(1), I(5), I(5)), NULL)), "[3, null, 1, 5]");
    cr_assert_str_eq(EVS(F("ARRAY_INTERSECT", a, ARR3(I(1), NULT(WEIR_TYPE_INT), I(5)), NULL)), "[null, 1]");
    cr_assert_str_eq(EVS(F("ARRAY_EXCEPT", a, ARR3(I(1), I(1), I(5)), NULL)), "[3, null]");
    cr_assert_str_eq(EV(F("ARRAY_MAX", a, NULL)), "3");
    cr_assert_str_eq(EV(F("ARRAY_MIN", a, NULL)), "1");
    cr_assert_str_eq(EV(F("ARRAY_MAX", F("ARRAY", NULT(WEIR_TYPE_INT), NULL), NULL)), "NULL");
    cr_assert_str_eq(EV(F("ARRAY_MAX", ARR3(S("b"), S("ab"), S("B")), NULL)), "b");
    weir_expr *s = ARR3(S("a"), NULT(WEIR_TYPE_STRING), S(""));
    cr_assert_str_eq(EV(F("ARRAY_JOIN", s, S("+"), NULL)), "a+");
    cr_assert_str_eq(EV(F("ARRAY_JOIN", s, S("+"), S("?"), NULL)), "a+?+");
    cr_assert_str_eq(EV(F("ARRAY_JOIN", s, S("+"), NULT(WEIR_TYPE_STRING), NULL)), "NULL");
    cr_assert_str_eq(EVS(F("SPLIT", S(",a,,b,"), S(","), NULL)), "[, a, , b, ]");
    cr_assert_str_eq(EVS(F("SPLIT", S("ab"), S("ab"), NULL)), "[, ]");
    cr_assert_str_eq(EVS(F("SPLIT", S("abc"), S("x"), NULL)), "[abc]");
    cr_assert_str_eq(EV(F("CARDINALITY", F("SPLIT", S(""), S(","), NULL), NULL)), "0");
    weir_expr *m = F("MAP", S("b"), I(2), S("a"), I(1), NULL);
    cr_assert_str_eq(EVS(F("MAP_ENTRIES", m, NULL)), "[+I[a, 1], +I[b, 2]]");
    cr_assert_str_eq(EVS(F("MAP_UNION", m, F("MAP", S("a"), I(9), NULL), NULL)), "{a=9, b=2}");
    cr_assert_str_eq(EVS(F("MAP_FROM_ARRAYS", ARR3(S("k"), S("j"), S("k")), ARR3(I(1), I(2), I(3)), NULL)),
                     "{j=2, k=3}");
    cr_assert_str_eq(EVE(F("MAP_FROM_ARRAYS", ARR3(S("k"), S("j"), S("i")), F("ARRAY", I(1), NULL), NULL)),
                     "MAP_FROM_ARRAYS: the keys array has 3 elements and the values array 1: they must have the "
                     "same length (row 0)");
    weir_expr *second = F("ITEM", F("MAP_ENTRIES", m, NULL), I(2), NULL);
    cr_assert_str_eq(EV(F("$FIELD", second, S("key"), NULL)), "b");
    cr_assert_str_eq(EV(F("$FIELD", second, S("VALUE"), NULL)), "2");
    cr_assert_str_eq(FE("ARRAY_CONCAT", a, F("ARRAY", S("x"), NULL), NULL),
                     "ARRAY_CONCAT: the arguments must be of one type, not ARRAY<INT> and ARRAY<STRING NOT NULL> (CAST one of them)");
    cr_assert_str_eq(FE("ARRAY_JOIN", a, S(","), NULL),
                     "cannot apply ARRAY_JOIN to (ARRAY<INT>, STRING); expected ARRAY_JOIN(ARRAY<STRING>, STRING [, STRING])");
}

Test(funcs, regexp_array_functions)
{
    weir_expr *s = S("a1b22c333");
    cr_assert_str_eq(EVS(F("REGEXP_EXTRACT_ALL", s, S("([a-z])(\\d+)"), NULL)), "[a, b, c]");
    cr_assert_str_eq(EVS(F("REGEXP_EXTRACT_ALL", s, S("([a-z])(\\d+)"), I(2), NULL)), "[1, 22, 333]");
    cr_assert_str_eq(EVS(F("REGEXP_EXTRACT_ALL", s, S("x(y)"), NULL)), "[]");
    cr_assert_str_eq(EVS(F("REGEXP_EXTRACT_ALL", S("ab a"), S("a(b)?"), NULL)), "[b, null]");
    cr_assert_str_eq(FE("REGEXP_EXTRACT_ALL", s, S("\\d+"), NULL),
                     "REGEXP_EXTRACT_ALL group 1 does not exist: the pattern has 0");
    cr_assert_str_eq(EVS(F("REGEXP_SPLIT", s, S("\\d+"), NULL)), "[a, b, c, ]");
    cr_assert_str_eq(EVS(F("REGEXP_SPLIT", S("1a"), S("\\d"), NULL)), "[, a]");
    cr_assert_str_eq(EVS(F("REGEXP_SPLIT", S("ab"), S("x*"), NULL)), "[a, b, ]");
    cr_assert_str_eq(EVS(F("REGEXP_SPLIT", S("h\xc3\xa9"), S(""), NULL)), "[h, \xc3\xa9]");
    cr_assert_str_eq(EV(F("CARDINALITY", F("REGEXP_SPLIT", S(""), S(","), NULL), NULL)), "1");
    cr_assert_str_eq(EVS(F("REGEXP_SPLIT", NULT(WEIR_TYPE_STRING), S(","), NULL)), "NULL");
}

Test(funcs, json_string_quote_unquote)
{
    cr_assert_str_eq(EV(F("JSON_QUOTE", S("a\"b\\c/d\n"), NULL)), "\"a\\\"b\\\\c\\/d\\n\"");
    cr_assert_str_eq(EV(F("JSON_QUOTE", S("\xc3\xa9\xf0\x9f\x98\x80"), NULL)), "\"\\u00e9\\u1f600\\ude00\"");
    cr_assert_str_eq(EV(F("JSON_QUOTE", NULT(WEIR_TYPE_STRING), NULL)), "NULL");
    cr_assert_str_eq(EV(F("JSON_UNQUOTE", S("\"a\\tb\\u00e9\\/\""), NULL)), "a\tb\xc3\xa9/");
    cr_assert_str_eq(EV(F("JSON_UNQUOTE", S("\"abc"), NULL)), "\"abc");
    cr_assert_str_eq(EV(F("JSON_UNQUOTE", S("\"a\\qb\""), NULL)), "\"a\\qb\"");
    cr_assert_str_eq(EV(F("JSON_UNQUOTE", S("[1, 2]"), NULL)), "[1, 2]");
    cr_assert_str_eq(EV(F("JSON_STRING", I(1), NULL)), "1");
    cr_assert_str_eq(EV(F("JSON_STRING", B(true), NULL)), "true");
    cr_assert_str_eq(EV(F("JSON_STRING", S("a\"b"), NULL)), "\"a\\\"b\"");
    cr_assert_str_eq(EV(F("JSON_STRING", NULT(WEIR_TYPE_INT), NULL)), "NULL");
    cr_assert_str_eq(TYPE(F("JSON_STRING", I(1), NULL)), "STRING NOT NULL");
}

Test(funcs, left_right_startswith_base64)
{
    cr_assert_str_eq(EV(F("LEFT", S("h\xc3\xa9llo"), I(2), NULL)), "h\xc3\xa9");
    cr_assert_str_eq(EV(F("LEFT", S("abc"), I(-1), NULL)), "");
    cr_assert_str_eq(EV(F("RIGHT", S("h\xc3\xa9llo"), I(4), NULL)), "\xc3\xa9llo");
    cr_assert_str_eq(EV(F("RIGHT", S("abc"), I(7), NULL)), "abc");
    cr_assert_str_eq(EV(F("RIGHT", S("abc"), NULT(WEIR_TYPE_INT), NULL)), "NULL");
    cr_assert_str_eq(EV(F("STARTSWITH", S("abc"), S(""), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("STARTSWITH", S("abc"), S("abcd"), NULL)), "FALSE");
    cr_assert_str_eq(EV(F("ENDSWITH", S("abc"), S("bc"), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("ENDSWITH", NUL(), S("bc"), NULL)), "NULL");
    cr_assert_str_eq(EV(F("TO_BASE64", S("hi!"), NULL)), "aGkh");
    cr_assert_str_eq(EV(F("FROM_BASE64", S("aGk="), NULL)), "hi");
    cr_assert_str_eq(EVE(F("FROM_BASE64", S("a$"), NULL)), "FROM_BASE64: 'a$' is not base64 (row 0)");
    cr_assert_str_eq(FE("STARTSWITH", S("a"), I(1), NULL),
                     "cannot apply STARTSWITH to (STRING, INT); expected STARTSWITH(STRING, STRING) or (BYTES, BYTES)");
}

/* Flink's string functions added in f_strx.c; expected values from Flink's
 * documentation and its own tests of these functions. */
Test(funcs, overlay_chr_translate_elt)
{
    weir_expr *t = S("This is a test String.");
    cr_assert_str_eq(EV(F("OVERLAY", S("This is an old string"), S(" new"), I(10), I(5), NULL)), "This is a new string");
    cr_assert_str_eq(EV(F("OVERLAY", S("xxxxxtest"), S("xxxx"), I(6), NULL)), "xxxxxxxxx");
    cr_assert_str_eq(EV(F("OVERLAY", S("xxxxxtest"), S("xxxx"), I(6), I(2), NULL)), "xxxxxxxxxst");
    cr_assert_str_eq(EV(F("OVERLAY", S("123456789"), S("abc"), I(2), I(100), NULL)), "1abc");
    cr_assert_str_eq(EV(F("OVERLAY", S("123456789"), S("abc"), I(2), I(-1), NULL)), "1abc");
    cr_assert_str_eq(EV(F("OVERLAY", S("123456789"), S("abc"), I(100), I(-1), NULL)), "123456789");
    cr_assert_str_eq(EV(F("OVERLAY", t, S("It"), I(-1), I(4), NULL)), "This is a test String.");
    cr_assert_str_eq(EV(F("OVERLAY", t, S("IS"), I(6), I(100), NULL)), "This IS");
    cr_assert_str_eq(EV(F("OVERLAY", S("h\xc3\xa9llo"), S("E"), I(2), I(1), NULL)), "hEllo");
    cr_assert_str_eq(EV(F("OVERLAY", NULT(WEIR_TYPE_STRING), S("It"), I(1), I(4), NULL)), "NULL");
    cr_assert_str_eq(EV(F("CHR", I(65), NULL)), "A");
    cr_assert_str_eq(EV(F("CHR", I(65 + 256), NULL)), "A");
    cr_assert_str_eq(EV(F("CHR", I(233), NULL)), "\xc3\xa9");
    cr_assert_str_eq(EV(F("CHR", I(-3), NULL)), "");
    cr_assert_str_eq(EV(F("CHR", NULT(WEIR_TYPE_INT), NULL)), "NULL");
    weir_expr *w = S("www.apache.org");
    cr_assert_str_eq(EV(F("TRANSLATE", w, S("abcde"), S("123"), NULL)), "www.1p13h.org");
    cr_assert_str_eq(EV(F("TRANSLATE", w, S("abc"), S("12345"), NULL)), "www.1p13he.org");
    cr_assert_str_eq(EV(F("TRANSLATE", w, S("abcae"), S("12345"), NULL)), "www.1p13h5.org");
    cr_assert_str_eq(EV(F("TRANSLATE", w, S("..."), S("123"), NULL)), "www1apache1org");
    cr_assert_str_eq(EV(F("TRANSLATE", w, NULT(WEIR_TYPE_STRING), S("123"), NULL)), "www.apache.org");
    cr_assert_str_eq(EV(F("TRANSLATE", w, S("abc"), NULT(WEIR_TYPE_STRING), NULL)), "www.phe.org");
    cr_assert_str_eq(EV(F("TRANSLATE", S("www.\xf0\x9f\x98\x80.org"), S("\xf0\x9f\x98\x80w"), S("\xe7\xac\x91\xce\xb1"), NULL)),
                     "\xce\xb1\xce\xb1\xce\xb1.\xe7\xac\x91.org");
    cr_assert_str_eq(EV(F("TRANSLATE", NULT(WEIR_TYPE_STRING), S("a"), S("b"), NULL)), "NULL");
    cr_assert_str_eq(EV(F("ELT", I(2), S("scala"), S("java"), NULL)), "java");
    cr_assert_str_eq(EV(F("ELT", I(1), S("a"), NULT(WEIR_TYPE_STRING), NULL)), "a");
    cr_assert_str_eq(EV(F("ELT", NULT(WEIR_TYPE_INT), S("a"), NULL)), "NULL");
    cr_assert_str_eq(EV(F("ELT", I(4), S("a"), S("b"), S("c"), NULL)), "NULL");
    cr_assert_str_eq(EV(F("ELT", I(0), S("a"), NULL)), "NULL");
    cr_assert_str_eq(EV(F("ELT", I(-1), S("a"), NULL)), "NULL");
    cr_assert_str_eq(FE("ELT", I(1), S("a"), I(2), NULL),
                     "cannot apply ELT to (INT, STRING, INT); expected ELT(INT, STRING, "
                     "STRING...) or ELT(INT, BYTES, BYTES...)");
    cr_assert_str_eq(FE("TRANSLATE", I(12345), S("3"), S("5"), NULL),
                     "cannot apply TRANSLATE to (INT, STRING, STRING); expected "
                     "TRANSLATE(STRING, STRING, STRING)");
}

Test(funcs, substring_index_and_char_classes)
{
    weir_expr *w = S("www.apache.org");
    cr_assert_str_eq(EV(F("SUBSTRING_INDEX", w, S("."), I(2), NULL)), "www.apache");
    cr_assert_str_eq(EV(F("SUBSTRING_INDEX", w, S("."), I(-2), NULL)), "apache.org");
    cr_assert_str_eq(EV(F("SUBSTRING_INDEX", w, S("."), I(5), NULL)), "www.apache.org");
    cr_assert_str_eq(EV(F("SUBSTRING_INDEX", w, S("."), I(0), NULL)), "");
    cr_assert_str_eq(EV(F("SUBSTRING_INDEX", w, S(""), I(1), NULL)), "");
    cr_assert_str_eq(EV(F("SUBSTRING_INDEX", S("aaa"), S("aa"), I(2), NULL)), "a");
    cr_assert_str_eq(EV(F("SUBSTRING_INDEX", S("aaa"), S("aa"), I(-2), NULL)), "a");
    cr_assert_str_eq(EV(F("SUBSTRING_INDEX", w, NULT(WEIR_TYPE_STRING), I(1), NULL)), "NULL");
    cr_assert_str_eq(EV(F("IS_ALPHA", S("abc\xc3\xa9\xe4\xb8\xad"), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("IS_ALPHA", S("ab1"), NULL)), "FALSE");
    cr_assert_str_eq(EV(F("IS_ALPHA", S(""), NULL)), "FALSE");
    cr_assert_str_eq(EV(F("IS_ALPHA", NULT(WEIR_TYPE_STRING), NULL)), "FALSE");
    cr_assert_str_eq(EV(F("IS_DIGIT", S("0123\xd9\xa3"), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("IS_DIGIT", S("-1"), NULL)), "FALSE");
    cr_assert_str_eq(EV(F("IS_DIGIT", S(""), NULL)), "FALSE");
    const char *dec_yes[] = {"1", "-12", "+3", "1.5", ".5", "5.", "1e10", "1.5E-3", " 7 ", "2f", "2.5D",
                             "NaN", "-Infinity", "0x1p3", "0X1.8P-1", "\xd9\xa3\xd9\xa4", "9223372036854775808"};
    const char *dec_no[] = {"", "abc", "1e", "e5", ".", "1.2.3", "--1", "nan", "0x1", "1 2", "Inf", "1ee5"};
    for (size_t k = 0; k < sizeof dec_yes / sizeof *dec_yes; k++)
        cr_assert_str_eq(EV(F("IS_DECIMAL", S(dec_yes[k]), NULL)), "TRUE", "%s", dec_yes[k]);
    for (size_t k = 0; k < sizeof dec_no / sizeof *dec_no; k++)
        cr_assert_str_eq(EV(F("IS_DECIMAL", S(dec_no[k]), NULL)), "FALSE", "%s", dec_no[k]);
    cr_assert_str_eq(TYPE(F("IS_DIGIT", NULT(WEIR_TYPE_STRING), NULL)), "BOOLEAN NOT NULL");
}

Test(funcs, url_functions)
{
    cr_assert_str_eq(EV(F("URL_ENCODE", S("a b&c=d/\xc3\xa9*~._-"), NULL)), "a+b%26c%3Dd%2F%C3%A9*%7E._-");
    cr_assert_str_eq(EV(F("URL_DECODE", S("a+b%26c%3dd%2F%C3%A9"), NULL)), "a b&c=d/\xc3\xa9");
    cr_assert_str_eq(EV(F("URL_DECODE", S("100%"), NULL)), "NULL");
    cr_assert_str_eq(EV(F("URL_DECODE", S("%G1"), NULL)), "NULL");
    cr_assert_str_eq(EV(F("URL_DECODE", S("%C3"), NULL)), "\xef\xbf\xbd");
    const char *u = "http://user:pw@www.example.com:8080/a/b.html?k1=v1&k2=v2&k1=v3#frag";
    cr_assert_str_eq(EV(F("PARSE_URL", S(u), S("HOST"), NULL)), "www.example.com");
    cr_assert_str_eq(EV(F("PARSE_URL", S(u), S("PATH"), NULL)), "/a/b.html");
    cr_assert_str_eq(EV(F("PARSE_URL", S(u), S("QUERY"), NULL)), "k1=v1&k2=v2&k1=v3");
    cr_assert_str_eq(EV(F("PARSE_URL", S(u), S("QUERY"), S("k1"), NULL)), "v1");
    cr_assert_str_eq(EV(F("PARSE_URL", S(u), S("QUERY"), S("k3"), NULL)), "NULL");
    cr_assert_str_eq(EV(F("PARSE_URL", S(u), S("HOST"), S("k1"), NULL)), "NULL");
    cr_assert_str_eq(EV(F("PARSE_URL", S(u), S("REF"), NULL)), "frag");
    cr_assert_str_eq(EV(F("PARSE_URL", S(u), S("PROTOCOL"), NULL)), "http");
    cr_assert_str_eq(EV(F("PARSE_URL", S(u), S("FILE"), NULL)), "/a/b.html?k1=v1&k2=v2&k1=v3");
    cr_assert_str_eq(EV(F("PARSE_URL", S(u), S("AUTHORITY"), NULL)), "user:pw@www.example.com:8080");
    cr_assert_str_eq(EV(F("PARSE_URL", S(u), S("USERINFO"), NULL)), "user:pw");
    cr_assert_str_eq(EV(F("PARSE_URL", S(u), S("host"), NULL)), "NULL");
    cr_assert_str_eq(EV(F("PARSE_URL", S("http://h"), S("QUERY"), NULL)), "NULL");
    cr_assert_str_eq(EV(F("PARSE_URL", S("http://h"), S("PATH"), NULL)), "");
    cr_assert_str_eq(EV(F("PARSE_URL", S("nope://h/x"), S("HOST"), NULL)), "NULL");
    cr_assert_str_eq(EV(F("PARSE_URL", S("not a url"), S("HOST"), NULL)), "NULL");
}

Test(funcs, str_to_map_encode_decode_typeof)
{
    cr_assert_str_eq(EVS(F("STR_TO_MAP", S("a=1,b=2,c"), NULL)), "{a=1, b=2, c=null}");
    cr_assert_str_eq(EVS(F("STR_TO_MAP", S("k1:v1;k2:v2;k1:v3"), S(";"), S(":"), NULL)), "{k1=v3, k2=v2}");
    cr_assert_str_eq(EVS(F("STR_TO_MAP", S("a=1,,b==2,,"), NULL)), "{=null, a=1, b==2}");
    cr_assert_str_eq(EVS(F("STR_TO_MAP", S(",,"), NULL)), "{}");
    cr_assert_str_eq(EVS(F("STR_TO_MAP", S("a.1|b.2"), S("\\|"), S("\\."), NULL)), "{a=1, b=2}");
    cr_assert_str_eq(FE("STR_TO_MAP", S("a"), S("[,;]"), S("="), NULL),
                     "STR_TO_MAP: the delimiter '[,;]' is a regular expression, which weir does not split by; give "
                     "literal text (a metacharacter escaped with one backslash)");
    cr_assert_str_eq(EV(F("DECODE", F("ENCODE", S("h\xc3\xa9llo"), S("UTF-16LE"), NULL), S("utf-16le"), NULL)),
                     "h\xc3\xa9llo");
    cr_assert_str_eq(EV(F("DECODE", F("ENCODE", S("a\xf0\x9f\x98\x80"), S("UTF-16"), NULL), S("UTF-16"), NULL)),
                     "a\xf0\x9f\x98\x80");
    cr_assert_str_eq(EV(F("ENCODE", S("h\xc3\xa9!"), S("US-ASCII"), NULL)), "h?!");
    cr_assert_str_eq(EV(F("ENCODE", S("h\xc3\xa9!"), S("ISO-8859-1"), NULL)), "h\xe9!");
    cr_assert_str_eq(EV(F("DECODE", F("UNHEX", S("68E9FF"), NULL), S("ISO-8859-1"), NULL)), "h\xc3\xa9\xc3\xbf");
    cr_assert_str_eq(EV(F("DECODE", F("UNHEX", S("68E9"), NULL), S("UTF-8"), NULL)), "h\xef\xbf\xbd");
    cr_assert_str_eq(FE("ENCODE", S("a"), S("EBCDIC"), NULL),
                     "ENCODE: unsupported charset 'EBCDIC' (US-ASCII, ISO-8859-1, UTF-8, UTF-16BE, UTF-16LE or UTF-16)");
    cr_assert_str_eq(FE("DECODE", S("a"), S("UTF-8"), NULL),
                     "cannot apply DECODE to (STRING, STRING); expected DECODE(BYTES, STRING)");
    cr_assert_str_eq(EV(F("TYPEOF", I(1), NULL)), "INT NOT NULL");
    cr_assert_str_eq(EV(F("TYPEOF", NULT(WEIR_TYPE_DOUBLE), NULL)), "DOUBLE");
    cr_assert_str_eq(EV(F("TYPEOF", F("ARRAY", I(1), NULL), B(true), NULL)), "ARRAY<INT NOT NULL> NOT NULL");
}

Test(funcs, hashes_and_radix)
{
#ifdef WEIR_HAVE_LIBCRYPTO
    /* digests checked with Python's hashlib */
    cr_assert_str_eq(EV(F("MD5", S(""), NULL)), "d41d8cd98f00b204e9800998ecf8427e");
    cr_assert_str_eq(EV(F("MD5", S("hello"), NULL)), "5d41402abc4b2a76b9719d911017c592");
    cr_assert_str_eq(EV(F("SHA1", S("hello"), NULL)), "aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d");
    cr_assert_str_eq(EV(F("SHA224", S("hello"), NULL)), "ea09ae9cc6768c50fcee903ed054556e5bfc8347907f12598aa24193");
    cr_assert_str_eq(EV(F("SHA256", S("hello"), NULL)),
                     "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
    cr_assert_str_eq(EV(F("SHA2", S("hello"), I(256), NULL)),
                     "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
    cr_assert_str_eq(EV(F("SHA384", S("abc"), NULL)),
                     "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7");
    cr_assert_str_eq(EV(F("SHA512", S("abc"), NULL)),
                     "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd"
                     "454d4423643ce80e2a9ac94fa54ca49f");
    cr_assert_str_eq(EV(F("MD5", NULT(WEIR_TYPE_STRING), NULL)), "NULL");
    cr_assert_str_eq(EV(F("SHA2", S("a"), NULT(WEIR_TYPE_INT), NULL)), "NULL");
    cr_assert_str_eq(FE("SHA2", S("a"), I(100), NULL), "SHA2: the hash length must be 224, 256, 384 or 512, not 100");
#else
    cr_assert_str_eq(FE("MD5", S("a"), NULL),
                     "MD5 needs libcrypto, which this weir was built without (install libssl-dev and rebuild)");
#endif
    cr_assert_str_eq(EV(F("BIN", I(12), NULL)), "1100");
    cr_assert_str_eq(EV(F("BIN", I(0), NULL)), "0");
    cr_assert_str_eq(EV(F("BIN", L(-2), NULL)), "1111111111111111111111111111111111111111111111111111111111111110");
    cr_assert_str_eq(EV(F("HEX", I(100), NULL)), "64");
    cr_assert_str_eq(EV(F("HEX", I(-1), NULL)), "FFFFFFFFFFFFFFFF");
    cr_assert_str_eq(EV(F("HEX", S("hello,world"), NULL)), "68656C6C6F2C776F726C64");
    cr_assert_str_eq(EV(F("HEX", NULT(WEIR_TYPE_BIGINT), NULL)), "NULL");
    cr_assert_str_eq(EV(F("UNHEX", S("466C696E6B"), NULL)), "Flink");
    /* an odd first digit is checked and read as a zero byte, as Flink: 0x00 0xBC */
    cr_assert_str_eq(EV(F("CHAR_LENGTH", F("DECODE", F("UNHEX", S("ABC"), NULL), S("ISO-8859-1"), NULL), NULL)), "2");
    cr_assert_str_eq(EV(F("SUBSTRING", F("DECODE", F("UNHEX", S("ABC"), NULL), S("ISO-8859-1"), NULL), I(2), NULL)),
                     "\xc2\xbc");
    cr_assert_str_eq(EV(F("UNHEX", S("G41"), NULL)), "NULL");
    cr_assert_str_eq(EV(F("UNHEX", S("4G"), NULL)), "NULL");
    cr_assert_str_eq(FE("BIN", D(1.5), NULL), "cannot apply BIN to (DOUBLE); expected BIN(BIGINT)");
    const char *u = EV(F("UUID", NULL));
    cr_assert_eq(strlen(u), 36);
    cr_assert(u[8] == '-' && u[13] == '-' && u[14] == '4' && u[18] == '-' && u[23] == '-', "%s", u);
    cr_assert(strchr("89ab", u[19]), "%s", u);
    char first[40];
    snprintf(first, sizeof first, "%s", u);
    cr_assert_str_neq(EV(F("UUID", NULL)), first);
    cr_assert_str_eq(TYPE(F("UUID", NULL)), "STRING NOT NULL");
}

Test(funcs, nested_casts)
{
    weir_type ab, as;
    cr_assert_eq(weir_type_array(T(WEIR_TYPE_BIGINT), true, &ab), 0);
    cr_assert_eq(weir_type_array(T(WEIR_TYPE_INT), true, &as), 0);
    weir_expr *a = F("ARRAY", I(1), NULT(WEIR_TYPE_INT), NULL);
    cr_assert_str_eq(EVS(CAST(a, ab)), "[1, null]");
    cr_assert_str_eq(EV(F("ITEM", CAST(a, ab), I(1), NULL)), "1");
    weir_expr *s = F("ARRAY", S("7"), S("x"), NULL);
    cr_assert_str_eq(EVS(TRYCAST(s, as)), "NULL");
    cr_assert_str_eq(EVE(CAST(s, as)),
                     "cannot cast ARRAY<STRING NOT NULL> NOT NULL to ARRAY<INT> NOT NULL: element 2 does not convert (row 0)");
}

/* ---- strings ---- */

Test(funcs, concat_family)
{
    cr_assert_str_eq(EV(F("||", S("ab"), S("cd"), NULL)), "abcd");
    cr_assert_str_eq(EV(F("||", S("ab"), NULT(WEIR_TYPE_STRING), NULL)), "NULL");
    cr_assert_str_eq(EV(F("CONCAT", S("a"), S(""), S("c"), NULL)), "ac");
    cr_assert_str_eq(EV(F("CONCAT", S("a"), NUL(), NULL)), "NULL");
    cr_assert_str_eq(EV(F("CONCAT_WS", S("-"), S("a"), NUL(), S("c"), NULL)), "a-c");
    cr_assert_str_eq(EV(F("CONCAT_WS", NUL(), S("a"), NULL)), "NULL");
    cr_assert_str_eq(EV(F("CONCAT_WS", S(","), NUL(), NULL)), "");
    cr_assert_str_eq(FE("CONCAT", S("a"), I(1), NULL), "cannot apply CONCAT to (STRING, INT); expected CONCAT(STRING, ...)");
}

Test(funcs, case_and_length)
{
    cr_assert_str_eq(EV(F("UPPER", S("aBc-\xc3\xa9"), NULL)), "ABC-\xc3\x89");
    cr_assert_str_eq(EV(F("LOWER", S("ABC"), NULL)), "abc");
    cr_assert_str_eq(EV(F("INITCAP", S("hello wORLD 9x-y"), NULL)), "Hello World 9x-Y");
    cr_assert_str_eq(EV(F("UPPER", S(""), NULL)), "");
    /* A prefix already in the wanted case is kept (all of it: the argument
     * itself); the rest is mapped, ASCII or not. */
    cr_assert_str_eq(EV(F("LOWER", S("channel-42"), NULL)), "channel-42");
    cr_assert_str_eq(EV(F("LOWER", S("channel-42XY"), NULL)), "channel-42xy");
    cr_assert_str_eq(EV(F("LOWER", S("google\xc3\x89T"), NULL)), "google\xc3\xa9t");
    cr_assert_str_eq(EV(F("UPPER", S("APPLE-7"), NULL)), "APPLE-7");
    cr_assert_str_eq(EV(F("UPPER", S("BAIDu"), NULL)), "BAIDU");
    cr_assert_str_eq(EV(F("INITCAP", S("Abc def"), NULL)), "Abc Def");
    cr_assert_str_eq(EV(F("UPPER", NULT(WEIR_TYPE_STRING), NULL)), "NULL");
    cr_assert_str_eq(EV(F("CHAR_LENGTH", S("h\xc3\xa9llo"), NULL)), "5");
    cr_assert_str_eq(EV(F("CHARACTER_LENGTH", S(""), NULL)), "0");
    cr_assert_str_eq(TYPE(F("CHAR_LENGTH", S("x"), NULL)), "INT NOT NULL");
}

Test(funcs, substring_follows_flink)
{
    cr_assert_str_eq(EV(F("SUBSTRING", S("hello"), I(2), NULL)), "ello");
    cr_assert_str_eq(EV(F("SUBSTRING", S("hello"), I(2), I(3), NULL)), "ell");
    cr_assert_str_eq(EV(F("SUBSTRING", S("hello"), I(0), I(2), NULL)), "he");
    cr_assert_str_eq(EV(F("SUBSTRING", S("hello"), I(-3), NULL)), "llo");
    cr_assert_str_eq(EV(F("SUBSTRING", S("hello"), I(-9), I(2), NULL)), "");
    cr_assert_str_eq(EV(F("SUBSTRING", S("hello"), I(6), NULL)), "");
    cr_assert_str_eq(EV(F("SUBSTRING", S("hello"), I(4), I(100), NULL)), "lo");
    cr_assert_str_eq(EV(F("SUBSTRING", S("hello"), I(1), I(-1), NULL)), "NULL");
    cr_assert_str_eq(EV(F("SUBSTR", S("h\xc3\xa9llo"), I(2), I(2), NULL)), "\xc3\xa9l");
    cr_assert_str_eq(EV(F("SUBSTRING", S(""), I(1), NULL)), "");
    cr_assert_str_eq(EV(F("SUBSTRING", NULT(WEIR_TYPE_STRING), I(1), NULL)), "NULL");
    cr_assert_str_eq(EV(F("SUBSTRING", S("abc"), L(2), NULL)), "bc");
    cr_assert_str_eq(FE("SUBSTRING", I(1), I(1), NULL),
                     "cannot apply SUBSTRING to (INT, INT); expected SUBSTRING(STRING, INT [, INT])");
}

Test(funcs, trims)
{
    cr_assert_str_eq(EV(F("TRIM", S("  a b  "), NULL)), "a b");
    cr_assert_str_eq(EV(F("TRIM", S("LEADING"), S("xy"), S("xyxaxy"), NULL)), "axy");
    cr_assert_str_eq(EV(F("TRIM", S("TRAILING"), S("xy"), S("xyxaxy"), NULL)), "xyxa");
    cr_assert_str_eq(EV(F("TRIM", S("BOTH"), S("x"), S("xxax"), NULL)), "a");
    cr_assert_str_eq(EV(F("TRIM", S("BOTH"), S("x"), S("xxx"), NULL)), "");
    cr_assert_str_eq(EV(F("LTRIM", S("  a "), NULL)), "a ");
    cr_assert_str_eq(EV(F("RTRIM", S("  a "), NULL)), "  a");
    cr_assert_str_eq(EV(F("RTRIM", S("a\xc3\xa9\xc3\xa9"), S("\xc3\xa9"), NULL)), "a");
    cr_assert_str_eq(FE("TRIM", S("MIDDLE"), S("x"), S("y"), NULL), "TRIM mode must be BOTH, LEADING or TRAILING, not 'MIDDLE'");
}

Test(funcs, search_and_replace)
{
    cr_assert_str_eq(EV(F("REPLACE", S("aXbXc"), S("X"), S("--"), NULL)), "a--b--c");
    cr_assert_str_eq(EV(F("REPLACE", S("abc"), S(""), S("-"), NULL)), "-a-b-c-");
    cr_assert_str_eq(EV(F("REPLACE", S("aaa"), S("aa"), S("b"), NULL)), "ba");
    cr_assert_str_eq(EV(F("POSITION", S("l"), S("hello"), NULL)), "3");
    cr_assert_str_eq(EV(F("POSITION", S("z"), S("hello"), NULL)), "0");
    cr_assert_str_eq(EV(F("POSITION", S(""), S("hello"), NULL)), "1");
    cr_assert_str_eq(EV(F("POSITION", S("l"), S("\xc3\xa9l"), NULL)), "2");
    cr_assert_str_eq(EV(F("LOCATE", S("l"), S("hello"), I(4), NULL)), "4");
    cr_assert_str_eq(EV(F("LOCATE", S("l"), S("hello"), I(5), NULL)), "0");
    cr_assert_str_eq(EV(F("INSTR", S("abcabc"), S("bc"), NULL)), "2");
    cr_assert_str_eq(EV(F("INSTR", S("abcabc"), S("bc"), I(1), I(2), NULL)), "5");
    cr_assert_str_eq(EV(F("INSTR", S("abcabc"), S("bc"), I(-1), I(1), NULL)), "5");
    cr_assert_str_eq(EV(F("INSTR", S("abcabc"), S("bc"), I(-1), I(2), NULL)), "2");
    cr_assert_str_eq(EV(F("INSTR", S("abc"), S("x"), NULL)), "0");
}

Test(funcs, padding_repeat_reverse)
{
    cr_assert_str_eq(EV(F("LPAD", S("hi"), I(5), S("xy"), NULL)), "xyxhi");
    cr_assert_str_eq(EV(F("RPAD", S("hi"), I(5), S("xy"), NULL)), "hixyx");
    cr_assert_str_eq(EV(F("LPAD", S("hello"), I(2), S("x"), NULL)), "he");
    cr_assert_str_eq(EV(F("RPAD", S("hello"), I(2), S("x"), NULL)), "he");
    cr_assert_str_eq(EV(F("LPAD", S("hi"), I(0), S("x"), NULL)), "");
    cr_assert_str_eq(EV(F("LPAD", S("hi"), I(-1), S("x"), NULL)), "NULL");
    cr_assert_str_eq(EV(F("LPAD", S("hi"), I(4), S(""), NULL)), "NULL");
    cr_assert_str_eq(EV(F("REPEAT", S("ab"), I(3), NULL)), "ababab");
    cr_assert_str_eq(EV(F("REPEAT", S("ab"), I(-1), NULL)), "");
    cr_assert_str_eq(EV(F("REVERSE", S("ab\xc3\xa9"), NULL)), "\xc3\xa9" "ba");
    cr_assert_str_eq(EV(F("REVERSE", S(""), NULL)), "");
}

Test(funcs, split_index)
{
    cr_assert_str_eq(EV(F("SPLIT_INDEX", S("Jack,John,Mary"), S(","), I(2), NULL)), "Mary");
    cr_assert_str_eq(EV(F("SPLIT_INDEX", S("Jack,John,Mary"), S(","), I(3), NULL)), "NULL");
    cr_assert_str_eq(EV(F("SPLIT_INDEX", S("Jack,John,Mary"), S(","), I(-1), NULL)), "NULL");
    cr_assert_str_eq(EV(F("SPLIT_INDEX", S("Jack,John,Mary"), NUL(), I(0), NULL)), "NULL");
    cr_assert_str_eq(EV(F("SPLIT_INDEX", S("a,,b"), S(","), I(1), NULL)), "");
    cr_assert_str_eq(EV(F("SPLIT_INDEX", S("a,"), S(","), I(1), NULL)), "");
    cr_assert_str_eq(EV(F("SPLIT_INDEX", S("a::b::c"), S("::"), I(1), NULL)), "b");
    cr_assert_str_eq(EV(F("SPLIT_INDEX", S("a b"), S(""), I(1), NULL)), "b");
    cr_assert_str_eq(EV(F("SPLIT_INDEX", S(""), S(","), I(0), NULL)), "NULL");
    cr_assert_str_eq(EV(F("SPLIT_INDEX", S("a/b"), I('/'), I(1), NULL)), "b");
}

Test(funcs, hash_code_matches_java)
{
    /* "hello".hashCode() = 99162322; "polygenelubricants".hashCode() = Integer.MIN_VALUE. */
    cr_assert_str_eq(EV(F("HASH_CODE", S("hello"), NULL)), "99162322");
    cr_assert_str_eq(EV(F("HASH_CODE", S(""), NULL)), "0");
    cr_assert_str_eq(EV(F("HASH_CODE", S("polygenelubricants"), NULL)), "-2147483648");
}

/* ---- LIKE, SIMILAR TO, regular expressions ---- */

Test(funcs, like)
{
    cr_assert_str_eq(EV(F("LIKE", S("abc"), S("a%"), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("LIKE", S("abc"), S("%c"), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("LIKE", S("abc"), S("%b%"), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("LIKE", S("abc"), S("a_c"), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("LIKE", S("abc"), S("a_"), NULL)), "FALSE");
    cr_assert_str_eq(EV(F("LIKE", S("abc"), S("abc"), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("LIKE", S("ab"), S("abc"), NULL)), "FALSE");
    cr_assert_str_eq(EV(F("LIKE", S(""), S("%"), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("LIKE", S("\xc3\xa9x"), S("_x"), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("LIKE", S("aXbXc"), S("a%b%c"), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("LIKE", S("axbyc"), S("a%b%d"), NULL)), "FALSE");
    cr_assert_str_eq(EV(F("LIKE", S("50%"), S("50!%"), S("!"), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("LIKE", S("50x"), S("50!%"), S("!"), NULL)), "FALSE");
    cr_assert_str_eq(EV(F("NOT LIKE", S("abc"), S("a%"), NULL)), "FALSE");
    cr_assert_str_eq(EV(F("LIKE", NULT(WEIR_TYPE_STRING), S("a%"), NULL)), "NULL");
    cr_assert_str_eq(FE("LIKE", S("a"), S("a!"), S("!"), NULL), "invalid escape sequence in LIKE pattern 'a!'");
}

Test(funcs, similar_to)
{
    cr_assert_str_eq(EV(F("SIMILAR TO", S("abc"), S("(abc|xyz)"), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("SIMILAR TO", S("abcd"), S("(abc|xyz)"), NULL)), "FALSE");
    cr_assert_str_eq(EV(F("SIMILAR TO", S("a.c"), S("a.c"), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("SIMILAR TO", S("abc"), S("a.c"), NULL)), "FALSE");
    cr_assert_str_eq(EV(F("SIMILAR TO", S("aaa"), S("a+"), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("SIMILAR TO", S("xyz"), S("%y_"), NULL)), "TRUE");
}

Test(funcs, regular_expressions)
{
    cr_assert_str_eq(EV(F("REGEXP", S("k1=v1;k2=v2"), S("k2=\\d"), NULL)), "FALSE");
    cr_assert_str_eq(EV(F("REGEXP", S("k1=v1;k2=22"), S("k2=\\d+"), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("REGEXP", S("abc"), S(""), NULL)), "FALSE");
    cr_assert_str_eq(EV(F("REGEXP_EXTRACT", S("foothebar"), S("foo(.*)(bar)"), I(2), NULL)), "bar");
    cr_assert_str_eq(EV(F("REGEXP_EXTRACT", S("foothebar"), S("foo(.*)(bar)"), I(1), NULL)), "the");
    cr_assert_str_eq(EV(F("REGEXP_EXTRACT", S("foothebar"), S("o+"), NULL)), "oo");
    cr_assert_str_eq(EV(F("REGEXP_EXTRACT", S("foo"), S("x(y)"), I(1), NULL)), "NULL");
    /* Nexmark q21's channel extraction. */
    cr_assert_str_eq(EV(F("REGEXP_EXTRACT", S("https://x.com/?a=1&channel_id=apple&b=2"), S("(&|^)channel_id=([^&]*)"),
                          I(2), NULL)),
                     "apple");
    cr_assert_str_eq(EV(F("REGEXP_EXTRACT", S("a1b22"), S("(?:[a-z])(\\d+)$"), I(1), NULL)), "22");
    cr_assert_str_eq(EV(F("REGEXP_EXTRACT", S("x-]y"), S("[\\]-]+"), NULL)), "-]");
    cr_assert_str_eq(EV(F("REGEXP_REPLACE", S("foobar"), S("oo|ar"), S(""), NULL)), "fb");
    cr_assert_str_eq(EV(F("REGEXP_REPLACE", S("a.b.c"), S("\\."), S("$1"), NULL)), "a$1b$1c");
    cr_assert_str_eq(EV(F("REGEXP_REPLACE", S("abc"), S("x*"), S("-"), NULL)), "-a-b-c-");
    cr_assert_str_eq(EV(F("REGEXP_REPLACE", S("  a  b "), S("\\s+"), S(" "), NULL)), " a b ");
    cr_assert_str_eq(EV(F("REGEXP", S("ABC"), S("(?i)abc"), NULL)), "TRUE");
    cr_assert_str_eq(FE("REGEXP_EXTRACT", S("a"), S("(a)"), I(2), NULL), "REGEXP_EXTRACT group 2 does not exist: the pattern has 1");
}

#ifdef WEIR_HAVE_PCRE2
/* java.util.regex semantics, each expected value worked out from Java's rules. */
Test(funcs, regex_java_semantics)
{
    /* Leftmost-first alternation (POSIX would take the longest, "ab"). */
    cr_assert_str_eq(EV(F("REGEXP_EXTRACT", S("ab"), S("a|ab"), NULL)), "a");
    /* Java stops at the first alternative that lets the rest match: "a" (POSIX: the longest, "abc"). */
    cr_assert_str_eq(EV(F("REGEXP_EXTRACT", S("xabcx"), S("(a|ab)(c|bcd)?"), NULL)), "a");
    /* Lazy and possessive quantifiers, atomic groups. */
    cr_assert_str_eq(EV(F("REGEXP_EXTRACT", S("<a><b>"), S("<(.+?)>"), I(1), NULL)), "a");
    cr_assert_str_eq(EV(F("REGEXP_EXTRACT", S("<a><b>"), S("<(.+)>"), I(1), NULL)), "a><b");
    cr_assert_str_eq(EV(F("REGEXP_EXTRACT", S("aaa"), S("a++a"), NULL)), "NULL");
    cr_assert_str_eq(EV(F("REGEXP_EXTRACT", S("aaa"), S("(?>a+)a"), NULL)), "NULL");
    /* Look-ahead and look-behind, word boundaries, back-references. */
    cr_assert_str_eq(EV(F("REGEXP_EXTRACT", S("price: 42 USD"), S("\\d+(?= USD)"), NULL)), "42");
    cr_assert_str_eq(EV(F("REGEXP_EXTRACT", S("foo bar"), S("(?<=foo )\\w+"), NULL)), "bar");
    cr_assert_str_eq(EV(F("REGEXP_EXTRACT", S("a1 b2"), S("[a-z](?!1)\\d"), NULL)), "b2");
    cr_assert_str_eq(EV(F("REGEXP", S("the cat sat"), S("\\bcat\\b"), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("REGEXP", S("concat"), S("\\bcat\\b"), NULL)), "FALSE");
    cr_assert_str_eq(EV(F("REGEXP_EXTRACT", S("xababy"), S("(ab)\\1"), NULL)), "abab");
    /* Named groups count like other groups; \Q...\E quotes. */
    cr_assert_str_eq(EV(F("REGEXP_EXTRACT", S("key: value"), S("(?<k>\\w+): (?<v>\\w+)"), I(2), NULL)), "value");
    cr_assert_str_eq(EV(F("REGEXP_EXTRACT", S("a.b*c"), S("\\Q.b*\\E"), NULL)), ".b*");
    /* Characters, not bytes; Unicode properties; Java's \uXXXX and octal escapes. */
    cr_assert_str_eq(EV(F("REGEXP_EXTRACT", S("x=\xc3\xa9"), S(".$"), NULL)), "\xc3\xa9");
    cr_assert_str_eq(EV(F("REGEXP", S("\xc3\x9c" "ber"), S("^\\p{Lu}\\p{Ll}+$"), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("REGEXP", S("\xc3\x9c" "ber"), S("^\\p{IsLatin}+$"), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("REGEXP_EXTRACT", S("caf\xc3\xa9"), S("\\u00e9"), NULL)), "\xc3\xa9");
    cr_assert_str_eq(EV(F("REGEXP_EXTRACT", S("a=b"), S("\\075"), NULL)), "=");
    /* Java's POSIX-named classes are US-ASCII, in and out of brackets. */
    cr_assert_str_eq(EV(F("REGEXP_EXTRACT", S("a1!"), S("\\p{Punct}"), NULL)), "!");
    cr_assert_str_eq(EV(F("REGEXP_EXTRACT", S("AbC"), S("[\\p{Lower}]"), NULL)), "b");
    cr_assert_str_eq(EV(F("REGEXP_EXTRACT", S("ab1"), S("\\P{Alpha}"), NULL)), "1");
    cr_assert_str_eq(EV(F("REGEXP", S("\xc3\xa9"), S("^\\w$"), NULL)), "FALSE");
    cr_assert_str_eq(EV(F("REGEXP", S("\xc3\xa9"), S("(?U)^\\w$"), NULL)), "TRUE");
    /* Line terminators are Java's: '.' and '$' stop at \r as well as \n. */
    cr_assert_str_eq(EV(F("REGEXP", S("a\rb"), S("a.b"), NULL)), "FALSE");
    cr_assert_str_eq(EV(F("REGEXP", S("a\r\n"), S("a$"), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("REGEXP", S("a\r\nb"), S("a$"), NULL)), "FALSE");
    cr_assert_str_eq(EV(F("REGEXP_EXTRACT", S("line1\nline2"), S("(?m)^line\\d$"), NULL)), "line1");
    cr_assert_str_eq(EV(F("REGEXP", S("a\nb"), S("(?s)a.b"), NULL)), "TRUE");
    /* Flags: (?iu) is case-insensitive; (?x) ignores whitespace. */
    cr_assert_str_eq(EV(F("REGEXP", S("ABC"), S("(?iu)abc"), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("REGEXP_EXTRACT", S("xaby"), S("(?x) a b # comment"), NULL)), "ab");
    cr_assert_str_eq(EV(F("REGEXP_EXTRACT", S("aB"), S("a(?i:b)"), NULL)), "aB");
    /* Non-ASCII characters are not digits, word or space characters. */
    cr_assert_str_eq(EV(F("REGEXP_EXTRACT", S("1\xc3\xa9"), S("\\D"), NULL)), "\xc3\xa9");
    cr_assert_str_eq(EV(F("REGEXP_EXTRACT", S("\xc3\xa9" "cb"), S("\\W\\S+"), NULL)), "\xc3\xa9" "cb");
    /* Bytes that are not UTF-8 read as U+FFFD, as Java decodes them. */
    cr_assert_str_eq(EV(F("REGEXP_REPLACE", S("a\xff" "b"), S("[^ab]"), S("?"), NULL)), "a?b");
    cr_assert_str_eq(EV(F("REGEXP_EXTRACT", S("a\xff"), S("\\uFFFD"), NULL)), "\xef\xbf\xbd");
    /* PCRE2 10.42's JIT start-of-match optimization misses this match (turned off). */
    cr_assert_str_eq(EV(F("REGEXP_EXTRACT", S("b"), S("([^a]|^)[a-c1]*."), I(1), NULL)), "");
    cr_assert_str_eq(EV(F("REGEXP_EXTRACT", S("b"), S("(?:[^a]|)b*."), NULL)), "b");
    /* Unset groups are NULL. */
    cr_assert_str_eq(EV(F("REGEXP_EXTRACT", S("b"), S("(a)?b"), I(1), NULL)), "NULL");
}

Test(funcs, regex_replace_count_instr_substr)
{
    /* String.replaceAll: after an empty match the search moves one character on. */
    cr_assert_str_eq(EV(F("REGEXP_REPLACE", S("abc"), S("b*"), S("-"), NULL)), "-a--c-");
    cr_assert_str_eq(EV(F("REGEXP_REPLACE", S("\xc3\xa9t\xc3\xa9"), S(""), S("."), NULL)),
                     ".\xc3\xa9.t.\xc3\xa9.");
    cr_assert_str_eq(EV(F("REGEXP_REPLACE", S("aaa"), S("a*?"), S("-"), NULL)), "-a-a-a-");
    /* The replacement is literal, as Flink quotes it. */
    cr_assert_str_eq(EV(F("REGEXP_REPLACE", S("a.b"), S("(\\.)"), S("$1\\"), NULL)), "a$1\\b");
    cr_assert_str_eq(EV(F("REGEXP_COUNT", S("ababab"), S("ab"), NULL)), "3");
    cr_assert_str_eq(EV(F("REGEXP_COUNT", S("abc"), S("x*"), NULL)), "4");
    cr_assert_str_eq(EV(F("REGEXP_COUNT", S("aaaa"), S("aa"), NULL)), "2");
    cr_assert_str_eq(EV(F("REGEXP_COUNT", NULT(WEIR_TYPE_STRING), S("a"), NULL)), "NULL");
    cr_assert_str_eq(EV(F("REGEXP_INSTR", S("h\xc3\xa9llo world"), S("o"), NULL)), "5");
    cr_assert_str_eq(EV(F("REGEXP_INSTR", S("abc"), S("x"), NULL)), "0");
    cr_assert_str_eq(EV(F("REGEXP_INSTR", S("abc"), S("a"), NULL)), "1");
    cr_assert_str_eq(EV(F("REGEXP_SUBSTR", S("I have 2 apples and 5 oranges"), S("\\d+"), NULL)), "2");
    cr_assert_str_eq(EV(F("REGEXP_SUBSTR", S("abc"), S("\\d+"), NULL)), "NULL");
    /* SIMILAR TO matches the whole string; '%' spans line breaks. */
    cr_assert_str_eq(EV(F("SIMILAR TO", S("ab"), S("a|ab"), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("SIMILAR TO", S("a\nb"), S("a%b"), NULL)), "TRUE");
    cr_assert_str_eq(EV(F("SIMILAR TO", S("ab\n"), S("ab"), NULL)), "FALSE");
    cr_assert_str_eq(EV(F("SIMILAR TO", S("a$b"), S("a$b"), NULL)), "TRUE");
}

Test(funcs, regex_refusals_name_the_construct)
{
    cr_assert_str_eq(FE("REGEXP", S("a"), S("[a-z&&[^b]]"), NULL),
                     "invalid regular expression '[a-z&&[^b]]' in REGEXP: character class intersection '&&' is not supported");
    cr_assert_str_eq(FE("REGEXP", S("a"), S("[a[bc]]"), NULL),
                     "invalid regular expression '[a[bc]]' in REGEXP: a character class inside a character class "
                     "('[a[b]]', union) is not supported");
    cr_assert_str_eq(FE("REGEXP", S("a"), S("\\p{InGreek}"), NULL),
                     "invalid regular expression '\\p{InGreek}' in REGEXP: Unicode blocks ('\\p{InGreek}') are not supported");
    cr_assert_str_eq(FE("REGEXP", S("a"), S("a(?d)b"), NULL),
                     "invalid regular expression 'a(?d)b' in REGEXP: the 'd' flag is supported only as a leading '(?d)'");
    const char *m = FE("REGEXP_COUNT", S("a"), S("(a"), NULL);
    cr_assert(strstr(m, "invalid regular expression '(a' in REGEXP_COUNT: ") == m, "%s", m);
    cr_assert(strstr(m, "at offset 2") != NULL, "%s", m);
}
#endif

Test(funcs, regex_per_row_patterns)
{
    weir_schema *s = weir_schema_create();
    weir_schema_add(s, "v", weir_type_make(WEIR_TYPE_STRING, false));
    weir_schema_add(s, "p", weir_type_make(WEIR_TYPE_STRING, false));
    weir_batch *b = weir_batch_create(s, 4);
    const char *vals[][2] = {{"abc123", "[0-9]+"}, {"xyz", "[0-9]+"}, {"aaa", "a{2}"}, {"q", "("}};
    for (int i = 0; i < 4; i++) {
        int r = weir_batch_append_row(b);
        weir_batch_set_str(b, 0, r, vals[i][0], strlen(vals[i][0]));
        weir_batch_set_str(b, 1, r, vals[i][1], strlen(vals[i][1]));
    }
    weir_expr *v, *p;
    weir_expr_column(A, 0, s->fields[0].type, &v, &ERR);
    weir_expr_column(A, 1, s->fields[1].type, &p, &ERR);
    weir_expr *e = F("REGEXP_EXTRACT", v, p, NULL);
    weir_schema *os = weir_schema_create();
    weir_schema_add(os, "r", weir_type_make(WEIR_TYPE_STRING, true));
    weir_batch *ob = weir_batch_create(os, 4);
    cr_assert_eq(weir_expr_eval(e, b, ENV, ob, 0, &ERR), 0, "%s", ERR.message);
    char buf[32];
    const char *want[] = {"123", "NULL", "aa", "NULL"};
    for (int i = 0; i < 4; i++) {
        weir_batch_format_value(ob, 0, (uint32_t)i, buf, sizeof buf);
        cr_assert_str_eq(buf, want[i], "row %d", i);
    }
    weir_batch_destroy(ob);
    weir_schema_destroy(os);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

/* ---- math ---- */

Test(funcs, math)
{
    cr_assert_str_eq(EV(F("ABS", I(-3), NULL)), "3");
    cr_assert_str_eq(EV(F("ABS", N("-1.50"), NULL)), "1.50");
    cr_assert_str_eq(EV(F("ABS", D(-0.5), NULL)), "0.5");
    cr_assert_str_eq(EV(F("ABS", I(INT32_MIN), NULL)), "-2147483648");
    cr_assert_str_eq(EV(F("SIGN", I(-3), NULL)), "-1");
    cr_assert_str_eq(EV(F("SIGN", N("2.50"), NULL)), "1.00");
    cr_assert_str_eq(EV(F("FLOOR", D(-1.5), NULL)), "-2.0");
    cr_assert_str_eq(EV(F("CEIL", D(-1.5), NULL)), "-1.0");
    cr_assert_str_eq(EV(F("FLOOR", N("-1.5"), NULL)), "-2");
    cr_assert_str_eq(EV(F("CEIL", N("1.01"), NULL)), "2");
    cr_assert_str_eq(TYPE(F("CEIL", N("1.01"), NULL)), "DECIMAL(2, 0) NOT NULL");
    cr_assert_str_eq(EV(F("FLOOR", I(7), NULL)), "7");
    cr_assert_str_eq(EV(F("ROUND", D(2.675), I(2), NULL)), "2.68");
    cr_assert_str_eq(EV(F("ROUND", D(-2.5), NULL)), "-3.0");
    cr_assert_str_eq(EV(F("ROUND", D(1234.5678), I(-2), NULL)), "1200.0");
    cr_assert_str_eq(EV(F("ROUND", D(0.0004), I(3), NULL)), "0.0");
    cr_assert_str_eq(EV(F("ROUND", D(9.995), I(2), NULL)), "10.0");
    cr_assert_str_eq(EV(F("ROUND", N("1.255"), I(2), NULL)), "1.26");
    cr_assert_str_eq(TYPE(F("ROUND", N("1.255"), I(2), NULL)), "DECIMAL(4, 2)");
    cr_assert_str_eq(EV(F("ROUND", I(1250), I(-2), NULL)), "1300");
    cr_assert_str_eq(EV(F("ROUND", I(-1250), I(-2), NULL)), "-1300");
    cr_assert_str_eq(EV(F("TRUNCATE", D(-2.679), I(2), NULL)), "-2.67");
    cr_assert_str_eq(EV(F("TRUNCATE", N("1.999"), I(1), NULL)), "1.9");
    cr_assert_str_eq(EV(F("POWER", I(2), I(10), NULL)), "1024.0");
    cr_assert_str_eq(EV(F("SQRT", I(16), NULL)), "4.0");
    cr_assert_str_eq(EV(F("SQRT", I(-1), NULL)), "NaN");
    cr_assert_str_eq(EV(F("EXP", I(0), NULL)), "1.0");
    cr_assert_str_eq(EV(F("LN", I(1), NULL)), "0.0");
    cr_assert_str_eq(EV(F("LN", I(0), NULL)), "-Infinity");
    cr_assert_str_eq(EV(F("LOG10", I(1000), NULL)), "3.0");
    cr_assert_str_eq(EV(F("LOG2", I(8), NULL)), "3.0");
    cr_assert_str_eq(EV(F("LOG", I(2), I(8), NULL)), "3.0");
    cr_assert_str_eq(EV(F("SQRT", NUL(), NULL)), "NULL");
    cr_assert_str_eq(FE("SQRT", S("4"), NULL), "cannot apply SQRT to (STRING); expected SQRT(numeric)");
}

Test(funcs, rand_is_java_random)
{
    /* new java.util.Random(42).nextDouble() = 0.7275636800328681, then 0.6832234717598454. */
    weir_expr *r = F("RAND", I(42), NULL);
    cr_assert_not(weir_expr_is_literal(r));
    cr_assert_str_eq(EV(r), "0.7275636800328681");
    cr_assert_str_eq(EV(r), "0.6832234717598454");
    /* new Random(42).nextInt(10) = 0, then 3. */
    weir_expr *ri = F("RAND_INTEGER", I(42), I(10), NULL);
    cr_assert_str_eq(EV(ri), "0");
    cr_assert_str_eq(EV(ri), "3");
    weir_value v;
    cr_assert_eq(weir_expr_eval_row(F("RAND", NULL), NULL, 0, ENV, &v, &ERR), 0);
    cr_assert(v.v.f64 >= 0 && v.v.f64 < 1);
}

/* ---- time ---- */

Test(funcs, extract_and_parts)
{
    weir_expr *ts = TS("2024-02-29 13:45:56.789");
    cr_assert_str_eq(EV(F("EXTRACT", S("YEAR"), ts, NULL)), "2024");
    cr_assert_str_eq(EV(F("EXTRACT", S("QUARTER"), ts, NULL)), "1");
    cr_assert_str_eq(EV(F("EXTRACT", S("MONTH"), ts, NULL)), "2");
    cr_assert_str_eq(EV(F("EXTRACT", S("DAY"), ts, NULL)), "29");
    cr_assert_str_eq(EV(F("EXTRACT", S("HOUR"), ts, NULL)), "13");
    cr_assert_str_eq(EV(F("EXTRACT", S("MINUTE"), ts, NULL)), "45");
    cr_assert_str_eq(EV(F("EXTRACT", S("SECOND"), ts, NULL)), "56");
    cr_assert_str_eq(EV(F("EXTRACT", S("MILLISECOND"), ts, NULL)), "56789");
    cr_assert_str_eq(EV(F("EXTRACT", S("DOW"), ts, NULL)), "5"); /* Thursday; Sunday = 1 */
    cr_assert_str_eq(EV(F("EXTRACT", S("DOY"), ts, NULL)), "60");
    cr_assert_str_eq(EV(F("EXTRACT", S("WEEK"), ts, NULL)), "9");
    cr_assert_str_eq(EV(F("EXTRACT", S("WEEK"), TS("2021-01-03 00:00:00"), NULL)), "53");
    cr_assert_str_eq(EV(F("YEAR", TS("1969-12-31 23:59:59.999"), NULL)), "1969");
    cr_assert_str_eq(EV(F("SECOND", TS("1969-12-31 23:59:59.999"), NULL)), "59");
    cr_assert_str_eq(EV(F("DAYOFMONTH", ts, NULL)), "29");
    cr_assert_str_eq(EV(F("HOUR", S("2020-01-01 07:00:00"), NULL)), "7");
    cr_assert_str_eq(TYPE(F("YEAR", ts, NULL)), "BIGINT NOT NULL");
    cr_assert_str_eq(EV(F("YEAR", NULT(WEIR_TYPE_TIMESTAMP), NULL)), "NULL");
    cr_assert_str_eq(FE("EXTRACT", S("FORTNIGHT"), ts, NULL), "EXTRACT does not support the time unit FORTNIGHT");
}

Test(funcs, floor_ceil_time)
{
    weir_expr *ts = TS("2024-05-17 13:45:56.789");
    cr_assert_str_eq(EV(F("FLOOR", ts, S("HOUR"), NULL)), "2024-05-17 13:00:00.000");
    cr_assert_str_eq(EV(F("CEIL", ts, S("HOUR"), NULL)), "2024-05-17 14:00:00.000");
    cr_assert_str_eq(EV(F("FLOOR", ts, S("DAY"), NULL)), "2024-05-17 00:00:00.000");
    cr_assert_str_eq(EV(F("FLOOR", ts, S("MONTH"), NULL)), "2024-05-01 00:00:00.000");
    cr_assert_str_eq(EV(F("CEIL", ts, S("MONTH"), NULL)), "2024-06-01 00:00:00.000");
    cr_assert_str_eq(EV(F("FLOOR", ts, S("QUARTER"), NULL)), "2024-04-01 00:00:00.000");
    cr_assert_str_eq(EV(F("FLOOR", ts, S("YEAR"), NULL)), "2024-01-01 00:00:00.000");
    cr_assert_str_eq(EV(F("FLOOR", ts, S("WEEK"), NULL)), "2024-05-12 00:00:00.000");
    cr_assert_str_eq(EV(F("FLOOR", TS("1969-12-31 23:59:59.999"), S("MINUTE"), NULL)), "1969-12-31 23:59:00.000");
    cr_assert_str_eq(EV(F("CEIL", TS("2024-05-17 13:00:00"), S("HOUR"), NULL)), "2024-05-17 13:00:00.000");
}

Test(funcs, interval_arithmetic)
{
    weir_expr *ts = TS("2024-01-31 10:00:00");
    cr_assert_str_eq(EV(F("-", ts, IVL("3", "SECOND"), NULL)), "2024-01-31 09:59:57.000");
    cr_assert_str_eq(EV(F("+", ts, IVL("1", "MONTH"), NULL)), "2024-02-29 10:00:00.000");
    cr_assert_str_eq(EV(F("+", IVL("1", "YEAR"), ts, NULL)), "2025-01-31 10:00:00.000");
    cr_assert_str_eq(EV(F("-", ts, IVL("13", "MONTH"), NULL)), "2022-12-31 10:00:00.000");
    cr_assert_str_eq(EV(F("+", IVL("1", "HOUR"), IVL("30", "MINUTE"), NULL)), "5400000ms");
    cr_assert_str_eq(EV(F("*", IVL("2", "DAY"), I(3), NULL)), "518400000ms");
    weir_expr *iv;
    cr_assert_eq(weir_expr_lit_interval_text(A, "1 02:03:04.5", "DAY", "SECOND", &iv, &ERR), 0, "%s", ERR.message);
    cr_assert_str_eq(EV(iv), "93784500ms");
    cr_assert_eq(weir_expr_lit_interval_text(A, "2-6", "YEAR", "MONTH", &iv, &ERR), 0, "%s", ERR.message);
    cr_assert_str_eq(EV(iv), "30mo");
    cr_assert_eq(weir_expr_lit_interval_text(A, "-1.5", "SECOND", NULL, &iv, &ERR), 0, "%s", ERR.message);
    cr_assert_str_eq(EV(iv), "-1500ms");
    cr_assert_str_eq(FE("+", IVL("1", "MONTH"), IVL("1", "DAY"), NULL),
                     "cannot apply '+' to INTERVAL YEAR TO MONTH and INTERVAL DAY TO SECOND");
    cr_assert_str_eq(EV(F("TIMESTAMPADD", S("DAY"), I(-1), TS("2024-03-01 00:00:00"), NULL)), "2024-02-29 00:00:00.000");
    cr_assert_str_eq(EV(F("TIMESTAMPADD", S("MONTH"), I(1), TS("2023-01-31 00:00:00"), NULL)), "2023-02-28 00:00:00.000");
    cr_assert_str_eq(EV(F("TIMESTAMPDIFF", S("DAY"), TS("2024-01-01 00:00:00"), TS("2024-03-01 12:00:00"), NULL)), "60");
    cr_assert_str_eq(EV(F("TIMESTAMPDIFF", S("MONTH"), TS("2024-01-31 00:00:00"), TS("2024-02-29 00:00:00"), NULL)), "1");
    cr_assert_str_eq(EV(F("TIMESTAMPDIFF", S("MONTH"), TS("2024-01-15 00:00:00"), TS("2024-03-15 00:00:00"), NULL)), "2");
    cr_assert_str_eq(EV(F("TIMESTAMPDIFF", S("HOUR"), TS("2024-01-01 05:00:00"), TS("2024-01-01 00:30:00"), NULL)), "-4");
    cr_assert_str_eq(EV(F("TIMESTAMPDIFF", S("YEAR"), TS("2020-02-29 00:00:00"), TS("2021-02-28 00:00:00"), NULL)), "1");
}

Test(funcs, to_timestamp_and_formats)
{
    cr_assert_str_eq(EV(F("TO_TIMESTAMP", S("2024-03-01 10:11:12"), NULL)), "2024-03-01 10:11:12.000");
    cr_assert_str_eq(EV(F("TO_TIMESTAMP", S("1999-9-10 05:20:10"), NULL)), "1999-09-10 05:20:10.000");
    cr_assert_str_eq(EV(F("TO_TIMESTAMP", S("garbage"), NULL)), "NULL");
    cr_assert_str_eq(EV(F("TO_TIMESTAMP", S("01/03/2024 10.11"), S("dd/MM/yyyy HH.mm"), NULL)), "2024-03-01 10:11:00.000");
    cr_assert_str_eq(EV(F("TO_TIMESTAMP", S("20240301101112123"), S("yyyyMMddHHmmssSSS"), NULL)), "2024-03-01 10:11:12.123");
    cr_assert_str_eq(EV(F("TO_TIMESTAMP", S("Mar 1 2024 3:04 PM"), S("MMM d yyyy h:mm a"), NULL)), "2024-03-01 15:04:00.000");
    cr_assert_str_eq(EV(F("TO_TIMESTAMP", S("2024-02-30"), S("yyyy-MM-dd"), NULL)), "NULL");
    cr_assert_str_eq(TYPE(F("TO_TIMESTAMP", S("2024-03-01 10:11:12"), NULL)), "TIMESTAMP(3)");
    weir_expr *ts = TS("2024-03-05 07:08:09.012");
    cr_assert_str_eq(EV(F("DATE_FORMAT", ts, S("yyyy/MM/dd HH:mm:ss.SSS"), NULL)), "2024/03/05 07:08:09.012");
    cr_assert_str_eq(EV(F("DATE_FORMAT", ts, S("EEE, d MMM yy h a 'o''clock'"), NULL)), "Tue, 5 Mar 24 7 AM o'clock");
    cr_assert_str_eq(EV(F("DATE_FORMAT", ts, S("EEEE MMMM D"), NULL)), "Tuesday March 65");
    cr_assert_str_eq(EV(F("DATE_FORMAT", S("2024-03-05 07:08:09"), S("yyyyMMdd"), NULL)), "20240305");
    cr_assert_str_eq(FE("DATE_FORMAT", ts, S("yyyy-QQ"), NULL), "invalid date pattern 'yyyy-QQ' in DATE_FORMAT: unsupported date pattern letter 'Q'");
    cr_assert_str_eq(EV(F("TO_TIMESTAMP_LTZ", L(1700000000123LL), I(3), NULL)), "2023-11-14 22:13:20.123");
    cr_assert_str_eq(EV(F("TO_TIMESTAMP_LTZ", L(1700000000), I(0), NULL)), "2023-11-14 22:13:20.000");
    cr_assert_str_eq(EV(F("TO_TIMESTAMP_LTZ", L(-1), I(3), NULL)), "1969-12-31 23:59:59.999");
    cr_assert_str_eq(EV(F("TO_TIMESTAMP_LTZ", N("1.5"), I(0), NULL)), "1970-01-01 00:00:01.000");
    cr_assert_str_eq(EV(F("TO_TIMESTAMP_LTZ", L(INT64_MAX), I(0), NULL)), "NULL");
    cr_assert_str_eq(TYPE(F("TO_TIMESTAMP_LTZ", L(1), I(3), NULL)), "TIMESTAMP_LTZ(3)");
    cr_assert_str_eq(FE("TO_TIMESTAMP_LTZ", L(1), I(6), NULL),
                     "The precision value '6' for function TO_TIMESTAMP_LTZ(numeric, precision) is unsupported, the "
                     "supported value is '0' for second or '3' for millisecond.");
    cr_assert_str_eq(EV(F("UNIX_TIMESTAMP", S("1970-01-01 00:00:10"), NULL)), "10");
    cr_assert_str_eq(EV(F("UNIX_TIMESTAMP", S("1969-12-31 23:59:59"), NULL)), "-1");
    cr_assert_str_eq(EV(F("UNIX_TIMESTAMP", S("2024/01/01"), S("yyyy/MM/dd"), NULL)), "1704067200");
    cr_assert_str_eq(EV(F("UNIX_TIMESTAMP", S("bad"), NULL)), "-9223372036854775808");
    cr_assert_str_eq(EV(F("UNIX_TIMESTAMP", S("2024-01-01 00:00:00 +0100"), S("yyyy-MM-dd HH:mm:ss Z"), NULL)), "1704063600");
    cr_assert_str_eq(EV(F("FROM_UNIXTIME", L(1704067200), NULL)), "2024-01-01 00:00:00");
    cr_assert_str_eq(EV(F("FROM_UNIXTIME", L(-1), S("yyyy-MM-dd HH:mm:ss XXX"), NULL)), "1969-12-31 23:59:59 Z");
}

static int64_t fake_now(void *ud) { return *(int64_t *)ud; }

Test(funcs, session_time_zone)
{
    cr_assert_eq(weir_expr_env_set_time_zone(ENV, "+08:00", &ERR), 0, "%s", ERR.message);
    weir_expr *ltz = F("TO_TIMESTAMP_LTZ", L(0), I(3), NULL);
    cr_assert_str_eq(EV(CAST(ltz, T(WEIR_TYPE_STRING))), "1970-01-01 08:00:00.000");
    cr_assert_str_eq(EV(CAST(ltz, T(WEIR_TYPE_TIMESTAMP))), "1970-01-01 08:00:00.000");
    cr_assert_str_eq(EV(F("HOUR", ltz, NULL)), "8");
    cr_assert_str_eq(EV(F("DATE_FORMAT", ltz, S("yyyy-MM-dd HH:mm XXX"), NULL)), "1970-01-01 08:00 +08:00");
    cr_assert_str_eq(EV(F("UNIX_TIMESTAMP", S("1970-01-01 08:00:00"), NULL)), "0");
    cr_assert_str_eq(EV(F("FROM_UNIXTIME", L(0), NULL)), "1970-01-01 08:00:00");
    cr_assert_str_eq(EV(F("FLOOR", ltz, S("DAY"), NULL)), "1969-12-31 16:00:00.000"); /* local midnight, as UTC ms */
    cr_assert_str_eq(EV(CAST(CAST(S("1970-01-01 08:00:00"), T(WEIR_TYPE_TIMESTAMP_LTZ)), T(WEIR_TYPE_BIGINT))), "0");
    /* Named zones with daylight saving time. */
    cr_assert_eq(weir_expr_env_set_time_zone(ENV, "America/New_York", &ERR), 0, "%s", ERR.message);
    cr_assert_str_eq(EV(CAST(F("TO_TIMESTAMP_LTZ", L(1710054000000LL), I(3), NULL), T(WEIR_TYPE_STRING))),
                     "2024-03-10 03:00:00.000"); /* 07:00Z, just after the spring-forward gap */
    cr_assert_str_eq(EV(CAST(F("TO_TIMESTAMP_LTZ", L(1710050400000LL), I(3), NULL), T(WEIR_TYPE_STRING))),
                     "2024-03-10 01:00:00.000");
    /* 02:30 does not exist that day: like java.time, it moves forward to 03:30 EDT. */
    cr_assert_str_eq(EV(F("UNIX_TIMESTAMP", S("2024-03-10 02:30:00"), NULL)), "1710055800");
    /* 01:30 on 2024-11-03 happens twice: the earlier (EDT) instant wins. */
    cr_assert_str_eq(EV(F("UNIX_TIMESTAMP", S("2024-11-03 01:30:00"), NULL)), "1730611800");
    cr_assert_neq(weir_expr_env_set_time_zone(ENV, "Mars/Olympus", &ERR), 0);
    cr_assert_str_eq(ERR.message, "unknown time zone 'Mars/Olympus': use 'UTC', an offset such as '+08:00', or a zone "
                                  "name such as 'Europe/Berlin'");
    /* CURRENT_TIMESTAMP & co read the env's clock (per record: test_sql_proctime checks a batch). */
    cr_assert_eq(weir_expr_env_set_time_zone(ENV, "UTC", &ERR), 0);
    int64_t now = 1700000000000LL;
    weir_clock clk = {fake_now, &now};
    weir_expr_env_set_clock(ENV, &clk);
    weir_expr *ct = F("CURRENT_TIMESTAMP", NULL);
    cr_assert_not(weir_expr_is_literal(ct));
    cr_assert_str_eq(EV(ct), "2023-11-14 22:13:20.000");
    now += 1000;
    cr_assert_str_eq(EV(F("NOW", NULL)), "2023-11-14 22:13:21.000");
    cr_assert_str_eq(EV(F("UNIX_TIMESTAMP", NULL)), "1700000001");
    cr_assert_str_eq(TYPE(F("PROCTIME", NULL)), "TIMESTAMP_LTZ(3) NOT NULL");
}

/*
 * DATE_FORMAT over one batch of close times (a row's text is reused by the
 * next rows of the same pattern, zone offset and unit of time): each row
 * equals its evaluation alone. Runs of rows step by 0-1 ms, then by 311 ms,
 * from just before a minute, an hour, a day, the epoch and New York's
 * spring-forward gap; the pattern also comes per row.
 */
Test(funcs, date_format_batch_equals_each_row)
{
    cr_assert_eq(weir_expr_env_set_time_zone(ENV, "America/New_York", &ERR), 0, "%s", ERR.message);
    weir_schema *s = weir_schema_create();
    weir_schema_add(s, "ts", T(WEIR_TYPE_TIMESTAMP));
    weir_schema_add(s, "ltz", T(WEIR_TYPE_TIMESTAMP_LTZ));
    weir_schema_add(s, "fmt", T(WEIR_TYPE_STRING));
    weir_schema_add(s, "secs", T(WEIR_TYPE_BIGINT));
    weir_expr *ts, *ltz, *fmt, *secs;
    cr_assert_eq(weir_expr_column(A, 0, s->fields[0].type, &ts, &ERR), 0);
    cr_assert_eq(weir_expr_column(A, 1, s->fields[1].type, &ltz, &ERR), 0);
    cr_assert_eq(weir_expr_column(A, 2, s->fields[2].type, &fmt, &ERR), 0);
    cr_assert_eq(weir_expr_column(A, 3, s->fields[3].type, &secs, &ERR), 0);
    static const int64_t starts[] = {59995, 3599995, 19999LL * 86400000 - 5, -1005, 1710053999995LL};
    const uint32_t per = 40, n_starts = sizeof starts / sizeof *starts;
    weir_batch *in = weir_batch_create(s, per * n_starts);
    for (uint32_t k = 0; k < n_starts; k++) {
        for (uint32_t j = 0; j < per; j++) {
            int r = weir_batch_append_row(in);
            cr_assert_geq(r, 0);
            int64_t t = starts[k] + j / 3 + (j >= 20 ? (int64_t)(j - 20) * 311 : 0);
            WEIR_COL_I64(in, 0)[r] = t;
            WEIR_COL_I64(in, 1)[r] = t;
            WEIR_COL_I64(in, 3)[r] = (t - (t % 1000 + 1000) % 1000) / 1000 + j / 30; /* seconds, one step later */
            const char *f = j % 10 < 5 ? "HH:mm" : "yyyy-MM-dd HH:mm:ss.SSS";
            cr_assert_eq(weir_batch_set_str(in, 2, (uint32_t)r, f, (uint32_t)strlen(f)), 0);
            if (j % 7 == 3)
                weir_batch_set_null(in, 0, (uint32_t)r);
            if (j % 11 == 4)
                weir_batch_set_null(in, 2, (uint32_t)r);
        }
    }
    weir_expr *exprs[] = {
        F("DATE_FORMAT", ts, S("yyyy-MM-dd"), NULL),
        F("DATE_FORMAT", ts, S("HH:mm"), NULL),
        F("DATE_FORMAT", ts, S("ss.SSS"), NULL),
        F("DATE_FORMAT", ts, S("h a"), NULL),
        F("DATE_FORMAT", ts, S("EEE D w"), NULL),
        F("DATE_FORMAT", ts, fmt, NULL),
        F("DATE_FORMAT", CAST(ts, T(WEIR_TYPE_STRING)), S("yyyy-MM-dd HH:mm:ss"), NULL),
        F("DATE_FORMAT", ltz, S("yyyy-MM-dd HH:mm XXX"), NULL),
        F("DATE_FORMAT", ltz, S("HH"), NULL),
        F("FROM_UNIXTIME", secs, S("yyyy-MM-dd HH:mm:ss"), NULL),
        F("FROM_UNIXTIME", secs, NULL),
    };
    weir_schema *os = weir_schema_create();
    weir_schema_add(os, "r", T(WEIR_TYPE_STRING));
    uint32_t changes = 0;
    for (uint32_t e = 0; e < sizeof exprs / sizeof *exprs; e++) {
        cr_assert_not_null(exprs[e]);
        weir_batch *ob = weir_batch_create(os, in->n_rows);
        ob->n_rows = in->n_rows;
        cr_assert_eq(weir_expr_eval(exprs[e], in, ENV, ob, 0, &ERR), 0, "expr %u: %s", e, ERR.message);
        for (uint32_t r = 0; r < in->n_rows; r++) {
            weir_value v;
            cr_assert_eq(weir_expr_eval_row(exprs[e], in, r, ENV, &v, &ERR), 0, "%s", ERR.message);
            cr_assert_eq(weir_batch_is_null(ob, 0, r), v.is_null, "expr %u row %u", e, r);
            if (v.is_null)
                continue;
            uint32_t len;
            const char *got = weir_batch_str(ob, 0, r, &len);
            cr_assert(len == v.v.s.len && !memcmp(got, v.v.s.ptr, len), "expr %u row %u: '%.*s', alone '%.*s'", e, r,
                      (int)len, got, (int)v.v.s.len, v.v.s.ptr);
            if (r > 0 && !weir_batch_is_null(ob, 0, r - 1)) {
                uint32_t plen;
                const char *prev = weir_batch_str(ob, 0, r - 1, &plen);
                changes += plen != len || memcmp(prev, got, len);
            }
        }
        weir_batch_destroy(ob);
    }
    cr_assert_gt(changes, 100u); /* the texts do change inside runs of rows */
    /* by hand, from 00:59:59.995 a ms every three rows: rows 0-14 read 00:59, row 15 01:00 */
    weir_batch *ob = weir_batch_create(os, in->n_rows);
    ob->n_rows = in->n_rows;
    cr_assert_eq(weir_expr_eval(exprs[1], in, ENV, ob, 0, &ERR), 0);
    uint32_t len;
    cr_assert_eq(memcmp(weir_batch_str(ob, 0, per + 14, &len), "00:59", 5), 0);
    cr_assert_eq(memcmp(weir_batch_str(ob, 0, per + 15, &len), "01:00", 5), 0);
    weir_batch_destroy(ob);
    weir_schema_destroy(os);
    weir_batch_destroy(in);
    weir_schema_destroy(s);
    cr_assert_eq(weir_expr_env_set_time_zone(ENV, "UTC", &ERR), 0);
}

Test(funcs, current_watermark)
{
    weir_expr *c;
    cr_assert_eq(weir_expr_column(A, 0, weir_type_make(WEIR_TYPE_TIMESTAMP, false), &c, &ERR), 0);
    weir_expr *w = F("CURRENT_WATERMARK", c, NULL);
    cr_assert_str_eq(TYPE(w), "TIMESTAMP(3)");
    cr_assert_str_eq(EV(w), "NULL");
    weir_expr_env_set_watermark(ENV, 1000);
    cr_assert_str_eq(EV(w), "1970-01-01 00:00:01.000");
    /* A typical late-data filter: ts > CURRENT_WATERMARK(ts) OR CURRENT_WATERMARK(ts) IS NULL */
    weir_expr *late = F("OR", F(">", c, w, NULL), F("IS NULL", w, NULL), NULL);
    cr_assert_str_eq(TYPE(late), "BOOLEAN");
}

/* ---- UDFs ---- */

static int count_char(void *ud, const weir_value *args, uint32_t n, weir_value *out, weir_udf_ctx *cx)
{
    (void)ud, (void)n, (void)cx;
    int64_t c = 0;
    for (uint32_t i = 0; i < args[0].v.s.len; i++)
        c += args[1].v.s.len && args[0].v.s.ptr[i] == args[1].v.s.ptr[0];
    out->v.i64 = c;
    return 0;
}

static int twice_vec(void *ud, const weir_expr_vec *args, uint32_t n_args, uint32_t n, weir_expr_vec *out,
                     weir_udf_ctx *cx)
{
    (void)ud, (void)n_args;
    const weir_expr_str *in = args[0].data;
    weir_expr_str *o = out->data;
    for (uint32_t i = 0; i < n; i++) {
        char *p = weir_udf_alloc(cx, in[i].len * 2);
        memcpy(p, in[i].ptr, in[i].len);
        memcpy(p + in[i].len, in[i].ptr, in[i].len);
        o[i] = (weir_expr_str){p, in[i].len * 2};
    }
    return 0;
}

Test(funcs, scalar_udfs)
{
    weir_type at[2] = {weir_type_make(WEIR_TYPE_STRING, true), weir_type_make(WEIR_TYPE_STRING, true)};
    weir_udf u = {.name = "count_char", .arg_types = at, .n_args = 2,
                  .result_type = weir_type_make(WEIR_TYPE_BIGINT, true), .row_fn = count_char,
                  .null_on_null = true, .deterministic = true};
    cr_assert_eq(weir_expr_register_udf(&u, &ERR), 0, "%s", ERR.message);
    cr_assert_neq(weir_expr_register_udf(&u, &ERR), 0);
    cr_assert_str_eq(ERR.message, "function count_char is already registered");
    weir_udf v = {.name = "twice", .arg_types = at, .n_args = 1, .result_type = weir_type_make(WEIR_TYPE_STRING, true),
                  .vec_fn = twice_vec, .null_on_null = true, .deterministic = false};
    cr_assert_eq(weir_expr_register_udf(&v, &ERR), 0, "%s", ERR.message);
    cr_assert_str_eq(EV(F("COUNT_CHAR", S("abcabc"), S("c"), NULL)), "2");
    cr_assert_str_eq(EV(F("count_char", NUL(), S("c"), NULL)), "NULL");
    cr_assert_str_eq(EV(F("twice", S("ab"), NULL)), "abab");
    cr_assert_str_eq(FE("count_char", S("a"), NULL), "cannot apply count_char to (STRING); expected count_char(STRING, STRING)");
    cr_assert_str_eq(FE("count_chr", S("a"), NULL), "no function count_chr(STRING); did you mean count_char?");
    weir_udf bad = u;
    bad.name = "UPPER";
    cr_assert_neq(weir_expr_register_udf(&bad, &ERR), 0);
    cr_assert_eq(weir_expr_unregister_udf("count_char"), 0);
    cr_assert_eq(weir_expr_unregister_udf("twice"), 0);
    cr_assert_eq(weir_expr_unregister_udf("twice"), WEIR_ENOTFOUND);
}

/* ---- vectorized == row-at-a-time on random batches ---- */

static uint64_t rng_s;
static uint64_t rnd(void)
{
    rng_s ^= rng_s << 13;
    rng_s ^= rng_s >> 7;
    rng_s ^= rng_s << 17;
    return rng_s;
}

static void fill_random(weir_batch *b, uint32_t n)
{
    static const char *words[] = {"", "a", "x", "abc", "Hello World", "\xc3\xa9t\xc3\xa9", "k1=v1;k2=22", "1,2,,3", "  pad  "};
    for (uint32_t r = 0; r < n; r++) {
        weir_batch_append_row(b);
        WEIR_COL_I64(b, 0)[r] = (int64_t)(rnd() % 2000) - 500;
        const char *w = words[rnd() % (sizeof words / sizeof *words)];
        weir_batch_set_str(b, 1, r, w, strlen(w));
        WEIR_COL_I32(b, 2)[r] = (int32_t)(rnd() % 21) - 10;
        WEIR_COL_F64(b, 3)[r] = ((double)(rnd() % 100000) - 50000) / 7.0;
        WEIR_COL_I64(b, 4)[r] = (int64_t)(rnd() % 1000000) - 500000;
        WEIR_COL_I64(b, 5)[r] = (int64_t)(rnd() % 4000000000000LL) - 1000000000000LL;
        WEIR_COL_BOOL(b, 6)[r] = rnd() & 1;
        for (uint32_t c = 0; c < 7; c++)
            if (rnd() % 5 == 0)
                weir_batch_set_null(b, c, r);
    }
}

Test(funcs, vectorized_equals_row_at_a_time)
{
    const char *env_seed = getenv("WEIR_TEST_SEED");
    uint64_t seed = env_seed ? strtoull(env_seed, NULL, 10) : (uint64_t)time(NULL);
    fprintf(stderr, "vectorized_equals_row_at_a_time: WEIR_TEST_SEED=%llu\n", (unsigned long long)seed);
    rng_s = seed * 2654435761u + 1;
    weir_schema *s = weir_schema_create();
    weir_schema_add(s, "price", weir_type_make(WEIR_TYPE_BIGINT, true));
    weir_schema_add(s, "channel", weir_type_make(WEIR_TYPE_STRING, true));
    weir_schema_add(s, "qty", weir_type_make(WEIR_TYPE_INT, true));
    weir_schema_add(s, "rate", weir_type_make(WEIR_TYPE_DOUBLE, true));
    weir_schema_add(s, "amount", weir_type_decimal(10, 2, true));
    weir_schema_add(s, "ts", weir_type_make(WEIR_TYPE_TIMESTAMP, true));
    weir_schema_add(s, "ok", weir_type_make(WEIR_TYPE_BOOLEAN, true));
    weir_expr *c[7];
    for (uint32_t k = 0; k < 7; k++)
        weir_expr_column(A, k, s->fields[k].type, &c[k], &ERR);
    weir_expr *cq = c[2];
    weir_expr *cond = F("<>", cq, I(0), NULL), *val = F("/", c[0], cq, NULL), *cs;
    cr_assert_eq(weir_expr_case(A, &cond, &val, 1, L(-1), &cs, &ERR), 0);
    weir_expr *exprs[] = {
        F("+", F("*", c[0], I(3), NULL), cq, NULL),
        F("*", N("0.908"), c[0], NULL),
        F("+", c[4], c[0], NULL),
        F("/", c[4], N("3.5"), NULL),
        F("-", c[3], c[0], NULL),
        F("AND", F(">", c[0], I(100), NULL), F("OR", c[6], F("=", c[1], S("x"), NULL), NULL), NULL),
        F("UPPER", F("||", c[1], S("-"), NULL), NULL),
        F("SUBSTRING", c[1], cq, I(3), NULL),
        F("SPLIT_INDEX", c[1], S(","), I(1), NULL),
        F("REGEXP_EXTRACT", c[1], S("([a-z])([0-9]+)"), I(2), NULL),
        F("LIKE", c[1], S("%l%"), NULL),
        F("COALESCE", c[1], S("none"), NULL),
        F("DATE_FORMAT", c[5], S("yyyy-MM-dd HH"), NULL),
        F("EXTRACT", S("DOW"), c[5], NULL),
        F("FLOOR", c[5], S("MONTH"), NULL),
        F("+", c[5], IVL("1", "MONTH"), NULL),
        CAST(c[4], T(WEIR_TYPE_STRING)),
        CAST(c[3], T(WEIR_TYPE_STRING)),
        TRYCAST(c[1], T(WEIR_TYPE_INT)),
        F("IN", c[2], I(1), I(3), I(5), NULL),
        F("NOT BETWEEN", c[3], D(-10), D(10), NULL),
        F("ROUND", c[3], I(1), NULL),
        F("IF", c[6], c[1], S("no"), NULL),
        F("IS DISTINCT FROM", c[1], S("a"), NULL),
        F("GREATEST", c[0], cq, NULL),
        F("NULLIF", cq, I(0), NULL),
        F("LPAD", c[1], I(6), S("*"), NULL),
        F("HASH_CODE", c[1], NULL),
        F("OVERLAY", c[1], S("xy"), cq, I(2), NULL),
        F("TRANSLATE", c[1], S("ab,"), S("x"), NULL),
        F("SUBSTRING_INDEX", c[1], S(","), cq, NULL),
        F("ELT", I(1), c[1], S("x"), NULL),
        F("IS_DECIMAL", c[1], NULL),
        F("URL_DECODE", F("URL_ENCODE", c[1], NULL), NULL),
        F("PARSE_URL", F("||", S("http://h/"), c[1], NULL), S("PATH"), NULL),
        F("HEX", c[0], NULL),
        F("BIN", cq, NULL),
#ifdef WEIR_HAVE_LIBCRYPTO
        F("MD5", c[1], NULL),
#endif
        cs,
    };
    uint32_t n_expr = sizeof exprs / sizeof exprs[0];
    weir_batch *in = weir_batch_create(s, 257);
    for (int round = 0; round < 8; round++) {
        weir_batch_reset(in);
        fill_random(in, 1 + (uint32_t)(rnd() % 257));
        for (uint32_t k = 0; k < n_expr; k++) {
            weir_type t = weir_expr_type(exprs[k]);
            weir_schema *os = weir_schema_create();
            weir_schema_add(os, "r", t);
            weir_batch *ob = weir_batch_create(os, 257);
            ob->n_rows = in->n_rows;
            int rc = weir_expr_eval(exprs[k], in, ENV, ob, 0, &ERR);
            cr_assert_eq(rc, 0, "expr %u: %s", k, ERR.message);
            for (uint32_t r = 0; r < in->n_rows; r++) {
                weir_value v;
                cr_assert_eq(weir_expr_eval_row(exprs[k], in, r, ENV, &v, &ERR), 0, "%s", ERR.message);
                char b1[600], b2[600];
                const char *rs = fmt_value(&v, 0, b1, sizeof b1);
                if (rs != b1)
                    snprintf(b1, sizeof b1, "%s", rs);
                if (weir_batch_is_null(ob, 0, r)) {
                    snprintf(b2, sizeof b2, "NULL");
                } else {
                    weir_value w = {.type = t};
                    switch (t.id) {
                    case WEIR_TYPE_BOOLEAN: w.v.b = WEIR_COL_BOOL(ob, 0)[r]; break;
                    case WEIR_TYPE_INT: w.v.i32 = WEIR_COL_I32(ob, 0)[r]; break;
                    case WEIR_TYPE_DOUBLE: w.v.f64 = WEIR_COL_F64(ob, 0)[r]; break;
                    case WEIR_TYPE_STRING: {
                        uint32_t len;
                        w.v.s.ptr = weir_batch_str(ob, 0, r, &len);
                        w.v.s.len = len;
                        break;
                    }
                    default:
                        if (weir_type_is_wide(ob->cols[0].type)) {
                            __int128 wv;
                            memcpy(&wv, (const char *)ob->cols[0].data + (size_t)r * 16, 16);
                            WEIR__I128_SET(w.v.i128, wv);
                        } else {
                            w.v.i64 = WEIR_COL_I64(ob, 0)[r];
                        }
                    }
                    const char *ws = fmt_value(&w, 0, b2, sizeof b2);
                    if (ws != b2)
                        snprintf(b2, sizeof b2, "%s", ws);
                }
                char f[256];
                weir_expr_format(exprs[k], f, sizeof f);
                cr_assert_str_eq(b2, b1, "seed %llu round %d expr %s row %u", (unsigned long long)seed, round, f, r);
            }
            weir_batch_destroy(ob);
            weir_schema_destroy(os);
        }
    }
    weir_batch_destroy(in);
    weir_schema_destroy(s);
}
