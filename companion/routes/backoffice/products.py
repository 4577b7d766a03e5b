"""Products with quick edits of price and stock: one form per product, saved on its own."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends
from starlette.responses import RedirectResponse, Response

from companion.backoffice import audit
from companion.backoffice.catalogue import (
    EditRefused,
    list_products,
    product_line,
    set_price,
    set_stock,
)
from companion.backoffice.staff import Power
from companion.deps import ServicesDep
from companion.routes.backoffice.access import AdminRoute, Desk, Form, StoreId, needs, posted_needs
from companion.routes.backoffice.render import page

router = APIRouter(route_class=AdminRoute)

CatalogueDesk = Annotated[Desk, Depends(needs(Power.CATALOGUE))]
PostedCatalogueDesk = Annotated[Desk, Depends(posted_needs(Power.CATALOGUE))]
PAGE = 50


def read_amount(text: str) -> int | None:
    """A whole number as a merchant types it: ``1.590.000``, ``1590000 ₫``; None when empty."""
    digits = text.replace(".", "").replace(" ", "").replace("₫", "").replace(",", "").strip()
    if not digits:
        return None
    if not digits.isdigit() or len(digits) > 13:
        raise EditRefused(f"not a whole number: {text[:30]!r}")
    return int(digits)


@router.get("/products")
def get_products(
    desk: CatalogueDesk,
    services: ServicesDep,
    store_id: StoreId,
    q: str = "",
    page_no: int = 1,
    saved: int = 0,
) -> Response:
    offset = (max(1, min(page_no, 10_000)) - 1) * PAGE
    with services.engine.connect() as conn:
        found = list_products(conn, store_id=store_id, search=q[:100], offset=offset, limit=PAGE)
    return page(
        "products.html",
        desk=desk,
        products=found,
        q=q[:100],
        page_no=offset // PAGE + 1,
        more=len(found) == PAGE,
        saved=saved,
        error="",
        here="products",
    )


@router.post("/products/{product_id}")
def post_product(
    product_id: int,
    desk: PostedCatalogueDesk,
    form: Form,
    services: ServicesDep,
    store_id: StoreId,
) -> Response:
    """Writes only what changed: a new price (product and variants), each variant's stock."""
    now = services.clock.now()
    try:
        with services.engine.begin() as conn:
            before = product_line(conn, store_id=store_id, product_id=product_id)
            price = read_amount(form.get("price", ""))
            if price is not None and price != before.price:
                set_price(conn, store_id=store_id, product_id=product_id, price=price, now=now)
                audit.record(
                    conn,
                    staff=desk.staff,
                    action="product.price",
                    subject=before.slug,
                    detail=f"{before.price} -> {price}",
                    now=now,
                )
            for variant in before.variants:
                field = f"stock_{variant.id}"
                if field not in form:
                    continue
                stock = read_amount(form[field])
                if stock != variant.stock:
                    set_stock(
                        conn,
                        store_id=store_id,
                        product_id=product_id,
                        variant_id=variant.id,
                        stock=stock,
                        now=now,
                    )
                    audit.record(
                        conn,
                        staff=desk.staff,
                        action="variant.stock",
                        subject=f"{before.slug} {variant.sku or variant.id}",
                        detail=f"{variant.stock} -> {stock}",
                        now=now,
                    )
    except EditRefused as exc:
        with services.engine.connect() as conn:
            found = list_products(conn, store_id=store_id, ids=[product_id])
        return page(
            "products.html",
            422,
            desk=desk,
            products=found,
            q="",
            page_no=1,
            more=False,
            saved=0,
            error=str(exc),
            here="products",
        )
    back = form.get("back", "")
    target = back if back.startswith("/admin/products") and "//" not in back else "/admin/products"
    joiner = "&" if "?" in target else "?"
    return RedirectResponse(f"{target}{joiner}saved={product_id}#p{product_id}", status_code=303)
