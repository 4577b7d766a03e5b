"""The CI recipes (deploy/ci/) are valid workflows, run exactly the commands docs/ci.md shows,
never build twice at once, and cache both folders the build uses.

The files are validated with check-jsonschema against the GitHub workflow and GitLab CI schemas
it ships (no network); a deliberately broken copy of each must fail, so a validator that
accepted anything would be noticed.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.deploy.recipes import (
    COMMANDS_HEADING,
    GITHUB,
    GITLAB,
    GUIDE,
    github_scripts,
    gitlab_jobs,
    gitlab_scripts,
    guide_section,
    load_relay,
    load_yaml,
    sh_blocks,
    shell_lines,
    storefront_commands,
    triggers,
)

CHECK_JSONSCHEMA = Path(sys.executable).parent / "check-jsonschema"
SCHEMAS = {GITHUB: "vendor.github-workflows", GITLAB: "vendor.gitlab-ci"}
GROUP = "storefront-build"


@pytest.fixture(scope="module")
def github() -> dict[str, Any]:
    return load_yaml(GITHUB)


@pytest.fixture(scope="module")
def gitlab() -> dict[str, Any]:
    return load_yaml(GITLAB)


def _check_jsonschema(schema: str, path: Path) -> subprocess.CompletedProcess[str]:
    if not CHECK_JSONSCHEMA.exists():
        message = "check-jsonschema is not installed (the dev extra installs it)"
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return subprocess.run(
        [str(CHECK_JSONSCHEMA), "--builtin-schema", schema, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("path", list(SCHEMAS), ids=lambda p: p.name)
def test_recipe_is_valid_against_its_schema(path: Path) -> None:
    result = _check_jsonschema(SCHEMAS[path], path)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(
    ("path", "good", "broken"),
    [
        (GITHUB, "    runs-on: ubuntu-latest\n", "    runs_on: ubuntu-latest\n"),
        (GITLAB, f"  resource_group: {GROUP}\n", f"  resource_group: [{GROUP}]\n"),
    ],
    ids=["github-actions.yml", "gitlab-ci.yml"],
)
def test_schema_check_refuses_a_broken_copy(
    tmp_path: Path, path: Path, good: str, broken: str
) -> None:
    text = path.read_text(encoding="utf-8")
    assert good in text
    copy = tmp_path / path.name
    copy.write_text(text.replace(good, broken, 1), encoding="utf-8")
    result = _check_jsonschema(SCHEMAS[path], copy)
    assert result.returncode == 1, result.stdout + result.stderr


def _guide_commands() -> list[str]:
    blocks = sh_blocks(guide_section(COMMANDS_HEADING))
    assert len(blocks) == 1, f"{COMMANDS_HEADING!r} should hold one sh block"
    lines = shell_lines(blocks[0])
    assert lines == storefront_commands(blocks), "the block should hold only storefront commands"
    return storefront_commands(blocks)


def test_guide_shows_a_build_and_an_audit() -> None:
    commands = _guide_commands()
    assert [c.split()[:2] for c in commands] == [
        ["storefront", "build"],
        ["storefront", "audit"],
    ]
    assert "--strict" in commands[1].split()


def test_github_runs_exactly_the_guides_commands(github: dict[str, Any]) -> None:
    assert storefront_commands(github_scripts(github)) == _guide_commands()


def test_gitlab_runs_exactly_the_guides_commands(gitlab: dict[str, Any]) -> None:
    assert storefront_commands(gitlab_scripts(gitlab)) == _guide_commands()


def test_github_builds_one_at_a_time_without_cancelling(github: dict[str, Any]) -> None:
    assert github.get("concurrency") == {"group": GROUP, "cancel-in-progress": False}
    for name, job in github["jobs"].items():
        assert "concurrency" not in job, f"job {name} must stay in the workflow's group"


def test_gitlab_jobs_share_the_resource_group(gitlab: dict[str, Any]) -> None:
    jobs = gitlab_jobs(gitlab)
    assert {"build", "pages"} <= set(jobs)
    for name, job in jobs.items():
        assert job.get("resource_group") == GROUP, f"job {name} is outside the resource group"


def test_github_starts_on_schedule_dispatch_and_by_hand(github: dict[str, Any]) -> None:
    on = triggers(github)
    assert set(on) == {"schedule", "repository_dispatch", "workflow_dispatch"}
    assert on["schedule"] and all(entry.get("cron") for entry in on["schedule"])
    relay = load_relay()
    assert on["repository_dispatch"] == {"types": [relay.EVENT_TYPE]}


def test_gitlab_runs_for_schedules_triggers_api_and_web_only(gitlab: dict[str, Any]) -> None:
    rules = gitlab["workflow"]["rules"]
    sources = {re.fullmatch(r'\$CI_PIPELINE_SOURCE == "(\w+)"', rule["if"]) for rule in rules}
    assert None not in sources, rules
    assert {m.group(1) for m in sources if m} == {"schedule", "trigger", "api", "web"}


def _steps(github: dict[str, Any]) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = github["jobs"]["build"]["steps"]
    return steps


def _index(steps: list[dict[str, Any]], predicate: Any, what: str) -> int:
    found = [i for i, step in enumerate(steps) if predicate(step)]
    assert len(found) == 1, f"expected one step that {what}, found {len(found)}"
    return found[0]


def test_github_caches_both_folders_and_saves_a_new_entry_each_run(
    github: dict[str, Any],
) -> None:
    env = github["env"]
    folders = {env["STOREFRONT_CACHE_DIR"], env["STOREFRONT_OUT"]}
    assert folders == {".storefront-cache", "output"}
    steps = _steps(github)

    def uses(action: str) -> Any:
        return lambda step: str(step.get("uses", "")).startswith(action + "@")

    def runs(command: str) -> Any:
        return lambda step: command in storefront_commands([step.get("run", "")])

    restore = _index(steps, uses("actions/cache/restore"), "restores the cache")
    build = _index(steps, runs("storefront build"), "builds")
    audit = _index(steps, runs("storefront audit --out output --strict"), "audits")
    save = _index(steps, uses("actions/cache/save"), "saves the cache")
    upload = _index(steps, uses("actions/upload-pages-artifact"), "uploads the site")
    assert restore < build < audit < save < upload
    restored, saved = steps[restore]["with"], steps[save]["with"]
    assert set(restored["path"].split()) == folders == set(saved["path"].split())
    assert restored["key"] == saved["key"]
    assert "${{ github.run_id }}" in saved["key"], "each run must save a new entry"
    assert saved["key"].startswith(restored["restore-keys"]), "restore must find older entries"
    assert steps[upload]["with"]["path"] == env["STOREFRONT_OUT"]


def test_gitlab_caches_both_folders_per_branch(gitlab: dict[str, Any]) -> None:
    variables = gitlab["variables"]
    folders = {variables["STOREFRONT_CACHE_DIR"], variables["STOREFRONT_OUT"]}
    assert folders == {".storefront-cache", "output"}
    build = gitlab_jobs(gitlab)["build"]
    assert "storefront build" in storefront_commands(build["script"])
    cache = build["cache"]
    assert {path.rstrip("/") for path in cache["paths"]} == folders
    assert "$CI_COMMIT_REF_SLUG" in cache["key"]
    assert cache.get("when", "on_success") == "on_success"
    assert [path.rstrip("/") for path in build["artifacts"]["paths"]] == ["output"]


def test_github_publishes_on_pages_with_only_the_permissions_it_needs(
    github: dict[str, Any],
) -> None:
    assert github["permissions"] == {"contents": "read"}
    deploy = github["jobs"]["deploy"]
    assert deploy["needs"] == "build"
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert [step["uses"].split("@")[0] for step in deploy["steps"]] == ["actions/deploy-pages"]


def test_gitlab_publishes_the_output_as_pages_from_the_default_branch(
    gitlab: dict[str, Any],
) -> None:
    pages = gitlab_jobs(gitlab)["pages"]
    assert pages["needs"] == ["build"]
    assert pages["rules"] == [{"if": "$CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH"}]
    assert "cp -r output public" in pages["script"]
    assert pages["artifacts"]["paths"] == ["public"]


def test_the_key_is_a_secret_and_every_setting_is_explained(github: dict[str, Any]) -> None:
    text = GITHUB.read_text(encoding="utf-8")
    for step in _steps(github):
        key = step.get("env", {}).get("STOREFRONT_API_KEY")
        assert key in (None, "${{ secrets.STOREFRONT_API_KEY }}"), step.get("name")
    assert "STOREFRONT_API_KEY" not in github.get("env", {})
    names = set(re.findall(r"\$\{\{ (?:secrets|vars)\.(\w+) \}\}", text))
    assert names == {"STOREFRONT_API_KEY", "STOREFRONT_API_URL", "STOREFRONT_SITE_URL"}
    guide = GUIDE.read_text(encoding="utf-8")
    for name in names:
        assert f"`{name}`" in guide, f"docs/ci.md does not explain {name}"


def test_gitlab_keeps_the_store_settings_out_of_the_file(gitlab: dict[str, Any]) -> None:
    settings = {"STOREFRONT_API_KEY", "STOREFRONT_API_URL", "STOREFRONT_SITE_URL"}
    assert not settings & set(gitlab["variables"])
    for job in gitlab_jobs(gitlab).values():
        assert not settings & set(job.get("variables", {}))
    guide = GUIDE.read_text(encoding="utf-8")
    for name in settings:
        assert f"`{name}`" in guide, f"docs/ci.md does not explain {name}"


@pytest.mark.parametrize("path", [GITHUB, GITLAB], ids=lambda p: p.name)
def test_recipes_refuse_to_build_without_the_key(path: Path) -> None:
    """Without a key `storefront build` builds the demo store: the recipes check for it first.
    With it, the build itself refuses a missing API url (a variable or storefront.toml)."""
    text = path.read_text(encoding="utf-8")
    assert '[ -z "$STOREFRONT_API_KEY" ]' in text
    assert text.index('[ -z "$STOREFRONT_API_KEY" ]') < text.index("pip install .")


def _build_script(path: Path) -> tuple[str, dict[str, str]]:
    """The recipe's build as the CI runs it (bash -eo pipefail): its script and the plain
    values of its environment."""
    if path == GITHUB:
        steps = _steps(load_yaml(GITHUB))
        step = next(s for s in steps if s.get("id") == "build")
        env = {k: str(v) for k, v in step["env"].items() if "${{" not in str(v)}
        return step["run"], env
    job = gitlab_jobs(load_yaml(GITLAB))["build"]
    return "\n".join(job["script"]), {k: str(v) for k, v in job["variables"].items()}


def _run_build_step(
    path: Path, folder: Path, settings: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """The recipe's build run in ``folder`` as the CI runs it, with ``settings`` added to its
    environment (the storefront of this checkout on PATH)."""
    script, env = _build_script(path)
    return subprocess.run(
        ["bash", "-eo", "pipefail", "-c", script],
        cwd=folder,
        env={
            "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
            "HOME": str(folder),
            **env,
            "RUNNER_TEMP": str(folder),
            "GITHUB_OUTPUT": str(folder / "github-output"),
            **settings,
        },
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize("path", [GITHUB, GITLAB], ids=lambda p: p.name)
def test_a_crawl_stopped_at_its_deadline_saves_its_state_and_publishes_nothing(
    path: Path, tmp_path: Path
) -> None:
    """A first build longer than the job: the crawl stops (here after 30 requests, as it would
    at STOREFRONT_DEADLINE), the step passes so that the state is saved, and nothing is
    audited or published; the next run continues."""
    assert _build_script(path)[1]["STOREFRONT_DEADLINE"] == "40m"
    outputs = tmp_path / "github-output"
    outputs.touch()
    run = _run_build_step(
        path,
        tmp_path,
        {
            "STOREFRONT_MAX_REQUESTS": "30",
            "STOREFRONT_DEMO_PRODUCTS": "20",
            "STOREFRONT_OUT": "output",
            "STOREFRONT_CACHE_DIR": ".storefront-cache",
        },
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert not (tmp_path / "output").exists()  # not built, so not audited
    assert "new answers kept in .storefront-cache" in run.stderr  # what the next run reads
    said = outputs.read_text() if path == GITHUB else (tmp_path / "built.env").read_text()
    assert said.split() == (["built=partly"] if path == GITHUB else ["STOREFRONT_BUILT=partly"])
    if path == GITHUB:
        steps = _steps(load_yaml(GITHUB))
        save = next(s for s in steps if str(s.get("uses", "")).startswith("actions/cache/save@"))
        assert "'partly'" in save["if"]
        audit = next(s for s in steps if "storefront audit" in str(s.get("run", "")))
        assert audit["if"] == "steps.build.outputs.built == 'yes'"
    else:
        pages = gitlab_jobs(load_yaml(GITLAB))["pages"]
        assert '[ "$STOREFRONT_BUILT" = yes ] ||' in pages["script"][0]


@pytest.mark.parametrize("path", [GITHUB, GITLAB], ids=lambda p: p.name)
def test_a_build_that_fails_fails_the_step(path: Path, tmp_path: Path) -> None:
    # A key and no API url: refused in one line.
    run = _run_build_step(path, tmp_path, {"STOREFRONT_API_KEY": "pk_live_x"})
    assert run.returncode == 2, run.stderr[-2000:]
    assert "a key is set" in run.stderr


#: The heading of the guide's section on rebuilding at the moments a build recorded.
DUE_HEADING = "## Rebuilding when a sale starts or ends"


def test_github_checks_often_and_publishes_only_what_was_due(github: dict[str, Any]) -> None:
    crons = [entry["cron"] for entry in triggers(github)["schedule"]]
    often = [c for c in crons if re.fullmatch(r"\*/(\d+) \* \* \* \*", c)]
    assert len(often) == 1 and 5 <= int(often[0][2:].split()[0]) <= 15, crons
    assert len(crons) == 2, "the hourly safety net builds without --if-due"
    steps = _steps(github)
    build = next(s for s in steps if "storefront build" in storefront_commands([s.get("run", "")]))
    assert build["id"] == "build"
    expected = f"${{{{ github.event.schedule == '{often[0]}' && '1' || '' }}}}"
    assert build["env"]["STOREFRONT_IF_DUE"] == expected
    # The one line a build with nothing due prints is what tells the later steps.
    assert "grep -q '^nothing due'" in build["run"] and build.get("shell") == "bash"
    after = steps[steps.index(build) + 1 :]
    assert after and all(
        s.get("if", "").startswith("steps.build.outputs.built == 'yes'") for s in after
    )
    job = github["jobs"]["build"]
    assert job["outputs"] == {"built": "${{ steps.build.outputs.built }}"}
    assert github["jobs"]["deploy"]["if"] == "needs.build.outputs.built == 'yes'"


def test_guide_explains_the_due_check() -> None:
    section = guide_section(DUE_HEADING)
    for needed in ("--if-due", "STOREFRONT_IF_DUE", "nothing due", "--schedule-horizon"):
        assert needed in section, needed
