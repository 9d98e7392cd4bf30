/*
 * tests/test_file_map.c - the file source reading a local file through a
 * mapping: a file truncated under the mapping (SIGBUS on the pages it lost,
 * zeros on the page where it now ends) gives the read path's error for a
 * shrunk file, with only whole records in the batch; a file that grows is
 * read to its size at open; both read modes give the same; a window that
 * cannot be mapped hands the read on to pread; a debezium-json update cut
 * by the truncation leaves neither of its rows; a SIGBUS that is not
 * weir's still reaches the handler installed before weir's.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

#include "connector/file/fileio.h"
#include "weir/batch.h"
#include "weir/connector.h"

static char tmp_root[256];
static char file_path[512];

static void make_tmp(void)
{
    snprintf(tmp_root, sizeof tmp_root, "/tmp/weir-fmap-XXXXXX");
    cr_assert_not_null(mkdtemp(tmp_root));
    snprintf(file_path, sizeof file_path, "%s/f.json", tmp_root);
}

static void cleanup_tmp(void)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
    cr_assert_eq(system(cmd), 0);
}

/* ROWS rows of 20 bytes each, {"k":i,"v":"aaa"}\n with v as long as makes
 * 20 bytes: row i is bytes [20 i, 20 i + 20). */
#define ROWS 2000
#define ROW_BYTES 20

static int pad_of(int i)
{
    return 6 - (i < 10 ? 1 : i < 100 ? 2 : i < 1000 ? 3 : i < 10000 ? 4 : 5);
}

static void write_n_rows(int n)
{
    FILE *f = fopen(file_path, "w");
    cr_assert_not_null(f);
    for (int i = 0; i < n; i++)
        fprintf(f, "{\"k\":%d,\"v\":\"%.*s\"}\n", i, pad_of(i),
                "aaaaaa");
    cr_assert_eq(fclose(f), 0);
}

static void write_rows(void) { write_n_rows(ROWS); }

typedef struct src {
    weir_schema *schema;
    weir_source_spec spec;
    void *inst;
    void *rd;
    weir_error err;
} src;

/* Opens the one split of file_path; map: the read mode; window: the
 * mapping's (0: the default); fmt: the format. */
static void src_open_format(src *s, bool map, size_t read_buffer,
                            size_t window, weir_format_kind fmt)
{
    memset(s, 0, sizeof *s);
    s->schema = weir_schema_create();
    weir_schema_add(s->schema, "k", weir_type_make(WEIR_TYPE_BIGINT, false));
    weir_schema_add(s->schema, "v", weir_type_make(WEIR_TYPE_STRING, true));
    weir_file_source_config cfg;
    weir_file_source_config_init(&cfg);
    cfg.path = file_path;
    cfg.read_buffer_bytes = read_buffer;
    cfg.read_no_map = !map;
    cfg.map_window_bytes = window;
    weir_format_options_init(&cfg.format, fmt);
    cr_assert_eq(weir_file_source_spec(&cfg, s->schema, &s->spec, &s->err), 0,
                 "%s", s->err.message);
    weir_source_info info = {.subtask = 0, .parallelism = 1, .batch_size = 64,
                             .schema = s->schema};
    cr_assert_eq(s->spec.cls->create(s->spec.arg, &info, &s->inst, &s->err),
                 0, "%s", s->err.message);
    const char **ids;
    uint32_t n;
    bool done;
    cr_assert_eq(s->spec.cls->discover(s->inst, &ids, &n, &done, &s->err), 0);
    cr_assert_eq(n, 1);
    cr_assert_eq(s->spec.cls->open_split(s->inst, ids[0], NULL, 0, &s->rd,
                                         &s->err),
                 0, "%s", s->err.message);
}

static void src_open_window(src *s, bool map, size_t read_buffer,
                            size_t window)
{
    src_open_format(s, map, read_buffer, window, WEIR_FORMAT_JSON);
}

