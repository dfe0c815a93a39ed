"""Delivering composed messages over one SMTP connection, and what a failure means.

`send_all` sends a chunk of messages in order. With one connection and no SMTP pipelining
the server reads a message while the sender waits for its answer, so each message is
handed over (`SMTP.hand_over`) and the verdict on it read only when the next message is
ready: meanwhile the worker renders an event of its next chunk (`meanwhile`) and composes
the next message. One thread does it all, so rendering and sending never wait for each
other's turn at the interpreter lock, as they did with a sender thread.

Whatever goes wrong with one message is that message's failure, never the chunk's; but
once a message to an address failed, no later message to that address is tried in the
batch (`Sending.stopped`): it must not overtake the failed one. A connection that breaks under a
message (not an answer about it) is replaced, and the message sent once more over the new
one; a server that cannot be reached (`Unavailable`) ends the chunk, and the messages not
tried are handed back to the caller.
"""

from __future__ import annotations

import smtplib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from email.utils import parseaddr

from server.config import Settings
from server.mail.compose import compose
from server.mail.smtp import SMTP, SMTPOverSSL
from server.models import OutboxMessage

SMTP_TIMEOUT = 30
PER_CONNECTION = 100  # messages sent over one SMTP connection (servers limit it)


class Unavailable(Exception):
    """The SMTP server cannot be reached, or turned the connection away."""


class Undeliverable(Exception):
    """The message cannot be sent as it is, however often it is tried."""


def describe(error: BaseException) -> str:
    """An error as one line for `last_error` and the log."""
    return f"{type(error).__name__}: {error}"


class Mailer:
    """An SMTP connection opened on first use, as `CAFE_SMTP_*` describes."""

    def __init__(self, config: Settings) -> None:
        self.config = config
        self.envelope_from = parseaddr(config.mail_from)[1]  # where bounces go
        self._smtp: SMTP | None = None
        self._sent_here = 0  # messages sent over the open connection

    def connect(self) -> SMTP:
        """A new connection, greeted and logged in; `Unavailable` if that fails."""
        config = self.config
        host, port = config.smtp_host, config.smtp_port
        try:
            if config.smtp_tls == "ssl":
                smtp: SMTP = SMTPOverSSL(host, port, timeout=SMTP_TIMEOUT)
            else:
                smtp = SMTP(host, port, timeout=SMTP_TIMEOUT)
                if config.smtp_tls == "starttls":
                    smtp.starttls()
            if config.smtp_user:
                smtp.login(config.smtp_user, config.smtp_password)
            smtp.ehlo_or_helo_if_needed()
        except (smtplib.SMTPException, OSError) as error:
            reason = f"SMTP server {host}:{port} unavailable: {describe(error)}"
            raise Unavailable(reason) from error
        return smtp

    def hand_over(self, message: OutboxMessage, data: bytes) -> None:
        """Hand one composed message to the SMTP server, its verdict to be read with
        `verdict` (raises `Unavailable`, `Undeliverable`, `smtplib` and `OSError` errors)."""
        assert message.to_addr is not None
        if self._sent_here >= PER_CONNECTION:
            self.close()
        if self._smtp is None:
            self._smtp = self.connect()
            self._sent_here = 0
        international = not message.to_addr.isascii()
        if international and not self._smtp.has_extn("smtputf8"):
            raise Undeliverable(
                f"{message.to_addr!r} is an international address and the SMTP server "
                "does not offer SMTPUTF8"
            )
        self._sent_here += 1
        options = ["SMTPUTF8"] if international else []
        self._smtp.hand_over(self.envelope_from, message.to_addr, data, mail_options=options)

    def verdict(self) -> None:
        """Read the server's answer to the message handed over (raises if it refused it)."""
        if self._smtp is None:
            raise smtplib.SMTPServerDisconnected("the connection was closed")
        self._smtp.verdict()

    def send(self, message: OutboxMessage, data: bytes) -> None:
        """Hand one composed message over and read the verdict on it."""
        self.hand_over(message, data)
        self.verdict()

    def close(self) -> None:
        """Say goodbye to the server; a connection that already broke is just dropped."""
        if self._smtp is not None:
            try:
                self._smtp.quit()
            except (smtplib.SMTPException, OSError):
                self._smtp.close()
            self._smtp = None

    def reset(self) -> None:
        """Drop the connection after an error, so the next message opens a fresh one."""
        if self._smtp is not None:
            self._smtp.close()
            self._smtp = None


def is_permanent(error: Exception) -> bool:
    """True when retrying cannot help: the server refused the message or its recipient, or
    the message cannot be written for it."""
    if isinstance(error, Undeliverable | UnicodeError | smtplib.SMTPNotSupportedError):
        return True
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        return all(code >= 500 for code, _ in error.recipients.values())
    if isinstance(error, smtplib.SMTPResponseException):
        return error.smtp_code >= 500 and not isinstance(error, smtplib.SMTPAuthenticationError)
    return False


