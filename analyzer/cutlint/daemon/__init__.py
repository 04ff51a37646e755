"""A resident process that starts `cutlint check` runs with everything already imported.

A one-file check spends most of its time before it reads the file: Python's start, click,
pydantic and the records, the judge, the families and the parser (docs/scale.md, "Start-up").
With pydantic records that floor is about 0.4 s on a 2-core machine, however small the file.
`cutlint daemon start` starts one process that imports all of it once, then waits on a Unix
socket; a `cutlint check` that finds it hands over its command line, working directory,
environment and standard streams (the descriptors themselves, SCM_RIGHTS), and the daemon forks
a copy of itself that runs the command exactly as the check's own process would have. The check
waits for that copy's exit status and exits with it. This is the shape of Nailgun, dmypy and
eslint_d: the same command, minus its start-up.

    cutlint check F ──▶ address: a daemon for this cutlint and this environment?
                          ├─ no ──▶ runs the check itself, as always
                          └─ yes ─▶ client ══ socket ══▶ server ──fork──▶ attendant ──fork──▶ run
                                     ◀── pid, then exit status ─────────────┘      (the check, on
                                                                                   the caller's fds)

What makes it safe to answer for a fresh process:
- a daemon serves only its own cutlint (the tool key: every source, table and rule file), its
  own interpreter and module path (with each path entry's stat: an installed or upgraded package
  changes its directory), and the same environment as far as a check reads it; anything else is
  another socket name (`address.py`), so another daemon or none;
- the daemon only imports before it forks: no run's memo or context is ever inherited;
- each run is a fresh fork of it, given the caller's descriptors, working directory, umask,
  environment and arguments, with new standard streams (a terminal's stdout line-buffered, as
  Python makes it) and the signal handlers a new process has.

Nothing here imports the command line's modules: the server is given what to import and what to
run (`cutlint/__main__.py`), so this package sits below `cutlint.cli`.
"""
