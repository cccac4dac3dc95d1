//! Rust values to and from ClassAds with serde: [`to_ad`] and [`from_ad`].
//!
//! A struct (or a map with string keys) is an ad; its fields are
//! attributes, under their serde names (`#[serde(rename = "...")]` works
//! as usual). Numbers, booleans and strings are literals; `Vec`s, slices
//! and tuples are lists; nested structs and maps are nested ads; `None` is
//! an absent attribute (UNDEFINED inside a list); unit enum variants are
//! strings, other variants a one-attribute ad named after the variant.
//! [`SystemTime`](std::time::SystemTime) and [`AbsTime`](crate::AbsTime) are
//! absolute times, [`Duration`](std::time::Duration) and
//! [`RelTime`](crate::RelTime) relative times, and a field of type
//! [`Expr`](crate::Expr) holds any expression as it is.
//!
//! Reading an ad back evaluates each attribute (in the ad's own scope,
//! with [`EvalOptions`](crate::EvalOptions) you may choose) and converts the value: an
//! expression such as `Memory * 2` reads as a number. Attribute names
//! match field names without regard to case, as ClassAd names do; a
//! missing attribute is `None` for an `Option` field and an error
//! otherwise. An integer reads as a [`SystemTime`](std::time::SystemTime)
//! (seconds since the epoch, as HTCondor stores times) or a
//! [`Duration`](std::time::Duration) (seconds).
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use std::time::{Duration, SystemTime};
//!
//! #[derive(Debug, PartialEq, Serialize, Deserialize)]
//! struct Slot {
//!     #[serde(rename = "Name")]
//!     name: String,
//!     #[serde(rename = "Cpus")]
//!     cpus: u32,
//!     #[serde(rename = "GPUs")]
//!     gpus: Option<u32>,
//!     #[serde(rename = "Tags")]
//!     tags: Vec<String>,
//!     #[serde(rename = "LastHeard")]
//!     last_heard: SystemTime,
//! }
//!
//! let slot = Slot {
//!     name: "slot1@wn001".into(),
//!     cpus: 8,
//!     gpus: None,
//!     tags: vec!["fast".into()],
//!     last_heard: SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000),
//! };
//! let ad = classad::to_ad(&slot)?;
//! assert_eq!(
//!     ad.to_string(),
//!     r#"[ Name = "slot1@wn001"; Cpus = 8; Tags = { "fast" }; LastHeard = absTime("2023-11-14T22:13:20-00:00") ]"#
//! );
//! assert_eq!(classad::from_ad::<Slot>(&ad)?, slot);
//!
//! // Expressions are evaluated; names match without regard to case.
//! let ad: classad::ClassAd = r#"[ name = "slot2"; CPUS = 2 * 4; Tags = {}; LastHeard = 1700000000 ]"#.parse()?;
//! assert_eq!(classad::from_ad::<Slot>(&ad)?.cpus, 8);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod de;
mod ser;
mod types;

pub use de::{from_ad, from_ad_with};
pub use ser::to_ad;

/// Why a value could not become an ad, or an ad a value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Error(String);

impl Error {
    fn new(message: impl Into<String>) -> Error {
        Error(message.into())
    }

    /// The error with the attribute it concerns in front.
    fn in_attribute(self, name: &str) -> Error {
        Error(format!("attribute `{name}`: {}", self.0))
    }
}

impl ::serde::ser::Error for Error {
    fn custom<T: std::fmt::Display>(message: T) -> Error {
        Error(message.to_string())
    }
}

impl ::serde::de::Error for Error {
    fn custom<T: std::fmt::Display>(message: T) -> Error {
        Error(message.to_string())
    }
}

/// The newtype names by which [`AbsTime`](crate::AbsTime),
/// [`RelTime`](crate::RelTime) and [`Expr`](crate::Expr) tell the ClassAd
/// serializer and deserializer what they are; any other serializer sees a
/// newtype around a string (or, for relative times, a number of seconds).
pub(crate) const ABSTIME: &str = "$classad::AbsTime";
pub(crate) const RELTIME: &str = "$classad::RelTime";
pub(crate) const EXPR: &str = "$classad::Expr";
