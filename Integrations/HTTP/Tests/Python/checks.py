"""What the Python checks share: each check printed as it passes or fails,
the failures kept, so that a run reports every failure, not only the first."""

failures = []


def check(condition, message):
    if condition:
        print(f"  ok: {message}")
    else:
        print(f"  FAILED: {message}")
        failures.append(message)
