"""The matchmaker from Python (extensions: classad2 has none of it):
configuration, priorities, negotiation cycles and the startd's policy.
The cycles are checked against HTCondor's own (the snapshots under
matchmaker/tests/data/cycle, each a real cycle of HTCondor 23.9.6; see
that directory's README), as matchmaker/tests/cycle_oracle.rs checks the
library."""

import os
import sys
import threading
import time

import pytest

import classad_rs

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CYCLES = os.path.join(ROOT, "matchmaker", "tests", "data", "cycle")


def snapshot(name):
    return os.path.join(CYCLES, name)


def expected(name):
    """HTCondor's matches per submitter, total and rejections (job,
    submitter, reason) from a snapshot's summary.txt."""
    per_submitter, total, rejections = {}, None, []
    with open(os.path.join(snapshot(name), "summary.txt")) as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if fields[0] == "matches_by_submitter":
                per_submitter[fields[1]] = int(fields[2])
            elif fields[0] == "rejected":
                rejections.append(tuple(fields[1:4]))
            elif line.startswith("matches "):
                total = int(line.split()[1])
    return per_submitter, total, rejections


def oracle_cycle(name, config_file="config.dump", prio="fresh"):
    """A snapshot's cycle set up as HTCondor's ran: the captured
    configuration, priorities fresh (with the captured factors) or as
    written before the cycle, jobs offered again after a match."""
    d = snapshot(name)
    config = classad_rs.Config(file=os.path.join(d, config_file), subsystem="NEGOTIATOR")
    if prio == "before":
        acct = classad_rs.Accountant.from_userprio(os.path.join(d, "userprio-before.ad"), config)
    else:
        acct = classad_rs.Accountant(config)
        for row in classad_rs.Accountant.from_userprio(os.path.join(d, "userprio.ad"), config).rows():
            if not row.is_group:
                acct.set_priority_factor(row.name, row.priority_factor)
    negotiator = classad_rs.Negotiator(config, resend_matched_jobs=True)
    outcome = negotiator.cycle(
        os.path.join(d, "slots.ad.gz"),
        os.path.join(d, "jobs.ad.gz"),
        acct,
        now=0,
        submitters=os.path.join(d, "submitters.ad"),
    )
    return outcome, acct


# ----- Config -------------------------------------------------------------


def test_extension_config_reads_text_with_typed_getters():
    config = classad_rs.Config("PRIORITY_HALFLIFE = 2 * 3600\nA = $(B)x\nB = y\nFLAG = true\nR = 0.5\n", name="n.conf")
    assert config.get_int("PRIORITY_HALFLIFE") == 7200
    assert config.get("a") == "yx"
    assert config.raw("A") == "$(B)x"
    assert config.source("A") == "n.conf, line 2"
    assert config.get_bool("FLAG") is True
    assert config.get_real("R") == 0.5
    assert config.get("NOT_SET_ANYWHERE") is None
    assert config.get("NOT_SET_ANYWHERE", "dflt") == "dflt"
    assert config["B"] == "y"
    with pytest.raises(KeyError):
        config["NOT_SET_ANYWHERE"]
    assert "A" in config and "NOT_SET_ANYWHERE" not in config
    # HTCondor's defaults underneath.
    assert config.get_int("MAX_ACCOUNTANT_DATABASE_SIZE") == 1_000_000
    assert str(config.get_expr("PREEMPTION_REQUIREMENTS")) != ""
    assert "RemoteUserPrio" in str(config.get_expr("PREEMPTION_RANK"))
    names = list(config)
    assert len(names) == len(config) > 1000
    assert "PRIORITY_HALFLIFE" in names


def test_extension_config_errors_name_the_file_and_line():
    with pytest.raises(classad_rs.ClassAdException, match="bad.conf, line 2"):
        classad_rs.Config("A = 1\nB\n", name="bad.conf")
    config = classad_rs.Config("NEGOTIATOR_INTERVAL = often\n", name="n.conf")
    with pytest.raises(classad_rs.ClassAdException, match="n.conf, line 1"):
        config.get_int("NEGOTIATOR_INTERVAL")
    with pytest.raises(classad_rs.ClassAdException):
        classad_rs.Config(file=os.path.join(ROOT, "no-such-config-file"))


