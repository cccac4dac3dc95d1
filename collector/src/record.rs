//! One stored ad: its public part, its private attributes beside it, and
//! its wire encoding, computed once.

use std::sync::{Arc, OnceLock};

use cedar::wire::ad::{is_private, put_classad, PutOptions};
use cedar::wire::Encoder;
use classad::ClassAd;

use crate::key::int_attr;
use crate::Table;

/// An ad as the collector holds it (HTCondor's `CollectorRecord`): the
/// public ad, and an ad of its private attributes (`ClaimId`,
/// `Capability`, `_condor_priv*`, …) chained to it.
///
/// Stored ads never change: an update replaces the record, so a reader
/// holding one (or a whole [snapshot](crate::Store::snapshot)) sees a
/// consistent ad however long it takes to send it.
///
/// ```
/// use collector::{Store, Table, UpdateCommand};
/// let store = Store::new(900);
/// let ad: classad::ClassAd =
///     r#"[ MyType = "Submitter"; Name = "alice@pool"; MyAddress = "<10.0.0.1:9618>"; Capability = "secret" ]"#.parse()?;
/// let rec = store.update(UpdateCommand::Submitter, ad, None, 1000)?.record;
/// assert!(rec.public().lookup("Capability").is_none());
/// assert!(rec.with_private().lookup("Capability").is_some());
/// assert_eq!(rec.last_heard_from(), Some(1000));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct StoredAd {
    table: Table,
    key: String,
    public: Arc<ClassAd>,
    private: ClassAd,
    last_heard: Option<i64>,
    lifetime: Option<i64>,
    plain: OnceLock<Vec<u8>>,
    encrypted: OnceLock<Vec<u8>>,
}

impl StoredAd {
    /// A record of `ad` under `key`: its private attributes are moved out
    /// into the private ad (`movePrivateAttrs`).
    pub(crate) fn new(table: Table, key: String, mut ad: ClassAd) -> StoredAd {
        let mut private = ClassAd::new();
        let names: Vec<classad::Name> = ad.names().filter(|n| is_private(n.as_str())).collect();
        for name in names {
            if let Some(expr) = ad.remove(name) {
                private.insert(name, expr);
            }
        }
        let last_heard = int_attr(&ad, "LastHeardFrom");
        let lifetime = int_attr(&ad, "ClassAdLifetime");
        let public = Arc::new(ad);
        private.chain_to(public.clone());
        StoredAd {
            table,
            key,
            public,
            private,
            last_heard,
            lifetime,
            plain: OnceLock::new(),
            encrypted: OnceLock::new(),
        }
    }

    /// The record with `private` as its private attributes (merged ads).
    pub(crate) fn with_private_attrs(table: Table, key: String, public: ClassAd, private_attrs: &ClassAd) -> StoredAd {
        let mut rec = StoredAd::new(table, key, public);
        for (name, expr) in private_attrs.iter() {
            rec.private.insert(name, expr.clone());
        }
        rec
    }

    /// The table it is in.
    pub fn table(&self) -> &Table {
        &self.table
    }

    /// Its key in that table ([`crate::key::make_key`]).
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The public ad: what a query without private attributes gets.
    pub fn public(&self) -> &ClassAd {
        &self.public
    }

    /// The public ad, shared.
    pub fn public_arc(&self) -> &Arc<ClassAd> {
        &self.public
    }

    /// The private attributes, chained to the public ad: looking up any
    /// attribute here finds the whole ad, and sending it sends both.
    pub fn with_private(&self) -> &ClassAd {
        &self.private
    }

    /// Whether the ad has private attributes.
    pub fn has_private(&self) -> bool {
        !self.private.is_empty()
    }

    /// `LastHeardFrom` (seconds since the epoch) when it is an integer.
    pub fn last_heard_from(&self) -> Option<i64> {
        self.last_heard
    }

    /// The ad's own `ClassAdLifetime`, if it has one.
    pub fn lifetime(&self) -> Option<i64> {
        self.lifetime
    }

    /// Whether the ad is past its lifetime at `now`: older than its own
    /// `ClassAdLifetime`, else than `default_lifetime` (`cleanHashTable`).
    /// An ad without an integer `LastHeardFrom` never expires.
    pub fn expired(&self, now: i64, default_lifetime: i64) -> bool {
        match self.last_heard {
            Some(t) => now.saturating_sub(t) > self.lifetime.unwrap_or(default_lifetime),
            None => false,
        }
    }

    /// The public ad as `putClassAd` writes it with no projection (the
    /// attribute count, the `Name = value` strings, the two empty type
    /// strings), for a stream that is encrypted or not. Computed on first
    /// use and kept: a `condor_status -l` copies these bytes.
    pub fn wire(&self, encrypted: bool) -> &[u8] {
        let cell = if encrypted { &self.encrypted } else { &self.plain };
        cell.get_or_init(|| {
            let mut enc = Encoder::new(encrypted);
            // The public ad holds no private attributes, so no peer is
            // refused any of it; an unencodable string (a NUL) leaves the
            // ad out as C++ would fail to send it.
            match put_classad(&mut enc, &self.public, &PutOptions::new()) {
                Ok(()) => enc.into_bytes(),
                Err(_) => Vec::new(),
            }
        })
    }

    /// Computes the plaintext encoding now (the writer's thread pays for
    /// it instead of the first reader's).
    pub(crate) fn prime(&self) {
        let _ = self.wire(false);
    }
}
