"""Issue 19, class 1: a small app whose OpenAPI description is inexact in the ways real
applications' are (tests/test_output_fit.py, bench/output_fit.py). Group ``realanswers``."""
