//! Arrival order across connections: the order a single-threaded C++
//! daemon gives for free.
//!
//! HTCondor's collector serves one connection at a time, so an update
//! whose bytes arrived first is stored before a later query runs. Clients
//! rely on it: `htcondor2.Collector.advertise` returns as soon as its
//! updates are written (many ads go as commands one after the other on
//! one connection), and a query on a new connection right after must see
//! them all. A server that runs connections concurrently keeps that
//! guarantee with [`Arrival`]s, one per accepted connection, in accept
//! order. Each connection reports, at every command boundary, how many of
//! the bytes it has read it has finished with. A command that must see
//! what earlier connections sent notes, for each earlier connection, how
//! many bytes had reached it (read, or waiting in the socket: `FIONREAD`)
//! and waits until each has finished with that many and has nothing more
//! waiting to be read, has gone, or has made no progress for
//! [`ORDER_WINDOW`] (a stalled peer); never longer than [`ORDER_MAX_WAIT`]
//! in all. (A connection that streams commands without pause therefore
//! holds a later query up to that bound.)

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use ::tokio::sync::Notify;
use ::tokio::time::Instant;

/// How long an earlier connection may make no progress before a waiting
/// command stops waiting for it.
pub const ORDER_WINDOW: Duration = Duration::from_millis(250);

/// The longest a command waits for earlier connections.
pub const ORDER_MAX_WAIT: Duration = Duration::from_secs(2);

/// The connections being served, by accept order.
#[derive(Debug, Default)]
pub(crate) struct Arrivals {
    inner: Mutex<Inner>,
    progress: Notify,
}

#[derive(Debug, Default)]
struct Inner {
    next: u64,
    connections: BTreeMap<u64, Progress>,
}

/// One connection's progress, as its task last reported it.
#[derive(Debug)]
struct Progress {
    /// Bytes read from the socket (kept current by the connection).
    received: Option<Arc<AtomicU64>>,
    /// The socket, for `FIONREAD`; registered while the connection is
    /// open, removed before it closes.
    socket: Option<Arc<::tokio::net::TcpStream>>,
    /// Bytes the connection has finished with (its commands have run).
    done: u64,
    /// When `done` last moved, or the connection was accepted.
    moved: Instant,
}

impl Arrivals {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records a connection accepted now.
    pub(crate) fn arrive(self: &Arc<Self>) -> Arrival {
        let mut inner = self.lock();
        let seq = inner.next;
        inner.next += 1;
        let progress = Progress { received: None, socket: None, done: 0, moved: Instant::now() };
        inner.connections.insert(seq, progress);
        Arrival { arrivals: self.clone(), seq }
    }
}

/// The bytes that have reached a watched connection: read, or waiting in
/// its socket; `None` before it is watched.
fn reached(p: &Progress) -> Option<u64> {
    let received = p.received.as_ref()?.load(Ordering::Acquire);
    Some(received + p.socket.as_deref().map_or(0, unread))
}

/// Bytes waiting in `socket`, not yet read.
fn unread(socket: &::tokio::net::TcpStream) -> u64 {
    #[cfg(unix)]
    {
        rustix::io::ioctl_fionread(socket).unwrap_or(0)
    }
    #[cfg(not(unix))]
    {
        let _ = socket;
        0
    }
}

/// One connection's place in the accept order.
#[derive(Debug)]
pub(crate) struct Arrival {
    arrivals: Arc<Arrivals>,
    seq: u64,
}

impl Arrival {
    /// Registers the open connection's socket and byte counter; the
    /// returned guard unregisters the socket and must be dropped before
    /// the socket is closed.
    pub(crate) fn watch(&self, connection: &super::AsyncConnection) -> Watch<'_> {
        let mut inner = self.arrivals.lock();
        if let Some(p) = inner.connections.get_mut(&self.seq) {
            p.received = Some(connection.received());
            p.socket = Some(connection.shared_stream());
        }
        Watch { arrival: self }
    }

    /// A command boundary: of the bytes read, all but `held` (read ahead,
    /// not yet run) are done with.
    pub(crate) fn report(&self, held: usize) {
        let mut inner = self.arrivals.lock();
        if let Some(p) = inner.connections.get_mut(&self.seq) {
            let received = p.received.as_ref().map_or(0, |r| r.load(Ordering::Acquire));
            let done = received.saturating_sub(held as u64);
            if done != p.done {
                p.done = done;
                p.moved = Instant::now();
            }
        }
        drop(inner);
        self.arrivals.progress.notify_waiters();
    }

    /// Waits until every connection accepted before this one has finished
    /// with the bytes that had reached it by now (see the module docs).
    pub(crate) async fn wait_for_earlier(&self) {
        // Each earlier connection's target: the bytes that had reached it.
        // One not yet watched (its task has not started) gets its target
        // when it is.
        let mut targets: Vec<(u64, Option<u64>)> = {
            let inner = self.arrivals.lock();
            inner.connections.range(..self.seq).map(|(&seq, p)| (seq, reached(p))).collect()
        };
        let deadline = Instant::now() + ORDER_MAX_WAIT;
        loop {
            let notified = self.arrivals.progress.notified();
            let mut notified = std::pin::pin!(notified);
            notified.as_mut().enable();
            let now = Instant::now();
            // The soonest a connection still behind counts as stalled.
            let mut stall: Option<Instant> = None;
            {
                let inner = self.arrivals.lock();
                for (seq, target) in &mut targets {
                    let Some(p) = inner.connections.get(seq) else { continue };
                    if target.is_none() {
                        *target = reached(p);
                    }
                    // Behind its target, or still reading: bytes the peer
                    // wrote before our command may wait in its own send
                    // buffer when ours is full, where no count can see them.
                    let reading = p.socket.as_deref().is_some_and(|s| unread(s) > 0);
                    let behind = target.is_none_or(|t| p.done < t) || reading;
                    if behind && now < p.moved + ORDER_WINDOW {
                        let at = p.moved + ORDER_WINDOW;
                        stall = Some(stall.map_or(at, |s| s.min(at)));
                    }
                }
            }
            let Some(stall) = stall else { return };
            if now >= deadline {
                tracing::debug!("cedar::tokio: gave up waiting for earlier connections");
                return;
            }
            let _ = ::tokio::time::timeout_at(stall.min(deadline), notified).await;
        }
    }

    fn unregister(&self) {
        let mut inner = self.arrivals.lock();
        if let Some(p) = inner.connections.get_mut(&self.seq) {
            p.socket = None;
            p.received = None;
        }
    }
}

