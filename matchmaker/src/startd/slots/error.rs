//! What can go wrong building a slot layout or a dynamic slot.

use thiserror::Error;

use crate::config::ConfigError;

/// An error of the slot layout: a bad configuration value, a layout asking
/// for more than the machine has, or a claim the slot cannot satisfy.
/// The messages follow the startd's log lines where it has one.
#[derive(Debug, Error)]
pub enum SlotError {
    /// A configuration value could not be read.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A `SLOT_TYPE_<N>` description the startd refuses.
    #[error("bad description of slot type {type_id}: {message}")]
    BadSlotType {
        /// The slot type number.
        type_id: u32,
        /// What is wrong, naming the offending item.
        message: String,
    },
    /// The slot types ask for more than the machine has (the startd logs
    /// "ERROR: Can't allocate 3rd slot of type 1", what the slot requests and
    /// what is available, and exits with "Ran out of system resources").
    #[error(
        "can't allocate {} slot of type {type_id}: requesting {requesting}; available {available} (ran out of system resources)",
        ordinal(*nth)
    )]
    Overcommitted {
        /// Which slot of its type did not fit (1 for the first).
        nth: u32,
        /// Its slot type.
        type_id: u32,
        /// What the slot asked for.
        requesting: String,
        /// What was left when it asked.
        available: String,
    },
    /// `auto` shares left a slot less than one CPU or one MB of memory (the
    /// startd's "Can't allocate slot id ... during auto allocation of
    /// resources").
    #[error("can't allocate slot id {slot} (slot type {type_id}) during auto allocation of resources: {what}")]
    AutoShare {
        /// The slot number.
        slot: u32,
        /// Its slot type.
        type_id: u32,
        /// The resource that ran out.
        what: String,
    },
    /// The configuration asks for more slots than the library builds.
    #[error("{count} slots requested; at most {limit} are built")]
    TooManySlots {
        /// How many the configuration asks for (at least).
        count: i64,
        /// The limit ([`MAX_SLOTS`](crate::startd::slots::MAX_SLOTS)).
        limit: usize,
    },
    /// A custom machine resource is declared badly.
    #[error("machine resource {name}: {message}")]
    BadResource {
        /// The resource name.
        name: String,
        /// What is wrong.
        message: String,
    },
    /// A machine description could not be read.
    #[error("{origin}, line {line}: {message}")]
    Machine {
        /// The file (or other origin) read.
        origin: String,
        /// The line, from 1.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// No slot of that name or id.
    #[error("no slot {0}")]
    NoSuchSlot(String),
    /// A dynamic slot was asked of a slot that is not partitionable.
    #[error("{0} is not a partitionable slot")]
    NotPartitionable(String),
    /// The partitionable slot cannot satisfy the request.
    #[error("{slot} can't be split to allocate a dynamic slot for the request: {reason}")]
    RequestDoesNotFit {
        /// The partitionable slot.
        slot: String,
        /// Why (the requirements, or which resource is short).
        reason: String,
    },
    /// A `DEFRAG_*` or policy expression does not parse.
    #[error("{name}: {message}")]
    BadExpression {
        /// The configuration name.
        name: String,
        /// The parse error.
        message: String,
    },
}

/// `1st`, `2nd`, `3rd`, `4th`, ... `11th`, `21st`.
fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}
