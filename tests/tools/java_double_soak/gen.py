#!/usr/bin/env python3
"""Bit patterns of doubles for the Java 17 soak: range boundaries, powers
of two and of ten with their neighbours, then random bits, subnormals,
integers up to 10^22 and short decimal fractions. Usage: gen.py SEED N."""
import random
import struct
import sys

random.seed(int(sys.argv[1]))
n = int(sys.argv[2])
out = []


def bits(b):
    out.append("d:%016x" % (b & 0xFFFFFFFFFFFFFFFF))


def dbl(x):
    bits(struct.unpack("<Q", struct.pack("<d", x))[0])


for b in (1, 2, 3, 0xFFFFFFFFFFFFF, 0x10000000000000, 0x7FEFFFFFFFFFFFFF, 0x8000000000000001):
    bits(b)
for k in range(-1074, 1024):
    dbl(2.0 ** k)
for e in range(-324, 309):
    for m in ("1", "2", "5", "9.999999999999999", "1.5"):
        x = float("%se%d" % (m, e))
        if x == 0 or x == float("inf"):
            continue
        b = struct.unpack("<Q", struct.pack("<d", x))[0]
        bits(b), bits(b + 1), bits(b - 1)
for _ in range(n):
    r = random.random()
    if r < 0.45:
        bits(random.getrandbits(64))
    elif r < 0.6:
        bits(random.getrandbits(52))
    elif r < 0.8:
        dbl(float(random.randint(1, 10 ** random.randint(1, 22))))
    else:
        dbl(random.randint(1, 10 ** 6) / 10 ** random.randint(1, 8))
sys.stdout.write("\n".join(out) + "\n")
