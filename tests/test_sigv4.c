/*
 * tests/test_sigv4.c - AWS Signature Version 4 (src/util/sigv4.c) against
 * the signatures AWS publishes: the SigV4 test suite's "vanilla" requests
 * (service "service", 20150830T123600Z, key AKIDEXAMPLE) and the S3
 * developer guide's worked examples (examplebucket, 20130524T000000Z).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "util/sigv4.h"
#include "weir/buf.h"

#if defined(WEIR_HAVE_CURL)

#define EMPTY_SHA "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

static void suite_sign(const char *method, const char *query,
                       const char *want_sig)
{
    weir__sigv4_header hs[] = {{"Host", "example.amazonaws.com"},
                               {"X-Amz-Date", "20150830T123600Z"}};
    weir__sigv4_request r = {
        .method = method, .path = "/", .query = query, .headers = hs,
        .n_headers = 2, .payload_hash = EMPTY_SHA,
        .amz_date = "20150830T123600Z", .region = "us-east-1",
        .service = "service", .access_key = "AKIDEXAMPLE",
        .secret_key = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"};
    char auth[512], want[512];
    cr_assert_eq(weir__sigv4_authorization(&r, auth, sizeof auth, NULL, 0), 0);
    snprintf(want, sizeof want,
             "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/"
             "service/aws4_request, SignedHeaders=host;x-amz-date, "
             "Signature=%s",
             want_sig);
    cr_assert_str_eq(auth, want);
}

Test(sigv4, get_vanilla)
{
    suite_sign("GET", NULL,
               "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
}

Test(sigv4, post_vanilla)
{
    suite_sign("POST", NULL,
               "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b");
}

Test(sigv4, get_vanilla_query_order_key_case)
{
    /* parameters sorted by name in the canonical request */
    suite_sign("GET", "Param2=value2&Param1=value1",
               "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500");
}

Test(sigv4, get_vanilla_empty_query_key)
{
    suite_sign("GET", "Param1=value1",
               "a67d582fa61cc504c4bae71f336f98b97f1ea3c7a6bfe1b6e45aec72011b9aeb");
}

static void s3_sign(const char *method, const char *path, const char *query,
                    const weir__sigv4_header *hs, size_t n, const char *payload,
                    const char *want_signed, const char *want_sig,
                    const char *want_canonical)
{
    weir__sigv4_request r = {
        .method = method, .path = path, .query = query, .headers = hs,
        .n_headers = n, .payload_hash = payload,
        .amz_date = "20130524T000000Z", .region = "us-east-1",
        .service = "s3", .access_key = "AKIAIOSFODNN7EXAMPLE",
        .secret_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"};
    char auth[512], want[512], canon[2048];
    cr_assert_eq(weir__sigv4_authorization(&r, auth, sizeof auth, canon,
                                           sizeof canon), 0);
    if (want_canonical)
        cr_assert_str_eq(canon, want_canonical);
    snprintf(want, sizeof want,
             "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/"
             "us-east-1/s3/aws4_request, SignedHeaders=%s, Signature=%s",
             want_signed, want_sig);
    cr_assert_str_eq(auth, want);
}

Test(sigv4, s3_get_object_with_range)
{
    weir__sigv4_header hs[] = {{"Range", "bytes=0-9"},
                               {"x-amz-content-sha256", EMPTY_SHA},
                               {"x-amz-date", "20130524T000000Z"},
                               {"Host", "examplebucket.s3.amazonaws.com"}};
    s3_sign("GET", "/test.txt", NULL, hs, 4, EMPTY_SHA,
            "host;range;x-amz-content-sha256;x-amz-date",
            "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41",
            "GET\n/test.txt\n\nhost:examplebucket.s3.amazonaws.com\n"
            "range:bytes=0-9\nx-amz-content-sha256:" EMPTY_SHA "\n"
            "x-amz-date:20130524T000000Z\n\n"
            "host;range;x-amz-content-sha256;x-amz-date\n" EMPTY_SHA);
}

Test(sigv4, s3_put_object_encoded_key)
{
    weir_buf path;
    weir_buf_init(&path);
    cr_assert_eq(weir__sigv4_uri_encode(&path, "/test$file.text", 1), 0);
    cr_assert_eq(weir_buf_put_u8(&path, 0), 0);
    cr_assert_str_eq((char *)path.data, "/test%24file.text");
    const char *sha =
        "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072";
    weir__sigv4_header hs[] = {{"Host", "examplebucket.s3.amazonaws.com"},
                               {"Date", "Fri, 24 May 2013 00:00:00 GMT"},
                               {"x-amz-date", "20130524T000000Z"},
                               {"x-amz-storage-class", "REDUCED_REDUNDANCY"},
                               {"x-amz-content-sha256", sha}};
    s3_sign("PUT", (char *)path.data, NULL, hs, 5, sha,
            "date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class",
            "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd",
            NULL);
    weir_buf_fini(&path);
    /* the body the example uploads hashes to that payload hash */
    char hex[65];
    weir__sigv4_sha256_hex("Welcome to Amazon S3.", 21, hex);
    cr_assert_str_eq(hex, sha);
}

Test(sigv4, s3_get_bucket_lifecycle_bare_parameter)
{
    /* "?lifecycle" signs as "lifecycle=" (as "?uploads" does) */
    weir__sigv4_header hs[] = {{"Host", "examplebucket.s3.amazonaws.com"},
                               {"x-amz-date", "20130524T000000Z"},
                               {"x-amz-content-sha256", EMPTY_SHA}};
    s3_sign("GET", "/", "lifecycle", hs, 3, EMPTY_SHA,
            "host;x-amz-content-sha256;x-amz-date",
            "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543",
            NULL);
}

Test(sigv4, s3_list_objects)
{
    weir__sigv4_header hs[] = {{"Host", "examplebucket.s3.amazonaws.com"},
                               {"x-amz-date", "20130524T000000Z"},
                               {"x-amz-content-sha256", EMPTY_SHA}};
    s3_sign("GET", "/", "prefix=J&max-keys=2", hs, 3, EMPTY_SHA,
            "host;x-amz-content-sha256;x-amz-date",
            "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7",
            NULL);
}

Test(sigv4, header_values_trimmed_and_folded)
{
    weir__sigv4_header hs[] = {{"Host", "h"}, {"X-Amz-Meta-A", "  a   b  "}};
    weir__sigv4_request r = {
        .method = "GET", .path = "", .headers = hs, .n_headers = 2,
        .payload_hash = "UNSIGNED-PAYLOAD", .amz_date = "20150830T123600Z",
        .region = "r", .service = "s3", .access_key = "k", .secret_key = "s"};
    char auth[512], canon[512];
    cr_assert_eq(weir__sigv4_authorization(&r, auth, sizeof auth, canon,
                                           sizeof canon), 0);
    cr_assert_str_eq(canon, "GET\n/\n\nhost:h\nx-amz-meta-a:a b\n\n"
                            "host;x-amz-meta-a\nUNSIGNED-PAYLOAD");
    r.amz_date = "2015";
    cr_assert_eq(weir__sigv4_authorization(&r, auth, sizeof auth, NULL, 0),
                 WEIR_EINVAL);
}

#else
Test(sigv4, not_built) { cr_skip_test("built without libcurl/libcrypto"); }
#endif
