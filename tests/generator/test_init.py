"""`storefront init DIR`: a store's own project folder."""

from __future__ import annotations

import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest

from generator.cli import main
from generator.config import SETTINGS
from tests.deploy.recipes import load_yaml, storefront_commands


def test_init_writes_a_project_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shop = tmp_path / "shop"
    assert main(["init", str(shop)]) == 0
    written = sorted(p.relative_to(shop).as_posix() for p in shop.rglob("*") if p.is_file())
    assert written == [
        ".github/workflows/storefront.yml",
        ".gitignore",
        "README.md",
        "requirements.txt",
        "site-templates/theme.toml",
        "storefront.toml",
        "xstore.json",
    ]
    ignored = (shop / ".gitignore").read_text(encoding="utf-8").splitlines()
    for name in ("/output/", "/.storefront-cache/", ".env", "*.db", "*.db-shm", "*.db-wal"):
        assert name in ignored
    # every setting a flag holds is there, commented; the key never is
    toml = (shop / "storefront.toml").read_text(encoding="utf-8")
    assert tomllib.loads(toml) == {}
    uncommented = tomllib.loads("\n".join(line[2:] for line in toml.splitlines() if "= " in line))
    flags = {s.flag.removeprefix("--") for s in SETTINGS}
    assert set(uncommented) == flags - {"key"}
    assert "pk_live" not in toml
    assert "STOREFRONT_API_KEY" in (shop / "README.md").read_text(encoding="utf-8")


def test_init_workflow_installs_the_tool_not_a_checkout(tmp_path: Path) -> None:
    shop = tmp_path / "shop"
    assert main(["init", str(shop)]) == 0
    text = (shop / ".github/workflows/storefront.yml").read_text(encoding="utf-8")
    steps = load_yaml(shop / ".github/workflows/storefront.yml")["jobs"]["build"]["steps"]
    runs = [step.get("run", "") for step in steps]
    assert "pip install -r requirements.txt" in runs
    pins = (shop / "requirements.txt").read_text(encoding="utf-8").splitlines()
    assert [line for line in pins if not line.startswith("#")] == [
        f"storefront=={version('storefront')}"
    ]
    assert "pip install .\n" not in text
    # it speaks of this store's repository, not of a checkout of storefront
    for checkout in ("checked-out source", "this project's repository", "a fork of it"):
        assert checkout not in text
    assert storefront_commands(runs) == [
        "storefront build",
        "storefront audit --out output --strict",
    ]
    python = next(step for step in steps if step.get("uses", "").startswith("actions/setup-py"))
    assert python["with"]["cache-dependency-path"] == "requirements.txt"


def test_init_refuses_a_folder_that_is_not_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "notes.txt").write_text("mine", encoding="utf-8")
    assert main(["init", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not an empty folder" in err[0]
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_init_takes_a_new_repository_and_names_what_is_in_the_way(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shop = tmp_path / "my shop"
    (shop / ".git").mkdir(parents=True)  # `git init` first, as many do
    assert main(["init", str(shop)]) == 0
    assert (shop / "storefront.toml").is_file() and (shop / ".git").is_dir()
    assert f"then: cd '{shop}' && storefront build" in capsys.readouterr().out
    assert main(["init", str(shop)]) == 2
    err = capsys.readouterr().err
    assert (
        "is not an empty folder (it holds .github, requirements.txt, site-templates and 2 more)"
        in err
    )
    (tmp_path / "notes.txt").write_text("mine", encoding="utf-8")
    assert main(["init", str(tmp_path / "notes.txt")]) == 2
    assert "notes.txt is a file; name a new or empty folder" in capsys.readouterr().err


def test_theme_new_fills_the_layer_init_made_and_nothing_a_merchant_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shop = tmp_path / "shop"
    assert main(["init", str(shop)]) == 0
    layer = shop / "site-templates"
    assert main(["theme", "new", str(layer)]) == 0
    assert (layer / "partials" / "footer.html").is_file()
    assert (layer / "assets" / "overrides.css").is_file()
    other = tmp_path / "other"
    assert main(["init", str(other)]) == 0
    edited = other / "site-templates" / "theme.toml"
    edited.write_text(edited.read_text(encoding="utf-8") + "# mine\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["theme", "new", str(other / "site-templates")]) == 2
    assert "is not an empty folder (it holds theme.toml)" in capsys.readouterr().err
    assert edited.read_text(encoding="utf-8").endswith("# mine\n")


def test_init_takes_a_repository_a_hosting_service_just_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """GitHub's new repository holds a README, a licence and a .gitignore: kept as they are,
    the .gitignore with init's lines after its own."""
    shop = tmp_path / "shop"
    (shop / ".git").mkdir(parents=True)
    (shop / "README.md").write_text("# Tiệm Lan\n", encoding="utf-8")
    (shop / "LICENSE").write_text("MIT\n", encoding="utf-8")
    (shop / ".gitignore").write_text("node_modules/", encoding="utf-8")
    assert main(["init", str(shop)]) == 0
    assert (shop / "README.md").read_text(encoding="utf-8") == "# Tiệm Lan\n"
    assert (shop / "LICENSE").read_text(encoding="utf-8") == "MIT\n"
    ignored = (shop / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert ignored[0] == "node_modules/" and "/output/" in ignored and "*.db-wal" in ignored
    assert (shop / "storefront.toml").is_file() and (shop / "requirements.txt").is_file()
    assert "wrote" in capsys.readouterr().out
    assert main(["init", str(shop)]) == 2  # once made, it is a project: never written over
    assert "is not an empty folder" in capsys.readouterr().err
