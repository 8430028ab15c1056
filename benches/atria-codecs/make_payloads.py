"""Writes the page payloads benches/atria-codecs decodes.

  make_payloads.py OUT_DIR

pyarrow writes one table (rows shaped like an Atria Delta table's: a uuid
key, a file path, a label, a score, a caption, width and height) as parquet
with SNAPPY and with GZIP, and this script cuts each file's pages out of
its column chunks: OUT_DIR/snappy.bin and OUT_DIR/gzip.bin hold, for each
page, a little-endian u32 compressed size, a u32 uncompressed size and the
compressed body, exactly as a reader hands them to the codec. Page headers
are read with a small thrift compact-protocol reader (pyarrow does not
expose pages).
"""

import os
import random
import struct
import sys
import uuid

import pyarrow as pa
import pyarrow.parquet as pq

ROWS = 200_000
WORDS = (
    "a the of on in with cat dog two three red blue small large photo image of person "
    "walking sitting standing near table window street car tree water sky under over "
    "document page invoice form letter report signature date total amount"
).split()


def table():
    rng = random.Random(29)
    keys = [str(uuid.UUID(int=rng.getrandbits(128))) for _ in range(ROWS)]
    return pa.table(
        {
            "__key__": keys,
            "image__file_path": [f"train/{i // 1000:05d}/{k}.image__content" for i, k in enumerate(keys)],
            "label": pa.array([rng.randrange(16) for _ in range(ROWS)], pa.int64()),
            "score": pa.array([round(rng.random(), 3) for _ in range(ROWS)], pa.float64()),
            "caption": [" ".join(rng.choices(WORDS, k=rng.randrange(4, 16))) for _ in range(ROWS)],
            "width": pa.array([rng.choice([640, 800, 1024, 1280]) for _ in range(ROWS)], pa.int32()),
            "height": pa.array([rng.choice([480, 600, 768, 960]) for _ in range(ROWS)], pa.int32()),
        }
    )


def varint(buf, pos):
    shift = value = 0
    while True:
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b & 0x80 == 0:
            return value, pos


def skip(buf, pos, kind):
    """Skips one value of compact-protocol type `kind` starting at `pos`."""
    if kind in (1, 2):
        return pos
    if kind == 3:
        return pos + 1
    if kind in (4, 5, 6):
        return varint(buf, pos)[1]
    if kind == 7:
        return pos + 8
    if kind == 8:
        n, pos = varint(buf, pos)
        return pos + n
    if kind in (9, 10):
        head = buf[pos]
        pos += 1
        n = head >> 4
        if n == 15:
            n, pos = varint(buf, pos)
        for _ in range(n):
            pos = skip(buf, pos, head & 0x0F)
        return pos
    if kind == 11:
        n, pos = varint(buf, pos)
        if n:
            types = buf[pos]
            pos += 1
            for _ in range(n):
                pos = skip(buf, pos, types >> 4)
                pos = skip(buf, pos, types & 0x0F)
        return pos
    if kind == 12:
        return struct_fields(buf, pos, {})[1]
    raise ValueError(f"thrift compact type {kind}")


def struct_fields(buf, pos, wanted):
    """Reads a struct; returns ({field id: i32 value} for ids in `wanted`, end)."""
    found, last = {}, 0
    while True:
        head = buf[pos]
        pos += 1
        if head == 0:
            return found, pos
        kind, delta = head & 0x0F, head >> 4
        if delta:
            field = last + delta
        else:
            zigzag, pos = varint(buf, pos)
            field = (zigzag >> 1) ^ -(zigzag & 1)
        last = field
        if field in wanted and kind == 5:
            zigzag, pos = varint(buf, pos)
            found[field] = (zigzag >> 1) ^ -(zigzag & 1)
        else:
            pos = skip(buf, pos, kind)


def pages(path):
    data = open(path, "rb").read()
    meta = pq.ParquetFile(path).metadata
    for g in range(meta.num_row_groups):
        for c in range(meta.num_columns):
            chunk = meta.row_group(g).column(c)
            start = chunk.dictionary_page_offset or chunk.data_page_offset
            pos, end = start, start + chunk.total_compressed_size
            while pos < end:
                header, pos = struct_fields(data, pos, {2, 3})
                size, packed = header[2], header[3]
                yield data[pos : pos + packed], size
                pos += packed


def main(out):
    os.makedirs(out, exist_ok=True)
    t = table()
    for codec in ("snappy", "gzip"):
        path = os.path.join(out, f"{codec}.parquet")
        pq.write_table(t, path, compression=codec, row_group_size=100_000)
        n = raw = packed = 0
        with open(os.path.join(out, f"{codec}.bin"), "wb") as f:
            for body, size in pages(path):
                f.write(struct.pack("<II", len(body), size) + body)
                n, raw, packed = n + 1, raw + size, packed + len(body)
        print(f"{codec}: {n} pages, {packed:,} bytes compressed, {raw:,} uncompressed")


if __name__ == "__main__":
    main(sys.argv[1])
