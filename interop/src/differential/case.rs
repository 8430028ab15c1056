//! A case: the description of one collection both writers can build, and
//! the seeded generator that draws one from the format's space.
//!
//! The description is plain data (serde), so a minimised case is a JSON
//! fixture a test replays. Floats are kept as their bits, so a NaN's
//! payload survives the round trip through JSON.

use serde::{Deserialize, Serialize};

/// SplitMix64: small, fast, and the same sequence on every machine.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator whose sequence depends only on `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next_u64() % n
        }
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    /// One element of `items`.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

/// The seed of case `index` of a run seeded `seed`.
pub fn case_seed(seed: u64, index: u64) -> u64 {
    let mut r = Rng::new(seed ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03));
    r.next_u64()
}

/// The element types both writers can write (atlas-rust's `ArrayElement`s).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Int8,
    Int16,
    Int32,
    Int64,
    Uint8,
    Uint16,
    Uint32,
    Uint64,
    Float32,
    Float64,
    String,
    Binary,
    TimestampNs,
}

/// Every [`Kind`].
pub const KINDS: [Kind; 13] = [
    Kind::Int8,
    Kind::Int16,
    Kind::Int32,
    Kind::Int64,
    Kind::Uint8,
    Kind::Uint16,
    Kind::Uint32,
    Kind::Uint64,
    Kind::Float32,
    Kind::Float64,
    Kind::String,
    Kind::Binary,
    Kind::TimestampNs,
];

/// The values of one write, C order. Floats as bits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Values {
    Int8(Vec<i8>),
    Int16(Vec<i16>),
    Int32(Vec<i32>),
    Int64(Vec<i64>),
    Uint8(Vec<u8>),
    Uint16(Vec<u16>),
    Uint32(Vec<u32>),
    Uint64(Vec<u64>),
    Float32(Vec<u32>),
    Float64(Vec<u64>),
    String(Vec<String>),
    Binary(Vec<Vec<u8>>),
    TimestampNs(Vec<i64>),
}

/// An attribute value, every variant `Attr` has in both crates. Floats as bits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum AttrValue {
    Bool(bool),
    Int8(i8),
    Int16(i16),
    Int32(i32),
    Int64(i64),
    UInt8(u8),
    UInt16(u16),
    UInt32(u32),
    UInt64(u64),
    Float32(u32),
    Float64(u64),
    String(String),
    Binary(Vec<u8>),
    BoolList(Vec<bool>),
    Int8List(Vec<i8>),
    Int16List(Vec<i16>),
    Int32List(Vec<i32>),
    Int64List(Vec<i64>),
    UInt8List(Vec<u8>),
    UInt16List(Vec<u16>),
    UInt32List(Vec<u32>),
    UInt64List(Vec<u64>),
    Float32List(Vec<u32>),
    Float64List(Vec<u64>),
    StringList(Vec<String>),
    BinaryList(Vec<Vec<u8>>),
}

/// A fill value of any kind, on any dtype (foreign kinds included). Float as bits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Fill {
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(u64),
    String(String),
    TimestampNs(i64),
}

/// The block codec.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum CodecName {
    Zstd,
    Lz4,
    Uncompressed,
}

/// One collection, as both writers are asked to build it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Case {
    pub codec: CodecName,
    pub block_target_size: usize,
    pub datasets: Vec<Dataset>,
    /// Deletion rounds, each one call that hides these names.
    pub deletions: Vec<Vec<String>>,
    /// When set, atlas-rust hides datasets in our file and we in its file.
    pub swap_deleters: bool,
    /// Seeds the random windows the check reads.
    pub window_seed: u64,
    /// When set, every dataset is added first, then each is filled and
    /// finished in reverse order (ordinals still follow the adds).
    #[serde(default)]
    pub interleave: bool,
}

/// One dataset, in `add_dataset` order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Dataset {
    pub name: String,
    /// Set in this order; a repeated key replaces the earlier value.
    pub attrs: Vec<(String, AttrValue)>,
    pub arrays: Vec<Array>,
    /// Defined and written, then dropped unfinished. Its arrays are names
    /// some finished dataset declares too (atlas-rust fails to finish a
    /// collection with a variable only an abandoned dataset declared).
    #[serde(default)]
    pub abandoned: bool,
}

