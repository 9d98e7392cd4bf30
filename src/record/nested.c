/*
 * record/nested.c - ARRAY, MAP and ROW types: the process-wide table of
 * interned type descriptors, and the reader and writer of the encoding
 * described in record/nested.h.
 *
 * A descriptor is added once and never moved or freed, so weir_type_nested()
 * reads the table without a lock: a type's number is only known to a thread
 * after the descriptor was published under the lock.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "record/nested.h"

#define NESTED_MAX 65535u

static weir_nested_type *g_types[NESTED_MAX + 1]; /* [0] unused */
static uint32_t g_count;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

static bool same_desc(const weir_nested_type *d, weir_type_id kind, const weir_type *elems,
                      const char *const *names, uint32_t n)
{
    if (d->kind != kind || d->n != n)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        const weir_type *a = &d->elems[i], *b = &elems[i];
        if (a->id != b->id || a->precision != b->precision || a->scale != b->scale || a->nullable != b->nullable)
            return false;
        if (names && strcmp(d->names[i], names[i]) != 0)
            return false;
    }
    return true;
}

static int intern(weir_type_id kind, const weir_type *elems, const char *const *names, uint32_t n, bool nullable,
                  weir_type *out)
{
    int rc = 0;
    uint32_t found = 0;
    pthread_mutex_lock(&g_lock);
    for (uint32_t i = 1; i <= g_count && !found; i++)
        if (same_desc(g_types[i], kind, elems, names, n))
            found = i;
    if (!found) {
        if (g_count >= NESTED_MAX) {
            rc = WEIR_ENOSPC;
            goto out;
        }
        weir_nested_type *d = weir_calloc(1, sizeof *d);
        weir_type *el = weir_calloc(n ? n : 1, sizeof *el);
        char **nm = names ? weir_calloc(n ? n : 1, sizeof *nm) : NULL;
        bool ok = d && el && (!names || nm);
        for (uint32_t i = 0; ok && names && i < n; i++)
            ok = (nm[i] = weir_strdup(names[i])) != NULL;
        if (!ok) {
            for (uint32_t i = 0; nm && i < n; i++)
                weir_free(nm[i]);
            weir_free(nm);
            weir_free(el);
            weir_free(d);
            rc = WEIR_ENOMEM;
            goto out;
        }
        memcpy(el, elems, n * sizeof *el);
        *d = (weir_nested_type){kind, n, el, (const char *const *)nm};
        g_types[++g_count] = d;
        found = g_count;
    }
    *out = (weir_type){kind, (uint8_t)(found & 0xff), (uint8_t)(found >> 8), nullable};
out:
    pthread_mutex_unlock(&g_lock);
    return rc;
}

int weir_type_array(weir_type elem, bool nullable, weir_type *out)
{
    return intern(WEIR_TYPE_ARRAY, &elem, NULL, 1, nullable, out);
}

int weir_type_map(weir_type key, weir_type value, bool nullable, weir_type *out)
{
    weir_type kv[2] = {key, value};
    return intern(WEIR_TYPE_MAP, kv, NULL, 2, nullable, out);
}

int weir_type_multiset(weir_type elem, bool nullable, weir_type *out)
{
    weir_type ec[2] = {elem, weir_type_make(WEIR_TYPE_INT, false)};
    return intern(WEIR_TYPE_MULTISET, ec, NULL, 2, nullable, out);
}

int weir_type_row(const weir_type *types, const char *const *names, uint32_t n, bool nullable, weir_type *out)
{
    return intern(WEIR_TYPE_ROW, types, names, n, nullable, out);
}

const weir_nested_type *weir_type_nested(weir_type t)
{
    uint32_t id = weir_type_nested_id(t);
    return id && id <= NESTED_MAX ? g_types[id] : NULL;
}

/* Appends printf text at *o in buf (cap bytes), truncating; *o stays < cap. */
static void put(char *buf, size_t cap, size_t *o, const char *fmt, const char *a, const char *b)
{
    if (*o + 1 >= cap)
        return;
    int n = snprintf(buf + *o, cap - *o, fmt, a, b);
    if (n > 0)
        *o += (size_t)n < cap - *o ? (size_t)n : cap - *o - 1;
}

void weir__nested_format_type(weir_type t, char *buf, size_t cap)
{
    if (!cap)
        return;
    const weir_nested_type *d = weir_type_nested(t);
    const char *nn = t.nullable ? "" : " NOT NULL";
    size_t o = 0;
    buf[0] = '\0';
    if (!d) {
        put(buf, cap, &o, "%s%s", weir_type_name(t.id), nn);
        return;
    }
    put(buf, cap, &o, "%s%s", weir_type_name(t.id), "<");
    /* MULTISET<T>: the count is implied */
    uint32_t shown = t.id == WEIR_TYPE_MULTISET ? 1 : d->n;
    for (uint32_t i = 0; i < shown && o + 1 < cap; i++) {
        if (i)
            put(buf, cap, &o, "%s%s", ", ", "");
        if (d->names)
            put(buf, cap, &o, "`%s`%s", d->names[i], " ");
        if (o + 1 < cap) {
            weir_type_format(d->elems[i], buf + o, cap - o);
            o += strlen(buf + o);
        }
    }
    put(buf, cap, &o, ">%s%s", nn, "");
}

