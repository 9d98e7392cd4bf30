/*
 * expr/types.c - typing rules: implicit casts, common types, DECIMAL
 * precision/scale derivation.
 *
 * DECIMAL rules follow Flink (LogicalTypeMerging): when a derived
 * precision exceeds 38, the integral digits are kept and the scale is
 * reduced, but never below min(scale, 6). INT counts as DECIMAL(10, 0) and BIGINT as DECIMAL(19, 0),
 * as in Flink.
 */
#include <stdio.h>

#include "expr/expr_internal.h"
#include "record/nested.h"

#define MAXP WEIR_DEC_MAX_PRECISION

bool weir__is_exact(weir_type_id id)
{
    return id == WEIR_TYPE_INT || id == WEIR_TYPE_BIGINT || id == WEIR_TYPE_DECIMAL;
}

void weir__dec_ps(weir_type t, int *p, int *s)
{
    switch (t.id) {
    case WEIR_TYPE_INT: *p = 10, *s = 0; break;
    case WEIR_TYPE_BIGINT: *p = 19, *s = 0; break;
    default: *p = t.precision, *s = t.scale;
    }
}

weir_type weir__dec_adjust(int p, int s, bool nullable)
{
    if (p <= MAXP) {
        if (p < 1)
            p = 1;
        if (s > p)
            p = s;
        return weir_type_decimal((uint8_t)p, (uint8_t)s, nullable);
    }
    int digits = p - s;
    int min_scale = s < 6 ? s : 6;
    int adj = MAXP - digits > min_scale ? MAXP - digits : min_scale;
    return weir_type_decimal(MAXP, (uint8_t)adj, nullable);
}

bool weir__type_eq(weir_type a, weir_type b) { return weir_type_same(a, b); }

static int num_rank(weir_type_id id)
{
    switch (id) {
    case WEIR_TYPE_INT: return 1;
    case WEIR_TYPE_BIGINT: return 2;
    case WEIR_TYPE_DECIMAL: return 3;
    case WEIR_TYPE_DOUBLE: return 4;
    default: return 0;
    }
}

bool weir__implicit_ok(const weir_expr *from, weir_type to)
{
    weir_type f = from->type;
    if (f.id == WEIR_TYPE_NULL)
        return true;
    if (from->iv != WEIR_INTERVAL_NONE)
        return false;
    if (f.id == to.id)
        return !weir_type_is_nested(f.id) || weir_nv_type_compatible(f, to);
    int rf = num_rank(f.id), rt = num_rank(to.id);
    if (rf && rt)
        return rf < rt;
    if (weir_type_is_time(f.id) && weir_type_is_time(to.id))
        return true;
    /* A DATE widens to its midnight; a TIME(p) to a TIME of more digits. */
    if (f.id == WEIR_TYPE_DATE && weir_type_is_time(to.id))
        return true;
    if (f.id == WEIR_TYPE_TIME && to.id == WEIR_TYPE_TIME)
        return f.precision <= to.precision;
    /* A string literal where a date or time is expected: parsed at plan time. */
    if (f.id == WEIR_TYPE_STRING && from->kind == N_LITERAL &&
        (weir_type_is_time(to.id) || weir_type_is_date_time(to.id)))
        return true;
    return false;
}

/*
 * The numeric type ta and tb both widen to; false when one is not numeric.
 * DECIMALs keep the integral digits of both. Past 38 digits, keep_digits
 * (Calcite's leastRestrictive, Flink's rule for set operations, CASE,
 * COALESCE, ...) cuts the scale, down to 0 if need be, so that every value
 * of both still fits; otherwise the scale is kept to min(scale, 6) and the
 * integral digits cut (weir__dec_adjust): IN (weir__compare_type) must not
 * round.
 */
static bool numeric_common(weir_type ta, weir_type tb, bool keep_digits, weir_type *out)
{
    int ra = num_rank(ta.id), rb = num_rank(tb.id);
    if (!ra || !rb)
        return false;
    bool nullable = ta.nullable || tb.nullable;
    if (ra == 4 || rb == 4) {
        *out = tmake(WEIR_TYPE_DOUBLE, nullable);
    } else if (ra == 3 || rb == 3) {
        int p1, s1, p2, s2;
        weir__dec_ps(ta, &p1, &s1);
        weir__dec_ps(tb, &p2, &s2);
        int d = p1 - s1 > p2 - s2 ? p1 - s1 : p2 - s2;
        int s = s1 > s2 ? s1 : s2;
        if (keep_digits && d + s > MAXP)
            s = MAXP - d;
        *out = weir__dec_adjust(d + s, s, nullable);
    } else {
        *out = tmake(ra > rb ? ta.id : tb.id, nullable);
    }
    return true;
}

