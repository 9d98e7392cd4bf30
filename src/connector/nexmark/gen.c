/*
 * connector/nexmark/gen.c - the Nexmark generator: static tables, the
 * event-time curve, people, auctions and the public generator API.
 *
 * Field distributions follow the reference generator (see docs/nexmark.md
 * for every deliberate difference): names from small fixed lists, random
 * lowercase strings with an occasional special character, log-uniform
 * prices, hot sellers/bidders/auctions as the first id of each block of 100
 * recent ids, and an `extra` string sized so each kind averages its
 * configured byte size.
 */
#include <pthread.h>
#include <string.h>

#include "connector/nexmark/gen.h"

nx_tables weir__nexmark_tables;
static pthread_once_t g_tables_once = PTHREAD_ONCE_INIT;

static const char *const k_first_names[] = {"Peter", "Paul",   "Luke",  "John",
                                            "Saul",  "Vicky",  "Kate",  "Julie",
                                            "Sarah", "Deiter", "Walter"};
static const char *const k_last_names[] = {"Shultz", "Abrams",  "Spencer",
                                           "White",  "Bartels", "Walton",
                                           "Smith",  "Jones",   "Noris"};
static const char *const k_cities[] = {
    "Phoenix", "Los Angeles", "San Francisco", "Boise", "Portland",
    "Bend",    "Redmond",     "Seattle",       "Kent",  "Cheyenne"};
static const char *const k_states[] = {"AZ", "CA", "ID", "OR", "WA", "WY"};
static const char *const k_hot_channels[] = {"Google", "Facebook", "Baidu",
                                             "Apple"};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Writes a random string of 3 .. max_len-1 characters: each one is
 * `special` with probability 1/13, else a uniform lowercase letter. One draw
 * makes two characters: 338 = 13 * 26 outcomes per 32-bit half. A string
 * made with special ' ' is trimmed at both ends. Returns its length.
 */
static uint32_t next_string(nx_rng *r, uint32_t max_len, char special,
                            char *out)
{
    uint32_t len = 3 + nx_int(r, max_len - 3);
    uint64_t bits = 0;
    for (uint32_t i = 0; i < len; i++) {
        if ((i & 1) == 0)
            bits = nx_next(r);
        uint32_t x = (uint32_t)(((bits & 0xffffffffu) * 338u) >> 32);
        bits >>= 32;
        out[i] = x < 26 ? special : (char)('a' + x % 26);
    }
    if (special != ' ')
        return len;
    uint32_t start = 0;
    while (start < len && out[start] == ' ')
        start++;
    while (len > start && out[len - 1] == ' ')
        len--;
    if (start)
        memmove(out, out + start, len - start);
    return len - start;
}

/* The three directories of a URL path:
 * "https://www.nexmark.com/abc/de_f/ghi/item.htm?query=1". */
static uint32_t base_url(nx_rng *r, char *out)
{
    static const char head[] = "https://www.nexmark.com/";
    static const char tail[] = "item.htm?query=1";
    uint32_t n = sizeof head - 1;
    memcpy(out, head, n);
    for (int i = 0; i < 3; i++) {
        n += next_string(r, 5, '_', out + n);
        out[n++] = '/';
    }
    memcpy(out + n, tail, sizeof tail - 1);
    return n + (uint32_t)sizeof tail - 1;
}

static uint32_t bit_reverse32(uint32_t v)
{
    v = ((v >> 1) & 0x55555555u) | ((v & 0x55555555u) << 1);
    v = ((v >> 2) & 0x33333333u) | ((v & 0x33333333u) << 2);
    v = ((v >> 4) & 0x0f0f0f0fu) | ((v & 0x0f0f0f0fu) << 4);
    v = ((v >> 8) & 0x00ff00ffu) | ((v & 0x00ff00ffu) << 8);
    return (v >> 16) | (v << 16);
}

static uint32_t put_u64(char *out, uint64_t v)
{
    char tmp[24];
    uint32_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (uint32_t i = 0; i < n; i++)
        out[i] = tmp[n - 1 - i];
    return n;
}

