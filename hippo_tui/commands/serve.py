"""`hippo-tui serve`: one engine for a team, over HTTP (needs the ``server`` extra:
``pip install 'hippo-tui[server]'``), and `hippo-tui token add|list|revoke`: who may call it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hippo_tui.commands._common import EXIT_OK, EXIT_USAGE, settings_from_args

ROLES = ("clinician", "editor", "auditor")


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "serve",
        parents=[common],
        help="run the engine as a server for thin clients (hippo-tui --server URL)",
        description="Serve conversations over HTTP with server-sent events. Without --tokens it binds only "
        "to loopback and asks for no token. Put a reverse proxy in front of it for TLS.",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8750, help="port (default 8750)")
    p.add_argument("--tokens", type=Path, help="tokens file (hippo-tui token add); needed off loopback")
    p.add_argument("--answers-per-token", type=int, default=2, help="answers running at once per token")
    p.add_argument("--deadline", type=float, default=300.0, help="seconds an answer may run (default 300)")
    p.add_argument("--grace", type=float, default=10.0,
                   help="seconds an answer runs on once no client listens, for a reconnect (default 10)")
    p.add_argument("--running", type=int, default=8,
                   help="answers worked on at once, server-wide; the rest wait with their start sent (default 8)")
    p.add_argument("--heartbeat", type=float, default=15.0, help="seconds between keep-alive comments (default 15)")
    p.add_argument("--header-timeout", type=float, default=10.0,
                   help="seconds a connection has to send its request headers, then it is closed (default 10)")
    p.add_argument("--max-upload-mb", type=float, default=64.0,
                   help="megabytes of one upload to POST /v1/kb/ingest, its files together (default 64)")
    p.set_defaults(func=_serve)
    _register_token(sub)


def _register_token(sub: argparse._SubParsersAction) -> None:
    t = sub.add_parser("token", help="make, list and revoke the server's bearer tokens")
    tsub = t.add_subparsers(dest="token_command", metavar="ACTION", required=True)
    add = tsub.add_parser("add", help="make a token (printed once; only its SHA-256 is kept)")
    add.add_argument("name")
    add.add_argument("--role", choices=ROLES, required=True)
    lst = tsub.add_parser("list", help="names, roles, created, last used (never the hashes)")
    rev = tsub.add_parser("revoke", help="revoke a token; a running server refuses it at once")
    rev.add_argument("name")
    for p in (add, lst, rev):
        p.add_argument("--tokens", type=Path, required=True, help="the tokens file")
        p.set_defaults(func=_token)


def _serve(args: argparse.Namespace) -> int:
    try:
        from hippo_tui.server.run import ServeError, serve
    except ImportError as e:
        print(f"hippo-tui: the server needs its extra: pip install 'hippo-tui[server]' ({e.name} missing)",
              file=sys.stderr)  # fmt: skip
        return EXIT_USAGE
    import asyncio

    from hippo_tui.server.limits import Limits

    settings = settings_from_args(args)
    if settings.server:
        print("hippo-tui: serve runs the engine itself; drop --server / HIPPO_SERVER", file=sys.stderr)
        return EXIT_USAGE
    limits = Limits(answers_per_token=args.answers_per_token, deadline=args.deadline, grace=args.grace,
                    heartbeat=args.heartbeat, running=args.running, header_timeout=args.header_timeout,
                    max_upload=int(args.max_upload_mb * 1024 * 1024))  # fmt: skip
    try:
        return asyncio.run(serve(settings, host=args.host, port=args.port, tokens=args.tokens, limits=limits))
    except ServeError as e:
        print(f"hippo-tui: {e}", file=sys.stderr)
        return EXIT_USAGE


def _token(args: argparse.Namespace) -> int:
    from hippo_tui.server.tokens import TokenFileError, add_token, read_entries, revoke_token

    try:
        if args.token_command == "add":
            token = add_token(args.tokens, args.name, args.role)
            print(token)
            print(f"token for {args.name} ({args.role}): shown once, keep it safe", file=sys.stderr)
        elif args.token_command == "revoke":
            revoke_token(args.tokens, args.name)
            print(f"revoked {args.name}", file=sys.stderr)
        else:
            for e in read_entries(args.tokens):
                state = f"revoked {e.revoked}" if e.revoked else f"last used {e.last_used or 'never'}"
                print(f"{e.name:<20} {e.role:<10} created {e.created}  {state}")
    except TokenFileError as e:
        print(f"hippo-tui: {e}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK
