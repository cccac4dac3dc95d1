//! The keep-alive a DaemonCore child sends its parent
//! (`DaemonKeepAlive`, daemon_keep_alive.cpp, 23.9): `DC_CHILDALIVE` with
//! our pid, the time after which the parent may kill us as hung, and the
//! share of time spent waiting on the log lock (0 here), every
//! `max_hang_time / 3 - 30` seconds.
//!
//! `max_hang_time` is `<SUBSYS>_NOT_RESPONDING_TIMEOUT` (else
//! `NOT_RESPONDING_TIMEOUT`, 3600 s) plus a random tenth either way
//! (`timer_fuzz`). The master (`HandleChildAliveCommand`) reads `int pid`,
//! `int seconds` and, optionally, a `double`, and kills the child if no
//! keep-alive comes within that many seconds.
//!
//! The message goes over TCP with cedar's client, resuming the session the
//! master made for us (`SessionKey` in `CONDOR_PRIVATE_INHERIT`), or with a
//! handshake when there is none. Each send gets `max(period / 3, 60)`
//! seconds; a failed one is retried up to three times, 5 s apart. As in
//! C++, the first one is sent at once, and its failure is fatal.
//!
//! ```
//! use daemons::keepalive::timing;
//! let t = timing(3600, 0);
//! assert_eq!((t.max_hang_time, t.period.as_secs(), t.send_timeout.as_secs()), (3600, 1170, 390));
//! let short = timing(60, 0);
//! assert_eq!((short.period.as_secs(), short.send_timeout.as_secs()), (1, 60));
//! ```

use std::time::Duration;

use cedar::client::{Client, ClientConfig, ClientSession};
use cedar::sinful::Sinful;

use crate::commands::DC_CHILDALIVE;

/// How many times one keep-alive is tried.
pub const TRIES: u32 = 3;
/// The wait between tries.
pub const RETRY_DELAY: Duration = Duration::from_secs(5);

/// The keep-alive's numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Timing {
    /// Seconds sent to the parent: it may kill us if nothing comes within
    /// them.
    pub max_hang_time: u32,
    /// Time between keep-alives.
    pub period: Duration,
    /// The deadline of one send.
    pub send_timeout: Duration,
}

/// The keep-alive timing for a `NOT_RESPONDING_TIMEOUT` of `raw` seconds
/// and a fuzz of `fuzz` seconds (see [`fuzz`]).
pub fn timing(raw: i64, fuzz: i64) -> Timing {
    let raw = raw.clamp(1, i64::from(i32::MAX) / 2);
    let mut max_hang = raw + fuzz;
    if max_hang <= 0 {
        max_hang = raw;
    }
    let period = (max_hang / 3 - 30).max(1);
    let send_timeout = (period / i64::from(TRIES)).max(60);
    Timing {
        max_hang_time: u32::try_from(max_hang).unwrap_or(u32::MAX),
        period: Duration::from_secs(period.unsigned_abs()),
        send_timeout: Duration::from_secs(send_timeout.unsigned_abs()),
    }
}

/// `timer_fuzz(period)`: a random number of seconds in about
/// ±`period / 20` (a tenth of the period, centred), so that daemons
/// started together do not stay in step.
pub fn fuzz(period: i64) -> i64 {
    let mut span = period / 10;
    if span <= 0 {
        if period <= 0 {
            return 0;
        }
        span = period - 1;
    }
    let r = random_unit();
    let f = (r * (span as f64 + 1.0)) as i64 - span / 2;
    if period + f <= 0 {
        0
    } else {
        f
    }
}

/// A number in [0, 1) from the standard library's random hash keys.
fn random_unit() -> f64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
    (h.finish() >> 11) as f64 / (1u64 << 53) as f64
}

/// The `DC_CHILDALIVE` payload: pid, seconds, lock delay.
pub fn payload(enc: &mut cedar::wire::Encoder, pid: u32, max_hang_time: u32, lock_delay: f64) {
    enc.put_int(i64::from(pid));
    enc.put_int(i64::from(max_hang_time));
    enc.put_double(lock_delay);
}

/// Sends keep-alives to one parent.
#[derive(Debug, Clone)]
pub struct KeepAlive {
    parent: Sinful,
    pid: u32,
    client: Client,
}

