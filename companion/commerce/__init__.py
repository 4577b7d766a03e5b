"""Commerce domain of the companion: carts, quotes, checkout, orders and their state machine."""
