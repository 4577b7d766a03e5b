"""A merchant's own stores: made and listed on the command line (`storefront api stores`)."""
