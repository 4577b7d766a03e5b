"""Ctrl-C while the pages render stops the build (exit status 130, one line), stops its render
workers and leaves the output and its folder as they were: no staging folder left behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from generator.cli import main
from tests.generator.test_resume import build_args, snapshot

#: Whole builds in subprocesses: in `make test`, not the inner loop.
pytestmark = pytest.mark.slow

#: A product page that takes a while to render, so that Ctrl-C lands in the render.
SLOW_PRODUCT = (
    '{% extends "base.html" %}{% block content %}'
    "{% for i in range(400000) %}{% endfor %}{% endblock %}\n"
)


def interrupted(command: list[str], after: str) -> tuple[int, list[str], str]:
    """Run ``command`` (no STOREFRONT_ settings) and send it Ctrl-C once a line of its stderr
    (the plain progress: one line as each phase starts) begins with ``after``: its exit status,
    the lines up to that one, and the rest. A line that never comes fails, not hangs."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("STOREFRONT_")}
    with subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True
    ) as process:
        assert process.stderr is not None
        seen = []
        stuck = threading.Timer(180, process.kill)
        stuck.start()
        for line in process.stderr:
            seen.append(line)
            if line.startswith(after):
                process.send_signal(signal.SIGINT)
                break
        rest = process.stderr.read()
        status = process.wait(timeout=60)
        stuck.cancel()
    return status, seen, rest


def test_ctrl_c_during_the_render_stops_the_build_and_keeps_the_output(tmp_path: Path) -> None:
    # Enough pages for the render workers (``PARALLEL_MIN_PAGES``), which must stop too.
    store = ("--demo-products", "1000")
    assert main(build_args(tmp_path, "site", *store)) == 0
    out = tmp_path / "site" / "out"
    before = snapshot(out)
    theme = tmp_path / "slow-theme"
    theme.mkdir()
    (theme / "product.html").write_text(SLOW_PRODUCT)
    command = [
        sys.executable, "-m", "generator",
        *build_args(tmp_path, "site", *store, "--from-cache", "--full", "--theme", str(theme)),
    ]  # fmt: skip
    status, seen, rest = interrupted(command, "render")
    assert status == 130, "".join(seen) + rest
    assert rest.strip().splitlines()[-1] == "storefront build: interrupted", rest
    assert "Traceback" not in rest, rest
    assert snapshot(out) == before
    assert sorted(p.name for p in out.parent.iterdir()) == sorted(["cache", "out"]), list(
        out.parent.iterdir()
    )


#: Ctrl-C as the build command's modules load: sent when the pipeline's module is looked for.
INTERRUPTED_AS_IT_LOADS = """
import os, signal, sys
# As a terminal starts a command (a shell's background job inherits SIGINT ignored).
signal.signal(signal.SIGINT, signal.default_int_handler)
from generator.cli import main

class Interrupt:
    def find_spec(self, name, path=None, target=None):
        if name == "generator.pipeline":
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, Interrupt())
code = main(sys.argv[1:])
print("loaded" if "generator.pipeline" in sys.modules else "not loaded")
sys.exit(code)
"""


def test_ctrl_c_while_the_command_loads_ends_in_one_line(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("STOREFRONT_")}
    done = subprocess.run(
        [sys.executable, "-c", INTERRUPTED_AS_IT_LOADS, *build_args(tmp_path, "site")],
        capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
    assert done.stdout.strip() == "not loaded"  # the signal came while the modules loaded
    assert done.stderr == "storefront build: interrupted\n"
    assert done.returncode == 130
    assert not (tmp_path / "site" / "out").exists()


@pytest.mark.parametrize("after", ["products", "render", "fetched "])
def test_ctrl_c_on_watch_ends_it_quietly(tmp_path: Path, after: str) -> None:
    """During its first build's crawl or render, or once it waits: the server stops and so
    does the command, without a traceback (its task group used to print the server's
    KeyboardInterrupt)."""
    from benchmarks.processes import free_port

    command = [
        sys.executable, "-m", "generator", "watch",
        "--port", str(free_port()), "--poll", "0", "--demo-products", "300",
        "--out", str(tmp_path / "out"), "--cache-dir", str(tmp_path / "cache"),
    ]  # fmt: skip
    status, seen, rest = interrupted(command, after)
    said = "".join(seen) + rest
    assert any(line.startswith(after) for line in seen), said
    assert status == 0, said
    assert "Traceback" not in said and "ERROR" not in said, said
