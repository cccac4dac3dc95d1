"""The Python examples of docs/python.md run, in order, as a reader would
run them (from the repository's top directory), and so does the
notebook-style example examples/negotiation.py."""

import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def python_blocks(path):
    with open(path) as f:
        return re.findall(r"^```python\n(.*?)^```", f.read(), flags=re.M | re.S)


def test_extension_the_python_md_examples_run(monkeypatch, capsys):
    blocks = python_blocks(os.path.join(ROOT, "docs", "python.md"))
    assert len(blocks) >= 6
    monkeypatch.chdir(ROOT)
    namespace = {}
    for n, block in enumerate(blocks, 1):
        try:
            exec(compile(block, f"docs/python.md example {n}", "exec"), namespace)
        except Exception as e:
            pytest.fail(f"docs/python.md example {n} failed: {e!r}\n{block}")
    printed = capsys.readouterr().out
    assert "944 matches, 6 rejections" in printed


def test_extension_the_negotiation_example_script_runs(tmp_path):
    plot = tmp_path / "shares.png"
    run = subprocess.run(
        [sys.executable, os.path.join(ROOT, "examples", "negotiation.py"), "--plot", str(plot)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "1000 slots, 1000 jobs" in out
    assert re.search(r"^944 matches, 6 rejections in ", out, flags=re.M)
    for user in ("bench01", "bench02", "bench03", "bench04"):
        assert re.search(rf"^{user}@anchor.local +\d+\.\d+%", out, flags=re.M), out
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert "matplotlib is not installed" in out
    else:
        assert plot.stat().st_size > 0


def test_extension_values_have_the_types_the_stubs_give():
    run = subprocess.run(
        [sys.executable, os.path.join(ROOT, "bindings", "tests", "typed_matchmaker.py")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout == "types ok\n"
