/*
 * connector/nexmark/gen.h - the Nexmark generator core, shared by the
 * public generator API (gen.c) and the source (source.c).
 *
 * Invariants:
 * - Event n depends only on the generator's configuration, its seed and n.
 *   Its random draws come from one splitmix64 stream whose state starts at
 *   mix64(n ^ seed_key); mix64 is a bijection, so no two events share a
 *   starting state.
 * - The static tables (the `extra` pool, channel names and URLs) are filled
 *   once per process from a fixed seed and are read-only afterwards.
 * - Bids are generated here, inline, because the bid table is the hot path;
 *   people and auctions (8% of events by default) live in gen.c.
 */
#ifndef WEIR_NEXMARK_GEN_H
#define WEIR_NEXMARK_GEN_H

#include <math.h>

#include "weir/nexmark.h"

/* Size of the shared pool that `extra` strings are sliced from. */
#define NX_POOL_BYTES (1u << 20)
/* Zero bytes after the pool: a reader may copy this many bytes from any
 * `extra` of at most that length without a length-dependent loop. */
#define NX_POOL_PAD 96u
/* Largest avg size accepted, so that every `extra` fits in half the pool. */
#define NX_MAX_AVG_BYTES (256u * 1024u)
#define NX_NUM_CHANNELS 10000u
#define NX_NUM_HOT_CHANNELS 4u
/* Hot ids are the first of each block of this many recent ids. */
#define NX_HOT_BLOCK 100
/* How many not-yet-created people/auctions a random pick may reach ahead. */
#define NX_ID_LEAD 10
#define NX_NUM_CATEGORIES 5
#define NX_MAX_STEPS 10

/*
 * A channel's slot in chan_text: its name's length, its URL's length, then
 * the name and the URL back to back. A fixed-size slot at c * NX_CHAN_SLOT
 * lets a reader prefetch channel c's text from c alone, and the lengths
 * ride in the text's first cache line (the text is too big for L1/L2 to
 * keep, so each bid's channel is a miss unless prefetched).
 *
 * The longest text: "channel-9999" (12 bytes; the hot names are shorter)
 * and a URL of "https://www.nexmark.com/" (24), three directories of at
 * most 4 characters and a '/' (15), "item.htm?query=1" (16),
 * "&channel_id=" (12) and an id of at most 10 digits.
 */
#define NX_CHAN_TEXT_MAX (12u + 24u + 3u * 5u + 16u + 12u + 10u)
#define NX_CHAN_SLOT 96u
_Static_assert(2 + NX_CHAN_TEXT_MAX <= NX_CHAN_SLOT,
               "a channel's lengths and text fit its slot");

/* Channels 0 .. NX_NUM_CHANNELS-1 are "channel-<i>"; the hot ones follow. */
#define NX_HOT_CHANNEL_BASE NX_NUM_CHANNELS
#define NX_ALL_CHANNELS (NX_NUM_CHANNELS + NX_NUM_HOT_CHANNELS)

typedef struct nx_tables {
    /* pow10[256 * j + i] = 10^(6 * i / 256^(j+1)), times 100 for j = 0. */
    double pow10[1024];
    /* Line-aligned, so a slot spans two known lines (nx_prefetch_chan). */
    _Alignas(64) char chan_text[NX_ALL_CHANNELS * NX_CHAN_SLOT];
    char pool[NX_POOL_BYTES + NX_POOL_PAD]; /* the pad stays zero */
} nx_tables;

/* The process-wide tables; valid after weir__nexmark_tables_init(). */
extern nx_tables weir__nexmark_tables;
void weir__nexmark_tables_init(void);

struct weir_nexmark_gen {
    weir_nexmark_config cfg;
    uint64_t seed_key;
    int64_t total; /* sum of the proportions */
    int64_t person_prop;
    int64_t auction_prop;
    /* Event-time curve: steps of constant rate, repeated every epoch. */
    uint32_t n_steps;
    uint64_t rate[NX_MAX_STEPS];        /* events per second in each step */
    uint64_t step_events[NX_MAX_STEPS]; /* events in each step */
    uint64_t epoch_events;
    int64_t step_ms;
    /* Events until num_in_flight_auctions more auctions have been created. */
    uint64_t auction_horizon_events;
    /* A bid's `extra` length: bid_extra_min + [0, bid_extra_span). */
    uint32_t bid_extra_min, bid_extra_span;
};

