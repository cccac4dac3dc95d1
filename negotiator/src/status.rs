//! What a negotiator daemon knows of its cycles, kept where a report on
//! them (the HTTP API, `/metrics`) reads it without waiting for a cycle:
//! the last cycle's [`CycleReport`], how many cycles ran and failed, and
//! the accounting ads last published.
//!
//! ```
//! use negotiator::status::CycleStatus;
//! use negotiator::CycleReport;
//! let status = CycleStatus::default();
//! assert!(status.snapshot().last.is_none());
//! status.record(CycleReport::default());
//! status.record_failure(1_700_000_000, "fetching the pool from the collector: refused");
//! let s = status.snapshot();
//! assert_eq!((s.cycles, s.failed_cycles), (1, 1));
//! assert!(s.last.is_some());
//! ```

use std::sync::{Arc, RwLock};

use classad::ClassAd;

use crate::cycle::CycleReport;

/// The shared status; the cycle thread writes it, readers take a
/// [`Snapshot`].
#[derive(Debug, Default)]
pub struct CycleStatus {
    inner: RwLock<Snapshot>,
}

/// The status at one moment (cheap to take: the report and the ads are
/// shared).
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Snapshot {
    /// The last cycle that ran.
    pub last: Option<Arc<CycleReport>>,
    /// Cycles that ran.
    pub cycles: u64,
    /// Cycles that could not run (the collector did not answer, the
    /// accountant's log failed).
    pub failed_cycles: u64,
    /// The last failure: when (Unix seconds) and why.
    pub last_failure: Option<(i64, String)>,
    /// The accounting ads last published (`MyType = "Accounting"`).
    pub accounting: Arc<Vec<ClassAd>>,
}

impl CycleStatus {
    /// A cycle ran.
    pub fn record(&self, report: CycleReport) {
        if let Ok(mut s) = self.inner.write() {
            s.last = Some(Arc::new(report));
            s.cycles += 1;
        }
    }

    /// A cycle could not run, at `when`, for `why`.
    pub fn record_failure(&self, when: i64, why: impl Into<String>) {
        if let Ok(mut s) = self.inner.write() {
            s.failed_cycles += 1;
            s.last_failure = Some((when, why.into()));
        }
    }

    /// The accounting ads just published.
    pub fn set_accounting(&self, ads: Vec<ClassAd>) {
        if let Ok(mut s) = self.inner.write() {
            s.accounting = Arc::new(ads);
        }
    }

    /// The status now.
    pub fn snapshot(&self) -> Snapshot {
        self.inner.read().map(|s| s.clone()).unwrap_or_default()
    }
}
