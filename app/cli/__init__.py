"""The ``jurisgraph`` command, one module per command group; :mod:`app.cli.main` assembles them.

A thin wrapper: the work happens in graphs/ and tools/. Every user-facing failure is a JurisError that
ends the process with its exit code and a one-line message, never a traceback.
"""
