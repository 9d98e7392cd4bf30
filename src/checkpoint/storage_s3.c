/*
 * checkpoint/storage_s3.c - checkpoint storage in an S3 bucket
 * (s3://bucket/prefix), over libcurl, every request signed with SigV4
 * (util/sigv4.c).
 *
 * Names map to keys below the prefix ("chk-7/_metadata" ->
 * "prefix/chk-7/_metadata"); folders are key prefixes ending in '/'.
 *   put      one PUT up to the part size, else a multipart upload (parts
 *            of the part size, completed at the end, aborted on failure):
 *            S3 shows an object whole or not at all, so put is atomic.
 *            A _metadata (a checkpoint's commit point) always goes
 *            multipart (see upload()).
 *   put_file the same from a local file, read part by part: a state file
 *            of any size never sits whole in memory.
 *   get      ranged GETs of 64 MiB, each retried on its own.
 *   list     ListObjectsV2 with delimiter '/' (files and folders).
 *   remove   the key itself and every key below name/.
 *   sweep    aborts the multipart uploads a killed run left below prefix.
 * The requests themselves (signing, retries, XML) are util/s3.c's.
 *
 * No lock: S3 has no flock. Two processes writing the same prefix are not
 * kept apart (docs/checkpoints.md says what the names do and do not
 * protect).
 */
#if defined(WEIR_HAVE_CURL)

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checkpoint/storage.h"
#include "util/io.h"
#include "util/s3.h"
#include "weir/buf.h"
#include "weir/checkpoint.h"

/* Bytes per ranged GET: each is retried on its own; larger than the part
 * size, as a request's fixed cost dominates a local server's time. */
#define S3_GET_CHUNK (64u << 20)

typedef struct s3_storage {
    weir__storage base;
    weir__s3 *c;
} s3_storage;

/* ---- put ---- */

/*
 * Stores len bytes, from data or (fd >= 0) from fd at offset 0: one PUT, or
 * a multipart upload of part_size parts.
 */
static int upload(s3_storage *st, const char *name, const void *data, int fd,
                  uint64_t len)
{
    weir__s3 *s = st->c;
    char *key = weir__s3_key(s, name);
    if (!key)
        return WEIR_EINVAL;
    uint64_t part_size = weir__s3_part_size(s);
    /*
     * A checkpoint's _metadata is its commit point: it goes up as a
     * multipart upload even when small, so it appears only once whole
     * even on a server that keeps what an interrupted PUT sent (s3rver
     * does; S3 itself does not).
     */
    const char *base = strrchr(name, '/');
    bool commit_point = !strcmp(base ? base + 1 : name, "_metadata");
    if (len <= part_size && !commit_point) {
        int rc = weir__s3_put(s, key, data, fd, len);
        weir_free(key);
        return rc;
    }
    char *id = NULL;
    int rc = weir__s3_upload_start(s, key, &id);
    uint32_t n_parts = (uint32_t)((len + part_size - 1) / part_size);
    if (!n_parts)
        n_parts = 1; /* an empty object: one empty part */
    char **etags = rc ? NULL : weir_calloc(n_parts, sizeof *etags);
    if (!rc && !etags)
        rc = WEIR_ENOMEM;
    char etag[128];
    for (uint32_t i = 0; i < n_parts && !rc; i++) {
        uint64_t off = (uint64_t)i * part_size;
        uint64_t plen = len - off < part_size ? len - off : part_size;
        rc = weir__s3_upload_part(
            s, key, id, i + 1, data ? (const uint8_t *)data + off : NULL, fd,
            off, plen, etag);
        if (!rc && !(etags[i] = weir_strdup(etag)))
            rc = WEIR_ENOMEM;
    }
    if (!rc)
        rc = weir__s3_upload_complete(s, key, id, etags, n_parts);
    if (rc && id)
        weir__s3_upload_abort(s, key, id);
    for (uint32_t i = 0; etags && i < n_parts; i++)
        weir_free(etags[i]);
    weir_free(etags);
    weir_free(id);
    weir_free(key);
    return rc;
}

