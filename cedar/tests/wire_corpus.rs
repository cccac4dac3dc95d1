//! The wire corpus: real traffic between HTCondor 23.9.6 programs, recorded
//! by `tests/data/wire/capture.sh` (see its README), read with this crate.
//!
//! * Every plaintext message of every recorded connection decodes into
//!   exactly the items the recording's index lists for it (integers with
//!   their values, ClassAds with their `MyType` and attribute count,
//!   strings), with no byte left over.
//! * The ads of each `condor_status -l` reply are the ads the tool printed
//!   (`expected/<step>.out`), expression by expression.
//! * Every decoded ad re-encodes (to a 23.9.6 peer) to bytes that decode
//!   to the same ad.

use std::path::{Path, PathBuf};

use cedar::version::Version;
use cedar::wire::ad::{get_classad, put_classad, AdLimits, PutOptions};
use cedar::wire::{Decoder, Encoder, Inbound, Message};
use classad::format::{parse_ads, Format};
use classad::{ClassAd, Literal};
use serde_json::Value;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/wire")
}

/// The recording variants, each a directory with `index.json` and `conn/`.
const VARIANTS: &[&str] = &[".", "family", "stranger", "escape"];

fn index(variant: &Path) -> Value {
    let text = std::fs::read_to_string(variant.join("index.json")).expect("index.json");
    serde_json::from_str(&text).expect("index.json is JSON")
}

/// The messages of one direction of a connection, in order.
fn messages(variant: &Path, id: &str, dir: &str) -> Vec<Message> {
    let bytes = std::fs::read(variant.join("conn").join(format!("{id}.{dir}.bin"))).expect("a recording");
    let mut inbound = Inbound::new();
    inbound.feed(&bytes);
    let mut out = Vec::new();
    // Only the plaintext part frames cleanly; stop at the first error
    // (AES-GCM ciphertext after a handshake, in the family variants).
    while let Ok(Some(m)) = inbound.next_message() {
        out.push(m);
    }
    out
}

fn string_attr(ad: &ClassAd, name: &str) -> Option<String> {
    match ad.lookup(name)?.as_literal()? {
        Literal::Str(s) => Some(s.to_string()),
        _ => None,
    }
}

/// One item of a recorded message's shape: `60010`, `ad(Machine,170)`,
/// `ad(-,12)` (no MyType), `str`.
enum Item {
    Int(i64),
    Ad(Option<String>, usize),
    Str,
}

/// The shape's items; None for a shape the recorder could not read (`?`).
fn shape(text: &str) -> Option<Vec<Item>> {
    text.split('+')
        .map(|part| {
            if part == "str" {
                Some(Item::Str)
            } else if let Some(inner) = part.strip_prefix("ad(").and_then(|p| p.strip_suffix(')')) {
                let (my_type, count) = inner.rsplit_once(',')?;
                let my_type = (my_type != "-").then(|| my_type.to_owned());
                Some(Item::Ad(my_type, count.parse().ok()?))
            } else {
                part.parse().ok().map(Item::Int)
            }
        })
        .collect()
}

/// Decodes `m` item by item as `items` says; the ads found.
fn decode_as(m: &Message, items: &[Item], what: &str) -> Vec<ClassAd> {
    let mut dec = Decoder::new(&m.payload, false);
    let mut ads = Vec::new();
    for item in items {
        match item {
            Item::Int(want) => assert_eq!(dec.get_int().expect(what), *want, "{what}"),
            Item::Str => {
                dec.get_optional_string().expect(what);
            }
            Item::Ad(my_type, count) => {
                let ad = get_classad(&mut dec, &AdLimits::default()).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(&string_attr(&ad, "MyType"), my_type, "{what}: MyType");
                // A name can come twice (the collector's own ad repeats its
                // statistics), so the ad may hold fewer than were sent.
                assert!(
                    ad.len() <= *count && ad.is_empty() == (*count == 0),
                    "{what}: {} of {count} attributes",
                    ad.len()
                );
                ads.push(ad);
            }
        }
    }
    dec.finish().unwrap_or_else(|e| panic!("{what}: bytes left over: {e}"));
    ads
}

/// Every connection of every variant: (variant dir, index entry).
fn connections() -> Vec<(PathBuf, Value)> {
    let mut out = Vec::new();
    for v in VARIANTS {
        let dir = corpus().join(v);
        let idx = index(&dir);
        for c in idx["connections"].as_array().expect("connections") {
            out.push((dir.clone(), c.clone()));
        }
    }
    out
}

