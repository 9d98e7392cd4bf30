/* connector/file/fileio.c - the default I/O table and helpers. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "connector/connector_internal.h"
#include "connector/file/fileio.h"
#include "util/hex.h"
#include "util/io.h"

/*
 * The default table goes through util/io.h's weir__io_ops, the one table
 * of file-system calls weir has, so a test that installs a failing
 * weir__io_ops reaches the file source and sink as well as checkpoint
 * storage. These adapters give back the POSIX convention (-1 and errno)
 * that the connectors expect.
 */
static ssize_t from_neg(ssize_t r)
{
    if (r >= 0)
        return r;
    errno = (int)-r;
    return -1;
}

static int io_open(const char *path, int flags, mode_t mode)
{
    return (int)from_neg(weir__io_ops.open(path, flags, (int)mode));
}

static ssize_t io_pread(int fd, void *buf, size_t n, off_t off)
{
    return from_neg(weir__io_ops.pread(fd, buf, n, off));
}

static ssize_t io_write(int fd, const void *buf, size_t n)
{
    return from_neg(weir__io_ops.write(fd, buf, n));
}

static int io_fsync(int fd) { return (int)from_neg(weir__io_ops.fsync(fd)); }
static int io_close(int fd) { return (int)from_neg(weir__io_ops.close(fd)); }

static int io_rename(const char *from, const char *to)
{
    return (int)from_neg(weir__io_ops.rename(from, to));
}

static int io_unlink(const char *path)
{
    return (int)from_neg(weir__io_ops.unlink(path));
}

const weir__file_io weir__fio_posix = {
    .open = io_open,
    .pread = io_pread,
    .write = io_write,
    .fsync = io_fsync,
    .close = io_close,
    .rename = io_rename,
    .unlink = io_unlink,
};

const weir__file_io *weir__fio = &weir__fio_posix;

void *(*weir__fio_mmap)(void *addr, size_t n, int prot, int flags, int fd, off_t off) = mmap;

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
    int fd = weir__io_ops.open(path, O_RDONLY | O_DIRECTORY, 0);
    if (fd < 0)
        return fd;
    int rc = weir__io_ops.fsync(fd);
    weir__io_ops.close(fd);
    return rc < 0 ? rc : 0;
}

bool weir__fio_is_s3(const char *path)
{
    return path && !strncmp(path, "s3://", 5);
}

int weir__fio_opt_path(weir__optset *o, const char *key, const char **path)
{
    if (!weir__fio_is_s3(*path))
        return weir__opt_local_path(o, key, path);
#if defined(WEIR_HAVE_CURL)
    return 0;
#else
    return weir__opt_fail(o, (size_t)weir__opt_index(o, key), WEIR_EUNSUPPORTED,
                          "option '%s': object storage (%s) is not built into "
                          "this weir: it needs libcurl (libcurl4-openssl-dev)",
                          key, *path);
#endif
}

int weir__fio_put_unescaped(weir_buf *o, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (c == '%' && i + 2 < n && weir__hex_value(p[i + 1]) >= 0 &&
            weir__hex_value(p[i + 2]) >= 0) {
            c = (char)(weir__hex_value(p[i + 1]) * 16 +
                       weir__hex_value(p[i + 2]));
            i += 2;
        }
        if (weir_buf_put(o, &c, 1))
            return WEIR_ENOMEM;
    }
    return 0;
}