def test_extension_config_files_and_subsystems(tmp_path):
    (tmp_path / "condor_config").write_text("LOCAL_CONFIG_FILE = $(CONFIG_ROOT)/local\nA = top\n")
    (tmp_path / "local").write_text("A = local\nNEGOTIATOR.A = negotiator's\n")
    config = classad_rs.Config.from_file(tmp_path / "condor_config")
    assert config.get("A") == "local"
    assert len(config.files) == 2
    negotiator = classad_rs.Config(file=str(tmp_path / "condor_config"), subsystem="NEGOTIATOR")
    assert negotiator.get("A") == "negotiator's"
    config.set("A", "$(A) and more")
    assert config.get("A") == "local and more"
    assert not config.is_dump
    assert config.local_files == [str(tmp_path / "local")]


def test_extension_config_a_dump_is_read_alone(tmp_path):
    # condor_config_val -dump output names the local files of the machine it
    # was taken on; those of this machine are not read, and a missing one
    # is not listed among the files.
    local = tmp_path / "condor_config.local"
    local.write_text("GROUP_NAMES = from_this_machine\n")
    dump = tmp_path / "config.dump"
    dump.write_text(
        "# Configuration from negotiator on cm <10.0.0.1:9618>\n"
        f"GROUP_NAMES = group_a, group_b\nLOCAL_CONFIG_FILE = {local}\n"
        f"LOCAL_CONFIG_DIR = {tmp_path}\nREQUIRE_LOCAL_CONFIG_FILE = false\n"
    )
    for config in (classad_rs.Config(file=str(dump)), classad_rs.Config.from_file(dump, subsystem="NEGOTIATOR")):
        assert config.is_dump
        assert config.get("GROUP_NAMES") == "group_a, group_b"
        assert config.files == [str(dump)]
        assert config.local_files == []
    # The same text without the dump's header is a top file: its local
    # files are read, and a missing one is listed as condor_config_val does.
    top = tmp_path / "condor_config"
    missing = tmp_path / "missing.local"
    top.write_text(f"GROUP_NAMES = group_a\nLOCAL_CONFIG_FILE = {local} {missing}\nREQUIRE_LOCAL_CONFIG_FILE = false\n")
    config = classad_rs.Config(file=str(top))
    assert not config.is_dump
    assert config.get("GROUP_NAMES") == "from_this_machine"
    assert config.files == [str(top), str(local), str(missing)]


# ----- Accountant ---------------------------------------------------------


def test_extension_accountant_decays_usage_with_the_half_life():
    acct = classad_rs.Accountant()  # a one-day half-life
    slot = classad_rs.ClassAd(
        '[ Name = "slot1@node"; StartdIpAddr = "<10.0.0.1:9618>"; State = "Claimed";'
        ' RemoteUser = "alice@site"; SlotWeight = 100 ]'
    )
    acct.update_priorities(0)
    acct.check_matches(0, [slot])
    assert acct.usage("alice@site") == 100
    acct.update_priorities(2 * 86_400)
    assert acct.real_priority("alice@site") == pytest.approx(75.125)
    assert acct.effective_priority("alice@site") == pytest.approx(75.125 * acct.priority_factor("alice@site"))
    assert acct.last_update == 2 * 86_400


def test_extension_accountant_admin_operations_and_save_load(tmp_path):
    config = classad_rs.Config("PRIORITY_HALFLIFE = 60\n")
    acct = classad_rs.Accountant(config)
    acct.set_priority_factor("amy@site", 2000)
    acct.set_priority("amy@site", 3.0)
    acct.set_ceiling("amy@site", 20)
    acct.set_floor("amy@site", 2)
    acct.set_priority_factor("bob@site", 1500)
    assert acct.effective_priority("amy@site") == 6000
    assert acct.ceiling("amy@site") == 20 and acct.floor("amy@site") == 2
    assert acct.ceiling("bob@site") is None
    with pytest.raises(classad_rs.ClassAdException):
        acct.set_priority_factor("amy@site", 0.5)  # condor_userprio refuses factors below 1
    assert acct.delete("bob@site") is True
    assert acct.delete("bob@site") is False
    assert "amy@site" in acct and "bob@site" not in acct

    log = tmp_path / "Accountantnew.log"
    acct.save(log, now=1_700_000_000)
    text = log.read_text()
    assert text.startswith("107 ")
    again = classad_rs.Accountant.load(log, config)
    assert again.take_warnings() == []
    assert again.effective_priority("amy@site") == 6000
    assert again.ceiling("amy@site") == 20
    assert again.names() == acct.names()
    assert classad_rs.Accountant.from_log_text(text, config).priority_factor("amy@site") == 2000


