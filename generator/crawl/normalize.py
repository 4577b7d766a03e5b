"""Wire values to model values: pure functions, no I/O.

Every value from the API passes through here exactly once, so nothing downstream sees a money
string, a naive timestamp, an empty-string url or a missing optional field:

- money (JSON number or string, the spec allows both) -> ``int`` VND or ``None``;
- timestamps (UTC without Z; also tolerated: Z, an offset, fractional seconds) -> aware UTC;
- url -> a usable path or ``None`` (null, empty or blank);
- category image -> ``cover_image_url``, else ``image_url``;
- one function per record, wire dict -> frozen dataclass of ``generator.model``.

The single-value readers (money, timestamp, url and the typed field reads) live in
``generator.crawl.wire_values`` and are re-exported here.

Optional fields may be missing or null and get defaults. A missing or unusable *required* field
(an id, a name) raises ``WireValueError`` naming the record and field; the crawler turns it into
an ``ApiPayloadError`` naming the endpoint. ``format_vnd`` is shared with the renderer.
"""

from __future__ import annotations

from collections.abc import Mapping

from generator.crawl.wire_values import (
    Wire,
    array,
    as_record,
    flag,
    int_array,
    int_or,
    name_of,
    opt_int,
    opt_str,
    req_int,
    req_str,
    show,
)
from generator.crawl.wire_values import WireValueError as WireValueError  # re-exported
from generator.crawl.wire_values import money as money  # re-exported
from generator.crawl.wire_values import timestamp as timestamp  # re-exported
from generator.crawl.wire_values import url as url  # re-exported
from generator.model import (
    Article,
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
    PaymentMethod,
    Product,
    ProductCard,
    Promotion,
    Store,
    Tag,
    Variant,
    shown_stock,
)
from generator.plain_text import visible_text

ENTITY_TYPES: tuple[EntityType, ...] = ("product", "category", "collection", "article", "cms_page")


def format_vnd(amount: int) -> str:
    """Vietnamese price format: 120000 -> '120.000 ₫' (dot thousands, non-breaking space)."""
    sign = "-" if amount < 0 else ""
    return f"{sign}{abs(amount):,}".replace(",", ".") + "\u00a0₫"


# --- derived values ------------------------------------------------------------------------------


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
    raise WireValueError(f"sitemap item: {show(item)} is neither a path nor an object")


def sitemap_entry(item: object) -> tuple[str | None, str | None]:
    """The path of one /sitemap/{section} item and what it says of the row's last change
    (``updated_at``, else ``lastmod``, as sent; None when it says nothing)."""
    changed = None
    if isinstance(item, Mapping):
        value = item.get("updated_at", item.get("lastmod"))
        changed = None if value is None else str(value)
    return sitemap_path(item), changed


def sitemap_sections(data: object) -> tuple[tuple[str, int | None], ...]:
    """(name, count) of every section in the /sitemap answer ``{sections: [{name, count}]}``;
    the count is None when the section gives none (a bare name) or a negative one."""
    sections = data.get("sections") if isinstance(data, Mapping) else data
    if not isinstance(sections, list):
        raise WireValueError("sections: missing or not an array")
    result: list[tuple[str, int | None]] = []
    for entry in sections:
        if isinstance(entry, str):
            result.append((entry, None))
            continue
        record = as_record(entry, "sitemap section")
        name = req_str(record, "name", "sitemap section")
        count = opt_int(record, "count", f"sitemap section {name}")
        result.append((name, None if count is None or count < 0 else count))
    return tuple(result)


def route_target(data: object) -> tuple[EntityType, int]:
    """(type, id) of a /routes/resolve answer."""
    record = as_record(data, "route")
    kind = req_str(record, "type", "route")
    if kind not in ENTITY_TYPES:
        raise WireValueError(f"route: type {kind!r} is not one of {', '.join(ENTITY_TYPES)}")
    return kind, req_int(record, "id", "route")


# --- records ----------------------------------------------------------------------------------


