"""A macro cycle in a configuration raises, naming the chain and where
each link is set, instead of reading as an empty value."""

import pytest

import classad_rs


def test_a_macro_cycle_raises_with_its_chain(tmp_path):
    conf = tmp_path / "loop.conf"
    conf.write_text("A = $(B)\nB = $(A)\nC = plain\n")
    config = classad_rs.Config.from_file(str(conf))
    for read in (lambda: config.get("A"), lambda: config["A"], lambda: config.get("A", "fallback")):
        with pytest.raises(classad_rs.ClassAdException, match=r"macro cycle: A -> B -> A \(A at .*loop.conf, line 1; B at .*loop.conf, line 2\)"):
            read()
    assert config.get("C") == "plain"
    assert config.get("NOPE", "fallback") == "fallback"
    with pytest.raises(KeyError):
        config["NOPE"]
