//! A collector client: queries, updates and invalidations, as HTCondor's
//! `CondorQuery` (condor_query.cpp 500–670) and `DCCollector`
//! (dc_collector.cpp 300–480) send them.
//!
//! * **query**: the query ad (`MyType = "Query"`, `TargetType`,
//!   `Requirements` — `true` when there is no constraint, left out for
//!   `QUERY_MULTIPLE_ADS` —, `Projection` as a space-separated string,
//!   `LimitResults`); the reply is one message of `int 1` + ad per result
//!   and a final `int 0`;
//! * **advertise**: each update is the command and its ad (with
//!   `UPDATE_STARTD_AD`, the private ad after the public one) in one
//!   message, all on one connection (follow-on commands), then `DC_NOP`;
//!   `UPDATE_STARTD_AD_WITH_ACK` waits for the collector's `int 1`;
//! * **invalidate**: the command and a query-style ad.
//!
//! ```no_run
//! use cedar::client::{Client, ClientConfig, CollectorClient, Query, collector::Update};
//! use cedar::command::UPDATE_SCHEDD_AD;
//! let collector = CollectorClient::new(Client::new(ClientConfig::default()), "<127.0.0.1:9618>".parse()?);
//! let ad: classad::ClassAd = r#"[ MyType = "Scheduler"; Name = "s@h"; MyAddress = "<127.0.0.1:1?noUDP>" ]"#.parse().unwrap();
//! collector.advertise(UPDATE_SCHEDD_AD, &[Update::new(ad)])?;
//! let back = collector.query(&Query::schedd().constraint(r#"Name == "s@h""#)?)?;
//! assert_eq!(back.len(), 1);
//! # Ok::<(), cedar::Error>(())
//! ```

use classad::{ClassAd, Expr, Literal, Parser, Syntax};

use super::blocking::{Client, ClientConnection};
use crate::command::*;
use crate::error::{Error, ErrorKind, Result};
use crate::sinful::Sinful;
use crate::wire::ad::PutOptions;
use crate::wire::reply::{ReplyLimits, ReplyReader};
use crate::wire::Decoder;

/// The most ads one query reply may hold (the message bound also applies).
pub const MAX_RESULTS: usize = 1_000_000;

/// A query: the command, the ad type and the query ad's attributes.
#[derive(Clone, Debug)]
pub struct Query {
    command: i32,
    target_type: String,
    constraint: Option<Expr>,
    projection: Vec<String>,
    limit: Option<i64>,
    extra: ClassAd,
}

impl Query {
    /// A query with `command` for ads of `target_type`.
    pub fn new(command: i32, target_type: &str) -> Query {
        Query {
            command,
            target_type: target_type.to_owned(),
            constraint: None,
            projection: Vec::new(),
            limit: None,
            extra: ClassAd::new(),
        }
    }

    /// Slot ads (`QUERY_STARTD_ADS`, `TargetType = "Machine"`).
    pub fn startd() -> Query {
        Query::new(QUERY_STARTD_ADS, "Machine")
    }

    /// Slot ads with their private attributes (`QUERY_STARTD_PVT_ADS`, the
    /// negotiator's query; `TargetType = "Machine"` as C++ sends it).
    pub fn startd_private() -> Query {
        Query::new(QUERY_STARTD_PVT_ADS, "Machine")
    }

    /// Schedd ads (`QUERY_SCHEDD_ADS`, `"Scheduler"`).
    pub fn schedd() -> Query {
        Query::new(QUERY_SCHEDD_ADS, "Scheduler")
    }

    /// Master ads (`QUERY_MASTER_ADS`, `"DaemonMaster"`).
    pub fn master() -> Query {
        Query::new(QUERY_MASTER_ADS, "DaemonMaster")
    }

    /// Submitter ads (`QUERY_SUBMITTOR_ADS`, `"Submitter"`).
    pub fn submitter() -> Query {
        Query::new(QUERY_SUBMITTOR_ADS, "Submitter")
    }

    /// Collector ads (`QUERY_COLLECTOR_ADS`, `"Collector"`).
    pub fn collector() -> Query {
        Query::new(QUERY_COLLECTOR_ADS, "Collector")
    }

    /// Negotiator ads (`QUERY_NEGOTIATOR_ADS`, `"Negotiator"`).
    pub fn negotiator() -> Query {
        Query::new(QUERY_NEGOTIATOR_ADS, "Negotiator")
    }

    /// Every ad (`QUERY_ANY_ADS`, `"Any"`).
    pub fn any() -> Query {
        Query::new(QUERY_ANY_ADS, "Any")
    }

    /// Generic ads of `my_type` (`QUERY_GENERIC_ADS`).
    pub fn generic(my_type: &str) -> Query {
        Query::new(QUERY_GENERIC_ADS, my_type)
    }

