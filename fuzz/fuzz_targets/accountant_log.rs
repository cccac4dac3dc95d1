//! The accountant's log (`Accountantnew.log`, HTCondor's ClassAd log):
//! `Accountant::from_log_text`, what `negotiator-sim cycle --accountant`
//! and `userprio --log` read. A log that loads must give priority rows,
//! a `condor_userprio` table and a compacted snapshot without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use matchmaker::accountant::{Accountant, AccountantConfig, UserprioTable};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok((mut acct, _report)) = Accountant::from_log_text(AccountantConfig::default(), text) else {
        return;
    };
    let rows = acct.priority_rows();
    let _ = UserprioTable::new(acct.last_update()).all().render(&rows, acct.last_update());
    let _ = acct.snapshot();
    let _ = acct.update_priorities(acct.last_update().saturating_add(60));
});
