"""Products and variants out as the widely used product CSV and back in through the back office:
a dry run lists exactly what an import would change and create, an import does exactly that (a
Handle not in the store is a new product with its variants), a file
with an error changes nothing and names its lines, and a file past its size limit is refused
while it is read."""

from __future__ import annotations

import csv
import io
import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import select

from companion.backoffice.staff import Role
from companion.clock import ManualClock
from companion.db.schema import products, variants
from companion.logging_http import ACCESS_LOGGER
from tests.companion.admin.test_order_notifications import queued
from tests.companion.commerce.back_office import Browser, add_account
from tests.companion.commerce.conftest import Store, Template, opened_store
from tests.companion.commerce.test_webhooks import subscribe

pytestmark = pytest.mark.anyio

OWNER = "chu@shop.example"


@pytest.fixture
async def owner(store: Store) -> AsyncIterator[Browser]:
    add_account(store, OWNER, Role.OWNER)
    browser = Browser(store)
    await browser.signed_in(OWNER)
    yield browser
    await browser.close()


def catalogue(store: Store) -> dict[str, object]:
    """Every column an import may write, of every product and variant."""
    with store.engine.connect() as conn:
        rows = {
            f"p{r.id}": (r.name, r.description_html, r.status, r.price, r.compare_at_price)
            for r in conn.execute(select(products))
        }
        rows |= {
            f"v{r.id}": (r.price, r.compare_at_price, r.stock)
            for r in conn.execute(select(variants))
        }
    return rows


async def upload(browser: Browser, text: str, *, dry_run: bool) -> tuple[int, str]:
    data = {"csrf": browser.csrf, **({"dry_run": "1"} if dry_run else {})}
    answer = await browser.client.post(
        "/admin/products/import",
        data=data,
        files={"file": ("products.csv", text.encode("utf-8"), "text/csv")},
    )
    return answer.status_code, answer.text


