"""How long a test waits for something that must end before calling it a hang (a failure, never a time bound on
how fast it ends: those are benchmarks/)."""

HANG_GUARD = 60.0