static void tables_init_once(void)
{
    nx_tables *t = &weir__nexmark_tables;
    /* A fixed seed: the tables are the same in every process and run. */
    nx_rng r = {UINT64_C(0x6e65786d61726b21)};
    /* 100 * 10^(6u) = product over the bytes b_j of u of 10^(6 * b_j /
     * 256^(j+1)). */
    for (int j = 0; j < 4; j++) {
        double scale = 6.0 / 256.0 / (double)(UINT64_C(1) << (8 * j));
        for (int i = 0; i < 256; i++)
            t->pow10[256 * j + i] =
                pow(10.0, scale * i) * (j == 0 ? 100.0 : 1.0);
    }
    for (uint32_t i = 0; i < NX_POOL_BYTES; i += 2) {
        uint64_t bits = nx_next(&r);
        t->pool[i] = (char)('a' + (((bits & 0xffffffffu) * 26) >> 32));
        t->pool[i + 1] = (char)('a' + ((bits >> 32) * 26 >> 32));
    }
    for (uint32_t i = 0; i < NX_NUM_HOT_CHANNELS; i++) {
        char *slot = t->chan_text + (NX_HOT_CHANNEL_BASE + i) * NX_CHAN_SLOT;
        uint32_t name_len = (uint32_t)strlen(k_hot_channels[i]);
        memcpy(slot + 2, k_hot_channels[i], name_len);
        slot[0] = (char)name_len;
        slot[1] = (char)base_url(&r, slot + 2 + name_len);
    }
    for (uint32_t i = 0; i < NX_NUM_CHANNELS; i++) {
        char *slot = t->chan_text + i * NX_CHAN_SLOT;
        memcpy(slot + 2, "channel-", 8);
        uint32_t name_len = 8 + put_u64(slot + 2 + 8, i);
        char *url = slot + 2 + name_len;
        uint32_t n = base_url(&r, url);
        /* Nine in ten URLs name their channel; the id is the bit-reversed
         * channel number. */
        if (nx_int(&r, 10) > 0) {
            memcpy(url + n, "&channel_id=", 12);
            n += 12;
            int64_t id = (int32_t)bit_reverse32(i);
            n += put_u64(url + n, (uint64_t)(id < 0 ? -id : id));
        }
        slot[0] = (char)name_len;
        slot[1] = (char)n;
    }
}

void weir__nexmark_tables_init(void)
{
    pthread_once(&g_tables_once, tables_init_once);
}

void weir__nexmark_gen_init(weir_nexmark_gen *g, const weir_nexmark_config *c)
{
    memset(g, 0, sizeof *g);
    g->cfg = *c;
    g->seed_key = nx_mix64(c->seed + UINT64_C(0x9e3779b97f4a7c15));
    g->person_prop = c->person_proportion;
    g->auction_prop = c->auction_proportion;
    g->total = (int64_t)c->person_proportion + c->auction_proportion +
               c->bid_proportion;
    if (c->first_event_rate == c->next_event_rate) {
        g->n_steps = 1;
        g->rate[0] = c->first_event_rate;
    } else {
        g->n_steps = c->rate_shape == WEIR_NEXMARK_RATE_SINE ? 10 : 2;
        uint64_t step_s = (c->rate_period_s + g->n_steps - 1) / g->n_steps;
        double mid = ((double)c->first_event_rate + c->next_event_rate) / 2.0;
        double amp = ((double)c->first_event_rate - c->next_event_rate) / 2.0;
        for (uint32_t i = 0; i < g->n_steps; i++) {
            if (c->rate_shape == WEIR_NEXMARK_RATE_SINE)
                g->rate[i] = (uint64_t)llround(
                    mid +
                    amp * cos(2.0 * 3.14159265358979323846 * i / g->n_steps));
            else
                g->rate[i] = i == 0 ? c->first_event_rate : c->next_event_rate;
            if (g->rate[i] == 0)
                g->rate[i] = 1;
            g->step_events[i] = g->rate[i] * step_s;
            g->epoch_events += g->step_events[i];
        }
        g->step_ms = (int64_t)step_s * 1000;
    }
    nx_extra_range(NX_BID_FIXED_BYTES, c->avg_bid_bytes, &g->bid_extra_min,
                   &g->bid_extra_span);
    if (g->auction_prop > 0)
        g->auction_horizon_events = (uint64_t)c->num_in_flight_auctions *
                                    (uint64_t)g->total /
                                    (uint64_t)g->auction_prop;
}

