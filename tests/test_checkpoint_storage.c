/*
 * tests/test_checkpoint_storage.c - checkpoint files: encoding, checksums,
 * atomic writes under injected faults, fallback to the previous complete
 * checkpoint, listing and pruning.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checkpoint/catalog.h"
#include "util/io.h"

static char g_dir[256];

static void setup(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/weir-ckpt-test-XXXXXX");
    cr_assert_not_null(mkdtemp(g_dir));
}

static void teardown(void)
{
    weir__io_reset();
    weir__io_remove_tree(g_dir);
}

TestSuite(checkpoint_storage, .init = setup, .fini = teardown);

/* Writes a complete checkpoint id with two subtask files (any bytes: storage
 * does not decode them). */
static void write_checkpoint(weir__storage *s, uint64_t id)
{
    weir__ckpt_meta m = {
        .id = id, .time_ms = 1000 * (int64_t)id, .max_parallelism = 128};
    char name[64];
    weir__ckpt_name(id, false, name, sizeof name);
    for (uint32_t sub = 0; sub < 2; sub++) {
        char content[64], file[64], path[128];
        int n = snprintf(content, sizeof content,
                         "state of subtask %u of checkpoint %llu", sub,
                         (unsigned long long)id);
        snprintf(file, sizeof file, "window-1-%u.state", sub);
        snprintf(path, sizeof path, "%s/%s", name, file);
        cr_assert_eq(s->ops->put(s, path, content, (size_t)n), 0);
        cr_assert_eq(weir__ckpt_meta_add(&m, "source -> window", 1, sub, 2,
                                         file, (uint64_t)n,
                                         weir_crc32c(0, content, (size_t)n)),
                     0);
    }
    weir_buf b;
    weir_buf_init(&b);
    cr_assert_eq(weir__ckpt_meta_encode(&m, &b), 0);
    char path[128];
    snprintf(path, sizeof path, "%s/_metadata", name);
    cr_assert_eq(s->ops->put(s, path, b.data, b.len), 0);
    weir_buf_fini(&b);
    weir__ckpt_meta_fini(&m);
}

/* Version 4: the stateful operators with their ids and fingerprints. */
Test(checkpoint_storage, metadata_operators_roundtrip_and_corruption)
{
    weir__ckpt_meta m = {.id = 9, .max_parallelism = 128};
    cr_assert_eq(weir__ckpt_meta_add(&m, "window", 1, 0, 1, "t1-s0.snap", 5,
                                     0x1234),
                 0);
    cr_assert_eq(weir__ckpt_meta_add_op(&m, 2, "tumbling window[0]",
                                        "tumbling window",
                                        "key: (STRING)\nsize: 60000 ms\n"),
                 0);
    cr_assert_eq(weir__ckpt_meta_add_op(&m, 0, "filesystem[0]", "filesystem",
                                        "path: in.csv\n"),
                 0);
    weir_buf b;
    weir_buf_init(&b);
    cr_assert_eq(weir__ckpt_meta_encode(&m, &b), 0);
    weir__ckpt_meta u;
    weir_error e;
    cr_assert_eq(weir__ckpt_meta_decode(b.data, b.len, &u, &e), 0, "%s",
                 e.message);
    cr_assert(u.has_ops);
    cr_assert_eq(u.n_ops, 2);
    cr_assert_eq(u.n_shared, 0);
    cr_assert_eq(u.ops[0].node, 2);
    cr_assert_str_eq(u.ops[0].uid, "tumbling window[0]");
    cr_assert_str_eq(u.ops[0].name, "tumbling window");
    cr_assert_str_eq(u.ops[0].fp, "key: (STRING)\nsize: 60000 ms\n");
    cr_assert_str_eq(u.ops[1].uid, "filesystem[0]");
    weir__ckpt_meta_fini(&u);
    for (size_t i = 0; i < b.len; i++) {
        b.data[i] ^= 0x40;
        cr_assert_neq(weir__ckpt_meta_decode(b.data, b.len, &u, &e), 0,
                      "flip at %zu", i);
        b.data[i] ^= 0x40;
    }
    for (size_t n = 0; n < b.len; n++)
        cr_assert_neq(weir__ckpt_meta_decode(b.data, n, &u, &e), 0,
                      "truncated to %zu", n);
    weir_buf_fini(&b);
    /* Without operators: version 2, read back with has_ops false. */
    weir__ckpt_meta old = {.id = 3, .max_parallelism = 128};
    weir_buf_init(&b);
    cr_assert_eq(weir__ckpt_meta_encode(&old, &b), 0);
    cr_assert_eq(weir__ckpt_meta_decode(b.data, b.len, &u, &e), 0);
    cr_assert_not(u.has_ops);
    weir__ckpt_meta_fini(&u);
    weir_buf_fini(&b);
    weir__ckpt_meta_fini(&m);
}