def product_card(data: object) -> ProductCard:
    record = as_record(data, "product")
    what = name_of("product", record)
    return ProductCard(
        id=req_int(record, "id", what),
        name=req_str(record, "name", what),
        slug=opt_str(record, "slug", what) or "",
        url=url(record.get("url"), f"{what}: url"),
        price=money(record.get("price"), f"{what}: price"),
        effective_price=money(record.get("effective_price"), f"{what}: effective_price"),
        compare_at_price=money(record.get("compare_at_price"), f"{what}: compare_at_price"),
        image_url=url(record.get("image_url"), f"{what}: image_url"),
        in_stock=flag(record, "in_stock", what, default=True),
        category_id=opt_int(record, "category_id", what),
        brand_id=opt_int(record, "brand_id", what),
        updated_at=timestamp(record.get("updated_at"), f"{what}: updated_at"),
    )


def product(
    data: object,
    *,
    variants: tuple[Variant, ...] = (),
    related: tuple[ProductCard, ...] = (),
) -> Product:
    """A product detail (every card field plus the detail fields)."""
    record = as_record(data, "product")
    what = name_of("product", record)
    card = product_card(record)
    brand_record = record.get("brand")
    brand = None
    if isinstance(brand_record, Mapping):
        brand = Brand(
            id=req_int(brand_record, "id", f"{what}: brand"),
            name=req_str(brand_record, "name", f"{what}: brand"),
        )
    category_ids = int_array(record, "category_ids", what)
    if not category_ids and card.category_id is not None:
        category_ids = (card.category_id,)
    description_html = opt_str(record, "description_html", what)
    return Product(
        card=card,
        description_html=description_html,
        images=_images(record.get("images"), what),
        category_ids=category_ids,
        brand=brand,
        sku=opt_str(record, "sku", what),
        meta_title=opt_str(record, "meta_title", what),
        meta_description=opt_str(record, "meta_description", what),
        published_at=timestamp(record.get("published_at"), f"{what}: published_at"),
        variants=variants,
        related=related,
        description_text=visible_text(description_html),
    )


def variant(data: object) -> Variant:
    record = as_record(data, "variant")
    what = name_of("variant", record)
    return Variant(
        id=req_int(record, "id", what),
        product_id=req_int(record, "product_id", what),
        sku=opt_str(record, "sku", what),
        name=opt_str(record, "name", what) or "",
        options=_pairs(record.get("options"), f"{what}: options"),
        price=money(record.get("price"), f"{what}: price"),
        effective_price=money(record.get("effective_price"), f"{what}: effective_price"),
        compare_at_price=money(record.get("compare_at_price"), f"{what}: compare_at_price"),
        in_stock=flag(record, "in_stock", what, default=True),
        stock=shown_stock(opt_int(record, "stock", what)),
        image_url=url(record.get("image_url"), f"{what}: image_url"),
    )


def category(data: object, *, children: tuple[Category, ...] | None = None) -> Category:
    """A category; its ``children`` from the record (as in /categories/tree) unless given."""
    record = as_record(data, "category")
    what = name_of("category", record)
    if children is None:
        raw_children = record.get("children")
        children = (
            tuple(category(child) for child in raw_children)
            if isinstance(raw_children, list)
            else ()
        )
    return Category(
        id=req_int(record, "id", what),
        parent_id=opt_int(record, "parent_id", what),
        name=req_str(record, "name", what),
        slug=opt_str(record, "slug", what) or "",
        url=url(record.get("url"), f"{what}: url"),
        description_html=opt_str(record, "description_html", what),
        image_url=category_image(record),
        product_count=int_or(record, "product_count", what),
        meta_title=opt_str(record, "meta_title", what),
        meta_description=opt_str(record, "meta_description", what),
        updated_at=timestamp(record.get("updated_at"), f"{what}: updated_at"),
        children=children,
    )


