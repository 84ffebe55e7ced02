"""Tests of the mail the service receives (``pbem.inbound``)."""
