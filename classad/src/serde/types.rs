//! Serde support for the crate's own types, so that they can be fields of
//! structs converted with [`to_ad`](super::to_ad) and
//! [`from_ad`](super::from_ad).
//!
//! Each is a newtype with a reserved name that the ClassAd serializer and
//! deserializer recognize; other formats see the newtype's content: an
//! [`AbsTime`] is its text (`"2020-01-01T00:00:00-00:00"`), a [`RelTime`]
//! its seconds, an [`Expr`] its new-syntax text.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};

use super::{ABSTIME, EXPR, RELTIME};
use crate::expr::Expr;
use crate::time::{AbsTime, RelTime};

impl Serialize for AbsTime {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_newtype_struct(ABSTIME, &self.to_string())
    }
}

impl Serialize for RelTime {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_newtype_struct(RELTIME, &self.0)
    }
}

impl Serialize for Expr {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_newtype_struct(EXPR, &self.to_string())
    }
}

/// Reads a newtype around a string or a number, or the bare content.
struct Newtype<F> {
    what: &'static str,
    make: F,
}

impl<'de, T, F: FnOnce(Content) -> Result<T, String>> Visitor<'de> for Newtype<F> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.what)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, deserializer: D) -> Result<T, D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<T, E> {
        (self.make)(Content::Text(text)).map_err(E::custom)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        (self.make)(Content::Number(v)).map_err(E::custom)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        self.visit_f64(v as f64)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        self.visit_f64(v as f64)
    }
}

/// What a newtype held.
enum Content<'t> {
    Text(&'t str),
    Number(f64),
}

impl<'de> Deserialize<'de> for AbsTime {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<AbsTime, D::Error> {
        let make = |content: Content<'_>| match content {
            Content::Text(text) => AbsTime::parse(text).ok_or_else(|| format!("`{text}` is not an absolute time")),
            Content::Number(secs) => Ok(AbsTime { secs: secs as i64, offset: 0 }),
        };
        deserializer.deserialize_newtype_struct(ABSTIME, Newtype { what: "an absolute time", make })
    }
}

impl<'de> Deserialize<'de> for RelTime {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<RelTime, D::Error> {
        let make = |content: Content<'_>| match content {
            Content::Text(text) => RelTime::parse(text).ok_or_else(|| format!("`{text}` is not a relative time")),
            Content::Number(secs) => Ok(RelTime(secs)),
        };
        deserializer.deserialize_newtype_struct(RELTIME, Newtype { what: "a relative time", make })
    }
}

impl<'de> Deserialize<'de> for Expr {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Expr, D::Error> {
        let make = |content: Content<'_>| match content {
            Content::Text(text) => crate::parse_expr(text).map_err(|e| e.to_string()),
            Content::Number(n) => Ok(Expr::literal(crate::expr::Literal::Real(n))),
        };
        deserializer.deserialize_newtype_struct(EXPR, Newtype { what: "an expression", make })
    }
}
