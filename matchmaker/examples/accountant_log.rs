//! Writes an accountant log the way a negotiator would over a few hours of
//! a small pool: three users, matches made and ended between updates, an
//! administrator's edits, and compaction once the log grows.
//!
//! ```text
//! cargo run -p matchmaker --example accountant_log -- Accountantnew.log [START_EPOCH]
//! negotiator-sim userprio --log Accountantnew.log --allusers
//! ```
//!
//! The log it writes is the one checked against HTCondor's own negotiator
//! (see `tests/data/accountant/check_load.sh`).

use std::path::PathBuf;

use classad::ClassAd;
use matchmaker::accountant::{Accountant, AccountantConfig};

fn slot(n: usize, cpus: i64, user: Option<&str>) -> ClassAd {
    let state = if user.is_some() { "Claimed" } else { "Unclaimed" };
    let user = user.map_or(String::new(), |u| format!("RemoteUser = \"{u}\";"));
    format!(
        "[ Name = \"slot{n}@node\"; StartdIpAddr = \"<10.0.0.1:9618>\"; State = \"{state}\"; {user} Cpus = {cpus}; SlotWeight = Cpus ]"
    )
    .parse()
    .expect("a slot ad")
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = PathBuf::from(args.next().unwrap_or_else(|| "Accountantnew.log".into()));
    let start: i64 = args.next().map_or(Ok(1_764_000_000), |s| s.parse())?;
    let mut config = AccountantConfig::default();
    config.half_life = 3600.0;
    config.max_log_size = 20_000;
    let (mut acct, _) = Accountant::open(config, &path, start)?;
    acct.set_priority_factor("bob@example.org", 2000.0)?;
    acct.set_ceiling("carol@example.org", 4)?;
    acct.set_floor("alice@example.org", 1)?;
    let users = ["alice@example.org", "bob@example.org", "carol@example.org"];
    // Four hours of cycles a minute apart: each user holds some of eight
    // slots, changing now and then, matches made between cycles.
    for minute in 0..240i64 {
        let now = start + minute * 60;
        acct.update_priorities(now)?;
        let slots: Vec<ClassAd> = (0..8)
            .map(|n| {
                let holder = (minute / 37 + n as i64 * 5) % 4;
                slot(n, 1 + (n as i64 % 2), users.get(holder as usize).copied())
            })
            .collect();
        acct.check_matches(now, &slots)?;
        if minute % 45 == 20 {
            let extra = slot(8, 2, Some(users[(minute / 45) as usize % 3]));
            acct.add_match(users[(minute / 45) as usize % 3], &extra, now + 17)?;
        }
    }
    acct.reset_usage("carol@example.org", start + 240 * 60)?;
    println!("{}: {} records, last update {}", path.display(), acct.customers().len(), acct.last_update());
    Ok(())
}
