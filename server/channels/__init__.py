"""Channels beyond email (issue 26): Discord, Slack, Matrix, ntfy and signed webhooks — the
guard against the inside network, the formats, the texts and the sending."""
