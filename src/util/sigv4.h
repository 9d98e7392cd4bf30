/*
 * util/sigv4.h - AWS Signature Version 4 for HTTP requests (S3 and any
 * other service): the canonical request, the string to sign, the signing
 * key and the Authorization header value. Only hashing and HMAC come from
 * libcrypto; compiled when libcurl (and so OpenSSL) is found.
 */
#ifndef WEIR_UTIL_SIGV4_H
#define WEIR_UTIL_SIGV4_H

#include <stddef.h>

typedef struct weir__sigv4_header {
    const char *name;  /* any case: lowered for signing */
    const char *value; /* leading/trailing blanks trimmed, inner runs folded */
} weir__sigv4_header;

typedef struct weir__sigv4_request {
    const char *method;
    const char *path;  /* URI-encoded once, as sent ("/bucket/a%20b"); "" = "/" */
    const char *query; /* as sent, without '?', encoded; any order; NULL = none */
    const weir__sigv4_header *headers; /* every header to sign, host included */
    size_t n_headers;
    const char *payload_hash; /* hex SHA-256, or "UNSIGNED-PAYLOAD" */
    const char *amz_date;     /* "20150830T123600Z" */
    const char *region;
    const char *service; /* "s3" */
    const char *access_key;
    const char *secret_key;
} weir__sigv4_request;

/*
 * Writes the Authorization header's value ("AWS4-HMAC-SHA256 Credential=...,
 * SignedHeaders=..., Signature=...") into out. When canonical is not NULL,
 * the canonical request goes there too (for tests and error messages).
 * Returns 0, WEIR_EINVAL (a field missing, a buffer too small) or
 * WEIR_ENOMEM.
 */
int weir__sigv4_authorization(const weir__sigv4_request *r, char *out,
                              size_t cap, char *canonical, size_t canon_cap);

/* Lower-case hex SHA-256 of data (65 bytes with the NUL). */
void weir__sigv4_sha256_hex(const void *data, size_t len, char out[65]);

/*
 * Appends s to out, percent-encoded as SigV4 wants (every byte but
 * A-Z a-z 0-9 - _ . ~ is %XX, upper-case; '/' kept when keep_slash).
 * Returns 0 or WEIR_ENOMEM.
 */
struct weir_buf;
int weir__sigv4_uri_encode(struct weir_buf *out, const char *s,
                           int keep_slash);

#endif
