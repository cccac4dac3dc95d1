//! A tiny in-memory collector, a test fixture for the `cedar` crate (not
//! the collector daemon): it answers the collector's queries, takes updates
//! and invalidations, and speaks the handshake: mode M0 (plaintext) by
//! default, or the security its configuration knobs ask for (`--secure`:
//! `SEC_*` policies, CLAIMTOBE, IDTOKENS with the keys of
//! `SEC_TOKEN_POOL_SIGNING_KEY_FILE`/`SEC_PASSWORD_DIRECTORY`,
//! `TRUST_DOMAIN`, `SEC_TOKEN_MAX_AGE` and `SEC_TOKEN_REVOCATION_EXPR`,
//! AES-GCM). `ALLOW_*`/`DENY_*` knobs authorize every
//! command (each `ALLOW_<LEVEL>` not given is `*`). Stored ads get
//! `AuthenticatedIdentity` and `AuthenticationMethod` when the update was
//! authenticated, as the C++ collector adds them.
//!
//! Run it with `cargo run -p cedar --example test_collector -- [PORT]
//! [--secure] [--config KNOB=VALUE]...`; it prints `listening on
//! <ip:port>` and serves until killed. `CEDAR_FIXTURE_DEBUG=1` logs each command and query ad to
//! stderr; `CEDAR_FIXTURE_PACKET=N` makes it send packets of at most N
//! bytes. The integration tests include this file as a module.
//!
//! One test hook: `INVALIDATE_ADS_GENERIC` with `TargetType =
//! "ForgetSessions"` drops every cached session, as a restart would.

#![allow(dead_code)]

use std::net::{SocketAddr, TcpListener};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use cedar::authz::{collector_command, Authorizer, AuthzConfig, IdentityConfig, Permission};
use cedar::blocking::ServerSession;
use cedar::command::*;
use cedar::handshake::{CommandRequest, CommandTable, ServerConfig, ServerPolicies, TokenConfig};
use cedar::token::key::{FileCheck, KeyStore};
use cedar::wire::ad::{get_classad, put_classad, AdLimits, PutOptions};
use cedar::wire::Decoder;
use classad::{ClassAd, EvalContext, EvalOptions, Semantics, Value};

/// How the fixture behaves.
#[derive(Debug, Clone, Default)]
pub struct FixtureOptions {
    /// Configuration knobs (`SEC_*`, `ALLOW_*`, `DENY_*`, `TRUST_DOMAIN`,
    /// token key files, `UID_DOMAIN`, `SEC_CLAIMTOBE_INCLUDE_DOMAIN`,
    /// `FS_LOCAL_DIR`).
    pub config: Vec<(String, String)>,
    /// Take the security policy from `config` (as a daemon reads its
    /// `SEC_*` knobs, defaults included); without it, mode M0 (NEVER).
    pub secure: bool,
    /// Send packets of at most this many bytes (as `CEDAR_FIXTURE_PACKET`).
    pub max_packet: Option<usize>,
}

impl FixtureOptions {
    /// A configured fixture with these knobs.
    pub fn secure(config: &[(&str, &str)]) -> FixtureOptions {
        FixtureOptions {
            config: config.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            secure: true,
            max_packet: None,
        }
    }

