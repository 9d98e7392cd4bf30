/*
 * tests/test_file_partition.c - the filesystem sink's partitioned output
 * (PARTITIONED BY): partition folders and escaping, several partitions
 * open at once, the success-file partition commit on both triggers, with
 * and without commit on checkpoint, restore, and the options.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/crashclose.h"
#include "support/partname.h"
#include "time/timefmt.h"
#include "weir/batch.h"
#include "weir/connector.h"

static char tmp_root[256];

static void make_tmp(void)
{
    snprintf(tmp_root, sizeof tmp_root, "/tmp/weir-fpart-XXXXXX");
    cr_assert_not_null(mkdtemp(tmp_root));
}

static void cleanup_tmp(void)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
    cr_assert_eq(system(cmd), 0);
}

static char *tpath(const char *rel)
{
    static char bufs[8][512];
    static int next;
    char *b = bufs[next++ % 8];
    snprintf(b, 512, "%s/%s", tmp_root, rel);
    return b;
}

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* Every file under dir (relative, sorted, joined by ' '), except the lock
 * file an open sink holds on its folder. */
static void walk(const char *dir, const char *rel, char **names, int *n)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "%s", dir);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
            !strcmp(e->d_name, ".weir.lock"))
            continue;
        char sub[1024], srel[1024];
        snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
        snprintf(srel, sizeof srel, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
        if (e->d_type == DT_DIR)
            walk(sub, srel, names, n);
        else
            names[(*n)++] = pn_short(strdup(srel));
    }
    closedir(d);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *tree(const char *dir)
{
    static char out[8192];
    char *names[256];
    int n = 0;
    walk(dir, "", names, &n);
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (i)
            strcat(out, " ");
        strcat(out, names[i]);
        free(names[i]);
    }
    return out;
}

/* (k BIGINT, dt STRING, hm STRING) */
static weir_schema *part_schema(void)
{
    weir_schema *s = weir_schema_create();
    weir_schema_add(s, "k", weir_type_make(WEIR_TYPE_BIGINT, false));
    weir_schema_add(s, "dt", weir_type_make(WEIR_TYPE_STRING, true));
    weir_schema_add(s, "hm", weir_type_make(WEIR_TYPE_STRING, true));
    return s;
}

static weir_batch *row(weir_schema *s, int64_t k, const char *dt,
                       const char *hm)
{
    weir_batch *b = weir_batch_create(s, 4);
    int r = weir_batch_append_row(b);
    WEIR_COL_I64(b, 0)[r] = k;
    if (dt)
        weir_batch_set_str(b, 1, (uint32_t)r, dt, strlen(dt));
    else
        weir_batch_set_null(b, 1, (uint32_t)r);
    weir_batch_set_str(b, 2, (uint32_t)r, hm, strlen(hm));
    return b;
}

static void put(const weir_operator_spec *spec, void *op, weir_schema *s,
                int64_t k, const char *dt, const char *hm)
{
    weir_batch *b = row(s, k, dt, hm);
    cr_assert_eq(spec->cls->process(op, NULL, 0, b), 0);
    weir_batch_destroy(b);
}

static void *create(weir_operator_spec *spec, const weir_schema *s)
{
    const weir_schema *in[1] = {s};
    weir_op_info info = {.subtask = 0,
                         .parallelism = 1,
                         .max_parallelism = 128,
                         .n_inputs = 1,
                         .input_schemas = in,
                         .batch_size = 64};
    void *op;
    cr_assert_eq(spec->create(spec->arg, &info, &op), 0);
    cr_assert_eq(spec->cls->open(op, NULL), 0);
    return op;
}

static const char *const keys[] = {"dt", "hm"};

static weir_operator_spec spec_of(weir_file_sink_config *cfg)
{
    weir_operator_spec spec;
    weir_error err;
    cr_assert_eq(weir_file_sink_spec(cfg, &spec, &err), 0, "%s", err.message);
    return spec;
}

static void base_cfg(weir_file_sink_config *cfg, const char *dir)
{
    weir_file_sink_config_init(cfg);
    weir_format_options_init(&cfg->format, WEIR_FORMAT_CSV);
    cfg->path = tpath(dir);
    cfg->partition_keys = keys;
    cfg->n_partition_keys = 2;
}