/// One array: its definition, its writes (in order, may overlap) and attributes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Array {
    pub name: String,
    pub dtype: Kind,
    /// Possibly of the wrong length (both writers then name `dim0`, ...).
    pub dims: Vec<String>,
    pub shape: Vec<u64>,
    pub chunk: Option<Vec<u64>>,
    pub fill: Option<Fill>,
    pub writes: Vec<Write>,
    pub attrs: Vec<(String, AttrValue)>,
}

/// One box written into an array.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Write {
    pub start: Vec<u64>,
    pub shape: Vec<u64>,
    pub values: Values,
}

impl Values {
    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            Values::Int8(v) => v.len(),
            Values::Int16(v) => v.len(),
            Values::Int32(v) => v.len(),
            Values::Int64(v) | Values::TimestampNs(v) => v.len(),
            Values::Uint8(v) => v.len(),
            Values::Uint16(v) => v.len(),
            Values::Uint32(v) | Values::Float32(v) => v.len(),
            Values::Uint64(v) | Values::Float64(v) => v.len(),
            Values::String(v) => v.len(),
            Values::Binary(v) => v.len(),
        }
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

const DATASET_NAMES: &[&str] = &["d", "jan", "é", "a.b", "x y", "Ω"];
const ARRAY_NAMES: &[&str] = &["a", "b", "t2m", "é", "x.y"];
const KEYS: &[&str] = &["units", "scale", "k", "é", "long_name", "__proto__", "n"];
const STRINGS: &[&str] = &["", "a", "é", "日本語", "x\u{0}y", "zz", "Ωmega", "a b c"];
const BLOCK_SIZES: &[usize] = &[1, 16, 100, 1000, 8 << 20];

/// Draws case `index` of the run seeded `seed`.
pub fn generate(seed: u64, index: u64) -> Case {
    let mut r = Rng::new(case_seed(seed, index));
    let codec = *r.pick(&[CodecName::Zstd, CodecName::Lz4, CodecName::Uncompressed]);
    let block_target_size = *r.pick(BLOCK_SIZES);
    let count = r.range(0, 4) as usize;
    let mut datasets = Vec::with_capacity(count);
    for i in 0..count {
        let name = format!("{}{i}", r.pick(DATASET_NAMES));
        let n_arrays = r.range(0, 3) as usize;
        let mut arrays: Vec<Array> = Vec::new();
        for _ in 0..n_arrays {
            let name = r.pick(ARRAY_NAMES).to_string();
            if arrays.iter().any(|a| a.name == name) {
                continue;
            }
            arrays.push(array(&mut r, name));
        }
        let attrs = attrs(&mut r, 3);
        datasets.push(Dataset {
            name,
            attrs,
            arrays,
            abandoned: r.chance(8),
        });
    }
    let declared: Vec<String> = datasets
        .iter()
        .filter(|d| !d.abandoned)
        .flat_map(|d| d.arrays.iter().map(|a| a.name.clone()))
        .collect();
    for ds in datasets.iter_mut().filter(|d| d.abandoned) {
        ds.arrays.retain(|a| declared.contains(&a.name));
    }
    let mut deletions = Vec::new();
    if !datasets.is_empty() && r.chance(40) {
        let mut left: Vec<String> = datasets
            .iter()
            .filter(|d| !d.abandoned)
            .map(|d| d.name.clone())
            .collect();
        for _ in 0..r.range(1, 2) {
            let mut round = Vec::new();
            for _ in 0..r.range(1, 2) {
                if left.is_empty() {
                    break;
                }
                let k = r.below(left.len() as u64) as usize;
                round.push(left.remove(k));
            }
            if !round.is_empty() {
                deletions.push(round);
            }
        }
    }
    Case {
        codec,
        block_target_size,
        datasets,
        deletions,
        swap_deleters: r.chance(50),
        window_seed: r.next_u64(),
        interleave: r.chance(15),
    }
}

