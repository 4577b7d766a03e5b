"""The sandbox gateway's pages and the merchant's IPN endpoint: outside the public API.

``router`` is mounted by ``create_app`` at the root (not under /public): the gateway and the
customer's browser reach these paths without a publishable key; the store is the one whose
merchant code (``vnp_TmnCode``) the signed message carries. The sandbox's pages answer only for
a store it serves (``payments.sandbox_access``): for any other message they answer 404 as an
unknown path does. Its refusals are written to the request log with their reason.

    GET  /sandbox/vnpay/pay       the tester's page (pay or cancel)
    POST /sandbox/vnpay/complete  sends the IPN, then redirects to the merchant's return URL
    GET  /sandbox/vnpay/result    a plain result page, for payments started without return_url
    GET  /payments/vnpay/ipn      the merchant's IPN endpoint (RspCode answers)
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import parse_qsl

import anyio.to_thread
from fastapi import APIRouter, BackgroundTasks, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from sqlalchemy import Connection, select

from companion.db.commerce_schema import payments
from companion.deps import Db, Services, ServicesDep
from companion.errors_http import http_problem, problem_response
from companion.logging_http import note_refusal
from companion.order_mail import mail_is_on, send_order_mails
from companion.payments import sandbox, vnpay
from companion.payments.gateways import Gateway, gateway_for_merchant
from companion.payments.ipn import BAD_SIGNATURE, CONFIRMED, OTHER, PROVIDER, handle_ipn
from companion.payments.ipn_sender import HttpIpnSender, IpnSender
from companion.payments.payment_store import find_payment, order_status
from companion.payments.return_origins import SiteOrigins, return_url_refusal, store_origins
from companion.payments.sandbox_access import sandbox_serves
from companion.payments.starting import (
    IPN_PATH,
    SANDBOX_COMPLETE_PATH,
    SANDBOX_PAY_PATH,
    SANDBOX_RESULT_PATH,
)
from companion.routes.one_hop import OneHopRoute

router = APIRouter(include_in_schema=False, route_class=OneHopRoute)
LOG = logging.getLogger("companion.payments")
MAX_FORM = 8000


@router.get(IPN_PATH)
def vnpay_ipn(
    request: Request, db: Db, services: ServicesDep, background: BackgroundTasks
) -> JSONResponse:
    """Idempotent and all-or-nothing: anything unexpected rolls back and answers 99."""
    try:
        params = vnpay.parse_query(request.url.query)
    except vnpay.MalformedQuery:
        note_refusal(request.scope, "ipn: malformed query")
        return JSONResponse(OTHER.body())
    try:
        with db.begin_nested():
            answer = handle_ipn(db, params, now=services.clock.now())
    except Exception:  # the gateway must get an RspCode, never a 500; it will retry
        LOG.exception("IPN %s failed", params.get("vnp_TxnRef", "?"))
        answer = OTHER
    if answer is BAD_SIGNATURE:
        note_refusal(request.scope, "ipn: unknown merchant or invalid signature")
    paid = paid_order(db, params) if answer is CONFIRMED else None
    if paid is not None and mail_is_on(services.settings):  # once the payment is committed
        store_id, order_id = paid
        background.add_task(
            send_order_mails,
            services.engine,
            services.settings,
            store_id=store_id,
            order_id=order_id,
            event="paid",
        )
    return JSONResponse(answer.body())


def paid_order(db: Connection, params: dict[str, str]) -> tuple[int, int] | None:
    """The (store, order) a confirmed notification of a successful payment paid."""
    if params.get("vnp_ResponseCode") != vnpay.PAID or params.get("vnp_TransactionStatus") != "00":
        return None
    row = db.execute(
        select(payments.c.store_id, payments.c.order_id).where(
            payments.c.provider == PROVIDER, payments.c.txn_ref == params.get("vnp_TxnRef", "")
        )
    ).first()
    return None if row is None else (row.store_id, row.order_id)


@dataclass(frozen=True, slots=True)
class _Served:
    """The merchant's gateway, for a store the sandbox serves, and that store's own origins."""

    gateway: Gateway
    origins: SiteOrigins


def _served(services: Services, params: dict[str, str]) -> _Served | None:
    """The gateway of the merchant the message names, when the sandbox serves its store."""
    with services.engine.connect() as conn:
        gateway = gateway_for_merchant(
            conn, code=PROVIDER, merchant_code=params.get("vnp_TmnCode", "")
        )
        if gateway is None or not sandbox_serves(
            conn, store_id=gateway.store_id, asked=services.settings.sandbox_payments
        ):
            return None
        origins = store_origins(conn, services.settings, store_id=gateway.store_id)
    return _Served(gateway, origins)


def _off(request: Request, why: str) -> Response:
    """The answer where the sandbox does not serve: an unknown path's 404, its reason logged."""
    note_refusal(request.scope, f"sandbox: {why}")
    return problem_response(http_problem(404, request.method, request.url.path, None))


