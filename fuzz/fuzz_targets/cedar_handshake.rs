//! The server side of the command protocol, sans-IO, fed a client's
//! messages built from fuzzer bytes: no sockets.
//!
//! The first byte picks the step fuzzed:
//! * 0: the first message, raw bytes (a command integer and whatever
//!   follows, or `DC_AUTHENTICATE` and a fuzzed ad);
//! * 1: the first message as `DC_AUTHENTICATE` with a security ad made of
//!   the real C++ client's new-session ad (captured from the wheel) with
//!   fuzzed `Name = value` lines added or replacing attributes;
//! * 2: a resume ad: a real new session is made first, then a resume ad
//!   carrying its `Sid` (or a fuzzed one) and fuzzed attributes;
//! * 3: the payload phase: after a real handshake, the following messages
//!   (follow-on commands) are fuzzed raw messages.
//!
//! Each step ends with further fuzzed messages until the server closes.
//! The server must never panic, and must refuse every message once it has
//! closed.
#![no_main]

use std::sync::Arc;

use cedar::authz::Permission;
use cedar::command::{DC_AUTHENTICATE, DC_NOP, DC_SEC_QUERY, QUERY_STARTD_ADS, UPDATE_STARTD_AD};
use cedar::handshake::{CommandTable, Output, ServerConfig, ServerConnection, Step};
use cedar::wire::ad::{get_classad, put_classad, AdLimits, PutOptions};
use cedar::wire::{Decoder, Encoder, Message};
use classad::format::{parse_ads, Format};
use classad::{ClassAd, Syntax};
use classad_fuzz::cedar_input::{wire_ad, Pieces};
use classad_fuzz::parser;
use libfuzzer_sys::fuzz_target;

const NEW_SESSION: &str = include_str!("../../cedar/tests/data/handshake/client_new_session.ad");

fn config() -> Arc<ServerConfig> {
    let table = CommandTable::new()
        .register(QUERY_STARTD_ADS, Permission::Read)
        .register(UPDATE_STARTD_AD, Permission::AdvertiseStartd)
        .register(DC_NOP, Permission::Allow)
        .register(DC_SEC_QUERY, Permission::Allow);
    let mut c = ServerConfig::new(table).hostname("fuzz-host");
    c.limits = AdLimits::default().max_attributes(1000).max_depth(100).max_line(1 << 16);
    Arc::new(c)
}

fn base_ad() -> ClassAd {
    parse_ads(NEW_SESSION, Some(Format::Old)).ok().and_then(|mut v| v.pop()).unwrap_or_default()
}

/// `ad` with the fuzzed lines parsed in (lines that do not parse are skipped).
fn with_lines(mut ad: ClassAd, lines: &[u8]) -> ClassAd {
    let text = String::from_utf8_lossy(lines);
    for line in text.lines().take(64) {
        if let Some((name, value)) = cedar::wire::ad::split_attribute(line) {
            if let Ok(e) = parser(Syntax::Old).parse_expr(value) {
                ad.insert(name, e);
            }
        }
    }
    ad
}

fn auth_message(ad: &ClassAd) -> Message {
    let mut enc = Encoder::new(false);
    enc.put_int(i64::from(DC_AUTHENTICATE));
    let _ = put_classad(&mut enc, ad, &PutOptions::new());
    Message { payload: enc.into_bytes(), encrypted: false }
}

/// Hands `m` to the server; whether the connection is still open.
fn step(conn: &mut ServerConnection, m: Message) -> bool {
    let r = conn.on_message(m);
    let _ = conn.take_output();
    matches!(r, Ok(Step::Command(_) | Step::Continue))
}

/// A real new session; its `Sid`.
fn new_session(conn: &mut ServerConnection) -> Option<String> {
    let mut ad = base_ad();
    ad.insert("Command", i64::from(QUERY_STARTD_ADS));
    let r = conn.on_message(auth_message(&ad));
    let out = conn.take_output();
    if !matches!(r, Ok(Step::Command(_))) {
        return None;
    }
    // The response ad, then the post-auth ad (the session is plaintext).
    let post = match out.get(1)? {
        Output::Message(bytes) => get_classad(&mut Decoder::new(bytes, false), &AdLimits::default()).ok()?,
        _ => return None,
    };
    match post.lookup("Sid")?.as_literal()? {
        classad::Literal::Str(s) => Some(s.to_string()),
        _ => None,
    }
}

/// Feeds the remaining chunks as messages. After an error the adapter
/// drops the connection, so feeding stops; after a close every message
/// must be refused.
fn rest_messages(conn: &mut ServerConnection, p: &mut Pieces<'_>) {
    let mut closed = false;
    while !p.is_empty() {
        let payload = p.chunk().to_vec();
        let r = conn.on_message(Message { payload, encrypted: false });
        let _ = conn.take_output();
        if closed {
            assert!(r.is_err(), "a closed connection took a message");
        }
        match r {
            Ok(Step::Command(_) | Step::Continue) => {}
            Ok(_) => closed = true,
            Err(_) if !closed => return,
            Err(_) => {}
        }
    }
    let _ = conn.on_eof();
}

fuzz_target!(|data: &[u8]| {
    let mut p = Pieces::new(data);
    let mode = p.byte() % 4;
    let cfg = config();
    let mut conn = ServerConnection::new(cfg.clone(), Some([127, 0, 0, 1].into()));
    match mode {
        0 => {
            let first = p.chunk().to_vec();
            if !step(&mut conn, Message { payload: first, encrypted: false }) {
                // A fresh connection after a closed one must work as usual.
                conn = ServerConnection::new(cfg, None);
            }
        }
        1 => {
            let raw = p.byte() & 1 == 1;
            let lines = p.chunk();
            let m = if raw {
                let mut enc = Encoder::new(false);
                enc.put_int(i64::from(DC_AUTHENTICATE));
                wire_ad(&mut enc, lines);
                Message { payload: enc.into_bytes(), encrypted: false }
            } else {
                auth_message(&with_lines(base_ad(), lines))
            };
            step(&mut conn, m);
        }
        2 => {
            let Some(sid) = new_session(&mut conn) else {
                panic!("the captured client ad no longer makes a session");
            };
            let keep_sid = p.byte() & 1 == 0;
            let mut resume = ClassAd::new();
            resume.insert("Command", i64::from(QUERY_STARTD_ADS));
            resume.insert("UseSession", "YES");
            resume.insert("ResumeResponse", true);
            if keep_sid {
                resume.insert("Sid", sid.as_str());
            }
            let resume = with_lines(resume, p.chunk());
            let mut fresh = ServerConnection::new(cfg, None);
            step(&mut fresh, auth_message(&resume));
            conn = fresh;
        }
        _ => {
            if new_session(&mut conn).is_none() {
                panic!("the captured client ad no longer makes a session");
            }
        }
    }
    rest_messages(&mut conn, &mut p);
});
