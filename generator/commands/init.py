"""`storefront init DIR`: a store's own project, for a merchant who installs storefront rather
than cloning it.

The folder gets ``xstore.json``, an empty theme layer (``site-templates/``, which a build finds
by itself and layers over the default theme), a ``storefront.toml`` with every setting commented,
a ``.gitignore``, the CI workflow of docs/ci.md with the ``requirements.txt`` it installs, and
a short README. With no variables set,
``storefront build`` there builds the demo store.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import textwrap
from pathlib import Path

from generator.commands.new_folder import refuse_non_empty, write_files
from generator.config import SETTINGS, Setting
from generator.errors import ConfigError
from generator.render.theme import THEME_INTERFACE
from generator.render.theme_settings import SETTINGS_FILE
from generator.shipped import DEPLOY_DIR

#: Where the build looks for a theme layer when none is named.
THEME_LAYER = "site-templates"
#: Settings that never go in storefront.toml (a committed file): the key.
SECRET_SETTINGS = frozenset({"api_key"})
#: Example values shown for the settings without a default.
EXAMPLES = {
    "api_url": "https://api.example.vn/public/v1",
    "site_url": "https://shop.example.vn",
    "session_url": "https://session.example.vn",
    "event": "event.json",
    "max_requests": "5000",
    "deadline": "45m",
}
#: A setting's help as storefront.toml says it, where the flag's speaks of the file itself.
PROJECT_HELP = {"out": "Output folder (default: xstore.json staticDir, else output)."}
WORKFLOW = Path(".github") / "workflows" / "storefront.yml"
#: What the CI workflow installs (``pip install -r``): the version of storefront that wrote it.
REQUIREMENTS = """\
# What the CI workflow (.github/workflows/storefront.yml) installs to build this store: the
# storefront it was started with. Change it on purpose, to upgrade. Until storefront is on the
# package index you install from, name where its wheel is instead of the version, e.g.
#   ./wheels/storefront-{version}-py3-none-any.whl   (the wheel, committed here)
#   storefront @ https://example.vn/storefront-{version}-py3-none-any.whl
storefront=={version}
"""
#: The CI recipe's lines that speak of a checkout of storefront itself, and what a store's own
#: project says and runs instead.
WORKFLOW_EDITS = (
    (
        "# Copy this file to .github/workflows/storefront.yml in the repository that holds your "
        "store's\n# site: this project's repository or a fork of it with your theme (see "
        "docs/ci.md).\n",
        "# Written by `storefront init` for this store's own repository: it installs storefront "
        "as\n# requirements.txt says, and the build layers site-templates/ over the default "
        "theme.\n",
    ),
    (
        "the webhook relay (deploy/ci/webhook-relay.py) turns\n#     the companion's "
        "content-change webhook into a `storefront-content-changed` dispatch;\n",
        "the webhook relay of storefront\n#     (deploy/ci/webhook-relay.py in its source) turns "
        "the companion's content-change\n#     webhook into a `storefront-content-changed` "
        "dispatch;\n",
    ),
    ("cache-dependency-path: pyproject.toml", "cache-dependency-path: requirements.txt"),
    (
        "      # From the checked-out source. A site repository of your own installs a pinned "
        'release\n      # instead, e.g. pip install "storefront @ '
        'git+https://github.com/OWNER/storefront@v0.1.0"\n      # (and keeps its theme in '
        "site-templates/: see docs/ci.md).\n",
        "      # The storefront requirements.txt pins: a build changes only when that file does.\n",
    ),
    ("        run: pip install .\n", "        run: pip install -r requirements.txt\n"),
)

GITIGNORE = """\
# What a build writes (output, build state) and secrets kept for local builds; with another
# `out` in storefront.toml, name that folder here instead of /output/
/output/
/.storefront-cache/
.env
# A companion's SQLite database (`storefront api --db`) and the files it keeps beside it
*.db
*.db-shm
*.db-wal
"""

THEME_TOML = """\
# The theme layer of this store: a file here replaces the default theme's file at the same path
# (templates, partials/, assets/, islands/); everything else comes from the default theme.
# `storefront theme new DIR` writes a starter with examples of every setting.

# The theme interface this layer was made for: a build warns when the default theme's has moved
# past it (CHANGELOG.md, "Theme interface", says what to change; then raise this number).
interface = {interface}
"""

README = """\
# {name}

The storefront of a store, built with storefront {version}.

1. Set where the store's API lives (a key never goes in a file: keep it in the environment or
   the CI's secrets):

   ```sh
   export STOREFRONT_API_URL=https://api.example.vn/public/v1
   export STOREFRONT_API_KEY=pk_live_...
   export STOREFRONT_SITE_URL=https://shop.example.vn
   ```

   Without them, `storefront build` builds the demo store. Other settings: `storefront.toml`.
