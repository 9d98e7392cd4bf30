/*
 * util/strtod.h - strtod in the C locale.
 *
 * A program that embeds weir may call setlocale(); where its LC_NUMERIC
 * writes the decimal point as ',', strtod would read "2.5" as 2. Every
 * place weir reads a double from text goes through this instead.
 */
#ifndef WEIR_UTIL_STRTOD_H
#define WEIR_UTIL_STRTOD_H

/* strtod(s, end) as in the C locale, whatever the program's locale. */
double weir__strtod_c(const char *s, char **end);

#endif
