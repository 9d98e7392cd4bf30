/*
 * tests/test_checkpoint_symlinks.c - deleting never follows a symbolic link
 * out of weir's folders.
 *
 * Links named like what weir deletes (a checkpoint folder "chk-1", the
 * shared folder of incremental checkpoints, a RocksDB working folder
 * "op3-0", its native snapshot "op3-0.snap-1", a restore folder
 * "restore-1") point at folders holding canary files, some named like
 * RocksDB's own files. Then `weir run` runs a job with checkpoints
 * (retention 1, so older folders are pruned) with --fresh and again
 * resuming, on the heap backend and on RocksDB with incremental
 * checkpoints; every canary must still be there.
 */
#include <criterion/criterion.h>
#include <unistd.h>

#include "checkpoint/storage.h"
#include "ckpt_job.h"
#include "util/io.h"

static char g_dir[256];

static void setup(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/weir-symlinks-XXXXXX");
    cr_assert_not_null(mkdtemp(g_dir));
}

static void teardown(void)
{
    if (!getenv("WEIR_SYMLINKS_KEEP"))
        cj_rmtree(g_dir);
}

TestSuite(checkpoint_symlinks, .init = setup, .fini = teardown, .timeout = 300);

static const char *const CANARIES[] = {"canary.txt", "CURRENT",
                                       "000042.sst", "LOG",
                                       "_metadata",  "sub/canary.txt"};
#define N_CANARIES (sizeof CANARIES / sizeof *CANARIES)

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fputs(text, f);
    fclose(f);
}

/* A folder outside weir's folders, full of canaries. */
static void make_victim(const char *victim)
{
    char p[600];
    cr_assert_eq(mkdir(victim, 0755), 0, "%s", victim);
    snprintf(p, sizeof p, "%s/sub", victim);
    cr_assert_eq(mkdir(p, 0755), 0);
    for (size_t i = 0; i < N_CANARIES; i++) {
        snprintf(p, sizeof p, "%s/%s", victim, CANARIES[i]);
        write_file(p, "do not delete\n");
    }
}

static void check_victim(const char *victim, const char *when)
{
    char p[600];
    struct stat st;
    for (size_t i = 0; i < N_CANARIES; i++) {
        snprintf(p, sizeof p, "%s/%s", victim, CANARIES[i]);
        cr_assert_eq(stat(p, &st), 0, "%s: %s was deleted through a link", when,
                     p);
    }
}

static void link_to(const char *victim, const char *dir, const char *name)
{
    char p[600];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    cr_assert_eq(symlink(victim, p), 0, "%s", p);
}

/* ---- the deleting helpers ---- */

Test(checkpoint_symlinks, remove_tree_removes_links_not_their_targets)
{
    char victim[300], tree[300], p[600];
    snprintf(victim, sizeof victim, "%s/victim", g_dir);
    snprintf(tree, sizeof tree, "%s/tree", g_dir);
    make_victim(victim);
    cr_assert_eq(mkdir(tree, 0755), 0);
    snprintf(p, sizeof p, "%s/nested", tree);
    cr_assert_eq(mkdir(p, 0755), 0);
    link_to(victim, tree, "link");
    link_to(victim, p, "deeper");
    snprintf(p, sizeof p, "%s/own.txt", tree);
    write_file(p, "mine\n");

    /* A link at the top: only the link goes. */
    char top[300];
    snprintf(top, sizeof top, "%s/top", g_dir);
    cr_assert_eq(symlink(victim, top), 0);
    cr_assert_eq(weir__io_remove_tree(top), 0);
    struct stat st;
    cr_assert_neq(lstat(top, &st), 0, "the link itself is removed");
    check_victim(victim, "remove_tree(link)");

    /* Links inside: the tree goes, the targets stay. */
    cr_assert_eq(weir__io_remove_tree(tree), 0);
    cr_assert_neq(lstat(tree, &st), 0, "the tree is removed");
    check_victim(victim, "remove_tree(tree with links)");
    cr_assert_eq(weir__io_remove_tree(tree), WEIR_ENOTFOUND);
}

Test(checkpoint_symlinks, storage_never_reaches_through_a_link)
{
    char victim[300], root[300], p[600];
    snprintf(victim, sizeof victim, "%s/victim", g_dir);
    snprintf(root, sizeof root, "%s/ckpt", g_dir);
    make_victim(victim);
    weir__storage *s;
    cr_assert_eq(weir__storage_local_create(root, &s), 0);
    link_to(victim, root, "chk-1");
    link_to(victim, root, "shared");

    char **names;
    size_t n;
    cr_assert_eq(s->ops->list(s, "shared", &names, &n), WEIR_EINVAL,
                 "a linked folder is not listed");
    cr_assert_eq(s->ops->remove(s, "shared/canary.txt"), WEIR_EINVAL);
    cr_assert_eq(s->ops->sweep(s, "shared"), WEIR_EINVAL);
    cr_assert_eq(s->ops->put(s, "shared/x", "x", 1), WEIR_EINVAL);
    uint8_t *data;
    size_t len;
    cr_assert_eq(s->ops->get(s, "chk-1/_metadata", &data, &len),
                 WEIR_ENOTFOUND);
    check_victim(victim, "storage calls through links");
    snprintf(p, sizeof p, "%s/x", victim);
    struct stat st;
    cr_assert_neq(stat(p, &st), 0, "nothing was written through the link");

    /* Removing a link named like a checkpoint removes the link. */
    cr_assert_eq(s->ops->remove(s, "chk-1"), 0);
    snprintf(p, sizeof p, "%s/chk-1", root);
    cr_assert_neq(lstat(p, &st), 0);
    check_victim(victim, "remove(chk-1)");

    /* The root itself may be a link: the user chose that folder. */
    char alias[300];
    snprintf(alias, sizeof alias, "%s/alias", g_dir);
    cr_assert_eq(symlink(root, alias), 0);
    weir__storage *s2;
    cr_assert_eq(weir__storage_local_create(alias, &s2), 0);
    cr_assert_eq(s2->ops->put(s2, "chk-2/_metadata", "m", 1), 0);
    cr_assert_eq(s2->ops->remove(s2, "chk-2"), 0);
    weir__storage_destroy(s2);
    weir__storage_destroy(s);
}

