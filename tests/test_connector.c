/*
 * tests/test_connector.c - file source, datagen, print / file / blackhole
 * sinks and their WITH options, driven through their class functions.
 * Randomised tests print their seed and take WEIR_TEST_SEED.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "connector/connector_internal.h"
#include "connector/file/fileio.h"
#include "support/crashclose.h"
#include "support/partname.h"
#include "time/timefmt.h"
#include "weir/connector.h"
#include "weir/expr.h"

/* ---- helpers ---- */

static char tmp_root[256];

static void make_tmp(void)
{
    snprintf(tmp_root, sizeof tmp_root, "/tmp/weir-conn-XXXXXX");
    cr_assert_not_null(mkdtemp(tmp_root));
}

static void rm_rf(const char *path)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    cr_assert_eq(system(cmd), 0);
}

static void cleanup_tmp(void)
{
    rm_rf(tmp_root);
}

static char *tpath(const char *rel)
{
    static char bufs[8][512];
    static int next;
    char *b = bufs[next++ % 8];
    snprintf(b, 512, "%s/%s", tmp_root, rel);
    return b;
}

static void write_file(const char *path, const char *content)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "%s", path);
    fwrite(content, 1, strlen(content), f);
    fclose(f);
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    return s;
}

/* Names in a directory, sorted, joined by ' '. */
static char *list_dir(const char *path)
{
    static char out[4096];
    char *names[256];
    int n = 0;
    DIR *d = opendir(path);
    cr_assert_not_null(d, "%s", path);
    struct dirent *e;
    while ((e = readdir(d)) && n < 256)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
            strcmp(e->d_name, ".weir.lock")) /* an open sink's folder lock */
            names[n++] = pn_short(strdup(e->d_name));
    closedir(d);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (strcmp(names[j], names[i]) < 0) {
                char *t = names[i];
                names[i] = names[j];
                names[j] = t;
            }
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (i)
            strcat(out, " ");
        strcat(out, names[i]);
        free(names[i]);
    }
    return out;
}

static weir_schema *kv_schema(void)
{
    weir_schema *s = weir_schema_create();
    weir_schema_add(s, "k", weir_type_make(WEIR_TYPE_BIGINT, false));
    weir_schema_add(s, "v", weir_type_make(WEIR_TYPE_STRING, true));
    return s;
}

/* A source instance for subtask/parallelism. */
typedef struct src_handle {
    weir_source_spec spec;
    void *src;
    weir_error err;
} src_handle;

static void src_open(src_handle *h, uint32_t subtask, uint32_t parallelism)
{
    weir_source_info info = {.subtask = subtask, .parallelism = parallelism, .batch_size = 64, .schema = h->spec.schema};
    cr_assert_eq(h->spec.cls->create(h->spec.arg, &info, &h->src, &h->err), 0,
                 "%s", h->err.message);
}

static void src_close(src_handle *h)
{
    h->spec.cls->destroy(h->src);
    weir_source_spec_release(&h->spec);
}

/* Reads a split to the end (or to the first error), formatting rows as "k:v"
 * lines. */
static int read_split(src_handle *h, const char *id, const void *pos,
                      size_t pos_len, uint32_t batch_rows,
                      uint32_t max_rows_total, char *out, size_t cap,
                      weir_buf *pos_out)
{
    void *rd;
    int rc = h->spec.cls->open_split(h->src, id, pos, pos_len, &rd, &h->err);
    if (rc)
        return rc;
    weir_batch *b = weir_batch_create(h->spec.schema, batch_rows);
    uint32_t total = 0;
    rc = 0;
    for (;;) {
        weir_batch_reset(b);
        uint32_t want = batch_rows;
        if (max_rows_total && max_rows_total - total < want)
            want = max_rows_total - total;
        if (want == 0) {
            rc = 0;
            break;
        }
        rc = h->spec.cls->read(rd, b, want, &h->err);
        if (rc < 0)
            break;
        cr_assert_gt(rc, 0, "a bounded file split never returns 0");
        total += (uint32_t)rc;
        for (uint32_t r = 0; r < b->n_rows; r++) {
            char v[128];
            weir_batch_format_value(b, 1, r, v, sizeof v);
            size_t len = strlen(out);
            snprintf(out + len, cap - len, "%lld:%s\n",
                     (long long)WEIR_COL_I64(b, 0)[r], v);
        }
    }
    if (pos_out)
        h->spec.cls->position(rd, pos_out);
    h->spec.cls->close_split(rd);
    weir_batch_destroy(b);
    return rc == WEIR_EOF ? 0 : rc;
}

static uint32_t discover_all(src_handle *h, const char **ids, uint32_t cap)
{
    const char **got;
    uint32_t n;
    bool done;
    cr_assert_eq(h->spec.cls->discover(h->src, &got, &n, &done, &h->err), 0,
                 "%s", h->err.message);
    cr_assert(n <= cap);
    for (uint32_t i = 0; i < n; i++)
        ids[i] = got[i];
    return n;
}

static void file_source(src_handle *h, weir_file_source_config *cfg,
                        weir_schema *s)
{
    memset(h, 0, sizeof *h);
    cr_assert_eq(weir_file_source_spec(cfg, s, &h->spec, &h->err), 0, "%s",
                 h->err.message);
}

/* ---- file source ---- */

Test(file_source, directory_sorted_hidden_ignored_and_assigned_round_robin,
     .init = make_tmp, .fini = cleanup_tmp)
{
    mkdir(tpath("in"), 0777);
    mkdir(tpath("in/sub"), 0777);
    write_file(tpath("in/b.json"), "{\"k\": 2, \"v\": \"b\"}\n");
    write_file(tpath("in/a.json"), "{\"k\": 1, \"v\": \"a\"}\n{\"k\": 11}\n");
    write_file(tpath("in/sub/c.json"), "{\"k\": 3, \"v\": \"c\"}");
    write_file(tpath("in/.hidden.json"), "garbage\n");
    write_file(tpath("in/_SUCCESS"), "garbage\n");
    weir_schema *s = kv_schema();
    weir_file_source_config cfg;
    weir_file_source_config_init(&cfg);
    cfg.path = tpath("in/"); /* a trailing slash is fine */
    src_handle h;
    file_source(&h, &cfg, s);
    src_open(&h, 0, 1);
    const char *ids[8];
    cr_assert_eq(discover_all(&h, ids, 8), 3);
    cr_assert_str_eq(ids[0], tpath("in/a.json"));
    cr_assert_str_eq(ids[1], tpath("in/b.json"));
    cr_assert_str_eq(ids[2], tpath("in/sub/c.json"));
    char out[1024] = "";
    for (int i = 0; i < 3; i++)
        cr_assert_eq(
            read_split(&h, ids[i], NULL, 0, 4, 0, out, sizeof out, NULL), 0,
            "%s", h.err.message);
    cr_assert_str_eq(out, "1:a\n11:NULL\n2:b\n3:c\n");
    const char **more;
    uint32_t n;
    bool done;
    cr_assert_eq(h.spec.cls->discover(h.src, &more, &n, &done, &h.err), 0);
    cr_assert_eq(n, 0);
    cr_assert(done);
    h.spec.cls->destroy(h.src);

    /* parallelism 2: split i goes to subtask i % 2 */
    src_open(&h, 1, 2);
    cr_assert_eq(discover_all(&h, ids, 8), 1);
    cr_assert_str_eq(ids[0], tpath("in/b.json"));
    src_close(&h);
    weir_schema_destroy(s);
}

Test(file_source, resume_at_position_equals_reading_everything,
     .init = make_tmp, .fini = cleanup_tmp)
{
    char content[8192] = "";
    for (int i = 0; i < 100; i++) {
        char line[64];
        snprintf(line, sizeof line,
                 i % 10 == 3 ? "\n" : "{\"k\": %d, \"v\": \"r%d\"}\r\n", i, i);
        strcat(content, line);
    }
    write_file(tpath("f.json"), content);
    weir_schema *s = kv_schema();
    weir_file_source_config cfg;
    weir_file_source_config_init(&cfg);
    cfg.path = tpath("f.json");
    cfg.read_buffer_bytes = 64; /* force refills and buffer growth */
    src_handle h;
    file_source(&h, &cfg, s);
    src_open(&h, 0, 1);
    const char *ids[1];
    cr_assert_eq(discover_all(&h, ids, 1), 1);
    static char all[16384], parts[16384];
    all[0] = parts[0] = '\0';
    cr_assert_eq(read_split(&h, ids[0], NULL, 0, 7, 0, all, sizeof all, NULL),
                 0);
    for (uint32_t cut = 0; cut <= 90; cut += 9) {
        parts[0] = '\0';
        weir_buf pos;
        weir_buf_init(&pos);
        cr_assert_eq(
            read_split(&h, ids[0], NULL, 0, 5, cut, parts, sizeof parts, &pos),
            0);
        cr_assert_eq(read_split(&h, ids[0], pos.data, pos.len, 3, 0, parts,
                                sizeof parts, NULL),
                     0);
        cr_assert_str_eq(parts, all, "cut after %u rows", cut);
        weir_buf_fini(&pos);
    }
    src_close(&h);
    weir_schema_destroy(s);
}

/* Reads up to want rows of an open split into out ("k:v" lines); returns
 * the read's result. */
static int read_rows(src_handle *h, void *rd, uint32_t want, char *out,
                     size_t cap)
{
    weir_batch *b = weir_batch_create(h->spec.schema, want);
    int rc = h->spec.cls->read(rd, b, want, &h->err);
    for (uint32_t r = 0; r < b->n_rows; r++) {
        char v[128];
        weir_batch_format_value(b, 1, r, v, sizeof v);
        size_t len = strlen(out);
        snprintf(out + len, cap - len, "%lld:%s\n",
                 (long long)WEIR_COL_I64(b, 0)[r], v);
    }
    weir_batch_destroy(b);
    return rc;
}

Test(file_source, a_file_that_shrinks_fails_one_that_grows_is_read_as_opened,
     .init = make_tmp, .fini = cleanup_tmp)
{
    /* 100 rows of 20 bytes: {"k":NN,"v":"rNNN"}\n */
    char content[4096] = "";
    for (int i = 0; i < 100; i++) {
        char line[64];
        snprintf(line, sizeof line, "{\"k\":%d,\"v\":\"r%03d\"}\n",
                 i % 90 + 10, i);
        strcat(content, line);
    }
    write_file(tpath("f.json"), content);
    weir_schema *s = kv_schema();
    weir_file_source_config cfg;
    weir_file_source_config_init(&cfg);
    cfg.path = tpath("f.json");
    cfg.read_buffer_bytes = 64;
    src_handle h;
    file_source(&h, &cfg, s);
    src_open(&h, 0, 1);
    const char *ids[1];
    cr_assert_eq(discover_all(&h, ids, 1), 1);
    static char got[16384];

    /* Truncated to 30 % while read: an error naming the file and both
     * sizes, not an early end of input. */
    void *rd;
    cr_assert_eq(h.spec.cls->open_split(h.src, ids[0], NULL, 0, &rd, &h.err),
                 0);
    got[0] = '\0';
    cr_assert_eq(read_rows(&h, rd, 10, got, sizeof got), 10);
    cr_assert_eq(truncate(tpath("f.json"), 600), 0);
    int rc;
    uint32_t rows = 10;
    while ((rc = read_rows(&h, rd, 10, got, sizeof got)) > 0)
        rows += (uint32_t)rc;
    cr_assert_eq(rc, WEIR_ECORRUPT, "rc %d after %u rows", rc, rows);
    cr_assert_eq(rows, 30);
    char want[1024];
    snprintf(want, sizeof want,
             "%s: error: the file shrank while it was read: 2000 bytes when "
             "opened, 600 bytes now (read up to offset 600); a file must not "
             "be truncated or rewritten while a job reads it",
             tpath("f.json"));
    cr_assert_str_eq(h.err.message, want);
    h.spec.cls->close_split(rd);

    /* Reopened at a position past the end (truncated since the
     * checkpoint). */
    weir_buf pos;
    weir_buf_init(&pos);
    weir_buf_put_u64(&pos, 1000);
    cr_assert_eq(h.spec.cls->open_split(h.src, ids[0], pos.data, pos.len, &rd,
                                        &h.err),
                 WEIR_ECORRUPT);
    snprintf(want, sizeof want,
             "%s: error: the file is shorter than the position to resume at: "
             "600 bytes, position 1000 (truncated or replaced since the "
             "checkpoint?)",
             tpath("f.json"));
    cr_assert_str_eq(h.err.message, want);
    weir_buf_fini(&pos);

    /* Appended to while read: read to the size it had when opened. */
    write_file(tpath("f.json"), content);
    cr_assert_eq(h.spec.cls->open_split(h.src, ids[0], NULL, 0, &rd, &h.err),
                 0);
    got[0] = '\0';
    cr_assert_eq(read_rows(&h, rd, 10, got, sizeof got), 10);
    FILE *f = fopen(tpath("f.json"), "a");
    fputs("{\"k\":1,\"v\":\"late\"}\n", f);
    fclose(f);
    rows = 10;
    while ((rc = read_rows(&h, rd, 10, got, sizeof got)) > 0)
        rows += (uint32_t)rc;
    cr_assert_eq(rc, WEIR_EOF);
    cr_assert_eq(rows, 100);
    cr_assert_null(strstr(got, "late"));
    h.spec.cls->close_split(rd);

    /* Replaced (renamed over) while read: the open file is read to its end. */
    write_file(tpath("f.json"), content);
    cr_assert_eq(h.spec.cls->open_split(h.src, ids[0], NULL, 0, &rd, &h.err),
                 0);
    got[0] = '\0';
    cr_assert_eq(read_rows(&h, rd, 10, got, sizeof got), 10);
    write_file(tpath("g.json"), "{\"k\":1,\"v\":\"new\"}\n");
    cr_assert_eq(rename(tpath("g.json"), tpath("f.json")), 0);
    rows = 10;
    while ((rc = read_rows(&h, rd, 10, got, sizeof got)) > 0)
        rows += (uint32_t)rc;
    cr_assert_eq(rc, WEIR_EOF);
    cr_assert_eq(rows, 100);
    h.spec.cls->close_split(rd);
    src_close(&h);
    weir_schema_destroy(s);
}

Test(file_source, byte_ranges_lose_and_duplicate_nothing, .init = make_tmp,
     .fini = cleanup_tmp)
{
    unsigned seed = getenv("WEIR_TEST_SEED")
                        ? (unsigned)atoi(getenv("WEIR_TEST_SEED"))
                        : (unsigned)getpid();
    fprintf(stderr, "byte_ranges seed %u (set WEIR_TEST_SEED to repeat)\n",
            seed);
    srand(seed);
    static char content[65536];
    content[0] = '\0';
    size_t len = 0;
    for (int i = 0; i < 300; i++) {
        int pad = rand() % 40;
        len += (size_t)snprintf(
            content + len, sizeof content - len,
            "{\"k\": %d, \"v\": \"%.*s\"}\n", i, pad,
            "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
    }
    write_file(tpath("big.json"), content);
    weir_schema *s = kv_schema();
    static char all[65536], got[65536];
    all[0] = '\0';
    for (int i = 0; i < 300; i++)
        snprintf(all + strlen(all), sizeof all - strlen(all), "%d:%.*s\n", i, 0,
                 "");
    uint64_t sizes[] = {1,      2, 7, 100, 1000, (uint64_t)rand() % 5000 + 1,
                        1 << 20};
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        weir_file_source_config cfg;
        weir_file_source_config_init(&cfg);
        cfg.path = tpath("big.json");
        cfg.split_size_bytes = sizes[si];
        cfg.read_buffer_bytes = 128;
        src_handle h;
        file_source(&h, &cfg, s);
        got[0] = '\0';
        uint32_t p = 3, total_splits = 0;
        for (uint32_t sub = 0; sub < p; sub++) {
            src_open(&h, sub, p);
            const char **ids;
            uint32_t n;
            bool done;
            cr_assert_eq(h.spec.cls->discover(h.src, &ids, &n, &done, &h.err),
                         0);
            total_splits += n;
            (void)done;
            h.spec.cls->destroy(h.src);
        }
        uint64_t expect_splits = (len + sizes[si] - 1) / sizes[si];
        cr_assert_eq(total_splits, expect_splits, "split size %llu",
                     (unsigned long long)sizes[si]);
        /* Read every range in file order (subtask 0 of 1 owns them all). */
        src_open(&h, 0, 1);
        const char **ids;
        uint32_t n;
        bool done;
        cr_assert_eq(h.spec.cls->discover(h.src, &ids, &n, &done, &h.err), 0);
        char **copy = malloc(n * sizeof *copy);
        for (uint32_t i = 0; i < n; i++)
            copy[i] = strdup(ids[i]);
        for (uint32_t i = 0; i < n; i++) {
            static char part[65536];
            part[0] = '\0';
            cr_assert_eq(read_split(&h, copy[i], NULL, 0, 16, 0, part,
                                    sizeof part, NULL),
                         0, "%s", h.err.message);
            /* keep only the keys */
            for (char *line = strtok(part, "\n"); line;
                 line = strtok(NULL, "\n")) {
                *strchr(line, ':') = '\0';
                snprintf(got + strlen(got), sizeof got - strlen(got), "%s:\n",
                         line);
            }
            free(copy[i]);
        }
        free(copy);
        cr_assert_str_eq(got, all, "split size %llu",
                         (unsigned long long)sizes[si]);
        src_close(&h);
    }
    weir_schema_destroy(s);
}

/*
 * Byte ranges are dealt out in stride (subtask s of p gets ranges s, s + p,
 * ... of the list), and each of a subtask's ranges of one file continues the
 * one before it (the runtime reads them one after the other as one
 * sequence); a bounded ranged source keeps its subtasks in lockstep.
 */
static int n_opens;
static int counting_open(const char *path, int flags, mode_t mode)
{
    n_opens++;
    return open(path, flags, mode);
}

/*
 * A subtask reading its byte ranges one after the other opens each file
 * once: a closed range's reader (descriptor, buffer, decoder) is taken by
 * the next range of the same file, and the rows are those of the file read
 * whole - also for a range resumed at a position, and across files.
 */
