/* checkpoint/catalog.c - verifying, listing and pruning checkpoints. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint/catalog.h"

void weir__ckpt_name(uint64_t id, bool savepoint, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s-%" PRIu64, savepoint ? "savepoint" : "chk", id);
}

bool weir__ckpt_parse_name(const char *n, uint64_t *id, bool *sp)
{
    const char *p;
    if (!strncmp(n, "chk-", 4)) {
        p = n + 4;
        *sp = false;
    } else if (!strncmp(n, "savepoint-", 10)) {
        p = n + 10;
        *sp = true;
    } else {
        return false;
    }
    if (!*p)
        return false;
    char *end;
    unsigned long long v = strtoull(p, &end, 10);
    if (*end)
        return false;
    *id = v;
    return true;
}

static int load(weir__storage *s, const char *name, weir__ckpt_meta *meta,
                weir__ckpt_file_fn fn, void *ud, bool shared, weir_error *err)
{
    char path[512];
    uint8_t *data = NULL;
    size_t len = 0;
    snprintf(path, sizeof path, "%s/_metadata", name);
    int rc = s->ops->get(s, path, &data, &len);
    if (rc == WEIR_ENOTFOUND)
        return weir_error_set(err, WEIR_ENOTFOUND,
                              "%s: no _metadata (checkpoint did not complete)",
                              name);
    if (rc)
        return weir_error_set(err, rc, "%s/_metadata: cannot read: %s", name,
                              weir_strerror(rc));
    weir_error e;
    rc = weir__ckpt_meta_decode(data, len, meta, &e);
    weir_free(data);
    if (rc)
        return weir_error_set(err, rc == WEIR_ENOMEM ? rc : WEIR_ECORRUPT,
                              "%s/%s", name, e.message);
    for (uint32_t i = 0; i < meta->n_files; i++) {
        const weir__ckpt_file *f = &meta->files[i];
        snprintf(path, sizeof path, "%s/%s", name, f->file);
        rc = s->ops->get(s, path, &data, &len);
        if (rc) {
            /* Missing: the checkpoint is bad. Unreadable (I/O error): it
             * may be intact, and the caller must not pass over it. */
            rc = weir_error_set(err, rc == WEIR_ENOTFOUND ? WEIR_ECORRUPT : rc,
                                "%s: state file missing or unreadable: %s",
                                path, weir_strerror(rc));
            goto bad;
        }
        uint32_t crc = weir_crc32c(0, data, len);
        if (len != f->size || crc != f->crc) {
            weir_free(data);
            rc = weir_error_set(
                err, WEIR_ECORRUPT,
                "%s: checksum or size mismatch (size %zu, expected %" PRIu64
                "): corrupt or truncated",
                path, len, f->size);
            goto bad;
        }
        rc = fn ? fn(ud, f, data, len) : 0;
        weir_free(data);
        if (rc)
            goto bad;
    }
    /* Incremental checkpoints: the shared files their snapshots need. */
    for (uint32_t i = 0; shared && i < meta->n_shared; i++) {
        const weir__ckpt_shared *f = &meta->shared[i];
        rc = s->ops->get(s, f->name, &data, &len);
        if (rc) {
            rc = weir_error_set(err, rc == WEIR_ENOTFOUND ? WEIR_ECORRUPT : rc,
                                "%s: shared file %s missing or unreadable: %s",
                                name, f->name, weir_strerror(rc));
            goto bad;
        }
        uint32_t crc = weir_crc32c(0, data, len);
        weir_free(data);
        if (len != f->size || crc != f->crc) {
            rc = weir_error_set(
                err, WEIR_ECORRUPT,
                "%s: shared file %s: checksum or size mismatch (size %zu, "
                "expected %" PRIu64 "): corrupt or truncated",
                name, f->name, len, f->size);
            goto bad;
        }
    }
    return 0;
bad:
    weir__ckpt_meta_fini(meta);
    return rc;
}

int weir__ckpt_load(weir__storage *s, const char *name, weir__ckpt_meta *meta,
                    weir__ckpt_file_fn fn, void *ud, weir_error *err)
{
    return load(s, name, meta, fn, ud, true, err);
}

