/*
 * connector/file/file_source.c - JSON lines and CSV files as a source.
 *
 * Splits. The path is a file or a directory (read recursively; names that
 * start with '.' or '_' are hidden and ignored, as in Flink). Files are
 * sorted by path and each is one split, read in order. With a split size,
 * each file is cut into byte ranges [a, b): a range owns exactly the records
 * that start at an offset in [a, b), where a record starts at offset 0 or
 * just after a line break, so no record is lost or read twice (a CSV record
 * with a quoted line break cannot be cut safely; see docs/connectors.md).
 *
 * Assignment. Bounded: split i of the sorted list goes to subtask
 * i % parallelism. Monitored directories: subtasks scan independently and
 * at different moments, so an index would not be stable; a split goes to
 * subtask hash(id) % parallelism instead.
 *
 * Positions. A reader's position is the byte offset of the next record
 * start (just past the last row returned, and past any blank or bad record
 * already dealt with). Opening a split at a position resumes exactly there.
 * After the offset it keeps the file's size and modification time at the
 * split's first open, which its METADATA columns report after a restore too
 * (an older position, the offset alone, takes them from the file then).
 *
 * Size. A reader reads its file up to the size the file had when the split
 * was opened: bytes appended later are not read (the source is bounded by
 * what it found). A file that shrinks below what the reader has still to
 * read (truncated, rewritten in place) is an error naming the file and both
 * sizes, never a silent early end; so is a position past the end of the
 * file when a split is reopened. A file renamed or replaced while open is
 * read to its end as it was (the open descriptor keeps it).
 *
 * Bad records are handled by the source's policy (fail, skip,
 * dead-letter); a failing record is never consumed, so the position stays
 * before it. A record without an event time (NULL or missing in a column
 * the table's event time is computed from) is a bad record too, and so is
 * one longer than the record limit, however it was buffered; the buffer
 * never grows past the limit, and an oversized record is dropped up to its
 * end as framing sees it (for CSV, a line break outside quotes). Line numbers are counted from where the reader started and
 * turned into absolute line numbers only when a message needs one.
 *
 * Object storage (path s3://bucket/prefix): the prefix is one object, or
 * else the objects below "prefix/" (ListObjectsV2, page after page), with
 * the same hidden names; they are split, assigned and positioned as files
 * (a split id is the object's s3:// path), their size is the object's when
 * the split is opened, and they are read by ranged GETs of the read
 * buffer's size, so an object never sits whole in memory.
 *
 * Buffers: one read buffer per reader, grown only for records longer than
 * it; decoding writes straight into the batch. Nothing is allocated per
 * record.
 *
 * Mapping. A regular local file (not object storage, not a pipe or device,
 * not while a test has replaced the I/O table, and not with
 * 'source.read-mode' = 'read') is read through a read-only mapping instead
 * of the read buffer: the decoder reads the records where the page cache
 * holds them, with no copy. The reader maps a window of the file (at most
 * map_window_bytes, 64 MiB by default, up to the size at open and, for a byte range, to its
 * end plus the tail of its last record) and slides it along, unmapping what
 * it has read (every UNMAP_STEP bytes). What the decoder sees at a time is the same as with the
 * read buffer (the buffer's size, grown the same way), so framing, record
 * limits and positions are those of the read path; only the copy is gone.
 * A file that cannot be mapped is read as before. A file that shrinks under
 * the mapping makes a load past its end raise SIGBUS: util/sigbus.h turns
 * that into the read path's error for a shrunk file, the rows of the
 * record being decoded dropped; and as a load from the page that holds the
 * new end reads zeros instead, each read also checks the file still holds
 * the bytes it consumed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "connector/connector_internal.h"
#include "connector/file/fileio.h"
#include "format/convert.h"
#include "weir/expr.h"
#include "util/io.h"
#include "util/s3.h"
#include "util/sigbus.h"

#define DEFAULT_READ_BUFFER (1u << 20)
#define DEFAULT_MAX_RECORD (16u << 20)
#define DEAD_LETTER_RAW_MAX (64u << 10)
/* The most of a file a reader maps at a time (see "Mapping" above). */
#define DEFAULT_MAP_WINDOW ((size_t)64 << 20)
/* A mapped reader unmaps what it has read once it is this much. */
#define UNMAP_STEP ((size_t)2 << 20)

/* The metadata a METADATA column reads (FROM 'key'). */
typedef enum file_meta_kind {
    FILE_META_PATH,  /* 'file.path': the file's absolute path */
    FILE_META_NAME,  /* 'file.name': its last part */
    FILE_META_SIZE,  /* 'file.size': bytes */
    FILE_META_MTIME, /* 'file.modification-time' */
    FILE_META_N
} file_meta_kind;

static const struct {
    const char *key;
    weir_type_id type;
    const char *type_name;
} file_meta_keys[FILE_META_N] = {
    [FILE_META_PATH] = {"file.path", WEIR_TYPE_STRING, "STRING"},
    [FILE_META_NAME] = {"file.name", WEIR_TYPE_STRING, "STRING"},
    [FILE_META_SIZE] = {"file.size", WEIR_TYPE_BIGINT, "BIGINT"},
    [FILE_META_MTIME] = {"file.modification-time", WEIR_TYPE_TIMESTAMP_LTZ, "TIMESTAMP_LTZ(3)"},
};

/*
 * The columns that are not in the files: those of a partitioned table
 * (PARTITIONED BY) are in the folders path/k1=v1/... (the keys), METADATA
 * columns describe the file. The files hold the other columns (data).
 */
typedef struct file_partitioning {
    uint32_t n_keys;
    char **keys;             /* PARTITIONED BY order */
    uint32_t *key_cols;      /* the schema column of each key */
    char *default_name;      /* the folder name of a NULL value */
    weir_schema *data;       /* the files' columns, in schema order */
    uint32_t *data_cols;     /* the schema column of each data column */
    bool data_prefix;        /* data column i is schema column i */
    uint32_t *et_data;       /* event-time columns among the data columns */
    uint32_t n_et_data;
    bool *key_et;            /* per key: the event time is computed from it */
    weir_schema *text;       /* the keys as STRING */
    weir_schema *typed;      /* the keys with their columns' types */
    weir_expr_arena *arena;  /* the casts */
    weir_expr **casts;       /* text -> typed, one per key */
    const weir_expr *filter; /* pruning (borrowed), or NULL */
    uint32_t n_meta;         /* METADATA columns read */
    uint32_t *meta_cols;     /* the schema column of each */
    file_meta_kind *meta_kinds;
    bool active;             /* keys or metadata: the files hold part.data */
} file_partitioning;

typedef struct file_source_arg {
    weir_file_source_config cfg; /* strings point at the owned copies below */
    char *path;
    char *dead_letter_path;
    char *null_literal;
    char *event_time;
    uint32_t *event_time_fields;
    const weir_schema *schema;
    file_partitioning part; /* n_keys 0: not partitioned */
} file_source_arg;

typedef struct file_split {
    char *id;
    char *path;
    uint64_t start;
    uint64_t end; /* UINT64_MAX: to the end of the file */
    weir_batch *pv; /* partitioned: the partition's values (one row of
                       part.typed), owned; else NULL */
} file_split;

typedef struct file_source {
    const file_source_arg *arg;
    weir_source_info info;
    weir_clock clock;
    file_split *splits; /* every split this instance was ever given */
    uint32_t n_splits, cap_splits;
    char **known; /* sorted paths of files seen by earlier scans (monitoring) */
    uint32_t n_known, cap_known;
    const char **new_ids; /* discover()'s answer, reused */
    uint32_t cap_new_ids;
    bool scanned;
    int64_t last_scan_ms;
    int dl_fd; /* dead-letter file, opened on first use */
    weir_buf dl_buf;
    _Atomic uint64_t n_skipped, n_dead_letter, n_records, n_bytes;
    weir__s3 *s3; /* the path is on object storage */
    weir_expr_env *env; /* partitioned: casts and pruning of folder values */
    weir_batch *text;   /* partitioned: one row of folder values as text */
    /*
     * The reader of the last range this subtask closed, kept open (its file
     * descriptor, read buffer and decoder) for the next range of the same
     * file: a subtask reading 1 024 ranges of one file one after the other
     * opens it once. Local files only. NULL: none.
     */
    struct file_reader *spare;
    uint64_t spare_end; /* the end of the range spare read */
    uint32_t find_next; /* where find_split looks first: after the split found last */
} file_source;

typedef struct file_reader {
    file_source *src;
    char *path;           /* the file fd reads (the split's path, owned) */
    const file_split *split;
    int fd;
    weir_decoder *dec;
    char *buf;            /* the bytes the decoder sees: mem, or in map */
    char *mem;            /* the read buffer (cap bytes); NULL when mapped */
    size_t cap, len, pos; /* buf[pos, len) not yet consumed */
    uint64_t file_off;    /* file offset of buf[0] */
    /* Mapped (see "Mapping" above): the window map holds the file's bytes
     * [map_off, map_off + map_len), and buf points into it. */
    bool mapped;
    char *map;            /* NULL: no window yet */
    uint64_t map_off;
    size_t map_len;
    uint32_t committed;   /* rows of whole records in the batch being read */
    bool gone;            /* a bad record was the end of a shrunk file */
    weir__sigbus_guard guard; /* armed while the decoder reads the window */
    uint64_t size;        /* the file's size when the split was opened */
    int64_t mtime_ms;     /* its modification time then (local files) */
    /* 'file.size' and 'file.modification-time': size and mtime_ms at the
     * split's first open, kept in its position across restores */
    uint64_t meta_size;
    int64_t meta_mtime_ms;
    char *abs_path;       /* 'file.path' (made when first needed), owned */
    bool eof;             /* the file has no more bytes */
    bool done;            /* the split is exhausted */
    bool header_pending;  /* the next record is a CSV header */
    weir_buf got;         /* object storage: the last ranged GET */
    weir_batch *scratch;  /* partitioned, keys not last: decoded data rows */
    bool bom_checked;
    uint64_t line_base_off; /* where line counting started */
    int64_t line_base;      /* lines before line_base_off; -1 until needed */
    uint64_t line_rel;      /* line breaks consumed since line_base_off */
} file_reader;

/* ---- arg ---- */

static void part_fini(file_partitioning *pt)
{
    for (uint32_t i = 0; pt->keys && i < pt->n_keys; i++)
        weir_free(pt->keys[i]);
    weir_free(pt->keys);
    weir_free(pt->key_cols);
    weir_free(pt->default_name);
    weir_schema_destroy(pt->data);
    weir_free(pt->data_cols);
    weir_free(pt->et_data);
    weir_free(pt->key_et);
    weir_schema_destroy(pt->text);
    weir_schema_destroy(pt->typed);
    weir_expr_arena_destroy(pt->arena);
    weir_free(pt->casts);
    weir_free(pt->meta_cols);
    weir_free(pt->meta_kinds);
}

static void arg_free(void *p)
{
    file_source_arg *a = p;
    if (!a)
        return;
    part_fini(&a->part);
    weir_free(a->path);
    weir_free(a->dead_letter_path);
    weir_free(a->null_literal);
    weir_free(a->event_time);
    weir_free(a->event_time_fields);
    weir_free(a);
}

void weir_file_source_config_init(weir_file_source_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    weir_format_options_init(&cfg->format, WEIR_FORMAT_JSON);
}

extern const weir_source_class weir__file_source_class;
extern const weir_source_class weir__file_source_class_ranged;

/*
 * A decoder for cfg's format that also refuses records without an event
 * time: a NULL in a column the event time is computed from is bad input.
 */
