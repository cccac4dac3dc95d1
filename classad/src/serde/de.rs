//! Ads to Rust values: a serde `Deserializer` over an ad, evaluating each
//! attribute as it is read.

use std::sync::Arc;

use serde::de::value::{MapDeserializer, StrDeserializer};
use serde::de::{self, DeserializeOwned, DeserializeSeed, IntoDeserializer, Visitor};
use serde::forward_to_deserialize_any;

use super::{Error, ABSTIME, EXPR, RELTIME};
use crate::ad::{ClassAd, Iter};
use crate::eval::{EvalContext, EvalOptions};
use crate::expr::Expr;
use crate::name::Name;
use crate::time::AbsTime;
use crate::value::Value;

/// Converts an ad to a value of `T`, evaluating attributes with default
/// options (new semantics).
///
/// ```
/// #[derive(serde::Deserialize)]
/// struct Job {
///     #[serde(rename = "RequestMemory")]
///     memory: u64,
///     #[serde(rename = "Owner")]
///     owner: Option<String>,
/// }
/// let ad: classad::ClassAd = "[ RequestMemory = 2 * 1024 ]".parse()?;
/// let job: Job = classad::from_ad(&ad)?;
/// assert_eq!((job.memory, job.owner), (2048, None));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn from_ad<T: DeserializeOwned>(ad: &ClassAd) -> Result<T, Error> {
    from_ad_with(ad, &EvalOptions::default())
}

/// [`from_ad`], evaluating attributes with `options`.
pub fn from_ad_with<T: DeserializeOwned>(ad: &ClassAd, options: &EvalOptions) -> Result<T, Error> {
    T::deserialize(ValueDeserializer { item: Item::Ad(ad), scope: ad, options })
}

/// What is being converted: an expression (evaluated when needed), a
/// value, or a whole ad.
enum Item<'a> {
    Expr(&'a Expr),
    Value(Value),
    Ad(&'a ClassAd),
}

/// The deserializer of one item, evaluated in `scope`.
struct ValueDeserializer<'a> {
    item: Item<'a>,
    scope: &'a ClassAd,
    options: &'a EvalOptions,
}

impl<'a> ValueDeserializer<'a> {
    fn value(&self) -> Value {
        match &self.item {
            Item::Expr(expr) => EvalContext::new(self.options).my(self.scope).eval(expr),
            Item::Value(value) => value.clone(),
            Item::Ad(ad) => Value::ClassAd(Arc::new(ClassAd::clone(ad))),
        }
    }

    /// The unevaluated expression's text.
    fn source(&self) -> String {
        match &self.item {
            Item::Expr(expr) => expr.to_string(),
            Item::Value(value) => value.to_expr().to_string(),
            Item::Ad(ad) => ad.to_string(),
        }
    }

    fn visit_ad<'de, V: Visitor<'de>>(
        ad: &ClassAd,
        options: &EvalOptions,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_map(AdAccess { iter: ad.iter(), scope: ad, options, fields, pending: None })
    }
}

/// A number of seconds, from an integer, a real or a relative time.
fn seconds(value: &Value) -> Option<f64> {
    match value {
        Value::Int(i) => Some(*i as f64),
        Value::Real(r) => Some(*r),
        Value::RelTime(t) => Some(t.0),
        _ => None,
    }
}

