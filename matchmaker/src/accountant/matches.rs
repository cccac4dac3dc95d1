//! Matches: the usage rebuilt from the pool's claimed slots each cycle,
//! a match added or removed, and what the accountant reads of a slot ad
//! (its state, who claims it, its weight, its resource record's name).

use rustc_hash::FxHashMap;

use super::record::{format_real, format_string, logged_real, CustomerAttr, ResourceRecord, RESOURCE_PREFIX};
use super::{group_path, name_hash, Accountant, AccountantError, CP_MATCH_COST};

/// A slot's state, as far as the accountant cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SlotState {
    Claimed,
    Preempting,
    Matched,
    Other,
}

impl Accountant {
    /// Rebuilds usage from the slot ads of the pool at time `now`, as the
    /// negotiator does at the start of each cycle: a recorded match whose
    /// slot is gone, or no longer claimed (or matched) by the same submitter,
    /// is removed; a claimed slot with no record is added, charged to its
    /// `AccountingGroup`, else its `RemoteUser`.
    pub fn check_matches<A: std::borrow::Borrow<classad::ClassAd>>(
        &mut self,
        now: i64,
        slots: &[A],
    ) -> Result<(), AccountantError> {
        let names: Vec<String> = slots.iter().map(|slot| resource_name(slot.borrow())).collect();
        self.check_matches_named(now, slots, &names)
    }

    /// [`check_matches`](Self::check_matches) with each slot's
    /// [`resource_name`] already known (`names[i]` of `slots[i]`: a
    /// negotiator remembers those of the slots it saw).
    pub(crate) fn check_matches_named<A: std::borrow::Borrow<classad::ClassAd>, N: AsRef<str>>(
        &mut self,
        now: i64,
        slots: &[A],
        names: &[N],
    ) -> Result<(), AccountantError> {
        // Room for a record of every slot, as a cycle may match them all.
        self.resources.reserve(slots.len());
        let resources = &self.resources;
        self.resource_index.reserve(slots.len(), |&i| name_hash(&resources[i].name));
        let mut by_name: FxHashMap<&str, usize> = FxHashMap::default();
        if !self.resources.is_empty() {
            by_name.reserve(slots.len());
            for (i, name) in names.iter().enumerate() {
                by_name.entry(name.as_ref()).or_insert(i);
            }
        }
        let gone: Vec<String> = self
            .resources
            .iter()
            .filter(|r| match by_name.get(r.name.as_str()) {
                None => true,
                Some(&i) => !self.claimed_or_matched_by(slots[i].borrow(), r.remote_user.as_deref().unwrap_or("")),
            })
            .map(|r| r.name.clone())
            .collect();
        for name in gone {
            self.remove_match(&name, now)?;
        }
        for (slot, name) in slots.iter().zip(names) {
            let slot: &classad::ClassAd = slot.borrow();
            if let Some(user) = self.claimant(slot) {
                // (A match recorded already for the same submitter stays as
                // it is: nothing to add.)
                let recorded = slot.lookup(slot_names().cp_match_cost).is_none()
                    && self.resource(name.as_ref()).and_then(|r| r.remote_user.as_deref()) == Some(user.as_str());
                if !recorded {
                    self.add_match_named(&user, slot, name.as_ref().to_string(), now)?;
                }
            }
        }
        Ok(())
    }

    fn slot_state(slot: &classad::ClassAd) -> SlotState {
        let state = slot_names().state;
        // Written as a string by every startd: read without evaluating.
        let evaluated;
        let text = match slot.lookup(state).map(classad::Expr::as_literal) {
            None => return SlotState::Other,
            Some(Some(classad::Literal::Str(s))) => Some(s.as_str()),
            Some(_) => {
                evaluated = attr_string(slot, state);
                evaluated.as_deref()
            }
        };
        match text {
            Some("Claimed") => SlotState::Claimed,
            Some("Preempting") => SlotState::Preempting,
            Some("Matched") => SlotState::Matched,
            _ => SlotState::Other,
        }
    }

    fn suspended(&self, slot: &classad::ClassAd) -> bool {
        self.config.discount_suspended
            && attr_string(slot, slot_names().activity).is_none_or(|a| a.eq_ignore_ascii_case("Suspended"))
    }

