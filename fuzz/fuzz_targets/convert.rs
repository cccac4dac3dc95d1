//! Format conversions: ads read from arbitrary input in any format, written
//! in each format and read back, give as many ads (the old format has no
//! text for an ad without attributes: those vanish there), and writing is a
//! fixed point from the second round on.
#![no_main]

use classad::format::{self, Format, Reader};
use classad::ClassAd;
use classad_fuzz::old_syntax_can_write_ad;
use libfuzzer_sys::fuzz_target;

const FORMATS: [Format; 4] = [Format::New, Format::Old, Format::Json, Format::Xml];

fuzz_target!(|data: &[u8]| {
    let ads: Vec<ClassAd> = Reader::new(data, None).skip_bad_ads(true).take(100).filter_map(Result::ok).collect();
    if ads.is_empty() {
        return;
    }
    for to in FORMATS {
        // Old syntax cannot write some strings (see `old_syntax_can_write`).
        if to == Format::Old && !ads.iter().all(old_syntax_can_write_ad) {
            continue;
        }
        let text = format::to_string(&ads, to);
        let back = match format::parse_ads(&text, Some(to)) {
            Ok(back) => back,
            Err(e) => panic!("{to}: what we wrote does not read back: {e}\n{text}"),
        };
        let expected = if to == Format::Old { ads.iter().filter(|ad| !ad.is_empty()).count() } else { ads.len() };
        assert_eq!(back.len(), expected, "{to}: {text}");
        let second = format::to_string(&back, to);
        let third = format::to_string(&format::parse_ads(&second, Some(to)).unwrap_or_default(), to);
        assert_eq!(second, third, "{to}: not a fixed point");
    }
});
