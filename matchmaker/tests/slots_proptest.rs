//! Slot layouts on arbitrary configurations: an error or a layout, never a
//! panic; and a layout never hands out more than the machine has, but where
//! the real startd (HTCondor 23.9.6) does too: it counts the CPUs left in
//! whole CPUs, truncating toward zero, so a fixed CPU share may exceed what
//! is left by less than one CPU; and it rounds custom resources' `auto`
//! shares up.

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
            // CPUs as the startd counts them (AvailAttributes::decrement):
            // the CPUs left are an integer, a slot's CPUs are subtracted and
            // the result truncated toward zero, and the slot fits unless that
            // is negative. So the one slot that takes the last CPUs may
            // exceed them by under one CPU (`cpus=101%` of 1 CPU: 1.01), and
            // after it only `minimal` slots of under one CPU still fit, each
            // again by under one; `minimal` slots under half a CPU are not
            // counted at all.
            let slots = &startd.layout().slots;
            let counted: Vec<_> = slots.iter().filter(|s| !(s.fractional_cpus && s.cpus < 0.5)).collect();
            let cpus: f64 = counted.iter().map(|s| s.cpus).sum();
            let under_one = counted.iter().filter(|s| s.fractional_cpus && s.cpus < 1.0).count();
            let limit = totals.cpus as f64 + 1.0 + under_one as f64;
            prop_assert!(cpus < limit, "{text}: cpus {cpus} >= {limit}");
            // whole CPUs everywhere: no over-commitment at all
            if counted.iter().all(|s| s.cpus.fract() == 0.0) {
                prop_assert!(cpus <= totals.cpus as f64, "{text}: cpus {cpus} > {}", totals.cpus);
            }
            // advertised (rounded after adding 0.1): at most one CPU more
            // than the machine has (`cpus=1.95` of 1 CPU is advertised as 2)
            let advertised: f64 = slots.iter().filter(|s| !s.fractional_cpus).map(|s| s.advertised_cpus()).sum();
            prop_assert!(advertised <= totals.cpus as f64 + 1.0, "{text}: advertised cpus {advertised}");
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

proptest! {
    /// One slot type whose CPUs and memory are shares of the machine: it fits
    /// exactly when the startd's accounting says so, with its CPUs advertised
    /// as the startd advertises them. HTCondor 23.9.6: CPU shares are reals
    /// (`compute_local_resource<double>`), at least one; memory shares are
    /// truncated to whole MB, at least one (slot_builder.cpp); the fit test is
    /// `(int)(cpus_left - cpus) >= 0` and `memory_left - memory >= 0`
    /// (AvailAttributes::decrement); `Cpus` is `(int)(cpus + 0.1)`
    /// (CpuAttributes::publish_static).
    #[test]
    fn one_share_fits_as_the_startd_counts_it(
        ncpus in 1u32..17,
        cpu_pct in 0u32..400,
        mem in 1i64..70_000,
        mem_pct in 0u32..200,
        count in 1i64..4,
    ) {
        let text = format!(
            "NUM_CPUS = {ncpus}\nMEMORY = {mem}\nSLOT_TYPE_1 = cpus={cpu_pct}%, memory={mem_pct}%\nNUM_SLOTS_TYPE_1 = {count}\n"
        );
        let config = Config::parse_str(&text, "s.conf").expect("config");
        // the share first, then times the total, as the startd multiplies
        // (`35%` of 14 CPUs is 4.8999...: advertised as 4, not 5)
        let want_cpus = (f64::from(cpu_pct) / 100.0 * f64::from(ncpus)).max(1.0);
        let want_mem = ((f64::from(mem_pct) / 100.0 * mem as f64) as i64).max(1);
        let (mut cpus_left, mut mem_left, mut fits) = (i64::from(ncpus), mem, true);
        for _ in 0..count {
            cpus_left = (cpus_left as f64 - want_cpus).trunc() as i64;
            mem_left -= want_mem;
            fits &= cpus_left >= 0 && mem_left >= 0;
        }
        match Startd::new(Machine::default(), &config) {
            Ok(startd) => {
                prop_assert!(fits, "{text}: accepted");
                for s in &startd.layout().slots {
                    prop_assert_eq!(s.advertised_cpus(), (want_cpus + 0.1).trunc(), "{}", text);
                    prop_assert_eq!(s.memory, want_mem, "{}", text);
                }
            }
            Err(e) => {
                prop_assert!(!fits, "{text}: refused: {e}");
                prop_assert!(e.to_string().starts_with("can't allocate "), "{text}: {e}");
            }
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
