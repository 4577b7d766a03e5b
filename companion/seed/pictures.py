"""The demo store's pictures, drawn as small SVG: a product looks like what its category sells
(shoes like shoes, bags like bags), in one of a few colourways, and each banner is its own.

The files are shipped with the default theme under /_assets/demo/ (no download, no host);
``python -m companion.seed.pictures DIR`` draws them again into DIR. The seed's image urls name
them (``product_picture``, ``banner_picture``).
"""

# ruff: noqa: E501  (SVG path data reads best unbroken, one shape a line)
from __future__ import annotations

import sys
from pathlib import Path

from companion.seed.images import DEMO_IMAGES

#: Background, main colour, accent: one colourway per picture of a product.
PALETTES = (
    ("#dbe8f5", "#1f4e79", "#9cc3e6"),
    ("#f6e3df", "#a63d2f", "#f0b3a6"),
    ("#e6efe1", "#2f5d3a", "#a9cf9a"),
)

# Each shape on a 600 x 600 canvas; {m} is the main colour, {a} the accent.
_SHIRT_BODY = "M220 140 265 120 300 165 335 120 380 140 450 330 415 345 380 250 380 480H220V250L185 345 150 330Z"
SHAPES = {
    "tshirt": '<path d="M210 150 260 120Q300 150 340 120L390 150 440 210 400 240 380 225V470H220V225L200 240 160 210Z" fill="{m}"/>'
    '<path d="M260 120Q300 150 340 120" fill="none" stroke="{a}" stroke-width="8"/>',
    "shirt": f'<path d="{_SHIRT_BODY}" fill="{{m}}"/>'
    '<path d="M265 120 300 165 335 120 322 110 300 140 278 110Z" fill="{a}"/>'
    '<g fill="{a}"><circle cx="300" cy="210" r="6"/><circle cx="300" cy="270" r="6"/>'
    '<circle cx="300" cy="330" r="6"/><circle cx="300" cy="390" r="6"/></g>',
    "jacket": f'<path d="{_SHIRT_BODY}" fill="{{m}}"/>'
    '<path d="M300 165V480M240 330h40M320 330h40" stroke="{a}" stroke-width="8"/>'
    '<path d="M265 120Q300 60 335 120L300 165Z" fill="{a}"/>',
    "dress": '<path d="M258 110H342L338 200 362 232 455 490H145L238 232 262 200Z" fill="{m}"/>'
    '<path d="M258 110 270 80M342 110 330 80" stroke="{m}" stroke-width="8"/>'
    '<path d="M238 232H362" stroke="{a}" stroke-width="14"/>',
    "aodai": '<path d="M272 95H328L345 180 425 215 445 300 410 305 385 240 370 300 395 530H320L300 330 280 530H205L230 300 215 240 190 305 155 300 175 215 255 180Z" fill="{m}"/>'
    '<path d="M272 95Q300 115 328 95" fill="none" stroke="{a}" stroke-width="8"/>',
    "trousers": '<path d="M215 120H385L400 490H318L300 230 282 490H200Z" fill="{m}"/>'
    '<path d="M215 150H385M250 150Q255 195 222 200M350 150Q345 195 378 200" fill="none" stroke="{a}" stroke-width="7"/>',
    "sneaker": '<path d="M115 385 128 300Q205 290 262 245L305 268Q370 300 430 308 490 318 495 360V390Z" fill="{m}"/>'
    '<path d="M108 388H500V412Q300 428 108 414Z" fill="{a}"/>'
    '<path d="M255 270 290 300M280 258 318 290M230 285 262 312" stroke="{a}" stroke-width="8"/>',
    "heel": '<path d="M135 405Q150 322 215 330 300 362 382 296H455L462 330H442L432 470H414L404 352Q330 425 150 425Z" fill="{m}"/>'
    '<path d="M150 410Q250 405 330 380" fill="none" stroke="{a}" stroke-width="8"/>',
    "sandal": '<path d="M150 398Q140 358 200 358L430 348Q482 348 472 384 462 410 420 410L190 420Q150 420 150 398Z" fill="{a}"/>'
    '<path d="M235 360Q250 300 300 300 350 300 360 352M330 352Q360 320 400 350" fill="none" stroke="{m}" stroke-width="18"/>',
    "slipper": '<path d="M140 400Q130 355 200 355L440 345Q490 348 480 385 470 410 425 410L190 420Q140 420 140 400Z" fill="{a}"/>'
    '<path d="M250 358Q255 290 320 290 380 292 385 350Z" fill="{m}"/>',
    "handbag": '<path d="M230 265Q230 150 300 150 370 150 370 265" fill="none" stroke="{m}" stroke-width="20"/>'
    '<path d="M160 260H440L472 480H128Z" fill="{m}"/>'
    '<rect x="276" y="300" width="48" height="30" rx="6" fill="{a}"/>',
    "backpack": '<path d="M265 160Q265 120 300 120 335 120 335 160" fill="none" stroke="{m}" stroke-width="14"/>'
    '<rect x="190" y="155" width="220" height="330" rx="70" fill="{m}"/>'
    '<rect x="225" y="330" width="150" height="110" rx="24" fill="{a}"/><path d="M245 360H355" stroke="{m}" stroke-width="6"/>',
    "wallet": '<rect x="140" y="210" width="320" height="200" rx="22" fill="{m}"/>'
    '<path d="M140 260H460V330H380Q350 330 350 295 350 260 380 260Z" fill="{a}"/><circle cx="390" cy="295" r="10" fill="{m}"/>',
    "hat": '<path d="M180 360Q180 205 315 205 445 205 450 360Z" fill="{m}"/>'
    '<path d="M150 360H525Q535 392 480 396L160 384Z" fill="{a}"/><circle cx="315" cy="205" r="12" fill="{a}"/>',
    "belt": '<rect x="50" y="270" width="500" height="60" rx="10" fill="{m}"/>'
    '<rect x="120" y="255" width="90" height="90" rx="10" fill="none" stroke="{a}" stroke-width="12"/>'
    '<g fill="{a}"><circle cx="330" cy="300" r="7"/><circle cx="380" cy="300" r="7"/><circle cx="430" cy="300" r="7"/></g>',
    "scarf": '<path d="M170 150Q300 230 430 150L450 190Q400 260 350 270L390 480H320L300 290 260 480H200L250 270Q200 250 150 190Z" fill="{m}"/>'
    '<path d="M200 480v25M225 480v25M250 480v25M330 480v25M355 480v25M380 480v25" stroke="{m}" stroke-width="6"/>'
    '<path d="M190 190Q300 250 410 190" fill="none" stroke="{a}" stroke-width="10"/>',
    "sunglasses": '<ellipse cx="205" cy="310" rx="95" ry="68" fill="{m}"/><ellipse cx="395" cy="310" rx="95" ry="68" fill="{m}"/>'
    '<path d="M285 290Q300 270 315 290M110 290 70 250M490 290 530 250" fill="none" stroke="{m}" stroke-width="14"/>'
    '<path d="M165 285Q185 265 215 268M355 285Q375 265 405 268" fill="none" stroke="{a}" stroke-width="10"/>',
    "onesie": '<path d="M240 140 280 125Q300 150 320 125L360 140 420 200 390 230 370 215V400Q370 450 330 470H270Q230 450 230 400V215L210 230 180 200Z" fill="{m}"/>'
    '<path d="M270 470Q300 420 330 470" fill="{a}"/><g fill="{a}"><circle cx="300" cy="220" r="7"/><circle cx="300" cy="270" r="7"/></g>',
}

