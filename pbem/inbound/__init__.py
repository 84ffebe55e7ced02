"""Mail the service receives: replies that move, table talk, bounces."""
