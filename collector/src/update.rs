//! Updates and invalidations: the payloads of the `UPDATE_*`,
//! `MERGE_STARTD_AD` and `INVALIDATE_*` commands, and what the C++
//! collector does with them (`collect`, `process_invalidation`).

use std::sync::Arc;

use cedar::command as c;
use cedar::wire::ad::{get_classad, AdLimits};
use cedar::wire::Decoder;
use classad::ClassAd;

use crate::config::CollectorConfig;
use crate::key::{make_key, string_attr};
use crate::store::{Store, UpdateCommand, UpdateError, Updated};
use crate::validate::{validate, Requirements};
use crate::Table;

/// What the collector's configuration asks of updates and invalidations
/// (`COLLECTOR_REQUIREMENTS`, `COLLECTOR_ALLOW_ONLY_ONE_NEGOTIATOR`,
/// `EXPIRE_INVALIDATED_ADS`); the default asks nothing.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Policy {
    /// `COLLECTOR_REQUIREMENTS`.
    pub requirements: Option<Arc<Requirements>>,
    /// `COLLECTOR_ALLOW_ONLY_ONE_NEGOTIATOR`.
    pub allow_only_one_negotiator: bool,
    /// `EXPIRE_INVALIDATED_ADS`.
    pub expire_invalidated_ads: bool,
}

impl Policy {
    /// The policy `config` sets.
    pub fn from_config(config: &CollectorConfig) -> Policy {
        Policy {
            requirements: config.requirements.clone(),
            allow_only_one_negotiator: config.allow_only_one_negotiator,
            expire_invalidated_ads: config.expire_invalidated_ads,
        }
    }
}

/// The ads an update command carries.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct UpdatePayload {
    /// The (public) ad.
    pub ad: ClassAd,
    /// The startd's private ad, when `UPDATE_STARTD_AD` brings one.
    pub private: Option<ClassAd>,
}

impl UpdatePayload {
    /// A payload of one ad.
    pub fn new(ad: ClassAd) -> UpdatePayload {
        UpdatePayload { ad, private: None }
    }
}

/// Reads the payload of update `command`: one ad and, for
/// `UPDATE_STARTD_AD` of a slot ad (not a `MyType = "StartD"` ad), the
/// private ad after it when the message holds one (`condor_advertise`
/// sends none). `UPDATE_STARTD_AD_WITH_ACK` brings no private ad.
///
/// ```
/// use cedar::wire::{ad::put_classad, Encoder};
/// let public: classad::ClassAd = r#"[ MyType = "Machine"; Name = "slot1@h" ]"#.parse()?;
/// let mut enc = Encoder::new(false);
/// put_classad(&mut enc, &public, &Default::default())?;
/// let p = collector::update::read_update(cedar::command::UPDATE_STARTD_AD, enc.as_bytes(), false, &Default::default())?;
/// assert!(p.private.is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_update(
    command: i32,
    payload: &[u8],
    encrypted: bool,
    limits: &AdLimits,
) -> cedar::error::Result<UpdatePayload> {
    let mut dec = Decoder::new(payload, encrypted);
    let ad = get_classad(&mut dec, limits)?;
    let daemon_ad = string_attr(&ad, "MyType").is_some_and(|t| t.eq_ignore_ascii_case("StartD"));
    let private = if command == c::UPDATE_STARTD_AD && !daemon_ad && !dec.is_empty() {
        // A private ad that does not parse is dropped, as the C++
        // collector drops it ("Could not get startd's private ad").
        get_classad(&mut dec, limits).ok()
    } else {
        None
    };
    Ok(UpdatePayload { ad, private })
}

