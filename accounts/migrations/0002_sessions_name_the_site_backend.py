"""Sessions stored before the site had its own backend (``accounts.backends``) name Django's; a
session naming a backend no longer configured is logged out, so they are renamed."""

from django.contrib.auth import BACKEND_SESSION_KEY
from django.db import migrations

DJANGO = "django.contrib.auth.backends.ModelBackend"
SITE = "accounts.backends.ModelBackend"


def _rename(apps, old: str, new: str) -> None:
    from django.contrib.sessions.backends.db import SessionStore

    codec = SessionStore()  # the signed encoding every session store shares
    sessions = apps.get_model("sessions", "Session")
    for session in sessions.objects.iterator():
        data = codec.decode(session.session_data)
        if data.get(BACKEND_SESSION_KEY) == old:
            data[BACKEND_SESSION_KEY] = new
            session.session_data = codec.encode(data)
            session.save(update_fields=["session_data"])


class Migration(migrations.Migration):
    dependencies = [("accounts", "0001_initial"), ("sessions", "0001_initial")]

    operations = [
        migrations.RunPython(
            lambda apps, schema_editor: _rename(apps, DJANGO, SITE),
            lambda apps, schema_editor: _rename(apps, SITE, DJANGO),
        )
    ]
