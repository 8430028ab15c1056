//! What each NetCDF variable becomes: the decisions xarray's CF decoding
//! makes for atlas-python (masking, unpacking, time decoding, character
//! arrays, coordinates), taken from metadata alone, before any value is read.
//! Pure functions over [`RawVariable`], so every rule is tested here.

use netcdf::AttributeValue;

use crate::format::dtype::DType;
use crate::format::value::{Attr, FillValue};
use crate::ingest::attrs;
use crate::ingest::cftime::{self, DatetimeUnits, TimeError, NAT};

/// A variable's element type in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SourceType {
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    F32,
    F64,
    /// NC_CHAR: one byte per element.
    Char,
    /// NC_STRING: variable-length strings.
    Str,
}

impl SourceType {
    fn numpy_name(self) -> &'static str {
        match self {
            SourceType::I8 => "int8",
            SourceType::I16 => "int16",
            SourceType::I32 => "int32",
            SourceType::I64 => "int64",
            SourceType::U8 => "uint8",
            SourceType::U16 => "uint16",
            SourceType::U32 => "uint32",
            SourceType::U64 => "uint64",
            SourceType::F32 => "float32",
            SourceType::F64 => "float64",
            SourceType::Char => "|S1",
            SourceType::Str => "object",
        }
    }

    fn is_int(self) -> bool {
        !matches!(
            self,
            SourceType::F32 | SourceType::F64 | SourceType::Char | SourceType::Str
        )
    }

    /// Bytes per element in memory (NC_STRING cells are read one by one).
    pub(crate) fn width(self) -> usize {
        match self {
            SourceType::I8 | SourceType::U8 | SourceType::Char => 1,
            SourceType::I16 | SourceType::U16 => 2,
            SourceType::I32 | SourceType::U32 | SourceType::F32 => 4,
            _ => 8,
        }
    }

    /// The same bits read with the other signedness (`_Unsigned`).
    fn flip_sign(self) -> SourceType {
        match self {
            SourceType::I8 => SourceType::U8,
            SourceType::I16 => SourceType::U16,
            SourceType::I32 => SourceType::U32,
            SourceType::I64 => SourceType::U64,
            SourceType::U8 => SourceType::I8,
            SourceType::U16 => SourceType::I16,
            SourceType::U32 => SourceType::I32,
            SourceType::U64 => SourceType::I64,
            other => other,
        }
    }

    fn dtype(self) -> DType {
        match self {
            SourceType::I8 => DType::Int8,
            SourceType::I16 => DType::Int16,
            SourceType::I32 => DType::Int32,
            SourceType::I64 => DType::Int64,
            SourceType::U8 => DType::UInt8,
            SourceType::U16 => DType::UInt16,
            SourceType::U32 => DType::UInt32,
            SourceType::U64 => DType::UInt64,
            SourceType::F32 => DType::Float32,
            SourceType::F64 => DType::Float64,
            SourceType::Char | SourceType::Str => DType::String,
        }
    }
}

/// A variable as the file declares it.
#[derive(Debug, Clone)]
pub(crate) struct RawVariable {
    pub name: String,
    /// `Err` names a type atlas cannot store (compound, enum, vlen, opaque).
    pub ty: Result<SourceType, String>,
    pub dims: Vec<(String, usize)>,
    pub attrs: Vec<(String, AttributeValue)>,
    /// The file's chunk shape; `None` for contiguous or netCDF-3 storage.
    pub chunking: Option<Vec<usize>>,
}

impl RawVariable {
    fn attr(&self, key: &str) -> Option<&AttributeValue> {
        self.attrs.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    fn attr_str(&self, key: &str) -> Option<&str> {
        match self.attr(key)? {
            AttributeValue::Str(s) => Some(s),
            AttributeValue::Strs(items) if items.len() == 1 => Some(&items[0]),
            _ => None,
        }
    }
}

/// How stored numbers become the values atlas-python writes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Numeric {
    /// As they are.
    Raw,
    /// To a float (`f32` or not), with fill values masked to NaN, then
    /// `x * scale + offset` in that float type.
    Float {
        f32: bool,
        fills: Vec<f64>,
        scale: Option<f64>,
        offset: Option<f64>,
    },
    /// Time-like integers with a fill: int64, the fill masked to NaT.
    Sentinel { fills: Vec<f64> },
}

