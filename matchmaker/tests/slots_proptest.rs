//! Slot layouts on arbitrary configurations: an error or a layout, never a
//! panic; and a layout never hands out more than the machine has (but for
//! the startd's rounding up of custom resources' `auto` shares).

use classad::ClassAd;
use matchmaker::config::Config;
use matchmaker::startd::slots::{Machine, Startd};
use proptest::prelude::*;

fn share() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("auto".to_string()),
        Just("minimal".to_string()),
        (0u32..150).prop_map(|p| format!("{p}%")),
        (0u32..5, 0u32..5).prop_map(|(a, b)| format!("{a}/{b}")),
        (0u64..100_000).prop_map(|n| n.to_string()),
        "[a-z%/.=:,]{0,6}",
    ]
}

fn item() -> impl Strategy<Value = String> {
    prop_oneof![
        share(),
        (
            prop_oneof![
                Just("cpus"),
                Just("c"),
                Just("memory"),
                Just("ram"),
                Just("disk"),
                Just("swap"),
                Just("gpus"),
                Just("x")
            ],
            share()
        )
            .prop_map(|(n, s)| format!("{n}={s}")),
    ]
}

fn config() -> impl Strategy<Value = String> {
    (
        1u32..64,
        1i64..100_000,
        proptest::collection::vec((proptest::collection::vec(item(), 0..4), 0i64..6, any::<bool>()), 0..4),
        prop_oneof![
            Just(String::new()),
            Just("MACHINE_RESOURCE_GPUs = a b c\n".to_string()),
            Just("MACHINE_RESOURCE_Lic = 7\n".to_string())
        ],
    )
        .prop_map(|(cpus, mem, types, extra)| {
            let mut text = format!("NUM_CPUS = {cpus}\nMEMORY = {mem}\nDISK = 1000000\n{extra}");
            for (i, (items, n, p)) in types.iter().enumerate() {
                let t = i + 1;
                text.push_str(&format!(
                    "SLOT_TYPE_{t} = {}\nNUM_SLOTS_TYPE_{t} = {n}\nSLOT_TYPE_{t}_PARTITIONABLE = {p}\n",
                    items.join(", ")
                ));
            }
            text
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn layouts_never_panic_nor_overcommit(text in config()) {
        let config = Config::parse_str(&text, "p.conf").expect("the generated text parses");
        let machine = Machine { name: "h".into(), cpus: 4, memory: 4096, disk: 1_000_000, ..Machine::default() };
        if let Ok(mut startd) = Startd::new(machine, &config) {
            let totals = startd.layout().totals.clone();
            let mem: i64 = startd.layout().slots.iter().map(|s| s.memory).sum();
            prop_assert!(mem <= totals.memory, "{text}: memory {mem} > {}", totals.memory);
            let cpus: f64 = startd.layout().slots.iter().filter(|s| !s.fractional_cpus).map(|s| s.cpus).sum();
            prop_assert!(cpus <= totals.cpus as f64 + 1e-6, "{text}: cpus {cpus} > {}", totals.cpus);
            let disk: f64 = startd.layout().slots.iter().map(|s| s.disk_fraction).sum();
            prop_assert!(disk <= 1.0 + 1e-6, "{text}: disk fraction {disk}");
            for c in &totals.custom {
                let used: f64 = startd.layout().slots.iter().map(|s| s.custom.get(&c.name).copied().unwrap_or(0.0)).sum();
                // `auto` shares of a custom resource are rounded up, as the
                // startd rounds them, so a fractional fixed share elsewhere
                // (`minimal`) can push the sum past the total by under one.
                prop_assert!(used < c.total + 1.0, "{text}: {} {used} > {}", c.name, c.total);
            }
            // and a claim on each partitionable slot is an error or a slot
            let job: ClassAd = "[ RequestCpus = 1; RequestMemory = 100; RequestDisk = 100; RequestGPUs = 1 ]".parse().expect("job");
            let names: Vec<String> = startd.layout().slots.iter().map(|s| startd.slot_name(s)).collect();
            for n in names {
                if let Ok(c) = startd.claim(&n, &job) {
                    startd.release(&c.name).expect("release");
                }
            }
            let _ = startd.ads();
        }
    }
}

#[test]
fn huge_slot_counts_are_refused() {
    let config = Config::parse_str("SLOT_TYPE_1 = minimal, memory=0\nNUM_SLOTS_TYPE_1 = 1000000000\n", "big.conf")
        .expect("config");
    let err = Startd::new(Machine::default(), &config).unwrap_err();
    assert!(err.to_string().contains("1000000000 slots requested"), "{err}");
}

proptest! {
    #[test]
    fn machine_descriptions_never_panic(text in "(\\[?[a-z_\"]{0,8}\\]? ?=? ?(\"[^\"\\n]{0,6}\"?|[0-9-]{0,5}|\\[[^\\]\\n]{0,8}\\]?)?\\n){0,6}") {
        let _ = Machine::from_toml_str(&text, "m.toml");
    }

    #[test]
    fn slot_type_descriptions_never_panic(text in "[ -~\\n]{0,40}") {
        let _ = matchmaker::startd::slots::parse_slot_type(&text, 1);
    }
}
