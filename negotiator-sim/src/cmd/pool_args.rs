//! The synthetic pool's size and slot ads, as `generate` and `bench` take
//! them (one set of options, flattened into both).

use negotiator_sim::synthetic::{SlotAttrs, Spec};

/// The benchmark pool's size and slot ads, as `generate` and `bench`
/// take them.
#[derive(clap::Args)]
pub struct PoolArgs {
    /// Number of slot ads.
    #[arg(long, value_name = "N")]
    pub slots: usize,
    /// Number of idle jobs.
    #[arg(long, value_name = "N")]
    pub jobs: usize,
    /// Number of users (bench01, ...).
    #[arg(long, value_name = "N")]
    pub users: usize,
    /// Number of job classes (autoclusters; default: one per user).
    #[arg(long, value_name = "N")]
    pub autoclusters: Option<usize>,
    /// The 51-attribute slot ads instead of the 158-attribute ones.
    #[arg(long)]
    pub lean: bool,
}

impl PoolArgs {
    /// The pool these arguments describe.
    pub fn spec(&self) -> Spec {
        let mut spec = Spec::new(self.slots, self.jobs, self.users, self.autoclusters.unwrap_or(self.users));
        if self.lean {
            spec.attrs = SlotAttrs::Lean;
        }
        spec
    }
}
