#!/usr/bin/python3
"""Regenerates the small derived JPEG fixtures of Tests/LanesImagesTests/Fixtures with Pillow,
and prints the reference values the tests assert (decoded by Pillow, not by LanesImages).

Run from the repository root with a Python that has Pillow (Debian: python3-pil):
    /usr/bin/python3 scripts/make-image-fixtures.py
"""
from PIL import Image

FIXTURES = "Tests/LanesImagesTests/Fixtures"


def summary(path):
    im = Image.open(path)
    rgb = im.convert("RGB")
    w, h = rgb.size
    data = list(rgb.getdata())
    sums = [sum(p[c] for p in data) for c in range(3)]
    points = [(x, y, rgb.getpixel((x, y))) for x, y in [(0, 0), (w - 1, h - 1), (w // 2, h // 2)]]
    print(f"{path}: {im.mode} {w}x{h} progressive={bool(im.info.get('progressive'))} sums={sums} points={points}")


# A flat CMYK JPEG: top half pure red ink (M+Y), bottom half 50% black ink (K=128).
cmyk = Image.new("CMYK", (16, 16), (0, 255, 255, 0))
cmyk.paste((0, 0, 0, 128), (0, 8, 16, 16))
cmyk.save(f"{FIXTURES}/cmyk-red-grey.jpg", quality=95)

# A greyscale (one component) JPEG: flat 100.
Image.new("L", (16, 8), 100).save(f"{FIXTURES}/grey-100.jpg", quality=95)

# A progressive JPEG: a 64x48 crop of chelsea.png.
Image.open(f"{FIXTURES}/chelsea.png").crop((200, 100, 264, 148)).save(
    f"{FIXTURES}/chelsea-progressive.jpg", quality=90, progressive=True)

for name in ["cmyk-red-grey.jpg", "grey-100.jpg", "chelsea-progressive.jpg"]:
    summary(f"{FIXTURES}/{name}")