impl KeepAlive {
    /// A keep-alive from process `pid` to `parent`, with `config`'s
    /// client identity, resuming `session` (the parent's `SessionKey`
    /// session) when given.
    pub fn new(parent: Sinful, pid: u32, config: ClientConfig, session: Option<ClientSession>) -> KeepAlive {
        let client = Client::new(config);
        if let Some(mut session) = session {
            // The cache keys sessions by the address as we print it.
            session.connect_addr = parent.to_string();
            if let Ok(mut cache) = client.sessions().lock() {
                cache.insert(session, std::time::Instant::now());
            }
        }
        KeepAlive { parent, pid, client }
    }

    /// The parent's address.
    pub fn parent(&self) -> &Sinful {
        &self.parent
    }

    /// Sends one `DC_CHILDALIVE` (blocking: run it off the async threads).
    pub fn send_blocking(&self, max_hang_time: u32) -> cedar::error::Result<()> {
        let mut conn = self.client.start(&self.parent, DC_CHILDALIVE)?;
        let mut enc = conn.encoder();
        payload(&mut enc, self.pid, max_hang_time, 0.0);
        conn.send(enc)?;
        // C++ closes the socket after the message; no reply comes.
        Ok(())
    }

    /// Sends one keep-alive, trying up to [`TRIES`] times; each try has
    /// `timing.send_timeout`.
    pub async fn send(&self, timing: Timing) -> cedar::error::Result<()> {
        let mut last = None;
        for attempt in 1..=TRIES {
            let me = self.clone();
            let tried = tokio::time::timeout(
                timing.send_timeout,
                tokio::task::spawn_blocking(move || me.send_blocking(timing.max_hang_time)),
            )
            .await;
            let err = match tried {
                Ok(Ok(Ok(()))) => {
                    tracing::debug!(target: "daemons::keepalive", "DaemonKeepAlive: Leaving SendAliveToParent() - success");
                    return Ok(());
                }
                Ok(Ok(Err(e))) => e,
                Ok(Err(join)) => cedar::Error::new(cedar::ErrorKind::Io, join.to_string()),
                Err(_) => cedar::Error::new(cedar::ErrorKind::Timeout, "the keep-alive took too long"),
            };
            tracing::info!(
                target: "daemons::keepalive",
                "ChildAliveMsg: failed to send DC_CHILDALIVE to parent {} (try {attempt} of {TRIES}): {err}",
                self.parent
            );
            last = Some(err);
            if attempt < TRIES {
                tokio::time::sleep(RETRY_DELAY).await;
            }
        }
        Err(last.unwrap_or_else(|| cedar::Error::new(cedar::ErrorKind::Io, "no keep-alive sent")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timing_follows_daemon_keep_alive() {
        assert_eq!(timing(3600, 100).max_hang_time, 3700);
        assert_eq!(timing(3600, 100).period, Duration::from_secs(3700 / 3 - 30));
        assert_eq!(timing(300, 0).period, Duration::from_secs(70));
        assert_eq!(timing(300, 0).send_timeout, Duration::from_secs(60));
        // Tiny or silly values stay positive.
        assert_eq!(timing(1, 0).period, Duration::from_secs(1));
        assert_eq!(timing(-4, 0).max_hang_time, 1);
        assert_eq!(timing(10, -50).max_hang_time, 10);
    }

    #[test]
    fn fuzz_stays_within_a_tenth() {
        for _ in 0..200 {
            let f = fuzz(3600);
            assert!((-180..=180).contains(&f), "{f}");
        }
        assert_eq!(fuzz(0), 0);
        assert!((-1..=1).contains(&fuzz(3)));
    }

    #[test]
    fn the_payload_is_what_the_master_reads() {
        let mut enc = cedar::wire::Encoder::new(false);
        payload(&mut enc, 4242, 3700, 0.0);
        let mut dec = cedar::wire::Decoder::new(enc.as_bytes(), false);
        assert_eq!(dec.get_int().unwrap(), 4242);
        assert_eq!(dec.get_int().unwrap(), 3700);
        assert_eq!(dec.get_double().unwrap(), 0.0);
        assert!(dec.is_empty());
    }
}