#: The picture of a category's goods, by the first words of its name (the longest match wins;
#: a line grown from another, "Đầm dự tiệc", draws as its own: "Đầm").
LINE_SHAPES = {
    "Áo thun": "tshirt",
    "Áo sơ mi": "shirt",
    "Áo khoác": "jacket",
    "Áo dài": "aodai",
    "Đầm": "dress",
    "Quần": "trousers",
    "Giày thể thao": "sneaker",
    "Giày cao gót": "heel",
    "Sandal": "sandal",
    "Dép": "slipper",
    "Túi xách": "handbag",
    "Balo": "backpack",
    "Ví": "wallet",
    "Mũ": "hat",
    "Thắt lưng": "belt",
    "Khăn": "scarf",
    "Kính mát": "sunglasses",
    "Bé trai": "tshirt",
    "Bé gái": "dress",
    "Sơ sinh": "onesie",
}

#: The home page's banners, each drawn on its own (1200 x 400): a name of the seed's, and a
#: scene of shapes on a band of colour.
BANNERS = {
    # Autumn-winter: a jacket, a scarf and a bag on warm tones, falling leaves.
    "hero-1": (
        "#f4ead6",
        "#6b4e16",
        "#c98a3c",
        (("jacket", 0, 760), ("scarf", 1, 900), ("handbag", 2, 1040)),
    ),
    # Summer sale: a sun, a T-shirt, sunglasses and sandals on sea blue.
    "hero-2": (
        "#d6ecf5",
        "#1f4e79",
        "#f2b134",
        (("tshirt", 0, 760), ("sunglasses", 1, 900), ("sandal", 2, 1040)),
    ),
    "hero-3": (
        "#ece6f5",
        "#4b2f79",
        "#b39ddb",
        (("shirt", 0, 760), ("trousers", 1, 900), ("sneaker", 2, 1040)),
    ),
    "middle-1": ("#e6efe1", "#2f5d3a", "#a9cf9a", (("backpack", 2, 900), ("sneaker", 0, 1040))),
    "middle-2": ("#f6e3df", "#a63d2f", "#f0b3a6", (("aodai", 1, 900), ("dress", 0, 1040))),
}


