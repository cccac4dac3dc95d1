//! HTCondor's execute side: what a `condor_startd` advertises and how it
//! divides a machine.
//!
//! - [`slots`]: slot layouts — from a machine description and the startd's
//!   configuration to the slot ads it would advertise, dynamic slots carved
//!   from partitionable ones, and the `condor_defrag` draining policy.

pub mod slots;