    /// The submitter a claimed (or preempting) slot is charged to.
    fn claimant(&self, slot: &classad::ClassAd) -> Option<String> {
        match Self::slot_state(slot) {
            SlotState::Claimed | SlotState::Preempting => {}
            _ => return None,
        }
        let user =
            attr_string(slot, slot_names().accounting_group).or_else(|| attr_string(slot, slot_names().remote_user))?;
        if self.suspended(slot) {
            return None;
        }
        Some(user)
    }

    fn claimed_or_matched_by(&self, slot: &classad::ClassAd, customer: &str) -> bool {
        match Self::slot_state(slot) {
            SlotState::Matched => return true,
            SlotState::Claimed | SlotState::Preempting => {}
            SlotState::Other => return false,
        }
        let Some(user) =
            attr_string(slot, slot_names().accounting_group).or_else(|| attr_string(slot, slot_names().remote_user))
        else {
            return false;
        };
        user == customer && !self.suspended(slot)
    }

    /// What [`slot_weight`](Self::slot_weight) reads besides the slot, as
    /// text: the same text, the same weight for the same ad.
    pub(crate) fn slot_weight_basis(&self) -> String {
        match (&self.config.slot_weight, self.config.use_slot_weights) {
            (_, false) => "off".to_string(),
            (None, true) => "on".to_string(),
            (Some(expr), true) => format!("on: {expr}"),
        }
    }

    /// The weight charged for a slot: its `SlotWeight` (1 when it is not a
    /// non-negative number, or when slot weights are off).
    pub fn slot_weight(&self, slot: &classad::ClassAd) -> f64 {
        weigh(self.config.use_slot_weights, self.config.slot_weight.as_ref(), slot)
    }

    /// How the accountant weighs slots ([`slot_weight`](Self::slot_weight)),
    /// apart from the accountant: for work done while it is busy.
    pub(crate) fn weigher(&self) -> SlotWeigher {
        SlotWeigher { on: self.config.use_slot_weights, default: self.config.slot_weight.clone() }
    }

    /// Records that `customer` was matched with `slot` at time `now`: the
    /// slot's weight is added to the customer's and its group's usage, with
    /// the time since the last update taken off (it was not in use then).
    /// A slot already charged to another customer is first removed from it;
    /// one already charged to this customer is left alone.
    pub fn add_match(&mut self, customer: &str, slot: &classad::ClassAd, now: i64) -> Result<(), AccountantError> {
        self.add_match_named(customer, slot, resource_name(slot), now)
    }

    /// [`add_match`](Self::add_match) with the slot's [`resource_name`]
    /// already known (the negotiator reads every slot's once, a share per
    /// thread, rather than one by one as it matches them).
    pub(crate) fn add_match_named(
        &mut self,
        customer: &str,
        slot: &classad::ClassAd,
        mut resource: String,
        now: i64,
    ) -> Result<(), AccountantError> {
        let weight;
        let opts = classad::EvalOptions::new().semantics(classad::Semantics::Old);
        let cp_cost =
            match slot.lookup(slot_names().cp_match_cost).map(|e| classad::EvalContext::new(&opts).my(slot).eval(e)) {
                Some(classad::Value::Int(i)) => Some(i as f64),
                Some(classad::Value::Real(r)) => Some(r),
                _ => None,
            };
        if let Some(cost) = cp_cost {
            // A consumption-policy match: one pseudo-resource per match.
            let count = self.resource(&resource).and_then(|r| r.num_cp_matches).unwrap_or(0);
            let key = format!("{RESOURCE_PREFIX}{resource}");
            let i = self.ensure_resource(&resource)?;
            if self.log.is_some() {
                self.pending.set(&key, "NumCpMatches", &(count + 1).to_string())?;
            }
            self.resources[i].num_cp_matches = Some(count + 1);
            resource = format!("{resource}_cp_match_{count:03}");
            weight = cost;
        } else {
            if let Some(user) = self.resource(&resource).and_then(|r| r.remote_user.as_deref()) {
                if user == customer {
                    return Ok(());
                }
                self.remove_match(&resource, now)?;
            }
            weight = self.slot_weight(slot);
        }
        let since_update = now - self.last_update;
        self.charge(customer, weight, since_update, false)?;
        let group = self.group_of(customer).to_string();
        self.charge(&group, weight, since_update, true)?;
        for part in group_path(&group) {
            let hier = self.customer(part).and_then(|c| c.hier_weighted_resources_used).unwrap_or(0.0);
            self.set_customer_real(part, CustomerAttr::HierWeightedResourcesUsed, hier + weight)?;
        }
        let limits = attr_string(slot, slot_names().matched_concurrency_limits);
        let i = match self.resource_at(&resource) {
            Some(i) => i,
            None => {
                if self.log.is_some() {
                    self.pending.new_ad(&format!("{RESOURCE_PREFIX}{resource}"), "*")?;
                }
                self.insert_resource(ResourceRecord { name: resource, ..ResourceRecord::default() })
            }
        };
        if self.log.is_some() {
            let key = format!("{RESOURCE_PREFIX}{}", self.resources[i].name);
            self.pending.set(&key, "RemoteUser", &format_string(customer))?;
            self.pending.set(&key, "SlotWeight", &format_real(weight))?;
            self.pending.set(&key, "StartTime", &now.to_string())?;
            if let Some(limits) = &limits {
                self.pending.set(&key, "MatchedConcurrencyLimits", &format_string(limits))?;
            }
        }
        let r = &mut self.resources[i];
        r.remote_user = Some(customer.to_string());
        r.other.retain(|(n, _)| !n.eq_ignore_ascii_case("SlotWeight"));
        r.slot_weight = Some(logged_real(weight).as_f64());
        r.start_time = Some(now);
        if limits.is_some() {
            r.matched_concurrency_limits = limits;
        }
        self.commit(false)
    }

