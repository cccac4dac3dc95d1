//! `Policy::from_config` against HTCondor: for each configuration of
//! `tests/data/startd/policies`, the policy expressions and timers read are
//! those `condor_config_val -subsystem STARTD` gives (recorded in
//! `policy-knobs.json` by `generate.py`).

use std::path::Path;

use matchmaker::config::Loader;
use matchmaker::startd::Policy;

#[test]
fn policies_read_the_knobs_htcondor_gives() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/startd");
    let oracle: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("policy-knobs.json")).expect("oracle")).expect("json");
    let mut checked = 0;
    for (file, knobs) in oracle.as_object().expect("cases") {
        let text = std::fs::read_to_string(dir.join("policies").join(file)).expect("policy file");
        let config = Loader::new().subsystem("STARTD").parse_str(&text, file).expect("config");
        let policy = Policy::from_config(&config).expect("policy");
        for (knob, want) in knobs.as_object().expect("knobs") {
            let want = want.as_str().filter(|v| !v.trim().is_empty());
            let context = format!("{file}: {knob} = {want:?}");
            match knob.as_str() {
                "MATCH_TIMEOUT" | "KILLING_TIMEOUT" | "POLLING_INTERVAL" | "UPDATE_INTERVAL" => {
                    let got = match knob.as_str() {
                        "MATCH_TIMEOUT" => policy.match_timeout,
                        "KILLING_TIMEOUT" => policy.killing_timeout,
                        "POLLING_INTERVAL" => policy.polling_interval,
                        _ => policy.update_interval,
                    };
                    assert_eq!(Some(got.to_string().as_str()), want, "{context}");
                }
                "STARTD_LATCH_EXPRS" => {
                    let names: Vec<&str> = want.map(|w| w.split_whitespace().collect()).unwrap_or_default();
                    assert_eq!(policy.latches[..names.len()], names, "{context}");
                }
                _ => {
                    let (name, default) = match knob.as_str() {
                        "IS_OWNER" => ("IsOwner", Some("(START =?= False)")),
                        "RANK" => ("Rank", None),
                        "CpuBusy" | "WANT_HOLD" => (knob.as_str(), Some("False")),
                        _ => (knob.as_str(), None),
                    };
                    let expected = want.or(default).map(|w| classad::parse_expr(w).expect("oracle expr").to_string());
                    let got = policy.expr(name).map(|e| e.to_string());
                    assert_eq!(got, expected, "{context}");
                }
            }
            checked += 1;
        }
    }
    assert!(checked >= 8 * 20, "{checked}");
}
