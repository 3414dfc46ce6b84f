"""`vtlab mix --openapi URL|FILE`: a first request mix for `--mix`, written from a service's OpenAPI 3 document."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from vtlab.targets import openapi


def add(sub) -> None:
    mix = sub.add_parser("mix", help="write a first request mix (--mix FILE) from a service's OpenAPI 3 document",
                         description="Every operation of the document an entry of weight 1, its first path parameter "
                                     "the entry's {id}, its JSON body from the document's examples or types: edit the "
                                     "weights and ids, then run it with `vtlab run --service JAR --mix FILE`.")
    mix.add_argument("--openapi", required=True, metavar="URL|FILE",
                     help="the document: a running service's /v3/api-docs (springdoc), or a JSON or YAML file")
    mix.add_argument("--out", type=Path, metavar="FILE.yaml", help="where to write the mix (default: print it)")
    mix.add_argument("--force", action="store_true", help="with --out: replace a file that is there")
    mix.set_defaults(func=cmd_mix)


def cmd_mix(args: argparse.Namespace) -> int:
    if args.out is not None and args.out.exists() and not args.force:
        print(f"vtlab mix: --out {args.out} is there already; give another file, or --force to replace it",
              file=sys.stderr)
        return 2
    try:
        document = openapi.read(args.openapi)
        written = openapi.starter(document, args.openapi)
        with tempfile.TemporaryDirectory(prefix="vtlab-mix-") as folder:
            checked = Path(folder) / "mix.yaml"
            checked.write_text(written.text)
            entries = openapi.check(checked).entries
    except ValueError as err:
        print(f"vtlab mix: {err}", file=sys.stderr)
        return 2
    for note in written.notes:
        print(f"vtlab mix: note: {note}", file=sys.stderr)
    if args.out is None:
        sys.stdout.write(written.text)
        return 0
    args.out.write_text(written.text)
    print(f"vtlab mix: {len(entries)} entries written to {args.out} (and "
          f"{written.text.count('# not called:')} commented out); edit the weights and ids, then: "
          f"vtlab run --service JAR --mix {args.out}", file=sys.stderr)
    return 0
