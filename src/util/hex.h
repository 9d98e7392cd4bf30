/*
 * src/util/hex.h - the value of a hexadecimal digit, for the decoders that
 * read escapes (JSON's \uXXXX, partition folder names' %XX).
 */
#ifndef WEIR_UTIL_HEX_H
#define WEIR_UTIL_HEX_H

/* 0-15 for a hexadecimal digit (either case), -1 for anything else. */
static inline int weir__hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

#endif
