//! Record assembly: rows rebuilt from the leaves' definition and
//! repetition levels (Dremel's scheme, as parquet stores nesting).
//!
//! Each leaf has a cursor. Reading a node at a position asks its first
//! leaf's definition level whether the node is there; a node that is null
//! (or a list that is empty) takes exactly one entry from every leaf below
//! it; a list goes on while its first leaf's next repetition level is the
//! list's own. Whatever the levels say, every step takes at least one entry,
//! and the end checks that every leaf was used up exactly.

use crate::atria::error::Result;
use crate::atria::Value;

use super::encoding::corrupt;
use super::meta::Repetition;
use super::page::LeafData;
use super::schema::{GroupKind, Leaf, Node};

struct Cursor {
    entry: usize,
    value: usize,
}

pub(crate) struct Assembler<'a> {
    leaves: &'a [Leaf],
    data: Vec<LeafData>,
    cursors: Vec<Cursor>,
}

impl<'a> Assembler<'a> {
    /// `data` holds every leaf's data, in leaf order (unread leaves empty).
    pub(crate) fn new(leaves: &'a [Leaf], data: Vec<LeafData>) -> Self {
        let cursors = data.iter().map(|_| Cursor { entry: 0, value: 0 }).collect();
        Assembler {
            leaves,
            data,
            cursors,
        }
    }

    /// The next row's value of the top-level `field`.
    pub(crate) fn field(&mut self, field: &Node) -> Result<Value> {
        let first = field.leaves.start;
        match self.rep(first) {
            Some(0) => self.node(field),
            Some(r) => Err(corrupt(format!(
                "'{}' continues a row (repetition level {r}) where a new one starts",
                self.leaves[first].path
            ))),
            None => Err(corrupt(format!(
                "'{}' ends before the row group's rows do",
                self.leaves[first].path
            ))),
        }
    }

    /// Checks that the fields' leaves were used up exactly.
    pub(crate) fn finish(&self, fields: &[&Node]) -> Result<()> {
        for leaf in fields.iter().flat_map(|f| f.leaves.clone()) {
            let (cursor, data) = (&self.cursors[leaf], &self.data[leaf]);
            if cursor.entry != data.entries || cursor.value != data.values.len() {
                return Err(corrupt(format!(
                    "'{}' holds {} entries and {} values, the rows use {} and {}",
                    self.leaves[leaf].path,
                    data.entries,
                    data.values.len(),
                    cursor.entry,
                    cursor.value
                )));
            }
        }
        Ok(())
    }

    fn rep(&self, leaf: usize) -> Option<u16> {
        let (cursor, data) = (&self.cursors[leaf], &self.data[leaf]);
        if cursor.entry >= data.entries {
            return None;
        }
        Some(data.rep.get(cursor.entry).copied().unwrap_or(0))
    }

    fn def(&self, leaf: usize) -> Result<u16> {
        let (cursor, data) = (&self.cursors[leaf], &self.data[leaf]);
        if cursor.entry >= data.entries {
            return Err(corrupt(format!(
                "'{}' ends before the row group's rows do",
                self.leaves[leaf].path
            )));
        }
        Ok(data
            .def
            .get(cursor.entry)
            .copied()
            .unwrap_or(self.leaves[leaf].max_def))
    }

    fn node(&mut self, node: &Node) -> Result<Value> {
        match node.element.repetition {
            Repetition::Repeated => Ok(Value::List(self.repeated(node, |s| s.instance(node))?)),
            Repetition::Optional if self.def(node.leaves.start)? < node.def => {
                self.skip(node)?;
                Ok(Value::Nil)
            }
            _ => self.instance(node),
        }
    }

    /// The instances of the repeated `node` at this position.
    fn repeated<T>(
        &mut self,
        node: &Node,
        mut item: impl FnMut(&mut Self) -> Result<T>,
    ) -> Result<Vec<T>> {
        if self.def(node.leaves.start)? < node.def {
            self.skip(node)?;
            return Ok(Vec::new());
        }
        let mut items = Vec::new();
        loop {
            items.push(item(self)?);
            if self.rep(node.leaves.start) != Some(node.rep) {
                return Ok(items);
            }
        }
    }

    /// A node that is absent here: one entry from each leaf below it.
    fn skip(&mut self, node: &Node) -> Result<()> {
        for leaf in node.leaves.clone() {
            if self.def(leaf)? >= node.def {
                return Err(corrupt(format!(
                    "'{}' has a value where '{}' is absent",
                    self.leaves[leaf].path, node.element.name
                )));
            }
            self.cursors[leaf].entry += 1;
        }
        Ok(())
    }

