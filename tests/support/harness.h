/*
 * tests/support/harness.h - helpers for tests that run jobs.
 *
 *   th_source   an in-memory source with explicit per-split contents. Made
 *               bounded (th_vsource_create: each split ends after its rows)
 *               or unbounded (th_usource_create: the test feeds rows while
 *               the job runs and ends splits when it wants).
 *   th_collect  a sink that gathers every row as a text line, plus the
 *               watermarks it saw, for assertions.
 *   th_metric   sums job metrics whose name matches a glob.
 *
 * Rows are given either as varargs, one value per schema field:
 *   BOOLEAN, INT: int   BIGINT, DECIMAL, TIMESTAMP(_LTZ): int64_t
 *   DOUBLE: double      STRING, BYTES: const char * (NULL gives SQL NULL)
 * or as text, fields separated by ',' ("NULL" gives SQL NULL). The ts
 * argument is the row's event time; a schema with a rowtime column makes the
 * runtime take event time from that column instead.
 *
 * Text lines of th_collect: the values formatted by weir_batch_format_value,
 * separated by ','; with TH_KIND prefixed by the row kind and a space
 * ("+I 1,a"); with TH_TS followed by "@<ts>".
 *
 * Split i is read by source subtask i % parallelism unless th_source_assign
 * says otherwise; split ids are "split-<i>". Everything here is thread-safe.
 * Waits take a real-time timeout in milliseconds (a guard against hangs,
 * never a way to let time pass) and return false when it expires.
 */
#ifndef WEIR_TEST_HARNESS_H
#define WEIR_TEST_HARNESS_H

#include "weir/weir.h"

typedef struct th_source th_source;

th_source *th_vsource_create(const weir_schema *schema, uint32_t n_splits);
th_source *th_usource_create(const weir_schema *schema, uint32_t n_splits);
void th_source_destroy(th_source *src);
/* The spec to pass to weir_job_source; src must outlive the job. */
weir_source_spec th_source_spec(th_source *src, const char *name);

void th_source_row(th_source *src, uint32_t split, weir_ts ts, ...);
void th_source_row_text(th_source *src, uint32_t split, weir_ts ts,
                        const char *fields);
/* n rows at once: a read that comes after takes them together (as many
 * as its batch holds), so a test can give an operator one batch of them. */
void th_source_rows_text(th_source *src, uint32_t split, weir_ts ts,
                         const char *const *rows, size_t n);
/* Unbounded sources: the split ends once its rows so far are read. */
void th_source_end(th_source *src, uint32_t split);
void th_source_end_all(th_source *src);
void th_source_assign(th_source *src, uint32_t split, uint32_t subtask);
/* At most n rows per read call (0: as many as asked). */
void th_source_set_read_limit(th_source *src, uint32_t n);
/* The read of row `row` of split fails with message msg (WEIR_EPARSE). */
void th_source_fail_at(th_source *src, uint32_t split, uint64_t row,
                       const char *msg);
/* Waits until every row given to split so far has been read by the job. */
bool th_source_wait_read(th_source *src, uint32_t split, int timeout_ms);
uint64_t th_source_rows_read(th_source *src);

enum {
    TH_TS = 1,   /* append "@ts" to each line */
    TH_KIND = 2, /* prefix each line with its row kind */
};

typedef struct th_collect th_collect;
th_collect *th_collect_create(unsigned flags);
void th_collect_destroy(th_collect *c);
/* A sink spec; c must outlive the job. */
weir_operator_spec th_collect_spec(th_collect *c, const char *name);
/* Sleeps this many microseconds per batch: a deliberately slow sink. */
void th_collect_set_delay_us(th_collect *c, int64_t us);

size_t th_collect_count(th_collect *c);
/* Line i in arrival order; valid until the collector is destroyed. */
const char *th_collect_line(th_collect *c, size_t i);
/* All lines joined by '\n' (sorted if asked); valid until the next call. */
const char *th_collect_text(th_collect *c, bool sorted);
bool th_collect_wait_count(th_collect *c, size_t n, int timeout_ms);
/* Lowest watermark over the sink's subtasks (WEIR_TS_MIN before each saw one).
 */
weir_ts th_collect_watermark(th_collect *c);
bool th_collect_wait_watermark(th_collect *c, weir_ts wm, int timeout_ms);
/* Every watermark value that reached sink subtask 0, in order (count in *n). */
const weir_ts *th_collect_watermarks(th_collect *c, size_t *n);
/* True once finish ran on every sink subtask. */
bool th_collect_finished(th_collect *c);
/* Every instance ran its stop hook (the job stopped without a drain). */
bool th_collect_stopped(th_collect *c);

/* An emit callback for an operator driven by hand: appends every row it is
 * handed to the batch *(weir_batch **)ud, replacing it by one twice the size
 * when it is full. 0 or a WEIR_E... code. */
int th_append_rows(void *ud, const weir_batch *b);

/* Row r of b as comma-separated values, cut to fit cap bytes with its NUL. */
void th_format_row(const weir_batch *b, uint32_t r, char *buf, size_t cap);

/* A line of the print sink without its "N> " subtask prefix. */
char *th_print_row(char *line);

/* Sum of the metrics whose name matches glob pattern (fnmatch). */
double th_metric(weir_job *job, const char *pattern);

/* A schema from "name TYPE, name TYPE, ..." (types: BOOLEAN INT BIGINT DOUBLE
 * STRING BYTES TIMESTAMP). */
weir_schema *th_schema(const char *spec);

/* A changelog from a th_source: its rows (op STRING, c1, ..., cn) become
 * rows (c1, ..., cn) of `schema` whose row kind is op ("+I", "-U", "+U",
 * "-D"; anything else is +I). th_kind_map is the weir_job_map function;
 * th_changelog_stream adds the source (named name, watermarks by wm) and
 * the map, chained to it at parallelism 1 so that a retraction never
 * overtakes its insert. 0 or a WEIR_E... code (weir_job_error says why). */
int th_kind_map(void *ud, const weir_batch *in, weir_batch *out);
int th_changelog_stream(weir_job *job, th_source *src, const char *name,
                        const weir_watermark_spec *wm,
                        const weir_schema *schema, weir_stream *out);

/* Checkpoints into dir, restoring the latest one there, without log lines;
 * 0 or a weir error code (the message in err). */
int th_enable_checkpoints(weir_job *job, const char *dir, weir_error *err);

#endif
