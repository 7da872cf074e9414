"""``python -m ssdlab`` is the ``ssdlab`` command."""

import sys

from ssdlab.cli import main

sys.exit(main())
