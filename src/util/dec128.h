/*
 * src/util/dec128.h - exact arithmetic on the unscaled values of DECIMAL(p, s)
 * with p up to 38.
 *
 * A DECIMAL of precision 19 to 38 is stored as a signed 128-bit integer
 * scaled by 10^s (one of precision 1 to 18 stays an int64, see pow10.h).
 * Products and scaled-up dividends need up to 256 bits, so multiplication and
 * division go through a 256-bit intermediate and round HALF_UP (away from
 * zero on a tie), as Java's BigDecimal does with RoundingMode.HALF_UP.
 * Functions return false when the exact result does not fit 127 bits; the
 * caller then checks the precision with weir__dec_fits().
 */
#ifndef WEIR_UTIL_DEC128_H
#define WEIR_UTIL_DEC128_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef __int128 weir_i128;

/* Largest DECIMAL precision. */
#define WEIR_DEC_MAX_PRECISION 38
/* Precisions up to this one are stored as int64. */
#define WEIR_DEC_NARROW_PRECISION 18

/* weir__pow10_128[i] = 10^i for 0 <= i <= 38. */
extern const weir_i128 weir__pow10_128[39];

/* A 128-bit value from / into two 64-bit halves (weir_value keeps 8-byte alignment). */
#define WEIR__I128_GET(h) ((weir_i128)(((unsigned __int128)(uint64_t)(h).hi << 64) | (h).lo))
#define WEIR__I128_SET(h, v) ((h).lo = (uint64_t)(v), (h).hi = (int64_t)((v) >> 64))

/* |v| < 10^p. */
static inline bool weir__dec_fits(weir_i128 v, int p)
{
    weir_i128 lim = weir__pow10_128[p];
    return v < lim && v > -lim;
}

/* v scaled from scale `from` to scale `to`, HALF_UP when digits drop. */
bool weir__dec_rescale(weir_i128 v, int from, int to, weir_i128 *out);
/* a * b / 10^down (down >= 0), HALF_UP. */
bool weir__dec_mul(weir_i128 a, weir_i128 b, int down, weir_i128 *out);
/* a * 10^up / b (up >= 0, b != 0), HALF_UP. */
bool weir__dec_div(weir_i128 a, int up, weir_i128 b, weir_i128 *out);
/* (a * 10^up) mod b with the sign of a (0 <= up <= 38, b != 0). */
weir_i128 weir__dec_mod(weir_i128 a, int up, weir_i128 b);
/* Plain text with exactly `scale` fraction digits ("-12.30"); buf needs 48 bytes. */
size_t weir__dec_format(weir_i128 v, int scale, char *buf);
/* The double nearest v / 10^scale (Java's BigDecimal.doubleValue). */
double weir__dec_to_double(weir_i128 v, int scale);

#endif