    /// Ads of several types at once (`QUERY_MULTIPLE_ADS`, `TargetType` a
    /// comma-separated list).
    pub fn multiple(types: &[&str]) -> Query {
        Query::new(QUERY_MULTIPLE_ADS, &types.join(","))
    }

    /// The command.
    pub fn command(&self) -> i32 {
        self.command
    }

    /// Only ads for which `expr` (old ClassAd syntax) is true.
    pub fn constraint(mut self, expr: &str) -> Result<Query> {
        let parsed = Parser::default()
            .syntax(Syntax::Old)
            .parse_expr(expr)
            .map_err(|e| Error::new(ErrorKind::Malformed, format!("constraint {expr:?}: {e}")))?;
        self.constraint = Some(parsed);
        Ok(self)
    }

    /// Only these attributes of each ad.
    pub fn projection<I, S>(mut self, names: I) -> Query
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.projection = names.into_iter().map(Into::into).collect();
        self
    }

    /// At most `n` ads (`LimitResults`).
    pub fn limit(mut self, n: i64) -> Query {
        self.limit = Some(n);
        self
    }

    /// Another attribute of the query ad (`SendPrivateAttributes`,
    /// `<Type>Requirements` of a multiple query, …).
    pub fn attr(mut self, name: &str, value: impl Into<Expr>) -> Query {
        self.extra.insert(name, value);
        self
    }

    /// The query ad, as `CondorQuery::getQueryAd` builds it.
    pub fn to_ad(&self) -> ClassAd {
        let mut ad = self.extra.clone();
        ad.insert("MyType", "Query");
        if let Some(n) = self.limit.filter(|n| *n > 0) {
            ad.insert("LimitResults", n);
        }
        if !self.projection.is_empty() {
            ad.insert("Projection", self.projection.join(" "));
        }
        let multiple = self.command == QUERY_MULTIPLE_ADS || self.command == QUERY_MULTIPLE_PVT_ADS;
        match &self.constraint {
            // MULTIPLE queries prefer no Requirements to a trivial one.
            Some(e) if multiple && e.as_literal() == Some(&Literal::Bool(true)) => {}
            Some(e) => {
                ad.insert("Requirements", e.clone());
            }
            None if multiple => {}
            None => {
                ad.insert("Requirements", true);
            }
        }
        ad.insert("TargetType", self.target_type.as_str());
        ad
    }
}

/// One ad to advertise, and the private ad that goes with a slot ad.
#[derive(Clone, Debug)]
pub struct Update {
    /// The ad.
    pub ad: ClassAd,
    /// The private ad (`UPDATE_STARTD_AD` only): `ClaimId`, `Capability`, …
    pub private: Option<ClassAd>,
}

impl Update {
    /// An update of `ad` alone.
    pub fn new(ad: ClassAd) -> Update {
        Update { ad, private: None }
    }

    /// A slot ad and its private ad.
    pub fn with_private(ad: ClassAd, private: ClassAd) -> Update {
        Update { ad, private: Some(private) }
    }
}

/// A collector, at one address.
#[derive(Clone, Debug)]
pub struct CollectorClient {
    client: Client,
    addr: Sinful,
}

impl CollectorClient {
    /// The collector at `addr`, reached through `client`.
    pub fn new(client: Client, addr: Sinful) -> CollectorClient {
        CollectorClient { client, addr }
    }

    /// The client (its configuration and session cache).
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The collector's address.
    pub fn addr(&self) -> &Sinful {
        &self.addr
    }

    /// The ads matching `query`, in a vector ([`query_each`](Self::query_each)
    /// collected).
    pub fn query(&self, query: &Query) -> Result<Vec<ClassAd>> {
        let mut ads = Vec::new();
        self.query_each(query, |ad| ads.push(ad))?;
        Ok(ads)
    }

