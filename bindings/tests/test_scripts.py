"""Scripts written for classad2 run unchanged with classad_rs in its place:
each script in scripts/ prints what it finds, and its output must be what
the real classad2 printed (the .expected file next to it; see the script's
docstring for how it was made)."""

import os
import subprocess
import sys

import pytest

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scripts")


@pytest.mark.parametrize("name", sorted(f[:-3] for f in os.listdir(SCRIPTS) if f.endswith(".py")))
def test_a_classad2_script_prints_what_it_printed_with_classad2(name):
    env = dict(os.environ)
    if env.get("CLASSAD_RS_TEST_MODULE") == "classad2":
        env["CLASSAD2_TOUR_MODULE"] = "classad2"
    else:
        env.pop("CLASSAD2_TOUR_MODULE", None)
    run = subprocess.run(
        [sys.executable, os.path.join(SCRIPTS, name + ".py")], capture_output=True, text=True, env=env, timeout=60
    )
    assert run.returncode == 0, run.stderr
    with open(os.path.join(SCRIPTS, name + ".expected")) as f:
        assert run.stdout == f.read()
