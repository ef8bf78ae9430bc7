#!/usr/bin/env python3
"""Runs a command, interrupts it (SIGINT, as Ctrl-C does) once it has used
<seconds> of CPU time -- past start-up and parsing, inside its search,
however loaded or instrumented the machine -- and prints its exit status and
standard error, so that lit can check how dsm-opt ends an interrupted search
(docs/user-guide.md): "interrupted after N of M ...", a non-zero exit, no
output file.

usage: interrupt.py [--term] <cpu seconds> <command> [args...]
(--term: SIGTERM, as a job scheduler stops a run, instead of SIGINT)
"""
import os
import signal
import subprocess
import sys
import time



def cpu_seconds(pid):
    """User + system time of a running process (Linux /proc)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


arguments = sys.argv[1:]
stop = signal.SIGINT
if arguments[0] == "--term":
    stop = signal.SIGTERM
    arguments = arguments[1:]
budget = float(arguments[0])
process = subprocess.Popen(arguments[1:], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
while process.poll() is None:
    try:
        if cpu_seconds(process.pid) >= budget:
            break
    except (OSError, IndexError, ValueError):
        pass
    time.sleep(0.05)
if process.poll() is not None:
    sys.exit("interrupt.py: the command ended before it could be interrupted")
process.send_signal(stop)
try:
    _, errors = process.communicate(timeout=60)
except subprocess.TimeoutExpired:
    process.kill()
    sys.exit("interrupt.py: the command did not stop within 60 s of the signal")
print(f"exit {process.returncode}")
sys.stdout.write(errors)
