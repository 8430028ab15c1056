#!/usr/bin/env python3
"""Write deterministic NetCDF corpora that atlas-python and atlas-rust both ingest.

    python3 make_corpus.py main OUT_DIR
    python3 make_corpus.py unsupported OUT_DIR
    python3 make_corpus.py broken OUT_DIR
    python3 make_corpus.py big OUT_DIR [--files N] [--mb M]

atlas-python 0.17.2's `atlas create` and the Rust reimplementation ingest the
same directory, and a test compares the two collections value for value. The
files go through the netCDF4 module directly, not xarray's to_netcdf, so the
raw on-disk types, fill values and attributes are exactly the ones named here.
What xarray then decodes them to is the behaviour under test.

edges: three small files (times.nc, numbers.nc, strings.nc) for decoding
rules main does not reach: time bounds, masked and zoned times, masked
durations, _Unsigned="false", int32 packing, multi-valued missing_value,
64-bit integers, attribute widths, NC_STRING fills, rank-0 strings and a
char dimension that is also a variable.

main: the comparison corpus. `atlas create OUT_DIR DST` takes it with no flags.

- grids/: six gridded files over four on-disk formats and all four suffixes
  the scan accepts (.nc, .nc4, .cdf, .netcdf), some in subdirectories.
  - era_t2m_6hourly.nc (NETCDF4, unlimited time): float32 t2m holding both NaN
    and cells equal to its _FillValue 1e20 (both read as NaN); int16 sst
    packed with float32 scale_factor 0.01 and add_offset 273.15 (float32);
    float64 hours-since time; zlib with explicit chunk sizes; the variable
    attributes (valid_range, int, float32 and float64 scalars such as 1e20 and
    1e-7) and an NC_STRING array global attribute.
  - 2024/merra_precip.nc4 (NETCDF4_CLASSIC): int32 days-since time on the
    "gregorian" calendar; int16 precip with a _FillValue and no scale (masked
    to float32 + NaN); int16 tcwv with only a float64 scale_factor (float64);
    int32 cell_count with no fill, which stays int32.
  - 2024/ocean_daily.cdf (NETCDF3_CLASSIC, unlimited time): fractional-day
    float64 times on "proleptic_gregorian"; NC_BYTE land_class with
    _Unsigned = "true" and values above 127 (uint8), flag_values and
    flag_meanings; float64 sss with missing_value and no _FillValue.
  - archive/wind_curvilinear.netcdf (NETCDF3_64BIT_OFFSET): float32
    wind_speed whose `coordinates` attribute names the 2-D lat2d/lon2d, which
    xarray then lists as coordinates.
  - cmip_tas_monthly.nc (NETCDF4, unlimited time): a second t2m of another
    shape, so one array name spans datasets; a 0-D int32 grid-mapping
    variable; float64 orography.
  - 2023/era_t2m_2023.nc (NETCDF3_CLASSIC): int32 hours-since time and the
    same names as era_t2m_6hourly.nc under the classic model.
  Every grid file has the same global attributes: int, float, float and
  int lists, an empty string and "Zürich — ±5 °C" (NC_STRING in NETCDF4,
  UTF-8 chars elsewhere), plus a 2-string NC_STRING array in NETCDF4.
  - README.txt: not NetCDF; the scan must ignore it.
- argo/: 200 Argo-like profiles, D/R<platform>_<cycle>.nc. NETCDF4_CLASSIC and
  NETCDF3_CLASSIC alternate; every tenth file is NETCDF4 and adds an NC_STRING
  STATION_PARAMETERS(N_PARAM) and an int64 TIME_SINCE_DEPLOY that xarray
  decodes to timedelta64 (units "seconds", dtype "timedelta64[ns]"). N_LEVELS
  runs 1..120, and one file has N_LEVELS = 0. That file is NETCDF4_CLASSIC,
  because a zero-length dimension is necessarily the unlimited one, and
  NETCDF3 only allows the unlimited dimension first. Char variables test
  xarray's char-dimension stacking: STRING8, STRING16 and DATE_TIME serve
  char variables alone, so DATA_TYPE, PLATFORM_NUMBER and REFERENCE_DATE_TIME
  become fixed-width strings; N_PROF and N_LEVELS also serve numbers, so
  DATA_MODE and the QC arrays stay one character a cell, and the QC
  _FillValue " " masks the blank cells. Dtypes differ
  between files on purpose: CYCLE_NUMBER is int16 (fill 9999, since 99999
  does not fit) in every eighth file and int32 (fill 99999) elsewhere; TEMP is
  float64 in every tenth file and float32 elsewhere. One file has JULD,
  LATITUDE and LONGITUDE all equal to their fill (no position fix).

unsupported: files atlas-python fails without --skip-unsupported.
- flags.nc: int8 `flag` with dtype = "bool", which xarray decodes to bool.
- noleap.nc: a "noleap" time axis, which xarray decodes to cftime objects.
Each also holds an ordinary float variable that still lands under the flag.

broken: files atlas-python fails without --skip-errors, which skips three.
- good.nc: valid.
- truncated.nc: a valid NETCDF4 file cut to half its length.
- garbage.nc: 512 random bytes.
- a/dup.nc, b/dup.nc: both valid; the second repeats the dataset name.

big: N NETCDF4 files of one float32 field(time, lat, lon) on a 721 x 1440
grid, about M MiB each before compression, chunked (1, 721, 1440) with zlib level 1. The values
are a smooth field plus noise, so compression stays realistic. Each time
slice is written on its own, so memory stays at a few slices. For benchmarks.

Values derive from indices or from a numpy Generator with a fixed seed per
file, so the files do not depend on the order they are written in. Nothing
reads the clock, so two runs write the same values.
"""

