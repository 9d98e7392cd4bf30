/*
 * cli/savepoint_tool.c - `weir savepoint-tool`: Flink's state processor
 * API as commands, on a savepoint or checkpoint folder.
 *
 *   list PATH                        the stateful operators: id, name,
 *                                    fingerprint, state per subtask
 *   drop PATH ID --out NEW           NEW without operator ID's state
 *   rename PATH ID NEW_ID --out NEW  NEW with ID's state under NEW_ID
 *
 * A restore matches the checkpoint's operators to the job's by id and
 * fingerprint (_metadata's operator list): renaming an id in that list
 * hands the state to the job's operator with the new id; removing one
 * leaves the state in the files but claimed by no operator, so a restore
 * ignores it and needs no --allow-non-restored-state. The state files are
 * copied as they are; _metadata is written last, so NEW is complete only
 * once everything is in place. The input is never changed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "checkpoint/catalog.h"
#include "checkpoint/format.h"
#include "checkpoint/storage.h"
#include "cli/cli.h"

static const char USAGE[] =
    "usage: weir savepoint-tool list PATH\n"
    "       weir savepoint-tool drop PATH ID --out NEW_PATH\n"
    "       weir savepoint-tool rename PATH ID NEW_ID --out NEW_PATH\n\n"
    "Reads and rewrites the operator state of a savepoint or checkpoint folder\n"
    "(PATH, e.g. savepoints/savepoint-7), as Flink's state processor API does.\n\n"
    "  list    the stateful operators: id, operator, fingerprint (what its state\n"
    "          means: window, aggregates, key and state schemas, ...) and its\n"
    "          state per subtask: key groups, bytes of keyed state and timers\n"
    "  drop    writes NEW_PATH without operator ID's state: a job that no longer\n"
    "          has that operator restores it without --allow-non-restored-state\n"
    "  rename  writes NEW_PATH with ID's state under NEW_ID, so that a reshaped\n"
    "          job whose operator has the id NEW_ID takes that state over (the\n"
    "          operator and its fingerprint must still match)\n\n"
    "PATH is never changed; NEW_PATH must not exist. Restore the result with\n"
    "weir run JOB.sql --from NEW_PATH.\n";

/* Splits PATH into its storage root and folder name. */
static void split_path(const char *path, char *dir, size_t dcap, char *name, size_t ncap)
{
    snprintf(dir, dcap, "%s", path);
    size_t l = strlen(dir);
    while (l > 1 && dir[l - 1] == '/')
        dir[--l] = '\0';
    char *slash = strrchr(dir, '/');
    if (slash) {
        snprintf(name, ncap, "%s", slash + 1);
        if (slash == dir)
            slash[1] = '\0';
        else
            *slash = '\0';
    } else {
        snprintf(name, ncap, "%s", dir);
        snprintf(dir, dcap, ".");
    }
}

typedef struct opened {
    weir__storage *s;
    char name[1024];
    weir__ckpt_meta m;
} opened;

static int open_ckpt(const char *path, opened *o)
{
    memset(o, 0, sizeof *o);
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "weir savepoint-tool: %s: %s\n", path,
                errno == ENOENT ? "no such savepoint or checkpoint: the path is missing"
                                : "not a savepoint or checkpoint folder");
        return WEIR_EXIT_IO;
    }
    char dir[4096];
    split_path(path, dir, sizeof dir, o->name, sizeof o->name);
    int rc = weir__storage_local_create(dir, &o->s);
    if (rc) {
        fprintf(stderr, "weir savepoint-tool: %s: %s\n", dir, weir_strerror(rc));
        return WEIR_EXIT_IO;
    }
    weir_error err = {0};
    if ((rc = weir__ckpt_verify(o->s, o->name, &o->m, &err))) {
        fprintf(stderr, "weir savepoint-tool: %s\n", err.message);
        weir__storage_destroy(o->s);
        o->s = NULL;
        return WEIR_EXIT_IO;
    }
    return WEIR_EXIT_OK;
}

static void close_ckpt(opened *o)
{
    if (!o->s)
        return;
    weir__ckpt_meta_fini(&o->m);
    weir__storage_destroy(o->s);
    o->s = NULL;
}