bool weir_nv_type_compatible(weir_type a, weir_type b)
{
    if (a.id != b.id)
        return false;
    if (a.id == WEIR_TYPE_DECIMAL)
        return a.precision == b.precision && a.scale == b.scale;
    if (!weir_type_is_nested(a.id) || weir_type_nested_id(a) == weir_type_nested_id(b))
        return true;
    const weir_nested_type *x = weir_type_nested(a), *y = weir_type_nested(b);
    if (!x || !y || x->n != y->n)
        return false;
    for (uint32_t i = 0; i < x->n; i++) {
        if (!weir_nv_type_compatible(x->elems[i], y->elems[i]))
            return false;
    }
    return true;
}

int weir_nv_type_relax(weir_type t, weir_type *out)
{
    const weir_nested_type *d = weir_type_nested(t);
    if (!d) {
        *out = t;
        return 0;
    }
    weir_type el[64], *elems = d->n <= 64 ? el : weir_calloc(d->n, sizeof *elems);
    if (!elems)
        return WEIR_ENOMEM;
    int rc = 0;
    for (uint32_t i = 0; i < d->n && !rc; i++) {
        rc = weir_nv_type_relax(d->elems[i], &elems[i]);
        elems[i].nullable = true;
    }
    if (!rc)
        rc = intern(d->kind, elems, d->names, d->n, t.nullable, out);
    if (elems != el)
        weir_free(elems);
    return rc;
}

/* ---- reading ---- */

static inline uint32_t rd_u32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

uint32_t weir_nv_open(weir_type t, const void *v, uint32_t len, weir_nv_iter *it)
{
    const uint8_t *p = v;
    it->p = p;
    it->end = p + len;
    if (t.id == WEIR_TYPE_ROW) {
        const weir_nested_type *d = weir_type_nested(t);
        return d ? d->n : 0;
    }
    if (len < 4) {
        it->p = it->end;
        return 0;
    }
    it->p += 4;
    return rd_u32(p);
}

bool weir_nv_next(weir_nv_iter *it, weir_type et, bool *is_null, const uint8_t **val, uint32_t *vlen)
{
    if (it->p >= it->end)
        return false;
    uint8_t flag = *it->p++;
    if (!flag) {
        *is_null = true;
        *val = it->p;
        *vlen = 0;
        return true;
    }
    size_t left = (size_t)(it->end - it->p);
    uint32_t w = weir_nv_fixed_width(et);
    if (!w) {
        if (left < 4 || left - 4 < rd_u32(it->p)) {
            it->p = it->end;
            return false;
        }
        *vlen = rd_u32(it->p);
        *val = it->p + 4;
        it->p += 4 + *vlen;
    } else {
        if (left < w) {
            it->p = it->end;
            return false;
        }
        *vlen = w;
        *val = it->p;
        it->p += w;
    }
    *is_null = false;
    return true;
}

/* ---- writing ---- */

int weir_nv_put_count(weir_buf *b, uint32_t n) { return weir_buf_put(b, &n, 4); }

int weir_nv_put_null(weir_buf *b) { return weir_buf_put_u8(b, 0); }

int weir_nv_put(weir_buf *b, weir_type et, const void *val, uint32_t vlen)
{
    int rc = weir_buf_reserve(b, 5 + (size_t)vlen);
    if (rc)
        return rc;
    b->data[b->len++] = 1;
    uint32_t w = weir_nv_fixed_width(et);
    if (!w) {
        memcpy(b->data + b->len, &vlen, 4);
        b->len += 4;
        w = vlen;
    }
    if (w)
        memcpy(b->data + b->len, val, w);
    b->len += w;
    return 0;
}

int weir_nv_begin_nested(weir_buf *b, size_t *mark)
{
    int rc = weir_buf_reserve(b, 5);
    if (rc)
        return rc;
    b->data[b->len++] = 1;
    *mark = b->len;
    memset(b->data + b->len, 0, 4);
    b->len += 4;
    return 0;
}

void weir_nv_end_nested(weir_buf *b, size_t mark)
{
    uint32_t n = (uint32_t)(b->len - mark - 4);
    memcpy(b->data + mark, &n, 4);
}

/* ---- canonical MAP form ---- */

