//! The NEGOTIATE protocol, negotiator side: what `condor_negotiator` says
//! to a schedd (HTCondor's `matchmaker.cpp` `startNegotiateProtocol`,
//! `matchmaker_negotiate.cpp`, and the schedd's `schedd_negotiate.cpp`).
//!
//! One [`ScheddLink`] is one TCP connection to one schedd, kept from one
//! negotiation to the next as HTCondor's socket cache keeps it. A
//! negotiation is
//!
//! 1. `NEGOTIATE` (416) with the header ad ([`Header`]): the first one on
//!    a connection goes through the security handshake; later ones are
//!    the integer and the header in one message;
//! 2. `SEND_RESOURCE_REQUEST_LIST` (518) with a count; the schedd answers
//!    each request with `JOB_INFO` (419) and the request's ad, or ends the
//!    list with `NO_MORE_JOBS` (418);
//! 3. per request: `PERMISSION_AND_AD` (472) with the claim id(s) and the
//!    offer, or `REJECTED_WITH_REASON` (476) with
//!    `"<reason> |<autocluster>|<cluster>.<proc>|"`;
//! 4. `END_NEGOTIATE` (425), unless the schedd already ended the
//!    negotiation itself (a list round that gave nothing).
//!
//! The schedd finds the job of a match from the offer's
//! `_condor_RESOURCE_CLUSTER` and `_condor_RESOURCE_PROC`, so matches may
//! be sent in a negotiation after the one that fetched the requests, as
//! HTCondor's prefetch does.

use cedar::client::{Client, ClientConnection};
use cedar::command as c;
use cedar::sinful::Sinful;
use cedar::wire::ad::{get_classad, put_classad, AdLimits, PutOptions};
use cedar::wire::codec::Decoder;
use cedar::{Error, ErrorKind};
use classad::ClassAd;

/// `_condor_RESOURCE_COUNT`: how many jobs a request stands for.
pub const ATTR_RESOURCE_REQUEST_COUNT: &str = "_condor_RESOURCE_COUNT";
/// `_condor_RESOURCE_CLUSTER`: the request's cluster, in the offer.
pub const ATTR_RESOURCE_REQUEST_CLUSTER: &str = "_condor_RESOURCE_CLUSTER";
/// `_condor_RESOURCE_PROC`: the request's proc, in the offer.
pub const ATTR_RESOURCE_REQUEST_PROC: &str = "_condor_RESOURCE_PROC";

/// The most requests one negotiation fetches from a schedd: a bound on
/// what a schedd can make us hold, far above any real queue's number of
/// autoclusters.
pub const MAX_REQUESTS: usize = 1_000_000;

/// The negotiation header (the ad after `NEGOTIATE`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Header {
    /// `Owner`: the submitter ad's `OriginalName`, else its `Name`.
    pub owner: String,
    /// `AutoClusterAttrs`: the significant attributes, comma-separated.
    pub autocluster_attrs: String,
    /// `SubmitterTag`: copied from the submitter ad (the schedd checks it).
    pub submitter_tag: String,
    /// `NegotiatorJobConstraint` (NEGOTIATOR_JOB_CONSTRAINT), if set.
    pub job_constraint: Option<String>,
}

impl Header {
    /// The header ad as HTCondor's negotiator sends it.
    ///
    /// ```
    /// use negotiator::schedd::Header;
    /// let mut h = Header::default();
    /// h.owner = "alice@pool".into();
    /// h.autocluster_attrs = "RequestCpus,Requirements".into();
    /// let ad = h.to_ad();
    /// assert_eq!(ad.lookup_string("Owner").as_deref(), Some("alice@pool"));
    /// assert_eq!(ad.lookup_bool("MatchClaimedPslots"), Some(true));
    /// ```
    pub fn to_ad(&self) -> ClassAd {
        let mut ad = ClassAd::with_capacity(5);
        ad.insert("Owner", self.owner.as_str());
        if let Some(expr) = self.job_constraint.as_deref().and_then(|s| s.parse::<classad::Expr>().ok()) {
            ad.insert("NegotiatorJobConstraint", expr);
        }
        ad.insert("AutoClusterAttrs", self.autocluster_attrs.as_str());
        ad.insert("SubmitterTag", self.submitter_tag.as_str());
        ad.insert("MatchClaimedPslots", true);
        ad
    }
}

/// One resource request as the schedd sent it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Request {
    /// The request's ad (its significant attributes and the ids).
    pub ad: ClassAd,
    /// `ClusterId`.
    pub cluster: i64,
    /// `ProcId`.
    pub proc: i64,
    /// `AutoClusterId` (-1 when absent).
    pub autocluster: i64,
    /// `_condor_RESOURCE_COUNT` (1 when absent).
    pub count: u32,
}

impl Request {
    /// Reads the ids out of a `JOB_INFO` ad; an ad without `ClusterId`
    /// and `ProcId` is a protocol error, as in HTCondor.
    pub fn from_ad(ad: ClassAd) -> Result<Request, Error> {
        let (Some(cluster), Some(proc)) = (ad.lookup_integer("ClusterId"), ad.lookup_integer("ProcId")) else {
            return Err(Error::new(ErrorKind::Protocol, "a resource request without ClusterId and ProcId"));
        };
        let autocluster = ad.lookup_integer("AutoClusterId").unwrap_or(-1);
        let count = ad.lookup_integer(ATTR_RESOURCE_REQUEST_COUNT).unwrap_or(1).clamp(1, i64::from(u32::MAX)) as u32;
        Ok(Request { ad, cluster, proc, autocluster, count })
    }
}