/* splitmix64's finaliser: a bijection on 64-bit values. */
static inline uint64_t nx_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

typedef struct nx_rng {
    uint64_t s;
} nx_rng;

static inline uint64_t nx_next(nx_rng *r)
{
    r->s += UINT64_C(0x9e3779b97f4a7c15);
    return nx_mix64(r->s);
}

/* Uniform in [0, bound) for 0 < bound <= 2^32 (multiply-shift; bias < bound /
 * 2^32). */
static inline uint32_t nx_int(nx_rng *r, uint64_t bound)
{
    return (uint32_t)(((nx_next(r) >> 32) * bound) >> 32);
}

/* Uniform in [0, bound) from the high or the low 32 bits of a draw. */
static inline uint32_t nx_hi(uint64_t d, uint64_t bound)
{
    return (uint32_t)(((d >> 32) * bound) >> 32);
}
static inline uint32_t nx_lo(uint64_t d, uint64_t bound)
{
    return (uint32_t)(((d & 0xffffffffu) * bound) >> 32);
}

/* Uniform in [0, bound), bound > 0. */
static inline uint64_t nx_long(nx_rng *r, uint64_t bound)
{
    if (bound <= (UINT64_C(1) << 32))
        return nx_int(r, bound);
    return nx_next(r) % bound;
}

static inline nx_rng nx_rng_for(const weir_nexmark_gen *g, uint64_t n)
{
    nx_rng r = {nx_mix64(n ^ g->seed_key)};
    return r;
}

/*
 * Log-uniform price in cents between 100 ($1) and 10^8 ($1M): 100 * 10^(6u)
 * for u uniform in [0, 1) with 32 bits, as a product of four table entries
 * (one per byte of u), so no libm call is on the per-bid path.
 */
static inline int64_t nx_price_from(uint32_t u)
{
    const double *t = weir__nexmark_tables.pow10;
    double v = t[u >> 24] * t[256 + ((u >> 16) & 255)] *
               t[512 + ((u >> 8) & 255)] * t[768 + (u & 255)];
    return (int64_t)(v + 0.5);
}

static inline int64_t nx_price(nx_rng *r)
{
    return nx_price_from((uint32_t)(nx_next(r) >> 32));
}

/*
 * The newest person id (base 0) at event (epoch, off): the event's own id if
 * it is a person, else the last person created before it. -1 if none.
 */
static inline int64_t nx_last_person(const weir_nexmark_gen *g, int64_t epoch,
                                     int64_t off)
{
    if (off >= g->person_prop)
        off = g->person_prop - 1;
    return epoch * g->person_prop + off;
}

/* The newest auction id (base 0) at event (epoch, off), as nx_last_person. */
static inline int64_t nx_last_auction(const weir_nexmark_gen *g, int64_t epoch,
                                      int64_t off)
{
    if (off < g->person_prop) {
        epoch--;
        off = g->auction_prop - 1;
    } else if (off >= g->person_prop + g->auction_prop) {
        off = g->auction_prop - 1;
    } else {
        off -= g->person_prop;
    }
    return epoch * g->auction_prop + off;
}

/* A random person (base 0) among the active ones, or a few ahead of them. */
static inline int64_t nx_pick_person(const weir_nexmark_gen *g, nx_rng *r,
                                     int64_t last_person)
{
    int64_t num = last_person + 1;
    int64_t active = num < (int64_t)g->cfg.num_active_people
                         ? num
                         : (int64_t)g->cfg.num_active_people;
    return num - active + (int64_t)nx_long(r, (uint64_t)(active + NX_ID_LEAD));
}

