"""The shipped nginx recipes hold what clients send to at most what the services behind them
allow (body size, a request head's time, a body's pace), so a slow or large request is cut off
at the proxy first; nginx -t and the real-nginx tests check the files load."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from companion.settings import CompanionSettings
from generator.serve.service import SessionSettings

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
_UNITS = {"": 1, "k": 1024, "m": 1024 * 1024, "s": 1, "ms": 0.001}


def directives(text: str, scope: str) -> dict[str, float]:
    """The size and time directives of the block that opens with ``scope`` (``server {``,
    ``location ^~ /session/ {``), in bytes or seconds; nested blocks are left out, except that
    a location inherits what its server says."""
    start = text.index(scope)
    depth, body = 0, []
    for char in text[start + len(scope) :]:
        if char == "{":
            depth += 1
        elif char == "}":
            if depth == 0:
                break
            depth -= 1
        elif depth == 0:
            body.append(char)
    found: dict[str, float] = {}
    for line in "".join(body).splitlines():
        match = re.match(r"\s*(client_\w+|send_timeout)\s+(\d+)([kKmMs]*)\s*;", line)
        if match:
            name, number, unit = match.groups()
            found[name] = int(number) * _UNITS[unit.lower()]
    return found


@pytest.mark.parametrize(
    ("recipe", "blocks", "limits"),
    [
        ("nginx-api.conf", ("server {",), CompanionSettings()),
        ("nginx.conf", ("server {", "location ^~ /session/ {"), None),
    ],
)
def test_the_proxy_holds_clients_to_the_services_limits_or_tighter(
    recipe: str, blocks: tuple[str, ...], limits: CompanionSettings | None
) -> None:
    text = (DEPLOY / recipe).read_text(encoding="utf-8")
    held: dict[str, float] = {}
    for block in blocks:  # the location's own directives over its server's
        held.update(directives(text, block))
    service = limits or SessionSettings(api_url="http://api/public/v1", key=None)
    assert 0 < held["client_max_body_size"] <= service.max_body_bytes
    assert 0 < held["client_header_timeout"] < service.header_timeout
    assert 0 < held["client_body_timeout"] < service.body_timeout
    assert 0 < held["send_timeout"] <= 60
