"""Writes submits/<case>.sub and submits/<case>.user: submit files drawn
at random (seeded) over request_memory (absent, below and above the
requirement), request_cpus, request_gpus, accounting_group and the
submitting user, for record.sh to submit to a real schedd.

    python3 gen-submits.py [COUNT]
"""
import os
import random
import sys

count = int(sys.argv[1]) if len(sys.argv) > 1 else 40
rng = random.Random(20261206)
here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "submits")
os.makedirs(out, exist_ok=True)
for name in os.listdir(out):
    os.remove(os.path.join(out, name))
for k in range(count):
    lines = ["executable = /bin/sleep", "arguments = 60"]
    memory = rng.choice([None, "256", "512", "1024", "4096", "1 + 600"])
    if memory:
        lines.append(f"request_memory = {memory}")
    cpus = rng.choice([None, "1", "4", "100", "64"])
    if cpus:
        lines.append(f"request_cpus = {cpus}")
    gpus = rng.choice([None, None, "1", "3"])
    if gpus:
        lines.append(f"request_gpus = {gpus}")
    group = rng.choice([None, None, "group_physics"])
    if group:
        lines.append(f"accounting_group = {group}")
    lines.append("queue")
    with open(os.path.join(out, f"s{k:03d}.sub"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(out, f"s{k:03d}.user"), "w") as f:
        f.write(rng.choice(["alice", "bob"]) + "\n")
print(f"{out}: {count} submit files")
