/*
 * cli/checkpoints.c - `weir checkpoints DIR` lists the checkpoints in a
 * folder; `weir inspect PATH` shows what one checkpoint or savepoint holds.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "checkpoint/catalog.h"
#include "cli/cli.h"

static const char *status_name(weir__ckpt_status s)
{
    switch (s) {
    case WEIR_CKPT_COMPLETE: return "complete";
    case WEIR_CKPT_INCOMPLETE: return "incomplete";
    case WEIR_CKPT_CORRUPT: return "corrupt";
    }
    return "?";
}

static void format_time(int64_t ms, char *buf, size_t cap)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, cap, "%Y-%m-%d %H:%M:%S", &tm);
}

int weir_cli_checkpoints(int argc, char **argv)
{
    if (argc != 2 || !strcmp(argv[1], "--help")) {
        printf("usage: weir checkpoints DIR\n\n"
               "Lists the checkpoints and savepoints in DIR with id, time (UTC),\n"
               "size and status; a corrupt or incomplete one says why.\n");
        return argc == 2 ? WEIR_EXIT_OK : WEIR_EXIT_USAGE;
    }
    weir__storage *s;
    struct stat st;
    if (stat(argv[1], &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "weir: %s: no such folder\n", argv[1]);
        return WEIR_EXIT_IO;
    }
    int rc = weir__storage_local_create(argv[1], &s);
    if (rc) {
        fprintf(stderr, "weir: %s: %s\n", argv[1], weir_strerror(rc));
        return WEIR_EXIT_IO;
    }
    weir__ckpt_info *infos;
    size_t n;
    rc = weir__ckpt_list(s, &infos, &n);
    if (rc) {
        fprintf(stderr, "weir: %s: %s\n", argv[1], weir_strerror(rc));
        weir__storage_destroy(s);
        return WEIR_EXIT_IO;
    }
    printf("%-18s %8s  %-19s  %12s  %s\n", "NAME", "ID", "TIME (UTC)", "SIZE", "STATUS");
    for (size_t i = 0; i < n; i++) {
        char when[32] = "-";
        if (infos[i].status == WEIR_CKPT_COMPLETE)
            format_time(infos[i].time_ms, when, sizeof when);
        printf("%-18s %8" PRIu64 "  %-19s  %12" PRIu64 "  %s%s%s\n", infos[i].name, infos[i].id, when,
               infos[i].size_bytes, status_name(infos[i].status), infos[i].reason[0] ? ": " : "", infos[i].reason);
    }
    if (n == 0)
        printf("(no checkpoints)\n");
    weir_free(infos);
    weir__storage_destroy(s);
    return WEIR_EXIT_OK;
}

int weir_cli_inspect(int argc, char **argv)
{
    if (argc != 2 || !strcmp(argv[1], "--help")) {
        printf("usage: weir inspect PATH\n\n"
               "PATH is a checkpoint or savepoint folder (e.g. ckpts/chk-12). Prints its\n"
               "operators, subtasks, key groups, state sizes and source positions.\n");
        return argc == 2 ? WEIR_EXIT_OK : WEIR_EXIT_USAGE;
    }
    char dir[4096], name[4096];
    snprintf(dir, sizeof dir, "%s", argv[1]);
    size_t l = strlen(dir);
    while (l > 1 && dir[l - 1] == '/')
        dir[--l] = '\0';
    char *slash = strrchr(dir, '/');
    if (slash) {
        snprintf(name, sizeof name, "%s", slash + 1);
        *slash = '\0';
        if (!*dir)
            strcpy(dir, "/");
    } else {
        snprintf(name, sizeof name, "%s", dir);
        strcpy(dir, ".");
    }
    weir__storage *s;
    int rc = weir__storage_local_create(dir, &s);
    if (rc) {
        fprintf(stderr, "weir: %s: %s\n", dir, weir_strerror(rc));
        return WEIR_EXIT_IO;
    }
    weir__ckpt_meta m;
    weir_error err;
    rc = weir__ckpt_verify(s, name, &m, &err);
    if (rc) {
        fprintf(stderr, "weir: %s\n", err.message);
        weir__storage_destroy(s);
        return WEIR_EXIT_IO;
    }
    char when[32];
    format_time(m.time_ms, when, sizeof when);
    printf("%s %s: id %" PRIu64 ", taken %s UTC, max parallelism %u, %u state files\n",
           m.is_savepoint ? "savepoint" : "checkpoint", name, m.id, when, m.max_parallelism, m.n_files);
    for (uint32_t i = 0; i < m.n_files; i++) {
        const weir__ckpt_file *f = &m.files[i];
        char path[8192 + 64];
        snprintf(path, sizeof path, "%s/%s", name, f->file);
        uint8_t *data;
        size_t len;
        weir__task_state t;
        printf("  operator %s subtask %u/%u: %s, %" PRIu64 " bytes\n", f->op_uid, f->subtask, f->parallelism,
               f->file, f->size);
        if (s->ops->get(s, path, &data, &len) != 0 || weir__task_state_decode(data, len, &t, &err) != 0) {
            printf("    (cannot decode)\n");
            continue;
        }
        weir_free(data);
        if (t.op_state_len)
            printf("    operator state: %zu bytes\n", t.op_state_len);
        for (uint32_t p = 0; p < t.n_pos; p++)
            printf("    source split %s: position of %zu bytes\n", t.pos[p].split_id, t.pos[p].pos_len);
        if (t.n_kg) {
            size_t total = 0;
            uint32_t lo = UINT32_MAX, hi = 0;
            for (uint32_t k = 0; k < t.n_kg; k++) {
                total += t.kgs[k].len;
                lo = t.kgs[k].kg < lo ? t.kgs[k].kg : lo;
                hi = t.kgs[k].kg > hi ? t.kgs[k].kg : hi;
            }
            printf("    keyed state: %u key groups in [%u, %u], %zu bytes\n", t.n_kg, lo, hi, total);
        }
        weir__task_state_fini(&t);
    }
    weir__ckpt_meta_fini(&m);
    weir__storage_destroy(s);
    return WEIR_EXIT_OK;
}