static int s3_put(weir__storage *st, const char *name, const void *data,
                  size_t len)
{
    return upload((s3_storage *)st, name, data, -1, len);
}

static int s3_put_file(weir__storage *st, const char *name, const char *path,
                       uint64_t *size, uint32_t *crc)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? WEIR_ENOTFOUND : WEIR_EIO;
    /* The CRC first (one pass, a buffer at a time), then the upload. */
    uint8_t buf[1 << 16];
    uint64_t n = 0;
    uint32_t c = 0;
    int rc = 0;
    for (;;) {
        ssize_t r = read(fd, buf, sizeof buf);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            rc = WEIR_EIO;
            break;
        }
        if (r == 0)
            break;
        c = weir_crc32c(c, buf, (size_t)r);
        n += (uint64_t)r;
    }
    if (!rc)
        rc = upload((s3_storage *)st, name, NULL, fd, n);
    close(fd);
    if (!rc) {
        *size = n;
        *crc = c;
    }
    return rc;
}

/* ---- get ---- */

static int s3_get(weir__storage *st, const char *name, uint8_t **data,
                  size_t *len)
{
    weir__s3 *s = ((s3_storage *)st)->c;
    char *key = weir__s3_key(s, name);
    if (!key)
        return WEIR_EINVAL;
    weir_buf out;
    weir_buf_init(&out);
    int rc = 0;
    uint64_t total = UINT64_MAX;
    while (!rc && out.len < total) {
        size_t before = out.len;
        uint64_t t = 0;
        rc = weir__s3_get_range(s, key, out.len, S3_GET_CHUNK, &out, &t);
        if (rc == WEIR_EOF && before == 0) {
            rc = 0; /* an empty object */
            break;
        }
        if (rc)
            break;
        if (!t || out.len == before) {
            rc = WEIR_EIO;
            break;
        }
        if (total == UINT64_MAX && t > out.len && t - out.len <= SIZE_MAX / 2 &&
            weir_buf_reserve(&out, (size_t)(t - out.len))) {
            rc = WEIR_ENOMEM; /* the rest, at once: no copy per doubling */
            break;
        }
        total = t;
    }
    weir_free(key);
    if (rc) {
        weir_buf_fini(&out);
        return rc;
    }
    if (!out.data && !(out.data = weir_malloc(1)))
        return WEIR_ENOMEM;
    *data = out.data;
    *len = out.len;
    return 0;
}

/* Bytes per ranged GET when fetching to a file: what sits in memory. */
#define S3_FILE_CHUNK (8u << 20)

static int s3_get_file(weir__storage *st, const char *name, const char *path,
                       uint64_t *size, uint32_t *crc)
{
    weir__s3 *s = ((s3_storage *)st)->c;
    char *key = weir__s3_key(s, name);
    if (!key)
        return WEIR_EINVAL;
    int fd = weir__io_ops.open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        weir_free(key);
        return fd == -ENOSPC ? WEIR_ENOSPC : WEIR_EIO;
    }
    weir_buf chunk;
    weir_buf_init(&chunk);
    uint64_t off = 0, total = UINT64_MAX;
    uint32_t c = 0;
    int rc = 0;
    while (!rc && off < total) {
        weir_buf_clear(&chunk);
        uint64_t t = 0;
        rc = weir__s3_get_range(s, key, off, S3_FILE_CHUNK, &chunk, &t);
        if (rc == WEIR_EOF && off == 0) {
            rc = 0; /* an empty object */
            break;
        }
        if (rc)
            break;
        if (!t || chunk.len == 0) {
            rc = WEIR_EIO;
            break;
        }
        total = t;
        c = weir_crc32c(c, chunk.data, chunk.len);
        off += chunk.len;
        rc = weir__io_write_all(fd, chunk.data, chunk.len);
    }
    weir_buf_fini(&chunk);
    weir_free(key);
    if (weir__io_ops.close(fd) != 0 && !rc)
        rc = WEIR_EIO;
    if (!rc) {
        *size = off;
        *crc = c;
    }
    return rc;
}

/* ---- list, remove, sweep ---- */

