/* Reads lines "d:HEX" and prints weir's text of each double as Java would:
 * Double.toString, then PRINTF's %e, %.3e, %.17e, %.1e, %.0e, '|'-separated. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/convert.h"
#include "weir/expr.h"

/* PRINTF of literals folds into a literal when it is built */
static void printf_text(weir_expr_arena *a, double v, char *out, size_t cap)
{
    weir_error err = {0};
    weir_expr *args[6] = {weir_expr_lit_string(a, "%e|%.3e|%.17e|%.1e|%.0e", 23)};
    for (int i = 1; i < 6; i++)
        args[i] = weir_expr_lit_double(a, v);
    weir_expr *call = NULL;
    weir_value r;
    if (weir_expr_call(a, "PRINTF", args, 6, &call, &err) || weir_expr_literal_value(call, &r)) {
        snprintf(out, cap, "error: %s", err.message);
        return;
    }
    snprintf(out, cap, "%.*s", (int)r.v.s.len, r.v.s.ptr);
}

int main(void)
{
    char line[64], buf[32], pf[256];
    while (fgets(line, sizeof line, stdin)) {
        uint64_t b = strtoull(line + 2, NULL, 16);
        double v;
        memcpy(&v, &b, 8);
        weir_expr_arena *a = weir_expr_arena_create();
        weir__fmt_format_f64_java(v, buf);
        printf_text(a, v, pf, sizeof pf);
        printf("%s|%s\n", buf, pf);
        weir_expr_arena_destroy(a);
    }
    return 0;
}
