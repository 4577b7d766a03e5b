"""Field types shared by the commerce request and response bodies.

Bounds live here so that every body rejects what the database could not store: ids fit an
integer column, text has a length limit and no NUL character (PostgreSQL refuses it). Required
text is stripped first, so a blank value counts as missing.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StringConstraints

from companion.schemas.read import WireTime

__all__ = [
    "Code",
    "Email",
    "LongText",
    "MAX_ID",
    "Name",
    "OptionalCode",
    "OptionalLine",
    "OptionalName",
    "Password",
    "Phone",
    "RowId",
    "Line",
    "WireMoney",
    "WireTime",
]

MAX_ID = 2**31 - 1
_NO_NUL = r"^[^\x00]*$"

RowId = Annotated[int, Field(ge=1, le=MAX_ID)]
WireMoney = Annotated[
    str, Field(description="Integer VND as a decimal string", examples=["1250000"])
]

Code = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=50, pattern=_NO_NUL)
]
Name = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200, pattern=_NO_NUL)
]
Line = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=300, pattern=_NO_NUL)
]
LongText = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=5000, pattern=_NO_NUL)
]
OptionalCode = Annotated[
    str | None, StringConstraints(strip_whitespace=True, max_length=50, pattern=_NO_NUL)
]
OptionalName = Annotated[
    str | None, StringConstraints(strip_whitespace=True, max_length=200, pattern=_NO_NUL)
]
OptionalLine = Annotated[
    str | None, StringConstraints(strip_whitespace=True, max_length=300, pattern=_NO_NUL)
]
Phone = Annotated[
    str | None,
    StringConstraints(strip_whitespace=True, max_length=30, pattern=r"^[0-9+() .\-]*$"),
]
Email = Annotated[
    str,
    StringConstraints(
        strip_whitespace=True, min_length=3, max_length=254, pattern=r"^[^@\s\x00]+@[^@\s\x00]+$"
    ),
]
# Long enough for a pass phrase, short enough that hashing it is not a denial of service.
Password = Annotated[str, StringConstraints(min_length=8, max_length=256, pattern=_NO_NUL)]