    /// The knob `name`: from `config`, else `*` for `ALLOW_<LEVEL>`.
    pub fn lookup(&self, name: &str) -> Option<String> {
        if let Some((_, v)) = self.config.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)) {
            return Some(v.clone());
        }
        let level = name.strip_prefix("ALLOW_")?;
        Permission::from_name(level).map(|_| "*".to_string())
    }

    /// The server configuration these options describe.
    pub fn server_config(&self) -> cedar::error::Result<ServerConfig> {
        let lookup = |k: &str| self.lookup(k);
        let authorizer = Authorizer::from_config(&lookup, &AuthzConfig::default())?;
        let mut config = ServerConfig::new(commands()).authorizer(authorizer).hostname("127.0.0.1");
        if self.secure {
            config = config.policies(ServerPolicies::from_config("COLLECTOR", &lookup)?);
        }
        let mut identity = IdentityConfig::default();
        identity.uid_domain = lookup("UID_DOMAIN");
        identity.claimtobe_include_domain =
            lookup("SEC_CLAIMTOBE_INCLUDE_DOMAIN").is_some_and(|v| v.to_ascii_lowercase().starts_with('t'));
        config = config.identity(identity);
        if let Some(dir) = lookup("FS_LOCAL_DIR") {
            config = config.fs_local_dir(dir);
        }
        let pool = lookup("SEC_TOKEN_POOL_SIGNING_KEY_FILE").map(std::path::PathBuf::from);
        let dir = lookup("SEC_PASSWORD_DIRECTORY").map(std::path::PathBuf::from);
        if pool.is_some() || dir.is_some() {
            let keys = KeyStore::new(pool, dir, FileCheck::none());
            let trust_domain = lookup("TRUST_DOMAIN").unwrap_or_default();
            let mut tokens = TokenConfig::new(keys);
            tokens.max_age =
                cedar::token::jwt::max_age_from_param(lookup("SEC_TOKEN_MAX_AGE").and_then(|v| v.trim().parse().ok()));
            if let Some(expr) = lookup("SEC_TOKEN_REVOCATION_EXPR") {
                tokens.revocation = Some(cedar::token::revocation::RevocationExpr::parse(&expr)?);
            }
            config = config.tokens(tokens, trust_domain);
        }
        Ok(config)
    }
}

/// The ads the fixture holds.
pub type Store = Arc<Mutex<Vec<ClassAd>>>;

/// The command table of the fixture: the commands it handles, at the
/// levels the C++ collector registers them with
/// ([`cedar::authz::COLLECTOR_COMMANDS`]), and daemon core's `DC_NOP`s.
pub fn commands() -> CommandTable {
    let mut t = CommandTable::new();
    for c in [
        QUERY_STARTD_ADS,
        QUERY_SCHEDD_ADS,
        QUERY_MASTER_ADS,
        QUERY_SUBMITTOR_ADS,
        QUERY_COLLECTOR_ADS,
        QUERY_ANY_ADS,
        QUERY_NEGOTIATOR_ADS,
        QUERY_MULTIPLE_ADS,
        QUERY_GENERIC_ADS,
        UPDATE_STARTD_AD,
        UPDATE_STARTD_AD_WITH_ACK,
        INVALIDATE_STARTD_ADS,
        UPDATE_SCHEDD_AD,
        UPDATE_SUBMITTOR_AD,
        INVALIDATE_SCHEDD_ADS,
        INVALIDATE_SUBMITTOR_ADS,
        UPDATE_MASTER_AD,
        INVALIDATE_MASTER_ADS,
        UPDATE_NEGOTIATOR_AD,
        INVALIDATE_NEGOTIATOR_ADS,
        UPDATE_AD_GENERIC,
        INVALIDATE_ADS_GENERIC,
    ] {
        if let Some(r) = u32::try_from(c).ok().and_then(collector_command) {
            t = t.register_with_alternates(c, r.perm, r.alternates);
        }
    }
    t.register(DC_NOP, Permission::Allow)
        .register(DC_NOP_READ, Permission::Read)
        .register(DC_NOP_WRITE, Permission::Write)
        .register(DC_NOP_NEGOTIATOR, Permission::Negotiator)
        .register(DC_NOP_ADMINISTRATOR, Permission::Administrator)
        .register(DC_NOP_CONFIG, Permission::Config)
        .register(DC_NOP_DAEMON, Permission::Daemon)
        .register(DC_NOP_ADVERTISE_STARTD, Permission::AdvertiseStartd)
        .register(DC_NOP_ADVERTISE_SCHEDD, Permission::AdvertiseSchedd)
        .register(DC_NOP_ADVERTISE_MASTER, Permission::AdvertiseMaster)
}

