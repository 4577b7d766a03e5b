"""Reading single values out of decoded JSON: the checked, forgiving field readers.

Pure functions shared by ``normalize``: money (number or string) -> int VND, timestamps -> aware
UTC, url -> path or None, and typed reads of one field of a record (required or optional, an id
also from a string of digits). Every refusal is a ``WireValueError`` that names the record and
field, in one line, with a short rendering of the offending value.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from datetime import UTC, datetime
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

#: One decoded JSON object from the API.
Wire = Mapping[str, object]


class WireValueError(ValueError):
    """A value from the API that the spec does not allow where it was found."""


#: Largest money amount taken, in VND, either sign: beyond any price, and every amount up to it
#: is exact as a JavaScript number (below 2^53), as the islands read prices.
MAX_MONEY = 10**15


def money(value: object, field: str) -> int | None:
    """Integer VND from a JSON number or string; None stays None (no price: show nothing).

    Accepts 120000, 120000.0, "120000", "120000.00", " 120000 "; a fraction of a dong is
    rounded half up. Anything else (words, booleans, NaN, amounts beyond ``MAX_MONEY``) is a
    ``WireValueError``.
    """
    if value is None:
        return None
    if isinstance(value, bool):
        raise WireValueError(f"{field}: a boolean is not a money amount")
    if isinstance(value, int):
        return _in_range(value, value, field)
    if isinstance(value, float | str):
        text = str(value).strip()
        if text == "":
            return None
        try:
            amount = Decimal(text)
        except InvalidOperation:
            raise WireValueError(f"{field}: {show(value)} is not a money amount") from None
        if not amount.is_finite():
            raise WireValueError(f"{field}: {show(value)} is not a money amount")
        # Checked before rounding (a comparison is exact): rounding "1e999999" or 30 digits to
        # a whole number is past the precision of Decimal's arithmetic, and raises.
        if amount.copy_abs() > MAX_MONEY:
            raise _out_of_range(value, field)
        return int(amount.quantize(Decimal(1), rounding=ROUND_HALF_UP))
    raise WireValueError(f"{field}: {show(value)} is not a money amount")


def _in_range(amount: int, value: object, field: str) -> int:
    if abs(amount) > MAX_MONEY:
        raise _out_of_range(value, field)
    return amount


def _out_of_range(value: object, field: str) -> WireValueError:
    return WireValueError(f"{field}: {show(value)} is out of range for a money amount")


def timestamp(value: object, field: str) -> datetime | None:
    """An aware UTC datetime. A timestamp without offset is UTC (the spec's wire form), never
    local time; one with Z or an offset is converted. Null or empty: None."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise WireValueError(f"{field}: {show(value)} is not a timestamp")
    text = value.strip()
    if text == "":
        return None
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise WireValueError(f"{field}: {show(value)} is not an ISO 8601 timestamp") from None
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def url(value: object, field: str = "url") -> str | None:
    """A usable path (or absolute link) or None: null, empty and blank strings are None.

    Kept as the API gave it apart from surrounding blanks and Unicode NFC, so two spellings of
    one Vietnamese path compare equal. Never built from a slug. Whether the site can use it is
    the plan's to decide (``plan.usable``), which sees every record at each build.
    """
    if value is None:
        return None
    if not isinstance(value, str):
        raise WireValueError(f"{field}: {show(value)} is not a url")
    text = value.strip()
    return unicodedata.normalize("NFC", text) if text else None


def as_record(data: object, what: str) -> Wire:
    if not isinstance(data, Mapping):
        raise WireValueError(f"{what}: expected an object, got {show(data)}")
    return data


def name_of(kind: str, record: Wire) -> str:
    """How messages name a record: its kind and id when it has a usable one."""
    ident = record.get("id")
    if isinstance(ident, int | str) and not isinstance(ident, bool):
        return f"{kind} {ident}"
    return kind


def req_int(record: Wire, key: str, what: str) -> int:
    value = opt_int(record, key, what)
    if value is None:
        raise WireValueError(f"{what}: required field {key} is missing")
    return value


def opt_int(record: Wire, key: str, what: str) -> int | None:
    """An integer, also from a string of digits (some implementations quote ids)."""
    value = record.get(key)
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value.strip())
    raise WireValueError(f"{what}: {key}: {show(value)} is not an integer")


def int_or(record: Wire, key: str, what: str, default: int = 0) -> int:
    value = opt_int(record, key, what)
    return default if value is None else value


def req_str(record: Wire, key: str, what: str) -> str:
    value = opt_str(record, key, what)
    if value is None or value.strip() == "":
        raise WireValueError(f"{what}: required field {key} is missing")
    return value


def opt_str(record: Wire, key: str, what: str) -> str | None:
    value = record.get(key)
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    raise WireValueError(f"{what}: {key}: {show(value)} is not text")


def flag(record: Wire, key: str, what: str, *, default: bool) -> bool:
    value = record.get(key)
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    raise WireValueError(f"{what}: {key}: {show(value)} is not a boolean")


def array(record: Wire, key: str, what: str) -> list[object]:
    value = record.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise WireValueError(f"{what}: {key}: {show(value)} is not an array")
    return value


def int_array(record: Wire, key: str, what: str) -> tuple[int, ...]:
    values = array(record, key, what)
    return tuple(req_int({key: item}, key, what) for item in values)


def show(value: object) -> str:
    """A short, safe rendering of a wire value for a one-line message."""
    text = repr(value)
    return text if len(text) <= 60 else text[:59] + "…"
