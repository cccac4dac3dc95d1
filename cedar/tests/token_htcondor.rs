//! Tokens and keys made by the real HTCondor 23.9.6 (`condor_token_create`
//! in the chroot; see tests/data/token/make-fixtures.sh) against this
//! crate's key handling, verifier and minting.

// Test helpers unwrap: a fixture that fails to load is a failed test.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use cedar::token::discovery::{find_token, tokens_in_text, TokenFilter};
use cedar::token::jwt::{Jwt, MintClaims, Validation};
use cedar::token::key::{read_key_file, scramble, FileCheck, KeySource, KeyStore, SigningKey};
use cedar::ErrorKind;

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/token")
}

fn token(name: &str) -> String {
    std::fs::read_to_string(data().join(format!("{name}.jwt"))).unwrap().trim_end().to_string()
}

fn key(kid: &str, file: &str) -> SigningKey {
    read_key_file(kid, &data().join("keys").join(file), FileCheck::none()).unwrap()
}

fn pool() -> SigningKey {
    key("POOL", "POOL")
}

/// A time all fixtures are valid at (after iat, before the long exp).
fn when(jwt: &Jwt) -> i64 {
    jwt.claims().issued_at.unwrap() + 10
}

#[test]
fn every_real_token_verifies_with_its_real_key() {
    for (name, k) in [
        ("condor", pool()),
        ("authz", pool()),
        ("other", key("other", "other")),
        ("awkward", key("POOL", "awkward-pool")),
    ] {
        let jwt = Jwt::parse(&token(name)).unwrap();
        let ok = jwt
            .verify(&k, &Validation::at(when(&jwt)).with_issuer("anchor.local"))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(ok.subject.ends_with("@anchor.local"), "{name}");
        assert_eq!(ok.issuer, "anchor.local");
        assert_eq!(ok.id.as_ref().map(String::len), Some(32), "{name}: jti is 32 hex digits");
    }
}

#[test]
fn the_short_token_verified_in_its_lifetime_and_expired_after() {
    let jwt = Jwt::parse(&token("short")).unwrap();
    let iat = jwt.claims().issued_at.unwrap();
    assert_eq!(jwt.claims().expires_at, Some(iat + 1));
    assert!(jwt.verify(&pool(), &Validation::at(iat + 1)).is_ok());
    let e = jwt.verify(&pool(), &Validation::at(iat + 2)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Authentication);
    assert!(e.message().contains("expired 1 s ago"), "{e}");
    // And by the real clock too: it was minted with -lifetime 1.
    assert!(jwt.verify(&pool(), &Validation::now()).unwrap_err().message().contains("expired"));
}

#[test]
fn scopes_of_the_authz_token() {
    let jwt = Jwt::parse(&token("authz")).unwrap();
    let ok = jwt.verify(&pool(), &Validation::at(when(&jwt))).unwrap();
    assert_eq!(ok.scopes, ["condor:/READ", "condor:/ADVERTISE_STARTD"]);
    assert_eq!(ok.authz, ["READ", "ADVERTISE_STARTD"]);
    assert_eq!(ok.limit_authorization().as_deref(), Some("READ,ADVERTISE_STARTD"));
    let plain = Jwt::parse(&token("condor")).unwrap().verify(&pool(), &Validation::at(when(&jwt))).unwrap();
    assert!(plain.authz.is_empty() && plain.limit_authorization().is_none());
}

#[test]
fn minting_reproduces_every_real_token_byte_for_byte() {
    for (name, k) in [
        ("condor", pool()),
        ("authz", pool()),
        ("short", pool()),
        ("other", key("other", "other")),
        ("awkward", key("POOL", "awkward-pool")),
    ] {
        let real = token(name);
        let jwt = Jwt::parse(&real).unwrap();
        // iat, exp and the random jti are read back from the real token.
        let claims = MintClaims::from_claims(jwt.claims()).unwrap();
        assert_eq!(claims.mint(&k).unwrap(), real, "{name}");
    }
}

