//! The NetCDF side: one thread owns every libnetcdf call (HDF5 keeps
//! per-thread state, such as whether it prints its error stack, and the
//! `netcdf` crate serialises calls behind one lock anyway), and workers send
//! it requests: open a file, describe it, read one box of raw values. The
//! workers then decode the box themselves, so only the libnetcdf reads
//! themselves run one at a time.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver, Sender};

use netcdf::types::{FloatType, IntType, NcVariableType};
use netcdf::{AttributeValue, Extent, Variable};

use crate::ingest::cftime::{self, NAT};
use crate::ingest::enums;
use crate::ingest::plan::{Decode, Numeric, RawVariable, SourceType, Time, VariablePlan};
use crate::nd::c_order;

type Reply<T> = Sender<Result<T, String>>;
type Answer<T> = Receiver<Result<T, String>>;

fn stopped() -> String {
    "the NetCDF thread stopped".to_string()
}
type Described = (Vec<RawVariable>, Vec<(String, AttributeValue)>);

enum Request {
    Open(PathBuf, Reply<u64>),
    Describe(u64, Reply<Described>),
    Read {
        file: u64,
        variable: String,
        decode: Decode,
        start: Vec<u64>,
        count: Vec<u64>,
        /// Read a row at a time (the variable repeats a dimension).
        by_rows: bool,
        reply: Reply<Raw>,
    },
    Close(u64),
}

/// A box as libnetcdf returned it.
pub(crate) enum Raw {
    /// Native-endian numbers, or one byte per character.
    Bytes(Vec<u8>),
    Strings(Vec<String>),
}

/// The handle workers share; the thread ends when every clone is dropped.
#[derive(Clone)]
pub(crate) struct NetcdfThread {
    requests: Sender<Request>,
}

impl NetcdfThread {
    pub(crate) fn spawn() -> NetcdfThread {
        let (requests, incoming) = channel::<Request>();
        std::thread::Builder::new()
            .name("atlas-netcdf".into())
            .spawn(move || {
                quiet_hdf5_errors();
                let mut files: HashMap<u64, netcdf::File> = HashMap::new();
                let mut paths: HashMap<u64, PathBuf> = HashMap::new();
                let mut next = 0u64;
                for request in incoming {
                    match request {
                        Request::Open(path, reply) => {
                            let opened = netcdf::open(&path)
                                .map_err(|e| format!("not a readable NetCDF file: {e}"))
                                .map(|file| {
                                    next += 1;
                                    files.insert(next, file);
                                    paths.insert(next, path.clone());
                                    next
                                });
                            let _ = reply.send(opened);
                        }
                        Request::Describe(id, reply) => {
                            let path = paths.get(&id).cloned().unwrap_or_default();
                            let _ = reply.send(with_file(&files, id, |f| describe_file(f, &path)));
                        }
                        Request::Read {
                            file,
                            variable,
                            decode,
                            start,
                            count,
                            by_rows,
                            reply,
                        } => {
                            let _ = reply.send(with_file(&files, file, |f| {
                                read_raw(f, &variable, &decode, &start, &count, by_rows)
                            }));
                        }
                        Request::Close(id) => {
                            files.remove(&id);
                            paths.remove(&id);
                        }
                    }
                }
            })
            .expect("spawning the NetCDF thread");
        NetcdfThread { requests }
    }

    /// Sends a request; the answer arrives on the returned channel.
    fn send<T>(&self, request: impl FnOnce(Reply<T>) -> Request) -> Result<Answer<T>, String> {
        let (reply, answer) = channel();
        self.requests.send(request(reply)).map_err(|_| stopped())?;
        Ok(answer)
    }

    /// Sends a request and waits for its answer.
    fn ask<T>(&self, request: impl FnOnce(Reply<T>) -> Request) -> Result<T, String> {
        self.send(request)?.recv().map_err(|_| stopped())?
    }

    pub(crate) fn open(&self, path: &Path) -> Result<NcFile, String> {
        let id = self.ask(|reply| Request::Open(path.to_path_buf(), reply))?;
        Ok(NcFile {
            id,
            thread: self.clone(),
        })
    }
}

