"""One module per `storefront` subcommand; each exposes ``add_parser(subparsers)``."""
