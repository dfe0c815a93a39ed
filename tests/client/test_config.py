"""Profiles on disk and the environment's overrides (no server needed)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from client.config import DEFAULT_SERVER, Profile, Store, config_dir
from client.errors import NotSignedIn
from client.session import Session


def test_a_profile_round_trips_with_the_token_apart(tmp_path: Path) -> None:
    store = Store(tmp_path / "cafe")
    profile = Profile("work", server="https://cafe.example", email="a@x.org", player="ann")
    profile.token, profile.token_id = "cafe_secret", 7
    store.save(profile)
    assert store.load("work") == profile
    assert "cafe_secret" not in (tmp_path / "cafe" / "config.json").read_text()
    for name in ("config.json", "credentials.json"):
        assert stat.S_IMODE((tmp_path / "cafe" / name).stat().st_mode) == 0o600
    assert store.load("home") == Profile("home")


def test_forgetting_the_token_removes_it_from_the_file(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.save(Profile("p", token="cafe_secret", token_id=1))
    store.save(Profile("p"))
    assert "cafe_secret" not in (tmp_path / "credentials.json").read_text()


def test_a_token_file_left_readable_by_others_is_tightened(tmp_path: Path) -> None:
    (tmp_path / "credentials.json").write_text("{}")
    (tmp_path / "credentials.json").chmod(0o644)
    Store(tmp_path).save(Profile("p", token="cafe_secret"))
    assert stat.S_IMODE((tmp_path / "credentials.json").stat().st_mode) == 0o600


def test_the_config_dir_is_the_platforms_unless_overridden(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert config_dir({"CAFE_CONFIG_DIR": str(tmp_path)}) == tmp_path
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert config_dir({}) == tmp_path / "xdg" / "cafe"


def test_the_environment_wins_but_is_never_stored(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.save(Profile("default", server="http://stored:1", token="cafe_stored"))
    session = Session.open("default", {"CAFE_CONFIG_DIR": str(tmp_path)})
    assert (session.server, session.token) == ("http://stored:1", "cafe_stored")
    environ = {"CAFE_CONFIG_DIR": str(tmp_path), "CAFE_SERVER": "http://env:2", "CAFE_TOKEN": "t"}
    overridden = Session.open("default", environ)
    assert (overridden.server, overridden.token) == ("http://env:2", "t")
    overridden.save()
    assert store.load("default").token == "cafe_stored"
    assert Session.open("new", {"CAFE_CONFIG_DIR": str(tmp_path)}).server == DEFAULT_SERVER


def test_no_token_is_not_signed_in_with_the_command_to_sign_in(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.save(Profile("work", email="ann@example.com"))
    session = Session.open("work", {"CAFE_CONFIG_DIR": str(tmp_path)})
    with pytest.raises(NotSignedIn) as error:
        session.api()
    assert error.value.message == (
        "you are not signed in (profile work): run `cafe --profile work login ann@example.com` "
        "(or `cafe register NAME EMAIL` first)"
    )