fn attrs(r: &mut Rng, max: u64) -> Vec<(String, AttrValue)> {
    (0..r.range(0, max))
        .map(|_| (r.pick(KEYS).to_string(), attr_value(r)))
        .collect()
}

fn array(r: &mut Rng, name: String) -> Array {
    let dtype = *r.pick(&KINDS);
    let rank = *r.pick(&[0u64, 1, 1, 2, 2, 3, 4]) as usize;
    let max_axis = [6, 9, 6, 4, 3][rank];
    let mut shape: Vec<u64> = (0..rank)
        .map(|_| if r.chance(8) { 0 } else { r.range(1, max_axis) })
        .collect();
    while shape.iter().product::<u64>() > 96 {
        let axis = r.below(rank as u64) as usize;
        shape[axis] = shape[axis].div_ceil(2);
    }
    let chunk = if r.chance(25) {
        None
    } else {
        Some(
            shape
                .iter()
                .map(|&s| match s {
                    0 => r.range(0, 2),
                    s if r.chance(10) => s + r.range(1, 3),
                    s => r.range(1, s),
                })
                .collect(),
        )
    };
    let dims = match r.below(10) {
        0 => Vec::new(),
        1 => vec!["only".to_string()],
        _ => (0..rank)
            .map(|i| r.pick(&["x", "y", "time", "é", "lat"]).to_string() + &i.to_string())
            .collect(),
    };
    let fill = r.chance(50).then(|| fill(r, dtype));
    let mut writes = Vec::new();
    for _ in 0..r.range(0, 3) {
        let (start, size) = if r.chance(20) {
            (vec![0; rank], shape.clone())
        } else if rank > 0 && r.chance(4) {
            // An empty box, anywhere up to the end.
            (
                shape.iter().map(|&s| r.range(0, s)).collect(),
                vec![0; rank],
            )
        } else {
            let start: Vec<u64> = shape.iter().map(|&s| r.below(s)).collect();
            let size = shape
                .iter()
                .zip(&start)
                .map(|(&s, &b)| if s == 0 { 0 } else { r.range(1, s - b) })
                .collect();
            (start, size)
        };
        let n = size.iter().product::<u64>() as usize;
        writes.push(Write {
            start,
            shape: size,
            values: values(r, dtype, n),
        });
    }
    let attrs = attrs(r, 2);
    Array {
        name,
        dtype,
        dims,
        shape,
        chunk,
        fill,
        writes,
        attrs,
    }
}

fn fill(r: &mut Rng, dtype: Kind) -> Fill {
    // Mostly the dtype's own kind; sometimes a foreign one.
    let own = match dtype {
        Kind::Int8 | Kind::Int16 | Kind::Int32 | Kind::Int64 => 1,
        Kind::Uint8 | Kind::Uint16 | Kind::Uint32 | Kind::Uint64 => 2,
        Kind::Float32 | Kind::Float64 => 3,
        Kind::String | Kind::Binary => 4,
        Kind::TimestampNs => 5,
    };
    let which = if r.chance(70) { own } else { r.below(6) };
    match which {
        0 => Fill::Bool(r.chance(50)),
        1 => Fill::Int(int64(r)),
        2 => Fill::UInt(int64(r) as u64),
        3 => Fill::Float(f64_bits(r)),
        4 => Fill::String(r.pick(STRINGS).to_string()),
        _ => Fill::TimestampNs(int64(r)),
    }
}

/// An `i64` that is often an extreme or small.
fn int64(r: &mut Rng) -> i64 {
    match r.below(8) {
        0 => *r.pick(&[i64::MIN, i64::MAX, 0, -1, 1]),
        1..=4 => r.range(0, 200) as i64 - 100,
        _ => r.next_u64() as i64,
    }
}

fn f64_bits(r: &mut Rng) -> u64 {
    match r.below(10) {
        0 => *r.pick(&[
            f64::NAN.to_bits(),
            (-f64::NAN).to_bits(),
            0x7ff0_0000_0000_0001,
            0xfff8_0000_0000_0abc,
            f64::INFINITY.to_bits(),
            f64::NEG_INFINITY.to_bits(),
            (-0.0f64).to_bits(),
            0,
            f64::MIN_POSITIVE.to_bits(),
            1,
            f64::MAX.to_bits(),
            f64::MIN.to_bits(),
        ]),
        1 => r.next_u64(),
        _ => ((r.range(0, 2000) as f64 - 1000.0) / 8.0).to_bits(),
    }
}