static int64_t ts(const char *text)
{
    int64_t ms;
    size_t bad;
    cr_assert_eq(weir__parse_ts(text, strlen(text), &ms, &bad), 0);
    return ms;
}

Test(file_partition, folders_escaping_and_default_name, .init = make_tmp,
     .fini = cleanup_tmp)
{
    weir_schema *s = part_schema();
    weir_file_sink_config cfg;
    base_cfg(&cfg, "p");
    weir_operator_spec spec = spec_of(&cfg);
    void *op = create(&spec, s);
    put(&spec, op, s, 1, "2024-01-01", "10:00");
    put(&spec, op, s, 2, "2024-01-01", "10:01");
    put(&spec, op, s, 3, "2024-01-01", "10:00");
    put(&spec, op, s, 4, NULL, "x");
    put(&spec, op, s, 5, "", "y");
    put(&spec, op, s, 6, "a/b=c%d\n#", "z");
    /* One in-progress file per partition, all open at once. */
    cr_assert_str_eq(tree(tpath("p")),
                     "dt=2024-01-01/hm=10%3A00/.part-0-0.csv.inprogress "
                     "dt=2024-01-01/hm=10%3A01/.part-0-1.csv.inprogress "
                     "dt=__DEFAULT_PARTITION__/hm=x/.part-0-2.csv.inprogress "
                     "dt=__DEFAULT_PARTITION__/hm=y/.part-0-3.csv.inprogress "
                     "dt=a%2Fb%3Dc%25d%0A%23/hm=z/.part-0-4.csv.inprogress");
    cr_assert_eq(spec.cls->finish(op, NULL), 0);
    spec.cls->close(op);
    cr_assert_str_eq(tree(tpath("p")),
                     "dt=2024-01-01/hm=10%3A00/part-0-0.csv "
                     "dt=2024-01-01/hm=10%3A01/part-0-1.csv "
                     "dt=__DEFAULT_PARTITION__/hm=x/part-0-2.csv "
                     "dt=__DEFAULT_PARTITION__/hm=y/part-0-3.csv "
                     "dt=a%2Fb%3Dc%25d%0A%23/hm=z/part-0-4.csv");
    /* The partition columns are not in the files. */
    cr_assert_str_eq(read_all(pn_path(tpath("p/dt=2024-01-01/hm=10%3A00/part-0-0.csv"))),
                     "1\n3\n");
    /* A new run (a new spec, a new run id) writes names of its own, from
     * n = 0 again, and overwrites nothing. */
    weir_operator_spec_release(&spec);
    spec = spec_of(&cfg);
    op = create(&spec, s);
    put(&spec, op, s, 7, "2024-01-01", "10:00");
    cr_assert_eq(spec.cls->finish(op, NULL), 0);
    spec.cls->close(op);
    cr_assert_str_eq(tree(tpath("p/dt=2024-01-01/hm=10%3A00")),
                     "part-0-0.csv part-0-0.csv");
    cr_assert_str_eq(
        read_all(pn_path(tpath("p/dt=2024-01-01/hm=10%3A01/part-0-1.csv"))),
        "2\n");
    weir_operator_spec_release(&spec);
    weir_schema_destroy(s);
}

