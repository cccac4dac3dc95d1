//! Rust values to ads: a serde `Serializer` whose output is an expression.

use std::sync::Arc;

use serde::ser::{self, Serialize};

use super::{Error, ABSTIME, EXPR, RELTIME};
use crate::ad::ClassAd;
use crate::expr::{Expr, Literal, Node};
use crate::name::Name;
use crate::time::{AbsTime, RelTime};

/// Converts `value` (a struct, or a map with string keys) to an ad.
///
/// ```
/// use std::collections::BTreeMap;
/// let mut map = BTreeMap::new();
/// map.insert("Cpus", 8);
/// map.insert("Memory", 16384);
/// assert_eq!(classad::to_ad(&map)?.to_string(), "[ Cpus = 8; Memory = 16384 ]");
/// assert!(classad::to_ad(&42).is_err());
/// # Ok::<(), classad::serde::Error>(())
/// ```
pub fn to_ad<T: Serialize + ?Sized>(value: &T) -> Result<ClassAd, Error> {
    match value.serialize(ValueSerializer)? {
        Out::Expr(expr) => match expr.as_node() {
            Some(Node::Record(ad)) => Ok(ClassAd::clone(ad)),
            _ => Err(Error::new(format!("an ad is made from a struct or a map, not from `{expr}`"))),
        },
        Out::Absent => Err(Error::new("an ad is made from a struct or a map, not from `None`")),
    }
}

/// What a value serializes to: an expression, or nothing (`None`).
pub(crate) enum Out {
    Absent,
    Expr(Expr),
}

impl Out {
    /// The expression, with UNDEFINED for an absent value (inside lists).
    fn or_undefined(self) -> Expr {
        match self {
            Out::Absent => Expr::literal(Literal::Undefined),
            Out::Expr(expr) => expr,
        }
    }
}

fn literal(literal: Literal) -> Result<Out, Error> {
    Ok(Out::Expr(Expr::literal(literal)))
}

fn record(attributes: Vec<(Name, Expr)>) -> Expr {
    Expr::node(Node::Record(Arc::new(ClassAd::from_attributes(attributes))))
}

/// The serializer of any value.
pub(crate) struct ValueSerializer;

impl ser::Serializer for ValueSerializer {
    type Ok = Out;
    type Error = Error;
    type SerializeSeq = ListBuilder;
    type SerializeTuple = ListBuilder;
    type SerializeTupleStruct = ListBuilder;
    type SerializeTupleVariant = VariantBuilder<ListBuilder>;
    type SerializeMap = AdBuilder;
    type SerializeStruct = AdBuilder;
    type SerializeStructVariant = VariantBuilder<AdBuilder>;

    fn serialize_bool(self, v: bool) -> Result<Out, Error> {
        literal(Literal::Bool(v))
    }

    fn serialize_i8(self, v: i8) -> Result<Out, Error> {
        self.serialize_i64(v.into())
    }

    fn serialize_i16(self, v: i16) -> Result<Out, Error> {
        self.serialize_i64(v.into())
    }

    fn serialize_i32(self, v: i32) -> Result<Out, Error> {
        self.serialize_i64(v.into())
    }

    fn serialize_i64(self, v: i64) -> Result<Out, Error> {
        literal(Literal::Int(v))
    }

    fn serialize_i128(self, v: i128) -> Result<Out, Error> {
        let v = i64::try_from(v).map_err(|_| Error::new(format!("{v} does not fit in a 64-bit ClassAd integer")))?;
        self.serialize_i64(v)
    }

    fn serialize_u8(self, v: u8) -> Result<Out, Error> {
        self.serialize_i64(v.into())
    }

    fn serialize_u16(self, v: u16) -> Result<Out, Error> {
        self.serialize_i64(v.into())
    }

    fn serialize_u32(self, v: u32) -> Result<Out, Error> {
        self.serialize_i64(v.into())
    }

    fn serialize_u64(self, v: u64) -> Result<Out, Error> {
        self.serialize_i128(v.into())
    }

    fn serialize_u128(self, v: u128) -> Result<Out, Error> {
        let v = i64::try_from(v).map_err(|_| Error::new(format!("{v} does not fit in a 64-bit ClassAd integer")))?;
        self.serialize_i64(v)
    }