/// The time decoding applied after [`Numeric`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Time {
    None,
    Datetime(DatetimeUnits),
    Timedelta { unit_ns: i64 },
}

/// How the values of one variable are read and converted.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Decode {
    /// Numbers of type `read` (the file's type, its sign flipped by
    /// `_Unsigned`).
    Numbers {
        read: SourceType,
        numeric: Numeric,
        time: Time,
    },
    /// NC_CHAR; `width` bytes per string when the last dimension is joined.
    /// Cells equal to a fill become `""` (xarray masks them to NaN, which
    /// atlas-python stores as the empty string).
    Chars {
        width: Option<usize>,
        fills: Vec<String>,
    },
    /// NC_STRING; cells equal to a fill become `""`.
    Strings { fills: Vec<String> },
}

/// One variable, planned.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct VariablePlan {
    pub name: String,
    /// Decoded dimensions (a joined character dimension is gone).
    pub dims: Vec<String>,
    pub shape: Vec<u64>,
    pub dtype: DType,
    pub fill: Option<FillValue>,
    pub decode: Decode,
    pub attrs: Vec<(String, Attr)>,
    /// The file's chunking over the decoded dimensions.
    pub chunking: Option<Vec<u64>>,
    /// Bytes per element once decoded (an estimate for strings).
    pub width: u64,
    /// What xarray warns of while decoding it, in its words.
    pub warnings: Vec<String>,
}

/// A variable left out: what it would have been and why.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Unsupported {
    pub array: String,
    pub dtype: String,
    pub reason: String,
}

/// A whole file, planned.
#[derive(Debug)]
pub(crate) struct DatasetPlan {
    /// Coordinates first, then data variables, each in file order.
    pub variables: Vec<Result<VariablePlan, Unsupported>>,
    /// Coordinate names, in file order.
    pub coords: Vec<String>,
    pub attrs: Vec<(String, Attr)>,
}

/// Attribute keys xarray moves out of `attrs` while decoding.
const MASK_KEYS: [&str; 2] = ["_FillValue", "missing_value"];
const PACK_KEYS: [&str; 2] = ["scale_factor", "add_offset"];

/// Plans a file. `Err` is a problem that fails the whole file in xarray too.
pub(crate) fn plan_dataset(
    variables: &[RawVariable],
    globals: &[(String, AttributeValue)],
    decode_times: bool,
    convert_calendar: bool,
) -> Result<DatasetPlan, String> {
    let mut variables = variables.to_vec();
    if decode_times {
        lend_time_units_to_bounds(&mut variables);
    }
    let mut coords: Vec<String> = Vec::new();
    let mut planned = Vec::with_capacity(variables.len());
    for var in &variables {
        refuse_text_packing(var)?;
        let time_units = time_units(var, decode_times, convert_calendar)?;
        let joined = joined_char_width(var, &variables);
        let dims: Vec<&(String, usize)> = var.dims[..var.dims.len() - joined.map_or(0, |_| 1)]
            .iter()
            .collect();
        if dims.iter().any(|(d, _)| *d == var.name) && dims.len() != 1 {
            return Err(format!(
                "variable {:?} has the name of one of its dimensions but is not one-dimensional",
                var.name
            ));
        }
        if let Some(listed) = var.attr_str("coordinates") {
            for name in listed.split_whitespace() {
                if variables.iter().any(|v| v.name == name) {
                    coords.push(name.to_string());
                }
            }
        }
        planned.push(plan_variable(var, joined, &dims, decode_times, time_units));
    }
    let mut attrs = Vec::with_capacity(globals.len());
    for (key, value) in globals {
        if key == "coordinates" {
            if let AttributeValue::Str(listed) = value {
                coords.extend(listed.split_whitespace().map(str::to_string));
                continue;
            }
        }
        attrs.push((key.clone(), attrs::convert(value)));
    }
    // xarray makes every variable named after a dimension a coordinate (an
    // index coordinate, and whatever its own dimensions (`depth(station, profile)` beside
    // `T(depth, lat, lon)`), when it merges the decoded variables.
    let used: Vec<&str> = variables
        .iter()
        .zip(&planned)
        .flat_map(|(var, plan)| match plan {
            Ok(p) => p.dims.iter().map(String::as_str).collect::<Vec<_>>(),
            Err(_) => var.dims.iter().map(|(d, _)| d.as_str()).collect(),
        })
        .collect();
    for var in &variables {
        if used.contains(&var.name.as_str()) {
            coords.push(var.name.clone());
        }
    }
    // File order, each once, and only names that are variables.
    let coords: Vec<String> = variables
        .iter()
        .map(|v| v.name.clone())
        .filter(|n| coords.contains(n))
        .collect();
    let (mut first, rest): (Vec<_>, Vec<_>) = variables
        .iter()
        .zip(planned)
        .partition(|(v, _)| coords.contains(&v.name));
    first.extend(rest);
    Ok(DatasetPlan {
        variables: first.into_iter().map(|(_, p)| p).collect(),
        coords,
        attrs,
    })
}

