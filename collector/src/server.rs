//! The collector on the network: its CEDAR commands served on tokio, the
//! housekeeping and its own ad on timers (the `tokio` feature).
//!
//! [`Collector`] holds the [`Store`], the [`Stats`] and the configuration;
//! [`Collector::serve`] runs it on a listener until a shutdown future
//! resolves. A daemon that serves more commands on the same port (daemon
//! core's, say) writes its own [`Handler`] and calls
//! [`Collector::handle`] for the collector's.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use cedar::authz::{collector_command, Permission, COLLECTOR_COMMANDS};
use cedar::command as c;
use cedar::error::Result;
use cedar::handshake::{CommandTable, ServerConfig};
use cedar::tokio::{Command, Handler, Server, ServerOptions};
use cedar::wire::ad::get_classad;
use cedar::wire::{Decoder, Encoder};
use parking_lot::Mutex;
use tokio::net::TcpListener;

use crate::config::CollectorConfig;
use crate::query::{Access, Query};
use crate::self_ad::{collector_ad, Identity, Totals};
use crate::store::{Store, UpdateCommand};
use crate::update::{apply_update_with, invalidate_with, is_invalidation, read_update, Policy, UpdatePayload};
use crate::validate::validate;
use crate::{Stats, UpdateError, Updated};

/// How much of a query reply is built before it is sent: replies of any
/// size go out in parts of about this many bytes.
pub const REPLY_PART: usize = 1 << 20;

/// Commands registered but not served: 81, `IMPERSONATION_TOKEN_REQUEST`,
/// needs a token service.
const NOT_SERVED: [i32; 1] = [81];

/// A command's name for the log.
fn label(command: i32) -> String {
    c::name(command).map_or_else(|| format!("command {command}"), str::to_owned)
}

/// The seconds since the epoch.
fn now() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}

/// A collector: its tables, counters and configuration.
#[derive(Debug)]
pub struct Collector {
    store: Arc<Store>,
    stats: Arc<Stats>,
    config: Mutex<CollectorConfig>,
    server: Arc<ServerConfig>,
    identity: Mutex<Identity>,
}

impl Collector {
    /// The commands a collector serves, at the levels the 23.9 collector
    /// registers them with, and daemon core's `DC_NOP`s.
    ///
    /// ```
    /// let table = collector::server::Collector::commands();
    /// assert_eq!(table.permission(cedar::command::QUERY_STARTD_ADS), Some(cedar::authz::Permission::Read));
    /// assert_eq!(table.permission(cedar::command::UPDATE_STARTD_AD), Some(cedar::authz::Permission::AdvertiseStartd));
    /// ```
    pub fn commands() -> CommandTable {
        let mut table = CommandTable::new();
        for reg in COLLECTOR_COMMANDS {
            let Ok(number) = i32::try_from(reg.command) else { continue };
            if !NOT_SERVED.contains(&number) {
                table = table.register_with_alternates(number, reg.perm, reg.alternates);
            }
        }
        table
            .register(c::DC_NOP, Permission::Allow)
            .register(c::DC_NOP_READ, Permission::Read)
            .register(c::DC_NOP_WRITE, Permission::Write)
            .register(c::DC_NOP_NEGOTIATOR, Permission::Negotiator)
            .register(c::DC_NOP_ADMINISTRATOR, Permission::Administrator)
            .register(c::DC_NOP_CONFIG, Permission::Config)
            .register(c::DC_NOP_DAEMON, Permission::Daemon)
            .register(c::DC_NOP_ADVERTISE_STARTD, Permission::AdvertiseStartd)
            .register(c::DC_NOP_ADVERTISE_SCHEDD, Permission::AdvertiseSchedd)
            .register(c::DC_NOP_ADVERTISE_MASTER, Permission::AdvertiseMaster)
    }

