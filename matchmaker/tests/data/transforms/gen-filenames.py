"""Writes rules/24_filenames_generated.xform: the file-name macros
($F<letters>, $BASENAME with and without a suffix, $DIRNAME) over file
names with edge cases (trailing and doubled separators, dots, backslashes,
quotes, spaces, UTF-8, Windows shares, empty), with letter combinations
drawn at random from every letter the macros take. Seeded: the same file
every time. Then ./regenerate.sh records condor_transform_ads's answers.

    python3 gen-filenames.py [COUNT]
"""
import os
import random
import sys

VALUES = [
    "/a/b/dir/", "/a/b/c.txt", "a\\b\\c.txt", "c:\\w\\x.y.z", "\\\\server\\share\\f.d",
    "\\\\.\\abs\\g.h", "file", ".hidden", "dir/.hidden", "a.b/c", "trail.", "/", "//x//y.z",
    "\"/x/y z/q.tar.gz\"", "'single q.txt'", "\"unbalanced.txt", "naïve/résumé.pdf",
    "mixed/sep\\name.ext", "", "   spaced /p.q  ", "a/b/c/d/e/f.g", "x.tar.gz", "../up/one.two",
]
LETTERS = "pdnxbqawu"


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    rng = random.Random(20261206)
    lines = [
        "# Made by gen-filenames.py (seeded): the file-name macros over edge-case names.",
    ]
    for i, v in enumerate(VALUES):
        lines.append(f"V{i} = {v}")
    for n in range(count):
        i = rng.randrange(len(VALUES))
        kind = rng.random()
        if kind < 0.08:
            macro = f"$BASENAME(V{i})"
        elif kind < 0.14:
            suffix = rng.choice([".txt", ".gz", ".tar.gz", "c.txt", ".TXT", "name.ext", ".y.z"])
            macro = f"$BASENAME(V{i}, {suffix})"
        elif kind < 0.2:
            macro = f"$DIRNAME(V{i})"
        else:
            letters = "".join(rng.choice(LETTERS) for _ in range(rng.randint(1, 4)))
            # Double quotes would end the string the result is put in:
            # quoting asks for single ones.
            if "q" in letters and "a" not in letters:
                letters += "a"
            # More `d`s than separators crash condor_transform_ads 23.9.6
            # (it pops an empty vector): those are left to the unit tests.
            seps = VALUES[i].count("/") + VALUES[i].count("\\")
            while letters.count("d") > seps:
                letters = letters.replace("d", "", 1)
            if not letters:
                letters = "n"
            macro = f"$F{letters}(V{i})"
        lines.append(f'SET G{n:03d} "[{macro}]"')
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rules", "24_filenames_generated.xform")
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{out}: {count} cases")


main()
