"""Add-on test scenarios as plain functions: each runs inside the long-lived Blender
(`blender.call("module.function", *args)` in tests/addon/conftest.py), after PRELUDE has
enabled the extension and emptied the file, takes JSON-able arguments and returns what the
test asserts on (through JSON, as `result()` does)."""