#[test]
fn the_header_and_payload_text_is_jwt_cpp_s() {
    let jwt = Jwt::parse(&token("authz")).unwrap();
    use base64::Engine;
    let e = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    assert_eq!(e.decode(jwt.header_part()).unwrap(), br#"{"alg":"HS256","kid":"POOL"}"#);
    let payload = String::from_utf8(e.decode(jwt.payload_part()).unwrap()).unwrap();
    assert!(payload.starts_with(r#"{"exp":"#), "{payload}");
    assert!(
        payload.contains(r#","scope":"condor:\/READ condor:\/ADVERTISE_STARTD","sub":"condor@anchor.local"}"#),
        "{payload}"
    );
    let other = Jwt::parse(&token("other")).unwrap();
    assert_eq!(e.decode(other.header_part()).unwrap(), br#"{"alg":"HS256","kid":"other"}"#);
}

#[test]
fn key_files_are_read_verbatim_and_pool_is_doubled() {
    // The script wrote these files' bytes as they are (not scrambled): the
    // key HTCondor signed with is their scramble, trailing "\n\0" and all.
    let raw = std::fs::read(data().join("keys/other")).unwrap();
    assert_eq!(raw, b"other secret\n\0\0");
    assert_eq!(key("other", "other").secret(), scramble(&raw));
    let awkward = std::fs::read(data().join("keys/awkward-pool")).unwrap();
    assert_eq!(awkward, b"awkward pool key\n\0");
    assert_eq!(key("POOL", "awkward-pool").secret(), [scramble(&awkward), scramble(&awkward)].concat());
    // Trimming the newline or the NULs would lose the real tokens.
    for trimmed in [&raw[..13], &raw[..12]] {
        let k = SigningKey::from_file_bytes("other", trimmed).unwrap();
        let jwt = Jwt::parse(&token("other")).unwrap();
        assert_eq!(jwt.verify(&k, &Validation::at(when(&jwt))).unwrap_err().kind(), ErrorKind::Crypto);
    }
    let p = pool();
    assert_eq!(p.secret().len(), 128);
    assert_eq!(p.secret()[..64], p.secret()[64..]);
    // The same file read as a named key is not doubled, and does not verify.
    let undoubled = key("x", "POOL");
    let jwt = Jwt::parse(&token("condor")).unwrap();
    assert_eq!(jwt.verify(&undoubled, &Validation::at(when(&jwt))).unwrap_err().kind(), ErrorKind::Crypto);
}

#[test]
fn refusals_are_clear() {
    let real = token("condor");
    let jwt = Jwt::parse(&real).unwrap();
    let at = Validation::at(when(&jwt));

    // One flipped byte in each part.
    let sig_start = real.rfind('.').unwrap() + 1;
    for i in [3, real.find('.').unwrap() + 5, sig_start + 3] {
        let mut bytes = real.clone().into_bytes();
        bytes[i] = if bytes[i] == b'A' { b'B' } else { b'A' };
        let flipped = String::from_utf8(bytes).unwrap();
        match Jwt::parse(&flipped) {
            Err(e) => assert_eq!(e.kind(), ErrorKind::Malformed, "byte {i}: {e}"),
            Ok(t) => {
                let e = t.verify(&pool(), &at).unwrap_err();
                assert!(matches!(e.kind(), ErrorKind::Crypto | ErrorKind::Authentication), "byte {i}: {e}");
            }
        }
    }
    // The last signature character: only the meaningful bits matter.
    let mut bytes = real.clone().into_bytes();
    let last = bytes.len() - 1;
    bytes[last] = if bytes[last] == b'A' { b'z' } else { b'A' };
    let e = Jwt::parse(std::str::from_utf8(&bytes).unwrap()).unwrap().verify(&pool(), &at).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Crypto);
    assert!(e.message().contains("signature does not match"), "{e}");

    // A wrong key.
    let e = jwt.verify(&key("POOL", "awkward-pool"), &at).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Crypto);
    // A wrong issuer.
    let e = jwt.verify(&pool(), &at.with_issuer("other.domain")).unwrap_err();
    assert!(e.message().contains("not by trust domain \"other.domain\""), "{e}");
    // Too old for SEC_TOKEN_MAX_AGE.
    let e = jwt.verify(&pool(), &at.with_max_age(Some(5))).unwrap_err();
    assert!(e.message().contains("issued 10 s ago, more than SEC_TOKEN_MAX_AGE 5 s"), "{e}");
    assert!(jwt.verify(&pool(), &at.with_max_age(Some(10))).is_ok());
    // Revoked by jti.
    let jti = jwt.claims().id.clone().unwrap();
    let revoked = move |c: &cedar::token::Claims| c.id.as_deref() == Some(jti.as_str());
    assert!(jwt.verify(&pool(), &at.with_revocation(&revoked)).unwrap_err().message().contains("revoked"));
    // The other token is signed by "other", not POOL.
    let other = Jwt::parse(&token("other")).unwrap();
    assert_eq!(other.verify(&pool(), &at).unwrap_err().kind(), ErrorKind::Crypto);
}

#[test]
fn key_store_finds_keys_by_kid() {
    let dir = data().join("keys");
    let store = KeyStore::new(Some(dir.join("POOL")), Some(dir.clone()), FileCheck::none());
    for name in ["condor", "other"] {
        let jwt = Jwt::parse(&token(name)).unwrap();
        jwt.verify_with(&store, &Validation::at(when(&jwt))).unwrap();
    }
    assert_eq!(store.key_names(), ["POOL", "awkward-pool", "other"]);
    let e = store.signing_key("missing").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io);
    assert!(store.signing_key("../keys/POOL").is_err());
    let nodir = KeyStore::new(None, None, FileCheck::none());
    assert_eq!(nodir.signing_key("POOL").unwrap_err().kind(), ErrorKind::Policy);
}

#[test]
fn file_checks_refuse_readable_key_files() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let tmp = std::env::temp_dir().join(format!("cedar-token-perm-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let f = tmp.join("POOL");
    std::fs::copy(data().join("keys/POOL"), &f).unwrap();
    let uid = std::fs::metadata(&f).unwrap().uid();
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o644)).unwrap();
    let e = read_key_file("POOL", &f, FileCheck::strict(uid)).unwrap_err();
    assert!(e.message().contains("must not be readable by others"), "{e}");
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o600)).unwrap();
    assert_eq!(read_key_file("POOL", &f, FileCheck::strict(uid)).unwrap().secret(), pool().secret());
    let e = read_key_file("POOL", &f, FileCheck::strict(uid + 1)).unwrap_err();
    assert!(e.message().contains("must be owned by uid"), "{e}");
    std::fs::remove_dir_all(&tmp).unwrap();
}

