//! Counters of what the collector did, for metrics: plain atomics, read
//! at any time without a lock. The table sizes are not here: they are the
//! store's ([`crate::Store::counts`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// The upper bounds, in seconds, of the query-duration histogram's
/// buckets (a last, unbounded bucket follows them).
pub const QUERY_SECONDS_BUCKETS: [f64; 12] =
    [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0];

/// How many command numbers are counted one by one (commands 0..=99 are
/// the collector's; the others are counted together).
const PER_COMMAND: usize = 100;

/// A histogram of durations with fixed buckets ([`QUERY_SECONDS_BUCKETS`]).
#[derive(Debug, Default)]
pub struct Histogram {
    /// Observations per bucket, not cumulative: `buckets[i]` counts those
    /// at most `QUERY_SECONDS_BUCKETS[i]` and above the bound before; the
    /// last counts those above every bound.
    pub buckets: [AtomicU64; QUERY_SECONDS_BUCKETS.len() + 1],
    /// How many observations.
    pub count: AtomicU64,
    /// Their sum, in microseconds.
    pub sum_micros: AtomicU64,
}

impl Histogram {
    /// Records one duration.
    ///
    /// ```
    /// let h = collector::stats::Histogram::default();
    /// h.observe(std::time::Duration::from_millis(3));
    /// assert_eq!(h.cumulative()[3], 1); // <= 5 ms
    /// assert_eq!(h.cumulative()[2], 0); // <= 2.5 ms
    /// ```
    pub fn observe(&self, d: Duration) {
        let secs = d.as_secs_f64();
        let i = QUERY_SECONDS_BUCKETS.iter().position(|&b| secs <= b).unwrap_or(QUERY_SECONDS_BUCKETS.len());
        self.buckets[i].fetch_add(1, Ordering::Relaxed);
        self.count.fetch_add(1, Ordering::Relaxed);
        self.sum_micros.fetch_add(u64::try_from(d.as_micros()).unwrap_or(u64::MAX), Ordering::Relaxed);
    }

    /// The cumulative counts (Prometheus' `le` buckets), the last being
    /// `+Inf`.
    pub fn cumulative(&self) -> Vec<u64> {
        let mut total = 0;
        self.buckets
            .iter()
            .map(|b| {
                total += b.load(Ordering::Relaxed);
                total
            })
            .collect()
    }
}

/// Per-command counters: commands 0..=99 one by one, the rest together.
#[derive(Debug)]
pub struct PerCommand {
    counts: [AtomicU64; PER_COMMAND + 1],
}

impl Default for PerCommand {
    fn default() -> Self {
        PerCommand { counts: std::array::from_fn(|_| AtomicU64::new(0)) }
    }
}

impl PerCommand {
    /// Counts one `command`.
    pub fn add(&self, command: i32) {
        let i = usize::try_from(command).ok().filter(|&i| i < PER_COMMAND).unwrap_or(PER_COMMAND);
        self.counts[i].fetch_add(1, Ordering::Relaxed);
    }

    /// The non-zero counts: `(Some(command), n)`, and `(None, n)` for the
    /// commands counted together.
    ///
    /// ```
    /// let c = collector::stats::PerCommand::default();
    /// c.add(5);
    /// c.add(5);
    /// c.add(60040);
    /// assert_eq!(c.nonzero(), vec![(Some(5), 2), (None, 1)]);
    /// ```
    pub fn nonzero(&self) -> Vec<(Option<i32>, u64)> {
        self.counts
            .iter()
            .enumerate()
            .filter_map(|(i, n)| {
                let n = n.load(Ordering::Relaxed);
                (n > 0).then(|| ((i < PER_COMMAND).then_some(i as i32), n))
            })
            .collect()
    }
}

/// What the collector counted since it started.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct Stats {
    /// Updates stored, by command.
    pub updates: PerCommand,
    /// Updates refused (no key, no type, nothing to merge into, an
    /// unreadable ad), by command.
    pub updates_failed: PerCommand,
    /// Updates that added a new ad (rather than replacing one).
    pub ads_inserted: AtomicU64,
    /// Queries answered, by command.
    pub queries: PerCommand,
    /// Queries refused (a bad query ad, private ads not authorized), by
    /// command.
    pub queries_failed: PerCommand,
    /// Ads sent in query replies.
    pub ads_sent: AtomicU64,
    /// Bytes of query replies (payload, before framing and encryption).
    pub reply_bytes: AtomicU64,
    /// How long queries took from the query ad read to the reply built.
    pub query_seconds: Histogram,
    /// Invalidations received, by command.
    pub invalidations: PerCommand,
    /// Ads removed by invalidations.
    pub ads_invalidated: AtomicU64,
    /// Ads removed by housekeeping, past their lifetime (private ads not
    /// counted).
    pub ads_expired: AtomicU64,
    /// Housekeeping passes run.
    pub housekeeping_runs: AtomicU64,
}

impl Stats {
    /// All zero.
    pub fn new() -> Stats {
        Stats::default()
    }
}