2. Build and check: `storefront build`, then `storefront audit --strict`; `storefront serve`
   shows the site at http://127.0.0.1:8000.
3. Deploy: push this folder to GitHub; `.github/workflows/storefront.yml` rebuilds and publishes
   the site (set the three settings above in the repository's Actions settings). It installs
   the storefront `requirements.txt` names: until that version is on your package index, name
   its wheel there (the file says how). The output folder is a static site any host serves.

Your theme layer is `site-templates/`: a file there replaces the default theme's file at the
same path.
"""


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "init",
        help="start a store's own project folder",
        description="Write DIR/xstore.json, an empty theme layer (DIR/site-templates), "
        "DIR/storefront.toml (every setting, commented), DIR/.gitignore, the CI workflow "
        "(DIR/.github/workflows/storefront.yml) and DIR/README.md. DIR must not exist, be "
        "empty, or be a repository just made (its README and licence are kept, its .gitignore "
        "gets init's lines).",
    )
    parser.add_argument(
        "dir", type=Path, help="the folder to create (new, empty, or a repository just made)"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    folder: Path = args.dir
    for path in init_project(folder, _version()):
        print(f"wrote {path}", file=sys.stdout)
    print(f"then: cd {shlex.quote(str(folder))} && storefront build", file=sys.stdout)
    return 0


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("storefront")
    except PackageNotFoundError:  # a source tree that was never installed
        return "0"


#: What a hosting service writes into a repository it makes (GitHub's README, .gitignore and
#: licence): init takes such a repository, keeps its README and licence, and adds its own
#: lines to its .gitignore.
NEW_REPOSITORY_FILES = frozenset(
    {"readme.md", "readme", "readme.rst", "readme.txt", "license", "license.md", "license.txt"}
    | {"licence", "licence.md", "copying", ".gitignore", ".gitattributes"}
)


def init_project(folder: Path, version: str) -> list[Path]:
    """The project's files written into ``folder``."""
    refuse_non_empty(folder, kept=NEW_REPOSITORY_FILES)
    files = {
        folder / "xstore.json": _descriptor(version),
        folder / THEME_LAYER / SETTINGS_FILE: THEME_TOML.format(interface=THEME_INTERFACE),
        folder / "storefront.toml": settings_example(),
        folder / ".gitignore": _gitignore(folder / ".gitignore"),
        folder / WORKFLOW: _workflow(),
        folder / "requirements.txt": REQUIREMENTS.format(version=version),
    }
    if not any(folder.glob("[Rr][Ee][Aa][Dd][Mm][Ee]*")):  # the repository's own is kept
        files[folder / "README.md"] = README.format(name=folder.resolve().name, version=version)
    return write_files(files, what="project", folder=folder)


def _gitignore(path: Path) -> str:
    """init's ignore lines, after those of a .gitignore the repository came with."""
    try:
        had = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return GITIGNORE
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None
    return f"{had.rstrip()}\n\n{GITIGNORE}" if had.strip() else GITIGNORE


def _descriptor(version: str) -> str:
    data = {
        "engine": "storefront",
        "engineVersion": version,
        "entrypoint": "storefront build",
        "requiredEnv": [],
        "staticDir": "output",
    }
    return json.dumps(data, indent=2) + "\n"


def _workflow() -> str:
    text = (DEPLOY_DIR / "ci" / "github-actions.yml").read_text(encoding="utf-8")
    for old, new in WORKFLOW_EDITS:
        if text.count(old) != 1:
            raise ConfigError(f"deploy/ci/github-actions.yml no longer has one {old.strip()!r}")
        text = text.replace(old, new)
    return text


def settings_example() -> str:
    """storefront.toml as ``init`` writes it: each setting a flag holds, commented, with its
    default; never the key."""
    lines = [
        "# Settings of this store's builds: a flag of `storefront build` by the same name wins,",
        "# then its environment variable, then this file, then xstore.json (staticDir), then the",
        "# default. Remove the leading '#' of those you set. The API key is never kept here:",
        "# set STOREFRONT_API_KEY in the environment (or the CI's secrets).",
        "",
    ]
    for setting in SETTINGS:
        if setting.name not in SECRET_SETTINGS:
            lines += [
                f"# {line}" for line in _wrapped(PROJECT_HELP.get(setting.name, setting.help))
            ]
            lines.append(f"# {_toml_line(setting)}")
            lines.append("")
    return "\n".join(lines)


def _toml_line(setting: Setting) -> str:
    key = setting.flag.removeprefix("--")
    if setting.switch:
        return f"{key} = true"
    value = setting.default or EXAMPLES.get(setting.name, "")
    return f"{key} = {value}" if value.isdigit() else f'{key} = "{value}"'


def _wrapped(text: str, width: int = 96) -> list[str]:
    return textwrap.wrap(text, width)
