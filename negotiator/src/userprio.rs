//! `condor_userprio`'s commands, negotiator side: what HTCondor's
//! `condor_negotiator` serves to `condor_userprio` and to the Python
//! bindings' `htcondor2.Negotiator` (`matchmaker.cpp`'s `*_commandHandler`s
//! and `Accountant::ReportState` in 23.9.6), sans-IO.
//!
//! The daemon registers [`COMMANDS`] (command number, name and permission
//! level, as `Matchmaker::initialize` registers them), then for each one:
//!
//! 1. takes its payload: the next message if the client sends one
//!    ([`carries_payload`]), else only what a raw command carried inline
//!    ([`inline_payload`]): after a handshake `condor_userprio` sends
//!    nothing for `GET_PRIORITY`, `GET_PRIORITY_ROLLUP` and
//!    `RESET_ALL_USAGE` and waits for the reply, so reading a message there
//!    would stall both sides;
//! 2. decodes it ([`Request::decode`]); an error ends the connection
//!    without a word and without a change, as a failed `get` or
//!    `end_of_message` does in C++;
//! 3. authorizes it beyond the table ([`Request::authorize`]):
//!    `SET_PRIORITYFACTOR` is registered at WRITE, and the handler itself
//!    requires ADMINISTRATOR ([`is_administrator`]) or a
//!    `PRIORITY_FACTOR_AUTHORIZATION` mapping of the peer to a prefix of
//!    the submitter's name ([`FactorMap`]); a refusal is answered with
//!    [`Request::refusal`];
//! 4. runs it on the accountant ([`Request::apply`]), after
//!    `wait_for_earlier_connections()` so that a query sees the edits
//!    sent just before it on other connections;
//! 5. encodes the [`Reply`] for the peer's version and sends it if there
//!    is one ([`Reply::encode`]).
//!
//! ```no_run
//! use std::sync::Mutex;
//! use cedar::tokio::{Command, Handler};
//! use matchmaker::accountant::Accountant;
//! use negotiator::userprio::{self, FactorMap, Request};
//!
//! struct Userprio { accountant: Mutex<Accountant>, authorizer: cedar::authz::Authorizer }
//!
//! impl Handler for Userprio {
//!     async fn handle(&self, command: &mut Command<'_>) -> cedar::error::Result<()> {
//!         let number = command.number();
//!         let payload = if userprio::carries_payload(number) {
//!             command.read_payload().await?
//!         } else {
//!             userprio::inline_payload(command.request())
//!         };
//!         let request = Request::decode(number, &payload)
//!             .map_err(|e| cedar::Error::new(cedar::ErrorKind::Protocol, e.to_string()))?;
//!         command.wait_for_earlier_connections().await;
//!         let admin = command.peer().is_some_and(|p| {
//!             userprio::is_administrator(&self.authorizer, command.request(), p.ip())
//!         });
//!         let reply = match request.authorize(admin, command.user(), &FactorMap::Unset) {
//!             Err(refused) => request.refusal(&refused),
//!             Ok(()) => match self.accountant.lock() {
//!                 Ok(mut accountant) => request.apply(&mut accountant, 1_700_000_000),
//!                 Err(_) => return Err(cedar::Error::new(cedar::ErrorKind::Io, "accountant lock poisoned")),
//!             },
//!         };
//!         let mut out = command.encoder();
//!         if reply.encode(&mut out, command.peer_version())? {
//!             command.send(out.as_bytes()).await?;
//!         }
//!         Ok(())
//!     }
//! }
//! ```
//!
//! # Differences from condor_negotiator
//!
//! * **Names are checked here too.** HTCondor's handlers take any name
//!   and leave the checks to `condor_userprio`; the accountant's edits
//!   ([`Accountant::set_priority`] and the others) make the client's
//!   checks themselves, so a name without `@` (or with blanks) is refused
//!   (logged, nothing changed, a [`Reply::Status`] with the message for
//!   `SET_PRIORITYFACTOR`). Only hand-made clients see this: both
//!   `condor_userprio` and the Python bindings refuse such names first.
//! * **Out-of-range values.** A negative accumulated usage or usage time
//!   is refused, as `condor_userprio` refuses it (HTCondor's negotiator
//!   would store it); a ceiling below -1 is stored as -1 and a floor below
//!   0 as 0, which is how HTCondor reads such values back (`GetCeiling`,
//!   `GetFloor`), so the pool behaves the same; a factor below 1 is stored
//!   as 1, as `Accountant::SetPriorityFactor` does. A value that is not a
//!   finite number (which C++'s wire format cannot carry anyway) is
//!   refused.
//! * **Refusals of `SET_PRIORITYFACTOR`** for those reasons answer
//!   `ErrorCode` [`CODE_INVALID`] (5), and a failure to write the
//!   accountant's log [`CODE_LOG`] (6): HTCondor has no such failures and
//!   only uses codes 1 to 4 (the authorization ones, kept as they are).
//! * **The report writes nothing.** HTCondor's `GetPriority` writes a
//!   submitter's default factor (and the minimum priority) into its record
//!   when it reports it; [`priority_report`] reports the same values
//!   without writing them, so a later change of DEFAULT_PRIO_FACTOR
//!   applies to submitters who had only been reported.
//! * **No `ConcurrencyLimit_*` attributes** in the report: the accountant
//!   does not count concurrency limits.
//! * **Resources are listed in record order** by [`resource_list`], where
//!   HTCondor follows its hash table.