/// A datetime-like variable's units, parsed once, when times are decoded:
/// `None` for any other variable. `--convert-calendar` on a calendar
/// without real instants fails the whole file in atlas-python, before any
/// array is looked at; what else does not decode makes the variable
/// unsupported (`plan_variable`).
type TimeUnits = Option<Result<DatetimeUnits, TimeError>>;

fn time_units(var: &RawVariable, decode_times: bool, convert: bool) -> Result<TimeUnits, String> {
    let Some(units) = var
        .attr_str("units")
        .filter(|u| decode_times && cftime::is_datetime_units(u))
    else {
        return Ok(None);
    };
    match cftime::datetime_units(units, var.attr_str("calendar"), convert) {
        Err(TimeError::NoInstant(why)) => Err(format!("variable {:?}: {why}", var.name)),
        parsed => Ok(Some(parsed)),
    }
}

/// numpy cannot scale numbers by text: xarray fails the file when it
/// computes `data * scale_factor + add_offset` with either one a string.
fn refuse_text_packing(var: &RawVariable) -> Result<(), String> {
    if matches!(var.ty, Ok(SourceType::Char | SourceType::Str) | Err(_)) {
        return Ok(());
    }
    for key in PACK_KEYS {
        if let Some(AttributeValue::Str(_) | AttributeValue::Strs(_)) = var.attr(key) {
            return Err(format!(
                "variable {:?}: its {key} is text, which cannot scale numbers (numpy has no loop for a number and a str)",
                var.name
            ));
        }
    }
    Ok(())
}

/// xarray copies `units` and `calendar` of a time axis to its `bounds`
/// variable when that one has none, so both decode alike.
fn lend_time_units_to_bounds(variables: &mut [RawVariable]) {
    let mut lent = Vec::new();
    for v in variables.iter() {
        let (Some(units), Some(bounds)) = (v.attr_str("units"), v.attr_str("bounds")) else {
            continue;
        };
        if units.contains("since") {
            lent.push((
                bounds.to_string(),
                v.attr("units").cloned(),
                v.attr("calendar").cloned(),
            ));
        }
    }
    for (bounds, units, calendar) in lent {
        if let Some(target) = variables.iter_mut().find(|v| v.name == bounds) {
            for (key, value) in [("units", units), ("calendar", calendar)] {
                if let Some(value) = value {
                    if target.attr(key).is_none() {
                        target.attrs.push((key.to_string(), value));
                    }
                }
            }
        }
    }
}

