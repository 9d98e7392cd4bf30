/*
 * util/io.c - durable file operations through a replaceable table.
 *
 * Deleting never follows a symbolic link: weir__io_remove_tree removes a
 * link itself, not what it points to, and walks folders through descriptors
 * opened with O_NOFOLLOW, so a link planted anywhere under the folder being
 * removed (or swapped in while it is removed) cannot send the delete out of
 * it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
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

static ssize_t sys_pread(int fd, void *p, size_t n, off_t off)
{
    ssize_t r = pread(fd, p, n, off);
    return r < 0 ? -errno : r;
}

static int sys_fsync(int fd) { return fsync(fd) < 0 ? -errno : 0; }
static int sys_close(int fd) { return close(fd) < 0 ? -errno : 0; }
static int sys_rename(const char *a, const char *b) { return rename(a, b) < 0 ? -errno : 0; }
static int sys_unlink(const char *p) { return unlink(p) < 0 ? -errno : 0; }

static const weir__io default_ops = {
    .open = sys_open,
    .write = sys_write,
    .read = sys_read,
    .pread = sys_pread,
    .fsync = sys_fsync,
    .close = sys_close,
    .rename = sys_rename,
    .unlink = sys_unlink,
};
weir__io weir__io_ops = {
    .open = sys_open,
    .write = sys_write,
    .read = sys_read,
    .pread = sys_pread,
    .fsync = sys_fsync,
    .close = sys_close,
    .rename = sys_rename,
    .unlink = sys_unlink,
};

void weir__io_reset(void) { weir__io_ops = default_ops; }

bool weir__io_is_default(void)
{
    return !memcmp(&weir__io_ops, &default_ops, sizeof default_ops);
}

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

int weir__io_write_all(int fd, const void *data, size_t len)
{
    const uint8_t *p = data;
    while (len > 0) {
        ssize_t w = weir__io_ops.write(fd, p, len);
        if (w == -EINTR)
            continue;
        if (w <= 0)
            return w == 0 ? WEIR_EIO : map_errno((int)w);
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

int weir__io_write_atomic(const char *path, const void *data, size_t len)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid()) >= (int)sizeof tmp)
        return WEIR_EINVAL;
    int fd = weir__io_ops.open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return map_errno(fd);
    int rc = weir__io_write_all(fd, data, len);
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

/*
 * Empties the folder open as dfd (closed here). Entries are examined with
 * lstat semantics and sub-folders opened relative to their parent with
 * O_NOFOLLOW: a link is unlinked, never entered.
 */
static int remove_entries(int dfd)
{
    DIR *d = fdopendir(dfd);
    if (!d) {
        int e = errno;
        close(dfd);
        return map_errno(-e);
    }
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        int r = 0;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
            r = errno == ENOENT ? 0 : map_errno(-errno);
        } else if (S_ISDIR(st.st_mode)) {
            int sub = openat(dirfd(d), e->d_name,
                             O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            r = sub < 0 ? map_errno(-errno) : remove_entries(sub);
            if (unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR) < 0 && !r)
                r = map_errno(-errno);
        } else if (unlinkat(dirfd(d), e->d_name, 0) < 0 && errno != ENOENT) {
            r = map_errno(-errno);
        }
        if (r && !rc)
            rc = r;
    }
    closedir(d);
    return rc;
}

static const char *temp_root(void)
{
    const char *tmp = getenv("TMPDIR");
    return tmp && *tmp ? tmp : "/tmp";
}

int weir__io_temp_dir(const char *prefix, char *out, size_t cap)
{
    int n = snprintf(out, cap, "%s/%s-XXXXXX", temp_root(), prefix);
    if (n < 0 || (size_t)n >= cap || !mkdtemp(out))
        return WEIR_EIO;
    return 0;
}

#define OWNER_SUFFIX ".owner"

/*
 * Removes the folders "<prefix>-XXXXXX" under root whose owner file
 * (beside them, of this user, with a pid written in it) no process holds
 * locked: their process ended without removing them (SIGKILL, a crash);
 * the kernel dropped its lock then, whatever its pid namespace. An owner
 * file still empty may be one being made: left alone.
 */
static void sweep_unowned(const char *root, const char *prefix)
{
    DIR *d = opendir(root);
    if (!d)
        return;
    size_t pl = strlen(prefix), sl = strlen(OWNER_SUFFIX);
    struct dirent *e;
    char path[4096];
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n != pl + 7 + sl || strncmp(e->d_name, prefix, pl) || e->d_name[pl] != '-' ||
            strcmp(e->d_name + n - sl, OWNER_SUFFIX))
            continue;
        int pn = snprintf(path, sizeof path, "%s/%s", root, e->d_name);
        if (pn < 0 || (size_t)pn >= sizeof path)
            continue;
        int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            continue;
        struct stat st;
        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() && st.st_size > 0 &&
            flock(fd, LOCK_EX | LOCK_NB) == 0) {
            path[pn - (int)sl] = '\0';
            weir__io_remove_tree(path);
            path[pn - (int)sl] = OWNER_SUFFIX[0];
            unlink(path);
        }
        close(fd);
    }
    closedir(d);
}

int weir__io_temp_dir_owned(const char *prefix, char *out, size_t cap, int *owner)
{
    *owner = -1;
    sweep_unowned(temp_root(), prefix);
    int rc = weir__io_temp_dir(prefix, out, cap);
    if (rc)
        return rc;
    char path[4096];
    int pn = snprintf(path, sizeof path, "%s" OWNER_SUFFIX, out);
    int fd = pn < 0 || (size_t)pn >= sizeof path ? -1 : open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0 || dprintf(fd, "%ld\n", (long)getpid()) <= 0) {
        if (fd >= 0) {
            unlink(path);
            close(fd);
        }
        rmdir(out);
        return WEIR_EIO;
    }
    *owner = fd;
    return 0;
}

void weir__io_temp_dir_release(const char *path, int owner)
{
    weir__io_remove_tree(path);
    if (owner < 0)
        return;
    char lock[4096];
    int n = snprintf(lock, sizeof lock, "%s" OWNER_SUFFIX, path);
    if (n > 0 && (size_t)n < sizeof lock)
        unlink(lock);
    close(owner);
}

int weir__io_empty_dir(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    return fd < 0 ? map_errno(-errno) : remove_entries(fd);
}

int weir__io_remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) < 0)
        return map_errno(-errno);
    /* A file, or a link (to a folder or not): only the entry itself goes. */
    if (!S_ISDIR(st.st_mode)) {
        int r = weir__io_ops.unlink(path);
        return r < 0 ? map_errno(r) : 0;
    }
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return map_errno(-errno);
    int rc = remove_entries(fd);
    if (rmdir(path) < 0 && !rc)
        rc = map_errno(-errno);
    return rc;
}
