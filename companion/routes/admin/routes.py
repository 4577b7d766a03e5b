"""The admin API's routes: each reads its input, checks the key's permission, calls one
service of ``companion.admin`` and answers what it returns; a service's refusal becomes a
problem (``answered``)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, BackgroundTasks, Depends, Query, Response, status
from pydantic import BaseModel, ConfigDict, Field

from companion.admin import catalog, inbox, orders, people, store
from companion.admin.errors import Invalid, NotFound, Refused
from companion.admin.paging import Page
from companion.cursors import clamp_limit
from companion.deps import Db, ServicesDep
from companion.order_mail import mail_is_on, send_order_mails
from companion.problems import conflict, not_found, unprocessable
from companion.routes.admin.auth import AdminKey, permitted
from companion.routes.admin.document import admin_openapi

ADMIN_PREFIX = "/admin/api/v1"
router = APIRouter(tags=["admin"])

Id = Annotated[int, Field(ge=1, le=2**53)]
Limit = Annotated[int | None, Query(ge=1, le=1000)]
Cursor = Annotated[str | None, Query(max_length=100)]
Record = dict[str, Any]


def key(permission: str) -> Any:
    return Depends(permitted(permission))


@contextmanager
def answered() -> Iterator[None]:
    """A service's refusal as the problem the public API would answer."""
    try:
        yield
    except NotFound as missing:
        raise not_found(str(missing)) from None
    except Invalid as invalid:
        raise unprocessable(invalid.field, invalid.message) from None
    except Refused as refused:
        raise conflict("refused", str(refused)) from None


class ListOut(BaseModel):
    items: list[Record]
    next_cursor: str | None
    has_more: bool


def listed(page: Page) -> ListOut:
    items = [dict(row._mapping) for row in page.rows]
    return ListOut(items=items, next_cursor=page.next_cursor, has_more=page.next_cursor is not None)


def size(services: ServicesDep, limit: int | None) -> int:
    settings = services.settings
    return clamp_limit(limit, default=settings.default_limit, maximum=settings.max_limit)


class OrderOut(BaseModel):
    order: Record
    items: list[Record]
    payments: list[Record]
    history: list[Record]


def order_out(detail: orders.OrderDetail) -> OrderOut:
    return OrderOut(
        order=detail.order, items=detail.items, payments=detail.payments, history=detail.history
    )


class MoveIn(BaseModel):
    status: str = Field(max_length=20, description="The status to move to")
    reason: str = Field(min_length=1, max_length=200, description="Why (kept in the history)")


class NoteIn(BaseModel):
    note: str | None = Field(max_length=orders.MAX_NOTE)


# -- orders ---------------------------------------------------------------------------------


@router.get("/orders", response_model=ListOut, summary="Orders, newest first")
def get_orders(
    admin: Annotated[AdminKey, key("orders:read")],
    db: Db,
    services: ServicesDep,
    status: Annotated[str | None, Query(max_length=20)] = None,
    placed_from: datetime | None = None,
    placed_to: datetime | None = None,
    q: Annotated[str | None, Query(max_length=100, description="Code, phone or e-mail")] = None,
    cursor: Cursor = None,
    limit: Limit = None,
) -> ListOut:
    where = orders.OrderFilter(status, _naive(placed_from), _naive(placed_to), q)
    with answered():
        page = orders.list_orders(
            db, store_id=admin.store_id, where=where, cursor=cursor, limit=size(services, limit)
        )
    return listed(page)


def _naive(moment: datetime | None) -> datetime | None:
    """Stored moments are naive UTC: an aware one is moved to UTC."""
    if moment is None or moment.tzinfo is None:
        return moment
    return moment.astimezone(UTC).replace(tzinfo=None)


@router.get("/orders/{order_id}", response_model=OrderOut, summary="An order in full")
def get_order(order_id: int, admin: Annotated[AdminKey, key("orders:read")], db: Db) -> OrderOut:
    with answered():
        return order_out(orders.order_detail(db, store_id=admin.store_id, order_id=order_id))


