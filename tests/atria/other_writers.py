"""Parquet files from writers other than pyarrow, for make_parquet.py:
polars, duckdb and fastparquet (pinned in requirements.txt), each with what
it writes by default and with its common options. make_parquet.py checks
every file against pyarrow's reading of it, as it does its own files.

write_all(OUT_DIR) writes OUT_DIR/<name>.parquet and returns the names.

Left out because pyarrow 26 cannot read them: polars Int128 columns
("Integers with more than 64 bits not implemented"). duckdb writes HUGEINT
as DOUBLE, so that one is in.
"""

import datetime
import decimal
import os
import shutil

ROWS = 120


def maybe(i, every, value):
    return None if i % every == every - 1 else value


def polars_frame():
    import polars as pl

    n = range(ROWS)
    words = ["alpha", "béta", "γάμμα", "", "delta 日本"]
    paris = datetime.datetime(2020, 3, 29, 0, 30)  # across the DST change
    return pl.DataFrame({
        "id": pl.Series(list(n), dtype=pl.Int64),
        "i8": pl.Series([maybe(i, 5, (i * 37) % 256 - 128) for i in n], dtype=pl.Int8),
        "i32": pl.Series([maybe(i, 6, i * 7919 * (-1) ** i) for i in n], dtype=pl.Int32),
        "u16": pl.Series([65535 - i for i in n], dtype=pl.UInt16),
        "u64": pl.Series([2**64 - 1 - i * 10**12 if i % 2 else i for i in n], dtype=pl.UInt64),
        "f32": pl.Series([maybe(i, 8, [float("nan"), float("inf"), -0.0][i] if i < 3 else i / 3) for i in n], dtype=pl.Float32),
        "f64": pl.Series([maybe(i, 4, i * 1.1) for i in n], dtype=pl.Float64),
        "b": pl.Series([maybe(i, 7, i % 3 == 0) for i in n], dtype=pl.Boolean),
        "s": pl.Series([maybe(i, 3, words[i % 5] * (i % 3)) for i in n], dtype=pl.String),
        "s_unique": pl.Series([f"row {i} " + "x" * (i % 13) for i in n], dtype=pl.String),
        "cat": pl.Series([maybe(i, 6, ["red", "green", "blue"][i % 3]) for i in n], dtype=pl.Categorical),
        "enum": pl.Series([["lo", "mid", "hi"][i % 3] for i in n], dtype=pl.Enum(["lo", "mid", "hi"])),
        "bin": pl.Series([maybe(i, 10, bytes(range(i % 17))) for i in n], dtype=pl.Binary),
        "date": pl.Series([maybe(i, 12, datetime.date(1960, 1, 1) + datetime.timedelta(days=i * 400)) for i in n], dtype=pl.Date),
        "dt_us": pl.Series([datetime.datetime(1969, 12, 31, 23) + datetime.timedelta(seconds=i * 1234567, microseconds=i) for i in n], dtype=pl.Datetime("us")),
        "dt_ms_utc": pl.Series([maybe(i, 13, paris + datetime.timedelta(milliseconds=i * 3_600_123)) for i in n], dtype=pl.Datetime("ms", "UTC")),
        "dt_ns_paris": pl.Series([paris + datetime.timedelta(minutes=37 * i) for i in n], dtype=pl.Datetime("ns", "UTC")).dt.convert_time_zone("Europe/Paris"),
        "dur": pl.Series([datetime.timedelta(microseconds=i * 12345 - 100000) for i in n], dtype=pl.Duration("us")),
        "time": pl.Series([datetime.time(i % 24, i % 60, (i * 7) % 60, i * 1000) for i in n], dtype=pl.Time),
        "dec": pl.Series([maybe(i, 14, decimal.Decimal(i * 12345 - 500000).scaleb(-2)) for i in n], dtype=pl.Decimal(10, 2)),
        "dec_wide": pl.Series([decimal.Decimal(i * 10**20 - 5 * 10**21).scaleb(-5) for i in n], dtype=pl.Decimal(30, 5)),
        "ints": pl.Series([None if i % 6 == 0 else [maybe(j, 4, i * 10 + j) for j in range(i % 5)] for i in n], dtype=pl.List(pl.Int64)),
        "words": pl.Series([None if i % 9 == 0 else [words[(i + j) % 5] for j in range(i % 4)] for i in n], dtype=pl.List(pl.String)),
        "grid": pl.Series([[[i, j] for j in range(i % 3)] for i in n], dtype=pl.List(pl.List(pl.Int32))),
        "triple": pl.Series([[i, i + 1, -i] for i in n], dtype=pl.Array(pl.Int16, 3)),
        "point": pl.Series(
            [maybe(i, 5, {"x": i / 4, "label": maybe(i, 3, f"p{i}"), "tags": [f"t{j}" for j in range(i % 3)]}) for i in n],
            dtype=pl.Struct({"x": pl.Float64, "label": pl.String, "tags": pl.List(pl.String)}),
        ),
        "points": pl.Series(
            [None if i % 9 == 0 else [{"x": float(j), "label": f"{i}.{j}"} for j in range(i % 4)] for i in n],
            dtype=pl.List(pl.Struct({"x": pl.Float64, "label": pl.String})),
        ),
    })


