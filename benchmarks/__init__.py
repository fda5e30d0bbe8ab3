"""Tabla de velocidad, memoria y exactitud del curso: ``python -m benchmarks``."""