Test(file_source, ranges_of_one_file_share_one_reader, .init = make_tmp,
     .fini = cleanup_tmp)
{
    mkdir(tpath("d"), 0777);
    char rows[2][4096];
    for (int f = 0; f < 2; f++) {
        rows[f][0] = '\0';
        for (int i = 0; i < 40; i++) {
            size_t len = strlen(rows[f]);
            snprintf(rows[f] + len, sizeof rows[f] - len,
                     "{\"k\": %d, \"v\": \"%s%d\"}\n", f * 100 + i,
                     i % 3 ? "x" : "longer-", i);
        }
    }
    write_file(tpath("d/a.json"), rows[0]);
    write_file(tpath("d/b.json"), rows[1]);
    weir_schema *s = kv_schema();
    weir_file_source_config cfg;
    weir_file_source_config_init(&cfg);
    cfg.path = tpath("d");
    cfg.split_size_bytes = 97; /* ranges that start and end inside records */
    src_handle h;
    file_source(&h, &cfg, s);
    src_open(&h, 0, 1);
    const char *ids[64];
    uint32_t n = discover_all(&h, ids, 64);
    cr_assert_gt(n, 10u);
    weir__file_io io = weir__fio_posix;
    io.open = counting_open;
    weir__fio = &io;
    n_opens = 0;
    static char got[16384];
    got[0] = '\0';
    for (uint32_t i = 0; i < n; i++) {
        if (i == 3) {
            /* a range resumed at a position: from the second record of
             * the range (the reader kept from range 2 reopens nothing) */
            char skip[4096] = "";
            cr_assert_eq(read_split(&h, ids[i], NULL, 0, 1, 1, skip,
                                    sizeof skip, NULL),
                         0);
            strcat(got, skip);
            weir_buf pos;
            weir_buf_init(&pos);
            char first[4096] = "";
            cr_assert_eq(read_split(&h, ids[i], NULL, 0, 1, 1, first,
                                    sizeof first, &pos),
                         0);
            cr_assert_str_eq(first, skip);
            cr_assert_eq(read_split(&h, ids[i], pos.data, pos.len, 7, 0,
                                    got, sizeof got, NULL),
                         0, "%s", h.err.message);
            weir_buf_fini(&pos);
            continue;
        }
        cr_assert_eq(read_split(&h, ids[i], NULL, 0, 7, 0, got, sizeof got,
                                NULL),
                     0, "%s", h.err.message);
    }
    weir__fio = &weir__fio_posix;
    cr_assert_eq(n_opens, 2, "one open per file, not per range (%u ranges)",
                 n);
    char want[8192] = "";
    for (int f = 0; f < 2; f++)
        for (int i = 0; i < 40; i++) {
            size_t len = strlen(want);
            snprintf(want + len, sizeof want - len, "%d:%s%d\n",
                     f * 100 + i, i % 3 ? "x" : "longer-", i);
        }
    cr_assert_str_eq(got, want);
    src_close(&h);
    weir_schema_destroy(s);
}

static uint64_t n_pread_bytes;

static ssize_t counting_pread(int fd, void *buf, size_t n, off_t off)
{
    ssize_t got = pread(fd, buf, n, off);
    if (got > 0)
        n_pread_bytes += (uint64_t)got;
    return got;
}

/*
 * A range that starts inside the last record of the range before it (a
 * record longer than the ranges) begins where that record ends: the file is
 * read about once, not once more for every range inside the long record
 * (each of which used to scan ahead for the line break that ends it).
 */
Test(file_source, ranges_inside_a_long_record_read_nothing_again, .init = make_tmp,
     .fini = cleanup_tmp)
{
    enum { LONG = 200000 };
    static char text[LONG + 256];
    char *o = text;
    o += sprintf(o, "{\"k\": 1, \"v\": \"a\"}\n{\"k\": 2, \"v\": \"");
    memset(o, 'x', LONG);
    o += LONG;
    o += sprintf(o, "\"}\n{\"k\": 3, \"v\": \"c\"}\n");
    write_file(tpath("long.json"), text);
    weir_schema *s = kv_schema();
    weir_file_source_config cfg;
    weir_file_source_config_init(&cfg);
    cfg.path = tpath("long.json");
    cfg.split_size_bytes = 100; /* about 2000 ranges inside the long record */
    src_handle h;
    file_source(&h, &cfg, s);
    src_open(&h, 0, 1);
    static const char *ids[4096];
    uint32_t n = discover_all(&h, ids, 4096);
    cr_assert_gt(n, 1000u);
    weir__file_io io = weir__fio_posix;
    io.pread = counting_pread;
    weir__fio = &io;
    n_pread_bytes = 0;
    static char got[16384];
    got[0] = '\0';
    for (uint32_t i = 0; i < n; i++)
        cr_assert_eq(read_split(&h, ids[i], NULL, 0, 7, 0, got, sizeof got, NULL), 0, "%s", h.err.message);
    weir__fio = &weir__fio_posix;
    cr_assert_eq(strncmp(got, "1:a\n2:xxx", 9), 0, "%.40s", got);
    cr_assert(strstr(got, "\n3:c\n"), "the record after the long one: %s", got);
    size_t size = strlen(text);
    cr_assert_lt(n_pread_bytes, 2 * (uint64_t)size, "%llu bytes read of a file of %zu",
                 (unsigned long long)n_pread_bytes, size);
    src_close(&h);
    weir_schema_destroy(s);
}

/*
 * Counts, by key, the records of the "k:v" lines of a file's ranges read in
 * the order given (indexes into ids).
 */
static void read_ranges_in_order(src_handle *h, const char **ids,
                                 const uint32_t *order, uint32_t n, int *count,
                                 int n_keys)
{
    static char got[32768];
    got[0] = '\0';
    for (uint32_t i = 0; i < n; i++)
        cr_assert_eq(
            read_split(h, ids[order[i]], NULL, 0, 5, 0, got, sizeof got, NULL),
            0, "%s", h->err.message);
    memset(count, 0, (size_t)n_keys * sizeof *count);
    for (char *line = strtok(got, "\n"); line; line = strtok(NULL, "\n")) {
        long k = strtol(line, NULL, 10);
        cr_assert(k >= 0 && k < n_keys, "unexpected record %s", line);
        count[k]++;
    }
}

/*
 * order[0..n) as the ranges are opened: kind 0 descending, 1 each pair
 * swapped (1, 0, 3, 2, ...), 2 a random permutation.
 */
