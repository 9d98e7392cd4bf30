/*
 * checkpoint/format.c - encoding and verifying checkpoint metadata, and
 * summarizing subtask snapshots for inspection (formats: format.h).
 */
#include <string.h>

#include "checkpoint/format.h"
#include "runtime/checkpoint.h"
#include "weir/key.h"

static const char META_MAGIC[8] = {'W', 'E', 'I', 'R', 'M', 'E', 'T', 'A'};
#define META_VERSION 2u        /* without shared files */
#define META_VERSION_SHARED 3u /* with them */
#define META_VERSION_OPS 4u    /* shared files (maybe none) and operators */

void weir__ckpt_meta_fini(weir__ckpt_meta *m)
{
    if (!m)
        return;
    for (uint32_t i = 0; i < m->n_files; i++) {
        weir_free(m->files[i].task);
        weir_free(m->files[i].file);
    }
    weir_free(m->files);
    for (uint32_t i = 0; i < m->n_shared; i++)
        weir_free(m->shared[i].name);
    weir_free(m->shared);
    for (uint32_t i = 0; i < m->n_ops; i++) {
        weir_free(m->ops[i].uid);
        weir_free(m->ops[i].name);
        weir_free(m->ops[i].fp);
    }
    weir_free(m->ops);
    memset(m, 0, sizeof *m);
}

int weir__ckpt_meta_add_shared(weir__ckpt_meta *m, const char *name,
                               uint32_t task_id, uint32_t subtask,
                               uint64_t size, uint32_t crc)
{
    weir__ckpt_shared *f =
        weir_realloc(m->shared, (m->n_shared + 1) * sizeof *f);
    if (!f)
        return WEIR_ENOMEM;
    m->shared = f;
    f = &m->shared[m->n_shared];
    *f = (weir__ckpt_shared){weir_strdup(name), task_id, subtask, size, crc};
    if (!f->name)
        return WEIR_ENOMEM;
    m->n_shared++;
    return 0;
}

int weir__ckpt_meta_add_op(weir__ckpt_meta *m, uint32_t node, const char *uid,
                           const char *name, const char *fp)
{
    weir__ckpt_op *o = weir_realloc(m->ops, (m->n_ops + 1) * sizeof *o);
    if (!o)
        return WEIR_ENOMEM;
    m->ops = o;
    m->has_ops = true;
    o = &m->ops[m->n_ops];
    *o = (weir__ckpt_op){node, weir_strdup(uid), weir_strdup(name),
                         weir_strdup(fp ? fp : "")};
    if (!o->uid || !o->name || !o->fp) {
        weir_free(o->uid);
        weir_free(o->name);
        weir_free(o->fp);
        return WEIR_ENOMEM;
    }
    m->n_ops++;
    return 0;
}

uint64_t weir__ckpt_meta_size(const weir__ckpt_meta *m)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < m->n_files; i++)
        n += m->files[i].size;
    for (uint32_t i = 0; i < m->n_shared; i++)
        n += m->shared[i].size;
    return n;
}