/// Starts the fixture on `addr` (port 0 picks one); returns the address it
/// listens on and its store. It serves on background threads until the
/// process ends.
pub fn spawn(addr: &str, options: FixtureOptions) -> std::io::Result<(SocketAddr, Store)> {
    let listener = TcpListener::bind(addr)?;
    let local = listener.local_addr()?;
    let store: Store = Arc::new(Mutex::new(vec![self_ad(local)]));
    let config = Arc::new(
        options.server_config().map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e.to_string()))?,
    );
    let served = store.clone();
    let max_packet =
        options.max_packet.or_else(|| std::env::var("CEDAR_FIXTURE_PACKET").ok().and_then(|n| n.parse().ok()));
    // One connection at a time, as the C++ collector's single thread: an
    // update's connection is over before the next query is read, so a
    // client that advertises then queries sees its ads.
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            if let Err(e) = serve(stream, config.clone(), served.clone(), max_packet) {
                eprintln!("test_collector: connection ended: {e}");
            }
        }
    });
    Ok((local, store))
}

/// The collector's own ad.
pub fn self_ad(addr: SocketAddr) -> ClassAd {
    let mut ad = ClassAd::new();
    let sinful = format!("<{addr}?noUDP>");
    ad.insert("MyType", "Collector");
    ad.insert("Name", "test_collector@127.0.0.1");
    ad.insert("Machine", "127.0.0.1");
    ad.insert("MyAddress", sinful.as_str());
    ad.insert("CollectorIpAddr", sinful.as_str());
    ad.insert("CondorVersion", cedar::version::OUR_VERSION);
    ad
}

fn serve(
    stream: std::net::TcpStream,
    config: Arc<ServerConfig>,
    store: Store,
    max_packet: Option<usize>,
) -> cedar::error::Result<()> {
    let sessions = config.sessions.clone();
    let mut session = ServerSession::new(stream, config, Duration::from_secs(20))?;
    if let Some(n) = max_packet {
        session.connection().set_max_packet(n);
    }
    let debug = std::env::var_os("CEDAR_FIXTURE_DEBUG").is_some();
    while let Some(request) = session.next_command()? {
        if debug {
            eprintln!(
                "test_collector: command {} via {:?} as {:?} ({:?})",
                request.command, request.via, request.user, request.method
            );
        }
        if handle(&mut session, &request, &store)? == Hook::ForgetSessions {
            // A test hook: as if the collector restarted.
            if let Ok(mut cache) = sessions.lock() {
                *cache = cedar::handshake::SessionCache::default();
            }
        }
    }
    if debug {
        eprintln!("test_collector: closed: {:?}", session.close_reason());
    }
    Ok(())
}

fn lookup_string(ad: &ClassAd, name: &str) -> Option<String> {
    let expr = ad.lookup(name)?;
    match EvalContext::new(&EvalOptions::new()).my(ad).eval(expr) {
        Value::Str(s) => Some(s.as_str().to_owned()),
        _ => None,
    }
}

fn now() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}

/// The MyType values a query command selects (`None`: any).
fn query_types(command: i32, query: &ClassAd) -> Option<Vec<String>> {
    let target = lookup_string(query, "TargetType");
    let fixed = |t: &str| Some(vec![t.to_owned()]);
    match command {
        QUERY_STARTD_ADS => match target.as_deref() {
            Some(t) if t.eq_ignore_ascii_case("StartD") => fixed("StartD"),
            _ => fixed("Machine"),
        },
        QUERY_SCHEDD_ADS => fixed("Scheduler"),
        QUERY_MASTER_ADS => fixed("Master"),
        QUERY_SUBMITTOR_ADS => fixed("Submitter"),
        QUERY_COLLECTOR_ADS => fixed("Collector"),
        QUERY_NEGOTIATOR_ADS => fixed("Negotiator"),
        QUERY_MULTIPLE_ADS | QUERY_GENERIC_ADS => {
            target.map(|t| t.split([',', ' ']).filter(|s| !s.is_empty()).map(str::to_owned).collect())
        }
        _ => None,
    }
}

