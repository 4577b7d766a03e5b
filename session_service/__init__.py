"""The islands' /session/* endpoints, shared by the generator (`storefront serve`, `storefront
session`) and the companion (`storefront api`): one implementation, in front of any API.

It imports neither the generator nor the companion (the import contracts say so), so neither
side's internals reach the other through it.
"""