static void src_open(src *s, bool map, size_t read_buffer)
{
    src_open_window(s, map, read_buffer, 0);
}

static void src_close(src *s)
{
    s->spec.cls->close_split(s->rd);
    s->spec.cls->destroy(s->inst);
    weir_source_spec_release(&s->spec);
    weir_schema_destroy(s->schema);
}

/*
 * Reads batches of 10 rows until an error or the end, checking each row is
 * the next of the file; *rows: the rows returned; *left: the rows of the
 * batch of the failing read. Returns the last read's result.
 */
static int read_on(src *s, uint32_t *rows, uint32_t *left)
{
    weir_batch *b = weir_batch_create(s->spec.schema, 10);
    int rc;
    for (;;) {
        weir_batch_reset(b);
        rc = s->spec.cls->read(s->rd, b, 10, &s->err);
        for (uint32_t i = 0; i < b->n_rows; i++) {
            cr_assert_eq(WEIR_COL_I64(b, 0)[i], (int64_t)(*rows + i),
                         "row %u of the batch after %u rows", i, *rows);
            uint32_t len;
            const char *v = weir_batch_str(b, 1, i, &len);
            int row = (int)(*rows + i);
            cr_assert_eq(len, (uint32_t)pad_of(row));
            for (uint32_t c = 0; c < len; c++)
                cr_assert_eq(v[c], 'a');
        }
        if (rc <= 0)
            break;
        cr_assert_eq((uint32_t)rc, b->n_rows);
        *rows += (uint32_t)rc;
    }
    *left = b->n_rows;
    weir_batch_destroy(b);
    return rc;
}

/* Reads the first n rows in one read (all n, or the test fails), then
 * truncates the file to size under the reader. */
static void read_then_truncate(src *s, uint32_t n, uint64_t size)
{
    weir_batch *b = weir_batch_create(s->spec.schema, n);
    cr_assert_eq(s->spec.cls->read(s->rd, b, n, &s->err), (int)n, "%s",
                 s->err.message);
    weir_batch_destroy(b);
    cr_assert_eq(truncate(file_path, (off_t)size), 0);
}

static void expect_shrunk_at(const src *s, uint64_t now, uint64_t at)
{
    char want[1024];
    snprintf(want, sizeof want,
             "%s: error: the file shrank while it was read: %d bytes when "
             "opened, %llu bytes now (read up to offset %llu); a file must "
             "not be truncated or rewritten while a job reads it",
             file_path, ROWS * ROW_BYTES, (unsigned long long)now,
             (unsigned long long)at);
    cr_assert_str_eq(s->err.message, want);
}

static void expect_shrunk(const src *s, uint64_t now)
{
    expect_shrunk_at(s, now, now);
}

/*
 * Truncated to `size` after 10 rows: every row that lies whole below size
 * is read, then the shrunk-file error; the failing read's batch holds only
 * whole rows, each the right one (read_on checks them), at most
 * want_left: the decoder may look ahead in what it sees (a 16-byte load
 * in a string) onto a page the file lost, and then the row that ends
 * just before the new end goes with the error too.
 */
static void truncate_while_read(bool map, size_t read_buffer, uint64_t size,
                                uint32_t want_rows, uint32_t want_left)
{
    write_rows();
    src s;
    src_open(&s, map, read_buffer);
    read_then_truncate(&s, 10, size);
    uint32_t rows = 10, left = 0;
    int rc = read_on(&s, &rows, &left);
    cr_assert_eq(rc, WEIR_ECORRUPT, "rc %d after %u rows: %s", rc, rows,
                 s.err.message);
    cr_assert_eq(rows, want_rows);
    cr_assert_leq(left, want_left);
    expect_shrunk(&s, size);
    src_close(&s);
}

/* 8192: a page boundary; row 409 ([8180, 8200)) crosses it: the mapped
 * reader faults (SIGBUS) on the page past the end, the read path's pread
 * finds nothing there. Rows 400..408 are in the failing read's batch. */
