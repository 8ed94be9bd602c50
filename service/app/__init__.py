"""The use cases: games, history, lobby, inbox, accounts, ratings, webhooks and pushes."""
