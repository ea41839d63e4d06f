"""Stored games.

``Game`` and ``Move`` (the move log, from which every position is replayed) arrive in a later
issue; see DESIGN.md. Until then the app has no models.
"""
