"""Django's SQLite backend, keeping its connections open for the next thread (see ``base``)."""