static int make_decoder(const file_source_arg *a, weir_decoder **out,
                        weir_error *err)
{
    const weir_file_source_config *cfg = &a->cfg;
    /* A partitioned table's files hold its data columns only. */
    const weir_schema *schema = a->part.active ? a->part.data : a->schema;
    const uint32_t *et = a->part.active ? a->part.et_data
                                        : cfg->event_time_fields;
    uint32_t n_et = a->part.active ? a->part.n_et_data
                                   : cfg->n_event_time_fields;
    int rc = weir_decoder_create(&cfg->format, schema, out, err);
    if (rc)
        return rc;
    for (uint32_t i = 0; i < n_et; i++) {
        uint32_t col = et[i];
        char why[160];
        if (!cfg->event_time || col >= schema->n_fields ||
            !strcasecmp(cfg->event_time, schema->fields[col].name))
            snprintf(why, sizeof why, "it is the event time");
        else
            snprintf(why, sizeof why, "the event time %s is computed from it",
                     cfg->event_time);
        if ((rc = weir_decoder_require(*out, col, why))) {
            weir_decoder_destroy(*out);
            *out = NULL;
            return weir_error_set(err, rc,
                                  rc == WEIR_ENOMEM
                                      ? "out of memory"
                                      : "filesystem source: event-time "
                                        "column %u is not in the schema",
                                  col);
        }
    }
    return 0;
}

/*
 * Whether METADATA column col (of type t) may read key: *kind is the
 * metadata, or the error names the column, the key and what it could be.
 */
static int file_meta_check(const char *col, const char *key, weir_type t,
                           bool s3, file_meta_kind *kind, weir_error *err)
{
    uint32_t k = 0;
    while (k < FILE_META_N && strcmp(file_meta_keys[k].key, key))
        k++;
    if (k == FILE_META_N) {
        const char *best = weir__opt_closest(key, file_meta_keys, FILE_META_N, sizeof *file_meta_keys);
        char hint[96] = "";
        if (best)
            snprintf(hint, sizeof hint, " (did you mean '%s'?)", best);
        return weir_error_set(err, WEIR_EINVAL,
                              "column '%s': connector 'filesystem' has no "
                              "metadata '%s'%s; it has 'file.path', "
                              "'file.name', 'file.size' and "
                              "'file.modification-time'",
                              col, key, hint);
    }
    if (t.id != file_meta_keys[k].type) {
        char tb[64];
        return weir_error_set(err, WEIR_EINVAL,
                              "column '%s': metadata '%s' is %s, not %s", col,
                              key, file_meta_keys[k].type_name,
                              weir_expr_type_name(t, 0, tb, sizeof tb));
    }
    if (k == FILE_META_MTIME && s3)
        return weir_error_set(err, WEIR_EUNSUPPORTED,
                              "column '%s': metadata '%s' is not read from "
                              "object storage (s3://); 'file.path', "
                              "'file.name' and 'file.size' are",
                              col, key);
    *kind = (file_meta_kind)k;
    return 0;
}

/* The columns not in the files: the "k=v" folder part of a partitioned
 * table (keys, columns, casts) and the METADATA columns. */
static int part_init(file_source_arg *a, const weir_file_source_config *cfg,
                     weir_error *err)
{
    file_partitioning *pt = &a->part;
    const weir_schema *sch = a->schema;
    uint32_t nk = cfg->n_partition_keys;
    pt->n_keys = nk;
    pt->keys = weir_calloc(nk + 1, sizeof *pt->keys);
    pt->key_cols = weir_calloc(nk + 1, sizeof *pt->key_cols);
    pt->key_et = weir_calloc(nk + 1, sizeof *pt->key_et);
    pt->data_cols = weir_calloc(sch->n_fields + 1, sizeof *pt->data_cols);
    pt->et_data = weir_calloc(cfg->n_event_time_fields + 1,
                              sizeof *pt->et_data);
    pt->casts = weir_calloc(nk + 1, sizeof *pt->casts);
    pt->meta_cols = weir_calloc(cfg->n_metadata_columns + 1,
                                sizeof *pt->meta_cols);
    pt->meta_kinds = weir_calloc(cfg->n_metadata_columns + 1,
                                 sizeof *pt->meta_kinds);
    pt->default_name = weir_strdup(cfg->partition_default_name
                                       ? cfg->partition_default_name
                                       : "__DEFAULT_PARTITION__");
    pt->data = weir_schema_create();
    pt->text = weir_schema_create();
    pt->typed = weir_schema_create();
    pt->arena = weir_expr_arena_create();
    pt->filter = cfg->partition_filter;
    if (!pt->keys || !pt->key_cols || !pt->key_et || !pt->data_cols ||
        !pt->et_data || !pt->casts || !pt->default_name || !pt->data ||
        !pt->text || !pt->typed || !pt->arena || !pt->meta_cols ||
        !pt->meta_kinds)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    bool *is_key = weir_calloc(sch->n_fields + 1, sizeof *is_key);
    if (!is_key)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    int rc = 0;
    for (uint32_t k = 0; k < nk && !rc; k++) {
        const char *name = cfg->partition_keys[k];
        int col = name ? weir_schema_find(sch, name) : -1;
        if (col < 0) {
            rc = weir_error_set(err, WEIR_EINVAL,
                                "filesystem source: partition column '%s' is "
                                "not a column of the table",
                                name ? name : "");
            break;
        }
        weir_type t = sch->fields[col].type;
        if (weir_type_nested_id(t) || t.id == WEIR_TYPE_BYTES) {
            char tb[64];
            rc = weir_error_set(err, WEIR_EUNSUPPORTED,
                                "filesystem source: partition column '%s' has "
                                "type %s; a partition value is a scalar read "
                                "from a folder name",
                                name,
                                weir_expr_type_name(t, 0, tb, sizeof tb));
            break;
        }
        if (is_key[col]) {
            rc = weir_error_set(err, WEIR_EINVAL,
                                "filesystem source: partition column '%s' "
                                "given twice",
                                name);
            break;
        }
        is_key[col] = true;
        pt->key_cols[k] = (uint32_t)col;
        pt->keys[k] = weir_strdup(sch->fields[col].name);
        weir_type tt = weir_type_make(WEIR_TYPE_STRING, true);
        t.nullable = true; /* the default partition is NULL */
        weir_expr *c = NULL;
        if (!pt->keys[k] ||
            weir_schema_add(pt->text, pt->keys[k], tt) < 0 ||
            weir_schema_add(pt->typed, pt->keys[k], t) < 0)
            rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
        else if (!(rc = weir_expr_column(pt->arena, k, tt, &c, err)))
            rc = t.id == WEIR_TYPE_STRING
                     ? 0
                     : weir_expr_cast(pt->arena, c, t, false, &c, err);
        pt->casts[k] = c;
    }
    bool s3 = weir__fio_is_s3(cfg->path);
    for (uint32_t m = 0; m < cfg->n_metadata_columns && !rc; m++) {
        const weir_option *mc = &cfg->metadata_columns[m];
        int col = mc->key ? weir_schema_find(sch, mc->key) : -1;
        if (col < 0)
            continue; /* not read */
        if (is_key[col]) {
            rc = weir_error_set(err, WEIR_EINVAL,
                                "filesystem source: column '%s' is both a "
                                "partition column and METADATA",
                                mc->key);
            break;
        }
        file_meta_kind kind = FILE_META_N;
        if ((rc = file_meta_check(mc->key, mc->value ? mc->value : mc->key,
                                  sch->fields[col].type, s3, &kind, err)))
            break;
        is_key[col] = true;
        pt->meta_cols[pt->n_meta] = (uint32_t)col;
        pt->meta_kinds[pt->n_meta++] = kind;
    }
    pt->active = nk || pt->n_meta;
    uint32_t nd = 0;
    pt->data_prefix = true;
    for (uint32_t i = 0; i < sch->n_fields && !rc; i++) {
        if (is_key[i])
            continue;
        if (weir_schema_add(pt->data, sch->fields[i].name,
                            sch->fields[i].type) < 0)
            rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
        pt->data_prefix &= nd == i;
        pt->data_cols[nd++] = i;
    }
    pt->data->rowtime = -1;
    pt->text->rowtime = pt->typed->rowtime = -1;
    /* Event-time columns: those of the files are required by the decoder,
     * a key's NULL (the default partition) fails the partition. */
    for (uint32_t i = 0; i < cfg->n_event_time_fields && !rc; i++) {
        uint32_t col = cfg->event_time_fields[i];
        for (uint32_t d = 0; d < nd; d++)
            if (pt->data_cols[d] == col)
                pt->et_data[pt->n_et_data++] = d;
        for (uint32_t k = 0; k < nk; k++)
            pt->key_et[k] |= pt->key_cols[k] == col;
    }
    weir_free(is_key);
    return rc;
}

int weir_file_source_spec(const weir_file_source_config *cfg,
                          const weir_schema *schema, weir_source_spec *out,
                          weir_error *err)
{
    memset(out, 0, sizeof *out);
    if (!cfg || !schema)
        return weir_error_set(err, WEIR_EINVAL,
                              "filesystem source: missing config or schema");
    if (!cfg->path || !*cfg->path)
        return weir_error_set(err, WEIR_EINVAL,
                              "filesystem source: 'path' is required");
    if (cfg->format.kind != WEIR_FORMAT_JSON &&
        cfg->format.kind != WEIR_FORMAT_CSV &&
        cfg->format.kind != WEIR_FORMAT_DEBEZIUM_JSON)
        return weir_error_set(err, WEIR_EUNSUPPORTED,
                              "filesystem source: format '%s' cannot be read; "
                              "use 'json', 'csv' or 'debezium-json'",
                              weir_format_name(cfg->format.kind));
    if (cfg->on_bad_input == WEIR_BAD_INPUT_DEAD_LETTER &&
        (!cfg->dead_letter_path || !*cfg->dead_letter_path))
        return weir_error_set(err, WEIR_EINVAL,
                              "filesystem source: the dead-letter policy needs "
                              "'source.dead-letter.path'");
    file_source_arg *a = weir_calloc(1, sizeof *a);
    if (!a)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    a->cfg = *cfg;
    a->schema = schema;
    a->path = weir_strdup(cfg->path);
    if (cfg->dead_letter_path)
        a->dead_letter_path = weir_strdup(cfg->dead_letter_path);
    if (cfg->format.csv_null_literal)
        a->null_literal = weir_strdup(cfg->format.csv_null_literal);
    if (cfg->event_time)
        a->event_time = weir_strdup(cfg->event_time);
    if (cfg->n_event_time_fields) {
        a->event_time_fields =
            weir_malloc(cfg->n_event_time_fields * sizeof *a->event_time_fields);
        if (a->event_time_fields)
            memcpy(a->event_time_fields, cfg->event_time_fields,
                   cfg->n_event_time_fields * sizeof *a->event_time_fields);
    }
    if (!a->path || (cfg->dead_letter_path && !a->dead_letter_path) ||
        (cfg->format.csv_null_literal && !a->null_literal) ||
        (cfg->event_time && !a->event_time) ||
        (cfg->n_event_time_fields && !a->event_time_fields)) {
        arg_free(a);
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    }
    /* Drop a trailing '/' so that ids and messages read "dir/file". */
    size_t n = strlen(a->path);
    while (n > 1 && a->path[n - 1] == '/')
        a->path[--n] = '\0';
    a->cfg.path = a->path;
    a->cfg.dead_letter_path = a->dead_letter_path;
    a->cfg.format.csv_null_literal = a->null_literal;
    a->cfg.event_time = a->event_time;
    a->cfg.event_time_fields = a->event_time_fields;
    if (!a->cfg.read_buffer_bytes)
        a->cfg.read_buffer_bytes = DEFAULT_READ_BUFFER;
    if (a->cfg.read_buffer_bytes < 64)
        a->cfg.read_buffer_bytes = 64;
    if (!a->cfg.max_record_bytes)
        a->cfg.max_record_bytes = DEFAULT_MAX_RECORD;
    if (!a->cfg.map_window_bytes)
        a->cfg.map_window_bytes = DEFAULT_MAP_WINDOW;
    a->cfg.partition_keys = NULL;
    a->cfg.partition_default_name = NULL;
    a->cfg.partition_filter = NULL;
    a->cfg.metadata_columns = NULL;
    a->cfg.n_metadata_columns = 0;
    int rc = cfg->n_partition_keys || cfg->n_metadata_columns
                 ? part_init(a, cfg, err)
                 : 0;
    /* Validate the format against the schema now, not when the job runs. */
    weir_decoder *probe = NULL;
    if (!rc)
        rc = make_decoder(a, &probe, err);
    weir_decoder_destroy(probe);
    if (rc) {
        arg_free(a);
        return rc;
    }
    out->name = "filesystem";
    out->changelog = weir_format_is_changelog(cfg->format.kind);
    out->cls = cfg->split_size_bytes && cfg->monitor_interval_ms <= 0
                   ? &weir__file_source_class_ranged
                   : &weir__file_source_class;
    out->arg = a;
    out->free_arg = arg_free;
    out->schema = schema;
    return 0;
}

