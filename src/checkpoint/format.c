/* checkpoint/format.c - encoding and verifying state files and metadata. */
#include <string.h>

#include "checkpoint/format.h"

static const char STATE_MAGIC[8] = {'W', 'E', 'I', 'R', 'S', 'T', 'A', 'T'};
static const char META_MAGIC[8] = {'W', 'E', 'I', 'R', 'M', 'E', 'T', 'A'};
#define FORMAT_VERSION 1u

void weir__task_state_fini(weir__task_state *t)
{
    if (!t)
        return;
    weir_free(t->op_uid);
    weir_free(t->op_state);
    for (uint32_t i = 0; i < t->n_pos; i++) {
        weir_free(t->pos[i].split_id);
        weir_free(t->pos[i].pos);
    }
    weir_free(t->pos);
    for (uint32_t i = 0; i < t->n_kg; i++)
        weir_free(t->kgs[i].data);
    weir_free(t->kgs);
    memset(t, 0, sizeof *t);
}

static int put_trailer(weir_buf *out, size_t start)
{
    uint32_t crc = weir_crc32c(0, out->data + start, out->len - start);
    return weir_buf_put_u32(out, crc);
}

int weir__task_state_encode(const weir__task_state *t, weir_buf *out)
{
    size_t start = out->len;
    int rc = 0;
    rc |= weir_buf_put(out, STATE_MAGIC, 8);
    rc |= weir_buf_put_u32(out, FORMAT_VERSION);
    rc |= weir_buf_put_str(out, t->op_uid);
    rc |= weir_buf_put_u32(out, t->subtask);
    rc |= weir_buf_put_u32(out, t->parallelism);
    rc |= weir_buf_put_bytes(out, t->op_state, t->op_state_len);
    rc |= weir_buf_put_varint(out, t->n_pos);
    for (uint32_t i = 0; i < t->n_pos; i++) {
        rc |= weir_buf_put_str(out, t->pos[i].split_id);
        rc |= weir_buf_put_bytes(out, t->pos[i].pos, t->pos[i].pos_len);
    }
    rc |= weir_buf_put_varint(out, t->n_kg);
    for (uint32_t i = 0; i < t->n_kg; i++) {
        rc |= weir_buf_put_u32(out, t->kgs[i].kg);
        rc |= weir_buf_put_bytes(out, t->kgs[i].data, t->kgs[i].len);
    }
    if (rc)
        return WEIR_ENOMEM;
    return put_trailer(out, start);
}

/* Checks magic, version and trailing CRC; leaves c positioned after the header. */
static int open_checked(const uint8_t *data, size_t len, const char magic[8], const char *what, weir_cursor *c,
                        weir_error *err)
{
    if (len < 16 || memcmp(data, magic, 8) != 0)
        return weir_error_set(err, WEIR_ECORRUPT, "%s: not a weir %s file (bad magic)", what, what);
    uint32_t stored;
    weir_cursor t;
    weir_cursor_init(&t, data + len - 4, 4);
    weir_cursor_get_u32(&t, &stored);
    uint32_t actual = weir_crc32c(0, data, len - 4);
    if (stored != actual)
        return weir_error_set(err, WEIR_ECORRUPT, "%s: checksum mismatch (stored %08x, computed %08x): file is corrupt or truncated",
                              what, stored, actual);
    weir_cursor_init(c, data + 8, len - 12);
    uint32_t version;
    weir_cursor_get_u32(c, &version);
    if (version != FORMAT_VERSION)
        return weir_error_set(err, WEIR_EUNSUPPORTED, "%s: format version %u is not supported", what, version);
    return 0;
}

static int copy_bytes(weir_cursor *c, uint8_t **out, size_t *len)
{
    const void *p;
    size_t n;
    int rc = weir_cursor_get_bytes(c, &p, &n);
    if (rc)
        return rc;
    *out = weir_malloc(n ? n : 1);
    if (!*out)
        return WEIR_ENOMEM;
    memcpy(*out, p, n);
    *len = n;
    return 0;
}

int weir__task_state_decode(const uint8_t *data, size_t len, weir__task_state *t, weir_error *err)
{
    memset(t, 0, sizeof *t);
    weir_cursor c;
    int rc = open_checked(data, len, STATE_MAGIC, "state", &c, err);
    if (rc)
        return rc;
    uint64_t n;
    if ((rc = weir_cursor_get_str(&c, &t->op_uid)) || (rc = weir_cursor_get_u32(&c, &t->subtask)) ||
        (rc = weir_cursor_get_u32(&c, &t->parallelism)) || (rc = copy_bytes(&c, &t->op_state, &t->op_state_len)) ||
        (rc = weir_cursor_get_varint(&c, &n)))
        goto fail;
    if (n > weir_cursor_left(&c)) {
        rc = WEIR_ECORRUPT;
        goto fail;
    }
    t->pos = weir_calloc(n ? n : 1, sizeof *t->pos);
    if (!t->pos) {
        rc = WEIR_ENOMEM;
        goto fail;
    }
    for (; t->n_pos < n; t->n_pos++) {
        weir__split_pos *p = &t->pos[t->n_pos];
        if ((rc = weir_cursor_get_str(&c, &p->split_id)) || (rc = copy_bytes(&c, &p->pos, &p->pos_len))) {
            t->n_pos++;
            goto fail;
        }
    }
    if ((rc = weir_cursor_get_varint(&c, &n)))
        goto fail;
    if (n > weir_cursor_left(&c)) {
        rc = WEIR_ECORRUPT;
        goto fail;
    }
    t->kgs = weir_calloc(n ? n : 1, sizeof *t->kgs);
    if (!t->kgs) {
        rc = WEIR_ENOMEM;
        goto fail;
    }
    for (; t->n_kg < n; t->n_kg++) {
        weir__kg_state *k = &t->kgs[t->n_kg];
        if ((rc = weir_cursor_get_u32(&c, &k->kg)) || (rc = copy_bytes(&c, &k->data, &k->len))) {
            t->n_kg++;
            goto fail;
        }
    }
    if (weir_cursor_left(&c) != 0) {
        rc = WEIR_ECORRUPT;
        goto fail;
    }
    return 0;
fail:
    weir__task_state_fini(t);
    if (rc == WEIR_ECORRUPT)
        weir_error_set(err, rc, "state: truncated or malformed content");
    return rc;
}

