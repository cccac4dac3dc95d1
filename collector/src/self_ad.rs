//! The collector's own ad (`condor_status -collector`), as
//! `init_classad` and `sendCollectorAd` make it: who it is, where it
//! listens, and the pool's totals.

use classad::ClassAd;

use crate::config::CollectorConfig;
use crate::key::{int_attr, string_attr};
use crate::store::Store;
use crate::Table;

/// Where and since when the collector runs.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Identity {
    /// Its command address, a sinful string (`<ip:port?...>`).
    pub address: String,
    /// Its `CondorVersion` string.
    pub version: String,
    /// Its `CondorPlatform` string.
    pub platform: String,
    /// When it started (Unix seconds).
    pub start_time: i64,
}

impl Identity {
    /// A collector at `address`, started at `start_time`, with our
    /// version and platform strings.
    pub fn new(address: impl Into<String>, start_time: i64) -> Identity {
        Identity {
            address: address.into(),
            version: cedar::version::OUR_VERSION.to_owned(),
            platform: OUR_PLATFORM.to_owned(),
            start_time,
        }
    }
}

/// Our `CondorPlatform`.
pub use cedar::version::OUR_PLATFORM;

/// The pool's totals, as `sendCollectorAd` counts them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Totals {
    /// Submitter ads.
    pub submitter_ads: i64,
    /// Their `RunningJobs`, summed (submitters lacking either count are
    /// skipped, as in the C++).
    pub running_jobs: i64,
    /// Their `IdleJobs`, summed.
    pub idle_jobs: i64,
    /// Slot ads.
    pub machine_ads: i64,
    /// Slot ads with a `State`.
    pub hosts_total: i64,
    /// Of those, `Claimed`.
    pub hosts_claimed: i64,
    /// `Unclaimed`.
    pub hosts_unclaimed: i64,
    /// `Owner`.
    pub hosts_owner: i64,
}

impl Totals {
    /// Counts the store's submitter and slot ads.
    pub fn count(store: &Store) -> Totals {
        let mut t = Totals::default();
        for rec in store.snapshot(&Table::Submitter).iter() {
            t.submitter_ads += 1;
            let ad = rec.public();
            if let (Some(r), Some(i)) = (int_attr(ad, "RunningJobs"), int_attr(ad, "IdleJobs")) {
                t.running_jobs += r;
                t.idle_jobs += i;
            }
        }
        for rec in store.snapshot(&Table::Slot).iter() {
            t.machine_ads += 1;
            if let Some(state) = string_attr(rec.public(), "State") {
                t.hosts_total += 1;
                // The C++ looks at the first letter only.
                match state.as_bytes().first() {
                    Some(b'C') => t.hosts_claimed += 1,
                    Some(b'U') => t.hosts_unclaimed += 1,
                    Some(b'O') => t.hosts_owner += 1,
                    _ => {}
                }
            }
        }
        t
    }
}

