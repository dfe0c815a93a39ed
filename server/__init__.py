"""The Café International correspondence service: a Flask app over SQLModel.

The application factory is `server.app.create_app` (gunicorn: `server.app:create_app()`);
the operators' console script is `server.cli` (`cafe-server`). This package module imports
nothing, so importing one server module (`server.models`, say) loads only what it needs,
not every blueprint.
"""
