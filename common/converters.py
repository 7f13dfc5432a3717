"""Path converters: `<id:...>` matches a database id, so a number past the 64-bit range is a 404, not a 500."""

from django.urls import register_converter

MAX_ID = 2**63 - 1  # the largest primary key PostgreSQL and SQLite store


class DatabaseIdConverter:
    regex = "[0-9]{1,19}"

    def to_python(self, value: str) -> int:
        number = int(value)
        if number > MAX_ID:
            raise ValueError("beyond the database's id range")  # the resolver reads this as no match
        return number

    def to_url(self, value) -> str:
        return str(int(value))


register_converter(DatabaseIdConverter, "id")
