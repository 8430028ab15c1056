"""Writes a small Atria-style cache with the real writers, for tests/atria_*.rs.

Layout under OUT (one config, "docs"):

  docs/shards/{split}/{worker:06d}-{shard:06d}.tar   webdataset.ShardWriter, PAX
  docs/pointers/{split}.json                         the pointer table (one row per
                                                     member, as Atria's writer
                                                     records it) with the truth
  docs/msgpack/{split}/{worker:06d}-{shard:06d}.msgpack  datadings FileWriter,
                                                     with its sidecars
  expected.json                                      what a reader must return

The pointer table stands in for Atria's Delta Lake table (not written yet).
Atria's writer records `shards/...tar?offset=O&length=L` for each member; at a
shard rotation it records wrong pointers. `AtriaPointerWriter` reproduces the
three defects issue 12 names, one per rotation in turn:

  stale-previous  the previous shard's name with the new shard's offset
  neighbour       the new shard, but the offset of the sample's other member
  past-end        the previous shard, at an offset past its end

Every row also carries the member it should have named (shard, name, data
offset, size, sha256), found from tarfile's own bookkeeping after the write.
"""

import hashlib
import json
import os
import random
import sys
import tarfile

import datadings.writer
import numpy as np
import webdataset as wds

CONFIG = "docs"
SPLITS = {"train": 22, "test": 9}  # samples per worker
WORKERS = 2
SAMPLES_PER_SHARD = 4
# A float, as time.time() is: Python's PAX writer then puts `mtime` in a PAX
# header before every member, as Atria's real shards have.
MTIME = 1_700_000_000.25
DEFECTS = ["stale-previous", "neighbour", "past-end"]


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

    def __init__(self, root, split, worker, rotation_counter):
        self.root = root
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
        self.writer.write({"__key__": key, **fields})
        defect = DEFECTS[next(self.rotations) % len(DEFECTS)] if rotates else None
        self.written.append((key, sorted(fields), fields, before, self.writer.fname, defect))

    def rows(self):
        """The pointer rows, once the shards are closed: tarfile reads back
        where each member's data landed, which is what Atria meant to record."""
        members = {}
        for _, _, _, _, fname, _ in self.written:
            if fname not in members:
                with tarfile.open(fname) as tar:
                    members[fname] = {ti.name: ti for ti in tar.getmembers()}
        rows = []
        for key, names, fields, before, fname, defect in self.written:
            truth = [
                {
                    "shard": self.relative(fname),
                    "name": f"{key}.{ext}",
                    "offset": members[fname][f"{key}.{ext}"].offset_data,
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
                        "field": member["name"][len(key) + 1:],
                        "pointer": f"{path}?offset={offset}&length={member['size']}",
                        "defect": defect,
                        "expected": member,
                    }
                )
        return rows

    def close(self):
        self.writer.close()


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


def main():
    out = sys.argv[1]
    root = os.path.join(out, CONFIG)
    rng = random.Random(12)
    expected = {
        "config": CONFIG,
        "tar": write_tar_layout(root, rng),
        "msgpack": write_msgpack_layout(root, rng),
    }
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(expected, f, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