/* One key/value pair of a map being put in order. */
typedef struct nv_pair {
    const uint8_t *k; /* the key's value bytes (NULL for a NULL key) */
    uint32_t klen;
    uint32_t off; /* the pair's entries, from the value's start */
    uint32_t len;
    uint32_t idx; /* position in the input: the later of equal keys wins */
    uint8_t kind; /* how keys compare: 0 signed integer, 1 double, 2 bytes */
} nv_pair;

static int64_t le_int(const uint8_t *p, uint32_t w)
{
    switch (w) {
    case 1: return (int8_t)p[0];
    case 4: {
        int32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    default: {
        int64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    }
}

/* Total order on keys: NULL first, integers and doubles numerically (a
 * double's bits break ties, so equal means equal bytes), everything else
 * bytewise with a prefix first. */
static int key_cmp(const nv_pair *x, const nv_pair *y)
{
    if (!x->k || !y->k)
        return (x->k != NULL) - (y->k != NULL);
    if (x->kind == 0) {
        int64_t a = le_int(x->k, x->klen), b = le_int(y->k, y->klen);
        return (a > b) - (a < b);
    }
    if (x->kind == 1) {
        double a, b;
        memcpy(&a, x->k, 8);
        memcpy(&b, y->k, 8);
        /* NaNs after every number (then by their bits, below), so that
         * the order stays total */
        if (isnan(a) != isnan(b))
            return isnan(a) ? 1 : -1;
        if (a < b)
            return -1;
        if (a > b)
            return 1;
    }
    uint32_t n = x->klen < y->klen ? x->klen : y->klen;
    int c = n ? memcmp(x->k, y->k, n) : 0;
    return c ? c : (x->klen > y->klen) - (x->klen < y->klen);
}

static int pair_cmp(const void *a, const void *b)
{
    const nv_pair *x = a, *y = b;
    int c = key_cmp(x, y);
    return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

static uint8_t key_kind(weir_type kt)
{
    switch (kt.id) {
    case WEIR_TYPE_BOOLEAN:
    case WEIR_TYPE_INT:
    case WEIR_TYPE_BIGINT:
    case WEIR_TYPE_DATE:
    case WEIR_TYPE_TIME:
    case WEIR_TYPE_TIMESTAMP:
    case WEIR_TYPE_TIMESTAMP_LTZ: return 0;
    case WEIR_TYPE_DECIMAL: return weir_type_is_wide(kt) ? 2 : 0;
    case WEIR_TYPE_DOUBLE: return 1;
    default: return 2;
    }
}

int weir_nv_map_canon(weir_buf *b, size_t at, weir_type t)
{
    const weir_nested_type *d = weir_type_nested(t);
    if (!d || !weir_type_is_mapish(t.id) || b->len < at + 4)
        return 0;
    size_t vlen = b->len - at;
    /* Room for the ordered copy first: the pointers below stay valid. */
    int rc = weir_buf_reserve(b, vlen);
    if (rc)
        return rc;
    weir_nv_iter it;
    const uint8_t *base = b->data + at;
    uint32_t n = weir_nv_open(t, base, (uint32_t)vlen, &it);
    if (n < 2)
        return 0;
    nv_pair stack[16], *pr = n <= 16 ? stack : weir_calloc(n, sizeof *pr);
    if (!pr)
        return WEIR_ENOMEM;
    uint8_t kind = key_kind(d->elems[0]);
    bool sorted = true;
    uint32_t got = 0;
    for (; got < n; got++) {
        const uint8_t *from = it.p, *kv, *vv;
        uint32_t kl, vl;
        bool kn, vn;
        if (!weir_nv_next(&it, d->elems[0], &kn, &kv, &kl) || !weir_nv_next(&it, d->elems[1], &vn, &vv, &vl))
            break;
        pr[got] = (nv_pair){kn ? NULL : kv, kn ? 0 : kl, (uint32_t)(from - base), (uint32_t)(it.p - from), got, kind};
        if (got && key_cmp(&pr[got - 1], &pr[got]) >= 0)
            sorted = false;
    }
    if (got == n && !sorted) {
        if (n > 1)
            qsort(pr, n, sizeof *pr, pair_cmp);
        /* Of equal keys (now adjacent, in input order) the last stays. */
        uint8_t *dst = b->data + b->len;
        size_t w = 0;
        uint32_t kept = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (i + 1 < n && key_cmp(&pr[i], &pr[i + 1]) == 0)
                continue;
            memcpy(dst + w, base + pr[i].off, pr[i].len);
            w += pr[i].len;
            kept++;
        }
        memcpy(b->data + at, &kept, 4);
        memcpy(b->data + at + 4, dst, w);
        b->len = at + 4 + w;
    }
    if (pr != stack)
        weir_free(pr);
    return 0;
}
