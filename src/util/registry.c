/*
 * util/registry.c - the per-user folder of running jobs (registry.h).
 *
 * Invariant: "<pid>.job" exists only while "<pid>.lock" is held by that
 * process, except for the moment between a crash and the next listing;
 * a reader that gets the lock owns the stale pair and removes it.
 */
#include "util/registry.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static int g_lock_fd = -1;             /* held while registered */
static weir__registry_entry g_self;    /* this process's entry */

int weir__registry_dir(char *buf, size_t cap, weir_error *err)
{
    const char *env = getenv("WEIR_REGISTRY_DIR");
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    if (env && *env)
        snprintf(buf, cap, "%s", env);
    else if (xdg && *xdg)
        snprintf(buf, cap, "%s/weir", xdg);
    else
        snprintf(buf, cap, "/tmp/weir-%lu", (unsigned long)getuid());
    if (mkdir(buf, 0700) != 0 && errno != EEXIST)
        return weir_error_set(err, WEIR_EIO, "job registry %s: %s", buf, strerror(errno));
    /* In a shared /tmp the folder must be ours, not a planted one. */
    struct stat st;
    if (lstat(buf, &st) != 0)
        return weir_error_set(err, WEIR_EIO, "job registry %s: %s", buf, strerror(errno));
    if (!S_ISDIR(st.st_mode) || st.st_uid != getuid())
        return weir_error_set(err, WEIR_EIO, "job registry %s: not a folder owned by this user", buf);
    return 0;
}

static void put_field(FILE *f, const char *key, const char *v)
{
    fprintf(f, "%s=", key);
    for (const char *p = v; *p; p++)
        fputc(*p == '\n' ? ' ' : *p, f); /* one line per field */
    fputc('\n', f);
}

/* Writes g_self to <dir>/<pid>.job through a temporary file; g_mu held. */
static int write_self_locked(void)
{
    char dir[1024], tmp[1100], path[1100];
    if (weir__registry_dir(dir, sizeof dir, NULL))
        return WEIR_EIO;
    snprintf(tmp, sizeof tmp, "%s/%ld.job.tmp", dir, g_self.pid);
    snprintf(path, sizeof path, "%s/%ld.job", dir, g_self.pid);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return WEIR_EIO;
    fprintf(f, "pid=%ld\n", g_self.pid);
    put_field(f, "name", g_self.name);
    fprintf(f, "started_ms=%" PRId64 "\n", g_self.started_ms);
    put_field(f, "file", g_self.file);
    put_field(f, "checkpoints", g_self.checkpoints);
    put_field(f, "savepoints", g_self.savepoints);
    put_field(f, "rest", g_self.rest);
    put_field(f, "id", g_self.id);
    put_field(f, "status", g_self.status);
    int bad = ferror(f);
    bad |= fclose(f);
    if (bad || rename(tmp, path) != 0) {
        unlink(tmp);
        return WEIR_EIO;
    }
    return 0;
}

int weir__registry_add(const char *name, const char *file, const char *checkpoints, const char *savepoints,
                       int64_t started_ms, const char *job_id, weir_error *err)
{
    char dir[1024], lock[1100];
    int rc = weir__registry_dir(dir, sizeof dir, err);
    if (rc)
        return rc;
    pthread_mutex_lock(&g_mu);
    if (g_lock_fd < 0) {
        snprintf(lock, sizeof lock, "%s/%ld.lock", dir, (long)getpid());
        g_lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (g_lock_fd < 0 || flock(g_lock_fd, LOCK_EX | LOCK_NB) != 0) {
            rc = weir_error_set(err, WEIR_EIO, "job registry %s: %s", lock, strerror(errno));
            if (g_lock_fd >= 0)
                close(g_lock_fd);
            g_lock_fd = -1;
            pthread_mutex_unlock(&g_mu);
            return rc;
        }
    }
    memset(&g_self, 0, sizeof g_self);
    g_self.pid = (long)getpid();
    g_self.started_ms = started_ms;
    snprintf(g_self.name, sizeof g_self.name, "%s", name ? name : "");
    snprintf(g_self.file, sizeof g_self.file, "%s", file ? file : "");
    snprintf(g_self.checkpoints, sizeof g_self.checkpoints, "%s", checkpoints ? checkpoints : "");
    snprintf(g_self.savepoints, sizeof g_self.savepoints, "%s", savepoints ? savepoints : "");
    snprintf(g_self.id, sizeof g_self.id, "%s", job_id ? job_id : "");
    snprintf(g_self.status, sizeof g_self.status, "RUNNING");
    rc = write_self_locked();
    pthread_mutex_unlock(&g_mu);
    if (rc)
        return weir_error_set(err, rc, "job registry %s: cannot write this job's entry", dir);
    return 0;
}

