"""Players' accounts: registration, login (refusing banned accounts) and profiles."""
