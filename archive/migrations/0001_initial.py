"""The imported records and the analyses move from the game app to the archive: their tables stay
as they are (``game_importedgame``, ``game_analysis``), only Django's idea of whose models they
are changes (state only), and so do their content types, which the admin's log and the
permissions point at."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


MODELS = ("importedgame", "analysis")


def move_content_types(apps, schema_editor):
    ContentType = apps.get_model("contenttypes", "ContentType")
    ContentType.objects.filter(app_label="game", model__in=MODELS).update(app_label="archive")


def move_content_types_back(apps, schema_editor):
    ContentType = apps.get_model("contenttypes", "ContentType")
    ContentType.objects.filter(app_label="archive", model__in=MODELS).update(app_label="game")


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('contenttypes', '0002_remove_content_type_name'),
        ('game', '0008_game_chat_started'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='ImportedGame',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('text', models.TextField(verbose_name='record')),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('uploaded_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='imported_games', to=settings.AUTH_USER_MODEL, verbose_name='uploaded by')),
                    ],
                    options={
                        'verbose_name': 'imported game',
                        'verbose_name_plural': 'imported games',
                        'db_table': 'game_importedgame',
                        'ordering': ('-created_at',),
                    },
                ),
                migrations.CreateModel(
                    name='Analysis',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('status', models.CharField(choices=[('queued', 'waiting to start'), ('running', 'running'), ('done', 'done'), ('failed', 'failed')], default='queued', max_length=8, verbose_name='status')),
                        ('seconds', models.FloatField(verbose_name='thinking time per position (s)')),
                        ('positions', models.JSONField(default=list)),
                        ('only', models.JSONField(default=dict)),
                        ('done', models.PositiveIntegerField(default=0)),
                        ('total', models.PositiveIntegerField(default=0)),
                        ('error', models.TextField(blank=True)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('updated_at', models.DateTimeField(auto_now=True)),
                        ('game', models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='analysis', to='game.game')),
                        ('requested_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='analyses', to=settings.AUTH_USER_MODEL, verbose_name='requested by')),
                        ('imported', models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='analysis', to='archive.importedgame')),
                    ],
                    options={
                        'verbose_name': 'analysis',
                        'verbose_name_plural': 'analyses',
                        'db_table': 'game_analysis',
                        'constraints': [models.CheckConstraint(condition=models.Q(('game__isnull', True), ('imported__isnull', True), _connector='XOR'), name='analysis_of_one_game')],
                    },
                ),
            ],
        ),
        migrations.RunPython(move_content_types, move_content_types_back),
    ]
