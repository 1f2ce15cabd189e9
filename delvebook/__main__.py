"""`python -m delvebook` runs the command line."""
import sys

from delvebook.cli.commands import main

sys.exit(main())
