/* src/util/dec128.c - 128-bit DECIMAL arithmetic with 256-bit intermediates. */
#include <stdlib.h>

#include "util/dec128.h"
#include "util/cnum.h"

typedef unsigned __int128 u128;

const weir_i128 weir__pow10_128[39] = {
    (weir_i128)1LL,
    (weir_i128)10LL,
    (weir_i128)100LL,
    (weir_i128)1000LL,
    (weir_i128)10000LL,
    (weir_i128)100000LL,
    (weir_i128)1000000LL,
    (weir_i128)10000000LL,
    (weir_i128)100000000LL,
    (weir_i128)1000000000LL,
    (weir_i128)10000000000LL,
    (weir_i128)100000000000LL,
    (weir_i128)1000000000000LL,
    (weir_i128)10000000000000LL,
    (weir_i128)100000000000000LL,
    (weir_i128)1000000000000000LL,
    (weir_i128)10000000000000000LL,
    (weir_i128)100000000000000000LL,
    (weir_i128)1000000000000000000LL,
    (weir_i128)1000000000000000000LL * 10LL,
    (weir_i128)1000000000000000000LL * 100LL,
    (weir_i128)1000000000000000000LL * 1000LL,
    (weir_i128)1000000000000000000LL * 10000LL,
    (weir_i128)1000000000000000000LL * 100000LL,
    (weir_i128)1000000000000000000LL * 1000000LL,
    (weir_i128)1000000000000000000LL * 10000000LL,
    (weir_i128)1000000000000000000LL * 100000000LL,
    (weir_i128)1000000000000000000LL * 1000000000LL,
    (weir_i128)1000000000000000000LL * 10000000000LL,
    (weir_i128)1000000000000000000LL * 100000000000LL,
    (weir_i128)1000000000000000000LL * 1000000000000LL,
    (weir_i128)1000000000000000000LL * 10000000000000LL,
    (weir_i128)1000000000000000000LL * 100000000000000LL,
    (weir_i128)1000000000000000000LL * 1000000000000000LL,
    (weir_i128)1000000000000000000LL * 10000000000000000LL,
    (weir_i128)1000000000000000000LL * 100000000000000000LL,
    (weir_i128)1000000000000000000LL * 1000000000000000000LL,
    (weir_i128)1000000000000000000LL * 1000000000000000000LL * 10LL,
    (weir_i128)1000000000000000000LL * 1000000000000000000LL * 100LL,
};

/* An unsigned 256-bit number. */
typedef struct u256 {
    u128 hi, lo;
} u256;

static u256 mul128(u128 a, u128 b)
{
    uint64_t a0 = (uint64_t)a, a1 = (uint64_t)(a >> 64), b0 = (uint64_t)b, b1 = (uint64_t)(b >> 64);
    u128 p00 = (u128)a0 * b0, p01 = (u128)a0 * b1, p10 = (u128)a1 * b0, p11 = (u128)a1 * b1;
    u128 mid = (p00 >> 64) + (uint64_t)p01 + (uint64_t)p10;
    u256 r;
    r.lo = (mid << 64) | (uint64_t)p00;
    r.hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
    return r;
}

/* x * m, false on overflow of 256 bits. */
static bool mul256(u256 x, u128 m, u256 *out)
{
    u256 lo = mul128(x.lo, m);
    u256 hi = mul128(x.hi, m);
    if (hi.hi)
        return false;
    u128 h = lo.hi + hi.lo;
    if (h < lo.hi)
        return false;
    out->lo = lo.lo;
    out->hi = h;
    return true;
}

/* x / d rounded HALF_UP (or truncated); false if the quotient needs more than 127 bits. */
static bool div256(u256 x, u128 d, bool round, u128 *out)
{
    u128 q, r;
    if (x.hi == 0) {
        q = x.lo / d;
        r = x.lo % d;
    } else {
        if (x.hi >= d)
            return false; /* quotient >= 2^128 */
        /* Shift-subtract: r stays < d; a bit shifted out of r means r > d. */
        r = x.hi;
        q = 0;
        for (int i = 127; i >= 0; i--) {
            bool carry = r >> 127;
            r = (r << 1) | ((x.lo >> i) & 1);
            q <<= 1;
            if (carry || r >= d) {
                r -= d;
                q |= 1;
            }
        }
    }
    if (round && r >= d - r)
        q++;
    if (q >> 127)
        return false;
    *out = q;
    return true;
}

