"""parse-pool.py: times libclassad's own `parseAds` (HTCondor's Python
bindings, old `classad` module) reading a file of old-format ads, as
`benches/anchor/parse-pool.sh` runs it in the HTCondor chroot.

Usage: python3 parse-pool.py FILE [REPS]
Prints one JSON line with the best of REPS passes, in milliseconds.
"""

import json
import sys
import time

import classad


def main():
    path = sys.argv[1]
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    with open(path) as f:
        text = f.read()
    best = float("inf")
    for _ in range(reps):
        start = time.perf_counter()
        ads = attributes = 0
        for ad in classad.parseAds(text, classad.Parser.Old):
            ads += 1
            attributes += len(ad)
        best = min(best, time.perf_counter() - start)
    print(json.dumps({"python_parse_ads_ms": round(best * 1000, 2), "ads": ads, "attributes": attributes}))


if __name__ == "__main__":
    main()
