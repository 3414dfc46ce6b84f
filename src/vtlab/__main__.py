from vtlab.cli.main import main

raise SystemExit(main())