static void range_order(int kind, uint32_t *order, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        order[i] = kind == 0 ? n - 1 - i : i;
    for (uint32_t i = 0; kind == 1 && i + 1 < n; i += 2) {
        order[i] = i + 1;
        order[i + 1] = i;
    }
    for (uint32_t i = n - 1; kind == 2 && i > 0; i--) {
        uint32_t j = (uint32_t)rand() % (i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}

/*
 * The ranges of one file opened in an order other than the file's (a
 * descending one, one range then the one before it, a random permutation)
 * read every record exactly once: a range begins where the record of the
 * range opened before it ended only when it starts at or after that
 * range's end; before it, it finds its first record as any range does.
 */
Test(file_source, ranges_opened_out_of_order_read_each_record_once,
     .init = make_tmp, .fini = cleanup_tmp)
{
    unsigned seed = getenv("WEIR_TEST_SEED")
                        ? (unsigned)atoi(getenv("WEIR_TEST_SEED"))
                        : (unsigned)getpid();
    fprintf(stderr,
            "ranges out of order seed %u (set WEIR_TEST_SEED to repeat)\n",
            seed);
    srand(seed);
    enum { KEYS = 120 };
    static char text[32768];
    size_t len = 0;
    for (int i = 0; i < KEYS; i++) {
        /* short records, and a few longer than a range */
        int pad = i % 17 == 5 ? 300 : rand() % 40;
        len += (size_t)snprintf(text + len, sizeof text - len,
                                "{\"k\": %d, \"v\": \"%*s\"}\n", i, pad, "");
    }
    write_file(tpath("f.json"), text);
    weir_schema *s = kv_schema();
    uint64_t sizes[] = {61, 97, (uint64_t)rand() % 400 + 20};
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        weir_file_source_config cfg;
        weir_file_source_config_init(&cfg);
        cfg.path = tpath("f.json");
        cfg.split_size_bytes = sizes[si];
        cfg.read_buffer_bytes = 128;
        src_handle h;
        file_source(&h, &cfg, s);
        src_open(&h, 0, 1);
        static const char *ids[1024];
        uint32_t n = discover_all(&h, ids, 1024);
        cr_assert_gt(n, 3u, "split size %llu", (unsigned long long)sizes[si]);
        static uint32_t order[1024];
        static int count[KEYS];
        for (int kind = 0; kind < 3; kind++) {
            const char *what[] = {"descending", "pairs swapped", "shuffled"};
            range_order(kind, order, n);
            read_ranges_in_order(&h, ids, order, n, count, KEYS);
            for (int k = 0; k < KEYS; k++)
                cr_assert_eq(count[k], 1,
                             "record %d read %d times: %s ranges of %llu "
                             "bytes (seed %u)",
                             k, count[k], what[kind],
                             (unsigned long long)sizes[si], seed);
        }
        src_close(&h);
    }
    weir_schema_destroy(s);
}

Test(file_source, ranges_dealt_in_stride_continue_each_other,
     .init = make_tmp, .fini = cleanup_tmp)
{
    mkdir(tpath("d"), 0777);
    char content[1001];
    memset(content, 'x', 1000);
    content[1000] = '\0';
    for (int i = 99; i < 1000; i += 100)
        content[i] = '\n';
    write_file(tpath("d/a.json"), content);
    write_file(tpath("d/b.json"), content);
    weir_schema *s = kv_schema();
    weir_file_source_config cfg;
    weir_file_source_config_init(&cfg);
    cfg.path = tpath("d");
    cfg.split_size_bytes = 300; /* 4 ranges a file: 8 in all */
    src_handle h;
    file_source(&h, &cfg, s);
    cr_assert(h.spec.cls->lockstep, "bounded byte ranges: lockstep");
    cr_assert_not_null(h.spec.cls->continues);
    const uint32_t p = 3;
    const char *want[3][3] = {{"a.json@0-300", "a.json@900-", "b.json@600-900"},
                              {"a.json@300-600", "b.json@0-300", "b.json@900-"},
                              {"a.json@600-900", "b.json@300-600", NULL}};
    for (uint32_t sub = 0; sub < p; sub++) {
        src_open(&h, sub, p);
        const char **ids;
        uint32_t n;
        bool done;
        cr_assert_eq(h.spec.cls->discover(h.src, &ids, &n, &done, &h.err), 0);
        cr_assert_eq(n, want[sub][2] ? 3u : 2u, "subtask %u", sub);
        for (uint32_t i = 0; i < n; i++) {
            char full[600];
            snprintf(full, sizeof full, "%s/%s", tpath("d"), want[sub][i]);
            cr_assert_str_eq(ids[i], full, "subtask %u range %u", sub, i);
        }
        /* each later range of the same file continues the one before */
        for (uint32_t i = 1; i < n; i++) {
            bool same_file = strncmp(want[sub][i - 1], want[sub][i], 6) == 0;
            cr_assert_eq(h.spec.cls->continues(h.src, ids[i - 1], ids[i]),
                         same_file, "%s then %s", ids[i - 1], ids[i]);
            cr_assert_not(h.spec.cls->continues(h.src, ids[i], ids[i - 1]),
                          "an earlier range continues nothing");
        }
        h.spec.cls->destroy(h.src);
    }
    weir_source_spec_release(&h.spec);

    /* Whole files continue nothing, and are not in lockstep; nor is a
     * monitored folder (a new file would hold the others back). */
    cfg.split_size_bytes = 0;
    file_source(&h, &cfg, s);
    cr_assert_not(h.spec.cls->lockstep);
    src_open(&h, 0, 1);
    char a[600], b[600];
    snprintf(a, sizeof a, "%s", tpath("d/a.json"));
    snprintf(b, sizeof b, "%s", tpath("d/b.json"));
    cr_assert_not(h.spec.cls->continues(h.src, a, b));
    src_close(&h);
    cfg.split_size_bytes = 300;
    cfg.monitor_interval_ms = 1000;
    file_source(&h, &cfg, s);
    cr_assert_not(h.spec.cls->lockstep);
    weir_source_spec_release(&h.spec);
    weir_schema_destroy(s);
}

Test(file_source, range_ids_of_an_earlier_run_reopen, .init = make_tmp,
     .fini = cleanup_tmp)
{
    write_file(tpath("r.json"), "{\"k\": 1}\n{\"k\": 2}\n{\"k\": 3}\n");
    weir_schema *s = kv_schema();
    weir_file_source_config cfg;
    weir_file_source_config_init(&cfg);
    cfg.path = tpath("r.json");
    cfg.split_size_bytes = 10;
    src_handle h;
    file_source(&h, &cfg, s);
    src_open(&h, 0, 1);
    char id[600], out[256] = "";
    snprintf(id, sizeof id, "%s@5-",
             tpath("r.json")); /* never discovered; starts mid-line */
    cr_assert_eq(read_split(&h, id, NULL, 0, 8, 0, out, sizeof out, NULL), 0,
                 "%s", h.err.message);
    cr_assert_str_eq(out, "2:NULL\n3:NULL\n");
    src_close(&h);
    weir_schema_destroy(s);
}

static const char *bad_input = "{\"k\": 1, \"v\": \"ok\"}\n"
                               "{\"k\": 2, \"v\": \"broken}\n"
                               "\n"
                               "{\"k\": \"x\"}\n"
                               "{\"k\": 4}\n";

Test(file_source, bad_input_fails_with_file_line_column_offset,
     .init = make_tmp, .fini = cleanup_tmp)
{
    write_file(tpath("bad.json"), bad_input);
    weir_schema *s = kv_schema();
    weir_file_source_config cfg;
    weir_file_source_config_init(&cfg);
    cfg.path = tpath("bad.json");
    src_handle h;
    file_source(&h, &cfg, s);
    src_open(&h, 0, 1);
    const char *ids[1];
    discover_all(&h, ids, 1);
    void *rd;
    cr_assert_eq(h.spec.cls->open_split(h.src, ids[0], NULL, 0, &rd, &h.err),
                 0);
    weir_batch *b = weir_batch_create(s, 8);
    /* the good row first; the error on the next call; the position stays before
     * the bad line */
    cr_assert_eq(h.spec.cls->read(rd, b, 8, &h.err), 1);
    cr_assert_eq(h.spec.cls->read(rd, b, 8, &h.err), WEIR_EPARSE);
    char expect[600];
    snprintf(expect, sizeof expect,
             "%s:2:23: error: expected '\"' to end the string, found end of "
             "record (offset 42)",
             tpath("bad.json"));
    cr_assert_str_eq(h.err.message, expect);
    weir_buf pos;
    weir_buf_init(&pos);
    h.spec.cls->position(rd, &pos);
    uint64_t off;
    weir_cursor c;
    weir_cursor_init(&c, pos.data, pos.len);
    weir_cursor_get_u64(&c, &off);
    cr_assert_eq(off, 20);
    cr_assert_eq(h.spec.cls->read(rd, b, 8, &h.err), WEIR_EPARSE,
                 "the bad record is never skipped silently");
    h.spec.cls->close_split(rd);
    /* Resuming at a later position still names the absolute line. */
    weir_buf_clear(&pos);
    weir_buf_put_u64(&pos, 44);
    cr_assert_eq(
        h.spec.cls->open_split(h.src, ids[0], pos.data, pos.len, &rd, &h.err),
        0);
    cr_assert_eq(h.spec.cls->read(rd, b, 8, &h.err), WEIR_EPARSE);
    snprintf(expect, sizeof expect,
             "%s:4:7: error: expected BIGINT for field \"k\", found \"x\" "
             "(offset 50)",
             tpath("bad.json"));
    cr_assert_str_eq(h.err.message, expect);
    h.spec.cls->close_split(rd);
    weir_buf_fini(&pos);
    weir_batch_destroy(b);
    src_close(&h);
    weir_schema_destroy(s);
}

typedef struct metric_query {
    const char *name;
    uint64_t v;
    bool found;
} metric_query;

static void metric_emit(void *ud, const char *n, uint64_t v)
{
    metric_query *m = ud;
    if (strcmp(n, m->name) == 0) {
        m->v = v;
        m->found = true;
    }
}

static uint64_t metric(src_handle *h, const char *name)
{
    metric_query m = {name, 0, false};
    h->spec.cls->metrics(h->src, metric_emit, &m);
    cr_assert(m.found, "metric %s", name);
    return m.v;
}

Test(file_source, bad_input_skip_counts, .init = make_tmp, .fini = cleanup_tmp)
{
    write_file(tpath("bad.json"), bad_input);
    weir_schema *s = kv_schema();
    weir_file_source_config cfg;
    weir_file_source_config_init(&cfg);
    cfg.path = tpath("bad.json");
    cfg.on_bad_input = WEIR_BAD_INPUT_SKIP;
    src_handle h;
    file_source(&h, &cfg, s);
    src_open(&h, 0, 1);
    const char *ids[1];
    discover_all(&h, ids, 1);
    char out[256] = "";
    cr_assert_eq(read_split(&h, ids[0], NULL, 0, 8, 0, out, sizeof out, NULL),
                 0);
    cr_assert_str_eq(out, "1:ok\n4:NULL\n");
    cr_assert_eq(metric(&h, "skipped_records"), 2);
    cr_assert_eq(metric(&h, "records_read"), 2);
    src_close(&h);
    weir_schema_destroy(s);
}

Test(file_source, bad_input_dead_letter, .init = make_tmp, .fini = cleanup_tmp)
{
    write_file(tpath("bad.json"), bad_input);
    weir_schema *s = kv_schema();
    weir_file_source_config cfg;
    weir_file_source_config_init(&cfg);
    cfg.path = tpath("bad.json");
    cfg.on_bad_input = WEIR_BAD_INPUT_DEAD_LETTER;
    cfg.dead_letter_path = tpath("dead.jsonl");
    src_handle h;
    file_source(&h, &cfg, s);
    src_open(&h, 0, 1);
    const char *ids[1];
    discover_all(&h, ids, 1);
    char out[256] = "";
    cr_assert_eq(read_split(&h, ids[0], NULL, 0, 8, 0, out, sizeof out, NULL),
                 0);
    cr_assert_str_eq(out, "1:ok\n4:NULL\n");
    cr_assert_eq(metric(&h, "dead_letter_records"), 2);
    char *dl = read_file(tpath("dead.jsonl"));
    char expect[2048];
    snprintf(expect, sizeof expect,
             "{\"file\":\"%s\",\"line\":2,\"column\":23,\"offset\":20,"
             "\"error\":\"expected '\\\"' to end the string, "
             "found end of record\",\"raw\":\"{\\\"k\\\": 2, \\\"v\\\": "
             "\\\"broken}\"}\n"
             "{\"file\":\"%s\",\"line\":4,\"column\":7,\"offset\":44,\"error\":"
             "\"expected BIGINT for field \\\"k\\\", "
             "found \\\"x\\\"\",\"raw\":\"{\\\"k\\\": \\\"x\\\"}\"}\n",
             tpath("bad.json"), tpath("bad.json"));
    cr_assert_str_eq(dl, expect);
    free(dl);
    src_close(&h);
    weir_schema_destroy(s);
}

Test(file_source, csv_header_bom_and_multiline_record_positions,
     .init = make_tmp, .fini = cleanup_tmp)
{
    write_file(tpath("in.csv"),
               "\xEF\xBB\xBFk,v\r\n1,\"two\r\nlines\"\r\n2,x\r\n3,\"oops\r\n");
    weir_schema *s = kv_schema();
    weir_file_source_config cfg;
    weir_file_source_config_init(&cfg);
    cfg.path = tpath("in.csv");
    weir_format_options_init(&cfg.format, WEIR_FORMAT_CSV);
    cfg.format.csv_header = true;
    src_handle h;
    file_source(&h, &cfg, s);
    src_open(&h, 0, 1);
    const char *ids[1];
    discover_all(&h, ids, 1);
    char out[256] = "";
    cr_assert_eq(read_split(&h, ids[0], NULL, 0, 8, 0, out, sizeof out, NULL),
                 WEIR_EPARSE);
    cr_assert_str_eq(out, "1:two\r\nlines\n2:x\n");
    char expect[600];
    snprintf(expect, sizeof expect,
             "%s:5:3: error: expected '\"' to end the quoted field, found end "
             "of record (offset 31)",
             tpath("in.csv"));
    cr_assert_str_eq(h.err.message, expect);
    src_close(&h);
    weir_schema_destroy(s);
}

Test(file_source, oversized_record_is_bad_input, .init = make_tmp,
     .fini = cleanup_tmp)
{
    static char content[4096];
    snprintf(content, sizeof content,
             "{\"k\": 1}\n{\"k\": 2, \"v\": \"%0500d\"}\n{\"k\": 3}\n", 0);
    write_file(tpath("long.json"), content);
    weir_schema *s = kv_schema();
    weir_file_source_config cfg;
    weir_file_source_config_init(&cfg);
    cfg.path = tpath("long.json");
    cfg.read_buffer_bytes = 64;
    cfg.max_record_bytes = 100;
    src_handle h;
    file_source(&h, &cfg, s);
    src_open(&h, 0, 1);
    const char *ids[1];
    discover_all(&h, ids, 1);
    char out[256] = "";
    cr_assert_eq(read_split(&h, ids[0], NULL, 0, 8, 0, out, sizeof out, NULL),
                 WEIR_EPARSE);
    char expect[600];
    snprintf(expect, sizeof expect,
             "%s:2:1: error: expected a record of at most 100 bytes, found a "
             "longer one (offset 9)",
             tpath("long.json"));
    cr_assert_str_eq(h.err.message, expect);
    h.spec.cls->destroy(h.src);
    weir_source_spec_release(&h.spec);
    cfg.on_bad_input = WEIR_BAD_INPUT_SKIP;
    file_source(&h, &cfg, s);
    src_open(&h, 0, 1);
    discover_all(&h, ids, 1);
    out[0] = '\0';
    cr_assert_eq(read_split(&h, ids[0], NULL, 0, 8, 0, out, sizeof out, NULL),
                 0);
    cr_assert_str_eq(out, "1:NULL\n3:NULL\n");
    cr_assert_eq(metric(&h, "skipped_records"), 1);
    src_close(&h);
    weir_schema_destroy(s);
}

/*
 * The limit holds however the record was buffered: the buffer grows by
 * doubling, so a record a little over the limit used to fit a grown buffer
 * whole and pass (a 17 MB line under the 16 MiB default did).
 */
Test(file_source, record_over_the_limit_is_bad_even_when_it_fits_the_buffer,
     .init = make_tmp, .fini = cleanup_tmp)
{
    static char content[4096];
    /* Record 2 is 101 bytes: over the limit of 100, under a grown buffer. */
    snprintf(content, sizeof content,
             "{\"k\": 1}\n{\"k\": 2, \"v\": \"%084d\"}\n{\"k\": 3}\n", 0);
    write_file(tpath("long.json"), content);
    weir_schema *s = kv_schema();
    weir_file_source_config cfg;
    weir_file_source_config_init(&cfg);
    cfg.path = tpath("long.json");
    cfg.read_buffer_bytes = 64;
    cfg.max_record_bytes = 100;
    src_handle h;
    file_source(&h, &cfg, s);
    src_open(&h, 0, 1);
    const char *ids[1];
    discover_all(&h, ids, 1);
    char out[256] = "";
    cr_assert_eq(read_split(&h, ids[0], NULL, 0, 8, 0, out, sizeof out, NULL),
                 WEIR_EPARSE);
    cr_assert_str_eq(out, "1:NULL\n");
    char expect[600];
    snprintf(expect, sizeof expect,
             "%s:2:1: error: expected a record of at most 100 bytes, found "
             "one of 101 bytes (offset 9)",
             tpath("long.json"));
    cr_assert_str_eq(h.err.message, expect);
    src_close(&h);
    weir_schema_destroy(s);
}

/*
 * An oversized CSV record whose quoted field holds many line breaks is one
 * bad record, dropped up to its real end; the lines inside the field are
 * not records of their own.
 */
Test(file_source, oversized_csv_record_with_line_breaks_is_one_bad_record,
     .init = make_tmp, .fini = cleanup_tmp)
{
    static char content[8192];
    size_t n = (size_t)snprintf(content, sizeof content, "1,a\n2,\"");
    for (int i = 0; i < 200; i++)
        n += (size_t)snprintf(content + n, sizeof content - n, "x,y\n");
    snprintf(content + n, sizeof content - n, "\"\n3,b\n");
    write_file(tpath("long.csv"), content);
    weir_schema *s = kv_schema();
    weir_file_source_config cfg;
    weir_file_source_config_init(&cfg);
    cfg.path = tpath("long.csv");
    weir_format_options_init(&cfg.format, WEIR_FORMAT_CSV);
    cfg.read_buffer_bytes = 64;
    cfg.max_record_bytes = 100;
    cfg.on_bad_input = WEIR_BAD_INPUT_DEAD_LETTER;
    cfg.dead_letter_path = tpath("dead.jsonl");
    src_handle h;
    file_source(&h, &cfg, s);
    src_open(&h, 0, 1);
    const char *ids[1];
    discover_all(&h, ids, 1);
    char out[256] = "";
    cr_assert_eq(read_split(&h, ids[0], NULL, 0, 8, 0, out, sizeof out, NULL),
                 0, "%s", h.err.message);
    cr_assert_str_eq(out, "1:a\n3:b\n");
    cr_assert_eq(metric(&h, "dead_letter_records"), 1);
    char *dl = read_file(tpath("dead.jsonl"));
    cr_assert_eq(strchr(dl, '\n'), dl + strlen(dl) - 1, "one entry: %s", dl);
    cr_assert(strstr(dl, "\"line\":2,\"column\":1,\"offset\":4,"), "%s", dl);
    free(dl);
    src_close(&h);
    /* Line numbers after it still count the record's line breaks. */
    snprintf(content + n, sizeof content - n, "\"\n3,b,extra\n");
    write_file(tpath("long.csv"), content);
    cfg.on_bad_input = WEIR_BAD_INPUT_SKIP;
    cfg.dead_letter_path = NULL;
    file_source(&h, &cfg, s);
    src_open(&h, 0, 1);
    discover_all(&h, ids, 1);
    out[0] = '\0';
    cr_assert_eq(read_split(&h, ids[0], NULL, 0, 8, 0, out, sizeof out, NULL),
                 0);
    cr_assert_eq(metric(&h, "skipped_records"), 2);
    src_close(&h);
    weir_schema_destroy(s);
}

/*
 * A record without an event time (NULL or missing in a column the event
 * time is computed from) is bad input, located and named by the field the
 * record has, under every policy.
 */
Test(file_source, null_event_time_is_a_located_bad_record, .init = make_tmp,
     .fini = cleanup_tmp)
{
    write_file(tpath("ev.json"), "{\"k\": 1, \"v\": \"a\"}\n"
                                 "{\"k\": 2, \"v\": null}\n"
                                 "{\"k\": 3}\n"
                                 "{\"k\": 4, \"v\": \"d\"}\n");
    weir_schema *s = kv_schema();
    static const uint32_t et[] = {1};
    weir_file_source_config cfg;
    weir_file_source_config_init(&cfg);
    cfg.path = tpath("ev.json");
    cfg.event_time_fields = et;
    cfg.n_event_time_fields = 1;
    cfg.event_time = "ts";
    src_handle h;
    file_source(&h, &cfg, s);
    src_open(&h, 0, 1);
    const char *ids[1];
    discover_all(&h, ids, 1);
    char out[256] = "";
    cr_assert_eq(read_split(&h, ids[0], NULL, 0, 8, 0, out, sizeof out, NULL),
                 WEIR_EPARSE);
    cr_assert_str_eq(out, "1:a\n");
    char expect[600];
    snprintf(expect, sizeof expect,
             "%s:2:15: error: expected a non-null value for field \"v\" (the "
             "event time ts is computed from it), found null (offset 33)",
             tpath("ev.json"));
    cr_assert_str_eq(h.err.message, expect);
    src_close(&h);
    cfg.on_bad_input = WEIR_BAD_INPUT_DEAD_LETTER;
    cfg.dead_letter_path = tpath("dead.jsonl");
    file_source(&h, &cfg, s);
    src_open(&h, 0, 1);
    discover_all(&h, ids, 1);
    out[0] = '\0';
    cr_assert_eq(read_split(&h, ids[0], NULL, 0, 8, 0, out, sizeof out, NULL),
                 0);
    cr_assert_str_eq(out, "1:a\n4:d\n");
    cr_assert_eq(metric(&h, "dead_letter_records"), 2);
    char *dl = read_file(tpath("dead.jsonl"));
    snprintf(expect, sizeof expect,
             "{\"file\":\"%s\",\"line\":2,\"column\":15,\"offset\":19,"
             "\"error\":\"expected a non-null value for field \\\"v\\\" (the "
             "event time ts is computed from it), found null\",\"raw\":"
             "\"{\\\"k\\\": 2, \\\"v\\\": null}\"}\n"
             "{\"file\":\"%s\",\"line\":3,\"column\":8,\"offset\":39,"
             "\"error\":\"expected field \\\"v\\\" in the object (the event "
             "time ts is computed from it)\",\"raw\":\"{\\\"k\\\": 3}\"}\n",
             tpath("ev.json"), tpath("ev.json"));
    cr_assert_str_eq(dl, expect);
    free(dl);
    src_close(&h);
    weir_schema_destroy(s);
}

Test(file_source, monitoring_finds_new_files_at_the_interval, .init = make_tmp,
     .fini = cleanup_tmp)
{
    mkdir(tpath("watch"), 0777);
    write_file(tpath("watch/1.json"), "{\"k\": 1}\n");
    weir_manual_clock *mc = weir_manual_clock_create(1000);
    weir_schema *s = kv_schema();
    weir_file_source_config cfg;
    weir_file_source_config_init(&cfg);
    cfg.path = tpath("watch");
    cfg.monitor_interval_ms = 500;
    cfg.clock = weir_manual_clock_get(mc);
    src_handle h;
    file_source(&h, &cfg, s);
    src_open(&h, 0, 1);
    const char **ids;
    uint32_t n;
    bool done;
    cr_assert_eq(h.spec.cls->discover(h.src, &ids, &n, &done, &h.err), 0);
    cr_assert_eq(n, 1);
    cr_assert_not(done, "a monitored directory is unbounded");
    write_file(tpath("watch/2.json"), "{\"k\": 2}\n");
    weir_manual_clock_advance(mc, 499);
    cr_assert_eq(h.spec.cls->discover(h.src, &ids, &n, &done, &h.err), 0);
    cr_assert_eq(n, 0, "not before the interval");
    weir_manual_clock_advance(mc, 1);
    cr_assert_eq(h.spec.cls->discover(h.src, &ids, &n, &done, &h.err), 0);
    cr_assert_eq(n, 1);
    cr_assert_str_eq(ids[0], tpath("watch/2.json"));
    weir_manual_clock_advance(mc, 500);
    cr_assert_eq(h.spec.cls->discover(h.src, &ids, &n, &done, &h.err), 0);
    cr_assert_eq(n, 0, "files are found once");
    src_close(&h);
    weir_manual_clock_destroy(mc);
    weir_schema_destroy(s);
}

/*
 * A partitioned table (k BIGINT in the files, v STRING from the v=...
 * folders) in a monitored folder: a new partition is found at the
 * interval, a partition the filter (v <> 'b') does not make TRUE is not
 * read (the default partition, NULL, neither), and a split reopened at a
 * position (a restore, in a new instance) still gets its partition's value.
 */
Test(file_source, partitioned_monitoring_pruning_and_restore, .init = make_tmp,
     .fini = cleanup_tmp)
{
    mkdir(tpath("watch"), 0777);
    mkdir(tpath("watch/v=a"), 0777);
    write_file(tpath("watch/v=a/1.json"), "{\"k\": 1}\n");
    write_file(tpath("watch/top.json"), "{\"k\": 9}\n"); /* above the partitions: not read */
    weir_manual_clock *mc = weir_manual_clock_create(1000);
    weir_schema *s = kv_schema();
    weir_expr_arena *ea = weir_expr_arena_create();
    weir_error err = {0};
    weir_expr *args[2], *filter;
    cr_assert_eq(weir_expr_column(ea, 0, weir_type_make(WEIR_TYPE_STRING, true), &args[0], &err), 0);
    args[1] = weir_expr_lit_string(ea, "b", 1);
    cr_assert_eq(weir_expr_call(ea, "<>", args, 2, &filter, &err), 0, "%s", err.message);
    const char *keys[] = {"v"};
    weir_file_source_config cfg;
    weir_file_source_config_init(&cfg);
    char root[512];
    snprintf(root, sizeof root, "%s", tpath("watch")); /* tpath's buffers are reused */
    cfg.path = root;
    cfg.monitor_interval_ms = 500;
    cfg.clock = weir_manual_clock_get(mc);
    cfg.partition_keys = keys;
    cfg.n_partition_keys = 1;
    cfg.partition_filter = filter;
    src_handle h;
    file_source(&h, &cfg, s);
    src_open(&h, 0, 1);
    const char *ids[8];
    cr_assert_eq(discover_all(&h, ids, 8), 1);
    cr_assert_str_eq(ids[0], tpath("watch/v=a/1.json"));
    char out[256] = "";
    cr_assert_eq(read_split(&h, ids[0], NULL, 0, 16, 0, out, sizeof out, NULL), 0, "%s", h.err.message);
    cr_assert_str_eq(out, "1:a\n");
    mkdir(tpath("watch/v=b"), 0777);
    mkdir(tpath("watch/v=c%2Fd"), 0777);
    mkdir(tpath("watch/v=__DEFAULT_PARTITION__"), 0777);
    write_file(tpath("watch/v=b/2.json"), "{\"k\": 2}\n");
    write_file(tpath("watch/v=c%2Fd/3.json"), "{\"k\": 3}\n{\"k\": 4}\n");
    write_file(tpath("watch/v=__DEFAULT_PARTITION__/5.json"), "{\"k\": 5}\n");
    weir_manual_clock_advance(mc, 499);
    cr_assert_eq(discover_all(&h, ids, 8), 0, "not before the interval");
    weir_manual_clock_advance(mc, 1);
    cr_assert_eq(discover_all(&h, ids, 8), 1, "v=b and the default partition are pruned");
    cr_assert_str_eq(ids[0], tpath("watch/v=c%2Fd/3.json"));
    /* read one row, keep the position, and resume in a new instance */
    weir_buf pos;
    weir_buf_init(&pos);
    out[0] = '\0';
    cr_assert_eq(read_split(&h, ids[0], NULL, 0, 1, 1, out, sizeof out, &pos), 0, "%s", h.err.message);
    cr_assert_str_eq(out, "3:c/d\n");
    char id[512];
    snprintf(id, sizeof id, "%s", ids[0]);
    src_close(&h);
    file_source(&h, &cfg, s);
    src_open(&h, 0, 1);
    out[0] = '\0';
    cr_assert_eq(read_split(&h, id, pos.data, pos.len, 16, 0, out, sizeof out, NULL), 0, "%s", h.err.message);
    cr_assert_str_eq(out, "4:c/d\n");
    weir_buf_fini(&pos);
    src_close(&h);
    weir_expr_arena_destroy(ea);
    weir_manual_clock_destroy(mc);
    weir_schema_destroy(s);
}

/*
 * METADATA columns (file.name, file.size, file.path) of a monitored folder
 * read in byte ranges: every range reports its whole file, a file found by
 * a later scan its own, and a range reopened at a position in a new
 * instance (a restore) still reports its file.
 */
Test(file_source, metadata_of_monitored_ranges_and_restored_splits, .init = make_tmp, .fini = cleanup_tmp)
{
    static const struct {
        const char *key;
        weir_type_id type;
    } kinds[] = {{"file.name", WEIR_TYPE_STRING}, {"file.size", WEIR_TYPE_BIGINT}, {"file.path", WEIR_TYPE_STRING}};
    char cwd[512];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    for (size_t kd = 0; kd < sizeof kinds / sizeof *kinds; kd++) {
        char root[400], sub[512], f1[600], f2[600];
        char rel[16];
        snprintf(rel, sizeof rel, "watch%zu", kd);
        snprintf(root, sizeof root, "%s", tpath(rel)); /* tpath's buffers are reused */
        snprintf(sub, sizeof sub, "%s/sub", root);
        snprintf(f1, sizeof f1, "%s/1.json", root);
        snprintf(f2, sizeof f2, "%s/2.json", sub);
        mkdir(root, 0777);
        write_file(f1, "{\"k\": 1}\n{\"k\": 2}\n"); /* 18 bytes: one range */
        weir_manual_clock *mc = weir_manual_clock_create(1000);
        weir_schema *s = weir_schema_create();
        weir_schema_add(s, "k", weir_type_make(WEIR_TYPE_BIGINT, false));
        weir_schema_add(s, "m", weir_type_make(kinds[kd].type, false));
        weir_option meta[] = {{"m", kinds[kd].key}};
        weir_file_source_config cfg;
        weir_file_source_config_init(&cfg);
        cfg.path = root;
        cfg.monitor_interval_ms = 500;
        cfg.split_size_bytes = 18;
        cfg.clock = weir_manual_clock_get(mc);
        cfg.metadata_columns = meta;
        cfg.n_metadata_columns = 1;
        /* what m reads for each file */
        char v1[700], v2[700];
        if (kinds[kd].type == WEIR_TYPE_BIGINT) {
            snprintf(v1, sizeof v1, "18");
            snprintf(v2, sizeof v2, "27");
        } else if (!strcmp(kinds[kd].key, "file.name")) {
            snprintf(v1, sizeof v1, "1.json");
            snprintf(v2, sizeof v2, "2.json");
        } else {
            snprintf(v1, sizeof v1, "%s", f1[0] == '/' ? f1 : "");
            snprintf(v2, sizeof v2, "%s", f2[0] == '/' ? f2 : "");
            cr_assert(v1[0] && v2[0], "the test folder is absolute");
        }
        src_handle h;
        file_source(&h, &cfg, s);
        src_open(&h, 0, 1);
        const char *ids[8];
        cr_assert_eq(discover_all(&h, ids, 8), 1);
        char out[2048] = "", want[2048];
        cr_assert_eq(read_split(&h, ids[0], NULL, 0, 16, 0, out, sizeof out, NULL), 0, "%s", h.err.message);
        snprintf(want, sizeof want, "1:%s\n2:%s\n", v1, v1);
        cr_assert_str_eq(out, want, "%s", kinds[kd].key);
        mkdir(sub, 0777);
        write_file(f2, "{\"k\": 3}\n{\"k\": 4}\n{\"k\": 5}\n"); /* 27 bytes: ranges @0-18, @18- */
        weir_manual_clock_advance(mc, 500);
        cr_assert_eq(discover_all(&h, ids, 8), 2, "the new file, in two ranges");
        char id[600], last[600];
        snprintf(id, sizeof id, "%s", ids[0]);
        snprintf(last, sizeof last, "%s", ids[1]);
        /* one row of the first range, its position kept; the rest in a new instance (a restore) */
        weir_buf pos;
        weir_buf_init(&pos);
        out[0] = '\0';
        cr_assert_eq(read_split(&h, id, NULL, 0, 1, 1, out, sizeof out, &pos), 0, "%s", h.err.message);
        snprintf(want, sizeof want, "3:%s\n", v2);
        cr_assert_str_eq(out, want, "%s", kinds[kd].key);
        src_close(&h);
        file_source(&h, &cfg, s);
        src_open(&h, 0, 1);
        out[0] = '\0';
        cr_assert_eq(read_split(&h, id, pos.data, pos.len, 16, 0, out, sizeof out, NULL), 0, "%s", h.err.message);
        cr_assert_eq(read_split(&h, last, NULL, 0, 16, 0, out, sizeof out, NULL), 0, "%s", h.err.message);
        snprintf(want, sizeof want, "4:%s\n5:%s\n", v2, v2);
        cr_assert_str_eq(out, want, "%s after a restore", kinds[kd].key);
        weir_buf_fini(&pos);
        src_close(&h);
        weir_manual_clock_destroy(mc);
        weir_schema_destroy(s);
    }
}

/*
 * file.size and file.modification-time are the file's at the split's first
 * open and travel in its position: a restore reports them even though the
 * file has grown and been touched since (a position of an older checkpoint,
 * the offset alone, still restores, and reports the file as it is then).
 */
Test(file_source, metadata_size_and_time_kept_in_the_split_position, .init = make_tmp, .fini = cleanup_tmp)
{
    static const struct {
        const char *key;
        weir_type_id type;
    } kinds[] = {{"file.size", WEIR_TYPE_BIGINT}, {"file.modification-time", WEIR_TYPE_TIMESTAMP_LTZ}};
    for (size_t kd = 0; kd < sizeof kinds / sizeof *kinds; kd++) {
        char f[600];
        snprintf(f, sizeof f, "%s", tpath(kd ? "t.json" : "s.json"));
        write_file(f, "{\"k\": 1}\n{\"k\": 2}\n{\"k\": 3}\n");
        struct timespec then[2] = {{1600000000, 123000000}, {1600000000, 123000000}};
        cr_assert_eq(utimensat(AT_FDCWD, f, then, 0), 0);
        weir_schema *s = weir_schema_create();
        weir_schema_add(s, "k", weir_type_make(WEIR_TYPE_BIGINT, false));
        weir_schema_add(s, "m", weir_type_make(kinds[kd].type, false));
        weir_option meta[] = {{"m", kinds[kd].key}};
        weir_file_source_config cfg;
        weir_file_source_config_init(&cfg);
        cfg.path = f;
        cfg.metadata_columns = meta;
        cfg.n_metadata_columns = 1;
        src_handle h;
        file_source(&h, &cfg, s);
        src_open(&h, 0, 1);
        const char *ids[2];
        cr_assert_eq(discover_all(&h, ids, 2), 1);
        char id[600];
        snprintf(id, sizeof id, "%s", ids[0]);
        char first[512] = "";
        weir_buf pos;
        weir_buf_init(&pos);
        cr_assert_eq(read_split(&h, id, NULL, 0, 1, 1, first, sizeof first, &pos), 0, "%s", h.err.message);
        const char *v0 = strchr(first, ':') + 1; /* "v\n": the value at the first open */
        if (kd == 0)
            cr_assert_str_eq(first, "1:27\n");
        src_close(&h);
        /* the file grows and is touched after the checkpoint */
        FILE *fp = fopen(f, "a");
        cr_assert_not_null(fp);
        fputs("{\"k\": 4}\n", fp);
        fclose(fp);
        struct timespec later[2] = {{1700000000, 0}, {1700000000, 0}};
        cr_assert_eq(utimensat(AT_FDCWD, f, later, 0), 0);
        char want[512], out[512] = "";
        file_source(&h, &cfg, s);
        src_open(&h, 0, 1);
        cr_assert_eq(read_split(&h, id, pos.data, pos.len, 16, 0, out, sizeof out, NULL), 0, "%s", h.err.message);
        snprintf(want, sizeof want, "2:%s3:%s4:%s", v0, v0, v0);
        cr_assert_str_eq(out, want, "%s after a restore: the split's values", kinds[kd].key);
        /* an offset-only position (an older checkpoint): the file's values now */
        char now[512] = "";
        cr_assert_eq(read_split(&h, id, NULL, 0, 1, 1, now, sizeof now, NULL), 0, "%s", h.err.message);
        cr_assert_str_neq(now, first, "%s changed on disk", kinds[kd].key);
        cr_assert_geq(pos.len, 8);
        out[0] = '\0';
        cr_assert_eq(read_split(&h, id, pos.data, 8, 16, 0, out, sizeof out, NULL), 0, "%s", h.err.message);
        const char *vn = strchr(now, ':') + 1;
        snprintf(want, sizeof want, "2:%s3:%s4:%s", vn, vn, vn);
        cr_assert_str_eq(out, want, "%s from an offset-only position", kinds[kd].key);
        weir_buf_fini(&pos);
        src_close(&h);
        weir_schema_destroy(s);
    }
}

/*
 * file.path is the path of the file's URI, as Flink gives it: absolute,
 * with "." and ".." parts and repeated slashes resolved by name (a relative
 * path is below the working folder).
 */
Test(file_source, metadata_path_is_normalised_and_absolute, .init = make_tmp, .fini = cleanup_tmp)
{
    char dir[600];
    snprintf(dir, sizeof dir, "%s", tpath("in"));
    mkdir(dir, 0777);
    write_file(tpath("in/f.json"), "{\"k\": 1}\n");
    cr_assert_eq(chdir(dir), 0);
    char cwd[600];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    char abs_dots[900];
    snprintf(abs_dots, sizeof abs_dots, "%s/./../in//f.json", cwd);
    const char *paths[] = {"f.json", "./f.json", "../in/./f.json", ".//sub/../f.json", abs_dots};
    mkdir("sub", 0777);
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        weir_schema *s = weir_schema_create();
        weir_schema_add(s, "k", weir_type_make(WEIR_TYPE_BIGINT, false));
        weir_schema_add(s, "m", weir_type_make(WEIR_TYPE_STRING, false));
        weir_option meta[] = {{"m", "file.path"}};
        weir_file_source_config cfg;
        weir_file_source_config_init(&cfg);
        cfg.path = paths[i];
        cfg.metadata_columns = meta;
        cfg.n_metadata_columns = 1;
        src_handle h;
        file_source(&h, &cfg, s);
        src_open(&h, 0, 1);
        const char *ids[2];
        cr_assert_eq(discover_all(&h, ids, 2), 1, "%s", paths[i]);
        char out[1024] = "", want[1024];
        cr_assert_eq(read_split(&h, ids[0], NULL, 0, 4, 0, out, sizeof out, NULL), 0, "%s", h.err.message);
        snprintf(want, sizeof want, "1:%s/f.json\n", cwd);
        cr_assert_str_eq(out, want, "path %s", paths[i]);
        src_close(&h);
        weir_schema_destroy(s);
    }
}

