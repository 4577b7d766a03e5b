from __future__ import annotations

from pathlib import Path

import pytest

from tests.generator.audit.fixture_site import write_clean_site


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """A clean output folder; each test plants one defect in it."""
    return write_clean_site(tmp_path / "output")
