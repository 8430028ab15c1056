"""Writes a small Atria-style cache with the real writers, for tests/atria_*.rs.

Layout under OUT (two configs: "docs", the MSGPACK layout beside the bare
TAR shards and a JSON pointer table; "docs_delta", the DELTALAKE layout):

  docs/shards/{split}/{worker:06d}-{shard:06d}.tar   webdataset.ShardWriter, PAX
  docs/pointers/{split}.json                         the pointer table (one row per
                                                     member, as Atria's writer
                                                     records it) with the truth
  docs/msgpack/{split}/{worker:06d}-{shard:06d}.msgpack  datadings FileWriter,
                                                     with its sidecars
  docs_delta/delta/{split}/                          the Delta Lake table (deltalake)
  docs_delta/shards/{split}/...tar                   its TAR shards (as above)
  docs_delta/data/{split}/...pdf                     its copied PDFs
  partitioned/delta/train/                           a Delta table partitioned by
                                                     a column of each type, as a
                                                     one-split cache
  mapped/delta/{train,test}/                         column-mapped Delta tables
                                                     (modes name and id), renamed
  expected.json                                      what a reader must return

In docs, a JSON pointer table stands in for the Delta table, with the truth.
Atria's writer records `shards/...tar?offset=O&length=L` for each member; at a
shard rotation it records wrong pointers. `AtriaPointerWriter` reproduces the
three defects of such pointers, one per rotation in turn:

  stale-previous  the previous shard's name with the new shard's offset
  neighbour       the new shard, but the offset of the sample's other member
  past-end        the previous shard, at an offset past its end

Every row also carries the member it should have named (shard, name, data
offset, size, sha256), found from tarfile's own bookkeeping after the write,
the member's naming, and the defect a reader must report for a wrong pointer
(`reported`: what lies at the pointer, from the same bookkeeping).

Member names: Atria's DeltalakeWriterWorker writes each binary field as the
sample entry `{field}__content`, so its members are `{key}.{field}__content`
(naming "content"); other WebDataset writers, and the bare TAR layout here,
name them `{key}.{field}` (naming "field"). The DELTALAKE layout's train
split has Atria's naming, its test split the other.
"""

import datetime
import decimal
import hashlib
import json
import os
import random
import sys
import tarfile

import datadings.writer
import numpy as np
import pyarrow as pa
import webdataset as wds
from deltalake import DeltaTable, QueryBuilder, write_deltalake

CONFIG = "docs"
SPLITS = {"train": 22, "test": 9}  # samples per worker
WORKERS = 2
SAMPLES_PER_SHARD = 4
# A float, as time.time() is: Python's PAX writer then puts `mtime` in a PAX
# header before every member, as Atria's real shards have.
MTIME = 1_700_000_000.25
DEFECTS = ["stale-previous", "neighbour", "past-end"]
# The member-name suffix of each naming.
SUFFIX = {"content": "__content", "field": ""}
DELTA_NAMING = {"train": "content", "test": "field"}


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def sample_key(split, worker, i):
    """Mostly plain keys; some non-ASCII, some too long for a ustar name."""
    if i % 7 == 3:
        return f"{split}-{worker}-échantillon-{i:04d}-日本語"
    if i % 7 == 5:
        return f"{split}-{worker}-" + "long" * 30 + f"-{i:04d}"
    return f"{split}-{worker}-{i:06d}"


def sample_fields(rng, key, i):
    """The fields of one WebDataset sample: extension -> bytes."""
    image = bytes(rng.getrandbits(8) for _ in range(rng.randrange(1, 3000)))
    meta = json.dumps({"key": key, "label": i % 5}, ensure_ascii=False).encode()
    fields = {"png": image, "json": meta}
    if i % 4 == 0:
        fields["pdf"] = b"%PDF-1.4\n" + bytes(rng.getrandbits(8) for _ in range(700))
    return fields