/* ---- instance ---- */

static void fs_destroy(void *p);

static int fs_create(void *argp, const weir_source_info *info, void **out,
                     weir_error *err)
{
    const file_source_arg *a = argp;
    file_source *s = weir_calloc(1, sizeof *s);
    if (!s)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    s->arg = a;
    s->info = *info;
    if (!s->info.schema)
        s->info.schema = a->schema;
    if (s->info.parallelism == 0)
        s->info.parallelism = 1;
    s->clock = a->cfg.clock.now_ms ? a->cfg.clock : weir_clock_system();
    s->dl_fd = -1;
    weir_buf_init(&s->dl_buf);
    if (weir__fio_is_s3(a->path)) {
#if defined(WEIR_HAVE_CURL)
        int rc = weir__s3_create(a->path, NULL, &s->s3, err);
#else
        int rc = weir_error_set(err, WEIR_EUNSUPPORTED,
                                "%s: object storage is not built into this "
                                "weir (it needs libcurl)",
                                a->path);
#endif
        if (rc) {
            weir_free(s);
            return rc;
        }
    }
    if (a->part.n_keys) {
        s->env = weir_expr_env_create();
        s->text = weir_batch_create(a->part.text, 1);
        if (!s->env || !s->text) {
            fs_destroy(s);
            return weir_error_set(err, WEIR_ENOMEM, "out of memory");
        }
        weir_expr_env_set_clock(s->env, &s->clock);
    }
    *out = s;
    return 0;
}

/* Closes and frees a reader (a kept one included). */
static void reader_free(file_reader *r)
{
    if (!r)
        return;
    if (r->fd >= 0)
        weir__fio->close(r->fd);
    weir_buf_fini(&r->got);
    weir_batch_destroy(r->scratch);
    weir_decoder_destroy(r->dec);
    if (r->map)
        munmap(r->map, r->map_len);
    weir_free(r->mem);
    weir_free(r->path);
    weir_free(r->abs_path);
    weir_free(r);
}

static void fs_destroy(void *p)
{
    file_source *s = p;
    if (!s)
        return;
    reader_free(s->spare);
    for (uint32_t i = 0; i < s->n_splits; i++) {
        weir_free(s->splits[i].id);
        weir_free(s->splits[i].path);
        weir_batch_destroy(s->splits[i].pv);
    }
    weir_free(s->splits);
    weir_expr_env_destroy(s->env);
    weir_batch_destroy(s->text);
    for (uint32_t i = 0; i < s->n_known; i++)
        weir_free(s->known[i]);
    weir_free(s->known);
    weir_free(s->new_ids);
    if (s->dl_fd >= 0)
        weir__fio->close(s->dl_fd);
    weir_buf_fini(&s->dl_buf);
#if defined(WEIR_HAVE_CURL)
    weir__s3_destroy(s->s3);
#endif
    weir_free(s);
}

/* ---- discovery ---- */

typedef struct path_list {
    char **v;
    size_t n, cap;
} path_list;

static void path_list_fini(path_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        weir_free(l->v[i]);
    weir_free(l->v);
}

static int path_list_add(path_list *l, char *p)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        char **v = weir_realloc(l->v, cap * sizeof *v);
        if (!v) {
            weir_free(p);
            return WEIR_ENOMEM;
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = p;
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *join_path(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *p = weir_malloc(a + b + 2);
    if (p) {
        memcpy(p, dir, a);
        p[a] = '/';
        memcpy(p + a + 1, name, b + 1);
    }
    return p;
}

static int list_dir(const char *dir, path_list *out, int depth, weir_error *err)
{
    if (depth > 64)
        return weir_error_set(err, WEIR_EINVAL,
                              "%s: error: directories nested too deeply", dir);
    DIR *d = opendir(dir);
    if (!d)
        return weir_error_set(err, weir__fio_errno_code(errno),
                              "%s: error: cannot list directory: %s", dir,
                              strerror(errno));
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || e->d_name[0] == '_')
            continue;
        char *p = join_path(dir, e->d_name);
        if (!p) {
            rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
            break;
        }
        struct stat st;
        if (stat(p, &st) != 0) {
            weir_free(p); /* vanished between readdir and stat */
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            rc = list_dir(p, out, depth + 1, err);
            weir_free(p);
            if (rc)
                break;
        } else if (S_ISREG(st.st_mode)) {
            if ((rc = path_list_add(out, p)))
                break;
        } else {
            weir_free(p);
        }
    }
    closedir(d);
    return rc;
}

