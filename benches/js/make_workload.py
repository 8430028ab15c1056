#!/usr/bin/env python3
"""Writes the read benchmark's workload three ways, from one set of values.

    python3 make_workload.py OUT_DIR [--datasets 1000]

- OUT_DIR/netcdf/day_NNNN.nc: one NetCDF file per day (the dataset's name): float32 `temperature`
  [lat 90, lon 180], a one-element `time`, and three global attributes
  (`station`, `elevation_m`, `month`).
- OUT_DIR/atlas/: `atlas create` (atlas-python) of those files.
- OUT_DIR/zarr/: the same temperatures as one zarr v3 array [n, 90, 180],
  shards [100, 90, 180] of zstd inner chunks [1, 90, 180], written by
  zarr-python; dataset names and the attributes sit in its zarr.json.
- OUT_DIR/workload.parquet: one row per dataset (name, the attributes, time,
  temperature as a list of 16,200 float32), zstd, 100 rows per row group.
- OUT_DIR/expected.json: the checksums every reader's answer must match.

Values are smooth (a latitude profile, a seasonal cycle, waves, weather-like
bumps) and derive from the day index, so two runs write the same data.
"""

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

ROWS, COLS = 90, 180
SHARD = 100
W3_DATASET = 500  # W3 reads a 10 x 20 window of this day
W3_START, W3_SHAPE = (40, 85), (10, 20)


def temperature(day: int) -> np.ndarray:
    lat = np.linspace(-89.0, 89.0, ROWS)[:, None]
    lon = np.linspace(0.0, 358.0, COLS)[None, :]
    season = np.cos(2 * np.pi * (day - 200) / 365.25)
    base = 288.0 - 40.0 * np.sin(np.radians(lat)) ** 2 + 12.0 * season * np.sin(np.radians(lat))
    waves = 3.0 * np.sin(np.radians(2 * lon + 7 * day)) * np.cos(np.radians(lat))
    bump = 4.0 * np.exp(-(((lat - 30 * np.sin(day / 17.0)) / 15.0) ** 2 + ((lon - (day * 11) % 360) / 25.0) ** 2))
    return (base + waves + bump).astype(np.float32)


def weighted(values: np.ndarray) -> int:
    """sum((word_i) * (i + 1)) mod 2^32 over 32-bit words: order-sensitive and cheap in JS."""
    words = values.reshape(-1).view(np.uint32).astype(np.uint64)
    weights = np.arange(1, words.size + 1, dtype=np.uint64)
    return int(((words * weights) & 0xFFFFFFFF).sum(dtype=np.uint64) & 0xFFFFFFFF)


def weighted_bytes(data: bytes) -> int:
    """The same sum over bytes (for the catalogue's text)."""
    b = np.frombuffer(data, dtype=np.uint8).astype(np.uint64)
    weights = np.arange(1, b.size + 1, dtype=np.uint64)
    return int((b * weights).sum(dtype=np.uint64) & 0xFFFFFFFF)


def attributes(day: int) -> dict:
    return {
        "station": f"station-{(day * 37) % 997:03d}",
        "elevation_m": float(round(100.0 + 900.0 * abs(np.sin(day / 50.0)), 1)),
        "month": int(1 + (day // 30) % 12),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--datasets", type=int, default=1000)
    args = parser.parse_args()
    out: Path = args.out
    n = args.datasets
    # atlas create names each dataset after its file, extension included.
    names = [f"day_{d:04d}.nc" for d in range(n)]
    out.mkdir(parents=True, exist_ok=True)

    import xarray as xr

    netcdf = out / "netcdf"
    if not (out / "atlas" / "data.atlas").exists():
        netcdf.mkdir(exist_ok=True)
        for day, name in enumerate(names):
            ds = xr.Dataset(
                {
                    "temperature": (("lat", "lon"), temperature(day), {"units": "K"}),
                    "time": ("time", np.array([np.datetime64("2024-01-01", "ns") + np.timedelta64(day, "D")])),
                },
                attrs=attributes(day),
            )
            ds.to_netcdf(netcdf / name, engine="netcdf4")
        subprocess.run(["atlas", "create", str(netcdf), str(out / "atlas"), "-q"], check=True)

    cube = np.stack([temperature(d) for d in range(n)])
    if not (out / "zarr" / "zarr.json").exists():
        import zarr
        from zarr.codecs import ZstdCodec

        array = zarr.create_array(
            store=str(out / "zarr"),
            shape=cube.shape,
            shards=(SHARD, ROWS, COLS),
            chunks=(1, ROWS, COLS),
            dtype="float32",
            compressors=ZstdCodec(level=3),
            fill_value=0.0,
            zarr_format=3,
        )
        array[:] = cube
        array.attrs.update({"datasets": names, "station": [attributes(d)["station"] for d in range(n)]})

    if not (out / "workload.parquet").exists():
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pa.table(
            {
                "name": names,
                "station": [attributes(d)["station"] for d in range(n)],
                "elevation_m": [attributes(d)["elevation_m"] for d in range(n)],
                "month": pa.array([attributes(d)["month"] for d in range(n)], pa.int32()),
                "temperature": pa.array(list(cube.reshape(n, -1)), pa.list_(pa.float32())),
            }
        )
        pq.write_table(table, out / "workload.parquet", compression="zstd", row_group_size=SHARD)

    catalogue = "".join(f"{name}={attributes(d)['station']}\n" for d, name in enumerate(names))
    r, c = W3_START
    h, w = W3_SHAPE
    expected = {
        "datasets": n,
        "shape": [ROWS, COLS],
        "w1": weighted_bytes(catalogue.encode()),
        "w2": weighted(cube),
        "w2_bytes": int(cube.nbytes),
        "w3": weighted(np.ascontiguousarray(cube[W3_DATASET, r : r + h, c : c + w])),
        "w3_dataset": names[W3_DATASET],
        "w3_start": list(W3_START),
        "w3_shape": list(W3_SHAPE),
        "attribute": "station",
        "array": "temperature",
    }
    (out / "expected.json").write_text(json.dumps(expected, indent=2) + "\n")
    print(json.dumps(expected))


if __name__ == "__main__":
    sys.exit(main())