def test_extension_accountant_open_appends_to_its_log(tmp_path):
    log = tmp_path / "Accountantnew.log"
    acct = classad_rs.Accountant.open(log, 1000)
    assert str(acct.log_path) == str(log)
    acct.set_priority_factor("carl@site", 3000)
    assert classad_rs.Accountant.load(log).priority_factor("carl@site") == 3000


def test_extension_accountant_from_condor_userprio_output():
    ad = classad_rs.ClassAd(
        '[ LastUpdate = 1000; NumSubmittors = 1; Name1 = "amy@site"; Priority1 = 1500.0;'
        " PriorityFactor1 = 1000.0; Ceiling1 = 20; Floor1 = 0 ]"
    )
    acct = classad_rs.Accountant.from_userprio(ad)
    assert acct.real_priority("amy@site") == 1.5
    assert acct.last_update == 1000
    from_file = classad_rs.Accountant.from_userprio(os.path.join(snapshot("snap-1000-1000-4-8"), "userprio.ad"))
    rows = [r for r in from_file.rows() if not r.is_group]
    assert sorted(r.name for r in rows) == [f"bench0{i}@anchor.local" for i in range(1, 5)]
    assert [r.priority_factor for r in sorted(rows, key=lambda r: r.name)] == [1000.001, 1000.002, 1000.003, 1000.004]


# ----- Negotiator ---------------------------------------------------------


def test_extension_a_cycle_makes_htcondors_matches():
    outcome, acct = oracle_cycle("snap-1000-1000-4-8")
    per_submitter, total, rejections = expected("snap-1000-1000-4-8")
    matches = outcome.matches
    assert len(matches) == total == outcome.stats.matches
    ours = {}
    for m in matches:
        ours[m.submitter] = ours.get(m.submitter, 0) + 1
    assert ours == per_submitter
    assert [(r.job, r.submitter, r.reason) for r in outcome.rejections] == rejections
    assert outcome.stats.pie_spins == 2
    first = matches[0]
    assert first.claim == "no preemption" and first.preempting is None
    assert first.job == f"{first.cluster}.{first.proc}"
    assert first.cost >= 1.0
    # The submitters' figures, and the matches charged to the accountant.
    figures = {s.name: s for s in outcome.submitters}
    assert set(figures) == set(per_submitter)
    for name, s in figures.items():
        assert s.matches == per_submitter[name] == outcome.matches_of(name)
        cost = sum(m.cost for m in matches if m.submitter == name)
        assert s.usage_after == pytest.approx(s.usage_before + cost)
        assert acct.usage(name) == pytest.approx(s.usage_after)
    assert sum(s.share for s in outcome.submitters) == pytest.approx(1.0)


def test_extension_a_cycle_takes_lists_of_ads_as_well_as_files():
    d = snapshot("snap-200-200-3-6")
    slots = list(classad_rs.parseAds(open(os.path.join(d, "slots.ad"), "rb")))
    jobs = list(classad_rs.parseAds(open(os.path.join(d, "jobs.ad.gz"), "rb")))
    negotiator = classad_rs.Negotiator(classad_rs.Config(file=os.path.join(d, "config.dump")), resend_matched_jobs=True)
    from_lists = negotiator.cycle(slots, jobs)
    from_files = negotiator.cycle(os.path.join(d, "slots.ad"), os.path.join(d, "jobs.ad.gz"))
    assert [(m.job, m.slot) for m in from_lists.matches] == [(m.job, m.slot) for m in from_files.matches]
    assert from_lists.stats.total_slots == len(slots) == 200
    assert repr(from_lists).startswith("CycleOutcome(")
    assert slots[0].get("Name") is not None  # the inputs are not consumed


