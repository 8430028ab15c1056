"""Writes small Atria caches with Atria's own writer code (tests/atria/atria-caches/).

    make_atria_caches.py ATRIA_SRC OUT

ATRIA_SRC is atriaml/atria (the monorepo) extracted at the pinned commit
(make_atria_caches.sh does it). Atria itself is not on PyPI, and its
packages' dependencies (torch 2.1.2, ray, transformers, hydra…) are far too
large for this, so only the writer and reader modules run, with the
registry packages they import (atria-writer-requirements.txt):

- atria_types and atria_logger: imported whole (the data model,
  `ImageInstance`, `BaseDataInstance.key`, `to_row`, `pa_schema`,
  `model_dump`, the local URI reader `_load_bytes_from_uri`);
- atria_datasets: its package `__init__` pulls in the registry (hydra,
  torch), so the writer modules are loaded from their files:
  `core/storage/deltalake_storage_manager.py` (`SerializerWorker`,
  `SerialStorageWriter`: the TAR shards and the Delta table),
  `core/storage/deltalake_reader.py` (`transform_file_path`),
  `core/storage/_mp/_shard_writer_worker.py` and
  `core/storage/_shard_writers/_msgpack.py` (the msgpack shards). Stubbed:
  `ray` (imported, unused on this path), `atria_datasets.core.dataset._datasets` (`DatasetLoadingMode`,
  `SplitIterator`: type imports only) and
  `atria_datasets.core.dataset._split_iterators` (`InstanceTransform`, a
  type).

Three key conventions, one cache pair (DELTALAKE and MSGPACK) each:

- `dots`: the monorepo's own `BaseDataInstance.key` (every commit of
  atriaml/atria: dots become underscores, slashes and '#' stay);
- `dots-slashes`, `dots-slashes-hash`: atria_core's later rules (dots and
  slashes, then also '#', become underscores), put in place of the
  monorepo's `key` property. atria_core could not be run here (no copy of
  its repository), and its own Delta writer writes no TAR shards: see
  docs/atria.md.

Each cache's `expected.json` holds the rows as deltalake reads them back
(`DeltaTable.to_pyarrow_table().to_pylist()`) and as datadings reads the
msgpack records, and per row the pointer, the member the row's sample really
has in the shards (found with `tarfile` by the key the writer used), whether
the pointer reaches it, the defect a reader must report, and the bytes
Atria's reader returns for the pointer (`_load_bytes_from_uri` after
`transform_file_path`). `{conv}_delta_edited` is a copy of `{conv}_delta`
whose table was rewritten by deltalake with some pointers edited.
"""

import functools
import hashlib
import importlib.machinery
import importlib.util
import json
import os
import shutil
import sys
import tarfile
import types
from pathlib import Path
from types import SimpleNamespace

SRC = Path(sys.argv[1]).resolve()
OUT = Path(sys.argv[2]).resolve()
sys.path[:0] = [str(SRC / "atria_types" / "src"), str(SRC / "atria_logger" / "src")]


def stub(name, **attrs):
    module = types.ModuleType(name)
    module.__path__ = []  # a package, so submodules can hang below it
    module.__dict__.update(attrs)
    sys.modules[name] = module
    return module


class _Unused:
    def __init__(self, *a, **k):
        raise RuntimeError("stubbed: not on the writer's path")


stub("ray", remote=lambda *a, **k: (lambda c: c), get=_Unused, wait=_Unused)
for package in ["atria_datasets", "atria_datasets.core", "atria_datasets.core.dataset",
                "atria_datasets.core.storage", "atria_datasets.core.storage._mp",
                "atria_datasets.core.storage._shard_writers"]:
    where = SRC / "atria_datasets" / "src" / package.replace(".", "/")
    module = stub(package)
    module.__path__ = [str(where)]
    module.__spec__ = importlib.machinery.ModuleSpec(package, None, origin=str(where / "__init__.py"),
                                                     is_package=True)
    module.__spec__.submodule_search_locations = [str(where)]
    module.__file__ = str(where / "__init__.py")
stub("atria_datasets.core.dataset._datasets", DatasetLoadingMode=SimpleNamespace(
    local_streaming="local_streaming", in_memory="in_memory"), SplitIterator=_Unused)
stub("atria_datasets.core.dataset._split_iterators", InstanceTransform=object)


def load(name):
    """One of atria_datasets' modules, from its file (not via the package)."""
    path = SRC / "atria_datasets" / "src" / (name.replace(".", "/") + ".py")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


import deltalake  # noqa: E402
import PIL.Image  # noqa: E402
from atria_types import BaseDataInstance, Image, ImageInstance  # noqa: E402
from atria_types._utilities._url_fetchers import _load_bytes_from_uri  # noqa: E402
from datadings.reader import MsgpackReader  # noqa: E402

