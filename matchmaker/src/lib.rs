//! HTCondor's negotiator as a library.
//!
//! - [`config`]: HTCondor configuration files, read as `condor_config_val`
//!   reads them, with typed accessors and HTCondor's defaults.
//! - [`accountant`]: user priorities (RUP, EUP, factors, usage), updated as
//!   HTCondor's accountant updates them, and the `condor_userprio` operations.
//! - [`classad_log`]: HTCondor's ClassAd transaction log, the file format the
//!   accountant persists itself in (`Accountantnew.log`).
//! - [`groups`]: accounting-group names, which group a submitter is in, and
//!   the hierarchical group quotas the negotiator assigns each cycle.
//! - [`candidates`]: how a job may take a matching slot (unclaimed, rank or
//!   priority preemption) and the order the negotiator prefers slots in.
//! - [`autocluster`]: a queue's idle jobs grouped into resource requests.
//! - [`concurrency`]: concurrency limits.
//! - [`consumption`]: consumption policies of partitionable slots.
//! - [`negotiator`]: one negotiation cycle.
//! - [`snapshot`]: a pool snapshot read from HTCondor tools' output.
//! - [`userprio_ad`]: the `condor_userprio -long` ad written.
//! - [`matching`]: one request against many slots at once (batch matching).
//!   It owns its slots and updates them one at a time.
//! - [`analysis`] (classad's, re-exported): why a job does not match
//!   (`condor_q -analyze`): the disjoint counts, each condition's
//!   machines, missing attributes, suggestions ([`analysis::analyze`]).
//! - [`startd`]: the condor_startd: its policy state machine (states,
//!   activities, `START`/`SUSPEND`/`PREEMPT`... and their transitions) as a
//!   pure step function, and slot layouts, dynamic slots and draining
//!   ([`startd::slots`]).
//! - [`pie`]: each submitter's share and limit in a pie spin, and the order
//!   submitters negotiate in.
//! - [`schedd`]: the schedd's job transforms and submit requirements, and
//!   `condor_transform_ads`' rules.
//!
//! The library reads no clock: every operation takes the time as an
//! argument.
//!
//! ```
//! use classad::ClassAd;
//! use matchmaker::accountant::{Accountant, AccountantConfig};
//!
//! let mut acct = Accountant::new(AccountantConfig::default()); // a one-day half-life
//! let slot: ClassAd = r#"[ Name = "slot1@node"; StartdIpAddr = "<10.0.0.1:9618>";
//!     State = "Claimed"; RemoteUser = "alice@site"; SlotWeight = 100 ]"#.parse()?;
//! acct.update_priorities(0)?;
//! acct.check_matches(0, &[slot])?;          // alice uses 100 weighted slots
//! acct.update_priorities(2 * 86_400)?;      // two days later
//! assert!((acct.real_priority("alice@site") - 75.125).abs() < 1e-6);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod accountant;
pub use classad::analysis;
pub mod autocluster;
pub mod candidates;
pub mod classad_log;
pub mod concurrency;
pub mod config;
pub mod consumption;
pub mod groups;
pub mod matching;
pub mod negotiator;
mod parallel;
pub mod pie;
pub mod schedd;
pub mod snapshot;
pub mod startd;
pub mod userprio_ad;

/// The code in the repository's README (which uses both crates), compiled
/// and run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeExamples;

/// The code in `docs/analysis.md`, compiled and run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../../docs/analysis.md")]
struct AnalysisDocExamples;

/// The code in `docs/negotiation.md`, compiled and run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../../docs/negotiation.md")]
struct NegotiationDocExamples;

/// The code in `docs/startd-policy.md`, compiled and run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../../docs/startd-policy.md")]
struct StartdPolicyDocExamples;

/// The code in `docs/transforms.md`, compiled and run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../../docs/transforms.md")]
struct TransformsDocExamples;

/// The code in `docs/slot-layouts.md`, compiled and run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../../docs/slot-layouts.md")]
struct SlotLayoutsDocExamples;

/// The code in this crate's README, compiled and run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct CrateReadmeExamples;