import argparse
from pathlib import Path

import netCDF4
import numpy as np

SEED = 20240917

# The on-disk formats, named once so a typo cannot silently pick another.
NC4 = "NETCDF4"
NC4C = "NETCDF4_CLASSIC"
NC3 = "NETCDF3_CLASSIC"
NC3_64 = "NETCDF3_64BIT_OFFSET"


def rng_for(*key: int) -> np.random.Generator:
    """A Generator that depends on the file alone, not on what came before."""
    return np.random.default_rng([SEED, *key])


# ── shared pieces ────────────────────────────────────────────────────


def new_var(ds: netCDF4.Dataset, name: str, dtype, dims, **create):
    """A variable that takes raw values.

    netCDF4 would otherwise mask, scale and sign-convert on write, and the
    point of this corpus is to choose the stored bytes ourselves.
    """
    var = ds.createVariable(name, dtype, dims, **create)
    var.set_auto_maskandscale(False)
    return var


def global_attrs(ds: netCDF4.Dataset, title: str, version: int) -> None:
    """The global attributes every grid file carries, typed explicitly.

    A bare Python int would become NC_INT64, which the classic formats
    reject, so every number is a numpy scalar or array of a fixed type.
    """
    ds.Conventions = "CF-1.8"
    ds.title = title
    ds.history = "\n".join(
        f"2024-01-{day:02d}T00:00:00Z: step {day} of the interop corpus "
        "pipeline; regridded, quality-controlled and rewritten by make_corpus.py"
        for day in range(1, 9)
    )
    ds.version = np.int32(version)
    ds.resolution_deg = np.float64(2.5)
    ds.bbox = np.array([-90.0, 90.0, 0.0, 360.0], dtype=np.float64)
    ds.levels_hpa = np.array([1000, 850, 500], dtype=np.int32)
    ds.comment = ""
    ds.location = "Zürich — ±5 °C"
    if ds.data_model == NC4:
        # Only the enhanced model has NC_STRING; a list of str forces it.
        ds.setncattr_string("keywords", ["temperature", "reanalysis"])


def lat_lon(ds: netCDF4.Dataset, ny: int, nx: int, dtype: str) -> tuple:
    """Cell-centred lat (north to south) and lon coordinate variables."""
    ds.createDimension("lat", ny)
    ds.createDimension("lon", nx)
    lat = new_var(ds, "lat", dtype, ("lat",))
    lon = new_var(ds, "lon", dtype, ("lon",))
    lat.units = "degrees_north"
    lat.standard_name = "latitude"
    lat.axis = "Y"
    lon.units = "degrees_east"
    lon.standard_name = "longitude"
    lon.axis = "X"
    dy, dx = 180.0 / ny, 360.0 / nx
    lat_values = 90.0 - dy / 2 - dy * np.arange(ny)
    lon_values = dx / 2 + dx * np.arange(nx)
    lat[:] = lat_values
    lon[:] = lon_values
    return lat_values, lon_values


def time_axis(ds, n, dtype, units, calendar, values, unlimited=False) -> None:
    ds.createDimension("time", None if unlimited else n)
    time = new_var(ds, "time", dtype, ("time",))
    time.units = units
    time.calendar = calendar
    time.standard_name = "time"
    time.axis = "T"
    time[:] = np.asarray(values, dtype=dtype)


def temperature_field(rng, nt, lat, lon) -> np.ndarray:
    """A smooth float64 temperature with a little noise, shape (nt, ny, nx)."""
    t = np.arange(nt)[:, None, None]
    y = np.deg2rad(lat)[None, :, None]
    x = np.deg2rad(lon)[None, None, :]
    smooth = 250.0 + 45.0 * np.cos(y) + 3.0 * np.sin(x + 0.3 * t)
    return smooth + rng.normal(0.0, 0.5, (nt, lat.size, lon.size))


