"""Players, sign-in requests and tokens: the store functions behind `server.api.accounts`.

Each function takes the session as its first argument and commits its own change, so a
view is a thin layer: read input, call one function, shape the response.
"""

from __future__ import annotations

import hashlib
import hmac
from datetime import timedelta

from sqlalchemy import func
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from cafe import i18n
from cafe.i18n import Text, lazy_gettext
from server import auth, signin, throttle
from server.config import Settings
from server.db import insert_for
from server.domain import Conflict, NotFound, Refused, Unauthenticated
from server.games.computers import is_computer_name
from server.mailbox import AddressError, normalise_address, parse_new_address
from server.models import ApiToken, Player, SignInCode, table_of, utcnow
from server.names import skeleton


def find_player(session: Session, *, email: str) -> Player | None:
    """The player with this email, compared as stored: normalised, so that one mailbox is
    one player however its address is typed."""
    try:
        address = normalise_address(email)
    except AddressError:
        return None
    return session.exec(select(Player).where(Player.email == address)).first()


def name_refusal(session: Session, name: str) -> Conflict | None:
    """Why `name` cannot be a new player's: a player's name is the same ignoring case, or
    looks like it (the same confusable skeleton, `server.names`); or None. Names are
    public, so the answer tells nothing about anyone's email. The names of computer players
    (`computer-1` …) are theirs alone."""
    if is_computer_name(name):
        return Conflict(
            "name_taken",
            lazy_gettext(
                "The name %(name)s belongs to a computer player; choose another.", name=name
            ),
        )
    holder = session.exec(
        select(Player.name).where(
            (func.lower(Player.name) == name.lower()) | (Player.name_skeleton == skeleton(name))
        )
    ).first()
    if holder is None:
        return None
    if holder.lower() == name.lower():
        return Conflict("name_taken", _taken(name))
    return Conflict(
        "name_taken",
        lazy_gettext(
            "the name %(name)s looks too much like %(holder)s, a player's name; choose another",
            name=repr(name),
            holder=repr(holder),
        ),
    )


def _taken(name: str) -> Text:
    return lazy_gettext("the name %(name)s is taken; choose another", name=repr(name))


def _address(email: str, *, config: Settings) -> str:
    """A new player's address as stored, or a 422 naming what is wrong with it (the
    request was well formed: the address is not one the mail server can deliver to)."""
    try:
        return parse_new_address(email, smtputf8=config.smtp_utf8)
    except AddressError as error:
        raise Refused(
            "invalid_email", lazy_gettext("`email` %(problem)s", problem=error.args[0])
        ) from None


def create_player(session: Session, *, name: str, email: str, config: Settings) -> Player:
    """A new player (`cafe-server players add`: no email is sent); names are unique
    ignoring case and look-alikes, emails once normalised. An address is refused (422)
    unless it is one bare address the mail server can deliver to."""
    email = _address(email, config=config)
    if (refused := name_refusal(session, name)) is not None:
        raise refused
    if session.exec(select(Player.id).where(Player.email == email)).first() is not None:
        raise Conflict(
            "email_taken",
            lazy_gettext(
                "%(email)s is already registered; "
                "ask for a sign-in code with POST /api/signin-codes",
                email=email,
            ),
        )
    player = Player(name=name, email=email)  # its skeleton: the column's default
    session.add(player)
    try:
        session.commit()
    except IntegrityError:  # a concurrent registration won the race
        session.rollback()
        raise name_refusal(session, name) or Conflict(
            "email_taken", lazy_gettext("%(email)s is already registered", email=email)
        ) from None
    return player


def register(session: Session, *, name: str, email: str, config: Settings) -> None:
    """Register a player and have a sign-in email sent, answering alike — in what it says
    and in the work it does — whether or not the email was registered: a registered address
    is mailed a code and told it has an account. Only a taken *name* is refused (names are
    public; the check comes first, so the answer never depends on the email). The new
    player reads the language in use (`cafe.i18n.current()`): the request's.

    The same statements run either way: an INSERT that does nothing when the address (or,
    raced, the name) is taken, the address's owner read back, one outbox row; the worker
    does the rest (`server.signin`)."""
    address = _address(email, config=config)
    if (refused := name_refusal(session, name)) is not None:
        raise refused
    # the model's defaults; the name's skeleton is the column's default, made by the INSERT;
    # the language is the one the request that registers is read in (`server.i18n`)
    values = Player(name=name, email=address, language=i18n.current()).model_dump(
        exclude={"id", "name_skeleton"}
    )
    added = session.execute(
        insert_for(session)(table_of(Player))
        .values(**values)
        .on_conflict_do_nothing()
        .returning(table_of(Player).c.id)
    ).first()
    owner = session.exec(select(Player.id).where(Player.email == address)).first()
    if owner is None:  # not added, and nobody has the address: the name was taken meanwhile
        session.rollback()
        raise name_refusal(session, name) or Conflict("name_taken", _taken(name))
    kind = "signin_code" if added is not None else "signin_again"
    signin.queue(session, config, kind=kind, to=address)
    session.commit()


def request_code(session: Session, *, email: str, config: Settings) -> None:
    """Have a sign-in email sent to `email` if a player has it: one outbox row either way
    (`server.signin` drops it when nobody has the address), so the answer takes as long
    for an address without an account. Codes sent earlier stay valid."""
    try:
        address = normalise_address(email)
    except AddressError:
        return  # no account can have it
    signin.queue(session, config, kind="signin_code", to=address)
    session.commit()


