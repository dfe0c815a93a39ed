"""Email: what the service sends and what it reads.

Sending: `messages` builds every email (Jinja pairs in `templates/email/` via `templates`,
the HTML board of `board`) from `facts`; `outgoing` queues it in the outbox with its headers
(`addresses`: signed reply addresses, unsubscribe tokens, thread ids); the worker turns a
row into MIME with `compose` and sends it with `sending` (over `smtp`), respecting `quota`;
`digest` writes the daily digests.
Reading: `receiver` accepts replies over SMTP, `reading` (with `inbound_html`) finds the
turn in one, and `replies` plays or answers it.
"""
