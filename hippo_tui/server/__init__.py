"""`hippo-tui serve`: one engine for a team, over HTTP (FastAPI + uvicorn, the optional ``server`` extra).

``app`` builds the routes, ``feeds`` runs each answer as a task of its own and keeps its frames for a
client that reconnects, ``sse`` writes them, ``auth`` and ``tokens`` decide who may do what, ``limits``
bounds what one client can take, ``run`` starts it. Nothing here is imported unless the server runs.
"""
