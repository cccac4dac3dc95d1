//! Work over many items on rayon's threads when the crate is built with
//! the `parallel` feature, in order on this thread otherwise; results come
//! in the items' order either way.

/// Below this many items the work stays on this thread.
const PARALLEL_FROM: usize = 4096;

/// `f(i, &items[i])` for every item.
pub(crate) fn map_indexed<T: Sync, R: Send>(items: &[T], f: impl Fn(usize, &T) -> R + Sync) -> Vec<R> {
    map_indexed_from(items, PARALLEL_FROM, f)
}

/// Below this many items of costly work (a few microseconds an item,
/// such as preparing an ad's expressions) the work stays on this thread.
const COSTLY_PARALLEL_FROM: usize = 48;

/// As [`map_indexed`], for work that costs microseconds an item: on
/// rayon's threads from a few dozen items on.
pub(crate) fn map_costly<T: Sync, R: Send>(items: &[T], f: impl Fn(usize, &T) -> R + Sync) -> Vec<R> {
    map_indexed_from(items, COSTLY_PARALLEL_FROM, f)
}

/// `f(i, &items[i])` for every item, on rayon's threads from `from` items on.
fn map_indexed_from<T: Sync, R: Send>(items: &[T], from: usize, f: impl Fn(usize, &T) -> R + Sync) -> Vec<R> {
    #[cfg(feature = "parallel")]
    if items.len() >= from {
        use rayon::prelude::*;
        return items.par_iter().enumerate().map(|(i, item)| f(i, item)).collect();
    }
    #[cfg(not(feature = "parallel"))]
    let _ = from;
    items.iter().enumerate().map(|(i, item)| f(i, item)).collect()
}

/// `f(&mut items[i])` for every item.
pub(crate) fn map_mut<T: Send, R: Send>(items: &mut [T], f: impl Fn(&mut T) -> R + Sync) -> Vec<R> {
    #[cfg(feature = "parallel")]
    if items.len() >= PARALLEL_FROM {
        use rayon::prelude::*;
        return items.par_iter_mut().map(&f).collect();
    }
    items.iter_mut().map(f).collect()
}

/// `a()` and `b()`, on two of rayon's threads when one is free; in turn
/// without the `parallel` feature.
pub(crate) fn join<A: Send, B: Send>(a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B + Send) -> (A, B) {
    #[cfg(feature = "parallel")]
    return rayon::join(a, b);
    #[cfg(not(feature = "parallel"))]
    (a(), b())
}

/// Drops `garbage` (a large collection) on another of rayon's threads,
/// so that this one goes on meanwhile; here without the `parallel`
/// feature.
pub(crate) fn drop_elsewhere<T: Send + 'static>(garbage: T) {
    #[cfg(feature = "parallel")]
    if rayon::current_num_threads() > 1 {
        rayon::spawn(move || drop(garbage));
        return;
    }
    drop(garbage);
}

/// `f(start, share)` for `shares` consecutive shares of `items` (the last
/// may be shorter), `start` being the index of the share's first item; the
/// shares run on rayon's threads when there are enough items, and below
/// that all items are one share.
pub(crate) fn map_shares<T: Sync, R: Send>(items: &[T], shares: usize, f: impl Fn(usize, &[T]) -> R + Sync) -> Vec<R> {
    let shares = if items.len() >= PARALLEL_FROM { shares } else { 1 };
    let size = items.len().div_ceil(shares.max(1)).max(1);
    let chunks: Vec<(usize, &[T])> = items.chunks(size).enumerate().map(|(s, c)| (s * size, c)).collect();
    #[cfg(feature = "parallel")]
    if items.len() >= PARALLEL_FROM {
        use rayon::prelude::*;
        return chunks.into_par_iter().map(|(start, share)| f(start, share)).collect();
    }
    chunks.into_iter().map(|(start, share)| f(start, share)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_the_items_order() {
        let items: Vec<u64> = (0..10_000).collect();
        let doubled = map_indexed(&items, |i, &x| (i as u64) + x);
        assert_eq!(doubled, items.iter().map(|x| 2 * x).collect::<Vec<_>>());
        let mut items = items;
        let old = map_mut(&mut items, |x| {
            *x += 1;
            *x - 1
        });
        assert_eq!(old, (0..10_000).collect::<Vec<u64>>());
        assert_eq!(items[9_999], 10_000);
    }

    #[test]
    fn shares_cover_every_item_once_in_order() {
        let items: Vec<u64> = (0..10_001).collect();
        let sums = map_shares(&items, 7, |start, share| (start, share.len(), share.iter().sum::<u64>()));
        assert_eq!(sums.len(), 7);
        let mut next = 0;
        for (start, len, _) in &sums {
            assert_eq!(*start, next);
            next += len;
        }
        assert_eq!(next, items.len());
        assert_eq!(sums.iter().map(|s| s.2).sum::<u64>(), items.iter().sum::<u64>());
        assert!(map_shares(&[] as &[u64], 4, |_, s| s.len()).is_empty());
        let few: Vec<u64> = (0..100).collect();
        assert_eq!(map_shares(&few, 7, |start, s| (start, s.len())), vec![(0, 100)], "few items: one share");
    }
}