async def test_export_edit_dry_run_import_changes_exactly_the_edits(
    store: Store, owner: Browser
) -> None:
    exported = await owner.get("/admin/products/export.csv")
    assert exported.status_code == 200
    assert exported.headers["content-type"].startswith("text/csv")
    lines = list(csv.DictReader(io.StringIO(exported.text)))
    assert list(lines[0]) == [
        "Handle", "Title", "Body (HTML)", "Vendor", "Option1 Name", "Option1 Value",
        "Option2 Name", "Option2 Value", "Variant SKU", "Variant Price",
        "Variant Compare At Price", "Variant Inventory Qty", "Image Src", "Status",
    ]  # fmt: skip
    shirt_rows = [n for n, line in enumerate(lines) if line["Variant Price"] == "200000"]
    jeans_row = next(n for n, line in enumerate(lines) if line["Variant Price"] == "500000")
    first, second = shirt_rows[:2]
    lines[first]["Variant Price"] = "210000"
    lines[jeans_row]["Variant Price"] = "490000"
    lines[second]["Variant Inventory Qty"] = "25"
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(lines[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(lines)
    edited = out.getvalue()

    before = catalogue(store)
    status, page = await upload(owner, edited, dry_run=True)
    assert status == 200 and "Chạy thử: 3 thay đổi" in page
    assert catalogue(store) == before  # a dry run writes nothing
    for line in (first, second, jeans_row):
        assert f"<td>{line + 2}</td>" in page  # the file's line numbers, the header being 1

    status, page = await upload(owner, edited, dry_run=False)
    assert status == 200 and "Đã nhập: 3 thay đổi" in page
    after = catalogue(store)
    changed = {key for key in after if after[key] != before[key]}
    shirt_first, shirt_second = f"v{store.goods.shirt_m}", f"v{store.goods.shirt_l}"
    jeans_v = f"v{store.goods.jeans_v}"
    # Exactly the three edits, and the products whose lowest variant price moved with them.
    assert changed == {shirt_first, shirt_second, jeans_v, f"p{store.goods.jeans}"}
    assert after[shirt_first][0] == 210_000 and after[shirt_second][2] == 25
    assert after[jeans_v][0] == 490_000 and after[f"p{store.goods.jeans}"][3] == 490_000

    status, page = await upload(owner, edited, dry_run=True)
    assert "Chạy thử: 0 thay đổi" in page  # the same file again: nothing left to change


async def test_a_file_with_errors_changes_nothing_and_names_its_lines(
    store: Store, owner: Browser
) -> None:
    exported = (await owner.get("/admin/products/export.csv")).text
    header, *rows = exported.splitlines()
    bad = "\n".join(
        [
            header,
            rows[0].replace(",200000,", ",210000,"),
            "khong-co-handle,,,,,,,,,1,,,,",
            *rows[1:],
        ]
    )
    bad = bad.replace(",500000,", ",năm trăm,")
    before = catalogue(store)
    status, page = await upload(owner, bad + "\n", dry_run=False)
    assert status == 422
    assert "Dòng 3: Title: a new product needs one" in page  # an unknown Handle is a new one
    assert "Variant Price" in page and "không có gì được thay đổi" in page
    assert catalogue(store) == before


async def test_a_file_past_its_limit_is_refused_while_read(
    template: Template, tmp_path: Path, clock: ManualClock, caplog: pytest.LogCaptureFixture
) -> None:
    async with opened_store(template, tmp_path, clock, admin_csv_max_bytes=200) as store:
        add_account(store, OWNER, Role.OWNER)
        browser = Browser(store)
        await browser.signed_in(OWNER)
        caplog.set_level(logging.INFO, logger=ACCESS_LOGGER)
        caplog.clear()
        status, page = await upload(
            browser, "Handle,Variant Price\n" + "x,1\n" * 6000, dry_run=True
        )
        assert status == 413 and "Tệp quá lớn" in page
        lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == ACCESS_LOGGER]
        assert lines[-1]["refused"] == "admin import refused: file over admin_csv_max_bytes"
        status, page = await upload(browser, "Handle,Variant Price\n" + "x,1\n" * 50, dry_run=True)
        assert status == 413  # within the request's overhead, but the file itself is too large
        await browser.close()


async def test_too_many_lines_are_refused(
    template: Template, tmp_path: Path, clock: ManualClock
) -> None:
    async with opened_store(template, tmp_path, clock, admin_csv_max_rows=3) as store:
        add_account(store, OWNER, Role.OWNER)
        browser = Browser(store)
        await browser.signed_in(OWNER)
        status, page = await upload(browser, "Handle,Variant Price\n" + "x,1\n" * 4, dry_run=True)
        assert status == 422 and "more than 3 lines" in page
        await browser.close()


HEADER = ",".join(
    [
        "Handle", "Title", "Body (HTML)", "Vendor", "Option1 Name", "Option1 Value",
        "Option2 Name", "Option2 Value", "Variant SKU", "Variant Price",
        "Variant Compare At Price", "Variant Inventory Qty", "Image Src", "Status",
    ]
)  # fmt: skip
#: A product not in the store, of two variants (sizes S and M), by an existing brand.
NEW_PRODUCT = [
    "ao-khoac-gio,Áo khoác gió,<p>Nhẹ</p>,Việt Tiến,Kích cỡ,S,Màu,Xanh,AK-S,350000,400000,4,"
    "https://img.example/ak-1.jpg,active",
    "ao-khoac-gio,,,,,M,,Xanh,AK-M,370000,,,https://img.example/ak-2.jpg,",
]


async def test_a_new_handle_is_created_with_its_variants_and_an_edit_beside_it(
    store: Store, owner: Browser
) -> None:
    subscribe(store, ["*"])
    exported = (await owner.get("/admin/products/export.csv")).text
    header, *rows = exported.splitlines()
    assert header == HEADER
    jeans_line = next(n for n, row in enumerate(rows) if ",500000," in row)
    rows[jeans_line] = rows[jeans_line].replace(",500000,", ",490000,")
    text = "\n".join([header, *rows, *NEW_PRODUCT]) + "\n"
    new_lines = (len(rows) + 2, len(rows) + 3)  # the header is line 1

    before = catalogue(store)
    status, page = await upload(owner, text, dry_run=True)
    assert status == 200, page
    assert "Chạy thử: 1 thay đổi, 1 sản phẩm mới" in page
    assert f"<td>{jeans_line + 2}</td>" in page
    assert f"<td>{new_lines[0]}</td><td>ao-khoac-gio</td>" in page
    assert f"<td>{new_lines[1]}</td><td>ao-khoac-gio</td>" in page
    assert catalogue(store) == before and queued(store) == []

    status, page = await upload(owner, text, dry_run=False)
    assert status == 200 and "Đã nhập: 1 thay đổi, 1 sản phẩm mới" in page
    after = catalogue(store)
    jeans, jeans_v = f"p{store.goods.jeans}", f"v{store.goods.jeans_v}"
    assert {key for key in before if after[key] != before[key]} == {jeans, jeans_v}
    assert after[jeans_v][0] == 490_000
    made = {key: value for key, value in after.items() if key not in before}
    [new_id] = [int(key[1:]) for key in made if key.startswith("p")]
    assert sorted(value for key, value in made.items() if key.startswith("v")) == [
        (350_000, 400_000, 4),
        (370_000, None, None),
    ]
    events = [(event, data["id"]) for _, event, data in queued(store)]
    assert ("product.created", new_id) in events and (
        "product.updated",
        store.goods.jeans,
    ) in events
    assert {data["id"] for _, _, data in queued(store)} == {new_id, store.goods.jeans}

    product = await store.ok("GET", "/products/by-slug/ao-khoac-gio")
    assert (product["id"], product["name"], product["price"]) == (new_id, "Áo khoác gió", 350_000)
    assert product["description_html"] == "<p>Nhẹ</p>"
    assert product["brand"] == {"id": store.goods.brand, "name": "Việt Tiến"}
    assert [i["url"] for i in product["images"]] == [
        "https://img.example/ak-1.jpg",
        "https://img.example/ak-2.jpg",
    ]
    sold = await store.ok("GET", f"/products/{new_id}/variants")
    assert [(v["sku"], v["options"], v["price"], v["stock"]) for v in sold["items"]] == [
        ("AK-S", {"Kích cỡ": "S", "Màu": "Xanh"}, 350_000, 4),
        ("AK-M", {"Kích cỡ": "M", "Màu": "Xanh"}, 370_000, None),
    ]
    listed = await store.ok("GET", "/products", params={"q": "khoác gió"})
    assert [p["id"] for p in listed["items"]] == [new_id]

    status, page = await upload(owner, text, dry_run=True)
    assert "Chạy thử: 0 thay đổi, 0 sản phẩm mới" in page  # the same file: nothing left


async def test_a_new_products_bad_rows_are_named_and_nothing_is_made(
    store: Store, owner: Browser
) -> None:
    exported = (await owner.get("/admin/products/export.csv")).text
    header, *rows = exported.splitlines()
    edited = [rows[0].replace(",200000,", ",210000,")]
    bad = [
        NEW_PRODUCT[0].replace("Việt Tiến", "Hãng lạ"),  # no such brand
        NEW_PRODUCT[1].replace("370000", "ba trăm"),
        NEW_PRODUCT[1],  # the same options again
        "khan-moi,,,,,,,,,90000,,,,active",  # a new product without a Title
        "ao-khoac-gio,,,,,L,,Xanh,AK-L,370000,,10000000000,,",
    ]
    text = "\n".join([header, *edited, *bad]) + "\n"
    before = catalogue(store)
    status, page = await upload(owner, text, dry_run=False)
    assert status == 422
    assert "Dòng 3: Vendor" in page
    assert "Dòng 4: Variant Price" in page
    assert "Dòng 5: a second line for the same variant" in page
    assert "Dòng 6: Title" in page
    assert "Dòng 7: Variant Inventory Qty" in page  # more than a stock column holds
    assert catalogue(store) == before