/* Unknown metadata keys and wrong types are refused, naming the column and what it could be. */
Test(file_source, metadata_keys_and_types_are_checked, .init = make_tmp, .fini = cleanup_tmp)
{
    write_file(tpath("m.json"), "{\"k\": 1}\n");
    static const struct {
        const char *key;
        weir_type_id type;
        const char *msg;
    } bad[] = {
        {"file.nmae", WEIR_TYPE_STRING,
         "column 'm': connector 'filesystem' has no metadata 'file.nmae' (did you mean 'file.name'?); it has "
         "'file.path', 'file.name', 'file.size' and 'file.modification-time'"},
        {"file.size", WEIR_TYPE_INT, "column 'm': metadata 'file.size' is BIGINT, not INT"},
        {"file.modification-time", WEIR_TYPE_BIGINT,
         "column 'm': metadata 'file.modification-time' is TIMESTAMP_LTZ(3), not BIGINT"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        weir_schema *s = weir_schema_create();
        weir_schema_add(s, "k", weir_type_make(WEIR_TYPE_BIGINT, false));
        weir_schema_add(s, "m", weir_type_make(bad[i].type, false));
        weir_option meta[] = {{"m", bad[i].key}};
        weir_file_source_config cfg;
        weir_file_source_config_init(&cfg);
        cfg.path = tpath("m.json");
        cfg.metadata_columns = meta;
        cfg.n_metadata_columns = 1;
        weir_source_spec spec;
        weir_error err = {0};
        cr_assert_eq(weir_file_source_spec(&cfg, s, &spec, &err), WEIR_EINVAL);
        cr_assert_str_eq(err.message, bad[i].msg);
        weir_schema_destroy(s);
    }
}

/* A folder that is not key=value, or a value its column cannot take, fails discovery naming the folder. */
Test(file_source, partitioned_bad_folders_are_errors, .init = make_tmp, .fini = cleanup_tmp)
{
    weir_schema *s = weir_schema_create();
    weir_schema_add(s, "k", weir_type_make(WEIR_TYPE_BIGINT, false));
    weir_schema_add(s, "n", weir_type_make(WEIR_TYPE_INT, true));
    const char *keys[] = {"n"};
    weir_file_source_config cfg;
    weir_file_source_config_init(&cfg);
    cfg.partition_keys = keys;
    cfg.n_partition_keys = 1;
    mkdir(tpath("t1"), 0777);
    mkdir(tpath("t1/x"), 0777);
    write_file(tpath("t1/x/1.json"), "{\"k\": 1}\n");
    mkdir(tpath("t2"), 0777);
    mkdir(tpath("t2/n=12a"), 0777);
    write_file(tpath("t2/n=12a/1.json"), "{\"k\": 1}\n");
    char want[512];
    const char *ids[4];
    const char **got;
    uint32_t n;
    bool done;
    src_handle h;
    cfg.path = tpath("t1");
    file_source(&h, &cfg, s);
    src_open(&h, 0, 1);
    cr_assert_eq(h.spec.cls->discover(h.src, &got, &n, &done, &h.err), WEIR_EPARSE);
    snprintf(want, sizeof want,
             "%s: error: expected a partition folder \"<key>=<value>\" of the partition keys (n), found \"x\"",
             tpath("t1/x"));
    cr_assert_str_eq(h.err.message, want);
    src_close(&h);
    cfg.path = tpath("t2");
    file_source(&h, &cfg, s);
    src_open(&h, 0, 1);
    cr_assert_eq(h.spec.cls->discover(h.src, &got, &n, &done, &h.err), WEIR_EPARSE);
    snprintf(want, sizeof want, "%s: error: a partition value does not fit its column's type: cannot cast '12a' to INT",
             tpath("t2/n=12a"));
    cr_assert_str_eq(h.err.message, want);
    src_close(&h);
    (void)ids;
    weir_schema_destroy(s);
}

Test(file_source, missing_path_is_an_error)
{
    weir_schema *s = kv_schema();
    weir_file_source_config cfg;
    weir_file_source_config_init(&cfg);
    cfg.path = "/nonexistent/weir/input.json";
    src_handle h;
    file_source(&h, &cfg, s);
    src_open(&h, 0, 1);
    const char **ids;
    uint32_t n;
    bool done;
    cr_assert_eq(h.spec.cls->discover(h.src, &ids, &n, &done, &h.err),
                 WEIR_ENOTFOUND);
    cr_assert_str_eq(h.err.message, "/nonexistent/weir/input.json: error: "
                                    "cannot read: No such file or directory");
    src_close(&h);
    weir_schema_destroy(s);
}

/* ---- datagen ---- */

static weir_schema *gen_schema(void)
{
    weir_schema *s = weir_schema_create();
    weir_schema_add(s, "id", weir_type_make(WEIR_TYPE_BIGINT, false));
    weir_schema_add(s, "r", weir_type_make(WEIR_TYPE_INT, true));
    weir_schema_add(s, "name", weir_type_make(WEIR_TYPE_STRING, true));
    weir_schema_add(s, "price", weir_type_decimal(8, 2, true));
    weir_schema_add(s, "ts", weir_type_make(WEIR_TYPE_TIMESTAMP, true));
    return s;
}

static const weir_option gen_opts[] = {
    {"connector", "datagen"},
    {"number-of-rows", "1000"},
    {"fields.id.kind", "sequence"},
    {"fields.id.start", "1"},
    {"fields.id.end", "5000"},
    {"fields.r.min", "-3"},
    {"fields.r.max", "3"},
    {"fields.name.length", "5"},
    {"fields.price.min", "1"},
    {"fields.price.max", "2"},
    {"fields.ts.kind", "sequence"},
    {"fields.ts.start", "2020-01-01 00:00:00"},
    {"fields.ts.end", "2020-01-02 00:00:00"},
    {"seed", "7"},
    {"fields.r.null-rate", "0.25"},
};

/* Generates every row of subtask `sub` of `p`, keyed by id into rows[id]. */
static uint32_t gen_rows(weir_source_spec *spec, uint32_t sub, uint32_t p,
                         char (*rows)[96], uint32_t batch)
{
    void *src, *rd;
    weir_error err;
    weir_source_info info = {.subtask = sub, .parallelism = p, .batch_size = batch, .schema = spec->schema};
    cr_assert_eq(spec->cls->create(spec->arg, &info, &src, &err), 0);
    const char **ids;
    uint32_t n;
    bool done;
    cr_assert_eq(spec->cls->discover(src, &ids, &n, &done, &err), 0);
    cr_assert_eq(n, 1);
    cr_assert(done);
    cr_assert_eq(spec->cls->open_split(src, ids[0], NULL, 0, &rd, &err), 0);
    weir_batch *b = weir_batch_create(spec->schema, batch);
    uint32_t total = 0;
    int rc;
    while (weir_batch_reset(b),
           (rc = spec->cls->read(rd, b, batch, &err)) > 0) {
        for (uint32_t r = 0; r < b->n_rows; r++) {
            int64_t id = WEIR_COL_I64(b, 0)[r];
            cr_assert(id >= 1 && id <= 1000);
            char *line = rows[id];
            cr_assert_eq(line[0], '\0', "id %lld generated twice",
                         (long long)id);
            size_t o = 0;
            for (uint32_t c = 0; c < 5; c++) {
                char v[64];
                weir_batch_format_value(b, c, r, v, sizeof v);
                o +=
                    (size_t)snprintf(line + o, 96 - o, "%s%s", c ? "|" : "", v);
            }
            total++;
        }
    }
    cr_assert_eq(rc, WEIR_EOF);
    weir_batch_destroy(b);
    spec->cls->close_split(rd);
    spec->cls->destroy(src);
    return total;
}

Test(datagen, sequence_random_bounds_and_same_rows_at_any_parallelism)
{
    weir_schema *s = gen_schema();
    weir_source_spec spec;
    weir_error err;
    cr_assert_eq(
        weir_datagen_source_spec_opts(
            gen_opts, sizeof gen_opts / sizeof *gen_opts, s, NULL, &spec, &err),
        0, "%s", err.message);
    static char one[1001][96], many[1001][96];
    memset(one, 0, sizeof one);
    memset(many, 0, sizeof many);
    cr_assert_eq(gen_rows(&spec, 0, 1, one, 64), 1000);
    uint32_t total = 0;
    for (uint32_t sub = 0; sub < 3; sub++)
        total += gen_rows(&spec, sub, 3, many, 7);
    cr_assert_eq(total, 1000);
    int nulls = 0;
    for (int id = 1; id <= 1000; id++) {
        cr_assert_str_eq(one[id], many[id], "id %d", id);
        int64_t rid;
        int r;
        char name[32], price[32], ts[32];
        if (strstr(one[id], "|NULL|")) {
            nulls++;
            continue;
        }
        cr_assert_eq(sscanf(one[id], "%lld|%d|%31[^|]|%31[^|]|%31[^\n]",
                            (long long *)&rid, &r, name, price, ts),
                     5, "%s", one[id]);
        cr_assert(r >= -3 && r <= 3);
        cr_assert_eq(strlen(name), 5);
        cr_assert(strcmp(price, "1.00") >= 0 && strcmp(price, "2.00") <= 0,
                  "%s", price);
        char expect_ts[32];
        weir__format_ts(1577836800000 + (id - 1), expect_ts, sizeof expect_ts);
        cr_assert_str_eq(ts, expect_ts);
    }
    cr_assert(nulls > 150 && nulls < 350, "null rate 0.25 gave %d of 1000",
              nulls);
    weir_source_spec_release(&spec);
    weir_schema_destroy(s);
}

Test(datagen, sequence_end_bounds_the_source_and_position_resumes)
{
    weir_schema *s = gen_schema();
    weir_datagen_field f = {
        .name = "id", .kind = WEIR_DATAGEN_SEQUENCE, .start = 10, .end = 19};
    weir_datagen_config cfg;
    weir_datagen_config_init(&cfg);
    cfg.fields = &f;
    cfg.n_fields = 1;
    weir_source_spec spec;
    weir_error err;
    cr_assert_eq(weir_datagen_source_spec(&cfg, s, &spec, &err), 0, "%s",
                 err.message);
    void *src, *rd;
    weir_source_info info = {.subtask = 0, .parallelism = 1, .batch_size = 4, .schema = s};
    cr_assert_eq(spec.cls->create(spec.arg, &info, &src, &err), 0);
    cr_assert_eq(
        spec.cls->open_split(src, "datagen-0-of-1", NULL, 0, &rd, &err), 0);
    weir_batch *b = weir_batch_create(s, 4);
    cr_assert_eq(spec.cls->read(rd, b, 4, &err), 4);
    weir_buf pos;
    weir_buf_init(&pos);
    spec.cls->position(rd, &pos);
    spec.cls->close_split(rd);
    cr_assert_eq(spec.cls->open_split(src, "datagen-0-of-1", pos.data, pos.len,
                                      &rd, &err),
                 0);
    weir_batch_reset(b);
    cr_assert_eq(spec.cls->read(rd, b, 4, &err), 4);
    cr_assert_eq(WEIR_COL_I64(b, 0)[0], 14);
    weir_batch_reset(b);
    cr_assert_eq(spec.cls->read(rd, b, 4, &err), 2);
    cr_assert_eq(WEIR_COL_I64(b, 0)[1], 19);
    cr_assert_eq(spec.cls->read(rd, b, 4, &err), WEIR_EOF);
    spec.cls->close_split(rd);
    cr_assert_eq(
        spec.cls->open_split(src, "datagen-5-of-2", NULL, 0, &rd, &err),
        WEIR_EINVAL);
    weir_buf_fini(&pos);
    weir_batch_destroy(b);
    spec.cls->destroy(src);
    weir_source_spec_release(&spec);
    weir_schema_destroy(s);
}

Test(datagen, rows_per_second_follows_the_clock)
{
    weir_schema *s = gen_schema();
    weir_manual_clock *mc = weir_manual_clock_create(0);
    weir_datagen_config cfg;
    weir_datagen_config_init(&cfg);
    cfg.rows_per_second = 200; /* 100 per subtask at parallelism 2 */
    cfg.clock = weir_manual_clock_get(mc);
    weir_source_spec spec;
    weir_error err;
    cr_assert_eq(weir_datagen_source_spec(&cfg, s, &spec, &err), 0);
    void *src, *rd;
    weir_source_info info = {.subtask = 1, .parallelism = 2, .batch_size = 1024, .schema = s};
    cr_assert_eq(spec.cls->create(spec.arg, &info, &src, &err), 0);
    cr_assert_eq(
        spec.cls->open_split(src, "datagen-1-of-2", NULL, 0, &rd, &err), 0);
    weir_batch *b = weir_batch_create(s, 1024);
    cr_assert_eq(spec.cls->read(rd, b, 1024, &err), 100,
                 "one second of rows to start");
    cr_assert_eq(spec.cls->read(rd, b, 1024, &err), 0,
                 "then nothing until time passes");
    weir_manual_clock_advance(mc, 55);
    weir_batch_reset(b);
    cr_assert_eq(spec.cls->read(rd, b, 1024, &err), 5);
    weir_manual_clock_advance(mc, 5);
    weir_batch_reset(b);
    cr_assert_eq(spec.cls->read(rd, b, 1024, &err), 1);
    weir_manual_clock_advance(mc, 60000);
    weir_batch_reset(b);
    cr_assert_eq(spec.cls->read(rd, b, 1024, &err), 100,
                 "idle time does not build up more than a second");
    weir_batch_destroy(b);
    spec.cls->close_split(rd);
    spec.cls->destroy(src);
    weir_source_spec_release(&spec);
    weir_manual_clock_destroy(mc);
    weir_schema_destroy(s);
}

Test(datagen, option_errors)
{
    weir_schema *s = gen_schema();
    static const struct {
        weir_option opt[3];
        int n, bad;
        const char *message;
    } cases[] = {
        {{{"fields.idd.kind", "sequence"}},
         1,
         0,
         "option 'fields.idd.kind': no column 'idd' (did you mean 'id'?)"},
        {{{"fields.id.kind", "sequence"}},
         1,
         0,
         "option 'fields.id.kind' = 'sequence' needs 'fields.id.start' and "
         "'fields.id.end'"},
        {{{"fields.id.kind", "serial"}},
         1,
         0,
         "option 'fields.id.kind': expected 'sequence' or 'random', found "
         "'serial'"},
        {{{"fields.id.color", "red"}},
         1,
         0,
         "option 'fields.id.color': unknown property 'color' (datagen has "
         "kind, start, end, min, max, length, "
         "var-len, null-rate, max-past)"},
        {{{"fields.id.start", "1"}},
         1,
         0,
         "option 'fields.id.start' applies only to 'fields.id.kind' = "
         "'sequence'"},
        {{{"fields.name.min", "1"}},
         1,
         0,
         "option 'fields.name.min' does not apply to a STRING field (use "
         "length)"},
        {{{"rows-per-second", "fast"}},
         1,
         0,
         "option 'rows-per-second': expected a number, found 'fast'"},
        {{{"number-of-row", "5"}},
         1,
         0,
         "unsupported option 'number-of-row' for connector 'datagen' (did you "
         "mean "
         "'number-of-rows'?)"},
        {{{"fields.r.min", "5"}, {"fields.r.max", "1"}},
         2,
         -1,
         "datagen: field \"r\": min 5 is above max 1"},
        {{{"fields.id.null-rate", "0.5"}},
         1,
         -1,
         "datagen: field \"id\" is NOT NULL but has a null rate"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        weir_source_spec spec;
        weir_error err = {0, ""};
        int bad = 99;
        weir_connector_env env = {.bad_option_index = &bad};
        cr_assert_neq(weir_datagen_source_spec_opts(cases[i].opt,
                                                    (size_t)cases[i].n, s, &env,
                                                    &spec, &err),
                      0, "case %zu", i);
        cr_expect_str_eq(err.message, cases[i].message, "case %zu", i);
        cr_expect_eq(bad, cases[i].bad, "case %zu: index %d", i, bad);
    }
    weir_schema_destroy(s);
}

/* ---- sinks ---- */

static weir_batch *kv_batch(weir_schema *s, int n, int first)
{
    weir_batch *b = weir_batch_create(s, 64);
    for (int i = 0; i < n; i++) {
        int r = weir_batch_append_row(b);
        WEIR_COL_I64(b, 0)[r] = first + i;
        char v[16];
        snprintf(v, sizeof v, "v%d", first + i);
        weir_batch_set_str(b, 1, r, v, strlen(v));
    }
    return b;
}

static void *sink_create(weir_operator_spec *spec, const weir_schema *s,
                         uint32_t subtask, uint32_t p)
{
    const weir_schema *in[1] = {s};
    weir_op_info info = {.subtask = subtask,
                         .parallelism = p,
                         .max_parallelism = 128,
                         .n_inputs = 1,
                         .input_schemas = in,
                         .batch_size = 64};
    void *op;
    cr_assert_eq(spec->create(spec->arg, &info, &op), 0);
    cr_assert_eq(spec->cls->open(op, NULL), 0);
    return op;
}

Test(print_sink, prefixes_as_flink, .init = make_tmp, .fini = cleanup_tmp)
{
    weir_schema *s = kv_schema();
    weir_batch *b = kv_batch(s, 2, 1);
    b->kind[1] = WEIR_ROW_DELETE;
    int fd = open(tpath("out.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0666);
    weir_print_sink_config cfg;
    weir_print_sink_config_init(&cfg);
    cfg.fd = fd;
    weir_operator_spec spec;
    weir_error err;
    cr_assert_eq(weir_print_sink_spec(&cfg, &spec, &err), 0);
    void *op = sink_create(&spec, s, 0, 1);
    cr_assert_eq(spec.cls->process(op, NULL, 0, b), 0);
    spec.cls->close(op);
    op = sink_create(&spec, s, 1, 2);
    cr_assert_eq(spec.cls->process(op, NULL, 0, b), 0);
    cr_assert_eq(spec.cls->finish(op, NULL), 0);
    spec.cls->close(op);
    weir_operator_spec_release(&spec);
    cfg.identifier = "sink";
    cr_assert_eq(weir_print_sink_spec(&cfg, &spec, &err), 0);
    op = sink_create(&spec, s, 0, 1);
    cr_assert_eq(spec.cls->process(op, NULL, 0, b), 0);
    spec.cls->close(op);
    op = sink_create(&spec, s, 2, 4);
    cr_assert_eq(spec.cls->process(op, NULL, 0, b), 0);
    spec.cls->close(op);
    weir_operator_spec_release(&spec);
    close(fd);
    char *text = read_file(tpath("out.txt"));
    cr_assert_str_eq(text, "+I[1, v1]\n-D[2, v2]\n"
                           "2> +I[1, v1]\n2> -D[2, v2]\n"
                           "sink> +I[1, v1]\nsink> -D[2, v2]\n"
                           "sink:3> +I[1, v1]\nsink:3> -D[2, v2]\n");
    free(text);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

Test(print_sink, options_and_file_stream, .init = make_tmp, .fini = cleanup_tmp)
{
    weir_schema *s = kv_schema();
    weir_batch *b = kv_batch(s, 1, 7);
    FILE *fp = fopen(tpath("p.txt"), "w");
    weir_connector_env env = {.print_out = fp};
    weir_option opts[] = {{"connector", "print"},
                          {"print-identifier", "out"},
                          {"sink.parallelism", "2"}};
    weir_operator_spec spec;
    weir_error err;
    cr_assert_eq(weir_connector_sink_spec(NULL, opts, 3, s, &env, &spec, &err),
                 0, "%s", err.message);
    void *op = sink_create(&spec, s, 0, 1);
    cr_assert_eq(spec.cls->process(op, NULL, 0, b), 0);
    spec.cls->close(op);
    weir_operator_spec_release(&spec);
    fclose(fp);
    char *text = read_file(tpath("p.txt"));
    cr_assert_str_eq(text, "out> +I[7, v7]\n");
    free(text);
    weir_option bad[] = {{"print-identifer", "x"}};
    cr_assert_eq(weir_print_sink_spec_opts(bad, 1, s, NULL, &spec, &err),
                 WEIR_EINVAL);
    cr_assert_str_eq(err.message, "unsupported option 'print-identifer' for "
                                  "connector 'print' (did you mean "
                                  "'print-identifier'?)");
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

Test(blackhole_sink, counts_rows)
{
    weir_schema *s = kv_schema();
    weir_batch *b = kv_batch(s, 5, 0);
    uint64_t counter = 0;
    weir_blackhole_sink_config cfg = {&counter};
    weir_operator_spec spec;
    weir_error err;
    cr_assert_eq(weir_blackhole_sink_spec(&cfg, &spec, &err), 0);
    void *a = sink_create(&spec, s, 0, 2), *c = sink_create(&spec, s, 1, 2);
    spec.cls->process(a, NULL, 0, b);
    spec.cls->process(c, NULL, 0, b);
    spec.cls->process(a, NULL, 0, b);
    cr_assert_eq(counter, 15);
    spec.cls->close(a);
    spec.cls->close(c);
    cr_assert(weir_sink_spec_accepts_changelog(&spec, NULL));
    weir_operator_spec_release(&spec);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

static weir_operator_spec file_sink_spec(const char *dir, weir_format_kind kind,
                                         uint64_t roll, bool two_phase)
{
    weir_file_sink_config cfg;
    weir_file_sink_config_init(&cfg);
    cfg.path = dir;
    weir_format_options_init(&cfg.format, kind);
    cfg.rolling_file_size = roll;
    cfg.rollover_interval_ms = -1;
    cfg.commit_on_checkpoint = two_phase;
    weir_operator_spec spec;
    weir_error err;
    cr_assert_eq(weir_file_sink_spec(&cfg, &spec, &err), 0, "%s", err.message);
    return spec;
}

Test(file_sink, part_files_hidden_until_complete_then_rolled_by_size,
     .init = make_tmp, .fini = cleanup_tmp)
{
    weir_schema *s = kv_schema();
    weir_batch *b = kv_batch(s, 3, 1);
    /* each row is {"k":1,"v":"v1"} + '\n' = 17 bytes: two rows reach 30 */
    weir_operator_spec spec =
        file_sink_spec(tpath("out"), WEIR_FORMAT_JSON, 30, false);
    void *op0 = sink_create(&spec, s, 0, 2);
    void *op1 = sink_create(&spec, s, 1, 2);
    cr_assert_eq(spec.cls->process(op0, NULL, 0, b), 0);
    cr_assert_str_eq(list_dir(tpath("out")),
                     ".part-0-1.json.inprogress part-0-0.json");
    cr_assert_eq(spec.cls->process(op1, NULL, 0, b), 0);
    cr_assert_eq(spec.cls->finish(op0, NULL), 0);
    cr_assert_str_eq(
        list_dir(tpath("out")),
        ".part-1-1.json.inprogress part-0-0.json part-0-1.json part-1-0.json");
    cr_assert_eq(spec.cls->finish(op1, NULL), 0);
    cr_assert_str_eq(list_dir(tpath("out")),
                     "part-0-0.json part-0-1.json part-1-0.json part-1-1.json");
    char *t = read_file(pn_path(tpath("out/part-0-0.json")));
    cr_assert_str_eq(t, "{\"k\":1,\"v\":\"v1\"}\n{\"k\":2,\"v\":\"v2\"}\n");
    free(t);
    t = read_file(pn_path(tpath("out/part-0-1.json")));
    cr_assert_str_eq(t, "{\"k\":3,\"v\":\"v3\"}\n");
    free(t);
    spec.cls->close(op0);
    spec.cls->close(op1);
    /* A new run (a new spec: a new run id) writes names of its own, from
     * n = 0, instead of overwriting. */
    cr_assert_not(weir_sink_spec_accepts_changelog(&spec, NULL));
    weir_operator_spec_release(&spec);
    spec = file_sink_spec(tpath("out"), WEIR_FORMAT_JSON, 30, false);
    void *again = sink_create(&spec, s, 0, 2);
    cr_assert_eq(spec.cls->process(again, NULL, 0, b), 0);
    cr_assert_eq(spec.cls->finish(again, NULL), 0);
    spec.cls->close(again);
    cr_assert_str_eq(list_dir(tpath("out")),
                     "part-0-0.json part-0-0.json part-0-1.json part-0-1.json "
                     "part-1-0.json part-1-1.json");
    weir_operator_spec_release(&spec);
    /* The same run id again (a restored run that kept it) skips the names
     * already taken. */
    weir_file_sink_config cfg;
    weir_file_sink_config_init(&cfg);
    cfg.path = tpath("again");
    cfg.rolling_file_size = 30;
    cfg.run_id = 0x5eed;
    cr_assert_eq(weir_file_sink_spec(&cfg, &spec, NULL), 0);
    for (int i = 0; i < 2; i++) {
        again = sink_create(&spec, s, 0, 1);
        cr_assert_eq(spec.cls->process(again, NULL, 0, b), 0);
        cr_assert_eq(spec.cls->finish(again, NULL), 0);
        spec.cls->close(again);
    }
    cr_assert_str_eq(list_dir(tpath("again")),
                     "part-0-0.json part-0-1.json part-0-2.json part-0-3.json");
    weir_operator_spec_release(&spec);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

Test(file_sink, csv_and_debezium_formats, .init = make_tmp, .fini = cleanup_tmp)
{
    weir_schema *s = kv_schema();
    weir_batch *b = kv_batch(s, 2, 1);
    weir_operator_spec spec =
        file_sink_spec(tpath("csv"), WEIR_FORMAT_CSV, 0, false);
    void *op = sink_create(&spec, s, 0, 1);
    cr_assert_eq(spec.cls->process(op, NULL, 0, b), 0);
    cr_assert_eq(spec.cls->finish(op, NULL), 0);
    spec.cls->close(op);
    weir_operator_spec_release(&spec);
    char *t = read_file(pn_path(tpath("csv/part-0-0.csv")));
    cr_assert_str_eq(t, "1,v1\n2,v2\n");
    free(t);
    b->kind[1] = WEIR_ROW_UPDATE_BEFORE;
    spec = file_sink_spec(tpath("csv"), WEIR_FORMAT_CSV, 0, false);
    op = sink_create(&spec, s, 0, 1);
    cr_assert_eq(spec.cls->process(op, NULL, 0, b), WEIR_EUNSUPPORTED);
    cr_assert_str_eq(weir__sink_last_error(op)->message,
                     "format 'csv' writes only inserts (+I), got a -U row; use "
                     "'debezium-json' for a changelog");
    spec.cls->close(op);
    const char *why;
    cr_assert_not(weir_sink_spec_accepts_changelog(&spec, &why));
    cr_assert_str_eq(why, "the filesystem sink with format 'csv' is "
                          "append-only; use 'format' = 'debezium-json' to "
                          "write a changelog");
    weir_operator_spec_release(&spec);
    spec = file_sink_spec(tpath("cdc"), WEIR_FORMAT_DEBEZIUM_JSON, 0, false);
    cr_assert(weir_sink_spec_accepts_changelog(&spec, NULL));
    op = sink_create(&spec, s, 0, 1);
    cr_assert_eq(spec.cls->process(op, NULL, 0, b), 0);
    cr_assert_eq(spec.cls->finish(op, NULL), 0);
    spec.cls->close(op);
    weir_operator_spec_release(&spec);
    t = read_file(pn_path(tpath("cdc/part-0-0.json")));
    cr_assert_str_eq(
        t, "{\"before\":null,\"after\":{\"k\":1,\"v\":\"v1\"},\"op\":\"c\"}\n"
           "{\"before\":{\"k\":2,\"v\":\"v2\"},\"after\":null,\"op\":\"d\"}\n");
    free(t);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

Test(file_sink, two_phase_commit_on_checkpoints_and_restore, .init = make_tmp,
     .fini = cleanup_tmp)
{
    weir_schema *s = kv_schema();
    weir_batch *b1 = kv_batch(s, 1, 1), *b2 = kv_batch(s, 1, 2),
               *b3 = kv_batch(s, 1, 3);
    weir_operator_spec spec =
        file_sink_spec(tpath("tx"), WEIR_FORMAT_JSON, 0, true);
    void *op = sink_create(&spec, s, 0, 1);
    weir_buf snap1, snap2;
    weir_buf_init(&snap1);
    weir_buf_init(&snap2);
    cr_assert_eq(spec.cls->process(op, NULL, 0, b1), 0);
    cr_assert_eq(spec.cls->snapshot(op, NULL, 1, &snap1),
                 0); /* pre-commit: part-0-0 pending for ckpt 1 */
    cr_assert_eq(spec.cls->process(op, NULL, 0, b2), 0);
    cr_assert_eq(spec.cls->snapshot(op, NULL, 2, &snap2),
                 0); /* part-0-1 pending for ckpt 2 */
    cr_assert_eq(spec.cls->process(op, NULL, 0, b3),
                 0); /* part-0-2 in progress */
    cr_assert_str_eq(list_dir(tpath("tx")),
                     ".part-0-0.json.inprogress .part-0-1.json.inprogress "
                     ".part-0-2.json.inprogress");
    cr_assert_eq(spec.cls->checkpoint_complete(op, NULL, 1), 0);
    cr_assert_str_eq(
        list_dir(tpath("tx")),
        ".part-0-1.json.inprogress .part-0-2.json.inprogress part-0-0.json");
    spec.cls->close(op); /* crash: checkpoint 2 never completed here */

    /* Recovery from checkpoint 2: its pending file is committed, later output
     * aborted. */
    op = sink_create(&spec, s, 0, 1);
    weir_cursor c;
    weir_cursor_init(&c, snap2.data, snap2.len);
    cr_assert_eq(spec.cls->restore(op, NULL, &c), 0);
    cr_assert_str_eq(list_dir(tpath("tx")), "part-0-0.json part-0-1.json");
    cr_assert_eq(spec.cls->process(op, NULL, 0, b3),
                 0); /* the replay writes part-0-2 again */
    cr_assert_eq(spec.cls->finish(op, NULL), 0);
    spec.cls->close(op);
    cr_assert_str_eq(list_dir(tpath("tx")),
                     "part-0-0.json part-0-1.json part-0-2.json");
    char *t = read_file(pn_path(tpath("tx/part-0-2.json")));
    cr_assert_str_eq(t, "{\"k\":3,\"v\":\"v3\"}\n");
    free(t);
    /* Restoring checkpoint 1 again is harmless: its file is visible already. */
    op = sink_create(&spec, s, 0, 1);
    weir_cursor_init(&c, snap1.data, snap1.len);
    cr_assert_eq(spec.cls->restore(op, NULL, &c), 0);
    spec.cls->close(op);
    weir_buf_fini(&snap1);
    weir_buf_fini(&snap2);
    weir_operator_spec_release(&spec);
    weir_batch_destroy(b1);
    weir_batch_destroy(b2);
    weir_batch_destroy(b3);
    weir_schema_destroy(s);
}

/* Sink node_id of a job writing into dir, with commit on checkpoint; each
 * call is a new run of that job. */
static weir_operator_spec job_sink_spec(const char *dir, const char *job_id)
{
    weir_file_sink_config cfg;
    weir_file_sink_config_init(&cfg);
    cfg.path = dir;
    cfg.rollover_interval_ms = -1;
    cfg.commit_on_checkpoint = true;
    cfg.job_id = job_id;
    weir_operator_spec spec;
    weir_error err;
    cr_assert_eq(weir_file_sink_spec(&cfg, &spec, &err), 0, "%s", err.message);
    return spec;
}

static void *node_sink_create(weir_operator_spec *spec, const weir_schema *s,
                              uint32_t node_id)
{
    const weir_schema *in[1] = {s};
    weir_op_info info = {.subtask = 0,
                         .parallelism = 1,
                         .max_parallelism = 128,
                         .n_inputs = 1,
                         .input_schemas = in,
                         .batch_size = 64,
                         .node_id = node_id};
    void *op;
    cr_assert_eq(spec->create(spec->arg, &info, &op), 0);
    cr_assert_eq(spec->cls->open(op, NULL), 0);
    return op;
}

/* How many entries of dir's listing contain needle. */
static int count_in_dir(const char *dir, const char *needle)
{
    int n = 0;
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    struct dirent *e;
    while ((e = readdir(d)))
        n += strstr(e->d_name, needle) != NULL;
    closedir(d);
    return n;
}

Test(file_sink, two_writers_into_one_folder_restore_only_their_own,
     .init = make_tmp, .fini = cleanup_tmp)
{
    weir_schema *s = kv_schema();
    weir_batch *b1 = kv_batch(s, 1, 1), *b2 = kv_batch(s, 1, 2);
    const char *dir = tpath("shared");
    /* Run 1 of the job: sinks (nodes) 7 and 8 write into one folder. */
    weir_operator_spec run1 = job_sink_spec(dir, "/jobs/one");
    void *a = node_sink_create(&run1, s, 7), *b = node_sink_create(&run1, s, 8);
    weir_buf a1, b1s, a2, b2s;
    weir_buf_init(&a1);
    weir_buf_init(&b1s);
    weir_buf_init(&a2);
    weir_buf_init(&b2s);
    cr_assert_eq(run1.cls->process(a, NULL, 0, b1), 0);
    cr_assert_eq(run1.cls->process(b, NULL, 0, b1), 0);
    cr_assert_eq(run1.cls->snapshot(a, NULL, 1, &a1), 0);
    cr_assert_eq(run1.cls->snapshot(b, NULL, 1, &b1s), 0);
    /* Both subtask 0, both counter 0: the names still differ. */
    cr_assert_str_eq(list_dir(dir), ".part-0-0.json.inprogress "
                                    ".part-0-0.json.inprogress");
    cr_assert_eq(run1.cls->process(a, NULL, 0, b2), 0);
    cr_assert_eq(run1.cls->process(b, NULL, 0, b2), 0);
    cr_assert_eq(run1.cls->snapshot(a, NULL, 2, &a2), 0);
    cr_assert_eq(run1.cls->snapshot(b, NULL, 2, &b2s), 0);
    /* Checkpoint 1 completes for both; the process dies before checkpoint
     * 2 completes: its files stay hidden. */
    cr_assert_eq(run1.cls->checkpoint_complete(a, NULL, 1), 0);
    cr_assert_eq(run1.cls->checkpoint_complete(b, NULL, 1), 0);
    cr_assert_str_eq(list_dir(dir),
                     ".part-0-1.json.inprogress .part-0-1.json.inprogress "
                     "part-0-0.json part-0-0.json");
    cc_crash_close(&run1, a, dir);
    cc_crash_close(&run1, b, dir);

    /* Another job's file in progress in the same folder. */
    weir_operator_spec other = job_sink_spec(dir, "/jobs/other");
    void *o = node_sink_create(&other, s, 7);
    cr_assert_eq(other.cls->process(o, NULL, 0, b1), 0);
    cc_crash_close(&other, o, dir);
    /* Run 2 restores writer 7 from checkpoint 1 (its checkpoint-2 file
     * goes), writes, and dies before its next checkpoint. */
    weir_operator_spec run2 = job_sink_spec(dir, "/jobs/one");
    a = node_sink_create(&run2, s, 7);
    weir_cursor c;
    weir_cursor_init(&c, a1.data, a1.len);
    cr_assert_eq(run2.cls->restore(a, NULL, &c), 0);
    cr_assert_eq(count_in_dir(dir, ".inprogress"), 2);
    cr_assert_eq(run2.cls->process(a, NULL, 0, b2), 0);
    cc_crash_close(&run2, a, dir);
    cr_assert_eq(count_in_dir(dir, ".inprogress"), 3);

    /* Run 3 restores checkpoint 1 again: run 2's file of writer 7 goes too
     * (same job and writer, no checkpoint covers it); writer 8's and the
     * other job's stay until writer 8 restores. */
    weir_operator_spec run3 = job_sink_spec(dir, "/jobs/one");
    a = node_sink_create(&run3, s, 7);
    weir_cursor_init(&c, a1.data, a1.len);
    cr_assert_eq(run3.cls->restore(a, NULL, &c), 0);
    cr_assert_eq(count_in_dir(dir, ".inprogress"), 2);
    b = node_sink_create(&run3, s, 8);
    weir_cursor_init(&c, b1s.data, b1s.len);
    cr_assert_eq(run3.cls->restore(b, NULL, &c), 0);
    cr_assert_eq(count_in_dir(dir, ".inprogress"), 1, "the other job's");
    cr_assert_eq(run3.cls->process(a, NULL, 0, b2), 0);
    cr_assert_eq(run3.cls->process(b, NULL, 0, b2), 0);
    cr_assert_eq(run3.cls->finish(a, NULL), 0);
    cr_assert_eq(run3.cls->finish(b, NULL), 0);
    run3.cls->close(a);
    run3.cls->close(b);
    cr_assert_str_eq(list_dir(dir), ".part-0-0.json.inprogress part-0-0.json "
                                    "part-0-0.json part-0-0.json "
                                    "part-0-0.json");
    weir_buf_fini(&a1);
    weir_buf_fini(&b1s);
    weir_buf_fini(&a2);
    weir_buf_fini(&b2s);
    weir_operator_spec_release(&run1);
    weir_operator_spec_release(&run2);
    weir_operator_spec_release(&run3);
    weir_operator_spec_release(&other);
    weir_batch_destroy(b1);
    weir_batch_destroy(b2);
    weir_schema_destroy(s);
}

Test(file_sink, without_a_job_id_restores_carry_the_writer_on,
     .init = make_tmp, .fini = cleanup_tmp)
{
    weir_schema *s = kv_schema();
    weir_batch *b1 = kv_batch(s, 1, 1);
    const char *dir = tpath("nojob");
    /* Another job without an id writes into the folder too. */
    weir_operator_spec other = job_sink_spec(dir, NULL);
    void *o = node_sink_create(&other, s, 7);
    cr_assert_eq(other.cls->process(o, NULL, 0, b1), 0);
    cc_crash_close(&other, o, dir);
    weir_operator_spec run = job_sink_spec(dir, NULL);
    void *a = node_sink_create(&run, s, 7);
    weir_buf ck;
    weir_buf_init(&ck);
    cr_assert_eq(run.cls->process(a, NULL, 0, b1), 0);
    cr_assert_eq(run.cls->snapshot(a, NULL, 1, &ck), 0);
    cr_assert_eq(run.cls->checkpoint_complete(a, NULL, 1), 0);
    cc_crash_close(&run, a, dir);
    weir_operator_spec_release(&run);
    /* Three runs restore checkpoint 1, write and die: each restore deletes
     * what the runs before it wrote after the checkpoint. */
    for (int i = 0; i < 3; i++) {
        run = job_sink_spec(dir, NULL);
        a = node_sink_create(&run, s, 7);
        weir_cursor c;
        weir_cursor_init(&c, ck.data, ck.len);
        cr_assert_eq(run.cls->restore(a, NULL, &c), 0);
        cr_assert_eq(count_in_dir(dir, ".inprogress"), 1, "run %d", i);
        cr_assert_eq(run.cls->process(a, NULL, 0, b1), 0);
        cc_crash_close(&run, a, dir);
        cr_assert_eq(count_in_dir(dir, ".inprogress"), 2);
        weir_operator_spec_release(&run);
    }
    cr_assert_eq(count_in_dir(dir, "part-"), 3);
    weir_buf_fini(&ck);
    weir_operator_spec_release(&other);
    weir_batch_destroy(b1);
    weir_schema_destroy(s);
}

Test(file_sink, restoring_an_older_checkpoint_removes_later_output,
     .init = make_tmp, .fini = cleanup_tmp)
{
    weir_schema *s = kv_schema();
    weir_batch *b1 = kv_batch(s, 1, 1), *b2 = kv_batch(s, 1, 2);
    const char *dir = tpath("older");
    weir_operator_spec other = job_sink_spec(dir, "/jobs/other");
    void *o = node_sink_create(&other, s, 7);
    cr_assert_eq(other.cls->process(o, NULL, 0, b1), 0);
    cr_assert_eq(other.cls->finish(o, NULL), 0);
    other.cls->close(o);
    /* Run 1: checkpoint 1 (file 0) and checkpoint 2 (file 1) complete. */
    weir_operator_spec run1 = job_sink_spec(dir, "/jobs/one");
    void *a = node_sink_create(&run1, s, 7);
    weir_buf c1, c2, c3;
    weir_buf_init(&c1);
    weir_buf_init(&c2);
    weir_buf_init(&c3);
    cr_assert_eq(run1.cls->process(a, NULL, 0, b1), 0);
    cr_assert_eq(run1.cls->snapshot(a, NULL, 1, &c1), 0);
    cr_assert_eq(run1.cls->checkpoint_complete(a, NULL, 1), 0);
    cr_assert_eq(run1.cls->process(a, NULL, 0, b2), 0);
    cr_assert_eq(run1.cls->snapshot(a, NULL, 2, &c2), 0);
    cr_assert_eq(run1.cls->checkpoint_complete(a, NULL, 2), 0);
    run1.cls->close(a);
    cr_assert_str_eq(list_dir(dir),
                     "part-0-0.json part-0-0.json part-0-1.json");
    /* Run 2 restores checkpoint 1 (a savepoint, say): file 1 is output
     * after it and goes; the other job's file stays. The replay writes its
     * own file and checkpoint 3 commits it. */
    weir_operator_spec run2 = job_sink_spec(dir, "/jobs/one");
    a = node_sink_create(&run2, s, 7);
    weir_cursor c;
    weir_cursor_init(&c, c1.data, c1.len);
    cr_assert_eq(run2.cls->restore(a, NULL, &c), 0);
    cr_assert_str_eq(list_dir(dir), "part-0-0.json part-0-0.json");
    cr_assert_eq(run2.cls->process(a, NULL, 0, b2), 0);
    cr_assert_eq(run2.cls->snapshot(a, NULL, 3, &c3), 0);
    cr_assert_eq(run2.cls->checkpoint_complete(a, NULL, 3), 0);
    run2.cls->close(a);
    cr_assert_str_eq(list_dir(dir),
                     "part-0-0.json part-0-0.json part-0-0.json");
    /* Run 3 restores checkpoint 3: its history (run 1 up to file 0, run 2
     * up to file 0) covers every visible file; nothing goes. */
    weir_operator_spec run3 = job_sink_spec(dir, "/jobs/one");
    a = node_sink_create(&run3, s, 7);
    weir_cursor_init(&c, c3.data, c3.len);
    cr_assert_eq(run3.cls->restore(a, NULL, &c), 0);
    cr_assert_eq(run3.cls->finish(a, NULL), 0);
    run3.cls->close(a);
    cr_assert_str_eq(list_dir(dir),
                     "part-0-0.json part-0-0.json part-0-0.json");
    weir_buf_fini(&c1);
    weir_buf_fini(&c2);
    weir_buf_fini(&c3);
    weir_operator_spec_release(&run1);
    weir_operator_spec_release(&run2);
    weir_operator_spec_release(&run3);
    weir_operator_spec_release(&other);
    weir_batch_destroy(b1);
    weir_batch_destroy(b2);
    weir_schema_destroy(s);
}

/* Subtask i of p of node 7 of the job "/jobs/one" (a new run per spec). */
static void *job_sink_at(weir_operator_spec *spec, const weir_schema *s,
                         uint32_t subtask, uint32_t p)
{
    const weir_schema *in[1] = {s};
    weir_op_info info = {.subtask = subtask,
                         .parallelism = p,
                         .max_parallelism = 128,
                         .n_inputs = 1,
                         .input_schemas = in,
                         .batch_size = 64,
                         .node_id = 7};
    void *op;
    cr_assert_eq(spec->create(spec->arg, &info, &op), 0);
    cr_assert_eq(spec->cls->open(op, NULL), 0);
    return op;
}

/* One run restoring the checkpoint states[0..n) at parallelism p, as the
 * runtime does: every subtask reads the union of the states, then its own
 * and (a scale-down) those of old subtasks i + p, i + 2p, ... */
static void run_restore(weir_operator_spec *spec, void **ops, uint32_t p,
                        const weir_buf *states, uint32_t n,
                        const weir_schema *s)
{
    weir_cursor cur[4];
    cr_assert(n <= 4);
    for (uint32_t i = 0; i < p; i++) {
        ops[i] = job_sink_at(spec, s, i, p);
        for (uint32_t j = 0; j < n; j++)
            weir_cursor_init(&cur[j], states[j].data, states[j].len);
        cr_assert_eq(spec->cls->restore_union(ops[i], NULL, cur, n), 0);
        for (uint32_t j = i; j < n; j += p) {
            weir_cursor_init(&cur[0], states[j].data, states[j].len);
            cr_assert_eq(spec->cls->restore(ops[i], NULL, &cur[0]), 0);
        }
    }
}

/* A version-6 state (before the runs known at other indexes) from a
 * version-7 one: the list after the history dropped. */
static void state_v6(const weir_buf *v7, weir_buf *out)
{
    weir_cursor c;
    weir_cursor_init(&c, v7->data, v7->len);
    uint32_t version, u32;
    uint64_t u64;
    cr_assert_eq(weir_cursor_get_u32(&c, &version), 0);
    cr_assert_eq(version, 7);
    cr_assert_eq(weir_cursor_get_u32(&c, &u32), 0); /* subtask */
    cr_assert_eq(weir_cursor_get_u32(&c, &u32), 0); /* writer */
    cr_assert_eq(weir_cursor_get_u64(&c, &u64), 0); /* run */
    cr_assert_eq(weir_cursor_get_u64(&c, &u64), 0); /* next part */
    uint32_t nr, nk;
    cr_assert_eq(weir_cursor_get_u32(&c, &nr), 0);
    size_t history_end = v7->len - weir_cursor_left(&c) + (size_t)nr * 16;
    weir_cursor_init(&c, v7->data + history_end, v7->len - history_end);
    cr_assert_eq(weir_cursor_get_u32(&c, &nk), 0);
    size_t rest = history_end + 4 + (size_t)nk * 8;
    weir_buf_init(out);
    cr_assert_eq(weir_buf_put_u32(out, 6), 0);
    cr_assert_eq(weir_buf_put(out, v7->data + 4, history_end - 4), 0);
    cr_assert_eq(weir_buf_put(out, v7->data + rest, v7->len - rest), 0);
}

Test(file_sink, a_savepoint_restored_twice_at_a_higher_parallelism,
     .init = make_tmp, .fini = cleanup_tmp)
{
    weir_schema *s = kv_schema();
    weir_batch *b1 = kv_batch(s, 1, 1), *b2 = kv_batch(s, 1, 2);
    const char *dir = tpath("twice");
    /* Run 1 at parallelism 1: a savepoint (checkpoint 1) with file 0. */
    weir_operator_spec run1 = job_sink_spec(dir, "/jobs/one");
    void *ops[4];
    weir_buf sp, sp6;
    weir_buf_init(&sp);
    ops[0] = job_sink_at(&run1, s, 0, 1);
    cr_assert_eq(run1.cls->process(ops[0], NULL, 0, b1), 0);
    cr_assert_eq(run1.cls->snapshot(ops[0], NULL, 1, &sp), 0);
    cr_assert_eq(run1.cls->checkpoint_complete(ops[0], NULL, 1), 0);
    run1.cls->close(ops[0]);
    state_v6(&sp, &sp6);
    /* Run A restores it at parallelism 4; every subtask commits a file at
     * checkpoint 2; then it dies. */
    weir_operator_spec runa = job_sink_spec(dir, "/jobs/one");
    run_restore(&runa, ops, 4, &sp, 1, s);
    for (uint32_t i = 0; i < 4; i++) {
        weir_buf ck;
        weir_buf_init(&ck);
        cr_assert_eq(runa.cls->process(ops[i], NULL, 0, b2), 0);
        cr_assert_eq(runa.cls->snapshot(ops[i], NULL, 2, &ck), 0);
        cr_assert_eq(runa.cls->checkpoint_complete(ops[i], NULL, 2), 0);
        weir_buf_fini(&ck);
        cc_crash_close(&runa, ops[i], dir);
    }
    cr_assert_str_eq(list_dir(dir), "part-0-0.json part-0-0.json "
                                    "part-1-0.json part-2-0.json part-3-0.json");
    /* The savepoint as an earlier weir wrote it (version 6) restores as
     * before: subtask 0's file of run A goes, those of indexes 1-3 (no
     * state there) stay. */
    weir_operator_spec runo = job_sink_spec(dir, "/jobs/one");
    run_restore(&runo, ops, 4, &sp6, 1, s);
    for (uint32_t i = 0; i < 4; i++)
        cc_crash_close(&runo, ops[i], dir);
    cr_assert_str_eq(list_dir(dir), "part-0-0.json part-1-0.json "
                                    "part-2-0.json part-3-0.json");
    /* Run B restores the savepoint again, at parallelism 2: run A is in no
     * history of it, so its files go, at index 1 (subtask 1, no state) and
     * at 2 and 3 (gone now: subtasks 0 and 1 stand for them). */
    weir_operator_spec runb = job_sink_spec(dir, "/jobs/one");
    run_restore(&runb, ops, 2, &sp, 1, s);
    cr_assert_str_eq(list_dir(dir), "part-0-0.json");
    for (uint32_t i = 0; i < 2; i++)
        runb.cls->close(ops[i]);
    weir_buf_fini(&sp);
    weir_buf_fini(&sp6);
    weir_operator_spec_release(&run1);
    weir_operator_spec_release(&runa);
    weir_operator_spec_release(&runo);
    weir_operator_spec_release(&runb);
    weir_batch_destroy(b1);
    weir_batch_destroy(b2);
    weir_schema_destroy(s);
}

Test(file_sink, a_scale_up_keeps_files_of_an_index_a_scale_down_took_away,
     .init = make_tmp, .fini = cleanup_tmp)
{
    weir_schema *s = kv_schema();
    weir_batch *b1 = kv_batch(s, 1, 1);
    const char *dir = tpath("p214");
    /* Run P at parallelism 2: both subtasks commit a file at checkpoint 1. */
    weir_operator_spec runp = job_sink_spec(dir, "/jobs/one");
    void *ops[4];
    weir_buf st[2], q;
    for (uint32_t i = 0; i < 2; i++) {
        weir_buf_init(&st[i]);
        ops[i] = job_sink_at(&runp, s, i, 2);
        cr_assert_eq(runp.cls->process(ops[i], NULL, 0, b1), 0);
        cr_assert_eq(runp.cls->snapshot(ops[i], NULL, 1, &st[i]), 0);
        cr_assert_eq(runp.cls->checkpoint_complete(ops[i], NULL, 1), 0);
        runp.cls->close(ops[i]);
    }
    /* Run Q at 1 restores it (subtask 0 takes index 1's state) and commits
     * a file at checkpoint 2. */
    weir_operator_spec runq = job_sink_spec(dir, "/jobs/one");
    run_restore(&runq, ops, 1, st, 2, s);
    weir_buf_init(&q);
    cr_assert_eq(runq.cls->process(ops[0], NULL, 0, b1), 0);
    cr_assert_eq(runq.cls->snapshot(ops[0], NULL, 2, &q), 0);
    cr_assert_eq(runq.cls->checkpoint_complete(ops[0], NULL, 2), 0);
    runq.cls->close(ops[0]);
    cr_assert_str_eq(list_dir(dir), "part-0-0.json part-0-0.json part-1-0.json");
    /* Run R at 4 restores checkpoint 2: index 1's file of run P came before
     * it (run P is in its history) and stays, whichever subtask looks. */
    weir_operator_spec runr = job_sink_spec(dir, "/jobs/one");
    run_restore(&runr, ops, 4, &q, 1, s);
    cr_assert_str_eq(list_dir(dir), "part-0-0.json part-0-0.json part-1-0.json");
    for (uint32_t i = 0; i < 4; i++)
        runr.cls->close(ops[i]);
    weir_buf_fini(&st[0]);
    weir_buf_fini(&st[1]);
    weir_buf_fini(&q);
    weir_operator_spec_release(&runp);
    weir_operator_spec_release(&runq);
    weir_operator_spec_release(&runr);
    weir_batch_destroy(b1);
    weir_schema_destroy(s);
}

Test(file_sink, commit_checks_every_file_before_the_first_rename,
     .init = make_tmp, .fini = cleanup_tmp)
{
    weir_schema *s = kv_schema();
    weir_batch *b = kv_batch(s, 3, 1);
    /* 17 bytes a row, rolled at 17: three pending files for checkpoint 1. */
    weir_operator_spec spec =
        file_sink_spec(tpath("tx"), WEIR_FORMAT_JSON, 17, true);
    void *op = sink_create(&spec, s, 0, 1);
    weir_buf snap;
    weir_buf_init(&snap);
    cr_assert_eq(spec.cls->process(op, NULL, 0, b), 0);
    cr_assert_eq(spec.cls->snapshot(op, NULL, 1, &snap), 0);
    cr_assert_str_eq(list_dir(tpath("tx")),
                     ".part-0-0.json.inprogress .part-0-1.json.inprogress "
                     ".part-0-2.json.inprogress");
    /* Something removes one of them (before the fix: another writer of the
     * same table reusing the name). */
    cr_assert_eq(unlink(pn_path(tpath("tx/.part-0-2.json.inprogress"))), 0);
    cr_assert_eq(spec.cls->checkpoint_complete(op, NULL, 1), WEIR_ENOTFOUND);
    char got[600], want[600];
    snprintf(got, sizeof got, "%s", weir__sink_last_error(op)->message);
    snprintf(want, sizeof want,
             "%s/part-0-2.json: error: cannot commit: the pending file is "
             "gone (no .part-0-2.json.inprogress): nothing of this commit "
             "was made visible",
             tpath("tx"));
    cr_assert_str_eq(pn_short(got), want);
    cr_assert_str_eq(list_dir(tpath("tx")),
                     ".part-0-0.json.inprogress .part-0-1.json.inprogress",
                     "nothing of checkpoint 1 is visible");
    spec.cls->close(op);
    weir_buf_fini(&snap);
    weir_operator_spec_release(&spec);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

static ssize_t enospc_write(int fd, const void *buf, size_t n)
{
    errno = ENOSPC;
    return -1;
}

Test(file_sink, write_errors_are_reported, .init = make_tmp,
     .fini = cleanup_tmp)
{
    weir_schema *s = kv_schema();
    weir_batch *b = kv_batch(s, 1, 1);
    weir_operator_spec spec =
        file_sink_spec(tpath("full"), WEIR_FORMAT_JSON, 0, false);
    void *op = sink_create(&spec, s, 0, 1);
    cr_assert_eq(spec.cls->process(op, NULL, 0, b), 0);
    weir__file_io io = weir__fio_posix;
    io.write = enospc_write;
    weir__fio = &io;
    int rc = spec.cls->finish(op, NULL);
    weir__fio = &weir__fio_posix;
    cr_assert_eq(rc, WEIR_ENOSPC);
    char expect[600];
    snprintf(expect, sizeof expect,
             "%s/part-0-0.json: error: cannot write: No space left on device",
             tpath("full"));
    char got[600];
    snprintf(got, sizeof got, "%s", weir__sink_last_error(op)->message);
    cr_assert_str_eq(pn_short(got), expect);
    spec.cls->close(op);
    cr_assert_str_eq(list_dir(tpath("full")), ".part-0-0.json.inprogress",
                     "a failed file is never made visible");
    weir_operator_spec_release(&spec);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

Test(file_sink, options, .init = make_tmp, .fini = cleanup_tmp)
{
    weir_schema *s = kv_schema();
    weir_option opts[] = {{"connector", "filesystem"},
                          {"path", tpath("o")},
                          {"format", "csv"},
                          {"csv.field-delimiter", "\\t"},
                          {"sink.rolling-policy.file-size", "1 kb"}};
    weir_operator_spec spec;
    weir_error err;
    cr_assert_eq(weir_connector_sink_spec(NULL, opts, 5, s, NULL, &spec, &err),
                 0, "%s", err.message);
    weir_batch *b = kv_batch(s, 1, 1);
    void *op = sink_create(&spec, s, 0, 1);
    cr_assert_eq(spec.cls->process(op, NULL, 0, b), 0);
    cr_assert_eq(spec.cls->finish(op, NULL), 0);
    spec.cls->close(op);
    weir_operator_spec_release(&spec);
    char *t = read_file(pn_path(tpath("o/part-0-0.csv")));
    cr_assert_str_eq(t, "1\tv1\n");
    free(t);
    weir_option bad[] = {{"path", "x"}, {"format", "avro"}};
    int idx = 7;
    weir_connector_env env = {.bad_option_index = &idx};
    cr_assert_eq(
        weir_connector_sink_spec("filesystem", bad, 2, s, &env, &spec, &err),
        WEIR_EUNSUPPORTED);
    cr_assert_str_eq(err.message,
                     "option 'format': unsupported format 'avro' (weir has "
                     "'json', 'csv' and 'debezium-json')");
    cr_assert_eq(idx, 1);
    weir_option nopath[] = {{"format", "json"}};
    cr_assert_eq(
        weir_connector_sink_spec("filesystem", nopath, 1, s, &env, &spec, &err),
        WEIR_EINVAL);
    cr_assert_str_eq(err.message, "connector 'filesystem' needs option 'path'");
    cr_assert_eq(
        weir_connector_sink_spec("hbase-2.2", nopath, 1, s, &env, &spec, &err),
        WEIR_EUNSUPPORTED);
    cr_assert_str_eq(err.message,
                     "unsupported connector 'hbase-2.2' as a sink (weir has "
                     "'filesystem', 'print', 'blackhole', 'jdbc', 'kafka', "
                     "'upsert-kafka' and 'nats')");
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

/* ---- source options ---- */

Test(file_source, options_map_to_the_config, .init = make_tmp,
     .fini = cleanup_tmp)
{
    write_file(tpath("in.csv"), "1;a\n2;b\nbad\n3;c\n");
    weir_schema *s = kv_schema();
    weir_option opts[] = {{"connector", "filesystem"},
                          {"path", tpath("in.csv")},
                          {"format", "csv"},
                          {"csv.field-delimiter", ";"},
                          {"csv.ignore-parse-errors", "true"},
                          {"scan.watermark.idle-timeout", "5 s"}};
    src_handle h;
    memset(&h, 0, sizeof h);
    cr_assert_eq(
        weir_connector_source_spec(NULL, opts, 6, s, NULL, &h.spec, &h.err), 0,
        "%s", h.err.message);
    src_open(&h, 0, 1);
    const char *ids[1];
    discover_all(&h, ids, 1);
    char out[256] = "";
    cr_assert_eq(read_split(&h, ids[0], NULL, 0, 8, 0, out, sizeof out, NULL),
                 0);
    cr_assert_str_eq(out, "1:a\n2:b\n3:c\n");
    cr_assert_eq(metric(&h, "skipped_records"), 1);
    src_close(&h);

    static const struct {
        weir_option opt[4];
        int n;
        const char *message;
    } cases[] = {
        {{{"path", "x"}},
         1,
         "connector 'filesystem' needs option 'format' ('json', 'csv' or "
         "'debezium-json')"},
        {{{"path", "x"},
          {"format", "debezium-json"},
          {"debezium-json.schema-includ", "true"}},
         3,
         "unsupported option 'debezium-json.schema-includ' for connector "
         "'filesystem' (did you mean 'debezium-json.schema-include'?)"},
        {{{"path", "x"},
          {"format", "json"},
          {"source.monitor-interval", "soon"}},
         3,
         "option 'source.monitor-interval': expected a duration such as '10 "
         "s', '500 ms' or '1 min', found 'soon'"},
        {{{"path", "x"},
          {"format", "json"},
          {"json.ignore-parse-error", "true"}},
         3,
         "unsupported option 'json.ignore-parse-error' for connector "
         "'filesystem' (did you mean "
         "'json.ignore-parse-errors'?)"},
        {{{"path", "x"},
          {"format", "json"},
          {"source.bad-input", "dead-letter"}},
         3,
         "filesystem source: the dead-letter policy needs "
         "'source.dead-letter.path'"},
        {{{"path", "x"},
          {"format", "json"},
          {"json.ignore-parse-errors", "true"},
          {"source.bad-input", "fail"}},
         4,
         "option 'source.bad-input' = 'fail' contradicts "
         "'json.ignore-parse-errors' = 'true'"},
        {{{"path", "x"}, {"format", "csv"}, {"csv.escape-character", "\\"}},
         3,
         "option 'csv.escape-character' is not supported: weir reads RFC 4180 "
         "CSV, where a quote inside a quoted "
         "field is doubled"},
        {{{"path", "x"}, {"format", "json"}, {"path", "y"}},
         3,
         "option 'path' is given twice"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        weir_source_spec spec;
        weir_error err = {0, ""};
        cr_assert_neq(weir_file_source_spec_opts(cases[i].opt,
                                                 (size_t)cases[i].n, s, NULL,
                                                 &spec, &err),
                      0, "case %zu", i);
        cr_expect_str_eq(err.message, cases[i].message, "case %zu", i);
    }
    weir_schema_destroy(s);
}

Test(options, durations_and_sizes_as_flink_writes_them)
{
    static const struct {
        const char *s;
        int64_t ms;
    } d[] = {{"10 s", 10000},     {"500ms", 500},       {"1 min", 60000},
             {"2h", 7200000},     {"1 d", 86400000},    {"250", 250},
             {"3 seconds", 3000}, {"1000000 us", 1000}, {"5 MIN", 300000}};
    for (size_t i = 0; i < sizeof d / sizeof *d; i++) {
        int64_t v = -1;
        cr_assert_eq(weir_option_parse_duration(d[i].s, &v), 0, "%s", d[i].s);
        cr_expect_eq(v, d[i].ms, "%s", d[i].s);
    }
    int64_t v;
    cr_assert_eq(weir_option_parse_duration("10 parsecs", &v), WEIR_EINVAL);
    cr_assert_eq(weir_option_parse_duration("-1 s", &v), WEIR_EINVAL);
    cr_assert_eq(weir_option_parse_duration("", &v), WEIR_EINVAL);
    static const struct {
        const char *s;
        uint64_t b;
    } z[] = {{"128MB", 128u << 20},
             {"64 kb", 64u << 10},
             {"1gb", 1u << 30},
             {"100 bytes", 100},
             {"7", 7},
             {"2 m", 2u << 20}};
    for (size_t i = 0; i < sizeof z / sizeof *z; i++) {
        uint64_t b = 0;
        cr_assert_eq(weir_option_parse_size(z[i].s, &b), 0, "%s", z[i].s);
        cr_expect_eq(b, z[i].b, "%s", z[i].s);
    }
    uint64_t b;
    cr_assert_eq(weir_option_parse_size("1 furlong", &b), WEIR_EINVAL);
    cr_assert_eq(weir_option_parse_size("99999999999 tb", &b), WEIR_EINVAL);
}

/* ---- through the runtime ---- */

#include "weir/job.h"

static weir_job *new_job(uint32_t parallelism)
{
    weir_job_config cfg;
    weir_job_config_init(&cfg);
    cfg.parallelism = parallelism;
    cfg.batch_size = 16;
    weir_job *job;
    cr_assert_eq(weir_job_create(&cfg, &job), 0);
    return job;
}

/* Sorts the lines of text in place (for outputs of parallel subtasks). */
static char *sorted_lines(char *text)
{
    char *lines[1024];
    int n = 0;
    for (char *l = strtok(text, "\n"); l && n < 1024; l = strtok(NULL, "\n"))
        lines[n++] = l;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (strcmp(lines[j], lines[i]) < 0) {
                char *t = lines[i];
                lines[i] = lines[j];
                lines[j] = t;
            }
    static char out[65536];
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        strcat(out, lines[i]);
        strcat(out, "\n");
    }
    return out;
}

Test(job, files_to_print_and_file_sink_in_parallel, .init = make_tmp,
     .fini = cleanup_tmp)
{
    mkdir(tpath("in"), 0777);
    write_file(tpath("in/1.json"),
               "{\"k\": 1, \"v\": \"a\"}\n{\"k\": 2, \"v\": \"b\"}\n");
    write_file(tpath("in/2.json"), "{\"k\": 3, \"v\": \"c\"}\n");
    write_file(tpath("in/3.json"), "{\"k\": 4}\n{\"k\": 5, \"v\": \"e\"}\n");
    weir_schema *s = kv_schema();
    weir_option src_opts[] = {
        {"connector", "filesystem"}, {"path", tpath("in")}, {"format", "json"}};
    weir_option out_opts[] = {
        {"connector", "filesystem"}, {"path", tpath("out")}, {"format", "csv"}};
    FILE *fp = fopen(tpath("print.txt"), "w");
    weir_connector_env env = {.print_out = fp};
    weir_option print_opts[] = {{"connector", "print"}};
    weir_source_spec src;
    weir_operator_spec print, files;
    weir_error err;
    cr_assert_eq(
        weir_connector_source_spec(NULL, src_opts, 3, s, &env, &src, &err), 0,
        "%s", err.message);
    cr_assert_eq(
        weir_connector_sink_spec(NULL, print_opts, 1, s, &env, &print, &err), 0,
        "%s", err.message);
    cr_assert_eq(
        weir_connector_sink_spec(NULL, out_opts, 3, s, &env, &files, &err), 0,
        "%s", err.message);
    weir_job *job = new_job(2);
    weir_stream st;
    cr_assert_eq(weir_job_source(job, &src, NULL, 2, &st), 0);
    cr_assert_eq(weir_job_sink(job, st, &print, 2), 0);
    cr_assert_eq(weir_job_sink(job, st, &files, 2), 0);
    cr_assert_eq(weir_job_run(job), 0, "%s", weir_job_error(job));
    weir_job_destroy(job);
    fclose(fp);
    char *text = read_file(tpath("print.txt"));
    cr_assert_str_eq(
        sorted_lines(text),
        "1> +I[1, a]\n1> +I[2, b]\n1> +I[4, null]\n1> +I[5, e]\n2> +I[3, c]\n");
    free(text);
    /* subtask 0 read files 1 and 3, subtask 1 file 2; every part file is
     * visible */
    cr_assert_str_eq(list_dir(tpath("out")), "part-0-0.csv part-1-0.csv");
    text = read_file(pn_path(tpath("out/part-0-0.csv")));
    cr_assert_str_eq(text, "1,a\n2,b\n4,\n5,e\n");
    free(text);
    weir_schema_destroy(s);
}

Test(job, bad_input_fails_the_job_with_its_location, .init = make_tmp,
     .fini = cleanup_tmp)
{
    write_file(tpath("bad.json"), bad_input);
    weir_schema *s = kv_schema();
    weir_option src_opts[] = {{"connector", "filesystem"},
                              {"path", tpath("bad.json")},
                              {"format", "json"}};
    weir_source_spec src;
    weir_operator_spec sink;
    weir_error err;
    uint64_t rows = 0;
    weir_blackhole_sink_config bh = {&rows};
    cr_assert_eq(
        weir_connector_source_spec(NULL, src_opts, 3, s, NULL, &src, &err), 0,
        "%s", err.message);
    cr_assert_eq(weir_blackhole_sink_spec(&bh, &sink, &err), 0);
    weir_job *job = new_job(1);
    weir_stream st;
    cr_assert_eq(weir_job_source(job, &src, NULL, 1, &st), 0);
    cr_assert_eq(weir_job_sink(job, st, &sink, 1), 0);
    cr_assert_eq(weir_job_run(job), WEIR_EPARSE);
    char expect[600];
    snprintf(expect, sizeof expect,
             "%s:2:23: error: expected '\"' to end the string, found end of "
             "record (offset 42)",
             tpath("bad.json"));
    cr_assert(strstr(weir_job_error(job), expect), "%s", weir_job_error(job));
    weir_job_destroy(job);
    weir_schema_destroy(s);
}

Test(job, datagen_into_blackhole)
{
    weir_schema *s = gen_schema();
    weir_source_spec src;
    weir_operator_spec sink;
    weir_error err;
    uint64_t rows = 0;
    weir_blackhole_sink_config bh = {&rows};
    cr_assert_eq(
        weir_datagen_source_spec_opts(
            gen_opts, sizeof gen_opts / sizeof *gen_opts, s, NULL, &src, &err),
        0);
    cr_assert_eq(weir_blackhole_sink_spec(&bh, &sink, &err), 0);
    weir_job *job = new_job(3);
    weir_stream st;
    cr_assert_eq(weir_job_source(job, &src, NULL, 3, &st), 0);
    cr_assert_eq(weir_job_sink(job, st, &sink, 2), 0);
    cr_assert_eq(weir_job_run(job), 0, "%s", weir_job_error(job));
    cr_assert_eq(rows, 1000);
    weir_job_destroy(job);
    weir_schema_destroy(s);
}

Test(job, sink_errors_reach_the_job, .init = make_tmp, .fini = cleanup_tmp)
{
    write_file(tpath("in.json"), "{\"k\": 1}\n");
    weir_schema *s = kv_schema();
    weir_file_source_config fcfg;
    weir_file_source_config_init(&fcfg);
    fcfg.path = tpath("in.json");
    weir_source_spec src;
    weir_error err;
    cr_assert_eq(weir_file_source_spec(&fcfg, s, &src, &err), 0);
    write_file(tpath("notadir"), "x");
    weir_operator_spec sink =
        file_sink_spec(tpath("notadir"), WEIR_FORMAT_JSON, 0, false);
    weir_job *job = new_job(1);
    weir_stream st;
    cr_assert_eq(weir_job_source(job, &src, NULL, 1, &st), 0);
    cr_assert_eq(weir_job_sink(job, st, &sink, 1), 0);
    cr_assert_neq(weir_job_run(job), 0);
    char expect[600];
    snprintf(expect, sizeof expect,
             "%s: error: cannot create directory: Not a directory",
             tpath("notadir"));
    cr_assert(strstr(weir_job_error(job), expect), "%s", weir_job_error(job));
    weir_job_destroy(job);
    weir_schema_destroy(s);
}

Test(options, one_table_definition_serves_as_source_and_sink)
{
    weir_schema *s = kv_schema();
    weir_option opts[] = {{"connector", "filesystem"},
                          {"path", "/tmp/weir-table"},
                          {"format", "json"},
                          {"source.monitor-interval", "10 s"},
                          {"json.ignore-parse-errors", "true"},
                          {"sink.rolling-policy.file-size", "1MB"},
                          {"sink.parallelism", "2"}};
    weir_source_spec src;
    weir_operator_spec sink;
    weir_error err;
    cr_assert_eq(weir_connector_source_spec(NULL, opts, 7, s, NULL, &src, &err),
                 0, "%s", err.message);
    cr_assert_eq(weir_connector_sink_spec(NULL, opts, 7, s, NULL, &sink, &err),
                 0, "%s", err.message);
    weir_source_spec_release(&src);
    weir_operator_spec_release(&sink);
    weir_schema_destroy(s);
}

Test(datagen, random_types_bounds_and_lengths)
{
    weir_schema *s = weir_schema_create();
    weir_schema_add(s, "d", weir_type_make(WEIR_TYPE_DOUBLE, false));
    weir_schema_add(s, "b", weir_type_make(WEIR_TYPE_BOOLEAN, false));
    weir_schema_add(s, "raw", weir_type_make(WEIR_TYPE_BYTES, false));
    weir_schema_add(s, "s", weir_type_make(WEIR_TYPE_STRING, false));
    weir_schema_add(s, "ts", weir_type_make(WEIR_TYPE_TIMESTAMP_LTZ, false));
    weir_schema_add(s, "big", weir_type_make(WEIR_TYPE_BIGINT, false));
    weir_option opts[] = {
        {"number-of-rows", "2000"},      {"fields.d.min", "-1.5"},
        {"fields.d.max", "2.5"},         {"fields.raw.length", "3"},
        {"fields.s.length", "8"},        {"fields.s.var-len", "true"},
        {"fields.ts.max-past", "1 min"}, {"fields.big.min", "-5"},
        {"fields.big.max", "5"}};
    weir_manual_clock *mc = weir_manual_clock_create(1700000000000);
    weir_connector_env env = {.clock = weir_manual_clock_get(mc)};
    weir_source_spec spec;
    weir_error err;
    cr_assert_eq(weir_datagen_source_spec_opts(opts, sizeof opts / sizeof *opts,
                                               s, &env, &spec, &err),
                 0, "%s", err.message);
    void *src, *rd;
    weir_source_info info = {.subtask = 0, .parallelism = 1, .batch_size = 2000, .schema = s};
    cr_assert_eq(spec.cls->create(spec.arg, &info, &src, &err), 0);
    cr_assert_eq(
        spec.cls->open_split(src, "datagen-0-of-1", NULL, 0, &rd, &err), 0);
    weir_batch *b = weir_batch_create(s, 2000);
    cr_assert_eq(spec.cls->read(rd, b, 2000, &err), 2000);
    int trues = 0, lens[9] = {0}, bigs[11] = {0};
    double lo = 1e9, hi = -1e9;
    for (uint32_t r = 0; r < 2000; r++) {
        double d = WEIR_COL_F64(b, 0)[r];
        lo = d < lo ? d : lo;
        hi = d > hi ? d : hi;
        trues += WEIR_COL_BOOL(b, 1)[r];
        uint32_t n;
        weir_batch_str(b, 2, r, &n);
        cr_assert_eq(n, 3);
        const char *str = weir_batch_str(b, 3, r, &n);
        cr_assert(n >= 1 && n <= 8, "length %u", n);
        lens[n]++;
        for (uint32_t i = 0; i < n; i++)
            cr_assert(strchr("0123456789abcdef", str[i]), "hex characters");
        int64_t ts = WEIR_COL_I64(b, 4)[r];
        cr_assert(ts <= 1700000000000 && ts >= 1700000000000 - 60000);
        int64_t big = WEIR_COL_I64(b, 5)[r];
        cr_assert(big >= -5 && big <= 5);
        bigs[big + 5]++;
    }
    cr_assert(lo >= -1.5 && hi <= 2.5 && lo < -1.4 && hi > 2.4, "[%g, %g]", lo,
              hi);
    cr_assert(trues > 900 && trues < 1100, "%d", trues);
    for (int i = 1; i <= 8; i++)
        cr_assert_gt(lens[i], 150, "length %d: %d", i, lens[i]);
    for (int i = 0; i < 11; i++)
        cr_assert_gt(bigs[i], 120, "value %d: %d", i - 5, bigs[i]);
    cr_assert_eq(spec.cls->read(rd, b, 10, &err), WEIR_EOF);
    weir_batch_destroy(b);
    spec.cls->close_split(rd);
    spec.cls->destroy(src);
    weir_source_spec_release(&spec);
    weir_manual_clock_destroy(mc);
    weir_schema_destroy(s);
}

/* DATE and TIME: without bounds today and the time of day now (UTC, from the
 * env's clock, to the TIME's precision); with bounds uniform in them. */
Test(datagen, date_time_random)
{
    weir_schema *s = weir_schema_create();
    weir_schema_add(s, "d", weir_type_make(WEIR_TYPE_DATE, false));
    weir_type t0 = weir_type_make(WEIR_TYPE_TIME, false), t3 = t0;
    t3.precision = 3;
    weir_schema_add(s, "t0", t0);
    weir_schema_add(s, "t3", t3);
    weir_schema_add(s, "bd", weir_type_make(WEIR_TYPE_DATE, false));
    weir_schema_add(s, "bt", t3);
    weir_option opts[] = {{"number-of-rows", "600"},
                          {"fields.bd.min", "2020-02-28"}, {"fields.bd.max", "2020-03-01"},
                          {"fields.bt.min", "23:59:59.998"}, {"fields.bt.max", "86399999"}};
    /* 2023-11-14 22:13:20.123 UTC: day 19675, 80000123 ms into it */
    weir_manual_clock *mc = weir_manual_clock_create(1700000000123);
    weir_connector_env env = {.clock = weir_manual_clock_get(mc)};
    weir_source_spec spec;
    weir_error err;
    cr_assert_eq(weir_datagen_source_spec_opts(opts, sizeof opts / sizeof *opts, s, &env, &spec, &err), 0, "%s",
                 err.message);
    void *src, *rd;
    weir_source_info info = {.subtask = 0, .parallelism = 1, .batch_size = 600, .schema = s};
    cr_assert_eq(spec.cls->create(spec.arg, &info, &src, &err), 0);
    cr_assert_eq(spec.cls->open_split(src, "datagen-0-of-1", NULL, 0, &rd, &err), 0);
    weir_batch *b = weir_batch_create(s, 600);
    cr_assert_eq(spec.cls->read(rd, b, 600, &err), 600);
    int days[3] = {0}, ms[2] = {0};
    for (uint32_t r = 0; r < 600; r++) {
        cr_assert_eq(WEIR_COL_I32(b, 0)[r], 19675);
        cr_assert_eq(WEIR_COL_I32(b, 1)[r], 80000000);
        cr_assert_eq(WEIR_COL_I32(b, 2)[r], 80000123);
        int32_t bd = WEIR_COL_I32(b, 3)[r], bt = WEIR_COL_I32(b, 4)[r];
        cr_assert(bd >= 18320 && bd <= 18322, "day %d", bd);
        cr_assert(bt >= 86399998 && bt <= 86399999, "time %d", bt);
        days[bd - 18320]++;
        ms[bt - 86399998]++;
    }
    for (int i = 0; i < 3; i++)
        cr_assert_gt(days[i], 150, "day %d: %d", i, days[i]);
    cr_assert(ms[0] > 250 && ms[1] > 250, "%d %d", ms[0], ms[1]);
    weir_batch_destroy(b);
    spec.cls->close_split(rd);
    spec.cls->destroy(src);
    weir_source_spec_release(&spec);
    weir_manual_clock_destroy(mc);
    weir_schema_destroy(s);
}

Test(file_sink, rolls_after_the_rollover_interval, .init = make_tmp,
     .fini = cleanup_tmp)
{
    weir_schema *s = kv_schema();
    weir_batch *b = kv_batch(s, 1, 1);
    weir_manual_clock *mc = weir_manual_clock_create(0);
    weir_file_sink_config cfg;
    weir_file_sink_config_init(&cfg);
    cfg.path = tpath("roll");
    cfg.rollover_interval_ms = 1000;
    cfg.clock = weir_manual_clock_get(mc);
    weir_operator_spec spec;
    weir_error err;
    cr_assert_eq(weir_file_sink_spec(&cfg, &spec, &err), 0);
    void *op = sink_create(&spec, s, 0, 1);
    cr_assert_eq(spec.cls->process(op, NULL, 0, b), 0);
    weir_manual_clock_advance(mc, 999);
    cr_assert_eq(spec.cls->process(op, NULL, 0, b), 0);
    cr_assert_str_eq(list_dir(tpath("roll")), ".part-0-0.json.inprogress");
    weir_manual_clock_advance(mc, 1);
    cr_assert_eq(spec.cls->process(op, NULL, 0, b), 0);
    cr_assert_str_eq(list_dir(tpath("roll")),
                     ".part-0-1.json.inprogress part-0-0.json");
    cr_assert_eq(spec.cls->finish(op, NULL), 0);
    spec.cls->close(op);
    char *t = read_file(pn_path(tpath("roll/part-0-0.json")));
    cr_assert_str_eq(t, "{\"k\":1,\"v\":\"v1\"}\n{\"k\":1,\"v\":\"v1\"}\n");
    free(t);
    weir_operator_spec_release(&spec);
    weir_manual_clock_destroy(mc);
    weir_batch_destroy(b);
    weir_schema_destroy(s);
}

Test(file_source, monitored_files_are_split_among_subtasks_once,
     .init = make_tmp, .fini = cleanup_tmp)
{
    /* Ownership is a hash of the path, and the folder's name is random:
     * with 120 files a subtask gets 40 on average, and 10 or fewer about
     * once in 10^9 runs (with 40 files, 3 or fewer came once in 3 000). */
    enum { N_FILES = 120 };
    mkdir(tpath("w"), 0777);
    char name[64];
    for (int i = 0; i < N_FILES; i++) {
        snprintf(name, sizeof name, "w/f%03d.json", i);
        write_file(tpath(name), "{\"k\": 1}\n");
    }
    weir_manual_clock *mc = weir_manual_clock_create(0);
    weir_schema *s = kv_schema();
    weir_file_source_config cfg;
    weir_file_source_config_init(&cfg);
    cfg.path = tpath("w");
    cfg.monitor_interval_ms = 100;
    cfg.clock = weir_manual_clock_get(mc);
    src_handle h;
    file_source(&h, &cfg, s);
    int seen[N_FILES] = {0}, per_task[3] = {0};
    for (uint32_t sub = 0; sub < 3; sub++) {
        src_open(&h, sub, 3);
        const char **ids;
        uint32_t n;
        bool done;
        cr_assert_eq(h.spec.cls->discover(h.src, &ids, &n, &done, &h.err), 0);
        for (uint32_t i = 0; i < n; i++) {
            int k = atoi(strrchr(ids[i], 'f') + 1);
            seen[k]++;
            per_task[sub]++;
        }
        h.spec.cls->destroy(h.src);
    }
    for (int i = 0; i < N_FILES; i++)
        cr_assert_eq(seen[i], 1, "file %d read %d times", i, seen[i]);
    for (int i = 0; i < 3; i++)
        cr_assert_gt(per_task[i], 10, "subtask %d got %d files", i, per_task[i]);
    weir_source_spec_release(&h.spec);
    weir_manual_clock_destroy(mc);
    weir_schema_destroy(s);
}
