/* connector/file/fileio.c - the default (POSIX) I/O table and helpers. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "connector/file/fileio.h"

static int posix_open(const char *path, int flags, mode_t mode)
{
    return open(path, flags | O_CLOEXEC, mode);
}

const weir__file_io weir__fio_posix = {
    .open = posix_open,
    .pread = pread,
    .write = write,
    .fsync = fsync,
    .close = close,
    .rename = rename,
    .unlink = unlink,
};

const weir__file_io *weir__fio = &weir__fio_posix;

int weir__fio_write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n) {
        ssize_t w = weir__fio->write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (w == 0)
            return -EIO;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int weir__fio_errno_code(int e)
{
    if (e < 0)
        e = -e;
    switch (e) {
    case ENOENT:
        return WEIR_ENOTFOUND;
    case ENOSPC:
    case EDQUOT:
        return WEIR_ENOSPC;
    case ENOMEM:
        return WEIR_ENOMEM;
    case EEXIST:
        return WEIR_EEXIST;
    default:
        return WEIR_EIO;
    }
}

int weir__fio_mkdirs(const char *path)
{
    char buf[4096];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf)
        return -ENAMETOOLONG;
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        char saved = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return -errno;
        buf[i] = saved;
    }
    struct stat st;
    if (stat(path, &st) != 0)
        return -errno;
    return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

int weir__fio_fsync_dir(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int rc = fsync(fd) == 0 ? 0 : -errno;
    close(fd);
    return rc;
}
