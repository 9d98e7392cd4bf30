/*
 * window/spec.c - window specs: defaults, validation against the input
 * schema, and the output and late-record schemas.
 */
#include <stdio.h>

#include "window/window_internal.h"

void weir_window_spec_init(weir_window_spec *spec)
{
    memset(spec, 0, sizeof *spec);
    spec->assigner.kind = WEIR_WINDOW_TUMBLING;
    spec->trigger.kind = WEIR_TRIGGER_DEFAULT;
    spec->time_domain = WEIR_TIME_EVENT;
    spec->accumulation = WEIR_ACC_ACCUMULATING;
}

int weir_window_spec_check(const weir_window_spec *spec, const weir_schema *in, weir_error *err)
{
    if (!spec || !in)
        return weir_error_set(err, WEIR_EINVAL, "window: missing spec or input schema");
    int rc = weir_window_assigner_check(&spec->assigner, err);
    if (rc)
        return rc;
    if (spec->key.n > WEIR_KEY_MAX_COLS)
        return weir_error_set(err, WEIR_EINVAL, "window: %u key columns (at most %d)", spec->key.n,
                              WEIR_KEY_MAX_COLS);
    for (uint32_t k = 0; k < spec->key.n; k++)
        if (spec->key.cols[k] >= in->n_fields)
            return weir_error_set(err, WEIR_EINVAL, "window: key column %u of a %u-column input",
                                  spec->key.cols[k], in->n_fields);
    if (spec->n_aggs && !spec->aggs)
        return weir_error_set(err, WEIR_EINVAL, "window: %u aggregates but no array", spec->n_aggs);
    for (uint32_t i = 0; i < spec->n_aggs; i++) {
        const weir_agg *a = &spec->aggs[i];
        if (!a->cls)
            return weir_error_set(err, WEIR_EINVAL, "window: aggregate %u is not bound", i);
        if (a->input_col >= 0 && (uint32_t)a->input_col >= in->n_fields)
            return weir_error_set(err, WEIR_EINVAL, "window: aggregate %u reads column %d of a %u-column input",
                                  i, a->input_col, in->n_fields);
    }
    if (spec->allowed_lateness_ms < 0)
        return weir_error_set(err, WEIR_EINVAL, "window: allowed lateness must not be negative (got %" PRId64 " ms)",
                              spec->allowed_lateness_ms);
    const weir_window_trigger *t = &spec->trigger;
    if ((unsigned)t->kind > WEIR_TRIGGER_NEVER)
        return weir_error_set(err, WEIR_EINVAL, "window: unknown trigger kind %d", (int)t->kind);
    if (t->kind == WEIR_TRIGGER_COUNT && t->count == 0)
        return weir_error_set(err, WEIR_EINVAL, "window: a count trigger needs a count of at least 1");
    if (t->early_interval_ms < 0 || t->late_interval_ms < 0)
        return weir_error_set(err, WEIR_EINVAL, "window: early and late firing intervals must not be negative");
    bool early = t->early_interval_ms > 0 || t->early_count > 0;
    weir_trigger_kind base = t->kind;
    if (base == WEIR_TRIGGER_DEFAULT)
        base = spec->assigner.kind == WEIR_WINDOW_GLOBAL ? WEIR_TRIGGER_NEVER : WEIR_TRIGGER_EVENT_TIME;
    if (early && base != WEIR_TRIGGER_EVENT_TIME && base != WEIR_TRIGGER_NEVER)
        return weir_error_set(err, WEIR_EINVAL,
                              "window: early firings combine with the event-time trigger only "
                              "(count and processing-time triggers fire by themselves)");
    if ((unsigned)spec->accumulation > WEIR_ACC_RETRACTING)
        return weir_error_set(err, WEIR_EINVAL, "window: unknown accumulation mode %d", (int)spec->accumulation);
    if (t->purging && spec->accumulation == WEIR_ACC_RETRACTING)
        return weir_error_set(err, WEIR_EINVAL,
                              "window: a purging trigger cannot retract its previous results "
                              "(use discarding or accumulating mode)");
    if (spec->time_domain == WEIR_TIME_PROCESSING) {
        if (spec->allowed_lateness_ms > 0 || early || t->late_interval_ms > 0)
            return weir_error_set(err, WEIR_EINVAL,
                                  "window: processing-time windows have no lateness and no early or late firings");
        if (base == WEIR_TRIGGER_PROCESSING_TIME)
            return weir_error_set(err, WEIR_EINVAL,
                                  "window: processing-time windows fire by the processing-time clock "
                                  "already; leave the trigger as DEFAULT");
    } else if (spec->time_domain != WEIR_TIME_EVENT) {
        return weir_error_set(err, WEIR_EINVAL, "window: unknown time domain %d", (int)spec->time_domain);
    }
    return 0;
}

static int add_field(weir_schema *s, const char *name, weir_type t, weir_error *err)
{
    if (weir_schema_find(s, name) >= 0)
        return weir_error_set(err, WEIR_EINVAL, "window: output column \"%s\" appears twice", name);
    int rc = weir_schema_add(s, name, t);
    if (rc < 0)
        return weir_error_set(err, rc, "window: cannot add output column \"%s\"", name);
    return rc;
}

static weir_type ts3(bool nullable)
{
    weir_type t = weir_type_make(WEIR_TYPE_TIMESTAMP, nullable);
    t.precision = 3;
    return t;
}

int weir_window_output_schema(const weir_window_spec *spec, const weir_schema *in, weir_schema **out,
                              weir_error *err)
{
    *out = NULL;
    int rc = weir_window_spec_check(spec, in, err);
    if (rc)
        return rc;
    weir_schema *s = weir_schema_create();
    if (!s)
        return weir_error_set(err, WEIR_ENOMEM, "window: out of memory");
    bool global = spec->assigner.kind == WEIR_WINDOW_GLOBAL;
    for (uint32_t k = 0; k < spec->key.n && !(rc < 0); k++) {
        const weir_field *f = &in->fields[spec->key.cols[k]];
        rc = add_field(s, f->name, f->type, err);
    }
    if (rc >= 0)
        rc = add_field(s, "window_start", ts3(global), err);
    if (rc >= 0)
        rc = add_field(s, "window_end", ts3(global), err);
    if (rc >= 0 && spec->window_time) {
        rc = add_field(s, "window_time", ts3(global), err);
        if (rc >= 0)
            s->rowtime = rc;
    }
    for (uint32_t i = 0; i < spec->n_aggs && rc >= 0; i++) {
        char name[32];
        const char *nm = spec->agg_names && spec->agg_names[i] ? spec->agg_names[i] : NULL;
        if (!nm) {
            snprintf(name, sizeof name, "agg%u", i);
            nm = name;
        }
        rc = add_field(s, nm, spec->aggs[i].result_type, err);
    }
    if (rc < 0) {
        weir_schema_destroy(s);
        return rc;
    }
    *out = s;
    return 0;
}

int weir_window_late_schema(const weir_schema *in, weir_schema **out)
{
    *out = NULL;
    weir_schema *s = weir_schema_copy(in);
    if (!s)
        return WEIR_ENOMEM;
    if (weir_schema_add(s, "watermark", ts3(false)) < 0 ||
        weir_schema_add(s, "lateness_ms", weir_type_make(WEIR_TYPE_BIGINT, false)) < 0) {
        weir_schema_destroy(s);
        return WEIR_ENOMEM;
    }
    *out = s;
    return 0;
}