use std::net::IpAddr;

use cedar::authz::{Authorizer, MapFile, Permission};
use cedar::command as c;
use cedar::handshake::{CommandRequest, CommandTable, Payload};
use cedar::version::Version;
use cedar::wire::ad::{put_classad, PutOptions};
use cedar::wire::{Decoder, Encoder, Message};
use classad::ClassAd;
use matchmaker::accountant::{Accountant, AccountantError, PriorityRow};
use matchmaker::groups::GroupTree;

/// One of the negotiator's `condor_userprio` commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct CommandSpec {
    /// The command number (`condor_commands.h`).
    pub number: i32,
    /// HTCondor's name for it.
    pub name: &'static str,
    /// The level it is registered with (`Register_Command`).
    pub permission: Permission,
    /// Whether the client sends a payload message after the command.
    pub carries_payload: bool,
}

const fn spec(number: i32, name: &'static str, permission: Permission, carries_payload: bool) -> CommandSpec {
    CommandSpec { number, name, permission, carries_payload }
}

/// The commands, as `Matchmaker::initialize` registers them. Every edit is
/// ADMINISTRATOR but `SET_PRIORITYFACTOR`, which is WRITE and checked
/// further by its handler ([`Request::authorize`]); the queries are READ.
///
/// ```
/// use negotiator::userprio::COMMANDS;
/// use cedar::authz::Permission;
/// let factor = COMMANDS.iter().find(|s| s.name == "SET_PRIORITYFACTOR").expect("registered");
/// assert_eq!((factor.number, factor.permission), (459, Permission::Write));
/// ```
pub const COMMANDS: &[CommandSpec] = &[
    spec(c::RESET_ALL_USAGE, "RESET_ALL_USAGE", Permission::Administrator, false),
    spec(c::RESET_USAGE, "RESET_USAGE", Permission::Administrator, true),
    spec(c::DELETE_USER, "DELETE_USER", Permission::Administrator, true),
    spec(c::SET_PRIORITYFACTOR, "SET_PRIORITYFACTOR", Permission::Write, true),
    spec(c::SET_PRIORITY, "SET_PRIORITY", Permission::Administrator, true),
    spec(c::SET_CEILING, "SET_CEILING", Permission::Administrator, true),
    spec(c::SET_FLOOR, "SET_FLOOR", Permission::Administrator, true),
    spec(c::SET_ACCUMUSAGE, "SET_ACCUMUSAGE", Permission::Administrator, true),
    spec(c::SET_BEGINTIME, "SET_BEGINTIME", Permission::Administrator, true),
    spec(c::SET_LASTTIME, "SET_LASTTIME", Permission::Administrator, true),
    spec(c::GET_PRIORITY, "GET_PRIORITY", Permission::Read, false),
    spec(c::GET_PRIORITY_ROLLUP, "GET_PRIORITY_ROLLUP", Permission::Read, false),
    spec(c::GET_PRIORITY_ROLLUP_OLD, "GET_PRIORITY_ROLLUP_OLD", Permission::Read, false),
    spec(c::GET_RESLIST, "GET_RESLIST", Permission::Read, true),
];

/// The entry of [`COMMANDS`] for `command`, if it is one.
pub fn spec_of(command: i32) -> Option<&'static CommandSpec> {
    COMMANDS.iter().find(|s| s.number == command)
}

/// Whether `command` is one of [`COMMANDS`].
pub fn is_userprio_command(command: i32) -> bool {
    spec_of(command).is_some()
}

/// Whether the client sends a payload message for `command` (a name, and
/// a value for the `SET_*` commands). `GET_PRIORITY`, `GET_PRIORITY_ROLLUP`
/// and `RESET_ALL_USAGE` send none: their handler must not wait for one.
///
/// ```
/// use negotiator::userprio::carries_payload;
/// assert!(carries_payload(cedar::command::SET_PRIORITY));
/// assert!(!carries_payload(cedar::command::GET_PRIORITY));
/// assert!(!carries_payload(cedar::command::RESET_ALL_USAGE));
/// ```
pub fn carries_payload(command: i32) -> bool {
    spec_of(command).is_some_and(|s| s.carries_payload)
}

