"""Permite ``python -m tutor_lib ...`` igual que el comando ``tutor``."""

from tutor_lib.cli import main

raise SystemExit(main())
