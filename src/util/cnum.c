/*
 * util/cnum.c - numbers as text in the C locale: strtod_l, and printf
 * under uselocale (this thread only), with a C locale made once; the
 * plain calls if that locale could not be made.
 */
#include <locale.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/cnum.h"

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void init_c_locale(void) { c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0); }

double weir__strtod_c(const char *s, char **end)
{
    pthread_once(&c_locale_once, init_c_locale);
    if (c_locale)
        return strtod_l(s, end, c_locale);
    return strtod(s, end);
}

int weir__format_g17_c(char *buf, size_t cap, double v)
{
    pthread_once(&c_locale_once, init_c_locale);
    locale_t old = c_locale ? uselocale(c_locale) : (locale_t)0;
    int n = snprintf(buf, cap, "%.17g", v);
    if (c_locale)
        uselocale(old);
    return n;
}
