"""storefront.toml: the build settings a store's project keeps, read from the folder a command
runs in. Its keys are the flags' names (``out``, ``site-url``, ``theme``, ...); a flag and its
environment variable win over it, and it wins over xstore.json and the defaults.

A key or a secret is never kept there (the file is committed): it is refused with one line
naming the environment variable that holds it.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from pathlib import Path

from generator.errors import ConfigError

PROJECT_FILE = "storefront.toml"
#: Keys a secret would be written under, and the variable that holds it instead.
SECRETS = {
    "key": "STOREFRONT_API_KEY",
    "api-key": "STOREFRONT_API_KEY",
    "api_key": "STOREFRONT_API_KEY",
    "webhook-secret": "STOREFRONT_WEBHOOK_SECRET",
    "webhook_secret": "STOREFRONT_WEBHOOK_SECRET",
}


def load_project_settings(path: Path, known: Mapping[str, str]) -> dict[str, str]:
    """The file's settings as a flag would give them (setting name -> text); a missing file
    has none. ``known``: key -> setting name."""
    if not path.is_file():
        return {}
    import tomllib  # here: most builds run where there is no such file to parse

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: not TOML ({exc})") from None
    found: dict[str, str] = {}
    for key, value in data.items():
        if key in SECRETS:
            raise ConfigError(
                f"{path}: {key} is never kept in a file; set {SECRETS[key]} in the environment"
            )
        if key not in known:
            close = difflib.get_close_matches(key, known, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise ConfigError(
                f"{path}: unknown setting {key!r} ({hint}its keys are the flags' names)"
            )
        if isinstance(value, bool):
            if value:
                found[known[key]] = "1"
        elif isinstance(value, str | int | float):
            found[known[key]] = str(value)
        else:
            raise ConfigError(f"{path}: {key} should be a string, a number or true/false")
    return found
