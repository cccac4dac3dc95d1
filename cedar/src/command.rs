//! Command numbers (`src/condor_includes/condor_commands.h` at v23.9.6):
//! the collector's, the negotiator's, the schedd's negotiation protocol
//! and the DaemonCore (`DC_*`) ones this crate deals with.
//!
//! They are plain `i32` constants, since the wire carries any integer and a
//! server must answer unknown ones; [`name`] gives C++'s name for those
//! known here.
//!
//! ```
//! use cedar::command::{self, DC_AUTHENTICATE, QUERY_STARTD_ADS};
//! assert_eq!(DC_AUTHENTICATE, 60010);
//! assert_eq!(command::name(QUERY_STARTD_ADS), Some("QUERY_STARTD_ADS"));
//! assert_eq!(command::by_name("UPDATE_STARTD_AD_WITH_ACK"), Some(60));
//! assert_eq!(command::name(12345), None);
//! ```

macro_rules! commands {
    ($( $(#[$doc:meta])* $name:ident = $value:expr; )*) => {
        $( $(#[$doc])* pub const $name: i32 = $value; )*

        /// Every command known here, with its C++ name.
        pub const ALL: &[(i32, &str)] = &[ $( ($value, stringify!($name)) ),* ];
    };
}

/// The base of the schedd's commands (`SCHED_VERS`).
pub const SCHED_VERS: i32 = 400;
/// The base of DaemonCore's commands (`DC_BASE`).
pub const DC_BASE: i32 = 60000;

commands! {
    /// A startd's slot ad (and private ad).
    UPDATE_STARTD_AD = 0;
    /// A schedd's ad.
    UPDATE_SCHEDD_AD = 1;
    /// A master's ad.
    UPDATE_MASTER_AD = 2;
    /// A checkpoint server's ad.
    UPDATE_CKPT_SRVR_AD = 4;
    /// Query slot (or startd daemon) ads.
    QUERY_STARTD_ADS = 5;
    /// Query schedd ads.
    QUERY_SCHEDD_ADS = 6;
    /// Query master ads.
    QUERY_MASTER_ADS = 7;
    /// Query checkpoint server ads.
    QUERY_CKPT_SRVR_ADS = 9;
    /// Query slot ads with their private attributes (the negotiator).
    QUERY_STARTD_PVT_ADS = 10;
    /// A submitter ad.
    UPDATE_SUBMITTOR_AD = 11;
    /// Query submitter ads.
    QUERY_SUBMITTOR_ADS = 12;
    /// Remove slot ads.
    INVALIDATE_STARTD_ADS = 13;
    /// Remove schedd ads.
    INVALIDATE_SCHEDD_ADS = 14;
    /// Remove master ads.
    INVALIDATE_MASTER_ADS = 15;
    /// Remove checkpoint server ads.
    INVALIDATE_CKPT_SRVR_ADS = 17;
    /// Remove submitter ads.
    INVALIDATE_SUBMITTOR_ADS = 18;
    /// A collector's ad.
    UPDATE_COLLECTOR_AD = 19;
    /// Query collector ads.
    QUERY_COLLECTOR_ADS = 20;
    /// Remove collector ads.
    INVALIDATE_COLLECTOR_ADS = 21;
    /// A license ad.
    UPDATE_LICENSE_AD = 42;
    /// Query license ads.
    QUERY_LICENSE_ADS = 43;
    /// Remove license ads.
    INVALIDATE_LICENSE_ADS = 44;
    /// A storage ad.
    UPDATE_STORAGE_AD = 45;
    /// Query storage ads.
    QUERY_STORAGE_ADS = 46;
    /// Remove storage ads.
    INVALIDATE_STORAGE_ADS = 47;
    /// Query ads of every type.
    QUERY_ANY_ADS = 48;
    /// A negotiator's ad.
    UPDATE_NEGOTIATOR_AD = 49;
    /// Query negotiator ads.
    QUERY_NEGOTIATOR_ADS = 50;
    /// Remove negotiator ads.
    INVALIDATE_NEGOTIATOR_ADS = 51;
    /// Query several ad types at once (`TargetType` is a list).
    QUERY_MULTIPLE_ADS = 53;
    /// The same, with private attributes (the negotiator).
    QUERY_MULTIPLE_PVT_ADS = 54;
    /// An HAD ad.
    UPDATE_HAD_AD = 55;
    /// Query HAD ads.
    QUERY_HAD_ADS = 56;
    /// Remove HAD ads.
    INVALIDATE_HAD_ADS = 57;
    /// An ad of any other type.
    UPDATE_AD_GENERIC = 58;
    /// Remove ads of any other type.
    INVALIDATE_ADS_GENERIC = 59;
    /// A slot ad, acknowledged with `int 1`.
    UPDATE_STARTD_AD_WITH_ACK = 60;
    /// Register with a CCB server.
    CCB_REGISTER = 67;
    /// Ask a CCB server for a reversed connection.
    CCB_REQUEST = 68;
    /// A reversed connection through CCB.
    CCB_REVERSE_CONNECT = 69;
    /// A grid ad.
    UPDATE_GRID_AD = 70;
    /// Query grid ads.
    QUERY_GRID_ADS = 71;
    /// Remove grid ads.
    INVALIDATE_GRID_ADS = 72;
    /// Merge attributes into a slot ad.
    MERGE_STARTD_AD = 73;
    /// Query ads of a generic type.
    QUERY_GENERIC_ADS = 74;
    /// Reach a daemon behind `condor_shared_port`.
    SHARED_PORT_CONNECT = 75;
    /// An accounting ad.
    UPDATE_ACCOUNTING_AD = 77;
    /// Query accounting ads.
    QUERY_ACCOUNTING_ADS = 78;
    /// Remove accounting ads.
    INVALIDATE_ACCOUNTING_ADS = 79;
    /// A submitter ad sent by the submitter's own schedd.
    UPDATE_OWN_SUBMITTOR_AD = 80;
    /// Negotiation: a claim offer (old protocol).
    PERMISSION = SCHED_VERS + 7;
    /// The negotiator starts a negotiation cycle with a schedd.
    NEGOTIATE = SCHED_VERS + 16;
    /// Negotiation: ask the schedd for the next job.
    SEND_JOB_INFO = SCHED_VERS + 17;
    /// Negotiation: the schedd has no more jobs.
    NO_MORE_JOBS = SCHED_VERS + 18;
    /// Negotiation: a job ad follows.
    JOB_INFO = SCHED_VERS + 19;
    /// Ask the negotiator for a cycle soon.
    RESCHEDULE = SCHED_VERS + 21;
    /// Negotiation: the end of a schedd's turn.
    END_NEGOTIATE = SCHED_VERS + 25;
    /// Negotiation: no match for the job.
    REJECTED = SCHED_VERS + 26;
    /// Match details sent to a startd.
    MATCH_INFO = SCHED_VERS + 40;
    /// Set a submitter's real priority (`condor_userprio -setprio`).
    SET_PRIORITY = SCHED_VERS + 49;
    /// Ask the negotiator for user priorities.
    GET_PRIORITY = SCHED_VERS + 51;
    /// Reset a submitter's accumulated usage (`condor_userprio -resetusage`).
    RESET_USAGE = SCHED_VERS + 58;
    /// Set a submitter's priority factor (`condor_userprio -setfactor`).
    SET_PRIORITYFACTOR = SCHED_VERS + 59;
    /// Reset every submitter's accumulated usage (`condor_userprio -resetall`).
    RESET_ALL_USAGE = SCHED_VERS + 60;
    /// Ask the negotiator for resource usage.
    GET_RESLIST = SCHED_VERS + 63;
    /// Negotiation: a match, with the claim id and the slot ad.
    PERMISSION_AND_AD = SCHED_VERS + 72;
    /// Negotiation: no match, with the reason.
    REJECTED_WITH_REASON = SCHED_VERS + 76;
    /// Delete an accountant record (`condor_userprio -delete`).
    DELETE_USER = SCHED_VERS + 82;
    /// Set a submitter's accumulated usage (`condor_userprio -setaccum`).
    SET_ACCUMUSAGE = SCHED_VERS + 94;
    /// Set when a submitter's usage began (`condor_userprio -setbegin`).
    SET_BEGINTIME = SCHED_VERS + 95;
    /// Set when a submitter's usage was last seen (`condor_userprio -setlast`).
    SET_LASTTIME = SCHED_VERS + 96;
    /// GET_PRIORITY_ROLLUP's number before 7.9.6 (it clashed with
    /// `DRAIN_JOBS`); the negotiator still serves it.
    GET_PRIORITY_ROLLUP_OLD = SCHED_VERS + 112;
    /// Ask the negotiator for priorities summed over groups.
    GET_PRIORITY_ROLLUP = SCHED_VERS + 114;
    /// Negotiation: ask the schedd for a list of resource requests.
    SEND_RESOURCE_REQUEST_LIST = SCHED_VERS + 118;
    /// Set a submitter's ceiling (`condor_userprio -setceiling`).
    SET_CEILING = SCHED_VERS + 125;
    /// Set a submitter's floor (`condor_userprio -setfloor`).
    SET_FLOOR = SCHED_VERS + 130;
    /// Reread the configuration.
    DC_RECONFIG = DC_BASE + 4;
    /// Shut down gracefully.
    DC_OFF_GRACEFUL = DC_BASE + 5;
    /// Shut down fast.
    DC_OFF_FAST = DC_BASE + 6;
    /// The security handshake; the real command is inside the client's ad.
    DC_AUTHENTICATE = DC_BASE + 10;
    /// Nothing: a polite hang-up on a reused connection.
    DC_NOP = DC_BASE + 11;
    /// Reread the configuration fully.
    DC_RECONFIG_FULL = DC_BASE + 12;
    /// Tell a peer a session id is no longer valid.
    DC_INVALIDATE_KEY = DC_BASE + 14;
    /// Shut down peacefully.
    DC_OFF_PEACEFUL = DC_BASE + 15;
    /// Nothing, at READ level.
    DC_NOP_READ = DC_BASE + 20;
    /// Nothing, at WRITE level.
    DC_NOP_WRITE = DC_BASE + 21;
    /// Nothing, at NEGOTIATOR level.
    DC_NOP_NEGOTIATOR = DC_BASE + 22;
    /// Nothing, at ADMINISTRATOR level.
    DC_NOP_ADMINISTRATOR = DC_BASE + 23;
    /// Nothing, at OWNER level.
    DC_NOP_OWNER = DC_BASE + 24;
    /// Nothing, at CONFIG level.
    DC_NOP_CONFIG = DC_BASE + 25;
    /// Nothing, at DAEMON level.
    DC_NOP_DAEMON = DC_BASE + 26;
    /// Nothing, at ADVERTISE_STARTD level.
    DC_NOP_ADVERTISE_STARTD = DC_BASE + 27;
    /// Nothing, at ADVERTISE_SCHEDD level.
    DC_NOP_ADVERTISE_SCHEDD = DC_BASE + 28;
    /// Nothing, at ADVERTISE_MASTER level.
    DC_NOP_ADVERTISE_MASTER = DC_BASE + 29;
    /// Would a command be authorized (`condor_ping`)?
    DC_SEC_QUERY = DC_BASE + 40;
    /// Shut down at once.
    DC_OFF_FORCE = DC_BASE + 42;
    /// Ask for the daemon's instance id.
    DC_QUERY_INSTANCE = DC_BASE + 45;
}

/// C++'s name of a command known here.
pub fn name(command: i32) -> Option<&'static str> {
    ALL.iter().find(|(n, _)| *n == command).map(|(_, s)| *s)
}

/// The number of a command known here, by its C++ name.
pub fn by_name(name: &str) -> Option<i32> {
    ALL.iter().find(|(_, s)| *s == name).map(|(n, _)| *n)
}

/// Whether `command` is `DC_NOP` or one of its per-level variants
/// (`DC_NOP_READ` … `DC_NOP_ADVERTISE_MASTER`, which `condor_ping` tests a
/// level with): commands that do nothing.
pub fn is_nop(command: i32) -> bool {
    command == DC_NOP || (DC_NOP_READ..=DC_NOP_ADVERTISE_MASTER).contains(&command)
}

/// Whether `command` is one of the collector's queries.
pub fn is_query(command: i32) -> bool {
    matches!(
        command,
        QUERY_STARTD_ADS
            | QUERY_SCHEDD_ADS
            | QUERY_MASTER_ADS
            | QUERY_CKPT_SRVR_ADS
            | QUERY_STARTD_PVT_ADS
            | QUERY_SUBMITTOR_ADS
            | QUERY_COLLECTOR_ADS
            | QUERY_LICENSE_ADS
            | QUERY_STORAGE_ADS
            | QUERY_ANY_ADS
            | QUERY_NEGOTIATOR_ADS
            | QUERY_MULTIPLE_ADS
            | QUERY_MULTIPLE_PVT_ADS
            | QUERY_HAD_ADS
            | QUERY_GRID_ADS
            | QUERY_GENERIC_ADS
            | QUERY_ACCOUNTING_ADS
    )
}
