"""PNG decoding with the standard library: 8-bit RGB or RGBA, not interlaced (what Chromium's
screenshots are), enough to count the pixels that differ from the background."""

import itertools
import operator
import struct
import zlib


class PngError(Exception):
    pass


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def _unfilter(kind, line, prev, bpp):
    if kind == 0:
        return line
    if kind == 2:
        return bytes(map(operator.and_, map(operator.add, line, prev), itertools.repeat(255)))
    out = bytearray(line)
    if kind == 1:
        for c in range(bpp):
            sums = itertools.accumulate(line[c::bpp])
            out[c::bpp] = bytes(map(operator.and_, sums, itertools.repeat(255)))
    elif kind == 3:
        for i in range(len(out)):
            left = out[i - bpp] if i >= bpp else 0
            out[i] = (out[i] + ((left + prev[i]) >> 1)) & 255
    elif kind == 4:
        for i in range(len(out)):
            left = out[i - bpp] if i >= bpp else 0
            up_left = prev[i - bpp] if i >= bpp else 0
            out[i] = (out[i] + _paeth(left, prev[i], up_left)) & 255
    else:
        raise PngError(f"unknown filter type {kind}")
    return bytes(out)


def decode(data):
    """Returns (width, height, channels, rows): each row the bytes of one line of pixels."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise PngError("not a PNG file")
    pos, header, idat = 8, None, []
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    if header is None:
        raise PngError("no IHDR chunk")
    width, height, depth, color, _, _, interlace = header
    channels = {2: 3, 6: 4}.get(color)
    if depth != 8 or channels is None or interlace:
        raise PngError(f"unsupported PNG: depth {depth}, color type {color}, interlace {interlace}")
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    rows, prev = [], bytes(stride)
    for y in range(height):
        start = y * (stride + 1)
        prev = _unfilter(raw[start], raw[start + 1:start + 1 + stride], prev, channels)
        rows.append(prev)
    return width, height, channels, rows


def count_unlike(data, background=(255, 255, 255)):
    """(pixels differing from the background colour, all pixels) of a PNG image."""
    width, height, channels, rows = decode(data)
    bg = bytes(background) + (b"\xff" if channels == 4 else b"")
    differing = 0
    for row in rows:
        differing += width - sum(1 for x in range(0, len(row), channels)
                                 if row[x:x + channels] == bg)
    return differing, width * height
