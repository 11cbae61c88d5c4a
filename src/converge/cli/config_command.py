"""``converge config``: a server's settings file (:mod:`converge.server.settings`).

* ``converge config check FILE`` reads the file as ``converge serve --config FILE`` would, with the
  environment's secrets, checks every value (and what the server checks before it starts: the deck folders,
  the proxy and mail settings), and prints the effective settings, each with where it came from, the secrets
  masked. A mistake is one line naming the file and the key; exit status 2.
* ``converge config example`` prints a file with every setting at its default, each with its help.
"""

from __future__ import annotations

import argparse

from converge.cli.common import Subcommands, UserError, add_command, path_text
from converge.cli.serve_command import web_command


def cmd_check(args: argparse.Namespace) -> int:
    from converge.cli.serve_command import checked_config
    from converge.server.settings import (
        BY_KEY,
        SECTIONS,
        SettingsError,
        exposed_to_others,
        load_file,
        resolve,
        secrets_in,
    )

    try:
        tables = load_file(args.file)
        effective = resolve(tables, where=str(args.file))
    except SettingsError as exc:
        raise UserError(*exc.problems) from None
    checked_config(effective)
    print(f"{args.file}: valid. The settings `converge serve --config {args.file}` runs with "
          "(a flag on its command line wins over any of them):")
    width = max(len(key.split(".", 1)[1]) for key in effective)
    for section in SECTIONS:
        print(f"[{section}]")
        for key, value in effective.items():
            if key.startswith(section + "."):
                print(f"  {key.split('.', 1)[1]:<{width}} = {value.shown():<32} ({value.source})")
    held = secrets_in(tables)
    if held and exposed_to_others(args.file):
        envs = [env for key in held if (env := BY_KEY[key].env)]
        print(f"warning: {args.file} holds {', '.join(held)}, and every user of this machine may read it: "
              f"`chmod 600 {args.file}`, or give {' and '.join(envs)} in the server's environment instead")
    return 0


def cmd_example(_args: argparse.Namespace) -> int:
    from converge.server.settings import example

    print(example(), end="")
    return 0


def register(sub: Subcommands) -> None:
    """Add ``config check`` and ``config example`` to the ``converge`` command's subparsers."""
    p = add_command(sub, "config")
    actions = p.add_subparsers(dest="config_command", metavar="ACTION", required=True)
    check = actions.add_parser("check", help="validate a settings file and print the effective settings",
                               description="Validate a settings file (TOML) as `converge serve --config FILE` "
                                           "reads it, with the environment's secrets, and print the effective "
                                           "settings, secrets masked.")
    check.add_argument("file", metavar="FILE", type=path_text, help="the settings file (TOML)")
    check.set_defaults(func=web_command(cmd_check))
    example = actions.add_parser("example", help="print a settings file with every setting at its default",
                                 description="Print a settings file with every setting at its default, each "
                                             "with its help: `converge config example > converge.toml`.")
    example.set_defaults(func=cmd_example)
