//! `classad-negotiator`: the negotiator daemon, a drop-in for HTCondor's
//! `condor_negotiator` (subsystem `NEGOTIATOR`).
//!
//! Under `condor_master`: `NEGOTIATOR = /path/to/classad-negotiator`; the
//! master starts, watches and stops it. Alone: `classad-negotiator -f -t
//! [-p PORT]` with `CONDOR_CONFIG` set.
//!
//! Every NEGOTIATOR_INTERVAL (60 s), and at once on `RESCHEDULE`, but no
//! sooner than NEGOTIATOR_MIN_INTERVAL (5 s) after the last cycle started
//! nor than NEGOTIATOR_CYCLE_DELAY (20 s) after it ended (or after the
//! start), as condor_negotiator, it fetches the pool from
//! the first collector of `COLLECTOR_HOST` that answers, negotiates with the schedds
//! (see the `negotiator` crate), and sends its ad and the accounting ads
//! to every collector (also every NEGOTIATOR_UPDATE_INTERVAL). The
//! accountant lives in `$(SPOOL)/Accountantnew.log`.
//!
//! It reads the matchmaker's knobs (`NEGOTIATOR_*`, `PRIORITY_HALFLIFE`,
//! `GROUP_*`, `*_LIMIT`, ...), NEGOTIATOR_TIMEOUT (30 s, for each message
//! to a schedd or collector), NEGOTIATOR_RESOURCE_REQUEST_LIST_SIZE,
//! NEGOTIATOR_NAME, the `SEC_*`, `ALLOW_*` and `DENY_*` knobs,
//! `NEGOTIATOR_LOG` and NEGOTIATOR_MATCH_LOG (the `Matched` and `Rejected`
//! lines, `$(LOG)/MatchLog`). A reconfig applies the matchmaker's and the
//! accountant's knobs.
//!
//! It serves `condor_userprio` (the `negotiator::userprio` commands, on
//! the accountant the cycles use: an edit waits for a running cycle) and
//! `condor_reschedule`. With `NEGOTIATOR_HTTP_ADDRESS = host:port` it
//! also serves the HTTP/JSON API and `/metrics` (`negotiator::http`: the
//! last cycle, the priorities, Prometheus metrics). Run as root, it gives the files it writes to the
//! condor user (`daemons::owner`), so condor_negotiator can take over its
//! `Accountantnew.log`.

use std::path::Path;
use std::process::ExitCode;
use std::sync::mpsc as std_mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cedar::authz::{MapFile, MapFileOptions, Permission};
use cedar::client::collector::Update;
use cedar::client::{Client, CollectorClient, Query};
use cedar::command as c;
use cedar::handshake::{CommandTable, ServerConfig};
use cedar::token::key::FileCheck;
use cedar::tokio::{Command, Handler, Server};
use daemons::commands::{register, DcCommands};
use daemons::config::DaemonConfig;
use daemons::{Context, Control};
use matchmaker::accountant::{Accountant, AccountantConfig};
use matchmaker::negotiator::Negotiator;
use negotiator::cycle::{CycleError, CycleSettings, LiveNegotiator};
use negotiator::publish::{accounting_ads, negotiator_ad, CycleFigures, History, Identity};
use negotiator::status::CycleStatus;
use negotiator::userprio::{self, FactorMap, Request};

/// What the cycle thread is asked to do.
enum Ask {
    Reschedule,
    /// The accounting ads again (after a userprio edit).
    Publish,
    Reconfig(Arc<DaemonConfig>),
    Stop,
}

/// Daemon core's commands first, then the negotiator's.
struct NegotiatorDaemon {
    dc: DcCommands,
    asks: Mutex<std_mpsc::Sender<Ask>>,
    /// The accountant, shared with the cycle thread.
    accountant: Arc<Mutex<Accountant>>,
    /// For SET_PRIORITYFACTOR's ADMINISTRATOR check.
    server: Arc<ServerConfig>,
    /// PRIORITY_FACTOR_AUTHORIZATION, when NEGOTIATOR_CLASSAD_USER_MAP_NAMES
    /// names it.
    factor_map: FactorMapSetting,
}

