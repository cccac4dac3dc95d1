//! cedar's packet reader and primitive decoder on arbitrary bytes.
//!
//! The first byte picks the mode. Raw mode feeds the rest to `Inbound` as
//! a stream (in chunks of a fuzzed size) and decodes every message it
//! yields; framed mode frames the rest as one message in packets of a
//! fuzzed size, so the decoder works on the fuzzer's payload past the
//! header, and checks the reader gives the payload back whole. Decoding
//! tries integers, strings (plaintext and length-prefixed), doubles, a
//! ClassAd and a mix, and checks integers and strings re-encode to the
//! bytes they were read from.
#![no_main]

use cedar::wire::ad::{get_classad, AdLimits};
use cedar::wire::{Decoder, Encoder, Inbound, Message};
use classad_fuzz::cedar_input::frame;
use libfuzzer_sys::fuzz_target;

const MAX_MESSAGE: usize = 1 << 20;

fn decode_all(payload: &[u8], encrypted: bool) {
    // Integers: each 8-byte read re-encodes to its bytes.
    let mut d = Decoder::new(payload, encrypted);
    while let Ok(v) = d.get_int() {
        let at = payload.len() - d.remaining().len() - 8;
        let mut e = Encoder::new(encrypted);
        e.put_int(v);
        assert_eq!(e.as_bytes(), &payload[at..at + 8]);
    }
    // Strings: a string re-encodes to what it was read from, unless it was
    // cut at an inner NUL (length-prefixed) or is NULL.
    let mut d = Decoder::new(payload, encrypted).with_max_string(4096);
    loop {
        let before = d.remaining();
        match d.get_string_bytes() {
            Ok(Some(s)) => {
                let used = before.len() - d.remaining().len();
                let mut e = Encoder::new(encrypted);
                if e.put_string_bytes(s).is_ok() && !encrypted {
                    assert_eq!(e.as_bytes(), &before[..used]);
                }
            }
            Ok(None) => {}
            Err(_) => break,
        }
    }
    let mut d = Decoder::new(payload, encrypted);
    while let Ok(x) = d.get_double() {
        let _ = x.is_nan();
    }
    let mut d = Decoder::new(payload, encrypted);
    if let Ok(ad) = get_classad(&mut d, &AdLimits::default().max_attributes(2000)) {
        let _ = ad.to_string();
    }
    // A mix driven by the payload's own bytes.
    let mut d = Decoder::new(payload, encrypted);
    for &op in payload.iter().take(64) {
        let r = match op % 5 {
            0 => d.get_int().map(drop),
            1 => d.get_i32().map(drop),
            2 => d.get_string().map(drop),
            3 => d.get_double().map(drop),
            _ => d.get_bytes(usize::from(op >> 3)).map(drop),
        };
        if r.is_err() {
            break;
        }
    }
    let _ = d.finish();
}

fn drain(inbound: &mut Inbound, got: &mut Vec<Message>) -> bool {
    loop {
        match inbound.next_message() {
            Ok(Some(m)) => {
                assert!(m.payload.len() <= MAX_MESSAGE);
                got.push(m);
            }
            Ok(None) => return true,
            Err(_) => return false,
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let chunk = usize::from(sel >> 2) * 7 + 1;
    let framed = sel & 1 == 1;
    let encrypted = sel & 2 == 2;
    let stream = if framed { frame(rest, usize::from(sel >> 1) * 37 + 1) } else { rest.to_vec() };
    let mut inbound = Inbound::with_max_message(MAX_MESSAGE);
    let mut got = Vec::new();
    let mut ok = true;
    for piece in stream.chunks(chunk) {
        inbound.feed(piece);
        ok = drain(&mut inbound, &mut got);
        if !ok {
            break;
        }
    }
    if framed && !rest.is_empty() {
        assert!(ok, "a framed message failed to read");
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].payload, rest);
        assert!(inbound.at_message_boundary());
        assert_eq!(inbound.buffered(), 0);
    }
    for m in &got {
        decode_all(&m.payload, encrypted || m.encrypted);
    }
});