impl Drop for Arrival {
    fn drop(&mut self) {
        self.arrivals.lock().connections.remove(&self.seq);
        self.arrivals.progress.notify_waiters();
    }
}

/// Keeps a connection's socket registered; dropped before the socket.
#[derive(Debug)]
pub(crate) struct Watch<'a> {
    arrival: &'a Arrival,
}

impl Drop for Watch<'_> {
    fn drop(&mut self) {
        self.arrival.unregister();
        // The connection is closing: waiters need not wait for it.
        self.arrival.arrivals.lock().connections.remove(&self.arrival.seq);
        self.arrival.arrivals.progress.notify_waiters();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A connection that has read `n` bytes.
    fn reading(arrivals: &Arc<Arrivals>, n: u64) -> (Arrival, Arc<AtomicU64>) {
        let arrival = arrivals.arrive();
        let counter = Arc::new(AtomicU64::new(n));
        arrivals.lock().connections.get_mut(&arrival.seq).expect("registered").received = Some(counter.clone());
        (arrival, counter)
    }

    #[::tokio::test(flavor = "current_thread", start_paused = true)]
    async fn a_later_command_waits_until_earlier_bytes_are_done_with() {
        let arrivals = Arc::new(Arrivals::default());
        let (update, _received) = reading(&arrivals, 100);
        let (query, _) = reading(&arrivals, 10);
        let started = Instant::now();
        let waiter = async {
            query.wait_for_earlier().await;
            started.elapsed()
        };
        let updater = async {
            // Three commands of the update stream, 10 ms apart.
            for held in [60, 20, 0] {
                ::tokio::time::sleep(Duration::from_millis(10)).await;
                update.report(held);
            }
        };
        let (waited, ()) = ::tokio::join!(waiter, updater);
        assert_eq!(waited, Duration::from_millis(30));
    }

    #[::tokio::test(flavor = "current_thread", start_paused = true)]
    async fn a_stalled_earlier_connection_costs_at_most_the_window() {
        let arrivals = Arc::new(Arrivals::default());
        let (_stalled, _) = reading(&arrivals, 5);
        let (query, _) = reading(&arrivals, 0);
        let started = Instant::now();
        query.wait_for_earlier().await;
        assert_eq!(started.elapsed(), ORDER_WINDOW);
    }

    #[::tokio::test(flavor = "current_thread", start_paused = true)]
    async fn a_connection_done_with_its_bytes_is_not_waited_for() {
        let arrivals = Arc::new(Arrivals::default());
        let (idle, _) = reading(&arrivals, 40);
        idle.report(0);
        let (query, _) = reading(&arrivals, 0);
        let started = Instant::now();
        query.wait_for_earlier().await;
        assert_eq!(started.elapsed(), Duration::ZERO);
    }

    #[::tokio::test(flavor = "current_thread", start_paused = true)]
    async fn an_earlier_connection_never_waits_for_a_later_one() {
        let arrivals = Arc::new(Arrivals::default());
        let (first, _) = reading(&arrivals, 0);
        let (_second, _) = reading(&arrivals, 50);
        let started = Instant::now();
        first.wait_for_earlier().await;
        assert_eq!(started.elapsed(), Duration::ZERO);
    }

    #[::tokio::test(flavor = "current_thread", start_paused = true)]
    async fn a_connection_that_closes_is_not_waited_for() {
        let arrivals = Arc::new(Arrivals::default());
        let (update, _) = reading(&arrivals, 100);
        let (query, _) = reading(&arrivals, 0);
        let started = Instant::now();
        let waiter = async {
            query.wait_for_earlier().await;
            started.elapsed()
        };
        let closer = async {
            ::tokio::time::sleep(Duration::from_millis(7)).await;
            drop(update);
        };
        let (waited, ()) = ::tokio::join!(waiter, closer);
        assert_eq!(waited, Duration::from_millis(7));
    }
}
