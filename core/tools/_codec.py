"""Text files as bytes on disk: binary sniffing, decoding that round-trips (utf-8 or latin-1, BOM, CRLF)."""

from __future__ import annotations

from dataclasses import dataclass

from contextual.core.tools.base import ToolError

SNIFF_BYTES = 8192
UTF8_BOM = b"\xef\xbb\xbf"
# Control characters that real text files do not contain; many of them mean "this is binary".
_TEXT_CONTROLS = set(b"\t\n\r\f\b\x1b\v")


@dataclass(frozen=True)
class TextStyle:
    """How a file was stored on disk, so an edit can write it back the same way."""
    encoding: str = "utf-8"      # "utf-8" or "latin-1"
    bom: bool = False
    crlf: bool = False           # every newline is CRLF: the text is handled with \n and written back with \r\n


def looks_binary(raw: bytes) -> bool:
    sample = raw[:SNIFF_BYTES]
    if b"\x00" in sample:
        return True
    if not sample:
        return False
    controls = sum(1 for b in sample if b < 32 and b not in _TEXT_CONTROLS)
    return controls / len(sample) > 0.05


def decode_text(raw: bytes) -> tuple[str, TextStyle] | None:
    """Bytes -> (text with \\n newlines when the file is pure CRLF, style); None when it is binary."""
    if looks_binary(raw):
        return None
    bom = raw.startswith(UTF8_BOM)
    body = raw[len(UTF8_BOM):] if bom else raw
    try:
        text, encoding = body.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        if bom:
            return None
        text, encoding = body.decode("latin-1"), "latin-1"   # every byte decodes; the file stays latin-1
    crlf = "\r\n" in text and text.count("\r\n") == text.count("\n")
    if crlf:
        text = text.replace("\r\n", "\n")
    return text, TextStyle(encoding=encoding, bom=bom, crlf=crlf)


def encode_text(text: str, style: TextStyle) -> bytes:
    if style.crlf:
        text = text.replace("\r\n", "\n").replace("\n", "\r\n")
    try:
        body = text.encode(style.encoding)
    except UnicodeEncodeError as exc:
        bad = text[exc.start:exc.end]
        raise ToolError("encoding_error",
                        f"the file is {style.encoding} and cannot hold {bad!r}; nothing was written") from None
    return (UTF8_BOM if style.bom else b"") + body


def fits(text: str, encoding: str) -> bool:
    try:
        text.encode(encoding)
        return True
    except UnicodeEncodeError:
        return False