/*
 * The lengths of an `extra` string that brings an event of current_size
 * bytes to avg bytes on average, uniform within +-20%: min + [0, span).
 */
static inline void nx_extra_range(uint32_t current_size, uint32_t avg,
                                  uint32_t *min, uint32_t *span)
{
    *min = *span = 0;
    if (current_size <= avg) {
        uint32_t want = avg - current_size;
        uint32_t delta = (2 * want + 5) / 10; /* round(want * 0.2) */
        *min = want - delta;
        *span = 2 * delta;
    }
}

/* The `extra` of length min + [0, span) that draw d picks: its high half
 * the length, its low half where in the pool. */
static inline uint32_t nx_extra_drawn(uint64_t d, uint32_t min, uint32_t span,
                                      const char **out)
{
    uint32_t len = min + (span ? nx_hi(d, span) : 0);
    *out = weir__nexmark_tables.pool + nx_lo(d, NX_POOL_BYTES - len);
    return len;
}

/* Length and offset in the pool of such an `extra`, from the next draw. */
static inline uint32_t nx_extra(nx_rng *r, uint32_t current_size, uint32_t avg,
                                const char **out)
{
    uint32_t min, span;
    nx_extra_range(current_size, avg, &min, &span);
    return nx_extra_drawn(nx_next(r), min, span, out);
}

/* Bids count their four numbers (auction, bidder, price, dateTime) toward avg
 * size. */
#define NX_BID_FIXED_BYTES 32u

/* a if m is all ones, b if m is zero: a select without a branch. */
static inline uint64_t nx_sel(uint64_t m, uint64_t a, uint64_t b)
{
    return (a & m) | (b & ~m);
}

/* nx_long's value from a draw d already taken. */
static inline uint64_t nx_long_of(uint64_t d, uint64_t bound)
{
    if (bound <= (UINT64_C(1) << 32))
        return nx_hi(d, bound);
    return d % bound;
}

/*
 * What a bid's auction and bidder depend on besides its draws: the newest
 * auction and person ids are the same for every bid of one epoch, so a
 * reader computes this once per epoch.
 */
typedef struct nx_bid_base {
    int64_t epoch;
    uint64_t hot_auction, auction_lo, auction_bound;
    uint64_t hot_bidder, bidder_lo, bidder_bound;
} nx_bid_base;

static inline void nx_bid_base_of(const weir_nexmark_gen *g, int64_t epoch,
                                  nx_bid_base *bb)
{
    /* Any bid's offset: the newest ids are the same for all of them. */
    int64_t off = g->person_prop + g->auction_prop;
    int64_t last_auction = nx_last_auction(g, epoch, off);
    int64_t lo = last_auction - (int64_t)g->cfg.num_in_flight_auctions;
    if (lo < 0)
        lo = 0;
    bb->epoch = epoch;
    bb->hot_auction = (uint64_t)((last_auction / NX_HOT_BLOCK) * NX_HOT_BLOCK);
    bb->auction_lo = (uint64_t)lo;
    bb->auction_bound = (uint64_t)(last_auction - lo + 1 + NX_ID_LEAD);
    int64_t last_person = nx_last_person(g, epoch, off);
    int64_t num = last_person + 1;
    int64_t active = num < (int64_t)g->cfg.num_active_people
                         ? num
                         : (int64_t)g->cfg.num_active_people;
    /* The second person of the block, so hot bidders and hot sellers differ. */
    bb->hot_bidder =
        (uint64_t)((last_person / NX_HOT_BLOCK) * NX_HOT_BLOCK + 1);
    bb->bidder_lo = (uint64_t)(num - active);
    bb->bidder_bound = (uint64_t)(active + NX_ID_LEAD);
}

/*
 * How far into a bid's draws a reader goes: the fields it wants decide it.
 * Each depth takes one more draw and yields the fields of the depths
 * before it too; a field's value never depends on the depth, only on
 * whether it is computed (the draws are a pure function of the event
 * number).
 */
