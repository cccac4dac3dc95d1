"""Input meant to break the module: registered functions that recurse
through evaluation, streams that never end. Each must end in a Python
exception, never a crash, a hang or unbounded memory; the crashes are
looked for in a subprocess, so that one fails its test instead of killing
pytest."""

import os
import subprocess
import sys
import textwrap

import pytest

if os.environ.get("CLASSAD_RS_TEST_MODULE") == "classad2":
    import classad2
else:
    import classad_rs as classad2

MODULE = classad2.__name__

# A registered function that evaluates an expression calling itself, with
# Python's recursion limit raised far past what the stack holds; run on the
# main thread, or on a thread of the given stack size.
RECURSION = """
import sys, threading
import {module} as classad2

sys.setrecursionlimit(1_000_000)
levels = 0

def down(n):
    global levels
    levels += 1
    return classad2.ExprTree(f"down({{n - 1}})").eval() if n > 0 else 0

classad2.register(down)

def run():
    try:
        classad2.ExprTree("down(100000)").eval()
    except RecursionError as e:
        print(levels, e)

stack = {stack}
if stack is None:
    run()
else:
    if stack:
        threading.stack_size(stack)
    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
"""


def recurse(stack):
    """What the recursion script prints, run with a thread of ``stack``
    bytes (0: Python's default; None: on the main thread)."""
    script = textwrap.dedent(RECURSION.format(module=MODULE, stack=stack))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"exit status {done.returncode}: {done.stderr[-2000:]}"
    levels, message = done.stdout.split(" ", 1)
    return int(levels), message.strip()


def test_extension_recursion_through_registered_functions_stops_at_the_limit():
    levels, message = recurse(None)
    assert levels == 256
    assert "registered functions nested more than 256 levels deep" in message
    levels, message = recurse(0)  # threading's default stack
    assert levels == 256 and "more than 256 levels" in message


@pytest.mark.parametrize("stack", [256 << 10, 512 << 10, 1 << 20])
def test_extension_recursion_through_registered_functions_stops_before_a_small_stack_ends(stack):
    levels, message = recurse(stack)
    assert 0 < levels <= 256
    if levels < 256:
        assert "of this thread's stack left, a call needs 128 KiB" in message
