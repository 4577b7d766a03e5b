from pathlib import Path

import pytest

from generator.errors import ConfigError
from generator.xstore import load_descriptor, parse_descriptor

REPO = Path(__file__).resolve().parents[2]


def test_shipped_descriptor_reads_without_warnings() -> None:
    descriptor = load_descriptor(REPO / "xstore.json")
    assert descriptor.static_dir == "output"
    assert descriptor.engine == "storefront"
    assert descriptor.warnings == ()


def test_unknown_and_renamed_keys_warn_instead_of_failing() -> None:
    descriptor = parse_descriptor({"staticDir": "dist", "outputDir": "x", "engine_version": "1"})
    assert descriptor.static_dir == "dist"
    assert len(descriptor.warnings) == 2
    assert any("'outputDir'" in w for w in descriptor.warnings)


def test_wrongly_typed_optional_key_warns() -> None:
    descriptor = parse_descriptor({"nodeMajor": "twenty", "entrypoint": 3})
    assert descriptor.node_major is None
    assert descriptor.entrypoint is None
    assert len(descriptor.warnings) == 2


def test_required_env_must_be_a_list_of_names() -> None:
    with pytest.raises(ConfigError, match="requiredEnv"):
        parse_descriptor({"requiredEnv": "STOREFRONT_API_KEY"})


def test_broken_json_is_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "xstore.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(ConfigError, match="not readable as JSON"):
        load_descriptor(path)


def test_missing_descriptor_is_empty(tmp_path: Path) -> None:
    assert load_descriptor(tmp_path / "xstore.json").required_env == ()