int weir__ckpt_load_state_files(weir__storage *s, const char *name,
                                weir__ckpt_meta *meta, weir__ckpt_file_fn fn,
                                void *ud, weir_error *err)
{
    return load(s, name, meta, fn, ud, false, err);
}

int weir__ckpt_verify(weir__storage *s, const char *name, weir__ckpt_meta *meta,
                      weir_error *err)
{
    return weir__ckpt_load(s, name, meta, NULL, NULL, err);
}

static int cmp_info(const void *a, const void *b)
{
    const weir__ckpt_info *x = a, *y = b;
    if (x->is_savepoint != y->is_savepoint)
        return x->is_savepoint ? 1 : -1;
    return x->id < y->id ? -1 : x->id > y->id;
}

int weir__ckpt_list(weir__storage *s, weir__ckpt_info **out, size_t *n_out)
{
    char **names;
    size_t n;
    *out = NULL;
    *n_out = 0;
    int rc = s->ops->list(s, "", &names, &n);
    if (rc == WEIR_ENOTFOUND)
        return 0;
    if (rc)
        return rc;
    weir__ckpt_info *infos = weir_calloc(n ? n : 1, sizeof *infos);
    if (!infos) {
        weir__storage_free_names(names, n);
        return WEIR_ENOMEM;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        weir__ckpt_info *in = &infos[k];
        if (!weir__ckpt_parse_name(names[i], &in->id, &in->is_savepoint))
            continue;
        snprintf(in->name, sizeof in->name, "%s", names[i]);
        weir__ckpt_meta m;
        weir_error e;
        int vr = weir__ckpt_verify(s, names[i], &m, &e);
        if (vr == 0) {
            in->status = WEIR_CKPT_COMPLETE;
            in->time_ms = m.time_ms;
            in->n_files = m.n_files;
            in->size_bytes = weir__ckpt_meta_size(&m);
            weir__ckpt_meta_fini(&m);
        } else {
            in->status =
                vr == WEIR_ENOTFOUND ? WEIR_CKPT_INCOMPLETE : WEIR_CKPT_CORRUPT;
            snprintf(in->reason, sizeof in->reason, "%s", e.message);
        }
        k++;
    }
    weir__storage_free_names(names, n);
    if (k > 1)
        qsort(infos, k, sizeof *infos, cmp_info);
    *out = infos;
    *n_out = k;
    return 0;
}

int weir__ckpt_latest(weir__storage *s, weir__ckpt_meta *meta, char *name,
                      size_t name_cap, weir_buf *notes)
{
    weir__ckpt_info *infos;
    size_t n;
    int rc = weir__ckpt_list(s, &infos, &n);
    if (rc)
        return rc;
    rc = WEIR_ENOTFOUND;
    for (size_t i = n; i-- > 0;) {
        if (infos[i].is_savepoint)
            continue;
        if (infos[i].status == WEIR_CKPT_COMPLETE) {
            weir_error e;
            rc = weir__ckpt_verify(s, infos[i].name, meta, &e);
            if (rc == 0) {
                snprintf(name, name_cap, "%s", infos[i].name);
                break;
            }
            continue;
        }
        if (notes && infos[i].status == WEIR_CKPT_CORRUPT)
            weir_buf_printf(notes, "skipping %s: %s\n", infos[i].name,
                            infos[i].reason);
    }
    weir_free(infos);
    return rc;
}

int weir__ckpt_prune(weir__storage *s, uint32_t retain)
{
    weir__ckpt_info *infos;
    size_t n;
    int rc = weir__ckpt_list(s, &infos, &n);
    if (rc)
        return rc;
    uint32_t kept = 0;
    bool seen_complete = false;
    for (size_t i = n; i-- > 0;) {
        if (infos[i].is_savepoint)
            continue; /* savepoints belong to the user */
        bool drop;
        if (infos[i].status == WEIR_CKPT_COMPLETE) {
            drop = kept >= retain;
            kept++;
            seen_complete = true;
        } else {
            drop = seen_complete; /* an older failed attempt */
        }
        if (drop) {
            int r = s->ops->remove(s, infos[i].name);
            if (r && !rc)
                rc = r;
        }
    }
    weir_free(infos);
    return rc;
}
