from cad.cli import main

raise SystemExit(main())
