/*
 * ops/sink_materialize.c - the upsert materializer in front of a sink with a
 * PRIMARY KEY (table.exec.sink.upsert-materialize), as Flink's
 * SinkUpsertMaterializer.
 *
 * An upsert sink applies +I/+U as "set the row of this key" and -D as
 * "delete the key". When the changes of one PRIMARY KEY value come from
 * several upstream subtasks (a join hashed by another column, a GROUP BY
 * wider than the key) they reach the sink in either order, and a -D that
 * overtakes the +I of the row's new version deletes it. The materializer,
 * keyed by the PRIMARY KEY in the sink's subtask, keeps per key value the
 * rows received and still alive, in arrival order, and emits a changelog
 * whose last word for a key is always its last live row:
 *
 *   +I/+U: the row replaces the kept row with the same upsert key (when the
 *          input has one), else is appended; emitted as +I when the key had
 *          no row before, else +U.
 *   -U/-D: the first kept row equal to it (by upsert key when known, else
 *          by every column) is removed; none: ignored and counted
 *          (upsert_materialize_missing: state expired, or a retraction of
 *          a row never seen). The key left without rows: -D of the row.
 *          The last row removed: the new last row as +U. Else nothing.
 *
 * State: "upsert-rows", value state of the current key (the PRIMARY KEY):
 * the kept rows one after another, each as u32 length of its upsert key
 * bytes, those bytes (weir_key_encode of the upsert key columns; none
 * without an upsert key), u32 length of the encoded row, the row
 * (rowcodec.h), and its timestamp (i64). Checkpointed, restored and
 * rescaled by the runtime with the other keyed state, under the state TTL.
 */
#include <string.h>

#include "ops/ops.h"
#include "ops/rowcodec.h"
#include "weir/state.h"

typedef struct upm_op {
    weir_upsert_materialize_config conf;
    uint32_t n_cols;
    weir_state *rows;
    weir_batch *out;
    weir_buf list; /* the current key's rows, copied out of state */
    weir_buf next; /* the list being built */
    weir_buf row;  /* the incoming row, encoded */
    uint8_t key[1024], ukey[1024];
    uint64_t *n_missing;
} upm_op;

/* One kept row inside a list: offsets into the list's bytes. */
typedef struct upm_elem {
    size_t start, end; /* the whole element */
    const uint8_t *ukey, *row;
    uint32_t ukey_len, row_len;
    int64_t ts;
} upm_elem;

static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Reads the element at *off of list (len bytes); WEIR_ECORRUPT when it does not fit. */
static int elem_at(const uint8_t *list, size_t len, size_t off, upm_elem *e)
{
    e->start = off;
    if (len - off < 4)
        return WEIR_ECORRUPT;
    e->ukey_len = get_u32(list + off);
    off += 4;
    if (len - off < (size_t)e->ukey_len + 4)
        return WEIR_ECORRUPT;
    e->ukey = list + off;
    off += e->ukey_len;
    e->row_len = get_u32(list + off);
    off += 4;
    if (len - off < (size_t)e->row_len + 8)
        return WEIR_ECORRUPT;
    e->row = list + off;
    off += e->row_len;
    uint64_t u = 0;
    for (int i = 0; i < 8; i++)
        u |= (uint64_t)list[off + i] << (8 * i);
    e->ts = (int64_t)u;
    e->end = off + 8;
    return 0;
}

static int put_elem(weir_buf *b, const uint8_t *ukey, uint32_t ukey_len, const uint8_t *row, uint32_t row_len,
                    int64_t ts)
{
    int rc = weir_buf_put_u32(b, ukey_len);
    if (!rc && ukey_len)
        rc = weir_buf_put(b, ukey, ukey_len);
    if (!rc)
        rc = weir_buf_put_u32(b, row_len);
    if (!rc && row_len)
        rc = weir_buf_put(b, row, row_len);
    if (!rc)
        rc = weir_buf_put_i64(b, ts);
    return rc;
}

/* Whether kept element e is the incoming row: same upsert key, or (none) same columns. */
static bool elem_matches(const upm_op *o, const upm_elem *e, uint32_t ukey_len)
{
    if (o->conf.has_upsert_key)
        return e->ukey_len == ukey_len && !memcmp(e->ukey, o->ukey, ukey_len);
    return e->row_len == o->row.len && !memcmp(e->row, o->row.data, o->row.len);
}