static bool div256_round(u256 x, u128 d, u128 *out) { return div256(x, d, true, out); }

/* x mod d over all 256 bits (shift-subtract). */
static u128 mod256(u256 x, u128 d)
{
    u128 r = 0;
    for (int i = 255; i >= 0; i--) {
        bool carry = r >> 127;
        u128 bit = i >= 128 ? (x.hi >> (i - 128)) & 1 : (x.lo >> i) & 1;
        r = (r << 1) | bit;
        if (carry || r >= d)
            r -= d;
    }
    return r;
}

static u128 uabs(weir_i128 v) { return v < 0 ? (u128)0 - (u128)v : (u128)v; }

static bool finish(u128 mag, bool neg, weir_i128 *out)
{
    if (mag >> 127)
        return false;
    *out = neg ? -(weir_i128)mag : (weir_i128)mag;
    return true;
}

bool weir__dec_mul(weir_i128 a, weir_i128 b, int down, weir_i128 *out)
{
    bool neg = (a < 0) != (b < 0);
    u256 p = mul128(uabs(a), uabs(b));
    u128 q;
    if (down <= 0) {
        if (p.hi)
            return false;
        return finish(p.lo, neg, out);
    }
    while (down > 38) {
        /* 10^down passes 128 bits: divide in steps, truncating all but the
         * last (which then rounds HALF_UP correctly: the dropped digits only
         * add to a remainder that is already half or more, or stay below). */
        if (!div256(p, (u128)weir__pow10_128[38], false, &q))
            return false;
        p.hi = 0, p.lo = q;
        down -= 38;
    }
    if (!div256_round(p, (u128)weir__pow10_128[down], &q))
        return false;
    return finish(q, neg, out);
}

bool weir__dec_div(weir_i128 a, int up, weir_i128 b, weir_i128 *out)
{
    bool neg = (a < 0) != (b < 0);
    u256 x = {0, uabs(a)};
    while (up > 0) {
        int k = up > 38 ? 38 : up;
        if (!mul256(x, (u128)weir__pow10_128[k], &x))
            return false; /* the dividend passed 2^256, so the quotient passes 2^128 */
        up -= k;
    }
    u128 q;
    if (!div256_round(x, uabs(b), &q))
        return false;
    return finish(q, neg, out);
}

bool weir__dec_rescale(weir_i128 v, int from, int to, weir_i128 *out)
{
    if (to >= from)
        return weir__dec_div(v, to - from, 1, out);
    return weir__dec_mul(v, 1, from - to, out);
}

size_t weir__dec_format(weir_i128 v, int scale, char *buf)
{
    u128 mag = uabs(v);
    char digits[48];
    size_t nd = 0;
    do {
        digits[nd++] = (char)('0' + (int)(mag % 10));
        mag /= 10;
    } while (mag);
    if (scale > 0)
        while (nd <= (size_t)scale) /* at least one digit before the point */
            digits[nd++] = '0';
    size_t o = 0;
    if (v < 0)
        buf[o++] = '-';
    while (nd > (size_t)(scale > 0 ? scale : 0))
        buf[o++] = digits[--nd];
    if (scale > 0) {
        buf[o++] = '.';
        while (nd)
            buf[o++] = digits[--nd];
    }
    buf[o] = '\0';
    return o;
}

weir_i128 weir__dec_mod(weir_i128 a, int up, weir_i128 b)
{
    u256 x = {0, uabs(a)};
    if (up > 0)
        x = mul128(uabs(a), (u128)weir__pow10_128[up]);
    u128 r = mod256(x, uabs(b));
    return a < 0 ? -(weir_i128)r : (weir_i128)r;
}

double weir__dec_to_double(weir_i128 v, int scale)
{
    /* Both operands exact in a double (|v| <= 2^53, 10^scale up to 10^22): one rounding, the division's. */
    static const double p10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                   1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    if (v <= ((weir_i128)1 << 53) && v >= -((weir_i128)1 << 53) && scale <= 22)
        return (double)v / p10[scale];
    /* Else through the exact text, which strtod rounds once. */
    char text[48];
    weir__dec_format(v, scale, text);
    return weir__strtod_c(text, NULL);
}
