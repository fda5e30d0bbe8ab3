"""``python -m sitio``: construye el sitio del curso (ver :mod:`sitio.construir`)."""

from sitio.construir import main

raise SystemExit(main())
