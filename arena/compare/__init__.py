"""`arena compare`: a candidate against a baseline on paired deals (`compare`), stopped by a
sequential test (`sprt`)."""
