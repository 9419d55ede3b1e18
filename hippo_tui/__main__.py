from hippo_tui.cli import main

raise SystemExit(main())
