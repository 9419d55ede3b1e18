"""The store on PostgreSQL (``--database postgresql://…``): needs the ``postgres`` extra (psycopg 3)."""
