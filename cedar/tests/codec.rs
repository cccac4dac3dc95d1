//! The primitive encodings: round trips and bounded errors.

use cedar::wire::codec::{frexp, ldexp, DEFAULT_MAX_STRING};
use cedar::wire::{Decoder, Encoder};
use cedar::ErrorKind;
use proptest::prelude::*;

/// A string C++ can carry: no NUL, and not starting with 0xFF (which reads
/// back as a NULL string, in C++ as here).
fn wire_string() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(1u8..=255, 0..200).prop_filter("0xFF first is NULL", |v| v.first() != Some(&0xFF))
}

#[derive(Debug, Clone)]
enum Item {
    Int(i64),
    Uint(u64),
    Str(Vec<u8>),
    Null,
    Double(f64),
    Bytes(Vec<u8>),
}

fn item() -> impl Strategy<Value = Item> {
    prop_oneof![
        any::<i64>().prop_map(Item::Int),
        any::<u64>().prop_map(Item::Uint),
        wire_string().prop_map(Item::Str),
        Just(Item::Null),
        any::<f64>().prop_filter("finite", |d| d.is_finite()).prop_map(Item::Double),
        proptest::collection::vec(any::<u8>(), 0..40).prop_map(Item::Bytes),
    ]
}

fn encode(items: &[Item], encrypted: bool) -> Vec<u8> {
    let mut enc = Encoder::new(encrypted);
    for i in items {
        match i {
            Item::Int(v) => enc.put_int(*v),
            Item::Uint(v) => enc.put_uint(*v),
            Item::Str(s) => enc.put_string_bytes(s).expect("no NUL"),
            Item::Null => enc.put_null_string(),
            Item::Double(d) => enc.put_double(*d),
            Item::Bytes(b) => enc.put_bytes(b),
        }
    }
    enc.into_bytes()
}

fn decode(bytes: &[u8], items: &[Item], encrypted: bool) -> cedar::error::Result<()> {
    let mut dec = Decoder::new(bytes, encrypted);
    for i in items {
        match i {
            Item::Int(v) => assert_eq!(dec.get_int()?, *v),
            Item::Uint(v) => assert_eq!(dec.get_uint()?, *v),
            Item::Str(s) => assert_eq!(dec.get_string_bytes()?, Some(&s[..])),
            Item::Null => assert_eq!(dec.get_string_bytes()?, None),
            Item::Double(d) => {
                let got = dec.get_double()?;
                // 31 bits of mantissa survive (frexp × 2147483647, truncated).
                let tolerance = d.abs() * 2f64.powi(-30) + f64::MIN_POSITIVE;
                assert!((got - d).abs() <= tolerance, "{d} came back as {got}");
            }
            Item::Bytes(b) => assert_eq!(dec.get_bytes(b.len())?, &b[..]),
        }
    }
    dec.finish()
}

proptest! {
    #[test]
    fn primitives_round_trip(items in proptest::collection::vec(item(), 0..20), encrypted in any::<bool>()) {
        let bytes = encode(&items, encrypted);
        decode(&bytes, &items, encrypted).unwrap();
    }

    #[test]
    fn every_truncation_is_an_error(items in proptest::collection::vec(item(), 1..10), encrypted in any::<bool>(), cut in any::<prop::sample::Index>()) {
        let bytes = encode(&items, encrypted);
        prop_assume!(!bytes.is_empty());
        let at = cut.index(bytes.len());
        // Every proper prefix fails somewhere: a value cut short is an
        // error, never a shorter value.
        prop_assert!(decode(&bytes[..at], &items, encrypted).is_err());
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..64), encrypted in any::<bool>()) {
        let mut dec = Decoder::new(&bytes, encrypted);
        let _ = dec.get_string_bytes();
        let _ = dec.get_i32();
        let _ = dec.get_double();
        let _ = dec.get_int();
    }

    #[test]
    fn frexp_ldexp_are_inverse(d in any::<f64>().prop_filter("finite", |d| d.is_finite())) {
        let (m, e) = frexp(d);
        if d != 0.0 {
            prop_assert!((0.5..1.0).contains(&m.abs()), "mantissa {m}");
        }
        prop_assert_eq!(ldexp(m, i64::from(e)), d);
    }
}

