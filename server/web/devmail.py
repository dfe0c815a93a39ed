"""`/dev/mail`: the messages the development mail catcher caught, listed and shown.

Registered only when `DEV_MAIL` is on *and* the app runs with the development key
(`cafe-server dev`; outside it the service refuses that key, so these pages cannot be
served in production: they show everyone's mail, sign-in codes included). Even then they
answer only requests from loopback that no proxy forwarded, and the answer form carries a
signed per-page token, so another web site cannot post through a developer's browser. The
catcher (`server.devmail`) saves each message as `<number>.eml` in `DEV_MAIL_DIR`; these
pages read that folder, so they work from any web process on the machine. A game email can
be answered from its page, to try playing by email without a mail server.
"""

from __future__ import annotations

import ipaddress
from email import message_from_bytes, policy
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import Any

from flask import Blueprint, abort, current_app, render_template, request
from itsdangerous import BadSignature, URLSafeTimedSerializer

from cafe.i18n import N_, gettext
from server.apispec import page
from server.config import DEV_SECRET_KEY, Settings, current_settings
from server.mail import replies

bp = Blueprint("devmail", __name__, url_prefix="/dev/mail")

#: Headers a proxy adds: a forwarded request may come from anywhere.
_PROXY_HEADERS = ("X-Forwarded-For", "X-Real-Ip", "Forwarded")

#: Seconds a reply form's token stays good.
FORM_TOKEN_AGE = 3600

#: What became of an answer (`server.mail.replies.Outcome.kind`), as its page says it.
OUTCOMES = {
    "applied": N_("applied"),
    "joined": N_("joined"),
    "refused": N_("refused"),
    "unrecognised": N_("not recognised"),
    "ignored": N_("ignored"),
    "duplicate": N_("handled before"),
}


def outcome_text(kind: str) -> str:
    """What became of an answer, in the language in use (another kind as it is)."""
    return gettext(OUTCOMES[kind]) if kind in OUTCOMES else kind


def may_serve(config: Settings) -> bool:
    """Whether the pages may exist at all: `DEV_MAIL` with the development key."""
    return bool(config.dev_mail) and config.secret_key == DEV_SECRET_KEY


def _from_loopback() -> bool:
    try:
        local = ipaddress.ip_address(request.remote_addr or "").is_loopback
    except ValueError:
        return False
    return local and not any(name in request.headers for name in _PROXY_HEADERS)


@bp.before_request
def _only_this_machine() -> None:
    """Answer 404, as if the pages did not exist, to anyone but this machine."""
    if not _from_loopback():
        abort(404)


def _form_tokens() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(current_settings().secret_key, salt="cafe-devmail-form")


def form_token(number: int) -> str:
    """The token the answer form of message `number` must send back."""
    return str(_form_tokens().dumps(number))


def _form_token_ok(number: int) -> bool:
    try:
        return bool(
            _form_tokens().loads(request.form.get("token", ""), max_age=FORM_TOKEN_AGE) == number
        )
    except BadSignature:
        return False


def _folder() -> Path:
    return Path(current_settings().dev_mail_dir)


def _read(path: Path) -> EmailMessage:
    message = message_from_bytes(path.read_bytes(), policy=policy.default)
    assert isinstance(message, EmailMessage)
    return message


def _part(message: EmailMessage, kind: str) -> str | None:
    body = message.get_body(preferencelist=(kind,))
    return None if body is None else str(body.get_content())


@bp.get("")
@page(200)
def index() -> str:
    """Every caught message, newest first."""
    rows: list[dict[str, Any]] = []
    for path in sorted(_folder().glob("*.eml"), reverse=True):
        message = _read(path)
        rows.append(
            {
                "number": int(path.stem),
                "to": message["To"],
                "subject": message["Subject"],
                "date": message["Date"],
            }
        )
    return render_template("web/devmail_list.html", rows=rows, folder=_folder())


def _caught(number: int) -> EmailMessage:
    path = _folder() / f"{number:05d}.eml"
    if not path.is_file():
        abort(404, gettext("no caught message %(number)s; see /dev/mail", number=number))
    return _read(path)


@bp.get("/<int:number>")
@page(200, 404)
def show(number: int) -> str:
    """One message: its headers, its text part and its HTML part (in a sandboxed frame),
    and for a game email a form to answer it."""
    message = _caught(number)
    return render_template(
        "web/devmail_show.html",
        number=number,
        headers=list(message.items()),
        text=_part(message, "plain"),
        html=_part(message, "html"),
        reply_to=message["Reply-To"],
        token=form_token(number),
    )


@bp.post("/<int:number>/reply")
@page(200, 400, 404, 413)
def reply(number: int) -> tuple[str, int]:
    """Answer a caught game email as a mail program would (the text on top, the email
    quoted below), through the same path as `cafe-server mail-in`."""
    original = _caught(number)
    if not _form_token_ok(number):
        return render_template("web/devmail_reply.html", number=number, stale=True), 400
    if original["Reply-To"] is None:
        return render_template("web/devmail_reply.html", number=number, outcome=None), 400
    answer = EmailMessage()
    answer["From"] = original["To"]
    answer["To"] = original["Reply-To"]
    answer["Subject"] = f"Re: {original['Subject']}"
    answer["Message-ID"] = make_msgid(domain="dev-mail.invalid")
    answer["In-Reply-To"] = original["Message-ID"]
    quoted = "\n".join(f"> {line}" for line in (_part(original, "plain") or "").splitlines())
    text = request.form.get("text", "")
    answer.set_content(f"{text}\n\nOn {original['Date']}, {original['From']} wrote:\n{quoted}\n")
    app = current_app._get_current_object()  # type: ignore[attr-defined]  # typed as the app
    outcome = replies.handle(app, answer.as_bytes())
    return render_template(
        "web/devmail_reply.html", number=number, outcome=outcome, outcome_text=outcome_text
    ), 200