/* Appends kept row e to the output as kind. */
static int emit_elem(upm_op *o, weir_op_ctx *ctx, const upm_elem *e, weir_row_kind kind)
{
    int row = weir__out_row(ctx, o->out);
    if (row < 0)
        return row;
    int rc = weir__row_decode(e->row, e->row_len, o->out, (uint32_t)row, 0, o->n_cols);
    o->out->kind[row] = (uint8_t)kind;
    o->out->ts[row] = e->ts;
    return rc;
}

/* Appends input row r to the output as kind. */
static int emit_input(upm_op *o, weir_op_ctx *ctx, const weir_batch *in, uint32_t r, weir_row_kind kind)
{
    int row = weir__out_row(ctx, o->out);
    if (row < 0)
        return row;
    int rc = weir__row_copy_cols(o->out, (uint32_t)row, 0, in, r, 0, o->n_cols);
    o->out->kind[row] = (uint8_t)kind;
    o->out->ts[row] = in->ts[r];
    return rc;
}

static int store(upm_op *o)
{
    if (o->next.len == 0)
        return weir_state_clear(o->rows, NULL, 0);
    return weir_value_put(o->rows, NULL, 0, o->next.data, o->next.len);
}

static int apply_row(upm_op *o, weir_op_ctx *ctx, const weir_batch *in, uint32_t r)
{
    const weir_upsert_materialize_config *c = &o->conf;
    size_t klen = weir_key_encode(in, &c->primary_key, r, o->key, sizeof o->key);
    if (klen > sizeof o->key)
        return weir_op_fail(ctx, WEIR_EINVAL, "upsert materializer: a PRIMARY KEY value of %zu bytes exceeds the "
                            "limit of %zu", klen, sizeof o->key);
    uint32_t ukey_len = 0;
    if (c->has_upsert_key) {
        size_t ul = weir_key_encode(in, &c->upsert_key, r, o->ukey, sizeof o->ukey);
        if (ul > sizeof o->ukey)
            return weir_op_fail(ctx, WEIR_EINVAL, "upsert materializer: an upsert key value of %zu bytes exceeds "
                                "the limit of %zu", ul, sizeof o->ukey);
        ukey_len = (uint32_t)ul;
    }
    int rc = weir_op_set_key(ctx, o->key, klen);
    if (rc || (rc = weir__row_encode(in, r, o->n_cols, &o->row)))
        return rc;
    if (o->row.len > UINT32_MAX)
        return WEIR_EINVAL;
    const void *v;
    size_t len;
    weir_buf_clear(&o->list);
    rc = weir_value_get(o->rows, NULL, 0, &v, &len);
    if (rc == WEIR_ENOTFOUND)
        len = 0;
    else if (rc)
        return rc;
    else if ((rc = weir_buf_put(&o->list, v, len)))
        return rc;
    const uint8_t *list = o->list.data;
    /* the first kept row the incoming one matches, and the last kept row */
    upm_elem e, found = {0}, last = {0};
    bool have = false;
    for (size_t off = 0; off < len; off = e.end) {
        if ((rc = elem_at(list, len, off, &e)))
            return weir_op_fail(ctx, rc, "upsert materializer: its state does not decode");
        if (!have && elem_matches(o, &e, ukey_len)) {
            found = e;
            have = true;
        }
        last = e;
    }
    weir_buf_clear(&o->next);
    weir_row_kind kind = (weir_row_kind)in->kind[r];
    if (kind == WEIR_ROW_INSERT || kind == WEIR_ROW_UPDATE_AFTER) {
        weir_row_kind out_kind = len == 0 ? WEIR_ROW_INSERT : WEIR_ROW_UPDATE_AFTER;
        if (c->has_upsert_key && have) {
            /* in place: the row keeps its position among the others */
            if ((rc = weir_buf_put(&o->next, list, found.start)) ||
                (rc = put_elem(&o->next, o->ukey, ukey_len, o->row.data, (uint32_t)o->row.len, in->ts[r])) ||
                (rc = weir_buf_put(&o->next, list + found.end, len - found.end)))
                return rc;
        } else if ((rc = weir_buf_put(&o->next, list, len)) ||
                   (rc = put_elem(&o->next, o->ukey, ukey_len, o->row.data, (uint32_t)o->row.len, in->ts[r]))) {
            return rc;
        }
        if ((rc = store(o)))
            return rc;
        return emit_input(o, ctx, in, r, out_kind);
    }
    if (!have) {
        weir_op_counter_add(o->n_missing, 1);
        return 0;
    }
    bool was_last = found.start == last.start;
    if ((rc = weir_buf_put(&o->next, list, found.start)) ||
        (rc = weir_buf_put(&o->next, list + found.end, len - found.end)))
        return rc;
    if (o->next.len == 0) {
        if ((rc = store(o)))
            return rc;
        return emit_input(o, ctx, in, r, WEIR_ROW_DELETE);
    }
    if (was_last) {
        /* the new last row: the one that ended just where the removed one started */
        size_t off = 0;
        upm_elem p;
        do {
            if ((rc = elem_at(o->next.data, o->next.len, off, &p)))
                return rc;
            off = p.end;
        } while (off < o->next.len);
        if ((rc = emit_elem(o, ctx, &p, WEIR_ROW_UPDATE_AFTER)))
            return rc;
    }
    return store(o);
}

