import argparse
from pathlib import Path

import pytest

from generator.config import SETTINGS, WATCH_SETTINGS, add_setting_flags, resolve, resolve_watch
from generator.errors import ConfigError
from generator.xstore import Descriptor, load_descriptor

REPO = Path(__file__).resolve().parents[2]


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_setting_flags(parser)
    return parser.parse_args(list(argv))


def test_flag_beats_environment_beats_descriptor() -> None:
    env = {"STOREFRONT_OUT": "from-env", "STOREFRONT_SITE_URL": "https://env.example.vn"}
    descriptor = Descriptor(static_dir="from-descriptor")
    config = resolve(_args("--out", "from-flag"), environ=env, descriptor=descriptor)
    assert config.out == Path("from-flag")
    assert config.site_url == "https://env.example.vn"
    assert resolve(_args(), environ=env, descriptor=descriptor).out == Path("from-env")
    assert resolve(_args(), environ={}, descriptor=descriptor).out == Path("from-descriptor")


def test_no_api_url_means_embedded_companion() -> None:
    config = resolve(_args(), environ={}, descriptor=Descriptor())
    assert config.embedded
    assert config.api_url is None


@pytest.mark.parametrize(
    ("argv", "environ"),
    [(("--key", "pk_live_x"), {}), ((), {"STOREFRONT_API_KEY": "pk_live_x"})],
)
def test_a_key_without_an_api_url_is_refused_not_built_into_the_demo(
    argv: tuple[str, ...], environ: dict[str, str]
) -> None:
    """A mistyped STOREFRONT_API_URL would otherwise build the demo store for the real site."""
    with pytest.raises(ConfigError, match="a key is set .* but no API url"):
        resolve(_args(*argv), environ=environ, descriptor=Descriptor(), project={})
    with_url = {**environ, "STOREFRONT_API_URL": "https://api.example.vn/public/v1"}
    with_url["STOREFRONT_SITE_URL"] = "https://shop.example.vn"
    assert not resolve(_args(*argv), environ=with_url, descriptor=Descriptor(), project={}).embedded


def test_missing_required_env_names_every_variable() -> None:
    descriptor = Descriptor(required_env=("STOREFRONT_API_URL", "STOREFRONT_API_KEY", "HOME_X"))
    with pytest.raises(ConfigError) as err:
        resolve(_args(), environ={"HOME_X": "1"}, descriptor=descriptor)
    message = str(err.value)
    assert "STOREFRONT_API_URL, STOREFRONT_API_KEY" in message
    assert "HOME_X" not in message


@pytest.mark.parametrize(
    ("flag", "value", "needle"),
    [
        ("--site-url", "shop.example.vn", "--site-url"),
        ("--site-url", "https://x.vn/?a=1", "query"),
        ("--site-url", "https://shop example.vn", "'shop example.vn' is not a host name"),
        ("--site-url", "https://shop_ex!ample.vn", "is not a host name"),
        ("--site-url", "https://shop.example.vn:99999", "host and port are not usable"),
        ("--site-url", "https://cửahàng.vn", "write its host as links carry it, xn--"),
        ("--api-url", "ftp://api.example.vn", "--api-url"),
        (
            "--api-url",
            "https://api.example.vn",
            r"did you mean https://api\.example\.vn/public/v1\?",
        ),
        ("--api-url", "https://api.example.vn/v1", "ending in /public/v1"),
        (
            "--api-url",
            "https://api.example.vn/public/v2/",
            r"did you mean https://api\.example\.vn/public/v1\?",
        ),
        (
            "--api-url",
            "https://shop.example.vn/api/public/v1/products",
            r"did you mean https://shop\.example\.vn/api/public/v1\?",
        ),
        ("--concurrency", "0", "at least 1"),
        ("--concurrency", "many", "whole number"),
        ("--templates", "no-such-theme", "no theme folder"),
        ("--related-products", "-1", "0 or more"),
        ("--related-products", "some", "whole number"),
        ("--schedule-horizon", "0", "--schedule-horizon must be a duration"),
        ("--schedule-horizon", "soon", "--schedule-horizon must be a duration"),
        ("--schedule-limit", "-1", "0 or more"),
    ],
)
def test_bad_values_are_one_line_errors(flag: str, value: str, needle: str) -> None:
    with pytest.raises(ConfigError, match=needle):
        resolve(_args(flag, value), environ={}, descriptor=Descriptor())


