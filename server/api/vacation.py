"""Routes for the caller's vacation: `GET`, `POST` and `DELETE /api/me/vacation`."""

from __future__ import annotations

from flask import Blueprint, g

from server.apispec import validate
from server.auth import login_required
from server.clock import vacations
from server.config import current_settings
from server.db import get_session
from server.schemas.clock import VacationCreate, VacationPeriod, VacationStatus

bp = Blueprint("vacation", __name__, url_prefix="/api/me")


def _shown(status: vacations.Status) -> VacationStatus:
    current = status.current
    return VacationStatus(
        bank_days=status.bank_days,
        current=None if current is None else VacationPeriod(start=current.start, end=current.end),
        next_accrual=status.next_accrual,
    )


@bp.get("/vacation")
@login_required
@validate(200, VacationStatus)
def show() -> VacationStatus:
    """The caller's vacation bank, declared vacation and next accrual."""
    return _shown(vacations.status(get_session(), g.player))


@bp.post("/vacation")
@login_required
@validate(201, VacationStatus, 409, 422, json=VacationCreate)
def declare(json: VacationCreate) -> tuple[VacationStatus, int]:
    """Declare a vacation of whole days from now or a later `start`: paid from the bank when
    it starts; the caller's clocks pause in every running game that allows vacation. The
    caller gets a "vacation started" email when it begins."""
    status = vacations.declare(
        get_session(), g.player, days=json.days, start=json.start, config=current_settings()
    )
    return _shown(status), 201


@bp.delete("/vacation")
@login_required
@validate(200, VacationStatus, 409)
def end() -> VacationStatus:
    """End the declared vacation now (or cancel one not begun); unused whole hours go back
    to the bank, and the caller gets a "vacation ended" email (not for a cancellation)."""
    return _shown(vacations.end(get_session(), g.player, config=current_settings()))
