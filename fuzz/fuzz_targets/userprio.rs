//! `condor_userprio -allusers -long` output: the ad read as `userprio
//! --from` and a snapshot's `Priorities::Userprio` read it
//! (`PriorityRow::from_userprio_ad`, `Accountant::from_userprio_ad`), and
//! the table printed from it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use matchmaker::accountant::{Accountant, AccountantConfig, PriorityRow, UserprioTable};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(ads) = classad::format::parse_ads(text, None) else {
        return;
    };
    let Some(ad) = ads.first() else {
        return;
    };
    let (rows, last_update) = PriorityRow::from_userprio_ad(ad);
    let _ = UserprioTable::new(last_update).all().render(&rows, last_update);
    let _ = matchmaker::userprio_ad::long_form(&rows, last_update);
    if let Ok(acct) = Accountant::from_userprio_ad(AccountantConfig::default(), ad) {
        let _ = acct.priority_rows();
    }
});
