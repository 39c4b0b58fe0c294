"""A Heed model file's parts without PyTorch (models/README.md, section 1): header, metadata,
tensors as numpy arrays. Used by heed_torch.read_heed, marian_compat and the Marian export."""
import json
import struct

import numpy as np

DTYPES = {"F32": np.float32, "F16": np.float16, "I8": np.int8, "U8": np.uint8, "I32": np.int32}


class HeedFile:
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
        """The tensor as stored (int8 stays int8)."""
        if name not in self.header:
            raise KeyError("%s: missing tensor '%s'" % (self.path, name))
        e = self.header[name]
        return np.frombuffer(self.data[e["data_offsets"][0]:e["data_offsets"][1]],
                             dtype=DTYPES[e["dtype"]]).reshape(e["shape"])

    def tensor(self, name):
        """float32 (I8 dequantised with its per-row scale), or bytes for U8."""
        a = self.stored(name)
        if self.header[name]["dtype"] == "I8":
            return a.astype(np.float32) * self.stored(name + ".scale")[:, None]
        if self.header[name]["dtype"] == "U8":
            return a.tobytes()
        return a.astype(np.float32)