def test_extension_jobs_grouped_once_serve_several_cycles():
    d = snapshot("snap-1000-1000-4-8")
    config = classad_rs.Config(file=os.path.join(d, "config.dump"), subsystem="NEGOTIATOR")
    negotiator = classad_rs.Negotiator(config, resend_matched_jobs=True)
    slots = list(classad_rs.parseAds(open(os.path.join(d, "slots.ad.gz"), "rb")))
    jobs = list(classad_rs.parseAds(open(os.path.join(d, "jobs.ad.gz"), "rb")))
    queues = negotiator.queues(slots, jobs, submitters=os.path.join(d, "submitters.ad"))
    assert len(queues) == 4 and queues.idle_jobs == 1000 and queues.autoclusters == 8
    assert sorted(queues.submitters) == [f"bench0{i}@anchor.local" for i in range(1, 5)]
    direct = negotiator.cycle(slots, jobs, submitters=os.path.join(d, "submitters.ad"))
    for _ in range(2):
        again = negotiator.cycle(slots, queues)
        assert [(m.job, m.slot) for m in again.matches] == [(m.job, m.slot) for m in direct.matches]
    with pytest.raises(classad_rs.ClassAdException, match="submitters"):
        negotiator.cycle(slots, queues, submitters=[])


def test_extension_a_cycle_with_group_quotas_gives_the_group_tree():
    outcome, _ = oracle_cycle("snap-groups", prio="before")
    per_submitter, total, _ = expected("snap-groups")
    assert len(outcome.matches) == total
    assert {s.name: s.matches for s in outcome.submitters if s.matches} == per_submitter
    groups = {g.name: g for g in outcome.groups}
    assert list(groups)[0] == "<none>" and groups["<none>"].parent is None
    assert groups["group_b.sub1"].parent == "group_b"
    assert groups["group_a"].static_quota and groups["group_a"].config_quota == 40
    assert groups["group_a"].accept_surplus
    assert not groups["group_b"].static_quota and groups["group_b"].config_quota == pytest.approx(0.3)
    # HTCondor's matches per group (summary.txt's matches_by_group).
    assert {n: g.matches for n, g in groups.items() if g.matches} == {
        "<none>": 30,
        "group_a": 45,
        "group_b": 15,
        "group_c": 10,
    }
    assert all(g.rounds and g.rounds[0].round == 1 for g in groups.values() if g.matches)
    assert outcome.group_rounds and outcome.group_rounds[0].order
    assert groups["group_a"].explanation


def test_extension_outcome_records_have_pythons_reprs():
    outcome, _ = oracle_cycle("snap-groups", prio="before")
    stats = outcome.stats
    assert repr(stats) == (
        f"CycleStats(total_slots={stats.total_slots}, candidate_slots={stats.candidate_slots}, "
        f"matches={stats.matches}, rejections={stats.rejections}, pies={stats.pies}, pie_spins={stats.pie_spins}, "
        f"active_submitters={stats.active_submitters}, idle_jobs={stats.idle_jobs})"
    )
    rounds = [r for g in outcome.groups for r in g.rounds]
    assert rounds and any(r.skipped is None for r in rounds)
    for r in rounds:
        assert repr(r) == (
            f"GroupRound(round={r.round}, quota={r.quota!r}, requested={r.requested!r}, allocated={r.allocated!r}, "
            f"matches={r.matches}, skipped={r.skipped!r}, capped_by={r.capped_by!r})"
        )
    assert outcome.group_rounds
    for t in outcome.group_rounds:
        assert repr(t) == (
            f"GroupRoundTotals(round={t.round}, allocated={t.allocated!r}, usage={t.usage!r}, "
            f"surplus={t.surplus!r}, order={t.order!r})"
        )
    for g in outcome.groups:
        assert repr(g) == f"GroupFigures(name={g.name!r}, quota={g.quota!r}, allocated={g.allocated!r}, matches={g.matches})"
    m = outcome.matches[0]
    assert repr(m) == f"CycleMatch(submitter={m.submitter!r}, job={m.job!r}, slot={m.slot!r}, claim={m.claim!r})"
    for s in outcome.submitters:
        assert repr(s) == f"SubmitterFigures(name={s.name!r}, share={s.share!r}, matches={s.matches}, stopped={s.stopped!r})"
    assert "Some(" not in repr(outcome.groups) + repr(rounds)
    # Floats as Python writes them, exponents and all.
    acct = classad_rs.Accountant(classad_rs.Config(text=""))
    for factor in [1.0, 1.1, 1000.0, 123456789012345.6, 999999999999999.9, 1e16, 1.5e22, 3.0e300]:
        acct.set_priority_factor("u@site", factor)
        (row,) = [r for r in acct.rows() if r.name == "u@site"]
        assert repr(row) == (
            f"PriorityRow(name='u@site', effective_priority={row.effective_priority!r}, "
            f"priority_factor={factor!r}, weighted_resources_used={row.weighted_resources_used!r})"
        )


