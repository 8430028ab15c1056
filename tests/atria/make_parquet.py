"""Writes parquet files with pyarrow, deltalake, polars, duckdb and
fastparquet, for tests/atria_parquet.rs.

  make_parquet.py OUT_DIR

writes OUT_DIR/*.parquet and OUT_DIR/expected.json: for each file its row
count, row-group sizes, column names, each row group's column-chunk byte
ranges (as pyarrow's metadata gives them) and every row as pyarrow reads it
back.
In the JSON, bytes are {"$bin": hex}, floats {"$f": hex of the f64 bits}
(exact, NaN included), temporal values their integer storage (days, or
units of the column's time unit), decimals their unscaled value as the
file holds it (big-endian bytes {"$bin": hex}, or an integer in INT32 and
INT64), UUIDs their 16 bytes, maps lists of [key, value].
"""

import datetime
import decimal
import glob
import json
import os
import shutil
import struct
import sys

import pyarrow as pa
import pyarrow.parquet as pq

import other_writers

ROWS = 100
GROUP = 40  # rows per row group: 3 groups in the typed files


def maybe(i, every, value):
    return None if i % every == every - 1 else value


def typed_table():
    n = range(ROWS)
    words = ["alpha", "béta", "γάμμα", "", "delta 日本"]
    cols = {
        "b": pa.array([maybe(i, 7, i % 3 == 0) for i in n], pa.bool_()),
        "i8": pa.array([maybe(i, 5, (i * 37) % 256 - 128) for i in n], pa.int8()),
        "i16": pa.array([(i * 997) % 65536 - 32768 for i in n], pa.int16()),
        "i32": pa.array([maybe(i, 6, (i * 7919) * (-1) ** i) for i in n], pa.int32()),
        "i64": pa.array(
            [[2**63 - 1, -(2**63), 0][i] if i < 3 else (i * 10**15) * (-1) ** i for i in n],
            pa.int64(),
        ),
        "u8": pa.array([(i * 3) % 256 for i in n], pa.uint8()),
        "u16": pa.array([maybe(i, 9, 65535 - i) for i in n], pa.uint16()),
        "u32": pa.array([2**32 - 1 - i * 12345 for i in n], pa.uint32()),
        "u64": pa.array([2**64 - 1 - i * 10**12 if i % 2 else i for i in n], pa.uint64()),
        "f32": pa.array(
            [maybe(i, 8, [float("nan"), float("inf"), -0.0][i] if i < 3 else i / 3) for i in n],
            pa.float32(),
        ),
        "f64": pa.array(
            [[float("-inf"), 5e-324, 1.7976931348623157e308][i] if i < 3 else maybe(i, 4, i * 1.1) for i in n],
            pa.float64(),
        ),
        "s": pa.array([maybe(i, 3, words[i % len(words)]) for i in n], pa.string()),
        "s_unique": pa.array([f"row {i} " + "x" * (i % 13) for i in n], pa.string()),
        "bin": pa.array([maybe(i, 10, bytes(range(i % 17))) for i in n], pa.binary()),
        "fixed": pa.array([maybe(i, 11, bytes([i, 255 - i, 7])) for i in n], pa.binary(3)),
        "date": pa.array([maybe(i, 12, datetime.date(1960, 1, 1) + datetime.timedelta(days=i * 400)) for i in n], pa.date32()),
        "ts_us": pa.array([i * 1_234_567_890_123 - 10**15 for i in n], pa.int64()).cast(pa.timestamp("us")),
        "ts_ms_utc": pa.array([maybe(i, 13, 1_700_000_000_000 + i) for i in n], pa.int64()).cast(pa.timestamp("ms", "UTC")),
        "ts_ns": pa.array([1_700_000_000_000_000_000 + i * 999 for i in n], pa.int64()).cast(pa.timestamp("ns")),
        "t_us": pa.array([i * 600_000_000 for i in n], pa.int64()).cast(pa.time64("us")),
        "dec": pa.array([maybe(i, 14, decimal.Decimal(i * 12345 - 500000).scaleb(-2)) for i in n], pa.decimal128(10, 2)),
        "dec_wide": pa.array([decimal.Decimal(i * 10**20 - 5 * 10**21).scaleb(-5) for i in n], pa.decimal128(30, 5)),
    }
    return pa.table(cols)


