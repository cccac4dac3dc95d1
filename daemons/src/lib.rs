//! What every HTCondor-compatible daemon of this project needs to run
//! under a real `condor_master` or alone.
pub mod args;
pub mod commands;
pub mod config;
pub mod files;
pub mod inherit;
pub mod keepalive;
pub mod log;
pub mod socket;