def test_extension_pslot_preemption_names_the_dynamic_slots():
    # A real startd's partitionable slots, their dynamic slots running
    # bench01's jobs; bench02's bigger jobs preempt several of them at once
    # (ALLOW_PSLOT_PREEMPTION), as HTCondor's negotiator did: slot1 with 4
    # dynamic slots, slot2 with 6.
    d = snapshot("snap-pslot-preempt")
    config = classad_rs.Config(file=os.path.join(d, "config.dump"), subsystem="NEGOTIATOR")
    acct = classad_rs.Accountant.from_userprio(os.path.join(d, "userprio-before.ad"), config)
    outcome = classad_rs.Negotiator(config).cycle(
        os.path.join(d, "slots.ad"),
        os.path.join(d, "jobs.ad.gz"),
        acct,
        submitters=os.path.join(d, "submitters.ad"),
    )
    got = {m.slot: len(m.preempted_dynamic_slots) for m in outcome.matches}
    assert got == {"slot1@vm": 4, "slot2@vm": 6}
    m = outcome.matches[0]
    assert m.claim == "priority preemption" and m.submitter == "bench02@anchor.local"
    assert all(s.startswith(m.slot.split("@")[0] + "_") for s in m.preempted_dynamic_slots)


def test_extension_cycle_errors_are_clear():
    negotiator = classad_rs.Negotiator()
    with pytest.raises(classad_rs.ClassAdException, match="no-such-slots"):
        negotiator.cycle(os.path.join(ROOT, "no-such-slots.ad"), [])
    with pytest.raises(TypeError):
        negotiator.cycle([1, 2], [])
    with pytest.raises(classad_rs.ClassAdException, match="no table"):
        negotiator.cycle([], []).columns("nothing")


def test_extension_outcome_tables_as_columns_arrow_and_pandas():
    outcome, _ = oracle_cycle("snap-1000-1000-4-8")
    columns = outcome.columns("matches")
    assert columns["submitter"] == [m.submitter for m in outcome.matches]
    assert columns["preempting"][0] is None
    submitters = outcome.columns("submitters")
    assert submitters["name"] == [s.name for s in outcome.submitters]
    pa = pytest.importorskip("pyarrow")
    table = outcome.to_arrow()
    assert table.num_rows == len(outcome.matches)
    assert table.schema.field("cost").type == pa.float64()
    assert table.column("submitter").to_pylist() == columns["submitter"]
    assert table.column("preempting").null_count == table.num_rows
    assert table.column("spin").to_pylist() == columns["spin"]
    pd = pytest.importorskip("pandas")
    frame = outcome.to_pandas("submitters")
    assert isinstance(frame, pd.DataFrame)
    assert list(frame["matches"]) == submitters["matches"]
    groups = oracle_cycle("snap-groups", prio="before")[0].to_arrow("groups")
    assert groups.column("static_quota").to_pylist()[1:3] == [True, False]
    assert groups.column("parent").to_pylist()[0] is None


