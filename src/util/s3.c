/*
 * util/s3.c - the S3 client of util/s3.h: one request (signed, retried),
 * XML replies read by tag, multipart uploads, listings.
 */
#if defined(WEIR_HAVE_CURL)

#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "util/s3.h"
#include "util/sigv4.h"

#define S3_DEFAULT_PART (8u << 20)
#define S3_DEFAULT_RETRIES 10
/* Bytes per ranged GET: each is retried on its own; larger than the part
 * size, as a request's fixed cost dominates a local server's time. */
#define S3_GET_CHUNK (64u << 20)
#define S3_POOL 8

struct weir__s3 {
    char *bucket;
    char *prefix;   /* without leading or trailing '/'; may be "" */
    char *scheme;   /* "http" or "https" */
    char *host;     /* endpoint host[:port] */
    char *base_path; /* a path the endpoint URL carries ("" mostly) */
    char *region, *access_key, *secret_key, *token;
    bool path_style;
    int max_retries;
    size_t part_size;
    void (*log)(void *ud, const char *line);
    void *log_ud;
    pthread_mutex_t mu; /* pool */
    CURL *pool[S3_POOL];
    int n_pool;
    unsigned jitter; /* under mu */
};

void weir__s3_log(weir__s3 *s, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (s->log)
        s->log(s->log_ud, line);
    else
        fprintf(stderr, "weir: %s\n", line);
}

/* ---- one request ---- */

typedef struct s3_call {
    const char *method;
    const char *key;   /* full object key, unencoded; NULL: the bucket */
    const char *query; /* encoded, without '?'; NULL: none */
    const uint8_t *body; /* upload from memory ... */
    size_t body_len;
    int fd;            /* ... or from fd at fd_off (fd >= 0) */
    uint64_t fd_off;
    const char *range; /* "bytes=A-B" or NULL */
    const char *content_type;
    bool quiet;        /* a failure is not logged */
    weir_buf *out;     /* 2xx response body, appended (NULL: dropped) */
    /* results */
    long status;
    char etag[128];
    uint64_t total; /* the object size a ranged reply names (Content-Range) */
    weir_buf err;   /* a failed reply's body, capped */
    size_t sent;
} s3_call;

static size_t on_read(char *dst, size_t size, size_t n, void *ud)
{
    s3_call *c = ud;
    size_t want = size * n, left = c->body_len - c->sent;
    if (want > left)
        want = left;
    if (c->fd >= 0) {
        ssize_t r = pread(c->fd, dst, want, (off_t)(c->fd_off + c->sent));
        if (r < 0)
            return CURL_READFUNC_ABORT;
        want = (size_t)r;
    } else {
        memcpy(dst, c->body + c->sent, want);
    }
    c->sent += want;
    return want;
}

static int seek_body(void *ud, curl_off_t off, int origin)
{
    s3_call *c = ud;
    if (origin != SEEK_SET || off < 0 || (size_t)off > c->body_len)
        return CURL_SEEKFUNC_FAIL;
    c->sent = (size_t)off;
    return CURL_SEEKFUNC_OK;
}

typedef struct write_ctx {
    s3_call *c;
    CURL *h;
} write_ctx;

static size_t on_write(char *src, size_t size, size_t n, void *ud)
{
    write_ctx *w = ud;
    long st = 0;
    curl_easy_getinfo(w->h, CURLINFO_RESPONSE_CODE, &st);
    size_t len = size * n;
    if (st >= 200 && st < 300) {
        if (w->c->out && weir_buf_put(w->c->out, src, len))
            return 0;
    } else if (w->c->err.len < 4096) {
        weir_buf_put(&w->c->err, src, len);
    }
    return len;
}

static size_t on_header(char *line, size_t size, size_t n, void *ud)
{
    s3_call *c = ud;
    size_t len = size * n;
    if (len > 5 && !strncasecmp(line, "ETag:", 5)) {
        const char *v = line + 5;
        while (*v == ' ')
            v++;
        size_t l = len - (size_t)(v - line);
        while (l && (v[l - 1] == '\r' || v[l - 1] == '\n' || v[l - 1] == ' '))
            l--;
        if (l < sizeof c->etag) {
            memcpy(c->etag, v, l);
            c->etag[l] = '\0';
        }
    } else if (len > 15 && !strcmp(c->method, "HEAD") &&
               !strncasecmp(line, "Content-Length:", 15)) {
        c->total = strtoull(line + 15, NULL, 10);
    } else if (len > 14 && !strncasecmp(line, "Content-Range:", 14)) {
        const char *slash = memchr(line, '/', len);
        if (slash)
            c->total = strtoull(slash + 1, NULL, 10);
    }
    return len;
}

static CURL *take_handle(weir__s3 *s)
{
    pthread_mutex_lock(&s->mu);
    CURL *h = s->n_pool ? s->pool[--s->n_pool] : NULL;
    pthread_mutex_unlock(&s->mu);
    return h ? h : curl_easy_init();
}

