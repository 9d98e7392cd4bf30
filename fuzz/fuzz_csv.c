/*
 * fuzz/fuzz_csv.c - libFuzzer target for the CSV decoder. The first byte
 * picks the delimiter, the quote character (or none), the null literal
 * and comments; the rest is a
 * stream of CSV records.
 */
#include "fuzz_common.h"

#ifndef WEIR_FUZZ_ENTRY
#define WEIR_FUZZ_ENTRY LLVMFuzzerTestOneInput
#endif

int WEIR_FUZZ_ENTRY(const uint8_t *data, size_t size);

int WEIR_FUZZ_ENTRY(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    static const char delims[] = {',', ';', '\t', '|'};
    weir_format_options opt;
    weir_format_options_init(&opt, WEIR_FORMAT_CSV);
    opt.csv_field_delimiter = delims[data[0] & 3];
    if (data[0] & 4)
        opt.csv_quote_character = '\'';
    if (data[0] & 8)
        opt.csv_null_literal = "\\N";
    opt.csv_allow_comments = (data[0] >> 4) & 1;
    if (data[0] & 32)
        opt.csv_quote_character = 0;
    fuzz_decode_stream(&opt, data[0] & 63, (const char *)data + 1, size - 1);
    return 0;
}
