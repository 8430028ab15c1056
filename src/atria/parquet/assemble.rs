//! Record assembly: rows rebuilt from the leaves' definition and
//! repetition levels (Dremel's scheme, as parquet stores nesting).
//!
//! Each leaf has a cursor. Reading a node at a position asks its first
//! leaf's definition level whether the node is there; a node that is null
//! (or a list that is empty) takes exactly one entry from every leaf below
//! it; a list goes on while its first leaf's next repetition level is the
//! list's own. Whatever the levels say, every step takes at least one entry,
//! and the end checks that every leaf was used up exactly.

use crate::atria::Value;
use crate::error::Result;

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
