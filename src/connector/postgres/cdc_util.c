/*
 * connector/postgres/cdc_util.c - what the postgres-cdc source and the jdbc
 * lookup share beyond the connection options: connections from a conninfo
 * string (replication ones included), LSN text, and PostgreSQL's text form
 * of a value into a batch column.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "connector/postgres/cdc_internal.h"
#include "format/convert.h"
#include "time/timefmt.h"
#include "util/hex.h"

int weir__pg_connect_conninfo(const char *conninfo, bool replication,
                     const char *app, PGconn **out, weir_error *err)
{
    const char *keys[5], *vals[5];
    int n = 0;
    keys[n] = "dbname";
    vals[n++] = conninfo;
    keys[n] = "options";
    vals[n++] = "-c TimeZone=UTC -c DateStyle=ISO -c extra_float_digits=3";
    if (replication) {
        keys[n] = "replication";
        vals[n++] = "database";
    }
    if (app) {
        keys[n] = "application_name";
        vals[n++] = app;
    }
    keys[n] = NULL;
    vals[n] = NULL;
    /* expand_dbname: conninfo's own settings come first, ours are added. */
    PGconn *c = PQconnectdbParams(keys, vals, 1);
    if (!c)
        return weir_error_set(err, WEIR_ENOMEM, "out of memory");
    if (PQstatus(c) != CONNECTION_OK) {
        weir_error_set(err, WEIR_EIO, "cannot connect to PostgreSQL: %s",
                       PQerrorMessage(c));
        PQfinish(c);
        return WEIR_EIO;
    }
    *out = c;
    return 0;
}

int weir__pg_parse_lsn(const char *s, uint64_t *out)
{
    unsigned hi, lo;
    int n = 0;
    if (!s || sscanf(s, "%X/%X%n", &hi, &lo, &n) != 2 || s[n])
        return WEIR_EPARSE;
    *out = ((uint64_t)hi << 32) | lo;
    return 0;
}

void weir__pg_format_lsn(uint64_t lsn, char buf[32])
{
    snprintf(buf, 32, "%X/%X", (unsigned)(lsn >> 32), (unsigned)lsn);
}

/* Stores PostgreSQL's text form of a value into (col, row). */
int weir__pg_text_to_col(weir_batch *b, uint32_t col, uint32_t row,
                         const char *p, size_t n)
{
    const weir_type *ty = &b->cols[col].type;
    int rc = 0;
    switch (ty->id) {
    case WEIR_TYPE_BOOLEAN:
        if (n == 1 && (p[0] == 't' || p[0] == 'f'))
            WEIR_COL_BOOL(b, col)[row] = p[0] == 't';
        else
            rc = weir__fmt_parse_bool(p, n, &WEIR_COL_BOOL(b, col)[row]);
        break;
    case WEIR_TYPE_INT:
        rc = weir__fmt_parse_i32(p, n, &WEIR_COL_I32(b, col)[row]);
        break;
    case WEIR_TYPE_BIGINT:
        rc = weir__fmt_parse_i64(p, n, &WEIR_COL_I64(b, col)[row]);
        break;
    case WEIR_TYPE_DOUBLE:
        rc = weir__fmt_parse_f64(p, n, &WEIR_COL_F64(b, col)[row]);
        break;
    case WEIR_TYPE_DECIMAL:
        rc = weir__fmt_parse_decimal_at(p, n, *ty, b->cols[col].data, row);
        break;
    case WEIR_TYPE_STRING:
        rc = weir_batch_set_str(b, col, row, p, n);
        break;
    case WEIR_TYPE_BYTES: {
        /* bytea's hex output: \x0a1b... */
        if (n < 2 || p[0] != '\\' || p[1] != 'x' || (n & 1)) {
            rc = WEIR_EPARSE;
            break;
        }
        char *dst;
        weir_strref ref;
        size_t m = (n - 2) / 2;
        if ((rc = weir_batch_heap_alloc(b, m, &dst, &ref)))
            break;
        for (size_t i = 0; i < m && !rc; i++) {
            int hi = weir__hex_value(p[2 + 2 * i]), lo = weir__hex_value(p[3 + 2 * i]);
            if (hi < 0 || lo < 0)
                rc = WEIR_EPARSE;
            else
                dst[i] = (char)(hi << 4 | lo);
        }
        WEIR_COL_STR(b, col)[row] = ref;
        break;
    }
    case WEIR_TYPE_TIMESTAMP:
    case WEIR_TYPE_TIMESTAMP_LTZ: {
        /* timestamptz in a UTC session ends with "+00" */
        if (n > 3 && p[n - 3] == '+' && p[n - 2] == '0' && p[n - 1] == '0')
            n -= 3;
        size_t bad;
        rc = weir__parse_ts(p, n, &WEIR_COL_I64(b, col)[row], &bad);
        break;
    }
    case WEIR_TYPE_DATE: /* date in the ISO DateStyle: yyyy-mm-dd */
        rc = weir__fmt_parse_date(p, n, &WEIR_COL_I32(b, col)[row]);
        break;
    case WEIR_TYPE_TIME: /* time: HH:MM:SS[.ffffff], kept to the precision */
        rc = weir__fmt_parse_time(p, n, ty->precision, &WEIR_COL_I32(b, col)[row]);
        break;
    default:
        rc = WEIR_EUNSUPPORTED;
    }
    return rc;
}
