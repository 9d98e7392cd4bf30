/*
 * checkpoint/storage.h - where checkpoint files live.
 *
 * Storage holds immutable named files: put (atomic: a reader sees the whole
 * file or none of it), get, list by prefix, remove. Names use '/' to form
 * folders ("chk-7/_metadata"). A local or shared folder implements it now;
 * object storage fits the same four calls.
 */
#ifndef WEIR_CHECKPOINT_STORAGE_H
#define WEIR_CHECKPOINT_STORAGE_H

#include "weir/common.h"

typedef struct weir__storage weir__storage;

typedef struct weir__storage_ops {
    int (*put)(weir__storage *s, const char *name, const void *data,
               size_t len);
    /* *data is allocated and transferred to the caller. */
    int (*get)(weir__storage *s, const char *name, uint8_t **data, size_t *len);
    /* Names directly under prefix (a folder, "" for the root), sorted; *names
     * transferred. */
    int (*list)(weir__storage *s, const char *prefix, char ***names, size_t *n);
    /* Removes a file or a whole folder. */
    int (*remove)(weir__storage *s, const char *name);
    /*
     * Optional: removes what puts interrupted by a crash left under prefix
     * (a local folder: temporary files, which list does not show; object
     * storage has none). Only while no put into prefix is in flight.
     */
    int (*sweep)(weir__storage *s, const char *prefix);
    /*
     * Optional: stores the local file at path under name (atomic as put),
     * reading it a part at a time, so it never sits whole in memory;
     * *size and *crc (CRC32C) describe what was stored.
     */
    int (*put_file)(weir__storage *s, const char *name, const char *path,
                    uint64_t *size, uint32_t *crc);
    /*
     * Optional: the file name stored at the local path (created or
     * replaced), fetched a range at a time, so it never sits whole in
     * memory; *size and *crc (CRC32C) describe what was fetched. Without
     * it, get() and a write.
     */
    int (*get_file)(weir__storage *s, const char *name, const char *path,
                    uint64_t *size, uint32_t *crc);
    void (*destroy)(weir__storage *s);
} weir__storage_ops;

struct weir__storage {
    const weir__storage_ops *ops;
};

/* A folder on a local or shared file system (created if missing). */
int weir__storage_local_create(const char *dir, weir__storage **out);

struct weir_checkpoint_config;
/* Whether path names object storage ("s3://bucket/prefix"). */
bool weir__storage_is_remote(const char *path);
/*
 * The storage path names: s3://bucket/prefix (options s3.* from cfg, which
 * may be NULL, else the AWS_* environment variables; copied), or a local
 * folder (file:// stripped by the caller). err says what is wrong, naming
 * path. WEIR_EUNSUPPORTED when weir was built without libcurl.
 */
int weir__storage_open(const char *path,
                       const struct weir_checkpoint_config *cfg,
                       weir__storage **out, weir_error *err);
#if defined(WEIR_HAVE_CURL)
int weir__storage_s3_create(const char *uri,
                            const struct weir_checkpoint_config *cfg,
                            weir__storage **out, weir_error *err);
#endif
void weir__storage_destroy(weir__storage *s);
/* get_file() of s, or get() and a write where s has none. */
int weir__storage_get_file(weir__storage *s, const char *name,
                           const char *path, uint64_t *size, uint32_t *crc);
void weir__storage_free_names(char **names, size_t n);

#endif
