//! Slot layouts: the slot ads a `condor_startd` advertises for a machine
//! and configuration, the dynamic slots it carves from partitionable slots,
//! and the `condor_defrag` policy that picks machines to drain.
//!
//! - [`Machine`]: what the startd detects (CPUs, memory, disk, swap,
//!   devices) and publishes about the host; readable from a small TOML
//!   file or from a slot ad.
//! - [`MachineTotals`]: the totals after `NUM_CPUS`, `MEMORY`, `DISK`,
//!   and the custom machine resources (`MACHINE_RESOURCE_<name>`,
//!   inventories, GPU discovery).
//! - [`parse_slot_type`]: a `SLOT_TYPE_<N>` description.
//! - [`Layout`]: the machine divided into its slots (shares, `auto`,
//!   over-commitment errors).
//! - [`Startd`]: the slots over time — their ads, [`Startd::claim`] to
//!   create a dynamic slot for a job, [`Startd::release`] to give it back.
//! - [`defrag`]: which machines `condor_defrag` drains.
//!
//! ```
//! use classad::Value;
//! use matchmaker::config::Config;
//! use matchmaker::startd::slots::{Machine, Startd};
//!
//! let config = Config::parse_str(
//!     "NUM_CPUS = 4\nMEMORY = 8192\nMACHINE_RESOURCE_GPUs = CUDA0, CUDA1\n\
//!      SLOT_TYPE_1 = cpus=2, gpus=1, auto\nNUM_SLOTS_TYPE_1 = 2\n",
//!     "startd.conf",
//! )?;
//! let mut startd = Startd::new(Machine { name: "gpu1".into(), ..Machine::default() }, &config)?;
//! let ads = startd.ads();
//! let gpus: Vec<Value> = ads.iter().map(|ad| ad.eval_attr("AssignedGPUs")).collect();
//! assert_eq!(gpus, [Value::Str("CUDA0".into()), Value::Str("CUDA1".into())]);
//! assert_eq!(ads[1].eval_attr("Memory"), Value::Int(4096));
//! # Ok::<(), matchmaker::startd::slots::SlotError>(())
//! ```

mod ad;
mod attrs;
mod children;
pub mod defrag;
mod dynamic;
mod error;
mod layout;
mod machine;
mod naming;
mod node;
mod resources;
mod share;
mod slot_config;

pub use children::DynamicSlot;
pub use dynamic::DynamicClaim;
pub use error::SlotError;
pub use layout::{Layout, SlotKind, SlotResources, MAX_SLOTS};
pub use machine::Machine;
pub use node::Startd;
pub use resources::{CustomResource, MachineTotals};
pub use share::{parse_slot_type, Share, SlotTypeDescription};