static bool known_has(const file_source *s, const char *path)
{
    size_t lo = 0, hi = s->n_known;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(s->known[mid], path);
        if (c == 0)
            return true;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

static uint64_t hash_id(const char *s)
{
    uint64_t h = UINT64_C(14695981039346656037);
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * UINT64_C(1099511628211);
    return h;
}

/* Adds a split; takes pv (its partition's values, or NULL). */
static int add_split(file_source *s, const char *path, uint64_t start,
                     uint64_t end, bool ranged, weir_batch *pv)
{
    if (s->n_splits == s->cap_splits) {
        uint32_t cap = s->cap_splits ? s->cap_splits * 2 : 16;
        file_split *v = weir_realloc(s->splits, cap * sizeof *v);
        if (!v) {
            weir_batch_destroy(pv);
            return WEIR_ENOMEM;
        }
        s->splits = v;
        s->cap_splits = cap;
    }
    file_split *sp = &s->splits[s->n_splits];
    sp->path = weir_strdup(path);
    if (ranged) {
        char suffix[64];
        if (end == UINT64_MAX)
            snprintf(suffix, sizeof suffix, "@%" PRIu64 "-", start);
        else
            snprintf(suffix, sizeof suffix, "@%" PRIu64 "-%" PRIu64, start,
                     end);
        size_t a = strlen(path), b = strlen(suffix);
        sp->id = weir_malloc(a + b + 1);
        if (sp->id) {
            memcpy(sp->id, path, a);
            memcpy(sp->id + a, suffix, b + 1);
        }
    } else {
        sp->id = weir_strdup(path);
    }
    if (!sp->path || !sp->id) {
        weir_free(sp->path);
        weir_free(sp->id);
        weir_batch_destroy(pv);
        return WEIR_ENOMEM;
    }
    sp->pv = pv;
    sp->start = start;
    sp->end = end;
    s->n_splits++;
    return 0;
}

static int remember_files(file_source *s, path_list *files)
{
    if (s->n_known + files->n > s->cap_known) {
        size_t cap = s->cap_known ? s->cap_known : 16;
        while (cap < s->n_known + files->n)
            cap *= 2;
        char **v = weir_realloc(s->known, cap * sizeof *v);
        if (!v)
            return WEIR_ENOMEM;
        s->known = v;
        s->cap_known = (uint32_t)cap;
    }
    for (size_t i = 0; i < files->n; i++) {
        s->known[s->n_known++] = files->v[i];
        files->v[i] = NULL;
    }
    if (s->n_known > 1)
        qsort(s->known, s->n_known, sizeof *s->known, cmp_str);
    return 0;
}

/* ---- partitions ---- */

/*
 * The partition of the file at path, from the "key=value" folders between
 * the table's path and the file: *out is one row of part.typed (the
 * caller's), or NULL when the file lies above the partition level (not
 * read, as in Flink). A folder that is not "key=value" of a partition key,
 * a key twice, or a value the column's type cannot take is an error naming
 * the folder. *keep: the pruning predicate holds (no predicate: true).
 */
static int split_partition(file_source *s, const char *path, weir_batch **out,
                           bool *keep, weir_error *err)
{
    const file_source_arg *a = s->arg;
    const file_partitioning *pt = &a->part;
    *out = NULL;
    *keep = true;
    size_t root = strlen(a->path);
    if (strncmp(path, a->path, root) != 0 || path[root] != '/')
        return weir_error_set(err, WEIR_EINVAL,
                              "%s: error: a partitioned table's path must be "
                              "a folder of \"%s=...\" folders",
                              path, pt->keys[0]);
    weir_batch *t = s->text;
    weir_batch_reset(t);
    weir_batch_append_row(t);
    bool seen[64] = {0};
    weir_buf v;
    weir_buf_init(&v);
    int rc = 0;
    const char *seg = path + root + 1;
    uint32_t d;
    for (d = 0; d < pt->n_keys && !rc; d++) {
        const char *slash = strchr(seg, '/');
        if (!slash)
            break; /* above the partition level */
        const char *eq = memchr(seg, '=', (size_t)(slash - seg));
        uint32_t k = pt->n_keys;
        weir_buf_clear(&v);
        if (eq && (rc = weir__fio_put_unescaped(&v, seg, (size_t)(eq - seg))))
            break;
        for (uint32_t i = 0; eq && i < pt->n_keys; i++)
            if (v.len == strlen(pt->keys[i]) &&
                !strncasecmp((const char *)v.data, pt->keys[i], v.len))
                k = i;
        if (k == pt->n_keys || (k < 64 && seen[k])) {
            rc = weir_error_set(
                err, WEIR_EPARSE,
                "%.*s: error: expected a partition folder \"<key>=<value>\" "
                "of the partition keys (%s%s%s%s), found \"%.*s\"%s",
                (int)(slash - path), path, pt->keys[0],
                pt->n_keys > 1 ? ", " : "",
                pt->n_keys > 1 ? pt->keys[1] : "",
                pt->n_keys > 2 ? ", ..." : "", (int)(slash - seg), seg,
                k < pt->n_keys ? " (the key appears twice)" : "");
            break;
        }
        if (k < 64)
            seen[k] = true;
        weir_buf_clear(&v);
        if ((rc = weir__fio_put_unescaped(&v, eq + 1, (size_t)(slash - eq - 1))))
            break;
        if (v.len == strlen(pt->default_name) &&
            !memcmp(v.data, pt->default_name, v.len)) {
            if (pt->key_et[k]) {
                rc = weir_error_set(
                    err, WEIR_EPARSE,
                    "%.*s: error: partition column %s is NULL (the default "
                    "partition), but the event time %s is computed from it",
                    (int)(slash - path), path, pt->keys[k],
                    a->event_time ? a->event_time : "");
                break;
            }
            weir_batch_set_null(t, k, 0);
        } else if ((rc = weir_batch_set_str(t, k, 0, (const char *)v.data,
                                            v.len))) {
            break;
        }
        seg = slash + 1;
    }
    if (rc || d < pt->n_keys) {
        weir_buf_fini(&v);
        return rc == WEIR_ENOMEM
                   ? weir_error_set(err, rc, "out of memory")
                   : rc;
    }
    weir_batch *pv = weir_batch_create(pt->typed, 1);
    if (!pv) {
        weir_buf_fini(&v);
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    }
    weir_error e2 = {0};
    rc = weir_expr_project(pt->casts, pt->n_keys, t, s->env, pv, &e2);
    if (rc) {
        /* name the partition's folder; the row (always 0) says nothing */
        size_t ml = strlen(e2.message);
        if (ml > 8 && !strcmp(e2.message + ml - 8, " (row 0)"))
            e2.message[ml - 8] = '\0';
        rc = weir_error_set(err, rc == WEIR_ENOMEM ? rc : WEIR_EPARSE,
                            "%.*s: error: a partition value does not fit "
                            "its column's type: %s",
                            (int)(seg - path - 1), path, e2.message);
        weir_batch_destroy(pv);
        weir_buf_fini(&v);
        return rc;
    }
    if (pt->filter) {
        uint8_t sel = 0;
        if ((rc = weir_expr_filter(pt->filter, pv, s->env, &sel, &e2))) {
            weir_batch_destroy(pv);
            weir_buf_fini(&v);
            return weir_error_set(err, rc,
                                  "%s: error: the partition filter failed: %s",
                                  path, e2.message);
        }
        *keep = sel != 0;
    }
    weir_buf_fini(&v);
    *out = pv;
    return 0;
}

#if defined(WEIR_HAVE_CURL)
/* The key of an s3:// path of this source's bucket. */
static const char *s3_key_of(const file_source *s, const char *path)
{
    return path + 5 + strlen(weir__s3_bucket(s->s3)) + 1;
}

static char *s3_path_of(const file_source *s, const char *key)
{
    size_t n = strlen(weir__s3_bucket(s->s3)) + strlen(key) + 7;
    char *p = weir_malloc(n);
    if (p)
        snprintf(p, n, "s3://%s/%s", weir__s3_bucket(s->s3), key);
    return p;
}

/* The objects the path names: the prefix itself, or those below it. */
static int s3_list_files(file_source *s, path_list *out, weir_error *err)
{
    const char *prefix = weir__s3_prefix(s->s3);
    uint64_t size;
    int rc = *prefix ? weir__s3_head(s->s3, prefix, &size) : WEIR_ENOTFOUND;
    if (rc == 0) {
        char *p = s3_path_of(s, prefix);
        return p && !path_list_add(out, p)
                   ? 0
                   : weir_error_set(err, WEIR_ENOMEM, "out of memory");
    }
    if (rc != WEIR_ENOTFOUND)
        return weir_error_set(err, rc, "%s: error: cannot read: %s",
                              s->arg->path, weir_strerror(rc));
    size_t pl = strlen(prefix);
    char *kp = weir_malloc(pl + 2);
    if (!kp)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    snprintf(kp, pl + 2, "%s%s", prefix, pl ? "/" : "");
    char **keys = NULL;
    size_t n = 0;
    rc = weir__s3_list(s->s3, kp, false, &keys, NULL, &n);
    if (rc)
        rc = weir_error_set(err, rc, "%s: error: cannot list: %s",
                            s->arg->path, weir_strerror(rc));
    for (size_t i = 0; i < n && !rc; i++) {
        /* hidden: a name (folder or object) below the prefix that starts
         * with '.' or '_' */
        bool hidden = false;
        for (const char *c = keys[i] + strlen(kp); c; c = strchr(c, '/')) {
            if (*c == '/')
                c++;
            hidden |= *c == '.' || *c == '_' || *c == '\0';
        }
        if (hidden)
            continue;
        char *p = s3_path_of(s, keys[i]);
        if (!p || path_list_add(out, p))
            rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
    }
    weir__s3_free_names(keys, n);
    weir_free(kp);
    return rc;
}
#endif

/* The size of the file or object at path (0 or a WEIR_E... code). */
static int file_size(file_source *s, const char *path, uint64_t *size)
{
#if defined(WEIR_HAVE_CURL)
    if (s->s3)
        return weir__s3_head(s->s3, s3_key_of(s, path), size);
#endif
    (void)s;
    struct stat st;
    if (stat(path, &st) != 0)
        return weir__fio_errno_code(errno);
    *size = (uint64_t)st.st_size;
    return 0;
}

/* pread() on a reader's file or object. */
static ssize_t reader_pread(file_reader *r, void *buf, size_t n, uint64_t off)
{
#if defined(WEIR_HAVE_CURL)
    file_source *s = r->src;
    if (s->s3) {
        weir_buf_clear(&r->got);
        int rc = weir__s3_get_range(s->s3, s3_key_of(s, r->split->path), off,
                                    n, &r->got, NULL);
        if (rc == WEIR_EOF)
            return 0;
        if (rc) {
            errno = rc == WEIR_ENOMEM ? ENOMEM : EIO;
            return -1;
        }
        size_t got = r->got.len < n ? r->got.len : n;
        memcpy(buf, r->got.data, got);
        return (ssize_t)got;
    }
#endif
    return weir__fio->pread(r->fd, buf, n, (off_t)off);
}

/* A copy of a partition's values (each byte range of a file has its own). */
static weir_batch *copy_values(const weir_batch *pv)
{
    weir_batch *c = weir_batch_create(pv->schema, 1);
    if (c && weir_batch_copy(c, pv)) {
        weir_batch_destroy(c);
        c = NULL;
    }
    return c;
}

static int fs_discover(void *p, const char ***ids, uint32_t *n_ids, bool *done,
                       weir_error *err)
{
    file_source *s = p;
    const file_source_arg *a = s->arg;
    bool monitor = a->cfg.monitor_interval_ms > 0;
    *ids = NULL;
    *n_ids = 0;
    *done = s->scanned && !monitor;
    if (s->scanned) {
        if (!monitor)
            return 0;
        int64_t now = weir_clock_now(&s->clock);
        if (now - s->last_scan_ms < a->cfg.monitor_interval_ms)
            return 0;
    }
    path_list files = {0};
    struct stat st;
    int rc = 0;
#if defined(WEIR_HAVE_CURL)
    if (s->s3) {
        if ((rc = s3_list_files(s, &files, err)))
            goto out;
    } else
#endif
    {
        if (stat(a->path, &st) != 0) {
            if (monitor && errno == ENOENT && s->scanned)
                goto out; /* a monitored directory may come and go */
            return weir_error_set(err, weir__fio_errno_code(errno),
                                  "%s: error: cannot read: %s", a->path,
                                  strerror(errno));
        }
        if (S_ISDIR(st.st_mode)) {
            if ((rc = list_dir(a->path, &files, 0, err)))
                goto out;
        } else {
            char *copy = weir_strdup(a->path);
            if (!copy || (rc = path_list_add(&files, copy))) {
                rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
                goto out;
            }
        }
    }
    if (files.n > 1) /* (an empty folder lists nothing: no array to sort) */
        qsort(files.v, files.n, sizeof *files.v, cmp_str);
    /* Keep only files no earlier scan saw. */
    size_t kept = 0;
    for (size_t i = 0; i < files.n; i++) {
        if (known_has(s, files.v[i]))
            weir_free(files.v[i]);
        else
            files.v[kept++] = files.v[i];
    }
    files.n = kept;
    uint32_t first_new = s->n_splits;
    uint64_t index = 0; /* global split index, for bounded assignment */
    for (size_t i = 0; i < files.n; i++) {
        const char *path = files.v[i];
        uint64_t size = 0;
        weir_batch *pv = NULL;
        if (a->part.n_keys) {
            /* a file above the partition level, or of a pruned
             * partition, is not read (and takes no index) */
            bool keep;
            if ((rc = split_partition(s, path, &pv, &keep, err)))
                goto out;
            if (!pv || !keep) {
                weir_batch_destroy(pv);
                continue;
            }
        }
        if (a->cfg.split_size_bytes && file_size(s, path, &size) != 0) {
            weir_batch_destroy(pv);
            continue;
        }
        uint64_t n_ranges =
            a->cfg.split_size_bytes
                ? (size + a->cfg.split_size_bytes - 1) / a->cfg.split_size_bytes
                : 1;
        if (n_ranges == 0)
            n_ranges = 1;
        for (uint64_t r = 0; r < n_ranges; r++, index++) {
            uint64_t start = r * a->cfg.split_size_bytes;
            uint64_t end = r + 1 == n_ranges ? UINT64_MAX
                                             : start + a->cfg.split_size_bytes;
            bool ranged = a->cfg.split_size_bytes != 0;
            char idbuf[64] = "";
            uint64_t owner;
            if (monitor) {
                /* The id decides; build it the way add_split does. */
                if (ranged) {
                    if (end == UINT64_MAX)
                        snprintf(idbuf, sizeof idbuf, "@%" PRIu64 "-", start);
                    else
                        snprintf(idbuf, sizeof idbuf, "@%" PRIu64 "-%" PRIu64,
                                 start, end);
                }
                owner = (hash_id(path) ^ hash_id(idbuf)) % s->info.parallelism;
            } else {
                owner = index % s->info.parallelism;
            }
            if (owner != s->info.subtask)
                continue;
            weir_batch *mine = pv;
            if (pv && r + 1 < n_ranges && !(mine = copy_values(pv))) {
                rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
                goto out_pv;
            }
            if (mine == pv)
                pv = NULL; /* the last range takes it */
            if ((rc = add_split(s, path, start, end, ranged, mine))) {
                rc = weir_error_set(err, rc, "out of memory");
                goto out_pv;
            }
        }
        weir_batch_destroy(pv);
        continue;
    out_pv:
        weir_batch_destroy(pv);
        goto out;
    }
    if (monitor && (rc = remember_files(s, &files))) {
        rc = weir_error_set(err, rc, "out of memory");
        goto out;
    }
    uint32_t n_new = s->n_splits - first_new;
    if (n_new > s->cap_new_ids) {
        const char **v = weir_realloc(s->new_ids, n_new * sizeof *v);
        if (!v) {
            rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
            goto out;
        }
        s->new_ids = v;
        s->cap_new_ids = n_new;
    }
    for (uint32_t i = 0; i < n_new; i++)
        s->new_ids[i] = s->splits[first_new + i].id;
    *ids = s->new_ids;
    *n_ids = n_new;
out:
    path_list_fini(&files);
    if (!rc) {
        s->scanned = true;
        s->last_scan_ms = weir_clock_now(&s->clock);
        *done = !monitor;
    }
    return rc;
}

/* ---- reading ---- */

/*
 * A byte range's id, "path@start-[end]": the length of its path and its
 * bounds (end UINT64_MAX when open). False for a whole file's id, and for
 * every id when the source does not split files.
 */
static bool parse_range(const file_source *s, const char *id, size_t *path_len,
                        uint64_t *start, uint64_t *end)
{
    const char *at = strrchr(id, '@');
    if (!at || !s->arg->cfg.split_size_bytes)
        return false;
    char *e;
    unsigned long long a = strtoull(at + 1, &e, 10);
    if (e == at + 1 || *e != '-')
        return false;
    const char *bs = e + 1;
    unsigned long long b = ULLONG_MAX;
    if (*bs != '\0') {
        b = strtoull(bs, &e, 10);
        if (*e != '\0' || b < a)
            return false;
    }
    *path_len = (size_t)(at - id);
    *start = a;
    *end = *bs == '\0' ? UINT64_MAX : (uint64_t)b;
    return true;
}

static const file_split *find_split(file_source *s, const char *id,
                                    weir_error *err)
{
    /* from the split after the one found last: a subtask opens its splits
     * in list order, and a file in small byte ranges may have many */
    for (uint32_t k = 0; k < s->n_splits; k++) {
        uint32_t i = (s->find_next + k) % s->n_splits;
        if (strcmp(s->splits[i].id, id) == 0) {
            s->find_next = i + 1;
            return &s->splits[i];
        }
    }
    /* An id from an earlier run (restore): "path" or "path@start-[end]". */
    size_t path_len = 0;
    uint64_t start = 0, end = UINT64_MAX;
    bool ranged = parse_range(s, id, &path_len, &start, &end);
    if (!ranged) {
        start = 0;
        end = UINT64_MAX;
    }
    char *path = ranged ? weir_strndup(id, path_len) : weir_strdup(id);
    if (!path) {
        weir_error_set(err, WEIR_ENOMEM, "out of memory");
        return NULL;
    }
    weir_batch *pv = NULL;
    if (s->arg->part.n_keys) {
        /* the partition of a restored split, read whether or not the
         * pruning predicate would read it now: its position says it was */
        bool keep;
        int prc = split_partition(s, path, &pv, &keep, err);
        if (!prc && !pv)
            prc = weir_error_set(err, WEIR_ECORRUPT,
                                 "%s: error: a split of a partitioned table "
                                 "outside its partition folders",
                                 id);
        if (prc) {
            weir_free(path);
            return NULL;
        }
    }
    int rc = add_split(s, path, start, end, ranged, pv);
    weir_free(path);
    if (rc) {
        weir_error_set(err, rc, "out of memory");
        return NULL;
    }
    return &s->splits[s->n_splits - 1];
}

static int io_error(file_reader *r, const char *what, int e, weir_error *err)
{
    return weir_error_set(err, weir__fio_errno_code(e),
                          "%s: error: cannot %s: %s (offset %" PRIu64 ")",
                          r->split->path, what, strerror(e),
                          r->file_off + r->len);
}

/* The file has fewer bytes than it had at open: the error, with both sizes. */
static int shrunk(file_reader *r, uint64_t at, weir_error *err)
{
    char now[32] = "?";
    uint64_t size;
    if (file_size(r->src, r->split->path, &size) == 0)
        snprintf(now, sizeof now, "%" PRIu64, size);
    return weir_error_set(
        err, WEIR_ECORRUPT,
        "%s: error: the file shrank while it was read: %" PRIu64
        " bytes when opened, %s bytes now (read up to offset %" PRIu64
        "); a file must not be truncated or rewritten while a job reads it",
        r->split->path, r->size, now, at);
}

/* What a byte range reads past its end at a time: its last record's tail. */
#define RANGE_TAIL_READ 4096

/* The read buffer's next size: only as far as the longest record allowed
 * needs, with its "\r\n" (a longer one is bad input, found without
 * reading it all). */
static size_t grown_cap(const file_reader *r)
{
    size_t limit = r->src->arg->cfg.max_record_bytes + 2;
    return r->cap < limit / 2 ? r->cap * 2
           : r->cap < limit   ? limit
                              : r->cap * 2;
}

/* How many bytes a refill adds at file offset at (< size): the free part
 * of the buffer, the rest of the file or, for a byte range, its own bytes
 * and the end of its last record, not a whole buffer more (a file in
 * 1 024 ranges read 1 MiB for each). */
static size_t refill_want(const file_reader *r, uint64_t at)
{
    size_t want = r->cap - r->len;
    if (r->size - at < want)
        want = (size_t)(r->size - at);
    uint64_t end = r->split->end;
    if (end != UINT64_MAX) {
        uint64_t need = (at < end ? end - at : 0) + RANGE_TAIL_READ;
        if (need < want)
            want = (size_t)need;
    }
    return want;
}

/* Gives up the mapping (a window could not be mapped): the bytes not yet
 * consumed go to a read buffer of their own, and reading goes on with
 * pread. The caller holds the guard (this reads the old window). */
static int unmap_to_read(file_reader *r, weir_error *err)
{
    size_t left = r->len - r->pos;
    size_t cap = r->cap > left ? r->cap : left;
    char *m = weir_malloc(cap);
    if (!m)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    if (left)
        memcpy(m, r->buf + r->pos, left);
    r->file_off += r->pos;
    r->len = left;
    r->pos = 0;
    if (r->map)
        munmap(r->map, r->map_len);
    r->map = NULL;
    r->map_len = 0;
    weir__sigbus_move(&r->guard, NULL, 0); /* the range may be reused */
    r->mem = r->buf = m;
    r->cap = cap;
    r->mapped = false;
    return 0;
}

/*
 * Maps a new window that starts at the page of file_off and reaches at
 * least need_end: map_window_bytes, but not past the size at open nor, for
 * a byte range, past its end and the tail of its last record. The old
 * window (what has been read) is unmapped. A window that cannot be mapped
 * ends the mapping: the reader goes on with pread.
 */
static int map_window(file_reader *r, uint64_t need_end, weir_error *err)
{
    const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    uint64_t ws = r->file_off - r->file_off % page;
    uint64_t lim = r->size;
    if (r->split->end != UINT64_MAX && r->split->end + RANGE_TAIL_READ < lim)
        lim = r->split->end + RANGE_TAIL_READ;
    uint64_t we = ws + r->src->arg->cfg.map_window_bytes;
    if (we > lim)
        we = lim;
    if (we < need_end)
        we = need_end;
    size_t n = (size_t)(we - ws);
    void *m = weir__fio_mmap(NULL, n, PROT_READ, MAP_SHARED, r->fd, (off_t)ws);
    if (m == MAP_FAILED)
        return unmap_to_read(r, err);
    /* read once, front to back: read ahead, drop pages behind */
    madvise(m, n, MADV_SEQUENTIAL);
    madvise(m, n < r->cap * 4 ? n : r->cap * 4, MADV_WILLNEED);
    if (r->map)
        munmap(r->map, r->map_len);
    r->map = m;
    r->map_off = ws;
    r->map_len = n;
    weir__sigbus_move(&r->guard, m, n);
    return 0;
}

static int refill_read(file_reader *r, weir_error *err);

/* refill() of a mapped reader: the same bytes the read buffer would hold,
 * seen in the window (moved along when they leave it), nothing copied. */
static int refill_map(file_reader *r, weir_error *err)
{
    r->buf += r->pos;
    r->file_off += r->pos;
    r->len -= r->pos;
    r->pos = 0;
    /* Unmap what has been read, a few MiB at a time: the mapping holds
     * (and the process's resident size counts) little more than the bytes
     * still to be read, whatever the window's size. */
    uint64_t behind = r->map ? r->file_off - r->map_off : 0;
    if (behind >= UNMAP_STEP && behind < r->map_len) {
        size_t cut = (size_t)(behind - behind % (uint64_t)sysconf(_SC_PAGESIZE));
        munmap(r->map, cut);
        r->map += cut;
        r->map_off += cut;
        r->map_len -= cut;
        weir__sigbus_move(&r->guard, r->map, r->map_len);
    }
    if (r->len == r->cap)
        r->cap = grown_cap(r);
    uint64_t at = r->file_off + r->len;
    if (at >= r->size) {
        r->eof = true;
        return 0;
    }
    size_t want = refill_want(r, at);
    if (!r->map || r->file_off < r->map_off ||
        at + want > r->map_off + r->map_len) {
        int rc = map_window(r, at + want, err);
        if (rc)
            return rc;
        if (!r->mapped)
            return refill_read(r, err);
    }
    r->buf = r->map + (r->file_off - r->map_off);
    r->len += want;
    if (at + want >= r->size)
        r->eof = true;
    atomic_fetch_add_explicit(&r->src->n_bytes, (uint64_t)want,
                              memory_order_relaxed);
    return 0;
}

/* Reads more bytes after buf[len), moving unconsumed bytes to the front first,
 * up to the size the file had at open. */
static int refill(file_reader *r, weir_error *err)
{
    return r->mapped ? refill_map(r, err) : refill_read(r, err);
}

static int refill_read(file_reader *r, weir_error *err)
{
    if (r->pos > 0) {
        memmove(r->buf, r->buf + r->pos, r->len - r->pos);
        r->file_off += r->pos;
        r->len -= r->pos;
        r->pos = 0;
    }
    if (r->len == r->cap) {
        size_t cap = grown_cap(r);
        char *b = weir_realloc(r->mem, cap);
        if (!b)
            return weir_error_set(err, WEIR_ENOMEM, "out of memory");
        r->mem = r->buf = b;
        r->cap = cap;
    }
    uint64_t at = r->file_off + r->len;
    if (at >= r->size) {
        r->eof = true;
        return 0;
    }
    size_t want = refill_want(r, at);
    for (;;) {
        ssize_t n = reader_pread(r, r->buf + r->len, want, at);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return io_error(r, "read", errno, err);
        }
        if (n == 0)
            return shrunk(r, at, err);
        r->len += (size_t)n;
        if (at + (uint64_t)n >= r->size)
            r->eof = true;
        atomic_fetch_add_explicit(&r->src->n_bytes, (uint64_t)n,
                                  memory_order_relaxed);
        return 0;
    }
}

