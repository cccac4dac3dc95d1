//! The collector's query path in-process, without the network: slot ads
//! (`gen_slots.py`, as [`crate::cedar_wire`] loads them) stored as updates
//! store them, then a `QUERY_STARTD_ADS` selected and its reply encoded
//! as `collector::server` writes it (in parts of `REPLY_PART` bytes), each
//! part given to a sink. Shared by the criterion bench
//! (`benches/collector_query.rs`) and `collector-query-profile` (one pass
//! under a profiler).

use cedar::command::{QUERY_STARTD_ADS, UPDATE_STARTD_AD};
use cedar::version::Version;
use cedar::wire::ad::{put_classad, AdLimits, PutOptions};
use cedar::wire::Encoder;
use classad::ClassAd;
use collector::query::{Access, Query};
use collector::update::{apply_update, read_update};
use collector::Store;

use crate::cedar_wire::load_ads;

/// The size of a reply part (`collector::server::REPLY_PART`, which needs
/// the `tokio` feature).
pub const REPLY_PART: usize = 1 << 20;

/// The time the ads are stored at (fixed, so every run stores the same).
pub const NOW: i64 = 1_780_000_000;

/// The version `condor_status` 23.9.6 announces in its handshake (a raw
/// query, as `cedar-load query` sends, has none).
pub const CONDOR_STATUS_VERSION: &str = "$CondorVersion: 23.9.6 2024-07-12 BuildID: 0 PackageID: 23.9.6 $";

/// A store holding the first `n` slot ads, each sent as `condor_advertise`
/// sends it (`put_classad`, one `UPDATE_STARTD_AD`) and stored as the
/// server stores an update (`read_update`, `apply_update`, unauthenticated).
pub fn load_store(n: usize) -> Store {
    store_of(&load_ads(n))
}

/// A store holding `ads`, stored as [`load_store`] stores them.
pub fn store_of(ads: &[ClassAd]) -> Store {
    let store = Store::new(collector::DEFAULT_CLASSAD_LIFETIME);
    let limits = AdLimits::default();
    for ad in ads {
        let mut enc = Encoder::new(false);
        put_classad(&mut enc, ad, &PutOptions::new()).expect("the ad encodes");
        let payload = read_update(UPDATE_STARTD_AD, enc.as_bytes(), false, &limits).expect("the update reads");
        apply_update(&store, UPDATE_STARTD_AD, payload, None, None, NOW).expect("the ad is stored");
    }
    store
}

/// The query ad of `condor_status [-constraint C] [-af P…]`: a
/// `Projection` when `projection` is not empty, `Requirements` when a
/// constraint is given.
pub fn query_ad(projection: &str, constraint: Option<&str>) -> ClassAd {
    let mut text = String::from("[ MyType = \"Query\"; TargetType = \"Machine\"");
    if !projection.is_empty() {
        text.push_str(&format!("; Projection = \"{projection}\""));
    }
    text.push_str(&format!("; Requirements = {}", constraint.unwrap_or("true")));
    text.push_str(" ]");
    text.parse().expect("the query ad parses")
}

/// What a reply sent: its parts' bytes and a checksum of them (FNV-1a),
/// so that two runs can be compared without keeping the bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sent {
    /// How many ads.
    pub ads: usize,
    /// How many bytes, every part.
    pub bytes: usize,
    /// How many parts.
    pub parts: usize,
    /// FNV-1a of every byte sent.
    pub checksum: u64,
}

impl Sent {
    fn take(&mut self, part: &[u8]) {
        self.bytes += part.len();
        self.parts += 1;
        let mut h = if self.checksum == 0 { 0xcbf2_9ce4_8422_2325 } else { self.checksum };
        for &b in part {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        self.checksum = h;
    }
}

/// Runs `query` (the ad of a `QUERY_STARTD_ADS`) on `store` as the server
/// does: parse, select, every hit written with `put_hit`, a part handed to
/// `sink` each time the encoder holds `REPLY_PART` bytes, then `int 0`.
#[inline]
pub fn run_query(store: &Store, query: &ClassAd, peer_version: Option<&Version>, mut sink: impl FnMut(&[u8])) -> usize {
    let query = Query::parse(QUERY_STARTD_ADS, query.clone(), &Access::new(peer_version.cloned(), false, false))
        .expect("the query parses");
    let selection = query.select(store);
    let mut enc = Encoder::new(false);
    let writer = query.writer(peer_version);
    let hits = selection.hits();
    for i in 0..hits.len() {
        writer.put_hit_of(&mut enc, hits, i);
        if enc.len() >= REPLY_PART {
            sink(enc.as_bytes());
            enc.truncate(0);
        }
    }
    enc.put_int(0);
    sink(enc.as_bytes());
    selection.len()
}

/// [`run_query`] with the bytes counted and, when `checksum`, checksummed
/// (for timing, leave it out: FNV-1a costs more than the reply).
pub fn run_query_sent(store: &Store, query: &ClassAd, peer_version: Option<&Version>, checksum: bool) -> Sent {
    if checksum {
        query_checksummed(store, query, peer_version)
    } else {
        query_counted(store, query, peer_version)
    }
}

/// The query with its reply counted only: what a profile counts
/// (`--toggle-collect='*query_counted*'`).
#[inline(never)]
pub fn query_counted(store: &Store, query: &ClassAd, peer_version: Option<&Version>) -> Sent {
    let mut sent = Sent::default();
    sent.ads = run_query(store, query, peer_version, |part| {
        sent.bytes += part.len();
        sent.parts += 1;
    });
    sent
}

/// The query with its reply checksummed, to compare two builds' bytes.
#[inline(never)]
pub fn query_checksummed(store: &Store, query: &ClassAd, peer_version: Option<&Version>) -> Sent {
    let mut sent = Sent::default();
    sent.ads = run_query(store, query, peer_version, |part| sent.take(part));
    sent
}

/// The queries measured: a name and (projection, constraint).
pub const QUERIES: [(&str, &str, Option<&str>); 4] = [
    ("projected", "Name State", None),
    ("projected-constraint", "Name State", Some("State == \"Unclaimed\"")),
    ("whole", "", None),
    ("whole-constraint", "", Some("State == \"Unclaimed\"")),
];
