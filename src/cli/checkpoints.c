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
    uint64_t total = 0;
    for (uint32_t i = 0; i < m.n_files; i++)
        total += m.files[i].size;
    printf("%s %s: id %" PRIu64 ", taken %s UTC, took %" PRId64 " ms, max parallelism %u, %u state files, %" PRIu64
           " bytes%s\n",
           m.is_savepoint ? "savepoint" : "checkpoint", name, m.id, when, m.duration_ms, m.max_parallelism, m.n_files,
           total, m.is_final ? ", final (every task had ended)" : "");
    for (uint32_t i = 0; i < m.n_files; i++) {
        const weir__ckpt_file *f = &m.files[i];
        char path[8300];
        snprintf(path, sizeof path, "%s/%s", name, f->file);
        uint8_t *data;
        size_t len;
        weir__snap_view v;
        printf("  task %u subtask %u/%u (%s): %s, %" PRIu64 " bytes\n", f->task_id, f->subtask, f->parallelism,
               f->task, f->file, f->size);
        if (s->ops->get(s, path, &data, &len) != 0) {
            printf("    (cannot read)\n");
            continue;
        }
        rc = weir__snap_view_decode(data, len, &v, &err);
        weir_free(data);
        if (rc) {
            printf("    (cannot decode: %s)\n", err.message);
            continue;
        }
        for (uint32_t o = 0; o < v.n_ops; o++) {
            const weir__snap_op_view *op = &v.ops[o];
            printf("    operator %u '%s': operator state %zu bytes", op->node, op->name ? op->name : "?",
                   op->op_state_bytes);
            if (op->n_kg)
                printf(", key groups [%u, %u] (%u with state): keyed state %" PRIu64 " bytes, timers %" PRIu64
                       " bytes",
                       op->kg_lo, op->kg_hi, op->n_kg_used, op->state_bytes, op->timer_bytes);
            printf("\n");
        }
        for (uint32_t k = 0; k < v.n_splits; k++) {
            const weir__snap_split_view *sp = &v.splits[k];
            printf("    source split %s: ", sp->id ? sp->id : "?");
            if (sp->finished) {
                printf("finished");
            } else if (sp->pos_len == 8) {
                uint64_t off = 0;
                for (int b = 7; b >= 0; b--)
                    off = off << 8 | sp->pos[b];
                printf("position %" PRIu64, off);
            } else {
                printf("position 0x");
                for (size_t b = 0; b < sp->pos_len && b < 32; b++)
                    printf("%02x", sp->pos[b]);
                if (sp->pos_len > 32)
                    printf("... (%zu bytes)", sp->pos_len);
            }
            if (sp->max_ts != INT64_MIN)
                printf(", largest event time %" PRId64, sp->max_ts);
            printf("\n");
        }
        weir__snap_view_fini(&v);
    }
    weir__ckpt_meta_fini(&m);
    weir__storage_destroy(s);
    return WEIR_EXIT_OK;
}
