/*
 * connector/nexmark/options.c - the generator's configuration: defaults,
 * validation and WITH-option parsing.
 *
 * Option names are the reference connector's where it has them
 * ('events.num', 'first-event.rate', 'bid.hot-ratio.auctions',
 * 'person.avg-size', ...). Options the reference keeps only in its Java
 * configuration get names after its fields ('num.active.people'), and a few
 * aliases spelled after those fields are accepted too. Values are parsed
 * strictly: a number with trailing junk is an error, not a prefix.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "connector/nexmark/gen.h"
#include "time/timefmt.h"

void weir_nexmark_config_init(weir_nexmark_config *c)
{
    memset(c, 0, sizeof *c);
    c->table = WEIR_NEXMARK_TABLE_EVENT;
    c->seed = 0;
    c->events_num = 0;
    c->stop_at = -1;
    c->keep_alive = false;
    c->base_time_ms = WEIR_NEXMARK_DEFAULT_BASE_TIME_MS;
    c->first_event_rate = 10000;
    c->next_event_rate = 10000;
    c->rate_shape = WEIR_NEXMARK_RATE_SQUARE;
    c->rate_period_s = 600;
    c->rate_limited = false;
    c->person_proportion = 1;
    c->auction_proportion = 3;
    c->bid_proportion = 46;
    c->num_active_people = 1000;
    c->num_in_flight_auctions = 100;
    c->hot_auction_ratio = 2;
    c->hot_seller_ratio = 4;
    c->hot_bidder_ratio = 4;
    c->avg_person_bytes = 200;
    c->avg_auction_bytes = 500;
    c->avg_bid_bytes = 100;
    c->splits = 0;
}

/* Largest proportion accepted: keeps every sum and product in range. */
#define MAX_PROPORTION 1000000u
#define MAX_SPLITS 65536u
/* Base times beyond about +-290 million years would overflow ms arithmetic. */
#define MAX_ABS_BASE_TIME_MS (INT64_C(1) << 53)

int weir_nexmark_config_validate(const weir_nexmark_config *c, weir_error *err)
{
    if ((unsigned)c->table > WEIR_NEXMARK_TABLE_BID)
        return weir_error_set(err, WEIR_EINVAL, "nexmark: unknown table %d",
                              (int)c->table);
    if (c->person_proportion > MAX_PROPORTION ||
        c->auction_proportion > MAX_PROPORTION ||
        c->bid_proportion > MAX_PROPORTION)
        return weir_error_set(err, WEIR_EINVAL,
                              "nexmark: proportions must be at most %u",
                              MAX_PROPORTION);
    if ((uint64_t)c->person_proportion + c->auction_proportion +
            c->bid_proportion ==
        0)
        return weir_error_set(err, WEIR_EINVAL,
                              "nexmark: person.proportion + auction.proportion "
                              "+ bid.proportion must be > 0");
    if (c->first_event_rate == 0 || c->next_event_rate == 0)
        return weir_error_set(
            err, WEIR_EINVAL,
            "nexmark: first-event.rate and next-event.rate must be > 0");
    if ((unsigned)c->rate_shape > WEIR_NEXMARK_RATE_SINE)
        return weir_error_set(err, WEIR_EINVAL,
                              "nexmark: unknown rate.shape %d",
                              (int)c->rate_shape);
    if (c->first_event_rate != c->next_event_rate && c->rate_period_s == 0)
        return weir_error_set(err, WEIR_EINVAL,
                              "nexmark: rate.period must be at least 1 s when "
                              "first-event.rate != next-event.rate");
    if (c->num_active_people == 0 || c->num_in_flight_auctions == 0)
        return weir_error_set(err, WEIR_EINVAL,
                              "nexmark: num.active.people and "
                              "num.in.flight.auctions must be > 0");
    if (c->hot_auction_ratio == 0 || c->hot_seller_ratio == 0 ||
        c->hot_bidder_ratio == 0)
        return weir_error_set(err, WEIR_EINVAL,
                              "nexmark: hot ratios must be >= 1");
    if (c->avg_person_bytes > NX_MAX_AVG_BYTES ||
        c->avg_auction_bytes > NX_MAX_AVG_BYTES ||
        c->avg_bid_bytes > NX_MAX_AVG_BYTES)
        return weir_error_set(
            err, WEIR_EINVAL,
            "nexmark: average event sizes must be at most %u bytes",
            NX_MAX_AVG_BYTES);
    if (c->events_num < 0)
        return weir_error_set(err, WEIR_EINVAL,
                              "nexmark: events.num must be >= 0");
    if (c->stop_at < -1)
        return weir_error_set(err, WEIR_EINVAL,
                              "nexmark: stop-at must be >= 0, or -1 for none");
    if (c->splits > MAX_SPLITS)
        return weir_error_set(err, WEIR_EINVAL,
                              "nexmark: splits must be at most %u", MAX_SPLITS);
    if (c->base_time_ms > MAX_ABS_BASE_TIME_MS ||
        c->base_time_ms < -MAX_ABS_BASE_TIME_MS)
        return weir_error_set(err, WEIR_EINVAL,
                              "nexmark: base-time %" PRId64 " is out of range",
                              c->base_time_ms);
    return 0;
}

