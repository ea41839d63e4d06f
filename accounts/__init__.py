"""Players' accounts: registration, login, profiles and bans (filled in by a later issue)."""