Test(file_map, truncated_on_a_page_boundary, .init = make_tmp,
     .fini = cleanup_tmp)
{
    truncate_while_read(true, 0, 8192, 400, 9);
}

Test(file_map, truncated_on_a_page_boundary_small_buffer, .init = make_tmp,
     .fini = cleanup_tmp)
{
    truncate_while_read(true, 64, 8192, 400, 9);
}

Test(file_map, truncated_on_a_page_boundary_read_mode, .init = make_tmp,
     .fini = cleanup_tmp)
{
    truncate_while_read(false, 64, 8192, 400, 9);
}

/* 8292: inside a page; the mapping reads zeros from there to the page's
 * end; row 414 ([8280, 8300)) is cut. Rows 410..413 in the batch. */
Test(file_map, truncated_inside_a_page, .init = make_tmp, .fini = cleanup_tmp)
{
    truncate_while_read(true, 0, 8292, 410, 4);
}

Test(file_map, truncated_inside_a_page_read_mode, .init = make_tmp,
     .fini = cleanup_tmp)
{
    truncate_while_read(false, 64, 8292, 410, 4);
}

/* 39000: inside the last page (the file ends at 40000); the mapping reads
 * zeros to the end and never faults: row 1950 is zeros, no bad record but
 * the end of the shrunk file. */
Test(file_map, truncated_inside_the_last_page, .init = make_tmp,
     .fini = cleanup_tmp)
{
    truncate_while_read(true, 0, 39000, 1950, 0);
}

Test(file_map, truncated_inside_the_last_page_read_mode, .init = make_tmp,
     .fini = cleanup_tmp)
{
    truncate_while_read(false, 64, 39000, 1950, 0);
}

/* Truncated far behind the reader (after 1 000 rows, to one page): the
 * error names where the reader was, the start of row 1 000, not the new
 * end (the read path names the end of what its buffer held). */
Test(file_map, truncated_behind_the_reader, .init = make_tmp,
     .fini = cleanup_tmp)
{
    write_rows();
    src s;
    src_open(&s, true, 0);
    read_then_truncate(&s, 1000, 4096);
    uint32_t rows = 1000, left = 0;
    int rc = read_on(&s, &rows, &left);
    cr_assert_eq(rc, WEIR_ECORRUPT, "rc %d after %u rows", rc, rows);
    cr_assert_eq(rows, 1000);
    cr_assert_eq(left, 0);
    expect_shrunk_at(&s, 4096, 1000 * ROW_BYTES);
    src_close(&s);
}

/* CSV of one STRING column, truncated inside the last page: the zeros
 * read there make a valid record (a string of NULs), and the check after
 * each read finds the file no longer holds what was consumed: the shrunk
 * error, not a row of zeros. */
