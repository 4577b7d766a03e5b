"""Cart, checkout, payments, customers and the other write endpoints.

``router`` is mounted by ``create_app`` under /public/v1 and, as the spec's aliases, under /public.
"""

from fastapi import APIRouter

router = APIRouter()