/// The string width when xarray joins this char variable's last dimension:
/// it does when no variable is named after that dimension and every
/// variable using it is a char array with it last.
fn joined_char_width(var: &RawVariable, all: &[RawVariable]) -> Option<usize> {
    if var.ty != Ok(SourceType::Char) {
        return None;
    }
    let (dim, len) = var.dims.last()?;
    let stackable = !all.iter().any(|v| &v.name == dim)
        && all.iter().all(|v| {
            !v.dims.iter().any(|(d, _)| d == dim)
                || (v.ty == Ok(SourceType::Char) && v.dims.last().map(|(d, _)| d) == Some(dim))
        });
    stackable.then_some(*len)
}

fn plan_variable(
    var: &RawVariable,
    joined: Option<usize>,
    dims: &[&(String, usize)],
    decode_times: bool,
    time_units: TimeUnits,
) -> Result<VariablePlan, Unsupported> {
    let unsupported = |dtype: &str, reason: String| Unsupported {
        array: var.name.clone(),
        dtype: dtype.to_string(),
        reason,
    };
    let ty = var.ty.clone().map_err(|kind| {
        unsupported(
            &kind,
            format!(
                "variable {:?} has the NetCDF type {kind}, which atlas cannot store; pass --skip-unsupported to leave it out",
                var.name
            ),
        )
    })?;
    let mut removed: Vec<&str> = Vec::new();
    let fills_present: Vec<&AttributeValue> =
        MASK_KEYS.iter().filter_map(|k| var.attr(k)).collect();
    removed.extend(MASK_KEYS);
    removed.extend(["coordinates"]);
    if var.attr_str("dtype") == Some("bool") {
        return Err(unsupported(
            "bool",
            format!(
                "variable {:?} holds booleans (attribute dtype = \"bool\"), which atlas cannot store; pass --skip-unsupported to leave it out",
                var.name
            ),
        ));
    }
    let units = var.attr_str("units");
    let mut time = Time::None;
    let mut warnings = Vec::new();
    let decode = match ty {
        SourceType::Char => {
            removed.push("_Encoding");
            Decode::Chars {
                width: joined,
                fills: string_fills(&fills_present),
            }
        }
        SourceType::Str => {
            removed.push("_Encoding");
            Decode::Strings {
                fills: string_fills(&fills_present),
            }
        }
        _ => {
            let mut read = ty;
            if let Some(flag) = var.attr_str("_Unsigned") {
                removed.push("_Unsigned");
                let signed = matches!(
                    ty,
                    SourceType::I8 | SourceType::I16 | SourceType::I32 | SourceType::I64
                );
                let unsigned = ty.is_int() && !signed;
                if (signed && flag == "true") || (unsigned && flag == "false") {
                    read = ty.flip_sign();
                }
            }
            let mut fills: Vec<f64> = fills_present
                .iter()
                .flat_map(|v| numbers(v, read))
                .filter(|f| !f.is_nan())
                .collect();
            fills.dedup();
            if fills.len() > 1 {
                let listed: Vec<String> = fills
                    .iter()
                    .map(|f| crate::pytext::float_repr(*f))
                    .collect();
                warnings.push(format!(
                    "variable {} has multiple fill values {{{}}} defined, decoding all values to NaN.",
                    crate::pytext::str_repr(&var.name),
                    listed.join(", ")
                ));
            }
            // A text fill on numbers (`missing_value = "-1.e+34f"`) is still
            // a fill to xarray: the array is promoted as for any fill, and
            // the text then equals no value.
            let text_fill = fills_present
                .iter()
                .any(|v| matches!(v, AttributeValue::Str(_) | AttributeValue::Strs(_)));
            let packed = PACK_KEYS.iter().any(|k| var.attr(k).is_some());
            let datetime_like = time_units.is_some();
            let timedelta_like = decode_times && units.is_some_and(cftime::is_timedelta_units);
            let numeric = if packed {
                removed.extend(PACK_KEYS);
                let scale = var.attr("scale_factor").map(scalar_and_type);
                let offset = var.attr("add_offset").map(scalar_and_type);
                let f32 = packed_is_f32(read, scale.map(|s| s.1), offset.map(|o| o.1)).map_err(
                    |why| unsupported(read.numpy_name(), format!("variable {:?}: {why}", var.name)),
                )?;
                Numeric::Float {
                    f32,
                    fills,
                    scale: scale.map(|s| s.0),
                    offset: offset.map(|o| o.0),
                }
            } else if !fills.is_empty() || text_fill {
                if (datetime_like || timedelta_like) && read.is_int() {
                    Numeric::Sentinel { fills }
                } else {
                    // numpy's promotion: small ints fit float32 exactly.
                    let f32 = read == SourceType::F32 || (read.is_int() && read.width() <= 2);
                    Numeric::Float {
                        f32,
                        fills,
                        scale: None,
                        offset: None,
                    }
                }
            } else {
                Numeric::Raw
            };
            if let Some(parsed) = time_units {
                removed.extend(["units", "calendar"]);
                let units = parsed.map_err(|e| match e {
                    TimeError::NeedsCftime(why) => {
                        unsupported("object", format!("variable {:?}: {why}", var.name))
                    }
                    // A refusal without real instants failed the file already.
                    TimeError::BadUnits(why) | TimeError::NoInstant(why) => {
                        unsupported(read.numpy_name(), format!("variable {:?}: {why}", var.name))
                    }
                })?;
                time = Time::Datetime(units);
            } else if decode_times
                && units.is_some_and(cftime::is_timedelta_units)
                && var
                    .attr_str("dtype")
                    .is_some_and(|d| d.starts_with("timedelta64"))
            {
                removed.extend(["units", "dtype"]);
                time = Time::Timedelta {
                    unit_ns: cftime::unit_ns(units.unwrap_or_default()).unwrap_or(1),
                };
            }
            Decode::Numbers {
                read,
                numeric,
                time,
            }
        }
    };
    let (dtype, fill, width) = match &decode {
        Decode::Chars { width, .. } => (
            DType::String,
            Some(FillValue::String(String::new())),
            width.unwrap_or(1) as u64,
        ),
        Decode::Strings { .. } => (DType::String, Some(FillValue::String(String::new())), 16),
        Decode::Numbers {
            read,
            numeric,
            time,
        } => match (time, numeric) {
            (Time::Datetime(_), _) => (DType::TimestampNs, Some(FillValue::TimestampNs(NAT)), 8),
            (Time::Timedelta { .. }, _) => (DType::Int64, Some(FillValue::Int(NAT)), 8),
            (Time::None, Numeric::Float { f32: true, .. }) => {
                (DType::Float32, Some(FillValue::Float(f64::NAN)), 4)
            }
            (Time::None, Numeric::Float { f32: false, .. }) => {
                (DType::Float64, Some(FillValue::Float(f64::NAN)), 8)
            }
            (Time::None, Numeric::Sentinel { .. }) => (DType::Int64, None, 8),
            (Time::None, Numeric::Raw) => {
                let fill = matches!(read, SourceType::F32 | SourceType::F64)
                    .then_some(FillValue::Float(f64::NAN));
                (read.dtype(), fill, read.width() as u64)
            }
        },
    };
    let mut attrs = Vec::new();
    let timedelta = matches!(time, Time::Timedelta { .. });
    if timedelta {
        attrs.push(("_pyatlas_timedelta".to_string(), Attr::String("ns".into())));
    }
    for (key, value) in &var.attrs {
        if !removed.contains(&key.as_str()) {
            attrs.push((key.clone(), attrs::convert(value)));
        }
    }
    let rank = dims.len();
    let chunking = var
        .chunking
        .as_ref()
        .map(|c| c.iter().take(rank).map(|&n| n as u64).collect());
    Ok(VariablePlan {
        name: var.name.clone(),
        dims: dims.iter().map(|(d, _)| d.clone()).collect(),
        shape: dims.iter().map(|(_, n)| *n as u64).collect(),
        dtype,
        fill,
        decode,
        attrs,
        chunking,
        width,
        warnings,
    })
}

