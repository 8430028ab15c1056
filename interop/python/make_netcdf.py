#!/usr/bin/env python3
"""Write a small, deterministic NetCDF corpus for atlas-python to ingest.

    python3 make_netcdf.py OUT_DIR

`atlas-interop python` runs this, then `atlas create OUT_DIR ...`, and dumps
the resulting collection with atlas-rust. Each file targets one convention of
atlas-python's xarray mapping:

- grid.nc: float32 with NaN and a _FillValue, an int16 with a _FillValue
  (xarray masks it to float32 + NaN), a datetime64 coordinate, float
  coordinates without a _FillValue (they still get a NaN fill), and global
  attributes of int, float, string and list type (a list becomes "json:...").
- stations.nc: variable-length unicode strings, fixed-width byte strings, a
  timedelta variable (int64 ns + _pyatlas_timedelta) and a variable on a
  zero-length dimension.
- nested/profile.nc: a file in a subdirectory, which `atlas create` finds
  because it descends by default.

Every value derives from its index. Nothing reads the clock or a random seed,
so two runs write the same files.
"""

import sys
from pathlib import Path

import numpy as np
import xarray as xr


def grid() -> xr.Dataset:
    time = np.array(
        ["2024-01-01T00:00", "2024-01-01T06:00", "2024-01-01T12:00"],
        dtype="datetime64[ns]",
    )
    lat = np.array([-30.0, -10.0, 10.0, 30.0], dtype=np.float32)
    lon = np.arange(5, dtype=np.float64) * 72.0

    t, y, x = np.meshgrid(np.arange(3), np.arange(4), np.arange(5), indexing="ij")
    temperature = (270.0 + t + 0.5 * y + 0.25 * x).astype(np.float32)
    temperature[0, 1, 2] = np.nan
    temperature[2, 3, 4] = np.nan

    counts = (np.arange(20, dtype=np.int16) * 3).reshape(4, 5)
    counts[1, 1] = -1  # equals _FillValue, so xarray reads NaN here
    counts[3, 0] = -1

    ds = xr.Dataset(
        {
            "temperature": (
                ("time", "lat", "lon"),
                temperature,
                {"units": "K", "long_name": "air temperature"},
            ),
            "counts": (("lat", "lon"), counts, {"units": "1"}),
        },
        coords={
            "time": ("time", time),
            "lat": ("lat", lat, {"units": "degrees_north"}),
            "lon": ("lon", lon, {"units": "degrees_east"}),
        },
        attrs={
            "title": "interop grid",
            "version": np.int32(3),
            "scale": 0.5,
            "bounds": [-5.0, 40.0],
            "levels": np.array([1, 2, 3], dtype=np.int32),
        },
    )
    ds["temperature"].encoding["_FillValue"] = np.float32(-9999.0)
    ds["counts"].encoding["_FillValue"] = np.int16(-1)
    ds["time"].encoding["units"] = "hours since 2024-01-01"
    ds["time"].encoding["dtype"] = "int32"
    return ds


def stations() -> xr.Dataset:
    names = np.array(["Åland", "Zürich", "東京"], dtype=object)
    codes = np.array([b"AX01", b"ZR02", b"TK03"], dtype="S4")
    elapsed = np.array([3600, 5400, 172800], dtype="timedelta64[s]").astype(
        "timedelta64[ns]"
    )
    ds = xr.Dataset(
        {
            "name": ("station", names, {"long_name": "station name"}),
            "code": ("station", codes),
            "elapsed": ("station", elapsed),
            "height": ("station", np.array([5.5, 408.0, 40.25]), {"units": "m"}),
            "empty": ("obs", np.zeros(0, dtype=np.float64), {"note": "no records"}),
        },
        attrs={"institution": "interop", "station_count": np.int64(3)},
    )
    ds["elapsed"].encoding["units"] = "seconds"
    ds["elapsed"].encoding["dtype"] = "int64"
    return ds


def profile() -> xr.Dataset:
    depth = np.array([0.5, 10.0], dtype=np.float64)
    return xr.Dataset(
        {"salinity": ("z", np.array([35.125, 35.5], dtype=np.float64))},
        coords={"z": ("z", depth, {"positive": "down"})},
        attrs={"comment": "a file in a subdirectory"},
    )


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit("usage: make_netcdf.py OUT_DIR")
    out = Path(sys.argv[1])
    (out / "nested").mkdir(parents=True, exist_ok=True)
    grid().to_netcdf(out / "grid.nc", format="NETCDF4")
    stations().to_netcdf(out / "stations.nc", format="NETCDF4")
    profile().to_netcdf(out / "nested" / "profile.nc", format="NETCDF4")


if __name__ == "__main__":
    main()
