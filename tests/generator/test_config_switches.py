"""--full, --from-cache and --workers: flags, environment and defaults."""

from __future__ import annotations

import argparse

import pytest

from generator.config import BuildConfig, add_setting_flags, resolve
from generator.errors import ConfigError
from generator.xstore import Descriptor


def _resolve(argv: list[str], environ: dict[str, str] | None = None) -> BuildConfig:
    parser = argparse.ArgumentParser()
    add_setting_flags(parser)
    return resolve(parser.parse_args(argv), environ=environ or {}, descriptor=Descriptor())


def test_switches_are_off_by_default() -> None:
    config = _resolve([])
    assert (config.full, config.from_cache) == (False, False)
    assert config.workers >= 1


def test_switch_flags_take_no_value() -> None:
    config = _resolve(["--full", "--from-cache", "--workers", "3"])
    assert (config.full, config.from_cache, config.workers) == (True, True, 3)


def test_switches_from_the_environment() -> None:
    config = _resolve([], {"STOREFRONT_FULL": "1", "STOREFRONT_FROM_CACHE": "no"})
    assert (config.full, config.from_cache) == (True, False)


def test_workers_must_be_a_positive_number() -> None:
    with pytest.raises(ConfigError, match="--workers"):
        _resolve(["--workers", "0"])
