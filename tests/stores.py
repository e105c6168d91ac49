"""The store's two engines for tests: SQLite files, and PostgreSQL when ``CRUEL_TEST_POSTGRES``
names a server (``postgresql://postgres@127.0.0.1:5432/test``; set by ``.ci/run``).

Import ``store_target`` into a test module to run its tests against both: each PostgreSQL test
gets a schema of its own (``search_path`` in the URL), dropped after it, so tests never see each
other's rows.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from cruel_tools.site.database import PostgresDatabase

ENV = "CRUEL_TEST_POSTGRES"
ENGINES = ["sqlite", "postgresql"]
SKIP_REASON = (
    f"PostgreSQL tests need a server: set {ENV}=postgresql://user@host:port/dbname "
    "(CI sets it in .ci/run)"
)


def server() -> str | None:
    return os.environ.get(ENV) or None


def needs_postgres() -> str:
    """The server's URL, or skip the test with the reason."""
    url = server()
    if url is None:
        pytest.skip(SKIP_REASON)
    return url


def with_schema(url: str, schema: str) -> str:
    """``url`` with ``search_path`` set to ``schema`` (psycopg passes ``options`` on)."""
    joiner = "&" if "?" in url else "?"
    return f"{url}{joiner}options={quote(f'-csearch_path={schema}')}"


class FreshSchema:
    """A schema of its own on the server, dropped (with everything in it) by :meth:`drop`."""

    def __init__(self, url: str) -> None:
        import psycopg

        self.server = url
        self.name = "cruel_test_" + uuid.uuid4().hex[:12]
        with psycopg.connect(url, autocommit=True) as db:
            db.execute(f"CREATE SCHEMA {self.name}")
        self.url = with_schema(url, self.name)

    def drop(self) -> None:
        import psycopg

        for database in list(PostgresDatabase.opened):  # what the test left open
            database.close()
        with psycopg.connect(self.server, autocommit=True) as db:
            db.execute(f"DROP SCHEMA IF EXISTS {self.name} CASCADE")


@pytest.fixture(params=ENGINES)
def store_target(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Path | str]:
    """An empty store: an SQLite file's path, or a PostgreSQL URL whose schema is new."""
    if request.param == "sqlite":
        yield tmp_path / "cruel.sqlite"
        return
    fresh = FreshSchema(needs_postgres())
    try:
        yield fresh.url
    finally:
        fresh.drop()


def is_sqlite(target: Path | str) -> bool:
    return isinstance(target, Path)


def sqlite_only(target: Path | str, why: str = "it reads the SQLite file itself") -> None:
    if not is_sqlite(target):
        pytest.skip(f"SQLite only: {why}")
