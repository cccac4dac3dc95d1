#!/usr/bin/env python3
"""Regenerate the startd policy oracle data (`policy-knobs.json`).

For every configuration in `policies/`, asks the real `condor_config_val`
(HTCondor 23.9, as the STARTD subsystem) for the value of each policy
knob the startd reads, and stores the answers (null: not defined).
`matchmaker/tests/startd_oracle.rs` checks that `Policy::from_config`
reads the same expressions.

Needs HTCondor. This script runs it inside a Debian chroot (default
`/tmp/anchor/trixie`, override with CHROOT=...) as root; any Debian or
Ubuntu system with the `condor` package installed works the same
(`apt-get install condor`). Set CHROOT=/ to run the host's own
condor_config_val.

Usage: sudo python3 generate.py
"""

import json
import os
import shutil
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
POLICIES = os.path.join(HERE, "policies")
CHROOT = os.environ.get("CHROOT", "/tmp/anchor/trixie")
INSIDE = "/tmp/startd-policies"
ENV = {"PATH": "/usr/bin:/bin:/usr/sbin:/sbin"}
# PERIODIC_CHECKPOINT is left out: HTCondor draws its $RANDOM_INTEGER anew
# on every run.
KNOBS = ["START", "IS_OWNER", "SUSPEND", "CONTINUE", "PREEMPT", "KILL",
         "WANT_SUSPEND", "WANT_VACATE", "WANT_HOLD", "MaxJobRetirementTime",
         "MachineMaxVacateTime", "CLAIM_WORKLIFE", "RANK", "RunBenchmarks",
         "CpuBusy", "STARTD_LATCH_EXPRS", "MATCH_TIMEOUT", "KILLING_TIMEOUT",
         "POLLING_INTERVAL", "UPDATE_INTERVAL", "IsDesktop"]


def value(config, knob):
    env = dict(ENV)
    env["CONDOR_CONFIG"] = config
    cmd = ["chroot", CHROOT, "condor_config_val", "-subsystem", "STARTD", knob]
    if CHROOT == "/":
        cmd = cmd[2:]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=20)
    if p.returncode != 0:
        return None
    return p.stdout.rstrip("\n")


def main():
    dest = os.path.join(CHROOT, INSIDE.lstrip("/"))
    if os.path.exists(dest):
        shutil.rmtree(dest)
    shutil.copytree(POLICIES, dest)
    out = {}
    try:
        for name in sorted(os.listdir(POLICIES)):
            if name.endswith(".conf"):
                config = INSIDE + "/" + name
                out[name] = {k: value(config, k) for k in KNOBS}
    finally:
        shutil.rmtree(dest)
    with open(os.path.join(HERE, "policy-knobs.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
