from vtlab.cli.commands import main

raise SystemExit(main())
