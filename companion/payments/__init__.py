"""Payments: VNPay-style signing, the sandbox gateway, the IPN that decides each outcome."""
