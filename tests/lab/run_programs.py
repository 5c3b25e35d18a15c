"""Runs every program (*.py) of a folder, each in a fresh namespace, for test_code_export.

Prints "== NAME" and then the program's own output, or one line "!! NAME: the error"
when it fails. One interpreter runs them all: importing numpy (or torch) once
rather than once per program keeps the test quick.
"""
import contextlib
import io
import pathlib
import sys
import traceback

folder = pathlib.Path(sys.argv[1])
for path in sorted(folder.glob("*.py")):
    captured = io.StringIO()
    try:
        with contextlib.redirect_stdout(captured):
            code = compile(path.read_text(encoding="utf-8"), str(path), "exec")
            exec(code, {"__name__": "__main__"})
    except Exception:  # report and go on with the next program
        print("!! " + path.name + ": " + traceback.format_exc().replace("\n", " | "))
        continue
    print("== " + path.name)
    sys.stdout.write(captured.getvalue())
