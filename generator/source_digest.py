"""The generator's own source, digested: ``code_digest()``.

What a build keeps for the next one (page records, the last crawl's catalog) holds only for the
code that made it: a new version may crawl or render anything differently.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

_GENERATOR_DIR = Path(__file__).resolve().parent


@functools.cache
def code_digest() -> str:
    """SHA-1 of every module of the generator, read once per process: the code running does
    not change while it runs."""
    digest = hashlib.sha1(usedforsecurity=False)
    for source in sorted(_GENERATOR_DIR.rglob("*.py")):
        digest.update(source.relative_to(_GENERATOR_DIR).as_posix().encode())
        digest.update(source.read_bytes())
    return digest.hexdigest()
