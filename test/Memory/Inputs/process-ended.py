#!/usr/bin/env python3
# process-ended.py <file holding a pid>: exits 0 once that process has ended
# (gone, or a zombie nobody reaped), 1 if it still runs after 10 s.
import sys
import time

pid = int(open(sys.argv[1]).read())
for _ in range(100):
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        sys.exit(0)
    if state in ("Z", "X"):
        sys.exit(0)
    time.sleep(0.1)
print(f"process {pid} still runs", file=sys.stderr)
sys.exit(1)
