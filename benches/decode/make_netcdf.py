"""Writes N NetCDF files of smooth float32 [90, 180] temperature fields (one
per day), the input of the decode benchmark: `atlas create` (atlas-python)
turns the directory into a collection of N datasets.

    python3 benches/decode/make_netcdf.py OUT_DIR [--count 1000]
"""
import argparse
import os

import netCDF4
import numpy as np


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--count", type=int, default=1000)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rng = np.random.default_rng(14)
    lat = np.linspace(-89.0, 89.0, 90)
    lon = np.linspace(-179.0, 179.0, 180)
    lon2, lat2 = np.meshgrid(np.radians(lon), np.radians(lat))
    # Climate-like: a pole-to-equator gradient, waves that drift day by day,
    # and sensor noise at 0.01 K, so zstd sees realistic float mantissas.
    base = 288.0 - 40.0 * np.sin(lat2) ** 2
    for day in range(args.count):
        phase = day * 0.05
        field = (
            base
            + 5.0 * np.sin(3 * lon2 + phase) * np.cos(lat2)
            + 2.0 * np.cos(5 * lat2 - 2 * phase)
            + rng.normal(0.0, 0.01, base.shape)
        ).astype(np.float32)
        path = os.path.join(args.out, f"day_{day:04d}.nc")
        with netCDF4.Dataset(path, "w") as nc:
            nc.title = f"synthetic temperature, day {day}"
            nc.source = "atlas-wasm benches/decode"
            nc.day = np.int32(day)
            nc.createDimension("time", 1)
            nc.createDimension("lat", 90)
            nc.createDimension("lon", 180)
            time = nc.createVariable("time", "f8", ("time",))
            time.units = "days since 2000-01-01"
            time[:] = [day]
            temperature = nc.createVariable("temperature", "f4", ("lat", "lon"))
            temperature.units = "K"
            temperature[:] = field


if __name__ == "__main__":
    main()