impl<'de> de::Deserializer<'de> for ValueDeserializer<'_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if let Item::Ad(ad) = self.item {
            return Self::visit_ad(ad, self.options, &[], visitor);
        }
        match self.value() {
            Value::Undefined => Err(Error::new("the value is UNDEFINED")),
            Value::Error => Err(Error::new("the value is ERROR")),
            Value::Bool(b) => visitor.visit_bool(b),
            Value::Int(i) => visitor.visit_i64(i),
            Value::Real(r) => visitor.visit_f64(r),
            Value::Str(s) => visitor.visit_string(s.into()),
            Value::AbsTime(t) => visitor.visit_string(t.to_string()),
            Value::RelTime(t) => visitor.visit_f64(t.0),
            Value::List(items) => {
                visitor.visit_seq(ListAccess { items: &items, at: 0, scope: self.scope, options: self.options })
            }
            Value::ClassAd(ad) => Self::visit_ad(&ad, self.options, &[], visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match &self.item {
            Item::Ad(_) => visitor.visit_some(self),
            _ => match self.value() {
                Value::Undefined => visitor.visit_none(),
                value => visitor.visit_some(ValueDeserializer { item: Item::Value(value), ..self }),
            },
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        if let Item::Ad(ad) = self.item {
            return Self::visit_ad(ad, self.options, fields, visitor);
        }
        let value = self.value();
        match (name, &value) {
            ("SystemTime", Value::AbsTime(AbsTime { secs, .. }) | Value::Int(secs)) => {
                let parts = [("secs_since_epoch", *secs), ("nanos_since_epoch", 0)];
                visitor.visit_map(MapDeserializer::new(parts.into_iter()))
            }
            ("Duration", v) if seconds(v).is_some() => {
                let secs = seconds(v).unwrap_or_default();
                if !(secs >= 0.0 && secs < u64::MAX as f64) {
                    return Err(Error::new(format!("{secs} seconds is not a duration")));
                }
                let whole = secs.trunc();
                let parts = [("secs", whole as u64), ("nanos", ((secs - whole) * 1e9).round() as u64)];
                visitor.visit_map(MapDeserializer::new(parts.into_iter()))
            }
            (_, Value::ClassAd(ad)) => Self::visit_ad(ad, self.options, fields, visitor),
            _ => ValueDeserializer { item: Item::Value(value), ..self }.deserialize_any(visitor),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, name: &'static str, visitor: V) -> Result<V::Value, Error> {
        match name {
            EXPR => visitor.visit_newtype_struct(self.source().into_deserializer()),
            ABSTIME => match self.value() {
                Value::AbsTime(t) => visitor.visit_newtype_struct(t.to_string().into_deserializer()),
                Value::Int(secs) => {
                    visitor.visit_newtype_struct(AbsTime { secs, offset: 0 }.to_string().into_deserializer())
                }
                other => Err(Error::new(format!("expected an absolute time, found {}", other.type_name()))),
            },
            RELTIME => match seconds(&self.value()) {
                Some(secs) => visitor.visit_newtype_struct(secs.into_deserializer()),
                None => Err(Error::new("expected a relative time or a number of seconds")),
            },
            _ => visitor.visit_newtype_struct(self),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.value() {
            Value::Str(variant) => visitor.visit_enum(String::from(variant).into_deserializer()),
            Value::ClassAd(ad) if ad.len() == 1 => {
                let Some((name, expr)) = ad.iter().next() else {
                    return Err(Error::new("expected an enum variant"));
                };
                visitor.visit_enum(VariantAccess { name, expr, scope: &ad, options: self.options })
            }
            other => Err(Error::new(format!("expected an enum variant, found {}", other.type_name()))),
        }
    }

    /// `()` is UNDEFINED.
    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value() {
            Value::Undefined => visitor.visit_unit(),
            value => ValueDeserializer { item: Item::Value(value), ..self }.deserialize_any(visitor),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_unit(visitor)
    }

    /// Attributes a struct does not have are skipped without evaluating.
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf seq tuple tuple_struct map identifier
    }
}

/// The attributes of an ad, as a map. Keys are given as the struct's field
/// names when they match without regard to case.
struct AdAccess<'a> {
    iter: Iter<'a>,
    scope: &'a ClassAd,
    options: &'a EvalOptions,
    fields: &'static [&'static str],
    pending: Option<(Name, &'a Expr)>,
}

impl<'de> de::MapAccess<'de> for AdAccess<'_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        let Some((name, expr)) = self.iter.next() else {
            return Ok(None);
        };
        self.pending = Some((name, expr));
        let key = self.fields.iter().copied().find(|field| name.is(field)).unwrap_or(name.as_str());
        seed.deserialize(StrDeserializer::<Error>::new(key)).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let (name, expr) = self.pending.take().ok_or_else(|| Error::new("a value without a key"))?;
        seed.deserialize(ValueDeserializer { item: Item::Expr(expr), scope: self.scope, options: self.options })
            .map_err(|e| e.in_attribute(name.as_str()))
    }
}

/// The elements of a list, each evaluated as it is read.
struct ListAccess<'a> {
    items: &'a [Expr],
    at: usize,
    scope: &'a ClassAd,
    options: &'a EvalOptions,
}

impl<'de> de::SeqAccess<'de> for ListAccess<'_> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Error> {
        let Some(item) = self.items.get(self.at) else {
            return Ok(None);
        };
        self.at += 1;
        let element = ValueDeserializer { item: Item::Expr(item), scope: self.scope, options: self.options };
        seed.deserialize(element).map(Some).map_err(|e| Error::new(format!("list element {}: {e}", self.at - 1)))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len() - self.at)
    }
}

/// An enum variant with content: the one attribute of an ad.
struct VariantAccess<'a> {
    name: Name,
    expr: &'a Expr,
    scope: &'a ClassAd,
    options: &'a EvalOptions,
}

impl<'de, 'a> de::EnumAccess<'de> for VariantAccess<'a> {
    type Error = Error;
    type Variant = ValueDeserializer<'a>;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self::Variant), Error> {
        let variant = seed.deserialize(StrDeserializer::<Error>::new(self.name.as_str()))?;
        Ok((variant, ValueDeserializer { item: Item::Expr(self.expr), scope: self.scope, options: self.options }))
    }
}

impl<'de> de::VariantAccess<'de> for ValueDeserializer<'_> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        Ok(())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        seed.deserialize(self)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_seq(self, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(self, fields: &'static [&'static str], visitor: V) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_struct(self, "", fields, visitor)
    }
}