/// HDF5 prints its error stack for every failure on a thread that has not
/// said otherwise, including the lookups libnetcdf expects to fail (such
/// as `_QuantizeBitGroomNumberOfSignificantDigits` on every NetCDF-4 open):
/// tens of thousands of lines in a test log. libnetcdf silences it on the
/// thread that first opened a file; each NetCDF thread here is a new one.
/// Failures still reach us as libnetcdf's status codes.
fn quiet_hdf5_errors() {
    let _guard = netcdf_sys::libnetcdf_lock.lock();
    // SAFETY: no handler and no client data is HDF5's documented way to
    // turn automatic printing off for the calling thread's default stack.
    unsafe {
        hdf5_sys::h5e::H5Eset_auto2(hdf5_sys::h5e::H5E_DEFAULT, None, std::ptr::null_mut());
    }
}

fn with_file<T>(
    files: &HashMap<u64, netcdf::File>,
    id: u64,
    run: impl FnOnce(&netcdf::File) -> Result<T, String>,
) -> Result<T, String> {
    run(files.get(&id).ok_or("the file was closed")?)
}

/// An open NetCDF file, owned by the NetCDF thread; closed when dropped.
pub(crate) struct NcFile {
    id: u64,
    thread: NetcdfThread,
}

impl Drop for NcFile {
    fn drop(&mut self) {
        let _ = self.thread.requests.send(Request::Close(self.id));
    }
}

impl NcFile {
    /// The root group's variables and global attributes, in file order.
    pub(crate) fn describe(&self) -> Result<Described, String> {
        self.thread.ask(|reply| Request::Describe(self.id, reply))
    }

    /// Asks for the box `start`/`count` (over the decoded dimensions) of a
    /// planned variable; the NetCDF thread reads it while the caller goes on.
    pub(crate) fn request(
        &self,
        plan: &VariablePlan,
        start: &[u64],
        count: &[u64],
    ) -> Result<PendingBox, String> {
        let answer = self.thread.send(|reply| Request::Read {
            file: self.id,
            variable: plan.name.clone(),
            decode: plan.decode.clone(),
            start: start.to_vec(),
            count: count.to_vec(),
            by_rows: plan
                .dims
                .iter()
                .enumerate()
                .any(|(i, d)| plan.dims[..i].contains(d)),
            reply,
        })?;
        Ok(PendingBox {
            answer,
            cells: count.iter().map(|&c| c as usize).product(),
        })
    }
}

/// A box being read.
pub(crate) struct PendingBox {
    answer: Answer<Raw>,
    cells: usize,
}

impl PendingBox {
    /// Waits for the raw values and decodes them on the calling thread.
    pub(crate) fn decode(self, plan: &VariablePlan) -> Result<Decoded, String> {
        let raw = self.answer.recv().map_err(|_| stopped())??;
        let n = self.cells;
        match (&plan.decode, raw) {
            (Decode::Chars { width, fills }, Raw::Bytes(bytes)) => {
                Ok(strings_from_chars(&bytes, width.unwrap_or(1), n, fills))
            }
            (Decode::Strings { fills }, Raw::Strings(items)) => {
                let mut filled = 0;
                let items = items
                    .into_iter()
                    .map(|s| {
                        if fills.contains(&s) {
                            filled += 1;
                            Vec::new()
                        } else {
                            s.into_bytes()
                        }
                    })
                    .collect();
                Ok(Decoded::Strings(items, filled))
            }
            (
                Decode::Numbers {
                    read,
                    numeric,
                    time,
                },
                Raw::Bytes(bytes),
            ) => convert(bytes, *read, numeric, time)
                .map(Decoded::Fixed)
                .map_err(|why| format!("variable {:?}: {why}", plan.name)),
            _ => Err(format!(
                "variable {:?}: libnetcdf answered another kind of values",
                plan.name
            )),
        }
    }
}

