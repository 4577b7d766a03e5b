"""schema.org JSON-LD for a page, as plain dicts: pure, no I/O.

Built in Python rather than in templates so every value is typed and escaped once (by the
``jsonld`` filter of render.py) and so tests can read the data without parsing HTML.

- home: Organization (name, url, logo, contact, sameAs) and WebSite;
- product: Product with an Offer in VND of the variant the page shows (the first in stock)
  when it has a price above zero (none otherwise); no ``url`` on either, the page's canonical
  link says it;
- article: Article (headline, dates, image, author, publisher);
- every page below a linkable crumb: BreadcrumbList of the linkable crumbs below the home page,
  positions 1..n (search engines start a trail at the site's own address).

A page writes them as one ``@graph`` (``graph``): one script element and one ``@context``.
"""

from __future__ import annotations

from datetime import UTC, datetime

from generator.crawl.pack import product_image_urls, product_text
from generator.model import Article, Product, ProductCard, Store, Variant
from generator.plain_text import shorten
from generator.plan.site_plan import HOME_PATH, Page, SitePlan
from generator.render.buying import first_choice
from generator.render.drawn import paid_now

JsonObject = dict[str, object]

SCHEMA = "https://schema.org"
IN_STOCK = "https://schema.org/InStock"
OUT_OF_STOCK = "https://schema.org/OutOfStock"
HEADLINE_LENGTH = 110
DESCRIPTION_LENGTH = 500


def structured_data(plan: SitePlan, page: Page) -> list[JsonObject]:
    """The JSON-LD objects of ``page``, in the order they appear in the head."""
    found: list[JsonObject] = []
    subject = page.subject
    if page.kind == "home":
        found += [organization(plan), website(plan)]
    elif isinstance(subject, Product):
        found.append(product(plan, page, subject))
    elif isinstance(subject, Article):
        found.append(article(plan, page, subject))
    trail = breadcrumb_list(plan, page)
    if trail is not None:
        found.append(trail)
    return found


def graph(found: list[JsonObject]) -> JsonObject | None:
    """The page's objects as one JSON-LD document (the object alone when there is one)."""
    if len(found) < 2:
        return found[0] if found else None
    nodes = [{k: v for k, v in data.items() if k != "@context"} for data in found]
    return {"@context": SCHEMA, "@graph": nodes}


def organization(plan: SitePlan) -> JsonObject:
    store = plan.site.store
    data: JsonObject = {
        "@context": SCHEMA,
        "@type": "Organization",
        "name": store.name,
        "url": plan.absolute("/"),
    }
    logo = _absolute_image(plan, store.logo_url)
    if logo:
        data["logo"] = logo
    if store.email:
        data["email"] = store.email
    if store.phone:
        data["telephone"] = store.phone
    if store.address:
        data["address"] = store.address
    same_as = [url for _network, url in store.social if plan.links.href(url)]
    if same_as:
        data["sameAs"] = same_as
    return data


def website(plan: SitePlan) -> JsonObject:
    return {
        "@context": SCHEMA,
        "@type": "WebSite",
        "name": plan.site.store.name,
        "url": plan.absolute("/"),
        "inLanguage": "vi",
    }


def product(plan: SitePlan, page: Page, item: Product) -> JsonObject:
    card = item.card
    data: JsonObject = {"@context": SCHEMA, "@type": "Product", "name": card.name}
    images = [_absolute_image(plan, url) for url in product_image_urls(item)]
    if any(images):
        data["image"] = [i for i in images if i]
    description = product_text(item) or (item.meta_description or "")
    if description:
        data["description"] = shorten(description, DESCRIPTION_LENGTH)
    if item.sku:
        data["sku"] = item.sku
    if item.brand:
        data["brand"] = {"@type": "Brand", "name": item.brand.name}
    # The offer the page shows (``buying.first_choice``): a search engine compares the two, and
    # the product's own price may be a variant's that is sold out.
    chosen = first_choice(item.variants)
    shown: Variant | ProductCard = (
        chosen if chosen is not None and paid_now(chosen) is not None else card
    )
    price, in_stock = paid_now(shown), shown.in_stock
    if price is not None and price > 0:
        data["offers"] = {
            "@type": "Offer",
            "price": price,
            "priceCurrency": "VND",
            "availability": IN_STOCK if in_stock else OUT_OF_STOCK,
        }
    return data


def article(plan: SitePlan, page: Page, item: Article) -> JsonObject:
    summary = item.summary
    data: JsonObject = {
        "@context": SCHEMA,
        "@type": "Article",
        "headline": shorten(summary.title, HEADLINE_LENGTH),
        "url": _canonical(plan, page),
        "mainEntityOfPage": _canonical(plan, page),
        "inLanguage": "vi",
    }
    if summary.published_at:
        data["datePublished"] = _instant(summary.published_at)
    modified = summary.updated_at or summary.published_at
    if modified:
        data["dateModified"] = _instant(modified)
    image = _absolute_image(plan, summary.cover_image_url)
    if image:
        data["image"] = [image]
    publisher = _publisher(plan, plan.site.store)
    data["author"] = (
        {"@type": "Person", "name": item.author_name} if item.author_name else publisher
    )
    data["publisher"] = publisher
    return data


def breadcrumb_list(plan: SitePlan, page: Page) -> JsonObject | None:
    """The linkable crumbs below the home page, numbered 1..n; the last is this page, with no
    ``item`` url (search engines take the page's own). None for a page with no crumb above it
    but the home page: search engines show the site's address as a trail's root, so a list
    holding the home page (or only this page) tells them nothing.

    A crumb shown as plain text (null url, no page) is left out here: search engines require
    an ``item`` url on every entry but the last, and the trail stays in order without it.
    """
    trail: list[tuple[str, str]] = []
    for crumb in page.breadcrumb[:-1]:
        href = None if crumb.url == HOME_PATH else plan.links.href(crumb.url)
        if href:
            trail.append((crumb.name, plan.absolute(href) if href.startswith("/") else href))
    if not trail:
        return None
    items: list[JsonObject] = [
        {"@type": "ListItem", "position": position, "name": name, "item": url}
        for position, (name, url) in enumerate(trail, start=1)
    ]
    last = {"@type": "ListItem", "position": len(items) + 1, "name": page.breadcrumb[-1].name}
    items.append(last)
    return {"@context": SCHEMA, "@type": "BreadcrumbList", "itemListElement": items}


def _publisher(plan: SitePlan, store: Store) -> JsonObject:
    data: JsonObject = {"@type": "Organization", "name": store.name, "url": plan.absolute("/")}
    logo = _absolute_image(plan, store.logo_url)
    if logo:
        data["logo"] = {"@type": "ImageObject", "url": logo}
    return data


def _canonical(plan: SitePlan, page: Page) -> str:
    return plan.absolute(page.canonical_path or page.path)


def _absolute_image(plan: SitePlan, url: str | None) -> str | None:
    """Images are absolute urls from the API, or paths on the site itself."""
    if not url:
        return None
    if url.startswith(("https://", "http://")):
        return url
    if url.startswith("/") and not url.startswith("//"):
        return plan.absolute(url)
    return None


def _instant(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds")