class AtriaPointerWriter:
    """A ShardWriter plus the pointer bookkeeping of Atria's writer, bug included."""

    def __init__(self, root, split, worker, rotation_counter, naming="field"):
        self.root = root
        self.naming = naming
        self.suffix = SUFFIX[naming]
        self.split = split
        self.worker = worker
        self.rotations = rotation_counter
        self.written = []
        pattern = os.path.join(root, "shards", split, f"{worker:06d}-%06d.tar")
        os.makedirs(os.path.dirname(pattern), exist_ok=True)
        self.writer = wds.ShardWriter(
            pattern,
            maxcount=SAMPLES_PER_SHARD,
            verbose=0,
            mtime=MTIME,
            format="PAX_FORMAT",
        )

    def relative(self, fname):
        return os.path.relpath(fname, self.root).replace(os.sep, "/")

    def write(self, key, fields):
        before = self.writer.fname
        rotates = self.writer.count >= self.writer.maxcount
        self.writer.write({"__key__": key, **{f + self.suffix: v for f, v in fields.items()}})
        defect = DEFECTS[next(self.rotations) % len(DEFECTS)] if rotates else None
        self.written.append((key, sorted(fields), fields, before, self.writer.fname, defect))

    def rows(self):
        """The pointer rows, once the shards are closed: tarfile reads back
        where each member's data landed, which is what Atria meant to record."""
        members = {}
        for _, _, _, before, fname, _ in self.written:
            for f in (before, fname):
                if self.relative(f) not in members:
                    with tarfile.open(f) as tar:
                        members[self.relative(f)] = {ti.name: ti for ti in tar.getmembers()}
        rows = []
        for key, names, fields, before, fname, defect in self.written:
            truth = [
                {
                    "shard": self.relative(fname),
                    "name": f"{key}.{ext}{self.suffix}",
                    "offset": members[self.relative(fname)][f"{key}.{ext}{self.suffix}"].offset_data,
                    "size": len(fields[ext]),
                    "sha256": sha256(fields[ext]),
                }
                for ext in names
            ]
            for n, member in enumerate(truth):
                path, offset = member["shard"], member["offset"]
                if defect == "stale-previous":
                    path = self.relative(before)
                elif defect == "neighbour":
                    offset = truth[(n + 1) % len(truth)]["offset"]
                elif defect == "past-end":
                    path = self.relative(before)
                    offset += os.path.getsize(before)
                rows.append(
                    {
                        "key": key,
                        "field": names[n],
                        "pointer": f"{path}?offset={offset}&length={member['size']}",
                        "defect": defect,
                        "reported": reported(members, self.root, path, offset, member["size"])
                        if defect else None,
                        "naming": self.naming,
                        "expected": member,
                    }
                )
        return rows

    def close(self):
        self.writer.close()


def reported(members, root, path, offset, length):
    """The defect a reader reports for a wrong pointer: PastEnd when the range
    ends past the shard, OtherMember when a member's data starts at the
    offset, else NoHeader (a PAX header, member data or the archive's end is
    before it). Every offset here is a data offset, so block-aligned."""
    if offset + length > os.path.getsize(os.path.join(root, path)):
        return "PastEnd"
    if any(ti.offset_data == offset for ti in members[path].values()):
        return "OtherMember"
    return "NoHeader"


def counter():
    n = 0
    while True:
        yield n
        n += 1


def write_tar_layout(root, rng):
    expected = {}
    rotations = counter()
    for split, count in SPLITS.items():
        rows = []
        for worker in range(WORKERS):
            writer = AtriaPointerWriter(root, split, worker, rotations)
            for i in range(count):
                key = sample_key(split, worker, i)
                writer.write(key, sample_fields(rng, key, i))
            writer.close()
            rows += writer.rows()
        os.makedirs(os.path.join(root, "pointers"), exist_ok=True)
        with open(os.path.join(root, "pointers", f"{split}.json"), "w") as f:
            json.dump(rows, f, ensure_ascii=False, indent=1)
        shards = sorted(
            f"shards/{split}/{name}" for name in os.listdir(os.path.join(root, "shards", split))
        )
        expected[split] = {"shards": {}}
        for shard in shards:
            with tarfile.open(os.path.join(root, shard)) as tar:
                members = [
                    {"name": ti.name, "offset": ti.offset_data, "size": ti.size}
                    for ti in tar.getmembers()
                ]
            expected[split]["shards"][shard] = members
    return expected


