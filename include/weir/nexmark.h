/*
 * weir/nexmark.h - the Nexmark event generator ('connector' = 'nexmark').
 *
 * Nexmark models an online auction: people register, open auctions and bid.
 * The generator produces one stream of events numbered 0, 1, 2, ...; event
 * n is a pure function of (configuration, seed, n):
 * - its kind comes from n modulo the sum of the proportions (by default,
 *   in every block of 50 events: 1 person, then 3 auctions, then 46 bids);
 * - its timestamp is base_time + floor(n * 1000 / rate) for a constant rate
 *   (or the stepped rate curve of rate.shape when the two rates differ);
 * - its random fields come from a random stream seeded by (seed, n).
 * So the stream splits across parallel subtasks without coordination, and
 * the union of the parts is exactly the single-subtask stream.
 *
 * Tables. One source produces one of four tables ('nexmark.table'):
 * - "event" (default): the whole stream, flattened from the reference's
 *   event_type / person ROW / auction ROW / bid ROW shape into one wide row:
 *   event_type INT (0 person, 1 auction, 2 bid), person_<field>...,
 *   auction_<field>..., bid_<field>... (the columns of the other two kinds
 *   are NULL) and dateTime TIMESTAMP(3), the event time.
 * - "person", "auction", "bid": only events of that kind, with the column
 *   names of the reference's views. Events of other kinds are skipped
 *   without generating their fields, so "bid" is the fast path for the
 *   bid-only queries; it yields exactly the bid rows of "event".
 * The rows a source instance writes follow the schema it is given: columns
 * are matched by name (case-insensitive), so a declared table may list a
 * subset of the columns, in any order; a column that the generator does not
 * know, or declares an incompatible type, is an error at create time.
 *
 * Splits and positions. Split k of S (S = 'splits', default the source
 * parallelism) generates the event numbers n = k, k + S, k + 2S, ... so all
 * splits advance through event time together and watermarks progress.
 * Subtask i of p owns the splits k with k mod p == i. A split's position is
 * the next event number it will look at; opening at a position resumes
 * exactly.
 */
#ifndef WEIR_NEXMARK_H
#define WEIR_NEXMARK_H

#include "weir/clock.h"
#include "weir/source.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Ids start at these values, as in the reference, so small runs join. */
#define WEIR_NEXMARK_FIRST_PERSON_ID 1000
#define WEIR_NEXMARK_FIRST_AUCTION_ID 1000
#define WEIR_NEXMARK_FIRST_CATEGORY_ID 10
/* The reference benchmark's watermark: dateTime - INTERVAL '4' SECOND. */
#define WEIR_NEXMARK_WATERMARK_DELAY_MS 4000
/* The default base time: 2015-07-15 00:00:00 UTC. */
#define WEIR_NEXMARK_DEFAULT_BASE_TIME_MS INT64_C(1436918400000)

typedef enum weir_nexmark_table {
    WEIR_NEXMARK_TABLE_EVENT = 0, /* every event, one wide row */
    WEIR_NEXMARK_TABLE_PERSON = 1,
    WEIR_NEXMARK_TABLE_AUCTION = 2,
    WEIR_NEXMARK_TABLE_BID = 3,
} weir_nexmark_table;

/* Event kinds; the values are those of the event_type column. */
typedef enum weir_nexmark_kind {
    WEIR_NEXMARK_PERSON = 0,
    WEIR_NEXMARK_AUCTION = 1,
    WEIR_NEXMARK_BID = 2,
} weir_nexmark_kind;

typedef enum weir_nexmark_rate_shape {
    WEIR_NEXMARK_RATE_SQUARE = 0, /* alternate first and next rate */
    WEIR_NEXMARK_RATE_SINE = 1,   /* ten steps along a cosine between them */
} weir_nexmark_rate_shape;

/*
 * Configuration. weir_nexmark_config_init() sets the reference defaults;
 * the option name of each field is given in brackets.
 */
typedef struct weir_nexmark_config {
    weir_nexmark_table table; /* [nexmark.table] event|person|auction|bid */
    uint64_t seed;            /* [seed] */
    int64_t events_num;   /* [events.num] total over all splits; 0: unbounded */
    int64_t stop_at;      /* [stop-at] stop before this event number; -1: no */
    bool keep_alive;      /* [keep-alive] at the end, idle instead of EOF */
    int64_t base_time_ms; /* [base-time] timestamp of event 0 */
    uint32_t first_event_rate; /* [first-event.rate] events/s of event time */
    uint32_t next_event_rate;  /* [next-event.rate] */
    weir_nexmark_rate_shape
        rate_shape;         /* [rate.shape] used when the rates differ */
    uint32_t rate_period_s; /* [rate.period] one full cycle of the shape */
    /*
     * [max-emit-speed] = false or [rate.limited] = true: emit each event
     * when processing time (clock) reaches the wall-clock start plus its
     * event-time offset. Otherwise events come as fast as they are read.
     */
    bool rate_limited;
    weir_clock clock; /* used when rate_limited; now_ms NULL: system */
    uint32_t person_proportion;      /* [person.proportion] */
    uint32_t auction_proportion;     /* [auction.proportion] */
    uint32_t bid_proportion;         /* [bid.proportion] */
    uint32_t num_active_people;      /* [num.active.people] */
    uint32_t num_in_flight_auctions; /* [num.in.flight.auctions] */
    uint32_t hot_auction_ratio;      /* [bid.hot-ratio.auctions] */
    uint32_t hot_seller_ratio;       /* [auction.hot-ratio.sellers] */
    uint32_t hot_bidder_ratio;       /* [bid.hot-ratio.bidders] */
    uint32_t avg_person_bytes;       /* [person.avg-size] */
    uint32_t avg_auction_bytes;      /* [auction.avg-size] */
    uint32_t avg_bid_bytes;          /* [bid.avg-size] */
    uint32_t splits;                 /* [splits] 0: one per source subtask */
} weir_nexmark_config;