static void give_handle(weir__s3 *s, CURL *h)
{
    pthread_mutex_lock(&s->mu);
    if (s->n_pool < S3_POOL) {
        s->pool[s->n_pool++] = h;
        h = NULL;
    }
    pthread_mutex_unlock(&s->mu);
    if (h)
        curl_easy_cleanup(h);
}

/* Path ("/bucket/key" or "/key", encoded) of c. */
static int build_path(weir__s3 *s, const s3_call *c, weir_buf *path)
{
    int rc = weir_buf_put(path, s->base_path, strlen(s->base_path));
    if (!rc && s->path_style)
        rc = weir_buf_printf(path, "/%s", s->bucket);
    if (!rc && c->key) {
        rc = weir_buf_put_u8(path, '/');
        if (!rc)
            rc = weir__sigv4_uri_encode(path, c->key, 1);
    } else if (!rc && !s->path_style && !*s->base_path) {
        rc = weir_buf_put_u8(path, '/');
    }
    if (!rc)
        rc = weir_buf_put_u8(path, 0);
    return rc;
}

/* One attempt: 0 with c->status set, or a curl error code (> 0). */
static int attempt(weir__s3 *s, CURL *h, s3_call *c)
{
    weir_buf path, url;
    weir_buf_init(&path);
    weir_buf_init(&url);
    char host[512], date[17], auth[1024], hdr[6][1200];
    if (s->path_style)
        snprintf(host, sizeof host, "%s", s->host);
    else
        snprintf(host, sizeof host, "%s.%s", s->bucket, s->host);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y%m%dT%H%M%SZ", &tm);
    int rc = build_path(s, c, &path);
    if (!rc)
        rc = weir_buf_printf(&url, "%s://%s%s%s%s", s->scheme, host,
                             (char *)path.data, c->query ? "?" : "",
                             c->query ? c->query : "");
    if (!rc)
        rc = weir_buf_put_u8(&url, 0);
    weir__sigv4_header hs[5] = {{"host", host},
                                {"x-amz-content-sha256", "UNSIGNED-PAYLOAD"},
                                {"x-amz-date", date}};
    size_t nh = 3;
    if (c->range)
        hs[nh++] = (weir__sigv4_header){"range", c->range};
    if (s->token)
        hs[nh++] = (weir__sigv4_header){"x-amz-security-token", s->token};
    weir__sigv4_request sr = {.method = c->method,
                              .path = rc ? "" : (char *)path.data,
                              .query = c->query,
                              .headers = hs,
                              .n_headers = nh,
                              .payload_hash = "UNSIGNED-PAYLOAD",
                              .amz_date = date,
                              .region = s->region,
                              .service = "s3",
                              .access_key = s->access_key,
                              .secret_key = s->secret_key};
    if (!rc)
        rc = weir__sigv4_authorization(&sr, auth, sizeof auth, NULL, 0);
    if (rc) {
        weir_buf_fini(&path);
        weir_buf_fini(&url);
        return CURLE_OUT_OF_MEMORY;
    }
    struct curl_slist *list = NULL;
    snprintf(hdr[0], sizeof hdr[0], "Host: %s", host);
    snprintf(hdr[1], sizeof hdr[1], "x-amz-content-sha256: UNSIGNED-PAYLOAD");
    snprintf(hdr[2], sizeof hdr[2], "x-amz-date: %s", date);
    snprintf(hdr[3], sizeof hdr[3], "Authorization: %s", auth);
    snprintf(hdr[4], sizeof hdr[4], "Content-Type: %s",
             c->content_type ? c->content_type : "application/octet-stream");
    for (int i = 0; i < 5; i++)
        list = curl_slist_append(list, hdr[i]);
    list = curl_slist_append(list, "Expect:");
    char extra[1200];
    if (c->range) {
        snprintf(extra, sizeof extra, "Range: %s", c->range);
        list = curl_slist_append(list, extra);
    }
    if (s->token) {
        snprintf(hdr[5], sizeof hdr[5], "x-amz-security-token: %s", s->token);
        list = curl_slist_append(list, hdr[5]);
    }
    curl_easy_reset(h);
    write_ctx w = {c, h};
    c->sent = 0;
    c->etag[0] = '\0';
    c->status = 0;
    weir_buf_clear(&c->err);
    curl_easy_setopt(h, CURLOPT_URL, (char *)url.data);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, list);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, 30L);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &w);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, c);
    bool has_body = c->body || c->fd >= 0;
    if (!strcmp(c->method, "PUT")) {
        curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
        curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE,
                         (curl_off_t)(has_body ? c->body_len : 0));
    } else if (!strcmp(c->method, "POST")) {
        curl_easy_setopt(h, CURLOPT_POST, 1L);
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE,
                         (curl_off_t)(has_body ? c->body_len : 0));
    } else if (!strcmp(c->method, "HEAD")) {
        curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
    } else if (strcmp(c->method, "GET")) {
        curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, c->method);
    }
    if (has_body) {
        curl_easy_setopt(h, CURLOPT_READFUNCTION, on_read);
        curl_easy_setopt(h, CURLOPT_READDATA, c);
        curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, seek_body);
        curl_easy_setopt(h, CURLOPT_SEEKDATA, c);
    }
    CURLcode cr = curl_easy_perform(h);
    if (cr == CURLE_OK)
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &c->status);
    curl_slist_free_all(list);
    weir_buf_fini(&path);
    weir_buf_fini(&url);
    return (int)cr;
}