static int upm_process(void *op, weir_op_ctx *ctx, int input, const weir_batch *in)
{
    (void)input;
    upm_op *o = op;
    for (uint32_t r = 0; r < in->n_rows; r++) {
        int rc = apply_row(o, ctx, in, r);
        if (rc)
            return rc;
    }
    return weir_op_emit_reset(ctx, o->out);
}

static int upm_create(void *arg, const weir_op_info *info, void **out_op)
{
    const weir_upsert_materialize_config *c = arg;
    upm_op *o = weir_calloc(1, sizeof *o);
    if (!o)
        return WEIR_ENOMEM;
    *out_op = o;
    o->conf = *c;
    o->n_cols = c->schema->n_fields;
    weir_buf_init(&o->list);
    weir_buf_init(&o->next);
    weir_buf_init(&o->row);
    o->out = weir_batch_create(c->schema, info->batch_size);
    return o->out ? 0 : WEIR_ENOMEM;
}

static int upm_open(void *op, weir_op_ctx *ctx)
{
    upm_op *o = op;
    weir_state_desc rows = {.name = "upsert-rows", .kind = WEIR_STATE_VALUE, .ttl_ms = o->conf.state_ttl_ms};
    o->n_missing = weir_op_counter(ctx, "upsert_materialize_missing");
    return weir_op_get_state(ctx, &rows, &o->rows);
}

static void upm_close(void *op)
{
    upm_op *o = op;
    if (!o)
        return;
    weir_batch_destroy(o->out);
    weir_buf_fini(&o->list);
    weir_buf_fini(&o->next);
    weir_buf_fini(&o->row);
    weir_free(o);
}

static const weir_operator_class upm_class = {
    .name = "SinkMaterializer",
    .open = upm_open,
    .process = upm_process,
    .close = upm_close,
};

static void conf_free(void *arg) { weir_free(arg); }

int weir_upsert_materialize_spec(const weir_upsert_materialize_config *cfg, weir_operator_spec *out)
{
    if (!cfg->schema || cfg->primary_key.n == 0 || cfg->primary_key.n > WEIR_KEY_MAX_COLS ||
        cfg->upsert_key.n > WEIR_KEY_MAX_COLS)
        return WEIR_EINVAL;
    for (uint32_t i = 0; i < cfg->primary_key.n; i++)
        if (cfg->primary_key.cols[i] >= cfg->schema->n_fields)
            return WEIR_EINVAL;
    for (uint32_t i = 0; i < cfg->upsert_key.n; i++)
        if (cfg->upsert_key.cols[i] >= cfg->schema->n_fields)
            return WEIR_EINVAL;
    weir_upsert_materialize_config *c = weir_malloc(sizeof *c);
    if (!c)
        return WEIR_ENOMEM;
    *c = *cfg;
    *out = (weir_operator_spec){"SinkMaterializer", &upm_class, upm_create, c, conf_free};
    return 0;
}
