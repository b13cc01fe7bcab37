"""What the CLI tests share for Ctrl-C: start a command, send SIGINT once it
has run a second, and collect its exit status and stderr."""

import signal
import subprocess
import time


def interrupt(test, args, env=None):
    """Runs `args`, interrupts it after a second and returns (exit status,
    stderr); fails `test` (a unittest.TestCase) if it goes on for 20 s."""
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=env)
    time.sleep(1.0)
    p.send_signal(signal.SIGINT)
    try:
        _, err = p.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        test.fail("run went on after Ctrl-C")
    return p.returncode, err