/* The text of <tag>...</tag> in xml from *pos on (entities decoded), or NULL;
 * *pos moves past it. */
static char *xml_take(const char *xml, size_t len, size_t *pos,
                      const char *tag)
{
    char open[64], close[64];
    snprintf(open, sizeof open, "<%s>", tag);
    snprintf(close, sizeof close, "</%s>", tag);
    size_t ol = strlen(open), cl = strlen(close);
    for (size_t i = *pos; i + ol <= len; i++) {
        if (memcmp(xml + i, open, ol))
            continue;
        size_t start = i + ol;
        for (size_t j = start; j + cl <= len; j++) {
            if (memcmp(xml + j, close, cl))
                continue;
            char *v = weir_malloc(j - start + 1);
            if (!v)
                return NULL;
            size_t k = 0;
            for (size_t p = start; p < j; p++) {
                static const struct {
                    const char *ent;
                    char c;
                } ents[] = {{"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'},
                            {"&quot;", '"'}, {"&apos;", '\''}};
                bool done = false;
                for (size_t e = 0; e < 5 && xml[p] == '&'; e++) {
                    size_t el = strlen(ents[e].ent);
                    if (p + el <= j && !memcmp(xml + p, ents[e].ent, el)) {
                        v[k++] = ents[e].c;
                        p += el - 1;
                        done = true;
                        break;
                    }
                }
                if (!done)
                    v[k++] = xml[p];
            }
            v[k] = '\0';
            *pos = j + cl;
            return v;
        }
        return NULL;
    }
    return NULL;
}

static bool retryable(int cr, long status, const weir_buf *err)
{
    if (cr)
        return cr != CURLE_OUT_OF_MEMORY && cr != CURLE_ABORTED_BY_CALLBACK &&
               cr != CURLE_URL_MALFORMAT && cr != CURLE_UNSUPPORTED_PROTOCOL;
    if ((status >= 500 && status != 501) || status == 429)
        return true;
    /* S3's own "retry me" replies that come as 400, by their <Code> (a
     * message or key that merely names them is not one) */
    if (status != 400 || !err->len)
        return false;
    size_t pos = 0;
    char *code = xml_take((const char *)err->data, err->len, &pos, "Code");
    bool again = code && (!strcmp(code, "RequestTimeout") ||
                          !strcmp(code, "Throttling"));
    weir_free(code);
    return again;
}

/*
 * Performs c with retries. 0 on a 2xx (or 206); WEIR_ENOTFOUND on 404;
 * else WEIR_EIO (or WEIR_EINVAL for a refusal: 400, 403, but not S3's
 * transient 400s, RequestTimeout and Throttling), logged with the
 * server's code and message. Range replies 416 give WEIR_EOF.
 */
static int perform(weir__s3 *s, s3_call *c)
{
    CURL *h = take_handle(s);
    if (!h)
        return WEIR_ENOMEM;
    size_t out_start = c->out ? c->out->len : 0;
    int cr = 0;
    for (int try = 0;; try++) {
        if (c->out)
            c->out->len = out_start;
        cr = attempt(s, h, c);
        if (!cr && c->status >= 200 && c->status < 300)
            break;
        if (try >= s->max_retries || !retryable(cr, c->status, &c->err))
            break;
        /* A server that mis-sizes a range (s3rver on an empty object):
         * once more, then the caller looks at the object's size. */
        if (cr == CURLE_PARTIAL_FILE && c->range && try >= 1)
            break;
        pthread_mutex_lock(&s->mu);
        unsigned r = (unsigned)rand_r(&s->jitter);
        pthread_mutex_unlock(&s->mu);
        long ms = 50L << (try < 6 ? try : 6);
        if (ms > 2000)
            ms = 2000;
        ms = ms / 2 + (long)(r % (unsigned)(ms / 2 + 1));
        struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
        while (nanosleep(&ts, &ts) && errno == EINTR) {
        }
    }
    give_handle(s, h);
    if (!cr && c->status >= 200 && c->status < 300)
        return 0;
    if (!cr && c->status == 404)
        return WEIR_ENOTFOUND;
    if (!cr && c->status == 416)
        return WEIR_EOF;
    size_t pos = 0;
    char *code = xml_take((char *)c->err.data, c->err.len, &pos, "Code");
    pos = 0;
    char *msg = xml_take((char *)c->err.data, c->err.len, &pos, "Message");
    if (c->quiet)
        ;
    else if (cr)
        weir__s3_log(s, "s3://%s/%s: %s failed: %s", s->bucket,
               c->key ? c->key : "", c->method,
               curl_easy_strerror((CURLcode)cr));
    else
        weir__s3_log(s, "s3://%s/%s: %s failed: HTTP %ld%s%s%s%s", s->bucket,
               c->key ? c->key : "", c->method, c->status, code ? " " : "",
               code ? code : "", msg ? ": " : "", msg ? msg : "");
    weir_free(code);
    weir_free(msg);
    /* A refusal, unless it is one of the transient 400s retried above:
     * those stay I/O errors, which a writer rides out. */
    if (!cr && (c->status == 400 || c->status == 403) && !retryable(0, c->status, &c->err))
        return WEIR_EINVAL;
    return WEIR_EIO;
}

static void call_init(s3_call *c, const char *method, const char *key)
{
    memset(c, 0, sizeof *c);
    c->method = method;
    c->key = key;
    c->fd = -1;
    weir_buf_init(&c->err);
}

/* ---- names ---- */

/* The full key of name ("" = the prefix itself). Caller frees. */
char *weir__s3_key(const weir__s3 *s, const char *name)
{
    if (strstr(name, ".."))
        return NULL;
    weir_buf b;
    weir_buf_init(&b);
    int rc = weir_buf_printf(&b, "%s%s%s", s->prefix,
                             *s->prefix && *name ? "/" : "", name);
    if (!rc)
        rc = weir_buf_put_u8(&b, 0);
    if (rc) {
        weir_buf_fini(&b);
        return NULL;
    }
    return (char *)b.data;
}


int weir__s3_upload_complete(weir__s3 *s, const char *key, const char *id,
                             char *const *etags, uint32_t n)
{
    weir_buf q, body;
    weir_buf_init(&q);
    weir_buf_init(&body);
    int rc = weir_buf_printf(&q, "uploadId=");
    if (!rc)
        rc = weir__sigv4_uri_encode(&q, id, 0);
    if (!rc)
        rc = weir_buf_put_u8(&q, 0);
    if (!rc)
        rc = weir_buf_printf(&body, "<CompleteMultipartUpload>");
    for (uint32_t i = 0; i < n && !rc; i++)
        rc = weir_buf_printf(&body,
                             "<Part><PartNumber>%u</PartNumber><ETag>%s</ETag>"
                             "</Part>",
                             i + 1, etags[i]);
    if (!rc)
        rc = weir_buf_printf(&body, "</CompleteMultipartUpload>");
    if (!rc) {
        s3_call c;
        call_init(&c, "POST", key);
        c.query = (char *)q.data;
        c.body = body.data;
        c.body_len = body.len;
        c.content_type = "application/xml";
        weir_buf reply;
        weir_buf_init(&reply);
        c.out = &reply;
        rc = perform(s, &c);
        /* S3 may answer 200 with an <Error> body when completing fails. */
        if (!rc && reply.len &&
            memmem(reply.data, reply.len, "<Error>", 7)) {
            weir__s3_log(s, "s3://%s/%s: completing the upload failed: %.*s",
                   s->bucket, key, (int)(reply.len < 300 ? reply.len : 300),
                   (char *)reply.data);
            rc = WEIR_EIO;
        }
        weir_buf_fini(&reply);
        weir_buf_fini(&c.err);
    }
    weir_buf_fini(&q);
    weir_buf_fini(&body);
    return rc;
}

void weir__s3_upload_abort(weir__s3 *s, const char *key, const char *id)
{
    weir_buf q;
    weir_buf_init(&q);
    if (!weir_buf_printf(&q, "uploadId=") &&
        !weir__sigv4_uri_encode(&q, id, 0) && !weir_buf_put_u8(&q, 0)) {
        s3_call c;
        call_init(&c, "DELETE", key);
        c.query = (char *)q.data;
        perform(s, &c);
        weir_buf_fini(&c.err);
    }
    weir_buf_fini(&q);
}

/*
 * Stores len bytes, from data or (fd >= 0) from fd at offset 0: one PUT, or
 * a multipart upload of part_size parts.
 */

static int add_name(char ***names, size_t *n, size_t *cap, const char *v,
                    size_t vl)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        char **nn = weir_realloc(*names, nc * sizeof *nn);
        if (!nn)
            return WEIR_ENOMEM;
        *names = nn;
        *cap = nc;
    }
    char *x = weir_malloc(vl + 1);
    if (!x)
        return WEIR_ENOMEM;
    memcpy(x, v, vl);
    x[vl] = '\0';
    (*names)[(*n)++] = x;
    return 0;
}

