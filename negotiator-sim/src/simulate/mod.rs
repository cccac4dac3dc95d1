//! `negotiator-sim simulate`: a pool over simulated time, negotiated by
//! the matchmaker's real cycle and accountant.
//!
//! A discrete-event simulation ([`events`]): jobs arrive ([`scenario`]'s
//! users, or a recorded [`trace`]), a negotiation cycle runs every
//! `NEGOTIATOR_INTERVAL`, a matched slot starts its job after the claim
//! delay, a finished job's claim goes to the next idle job of the same
//! autocluster while `CLAIM_WORKLIFE` allows, preempted jobs go back to
//! idle with their work lost, partitionable slots are split into dynamic
//! slots and get them back ([`pool`]). The accountant decays priorities
//! with the configured half-life. Machines with an owner model
//! ([`owner`]) or a startd policy that acts on running jobs go through
//! the startd's state machine while they run one ([`execute`]): jobs are
//! suspended, continued, vacated and killed over time. Nothing reads the clock and every random
//! number comes from the seed ([`random`]): a scenario and a seed give the
//! same results, byte for byte. Results are [`Table`](crate::table::Table)s
//! ([`results`]).
//!
//! ```
//! use negotiator_sim::simulate::{run::Simulation, scenario::Scenario};
//!
//! let scenario = Scenario::from_toml_str(r#"
//!     seed = 1
//!     duration = "6h"
//!     [[pool.machines]]
//!     count = 4
//!     cpus = 4
//!     memory = 8192
//!     [[users]]
//!     name = "amy"
//!     arrival = { process = "poisson", mean_interval = "2m" }
//!     runtime = { distribution = "exponential", mean = "30m" }
//! "#, "doc.toml".as_ref())?;
//! let results = Simulation::new(&scenario)?.run(None, &mut |_| {})?;
//! let jobs = results.table("jobs").expect("a jobs table");
//! assert!(jobs.rows() > 100);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod events;
pub mod execute;
pub mod owner;
pub mod pool;
pub mod random;
pub mod results;
pub mod run;
pub mod scenario;
pub mod trace;

/// Why a simulation could not run.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// The scenario is wrong.
    #[error(transparent)]
    Scenario(#[from] scenario::ScenarioError),
    /// The trace could not be read.
    #[error(transparent)]
    Trace(#[from] trace::TraceError),
    /// The HTCondor configuration is wrong.
    #[error("configuration: {0}")]
    Config(#[from] matchmaker::config::ConfigError),
    /// The pool could not be built.
    #[error("pool: {0}")]
    Pool(String),
    /// The negotiator failed.
    #[error("negotiator: {0}")]
    Negotiator(#[from] matchmaker::negotiator::NegotiatorError),
    /// The accountant failed.
    #[error("accountant: {0}")]
    Accountant(#[from] matchmaker::accountant::AccountantError),
    /// The rows of the jobs table could not be written.
    #[error("jobs table: {0}")]
    Jobs(String),
}