typedef enum nx_bid_depth {
    NX_BID_AUCTION = 1, /* auction and dateTime (draws 1 and 2) */
    NX_BID_BIDDER,      /* + bidder (draw 3) */
    NX_BID_PRICE,       /* + price and channel (draw 4) */
    NX_BID_ALL,         /* + extra (draw 5) */
} nx_bid_depth;

/*
 * Generates bid event n (of bb's epoch), at ts_ms, all but its channel and
 * url: returns the channel's index in the tables, for nx_bid_set_channel().
 * (Reading the channel is a cache miss that a reader not wanting those
 * columns skips.) Fields past `depth` are zero (extra: empty), and so is the
 * returned channel below NX_BID_PRICE; a caller passes a constant depth,
 * so the draws it does not need are not computed.
 *
 * The draws are those of the sequential form: draw 1 decides both hot
 * choices; a non-hot auction takes the next draw, then a non-hot bidder the
 * next; the price and channel take the next, `extra` the one after. The
 * hot choices are coin flips a branch would mispredict, so every draw a bid
 * may need (the stream's next five, or fewer by depth) is computed and the
 * ones used are selected with masks: the same values, no data-dependent
 * branch.
 */
__attribute__((always_inline)) static inline uint32_t
nx_gen_bid_drawn(const weir_nexmark_gen *g, const nx_bid_base *bb, uint64_t n,
                 int64_t ts_ms, weir_nexmark_bid *b, nx_bid_depth depth)
{
    const uint64_t step = UINT64_C(0x9e3779b97f4a7c15);
    uint64_t s = nx_rng_for(g, n).s;
    uint64_t d1 = nx_mix64(s + step);
    uint64_t d2 = nx_mix64(s + 2 * step);
    uint64_t d3 = depth >= NX_BID_BIDDER ? nx_mix64(s + 3 * step) : 0;
    uint64_t d4 = depth >= NX_BID_PRICE ? nx_mix64(s + 4 * step) : 0;
    uint64_t d5 = depth >= NX_BID_ALL ? nx_mix64(s + 5 * step) : 0;

    /* All ones where the auction (bidder) is a hot one. */
    uint64_t hot_a = -(uint64_t)(nx_hi(d1, g->cfg.hot_auction_ratio) > 0);
    uint64_t hot_b = -(uint64_t)(nx_lo(d1, g->cfg.hot_bidder_ratio) > 0);

    uint64_t picked_a = bb->auction_lo + nx_long_of(d2, bb->auction_bound);
    b->auction = (int64_t)nx_sel(hot_a, bb->hot_auction, picked_a) +
                 WEIR_NEXMARK_FIRST_AUCTION_ID;
    b->date_time_ms = ts_ms;
    b->bidder = b->price = 0;
    b->extra = weir__nexmark_tables.pool;
    b->extra_len = 0;
    if (depth < NX_BID_BIDDER)
        return 0;
    /* The bidder's pick takes the draw after the auction's, if that took
     * one. */
    uint64_t db = nx_sel(hot_a, d2, d3);
    uint64_t picked_b = bb->bidder_lo + nx_long_of(db, bb->bidder_bound);
    b->bidder = (int64_t)nx_sel(hot_b, bb->hot_bidder, picked_b) +
                WEIR_NEXMARK_FIRST_PERSON_ID;
    if (depth < NX_BID_PRICE)
        return 0;

    /* Draw 2, 3 or 4 for the price, by how many picks came before; the
     * next one for `extra`. */
    uint64_t dp = nx_sel(hot_a, nx_sel(hot_b, d2, d3), nx_sel(hot_b, d3, d4));
    uint64_t de = nx_sel(hot_a, nx_sel(hot_b, d3, d4), nx_sel(hot_b, d4, d5));

    /* Price from the high half of a draw, the channel from its low half. */
    b->price = nx_price_from((uint32_t)(dp >> 32));
    uint64_t rest = (dp & 0xffffffffu) >> 1; /* 31 uniform bits */
    /* half the bids come from the four hot channels */
    uint32_t c = (uint32_t)nx_sel(
        -(dp & 1), NX_HOT_CHANNEL_BASE + ((rest * NX_NUM_HOT_CHANNELS) >> 31),
        (rest * NX_NUM_CHANNELS) >> 31);
    if (depth >= NX_BID_ALL)
        b->extra_len =
            nx_extra_drawn(de, g->bid_extra_min, g->bid_extra_span, &b->extra);
    return c;
}