def write_polars(out):
    df = polars_frame()
    files = {
        # The default: zstd, statistics, one row group.
        "polars_default": {},
        "polars_lz4": dict(compression="lz4", row_group_size=40),
        "polars_snappy": dict(compression="snappy", row_group_size=40),
        "polars_gzip": dict(compression="gzip", row_group_size=50),
        "polars_uncompressed": dict(compression="uncompressed", statistics=False, row_group_size=25),
        "polars_full_stats": dict(statistics="full", row_group_size=40, data_page_size=256),
    }
    for name, options in files.items():
        df.write_parquet(os.path.join(out, f"{name}.parquet"), **options)
    return list(files)


DUCKDB_TYPES = """
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE TABLE t AS SELECT
  i::BIGINT AS id,
  CASE WHEN i % 7 = 6 THEN NULL ELSE (i * 37 % 256 - 128)::TINYINT END AS i8,
  (i * 997 % 65536 - 32768)::SMALLINT AS i16,
  (i * 7919 * CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END)::INTEGER AS i32,
  (i * 3 % 256)::UTINYINT AS u8,
  (65535 - i)::USMALLINT AS u16,
  (4294967295 - i * 12345)::UINTEGER AS u32,
  (18446744073709551615 - i * 1000000000000)::UBIGINT AS u64,
  (i::HUGEINT * 10000000000000000000000 - 170141183460469231731687303715884105727) AS huge,
  CASE WHEN i % 8 = 7 THEN NULL ELSE i / 3 END::FLOAT AS f32,
  CASE WHEN i = 0 THEN 'NaN'::DOUBLE WHEN i = 1 THEN '-inf'::DOUBLE ELSE i * 1.1 END AS f64,
  CASE WHEN i % 5 = 4 THEN NULL ELSE i % 3 = 0 END AS b,
  CASE WHEN i % 3 = 2 THEN NULL ELSE repeat('béta日本', i % 4) END AS s,
  'row ' || i::VARCHAR || repeat('x', i % 13) AS s_unique,
  CASE WHEN i % 10 = 9 THEN NULL ELSE ('\\x00\\xFF' || i::VARCHAR)::BLOB END AS blob,
  ((i * 37 % 1999 - 999) / 10)::DECIMAL(4, 1) AS dec4,
  ((i * 12345 - 500000) / 100)::DECIMAL(9, 2) AS dec9,
  (i * 123456789 - 50)::DECIMAL(18, 3) AS dec18,
  CASE WHEN i % 11 = 10 THEN NULL ELSE (i * 12345678901234567 - 5)::DECIMAL(38, 10) END AS dec38,
  DATE '1960-01-01' + (i * 400)::INTEGER AS d,
  TIME '00:00:00' + INTERVAL (i * 601) SECOND AS t,
  TIMESTAMP '1969-12-31 23:00:00' + INTERVAL (i * 1234567) SECOND AS ts,
  (TIMESTAMP '2020-01-01' + INTERVAL (i) SECOND)::TIMESTAMP_S AS ts_s,
  (TIMESTAMP '2020-01-01' + INTERVAL (i * 7) MILLISECOND)::TIMESTAMP_MS AS ts_ms,
  make_timestamp_ns(1577836800000000000 + i * 999) AS ts_ns,
  TIMESTAMPTZ '2020-03-29 00:30:00+00' + INTERVAL (i * 37) MINUTE AS tstz,
  ('00000000-0000-4000-8000-' || lpad(i::VARCHAR, 12, '0'))::UUID AS uuid,
  (['sad', 'ok', 'happy'])[i % 3 + 1]::mood AS mood,
  CASE WHEN i % 6 = 0 THEN NULL ELSE list_transform(range(i % 5), lambda j: CASE WHEN j = 3 THEN NULL ELSE i * 10 + j END) END AS ints,
  [i::INTEGER, (i + 1)::INTEGER, (-i)::INTEGER]::INTEGER[3] AS triple,
  CASE WHEN i % 5 = 4 THEN NULL ELSE {'x': i / 4, 'label': CASE WHEN i % 3 = 2 THEN NULL ELSE 'p' || i::VARCHAR END} END AS point,
  list_transform(range(i % 4), lambda j: {'x': j::DOUBLE, 'label': i::VARCHAR || '.' || j::VARCHAR}) AS points,
  CASE WHEN i % 8 = 0 THEN NULL ELSE map_from_entries(list_transform(range(i % 3), lambda j: {'k': 'k' || j::VARCHAR, 'v': CASE WHEN j = 1 THEN NULL ELSE i * j END})) END AS tags,
  list_transform(range(i % 3), lambda j: list_transform(range(j), lambda k: i::VARCHAR || '-' || k::VARCHAR)) AS grid
FROM range(200) r(i);
"""