Test(checkpoint_storage, metadata_roundtrip_and_corruption)
{
    weir__ckpt_meta m = {.id = 7,
                         .time_ms = 1234,
                         .duration_ms = 56,
                         .is_final = true,
                         .max_parallelism = 64};
    cr_assert_eq(weir__ckpt_meta_add(&m, "source -> map", 0, 1, 2, "t0-s1.snap",
                                     99, 0xdeadbeef),
                 0);
    weir_buf b;
    weir_buf_init(&b);
    cr_assert_eq(weir__ckpt_meta_encode(&m, &b), 0);
    weir__ckpt_meta u;
    weir_error e;
    cr_assert_eq(weir__ckpt_meta_decode(b.data, b.len, &u, &e), 0);
    cr_assert_eq(u.id, 7);
    cr_assert_eq(u.duration_ms, 56);
    cr_assert(u.is_final);
    cr_assert_not(u.is_savepoint);
    cr_assert_eq(u.max_parallelism, 64);
    cr_assert_eq(u.n_files, 1);
    cr_assert_str_eq(u.files[0].task, "source -> map");
    cr_assert_str_eq(u.files[0].file, "t0-s1.snap");
    cr_assert_eq(u.files[0].crc, 0xdeadbeef);
    weir__ckpt_meta_fini(&u);
    /* every single-byte flip and every truncation is detected */
    for (size_t i = 0; i < b.len; i++) {
        b.data[i] ^= 0x40;
        cr_assert_neq(weir__ckpt_meta_decode(b.data, b.len, &u, &e), 0,
                      "flip at %zu", i);
        b.data[i] ^= 0x40;
    }
    for (size_t n = 0; n < b.len; n++)
        cr_assert_neq(weir__ckpt_meta_decode(b.data, n, &u, &e), 0,
                      "truncated to %zu", n);
    weir_buf_fini(&b);
    weir__ckpt_meta_fini(&m);
}

Test(checkpoint_storage, latest_falls_back_past_corrupt_and_incomplete)
{
    weir__storage *s;
    cr_assert_eq(weir__storage_local_create(g_dir, &s), 0);
    write_checkpoint(s, 1);
    write_checkpoint(s, 2);
    write_checkpoint(s, 3);
    /* chk-3: flip a byte of a state file; chk-4: never completed */
    char path[512];
    snprintf(path, sizeof path, "%s/chk-3/window-1-1.state", g_dir);
    FILE *f = fopen(path, "r+b");
    cr_assert_not_null(f);
    fseek(f, 5, SEEK_SET);
    int c = fgetc(f);
    fseek(f, 5, SEEK_SET);
    fputc(c ^ 1, f);
    fclose(f);
    cr_assert_eq(s->ops->put(s, "chk-4/window-1-0.state", "x", 1), 0);

    weir__ckpt_meta m;
    char name[64];
    weir_buf notes;
    weir_buf_init(&notes);
    cr_assert_eq(weir__ckpt_latest(s, &m, name, sizeof name, &notes), 0);
    cr_assert_str_eq(name, "chk-2");
    cr_assert_eq(m.id, 2);
    weir_buf_put_u8(&notes, 0);
    cr_assert(strstr((char *)notes.data, "skipping chk-3"), "%s",
              (char *)notes.data);
    cr_assert(strstr((char *)notes.data, "window-1-1.state"), "%s",
              (char *)notes.data);
    weir__ckpt_meta_fini(&m);
    weir_buf_fini(&notes);

    weir__ckpt_info *infos;
    size_t n;
    cr_assert_eq(weir__ckpt_list(s, &infos, &n), 0);
    cr_assert_eq(n, 4);
    cr_assert_eq(infos[0].status, WEIR_CKPT_COMPLETE);
    cr_assert_eq(infos[2].status, WEIR_CKPT_CORRUPT);
    cr_assert_eq(infos[3].status, WEIR_CKPT_INCOMPLETE);
    weir_free(infos);

    /* retain 1: chk-1 goes; the newest complete (chk-2) stays; so do newer
     * failed attempts */
    cr_assert_eq(weir__ckpt_prune(s, 1), 0);
    cr_assert_eq(weir__ckpt_list(s, &infos, &n), 0);
    cr_assert_eq(n, 3);
    cr_assert_str_eq(infos[0].name, "chk-2");
    weir_free(infos);
    weir__storage_destroy(s);
}

static int g_writes_left;
static ssize_t enospc_write(int fd, const void *p, size_t n)
{
    if (g_writes_left-- <= 0)
        return -ENOSPC;
    /* a short write: half of what was asked */
    size_t half = n > 1 ? n / 2 : n;
    ssize_t w = write(fd, p, half);
    return w < 0 ? -errno : w;
}

Test(checkpoint_storage, enospc_and_short_writes_leave_nothing_behind)
{
    weir__storage *s;
    cr_assert_eq(weir__storage_local_create(g_dir, &s), 0);
    char big[10000];
    memset(big, 'z', sizeof big);
    /* short writes alone still complete the file */
    g_writes_left = 1000;
    weir__io_ops.write = enospc_write;
    cr_assert_eq(s->ops->put(s, "a/file", big, sizeof big), 0);
    /* ENOSPC mid-file fails cleanly, the old content stays */
    g_writes_left = 3; /* 3 bytes in three short writes */
    cr_assert_eq(s->ops->put(s, "a/file", "new", 3), 0);
    g_writes_left = 2;
    cr_assert_eq(s->ops->put(s, "a/file", big, sizeof big), WEIR_ENOSPC);
    weir__io_reset();
    uint8_t *data;
    size_t len;
    cr_assert_eq(s->ops->get(s, "a/file", &data, &len), 0);
    cr_assert_eq(len, 3);
    cr_assert_eq(memcmp(data, "new", 3), 0);
    weir_free(data);
    char **names;
    size_t n;
    cr_assert_eq(s->ops->list(s, "a", &names, &n), 0);
    cr_assert_eq(n, 1, "temporary file left behind");
    weir__storage_free_names(names, n);
    weir__storage_destroy(s);
}