void weir_nexmark_config_init(weir_nexmark_config *c);
/*
 * Sets one option by name (the names above, plus aliases listed in
 * docs/nexmark.md). Unknown names and malformed values are WEIR_EINVAL with
 * a message naming the option. 'connector' and 'scan.*' keys are ignored:
 * they belong to the SQL layer and the runtime.
 */
int weir_nexmark_config_set(weir_nexmark_config *c, const char *key,
                            const char *value, weir_error *err);
/* weir_nexmark_config_init() followed by weir_nexmark_config_set() for each
 * pair, then validation. */
int weir_nexmark_config_from_options(weir_nexmark_config *c,
                                     const char *const *keys,
                                     const char *const *values, size_t n,
                                     weir_error *err);
int weir_nexmark_config_validate(const weir_nexmark_config *c, weir_error *err);

/* The default schema of a table (transferred to the caller), or NULL on
 * allocation failure. */
weir_schema *weir_nexmark_schema_create(weir_nexmark_table table);

/* The source class; its create() takes a weir_nexmark_source_arg as arg. */
extern const weir_source_class weir_nexmark_source_class;

typedef struct weir_nexmark_source_arg weir_nexmark_source_arg;
/* A validated copy of config (its clock included) and the table's default
 * schema. */
int weir_nexmark_source_arg_create(const weir_nexmark_config *config,
                                   weir_nexmark_source_arg **out,
                                   weir_error *err);
void weir_nexmark_source_arg_destroy(weir_nexmark_source_arg *arg);
/* The default schema of the arg's table; valid while arg lives. */
const weir_schema *
weir_nexmark_source_arg_schema(const weir_nexmark_source_arg *arg);

/*
 * Fills spec with the class, a new arg (spec->free_arg releases it, and with
 * it spec->schema) and the table's default schema. name is borrowed and must
 * outlive the spec. A caller with a declared table (the SQL layer) may point
 * spec->schema at that table's schema instead (it must outlive the job):
 * create() matches the columns by name and rejects unknown ones.
 */
int weir_nexmark_source_spec(const weir_nexmark_config *config,
                             const char *name, weir_source_spec *spec,
                             weir_error *err);
/*
 * The same from WITH options ('connector' = 'nexmark' and the rest). clock is
 * used when the options ask for rate limiting (NULL: the system clock).
 */
int weir_nexmark_source_spec_from_options(const char *const *keys,
                                          const char *const *values, size_t n,
                                          const weir_clock *clock,
                                          const char *name,
                                          weir_source_spec *spec,
                                          weir_error *err);

/*
 * Registers the scalar functions the Nexmark queries use (q14's
 * count_char(s, c): the number of bytes of s equal to the first byte of c;
 * 0 for a NULL s, NULL for a NULL or empty c) process-wide. Idempotent: a
 * name already registered is left as it is. The SQL layer calls it when it
 * plans a 'connector' = 'nexmark' table.
 */
int weir_nexmark_register_udfs(weir_error *err);

/*
 * Direct access to the generator, for tests that compute expected results
 * independently of the source, and for tools.
 */
typedef struct weir_nexmark_person {
    int64_t id;
    const char *name, *email_address, *credit_card, *city, *state, *extra;
    uint32_t name_len, email_address_len, credit_card_len, city_len, state_len,
        extra_len;
    int64_t date_time_ms;
} weir_nexmark_person;

typedef struct weir_nexmark_auction {
    int64_t id;
    const char *item_name, *description, *extra;
    uint32_t item_name_len, description_len, extra_len;
    int64_t initial_bid, reserve;
    int64_t date_time_ms, expires_ms;
    int64_t seller, category;
} weir_nexmark_auction;

typedef struct weir_nexmark_bid {
    int64_t auction, bidder, price;
    const char *channel, *url, *extra;
    uint32_t channel_len, url_len, extra_len;
    int64_t date_time_ms;
} weir_nexmark_bid;

/*
 * One generated event. String fields point into static tables or into the
 * event's own buffer: valid until the event is generated into again.
 */
typedef struct weir_nexmark_event {
    uint64_t number;
    weir_nexmark_kind kind;
    int64_t ts_ms;
    union {
        weir_nexmark_person person;
        weir_nexmark_auction auction;
        weir_nexmark_bid bid;
    } u;
    char buf_[256]; /* internal: person and auction strings */
} weir_nexmark_event;

/* An immutable generator; safe to share between threads. */
typedef struct weir_nexmark_gen weir_nexmark_gen;
int weir_nexmark_gen_create(const weir_nexmark_config *config,
                            weir_nexmark_gen **out, weir_error *err);
void weir_nexmark_gen_destroy(weir_nexmark_gen *g);
weir_nexmark_kind weir_nexmark_gen_kind(const weir_nexmark_gen *g, uint64_t n);
int64_t weir_nexmark_gen_timestamp(const weir_nexmark_gen *g, uint64_t n);
void weir_nexmark_gen_event(const weir_nexmark_gen *g, uint64_t n,
                            weir_nexmark_event *ev);
/*
 * The size of an event in the reference's accounting (8 bytes per number,
 * string bytes, as its generators count them when sizing `extra`): its mean
 * is near the configured avg size of the kind.
 */
uint32_t weir_nexmark_event_size(const weir_nexmark_event *ev);

#ifdef __cplusplus
}
#endif
#endif
