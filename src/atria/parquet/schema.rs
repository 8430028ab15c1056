//! The schema tree, rebuilt from the footer's depth-first element list,
//! with each leaf's maximum definition and repetition levels, and the type
//! names [`Column::type_name`](super::Column) reports.

use crate::atria::error::Result;

use super::meta::{corrupt, Logical, Physical, Repetition, SchemaElement};

/// Deeper schemas are refused: real ones nest a few levels, and assembly
/// recurses once per level.
pub(crate) const MAX_DEPTH: usize = 64;

/// A node of the schema tree.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub element: SchemaElement,
    pub children: Vec<Node>,
    /// Definition level when this node is present (counts optional and
    /// repeated nodes from the root down to here).
    pub def: u16,
    /// Repetition level of this node (repeated nodes from the root).
    pub rep: u16,
    /// Leaves below (or this leaf): their indices in column-chunk order.
    pub leaves: std::ops::Range<usize>,
}

/// What the decoder needs to know about one leaf column.
#[derive(Debug, Clone)]
pub(crate) struct Leaf {
    pub path: String,
    pub physical: Physical,
    pub type_length: usize,
    pub max_def: u16,
    pub max_rep: u16,
    /// How BYTE_ARRAY values come out (strings or bytes), how INT32/INT64
    /// are read (unsigned or not).
    pub text: bool,
    pub unsigned: bool,
}

pub(crate) struct Schema {
    pub root: Node,
    pub leaves: Vec<Leaf>,
}

impl Schema {
    pub(crate) fn build(elements: &[SchemaElement]) -> Result<Schema> {
        let Some(root) = elements.first() else {
            return Err(corrupt("an empty schema".into()));
        };
        let mut at = 1;
        let mut leaves = Vec::new();
        let mut node = Node {
            element: root.clone(),
            children: Vec::new(),
            def: 0,
            rep: 0,
            leaves: 0..0,
        };
        // A file of no columns (pyarrow writes `pa.table({})` so) has a root
        // without children; any other group needs some.
        if root.num_children != 0 || elements.len() > 1 {
            node.children = children(elements, &mut at, root, 0, 0, "", 1, &mut leaves)?;
        }
        if at != elements.len() {
            return Err(corrupt(format!(
                "the schema tree uses {at} of {} elements",
                elements.len()
            )));
        }
        node.leaves = 0..leaves.len();
        Ok(Schema { root: node, leaves })
    }
}

#[allow(clippy::too_many_arguments)]
fn children(
    elements: &[SchemaElement],
    at: &mut usize,
    parent: &SchemaElement,
    def: u16,
    rep: u16,
    path: &str,
    depth: usize,
    leaves: &mut Vec<Leaf>,
) -> Result<Vec<Node>> {
    if depth > MAX_DEPTH {
        return Err(corrupt(format!("a schema nested deeper than {MAX_DEPTH}")));
    }
    let count = parent.num_children;
    if count <= 0 || count as usize > elements.len() - *at {
        return Err(corrupt(format!(
            "'{}' claims {count} children, {} elements are left",
            parent.name,
            elements.len() - *at
        )));
    }
    let mut nodes = Vec::with_capacity(count as usize);
    for _ in 0..count {
        // Earlier siblings' subtrees may have used up the elements.
        let element = elements
            .get(*at)
            .ok_or_else(|| {
                corrupt(format!(
                    "'{}' claims more children than there are",
                    parent.name
                ))
            })?
            .clone();
        *at += 1;
        let (def, rep) = match element.repetition {
            Repetition::Required => (def, rep),
            Repetition::Optional => (def + 1, rep),
            Repetition::Repeated => (def + 1, rep + 1),
        };
        let path = if path.is_empty() {
            element.name.clone()
        } else {
            format!("{path}.{}", element.name)
        };
        let first = leaves.len();
        let kids = if element.num_children > 0 {
            children(elements, at, &element, def, rep, &path, depth + 1, leaves)?
        } else {
            leaves.push(leaf(&element, path, def, rep)?);
            Vec::new()
        };
        nodes.push(Node {
            element,
            children: kids,
            def,
            rep,
            leaves: first..leaves.len(),
        });
    }
    Ok(nodes)
}

fn leaf(e: &SchemaElement, path: String, def: u16, rep: u16) -> Result<Leaf> {
    let physical = e
        .physical
        .ok_or_else(|| corrupt(format!("the leaf '{path}' has no physical type")))?;
    let type_length = if physical == Physical::FixedLenByteArray {
        match usize::try_from(e.type_length) {
            Ok(n) if n > 0 && n <= 1 << 20 => n,
            _ => {
                return Err(corrupt(format!(
                    "'{path}' is fixed_len_byte_array of {} bytes",
                    e.type_length
                )))
            }
        }
    } else {
        0
    };
    let text = matches!(
        e.logical,
        Some(Logical::String | Logical::Enum | Logical::Json)
    ) || matches!(e.converted, Some(0 | 4 | 19));
    let unsigned = matches!(e.logical, Some(Logical::Integer { signed: false, .. }))
        || matches!(e.converted, Some(11..=14));
    Ok(Leaf {
        path,
        physical,
        type_length,
        max_def: def,
        max_rep: rep,
        text,
        unsigned,
    })
}

