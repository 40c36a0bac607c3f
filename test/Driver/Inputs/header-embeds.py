#!/usr/bin/env python3
"""header-embeds.py HEADER BINARY: prints 'match' if the C header HEADER
embeds exactly the bytes of BINARY (a cubin, or PTX with its NUL), and
'mismatch' otherwise."""

import re
import sys

header = open(sys.argv[1]).read()
binary = open(sys.argv[2], "rb").read()
array = re.search(r"_binary\[\] = \{(.*?)\};", header, re.S)
embedded = bytes(int(byte, 16) for byte in re.findall(r"0x([0-9a-f]{2})", array.group(1))) if array else b""
print("match" if embedded in (binary, binary + b"\0") else "mismatch")
