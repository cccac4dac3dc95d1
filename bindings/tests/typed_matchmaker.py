"""The matchmaker's stubs checked both ways: `mypy --strict` checks this
file against the stubs (./run-tests does), and running it (test_docs.py
does) checks that every value has the type the stubs give it."""

import os
from typing import Any, Optional

import classad_rs

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SNAP = os.path.join(ROOT, "matchmaker", "tests", "data", "cycle", "snap-groups")


def check(value: Any, *types: type) -> None:
    assert isinstance(value, types), (value, types)


def check_list(values: list[Any], kind: type) -> None:
    check(values, list)
    for v in values:
        check(v, kind)


def main() -> None:
    config = classad_rs.Config(file=os.path.join(SNAP, "config.dump"), subsystem="NEGOTIATOR")
    halflife: int = config.get_int("PRIORITY_HALFLIFE")
    real: float = config.get_real("PRIORITY_HALFLIFE")
    flag: bool = config.get_bool("NEGOTIATOR_CONSIDER_PREEMPTION")
    value: Optional[str] = config.get("GROUP_NAMES")
    text: str = config.get("NOT_A_KNOB", "x")
    expr: Optional[classad_rs.ExprTree] = config.get_expr("PREEMPTION_REQUIREMENTS")
    files: list[str] = config.files
    check(halflife, int)
    check(real, float)
    check(flag, bool)
    check(value, str)
    check(text, str)
    check(expr, classad_rs.ExprTree)
    check_list(files, str)
    dump: bool = config.is_dump
    check(dump, bool)
    check_list(config.local_files, str)
    check_list(config.warnings, str)
    check(config.source("GROUP_NAMES"), str)
    check(config.raw("GROUP_NAMES"), str)
    check(next(iter(config)), str)

    acct = classad_rs.Accountant.from_userprio(os.path.join(SNAP, "userprio-before.ad"), config)
    other = os.path.join(ROOT, "matchmaker", "tests", "data", "cycle", "snap-1000-1000-4-8", "userprio.ad")
    rows: list[classad_rs.PriorityRow] = classad_rs.Accountant.from_userprio(other).rows()
    check_list(rows, classad_rs.PriorityRow)
    row = rows[0]
    for f in (row.effective_priority, row.priority_factor, row.weighted_resources_used, row.accumulated_usage):
        check(f, float)
    for i in (row.ceiling, row.floor, row.resources_used, row.begin_usage_time, row.last_usage_time):
        check(i, int)
    check(row.name, str)
    check(row.is_group, bool)
    check(row.accounting_group, str)
    check(acct.last_update, int)
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        with classad_rs.Accountant.open(os.path.join(tmp, "Accountantnew.log"), 1000) as opened:
            check(opened, classad_rs.Accountant)
            check(opened.log_path, os.PathLike)
        check(classad_rs.Accountant.load(os.path.join(tmp, "Accountantnew.log")), classad_rs.Accountant)
    check(acct.ceiling("nobody"), type(None))
    check(acct.usage(row.name), float)
    check(acct.log_path, type(None))
    check_list(acct.names(), str)
    check_list(acct.take_warnings(), str)

    negotiator = classad_rs.Negotiator(config, resend_matched_jobs=True)
    check(negotiator.config, classad_rs.Config)
    outcome: classad_rs.CycleOutcome = negotiator.cycle(
        os.path.join(SNAP, "slots.ad.gz"), os.path.join(SNAP, "jobs.ad.gz"), acct, now=0,
        submitters=os.path.join(SNAP, "submitters.ad"),
    )
    queues: classad_rs.JobQueues = negotiator.queues(os.path.join(SNAP, "slots.ad.gz"), os.path.join(SNAP, "jobs.ad.gz"))
    check(queues.idle_jobs, int)
    check(queues.autoclusters, int)
    check_list(queues.submitters, str)
    matches: list[classad_rs.CycleMatch] = outcome.matches
    check_list(matches, classad_rs.CycleMatch)
    m = matches[0]
    for s in (m.submitter, m.job, m.slot, m.claim):
        check(s, str)
    for i in (m.cluster, m.proc, m.autocluster, m.slot_index, m.spin):
        check(i, int)
    check(m.cost, float)
    check(m.preempting, str, type(None))
    dslots: list[str] = m.preempted_dynamic_slots
    check(dslots, list)
    rejections: list[classad_rs.Rejection] = outcome.rejections
    check_list(rejections, classad_rs.Rejection)
    r = rejections[0]
    check(r.submitter, str)
    check(r.job, str)
    check(r.reason, str)
    check(r.autocluster, int)
    check(r.spin, int)
    submitters: list[classad_rs.SubmitterFigures] = outcome.submitters
    check_list(submitters, classad_rs.SubmitterFigures)
    s0 = submitters[0]
    for f in (s0.effective_priority, s0.priority_factor, s0.share, s0.limit, s0.usage_before, s0.usage_after):
        check(f, float)
    check(s0.idle_jobs, int)
    check(s0.matches, int)
    check(s0.rejections, int)
    check(s0.stopped, str)
    check(s0.outcome, str)
    groups: list[classad_rs.GroupFigures] = outcome.groups
    check_list(groups, classad_rs.GroupFigures)
    g = groups[1]
    check(g.parent, str)
    check(g.static_quota, bool)
    check(g.quota, float)
    check(g.submitters, int)
    check(g.explanation, str)
    rounds: list[classad_rs.GroupRound] = g.rounds
    check_list(rounds, classad_rs.GroupRound)
    check(rounds[0].quota, float)
    check_list(rounds[0].limits, float)
    check(rounds[0].skipped, str, type(None))
    totals: list[classad_rs.GroupRoundTotals] = outcome.group_rounds
    check_list(totals, classad_rs.GroupRoundTotals)
    check_list(totals[0].order, str)
    check(totals[0].max_delta, float)
    stats: classad_rs.CycleStats = outcome.stats
    check(stats.matches, int)
    check(stats.slot_weight_total, float)
    check_list(stats.submitters_share_limit, str)
    columns: dict[str, list[Any]] = outcome.columns("groups")
    check(columns, dict)
    buffers: list[classad_rs.ArrowBuffers] = outcome.arrow_buffers("submitters")
    for name, kind, length, validity, data, offsets in buffers:
        check(name, str)
        check(kind, str)
        check(length, int)
        check(data, bytes)
        check(validity, bytes, type(None))
        check(offsets, bytes, type(None))

    policy = classad_rs.StartdPolicy.from_config(classad_rs.Config("MATCH_TIMEOUT = 60\n", subsystem="STARTD"))
    check(policy.match_timeout, int)
    check(policy.backfill, bool)
    check(policy.ad(), classad_rs.ClassAd)
    step: classad_rs.StartdStep = policy.step(classad_rs.SlotState(0), "matched", 0)
    slot: classad_rs.SlotState = step.slot
    check(slot, classad_rs.SlotState)
    check(slot.state, str)
    check(slot.activity, str)
    check(slot.entered_state, int)
    check(slot.claim_job, type(None))
    check(slot.is_draining, bool)
    check(step.next_check, int)
    check_list(step.warnings, str)
    transitions: list[classad_rs.Transition] = step.transitions
    check_list(transitions, classad_rs.Transition)
    t = transitions[0]
    check(t.number, int, type(None))
    check(t.cause, str)
    check(t.knob, str, type(None))
    step = policy.step(slot, "claim_requested", 1, job=classad_rs.ClassAd('[Owner = "a"]'))
    actions: list[classad_rs.StartdAction] = step.actions
    check_list(actions, classad_rs.StartdAction)
    check(actions[0].kind, str)
    check(actions[0].after, int)
    check(actions[0].max_vacate_time, int, type(None))
    check(step.slot.ad(policy, 1), classad_rs.ClassAd)
    print("types ok")


if __name__ == "__main__":
    main()