int64_t weir__nexmark_ts(const weir_nexmark_gen *g, uint64_t n)
{
    int64_t base = g->cfg.base_time_ms;
    if (g->n_steps == 1) {
        uint64_t r = g->rate[0];
        return base + (int64_t)((n / r) * 1000 + ((n % r) * 1000) / r);
    }
    uint64_t epoch = n / g->epoch_events;
    uint64_t k = n % g->epoch_events;
    int64_t t = base + (int64_t)epoch * (int64_t)g->n_steps * g->step_ms;
    for (uint32_t j = 0; j < g->n_steps; j++) {
        if (k < g->step_events[j])
            return t + (int64_t)(k * 1000 / g->rate[j]);
        k -= g->step_events[j];
        t += g->step_ms;
    }
    return t; /* not reached: k < epoch_events */
}

void weir__nexmark_gen_person(const weir_nexmark_gen *g, uint64_t n,
                              int64_t epoch, int64_t off, int64_t ts_ms,
                              weir_nexmark_event *ev)
{
    nx_rng r = nx_rng_for(g, n);
    weir_nexmark_person *p = &ev->u.person;
    char *buf = ev->buf_;
    ev->number = n;
    ev->kind = WEIR_NEXMARK_PERSON;
    ev->ts_ms = ts_ms;
    p->id = nx_last_person(g, epoch, off) + WEIR_NEXMARK_FIRST_PERSON_ID;

    const char *first = k_first_names[nx_int(&r, COUNT(k_first_names))];
    const char *last = k_last_names[nx_int(&r, COUNT(k_last_names))];
    size_t fl = strlen(first), ll = strlen(last);
    p->name = buf;
    memcpy(buf, first, fl);
    buf[fl] = ' ';
    memcpy(buf + fl + 1, last, ll);
    p->name_len = (uint32_t)(fl + 1 + ll);
    buf += p->name_len;

    p->email_address = buf;
    uint32_t el = next_string(&r, 7, ' ', buf);
    buf[el++] = '@';
    el += next_string(&r, 5, ' ', buf + el);
    memcpy(buf + el, ".com", 4);
    p->email_address_len = el + 4;
    buf += p->email_address_len;

    p->credit_card = buf;
    for (int i = 0; i < 4; i++) {
        uint32_t v = nx_int(&r, 10000);
        if (i)
            *buf++ = ' ';
        buf[0] = (char)('0' + v / 1000);
        buf[1] = (char)('0' + v / 100 % 10);
        buf[2] = (char)('0' + v / 10 % 10);
        buf[3] = (char)('0' + v % 10);
        buf += 4;
    }
    p->credit_card_len = 19;

    p->city = k_cities[nx_int(&r, COUNT(k_cities))];
    p->city_len = (uint32_t)strlen(p->city);
    p->state = k_states[nx_int(&r, COUNT(k_states))];
    p->state_len = (uint32_t)strlen(p->state);
    uint32_t size = 8 + p->name_len + p->email_address_len +
                    p->credit_card_len + p->city_len + p->state_len;
    p->extra_len = nx_extra(&r, size, g->cfg.avg_person_bytes, &p->extra);
    p->date_time_ms = ts_ms;
}

