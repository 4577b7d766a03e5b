"""Vietnam's administrative units after the 2025 reform: 34 provinces, 3,321 wards.

Read from ``companion/data/provinces-wards.json`` (MIT, see the LICENSE beside it) on first use
and kept: the data is immutable, and parsing it per request would cost more than the request.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources


@dataclass(frozen=True, slots=True)
class Ward:
    code: str
    name: str
    province_code: str


@dataclass(frozen=True, slots=True)
class Province:
    code: str
    name: str
    wards: tuple[Ward, ...]


@cache
def provinces() -> tuple[Province, ...]:
    raw = resources.files("companion").joinpath("data/provinces-wards.json").read_text("utf-8")
    return tuple(
        Province(
            p["Code"],
            p["FullName"],
            tuple(Ward(w["Code"], w["FullName"], w["ProvinceCode"]) for w in p["Wards"]),
        )
        for p in json.loads(raw)
    )


def wards(province_code: str | None = None) -> list[Ward]:
    """All wards, or those of one province (an unknown code has none)."""
    return [
        ward
        for province in provinces()
        if province_code is None or province.code == province_code
        for ward in province.wards
    ]
