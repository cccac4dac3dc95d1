//! Phase 4 with hierarchical group quotas (HTCondor's HGQ branch of
//! `negotiationTime`): each group's demand and usage go to the quota
//! algorithm ([`crate::groups::quota`]), which calls back here to negotiate
//! a group's submitters up to a limit; then each group's report.

use rustc_hash::FxHashMap;

use super::pie_spins::{GroupContext, GroupRun, Sub};
use super::State;
use crate::candidates::number;
use crate::groups::report::explain;
use crate::groups::{GroupId, GroupNegotiation, GroupReport, GroupRoundFigures, GroupRoundTotals, Quotas, ROOT};
use crate::negotiator::NegotiatorError;

/// The cycle as the quota algorithm sees it.
struct Phase<'s, 'a, 'p, 'q> {
    state: &'s mut State<'a, 'p>,
    subs: &'s mut [Sub<'q>],
    /// Each group's submitters still negotiating (indices into `subs`).
    members: Vec<Vec<usize>>,
    names: Vec<String>,
    pool_weight: f64,
    min_weight: f64,
    autoregroup: bool,
    /// Each call of `negotiate`: the group and the matches it made.
    calls: Vec<(GroupId, usize)>,
}

impl GroupNegotiation for Phase<'_, '_, '_, '_> {
    type Error = NegotiatorError;

    fn usage(&self, group: GroupId) -> f64 {
        self.state.accountant.weighted_resources_used(&self.names[group.0])
    }

    fn has_submitters(&self, group: GroupId) -> bool {
        !self.members[group.0].is_empty()
    }

    fn negotiate(&mut self, group: GroupId, limit: f64) -> Result<(), NegotiatorError> {
        let root = group == GroupId(0);
        let name = self.names[group.0].clone();
        if let Some(context) = self.state.pie.groups.as_mut() {
            context.negotiating = name.clone();
            context.autoregroup = self.autoregroup && root;
        }
        // `<none>` negotiating for the whole pool is not held to a quota.
        let run = GroupRun { quota: limit, name: if self.autoregroup && root { None } else { Some(name.as_str()) } };
        let before = self.state.outcome.matches.len();
        let mut members = std::mem::take(&mut self.members[group.0]);
        let mut below_floor = self.state.below_floor(self.subs, &members);
        if !below_floor.is_empty() {
            self.state.negotiate_with_group(
                self.subs,
                &mut below_floor,
                true,
                self.pool_weight,
                self.min_weight,
                &run,
            )?;
        }
        let result =
            self.state.negotiate_with_group(self.subs, &mut members, false, self.pool_weight, self.min_weight, &run);
        self.members[group.0] = members;
        self.calls.push((group, self.state.outcome.matches.len() - before));
        result
    }
}

