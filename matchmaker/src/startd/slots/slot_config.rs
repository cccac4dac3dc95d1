//! What a startd's configuration says about its slots, read once: the
//! name prefix of each slot type, the policy attributes of each slot's ad
//! (`Start`, `Requirements`, `WithinResourceLimits`, `Rank`,
//! `SlotWeight`, consumption policies, `STARTD_ATTRS`) and the knobs a
//! claim reads (`MODIFY_REQUEST_EXPR_*`, `MUST_MODIFY_REQUEST_EXPRS`, ...).
//!
//! The configuration of a startd does not change after it is laid out, so
//! a slot's ad need not look its configuration up and parse its
//! expressions again each time it is built (a simulated startd builds its
//! partitionable slot's ad at every claim and release). An entry is made
//! the first time it is needed, so that the answers are those the
//! configuration gave then, in the same order, with the same warnings.

use std::sync::{Arc, OnceLock};

use classad::{ClassAd, Expr};

use super::layout::{type_bool, type_param, Layout};
use super::{SlotKind, SlotResources};
use crate::config::Config;

/// One step of the policy part of a slot's ad, in the order the ad is
/// built.
#[derive(Debug, Clone)]
pub(crate) enum PolicyStep {
    /// Insert an attribute.
    Insert(String, Expr),
    /// Remove an attribute (a `STARTD_ATTRS` entry set to nothing).
    Remove(String),
    /// `NumClaims`: the configured `NUM_CLAIMS` if it is an integer, else
    /// the slot's total CPUs rounded up.
    NumClaims(Option<i64>),
}

/// The policy part of the ad of a slot of one id and kind.
#[derive(Debug, Default)]
pub(crate) struct SlotPolicy {
    /// The steps, in order.
    pub steps: Vec<PolicyStep>,
    /// Expressions that could not be inserted, as the startd logs them.
    pub warnings: Vec<String>,
}

/// The claim knobs of one slot type.
#[derive(Debug)]
pub(crate) struct TypeKnobs {
    /// The prefix of slot names (`slot` by default).
    pub prefix: String,
    /// `MODIFY_REQUEST_EXPR_REQUESTCPUS`, `..._REQUESTDISK`,
    /// `..._REQUESTMEMORY` that parse, with the request they round.
    pub modify: Vec<(&'static str, Expr)>,
    /// `MUST_MODIFY_REQUEST_EXPRS`, when it parses.
    pub must_modify: Option<Expr>,
    /// `CONSUMPTION_POLICY` of the type (for slots that are not static).
    pub consumption_policy: bool,
    /// `CLAIM_PARTITIONABLE_LEFTOVERS` (default true).
    pub leftovers: bool,
    /// `PROPORTIONAL_SWAP_ASSIGNMENT` (default false).
    pub proportional_swap: bool,
}

/// The cache of one startd: lazily filled, shared by its clones.
#[derive(Debug, Clone, Default)]
pub(crate) struct Policies {
    /// Per layout slot: the policy of its own kind and that of its
    /// dynamic slots.
    slots: Vec<[Arc<OnceLock<Arc<SlotPolicy>>>; 2]>,
    /// Per slot type id present in the layout.
    types: Vec<(u32, Arc<OnceLock<Arc<TypeKnobs>>>)>,
    /// Per layout slot: the base ads its ads are patched from (see
    /// `SlotAds::build_ad`), by [`BASES`] index;
    /// `None` when its ads must be built afresh.
    bases: Vec<Arc<[Base; BASES]>>,
}

/// A base ad, or the knowledge that there is none.
pub(crate) type Base = OnceLock<Option<Arc<ClassAd>>>;

/// How many base ads a layout slot keeps: its own ad, and its dynamic
/// slots' by the shape of their claim (four shapes, see `claim_shape`).
const BASES: usize = 1 + 4;

impl Policies {
    /// An empty cache for the slots of `layout`.
    pub fn new(layout: &Layout) -> Policies {
        let slots = layout.slots.iter().map(|_| [Arc::default(), Arc::default()]).collect();
        let mut types: Vec<(u32, Arc<OnceLock<Arc<TypeKnobs>>>)> = Vec::new();
        for s in &layout.slots {
            if !types.iter().any(|(t, _)| *t == s.type_id) {
                types.push((s.type_id, Arc::default()));
            }
        }
        let bases = layout.slots.iter().map(|_| Arc::new(std::array::from_fn(|_| OnceLock::new()))).collect();
        Policies { slots, types, bases }
    }

    /// This cache for a startd laid out as this one but on a machine of
    /// another name: the policies and knobs (read from the configuration
    /// alone) are shared, the base ads (which hold the host's name) start
    /// empty.
    pub fn renamed(&self, layout: &Layout) -> Policies {
        let fresh = Policies::new(layout);
        Policies { slots: self.slots.clone(), types: self.types.clone(), bases: fresh.bases }
    }

