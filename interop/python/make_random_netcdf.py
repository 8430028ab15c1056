"""Seeded random NetCDF files for `atlas create` against atlas-python.

  make_random_netcdf.py OUT_DIR --seed S --files N

Each file draws, from one numpy Generator seeded by (S, file number): a
format (classic, 64-bit offset, NETCDF4_CLASSIC, NETCDF4), a few dimensions
(one maybe unlimited, lengths 0-7), and variables over ranks 0-3 of every
type the format allows (ints of every width, floats, char arrays, NC_STRING),
each maybe with a fill or missing value (in range, out of range, NaN, or
text), packing, `_Unsigned`, CF time units on a calendar (some cftime-only),
chunking and compression, a `coordinates` attribute, and attributes of every
attribute type. Nothing is checked here: whatever atlas-python does with a
file, ours must do too (tests/netcdf_corpus.rs,
`random_netcdf_files_ingest_as_atlas_python_ingests_them`).
"""

import argparse
from pathlib import Path

import netCDF4
import numpy as np

FORMATS = ["NETCDF3_CLASSIC", "NETCDF3_64BIT_OFFSET", "NETCDF4_CLASSIC", "NETCDF4"]
CLASSIC_TYPES = ["i1", "i2", "i4", "f4", "f8", "S1"]
NC4_TYPES = CLASSIC_TYPES + ["u1", "u2", "u4", "i8", "u8", "str"]
CALENDARS = [None, "standard", "gregorian", "proleptic_gregorian", "noleap", "360_day", "julian"]
UNITS = ["days", "hours", "seconds", "minutes", "milliseconds"]
REFERENCES = ["1970-01-01", "2000-01-01 00:00:00", "1990-6-15 12:30", "1-1-1980",
              "2011-05-20 00:00:00 0:00", "1950-01-01T00:00:00Z", "2001-02-03 04:05:06 +02:00"]


def pick(rng, items):
    return items[int(rng.integers(len(items)))]


def values(rng, dtype, shape):
    if dtype == "str":
        words = ["", "a", "bé", "longer text", "x" * 7]
        flat = [pick(rng, words) for _ in range(int(np.prod(shape)) if shape else 1)]
        return np.array(flat, dtype=object).reshape(shape)
    kind = np.dtype(dtype)
    if kind.kind == "f":
        out = rng.normal(0, 1000, size=shape).astype(kind)
        if out.size and rng.random() < 0.3:
            out.flat[int(rng.integers(out.size))] = np.nan
        return out
    info = np.iinfo(kind)
    low, high = max(info.min, -1000), min(info.max, 1000)
    return rng.integers(low, high + 1, size=shape, dtype=kind)


def attribute(rng, nc4):
    kinds = ["text", "int", "float", "ints", "floats"] + (["strings", "int64"] if nc4 else [])
    kind = pick(rng, kinds)
    if kind == "text":
        return pick(rng, ["", "plain", "Zürich", "a \"quoted\" word", "json:[1, 2]"])
    if kind == "int":
        return np.int32(rng.integers(-100, 100))
    if kind == "float":
        return pick(rng, [np.float32(rng.normal()), np.float64(rng.normal()), np.float64(0.1)])
    if kind == "ints":
        return rng.integers(-5, 5, size=int(rng.integers(2, 5))).astype("i2")
    if kind == "floats":
        return rng.normal(size=int(rng.integers(2, 5))).astype(pick(rng, ["f4", "f8"]))
    if kind == "strings":
        return ["a", "b c"]
    return np.int64(rng.integers(-(2**40), 2**40))


def put_attribute(var, key, value):
    if isinstance(value, list):
        var.setncattr_string(key, value)
    else:
        var.setncattr(key, value)