int weir__ckpt_meta_add(weir__ckpt_meta *m, const char *task, uint32_t task_id,
                        uint32_t subtask, uint32_t parallelism,
                        const char *file, uint64_t size, uint32_t crc)
{
    weir__ckpt_file *f = weir_realloc(m->files, (m->n_files + 1) * sizeof *f);
    if (!f)
        return WEIR_ENOMEM;
    m->files = f;
    f = &m->files[m->n_files];
    *f = (weir__ckpt_file){weir_strdup(task ? task : ""),
                           task_id,
                           subtask,
                           parallelism,
                           weir_strdup(file),
                           size,
                           crc};
    if (!f->task || !f->file) {
        weir_free(f->task);
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
    uint8_t flags = (uint8_t)((m->is_savepoint ? WEIR__CKPT_SAVEPOINT : 0) |
                              (m->is_final ? WEIR__CKPT_FINAL : 0));
    rc |= weir_buf_put(out, META_MAGIC, 8);
    rc |= weir_buf_put_u32(out, m->has_ops    ? META_VERSION_OPS
                                : m->n_shared ? META_VERSION_SHARED
                                              : META_VERSION);
    rc |= weir_buf_put_u64(out, m->id);
    rc |= weir_buf_put_i64(out, m->time_ms);
    rc |= weir_buf_put_i64(out, m->duration_ms);
    rc |= weir_buf_put_u8(out, flags);
    rc |= weir_buf_put_u32(out, m->max_parallelism);
    rc |= weir_buf_put_varint(out, m->n_files);
    for (uint32_t i = 0; i < m->n_files; i++) {
        const weir__ckpt_file *f = &m->files[i];
        rc |= weir_buf_put_str(out, f->task);
        rc |= weir_buf_put_u32(out, f->task_id);
        rc |= weir_buf_put_u32(out, f->subtask);
        rc |= weir_buf_put_u32(out, f->parallelism);
        rc |= weir_buf_put_str(out, f->file);
        rc |= weir_buf_put_u64(out, f->size);
        rc |= weir_buf_put_u32(out, f->crc);
    }
    if (m->n_shared || m->has_ops) {
        rc |= weir_buf_put_varint(out, m->n_shared);
        for (uint32_t i = 0; i < m->n_shared; i++) {
            const weir__ckpt_shared *f = &m->shared[i];
            rc |= weir_buf_put_str(out, f->name);
            rc |= weir_buf_put_u32(out, f->task_id);
            rc |= weir_buf_put_u32(out, f->subtask);
            rc |= weir_buf_put_u64(out, f->size);
            rc |= weir_buf_put_u32(out, f->crc);
        }
    }
    if (m->has_ops) {
        rc |= weir_buf_put_varint(out, m->n_ops);
        for (uint32_t i = 0; i < m->n_ops; i++) {
            const weir__ckpt_op *o = &m->ops[i];
            rc |= weir_buf_put_varint(out, o->node);
            rc |= weir_buf_put_str(out, o->uid);
            rc |= weir_buf_put_str(out, o->name);
            rc |= weir_buf_put_str(out, o->fp);
        }
    }
    if (rc)
        return WEIR_ENOMEM;
    uint32_t crc = weir_crc32c(0, out->data + start, out->len - start);
    return weir_buf_put_u32(out, crc);
}

int weir__ckpt_meta_decode(const uint8_t *data, size_t len, weir__ckpt_meta *m,
                           weir_error *err)
{
    memset(m, 0, sizeof *m);
    if (len < 16 || memcmp(data, META_MAGIC, 8) != 0)
        return weir_error_set(
            err, WEIR_ECORRUPT,
            "_metadata: not a weir checkpoint metadata file (bad magic)");
    uint32_t stored, actual = weir_crc32c(0, data, len - 4);
    weir_cursor c;
    weir_cursor_init(&c, data + len - 4, 4);
    weir_cursor_get_u32(&c, &stored);
    if (stored != actual)
        return weir_error_set(err, WEIR_ECORRUPT,
                              "_metadata: checksum mismatch (stored %08x, "
                              "computed %08x): corrupt or truncated",
                              stored, actual);
    weir_cursor_init(&c, data + 8, len - 12);
    uint32_t version;
    weir_cursor_get_u32(&c, &version);
    if (version < META_VERSION || version > META_VERSION_OPS)
        return weir_error_set(err, WEIR_EUNSUPPORTED,
                              "_metadata: format version %u is not supported "
                              "(this weir reads %u to %u)",
                              version, META_VERSION, META_VERSION_OPS);
    uint8_t flags;
    uint64_t n;
    int rc;
    if ((rc = weir_cursor_get_u64(&c, &m->id)) ||
        (rc = weir_cursor_get_i64(&c, &m->time_ms)) ||
        (rc = weir_cursor_get_i64(&c, &m->duration_ms)) ||
        (rc = weir_cursor_get_u8(&c, &flags)) ||
        (rc = weir_cursor_get_u32(&c, &m->max_parallelism)) ||
        (rc = weir_cursor_get_varint(&c, &n)))
        goto fail;
    m->is_savepoint = (flags & WEIR__CKPT_SAVEPOINT) != 0;
    m->is_final = (flags & WEIR__CKPT_FINAL) != 0;
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
        if ((rc = weir_cursor_get_str(&c, &f->task)) ||
            (rc = weir_cursor_get_u32(&c, &f->task_id)) ||
            (rc = weir_cursor_get_u32(&c, &f->subtask)) ||
            (rc = weir_cursor_get_u32(&c, &f->parallelism)) ||
            (rc = weir_cursor_get_str(&c, &f->file)) ||
            (rc = weir_cursor_get_u64(&c, &f->size)) ||
            (rc = weir_cursor_get_u32(&c, &f->crc))) {
            m->n_files++;
            goto fail;
        }
        if (!f->task || !f->file || !*f->file || strchr(f->file, '/') ||
            strstr(f->file, "..")) {
            m->n_files++;
            rc = WEIR_ECORRUPT;
            goto fail;
        }
    }
    if (version >= META_VERSION_SHARED) {
        if ((rc = weir_cursor_get_varint(&c, &n)))
            goto fail;
        if (n > weir_cursor_left(&c)) {
            rc = WEIR_ECORRUPT;
            goto fail;
        }
        if (!(m->shared = weir_calloc(n ? n : 1, sizeof *m->shared))) {
            rc = WEIR_ENOMEM;
            goto fail;
        }
        for (; m->n_shared < n; m->n_shared++) {
            weir__ckpt_shared *f = &m->shared[m->n_shared];
            if ((rc = weir_cursor_get_str(&c, &f->name)) ||
                (rc = weir_cursor_get_u32(&c, &f->task_id)) ||
                (rc = weir_cursor_get_u32(&c, &f->subtask)) ||
                (rc = weir_cursor_get_u64(&c, &f->size)) ||
                (rc = weir_cursor_get_u32(&c, &f->crc))) {
                m->n_shared++;
                goto fail;
            }
            /* Only the shared folder, one level, no way out of it. */
            if (!f->name || strncmp(f->name, "shared/", 7) ||
                !f->name[7] || strchr(f->name + 7, '/') ||
                strstr(f->name, "..")) {
                m->n_shared++;
                rc = WEIR_ECORRUPT;
                goto fail;
            }
        }
    }
    if (version >= META_VERSION_OPS) {
        m->has_ops = true;
        if ((rc = weir_cursor_get_varint(&c, &n)))
            goto fail;
        if (n > weir_cursor_left(&c)) {
            rc = WEIR_ECORRUPT;
            goto fail;
        }
        if (!(m->ops = weir_calloc(n ? n : 1, sizeof *m->ops))) {
            rc = WEIR_ENOMEM;
            goto fail;
        }
        for (; m->n_ops < n; m->n_ops++) {
            weir__ckpt_op *o = &m->ops[m->n_ops];
            uint64_t node;
            if ((rc = weir_cursor_get_varint(&c, &node)) ||
                (rc = weir_cursor_get_str(&c, &o->uid)) ||
                (rc = weir_cursor_get_str(&c, &o->name)) ||
                (rc = weir_cursor_get_str(&c, &o->fp))) {
                m->n_ops++;
                goto fail;
            }
            if (!o->uid || !o->name || !o->fp || node > UINT32_MAX) {
                m->n_ops++;
                rc = WEIR_ECORRUPT;
                goto fail;
            }
            o->node = (uint32_t)node;
        }
    }
    if (weir_cursor_left(&c) != 0) {
        rc = WEIR_ECORRUPT;
        goto fail;
    }
    return 0;
fail:
    weir__ckpt_meta_fini(m);
    if (rc == WEIR_ECORRUPT)
        weir_error_set(err, rc, "_metadata: truncated or malformed content");
    else
        weir_error_set(err, rc, "_metadata: %s", weir_strerror(rc));
    return rc;
}

