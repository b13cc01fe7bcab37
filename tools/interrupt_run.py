"""What the CLI tests share for Ctrl-C: start a command, send SIGINT once it
has run a second (or once a condition holds), and collect its exit status
and stderr."""

import signal
import subprocess
import time


def interrupt(test, args, env=None, sig=signal.SIGINT, until=None):
    """Runs `args`, sends it `sig` (Ctrl-C's) after a second, or as soon as
    `until()` is true, and returns (exit status, stderr); fails `test` (a
    unittest.TestCase) if it goes on for 20 s after the signal."""
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=env)
    if until is None:
        time.sleep(1.0)
    else:
        deadline = time.monotonic() + 60
        while not until() and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
    p.send_signal(sig)
    try:
        _, err = p.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        test.fail("run went on after Ctrl-C")
    return p.returncode, err
