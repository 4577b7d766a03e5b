"""Screenshots against the committed references in references/, with pixelmatch.

A page matches when at most ``MAX_SHARE`` of its pixels differ by more than ``THRESHOLD``
(pixelmatch's perceptual colour distance, anti-aliased edges not counted). On a mismatch the
actual image and a diff (changed pixels red over a faded reference) are written to the test's
tmp folder and named in the failure. ``UPDATE_SCREENSHOTS=1`` writes the references instead.

The references are kept small: 256 colours (the palette of the page itself, not dithered),
optimised. A screenshot is mapped to its reference's palette first, so an unchanged page is
byte for byte its reference and only a changed region is given to pixelmatch (pure Python).
"""

from __future__ import annotations

import io
import os
from pathlib import Path

from PIL import Image, ImageChops
from pixelmatch.contrib.PIL import pixelmatch

REFERENCES = Path(__file__).parent / "references"
THRESHOLD = 0.1
MAX_SHARE = 0.001
#: pixelmatch's anti-aliasing test looks two pixels around a pixel: a crop keeps that margin.
_MARGIN = 3


def updating() -> bool:
    return os.environ.get("UPDATE_SCREENSHOTS", "") not in ("", "0")


def save_png(image: Image.Image, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path, format="PNG", optimize=True)


def save_reference(image: Image.Image, path: Path) -> None:
    """256 colours chosen for this image, each pixel the nearest one (a screenshot of a page
    differs from it by less than pixelmatch's threshold)."""
    palette = image.quantize(256, method=Image.Quantize.MEDIANCUT)
    save_png(image.quantize(palette=palette, dither=Image.Dither.NONE), path)


def check_screenshot(png: bytes, name: str, tmp_path: Path) -> None:
    actual = Image.open(io.BytesIO(png)).convert("RGB")
    reference = REFERENCES / f"{name}.png"
    if updating():
        save_reference(actual, reference)
        return
    if not reference.is_file():
        save_png(actual, tmp_path / f"{name}.actual.png")
        raise AssertionError(
            f"no reference {reference.name}: see {tmp_path / f'{name}.actual.png'}; "
            "UPDATE_SCREENSHOTS=1 writes the references"
        )
    with Image.open(reference) as stored:
        stored.load()
    expected = stored.convert("RGB")
    if expected.size != actual.size:
        save_png(actual, tmp_path / f"{name}.actual.png")
        raise AssertionError(
            f"{name}: {actual.size[0]}x{actual.size[1]} px, the reference is "
            f"{expected.size[0]}x{expected.size[1]}: see {tmp_path / f'{name}.actual.png'}"
        )
    mapped = actual
    if stored.mode == "P":
        mapped = actual.quantize(palette=stored, dither=Image.Dither.NONE).convert("RGB")
    changed, diff = _mismatched(expected, actual, ImageChops.difference(expected, mapped))
    share = changed / (actual.size[0] * actual.size[1])
    if share > MAX_SHARE:
        save_png(actual, tmp_path / f"{name}.actual.png")
        save_png(diff, tmp_path / f"{name}.diff.png")
        raise AssertionError(
            f"{name}: {changed} pixels ({share:.3%}) differ from {reference.name}, over the "
            f"{MAX_SHARE:.3%} allowed: see {tmp_path / f'{name}.actual.png'} and "
            f"{tmp_path / f'{name}.diff.png'}"
        )


def _mismatched(
    expected: Image.Image, actual: Image.Image, changes: Image.Image
) -> tuple[int, Image.Image]:
    """The count of differing pixels and the diff image. pixelmatch runs only on the box that
    holds every change of the mapped screenshot (``changes``), with a margin: outside it the
    screenshot maps to the reference's very colours."""
    diff = Image.blend(expected, Image.new("RGB", expected.size, "white"), 0.9)
    box = changes.getbbox()
    if box is None:
        return 0, diff
    width, height = expected.size
    box = (
        max(box[0] - _MARGIN, 0),
        max(box[1] - _MARGIN, 0),
        min(box[2] + _MARGIN, width),
        min(box[3] + _MARGIN, height),
    )
    output = Image.new("RGBA", (box[2] - box[0], box[3] - box[1]))
    changed = pixelmatch(expected.crop(box), actual.crop(box), output, threshold=THRESHOLD)
    diff.paste(output.convert("RGB"), box[:2])
    return changed, diff