/* The <Size> of the <Contents> whose <Key> ended at pos, as the n-th
 * size. */
static int add_size(const char *x, size_t len, size_t pos, uint64_t **sizes,
                    size_t n, size_t *cap)
{
    if (n > *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        while (nc < n)
            nc *= 2;
        uint64_t *v = weir_realloc(*sizes, nc * sizeof *v);
        if (!v)
            return WEIR_ENOMEM;
        *sizes = v;
        *cap = nc;
    }
    const char *end = memmem(x + pos, len - pos, "</Contents>", 11);
    size_t p = pos;
    char *v = xml_take(x, end ? (size_t)(end - x) : len, &p, "Size");
    (*sizes)[n - 1] = v ? strtoull(v, NULL, 10) : 0;
    weir_free(v);
    return 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Keys below key_prefix (which ends in '/' or is ""): with delimiter, the
 * names right below it (folders without their '/'); without, every key in
 * full.
 */
int weir__s3_list(weir__s3 *s, const char *key_prefix, bool delimiter,
                  char ***names, uint64_t **sizes, size_t *n)
{
    size_t cap = 0, pl = strlen(key_prefix), scap = 0;
    *names = NULL;
    *n = 0;
    if (sizes)
        *sizes = NULL;
    char *token = NULL;
    int rc = 0;
    weir_buf q, reply;
    weir_buf_init(&q);
    weir_buf_init(&reply);
    do {
        weir_buf_clear(&q);
        weir_buf_clear(&reply);
        rc = weir_buf_printf(&q, "list-type=2&prefix=");
        if (!rc)
            rc = weir__sigv4_uri_encode(&q, key_prefix, 0);
        if (!rc && delimiter)
            rc = weir_buf_printf(&q, "&delimiter=%%2F");
        if (!rc && token) {
            rc = weir_buf_printf(&q, "&continuation-token=");
            if (!rc)
                rc = weir__sigv4_uri_encode(&q, token, 0);
        }
        if (!rc)
            rc = weir_buf_put_u8(&q, 0);
        if (rc)
            break;
        s3_call c;
        call_init(&c, "GET", NULL);
        c.query = (char *)q.data;
        c.out = &reply;
        rc = perform(s, &c);
        weir_buf_fini(&c.err);
        if (rc)
            break;
        const char *x = (const char *)reply.data;
        size_t len = reply.len, pos = 0;
        char *v;
        /* <Contents><Key>..</Key>..</Contents>, <CommonPrefixes><Prefix>.. */
        while (!rc && (v = xml_take(x, len, &pos, "Key"))) {
            if (!strncmp(v, key_prefix, pl) && v[pl]) {
                rc = delimiter ? add_name(names, n, &cap, v + pl,
                                          strlen(v + pl))
                               : add_name(names, n, &cap, v, strlen(v));
                if (!rc && sizes && !delimiter)
                    rc = add_size(x, len, pos, sizes, *n, &scap);
            }
            weir_free(v);
        }
        const char *cp = len ? memmem(x, len, "<CommonPrefixes>", 16) : NULL;
        pos = cp ? (size_t)(cp - x) : len;
        while (!rc && (v = xml_take(x, len, &pos, "Prefix"))) {
            size_t vl = strlen(v);
            if (!strncmp(v, key_prefix, pl) && vl > pl + 1 &&
                v[vl - 1] == '/')
                rc = add_name(names, n, &cap, v + pl, vl - pl - 1);
            weir_free(v);
        }
        weir_free(token);
        token = NULL;
        pos = 0;
        char *trunc = xml_take(x, len, &pos, "IsTruncated");
        if (trunc && !strcmp(trunc, "true")) {
            pos = 0;
            token = xml_take(x, len, &pos, "NextContinuationToken");
        }
        weir_free(trunc);
    } while (!rc && token);
    weir_free(token);
    weir_buf_fini(&q);
    weir_buf_fini(&reply);
    if (rc) {
        weir__s3_free_names(*names, *n);
        *names = NULL;
        *n = 0;
        if (sizes) {
            weir_free(*sizes);
            *sizes = NULL;
        }
        return rc;
    }
    if (sizes && !delimiter) {
        /* full keys come sorted from S3 (by UTF-8 bytes, as strcmp) */
        return 0;
    }
    if (*n)
        qsort(*names, *n, sizeof **names, cmp_names);
    /* a folder may also be a key of its own: once */
    size_t k = 0;
    for (size_t i = 0; i < *n; i++) {
        if (k && !strcmp((*names)[k - 1], (*names)[i])) {
            weir_free((*names)[i]);
            continue;
        }
        (*names)[k++] = (*names)[i];
    }
    *n = k;
    return 0;
}


int weir__s3_delete(weir__s3 *s, const char *key)
{
    s3_call c;
    call_init(&c, "DELETE", key);
    int rc = perform(s, &c);
    weir_buf_fini(&c.err);
    return rc == WEIR_ENOTFOUND ? 0 : rc;
}


/* ---- creation ---- */

static const char *first(const char *a, const char *env1, const char *env2)
{
    if (a && *a)
        return a;
    const char *e = env1 ? getenv(env1) : NULL;
    if (e && *e)
        return e;
    e = env2 ? getenv(env2) : NULL;
    return e && *e ? e : NULL;
}

static bool host_is_ip(const char *host)
{
    if (!strncmp(host, "localhost", 9) || host[0] == '[')
        return true;
    for (const char *p = host; *p && *p != ':'; p++)
        if (!isdigit((unsigned char)*p) && *p != '.')
            return false;
    return true;
}

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static void curl_global(void) { curl_global_init(CURL_GLOBAL_DEFAULT); }

static pthread_mutex_t defaults_mu = PTHREAD_MUTEX_INITIALIZER;
static char *def_str[5]; /* endpoint, region, access-key, secret-key, path-style */
static int32_t def_retries = -1;
static uint64_t def_part;

void weir__s3_default(const char *key, const char *value)
{
    static const char *const names[5] = {"endpoint", "region", "access-key",
                                         "secret-key", "path-style"};
    pthread_mutex_lock(&defaults_mu);
    for (int i = 0; i < 5; i++) {
        if (!strcmp(key, names[i])) {
            weir_free(def_str[i]);
            def_str[i] = value ? weir_strdup(value) : NULL;
        }
    }
    if (!strcmp(key, "max-retries"))
        def_retries = value ? (int32_t)atoi(value) : -1;
    if (!strcmp(key, "part-size"))
        def_part = value ? strtoull(value, NULL, 10) : 0;
    pthread_mutex_unlock(&defaults_mu);
}

static int create(const char *uri, const weir__s3_options *o, weir__s3 **out,
                  weir_error *err);

int weir__s3_create(const char *uri, const weir__s3_options *o, weir__s3 **out,
                    weir_error *err)
{
    if (o)
        return create(uri, o, out, err);
    pthread_mutex_lock(&defaults_mu);
    weir__s3_options d = {.endpoint = def_str[0],
                          .region = def_str[1],
                          .access_key = def_str[2],
                          .secret_key = def_str[3],
                          .path_style = def_str[4],
                          .max_retries = def_retries,
                          .part_size = def_part};
    int rc = create(uri, &d, out, err); /* copies what it keeps */
    pthread_mutex_unlock(&defaults_mu);
    return rc;
}

static int create(const char *uri, const weir__s3_options *o, weir__s3 **out,
                    weir_error *err)
{
    if (strncmp(uri, "s3://", 5))
        return weir_error_set(err, WEIR_EINVAL, "%s: not an s3:// path", uri);
    const char *b = uri + 5, *slash = strchr(b, '/');
    size_t bl = slash ? (size_t)(slash - b) : strlen(b);
    if (!bl)
        return weir_error_set(err, WEIR_EINVAL,
                              "%s: no bucket (expected s3://bucket/prefix)",
                              uri);
    const char *ak = first(o ? o->access_key : NULL,
                           "AWS_ACCESS_KEY_ID", NULL);
    const char *sk = first(o ? o->secret_key : NULL,
                           "AWS_SECRET_ACCESS_KEY", NULL);
    if (!ak || !sk)
        return weir_error_set(
            err, WEIR_EINVAL,
            "%s: no credentials for object storage: set s3.access-key and "
            "s3.secret-key, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY",
            uri);
    /* a session token goes with keys from the environment only */
    const char *token = o && o->access_key && *o->access_key
                            ? NULL
                            : first(NULL, "AWS_SESSION_TOKEN", NULL);
    const char *region = first(o ? o->region : NULL, "AWS_REGION",
                               "AWS_DEFAULT_REGION");
    if (!region)
        region = "us-east-1";
    const char *endpoint = first(o ? o->endpoint : NULL,
                                 "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL");
    char def[256];
    if (!endpoint) {
        snprintf(def, sizeof def, "https://s3.%s.amazonaws.com", region);
        endpoint = def;
    }
    const char *scheme = "https", *h = endpoint;
    if (!strncmp(endpoint, "http://", 7)) {
        scheme = "http";
        h += 7;
    } else if (!strncmp(endpoint, "https://", 8)) {
        h += 8;
    } else if (strstr(endpoint, "://")) {
        return weir_error_set(err, WEIR_EINVAL,
                              "s3.endpoint: expected http:// or https://, "
                              "got '%s'",
                              endpoint);
    }
    const char *hp = strchr(h, '/');
    size_t hl = hp ? (size_t)(hp - h) : strlen(h);
    if (!hl)
        return weir_error_set(err, WEIR_EINVAL,
                              "s3.endpoint: no host in '%s'", endpoint);
    weir__s3 *s = weir_calloc(1, sizeof *s);
    if (!s)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    pthread_mutex_init(&s->mu, NULL);
    s->bucket = weir_malloc(bl + 1);
    s->host = weir_malloc(hl + 1);
    const char *pre = slash ? slash + 1 : "";
    while (*pre == '/')
        pre++;
    s->prefix = weir_strdup(pre);
    s->base_path = weir_strdup(hp ? hp : "");
    s->scheme = weir_strdup(scheme);
    s->region = weir_strdup(region);
    s->access_key = weir_strdup(ak);
    s->secret_key = weir_strdup(sk);
    s->token = token ? weir_strdup(token) : NULL;
    if (!s->bucket || !s->host || !s->prefix || !s->base_path || !s->scheme ||
        !s->region || !s->access_key || !s->secret_key ||
        (token && !s->token)) {
        weir__s3_destroy(s);
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    }
    memcpy(s->bucket, b, bl);
    s->bucket[bl] = '\0';
    memcpy(s->host, h, hl);
    s->host[hl] = '\0';
    for (size_t l = strlen(s->prefix); l && s->prefix[l - 1] == '/';)
        s->prefix[--l] = '\0';
    for (size_t l = strlen(s->base_path); l && s->base_path[l - 1] == '/';)
        s->base_path[--l] = '\0';
    /* Flink's default is virtual-hosted style; an IP address or localhost
     * has no bucket subdomains, so those go path style unless told. */
    if (o && o->path_style)
        s->path_style = !strcasecmp(o->path_style, "true");
    else
        s->path_style = host_is_ip(s->host);
    s->max_retries = o && o->max_retries >= 0
                         ? o->max_retries
                         : S3_DEFAULT_RETRIES;
    s->part_size = o && o->part_size ? o->part_size
                                             : S3_DEFAULT_PART;
    s->log = o ? o->log : NULL;
    s->log_ud = o ? o->log_ud : NULL;
    s->jitter = (unsigned)time(NULL) ^ (unsigned)getpid();
    pthread_once(&curl_once, curl_global);
    *out = s;
    return 0;
}

void weir__s3_destroy(weir__s3 *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->n_pool; i++)
        curl_easy_cleanup(s->pool[i]);
    pthread_mutex_destroy(&s->mu);
    weir_free(s->bucket);
    weir_free(s->prefix);
    weir_free(s->scheme);
    weir_free(s->host);
    weir_free(s->base_path);
    weir_free(s->region);
    weir_free(s->access_key);
    if (s->secret_key)
        memset(s->secret_key, 0, strlen(s->secret_key));
    weir_free(s->secret_key);
    weir_free(s->token);
    weir_free(s);
}

