"""With an API: what GET /sitemap declares per section, and the paths each section serves.

The spec counts a section's rows by status, while GET /sitemap/{section} also requires a
non-empty url, so "declared N, served fewer" is normal; the audit reports both numbers and
which served paths the emitted sitemap lacks.

Uses the build's own ``ApiClient`` (rate limiter, retries, cursor walks). The spec leaves a 429 to
the caller; the audit simply waits ``retry_after`` and asks again, a bounded number of times.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

from generator.client import ApiResponse, Params, walk_items
from generator.client.api import ApiClient
from generator.errors import ApiPayloadError, RateLimited

_PAGE_SIZE = 200
_RATE_LIMIT_WAITS = 5


@dataclass(frozen=True, slots=True)
class ApiSection:
    name: str
    declared: int
    paths: tuple[str, ...]


async def fetch_api_sections(api: ApiClient) -> tuple[ApiSection, ...]:
    """GET /sitemap, then walk every /sitemap/{section}."""
    body = await _get(api, "/sitemap", None)
    sections = body.data.get("sections") if isinstance(body.data, dict) else None
    if not isinstance(sections, list):
        raise ApiPayloadError("expected {sections: [{name, count}]}", endpoint=body.endpoint)
    found = []
    for section in sections:
        name = section.get("name") if isinstance(section, dict) else None
        count = section.get("count") if isinstance(section, dict) else None
        if not isinstance(name, str) or not isinstance(count, int) or isinstance(count, bool):
            raise ApiPayloadError(
                f"a section is {section!r}, not {{name, count}}", endpoint=body.endpoint
            )
        found.append(ApiSection(name, count, await _section_paths(api, name)))
    return tuple(found)


async def _section_paths(api: ApiClient, name: str) -> tuple[str, ...]:
    path = f"/sitemap/{quote(name, safe='')}"

    async def fetch(params: Params) -> ApiResponse:
        return await _get(api, path, params)

    paths = []
    async for item in walk_items(fetch, {"limit": str(_PAGE_SIZE)}):
        value = item.get("path") if isinstance(item, dict) else item
        if isinstance(value, str) and value:
            paths.append(value)
    return tuple(paths)


async def _get(api: ApiClient, path: str, params: Params | None) -> ApiResponse:
    for _ in range(_RATE_LIMIT_WAITS):
        try:
            return await api.get(path, params)
        except RateLimited as exc:
            await api.timer.sleep(exc.retry_after)
    return await api.get(path, params)
