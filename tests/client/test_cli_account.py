"""`cafe register`, `login`, `logout`, `whoami` and the errors of identity: no token, a
refused token, an unreachable server, a bad URL."""

from __future__ import annotations

import json
import stat
import uuid

from client_support import Cafe, Player

from client.errors import ExitCode


def test_register_then_login_with_the_code_from_the_email(cafe: Cafe) -> None:
    name = f"zoe{uuid.uuid4().hex[:6]}"
    email = f"{name}@example.com"
    registered = cafe.run("register", name, email, "--server", cafe.server.url)
    assert registered.exit_code == ExitCode.OK, registered.output
    assert f"A sign-in code is on its way to {email}." in registered.stdout
    assert f"Sign in with: cafe login {email}" in registered.stdout
    signed_in = cafe.run("login", email, "--code", cafe.server.code_for(email))
    assert signed_in.exit_code == ExitCode.OK, signed_in.output
    assert signed_in.stdout == f"Signed in as {name} on {cafe.server.url}.\n"
    whoami = cafe.run("whoami")
    assert whoami.stdout == f"{name} <{email}> on {cafe.server.url} · profile default\n"


def test_login_asks_for_the_code_register_just_sent(cafe: Cafe) -> None:
    name = f"yan{uuid.uuid4().hex[:6]}"
    email = f"{name}@example.com"
    cafe.run("register", name, email, "--server", cafe.server.url)
    code = cafe.server.code_for(email)
    signed_in = cafe.run("login", email, input=f"{code}\n")
    assert signed_in.exit_code == ExitCode.OK, signed_in.output
    assert "Code (or sign-in link) from the email" in signed_in.stdout
    assert len(cafe.server.postbox(email)) == 1  # no second code was sent


def test_login_takes_the_sign_in_link_pasted_from_the_email(cafe: Cafe) -> None:
    name = f"xia{uuid.uuid4().hex[:6]}"
    email = f"{name}@example.com"
    cafe.run("register", name, email, "--server", cafe.server.url)
    link = f"{cafe.server.url}/signin/link/{cafe.server.code_for(email, link=True)}"
    signed_in = cafe.run("login", email, input=f"  {link}\n")
    assert signed_in.exit_code == ExitCode.OK, signed_in.output
    assert signed_in.stdout.endswith(f"Signed in as {name} on {cafe.server.url}.\n")


def test_login_elsewhere_has_a_new_code_mailed_and_asks_for_it(cafe: Cafe, ann: Player) -> None:
    elsewhere = Cafe(cafe.server, cafe.config_dir.parent / "laptop")
    mails = len(cafe.server.postbox(ann.email))

    def type_new_code() -> str:  # the code only exists once `login` asked for it
        return cafe.server.code_for(ann.email)

    first = elsewhere.run("login", ann.email, "--server", cafe.server.url, input="0000000000\n")
    assert first.exit_code == ExitCode.NOT_SIGNED_IN
    assert f"A sign-in code was mailed to {ann.email}." in first.stdout
    assert len(cafe.server.postbox(ann.email)) == mails + 1
    assert first.stderr.startswith("cafe: this sign-in code is wrong, used or expired")
    again = elsewhere.run("login", ann.email, "--code", type_new_code())
    assert again.exit_code == ExitCode.OK, again.output
    assert elsewhere.run("whoami").stdout.startswith(f"{ann.name} <")


def test_the_token_file_is_readable_by_its_owner_only(cafe: Cafe, ann: Player) -> None:
    credentials = cafe.config_dir / "credentials.json"
    assert stat.S_IMODE(credentials.stat().st_mode) == 0o600
    assert stat.S_IMODE(cafe.config_dir.stat().st_mode) == 0o700
    assert ann.token not in (cafe.config_dir / "config.json").read_text()
    assert json.loads(credentials.read_text())[ann.name]["token"] == ann.token


def test_register_a_taken_name_is_one_line_and_exit_1(cafe: Cafe, ann: Player) -> None:
    again = cafe.run("register", ann.name, "other@example.com", "--server", cafe.server.url)
    assert again.exit_code == ExitCode.ERROR
    assert again.stderr == f"cafe: the name {ann.name!r} is taken; choose another\n"
    assert again.stdout == ""


def test_register_with_a_bad_name_says_what_a_name_is(cafe: Cafe) -> None:
    bad = cafe.run("register", "9lives", "cat@example.com", "--server", cafe.server.url)
    assert bad.exit_code == ExitCode.ERROR
    assert "a letter, then up to 23 letters" in bad.stderr