load("atria_datasets.core.utilities")
load("atria_datasets.core.storage.utilities")
reader_module = load("atria_datasets.core.storage.deltalake_reader")
delta_module = load("atria_datasets.core.storage.deltalake_storage_manager")
load("atria_datasets.core.storage._shard_writers._msgpack")
msgpack_module = load("atria_datasets.core.storage._mp._shard_writer_worker")
from atria_datasets.core.storage.utilities import FileStorageType  # noqa: E402

ATRIA_KEY = BaseDataInstance.key  # the monorepo's own property


def replacing(chars):
    """A key rule of atria_core's: each of `chars` becomes '_'."""
    def key(self):
        text = self.sample_id
        for c in chars:
            text = text.replace(c, "_")
        return text
    return property(key)


CONVENTIONS = {
    "dots": ATRIA_KEY,
    "dots-slashes": replacing("./"),
    "dots-slashes-hash": replacing("./#"),
}

# Sample ids as Atria's document datasets make them: file paths, with dots,
# slashes and '#' (a page of a multi-page file). Two are over 100 bytes
# (their TAR names live only in the PAX header).
SAMPLE_IDS = {
    "train": [
        "imagesa/a/a/a/aaa06d00/50486482-6482.tif",
        "imagesb/b/c/d/bcd12e00/0000123.v2.png",
        "scans/2021.03/report#page-2.jpeg",
        "scans/2021.03/report#page-3.jpeg",
        "plain-id-0004",
        "deep/" + "/".join(f"d{i}.x" for i in range(18)) + "/leaf.tif",
        "imagesz/z/z/z/zzz00000/99999999-9999.tif",
        "a.b.c/d#e/f.g",
    ],
    "test": [
        "imagesq/q/r/s/qrs00001/11111111-1111.tif",
        "test/2020.01.02/doc#1.png",
        "test/" + "x" * 90 + ".tif",
    ],
}


def pixels(i):
    return PIL.Image.new("L", (3 + i % 4, 2 + i % 3), color=(37 * i) % 256)


