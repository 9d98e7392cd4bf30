/*
 * util/strtod.c - strtod in the C locale (strtod_l with a C locale made
 * once; plain strtod if that locale could not be made).
 */
#include <locale.h>
#include <pthread.h>
#include <stdlib.h>

#include "util/strtod.h"

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
