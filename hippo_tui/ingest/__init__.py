"""Documents → passages a citation can point at, with versions that retire what changed.

``reading`` finds and reads files (one parser module per format, imported only when a file of that format
is read), ``passages`` splits a document into passages with stable ids, ``versions`` compares them with the
passages stored for the same document. Nothing here writes: ``Store.apply_ingest`` does, in one transaction.
"""