Test(file_partition, success_file_when_the_watermark_passes, .init = make_tmp,
     .fini = cleanup_tmp)
{
    weir_schema *s = part_schema();
    weir_file_sink_config cfg;
    base_cfg(&cfg, "w");
    cfg.success_file = true;
    cfg.partition_trigger = WEIR_PARTITION_TRIGGER_PARTITION_TIME;
    cfg.partition_commit_delay_ms = 60000;
    cfg.partition_time_pattern = "$dt $hm:00";
    weir_operator_spec spec = spec_of(&cfg);
    void *op = create(&spec, s);
    put(&spec, op, s, 1, "2024-01-01", "10:00");
    put(&spec, op, s, 2, "2024-01-01", "10:01");
    cr_assert_eq(spec.cls->watermark(op, NULL, ts("2024-01-01 10:01:00")), 0);
    cr_assert_str_eq(tree(tpath("w")),
                     "dt=2024-01-01/hm=10%3A00/.part-0-0.csv.inprogress "
                     "dt=2024-01-01/hm=10%3A01/.part-0-1.csv.inprogress");
    /* 10:00 + 1 min is passed: its file is committed, then _SUCCESS. */
    cr_assert_eq(spec.cls->watermark(op, NULL, ts("2024-01-01 10:01:00.001")),
                 0);
    cr_assert_str_eq(tree(tpath("w")),
                     "dt=2024-01-01/hm=10%3A00/_SUCCESS "
                     "dt=2024-01-01/hm=10%3A00/part-0-0.csv "
                     "dt=2024-01-01/hm=10%3A01/.part-0-1.csv.inprogress");
    /* Late data re-opens the partition; it is committed again. */
    put(&spec, op, s, 3, "2024-01-01", "10:00");
    cr_assert_eq(spec.cls->watermark(op, NULL, ts("2024-01-01 10:01:30")), 0);
    cr_assert_str_eq(tree(tpath("w")),
                     "dt=2024-01-01/hm=10%3A00/_SUCCESS "
                     "dt=2024-01-01/hm=10%3A00/part-0-0.csv "
                     "dt=2024-01-01/hm=10%3A00/part-0-2.csv "
                     "dt=2024-01-01/hm=10%3A01/.part-0-1.csv.inprogress");
    /* End of input commits every partition. */
    cr_assert_eq(spec.cls->finish(op, NULL), 0);
    spec.cls->close(op);
    cr_assert_str_eq(tree(tpath("w")), "dt=2024-01-01/hm=10%3A00/_SUCCESS "
                                       "dt=2024-01-01/hm=10%3A00/part-0-0.csv "
                                       "dt=2024-01-01/hm=10%3A00/part-0-2.csv "
                                       "dt=2024-01-01/hm=10%3A01/_SUCCESS "
                                       "dt=2024-01-01/hm=10%3A01/part-0-1.csv");
    weir_operator_spec_release(&spec);
    weir_schema_destroy(s);
}

Test(file_partition, partition_time_that_cannot_be_read_is_an_error,
     .init = make_tmp, .fini = cleanup_tmp)
{
    weir_schema *s = part_schema();
    weir_file_sink_config cfg;
    base_cfg(&cfg, "e");
    cfg.success_file = true;
    cfg.partition_trigger = WEIR_PARTITION_TRIGGER_PARTITION_TIME;
    cfg.partition_time_pattern = "$dt $hm:00";
    weir_operator_spec spec = spec_of(&cfg);
    void *op = create(&spec, s);
    weir_batch *b = row(s, 1, "someday", "10:00");
    cr_assert_eq(spec.cls->process(op, NULL, 0, b), WEIR_EINVAL);
    cr_assert_not_null(
        strstr(((const weir_error *)op)->message,
               "cannot extract the partition time: 'someday 10:00:00'"),
        "%s", ((const weir_error *)op)->message);
    weir_batch_destroy(b);
    spec.cls->close(op);
    weir_operator_spec_release(&spec);
    weir_schema_destroy(s);
}

/* A folder names a scalar value: a nested partition column is refused, by
 * the options (SQL) with its type, and by the operator itself (the C API),
 * where its text would be cut to fit and different values share a folder. */
Test(file_partition, nested_partition_column_is_refused, .init = make_tmp,
     .fini = cleanup_tmp)
{
    weir_type arr;
    cr_assert_eq(
        weir_type_array(weir_type_make(WEIR_TYPE_STRING, true), true, &arr), 0);
    weir_schema *s = weir_schema_create();
    weir_schema_add(s, "k", weir_type_make(WEIR_TYPE_BIGINT, false));
    weir_schema_add(s, "tags", arr);
    const char *tk[] = {"tags"};
    weir_connector_env env = {.partition_keys = tk, .n_partition_keys = 1};
    weir_option o[] = {
        {"connector", "filesystem"}, {"path", "o"}, {"format", "json"}};
    weir_operator_spec spec;
    weir_error err;
    cr_assert_eq(weir_connector_sink_spec(NULL, o, 3, s, &env, &spec, &err),
                 WEIR_EUNSUPPORTED);
    cr_assert_str_eq(err.message,
                     "filesystem sink: partition column 'tags' has type "
                     "ARRAY<STRING>; a partition folder names a scalar value");
    weir_file_sink_config cfg;
    weir_file_sink_config_init(&cfg);
    weir_format_options_init(&cfg.format, WEIR_FORMAT_JSON);
    cfg.path = tpath("n");
    cfg.partition_keys = tk;
    cfg.n_partition_keys = 1;
    spec = spec_of(&cfg);
    const weir_schema *in[1] = {s};
    weir_op_info info = {.subtask = 0,
                         .parallelism = 1,
                         .max_parallelism = 128,
                         .n_inputs = 1,
                         .input_schemas = in,
                         .batch_size = 64};
    void *op = NULL;
    cr_assert_eq(spec.create(spec.arg, &info, &op), WEIR_EUNSUPPORTED);
    weir_operator_spec_release(&spec);
    weir_schema_destroy(s);
}