/// What NEGOTIATOR_CLASSAD_USER_MAP_NAMES says of PRIORITY_FACTOR_AUTHORIZATION.
enum FactorMapSetting {
    Unset,
    NotListed,
    Map(Arc<MapFile>),
}

impl NegotiatorDaemon {
    /// One of condor_userprio's commands (see `negotiator::userprio`).
    async fn userprio(&self, command: &mut Command<'_>) -> cedar::error::Result<()> {
        let number = command.number();
        let payload = if userprio::carries_payload(number) {
            command.read_payload().await?
        } else {
            userprio::inline_payload(command.request())
        };
        let request = Request::decode(number, &payload).map_err(|e| {
            tracing::warn!("{}: {e}", userprio::spec_of(number).map_or("userprio command", |s| s.name));
            cedar::Error::new(cedar::ErrorKind::Protocol, e.to_string())
        })?;
        command.wait_for_earlier_connections().await;
        let admin = match command.peer() {
            Some(p) => {
                let decision =
                    self.server.authorizer.check(&command.request().peer_at(p.ip()), Permission::Administrator);
                tracing::debug!("{}: ADMINISTRATOR for {:?} at {p}: {decision:?}", request.command(), command.user());
                decision.is_allowed()
            }
            None => false,
        };
        let map = match &self.factor_map {
            FactorMapSetting::Unset => FactorMap::Unset,
            FactorMapSetting::NotListed => FactorMap::NotListed,
            FactorMapSetting::Map(m) => FactorMap::Map(m),
        };
        let reply = match request.authorize(admin, command.user(), &map) {
            Err(refused) => {
                tracing::warn!("{refused}");
                request.refusal(&refused)
            }
            Ok(()) => {
                // A running cycle holds the accountant: wait for it off the
                // async workers, as condor_negotiator serves these between
                // cycles.
                let accountant = self.accountant.clone();
                let run = request.clone();
                tokio::task::spawn_blocking(move || match accountant.lock() {
                    Ok(mut accountant) => Ok(run.apply(&mut accountant, now())),
                    Err(_) => Err(cedar::Error::new(cedar::ErrorKind::Protocol, "the accountant is poisoned")),
                })
                .await
                .map_err(|e| cedar::Error::new(cedar::ErrorKind::Protocol, e.to_string()))??
            }
        };
        let mut out = command.encoder();
        if reply.encode(&mut out, command.peer_version())? {
            // The Python bindings' setFactor closes without reading the
            // status: a reset here is no failure.
            if let Err(e) = command.send(out.as_bytes()).await {
                tracing::debug!("{}: the reply was not read: {e}", request.command());
            }
        }
        if request.is_edit() {
            if let Ok(tx) = self.asks.lock() {
                let _ = tx.send(Ask::Publish);
            }
        }
        Ok(())
    }
}

impl Handler for NegotiatorDaemon {
    async fn handle(&self, command: &mut Command<'_>) -> cedar::error::Result<()> {
        if self.dc.handle(command).await? {
            return Ok(());
        }
        match command.number() {
            c::RESCHEDULE => {
                let _ = command.read_payload_or_empty().await?;
                tracing::info!("Got RESCHEDULE request");
                if let Ok(tx) = self.asks.lock() {
                    let _ = tx.send(Ask::Reschedule);
                }
                Ok(())
            }
            n if userprio::is_userprio_command(n) => self.userprio(command).await,
            n if c::is_nop(n) => {
                let _ = command.read_payload_or_empty().await?;
                Ok(())
            }
            n => {
                tracing::warn!("command {n} is registered but not served; closing");
                Err(cedar::Error::new(cedar::ErrorKind::Protocol, "a command the negotiator does not serve"))
            }
        }
    }
}