    /// Records that the match on slot `resource` (`<Name>@<StartdIpAddr>`)
    /// ended at time `now`: its weight leaves its customer's and group's
    /// usage, and the time it was in use since the last update is charged
    /// at the next update.
    pub fn remove_match(&mut self, resource: &str, now: i64) -> Result<(), AccountantError> {
        let Some(r) = self.resource(resource) else {
            return Ok(());
        };
        let (user, cp_matches, start_time, weight) =
            (r.remote_user.clone(), r.num_cp_matches, r.start_time, r.slot_weight);
        // (The key is only written to a log.)
        let key = if self.log.is_some() { format!("{RESOURCE_PREFIX}{resource}") } else { String::new() };
        let Some(customer) = user.filter(|_| cp_matches.is_none()) else {
            // A consumption-policy placeholder, or a record without a user.
            self.destroy_resource(resource, &key)?;
            return self.commit(false);
        };
        let start = start_time.unwrap_or(0).max(self.last_update);
        let weight = weight.unwrap_or(1.0);
        let in_use = now - start;
        // What a record holds before the match leaves it (a missing record
        // holds nothing).
        let usage = |this: &Self, name: &str| {
            this.customer(name).map_or((0, 0.0, 0, 0.0), |c| {
                (
                    c.resources_used.unwrap_or(0),
                    c.weighted_resources_used.unwrap_or(0.0),
                    c.uncharged_time.unwrap_or(0),
                    c.weighted_uncharged_time.unwrap_or(0.0),
                )
            })
        };
        let (used, weighted, uncharged, weighted_uncharged) = usage(self, &customer);
        let group = self.group_of(&customer).to_string();
        let (group_used, group_weighted, group_uncharged, group_weighted_uncharged) = usage(self, &group);
        let i = self.ensure_customer(&customer)?;
        self.set_int_at(i, CustomerAttr::ResourcesUsed, if used > 0 { used - 1 } else { used })?;
        self.set_real_at(i, CustomerAttr::WeightedResourcesUsed, (weighted - weight).max(0.0))?;
        self.set_int_at(i, CustomerAttr::UnchargedTime, uncharged + in_use)?;
        self.set_real_at(i, CustomerAttr::WeightedUnchargedTime, weighted_uncharged + in_use as f64 * weight)?;
        for part in group_path(&group) {
            let hier = self.customer(part).and_then(|c| c.hier_weighted_resources_used).unwrap_or(0.0);
            self.set_customer_real(part, CustomerAttr::HierWeightedResourcesUsed, (hier - weight).max(0.0))?;
        }
        let g = self.ensure_customer(&group)?;
        self.set_real_at(g, CustomerAttr::WeightedResourcesUsed, (group_weighted - weight).max(0.0))?;
        self.set_int_at(g, CustomerAttr::ResourcesUsed, (group_used - 1).max(0))?;
        self.set_int_at(g, CustomerAttr::UnchargedTime, group_uncharged + in_use)?;
        self.set_real_at(g, CustomerAttr::WeightedUnchargedTime, group_weighted_uncharged + in_use as f64 * weight)?;
        self.destroy_resource(resource, &key)?;
        self.commit(false)
    }
}

