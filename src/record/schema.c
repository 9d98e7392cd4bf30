/* record/schema.c - logical types and schemas. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "record/nested.h"
#include "weir/schema.h"

/* The exported forms of the header's inline helpers (the parentheses keep
 * the header's macros from expanding the names). */
size_t(weir_type_width)(weir_type_id id) { return weir__type_width_inline(id); }
size_t(weir_type_size)(weir_type t) { return weir__type_size_inline(t); }

weir_type weir_type_make(weir_type_id id, bool nullable)
{
    weir_type t = {id, 0, 0, nullable};
    if (id == WEIR_TYPE_TIMESTAMP || id == WEIR_TYPE_TIMESTAMP_LTZ)
        t.precision = 3;
    if (id == WEIR_TYPE_DECIMAL)
        t.precision = 18;
    return t;
}

weir_type weir_type_decimal(uint8_t precision, uint8_t scale, bool nullable)
{
    return (weir_type){WEIR_TYPE_DECIMAL, precision, scale, nullable};
}

const char *weir_type_name(weir_type_id id)
{
    switch (id) {
    case WEIR_TYPE_BOOLEAN: return "BOOLEAN";
    case WEIR_TYPE_INT: return "INT";
    case WEIR_TYPE_BIGINT: return "BIGINT";
    case WEIR_TYPE_DOUBLE: return "DOUBLE";
    case WEIR_TYPE_DECIMAL: return "DECIMAL";
    case WEIR_TYPE_STRING: return "STRING";
    case WEIR_TYPE_BYTES: return "BYTES";
    case WEIR_TYPE_TIMESTAMP: return "TIMESTAMP";
    case WEIR_TYPE_TIMESTAMP_LTZ: return "TIMESTAMP_LTZ";
    case WEIR_TYPE_NULL: return "NULL";
    case WEIR_TYPE_ARRAY: return "ARRAY";
    case WEIR_TYPE_MAP: return "MAP";
    case WEIR_TYPE_MULTISET: return "MULTISET";
    case WEIR_TYPE_ROW: return "ROW";
    case WEIR_TYPE_DATE: return "DATE";
    case WEIR_TYPE_TIME: return "TIME";
    }
    return "?";
}

char *weir_type_format(weir_type t, char *buf, size_t cap)
{
    const char *nn = t.nullable ? "" : " NOT NULL";
    switch (t.id) {
    case WEIR_TYPE_DECIMAL:
        snprintf(buf, cap, "DECIMAL(%u, %u)%s", t.precision, t.scale, nn);
        break;
    case WEIR_TYPE_BIGINT:
        /* An interval column shows the one type Flink keeps for its kind,
         * whatever qualifier was declared: its planner maps every day-time
         * qualifier to INTERVAL SECOND(3) and every year-month one to
         * INTERVAL MONTH, so DESCRIBE there shows these. */
        snprintf(buf, cap, "%s%s",
                 weir_type_interval(t) == 1   ? "INTERVAL SECOND(3)"
                 : weir_type_interval(t) == 2 ? "INTERVAL MONTH"
                                              : "BIGINT",
                 nn);
        break;
    case WEIR_TYPE_TIMESTAMP:
    case WEIR_TYPE_TIMESTAMP_LTZ:
    case WEIR_TYPE_TIME:
        snprintf(buf, cap, "%s(%u)%s", weir_type_name(t.id), t.precision, nn);
        break;
    case WEIR_TYPE_ARRAY:
    case WEIR_TYPE_MAP:
    case WEIR_TYPE_MULTISET:
    case WEIR_TYPE_ROW:
        weir__nested_format_type(t, buf, cap);
        break;
    default:
        snprintf(buf, cap, "%s%s", weir_type_name(t.id), nn);
    }
    return buf;
}

bool weir_type_is_string(weir_type_id id) { return id == WEIR_TYPE_STRING || id == WEIR_TYPE_BYTES; }

bool weir_type_is_numeric(weir_type_id id)
{
    return id == WEIR_TYPE_INT || id == WEIR_TYPE_BIGINT || id == WEIR_TYPE_DOUBLE || id == WEIR_TYPE_DECIMAL;
}

bool weir_type_is_time(weir_type_id id) { return id == WEIR_TYPE_TIMESTAMP || id == WEIR_TYPE_TIMESTAMP_LTZ; }

bool weir_type_same(weir_type a, weir_type b)
{
    if (a.id != b.id)
        return false;
    if (a.id == WEIR_TYPE_DECIMAL)
        return a.precision == b.precision && a.scale == b.scale;
    return a.precision == b.precision && a.scale == b.scale; /* nested: the descriptor */
}

weir_schema *weir_schema_create(void)
{
    weir_schema *s = weir_calloc(1, sizeof *s);
    if (s)
        s->rowtime = -1;
    return s;
}

void weir_schema_destroy(weir_schema *s)
{
    if (!s)
        return;
    for (uint32_t i = 0; i < s->n_fields; i++)
        weir_free(s->fields[i].name);
    weir_free(s->fields);
    weir_free(s);
}

int weir_schema_add(weir_schema *s, const char *name, weir_type type)
{
    if (!s || !name)
        return WEIR_EINVAL;
    if (s->n_fields == s->cap_) {
        uint32_t cap = s->cap_ ? s->cap_ * 2 : 8;
        weir_field *f = weir_realloc(s->fields, cap * sizeof *f);
        if (!f)
            return WEIR_ENOMEM;
        s->fields = f;
        s->cap_ = cap;
    }
    char *n = weir_strdup(name);
    if (!n)
        return WEIR_ENOMEM;
    s->fields[s->n_fields] = (weir_field){n, type};
    return (int)s->n_fields++;
}

int weir_schema_find(const weir_schema *s, const char *name)
{
    for (uint32_t i = 0; i < s->n_fields; i++)
        if (strcasecmp(s->fields[i].name, name) == 0)
            return (int)i;
    return -1;
}

weir_schema *weir_schema_copy(const weir_schema *s)
{
    weir_schema *c = weir_schema_create();
    if (!c)
        return NULL;
    for (uint32_t i = 0; i < s->n_fields; i++) {
        if (weir_schema_add(c, s->fields[i].name, s->fields[i].type) < 0) {
            weir_schema_destroy(c);
            return NULL;
        }
    }
    c->rowtime = s->rowtime;
    return c;
}

bool weir_schema_equal(const weir_schema *a, const weir_schema *b)
{
    if (a->n_fields != b->n_fields || a->rowtime != b->rowtime)
        return false;
    for (uint32_t i = 0; i < a->n_fields; i++) {
        const weir_type *x = &a->fields[i].type, *y = &b->fields[i].type;
        if (strcmp(a->fields[i].name, b->fields[i].name) != 0 || x->id != y->id ||
            x->precision != y->precision || x->scale != y->scale || x->nullable != y->nullable)
            return false;
    }
    return true;
}