const char *weir__s3_bucket(const weir__s3 *s) { return s->bucket; }
const char *weir__s3_prefix(const weir__s3 *s) { return s->prefix; }
size_t weir__s3_part_size(const weir__s3 *s) { return s->part_size; }

void weir__s3_free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        weir_free(names[i]);
    weir_free(names);
}

/* ---- objects ---- */

int weir__s3_put(weir__s3 *s, const char *key, const void *data, int fd,
                 uint64_t len)
{
    s3_call c;
    call_init(&c, "PUT", key);
    c.body = data;
    c.fd = fd;
    c.body_len = (size_t)len;
    if (!data && fd < 0)
        c.body = (const uint8_t *)"";
    int rc = perform(s, &c);
    weir_buf_fini(&c.err);
    return rc;
}

int weir__s3_head(weir__s3 *s, const char *key, uint64_t *size)
{
    s3_call h;
    call_init(&h, "HEAD", key);
    h.quiet = true;
    int rc = perform(s, &h);
    if (!rc)
        *size = h.total;
    weir_buf_fini(&h.err);
    return rc;
}

int weir__s3_get_range(weir__s3 *s, const char *key, uint64_t off,
                       uint64_t len, weir_buf *out, uint64_t *total)
{
    char range[64];
    uint64_t got = 0;
    while (got < len) {
        s3_call c;
        call_init(&c, "GET", key);
        snprintf(range, sizeof range, "bytes=%" PRIu64 "-%" PRIu64,
                 off + got, off + len - 1);
        c.range = range;
        c.out = out;
        c.quiet = true;
        size_t before = out->len;
        int rc = perform(s, &c);
        weir_buf_fini(&c.err);
        if (rc == WEIR_EIO && got == 0 && c.status == 0) {
            /* a server that mis-sizes a range on an empty object */
            uint64_t sz;
            if (weir__s3_head(s, key, &sz) == 0 && sz <= off)
                rc = WEIR_EOF;
        }
        if (rc) {
            if (rc != WEIR_EOF && rc != WEIR_ENOTFOUND)
                weir__s3_log(s, "s3://%s/%s: GET %s failed: %s (HTTP %ld)",
                             s->bucket, key, range, weir_strerror(rc),
                             c.status);
            return rc;
        }
        if (c.total && total)
            *total = c.total;
        if (c.status == 200) {
            /* the server ignored the range: keep the asked bytes only */
            size_t whole = out->len - before;
            if (total)
                *total = whole;
            size_t from = off + got < whole ? (size_t)(off + got) : whole;
            size_t n = whole - from < len - got ? whole - from
                                                 : (size_t)(len - got);
            memmove(out->data + before, out->data + before + from, n);
            out->len = before + n;
            return n == 0 && got == 0 ? WEIR_EOF : 0;
        }
        uint64_t n = out->len - before;
        if (n == 0)
            return WEIR_EIO;
        got += n;
        if (c.total && off + got >= c.total)
            break;
    }
    return 0;
}

