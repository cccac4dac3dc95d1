//! Authorization as HTCondor 23.9 daemons do it: permission levels, the
//! `ALLOW_*`/`DENY_*` lists, the limits CLAIMTOBE and token scopes put on a
//! session, the map file that turns authenticated names into identities,
//! and the level each collector and negotiator command needs.
//!
//! Every rule was checked against HTCondor 23.9.6 itself: its library
//! answering thousands of authorization, map-file and matcher queries, and a
//! running collector (see `cedar/tests/data/authz/` and the "Authorization"
//! section of the crate README). Where 23.9.6 has a bug this crate does not
//! copy, the module that differs says so ([`HostPattern`],
//! [`wildcard_matches`]).
//!
//! The pieces, in the order a daemon uses them:
//!
//! 1. authentication yields a method and a name; [`Identity::resolve`]
//!    applies the method's default and the [`MapFile`] to get the
//!    `user@domain` the lists are matched against;
//! 2. the method may limit the session ([`AuthorizationLimit`]);
//! 3. the command number gives a level ([`collector_command`],
//!    [`negotiator_command`]);
//! 4. [`Authorizer::check_command`] applies the limit, then the lists.
//!
//! ```
//! use cedar::authz::*;
//! // A collector configured the way the chroot's minicondor is.
//! let cfg = |k: &str| match k {
//!     "ALLOW_READ" | "ALLOW_WRITE" => Some("*".to_string()),
//!     "ALLOW_DAEMON" | "ALLOW_NEGOTIATOR" => Some("condor@vm".to_string()),
//!     "ALLOW_ADMINISTRATOR" => Some("root@vm condor@vm".to_string()),
//!     _ => None,
//! };
//! let authz = Authorizer::from_config(&cfg, &AuthzConfig::for_subsystem("COLLECTOR")).unwrap();
//!
//! // A startd that authenticated with a token whose subject is condor@vm,
//! // scoped to advertising.
//! let id = Identity::resolve(AuthMethod::IdTokens, "condor@vm", None,
//!                            &IdentityConfig::with_uid_domain("vm"));
//! let limit = AuthorizationLimit::from_token_scope("condor:/ADVERTISE_STARTD").unwrap().unwrap();
//! let fqu = id.fqu();
//! let peer = Peer::new("127.0.0.1".parse().unwrap()).with_user(&fqu).with_limit(&limit);
//!
//! let update = collector_command(0).unwrap(); // UPDATE_STARTD_AD
//! assert!(authz.check_command(&peer, update.perm, update.alternates).is_allowed());
//! let pvt = collector_command(10).unwrap();   // QUERY_STARTD_PVT_ADS
//! let d = authz.check_command(&peer, pvt.perm, pvt.alternates);
//! assert!(!d.is_allowed()); // ALLOW_NEGOTIATOR matches, but the scope does not
//! ```

mod authorizer;
mod commands;
mod entry;
mod host;
mod identity;
mod limit;
mod mapfile;
mod perm;
mod wildcard;

pub use authorizer::{
    with_subsystem_prefix, Authorizer, AuthzConfig, Decision, Peer, MAX_PEER_HOSTNAMES, UNAUTHENTICATED_USER,
};
pub use commands::{collector_command, negotiator_command, CommandPermission, COLLECTOR_COMMANDS, NEGOTIATOR_COMMANDS};
pub use entry::{parse_list, Entry, MAX_ENTRY_LEN, MAX_LIST_ENTRIES, MAX_LIST_LEN};
pub use host::{HostPattern, MAX_HOST_PATTERN_LEN};
pub use identity::{AuthMethod, Identity, IdentityConfig};
pub use limit::{AuthorizationLimit, MAX_LIMIT_LEN};
pub use mapfile::{
    MapFile, MapFileOptions, MAX_CANONICAL_LEN, MAX_INCLUDED_FILES, MAX_MAPFILE_BYTES, MAX_MAPFILE_LINES,
    MAX_MAPFILE_LINE_LEN, MAX_REGEX_SIZE,
};
pub use perm::{PermSet, Permission};
pub use wildcard::wildcard_matches;
#[doc(hidden)]
pub use wildcard::wildcard_matches_htcondor_23_9;
