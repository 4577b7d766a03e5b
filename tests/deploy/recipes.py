"""The CI recipes under deploy/ci/ and their guide, for the tests: paths and small readers."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
CI = ROOT / "deploy" / "ci"
GITHUB = CI / "github-actions.yml"
GITLAB = CI / "gitlab-ci.yml"
RELAY = CI / "webhook-relay.py"
GUIDE = ROOT / "docs" / "ci.md"
#: The guide's section whose sh block lists the commands every run executes.
COMMANDS_HEADING = "## The build and audit commands"


def load_yaml(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict), f"{path.name} is not a YAML mapping"
    return data


def triggers(workflow: dict[Any, Any]) -> dict[str, Any]:
    """A GitHub workflow's `on:` (YAML 1.1 reads the bare key `on` as True)."""
    found = workflow.get("on", workflow.get(True))
    assert isinstance(found, dict), "the workflow has no `on:` mapping"
    return found


def shell_lines(script: str) -> list[str]:
    """The logical lines of a shell script: continuations joined, blanks and comments dropped."""
    joined = re.sub(r"\\\n\s*", " ", script)
    lines = (line.strip() for line in joined.splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def storefront_commands(scripts: list[str]) -> list[str]:
    """Every line of the scripts that runs `storefront`, in order (without what its output is
    piped to, or what runs when it fails)."""
    return [
        " ".join(line.split(" || ", 1)[0].split(" | ", 1)[0].split())
        for script in scripts
        for line in shell_lines(script)
        if line.split()[0] == "storefront"
    ]


def github_scripts(workflow: dict[str, Any]) -> list[str]:
    return [
        step["run"]
        for job in workflow["jobs"].values()
        for step in job.get("steps", [])
        if "run" in step
    ]


def gitlab_jobs(pipeline: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The jobs of a GitLab pipeline: the top-level mappings that have a script."""
    return {
        name: job
        for name, job in pipeline.items()
        if isinstance(job, dict) and "script" in job and not name.startswith(".")
    }


def gitlab_scripts(pipeline: dict[str, Any]) -> list[str]:
    scripts: list[str] = []
    for job in gitlab_jobs(pipeline).values():
        for part in ("before_script", "script", "after_script"):
            value = job.get(part, [])
            scripts.extend([value] if isinstance(value, str) else value)
    return scripts


def guide_section(heading: str) -> str:
    """The text of one `## ` section of docs/ci.md, up to the next `## ` heading."""
    text = GUIDE.read_text(encoding="utf-8")
    assert heading + "\n" in text, f"docs/ci.md has no section {heading!r}"
    section = text.split(heading + "\n", 1)[1]
    return re.split(r"^## ", section, maxsplit=1, flags=re.MULTILINE)[0]


def sh_blocks(markdown: str) -> list[str]:
    return re.findall(r"^```sh\n(.*?)^```$", markdown, flags=re.MULTILINE | re.DOTALL)


def load_relay(name: str = "storefront_webhook_relay") -> ModuleType:
    """deploy/ci/webhook-relay.py as a module (its file name is not an importable name); loaded
    once per ``name``."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, RELAY)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look the module up while the file runs
    spec.loader.exec_module(module)
    return module
