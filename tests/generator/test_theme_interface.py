"""A theme layer names the theme interface version it was made for (``interface`` in its
theme.toml); a build warns when the default theme's interface has moved past it."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from generator.cli import main
from generator.errors import ConfigError


def _layer(folder: Path, toml: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "theme.toml").write_text(toml, encoding="utf-8")
    return folder


def test_a_layer_made_for_an_older_interface_is_named(tmp_path: Path) -> None:
    from generator.render.theme import interface_warning

    old = _layer(tmp_path / "old", "interface = 1\n")
    message = interface_warning(old, current=2)
    assert message is not None
    assert "interface 1" in message and "2" in message and "CHANGELOG" in message
    assert interface_warning(old, current=1) is None
    # a layer that names none cannot be judged; the default theme alone is always current
    assert interface_warning(_layer(tmp_path / "none", ""), current=2) is None


@pytest.mark.parametrize("value", ['"1"', "0", "-3", "1.5"])
def test_the_interface_is_a_whole_number(tmp_path: Path, value: str) -> None:
    from generator.render.theme_settings import ThemeSettings

    with pytest.raises(ConfigError, match="interface"):
        ThemeSettings.load(_layer(tmp_path, f"interface = {value}\n"))


def test_new_layers_name_the_current_interface(tmp_path: Path) -> None:
    from generator.render.theme import THEME_INTERFACE

    assert main(["theme", "new", str(tmp_path / "theme")]) == 0
    assert main(["init", str(tmp_path / "shop")]) == 0
    for toml in (tmp_path / "theme/theme.toml", tmp_path / "shop/site-templates/theme.toml"):
        assert tomllib.loads(toml.read_text(encoding="utf-8")) == {"interface": THEME_INTERFACE}


def test_build_warns_of_a_layer_the_interface_moved_past(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import generator.render.theme as theme

    layer = _layer(tmp_path / "mine", f"interface = {theme.THEME_INTERFACE}\n")
    monkeypatch.setattr(theme, "THEME_INTERFACE", theme.THEME_INTERFACE + 1)
    out, cache = tmp_path / "out", tmp_path / "cache"
    argv = ["build", "--theme", str(layer), "--demo-products", "24"]
    assert main([*argv, "--out", str(out), "--cache-dir", str(cache)]) == 0
    err = capsys.readouterr().err
    assert f"made for theme interface {theme.THEME_INTERFACE - 1}" in err
    assert (out / "index.html").is_file()
