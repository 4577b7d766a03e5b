"""The processes of the sale benchmark, started as a merchant starts them.

`storefront build` of the demo store into a folder; `storefront api --seed demo` (the companion,
no rate flag: it enforces the spec's 600 requests a minute and 20,000 an hour per key);
`storefront session` on the demo store's key, trusting 127.0.0.1's X-Forwarded-* headers; and
nginx with the shipped server block in front of the built site, its /session/ proxied to the
session service (only for the recording in Chromium: the replay speaks to the session service as
that proxy does). Each writes its output to a log in the folder.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path

from benchmarks import processes
from benchmarks.nginx import running_nginx
from benchmarks.processes import STOREFRONT, free_port

REPO = Path(__file__).resolve().parents[1]
#: The demo store's products: the build and every companion seed the same store, so ids match.
PRODUCTS = 300
SITE_URL = "http://127.0.0.1:8000"


@dataclass(frozen=True, slots=True)
class Stack:
    api_url: str  # the companion's /public/v1
    api_log: Path  # its request log (one JSON line per request)
    database: Path
    session: str  # the session service's origin


def build_site(folder: Path) -> Path:
    """The demo store built from the embedded companion, as `make build` does; its output."""
    out = folder / "out"
    env = {k: v for k, v in os.environ.items() if not k.startswith("STOREFRONT_")}
    env["PYTHONPATH"] = str(REPO)
    command = [*STOREFRONT, "build", "--out", str(out), "--cache-dir", str(folder / "cache")]
    command += ["--site-url", SITE_URL]
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"bench: the demo build failed: {done.stderr.strip().splitlines()[-3:]}")
    return out


@contextmanager
def running(args: Sequence[str], *, ready: str, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """`storefront <args>` from this tree, its log in the stack's folder."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    with processes.running(args, ready=ready, log=log, cwd=log.parent, env=env, seconds=120) as p:
        yield p


@contextmanager
def stack(folder: Path, *, key: str, session_workers: int = 1) -> Iterator[Stack]:
    """A fresh demo store in ``folder``: the companion and the session service in front of it."""
    folder.mkdir(parents=True, exist_ok=True)
    database = folder / "shop.db"
    port = free_port()
    api = ["api", "--db", str(database), "--seed", "demo", "--products", str(PRODUCTS)]
    api_log = folder / "api.log"
    with running([*api, "--port", str(port)], ready=f"http://127.0.0.1:{port}/health/ready",
                 log=api_log):  # fmt: skip
        api_url = f"http://127.0.0.1:{port}/public/v1"
        session_port = free_port()
        session = ["session", "--api-url", api_url, "--key", key, "--port", str(session_port)]
        session += ["--trusted-proxy", "127.0.0.1", "--workers", str(session_workers)]
        origin = f"http://127.0.0.1:{session_port}"
        with running(session, ready=origin + "/session/health", log=folder / "session.log"):
            yield Stack(api_url, api_log, database, origin)


def nginx(root: Path, work: Path, *, session: str) -> AbstractContextManager[str]:
    """nginx serving ``root`` with the shipped server block, /session/ to ``session``
    (an origin); yields the site's origin."""
    return running_nginx(root, work, session=session.removeprefix("http://"))


def api_lines(log: Path) -> list[dict[str, object]]:
    """The companion's request lines (its other output left out)."""
    lines = []
    for text in log.read_text(encoding="utf-8", errors="replace").splitlines():
        if text.startswith('{"time"'):
            try:
                lines.append(json.loads(text))
            except ValueError:
                continue
    return lines
