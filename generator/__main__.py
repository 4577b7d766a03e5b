"""`python -m generator ...` is the `storefront` command."""

from generator.cli import entry

entry()
