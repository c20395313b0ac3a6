"""`python -m spyre_fuzz` (with `test/fuzz` on `PYTHONPATH`): the fuzzer's command line."""

import sys

from spyre_fuzz.cli import main

sys.exit(main())