/* Moves the reader to the first record start at or after off (off > 0). */
static int align(file_reader *r, uint64_t off, weir_error *err)
{
    r->file_off = off - 1;
    r->len = r->pos = 0;
    for (;;) {
        const char *nl = memchr(r->buf + r->pos, '\n', r->len - r->pos);
        if (nl) {
            r->pos = (size_t)(nl - r->buf) + 1;
            return 0;
        }
        r->pos = r->len;
        if (r->eof)
            return 0;
        int rc = refill(r, err);
        if (rc)
            return rc;
    }
}

/*
 * The shrunk-file error of a load that faulted in the window, naming where
 * the reader found its bytes missing, as the read path names where its
 * pread found nothing: the fault, or the file's new end when that is
 * before it (the page that holds the end reads zeros, and a framing scan
 * goes on to the next page), but not before the record being read.
 */
static int shrunk_at_fault(file_reader *r, weir_error *err)
{
    const char *f = r->guard.fault;
    uint64_t at = r->map && f >= r->map && f < r->map + r->map_len
                      ? r->map_off + (uint64_t)(f - r->map)
                      : r->file_off + r->len;
    uint64_t now;
    if (file_size(r->src, r->split->path, &now) == 0 && now < at)
        at = now;
    if (at < r->file_off + r->pos)
        at = r->file_off + r->pos;
    return shrunk(r, at, err);
}

/* align() of a mapped reader, a file that shrank under it caught. */
static int align_mapped(file_reader *r, uint64_t off, weir_error *err)
{
    if (WEIR__SIGBUS_CAUGHT(&r->guard)) {
        weir__sigbus_disarm();
        return shrunk_at_fault(r, err);
    }
    weir__sigbus_arm(&r->guard, r->map, r->map_len);
    int rc = align(r, off, err);
    weir__sigbus_disarm();
    return rc;
}