def crumb(data: object) -> Crumb:
    record = as_record(data, "breadcrumb item")
    what = name_of("breadcrumb item", record)
    return Crumb(
        id=req_int(record, "id", what),
        name=req_str(record, "name", what),
        url=url(record.get("url"), f"{what}: url"),
    )


def collection(data: object) -> Collection:
    record = as_record(data, "collection")
    what = name_of("collection", record)
    return Collection(
        id=req_int(record, "id", what),
        name=req_str(record, "name", what),
        slug=opt_str(record, "slug", what) or "",
        description_html=opt_str(record, "description_html", what),
        image_url=url(record.get("image_url"), f"{what}: image_url")
        or url(record.get("cover_image_url"), f"{what}: cover_image_url"),
        updated_at=timestamp(record.get("updated_at"), f"{what}: updated_at"),
    )


def article_category(data: object) -> ArticleCategory:
    record = as_record(data, "article category")
    what = name_of("article category", record)
    return ArticleCategory(
        id=req_int(record, "id", what),
        name=req_str(record, "name", what),
        slug=opt_str(record, "slug", what) or "",
    )


def tag(data: object) -> Tag:
    record = as_record(data, "tag")
    name = req_str(record, "name", "tag")
    return Tag(
        name=name,
        slug=opt_str(record, "slug", f"tag {name!r}") or "",
        article_count=int_or(record, "article_count", f"tag {name!r}"),
    )


def article_summary(data: object) -> ArticleSummary:
    record = as_record(data, "article")
    what = name_of("article", record)
    slug = req_str(record, "slug", what)
    return ArticleSummary(
        id=req_int(record, "id", what),
        title=req_str(record, "title", what),
        slug=slug,
        excerpt=opt_str(record, "excerpt", what),
        cover_image_url=url(record.get("cover_image_url"), f"{what}: cover_image_url")
        or url(record.get("image_url"), f"{what}: image_url"),
        published_at=timestamp(record.get("published_at"), f"{what}: published_at"),
        updated_at=timestamp(record.get("updated_at"), f"{what}: updated_at"),
        categories=tuple(article_category(item) for item in array(record, "categories", what)),
        tags=tuple(tag(item) for item in array(record, "tags", what)),
    )


def article(data: object, *, related: tuple[ArticleSummary, ...] = ()) -> Article:
    """An article detail (/articles/by-slug/{slug}): the list fields plus content."""
    record = as_record(data, "article")
    what = name_of("article", record)
    return Article(
        summary=article_summary(record),
        content_html=opt_str(record, "content_html", what),
        author_name=opt_str(record, "author_name", what),
        meta_title=opt_str(record, "meta_title", what),
        meta_description=opt_str(record, "meta_description", what),
        related=related,
    )


def cms_page(data: object) -> CmsPage:
    record = as_record(data, "page")
    what = name_of("page", record)
    return CmsPage(
        id=req_int(record, "id", what),
        title=req_str(record, "title", what),
        slug=opt_str(record, "slug", what) or "",
        url=url(record.get("url"), f"{what}: url"),
        content_html=opt_str(record, "content_html", what),
        meta_title=opt_str(record, "meta_title", what),
        meta_description=opt_str(record, "meta_description", what),
        updated_at=timestamp(record.get("updated_at"), f"{what}: updated_at"),
    )


def banner(data: object) -> Banner:
    record = as_record(data, "banner")
    what = name_of("banner", record)
    return Banner(
        id=req_int(record, "id", what),
        title=opt_str(record, "title", what) or "",
        image_url=url(record.get("image_url"), f"{what}: image_url"),
        link_url=url(record.get("link_url"), f"{what}: link_url"),
        location_code=opt_str(record, "location_code", what) or "",
        position=int_or(record, "position", what),
        starts_at=timestamp(record.get("starts_at"), f"{what}: starts_at"),
        ends_at=timestamp(record.get("ends_at"), f"{what}: ends_at"),
    )


