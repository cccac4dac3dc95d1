//! Permission levels: a table over every level of HTCondor 23.9.6
//! (`condor_perms.h`, `condor_perms.cpp`), and the command tables against
//! the registrations read from the 23.9.6 sources
//! (`data/authz/registrations.txt`, made by `registrations.py`).

#![allow(clippy::unwrap_used)] // test helpers; the rules allow unwrap in tests

use cedar::authz::Permission::{self, *};
use cedar::authz::*;

struct Row {
    perm: Permission,
    number: u8,
    name: &'static str,
    implies: &'static [Permission],
    implied_by: &'static [Permission],
    config: &'static [Permission],
    legacy_config: &'static [Permission],
}

const TABLE: &[Row] = &[
    Row {
        perm: Allow,
        number: 0,
        name: "ALLOW",
        implies: &[Allow],
        implied_by: &[],
        config: &[Allow, Default],
        legacy_config: &[Allow, Default],
    },
    Row {
        perm: Read,
        number: 1,
        name: "READ",
        implies: &[Read],
        implied_by: &[Write, Negotiator, Config, AdvertiseStartd, AdvertiseSchedd, AdvertiseMaster],
        config: &[Read, Default],
        legacy_config: &[Read, Default],
    },
    Row {
        perm: Write,
        number: 2,
        name: "WRITE",
        implies: &[Write, Read],
        implied_by: &[Administrator, Daemon],
        config: &[Write, Default],
        legacy_config: &[Write, Default],
    },
    Row {
        perm: Negotiator,
        number: 3,
        name: "NEGOTIATOR",
        implies: &[Negotiator, Read],
        implied_by: &[],
        config: &[Negotiator, Default],
        legacy_config: &[Negotiator, Default],
    },
    Row {
        perm: Administrator,
        number: 4,
        name: "ADMINISTRATOR",
        implies: &[Administrator, Write, Read],
        implied_by: &[],
        config: &[Administrator, Default],
        legacy_config: &[Administrator, Default],
    },
    Row {
        perm: Config,
        number: 5,
        name: "CONFIG",
        implies: &[Config, Read],
        implied_by: &[],
        config: &[Config, Default],
        legacy_config: &[Config, Default],
    },
    Row {
        perm: Daemon,
        number: 6,
        name: "DAEMON",
        implies: &[Daemon, Write, Read],
        implied_by: &[],
        config: &[Daemon, Default],
        legacy_config: &[Daemon, Write, Default],
    },
    Row {
        perm: Soap,
        number: 7,
        name: "SOAP",
        implies: &[Soap],
        implied_by: &[],
        config: &[Soap, Default],
        legacy_config: &[Soap, Default],
    },
    Row {
        perm: Default,
        number: 8,
        name: "DEFAULT",
        implies: &[Default],
        implied_by: &[],
        config: &[Default],
        legacy_config: &[Default],
    },
    Row {
        perm: Client,
        number: 9,
        name: "CLIENT",
        implies: &[Client],
        implied_by: &[],
        config: &[Client, Default],
        legacy_config: &[Client, Default],
    },
    Row {
        perm: AdvertiseStartd,
        number: 10,
        name: "ADVERTISE_STARTD",
        implies: &[AdvertiseStartd, Read],
        implied_by: &[],
        config: &[AdvertiseStartd, Daemon, Default],
        legacy_config: &[AdvertiseStartd, Daemon, Write, Default],
    },
    Row {
        perm: AdvertiseSchedd,
        number: 11,
        name: "ADVERTISE_SCHEDD",
        implies: &[AdvertiseSchedd, Read],
        implied_by: &[],
        config: &[AdvertiseSchedd, Daemon, Default],
        legacy_config: &[AdvertiseSchedd, Daemon, Write, Default],
    },
    Row {
        perm: AdvertiseMaster,
        number: 12,
        name: "ADVERTISE_MASTER",
        implies: &[AdvertiseMaster, Read],
        implied_by: &[],
        config: &[AdvertiseMaster, Daemon, Default],
        legacy_config: &[AdvertiseMaster, Daemon, Write, Default],
    },
];