/// `table` with [`COMMANDS`] registered at their levels.
///
/// ```
/// use cedar::authz::Permission;
/// let table = negotiator::userprio::register(cedar::handshake::CommandTable::new());
/// assert_eq!(table.permission(cedar::command::SET_PRIORITY), Some(Permission::Administrator));
/// assert_eq!(table.permission(cedar::command::GET_RESLIST), Some(Permission::Read));
/// ```
pub fn register(table: CommandTable) -> CommandTable {
    COMMANDS.iter().fold(table, |t, s| t.register(s.number, s.permission))
}

/// The payload of a command that carries none ([`carries_payload`] is
/// false): the bytes a raw command had after its number (nothing, from
/// HTCondor's clients), or an empty message after a handshake, without
/// reading from the connection.
///
/// ```
/// use cedar::handshake::{CommandRequest, Payload};
/// # fn check(request: &CommandRequest) {
/// let message = negotiator::userprio::inline_payload(request);
/// if matches!(request.payload, Payload::NextMessage) {
///     assert!(message.payload.is_empty());
/// }
/// # }
/// ```
pub fn inline_payload(request: &CommandRequest) -> Message {
    match &request.payload {
        Payload::Inline(bytes, encrypted) => Message { payload: bytes.clone(), encrypted: *encrypted },
        _ => Message { payload: Vec::new(), encrypted: false },
    }
}

/// Whether the peer of `request`, at `peer`, is an administrator: its
/// session's limit admits ADMINISTRATOR and `ALLOW_ADMINISTRATOR` admits
/// it (HTCondor's `isAuthorizationInBoundingSet("ADMINISTRATOR")` and
/// `Verify(ADMINISTRATOR)`), as `SET_PRIORITYFACTOR` asks.
///
/// ```
/// use cedar::authz::{AuthzConfig, Authorizer};
/// let knobs = |k: &str| (k == "ALLOW_ADMINISTRATOR").then(|| "10.0.0.1".to_string());
/// let authz = Authorizer::from_config(&knobs, &AuthzConfig::default())?;
/// # fn check(authz: &Authorizer, request: &cedar::handshake::CommandRequest) {
/// assert!(!negotiator::userprio::is_administrator(authz, request, "10.0.0.2".parse().expect("an address")));
/// # }
/// # Ok::<(), cedar::Error>(())
/// ```
pub fn is_administrator(authorizer: &Authorizer, request: &CommandRequest, peer: IpAddr) -> bool {
    authorizer.check(&request.peer_at(peer), Permission::Administrator).is_allowed()
}

/// `ErrorCode` of a `SET_PRIORITYFACTOR` refused for its name or value
/// (not one of HTCondor's; see the module's differences).
pub const CODE_INVALID: i32 = 5;
/// `ErrorCode` of a `SET_PRIORITYFACTOR` whose change could not be logged.
pub const CODE_LOG: i32 = 6;

/// What can go wrong with a `condor_userprio` command.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum UserprioError {
    /// The command is not one of [`COMMANDS`].
    #[error("command {0} is not one of condor_userprio's")]
    UnknownCommand(i32),
    /// The payload could not be read as the command's (a missing or bad
    /// field, or bytes left over).
    #[error("could not read the payload of {command}: {source}")]
    Malformed {
        /// The command's name.
        command: &'static str,
        /// What the decoder said.
        #[source]
        source: cedar::Error,
    },
    /// A name or value refused (the accountant's checks, which are
    /// `condor_userprio`'s).
    #[error("{0}")]
    Invalid(String),
    /// The peer may not set this priority factor: HTCondor's code (1 to 4)
    /// and message.
    #[error("{message}")]
    NotAuthorized {
        /// `ErrorCode` of the reply.
        code: i32,
        /// `ErrorString` of the reply.
        message: String,
    },
    /// The accountant's log could not be written.
    #[error("the accountant's log: {0}")]
    Log(#[source] AccountantError),
}

impl UserprioError {
    /// The `ErrorCode` a `SET_PRIORITYFACTOR` reply carries for this error.
    ///
    /// ```
    /// use negotiator::userprio::{UserprioError, CODE_INVALID};
    /// assert_eq!(UserprioError::Invalid("no @".into()).code(), CODE_INVALID);
    /// ```
    pub fn code(&self) -> i32 {
        match self {
            UserprioError::NotAuthorized { code, .. } => *code,
            UserprioError::Log(_) => CODE_LOG,
            _ => CODE_INVALID,
        }
    }
}

impl From<AccountantError> for UserprioError {
    fn from(e: AccountantError) -> Self {
        match e {
            AccountantError::Invalid(message) => UserprioError::Invalid(message),
            other => UserprioError::Log(other),
        }
    }
}

/// How a peer that is not an administrator may still set priority
/// factors: HTCondor's `PRIORITY_FACTOR_AUTHORIZATION` user map
/// (`NEGOTIATOR_CLASSAD_USER_MAP_NAMES` naming it, its rules in
/// `CLASSAD_USER_MAPFILE_PRIORITY_FACTOR_AUTHORIZATION`), which maps the
/// peer's identity to comma-separated prefixes of the submitter names it
/// may edit.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum FactorMap<'a> {
    /// `NEGOTIATOR_CLASSAD_USER_MAP_NAMES` is not set (error 1).
    Unset,
    /// It is set but does not name `PRIORITY_FACTOR_AUTHORIZATION` (error 2).
    NotListed,
    /// The map's rules (method `*`).
    Map(&'a MapFile),
}

