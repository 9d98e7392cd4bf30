/*
 * expr/f_hash.c - hashes and radix text of Flink's list: MD5, SHA1, SHA224,
 * SHA256, SHA384, SHA512, SHA2, BIN, HEX, UNHEX, UUID.
 *
 * The digests come from libcrypto (OpenSSL) when weir is built with it;
 * without it the hash functions are refused when a query is planned. A
 * digest is the lowercase hexadecimal text of the hash of the string's
 * UTF-8 bytes. BIN and HEX print integers as Java's Long.toBinaryString /
 * toHexString do (two's complement for a negative number; HEX in
 * uppercase); HEX of a string prints its UTF-8 bytes. UNHEX reads pairs of
 * hexadecimal digits (an odd first digit alone), NULL for any other
 * character. UUID is a random version 4 UUID per row.
 */
#include <stdio.h>
#include <sys/random.h>

#include "expr/expr_internal.h"
#include "util/hex.h"

#ifdef WEIR_HAVE_LIBCRYPTO
#include <openssl/evp.h>
#endif

enum { H_MD5, H_SHA1, H_SHA224, H_SHA256, H_SHA384, H_SHA512, H_SHA2, H_BIN, H_HEX, H_UNHEX, H_UUID };

static int nomem_h(weir_error *err) { return weir_error_set(err, WEIR_ENOMEM, "out of memory"); }

static const char hex_lower[] = "0123456789abcdef";
static const char hex_upper[] = "0123456789ABCDEF";

#ifdef WEIR_HAVE_LIBCRYPTO
static const EVP_MD *digest_of(int64_t fn, int64_t bits)
{
    switch (fn == H_SHA2 ? (bits == 224 ? H_SHA224 : bits == 256 ? H_SHA256 : bits == 384 ? H_SHA384
                                                     : bits == 512 ? H_SHA512 : -1)
                         : fn) {
    case H_MD5: return EVP_md5();
    case H_SHA1: return EVP_sha1();
    case H_SHA224: return EVP_sha224();
    case H_SHA256: return EVP_sha256();
    case H_SHA384: return EVP_sha384();
    case H_SHA512: return EVP_sha512();
    default: return NULL;
    }
}
#endif

/* Long.toBinaryString (shift 1) or toHexString (shift 4), uppercase. */
static size_t radix_text(uint64_t v, int shift, char *buf)
{
    char tmp[64];
    size_t n = 0;
    do {
        tmp[n++] = hex_upper[v & ((1u << shift) - 1)];
        v >>= shift;
    } while (v);
    for (size_t k = 0; k < n; k++)
        buf[k] = tmp[n - 1 - k];
    return n;
}

static int hash_kernel(ecx *cx, const weir_expr *e, const xvec *a, uint32_t n, const uint8_t *act, xvec *out)
{
    for (uint32_t i = 0; i < n; i++) {
        if (!x_live(out, act, i))
            continue;
        switch (e->p0) {
        case H_BIN:
        case H_HEX: {
            if (a[0].type.id == WEIR_TYPE_STRING) {
                xstr s = ((const xstr *)a[0].data)[i];
                char *o = x_str(cx, (size_t)s.len * 2);
                if (!o)
                    return weir_error_set(cx->err, WEIR_ENOMEM, "out of memory");
                for (uint32_t k = 0; k < s.len; k++) {
                    o[2 * k] = hex_upper[(unsigned char)s.ptr[k] >> 4];
                    o[2 * k + 1] = hex_upper[(unsigned char)s.ptr[k] & 15];
                }
                ((xstr *)out->data)[i] = (xstr){o, s.len * 2};
                break;
            }
            int64_t v = a[0].type.id == WEIR_TYPE_BIGINT ? ((const int64_t *)a[0].data)[i]
                                                          : ((const int32_t *)a[0].data)[i];
            char buf[64];
            size_t len = radix_text((uint64_t)v, e->p0 == H_BIN ? 1 : 4, buf);
            if (x_put_str(cx, out, i, buf, len))
                return weir_error_set(cx->err, WEIR_ENOMEM, "out of memory");
            break;
        }
        case H_UNHEX: {
            xstr s = ((const xstr *)a[0].data)[i];
            uint8_t *o = (uint8_t *)x_str(cx, ((size_t)s.len + 1) / 2);
            if (!o)
                return weir_error_set(cx->err, WEIR_ENOMEM, "out of memory");
            uint32_t k = 0, m = 0;
            bool bad = false;
            /* Flink: the pairs are read from the end; an odd first digit
             * is checked, then dropped for a zero byte (UNHEX('ABC') is
             * 0x00 0xBC) */
            if (s.len & 1) {
                bad = weir__hex_value(s.ptr[0]) < 0;
                o[m++] = 0;
                k = 1;
            }
            for (; k < s.len && !bad; k += 2) {
                int hi = weir__hex_value(s.ptr[k]), lo = weir__hex_value(s.ptr[k + 1]);
                bad = hi < 0 || lo < 0;
                o[m++] = (uint8_t)(hi * 16 + lo);
            }
            if (bad)
                x_setnull(cx, out, i);
            else
                ((xstr *)out->data)[i] = (xstr){(const char *)o, m};
            break;
        }
        case H_UUID: {
            uint8_t r[16];
            size_t got = 0;
            while (got < sizeof r) {
                ssize_t k = getrandom(r + got, sizeof r - got, 0);
                if (k < 0)
                    return weir_error_set(cx->err, WEIR_EIO, "UUID: no random bytes from the system");
                got += (size_t)k;
            }
            r[6] = (uint8_t)((r[6] & 0x0F) | 0x40); /* version 4 */
            r[8] = (uint8_t)((r[8] & 0x3F) | 0x80); /* IETF variant */
            char buf[36];
            size_t m = 0;
            for (int k = 0; k < 16; k++) {
                if (k == 4 || k == 6 || k == 8 || k == 10)
                    buf[m++] = '-';
                buf[m++] = hex_lower[r[k] >> 4];
                buf[m++] = hex_lower[r[k] & 15];
            }
            if (x_put_str(cx, out, i, buf, m))
                return weir_error_set(cx->err, WEIR_ENOMEM, "out of memory");
            break;
        }
        default: {
#ifdef WEIR_HAVE_LIBCRYPTO
            int64_t bits = e->p0 == H_SHA2 ? ((const int32_t *)a[1].data)[i] : 0;
            const EVP_MD *md = digest_of(e->p0, bits);
            if (!md)
                return weir__x_fail(cx, i, "SHA2: the hash length must be 224, 256, 384 or 512, not %lld",
                                    (long long)bits);
            xstr s = ((const xstr *)a[0].data)[i];
            unsigned char d[EVP_MAX_MD_SIZE];
            unsigned int dl = 0;
            if (!EVP_Digest(s.ptr, s.len, d, &dl, md, NULL))
                return weir__x_fail(cx, i, "%s: libcrypto could not compute the digest", e->name);
            char buf[2 * EVP_MAX_MD_SIZE];
            for (unsigned int k = 0; k < dl; k++) {
                buf[2 * k] = hex_lower[d[k] >> 4];
                buf[2 * k + 1] = hex_lower[d[k] & 15];
            }
            if (x_put_str(cx, out, i, buf, 2 * (size_t)dl))
                return weir_error_set(cx->err, WEIR_ENOMEM, "out of memory");
#else
            return weir__x_fail(cx, i, "%s needs libcrypto", e->name);
#endif
        }
        }
    }
    return 0;
}

