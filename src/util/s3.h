/*
 * util/s3.h - a small S3 client over libcurl (SigV4 signing from
 * util/sigv4.c): the requests checkpoint storage (checkpoint/storage_s3.c)
 * and the filesystem connector's s3:// paths make. One client serves one
 * bucket and a key prefix (s3://bucket/prefix); it may be used from several
 * threads (a pool of connections under a lock).
 *
 * Every request is retried with exponential backoff (50 ms doubling to
 * 2 s, with jitter) on a transport error, 5xx, 429 or 503 SlowDown, up to
 * max_retries times. A connection that moves less than one byte a second
 * for 30 s is given up (and retried). Functions return 0, WEIR_ENOTFOUND
 * (404), WEIR_EOF (416, a range past the end), WEIR_EINVAL (a refusal: 400,
 * 403) or WEIR_EIO, and log a failure with the server's code and message.
 * Compiled when libcurl (and OpenSSL) is found.
 */
#ifndef WEIR_UTIL_S3_H
#define WEIR_UTIL_S3_H

typedef struct weir__s3 weir__s3;

#if defined(WEIR_HAVE_CURL)

#include "weir/buf.h"
#include "weir/common.h"

/* Settings; NULL or 0 fields take the AWS_* environment variables or the
 * defaults (region us-east-1, 10 retries, 8 MiB parts, path style for an IP
 * address or localhost). */
typedef struct weir__s3_options {
    const char *endpoint, *region, *access_key, *secret_key;
    const char *path_style; /* "true" / "false" / NULL */
    int32_t max_retries;    /* -1: default */
    uint64_t part_size;     /* 0: default */
    void (*log)(void *ud, const char *line);
    void *log_ud;
} weir__s3_options;

/*
 * The settings a client made with o == NULL takes (the connectors' s3://
 * paths): the job's s3.* options, set once per option as they are parsed
 * (key without "s3.": "endpoint", "region", "access-key", "secret-key",
 * "path-style", "max-retries", "part-size"; value copied).
 */
void weir__s3_default(const char *key, const char *value);

/* A client for uri ("s3://bucket/prefix"); err names uri when it fails. */
int weir__s3_create(const char *uri, const weir__s3_options *o, weir__s3 **out,
                    weir_error *err);
void weir__s3_destroy(weir__s3 *s);

const char *weir__s3_bucket(const weir__s3 *s);
/* The prefix without leading or trailing '/' (may be ""). */
const char *weir__s3_prefix(const weir__s3 *s);
size_t weir__s3_part_size(const weir__s3 *s);
void weir__s3_log(weir__s3 *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The full key of name below the prefix ("" = the prefix itself), or NULL
 * (a ".." in name, or no memory). Caller frees. */
char *weir__s3_key(const weir__s3 *s, const char *name);

/* One PUT of len bytes from data (or from fd at offset 0 when fd >= 0). */
int weir__s3_put(weir__s3 *s, const char *key, const void *data, int fd,
                 uint64_t len);
/* Appends bytes [off, off + len) of key to out; *total gets the object's
 * size when the reply names it (else it is left alone). WEIR_EOF: off is at
 * or past the end. Several GETs when the server sends less. */
int weir__s3_get_range(weir__s3 *s, const char *key, uint64_t off,
                       uint64_t len, weir_buf *out, uint64_t *total);
/* The object's size (HEAD). */
int weir__s3_head(weir__s3 *s, const char *key, uint64_t *size);
int weir__s3_delete(weir__s3 *s, const char *key); /* absent: 0 */

/*
 * Keys below key_prefix (which ends in '/' or is ""), sorted: with
 * delimiter, the names right below it (folders without their '/'); without,
 * every key in full, and (sizes != NULL) each key's size. ListObjectsV2,
 * page after page.
 */
int weir__s3_list(weir__s3 *s, const char *key_prefix, bool delimiter,
                  char ***names, uint64_t **sizes, size_t *n);

/* Multipart uploads. *id is allocated. */
int weir__s3_upload_start(weir__s3 *s, const char *key, char **id);
/* Part number part (from 1) of len bytes from data (or fd at fd_off when
 * fd >= 0); etag gets the part's ETag. */
int weir__s3_upload_part(weir__s3 *s, const char *key, const char *id,
                         uint32_t part, const void *data, int fd,
                         uint64_t fd_off, uint64_t len, char etag[128]);
/* Completes with parts 1..n of etags. */
int weir__s3_upload_complete(weir__s3 *s, const char *key, const char *id,
                             char *const *etags, uint32_t n);
/* Aborts; best effort (an upload already gone is no error). */
void weir__s3_upload_abort(weir__s3 *s, const char *key, const char *id);
/*
 * The multipart uploads in progress below key_prefix (ListMultipartUploads,
 * page after page): keys[i] with ids[i]. A server that does not list
 * uploads gives WEIR_EUNSUPPORTED (not logged).
 */
int weir__s3_list_uploads(weir__s3 *s, const char *key_prefix, char ***keys,
                          char ***ids, size_t *n);

void weir__s3_free_names(char **names, size_t n);

#endif /* WEIR_HAVE_CURL */
#endif
