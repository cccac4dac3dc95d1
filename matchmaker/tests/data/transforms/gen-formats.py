"""Writes rules/25_formats_generated.xform: $INT, $REAL and $STRING with
C formats drawn at random from printf's grammar (flags, width, precision,
length modifiers, every conversion HTCondor accepts for the type, text
and %% around it) over edge values (0, -1, int64 limits, 2^32 + 5, -0.0,
subnormals, huge reals, NaN, infinities, UTF-8). Seeded: the same file
every time. Then ./regenerate.sh records condor_transform_ads's answers.

Left out, because condor_transform_ads 23.9.6 aborts, prints memory or
writes bytes that are not UTF-8 there (docs/divergences.md): %n, two
conversions, %c of a byte above 127, L on a real, length modifiers on
%c, %s and %p, %p of a real, a real 55 bytes wide without a point.

    python3 gen-formats.py [COUNT]
"""
import os
import random
import sys

INTS = ["0", "1", "-1", "65", "300", "2147483647", "2147483648", "-2147483648", "4294967301",
        "9223372036854775807", "-9223372036854775807", "5000000000", "42", "-42", "255", "256"]
REALS = ["0.0", "-0.0", "0.1", "1.5", "2.5", "3.75", "1e300", "1e-300", "5e-324", "123456.789",
         "-2.5", "1e16", "9.9999996e-05", "999999.5", "1.0", "-0.1", "real(\"NaN\")", "real(\"INF\")",
         "-real(\"INF\")", "0.5"]
STRINGS = ["\"\"", "\"abc\"", "\"é\"", "\"a b\"", "\"0123456789012345678901234567890123456789\""]
CONVERSIONS = {"INT": "diouxXcp", "REAL": "eEfFgGaA", "STRING": "s"}
INT_LENGTHS = ["", "", "", "h", "hh", "l", "ll", "j", "z", "t", "q"]


def spec(rng, kind, conv):
    flags = "".join(rng.choice("-+ #0") for _ in range(rng.choice([0, 0, 1, 2])))
    # A real of 55 bytes without a point overflows HTCondor's buffer when
    # it adds ".0" (it aborts): reals stay narrower.
    width = str(rng.randint(1, 60 if kind != "REAL" else 45)) if rng.random() < 0.5 else ""
    precision = "." + str(rng.randint(0, 20)) if rng.random() < 0.4 else ""
    length = rng.choice(INT_LENGTHS) if kind == "INT" and conv not in "cp" else ""
    text = rng.choice(["", "", "x", "<", "100%% "])
    tail = rng.choice(["", "", "y", ">", " %%"])
    return f"{text}%{flags}{width}{precision}{length}{conv}{tail}"


def real_value(text):
    return {"real(\"NaN\")": float("nan"), "real(\"INF\")": float("inf"),
            "-real(\"INF\")": float("-inf")}.get(text) or float(text)


def overflows(fmt, value):
    """Whether HTCondor's buffer overflows: the output, cut at 55 bytes,
    has no point (HTCondor then adds ".0" past the buffer's end)."""
    out = fmt.replace("%%", "\0") % real_value(value)
    return "." not in out.replace("\0", "%")[:55]


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    rng = random.Random(20261207)
    lines = ["# Made by gen-formats.py (seeded): C formats of $INT, $REAL and $STRING."]
    for i, v in enumerate(INTS):
        lines.append(f"I{i} = {v}")
    for i, v in enumerate(REALS):
        lines.append(f"R{i} = {v}")
    for i, v in enumerate(STRINGS):
        lines.append(f"S{i} = {v}")
    n = 0
    while n < count:
        kind = rng.choice(["INT", "INT", "REAL", "REAL", "STRING"])
        conv = rng.choice(CONVERSIONS[kind])
        if kind == "INT":
            i = rng.randrange(len(INTS))
            if conv == "c" and not 0 <= int(INTS[i]) % 256 < 128:
                continue
            var = f"I{i}"
        elif kind == "REAL":
            i = rng.randrange(len(REALS))
            var = f"R{i}"
        else:
            var = f"S{rng.randrange(len(STRINGS))}"
        # Spaces after the comma are part of the format.
        comma = rng.choice([",", ",", ", "])
        fmt = comma[1:] + spec(rng, kind, conv)
        if kind == "REAL" and conv not in "aA" and overflows(fmt, REALS[i]):
            continue
        lines.append(f'SET F{n:03d} "[${kind}({var},{fmt})]"')
        n += 1
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rules", "25_formats_generated.xform")
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{out}: {count} cases")


main()