    fn serialize_f32(self, v: f32) -> Result<Out, Error> {
        self.serialize_f64(v.into())
    }

    fn serialize_f64(self, v: f64) -> Result<Out, Error> {
        literal(Literal::Real(v))
    }

    fn serialize_char(self, v: char) -> Result<Out, Error> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }

    fn serialize_str(self, v: &str) -> Result<Out, Error> {
        literal(Literal::Str(v.into()))
    }

    /// Bytes are a list of integers.
    fn serialize_bytes(self, v: &[u8]) -> Result<Out, Error> {
        Ok(Out::Expr(Expr::list(v.iter().map(|&b| Expr::literal(Literal::Int(b.into()))).collect())))
    }

    fn serialize_none(self) -> Result<Out, Error> {
        Ok(Out::Absent)
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Out, Error> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<Out, Error> {
        literal(Literal::Undefined)
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<Out, Error> {
        self.serialize_unit()
    }

    fn serialize_unit_variant(self, _name: &'static str, _index: u32, variant: &'static str) -> Result<Out, Error> {
        self.serialize_str(variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, name: &'static str, value: &T) -> Result<Out, Error> {
        let inner = value.serialize(ValueSerializer)?;
        let text = |out: &Out| match out {
            Out::Expr(expr) => match expr.as_literal() {
                Some(Literal::Str(text)) => Some(text.to_string()),
                _ => None,
            },
            Out::Absent => None,
        };
        match name {
            ABSTIME => {
                let time = text(&inner).and_then(|t| AbsTime::parse(&t));
                time.map_or_else(|| Err(Error::new("malformed absolute time")), |t| literal(Literal::AbsTime(t)))
            }
            RELTIME => match &inner {
                Out::Expr(expr) => match expr.as_literal() {
                    Some(Literal::Real(secs)) => literal(Literal::RelTime(RelTime(*secs))),
                    _ => Err(Error::new("malformed relative time")),
                },
                Out::Absent => Err(Error::new("malformed relative time")),
            },
            EXPR => {
                let source = text(&inner).ok_or_else(|| Error::new("malformed expression"))?;
                crate::parse_expr(&source).map(Out::Expr).map_err(|e| Error::new(e.to_string()))
            }
            _ => Ok(inner),
        }
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Out, Error> {
        Ok(variant_ad(variant, value.serialize(ValueSerializer)?.or_undefined()))
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<ListBuilder, Error> {
        Ok(ListBuilder { items: Vec::with_capacity(len.unwrap_or(0)) })
    }

    fn serialize_tuple(self, len: usize) -> Result<ListBuilder, Error> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<ListBuilder, Error> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<VariantBuilder<ListBuilder>, Error> {
        Ok(VariantBuilder { variant, inner: self.serialize_seq(Some(len))? })
    }

    fn serialize_map(self, len: Option<usize>) -> Result<AdBuilder, Error> {
        Ok(AdBuilder { name: "", attributes: Vec::with_capacity(len.unwrap_or(0)), key: None })
    }

    fn serialize_struct(self, name: &'static str, len: usize) -> Result<AdBuilder, Error> {
        Ok(AdBuilder { name, attributes: Vec::with_capacity(len), key: None })
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<VariantBuilder<AdBuilder>, Error> {
        Ok(VariantBuilder { variant, inner: self.serialize_struct("", len)? })
    }
}

/// Gathers the items of a list.
pub(crate) struct ListBuilder {
    items: Vec<Expr>,
}

impl ListBuilder {
    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.items.push(value.serialize(ValueSerializer)?.or_undefined());
        Ok(())
    }

    fn finish(self) -> Expr {
        Expr::list(self.items)
    }
}

impl ser::SerializeSeq for ListBuilder {
    type Ok = Out;
    type Error = Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }

    fn end(self) -> Result<Out, Error> {
        Ok(Out::Expr(self.finish()))
    }
}

impl ser::SerializeTuple for ListBuilder {
    type Ok = Out;
    type Error = Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }

    fn end(self) -> Result<Out, Error> {
        Ok(Out::Expr(self.finish()))
    }
}

impl ser::SerializeTupleStruct for ListBuilder {
    type Ok = Out;
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }

    fn end(self) -> Result<Out, Error> {
        Ok(Out::Expr(self.finish()))
    }
}

/// Gathers the attributes of an ad. The ad of a struct named `SystemTime`
/// or `Duration` with exactly the fields serde gives those standard types
/// becomes a time instead.
pub(crate) struct AdBuilder {
    name: &'static str,
    attributes: Vec<(Name, Expr)>,
    /// A map key waiting for its value.
    key: Option<String>,
}

impl AdBuilder {
    fn attribute<T: Serialize + ?Sized>(&mut self, name: &str, value: &T) -> Result<(), Error> {
        if name.is_empty() {
            return Err(Error::new("an attribute name may not be empty"));
        }
        match value.serialize(ValueSerializer).map_err(|e| e.in_attribute(name))? {
            Out::Absent => {}
            Out::Expr(expr) => {
                // Map keys are data: intern them within the limits.
                let name = Name::try_new(name).map_err(|e| Error::new(e.to_string()))?;
                self.attributes.push((name, expr));
            }
        }
        Ok(())
    }

    fn finish(self) -> Out {
        if let Some(time) = standard_time(self.name, &self.attributes) {
            return Out::Expr(Expr::literal(time));
        }
        Out::Expr(record(self.attributes))
    }
}

/// `SystemTime` and `Duration`, as serde writes them (two integer fields).
fn standard_time(name: &str, attributes: &[(Name, Expr)]) -> Option<Literal> {
    let (seconds, nanos) = match name {
        "SystemTime" => ("secs_since_epoch", "nanos_since_epoch"),
        "Duration" => ("secs", "nanos"),
        _ => return None,
    };
    let [(n1, e1), (n2, e2)] = attributes else {
        return None;
    };
    let (Some(Literal::Int(secs)), Some(Literal::Int(nanos_value))) = (e1.as_literal(), e2.as_literal()) else {
        return None;
    };
    if n1.as_str() != seconds || n2.as_str() != nanos {
        return None;
    }
    Some(if name == "SystemTime" {
        Literal::AbsTime(AbsTime { secs: *secs, offset: 0 })
    } else {
        Literal::RelTime(RelTime(*secs as f64 + *nanos_value as f64 / 1e9))
    })
}

impl ser::SerializeStruct for AdBuilder {
    type Ok = Out;
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        self.attribute(key, value)
    }

    fn end(self) -> Result<Out, Error> {
        Ok(self.finish())
    }
}

