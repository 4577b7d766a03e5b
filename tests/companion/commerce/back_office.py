"""Signing staff in to the back office of a test store, and sending its forms as a browser does."""

from __future__ import annotations

import re
from typing import Any

import httpx

from companion.backoffice.staff import Role, add_staff
from companion.customers.passwords import hash_password
from tests.companion.commerce.conftest import Store, cheap_hasher

STAFF_PASSWORD = "mat-khau-kho-doan-1"
_CSRF = re.compile(r'name="csrf" value="([^"]*)"')


def add_account(store: Store, email: str, role: Role = Role.STAFF) -> None:
    with store.engine.begin() as conn:
        add_staff(
            conn,
            store_id=store.store_id,
            email=email,
            password_hash=hash_password(cheap_hasher(), STAFF_PASSWORD),
            role=role,
            now=store.clock.now(),
        )


def csrf_of(page: httpx.Response) -> str:
    found = _CSRF.search(page.text)
    assert found is not None, page.text[:500]
    return found.group(1)


class Browser:
    """One browser of the store's back office: its own cookies."""

    def __init__(self, store: Store, base_url: str = "http://test") -> None:
        self.client = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=store.app), base_url=base_url
        )
        self.csrf = ""

    async def close(self) -> None:
        await self.client.aclose()

    async def login(self, email: str, password: str = STAFF_PASSWORD) -> httpx.Response:
        form = await self.client.get("/admin/login")
        return await self.client.post(
            "/admin/login",
            data={"email": email, "password": password, "csrf": csrf_of(form)},
        )

    async def signed_in(self, email: str) -> None:
        answer = await self.login(email)
        assert answer.status_code == 303 and answer.headers["location"] == "/admin", answer.text
        home = await self.client.get("/admin")
        assert home.status_code == 200
        self.csrf = csrf_of(home)

    async def get(self, path: str, **params: Any) -> httpx.Response:
        return await self.client.get(path, params=params)

    async def post(self, path: str, csrf: str | None = None, **fields: str) -> httpx.Response:
        data = {"csrf": self.csrf if csrf is None else csrf, **fields}
        if csrf == "-":
            del data["csrf"]
        return await self.client.post(path, data=data)
