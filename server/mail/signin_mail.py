"""The sign-in email, rendered when the worker sends it: the request is made then
(`server.signin.issue`), and its short code and link derived from it."""

from __future__ import annotations

from sqlmodel import Session

from server.config import Settings
from server.mail import messages, outgoing
from server.models import OutboxMessage, OutboxStatus, Player, aware, utcnow
from server.postbox import addresses
from server.postbox.facts import Recipient
from server.postbox.kinds import EmailKind
from server.signin import LINK_PATH, NOBODY, issue, link_code, short_code


def render(session: Session, config: Settings, row: OutboxMessage) -> tuple[str, str] | None:
    """Fill in the sign-in email `row` as the worker sends it, with its request's code and
    link; or why it is not sent (the address of an email nobody receives is forgotten)."""
    request = issue(session, config, row)
    if isinstance(request, str):
        if request == NOBODY:
            row.to_addr = None
        return OutboxStatus.SKIPPED, request
    player = session.get(Player, request.player_id)
    assert player is not None and player.id is not None
    secret = config.secret_key
    links = addresses.links(config)  # no unsubscribe link: sign-in mail comes whatever one chose
    left = aware(request.expires_at) - utcnow()
    rendered = messages.signin_code(
        Recipient(player_id=player.id, name=player.name, email=player.email),
        code=short_code(secret, request.request_id),
        link=f"{links.base_url}{LINK_PATH}{link_code(secret, request.request_id)}",
        minutes=max(1, int(left.total_seconds()) // 60),
        links=links,
        again=row.kind == EmailKind.SIGNIN_AGAIN,
    )
    outgoing.fill(
        row, outgoing.Composed(player.email, rendered, outgoing.headers(config, links=links))
    )
    return None
