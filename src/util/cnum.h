/*
 * util/cnum.h - numbers as text in the C locale.
 *
 * A program that embeds weir may call setlocale(); where its LC_NUMERIC
 * writes the decimal point as ',', strtod would read "2.5" as 2 and
 * printf("%g") write 2.5 as "2,5". Every place weir reads a double from
 * text, or writes one through printf, goes through these instead.
 */
#ifndef WEIR_UTIL_CNUM_H
#define WEIR_UTIL_CNUM_H

#include <stddef.h>

/* strtod(s, end) as in the C locale, whatever the program's locale. */
double weir__strtod_c(const char *s, char **end);
/* snprintf(buf, cap, "%.17g", v) as in the C locale; returns snprintf's count. */
int weir__format_g17_c(char *buf, size_t cap, double v);

#endif