Test(file_map, zeros_that_decode_are_not_rows, .init = make_tmp,
     .fini = cleanup_tmp)
{
    FILE *f = fopen(file_path, "w");
    cr_assert_not_null(f);
    for (int i = 0; i < ROWS; i++)
        fputs("aaaaaaaaaaaaaaaaaaa\n", f);
    cr_assert_eq(fclose(f), 0);
    weir_schema *sch = weir_schema_create();
    weir_schema_add(sch, "v", weir_type_make(WEIR_TYPE_STRING, true));
    weir_file_source_config cfg;
    weir_file_source_config_init(&cfg);
    weir_format_options_init(&cfg.format, WEIR_FORMAT_CSV);
    cfg.path = file_path;
    weir_source_spec spec;
    weir_error err = {0};
    cr_assert_eq(weir_file_source_spec(&cfg, sch, &spec, &err), 0, "%s",
                 err.message);
    weir_source_info info = {.subtask = 0, .parallelism = 1,
                             .batch_size = 64, .schema = sch};
    void *inst, *rd;
    cr_assert_eq(spec.cls->create(spec.arg, &info, &inst, &err), 0);
    const char **ids;
    uint32_t n;
    bool done;
    cr_assert_eq(spec.cls->discover(inst, &ids, &n, &done, &err), 0);
    cr_assert_eq(spec.cls->open_split(inst, ids[0], NULL, 0, &rd, &err), 0);
    weir_batch *b = weir_batch_create(sch, ROWS + 10);
    cr_assert_eq(spec.cls->read(rd, b, 10, &err), 10);
    cr_assert_eq(truncate(file_path, 39000), 0);
    uint32_t rows = 10;
    int rc;
    while ((rc = spec.cls->read(rd, b, ROWS, &err)) > 0)
        rows += (uint32_t)rc;
    cr_assert_eq(rc, WEIR_ECORRUPT, "rc %d after %u rows", rc, rows);
    cr_assert(strstr(err.message, "the file shrank while it was read: "
                                  "40000 bytes when opened, 39000 bytes now"),
              "%s", err.message);
    for (uint32_t i = 0; i < b->n_rows; i++) {
        uint32_t len;
        const char *v = weir_batch_str(b, 0, i, &len);
        cr_assert(len == 19 && v[0] == 'a', "row %u", i);
    }
    weir_batch_destroy(b);
    spec.cls->close_split(rd);
    spec.cls->destroy(inst);
    weir_source_spec_release(&spec);
    weir_schema_destroy(sch);
}

/* Truncated after 10 rows: the mapped reader finds it whatever its read
 * buffer's size; the read path, whose 1 MiB buffer took the whole file at
 * the first read, reads the old bytes to the end. */
Test(file_map, mapping_sees_the_file_not_a_copy, .init = make_tmp,
     .fini = cleanup_tmp)
{
    write_rows();
    src s;
    src_open(&s, true, 0);
    read_then_truncate(&s, 10, 8192);
    uint32_t rows = 10, left = 0;
    int rc = read_on(&s, &rows, &left);
    cr_assert_eq(rc, WEIR_ECORRUPT, "rc %d after %u rows", rc, rows);
    src_close(&s);

    /* the read mode with the same buffer: all of it, read at open */
    write_rows();
    src_open(&s, false, 0);
    read_then_truncate(&s, 10, 8192);
    rows = 10;
    cr_assert_eq(read_on(&s, &rows, &left), WEIR_EOF);
    cr_assert_eq(rows, ROWS);
    src_close(&s);
}

/* 150 000 rows (3.05 MB): windows of 64 and 100 KiB slide along (rows cross
 * their ends), the default window unmaps what it read every 2 MiB; all
 * rows in order. A truncation at 2.5 MiB once the reader is past 2.2 MB
 * (its first 2 MiB unmapped): the shrunk error there. */
Test(file_map, windows_slide_and_unmap, .init = make_tmp, .fini = cleanup_tmp)
{
    const int n = 150000; /* 3 MB */
    size_t windows[] = {64 << 10, 100 << 10, 0};
    for (int w = 0; w < 3; w++) {
        write_n_rows(n);
        src s;
        src_open_window(&s, true, 0, windows[w]);
        uint32_t rows = 0, left = 0;
        cr_assert_eq(read_on(&s, &rows, &left), WEIR_EOF, "%s",
                     s.err.message);
        cr_assert_eq(rows, (uint32_t)n, "window %zu", windows[w]);
        src_close(&s);
    }
    /* truncated at 2.5 MiB when the reader is past 2 MiB (its first
     * 2 MiB unmapped) */
    write_n_rows(n);
    src s;
    src_open_window(&s, true, 64, 0);
    read_then_truncate(&s, 110000, 5 << 19);
    uint32_t rows = 110000, left = 0;
    cr_assert_eq(read_on(&s, &rows, &left), WEIR_ECORRUPT);
    /* rows from 100 000 on are 21 bytes: 129 592 lie whole below 2.5 MiB */
    uint32_t whole = 100000 + ((5u << 19) - 100000 * ROW_BYTES) / 21;
    cr_assert_eq(whole, 129592);
    cr_assert_eq(rows, whole / 10 * 10, "rows %u left %u: %s", rows, left,
                 s.err.message);
    cr_assert_leq(left, whole % 10);
    char want[256];
    snprintf(want, sizeof want, "%d bytes when opened, %d bytes now (read "
             "up to offset %d)", 100000 * ROW_BYTES + (n - 100000) * 21,
             5 << 19, 5 << 19);
    cr_assert(strstr(s.err.message, want), "%s", s.err.message);
    src_close(&s);
}