def numpy_json(value):
    """What our reader must return for a numpy value: dtype, shape, elements."""
    names = {
        "b": "bool", "i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64",
        "u1": "uint8", "u2": "uint16", "u4": "uint32", "u8": "uint64",
        "f4": "float32", "f8": "float64",
    }
    code = value.dtype.kind + ("" if value.dtype.kind == "b" else str(value.dtype.itemsize))
    if value.dtype.kind == "U":
        dtype = "string"
    else:
        dtype = names[code]
    flat = np.asarray(value).reshape(-1)
    data = [x.item() for x in flat]
    return {"$nd": {"dtype": dtype, "shape": list(np.shape(value)), "data": data}}


def canonical(value):
    """The JSON a reader's value must equal (bytes as hex, numpy as $nd)."""
    if isinstance(value, (np.ndarray, np.generic)):
        return numpy_json(value)
    if isinstance(value, bytes):
        return {"$bin": value.hex()}
    if isinstance(value, dict):
        return {k: canonical(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [canonical(v) for v in value]
    return value


def msgpack_record(rng, split, worker, i):
    key = sample_key(split, worker, i)
    rows, cols = rng.randrange(1, 4), rng.randrange(1, 5)
    return {
        "key": key,
        "label": i % 5,
        "caption": f"échantillon {i} — {split}",
        "score": i / 8,
        "image": bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 600))),
        "pixels": np.arange(rows * cols, dtype=np.uint8).reshape(rows, cols) + i,
        "boxes": np.array([[0.5 * i, 1.25], [-2.0, 1e10]], dtype=np.float32),
        "big_endian": np.array([1, -2, 3 * i], dtype=">i4"),
        "empty": np.zeros((0, 3), dtype=np.float64),
        "empty_1d": np.array([], dtype=np.int16),
        "mask": np.array([True, False, i % 2 == 0]),
        "ids": np.array([2**63 + i, 7], dtype=np.uint64),
        "count": np.int64(-i),
        "ratio": np.float32(0.5 + i),
        "flag": np.bool_(i % 3 == 0),
        "small": np.uint8(i % 256),
        "words": np.array(["a", "bé", "ccc"]),
        "zero_d": np.array(3.5),
        "nested": {"tags": ["x", "y"], "none": None, "depth": [1, [2, [3]]]},
    }


def write_msgpack_layout(root, rng):
    expected = {}
    for split, count in SPLITS.items():
        shards = {}
        for worker in range(WORKERS):
            records = [msgpack_record(rng, split, worker, i) for i in range(count)]
            for s in range(0, count, SAMPLES_PER_SHARD * 2):
                shard = f"msgpack/{split}/{worker:06d}-{s // (SAMPLES_PER_SHARD * 2):06d}.msgpack"
                part = records[s:s + SAMPLES_PER_SHARD * 2]
                path = os.path.join(root, shard)
                with datadings.writer.FileWriter(path, overwrite=True, disable=True) as w:
                    for record in part:
                        w.write(record)
                shards[shard] = {
                    "count": len(part),
                    "keys": [r["key"] for r in part],
                    "records": [canonical(r) for r in part],
                }
        expected[split] = {"shards": shards}
    return expected


