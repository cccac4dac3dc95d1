"""The simulator's stubs checked both ways: `mypy --strict` checks this
file against the stubs (./run-tests does), and running it
(test_simulation.py does) checks that every value has the type the stubs
give it."""

import os
import pathlib
import pickle
from typing import Any, Optional

import classad_rs

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCENARIO = os.path.join(ROOT, "examples", "sweep.toml")


def check(value: Any, *types: type) -> None:
    assert isinstance(value, types), (value, types)


def check_list(values: list[Any], kind: type) -> None:
    check(values, list)
    for v in values:
        check(v, kind)


def main() -> None:
    scenario: classad_rs.Scenario = classad_rs.Scenario.read(SCENARIO, seed=3)
    seed: int = scenario.seed
    duration: int = scenario.duration
    path: Optional[pathlib.Path] = scenario.path
    text: str = scenario.text
    config: str = scenario.config
    users: list[str] = scenario.users
    check(seed, int)
    check(duration, int)
    check(path, pathlib.Path)
    check(text, str)
    check(config, str)
    check_list(users, str)
    tuned = scenario.with_seed(4).with_config("PRIORITY_HALFLIFE = 60")
    extra: str = tuned.extra_config
    check(extra, str)
    from_text = classad_rs.Scenario(text, path=SCENARIO, seed=None, config="CLAIM_WORKLIFE = 60")
    check(from_text.path, pathlib.Path)

    seen: list[classad_rs.SimulationProgress] = []
    sim = classad_rs.Simulation(tuned, seed=5)
    check(sim.seed, int)
    results: classad_rs.SimulationResults = sim.run(until=3600, progress=seen.append)
    check_list(seen, classad_rs.SimulationProgress)
    p = seen[-1]
    check(p.time, int)
    check(p.until, int)
    check(p.events, int)
    check(p.cycles, int)
    check(p.full_cycles, int)
    check(p.fraction, float)
    check(p.done, bool)
    # A duration as a text or a float, as the scenario file writes one.
    for until in ("30m", 1800.0):
        short = classad_rs.Simulation(tuned, seed=5).run(until=until)
        check(short, classad_rs.SimulationResults)
    for n in (results.seed, results.cycles, results.full_cycles, results.events, results.jobs, results.finished):
        check(n, int)
    names: list[classad_rs.SimulationTable] = results.tables()
    check_list(names, str)
    columns: dict[str, list[Any]] = results.columns("jobs")
    check(columns, dict)
    check_list(columns["user"], str)
    check_list(columns["submit"], int)
    check_list(results.columns("users")["usage"], float)
    buffers: list[classad_rs.ArrowBuffers] = results.arrow_buffers("cycles")
    for name, kind, length, validity, data, offsets in buffers:
        check(name, str)
        check(kind, str)
        check(length, int)
        check(validity, bytes, type(None))
        check(data, bytes)
        check(offsets, bytes, type(None))
    state: classad_rs.SimulationState = results.__reduce__()[1][0]
    check(classad_rs.SimulationResults(state), classad_rs.SimulationResults)
    back: classad_rs.SimulationResults = pickle.loads(pickle.dumps(results))
    check(back == results, bool)

    swept: list[classad_rs.SimulationResults] = classad_rs.sweep(
        [scenario, text, pathlib.Path(SCENARIO)], seeds=[1, 2], until=600, workers=2, progress=lambda d, t: None
    )
    check_list(swept, classad_rs.SimulationResults)
    check_list(classad_rs.sweep(SCENARIO, None, until=600), classad_rs.SimulationResults)
    check_list(classad_rs.sweep(SCENARIO, until="10m"), classad_rs.SimulationResults)
    print("types ok")


if __name__ == "__main__":
    main()