def make_file(path, rng):
    fmt = pick(rng, FORMATS)
    nc4 = fmt == "NETCDF4"
    types = NC4_TYPES if nc4 else CLASSIC_TYPES
    with netCDF4.Dataset(path, "w", format=fmt) as nc:
        dims = []
        for i in range(int(rng.integers(1, 4))):
            name = f"d{i}"
            unlimited = i == 0 and rng.random() < 0.3
            length = int(rng.integers(1, 8)) if not unlimited else None
            nc.createDimension(name, length)
            dims.append(name)
        strlen = f"strlen{int(rng.integers(2, 6))}"
        nc.createDimension(strlen, int(strlen[-1]))
        # An index coordinate for the first dimension, sometimes.
        names = []
        if rng.random() < 0.6:
            names.append(dims[0])
        names += [f"v{i}" for i in range(int(rng.integers(1, 5)))]
        for name in names:
            index = name == dims[0]
            dtype = pick(rng, ["f8", "i4", "f4"]) if index else pick(rng, types)
            rank = 1 if index else int(rng.integers(0, 4))
            vdims = (dims[0],) if index else tuple(pick(rng, dims) for _ in range(rank))
            if len(set(vdims)) != len(vdims):
                vdims = tuple(dict.fromkeys(vdims))
            if not nc4:
                # Classic formats allow the unlimited dimension first only.
                vdims = tuple(sorted(vdims, key=lambda d: not nc.dimensions[d].isunlimited()))
            if dtype == "S1":
                vdims = vdims + (strlen,)
            fill = None
            if dtype not in ("S1", "str") and rng.random() < 0.3:
                fill = values(rng, dtype, ()).item() if np.dtype(dtype).kind != "f" else np.nan
            options = {}
            lengths = [len(nc.dimensions[d]) for d in vdims]
            fixed = [nc.dimensions[d].isunlimited() or n > 0 for d, n in zip(vdims, lengths)]
            if nc4 and vdims and all(fixed) and rng.random() < 0.4:
                sizes = [n if nc.dimensions[d].isunlimited() else min(n, int(rng.integers(1, 4)))
                         for d, n in zip(vdims, lengths)]
                options = {"zlib": True, "chunksizes": tuple(max(1, c) if nc.dimensions[d].isunlimited() else c
                                                             for d, c in zip(vdims, sizes))}
            var = nc.createVariable(name, str if dtype == "str" else dtype, vdims, fill_value=fill, **options)
            shape = tuple(len(nc.dimensions[d]) for d in vdims)
            if dims[0] in vdims and nc.dimensions[dims[0]].isunlimited():
                length = int(rng.integers(0, 5))
                shape = tuple(length if d == dims[0] else len(nc.dimensions[d]) for d in vdims)
            if dtype == "S1":
                words = np.array([pick(rng, [b"", b"ab", b"xyz", b"q"]) for _ in range(int(np.prod(shape[:-1])) if shape[:-1] else 1)],
                                 dtype=f"S{shape[-1]}").reshape(shape[:-1])
                data = netCDF4.stringtochar(words)
            else:
                data = values(rng, dtype, shape)
            if data.size:
                var[tuple(slice(0, n) for n in shape)] = data
            kind = np.dtype(dtype).kind if dtype != "str" else "O"
            roll = rng.random()
            if kind in "iuf" and roll < 0.15:
                var.setncattr("missing_value", np.array(values(rng, dtype, ()), dtype=dtype))
            elif kind in "iuf" and roll < 0.2 and nc4:
                var.setncattr_string("missing_value", "-1.e+34f")
            if kind in "iu" and rng.random() < 0.25:
                var.setncattr("scale_factor", pick(rng, [np.float32(0.5), np.float64(0.01)]))
                if rng.random() < 0.5:
                    var.setncattr("add_offset", pick(rng, [np.float32(10), np.float64(273.15)]))
            if kind == "i" and rng.random() < 0.15:
                var.setncattr("_Unsigned", "true")
            if kind in "if" and rng.random() < 0.3:
                var.units = f"{pick(rng, UNITS)} since {pick(rng, REFERENCES)}"
                calendar = pick(rng, CALENDARS)
                if calendar:
                    var.calendar = calendar
            if rng.random() < 0.2 and len(names) > 1:
                var.coordinates = " ".join(n for n in names[:2] if n != name) or names[0]
            for k in range(int(rng.integers(0, 3))):
                put_attribute(var, f"a{k}", attribute(rng, nc4))
        for k in range(int(rng.integers(0, 4))):
            put_attribute(nc, f"g{k}", attribute(rng, nc4))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--files", type=int, default=40)
    args = parser.parse_args()
    args.out_dir.mkdir(parents=True, exist_ok=True)
    for i in range(args.files):
        rng = np.random.default_rng([args.seed, i])
        make_file(args.out_dir / f"random_{args.seed}_{i:03d}.nc", rng)


if __name__ == "__main__":
    main()
