"""Simulations from Python: ``Scenario``, ``Simulation.run`` (progress, the
GIL released), ``SimulationResults`` (columns, Arrow, pandas, pickle),
``sweep`` over threads and over a Dask cluster, and examples/sweep.py.
The scenarios are tiny: the whole file runs in seconds."""

import csv
import importlib.util
import os
import pickle
import re
import shutil
import subprocess
import sys
import threading

import pytest

import classad_rs

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Four 4-core machines; amy sends 1-core jobs all along, bob a burst of
# 2-core jobs after an hour; both want more than the pool has.
TINY = """
seed = 7
duration = "6h"
claim_delay = "5s"
record_every = "10m"
config = \"\"\"
NEGOTIATOR_INTERVAL = 60
PRIORITY_HALFLIFE = 3600
\"\"\"

[[pool.machines]]
count = 4
cpus = 4
memory = 8192

[[users]]
name = "amy"
arrival = { process = "poisson", mean_interval = "2m" }
runtime = { distribution = "exponential", mean = "30m" }

[[users]]
name = "bob"
arrival = { process = "burst", at = "1h", jobs = 40, every = "1d" }
runtime = { distribution = "exponential", mean = "1h" }
request_cpus = 2
"""
CPUS = {"amy@sim": 1, "bob@sim": 2}
POOL_CPUS = 16


@pytest.fixture(scope="module")
def results():
    return classad_rs.Simulation(classad_rs.Scenario(TINY)).run()


def test_extension_a_scenario_reads_from_text_and_files(tmp_path):
    s = classad_rs.Scenario(TINY)
    assert (s.seed, s.duration, s.path, s.users) == (7, 6 * 3600, None, ["amy", "bob"])
    assert "PRIORITY_HALFLIFE = 3600" in s.config
    path = tmp_path / "tiny.toml"
    path.write_text(TINY)
    read = classad_rs.Scenario.read(path)
    assert read.path == path and read.text == TINY and read != s == classad_rs.Scenario(TINY)
    assert read.with_seed(3).seed == 3 and read.seed == 7
    tuned = read.with_config("PRIORITY_HALFLIFE = 60")
    assert tuned.extra_config == "PRIORITY_HALFLIFE = 60\n"
    assert tuned.config.endswith("PRIORITY_HALFLIFE = 60\n") and tuned != read
    assert classad_rs.Scenario(TINY, seed=9, config="PRIORITY_HALFLIFE = 60").config == tuned.config