/* ---- subtask snapshot summaries ---- */

void weir__snap_view_fini(weir__snap_view *v)
{
    if (!v)
        return;
    for (uint32_t i = 0; i < v->n_ops; i++)
        weir_free(v->ops[i].name);
    for (uint32_t i = 0; i < v->n_splits; i++) {
        weir_free(v->splits[i].id);
        weir_free(v->splits[i].pos);
    }
    weir_free(v->ops);
    weir_free(v->splits);
    weir__native_parts_free(v->native, v->n_native);
    weir_free(v->native);
    memset(v, 0, sizeof *v);
}

static int get_u32v(weir_cursor *c, uint32_t *out)
{
    uint64_t x;
    int rc = weir_cursor_get_varint(c, &x);
    if (!rc && x > UINT32_MAX)
        rc = WEIR_ECORRUPT;
    if (!rc)
        *out = (uint32_t)x;
    return rc;
}

void weir__snap_op_view_span(const weir__snap_view *v,
                             const weir__snap_op_view *op,
                             uint32_t max_parallelism, uint32_t *first,
                             uint32_t *last)
{
    uint32_t lo = 0, hi = 0;
    if (v->parallelism && v->subtask < v->parallelism &&
        max_parallelism >= v->parallelism)
        weir_key_group_range(v->subtask, v->parallelism, max_parallelism, &lo,
                             &hi);
    bool owned = lo < hi && op->kg_lo >= lo && op->kg_hi < hi;
    *first = owned ? lo : op->kg_lo;
    *last = owned ? hi - 1 : op->kg_hi;
}

