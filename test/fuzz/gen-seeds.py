#!/usr/bin/env python3
"""Writes the seed corpus of the fuzz targets: test/fuzz/corpus/NAME/seed-*.

The targets decode any bytes into a problem, and a zero byte always decodes
to the plain choice, so the seeds are: all zeros (the plainest problem),
a few deterministic pseudo-random inputs whose first byte keeps them valid,
and one whose first byte asks for a hostile field. Run it again only to
reset the seeds; the reproducers of findings (regress-*) stay as they are.
"""
import os
import sys

TARGETS = ["md", "conv", "matmul", "pooling", "reorder", "eltwise_binary", "cache_blob"]


def xorshift(state):
    state ^= (state << 13) & 0xFFFFFFFF
    state ^= state >> 17
    state ^= (state << 5) & 0xFFFFFFFF
    return state & 0xFFFFFFFF


def seeds(name):
    s = sum(map(ord, name)) * 2654435761 & 0xFFFFFFFF or 1
    out = {"seed-zeros": bytes(96)}
    for i in range(6):
        buf = bytearray()
        for _ in range(96):
            s = xorshift(s)
            buf.append(s & 0xFF)
        # Byte 0 below 230 keeps the problem valid; the last seed is hostile.
        buf[0] = 240 + i if i == 5 else (buf[0] % 200)
        out["seed-%d" % i] = bytes(buf)
    return out


def main():
    top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
    for name in TARGETS:
        d = os.path.join(top, name)
        os.makedirs(d, exist_ok=True)
        for fname, data in seeds(name).items():
            with open(os.path.join(d, fname), "wb") as f:
                f.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
