"""Every template of a theme parsed before the crawl: a syntax error stops the build in one line
(``file:line: message``, the file as the layer that gives it) before its first request, as a bad
``theme.toml`` does, instead of after a whole crawl.

    check_templates(theme, cache_dir / PARSED_TEMPLATES)

Parsing a whole theme costs a few tenths of a second, which would delay every build's first
request: the sources that parsed are recorded (their digests, under the generator's own, whose
extensions decide what parses), and only a template new or changed since is parsed again.
A template that names one no layer has, or itself, is refused then too. What only the render
can find (an unknown filter or variable) is still reported by it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path, PurePosixPath

import jinja2

from generator.errors import TemplateError
from generator.render.fragments import FragmentExtension
from generator.render.optional_markup import OptionalMarkup
from generator.render.theme import ASSET_FOLDERS, Theme
from generator.render.whitespace import BlockWhitespace
from generator.source_digest import code_digest

#: The Jinja extensions of the build's Environment: they add tags, so a parse needs them.
EXTENSIONS: tuple[type[jinja2.ext.Extension], ...] = (
    FragmentExtension,
    BlockWhitespace,
    OptionalMarkup,
)
#: The record of the sources that parsed, under --cache-dir.
PARSED_TEMPLATES = "parsed-templates.txt"
#: Theme sub-folders that hold no templates (published as they are).
_NOT_TEMPLATES = frozenset(folder for folder, _ in ASSET_FOLDERS)


def check_templates(theme: Theme, record: Path | None = None) -> None:
    """Parse every template the theme's layers give (each name from the first layer that has
    it); raise a one-line ``TemplateError`` for the first that does not parse. ``record``
    keeps the digests of the sources that did, so that the next check parses only the others."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(list(theme.folders)),
        extensions=list(EXTENSIONS),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=True,
    )
    loader = env.loader
    assert loader is not None
    version = code_digest()[:16]
    known = _recorded(record, version)
    parsed: list[str] = []
    every = set(env.list_templates())  # what a template may name: any file of a layer
    for name in env.list_templates(filter_func=_is_template):
        source, filename, _ = loader.get_source(env, name)
        digest = hashlib.sha1(source.encode("utf-8"), usedforsecurity=False).hexdigest()
        if digest not in known:
            try:
                tree = env.parse(source, name, filename)
            except jinja2.TemplateSyntaxError as exc:
                message = " ".join((exc.message or type(exc).__name__).split())
                raise TemplateError(f"{filename or name}:{exc.lineno}: {message}") from None
            _refuse_itself(tree, name, filename or name)
            _refuse_missing(tree, every, filename or name)
        parsed.append(digest)
    if record is not None and set(parsed) != known:
        try:
            record.parent.mkdir(parents=True, exist_ok=True)
            record.write_text("\n".join([version, *sorted(set(parsed))]) + "\n", encoding="utf-8")
        except OSError:
            pass  # only a speed-up: the next build parses them again


def _refuse_itself(tree: jinja2.nodes.Template, name: str, shown: str) -> None:
    """A template that extends or includes its own name: the name is the layer's own file (a
    layer's ``base.html`` replaces the default's whole), so the render would recurse until
    Python stops it, after the whole crawl."""
    for node in tree.find_all((jinja2.nodes.Extends, jinja2.nodes.Include)):
        assert isinstance(node, jinja2.nodes.Extends | jinja2.nodes.Include)
        target = node.template
        if isinstance(target, jinja2.nodes.Const) and target.value == name:
            how = "extends" if isinstance(node, jinja2.nodes.Extends) else "includes"
            raise TemplateError(
                f"{shown}:{node.lineno}: {how} {name}, which is this file: a layer's {name} "
                "replaces the default's whole; fill the default's blocks from the page "
                f"templates instead, or start from a copy of its {name}"
            )


#: The tags that name another template: the render fails on a name no layer has.
_NAMING = (jinja2.nodes.Extends, jinja2.nodes.Include, jinja2.nodes.Import, jinja2.nodes.FromImport)


def _refuse_missing(tree: jinja2.nodes.Template, names: set[str], shown: str) -> None:
    """A template that names (extends, includes, imports) one no layer of the theme has: the
    render would stop at the first page that uses it, after the whole crawl."""
    for node in tree.find_all(_NAMING):
        assert isinstance(node, _NAMING)
        target = node.template
        missing_ok = isinstance(node, jinja2.nodes.Include) and node.ignore_missing
        if isinstance(target, jinja2.nodes.Const) and not missing_ok:
            if isinstance(target.value, str) and target.value not in names:
                raise TemplateError(
                    f"{shown}:{node.lineno}: template {target.value!r} is not in the theme "
                    "(no layer has it)"
                )


def _is_template(name: str) -> bool:
    parts = PurePosixPath(name).parts
    return (
        name.endswith(".html")
        and parts[0] not in _NOT_TEMPLATES
        and not any(p.startswith(".") for p in parts)
    )


def _recorded(record: Path | None, version: str) -> set[str]:
    """The digests of the sources this version of the generator parsed before."""
    if record is None:
        return set()
    try:
        lines = record.read_text(encoding="utf-8").split()
    except (OSError, UnicodeDecodeError):
        return set()
    return set(lines[1:]) if lines[:1] == [version] else set()
