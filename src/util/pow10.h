/*
 * src/util/pow10.h - powers of ten for DECIMAL values.
 *
 * A DECIMAL(p, s) is stored as an int64 scaled by 10^s (p <= 18), so the
 * expression and aggregate code rescale with this one table.
 */
#ifndef WEIR_UTIL_POW10_H
#define WEIR_UTIL_POW10_H

#include <stdint.h>

/* weir__pow10[i] = 10^i for 0 <= i <= 18. */
extern const int64_t weir__pow10[19];

#endif
