"""Accounts people keep (issue 25): handles, passwords, passkeys, app sessions, the account
stream. ``AuthService`` (service.auth.service) is the one object the HTTP layer calls; the
modules beside it hold one concern each and import no Flask."""
