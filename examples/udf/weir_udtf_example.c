/*
 * examples/udf/weir_udtf_example.c - a shared library of SQL table
 * functions in C, for CREATE FUNCTION ... LANGUAGE C and LATERAL TABLE
 * (docs/functions.md):
 *
 *   CREATE FUNCTION split_words AS 'weir_example_split_words' LANGUAGE C
 *     USING JAR '/path/libweir_udtf_example.so';
 *   SELECT o.id, t.word FROM orders AS o, LATERAL TABLE(split_words(o.text)) AS t(word);
 *
 * Each exported symbol is a weir_udf_init_fn that describes a table
 * function with weir_udf_init_table(): argument types, result columns and
 * the callback, which emits zero or more rows per call.
 *
 *   split_words(s STRING) -> (word STRING)
 *       the words of s, split at spaces (runs of spaces count as one;
 *       leading and trailing spaces make no empty words); NULL: no rows
 *   split_words_pos(s STRING) -> (word STRING, pos INT, len INT)
 *       the same words with their position (from 1) and length in bytes
 *   repeat_n(s STRING, n INT) -> (i INT, s STRING)
 *       n rows i = 1..n carrying s (NULL s included); n <= 0 or NULL: none
 *   parse_ints(s STRING) -> (n BIGINT)
 *       the comma-separated integers of s; an empty item gives a NULL row;
 *       anything else that is no integer fails the job, naming it
 *
 * Build it as a shared library against weir's headers:
 *
 *   cc -shared -fPIC -I/usr/include weir_udtf_example.c -o libweir_udtf_example.so
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "weir/expr.h"

#define STR {WEIR_TYPE_STRING, 0, 0, true}
#define INT {WEIR_TYPE_INT, 0, 0, true}
#define BIGINT {WEIR_TYPE_BIGINT, 0, 0, true}

/* Calls fn(word, len, pos) for each space-separated word of s; stops at a non-zero return. */
static int each_word(const char *s, uint32_t n, weir_udtf_collector *out,
                     int (*fn)(weir_udtf_collector *, const char *, uint32_t, int32_t))
{
    int32_t pos = 0;
    for (uint32_t i = 0; i < n;) {
        while (i < n && s[i] == ' ')
            i++;
        uint32_t b = i;
        while (i < n && s[i] != ' ')
            i++;
        if (i > b) {
            int rc = fn(out, s + b, i - b, ++pos);
            if (rc)
                return rc;
        }
    }
    return 0;
}

static int emit_word(weir_udtf_collector *out, const char *w, uint32_t len, int32_t pos)
{
    (void)pos;
    weir_value row[1] = {{.v.s = {w, len}}};
    return weir_udtf_emit(out, row);
}

static int split_words(void *ud, const weir_value *args, uint32_t n_args, weir_udtf_collector *out,
                       weir_error *err)
{
    (void)ud, (void)n_args, (void)err;
    return each_word(args[0].v.s.ptr, args[0].v.s.len, out, emit_word);
}

static const weir_type str_arg[1] = {STR};
static const char *const word_names[1] = {"word"};
static const weir_type word_types[1] = {STR};
static const weir_udtf split_words_def = {
    .arg_types = str_arg, .n_args = 1, .col_names = word_names, .col_types = word_types, .n_cols = 1,
    .row_fn = split_words, .null_on_null = true};

int weir_example_split_words(uint32_t abi, weir_udf *out, weir_error *err);
int weir_example_split_words(uint32_t abi, weir_udf *out, weir_error *err)
{
    if (abi != WEIR_UDF_ABI_VERSION)
        return weir_error_set(err, WEIR_EINVAL, "built for weir's UDF ABI %d, not %u", WEIR_UDF_ABI_VERSION, abi);
    return weir_udf_init_table(out, &split_words_def);
}

static int emit_word_pos(weir_udtf_collector *out, const char *w, uint32_t len, int32_t pos)
{
    weir_value row[3] = {{.v.s = {w, len}}, {.v.i32 = pos}, {.v.i32 = (int32_t)len}};
    return weir_udtf_emit(out, row);
}

static int split_words_pos(void *ud, const weir_value *args, uint32_t n_args, weir_udtf_collector *out,
                           weir_error *err)
{
    (void)ud, (void)n_args, (void)err;
    return each_word(args[0].v.s.ptr, args[0].v.s.len, out, emit_word_pos);
}

