"""The engine is pure Python: no Django, importable on its own (DESIGN.md)."""

import ast
import subprocess
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "game" / "engine"


def test_no_engine_module_imports_django():
    for path in ENGINE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            assert not any(n == "django" or n.startswith("django.") for n in names), path


def test_importing_the_engine_loads_no_django():
    code = "import sys, game.engine, game.engine.bench; print('django' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=ENGINE.parents[1],
    )
    assert result.stdout.strip() == "False"
