/*
 * checkpoint/storage_local.c - checkpoint storage in a local folder.
 * put writes through weir__io_write_atomic (temporary, fsync, rename, fsync
 * of the folder), so a crash leaves either the old state or the new file.
 *
 * Symbolic links below the root are never followed: a name whose folders
 * ("chk-7" in "chk-7/_metadata", "shared" in "shared/x") include a link is
 * refused (WEIR_EINVAL; get: WEIR_ENOTFOUND, so a linked "chk-7" reads as a
 * checkpoint that never completed), list refuses a folder that is a link,
 * and remove of a link removes the link, not what it points to. The root
 * itself may be a link (it is the user's choice of folder). So no put,
 * prune or sweep can reach, let alone delete, files outside the checkpoint
 * folder.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "checkpoint/storage.h"
#include "util/io.h"
#include "weir/buf.h"

typedef struct local_storage {
    weir__storage base;
    char *dir;
} local_storage;

static int path_of(local_storage *ls, const char *name, char *buf, size_t cap)
{
    if (strstr(name, ".."))
        return WEIR_EINVAL;
    int n = snprintf(buf, cap, "%s%s%s", ls->dir, *name ? "/" : "", name);
    return n < 0 || (size_t)n >= cap ? WEIR_EINVAL : 0;
}

/*
 * WEIR_EINVAL if one of the folders between the root and path (the root
 * excluded; path itself too when whole) is a symbolic link. What does not
 * exist yet is no link.
 */
static int check_links(local_storage *ls, char *path, bool whole)
{
    struct stat st;
    size_t root = strlen(ls->dir);
    if (!path[root])
        return 0; /* the root itself */
    for (char *p = path + root + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        int r = lstat(path, &st);
        *p = '/';
        if (r < 0)
            return 0;
        if (S_ISLNK(st.st_mode))
            return WEIR_EINVAL;
    }
    if (whole && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
        return WEIR_EINVAL;
    return 0;
}

static int local_put(weir__storage *s, const char *name, const void *data,
                     size_t len)
{
    local_storage *ls = (local_storage *)s;
    char path[4096];
    int rc = path_of(ls, name, path, sizeof path);
    if (!rc)
        rc = check_links(ls, path, false);
    if (rc)
        return rc;
    char *slash = strrchr(path, '/');
    if (slash) {
        *slash = '\0';
        rc = weir__io_mkdirs(path, 0755);
        *slash = '/';
        if (rc)
            return rc;
    }
    return weir__io_write_atomic(path, data, len);
}

static int local_get(weir__storage *s, const char *name, uint8_t **data,
                     size_t *len)
{
    local_storage *ls = (local_storage *)s;
    char path[4096];
    int rc = path_of(ls, name, path, sizeof path);
    /* What lies behind a link is not in this storage: not found. */
    if (!rc && check_links(ls, path, false))
        rc = WEIR_ENOTFOUND;
    return rc ? rc : weir__io_read_file(path, data, len);
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int local_list(weir__storage *s, const char *prefix, char ***names,
                      size_t *n)
{
    local_storage *ls = (local_storage *)s;
    char path[4096];
    int rc = path_of(ls, prefix, path, sizeof path);
    if (!rc)
        rc = check_links(ls, path, true);
    if (rc)
        return rc;
    *names = NULL;
    *n = 0;
    DIR *d = opendir(path);
    if (!d)
        return WEIR_ENOTFOUND;
    size_t cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || strstr(e->d_name, ".tmp-"))
            continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 16;
            char **nn = weir_realloc(*names, cap * sizeof *nn);
            if (!nn) {
                rc = WEIR_ENOMEM;
                break;
            }
            *names = nn;
        }
        if (!((*names)[*n] = weir_strdup(e->d_name))) {
            rc = WEIR_ENOMEM;
            break;
        }
        (*n)++;
    }
    closedir(d);
    if (rc) {
        weir__storage_free_names(*names, *n);
        *names = NULL;
        *n = 0;
        return rc;
    }
    if (*n)
        qsort(*names, *n, sizeof **names, cmp_names);
    return 0;
}

static int local_remove(weir__storage *s, const char *name)
{
    local_storage *ls = (local_storage *)s;
    char path[4096];
    int rc = path_of(ls, name, path, sizeof path);
    if (!rc)
        rc = check_links(ls, path, false);
    /* A link named like a checkpoint goes itself; its target stays. */
    return rc ? rc : weir__io_remove_tree(path);
}

static int local_sweep(weir__storage *s, const char *prefix)
{
    local_storage *ls = (local_storage *)s;
    char path[4096], file[4400];
    int rc = path_of(ls, prefix, path, sizeof path);
    if (!rc)
        rc = check_links(ls, path, true);
    if (rc)
        return rc;
    DIR *d = opendir(path);
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strstr(e->d_name, ".tmp-"))
            continue;
        snprintf(file, sizeof file, "%s/%s", path, e->d_name);
        int r = weir__io_remove_tree(file);
        if (r && !rc)
            rc = r;
    }
    closedir(d);
    return rc;
}

static void local_destroy(weir__storage *s)
{
    local_storage *ls = (local_storage *)s;
    weir_free(ls->dir);
    weir_free(ls);
}

static const weir__storage_ops local_ops = {
    .put = local_put,
    .get = local_get,
    .list = local_list,
    .remove = local_remove,
    .sweep = local_sweep,
    .destroy = local_destroy,
};

int weir__storage_local_create(const char *dir, weir__storage **out)
{
    int rc = weir__io_mkdirs(dir, 0755);
    if (rc)
        return rc;
    local_storage *ls = weir_calloc(1, sizeof *ls);
    if (!ls || !(ls->dir = weir_strdup(dir))) {
        weir_free(ls);
        return WEIR_ENOMEM;
    }
    size_t l = strlen(ls->dir);
    while (l > 1 && ls->dir[l - 1] == '/')
        ls->dir[--l] = '\0';
    ls->base.ops = &local_ops;
    *out = &ls->base;
    return 0;
}

void weir__storage_destroy(weir__storage *s)
{
    if (s)
        s->ops->destroy(s);
}

void weir__storage_free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        weir_free(names[i]);
    weir_free(names);
}

int weir__storage_get_file(weir__storage *s, const char *name,
                           const char *path, uint64_t *size, uint32_t *crc)
{
    if (s->ops->get_file)
        return s->ops->get_file(s, name, path, size, crc);
    uint8_t *data = NULL;
    size_t len = 0;
    int rc = s->ops->get(s, name, &data, &len);
    if (rc)
        return rc;
    int fd = weir__io_ops.open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        weir_free(data);
        return fd == -ENOSPC ? WEIR_ENOSPC : WEIR_EIO;
    }
    rc = weir__io_write_all(fd, data, len);
    if (weir__io_ops.close(fd) != 0 && !rc)
        rc = WEIR_EIO;
    if (!rc) {
        *size = len;
        *crc = weir_crc32c(0, data, len);
    }
    weir_free(data);
    return rc;
}
