/*
 * util/sigv4.c - AWS Signature Version 4 (see sigv4.h).
 *
 * canonical request = METHOD \n PATH \n QUERY \n HEADERS \n SIGNED \n HASH
 *   QUERY: the parameters sorted by name then value, each "name=value"
 *   (a bare "uploads" becomes "uploads="); HEADERS: "name:value\n" per
 *   header, names lowered, sorted; SIGNED: the names joined by ';'.
 * string to sign = "AWS4-HMAC-SHA256" \n DATE \n SCOPE \n hex(SHA256(canonical))
 * key = HMAC(HMAC(HMAC(HMAC("AWS4" secret, day), region), service),
 *            "aws4_request"); signature = hex(HMAC(key, string to sign)).
 */
#if defined(WEIR_HAVE_CURL)

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include "util/sigv4.h"
#include "weir/buf.h"

static void to_hex(const unsigned char *d, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[d[i] >> 4];
        out[2 * i + 1] = digits[d[i] & 15];
    }
    out[2 * n] = '\0';
}

void weir__sigv4_sha256_hex(const void *data, size_t len, char out[65])
{
    unsigned char md[SHA256_DIGEST_LENGTH];
    SHA256(data, len, md);
    to_hex(md, sizeof md, out);
}

static void hmac(const void *key, size_t klen, const void *msg, size_t mlen,
                 unsigned char out[32])
{
    unsigned int olen = 32;
    HMAC(EVP_sha256(), key, (int)klen, msg, mlen, out, &olen);
}

int weir__sigv4_uri_encode(weir_buf *out, const char *s, int keep_slash)
{
    static const char digits[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        unsigned char c = *p;
        int rc;
        if (isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' ||
            (c == '/' && keep_slash)) {
            rc = weir_buf_put_u8(out, c);
        } else {
            char esc[3] = {'%', digits[c >> 4], digits[c & 15]};
            rc = weir_buf_put(out, esc, 3);
        }
        if (rc)
            return rc;
    }
    return 0;
}

static int cmp_param(const void *a, const void *b)
{
    /* By name, then by value. */
    const char *x = *(char *const *)a, *y = *(char *const *)b;
    size_t nx = strcspn(x, "="), ny = strcspn(y, "=");
    int c = strncmp(x, y, nx < ny ? nx : ny);
    if (c || nx != ny)
        return c ? c : (nx < ny ? -1 : 1);
    return strcmp(x + nx, y + ny);
}

/* Appends the canonical query string of q (NULL or "": nothing). */
static int canonical_query(weir_buf *out, const char *q)
{
    if (!q || !*q)
        return 0;
    size_t n = 1;
    for (const char *p = q; *p; p++)
        n += *p == '&';
    char *copy = weir_malloc(strlen(q) + 1);
    char **params = weir_calloc(n, sizeof *params);
    int rc = copy && params ? 0 : WEIR_ENOMEM;
    size_t k = 0;
    if (!rc) {
        strcpy(copy, q);
        for (char *save = NULL, *t = strtok_r(copy, "&", &save); t;
             t = strtok_r(NULL, "&", &save))
            params[k++] = t;
        if (k > 1)
            qsort(params, k, sizeof *params, cmp_param);
    }
    for (size_t i = 0; i < k && !rc; i++) {
        if (i)
            rc = weir_buf_put_u8(out, '&');
        if (!rc)
            rc = weir_buf_put(out, params[i], strlen(params[i]));
        if (!rc && !strchr(params[i], '='))
            rc = weir_buf_put_u8(out, '=');
    }
    weir_free(copy);
    weir_free(params);
    return rc;
}

typedef struct lowered {
    char *name;
    const char *value;
} lowered;

static int cmp_header(const void *a, const void *b)
{
    return strcmp(((const lowered *)a)->name, ((const lowered *)b)->name);
}

/* Appends value trimmed, runs of blanks folded to one space. */
static int put_trimmed(weir_buf *out, const char *v)
{
    while (*v == ' ' || *v == '\t')
        v++;
    size_t n = strlen(v);
    while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
        n--;
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        if ((v[i] == ' ' || v[i] == '\t') && i &&
            (v[i - 1] == ' ' || v[i - 1] == '\t'))
            continue;
        rc = weir_buf_put_u8(out, v[i] == '\t' ? ' ' : (uint8_t)v[i]);
    }
    return rc;
}