def shape_of(line: str) -> str:
    """The shape drawn for a category of goods (a T-shirt when none is known)."""
    found = [words for words in LINE_SHAPES if line.startswith(words)]
    return LINE_SHAPES[max(found, key=len)] if found else "tshirt"


def product_picture(line: str, position: int) -> str:
    """The url of picture ``position`` (1-based) of a product of category ``line``: each
    position its own colourway."""
    return f"{DEMO_IMAGES}/product-{shape_of(line)}-{(position - 1) % len(PALETTES) + 1}.svg"


def banner_picture(name: str) -> str:
    return f"{DEMO_IMAGES}/banner-{name}.svg"


def draw_product(shape: str, palette: int) -> str:
    background, main, accent = PALETTES[palette]
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 600 600" width="600" height="600">'
        f'<rect width="600" height="600" fill="{background}"/>'
        '<ellipse cx="300" cy="520" rx="190" ry="18" fill="#000" opacity=".08"/>'
        f"{SHAPES[shape].format(m=main, a=accent)}</svg>"
    )


def draw_banner(name: str) -> str:
    background, main, accent, goods = BANNERS[name]
    placed = "".join(
        f'<g transform="translate({x - 90} 90) scale(.3)">'
        f"{SHAPES[shape].format(m=PALETTES[palette][1], a=accent)}</g>"
        for shape, palette, x in goods
    )
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1200 400" width="1200" height="400">'
        f'<rect width="1200" height="400" fill="{background}"/>'
        f'<path d="M0 330Q300 270 600 320T1200 300V400H0Z" fill="{main}" opacity=".12"/>'
        f'<circle cx="{goods[0][2] + 40}" cy="110" r="150" fill="{accent}" opacity=".35"/>'
        f'<rect x="70" y="120" width="64" height="8" rx="4" fill="{accent}"/>'
        f"{placed}</svg>"
    )


def pictures() -> dict[str, str]:
    """Every picture by its file name."""
    drawn = {
        f"product-{shape}-{palette + 1}.svg": draw_product(shape, palette)
        for shape in SHAPES
        for palette in range(len(PALETTES))
    }
    drawn |= {f"banner-{name}.svg": draw_banner(name) for name in BANNERS}
    return drawn


def write_pictures(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, svg in pictures().items():
        path = folder / name
        path.write_text(svg + "\n", encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for path in write_pictures(Path(sys.argv[1])):
        print(path)
