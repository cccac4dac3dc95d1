"""ClassAds, HTCondor's policy language, implemented in Rust.

A drop-in for the ``classad2`` module of the ``htcondor`` wheel::

    import classad_rs as classad2

with the semantics of evaluation an explicit argument (``semantics="new"``
or ``"old"``; never switched behind your back) and parse errors that carry
``line`` and ``column``.
"""

import enum
import os
from collections.abc import MutableMapping

from ._classad_rs import (
    Accountant,
    Analysis,
    Attribute,
    ClassAd,
    ClassAdException,
    Config,
    CycleMatch,
    CycleOutcome,
    CycleStats,
    ExprTree,
    Function,
    GroupFigures,
    GroupRound,
    GroupRoundTotals,
    JobQueues,
    JobTransforms,
    Literal,
    Match,
    Negotiator,
    Pool,
    PriorityRow,
    Rejection,
    Scenario,
    Simulation,
    SimulationProgress,
    SimulationResults,
    SlotState,
    StartdAction,
    StartdPolicy,
    StartdStep,
    SubmitRequirements,
    SubmitVerdict,
    SubmitterFigures,
    Transition,
    analyze,
    lastError,
    max_input_size,
    parseNext,
    parse_ads,
    parse_ads_bytes,
    parse_ads_file,
    parse_ads_stream,
    quote,
    register,
    set_max_input_size,
    unquote,
    unregister,
    __version__,
)
from ._sweep import sweep

__all__ = [
    "Accountant",
    "Analysis",
    "Attribute",
    "ClassAd",
    "ClassAdException",
    "Config",
    "CycleMatch",
    "CycleOutcome",
    "CycleStats",
    "ExprTree",
    "Function",
    "GroupFigures",
    "GroupRound",
    "GroupRoundTotals",
    "JobQueues",
    "JobTransforms",
    "Literal",
    "Match",
    "Negotiator",
    "Parser",
    "ParserType",
    "Pool",
    "PriorityRow",
    "Rejection",
    "Scenario",
    "Simulation",
    "SimulationProgress",
    "SimulationResults",
    "SlotState",
    "StartdAction",
    "StartdPolicy",
    "StartdStep",
    "SubmitRequirements",
    "SubmitVerdict",
    "SubmitterFigures",
    "Transition",
    "Value",
    "analyze",
    "lastError",
    "max_input_size",
    "parseAds",
    "parseNext",
    "parseOne",
    "quote",
    "register",
    "set_max_input_size",
    "sweep",
    "unquote",
    "unregister",
    "version",
]


class ParserType(enum.IntEnum):
    """The formats of ``parseAds``, as ``classad2.ParserType`` (strings such
    as ``"old"`` or ``"json"`` are accepted too)."""

    Auto = -1
    Old = 0
    XML = 1
    JSON = 2
    New = 3
    FileAuto = 4


Parser = ParserType
"""classad2's other name of ``ParserType``."""


class Value(enum.IntEnum):
    """The two values that are not data, as ``classad2.Value``."""

    Error = 1
    Undefined = 2


MutableMapping.register(ClassAd)


def version():
    """The version of classad-rs."""
    return __version__


def parseAds(text, parser=None):
    """Every ad of ``text``: a string, a file object (text or binary), bytes,
    or the path of a file (a ``pathlib.Path`` or other ``os.PathLike``; a
    ``str`` is the text itself). The format is detected unless ``parser`` is
    ``"new"``, ``"old"``, ``"json"`` or ``"xml"``. Bytes, binary files and
    paths may be gzip-compressed; binary data raises ``ClassAdException``
    saying so.

    A file object is read as the ads are iterated, a chunk at a time (a
    line at a time from a text pipe), so that the first ad comes as soon as
    the file holds it and memory stays bounded by the largest ad; an ad of
    more than 16 MiB raises ``ClassAdException``, and so does a malformed
    ad, when the iteration reaches it. An exception the file object raises
    is raised by the iteration as it is."""
    if isinstance(text, os.PathLike):
        return iter(parse_ads_file(os.fspath(text), parser))
    if hasattr(text, "read"):
        return parse_ads_stream(text, parser)
    if isinstance(text, (bytes, bytearray, memoryview)):
        return iter(parse_ads_bytes(bytes(text), parser))
    # A byte order mark read by a text file opened without "utf-8-sig".
    if isinstance(text, str) and text.startswith("\ufeff"):
        text = text[1:]
    return iter(parse_ads(text, parser))


def parseOne(text, parser=None):
    """All the ads of ``text`` (anything ``parseAds`` reads) merged into one
    (later attributes win)."""
    merged = ClassAd()
    for ad in parseAds(text, parser):
        for name in ad:
            merged[name] = ad.lookup(name)
    return merged
