#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (fuzz/corpus/<target>/) from
the shared data: the generated ads (one new-syntax ad a line) and the real
pool sample (old format), in every format the parse target reads.

Usage (from the repository root): python3 fuzz/seed-corpora.py [DATA_DIR]
DATA_DIR defaults to ../shared/data, then classad/tests/data.
"""

import gzip
import hashlib
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "fuzz", "corpus")

# The parse target's first byte: bit 0 old syntax, bit 1 a stream, and for
# streams bits 2.. the format (0 detect, 1 new, 2 old, 3 JSON, 4 XML).
EXPR_NEW, EXPR_OLD = 0, 1
STREAM_AUTO, STREAM_NEW, STREAM_OLD = 2, 2 | 1 << 2, 2 | 2 << 2


def write(target, data):
    folder = os.path.join(CORPUS, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)


def main():
    candidates = sys.argv[1:] or [os.path.join(ROOT, "..", "shared", "data"), os.path.join(ROOT, "classad", "tests", "data")]
    generated, pool = None, None
    for folder in candidates:
        if generated is None and os.path.exists(os.path.join(folder, "generated_ads.txt")):
            with open(os.path.join(folder, "generated_ads.txt")) as f:
                generated = [line.strip() for line in f if line.strip()]
        if pool is None and os.path.exists(os.path.join(folder, "pool_sample.ads.gz")):
            with gzip.open(os.path.join(folder, "pool_sample.ads.gz"), "rt") as f:
                pool = [ad.strip() + "\n" for ad in f.read().split("\n\n") if ad.strip()]
    generated, pool = generated or [], pool or []
    for line in generated[:400]:
        write("parse", bytes([EXPR_NEW]) + line.encode())
        write("parse", bytes([STREAM_NEW]) + line.encode())
        # Its attributes one by one, as expressions.
        inner = line.strip("[] ")
        for attribute in inner.split("; ")[:3]:
            if " = " in attribute:
                write("parse", bytes([EXPR_OLD]) + attribute.split(" = ", 1)[1].encode())
    for ad in pool[:40]:
        write("parse", bytes([STREAM_OLD]) + ad.encode())
        write("parse", bytes([STREAM_AUTO]) + ad.encode())
        write("convert", ad.encode())
    for i in range(0, min(len(generated), 200), 10):
        write("convert", "\n".join(generated[i : i + 10]).encode())
    print(f"corpora written under {CORPUS}: {len(generated)} generated ads, {len(pool)} pool ads read")


if __name__ == "__main__":
    main()