DELTA_CONFIG = "docs_delta"
# Small enough that the train table (> 100 commits) has checkpoints, the
# last one followed by JSON commits; the test table stays under it.
CHECKPOINT_INTERVAL = 40
DELTA_SCHEMA = pa.schema(
    [
        ("__key__", pa.string()),
        ("index", pa.int64()),
        ("label", pa.int32()),
        ("score", pa.float64()),
        ("confidence", pa.float32()),
        ("caption", pa.string()),
        ("is_scanned", pa.bool_()),
        ("note", pa.string()),
        ("bbox", pa.list_(pa.float64())),
        ("shape", pa.list_(pa.int64())),
        ("image__file_path", pa.string()),
        ("image__content", pa.binary()),
        ("ocr__file_path", pa.string()),
        ("ocr__content", pa.binary()),
        ("document__file_path", pa.string()),
        ("document__content", pa.binary()),
    ]
)


def delta_sample(rng, key, i):
    """A sample's TAR fields (named as the table's content fields) and its PDF."""
    image = bytes(rng.getrandbits(8) for _ in range(rng.randrange(1, 3000)))
    ocr = json.dumps({"key": key, "words": ["é", "x" * (i % 5)]}, ensure_ascii=False).encode()
    pdf = b"%PDF-1.4\n" + bytes(rng.getrandbits(8) for _ in range(rng.randrange(100, 900)))
    return {"image": image, "ocr": ocr}, pdf if i % 3 == 0 else None


def delta_row(rng, split, key, i, pointers, pdf_path):
    """One metadata row as Atria's DELTALAKE writer lays it out: scalars,
    numpy values (arrays as lists, numpy scalars as plain columns), and
    `{field}__file_path` / `{field}__content` per binary field."""
    bbox = np.array([0.5 * i, 1.25, -2.0, 1e10])[: i % 5]  # empty for i % 5 == 0
    row = {
        "__key__": key,
        "index": i,
        "label": np.int32(i % 4),
        "score": i / 8,
        "confidence": np.float32(0.5 + i),
        "caption": f"échantillon {i} — {split}",
        "is_scanned": bool(np.bool_(i % 3 == 0)),
        "note": None if i % 2 else f"note {i}",
        "bbox": bbox.tolist(),
        "shape": list(np.zeros((i % 3, 2)).shape),
        "image__file_path": pointers["image"],
        "image__content": None,
        "ocr__file_path": pointers["ocr"],
        "ocr__content": None,
        "document__file_path": pdf_path,
        "document__content": None,
    }
    if i % 6 == 1:
        # Some content inline, as Atria keeps small fields.
        row["ocr__file_path"] = None
        row["ocr__content"] = json.dumps({"inline": i}).encode()
    row["label"] = int(row["label"])
    row["confidence"] = float(row["confidence"])
    return row