static int list(const char *path)
{
    opened o;
    int rc = open_ckpt(path, &o);
    if (rc)
        return rc;
    const weir__ckpt_meta *m = &o.m;
    printf("%s %s: id %" PRIu64 ", max parallelism %u, %u state files\n", m->is_savepoint ? "savepoint" : "checkpoint",
           o.name, m->id, m->max_parallelism, m->n_files);
    if (!m->has_ops)
        printf("(written by an older weir: no operator ids; it restores by operator position only)\n");
    /* Every subtask file once, decoded. */
    weir__snap_view *views = weir_calloc(m->n_files ? m->n_files : 1, sizeof *views);
    bool *ok = weir_calloc(m->n_files ? m->n_files : 1, sizeof *ok);
    for (uint32_t f = 0; views && ok && f < m->n_files; f++) {
        char p[2200];
        snprintf(p, sizeof p, "%s/%s", o.name, m->files[f].file);
        uint8_t *data;
        size_t len;
        weir_error err;
        if (o.s->ops->get(o.s, p, &data, &len) == 0) {
            ok[f] = weir__snap_view_decode(data, len, &views[f], &err) == 0;
            weir_free(data);
        }
    }
    for (uint32_t i = 0; i < m->n_ops; i++) {
        const weir__ckpt_op *op = &m->ops[i];
        printf("operator id '%s': %s (node %u)\n", op->uid, op->name, op->node);
        for (const char *p = op->fp; p && *p;) {
            const char *nl = strchr(p, '\n');
            int n = nl ? (int)(nl - p) : (int)strlen(p);
            printf("  fingerprint  %.*s\n", n, p);
            p = nl ? nl + 1 : NULL;
        }
        for (uint32_t f = 0; views && ok && f < m->n_files; f++) {
            if (!ok[f])
                continue;
            for (uint32_t k = 0; k < views[f].n_ops; k++) {
                const weir__snap_op_view *v = &views[f].ops[k];
                if (v->node != op->node)
                    continue;
                printf("  subtask %u/%u: operator state %zu bytes", m->files[f].subtask, m->files[f].parallelism,
                       v->op_state_bytes);
                uint32_t first, last;
                weir__snap_op_view_span(&views[f], v, m->max_parallelism, &first, &last);
                if (v->n_kg)
                    printf(", key groups [%u, %u] (%u with state): keyed state %" PRIu64 " bytes, timers %" PRIu64
                           " bytes",
                           first, last, v->n_kg_used, v->state_bytes, v->timer_bytes);
                printf("\n");
            }
            if (views[f].has_source && views[f].source_node == op->node)
                printf("  subtask %u/%u: %u source split%s\n", m->files[f].subtask, m->files[f].parallelism,
                       views[f].n_splits, views[f].n_splits == 1 ? "" : "s");
        }
    }
    if (m->has_ops && !m->n_ops)
        printf("(no stateful operators)\n");
    for (uint32_t f = 0; views && ok && f < m->n_files; f++)
        if (ok[f])
            weir__snap_view_fini(&views[f]);
    weir_free(views);
    weir_free(ok);
    close_ckpt(&o);
    return WEIR_EXIT_OK;
}

static int find_op(const weir__ckpt_meta *m, const char *uid)
{
    for (uint32_t i = 0; i < m->n_ops; i++)
        if (!strcmp(m->ops[i].uid, uid))
            return (int)i;
    return -1;
}

static void say_ids(const weir__ckpt_meta *m)
{
    fprintf(stderr, "  its operator ids:");
    for (uint32_t i = 0; i < m->n_ops; i++)
        fprintf(stderr, "%s '%s'", i ? "," : "", m->ops[i].uid);
    fprintf(stderr, "%s\n", m->n_ops ? "" : " none");
}

/* Copies o's state files to out_path and writes o.m (changed) as its _metadata. */
static int write_copy(opened *o, const char *out_path)
{
    struct stat st;
    if (stat(out_path, &st) == 0) {
        fprintf(stderr, "weir savepoint-tool: %s exists already (the result goes to a new folder)\n", out_path);
        return WEIR_EXIT_IO;
    }
    if (o->m.n_shared) {
        fprintf(stderr,
                "weir savepoint-tool: %s is an incremental checkpoint (its state lives partly in shared/ next to "
                "it): take a savepoint of the job and rewrite that\n",
                o->name);
        return WEIR_EXIT_IO;
    }
    char dir[4096], name[1024];
    split_path(out_path, dir, sizeof dir, name, sizeof name);
    if (mkdir(out_path, 0755) != 0) {
        fprintf(stderr, "weir savepoint-tool: %s: %s\n", out_path, strerror(errno));
        return WEIR_EXIT_IO;
    }
    weir__storage *out;
    int rc = weir__storage_local_create(dir, &out);
    if (rc) {
        fprintf(stderr, "weir savepoint-tool: %s: %s\n", dir, weir_strerror(rc));
        return WEIR_EXIT_IO;
    }
    for (uint32_t f = 0; f < o->m.n_files && !rc; f++) {
        char from[2200], to[2200];
        snprintf(from, sizeof from, "%s/%s", o->name, o->m.files[f].file);
        snprintf(to, sizeof to, "%s/%s", name, o->m.files[f].file);
        uint8_t *data;
        size_t len;
        if ((rc = o->s->ops->get(o->s, from, &data, &len))) {
            fprintf(stderr, "weir savepoint-tool: %s/%s: cannot read: %s\n", o->name, o->m.files[f].file,
                    weir_strerror(rc));
            break;
        }
        if ((rc = out->ops->put(out, to, data, len)))
            fprintf(stderr, "weir savepoint-tool: %s: cannot write: %s\n", to, weir_strerror(rc));
        weir_free(data);
    }
    weir_buf b;
    weir_buf_init(&b);
    if (!rc && (rc = weir__ckpt_meta_encode(&o->m, &b)) == 0) {
        char to[2200];
        snprintf(to, sizeof to, "%s/_metadata", name);
        if ((rc = out->ops->put(out, to, b.data, b.len)))
            fprintf(stderr, "weir savepoint-tool: %s: cannot write: %s\n", to, weir_strerror(rc));
    }
    weir_buf_fini(&b);
    weir__storage_destroy(out);
    return rc ? WEIR_EXIT_IO : WEIR_EXIT_OK;
}

