"""The sandbox gateway's pages and answers: what a real gateway shows and sends. Pure.

Stateless like the real thing: the pay page trusts only what the merchant signed; the form it
shows carries that signed request back, so completing a payment verifies it a second time.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from datetime import datetime
from html import escape
from pathlib import Path
from string import Template

from companion.payments import vnpay

OUTCOMES = ("pay", "cancel")


def result_params(request: Mapping[str, str], *, outcome: str, now: datetime) -> dict[str, str]:
    """The gateway's answer to a pay request (unsigned): sent as the IPN and on the return."""
    paid = outcome == "pay"
    params = {
        "vnp_Amount": request["vnp_Amount"],
        "vnp_BankCode": "NCB",
        "vnp_CardType": "ATM",
        "vnp_OrderInfo": request.get("vnp_OrderInfo", ""),
        "vnp_PayDate": vnpay.vnpay_time(now),
        "vnp_ResponseCode": vnpay.PAID if paid else vnpay.CANCELLED_BY_CUSTOMER,
        "vnp_TmnCode": request["vnp_TmnCode"],
        "vnp_TransactionNo": str(secrets.randbelow(90_000_000) + 10_000_000) if paid else "0",
        "vnp_TransactionStatus": "00" if paid else "02",
        "vnp_TxnRef": request["vnp_TxnRef"],
    }
    if paid:
        params["vnp_BankTranNo"] = "VNP" + secrets.token_hex(5).upper()
    return params


def pay_page(request: Mapping[str, str], *, complete_url: str) -> str:
    """The tester's page: the amount, the order, and two buttons (pay, cancel), in Vietnamese
    as the shoppers of a Vietnamese gateway read it."""
    amount = f"{int(request['vnp_Amount']) // 100:,}".replace(",", ".") + "\u00a0₫"
    hidden = "\n".join(
        f'<input type="hidden" name="{escape(k)}" value="{escape(v)}">'
        for k, v in sorted(request.items())
    )
    buttons = "\n".join(
        f'<button type="submit" name="outcome" value="{o}">{label}</button>'
        for o, label in (("pay", "Thanh toán (thành công)"), ("cancel", "Hủy thanh toán"))
    )
    return _page(
        "Thanh toán VNPay (thử nghiệm)",
        f"""<dl>
<dt>Cửa hàng</dt><dd>{escape(request.get("vnp_TmnCode", ""))}</dd>
<dt>Mã giao dịch</dt><dd>{escape(request.get("vnp_TxnRef", ""))}</dd>
<dt>Đơn hàng</dt><dd>{escape(request.get("vnp_OrderInfo", ""))}</dd>
<dt>Số tiền</dt><dd class="amount">{amount}</dd>
</dl>
<form method="post" action="{escape(complete_url)}">
{hidden}
{buttons}
</form>""",
    )


def result_page(summary: str) -> str:
    return _page("Kết quả thanh toán thử nghiệm", f"<p>{escape(summary)}</p>")


def error_page(message: str) -> str:
    return _page("Thanh toán thử nghiệm bị từ chối", f"<p>{escape(message)}</p>")


def _page(title: str, body: str) -> str:
    return _FRAME.substitute(title=escape(title), body=body)


#: The gateway's page frame (its look), beside this module.
_FRAME = Template((Path(__file__).parent / "sandbox_page.html").read_text(encoding="utf-8"))
