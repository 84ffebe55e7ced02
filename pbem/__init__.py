"""Clans by Mail: a play-by-email service for the board game Clans."""