/* Appended to after open: read to the size at open, in both modes. */
static void grows(bool map)
{
    write_rows();
    src s;
    src_open(&s, map, 0);
    FILE *f = fopen(file_path, "a");
    cr_assert_not_null(f);
    for (int i = 0; i < 5000; i++) /* past the page the file ends in */
        fputs("{\"k\":-1,\"v\":\"late\"}\n", f);
    cr_assert_eq(fclose(f), 0);
    uint32_t rows = 0, left = 0;
    cr_assert_eq(read_on(&s, &rows, &left), WEIR_EOF);
    cr_assert_eq(rows, ROWS);
    src_close(&s);
}

Test(file_map, grows_after_open, .init = make_tmp, .fini = cleanup_tmp)
{
    grows(true);
    grows(false);
}

/* ---- a window that cannot be mapped ---- */

static int n_maps, fail_map_at;

/* mmap, but the fail_map_at-th call (from 1) and those after it fail */
static void *failing_mmap(void *addr, size_t n, int prot, int flags, int fd,
                          off_t off)
{
    if (++n_maps >= fail_map_at) {
        errno = ENOMEM;
        return MAP_FAILED;
    }
    return mmap(addr, n, prot, flags, fd, off);
}

/*
 * Windows of 16 KiB over the 40 000-byte file; the first window, or the
 * third (rows cross the window ends), cannot be mapped: the reader goes on
 * with pread from where it was (what it had not read of the old window
 * copied) and gives every row, in order, and maps nothing more.
 */
Test(file_map, window_that_cannot_be_mapped, .init = make_tmp,
     .fini = cleanup_tmp)
{
    write_rows();
    for (fail_map_at = 1; fail_map_at <= 3; fail_map_at += 2) {
        n_maps = 0;
        weir__fio_mmap = failing_mmap;
        src s;
        src_open_window(&s, true, 64, 16 << 10);
        uint32_t rows = 0, left = 0;
        int rc = read_on(&s, &rows, &left);
        weir__fio_mmap = mmap;
        cr_assert_eq(rc, WEIR_EOF, "failing map %d: rc %d: %s", fail_map_at,
                     rc, s.err.message);
        cr_assert_eq(rows, ROWS, "failing map %d", fail_map_at);
        cr_assert_eq(n_maps, fail_map_at, "maps tried");
        src_close(&s);
    }
}

/* ---- a debezium-json update: two rows, both or neither ---- */

/* A small update of key k, v from "b" to "a". */
static void put_update(FILE *f, int k)
{
    fprintf(f, "{\"before\":{\"k\":%d,\"v\":\"b\"},\"after\":{\"k\":%d,\"v\":\"a\"},\"op\":\"u\"}\n", k, k);
}

#define BIG_AFTER (4u << 20) /* the length of v after the big update */

/*
 * Three small updates (keys 0..2), an update of key 3 whose new v is
 * BIG_AFTER bytes, one more small update (key 4). Returns the offset of
 * the big value's first byte.
 */
static long write_updates(void)
{
    FILE *f = fopen(file_path, "w");
    cr_assert_not_null(f);
    for (int k = 0; k < 3; k++)
        put_update(f, k);
    fputs("{\"before\":{\"k\":3,\"v\":\"b\"},\"after\":{\"k\":3,\"v\":\"", f);
    long at = ftell(f);
    static char big[BIG_AFTER];
    memset(big, 'a', sizeof big);
    cr_assert_eq(fwrite(big, 1, sizeof big, f), sizeof big);
    fputs("\"},\"op\":\"u\"}\n", f);
    put_update(f, 4);
    cr_assert_eq(fclose(f), 0);
    return at;
}

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

