"""Checks that docs/language.md lists every construct of Unsupported.def."""
import re
import sys

table = open(sys.argv[1]).read()
docs = open(sys.argv[2]).read()
names = re.findall(r'UNSUPPORTED\(\s*"([^"]+)"', table)
missing = [name for name in names if f"| `T.{name}` |" not in docs]
if not names or missing:
    sys.exit("docs/language.md does not list: " + (", ".join(missing) or "any"))
