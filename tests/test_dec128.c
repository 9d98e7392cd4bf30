/*
 * tests/test_dec128.c - 128-bit DECIMAL arithmetic (src/util/dec128.c).
 *
 * The expected values come from Python's decimal module (HALF_UP on the
 * exact product or quotient); the randomized comparison over whole jobs is
 * tests/decimal_diff.py.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "util/dec128.h"

static weir_i128 num(const char *s)
{
    bool neg = *s == '-';
    s += neg;
    weir_i128 v = 0;
    while (*s)
        v = v * 10 + (*s++ - '0');
    return neg ? -v : v;
}

static const char *text(weir_i128 v, int scale)
{
    static char buf[4][48];
    static int k;
    char *b = buf[k++ & 3];
    weir__dec_format(v, scale, b);
    return b;
}

static const char *mul(const char *a, const char *b, int down)
{
    weir_i128 r;
    return weir__dec_mul(num(a), num(b), down, &r) ? text(r, 0) : "overflow";
}

Test(dec128, mul_rounds_half_up_once_past_38_dropped_digits)
{
    /* A product divided by 10^39 in two steps must not round twice. */
    cr_assert_str_eq(mul("79535261459717254", "-382276661860795686574635806", 39), "-30404");
    cr_assert_str_eq(mul("-46901557652212896", "4659882076968661044980775373901169", 39), "-218555727885");
    cr_assert_str_eq(mul("78219255747985177281416101029490908658", "-91512830", 39), "-7158065");
    cr_assert_str_eq(mul("-78758613917968", "-7840237334620699742524318371", 39), "617");
    cr_assert_str_eq(mul("99999999999999999999999999999999999999", "99999999999999999999999999999999999999", 70),
                     "1000000");
    cr_assert_str_eq(mul("99999999999999999999999999999999999999", "99999999999999999999999999999999999999", 0),
                     "overflow");
    cr_assert_str_eq(mul("-5", "1", 1), "-1"); /* -0.5 rounds away from zero */
}

Test(dec128, div_and_mod_use_256_bits)
{
    weir_i128 r;
    cr_assert(weir__dec_div(num("-70000000000000000000000000000000000000"), 0, 3, &r));
    cr_assert_str_eq(text(r, 0), "-23333333333333333333333333333333333333");
    cr_assert(weir__dec_div(1, 76, num("99999999999999999999999999999999999999"), &r));
    cr_assert_str_eq(text(r, 0), "100000000000000000000000000000000000001");
    cr_assert_not(weir__dec_div(num("99999999999999999999999999999999999999"), 38, 1, &r));
    cr_assert_str_eq(text(weir__dec_mod(num("-7"), 38, 3), 0), "-1"); /* -7e38 mod 3, sign of the dividend */
    cr_assert_str_eq(text(num("-5"), 3), "-0.005");
    cr_assert_str_eq(text(0, 2), "0.00");
}