/// One `condor_userprio` command, decoded.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Request {
    /// `SET_PRIORITY`: a submitter's real priority.
    SetPriority {
        /// The submitter.
        submitter: String,
        /// The real priority.
        priority: f64,
    },
    /// `SET_PRIORITYFACTOR`: a submitter's priority factor.
    SetPriorityFactor {
        /// The submitter.
        submitter: String,
        /// The factor (stored as at least 1).
        factor: f64,
    },
    /// `SET_CEILING`: most weighted resources (-1: none).
    SetCeiling {
        /// The submitter.
        submitter: String,
        /// The ceiling.
        ceiling: i32,
    },
    /// `SET_FLOOR`: weighted resources served first (0: none).
    SetFloor {
        /// The submitter.
        submitter: String,
        /// The floor.
        floor: i32,
    },
    /// `SET_ACCUMUSAGE`: the weighted accumulated usage, seconds.
    SetAccumulatedUsage {
        /// The submitter.
        submitter: String,
        /// The usage.
        usage: f64,
    },
    /// `SET_BEGINTIME`: when usage began (epoch seconds).
    SetBeginTime {
        /// The submitter.
        submitter: String,
        /// The time.
        time: i32,
    },
    /// `SET_LASTTIME`: when usage was last seen (epoch seconds).
    SetLastTime {
        /// The submitter.
        submitter: String,
        /// The time.
        time: i32,
    },
    /// `RESET_USAGE`: a submitter's accumulated usage back to zero.
    ResetUsage {
        /// The submitter.
        submitter: String,
    },
    /// `RESET_ALL_USAGE`: every record's accumulated usage back to zero.
    ResetAllUsage,
    /// `DELETE_USER`: removes a record.
    DeleteUser {
        /// The record's name.
        submitter: String,
    },
    /// `GET_PRIORITY` or (with `rollup`) `GET_PRIORITY_ROLLUP`: the
    /// priority report ([`priority_report`]).
    GetPriority {
        /// Whether groups' figures are summed up the tree.
        rollup: bool,
    },
    /// `GET_RESLIST`: a submitter's claimed slots ([`resource_list`]).
    GetResourceList {
        /// The submitter.
        submitter: String,
    },
}

