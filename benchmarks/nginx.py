"""nginx serving a built site with the shipped server block, as a child process.

Its own prefix, pid, logs and temp folders under a work folder, on a free loopback port; stopped
when the block ends. Shared by the sale benchmark and the serving tests.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from benchmarks.processes import StartFailed, free_port

NGINX = Path("/usr/sbin/nginx")


def main_config(work: Path, server_block: str) -> str:
    """nginx.conf around ``server_block``: everything nginx writes goes under ``work``."""
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


@contextmanager
def running_nginx(
    root: Path, work: Path, base_path: str = "", *, session: str | None = None
) -> Iterator[str]:
    """nginx serving ``root`` with the shipped server block (under ``base_path`` when given),
    its /session/ proxied to ``session`` (host:port) when given; yields its origin."""
    from generator.write.host_files import nginx_server_block, read_nginx_template

    work.mkdir(parents=True, exist_ok=True)
    port = free_port()
    block = nginx_server_block(
        read_nginx_template(),
        root=root,
        listen=f"127.0.0.1:{port}",
        session=session,
        base_path=base_path,
    )
    with nginx_running(work, port, block) as origin:
        yield origin


@contextmanager
def nginx_running(work: Path, port: int, server_block: str) -> Iterator[str]:
    """nginx with ``server_block`` (listening on ``port``) in ``main_config``, its files under
    ``work``, until the block ends; yields its origin."""
    config = work / "nginx.conf"
    config.write_text(main_config(work, server_block), encoding="utf-8")
    error_log = work / "error.log"
    process = subprocess.Popen(
        [str(NGINX), "-p", str(work), "-c", str(config), "-e", str(error_log),
         "-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        _wait_for_port(port, process, error_log)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_for_port(port: int, process: subprocess.Popen[bytes], error_log: Path) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if process.poll() is not None:
            log = error_log.read_text(errors="replace") if error_log.exists() else ""
            raise StartFailed(f"nginx exited with {process.returncode}: {log[-500:]}")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise StartFailed("nginx did not start listening within 10 s")
