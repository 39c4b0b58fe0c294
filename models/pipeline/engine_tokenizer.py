"""The tokenizer as the engine uses it: a model's target-language tokens (<2de>, <2fr>, ...) are
control pieces, so a "<2fr>" typed into a sentence is spelt out of ordinary pieces
(src/translator/load_model.cpp makes them control; the run's SentencePiece model keeps them
user-defined, and the sentencepiece library would read "<2fr>" in text as the token itself).

Training and evaluation read text through processor() so that the pieces they see are the
pieces the engine gives the same text. No protobuf package here: the model is rewritten at the
wire level, one byte a language token (the piece's type, USER_DEFINED 4 -> CONTROL 3)."""
import re

import sentencepiece as spm

LANGUAGE_TOKEN = re.compile(rb"^<2[a-z]{2,3}>$")
USER_DEFINED, CONTROL = 4, 3


def varint(data, at):
    """(value, next offset) of the protobuf varint at data[at]."""
    value, shift = 0, 0
    while True:
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at += 1
        if byte < 0x80:
            return value, at
        shift += 7


def fields(data, start, end):
    """(field number, wire type, value start, value end) of each field in data[start:end]."""
    at = start
    while at < end:
        key, at = varint(data, at)
        number, wire = key >> 3, key & 7
        if wire == 0:
            _, nxt = varint(data, at)
        elif wire == 1:
            nxt = at + 8
        elif wire == 2:
            size, at = varint(data, at)
            nxt = at + size
        elif wire == 5:
            nxt = at + 4
        else:
            raise ValueError("tokenizer model: wire type %d at byte %d is not protobuf"
                             % (wire, at))
        if nxt > end:
            raise ValueError("tokenizer model: a field runs past its message at byte %d" % at)
        yield number, wire, at, nxt
        at = nxt


def with_language_tokens_as_control(proto):
    """The serialized ModelProto with every user-defined <2xx> piece made a control piece."""
    out = bytearray(proto)
    for number, wire, start, end in fields(out, 0, len(out)):
        if number != 1 or wire != 2:  # ModelProto.pieces
            continue
        parts = list(fields(out, start, end))
        piece = next((bytes(out[s:e]) for n, w, s, e in parts if n == 1 and w == 2), b"")
        if not LANGUAGE_TOKEN.match(piece):
            continue
        for n, w, s, e in parts:
            if n == 3 and w == 0 and e == s + 1 and out[s] == USER_DEFINED:  # SentencePiece.type
                out[s] = CONTROL
    return bytes(out)


def processor(model_file=None, model_proto=None):
    """A SentencePieceProcessor that segments text as the engine does."""
    if model_proto is None:
        with open(model_file, "rb") as f:
            model_proto = f.read()
    return spm.SentencePieceProcessor(model_proto=with_language_tokens_as_control(model_proto))
