"""`python -m delvebook` runs the command line."""
import sys

from delvebook.cli import main

sys.exit(main())
