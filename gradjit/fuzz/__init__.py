"""Differential fuzzing: random programs (programs.py) run through every stage of gradjit and
compared with the reference interpreter, eager autograd and finite differences (check.py);
`python -m gradjit.fuzz --minutes N` runs it for a while and saves what it finds."""
