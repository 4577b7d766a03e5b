"""The shipped deploy/nginx-api.conf in front of a real two-worker companion, with a real nginx.

nginx runs as a child process with its own prefix, pid, logs and temp folders under tmp_path,
on a free loopback port; the upstream is pointed at the workers' port. `make test` installs
nginx; a developer without it gets a skip locally, but CI must run this test.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import httpx
import pytest

from benchmarks.nginx import NGINX, nginx_running
from tests.companion.test_server import free_port, running_api

CONFIG = Path(__file__).parents[2] / "deploy" / "nginx-api.conf"

pytestmark = pytest.mark.serving

if not NGINX.exists():
    if os.environ.get("CI"):
        pytest.fail("nginx is not installed: `make test` installs it", pytrace=False)
    pytest.skip("nginx is not installed (`make test` installs it)", allow_module_level=True)


def site_config(api_port: int, port: int) -> str:
    """The shipped file, listening on ``port`` and proxying to ``api_port``."""
    shipped = CONFIG.read_text(encoding="utf-8")
    assert "server 127.0.0.1:8001 " in shipped and "listen 80;" in shipped
    return (
        shipped.replace("server 127.0.0.1:8001 ", f"server 127.0.0.1:{api_port} ")
        .replace("listen 80;", f"listen 127.0.0.1:{port};")
        .replace("listen [::]:80;", "")
    )


def test_nginx_spreads_requests_over_the_workers_with_a_request_id(tmp_path: Path) -> None:
    with running_api(tmp_path, workers=2) as (api, _server):
        work = tmp_path / "nginx"
        work.mkdir()
        port = free_port()
        api_port = int(api.rsplit(":", 1)[1])
        with nginx_running(work, port, site_config(api_port, port)) as base:
            assert httpx.get(f"{base}/health/ready").json() == {"status": "ok"}
            answers = [httpx.get(f"{base}/public/v1/store") for _ in range(3)]
            assert [a.status_code for a in answers] == [200, 200, 200]
            ids = [a.headers["X-Request-Id"] for a in answers]
            assert all(re.fullmatch(r"[0-9a-f]{32}", i) for i in ids)  # nginx's $request_id
            assert len(set(ids)) == 3
    logged = (tmp_path / "server.log").read_text()
    assert all(i in logged for i in ids)  # the workers logged nginx's ids