def nested_table():
    n = range(ROWS)
    point = pa.struct([("x", pa.float64()), ("label", pa.string())])
    def ints(i):
        if i % 6 == 0:
            return None
        if i % 6 == 1:
            return []
        return [maybe(j, 4, i * 10 + j) for j in range(i % 5)]
    cols = {
        "id": pa.array(list(n), pa.int64()),
        "ints": pa.array([ints(i) for i in n], pa.list_(pa.int64())),
        "point": pa.array([maybe(i, 5, {"x": i / 4, "label": maybe(i, 3, f"p{i}")}) for i in n], point),
        "points": pa.array(
            [None if i % 9 == 0 else [maybe(j, 3, {"x": float(j), "label": f"{i}.{j}"}) for j in range(i % 4)] for i in n],
            pa.list_(point),
        ),
        "tags": pa.array(
            [None if i % 8 == 0 else [(f"k{j}", maybe(j, 2, i * j)) for j in range(i % 3)] for i in n],
            pa.map_(pa.string(), pa.int64()),
        ),
        "grid": pa.array(
            [None if i % 10 == 0 else [[f"{i}-{j}-{k}" for k in range(j)] if j != 2 else None for j in range(i % 4)] for i in n],
            pa.list_(pa.list_(pa.string())),
        ),
        "record": pa.array(
            [{"name": f"r{i}", "scores": [i, i + 1][: i % 3], "meta": {"a": i % 2 == 0}} for i in n],
            pa.struct([("name", pa.string()), ("scores", pa.list_(pa.int32())), ("meta", pa.struct([("a", pa.bool_())]))]),
        ),
    }
    return pa.table(cols)


def hf_table():
    labels = ["cat", "dog", "bird"]
    rows = []
    for i in range(60):
        png = b"\x89PNG\r\n\x1a\n" + bytes((i * k) % 256 for k in range(40 + i))
        rows.append({
            "text": f"sample {i}: " + "lorem ipsum " * (i % 4),
            "label": i % 3,
            "image": {"bytes": png if i % 5 else None, "path": f"images/{labels[i % 3]}_{i:04d}.png"},
        })
    schema = pa.schema([
        ("text", pa.string()),
        ("label", pa.int64()),
        ("image", pa.struct([("bytes", pa.binary()), ("path", pa.string())])),
    ])
    return pa.Table.from_pylist(rows, schema)


def many_groups_table():
    n = range(1000)
    return pa.table({
        "id": pa.array(list(n), pa.int64()),
        "name": pa.array([f"name-{i:05d}" for i in n], pa.string()),
        "score": pa.array([i * 0.5 for i in n], pa.float64()),
        "payload": pa.array([bytes([i % 256]) * 50 for i in n], pa.binary()),
    })


def wide_table():
    """200 columns in 10 row groups: a footer longer than the reader's
    64 KiB probe."""
    return pa.table({f"column_{c:03d}_with_a_long_name": pa.array([r * 1000 + c for r in range(20)], pa.int64()) for c in range(200)})


def storage_type(t):
    """The type with temporal types replaced by their integer storage,
    extension types (duckdb's UUID) by theirs, and fixed-size lists by
    lists."""
    if isinstance(t, pa.BaseExtensionType):
        return storage_type(t.storage_type)
    if pa.types.is_fixed_size_list(t):
        return pa.list_(pa.field(t.value_field.name, storage_type(t.value_type), t.value_field.nullable))
    if pa.types.is_timestamp(t) or pa.types.is_time64(t) or pa.types.is_duration(t) or pa.types.is_date64(t):
        return pa.int64()
    if pa.types.is_date32(t) or pa.types.is_time32(t):
        return pa.int32()
    if pa.types.is_struct(t):
        return pa.struct([pa.field(f.name, storage_type(f.type), f.nullable) for f in t])
    if pa.types.is_map(t):
        return pa.map_(storage_type(t.key_type), storage_type(t.item_type))
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return pa.list_(pa.field(t.value_field.name, storage_type(t.value_type), t.value_field.nullable))
    return t


def decimal_widths(path):
    """Leaf column path -> FIXED_LEN_BYTE_ARRAY width, for decimals; None
    for decimals in INT32 or INT64 (polars and duckdb write those)."""
    schema = pq.ParquetFile(path).schema
    widths = {}
    for i in range(len(schema)):
        col = schema.column(i)
        if col.physical_type == "FIXED_LEN_BYTE_ARRAY":
            widths[col.path] = col.length
        elif col.physical_type in ("INT32", "INT64") and col.logical_type.type == "DECIMAL":
            widths[col.path] = None
    return widths


