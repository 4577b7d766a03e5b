"""What a build loads, and when: a build from the crawl cache nothing it does not use (its start
is most of a small store's build); a crawl sends its first requests before it loads the stages
after it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.demo_build import REPO as REPO_ROOT

#: Modules only a build that talks to an API (or serves, or audits) needs; rich, which only
#: draws on a terminal (here stderr and stdout are pipes); ctypes, which gives back the memory a
#: crawl freed. (tomllib is every build's: the theme's words.toml.)
NOT_FROM_THE_CACHE = ("httpx", "companion", "uvicorn", "starlette", "rich", "ctypes")

# The build's own entry point, then what the process holds at its end (an entry of None is a
# module kept out, not one loaded).
_LOADED = """
import json, sys
from generator import cli
code = cli.main(sys.argv[1:])
loaded = [name for name, module in sys.modules.items() if module is not None]
print(json.dumps({"code": code, "modules": sorted(loaded)}))
"""


def _python(*words: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *words],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO_ROOT)},
    )


def test_a_build_from_the_crawl_cache_loads_no_http_client_nor_rich(tmp_path: Path) -> None:
    cache = str(tmp_path / "cache")
    first = _python(
        "-m", "generator", "build", "--demo-products", "12", "--out", str(tmp_path / "a"),
        "--cache-dir", cache, "--workers", "1",
        cwd=tmp_path,
    )  # fmt: skip
    assert first.returncode == 0, first.stderr
    again = _python(
        "-c", _LOADED, "build", "--from-cache", "--full", "--out", str(tmp_path / "b"),
        "--cache-dir", cache, "--workers", "1",
        cwd=tmp_path,
    )  # fmt: skip
    assert again.returncode == 0, again.stderr
    found = json.loads(again.stdout.strip().splitlines()[-1])
    assert found["code"] == 0
    assert (tmp_path / "b" / "index.html").is_file()
    loaded = {name.partition(".")[0] for name in found["modules"]}
    assert loaded.isdisjoint(NOT_FROM_THE_CACHE), sorted(loaded & set(NOT_FROM_THE_CACHE))


#: What the stages after the crawl bring (Jinja, the render, the plan, the write), and what
#: httpx's own command-line client would (click, pygments): none before the first request.
NOT_BEFORE_THE_CRAWL = (
    "jinja2",
    "generator.plan.site_plan",
    "generator.render.pages",
    "generator.write.site",
    "click",
    "pygments",
)

# What the build command holds when its crawl is about to send: its parser, the pipeline and
# the API client (httpx).
_BEFORE_THE_CRAWL = """
import json, sys
from generator import cli
cli.build_parser("build")
import generator.client.api, generator.pipeline
print(json.dumps(sorted(name for name, module in sys.modules.items() if module is not None)))
"""


def test_a_crawl_starts_before_the_stages_after_it_are_loaded(tmp_path: Path) -> None:
    found = _python("-c", _BEFORE_THE_CRAWL, cwd=tmp_path)
    assert found.returncode == 0, found.stderr
    loaded = set(json.loads(found.stdout.strip().splitlines()[-1]))
    assert "httpx" in loaded
    assert loaded.isdisjoint(NOT_BEFORE_THE_CRAWL), sorted(loaded & set(NOT_BEFORE_THE_CRAWL))