def test_extension_the_gil_is_released_during_a_cycle():
    d = snapshot("snap-1000-1000-4-8")
    slots = list(classad_rs.parseAds(open(os.path.join(d, "slots.ad.gz"), "rb")))
    jobs = list(classad_rs.parseAds(open(os.path.join(d, "jobs.ad.gz"), "rb")))
    negotiator = classad_rs.Negotiator(classad_rs.Config(file=os.path.join(d, "config.dump")))
    window = []

    def run():
        start = time.perf_counter()
        negotiator.cycle(slots, jobs)
        window.append((start, time.perf_counter()))

    ticks = []
    worker = threading.Thread(target=run)
    worker.start()
    while worker.is_alive():
        ticks.append(time.perf_counter())
        time.sleep(0.001)
    worker.join()
    (start, end), = window
    # This thread ran Python while the cycle ran.
    assert sum(start < t < end for t in ticks) >= 3, (end - start, len(ticks))


# ----- the startd's policy ------------------------------------------------


def test_extension_startd_policy_steps_through_rank_preemption():
    policy = classad_rs.StartdPolicy.from_text(
        'use POLICY : ALWAYS_RUN_JOBS\nMaxJobRetirementTime = 7 * 24 * 3600\nRANK = Owner == "boss"\n', "always.conf"
    )
    assert "boss" in str(policy.expr("RANK"))
    alice = classad_rs.ClassAd('[ Owner = "alice"; JobUniverse = 5 ]')
    boss = classad_rs.ClassAd('[ Owner = "boss"; JobUniverse = 5 ]')
    slot = policy.step(classad_rs.SlotState(0), "tick", 0).slot
    slot = policy.step(slot, "claim_requested", 5, job=alice).slot
    started = policy.step(slot, "job_started", 6)
    assert (started.slot.state, started.slot.activity) == ("Claimed", "Busy")
    assert [a.kind for a in started.actions] == ["StartJob"]
    assert started.slot.claim_job is not None and started.slot.claim_job["Owner"] == "alice"
    # The boss's job ranks higher: alice's job retires...
    s = policy.step(started.slot, "claim_requested", 100, job=boss)
    assert s.slot.activity == "Retiring"
    assert s.slot.preempting_job["Owner"] == "boss"
    # ...and when it exits, the boss's claim takes the slot.
    s = policy.step(s.slot, "job_exited", 5_000)
    assert (s.slot.state, s.slot.activity) == ("Claimed", "Idle")
    assert [t.number for t in s.transitions] == [18, 23]
    assert "ReleaseClaim" in [a.kind for a in s.actions]
    assert s.transitions[-1].to_state == "Claimed" and s.transitions[-1].to_activity == "Idle"
    ad = s.slot.ad(policy, 5_000)
    assert ad["State"] == "Claimed"


def test_extension_startd_timers_and_bad_events():
    policy = classad_rs.StartdPolicy.from_config(classad_rs.Config("MATCH_TIMEOUT = 60\n"))
    assert policy.match_timeout == 60
    s = policy.step(classad_rs.SlotState(0), "matched", 0)
    assert [(t.to_state, t.to_activity) for t in s.transitions] == [("Matched", "Idle")]
    assert s.next_check == 60
    s = policy.step(s.slot, "tick", 60)
    assert s.transitions[0].cause == "MATCH_TIMEOUT expired (60 s)"
    assert s.transitions[0].knob == "MATCH_TIMEOUT"
    with pytest.raises(classad_rs.ClassAdException, match="unknown startd event"):
        policy.step(s.slot, "explode", 61)
    with pytest.raises(classad_rs.ClassAdException, match="needs job="):
        policy.step(s.slot, "claim_requested", 61)
    with pytest.raises(classad_rs.ClassAdException, match="PREEMPT"):
        classad_rs.StartdPolicy.from_text("PREEMPT = (\n", "bad.conf")


def test_extension_tables_without_pyarrow(monkeypatch):
    outcome = classad_rs.Negotiator().cycle(
        os.path.join(snapshot("snap-200-200-3-6"), "slots.ad"), os.path.join(snapshot("snap-200-200-3-6"), "jobs.ad.gz")
    )
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # as if not installed
    with pytest.raises(ImportError, match="pip install pyarrow"):
        outcome.to_arrow()
    pd = pytest.importorskip("pandas")
    frame = outcome.to_pandas("submitters")  # from the columns as lists
    assert isinstance(frame, pd.DataFrame)
    assert list(frame["name"]) == [s.name for s in outcome.submitters]
    assert list(frame["matches"]) == [s.matches for s in outcome.submitters]