/// Runs the group phase; returns each group's report (breadth first) and
/// each round's totals.
pub(super) fn run(
    state: &mut State<'_, '_>,
    subs: &mut [Sub<'_>],
    pool_weight: f64,
    min_weight: f64,
    now: i64,
) -> Result<(Vec<GroupReport>, Vec<GroupRoundTotals>), NegotiatorError> {
    let config = &state.cx.negotiator.groups;
    let tree = &config.tree;
    let autoregroup = config.autoregroup();
    let names: Vec<String> = tree.ids().map(|g| tree.name(g).to_string()).collect();

    // Each submitter to its group, with its demand; names without `@` are
    // not negotiated, as in HTCondor.
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); tree.len()];
    let mut demand = vec![0.0; tree.len()];
    for (i, sub) in subs.iter().enumerate() {
        if !sub.queue.name.contains('@') {
            continue;
        }
        let g = tree.assigned_group(&sub.queue.name);
        members[g.0].push(i);
        let idle: f64 = sub
            .queue
            .requests
            .iter()
            .map(|r| {
                let weight = if config.weighted_demand {
                    number(&classad::EvalContext::new(&state.cx.opts).my(&r.ad).eval_attr("RequestCpus")).unwrap_or(1.0)
                } else {
                    1.0
                };
                f64::from(r.count) * weight
            })
            .sum();
        demand[g.0] += idle + f64::from(sub.queue.running_jobs);
    }
    if autoregroup {
        // Submitters of autoregroup groups negotiate in `<none>` too, after
        // its own, group by group.
        for g in tree.breadth_first().into_iter().skip(1) {
            if config.policy(g).autoregroup {
                let extra = members[g.0].clone();
                members[0].extend(extra);
            }
        }
    }
    let usage: Vec<f64> = names.iter().map(|n| state.accountant.weighted_resources_used(n)).collect();
    let submitters: Vec<usize> = members.iter().map(Vec::len).collect();

    let mut quotas = Quotas::new(config);
    quotas.set_rr_times(&state.cx.negotiator.round_robin.get());
    quotas.prepare(pool_weight, &demand, &usage);
    // What policy expressions see as SubmitterGroupQuota: the assigned
    // quotas (with autoregroup, `<none>` has the whole pool).
    let mut by_name: FxHashMap<String, f64> =
        tree.ids().map(|g| (names[g.0].to_lowercase(), quotas.state(g).quota)).collect();
    if autoregroup {
        by_name.insert(ROOT.to_lowercase(), pool_weight);
    }
    state.pie.groups = Some(GroupContext { negotiating: ROOT.to_string(), autoregroup: false, quotas: by_name });
    let assigned: Vec<(f64, f64)> =
        tree.ids().map(|g| (quotas.state(g).quota, quotas.state(g).subtree_quota)).collect();

    let mut phase =
        Phase { state, subs, members, names: names.clone(), pool_weight, min_weight, autoregroup, calls: Vec::new() };
    let rounds = quotas.negotiate(pool_weight, now as f64, &mut phase)?;
    phase.state.cx.negotiator.round_robin.set(quotas.rr_times());
    let calls = std::mem::take(&mut phase.calls);
    let state = phase.state;
    state.pie.groups = None;

    // Matches per round and group, from the calls in order.
    let mut matches: Vec<Vec<usize>> = vec![vec![0; tree.len()]; rounds.len()];
    let mut next = calls.iter();
    for (r, round) in rounds.iter().enumerate() {
        let n: usize = round.groups.iter().map(|g| g.limits.len()).sum();
        for &(g, m) in next.by_ref().take(n) {
            matches[r][g.0] += m;
        }
    }

    let reports = tree
        .breadth_first()
        .into_iter()
        .map(|g| {
            let policy = config.policy(g);
            let figures: Vec<GroupRoundFigures> = rounds
                .iter()
                .enumerate()
                .filter_map(|(r, round)| {
                    round.groups.iter().find(|x| x.group == g).map(|x| GroupRoundFigures {
                        round: round.round,
                        quota: x.quota,
                        requested: x.requested,
                        allocated: x.allocated,
                        unallocated: x.unallocated,
                        sort_key: x.sort_key,
                        limits: x.limits.clone(),
                        skipped: x.skipped.clone(),
                        capped_by: x.capped_by.map(|c| names[c.0].clone()),
                        matches: matches[r][g.0],
                        usage_after: x.usage_after,
                    })
                })
                .collect();
            let (quota, subtree_quota) = assigned[g.0];
            let allocated = figures.last().map_or(0.0, |f| f.allocated);
            let mut report = GroupReport {
                name: names[g.0].clone(),
                parent: tree.parent(g).map(|p| names[p.0].clone()),
                config_quota: policy.config_quota,
                static_quota: policy.static_quota,
                accept_surplus: policy.accept_surplus,
                autoregroup: policy.autoregroup,
                quota,
                subtree_quota,
                demand: demand[g.0],
                submitters: submitters[g.0],
                allocated,
                surplus: allocated - quota,
                usage_before: usage[g.0],
                usage_after: state.accountant.weighted_resources_used(&names[g.0]),
                matches: figures.iter().map(|f| f.matches).sum(),
                rounds: figures,
                explanation: String::new(),
            };
            report.explanation = explain(&report, pool_weight);
            report
        })
        .collect();
    let totals = rounds
        .iter()
        .map(|r| GroupRoundTotals {
            round: r.round,
            allocated: r.allocated_total,
            usage: r.usage_total,
            surplus: r.surplus,
            max_delta: r.max_delta,
            order: r.order.iter().map(|&g| names[g.0].clone()).collect(),
        })
        .collect();
    Ok((reports, totals))
}
