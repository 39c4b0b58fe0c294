"""The Python tests, run as modules from the repository root (python3 -m tests.metrics_test), so
they import the models package as it is; the native and JavaScript tests live beside them."""
