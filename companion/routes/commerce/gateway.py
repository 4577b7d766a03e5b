"""The sandbox gateway's pages and the merchant's IPN endpoint: outside the public API.

``router`` is mounted by ``create_app`` at the root (not under /public): the gateway and the
customer's browser reach these paths without a publishable key; the store is the one whose
merchant code (``vnp_TmnCode``) the signed message carries.

    GET  /sandbox/vnpay/pay       the tester's page (pay or cancel)
    POST /sandbox/vnpay/complete  sends the IPN, then redirects to the merchant's return URL
    GET  /sandbox/vnpay/result    a plain result page, for payments started without return_url
    GET  /payments/vnpay/ipn      the merchant's IPN endpoint (RspCode answers)
"""

from __future__ import annotations

import logging
from datetime import datetime
from urllib.parse import parse_qsl

import anyio.to_thread
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from companion.deps import Db, Services, ServicesDep
from companion.payments import sandbox, vnpay
from companion.payments.gateways import Gateway, gateway_for_merchant
from companion.payments.ipn import OTHER, PROVIDER, handle_ipn
from companion.payments.ipn_sender import ipn_sender_of
from companion.payments.payment_store import find_payment, order_status
from companion.payments.starting import (
    IPN_PATH,
    SANDBOX_COMPLETE_PATH,
    SANDBOX_PAY_PATH,
    SANDBOX_RESULT_PATH,
)

router = APIRouter(include_in_schema=False)
LOG = logging.getLogger("companion.payments")
MAX_FORM = 8000


@router.get(IPN_PATH)
def vnpay_ipn(request: Request, db: Db, services: ServicesDep) -> JSONResponse:
    """Idempotent and all-or-nothing: anything unexpected rolls back and answers 99."""
    try:
        params = vnpay.parse_query(request.url.query)
    except vnpay.MalformedQuery:
        return JSONResponse(OTHER.body())
    try:
        with db.begin_nested():
            answer = handle_ipn(db, params, now=services.clock.now())
    except Exception:  # the gateway must get an RspCode, never a 500; it will retry
        LOG.exception("IPN %s failed", params.get("vnp_TxnRef", "?"))
        answer = OTHER
    return JSONResponse(answer.body())


def _signed_request(services: Services, params: dict[str, str]) -> tuple[Gateway | None, str]:
    """The merchant's gateway settings if the message is genuine, else (None, why)."""
    with services.engine.connect() as conn:
        gateway = gateway_for_merchant(
            conn, code=PROVIDER, merchant_code=params.get("vnp_TmnCode", "")
        )
    if gateway is None:
        return None, "Unknown merchant (vnp_TmnCode)."
    if not vnpay.is_genuine(params, gateway.hash_secret or ""):
        return None, "Invalid signature: the request was not signed by the merchant."
    for field in ("vnp_Amount", "vnp_TxnRef", "vnp_ReturnUrl"):
        if not params.get(field):
            return None, f"Missing {field}."
    if not params["vnp_Amount"].isdigit() or len(params["vnp_Amount"]) > 18:
        return None, "Invalid vnp_Amount."
    return gateway, ""


def _expired(params: dict[str, str], now: datetime) -> bool:
    expires = params.get("vnp_ExpireDate", "")
    return bool(expires) and expires < vnpay.vnpay_time(now)


@router.get(SANDBOX_PAY_PATH, response_class=HTMLResponse)
async def sandbox_pay_page(request: Request, services: ServicesDep) -> HTMLResponse:
    try:
        params = vnpay.parse_query(request.url.query)
    except vnpay.MalformedQuery as exc:
        return HTMLResponse(sandbox.error_page(str(exc)), status_code=400)
    gateway, why = await anyio.to_thread.run_sync(_signed_request, services, params)
    if gateway is None:
        return HTMLResponse(sandbox.error_page(why), status_code=400)
    if _expired(params, services.clock.now()):
        return HTMLResponse(sandbox.error_page("This payment request has expired."), 400)
    return HTMLResponse(sandbox.pay_page(params, complete_url=SANDBOX_COMPLETE_PATH))


@router.post(SANDBOX_COMPLETE_PATH)
async def sandbox_complete(request: Request, services: ServicesDep) -> Response:
    """Pay or cancel: notify the merchant server to server, then send the browser back."""
    body = await request.body()
    if len(body) > MAX_FORM:
        return HTMLResponse(sandbox.error_page("The form is too large."), status_code=400)
    form = dict(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))
    outcome = form.pop("outcome", "")
    if outcome not in sandbox.OUTCOMES:
        return HTMLResponse(sandbox.error_page("Choose pay or cancel."), status_code=400)
    gateway, why = await anyio.to_thread.run_sync(_signed_request, services, form)
    if gateway is None or gateway.hash_secret is None:
        return HTMLResponse(sandbox.error_page(why), status_code=400)
    result = sandbox.result_params(form, outcome=outcome, now=services.clock.now())
    signed = vnpay.signed_query(result, gateway.hash_secret)
    ipn_url = f"{services.settings.public_url.rstrip('/')}{IPN_PATH}?{signed}"
    answer = await ipn_sender_of(request)(ipn_url)
    if answer not in {vnpay.RSP_OK, vnpay.RSP_ALREADY_CONFIRMED}:
        LOG.warning("sandbox IPN for %s answered %r", form["vnp_TxnRef"], answer)
    back = form["vnp_ReturnUrl"]
    return RedirectResponse(f"{back}{'&' if '?' in back else '?'}{signed}", status_code=303)


@router.get(SANDBOX_RESULT_PATH, response_class=HTMLResponse)
async def sandbox_result(request: Request, services: ServicesDep) -> HTMLResponse:
    """What a storefront's return page would show: the gateway's claim and the order's state."""
    try:
        params = vnpay.parse_query(request.url.query)
    except vnpay.MalformedQuery as exc:
        return HTMLResponse(sandbox.error_page(str(exc)), status_code=400)
    summary = await anyio.to_thread.run_sync(_result_summary, services, params)
    return HTMLResponse(sandbox.result_page(summary))


def _result_summary(services: Services, params: dict[str, str]) -> str:
    with services.engine.connect() as conn:
        gateway = gateway_for_merchant(
            conn, code=PROVIDER, merchant_code=params.get("vnp_TmnCode", "")
        )
        if gateway is None or not vnpay.is_genuine(params, gateway.hash_secret or ""):
            return "This result is not signed by the gateway."
        payment = find_payment(
            conn,
            store_id=gateway.store_id,
            provider=PROVIDER,
            txn_ref=params.get("vnp_TxnRef", ""),
        )
        if payment is None:
            return "No payment with this reference."
        code, status = order_status(conn, order_id=payment.order_id)
    claim = "paid" if params.get("vnp_ResponseCode") == vnpay.PAID else "not paid"
    return f"Order {code}: the gateway reports {claim}; the order is now {status}."