/// What one fetch of resource requests gave.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct Fetched {
    /// The requests, in the schedd's order.
    pub requests: Vec<Request>,
    /// Whether the schedd ended the negotiation itself (its last list
    /// round gave nothing): then no `END_NEGOTIATE` may follow.
    pub schedd_finished: bool,
    /// List rounds asked for.
    pub rounds: u32,
}

/// A connection to one schedd, kept across negotiations.
#[derive(Debug)]
pub struct ScheddLink {
    conn: ClientConnection,
    limits: AdLimits,
    /// Whether a negotiation is open on the connection (`NEGOTIATE` sent,
    /// no `END_NEGOTIATE` yet and the schedd has not ended it).
    open: bool,
}

impl ScheddLink {
    /// Connects to the schedd at `addr` with `client`'s security. Nothing
    /// is sent until [`negotiate`](Self::negotiate).
    pub fn connect(client: &Client, addr: &Sinful) -> Result<ScheddLink, Error> {
        let limits = client.config().limits;
        Ok(ScheddLink { conn: client.connect(addr)?, limits, open: false })
    }

    /// The schedd's address.
    pub fn addr(&self) -> &Sinful {
        self.conn.addr()
    }

    /// Whether a negotiation is open.
    pub fn is_open(&self) -> bool {
        self.open
    }

    /// Starts a negotiation: `NEGOTIATE` and the header ad, in one message
    /// on a connection that already ran one (HTCondor's warm socket).
    pub fn negotiate(&mut self, header: &Header) -> Result<(), Error> {
        if self.open {
            return Err(Error::new(ErrorKind::Protocol, "a negotiation is already open on this connection"));
        }
        self.conn.start_command(c::NEGOTIATE)?;
        let mut enc = self.conn.encoder();
        put_classad(&mut enc, &header.to_ad(), &PutOptions::new())?;
        self.conn.send(enc)?;
        self.open = true;
        Ok(())
    }

    /// Fetches the schedd's requests, `per_round` at a time
    /// (NEGOTIATOR_RESOURCE_REQUEST_LIST_SIZE), until it says
    /// `NO_MORE_JOBS` or `max` have come.
    pub fn fetch_requests(&mut self, per_round: u32, max: usize) -> Result<Fetched, Error> {
        self.require_open()?;
        let per_round = per_round.max(1);
        let mut fetched = Fetched::default();
        loop {
            let mut enc = self.conn.encoder();
            enc.put_int(i64::from(c::SEND_RESOURCE_REQUEST_LIST));
            enc.put_int(i64::from(per_round));
            self.conn.send(enc)?;
            fetched.rounds += 1;
            let mut this_round = 0u32;
            let mut no_more = false;
            while this_round < per_round {
                let msg = self.conn.read_message()?;
                let mut dec = Decoder::new(&msg.payload, msg.encrypted);
                match dec.get_i32()? {
                    c::NO_MORE_JOBS => {
                        no_more = true;
                        break;
                    }
                    c::JOB_INFO => {
                        let ad = get_classad(&mut dec, &self.limits)?;
                        fetched.requests.push(Request::from_ad(ad)?);
                        this_round += 1;
                    }
                    other => {
                        self.open = false;
                        return Err(Error::new(
                            ErrorKind::Protocol,
                            format!("the schedd answered a request list with command {other}"),
                        ));
                    }
                }
            }
            if no_more {
                // A round that gave nothing ends the negotiation on the
                // schedd's side (schedd_negotiate.cpp sendResourceRequestList).
                fetched.schedd_finished = this_round == 0;
                if fetched.schedd_finished {
                    self.open = false;
                }
                return Ok(fetched);
            }
            if fetched.requests.len() >= max {
                return Ok(fetched);
            }
        }
    }

    /// Sends a match: `PERMISSION_AND_AD`, the claim id(s) (space-separated,
    /// or `null` for a slot that does not want claiming) and the offer, its
    /// private attributes left out.
    pub fn send_match(&mut self, claim_ids: &str, offer: &ClassAd) -> Result<(), Error> {
        self.require_open()?;
        let mut enc = self.conn.encoder();
        enc.put_int(i64::from(c::PERMISSION_AND_AD));
        enc.put_str(claim_ids)?;
        put_classad(&mut enc, offer, &PutOptions::new().exclude_private(true))?;
        self.conn.send(enc)
    }

    /// Sends a rejection with its reason, decorated as a schedd that asks
    /// for `WantMatchDiagnostics = 2` reads it.
    pub fn send_rejection(&mut self, reason: &str, autocluster: i64, cluster: i64, proc: i64) -> Result<(), Error> {
        self.require_open()?;
        let mut enc = self.conn.encoder();
        enc.put_int(i64::from(c::REJECTED_WITH_REASON));
        enc.put_str(&format!("{reason} |{autocluster}|{cluster}.{proc}|"))?;
        self.conn.send(enc)
    }

    /// Ends the negotiation (`END_NEGOTIATE`); nothing is sent when the
    /// schedd ended it already. The connection stays for the next one.
    pub fn end(&mut self) -> Result<(), Error> {
        if !self.open {
            return Ok(());
        }
        self.open = false;
        let mut enc = self.conn.encoder();
        enc.put_int(i64::from(c::END_NEGOTIATE));
        self.conn.send(enc)
    }

    fn require_open(&self) -> Result<(), Error> {
        if self.open {
            Ok(())
        } else {
            Err(Error::new(ErrorKind::Protocol, "no negotiation is open on this connection"))
        }
    }
}
