//! A partitionable slot's children: its dynamic slots ([`DynamicSlot`]),
//! what each adds to the `Child<Attr>` lists of its ad ([`ChildRow`]),
//! and the lists, shared when they repeat one integer.

use std::sync::{Arc, LazyLock};

use classad::{ClassAd, Expr, Name, Value};

use super::attrs::{num, string_attr, CustomNames, NAMES};
use super::{MachineTotals, SlotResources};

/// A dynamic slot and the claim it serves.
#[derive(Debug, Clone)]
pub struct DynamicSlot {
    /// Its resources.
    pub slot: SlotResources,
    /// The job (request) it was created for, with the startd's rounding
    /// of its requests applied (shared with the caller that rounded it,
    /// see [`Startd::claim_at`](super::Startd::claim_at)).
    pub job: Arc<ClassAd>,
    /// What it adds to its partitionable slot's `Child<Attr>` lists.
    pub(crate) row: ChildRow,
}

impl DynamicSlot {
    /// Whether `name` is this slot's name (compared with the name it was
    /// given at its creation, which does not change).
    pub(crate) fn is_named(&self, name: &str) -> bool {
        self.row.name() == Some(name)
    }
}

/// What a dynamic slot adds to each of its partitionable slot's
/// `Child<Attr>` lists: made when it is created (none of it changes over
/// its life), so that the partitionable slot's ad need not work it out
/// from the slot and its job each time it is built.
#[derive(Debug, Clone)]
pub(crate) struct ChildRow {
    cpus: Expr,
    memory: Expr,
    disk: Expr,
    /// By the machine's custom resources, in order.
    custom: Box<[Expr]>,
    name: Expr,
    dslot_id: Expr,
    /// `User` of its job, UNDEFINED when not a string.
    user: Expr,
}

impl ChildRow {
    /// What dynamic slot `slot`, named `name` and claimed by `job`, adds to
    /// its partitionable slot's `Child<Attr>` lists.
    pub(crate) fn new(slot: &SlotResources, name: &str, job: &ClassAd, totals: &MachineTotals) -> ChildRow {
        ChildRow {
            cpus: num(slot.advertised_cpus()),
            memory: Expr::from(slot.memory),
            disk: Expr::from(slot.disk(totals.disk)),
            custom: totals
                .custom
                .iter()
                .map(|c| Expr::from(slot.custom.get(&c.name).copied().unwrap_or(0.0).trunc() as i64))
                .collect(),
            name: Expr::from(name),
            dslot_id: Expr::from(i64::from(slot.sub_id)),
            user: string_attr(job, NAMES.user).unwrap_or_else(|| Value::Undefined.to_expr()),
        }
    }

    /// The slot's name, as its `ChildName` entry has it.
    pub(crate) fn name(&self) -> Option<&str> {
        match self.name.as_literal() {
            Some(classad::Literal::Str(s)) => Some(s.as_str()),
            _ => None,
        }
    }
}

/// The `Child<Attr>` lists of a partitionable slot whose dynamic slots
/// add `rows` (`count` of them) and whose custom resources are named
/// `custom_names`, each given to `put` in the order the ad has them.
pub(crate) fn child_lists<'r>(
    rows: impl Iterator<Item = &'r ChildRow> + Clone,
    count: usize,
    custom_names: &[CustomNames],
    mut put: impl FnMut(Name, Expr),
) {
    let n = &*NAMES;
    let rows = || rows.clone();
    put(n.child_cpus, column(rows().map(|r| &r.cpus)));
    put(n.child_memory, column(rows().map(|r| &r.memory)));
    put(n.child_disk, column(rows().map(|r| &r.disk)));
    for (k, names) in custom_names.iter().enumerate() {
        put(names.child, column(rows().filter_map(|r| r.custom.get(k))));
    }
    put(n.child_name, column(rows().map(|r| &r.name)));
    put(n.child_dslot_id, column(rows().map(|r| &r.dslot_id)));
    let (claimed, busy) = match CLAIMED_BUSY.get(count) {
        Some(both) => both.clone(),
        None => claimed_busy(count),
    };
    put(n.child_state, claimed);
    put(n.child_activity, busy);
    let remote_users = column(rows().map(|r| &r.user));
    put(n.child_remote_user, remote_users.clone());
    put(n.child_remote_owner, remote_users);
}

