"""``hippo-tui db``: the store's schema and moving data between stores.

  db migrate            run the schema migrations the database lacks (for a DBA who does not let the
                        application alter schemas; otherwise they run on first use)
  db grants ROLE        print the GRANT/REVOKE script that makes the audit record append-only for ROLE
  db copy --to URL      copy the current store (or --from's) into another, in one transaction
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from hippo_tui.commands._common import EXIT_OK, EXIT_STORE, EXIT_USAGE, print_error, settings_from_args

if TYPE_CHECKING:
    from hippo_tui.store.copy import Copied


async def _migrate_async(args: argparse.Namespace) -> tuple[int, int]:
    from hippo_tui.store import SCHEMA_VERSION, open_store
    from hippo_tui.store.open import is_postgres

    settings = settings_from_args(args)
    if settings.database and is_postgres(settings.database):
        from hippo_tui.store.pg.store import migrate_database

        return await migrate_database(settings.database)
    store = await open_store(settings)  # SQLite migrates as it opens
    await store.close()
    return SCHEMA_VERSION, SCHEMA_VERSION


def _migrate(args: argparse.Namespace) -> int:
    import asyncio

    from hippo_tui.store import StoreError

    try:
        before, after = asyncio.run(_migrate_async(args))
    except StoreError as e:
        print_error(str(e))
        return EXIT_STORE
    print(f"schema {after}" + (f" (was {before})" if before != after else " (up to date)"))
    return EXIT_OK


def _grants(args: argparse.Namespace) -> int:
    from hippo_tui.store.pg.grants import grants_sql

    try:
        print(grants_sql(args.role), end="")
    except ValueError as e:
        print_error(str(e))
        return EXIT_USAGE
    return EXIT_OK


def _copy(args: argparse.Namespace) -> int:
    import asyncio

    from hippo_tui.store import KBImportError, StoreError

    try:
        report = asyncio.run(_copy_async(args))
    except (StoreError, KBImportError) as e:
        print_error(str(e))
        return EXIT_STORE
    width = max(len(c.table) for c in report)
    for c in report:
        print(f"{c.table:<{width}}  {c.source:>8} copied   target {c.target_before} -> {c.target_after}")
    print("counts checked on both sides: all rows arrived, in one transaction")
    return EXIT_OK


async def _copy_async(args: argparse.Namespace) -> list[Copied]:
    from hippo_tui.store import open_store
    from hippo_tui.store.copy import copy_store
    from hippo_tui.store.open import open_database

    settings = settings_from_args(args)
    source = await (open_database(args.source) if args.source else open_store(settings))
    try:
        target = await open_database(args.to, seed=None)  # an empty target stays empty until the copy
        try:
            return await copy_store(source, target, append=args.append)
        finally:
            await target.close()
    finally:
        await source.close()


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("db", parents=[common], help="the store's schema, privileges, and copying it")
    db = p.add_subparsers(dest="db_command", metavar="DB_COMMAND", required=True)
    c = db.add_parser("migrate", parents=[common], help="run the schema migrations --database lacks")
    c.set_defaults(func=_migrate)
    c = db.add_parser("grants", parents=[common], help="print the append-only GRANT/REVOKE script for ROLE")
    c.add_argument("role", metavar="ROLE", help="the role hippo-tui connects as")
    c.set_defaults(func=_grants)
    c = db.add_parser("copy", parents=[common], help="copy the store (KB, documents, audit) into another")
    c.add_argument("--to", required=True, metavar="URL", help="the target: postgresql://… or an SQLite file")
    c.add_argument("--from", dest="source", metavar="URL", help="the source (default: the current store)")
    c.add_argument("--append", action="store_true", help="add to a target that is not empty")
    c.set_defaults(func=_copy)
