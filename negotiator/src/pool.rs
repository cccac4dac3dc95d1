//! The pool as the negotiator fetches it from the collector at the start
//! of a cycle (HTCondor's `obtainAdsFromCollector`): the slot ads, their
//! private ads' claim ids, and the submitter ads.

use std::collections::HashMap;

use cedar::client::{CollectorClient, Query};
use cedar::Error;
use classad::ClassAd;

/// The claim ids of the slots, from their private ads (HTCondor's
/// `MakeClaimIdHash`): keyed by `Name` and `MyAddress`, each slot's
/// `ClaimIdList` if it has one, else its `ClaimId` (or the old
/// `Capability`). A claim is offered once per cycle.
#[derive(Debug, Default, Clone)]
pub struct ClaimIds {
    by_slot: HashMap<(String, String), Vec<String>>,
}

impl ClaimIds {
    /// The claim ids of `private` ads.
    ///
    /// ```
    /// use negotiator::pool::ClaimIds;
    /// let pvt: classad::ClassAd =
    ///     r#"[ Name = "slot1@n"; MyAddress = "<10.0.0.1:9618>"; ClaimId = "<10.0.0.1:9618>#1#2#[]abc" ]"#.parse()?;
    /// let mut claims = ClaimIds::from_private_ads(&[pvt]);
    /// assert_eq!(claims.take("slot1@n", "<10.0.0.1:9618>").as_deref(), Some("<10.0.0.1:9618>#1#2#[]abc"));
    /// assert_eq!(claims.take("slot1@n", "<10.0.0.1:9618>"), None); // offered once
    /// # Ok::<(), classad::ParseError>(())
    /// ```
    pub fn from_private_ads(private: &[ClassAd]) -> ClaimIds {
        let mut by_slot = HashMap::with_capacity(private.len());
        for ad in private {
            let (Some(name), Some(addr)) = (ad.lookup_string("Name"), ad.lookup_string("MyAddress")) else {
                continue;
            };
            let ids: Vec<String> = match ad.lookup_string("ClaimIdList") {
                Some(list) => list.split([',', ' ']).filter(|s| !s.is_empty()).map(str::to_owned).collect(),
                None => match ad.lookup_string("ClaimId").or_else(|| ad.lookup_string("Capability")) {
                    Some(id) => vec![id],
                    None => continue,
                },
            };
            by_slot.insert((name, addr), ids);
        }
        ClaimIds { by_slot }
    }

    /// Whether the slot has a claim left to offer.
    pub fn has(&self, name: &str, addr: &str) -> bool {
        self.by_slot.get(&(name.to_owned(), addr.to_owned())).is_some_and(|v| !v.is_empty())
    }

    /// Takes the slot's first claim id (it is not offered again this cycle).
    pub fn take(&mut self, name: &str, addr: &str) -> Option<String> {
        let ids = self.by_slot.get_mut(&(name.to_owned(), addr.to_owned()))?;
        (!ids.is_empty()).then(|| ids.remove(0))
    }

    /// How many slots have claim ids.
    pub fn len(&self) -> usize {
        self.by_slot.len()
    }

    /// Whether no slot has a claim id.
    pub fn is_empty(&self) -> bool {
        self.by_slot.is_empty()
    }
}

/// What one cycle fetched.
#[derive(Debug, Default, Clone)]
#[non_exhaustive]
pub struct Pool {
    /// The slot ads (public).
    pub slots: Vec<ClassAd>,
    /// Their claim ids.
    pub claims: ClaimIds,
    /// How many private ads came.
    pub private_ads: usize,
    /// The submitter ads.
    pub submitters: Vec<ClassAd>,
}

impl Pool {
    /// Fetches the pool: slot ads passing `slot_constraint`
    /// (NEGOTIATOR_SLOT_CONSTRAINT, as text), every private ad, and the
    /// submitter ads.
    pub fn fetch(collector: &CollectorClient, slot_constraint: Option<&str>) -> Result<Pool, Error> {
        let mut public = Query::startd();
        if let Some(c) = slot_constraint.filter(|c| !c.trim().is_empty()) {
            public = public.constraint(c)?;
        }
        let slots = collector.query(&public)?;
        let private = collector.query(&Query::startd_private())?;
        let submitters = collector.query(&Query::submitter())?;
        Ok(Pool { claims: ClaimIds::from_private_ads(&private), private_ads: private.len(), slots, submitters })
    }
}

/// The key HTCondor's negotiator finds a slot's claim under in the offer:
/// the slot's `Name` and `StartdIpAddr` (its `MyAddress` in the private
/// ad).
pub fn claim_key(slot: &ClassAd) -> Option<(String, String)> {
    Some((slot.lookup_string("Name")?, slot.lookup_string("StartdIpAddr").or_else(|| slot.lookup_string("MyAddress"))?))
}

/// Whether a slot asks to be claimed (`WantClaiming`, true by default).
pub fn wants_claiming(slot: &ClassAd) -> bool {
    !slot.lookup_bool("Offline").unwrap_or(false) && slot.lookup_bool("WantClaiming").unwrap_or(true)
}
