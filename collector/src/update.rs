//! Updates and invalidations: the payloads of the `UPDATE_*`,
//! `MERGE_STARTD_AD` and `INVALIDATE_*` commands, and what the C++
//! collector does with them (`collect`, `process_invalidation`).

use cedar::command as c;
use cedar::wire::ad::{get_classad, AdLimits};
use cedar::wire::Decoder;
use classad::ClassAd;

use crate::key::{make_key, string_attr};
use crate::store::{Store, UpdateCommand, UpdateError, Updated};
use crate::Table;

/// The ads an update command carries.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct UpdatePayload {
    /// The (public) ad.
    pub ad: ClassAd,
    /// The startd's private ad, when `UPDATE_STARTD_AD` brings one.
    pub private: Option<ClassAd>,
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
/// collector stores as sent).
pub fn apply_update(
    store: &Store,
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
        return store.remove(&table, &key);
    }
    match query.lookup("Requirements") {
        Some(constraint) => store.remove_matching(&table, constraint),
        None => 0,
    }
}