Test(file_partition, process_time_trigger_on_the_job_clock, .init = make_tmp,
     .fini = cleanup_tmp)
{
    weir_schema *s = part_schema();
    weir_manual_clock *mc = weir_manual_clock_create(1000);
    weir_file_sink_config cfg;
    base_cfg(&cfg, "pt");
    cfg.success_file = true;
    cfg.partition_commit_delay_ms = 5000;
    cfg.clock = weir_manual_clock_get(mc);
    weir_operator_spec spec = spec_of(&cfg);
    void *op = create(&spec, s);
    put(&spec, op, s, 1, "a", "1");
    weir_manual_clock_advance(mc, 3000);
    put(&spec, op, s, 2, "b", "1");
    weir_manual_clock_advance(mc, 1999);
    cr_assert_eq(spec.cls->watermark(op, NULL, 0), 0);
    cr_assert_str_eq(tree(tpath("pt")), "dt=a/hm=1/.part-0-0.csv.inprogress "
                                        "dt=b/hm=1/.part-0-1.csv.inprogress");
    weir_manual_clock_advance(mc, 1);
    cr_assert_eq(spec.cls->watermark(op, NULL, 0), 0);
    cr_assert_str_eq(tree(tpath("pt")),
                     "dt=a/hm=1/_SUCCESS dt=a/hm=1/part-0-0.csv "
                     "dt=b/hm=1/.part-0-1.csv.inprogress");
    weir_manual_clock_advance(mc, 3000);
    put(&spec, op, s, 3, "c", "1");
    cr_assert_str_eq(tree(tpath("pt")),
                     "dt=a/hm=1/_SUCCESS dt=a/hm=1/part-0-0.csv "
                     "dt=b/hm=1/_SUCCESS dt=b/hm=1/part-0-1.csv "
                     "dt=c/hm=1/.part-0-2.csv.inprogress");
    spec.cls->close(op);
    weir_operator_spec_release(&spec);
    weir_manual_clock_destroy(mc);
    weir_schema_destroy(s);
}

/*
 * With commit on checkpoint, a partition commits at the completed
 * checkpoint whose watermark passed it, after its files became visible;
 * a restore commits what the checkpoint covers, deletes later hidden files
 * in every partition folder, and still commits the restored partitions.
 */
