"""The Lighthouse gate's reading of a report (scripts/lighthouse.py), without running Lighthouse:
its scores, the audits that cost points, and the CPU slowdown calibrated for a slow host."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("lighthouse", REPO / "scripts" / "lighthouse.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["lighthouse"] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


lighthouse = _script()


@pytest.mark.parametrize(
    ("index", "slowdown"),
    [
        (2400, 4.0),  # a fast host keeps the default: never judged more leniently
        (1533, 4.0),
        (1300, 3.0),
        (1050, 2.5),
        (800, 2.0),
        (475, 1.5),
        (100, 1.0),
    ],
)
def test_the_slowdown_follows_lighthouses_calibration(index: float, slowdown: float) -> None:
    assert lighthouse.calibrated_slowdown(index) == pytest.approx(slowdown, abs=0.01)


def test_the_slowdown_never_rises_as_the_host_slows() -> None:
    slowdowns = [lighthouse.calibrated_slowdown(index) for index in range(0, 2600, 25)]
    assert slowdowns == sorted(slowdowns)


def _report(performance: float, index: float, slowdown: float) -> dict[str, Any]:
    refs = [{"id": "total-blocking-time", "weight": 30}, {"id": "speed-index", "weight": 10}]
    return {
        "categories": {
            "performance": {"score": performance, "auditRefs": refs},
            "accessibility": {"score": 1.0, "auditRefs": []},
            "best-practices": {"score": 1.0, "auditRefs": []},
            "seo": {"score": 1.0, "auditRefs": []},
        },
        "audits": {
            "total-blocking-time": {
                "score": 0.36,
                "title": "Total Blocking Time",
                "displayValue": "820 ms",
            },
            "speed-index": {"score": 1, "title": "Speed Index"},
        },
        "environment": {"benchmarkIndex": index},
        "configSettings": {"throttling": {"cpuSlowdownMultiplier": slowdown}},
    }


def test_a_run_keeps_its_scores_failing_audits_and_host() -> None:
    run = lighthouse.summarize("product", "/san-pham/x", _report(0.81, 702.5, 4))
    assert run.scores == {
        "performance": 81,
        "accessibility": 100,
        "best-practices": 100,
        "seo": 100,
    }
    assert run.below_target() == ["performance"]
    assert run.failing["performance"] == [
        "total-blocking-time (score 0.36, weight 30) Total Blocking Time - 820 ms"
    ]
    assert (run.benchmark_index, run.cpu_slowdown) == (702.5, 4.0)


def test_the_reruns_after_a_miss_are_calibrated_for_the_run_before(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    asked: list[float] = []
    # the host is slow (index 702.5) in the first run, then slower still (500) in the second
    answers = iter([_report(0.96, 500, 1.85), _report(0.97, 900, 1.54)])

    def run(url: str, report: Path, cpu_slowdown: float = 4.0) -> dict[str, Any]:
        asked.append(cpu_slowdown)
        return next(answers)

    monkeypatch.setattr(lighthouse, "run_lighthouse", run)
    first = lighthouse.summarize("home", "/", _report(0.81, 702.5, 4))
    console = lighthouse.Console(record=True, width=200)
    median = lighthouse._median_run(first, "home", "http://h", "/", tmp_path / "home.json", console)
    assert asked == [1.85, 1.54]
    assert median.scores["performance"] == 96
    assert "[81, 96, 97]" in console.export_text()
