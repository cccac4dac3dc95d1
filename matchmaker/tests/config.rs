//! The configuration reader's behaviour beyond the oracle corpus: HTCondor's
//! defaults for the negotiator's and accountant's knobs, typed access,
//! refused statements and hostile input.

use std::io::Write;

use matchmaker::config::{tool, Config, ConfigError, Limits, Loader, Source};
use proptest::prelude::*;

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("matchmaker-config-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

#[test]
fn negotiator_and_accountant_knobs_have_htcondor_defaults() {
    let c = Config::default();
    for (name, want) in [
        ("NEGOTIATOR_INTERVAL", 60),
        ("PRIORITY_HALFLIFE", 86400),
        ("GROUP_QUOTA_MAX_ALLOCATION_ROUNDS", 3),
        ("CONCURRENCY_LIMIT_DEFAULT", 2308032),
        ("MAX_ACCOUNTANT_DATABASE_SIZE", 1000000),
        ("NEGOTIATOR_MAX_TIME_PER_CYCLE", 1200),
        ("NEGOTIATOR_MAX_TIME_PER_SUBMITTER", 60),
        ("NEGOTIATOR_MAX_TIME_PER_SCHEDD", 120),
        ("NEGOTIATOR_MAX_TIME_PER_PIESPIN", 120),
    ] {
        assert_eq!(c.get_int(name).expect(name), want, "{name}");
    }
    for (name, want) in [
        ("DEFAULT_PRIO_FACTOR", 1000.0),
        ("NICE_USER_PRIO_FACTOR", 1e10),
        ("REMOTE_PRIO_FACTOR", 1e7),
        ("GROUP_QUOTA_ROUND_ROBIN_RATE", 1e100),
    ] {
        assert_eq!(c.get_real(name).expect(name), want, "{name}");
    }
    for (name, want) in [
        ("PREEMPTION_REQUIREMENTS", false),
        ("NEGOTIATOR_CONSIDER_PREEMPTION", true),
        ("NEGOTIATOR_MATCHLIST_CACHING", true),
        ("NEGOTIATOR_USE_SLOT_WEIGHTS", true),
        ("GROUP_ACCEPT_SURPLUS", false),
        ("NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION", true),
        ("USE_GLOBAL_JOB_PRIOS", false),
    ] {
        assert_eq!(c.get_bool(name).expect(name), want, "{name}");
    }
    for (name, want) in [
        ("PREEMPTION_RANK", "(RemoteUserPrio * 1000000) - ifThenElse(isUndefined(TotalJobRuntime), 0, TotalJobRuntime)"),
        (
            "NEGOTIATOR_PRE_JOB_RANK",
            "(10000000 * My.Rank) + (1000000 * (RemoteOwner =?= UNDEFINED)) - (100000 * Cpus) - Memory",
        ),
        (
            "NEGOTIATOR_POST_JOB_RANK",
            "(RemoteOwner =?= UNDEFINED) * (ifthenElse(isUndefined(KFlops), 1000, Kflops) - SlotID - 1.0e10*(Offline=?=True))",
        ),
        (
            "GROUP_SORT_EXPR",
            "ifThenElse(AccountingGroup=?=\"<none>\",3.4e+38,ifThenElse(GroupQuota>0,GroupResourcesInUse/GroupQuota,3.3e+38))",
        ),
        ("SLOT_WEIGHT", "Cpus"),
    ] {
        assert_eq!(c.get_string(name).expect(name), want, "{name}");
        let parsed = c.get_expr(name).expect(name);
        assert_eq!(parsed, classad::parse_expr(want).expect("parses"), "{name}");
    }
    assert_eq!(c.get_string("ACCOUNTANT_LOCAL_DOMAIN").expect("defined"), "");
    assert!(c.get_expr_opt("NEGOTIATOR_SLOT_POOLSIZE_CONSTRAINT").expect("empty").is_none());
    assert!(matches!(c.get_int("NO_SUCH_KNOB"), Err(ConfigError::Undefined { .. })));
}

#[test]
fn typed_values_come_from_files_with_expressions() {
    let c = Config::parse_str(
        "DAY = 24 * 3600\nPRIORITY_HALFLIFE = $(DAY) / 2\nDEFAULT_PRIO_FACTOR = 1e3 * 2\n\
         GROUP_ACCEPT_SURPLUS = True\nNEGOTIATOR_USE_SLOT_WEIGHTS = 0\nSLOT_WEIGHT = Cpus * 2\n",
        "n.conf",
    )
    .expect("reads");
    assert_eq!(c.get_int("PRIORITY_HALFLIFE").expect("int"), 43200);
    let t = Config::parse_str("A = 7.9\nB = -2.5\nC = true\nD = 12abc\n", "t.conf").expect("reads");
    assert_eq!((t.get_int("A").expect("A"), t.get_int("B").expect("B"), t.get_int("C").expect("C")), (7, -2, 1));
    assert!(t.get_int("D").is_err());
    assert_eq!(c.get_real("DEFAULT_PRIO_FACTOR").expect("real"), 2000.0);
    assert!(c.get_bool("GROUP_ACCEPT_SURPLUS").expect("bool"));
    assert!(!c.get_bool("NEGOTIATOR_USE_SLOT_WEIGHTS").expect("bool"));
    assert_eq!(c.get_expr("SLOT_WEIGHT").expect("expr").to_string(), "Cpus * 2");
}

#[test]
fn bad_values_name_their_file_and_line() {
    let c = Config::parse_str(
        "A = 1\nNEGOTIATOR_INTERVAL = often\nGROUP_ACCEPT_SURPLUS = maybe\nPREEMPTION_RANK = (((\nPRIORITY_HALFLIFE = \"1.5\"\n",
        "site.conf",
    )
    .expect("reads");
    for (name, line, result) in [
        ("NEGOTIATOR_INTERVAL", 2, c.get_int("NEGOTIATOR_INTERVAL").map(|_| ())),
        ("GROUP_ACCEPT_SURPLUS", 3, c.get_bool("GROUP_ACCEPT_SURPLUS").map(|_| ())),
        ("PREEMPTION_RANK", 4, c.get_expr("PREEMPTION_RANK").map(|_| ())),
        ("PRIORITY_HALFLIFE", 5, c.get_int("PRIORITY_HALFLIFE").map(|_| ())),
    ] {
        let err = result.expect_err(name);
        assert!(matches!(err, ConfigError::BadValue { .. }), "{name}: {err}");
        let text = err.to_string();
        assert!(text.contains(&format!("site.conf, line {line}")), "{name}: {text}");
        assert!(text.starts_with(name), "{name}: {text}");
    }
}

#[test]
fn includes_are_read_and_commands_refused_with_file_and_line() {
    let dir = temp_dir("includes");
    let inner = dir.join("inner.conf");
    std::fs::write(&inner, "B = from inner\nC = $(A) too\n").expect("write");
    let top = dir.join("condor_config");
    std::fs::write(
        &top,
        format!(
            "A = 1\nINNER = {}\ninclude : $(INNER)\ninclude ifexist : {}/missing.conf\nD = after\n",
            inner.display(),
            dir.display()
        ),
    )
    .expect("write");
    let c = Config::from_file(&top).expect("reads");
    assert_eq!(c.get_string("B").expect("set"), "from inner");
    assert_eq!(c.get_string("C").expect("set"), "1 too");
    assert_eq!(c.get_string("D").expect("set"), "after");
    match &c.lookup("B").expect("defined").source {
        Source::File { file, line, .. } => assert_eq!((file.as_ref(), *line), (inner.to_str().expect("utf-8"), 1)),
        other => panic!("{other:?}"),
    }

    // A missing file without ifexist is an error naming it.
    let err = Config::parse_str("include : /nonexistent/x.conf\n", "top.conf").expect_err("missing");
    assert!(matches!(err, ConfigError::Io { ref file, .. } if file == "/nonexistent/x.conf"), "{err}");
    // A file including itself stops at the nesting limit, with the place.
    let selfish = dir.join("self.conf");
    std::fs::write(&selfish, format!("X = 1\ninclude : {}\n", selfish.display())).expect("write");
    let err = Config::from_file(&selfish).expect_err("nested too deep");
    assert!(err.to_string().contains("nested too deep") && err.to_string().contains("line 2"), "{err}");

    for (stmt, what) in [
        ("include command : /bin/echo X = 1", "include command : /bin/echo X = 1"),
        ("include ifexist output : /bin/true", "include ifexist output : /bin/true"),
        ("@include command : x", "@include command : x"),
    ] {
        let err = Config::parse_str(&format!("A = 1\n\n{stmt}\nB = 2\n"), "top.conf").expect_err(stmt);
        match &err {
            ConfigError::Include { at, statement } => {
                assert_eq!((at.file.as_str(), at.line), ("top.conf", 3));
                assert_eq!(statement, what);
            }
            other => panic!("{stmt}: {other}"),
        }
        assert!(err.to_string().starts_with("top.conf, line 3: "), "{err}");
    }
    let err = Config::parse_str("include : /bin/echo X = 1 |\n", "top.conf").expect_err("a piped file name");
    assert!(matches!(err, ConfigError::Include { .. }), "{err}");
    let err = Config::parse_str("include sideways : x\n", "top.conf").expect_err("an unknown option");
    assert!(err.to_string().contains("top.conf, line 1") && err.to_string().contains("sideways"), "{err}");
    let piped = dir.join("piped");
    std::fs::write(&piped, "A = 1\nLOCAL_CONFIG_FILE = /bin/echo B = 2 |\n").expect("write");
    let err = Config::from_file(&piped).expect_err("a command");
    assert!(matches!(err, ConfigError::Include { ref at, .. } if at.line == 2), "{err}");
    // A place without a line (a command set in the environment) shows none.
    let whole = matchmaker::config::Location { file: "<environment>".to_string(), line: 0 };
    assert_eq!(whole.to_string(), "<environment>");
    assert_eq!(matchmaker::config::Location { line: 2, ..whole }.to_string(), "<environment>, line 2");
}

#[test]
fn macro_cycles_and_explosions_are_errors() {
    let c = Config::parse_str("A = $(B)\nB = x $(A)\n", "loop.conf").expect("reads");
    let err = c.get_string("A").expect_err("a cycle");
    let ConfigError::Cycle { ref name, ref chain } = err else { panic!("{err}") };
    assert_eq!(name, "A");
    let links: Vec<(&str, String)> = chain.iter().map(|l| (l.name.as_str(), l.source.to_string())).collect();
    assert_eq!(links, [("A", "loop.conf, line 1".to_string()), ("B", "loop.conf, line 2".to_string())]);
    assert_eq!(
        err.to_string(),
        "expanding A: macro cycle: A -> B -> A (A at loop.conf, line 1; B at loop.conf, line 2)"
    );
    assert_eq!(c.lookup("A").expect("defined").value, "");
    assert!(matches!(c.try_lookup("B"), Err(ConfigError::Cycle { .. })));

    // A reference to itself hidden in a default makes the value grow at
    // each step (HTCondor never finishes on this one; found by the random
    // corpus): an error, in bounded time (a generous bound: debug builds
    // on a loaded machine take seconds).
    let c = Config::parse_str(
        "tool.e = $(NOPE:-7 $($(G $(C.D:$(tool.e $($(G $($(G $$(Cpus $(C.D:=?= $(G $($(TOOL.E) x $($(TOOL.E))\n",
        "grow.conf",
    )
    .expect("reads");
    let start = std::time::Instant::now();
    let err = c.get_string("TOOL.E").expect_err("grows without end");
    assert!(err.to_string().contains("macro cycle: tool.e -> tool.e (tool.e at grow.conf, line 1)"), "{err}");
    assert!(start.elapsed() < std::time::Duration::from_secs(60), "{:?}", start.elapsed());

    let mut text = String::from("A0 = xxxxxxxxxxxxxxxx\n");
    for i in 1..64 {
        text.push_str(&format!("A{i} = $(A{})$(A{})\n", i - 1, i - 1));
    }
    let c = Config::parse_str(&text, "boom.conf").expect("reads");
    let start = std::time::Instant::now();
    assert!(matches!(c.get_string("A63"), Err(ConfigError::Expansion { .. })));
    assert!(start.elapsed() < std::time::Duration::from_secs(60), "{:?}", start.elapsed());
}

#[test]
fn a_cycle_is_reported_with_its_chain() {
    // Reached through a value outside it, and from a text.
    let c = Config::parse_str("C = see $(A)\n\nA = $(B:fallback)\nB = $(X)\nX = $(A)\n", "site.conf").expect("reads");
    let err = c.get_string("C").expect_err("a cycle");
    assert_eq!(
        err.to_string(),
        "expanding C: macro cycle: A -> B -> X -> A (A at site.conf, line 3; B at site.conf, line 4; X at site.conf, line 5)"
    );
    let err = c.expand("$(X)").expect_err("a cycle");
    assert!(
        err.to_string().ends_with(
            "macro cycle: X -> A -> B -> X (X at site.conf, line 5; A at site.conf, line 3; B at site.conf, line 4)"
        ),
        "{err}"
    );
    // The tool says so, and fails, where it would say "Not defined".
    let out = tool::query(&c, &["C", "B"], false);
    assert_eq!(out.exit_code, 1);
    assert_eq!(
        out.stderr,
        "Error: expanding C: macro cycle: A -> B -> X -> A (A at site.conf, line 3; B at site.conf, line 4; X at site.conf, line 5)\n\
         Error: expanding B: macro cycle: B -> X -> A -> B (B at site.conf, line 4; X at site.conf, line 5; A at site.conf, line 3)\n"
    );
    // A default is used only when its macro is undefined: no cycle here.
    let c = Config::parse_str("A = $(B:$(A))\nB = 1\n", "ok.conf").expect("reads");
    assert_eq!(c.get_string("A").expect("no cycle"), "1");
    // An explosion without a cycle stays a limit error.
    let mut text = String::from("A0 = x\n");
    for i in 1..40 {
        text.push_str(&format!("A{i} = $(A{})$(A{})\n", i - 1, i - 1));
    }
    let c = Config::parse_str(&text, "boom.conf").expect("reads");
    assert!(matches!(c.get_string("A39"), Err(ConfigError::Expansion { .. })));
}

#[test]
fn huge_files_and_lines_are_refused() {
    let dir = temp_dir("huge");
    // A 1 GB file (sparse: no disk used) is refused before it is read.
    let big = dir.join("big.conf");
    let f = std::fs::File::create(&big).expect("create");
    f.set_len(1 << 30).expect("sparse file");
    let err = Config::from_file(&big).expect_err("too large");
    assert!(matches!(err, ConfigError::TooLarge { .. }), "{err}");

    // A statement longer than the line limit names its line.
    let mut f = std::fs::File::create(dir.join("long.conf")).expect("create");
    writeln!(f, "A = 1").expect("write");
    write!(f, "B = ").expect("write");
    let chunk = "x".repeat(1 << 16);
    for _ in 0..40 {
        writeln!(f, "{chunk} \\").expect("write");
    }
    writeln!(f, "end").expect("write");
    drop(f);
    let err = Config::from_file(dir.join("long.conf")).expect_err("too long");
    assert!(err.to_string().contains("long.conf, line "), "{err}");
    assert!(err.to_string().contains("longer than the limit"), "{err}");

    let small = Loader::new().limits(Limits { max_value: 100, ..Limits::default() });
    let err = small.parse_str(&format!("A = {}\n", "y".repeat(200)), "v.conf").expect_err("too long");
    assert!(err.to_string().starts_with("v.conf, line 1:"), "{err}");
}

#[test]
fn syntax_errors_name_file_and_line() {
    for (text, line) in [
        ("A = 1\nB\n", 2),
        ("A = 1\nif true\n", 2),
        ("A = 1\nendif\n", 2),
        ("A = 1\nM @=end\nx\n", 3),
        ("A = 1\nuse POLICY : NOPE\n", 2),
        ("A = 1\nuse NOCATEGORY : X\n", 2),
        ("A = 1\nuse POLICY : PREEMPT_IF\n", 2),
        ("A = 1\nbad$name = 2\n", 2),
        ("A = 1\nif version > x\nendif\n", 2),
        ("error : stop\n", 1),
    ] {
        let err = Config::parse_str(text, "e.conf").expect_err(text);
        assert!(
            matches!(err, ConfigError::Syntax { ref at, .. } if at.line == line && at.file == "e.conf"),
            "{text:?}: {err}"
        );
    }
    let deep = "if true\n".repeat(70) + &"endif\n".repeat(70);
    assert!(Config::parse_str(&deep, "deep.conf").is_err());
}

#[test]
fn random_macros_stay_unexpanded_with_a_warning() {
    let c = Config::parse_str("R = x $RANDOM_INTEGER(1, 10) $RANDOM_CHOICE(a,b)\n", "r.conf").expect("reads");
    let raw = c.raw("R").expect("defined").to_string();
    let (value, warnings) = c.expand_with_warnings(&raw).expect("expands");
    assert_eq!(value, "x $RANDOM_INTEGER(1, 10) $RANDOM_CHOICE(a,b)");
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings[0].contains("RANDOM"), "{warnings:?}");
}