impl ser::SerializeMap for AdBuilder {
    type Ok = Out;
    type Error = Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        let key = match key.serialize(ValueSerializer)? {
            Out::Expr(expr) => match expr.as_literal() {
                Some(Literal::Str(text)) => text.to_string(),
                Some(Literal::Int(i)) => i.to_string(),
                _ => return Err(Error::new("attribute names must be strings")),
            },
            Out::Absent => return Err(Error::new("attribute names must be strings")),
        };
        self.key = Some(key);
        Ok(())
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let key = self.key.take().ok_or_else(|| Error::new("a map value without a key"))?;
        self.attribute(&key, value)
    }

    fn end(self) -> Result<Out, Error> {
        Ok(self.finish())
    }
}

/// An enum variant with content: an ad of one attribute named after it.
pub(crate) struct VariantBuilder<B> {
    variant: &'static str,
    inner: B,
}

fn variant_ad(variant: &str, content: Expr) -> Out {
    Out::Expr(record(vec![(Name::new(variant), content)]))
}

impl ser::SerializeTupleVariant for VariantBuilder<ListBuilder> {
    type Ok = Out;
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.inner.push(value)
    }

    fn end(self) -> Result<Out, Error> {
        Ok(variant_ad(self.variant, self.inner.finish()))
    }
}

impl ser::SerializeStructVariant for VariantBuilder<AdBuilder> {
    type Ok = Out;
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        self.inner.attribute(key, value)
    }

    fn end(self) -> Result<Out, Error> {
        Ok(variant_ad(self.variant, record(self.inner.attributes)))
    }
}