fn f32_bits(r: &mut Rng) -> u32 {
    match r.below(10) {
        0 => *r.pick(&[
            f32::NAN.to_bits(),
            (-f32::NAN).to_bits(),
            0x7f80_0001,
            0xffc0_0abc,
            f32::INFINITY.to_bits(),
            f32::NEG_INFINITY.to_bits(),
            (-0.0f32).to_bits(),
            0,
            1,
            f32::MAX.to_bits(),
            f32::MIN.to_bits(),
        ]),
        1 => r.next_u64() as u32,
        _ => ((r.range(0, 2000) as f32 - 1000.0) / 8.0).to_bits(),
    }
}

fn string(r: &mut Rng) -> String {
    (0..r.range(0, 2)).map(|_| *r.pick(STRINGS)).collect()
}

fn bytes(r: &mut Rng) -> Vec<u8> {
    (0..r.range(0, 4)).map(|_| r.next_u64() as u8).collect()
}

fn values(r: &mut Rng, dtype: Kind, n: usize) -> Values {
    macro_rules! ints {
        ($variant:ident, $ty:ty) => {
            Values::$variant((0..n).map(|_| int64(r) as $ty).collect())
        };
    }
    match dtype {
        Kind::Int8 => ints!(Int8, i8),
        Kind::Int16 => ints!(Int16, i16),
        Kind::Int32 => ints!(Int32, i32),
        Kind::Int64 => ints!(Int64, i64),
        Kind::Uint8 => ints!(Uint8, u8),
        Kind::Uint16 => ints!(Uint16, u16),
        Kind::Uint32 => ints!(Uint32, u32),
        Kind::Uint64 => ints!(Uint64, u64),
        Kind::TimestampNs => ints!(TimestampNs, i64),
        Kind::Float32 => Values::Float32((0..n).map(|_| f32_bits(r)).collect()),
        Kind::Float64 => Values::Float64((0..n).map(|_| f64_bits(r)).collect()),
        Kind::String => Values::String((0..n).map(|_| string(r)).collect()),
        Kind::Binary => Values::Binary((0..n).map(|_| bytes(r)).collect()),
    }
}

fn attr_value(r: &mut Rng) -> AttrValue {
    let n = r.range(0, 3) as usize;
    macro_rules! list {
        ($variant:ident, $make:expr) => {
            AttrValue::$variant((0..n).map(|_| $make).collect())
        };
    }
    match r.below(26) {
        0 => AttrValue::Bool(r.chance(50)),
        1 => AttrValue::Int8(int64(r) as i8),
        2 => AttrValue::Int16(int64(r) as i16),
        3 => AttrValue::Int32(int64(r) as i32),
        4 => AttrValue::Int64(int64(r)),
        5 => AttrValue::UInt8(int64(r) as u8),
        6 => AttrValue::UInt16(int64(r) as u16),
        7 => AttrValue::UInt32(int64(r) as u32),
        8 => AttrValue::UInt64(int64(r) as u64),
        9 => AttrValue::Float32(f32_bits(r)),
        10 => AttrValue::Float64(f64_bits(r)),
        11 => AttrValue::String(string(r)),
        12 => AttrValue::Binary(bytes(r)),
        13 => list!(BoolList, r.chance(50)),
        14 => list!(Int8List, int64(r) as i8),
        15 => list!(Int16List, int64(r) as i16),
        16 => list!(Int32List, int64(r) as i32),
        17 => list!(Int64List, int64(r)),
        18 => list!(UInt8List, int64(r) as u8),
        19 => list!(UInt16List, int64(r) as u16),
        20 => list!(UInt32List, int64(r) as u32),
        21 => list!(UInt64List, int64(r) as u64),
        22 => list!(Float32List, f32_bits(r)),
        23 => list!(Float64List, f64_bits(r)),
        24 => list!(StringList, string(r)),
        _ => list!(BinaryList, bytes(r)),
    }
}

