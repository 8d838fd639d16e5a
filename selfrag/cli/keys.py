"""``selfrag keys``: API keys for the HTTP service (hashed on disk; the secret is shown once)."""

from __future__ import annotations

import typer

from selfrag.cli._common import handle_errors, out_console

__all__ = ["keys_app"]

keys_app = typer.Typer(help="Manage the HTTP service's API keys.", no_args_is_help=True)


@keys_app.command("add")
@handle_errors
def add(
    key_id: str = typer.Argument(..., help="A name for the key, e.g. acme-prod."),
    tenant: str = typer.Option(..., help="Tenant the key belongs to: its threads are private to the tenant."),
    read: list[str] = typer.Option([], "--read", help="Collection pattern the key may read (repeatable), e.g. 'acme-*'."),
    write: list[str] = typer.Option([], "--write", help="Collection pattern the key may create and write (implies read)."),
) -> None:
    """Create a key and print its secret (only now: the file keeps a hash).

    Example: selfrag keys add acme-prod --tenant acme --read 'acme-*' --write 'acme-*'
    """
    from selfrag.service import KeyFile, keys_file
    from selfrag.settings import load_settings

    path = keys_file(load_settings())
    keys, secret = KeyFile.load(path).add(key_id=key_id, tenant=tenant, read=read, write=write)
    keys.save(path)
    typer.echo(secret)
    typer.echo(f"key {key_id!r} for tenant {tenant!r} saved in {path}; the secret above is not stored", err=True)


@keys_app.command("list")
@handle_errors
def list_keys() -> None:
    """List keys (names, tenants and scopes; never secrets)."""
    from selfrag.service import KeyFile, keys_file
    from selfrag.settings import load_settings

    for key in KeyFile.load(keys_file(load_settings())).keys:
        out_console.print(
            f"{key.id}  tenant={key.tenant}  read={','.join(key.read) or '-'}  write={','.join(key.write) or '-'}",
            markup=False, soft_wrap=True,
        )


@keys_app.command("remove")
@handle_errors
def remove(key_id: str = typer.Argument(..., help="The key's name.")) -> None:
    """Revoke a key (a running server notices within a second)."""
    from selfrag.service import KeyFile, keys_file
    from selfrag.settings import load_settings

    path = keys_file(load_settings())
    KeyFile.load(path).remove(key_id).save(path)
    typer.echo(f"key {key_id!r} removed", err=True)