impl Request {
    /// Reads command `command`'s payload as its handler does: a name for
    /// the commands that take one, then a double (`SET_PRIORITY`,
    /// `SET_PRIORITYFACTOR`, `SET_ACCUMUSAGE`) or an `int` (`SET_CEILING`,
    /// `SET_FLOOR`, `SET_BEGINTIME`, `SET_LASTTIME`), and nothing after.
    ///
    /// ```
    /// use cedar::wire::{Encoder, Message};
    /// use negotiator::userprio::Request;
    /// let mut enc = Encoder::new(false);
    /// enc.put_str("alice@site")?;
    /// enc.put_double(10.0);
    /// let message = Message { payload: enc.into_bytes(), encrypted: false };
    /// let request = Request::decode(cedar::command::SET_PRIORITYFACTOR, &message)?;
    /// let Request::SetPriorityFactor { submitter, factor } = request else { panic!("a factor") };
    /// assert_eq!(submitter, "alice@site");
    /// // CEDAR's doubles keep 31 bits of mantissa, for C++ peers too.
    /// assert!((factor - 10.0).abs() < 1e-8);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn decode(command: i32, payload: &Message) -> Result<Request, UserprioError> {
        let spec = spec_of(command).ok_or(UserprioError::UnknownCommand(command))?;
        let mut dec = Decoder::new(&payload.payload, payload.encrypted);
        let malformed = |source| UserprioError::Malformed { command: spec.name, source };
        let request = Self::read(command, &mut dec).map_err(malformed)?;
        dec.finish().map_err(malformed)?;
        Ok(request)
    }

    fn read(command: i32, dec: &mut Decoder<'_>) -> Result<Request, cedar::Error> {
        let request = match command {
            c::RESET_ALL_USAGE => Request::ResetAllUsage,
            c::GET_PRIORITY => Request::GetPriority { rollup: false },
            c::GET_PRIORITY_ROLLUP | c::GET_PRIORITY_ROLLUP_OLD => Request::GetPriority { rollup: true },
            _ => {
                let submitter = dec.get_string()?;
                match command {
                    c::RESET_USAGE => Request::ResetUsage { submitter },
                    c::DELETE_USER => Request::DeleteUser { submitter },
                    c::GET_RESLIST => Request::GetResourceList { submitter },
                    c::SET_PRIORITY => Request::SetPriority { submitter, priority: dec.get_double()? },
                    c::SET_PRIORITYFACTOR => Request::SetPriorityFactor { submitter, factor: dec.get_double()? },
                    c::SET_ACCUMUSAGE => Request::SetAccumulatedUsage { submitter, usage: dec.get_double()? },
                    c::SET_CEILING => Request::SetCeiling { submitter, ceiling: dec.get_i32()? },
                    c::SET_FLOOR => Request::SetFloor { submitter, floor: dec.get_i32()? },
                    c::SET_BEGINTIME => Request::SetBeginTime { submitter, time: dec.get_i32()? },
                    c::SET_LASTTIME => Request::SetLastTime { submitter, time: dec.get_i32()? },
                    other => {
                        return Err(cedar::Error::new(cedar::ErrorKind::Protocol, format!("command {other}")));
                    }
                }
            }
        };
        Ok(request)
    }

    /// The command number (`GET_PRIORITY_ROLLUP` for a rollup, whichever
    /// number it came with).
    ///
    /// ```
    /// use negotiator::userprio::Request;
    /// assert_eq!(Request::ResetAllUsage.command(), cedar::command::RESET_ALL_USAGE);
    /// ```
    pub fn command(&self) -> i32 {
        match self {
            Request::SetPriority { .. } => c::SET_PRIORITY,
            Request::SetPriorityFactor { .. } => c::SET_PRIORITYFACTOR,
            Request::SetCeiling { .. } => c::SET_CEILING,
            Request::SetFloor { .. } => c::SET_FLOOR,
            Request::SetAccumulatedUsage { .. } => c::SET_ACCUMUSAGE,
            Request::SetBeginTime { .. } => c::SET_BEGINTIME,
            Request::SetLastTime { .. } => c::SET_LASTTIME,
            Request::ResetUsage { .. } => c::RESET_USAGE,
            Request::ResetAllUsage => c::RESET_ALL_USAGE,
            Request::DeleteUser { .. } => c::DELETE_USER,
            Request::GetPriority { rollup: false } => c::GET_PRIORITY,
            Request::GetPriority { rollup: true } => c::GET_PRIORITY_ROLLUP,
            Request::GetResourceList { .. } => c::GET_RESLIST,
        }
    }

    /// The submitter (or record) named, if the command names one.
    ///
    /// ```
    /// use negotiator::userprio::Request;
    /// let r = Request::ResetUsage { submitter: "bob@site".into() };
    /// assert_eq!(r.submitter(), Some("bob@site"));
    /// assert_eq!(Request::ResetAllUsage.submitter(), None);
    /// ```
    pub fn submitter(&self) -> Option<&str> {
        match self {
            Request::SetPriority { submitter, .. }
            | Request::SetPriorityFactor { submitter, .. }
            | Request::SetCeiling { submitter, .. }
            | Request::SetFloor { submitter, .. }
            | Request::SetAccumulatedUsage { submitter, .. }
            | Request::SetBeginTime { submitter, .. }
            | Request::SetLastTime { submitter, .. }
            | Request::ResetUsage { submitter }
            | Request::DeleteUser { submitter }
            | Request::GetResourceList { submitter } => Some(submitter),
            Request::ResetAllUsage | Request::GetPriority { .. } => None,
        }
    }

    /// Whether the request changes the accountant (every command but the
    /// two queries).
    pub fn is_edit(&self) -> bool {
        !matches!(self, Request::GetPriority { .. } | Request::GetResourceList { .. })
    }

    /// The check `SET_PRIORITYFACTOR`'s handler makes after the command
    /// table's WRITE: an `administrator` may set any factor; anyone else
    /// needs the `PRIORITY_FACTOR_AUTHORIZATION` map to map its
    /// authenticated `user` to a prefix of the submitter's name. Every
    /// other request is already authorized by the table.
    ///
    /// ```
    /// use negotiator::userprio::{FactorMap, Request, UserprioError};
    /// let r = Request::SetPriorityFactor { submitter: "alice@site".into(), factor: 2.0 };
    /// assert!(r.authorize(true, None, &FactorMap::Unset).is_ok());
    /// let Err(UserprioError::NotAuthorized { code, .. }) = r.authorize(false, Some("bob@site"), &FactorMap::Unset) else {
    ///     panic!("refused");
    /// };
    /// assert_eq!(code, 1);
    ///
    /// let map = cedar::authz::MapFile::parse("* bob@site alice@,carol@\n", &Default::default())?;
    /// assert!(r.authorize(false, Some("bob@site"), &FactorMap::Map(&map)).is_ok());
    /// assert!(r.authorize(false, Some("eve@site"), &FactorMap::Map(&map)).is_err());
    /// # Ok::<(), cedar::Error>(())
    /// ```
    pub fn authorize(&self, administrator: bool, user: Option<&str>, map: &FactorMap<'_>) -> Result<(), UserprioError> {
        let Request::SetPriorityFactor { submitter, .. } = self else {
            return Ok(());
        };
        if administrator {
            return Ok(());
        }
        let refuse = |code: i32, message: String| Err(UserprioError::NotAuthorized { code, message });
        let rules = match map {
            FactorMap::Unset => {
                return refuse(
                    1,
                    "Not an administrator and authorization maps (NEGOTIATOR_CLASSAD_USER_MAP_NAMES) is not set."
                        .into(),
                )
            }
            FactorMap::NotListed => {
                return refuse(
                    2,
                    "Not an administrator and PRIORITY_FACTOR_AUTHORIZATION not a configured map file.".into(),
                )
            }
            FactorMap::Map(rules) => rules,
        };
        let Some(user) = user.filter(|u| *u != cedar::handshake::UNAUTHENTICATED_USER) else {
            return refuse(3, "Not an administrator and client is not authenticated.".into());
        };
        let prefixes = rules.canonicalize("*", user).unwrap_or_default();
        if prefixes.split(',').map(str::trim).any(|p| !p.is_empty() && submitter.starts_with(p)) {
            return Ok(());
        }
        refuse(4, format!("Client {user} requested to set the priority factor of {submitter} but is not authorized."))
    }

    /// What the negotiator answers a request refused with `error`: the
    /// status ad for `SET_PRIORITYFACTOR`, nothing for the others.
    ///
    /// ```
    /// use negotiator::userprio::{Reply, Request, UserprioError};
    /// let r = Request::SetPriorityFactor { submitter: "alice@site".into(), factor: 2.0 };
    /// let e = UserprioError::NotAuthorized { code: 4, message: "no".into() };
    /// assert_eq!(r.refusal(&e), Reply::Status { code: 4, message: Some("no".into()) });
    /// assert_eq!(Request::ResetAllUsage.refusal(&e), Reply::Nothing);
    /// ```
    pub fn refusal(&self, error: &UserprioError) -> Reply {
        match self {
            Request::SetPriorityFactor { .. } => Reply::Status { code: error.code(), message: Some(error.to_string()) },
            _ => Reply::Nothing,
        }
    }

    /// Runs the request on `accountant` at time `now` (epoch seconds, for
    /// the resets' new `BeginUsageTime`), logging what it does as
    /// HTCondor's handlers do; a refusal is logged and answered with
    /// [`refusal`](Self::refusal). See [`try_apply`](Self::try_apply).
    ///
    /// ```
    /// use matchmaker::accountant::{Accountant, AccountantConfig};
    /// use negotiator::userprio::{Reply, Request};
    /// let mut acct = Accountant::new(AccountantConfig::default());
    /// let set = Request::SetPriority { submitter: "alice@site".into(), priority: 7.5 };
    /// assert_eq!(set.apply(&mut acct, 1_700_000_000), Reply::Nothing);
    /// assert_eq!(acct.real_priority("alice@site"), 7.5);
    /// let bad = Request::SetPriority { submitter: "alice".into(), priority: 7.5 };
    /// assert_eq!(bad.apply(&mut acct, 1_700_000_000), Reply::Nothing); // refused, logged
    /// assert!(acct.customer("alice").is_none());
    /// ```
    pub fn apply(&self, accountant: &mut Accountant, now: i64) -> Reply {
        match self.try_apply(accountant, now) {
            Ok(reply) => reply,
            Err(error) => {
                tracing::warn!("{} refused: {error}", self.name());
                self.refusal(&error)
            }
        }
    }

    /// Runs the request on `accountant` at time `now`: the edit (a
    /// [`Reply::Status`] of success for `SET_PRIORITYFACTOR`, else
    /// [`Reply::Nothing`]), or the report ([`Reply::Ad`]).
    ///
    /// ```
    /// use matchmaker::accountant::{Accountant, AccountantConfig};
    /// use negotiator::userprio::{Reply, Request, UserprioError};
    /// let mut acct = Accountant::new(AccountantConfig::default());
    /// let r = Request::SetPriorityFactor { submitter: "alice@site".into(), factor: 0.25 };
    /// assert_eq!(r.try_apply(&mut acct, 0)?, Reply::Status { code: 0, message: None });
    /// assert_eq!(acct.priority_factor("alice@site"), 1.0); // at least 1, as HTCondor stores it
    /// let r = Request::SetAccumulatedUsage { submitter: "alice@site".into(), usage: -1.0 };
    /// assert!(matches!(r.try_apply(&mut acct, 0), Err(UserprioError::Invalid(_))));
    /// # Ok::<(), UserprioError>(())
    /// ```
    pub fn try_apply(&self, accountant: &mut Accountant, now: i64) -> Result<Reply, UserprioError> {
        let finite = |what: &str, v: f64| {
            if v.is_finite() {
                Ok(v)
            } else {
                Err(UserprioError::Invalid(format!("the {what} must be a finite number, not {v}")))
            }
        };
        match self {
            Request::SetPriority { submitter, priority } => {
                tracing::info!("Setting the priority of {submitter} to {priority:.6}");
                accountant.set_priority(submitter, finite("priority", *priority)?)?;
            }
            Request::SetPriorityFactor { submitter, factor } => {
                let factor = finite("priority factor", *factor)?;
                let stored = if factor < matchmaker::accountant::MIN_PRIORITY_FACTOR {
                    tracing::warn!("Error: invalid priority factor: {factor:.6}, using 1.000000");
                    matchmaker::accountant::MIN_PRIORITY_FACTOR
                } else {
                    factor
                };
                tracing::info!("Setting the priority factor of {submitter} to {stored:.6}");
                accountant.set_priority_factor(submitter, stored)?;
                return Ok(Reply::Status { code: 0, message: None });
            }
            Request::SetCeiling { submitter, ceiling } => {
                tracing::info!("Setting the ceiling of {submitter} to {ceiling}");
                accountant.set_ceiling(submitter, i64::from(*ceiling).max(-1))?;
            }
            Request::SetFloor { submitter, floor } => {
                tracing::info!("Setting the floor of {submitter} to {floor}");
                accountant.set_floor(submitter, i64::from(*floor).max(0))?;
            }
            Request::SetAccumulatedUsage { submitter, usage } => {
                tracing::info!("Setting the accumulated usage of {submitter} to {usage:.6}");
                accountant.set_accumulated_usage(submitter, finite("usage", *usage)?)?;
            }
            Request::SetBeginTime { submitter, time } => {
                tracing::info!("Setting the begin usage time of {submitter} to {time}");
                accountant.set_begin_time(submitter, i64::from(*time))?;
            }
            Request::SetLastTime { submitter, time } => {
                tracing::info!("Setting the last usage time of {submitter} to {time}");
                accountant.set_last_time(submitter, i64::from(*time))?;
            }
            Request::ResetUsage { submitter } => {
                tracing::info!("Resetting the usage of {submitter}");
                accountant.reset_usage(submitter, now)?;
            }
            Request::ResetAllUsage => {
                tracing::info!("Resetting the usage of all users");
                accountant.reset_all_usage(now)?;
            }
            Request::DeleteUser { submitter } => {
                tracing::info!("Deleting accountanting record of {submitter}");
                accountant.delete_record(submitter)?;
            }
            Request::GetPriority { rollup } => {
                tracing::info!("Getting state information from the accountant");
                return Ok(Reply::Ad(priority_report(accountant, *rollup)));
            }
            Request::GetResourceList { submitter } => {
                tracing::info!("Getting resource list of {submitter}");
                return Ok(Reply::Ad(resource_list(accountant, submitter)));
            }
        }
        Ok(Reply::Nothing)
    }

    fn name(&self) -> &'static str {
        spec_of(self.command()).map_or("a condor_userprio command", |s| s.name)
    }
}

