//! Parsing arbitrary bytes: expressions and ads in both syntaxes (the fast
//! parser and the grammar must agree whenever the fast one succeeds), and
//! streams of ads in every format. Nothing may panic, hang or grow without
//! bound; errors must be errors.
#![no_main]

use classad::format::{Format, Reader};
use classad::Syntax;
use classad_fuzz::parser;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, input)) = data.split_first() else {
        return;
    };
    let syntax = if selector & 1 == 0 { Syntax::New } else { Syntax::Old };
    if selector & 2 == 0 {
        let Ok(text) = std::str::from_utf8(input) else {
            return;
        };
        let parser = parser(syntax);
        let parsed = parser.parse_expr(text);
        if let Some(fast) = parser.parse_expr_fast(text) {
            let grammar = parser.parse_expr_with_grammar(text);
            match grammar {
                Ok(grammar) => assert!(fast.same_as(&grammar), "{text:?}: fast {fast}, grammar {grammar}"),
                Err(e) => panic!("{text:?}: the fast parser read {fast}, the grammar failed: {e}"),
            }
        }
        if let Ok(expr) = parsed {
            let _ = expr.to_string();
        }
        let _ = parser.parse_ad(text);
    } else {
        let format = match (selector >> 2) % 5 {
            0 => None,
            1 => Some(Format::New),
            2 => Some(Format::Old),
            3 => Some(Format::Json),
            _ => Some(Format::Xml),
        };
        for ad in Reader::new(input, format).skip_bad_ads(true).take(1000) {
            if let Ok(ad) = ad {
                let _ = ad.to_string();
            }
        }
    }
});
