#!/usr/bin/env python3
"""Runs a command whose input is a FIFO, and prints its exit status, its
standard error and whether the writer was still being read, so that lit can
check how a tool ends on a stream that never ends.

usage: fifo_input.py <fifo> (<file>|--endless) <command> [args...]
Creates <fifo>; a thread writes <file> into it once (then closes it), or
zero bytes without end (--endless) until the reader closes it. The command
names <fifo> among its arguments.
"""
import os
import subprocess
import sys
import threading

fifo, source, command = sys.argv[1], sys.argv[2], sys.argv[3:]
if os.path.exists(fifo):
    os.remove(fifo)
os.mkfifo(fifo)


def feed():
    # Blocks until the command opens the FIFO for reading.
    fd = os.open(fifo, os.O_WRONLY)
    try:
        if source == "--endless":
            block = bytes(1 << 20)
            while True:
                os.write(fd, block)
        else:
            with open(source, "rb") as f:
                os.write(fd, f.read())
    except BrokenPipeError:
        pass  # the reader stopped reading: what an endless feed expects
    finally:
        os.close(fd)


writer = threading.Thread(target=feed, daemon=True)
writer.start()
process = subprocess.run(command, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
print(f"exit {process.returncode}")
sys.stdout.write(process.stderr)
writer.join(timeout=60)
print("writer done" if not writer.is_alive() else "writer still writing")
