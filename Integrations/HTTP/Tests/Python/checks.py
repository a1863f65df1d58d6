"""What the Python checks share: each check printed as it passes or fails,
the failures kept, so that a run reports every failure, not only the first."""

import sys

failures = []


def check(condition, message):
    if condition:
        print(f"  ok: {message}")
    else:
        print(f"  FAILED: {message}")
        failures.append(message)


def finish():
    """Ends the run: status 1, after saying how many, when a check failed."""
    if failures:
        print(f"{len(failures)} checks failed")
        sys.exit(1)
    print("Every check passed.")
