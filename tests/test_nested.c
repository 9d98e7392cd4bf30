/* tests/test_nested.c - ARRAY, MAP and ROW: interned types, the encoding,
 * JSON in and out, the print text, malformed input. */
#include <criterion/criterion.h>
#include <string.h>

#include "record/nested.h"
#include "weir/format.h"

/* r ROW<a INT, tags ARRAY<STRING>>, m MAP<STRING, BIGINT> */
static weir_schema *schema(void)
{
    weir_type tags, r, m;
    cr_assert_eq(weir_type_array(weir_type_make(WEIR_TYPE_STRING, true), true, &tags), 0);
    weir_type fields[2] = {weir_type_make(WEIR_TYPE_INT, true), tags};
    const char *names[2] = {"a", "tags"};
    cr_assert_eq(weir_type_row(fields, names, 2, true, &r), 0);
    cr_assert_eq(weir_type_map(weir_type_make(WEIR_TYPE_STRING, false), weir_type_make(WEIR_TYPE_BIGINT, true),
                               true, &m),
                 0);
    weir_schema *s = weir_schema_create();
    weir_schema_add(s, "r", r);
    weir_schema_add(s, "m", m);
    return s;
}

Test(nested, types_are_interned_and_formatted)
{
    weir_type a, b, c;
    cr_assert_eq(weir_type_array(weir_type_make(WEIR_TYPE_INT, true), true, &a), 0);
    cr_assert_eq(weir_type_array(weir_type_make(WEIR_TYPE_INT, true), false, &b), 0);
    cr_assert_eq(weir_type_array(weir_type_make(WEIR_TYPE_INT, false), true, &c), 0);
    cr_assert(weir_type_same(a, b), "the same structure, nullability aside");
    cr_assert(!weir_type_same(a, c), "an element NOT NULL is another type");
    cr_assert(weir_nv_type_compatible(a, c), "but the same encoding");
    cr_assert_eq(sizeof(weir_type), 8);
    weir_schema *s = schema();
    char buf[128];
    cr_assert_str_eq(weir_type_format(s->fields[0].type, buf, sizeof buf), "ROW<`a` INT, `tags` ARRAY<STRING>>");
    cr_assert_str_eq(weir_type_format(s->fields[1].type, buf, sizeof buf), "MAP<STRING NOT NULL, BIGINT>");
    weir_schema_destroy(s);
}

static void roundtrip(const char *in, const char *want_json, const char *want_print)
{
    weir_schema *s = schema();
    weir_format_options opt;
    weir_format_options_init(&opt, WEIR_FORMAT_JSON);
    weir_decoder *d;
    weir_encoder *e;
    weir_error err;
    cr_assert_eq(weir_decoder_create(&opt, s, &d, &err), 0);
    cr_assert_eq(weir_encoder_create(&opt, s, &e, &err), 0, "%s", err.message);
    weir_batch *b = weir_batch_create(s, 4);
    weir_decode_error de;
    cr_assert_eq(weir_decoder_decode(d, in, strlen(in), b, &de), 0, "%s", de.message);
    weir_buf out;
    weir_buf_init(&out);
    cr_assert_eq(weir_encoder_encode(e, b, 0, &out, &err), 0);
    cr_assert_eq(out.len, strlen(want_json) + 1);
    cr_assert_eq(memcmp(out.data, want_json, out.len - 1), 0, "got %.*s", (int)out.len, (char *)out.data);
    weir_buf_clear(&out);
    cr_assert_eq(weir_format_print_row(b, 0, &out), 0);
    cr_assert_eq(out.len, strlen(want_print), "got %.*s", (int)out.len, (char *)out.data);
    cr_assert_eq(memcmp(out.data, want_print, out.len), 0, "got %.*s", (int)out.len, (char *)out.data);
    weir_buf_fini(&out);
    weir_batch_destroy(b);
    weir_encoder_destroy(e);
    weir_decoder_destroy(d);
    weir_schema_destroy(s);
}

Test(nested, json_in_json_and_print_out)
{
    /* fields in another order, an unknown field, escapes, NULL at each level */
    roundtrip("{\"m\":{\"x\":1,\"y\":null},\"r\":{\"zz\":[1,{}],\"tags\":[\"a\\\"b\",null,\"\\u00e9\"],\"a\":7}}",
              "{\"r\":{\"a\":7,\"tags\":[\"a\\\"b\",null,\"\xc3\xa9\"]},\"m\":{\"x\":1,\"y\":null}}",
              "+I[+I[7, [a\"b, null, \xc3\xa9]], {x=1, y=null}]");
    roundtrip("{\"r\":{},\"m\":{}}", "{\"r\":{\"a\":null,\"tags\":null},\"m\":{}}", "+I[+I[null, null], {}]");
    roundtrip("{\"r\":null}", "{\"r\":null,\"m\":null}", "+I[null, null]");
}

Test(nested, bad_json_is_a_bad_record)
{
    weir_schema *s = schema();
    weir_format_options opt;
    weir_format_options_init(&opt, WEIR_FORMAT_JSON);
    weir_decoder *d;
    weir_error err;
    cr_assert_eq(weir_decoder_create(&opt, s, &d, &err), 0);
    weir_batch *b = weir_batch_create(s, 4);
    weir_decode_error de;
    const char *bad[] = {"{\"r\":{\"a\":\"x\"}}", "{\"r\":{\"tags\":[1,]}}", "{\"m\":{\"k\":[1]}}",
                         "{\"r\":{\"tags\":\"abc\"}}", "{\"r\":{\"tags\":[\"a\""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_assert_eq(weir_decoder_decode(d, bad[i], strlen(bad[i]), b, &de), WEIR_EPARSE, "%s", bad[i]);
    cr_assert(strstr(de.message, "expected") != NULL);
    weir_batch_destroy(b);
    weir_decoder_destroy(d);
    weir_schema_destroy(s);
}

Test(nested, readers_stay_inside_malformed_values)
{
    weir_type t;
    cr_assert_eq(weir_type_array(weir_type_make(WEIR_TYPE_STRING, true), true, &t), 0);
    /* a count of 3 but one truncated string entry: reading stops at the end */
    const uint8_t v[] = {3, 0, 0, 0, 1, 200, 0, 0, 0, 'a'};
    weir_nv_iter it;
    cr_assert_eq(weir_nv_open(t, v, sizeof v, &it), 3);
    bool is_null;
    const uint8_t *ev;
    uint32_t el;
    cr_assert(!weir_nv_next(&it, weir_type_make(WEIR_TYPE_STRING, true), &is_null, &ev, &el));
    cr_assert(!weir_nv_next(&it, weir_type_make(WEIR_TYPE_STRING, true), &is_null, &ev, &el));
    weir_buf out;
    weir_buf_init(&out);
    cr_assert_eq(weir_format_nested_text(&out, t, v, sizeof v), 0);
    weir_buf_fini(&out);
}

Test(nested, csv_refuses_nested_columns)
{
    weir_schema *s = schema();
    weir_format_options opt;
    weir_format_options_init(&opt, WEIR_FORMAT_CSV);
    weir_decoder *d;
    weir_error err;
    cr_assert_eq(weir_decoder_create(&opt, s, &d, &err), WEIR_EUNSUPPORTED);
    cr_assert(strstr(err.message, "ROW<`a` INT, `tags` ARRAY<STRING>>") != NULL, "%s", err.message);
    weir_schema_destroy(s);
}
