"""Time in the service: one time source (`timesource.now`), the development clock, and the
pure arithmetic of deadlines, reminders and the vacation bank (docs/league.md)."""