static int folder_prefix(weir__s3 *s, const char *name, char **out)
{
    char *key = weir__s3_key(s, name);
    if (!key)
        return WEIR_EINVAL;
    size_t l = strlen(key);
    char *p = weir_malloc(l + 2);
    if (!p) {
        weir_free(key);
        return WEIR_ENOMEM;
    }
    memcpy(p, key, l);
    if (l)
        p[l++] = '/';
    p[l] = '\0';
    weir_free(key);
    *out = p;
    return 0;
}

static int s3_list(weir__storage *st, const char *prefix, char ***names,
                   size_t *n)
{
    weir__s3 *s = ((s3_storage *)st)->c;
    char *kp;
    int rc = folder_prefix(s, prefix, &kp);
    if (rc)
        return rc;
    rc = weir__s3_list(s, kp, true, names, NULL, n);
    weir_free(kp);
    /* Folders exist only through their keys: an empty one is none. */
    if (!rc && *n == 0 && *prefix) {
        weir_free(*names);
        *names = NULL;
        return WEIR_ENOTFOUND;
    }
    return rc;
}

static int s3_remove(weir__storage *st, const char *name)
{
    weir__s3 *s = ((s3_storage *)st)->c;
    if (!*name)
        return WEIR_EINVAL; /* never the whole prefix */
    char *kp, **keys = NULL;
    size_t n = 0;
    int rc = folder_prefix(s, name, &kp);
    if (rc)
        return rc;
    rc = weir__s3_list(s, kp, false, &keys, NULL, &n);
    for (size_t i = 0; i < n; i++) {
        int r = weir__s3_delete(s, keys[i]);
        if (r && !rc)
            rc = r;
    }
    weir__s3_free_names(keys, n);
    /* the key itself (a file); its '/' stripped */
    kp[strlen(kp) - 1] = '\0';
    int r = weir__s3_delete(s, kp);
    if (r && !rc)
        rc = r;
    weir_free(kp);
    return rc;
}

static int s3_sweep(weir__storage *st, const char *prefix)
{
    weir__s3 *s = ((s3_storage *)st)->c;
    char *kp, **keys, **ids;
    size_t n;
    if (folder_prefix(s, prefix, &kp))
        return 0;
    if (weir__s3_list_uploads(s, kp, &keys, &ids, &n) == 0) {
        for (size_t i = 0; i < n; i++)
            weir__s3_upload_abort(s, keys[i], ids[i]);
        weir__s3_free_names(keys, n);
        weir__s3_free_names(ids, n);
    }
    weir_free(kp);
    return 0; /* best effort: a bucket lifecycle rule is the backstop */
}

static void s3_destroy(weir__storage *st)
{
    s3_storage *s = (s3_storage *)st;
    weir__s3_destroy(s->c);
    weir_free(s);
}

static const weir__storage_ops s3_ops = {
    .put = s3_put,
    .get = s3_get,
    .list = s3_list,
    .remove = s3_remove,
    .sweep = s3_sweep,
    .put_file = s3_put_file,
    .get_file = s3_get_file,
    .destroy = s3_destroy,
};

int weir__storage_s3_create(const char *uri, const weir_checkpoint_config *cfg,
                            weir__storage **out, weir_error *err)
{
    weir__s3_options o = {.max_retries = -1};
    if (cfg) {
        o.endpoint = cfg->s3_endpoint;
        o.region = cfg->s3_region;
        o.access_key = cfg->s3_access_key;
        o.secret_key = cfg->s3_secret_key;
        o.path_style = cfg->s3_path_style;
        o.max_retries = cfg->s3_max_retries;
        o.part_size = cfg->s3_part_size;
        o.log = cfg->log;
        o.log_ud = cfg->log_ud;
    }
    s3_storage *s = weir_calloc(1, sizeof *s);
    if (!s)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    int rc = weir__s3_create(uri, &o, &s->c, err);
    if (rc) {
        weir_free(s);
        return rc;
    }
    s->base.ops = &s3_ops;
    *out = &s->base;
    return 0;
}

#endif /* WEIR_HAVE_CURL */