/// The negotiator's command table (daemon core's are added by `register`).
fn commands() -> CommandTable {
    CommandTable::new()
        .register(c::RESCHEDULE, Permission::Daemon)
        .register(c::DC_NOP, Permission::Allow)
        .register(c::DC_NOP_READ, Permission::Read)
        .register(c::DC_NOP_WRITE, Permission::Write)
        .register(c::DC_NOP_NEGOTIATOR, Permission::Negotiator)
        .register(c::DC_NOP_ADMINISTRATOR, Permission::Administrator)
        .register(c::DC_NOP_DAEMON, Permission::Daemon)
}

/// Key files must be private and ours, as HTCondor insists.
fn key_check() -> FileCheck {
    use std::os::unix::fs::MetadataExt;
    match std::fs::metadata("/proc/self") {
        Ok(m) => FileCheck::strict(m.uid()),
        Err(_) => FileCheck::strict(0),
    }
}

fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

fn seconds(config: &DaemonConfig, knob: &str, default: i64) -> Duration {
    Duration::from_secs(config.get_int(knob, default).max(0) as u64)
}

/// What the cycle thread reads from the configuration.
struct Knobs {
    negotiator: Negotiator,
    settings: CycleSettings,
    interval: Duration,
    min_interval: Duration,
    cycle_delay: Duration,
    update_interval: Duration,
    history: usize,
}

impl Knobs {
    fn read(config: &DaemonConfig) -> Result<Knobs, daemons::AppError> {
        let mut negotiator = Negotiator::from_config(config.config())?;
        // A real schedd rejects a match to a slot it cannot claim and
        // offers the job again in the next spin.
        negotiator.settings.resend_claimless_matches = true;
        let mut settings = CycleSettings::default();
        settings.request_list_size =
            config.get_int("NEGOTIATOR_RESOURCE_REQUEST_LIST_SIZE", 200).clamp(1, 100_000) as u32;
        settings.slot_constraint = config.get("NEGOTIATOR_SLOT_CONSTRAINT").filter(|s| !s.trim().is_empty());
        settings.job_constraint = config.get("NEGOTIATOR_JOB_CONSTRAINT").filter(|s| !s.trim().is_empty());
        Ok(Knobs {
            negotiator,
            settings,
            interval: seconds(config, "NEGOTIATOR_INTERVAL", 60).max(Duration::from_secs(1)),
            min_interval: seconds(config, "NEGOTIATOR_MIN_INTERVAL", 5),
            cycle_delay: seconds(config, "NEGOTIATOR_CYCLE_DELAY", 20),
            update_interval: seconds(config, "NEGOTIATOR_UPDATE_INTERVAL", 300).max(Duration::from_secs(1)),
            history: config.get_int("NEGOTIATION_CYCLE_STATS_LENGTH", 3).clamp(1, 100) as usize,
        })
    }
}

/// The cycle thread: cycles, publishing, and the accountant.
struct Cycler {
    knobs: Knobs,
    live: LiveNegotiator,
    /// Shared with the userprio commands, which wait for a running cycle.
    accountant: Arc<Mutex<Accountant>>,
    client: Client,
    collectors: Vec<CollectorClient>,
    me: Identity,
    history: History,
    /// What the HTTP API reports.
    status: Arc<CycleStatus>,
    /// For CONDOR_IDS (who gets the accountant's log).
    config: Arc<DaemonConfig>,
}

