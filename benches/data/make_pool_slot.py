#!/usr/bin/env python3
"""Regenerate benches/data/pool_slot.ad: one real slot ad in new ClassAd syntax.

The input is the shared OSPool sample (old/long format, blank-line separated
ads). The script takes the first ad whose MyType is "Machine", parses it with
HTCondor's own Python bindings (classad2, old-syntax parser) and writes
repr(ad), libclassad's canonical new-syntax rendering, so that classad-rs (which
reads only the new syntax) can parse the same ad.

Usage (from the repository root, with the oracle venv):
    /tmp/oracle/bin/python3 benches/data/make_pool_slot.py \
        ../shared/data/pool_sample.ads.gz benches/data/pool_slot.ad
"""
import gzip
import sys

import classad2


def first_machine_ad(text):
    # Ads are separated by blank lines; the old parser wants one ad at a time.
    for block in text.split("\n\n"):
        lines = [line for line in block.splitlines() if line.strip()]
        if any(line.replace(" ", "") == 'MyType="Machine"' for line in lines):
            return "\n".join(lines) + "\n"
    raise SystemExit("no MyType = \"Machine\" ad in the input")


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else "../shared/data/pool_sample.ads.gz"
    dst = sys.argv[2] if len(sys.argv) > 2 else "benches/data/pool_slot.ad"
    with gzip.open(src, "rt", encoding="utf-8") as f:
        block = first_machine_ad(f.read())
    ads = list(classad2.parseAds(block, classad2.ParserType.Old))
    if len(ads) != 1:
        raise SystemExit(f"expected one ad, the old parser gave {len(ads)}")
    ad = ads[0]
    text = repr(ad)
    with open(dst, "w", encoding="utf-8") as f:
        f.write(text + "\n")
    print(f"{dst}: {len(ad)} attributes, {len(text)} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
