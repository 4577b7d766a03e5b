"""Helpers the generator's tests share: fake APIs, fixture stores, builds of the demo."""
