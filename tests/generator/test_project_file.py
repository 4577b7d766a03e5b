"""storefront.toml: the settings a store's project keeps, below the flags and the environment,
above xstore.json and the defaults; never the key."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from generator.cli import main
from generator.config import add_setting_flags, output_folder, project_settings, resolve
from generator.errors import ConfigError
from generator.xstore import Descriptor


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_setting_flags(parser)
    return parser.parse_args(list(argv))


def _project(tmp_path: Path, text: str) -> dict[str, str]:
    path = tmp_path / "storefront.toml"
    path.write_text(text, encoding="utf-8")
    return project_settings(path)


def test_flag_beats_environment_beats_the_project_file_beats_the_descriptor(
    tmp_path: Path,
) -> None:
    project = _project(tmp_path, 'out = "from-file"\nconcurrency = 3\nfull = true\n')
    env = {"STOREFRONT_OUT": "from-env"}
    descriptor = Descriptor(static_dir="from-descriptor")

    def out(*argv: str, environ: dict[str, str] = env) -> Path:
        return resolve(_args(*argv), environ=environ, descriptor=descriptor, project=project).out

    assert out("--out", "from-flag") == Path("from-flag")
    assert out() == Path("from-env")
    assert out(environ={}) == Path("from-file")
    config = resolve(_args(), environ={}, descriptor=descriptor, project={})
    assert config.out == Path("from-descriptor")
    assert resolve(_args(), environ={}, descriptor=Descriptor(), project={}).out == Path("output")
    config = resolve(_args(), environ={}, descriptor=descriptor, project=project)
    assert config.concurrency == 3 and config.full
    env_wins = {"STOREFRONT_CONCURRENCY": "5"}
    assert (
        resolve(_args(), environ=env_wins, descriptor=descriptor, project=project).concurrency == 5
    )


@pytest.mark.parametrize("key", ["key", "api-key", "api_key", "webhook-secret"])
def test_a_key_in_the_file_is_refused(tmp_path: Path, key: str) -> None:
    with pytest.raises(ConfigError, match="STOREFRONT_") as err:
        _project(tmp_path, f'{key} = "pk_live_secret"\n')
    assert "pk_live_secret" not in str(err.value)


def test_unknown_settings_and_wrong_values_are_one_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown setting 'colour'"):
        _project(tmp_path, 'colour = "red"\n')
    with pytest.raises(ConfigError, match="storefront.toml"):
        _project(tmp_path, "out = [1, 2]\n")
    with pytest.raises(ConfigError, match="not TOML"):
        _project(tmp_path, "out = \n")
    with pytest.raises(ConfigError, match="unknown setting 'concurency' \\(did you mean 'conc"):
        _project(tmp_path, "concurency = 4\n")


def test_a_bad_value_names_where_it_was_set(tmp_path: Path) -> None:
    """The file's key, the variable or the flag: whichever the merchant wrote it in."""
    project = _project(tmp_path, 'concurrency = "lots"\n')

    def error(*argv: str, environ: dict[str, str] | None = None) -> str:
        with pytest.raises(ConfigError) as raised:
            resolve(_args(*argv), environ=environ or {}, descriptor=Descriptor(), project=project)
        return str(raised.value)

    assert error().startswith("storefront.toml: concurrency must be a whole number, got 'lots'")
    env = {"STOREFRONT_CONCURRENCY": "many"}
    assert error(environ=env).startswith("STOREFRONT_CONCURRENCY must be a whole number")
    assert error("--concurrency", "0").startswith("--concurrency must be at least 1")


def test_serve_and_audit_find_the_output_folder_the_same_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "storefront.toml").write_text('out = "public_html"\n', encoding="utf-8")
    assert output_folder(None, {}) == Path("public_html")
    assert output_folder(None, {"STOREFRONT_OUT": "env"}) == Path("env")


def test_build_reads_the_project_file_of_its_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "storefront.toml").write_text('key = "pk_live_x"\n', encoding="utf-8")
    assert main(["build"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "STOREFRONT_API_KEY" in err[0]


def test_help_says_the_order() -> None:
    from generator.commands import build

    sub = argparse.ArgumentParser().add_subparsers()
    build.add_parser(sub)
    text = sub.choices["build"].format_help()
    assert "storefront.toml" in " ".join(text.split())
