//! The HTCondor manual's worked examples on user priorities and group
//! quotas ("User Priorities and Negotiation" in the central manager
//! chapter), computed by the matchmaker's own accountant
//! ([`matchmaker::accountant`]) and group quota code
//! ([`matchmaker::groups`]) and returned as result tables, so that the
//! report draws them and the tests check the manual's numbers.
//!
//! * [`rup_growth`]: a new user runs 100 cores; another runs 100 cores
//!   for 24 hours and then removes its jobs. With the default one-day
//!   half-life the first one's RUP is about 75 at 48 hours (and 50 at 24);
//!   the second one's is about 50 when it stops and halves every day after.
//! * [`two_users`]: users A and B, 100 cores, equal factors; A alone from
//!   t = 0, B from 48 hours. The pool is split each cycle in inverse
//!   proportion to the users' EUPs (the manual's rule, without the rest of
//!   the negotiator: every job is short, so every core is handed out
//!   again every cycle). A drops below one core at 48 hours and climbs
//!   back toward half the pool.
//! * [`group_quotas`]: the manual's surplus example (physics 20 slots
//!   with subgroups hep 15 and lep 5 that accept surplus, chemistry 10, on
//!   a pool of 30) as demand and the pool's size change.
//!
//! ```
//! use negotiator_sim::report::worked_examples::rup_growth;
//! use negotiator_sim::table::Column;
//!
//! let users = rup_growth(3600)?;
//! let Some(Column::Float(rup)) = users.column("rup") else { unreachable!() };
//! // Row 2k is the user that keeps running, at hour k.
//! assert!((rup[2 * 48] - 75.125).abs() < 1e-3);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use matchmaker::accountant::{Accountant, AccountantConfig, AccountantError};
use matchmaker::config::{Config, ConfigError};
use matchmaker::groups::{GroupQuotaConfig, Quotas};

use super::chart::Chart;
use super::{figures, ReportError};
use crate::table::{Column, Table};

const HOUR: i64 = 3600;

/// A claimed slot of `weight` cores for `user`.
fn slot(name: &str, user: &str, weight: f64) -> Result<classad::ClassAd, AccountantError> {
    let text = format!(
        "[ Name = \"{name}@node\"; StartdIpAddr = \"<10.0.0.1:9618>\"; State = \"Claimed\"; RemoteUser = \"{user}\"; SlotWeight = {weight:?} ]"
    );
    text.parse().map_err(|e: classad::ParseError| AccountantError::Invalid(format!("slot ad: {e}")))
}

/// Rows of a `users` table, filled cycle by cycle.
#[derive(Default)]
struct UserRows {
    time: Vec<i64>,
    user: Vec<String>,
    usage: Vec<f64>,
    accumulated: Vec<f64>,
    rup: Vec<f64>,
    eup: Vec<f64>,
    share: Vec<f64>,
    idle: Vec<i64>,
    running: Vec<i64>,
}

impl UserRows {
    fn push(&mut self, acct: &Accountant, now: i64, user: &str, in_use_total: f64, wants: bool) {
        let usage = acct.weighted_resources_used(user);
        self.time.push(now);
        self.user.push(user.to_string());
        self.usage.push(usage);
        self.accumulated.push(acct.customer(user).and_then(|c| c.weighted_accumulated_usage).unwrap_or(0.0));
        self.rup.push(acct.real_priority(user));
        self.eup.push(acct.effective_priority(user));
        self.share.push(if in_use_total > 0.0 { usage / in_use_total } else { 0.0 });
        // Short jobs: always some idle while the user submits.
        self.idle.push(if wants { 1000 } else { 0 });
        self.running.push(usage.ceil() as i64);
    }

    fn table(self) -> Table {
        let mut t = Table::new("users");
        let n = self.time.len();
        t.push("time", Column::Int(self.time));
        t.push("user", Column::Str(self.user));
        t.push("group", Column::Str(vec![String::new(); n]));
        t.push("usage", Column::Float(self.usage));
        t.push("accumulated_usage", Column::Float(self.accumulated));
        t.push("rup", Column::Float(self.rup));
        t.push("eup", Column::Float(self.eup));
        t.push("share", Column::Float(self.share));
        t.push("idle", Column::Int(self.idle));
        t.push("running", Column::Int(self.running));
        t
    }
}