def menu_item(data: object) -> MenuItem:
    record = as_record(data, "menu item")
    label = req_str(record, "label", "menu item")
    what = f"menu item {label!r}"
    return MenuItem(
        label=label,
        url=url(record.get("url"), f"{what}: url"),
        children=tuple(menu_item(child) for child in array(record, "children", what)),
    )


def menu(data: object) -> Menu:
    record = as_record(data, "menu")
    what = name_of("menu", record)
    return Menu(
        id=req_int(record, "id", what),
        code=req_str(record, "code", what),
        name=opt_str(record, "name", what) or "",
        items=tuple(menu_item(item) for item in array(record, "items", what)),
    )


def flash_sale(data: object, *, products: tuple[ProductCard, ...] = ()) -> FlashSale:
    record = as_record(data, "flash sale")
    what = name_of("flash sale", record)
    return FlashSale(
        id=req_int(record, "id", what),
        name=opt_str(record, "name", what) or "",
        starts_at=timestamp(record.get("starts_at"), f"{what}: starts_at"),
        ends_at=timestamp(record.get("ends_at"), f"{what}: ends_at"),
        status=opt_str(record, "status", what) or "running",
        products=products,
    )


def payment_method(data: object) -> PaymentMethod:
    record = as_record(data, "payment method")
    return PaymentMethod(
        code=req_str(record, "code", "payment method"),
        name=req_str(record, "name", "payment method"),
    )


def promotion(data: object) -> Promotion:
    record = as_record(data, "promotion")
    what = name_of("promotion", record)
    return Promotion(
        id=req_int(record, "id", what),
        text=req_str(record, "text", what),
        link_url=url(record.get("link_url"), f"{what}: link_url"),
    )


def custom_variable(data: object) -> tuple[str, str]:
    """(key, value) of one custom variable; a non-string value keeps its JSON text form."""
    record = as_record(data, "custom variable")
    key = req_str(record, "key", "custom variable")
    value = record.get("value")
    if value is None:
        return key, ""
    if isinstance(value, bool):
        return key, "true" if value else "false"
    return key, value if isinstance(value, str) else str(value)


def store(data: object) -> Store:
    record = as_record(data, "store")
    return Store(
        name=req_str(record, "name", "store"),
        logo_url=url(record.get("logo_url"), "store: logo_url"),
        email=opt_str(record, "email", "store"),
        phone=opt_str(record, "phone", "store"),
        address=opt_str(record, "address", "store"),
        social=_social(record.get("social")),
        currency_code=opt_str(record, "currency_code", "store") or "VND",
        locale=opt_str(record, "locale", "store") or "vi",
    )


# --- nested values -------------------------------------------------------------------------------


def _images(value: object, what: str) -> tuple[Image, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise WireValueError(f"{what}: images: {show(value)} is not an array")
    images: list[Image] = []
    for item in value:
        if isinstance(item, str):
            image_url, alt = url(item, f"{what}: images"), None
        else:
            image = as_record(item, f"{what}: image")
            image_url = url(image.get("url"), f"{what}: image url")
            alt = opt_str(image, "alt", f"{what}: image")
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
            entry = as_record(item, what)
            name = req_str(entry, "name", what)
            pairs.append((name, opt_str(entry, "value", what) or ""))
        return tuple(pairs)
    raise WireValueError(f"{what}: {show(value)} is not an object")


def _social(value: object) -> tuple[tuple[str, str], ...]:
    """{network: url} (or [{network, url}]); links that are null or empty are left out."""
    if value is None:
        return ()
    entries: list[tuple[object, object]]
    if isinstance(value, Mapping):
        entries = list(value.items())
    elif isinstance(value, list):
        records = [as_record(item, "store: social") for item in value]
        entries = [(item.get("network"), item.get("url")) for item in records]
    else:
        raise WireValueError(f"store: social: {show(value)} is not an object")
    result: list[tuple[str, str]] = []
    for network, link in entries:
        link_url = url(link, f"store: social {network}")
        if isinstance(network, str) and network and link_url is not None:
            result.append((network, link_url))
    return tuple(result)