/// How an accountant weighs slots (see [`Accountant::slot_weight`]).
pub(crate) struct SlotWeigher {
    /// NEGOTIATOR_USE_SLOT_WEIGHTS.
    on: bool,
    /// SLOT_WEIGHT, for a slot without `SlotWeight`.
    default: Option<classad::Expr>,
}

impl SlotWeigher {
    /// The weight of `slot`.
    pub(crate) fn weight(&self, slot: &classad::ClassAd) -> f64 {
        weigh(self.on, self.default.as_ref(), slot)
    }
}

/// The weight of `slot` (see [`Accountant::slot_weight`]): with slot
/// weights `on`, its `SlotWeight`, else `default`.
fn weigh(on: bool, default: Option<&classad::Expr>, slot: &classad::ClassAd) -> f64 {
    if !on {
        return 1.0;
    }
    let opts = classad::EvalOptions::new().semantics(classad::Semantics::Old);
    let ctx = classad::EvalContext::new(&opts).my(slot);
    let value = if slot.lookup(slot_names().slot_weight).is_some() {
        ctx.eval_attr(slot_names().slot_weight)
    } else {
        match default {
            Some(expr) => ctx.eval(expr),
            None => classad::Value::Undefined,
        }
    };
    match value {
        classad::Value::Int(i) if i >= 0 => i as f64,
        classad::Value::Real(r) if r >= 0.0 => r,
        _ => 1.0,
    }
}

/// `Name@StartdIpAddr` of a slot ad: the key of its resource record.
pub fn resource_name(slot: &classad::ClassAd) -> String {
    // Written as strings, as startds write them (or missing, read as
    // empty): no evaluation.
    let text = |n: classad::Name| -> std::borrow::Cow<'_, str> {
        match slot.lookup(n).map(classad::Expr::as_literal) {
            None => "".into(),
            Some(Some(classad::Literal::Str(s))) => s.as_str().into(),
            Some(_) => attr_string(slot, n).unwrap_or_default().into(),
        }
    };
    let (name, addr) = (text(slot_names().name), text(slot_names().startd_ip_addr));
    let mut out = String::with_capacity(name.len() + 1 + addr.len());
    out.push_str(&name);
    out.push('@');
    out.push_str(&addr);
    out
}

/// The slot attributes the accountant reads, interned once.
struct SlotNames {
    name: classad::Name,
    startd_ip_addr: classad::Name,
    state: classad::Name,
    activity: classad::Name,
    accounting_group: classad::Name,
    remote_user: classad::Name,
    slot_weight: classad::Name,
    cp_match_cost: classad::Name,
    matched_concurrency_limits: classad::Name,
}

fn slot_names() -> &'static SlotNames {
    static NAMES: std::sync::OnceLock<SlotNames> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| SlotNames {
        name: classad::Name::new("Name"),
        startd_ip_addr: classad::Name::new("StartdIpAddr"),
        state: classad::Name::new("State"),
        activity: classad::Name::new("Activity"),
        accounting_group: classad::Name::new("AccountingGroup"),
        remote_user: classad::Name::new("RemoteUser"),
        slot_weight: classad::Name::new("SlotWeight"),
        cp_match_cost: classad::Name::new(CP_MATCH_COST),
        matched_concurrency_limits: classad::Name::new("MatchedConcurrencyLimits"),
    })
}

fn attr_string(ad: &classad::ClassAd, name: classad::Name) -> Option<String> {
    // Slot names and addresses are written as strings: no evaluation.
    match ad.lookup(name).map(|e| e.as_literal()) {
        None => return None,
        Some(Some(classad::Literal::Str(s))) => return Some(s.as_str().to_string()),
        Some(_) => {}
    }
    let opts = classad::EvalOptions::new().semantics(classad::Semantics::Old);
    match classad::EvalContext::new(&opts).my(ad).eval_attr(name) {
        classad::Value::Str(s) => Some(s.as_str().to_string()),
        _ => None,
    }
}