/* nx_gen_bid_drawn() for the bid that is event n = epoch * total + off. */
__attribute__((always_inline)) static inline uint32_t
nx_gen_bid_fields(const weir_nexmark_gen *g, uint64_t n, int64_t epoch,
                  int64_t off, int64_t ts_ms, weir_nexmark_bid *b)
{
    (void)off; /* every bid of the epoch has the same newest ids */
    nx_bid_base bb;
    nx_bid_base_of(g, epoch, &bb);
    return nx_gen_bid_drawn(g, &bb, n, ts_ms, b, NX_BID_ALL);
}

/* The index of channel c among the hot ones, or -1 for one of the others. */
static inline int nx_hot_index(uint32_t c)
{
    return c >= NX_HOT_CHANNEL_BASE ? (int)(c - NX_HOT_CHANNEL_BASE) : -1;
}

/* Channel c's slot in the tables (see NX_CHAN_SLOT). */
static inline const char *nx_chan_slot(uint32_t c)
{
    return weir__nexmark_tables.chan_text + (size_t)c * NX_CHAN_SLOT;
}

/* Prefetches the two lines channel c's slot spans: its text is at most
 * 2 + NX_CHAN_TEXT_MAX bytes from a start at 0 or 32 in its first line. */
__attribute__((always_inline)) static inline void nx_prefetch_chan(uint32_t c)
{
    const char *slot = nx_chan_slot(c);
    __builtin_prefetch(slot);
    __builtin_prefetch(slot + 1 + NX_CHAN_TEXT_MAX);
}

/* Sets the bid's channel and url to those of channel c. */
static inline void nx_bid_set_channel(weir_nexmark_bid *b, uint32_t c)
{
    const char *slot = nx_chan_slot(c);
    b->channel_len = (uint8_t)slot[0];
    b->url_len = (uint8_t)slot[1];
    b->channel = slot + 2;
    b->url = b->channel + b->channel_len;
}

/*
 * Generates the bid that is event n = epoch * total + off, at ts_ms. Returns
 * the index of its hot channel, or -1 for one of the others.
 */
__attribute__((always_inline)) static inline int
nx_gen_bid(const weir_nexmark_gen *g, uint64_t n, int64_t epoch, int64_t off,
           int64_t ts_ms, weir_nexmark_bid *b)
{
    uint32_t c = nx_gen_bid_fields(g, n, epoch, off, ts_ms, b);
    nx_bid_set_channel(b, c);
    return nx_hot_index(c);
}

/* Event time of event n (any rate curve). */
int64_t weir__nexmark_ts(const weir_nexmark_gen *g, uint64_t n);
/* Initialises g from a validated config. */
void weir__nexmark_gen_init(weir_nexmark_gen *g, const weir_nexmark_config *c);
/* Generate event n (epoch * total + off) of that kind into ev (ev->number,
 * kind, ts_ms set too). */
void weir__nexmark_gen_person(const weir_nexmark_gen *g, uint64_t n,
                              int64_t epoch, int64_t off, int64_t ts_ms,
                              weir_nexmark_event *ev);
void weir__nexmark_gen_auction(const weir_nexmark_gen *g, uint64_t n,
                               int64_t epoch, int64_t off, int64_t ts_ms,
                               weir_nexmark_event *ev);

static inline weir_nexmark_kind nx_kind_of(const weir_nexmark_gen *g,
                                           int64_t off)
{
    if (off < g->person_prop)
        return WEIR_NEXMARK_PERSON;
    if (off < g->person_prop + g->auction_prop)
        return WEIR_NEXMARK_AUCTION;
    return WEIR_NEXMARK_BID;
}

#endif