    /// The ads matching `query`, each given to `each` as soon as it is
    /// read: the reply (one message, hundreds of megabytes for a large
    /// pool) is read a packet at a time and never held whole. At most
    /// [`MAX_RESULTS`] ads, each within the configuration's
    /// [`limits`](crate::client::ClientConfig::limits) and of at most
    /// [`max_message`](crate::client::ClientConfig::max_message) bytes.
    /// Returns how many ads there were.
    ///
    /// ```no_run
    /// use cedar::client::{Client, ClientConfig, CollectorClient, Query};
    /// let collector = CollectorClient::new(Client::new(ClientConfig::default()), "<127.0.0.1:9618>".parse()?);
    /// let mut cpus = 0;
    /// let n = collector.query_each(&Query::startd(), |ad| {
    ///     cpus += ad.eval_attr("Cpus").as_f64().unwrap_or(0.0) as i64;
    /// })?;
    /// println!("{n} slots, {cpus} cores");
    /// # Ok::<(), cedar::Error>(())
    /// ```
    pub fn query_each(&self, query: &Query, mut each: impl FnMut(ClassAd)) -> Result<usize> {
        let mut conn = self.client.start(&self.addr, query.command)?;
        conn.send_ads(&[&query.to_ad()], &PutOptions::default())?;
        let config = self.client.config();
        let limits = ReplyLimits::default().max_ads(MAX_RESULTS).max_ad_bytes(config.max_message).ad(config.limits);
        let mut reply = ReplyReader::new(limits);
        while conn.connection().read_reply_packet(&mut reply)? {
            while let Some(ad) = reply.next_ad()? {
                each(ad);
            }
        }
        if !reply.is_done() {
            return Err(Error::new(ErrorKind::Malformed, "the query reply ended without its final 0"));
        }
        // The C++ client closes after a query, without DC_NOP.
        Ok(reply.ads())
    }

    /// Sends each update with `command` on one connection, then hangs up.
    /// The public ad keeps its private attributes only for a collector
    /// known to be 8.9.3 or later, as `DCCollector` does; the private ad
    /// always keeps them. With `UPDATE_STARTD_AD_WITH_ACK` each update waits
    /// for the collector's acknowledgement.
    pub fn advertise(&self, command: i32, updates: &[Update]) -> Result<()> {
        let Some((first, rest)) = updates.split_first() else { return Ok(()) };
        let mut conn = self.client.start(&self.addr, command)?;
        self.send_update(&mut conn, command, first)?;
        for update in rest {
            conn.start_command(command)?;
            self.send_update(&mut conn, command, update)?;
        }
        conn.hang_up()
    }

    fn send_update(&self, conn: &mut ClientConnection, command: i32, update: &Update) -> Result<()> {
        let version = conn.server_version().cloned();
        let secrets = version.as_ref().is_some_and(|v| v.built_since(8, 9, 3));
        let public = PutOptions::new().exclude_private(!secrets).peer_version(version.clone());
        let private = PutOptions::new().peer_version(version);
        let mut enc = conn.encoder();
        crate::wire::ad::put_classad(&mut enc, &update.ad, &public)?;
        if let (Some(p), UPDATE_STARTD_AD) = (&update.private, command) {
            crate::wire::ad::put_classad(&mut enc, p, &private)?;
        }
        conn.send(enc)?;
        if command == UPDATE_STARTD_AD_WITH_ACK {
            let reply = conn.read_message()?;
            let mut dec = Decoder::new(&reply.payload, reply.encrypted);
            let ack = dec.get_int()?;
            dec.finish()?;
            if ack != 1 {
                return Err(Error::new(ErrorKind::Protocol, format!("the collector acknowledged with {ack}")));
            }
        }
        Ok(())
    }

    /// Removes the ads an invalidation `command` (e.g.
    /// `INVALIDATE_STARTD_ADS`) selects with `query`'s constraint. A query
    /// ad carrying the ad's `Name` (and `MyAddress`) is a direct hit for
    /// the C++ collector; otherwise it scans with `Requirements`.
    pub fn invalidate(&self, command: i32, query: &Query) -> Result<()> {
        let mut conn = self.client.start(&self.addr, command)?;
        conn.send_ads(&[&query.to_ad()], &PutOptions::default())?;
        conn.hang_up()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_ads_as_condor_query_builds_them() {
        let q = Query::startd().constraint("Cpus > 1").unwrap().projection(["Name", "Cpus"]).limit(5).to_ad();
        assert_eq!(q.eval_attr("MyType").as_str(), Some("Query"));
        assert_eq!(q.eval_attr("TargetType").as_str(), Some("Machine"));
        assert_eq!(q.eval_attr("Projection").as_str(), Some("Name Cpus"));
        assert_eq!(q.lookup("Requirements").map(|e| e.to_string()).as_deref(), Some("Cpus > 1"));
        assert_eq!(q.lookup("LimitResults").and_then(|e| e.as_literal().cloned()), Some(Literal::Int(5)));
        let any = Query::schedd().to_ad();
        assert_eq!(any.lookup("Requirements").and_then(|e| e.as_literal().cloned()), Some(Literal::Bool(true)));
        let multi = Query::multiple(&["Submitter", "Machine"]).constraint("true").unwrap().to_ad();
        assert!(multi.lookup("Requirements").is_none());
        assert_eq!(multi.eval_attr("TargetType").as_str(), Some("Submitter,Machine"));
        assert!(Query::startd().constraint("Cpus >").is_err());
    }
}
