"""Files written into a folder a command makes (``storefront init``, ``storefront theme new``):
never over what is there."""

from __future__ import annotations

from pathlib import Path

from generator.errors import ConfigError


def refuse_non_empty(folder: Path) -> None:
    """A ``ConfigError`` unless ``folder`` is missing or an empty folder."""
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise ConfigError(f"{folder} already exists and is not an empty folder")


def write_files(files: dict[Path, str], *, what: str, folder: Path) -> list[Path]:
    """Each file written with its folders; a failure is one line naming ``what`` it wrote."""
    try:
        for path, text in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot write the {what} into {folder}: {exc.strerror}") from None
    return list(files)
