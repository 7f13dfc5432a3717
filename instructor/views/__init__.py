"""The dashboard's views, one module per screen."""
