"""Files read whole are bounded: a sparse gigabyte or /dev/zero given to
Accountant.load, Scenario.read or a transform's ``TRANSFORM ... from FILE``
raises an error naming the file, in bounded memory (each case runs in a
child interpreter under an address-space limit, so a reader that reads on
regardless fails instead of filling the machine)."""

import os
import resource
import subprocess
import sys
import textwrap

import pytest

MEMORY = 768 << 20


def run_limited(code):
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))

    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        preexec_fn=limit,
        timeout=120,
    )


@pytest.fixture
def sparse(tmp_path):
    path = tmp_path / "huge"
    with open(path, "wb") as f:
        f.truncate(1 << 30)
    return path


def check_refused(code, path):
    child = run_limited(code)
    assert child.returncode == 0, child.stderr[-2000:]
    message = child.stdout
    assert len(message) < 2000, len(message)
    assert str(path) in message, message
    assert "larger than the limit of 67108864 bytes" in message, message


def test_accountant_load_refuses_a_huge_log(sparse):
    check_refused(
        f"""
        import classad_rs
        try:
            classad_rs.Accountant.load({str(sparse)!r})
        except Exception as e:
            print(e)
        """,
        sparse,
    )


def test_scenario_read_refuses_a_huge_file(sparse):
    check_refused(
        f"""
        import classad_rs
        try:
            classad_rs.Scenario.read({str(sparse)!r})
        except Exception as e:
            print(e)
        """,
        sparse,
    )


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_transform_items_from_dev_zero_are_refused():
    check_refused(
        """
        import classad_rs
        transforms = classad_rs.JobTransforms()
        transforms.add_rules('SET Foo = "$(Q)"\\nTRANSFORM Q from /dev/zero\\n')
        try:
            transforms.transform_ads(classad_rs.ClassAd('[Owner = "alice"]'))
        except Exception as e:
            print(e)
        """,
        "/dev/zero",
    )


def test_the_limit_can_be_raised_and_lowered(tmp_path):
    log = tmp_path / "Accountantnew.log"
    child = run_limited(
        f"""
        import classad_rs
        assert classad_rs.max_input_size() == 64 << 20
        a = classad_rs.Accountant()
        a.set_priority_factor("amy@x", 5.0)
        a.save({str(log)!r})
        size = len(open({str(log)!r}, "rb").read())
        classad_rs.set_max_input_size(size - 1)
        assert classad_rs.max_input_size() == size - 1
        try:
            classad_rs.Accountant.load({str(log)!r})
            print("loaded")
        except Exception as e:
            print(e)
        classad_rs.set_max_input_size(size)
        print(classad_rs.Accountant.load({str(log)!r}).priority_factor("amy@x"))
        try:
            classad_rs.set_max_input_size(0)
        except ValueError as e:
            print(e)
        """
    )
    assert child.returncode == 0, child.stderr[-2000:]
    lines = child.stdout.splitlines()
    assert "larger than the limit of" in lines[0] and str(log) in lines[0], lines
    assert lines[1] == "5.0", lines
    assert "at least 1 byte" in lines[2], lines