/* ---- multipart uploads ---- */

int weir__s3_upload_start(weir__s3 *s, const char *key, char **id)
{
    weir_buf reply;
    weir_buf_init(&reply);
    s3_call c;
    call_init(&c, "POST", key);
    c.query = "uploads";
    c.out = &reply;
    int rc = perform(s, &c);
    weir_buf_fini(&c.err);
    size_t pos = 0;
    *id = rc ? NULL
             : xml_take((char *)reply.data, reply.len, &pos, "UploadId");
    weir_buf_fini(&reply);
    if (!rc && !*id) {
        weir__s3_log(s, "s3://%s/%s: the server started no multipart upload",
                     s->bucket, key);
        rc = WEIR_EIO;
    }
    return rc;
}

int weir__s3_upload_part(weir__s3 *s, const char *key, const char *id,
                         uint32_t part, const void *data, int fd,
                         uint64_t fd_off, uint64_t len, char etag[128])
{
    weir_buf q;
    weir_buf_init(&q);
    int rc = weir_buf_printf(&q, "partNumber=%u&uploadId=", part);
    if (!rc)
        rc = weir__sigv4_uri_encode(&q, id, 0);
    if (!rc)
        rc = weir_buf_put_u8(&q, 0);
    if (rc) {
        weir_buf_fini(&q);
        return WEIR_ENOMEM;
    }
    s3_call c;
    call_init(&c, "PUT", key);
    c.query = (char *)q.data;
    c.body_len = (size_t)len;
    if (fd >= 0) {
        c.fd = fd;
        c.fd_off = fd_off;
    } else {
        c.body = data ? data : (const uint8_t *)"";
    }
    rc = perform(s, &c);
    weir_buf_fini(&c.err);
    weir_buf_fini(&q);
    if (!rc && !c.etag[0]) {
        weir__s3_log(s, "s3://%s/%s: part %u came back without an ETag",
                     s->bucket, key, part);
        rc = WEIR_EIO;
    }
    if (!rc)
        memcpy(etag, c.etag, sizeof c.etag);
    return rc;
}

