"""Deploy files: host files inside the output, configs beside it, the nginx template filled."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.errors import ConfigError
from generator.write.host_files import (
    TEMPLATE_ROOT,
    deploy_dir_for,
    host_files,
    nginx_server_block,
    read_nginx_template,
    write_deploy_files,
)

REPO = Path(__file__).resolve().parents[3]


def test_host_files_keep_assets_on_github_pages_and_cache_them_elsewhere() -> None:
    files = dict(host_files())
    assert files[".nojekyll"] == b""
    headers = files["_headers"].decode("utf-8")
    assert "/_assets/*\n  Cache-Control: public, max-age=31536000, immutable" in headers


def test_deploy_dir_is_beside_the_output_never_inside() -> None:
    out = Path("site") / "output"
    assert deploy_dir_for(out) == Path("site") / "output.deploy"


def test_deploy_files_are_the_shipped_ones(tmp_path: Path) -> None:
    write_deploy_files(tmp_path / "d")
    for name in ("nginx.conf", "README.md"):
        shipped = (REPO / "deploy" / name).read_text(encoding="utf-8")
        assert (tmp_path / "d" / name).read_text(encoding="utf-8") == shipped


def test_deploy_files_point_nginx_at_the_output(tmp_path: Path) -> None:
    out = tmp_path / "output"
    write_deploy_files(deploy_dir_for(out), site_root=out)
    config = (tmp_path / "output.deploy" / "nginx.conf").read_text(encoding="utf-8")
    assert f'root "{out.resolve()}";' in config
    assert TEMPLATE_ROOT not in config


def test_shipped_config_has_the_layout_rules() -> None:
    config = read_nginx_template()
    assert "try_files $uri $uri.html =404;" in config
    assert "error_page 404 /404.html;" in config
    assert 'Cache-Control "public, max-age=31536000, immutable"' in config


def test_template_fill_sets_listen_and_server_name(tmp_path: Path) -> None:
    config = nginx_server_block(
        read_nginx_template(), root=tmp_path, listen="127.0.0.1:8080", server_name="shop.vn"
    )
    assert "listen 127.0.0.1:8080;" in config
    assert "listen 80;" not in config and "[::]:80" not in config
    assert "server_name shop.vn;" in config


@pytest.mark.parametrize("root", ["/srv/$site", '/srv/a"b', "/srv/a;b", "/srv/a\nb"])
def test_values_nginx_would_misread_are_refused(root: str) -> None:
    with pytest.raises(ConfigError, match="special character"):
        nginx_server_block(read_nginx_template(), root=Path(root))


def test_edited_template_without_the_root_line_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="root /var/www/storefront"):
        nginx_server_block("server { root /srv/x; }", root=tmp_path)
