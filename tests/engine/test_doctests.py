"""The examples in the engine's docstrings run as written."""

import doctest
import importlib
import pkgutil

import pytest

import game.engine

MODULES = [game.engine.__name__] + [
    f"{game.engine.__name__}.{m.name}" for m in pkgutil.iter_modules(game.engine.__path__)
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    failures, _ = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert failures == 0
