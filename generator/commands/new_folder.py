"""Files written into a folder a command makes (``storefront init``, ``storefront theme new``):
never over what is there."""

from __future__ import annotations

from pathlib import Path

from generator.errors import ConfigError

#: What a new repository holds before anything is written into it: kept, never refused.
REPOSITORY_ENTRIES = frozenset({".git"})


def refuse_non_empty(folder: Path, *, kept: frozenset[str] = frozenset()) -> None:
    """A ``ConfigError`` unless ``folder`` is missing or an empty folder (a repository's own
    ``.git`` aside, and the entries named in ``kept``, lower case), naming what is in the way."""
    if not folder.exists():
        return
    if not folder.is_dir():
        raise ConfigError(f"{folder} is a file; name a new or empty folder")
    found = sorted(
        e.name
        for e in folder.iterdir()
        if e.name not in REPOSITORY_ENTRIES and e.name.lower() not in kept
    )
    if found:
        shown = ", ".join(found[:3]) + (f" and {len(found) - 3} more" if len(found) > 3 else "")
        raise ConfigError(f"{folder} is not an empty folder (it holds {shown}); name a new one")


def write_files(files: dict[Path, str], *, what: str, folder: Path) -> list[Path]:
    """Each file written with its folders; a failure is one line naming ``what`` it wrote."""
    try:
        for path, text in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot write the {what} into {folder}: {exc.strerror}") from None
    return list(files)