static int fs_open_split(void *p, const char *id, const void *pos,
                         size_t pos_len, void **out, weir_error *err)
{
    file_source *s = p;
    const file_source_arg *a = s->arg;
    *out = NULL;
    const file_split *sp = find_split(s, id, err);
    if (!sp)
        return err ? err->code : WEIR_ENOMEM;
    /* A position: the offset to resume at, then the file's size and
     * modification time at the split's first open (a position of a
     * checkpoint from before they were kept is the offset alone: they are
     * then the file's now). */
    uint64_t resume = 0, kept_size = 0, kept_mtime = 0;
    bool has_pos = pos && pos_len;
    bool kept = has_pos && pos_len > 8;
    if (has_pos) {
        weir_cursor c;
        weir_cursor_init(&c, pos, pos_len);
        if (weir_cursor_get_u64(&c, &resume) ||
            (kept && (weir_cursor_get_u64(&c, &kept_size) ||
                      weir_cursor_get_u64(&c, &kept_mtime))) ||
            weir_cursor_left(&c) != 0)
            return weir_error_set(
                err, WEIR_ECORRUPT,
                "%s: error: malformed split position (%zu bytes)", id, pos_len);
    }
    /* the reader of the range before, when it read the same file: the same descriptor, buffer and decoder */
    file_reader *r = s->spare;
    s->spare = NULL;
    bool reopen = r && !strcmp(r->path, sp->path);
    /* Where the range before ended: the first record start after its last
     * record, so no record starts between its end and there. */
    bool knows_next = false;
    uint64_t next_start = 0;
    if (r && !reopen) {
        reader_free(r);
        r = NULL;
    }
    if (reopen) {
        file_reader keep = *r;
        /* only for a range that starts at or after the end of the one
         * before (a range opened out of order begins as any other) */
        knows_next = keep.done && s->spare_end <= sp->start;
        next_start = keep.file_off + keep.pos;
        memset(r, 0, sizeof *r);
        r->fd = keep.fd;
        r->path = keep.path;
        r->abs_path = keep.abs_path;
        r->dec = keep.dec;
        r->buf = keep.buf;
        r->mem = keep.mem;
        r->cap = keep.cap;
        r->mapped = keep.mapped;
        r->map = keep.map;
        r->map_off = keep.map_off;
        r->map_len = keep.map_len;
        r->got = keep.got;
        r->scratch = keep.scratch;
        weir_buf_clear(&r->got);
    } else if (!(r = weir_calloc(1, sizeof *r))) {
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    } else {
        r->fd = -1;
        weir_buf_init(&r->got);
    }
    r->src = s;
    r->split = sp;
    r->line_base = -1;
    int rc = 0;
    if (!reopen) {
        r->cap = a->cfg.read_buffer_bytes;
        r->path = weir_strdup(sp->path);
        if (!r->path) {
            rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
            goto fail;
        }
        if ((rc = make_decoder(a, &r->dec, err)))
            goto fail;
    }
    if (reopen) {
        /* the descriptor is open */
    } else if (s->s3) {
        if ((rc = file_size(s, sp->path, &r->size))) {
            rc = weir_error_set(err, rc, "%s: error: cannot open: %s",
                                sp->path, weir_strerror(rc));
            goto fail;
        }
    } else if ((r->fd = weir__fio->open(sp->path, O_RDONLY, 0)) < 0) {
        rc = weir_error_set(err, weir__fio_errno_code(errno),
                            "%s: error: cannot open: %s", sp->path,
                            strerror(errno));
        goto fail;
    }
    struct stat st;
    if (!s->s3 && fstat(r->fd, &st) != 0) {
        rc = weir_error_set(err, weir__fio_errno_code(errno),
                            "%s: error: cannot stat: %s", sp->path,
                            strerror(errno));
        goto fail;
    }
    if (!s->s3) {
        r->size = (uint64_t)st.st_size;
        r->mtime_ms = (int64_t)st.st_mtim.tv_sec * 1000 +
                      st.st_mtim.tv_nsec / 1000000;
    }
    if (!reopen) {
        /* a regular local file, read by the system calls themselves (not
         * a test's table), is mapped; anything else has a read buffer */
        r->mapped = !s->s3 && !a->cfg.read_no_map && S_ISREG(st.st_mode) &&
                    weir__fio == &weir__fio_posix && weir__io_is_default() &&
                    weir__sigbus_install() == 0;
        static char no_bytes[1];
        r->buf = no_bytes; /* mapped: no window until the first refill */
        if (!r->mapped && !(r->mem = r->buf = weir_malloc(r->cap))) {
            rc = weir_error_set(err, WEIR_ENOMEM, "out of memory");
            goto fail;
        }
    }
    r->meta_size = kept ? kept_size : r->size;
    r->meta_mtime_ms = kept ? (int64_t)kept_mtime : r->mtime_ms;
    if (has_pos && resume > r->size) {
        rc = weir_error_set(err, WEIR_ECORRUPT,
                            "%s: error: the file is shorter than the position "
                            "to resume at: %" PRIu64 " bytes, position %" PRIu64
                            " (truncated or replaced since the checkpoint?)",
                            sp->path, r->size, resume);
        goto fail;
    }
    if (has_pos) {
        r->file_off = resume;
    } else if (sp->start > 0) {
        /* A range that starts inside the last record of the range before
         * begins where that record ends: no scan for a line break that may
         * lie ranges ahead (a record longer than the ranges would be
         * scanned once for each range in it) */
        if (knows_next && next_start >= sp->start)
            r->file_off = next_start;
        else if ((rc = r->mapped ? align_mapped(r, sp->start, err)
                                 : align(r, sp->start, err)))
            goto fail;
    }
    uint64_t start_off = r->file_off + r->pos;
    r->header_pending = a->cfg.format.kind == WEIR_FORMAT_CSV &&
                        a->cfg.format.csv_header && start_off == 0;
    r->bom_checked = start_off != 0;
    r->line_base_off = start_off;
    r->line_base = start_off == 0 ? 0 : -1;
    if (start_off >= sp->end)
        r->done = true;
    *out = r;
    return 0;
fail:
    reader_free(r);
    return rc;
}

/*
 * A later byte range of the file of range prev continues it: the subtask
 * reads its ranges of one file one after the other, in file order, as one
 * sequence (one watermark generator), as if they were the one split of the
 * records they own.
 */
static bool fs_continues(void *p, const char *prev, const char *id)
{
    const file_source *s = p;
    /* A changelog is one history across its files, in their order: each
     * split continues the one before it (the planner reads it with one
     * subtask), so a row's -D never overtakes its +I from another file. */
    if (weir_format_is_changelog(s->arg->cfg.format.kind))
        return true;
    size_t la, lb;
    uint64_t a0, a1, b0, b1;
    return parse_range(s, prev, &la, &a0, &a1) &&
           parse_range(s, id, &lb, &b0, &b1) && la == lb &&
           memcmp(prev, id, la) == 0 && a1 != UINT64_MAX && b0 >= a1;
}

static void fs_close_split(void *p)
{
    file_reader *r = p;
    if (!r)
        return;
    file_source *s = r->src;
    if (r->fd >= 0 && !s->s3 && !s->spare) {
        s->spare = r; /* kept for the next range of the file */
        s->spare_end = r->split ? r->split->end : UINT64_MAX;
        return;
    }
    reader_free(r);
}

static int fs_position(void *p, weir_buf *out)
{
    file_reader *r = p;
    int rc = weir_buf_put_u64(out, r->file_off + r->pos);
    if (!rc)
        rc = weir_buf_put_u64(out, r->meta_size);
    return rc ? rc : weir_buf_put_u64(out, (uint64_t)r->meta_mtime_ms);
}

/* Lines before line_base_off, counted once when a message first needs them. */
static int64_t line_base(file_reader *r)
{
    if (r->line_base >= 0)
        return r->line_base;
    char tmp[65536];
    int64_t lines = 0;
    uint64_t off = 0;
    while (off < r->line_base_off) {
        size_t want = r->line_base_off - off < sizeof tmp
                          ? (size_t)(r->line_base_off - off)
                          : sizeof tmp;
        ssize_t n = reader_pread(r, tmp, want, off);
        if (n <= 0)
            break;
        for (const char *q = tmp;
             (q = memchr(q, '\n', (size_t)(tmp + n - q))) != NULL; q++)
            lines++;
        off += (uint64_t)n;
    }
    r->line_base = lines;
    return lines;
}

/* Line and column (1-based, in bytes) of byte `at` of the record at buf[pos].
 */
static void locate(file_reader *r, const char *rec, size_t at, uint64_t *line,
                   uint64_t *col)
{
    uint64_t l = (uint64_t)line_base(r) + r->line_rel + 1;
    size_t line_start = 0;
    for (size_t i = 0; i < at; i++) {
        if (rec[i] == '\n') {
            l++;
            line_start = i + 1;
        }
    }
    *line = l;
    *col = at - line_start + 1;
}

static int dead_letter(file_reader *r, const char *rec, size_t rec_len,
                       uint64_t line, uint64_t col, uint64_t rec_off,
                       const char *reason, weir_error *err)
{
    file_source *s = r->src;
    const char *dl = s->arg->cfg.dead_letter_path;
    if (s->dl_fd < 0) {
        s->dl_fd = weir__fio->open(dl, O_WRONLY | O_CREAT | O_APPEND, 0666);
        if (s->dl_fd < 0)
            return weir_error_set(err, weir__fio_errno_code(errno),
                                  "%s: error: cannot open dead-letter file: %s",
                                  dl, strerror(errno));
    }
    weir_buf *b = &s->dl_buf;
    weir_buf_clear(b);
    int rc = weir_buf_put(b, "{\"file\":", 8);
    if (!rc)
        rc = weir__fmt_json_put_string(b, r->split->path,
                                       strlen(r->split->path));
    if (!rc)
        rc = weir_buf_printf(b,
                             ",\"line\":%" PRIu64 ",\"column\":%" PRIu64
                             ",\"offset\":%" PRIu64 ",\"error\":",
                             line, col, rec_off);
    if (!rc)
        rc = weir__fmt_json_put_string(b, reason, strlen(reason));
    if (!rc)
        rc = weir_buf_put(b, ",\"raw\":", 7);
    if (!rc)
        rc = weir__fmt_json_put_string(
            b, rec,
            rec_len < DEAD_LETTER_RAW_MAX ? rec_len : DEAD_LETTER_RAW_MAX);
    if (!rc && rec_len > DEAD_LETTER_RAW_MAX)
        rc = weir_buf_put(b, ",\"truncated\":true", 17);
    if (!rc)
        rc = weir_buf_put(b, "}\n", 2);
    if (rc)
        return weir_error_set(err, rc, "out of memory");
    /* One write per entry: O_APPEND keeps entries of parallel subtasks whole.
     */
    int wrc = weir__fio_write_all(s->dl_fd, b->data, b->len);
    if (wrc)
        return weir_error_set(err, weir__fio_errno_code(wrc),
                              "%s: error: cannot write dead-letter file: %s",
                              dl, strerror(-wrc));
    atomic_fetch_add_explicit(&s->n_dead_letter, 1, memory_order_relaxed);
    return 0;
}

static int still_there(file_reader *r, uint64_t upto, weir_error *err);

/*
 * Applies the bad-input policy to the record at buf[pos, pos+rec_len) that
 * failed at byte derr->pos. Returns 0 when the record may be consumed, or
 * the error to return (the record is then left in place).
 */
