"""``python -m sstad``: the same as the ``sstad`` command."""
import sys

from sstad.cli import main

sys.exit(main())
