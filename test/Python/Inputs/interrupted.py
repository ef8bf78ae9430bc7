"""A memory placement far too long to finish, for test/Python/interrupt.test
to interrupt: map_model raises KeyboardInterrupt carrying the best map so
far, marked interrupted. Prints to stderr (interrupt.py shows it)."""

import sys

import dsm

try:
    dsm.map_model(sys.argv[1], system="nnp-i", placement="ea",
                  iterations=100000000)
    print("finished", file=sys.stderr)
except KeyboardInterrupt as interrupt:
    placement = interrupt.report["placements"][0]
    print("KeyboardInterrupt: interrupted", placement["interrupted"],
          "valid", placement["valid"], file=sys.stderr)
    print(str(interrupt), file=sys.stderr)
# The next search catches a Ctrl-C again, and is not stopped by this one.
report = dsm.map_model(sys.argv[1], system="nnp-i", placement="ea",
                       iterations=50)
print("then:", report["placements"][0]["evaluations"], "evaluations",
      file=sys.stderr)
