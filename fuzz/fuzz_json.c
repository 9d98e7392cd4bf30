/*
 * fuzz/fuzz_json.c - libFuzzer target for the JSON lines decoder.
 * The first byte picks options; the rest is a stream of JSON lines.
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
    weir_format_options opt;
    weir_format_options_init(&opt, WEIR_FORMAT_JSON);
    opt.json_fail_on_missing_field = data[0] & 1;
    opt.json_ignore_null_fields = (data[0] >> 1) & 1;
    opt.json_timestamp_iso8601 = (data[0] >> 2) & 1;
    fuzz_decode_stream(&opt, data[0] & 7, (const char *)data + 1, size - 1);
    return 0;
}
