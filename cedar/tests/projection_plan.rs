//! `ProjectionPlan::put` writes, for every ad, the bytes
//! `put_classad_projected` writes with the same names and options.

use cedar::version::Version;
use cedar::wire::ad::{put_classad_projected, ProjectionPlan, PutOptions};
use cedar::wire::Encoder;
use classad::ClassAd;

fn ads() -> Vec<ClassAd> {
    let texts = [
        r#"[ Name = "slot1@h"; State = "Unclaimed"; Cpus = 4; Memory = 2048 ]"#,
        r#"[ NAME = "slot2@h"; state = "Claimed"; Activity = "Busy"; LoadAvg = 0.5; Big = 1.5e300 ]"#,
        r#"[ Name = "slot3@h"; Start = Cpus > 2 && KeyboardIdle > 900; Cpus = 8; KeyboardIdle = ConsoleIdle; ConsoleIdle = 5 ]"#,
        r#"[ Name = "slot4@h"; Start = A; A = B; B = A ]"#,
        r#"[ Name = "slot5@h"; ClaimId = "secret"; Capability = "c"; _condor_privKey = "k"; Uses = ClaimId + _condor_privKey ]"#,
        r#"[ Name = "slot6@h"; Text = "with \"quotes\""; Flag = undefined; Bad = error; Yes = true ]"#,
        r#"[ Name = "slot7@h"; Rank = TARGET.Owner == "alice" ? 10 : Memory / 1024; Memory = 512; my = 3 ]"#,
        "[ ]",
    ];
    let mut ads: Vec<ClassAd> = texts.iter().map(|t| t.parse().expect(t)).collect();
    // A chained ad: its own attributes and its parent's.
    let parent = std::sync::Arc::new(ads[0].clone());
    let mut child: ClassAd =
        r#"[ ClaimId = "child"; State = "Owner"; Extra = Cpus * 2 ]"#.parse().expect("the child parses");
    child.chain_to(parent);
    ads.push(child);
    ads
}

#[test]
fn plan_writes_what_put_classad_projected_writes() {
    let lists: &[&[&str]] = &[
        &["Name", "State"],
        &["state", "NAME", "Name", "STATE"],
        &["Missing", "NotAnywhere_zq81"],
        &["Start"],
        &["Start", "Name", "Cpus"],
        &["Uses", "Name"],
        &["ClaimId", "Capability", "_condor_privKey", "Name"],
        &["Text", "Flag", "Bad", "Yes", "Big", "LoadAvg"],
        &["Rank", "my"],
        &["Extra", "State", "ClaimId"],
        &[
            "A0", "A1", "A2", "A3", "A4", "A5", "A6", "A7", "A8", "A9", "B0", "B1", "B2", "B3", "B4", "B5", "B6", "B7",
            "B8", "B9", "C0", "C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8", "C9", "Name", "State", "Cpus",
        ],
        &[],
    ];
    let options = [
        PutOptions::new(),
        PutOptions::new().exclude_private(true),
        PutOptions::new().peer_version(Some(Version::new(23, 9, 6, ""))),
        PutOptions::new().peer_version(Some(Version::new(9, 0, 0, ""))),
        PutOptions::new().no_types(true).server_time(Some(1_780_000_000)),
        PutOptions::new().peer_version(Some(Version::new(23, 9, 6, ""))).server_time(Some(7)),
    ];
    let ads = ads();
    let mut checked = 0;
    for names in lists {
        for opts in &options {
            let plan = ProjectionPlan::new(names, opts);
            for ad in &ads {
                for encrypted in [false, true] {
                    let (mut planned, mut direct) = (Encoder::new(encrypted), Encoder::new(encrypted));
                    let a = plan.put(&mut planned, ad).map_err(|e| e.to_string());
                    let b = put_classad_projected(&mut direct, ad, names, opts).map_err(|e| e.to_string());
                    assert_eq!(a, b, "{names:?} {opts:?} {ad}");
                    assert_eq!(planned.as_bytes(), direct.as_bytes(), "{names:?} {opts:?} {ad}");
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, lists.len() * options.len() * ads.len() * 2);
}
