"""Each host's recipe for routing the site's /session/* to the session service, checked as far
as offline tools allow: nginx -t on the shipped server block, a JSON schema for vercel.json, the
Cloudflare Pages Function run by node against a real session service, the _redirects rule the
build writes, the CloudFront template's path behaviour, and the systemd unit's and container's
command lines read by the command's own parser.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from benchmarks.nginx import main_config
from companion.seed.demo import DEMO_KEY
from generator.cli import build_parser
from generator.config import SETTINGS
from generator.write.host_files import host_files, nginx_server_block, read_nginx_template
from tests.support.processes import running_companion, running_session

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
NGINX = Path("/usr/sbin/nginx")
NODE = shutil.which("node")
FUNCTION = DEPLOY / "cloudflare" / "functions" / "session" / "[[path]].js"
VERCEL = DEPLOY / "vercel" / "vercel.json"
CLOUDFRONT = DEPLOY / "cloudfront" / "session-distribution.json"
UNIT = DEPLOY / "session" / "storefront-session.service"
CONTAINER = DEPLOY / "session" / "Containerfile"
#: CloudFront's managed policies: CachingDisabled, AllViewerExceptHostHeader.
CACHING_DISABLED = "4135ea2d-6df8-44a3-9df3-4b5a84be39ad"
ALL_VIEWER_EXCEPT_HOST = "b689b0a8-53d0-40ab-baf2-68738e2966ac"
WRITES = {"POST", "PUT", "PATCH", "DELETE"}

#: What a vercel.json may say, for the keys the recipe uses (Vercel's documented shapes).
VERCEL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "$schema": {"type": "string"},
        "outputDirectory": {"type": "string", "minLength": 1},
        "cleanUrls": {"type": "boolean"},
        "trailingSlash": {"type": "boolean"},
        "rewrites": {
            "type": "array",
            "maxItems": 1024,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["source", "destination"],
                "properties": {
                    "source": {"type": "string", "pattern": "^/", "maxLength": 4096},
                    "destination": {"type": "string", "maxLength": 4096},
                },
            },
        },
        "headers": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["source", "headers"],
                "properties": {
                    "source": {"type": "string", "pattern": "^/"},
                    "headers": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "additionalProperties": False,
                            "required": ["key", "value"],
                            "properties": {"key": {"type": "string"}, "value": {"type": "string"}},
                        },
                    },
                },
            },
        },
    },
}


def _nginx_test(block: str, work: Path) -> subprocess.CompletedProcess[str]:
    work.mkdir(parents=True, exist_ok=True)
    config = work / "nginx.conf"
    config.write_text(main_config(work, block), encoding="utf-8")
    return subprocess.run(
        [str(NGINX), "-t", "-p", str(work), "-c", str(config), "-e", str(work / "error.log")],
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.serving
def test_the_nginx_server_block_with_its_session_location_passes_nginx_t(tmp_path: Path) -> None:
    if not NGINX.exists():
        pytest.skip("nginx is not installed (`make test` installs it)")
    template = read_nginx_template()
    assert "location ^~ /session/" in template
    for name, content in host_files("default-src 'self'"):  # as a build leaves its output
        (tmp_path / name).write_bytes(content)
    block = nginx_server_block(template, root=tmp_path, session="127.0.0.1:18002")
    assert "proxy_pass http://127.0.0.1:18002;" in block
    checked = _nginx_test(block, tmp_path / "ok")
    assert checked.returncode == 0, checked.stderr
    broken = _nginx_test(block.replace("proxy_pass http://", "proxy_pass ", 1), tmp_path / "bad")
    assert broken.returncode != 0  # nginx -t really checks


def test_vercel_json_rewrites_session_to_the_service_and_fits_the_schema() -> None:
    config = json.loads(VERCEL.read_text(encoding="utf-8"))
    jsonschema.validate(config, VERCEL_SCHEMA)
    (rule,) = [r for r in config["rewrites"] if r["source"].startswith("/session/")]
    assert rule["source"] == "/session/:path*"
    assert re.fullmatch(r"https://[^/]+/session/:path\*", rule["destination"])
    assert config["cleanUrls"] is True and config["trailingSlash"] is False
    broken = {**config, "rewrites": [{"from": "/session/:path*"}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, VERCEL_SCHEMA)


def test_the_build_writes_netlifys_proxy_rule_only_with_a_session_url() -> None:
    assert "_redirects" not in dict(host_files())
    files = dict(host_files(session_url="https://session.example.vn", site_url="https://a.vn"))
    rules = _redirect_rules(files["_redirects"].decode("utf-8"))
    assert rules == [("/session/*", "https://session.example.vn/session/:splat", "200")]
    prefixed = dict(
        host_files(session_url="https://s.example.vn/", site_url="https://u.github.io/shop")
    )
    assert _redirect_rules(prefixed["_redirects"].decode("utf-8")) == [
        ("/shop/session/*", "https://s.example.vn/session/:splat", "200")
    ]


def _redirect_rules(text: str) -> list[tuple[str, ...]]:
    """Netlify's _redirects format: `from to [status]` per line, # comments; a splat (*) in
    `from` is what :splat names in `to`."""
    rules = []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = tuple(line.split())
        assert len(fields) == 3, line
        source, target, status = fields
        assert source.startswith("/") and re.fullmatch(r"https?://\S+", target), line
        assert re.fullmatch(r"[23]\d\d!?|404!?", status), line
        assert (":splat" in target) == source.endswith("*"), line
        rules.append(fields)
    return rules


def test_session_url_is_a_build_setting_with_its_variable() -> None:
    (setting,) = [s for s in SETTINGS if s.name == "session_url"]
    assert setting.flag == "--session-url" and setting.env == "STOREFRONT_SESSION_URL"


def test_cloudfront_sends_session_paths_to_the_second_origin_uncached() -> None:
    template = json.loads(CLOUDFRONT.read_text(encoding="utf-8"))
    config = template["Resources"]["Distribution"]["Properties"]["DistributionConfig"]
    origins = {o["Id"]: o for o in config["Origins"]}
    (session,) = [b for b in config["CacheBehaviors"] if b["PathPattern"] == "/session/*"]
    assert session["TargetOriginId"] in origins
    assert session["TargetOriginId"] != config["DefaultCacheBehavior"]["TargetOriginId"]
    assert WRITES <= set(session["AllowedMethods"])
    assert session["CachePolicyId"] == CACHING_DISABLED
    assert session["OriginRequestPolicyId"] == ALL_VIEWER_EXCEPT_HOST  # Origin and cookies
    origin = origins[session["TargetOriginId"]]["CustomOriginConfig"]
    assert origin["OriginProtocolPolicy"] == "https-only"
    refs = re.findall(r'"Ref": "(\w+)"', json.dumps(template))
    assert set(refs) <= set(template["Parameters"])


def _command_of(line: str) -> list[str]:
    words = shlex.split(line)
    assert Path(words[0]).name == "storefront", line
    return words[1:]


def test_the_systemd_unit_and_the_container_run_a_valid_session_command() -> None:
    unit = UNIT.read_text(encoding="utf-8")
    (exec_start,) = re.findall(r"^ExecStart=(.+)$", unit, re.MULTILINE)
    cmd = re.search(r"^CMD (\[.+\])$", CONTAINER.read_text(encoding="utf-8"), re.MULTILINE)
    assert cmd is not None
    for words in (_command_of(exec_start), json.loads(cmd.group(1))[1:]):
        args = build_parser("session").parse_args(words)
        assert args.command == "session" and args.workers >= 2
    # The variables the unit's environment file names are the ones the command reads.
    named = set(re.findall(r"^#\s+(STOREFRONT_\w+)=", unit, re.MULTILINE))
    source = (ROOT / "generator" / "commands" / "session.py").read_text(encoding="utf-8")
    assert named and all(f'"{name}"' in source for name in named), named


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_cloudflare_function_passes_node_check() -> None:
    assert NODE is not None
    checked = subprocess.run([NODE, "--check", str(FUNCTION)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr


_NODE_DRIVER = """
const { onRequest } = await import(process.argv[1])
const env = { SESSION_URL: process.argv[2] }
const site = 'https://shop.test'
const call = async (path, init) => {
  const answer = await onRequest({ request: new Request(site + path, init), env })
  const cookie = answer.headers.get('set-cookie')
  return { status: answer.status, body: await answer.text(), cookie }
}
const account = { email: 'lan@example.vn', password: 'mat-khau-dai', full_name: 'Lan' }
console.log(JSON.stringify({
  health: await call('/session/health'),
  store: await call('/session/api/store?x=1'),
  register: await call('/session/register', { method: 'POST', body: JSON.stringify(account),
    headers: { 'Content-Type': 'application/json', Origin: site } }),
  unset: (await onRequest({ request: new Request(site + '/session/health'), env: {} })).status,
}))
"""


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_cloudflare_function_proxies_to_a_real_session_service(tmp_path: Path) -> None:
    """The function's own code under node's fetch, in front of `storefront session`."""
    assert NODE is not None
    with (
        running_companion(tmp_path, products=4) as api_url,
        running_session(
            tmp_path, api_url=api_url, key=DEMO_KEY, extra=["--allowed-origin", "https://shop.test"]
        ) as (origin, _process),
    ):
        ran = subprocess.run(
            [NODE, "--input-type=module", "-e", _NODE_DRIVER, FUNCTION.as_uri(), origin],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "NODE_NO_WARNINGS": "1"},
        )
    assert ran.returncode == 0, ran.stderr
    seen = json.loads(ran.stdout)
    assert seen["health"]["status"] == 200
    assert json.loads(seen["health"]["body"])["status"] == "ok"
    assert seen["store"]["status"] == 200 and "name" in json.loads(seen["store"]["body"])
    assert seen["register"]["status"] == 201, seen["register"]
    assert "service_customer=" in seen["register"]["cookie"]
    assert "Secure" in seen["register"]["cookie"]  # the https site's cookies
    assert seen["unset"] == 503


SYSTEMD_ANALYZE = shutil.which("systemd-analyze")


def _verify_unit(text: str, folder: Path) -> str:
    assert SYSTEMD_ANALYZE is not None
    folder.mkdir(parents=True, exist_ok=True)
    unit = folder / "storefront-session.service"
    unit.write_text(text, encoding="utf-8")
    checked = subprocess.run(
        [SYSTEMD_ANALYZE, "verify", str(unit)], capture_output=True, text=True, timeout=60
    )
    return checked.stdout + checked.stderr


@pytest.mark.skipif(SYSTEMD_ANALYZE is None, reason="systemd-analyze is not installed")
def test_the_systemd_unit_has_only_directives_systemd_knows(tmp_path: Path) -> None:
    """systemd-analyze verify, the binary and the environment file stood in for (neither is
    installed here); it must say nothing, and must speak up for a misspelt directive."""
    text = UNIT.read_text(encoding="utf-8").replace("/usr/local/bin/storefront", "/bin/true")
    text = re.sub(r"^EnvironmentFile=", "EnvironmentFile=-", text, flags=re.MULTILINE)
    assert _verify_unit(text, tmp_path / "ok").strip() == ""
    misspelt = text.replace("NoNewPrivileges=", "NoNewPrivilege=")
    assert "NoNewPrivilege" in _verify_unit(misspelt, tmp_path / "bad")