    /// A collector with `config`, serving under `server` (its command
    /// table should hold [`Collector::commands`]), reachable at `address`
    /// (the sinful string its own ad advertises).
    pub fn new(config: CollectorConfig, server: Arc<ServerConfig>, address: impl Into<String>) -> Collector {
        let store = Arc::new(Store::new(config.classad_lifetime));
        let mut identity = Identity::new(address, now());
        identity.version = server.version.clone();
        let collector = Collector {
            store,
            stats: Arc::new(Stats::new()),
            config: Mutex::new(config),
            server,
            identity: Mutex::new(identity),
        };
        collector.publish_self_ad();
        collector
    }

    /// The tables.
    pub fn store(&self) -> &Arc<Store> {
        &self.store
    }

    /// The counters.
    pub fn stats(&self) -> &Arc<Stats> {
        &self.stats
    }

    /// The CEDAR server configuration.
    pub fn server_config(&self) -> &Arc<ServerConfig> {
        &self.server
    }

    /// The configuration in force.
    pub fn config(&self) -> CollectorConfig {
        self.config.lock().clone()
    }

    /// What the configuration asks of updates and invalidations.
    pub fn policy(&self) -> Policy {
        Policy::from_config(&self.config.lock())
    }

    /// Stores update `command`'s payload from `user` (authenticated with
    /// `method`) under the configuration's [`Policy`]
    /// ([`apply_update_with`]), as CEDAR updates and the HTTP API's
    /// `POST` do.
    pub fn apply_update(
        &self,
        command: i32,
        payload: UpdatePayload,
        user: Option<&str>,
        method: Option<&str>,
    ) -> std::result::Result<Updated, UpdateError> {
        apply_update_with(&self.store, &self.policy(), command, payload, user, method, now())
    }

    /// Carries out invalidation `command` with its query ad under the
    /// configuration's [`Policy`] ([`invalidate_with`]); returns how many
    /// ads went.
    pub fn invalidate(&self, command: i32, query: &classad::ClassAd) -> usize {
        invalidate_with(&self.store, &self.policy(), command, query)
    }

    /// Takes a new configuration (a reconfig): the lifetime applies to
    /// the next housekeeping, the name to the next own ad (made now),
    /// `COLLECTOR_REQUIREMENTS` and the other update knobs to the next
    /// update.
    pub fn reconfigure(&self, config: CollectorConfig) {
        self.store.set_classad_lifetime(config.classad_lifetime);
        *self.config.lock() = config;
        self.publish_self_ad();
    }

    /// Remakes the collector's own ad and stores it in the collector
    /// table, as `sendCollectorAd` does on its timer. It passes
    /// `COLLECTOR_REQUIREMENTS` as any other ad must; refused, the last
    /// one stays.
    pub fn publish_self_ad(&self) {
        let (ad, requirements) = {
            let config = self.config.lock();
            let ad = collector_ad(&config, &self.identity.lock(), &Totals::count(&self.store), now());
            (ad, config.requirements.clone())
        };
        if let Err(e) = validate(c::UPDATE_COLLECTOR_AD, &ad, None, requirements.as_deref()) {
            tracing::error!("Failed to add my own ad to myself: {e}");
            return;
        }
        if let Err(e) = self.store.update(UpdateCommand::Collector, ad, None, now()) {
            tracing::error!("Failed to add my own ad to myself: {e}");
        }
    }

    /// Drops the ads past their lifetime, counting them.
    pub fn housekeep(&self) {
        let done = self.store.housekeep(now());
        self.stats.housekeeping_runs.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.stats.ads_expired.fetch_add(done.expired as u64, std::sync::atomic::Ordering::Relaxed);
        for (table, n) in &done.by_table {
            tracing::info!("Housekeeper: removed {n} {table} ads past their lifetime");
        }
    }