@router.post("/orders/{order_id}/moves", response_model=OrderOut, summary="Move an order")
def post_move(
    order_id: int,
    body: MoveIn,
    admin: Annotated[AdminKey, key("orders:write")],
    db: Db,
    services: ServicesDep,
    background: BackgroundTasks,
) -> OrderOut:
    """A move of the order state machine (docs/orders.md) with its reason; 409 ``refused``
    when the order's status does not allow it."""
    with answered():
        detail = orders.move_order(
            db,
            store_id=admin.store_id,
            order_id=order_id,
            target=body.status,
            reason=body.reason,
            now=services.clock.now(),
        )
    if body.status == "paid" and mail_is_on(services.settings):  # once the move is committed
        background.add_task(
            send_order_mails,
            services.engine,
            services.settings,
            store_id=admin.store_id,
            order_id=order_id,
            event="paid",
        )
    return order_out(detail)


@router.put("/orders/{order_id}/note", response_model=OrderOut, summary="The merchant's note")
def put_note(
    order_id: int,
    body: NoteIn,
    admin: Annotated[AdminKey, key("orders:write")],
    db: Db,
    services: ServicesDep,
) -> OrderOut:
    with answered():
        detail = orders.set_merchant_note(
            db, store_id=admin.store_id, order_id=order_id, note=body.note, now=services.clock.now()
        )
    return order_out(detail)


# -- catalogue ------------------------------------------------------------------------------

Kind = Literal[
    "products",
    "categories",
    "collections",
    "articles",
    "pages",
    "menus",
    "banners",
    "coupons",
    "promotions",
    "order-promotions",
    "shipping-methods",
    "flash-sales",
]
Part = Literal["variants", "images"]


class RowsOut(BaseModel):
    items: list[Record]
    next_cursor: str | None
    has_more: bool


@router.get("/catalog/{kind}", response_model=RowsOut, summary="Catalogue rows of one kind")
def get_rows(
    kind: Kind,
    admin: Annotated[AdminKey, key("catalog:read")],
    db: Db,
    services: ServicesDep,
    cursor: Annotated[str | None, Query(pattern=r"^\d{1,18}$")] = None,
    limit: Limit = None,
) -> RowsOut:
    with answered():
        rows, after = catalog.list_rows(
            db,
            kind,
            store_id=admin.store_id,
            after=int(cursor) if cursor else None,
            limit=size(services, limit),
        )
    return RowsOut(
        items=rows, next_cursor=None if after is None else str(after), has_more=after is not None
    )


@router.get("/catalog/{kind}/{row_id}", response_model=Record, summary="One catalogue row")
def get_row(
    kind: Kind, row_id: int, admin: Annotated[AdminKey, key("catalog:read")], db: Db
) -> Record:
    with answered():
        return catalog.get_row(db, kind, row_id, store_id=admin.store_id)


@router.post(
    "/catalog/{kind}",
    response_model=Record,
    status_code=status.HTTP_201_CREATED,
    summary="Create a catalogue row (its webhook is queued)",
)
def post_row(
    kind: Kind,
    body: Record,
    admin: Annotated[AdminKey, key("catalog:write")],
    db: Db,
    services: ServicesDep,
) -> Record:
    with answered():
        return catalog.create_row(db, kind, body, store_id=admin.store_id, now=services.clock.now())


@router.patch("/catalog/{kind}/{row_id}", response_model=Record, summary="Change a catalogue row")
def patch_row(
    kind: Kind,
    row_id: int,
    body: Record,
    admin: Annotated[AdminKey, key("catalog:write")],
    db: Db,
    services: ServicesDep,
) -> Record:
    """A product's ``price`` sets its variants' prices too."""
    with answered():
        return catalog.update_row(
            db, kind, row_id, body, store_id=admin.store_id, now=services.clock.now()
        )


@router.delete(
    "/catalog/{kind}/{row_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    response_class=Response,
    summary="Delete a catalogue row",
)
def delete_row(
    kind: Kind,
    row_id: int,
    admin: Annotated[AdminKey, key("catalog:write")],
    db: Db,
    services: ServicesDep,
) -> None:
    with answered():
        catalog.delete_row(db, kind, row_id, store_id=admin.store_id, now=services.clock.now())


