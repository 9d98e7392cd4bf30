/*
 * util/io.c - durable file operations through a replaceable table.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/io.h"

static int sys_open(const char *path, int flags, int mode)
{
    int fd = open(path, flags | O_CLOEXEC, mode);
    return fd < 0 ? -errno : fd;
}

static ssize_t sys_write(int fd, const void *p, size_t n)
{
    ssize_t w = write(fd, p, n);
    return w < 0 ? -errno : w;
}

static ssize_t sys_read(int fd, void *p, size_t n)
{
    ssize_t r = read(fd, p, n);
    return r < 0 ? -errno : r;
}

static int sys_fsync(int fd) { return fsync(fd) < 0 ? -errno : 0; }
static int sys_close(int fd) { return close(fd) < 0 ? -errno : 0; }
static int sys_rename(const char *a, const char *b) { return rename(a, b) < 0 ? -errno : 0; }
static int sys_unlink(const char *p) { return unlink(p) < 0 ? -errno : 0; }

static const weir__io default_ops = {sys_open, sys_write, sys_read, sys_fsync, sys_close, sys_rename, sys_unlink};
weir__io weir__io_ops = {sys_open, sys_write, sys_read, sys_fsync, sys_close, sys_rename, sys_unlink};

void weir__io_reset(void) { weir__io_ops = default_ops; }

static int map_errno(int neg) { return neg == -ENOSPC ? WEIR_ENOSPC : neg == -ENOENT ? WEIR_ENOTFOUND : WEIR_EIO; }

int weir__io_fsync_dir(const char *path)
{
    int fd = weir__io_ops.open(path, O_RDONLY | O_DIRECTORY, 0);
    if (fd < 0)
        return map_errno(fd);
    int rc = weir__io_ops.fsync(fd);
    weir__io_ops.close(fd);
    return rc < 0 ? map_errno(rc) : 0;
}

int weir__io_write_atomic(const char *path, const void *data, size_t len)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid()) >= (int)sizeof tmp)
        return WEIR_EINVAL;
    int fd = weir__io_ops.open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return map_errno(fd);
    const uint8_t *p = data;
    size_t left = len;
    int rc = 0;
    while (left > 0) {
        ssize_t w = weir__io_ops.write(fd, p, left);
        if (w == -EINTR)
            continue;
        if (w <= 0) {
            rc = w == 0 ? WEIR_EIO : map_errno((int)w);
            break;
        }
        p += w;
        left -= (size_t)w;
    }
    if (!rc) {
        int f = weir__io_ops.fsync(fd);
        if (f < 0)
            rc = map_errno(f);
    }
    weir__io_ops.close(fd);
    if (!rc) {
        int r = weir__io_ops.rename(tmp, path);
        if (r < 0)
            rc = map_errno(r);
    }
    if (rc) {
        weir__io_ops.unlink(tmp);
        return rc;
    }
    /* Make the rename itself durable. */
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) {
        if (slash == dir)
            slash[1] = '\0';
        else
            *slash = '\0';
    } else {
        strcpy(dir, ".");
    }
    return weir__io_fsync_dir(dir);
}

int weir__io_read_file(const char *path, uint8_t **out, size_t *len)
{
    int fd = weir__io_ops.open(path, O_RDONLY, 0);
    if (fd < 0)
        return map_errno(fd);
    size_t cap = 4096, n = 0;
    uint8_t *buf = weir_malloc(cap);
    int rc = buf ? 0 : WEIR_ENOMEM;
    while (!rc) {
        if (n == cap) {
            uint8_t *nb = weir_realloc(buf, cap * 2);
            if (!nb) {
                rc = WEIR_ENOMEM;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t r = weir__io_ops.read(fd, buf + n, cap - n);
        if (r == -EINTR)
            continue;
        if (r < 0)
            rc = map_errno((int)r);
        else if (r == 0)
            break;
        else
            n += (size_t)r;
    }
    weir__io_ops.close(fd);
    if (rc) {
        weir_free(buf);
        return rc;
    }
    *out = buf;
    *len = n;
    return 0;
}

int weir__io_mkdirs(const char *path, int mode)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp)
        return WEIR_EINVAL;
    for (char *p = tmp + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            if (mkdir(tmp, (mode_t)mode) < 0 && errno != EEXIST)
                return map_errno(-errno);
            *p = '/';
        }
    }
    if (mkdir(tmp, (mode_t)mode) < 0 && errno != EEXIST)
        return map_errno(-errno);
    return 0;
}

int weir__io_check_dir_writable(const char *dir, int mode, char *why, size_t why_cap)
{
    int rc = weir__io_mkdirs(dir, mode);
    if (rc) {
        snprintf(why, why_cap, "%s", rc == WEIR_EINVAL ? "path too long" : strerror(errno));
        return rc;
    }
    char probe[4096];
    if (snprintf(probe, sizeof probe, "%s/.weir-probe-%ld", dir, (long)getpid()) >= (int)sizeof probe) {
        snprintf(why, why_cap, "path too long");
        return WEIR_EINVAL;
    }
    /*
     * Plain system calls, not the replaceable table: this asks what the
     * folder allows, it writes no data, and tests that fail the Nth call of
     * the table count only the calls that write checkpoints.
     */
    int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0 && errno == EEXIST) {
        unlink(probe); /* left by a killed run with this pid */
        fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0600);
    }
    if (fd < 0) {
        int e = errno;
        snprintf(why, why_cap, "%s", strerror(e));
        return map_errno(-e);
    }
    close(fd);
    unlink(probe);
    return 0;
}

int weir__io_remove_tree(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return weir__io_ops.unlink(path) < 0 ? WEIR_EIO : 0;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char child[4096];
        snprintf(child, sizeof child, "%s/%s", path, e->d_name);
        struct stat st;
        if (lstat(child, &st) == 0 && S_ISDIR(st.st_mode)) {
            int r = weir__io_remove_tree(child);
            if (r && !rc)
                rc = r;
        } else if (weir__io_ops.unlink(child) < 0 && !rc) {
            rc = WEIR_EIO;
        }
    }
    closedir(d);
    if (rmdir(path) < 0 && !rc)
        rc = WEIR_EIO;
    return rc;
}
