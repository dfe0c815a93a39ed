"""Request bodies sent without a length (`Transfer-Encoding: chunked`) are held to
`MAX_CONTENT_LENGTH` like the others.

Werkzeug stops reading such a body at the limit but hands back what it read, so an oversized
chunked body reached the JSON parser cut short and was refused as unreadable JSON (400).
Reading it once here, past the limit, turns it into the 413 a sized body gets.
"""

from __future__ import annotations

from flask import Flask, request
from werkzeug.exceptions import RequestEntityTooLarge


def init_app(app: Flask) -> None:
    """Check every unsized body against the limit before a view reads it."""

    @app.before_request
    def _refuse_oversized_streams() -> None:
        limit = request.max_content_length
        if request.content_length is not None or limit is None:
            return
        if len(request.get_data(cache=True)) >= limit:
            raise RequestEntityTooLarge()
