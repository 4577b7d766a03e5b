"""A small hand-built store that exercises every rendering rule.

It covers: null urls (a product, a category, a CMS page, menu items), a null price, names with
``<script>`` and ``&`` (to prove escaping) beside trusted ``*_html`` fields, custom paths to a
collection, a CMS page and a url-less product, a dead path in a menu and a banner, non-ASCII urls
given percent-encoded and given raw in NFD, unsafe link schemes, and an article whose related
article is not in the catalog.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import UTC, datetime

from generator.crawl.pack import pack, unpack
from generator.model import (
    Article,
    ArticleCategory,
    ArticleSummary,
    Banner,
    Brand,
    Catalog,
    Category,
    CategoryPage,
    CmsPage,
    Collection,
    CollectionPage,
    Crumb,
    FlashSale,
    Image,
    Menu,
    MenuItem,
    PaymentMethod,
    Product,
    ProductCard,
    Promotion,
    SiteContext,
    Store,
    Tag,
    Variant,
)

SITE_URL = "https://shop.example.vn"
SCRIPT_NAME = "Áo thun <script>alert('x')</script> & quần"
# "/quần-jean" decomposed (NFD): the build must write and link it in NFC.
NFD_JEAN_PATH = "/qua\u0302\u0300n-jean"
DEAD_PATH = "/trang-cu"


def at(day: int, hour: int = 8) -> datetime:
    return datetime(2026, 11, day, hour, 30, tzinfo=UTC)


def card(
    id: int,
    name: str,
    url: str | None,
    *,
    price: int | None,
    effective: int | None = None,
    compare_at: int | None = None,
    in_stock: bool = True,
    category_id: int | None = 10,
    image: str | None = None,
) -> ProductCard:
    return ProductCard(
        id=id,
        name=name,
        slug=f"product-{id}",
        url=url,
        price=price,
        effective_price=effective if effective is not None else price,
        compare_at_price=compare_at,
        image_url=image or f"https://cdn.example.vn/p/{id}.jpg",
        in_stock=in_stock,
        category_id=category_id,
        brand_id=None,
        updated_at=at(id),
    )


SHIRT = card(1, SCRIPT_NAME, "/%C3%A1o-thun", price=150000, effective=120000, compare_at=180000)
JEAN = card(2, "Quần jean", NFD_JEAN_PATH, price=None, in_stock=False, category_id=11)
CAP = card(3, "Mũ lưỡi trai", None, price=50000)

AO = Category(
    id=10,
    parent_id=1,
    name="Áo",
    slug="ao",
    url="/thoi-trang/ao",
    description_html="<p>Áo <em>mùa hè</em></p>",
    image_url=None,
    product_count=2,
    meta_title=None,
    meta_description=None,
    updated_at=at(5),
)
QUAN = Category(
    id=11,
    parent_id=1,
    name="Quần",
    slug="quan",
    url=None,
    description_html=None,
    image_url=None,
    product_count=1,
    meta_title=None,
    meta_description=None,
    updated_at=at(5),
)
THOI_TRANG = Category(
    id=1,
    parent_id=None,
    name="Thời trang",
    slug="thoi-trang",
    url="/thoi-trang",
    description_html="<p>Mọi thứ về <strong>thời trang</strong>.</p>",
    image_url="https://cdn.example.vn/c/1.jpg",
    product_count=3,
    meta_title="Thời trang nam nữ",
    meta_description="Thời trang nam nữ chính hãng, giá tốt.",
    updated_at=at(4),
    children=(AO, QUAN),
)


def small_catalog() -> Catalog:
    store = Store(
        name="Cửa hàng Mẫu & Co",
        logo_url="https://cdn.example.vn/logo.png",
        email="lienhe@example.vn",
        phone="0901 234 567",
        address="12 Lê Lợi, Quận 1, TP. Hồ Chí Minh",
        social=(("facebook", "https://facebook.com/cuahangmau"), ("zalo", "javascript:alert(1)")),
        currency_code="VND",
        locale="vi",
    )
    menus = (
        Menu(
            id=1,
            code="main",
            name="Menu chính",
            items=(
                MenuItem("Trang chủ", "/"),
                MenuItem(
                    "Thời trang",
                    "/thoi-trang",
                    children=(MenuItem("Áo", "/thoi-trang/ao"), MenuItem("Quần", None)),
                ),
                MenuItem("Khuyến mãi hè", "/khuyen-mai-he"),
                MenuItem("Trang cũ", DEAD_PATH),
                MenuItem("Tin tức", "/bai-viet"),
                MenuItem("Fanpage", "https://facebook.com/cuahangmau"),
            ),
        ),
        Menu(
            id=2,
            code="footer",
            name="Thông tin",
            items=(
                MenuItem("Giới thiệu", "/gioi-thieu"),
                MenuItem("Đổi trả", "/doi-tra"),
                MenuItem("Tuyển dụng", None),
                MenuItem("Mẹo <b>hay</b>", "javascript:alert(1)"),
            ),
        ),
    )
    site = SiteContext(
        store=store,
        menus=menus,
        category_tree=(THOI_TRANG,),
        article_categories=(ArticleCategory(1, "Mẹo hay", "meo-hay"),),
        promotions=(
            Promotion(1, "Giảm 10% <b>toàn bộ</b> áo hè", "/khuyen-mai-he"),
            Promotion(2, "Miễn phí vận chuyển từ 500.000 ₫", None),
        ),
        banners=(
            Banner(
                2,
                "Bộ sưu tập mới",
                "https://cdn.example.vn/b/2.jpg",
                None,
                "home_hero",
                2,
                None,
                None,
            ),
            Banner(
                1,
                "Áo hè & quần",
                "https://cdn.example.vn/b/1.jpg",
                "/thoi-trang/ao",
                "home_hero",
                1,
                None,
                None,
            ),
            Banner(
                3,
                "Trang cũ",
                "https://cdn.example.vn/b/3.jpg",
                DEAD_PATH,
                "home_middle",
                1,
                None,
                None,
            ),
            Banner(4, "Bên lề", "https://cdn.example.vn/b/4.jpg", "/", "sidebar", 1, None, None),
        ),
        custom_variables=(("hotline", "1900 0000"),),
        payment_methods=(
            PaymentMethod("cod", "Thanh toán khi nhận hàng (COD)"),
            PaymentMethod("vnpay", "VNPay"),
            PaymentMethod("momo", "Ví MoMo"),  # no mark of the theme's: its name
        ),
    )
    shirt = Product(
        card=SHIRT,
        description_html='<p>Vải <strong>cotton</strong> 100%, <a href="/gioi-thieu">xem</a>.</p>',
        images=(
            Image("https://cdn.example.vn/p/1.jpg", "Áo thun mặt trước"),
            Image("https://cdn.example.vn/p/1b.jpg", None),
        ),
        category_ids=(10,),
        brand=Brand(7, "Mẫu & Co"),
        sku="AT-001",
        meta_title=None,
        meta_description=None,
        published_at=at(1),
        variants=(
            Variant(
                11, 1, "AT-001-S", "Size S", (("Size", "S"),), 150000, 120000, None, False, 0, None
            ),
            Variant(
                12, 1, "AT-001-M", "Size M", (("Size", "M"),), 150000, 120000, None, True, 5, None
            ),
        ),
        related=(JEAN, CAP),
    )
    jean = Product(
        card=JEAN,
        description_html=None,
        images=(),
        category_ids=(11,),
        brand=None,
        sku=None,
        meta_title="Quần jean nam",
        meta_description=None,
        published_at=at(2),
    )
    cap = Product(
        card=CAP,
        description_html="<p>Mũ <em>đặc biệt</em>.</p>",
        images=(Image("https://cdn.example.vn/p/3.jpg", "Mũ"),),
        category_ids=(10,),
        brand=None,
        sku="MU-3",
        meta_title=None,
        meta_description="Mũ lưỡi trai đặc biệt.",
        published_at=at(3),
    )
    categories = (
        CategoryPage(
            category=THOI_TRANG,
            breadcrumb=(Crumb(1, "Thời trang", "/thoi-trang"),),
            subcategories=(AO, QUAN),
            products=(SHIRT, JEAN, CAP),
            has_more=False,
        ),
        CategoryPage(
            category=AO,
            breadcrumb=(Crumb(1, "Thời trang", "/thoi-trang"), Crumb(10, "Áo", "/thoi-trang/ao")),
            subcategories=(),
            products=(SHIRT, CAP),
            has_more=True,
        ),
    )
    summer = Collection(
        id=300,
        name="Hè 2026",
        slug="he-2026",
        description_html="<p>Bộ sưu tập <strong>hè</strong>.</p>",
        image_url=None,
        updated_at=at(6),
    )
    tips = ArticleCategory(1, "Mẹo hay", "meo-hay")
    old = ArticleSummary(90, "Bài cũ", "bai-cu", None, None, at(1), at(1), (), ())
    trends = ArticleSummary(
        id=21,
        title="Xu hướng 2026",
        slug="xu-huong-2026",
        excerpt=None,
        cover_image_url=None,
        published_at=at(8),
        updated_at=None,
        categories=(),
        tags=(),
    )
    howto = ArticleSummary(
        id=20,
        title="Cách chọn áo <thun> & quần",
        slug="cach-chon-ao",
        excerpt="Vài mẹo nhỏ để chọn áo vừa vặn.",
        cover_image_url="https://cdn.example.vn/a/20.jpg",
        published_at=at(7),
        updated_at=at(9),
        categories=(tips,),
        tags=(Tag("Áo thun", "ao-thun", 1),),
    )
    articles = (
        Article(
            summary=trends,
            content_html="<p>Năm nay <em>màu xanh</em> lên ngôi.</p>",
            author_name=None,
            meta_title=None,
            meta_description=None,
        ),
        Article(
            summary=howto,
            content_html="<h2>Chọn size</h2><p>Đo vòng ngực &amp; vai.</p>",
            author_name="Lan <Nguyễn>",
            meta_title=None,
            meta_description=None,
            related=(trends, old),
        ),
    )
    pages = (
        CmsPage(
            id=50,
            title="Giới thiệu",
            slug="gioi-thieu",
            url="/gioi-thieu",
            content_html="<p>Chúng tôi bán <strong>thời trang</strong> từ 2010.</p>",
            meta_title=None,
            meta_description="Về Cửa hàng Mẫu.",
            updated_at=at(10),
        ),
        CmsPage(
            id=51,
            title="Chính sách đổi trả",
            slug="doi-tra",
            url=None,
            content_html="<p>Đổi trả trong <b>30 ngày</b>.</p>",
            meta_title=None,
            meta_description=None,
            updated_at=at(11),
        ),
    )
    return Catalog(
        site=site,
        products=tuple(pack(p) for p in (shirt, jean, cap)),
        categories=categories,
        collections=(
            CollectionPage(
                path="/bo-suu-tap/he-2026",
                collection=summer,
                products=(SHIRT, CAP),
                has_more=False,
            ),
        ),
        articles=articles,
        pages=pages,
        flash_sales=(
            FlashSale(400, "Flash sale cuối tuần", at(20), at(22), "running", (SHIRT, CAP)),
            FlashSale(401, "Sắp diễn ra", at(25), at(26), "scheduled", (JEAN,)),
        ),
        featured=(SHIRT, CAP, JEAN),
        tags=(Tag("Áo thun", "ao-thun", 1),),
        custom_paths=(
            ("/khuyen-mai-he", "collection", 300),
            ("/doi-tra", "cms_page", 51),
            ("/mu-dac-biet", "product", 3),
            ("/bo-suu-tap/he-2026", "collection", 300),
            ("/khong-ton-tai", "product", 999),
        ),
        dead_paths=frozenset({DEAD_PATH}),
    )


def with_product(catalog: Catalog, index: int, change: Callable[[Product], Product]) -> Catalog:
    """``catalog`` with its product at ``index`` changed (unpacked, changed, packed again)."""
    products = list(catalog.products)
    products[index] = pack(change(unpack(products[index])))
    return dataclasses.replace(catalog, products=tuple(products))
