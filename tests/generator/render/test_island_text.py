"""Every string the islands can put on a page is Vietnamese, and none says null or undefined.

The island sources are read as JavaScript tokens (comments dropped, string and template
literals kept); a literal is text a shopper may read when it holds words (a space, or a
Vietnamese letter) and is not code (selectors, paths, attribute values). The few English
strings that only go to POST /storefront-errors are named below and checked to go there alone.
The pages the islands fill in give them words too (data-* attributes, <template> parts), and
the theme's words.toml ([islands], [stock], published in main.js): those are read with them.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

THEME = Path(__file__).resolve().parents[3] / "site-templates"
ISLANDS = THEME / "islands"
#: The templates whose markup and words the islands show.
SHELLS = (
    "cart.html",
    "checkout.html",
    "payment_return.html",
    "account.html",
    "partials/cart_empty.html",
    "partials/order_statuses.html",
    "product.html",
)
#: Letters only Vietnamese (of the languages a shop might mix in) writes.
VIETNAMESE = re.compile(
    "[àáảãạăằắẳẵặâầấẩẫậèéẻẽẹêềếểễệìíỉĩịòóỏõọôồốổỗộơờớởỡợùúủũụưừứửữựỳýỷỹỵđ]", re.IGNORECASE
)
#: Words a shopper may read untranslated in a Vietnamese shop.
LOANWORDS = {"email", "vat", "cod"}
#: Sent to POST /storefront-errors (the merchant's log), never shown.
REPORTED_ONLY = {"session service unreachable", "JS: "}
#: Characters of code (selectors, cookies, attribute values), never of a sentence.
_CODE = re.compile(r"[=\[\];{}<>#]")
#: KeyboardEvent.key values the islands compare with: names of keys, never shown.
KEY_NAMES = {"Escape", "Enter", "Tab"}


def literals(source: str) -> list[str]:
    """String and template literals of ``source`` (a template's ${...} parts as one space)."""
    found: list[str] = []
    i, n = 0, len(source)
    while i < n:
        c = source[i]
        if source.startswith("//", i):
            i = source.find("\n", i)
            i = n if i < 0 else i
        elif source.startswith("/*", i):
            i = source.index("*/", i) + 2
        elif c in "'\"" and re.search(r"\b(?:class:|className =)\s*$", source[max(0, i - 12) : i]):
            i = source.index(c, i + 1) + 1  # a class attribute's value: names, not words
        elif c in "'\"":
            j, text = i + 1, []
            while source[j] != c:
                if source[j] == "\\":
                    j += 1
                text.append(source[j])
                j += 1
            found.append("".join(text))
            i = j + 1
        elif c == "`":
            j, text, depth = i + 1, [], 0
            while depth or source[j] != "`":
                if source.startswith("${", j) and not depth:
                    depth, j = 1, j + 2
                    text.append(" ")
                    continue
                if depth:
                    depth += {"{": 1, "}": -1}.get(source[j], 0)
                else:
                    text.append(source[j])
                j += 1
            found.append("".join(text))
            i = j + 1
        elif c == "/" and re.search(r"[(,=:!&|?]\s*$", source[max(0, i - 20) : i]):
            j = i + 1  # a regular expression literal: skipped whole
            while source[j] != "/":
                j += 2 if source[j] == "\\" else 1
            i = j + 1
        else:
            i += 1
    return found


def shown(text: str) -> bool:
    """Words a shopper reads, not code: a letter, and a space or a Vietnamese letter."""
    stripped = text.strip()
    # A path, a query, or a CSS selector of classes (".co-summary summary strong").
    if not re.search(r"[^\W\d_]", stripped) or stripped.startswith(("/", "./", "?", "&", ".")):
        return False
    if VIETNAMESE.search(stripped):
        return True
    if _CODE.search(stripped) or stripped in KEY_NAMES:
        return False
    # Several words, or one capitalised word (not a header name such as Content-Type, nor a
    # method or unit such as POST or Z): what a label, a button or a message looks like.
    if re.search(r"[^\W\d_]+ +[^\W\d_]+", stripped):
        return True
    return bool(re.fullmatch(r"[A-Z][a-z]+[.…!]*", stripped))


def english(text: str) -> bool:
    words = re.findall(r"[A-Za-z]+", text)
    foreign = [w for w in words if w.lower() not in LOANWORDS]
    return bool(foreign) and not VIETNAMESE.search(text)


def template_words(source: str) -> list[str]:
    """The data-* attribute values and the text between tags of a template (Jinja removed)."""
    markup = re.sub(r"\{[#%].*?[#%]\}|\{\{.*?\}\}", " ", source, flags=re.S)
    return re.findall(r'\sdata-[\w-]+="([^"]*)"', markup) + re.findall(r">([^<]+)<", markup)


def _all_shown() -> dict[str, list[str]]:
    texts = {}
    for source in sorted(ISLANDS.glob("*.js")):
        texts[source.name] = [t for t in literals(source.read_text(encoding="utf-8")) if shown(t)]
    for name in SHELLS:
        words = template_words((THEME / name).read_text(encoding="utf-8"))
        texts[name] = [t for t in words if shown(t)]
    # The theme's words the build publishes in main.js.
    with (THEME / "words.toml").open("rb") as file:
        tables = tomllib.load(file)
    texts["words.toml"] = [t for t in {**tables["islands"], **tables["stock"]}.values() if shown(t)]
    return texts


def test_the_scan_reads_the_islands_texts() -> None:
    texts = _all_shown()
    every = [t for found in texts.values() for t in found]
    assert len(every) > 80, len(every)
    assert "Thêm vào giỏ" in every and "Tạm thời chưa đặt hàng được" in every
    # The scanner sees English where there is some: so a clean result means something.
    assert english("Something went wrong") and not english("Đã có lỗi, vui lòng thử lại.")
    assert shown("Cannot read properties") and not shown("input[name=variant_id]:checked")
    assert shown("Loading…") and not shown("Content-Type") and not shown("POST")


def test_every_text_the_islands_show_is_vietnamese() -> None:
    wrong = {
        name: [t for t in found if english(t) and t not in REPORTED_ONLY]
        for name, found in _all_shown().items()
    }
    assert {name: texts for name, texts in wrong.items() if texts} == {}


def test_no_text_says_null_or_undefined() -> None:
    for name, found in _all_shown().items():
        assert not [t for t in found if re.search(r"\b(null|undefined|NaN)\b", t)], name


def test_english_strings_only_go_to_the_error_report() -> None:
    for source in ISLANDS.glob("*.js"):
        text = source.read_text(encoding="utf-8")
        for line in text.splitlines():
            for literal in REPORTED_ONLY:
                if f"'{literal}'" in line:
                    assert "report(" in line, (source.name, line)