/// Smaller variants of `case`, most promising first: fewer datasets,
/// arrays, writes, attributes and deletions, shorter axes, plainer settings.
pub fn shrinks(case: &Case) -> Vec<Case> {
    let mut out = Vec::new();
    for i in 0..case.datasets.len() {
        let mut c = case.clone();
        let gone = c.datasets.remove(i).name;
        for round in &mut c.deletions {
            round.retain(|n| *n != gone);
        }
        c.deletions.retain(|r| !r.is_empty());
        out.push(c);
    }
    for i in 0..case.deletions.len() {
        let mut c = case.clone();
        c.deletions.remove(i);
        out.push(c);
    }
    if case.swap_deleters {
        let mut c = case.clone();
        c.swap_deleters = false;
        out.push(c);
    }
    if case.interleave {
        let mut c = case.clone();
        c.interleave = false;
        out.push(c);
    }
    for (d, ds) in case.datasets.iter().enumerate() {
        for a in 0..ds.arrays.len() {
            let mut c = case.clone();
            c.datasets[d].arrays.remove(a);
            out.push(c);
        }
        for k in 0..ds.attrs.len() {
            let mut c = case.clone();
            c.datasets[d].attrs.remove(k);
            out.push(c);
        }
        if ds.abandoned {
            let mut c = case.clone();
            c.datasets[d].abandoned = false;
            out.push(c);
        }
        for (a, arr) in ds.arrays.iter().enumerate() {
            let mut edit = |f: &dyn Fn(&mut Array)| {
                let mut c = case.clone();
                f(&mut c.datasets[d].arrays[a]);
                if c != *case {
                    out.push(c);
                }
            };
            for w in 0..arr.writes.len() {
                edit(&|x: &mut Array| {
                    x.writes.remove(w);
                });
            }
            for k in 0..arr.attrs.len() {
                edit(&|x: &mut Array| {
                    x.attrs.remove(k);
                });
            }
            edit(&|x: &mut Array| x.fill = None);
            edit(&|x: &mut Array| x.chunk = None);
            edit(&|x: &mut Array| x.dims = (0..x.shape.len()).map(|i| format!("d{i}")).collect());
            for axis in 0..arr.shape.len() {
                edit(&|x: &mut Array| shrink_axis(x, axis));
            }
        }
    }
    for (codec, block) in [
        (CodecName::Uncompressed, case.block_target_size),
        (case.codec, 8 << 20),
    ] {
        if (codec, block) != (case.codec, case.block_target_size) {
            let mut c = case.clone();
            c.codec = codec;
            c.block_target_size = block;
            out.push(c);
        }
    }
    out
}

/// Halves one axis; writes that no longer fit are dropped.
fn shrink_axis(a: &mut Array, axis: usize) {
    if a.shape[axis] == 0 {
        return;
    }
    a.shape[axis] /= 2;
    if let Some(chunk) = &mut a.chunk {
        if a.shape[axis] == 0 {
            chunk[axis] = chunk[axis].min(1);
        }
    }
    let shape = a.shape.clone();
    a.writes.retain(|w| {
        w.start
            .iter()
            .zip(&w.shape)
            .zip(&shape)
            .all(|((&b, &n), &s)| b + n <= s)
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_draws_the_same_case_every_time() {
        assert_eq!(generate(7, 3), generate(7, 3));
        assert_ne!(generate(7, 3), generate(7, 4));
        let case = generate(1, 0);
        let text = serde_json::to_string(&case).unwrap();
        assert_eq!(serde_json::from_str::<Case>(&text).unwrap(), case);
    }

    #[test]
    fn writes_fit_their_arrays() {
        for i in 0..500 {
            for ds in generate(11, i).datasets {
                for a in ds.arrays {
                    for w in a.writes {
                        assert_eq!(w.values.len() as u64, w.shape.iter().product::<u64>());
                        for ((b, n), s) in w.start.iter().zip(&w.shape).zip(&a.shape) {
                            assert!(b + n <= *s);
                        }
                    }
                }
            }
        }
    }
}
