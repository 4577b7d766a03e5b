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
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
#: `storefront` run by this interpreter, from this tree.
STOREFRONT = (sys.executable, "-m", "generator")
#: The demo store's products: the build and every companion seed the same store, so ids match.
PRODUCTS = 300
NGINX = Path("/usr/sbin/nginx")
SITE_URL = "http://127.0.0.1:8000"


@dataclass(frozen=True, slots=True)
class Stack:
    api_url: str  # the companion's /public/v1
    api_log: Path  # its request log (one JSON line per request)
    database: Path
    session: str  # the session service's origin


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


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
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    with log.open("wb") as out:
        process = subprocess.Popen(
            [*STOREFRONT, *args], cwd=log.parent, stdout=out, stderr=subprocess.STDOUT, env=env
        )
    try:
        _wait_ready(ready, process, log)
        yield process
    finally:
        stop(process)


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=45)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_ready(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            tail = log.read_text(errors="replace").strip().splitlines()[-3:]
            raise SystemExit(f"bench: {log.name} stopped while starting: {tail}")
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise SystemExit(f"bench: {url} did not answer within 120 s")


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


@contextmanager
def nginx(root: Path, work: Path, *, session: str) -> Iterator[str]:
    """nginx serving ``root`` with the shipped server block, /session/ to ``session``
    (an origin); yields the site's origin."""
    from generator.write.host_files import nginx_server_block, read_nginx_template

    work.mkdir(parents=True, exist_ok=True)
    port = free_port()
    block = nginx_server_block(
        read_nginx_template(),
        root=root,
        listen=f"127.0.0.1:{port}",
        session=session.removeprefix("http://"),
        base_path="",
    )
    config = work / "nginx.conf"
    config.write_text(_nginx_config(work, block), encoding="utf-8")
    process = subprocess.Popen(
        [str(NGINX), "-p", str(work), "-c", str(config), "-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    log = (work / "error.log").read_text(errors="replace")[-500:]
                    raise SystemExit(f"bench: nginx did not start: {log}") from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=10)


def _nginx_config(work: Path, server_block: str) -> str:
    temp = {name: work / name for name in ("body", "proxy", "fastcgi", "uwsgi", "scgi")}
    user = "user root;\n" if os.geteuid() == 0 else ""  # workers must read the folder (0700)
    return (
        f"{user}worker_processes 1;\npid {work / 'nginx.pid'};\n"
        f"error_log {work / 'error.log'} warn;\n"
        "events { worker_connections 256; }\n"
        "http {\n"
        "    include /etc/nginx/mime.types;\n"
        "    default_type application/octet-stream;\n"
        "    access_log off;\n"
        f"    client_body_temp_path {temp['body']};\n"
        f"    proxy_temp_path {temp['proxy']};\n"
        f"    fastcgi_temp_path {temp['fastcgi']};\n"
        f"    uwsgi_temp_path {temp['uwsgi']};\n"
        f"    scgi_temp_path {temp['scgi']};\n"
        f"{server_block}\n"
        "}\n"
    )


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
