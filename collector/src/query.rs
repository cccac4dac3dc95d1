//! Queries (`QUERY_*`): the query ad read as the C++ collector reads it
//! (`make_query_entry`, `receive_query_cedar_worker_thread`), and the reply
//! written as it writes it: for each result `int 1` and the ad, then
//! `int 0`, in one message.

use std::sync::Arc;

use cedar::command as c;
use cedar::version::Version;
use cedar::wire::ad::{put_classad, put_classad_projected, ProjectionPlan, PutOptions};
use cedar::wire::Encoder;
use classad::{ClassAd, EvalContext, EvalOptions, Expr, Semantics, Value};

use crate::key::{bool_attr, int_attr, string_attr};
use crate::record::StoredAd;
use crate::store::Store;
use crate::Table;

/// What the peer may see, as the caller's authorization decides it.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Access {
    /// The peer's version (from the handshake; `None` for raw commands).
    pub peer_version: Option<Version>,
    /// Whether the peer has NEGOTIATOR authorization.
    pub negotiator: bool,
    /// Whether the peer has ADMINISTRATOR authorization.
    pub administrator: bool,
}

impl Access {
    /// Access for a peer of this version and authorization.
    pub fn new(peer_version: Option<Version>, negotiator: bool, administrator: bool) -> Access {
        Access { peer_version, negotiator, administrator }
    }
}

/// Why a query gets no reply (the C++ collector then closes the
/// connection without one).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum QueryError {
    /// `QUERY_MULTIPLE_ADS` or `QUERY_GENERIC_ADS` without a `TargetType`,
    /// or a multiple query whose first type is unknown.
    #[error("invalid TargetType {0:?}")]
    TargetType(String),
    /// Private ads asked for without NEGOTIATOR authorization.
    #[error("the private ads are not authorized")]
    PrivateNotAuthorized,
    /// Not a query command.
    #[error("command {0} is not a query")]
    NotAQuery(i32),
}

/// How the attributes sent are chosen.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Projection {
    /// The whole ad.
    All,
    /// These attributes (and those their values use).
    List(Vec<String>),
    /// An expression in the query ad, evaluated per ad (the query as MY,
    /// the ad as TARGET) to a list string; the name of its attribute.
    Expr(String),
}

/// One table's part of a query.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Part {
    /// The tables walked, in order.
    pub tables: Vec<Table>,
    /// `Requirements` (or `<Type>Requirements`); `None` selects all.
    pub constraint: Option<Expr>,
    /// `LimitResults` (the smaller of the query's and `<Type>LimitResults`).
    pub limit: i64,
    /// The projection for this part.
    pub projection: Projection,
}

/// A parsed query.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Query {
    /// The query ad.
    pub ad: ClassAd,
    /// The parts, in order.
    pub parts: Vec<Part>,
    /// A `LocationQuery` (a daemon lookup).
    pub locate: bool,
    /// Whether private attributes are withheld (before the private table).
    pub filter_private: bool,
}

/// One ad a query sends.
#[derive(Debug, Clone)]
pub struct Hit {
    part: usize,
    filter_private: bool,
    ad: Arc<StoredAd>,
}

impl Hit {
    /// The stored ad.
    pub fn ad(&self) -> &StoredAd {
        &self.ad
    }
}

/// The ads a query sends, in order ([`Query::select`]).
#[derive(Debug, Clone, Default)]
pub struct Selection {
    hits: Vec<Hit>,
}

impl Selection {
    /// The hits, in the order they are sent.
    pub fn hits(&self) -> &[Hit] {
        &self.hits
    }

    /// How many ads.
    pub fn len(&self) -> usize {
        self.hits.len()
    }

    /// Whether no ad matched.
    pub fn is_empty(&self) -> bool {
        self.hits.is_empty()
    }
}

/// The outcome of a query.
#[derive(Debug)]
#[non_exhaustive]
pub struct Reply {
    /// The reply message's payload.
    pub payload: Vec<u8>,
    /// How many ads it holds.
    pub matched: usize,
}