static int bad_record(file_reader *r, size_t rec_len,
                      const weir_decode_error *derr, weir_error *err)
{
    const char *rec = r->buf + r->pos;
    uint64_t rec_off = r->file_off + r->pos;
    /* mapped: zeros past a new end of the file are no bad record */
    int src = r->mapped ? still_there(r, rec_off + rec_len, err) : 0;
    if (src) {
        r->gone = true; /* the error now, not after the rows before it */
        return src;
    }
    uint64_t line, col;
    locate(r, rec, derr->pos, &line, &col);
    switch (r->src->arg->cfg.on_bad_input) {
    case WEIR_BAD_INPUT_SKIP:
        atomic_fetch_add_explicit(&r->src->n_skipped, 1, memory_order_relaxed);
        return 0;
    case WEIR_BAD_INPUT_DEAD_LETTER:
        return dead_letter(r, rec, rec_len, line, col, rec_off, derr->message,
                           err);
    case WEIR_BAD_INPUT_FAIL:
    default:
        return weir_error_set(
            err, WEIR_EPARSE,
            "%s:%" PRIu64 ":%" PRIu64 ": error: %s (offset %" PRIu64 ")",
            r->split->path, line, col, derr->message, rec_off + derr->pos);
    }
}

/*
 * Drops an oversized record that starts at buf[pos], up to and including
 * its terminator, without holding it: a line, or for CSV a line break
 * outside quotes, so a quoted field with many line breaks goes as the one
 * record it is.
 */
static int discard_record(file_reader *r, weir_error *err)
{
    weir_skip_state ss;
    weir_decoder_skip_init(&ss);
    for (;;) {
        weir_frame f;
        int rc = weir_decoder_skip(r->dec, &ss, r->buf + r->pos,
                                   r->len - r->pos, &f);
        r->line_rel += f.newlines;
        if (rc == 0) {
            r->pos += f.consumed;
            return 0;
        }
        r->pos = r->len;
        if (r->eof)
            return 0;
        if ((rc = refill(r, err)))
            return rc;
    }
}

/* The bad-record error of a record longer than the limit. */
static void too_long(const weir_file_source_config *cfg, size_t len, bool whole,
                     weir_decode_error *derr)
{
    derr->pos = 0;
    if (whole)
        snprintf(derr->message, sizeof derr->message,
                 "expected a record of at most %zu bytes, found one of %zu "
                 "bytes",
                 cfg->max_record_bytes, len);
    else
        snprintf(derr->message, sizeof derr->message,
                 "expected a record of at most %zu bytes, found a longer one",
                 cfg->max_record_bytes);
}

/* Decodes up to max_rows rows of the split into out (its columns: the
 * decoder's schema); the number appended, 0, WEIR_EOF or an error. */
static int read_records(file_reader *r, weir_batch *out, uint32_t max_rows,
                        weir_error *err)
{
    const weir_file_source_config *cfg = &r->src->arg->cfg;
    uint32_t appended = 0;
    /* A debezium-json update is two rows: room for a whole record. */
    const uint32_t per_rec = weir_decoder_rows_per_record(r->dec);
    while (appended < max_rows && out->capacity - out->n_rows >= per_rec &&
           !r->done) {
        r->committed = out->n_rows; /* a record boundary (see read_mapped) */
        if (!r->bom_checked) {
            if (r->len - r->pos < 3 && !r->eof) {
                int rc = refill(r, err);
                if (rc)
                    return rc;
                continue;
            }
            r->bom_checked = true;
            if (r->len - r->pos >= 3 &&
                memcmp(r->buf + r->pos, "\xEF\xBB\xBF", 3) == 0)
                r->pos += 3;
        }
        weir_frame f;
        /* JSON lines: the record framed while it is decoded, one pass over
         * its bytes; anything unusual goes the framed way below. */
        if (!r->header_pending && r->file_off + r->pos < r->split->end) {
            const uint32_t before = out->n_rows;
            if (weir_decoder_decode_line(r->dec, r->buf + r->pos, r->len - r->pos,
                                         cfg->max_record_bytes, out, &f) == 0) {
                appended += out->n_rows - before;
                r->pos += f.consumed;
                r->line_rel += f.newlines;
                continue;
            }
        }
        int rc = weir_decoder_frame(r->dec, r->buf + r->pos, r->len - r->pos,
                                    r->eof, &f);
        if (rc == WEIR_EAGAIN) {
            if (r->len - r->pos > cfg->max_record_bytes) {
                weir_decode_error derr;
                too_long(cfg, r->len - r->pos, false, &derr);
                if ((rc = bad_record(r, r->len - r->pos, &derr, err)))
                    return appended ? (int)appended : rc;
                if ((rc = discard_record(r, err)))
                    return rc;
                continue;
            }
            if ((rc = refill(r, err)))
                return rc;
            continue;
        }
        if (rc == WEIR_EOF) {
            r->done = true;
            break;
        }
        uint64_t rec_off = r->file_off + r->pos;
        if (rec_off >= r->split->end) {
            r->done = true;
            break;
        }
        const char *rec = r->buf + r->pos;
        if (r->header_pending) {
            r->header_pending = false;
        } else if (f.rec_len > cfg->max_record_bytes) {
            /* Whole in the buffer, but over the limit all the same. */
            weir_decode_error derr;
            too_long(cfg, f.rec_len, true, &derr);
            if ((rc = bad_record(r, f.rec_len, &derr, err)))
                return appended ? (int)appended : rc;
        } else if (!weir_decoder_is_blank(r->dec, rec, f.rec_len)) {
            weir_decode_error derr;
            const uint32_t before = out->n_rows;
            rc = weir_decoder_decode(r->dec, rec, f.rec_len, out, &derr);
            if (rc == WEIR_EPARSE) {
                if ((rc = bad_record(r, f.rec_len, &derr, err)))
                    return appended ? (int)appended
                                    : rc; /* report it on the next call */
            } else if (rc) {
                return weir_error_set(
                    err, rc, "%s: error: %s (offset %" PRIu64 ")",
                    r->split->path, weir_strerror(rc), rec_off);
            } else {
                appended += out->n_rows - before;
            }
        }
        r->pos += f.consumed;
        r->line_rel += f.newlines;
    }
    if (appended) {
        atomic_fetch_add_explicit(&r->src->n_records, appended,
                                  memory_order_relaxed);
        return (int)appended;
    }
    return r->done ? WEIR_EOF : 0;
}

/*
 * Moves the rows of the data columns in in (part.data) to the end of out
 * (the table's schema), each to its column.
 */
static int append_data_rows(const file_partitioning *pt, weir_batch *out,
                            const weir_batch *in)
{
    uint32_t base = out->n_rows, n = in->n_rows;
    for (uint32_t j = 0; j < pt->data->n_fields; j++) {
        uint32_t c = pt->data_cols[j];
        const weir_column *sc = &in->cols[j];
        weir_column *dc = &out->cols[c];
        size_t w = weir_type_size(sc->type);
        bool varlen = weir_type_is_varlen(sc->type.id);
        if (!varlen)
            memcpy((char *)dc->data + (size_t)base * w, sc->data, (size_t)n * w);
        for (uint32_t i = 0; i < n; i++) {
            if (weir_batch_is_null(in, j, i)) {
                weir_batch_set_null(out, c, base + i);
                continue;
            }
            weir_batch_set_valid(out, c, base + i);
            if (varlen) {
                uint32_t len;
                const char *v = weir_batch_str(in, j, i, &len);
                int rc = weir_batch_set_str(out, c, base + i, v, len);
                if (rc)
                    return rc;
            }
        }
    }
    memcpy(out->ts + base, in->ts, n * sizeof *out->ts);
    memcpy(out->kind + base, in->kind, n);
    out->n_rows = base + n;
    out->key_hash_of = NULL;
    return 0;
}

/* Sets the partition columns of out's rows [from, n_rows) to the split's
 * values (one copy of a string, shared by the rows). */
static int fill_keys(const file_partitioning *pt, const weir_batch *pv,
                     weir_batch *out, uint32_t from)
{
    for (uint32_t k = 0; k < pt->n_keys; k++) {
        uint32_t c = pt->key_cols[k];
        if (weir_batch_is_null(pv, k, 0)) {
            for (uint32_t i = from; i < out->n_rows; i++)
                weir_batch_set_null(out, c, i);
            continue;
        }
        weir_column *dc = &out->cols[c];
        size_t w = weir_type_size(dc->type);
        const char *val = (const char *)pv->cols[k].data;
        if (weir_type_is_varlen(dc->type.id)) {
            uint32_t len;
            const char *v = weir_batch_str(pv, k, 0, &len);
            int rc = from < out->n_rows ? weir_batch_set_str(out, c, from, v, len) : 0;
            if (rc)
                return rc;
            const weir_strref ref = from < out->n_rows ? WEIR_COL_STR(out, c)[from] : (weir_strref){0, 0};
            for (uint32_t i = from; i < out->n_rows; i++) {
                WEIR_COL_STR(out, c)[i] = ref;
                weir_batch_set_valid(out, c, i);
            }
            continue;
        }
        for (uint32_t i = from; i < out->n_rows; i++) {
            memcpy((char *)dc->data + (size_t)i * w, val, w);
            weir_batch_set_valid(out, c, i);
        }
    }
    return 0;
}

/* Appends path's parts to the normalised absolute path in out[0, *len)
 * (cap bytes): "." and empty parts are dropped, ".." drops the part before
 * it (one at the root is kept, as a URI keeps it). */
static void push_parts(char *out, size_t *len, size_t cap, const char *path)
{
    for (const char *p = path; *p;) {
        const char *e = strchr(p, '/');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        const char *last = memrchr(out, '/', *len);
        size_t lp = last ? *len - (size_t)(last - out) - 1 : 0;
        if (n == 0 || (n == 1 && p[0] == '.')) {
            /* nothing */
        } else if (n == 2 && p[0] == '.' && p[1] == '.' && *len > 0 &&
                   !(lp == 2 && last[1] == '.' && last[2] == '.')) {
            *len = (size_t)(last - out);
        } else if (*len + 1 + n < cap) {
            out[(*len)++] = '/';
            memcpy(out + *len, p, n);
            *len += n;
        }
        p += n;
        while (*p == '/')
            p++;
    }
}

/* 'file.path' as Flink gives it, the path part of the split's file URI:
 * absolute (a relative path is below the working folder), with ".", ".."
 * and repeated slashes resolved by the name alone (a symbolic link stays);
 * of an object, its key after a "/" (s3://bucket/a/b.json: /a/b.json). */
static int abs_path_of(file_reader *r)
{
    const char *p = r->split->path;
    char buf[PATH_MAX * 2];
    size_t len = 0;
    if (r->src->s3) {
        const char *key = strchr(p + 5, '/'); /* after s3://bucket */
        p = key ? key : "";
    } else if (p[0] != '/') {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd))
            return weir__fio_errno_code(errno);
        push_parts(buf, &len, sizeof buf, cwd);
    }
    push_parts(buf, &len, sizeof buf, p);
    if (len == 0)
        buf[len++] = '/';
    if (!(r->abs_path = weir_strndup(buf, len)))
        return WEIR_ENOMEM;
    return 0;
}

/* Sets a STRING column of out's rows [from, n_rows) to v (one copy,
 * shared by the rows). */
static int fill_str(weir_batch *out, uint32_t c, uint32_t from, const char *v,
                    uint32_t len)
{
    if (from >= out->n_rows)
        return 0;
    int rc = weir_batch_set_str(out, c, from, v, len);
    if (rc)
        return rc;
    const weir_strref ref = WEIR_COL_STR(out, c)[from];
    for (uint32_t i = from; i < out->n_rows; i++) {
        WEIR_COL_STR(out, c)[i] = ref;
        weir_batch_set_valid(out, c, i);
    }
    return 0;
}

