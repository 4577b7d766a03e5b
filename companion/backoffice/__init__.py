"""The merchant's back office: staff accounts, their sessions, the audit log, and the reads and
writes its pages (``companion.routes.backoffice``) make. No HTTP here: plain domain exceptions."""
