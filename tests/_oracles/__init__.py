"""Differential-testing references: compact copies of algorithms the package replaced with
faster ones.  Tests compare the package against them; the package never imports them."""