int weir__s3_list_uploads(weir__s3 *s, const char *key_prefix, char ***keys,
                          char ***ids, size_t *n)
{
    size_t cap = 0, icap = 0, ni = 0;
    *keys = *ids = NULL;
    *n = 0;
    char *km = NULL, *im = NULL;
    weir_buf q, reply;
    weir_buf_init(&q);
    weir_buf_init(&reply);
    int rc = 0;
    bool more = true;
    while (!rc && more) {
        weir_buf_clear(&q);
        weir_buf_clear(&reply);
        rc = weir_buf_printf(&q, "uploads&prefix=");
        if (!rc)
            rc = weir__sigv4_uri_encode(&q, key_prefix, 0);
        if (!rc && km) {
            rc = weir_buf_printf(&q, "&key-marker=");
            if (!rc)
                rc = weir__sigv4_uri_encode(&q, km, 0);
            if (!rc)
                rc = weir_buf_printf(&q, "&upload-id-marker=");
            if (!rc)
                rc = weir__sigv4_uri_encode(&q, im ? im : "", 0);
        }
        if (!rc)
            rc = weir_buf_put_u8(&q, 0);
        if (rc)
            break;
        s3_call c;
        call_init(&c, "GET", NULL);
        c.query = (char *)q.data;
        c.out = &reply;
        c.quiet = true; /* not every S3 server lists uploads */
        rc = perform(s, &c);
        weir_buf_fini(&c.err);
        if (rc && c.status == 501)
            rc = WEIR_EUNSUPPORTED;
        if (rc)
            break;
        /* <Upload><Key>k</Key><UploadId>id</UploadId>...</Upload> */
        const char *x = (const char *)reply.data;
        size_t pos = 0;
        while (!rc && reply.len) {
            const char *u = memmem(x + pos, reply.len - pos, "<Upload>", 8);
            if (!u)
                break;
            pos = (size_t)(u - x);
            size_t p2 = pos;
            char *key = xml_take(x, reply.len, &pos, "Key");
            char *id = xml_take(x, reply.len, &p2, "UploadId");
            if (key && id && !strncmp(key, key_prefix, strlen(key_prefix))) {
                rc = add_name(keys, n, &cap, key, strlen(key));
                if (!rc)
                    rc = add_name(ids, &ni, &icap, id, strlen(id));
            }
            weir_free(key);
            weir_free(id);
            if (p2 > pos)
                pos = p2;
            if (!key || !id)
                break;
        }
        pos = 0;
        char *trunc = xml_take(x, reply.len, &pos, "IsTruncated");
        more = trunc && !strcmp(trunc, "true");
        weir_free(trunc);
        weir_free(km);
        weir_free(im);
        pos = 0;
        km = more ? xml_take(x, reply.len, &pos, "NextKeyMarker") : NULL;
        pos = 0;
        im = more ? xml_take(x, reply.len, &pos, "NextUploadIdMarker") : NULL;
        if (more && !km)
            more = false;
    }
    weir_free(km);
    weir_free(im);
    weir_buf_fini(&q);
    weir_buf_fini(&reply);
    if (rc || ni != *n) {
        weir__s3_free_names(*keys, *n);
        weir__s3_free_names(*ids, ni);
        *keys = *ids = NULL;
        *n = 0;
        return rc ? rc : WEIR_ENOMEM;
    }
    return 0;
}

#endif /* WEIR_HAVE_CURL */
