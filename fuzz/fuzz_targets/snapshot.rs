//! A pool snapshot (`condor_status -long`/`-json`, `condor_q -long`/
//! `-json`, gzipped or not) read by `matchmaker::snapshot::read_ads_from`,
//! what `negotiator-sim cycle` reads its files with, then one negotiation
//! cycle on it: the first byte chooses how many of the ads are slots (the
//! rest are jobs).
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use matchmaker::accountant::{Accountant, AccountantConfig};
use matchmaker::config::Loader;
use matchmaker::negotiator::Negotiator;
use matchmaker::snapshot::{read_ads_from, Snapshot};

fuzz_target!(|data: &[u8]| {
    let Some((&split, input)) = data.split_first() else {
        return;
    };
    let Ok(ads) = read_ads_from(input, Path::new("snapshot.ads")) else {
        return;
    };
    if ads.len() > 200 {
        return;
    }
    let slots = usize::from(split).min(ads.len());
    let mut ads = ads;
    let jobs = ads.split_off(slots);
    let config = Loader::new().subsystem("NEGOTIATOR").defaults();
    let Ok(negotiator) = Negotiator::from_config(&config) else {
        return;
    };
    let mut snapshot = Snapshot {
        slots: ads,
        jobs,
        submitters: Vec::new(),
        accountant: Accountant::new(AccountantConfig::default()),
        config,
        last_update: 1_700_000_000,
        warnings: Vec::new(),
    };
    let queues = snapshot.queues(&negotiator);
    let _ = negotiator.cycle(&mut snapshot.accountant, &snapshot.slots, &queues, 1_700_000_000);
});
