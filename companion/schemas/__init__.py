"""Pydantic models of request and response bodies: they make the OpenAPI document."""