static int bind_hash(weir_expr_arena *a, const xfunc *f, weir_expr **args, uint32_t n, weir_expr **out,
                     weir_error *err)
{
    int64_t fn = f->param;
    weir_type rt = tmake(WEIR_TYPE_STRING, weir__any_nullable(args, n));
    uint8_t flags = F_STRICT;
    int rc;
    switch (fn) {
    case H_BIN:
    case H_HEX: {
        if (n != 1)
            return weir__bad_args(f, args, n, err);
        if (args[0]->type.id == WEIR_TYPE_NULL &&
            weir__coerce(a, &args[0], tmake(fn == H_BIN ? WEIR_TYPE_BIGINT : WEIR_TYPE_STRING, true), err))
            return err->code;
        weir_type_id t = args[0]->type.id;
        if (args[0]->iv || !(t == WEIR_TYPE_INT || t == WEIR_TYPE_BIGINT || (fn == H_HEX && t == WEIR_TYPE_STRING)))
            return weir__bad_args(f, args, n, err);
        break;
    }
    case H_UNHEX:
        if (n != 1)
            return weir__bad_args(f, args, n, err);
        if ((rc = weir__need_strings(a, f, args, n, 1, err)))
            return rc;
        rt = tmake(WEIR_TYPE_BYTES, true);
        flags |= F_MAYNULL;
        break;
    case H_UUID:
        if (n != 0)
            return weir__bad_args(f, args, n, err);
        rt = tmake(WEIR_TYPE_STRING, false);
        flags = F_VOLATILE;
        break;
    default:
#ifndef WEIR_HAVE_LIBCRYPTO
        return weir_error_set(err, WEIR_EUNSUPPORTED,
                              "%s needs libcrypto, which this weir was built without (install libssl-dev and "
                              "rebuild)",
                              f->name);
#endif
        if (n != (fn == H_SHA2 ? 2u : 1u))
            return weir__bad_args(f, args, n, err);
        if ((rc = weir__need_strings(a, f, args, n, 1, err)))
            return rc;
        if (fn == H_SHA2 && args[1]->kind == N_LITERAL && !args[1]->lit.is_null) {
            int32_t bits = args[1]->lit.v.i32;
            if (bits != 224 && bits != 256 && bits != 384 && bits != 512)
                return weir_error_set(err, WEIR_EPLAN, "SHA2: the hash length must be 224, 256, 384 or 512, not %d",
                                      bits);
        }
        break;
    }
    *out = weir__call_node(a, f, args, n, rt, hash_kernel, flags);
    if (!*out)
        return nomem_h(err);
    (*out)->p0 = fn;
    return 0;
}

const xfunc weir__funcs_hash[] = {
    {"MD5", "MD5(STRING)", bind_hash, H_MD5},
    {"SHA1", "SHA1(STRING)", bind_hash, H_SHA1},
    {"SHA224", "SHA224(STRING)", bind_hash, H_SHA224},
    {"SHA256", "SHA256(STRING)", bind_hash, H_SHA256},
    {"SHA384", "SHA384(STRING)", bind_hash, H_SHA384},
    {"SHA512", "SHA512(STRING)", bind_hash, H_SHA512},
    {"SHA2", "SHA2(STRING, INT)", bind_hash, H_SHA2},
    {"BIN", "BIN(BIGINT)", bind_hash, H_BIN},
    {"HEX", "HEX(BIGINT) or HEX(STRING)", bind_hash, H_HEX},
    {"UNHEX", "UNHEX(STRING)", bind_hash, H_UNHEX},
    {"UUID", "UUID()", bind_hash, H_UUID},
    {NULL, NULL, NULL, 0},
};
