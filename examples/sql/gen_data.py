#!/usr/bin/env python3
"""Writes the bundled data of the SQL examples (deterministic: fixed seed).

clicks.json: three hours of ad clicks for three advertisers. Between 01:00
and 01:45 a network outage holds back the clicks of mobile users (odd user
numbers) while the others keep flowing; the held clicks arrive in one burst
at 01:45, up to 45 minutes after they happened - the billing war story of
the seed: processing-time windows would bill them all to 01:45, event time
bills each click to the 5-minute window it happened in.
"""
import json
import random

rng = random.Random(20261130)
BASE = 1_700_000_000_000 - (1_700_000_000_000 % 3_600_000)  # an hour boundary
ADS = {"acme": 0.25, "globex": 0.40, "initech": 0.10}

clicks = []
t = BASE
while t < BASE + 3 * 3_600_000:
    t += rng.randint(2_000, 20_000)
    ad = rng.choice(list(ADS))
    clicks.append({"click_id": len(clicks) + 1, "advertiser": ad,
                   "user_id": "u%d" % rng.randint(1, 40),
                   "cost": ADS[ad], "ts_ms": t})

outage_start, outage_end = BASE + 3_600_000, BASE + 3_600_000 + 45 * 60_000
def is_held(c):
    return outage_start <= c["ts_ms"] < outage_end and int(c["user_id"][1:]) % 2 == 1

held = [c for c in clicks if is_held(c)]
normal = [c for c in clicks if not is_held(c)]
# arrival order: normal clicks in time order, with the held ones arriving in
# a burst at the end of the outage (just before the first later click)
arrival = []
flushed = False
for c in normal:
    if not flushed and c["ts_ms"] >= outage_end:
        arrival.extend(held)
        flushed = True
    arrival.append(c)

def write(path, rows):
    with open(path, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")

write("click-billing/clicks.json", arrival)

# late-clicks: the same stream with a 10-minute watermark, so part of the
# burst is too late and goes to the dead-letter table
write("late-clicks/clicks.json", arrival)

# sessions: riders pinging the app; r3 never pauses for 3 hours
pings = []
for rider, gaps in (("r1", [60, 120, 840, 1200, 60]), ("r2", [300, 300, 2000, 30])):
    t = BASE
    for g in gaps:
        t += g * 1000
        pings.append({"rider": rider, "ts_ms": t})
t = BASE
while t < BASE + 3 * 3_600_000:
    t += 300_000
    pings.append({"rider": "r3", "ts_ms": t})
pings.sort(key=lambda p: p["ts_ms"])
write("sessions/pings.json", pings)

# moving average: one reading per sensor per minute for two hours
readings = []
for m in range(120):
    for s, base in (("boiler", 80.0), ("chiller", 6.0)):
        v = base + 5.0 * rng.random() + (10.0 if s == "boiler" and 60 <= m < 70 else 0.0)
        readings.append({"sensor": s, "temp": round(v, 2), "ts_ms": BASE + m * 60_000 + rng.randint(0, 59_000)})
readings.sort(key=lambda r: r["ts_ms"])
write("moving-average/readings.json", readings)