/// The manual's two RUP curves, sampled every `step` seconds for 96
/// hours: `steady@site` runs 100 cores throughout; `stops@site` runs 100
/// cores for 24 hours, then none. Rows alternate: `steady`, then `stops`,
/// at each time. The accountant's priority factors are the default 1000,
/// half-life one day.
pub fn rup_growth(step: i64) -> Result<Table, AccountantError> {
    let step = step.max(1);
    let mut acct = Accountant::new(AccountantConfig::default());
    let mut rows = UserRows::default();
    let mut now = 0;
    while now <= 96 * HOUR {
        acct.update_priorities(now)?;
        let mut slots = vec![slot("steady", "steady@site", 100.0)?];
        if now < 24 * HOUR {
            slots.push(slot("stops", "stops@site", 100.0)?);
        }
        acct.check_matches(now, &slots)?;
        let total = 100.0 * slots.len() as f64;
        rows.push(&acct, now, "steady@site", total, true);
        rows.push(&acct, now, "stops@site", total, now < 24 * HOUR);
        now += step;
    }
    Ok(rows.table())
}

/// The manual's two users on a pool of 100 cores, a cycle every `step`
/// seconds for `hours`: `A@site` alone from 0, `B@site` too from 48 hours;
/// each cycle the pool is split in inverse proportion to their EUPs
/// (factors 1, as the manual assumes). Returns the `users` and `cycles`
/// tables.
pub fn two_users(step: i64, hours: i64) -> Result<(Table, Table), AccountantError> {
    let step = step.max(1);
    let mut config = AccountantConfig::default();
    config.default_prio_factor = 1.0;
    let mut acct = Accountant::new(config);
    let mut rows = UserRows::default();
    let mut cycle_time = Vec::new();
    let mut now = 0;
    let mut cycle = 0;
    while now <= hours * HOUR {
        acct.update_priorities(now)?;
        let (a, b) = if now < 48 * HOUR {
            (100.0, 0.0)
        } else {
            let (wa, wb) = (1.0 / acct.effective_priority("A@site"), 1.0 / acct.effective_priority("B@site"));
            let a = 100.0 * wa / (wa + wb);
            (a, 100.0 - a)
        };
        // New slot names each cycle: every core is handed out afresh.
        let mut slots = vec![slot(&format!("a{cycle}"), "A@site", a)?];
        if b > 0.0 {
            slots.push(slot(&format!("b{cycle}"), "B@site", b)?);
        }
        acct.check_matches(now, &slots)?;
        rows.push(&acct, now, "A@site", 100.0, true);
        rows.push(&acct, now, "B@site", 100.0, now >= 48 * HOUR);
        cycle_time.push(now);
        now += step;
        cycle += 1;
    }
    let n = cycle_time.len();
    let mut cycles = Table::new("cycles");
    cycles.push("time", Column::Int(cycle_time));
    for name in ["matches", "rejections", "preemptions", "idle_jobs", "running_jobs"] {
        cycles.push(name, Column::Int(vec![0; n]));
    }
    cycles.push("busy_slots", Column::Float(vec![100.0; n]));
    cycles.push("total_slots", Column::Float(vec![100.0; n]));
    cycles.push("pie_spins", Column::Int(vec![1; n]));
    Ok((rows.table(), cycles))
}

/// The configuration of [`group_quotas`]: the manual's surplus example,
/// quotas scaled down when the pool shrinks.
pub const GROUP_CONFIG: &str = "GROUP_NAMES = group_physics, group_physics.hep, group_physics.lep, group_chemistry
GROUP_QUOTA_group_physics = 20
GROUP_QUOTA_group_physics.hep = 15
GROUP_QUOTA_group_physics.lep = 5
GROUP_QUOTA_group_chemistry = 10
GROUP_ACCEPT_SURPLUS = false
GROUP_ACCEPT_SURPLUS_group_physics = false
GROUP_ACCEPT_SURPLUS_group_physics.lep = true
GROUP_ACCEPT_SURPLUS_group_physics.hep = true
NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION = false
";

