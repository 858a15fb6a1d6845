from contextual.entry import main

raise SystemExit(main())
