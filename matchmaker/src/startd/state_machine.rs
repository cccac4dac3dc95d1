//! The startd's policy state machine: states and activities
//! ([`state`]), claims ([`claim`]), the policy ([`policy`]), events,
//! actions and their causes ([`event`]), what the startd remembers of a
//! slot ([`memory`]), the ad its policy is evaluated against
//! ([`policy_ad`]), and the pure [`step`](mod@step) that moves it.
//! Everything public is re-exported by [`crate::startd`].

mod claim;
mod event;
mod memory;
mod names;
mod policy;
mod policy_ad;
mod state;
mod step;

pub use claim::{Claim, Pending};
pub use event::{Action, ActionKind, Cause, DrainHow, Event, Outcome, Transition};
pub use memory::Slot;
pub use policy::{Policy, PolicyError};
pub use policy_ad::PolicyAd;
pub use state::{transition_number, Activity, State, UnknownName};
pub use step::{step, Step};
