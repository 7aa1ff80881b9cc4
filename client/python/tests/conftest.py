"""Makes the package importable from a checkout, with its generated API."""

import os
import subprocess
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_PACKAGE_ROOT = os.path.dirname(_HERE)

subprocess.run([os.path.join(_PACKAGE_ROOT, "gen_proto.sh")], check=True)
if _PACKAGE_ROOT not in sys.path:
    sys.path.insert(0, _PACKAGE_ROOT)
