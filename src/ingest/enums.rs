//! NetCDF-4 enum variables, as netCDF4-python hands them to xarray: plain
//! integers of the enum's base type (xarray then masks and promotes them
//! like any integer). The `netcdf` crate reads enum data as raw bytes but
//! not an attribute of enum type (a `_FillValue`, typically), so those are
//! read here through libnetcdf itself, as the base type.

use std::ffi::{c_int, c_void, CString};
use std::path::Path;

use netcdf::types::EnumTypeValues;
use netcdf::AttributeValue;
use netcdf_sys::{
    nc_close, nc_get_att, nc_inq_att, nc_inq_varid, nc_open, nc_type, NC_NOERR, NC_NOWRITE,
};

use crate::ingest::plan::SourceType;

/// More elements than any fill or range attribute holds; bounds what a
/// hostile file's attribute length can make us allocate.
const MAX_ELEMENTS: usize = 1 << 16;

/// The integer type an enum is stored as.
pub(crate) fn base_type(values: &EnumTypeValues) -> SourceType {
    match values {
        EnumTypeValues::I8(_) => SourceType::I8,
        EnumTypeValues::U8(_) => SourceType::U8,
        EnumTypeValues::I16(_) => SourceType::I16,
        EnumTypeValues::U16(_) => SourceType::U16,
        EnumTypeValues::I32(_) => SourceType::I32,
        EnumTypeValues::U32(_) => SourceType::U32,
        EnumTypeValues::I64(_) => SourceType::I64,
        EnumTypeValues::U64(_) => SourceType::U64,
    }
}

/// Attribute `attribute` of root-group variable `variable`, whose type is an
/// enum over `base`, as the base type's numbers.
pub(crate) fn enum_attribute(
    path: &Path,
    variable: &str,
    attribute: &str,
    base: SourceType,
) -> Result<AttributeValue, String> {
    let failed = |what: &str, status: c_int| {
        format!("attribute {variable}:{attribute} of enum type: {what} failed (libnetcdf status {status})")
    };
    let text = |s: &str| CString::new(s).map_err(|_| format!("{s:?} holds a NUL byte"));
    let (c_path, c_var, c_att) = (
        text(&path.to_string_lossy())?,
        text(variable)?,
        text(attribute)?,
    );
    let _guard = netcdf_sys::libnetcdf_lock.lock();
    let mut ncid: c_int = 0;
    // SAFETY: the pointers are valid NUL-terminated strings and a live
    // c_int; libnetcdf is called under the lock the netcdf crate uses.
    let status = unsafe { nc_open(c_path.as_ptr(), NC_NOWRITE, &mut ncid) };
    if status != NC_NOERR {
        return Err(failed("opening the file again", status));
    }
    let read = (|| {
        let mut varid: c_int = 0;
        // SAFETY: as above; ncid is open.
        let status = unsafe { nc_inq_varid(ncid, c_var.as_ptr(), &mut varid) };
        if status != NC_NOERR {
            return Err(failed("finding the variable", status));
        }
        let (mut xtype, mut len): (nc_type, usize) = (0, 0);
        // SAFETY: as above.
        let status = unsafe { nc_inq_att(ncid, varid, c_att.as_ptr(), &mut xtype, &mut len) };
        if status != NC_NOERR {
            return Err(failed("finding the attribute", status));
        }
        if len > MAX_ELEMENTS {
            return Err(format!(
                "attribute {variable}:{attribute} holds {len} elements, more than {MAX_ELEMENTS}"
            ));
        }
        let mut bytes = vec![0u8; len * base.width()];
        if len > 0 {
            // SAFETY: an enum attribute's elements are its base type's, so
            // `len` of them fill `bytes` exactly.
            let status = unsafe {
                nc_get_att(
                    ncid,
                    varid,
                    c_att.as_ptr(),
                    bytes.as_mut_ptr().cast::<c_void>(),
                )
            };
            if status != NC_NOERR {
                return Err(failed("reading the attribute", status));
            }
        }
        Ok(bytes)
    })();
    // SAFETY: ncid is open and closed once.
    unsafe { nc_close(ncid) };
    Ok(as_numbers(&read?, base))
}

/// Native-endian elements of `base` as netCDF4-python returns them: one
/// value bare, several as a list.
fn as_numbers(bytes: &[u8], base: SourceType) -> AttributeValue {
    use AttributeValue as V;
    macro_rules! numbers {
        ($t:ty, $one:ident, $many:ident) => {{
            let items: Vec<$t> = bytes
                .chunks_exact(std::mem::size_of::<$t>())
                .map(|c| <$t>::from_ne_bytes(c.try_into().expect("chunks of the width")))
                .collect();
            match items.as_slice() {
                [one] => V::$one(*one),
                _ => V::$many(items),
            }
        }};
    }
    match base {
        SourceType::I8 => numbers!(i8, Schar, Schars),
        SourceType::U8 => numbers!(u8, Uchar, Uchars),
        SourceType::I16 => numbers!(i16, Short, Shorts),
        SourceType::U16 => numbers!(u16, Ushort, Ushorts),
        SourceType::I32 => numbers!(i32, Int, Ints),
        SourceType::U32 => numbers!(u32, Uint, Uints),
        SourceType::I64 => numbers!(i64, Longlong, Longlongs),
        _ => numbers!(u64, Ulonglong, Ulonglongs),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_type_bytes_become_numbers() {
        assert!(matches!(
            as_numbers(&[255], SourceType::U8),
            AttributeValue::Uchar(255)
        ));
        let two: Vec<u8> = [-1i16, 7].iter().flat_map(|v| v.to_ne_bytes()).collect();
        assert!(matches!(
            as_numbers(&two, SourceType::I16),
            AttributeValue::Shorts(v) if v == [-1, 7]
        ));
    }
}
