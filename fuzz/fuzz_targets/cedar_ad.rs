//! ClassAds on the wire: `get_classad` (and its keyed and no-types
//! variants) on arbitrary payloads, and on ads built from fuzzed
//! `Name = value` lines with a valid count and trailer around them
//! (structure-aware mode), plaintext or length-prefixed. Every ad that
//! decodes is put back on the wire and must decode to the same ad.
#![no_main]

use cedar::wire::ad::{get_classad, get_classad_keyed, get_classad_no_types, put_classad, AdLimits, PutOptions};
use cedar::wire::{Decoder, Encoder};
use classad::ClassAd;
use classad_fuzz::cedar_input::wire_ad;
use classad_fuzz::old_syntax_can_write;
use libfuzzer_sys::fuzz_target;

fn limits() -> AdLimits {
    AdLimits::default().max_attributes(2000).max_depth(200).max_line(1 << 16)
}

fn same(a: &ClassAd, b: &ClassAd) -> bool {
    a.len() == b.len()
        && a.iter().all(|(n, e)| b.lookup(n.as_str()).is_some_and(|f| f.to_string() == e.to_string()))
}

fn check_roundtrip(ad: &ClassAd, encrypted: bool) {
    // Old syntax has no text for some strings (see `old_syntax_can_write`);
    // such ads are sent as libclassad sends them, and need not read back.
    if !ad.iter().all(|(_, e)| old_syntax_can_write(e)) {
        return;
    }
    let mut enc = Encoder::new(encrypted);
    if put_classad(&mut enc, ad, &PutOptions::new()).is_err() {
        return;
    }
    let bytes = enc.into_bytes();
    let mut dec = Decoder::new(&bytes, encrypted);
    let back = match get_classad(&mut dec, &limits()) {
        Ok(b) => b,
        Err(e) => panic!("an ad we wrote does not read back: {e}\n{ad}"),
    };
    assert!(dec.finish().is_ok(), "bytes left after our own ad");
    assert!(same(ad, &back), "wire roundtrip changed the ad:\n{ad}\n---\n{back}");
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let encrypted = sel & 1 == 1;
    let payload = if sel & 2 == 2 {
        let mut enc = Encoder::new(encrypted);
        wire_ad(&mut enc, rest);
        enc.into_bytes()
    } else {
        rest.to_vec()
    };
    let mut dec = Decoder::new(&payload, encrypted);
    let read = match (sel >> 2) % 3 {
        0 => get_classad(&mut dec, &limits()),
        1 => get_classad_no_types(&mut dec, &limits()),
        _ => get_classad_keyed(&mut dec, &limits()),
    };
    if let Ok(ad) = read {
        let _ = dec.finish();
        check_roundtrip(&ad, encrypted);
    }
});