int weir__registry_set_rest_url(const char *url)
{
    pthread_mutex_lock(&g_mu);
    int rc = 0;
    if (g_lock_fd >= 0) {
        snprintf(g_self.rest, sizeof g_self.rest, "%s", url ? url : "");
        rc = write_self_locked();
    }
    pthread_mutex_unlock(&g_mu);
    return rc;
}

int weir__registry_set_status(const char *status)
{
    pthread_mutex_lock(&g_mu);
    int rc = 0;
    if (g_lock_fd >= 0) {
        snprintf(g_self.status, sizeof g_self.status, "%s", status);
        rc = write_self_locked();
    }
    pthread_mutex_unlock(&g_mu);
    return rc;
}

static void remove_pair(const char *dir, long pid)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/%ld.job", dir, pid);
    unlink(path);
    snprintf(path, sizeof path, "%s/%ld.lock", dir, pid);
    unlink(path);
}

void weir__registry_remove(void)
{
    char dir[1024];
    pthread_mutex_lock(&g_mu);
    if (g_lock_fd >= 0) {
        if (!weir__registry_dir(dir, sizeof dir, NULL))
            remove_pair(dir, g_self.pid);
        close(g_lock_fd);
        g_lock_fd = -1;
    }
    pthread_mutex_unlock(&g_mu);
}

/* 1: the lock of pid's entry is held by a live process; 0: stale (and removed when remove). */
static int entry_alive(const char *dir, long pid, int remove)
{
    if (pid == (long)getpid()) {
        pthread_mutex_lock(&g_mu);
        int mine = g_lock_fd >= 0;
        pthread_mutex_unlock(&g_mu);
        if (mine)
            return 1;
    }
    char path[1100];
    snprintf(path, sizeof path, "%s/%ld.lock", dir, pid);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
        close(fd);
        return 1;
    }
    /* We hold it (or it is gone): its process has ended. */
    if (remove)
        remove_pair(dir, pid);
    if (fd >= 0)
        close(fd);
    return 0;
}

int weir__registry_alive(long pid)
{
    char dir[1024];
    if (weir__registry_dir(dir, sizeof dir, NULL))
        return 0;
    return entry_alive(dir, pid, 0);
}

static int read_entry(const char *path, weir__registry_entry *e)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return WEIR_ENOTFOUND;
    memset(e, 0, sizeof *e);
    char line[2048];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *eq = strchr(line, '=');
        if (!eq)
            continue;
        *eq = '\0';
        const char *v = eq + 1;
        if (!strcmp(line, "pid"))
            e->pid = strtol(v, NULL, 10);
        else if (!strcmp(line, "name"))
            snprintf(e->name, sizeof e->name, "%s", v);
        else if (!strcmp(line, "started_ms"))
            e->started_ms = strtoll(v, NULL, 10);
        else if (!strcmp(line, "file"))
            snprintf(e->file, sizeof e->file, "%s", v);
        else if (!strcmp(line, "checkpoints"))
            snprintf(e->checkpoints, sizeof e->checkpoints, "%s", v);
        else if (!strcmp(line, "savepoints"))
            snprintf(e->savepoints, sizeof e->savepoints, "%s", v);
        else if (!strcmp(line, "rest"))
            snprintf(e->rest, sizeof e->rest, "%s", v);
        else if (!strcmp(line, "id"))
            snprintf(e->id, sizeof e->id, "%s", v);
        else if (!strcmp(line, "status"))
            snprintf(e->status, sizeof e->status, "%s", v);
    }
    fclose(f);
    return e->pid > 0 ? 0 : WEIR_ECORRUPT;
}

static int by_pid(const void *a, const void *b)
{
    long x = ((const weir__registry_entry *)a)->pid, y = ((const weir__registry_entry *)b)->pid;
    return (x > y) - (x < y);
}

int weir__registry_list(weir__registry_entry **out, size_t *n, weir_error *err)
{
    *out = NULL;
    *n = 0;
    char dir[1024];
    int rc = weir__registry_dir(dir, sizeof dir, err);
    if (rc)
        return rc;
    DIR *d = opendir(dir);
    if (!d)
        return weir_error_set(err, WEIR_EIO, "job registry %s: %s", dir, strerror(errno));
    weir__registry_entry *v = NULL;
    size_t cnt = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        char *end;
        long pid = strtol(de->d_name, &end, 10);
        if (pid <= 0 || strcmp(end, ".job") != 0)
            continue;
        if (!entry_alive(dir, pid, 1))
            continue;
        if (cnt == cap) {
            size_t nc = cap ? cap * 2 : 8;
            weir__registry_entry *nv = weir_realloc(v, nc * sizeof *nv);
            if (!nv) {
                weir_free(v);
                closedir(d);
                return weir_error_set(err, WEIR_ENOMEM, "out of memory");
            }
            v = nv;
            cap = nc;
        }
        char path[1400];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (read_entry(path, &v[cnt]) == 0 && v[cnt].pid == pid)
            cnt++;
    }
    closedir(d);
    if (cnt)
        qsort(v, cnt, sizeof *v, by_pid);
    *out = v;
    *n = cnt;
    return 0;
}

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= UINT64_C(0xbf58476d1ce4e5b9);
    x ^= x >> 27;
    x *= UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