/// What the negotiator sends back.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Reply {
    /// Nothing: the edits other than `SET_PRIORITYFACTOR`.
    Nothing,
    /// One ad, without the trailing type strings (`PUT_CLASSAD_NO_TYPES`):
    /// the queries.
    Ad(ClassAd),
    /// `SET_PRIORITYFACTOR`'s status ad (`ErrorCode`, and `ErrorString`
    /// on failure), sent only to peers of 8.9.9 or later, which read it.
    Status {
        /// `ErrorCode`: 0 for success.
        code: i32,
        /// `ErrorString`, on failure.
        message: Option<String>,
    },
}

impl Reply {
    /// The status ad of a [`Reply::Status`].
    ///
    /// ```
    /// use negotiator::userprio::Reply;
    /// let ad = Reply::Status { code: 4, message: Some("no".into()) }.status_ad().expect("a status");
    /// assert_eq!(ad.lookup_integer("ErrorCode"), Some(4));
    /// assert_eq!(ad.lookup_string("ErrorString").as_deref(), Some("no"));
    /// ```
    pub fn status_ad(&self) -> Option<ClassAd> {
        let Reply::Status { code, message } = self else {
            return None;
        };
        let mut ad = ClassAd::with_capacity(2);
        ad.insert("ErrorCode", i64::from(*code));
        if let Some(message) = message {
            ad.insert("ErrorString", message.as_str());
        }
        Some(ad)
    }

