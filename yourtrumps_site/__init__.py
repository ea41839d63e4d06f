"""The Django project of the Your Trumps web site: settings, URLs and the ASGI application."""