impl Cycler {
    fn cycle(&mut self) {
        if self.collectors.is_empty() {
            tracing::warn!("no COLLECTOR_HOST: nothing to negotiate with");
            return;
        }
        tracing::info!("---------- Started Negotiation Cycle ----------");
        // The pool comes from the first collector that answers, as
        // condor_negotiator's query of the collector list does.
        let Ok(mut accountant) = self.accountant.lock() else {
            tracing::error!("the accountant is poisoned (a panic while it was held); no more cycles");
            return;
        };
        let mut result = Err(CycleError::Collector(cedar::Error::new(cedar::ErrorKind::Protocol, "no collector")));
        for collector in &self.collectors {
            result = self.live.cycle(collector, &self.knobs.negotiator, &mut accountant, now());
            match &result {
                Err(CycleError::Collector(e)) => tracing::warn!("collector {}: {e}", collector.addr()),
                _ => break,
            }
        }
        match result {
            Ok(report) => {
                tracing::info!(
                    "Got ads: {} public and {} private; {} slots without a claim id left out",
                    report.slots,
                    report.private_ads,
                    report.slots_without_claim
                );
                for f in &report.failures {
                    tracing::warn!("  submitter {} at {} failed ({}): {}", f.submitter, f.schedd, f.phase, f.error);
                }
                let (p, c) = (&report.phases, &report.cpu);
                tracing::info!(
                    "---------- Finished Negotiation Cycle ---------- {} matches, {} rejections, {} requests from {} schedds; \
                     fetch {:.3}s prefetch {:.3}s matching {:.3}s deliver {:.3}s \
                     (CPU: fetch {:.3}s prefetch {:.3}s matching {:.3}s deliver {:.3}s)",
                    report.matches_sent,
                    report.rejections_sent,
                    report.requests,
                    report.schedds,
                    p.fetch.as_secs_f64(),
                    p.prefetch.as_secs_f64(),
                    p.matching.as_secs_f64(),
                    p.deliver.as_secs_f64(),
                    c.fetch.as_secs_f64(),
                    c.prefetch.as_secs_f64(),
                    c.matching.as_secs_f64(),
                    c.deliver.as_secs_f64()
                );
                self.history.push(CycleFigures::from_report(&report));
                self.status.record(report);
            }
            Err(e) => {
                tracing::error!("the negotiation cycle failed: {e}");
                self.status.record_failure(now(), e.to_string());
            }
        }
        for warning in accountant.take_warnings() {
            tracing::warn!("accountant: {warning}");
        }
        drop(accountant);
        self.publish();
    }

    /// Our ad and the accounting ads, to every collector.
    fn publish(&mut self) {
        // The accountant's log may have been rewritten (compacted) since:
        // it stays the condor user's, so condor_negotiator can take over.
        if let Some(path) = self.accountant.lock().ok().and_then(|a| a.log_path().map(Path::to_path_buf)) {
            daemons::owner::hand_over(&self.config, &path);
        }
        let ad = negotiator_ad(&self.me, self.history.iter(), now());
        let ads = match self.accountant.lock() {
            Ok(accountant) => accounting_ads(&accountant, &self.me.name),
            Err(_) => Vec::new(),
        };
        self.status.set_accounting(ads.clone());
        let accounting: Vec<Update> = ads.into_iter().map(Update::new).collect();
        for collector in &self.collectors {
            if let Err(e) = collector.advertise(c::UPDATE_NEGOTIATOR_AD, &[Update::new(ad.clone())]) {
                tracing::warn!("sending our ad to the collector: {e}");
                continue;
            }
            if let Err(e) = collector.advertise(c::UPDATE_ACCOUNTING_AD, &accounting) {
                tracing::warn!("sending the accounting ads to the collector: {e}");
            }
        }
    }

    fn invalidate(&self) {
        let Ok(query) = Query::negotiator().constraint(&format!("TARGET.Name == {:?}", self.me.name)) else { return };
        let query = query.attr("Name", self.me.name.as_str());
        for collector in &self.collectors {
            if let Err(e) = collector.invalidate(c::INVALIDATE_NEGOTIATOR_ADS, &query) {
                tracing::info!("invalidating our ad: {e}");
            }
        }
    }