    /// Writes the reply message for a peer of `peer_version` into `enc`
    /// (from the connection's `encoder()`); returns whether there is one
    /// to send. A status goes only to a peer known to be 8.9.9 or later,
    /// as in HTCondor (a raw command has no known version).
    ///
    /// ```
    /// use cedar::version::Version;
    /// use cedar::wire::Encoder;
    /// use negotiator::userprio::Reply;
    /// let status = Reply::Status { code: 0, message: None };
    /// let mut enc = Encoder::new(false);
    /// assert!(!status.encode(&mut enc, None)?);
    /// assert!(!status.encode(&mut enc, Some(&Version::new(8, 9, 8, "")))?);
    /// assert!(enc.is_empty());
    /// assert!(status.encode(&mut enc, Some(&Version::new(23, 10, 29, "")))?);
    /// assert!(!enc.is_empty());
    /// # Ok::<(), cedar::Error>(())
    /// ```
    pub fn encode(&self, enc: &mut Encoder, peer_version: Option<&Version>) -> Result<bool, cedar::Error> {
        match self {
            Reply::Nothing => Ok(false),
            Reply::Ad(ad) => {
                put_classad(enc, ad, &PutOptions::new().no_types(true).peer_version(peer_version.cloned()))?;
                Ok(true)
            }
            Reply::Status { .. } => {
                if !peer_version.is_some_and(|v| v.built_since(8, 9, 9)) {
                    return Ok(false);
                }
                let ad = self.status_ad().unwrap_or_default();
                put_classad(enc, &ad, &PutOptions::new().peer_version(peer_version.cloned()))?;
                Ok(true)
            }
        }
    }
}

