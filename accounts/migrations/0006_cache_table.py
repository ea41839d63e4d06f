"""The database cache's table (settings.CACHES), where the abuse limits count (accounts.limits):
made by ``migrate`` itself, so that a deploy by Django's ordinary steps has it. Django's own
``createcachetable`` does the work: it makes the table of every database cache the settings name
and routed to this database, skips those that exist, and does nothing when the cache is Redis."""

from django.core.management import call_command
from django.db import migrations


def create_cache_tables(apps, schema_editor):
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0005_profile_challenges_from"),
    ]

    operations = [
        # Reversed, the table stays: createcachetable may have found it there already.
        migrations.RunPython(create_cache_tables, migrations.RunPython.noop),
    ]
