//! The string and value pools of a segment footer, filled in array-format's
//! order so that footers come out byte for byte as its writer makes them:
//! per array (in definition order) its keys sorted, each key interned, then
//! its value; after every array, the values' own strings.

use std::collections::HashMap;

use indexmap::IndexMap;

use crate::format::segment::DiskValue;
use crate::format::value::Attr;

#[derive(Default)]
pub(crate) struct Pools {
    strings: IndexMap<String, ()>,
    /// Keyed by the value's bit-exact identity, so `NaN` equals itself and
    /// `0.0` differs from `-0.0`, as array-format dedups them.
    values: HashMap<Vec<u8>, u32>,
    ordered: Vec<Attr>,
}

impl Pools {
    pub(crate) fn string(&mut self, s: &str) -> u32 {
        if let Some(i) = self.strings.get_index_of(s) {
            return i as u32;
        }
        self.strings.insert_full(s.to_string(), ()).0 as u32
    }

    pub(crate) fn value(&mut self, value: &Attr) -> u32 {
        let next = self.ordered.len() as u32;
        let index = *self.values.entry(identity(value)).or_insert(next);
        if index == next {
            self.ordered.push(value.clone());
        }
        index
    }

    /// `(strings, values)`, encoding the values last so their strings follow the keys.
    pub(crate) fn finish(mut self) -> (Vec<String>, Vec<DiskValue>) {
        let ordered = std::mem::take(&mut self.ordered);
        let values = ordered.iter().map(|v| self.encode(v)).collect();
        (self.strings.into_keys().collect(), values)
    }

    fn encode(&mut self, value: &Attr) -> DiskValue {
        match value {
            Attr::Bool(v) => DiskValue::Bool(*v),
            Attr::Int8(v) => DiskValue::Int8(*v),
            Attr::Int16(v) => DiskValue::Int16(*v),
            Attr::Int32(v) => DiskValue::Int32(*v),
            Attr::Int64(v) => DiskValue::Int64(*v),
            Attr::UInt8(v) => DiskValue::UInt8(*v),
            Attr::UInt16(v) => DiskValue::UInt16(*v),
            Attr::UInt32(v) => DiskValue::UInt32(*v),
            Attr::UInt64(v) => DiskValue::UInt64(*v),
            Attr::Float32(v) => DiskValue::Float32(*v),
            Attr::Float64(v) => DiskValue::Float64(*v),
            Attr::String(v) => DiskValue::String(self.string(v)),
            Attr::Binary(v) => DiskValue::Binary(v.clone().into()),
            Attr::BoolList(v) => DiskValue::BoolList(v.clone().into()),
            Attr::Int8List(v) => DiskValue::Int8List(v.clone().into()),
            Attr::Int16List(v) => DiskValue::Int16List(v.clone().into()),
            Attr::Int32List(v) => DiskValue::Int32List(v.clone().into()),
            Attr::Int64List(v) => DiskValue::Int64List(v.clone().into()),
            Attr::UInt8List(v) => DiskValue::UInt8List(v.clone().into()),
            Attr::UInt16List(v) => DiskValue::UInt16List(v.clone().into()),
            Attr::UInt32List(v) => DiskValue::UInt32List(v.clone().into()),
            Attr::UInt64List(v) => DiskValue::UInt64List(v.clone().into()),
            Attr::Float32List(v) => DiskValue::Float32List(v.clone().into()),
            Attr::Float64List(v) => DiskValue::Float64List(v.clone().into()),
            Attr::StringList(v) => {
                DiskValue::StringList(v.iter().map(|s| self.string(s)).collect())
            }
            Attr::BinaryList(v) => {
                DiskValue::BinaryList(v.iter().map(|b| b.clone().into_boxed_slice()).collect())
            }
        }
    }
}

/// A byte string that two values share exactly when array-format deems them
/// equal: same variant, same bits.
fn identity(value: &Attr) -> Vec<u8> {
    fn bytes<'a>(out: &mut Vec<u8>, items: impl Iterator<Item = &'a [u8]>) {
        for item in items {
            out.extend_from_slice(&(item.len() as u64).to_le_bytes());
            out.extend_from_slice(item);
        }
    }
    macro_rules! le {
        ($out:expr, $values:expr) => {
            for v in $values {
                $out.extend_from_slice(&v.to_le_bytes());
            }
        };
    }
    let mut out = value.type_name().as_bytes().to_vec();
    out.push(0);
    match value {
        Attr::Bool(v) => out.push(*v as u8),
        Attr::Int8(v) => le!(out, [*v]),
        Attr::Int16(v) => le!(out, [*v]),
        Attr::Int32(v) => le!(out, [*v]),
        Attr::Int64(v) => le!(out, [*v]),
        Attr::UInt8(v) => out.push(*v),
        Attr::UInt16(v) => le!(out, [*v]),
        Attr::UInt32(v) => le!(out, [*v]),
        Attr::UInt64(v) => le!(out, [*v]),
        Attr::Float32(v) => le!(out, [v.to_bits()]),
        Attr::Float64(v) => le!(out, [v.to_bits()]),
        Attr::String(v) => out.extend_from_slice(v.as_bytes()),
        Attr::Binary(v) => out.extend_from_slice(v),
        Attr::BoolList(v) => out.extend(v.iter().map(|&b| b as u8)),
        Attr::Int8List(v) => le!(out, v),
        Attr::Int16List(v) => le!(out, v),
        Attr::Int32List(v) => le!(out, v),
        Attr::Int64List(v) => le!(out, v),
        Attr::UInt8List(v) => out.extend_from_slice(v),
        Attr::UInt16List(v) => le!(out, v),
        Attr::UInt32List(v) => le!(out, v),
        Attr::UInt64List(v) => le!(out, v),
        Attr::Float32List(v) => le!(out, v.iter().map(|x| x.to_bits())),
        Attr::Float64List(v) => le!(out, v.iter().map(|x| x.to_bits())),
        Attr::StringList(v) => bytes(&mut out, v.iter().map(|s| s.as_bytes())),
        Attr::BinaryList(v) => bytes(&mut out, v.iter().map(Vec::as_slice)),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_dedup_by_bits_and_their_strings_follow_the_keys() {
        let mut pools = Pools::default();
        assert_eq!(pools.string("units"), 0);
        assert_eq!(pools.value(&Attr::Float64(f64::NAN)), 0);
        assert_eq!(pools.value(&Attr::Float64(f64::NAN)), 0);
        assert_eq!(pools.value(&Attr::Float64(-0.0)), 1);
        assert_eq!(pools.value(&Attr::Float64(0.0)), 2);
        assert_eq!(pools.value(&Attr::String("m".into())), 3);
        assert_eq!(
            pools.value(&Attr::StringList(vec!["units".into(), "k".into()])),
            4
        );
        // Different variants with equal payloads stay apart.
        assert_eq!(pools.value(&Attr::Int64(0)), 5);
        assert_eq!(pools.value(&Attr::UInt64(0)), 6);
        let (strings, values) = pools.finish();
        assert_eq!(strings, vec!["units", "m", "k"]);
        assert_eq!(values[3], DiskValue::String(1));
        assert_eq!(values[4], DiskValue::StringList(vec![0, 2].into()));
    }
}
