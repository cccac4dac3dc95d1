D2 = excluded
