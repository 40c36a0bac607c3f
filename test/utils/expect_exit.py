#!/usr/bin/env python3
"""expect_exit.py STATUS COMMAND [ARG...]: runs COMMAND and succeeds only if
it exits with STATUS (lit's `not` accepts any failure, which would let an
internal error, status 2, pass for a user error, status 1)."""

import subprocess
import sys

if len(sys.argv) < 3:
    sys.exit(__doc__)
expected = int(sys.argv[1])
status = subprocess.call(sys.argv[2:])
if status != expected:
    print(f"expect_exit.py: '{sys.argv[2]}' exited with {status}, not {expected}",
          file=sys.stderr)
    sys.exit(1)