typedef struct cutter {
    _Atomic double start_us; /* when the read began (0: not yet) */
    double delay_us;
    off_t size;
    int rc; /* truncate's */
} cutter;

/* Truncates the file to c->size delay_us after the read began. */
static void *cut_later(void *p)
{
    cutter *c = p;
    double t0;
    while (!(t0 = atomic_load(&c->start_us)))
        ;
    while (now_us() < t0 + c->delay_us)
        ;
    c->rc = truncate(file_path, c->size);
    return NULL;
}

/*
 * The rows of a read of the updates: whole pairs (-U then +U of one key),
 * keys from 0 on; returns how many pairs.
 */
static uint32_t check_pairs(const weir_batch *b)
{
    cr_assert_eq(b->n_rows % 2, 0, "%u rows: half an update", b->n_rows);
    for (uint32_t i = 0; i < b->n_rows; i += 2) {
        cr_assert_eq(b->kind[i], WEIR_ROW_UPDATE_BEFORE, "row %u", i);
        cr_assert_eq(b->kind[i + 1], WEIR_ROW_UPDATE_AFTER, "row %u", i + 1);
        cr_assert_eq(WEIR_COL_I64(b, 0)[i], (int64_t)(i / 2), "row %u", i);
        cr_assert_eq(WEIR_COL_I64(b, 0)[i + 1], (int64_t)(i / 2), "row %u", i + 1);
        uint32_t len;
        weir_batch_str(b, 1, i + 1, &len);
        cr_assert_eq(len, i / 2 == 3 ? BIG_AFTER : 1, "row %u", i + 1);
    }
    return b->n_rows / 2;
}

/*
 * The file is cut in the middle of the big update's new value while one
 * read decodes the records, at moments swept over the read's length: a
 * cut while the new value is decoded comes when the old row (-U) is in
 * the batch already; the mapped reader takes it out again with the
 * record. Whenever the cut comes, the batch holds whole updates only:
 * the read gives all five, or the error of a shrunk file with the updates
 * before the one it faulted in (three; four when the big one was decoded
 * before the cut and the last faults), or none (the check after the read
 * finds the cut, and any row may then be zeros).
 */
Test(file_map, update_cut_in_two_is_neither_row, .init = make_tmp,
     .fini = cleanup_tmp, .timeout = 120)
{
    const int tries = 40;
    double full_us = 0;
    int n_cut = 0;
    /* (a busy machine may run the cutter late: then the sweep again) */
    for (int t = -1; t < tries || (!n_cut && t < 10 * tries); t++) {
        long at = write_updates();
        src s;
        src_open_format(&s, true, 0, 0, WEIR_FORMAT_DEBEZIUM_JSON);
        weir_batch *b = weir_batch_create(s.spec.schema, 16);
        if (t < 0) { /* how long a read takes, not cut */
            double t0 = now_us();
            cr_assert_eq(s.spec.cls->read(s.rd, b, 16, &s.err), 10, "%s",
                         s.err.message);
            full_us = now_us() - t0;
            cr_assert_eq(check_pairs(b), 5);
            weir_batch_destroy(b);
            src_close(&s);
            continue;
        }
        /* the first page boundary past half of the value */
        long page = sysconf(_SC_PAGESIZE);
        cutter c = {.delay_us = full_us * (t % tries) / tries,
                    .size = (off_t)((at + BIG_AFTER / 2) / page * page)};
        pthread_t th;
        cr_assert_eq(pthread_create(&th, NULL, cut_later, &c), 0);
        atomic_store(&c.start_us, now_us());
        int rc = s.spec.cls->read(s.rd, b, 16, &s.err);
        pthread_join(th, NULL);
        cr_assert_eq(c.rc, 0, "truncate");
        uint32_t pairs = check_pairs(b);
        if (rc == 10) {
            cr_assert_eq(pairs, 5);
        } else {
            cr_assert_eq(rc, WEIR_ECORRUPT, "try %d: rc %d: %s", t, rc,
                         s.err.message);
            cr_assert(strstr(s.err.message, "the file shrank while it was read"),
                      "%s", s.err.message);
            cr_assert(pairs == 0 || pairs == 3 || pairs == 4, "%u pairs", pairs);
            n_cut++;
        }
        weir_batch_destroy(b);
        src_close(&s);
    }
    cr_assert_gt(n_cut, 0, "no read saw the cut (a read takes %.0f us)",
                 full_us);
}

