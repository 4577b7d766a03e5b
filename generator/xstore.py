"""xstore.json, the deployment descriptor. Its schema is provisional (spec, "Versioning"):
known keys are read, unknown or renamed keys produce a warning, never a failure.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from generator.errors import ConfigError

KNOWN_KEYS = frozenset(
    {"engine", "engineVersion", "nodeMajor", "entrypoint", "requiredEnv", "staticDir", "publicDir"}
)


@dataclass(frozen=True, slots=True)
class Descriptor:
    engine: str | None = None
    engine_version: str | None = None
    node_major: int | None = None
    entrypoint: str | None = None
    required_env: tuple[str, ...] = ()
    static_dir: str | None = None
    public_dir: str | None = None
    warnings: tuple[str, ...] = field(default=())
    source: str = "xstore.json"  # the file read, as messages name it


def load_descriptor(path: Path) -> Descriptor:
    """Read xstore.json; a missing file is an empty descriptor, a broken one a ConfigError."""
    if not path.exists():
        return Descriptor()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{path}: not readable as JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a JSON object at the top level")
    return parse_descriptor(data, source=str(path))


def parse_descriptor(data: dict[str, Any], *, source: str = "xstore.json") -> Descriptor:
    warnings = [
        f"{source}: unknown key {key!r} ignored (the descriptor schema is provisional)"
        for key in sorted(set(data) - KNOWN_KEYS)
    ]

    def text(key: str) -> str | None:
        value = data.get(key)
        if value is None or isinstance(value, str):
            return value
        warnings.append(f"{source}: {key} should be a string, ignored")
        return None

    node_major = data.get("nodeMajor")
    if node_major is not None and not isinstance(node_major, int):
        if isinstance(node_major, str) and node_major.isdigit():
            node_major = int(node_major)
        else:
            warnings.append(f"{source}: nodeMajor should be a whole number, ignored")
            node_major = None

    required = data.get("requiredEnv", [])
    if not isinstance(required, list) or not all(isinstance(v, str) for v in required):
        raise ConfigError(f"{source}: requiredEnv must be a list of variable names")

    return Descriptor(
        engine=text("engine"),
        engine_version=text("engineVersion"),
        node_major=node_major,
        entrypoint=text("entrypoint"),
        required_env=tuple(required),
        static_dir=text("staticDir"),
        public_dir=text("publicDir"),
        warnings=tuple(warnings),
        source=source,
    )