    fn run(mut self, asks: std_mpsc::Receiver<Ask>) {
        let start = Instant::now();
        // The start counts as a cycle that just ended: the first one comes
        // NEGOTIATOR_CYCLE_DELAY later.
        let mut last = Last { started: start, ended: start };
        let mut next_cycle = start;
        let mut next_update = start;
        let mut pending_reschedule = false;
        loop {
            let now_i = Instant::now();
            if now_i >= next_update {
                self.publish();
                next_update = now_i + self.knobs.update_interval;
            }
            let due = due(&self.knobs, last, if pending_reschedule { now_i } else { next_cycle });
            if now_i >= due {
                pending_reschedule = false;
                let started = Instant::now();
                self.cycle();
                let done = Instant::now();
                last = Last { started, ended: done };
                next_cycle = done + self.knobs.interval;
                next_update = done + self.knobs.update_interval;
                continue;
            }
            let wait = due.min(next_update).saturating_duration_since(now_i);
            match asks.recv_timeout(wait) {
                Ok(Ask::Reschedule) => pending_reschedule = true,
                Ok(Ask::Publish) => self.publish(),
                Ok(Ask::Reconfig(config)) => match Knobs::read(&config)
                    .and_then(|k| Ok((k, AccountantConfig::from_config(config.config())?)))
                {
                    Ok((knobs, accountant_config)) => {
                        self.config = config.clone();
                        if let Ok(mut accountant) = self.accountant.lock() {
                            accountant.set_config(accountant_config);
                        }
                        self.live.settings = knobs.settings.clone();
                        self.knobs = knobs;
                        self.history = History::new(self.knobs.history);
                        tracing::info!("reconfigured");
                    }
                    Err(e) => tracing::error!("reconfig: the configuration is not usable ({e}); keeping the old one"),
                },
                Ok(Ask::Stop) | Err(std_mpsc::RecvTimeoutError::Disconnected) => break,
                Err(std_mpsc::RecvTimeoutError::Timeout) => {}
            }
        }
        self.invalidate();
        let _ = &self.client;
    }
}

/// When the last cycle started and ended.
#[derive(Clone, Copy)]
struct Last {
    started: Instant,
    ended: Instant,
}

/// When a cycle wanted at `wanted` (the timer's time, or now for a
/// reschedule) may start, as condor_negotiator decides it: no sooner than
/// NEGOTIATOR_MIN_INTERVAL after the last cycle started, nor than
/// NEGOTIATOR_CYCLE_DELAY after it ended (so that the startds have told
/// the collector of the last cycle's claims before a slot is matched
/// again: matchmaker.cpp's negotiationTime).
fn due(knobs: &Knobs, last: Last, wanted: Instant) -> Instant {
    wanted.max(last.started + knobs.min_interval).max(last.ended + knobs.cycle_delay)
}

/// PRIORITY_FACTOR_AUTHORIZATION: a map file
/// (CLASSAD_USER_MAPFILE_PRIORITY_FACTOR_AUTHORIZATION) from an
/// authenticated user to the prefix of the submitters whose factor they may
/// set, used when NEGOTIATOR_CLASSAD_USER_MAP_NAMES lists it.
fn factor_map(config: &DaemonConfig) -> Result<FactorMapSetting, daemons::AppError> {
    let Some(names) = config.get("NEGOTIATOR_CLASSAD_USER_MAP_NAMES") else { return Ok(FactorMapSetting::Unset) };
    if !names.split(|c: char| c == ',' || c.is_whitespace()).any(|n| n == "PRIORITY_FACTOR_AUTHORIZATION") {
        return Ok(FactorMapSetting::NotListed);
    }
    let Some(path) = config.get("CLASSAD_USER_MAPFILE_PRIORITY_FACTOR_AUTHORIZATION") else {
        tracing::warn!("PRIORITY_FACTOR_AUTHORIZATION has no CLASSAD_USER_MAPFILE_PRIORITY_FACTOR_AUTHORIZATION");
        return Ok(FactorMapSetting::NotListed);
    };
    let map = MapFile::load(std::path::Path::new(&path), &MapFileOptions::default())
        .map_err(|e| format!("CLASSAD_USER_MAPFILE_PRIORITY_FACTOR_AUTHORIZATION {path}: {e}"))?;
    Ok(FactorMapSetting::Map(Arc::new(map)))
}

