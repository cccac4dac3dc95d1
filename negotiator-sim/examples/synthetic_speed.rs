//! Times the generation of a synthetic pool in memory.
//!
//! ```text
//! cargo run --release -p negotiator-sim --example synthetic_speed -- SLOTS JOBS USERS AUTOCLUSTERS [lean] [chained]
//! ```

use std::time::Instant;

use negotiator_sim::synthetic::{generate, Layout, SlotAttrs, Spec};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize, default: usize| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(default);
    let mut spec = Spec::new(number(0, 50_000), number(1, 50_000), number(2, 4), number(3, 8));
    if args.iter().any(|a| a == "lean") {
        spec.attrs = SlotAttrs::Lean;
    }
    if args.iter().any(|a| a == "chained") {
        spec.layout = Layout::Chained;
    }
    let started = Instant::now();
    let pool = match generate(&spec) {
        Ok(pool) => pool,
        Err(e) => {
            eprintln!("synthetic_speed: {e}");
            std::process::exit(2);
        }
    };
    let took = started.elapsed().as_secs_f64();
    let attrs: usize = pool.slots.iter().map(classad::ClassAd::len).sum::<usize>()
        + pool.jobs.iter().map(classad::ClassAd::len).sum::<usize>();
    println!(
        "{} slots ({}, {:?}), {} jobs, {} users: generated in {took:.3} s ({attrs} own attributes)",
        pool.slots.len(),
        spec.attrs.name(),
        spec.layout,
        pool.jobs.len(),
        pool.users.len()
    );
    let started = Instant::now();
    drop(pool);
    println!("dropped in {:.3} s", started.elapsed().as_secs_f64());
}