/* ---- a job, on each backend, with --fresh and resuming ---- */

static void run_job_with_links(const char *backend, bool incremental)
{
    char input[300], sql[300], victim[300], ckpt[300], state[300], out[300],
        p[700];
    snprintf(input, sizeof input, "%s/in.csv", g_dir);
    snprintf(sql, sizeof sql, "%s/job.sql", g_dir);
    snprintf(victim, sizeof victim, "%s/victim", g_dir);
    snprintf(ckpt, sizeof ckpt, "%s/ckpt", g_dir);
    snprintf(state, sizeof state, "%s/state", g_dir);
    snprintf(out, sizeof out, "%s/out", g_dir);
    cr_assert_eq(cj_generate(input, 20000, 10, 3), 0);
    make_victim(victim);
    cr_assert_eq(mkdir(ckpt, 0755), 0);
    cr_assert_eq(mkdir(state, 0755), 0);
    /* Named like checkpoints of an earlier run (stale: pruned once this run
     * completes one) and like the shared folder. */
    link_to(victim, ckpt, "chk-1");
    link_to(victim, ckpt, "chk-2");
    link_to(victim, ckpt, "shared");
    /* Named like RocksDB working folders, their native snapshots and
     * restore folders. */
    for (int node = 0; node < 8; node++)
        for (int sub = 0; sub < 2; sub++) {
            char name[64];
            snprintf(name, sizeof name, "op%d-%d", node, sub);
            link_to(victim, state, name);
            snprintf(name, sizeof name, "op%d-%d.snap-3", node, sub);
            link_to(victim, state, name);
        }
    link_to(victim, state, "restore-2");

    char text[2048];
    snprintf(text, sizeof text,
             "CREATE TABLE src (k STRING, v BIGINT, ts_ms BIGINT,\n"
             "  ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),\n"
             "  WATERMARK FOR ts AS ts - INTERVAL '0.3' SECOND)\n"
             "WITH ('connector' = 'filesystem', 'path' = '%s',\n"
             "      'format' = 'csv');\n"
             "CREATE TABLE dst (k STRING, window_start TIMESTAMP(3),\n"
             "  window_end TIMESTAMP(3), cnt BIGINT, total BIGINT)\n"
             "WITH ('connector' = 'filesystem', 'path' = '%s',\n"
             "      'format' = 'csv');\n"
             "INSERT INTO dst\n"
             "SELECT k, window_start, window_end, COUNT(*), SUM(v)\n"
             "FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts),\n"
             "                  INTERVAL '1' SECOND))\n"
             "GROUP BY k, window_start, window_end;\n",
             input, out);
    write_file(sql, text);
    char args[768], log[16384];
    snprintf(args, sizeof args,
             "run %.150s --fresh -D parallelism.default=2 "
             "-D state.checkpoints.dir=%.150s "
             "-D state.checkpoints.num-retained=1 "
             "-D execution.checkpointing.interval=100ms "
             "-D state.backend.type=%s -D weir.state.dir=%.150s "
             "-D state.backend.incremental=%s",
             sql, ckpt, backend, state, incremental ? "true" : "false");
    int rc = cj_run_cli(args, log, sizeof log);
    cr_assert_eq(rc, 0, "weir %s\n%s", args, log);
    check_victim(victim, "weir run --fresh");
    /* The stale links are gone (pruned as links), the checkpoint folder
     * holds this run's checkpoint. */
    struct stat st;
    snprintf(p, sizeof p, "%s/chk-1", ckpt);
    cr_assert_neq(lstat(p, &st), 0, "the stale chk-1 link is pruned\n%s", log);

    /* Resuming from the final checkpoint (restore folders included). */
    snprintf(args, sizeof args,
             "run %.150s -D parallelism.default=2 "
             "-D state.checkpoints.dir=%.150s "
             "-D state.checkpoints.num-retained=1 "
             "-D state.backend.type=%s -D weir.state.dir=%.150s "
             "-D state.backend.incremental=%s",
             sql, ckpt, backend, state, incremental ? "true" : "false");
    rc = cj_run_cli(args, log, sizeof log);
    cr_assert_eq(rc, 0, "weir %s\n%s", args, log);
    cr_assert(strstr(log, "nothing is left to do"), "%s", log);
    check_victim(victim, "weir run (resume)");
}

Test(checkpoint_symlinks, a_job_never_deletes_through_links_memory)
{
    run_job_with_links("memory", false);
}

#ifdef WEIR_HAVE_ROCKSDB
Test(checkpoint_symlinks, a_job_never_deletes_through_links_rocksdb)
{
    run_job_with_links("rocksdb", true);
}
#endif
