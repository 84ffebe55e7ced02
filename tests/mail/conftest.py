"""The mail tests' fixtures: a real SMTP server and an app that mails through it."""

from tests.mail.smtpd import sctx, smtp, smtp_app  # noqa: F401
