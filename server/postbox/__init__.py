"""The postbox: where the domain posts the email it causes, below the domain. It holds the
kinds of email (`kinds`), the facts a notice is queued with (`facts`), the signed addresses,
links and Message-IDs the rows carry (`addresses`), and recording that an email is due, as an
outbox row written in the change's own transaction: an event of a game change (`outgoing`)
or a notice with the facts of its moment (`notices`). Rendering and sending are the mail
layer's (`server.mail`) and the worker's (`server.jobs`), which read the rows later.
docs/email.md."""