/// How a group node's values are built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GroupKind {
    Struct,
    /// A LIST: its one repeated child; `element_is_child` when the list is
    /// three-level (the repeated group wraps one element field).
    List {
        element_is_child: bool,
    },
    Map,
}

impl Node {
    pub(crate) fn is_leaf(&self) -> bool {
        self.children.is_empty()
    }

    pub(crate) fn group_kind(&self) -> GroupKind {
        let e = &self.element;
        let annotated_map =
            matches!(e.logical, Some(Logical::Map)) || matches!(e.converted, Some(1 | 2));
        let annotated_list = matches!(e.logical, Some(Logical::List)) || e.converted == Some(3);
        let only = (self.children.len() == 1).then(|| &self.children[0]);
        let repeated_only = only.filter(|c| c.element.repetition == Repetition::Repeated);
        if annotated_map {
            if let Some(kv) = repeated_only {
                if kv.children.len() == 2 {
                    return GroupKind::Map;
                }
            }
        }
        if annotated_list {
            if let Some(r) = repeated_only {
                // The backward-compatibility rules of the format's
                // LogicalTypes.md: a repeated group of one field named
                // `array` or `{list}_tuple`, or a repeated primitive or
                // multi-field group, is itself the element (two-level).
                let two_level = r.is_leaf()
                    || r.children.len() > 1
                    || r.element.name == "array"
                    || r.element.name == format!("{}_tuple", e.name);
                return GroupKind::List {
                    element_is_child: !two_level,
                };
            }
        }
        GroupKind::Struct
    }

    /// The type name of this node as a column: "int64", "list<string>", …
    /// (a bare repeated field is a list of its instances).
    pub(crate) fn type_name(&self) -> String {
        let base = self.instance_type_name();
        if self.element.repetition == Repetition::Repeated {
            format!("list<{base}>")
        } else {
            base
        }
    }

    /// The type name of one instance of this node.
    fn instance_type_name(&self) -> String {
        if self.is_leaf() {
            return leaf_type_name(&self.element);
        }
        match self.group_kind() {
            GroupKind::Map => {
                let kv = &self.children[0];
                format!(
                    "map<{}, {}>",
                    kv.children[0].type_name(),
                    kv.children[1].type_name()
                )
            }
            GroupKind::List { element_is_child } => {
                let r = &self.children[0];
                let element = if element_is_child {
                    r.children[0].type_name()
                } else {
                    r.instance_type_name()
                };
                format!("list<{element}>")
            }
            GroupKind::Struct => {
                let fields: Vec<String> = self
                    .children
                    .iter()
                    .map(|c| format!("{}: {}", c.element.name, c.type_name()))
                    .collect();
                format!("struct<{}>", fields.join(", "))
            }
        }
    }
}

fn leaf_type_name(e: &SchemaElement) -> String {
    let physical = e.physical.unwrap_or(Physical::ByteArray);
    let by_logical = match &e.logical {
        Some(Logical::String | Logical::Enum) => Some("string".to_string()),
        Some(Logical::Json) => Some("json".into()),
        Some(Logical::Bson) => Some("bson".into()),
        Some(Logical::Uuid) => Some("uuid".into()),
        Some(Logical::Float16) => Some("float16".into()),
        Some(Logical::Date) => Some("date32[day]".into()),
        Some(Logical::Decimal { scale, precision }) => {
            Some(format!("decimal({precision}, {scale})"))
        }
        Some(Logical::Time { unit }) => Some(match physical {
            Physical::Int32 => format!("time32[{unit}]"),
            _ => format!("time64[{unit}]"),
        }),
        Some(Logical::Timestamp { unit, utc: true }) => Some(format!("timestamp[{unit}, tz=UTC]")),
        Some(Logical::Timestamp { unit, utc: false }) => Some(format!("timestamp[{unit}]")),
        Some(Logical::Integer { bits, signed }) => {
            Some(format!("{}int{bits}", if *signed { "" } else { "u" }))
        }
        _ => None,
    };
    if let Some(name) = by_logical {
        return name;
    }
    let by_converted = match e.converted {
        Some(0 | 4) => Some("string".to_string()),
        Some(19) => Some("json".into()),
        Some(20) => Some("bson".into()),
        Some(5) => Some(format!("decimal({}, {})", e.precision, e.scale)),
        Some(6) => Some("date32[day]".into()),
        Some(7) => Some("time32[ms]".into()),
        Some(8) => Some("time64[us]".into()),
        Some(9) => Some("timestamp[ms]".into()),
        Some(10) => Some("timestamp[us]".into()),
        Some(c @ 11..=14) => Some(format!("uint{}", 8 << (c - 11))),
        Some(c @ 15..=18) => Some(format!("int{}", 8 << (c - 15))),
        _ => None,
    };
    if let Some(name) = by_converted {
        return name;
    }
    match physical {
        Physical::Boolean => "bool".into(),
        Physical::Int32 => "int32".into(),
        Physical::Int64 => "int64".into(),
        Physical::Int96 => "timestamp[ns]".into(),
        Physical::Float => "float32".into(),
        Physical::Double => "float64".into(),
        Physical::ByteArray => "binary".into(),
        Physical::FixedLenByteArray => format!("fixed_size_binary[{}]", e.type_length),
    }
}
