/*
 * checkpoint/storage_open.c - the storage a path names: object storage for
 * s3:// (and Flink's s3a:// and s3p://, the same here), else a local folder.
 */
#include <string.h>

#include "checkpoint/storage.h"
#include "weir/checkpoint.h"

bool weir__storage_is_remote(const char *path)
{
    return path && (!strncmp(path, "s3://", 5) || !strncmp(path, "s3a://", 6) ||
                    !strncmp(path, "s3p://", 6));
}

int weir__storage_open(const char *path, const weir_checkpoint_config *cfg,
                       weir__storage **out, weir_error *err)
{
    *out = NULL;
    if (!weir__storage_is_remote(path)) {
        int rc = weir__storage_local_create(path, out);
        return rc ? weir_error_set(err, rc, "%s: %s", path, weir_strerror(rc))
                  : 0;
    }
#if defined(WEIR_HAVE_CURL)
    char uri[1024];
    const char *rest = strstr(path, "://") + 3;
    if (strlen(rest) + 6 > sizeof uri)
        return weir_error_set(err, WEIR_EINVAL, "%s: path too long", path);
    memcpy(uri, "s3://", 5);
    strcpy(uri + 5, rest);
    return weir__storage_s3_create(uri, cfg, out, err);
#else
    (void)cfg;
    return weir_error_set(err, WEIR_EUNSUPPORTED,
                          "%s: object storage is not built into this weir "
                          "(it needs libcurl and libcrypto: install "
                          "libcurl4-openssl-dev and rebuild)",
                          path);
#endif
}