fn string_fills(values: &[&AttributeValue]) -> Vec<String> {
    values
        .iter()
        .flat_map(|v| match v {
            AttributeValue::Str(s) => vec![s.clone()],
            AttributeValue::Strs(items) => items.clone(),
            _ => vec![],
        })
        .collect()
}

/// A fill attribute's numbers, reinterpreted like the data when `_Unsigned`
/// flipped the sign.
fn numbers(value: &AttributeValue, read: SourceType) -> Vec<f64> {
    use AttributeValue as V;
    let flip = |v: i64| -> f64 {
        match read {
            SourceType::U8 => v as u8 as f64,
            SourceType::U16 => v as u16 as f64,
            SourceType::U32 => v as u32 as f64,
            SourceType::I8 => v as i8 as f64,
            SourceType::I16 => v as i16 as f64,
            SourceType::I32 => v as i32 as f64,
            _ => v as f64,
        }
    };
    match value {
        V::Schar(v) => vec![flip(*v as i64)],
        V::Uchar(v) => vec![flip(*v as i64)],
        V::Short(v) => vec![flip(*v as i64)],
        V::Ushort(v) => vec![flip(*v as i64)],
        V::Int(v) => vec![flip(*v as i64)],
        V::Uint(v) => vec![flip(*v as i64)],
        V::Longlong(v) => vec![*v as f64],
        V::Ulonglong(v) => vec![*v as f64],
        V::Float(v) => vec![*v as f64],
        V::Double(v) => vec![*v],
        V::Schars(v) => v.iter().map(|x| flip(*x as i64)).collect(),
        V::Uchars(v) => v.iter().map(|x| flip(*x as i64)).collect(),
        V::Shorts(v) => v.iter().map(|x| flip(*x as i64)).collect(),
        V::Ushorts(v) => v.iter().map(|x| flip(*x as i64)).collect(),
        V::Ints(v) => v.iter().map(|x| flip(*x as i64)).collect(),
        V::Uints(v) => v.iter().map(|x| flip(*x as i64)).collect(),
        V::Longlongs(v) => v.iter().map(|x| *x as f64).collect(),
        V::Ulonglongs(v) => v.iter().map(|x| *x as f64).collect(),
        V::Floats(v) => v.iter().map(|x| *x as f64).collect(),
        V::Doubles(v) => v.clone(),
        V::Str(_) | V::Strs(_) => vec![],
    }
}

