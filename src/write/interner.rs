//! The collection footer's pools: strings, dtypes and schemas, each interned
//! once in first-seen order (the order atlas-rust's writer interns them), so
//! that the same datasets in the same order give the same footer however
//! they reach it (one writer, or parts joined by [`super::merge`]).

use std::collections::HashMap;

use indexmap::IndexMap;

use crate::format::dtype::DType;
use crate::format::footer::{CollectionFooter, InternedSchema};
use crate::format::value::Attr;

#[derive(Default)]
pub(crate) struct Interner {
    pub(crate) strings: Vec<String>,
    pub(crate) string_index: HashMap<String, u32>,
    pub(crate) dtypes: Vec<DType>,
    pub(crate) schemas: Vec<InternedSchema>,
    schema_index: HashMap<InternedSchema, u32>,
}

impl Interner {
    pub(crate) fn string(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.string_index.get(s) {
            return i;
        }
        let i = self.strings.len() as u32;
        self.strings.push(s.to_string());
        self.string_index.insert(s.to_string(), i);
        i
    }

    pub(crate) fn dtype(&mut self, dtype: &DType) -> u32 {
        match self.dtypes.iter().position(|d| d == dtype) {
            Some(i) => i as u32,
            None => {
                self.dtypes.push(dtype.clone());
                self.dtypes.len() as u32 - 1
            }
        }
    }

    /// The schema of a dataset being written: its arrays, attributes and
    /// array attributes (by array position).
    pub(crate) fn schema(
        &mut self,
        arrays: &IndexMap<String, DType>,
        attrs: &[(String, Attr)],
        array_attrs: &[(u32, Vec<(String, Attr)>)],
    ) -> u32 {
        let schema = InternedSchema {
            arrays: arrays
                .iter()
                .map(|(name, dtype)| (self.string(name), self.dtype(dtype)))
                .collect(),
            attrs: attrs
                .iter()
                .map(|(key, value)| (self.string(key), self.dtype(&value.dtype())))
                .collect(),
            array_attrs: array_attrs
                .iter()
                .map(|(position, keyed)| {
                    let keys = keyed
                        .iter()
                        .map(|(k, v)| (self.string(k), self.dtype(&v.dtype())))
                        .collect();
                    (*position, keys)
                })
                .collect(),
        };
        self.insert(schema)
    }

    /// `schema` of another collection's footer, interned here: the same
    /// names and types in the same order as [`schema`](Self::schema) takes them.
    pub(crate) fn schema_of(&mut self, footer: &CollectionFooter, schema: &InternedSchema) -> u32 {
        let mut pair = |&(name, dtype): &(u32, u32)| {
            (
                self.string(footer.string(name)),
                self.dtype(footer.dtype(dtype)),
            )
        };
        let schema = InternedSchema {
            arrays: schema.arrays.iter().map(&mut pair).collect(),
            attrs: schema.attrs.iter().map(&mut pair).collect(),
            array_attrs: schema
                .array_attrs
                .iter()
                .map(|(position, keys)| (*position, keys.iter().map(&mut pair).collect()))
                .collect(),
        };
        self.insert(schema)
    }

    fn insert(&mut self, schema: InternedSchema) -> u32 {
        if let Some(&i) = self.schema_index.get(&schema) {
            return i;
        }
        let i = self.schemas.len() as u32;
        self.schema_index.insert(schema.clone(), i);
        self.schemas.push(schema);
        i
    }
}