def canon(value, t, path, widths):
    if value is None:
        return None
    if pa.types.is_struct(t):
        return {f.name: canon(value[f.name], f.type, f"{path}.{f.name}", widths) for f in t}
    if pa.types.is_map(t):
        return [[canon(k, t.key_type, path, widths), canon(v, t.item_type, path, widths)] for k, v in value]
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return [canon(v, t.value_type, path, widths) for v in value]
    if isinstance(value, bool):
        return value
    if isinstance(value, float):
        return {"$f": struct.pack(">d", value).hex()}
    if isinstance(value, (bytes, bytearray)):
        return {"$bin": bytes(value).hex()}
    if isinstance(value, decimal.Decimal):
        sign, digits, exp = value.as_tuple()
        unscaled = int("".join(map(str, digits)) or "0") * (-1 if sign else 1)
        unscaled *= 10 ** (exp + t.scale)
        width = next(w for p, w in widths.items() if p.split(".")[0] == path.split(".")[0])
        if width is None:
            return unscaled
        return {"$bin": unscaled.to_bytes(width, "big", signed=True).hex()}
    return value


def dump(path):
    f = pq.ParquetFile(path)
    table = f.read()
    table = table.cast(pa.schema([pa.field(fl.name, storage_type(fl.type), fl.nullable) for fl in table.schema]))
    widths = decimal_widths(path)
    rows = [
        {name: canon(row[name], table.schema.field(name).type, name, widths) for name in table.column_names}
        for row in table.to_pylist()
    ]
    md = f.metadata
    chunk_ranges = []
    for g in range(md.num_row_groups):
        ranges = []
        for c in range(md.row_group(g).num_columns):
            col = md.row_group(g).column(c)
            start = col.data_page_offset
            if col.has_dictionary_page and 0 < col.dictionary_page_offset < start:
                start = col.dictionary_page_offset
            ranges.append([start, start + col.total_compressed_size])
        chunk_ranges.append(ranges)
    return {
        "chunk_ranges": chunk_ranges,
        "num_rows": md.num_rows,
        "row_groups": [md.row_group(i).num_rows for i in range(md.num_row_groups)],
        "columns": table.column_names,
        "rows": rows,
    }


def write_delta(out):
    """A delta-rs table with 12 commits and a checkpoint; keeps its checkpoint
    and one data file."""
    import deltalake

    table_dir = os.path.join(out, "delta-table")
    for i in range(12):
        batch = pa.table({
            "id": pa.array([i * 10 + j for j in range(10)], pa.int64()),
            "part": pa.array([f"p{i % 3}"] * 10, pa.string()),
            "text": pa.array([f"commit {i} row {j}" for j in range(10)], pa.string()),
        })
        deltalake.write_deltalake(table_dir, batch, mode="append", partition_by=["part"])
    dt = deltalake.DeltaTable(table_dir)
    dt.create_checkpoint()
    checkpoint = sorted(glob.glob(os.path.join(table_dir, "_delta_log", "*.checkpoint.parquet")))[-1]
    shutil.copy(checkpoint, os.path.join(out, "delta_checkpoint.parquet"))
    data = sorted(glob.glob(os.path.join(table_dir, "part=p1", "*.parquet")))[0]
    shutil.copy(data, os.path.join(out, "delta_data.parquet"))
    shutil.rmtree(table_dir)


def required_table():
    schema = pa.schema([pa.field("n", pa.int32(), nullable=False), pa.field("s", pa.string(), nullable=False)])
    return pa.table({"n": list(range(-20, 30)), "s": [f"row {i}" for i in range(50)]}, schema=schema)


def varint_end(data, at):
    while data[at] & 0x80:
        at += 1
    return at + 1