/// The collector's ad for `config` and `identity`, with the store's
/// totals, at time `now`.
///
/// ```
/// use collector::config::CollectorConfig;
/// use collector::self_ad::{collector_ad, Identity, Totals};
/// let identity = Identity::new("<127.0.0.1:9618?addrs=127.0.0.1-9618&noUDP>", 1_700_000_000);
/// let ad = collector_ad(&CollectorConfig::new("cm.example.org"), &identity, &Totals::default(), 1_700_000_060);
/// assert_eq!(ad.lookup("MyType").map(|e| e.to_string()).as_deref(), Some("\"Collector\""));
/// assert_eq!(ad.lookup("HostsTotal").map(|e| e.to_string()).as_deref(), Some("0"));
/// ```
pub fn collector_ad(config: &CollectorConfig, identity: &Identity, totals: &Totals, now: i64) -> ClassAd {
    let mut ad = ClassAd::new();
    ad.insert("MyType", "Collector");
    ad.insert("Name", config.ad_name());
    ad.insert("Machine", config.hostname.as_str());
    if let Some(admin) = &config.condor_admin {
        ad.insert("CondorAdmin", admin.as_str());
    }
    ad.insert("CollectorIpAddr", identity.address.as_str());
    ad.insert("MyAddress", identity.address.as_str());
    ad.insert("AddressV1", address_v1(&identity.address));
    ad.insert("CondorVersion", identity.version.as_str());
    ad.insert("CondorPlatform", identity.platform.as_str());
    ad.insert("DaemonStartTime", identity.start_time);
    ad.insert("MyCurrentTime", now);
    if config.update_interval > 0 {
        ad.insert("UpdateInterval", 24 * config.update_interval);
    }
    ad.insert("RunningJobs", totals.running_jobs);
    ad.insert("IdleJobs", totals.idle_jobs);
    ad.insert("HostsTotal", totals.hosts_total);
    ad.insert("HostsClaimed", totals.hosts_claimed);
    ad.insert("HostsUnclaimed", totals.hosts_unclaimed);
    ad.insert("HostsOwner", totals.hosts_owner);
    ad.insert("MachineAds", totals.machine_ads);
    ad.insert("SubmitterAds", totals.submitter_ads);
    ad
}

/// `AddressV1`: the address as the list `{[ p="primary"; a="ip"; port=N; n="Internet" ]}`
/// daemon core publishes, from the sinful's host and port.
fn address_v1(sinful: &str) -> String {
    let inner = sinful.trim_start_matches('<').split(['?', '>']).next().unwrap_or("");
    let (host, port) = inner.rsplit_once(':').unwrap_or((inner, "0"));
    format!("{{[ p=\"primary\"; a=\"{host}\"; port={port}; n=\"Internet\"; ], [ p=\"IPv4\"; a=\"{host}\"; port={port}; n=\"Internet\"; ]}}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::UpdateCommand;

    #[test]
    fn totals_count_states_by_first_letter_and_complete_submitters() {
        let store = Store::new(900);
        for (n, state) in [(1, "Claimed"), (2, "Unclaimed"), (3, "Owner"), (4, "Matched")] {
            let ad: ClassAd =
                format!(r#"[ MyType = "Machine"; Name = "slot{n}@h"; State = "{state}" ]"#).parse().expect("ad");
            store.update(UpdateCommand::Startd, ad, None, 1000).expect("stored");
        }
        let nostate: ClassAd = r#"[ MyType = "Machine"; Name = "slot5@h" ]"#.parse().expect("ad");
        store.update(UpdateCommand::Startd, nostate, None, 1000).expect("stored");
        for (name, counts) in [("a", "RunningJobs = 2; IdleJobs = 3"), ("b", "RunningJobs = 5")] {
            let ad: ClassAd = format!(
                r#"[ MyType = "Submitter"; Name = "{name}@x"; ScheddName = "s"; MyAddress = "<10.0.0.1:1>"; {counts} ]"#
            )
            .parse()
            .expect("ad");
            store.update(UpdateCommand::Submitter, ad, None, 1000).expect("stored");
        }
        let t = Totals::count(&store);
        assert_eq!((t.machine_ads, t.hosts_total), (5, 4));
        assert_eq!((t.hosts_claimed, t.hosts_unclaimed, t.hosts_owner), (1, 1, 1));
        assert_eq!((t.submitter_ads, t.running_jobs, t.idle_jobs), (2, 2, 3));
    }

    #[test]
    fn address_v1_lists_the_primary_address() {
        let v1 = address_v1("<10.1.2.3:9618?addrs=10.1.2.3-9618&noUDP>");
        assert!(v1.contains("a=\"10.1.2.3\"; port=9618"), "{v1}");
        let parsed: Result<classad::Expr, _> = v1.parse();
        assert!(parsed.is_ok(), "{v1}");
    }
}
