"""Reads a compiled Qt resource file (.rcc, as `rcc -binary` writes it): {path: bytes}.

Layout (format versions 1-3): "qres", version, then the offsets of the tree, the data and the
names. A tree node is (name offset, flags, then either child count and first child index for a
directory or locale and data offset for a file), plus a modification time from version 2 on. A
name is (length in UTF-16 units, hash, UTF-16BE text); a data blob is (length, bytes), zlib
compressed blobs (flag 1) starting with the inflated length. zstd blobs (flag 4) are refused.
"""
import struct
import zlib

COMPRESSED, DIRECTORY, ZSTD = 1, 2, 4


def read_rcc(path):
    with open(path, "rb") as f:
        b = f.read()
    if b[:4] != b"qres" or len(b) < 20:
        raise ValueError("%s: not a Qt resource file" % path)
    version, tree, data, names = struct.unpack(">IIII", b[4:20])
    node_size = 22 if version >= 2 else 14

    def name(offset):
        (n,) = struct.unpack(">H", b[names + offset:names + offset + 2])
        return b[names + offset + 6:names + offset + 6 + 2 * n].decode("utf-16-be")

    files, stack = {}, [(0, "")]
    while stack:
        index, prefix = stack.pop()
        at = tree + index * node_size
        name_offset, flags = struct.unpack(">IH", b[at:at + 6])
        path_here = prefix + (name(name_offset) if index else "")
        if flags & DIRECTORY:
            count, first = struct.unpack(">II", b[at + 6:at + 14])
            stack += [(first + i, path_here + "/") for i in range(count)]
            continue
        (offset,) = struct.unpack(">I", b[at + 10:at + 14])
        (length,) = struct.unpack(">I", b[data + offset:data + offset + 4])
        blob = b[data + offset + 4:data + offset + 4 + length]
        if flags & ZSTD:
            raise ValueError("%s: %s is zstd-compressed" % (path, path_here))
        files[path_here] = zlib.decompress(blob[4:]) if flags & COMPRESSED else blob
    return files