/// The projection a query gives under `attr`: a string is a list (split
/// on spaces and commas), anything else an expression.
fn projection_of(query: &ClassAd, attr: &str) -> Option<Projection> {
    let expr = query.lookup(attr)?;
    match expr.as_literal() {
        Some(classad::Literal::Str(s)) => {
            let names = split_list(s.as_str());
            Some(if names.is_empty() { Projection::All } else { Projection::List(names) })
        }
        _ => Some(Projection::Expr(attr.to_owned())),
    }
}

fn split_list(s: &str) -> Vec<String> {
    s.split([',', ' ', '\t', '\r', '\n']).filter(|n| !n.is_empty()).map(str::to_owned).collect()
}

fn limit_of(query: &ClassAd, attr: &str) -> Option<i64> {
    int_attr(query, attr).filter(|&l| l > 0)
}

impl Query {
    /// Reads the query ad of `command` as the 23.9 collector does.
    ///
    /// * `QUERY_STARTD_ADS`: `TargetType = "StartD"` asks for the daemon
    ///   ads, anything else (`Machine`, `Slot`, none) for the slot ads; a
    ///   `LocationQuery` is answered from the daemon ads.
    /// * `QUERY_MULTIPLE[_PVT]_ADS`: `TargetType` is a list; each type may
    ///   have its own `<Type>Requirements`, `<Type>Projection` and
    ///   `<Type>LimitResults`.
    /// * `QUERY_ANY_ADS` walks every table.
    /// * `Projection` is a string list or an expression; golang clients'
    ///   `ProjectionAttributes` is read where there is no `Projection`.
    /// * Private attributes go to a peer of at least 8.9.3 with NEGOTIATOR
    ///   authorization (from 10.0.0 only when it sets
    ///   `SendPrivateAttributes`), to an ADMINISTRATOR that asks, and from
    ///   the private table.
    ///
    /// ```
    /// use collector::query::{Access, Projection, Query};
    /// let ad: classad::ClassAd = r#"[ TargetType = "Submitter,Machine"; MachineProjection = "Name Cpus";
    ///     SubmitterRequirements = Idle > 0 ]"#.parse()?;
    /// let q = Query::parse(cedar::command::QUERY_MULTIPLE_ADS, ad, &Access::default())?;
    /// assert_eq!(q.parts.len(), 2);
    /// assert_eq!(q.parts[0].tables, [collector::Table::Submitter]);
    /// assert!(q.parts[0].constraint.is_some());
    /// assert_eq!(q.parts[1].projection, Projection::List(vec!["Name".into(), "Cpus".into()]));
    /// assert!(q.filter_private);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn parse(command: i32, ad: ClassAd, access: &Access) -> Result<Query, QueryError> {
        let target = string_attr(&ad, "TargetType");
        let locate = ad.lookup("LocationQuery").is_some();
        let limit = limit_of(&ad, "LimitResults").unwrap_or(i64::from(i32::MAX));
        let constraint = ad.lookup("Requirements").cloned();
        let projection = projection_of(&ad, "Projection")
            .or_else(|| projection_of(&ad, "ProjectionAttributes"))
            .unwrap_or(Projection::All);
        let allow_pvt = command == c::QUERY_STARTD_PVT_ADS || command == c::QUERY_MULTIPLE_PVT_ADS;
        let single = |table: Table| {
            vec![Part { tables: vec![table], constraint: constraint.clone(), limit, projection: projection.clone() }]
        };
        let parts = match command {
            c::QUERY_STARTD_ADS => {
                let daemon = target.as_deref().is_some_and(|t| t.eq_ignore_ascii_case("StartD"));
                single(if daemon || locate { Table::StartdDaemon } else { Table::Slot })
            }
            c::QUERY_STARTD_PVT_ADS => single(Table::StartdPrivate),
            c::QUERY_SCHEDD_ADS => single(Table::Schedd),
            c::QUERY_SUBMITTOR_ADS => single(Table::Submitter),
            c::QUERY_MASTER_ADS => single(Table::Master),
            c::QUERY_CKPT_SRVR_ADS => single(Table::CkptSrvr),
            c::QUERY_COLLECTOR_ADS => single(Table::Collector),
            c::QUERY_NEGOTIATOR_ADS => single(Table::Negotiator),
            c::QUERY_ACCOUNTING_ADS => single(Table::Accounting),
            c::QUERY_HAD_ADS => single(Table::Had),
            c::QUERY_LICENSE_ADS => single(Table::License),
            c::QUERY_STORAGE_ADS => single(Table::Storage),
            c::QUERY_GRID_ADS => single(Table::Grid),
            c::QUERY_GENERIC_ADS => match target.as_deref() {
                Some(t) if !t.is_empty() => single(Table::Generic(t.to_owned())),
                _ => return Err(QueryError::TargetType(String::new())),
            },
            c::QUERY_ANY_ADS => {
                let mut p = single(Table::Slot);
                p[0].tables = Vec::new(); // filled with every table at run time
                p
            }
            c::QUERY_MULTIPLE_ADS | c::QUERY_MULTIPLE_PVT_ADS => {
                let target = target.unwrap_or_default();
                let tags = split_list(&target);
                let first_known = tags.first().and_then(|t| Table::from_type_name(t));
                if first_known.is_none() {
                    return Err(QueryError::TargetType(target));
                }
                let mut parts = Vec::new();
                for tag in &tags {
                    let table = Table::from_type_name(tag).unwrap_or_else(|| Table::Generic(tag.clone()));
                    if table == Table::StartdPrivate && !allow_pvt {
                        return Err(QueryError::PrivateNotAuthorized);
                    }
                    let tag_limit = limit_of(&ad, &format!("{tag}LimitResults")).unwrap_or(limit);
                    let req = format!("{tag}Requirements");
                    let tag_constraint = match ad.lookup(req.as_str()) {
                        Some(e) => Some(e.clone()),
                        None => constraint.clone(),
                    };
                    let tag_projection = projection_of(&ad, &format!("{tag}Projection")).unwrap_or(projection.clone());
                    parts.push(Part {
                        tables: vec![table],
                        constraint: tag_constraint,
                        limit: tag_limit.min(limit),
                        projection: tag_projection,
                    });
                }
                parts
            }
            other => return Err(QueryError::NotAQuery(other)),
        };
        let wants = bool_attr(&ad, "SendPrivateAttributes").unwrap_or(false);
        let mut filter_private = true;
        if let Some(v) = &access.peer_version {
            if v.built_since(8, 9, 3) && access.negotiator {
                filter_private = if v.built_since(10, 0, 0) { !wants } else { false };
            }
        }
        if wants && access.administrator {
            filter_private = false;
        }
        Ok(Query { ad, parts, locate, filter_private })
    }

    /// The tables this query walks, in order (every table for
    /// `QUERY_ANY_ADS`).
    pub fn tables(&self, store: &Store) -> Vec<Table> {
        let mut out = Vec::new();
        for part in &self.parts {
            if part.tables.is_empty() {
                out.extend(store.tables().into_iter().filter(|t| *t != Table::StartdPrivate));
            } else {
                out.extend(part.tables.iter().cloned());
            }
        }
        out
    }

    /// Selects the ads this query sends, in order, from snapshots of the
    /// tables (updates go on meanwhile). Cheap: the hits share the stored
    /// ads; [`Query::put_hit`] writes each.
    pub fn select(&self, store: &Store) -> Selection {
        let opts = EvalOptions::new().semantics(Semantics::Old);
        let mut hits = Vec::new();
        let mut num: i64 = 0;
        let mut filter_private = self.filter_private;
        for (index, part) in self.parts.iter().enumerate() {
            let tables = if part.tables.is_empty() {
                store.tables().into_iter().filter(|t| *t != Table::StartdPrivate).collect()
            } else {
                part.tables.clone()
            };
            // As the C++ scan (`__resultLimit__`, collector.cpp 1086 and
            // 1108): the limit of a later part is lowered by the ads already
            // sent, and then compared with the running total.
            let part_limit = part.limit - num;
            // No constraint, or a literal one (`condor_status` sends
            // `Requirements = true`): the same for every ad, decided once.
            let fixed = match &part.constraint {
                None => Some(true),
                Some(c) if c.as_literal().is_some() => Some(EvalContext::new(&opts).is_true(c)),
                Some(_) => None,
            };
            let mut taken: i64 = 0;
            let first = hits.len();
            'tables: for table in &tables {
                let table = match table {
                    Table::Generic(name) => match store.generic_table(name) {
                        Some(t) => t,
                        None => continue,
                    },
                    t => t.clone(),
                };
                let snap = store.snapshot(&table);
                if fixed == Some(false) {
                    continue;
                }
                if fixed == Some(true) {
                    let room = usize::try_from(part_limit - num - taken).unwrap_or(0);
                    hits.reserve(snap.len().min(room));
                }
                for rec in snap.iter() {
                    let hit = match (fixed, &part.constraint) {
                        (Some(all), _) => all,
                        (None, None) => true,
                        (None, Some(c)) => EvalContext::new(&opts).my(rec.public()).is_true(c),
                    };
                    if hit {
                        taken += 1;
                        hits.push(Hit { part: index, filter_private: true, ad: rec.clone() });
                        if num + taken >= part_limit {
                            break 'tables;
                        }
                    }
                }
            }
            num += taken;
            if tables.contains(&Table::StartdPrivate) {
                filter_private = false;
            }
            for hit in &mut hits[first..] {
                hit.filter_private = filter_private;
            }
            if part.tables.is_empty() {
                break; // Any is never part of a multiple query
            }
        }
        Selection { hits }
    }

    /// Writes one selected ad as the reply carries it: `int 1` and the ad
    /// (projected, with or without its private attributes). For many hits,
    /// a [`ReplyWriter`] ([`Query::writer`]) prepares the work once.
    pub fn put_hit(&self, enc: &mut Encoder, hit: &Hit, peer_version: Option<&Version>) {
        self.writer(peer_version).put_hit(enc, hit);
    }

    /// A writer of this query's hits for a peer of `peer_version`: the
    /// options, and each listed projection's [`ProjectionPlan`] (its names
    /// resolved, sorted and judged private once), made once for the whole
    /// reply. Make it after [`select`](Self::select): a projected name that
    /// no ad held when the writer was made is taken as absent.
    pub fn writer(&self, peer_version: Option<&Version>) -> ReplyWriter<'_> {
        let opts = PutOptions::new().peer_version(peer_version.cloned());
        let plans = self
            .parts
            .iter()
            .map(|part| match &part.projection {
                Projection::List(names) => Some(ProjectionPlan::new(names, &opts)),
                _ => None,
            })
            .collect();
        ReplyWriter { query: self, opts, plans }
    }

    /// One selected ad as a ClassAd, with what the reply would carry:
    /// the projection applied (as `putClassAd` expands it) and the private
    /// attributes only where the query may send them. For replies in other
    /// encodings than CEDAR's (the HTTP API's JSON).
    ///
    /// ```
    /// use collector::query::{Access, Query};
    /// use collector::{Store, UpdateCommand};
    /// let store = Store::new(900);
    /// let ad: classad::ClassAd = r#"[ MyType = "Machine"; Name = "slot1@h"; Cpus = 4; ClaimId = "secret" ]"#.parse()?;
    /// store.update(UpdateCommand::Startd, ad, None, 1000)?;
    /// let q: classad::ClassAd = r#"[ Projection = "Name,ClaimId" ]"#.parse()?;
    /// let q = Query::parse(cedar::command::QUERY_STARTD_ADS, q, &Access::default())?;
    /// let selection = q.select(&store);
    /// let got = q.hit_ad(&selection.hits()[0]);
    /// assert_eq!(got.len(), 1); // Name; the private ClaimId withheld
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn hit_ad(&self, hit: &Hit) -> ClassAd {
        let rec = &hit.ad;
        let mut whole = rec.public().clone();
        if !hit.filter_private {
            for (name, expr) in rec.with_private().iter() {
                whole.insert(name, expr.clone());
            }
        }
        let Some(part) = self.parts.get(hit.part) else { return whole };
        let names = match &part.projection {
            Projection::All => return whole,
            Projection::List(names) => names.clone(),
            Projection::Expr(attr) => {
                let opts = EvalOptions::new().semantics(Semantics::Old);
                let value = match self.ad.lookup(attr.as_str()) {
                    Some(e) => EvalContext::new(&opts).my(&self.ad).target(rec.public()).eval(e),
                    None => Value::Undefined,
                };
                match value {
                    Value::Str(s) if !split_list(s.as_str()).is_empty() => split_list(s.as_str()),
                    _ => return whole,
                }
            }
        };
        let mut out = ClassAd::new();
        for name in cedar::wire::ad::expand_projection(&whole, &names) {
            if let Some(expr) = whole.lookup(name.as_str()) {
                out.insert(name.as_str(), expr.clone());
            }
        }
        out
    }

    /// Runs the query on `store` and writes the whole reply for a stream
    /// that is `encrypted` or not: [`select`](Self::select), every hit,
    /// then `int 0`. A server sends long replies part by part instead.
    ///
    /// ```
    /// use collector::query::{Access, Query};
    /// use collector::{Store, UpdateCommand};
    /// let store = Store::new(900);
    /// let ad: classad::ClassAd = r#"[ MyType = "Machine"; Name = "slot1@h"; Cpus = 4 ]"#.parse()?;
    /// store.update(UpdateCommand::Startd, ad, None, 1000)?;
    /// let q: classad::ClassAd = r#"[ TargetType = "Machine"; Requirements = Cpus >= 4; Projection = "Name" ]"#.parse()?;
    /// let q = Query::parse(cedar::command::QUERY_STARTD_ADS, q, &Access::default())?;
    /// let reply = q.run(&store, false, None);
    /// assert_eq!(reply.matched, 1);
    /// let mut dec = cedar::wire::Decoder::new(&reply.payload, false);
    /// assert_eq!(dec.get_int()?, 1);
    /// let got = cedar::wire::ad::get_classad(&mut dec, &Default::default())?;
    /// assert_eq!(got.len(), 1);
    /// assert_eq!(dec.get_int()?, 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn run(&self, store: &Store, encrypted: bool, peer_version: Option<&Version>) -> Reply {
        let selection = self.select(store);
        let mut enc = Encoder::new(encrypted);
        let writer = self.writer(peer_version);
        let hits = selection.hits();
        for i in 0..hits.len() {
            writer.put_hit_of(&mut enc, hits, i);
        }
        enc.put_int(0);
        Reply { payload: enc.into_bytes(), matched: selection.len() }
    }
}