#[test]
fn integers_are_eight_bytes_big_endian_sign_extended() {
    let mut enc = Encoder::new(false);
    enc.put_int(-2);
    enc.put_int(60010);
    assert_eq!(enc.as_bytes(), [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, 0, 0, 0, 0, 0, 0, 0xea, 0x6a]);
    let bytes = enc.into_bytes();
    let mut dec = Decoder::new(&bytes, false);
    assert_eq!(dec.get_i32().unwrap(), -2);
    assert_eq!(dec.get_i32().unwrap(), 60010);
}

#[test]
fn a_32_bit_integer_with_bad_padding_is_refused() {
    // 0x00000001_00000000 does not fit a C++ int: Stream::get(int&) checks
    // the padding is the sign extension.
    let bytes = [0, 0, 0, 1, 0, 0, 0, 0];
    let err = Decoder::new(&bytes, false).get_i32().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Malformed);
    let bytes = [0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]; // +4294967295, not -1
    assert!(Decoder::new(&bytes, false).get_i32().is_err());
}

#[test]
fn strings_plain_and_encrypted() {
    let mut enc = Encoder::new(false);
    enc.put_str("ab").unwrap();
    enc.put_null_string();
    assert_eq!(enc.as_bytes(), b"ab\0\xff");
    let mut enc = Encoder::new(true);
    enc.put_str("ab").unwrap();
    enc.put_null_string();
    assert_eq!(enc.as_bytes(), b"\0\0\0\0\0\0\0\x03ab\0\0\0\0\0\0\0\0\x01\xff");
    assert_eq!(Encoder::new(false).put_str("a\0b").unwrap_err().kind(), ErrorKind::Protocol);
}

#[test]
fn the_double_encoding_matches_cpp() {
    // 1.5 = 0.75 × 2^1: (int)(0.75 × 2147483647) = 1610612735, exponent 1.
    let mut enc = Encoder::new(false);
    enc.put_double(1.5);
    let mut expected = 1610612735i64.to_be_bytes().to_vec();
    expected.extend_from_slice(&1i64.to_be_bytes());
    assert_eq!(enc.as_bytes(), &expected[..]);
}

#[test]
fn non_finite_doubles_go_as_x86_int_min() {
    for d in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let mut enc = Encoder::new(false);
        enc.put_double(d);
        let bytes = enc.into_bytes();
        let mut dec = Decoder::new(&bytes, false);
        assert_eq!(dec.get_i32().unwrap(), i32::MIN);
        assert_eq!(dec.get_i32().unwrap(), 0);
    }
}

#[test]
fn oversized_and_unterminated_strings_are_bounded_errors() {
    let long = vec![b'a'; 100];
    let mut bytes = long.clone();
    bytes.push(0);
    let err = Decoder::new(&bytes, false).with_max_string(10).get_string_bytes().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::LimitExceeded);
    let err = Decoder::new(&long, false).get_string_bytes().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Malformed);
    // An encrypted-stream length over the bound is refused before reading.
    let mut enc = Encoder::new(false);
    enc.put_int(DEFAULT_MAX_STRING as i64 + 2);
    let bytes = enc.into_bytes();
    assert_eq!(Decoder::new(&bytes, true).get_string_bytes().unwrap_err().kind(), ErrorKind::LimitExceeded);
    // A negative or zero length is malformed.
    let mut enc = Encoder::new(false);
    enc.put_int(0);
    let bytes = enc.into_bytes();
    assert_eq!(Decoder::new(&bytes, true).get_string_bytes().unwrap_err().kind(), ErrorKind::Malformed);
}

#[test]
fn unread_bytes_fail_finish() {
    let bytes = [0u8; 9];
    let mut dec = Decoder::new(&bytes, false);
    dec.get_int().unwrap();
    assert_eq!(dec.finish().unwrap_err().kind(), ErrorKind::Protocol);
}
