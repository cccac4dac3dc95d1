//! HTCondor's `condor_collector` as a library.
//!
//! The collector holds the ads a pool's daemons advertise and answers the
//! queries of `condor_status`, the negotiator and the Python bindings. This
//! crate keeps HTCondor 23.9's tables and rules:
//!
//! * [`Store`]: one table per ad type ([`Table`]), keyed as `hashkey.cpp`
//!   keys them ([`key::make_key`]); `LastHeardFrom` on every update;
//!   expiry after the ad's `ClassAdLifetime` or `CLASSAD_LIFETIME`
//!   ([`Store::housekeep`]); startd private ads beside their slot ads;
//!   private attributes split out of public ads; StartD daemon ads made
//!   from old startds' slot 1; `MERGE_STARTD_AD`. Readers work from
//!   snapshots, so a long query never holds up updates; each stored ad
//!   keeps its wire encoding for the replies that send it whole.
//! * [`query`]: the query ad (`TargetType`, `Requirements`, `Projection`
//!   as a list or an expression, `LimitResults`, multiple-type queries,
//!   `SendPrivateAttributes`, `LocationQuery`) and the reply.
//! * [`update`]: the `UPDATE_*`, `MERGE_STARTD_AD` and `INVALIDATE_*`
//!   commands' payloads.
//! * [`stats`]: counters for metrics; [`update_stats`]: each daemon's
//!   `Updates*` counters, as HTCondor keeps them in its ads.
//! * [`validate`]: `COLLECTOR_REQUIREMENTS` and the owner check of
//!   `UPDATE_OWN_SUBMITTOR_AD`.
//! * [`self_ad`] and [`config`]: the collector's own ad and knobs.
//! * `server` (the `tokio` feature): the collector served over CEDAR.
//! * `http` (the `http` feature): the HTTP/JSON API and Prometheus metrics.
//!
//! The daemon that runs it under `condor_master` is `classad-collector`,
//! in the workspace's `daemons` crate.
//!
pub mod config;
#[cfg(feature = "http")]
pub mod http;
pub mod key;
pub mod query;
mod record;
pub mod self_ad;
#[cfg(feature = "tokio")]
pub mod server;
pub mod stats;
mod store;
mod table;
pub mod update;
pub mod update_stats;
pub mod validate;

pub use record::StoredAd;
pub use stats::Stats;
pub use store::{Housekeeping, Store, UpdateCommand, UpdateError, Updated, DEFAULT_CLASSAD_LIFETIME};
pub use table::Table;