void weir__nexmark_gen_auction(const weir_nexmark_gen *g, uint64_t n,
                               int64_t epoch, int64_t off, int64_t ts_ms,
                               weir_nexmark_event *ev)
{
    nx_rng r = nx_rng_for(g, n);
    weir_nexmark_auction *a = &ev->u.auction;
    ev->number = n;
    ev->kind = WEIR_NEXMARK_AUCTION;
    ev->ts_ms = ts_ms;
    a->id = nx_last_auction(g, epoch, off) + WEIR_NEXMARK_FIRST_AUCTION_ID;

    int64_t last_person = nx_last_person(g, epoch, off);
    int64_t seller;
    if (nx_int(&r, g->cfg.hot_seller_ratio) > 0)
        seller = (last_person / NX_HOT_BLOCK) * NX_HOT_BLOCK;
    else
        seller = nx_pick_person(g, &r, last_person);
    a->seller = seller + WEIR_NEXMARK_FIRST_PERSON_ID;
    a->category =
        WEIR_NEXMARK_FIRST_CATEGORY_ID + nx_int(&r, NX_NUM_CATEGORIES);
    a->initial_bid = nx_price(&r);

    /*
     * Auctions last on average until num_in_flight_auctions more auctions
     * have been created, in event time: uniform in [1, 2 * horizon].
     */
    int64_t horizon_ms =
        weir__nexmark_ts(g, n + g->auction_horizon_events) - ts_ms;
    uint64_t span = horizon_ms > 0 ? 2 * (uint64_t)horizon_ms : 1;
    a->expires_ms = ts_ms + 1 + (int64_t)nx_long(&r, span);

    char *buf = ev->buf_;
    a->item_name = buf;
    a->item_name_len = next_string(&r, 20, ' ', buf);
    buf += a->item_name_len;
    a->description = buf;
    a->description_len = next_string(&r, 100, ' ', buf);
    a->reserve = a->initial_bid + nx_price(&r);
    /* id, initialBid, reserve, dateTime, expires, seller, category: the
     * reference counts 8 + 5 * 8. */
    uint32_t size = 8 + a->item_name_len + a->description_len + 40;
    a->extra_len = nx_extra(&r, size, g->cfg.avg_auction_bytes, &a->extra);
    a->date_time_ms = ts_ms;
}

/* ---- public generator API ------------------------------------------------ */

int weir_nexmark_gen_create(const weir_nexmark_config *config,
                            weir_nexmark_gen **out, weir_error *err)
{
    *out = NULL;
    int rc = weir_nexmark_config_validate(config, err);
    if (rc)
        return rc;
    weir_nexmark_gen *g = weir_malloc(sizeof *g);
    if (!g)
        return weir_error_set(err, WEIR_ENOMEM, "nexmark: out of memory");
    weir__nexmark_tables_init();
    weir__nexmark_gen_init(g, config);
    *out = g;
    return 0;
}

void weir_nexmark_gen_destroy(weir_nexmark_gen *g)
{
    weir_free(g);
}

weir_nexmark_kind weir_nexmark_gen_kind(const weir_nexmark_gen *g, uint64_t n)
{
    return nx_kind_of(g, (int64_t)(n % (uint64_t)g->total));
}

int64_t weir_nexmark_gen_timestamp(const weir_nexmark_gen *g, uint64_t n)
{
    return weir__nexmark_ts(g, n);
}

void weir_nexmark_gen_event(const weir_nexmark_gen *g, uint64_t n,
                            weir_nexmark_event *ev)
{
    int64_t epoch = (int64_t)(n / (uint64_t)g->total);
    int64_t off = (int64_t)(n % (uint64_t)g->total);
    int64_t ts = weir__nexmark_ts(g, n);
    switch (nx_kind_of(g, off)) {
    case WEIR_NEXMARK_PERSON:
        weir__nexmark_gen_person(g, n, epoch, off, ts, ev);
        break;
    case WEIR_NEXMARK_AUCTION:
        weir__nexmark_gen_auction(g, n, epoch, off, ts, ev);
        break;
    case WEIR_NEXMARK_BID:
        ev->number = n;
        ev->kind = WEIR_NEXMARK_BID;
        ev->ts_ms = ts;
        nx_gen_bid(g, n, epoch, off, ts, &ev->u.bid);
        break;
    }
}

uint32_t weir_nexmark_event_size(const weir_nexmark_event *ev)
{
    switch (ev->kind) {
    case WEIR_NEXMARK_PERSON: {
        const weir_nexmark_person *p = &ev->u.person;
        return 8 + p->name_len + p->email_address_len + p->credit_card_len +
               p->city_len + p->state_len + p->extra_len;
    }
    case WEIR_NEXMARK_AUCTION: {
        const weir_nexmark_auction *a = &ev->u.auction;
        return 8 + a->item_name_len + a->description_len + 40 + a->extra_len;
    }
    case WEIR_NEXMARK_BID:
        return NX_BID_FIXED_BYTES + ev->u.bid.extra_len;
    }
    return 0;
}