def test_profiles_keep_players_apart(cafe: Cafe, ann: Player, bob: Player) -> None:
    assert ann.run("whoami").stdout.startswith(f"{ann.name} <")
    assert bob.run("whoami").stdout.startswith(f"{bob.name} <")
    via_env = cafe.run("whoami", env={"CAFE_PROFILE": bob.name})
    assert via_env.stdout.startswith(f"{bob.name} <")


def test_not_signed_in_says_how_to_sign_in_and_exits_5(cafe: Cafe) -> None:
    result = cafe.run("games")
    assert result.exit_code == ExitCode.NOT_SIGNED_IN
    assert result.stderr == (
        "cafe: you are not signed in: run `cafe login EMAIL` (or `cafe register NAME EMAIL` "
        "first)\n"
    )


def test_a_revoked_token_says_how_to_sign_in_again(cafe: Cafe, ann: Player) -> None:
    token_id = json.loads((cafe.config_dir / "credentials.json").read_text())[ann.name]["id"]
    assert cafe.server.call("DELETE", f"/api/tokens/{token_id}", ann.token).status_code == 204
    result = ann.run("whoami")
    assert result.exit_code == ExitCode.NOT_SIGNED_IN
    assert result.stderr == (
        "cafe: this token is unknown or revoked; sign in again for a new one — sign in again: "
        f"cafe --profile {ann.name} login {ann.email}\n"
    )


def test_cafe_token_and_cafe_server_override_the_profile(cafe: Cafe, ann: Player) -> None:
    result = cafe.run("whoami", env={"CAFE_TOKEN": ann.token, "CAFE_SERVER": cafe.server.url})
    assert result.exit_code == ExitCode.OK, result.output
    assert "profile default (token from CAFE_TOKEN)" in " ".join(result.stdout.split())
    refused = cafe.run(
        "whoami", env={"CAFE_TOKEN": "cafe_nonsense", "CAFE_SERVER": cafe.server.url}
    )
    assert refused.exit_code == ExitCode.NOT_SIGNED_IN
    assert refused.stderr.startswith("cafe: the server refused the token in CAFE_TOKEN: ")
    assert "cafe_nonsense" not in (cafe.config_dir / "credentials.json").read_text()
    assert "default" not in json.loads((cafe.config_dir / "credentials.json").read_text())


def test_logout_revokes_the_token_and_forgets_it(cafe: Cafe, ann: Player) -> None:
    result = ann.run("logout")
    assert result.exit_code == ExitCode.OK, result.output
    assert result.stdout == f"Signed out (profile {ann.name}).\n"
    assert cafe.server.call("GET", "/api/me", ann.token).status_code == 401
    assert ann.run("whoami").exit_code == ExitCode.NOT_SIGNED_IN
    again = ann.run("logout")
    assert again.exit_code == ExitCode.NOT_SIGNED_IN
    assert "there is no stored token to forget" in again.stderr


def test_logout_forgets_the_token_even_when_the_server_is_away(
    cafe: Cafe, ann: Player, dead_url: str
) -> None:
    result = ann.run("logout", env={"CAFE_SERVER": dead_url})
    assert result.exit_code == ExitCode.OK
    assert f"the server did not revoke the token (cannot reach the server at {dead_url}" in (
        result.stderr
    )
    assert "Signed out" in result.stdout
    assert ann.run("whoami").exit_code == ExitCode.NOT_SIGNED_IN


def test_an_unreachable_server_is_named_and_exits_3(cafe: Cafe, ann: Player, dead_url: str) -> None:
    result = ann.run("games", env={"CAFE_SERVER": dead_url})
    assert result.exit_code == ExitCode.UNREACHABLE
    assert result.stderr.startswith(f"cafe: cannot reach the server at {dead_url}; ")
    assert len(result.stderr.splitlines()) == 1


def test_a_malformed_server_url_is_one_line(cafe: Cafe, ann: Player) -> None:
    result = ann.run("games", env={"CAFE_SERVER": "127.0.0.1:5000"})
    assert result.exit_code == ExitCode.ERROR
    assert result.stderr.startswith("cafe: cannot send to '127.0.0.1:5000'")
    assert "Traceback" not in result.output


def test_a_damaged_config_file_is_named(cafe: Cafe) -> None:
    cafe.config_dir.mkdir(parents=True)
    (cafe.config_dir / "config.json").write_text("{not json")
    result = cafe.run("whoami")
    assert result.exit_code == ExitCode.ERROR
    assert result.stderr.startswith(f"cafe: cannot read {cafe.config_dir / 'config.json'} (")
    assert result.stderr.endswith("fix or delete it\n")