#: The one answer to every failed exchange, so that it does not tell whether the email is
#: registered, has a code, or had another one.
WRONG_CODE = lazy_gettext(
    "this sign-in code is wrong, used or expired for this email; "
    "check the newest email or ask for a new one with POST /api/signin-codes"
)


def redeem_signin_code(
    session: Session, *, email: str, code: str, label: str, client: str, config: Settings
) -> tuple[ApiToken, str]:
    """Exchange a valid code — the short one, or the sign-in link's — for a new token
    (returned with its secret text).

    A short code's every try counts against `client` and against the account the email
    names (`server.throttle`; an address nobody has counts the same, so the limits tell
    nothing); a right one is forgiven. A link's code needs no limit (162 bits no one
    guesses), so the owner can always sign in with the link, whatever others tried.
    """
    now = utcnow()
    address = _normalised(email)
    if signin.is_link_code(code):
        request = signin.by_link(session, code, config.verifying_keys, now)
        player = None if request is None else session.get(Player, request.player_id)
        if request is None or player is None or player.email != address:
            raise Unauthenticated("invalid_code", WRONG_CODE)
        return _sign_in(session, request, player, label)
    tries = throttle.attempts(
        session,
        [
            (guesses_limit(config), client),
            (account_guesses_limit(config), _account_key(address, config=config)),
        ],
    )
    found = signin.matching(
        signin.live_requests(session, address, now),
        code,
        config.verifying_keys,
        at_least=config.signin_codes_per_hour,
    )
    request = None if found is None else session.get(SignInCode, found)
    if request is None:
        raise Unauthenticated("invalid_code", WRONG_CODE)
    player = session.get(Player, request.player_id)
    assert player is not None
    issued = _sign_in(session, request, player, label)
    throttle.forgive(session, *tries)
    return issued


def redeem_signin_link(
    session: Session, *, code: str, label: str, config: Settings
) -> tuple[Player, str]:
    """Exchange a sign-in link's code for a new token (the web's link page): the player and
    the token's secret text."""
    request = signin.by_link(session, code, config.verifying_keys, utcnow())
    player = None if request is None else session.get(Player, request.player_id)
    if request is None or player is None:
        raise Unauthenticated(
            "invalid_link",
            lazy_gettext("this sign-in link is used, expired or damaged; ask for a new email"),
        )
    _, secret = _sign_in(session, request, player, label)
    return player, secret


def link_owner(session: Session, code: str, *, config: Settings) -> Player | None:
    """The player a usable sign-in link's code would sign in (the link page names them)."""
    request = signin.by_link(session, code, config.verifying_keys, utcnow())
    return None if request is None else session.get(Player, request.player_id)


def _sign_in(
    session: Session, request: SignInCode, player: Player, label: str
) -> tuple[ApiToken, str]:
    """Use the request (once: a concurrent sign-in with it loses) for a new token."""
    if not signin.use(session, request, utcnow()):
        session.rollback()
        raise Unauthenticated("invalid_code", WRONG_CODE)
    token, secret = auth.issue_token(session, player=player, label=label)
    session.commit()
    return token, secret


def _normalised(email: str) -> str:
    """An address as stored, or as typed (lowercased) when it is none."""
    try:
        return normalise_address(email)
    except AddressError:
        return email.strip().lower()


def _account_key(address: str, *, config: Settings) -> str:
    """Who a short-code guess counts against: the account its address names, keyed under
    the secret key (the throttle table never shows an address)."""
    key = config.secret_key.encode()
    return "account:" + hmac.new(key, address.encode(), hashlib.sha256).hexdigest()[:40]


def guesses_limit(config: Settings) -> throttle.Limit:
    """Short-code tries per client, with backoff (docs/security.md)."""
    return throttle.Limit("guesses", config.signin_guesses_per_client, backoff=True)


def account_guesses_limit(config: Settings) -> throttle.Limit:
    """Short-code tries per account in a day (docs/security.md): what keeps the expected
    takeovers below one a year; the owner's sign-in link is not limited."""
    return throttle.Limit(
        "account_guesses",
        config.signin_guesses_per_account,
        window=timedelta(days=1),
    )


def signups_limit(config: Settings) -> throttle.Limit:
    """Registrations, per client and overall."""
    return throttle.Limit("signups", config.signups_per_client, config.signups_per_hour)


def codes_limit(config: Settings) -> throttle.Limit:
    """Sign-in email requests, per client (none overall: it would be a switch anyone could
    throw to stop everyone's sign-in)."""
    return throttle.Limit("codes", config.code_requests_per_client)


def list_tokens(session: Session, *, player: Player) -> list[ApiToken]:
    """The player's tokens, newest first, revoked ones included."""
    return list(
        session.exec(
            select(ApiToken)
            .where(ApiToken.player_id == player.id)
            .order_by(col(ApiToken.id).desc())
        )
    )


def revoke_token(session: Session, *, player: Player, token_id: int) -> None:
    """Revoke one of the player's tokens (revoking twice is harmless)."""
    token = session.get(ApiToken, token_id)
    if token is None or token.player_id != player.id:
        raise NotFound(
            "token_not_found",
            lazy_gettext("you have no token %(token)s; see GET /api/tokens", token=token_id),
        )
    if token.revoked_at is None:
        token.revoked_at = utcnow()
        session.commit()
