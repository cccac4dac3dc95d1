//! Functions added by the embedding program, and `debug()`'s log events.
//!
//! The function registry is shared by the process, so every test here uses
//! names of its own.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use classad::functions::{is_registered, register, unregister, Args, RegisterError};
use classad::{parse_expr, ClassAd, EvalLimits, EvalOptions, Expr, Value};

fn eval(text: &str) -> Value {
    parse_expr(text).expect("parses").eval()
}

#[test]
fn registered_functions_are_called_with_unevaluated_arguments() {
    // firstDefined(a, b, ...): the first argument that is not UNDEFINED,
    // evaluating no further than needed.
    let evaluated = Arc::new(AtomicUsize::new(0));
    let counter = evaluated.clone();
    register("firstDefined", move |args: &mut Args<'_, '_>| {
        for i in 0..args.len() {
            counter.fetch_add(1, Ordering::SeqCst);
            let v = args.eval(i);
            if !v.is_undefined() {
                return v;
            }
        }
        Value::Undefined
    })
    .expect("registers");
    let ad: ClassAd = "[ b = 2; c = 3; r = FIRSTDEFINED(a, b, c) ]".parse().expect("ad");
    assert_eq!(ad.eval_attr("r"), Value::Int(2));
    assert_eq!(evaluated.load(Ordering::SeqCst), 2);
    assert!(is_registered("firstdefined"));
    assert!(unregister("FirstDefined"));
    assert!(!is_registered("firstDefined"));
    assert_eq!(ad.eval_attr("r"), Value::Error);
}

#[test]
fn functions_may_be_registered_after_parsing() {
    let expr: Expr = "lateFn(20) + 1".parse().expect("parses");
    assert_eq!(expr.eval(), Value::Error);
    register("lateFn", |args: &mut Args<'_, '_>| match args.eval(0) {
        Value::Int(i) => Value::Int(i * 2),
        _ => Value::Error,
    })
    .expect("registers");
    assert_eq!(expr.eval(), Value::Int(41));
    assert!(unregister("lateFn"));
}

#[test]
fn built_ins_cannot_be_replaced() {
    for name in ["strcat", "STRCAT", "ifThenElse", "stringListMember", "versioncmp"] {
        let result = register(name, |_: &mut Args<'_, '_>| Value::Int(0));
        assert_eq!(result, Err(RegisterError::Builtin(name.to_owned())));
    }
    assert_eq!(eval(r#"strcat("a", "b")"#), Value::from("ab"));
}

#[test]
fn names_are_checked_and_not_registered_twice() {
    for name in ["", "1abc", "a-b", "a b", "é"] {
        let result = register(name, |_: &mut Args<'_, '_>| Value::Int(0));
        assert_eq!(result, Err(RegisterError::InvalidName(name.to_owned())));
    }
    register("onceOnly", |_: &mut Args<'_, '_>| Value::Int(1)).expect("registers");
    let again = register("ONCEONLY", |_: &mut Args<'_, '_>| Value::Int(2));
    assert_eq!(again, Err(RegisterError::AlreadyRegistered("ONCEONLY".to_owned())));
    assert_eq!(eval("onceOnly()"), Value::Int(1));
    assert!(unregister("onceOnly"));
    assert!(!unregister("onceOnly"));
}

#[test]
fn registered_functions_return_lists_and_ads() {
    register("pairOf", |args: &mut Args<'_, '_>| {
        let v = args.eval(0);
        Value::List(vec![v.to_expr(), v.to_expr()].into())
    })
    .expect("registers");
    register("adOf", |args: &mut Args<'_, '_>| {
        let mut ad = ClassAd::new();
        ad.insert("v", args.eval(0).to_expr());
        Value::ClassAd(Arc::new(ad))
    })
    .expect("registers");
    assert_eq!(eval("size(pairOf(7)) + pairOf(7)[1]"), Value::Int(9));
    assert_eq!(eval("adOf(\"x\").v"), Value::from("x"));
    assert!(unregister("pairOf"));
    assert!(unregister("adOf"));
}

#[test]
fn registered_functions_stay_within_the_limits() {
    // A function that evaluates its argument, called on itself 10,000 deep.
    register("passThrough", |args: &mut Args<'_, '_>| args.eval(0)).expect("registers");
    let deep = format!("{}1{}", "passThrough(".repeat(400), ")".repeat(400));
    assert_eq!(eval(&deep), Value::Int(1));
    let ad: ClassAd = "[ loop = passThrough(loop) ]".parse().expect("ad");
    assert_eq!(ad.eval_attr("loop"), Value::Error);
    let limited = EvalOptions::new().limits(EvalLimits { max_depth: 50, max_steps: 1_000, ..EvalLimits::default() });
    assert_eq!(parse_expr(&deep).expect("parses").eval_with(&limited), Value::Error);
    assert!(unregister("passThrough"));
}

/// The fields of one event: names and values as text.
type EventFields = Vec<(String, String)>;

/// A `tracing` subscriber that keeps the fields of every event.
#[derive(Default, Clone)]
struct Recorder {
    events: Arc<Mutex<Vec<EventFields>>>,
}

struct Fields<'r>(&'r mut Vec<(String, String)>);

impl tracing::field::Visit for Fields<'_> {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.0.push((field.name().to_owned(), format!("{value:?}")));
    }
}

impl tracing::Subscriber for Recorder {
    fn enabled(&self, metadata: &tracing::Metadata<'_>) -> bool {
        metadata.target() == "classad::debug"
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        let mut fields = Vec::new();
        event.record(&mut Fields(&mut fields));
        self.events.lock().expect("lock").push(fields);
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

#[test]
fn debug_returns_its_argument_and_logs_it() {
    let recorder = Recorder::default();
    let ad: ClassAd = "[ x = 20; r = debug(x * 2) + 2 ]".parse().expect("ad");
    let value = tracing::subscriber::with_default(recorder.clone(), || ad.eval_attr("r"));
    assert_eq!(value, Value::Int(42));
    let events = recorder.events.lock().expect("lock");
    assert_eq!(events.len(), 1);
    let field = |name: &str| events[0].iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
    assert_eq!(field("expr").as_deref(), Some("x * 2"));
    assert_eq!(field("value").as_deref(), Some("40"));
    assert!(field("micros").is_some());
    // Without a subscriber it only evaluates.
    assert_eq!(ad.eval_attr("r"), Value::Int(42));
    assert_eq!(eval("debug()"), Value::Error);
    assert_eq!(eval("debug(1, 2)"), Value::Error);
}