def write_duckdb(out):
    import duckdb

    con = duckdb.connect()
    con.execute("SET threads = 1")  # row groups in row order
    con.execute(DUCKDB_TYPES)
    files = {
        # The default: snappy, row groups of 122,880 rows (one here).
        "duckdb_default": "FORMAT parquet",
        # ROW_GROUP_SIZE counts in vectors of 2,048 rows; a byte limit
        # splits these 200 rows.
        "duckdb_zstd_groups": "FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE_BYTES 16000",
        "duckdb_uncompressed": "FORMAT parquet, COMPRESSION uncompressed",
        "duckdb_gzip": "FORMAT parquet, COMPRESSION gzip",
        "duckdb_lz4": "FORMAT parquet, COMPRESSION lz4",
        # V2: data pages v2 and the DELTA_* and BYTE_STREAM_SPLIT encodings
        # (without the UINTEGER column, which pyarrow cannot read back).
        "duckdb_v2": "FORMAT parquet, PARQUET_VERSION v2, ROW_GROUP_SIZE_BYTES 30000",
        "duckdb_v2_zstd": "FORMAT parquet, PARQUET_VERSION v2, COMPRESSION zstd",
        # No dictionaries: PLAIN pages for every column.
        "duckdb_no_dictionary": "FORMAT parquet, DICTIONARY_SIZE_LIMIT 0",
    }
    for name, options in files.items():
        path = os.path.join(out, f"{name}.parquet")
        table = "(SELECT * EXCLUDE (u32) FROM t)" if "v2" in options else "t"
        con.execute(f"COPY {table} TO '{path}' ({options})")
    con.close()
    return list(files)


