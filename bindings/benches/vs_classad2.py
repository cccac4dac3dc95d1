"""classad_rs next to classad2 (the htcondor wheel), in one process.

Usage, in a venv with both installed (`pip install ./bindings htcondor`):

    python bindings/benches/vs_classad2.py [REPS]

Times, best of REPS (default 5):
* parseAds of the real pool sample (classad/tests/data/pool_sample.ads.gz,
  4.4 MB of `condor_status -long` output), every ad consumed;
* an `eval` loop: one machine ad's attributes evaluated, 100 times over;
* symmetricMatch of each job of classad/tests/data/matching/jobs.ads against
  every `Machine` ad of the pool sample (and, for classad_rs only, the same
  with one `Pool` call per job, which classad2 has no counterpart of).
Prints one line per measurement with both times and the ratio.
"""

import gzip
import os
import sys
import time

import classad2
import classad_rs

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "classad", "tests", "data")


def best(reps, fn):
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    with gzip.open(os.path.join(DATA, "pool_sample.ads.gz"), "rt") as f:
        pool = f.read()
    with open(os.path.join(DATA, "matching", "jobs.ads")) as f:
        jobs_text = f.read()

    rows = []

    def parse(module, parser):
        return lambda: sum(1 for _ in module.parseAds(pool, parser))

    rows.append(
        (
            "parseAds(pool sample, old)",
            best(reps, parse(classad2, classad2.ParserType.Old)),
            best(reps, parse(classad_rs, classad_rs.ParserType.Old)),
        )
    )

    def machines(module, parser):
        # As the Rust benchmarks do (benches/src/pool.rs): glideins retire in
        # 2100 instead of long ago, so that machines accept jobs.
        ads = [ad for ad in module.parseAds(pool, parser) if ad.get("MyType") == "Machine"]
        for ad in ads:
            if "GLIDEIN_ToRetire" in ad or "GLIDEIN_ToDie" in ad:
                ad["GLIDEIN_ToRetire"] = 4_102_444_800
                ad["GLIDEIN_ToDie"] = 4_102_531_200
        return ads

    def jobs(module):
        return list(module.parseAds(jobs_text))

    theirs_m, ours_m = machines(classad2, classad2.ParserType.Old), machines(classad_rs, classad_rs.ParserType.Old)
    theirs_j, ours_j = jobs(classad2), jobs(classad_rs)

    def eval_loop(ad):
        names = list(ad.keys())

        def run():
            for _ in range(100):
                for name in names:
                    ad.eval(name)

        return run

    rows.append(
        (
            "eval of every attribute of a slot ad x100",
            best(reps, eval_loop(theirs_m[0])),
            best(reps, eval_loop(ours_m[0])),
        )
    )

    # Both match in old semantics (classad2 because parseAds switched it
    # on; ours by default), and must find the same matches.
    def match(js, ms):
        return lambda: sum(1 for j in js for m in ms if j.symmetricMatch(m))

    found = (match(theirs_j, theirs_m)(), match(ours_j, ours_m)())
    assert found[0] == found[1], f"classad2 finds {found[0]} matches, classad_rs {found[1]}"
    rows.append(
        (
            f"symmetricMatch, {len(ours_j)} jobs x {len(ours_m)} machines ({found[0]} match)",
            best(reps, match(theirs_j, theirs_m)),
            best(reps, match(ours_j, ours_m)),
        )
    )
    # Ours in one call per job: a Pool of the machines (made once, timed
    # apart) matched against each job.
    build = best(reps, lambda: classad_rs.Pool(ours_m))
    pool = classad_rs.Pool(ours_m)

    def pool_match():
        return sum(len(pool.matches(j)) for j in ours_j)

    assert pool_match() == found[0]
    rows.append(
        (
            f"  with classad_rs.Pool (made once in {build * 1e3:.1f} ms)",
            best(reps, match(theirs_j, theirs_m)),
            best(reps, pool_match),
        )
    )
    print(f"{'measurement':48} {'classad2 ms':>12} {'classad_rs ms':>14} {'speed-up':>9}")
    for label, theirs, ours in rows:
        print(f"{label:48} {theirs * 1e3:12.2f} {ours * 1e3:14.2f} {theirs / ours:8.1f}x")


if __name__ == "__main__":
    main()
