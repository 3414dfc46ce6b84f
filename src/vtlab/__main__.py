from vtlab.cli import main

raise SystemExit(main())
