//! Scenarios run event by event with the simulation checked after each,
//! and typed access to the result tables' columns; shared by the
//! simulator's end-to-end tests.
#![allow(dead_code)]

use std::path::Path;

use negotiator_sim::simulate::results::Results;
use negotiator_sim::simulate::run::Simulation;
use negotiator_sim::simulate::scenario::Scenario;
use negotiator_sim::table::{Column, Table};

pub fn scenario(text: &str) -> Scenario {
    Scenario::from_toml_str(text, Path::new("test.toml")).expect("a valid scenario")
}

/// Runs the scenario event by event, checking the simulation after each.
pub fn run_checked(s: &Scenario) -> Results {
    let mut sim = Simulation::new(s).expect("builds");
    let mut steps = 0u64;
    while sim.step(&mut |_| {}).expect("steps") {
        steps += 1;
        if let Err(e) = sim.check() {
            panic!("after event {steps} at t={}: {e}", sim.now());
        }
    }
    sim.results()
}

pub fn ints<'a>(t: &'a Table, name: &str) -> &'a [i64] {
    match t.column(name) {
        Some(Column::Int(v)) => v,
        other => panic!("{name}: {other:?}"),
    }
}

pub fn floats<'a>(t: &'a Table, name: &str) -> &'a [f64] {
    match t.column(name) {
        Some(Column::Float(v)) => v,
        other => panic!("{name}: {other:?}"),
    }
}

pub fn strs<'a>(t: &'a Table, name: &str) -> &'a [String] {
    match t.column(name) {
        Some(Column::Str(v)) => v,
        other => panic!("{name}: {other:?}"),
    }
}
