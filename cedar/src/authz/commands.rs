//! Which permission level each collector and negotiator command needs, as
//! the 23.9.6 daemons register them (`collector.cpp` 289–425,
//! `matchmaker.cpp` 543–625; numbers from `condor_commands.h`).
//!
//! Only the daemons' own commands are here; daemon-core's generic ones
//! (DC_NOP, DC_RECONFIG, DC_SEC_QUERY, …) are registered by daemon-core
//! for every daemon and are not listed.

use super::perm::Permission::{self, *};

/// One command registration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct CommandPermission {
    /// The command number.
    pub command: u32,
    /// HTCondor's name for it.
    pub name: &'static str,
    /// The level the command is registered with.
    pub perm: Permission,
    /// Alternate levels that also admit it (tried after `perm`).
    pub alternates: &'static [Permission],
}

const fn c(command: u32, name: &'static str, perm: Permission) -> CommandPermission {
    CommandPermission { command, name, perm, alternates: &[] }
}

const fn alt(
    command: u32,
    name: &'static str,
    perm: Permission,
    alternates: &'static [Permission],
) -> CommandPermission {
    CommandPermission { command, name, perm, alternates }
}

/// The collector's commands.
pub const COLLECTOR_COMMANDS: &[CommandPermission] = &[
    // Queries.
    c(5, "QUERY_STARTD_ADS", Read),
    c(10, "QUERY_STARTD_PVT_ADS", Negotiator),
    c(6, "QUERY_SCHEDD_ADS", Read),
    c(7, "QUERY_MASTER_ADS", Read),
    c(9, "QUERY_CKPT_SRVR_ADS", Read),
    c(12, "QUERY_SUBMITTOR_ADS", Read),
    c(43, "QUERY_LICENSE_ADS", Read),
    c(20, "QUERY_COLLECTOR_ADS", Read),
    c(46, "QUERY_STORAGE_ADS", Read),
    c(78, "QUERY_ACCOUNTING_ADS", Read),
    c(50, "QUERY_NEGOTIATOR_ADS", Read),
    c(56, "QUERY_HAD_ADS", Read),
    c(48, "QUERY_ANY_ADS", Read),
    c(71, "QUERY_GRID_ADS", Read),
    c(74, "QUERY_GENERIC_ADS", Read),
    c(53, "QUERY_MULTIPLE_ADS", Read),
    c(54, "QUERY_MULTIPLE_PVT_ADS", Negotiator),
    // Invalidations.
    c(13, "INVALIDATE_STARTD_ADS", AdvertiseStartd),
    c(14, "INVALIDATE_SCHEDD_ADS", AdvertiseSchedd),
    c(15, "INVALIDATE_MASTER_ADS", AdvertiseMaster),
    c(17, "INVALIDATE_CKPT_SRVR_ADS", Daemon),
    c(18, "INVALIDATE_SUBMITTOR_ADS", AdvertiseSchedd),
    c(44, "INVALIDATE_LICENSE_ADS", Daemon),
    c(21, "INVALIDATE_COLLECTOR_ADS", Daemon),
    c(47, "INVALIDATE_STORAGE_ADS", Daemon),
    c(79, "INVALIDATE_ACCOUNTING_ADS", Negotiator),
    c(51, "INVALIDATE_NEGOTIATOR_ADS", Negotiator),
    c(57, "INVALIDATE_HAD_ADS", Daemon),
    c(59, "INVALIDATE_ADS_GENERIC", Daemon),
    c(72, "INVALIDATE_GRID_ADS", Daemon),
    // Updates.
    c(0, "UPDATE_STARTD_AD", AdvertiseStartd),
    c(73, "MERGE_STARTD_AD", Negotiator),
    c(1, "UPDATE_SCHEDD_AD", AdvertiseSchedd),
    c(11, "UPDATE_SUBMITTOR_AD", AdvertiseSchedd),
    c(42, "UPDATE_LICENSE_AD", Daemon),
    c(2, "UPDATE_MASTER_AD", AdvertiseMaster),
    c(4, "UPDATE_CKPT_SRVR_AD", Daemon),
    c(19, "UPDATE_COLLECTOR_AD", Daemon),
    c(45, "UPDATE_STORAGE_AD", Daemon),
    c(49, "UPDATE_NEGOTIATOR_AD", Negotiator),
    c(55, "UPDATE_HAD_AD", Daemon),
    c(58, "UPDATE_AD_GENERIC", Daemon),
    c(70, "UPDATE_GRID_AD", Daemon),
    c(77, "UPDATE_ACCOUNTING_AD", Negotiator),
    // Users may advertise their own submitter ads (ALLOW as the alternate;
    // the handler then checks the ad's contents against the identity).
    alt(80, "UPDATE_OWN_SUBMITTOR_AD", Daemon, &[Allow]),
    // Registered with force_authentication: needs a mapped identity.
    alt(81, "IMPERSONATION_TOKEN_REQUEST", Daemon, &[Allow]),
    c(60, "UPDATE_STARTD_AD_WITH_ACK", AdvertiseStartd),
];

/// The negotiator's commands.
pub const NEGOTIATOR_COMMANDS: &[CommandPermission] = &[
    alt(421, "RESCHEDULE", Daemon, &[AdvertiseSchedd, Administrator]),
    c(460, "RESET_ALL_USAGE", Administrator),
    c(458, "RESET_USAGE", Administrator),
    c(482, "DELETE_USER", Administrator),
    c(459, "SET_PRIORITYFACTOR", Write),
    c(449, "SET_PRIORITY", Administrator),
    c(525, "SET_CEILING", Administrator),
    c(530, "SET_FLOOR", Administrator),
    c(494, "SET_ACCUMUSAGE", Administrator),
    c(495, "SET_BEGINTIME", Administrator),
    c(496, "SET_LASTTIME", Administrator),
    c(451, "GET_PRIORITY", Read),
    c(514, "GET_PRIORITY_ROLLUP", Read),
    c(512, "GET_PRIORITY_ROLLUP_OLD", Read),
    c(463, "GET_RESLIST", Read),
    c(50, "QUERY_NEGOTIATOR_ADS", Read),
    c(78, "QUERY_ACCOUNTING_ADS", Read),
];

/// The collector's registration of `command`, if it has one.
///
/// ```
/// use cedar::authz::{collector_command, Permission};
/// assert_eq!(collector_command(0).unwrap().perm, Permission::AdvertiseStartd);
/// assert_eq!(collector_command(10).unwrap().perm, Permission::Negotiator);
/// assert!(collector_command(416).is_none());
/// ```
pub fn collector_command(command: u32) -> Option<&'static CommandPermission> {
    COLLECTOR_COMMANDS.iter().find(|c| c.command == command)
}

/// The negotiator's registration of `command`, if it has one.
pub fn negotiator_command(command: u32) -> Option<&'static CommandPermission> {
    NEGOTIATOR_COMMANDS.iter().find(|c| c.command == command)
}