/// Attribute names and values, in file order; `owner` names the variable
/// in an error (empty for global attributes).
fn read_attributes<'a>(
    attributes: impl Iterator<Item = netcdf::Attribute<'a>>,
    owner: &str,
) -> Result<Vec<(String, AttributeValue)>, String> {
    attributes
        .map(|a| {
            let value = a
                .value()
                .map_err(|e| format!("attribute {owner}:{}: {e}", a.name()))?;
            Ok((a.name().to_string(), value))
        })
        .collect()
}

fn describe_file(file: &netcdf::File, path: &Path) -> Result<Described, String> {
    let globals = read_attributes(file.attributes(), "")?;
    let variables = file
        .variables()
        .map(|v| describe(&v, path))
        .collect::<Result<_, String>>()?;
    Ok((variables, globals))
}

/// One box of raw values: bytes in the file's type (characters with their
/// joined dimension), or NC_STRING cells one by one; `by_rows` reads it one
/// leading index at a time.
fn read_raw(
    file: &netcdf::File,
    name: &str,
    decode: &Decode,
    start: &[u64],
    count: &[u64],
    by_rows: bool,
) -> Result<Raw, String> {
    let var = file
        .variable(name)
        .ok_or_else(|| format!("variable {name:?} vanished from the file"))?;
    let failed = |e: netcdf::Error| format!("reading {name:?}: {e}");
    let mut extents: Vec<Extent> = start
        .iter()
        .zip(count)
        .map(|(&s, &c)| Extent::SliceCount {
            start: s as usize,
            count: c as usize,
            stride: 1,
        })
        .collect();
    let n: usize = count.iter().map(|&c| c as usize).product();
    let width = match decode {
        Decode::Strings { .. } => {
            let mut out = Vec::with_capacity(n);
            for index in box_indices(start, count) {
                out.push(var.get_string(index.as_slice()).map_err(failed)?);
            }
            return Ok(Raw::Strings(out));
        }
        Decode::Chars { width: Some(w), .. } => {
            extents.push(Extent::SliceCount {
                start: 0,
                count: *w,
                stride: 1,
            });
            *w
        }
        Decode::Chars { width: None, .. } => 1,
        Decode::Numbers { read, .. } => read.width(),
    };
    let mut raw = vec![0u8; n * width];
    if raw.is_empty() {
        return Ok(Raw::Bytes(raw));
    }
    if !by_rows {
        var.get_raw_values_into(&mut raw, extents).map_err(failed)?;
        return Ok(Raw::Bytes(raw));
    }
    // A variable over one dimension twice (`temp(time, time)`): libnetcdf
    // answers a hyperslab over both with cells of another row, or
    // uninitialised ones (atlas-python stored such bytes), and a row at a
    // time with what ncdump prints.
    let row = raw.len() / count[0].max(1) as usize;
    for (i, out) in raw.chunks_mut(row).enumerate() {
        let mut one = extents.clone();
        one[0] = Extent::SliceCount {
            start: start[0] as usize + i,
            count: 1,
            stride: 1,
        };
        var.get_raw_values_into(out, one).map_err(failed)?;
    }
    Ok(Raw::Bytes(raw))
}

