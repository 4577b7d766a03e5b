"""The S3 recipe in deploy/README.md uploads no file that only the build or a host reads."""

from __future__ import annotations

import re

from generator.write.host_files import SHIPPED_DEPLOY_DIR, host_files
from generator.write.target import MARKER_FILE


def _s3_recipe() -> str:
    readme = (SHIPPED_DEPLOY_DIR / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Amazon S3", 1)[1].split("\n## ", 1)[0]
    return section.split("```sh", 1)[1].split("```", 1)[0]


def test_the_s3_upload_leaves_out_every_host_file_and_the_marker() -> None:
    recipe = _s3_recipe()
    excluded = set(re.findall(r'--exclude "([^"]+)"', recipe))
    written = {
        name for name, _ in host_files("default-src 'self'", session_url="https://s.example")
    }
    assert written | {MARKER_FILE} <= excluded, sorted(written | {MARKER_FILE} - excluded)