/// The priority report (`GET_PRIORITY`, or `GET_PRIORITY_ROLLUP` with
/// `rollup`) of the accountant's own rows
/// ([`Accountant::priority_rows`]); see [`priority_report_of`].
///
/// ```
/// use matchmaker::accountant::{Accountant, AccountantConfig, PriorityRow};
/// let mut acct = Accountant::new(AccountantConfig::default());
/// acct.set_priority("alice@site", 2.0)?;
/// let ad = negotiator::userprio::priority_report(&acct, false);
/// let (rows, _) = PriorityRow::from_userprio_ad(&ad);
/// assert_eq!(rows[0].name, "alice@site");
/// assert_eq!(rows[0].effective_priority, 2000.0); // RUP × DEFAULT_PRIO_FACTOR
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn priority_report(accountant: &Accountant, rollup: bool) -> ClassAd {
    priority_report_of(accountant, &accountant.priority_rows(), rollup)
}

/// The priority report of `rows` (the accountant's, or those after a
/// cycle with its group quotas, [`Accountant::priority_rows_after_cycle`]),
/// as `Accountant::ReportState` builds it: the matchmaker's userprio ad in
/// its report form ([`matchmaker::userprio_ad::Form::Report`], which says
/// how the records are numbered and what they hold), updated at the
/// accountant's last update.
///
/// With `rollup`, a group's `Priority` is 0, its `PriorityFactor` is its
/// record's, and its usage figures include its subgroups' (sums; the
/// earliest begin and the latest last usage time).
///
/// ```
/// use matchmaker::accountant::{Accountant, AccountantConfig};
/// let acct = Accountant::new(AccountantConfig::default());
/// let ad = negotiator::userprio::priority_report_of(&acct, &acct.priority_rows(), true);
/// assert_eq!(ad.lookup_integer("NumSubmittors"), Some(1)); // `<none>`'s number, even without its record
/// assert_eq!(ad.lookup_integer("LastUpdate"), Some(0));
/// ```
pub fn priority_report_of(accountant: &Accountant, rows: &[PriorityRow], rollup: bool) -> ClassAd {
    let form = matchmaker::userprio_ad::Form::Report { accountant, rollup };
    matchmaker::userprio_ad::write(rows, accountant.last_update(), form)
}

/// The resource list (`GET_RESLIST`) of `submitter`: `Name<n>` (the
/// claimed slot's record name, `<slot>@<startd address>`) and
/// `StartTime<n>` for each slot charged to it, numbered from 1. A group
/// name (no `@`) gets an empty ad, as from HTCondor.
///
/// ```
/// use matchmaker::accountant::{Accountant, AccountantConfig};
/// let mut acct = Accountant::new(AccountantConfig::default());
/// let slot: classad::ClassAd = r#"[ Name = "slot1@node"; StartdIpAddr = "<10.0.0.1:9618>";
///     State = "Claimed"; RemoteUser = "alice@site" ]"#.parse()?;
/// acct.check_matches(100, &[slot])?;
/// let ad = negotiator::userprio::resource_list(&acct, "alice@site");
/// assert_eq!(ad.lookup_string("Name1").as_deref(), Some("slot1@node@<10.0.0.1:9618>"));
/// assert_eq!(ad.lookup_integer("StartTime1"), Some(100));
/// assert!(negotiator::userprio::resource_list(&acct, "bob@site").is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn resource_list(accountant: &Accountant, submitter: &str) -> ClassAd {
    let mut ad = ClassAd::new();
    if GroupTree::is_group_name(submitter) {
        return ad;
    }
    let mine = accountant.resources().iter().filter(|r| r.remote_user.as_deref() == Some(submitter));
    for (i, r) in mine.enumerate() {
        let n = i + 1;
        ad.insert(format!("Name{n}").as_str(), r.name.as_str());
        ad.insert(format!("StartTime{n}").as_str(), r.start_time.unwrap_or(0));
    }
    ad
}