/// Sets `AuthenticatedIdentity` and `AuthenticationMethod` from the
/// connection's authentication. Without one the identity is
/// `unauthenticated@unmapped` and the method is removed, as the C++
/// collector records it (an ad cannot claim an identity it did not prove).
///
/// ```
/// let mut ad: classad::ClassAd = r#"[ AuthenticatedIdentity = "forged@x"; AuthenticationMethod = "FS" ]"#.parse()?;
/// collector::update::stamp_identity(&mut ad, None, None);
/// assert_eq!(ad.eval_attr("AuthenticatedIdentity").as_str(), Some("unauthenticated@unmapped"));
/// assert!(ad.lookup("AuthenticationMethod").is_none());
/// collector::update::stamp_identity(&mut ad, Some("condor@pool"), Some("IDTOKENS"));
/// assert!(ad.lookup("AuthenticationMethod").is_some());
/// # Ok::<(), classad::ParseError>(())
/// ```
pub fn stamp_identity(ad: &mut ClassAd, user: Option<&str>, method: Option<&str>) {
    match user {
        Some(user) if !user.is_empty() => {
            ad.insert("AuthenticatedIdentity", user);
            ad.insert("AuthenticationMethod", method.unwrap_or(""));
        }
        _ => {
            ad.insert("AuthenticatedIdentity", cedar::authz::UNAUTHENTICATED_USER);
            ad.remove("AuthenticationMethod");
        }
    }
}

/// Stores the payload of update `command`, stamped with the connection's
/// identity (except for `UPDATE_STARTD_AD_WITH_ACK`, whose ad the C++
/// collector stores as sent), with no [`Policy`]: see
/// [`apply_update_with`].
pub fn apply_update(
    store: &Store,
    command: i32,
    payload: UpdatePayload,
    user: Option<&str>,
    method: Option<&str>,
    now: i64,
) -> Result<Updated, UpdateError> {
    apply_update_with(store, &Policy::default(), command, payload, user, method, now)
}

/// Stores the payload of update `command` as `CollectorEngine::collect`
/// does: the ad is stamped with the connection's identity (except for
/// `UPDATE_STARTD_AD_WITH_ACK`), then checked ([`crate::validate`]:
/// `COLLECTOR_REQUIREMENTS` and, for `UPDATE_OWN_SUBMITTOR_AD`, that
/// `user` owns the submitter ad); a refused ad is
/// [`UpdateError::Refused`]. With `allow_only_one_negotiator`, a
/// negotiator ad that has a key first removes every stored negotiator ad.
///
/// ```
/// use collector::update::{apply_update_with, Policy, UpdatePayload};
/// use collector::{Store, Table, UpdateError};
/// let store = Store::new(900);
/// let mut policy = Policy::default();
/// policy.requirements = Some(std::sync::Arc::new(collector::validate::Requirements::parse(r#"Name =!= "bad""#)?));
/// for name in ["good", "bad"] {
///     let ad: classad::ClassAd = format!(r#"[ MyType = "DaemonMaster"; Name = "{name}" ]"#).parse()?;
///     let payload = UpdatePayload::new(ad);
///     let done = apply_update_with(&store, &policy, cedar::command::UPDATE_MASTER_AD, payload, None, None, 1000);
///     assert_eq!(done.is_ok(), name == "good");
/// }
/// assert_eq!(store.count(&Table::Master), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn apply_update_with(
    store: &Store,
    policy: &Policy,
    command: i32,
    mut payload: UpdatePayload,
    user: Option<&str>,
    method: Option<&str>,
    now: i64,
) -> Result<Updated, UpdateError> {
    let kind = UpdateCommand::from_command(command).ok_or(UpdateError::NoType)?;
    if command != c::UPDATE_STARTD_AD_WITH_ACK {
        stamp_identity(&mut payload.ad, user, method);
    }
    validate(command, &payload.ad, user, policy.requirements.as_deref()).map_err(UpdateError::Refused)?;
    if kind == UpdateCommand::Negotiator
        && policy.allow_only_one_negotiator
        && make_key(&Table::Negotiator, &payload.ad).is_some()
    {
        // As `purgeHashTable` before the update: the one negotiator ad is
        // the last one heard from. (Not atomic with the update: two
        // negotiators updating at the same instant may both stay until
        // the next update of either.)
        let n = store.purge(&Table::Negotiator);
        if n > 0 {
            tracing::debug!("COLLECTOR_ALLOW_ONLY_ONE_NEGOTIATOR: removed {n} negotiator ads before the update");
        }
    }
    store.update(kind, payload.ad, payload.private, now)
}

