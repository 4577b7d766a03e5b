"""Customer accounts: passwords, the customer JWT, login throttling, the auth dependency."""