def is_connection_lost(error: Exception) -> bool:
    """True when the connection broke under a message (not an answer about it)."""
    if isinstance(error, smtplib.SMTPServerDisconnected):
        return True
    return isinstance(error, OSError) and not isinstance(error, smtplib.SMTPException)


def stop(stopped: dict[str, int], message: OutboxMessage) -> None:
    """Nothing later than `message` is to be tried for its address in this batch."""
    address, number = message.to_addr or "", message.id or 0
    stopped[address] = min(stopped.get(address, number), number)


def held_back(stopped: dict[str, int], message: OutboxMessage) -> bool:
    """Whether an earlier message to `message`'s address stopped it (`stop`)."""
    return stopped.get(message.to_addr or "", message.id or 0) < (message.id or 0)


@dataclass
class Sending:
    """What sending a chunk came to: sent, failed (with the error), held back (not tried:
    an earlier message to the address failed), and if the SMTP server became unreachable,
    the messages not tried and why. `stopped`: by address, the message (id) from which on
    nothing is tried for it (the batch's, shared by its chunks)."""

    stopped: dict[str, int] = field(default_factory=dict)
    sent: list[OutboxMessage] = field(default_factory=list)
    failed: list[tuple[OutboxMessage, Exception]] = field(default_factory=list)
    held: list[OutboxMessage] = field(default_factory=list)
    unsent: list[OutboxMessage] = field(default_factory=list)
    outage: str | None = None

    def fail(self, message: OutboxMessage, error: Exception) -> None:
        """Record `message`'s failure, and try nothing later for its address."""
        self.failed.append((message, error))
        stop(self.stopped, message)

    def holds_back(self, message: OutboxMessage) -> bool:
        """Whether an earlier message to `message`'s address stopped it."""
        return held_back(self.stopped, message)

    def conclude(self, mailer: Mailer, message: OutboxMessage, data: bytes) -> bool:
        """Read the verdict on `message`, handed over, into the record; False when the
        server cannot be reached (then `message` is not counted)."""
        try:
            _conclude(mailer, message, data)
        except Unavailable as error:
            self.outage = str(error)
            return False
        except Exception as error:  # this message's failure only
            self.fail(message, error)
        else:
            self.sent.append(message)
        return True


def send_all(
    mailer: Mailer,
    due: Sequence[OutboxMessage],
    mail_from: str,
    meanwhile: Callable[[], object] = lambda: None,
    stopped: dict[str, int] | None = None,
) -> Sending:
    """Send `due` in order over `mailer`, each message from `mail_from`: composed, handed
    over, then `meanwhile` is called and the next message composed before the verdict on
    it is read. Nothing is tried that an earlier message to its address stopped (`stopped`,
    the caller's, to which the messages that fail here are added)."""
    done = Sending(stopped={} if stopped is None else stopped)
    handed: tuple[OutboxMessage, bytes] | None = None  # handed over, the verdict to come
    for index, message in enumerate(due):
        try:
            data: bytes | Exception = compose(message, mail_from)
        except Exception as error:  # this message's failure only
            data = error
        if handed is not None and not done.conclude(mailer, *handed):
            done.unsent += [handed[0], *due[index:]]
            return done
        handed = None
        if done.holds_back(message):
            done.held.append(message)
            continue
        if isinstance(data, Exception):
            done.fail(message, data)
            continue
        try:
            if _handed_over(mailer, message, data):
                handed = (message, data)
            else:
                done.sent.append(message)
        except Unavailable as error:
            done.unsent += due[index:]
            done.outage = str(error)
            return done
        except Exception as error:
            done.fail(message, error)
            continue
        meanwhile()
    if handed is not None and not done.conclude(mailer, *handed):
        done.unsent.append(handed[0])
    return done


def _handed_over(mailer: Mailer, message: OutboxMessage, data: bytes) -> bool:
    """Hand `message` over: True when the verdict on it is still to be read, False when it
    was sent whole once more because the connection broke under it. Raises its failure."""
    try:
        mailer.hand_over(message, data)
    except Exception as error:
        _once_more(mailer, message, data, error)
        return False
    return True


def _conclude(mailer: Mailer, message: OutboxMessage, data: bytes) -> None:
    """Read the verdict on `message`, handed over; raises its failure."""
    try:
        mailer.verdict()
    except Exception as error:
        _once_more(mailer, message, data, error)


def _once_more(mailer: Mailer, message: OutboxMessage, data: bytes, error: Exception) -> None:
    """After `error` with `message`: drop the connection; if it broke under the message
    (not an answer about it), send the message once more over a new one, else raise
    `error`."""
    mailer.reset()
    if not is_connection_lost(error):
        raise error
    mailer.send(message, data)
