"""Fitting the parameters the package ships as data (`jurisgraph fit …`): each command reads recorded runs or
cases, prints its measures on both dev halves and, when asked, writes its file with its provenance."""
