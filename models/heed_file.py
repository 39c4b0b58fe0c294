"""The one reader and the one writer of the Heed model file (models/FORMAT.md, sections 1-3) in
Python: header, metadata and tensors as numpy arrays, no PyTorch.

What it is: bytes <-> (metadata, named tensors), with the layout rule of section 3 when writing.
What it is not: a converter; pipeline/heed_torch.py maps a PyTorch model onto tensor names, and
the engine's own reader (src/model/model_file.cpp) is the one that validates a file.
"""
import json
import struct

import numpy as np

# why: BF16 has no numpy type; it is kept as its raw 16-bit patterns
DTYPES = {"F32": np.float32, "F16": np.float16, "BF16": np.uint16, "I8": np.int8,
          "U8": np.uint8, "U16": np.uint16, "I32": np.int32}


class HeedFile:
    """A model file read whole: `meta` (strings), `config` (heed.config parsed), `header`
    (the tensor entries, metadata removed) and the tensors on demand."""

    def __init__(self, path):
        with open(path, "rb") as f:
            raw = f.read()
        n = struct.unpack("<Q", raw[:8])[0]
        self.header = json.loads(raw[8:8 + n])
        self.data = raw[8 + n:]
        self.meta = self.header.pop("__metadata__")
        if self.meta.get("format") != "heed":
            raise ValueError("%s: not a Heed model file" % path)
        self.config = json.loads(self.meta["heed.config"])
        self.path = path

    def stored(self, name):
        """The tensor as stored (int8 stays int8, BF16 its bit patterns), read-only."""
        if name not in self.header:
            raise KeyError("%s: missing tensor '%s'" % (self.path, name))
        e = self.header[name]
        return np.frombuffer(self.data[e["data_offsets"][0]:e["data_offsets"][1]],
                             dtype=DTYPES[e["dtype"]]).reshape(e["shape"])

    def stored_tensors(self):
        """{name: (dtype, stored array)} in the file's order: what write_heed_file takes."""
        return {name: (e["dtype"], self.stored(name)) for name, e in self.header.items()}

    def tensor(self, name):
        """float32 (I8 dequantised with its per-row scale), or bytes for U8."""
        a = self.stored(name)
        dtype = self.header[name]["dtype"]
        if dtype == "I8":
            return a.astype(np.float32) * self.stored(name + ".scale")[:, None]
        if dtype == "U8":
            return a.tobytes()
        if dtype == "BF16":
            return (a.astype(np.uint32) << 16).view(np.float32)
        return a.astype(np.float32)


def write_heed_file(path, meta, tensors):
    """Writes a safetensors-compatible file: u64 header length, JSON header, raw tensors.

    meta: the "__metadata__" object, all values strings (a safetensors rule).
    tensors: {name: (dtype, numpy array)}, dtype a key of DTYPES. They are packed back to back
    from offset 0, wider elements first and the U8 ones last, so each stays aligned to its
    element size (section 3); within one width they keep the order given. The header is padded
    with spaces to a multiple of 8 so the data section starts 8-byte aligned.
    """
    for k, v in meta.items():
        if not isinstance(v, str):
            raise ValueError("write_heed_file: metadata '%s' is not a string" % k)
    width = {k: np.dtype(t).itemsize for k, t in DTYPES.items()}
    order = sorted(tensors, key=lambda n: (-width[tensors[n][0]], tensors[n][0] == "U8"))
    header, blobs, offset = {"__metadata__": meta}, [], 0
    for name in order:
        dtype, arr = tensors[name]
        raw = np.ascontiguousarray(arr, dtype=DTYPES[dtype]).tobytes()
        header[name] = {"dtype": dtype, "shape": list(arr.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * ((-len(text)) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)
