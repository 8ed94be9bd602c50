"""The Tablestream service: the application layer, accounts, lobby, HTTP API and CLI."""