def name_levels_bit_packed(path):
    """Rewrites each data page header of `path` (v1 pages, one per column
    chunk, no CRC) to say its levels are in the deprecated BIT_PACKED
    encoding, as parquet-mr says for columns without levels; the level
    bytes stay as they are."""
    data = bytearray(open(path, "rb").read())
    meta = pq.ParquetFile(path).metadata
    for g in range(meta.num_row_groups):
        for c in range(meta.num_columns):
            at = meta.row_group(g).column(c).data_page_offset
            # PageHeader: type, uncompressed and compressed sizes (i32 fields
            # 1-3), then field 5, the DataPageHeader: num_values, encoding,
            # definition and repetition level encodings (i32 fields 1-4).
            for _ in range(3):
                assert data[at] == 0x15, (path, g, c, at)
                at = varint_end(data, at + 1)
            assert data[at] == 0x2C, (path, g, c, at)
            at += 1
            for _ in range(2):
                assert data[at] == 0x15
                at = varint_end(data, at + 1)
            # RLE (3) as a zigzag varint is 6; BIT_PACKED (4) is 8.
            assert bytes(data[at : at + 4]) == b"\x15\x06\x15\x06", bytes(data[at : at + 4])
            data[at + 1] = data[at + 3] = 8
    open(path, "wb").write(bytes(data))


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    typed = typed_table()
    ints = ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "date", "ts_us", "ts_ms_utc", "ts_ns", "t_us"]
    files = {}
    for codec in ["none", "snappy", "gzip", "zstd", "lz4"]:
        files[f"types_{codec}"] = (typed, dict(compression=codec, row_group_size=GROUP))
    files["types_plain"] = (typed, dict(use_dictionary=False, row_group_size=GROUP, data_page_size=256))
    # Format 1.0: PLAIN_DICTIONARY pages (and the types 1.0 has).
    files["types_format1"] = (typed.drop_columns(["ts_ns"]), dict(version="1.0", row_group_size=GROUP))
    # Dictionaries that outgrow their page: a chunk falls back to PLAIN pages.
    files["dict_fallback"] = (typed, dict(dictionary_pagesize_limit=100, data_page_size=128, row_group_size=GROUP))
    files["types_v2"] = (typed, dict(data_page_version="2.0", compression="zstd", row_group_size=GROUP))
    delta_encodings = dict(
        use_dictionary=False,
        row_group_size=GROUP,
        data_page_size=300,
        column_encoding={
            **{c: "DELTA_BINARY_PACKED" for c in ints},
            "b": "RLE",
            "s": "DELTA_LENGTH_BYTE_ARRAY",
            "s_unique": "DELTA_BYTE_ARRAY",
            "bin": "DELTA_BYTE_ARRAY",
            "fixed": "BYTE_STREAM_SPLIT",
            "f32": "BYTE_STREAM_SPLIT",
            "f64": "BYTE_STREAM_SPLIT",
            "dec": "DELTA_BYTE_ARRAY",
        },
    )
    files["types_delta_v1"] = (typed, dict(delta_encodings, compression="snappy"))
    files["types_delta_v2"] = (typed, dict(delta_encodings, data_page_version="2.0", compression="zstd"))
    # A codec this reader refuses (UnsupportedProtocol).
    files["unsupported_brotli"] = (typed, dict(compression="brotli"))
    files["int96"] = (
        pa.table({"ts": pa.array([maybe(i, 4, -(10**18) + i * 86_400_000_000_123) for i in range(30)], pa.int64()).cast(pa.timestamp("ns"))}),
        dict(use_deprecated_int96_timestamps=True),
    )
    nested = nested_table()
    files["nested"] = (nested, dict(row_group_size=GROUP))
    files["nested_plain_v2"] = (nested, dict(row_group_size=GROUP, use_dictionary=False, data_page_version="2.0", compression="gzip", data_page_size=200))
    files["wide"] = (wide_table(), dict(row_group_size=2))
    files["hf"] = (hf_table(), dict(row_group_size=25))
    files["many_groups"] = (many_groups_table(), dict(row_group_size=100, compression="snappy"))
    # No columns: pyarrow writes one empty row group and reads it back.
    files["no_columns"] = (pa.table({}), {})
    expected = {}
    for name, (table, options) in files.items():
        path = os.path.join(out, f"{name}.parquet")
        pq.write_table(table, path, **options)
        expected[name] = dump(path)
    # Levels named BIT_PACKED: read where the columns have none (what
    # pyarrow reads of the rewritten file is the expectation), refused where
    # they have some (that file's expectation is the one written before).
    for name, table in [("bit_packed_required", required_table()), ("unsupported_bit_packed", typed)]:
        path = os.path.join(out, f"{name}.parquet")
        pq.write_table(table, path, use_dictionary=False, compression="none", data_page_size=1 << 20)
        if name.startswith("unsupported"):
            expected[name] = dump(path)
        name_levels_bit_packed(path)
        if not name.startswith("unsupported"):
            expected[name] = dump(path)
    # Codec LZ4 (5) as other writers wrote it, from apache/parquet-testing
    # (tests/atria/parquet-testing/README.md): Hadoop's framing, one frame
    # and many, and a bare LZ4 block under the same codec.
    here = os.path.dirname(os.path.abspath(__file__))
    for name in ["hadoop_lz4_compressed", "hadoop_lz4_compressed_larger", "non_hadoop_lz4_compressed"]:
        path = os.path.join(out, f"lz4_{name}.parquet")
        shutil.copy(os.path.join(here, "parquet-testing", f"{name}.parquet"), path)
        expected[f"lz4_{name}"] = dump(path)
    # polars, duckdb and fastparquet, by default and with their common
    # options (other_writers.py).
    for name in other_writers.write_all(out):
        expected[name] = dump(os.path.join(out, f"{name}.parquet"))
    write_delta(out)
    for name in ["delta_checkpoint", "delta_data"]:
        expected[name] = dump(os.path.join(out, f"{name}.parquet"))
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True, ensure_ascii=False)


if __name__ == "__main__":
    main()
    # deltalake's native runtime can abort the interpreter's shutdown
    # ("terminate called without an active exception", seen in a full test
    # run) after everything is written: leave without the finalisers.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
