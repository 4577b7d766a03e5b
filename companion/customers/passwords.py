"""Password hashing with argon2id (memory-hard), via argon2-cffi's recommended parameters."""

from __future__ import annotations

from functools import cache

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError


def hash_password(password: str) -> str:
    return str(PasswordHasher().hash(password))


def verify_password(password_hash: str, password: str) -> bool:
    try:
        return bool(PasswordHasher().verify(password_hash, password))
    except (VerificationError, InvalidHashError):
        return False


def burn_verification(password: str) -> None:
    """Spend the time of one verification, so an unknown e-mail answers as slowly as a known one."""
    verify_password(_decoy_hash(), password)


@cache
def _decoy_hash() -> str:
    # Built on first use, not at import: hashing is deliberately slow.
    return hash_password("decoy password that matches nothing")