/* Sets the METADATA columns of out's rows [from, n_rows) to the file's. */
static int fill_meta(file_reader *r, weir_batch *out, uint32_t from)
{
    const file_partitioning *pt = &r->src->arg->part;
    for (uint32_t m = 0; m < pt->n_meta; m++) {
        uint32_t c = pt->meta_cols[m];
        int rc = 0;
        int64_t v = 0;
        switch (pt->meta_kinds[m]) {
        case FILE_META_PATH:
            if (!r->abs_path && (rc = abs_path_of(r)))
                return rc;
            rc = fill_str(out, c, from, r->abs_path,
                          (uint32_t)strlen(r->abs_path));
            break;
        case FILE_META_NAME: {
            const char *slash = strrchr(r->split->path, '/');
            const char *name = slash ? slash + 1 : r->split->path;
            rc = fill_str(out, c, from, name, (uint32_t)strlen(name));
            break;
        }
        case FILE_META_SIZE:
        case FILE_META_MTIME:
            v = pt->meta_kinds[m] == FILE_META_SIZE ? (int64_t)r->meta_size
                                                    : r->meta_mtime_ms;
            for (uint32_t i = from; i < out->n_rows; i++) {
                WEIR_COL_I64(out, c)[i] = v;
                weir_batch_set_valid(out, c, i);
            }
            break;
        case FILE_META_N:
            break;
        }
        if (rc)
            return rc;
    }
    return 0;
}

/* The columns not in the files of out's rows [from, n_rows). */
static int fill_split_cols(file_reader *r, weir_batch *out, uint32_t from,
                           weir_error *err)
{
    const file_partitioning *pt = &r->src->arg->part;
    int rc = pt->n_keys ? fill_keys(pt, r->split->pv, out, from) : 0;
    if (!rc)
        rc = fill_meta(r, out, from);
    if (rc)
        return weir_error_set(err, rc, "%s: error: %s", r->split->path,
                              weir_strerror(rc));
    return 0;
}

/*
 * Whether the file still holds its bytes up to upto: a mapped reader reads
 * zeros, not SIGBUS, from the page where a shrunk file now ends; the error
 * is the read path's for a file that shrank.
 */
static int still_there(file_reader *r, uint64_t upto, weir_error *err)
{
    struct stat st;
    if (fstat(r->fd, &st) == 0 && (uint64_t)st.st_size < upto)
        return shrunk(r, (uint64_t)st.st_size, err);
    return 0;
}

/*
 * read_records() of a mapped reader: a load from a page the file no longer
 * has (it shrank) comes back here, the rows of the record being decoded
 * are dropped (the batch keeps its whole records) and the error is the
 * read path's for a file that shrank. The guarded code only loads from the
 * window, decodes into the batch and, for a bad record, writes the
 * dead-letter file: the jump leaves no lock held.
 */
static int read_mapped(file_reader *r, weir_batch *out, uint32_t max_rows,
                       weir_error *err)
{
    const uint32_t from = out->n_rows;
    r->committed = from;
    if (WEIR__SIGBUS_CAUGHT(&r->guard)) {
        weir__sigbus_disarm();
        out->n_rows = r->committed;
        return shrunk_at_fault(r, err);
    }
    weir__sigbus_arm(&r->guard, r->map, r->map_len);
    r->gone = false;
    int n = read_records(r, out, max_rows, err);
    weir__sigbus_disarm();
    if (r->gone) {
        out->n_rows = r->committed;
        return err ? err->code : WEIR_ECORRUPT;
    }
    if (n >= 0 || n == WEIR_EOF) {
        int rc = still_there(r, r->file_off + r->pos, err);
        if (rc) {
            out->n_rows = from; /* any of them may be zeros */
            return rc;
        }
    }
    return n;
}

/* Decodes up to max_rows rows (read_records), through the mapping or not. */
static int read_rows(file_reader *r, weir_batch *out, uint32_t max_rows,
                     weir_error *err)
{
    return r->mapped ? read_mapped(r, out, max_rows, err)
                     : read_records(r, out, max_rows, err);
}

static int fs_read(void *p, weir_batch *out, uint32_t max_rows, weir_error *err)
{
    file_reader *r = p;
    const file_partitioning *pt = &r->src->arg->part;
    if (!pt->active)
        return read_rows(r, out, max_rows, err);
    const uint32_t from = out->n_rows;
    if (pt->data_prefix) {
        /* the data columns come first: decoded in place */
        int n = read_rows(r, out, max_rows, err);
        if (n > 0) {
            int rc = fill_split_cols(r, out, from, err);
            if (rc)
                return rc;
        }
        return n;
    }
    uint32_t room = out->capacity - out->n_rows;
    if (!r->scratch || r->scratch->capacity < room) {
        weir_batch_destroy(r->scratch);
        if (!(r->scratch = weir_batch_create(pt->data, room ? room : 1)))
            return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    }
    weir_batch_reset(r->scratch);
    int n = read_rows(r, r->scratch, max_rows < room ? max_rows : room, err);
    if (n > 0) {
        int rc = append_data_rows(pt, out, r->scratch);
        if (rc)
            return weir_error_set(err, rc, "out of memory");
        if ((rc = fill_split_cols(r, out, from, err)))
            return rc;
    }
    return n;
}

static int fs_metrics(void *p,
                      void (*emit)(void *ud, const char *name, uint64_t v),
                      void *ud)
{
    file_source *s = p;
    emit(ud, "records_read", atomic_load(&s->n_records));
    emit(ud, "bytes_read", atomic_load(&s->n_bytes));
    emit(ud, "skipped_records", atomic_load(&s->n_skipped));
    emit(ud, "dead_letter_records", atomic_load(&s->n_dead_letter));
    return 0;
}

#define FS_CLASS(lock)                                                         \
    {                                                                          \
        .name = "filesystem", .create = fs_create, .discover = fs_discover,    \
        .open_split = fs_open_split, .read = fs_read,                          \
        .position = fs_position, .close_split = fs_close_split,                \
        .destroy = fs_destroy, .metrics = fs_metrics,                          \
        .continues = fs_continues, .lockstep = (lock),                         \
    }
const weir_source_class weir__file_source_class = FS_CLASS(false);
/*
 * Bounded and split into byte ranges: the ranges are dealt out in stride
 * (subtask s of p reads ranges s, s + p, ... of the list) and each subtask
 * reads its own one after the other, so equal row counts are about equal
 * positions in the files. A file sorted by time then keeps the subtasks
 * within a few batches of each other in event time, and the keyed
 * consumers hold about a range's worth of windows, not the distance
 * between the subtasks a faster one would run ahead. (A monitored folder
 * is not in lockstep: a subtask that finds a new file would hold back
 * every other until it has read as many rows.)
 */
const weir_source_class weir__file_source_class_ranged = FS_CLASS(true);

/* ---- options ---- */

static const char *const file_source_known[] = {
    "path",
    "format",
    "source.monitor-interval",
    "source.split-size",
    "source.bad-input",
    "source.dead-letter.path",
    "source.read-mode",
    "json.ignore-parse-errors",
    "json.fail-on-missing-field",
    "json.timestamp-format.standard",
    "csv.field-delimiter",
    "csv.quote-character",
    "csv.disable-quote-character",
    "csv.allow-comments",
    "csv.ignore-parse-errors",
    "csv.null-literal",
    "csv.header",
    "debezium-json.ignore-parse-errors",
    "debezium-json.schema-include",
    "debezium-json.timestamp-format.standard",
    NULL};

int weir_file_source_spec_opts(const weir_option *opts, size_t n_opts,
                               const weir_schema *schema,
                               const weir_connector_env *env,
                               weir_source_spec *out, weir_error *err)
{
    weir__optset o;
    weir_file_source_config cfg;
    weir_file_source_config_init(&cfg);
    memset(out, 0, sizeof *out);
    int rc = weir__optset_init(&o, "filesystem", opts, n_opts, env, err);
    if (rc)
        goto done;
    cfg.path = weir__opt_get(&o, "path");
    if (!cfg.path) {
        rc = weir__opt_missing(&o, "path", NULL);
        goto done;
    }
    if ((rc = weir__fio_opt_path(&o, "path", &cfg.path)))
        goto done;
    bool ignore_errors = false;
    if ((rc = weir__opt_format(&o, false, &cfg.format, &ignore_errors)))
        goto done;
    if ((rc = weir__opt_duration(&o, "source.monitor-interval",
                                 &cfg.monitor_interval_ms)))
        goto done;
    if ((rc = weir__opt_size(&o, "source.split-size", &cfg.split_size_bytes)))
        goto done;
    static const char *const read_modes[] = {"map", "read", NULL};
    int mode = 0;
    if ((rc = weir__opt_choice(&o, "source.read-mode", read_modes, WEIR__CHOICE_EXACT, &mode)))
        goto done;
    cfg.read_no_map = mode == 1;
    if ((rc = weir__opt_bad_input(&o, cfg.format.kind, ignore_errors, &cfg.on_bad_input,
                                  &cfg.dead_letter_path)))
        goto done;
    if (weir__opt_index(&o, "source.path.regex-pattern") >= 0) {
        rc = weir__opt_fail(
            &o, (size_t)weir__opt_index(&o, "source.path.regex-pattern"),
            WEIR_EUNSUPPORTED,
            "option 'source.path.regex-pattern' is not supported yet");
        goto done;
    }
    static const char *const sink_side[] = {
        "sink.rolling-policy.file-size",
        "sink.rolling-policy.rollover-interval",
        "sink.rolling-policy.check-interval", "sink.commit-on-checkpoint",
        "sink.partition-commit.trigger", "sink.partition-commit.delay",
        "sink.partition-commit.policy.kind",
        "sink.partition-commit.success-file.name",
        "sink.partition-commit.watermark-time-zone", "partition.default-name",
        "partition.time-extractor.kind",
        "partition.time-extractor.timestamp-pattern",
        "partition.time-extractor.timestamp-formatter",
        NULL};
    weir__opt_accept(&o, sink_side);
    if (env) {
        cfg.clock = env->clock;
        cfg.event_time_fields = env->event_time_fields;
        cfg.n_event_time_fields = env->n_event_time_fields;
        cfg.event_time = env->event_time;
        cfg.partition_keys = env->partition_keys;
        cfg.n_partition_keys = env->n_partition_keys;
        cfg.partition_filter = env->partition_filter;
        cfg.metadata_columns = env->metadata_columns;
        cfg.n_metadata_columns = env->n_metadata_columns;
        /* Unknown keys and wrong types, pointing at the column. */
        for (uint32_t m = 0; m < env->n_metadata_columns && schema; m++) {
            const weir_option *mc = &env->metadata_columns[m];
            int col = weir_schema_find(schema, mc->key);
            file_meta_kind kind = FILE_META_N;
            if (col >= 0 &&
                (rc = file_meta_check(mc->key, mc->value,
                                      schema->fields[col].type,
                                      weir__fio_is_s3(cfg.path), &kind, err))) {
                if (env->bad_option_index)
                    *env->bad_option_index = -1;
                if (env->bad_metadata_index)
                    *env->bad_metadata_index = (int)m;
                goto done;
            }
        }
    }
    cfg.partition_default_name = weir__opt_get(&o, "partition.default-name");
    if (cfg.partition_default_name &&
        !weir__file_sink_plain_name(cfg.partition_default_name)) {
        rc = weir__opt_fail(
            &o, (size_t)weir__opt_index(&o, "partition.default-name"),
            WEIR_EINVAL,
            "option 'partition.default-name' must be one plain folder name, "
            "not '%s'",
            cfg.partition_default_name);
        goto done;
    }
    if ((rc = weir__opt_finish(&o, file_source_known)))
        goto done;
    rc = weir_file_source_spec(&cfg, schema, out, err);
done:
    weir__optset_fini(&o);
    return rc;
}