#[test]
fn every_level() {
    assert_eq!(TABLE.len(), Permission::ALL.len());
    for (row, p) in TABLE.iter().zip(Permission::ALL) {
        assert_eq!(row.perm, p);
        assert_eq!(p.number(), row.number, "{p}");
        assert_eq!(Permission::from_number(row.number), Some(p));
        assert_eq!(p.name(), row.name);
        assert_eq!(p.to_string(), row.name);
        assert_eq!(Permission::from_name(row.name), Some(p));
        assert_eq!(Permission::from_name(&row.name.to_ascii_lowercase()), Some(p));
        assert_eq!(p.implied_chain(), row.implies, "{p} implies");
        assert_eq!(p.implied(), row.implies.iter().copied().collect::<PermSet>(), "{p}");
        assert_eq!(p.directly_implied_by(), row.implied_by, "{p} implied by");
        assert_eq!(p.config_chain(false), row.config, "{p} config");
        assert_eq!(p.config_chain(true), row.legacy_config, "{p} legacy config");
        // A grant of X grants everything X implies, and "implied by" is the
        // inverse of "implies" one step.
        for q in Permission::ALL {
            assert_eq!(q.directly_implied_by().contains(&p), p.next_implied() == Some(q), "{p} -> {q}");
        }
    }
    assert_eq!(Permission::from_number(13), None);
    assert_eq!(Permission::from_name("CONFIG_PERM"), None);
    assert_eq!(Permission::from_name(""), None);
}

#[test]
fn permset_display_and_iteration() {
    let s: PermSet = [AdvertiseMaster, Read, Daemon].into_iter().collect();
    assert_eq!(s.to_string(), "READ,DAEMON,ADVERTISE_MASTER");
    assert_eq!(s.iter().count(), 3);
    assert!(PermSet::EMPTY.is_empty());
    assert_eq!(PermSet::EMPTY.to_string(), "");
}

fn registrations() -> Vec<(String, u32, String, Permission, Vec<Permission>)> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/authz/registrations.txt");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            let alts = f[4..].iter().map(|a| Permission::from_name(a).unwrap()).collect();
            (f[0].to_string(), f[1].parse().unwrap(), f[2].to_string(), Permission::from_name(f[3]).unwrap(), alts)
        })
        .collect()
}

#[test]
fn command_tables_match_the_sources() {
    let regs = registrations();
    for (table, daemon) in [(COLLECTOR_COMMANDS, "collector"), (NEGOTIATOR_COMMANDS, "negotiator")] {
        let theirs: Vec<_> = regs.iter().filter(|r| r.0 == daemon).collect();
        assert_eq!(table.len(), theirs.len(), "{daemon}");
        for (ours, r) in table.iter().zip(&theirs) {
            assert_eq!((ours.command, ours.name, ours.perm), (r.1, r.2.as_str(), r.3), "{daemon}");
            assert_eq!(ours.alternates, r.4.as_slice(), "{daemon} {}", r.2);
            let found = if daemon == "collector" { collector_command(r.1) } else { negotiator_command(r.1) };
            assert_eq!(found, Some(ours));
        }
    }
    // daemons.md §3.6 and §5.1, spot checks.
    assert_eq!(collector_command(60).unwrap().perm, AdvertiseStartd);
    assert_eq!(collector_command(54).unwrap().perm, Negotiator);
    assert_eq!(collector_command(77).unwrap().perm, Negotiator);
    assert_eq!(collector_command(58).unwrap().perm, Daemon);
    assert_eq!(negotiator_command(421).unwrap().alternates, &[AdvertiseSchedd, Administrator]);
    assert_eq!(negotiator_command(512).unwrap().perm, Read);
    assert!(negotiator_command(416).is_none());
}