    /// Serves one command if it is a collector command; returns whether
    /// it was. The reply (if any) is written; an error ends the
    /// connection, as the C++ collector closes it.
    pub async fn handle(&self, command: &mut Command<'_>) -> Result<bool> {
        let number = command.number();
        if c::is_nop(number) {
            let _ = command.read_payload_or_empty().await?;
            return Ok(true);
        }
        let Some(_) = u32::try_from(number).ok().and_then(collector_command) else { return Ok(false) };
        // As the C++ collector, one connection at a time: a query or an
        // invalidation sees what earlier connections sent. (Updates do not
        // wait: under a steady stream of them from many persistent
        // connections, waiting would only slow each down.)
        if c::is_query(number) || is_invalidation(number) {
            command.wait_for_earlier_connections().await;
        }
        if is_invalidation(number) {
            self.invalidation(command).await?;
        } else if UpdateCommand::from_command(number).is_some() {
            self.update(command).await?;
        } else if c::is_query(number) {
            self.query(command).await?;
        } else {
            return Ok(false);
        }
        Ok(true)
    }

    async fn update(&self, command: &mut Command<'_>) -> Result<()> {
        let number = command.number();
        let message = command.read_payload().await?;
        let payload = match read_update(number, &message.payload, message.encrypted, &self.server.limits) {
            Ok(p) => p,
            Err(e) => {
                self.stats.updates_failed.add(number);
                tracing::warn!("{}: could not read the ad: {e}", label(number));
                return Err(e);
            }
        };
        let request = command.request();
        match self.apply_update(number, payload, request.user.as_deref(), request.method.as_deref()) {
            Ok(updated) => {
                self.stats.updates.add(number);
                if updated.inserted {
                    self.stats.ads_inserted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
                if number == c::UPDATE_STARTD_AD_WITH_ACK {
                    let mut enc = command.encoder();
                    enc.put_int(1);
                    command.send(enc.as_bytes()).await?;
                }
            }
            Err(e) => {
                // The C++ collector's update handler fails, and daemon
                // core closes the connection: the updates that follow on
                // it are lost, and a `WITH_ACK` update gets no
                // acknowledgement ("failed to get ack").
                self.stats.updates_failed.add(number);
                let peer = command.peer().map_or_else(|| "(unknown)".to_owned(), |p| format!("<{p}>"));
                tracing::info!("{} from {peer}: {e} --- ignoring ad, closing the connection", label(number));
                return Err(cedar::Error::new(cedar::ErrorKind::Protocol, format!("update refused: {e}")));
            }
        }
        Ok(())
    }

    async fn invalidation(&self, command: &mut Command<'_>) -> Result<()> {
        let number = command.number();
        let message = command.read_payload().await?;
        let mut dec = Decoder::new(&message.payload, message.encrypted);
        let query = get_classad(&mut dec, &self.server.limits)?;
        let n = self.invalidate(number, &query);
        self.stats.invalidations.add(number);
        self.stats.ads_invalidated.fetch_add(n as u64, std::sync::atomic::Ordering::Relaxed);
        tracing::info!("{}: (Invalidated {n} ads)", label(number));
        Ok(())
    }

    async fn query(&self, command: &mut Command<'_>) -> Result<()> {
        let number = command.number();
        let message = command.read_payload().await?;
        let started = Instant::now();
        let mut dec = Decoder::new(&message.payload, message.encrypted);
        let ad = get_classad(&mut dec, &self.server.limits)?;
        let access = self.access(command);
        let query = match Query::parse(number, ad, &access) {
            Ok(q) => q,
            Err(e) => {
                self.stats.queries_failed.add(number);
                tracing::info!("{}: {e}; closing without a reply", label(number));
                return Ok(());
            }
        };
        let selection = query.select(&self.store);
        let peer_version = command.peer_version().cloned();
        let encrypted = command.encoder().is_encrypted();
        let mut enc = Encoder::new(encrypted);
        let mut bytes = 0usize;
        let writer = query.writer(peer_version.as_ref());
        let hits = selection.hits();
        for i in 0..hits.len() {
            writer.put_hit_of(&mut enc, hits, i);
            if enc.len() >= REPLY_PART {
                bytes += enc.len();
                command.send_part(enc.as_bytes(), false).await?;
                // The next part reuses the buffer: no allocation, and no
                // copying as it grows, after the first part.
                enc.truncate(0);
            }
        }
        enc.put_int(0);
        bytes += enc.len();
        command.send_part(enc.as_bytes(), true).await?;
        self.stats.queries.add(number);
        self.stats.ads_sent.fetch_add(selection.len() as u64, std::sync::atomic::Ordering::Relaxed);
        self.stats.reply_bytes.fetch_add(bytes as u64, std::sync::atomic::Ordering::Relaxed);
        self.stats.query_seconds.observe(started.elapsed());
        tracing::debug!("{}: (Sending {} ads in response to query)", label(number), selection.len());
        Ok(())
    }

    /// What the peer of `command` may see: NEGOTIATOR and ADMINISTRATOR
    /// authorization are checked afresh, as the C++ collector asks
    /// `Verify` for them.
    fn access(&self, command: &Command<'_>) -> Access {
        let Some(addr) = command.peer() else { return Access::new(command.peer_version().cloned(), false, false) };
        let request = command.request();
        let peer = request.peer_at(addr.ip());
        let authorizer = &self.server.authorizer;
        Access::new(
            command.peer_version().cloned(),
            authorizer.check(&peer, Permission::Negotiator).is_allowed(),
            authorizer.check(&peer, Permission::Administrator).is_allowed(),
        )
    }

    /// Serves on `listener` until `shutdown` resolves: the commands, the
    /// housekeeping every `CLASSAD_LIFETIME` and the own ad every
    /// `COLLECTOR_UPDATE_INTERVAL`.
    pub async fn serve(
        self: Arc<Self>,
        listener: TcpListener,
        options: ServerOptions,
        shutdown: impl Future<Output = ()> + Send,
    ) -> Result<()> {
        let server = Server::new(self.server.clone(), CollectorHandler(self.clone())).options(options);
        self.serve_with(server, listener, shutdown).await
    }

    /// As [`serve`](Self::serve), with a server the caller made (its own
    /// handler, which calls [`Collector::handle`]).
    pub async fn serve_with<H: Handler>(
        self: Arc<Self>,
        server: Server<H>,
        listener: TcpListener,
        shutdown: impl Future<Output = ()> + Send,
    ) -> Result<()> {
        let timers = tokio::spawn(self.clone().run_timers());
        let served = server.serve(listener, shutdown).await;
        timers.abort();
        served
    }

    /// The housekeeping and own-ad timers, forever.
    async fn run_timers(self: Arc<Self>) {
        let mut last_housekeeping = Instant::now();
        let mut last_self_ad = Instant::now();
        loop {
            tokio::time::sleep(Duration::from_secs(1)).await;
            let (lifetime, interval) = {
                let config = self.config.lock();
                (config.classad_lifetime, config.update_interval)
            };
            if last_housekeeping.elapsed() >= Duration::from_secs(lifetime.max(1) as u64) {
                self.housekeep();
                last_housekeeping = Instant::now();
            }
            if last_self_ad.elapsed() >= Duration::from_secs(interval.max(1) as u64) {
                self.publish_self_ad();
                last_self_ad = Instant::now();
            }
        }
    }
}

/// The collector's commands as a [`Handler`].
#[derive(Debug, Clone)]
pub struct CollectorHandler(pub Arc<Collector>);

impl Handler for CollectorHandler {
    async fn handle(&self, command: &mut Command<'_>) -> Result<()> {
        if !self.0.handle(command).await? {
            tracing::warn!("command {} is registered but not served; closing", command.number());
            return Err(cedar::Error::new(cedar::ErrorKind::Protocol, "a command the collector does not serve"));
        }
        Ok(())
    }
}
