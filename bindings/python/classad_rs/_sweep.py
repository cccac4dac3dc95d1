"""``sweep``: many independent simulations, on a Dask ``distributed``
cluster when given a client, else in parallel threads of this process
(a simulation releases the GIL while it runs)."""

import importlib
import os
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any, Optional, Union

from . import Scenario, Simulation, SimulationResults

ScenarioLike = Union[Scenario, str, "os.PathLike[str]"]
# What ``until`` takes: seconds, or a duration text such as ``"8h"``.
Duration = Union[int, float, str]

# One run: the scenario's TOML text, the file it came from (absolute, so
# that its relative file names resolve in any worker), the seed, the
# configuration added to the scenario's, and the end. Plain values, so
# that a Dask worker gets them pickled.
_Spec = tuple[str, Optional[str], Optional[int], Optional[str], Optional[Duration]]


def _is_toml_text(text: str) -> bool:
    """A string is TOML text when it has a line break or an ``=``;
    otherwise it is a file name."""
    return "\n" in text or "=" in text


def _spec(item: ScenarioLike, seed: Optional[int], until: Optional[Duration]) -> _Spec:
    if isinstance(item, Scenario):
        origin = None if item.path is None else os.path.abspath(item.path)
        return (item.text, origin, item.seed if seed is None else seed, item.extra_config or None, until)
    if isinstance(item, str) and _is_toml_text(item):
        return (item, None, seed, None, until)
    if isinstance(item, (str, os.PathLike)):
        path = os.path.abspath(os.fspath(item))
        with open(path, encoding="utf-8") as f:
            return (f.read(), path, seed, None, until)
    raise TypeError(f"sweep: a scenario is a Scenario, TOML text or a path, not {type(item).__name__}")


def _run(
    text: str, path: Optional[str], seed: Optional[int], config: Optional[str], until: Optional[Duration]
) -> SimulationResults:
    """One simulation, from plain values: what a worker runs."""
    scenario = Scenario(text, path, seed, config)
    return Simulation(scenario).run(until)


def sweep(
    scenarios: Union[ScenarioLike, Iterable[ScenarioLike]],
    client: Any = None,
    *,
    seeds: Optional[Iterable[int]] = None,
    until: Optional[Duration] = None,
    workers: Optional[int] = None,
    progress: Optional[Callable[[int, int], object]] = None,
) -> list[SimulationResults]:
    """Runs independent simulations and gives their results in input order.

    ``scenarios``: one scenario or several, each a ``Scenario``, TOML text
    or the path of a TOML file. With ``seeds``, every scenario runs once
    per seed (scenario by scenario, seeds in order); without, each runs
    with its own seed. ``until`` ends every run early (simulated seconds,
    or a duration text such as ``"8h"``).

    With a ``dask.distributed.Client`` as ``client``, each run is one task
    on its cluster (the worker builds the scenario from its text; files
    the scenario names must be readable there at the same path); without,
    the runs share ``workers`` threads of this process (the number of
    CPUs by default), which run in parallel since a simulation releases
    the GIL. ``progress``, when given, is called with ``(done, total)`` as
    runs finish. The results are the same either way, and the same as
    running the scenarios one after the other.
    """
    if isinstance(scenarios, (Scenario, str, os.PathLike)):
        items: list[ScenarioLike] = [scenarios]
    else:
        items = list(scenarios)
    seed_list: list[Optional[int]] = [None] if seeds is None else list(seeds)
    specs = [_spec(item, seed, until) for item in items for seed in seed_list]
    total = len(specs)
    done = 0
    if client is not None:
        futures = [client.submit(_run, *spec, pure=False) for spec in specs]
        if progress is not None:
            distributed = importlib.import_module("distributed")
            for _ in distributed.as_completed(futures):
                done += 1
                progress(done, total)
        results: list[SimulationResults] = client.gather(futures)
        return results
    threads = max(1, min(total, workers or os.cpu_count() or 1))
    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="classad-rs-sweep") as pool:
        running = [pool.submit(_run, *spec) for spec in specs]
        if progress is not None:
            for _ in as_completed(running):
                done += 1
                progress(done, total)
        return [f.result() for f in running]