/// The timeline of [`group_quotas`], hour by hour: (hour from, pool
/// size, demand of hep, lep, chemistry).
pub const GROUP_TIMELINE: &[(i64, f64, f64, f64, f64)] = &[
    (0, 30.0, 10.0, 5.0, 10.0),  // everyone within quota
    (2, 30.0, 30.0, 5.0, 10.0),  // hep wants more: held to its 15
    (4, 30.0, 30.0, 0.0, 10.0),  // lep idle: hep takes its 5 (20, physics' cap)
    (6, 30.0, 30.0, 5.0, 2.0),   // chemistry's unused 8 do not cross to physics
    (8, 15.0, 30.0, 5.0, 10.0),  // half the pool lost: quotas halve
    (10, 30.0, 30.0, 5.0, 10.0), // back
];

/// The groups' quotas and allocations (fair share, one round, slot
/// weights on as by default) over 12 hours, every 10 minutes, as a `groups` table
/// for `group_physics.hep`, `group_physics.lep` and `group_chemistry`
/// (usage: the allocation, every allocated slot taken).
pub fn group_quotas() -> Result<Table, ConfigError> {
    let config = Config::parse_str(GROUP_CONFIG, "groups.conf")?;
    let groups = GroupQuotaConfig::from_config(&config)?;
    let names = ["group_physics.hep", "group_physics.lep", "group_chemistry"];
    let ids: Vec<_> = names.iter().filter_map(|n| groups.tree.find(n)).collect();
    let mut t = (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for time in (0..=12 * HOUR).step_by(600) {
        let Some(&(_, pool, hep, lep, chem)) = GROUP_TIMELINE.iter().rev().find(|e| e.0 * HOUR <= time) else {
            continue;
        };
        let mut demand = vec![0.0; groups.tree.len()];
        for (id, d) in ids.iter().zip([hep, lep, chem]) {
            demand[id.0] = d;
        }
        let mut quotas = Quotas::new(&groups);
        quotas.prepare(pool, &demand, &vec![0.0; groups.tree.len()]);
        quotas.fairshare();
        for (&id, name) in ids.iter().zip(names) {
            let s = quotas.state(id);
            t.0.push(time);
            t.1.push(name.to_string());
            t.2.push(s.quota);
            t.3.push(demand[id.0]);
            t.4.push(s.allocated);
        }
    }
    let mut table = Table::new("groups");
    table.push("time", Column::Int(t.0));
    table.push("group", Column::Str(t.1));
    table.push("quota", Column::Float(t.2));
    table.push("demand", Column::Float(t.3));
    table.push("allocated", Column::Float(t.4.clone()));
    table.push("usage", Column::Float(t.4));
    Ok(table)
}

/// The charts of the worked examples, as shown in the user documentation
/// (`docs/img/ID.svg`): `rup-growth`, `fair-share-usage`,
/// `fair-share-rup` and `group-quotas`.
pub fn charts() -> Result<Vec<Chart>, ReportError> {
    let example = |e: &dyn std::fmt::Display| ReportError::Example(e.to_string());
    let mut out = Vec::new();
    let growth = rup_growth(900).map_err(|e| example(&e))?;
    let mut c = figures::priorities(&growth, "rup")?;
    c.id = "rup-growth".into();
    c.title = "RUP of 100 cores in use (half-life 1 day)".into();
    c.series[0].name = "100 cores throughout".into();
    c.series[1].name = "100 cores for 24 h".into();
    out.push(c);
    let (users, cycles) = two_users(1800, 240).map_err(|e| example(&e))?;
    let mut c = figures::usage_by_user(&users, Some(&cycles))?;
    c.id = "fair-share-usage".into();
    c.title = "Two users on 100 cores, B from 48 h".into();
    out.push(c);
    let mut c = figures::priorities(&users, "rup")?;
    c.id = "fair-share-rup".into();
    c.title = "Their real user priorities".into();
    out.push(c);
    let groups = group_quotas().map_err(|e| example(&e))?;
    if let Some(mut c) = figures::usage_by_group(&groups)? {
        c.id = "group-quotas".into();
        c.title = "Group allocations (solid) and quotas (dashed)".into();
        c.y_label = "slots".into();
        for s in &mut c.series {
            s.name = s.name.replace("group_physics.", "physics.").replace("group_", "").replace(" usage", " allocated");
        }
        out.push(c);
    }
    Ok(out)
}
