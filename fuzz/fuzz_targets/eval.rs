//! Evaluating generated expressions in both semantics, alone and with
//! generated MY and TARGET ads; matching the two ads. Evaluation must end
//! (within the step limit) with a value, never a panic.
#![no_main]

use classad::matching::MatchAd;
use classad::{ClassAd, EvalContext, Semantics};
use classad_fuzz::{eval_options, Gen, GenAd};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (Gen, GenAd, GenAd)| {
    let (expr, my, target) = input;
    let Ok(expr) = classad::parse_expr(&expr.text()) else {
        return;
    };
    let my: ClassAd = my.text().parse().unwrap_or_default();
    let target: ClassAd = target.text().parse().unwrap_or_default();
    for semantics in [Semantics::New, Semantics::Old] {
        let options = eval_options(semantics);
        let _ = EvalContext::new(&options).eval(&expr);
        let value = EvalContext::new(&options).my(&my).target(&target).eval(&expr);
        let _ = value.to_string();
        for (name, _) in my.iter() {
            let _ = EvalContext::new(&options).my(&my).target(&target).eval_attr(name);
        }
        let pair = MatchAd::new(&options, &my, &target);
        let _ = (pair.symmetric_match(), pair.left_rank(), pair.right_rank());
        let _ = classad::flatten::flatten(&options, &my, &expr);
    }
});
