"""The request a sign-in email carries (`server.signin.issue`), made when the worker renders
it, while other workers' retention deletes expired requests."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import delete, event
from sqlmodel import Session, col, select

from server import signin
from server.config import settings_of
from server.db import get_engine
from server.models import OutboxMessage, SignInCode
from server.postbox.kinds import SIGNIN_KINDS

ANN = "ann@example.com"


@pytest.mark.postgres
def test_a_request_deleted_by_retention_while_its_email_is_rendered_again_is_replaced(api):
    """ann signed in with her email's code; the email is rendered again (sent again after a
    failure), and between finding the used request and replacing it, another worker's
    retention deletes that request: a new request is made, with no error."""
    api.register("ann")
    engine, config = get_engine(api.app), settings_of(api.app)
    with Session(engine, expire_on_commit=False) as session:
        row = session.exec(
            select(OutboxMessage).where(
                OutboxMessage.to_addr == ANN, col(OutboxMessage.kind).in_(SIGNIN_KINDS)
            )
        ).one()
        used = session.exec(select(SignInCode).where(SignInCode.outbox_id == row.id)).one()
        assert used.used_at is not None

        def retention_runs(state: Any) -> None:
            if "count" in str(state.statement).lower():  # after the used request was read
                with Session(engine) as other:
                    other.execute(delete(SignInCode).where(col(SignInCode.id) == used.id))
                    other.commit()

        event.listen(session, "do_orm_execute", retention_runs)
        request = signin.issue(session, config, row)
        event.remove(session, "do_orm_execute", retention_runs)

    assert isinstance(request, SignInCode) and request.request_id != used.request_id
    with Session(engine) as session:
        (left,) = session.exec(select(SignInCode)).all()
        assert left.request_id == request.request_id and left.used_at is None