/* ---- value parsers ------------------------------------------------------- */

/* Trims ASCII blanks; returns the trimmed span. */
static const char *trim(const char *s, size_t *len)
{
    size_t n = strlen(s);
    while (n && isspace((unsigned char)*s)) {
        s++;
        n--;
    }
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    *len = n;
    return s;
}

/* Parses the decimal integer at the start of s[0..len); sets *used to the
 * digits consumed. */
static int parse_leading_int(const char *s, size_t len, int64_t *out,
                             size_t *used)
{
    size_t i = 0;
    bool neg = false;
    if (i < len && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    if (i == len || !isdigit((unsigned char)s[i]))
        return WEIR_EINVAL;
    uint64_t v = 0;
    for (; i < len && isdigit((unsigned char)s[i]); i++) {
        uint64_t d = (uint64_t)(s[i] - '0');
        if (v > (UINT64_C(1) << 63) / 10 ||
            v * 10 + d > (UINT64_C(1) << 63) - (neg ? 0 : 1))
            return WEIR_EINVAL;
        v = v * 10 + d;
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    *used = i;
    return 0;
}

static int parse_int(const char *key, const char *value, int64_t lo, int64_t hi,
                     int64_t *out, weir_error *err)
{
    size_t len, used;
    const char *s = trim(value, &len);
    int64_t v;
    if (parse_leading_int(s, len, &v, &used) || used != len)
        return weir_error_set(
            err, WEIR_EINVAL,
            "nexmark option '%s': expected an integer, got '%s'", key, value);
    if (v < lo || v > hi)
        return weir_error_set(err, WEIR_EINVAL,
                              "nexmark option '%s': %" PRId64
                              " is out of range [%" PRId64 ", %" PRId64 "]",
                              key, v, lo, hi);
    *out = v;
    return 0;
}

static int parse_u32(const char *key, const char *value, uint32_t lo,
                     uint32_t *out, weir_error *err)
{
    int64_t v;
    int rc = parse_int(key, value, lo, UINT32_MAX, &v, err);
    if (rc == 0)
        *out = (uint32_t)v;
    return rc;
}

static int parse_bool(const char *key, const char *value, bool *out,
                      weir_error *err)
{
    size_t len;
    const char *s = trim(value, &len);
    if (len == 4 && strncasecmp(s, "true", 4) == 0)
        *out = true;
    else if (len == 5 && strncasecmp(s, "false", 5) == 0)
        *out = false;
    else
        return weir_error_set(
            err, WEIR_EINVAL,
            "nexmark option '%s': expected true or false, got '%s'", key,
            value);
    return 0;
}

typedef struct unit {
    const char *name;
    int64_t factor;
} unit;

/* Parses "<integer> [unit]" with the unit from units (case-insensitive); no
 * unit means factor 1. */
static int parse_with_unit(const char *key, const char *value,
                           const unit *units, const char *what, int64_t *out,
                           weir_error *err)
{
    size_t len, used;
    const char *s = trim(value, &len);
    int64_t v;
    if (parse_leading_int(s, len, &v, &used) || v < 0)
        goto bad;
    const char *u = s + used;
    size_t ulen = len - used;
    while (ulen && isspace((unsigned char)*u)) {
        u++;
        ulen--;
    }
    int64_t factor = 1;
    if (ulen) {
        const unit *m = NULL;
        for (const unit *x = units; x->name; x++)
            if (strlen(x->name) == ulen && strncasecmp(x->name, u, ulen) == 0)
                m = x;
        if (!m)
            goto bad;
        factor = m->factor;
    }
    if (v > INT64_MAX / factor)
        goto bad;
    *out = v * factor;
    return 0;
bad:
    return weir_error_set(err, WEIR_EINVAL,
                          "nexmark option '%s': expected %s, got '%s'", key,
                          what, value);
}

/* Memory sizes as Flink writes them: "200b", "1 kb", "2mb" (binary multiples).
 */
static int parse_bytes(const char *key, const char *value, uint32_t *out,
                       weir_error *err)
{
    static const unit units[] = {
        {"b", 1},        {"bytes", 1},           {"k", 1024},
        {"kb", 1024},    {"kibibytes", 1024},    {"m", 1 << 20},
        {"mb", 1 << 20}, {"mebibytes", 1 << 20}, {NULL, 0}};
    int64_t v;
    int rc = parse_with_unit(key, value, units,
                             "a size such as '100b' or '1kb'", &v, err);
    if (rc)
        return rc;
    if (v > NX_MAX_AVG_BYTES)
        return weir_error_set(err, WEIR_EINVAL,
                              "nexmark option '%s': %" PRId64
                              " bytes is more than the %u allowed",
                              key, v, NX_MAX_AVG_BYTES);
    *out = (uint32_t)v;
    return 0;
}

/* Durations as Flink writes them ("600 s", "10min"); a bare number is
 * milliseconds, as in Flink. */
static int parse_duration_ms(const char *key, const char *value, int64_t *out,
                             weir_error *err)
{
    static const unit units[] = {
        {"ms", 1},          {"milli", 1},        {"millis", 1},
        {"millisecond", 1}, {"milliseconds", 1}, {"s", 1000},
        {"sec", 1000},      {"secs", 1000},      {"second", 1000},
        {"seconds", 1000},  {"min", 60000},      {"m", 60000},
        {"minute", 60000},  {"minutes", 60000},  {"h", 3600000},
        {"hour", 3600000},  {"hours", 3600000},  {"d", 86400000},
        {"day", 86400000},  {"days", 86400000},  {NULL, 0}};
    return parse_with_unit(key, value, units,
                           "a duration such as '600 s' or '10 min'", out, err);
}

/* ---- the option table ---------------------------------------------------- */

typedef enum opt_id {
    OPT_TABLE,
    OPT_SEED,
    OPT_EVENTS_NUM,
    OPT_STOP_AT,
    OPT_KEEP_ALIVE,
    OPT_BASE_TIME,
    OPT_FIRST_RATE,
    OPT_NEXT_RATE,
    OPT_RATE_SHAPE,
    OPT_RATE_PERIOD,
    OPT_RATE_LIMITED,
    OPT_MAX_EMIT_SPEED,
    OPT_PERSON_PROP,
    OPT_AUCTION_PROP,
    OPT_BID_PROP,
    OPT_ACTIVE_PEOPLE,
    OPT_IN_FLIGHT,
    OPT_HOT_AUCTIONS,
    OPT_HOT_SELLERS,
    OPT_HOT_BIDDERS,
    OPT_PERSON_SIZE,
    OPT_AUCTION_SIZE,
    OPT_BID_SIZE,
    OPT_SPLITS,
} opt_id;

typedef struct opt_name {
    const char *name;
    opt_id id;
} opt_name;

static const opt_name k_options[] = {
    {"nexmark.table", OPT_TABLE},
    {"seed", OPT_SEED},
    {"events.num", OPT_EVENTS_NUM},
    {"stop-at", OPT_STOP_AT},
    {"keep-alive", OPT_KEEP_ALIVE},
    {"base-time", OPT_BASE_TIME},
    {"first-event.rate", OPT_FIRST_RATE},
    {"next-event.rate", OPT_NEXT_RATE},
    {"rate.shape", OPT_RATE_SHAPE},
    {"rate.period", OPT_RATE_PERIOD},
    {"rate.limited", OPT_RATE_LIMITED},
    {"max-emit-speed", OPT_MAX_EMIT_SPEED},
    {"person.proportion", OPT_PERSON_PROP},
    {"auction.proportion", OPT_AUCTION_PROP},
    {"bid.proportion", OPT_BID_PROP},
    {"num.active.people", OPT_ACTIVE_PEOPLE},
    {"num.in.flight.auctions", OPT_IN_FLIGHT},
    {"bid.hot-ratio.auctions", OPT_HOT_AUCTIONS},
    {"hot.auction.ratio", OPT_HOT_AUCTIONS},
    {"auction.hot-ratio.sellers", OPT_HOT_SELLERS},
    {"hot.seller.ratio", OPT_HOT_SELLERS},
    {"hot.sellers.ratio", OPT_HOT_SELLERS},
    {"bid.hot-ratio.bidders", OPT_HOT_BIDDERS},
    {"hot.bidder.ratio", OPT_HOT_BIDDERS},
    {"hot.bidders.ratio", OPT_HOT_BIDDERS},
    {"person.avg-size", OPT_PERSON_SIZE},
    {"avg.person.byte.size", OPT_PERSON_SIZE},
    {"auction.avg-size", OPT_AUCTION_SIZE},
    {"avg.auction.byte.size", OPT_AUCTION_SIZE},
    {"bid.avg-size", OPT_BID_SIZE},
    {"avg.bid.byte.size", OPT_BID_SIZE},
    {"splits", OPT_SPLITS},
};

static int set_option(weir_nexmark_config *c, opt_id id, const char *key,
                      const char *value, weir_error *err)
{
    int64_t v = 0;
    int rc = 0;
    size_t len;
    const char *s;
    switch (id) {
    case OPT_TABLE:
        s = trim(value, &len);
        if (len == 5 && strncasecmp(s, "event", 5) == 0)
            c->table = WEIR_NEXMARK_TABLE_EVENT;
        else if (len == 6 && strncasecmp(s, "person", 6) == 0)
            c->table = WEIR_NEXMARK_TABLE_PERSON;
        else if (len == 7 && strncasecmp(s, "auction", 7) == 0)
            c->table = WEIR_NEXMARK_TABLE_AUCTION;
        else if (len == 3 && strncasecmp(s, "bid", 3) == 0)
            c->table = WEIR_NEXMARK_TABLE_BID;
        else
            return weir_error_set(err, WEIR_EINVAL,
                                  "nexmark option '%s': expected event, "
                                  "person, auction or bid, got '%s'",
                                  key, value);
        return 0;
    case OPT_SEED:
        rc = parse_int(key, value, INT64_MIN, INT64_MAX, &v, err);
        c->seed = (uint64_t)v;
        break;
    case OPT_EVENTS_NUM:
        rc = parse_int(key, value, 0, INT64_MAX, &c->events_num, err);
        break;
    case OPT_STOP_AT:
        rc = parse_int(key, value, -1, INT64_MAX, &c->stop_at, err);
        break;
    case OPT_KEEP_ALIVE:
        rc = parse_bool(key, value, &c->keep_alive, err);
        break;
    case OPT_BASE_TIME: {
        size_t used, bad_at = 0;
        s = trim(value, &len);
        if (parse_leading_int(s, len, &v, &used) == 0 && used == len) {
            c->base_time_ms = v;
        } else if (weir__parse_ts(s, len, &c->base_time_ms, &bad_at) != 0) {
            return weir_error_set(
                err, WEIR_EINVAL,
                "nexmark option '%s': expected epoch milliseconds or "
                "'yyyy-MM-dd HH:mm:ss[.SSS]', "
                "got '%s' (bad at offset %zu)",
                key, value, bad_at);
        }
        return 0;
    }
    case OPT_FIRST_RATE:
        return parse_u32(key, value, 1, &c->first_event_rate, err);
    case OPT_NEXT_RATE:
        return parse_u32(key, value, 1, &c->next_event_rate, err);
    case OPT_RATE_SHAPE:
        s = trim(value, &len);
        if (len == 6 && strncasecmp(s, "square", 6) == 0)
            c->rate_shape = WEIR_NEXMARK_RATE_SQUARE;
        else if (len == 4 && strncasecmp(s, "sine", 4) == 0)
            c->rate_shape = WEIR_NEXMARK_RATE_SINE;
        else
            return weir_error_set(
                err, WEIR_EINVAL,
                "nexmark option '%s': expected SQUARE or SINE, got '%s'", key,
                value);
        return 0;
    case OPT_RATE_PERIOD:
        rc = parse_duration_ms(key, value, &v, err);
        if (rc == 0) {
            if (v / 1000 > UINT32_MAX)
                return weir_error_set(err, WEIR_EINVAL,
                                      "nexmark option '%s': '%s' is too long",
                                      key, value);
            c->rate_period_s = (uint32_t)(v / 1000);
        }
        break;
    case OPT_RATE_LIMITED:
        return parse_bool(key, value, &c->rate_limited, err);
    case OPT_MAX_EMIT_SPEED: {
        bool max_speed;
        rc = parse_bool(key, value, &max_speed, err);
        if (rc == 0)
            c->rate_limited = !max_speed;
        break;
    }
    case OPT_PERSON_PROP:
        return parse_u32(key, value, 0, &c->person_proportion, err);
    case OPT_AUCTION_PROP:
        return parse_u32(key, value, 0, &c->auction_proportion, err);
    case OPT_BID_PROP:
        return parse_u32(key, value, 0, &c->bid_proportion, err);
    case OPT_ACTIVE_PEOPLE:
        return parse_u32(key, value, 1, &c->num_active_people, err);
    case OPT_IN_FLIGHT:
        return parse_u32(key, value, 1, &c->num_in_flight_auctions, err);
    case OPT_HOT_AUCTIONS:
        return parse_u32(key, value, 1, &c->hot_auction_ratio, err);
    case OPT_HOT_SELLERS:
        return parse_u32(key, value, 1, &c->hot_seller_ratio, err);
    case OPT_HOT_BIDDERS:
        return parse_u32(key, value, 1, &c->hot_bidder_ratio, err);
    case OPT_PERSON_SIZE:
        return parse_bytes(key, value, &c->avg_person_bytes, err);
    case OPT_AUCTION_SIZE:
        return parse_bytes(key, value, &c->avg_auction_bytes, err);
    case OPT_BID_SIZE:
        return parse_bytes(key, value, &c->avg_bid_bytes, err);
    case OPT_SPLITS:
        rc = parse_int(key, value, 0, MAX_SPLITS, &v, err);
        c->splits = (uint32_t)v;
        break;
    }
    return rc;
}

int weir_nexmark_config_set(weir_nexmark_config *c, const char *key,
                            const char *value, weir_error *err)
{
    if (!c || !key || !value)
        return weir_error_set(err, WEIR_EINVAL, "nexmark: NULL option");
    if (strcasecmp(key, "connector") == 0 || strncasecmp(key, "scan.", 5) == 0)
        return 0;
    for (size_t i = 0; i < sizeof k_options / sizeof k_options[0]; i++)
        if (strcasecmp(key, k_options[i].name) == 0)
            return set_option(c, k_options[i].id, key, value, err);
    return weir_error_set(
        err, WEIR_EINVAL,
        "nexmark: unknown option '%s' (see docs/nexmark.md for the options)",
        key);
}

int weir_nexmark_config_from_options(weir_nexmark_config *c,
                                     const char *const *keys,
                                     const char *const *values, size_t n,
                                     weir_error *err)
{
    weir_nexmark_config_init(c);
    for (size_t i = 0; i < n; i++) {
        int rc = weir_nexmark_config_set(c, keys[i], values[i], err);
        if (rc)
            return rc;
    }
    return weir_nexmark_config_validate(c, err);
}