#[test]
fn discovery_picks_the_token_the_cpp_client_would() {
    let tmp = std::env::temp_dir().join(format!("cedar-token-disc-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    // Sorted order: a-other (kid other), b-comments (comments, then the POOL token), z.sh (excluded).
    std::fs::write(tmp.join("a-other"), token("other") + "\n").unwrap();
    std::fs::write(
        tmp.join("b-comments"),
        format!("# comment\n\n   \n  {}  \r\n{}\n", token("authz"), token("condor")),
    )
    .unwrap();
    std::fs::write(tmp.join("z.sh"), token("condor")).unwrap();
    let pool_only = ["POOL".to_string()];
    let f = TokenFilter::new(Some("anchor.local"), &pool_only);
    let found = find_token(&tmp, None, &f, FileCheck::none()).unwrap().unwrap();
    assert_eq!(found.signing_input(), Jwt::parse(&token("authz")).unwrap().signing_input());

    let any = TokenFilter::new(None, &[]);
    let first = find_token(&tmp, None, &any, FileCheck::none()).unwrap().unwrap();
    assert_eq!(first.key_id(), Some("other"));

    let elsewhere = TokenFilter::new(Some("elsewhere"), &[]);
    assert!(find_token(&tmp, None, &elsewhere, FileCheck::none()).unwrap().is_none());

    // The subsystem's auto-generated token comes first.
    std::fs::write(tmp.join("COLLECTOR_AUTO_GENERATED_TOKEN"), token("short")).unwrap();
    let auto = find_token(&tmp, Some("collector"), &any, FileCheck::none()).unwrap().unwrap();
    assert_eq!(auto.signing_input(), Jwt::parse(&token("short")).unwrap().signing_input());

    // A token without iss is skipped, even when any issuer would do.
    let key = pool();
    let no_iss = {
        use base64::Engine;
        let e = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        let input = format!("{}.{}", e.encode(r#"{"alg":"HS256","kid":"POOL"}"#), e.encode(r#"{"sub":"a@b"}"#));
        format!("{input}.{}", e.encode(key.sign(input.as_bytes())))
    };
    assert_eq!(tokens_in_text(no_iss.as_bytes(), &any).count(), 0);

    // Expired tokens are still offered, as the C++ client offers them.
    let text = token("short");
    assert_eq!(tokens_in_text(text.as_bytes(), &f).count(), 1);
    std::fs::remove_dir_all(&tmp).unwrap();
}

#[test]
fn token_list_output_names_the_fixture_tokens() {
    // condor_token_list decodes without a key; its view of the payloads
    // must be ours.
    let list = std::fs::read_to_string(data().join("token_list.txt")).unwrap();
    for name in ["condor", "authz", "short", "other", "awkward"] {
        let jwt = Jwt::parse(&token(name)).unwrap();
        let jti = jwt.claims().id.clone().unwrap();
        let line = list.lines().find(|l| l.contains(&jti)).unwrap_or_else(|| panic!("{name} not listed"));
        assert!(line.contains(&format!("File: {name}.jwt")), "{line}");
        assert!(line.contains(&format!("\"kid\":\"{}\"", jwt.key_id().unwrap())), "{line}");
    }
}

#[test]
fn a_created_key_file_is_what_the_collector_makes() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = std::env::temp_dir().join(format!("cedar-token-create-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    let store = KeyStore::new(Some(tmp.join("POOL")), Some(tmp.clone()), FileCheck::none());
    assert!(store.create_pool_key_if_missing().unwrap());
    let meta = std::fs::metadata(tmp.join("POOL")).unwrap();
    assert_eq!(meta.len(), 64);
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    let before = std::fs::read(tmp.join("POOL")).unwrap();
    assert!(!store.create_pool_key_if_missing().unwrap(), "an existing key is left alone");
    assert_eq!(std::fs::read(tmp.join("POOL")).unwrap(), before);
    // The key signs and verifies.
    let k = store.signing_key("POOL").unwrap();
    let t = MintClaims::new("anchor.local", "condor@anchor.local", 100, None, vec![]).mint(&k).unwrap();
    Jwt::parse(&t).unwrap().verify_with(&store, &Validation::at(100)).unwrap();
    std::fs::remove_dir_all(&tmp).unwrap();
}

#[test]
fn revocation_expressions_over_real_claims() {
    use cedar::token::revocation::RevocationExpr;
    let condor = Jwt::parse(&token("condor")).unwrap();
    let authz = Jwt::parse(&token("authz")).unwrap();
    let jti = condor.claims().id.clone().unwrap();
    let by_jti = RevocationExpr::parse(&format!("jti == \"{jti}\"")).unwrap();
    assert!(by_jti.is_revoked(condor.claims()));
    assert!(!by_jti.is_revoked(authz.claims()));
    // Claims are typed in the ad: iat is an integer, scope a string.
    let iat = condor.claims().issued_at.unwrap();
    assert!(RevocationExpr::parse(&format!("iat <= {iat}")).unwrap().is_revoked(condor.claims()));
    assert!(!RevocationExpr::parse(&format!("iat < {iat}")).unwrap().is_revoked(condor.claims()));
    let scoped = RevocationExpr::parse(r#"regexp("ADVERTISE_STARTD", scope)"#).unwrap();
    assert!(scoped.is_revoked(authz.claims()));
    // A missing claim makes the test undefined, which HTCondor counts as revoked;
    // write isUndefined(...) to say otherwise.
    assert!(scoped.is_revoked(condor.claims()));
    let careful = RevocationExpr::parse(r#"!isUndefined(scope) && regexp("ADVERTISE_STARTD", scope)"#).unwrap();
    assert!(!careful.is_revoked(condor.claims()));
    // Integers count as booleans; strings do not (revoked).
    assert!(!RevocationExpr::parse("0").unwrap().is_revoked(condor.claims()));
    assert!(RevocationExpr::parse("2").unwrap().is_revoked(condor.claims()));
    assert!(RevocationExpr::parse(r#""no""#).unwrap().is_revoked(condor.claims()));
    assert_eq!(RevocationExpr::parse("jti ==").unwrap_err().kind(), ErrorKind::Policy);
    // Through the verifier.
    let f = |c: &cedar::token::Claims| by_jti.is_revoked(c);
    let e = condor.verify(&pool(), &Validation::at(when(&condor)).with_revocation(&f)).unwrap_err();
    assert!(e.message().contains("revoked"), "{e}");
    authz.verify(&pool(), &Validation::at(when(&authz)).with_revocation(&f)).unwrap();
}