static const char *const word_pos_names[3] = {"word", "pos", "len"};
static const weir_type word_pos_types[3] = {STR, INT, INT};
static const weir_udtf split_words_pos_def = {
    .arg_types = str_arg, .n_args = 1, .col_names = word_pos_names, .col_types = word_pos_types, .n_cols = 3,
    .row_fn = split_words_pos, .null_on_null = true};

int weir_example_split_words_pos(uint32_t abi, weir_udf *out, weir_error *err);
int weir_example_split_words_pos(uint32_t abi, weir_udf *out, weir_error *err)
{
    if (abi != WEIR_UDF_ABI_VERSION)
        return weir_error_set(err, WEIR_EINVAL, "built for weir's UDF ABI %d, not %u", WEIR_UDF_ABI_VERSION, abi);
    return weir_udf_init_table(out, &split_words_pos_def);
}

/* repeat_n is called for NULL arguments too (null_on_null false): a NULL s is repeated, a NULL n means none. */
static int repeat_n(void *ud, const weir_value *args, uint32_t n_args, weir_udtf_collector *out, weir_error *err)
{
    (void)ud, (void)n_args, (void)err;
    if (args[1].is_null)
        return 0;
    for (int32_t i = 1; i <= args[1].v.i32; i++) {
        weir_value row[2] = {{.v.i32 = i}, args[0]};
        int rc = weir_udtf_emit(out, row);
        if (rc)
            return rc;
    }
    return 0;
}

static const weir_type repeat_args[2] = {STR, INT};
static const char *const repeat_names[2] = {"i", "s"};
static const weir_type repeat_types[2] = {INT, STR};
static const weir_udtf repeat_n_def = {
    .arg_types = repeat_args, .n_args = 2, .col_names = repeat_names, .col_types = repeat_types, .n_cols = 2,
    .row_fn = repeat_n, .null_on_null = false};

int weir_example_repeat_n(uint32_t abi, weir_udf *out, weir_error *err);
int weir_example_repeat_n(uint32_t abi, weir_udf *out, weir_error *err)
{
    if (abi != WEIR_UDF_ABI_VERSION)
        return weir_error_set(err, WEIR_EINVAL, "built for weir's UDF ABI %d, not %u", WEIR_UDF_ABI_VERSION, abi);
    return weir_udf_init_table(out, &repeat_n_def);
}

static int parse_ints(void *ud, const weir_value *args, uint32_t n_args, weir_udtf_collector *out, weir_error *err)
{
    (void)ud, (void)n_args;
    const char *s = args[0].v.s.ptr;
    uint32_t n = args[0].v.s.len;
    if (n == 0)
        return 0;
    for (uint32_t i = 0; i <= n;) {
        uint32_t b = i;
        while (i < n && s[i] != ',')
            i++;
        char item[32];
        uint32_t len = i - b;
        weir_value row[1] = {{.is_null = len == 0}};
        if (len) {
            char *end = NULL;
            if (len < sizeof item) {
                memcpy(item, s + b, len);
                item[len] = 0;
                errno = 0;
                row[0].v.i64 = strtoll(item, &end, 10);
            }
            if (!end || *end || errno || !(item[0] == '-' || (item[0] >= '0' && item[0] <= '9')))
                return weir_error_set(err, WEIR_EINVAL, "'%.*s' is not an integer", (int)(len < 64 ? len : 64),
                                      s + b);
        }
        int rc = weir_udtf_emit(out, row);
        if (rc)
            return rc;
        i++; /* past the comma (or the end) */
    }
    return 0;
}

static const char *const ints_names[1] = {"n"};
static const weir_type ints_types[1] = {BIGINT};
static const weir_udtf parse_ints_def = {
    .arg_types = str_arg, .n_args = 1, .col_names = ints_names, .col_types = ints_types, .n_cols = 1,
    .row_fn = parse_ints, .null_on_null = true};

int weir_example_parse_ints(uint32_t abi, weir_udf *out, weir_error *err);
int weir_example_parse_ints(uint32_t abi, weir_udf *out, weir_error *err)
{
    if (abi != WEIR_UDF_ABI_VERSION)
        return weir_error_set(err, WEIR_EINVAL, "built for weir's UDF ABI %d, not %u", WEIR_UDF_ABI_VERSION, abi);
    return weir_udf_init_table(out, &parse_ints_def);
}
