"""What accounts tells the apps above it, which it may not import (DESIGN.md's layers).

- ``account_closed`` (``user=``): sent by :func:`accounts.services.account_close` inside its
  transaction, once the account is closed; a receiver's failure undoes the closing. The game app
  ends the player's seeks and games in play (``game.receivers``).
"""

from django.dispatch import Signal

account_closed = Signal()