/* ---- a SIGBUS that is not weir's ---- */

static volatile sig_atomic_t theirs;
static sigjmp_buf their_jb;

static void their_handler(int sig, siginfo_t *info, void *ctx)
{
    (void)sig;
    (void)ctx;
    theirs = info && info->si_code > 0 ? 2 : 1;
    if (info && info->si_code > 0)
        siglongjmp(their_jb, 1); /* a fault: do not return to it */
}

Test(file_map, other_sigbus_reaches_the_handler_before, .init = make_tmp,
     .fini = cleanup_tmp)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = their_handler;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    cr_assert_eq(sigaction(SIGBUS, &sa, NULL), 0);

    /* weir's handler goes in when a file is mapped: read one */
    write_rows();
    src s;
    src_open(&s, true, 0);
    uint32_t rows = 0, left = 0;
    cr_assert_eq(read_on(&s, &rows, &left), WEIR_EOF);
    cr_assert_eq(rows, ROWS);
    struct sigaction now;
    cr_assert_eq(sigaction(SIGBUS, NULL, &now), 0);
    cr_assert_neq((void *)now.sa_sigaction, (void *)their_handler,
                  "the mapped reader installed no handler");

    /* a sent SIGBUS */
    raise(SIGBUS);
    cr_assert_eq(theirs, 1);

    /* a fault on a mapping of the program's own, while no read is on */
    char other[600];
    snprintf(other, sizeof other, "%s/other", tmp_root);
    int fd = open(other, O_RDWR | O_CREAT, 0600);
    cr_assert_geq(fd, 0);
    cr_assert_eq(ftruncate(fd, 3 * 4096), 0);
    volatile char *m = mmap(NULL, 3 * 4096, PROT_READ, MAP_SHARED, fd, 0);
    cr_assert_neq((void *)m, MAP_FAILED);
    cr_assert_eq(ftruncate(fd, 0), 0);
    theirs = 0;
    if (!sigsetjmp(their_jb, 1))
        (void)m[2 * 4096];
    cr_assert_eq(theirs, 2);
    munmap((void *)m, 3 * 4096);
    close(fd);
    src_close(&s);
}

/* The option: 'map' or 'read', anything else named. */
Test(file_map, read_mode_option)
{
    weir_schema *sch = weir_schema_create();
    weir_schema_add(sch, "k", weir_type_make(WEIR_TYPE_BIGINT, false));
    const char *modes[] = {"map", "read", "mmap"};
    for (int i = 0; i < 3; i++) {
        weir_option o[] = {{"connector", "filesystem"},
                           {"path", "/tmp/x.json"},
                           {"format", "json"},
                           {"source.read-mode", modes[i]}};
        weir_source_spec spec;
        weir_error err = {0};
        int rc = weir_file_source_spec_opts(o, 4, sch, NULL, &spec, &err);
        if (i < 2) {
            cr_assert_eq(rc, 0, "%s", err.message);
            weir_source_spec_release(&spec);
            continue;
        }
        cr_assert_eq(rc, WEIR_EINVAL);
        cr_assert(strstr(err.message, "option 'source.read-mode': expected "
                                      "'map' or 'read', found 'mmap'"),
                  "%s", err.message);
    }
    weir_schema_destroy(sch);
}
