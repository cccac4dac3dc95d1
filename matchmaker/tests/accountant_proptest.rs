//! Any text read as an accountant's log gives an accountant or an error,
//! never a panic; and what the accountant writes reads back the same.

use matchmaker::accountant::{Accountant, AccountantConfig};
use proptest::prelude::*;

/// Lines that look like a log's, mixed with noise.
fn log_line() -> impl Strategy<Value = String> {
    let key = prop_oneof![
        Just("Accountant.".to_string()),
        "[a-c]{1,3}@d".prop_map(|u| format!("Customer.{u}")),
        "slot[0-3]@n@<1:2>".prop_map(|r| format!("Resource.{r}")),
        "[A-Za-z.<>@]{0,8}",
    ];
    let name = prop_oneof![
        Just("Priority".to_string()),
        Just("PriorityFactor".to_string()),
        Just("ResourcesUsed".to_string()),
        Just("RemoteUser".to_string()),
        Just("LastUpdateTime".to_string()),
        "[A-Za-z]{1,6}",
    ];
    let value = prop_oneof!["-?[0-9]{1,6}(\\.[0-9]{1,8})?", "\"[a-z@]{0,5}\"", "[ -~]{0,12}",];
    prop_oneof![
        (key.clone(), name.clone(), value).prop_map(|(k, n, v)| format!("103 {k} {n} {v}")),
        key.clone().prop_map(|k| format!("101 {k} * *")),
        key.clone().prop_map(|k| format!("102 {k}")),
        (key, name).prop_map(|(k, n)| format!("104 {k} {n}")),
        Just("105 ".to_string()),
        Just("106 ".to_string()),
        Just("107 3 CreationTimestamp 12".to_string()),
        "[ -~]{0,20}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn any_log_reads_without_panic(lines in proptest::collection::vec(log_line(), 0..40), cut in 0usize..2000) {
        let text = lines.join("\n");
        let mut end = cut.min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let text = &text[..end];
        if let Ok((mut acct, _)) = Accountant::from_log_text(AccountantConfig::default(), text) {
            // Whatever loaded can be updated, reported and written again.
            let _ = acct.update_priorities(1_000_000);
            let _ = acct.priority_rows();
            if let Ok(state) = acct.snapshot() {
                let (again, report) = Accountant::from_log_text(AccountantConfig::default(), state.as_str())
                    .expect("a snapshot reads back");
                prop_assert!(report.warnings.is_empty(), "{:?}", report.warnings);
                prop_assert_eq!(again.customers(), acct.customers());
                prop_assert_eq!(again.resources(), acct.resources());
            }
        }
    }
}
