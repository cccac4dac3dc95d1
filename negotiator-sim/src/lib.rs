//! The library side of `negotiator-sim`: what its subcommands build on and
//! other programs (benchmarks, tests) may use too.
//!
//! * [`synthetic`]: the synthetic pool of the project's HTCondor
//!   negotiation benchmark (slots, jobs, users), built in memory.
//! * [`table`]: column tables, the form of the simulator's results.
//! * [`simulate`]: a pool over simulated time, negotiated by the real cycle.

pub mod simulate;
pub mod synthetic;
pub mod table;