Test(file_partition, two_phase_commit_and_restore, .init = make_tmp,
     .fini = cleanup_tmp)
{
    weir_schema *s = part_schema();
    weir_file_sink_config cfg;
    base_cfg(&cfg, "c");
    cfg.commit_on_checkpoint = true;
    cfg.success_file = true;
    cfg.partition_trigger = WEIR_PARTITION_TRIGGER_PARTITION_TIME;
    cfg.partition_time_pattern = "$dt $hm:00";
    weir_operator_spec spec = spec_of(&cfg);
    void *op = create(&spec, s);
    weir_buf snap1, snap2;
    weir_buf_init(&snap1);
    weir_buf_init(&snap2);
    put(&spec, op, s, 1, "2024-01-01", "10:00");
    put(&spec, op, s, 2, "2024-01-01", "10:01");
    cr_assert_eq(spec.cls->watermark(op, NULL, ts("2024-01-01 10:00:30")), 0);
    cr_assert_eq(spec.cls->snapshot(op, NULL, 1, &snap1), 0);
    put(&spec, op, s, 3, "2024-01-01", "10:01");
    cr_assert_eq(spec.cls->watermark(op, NULL, ts("2024-01-01 10:05:00")), 0);
    /* Nothing visible before the checkpoint completes, whatever the
     * watermark. */
    cr_assert_str_eq(tree(tpath("c")),
                     "dt=2024-01-01/hm=10%3A00/.part-0-0.csv.inprogress "
                     "dt=2024-01-01/hm=10%3A01/.part-0-1.csv.inprogress "
                     "dt=2024-01-01/hm=10%3A01/.part-0-2.csv.inprogress");
    cr_assert_eq(spec.cls->checkpoint_complete(op, NULL, 1), 0);
    /* Checkpoint 1's watermark (10:00:30) passed 10:00 only. */
    cr_assert_str_eq(tree(tpath("c")),
                     "dt=2024-01-01/hm=10%3A00/_SUCCESS "
                     "dt=2024-01-01/hm=10%3A00/part-0-0.csv "
                     "dt=2024-01-01/hm=10%3A01/.part-0-2.csv.inprogress "
                     "dt=2024-01-01/hm=10%3A01/part-0-1.csv");
    cr_assert_eq(spec.cls->snapshot(op, NULL, 2, &snap2), 0);
    put(&spec, op, s, 4, "2024-01-02", "00:00");
    spec.cls->close(op); /* crash before checkpoint 2 completes */

    op = create(&spec, s);
    weir_cursor c;
    weir_cursor_init(&c, snap2.data, snap2.len);
    cr_assert_eq(spec.cls->restore(op, NULL, &c), 0);
    cr_assert_str_eq(tree(tpath("c")), "dt=2024-01-01/hm=10%3A00/_SUCCESS "
                                       "dt=2024-01-01/hm=10%3A00/part-0-0.csv "
                                       "dt=2024-01-01/hm=10%3A01/part-0-1.csv "
                                       "dt=2024-01-01/hm=10%3A01/part-0-2.csv");
    /* The restored partition 10:01 commits at the next checkpoint whose
     * watermark passed it. */
    cr_assert_eq(spec.cls->watermark(op, NULL, ts("2024-01-01 10:03:00")), 0);
    weir_buf snap3;
    weir_buf_init(&snap3);
    cr_assert_eq(spec.cls->snapshot(op, NULL, 3, &snap3), 0);
    cr_assert_eq(spec.cls->checkpoint_complete(op, NULL, 3), 0);
    cr_assert_not_null(read_all(tpath("c/dt=2024-01-01/hm=10%3A01/_SUCCESS")));
    spec.cls->close(op);
    weir_buf_fini(&snap1);
    weir_buf_fini(&snap2);
    weir_buf_fini(&snap3);
    weir_operator_spec_release(&spec);
    weir_schema_destroy(s);
}

/* A partition whose time passed still waits for its rows that came after
 * the barrier: _SUCCESS follows only once every file is visible. */
Test(file_partition, commit_waits_for_files_written_after_the_barrier,
     .init = make_tmp, .fini = cleanup_tmp)
{
    weir_schema *s = part_schema();
    weir_file_sink_config cfg;
    base_cfg(&cfg, "late");
    cfg.commit_on_checkpoint = true;
    cfg.success_file = true;
    cfg.partition_trigger = WEIR_PARTITION_TRIGGER_PARTITION_TIME;
    cfg.partition_time_pattern = "$dt $hm:00";
    weir_operator_spec spec = spec_of(&cfg);
    void *op = create(&spec, s);
    weir_buf snap;
    weir_buf_init(&snap);
    put(&spec, op, s, 1, "2024-01-01", "10:00");
    cr_assert_eq(spec.cls->watermark(op, NULL, ts("2024-01-01 10:05:00")), 0);
    cr_assert_eq(spec.cls->snapshot(op, NULL, 1, &snap), 0);
    put(&spec, op, s, 2, "2024-01-01", "10:00"); /* late, after the barrier */
    cr_assert_eq(spec.cls->checkpoint_complete(op, NULL, 1), 0);
    cr_assert_str_eq(tree(tpath("late")),
                     "dt=2024-01-01/hm=10%3A00/.part-0-1.csv.inprogress "
                     "dt=2024-01-01/hm=10%3A00/part-0-0.csv");
    weir_buf_clear(&snap);
    cr_assert_eq(spec.cls->snapshot(op, NULL, 2, &snap), 0);
    cr_assert_eq(spec.cls->checkpoint_complete(op, NULL, 2), 0);
    cr_assert_str_eq(tree(tpath("late")),
                     "dt=2024-01-01/hm=10%3A00/_SUCCESS "
                     "dt=2024-01-01/hm=10%3A00/part-0-0.csv "
                     "dt=2024-01-01/hm=10%3A00/part-0-1.csv");
    spec.cls->close(op);
    weir_buf_fini(&snap);
    weir_operator_spec_release(&spec);
    weir_schema_destroy(s);
}

