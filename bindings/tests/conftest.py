"""With CLASSAD_RS_TEST_MODULE=classad2 the tests run against HTCondor's
own module (``pip install htcondor``), skipping the ``test_extension_*``
tests of behaviour classad2 does not have: the way their expected values
are checked against the real thing."""

import os

import pytest

AGAINST_CLASSAD2 = os.environ.get("CLASSAD_RS_TEST_MODULE") == "classad2"


def pytest_collection_modifyitems(config, items):
    if not AGAINST_CLASSAD2:
        return
    skip = pytest.mark.skip(reason="an extension of classad_rs, not in classad2")
    for item in items:
        if item.name.startswith("test_extension_"):
            item.add_marker(skip)
