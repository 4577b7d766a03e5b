"""The companion's commerce tables: carts, checkouts, orders, customers, payments, webhooks.

Same conventions as ``schema``: every row has ``store_id``; naive UTC timestamps; integer VND;
portable SQL only (SQLite and PostgreSQL). Invariants that must hold under concurrency are
constraints here, not checks in Python: one order per cart (``uq_orders_cart_id``), one use of an
idempotency key per store, one payment per gateway transaction reference.
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    Text,
    UniqueConstraint,
)

from companion.db.schema import metadata, store_fk

__all__ = ["metadata"]


def _customer_fk(*, nullable: bool = False) -> Column[int]:
    """Owned rows go with their customer; shared records (orders, contacts) only lose the link."""
    return Column(
        "customer_id",
        Integer,
        ForeignKey("customers.id", ondelete="SET NULL" if nullable else "CASCADE"),
        nullable=nullable,
    )


# -- store-level commerce configuration ------------------------------------------------------

# One row per store: tax and loyalty rules. Absent row: the defaults in commerce.settings.
commerce_settings = Table(
    "commerce_settings",
    metadata,
    Column("store_id", Integer, ForeignKey("stores.id", ondelete="CASCADE"), primary_key=True),
    Column("vat_percent", Integer, nullable=False, default=10),
    Column("prices_include_tax", Boolean, nullable=False, default=True),
    Column("points_earn_per_vnd", Integer, nullable=False, default=10_000),  # 1 point per N VND
    Column("point_value_vnd", Integer, nullable=False, default=100),  # 1 point is worth N VND
)

# Secrets generated once per store and kept in the database (e.g. the customer-JWT key).
store_secrets = Table(
    "store_secrets",
    metadata,
    store_fk(),
    Column("name", String(50), nullable=False),
    Column("value", String(200), nullable=False),
    Column("created_at", DateTime, nullable=False),
    UniqueConstraint("store_id", "name"),
)

# Payment gateways the store has connected: `cod` and online ones (the sandbox `vnpay`).
payment_gateways = Table(
    "payment_gateways",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    Column("code", String(30), nullable=False),
    Column("name", String(200), nullable=False),
    Column("enabled", Boolean, nullable=False, default=True),
    Column("position", Integer, nullable=False, default=0),
    Column("merchant_code", String(50)),  # vnp_TmnCode: identifies the store to the gateway
    Column("hash_secret", String(200)),  # HMAC key shared with the gateway
    UniqueConstraint("store_id", "code"),
    Index("ix_payment_gateways_merchant", "code", "merchant_code"),
)

shipping_methods = Table(
    "shipping_methods",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    Column("code", String(50), nullable=False),
    Column("name", String(200), nullable=False),
    Column("kind", String(20), nullable=False, default="delivery"),  # delivery | pickup
    Column("fee", BigInteger, nullable=False, default=0),
    Column("free_over", BigInteger),  # subtotal from which the fee is waived; NULL: never
    Column("estimated_days", String(20)),
    Column("enabled", Boolean, nullable=False, default=True),
    Column("position", Integer, nullable=False, default=0),
    UniqueConstraint("store_id", "code"),
)

warehouses = Table(
    "warehouses",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    Column("code", String(50), nullable=False),
    Column("name", String(200), nullable=False),
    Column("address", Text, nullable=False),
    Column("city", String(200), nullable=False),
    Column("phone", String(50)),
    Column("position", Integer, nullable=False, default=0),
    UniqueConstraint("store_id", "code"),
)

pickup_locations = Table(
    "pickup_locations",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    Column("name", String(200), nullable=False),
    Column("address", Text, nullable=False),
    Column("city", String(200), nullable=False),
    Column("phone", String(50)),
    Column("opening_hours", String(200)),
    Column("warehouse_id", Integer, ForeignKey("warehouses.id", ondelete="SET NULL")),
    Column("position", Integer, nullable=False, default=0),
)

coupons = Table(
    "coupons",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    Column("code", String(50), nullable=False),  # stored upper-case; matched case-insensitively
    Column("kind", String(10), nullable=False),  # percent | fixed
    Column("value", BigInteger, nullable=False),  # percent (1..100) or VND
    Column("min_order", BigInteger, nullable=False, default=0),
    Column("max_discount", BigInteger),  # cap of a percent coupon; NULL: no cap
    Column("starts_at", DateTime),
    Column("ends_at", DateTime),
    Column("usage_limit", Integer),  # NULL: unlimited
    Column("used_count", Integer, nullable=False, default=0),
    Column("active", Boolean, nullable=False, default=True),
    UniqueConstraint("store_id", "code"),
)

# Automatic order-level promotions, priced in the quote like coupons (no code to enter).
order_promotions = Table(
    "order_promotions",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    Column("label", String(200), nullable=False),
    Column("kind", String(10), nullable=False),  # percent | fixed
    Column("value", BigInteger, nullable=False),
    Column("min_order", BigInteger, nullable=False, default=0),
    Column("max_discount", BigInteger),
    Column("starts_at", DateTime),
    Column("ends_at", DateTime),
    Column("active", Boolean, nullable=False, default=True),
    # With categories (order_promotion_categories): the promotion takes its percent off the
    # goods of those categories once the cart holds this many of them ("buy 2, 15% off").
    Column("min_quantity", Integer, nullable=False, default=0, server_default="0"),
)

# A promotion with rows here counts only the products of these categories (or of their children).
order_promotion_categories = Table(
    "order_promotion_categories",
    metadata,
    store_fk(),
    Column(
        "promotion_id",
        Integer,
        ForeignKey("order_promotions.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    Column(
        "category_id", Integer, ForeignKey("categories.id", ondelete="CASCADE"), primary_key=True
    ),
)

# -- customers --------------------------------------------------------------------------------

customers = Table(
    "customers",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    Column("email", String(254), nullable=False),  # lower-cased
    Column("password_hash", String(200), nullable=False),  # argon2id
    Column("full_name", String(200), nullable=False),
    Column("phone", String(30)),
    Column("points_balance", Integer, nullable=False, default=0),
    Column("created_at", DateTime, nullable=False),
    Column("updated_at", DateTime, nullable=False),
    UniqueConstraint("store_id", "email"),
)

# Login attempts claimed per (store, subject), the throttle's memory (companion.customers.throttle):
# a subject is a client, a client at one e-mail, or an e-mail. Claimed in their own transaction,
# before the password is checked, so the 401 which follows does not roll the count back.
login_attempts = Table(
    "login_attempts",
    metadata,
    store_fk(),
    Column("subject", String(400), nullable=False),
    Column("attempts", Integer, nullable=False),
    Column("window_started_at", DateTime, nullable=False),
    UniqueConstraint("store_id", "subject"),
    # The sweep of lapsed counts (customers.login_attempts.sweep_lapsed) reads by it.
    Index("ix_login_attempts_lapse", "store_id", "window_started_at"),
)

customer_addresses = Table(
    "customer_addresses",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    _customer_fk(),
    Column("full_name", String(200), nullable=False),
    Column("phone", String(30), nullable=False),
    Column("city", String(200), nullable=False),  # province-or-city level (spec naming)
    Column("province", String(200)),  # district level (spec naming)
    Column("ward", String(200)),
    Column("street", String(300)),
    Column("is_default", Boolean, nullable=False, default=False),
    Column("created_at", DateTime, nullable=False),
    Column("updated_at", DateTime, nullable=False),
    Index("ix_customer_addresses_customer", "customer_id"),
)

point_entries = Table(
    "point_entries",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    _customer_fk(),
    Column("order_id", Integer, ForeignKey("orders.id", ondelete="SET NULL")),
    Column("delta", Integer, nullable=False),
    Column("reason", String(50), nullable=False),  # earned | redeemed | refunded | reversed
    Column("created_at", DateTime, nullable=False),
    Index("ix_point_entries_customer", "customer_id", "created_at", "id"),
)

# -- carts and checkouts ----------------------------------------------------------------------

carts = Table(
    "carts",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    Column("token", String(64), nullable=False, unique=True),
    _customer_fk(nullable=True),
    Column("status", String(20), nullable=False, default="active"),  # active | ordered | merged
    Column("created_at", DateTime, nullable=False),
    Column("updated_at", DateTime, nullable=False),
    Index("ix_carts_customer", "customer_id", "status"),
)

cart_items = Table(
    "cart_items",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    Column("cart_id", Integer, ForeignKey("carts.id", ondelete="CASCADE"), nullable=False),
    Column("variant_id", Integer, ForeignKey("variants.id", ondelete="CASCADE"), nullable=False),
    Column("quantity", Integer, nullable=False),
    Column("position", Integer, nullable=False, default=0),
    UniqueConstraint("cart_id", "variant_id"),
)

checkouts = Table(
    "checkouts",
    metadata,
    Column("id", String(40), primary_key=True),  # high-entropy: it guards an address
    store_fk(),
    Column("cart_id", Integer, ForeignKey("carts.id", ondelete="CASCADE"), nullable=False),
    _customer_fk(nullable=True),
    Column("status", String(20), nullable=False, default="open"),  # open | completed
    Column("email", String(254)),
    Column("coupon_code", String(50)),
    Column("address", JSON),
    Column("shipping_method", String(50)),
    Column("pickup_location_id", Integer),
    Column("payment_method", String(50)),
    Column("order_id", Integer, ForeignKey("orders.id", ondelete="SET NULL")),
    Column("created_at", DateTime, nullable=False),
    Column("updated_at", DateTime, nullable=False),
    Index("ix_checkouts_cart", "cart_id"),
)

# -- orders and payments ----------------------------------------------------------------------

orders = Table(
    "orders",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    Column("code", String(20), nullable=False),
    Column("cart_id", Integer, ForeignKey("carts.id", ondelete="SET NULL")),
    Column("checkout_id", String(40)),
    _customer_fk(nullable=True),
    Column("idempotency_key", String(200)),
    Column("current_status", String(20), nullable=False),
    Column("payment_method", String(50), nullable=False),
    Column("currency", String(3), nullable=False, default="VND"),
    Column("subtotal", BigInteger, nullable=False),  # at regular prices
    Column("discount_total", BigInteger, nullable=False),  # product-level + loyalty points
    Column("discount_amount", BigInteger, nullable=False, default=0),  # order-level: always 0
    Column("shipping_total", BigInteger, nullable=False),
    Column("total", BigInteger, nullable=False),
    Column("points_redeemed", Integer, nullable=False, default=0),
    Column("points_earned", Integer, nullable=False, default=0),
    Column("points_credited", Boolean, nullable=False, default=False),
    Column("coupon_code", String(50)),  # the code whose use this order claimed, else NULL
    Column("shipping_method", String(50)),
    Column("address", JSON, nullable=False),
    Column("email", String(254)),
    Column("note", Text),
    Column("merchant_note", Text),  # the merchant's own, never shown to the shopper
    Column("placed_at", DateTime, nullable=False),
    Column("updated_at", DateTime, nullable=False),
    UniqueConstraint("store_id", "code", name="uq_orders_code"),
    UniqueConstraint("cart_id", name="uq_orders_cart_id"),
    UniqueConstraint("store_id", "idempotency_key", name="uq_orders_idempotency_key"),
    Index("ix_orders_customer", "customer_id", "placed_at", "id"),
)

order_items = Table(
    "order_items",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    Column("order_id", Integer, ForeignKey("orders.id", ondelete="CASCADE"), nullable=False),
    Column("product_id", Integer, ForeignKey("products.id", ondelete="SET NULL")),
    Column("variant_id", Integer, ForeignKey("variants.id", ondelete="SET NULL")),
    Column("name", String(300), nullable=False),
    Column("variant_name", String(300)),
    Column("sku", String(100)),
    Column("quantity", Integer, nullable=False),
    Column("list_price", BigInteger, nullable=False),  # regular unit price
    Column("unit_price", BigInteger, nullable=False),  # charged unit price (flash sale, ...)
    Column("flash_sale_id", Integer),
    Index("ix_order_items_order", "order_id"),
)

order_status_history = Table(
    "order_status_history",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    Column("order_id", Integer, ForeignKey("orders.id", ondelete="CASCADE"), nullable=False),
    Column("from_status", String(20)),
    Column("to_status", String(20), nullable=False),
    Column("reason", String(200), nullable=False, default=""),
    Column("at", DateTime, nullable=False),
    Index("ix_order_status_history_order", "order_id"),
)

payments = Table(
    "payments",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    Column("order_id", Integer, ForeignKey("orders.id", ondelete="CASCADE"), nullable=False),
    Column("provider", String(30), nullable=False),
    Column("txn_ref", String(64), nullable=False),
    Column("amount", BigInteger, nullable=False),
    Column("status", String(20), nullable=False, default="pending"),  # pending|succeeded|failed
    Column("gateway_txn_no", String(64)),
    Column("response_code", String(10)),
    Column("created_at", DateTime, nullable=False),
    Column("updated_at", DateTime, nullable=False),
    UniqueConstraint("provider", "txn_ref"),
    Index("ix_payments_order", "order_id"),
)

coupon_usages = Table(
    "coupon_usages",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    _customer_fk(nullable=True),
    Column("coupon_id", Integer, ForeignKey("coupons.id", ondelete="SET NULL")),
    Column("coupon_code", String(50), nullable=False),
    Column("order_id", Integer, ForeignKey("orders.id", ondelete="SET NULL")),
    Column("used_at", DateTime, nullable=False),
    Index("ix_coupon_usages_customer", "customer_id", "used_at", "id"),
)

# -- customer content and activity -------------------------------------------------------------

reviews = Table(
    "reviews",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    _customer_fk(),
    Column("entity_type", String(20), nullable=False),  # product | article
    Column("entity_id", Integer, nullable=False),
    Column("rating", Integer, nullable=False),
    Column("title", String(200)),
    Column("content", Text, nullable=False),
    Column("author_name", String(200), nullable=False),
    # published | hidden (by the merchant: the public API leaves it out)
    Column("status", String(20), nullable=False, default="published", server_default="published"),
    Column("created_at", DateTime, nullable=False),
    UniqueConstraint("customer_id", "entity_type", "entity_id"),
    Index("ix_reviews_entity", "store_id", "entity_type", "entity_id", "created_at", "id"),
)

contacts = Table(
    "contacts",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    _customer_fk(nullable=True),
    Column("name", String(200), nullable=False),
    Column("email", String(254), nullable=False),
    Column("phone", String(30)),
    Column("subject", String(200)),
    Column("message", Text, nullable=False),
    Column("status", String(20), nullable=False, default="new"),
    Column("created_at", DateTime, nullable=False),
    Index("ix_contacts_customer", "customer_id", "created_at", "id"),
)

saved_products = Table(
    "saved_products",
    metadata,
    store_fk(),
    Column(
        "customer_id", Integer, ForeignKey("customers.id", ondelete="CASCADE"), primary_key=True
    ),
    Column("product_id", Integer, ForeignKey("products.id", ondelete="CASCADE"), primary_key=True),
    Column("saved_at", DateTime, nullable=False),
)

# Product views of a customer (logged in) or an anonymous session: recently viewed, also viewed.
product_views = Table(
    "product_views",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    _customer_fk(nullable=True),
    Column("session_token", String(100)),
    Column("product_id", Integer, ForeignKey("products.id", ondelete="CASCADE"), nullable=False),
    Column("viewed_at", DateTime, nullable=False),
    Index("ix_product_views_customer", "customer_id", "viewed_at"),
    Index("ix_product_views_session", "store_id", "session_token", "viewed_at"),
    Index("ix_product_views_product", "product_id"),
)

entity_views = Table(
    "entity_views",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    Column("entity_type", String(20), nullable=False),
    Column("entity_id", Integer, nullable=False),
    Column("session_token", String(100)),
    Column("viewed_at", DateTime, nullable=False),
    Index("ix_entity_views_entity", "store_id", "entity_type", "entity_id"),
)

banner_clicks = Table(
    "banner_clicks",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    Column("banner_id", Integer, ForeignKey("banners.id", ondelete="CASCADE"), nullable=False),
    Column("session_token", String(100)),
    Column("clicked_at", DateTime, nullable=False),
)

storefront_errors = Table(
    "storefront_errors",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    Column("status", Integer, nullable=False),
    Column("method", String(10)),
    Column("path", Text, nullable=False),
    Column("message", Text),
    Column("occurred_at", DateTime, nullable=False),
    Column("received_at", DateTime, nullable=False),
)

# -- content-change webhooks --------------------------------------------------------------------

webhook_subscriptions = Table(
    "webhook_subscriptions",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    Column("url", Text, nullable=False),
    Column("secret", String(100), nullable=False),
    Column("events", JSON, nullable=False),  # ["product.updated", ...] or ["*"]
    Column("created_at", DateTime, nullable=False),
)

# The delivery queue: one row per (event, subscription); the worker drains it with retries.
webhook_deliveries = Table(
    "webhook_deliveries",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    Column(
        "subscription_id",
        Integer,
        ForeignKey("webhook_subscriptions.id", ondelete="CASCADE"),
        nullable=False,
    ),
    Column("event_id", String(40), nullable=False),
    Column("event_type", String(50), nullable=False),
    Column("payload", Text, nullable=False),  # the exact JSON body that is signed and sent
    Column("status", String(20), nullable=False, default="pending"),  # pending|delivered|failed
    Column("attempts", Integer, nullable=False, default=0),
    Column("next_attempt_at", DateTime, nullable=False),
    Column("last_status", Integer),
    Column("last_error", Text),
    Column("created_at", DateTime, nullable=False),
    Column("delivered_at", DateTime),
    Index("ix_webhook_deliveries_due", "status", "next_attempt_at"),
)