def write_delta_split(root, split, rng, rotations):
    count = SPLITS[split]
    table = os.path.join(root, "delta", split)
    rows, truth = [], {}
    for worker in range(WORKERS):
        writer = AtriaPointerWriter(root, split, worker, rotations, DELTA_NAMING[split])
        pdfs = {}
        for i in range(count):
            key = sample_key(split, worker, i)
            fields, pdf = delta_sample(rng, key, i)
            writer.write(key, fields)
            if pdf is not None:
                name = f"{worker:02d}-{i:04d}-{'é' if i % 2 else 'd'}.pdf"
                os.makedirs(os.path.join(root, "data", split), exist_ok=True)
                with open(os.path.join(root, "data", split, name), "wb") as f:
                    f.write(pdf)
                # Atria's writer drops the split directory for some copies.
                written = f"data/{name}" if i % 2 else f"data/{split}/{name}"
                pdfs[key] = (written, f"data/{split}/{name}", pdf)
        writer.close()
        pointers = {}
        for p in writer.rows():
            pointers.setdefault(p["key"], {})[p["field"]] = p
        for i in range(count):
            key = sample_key(split, worker, i)
            pdf = pdfs.get(key)
            rows.append(delta_row(rng, split, key, worker * 1000 + i,
                                  {f: p["pointer"] for f, p in pointers[key].items()},
                                  pdf[0] if pdf else None))
            truth[key] = {f: {k: p[k] for k in ("pointer", "defect", "reported", "naming", "expected")}
                          for f, p in pointers[key].items()}
            if pdf:
                missing = pdf[0] != pdf[1]
                truth[key]["document"] = {"pointer": pdf[0], "defect": "split-missing" if missing else None,
                                          "reported": "SplitMissing" if missing else None, "naming": None,
                                          "expected": {"shard": pdf[1], "name": pdf[1].rsplit("/", 1)[1],
                                                       "offset": 0, "size": len(pdf[2]), "sha256": sha256(pdf[2])}}
    # Drafts: rows written, then deleted, so the log has removes (and, where a
    # draft shares a file with a real row, a rewrite: remove + add).
    # Train gets two drafts per row (> 100 commits, so checkpoints); test one
    # per third row (fewer commits than the checkpoint interval: JSON only).
    order, drafts = [], 0
    for n, row in enumerate(rows):
        order.append(row)
        for _ in range(2 if split == "train" else int(n % 3 == 0)):
            order.append(dict(rows[0], __key__=f"draft-{split}-{drafts}", index=-1 - drafts))
            drafts += 1
    batches, at = [], 0
    while at < len(order):
        size = 3 if len(batches) % 10 == 9 else 1
        batches.append(order[at:at + size])
        at += size
    for n, batch in enumerate(batches):
        write_deltalake(
            table,
            pa.Table.from_pylist(batch, schema=DELTA_SCHEMA),
            mode="append",
            partition_by=["label"] if split == "train" else None,
            configuration={"delta.checkpointInterval": str(CHECKPOINT_INTERVAL)} if n == 0 else None,
        )
    dt = DeltaTable(table)
    dt.delete("__key__ LIKE 'draft-%'")
    dt.delete("index = 2")  # a real row, gone
    truth.pop(next(r["__key__"] for r in rows if r["index"] == 2))
    for n in range(2):  # JSON commits after the last checkpoint
        later = dict(rows[1], __key__=f"late-{split}-{n}", index=5000 + n,
                     image__file_path=None, ocr__file_path=None, document__file_path=None)
        write_deltalake(table, pa.Table.from_pylist([later], schema=DELTA_SCHEMA), mode="append")
    dt = DeltaTable(table)
    log = os.path.join(table, "_delta_log")
    last = None
    if os.path.exists(os.path.join(log, "_last_checkpoint")):
        with open(os.path.join(log, "_last_checkpoint")) as f:
            last = json.load(f)["version"]
    oracle = sorted(dt.to_pyarrow_table().to_pylist(), key=lambda r: r["__key__"])
    return {
        "version": dt.version(),
        "checkpoint": last,
        "commits": len(batches) + 4,
        "files": sorted(a["path"] for a in pa.table(dt.get_add_actions(flatten=True)).to_pylist()),
        "columns": [[f.name, str(f.type)] for f in DELTA_SCHEMA],
        "rows": [canonical(r) for r in oracle],
        "content": truth,
    }


def write_delta_layout(root, rotations):
    rng = random.Random(13)
    out = {split: write_delta_split(root, split, rng, rotations) for split in SPLITS}
    train = out["train"]
    assert train["version"] > 100 and train["checkpoint"] is not None, train["version"]
    assert train["checkpoint"] < train["version"]
    assert out["test"]["checkpoint"] is None
    return out


PARTITION_SCHEMA = pa.schema([
    ("n", pa.int64()), ("s", pa.string()), ("i8", pa.int8()), ("i16", pa.int16()),
    ("i32", pa.int32()), ("i64", pa.int64()), ("f32", pa.float32()), ("f64", pa.float64()),
    ("b", pa.bool_()), ("day", pa.date32()), ("ts", pa.timestamp("us", tz="UTC")),
    ("ntz", pa.timestamp("us")), ("dec", pa.decimal128(8, 3)), ("big", pa.decimal128(20, 2)),
    ("bin", pa.binary()),
])


