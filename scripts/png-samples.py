#!/usr/bin/env python3
"""An independent PNG reader and writer (Python's standard library only: zlib, struct), for the tests that check what
lanes-image writes without trusting libpng, which lanes-image itself uses.

    png-samples.py read FILE
        prints "COLOUR_TYPE BIT_DEPTH WIDTH HEIGHT" on one line, then every sample (row by row, pixel by pixel,
        channel by channel) separated by spaces on the next. Palette images print their RGB(A) entries' samples.
    png-samples.py write FILE COLOUR_TYPE BIT_DEPTH WIDTH HEIGHT [PATTERN]
        writes a non-interlaced PNG of a deterministic pattern (see pattern()); PATTERN is "ramp" (default) or
        "halfclear" (colour types 4 and 6: the left half fully transparent with red hidden under it, the right half
        one opaque colour).
        Prints the samples it wrote, in the format of `read`.
"""
import struct
import sys
import zlib

CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def chunks(data):
    offset = 8
    while offset + 8 <= len(data):
        (length,) = struct.unpack(">I", data[offset:offset + 4])
        kind = data[offset + 4:offset + 8]
        yield kind, data[offset + 8:offset + 8 + length]
        offset += 12 + length


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def read(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    idat, palette, header = b"", None, None
    for kind, body in chunks(data):
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"PLTE":
            palette = body
        elif kind == b"IDAT":
            idat += body
    width, height, depth, colour, _, _, interlace = header
    assert interlace == 0, "interlaced PNGs are not read here"
    channels = CHANNELS[colour]
    raw = zlib.decompress(idat)
    stride = (width * channels * depth + 7) // 8
    step = max(1, channels * depth // 8)
    rows, previous, offset = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[offset], bytearray(raw[offset + 1:offset + 1 + stride])
        offset += 1 + stride
        for i in range(stride):
            left = line[i - step] if i >= step else 0
            up = previous[i]
            upper_left = previous[i - step] if i >= step else 0
            predictor = [0, left, up, (left + up) // 2, paeth(left, up, upper_left)][kind]
            line[i] = (line[i] + predictor) & 0xFF
        rows.append(line)
        previous = line
    samples = []
    for line in rows:
        if depth == 16:
            samples += [line[i] << 8 | line[i + 1] for i in range(0, width * channels * 2, 2)]
        elif depth == 8:
            samples += list(line[:width * channels])
        else:
            per_byte = 8 // depth
            for x in range(width * channels):
                byte = line[x // per_byte]
                shift = 8 - depth * (x % per_byte + 1)
                samples.append((byte >> shift) & ((1 << depth) - 1))
    if colour == 3:
        expanded = []
        for index in samples:
            expanded += list(palette[index * 3:index * 3 + 3])
        samples = expanded
    return colour, depth, width, height, samples


def pattern(colour, depth, width, height, name):
    """Samples that cover the depth's range: a ramp per channel, different per channel and row."""
    channels = CHANNELS[colour]
    top = (1 << depth) - 1
    samples = []
    for y in range(height):
        for x in range(width):
            for c in range(channels):
                is_alpha = colour in (4, 6) and c == channels - 1
                if name == "halfclear" and is_alpha:
                    samples.append(0 if x < width // 2 else top)
                elif name == "halfclear" and x < width // 2:
                    samples.append(top if c == 0 else 0)  # red (or white grey) hidden under alpha 0
                elif name == "halfclear":
                    samples.append((90 if channels <= 2 else [40, 160, 220][c]) * top // 255)  # flat, opaque
                else:
                    samples.append((x * 2654435761 + y * 40503 + c * 97) % (top + 1) if depth > 1 else (x + y) % 2)
    return samples


def write(path, colour, depth, width, height, name):
    samples = pattern(colour, depth, width, height, name)
    channels = CHANNELS[colour]
    raw = bytearray()
    per_row = width * channels
    for y in range(height):
        row = samples[y * per_row:(y + 1) * per_row]
        raw.append(0)
        if depth == 16:
            for value in row:
                raw += struct.pack(">H", value)
        elif depth == 8:
            raw += bytes(row)
        else:
            per_byte = 8 // depth
            packed = bytearray((len(row) + per_byte - 1) // per_byte)
            for x, value in enumerate(row):
                packed[x // per_byte] |= value << (8 - depth * (x % per_byte + 1))
            raw += packed

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, 0)
    with open(path, "wb") as out:
        out.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(bytes(raw)))
                  + chunk(b"IEND", b""))
    return colour, depth, width, height, samples


def show(result):
    colour, depth, width, height, samples = result
    print(colour, depth, width, height)
    print(" ".join(map(str, samples)))


if __name__ == "__main__":
    if sys.argv[1] == "read":
        show(read(sys.argv[2]))
    else:
        colour, depth, width, height = map(int, sys.argv[3:7])
        show(write(sys.argv[2], colour, depth, width, height, sys.argv[7] if len(sys.argv) > 7 else "ramp"))