def t2m_var(ds, rng, nt, lat, lon, **create) -> None:
    """float32 t2m with a _FillValue of 1e20, NaNs, and cells equal to 1e20.

    Both markers decode to NaN, but only the 1e20 cells go through the mask.
    """
    fill = np.float32(1e20)
    var = new_var(ds, "t2m", "f4", ("time", "lat", "lon"),
                  fill_value=fill, **create)
    data = temperature_field(rng, nt, lat, lon).astype(np.float32)
    cells = data.size
    data.flat[rng.choice(cells, cells // 40, replace=False)] = np.nan
    data.flat[rng.choice(cells, cells // 50, replace=False)] = fill
    var[:] = data
    var.units = "K"
    var.long_name = "2 metre temperature"
    var.standard_name = "air_temperature"
    var.valid_range = np.array([180.0, 340.0], dtype=np.float32)
    var.grib_param_id = np.int32(167)
    var.scale_hint = np.float32(0.5)
    var.max_representable = np.float64(1e20)
    var.tolerance = np.float64(1e-7)


def packed_sst(ds, rng, nt, lat, lon, **create) -> None:
    """int16 sst, packed with float32 scale/offset, so xarray gives float32."""
    fill = np.int16(-32767)
    var = new_var(ds, "sst", "i2", ("time", "lat", "lon"),
                  fill_value=fill, **create)
    # new_var turns netCDF4's auto-scaling off, so these raw integers land
    # as they are and are not packed a second time.
    var.scale_factor = np.float32(0.01)
    var.add_offset = np.float32(273.15)
    celsius = 28.0 * np.cos(np.deg2rad(lat))[None, :, None] - 1.0
    celsius = celsius + rng.normal(0.0, 0.3, (nt, lat.size, lon.size))
    raw = np.round(celsius / 0.01).astype(np.int16)
    # A fixed "continent" of masked cells, identical in every time step.
    land = (np.abs(lat)[:, None] < 40.0) & ((lon[None, :] % 120.0) < 30.0)
    raw[:, land] = fill
    var[:] = raw
    var.units = "K"
    var.long_name = "sea surface temperature"
    var.standard_name = "sea_surface_temperature"
    var.valid_range = np.array([-500, 5000], dtype=np.int16)


# ── main: grids ──────────────────────────────────────────────────────


def grid_era_6hourly(path: Path) -> None:
    rng = rng_for(1, 1)
    nt, ny, nx = 8, 24, 48
    with netCDF4.Dataset(path, "w", format=NC4) as ds:
        # 2024-01-01T00 is 210384 hours after 2000-01-01; steps of 6 h.
        time_axis(ds, nt, "f8", "hours since 2000-01-01", "standard",
                  210384.0 + 6.0 * np.arange(nt), unlimited=True)
        lat, lon = lat_lon(ds, ny, nx, "f4")
        lat, lon = lat.astype(np.float32), lon.astype(np.float32)
        t2m_var(ds, rng, nt, lat, lon, zlib=True, complevel=4,
                chunksizes=(1, ny, nx))
        packed_sst(ds, rng, nt, lat, lon, zlib=True, complevel=2,
                   chunksizes=(2, ny // 2, nx // 2))
        global_attrs(ds, "ERA-like 6-hourly 2 m temperature", 1)


def grid_merra_precip(path: Path) -> None:
    rng = rng_for(1, 2)
    nt, ny, nx = 6, 18, 36
    # The first of each month of 2024 in days since 1950-01-01 (27028 = Jan 1).
    month_starts = 27028 + np.array([0, 31, 60, 91, 121, 152])
    with netCDF4.Dataset(path, "w", format=NC4C) as ds:
        time_axis(ds, nt, "i4", "days since 1950-01-01 00:00:00", "gregorian",
                  month_starts)
        lat, lon = lat_lon(ds, ny, nx, "f8")

        fill = np.int16(-32767)
        precip = new_var(ds, "precip", "i2", ("time", "lat", "lon"),
                                   fill_value=fill, zlib=True,
                                   chunksizes=(1, ny, nx))
        raw = rng.gamma(0.8, 40.0, (nt, ny, nx)).astype(np.int16)
        raw.flat[rng.choice(raw.size, raw.size // 25, replace=False)] = fill
        precip[:] = raw
        precip.units = "0.1 mm day-1"
        precip.long_name = "total precipitation (tenths of mm, no scaling)"
        precip.valid_range = np.array([0.0, 3000.0], dtype=np.float32)

        # Only a float64 scale_factor: xarray unpacks to float64.
        tcwv = new_var(ds, "tcwv", "i2", ("time", "lat", "lon"),
                                 zlib=True, chunksizes=(3, 9, 12))
        tcwv.scale_factor = np.float64(0.05)
        water = 40.0 * np.cos(np.deg2rad(lat))[None, :, None] ** 2 + 2.0
        water = water + rng.uniform(0.0, 4.0, (nt, ny, nx))
        tcwv[:] = np.round(water / 0.05).astype(np.int16)
        tcwv.units = "kg m-2"
        tcwv.long_name = "total column water vapour"

        # fill_value=False: no _FillValue attribute, so the ints stay int32.
        count = new_var(ds, "cell_count", "i4", ("lat", "lon"),
                                  fill_value=False)
        count[:] = (np.arange(ny)[:, None] * 1000 + np.arange(nx)[None, :]) * 37
        count.long_name = "number of gauges per cell"
        count.units = "1"
        count.max_gauges = np.int32(2_000_000)
        global_attrs(ds, "MERRA-like monthly precipitation", 2)


def grid_ocean_daily(path: Path) -> None:
    rng = rng_for(1, 3)
    nt, ny, nx = 10, 30, 60
    # Fractional days: 3-hourly steps from 2024-01-01T06:00.
    times = 27028.25 + 0.125 * np.arange(nt)
    with netCDF4.Dataset(path, "w", format=NC3) as ds:
        time_axis(ds, nt, "f8", "days since 1950-01-01 00:00:00",
                  "proleptic_gregorian", times, unlimited=True)
        lat, lon = lat_lon(ds, ny, nx, "f4")

        # NETCDF3 has no unsigned type; _Unsigned makes xarray read uint8.
        # 255 ("unknown") only comes out right if the sign is honoured.
        land = new_var(ds, "land_class", "i1", ("lat", "lon"))
        classes = ((np.arange(ny)[:, None] // 6 + np.arange(nx)[None, :] // 10) % 3)
        classes = classes.astype(np.uint8)
        classes[::7, ::11] = 255
        land[:] = classes.view(np.int8)
        land._Unsigned = "true"
        land.long_name = "surface class"
        land.flag_values = np.array([0, 1, 2], dtype=np.int8)
        land.flag_meanings = "ocean land sea_ice"

        # missing_value with no _FillValue: xarray masks it all the same.
        missing = np.float64(-1.0e34)
        sss = new_var(ds, "sss", "f8", ("time", "lat", "lon"))
        sss.missing_value = missing
        salt = 35.0 + 0.5 * np.sin(np.deg2rad(lon))[None, None, :]
        salt = salt + rng.normal(0.0, 0.2, (nt, ny, nx))
        # Land and unknown cells carry no salinity; ocean and sea ice do.
        salt[:, (classes == 1) | (classes == 255)] = missing
        sss[:] = salt
        sss.units = "1e-3"
        sss.long_name = "sea surface salinity"
        sss.standard_name = "sea_surface_salinity"
        sss.valid_range = np.array([0.0, 45.0], dtype=np.float64)
        global_attrs(ds, "ocean daily analysis, 3-hourly steps", 3)


def grid_wind_curvilinear(path: Path) -> None:
    rng = rng_for(1, 4)
    nt, ny, nx = 4, 20, 40
    with netCDF4.Dataset(path, "w", format=NC3_64) as ds:
        time_axis(ds, nt, "i4", "hours since 2000-01-01", "gregorian",
                  210384 + 24 * np.arange(nt))
        lat, lon = lat_lon(ds, ny, nx, "f8")

        # A rotated grid: the true positions are 2-D auxiliary coordinates.
        yy, xx = np.meshgrid(lat, lon, indexing="ij")
        lat2d = new_var(ds, "lat2d", "f8", ("lat", "lon"))
        lon2d = new_var(ds, "lon2d", "f8", ("lat", "lon"))
        lat2d[:] = np.clip(yy + 5.0 * np.sin(np.deg2rad(xx)), -90.0, 90.0)
        lon2d[:] = (xx + 10.0 * np.cos(np.deg2rad(yy))) % 360.0
        lat2d.units, lat2d.standard_name = "degrees_north", "latitude"
        lon2d.units, lon2d.standard_name = "degrees_east", "longitude"

        fill = np.float32(-999.0)
        wind = new_var(ds, "wind_speed", "f4", ("time", "lat", "lon"),
                                 fill_value=fill)
        speed = rng.weibull(2.0, (nt, ny, nx)) * 7.0
        speed.flat[rng.choice(speed.size, 20, replace=False)] = fill
        wind[:] = speed.astype(np.float32)
        wind.coordinates = "lat2d lon2d"
        wind.units = "m s-1"
        wind.long_name = "10 m wind speed"
        wind.standard_name = "wind_speed"
        wind.valid_range = np.array([0.0, 80.0], dtype=np.float32)
        wind.height_m = np.float32(10.0)
        global_attrs(ds, "curvilinear wind speed", 4)


def grid_cmip_monthly(path: Path) -> None:
    rng = rng_for(1, 5)
    nt, ny, nx = 12, 36, 72
    with netCDF4.Dataset(path, "w", format=NC4) as ds:
        # Mid-month of 2024, fractional days (half a day past midnight).
        mids = 27028 + np.array([15.5, 45.0, 75.5, 106.0, 136.5, 167.0,
                                 197.5, 228.5, 259.0, 289.5, 320.0, 350.5])
        time_axis(ds, nt, "f8", "days since 1950-01-01 00:00:00", "standard",
                  mids, unlimited=True)
        lat, lon = lat_lon(ds, ny, nx, "f8")
        t2m_var(ds, rng, nt, lat, lon, zlib=True, shuffle=True,
                chunksizes=(3, ny // 2, nx // 2))

        orog = new_var(ds, "orog", "f8", ("lat", "lon"), zlib=True,
                                 chunksizes=(ny, nx))
        orog[:] = np.maximum(
            0.0, 3000.0 * np.sin(np.deg2rad(lat))[:, None] ** 2
            * np.cos(np.deg2rad(3 * lon))[None, :])
        orog.units = "m"
        orog.standard_name = "surface_altitude"

        # A CF grid mapping is a 0-D variable that only carries attributes.
        crs = new_var(ds, "crs", "i4", ())
        crs[...] = np.int32(0)
        crs.grid_mapping_name = "latitude_longitude"
        crs.semi_major_axis = np.float64(6378137.0)
        crs.inverse_flattening = np.float64(298.257223563)
        global_attrs(ds, "CMIP-like monthly near-surface temperature", 5)


def grid_era_2023(path: Path) -> None:
    rng = rng_for(1, 6)
    nt, ny, nx = 5, 18, 36
    with netCDF4.Dataset(path, "w", format=NC3) as ds:
        # 2023-06-01T00 is 205248 hours after 2000-01-01; 12-hourly.
        time_axis(ds, nt, "i4", "hours since 2000-01-01", "standard",
                  205248 + 12 * np.arange(nt))
        lat, lon = lat_lon(ds, ny, nx, "f4")
        lat, lon = lat.astype(np.float32), lon.astype(np.float32)
        t2m_var(ds, rng, nt, lat, lon)
        packed_sst(ds, rng, nt, lat, lon)
        global_attrs(ds, "ERA-like 12-hourly 2 m temperature, 2023", 6)


GRID_README = """\
Gridded files for the atlas interop corpus. This file is not NetCDF, and
`atlas create` must not pick it up.
"""


def write_grids(out: Path) -> None:
    for sub in ("2023", "2024", "archive"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    grid_era_6hourly(out / "era_t2m_6hourly.nc")
    grid_merra_precip(out / "2024" / "merra_precip.nc4")
    grid_ocean_daily(out / "2024" / "ocean_daily.cdf")
    grid_wind_curvilinear(out / "archive" / "wind_curvilinear.netcdf")
    grid_cmip_monthly(out / "cmip_tas_monthly.nc")
    grid_era_2023(out / "2023" / "era_t2m_2023.nc")
    (out / "README.txt").write_text(GRID_README)


# ── main: argo ───────────────────────────────────────────────────────

ARGO_FILES = 200
ARGO_PLATFORMS = 8  # 200 files = 8 floats x 25 cycles
ARGO_ZERO_LEVELS = 57  # the one file whose N_LEVELS is 0
ARGO_NO_FIX = 123  # the one file whose JULD and position are fill
FLOAT_FILL = 99999.0
JULD_FILL = 999999.0


def chars(text: str, width: int) -> np.ndarray:
    """`text` blank-padded to `width` as an S1 array, as Argo writes strings."""
    return netCDF4.stringtochar(np.array([text.ljust(width)], dtype=f"S{width}"))[0]


def argo_format(i: int) -> str:
    if i % 10 == 3:
        return NC4
    if i == ARGO_ZERO_LEVELS:
        return NC4C
    return NC4C if i % 2 == 0 else NC3


def argo_profile(out: Path, i: int) -> None:
    rng = rng_for(2, i)
    platform = 6901234 + i % ARGO_PLATFORMS
    cycle = 1 + i // ARGO_PLATFORMS
    mode = "D" if i % 3 == 0 else "R"
    fmt = argo_format(i)
    if i == ARGO_ZERO_LEVELS:
        n_levels = 0
    elif i == 0:
        n_levels = 120  # pin the maximum
    else:
        n_levels = int(rng.integers(1, 121))

    path = out / f"{mode}{platform}_{cycle:03d}.nc"
    with netCDF4.Dataset(path, "w", format=fmt) as ds:
        ds.createDimension("N_PROF", 1)
        # A length of 0 can only be the unlimited dimension in netCDF.
        ds.createDimension("N_LEVELS", n_levels if n_levels else None)
        ds.createDimension("STRING8", 8)
        ds.createDimension("STRING16", 16)
        ds.createDimension("DATE_TIME", 14)

        v = new_var(ds, "DATA_TYPE", "S1", ("STRING16",))
        v[:] = chars("Argo profile", 16)
        v.long_name = "Data type"
        v.conventions = "Argo reference table 1"

        v = new_var(ds, "PLATFORM_NUMBER", "S1", ("N_PROF", "STRING8"))
        v[0] = chars(str(platform), 8)
        v.long_name = "Float unique identifier"
        v.conventions = "WMO float identifier : A9IIIII"

        v = new_var(ds, "DATA_MODE", "S1", ("N_PROF",))
        v[:] = np.array([mode], dtype="S1")
        v.long_name = "Delayed mode or real time data"
        v.conventions = "R : real time; D : delayed mode; A : real time with adjustment"

        v = new_var(ds, "REFERENCE_DATE_TIME", "S1", ("DATE_TIME",))
        v[:] = chars("19500101000000", 14)
        v.long_name = "Date of reference for Julian days"
        v.conventions = "YYYYMMDDHHMISS"

        # int16 in every eighth file: a dtype that differs between files.
        # 99999 does not fit int16, so the short files use 9999.
        if i % 8 == 5:
            v = new_var(ds, "CYCLE_NUMBER", "i2", ("N_PROF",),
                                  fill_value=np.int16(9999))
        else:
            v = new_var(ds, "CYCLE_NUMBER", "i4", ("N_PROF",),
                                  fill_value=np.int32(99999))
        v[:] = cycle
        v.long_name = "Float cycle number"
        v.conventions = "0...N, 0 : launch cycle (if exists), 1 : first complete cycle"

        no_fix = i == ARGO_NO_FIX
        v = new_var(ds, "JULD", "f8", ("N_PROF",), fill_value=JULD_FILL)
        # Ten days per cycle from mid-2018 plus a fraction of a day, as real
        # surfacing times are.
        juld = 25000.0 + 10.0 * cycle + 0.37 * (i % ARGO_PLATFORMS) + rng.random()
        v[:] = JULD_FILL if no_fix else juld
        v.long_name = "Julian day (UTC) of the station relative to REFERENCE_DATE_TIME"
        v.standard_name = "time"
        v.units = "days since 1950-01-01 00:00:00 UTC"
        v.conventions = "Relative julian days with decimal part (as parts of day)"
        v.resolution = np.float64(1e-5)
        v.axis = "T"

        lat0 = -60.0 + 15.0 * (i % ARGO_PLATFORMS)
        lon0 = -170.0 + 40.0 * (i % ARGO_PLATFORMS)
        for name, centre, limit, units in (
            ("LATITUDE", lat0, 90.0, "degree_north"),
            ("LONGITUDE", lon0, 180.0, "degree_east"),
        ):
            v = new_var(ds, name, "f8", ("N_PROF",), fill_value=FLOAT_FILL)
            v[:] = FLOAT_FILL if no_fix else centre + 0.05 * cycle + rng.uniform(-0.5, 0.5)
            v.long_name = f"{name.title()} of the station, best estimate"
            v.units = units
            v.valid_min = np.float64(-limit)
            v.valid_max = np.float64(limit)

        levels = np.arange(n_levels)
        pres = 5.0 + 16.5 * levels + rng.uniform(0.0, 1.0, n_levels)
        temp = 2.0 + 24.0 * np.exp(-pres / 400.0) + rng.normal(0.0, 0.05, n_levels)
        psal = 34.2 + 0.8 * (1.0 - np.exp(-pres / 600.0)) + rng.normal(0.0, 0.01, n_levels)
        # Every eighth level (from a file-dependent offset) is missing.
        missing = (levels + i) % 8 == 0
        temp_type = "f8" if i % 10 == 7 else "f4"
        for name, values, vtype, units in (
            ("PRES", pres, "f4", "decibar"),
            ("TEMP", temp, temp_type, "degree_Celsius"),
            ("PSAL", psal, "f4", "psu"),
        ):
            v = new_var(ds, name, vtype, ("N_PROF", "N_LEVELS"),
                                  fill_value=FLOAT_FILL)
            values = np.where(missing & (name != "PRES"), FLOAT_FILL, values)
            if n_levels:
                v[0, :] = values
            v.units = units
            v.C_format = "%9.3f"
            v.resolution = np.float32(0.001)

        # QC flags: ' ' where the value is missing, else mostly '1'.
        flags = rng.choice(np.frombuffer(b"1112224 ", dtype="S1"), n_levels)
        for name in ("PRES_QC", "TEMP_QC"):
            v = new_var(ds, name, "S1", ("N_PROF", "N_LEVELS"),
                                  fill_value=b" ")
            qc = flags.copy()
            if name == "TEMP_QC":
                qc[missing] = b" "
            if n_levels:
                v[0, :] = qc
            v.long_name = "quality flag"
            v.conventions = "Argo reference table 2"

        v = new_var(ds, "PROFILE_PRES_QC", "S1", ("N_PROF",), fill_value=b" ")
        v[:] = np.array(["ABCDEF "[i % 7]], dtype="S1")
        v.long_name = "Global quality flag of PRES profile"

        if fmt == NC4:
            ds.createDimension("N_PARAM", 3)
            v = new_var(ds, "STATION_PARAMETERS", str, ("N_PARAM",))
            v[:] = np.array(["PRES", "TEMP", "PSAL"], dtype=object)
            v.long_name = "List of available parameters for the station"
            # The dtype attribute is what makes xarray decode a timedelta.
            v = new_var(ds, "TIME_SINCE_DEPLOY", "i8", ("N_PROF",))
            v[:] = np.int64(cycle * 864000 + 3600 * (i % 24) + 17)
            v.units = "seconds"
            v.setncattr("dtype", "timedelta64[ns]")
            v.long_name = "time since the float was deployed"

        ds.title = "Argo float vertical profile"
        ds.institution = ["AOML", "CORIOLIS", "JMA", "CSIRO"][i % 4]
        ds.source = "Argo float"
        ds.format_version = "3.1"
        ds.handbook_version = "1.2"
        ds.Conventions = "Argo-3.1 CF-1.6"
        ds.featureType = "trajectoryProfile"
        ds.pressure_scale = np.float64(1.0 + 0.001 * i)


def write_argo(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for i in range(ARGO_FILES):
        argo_profile(out, i)


def make_main(out: Path) -> None:
    write_grids(out / "grids")
    write_argo(out / "argo")


# ── edges ────────────────────────────────────────────────────────────


def make_edges(out: Path) -> None:
    """Decoding rules the main corpus does not reach, one file per theme."""
    out.mkdir(parents=True, exist_ok=True)

    # Times: a bounds variable without units (xarray lends it the axis's),
    # float32 days with a fill, integer seconds with a fill (masked to NaT
    # first), a reference date in ISO form with a zone, and time-like
    # integers that are not decoded but still masked to int64's NaT.
    with netCDF4.Dataset(out / "times.nc", "w", format=NC4) as ds:
        ds.createDimension("time", 4)
        ds.createDimension("nv", 2)
        t = new_var(ds, "time", "f8", ("time",))
        t.units, t.calendar, t.bounds = "days since 2000-01-01", "standard", "time_bnds"
        t[:] = [0.0, 1.25, 2.5, 3.75]
        b = new_var(ds, "time_bnds", "f8", ("time", "nv"))
        b[:] = [[-0.5, 0.5], [0.75, 1.75], [2.0, 3.0], [3.25, 4.25]]
        f = new_var(ds, "obs_day", "f4", ("time",), fill_value=np.float32(-1.0))
        f.units = "days since 1999-12-31T12:00:00Z"
        f[:] = np.array([0.5, -1.0, 1.25, 2.0], dtype="f4")
        s = new_var(ds, "obs_sec", "i4", ("time",), fill_value=np.int32(-9))
        s.units = "seconds since 1970-01-01 00:00:00 +01:00"
        s[:] = np.array([946684800, -9, 946684801, 946771200], dtype="i4")
        d = new_var(ds, "lag", "i2", ("time",), fill_value=np.int16(-1))
        d.units = "seconds"
        d[:] = np.array([5, -1, 7, 9], dtype="i2")
        td = new_var(ds, "dwell", "i8", ("time",), fill_value=np.int64(-1))
        td.units = "minutes"
        td.setncattr("dtype", "timedelta64[ns]")
        td[:] = np.array([90, -1, 3, 0], dtype="i8")
        ds.coordinates = "station"
        st = new_var(ds, "station", "i4", ())
        st[...] = 7

    # Numbers: _Unsigned="false" on an unsigned type, int32 packed with
    # float32 scale and offset (float64), a two-valued missing_value, the
    # 64-bit integers, and attribute types of every width.
    with netCDF4.Dataset(out / "numbers.nc", "w", format=NC4) as ds:
        ds.createDimension("x", 6)
        u = new_var(ds, "signed_back", "u2", ("x",))
        u.setncattr("_Unsigned", "false")
        u[:] = np.array([0, 1, 65535, 32768, 7, 65534], dtype="u2")
        p = new_var(ds, "packed32", "i4", ("x",), fill_value=np.int32(-2147483647))
        p.scale_factor, p.add_offset = np.float32(0.001), np.float32(-5.0)
        p[:] = np.array([0, 1000, -2147483647, 123456789, -5, 42], dtype="i4")
        m = new_var(ds, "two_missing", "f8", ("x",))
        m.missing_value = np.array([-999.0, -888.0])
        m[:] = [1.5, -999.0, 2.5, -888.0, 3.5, 4.5]
        big = new_var(ds, "counts", "u8", ("x",))
        big[:] = np.array([0, 1, 2**63, 2**64 - 1, 5, 6], dtype="u8")
        neg = new_var(ds, "offsets", "i8", ("x",))
        neg[:] = np.array([-(2**63), -1, 0, 1, 2**62, 2**63 - 1], dtype="i8")
        neg.bytes = np.array([1, 255], dtype="u1")
        neg.shorts = np.array([-3, 4], dtype="i2")
        neg.one_string = ["only"]
        neg.tiny = np.float32(1.5e-7)

    # Strings: NC_STRING with a fill, rank-0 strings and chars, and a char
    # dimension that a variable is named after (so it is not joined).
    with netCDF4.Dataset(out / "strings.nc", "w", format=NC4) as ds:
        ds.createDimension("n", 3)
        ds.createDimension("nchar", 4)
        names = ds.createVariable("names", str, ("n",), fill_value="NA")
        names[:] = np.array(["alpha", "NA", "gamma"], dtype=object)
        title = ds.createVariable("title", str, ())
        title[...] = "one string"
        letter = new_var(ds, "letter", "S1", ())
        letter[...] = b"Q"
        nchar = new_var(ds, "nchar", "i4", ("nchar",))
        nchar[:] = np.arange(4, dtype="i4")
        code = new_var(ds, "code", "S1", ("n", "nchar"))
        code[:] = netCDF4.stringtochar(np.array(["ab", "cdef", ""], dtype="S4"))
        ds.empty = ""


# ── unsupported ──────────────────────────────────────────────────────


def make_unsupported(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    n = 16
    with netCDF4.Dataset(out / "flags.nc", "w", format=NC4) as ds:
        ds.createDimension("x", n)
        # xarray's BooleanCoder turns int8 + dtype="bool" into numpy bool.
        flag = new_var(ds, "flag", "i1", ("x",))
        flag[:] = (np.arange(n) % 3 == 0).astype(np.int8)
        flag.setncattr("dtype", "bool")
        value = new_var(ds, "value", "f4", ("x",))
        value[:] = np.arange(n, dtype=np.float32) * 0.5
        value.units = "1"
        ds.title = "a bool variable atlas cannot store"

    with netCDF4.Dataset(out / "noleap.nc", "w", format=NC4) as ds:
        # A non-standard calendar always decodes to cftime objects.
        time_axis(ds, 6, "f8", "days since 2001-01-01", "noleap",
                  np.arange(6) * 73.0)
        value = new_var(ds, "value", "f4", ("time",))
        value[:] = np.arange(6, dtype=np.float32) + 0.25
        value.units = "1"
        ds.title = "a noleap time axis atlas cannot store"


# ── broken ───────────────────────────────────────────────────────────


def small_file(path: Path, key: int, n: int = 32) -> None:
    rng = rng_for(3, key)
    with netCDF4.Dataset(path, "w", format=NC4) as ds:
        ds.createDimension("x", n)
        x = new_var(ds, "x", "f8", ("x",))
        x[:] = np.arange(n, dtype=np.float64)
        value = new_var(ds, "value", "f4", ("x",))
        value[:] = rng.normal(0.0, 1.0, n).astype(np.float32)
        ds.title = f"small file {key}"


def make_broken(out: Path) -> None:
    (out / "a").mkdir(parents=True, exist_ok=True)
    (out / "b").mkdir(parents=True, exist_ok=True)
    small_file(out / "good.nc", 1)
    small_file(out / "a" / "dup.nc", 2)
    small_file(out / "b" / "dup.nc", 3)

    # Enough uncompressed data that half the file loses real bytes, not
    # just trailing metadata.
    truncated = out / "truncated.nc"
    small_file(truncated, 4, n=16384)
    size = truncated.stat().st_size
    with open(truncated, "r+b") as f:
        f.truncate(size // 2)

    (out / "garbage.nc").write_bytes(rng_for(3, 5).bytes(512))


# ── big ──────────────────────────────────────────────────────────────

BIG_NY, BIG_NX = 721, 1440


def big_file(path: Path, key: int, nt: int) -> None:
    rng = rng_for(4, key)
    lat = np.linspace(90.0, -90.0, BIG_NY)
    lon = np.arange(BIG_NX) * 0.25
    y = np.deg2rad(lat)[:, None]
    x = np.deg2rad(lon)[None, :]
    base = (250.0 + 45.0 * np.cos(y) + 5.0 * np.sin(2.0 * x) * np.cos(y)).astype(np.float32)
    wave = (np.sin(3.0 * x) * np.sin(2.0 * y)).astype(np.float32)
    with netCDF4.Dataset(path, "w", format=NC4) as ds:
        time_axis(ds, nt, "f8", "hours since 2000-01-01", "standard",
                  210384.0 + 6.0 * np.arange(nt))
        ds.createDimension("lat", BIG_NY)
        ds.createDimension("lon", BIG_NX)
        new_var(ds, "lat", "f8", ("lat",))[:] = lat
        new_var(ds, "lon", "f8", ("lon",))[:] = lon
        ds["lat"].units = "degrees_north"
        ds["lon"].units = "degrees_east"
        field = new_var(ds, "field", "f4", ("time", "lat", "lon"),
                                  zlib=True, complevel=1, shuffle=True,
                                  chunksizes=(1, BIG_NY, BIG_NX))
        field.units = "K"
        field.long_name = "synthetic benchmark field"
        # One slice at a time, so memory stays at a few 4 MB slices.
        for t in range(nt):
            noise = rng.standard_normal((BIG_NY, BIG_NX), dtype=np.float32)
            field[t] = base + np.float32(4.0 * np.cos(0.2 * t)) * wave + 0.5 * noise
        ds.title = f"benchmark file {key}"


def make_big(out: Path, files: int, mb: float) -> None:
    out.mkdir(parents=True, exist_ok=True)
    slice_bytes = BIG_NY * BIG_NX * 4
    nt = max(1, round(mb * 1024 * 1024 / slice_bytes))
    for k in range(files):
        big_file(out / f"big_{k:03d}.nc", k, nt)


# ── command line ─────────────────────────────────────────────────────


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    kinds = parser.add_subparsers(dest="kind", required=True)
    for kind in ("main", "edges", "unsupported", "broken"):
        kinds.add_parser(kind).add_argument("out_dir", type=Path)
    big = kinds.add_parser("big")
    big.add_argument("out_dir", type=Path)
    big.add_argument("--files", type=int, default=1)
    big.add_argument("--mb", type=float, default=512.0)
    args = parser.parse_args()

    out = args.out_dir
    if out.exists() and any(out.iterdir()):
        # A stale file from an earlier run would silently join the corpus.
        parser.error(f"{out} exists and is not empty")
    out.mkdir(parents=True, exist_ok=True)
    if args.kind == "main":
        make_main(out)
    elif args.kind == "edges":
        make_edges(out)
    elif args.kind == "unsupported":
        make_unsupported(out)
    elif args.kind == "broken":
        make_broken(out)
    else:
        make_big(out, args.files, args.mb)


if __name__ == "__main__":
    main()