def partition_oracle(value, t):
    """A partition value as our reader gives it: the data file's value model."""
    if value is None:
        return None
    if pa.types.is_date32(t):
        return (value - datetime.date(1970, 1, 1)).days
    if pa.types.is_timestamp(t):
        epoch = datetime.datetime(1970, 1, 1, tzinfo=value.tzinfo)
        delta = value - epoch
        return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
    if pa.types.is_decimal(t):
        unscaled = int(value.scaleb(t.scale))
        if t.precision <= 18:
            return unscaled
        width = next(n for n in range(1, 17) if 10 ** t.precision <= 2 ** (8 * n - 1))
        return {"$bin": unscaled.to_bytes(width, "big", signed=True).hex()}
    return canonical(value)


def write_partitioned_table(out):
    """A Delta table partitioned by a column of every type delta-rs can
    partition by, one file per row (a row of nulls and an empty string
    among them); the oracle is what delta-rs reads back. Decimals are
    positive: delta-rs 1.6.6 writes negative ones as text it cannot read
    back ("-1.-250")."""
    d = datetime
    rows = [
        dict(n=0, s="a b", i8=-7, i16=300, i32=-70000, i64=2**40, f32=0.1, f64=-2.5, b=True,
             day=d.date(2022, 1, 8), ts=d.datetime(2021, 6, 1, 12, 30, 5, 250000, tzinfo=d.timezone.utc),
             ntz=d.datetime(1969, 12, 31, 23, 59, 59, 999999), dec=decimal.Decimal("1.250"),
             big=decimal.Decimal("12345678901234567.89"), bin=b"\x01\x02"),
        dict(n=1, s="", **{f.name: None for f in PARTITION_SCHEMA if f.name not in ("n", "s")}),
        dict(n=2, s="x=y/z%", i8=127, i16=-32768, i32=0, i64=-1, f32=1.5e10, f64=0.001, b=False,
             day=d.date(1600, 3, 1), ts=d.datetime(1970, 1, 1, tzinfo=d.timezone.utc),
             ntz=d.datetime(2000, 2, 29, 0, 0, 0, 1), dec=decimal.Decimal("0.5"),
             big=decimal.Decimal("0"), bin=b"a\xff"),
    ]
    columns = [f.name for f in PARTITION_SCHEMA if f.name != "n"]
    write_deltalake(out, pa.Table.from_pylist(rows, schema=PARTITION_SCHEMA), partition_by=columns)
    read = sorted(DeltaTable(out).to_pyarrow_table().to_pylist(), key=lambda r: r["n"])
    return {"rows": [{f.name: partition_oracle(r[f.name], f.type) for f in PARTITION_SCHEMA} for r in read]}


# A cache whose two splits are column-mapped Delta tables, one per mode.
MAPPED_SPLITS = {"train": "name", "test": "id"}


def mapped_schema(bee, why, zed, part, late=False):
    """The column-mapped table's schema under its logical names of the time."""
    fields = [("a", pa.int64()), (bee, pa.string()),
              ("s", pa.struct([("x", pa.int32()), (why, pa.string())])),
              ("l", pa.list_(pa.struct([(zed, pa.int32())]))), (part, pa.string())]
    return pa.schema(fields + ([("late", pa.float64())] if late else []))


def commit_metadata(table, change):
    """Commits the table's latest metaData action as `change(metadata,
    schema)` leaves it: how Spark renames and adds columns under column
    mapping, which deltalake 1.6.6 cannot (its add_columns refuses mapped
    tables)."""
    log = os.path.join(table, "_delta_log")
    metadata = None
    for name in sorted(n for n in os.listdir(log) if n.endswith(".json")):
        with open(os.path.join(log, name)) as f:
            for line in f:
                metadata = json.loads(line).get("metaData", metadata)
    schema = json.loads(metadata["schemaString"])
    change(metadata, schema)
    metadata["schemaString"] = json.dumps(schema)
    version = DeltaTable(table).version() + 1
    with open(os.path.join(log, f"{version:020}.json"), "x") as f:
        f.write(json.dumps({"metaData": metadata}) + "\n")