#[test]
fn values_can_be_set_and_looked_up() {
    let mut c = Config::parse_str("A = one\n", "a.conf").expect("reads");
    c.set("a", "$(A) two", Source::Environment).expect("sets");
    let l = c.lookup("A").expect("defined");
    assert_eq!((l.raw.as_str(), l.source), ("one two", Source::Environment));
    assert!(c.names().iter().any(|n| n == "A"));
}

#[test]
fn local_files_are_followed_in_order() {
    let dir = temp_dir("locals");
    std::fs::create_dir_all(dir.join("config.d")).expect("dir");
    std::fs::write(
        dir.join("condor_config"),
        "LOCAL_CONFIG_DIR = $(CONFIG_ROOT)/config.d\nLOCAL_CONFIG_FILE = $(CONFIG_ROOT)/local\nX = top\n",
    )
    .expect("write");
    std::fs::write(dir.join("config.d/b"), "X = b\n").expect("write");
    std::fs::write(dir.join("config.d/a"), "X = a\nY = a\n").expect("write");
    std::fs::write(dir.join("config.d/c.rpmsave"), "Y = excluded\n").expect("write");
    std::fs::write(dir.join("local"), "Z = $(X) then local\n").expect("write");
    let c = Loader::new().env([("_CONDOR_W", "env")]).load_file(dir.join("condor_config")).expect("reads");
    assert_eq!(c.get_string("X").expect("X"), "b");
    assert_eq!(c.get_string("Y").expect("Y"), "a");
    assert_eq!(c.get_string("Z").expect("Z"), "b then local");
    assert_eq!(c.get_string("W").expect("W"), "env");
    let files: Vec<&str> = c.files().collect();
    assert_eq!(files.len(), 4, "{files:?}");
    assert!(files[1].ends_with("config.d/a") && files[3].ends_with("local"), "{files:?}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Any text gives a configuration or an error, never a panic or a hang.
    #[test]
    fn arbitrary_text_never_panics(text in "([A-Za-z_$():@=#\\\\ \n\t!.,{}\\[\\]+-]|if |endif|use POLICY:|\\$\\(|\\$ENV\\(){0,200}") {
        if let Ok(c) = Config::parse_str(&text, "fuzz.conf") {
            let out = matchmaker::config::tool::dump(&c, true);
            prop_assert!(out.stdout.starts_with("# Configuration from machine"));
            for name in c.names().iter().take(50) {
                let _ = c.get_string(name);
            }
        }
    }
}

/// `condor_config_val -dump` output is the whole configuration of the
/// machine it was taken on: read alone, its LOCAL_CONFIG_FILE and
/// LOCAL_CONFIG_DIR (this machine's files) are not followed, so a local
/// file here cannot override the dump's GROUP_NAMES.
#[test]
fn a_dump_is_read_alone() {
    let dir = temp_dir("dump");
    let local = dir.join("condor_config.local");
    std::fs::write(&local, "GROUP_NAMES = from_this_machine\n").expect("write");
    std::fs::create_dir_all(dir.join("config.d")).expect("dir");
    std::fs::write(dir.join("config.d/99-here"), "PRIORITY_HALFLIFE = 1\n").expect("write");
    let body = format!(
        "GROUP_NAMES = group_a, group_b\nLOCAL_CONFIG_FILE = {}\nLOCAL_CONFIG_DIR = {}\nPRIORITY_HALFLIFE = 300\n",
        local.display(),
        dir.join("config.d").display()
    );
    for header in [
        "# Configuration from machine: cm\n",
        "# Configuration from negotiator on cm <127.0.0.1:9618?addrs=127.0.0.1-9618&alias=cm>\n",
    ] {
        let dump = dir.join("config.dump");
        std::fs::write(
            &dump,
            format!("{header}{body}# Contributing configuration file(s):\n#\t/etc/condor/condor_config\n"),
        )
        .expect("write");
        let config = Config::from_file(&dump).expect("reads");
        assert!(config.is_dump(), "{header}");
        assert_eq!(config.get_string("GROUP_NAMES").expect("set"), "group_a, group_b");
        assert_eq!(config.get_int("PRIORITY_HALFLIFE").expect("set"), 300);
        assert_eq!(config.files().collect::<Vec<_>>(), [dump.to_str().expect("utf-8")]);
        assert_eq!(config.local_files().count(), 0);
    }
    // The same text without the header is a configuration file: its local
    // files are read after it.
    let top = dir.join("condor_config");
    std::fs::write(&top, &body).expect("write");
    let config = Config::from_file(&top).expect("reads");
    assert!(!config.is_dump());
    assert_eq!(config.get_string("GROUP_NAMES").expect("set"), "from_this_machine");
    assert_eq!(config.get_int("PRIORITY_HALFLIFE").expect("set"), 1);
    assert_eq!(config.local_files().count(), 2);
    let _ = std::fs::remove_dir_all(&dir);
}
