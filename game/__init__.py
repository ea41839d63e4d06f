"""The game: the rules engine (``game.engine``) and the pages and live play built on it."""