def rename_fields(renames):
    def change(metadata, schema):
        def walk(t):
            if isinstance(t, dict) and t.get("type") == "struct":
                for f in t["fields"]:
                    f["name"] = renames.get(f["name"], f["name"])
                    walk(f["type"])
            elif isinstance(t, dict) and t.get("type") == "array":
                walk(t["elementType"])
        walk(schema)
        metadata["partitionColumns"] = [renames.get(c, c) for c in metadata["partitionColumns"]]
    return change


def add_late_column(metadata, schema):
    configuration = metadata["configuration"]
    column = int(configuration["delta.columnMapping.maxColumnId"]) + 1
    configuration["delta.columnMapping.maxColumnId"] = str(column)
    schema["fields"].append({"name": "late", "type": "double", "nullable": True, "metadata": {
        "delta.columnMapping.id": column,
        "delta.columnMapping.physicalName": f"col-late-{column}"}})


def write_column_mapped_table(out, mode):
    """A Delta table in column mapping mode `mode` (deltalake names its
    parquet columns and partition values physically, col-<uuid>) whose
    columns are renamed after the first write (a top-level column with a
    space, a struct's field, a list's struct field, the partition column),
    appended to, checkpointed, given a new column and appended to again.
    The oracle is delta-rs's own query engine: in deltalake 1.6.6
    to_pyarrow_table() reads every data column of a mapped table as null."""
    def row(i, bee, why, zed, part, **more):
        return {"a": i, bee: f"v{i}", "s": None if i == 1 else {"x": i, why: f"w{i}" if i != 3 else None},
                "l": [{zed: i}, {zed: None}] if i % 2 else [], part: ["one", "two", "three"][i % 3], **more}
    first = ("b b", "y", "z", "p")
    write_deltalake(out, pa.Table.from_pylist([row(i, *first) for i in range(3)], schema=mapped_schema(*first)),
                    partition_by=["p"], configuration={"delta.columnMapping.mode": mode})
    commit_metadata(out, rename_fields({"b b": "bee", "y": "why", "z": "zed", "p": "part"}))
    later = ("bee", "why", "zed", "part")
    write_deltalake(out, pa.Table.from_pylist([row(i, *later) for i in range(3, 5)], schema=mapped_schema(*later)),
                    mode="append")
    DeltaTable(out).create_checkpoint()
    commit_metadata(out, add_late_column)
    write_deltalake(out, pa.Table.from_pylist([row(5, *later, late=0.5)], schema=mapped_schema(*later, late=True)),
                    mode="append")
    read = pa.table(QueryBuilder().register("t", DeltaTable(out)).execute("select * from t").read_all())
    return {"mode": mode, "rows": [canonical(r) for r in sorted(read.to_pylist(), key=lambda r: r["a"])]}


def main():
    out = sys.argv[1]
    root = os.path.join(out, CONFIG)
    rng = random.Random(12)
    expected = {
        "config": CONFIG,
        "tar": write_tar_layout(root, rng),
        "msgpack": write_msgpack_layout(root, rng),
        "delta_config": DELTA_CONFIG,
        "delta": write_delta_layout(os.path.join(out, DELTA_CONFIG), counter()),
        "partitioned": write_partitioned_table(os.path.join(out, "partitioned", "delta", "train")),
        "column_mapping": {split: write_column_mapped_table(os.path.join(out, "mapped", "delta", split), mode)
                           for split, mode in MAPPED_SPLITS.items()},
    }
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(expected, f, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
    # deltalake's native runtime can abort the interpreter's shutdown
    # ("terminate called without an active exception", seen in a full test
    # run) after everything is written: leave without the finalisers.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
