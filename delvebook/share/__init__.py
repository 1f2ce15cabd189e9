"""Sharing a campaign: a repository Binder launches (``repo``), a static JupyterLite site (``lite``), and every
frame written out as open data (``export``)."""