void weir__registry_make_job_id(long pid, int64_t started_ms, const char *key, char out[33])
{
    uint64_t a;
    if (key) {
        a = UINT64_C(0xcbf29ce484222325); /* FNV-1a over key, then mixed */
        for (const unsigned char *p = (const unsigned char *)key; *p; p++)
            a = (a ^ *p) * UINT64_C(0x100000001b3);
        a = mix64(a);
        pid = 0;
    } else {
        a = mix64((uint64_t)started_ms ^ ((uint64_t)pid << 44));
    }
    uint64_t b = mix64(a ^ (uint64_t)pid ^ UINT64_C(0x9e3779b97f4a7c15));
    snprintf(out, 33, "%016" PRIx64 "%016" PRIx64, a, b);
}

void weir__registry_job_id(const weir__registry_entry *e, char out[33])
{
    if (e->id[0])
        snprintf(out, 33, "%s", e->id);
    else /* an entry without one: the id its process would have made */
        weir__registry_make_job_id(e->pid, e->started_ms, NULL, out);
}

static bool is_job_id(const char *s)
{
    size_t n = 0;
    for (; s[n]; n++)
        if (!((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f') || (s[n] >= 'A' && s[n] <= 'F')))
            return false;
    return n == 32;
}

int weir__registry_find(const char *job, weir__registry_entry *out, size_t *more, weir_error *err)
{
    if (more)
        *more = 0;
    weir__registry_entry *v;
    size_t n;
    int rc = weir__registry_list(&v, &n, err);
    if (rc)
        return rc;
    /* 32 hex digits are a job id even when all are decimal digits (a pid has at most 10) */
    bool by_id = is_job_id(job);
    char *end;
    errno = 0;
    long pid = by_id ? 0 : strtol(job, &end, 10);
    bool by_number = !by_id && *job && !*end && pid > 0 && errno == 0;
    size_t hit = n, hits = 0;
    for (size_t i = 0; i < n; i++) {
        char id[33];
        weir__registry_job_id(&v[i], id);
        if (by_number ? v[i].pid == pid : by_id ? !strcasecmp(id, job) || !strcmp(v[i].name, job)
                                                : !strcmp(v[i].name, job)) {
            if (!hits)
                hit = i;
            hits++;
        }
    }
    /* Several entries with one job id: the processes of one clustered job. */
    bool one = hits == 1 || (hits > 1 && by_id && !strcasecmp(v[hit].id, job));
    if (one) {
        *out = v[hit];
        if (more)
            *more = hits - 1;
    }
    weir_free(v);
    if (one)
        return 0;
    if (hits > 1)
        return weir_error_set(err, WEIR_EINVAL,
                              "%zu running jobs are named '%s': give the process id (weir list shows them)", hits,
                              job);
    return weir_error_set(err, WEIR_ENOTFOUND, "no running job %s '%s' on this machine (weir list shows them)",
                          by_number ? "with process id" : by_id ? "with job id" : "named", job);
}

int weir__registry_savepoint_reply(pid_t requester, int rc, const char *text)
{
    char dir[1024], tmp[1200], path[1200];
    if (weir__registry_dir(dir, sizeof dir, NULL))
        return WEIR_EIO;
    snprintf(tmp, sizeof tmp, "%s/%ld.sp-%ld.tmp", dir, (long)getpid(), (long)requester);
    snprintf(path, sizeof path, "%s/%ld.sp-%ld", dir, (long)getpid(), (long)requester);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return WEIR_EIO;
    fprintf(f, "%s\n%s\n", rc ? "failed" : "ok", text);
    int bad = ferror(f);
    bad |= fclose(f);
    if (bad || rename(tmp, path) != 0) {
        unlink(tmp);
        return WEIR_EIO;
    }
    return 0;
}

int weir__registry_savepoint_take(long pid, int *rc, char *text, size_t cap)
{
    char dir[1024], path[1200];
    if (weir__registry_dir(dir, sizeof dir, NULL))
        return WEIR_EIO;
    snprintf(path, sizeof path, "%s/%ld.sp-%ld", dir, pid, (long)getpid());
    FILE *f = fopen(path, "r");
    if (!f)
        return errno == ENOENT ? 0 : WEIR_EIO;
    char status[32] = "";
    text[0] = '\0';
    if (fgets(status, sizeof status, f) && fgets(text, (int)cap, f))
        text[strcspn(text, "\n")] = '\0';
    fclose(f);
    unlink(path);
    *rc = strncmp(status, "ok", 2) != 0;
    return 1;
}
