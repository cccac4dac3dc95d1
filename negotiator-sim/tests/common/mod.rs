//! The tables of a small run (and of a second run of its jobs), shared
//! by the report and CLI tests.
#![allow(dead_code)]

use negotiator_sim::table::{Column, Table};

pub fn strs(v: Vec<&str>) -> Column {
    Column::Str(v.into_iter().map(str::to_string).collect())
}

/// A run of 10 cycles a minute apart on a 10-slot pool: alice holds 6
/// slots, then 4 from cycle 5; bob (in group_b, quota 4) holds 2, then 6.
pub fn run() -> Vec<Table> {
    let mut users = Table::new("users");
    let (mut time, mut user, mut group, mut usage, mut acc, mut rup) = (vec![], vec![], vec![], vec![], vec![], vec![]);
    let (mut acc_a, mut acc_b) = (0.0, 0.0);
    for c in 0..10i64 {
        let (a, b) = if c < 5 { (6.0, 2.0) } else { (4.0, 6.0) };
        for (name, g, u, total) in [("alice@site", "", a, &mut acc_a), ("bob@site", "group_b", b, &mut acc_b)] {
            time.push(c * 60);
            user.push(name);
            group.push(g);
            usage.push(u);
            acc.push(*total);
            *total += u * 60.0;
            rup.push(0.5 + u * c as f64 / 10.0);
        }
    }
    users.push("time", Column::Int(time.clone()));
    users.push("user", strs(user));
    users.push("group", strs(group));
    users.push("usage", Column::Float(usage.clone()));
    users.push("accumulated_usage", Column::Float(acc));
    users.push("rup", Column::Float(rup.clone()));
    users.push("eup", Column::Float(rup.iter().map(|r| r * 1000.0).collect()));
    // The fraction of the slots in use: 8 before 5 minutes, 10 after.
    let busy: Vec<f64> = time.iter().map(|&t| if t < 300 { 8.0 } else { 10.0 }).collect();
    users.push("share", Column::Float(usage.iter().zip(&busy).map(|(u, b)| u / b).collect()));
    users.push("idle", Column::Int(vec![3; 20]));
    users.push("running", Column::Int(usage.iter().map(|&u| u as i64).collect()));
    let mut groups = Table::new("groups");
    groups.push("time", Column::Int((0..10).map(|c| c * 60).collect()));
    groups.push("group", strs(vec!["group_b"; 10]));
    groups.push("quota", Column::Float(vec![4.0; 10]));
    groups.push("demand", Column::Float(vec![8.0; 10]));
    groups.push("allocated", Column::Float(vec![4.0; 10]));
    groups.push("usage", Column::Float((0..10).map(|c| if c < 5 { 2.0 } else { 6.0 }).collect()));
    let mut cycles = Table::new("cycles");
    cycles.push("time", Column::Int((0..10).map(|c| c * 60).collect()));
    for name in ["matches", "rejections", "preemptions", "idle_jobs", "running_jobs"] {
        cycles.push(name, Column::Int(vec![1; 10]));
    }
    cycles.push("busy_slots", Column::Float((0..10).map(|c| if c < 5 { 8.0 } else { 10.0 }).collect()));
    cycles.push("total_slots", Column::Float(vec![10.0; 10]));
    cycles.push("pie_spins", Column::Int(vec![1; 10]));
    let mut jobs = Table::new("jobs");
    let waits: Vec<i64> =
        vec![0, 60, 120, 180, 240, 300, 360, 420, 480, 540, 600, 660, 720, 780, 840, 900, 960, 1020, 1080, 5000];
    let n = waits.len();
    jobs.push("job", Column::Str((0..n).map(|i| format!("{i}.0")).collect()));
    jobs.push(
        "user",
        Column::Str((0..n).map(|i| if i < 19 { "alice@site" } else { "bob@site" }.to_string()).collect()),
    );
    jobs.push("group", Column::Str((0..n).map(|i| if i < 19 { "" } else { "group_b" }.to_string()).collect()));
    jobs.push("submit", Column::Int(vec![0; n]));
    jobs.push("start", Column::Int((0..n).map(|i| if i < 19 { waits[i] } else { -1 }).collect()));
    jobs.push("end", Column::Int(vec![-1; n]));
    jobs.push("wait", Column::Int(waits));
    jobs.push("run", Column::Int(vec![0; n]));
    jobs.push("badput", Column::Int(vec![0; n]));
    jobs.push("preemptions", Column::Int(vec![0; n]));
    jobs.push("slot", strs(vec![""; n]));
    vec![users, groups, cycles, jobs]
}

/// Run B: the same jobs, the pool split 5 and 5 throughout, bob's job
/// started after 100 s.
pub fn run_b() -> Vec<Table> {
    let mut tables = run();
    for (name, column) in tables[0].columns.iter_mut() {
        match (name.as_str(), column) {
            ("usage", Column::Float(v)) => v.iter_mut().for_each(|x| *x = 5.0),
            ("share", Column::Float(v)) => v.iter_mut().for_each(|x| *x = 0.5),
            ("running", Column::Int(v)) => v.iter_mut().for_each(|x| *x = 5),
            _ => {}
        }
    }
    for (name, column) in tables[2].columns.iter_mut() {
        if let ("busy_slots", Column::Float(v)) = (name.as_str(), column) {
            v.iter_mut().for_each(|x| *x = 10.0);
        }
    }
    for (name, column) in tables[3].columns.iter_mut() {
        if let ("wait", Column::Int(v)) = (name.as_str(), column) {
            v[19] = 100;
        }
    }
    tables
}
