from django.urls import path

from archive import views

app_name = "archive"

urlpatterns = [
    path("games/", views.archive, name="archive"),
    path("games/import/", views.record_import, name="import"),
    path("games/mine.zip", views.my_records, name="my_records"),
    path("games/<int:pk>/replay/", views.replay, name="replay"),
    path("games/<int:pk>/deal/", views.deal, name="deal"),
    path("games/<int:pk>/replay/record.txt", views.record, name="record"),
    path("games/<int:pk>/replay/analyse/", views.analyse, name="analyse"),
    path("records/<int:pk>/", views.imported, name="imported"),
    path("records/<int:pk>/record.txt", views.imported_record, name="imported_record"),
    path("records/<int:pk>/analyse/", views.analyse_imported, name="analyse_imported"),
]
