"""The theme's translations file, ``words.toml``: the words its pages say that no single
template holds (``plan.words``: page names, breadcrumbs, descriptions; the stock states) and
those its islands say (``[islands]``, published in ``islands/main.js``: ``theme``).

Each layer's ``words.toml`` replaces keys of the one below it (the merchant's over the default
theme's), so a layer holds only the words it changes. A key the default theme does not have,
or a value that is not text, stops the build before its first request with one line naming it.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from types import MappingProxyType
from typing import Any

from generator.errors import ConfigError
from generator.plan.words import WORDS_FILE, PageWords

#: The theme's words, by table then key: ``words["stock"]["out"]``.
Words = MappingProxyType[str, MappingProxyType[str, str]]


def page_words(folders: tuple[Path, ...]) -> PageWords:
    """What the plan names pages with: the ``[pages]`` table of a theme's layers."""
    return PageWords(layered_words(folders)["pages"])


def island_words(words: Words) -> bytes:
    """What the islands are given (``islands/main.js``'s ``words``): ``[islands]``, and
    ``[stock]`` as its ``stock``, as a JavaScript object."""
    given = {**words.get("islands", {}), "stock": dict(words.get("stock", {}))}
    return json.dumps(given, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def layered_words(folders: tuple[Path, ...]) -> Words:
    """The words of a theme's layers (``Theme.folders``: the merchant's first, the default
    theme's last), each over the one below it."""
    *layers, default = folders
    merged = {table: dict(texts) for table, texts in _read(default).items()}
    for folder in reversed(layers):
        for table, texts in _read(folder).items():
            for key, text in texts.items():
                if key not in merged.get(table, {}):
                    raise ConfigError(
                        f"{folder / WORDS_FILE}: [{table}] {key} is not a word of the theme "
                        f"(see the default theme's {WORDS_FILE})"
                    )
                _check_names(folder, table, key, text, merged[table][key])
                merged[table][key] = text
    return MappingProxyType({t: MappingProxyType(texts) for t, texts in merged.items()})


#: A place in a word where the build puts a value: ``{number}``, ``{store}``.
_NAME = re.compile(r"\{(\w+)\}")


def _check_names(folder: Path, table: str, key: str, text: str, default: str) -> None:
    """A word says the values its default says, and no others: an unknown ``{name}`` would be
    shown as it is, and a missing ``{number}`` makes two pages' titles the same."""
    wanted, given = set(_NAME.findall(default)), set(_NAME.findall(text))
    if given != wanted:
        names = " and ".join(f"{{{name}}}" for name in sorted(wanted)) or "no {name}"
        raise ConfigError(
            f"{folder / WORDS_FILE}: [{table}] {key} must say {names}, as the default "
            f"{default!r} does; got {text!r}"
        )


def _read(folder: Path) -> dict[str, dict[str, str]]:
    file = folder / WORDS_FILE
    if not file.is_file():
        return {}
    try:
        data: dict[str, Any] = tomllib.loads(file.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{file}: {exc}") from None
    for table, texts in data.items():
        if not isinstance(texts, dict):
            raise ConfigError(f"{file}: {table} must be a table of words ([{table}])")
        for key, text in texts.items():
            if not isinstance(text, str):
                raise ConfigError(f"{file}: [{table}] {key} must be text, got {text!r}")
    return data