/// The kind of a packing attribute's type, as numpy sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
enum PackType {
    F32,
    F64,
    Int,
}

fn scalar_and_type(value: &AttributeValue) -> (f64, PackType) {
    use AttributeValue as V;
    match value {
        V::Float(v) => (*v as f64, PackType::F32),
        V::Floats(v) if !v.is_empty() => (v[0] as f64, PackType::F32),
        V::Double(v) => (*v, PackType::F64),
        V::Doubles(v) if !v.is_empty() => (v[0], PackType::F64),
        other => (
            numbers(other, SourceType::I64)
                .first()
                .copied()
                .unwrap_or(f64::NAN),
            PackType::Int,
        ),
    }
}

/// xarray's `_choose_float_dtype` for packed data: `Ok(true)` for float32.
fn packed_is_f32(
    read: SourceType,
    scale: Option<PackType>,
    offset: Option<PackType>,
) -> Result<bool, String> {
    let kind = match (scale, offset) {
        (Some(s), Some(o)) if s == o && s != PackType::Int => {
            if read.is_int() && read.width() == 4 {
                return Ok(false);
            }
            s
        }
        (_, Some(_)) => return Ok(false),
        (Some(s), None) => s,
        (None, None) => unreachable!("called for packed variables only"),
    };
    match kind {
        PackType::F32 => Ok(true),
        PackType::F64 => Ok(false),
        PackType::Int => Err(
            "an integer scale_factor unpacks to integers, which this reader does not reproduce"
                .into(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use AttributeValue as V;

    fn var(
        name: &str,
        ty: SourceType,
        dims: &[(&str, usize)],
        attrs: Vec<(&str, V)>,
    ) -> RawVariable {
        RawVariable {
            name: name.into(),
            ty: Ok(ty),
            dims: dims.iter().map(|(d, n)| (d.to_string(), *n)).collect(),
            attrs: attrs.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
            chunking: None,
        }
    }

    fn one(v: RawVariable) -> VariablePlan {
        plan_dataset(&[v], &[], true, false)
            .unwrap()
            .variables
            .remove(0)
            .unwrap()
    }

    #[test]
    fn masked_small_ints_become_float32_nan() {
        let p = one(var(
            "p",
            SourceType::I16,
            &[("x", 3)],
            vec![
                ("_FillValue", V::Short(-32767)),
                ("units", V::Str("mm".into())),
            ],
        ));
        assert_eq!(p.dtype, DType::Float32);
        assert_eq!(p.fill, Some(FillValue::Float(f64::NAN)));
        assert_eq!(
            p.attrs,
            vec![("units".to_string(), Attr::String("mm".into()))]
        );
        let p = one(var(
            "p",
            SourceType::I32,
            &[("x", 3)],
            vec![("missing_value", V::Int(-1))],
        ));
        assert_eq!(p.dtype, DType::Float64);
        let p = one(var("p", SourceType::I32, &[("x", 3)], vec![]));
        assert_eq!((p.dtype, p.fill), (DType::Int32, None));
    }

    #[test]
    fn packing_picks_xarrays_float() {
        let packed = |ty, attrs| match one(var("v", ty, &[("x", 1)], attrs)).decode {
            Decode::Numbers {
                numeric: Numeric::Float { f32, .. },
                ..
            } => f32,
            other => panic!("{other:?}"),
        };
        assert!(packed(
            SourceType::I16,
            vec![
                ("scale_factor", V::Float(0.01)),
                ("add_offset", V::Float(273.15))
            ]
        ));
        assert!(!packed(
            SourceType::I32,
            vec![
                ("scale_factor", V::Float(0.01)),
                ("add_offset", V::Float(1.0))
            ]
        ));
        assert!(!packed(
            SourceType::I16,
            vec![("scale_factor", V::Double(0.01))]
        ));
        assert!(!packed(
            SourceType::I16,
            vec![
                ("scale_factor", V::Float(0.01)),
                ("add_offset", V::Double(1.0))
            ]
        ));
    }

    #[test]
    fn unsigned_flag_flips_the_sign_and_the_fill() {
        let p = one(var(
            "b",
            SourceType::I8,
            &[("x", 2)],
            vec![
                ("_Unsigned", V::Str("true".into())),
                ("_FillValue", V::Schar(-1)),
            ],
        ));
        match p.decode {
            Decode::Numbers {
                read,
                numeric: Numeric::Float {
                    fills, f32: true, ..
                },
                ..
            } => {
                assert_eq!(read, SourceType::U8);
                assert_eq!(fills, vec![255.0]);
            }
            other => panic!("{other:?}"),
        }
        assert!(p.attrs.is_empty());
    }

    #[test]
    fn times_decode_and_lose_their_units() {
        let p = one(var(
            "time",
            SourceType::F64,
            &[("time", 2)],
            vec![
                ("units", V::Str("days since 1950-01-01".into())),
                ("calendar", V::Str("standard".into())),
                ("axis", V::Str("T".into())),
            ],
        ));
        assert_eq!(
            (p.dtype, p.fill.clone()),
            (DType::TimestampNs, Some(FillValue::TimestampNs(NAT)))
        );
        assert_eq!(
            p.attrs,
            vec![("axis".to_string(), Attr::String("T".into()))]
        );
        let raw = var(
            "t",
            SourceType::I32,
            &[("t", 2)],
            vec![
                ("units", V::Str("days since 1950-01-01".into())),
                ("calendar", V::Str("noleap".into())),
            ],
        );
        let err = plan_dataset(std::slice::from_ref(&raw), &[], true, false)
            .unwrap()
            .variables
            .remove(0)
            .unwrap_err();
        assert_eq!(err.dtype, "object");
        let kept = plan_dataset(&[raw], &[], false, false)
            .unwrap()
            .variables
            .remove(0)
            .unwrap();
        assert_eq!(kept.dtype, DType::Int32);
        let td = one(var(
            "d",
            SourceType::I64,
            &[("x", 1)],
            vec![
                ("units", V::Str("seconds".into())),
                ("dtype", V::Str("timedelta64[ns]".into())),
            ],
        ));
        assert_eq!(td.dtype, DType::Int64);
        assert_eq!(
            td.attrs,
            vec![("_pyatlas_timedelta".to_string(), Attr::String("ns".into()))]
        );
        // Duration units alone mask to NaT but do not decode.
        let masked = one(var(
            "d",
            SourceType::I32,
            &[("x", 1)],
            vec![
                ("units", V::Str("seconds".into())),
                ("_FillValue", V::Int(-1)),
            ],
        ));
        assert!(matches!(
            masked.decode,
            Decode::Numbers {
                numeric: Numeric::Sentinel { .. },
                time: Time::None,
                ..
            }
        ));
    }

    #[test]
    fn char_arrays_join_their_last_dimension_and_coords_come_first() {
        let vars = [
            var(
                "PRES",
                SourceType::F32,
                &[("N_PROF", 1), ("N_LEVELS", 4)],
                vec![("coordinates", V::Str("LATITUDE".into()))],
            ),
            var(
                "PLATFORM",
                SourceType::Char,
                &[("N_PROF", 1), ("STRING8", 8)],
                vec![],
            ),
            var("MODE", SourceType::Char, &[("N_PROF", 1)], vec![]),
            var("LATITUDE", SourceType::F64, &[("N_PROF", 1)], vec![]),
            var(
                "flag",
                SourceType::I8,
                &[("N_PROF", 1)],
                vec![("dtype", V::Str("bool".into()))],
            ),
        ];
        let plan =
            plan_dataset(&vars, &[("title".into(), V::Str("t".into()))], true, false).unwrap();
        assert_eq!(plan.coords, vec!["LATITUDE"]);
        let names: Vec<String> = plan
            .variables
            .iter()
            .map(|v| match v {
                Ok(p) => p.name.clone(),
                Err(u) => format!("!{}", u.array),
            })
            .collect();
        assert_eq!(names, ["LATITUDE", "PRES", "PLATFORM", "MODE", "!flag"]);
        let platform = plan.variables[2].as_ref().unwrap();
        assert_eq!(
            (platform.dims.clone(), platform.decode.clone()),
            (
                vec!["N_PROF".to_string()],
                Decode::Chars {
                    width: Some(8),
                    fills: vec![]
                }
            )
        );
        // Numbers use N_PROF too, so MODE keeps it: one character per cell.
        let mode = plan.variables[3].as_ref().unwrap();
        assert_eq!(
            mode.decode,
            Decode::Chars {
                width: None,
                fills: vec![]
            }
        );
    }

    #[test]
    fn types_atlas_cannot_store_are_named() {
        let mut v = var("c", SourceType::I8, &[("x", 1)], vec![]);
        v.ty = Err("compound".into());
        let plan = plan_dataset(&[v], &[], true, false).unwrap();
        let err = plan.variables[0].as_ref().unwrap_err();
        assert_eq!((err.array.as_str(), err.dtype.as_str()), ("c", "compound"));
        assert!(err.reason.contains("--skip-unsupported"), "{}", err.reason);
        let bad = var("x", SourceType::F32, &[("x", 2), ("y", 2)], vec![]);
        assert!(
            plan_dataset(&[bad], &[], true, false).is_err(),
            "named after a dimension, yet 2-D"
        );
    }
}
