"""Writes seed inputs for every fuzz target from a fixture suite.

    cargo run -p atlas-interop -- suite /tmp/suite      # atlas-rust's collections
    python3 fuzz/write_seeds.py /tmp/suite fuzz/seeds   # needs zstandard msgpack lz4

and for the Atria targets (`msgpack_shard`, `tar_shard`, `delta_log`) from
the Atria corpus (tests/atria/make_corpus.sh):

    python3 fuzz/write_seeds.py --atria target/atria-corpus fuzz/corpus

(both modes import zstandard, msgpack and lz4 at the top).

Seeds (each at most 100 KB): whole `data.atlas` files and their footers
(compressed and inflated) for `collection_footer`; `data.atlas` (+ mask)
in the input layout of `open_and_read`; segments and their bare rkyv footers
for `segment_footer`; masks; the first zstd block of segments and lz4 /
stored blocks of the same bytes for `block_decode`. `fuzz/run.sh` explains
how they became the committed, minimised corpus.
"""

import os
import struct
import sys

import lz4.block
import msgpack
import zstandard

MAX_SEED = 100 * 1024
PER_COLLECTION = 6


def write(out, target, name, data):
    if len(data) <= MAX_SEED:
        os.makedirs(os.path.join(out, target), exist_ok=True)
        with open(os.path.join(out, target, name), "wb") as f:
            f.write(data)


def block_input(pick, declared, compressed):
    """The `block_decode` layout: codec byte, declared size (u32 LE), block."""
    return bytes([pick]) + struct.pack("<I", declared) + compressed


def first_zstd_frame(region):
    """The first zstd frame of a segment's data region and what it inflates to."""
    obj = zstandard.ZstdDecompressor().decompressobj()
    try:
        out = obj.decompress(region)
    except zstandard.ZstdError:
        return None
    return region[: len(region) - len(obj.unused_data)], out


def main(suite, out):
    for fixture in sorted(os.listdir(suite)):
        path = os.path.join(suite, fixture)
        if not os.path.exists(os.path.join(path, "data.atlas")):
            continue
        data = open(os.path.join(path, "data.atlas"), "rb").read()
        mask_path = os.path.join(path, "deleted.mask")
        mask = open(mask_path, "rb").read() if os.path.exists(mask_path) else None

        if mask is None:
            collection = b"\x00" + data
        else:
            collection = b"\x01" + struct.pack("<H", len(mask)) + mask + data
            write(out, "mask", fixture + ".mask", mask)
        write(out, "open_and_read", fixture + ".bin", collection)
        write(out, "collection_footer", fixture + ".atlas", data)

        footer_size = struct.unpack("<Q", data[-16:-8])[0]
        packed = data[len(data) - 16 - footer_size : len(data) - 16]
        write(out, "collection_footer", fixture + ".zst", packed)
        footer = zstandard.ZstdDecompressor().decompressobj().decompress(packed)
        write(out, "collection_footer", fixture + ".msgpack", footer)
        variables = msgpack.unpackb(footer, raw=True, strict_map_key=False)[6]

        for i, (_name, seg_offset, seg_len) in enumerate(variables[:PER_COLLECTION]):
            segment = data[seg_offset : seg_offset + seg_len]
            write(out, "segment_footer", f"{fixture}-{i}.seg", segment)
            rkyv_size = struct.unpack("<Q", segment[-12:-4])[0]
            region_end = len(segment) - 12 - rkyv_size
            write(out, "segment_footer", f"{fixture}-{i}.rkyv", segment[region_end:-12])
            frame = first_zstd_frame(segment[:region_end])
            if frame is not None:
                compressed, plain = frame
                write(out, "block_decode", f"{fixture}-{i}.zstd", block_input(1, len(plain), compressed))
                write(out, "block_decode", f"{fixture}-{i}.lz4", block_input(2, len(plain), lz4_block(plain)))
                write(out, "block_decode", f"{fixture}-{i}.raw", block_input(0, len(plain), plain))

    write(out, "mask", "empty.mask", b"")
    hundred = b"ATLM" + struct.pack("<II", 1, 100) + b"".join(struct.pack("<I", 3 * i) for i in range(100))
    write(out, "mask", "hundred.mask", hundred)


def lz4_block(plain):
    """An lz4 block with its u32 LE size prefix, as atlas-rust stores one."""
    return lz4.block.compress(plain, store_size=True)


def atria(corpus, out):
    """Datadings shards as `msgpack_shard` takes them (two u16 LE lengths,
    the offsets and keys sidecars, then the shard), TAR shards whole, and
    every Delta Lake commit as the first commit of a table of its own."""
    for split in ("train", "test"):
        shards = os.path.join(corpus, "docs", "msgpack", split)
        for name in sorted(os.listdir(shards)):
            if not name.endswith(".msgpack"):
                continue
            base = os.path.join(shards, name)
            shard = open(base, "rb").read()
            offsets = open(base + ".offsets", "rb").read()
            keys = open(base + ".keys", "rb").read() if os.path.exists(base + ".keys") else b""
            packed = struct.pack("<HH", len(offsets), len(keys)) + offsets + keys + shard
            write(out, "msgpack_shard", f"seed_{split}_{name}", packed)
            write(out, "msgpack_shard", f"seed_{split}_{name}.no_keys", struct.pack("<HH", len(offsets), 0) + offsets + shard)
        tars = os.path.join(corpus, "docs", "shards", split)
        for name in sorted(os.listdir(tars))[:4]:
            write(out, "tar_shard", f"seed_{split}_{name}", open(os.path.join(tars, name), "rb").read())
        log = os.path.join(corpus, "docs_delta", "delta", split, "_delta_log")
        commits = sorted(n for n in os.listdir(log) if n.endswith(".json"))
        for name in commits[:6] + commits[-2:]:  # the first (schema, protocol) and the last
            write(out, "delta_log", f"seed_{split}_{name}", open(os.path.join(log, name), "rb").read())


if __name__ == "__main__":
    if sys.argv[1] == "--atria":
        atria(sys.argv[2], sys.argv[3])
    else:
        main(sys.argv[1], sys.argv[2])