int weir__sigv4_authorization(const weir__sigv4_request *r, char *out,
                              size_t cap, char *canonical, size_t canon_cap)
{
    if (!r->method || !r->path || !r->payload_hash || !r->amz_date ||
        strlen(r->amz_date) != 16 || !r->region || !r->service ||
        !r->access_key || !r->secret_key || !r->n_headers)
        return WEIR_EINVAL;
    lowered *hs = weir_calloc(r->n_headers, sizeof *hs);
    if (!hs)
        return WEIR_ENOMEM;
    int rc = 0;
    for (size_t i = 0; i < r->n_headers && !rc; i++) {
        size_t l = strlen(r->headers[i].name);
        if (!(hs[i].name = weir_malloc(l + 1))) {
            rc = WEIR_ENOMEM;
            break;
        }
        for (size_t j = 0; j <= l; j++)
            hs[i].name[j] = (char)tolower((unsigned char)r->headers[i].name[j]);
        hs[i].value = r->headers[i].value;
    }
    weir_buf c, signed_names, sts;
    weir_buf_init(&c);
    weir_buf_init(&signed_names);
    weir_buf_init(&sts);
    if (!rc) {
        if (r->n_headers > 1)
            qsort(hs, r->n_headers, sizeof *hs, cmp_header);
        rc = weir_buf_printf(&c, "%s\n%s\n", r->method,
                             *r->path ? r->path : "/");
    }
    if (!rc)
        rc = canonical_query(&c, r->query);
    if (!rc)
        rc = weir_buf_put_u8(&c, '\n');
    for (size_t i = 0; i < r->n_headers && !rc; i++) {
        rc = weir_buf_printf(&c, "%s:", hs[i].name);
        if (!rc)
            rc = put_trimmed(&c, hs[i].value);
        if (!rc)
            rc = weir_buf_put_u8(&c, '\n');
        if (!rc)
            rc = weir_buf_printf(&signed_names, "%s%s", i ? ";" : "",
                                 hs[i].name);
    }
    if (!rc)
        rc = weir_buf_printf(&c, "\n%.*s\n%s", (int)signed_names.len,
                             (const char *)signed_names.data, r->payload_hash);
    char day[9];
    memcpy(day, r->amz_date, 8);
    day[8] = '\0';
    char creq_hash[65];
    if (!rc) {
        weir__sigv4_sha256_hex(c.data, c.len, creq_hash);
        rc = weir_buf_printf(&sts, "AWS4-HMAC-SHA256\n%s\n%s/%s/%s/aws4_request\n%s",
                             r->amz_date, day, r->region, r->service,
                             creq_hash);
    }
    if (!rc) {
        unsigned char k[32];
        char secret[256];
        int sl = snprintf(secret, sizeof secret, "AWS4%s", r->secret_key);
        if (sl < 0 || (size_t)sl >= sizeof secret) {
            rc = WEIR_EINVAL;
        } else {
            hmac(secret, (size_t)sl, day, 8, k);
            hmac(k, 32, r->region, strlen(r->region), k);
            hmac(k, 32, r->service, strlen(r->service), k);
            hmac(k, 32, "aws4_request", 12, k);
            hmac(k, 32, sts.data, sts.len, k);
            char sig[65];
            to_hex(k, 32, sig);
            int n = snprintf(out, cap,
                             "AWS4-HMAC-SHA256 Credential=%s/%s/%s/%s/"
                             "aws4_request, SignedHeaders=%.*s, Signature=%s",
                             r->access_key, day, r->region, r->service,
                             (int)signed_names.len,
                             (const char *)signed_names.data, sig);
            if (n < 0 || (size_t)n >= cap)
                rc = WEIR_EINVAL;
        }
        memset(secret, 0, sizeof secret);
    }
    if (!rc && canonical) {
        if (c.len >= canon_cap) {
            rc = WEIR_EINVAL;
        } else {
            memcpy(canonical, c.data, c.len);
            canonical[c.len] = '\0';
        }
    }
    for (size_t i = 0; i < r->n_headers; i++)
        weir_free(hs[i].name);
    weir_free(hs);
    weir_buf_fini(&c);
    weir_buf_fini(&signed_names);
    weir_buf_fini(&sts);
    return rc;
}

#endif /* WEIR_HAVE_CURL */
