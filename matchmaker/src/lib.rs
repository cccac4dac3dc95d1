//! HTCondor's negotiator as a library.
//!
//! - [`config`]: HTCondor configuration files, read as `condor_config_val`
//!   reads them, with typed accessors and HTCondor's defaults.
//! - [`accountant`]: user priorities (RUP, EUP, factors, usage), updated as
//!   HTCondor's accountant updates them, and the `condor_userprio` operations.
//! - [`classad_log`]: HTCondor's ClassAd transaction log, the file format the
//!   accountant persists itself in (`Accountantnew.log`).

pub mod accountant;
pub mod classad_log;
pub mod config;
pub mod groups;