/// The projection of a query for `ad`: a string list, or an expression
/// evaluated with the query as MY and the ad as TARGET (collector.cpp 1183).
fn projection(query: &ClassAd, ad: &ClassAd, prefix: &str) -> Option<Vec<String>> {
    let expr = query.lookup(format!("{prefix}Projection").as_str())?;
    let opts = EvalOptions::new().semantics(Semantics::Old);
    let value = EvalContext::new(&opts).my(query).target(ad).eval(expr);
    let Value::Str(s) = value else { return None };
    let names: Vec<String> = s.split([',', ' ', '\t', '\n']).filter(|n| !n.is_empty()).map(str::to_owned).collect();
    (!names.is_empty()).then_some(names)
}

fn matches(query: &ClassAd, ad: &ClassAd, prefix: &str) -> bool {
    let opts = EvalOptions::new().semantics(Semantics::Old);
    let name = format!("{prefix}Requirements");
    match query.lookup(name.as_str()) {
        None => true,
        // As the C++ collector: the ad is MY, and there is no TARGET
        // (`EvalExprToBool(filter, ad, NULL)`, collector.cpp 1757).
        Some(expr) => EvalContext::new(&opts).my(ad).is_true(expr),
    }
}

/// What a command asks of the fixture beyond its reply.
#[derive(Debug, PartialEq, Eq)]
pub enum Hook {
    /// Nothing.
    None,
    /// `INVALIDATE_ADS_GENERIC` with `TargetType = "ForgetSessions"`: drop
    /// every cached session, as a restarted collector would have none.
    ForgetSessions,
}

fn handle(session: &mut ServerSession, request: &CommandRequest, store: &Store) -> cedar::error::Result<Hook> {
    let message = session.read_payload(request)?;
    let encrypted = session.connection().encoder().is_encrypted();
    let (replies, hook) = respond(request, &message, encrypted, store)?;
    for reply in replies {
        session.connection().send(&reply)?;
    }
    Ok(hook)
}

