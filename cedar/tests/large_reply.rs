//! A query reply larger than `Inbound`'s default message bound (64 MiB),
//! over real TCP: `CollectorClient::query_each` and a `ReplyReader` on a
//! blocking `Connection` read it ad by ad, every ad arrives intact, and
//! the reader never holds more than an ad and a packet.

#![allow(clippy::unwrap_used)] // test code

use std::net::{SocketAddr, TcpListener};
use std::time::Duration;

use cedar::blocking::Connection;
use cedar::client::{Client, ClientConfig, CollectorClient, Query};
use cedar::command::QUERY_STARTD_ADS;
use cedar::wire::ad::{get_classad, put_classad, AdLimits, PutOptions};
use cedar::wire::reply::{ReplyLimits, ReplyReader};
use cedar::wire::{Decoder, DEFAULT_MAX_MESSAGE};
use classad::ClassAd;

/// Ads of about 4.2 KB each: a slot's few attributes and a long string
/// that differs from ad to ad.
fn ads(n: usize) -> Vec<ClassAd> {
    (0..n)
        .map(|i| {
            let mut ad = ClassAd::new();
            ad.insert("Name", format!("slot{}@wn{:05}.example", i % 8 + 1, i / 8).as_str());
            ad.insert("Cpus", (i % 16) as i64);
            ad.insert("LoadAvg", (i % 100) as f64 / 100.0);
            ad.insert_expr("Start", "(TARGET.RequestCpus <= MY.Cpus) && (KeyboardIdle > 15 * 60)").unwrap();
            ad.insert("Blob", format!("{i:08}-\"q\"-{}", "xy".repeat(2100)).as_str());
            ad
        })
        .collect()
}

/// The reply to a query, every ad of `ads` after an `int 1`, then `int 0`.
fn reply(ads: &[ClassAd]) -> Vec<u8> {
    let mut enc = cedar::wire::Encoder::new(false);
    for ad in ads {
        enc.put_int(1);
        put_classad(&mut enc, ad, &PutOptions::new()).unwrap();
    }
    enc.put_int(0);
    assert!(enc.len() > DEFAULT_MAX_MESSAGE, "the reply is {} bytes", enc.len());
    enc.into_bytes()
}

/// A server that answers one raw `QUERY_STARTD_ADS` with `reply` in one
/// message of packets of `packet` bytes.
fn serve(reply: Vec<u8>, packet: usize) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        let mut conn = Connection::new(stream, Duration::from_secs(60)).unwrap();
        conn.set_max_packet(packet);
        let query = conn.expect_message().unwrap();
        let mut dec = Decoder::new(&query.payload, query.encrypted);
        assert_eq!(dec.get_int().unwrap(), i64::from(QUERY_STARTD_ADS));
        get_classad(&mut dec, &AdLimits::default()).unwrap();
        conn.send(&reply).unwrap();
    });
    addr
}

const ADS: usize = 17_000;

#[test]
fn a_reply_over_64_mib_streams_ad_by_ad() {
    let sent = ads(ADS);
    // Packets of 4 KiB, as the C++ collector sends them.
    let addr = serve(reply(&sent), 4096);
    let mut config = ClientConfig::default().raw();
    config.timeout = Duration::from_secs(60);
    let collector = CollectorClient::new(Client::new(config), format!("<{addr}>").parse().unwrap());
    let mut i = 0;
    let n = collector
        .query_each(&Query::startd(), |ad| {
            assert!(ad.same_as(&sent[i]), "ad {i} differs");
            i += 1;
        })
        .unwrap();
    assert_eq!((n, i), (ADS, ADS));
}

#[test]
fn the_reader_holds_an_ad_and_a_packet_at_most() {
    let sent = ads(ADS);
    let addr = serve(reply(&sent), 1 << 20);
    let stream = std::net::TcpStream::connect(addr).unwrap();
    let mut conn = Connection::new(stream, Duration::from_secs(60)).unwrap();
    let mut enc = conn.encoder();
    enc.put_int(i64::from(QUERY_STARTD_ADS));
    put_classad(&mut enc, &Query::startd().to_ad(), &PutOptions::new()).unwrap();
    conn.send(enc.as_bytes()).unwrap();
    let mut reply = ReplyReader::new(ReplyLimits::default());
    let (mut got, mut most) = (0, 0);
    while conn.read_reply_packet(&mut reply).unwrap() {
        most = most.max(reply.held());
        while let Some(ad) = reply.next_ad().unwrap() {
            assert!(ad.same_as(&sent[got]), "ad {got} differs");
            got += 1;
        }
    }
    assert!(reply.is_done());
    assert_eq!(got, ADS);
    assert!(most <= (1 << 20) + 8192, "the reader held {most} bytes");
    // Nothing more to read.
    assert!(!conn.read_reply_packet(&mut reply).unwrap());
}
