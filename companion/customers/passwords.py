"""Password hashing with argon2id (memory-hard), via argon2-cffi.

The hasher is injectable: ``app.state.password_hasher`` (set by ``create_app`` or a test) or,
by default, argon2-cffi's recommended parameters (RFC 9106 low-memory profile: 64 MiB, t=3).
Test suites may install cheaper argon2id parameters; the stored format stays the same, and a
hash records its own parameters, so verification works whatever hasher is installed.
"""

from __future__ import annotations

from functools import cache

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError


def hash_password(hasher: PasswordHasher, password: str) -> str:
    return str(hasher.hash(password))


def verify_password(hasher: PasswordHasher, password_hash: str, password: str) -> bool:
    try:
        return bool(hasher.verify(password_hash, password))
    except (VerificationError, InvalidHashError):
        return False


def burn_verification(hasher: PasswordHasher, password: str) -> None:
    """Spend the time of one verification, so an unknown e-mail answers as slowly as a known one."""
    params = (hasher.time_cost, hasher.memory_cost, hasher.parallelism, hasher.hash_len)
    verify_password(hasher, _decoy_hash(params), password)


@cache
def _decoy_hash(params: tuple[int, int, int, int]) -> str:
    # Built on first use, per parameter set, never at import: hashing is deliberately slow.
    time_cost, memory_cost, parallelism, hash_len = params
    hasher = PasswordHasher(time_cost, memory_cost, parallelism, hash_len)
    return hash_password(hasher, "decoy password that matches nothing")