/// Writes a query's hits ([`Query::writer`]): the reply's options and
/// projection plans made once for all of them.
#[derive(Debug)]
pub struct ReplyWriter<'q> {
    query: &'q Query,
    opts: PutOptions,
    /// Per part, the plan of a listed projection.
    plans: Vec<Option<ProjectionPlan>>,
}

impl ReplyWriter<'_> {
    /// Writes `hits[i]` as [`put_hit`](Self::put_hit) does, first asking
    /// the processor to load what the hits a few places on will read (their
    /// records, their ads, the parts of the ads' tables the projection
    /// looks at), so that a walk over a large table does not wait on memory
    /// at each ad. The bytes are those of `put_hit`.
    #[inline]
    pub fn put_hit_of(&self, enc: &mut Encoder, hits: &[Hit], i: usize) {
        if let Some(h) = hits.get(i + 12) {
            classad::prefetch(&*h.ad);
        }
        if let Some(h) = hits.get(i + 6) {
            if h.filter_private {
                classad::prefetch(h.ad.public());
            }
        }
        if let Some(h) = hits.get(i + 3) {
            if let (true, Some(Some(plan))) = (h.filter_private, self.plans.get(h.part)) {
                plan.prefetch(h.ad.public());
            }
        }
        if let Some(hit) = hits.get(i) {
            self.put_hit(enc, hit);
        }
    }

    /// Writes one selected ad as the reply carries it: `int 1` and the ad
    /// (projected, with or without its private attributes), the bytes
    /// [`Query::put_hit`] writes.
    pub fn put_hit(&self, enc: &mut Encoder, hit: &Hit) {
        let Some(part) = self.query.parts.get(hit.part) else { return };
        let rec = &*hit.ad;
        let filter_private = hit.filter_private;
        let ad = if filter_private { rec.public() } else { rec.with_private() };
        let computed;
        let projection: Option<&[String]> = match &part.projection {
            Projection::All => None,
            Projection::List(names) => match self.plans.get(hit.part) {
                Some(Some(plan)) => {
                    // Written in place; an ad that cannot go out (a NUL in
                    // a name) is taken back and left out of the reply.
                    let at = enc.len();
                    enc.put_int(1);
                    if plan.put(enc, ad).is_err() {
                        enc.truncate(at);
                    }
                    return;
                }
                _ => Some(names),
            },
            Projection::Expr(attr) => {
                let opts = EvalOptions::new().semantics(Semantics::Old);
                let value = match self.query.ad.lookup(attr.as_str()) {
                    Some(e) => EvalContext::new(&opts).my(&self.query.ad).target(rec.public()).eval(e),
                    None => Value::Undefined,
                };
                computed = match value {
                    Value::Str(s) => Some(split_list(s.as_str())).filter(|l| !l.is_empty()),
                    _ => None,
                };
                computed.as_deref()
            }
        };
        if projection.is_none() && (filter_private || !rec.has_private()) {
            let bytes = rec.wire(enc.is_encrypted());
            if !bytes.is_empty() {
                enc.put_int(1);
                enc.put_bytes(bytes);
            }
            return;
        }
        // Written in place; an ad that cannot go out (a NUL in a name) is
        // taken back and left out of the reply.
        let at = enc.len();
        enc.put_int(1);
        let put = match projection {
            Some(names) => put_classad_projected(enc, ad, names, &self.opts),
            None => put_classad(enc, ad, &self.opts),
        };
        if put.is_err() {
            enc.truncate(at);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::UpdateCommand;

    /// The reply as it was written before [`ReplyWriter`]: each hit through
    /// `put_classad_projected` (or `put_classad`) with options made per hit.
    fn old_reply(query: &Query, store: &Store, encrypted: bool, peer_version: Option<&Version>) -> Vec<u8> {
        let selection = query.select(store);
        let mut enc = Encoder::new(encrypted);
        for hit in selection.hits() {
            let part = &query.parts[hit.part];
            let rec = &*hit.ad;
            let filter_private = hit.filter_private;
            let ad = if filter_private { rec.public() } else { rec.with_private() };
            let computed;
            let projection: Option<&[String]> = match &part.projection {
                Projection::All => None,
                Projection::List(names) => Some(names),
                Projection::Expr(attr) => {
                    let opts = EvalOptions::new().semantics(Semantics::Old);
                    let value = match query.ad.lookup(attr.as_str()) {
                        Some(e) => EvalContext::new(&opts).my(&query.ad).target(rec.public()).eval(e),
                        None => Value::Undefined,
                    };
                    computed = match value {
                        Value::Str(s) => Some(split_list(s.as_str())).filter(|l| !l.is_empty()),
                        _ => None,
                    };
                    computed.as_deref()
                }
            };
            if projection.is_none() && (filter_private || !rec.has_private()) {
                let bytes = rec.wire(enc.is_encrypted());
                if !bytes.is_empty() {
                    enc.put_int(1);
                    enc.put_bytes(bytes);
                }
                continue;
            }
            let opts = PutOptions::new().peer_version(peer_version.cloned());
            let at = enc.len();
            enc.put_int(1);
            let put = match projection {
                Some(names) => put_classad_projected(&mut enc, ad, names, &opts),
                None => put_classad(&mut enc, ad, &opts),
            };
            if put.is_err() {
                enc.truncate(at);
            }
        }
        enc.put_int(0);
        enc.into_bytes()
    }

    /// A pool of varied ads: literals, expressions that use other
    /// attributes (through chains of them, one in a cycle), names spelled
    /// in other cases, private attributes of both kinds, a private ad sent
    /// beside the public one, slots without `State`.
    fn store() -> Store {
        let store = Store::new(900);
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move |n: u64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) % n
        };
        for i in 0..80 {
            let mut text = format!(
                "[ MyType = \"Machine\"; Name = \"slot{}@host{}\"; MyAddress = \"<10.0.{}.{}:9618>\"; Cpus = {}; Memory = {}",
                i % 8 + 1,
                i / 8,
                i / 250,
                i % 250,
                1 << next(4),
                1024 * (1 + next(8))
            );
            match next(4) {
                0 => text.push_str("; State = \"Claimed\"; Activity = \"Busy\""),
                1 => text.push_str("; STATE = \"Unclaimed\"; activity = \"Idle\""),
                2 => text.push_str("; state = \"Owner\""),
                _ => {}
            }
            match next(5) {
                0 => text.push_str(
                    "; Start = Cpus > 2 && KeyboardIdle > 15 * 60; KeyboardIdle = ConsoleIdle; ConsoleIdle = 100",
                ),
                1 => text.push_str("; Start = true; Rank = TARGET.Owner == \"alice\" ? 10 : Memory / 1024"),
                2 => text.push_str("; Start = A; A = B; B = A"),
                3 => text.push_str("; Start = my.cpus >= TARGET.RequestCpus; LoadAvg = 0.25"),
                _ => text.push_str("; Start = false; LoadAvg = 1.5e300"),
            }
            if next(3) == 0 {
                text.push_str(
                    "; ClaimId = \"secret#1\"; Capability = \"cap\"; _condor_privKey = \"k\"; Uses = ClaimId",
                );
            }
            if next(4) == 0 {
                text.push_str("; Text = \"a \\\"quoted\\\" string\"; Flag = undefined; Bad = error");
            }
            text.push_str(" ]");
            let ad: ClassAd = text.parse().expect(&text);
            let private = (next(3) == 0).then(|| {
                r#"[ ClaimId = "private#2"; ClaimIds = "x y"; _CONDOR_PRIV_other = 1 ]"#
                        .parse::<ClassAd>()
                        .expect("the private ad parses")
            });
            store.update(UpdateCommand::Startd, ad, private, 1000).expect("stored");
        }
        store
    }

    #[test]
    fn writer_sends_the_bytes_put_classad_projected_sends() {
        let store = store();
        let projections = [
            "Name State",
            "name State NAME state",
            "State,Name,Activity",
            "Missing",
            "NeverInternedAnywhere9f2 Name",
            "Start",
            "Name Start Rank",
            "Uses ClaimId Name",
            "ClaimId Capability _condor_privKey _CONDOR_PRIV_other ClaimIds Name",
            "Rank Memory cpus CPUS",
            "Text Flag Bad LoadAvg",
            "A B Start",
            "A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 B0 B1 B2 B3 B4 B5 B6 B7 B8 B9 C0 C1 C2 C3 C4 C5 C6 C7 C8 C9 Name State Cpus Memory",
            "",
            "=strcat(\"Name \", TARGET.State)",
            "=TARGET.Cpus > 2 ? \"Name Start\" : 7",
        ];
        let old = Version::new(9, 0, 0, "");
        let new: Version = "$CondorVersion: 23.9.6 2024-07-12 BuildID: 0 $".parse().unwrap();
        let accesses = [
            Access::default(),
            Access::new(Some(new.clone()), false, false),
            Access::new(Some(new.clone()), true, true),
            Access::new(Some(old.clone()), true, false),
        ];
        let mut checked = 0;
        for projection in projections {
            for (command, extra) in [
                (c::QUERY_STARTD_ADS, ""),
                (c::QUERY_STARTD_ADS, "; Requirements = Cpus >= 2"),
                (c::QUERY_STARTD_ADS, "; Requirements = true; SendPrivateAttributes = true"),
                (c::QUERY_STARTD_PVT_ADS, ""),
                (c::QUERY_MULTIPLE_ADS, "; TargetType = \"Machine,StartD\"; StartDProjection = \"Name Cpus\""),
                (c::QUERY_MULTIPLE_PVT_ADS, "; TargetType = \"Machine,MachinePrivate\"; LimitResults = 500"),
            ] {
                let text = match projection.strip_prefix('=') {
                    Some(expr) => format!("[ Projection = {expr}{extra} ]"),
                    None => format!("[ Projection = \"{projection}\"{extra} ]"),
                };
                let ad: ClassAd = text.parse().unwrap();
                for access in &accesses {
                    let Ok(query) = Query::parse(command, ad.clone(), access) else { continue };
                    for peer in [None, Some(&old), Some(&new)] {
                        for encrypted in [false, true] {
                            if encrypted && peer != Some(&new) {
                                continue;
                            }
                            let want = old_reply(&query, &store, encrypted, peer);
                            let got = query.run(&store, encrypted, peer).payload;
                            assert!(want == got, "{text} with {access:?}, peer {peer:?}, encrypted {encrypted}");
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert!(checked > 1000, "{checked}");
    }
}