def test_four_related_products_by_default_as_the_island_showed() -> None:
    assert resolve(_args(), environ={}, descriptor=Descriptor()).related_products == 4
    env = {"STOREFRONT_RELATED_PRODUCTS": "0"}
    assert resolve(_args(), environ=env, descriptor=Descriptor()).related_products == 0
    flag = resolve(_args("--related-products", "2"), environ=env, descriptor=Descriptor())
    assert flag.related_products == 2


def _watch_args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_setting_flags(parser, WATCH_SETTINGS)
    return parser.parse_args(list(argv))


def test_webhook_secret_comes_from_the_flag_then_the_environment() -> None:
    env = {"STOREFRONT_WEBHOOK_SECRET": "whsec_env"}
    assert resolve_watch(
        _watch_args("--webhook-secret", "whsec_flag"), environ=env
    ).webhook_secret == ("whsec_flag")
    assert resolve_watch(_watch_args(), environ=env).webhook_secret == "whsec_env"
    assert resolve_watch(_watch_args(), environ={}).webhook_secret is None
    with pytest.raises(ConfigError, match="--webhook-secret"):
        resolve_watch(_watch_args("--webhook-secret", " "), environ={})


def test_every_setting_is_documented_in_the_readme() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for setting in SETTINGS + WATCH_SETTINGS:
        assert setting.flag in readme, setting.flag
        if setting.env:
            assert setting.env in readme, setting.env


def test_theme_flag_and_variable_with_their_older_names(tmp_path: Path) -> None:
    new, old = tmp_path / "new", tmp_path / "old"
    new.mkdir()
    old.mkdir()
    descriptor = Descriptor()
    assert resolve(_args("--theme", str(new)), environ={}, descriptor=descriptor).templates == new
    assert (
        resolve(_args("--templates", str(old)), environ={}, descriptor=descriptor).templates == old
    )
    both = {"STOREFRONT_THEME": str(new), "STOREFRONT_TEMPLATES": str(old)}
    assert resolve(_args(), environ=both, descriptor=descriptor).templates == new
    older = {"STOREFRONT_TEMPLATES": str(old)}
    assert resolve(_args(), environ=older, descriptor=descriptor).templates == old
    (new / "theme.toml").write_text("radius = 3\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"^theme\.toml: radius must be"):
        resolve(_args("--theme", str(new)), environ={}, descriptor=descriptor)


def test_missing_required_env_names_the_descriptor_read(tmp_path: Path) -> None:
    path = tmp_path / "deploy" / "store.json"
    path.parent.mkdir()
    path.write_text('{"requiredEnv": ["HOME_X"]}', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"store\.json requiredEnv names .*HOME_X"):
        resolve(_args(), environ={}, descriptor=load_descriptor(path))


def test_help_names_each_value_after_its_flag_and_shows_its_default() -> None:
    parser = argparse.ArgumentParser()
    add_setting_flags(parser)
    text = " ".join(parser.format_help().split())
    assert "--theme THEME, --templates THEME" in text
    assert "--key KEY " in text
    for setting in SETTINGS:
        if setting.default is not None and "default" not in setting.help:
            assert f"(default {setting.default}) [env {setting.env}]" in text, setting.flag
    assert "(default 8) [env STOREFRONT_CONCURRENCY]" in text


def test_schedule_settings_read_durations_and_seconds() -> None:
    config = resolve(_args(), environ={}, descriptor=Descriptor())
    assert (config.schedule_horizon, config.schedule_limit) == (31 * 86400, 20)
    env = {"STOREFRONT_SCHEDULE_HORIZON": "12h", "STOREFRONT_SCHEDULE_LIMIT": "3"}
    config = resolve(_args(), environ=env, descriptor=Descriptor())
    assert (config.schedule_horizon, config.schedule_limit) == (12 * 3600, 3)
    assert resolve_watch(_watch_args(), environ={}).schedule_delay == 30
    delayed = {"STOREFRONT_SCHEDULE_DELAY": "5"}
    assert resolve_watch(_watch_args(), environ=delayed).schedule_delay == 5
    with pytest.raises(ConfigError, match="--schedule-delay"):
        resolve_watch(_watch_args("--schedule-delay", "-1"), environ={})