def samples(split):
    return [ImageInstance(sample_id=sid, index=i, image=Image(content=pixels(i)))
            for i, sid in enumerate(SAMPLE_IDS[split])]


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def canonical(value):
    if isinstance(value, bytes):
        return {"$bin": value.hex()}
    if isinstance(value, dict):
        return {k: canonical(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [canonical(v) for v in value]
    if isinstance(value, float) and value != value:
        return None
    return value


def members(root):
    """Every shard's members by name, as tarfile reads them."""
    found = {}
    for path in sorted(root.glob("shards/*/*.tar")):
        with tarfile.open(path) as tar:
            found[str(path.relative_to(root))] = {m.name: m for m in tar.getmembers()}
    return found


def reported(shards, root, shard, offset, length):
    """The defect a reader must report for a wrong pointer (make_corpus.py's rule)."""
    path = root / shard
    if not path.exists():
        return "NoShard"
    if offset + length > path.stat().st_size:
        return "PastEnd"
    if offset % 512:
        return "Misaligned"
    if any(m.offset_data == offset for m in shards[shard].values()):
        return "OtherMember"
    return "NoHeader"


def atria_reads(root, pointer):
    """What Atria's local reader returns for a pointer, or why it fails."""
    uri = reader_module.transform_file_path(pointer, str(root.parent), root.name)
    try:
        return _load_bytes_from_uri(uri)
    except Exception as e:  # noqa: BLE001: recorded, not raised
        return type(e).__name__


def pointer_truth(root, rows, keys):
    """Per row: the pointer, the member its sample has, and the verdict."""
    shards = members(root)
    truth = []
    for row, key in zip(rows, keys):
        pointer = row["image__file_path"]
        member_name = f"{key}.image__content"
        where = [(s, m[member_name]) for s, m in shards.items() if member_name in m]
        assert len(where) == 1, (member_name, where)
        shard, member = where[0]
        with open(root / shard, "rb") as f:
            f.seek(member.offset_data)
            data = f.read(member.size)
        p_shard, query = pointer.split("?")
        q = dict(kv.split("=") for kv in query.split("&"))
        offset, length = int(q["offset"]), int(q["length"])
        ok = (p_shard, offset, length) == (shard, member.offset_data, member.size)
        blind = atria_reads(root, pointer)
        truth.append({
            "sample_id": row["sample_id"],
            "pointer": pointer,
            "key": key,
            "expected": {"shard": shard, "name": member_name, "offset": member.offset_data,
                         "size": member.size, "sha256": sha256(data)},
            "ok": ok,
            "reported": None if ok else reported(shards, root, p_shard, offset, length),
            "atria_reads": ({"sha256": sha256(blind), "size": len(blind)}
                            if isinstance(blind, bytes) else {"error": blind}),
        })
        if ok:
            assert blind == data, pointer
    return truth


def write_delta(root, split, shard_size):
    """Atria's SerialStorageWriter, with SerializerWorker's shard size set."""
    manager = SimpleNamespace(_storage_dir=root.parent, _config_name=root.name,
                              _max_memory=700)  # a few rows per Delta commit
    split_iterator = SimpleNamespace(split=SimpleNamespace(value=split),
                                     _tf=lambda index, sample: sample,
                                     data_model=ImageInstance)
    items = list(enumerate(samples(split)))
    real = delta_module.SerializerWorker
    delta_module.SerializerWorker = functools.partial(real, max_shard_size=shard_size)
    try:
        split_dir = root / "delta" / split
        delta_module.SerialStorageWriter(manager, split_iterator, str(split_dir),
                                         iter(items), len(items)).write()
    finally:
        delta_module.SerializerWorker = real


def write_msgpack(root, split, shard_size):
    """Atria's ShardWriterWorker over its MsgpackShardWriter, as SingleSplitWriter runs it."""
    split_dir = root / "msgpack" / split
    split_dir.mkdir(parents=True, exist_ok=True)
    writer = msgpack_module.ShardWriterWorker(
        data_model=ImageInstance, storage_type=FileStorageType.MSGPACK,
        storage_file_pattern=str(split_dir / "000000-%06d.msgpack"),
        max_shard_size=shard_size).load()
    for index, sample in enumerate(samples(split)):
        writer.write(index, sample)
    writer.close()


def delta_rows(table_dir):
    return deltalake.DeltaTable(str(table_dir)).to_pyarrow_table().to_pylist()


def edit_pointers(src_root, dst_root, split, truth):
    """A copy whose table has some pointers edited (deltalake overwrite)."""
    table_dir = dst_root / "delta" / split
    rows = delta_rows(table_dir)
    edits = {}
    truth_of = {t["sample_id"]: t for t in truth}
    for i, row in enumerate(rows):
        right = truth_of[row["sample_id"]]
        if not right["ok"]:
            continue
        shard, query = row["image__file_path"].split("?")
        e = right["expected"]
        kind = i % 4
        if kind == 0:   # another member's offset (the next sample's, or the first)
            others = sorted({t["expected"]["offset"] for t in truth
                             if t["expected"]["shard"] == shard and t["expected"]["offset"] != e["offset"]})
            if not others:
                continue
            new = f"{shard}?offset={others[0]}&length={e['size']}"
        elif kind == 1:  # past the end of the shard
            new = f"{shard}?offset={e['offset'] + 1024 * 1024}&length={e['size']}"
        elif kind == 2:  # the header block, not the data
            new = f"{shard}?offset={e['offset'] - 512}&length={e['size']}"
        else:
            continue
        row["image__file_path"] = new
        edits[row["sample_id"]] = new
    import pyarrow as pa
    deltalake.write_deltalake(str(table_dir), pa.Table.from_pylist(rows, schema=ImageInstance.pa_schema()),
                              mode="overwrite")
    return edits


def main():
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    expected = {"sample_ids": SAMPLE_IDS, "caches": {}}
    for name, rule in CONVENTIONS.items():
        BaseDataInstance.key = rule
        delta_root = OUT / f"{name}_delta"
        msgpack_root = OUT / f"{name}_msgpack"
        entry = {"delta": {}, "msgpack": {}, "delta_edited": {}}
        for split, shard_size in [("train", 3), ("test", 100000)]:
            key_of = {s.sample_id: s.key for s in samples(split)}
            keys = list(key_of.values())
            write_delta(delta_root, split, shard_size)
            # In deltalake's order (not the log's): tests match rows by sample_id.
            rows = delta_rows(delta_root / "delta" / split)
            assert sorted(r["sample_id"] for r in rows) == sorted(SAMPLE_IDS[split])
            truth = pointer_truth(delta_root, rows, [key_of[r["sample_id"]] for r in rows])
            entry["delta"][split] = {"rows": canonical(rows), "pointers": truth}
            write_msgpack(msgpack_root, split, 3 if split == "train" else 100000)
            records = []
            for path in sorted((msgpack_root / "msgpack" / split).glob("*.msgpack")):
                with MsgpackReader(path) as reader:
                    records += [reader[i] for i in range(len(reader))]
            assert [r["key"] for r in records] == keys
            entry["msgpack"][split] = {"records": canonical(records)}
        edited_root = OUT / f"{name}_delta_edited"
        shutil.copytree(delta_root, edited_root)
        for split in ["train", "test"]:
            truth = entry["delta"][split]["pointers"]
            edits = edit_pointers(delta_root, edited_root, split, truth)
            rows = delta_rows(edited_root / "delta" / split)
            key_of = {s.sample_id: s.key for s in samples(split)}
            keys = [key_of[r["sample_id"]] for r in rows]
            entry["delta_edited"][split] = {"edits": edits,
                                            "rows": canonical(rows),
                                            "pointers": pointer_truth(edited_root, rows, keys)}
        expected["caches"][name] = entry
    BaseDataInstance.key = ATRIA_KEY
    with open(OUT / "expected.json", "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True, ensure_ascii=False)
        f.write("\n")
    total = sum(p.stat().st_size for p in OUT.rglob("*") if p.is_file())
    print(f"wrote {OUT.name}: {total} bytes")


if __name__ == "__main__":
    os.environ.setdefault("TQDM_DISABLE", "1")
    main()