    /// One present instance of `node`.
    fn instance(&mut self, node: &Node) -> Result<Value> {
        if node.is_leaf() {
            let leaf = node.leaves.start;
            let def = self.def(leaf)?;
            if def != self.leaves[leaf].max_def {
                return Err(corrupt(format!(
                    "'{}' is null (level {def}) where it is required",
                    self.leaves[leaf].path
                )));
            }
            let cursor = &mut self.cursors[leaf];
            let value = self.data[leaf]
                .values
                .get_mut(cursor.value)
                .ok_or_else(|| {
                    corrupt(format!("'{}' runs out of values", self.leaves[leaf].path))
                })?;
            cursor.value += 1;
            cursor.entry += 1;
            return Ok(std::mem::replace(value, Value::Nil));
        }
        match node.group_kind() {
            GroupKind::Struct => {
                let mut fields = Vec::with_capacity(node.children.len());
                for child in &node.children {
                    let value = self.node(child)?;
                    fields.push((Value::Str(child.element.name.clone()), value));
                }
                Ok(Value::Map(fields))
            }
            GroupKind::List { element_is_child } => {
                let repeated = &node.children[0];
                let items = self.repeated(repeated, |s| {
                    if element_is_child {
                        s.node(&repeated.children[0])
                    } else {
                        s.instance(repeated)
                    }
                })?;
                Ok(Value::List(items))
            }
            GroupKind::Map => {
                let entry = &node.children[0];
                let pairs = self.repeated(entry, |s| {
                    let key = s.node(&entry.children[0])?;
                    let value = s.node(&entry.children[1])?;
                    Ok((key, value))
                })?;
                Ok(Value::Map(pairs))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::atria::parquet::meta::{Physical, SchemaElement};
    use crate::atria::parquet::schema::Schema;

    fn element(name: &str, repetition: Repetition, children: i64) -> SchemaElement {
        SchemaElement {
            name: name.into(),
            physical: (children == 0).then_some(Physical::Int32),
            type_length: 0,
            repetition,
            num_children: children,
            converted: None,
            scale: 0,
            precision: 0,
            logical: None,
        }
    }

    fn list(name: &str, repetition: Repetition) -> SchemaElement {
        SchemaElement {
            converted: Some(3),
            ..element(name, repetition, 1)
        }
    }

    /// `n` rows of a schema with one leaf column.
    fn rows(schema: &Schema, data: LeafData, n: usize) -> Result<Vec<Value>> {
        let mut assembler = Assembler::new(&schema.leaves, vec![data]);
        let fields: Vec<&Node> = schema.root.children.iter().collect();
        let rows = (0..n)
            .map(|_| assembler.field(fields[0]))
            .collect::<Result<Vec<_>>>()?;
        assembler.finish(&fields)?;
        Ok(rows)
    }

    fn ints(values: &[i64]) -> Vec<Value> {
        values.iter().map(|&v| Value::Int(v)).collect()
    }

    /// [1, 2], [], null in a legacy two-level list (`repeated int32 element`
    /// right under the LIST group).
    #[test]
    fn two_level_lists_assemble() {
        let schema = Schema::build(&[
            element("root", Repetition::Required, 1),
            list("my_list", Repetition::Optional),
            element("element", Repetition::Repeated, 0),
        ])
        .unwrap();
        assert_eq!(schema.root.children[0].type_name(), "list<int32>");
        let data = || LeafData {
            def: vec![2, 2, 1, 0],
            rep: vec![0, 1, 0, 0],
            values: ints(&[1, 2]),
            entries: 4,
        };
        assert_eq!(
            rows(&schema, data(), 3).unwrap(),
            vec![Value::List(ints(&[1, 2])), Value::List(vec![]), Value::Nil]
        );
        // One row too many, one too few, a value where the list is null, a
        // row that starts with a continuation: each a typed error.
        assert_eq!(rows(&schema, data(), 4).unwrap_err().code(), "Corrupt");
        assert_eq!(rows(&schema, data(), 2).unwrap_err().code(), "Corrupt");
        let mut bad = data();
        bad.values.pop();
        assert_eq!(rows(&schema, bad, 3).unwrap_err().code(), "Corrupt");
        let mut bad = data();
        bad.rep[2] = 1;
        assert_eq!(rows(&schema, bad, 2).unwrap_err().code(), "Corrupt");
    }

    /// A list of `repeated group array { x }`: the repeated group is the
    /// element (a struct), and a bare repeated field is a list.
    #[test]
    fn legacy_element_groups_and_bare_repeated_fields_are_lists() {
        let schema = Schema::build(&[
            element("root", Repetition::Required, 1),
            list("points", Repetition::Required),
            element("array", Repetition::Repeated, 1),
            element("x", Repetition::Required, 0),
        ])
        .unwrap();
        assert_eq!(
            schema.root.children[0].type_name(),
            "list<struct<x: int32>>"
        );
        let data = LeafData {
            def: vec![1, 1, 0],
            rep: vec![0, 1, 0],
            values: ints(&[7, 8]),
            entries: 3,
        };
        let point = |x| Value::Map(vec![(Value::Str("x".into()), Value::Int(x))]);
        assert_eq!(
            rows(&schema, data, 2).unwrap(),
            vec![Value::List(vec![point(7), point(8)]), Value::List(vec![])]
        );

        let bare = Schema::build(&[
            element("root", Repetition::Required, 1),
            element("nums", Repetition::Repeated, 0),
        ])
        .unwrap();
        assert_eq!(bare.root.children[0].type_name(), "list<int32>");
        let data = LeafData {
            def: vec![1, 0, 1],
            rep: vec![0, 0, 0],
            values: ints(&[3, 4]),
            entries: 3,
        };
        assert_eq!(
            rows(&bare, data, 3).unwrap(),
            vec![
                Value::List(ints(&[3])),
                Value::List(vec![]),
                Value::List(ints(&[4]))
            ]
        );
    }

    /// Found by fuzzing: a first child whose subtree takes the elements its
    /// siblings were counted on.
    #[test]
    fn children_past_the_element_list_are_refused() {
        let error = Schema::build(&[
            element("root", Repetition::Required, 2),
            element("group", Repetition::Optional, 1),
            element("leaf", Repetition::Optional, 0),
        ])
        .err()
        .unwrap();
        assert_eq!(error.code(), "Corrupt");
    }

    #[test]
    fn deep_schemas_are_refused() {
        let mut elements = vec![element("root", Repetition::Required, 1)];
        for i in 0..100 {
            elements.push(element(&format!("g{i}"), Repetition::Optional, 1));
        }
        elements.push(element("leaf", Repetition::Optional, 0));
        let error = Schema::build(&elements).err().unwrap();
        assert_eq!(error.code(), "Corrupt");
    }
}