/// The table an invalidation command names, before its `TargetType` is
/// read (`None` for a command that is not an invalidation).
fn invalidation_table(command: i32) -> Option<Table> {
    Some(match command {
        c::INVALIDATE_STARTD_ADS => Table::Slot,
        c::INVALIDATE_SCHEDD_ADS => Table::Schedd,
        c::INVALIDATE_SUBMITTOR_ADS => Table::Submitter,
        c::INVALIDATE_LICENSE_ADS => Table::License,
        c::INVALIDATE_MASTER_ADS => Table::Master,
        c::INVALIDATE_CKPT_SRVR_ADS => Table::CkptSrvr,
        c::INVALIDATE_COLLECTOR_ADS => Table::Collector,
        c::INVALIDATE_NEGOTIATOR_ADS => Table::Negotiator,
        c::INVALIDATE_HAD_ADS => Table::Had,
        c::INVALIDATE_STORAGE_ADS => Table::Storage,
        c::INVALIDATE_ACCOUNTING_ADS => Table::Accounting,
        c::INVALIDATE_GRID_ADS => Table::Grid,
        c::INVALIDATE_ADS_GENERIC => Table::Generic(String::new()),
        _ => return None,
    })
}

/// Whether `command` is an invalidation.
pub fn is_invalidation(command: i32) -> bool {
    invalidation_table(command).is_some()
}

/// Carries out invalidation `command` with its query ad, as
/// `process_invalidation` does; returns how many ads went.
///
/// * `INVALIDATE_STARTD_ADS` removes slot ads (and their private ads), or
///   the daemon ads when `TargetType = "StartD"`;
/// * `INVALIDATE_ADS_GENERIC` needs a `TargetType` naming a generic table;
/// * when the query ad holds the table's key attributes (`Name`, for
///   schedds an address too) the one ad of that key goes; otherwise every
///   ad its `Requirements` selects (none without `Requirements`).
///
/// ```
/// use collector::{Store, Table, UpdateCommand};
/// let store = Store::new(900);
/// for n in ["a", "b"] {
///     let ad: classad::ClassAd = format!(r#"[ MyType = "DaemonMaster"; Name = "{n}" ]"#).parse()?;
///     store.update(UpdateCommand::Master, ad, None, 1000)?;
/// }
/// let by_key: classad::ClassAd = r#"[ Name = "a" ]"#.parse()?;
/// assert_eq!(collector::update::invalidate(&store, cedar::command::INVALIDATE_MASTER_ADS, &by_key), 1);
/// let scan: classad::ClassAd = r#"[ Requirements = true ]"#.parse()?;
/// assert_eq!(collector::update::invalidate(&store, cedar::command::INVALIDATE_MASTER_ADS, &scan), 1);
/// assert_eq!(store.count(&Table::Master), 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn invalidate(store: &Store, command: i32, query: &ClassAd) -> usize {
    invalidate_with(store, &Policy::default(), command, query)
}

/// [`invalidate`] under `policy`: with `expire_invalidated_ads`, an
/// invalidation by key expires the ad (`CollectorEngine::expire`) rather
/// than removing it, and an expired slot 1 ad of an old startd leaves the
/// StartD ad made from it in place (until its own lifetime ends), as the
/// C++ collector's does. (What expiring is for, an offline ad kept as
/// absent, needs `COLLECTOR_PERSISTENT_AD_LOG`, which is not
/// implemented.) A `Requirements` scan removes the same ads either way.
pub fn invalidate_with(store: &Store, policy: &Policy, command: i32, query: &ClassAd) -> usize {
    let Some(mut table) = invalidation_table(command) else { return 0 };
    let target = string_attr(query, "TargetType");
    if matches!(table, Table::Generic(_)) {
        let Some(t) = target.as_deref() else { return 0 };
        match store.generic_table(t) {
            Some(found) => table = found,
            None => return 0,
        }
    } else if table == Table::Slot && target.as_deref().is_some_and(|t| t.eq_ignore_ascii_case("StartD")) {
        table = Table::StartdDaemon;
    }
    if let Some(key) = make_key(&table, query) {
        return if policy.expire_invalidated_ads { store.expire(&table, &key) } else { store.remove(&table, &key) };
    }
    match query.lookup("Requirements") {
        Some(constraint) => store.remove_matching(&table, constraint),
        None => 0,
    }
}