/// NEGOTIATOR_MATCH_LOG (`$(LOG)/MatchLog`), rotated past
/// MAX_NEGOTIATOR_MATCH_LOG (10 MiB): where the `Matched` and `Rejected`
/// lines go, as condor_negotiator writes them. Without LOG (`-t` alone),
/// and when the file cannot be opened, they go to the daemon's log.
fn match_log(config: &DaemonConfig) -> Option<daemons::log::LogHandle> {
    let path = config
        .get("NEGOTIATOR_MATCH_LOG")
        .or_else(|| config.get("LOG").map(|log| format!("{log}/MatchLog")))
        .filter(|p| !p.trim().is_empty())?;
    let max = config.get("MAX_NEGOTIATOR_MATCH_LOG").and_then(|v| daemons::config::parse_size(&v)).unwrap_or(10 << 20);
    match daemons::log::LogHandle::to_file(std::path::Path::new(&path), max, daemons::log::DebugFlags::default()) {
        Ok(log) => {
            daemons::owner::hand_over(config, std::path::Path::new(&path));
            Some(log)
        }
        Err(e) => {
            tracing::warn!("NEGOTIATOR_MATCH_LOG {path}: {e}; the matches go to this log");
            None
        }
    }
}

async fn app(mut ctx: Context) -> Result<(), daemons::AppError> {
    let listener = ctx.take_listener().ok_or("no command socket")?;
    let config = ctx.config.borrow().clone();
    let lookup = |k: &str| config.get(k);
    let hostname = config.full_hostname();
    let table = register(userprio::register(commands()));
    let server = ServerConfig::from_config("NEGOTIATOR", table, &lookup, key_check())?.hostname(hostname.clone());
    if let Ok(mut cache) = server.sessions.lock() {
        for session in std::mem::take(&mut ctx.inherited_sessions) {
            cache.insert(session, Instant::now());
        }
    }
    let server = Arc::new(server);

    let knobs = Knobs::read(&config)?;
    let spool = config.get("SPOOL").ok_or("SPOOL is not set: the accountant's log goes there")?;
    let log_path = std::path::Path::new(&spool).join("Accountantnew.log");
    let (accountant, load) = Accountant::open(AccountantConfig::from_config(config.config())?, &log_path, now())?;
    tracing::info!("accountant: {} records from {}", accountant.customers().len(), log_path.display());
    daemons::owner::hand_over(&config, &log_path);
    // The log's lock, held for as long as the daemon runs (see
    // matchmaker::classad_log's concurrent writers).
    daemons::owner::hand_over(&config, &matchmaker::classad_log::lock_path(&log_path));
    for w in &load.warnings {
        tracing::warn!("accountant log: {w}");
    }
    let mut client_config = daemons::client::client_config(&config, seconds(&config, "NEGOTIATOR_TIMEOUT", 30))?;
    client_config.command_sock = Some(ctx.sinful.to_string());
    let client = Client::new(client_config);
    let collectors: Vec<CollectorClient> = config
        .collectors()
        .iter()
        .filter_map(|s| match s.parse() {
            Ok(addr) => Some(CollectorClient::new(client.clone(), addr)),
            Err(e) => {
                tracing::warn!("COLLECTOR_HOST entry {s}: {e}");
                None
            }
        })
        .collect();
    let name = match (config.get("NEGOTIATOR_NAME").filter(|n| !n.is_empty()), config.local_name()) {
        (Some(n), _) => n,
        (None, Some(local)) => format!("{local}@{hostname}"),
        (None, None) => hostname.clone(),
    };
    let mut me = Identity::default();
    me.name = name;
    me.machine = hostname;
    me.address = ctx.sinful.to_string();
    me.version = server.version.clone();
    me.platform = cedar::version::OUR_PLATFORM.to_owned();
    me.start_time = now();
    let mut live = LiveNegotiator::new(client.clone(), knobs.settings.clone());
    if let Some(log) = match_log(&config) {
        live.set_match_log(Arc::new(move |line: &str| log.write(line)));
    }
    let history = History::new(knobs.history);
    let accountant = Arc::new(Mutex::new(accountant));
    let status = Arc::new(CycleStatus::default());
    let http_name = me.name.clone();
    let cycler = Cycler {
        knobs,
        live,
        accountant: accountant.clone(),
        client,
        collectors,
        me,
        history,
        status: status.clone(),
        config: config.clone(),
    };
    let (tx, rx) = std_mpsc::channel();
    let cycles = std::thread::Builder::new().name("negotiation".into()).spawn(move || cycler.run(rx))?;

    let factor_map = factor_map(&config)?;
    let handler = NegotiatorDaemon {
        dc: ctx.dc_commands(),
        asks: Mutex::new(tx.clone()),
        accountant,
        server: server.clone(),
        factor_map,
    };
    let cedar = Server::new(server.clone(), handler);
    if let Some(address) = config.get("NEGOTIATOR_HTTP_ADDRESS").filter(|a| !a.trim().is_empty()) {
        let http_listener = tokio::net::TcpListener::bind(address.trim())
            .await
            .map_err(|e| format!("NEGOTIATOR_HTTP_ADDRESS {}: {e}", address.trim()))?;
        tracing::info!("HTTP API on {}", http_listener.local_addr()?);
        let http = negotiator::http::Http::new(server, status, http_name).cedar_stats(cedar.stats());
        let stopping = ctx.stopping();
        tokio::spawn(async move {
            if let Err(e) = negotiator::http::serve(http, http_listener, async move {
                let _ = stopping.await;
            })
            .await
            {
                tracing::error!("HTTP API: {e}");
            }
        });
    }
    let stopping = ctx.stopping();
    let serving = tokio::spawn(cedar.serve(listener, async move {
        let _ = stopping.await;
    }));
    tracing::info!("negotiator ready at {}", ctx.sinful);
    while let Some(event) = ctx.controls.recv().await {
        match event {
            Control::Reconfig => {
                let config = ctx.config.borrow().clone();
                let _ = tx.send(Ask::Reconfig(config));
            }
            Control::Stop(how) => {
                tracing::info!("stopping ({how:?})");
                break;
            }
            _ => {}
        }
    }
    let _ = tx.send(Ask::Stop);
    let _ = tokio::task::spawn_blocking(move || cycles.join()).await;
    serving.await??;
    Ok(())
}