void weir__ckpt_meta_fini(weir__ckpt_meta *m)
{
    if (!m)
        return;
    for (uint32_t i = 0; i < m->n_files; i++) {
        weir_free(m->files[i].op_uid);
        weir_free(m->files[i].file);
    }
    weir_free(m->files);
    memset(m, 0, sizeof *m);
}

int weir__ckpt_meta_add(weir__ckpt_meta *m, const char *op_uid, uint32_t subtask, uint32_t parallelism,
                        const char *file, uint64_t size, uint32_t crc)
{
    weir__ckpt_file *f = weir_realloc(m->files, (m->n_files + 1) * sizeof *f);
    if (!f)
        return WEIR_ENOMEM;
    m->files = f;
    f = &m->files[m->n_files];
    *f = (weir__ckpt_file){weir_strdup(op_uid), subtask, parallelism, weir_strdup(file), size, crc};
    if (!f->op_uid || !f->file) {
        weir_free(f->op_uid);
        weir_free(f->file);
        return WEIR_ENOMEM;
    }
    m->n_files++;
    return 0;
}

int weir__ckpt_meta_encode(const weir__ckpt_meta *m, weir_buf *out)
{
    size_t start = out->len;
    int rc = 0;
    rc |= weir_buf_put(out, META_MAGIC, 8);
    rc |= weir_buf_put_u32(out, FORMAT_VERSION);
    rc |= weir_buf_put_u64(out, m->id);
    rc |= weir_buf_put_i64(out, m->time_ms);
    rc |= weir_buf_put_u8(out, m->is_savepoint);
    rc |= weir_buf_put_u32(out, m->max_parallelism);
    rc |= weir_buf_put_varint(out, m->n_files);
    for (uint32_t i = 0; i < m->n_files; i++) {
        const weir__ckpt_file *f = &m->files[i];
        rc |= weir_buf_put_str(out, f->op_uid);
        rc |= weir_buf_put_u32(out, f->subtask);
        rc |= weir_buf_put_u32(out, f->parallelism);
        rc |= weir_buf_put_str(out, f->file);
        rc |= weir_buf_put_u64(out, f->size);
        rc |= weir_buf_put_u32(out, f->crc);
    }
    if (rc)
        return WEIR_ENOMEM;
    return put_trailer(out, start);
}

int weir__ckpt_meta_decode(const uint8_t *data, size_t len, weir__ckpt_meta *m, weir_error *err)
{
    memset(m, 0, sizeof *m);
    weir_cursor c;
    int rc = open_checked(data, len, META_MAGIC, "metadata", &c, err);
    if (rc)
        return rc;
    uint8_t sp;
    uint64_t n;
    if ((rc = weir_cursor_get_u64(&c, &m->id)) || (rc = weir_cursor_get_i64(&c, &m->time_ms)) ||
        (rc = weir_cursor_get_u8(&c, &sp)) || (rc = weir_cursor_get_u32(&c, &m->max_parallelism)) ||
        (rc = weir_cursor_get_varint(&c, &n)))
        goto fail;
    m->is_savepoint = sp != 0;
    if (n > weir_cursor_left(&c)) {
        rc = WEIR_ECORRUPT;
        goto fail;
    }
    m->files = weir_calloc(n ? n : 1, sizeof *m->files);
    if (!m->files) {
        rc = WEIR_ENOMEM;
        goto fail;
    }
    for (; m->n_files < n; m->n_files++) {
        weir__ckpt_file *f = &m->files[m->n_files];
        if ((rc = weir_cursor_get_str(&c, &f->op_uid)) || (rc = weir_cursor_get_u32(&c, &f->subtask)) ||
            (rc = weir_cursor_get_u32(&c, &f->parallelism)) || (rc = weir_cursor_get_str(&c, &f->file)) ||
            (rc = weir_cursor_get_u64(&c, &f->size)) || (rc = weir_cursor_get_u32(&c, &f->crc))) {
            m->n_files++;
            goto fail;
        }
        if (!f->op_uid || !f->file) {
            m->n_files++;
            rc = WEIR_ECORRUPT;
            goto fail;
        }
    }
    return 0;
fail:
    weir__ckpt_meta_fini(m);
    if (rc == WEIR_ECORRUPT)
        weir_error_set(err, rc, "metadata: truncated or malformed content");
    return rc;
}
