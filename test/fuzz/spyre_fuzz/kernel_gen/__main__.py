"""`python -m spyre_fuzz.kernel_gen` (with `test/fuzz` on `PYTHONPATH`): the generator's command line."""

import sys

from spyre_fuzz.kernel_gen.cli import main

sys.exit(main())
