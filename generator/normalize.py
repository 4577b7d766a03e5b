"""Wire values to model values: pure functions, no I/O.

Every value from the API passes through here exactly once, so nothing downstream sees a money
string, a naive timestamp, an empty-string url or a missing optional field:

- money (JSON number or string, the spec allows both) -> ``int`` VND or ``None``;
- timestamps (UTC without Z; also tolerated: Z, an offset, fractional seconds) -> aware UTC;
- url -> a usable path or ``None`` (null, empty or blank);
- category image -> ``cover_image_url``, else ``image_url``;
- one function per record, wire dict -> frozen dataclass of ``generator.model``.

Optional fields may be missing or null and get defaults. A missing or unusable *required* field
(an id, a name) raises ``WireValueError`` naming the record and field; the crawler turns it into
an ``ApiPayloadError`` naming the endpoint. ``format_vnd`` is shared with the renderer.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from datetime import UTC, datetime
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from generator.model import (
    Article as ArticleDetail,
)
from generator.model import (
    ArticleCategory,
    ArticleSummary,
    Banner,
    Brand,
    Category,
    CmsPage,
    Collection,
    Crumb,
    EntityType,
    FlashSale,
    Image,
    Menu,
    MenuItem,
    Product,
    ProductCard,
    Promotion,
    Store,
    Tag,
    Variant,
)

#: One decoded JSON object from the API.
Wire = Mapping[str, object]

ENTITY_TYPES: tuple[EntityType, ...] = ("product", "category", "collection", "article", "cms_page")


class WireValueError(ValueError):
    """A value from the API that the spec does not allow where it was found."""


def format_vnd(amount: int) -> str:
    """Vietnamese price format: 120000 -> '120.000 ₫' (dot thousands, non-breaking space)."""
    sign = "-" if amount < 0 else ""
    return f"{sign}{abs(amount):,}".replace(",", ".") + "\u00a0₫"


# --- values -----------------------------------------------------------------------------------


def money(value: object, field: str) -> int | None:
    """Integer VND from a JSON number or string; None stays None (no price: show nothing).

    Accepts 120000, 120000.0, "120000", "120000.00", " 120000 "; a fraction of a dong is
    rounded half up. Anything else (words, booleans, NaN) is a ``WireValueError``.
    """
    if value is None:
        return None
    if isinstance(value, bool):
        raise WireValueError(f"{field}: a boolean is not a money amount")
    if isinstance(value, int):
        return value
    if isinstance(value, float | str):
        text = str(value).strip()
        if text == "":
            return None
        try:
            amount = Decimal(text)
        except InvalidOperation:
            raise WireValueError(f"{field}: {_show(value)} is not a money amount") from None
        if not amount.is_finite():
            raise WireValueError(f"{field}: {_show(value)} is not a money amount")
        return int(amount.quantize(Decimal(1), rounding=ROUND_HALF_UP))
    raise WireValueError(f"{field}: {_show(value)} is not a money amount")


def timestamp(value: object, field: str) -> datetime | None:
    """An aware UTC datetime. A timestamp without offset is UTC (the spec's wire form), never
    local time; one with Z or an offset is converted. Null or empty: None."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise WireValueError(f"{field}: {_show(value)} is not a timestamp")
    text = value.strip()
    if text == "":
        return None
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise WireValueError(f"{field}: {_show(value)} is not an ISO 8601 timestamp") from None
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def url(value: object, field: str = "url") -> str | None:
    """A usable path (or absolute link) or None: null, empty and blank strings are None.

    Kept as the API gave it apart from surrounding blanks and Unicode NFC, so two spellings of
    one Vietnamese path compare equal. Never built from a slug.
    """
    if value is None:
        return None
    if not isinstance(value, str):
        raise WireValueError(f"{field}: {_show(value)} is not a url")
    text = value.strip()
    return unicodedata.normalize("NFC", text) if text else None


def category_image(record: Wire) -> str | None:
    """cover_image_url, or image_url when it is absent: one column under two names."""
    return url(record.get("cover_image_url"), "cover_image_url") or url(
        record.get("image_url"), "image_url"
    )


def sitemap_path(item: object) -> str | None:
    """The path of one /sitemap/{section} item: ``{path, ...}`` or a bare string."""
    if isinstance(item, str):
        return url(item, "path")
    if isinstance(item, Mapping):
        return url(item.get("path", item.get("url")), "path")
    raise WireValueError(f"sitemap item: {_show(item)} is neither a path nor an object")


def sitemap_sections(data: object) -> tuple[tuple[str, int], ...]:
    """(name, count) of every section in the /sitemap answer ``{sections: [{name, count}]}``."""
    sections = data.get("sections") if isinstance(data, Mapping) else data
    if not isinstance(sections, list):
        raise WireValueError("sections: missing or not an array")
    result: list[tuple[str, int]] = []
    for entry in sections:
        if isinstance(entry, str):
            result.append((entry, 0))
            continue
        record = _record(entry, "sitemap section")
        name = _req_str(record, "name", "sitemap section")
        result.append((name, _int(record, "count", f"sitemap section {name}")))
    return tuple(result)


def route_target(data: object) -> tuple[EntityType, int]:
    """(type, id) of a /routes/resolve answer."""
    record = _record(data, "route")
    kind = _req_str(record, "type", "route")
    if kind not in ENTITY_TYPES:
        raise WireValueError(f"route: type {kind!r} is not one of {', '.join(ENTITY_TYPES)}")
    return kind, _req_int(record, "id", "route")


# --- records ----------------------------------------------------------------------------------


def product_card(data: object) -> ProductCard:
    record = _record(data, "product")
    what = _what("product", record)
    return ProductCard(
        id=_req_int(record, "id", what),
        name=_req_str(record, "name", what),
        slug=_str(record, "slug", what) or "",
        url=url(record.get("url"), f"{what}: url"),
        price=money(record.get("price"), f"{what}: price"),
        effective_price=money(record.get("effective_price"), f"{what}: effective_price"),
        compare_at_price=money(record.get("compare_at_price"), f"{what}: compare_at_price"),
        image_url=url(record.get("image_url"), f"{what}: image_url"),
        in_stock=_bool(record, "in_stock", what, default=True),
        category_id=_opt_int(record, "category_id", what),
        brand_id=_opt_int(record, "brand_id", what),
        updated_at=timestamp(record.get("updated_at"), f"{what}: updated_at"),
    )


def product(
    data: object,
    *,
    variants: tuple[Variant, ...] = (),
    related: tuple[ProductCard, ...] = (),
) -> Product:
    """A product detail (every card field plus the detail fields)."""
    record = _record(data, "product")
    what = _what("product", record)
    card = product_card(record)
    brand_record = record.get("brand")
    brand = None
    if isinstance(brand_record, Mapping):
        brand = Brand(
            id=_req_int(brand_record, "id", f"{what}: brand"),
            name=_req_str(brand_record, "name", f"{what}: brand"),
        )
    category_ids = _int_list(record, "category_ids", what)
    if not category_ids and card.category_id is not None:
        category_ids = (card.category_id,)
    return Product(
        card=card,
        description_html=_str(record, "description_html", what),
        images=_images(record.get("images"), what),
        category_ids=category_ids,
        brand=brand,
        sku=_str(record, "sku", what),
        meta_title=_str(record, "meta_title", what),
        meta_description=_str(record, "meta_description", what),
        published_at=timestamp(record.get("published_at"), f"{what}: published_at"),
        variants=variants,
        related=related,
    )


def variant(data: object) -> Variant:
    record = _record(data, "variant")
    what = _what("variant", record)
    return Variant(
        id=_req_int(record, "id", what),
        product_id=_req_int(record, "product_id", what),
        sku=_str(record, "sku", what),
        name=_str(record, "name", what) or "",
        options=_pairs(record.get("options"), f"{what}: options"),
        price=money(record.get("price"), f"{what}: price"),
        effective_price=money(record.get("effective_price"), f"{what}: effective_price"),
        compare_at_price=money(record.get("compare_at_price"), f"{what}: compare_at_price"),
        in_stock=_bool(record, "in_stock", what, default=True),
        stock=_opt_int(record, "stock", what),
        image_url=url(record.get("image_url"), f"{what}: image_url"),
    )


def category(data: object, *, children: tuple[Category, ...] | None = None) -> Category:
    """A category; its ``children`` from the record (as in /categories/tree) unless given."""
    record = _record(data, "category")
    what = _what("category", record)
    if children is None:
        raw_children = record.get("children")
        children = (
            tuple(category(child) for child in raw_children)
            if isinstance(raw_children, list)
            else ()
        )
    return Category(
        id=_req_int(record, "id", what),
        parent_id=_opt_int(record, "parent_id", what),
        name=_req_str(record, "name", what),
        slug=_str(record, "slug", what) or "",
        url=url(record.get("url"), f"{what}: url"),
        description_html=_str(record, "description_html", what),
        image_url=category_image(record),
        product_count=_int(record, "product_count", what),
        meta_title=_str(record, "meta_title", what),
        meta_description=_str(record, "meta_description", what),
        updated_at=timestamp(record.get("updated_at"), f"{what}: updated_at"),
        children=children,
    )


def crumb(data: object) -> Crumb:
    record = _record(data, "breadcrumb item")
    what = _what("breadcrumb item", record)
    return Crumb(
        id=_req_int(record, "id", what),
        name=_req_str(record, "name", what),
        url=url(record.get("url"), f"{what}: url"),
    )


def collection(data: object) -> Collection:
    record = _record(data, "collection")
    what = _what("collection", record)
    return Collection(
        id=_req_int(record, "id", what),
        name=_req_str(record, "name", what),
        slug=_str(record, "slug", what) or "",
        description_html=_str(record, "description_html", what),
        image_url=url(record.get("image_url"), f"{what}: image_url")
        or url(record.get("cover_image_url"), f"{what}: cover_image_url"),
        updated_at=timestamp(record.get("updated_at"), f"{what}: updated_at"),
    )


def article_category(data: object) -> ArticleCategory:
    record = _record(data, "article category")
    what = _what("article category", record)
    return ArticleCategory(
        id=_req_int(record, "id", what),
        name=_req_str(record, "name", what),
        slug=_str(record, "slug", what) or "",
    )


def tag(data: object) -> Tag:
    record = _record(data, "tag")
    name = _req_str(record, "name", "tag")
    return Tag(
        name=name,
        slug=_str(record, "slug", f"tag {name!r}") or "",
        article_count=_int(record, "article_count", f"tag {name!r}"),
    )


def article_summary(data: object) -> ArticleSummary:
    record = _record(data, "article")
    what = _what("article", record)
    slug = _req_str(record, "slug", what)
    return ArticleSummary(
        id=_req_int(record, "id", what),
        title=_req_str(record, "title", what),
        slug=slug,
        excerpt=_str(record, "excerpt", what),
        cover_image_url=url(record.get("cover_image_url"), f"{what}: cover_image_url")
        or url(record.get("image_url"), f"{what}: image_url"),
        published_at=timestamp(record.get("published_at"), f"{what}: published_at"),
        updated_at=timestamp(record.get("updated_at"), f"{what}: updated_at"),
        categories=tuple(article_category(item) for item in _list(record, "categories", what)),
        tags=tuple(tag(item) for item in _list(record, "tags", what)),
    )


def article(data: object, *, related: tuple[ArticleSummary, ...] = ()) -> ArticleDetail:
    """An article detail (/articles/by-slug/{slug}): the list fields plus content."""
    record = _record(data, "article")
    what = _what("article", record)
    return ArticleDetail(
        summary=article_summary(record),
        content_html=_str(record, "content_html", what),
        author_name=_str(record, "author_name", what),
        meta_title=_str(record, "meta_title", what),
        meta_description=_str(record, "meta_description", what),
        related=related,
    )


def cms_page(data: object) -> CmsPage:
    record = _record(data, "page")
    what = _what("page", record)
    return CmsPage(
        id=_req_int(record, "id", what),
        title=_req_str(record, "title", what),
        slug=_str(record, "slug", what) or "",
        url=url(record.get("url"), f"{what}: url"),
        content_html=_str(record, "content_html", what),
        meta_title=_str(record, "meta_title", what),
        meta_description=_str(record, "meta_description", what),
        updated_at=timestamp(record.get("updated_at"), f"{what}: updated_at"),
    )


def banner(data: object) -> Banner:
    record = _record(data, "banner")
    what = _what("banner", record)
    return Banner(
        id=_req_int(record, "id", what),
        title=_str(record, "title", what) or "",
        image_url=url(record.get("image_url"), f"{what}: image_url"),
        link_url=url(record.get("link_url"), f"{what}: link_url"),
        location_code=_str(record, "location_code", what) or "",
        position=_int(record, "position", what),
        starts_at=timestamp(record.get("starts_at"), f"{what}: starts_at"),
        ends_at=timestamp(record.get("ends_at"), f"{what}: ends_at"),
    )


def menu_item(data: object) -> MenuItem:
    record = _record(data, "menu item")
    label = _req_str(record, "label", "menu item")
    what = f"menu item {label!r}"
    return MenuItem(
        label=label,
        url=url(record.get("url"), f"{what}: url"),
        children=tuple(menu_item(child) for child in _list(record, "children", what)),
    )


def menu(data: object) -> Menu:
    record = _record(data, "menu")
    what = _what("menu", record)
    return Menu(
        id=_req_int(record, "id", what),
        code=_req_str(record, "code", what),
        name=_str(record, "name", what) or "",
        items=tuple(menu_item(item) for item in _list(record, "items", what)),
    )


def flash_sale(data: object, *, products: tuple[ProductCard, ...] = ()) -> FlashSale:
    record = _record(data, "flash sale")
    what = _what("flash sale", record)
    return FlashSale(
        id=_req_int(record, "id", what),
        name=_str(record, "name", what) or "",
        starts_at=timestamp(record.get("starts_at"), f"{what}: starts_at"),
        ends_at=timestamp(record.get("ends_at"), f"{what}: ends_at"),
        status=_str(record, "status", what) or "running",
        products=products,
    )


def promotion(data: object) -> Promotion:
    record = _record(data, "promotion")
    what = _what("promotion", record)
    return Promotion(
        id=_req_int(record, "id", what),
        text=_req_str(record, "text", what),
        link_url=url(record.get("link_url"), f"{what}: link_url"),
    )


def custom_variable(data: object) -> tuple[str, str]:
    """(key, value) of one custom variable; a non-string value keeps its JSON text form."""
    record = _record(data, "custom variable")
    key = _req_str(record, "key", "custom variable")
    value = record.get("value")
    if value is None:
        return key, ""
    if isinstance(value, bool):
        return key, "true" if value else "false"
    return key, value if isinstance(value, str) else str(value)


def store(data: object) -> Store:
    record = _record(data, "store")
    return Store(
        name=_req_str(record, "name", "store"),
        logo_url=url(record.get("logo_url"), "store: logo_url"),
        email=_str(record, "email", "store"),
        phone=_str(record, "phone", "store"),
        address=_str(record, "address", "store"),
        social=_social(record.get("social")),
        currency_code=_str(record, "currency_code", "store") or "VND",
        locale=_str(record, "locale", "store") or "vi",
    )


# --- field readers ----------------------------------------------------------------------------


def _record(data: object, what: str) -> Wire:
    if not isinstance(data, Mapping):
        raise WireValueError(f"{what}: expected an object, got {_show(data)}")
    return data


def _what(kind: str, record: Wire) -> str:
    """How messages name a record: its kind and id when it has a usable one."""
    ident = record.get("id")
    if isinstance(ident, int | str) and not isinstance(ident, bool):
        return f"{kind} {ident}"
    return kind


def _req_int(record: Wire, key: str, what: str) -> int:
    value = _opt_int(record, key, what)
    if value is None:
        raise WireValueError(f"{what}: required field {key} is missing")
    return value


def _opt_int(record: Wire, key: str, what: str) -> int | None:
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
    raise WireValueError(f"{what}: {key}: {_show(value)} is not an integer")


def _int(record: Wire, key: str, what: str, default: int = 0) -> int:
    value = _opt_int(record, key, what)
    return default if value is None else value


def _req_str(record: Wire, key: str, what: str) -> str:
    value = _str(record, key, what)
    if value is None or value.strip() == "":
        raise WireValueError(f"{what}: required field {key} is missing")
    return value


def _str(record: Wire, key: str, what: str) -> str | None:
    value = record.get(key)
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    raise WireValueError(f"{what}: {key}: {_show(value)} is not text")


def _bool(record: Wire, key: str, what: str, *, default: bool) -> bool:
    value = record.get(key)
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    raise WireValueError(f"{what}: {key}: {_show(value)} is not a boolean")


def _list(record: Wire, key: str, what: str) -> list[object]:
    value = record.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise WireValueError(f"{what}: {key}: {_show(value)} is not an array")
    return value


def _int_list(record: Wire, key: str, what: str) -> tuple[int, ...]:
    values = _list(record, key, what)
    return tuple(_req_int({key: item}, key, what) for item in values)


def _images(value: object, what: str) -> tuple[Image, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise WireValueError(f"{what}: images: {_show(value)} is not an array")
    images: list[Image] = []
    for item in value:
        if isinstance(item, str):
            image_url, alt = url(item, f"{what}: images"), None
        else:
            image = _record(item, f"{what}: image")
            image_url = url(image.get("url"), f"{what}: image url")
            alt = _str(image, "alt", f"{what}: image")
        if image_url is not None:
            images.append(Image(url=image_url, alt=alt))
    return tuple(images)


def _pairs(value: object, what: str) -> tuple[tuple[str, str], ...]:
    """{name: value} (or [{name, value}]) as ((name, value), ...) in wire order."""
    if value is None:
        return ()
    if isinstance(value, Mapping):
        return tuple((str(k), "" if v is None else str(v)) for k, v in value.items())
    if isinstance(value, list):
        pairs: list[tuple[str, str]] = []
        for item in value:
            entry = _record(item, what)
            name = _req_str(entry, "name", what)
            pairs.append((name, _str(entry, "value", what) or ""))
        return tuple(pairs)
    raise WireValueError(f"{what}: {_show(value)} is not an object")


def _social(value: object) -> tuple[tuple[str, str], ...]:
    """{network: url} (or [{network, url}]); links that are null or empty are left out."""
    if value is None:
        return ()
    entries: list[tuple[object, object]]
    if isinstance(value, Mapping):
        entries = list(value.items())
    elif isinstance(value, list):
        records = [_record(item, "store: social") for item in value]
        entries = [(item.get("network"), item.get("url")) for item in records]
    else:
        raise WireValueError(f"store: social: {_show(value)} is not an object")
    result: list[tuple[str, str]] = []
    for network, link in entries:
        link_url = url(link, f"store: social {network}")
        if isinstance(network, str) and network and link_url is not None:
            result.append((network, link_url))
    return tuple(result)


def _show(value: object) -> str:
    """A short, safe rendering of a wire value for a one-line message."""
    text = repr(value)
    return text if len(text) <= 60 else text[:59] + "…"
