//! Ads as JSON: HTCondor's form (`condor_status -json`) written by the
//! classad crate, and read back from request bodies.

use classad::format::{self, Format};
use classad::ClassAd;

use super::ApiError;

/// The ads as a JSON array, in HTCondor's form.
pub(crate) fn ads_array(ads: &[ClassAd]) -> String {
    let mut out = String::from("[");
    for (i, ad) in ads.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&format::ad_to_string(ad, Format::Json));
    }
    out.push(']');
    out
}

/// The ads of a request body: one JSON object or an array of them.
pub(crate) fn read_ads(body: &[u8]) -> Result<Vec<ClassAd>, ApiError> {
    let text = std::str::from_utf8(body).map_err(|_| ApiError::bad_request("bad_ad", "the body is not UTF-8"))?;
    if text.trim().is_empty() {
        return Err(ApiError::bad_request("bad_ad", "the body holds no ad"));
    }
    let ads =
        format::parse_ads(text, Some(Format::Json)).map_err(|e| ApiError::bad_request("bad_ad", e.to_string()))?;
    if ads.is_empty() {
        return Err(ApiError::bad_request("bad_ad", "the body holds no ad"));
    }
    Ok(ads)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ads_round_trip_through_json() -> Result<(), Box<dyn std::error::Error>> {
        let ad: ClassAd = r#"[ Name = "a"; Cpus = 4; Big = Cpus > 2 ]"#.parse()?;
        let text = ads_array(std::slice::from_ref(&ad));
        let value: serde_json::Value = serde_json::from_str(&text)?;
        assert_eq!(value[0]["Cpus"], 4);
        assert_eq!(value[0]["Big"], "/Expr(Cpus > 2)/");
        assert_eq!(read_ads(text.as_bytes()).map_err(|e| e.message().to_owned())?, vec![ad]);
        assert!(read_ads(b"{ nope").is_err());
        assert!(read_ads(b"  ").is_err());
        Ok(())
    }
}
