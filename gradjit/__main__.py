"""`python -m gradjit dump ...`: the `gradjit` command."""
import sys

from gradjit.cli import main

sys.exit(main())