/// The fixture's answer to one command, whatever adapter carries it: the
/// reply messages to send (encoded for a stream whose writing half is
/// `encrypted` or not) and what the command asks beyond them.
pub fn respond(
    request: &CommandRequest,
    message: &cedar::wire::Message,
    encrypted: bool,
    store: &Store,
) -> cedar::error::Result<(Vec<Vec<u8>>, Hook)> {
    let mut dec = Decoder::new(&message.payload, message.encrypted);
    let limits = AdLimits::default();
    let command = request.command;
    if cedar::command::is_query(command) {
        let query = get_classad(&mut dec, &limits)?;
        dec.finish()?;
        if std::env::var_os("CEDAR_FIXTURE_DEBUG").is_some() {
            eprintln!(
                "test_collector: command {command} via {:?}: {}",
                request.via,
                query.display(classad::Syntax::Old)
            );
        }
        let types = query_types(command, &query);
        let limit = query
            .lookup("LimitResults")
            .and_then(|e| e.as_literal().cloned())
            .and_then(|l| match l {
                classad::Literal::Int(i) if i > 0 => Some(i as usize),
                _ => None,
            })
            .unwrap_or(usize::MAX);
        let ads = store.lock().map(|s| s.clone()).unwrap_or_default();
        let mut enc = cedar::wire::Encoder::new(encrypted);
        let mut sent = 0;
        for ad in &ads {
            if sent >= limit {
                break;
            }
            let my_type = lookup_string(ad, "MyType").unwrap_or_default();
            let prefix = match &types {
                Some(list) => match list.iter().find(|t| t.eq_ignore_ascii_case(&my_type)) {
                    Some(t) if command == QUERY_MULTIPLE_ADS => t.clone(),
                    Some(_) => String::new(),
                    None => continue,
                },
                None => String::new(),
            };
            let own =
                if query.lookup(format!("{prefix}Requirements").as_str()).is_some() { prefix } else { String::new() };
            if !matches(&query, ad, &own) {
                continue;
            }
            let opts = PutOptions::new()
                .exclude_private(true)
                .peer_version(request.peer_version.clone())
                .projection(projection(&query, ad, &own).or_else(|| projection(&query, ad, "")));
            enc.put_int(1);
            put_classad(&mut enc, ad, &opts)?;
            sent += 1;
        }
        enc.put_int(0);
        return Ok((vec![enc.into_bytes()], Hook::None));
    }
    match command {
        UPDATE_STARTD_AD
        | UPDATE_SCHEDD_AD
        | UPDATE_MASTER_AD
        | UPDATE_SUBMITTOR_AD
        | UPDATE_NEGOTIATOR_AD
        | UPDATE_AD_GENERIC
        | UPDATE_STARTD_AD_WITH_ACK => {
            let mut ad = get_classad(&mut dec, &limits)?;
            if command == UPDATE_STARTD_AD && !dec.is_empty() {
                // The private ad; the fixture keeps only the public one.
                get_classad(&mut dec, &limits)?;
            }
            dec.finish()?;
            if ad.lookup("LastHeardFrom").is_none() {
                ad.insert("LastHeardFrom", now());
            }
            match (&request.user, &request.method) {
                (Some(user), Some(method)) => {
                    ad.insert("AuthenticatedIdentity", user.as_str());
                    ad.insert("AuthenticationMethod", method.as_str());
                }
                _ => {
                    ad.remove("AuthenticatedIdentity");
                    ad.remove("AuthenticationMethod");
                }
            }
            let key =
                (lookup_string(&ad, "MyType").unwrap_or_default(), lookup_string(&ad, "Name").unwrap_or_default());
            if let Ok(mut ads) = store.lock() {
                ads.retain(|a| {
                    let k =
                        (lookup_string(a, "MyType").unwrap_or_default(), lookup_string(a, "Name").unwrap_or_default());
                    !(k.0.eq_ignore_ascii_case(&key.0) && k.1.eq_ignore_ascii_case(&key.1))
                });
                ads.push(ad);
            }
            if command == UPDATE_STARTD_AD_WITH_ACK {
                let mut enc = cedar::wire::Encoder::new(encrypted);
                enc.put_int(1);
                return Ok((vec![enc.into_bytes()], Hook::None));
            }
            Ok((Vec::new(), Hook::None))
        }
        INVALIDATE_STARTD_ADS
        | INVALIDATE_SCHEDD_ADS
        | INVALIDATE_MASTER_ADS
        | INVALIDATE_SUBMITTOR_ADS
        | INVALIDATE_NEGOTIATOR_ADS
        | INVALIDATE_ADS_GENERIC => {
            let query = get_classad(&mut dec, &limits)?;
            dec.finish()?;
            if command == INVALIDATE_ADS_GENERIC
                && lookup_string(&query, "TargetType").as_deref() == Some("ForgetSessions")
            {
                return Ok((Vec::new(), Hook::ForgetSessions));
            }
            let my_type = match command {
                INVALIDATE_STARTD_ADS => Some("Machine".to_owned()),
                INVALIDATE_SCHEDD_ADS => Some("Scheduler".to_owned()),
                INVALIDATE_MASTER_ADS => Some("Master".to_owned()),
                INVALIDATE_SUBMITTOR_ADS => Some("Submitter".to_owned()),
                INVALIDATE_NEGOTIATOR_ADS => Some("Negotiator".to_owned()),
                _ => lookup_string(&query, "TargetType"),
            };
            if let Ok(mut ads) = store.lock() {
                ads.retain(|a| {
                    let t = lookup_string(a, "MyType").unwrap_or_default();
                    let typed = my_type.as_ref().is_none_or(|m| m.eq_ignore_ascii_case(&t));
                    !(typed && matches(&query, a, ""))
                });
            }
            Ok((Vec::new(), Hook::None))
        }
        _ => Ok((Vec::new(), Hook::None)),
    }
}

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let mut port = "0".to_owned();
    let mut options = FixtureOptions::default();
    while let Some(arg) = args.next() {
        if arg == "--secure" {
            options.secure = true;
        } else if arg == "--config" {
            if let Some((k, v)) = args.next().as_deref().and_then(|kv| kv.split_once('=')) {
                options.config.push((k.trim().to_string(), v.trim().to_string()));
            }
        } else {
            port = arg;
        }
    }
    let (addr, _store) = spawn(&format!("127.0.0.1:{port}"), options)?;
    println!("listening on {addr}");
    loop {
        std::thread::sleep(Duration::from_secs(3600));
    }
}
