//! HTCondor's `condor_negotiator` on a live pool: the `matchmaker` crate's
//! cycle (the one that agrees with condor_negotiator on every captured
//! pool) fed from a collector and negotiated with real schedds over CEDAR.
//!
//! * [`pool`]: the slot ads, their claim ids and the submitter ads, fetched
//!   from the collector;
//! * [`schedd`]: the NEGOTIATE protocol, negotiator side, on one kept
//!   connection per schedd;
//! * [`cycle`]: one cycle: fetch, prefetch the requests, match, deliver
//!   the matches and rejections ([`LiveNegotiator`]);
//! * [`publish`]: the negotiator's ad with the `LastNegotiationCycle*`
//!   figures and the accounting ads;
//! * [`userprio`]: `condor_userprio`'s commands (priorities, factors,
//!   ceilings, floors, usage edits, the priority report and resource
//!   lists), decoded, applied to the accountant and answered;
//! * [`status`]: the last cycle's report, the cycle counts and the
//!   accounting ads, shared with whoever reports on them;
//! * `http` (the `http` feature): the HTTP/JSON API and Prometheus
//!   metrics on that status.
//!
//! The daemon around it (`classad-negotiator`, in the `daemons` crate)
//! adds the timer, `RESCHEDULE`, the persistent accountant and the
//! `condor_userprio` commands.
//!
//! ```no_run
//! use cedar::client::{Client, ClientConfig, CollectorClient};
//! use matchmaker::accountant::{Accountant, AccountantConfig};
//! use matchmaker::config::Config;
//! use negotiator::cycle::{CycleSettings, LiveNegotiator};
//!
//! let config = Config::default();
//! let mut negotiator = matchmaker::negotiator::Negotiator::from_config(&config)?;
//! negotiator.settings.resend_claimless_matches = true;
//! let mut accountant = Accountant::new(AccountantConfig::from_config(&config)?);
//! let client = Client::new(ClientConfig::default().subsystem("NEGOTIATOR"));
//! let collector = CollectorClient::new(client.clone(), "<127.0.0.1:9618>".parse()?);
//! let mut live = LiveNegotiator::new(client, CycleSettings::default());
//! let report = live.cycle(&collector, &negotiator, &mut accountant, 1_700_000_000)?;
//! println!("{} matches sent, {} rejections", report.matches_sent, report.rejections_sent);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod cycle;
pub mod pool;
pub mod publish;
pub mod schedd;
pub mod status;
pub mod userprio;

#[cfg(feature = "http")]
pub mod http;

pub use cycle::{CycleReport, LiveNegotiator};
