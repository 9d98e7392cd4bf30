/*
 * util/dirlock.c - folder locks (dirlock.h): flock on DIR/.weir.lock,
 * shared by reference within the process.
 *
 * The file is removed (while still locked) when the last reference goes;
 * an acquirer therefore checks, once it holds the flock, that the name
 * still refers to the file it locked, and starts over if not.
 *
 * Invariant: every folder locked by this process has exactly one entry in
 * `held` (identified by the lock file's device and inode, so two spellings
 * of one folder are one entry) with one open descriptor holding the flock;
 * refs counts the acquisitions not yet released.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/dirlock.h"

struct weir__dirlock {
    dev_t dev;
    ino_t ino;
    int fd;
    char *path; /* the lock file, removed with the last reference */
    uint32_t refs;
    weir__dirlock *next;
};

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static weir__dirlock *g_held;

/* The process id written in the lock file, or 0 if there is none. */
static long holder_pid(int fd)
{
    char buf[32];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    return strtol(buf, NULL, 10);
}

static void write_pid(int fd)
{
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%ld\n", (long)getpid());
    /* The pid is only for messages: a failure here loses nothing. */
    if (ftruncate(fd, 0) == 0 && pwrite(fd, buf, (size_t)n, 0) == n)
        return;
}

int weir__dirlock_acquire(const char *dir, const char *what,
                          weir__dirlock **out, weir_error *err)
{
    *out = NULL;
    char path[4200];
    if (snprintf(path, sizeof path, "%s/%s", dir, WEIR__DIRLOCK_FILE) >=
        (int)sizeof path)
        return weir_error_set(err, WEIR_EINVAL, "%s: path too long", dir);
    pthread_mutex_lock(&g_mu);
again:;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        int e = errno;
        pthread_mutex_unlock(&g_mu);
        return weir_error_set(err, WEIR_EIO,
                              "%s: cannot create the lock file of the %s: %s",
                              path, what, strerror(e));
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        pthread_mutex_unlock(&g_mu);
        close(fd);
        return weir_error_set(err, WEIR_EIO, "%s: %s", path, strerror(e));
    }
    for (weir__dirlock *l = g_held; l; l = l->next)
        if (l->dev == st.st_dev && l->ino == st.st_ino) {
            l->refs++;
            pthread_mutex_unlock(&g_mu);
            close(fd);
            *out = l;
            return 0;
        }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        pthread_mutex_unlock(&g_mu);
        long pid = e == EWOULDBLOCK ? holder_pid(fd) : 0;
        close(fd);
        if (e != EWOULDBLOCK)
            return weir_error_set(err, WEIR_EIO, "%s: cannot lock: %s", path,
                                  strerror(e));
        char who[48] = "another process";
        if (pid > 0)
            snprintf(who, sizeof who, "another process (pid %ld)", pid);
        return weir_error_set(
            err, WEIR_ESTATE,
            "%s: the %s is in use by %s; two jobs on one folder would "
            "interleave their commits (stop the other one, or give this job "
            "its own folder)",
            dir, what, who);
    }
    /*
     * The holder removes the file when it lets go, so the file we locked
     * may have been removed between our open and our flock: then a third
     * process can lock a new file of that name. Only a lock on the file
     * the name still refers to counts.
     */
    struct stat now;
    if (stat(path, &now) != 0 || now.st_dev != st.st_dev ||
        now.st_ino != st.st_ino) {
        close(fd);
        goto again;
    }
    weir__dirlock *l = weir_calloc(1, sizeof *l);
    char *owned = weir_strdup(path);
    if (!l || !owned) {
        pthread_mutex_unlock(&g_mu);
        weir_free(l);
        weir_free(owned);
        close(fd); /* drops the flock */
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    }
    write_pid(fd);
    *l = (weir__dirlock){.dev = st.st_dev,
                         .ino = st.st_ino,
                         .fd = fd,
                         .path = owned,
                         .refs = 1,
                         .next = g_held};
    g_held = l;
    pthread_mutex_unlock(&g_mu);
    *out = l;
    return 0;
}

void weir__dirlock_release(weir__dirlock *l)
{
    if (!l)
        return;
    pthread_mutex_lock(&g_mu);
    if (--l->refs == 0) {
        for (weir__dirlock **p = &g_held; *p; p = &(*p)->next)
            if (*p == l) {
                *p = l->next;
                break;
            }
        /* Removed while still locked (see acquire), so no reader of the
         * folder is left with a stray hidden file after a clean end. */
        unlink(l->path);
        close(l->fd); /* the flock goes with the descriptor */
        weir_free(l->path);
        weir_free(l);
    }
    pthread_mutex_unlock(&g_mu);
}
