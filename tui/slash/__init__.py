"""The app's slash commands as handler objects (one `run(app, argument)` each), registered in `tui.commands`'
table. They reach the app only through `port.AppPort`, never the app class itself."""