def _refused(request: Request, why: str) -> HTMLResponse:
    note_refusal(request.scope, f"sandbox: {why}")
    return HTMLResponse(sandbox.error_page(why), status_code=400)


def _signed_request(served: _Served, params: dict[str, str]) -> str:
    """Why the pay request is not to be served ("" when it is: signed by the merchant, and
    sending the shopper back to one of the store's own sites)."""
    if not vnpay.is_genuine(params, served.gateway.hash_secret or ""):
        return "Invalid signature: the request was not signed by the merchant."
    for field in ("vnp_Amount", "vnp_TxnRef", "vnp_ReturnUrl"):
        if not params.get(field):
            return f"Missing {field}."
    if not params["vnp_Amount"].isdigit() or len(params["vnp_Amount"]) > 18:
        return "Invalid vnp_Amount."
    if return_url_refusal(params["vnp_ReturnUrl"], served.origins) is not None:
        return "vnp_ReturnUrl is not one of the merchant's own sites."
    return ""


def _expired(params: dict[str, str], now: datetime) -> bool:
    expires = params.get("vnp_ExpireDate", "")
    return bool(expires) and expires < vnpay.vnpay_time(now)


@router.get(SANDBOX_PAY_PATH, response_class=HTMLResponse)
async def sandbox_pay_page(request: Request, services: ServicesDep) -> Response:
    try:
        params = vnpay.parse_query(request.url.query)
    except vnpay.MalformedQuery:
        return _off(request, "a query no merchant signed")
    served = await anyio.to_thread.run_sync(_served, services, params)
    if served is None:
        return _off(request, "off for this merchant")
    why = _signed_request(served, params)
    if why:
        return _refused(request, why)
    if _expired(params, services.clock.now()):
        return _refused(request, "This payment request has expired.")
    return HTMLResponse(sandbox.pay_page(params, complete_url=SANDBOX_COMPLETE_PATH))


@router.post(SANDBOX_COMPLETE_PATH)
async def sandbox_complete(request: Request, services: ServicesDep) -> Response:
    """Pay or cancel: notify the merchant server to server, then send the browser back."""
    body = await request.body()
    if len(body) > MAX_FORM:
        return _off(request, "a form too large for a pay request")
    form = dict(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))
    outcome = form.pop("outcome", "")
    served = await anyio.to_thread.run_sync(_served, services, form)
    if served is None:
        return _off(request, "off for this merchant")
    if outcome not in sandbox.OUTCOMES:
        return _refused(request, "Choose pay or cancel.")
    why = _signed_request(served, form)
    secret = served.gateway.hash_secret
    if why or secret is None:
        return _refused(request, why or "The merchant has no hash secret.")
    result = sandbox.result_params(form, outcome=outcome, now=services.clock.now())
    signed = vnpay.signed_query(result, secret)
    ipn_url = f"{services.settings.public_url.rstrip('/')}{IPN_PATH}?{signed}"
    answer = await ipn_sender_of(request)(ipn_url)
    if answer not in {vnpay.RSP_OK, vnpay.RSP_ALREADY_CONFIRMED}:
        LOG.warning("sandbox IPN for %s answered %r", form["vnp_TxnRef"], answer)
    back = form["vnp_ReturnUrl"]
    return RedirectResponse(f"{back}{'&' if '?' in back else '?'}{signed}", status_code=303)


@router.get(SANDBOX_RESULT_PATH, response_class=HTMLResponse)
async def sandbox_result(request: Request, services: ServicesDep) -> Response:
    """What a storefront's return page would show: the gateway's claim and the order's state."""
    try:
        params = vnpay.parse_query(request.url.query)
    except vnpay.MalformedQuery:
        return _off(request, "a query no gateway signed")
    served = await anyio.to_thread.run_sync(_served, services, params)
    if served is None:
        return _off(request, "off for this merchant")
    summary = await anyio.to_thread.run_sync(_result_summary, services, served.gateway, params)
    return HTMLResponse(sandbox.result_page(summary))


def _result_summary(services: Services, gateway: Gateway, params: dict[str, str]) -> str:
    if not vnpay.is_genuine(params, gateway.hash_secret or ""):
        return "This result is not signed by the gateway."
    with services.engine.connect() as conn:
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


def ipn_sender_of(request: Request) -> IpnSender:
    """The app's IPN sender (a test sets one on ``app.state``), else one over HTTP."""
    sender: IpnSender | None = getattr(request.app.state, "ipn_sender", None)
    return sender if sender is not None else HttpIpnSender()
