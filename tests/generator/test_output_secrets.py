"""No customer JWT, secret key or database detail in any file of a built site.

The publishable key may be public, but the build does not need to put it in pages either: the
islands call the same-origin session endpoints, which add it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from companion.seed.commerce import DEMO_HASH_SECRET
from companion.seed.demo import DEMO_KEY
from tests.support.demo_build import build_demo_site

FORBIDDEN = {
    "a JWT": re.compile(rb"eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\."),
    "a secret key": re.compile(rb"sk_(?:live|test)_"),
    "a bearer token": re.compile(rb"Bearer\s+[A-Za-z0-9._-]{10,}"),
    "a database url": re.compile(rb"(?:sqlite|postgres(?:ql)?(?:\+\w+)?)://", re.I),
    "a database file": re.compile(rb"\.sqlite3?\b|\.db\b"),
    "the JWT signing secret": re.compile(rb"jwt_secret|hash_secret", re.I),
}


@pytest.fixture(scope="module")
def demo_output(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_demo_site(tmp_path_factory.getbasetemp())


def test_no_file_of_the_demo_output_holds_a_secret_or_database_detail(demo_output: Path) -> None:
    secrets = {
        "the gateway's hash secret": DEMO_HASH_SECRET.encode(),
        "the publishable key": DEMO_KEY.encode(),
    }
    found = []
    files = [p for p in demo_output.rglob("*") if p.is_file()]
    assert len(files) > 100
    for file in files:
        content = file.read_bytes()
        found += [f"{file.name}: {what}" for what, rx in FORBIDDEN.items() if rx.search(content)]
        found += [f"{file.name}: {what}" for what, value in secrets.items() if value in content]
    assert not found, found[:20]