@router.post(
    "/catalog/products/{product_id}/{part}",
    response_model=Record,
    status_code=status.HTTP_201_CREATED,
    summary="Add a variant or an image to a product",
)
def post_part(
    product_id: int,
    part: Part,
    body: Record,
    admin: Annotated[AdminKey, key("catalog:write")],
    db: Db,
    services: ServicesDep,
) -> Record:
    with answered():
        row = catalog.write_product_part(
            db, part, product_id, None, body, store_id=admin.store_id, now=services.clock.now()
        )
    assert row is not None
    return row


@router.patch(
    "/catalog/products/{product_id}/{part}/{part_id}",
    response_model=Record,
    summary="Change a product's variant or image",
)
def patch_part(
    product_id: int,
    part: Part,
    part_id: int,
    body: Record,
    admin: Annotated[AdminKey, key("catalog:write")],
    db: Db,
    services: ServicesDep,
) -> Record:
    with answered():
        row = catalog.write_product_part(
            db, part, product_id, part_id, body, store_id=admin.store_id, now=services.clock.now()
        )
    assert row is not None
    return row


@router.delete(
    "/catalog/products/{product_id}/{part}/{part_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    response_class=Response,
    summary="Remove a product's variant or image",
)
def delete_part(
    product_id: int,
    part: Part,
    part_id: int,
    admin: Annotated[AdminKey, key("catalog:write")],
    db: Db,
    services: ServicesDep,
) -> None:
    with answered():
        catalog.write_product_part(
            db, part, product_id, part_id, None, store_id=admin.store_id, now=services.clock.now()
        )


# -- catalogue links: a menu's items, a collection's products, a product's extra categories --

Position = Annotated[int, Field(ge=0, le=2**31 - 1)]


class ItemIn(BaseModel):
    """A menu item's columns; a new item needs its label. Those left out are not changed."""

    model_config = ConfigDict(extra="forbid")
    label: str | None = Field(None, min_length=1, max_length=200)
    url: str | None = Field(None, max_length=2000)
    parent_id: Id | None = Field(None, description="An item of the same menu; none: the top")
    position: Position | None = None

    def values(self) -> Record:
        return self.model_dump(exclude_unset=True)


@router.post(
    "/catalog/menus/{menu_id}/items",
    response_model=Record,
    status_code=status.HTTP_201_CREATED,
    summary="Add an item to a menu (label, url, parent_id, position)",
)
def post_menu_item(
    menu_id: int,
    body: ItemIn,
    admin: Annotated[AdminKey, key("catalog:write")],
    db: Db,
    services: ServicesDep,
) -> Record:
    with answered():
        row = catalog.write_item(
            db, menu_id, None, body.values(), store_id=admin.store_id, now=services.clock.now()
        )
    assert row is not None
    return row


@router.patch(
    "/catalog/menus/{menu_id}/items/{item_id}",
    response_model=Record,
    summary="Change a menu's item",
)
def patch_menu_item(
    menu_id: int,
    item_id: int,
    body: ItemIn,
    admin: Annotated[AdminKey, key("catalog:write")],
    db: Db,
    services: ServicesDep,
) -> Record:
    with answered():
        row = catalog.write_item(
            db, menu_id, item_id, body.values(), store_id=admin.store_id, now=services.clock.now()
        )
    assert row is not None
    return row


@router.delete(
    "/catalog/menus/{menu_id}/items/{item_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    response_class=Response,
    summary="Remove a menu's item (and the items under it)",
)
def delete_menu_item(
    menu_id: int,
    item_id: int,
    admin: Annotated[AdminKey, key("catalog:write")],
    db: Db,
    services: ServicesDep,
) -> None:
    with answered():
        catalog.write_item(
            db, menu_id, item_id, None, store_id=admin.store_id, now=services.clock.now()
        )