    /// The cached entry of a slot with `id` and `kind` in `layout`, if the
    /// layout has such a slot.
    pub fn slot_entry(&self, layout: &Layout, slot: &SlotResources) -> Option<&OnceLock<Arc<SlotPolicy>>> {
        let i = layout.slots.iter().position(|s| s.id == slot.id && s.type_id == slot.type_id)?;
        let own = layout.slots[i].kind;
        let which = if slot.kind == own {
            0
        } else if slot.kind == SlotKind::Dynamic && own == SlotKind::Partitionable {
            1
        } else {
            return None;
        };
        self.slots.get(i).map(|e| &*e[which])
    }

    /// The base ad entry of a slot with `id` and `kind` in `layout` whose
    /// claim has shape `shape` (0 for no claim, 1 to 4 for a claim), if
    /// the layout has such a slot. A slot of the layout's own kind has
    /// one base (its shape must be 0); a dynamic slot of a partitionable
    /// one has one per claim shape.
    pub fn base_entry(&self, layout: &Layout, slot: &SlotResources, shape: usize) -> Option<&Base> {
        let i = layout.slots.iter().position(|s| s.id == slot.id && s.type_id == slot.type_id)?;
        let own = layout.slots[i].kind;
        let which = if slot.kind == own && shape == 0 {
            0
        } else if slot.kind == SlotKind::Dynamic && own == SlotKind::Partitionable && (1..BASES).contains(&shape) {
            shape
        } else {
            return None;
        };
        self.bases.get(i).map(|b| &b[which])
    }

    /// Whether `slot` has a consumption policy (`CONSUMPTION_POLICY`, per
    /// type; never a static slot).
    pub fn has_consumption_policy(&self, config: &Config, slot: &SlotResources) -> bool {
        slot.kind != SlotKind::Static && self.knobs(config, slot.type_id).consumption_policy
    }

    /// The knobs of slot type `type_id`, read from `config` the first
    /// time, then borrowed from the cache (no count of references to
    /// change, for the many look-ups of names).
    pub fn knobs(&self, config: &Config, type_id: u32) -> Knobs<'_> {
        match self.types.iter().find(|(t, _)| *t == type_id) {
            Some((_, cell)) => Knobs::Kept(cell.get_or_init(|| Arc::new(TypeKnobs::read(config, type_id)))),
            None => Knobs::Read(TypeKnobs::read(config, type_id)),
        }
    }
}

/// The knobs of a slot type, kept by the cache or read for the occasion.
pub(crate) enum Knobs<'a> {
    /// Kept.
    Kept(&'a TypeKnobs),
    /// Read (a type the layout lacks).
    Read(TypeKnobs),
}

impl std::ops::Deref for Knobs<'_> {
    type Target = TypeKnobs;

    fn deref(&self) -> &TypeKnobs {
        match self {
            Knobs::Kept(k) => k,
            Knobs::Read(k) => k,
        }
    }
}

impl TypeKnobs {
    fn read(config: &Config, type_id: u32) -> TypeKnobs {
        let prefix = config
            .lookup(&format!("SLOT_TYPE_{type_id}_NAME_PREFIX"))
            .map(|l| l.value)
            .or_else(|| config.lookup("STARTD_RESOURCE_PREFIX").map(|l| l.value))
            .filter(|p| !p.trim().is_empty())
            .unwrap_or_else(|| "slot".to_string())
            .trim()
            .to_string();
        let mut modify = Vec::new();
        for attr in ["RequestCpus", "RequestDisk", "RequestMemory"] {
            let knob = format!("MODIFY_REQUEST_EXPR_{}", attr.to_ascii_uppercase());
            let Some(text) = type_param(config, type_id, &knob).filter(|t| !t.trim().is_empty()) else {
                continue;
            };
            if let Ok(expr) = classad::parse_expr(text.trim()) {
                modify.push((attr, expr));
            }
        }
        let must_modify = {
            let text = config.lookup("MUST_MODIFY_REQUEST_EXPRS").map(|l| l.value).unwrap_or_default();
            classad::parse_expr(text.trim()).ok()
        };
        let consumption_policy = type_bool(config, type_id, "CONSUMPTION_POLICY", false);
        let leftovers = config.get_bool("CLAIM_PARTITIONABLE_LEFTOVERS").unwrap_or(true);
        let proportional_swap = config.get_bool("PROPORTIONAL_SWAP_ASSIGNMENT").unwrap_or(false);
        TypeKnobs { prefix, modify, must_modify, consumption_policy, leftovers, proportional_swap }
    }
}
