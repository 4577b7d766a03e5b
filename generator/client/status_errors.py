"""Reading a non-2xx answer: the problem JSON's detail and code, and a 429's Retry-After.

Does: build the ``ApiStatusError``/``RateLimited`` for one answer. Does NOT: decide whether to
retry or wait (the retry layer and the crawler do).
"""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

import httpx

from generator.client.decode import JsonRefused, decode_json
from generator.errors import ApiStatusError, RateLimited

#: Seconds to wait after a 429 that says nothing about when to come back.
DEFAULT_RETRY_AFTER = 60.0

_MAX_DETAIL = 200


def status_error(response: httpx.Response, content: bytes, *, endpoint: str) -> ApiStatusError:
    """The error of one non-2xx answer, ``content`` its body (or as much as was read)."""
    body = _json_object(content)
    if response.status_code == 429:
        return RateLimited(endpoint=endpoint, retry_after=retry_after_seconds(response, body))
    return ApiStatusError(
        _problem_message(response, body), endpoint=endpoint, status=response.status_code
    )


def retry_after_seconds(response: httpx.Response, body: dict[str, object] | None) -> float:
    """Retry-After (delta-seconds or HTTP-date), else the body's retry_after, else 60 s."""
    header = response.headers.get("Retry-After", "").strip()
    if header:
        seconds = _parse_retry_after(header, response.headers.get("Date"))
        if seconds is not None:
            return seconds
    if body is not None:
        value = body.get("retry_after", body.get("retryAfter"))
        if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
            return float(value)
        if isinstance(value, str):
            seconds = _parse_seconds(value)
            if seconds is not None:
                return seconds
    return DEFAULT_RETRY_AFTER


def _parse_retry_after(header: str, date_header: str | None) -> float | None:
    seconds = _parse_seconds(header)
    if seconds is not None:
        return seconds
    try:
        when = parsedate_to_datetime(header)
    except (TypeError, ValueError):
        return None
    reference = datetime.now(UTC)
    if date_header:
        try:
            reference = parsedate_to_datetime(date_header)
        except (TypeError, ValueError):
            pass
    if when.tzinfo is None or reference.tzinfo is None:
        return None
    return max(0.0, (when - reference).total_seconds())


def _parse_seconds(text: str) -> float | None:
    try:
        seconds = float(text.strip())
    except ValueError:
        return None
    if seconds != seconds or seconds < 0 or seconds == float("inf"):
        return None
    return seconds


def _json_object(content: bytes) -> dict[str, object] | None:
    try:
        body = decode_json(content)
    except JsonRefused:
        return None
    return body if isinstance(body, dict) else None


def _problem_message(response: httpx.Response, body: dict[str, object] | None) -> str:
    """``code: detail`` from problem JSON, else the reason phrase; always one short line."""
    reason = response.reason_phrase or "error"
    if body is None:
        return reason
    detail = body.get("detail") or body.get("title") or body.get("message")
    code = body.get("code")
    parts = [str(part) for part in (code, detail) if isinstance(part, str) and part]
    message = ": ".join(parts) if parts else reason
    message = " ".join(message.split())
    return message if len(message) <= _MAX_DETAIL else message[: _MAX_DETAIL - 1] + "…"