Test(file_partition, fresh_start_sweeps_hidden_files_in_partition_folders,
     .init = make_tmp, .fini = cleanup_tmp)
{
    weir_schema *s = part_schema();
    weir_file_sink_config cfg;
    base_cfg(&cfg, "sw");
    cfg.commit_on_checkpoint = true;
    /* Another job's writer into the same table: its hidden files are never
     * this job's to delete. */
    cfg.job_id = "/other/job";
    weir_operator_spec other = spec_of(&cfg);
    void *op = create(&other, s);
    put(&other, op, s, 9, "a", "1");
    weir_buf snap; /* pre-committed (flushed), then the job dies */
    weir_buf_init(&snap);
    cr_assert_eq(other.cls->snapshot(op, NULL, 1, &snap), 0);
    cc_crash_close(&other, op, tpath("sw"));
    weir_buf_fini(&snap);
    cfg.job_id = "/this/job";
    weir_operator_spec spec = spec_of(&cfg);
    op = create(&spec, s);
    put(&spec, op, s, 1, "a", "1");
    put(&spec, op, s, 2, "b", "2");
    cc_crash_close(&spec, op, tpath("sw")); /* crash, no checkpoint */
    cr_assert_str_eq(tree(tpath("sw")), "dt=a/hm=1/.part-0-0.csv.inprogress "
                                        "dt=a/hm=1/.part-0-0.csv.inprogress "
                                        "dt=b/hm=2/.part-0-1.csv.inprogress");
    weir_operator_spec_release(&spec);
    spec = spec_of(&cfg); /* the next run of the same job */
    op = create(&spec, s);
    put(&spec, op, s, 3, "c", "3");
    cr_assert_str_eq(tree(tpath("sw")), "dt=a/hm=1/.part-0-0.csv.inprogress "
                                        "dt=c/hm=3/.part-0-0.csv.inprogress");
    cr_assert_str_eq(read_all(pn_path(tpath("sw/dt=a/hm=1/.part-0-0.csv.inprogress"))),
                     "9\n", "the other job's file is intact");
    spec.cls->close(op);
    weir_operator_spec_release(&spec);
    weir_operator_spec_release(&other);
    weir_schema_destroy(s);
}