fn main() -> ExitCode {
    daemons::Daemon::main("NEGOTIATOR", app)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn knobs(interval: u64, min_interval: u64, cycle_delay: u64) -> Knobs {
        let config = matchmaker::config::Config::default();
        Knobs {
            negotiator: Negotiator::from_config(&config).expect("the default configuration"),
            settings: CycleSettings::default(),
            interval: Duration::from_secs(interval),
            min_interval: Duration::from_secs(min_interval),
            cycle_delay: Duration::from_secs(cycle_delay),
            update_interval: Duration::from_secs(300),
            history: 3,
        }
    }

    #[test]
    fn a_cycle_waits_for_the_cycle_delay_after_the_last_one_ended() {
        let t0 = Instant::now();
        let s = Duration::from_secs;
        let k = knobs(60, 5, 20);
        // The last cycle ran from t0 to t0 + 2 s.
        let last = Last { started: t0, ended: t0 + s(2) };
        // A reschedule at t0 + 10 s waits until 20 s after the end.
        assert_eq!(due(&k, last, t0 + s(10)), t0 + s(22));
        // One at t0 + 30 s runs at once.
        assert_eq!(due(&k, last, t0 + s(30)), t0 + s(30));
        // The timer's time, later than both, is kept.
        assert_eq!(due(&k, last, t0 + s(62)), t0 + s(62));
        // NEGOTIATOR_MIN_INTERVAL counts from the start of the last cycle.
        let k = knobs(60, 30, 1);
        assert_eq!(due(&k, last, t0 + s(10)), t0 + s(30));
    }
}