fn describe(v: &Variable<'_>, path: &Path) -> Result<RawVariable, String> {
    let name = v.name();
    let vartype = v.vartype();
    let ty = match &vartype {
        NcVariableType::Int(IntType::I8) => Ok(SourceType::I8),
        NcVariableType::Int(IntType::I16) => Ok(SourceType::I16),
        NcVariableType::Int(IntType::I32) => Ok(SourceType::I32),
        NcVariableType::Int(IntType::I64) => Ok(SourceType::I64),
        NcVariableType::Int(IntType::U8) => Ok(SourceType::U8),
        NcVariableType::Int(IntType::U16) => Ok(SourceType::U16),
        NcVariableType::Int(IntType::U32) => Ok(SourceType::U32),
        NcVariableType::Int(IntType::U64) => Ok(SourceType::U64),
        NcVariableType::Float(FloatType::F32) => Ok(SourceType::F32),
        NcVariableType::Float(FloatType::F64) => Ok(SourceType::F64),
        NcVariableType::Char => Ok(SourceType::Char),
        NcVariableType::String => Ok(SourceType::Str),
        NcVariableType::Compound(_) => Err("compound".to_string()),
        NcVariableType::Opaque(_) => Err("opaque".to_string()),
        NcVariableType::Enum(e) => Ok(enums::base_type(&e.fieldvalues)),
        NcVariableType::Vlen(_) => Err("vlen".to_string()),
    };
    let attrs = match &vartype {
        // Its own attributes (a fill) are of the enum type.
        NcVariableType::Enum(e) => {
            let base = enums::base_type(&e.fieldvalues);
            v.attributes()
                .map(|a| match a.value() {
                    Ok(value) => Ok((a.name().to_string(), value)),
                    Err(netcdf::Error::TypeUnknown(_)) => {
                        enums::enum_attribute(path, &name, a.name(), base)
                            .map(|value| (a.name().to_string(), value))
                    }
                    Err(e) => Err(format!("attribute {name}:{}: {e}", a.name())),
                })
                .collect::<Result<Vec<_>, String>>()?
        }
        _ => read_attributes(v.attributes(), &name)?,
    };
    Ok(RawVariable {
        ty,
        dims: v.dimensions().iter().map(|d| (d.name(), d.len())).collect(),
        attrs,
        chunking: v.chunking().ok().flatten(),
        name,
    })
}

/// Every index of a box, in C order.
fn box_indices<'a>(start: &'a [u64], count: &[u64]) -> impl Iterator<Item = Vec<usize>> + 'a {
    c_order(count).map(move |offset| {
        offset
            .iter()
            .zip(start)
            .map(|(&o, &s)| (s + o) as usize)
            .collect()
    })
}

/// numpy's fixed-width bytes: trailing NULs dropped. Invalid UTF-8 is
/// replaced, as atlas-python's sanitising does.
fn strings_from_chars(raw: &[u8], width: usize, n: usize, fills: &[String]) -> Decoded {
    let mut filled = 0;
    let out = (0..n)
        .map(|i| {
            // A zero-width character dimension gives empty strings.
            let cell = raw.get(i * width..(i + 1) * width).unwrap_or_default();
            let end = cell.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1);
            let text = String::from_utf8_lossy(&cell[..end]).into_owned();
            if fills.contains(&text) {
                filled += 1;
                Vec::new()
            } else {
                text.into_bytes()
            }
        })
        .collect();
    Decoded::Strings(out, filled)
}

/// One box of values, decoded and owned.
pub(crate) enum Decoded {
    /// Little-endian bytes of the stored type.
    Fixed(Vec<u8>),
    /// UTF-8 bytes, one per cell, and how many cells were missing (a fill)
    /// and became the empty string.
    Strings(Vec<Vec<u8>>, usize),
}

/// One element type of the file, read from native-endian bytes.
trait Element: Copy {
    const WIDTH: usize;
    fn read(bytes: &[u8]) -> Self;
    fn to_f64(self) -> f64;
    fn to_f32(self) -> f32;
    /// Exact integer value, for integer types.
    fn to_i64(self) -> Option<i64>;
    fn put(self, out: &mut Vec<u8>);
}