def pandas_frame():
    import numpy as np
    import pandas as pd

    n = 150
    i = np.arange(n)
    return pd.DataFrame({
        "i64": i.astype("int64") * -3,
        "i32": (i * 7919 * (-1) ** i).astype("int32"),
        "u16": (65535 - i).astype("uint16"),
        "u64": (2**64 - 1 - i.astype("uint64")),
        "f32": np.linspace(-1, 1, n, dtype="float32"),
        "f64": np.where(i % 5 == 4, np.nan, i * 1.1),
        "n_int": pd.array([None if k % 4 == 3 else k for k in range(n)], dtype="Int32"),
        "b": i % 3 == 0,
        "n_bool": pd.array([None if k % 5 == 0 else k % 2 == 0 for k in range(n)], dtype="boolean"),
        "s": [None if k % 3 == 2 else "béta日本" * (k % 4) for k in range(n)],
        "s_string": pd.array([None if k % 3 == 2 else f"s{k}" for k in range(n)], dtype="string"),
        "by": [bytes(range(k % 9)) for k in range(n)],
        "cat": pd.Categorical([["red", "green", "blue"][k % 3] if k % 7 else None for k in range(n)]),
        "ts": pd.to_datetime(i * 1_234_567_890_123 - 10**15, unit="ns"),
        "ts_paris": pd.to_datetime(i * 60_000_000_000 + 1_585_441_800_000_000_000, unit="ns")
        .tz_localize("UTC")
        .tz_convert("Europe/Paris"),
        "td": pd.to_timedelta(i * 12345, unit="us"),
    })


def write_fastparquet(out):
    import fastparquet
    import fastparquet.writer

    df = pandas_frame()
    files = {
        # The default: no compression, one row group, v1 pages.
        "fastparquet_default": {},
        "fastparquet_gzip": dict(compression="GZIP", row_group_offsets=50),
        "fastparquet_snappy": dict(compression="SNAPPY", row_group_offsets=[0, 10, 100]),
        "fastparquet_zstd": dict(compression="ZSTD", row_group_offsets=60),
        # fastparquet's LZ4 is a bare LZ4 block under codec LZ4 (5).
        "fastparquet_lz4": dict(compression="LZ4", row_group_offsets=70),
        "fastparquet_lz4_raw": dict(compression="LZ4_RAW"),
        "fastparquet_int96": dict(times="int96", compression="SNAPPY"),
        "fastparquet_no_nulls": dict(has_nulls=False, object_encoding={"s": "utf8", "by": "bytes", "code": "bytes"}, fixed_text={"code": 3}),
        "fastparquet_json": dict(object_encoding={"s": "json", "by": "bytes", "s_string": "utf8"}, stats=False),
    }
    files = {name: (df, options) for name, options in files.items()}
    # has_nulls=False makes every column REQUIRED: only columns without nulls.
    # fixed_text on bytes: FIXED_LEN_BYTE_ARRAY (on text pyarrow refuses it,
    # "UTF8 can only annotate BYTE_ARRAY fields").
    required = df.drop(columns=["n_int", "n_bool", "cat"]).fillna({"s": "", "s_string": "none"})
    required["code"] = [bytes([k, 255 - k, 7]) for k in range(len(required))]
    files["fastparquet_no_nulls"] = (required, files["fastparquet_no_nulls"][1])
    for name, (frame, options) in files.items():
        fastparquet.write(os.path.join(out, f"{name}.parquet"), frame, **options)
    # Data pages v2: fastparquet takes the page version from a module global.
    saved = fastparquet.writer.DATAPAGE_VERSION
    fastparquet.writer.DATAPAGE_VERSION = 2
    try:
        for name, options in {"fastparquet_v2": {}, "fastparquet_v2_zstd": dict(compression="ZSTD", row_group_offsets=50)}.items():
            fastparquet.write(os.path.join(out, f"{name}.parquet"), df, **options)
            files[name] = (df, options)
    finally:
        fastparquet.writer.DATAPAGE_VERSION = saved
    # file_scheme="hive": a directory of part files, each a parquet file of
    # its own, and a _metadata file whose column chunks name their part
    # (file_path), which this reader refuses.
    parts = os.path.join(out, "fastparquet_hive")
    fastparquet.write(parts, df, file_scheme="hive", row_group_offsets=[0, 60], compression="SNAPPY")
    os.replace(os.path.join(parts, "part.1.parquet"), os.path.join(out, "fastparquet_hive_part.parquet"))
    os.replace(os.path.join(parts, "_metadata"), os.path.join(out, "unsupported_fastparquet_metadata.parquet"))
    shutil.rmtree(parts)
    return list(files) + ["fastparquet_hive_part"]


def write_all(out):
    return write_polars(out) + write_duckdb(out) + write_fastparquet(out)