def test_extension_accountant_writers_take_the_lock(tmp_path):
    log = tmp_path / "Accountantnew.log"
    first = classad_rs.Accountant.open(log, 1000)
    first.set_priority_factor("amy@site", 2000)
    start = time.monotonic()
    with pytest.raises(classad_rs.ClassAdException, match="another writer holds the lock"):
        classad_rs.Accountant.open(log, 1000, lock_timeout=0.2)
    assert 0.2 <= time.monotonic() - start < 5
    with pytest.raises(classad_rs.ClassAdException, match="another writer holds the lock"):
        first.save(log, lock_timeout=0.1)
    assert classad_rs.Accountant.load(log).priority_factor("amy@site") == 2000  # readers are not held up
    first.close()
    second = classad_rs.Accountant.open(log, 1000, lock_timeout=0.2)
    second.set_priority_factor("bob@site", 3000)
    second.close()
    again = classad_rs.Accountant.load(log)
    assert again.priority_factor("amy@site") == 2000 and again.priority_factor("bob@site") == 3000


def test_extension_accountant_refuses_what_is_not_a_log(tmp_path):
    text = tmp_path / "services-copy"
    text.write_text("".join(f"service{i}\t{1000 + i}/tcp\n" for i in range(361)))
    before = text.read_bytes()
    with pytest.raises(classad_rs.ClassAdException, match=":1: not an accountant log"):
        classad_rs.Accountant.open(text, 1000)
    with pytest.raises(classad_rs.ClassAdException, match=":1: not an accountant log"):
        classad_rs.Accountant().save(text)
    assert text.read_bytes() == before


def test_extension_accountant_refuses_what_no_reader_takes(tmp_path):
    log = tmp_path / "Accountantnew.log"
    acct = classad_rs.Accountant.open(log, 1000)
    with pytest.raises(classad_rs.ClassAdException, match="readers take at most"):
        acct.set_priority_factor("x" * 20_000_000 + "@x", 5.0)
    acct.set_priority_factor("amy@site", 2000)
    acct.close()
    assert classad_rs.Accountant.load(log).priority_factor("amy@site") == 2000
    with pytest.raises(classad_rs.ClassAdException, match="readers take at most"):
        classad_rs.Accountant().set_priority_factor("x" * 20_000_000 + "@x", 5.0)


def test_extension_accountant_load_of_a_missing_log_raises_file_not_found(tmp_path):
    missing = tmp_path / "Accountantnew.log"
    with pytest.raises(FileNotFoundError) as caught:
        classad_rs.Accountant.load(missing)
    assert os.fspath(caught.value.filename) == str(missing)
    assert str(missing) in str(caught.value)
    assert "Accountant.open" in str(caught.value)
    assert not missing.exists()
    # open is the writer: it starts a new log there.
    with classad_rs.Accountant.open(missing, 1000) as acct:
        assert len(acct) >= 0
    assert classad_rs.Accountant.load(missing).take_warnings() == []


def test_extension_accountant_as_a_context_manager_releases_the_lock(tmp_path):
    log = tmp_path / "Accountantnew.log"
    with classad_rs.Accountant.open(log, 1000) as acct:
        acct.set_priority_factor("amy@site", 2000)
        assert str(acct.log_path) == str(log)
        with pytest.raises(classad_rs.ClassAdException, match="another writer holds the lock"):
            classad_rs.Accountant.open(log, 1000, lock_timeout=0.1)
    assert acct.log_path is None  # closed on leaving the block
    acct.set_priority_factor("amy@site", 9000)  # in memory only now
    with pytest.raises(RuntimeError, match="boom"):
        with classad_rs.Accountant.open(log, 1000, lock_timeout=0.1) as again:
            assert again.priority_factor("amy@site") == 2000
            raise RuntimeError("boom")  # an exception closes it too, and goes on
    assert again.log_path is None
    with classad_rs.Accountant.open(log, 1000, lock_timeout=0.1) as third:
        assert third.priority_factor("amy@site") == 2000