/* argv: PATH ID [NEW_ID] --out NEW_PATH (in any order after the command). */
static int rewrite(const char *cmd, int argc, char **argv, bool rename)
{
    const char *pos[3] = {NULL, NULL, NULL}, *out = NULL;
    int n_pos = 0, want = rename ? 3 : 2;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--out")) {
            if (++i >= argc) {
                fprintf(stderr, "weir savepoint-tool %s: --out needs a path\n", cmd);
                return WEIR_EXIT_USAGE;
            }
            out = argv[i];
        } else if (n_pos < want) {
            pos[n_pos++] = argv[i];
        } else {
            fprintf(stderr, "weir savepoint-tool %s: unexpected argument '%s'\n%s", cmd, argv[i], USAGE);
            return WEIR_EXIT_USAGE;
        }
    }
    if (n_pos != want || !out) {
        fprintf(stderr, "weir savepoint-tool %s: %s\n%s", cmd,
                !out && n_pos == want ? "--out NEW_PATH is required" : "missing arguments", USAGE);
        return WEIR_EXIT_USAGE;
    }
    opened o;
    int rc = open_ckpt(pos[0], &o);
    if (rc)
        return rc;
    if (!o.m.has_ops) {
        fprintf(stderr, "weir savepoint-tool: %s was written by an older weir, without operator ids\n", pos[0]);
        close_ckpt(&o);
        return WEIR_EXIT_FAILED;
    }
    int i = find_op(&o.m, pos[1]);
    if (i < 0) {
        fprintf(stderr, "weir savepoint-tool: %s has no operator with id '%s'\n", pos[0], pos[1]);
        say_ids(&o.m);
        close_ckpt(&o);
        return WEIR_EXIT_FAILED;
    }
    if (rename) {
        if (find_op(&o.m, pos[2]) >= 0) {
            fprintf(stderr, "weir savepoint-tool: %s has an operator with id '%s' already\n", pos[0], pos[2]);
            close_ckpt(&o);
            return WEIR_EXIT_FAILED;
        }
        char *u = weir_strdup(pos[2]);
        if (!u) {
            close_ckpt(&o);
            return WEIR_EXIT_FAILED;
        }
        weir_free(o.m.ops[i].uid);
        o.m.ops[i].uid = u;
    } else {
        /* Removed from the list: its state stays in the files, claimed by no operator. */
        weir__ckpt_op gone = o.m.ops[i];
        memmove(&o.m.ops[i], &o.m.ops[i + 1], (o.m.n_ops - (uint32_t)i - 1) * sizeof *o.m.ops);
        o.m.n_ops--;
        weir_free(gone.uid);
        weir_free(gone.name);
        weir_free(gone.fp);
    }
    rc = write_copy(&o, out);
    if (!rc)
        printf("%s\n", out);
    close_ckpt(&o);
    return rc;
}

int weir_cli_savepoint_tool(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        fputs(USAGE, argc < 2 ? stderr : stdout);
        return argc < 2 ? WEIR_EXIT_USAGE : WEIR_EXIT_OK;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "list")) {
        if (argc != 3) {
            fprintf(stderr, "usage: weir savepoint-tool list PATH\n");
            return WEIR_EXIT_USAGE;
        }
        return list(argv[2]);
    }
    if (!strcmp(cmd, "drop"))
        return rewrite(cmd, argc, argv, false);
    if (!strcmp(cmd, "rename"))
        return rewrite(cmd, argc, argv, true);
    fprintf(stderr, "weir savepoint-tool: unknown command '%s' (list, drop or rename)\n", cmd);
    return WEIR_EXIT_USAGE;
}