int weir__snap_view_decode(const uint8_t *data, size_t len, weir__snap_view *v,
                           weir_error *err)
{
    memset(v, 0, sizeof *v);
    weir_cursor c;
    weir_cursor_init(&c, data, len);
    uint32_t magic;
    uint8_t version;
    int rc = weir_cursor_get_u32(&c, &magic);
    if (!rc && magic != WEIR__SNAPSHOT_MAGIC)
        return weir_error_set(err, WEIR_ECORRUPT,
                              "not a subtask snapshot (bad magic)");
    if (!rc && !(rc = weir_cursor_get_u8(&c, &version)) &&
        (version < 1 || version > 3))
        return weir_error_set(err, WEIR_EUNSUPPORTED,
                              "subtask snapshot version %u is not supported",
                              version);
    if (!rc)
        rc = get_u32v(&c, &v->task);
    if (!rc)
        rc = get_u32v(&c, &v->subtask);
    if (!rc)
        rc = get_u32v(&c, &v->parallelism);
    if (!rc)
        rc = get_u32v(&c, &v->n_ops);
    if (!rc && v->n_ops > weir_cursor_left(&c))
        rc = WEIR_ECORRUPT;
    if (!rc && !(v->ops = weir_calloc(v->n_ops ? v->n_ops : 1, sizeof *v->ops)))
        rc = WEIR_ENOMEM;
    uint32_t n_ops = v->n_ops;
    v->n_ops = 0;
    for (uint32_t i = 0; i < n_ops && !rc; i++) {
        weir__snap_op_view *o = &v->ops[v->n_ops++];
        const void *p;
        size_t n, tn;
        if ((rc = get_u32v(&c, &o->node)) ||
            (rc = weir_cursor_get_str(&c, &o->name)) ||
            (rc = weir_cursor_get_bytes(&c, &p, &o->op_state_bytes)) ||
            (rc = get_u32v(&c, &o->n_kg)))
            break;
        o->kg_lo = UINT32_MAX;
        for (uint32_t k = 0; k < o->n_kg && !rc; k++) {
            uint32_t kg;
            if ((rc = weir_cursor_get_u32(&c, &kg)) ||
                (rc = weir_cursor_get_bytes(&c, &p, &n)) ||
                (rc = weir_cursor_get_bytes(&c, &p, &tn)))
                break;
            o->kg_lo = kg < o->kg_lo ? kg : o->kg_lo;
            o->kg_hi = kg > o->kg_hi ? kg : o->kg_hi;
            o->state_bytes += n;
            o->timer_bytes += tn;
            if (n || tn)
                o->n_kg_used++;
        }
        if (o->n_kg == 0)
            o->kg_lo = 0;
    }
    uint8_t has_src = 0;
    if (!rc)
        rc = weir_cursor_get_u8(&c, &has_src);
    v->has_source = has_src != 0;
    uint32_t n_splits = 0;
    if (!rc && has_src && !(rc = get_u32v(&c, &v->source_node)) &&
        !(rc = get_u32v(&c, &n_splits))) {
        if (n_splits > weir_cursor_left(&c))
            rc = WEIR_ECORRUPT;
        else if (!(v->splits =
                       weir_calloc(n_splits ? n_splits : 1, sizeof *v->splits)))
            rc = WEIR_ENOMEM;
    }
    for (uint32_t i = 0; i < n_splits && !rc; i++) {
        weir__snap_split_view *s = &v->splits[v->n_splits++];
        uint8_t fin;
        const void *p;
        if ((rc = weir_cursor_get_str(&c, &s->id)) ||
            (rc = weir_cursor_get_u8(&c, &fin)) ||
            (rc = weir_cursor_get_bytes(&c, &p, &s->pos_len)) ||
            (rc = weir_cursor_get_i64(&c, &s->max_ts)))
            break;
        s->finished = fin != 0;
        if (!(s->pos = weir_malloc(s->pos_len ? s->pos_len : 1))) {
            rc = WEIR_ENOMEM;
            break;
        }
        memcpy(s->pos, p, s->pos_len);
    }
    if (!rc && version >= 2)
        rc = weir__snapshot_read_native(&c, &v->native, &v->n_native);
    if (!rc && version == 3) {
        const uint8_t *sec;
        rc = weir__snapshot_read_inflight(&c, &sec, &v->inflight_bytes,
                                          &v->inflight_msgs);
    }
    if (!rc && weir_cursor_left(&c) != 0)
        rc = WEIR_ECORRUPT;
    if (rc) {
        weir__snap_view_fini(v);
        return weir_error_set(err, rc, "subtask snapshot: %s",
                              rc == WEIR_ECORRUPT
                                  ? "truncated or malformed content"
                                  : weir_strerror(rc));
    }
    return 0;
}
