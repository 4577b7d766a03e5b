"""Bodies of saved products, product views, reviews, contacts, search, recommendations,
tracking calls, storefront settings and storefront-error batches."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, Field, StringConstraints

from companion.schemas.commerce_fields import (
    Email,
    LongText,
    Name,
    OptionalName,
    Phone,
    RowId,
    WireTime,
)
from companion.schemas.read import ProductCard

SessionToken = Annotated[
    str | None,
    StringConstraints(max_length=100, pattern=r"^[A-Za-z0-9_.\-]*$"),
]


class ReviewedEntity(StrEnum):
    PRODUCT = "product"
    ARTICLE = "article"


class ViewedEntity(StrEnum):
    PRODUCT = "product"
    CATEGORY = "category"
    COLLECTION = "collection"
    ARTICLE = "article"
    CMS_PAGE = "cms_page"


class ContentEntity(StrEnum):
    ARTICLE = "article"
    CMS_PAGE = "cms_page"


class ProductRefIn(BaseModel):
    product_id: RowId


class SavedProductOut(BaseModel):
    product_id: int
    saved_at: WireTime
    product: ProductCard | None = Field(description="Null once the product is unpublished")


class ProductViewOut(BaseModel):
    id: int
    product_id: int
    viewed_at: WireTime
    product: ProductCard | None


class ReviewIn(BaseModel):
    entity_type: ReviewedEntity
    entity_id: RowId
    rating: int = Field(ge=1, le=5)
    title: OptionalName = None
    content: LongText


class ReviewOut(BaseModel):
    id: int
    entity_type: ReviewedEntity
    entity_id: int
    rating: int
    title: str | None
    content: str = Field(description="Plain text: escape it when rendering")
    author_name: str
    created_at: WireTime


class ContactIn(BaseModel):
    name: Name
    email: Email
    phone: Phone = None
    subject: OptionalName = None
    message: LongText


class CustomerContactIn(BaseModel):
    """From a logged-in customer: name and e-mail default to the account's."""

    name: Name | None = None
    email: Email | None = None
    phone: Phone = None
    subject: OptionalName = None
    message: LongText


class ContactOut(BaseModel):
    id: int
    name: str
    email: str
    phone: str | None
    subject: str | None
    message: str
    status: str
    created_at: WireTime


class ContentHit(BaseModel):
    entity_type: ContentEntity
    id: int
    title: str
    slug: str
    url: str | None = Field(description="Articles: /bai-viet/<slug>; pages: their url or null")
    excerpt: str | None
    updated_at: WireTime


class RecommendationViewIn(BaseModel):
    product_id: RowId
    session_token: SessionToken = Field(None, description="Anonymous visitor id, if any")


class EntityViewIn(BaseModel):
    entity_type: ViewedEntity
    entity_id: RowId
    session_token: SessionToken = None


class BannerClickIn(BaseModel):
    session_token: SessionToken = None


class StorefrontErrorIn(BaseModel):
    status: int = Field(ge=400, le=599)
    path: Annotated[str, StringConstraints(min_length=1, max_length=2000, pattern=r"^[^\x00]*$")]
    method: Annotated[str, StringConstraints(max_length=10, pattern=r"^[A-Za-z]*$")] | None = None
    message: Annotated[str, StringConstraints(max_length=2000, pattern=r"^[^\x00]*$")] | None = None
    occurred_at: Annotated[str, StringConstraints(max_length=40)] | None = Field(
        None, description="UTC; outside the last 24 hours (or in the future): the receive time"
    )


class StorefrontErrorBatch(BaseModel):
    events: list[StorefrontErrorIn] = Field(min_length=1, max_length=50)


class StorefrontErrorsOut(BaseModel):
    accepted: int
    adjusted: int = Field(description="Events whose occurred_at was replaced by the receive time")


class StorefrontSettingsOut(BaseModel):
    store_id: int
    name: str
    currency_code: str
    locale: str
    cart_cookie: str = Field(description="Cookie holding the cart token (shared by both engines)")
    customer_cookie: str = Field(description="httpOnly cookie holding the customer JWT")
    payment_methods: list[str] = Field(description="Codes accepted, cod first")
    reviews_enabled: bool
    points_enabled: bool
