"""Accounts without passwords: a player signs in on any device by a link mailed to their address
(:mod:`.signin`), the mail sent through SMTP or, on a local server without one, written to the log
(:mod:`.mailer`); addresses are checked by :mod:`.addresses`."""