macro_rules! element {
    ($ty:ty, $int:expr) => {
        impl Element for $ty {
            const WIDTH: usize = std::mem::size_of::<$ty>();
            fn read(bytes: &[u8]) -> Self {
                <$ty>::from_ne_bytes(bytes.try_into().expect("width checked"))
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn to_f32(self) -> f32 {
                self as f32
            }
            fn to_i64(self) -> Option<i64> {
                if $int {
                    i64::try_from(self as i128).ok()
                } else {
                    None
                }
            }
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
        }
    };
}

element!(i8, true);
element!(i16, true);
element!(i32, true);
element!(i64, true);
element!(u8, true);
element!(u16, true);
element!(u32, true);
element!(u64, true);
element!(f32, false);
element!(f64, false);

fn convert(
    raw: Vec<u8>,
    read: SourceType,
    numeric: &Numeric,
    time: &Time,
) -> Result<Vec<u8>, String> {
    // Stored as read: libnetcdf's buffer already holds the chunk's bytes.
    if cfg!(target_endian = "little") && *numeric == Numeric::Raw && *time == Time::None {
        return Ok(raw);
    }
    let raw = raw.as_slice();
    match read {
        SourceType::I8 => convert_as::<i8>(raw, numeric, time),
        SourceType::I16 => convert_as::<i16>(raw, numeric, time),
        SourceType::I32 => convert_as::<i32>(raw, numeric, time),
        SourceType::I64 => convert_as::<i64>(raw, numeric, time),
        SourceType::U8 => convert_as::<u8>(raw, numeric, time),
        SourceType::U16 => convert_as::<u16>(raw, numeric, time),
        SourceType::U32 => convert_as::<u32>(raw, numeric, time),
        SourceType::U64 => convert_as::<u64>(raw, numeric, time),
        SourceType::F32 => convert_as::<f32>(raw, numeric, time),
        SourceType::F64 => convert_as::<f64>(raw, numeric, time),
        SourceType::Char | SourceType::Str => Err("not a numeric variable".into()),
    }
}

/// The numbers of one box, decoded as xarray does, as little-endian bytes
/// of the stored type.
fn convert_as<T: Element>(raw: &[u8], numeric: &Numeric, time: &Time) -> Result<Vec<u8>, String> {
    let values = raw.chunks_exact(T::WIDTH).map(T::read);
    let out_width = match (numeric, time) {
        (_, Time::Datetime(_) | Time::Timedelta { .. }) => 8,
        (Numeric::Float { f32: true, .. }, _) => 4,
        (Numeric::Float { f32: false, .. } | Numeric::Sentinel { .. }, _) => 8,
        (Numeric::Raw, _) => T::WIDTH,
    };
    let mut out = Vec::with_capacity(raw.len() / T::WIDTH * out_width);
    let out_of_range = || {
        "a time value lies outside the nanosecond range (1677-2262) and would decode to cftime objects, which atlas cannot store; pass --no-decode-times".to_string()
    };
    match numeric {
        Numeric::Raw => match time {
            Time::None => out.extend_from_slice(raw_le::<T>(raw).as_ref()),
            Time::Datetime(units) => {
                for v in values {
                    let ns = match v.to_i64() {
                        Some(i) => units.count_to_ns(i),
                        None => units.float_count_to_ns(v.to_f64()),
                    };
                    out.extend_from_slice(&ns.ok_or_else(out_of_range)?.to_le_bytes());
                }
            }
            Time::Timedelta { unit_ns } => {
                for v in values {
                    let ns = match v.to_i64() {
                        Some(i) => cftime::timedelta_from_int(i, *unit_ns),
                        None => cftime::timedelta_from_float(v.to_f64(), *unit_ns),
                    };
                    out.extend_from_slice(&ns.ok_or_else(out_of_range)?.to_le_bytes());
                }
            }
        },
        Numeric::Sentinel { fills } => {
            for v in values {
                let i = v.to_i64().unwrap_or(NAT);
                let i = if fills.contains(&(i as f64)) { NAT } else { i };
                let ns = match time {
                    Time::None => Some(i),
                    Time::Datetime(units) => units.count_to_ns(i),
                    Time::Timedelta { unit_ns } => cftime::timedelta_from_int(i, *unit_ns),
                };
                out.extend_from_slice(&ns.ok_or_else(out_of_range)?.to_le_bytes());
            }
        }
        Numeric::Float {
            f32: true,
            fills,
            scale,
            offset,
        } => {
            let (scale, offset) = (scale.map(|s| s as f32), offset.map(|o| o as f32));
            for v in values {
                let mut y = v.to_f32();
                if fills.contains(&(y as f64)) {
                    y = f32::NAN;
                }
                if let Some(s) = scale {
                    y *= s;
                }
                if let Some(o) = offset {
                    y += o;
                }
                put_float(y as f64, Some(y), time, &mut out).ok_or_else(out_of_range)?;
            }
        }
        Numeric::Float {
            f32: false,
            fills,
            scale,
            offset,
        } => {
            for v in values {
                let mut y = v.to_f64();
                if fills.contains(&y) {
                    y = f64::NAN;
                }
                if let Some(s) = scale {
                    y *= s;
                }
                if let Some(o) = offset {
                    y += o;
                }
                put_float(y, None, time, &mut out).ok_or_else(out_of_range)?;
            }
        }
    }
    Ok(out)
}

/// Writes a decoded float: as itself (`f32` when given), or as a time.
fn put_float(y: f64, as_f32: Option<f32>, time: &Time, out: &mut Vec<u8>) -> Option<()> {
    match time {
        Time::None => match as_f32 {
            Some(y) => out.extend_from_slice(&y.to_le_bytes()),
            None => out.extend_from_slice(&y.to_le_bytes()),
        },
        Time::Datetime(units) => out.extend_from_slice(&units.float_count_to_ns(y)?.to_le_bytes()),
        Time::Timedelta { unit_ns } => {
            out.extend_from_slice(&cftime::timedelta_from_float(y, *unit_ns)?.to_le_bytes())
        }
    }
    Some(())
}

/// libnetcdf answers in native byte order; the writer wants little-endian.
fn raw_le<T: Element>(raw: &[u8]) -> Cow<'_, [u8]> {
    if cfg!(target_endian = "little") {
        return Cow::Borrowed(raw);
    }
    let mut out = Vec::with_capacity(raw.len());
    for v in raw.chunks_exact(T::WIDTH).map(T::read) {
        v.put(&mut out);
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::cftime::datetime_units;

    fn strings(d: Decoded) -> Vec<String> {
        match d {
            Decoded::Strings(items, _) => items
                .into_iter()
                .map(|b| String::from_utf8(b).unwrap())
                .collect(),
            Decoded::Fixed(_) => panic!("fixed"),
        }
    }

    #[test]
    fn characters_become_strings_without_trailing_nuls() {
        let raw = b"ab\0\0 \0\0\0cdef";
        let fills = vec![" ".to_string()];
        assert_eq!(
            strings(strings_from_chars(raw, 4, 3, &fills)),
            ["ab", "", "cdef"]
        );
        // A zero-width character dimension: empty strings, no panic.
        assert_eq!(strings(strings_from_chars(b"", 0, 2, &[])), ["", ""]);
    }

    #[test]
    fn numbers_decode_in_xarrays_order_and_precision() {
        let i16s: Vec<u8> = [100i16, -32767, 7]
            .iter()
            .flat_map(|v| v.to_ne_bytes())
            .collect();
        let packed = Numeric::Float {
            f32: true,
            fills: vec![-32767.0],
            scale: Some(0.01),
            offset: Some(273.15),
        };
        let out = convert(i16s.clone(), SourceType::I16, &packed, &Time::None).unwrap();
        let got: Vec<f32> = out
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
            .collect();
        // float32 arithmetic, mask first: 100 * 0.01f32 + 273.15f32.
        assert_eq!(got[0], 100f32 * 0.01f32 + 273.15f32);
        assert!(got[1].is_nan());
        let days = datetime_units("days since 1970-01-01", None, false).unwrap();
        let sentinel = Numeric::Sentinel { fills: vec![7.0] };
        let out = convert(i16s, SourceType::I16, &sentinel, &Time::Datetime(days)).unwrap();
        let got: Vec<i64> = out
            .chunks_exact(8)
            .map(|b| i64::from_le_bytes(b.try_into().unwrap()))
            .collect();
        assert_eq!(
            got,
            [100 * 86_400_000_000_000, -32767 * 86_400_000_000_000, NAT]
        );
        let far = datetime_units("days since 2200-01-01", None, false).unwrap();
        let err = convert(
            100_000i32.to_ne_bytes().to_vec(),
            SourceType::I32,
            &Numeric::Raw,
            &Time::Datetime(far),
        )
        .unwrap_err();
        assert!(err.contains("--no-decode-times"), "{err}");
    }
}
