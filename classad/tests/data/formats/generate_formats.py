#!/usr/bin/env python3
"""Generate the format conformance data of classad/tests/formats.rs.

Everything expected here comes from the real HTCondor libclassad:

  * pool_new.txt.gz, pool_json.jsonl.gz, pool_xml.jsonl.gz: for the ads of
    ../pool_sample.ads.gz (old format), read with classad2.parseAds(text,
    ParserType.Old), one line per ad, in input order: repr(ad) (libclassad's
    canonical new syntax); the object of ad.printJson() (stored parsed,
    without its indentation: the test compares it as JSON); and, for the
    first XML_ADS ads when the HTCondor chroot is available (--chroot DIR,
    with the xml-oracle driver built from xml-oracle.cpp), the ad as
    libclassad's ClassAdXMLUnParser writes it, as a JSON string.
    (libclassad's printOld gives back exactly the lines of the input ad, in
    another order, so the old format needs no stored output: the test
    compares with the input.)
  * readers.jsonl: every case of reader_cases.jsonl ({"format", "input",
    "note"}) with "expected": the list of ads libclassad reads from the input
    (each as repr(ad), i.e. canonical new syntax), or "ERROR" when it reads
    none or raises. classad2.parseAds is used with ParserType Old, JSON, XML
    or New.

The oracle process imports htcondor2 first, so libclassad runs with old
ClassAd semantics as HTCondor's tools do (this also makes `017` a parse
error), with CONDOR_CONFIG=ONLY_ENV and TZ=UTC.

Usage:
    python3 -m venv /tmp/oracle && /tmp/oracle/bin/pip install htcondor==25.14.1
    python3 generate_formats.py --python /tmp/oracle/bin/python [--chroot /tmp/anchor/trixie]

Only the standard library is used here.
"""

import argparse
import gzip
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# How many pool ads get their XML stored (it is the bulkiest output).
XML_ADS = 24

WORKER = r'''
import json, sys
import htcondor2  # old ClassAd semantics, as HTCondor's tools
import classad2 as c

mode = sys.argv[1]
if mode == "pool":
    import gzip
    text = gzip.open(sys.argv[2], "rt", encoding="utf-8").read()
    for i, ad in enumerate(c.parseAds(text, c.ParserType.Old)):
        print(json.dumps({"index": i, "new": repr(ad), "json": json.loads(ad.printJson())}))
else:
    types = {"old": c.ParserType.Old, "json": c.ParserType.JSON, "xml": c.ParserType.XML, "new": c.ParserType.New}
    for line in sys.stdin:
        case = json.loads(line)
        try:
            ads = [repr(ad) for ad in c.parseAds(case["input"], types[case["format"]])]
            case["expected"] = ads if ads else "ERROR"
        except Exception:
            case["expected"] = "ERROR"
        print(json.dumps(case, ensure_ascii=False))
'''


def oracle(python, args, stdin=None):
    env = dict(os.environ, CONDOR_CONFIG="ONLY_ENV", TZ="UTC")
    result = subprocess.run([python, "-c", WORKER, *args], input=stdin, capture_output=True, text=True, env=env,
                            check=True, timeout=600)
    return result.stdout


def xml_of(chroot, new_syntax_ads):
    """The XML libclassad writes for each ad (given in new syntax)."""
    driver_input = os.path.join(chroot, "tmp", "xml-oracle.in")
    with open(driver_input, "w", encoding="utf-8") as f:
        for ad in new_syntax_ads:
            f.write(ad.replace("\n", " ") + "\n")
    out = subprocess.run(["chroot", chroot, "sh", "-c", "/tmp/xml-oracle unparse < /tmp/xml-oracle.in"],
                         capture_output=True, text=True, check=True).stdout
    ads = []
    for line in out.splitlines():
        text, i = [], 0
        while i < len(line):
            if line[i] == "\\" and i + 1 < len(line):
                text.append("\n" if line[i + 1] == "n" else line[i + 1])
                i += 2
            else:
                text.append(line[i])
                i += 1
        ads.append("".join(text))
    return ads


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=os.environ.get("ORACLE_PYTHON", "python3"))
    parser.add_argument("--chroot", help="the HTCondor chroot with /tmp/xml-oracle built (for XML output)")
    parser.add_argument("--pool", default=os.path.join(HERE, "..", "pool_sample.ads.gz"))
    args = parser.parse_args()

    records = [json.loads(line) for line in oracle(args.python, ["pool", args.pool]).splitlines()]
    with gzip.open(os.path.join(HERE, "pool_new.txt.gz"), "wt", encoding="utf-8", compresslevel=9) as f:
        f.writelines(record["new"] + "\n" for record in records)
    with gzip.open(os.path.join(HERE, "pool_json.jsonl.gz"), "wt", encoding="utf-8", compresslevel=9) as f:
        f.writelines(json.dumps(record["json"], ensure_ascii=False) + "\n" for record in records)
    if args.chroot:
        with gzip.open(os.path.join(HERE, "pool_xml.jsonl.gz"), "wt", encoding="utf-8", compresslevel=9) as f:
            xml = xml_of(args.chroot, [record["new"] for record in records[:XML_ADS]])
            f.writelines(json.dumps(text, ensure_ascii=False) + "\n" for text in xml)

    with open(os.path.join(HERE, "reader_cases.jsonl"), encoding="utf-8") as f:
        cases = f.read()
    out = oracle(args.python, ["cases"], stdin=cases)
    with open(os.path.join(HERE, "readers.jsonl"), "w", encoding="utf-8") as f:
        f.write(out)
    print(f"{len(records)} pool ads, {len(out.splitlines())} reader cases", file=sys.stderr)


if __name__ == "__main__":
    main()