/// The list of `items`. A list of one integer repeated (the `ChildCpus`
/// of slots claimed by jobs alike, ...) is made once per thread and
/// shared by the ads that have it, rather than built for each.
fn column<'e>(items: impl Iterator<Item = &'e Expr> + Clone) -> Expr {
    match repeated_int(items.clone()) {
        Some((value, len)) => repeated_list(value, len),
        None => Expr::list(items.cloned().collect()),
    }
}

/// The integer every one of `items` is and how many they are, when they
/// are all that integer literal (`Some((0, 0))` for no items: the empty
/// list).
fn repeated_int<'e>(mut items: impl Iterator<Item = &'e Expr>) -> Option<(i64, usize)> {
    let int = |e: &Expr| match e.as_literal() {
        Some(classad::Literal::Int(i)) => Some(*i),
        _ => None,
    };
    let Some(first) = items.next() else { return Some((0, 0)) };
    let value = int(first)?;
    let mut len = 1;
    for e in items {
        if int(e) != Some(value) {
            return None;
        }
        len += 1;
    }
    Some((value, len))
}

/// How many repeated lists [`repeated_list`] keeps per thread before it
/// forgets them all.
const MAX_REPEATED_LISTS: usize = 1024;

thread_local! {
    /// The lists [`repeated_list`] made, by value and length.
    static REPEATED_LISTS: std::cell::RefCell<rustc_hash::FxHashMap<(i64, usize), Expr>> =
        std::cell::RefCell::new(rustc_hash::FxHashMap::default());
}

/// The list of `len` times integer `value`, made once per thread.
fn repeated_list(value: i64, len: usize) -> Expr {
    REPEATED_LISTS.with(|lists| {
        let mut lists = lists.borrow_mut();
        if let Some(list) = lists.get(&(value, len)) {
            return list.clone();
        }
        if lists.len() >= MAX_REPEATED_LISTS {
            lists.clear();
        }
        let list = Expr::list(vec![Expr::from(value); len]);
        lists.insert((value, len), list.clone());
        list
    })
}

/// `ChildState` and `ChildActivity` of `n` dynamic slots: all `Claimed`,
/// all `Busy`.
fn claimed_busy(n: usize) -> (Expr, Expr) {
    (Expr::list(vec![Expr::from("Claimed"); n]), Expr::list(vec![Expr::from("Busy"); n]))
}

/// [`claimed_busy`] of the usual numbers of dynamic slots, made once.
static CLAIMED_BUSY: LazyLock<Vec<(Expr, Expr)>> = LazyLock::new(|| (0..=64).map(claimed_busy).collect());

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_the_lists_of_their_items() {
        let cases: Vec<Vec<Expr>> = vec![
            vec![],
            vec![Expr::from(3)],
            vec![Expr::from(2048); 5],
            vec![Expr::from(1), Expr::from(1), Expr::from(2)],
            vec![Expr::from(1), Expr::from(1.0)],
            vec![Expr::from("slot1_1@h"), Expr::from("slot1_1@h")],
            vec![Expr::from(0), Expr::from(false)],
            vec![Value::Undefined.to_expr(), Value::Undefined.to_expr()],
        ];
        for items in &cases {
            let listed = Expr::list(items.clone());
            // made twice: the second time from the thread's lists
            for _ in 0..2 {
                let made = column(items.iter());
                assert!(made.same_as(&listed), "{listed}");
                assert_eq!(made.to_string(), listed.to_string());
            }
        }
        // more lists than are kept: the first ones are made again
        for value in 0..=(MAX_REPEATED_LISTS as i64) {
            let items = vec![Expr::from(value); 3];
            assert!(column(items.iter()).same_as(&Expr::list(items.clone())));
        }
        let items = vec![Expr::from(0); 3];
        assert!(column(items.iter()).same_as(&Expr::list(items.clone())));
    }
}