Test(file_partition, options)
{
    weir_schema *s = part_schema();
    const char *k1[] = {"dt"};
    int idx = -1;
    weir_connector_env env = {
        .partition_keys = k1, .n_partition_keys = 1, .bad_option_index = &idx};
    weir_operator_spec spec;
    weir_error err;
    weir_option ok[] = {{"connector", "filesystem"},
                        {"path", "file:///tmp/weir-fpart-opts"},
                        {"format", "csv"},
                        {"sink.partition-commit.policy.kind", "success-file"},
                        {"sink.partition-commit.trigger", "partition-time"},
                        {"sink.partition-commit.delay", "1 min"},
                        {"partition.time-extractor.timestamp-pattern", "$dt"},
                        {"partition.default-name", "none"},
                        {"sink.rolling-policy.rollover-interval", "1min"},
                        {"sink.rolling-policy.check-interval", "1min"}};
    cr_assert_eq(weir_connector_sink_spec(NULL, ok, 10, s, &env, &spec, &err),
                 0, "%s", err.message);
    weir_operator_spec_release(&spec);
    weir_option custom[] = {{"connector", "filesystem"},
                            {"path", "o"},
                            {"sink.partition-commit.policy.kind", "custom"}};
    cr_assert_eq(
        weir_connector_sink_spec(NULL, custom, 3, s, &env, &spec, &err),
        WEIR_EUNSUPPORTED);
    cr_assert_str_eq(err.message,
                     "partition commit policy 'custom' is not supported: weir "
                     "has 'success-file' only (no metastore, no custom policy "
                     "classes)");
    cr_assert_eq(idx, 2);
    weir_option trig[] = {{"connector", "filesystem"},
                          {"path", "o"},
                          {"sink.partition-commit.trigger", "sometimes"}};
    cr_assert_eq(weir_connector_sink_spec(NULL, trig, 3, s, &env, &spec, &err),
                 WEIR_EINVAL);
    cr_assert_eq(idx, 2);
    weir_option scheme[] = {{"connector", "filesystem"}, {"path", "hdfs://b/o"}};
    cr_assert_eq(
        weir_connector_sink_spec(NULL, scheme, 2, s, &env, &spec, &err),
        WEIR_EUNSUPPORTED);
    cr_assert_eq(idx, 1);
    weir_option rel[] = {{"connector", "filesystem"}, {"path", "file://o"}};
    cr_assert_eq(weir_connector_sink_spec(NULL, rel, 2, s, &env, &spec, &err),
                 WEIR_EINVAL);
    const char *nokey[] = {"nope"};
    weir_connector_env env2 = {.partition_keys = nokey, .n_partition_keys = 1};
    weir_option plain[] = {
        {"connector", "filesystem"}, {"path", "o"}, {"format", "csv"}};
    cr_assert_eq(
        weir_connector_sink_spec(NULL, plain, 3, s, &env2, &spec, &err),
        WEIR_EINVAL);
    cr_assert_str_eq(err.message,
                     "partition column 'nope' is not a column of the table");
    weir_option print[] = {{"connector", "print"}};
    cr_assert_eq(weir_connector_sink_spec(NULL, print, 1, s, &env, &spec, &err),
                 WEIR_EUNSUPPORTED);
    /* Partitioned filesystem tables are read back (their partition columns
     * from the folders; test_connector and test_partition_source_diff test
     * the reading), other connectors refuse them. */
    weir_source_spec src;
    cr_assert_eq(
        weir_connector_source_spec(NULL, plain, 3, s, &env, &src, &err), 0,
        "%s", err.message);
    weir_source_spec_release(&src);
    weir_option dg[] = {{"connector", "datagen"}};
    cr_assert_eq(weir_connector_source_spec(NULL, dg, 1, s, &env, &src, &err),
                 WEIR_EUNSUPPORTED);
    /* A commit policy on an unpartitioned table. */
    weir_option unpart[] = {
        {"connector", "filesystem"},
        {"path", "o"},
        {"sink.partition-commit.policy.kind", "success-file"}};
    cr_assert_eq(
        weir_connector_sink_spec(NULL, unpart, 3, s, NULL, &spec, &err),
        WEIR_EINVAL);
    weir_schema_destroy(s);
}

Test(file_partition, default_name_stays_inside_the_table, .init = make_tmp,
     .fini = cleanup_tmp)
{
    weir_schema *s = part_schema();
    const char *k1[] = {"dt"};
    int idx = -1;
    weir_connector_env env = {
        .partition_keys = k1, .n_partition_keys = 1, .bad_option_index = &idx};
    weir_operator_spec spec;
    weir_error err;
    const char *bad[] = {"../../../evil", "a/b", "/abs", "", "a\\b", "x\ny"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        weir_option o[] = {{"connector", "filesystem"},
                           {"path", tpath("t")},
                           {"format", "csv"},
                           {"partition.default-name", bad[i]}};
        idx = -1;
        cr_assert_eq(weir_connector_sink_spec(NULL, o, 4, s, &env, &spec, &err),
                     WEIR_EINVAL, "'%s' accepted", bad[i]);
        cr_assert_eq(idx, 3);
        cr_assert(strstr(err.message, "option 'partition.default-name' must "
                                      "be a plain folder name"),
                  "%s", err.message);
        /* The C API refuses it too. */
        weir_file_sink_config cfg;
        base_cfg(&cfg, "t");
        cfg.partition_default_name = bad[i];
        cr_assert_eq(weir_file_sink_spec(&cfg, &spec, &err), WEIR_EINVAL);
    }
    /* Names that stay one folder are fine, dots included ("dt=.."). */
    weir_file_sink_config cfg;
    base_cfg(&cfg, "t");
    cfg.partition_default_name = "..";
    spec = spec_of(&cfg);
    void *op = create(&spec, s);
    put(&spec, op, s, 1, NULL, "x");
    cr_assert_eq(spec.cls->finish(op, NULL), 0);
    spec.cls->close(op);
    cr_assert_str_eq(tree(tpath("t")), "dt=../hm=x/part-0-0.csv");
    weir_operator_spec_release(&spec);
    weir_schema_destroy(s);
}