bool weir_type_numeric_common(weir_type ta, weir_type tb, weir_type *out)
{
    return numeric_common(ta, tb, true, out);
}

/* weir__common_type (compare false) and weir__compare_type (true). */
static bool common_type(const weir_expr *a, const weir_expr *b, bool compare, weir_type *out)
{
    weir_type ta = a->type, tb = b->type;
    bool nullable = ta.nullable || tb.nullable;
    if (a->iv != b->iv && ta.id != WEIR_TYPE_NULL && tb.id != WEIR_TYPE_NULL)
        return false;
    if (ta.id == WEIR_TYPE_NULL) {
        *out = tb;
        out->nullable = true;
        return true;
    }
    if (tb.id == WEIR_TYPE_NULL) {
        *out = ta;
        out->nullable = true;
        return true;
    }
    if (ta.id == WEIR_TYPE_TIME && tb.id == WEIR_TYPE_TIME) {
        *out = ta.precision >= tb.precision ? ta : tb;
        out->nullable = nullable;
        return true;
    }
    if (ta.id == tb.id && ta.id != WEIR_TYPE_DECIMAL) {
        if (weir_type_nested_id(ta) != weir_type_nested_id(tb)) {
            /* nested types that differ only in nullability inside: the all-nullable one */
            if (!weir_nv_type_compatible(ta, tb) || weir_nv_type_relax(ta, out))
                return false;
            out->nullable = nullable;
            return true;
        }
        *out = ta;
        out->nullable = nullable;
        return true;
    }
    if (numeric_common(ta, tb, !compare, out))
        return true;
    if (weir_type_is_time(ta.id) && weir_type_is_time(tb.id)) {
        *out = tmake(WEIR_TYPE_TIMESTAMP_LTZ, nullable);
        return true;
    }
    /* DATE against a timestamp: the date's midnight */
    if ((ta.id == WEIR_TYPE_DATE && weir_type_is_time(tb.id)) || (tb.id == WEIR_TYPE_DATE && weir_type_is_time(ta.id))) {
        *out = tmake(ta.id == WEIR_TYPE_DATE ? tb.id : ta.id, nullable);
        return true;
    }
    /* a string literal next to a timestamp, DATE or TIME: read as one */
    if ((weir_type_is_time(ta.id) || weir_type_is_date_time(ta.id)) && tb.id == WEIR_TYPE_STRING && b->kind == N_LITERAL) {
        *out = ta;
        out->nullable = nullable;
        return true;
    }
    if ((weir_type_is_time(tb.id) || weir_type_is_date_time(tb.id)) && ta.id == WEIR_TYPE_STRING && a->kind == N_LITERAL) {
        *out = tb;
        out->nullable = nullable;
        return true;
    }
    return false;
}

bool weir__common_type(const weir_expr *a, const weir_expr *b, weir_type *out)
{
    return common_type(a, b, false, out);
}

bool weir__compare_type(const weir_expr *a, const weir_expr *b, weir_type *out)
{
    return common_type(a, b, true, out);
}

const char *weir_expr_type_name(weir_type t, weir_interval_kind iv, char *buf, size_t cap)
{
    if (iv == WEIR_INTERVAL_DAY_TIME)
        snprintf(buf, cap, "INTERVAL DAY TO SECOND");
    else if (iv == WEIR_INTERVAL_YEAR_MONTH)
        snprintf(buf, cap, "INTERVAL YEAR TO MONTH");
    else if (t.id == WEIR_TYPE_DECIMAL)
        snprintf(buf, cap, "DECIMAL(%u, %u)", t.precision, t.scale);
    else if (weir_type_is_time(t.id))
        snprintf(buf, cap, "%s(3)", weir_type_name(t.id));
    else if (t.id == WEIR_TYPE_TIME)
        snprintf(buf, cap, "TIME(%u)", t.precision);
    else if (weir_type_is_nested(t.id))
        weir_type_format((weir_type){t.id, t.precision, t.scale, true}, buf, cap);
    else
        snprintf(buf, cap, "%s", weir_type_name(t.id));
    return buf;
}

const char *weir__tname(const weir_expr *e, char *buf, size_t cap)
{
    return weir_expr_type_name(e->type, (weir_interval_kind)e->iv, buf, cap);
}
