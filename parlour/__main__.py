"""``python -m parlour`` is the ``parlour`` command."""

from parlour.cli import main

raise SystemExit(main())
