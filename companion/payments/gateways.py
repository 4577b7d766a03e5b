"""The payment gateways a store has connected (table payment_gateways)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, case, select

from companion.db.commerce_schema import payment_gateways

COD = "cod"
#: Cash on delivery as shoppers read it at checkout (a store's data, served by the API).
COD_NAME = "Thanh toán khi nhận hàng (COD)"
#: Online gateways this companion can talk to, and the parameter prefix of their messages.
ONLINE_PREFIXES = {"vnpay": "vnp_"}


@dataclass(frozen=True, slots=True)
class Gateway:
    store_id: int
    code: str
    name: str
    merchant_code: str | None
    hash_secret: str | None

    @property
    def online(self) -> bool:
        return self.code in ONLINE_PREFIXES and bool(self.merchant_code and self.hash_secret)


_COLUMNS = (
    payment_gateways.c.store_id,
    payment_gateways.c.code,
    payment_gateways.c.name,
    payment_gateways.c.merchant_code,
    payment_gateways.c.hash_secret,
)


def connected_gateways(conn: Connection, *, store_id: int) -> list[Gateway]:
    """Enabled gateways, cash on delivery first, then in the merchant's order."""
    rows = conn.execute(
        select(*_COLUMNS)
        .where(payment_gateways.c.store_id == store_id, payment_gateways.c.enabled.is_(True))
        .order_by(
            case((payment_gateways.c.code == COD, 0), else_=1),
            payment_gateways.c.position,
            payment_gateways.c.id,
        )
    )
    return [Gateway(*row) for row in rows]


def online_gateway(conn: Connection, *, store_id: int, code: str) -> Gateway | None:
    found = next((g for g in connected_gateways(conn, store_id=store_id) if g.code == code), None)
    return found if found is not None and found.online else None


def gateway_for_merchant(conn: Connection, *, code: str, merchant_code: str) -> Gateway | None:
    """The store behind a gateway message, found by the merchant code it carries."""
    row = conn.execute(
        select(*_COLUMNS).where(
            payment_gateways.c.code == code,
            payment_gateways.c.merchant_code == merchant_code,
            payment_gateways.c.enabled.is_(True),
        )
    ).first()
    gateway = Gateway(*row) if row else None
    return gateway if gateway is not None and gateway.online else None


def identify_gateway(gateways: list[Gateway], params: dict[str, str]) -> Gateway | None:
    """Which connected online gateway wrote these parameters (by their prefix)."""
    for gateway in gateways:
        prefix = ONLINE_PREFIXES.get(gateway.code)
        if gateway.online and prefix and any(key.startswith(prefix) for key in params):
            return gateway
    return None
