//! The event queue of the simulation: events in time order, and events of
//! the same time in the order they were scheduled, so that a run never
//! depends on how a heap breaks ties.
//!
//! ```
//! use negotiator_sim::simulate::events::EventQueue;
//!
//! let mut queue = EventQueue::new();
//! queue.schedule(60, "cycle");
//! queue.schedule(10, "arrival");
//! queue.schedule(60, "completion");
//! let order: Vec<(i64, &str)> = std::iter::from_fn(|| queue.pop()).collect();
//! assert_eq!(order, [(10, "arrival"), (60, "cycle"), (60, "completion")]);
//! ```

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// An event with its time and sequence number.
struct Entry<E> {
    time: i64,
    sequence: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        (self.time, self.sequence) == (other.time, other.sequence)
    }
}

impl<E> Eq for Entry<E> {}

impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<E> Ord for Entry<E> {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.time, self.sequence).cmp(&(other.time, other.sequence))
    }
}

/// Events ordered by `(time, sequence)`: the earliest first, and of equal
/// times the one scheduled first.
pub struct EventQueue<E> {
    heap: BinaryHeap<Reverse<Entry<E>>>,
    next_sequence: u64,
    now: i64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue::new()
    }
}

impl<E> EventQueue<E> {
    /// An empty queue at time 0.
    pub fn new() -> EventQueue<E> {
        EventQueue { heap: BinaryHeap::new(), next_sequence: 0, now: 0 }
    }

    /// Schedules `event` at `time`. A time before the last event taken is
    /// moved to that event's time: the simulation never goes back.
    ///
    /// ```
    /// use negotiator_sim::simulate::events::EventQueue;
    /// let mut queue = EventQueue::new();
    /// queue.schedule(100, 'a');
    /// assert_eq!(queue.pop(), Some((100, 'a')));
    /// queue.schedule(50, 'b'); // in the past: happens now
    /// assert_eq!(queue.pop(), Some((100, 'b')));
    /// ```
    pub fn schedule(&mut self, time: i64, event: E) {
        let time = time.max(self.now);
        let sequence = self.next_sequence;
        self.next_sequence += 1;
        self.heap.push(Reverse(Entry { time, sequence, event }));
    }

    /// Takes the next event, with its time.
    pub fn pop(&mut self) -> Option<(i64, E)> {
        let Reverse(entry) = self.heap.pop()?;
        self.now = entry.time;
        Some((entry.time, entry.event))
    }

    /// The time of the next event.
    pub fn peek_time(&self) -> Option<i64> {
        self.heap.peek().map(|Reverse(e)| e.time)
    }

    /// The time of the last event taken (0 before any).
    pub fn now(&self) -> i64 {
        self.now
    }

    /// How many events are waiting.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether no event is waiting.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_order_then_scheduling_order() {
        let mut q = EventQueue::new();
        for (t, e) in [(5, 0), (3, 1), (5, 2), (3, 3), (0, 4), (5, 5)] {
            q.schedule(t, e);
        }
        let got: Vec<(i64, i32)> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(got, [(0, 4), (3, 1), (3, 3), (5, 0), (5, 2), (5, 5)]);
        assert!(q.is_empty());
    }

    #[test]
    fn events_scheduled_while_running_keep_their_place() {
        let mut q = EventQueue::new();
        q.schedule(10, "a");
        q.schedule(20, "c");
        assert_eq!(q.pop(), Some((10, "a")));
        q.schedule(20, "d");
        q.schedule(15, "b");
        assert_eq!(q.now(), 10);
        assert_eq!(q.peek_time(), Some(15));
        assert_eq!(q.len(), 3);
        let got: Vec<&str> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
        assert_eq!(got, ["b", "c", "d"]);
    }

    #[test]
    fn the_past_becomes_now() {
        let mut q = EventQueue::new();
        q.schedule(100, 1);
        assert_eq!(q.pop(), Some((100, 1)));
        q.schedule(-5, 2);
        assert_eq!(q.pop(), Some((100, 2)));
    }

    #[test]
    fn many_events_come_out_sorted_and_stable() {
        // A seeded shuffle of times; equal times must keep insertion order.
        let mut q = EventQueue::new();
        let mut x: u64 = 12345;
        let mut inserted = Vec::new();
        for i in 0..1000u32 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let t = (x >> 33) as i64 % 50;
            q.schedule(t, i);
            inserted.push((t, i));
        }
        inserted.sort_by_key(|&(t, i)| (t, i));
        let got: Vec<(i64, u32)> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(got, inserted);
    }
}