def test_extension_a_simulation_too_large_for_memory_is_refused_before_building() -> None:
    huge = TINY.replace("count = 4\n", "count = 10000000\n", 1)
    with pytest.raises(MemoryError, match=r"10000000 partitionable machines of about .* available on this machine"):
        classad_rs.Simulation(classad_rs.Scenario(huge))
    tiny = classad_rs.Scenario(TINY)
    with pytest.raises(MemoryError, match=r"more than the 1\.0 KiB given by max_memory; pass max_memory="):
        classad_rs.Simulation(tiny, max_memory=1024)
    assert classad_rs.Simulation(tiny, max_memory="unlimited").run().jobs > 0
    assert classad_rs.Simulation(tiny, max_memory=1 << 40).run().jobs > 0
    for bad in ("lots", True, 1.5):
        with pytest.raises(TypeError, match="max_memory: a number of bytes"):
            classad_rs.Simulation(tiny, max_memory=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not negative"):
        classad_rs.Simulation(tiny, max_memory=-1)


def test_extension_a_wrong_scenario_raises_with_its_place():
    with pytest.raises(classad_rs.ClassAdException, match=r"bad\.toml:2:1: unknown field `no_such_key`") as e:
        classad_rs.Scenario('duration = "6h"\nno_such_key = 1\n', "bad.toml")
    assert classad_rs.lastError() == str(e.value)
    with pytest.raises(classad_rs.ClassAdException, match="duration must be positive"):
        classad_rs.Scenario('duration = "0s"')
    with pytest.raises(FileNotFoundError, match="nowhere.toml"):
        classad_rs.Scenario.read("nowhere.toml")
    with pytest.raises(classad_rs.ClassAdException, match="configuration"):
        classad_rs.Simulation(classad_rs.Scenario(TINY, config="NEGOTIATOR_INTERVAL = (1 +"))


def test_extension_a_run_gives_consistent_tables(results):
    assert results.tables() == ["users", "groups", "cycles", "jobs"]
    assert (results.seed, results.cycles) == (7, 6 * 60 + 1)
    jobs = results.columns("jobs")
    assert len(jobs["job"]) == results.jobs > 100
    assert sum(e >= 0 for e in jobs["end"]) == results.finished > 0
    # bob's burst: 40 jobs at one hour.
    assert sum(u == "bob@sim" for u in jobs["user"]) == 40
    assert all(t == 3600 for t, u in zip(jobs["submit"], jobs["user"]) if u == "bob@sim")
    for submit, start, end, wait, run in zip(jobs["submit"], jobs["start"], jobs["end"], jobs["wait"], jobs["run"]):
        assert start == -1 or start >= submit + 5  # the claim delay
        assert end == -1 or (start >= 0 and end - start == run >= 0)
        assert 0 <= wait <= 6 * 3600 - submit
    cycles = results.columns("cycles")
    assert cycles["time"] == list(range(0, 6 * 3600 + 1, 60))
    assert all(total == POOL_CPUS for total in cycles["total_slots"])
    assert all(0 <= busy <= total for busy, total in zip(cycles["busy_slots"], cycles["total_slots"]))
    users = results.columns("users")
    assert users["time"] == sorted(users["time"]) and users["time"][-1] == 6 * 3600
    # Usage conservation: the pool's CPUs are all there is to use...
    for t in set(users["time"]):
        running = sum(CPUS[u] * r for u, r, tt in zip(users["user"], users["running"], users["time"]) if tt == t)
        assert running <= POOL_CPUS
    # ...and each user's accumulated usage holds at least its finished
    # jobs' CPU-seconds, at most what the pool had.
    for user, cpus in CPUS.items():
        acc = [a for a, u in zip(users["accumulated_usage"], users["user"]) if u == user]
        assert acc == sorted(acc)
        done = sum(cpus * r for r, u in zip(jobs["run"], jobs["user"]) if u == user)
        assert done <= acc[-1] <= POOL_CPUS * 6 * 3600
    assert results.columns("groups") == {c: [] for c in ("time", "group", "quota", "demand", "allocated", "usage")}
    with pytest.raises(classad_rs.ClassAdException, match='no table "nope"'):
        results.columns("nope")


def test_extension_a_scenario_and_seed_give_the_same_results():
    scenario = classad_rs.Scenario(TINY)
    one = classad_rs.Simulation(scenario, seed=11).run(until=7200)
    assert one == classad_rs.Simulation(scenario.with_seed(11)).run(until=7200)
    assert one != classad_rs.Simulation(scenario, seed=12).run(until=7200)
    assert one.seed == 11 and one.cycles == 121


def test_extension_until_takes_seconds_and_durations():
    scenario = classad_rs.Scenario(TINY)
    ends = []
    by_seconds = classad_rs.Simulation(scenario).run(until=7200)
    for until in ["2h", "120m", " 2 h", "7200", "7200s", 7200.0, 7199.6, "0.08333333333d"]:
        seen = []
        assert classad_rs.Simulation(scenario).run(until=until, progress=seen.append) == by_seconds, until
        ends.append(seen[-1].until)
    assert ends == [7200] * len(ends)
    assert classad_rs.Simulation(scenario).run(until="1h") != by_seconds
    for bad in ["soon", "2 fortnights", "-1h", "", -1, -0.5, float("inf"), float("nan")]:
        with pytest.raises(ValueError):
            classad_rs.Simulation(scenario).run(until=bad)
    for wrong in [[3600], b"1h", True]:
        with pytest.raises(TypeError, match="duration"):
            classad_rs.Simulation(scenario).run(until=wrong)
    # A refused argument leaves the simulation to run.
    sim = classad_rs.Simulation(scenario)
    with pytest.raises(ValueError, match="soon"):
        sim.run(until="soon")
    assert sim.run(until="2h") == by_seconds
    assert classad_rs.sweep(TINY, until="2h") == [by_seconds]


def test_extension_simulation_reprs():
    scenario = classad_rs.Scenario(TINY)
    assert repr(scenario) == "Scenario(text, seed=7, duration=21600s, 1 machine types, 2 user types)"
    sim = classad_rs.Simulation(scenario)
    assert repr(sim) == "Simulation(seed=7, duration=21600s)"
    seen = []
    sim.run(until="1h", progress=seen.append)
    assert repr(sim) == "Simulation(seed=7, duration=21600s, has run)"
    p = seen[-1]
    assert repr(p) == f"SimulationProgress(time=3600, until=3600, events={p.events}, cycles={p.cycles}, done=True)"


def cli_run(scenario_path, seed, out, formats):
    """`negotiator-sim simulate`'s summary of a run (the figures of its
    first and last lines), its tables written to `out`; None without
    cargo."""
    cargo = shutil.which("cargo")
    if cargo is None:
        return None
    run = subprocess.run(
        [cargo, "run", "--quiet", "--locked", "-p", "negotiator-sim", "--bin", "negotiator-sim", "--"]
        + ["simulate", str(scenario_path), "--seed", str(seed), "--out", str(out), "--format", formats],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=900,
    )
    assert run.returncode == 0, run.stderr
    first = re.search(
        r"(\d+) jobs submitted, (\d+) finished; (\d+) cycles \((\d+) matching\); (\d+) events", run.stderr
    )
    wait = re.search(r"mean wait of the jobs that started: (\d+) s", run.stderr)
    last = re.search(r"(\d+) matches, (\d+) of them preemptions", run.stderr)
    assert first and wait and last, run.stderr
    return [int(x) for x in first.groups()] + [int(wait.group(1))] + [int(x) for x in last.groups()]


def read_csv(path, like):
    """The CSV table at `path` as columns, each value read as the type of
    the same column in `like` (the columns of the same table)."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, rows = rows[0], rows[1:]
    assert header == list(like)
    kinds = {name: type(values[0]) if values else str for name, values in like.items()}
    return {name: [kinds[name](row[k]) for row in rows] for k, name in enumerate(header)}


def test_extension_a_run_gives_what_the_command_line_gives(tmp_path):
    path = tmp_path / "tiny.toml"
    path.write_text(TINY)
    out = tmp_path / "out"
    have_pyarrow = importlib.util.find_spec("pyarrow") is not None
    expected = cli_run(path, 5, out, "csv,parquet" if have_pyarrow else "csv")
    if expected is None:
        pytest.skip("cargo is not installed: negotiator-sim cannot be run")
    r = classad_rs.Simulation(classad_rs.Scenario.read(path), seed=5).run()
    jobs, cycles = r.columns("jobs"), r.columns("cycles")
    waits = [w for w, s in zip(jobs["wait"], jobs["start"]) if s >= 0]
    got = [r.jobs, r.finished, r.cycles, r.full_cycles, r.events, round(sum(waits) / len(waits))]
    got += [sum(cycles["matches"]), sum(cycles["preemptions"])]
    assert got == expected
    # Every table, value for value.
    for name in r.tables():
        columns = r.columns(name)
        assert read_csv(out / f"{name}.csv", columns) == columns, name
        if have_pyarrow:
            import pyarrow.parquet as pq

            assert pq.read_table(out / f"{name}.parquet").to_pydict() == r.to_arrow(name).to_pydict() == columns


def test_extension_progress_is_reported_with_the_gil_held():
    seen = []

    def progress(p):
        assert threading.current_thread() is threading.main_thread()
        seen.append((p.time, p.until, p.events, p.cycles, p.full_cycles, p.fraction, p.done))

    r = classad_rs.Simulation(classad_rs.Scenario(TINY)).run(progress=progress)
    assert 50 <= len(seen) <= 200
    times = [s[0] for s in seen]
    assert times == sorted(times) and times[0] == 0
    assert [s[6] for s in seen] == [False] * (len(seen) - 1) + [True]
    assert seen[-1][:5] == (6 * 3600, 6 * 3600, r.events, r.cycles, r.full_cycles) and seen[-1][5] == 1.0
    assert all(0.0 <= s[5] <= 1.0 for s in seen)


def test_extension_an_exception_in_progress_stops_the_run():
    calls = []

    def progress(p):
        calls.append(p)
        if len(calls) == 3:
            raise KeyError("stop")

    sim = classad_rs.Simulation(classad_rs.Scenario(TINY))
    with pytest.raises(KeyError, match="stop"):
        sim.run(progress=progress)
    assert len(calls) == 3
    with pytest.raises(classad_rs.ClassAdException, match="already run"):
        sim.run()


def test_extension_the_gil_is_released_while_a_simulation_runs():
    sim = classad_rs.Simulation(classad_rs.Scenario(TINY.replace('"6h"', '"12h"')))
    ran = threading.Thread(target=sim.run)
    counted = 0
    ran.start()
    while ran.is_alive():
        counted += 1
    ran.join()
    # Holding the GIL, the run would leave this loop a handful of turns.
    assert counted > 10_000


def test_extension_results_are_arrow_tables_and_data_frames(results):
    pa = pytest.importorskip("pyarrow")
    for name in results.tables():
        table = results.to_arrow(name)
        assert table.to_pydict() == results.columns(name)
    jobs = results.to_arrow("jobs")
    assert jobs.schema.field("submit").type == pa.int64() and jobs.schema.field("user").type == pa.string()
    assert results.to_arrow("users").schema.field("usage").type == pa.float64()
    # The column wraps the bytes made in Rust.
    buffers = {b[0]: b for b in results.arrow_buffers("jobs")}
    assert jobs.column("submit").chunk(0).buffers()[1].to_pybytes() == buffers["submit"][4]
    pd = pytest.importorskip("pandas")
    frame = results.to_pandas("users")
    assert isinstance(frame, pd.DataFrame) and list(frame.columns) == list(results.columns("users"))
    assert len(frame) == len(results.columns("users")["time"])


def test_extension_results_and_scenarios_pickle(results):
    back = pickle.loads(pickle.dumps(results))
    assert back == results and back is not results
    assert back.tables() == results.tables() and back.columns("jobs") == results.columns("jobs")
    for figure in ("seed", "cycles", "full_cycles", "events", "jobs", "finished"):
        assert getattr(back, figure) == getattr(results, figure)
    # The state: numbers as bytes; lists do too.
    seed, totals, tables = results.__reduce__()[1][0]
    assert {k for _, columns in tables for _, k, v in columns if isinstance(v, bytes)} == {"i64", "f64"}
    as_lists = [(n, [(c, k, results.columns(n)[c]) for c, k, _ in columns]) for n, columns in tables]
    assert classad_rs.SimulationResults((seed, totals, as_lists)) == results
    with pytest.raises(classad_rs.ClassAdException, match="table jobs, column submit: .* 8-byte"):
        classad_rs.SimulationResults((seed, totals, [("jobs", [("submit", "i64", b"1234")])]))
    with pytest.raises(classad_rs.ClassAdException, match="a different number of rows"):
        classad_rs.SimulationResults((seed, totals, [("jobs", [("a", "i64", [1]), ("b", "str", [])])]))
    s = classad_rs.Scenario(TINY).with_seed(4).with_config("PRIORITY_HALFLIFE = 60")
    s2 = pickle.loads(pickle.dumps(s))
    assert s2 == s and s2.seed == 4 and s2.extra_config == s.extra_config


def policies(n):
    """`n` tiny variants of TINY: half-lives and seeds."""
    base = classad_rs.Scenario(TINY.replace('"6h"', '"2h"'))
    return [base.with_seed(k % 4).with_config(f"PRIORITY_HALFLIFE = {60 * 4 ** (k // 4)}") for k in range(n)]


def test_extension_a_local_sweep_gives_the_serial_results_in_order(tmp_path):
    scenarios = policies(6)
    serial = [classad_rs.Simulation(s).run() for s in scenarios]
    assert len({repr(r.columns("users")) for r in serial}) == 6
    done = []
    assert classad_rs.sweep(scenarios, workers=3, progress=lambda d, t: done.append((d, t))) == serial
    assert done == [(k, 6) for k in range(1, 7)]
    # Text and paths; seeds over one scenario; an early end.
    path = tmp_path / "tiny.toml"
    path.write_text(TINY)
    text_run, path_run = classad_rs.sweep([TINY, path], until=3600)
    assert text_run == path_run == classad_rs.Simulation(classad_rs.Scenario(TINY)).run(until=3600)
    by_seed = classad_rs.sweep(str(path), seeds=[1, 2, 3], until=3600)
    assert [r.seed for r in by_seed] == [1, 2, 3]
    assert by_seed[1] == classad_rs.Simulation(classad_rs.Scenario(TINY, seed=2)).run(until=3600)
    with pytest.raises(TypeError, match="not int"):
        classad_rs.sweep([3])


def test_extension_a_sweep_on_a_dask_cluster_gives_the_serial_results():
    distributed = pytest.importorskip("distributed")
    scenarios = policies(16)
    serial = [classad_rs.Simulation(s).run() for s in scenarios]
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        done = []
        swept = classad_rs.sweep(scenarios, client, progress=lambda d, t: done.append(d))
        workers = client.run(os.getpid)
    assert swept == serial
    assert done == list(range(1, 17))
    assert len(workers) == 2 and os.getpid() not in workers.values()


def test_extension_the_sweep_example_runs(tmp_path):
    plot = tmp_path / "usage.png"
    run = subprocess.run(
        [sys.executable, os.path.join(ROOT, "examples", "sweep.py"), "--until", "8h", "--plot", str(plot)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stderr
    out = run.stdout
    for halflife in ("10m", "1h", "1d"):
        assert re.search(rf"^PRIORITY_HALFLIFE = {halflife}$", out, flags=re.M), out
    shares = [float(s) for s in re.findall(r"^ +(?:alice|bob)@sim +[\d.]+ +([\d.]+)%", out, flags=re.M)]
    assert len(shares) == 6, out
    for k in range(0, 6, 2):
        assert abs(shares[k] + shares[k + 1] - 100) < 0.2, out
    # The longer alice's usage is remembered, the more bob gets.
    bob = shares[1::2]
    assert bob == sorted(bob) and bob[0] < bob[-1], out
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert "matplotlib is not installed" in out
    else:
        assert plot.stat().st_size > 0


def test_extension_the_sweep_example_without_dask_says_what_to_install(tmp_path):
    # A `distributed` that cannot be imported, whether or not it is installed.
    (tmp_path / "distributed.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'distributed'\", name='distributed')\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    run = subprocess.run(
        [sys.executable, os.path.join(ROOT, "examples", "sweep.py"), "--dask", "--until", "1h"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env=env,
    )
    assert run.returncode == 1, (run.stdout, run.stderr)
    assert "Traceback" not in run.stderr, run.stderr
    assert run.stderr == 'dask is not installed: --dask needs it (pip install "dask[distributed]")\n'
    assert run.stdout == ""


def test_extension_the_sweep_examples_until_is_read_as_the_command_line_reads_it():
    def sweep(until):
        return subprocess.run(
            [sys.executable, os.path.join(ROOT, "examples", "sweep.py"), "--halflives", "1h", "--until", until],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=ROOT,
        )

    short = sweep("2h")
    assert short.returncode == 0, short.stderr
    assert "PRIORITY_HALFLIFE = 1h" in short.stdout
    # negotiator-sim's spellings of a duration, as classad_rs reads them.
    for same in ["2 hours", "120min", "7200", "0.0833333333d"]:
        run = sweep(same)
        assert (run.returncode, run.stdout) == (0, short.stdout), (same, run.stderr)
    assert sweep("3h").stdout != short.stdout
    bad = sweep("soon")
    assert bad.returncode == 2 and bad.stdout == "", bad.stdout
    assert "Traceback" not in bad.stderr, bad.stderr
    assert bad.stderr == "sweep.py: --until: `soon`: unknown unit `soon` (use s, m, h, d, w or y)\n", bad.stderr


def test_extension_simulation_values_have_the_types_the_stubs_give():
    run = subprocess.run(
        [sys.executable, os.path.join(ROOT, "bindings", "tests", "typed_simulation.py")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout == "types ok\n"
