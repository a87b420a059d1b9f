"""Regression cases found by the program fuzzer (sstad.testing), reduced by hand/Hypothesis."""
KNOWN = ()
