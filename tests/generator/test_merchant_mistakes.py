"""A merchant's mistakes end a command in one line, before it spends anything: a template that
does not parse (before the crawl's first request), an API host that does not resolve (without
retries), a port `storefront watch` cannot listen on (before its first build)."""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

import pytest

from generator.cli import main
from generator.write.target import MARKER_FILE
from tests.support.counting_companion import DEMO_KEY, counting_companion

SITE = "https://shop.example.vn"


def previous_output(out: Path) -> bytes:
    """An output folder a build wrote before; its home page's bytes."""
    out.mkdir()
    (out / MARKER_FILE).write_text("", encoding="utf-8")
    (out / "index.html").write_bytes(b"<!doctype html><title>before</title>")
    return (out / "index.html").read_bytes()


def test_a_template_that_does_not_parse_stops_the_build_before_any_request(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    theme = tmp_path / "theme"
    (theme / "partials").mkdir(parents=True)
    footer = theme / "partials" / "footer.html"
    footer.write_text("<footer>\n{% if theme.contact %}\n<p>x</p>\n</footer>\n", encoding="utf-8")
    out = tmp_path / "out"
    before = previous_output(out)
    with counting_companion(tmp_path, products=2) as api:
        code = main(
            [
                "build",
                "--theme", str(theme),
                "--api-url", api.base_url,
                "--key", DEMO_KEY,
                "--site-url", SITE,
                "--out", str(out),
                "--cache-dir", str(tmp_path / "cache"),
            ]
        )  # fmt: skip
        asked = api.requests
    err = capsys.readouterr().err
    assert code != 0 and asked == 0
    assert err.count("\n") == 1, err
    # file:line: message, the file as the merchant's folder has it.
    assert f"{footer}:" in err and "endif" in err
    assert (out / "index.html").read_bytes() == before


def test_a_broken_template_of_the_default_theme_is_named_under_the_layer_that_gives_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from generator.errors import TemplateError
    from generator.render.template_check import check_templates
    from generator.render.theme import DEFAULT_THEME, Theme

    theme = tmp_path / "theme"
    shutil.copytree(DEFAULT_THEME, theme, ignore=shutil.ignore_patterns("assets", "islands"))
    check_templates(Theme.of(theme), tmp_path / "record")  # the default theme parses
    (theme / "cart.html").write_text("{% block content %}{{ x }", encoding="utf-8")
    with pytest.raises(TemplateError, match=rf"^{theme / 'cart.html'}:1: ") as caught:
        check_templates(Theme.of(theme), tmp_path / "record")
    assert "\n" not in str(caught.value)


def test_an_api_host_that_does_not_resolve_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "build",
            "--api-url", "http://api.shop.invalid/public/v1",
            "--key", "pk_test_x",
            "--site-url", SITE,
            "--out", str(tmp_path / "out"),
            "--cache-dir", str(tmp_path / "cache"),
        ]
    )  # fmt: skip
    lines = capsys.readouterr().err.splitlines()
    assert code != 0
    # The build's first progress line, then the error: no retries announced.
    assert len(lines) <= 2 and not any("retr" in line for line in lines), lines
    assert lines[-1].startswith("storefront build: error: ")
    assert "api.shop.invalid does not resolve" in lines[-1]


def test_watch_on_a_taken_port_is_one_line_before_it_builds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = main(
            [
                "watch",
                "--port", str(port),
                "--poll", "0",
                "--demo-products", "1",
                "--out", str(tmp_path / "out"),
                "--cache-dir", str(tmp_path / "cache"),
            ]
        )  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2
    assert err == f"storefront watch: error: cannot listen on 127.0.0.1:{port} (in use)\n"
    assert not (tmp_path / "out").exists()  # nothing built


def _serve(tmp_path: Path, *flags: str) -> int:
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    (out / "index.html").write_text("<!doctype html><html lang=vi></html>", encoding="utf-8")
    db = tmp_path / "db" / "companion.sqlite3"
    return main(["serve", "--out", str(out), "--db", str(db), *flags])


def test_serve_on_a_taken_port_is_one_line_before_the_demo_store_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = _serve(tmp_path, "--port", str(port))
    said = capsys.readouterr()
    assert code == 2
    assert said.out == ""  # no "Serving ..." line, no server log
    assert said.err == f"storefront serve: error: cannot listen on 127.0.0.1:{port} (in use)\n"
    assert not (tmp_path / "db").exists()  # the demo store was not made


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (("--port", "99999"), "--port must be between 1 and 65535, got 99999"),
        (("--port", "0"), "--port must be between 1 and 65535, got 0"),
        (("--host", "0.0.0.0.0"), "cannot listen on 0.0.0.0.0:8000 ("),
    ],
)
def test_serve_refuses_an_address_it_cannot_listen_on_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: tuple[str, ...], said: str
) -> None:
    assert _serve(tmp_path, *flags) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"storefront serve: error: {said}") and err.count("\n") == 1
    assert "in use" not in err


@pytest.mark.parametrize(
    ("name", "source", "how"),
    [
        ("base.html", '{% extends "base.html" %}{% block before_main %}x{% endblock %}', "extends"),
        ("partials/header.html", '<div>{% include "partials/header.html" %}</div>', "includes"),
    ],
)
def test_a_layer_template_that_extends_itself_stops_before_any_request(
    tmp_path: Path, name: str, source: str, how: str
) -> None:
    """It would recurse until Python stops it, at the render, after the whole crawl."""
    from generator.errors import TemplateError
    from generator.render.template_check import check_templates
    from generator.render.theme import Theme

    theme = tmp_path / "theme"
    (theme / name).parent.mkdir(parents=True)
    (theme / name).write_text(source, encoding="utf-8")
    with pytest.raises(TemplateError) as caught:
        check_templates(Theme.of(theme))
    said = str(caught.value)
    assert said.startswith(f"{theme / name}:1: {how} {name}, which is this file")
    assert "\n" not in said


def test_a_template_naming_one_no_layer_has_stops_before_any_request(tmp_path: Path) -> None:
    """The render would stop at the first page using it, after the whole crawl; an include
    marked ``ignore missing`` may name one."""
    from generator.errors import TemplateError
    from generator.render.template_check import check_templates
    from generator.render.theme import Theme

    theme = tmp_path / "theme"
    theme.mkdir()
    page = theme / "page.html"
    page.write_text(
        '{% extends "base.html" %}{% block content %}\n'
        '{% include "pages/" ~ page.name ~ ".html" ignore missing %}\n'
        '{% include "partials/trust_badges.html" ignore missing %}\n'
        '{% include "partials/trust_badges.html" %}{% endblock %}',
        encoding="utf-8",
    )
    with pytest.raises(TemplateError) as caught:
        check_templates(Theme.of(theme))
    assert str(caught.value) == (
        f"{page}:4: template 'partials/trust_badges.html' is not in the theme (no layer has it)"
    )
