"""Time in the service: one time source (`timesource.now`), the development clock, and the
pure arithmetic of deadlines, reminders and the vacation bank (LEAGUE.md §1–§2)."""
