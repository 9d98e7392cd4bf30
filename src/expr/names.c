/*
 * expr/names.c - the names of the scalar functions, for SHOW FUNCTIONS.
 *
 * The function tables of each file hold operators and syntax forms
 * (`+`, `IS NULL`, `$FIELD`) beside the functions; a name callable as
 * f(...) is an identifier: a letter, then letters, digits and '_'. ITEM
 * (element access, `a[i]`) and the JSON_OBJECTAGG helpers are the planner's
 * own forms, not functions a query calls; AND, OR, NOT, IN, BETWEEN, LIKE
 * and OVERLAPS are operators.
 */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "expr/expr_internal.h"

static bool callable(const char *name)
{
    static const char *const internal[] = {"ITEM", "JSON_OBJECTAGG_ENTRY", "JSON_OBJECTAGG_OBJECT",
                                           /* operators written as words */
                                           "AND", "OR", "NOT", "IN", "BETWEEN", "LIKE", "OVERLAPS"};
    if (!isalpha((unsigned char)name[0]))
        return false;
    for (const char *p = name; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_')
            return false;
    for (size_t i = 0; i < sizeof internal / sizeof *internal; i++)
        if (!strcmp(name, internal[i]))
            return false;
    return true;
}

size_t weir_expr_builtin_names(const char **names, size_t cap)
{
    const xfunc *tables[] = {weir__funcs_core, weir__funcs_string, weir__funcs_regex, weir__funcs_math,
                             weir__funcs_time, weir__funcs_json,   weir__funcs_nested, weir__funcs_coll,
                             weir__funcs_text, weir__funcs_strx,   weir__funcs_hash,   weir__funcs_printf};
    size_t n = 0;
    for (size_t t = 0; t < sizeof tables / sizeof *tables; t++)
        for (const xfunc *f = tables[t]; f->name; f++) {
            if (!callable(f->name))
                continue;
            if (n < cap)
                names[n] = f->name;
            n++;
        }
    return n;
}

size_t weir_expr_udf_names(const char **names, size_t cap)
{
    /* how many there are, also when asked with cap 0 (SHOW FUNCTIONS sizes its array so) */
    uint32_t n = weir__udf_count();
    if (names && cap)
        weir__udf_names(names, cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap);
    return n;
}
