//! The library side of `negotiator-sim`: what its subcommands build on and
//! other programs (benchmarks, tests) may use too.
//!
//! * [`synthetic`]: the synthetic pool of the project's HTCondor
//!   negotiation benchmark (slots, jobs, users), built in memory.
//! * [`table`]: column tables, the form of the simulator's results.
//! * [`output`]: the tables written as CSV and Parquet files, and CSV read back.
//! * [`report`]: charts and an HTML report of a run; two runs compared.
//! * [`simulate`]: a pool over simulated time, negotiated by the real cycle.
//! * [`footprint`]: the memory and disk a run will take, estimated and
//!   checked before it starts.
//! * [`policy_trace`]: the event traces `negotiator-sim policy` drives a slot with.

pub mod footprint;
pub mod output;
pub mod policy_trace;
pub mod report;
pub mod simulate;
pub mod synthetic;
pub mod table;
