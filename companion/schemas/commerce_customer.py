"""Bodies of the customer-account endpoints: register, login, profile, points, addresses."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field, StringConstraints

from companion.schemas.commerce_checkout import RequiredPhone
from companion.schemas.commerce_fields import (
    Email,
    Name,
    OptionalLine,
    OptionalName,
    Password,
    Phone,
    WireTime,
)

# A password being checked is not held to today's rules (it may predate them): only bounded.
GivenPassword = Annotated[str, StringConstraints(min_length=1, max_length=256)]


class RegisterIn(BaseModel):
    email: Email
    password: Password = Field(description="8 to 256 characters")
    full_name: Name
    phone: Phone = None


class LoginIn(BaseModel):
    email: Email
    password: GivenPassword


class OrderClaimIn(BaseModel):
    """A guest order's proof of possession: its code and the phone it was placed with."""

    code: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=20)]
    phone: RequiredPhone


class CustomerOut(BaseModel):
    id: int
    email: str
    full_name: str
    phone: str | None
    points_balance: int
    created_at: WireTime


class LoginOut(BaseModel):
    token: str = Field(description="The customer JWT: send it as Authorization: Bearer <token>")
    token_type: str = "bearer"
    expires_at: WireTime = Field(description="No refresh token: log in again after this")
    expires_in: int = Field(description="Seconds until expires_at")
    customer: CustomerOut


class ProfilePatch(BaseModel):
    full_name: Name | None = None
    phone: Phone = None


class PasswordChangeIn(BaseModel):
    current_password: GivenPassword
    new_password: Password


class PointEntryOut(BaseModel):
    id: int
    delta: int = Field(description="Points added (positive) or taken (negative)")
    reason: str = Field(description="earned, redeemed, returned or reversed")
    order_id: int | None
    created_at: WireTime


class CustomerAddressIn(BaseModel):
    full_name: Name
    phone: RequiredPhone
    city: Name = Field(description="Province or centrally-run city (the spec's name)")
    province: OptionalName = Field(None, description="District level (the spec's name)")
    ward: OptionalName = None
    street: OptionalLine = None
    is_default: bool = False


class CustomerAddressPatch(BaseModel):
    full_name: Name | None = None
    phone: RequiredPhone | None = None
    city: Name | None = None
    province: OptionalName = None
    ward: OptionalName = None
    street: OptionalLine = None


class CustomerAddressOut(BaseModel):
    id: int
    full_name: str
    phone: str
    city: str
    province: str | None
    ward: str | None
    street: str | None
    is_default: bool
    created_at: WireTime
    updated_at: WireTime


class CouponUseOut(BaseModel):
    """A used code (the spec's coupon-history entry)."""

    id: int
    coupon_code: str
    used_at: WireTime
    order_id: int | None