class OrderIn(BaseModel):
    parent_id: int | None = Field(None, description="Whose children (none: the top level)")
    item_ids: list[Id] = Field(max_length=1000, description="Every one of them, in order")


@router.put("/catalog/menus/{menu_id}/order", response_model=Record, summary="Order a menu's items")
def put_menu_order(
    menu_id: int,
    body: OrderIn,
    admin: Annotated[AdminKey, key("catalog:write")],
    db: Db,
    services: ServicesDep,
) -> Record:
    with answered():
        return catalog.order_items(
            db,
            menu_id,
            body.parent_id,
            body.item_ids,
            store_id=admin.store_id,
            now=services.clock.now(),
        )


class MemberIn(BaseModel):
    position: Position | None = None


class MembersOut(BaseModel):
    collection_id: int
    product_ids: list[int]


@router.put(
    "/catalog/collections/{collection_id}/products/{product_id}",
    response_model=MembersOut,
    summary="Add a product to a collection (again: only its position changes)",
)
def put_collection_product(
    collection_id: int,
    product_id: int,
    admin: Annotated[AdminKey, key("catalog:write")],
    db: Db,
    services: ServicesDep,
    body: MemberIn | None = None,
) -> MembersOut:
    with answered():
        members = catalog.collect(
            db,
            collection_id,
            product_id,
            position=body.position if body else None,
            member=True,
            store_id=admin.store_id,
            now=services.clock.now(),
        )
    return MembersOut(collection_id=collection_id, product_ids=members)


@router.delete(
    "/catalog/collections/{collection_id}/products/{product_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    response_class=Response,
    summary="Remove a product from a collection",
)
def delete_collection_product(
    collection_id: int,
    product_id: int,
    admin: Annotated[AdminKey, key("catalog:write")],
    db: Db,
    services: ServicesDep,
) -> None:
    with answered():
        catalog.collect(
            db,
            collection_id,
            product_id,
            position=None,
            member=False,
            store_id=admin.store_id,
            now=services.clock.now(),
        )


class CategoriesIn(BaseModel):
    category_ids: list[Id] = Field(max_length=1000)


class CategoriesOut(BaseModel):
    product_id: int
    category_ids: list[int]


@router.put(
    "/catalog/products/{product_id}/categories",
    response_model=CategoriesOut,
    summary="Set a product's extra categories (its primary one is its category_id)",
)
def put_product_categories(
    product_id: int,
    body: CategoriesIn,
    admin: Annotated[AdminKey, key("catalog:write")],
    db: Db,
    services: ServicesDep,
) -> CategoriesOut:
    with answered():
        ids = catalog.set_categories(
            db, product_id, body.category_ids, store_id=admin.store_id, now=services.clock.now()
        )
    return CategoriesOut(product_id=product_id, category_ids=ids)


# -- customers, messages, reviews -----------------------------------------------------------


@router.get("/customers", response_model=ListOut, summary="Customers, newest first")
def get_customers(
    admin: Annotated[AdminKey, key("customers:read")],
    db: Db,
    services: ServicesDep,
    q: Annotated[str | None, Query(max_length=100)] = None,
    cursor: Cursor = None,
    limit: Limit = None,
) -> ListOut:
    with answered():
        page = people.list_customers(
            db, store_id=admin.store_id, search=q, cursor=cursor, limit=size(services, limit)
        )
    return listed(page)


@router.get("/customers/{customer_id}", response_model=Record, summary="A customer")
def get_customer(
    customer_id: int, admin: Annotated[AdminKey, key("customers:read")], db: Db
) -> Record:
    with answered():
        return people.customer_detail(db, store_id=admin.store_id, customer_id=customer_id)


class MessageIn(BaseModel):
    status: Literal["new", "read", "archived"]


@router.get("/messages", response_model=ListOut, summary="Contact messages, newest first")
def get_messages(
    admin: Annotated[AdminKey, key("messages:read")],
    db: Db,
    services: ServicesDep,
    status: Annotated[str | None, Query(max_length=20)] = None,
    cursor: Cursor = None,
    limit: Limit = None,
) -> ListOut:
    with answered():
        page = inbox.list_messages(
            db, store_id=admin.store_id, status=status, cursor=cursor, limit=size(services, limit)
        )
    return listed(page)