#[test]
fn every_plaintext_message_decodes_as_recorded() {
    let (mut messages_read, mut ads_read, mut connections_read) = (0, 0, 0);
    for (dir, c) in connections() {
        let id = c["id"].as_str().expect("id");
        connections_read += 1;
        for d in ["c2s", "s2c"] {
            let got = messages(&dir, id, d);
            let recorded: Vec<&Value> =
                c["messages"].as_array().expect("messages").iter().filter(|m| m["dir"] == d).collect();
            for (i, (m, r)) in got.iter().zip(&recorded).enumerate() {
                assert_eq!(m.payload.len() as u64, r["payload_len"].as_u64().expect("payload_len"), "{id} {d} #{i}");
                let Some(items) = r["shape"].as_str().and_then(shape) else {
                    break; // not plaintext from here on
                };
                let ads = decode_as(m, &items, &format!("{id} {d} message {i}"));
                messages_read += 1;
                for ad in ads {
                    ads_read += 1;
                    // To a 23.9.6 peer, so that V2 private attributes go too.
                    let to_peer = PutOptions::new().peer_version(Some(Version::new(23, 9, 6, "")));
                    let mut enc = Encoder::new(false);
                    put_classad(&mut enc, &ad, &to_peer).expect("re-encode");
                    let bytes = enc.into_bytes();
                    let back = get_classad(&mut Decoder::new(&bytes, false), &AdLimits::default()).expect("read back");
                    assert!(back.same_as(&ad), "{id} {d} message {i}: {ad} came back as {back}");
                }
            }
        }
    }
    // The corpus holds hundreds of messages; a reader that silently gave up
    // on all of them must not pass.
    assert!(connections_read > 100, "{connections_read} connections");
    assert!(messages_read > 500, "{messages_read} messages decoded");
    assert!(ads_read > 300, "{ads_read} ads decoded");
}

/// The identity the tool's printed ads are paired with the wire's by
/// (`condor_status -any` sorts them).
fn ident(ad: &ClassAd) -> (Option<String>, Option<String>, Option<String>) {
    (string_attr(ad, "MyType"), string_attr(ad, "Name"), string_attr(ad, "MyAddress"))
}

#[test]
fn condor_status_long_replies_are_what_the_tool_printed() {
    let mut checked = 0;
    for v in VARIANTS {
        let dir = corpus().join(v);
        let steps: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("steps.json")).expect("steps.json")).expect("JSON");
        for (_, c) in connections().into_iter().filter(|(d, _)| *d == dir) {
            let Some(step) = c["client"].as_str().and_then(|s| s.strip_prefix("tool:")) else { continue };
            let Some(argv) = steps.as_array().expect("steps").iter().find(|s| s["step"] == step).map(|s| &s["argv"])
            else {
                continue;
            };
            let argv: Vec<&str> = argv.as_array().expect("argv").iter().filter_map(Value::as_str).collect();
            let is_status_l = argv.iter().any(|a| a.ends_with("condor_status")) && argv.contains(&"-l");
            let is_query = c["command_name"].as_str().is_some_and(|n| n.starts_with("QUERY_"));
            if !is_status_l || !is_query {
                continue;
            }
            let id = c["id"].as_str().expect("id");
            // The reply is the server's last message: int 1 + ad ... int 0.
            let reply = messages(&dir, id, "s2c").pop().expect("a reply");
            let mut dec = Decoder::new(&reply.payload, false);
            let mut got = Vec::new();
            while dec.get_int().expect("more") == 1 {
                got.push(get_classad(&mut dec, &AdLimits::default()).expect("an ad"));
            }
            dec.finish().expect("nothing after int 0");
            let printed = std::fs::read_to_string(dir.join("expected").join(format!("{step}.out"))).expect("output");
            let want = parse_ads(&printed, Some(Format::Old)).expect("condor_status -l output parses");
            assert_eq!(want.len(), got.len(), "{id}: ads printed vs on the wire");
            for w in &want {
                let pos =
                    got.iter().position(|g| ident(g) == ident(w)).unwrap_or_else(|| panic!("{id}: {:?}", ident(w)));
                let g = got.remove(pos);
                assert!(g.same_as(w), "{id}: the wire has {g}, the tool printed {w}");
            }
            checked += 1;
        }
    }
    assert!(checked >= 10, "{checked} condor_status -l replies checked");
}