@router.patch(
    "/messages/{message_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    response_class=Response,
    summary="Mark a message read or archived",
)
def patch_message(
    message_id: int, body: MessageIn, admin: Annotated[AdminKey, key("messages:write")], db: Db
) -> None:
    with answered():
        inbox.mark_message(db, store_id=admin.store_id, message_id=message_id, status=body.status)


class ReviewOut(BaseModel):
    id: int
    status: str


@router.get("/reviews", response_model=ListOut, summary="Reviews, newest first")
def get_reviews(
    admin: Annotated[AdminKey, key("reviews:read")],
    db: Db,
    services: ServicesDep,
    status: Annotated[str | None, Query(max_length=20)] = None,
    cursor: Cursor = None,
    limit: Limit = None,
) -> ListOut:
    with answered():
        page = inbox.list_reviews(
            db, store_id=admin.store_id, status=status, cursor=cursor, limit=size(services, limit)
        )
    return listed(page)


@router.post(
    "/reviews/{review_id}/{action}", response_model=ReviewOut, summary="Approve or hide a review"
)
def post_review_action(
    review_id: int,
    action: Literal["approve", "hide"],
    admin: Annotated[AdminKey, key("reviews:write")],
    db: Db,
) -> ReviewOut:
    with answered():
        state = inbox.moderate_review(
            db, store_id=admin.store_id, review_id=review_id, action=action
        )
    return ReviewOut(id=review_id, status=state)


# -- webhooks, the store --------------------------------------------------------------------


class SubscriptionIn(BaseModel):
    url: str = Field(max_length=2000)
    events: list[Annotated[str, Field(max_length=50)]] = Field(default_factory=list, max_length=50)


class SubscriptionOut(BaseModel):
    id: int
    url: str
    events: list[str]
    secret: str | None = Field(None, description="Shown once, when the subscription is made")


@router.get("/webhooks", response_model=list[SubscriptionOut], summary="Webhook subscriptions")
def get_webhooks(admin: Annotated[AdminKey, key("webhooks:read")], db: Db) -> list[SubscriptionOut]:
    return [
        SubscriptionOut(id=s.id, url=s.url, events=s.events)
        for s in store.subscriptions(db, store_id=admin.store_id)
    ]


@router.post(
    "/webhooks",
    response_model=SubscriptionOut,
    status_code=status.HTTP_201_CREATED,
    summary="Subscribe a URL to events",
)
def post_webhook(
    body: SubscriptionIn,
    admin: Annotated[AdminKey, key("webhooks:write")],
    db: Db,
    services: ServicesDep,
) -> SubscriptionOut:
    with answered():
        made = store.subscribe(
            db, store_id=admin.store_id, url=body.url, events=body.events, now=services.clock.now()
        )
    return SubscriptionOut(id=made.id, url=made.url, events=made.events, secret=made.secret)


@router.delete(
    "/webhooks/{subscription_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    response_class=Response,
    summary="Remove a subscription",
)
def delete_webhook(
    subscription_id: int, admin: Annotated[AdminKey, key("webhooks:write")], db: Db
) -> None:
    with answered():
        store.unsubscribe(db, store_id=admin.store_id, subscription_id=subscription_id)


@router.get("/store", response_model=Record, summary="The store's details")
def get_store(admin: Annotated[AdminKey, key("store:read")], db: Db) -> Record:
    with answered():
        return store.store_details(db, store_id=admin.store_id)


@router.patch("/store", response_model=Record, summary="Change the store's details")
def patch_store(body: Record, admin: Annotated[AdminKey, key("store:write")], db: Db) -> Record:
    with answered():
        return store.update_store(db, store_id=admin.store_id, changes=body)


@router.get("/openapi.json", include_in_schema=False)
def get_openapi_document() -> Record:
    """The admin API's own OpenAPI document (docs/admin-openapi.json is a copy of it)."""
    return admin_openapi(router, ADMIN_PREFIX)
